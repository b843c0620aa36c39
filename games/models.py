"""Models of the games app (the event store and its projections live here)."""
