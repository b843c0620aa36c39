"""The moderators' Django admin, one module a page (see ``games.admin.common``)."""

from games.admin import games  # noqa: F401  (registers every page)
