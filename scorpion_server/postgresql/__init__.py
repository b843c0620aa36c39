"""Django's PostgreSQL backend, failing fast while PostgreSQL cannot be reached (``base``)."""
