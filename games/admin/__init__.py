"""The moderators' Django admin, a module a page: players, games (with the replay), events,
daily challenges and standings, races and arenas and their results, the evidence of
flagged rated and contest games, the leaderboards
(read-only), and the moderation log. Staff only: Django's admin sends everyone else to its
login page. ``games.admin.common`` holds what the pages share."""

from django.contrib import admin

from games.admin import boards, contests, dailies, events, evidence, games, log, players

admin.site.site_header = "Scorpion administration"
admin.site.site_title = "Scorpion admin"
admin.site.index_title = "Moderation"

__all__ = ["boards", "contests", "dailies", "events", "evidence", "games", "log", "players"]
