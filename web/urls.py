"""The client's pages, all answered by the one shell (the browser routes within it)."""

from django.urls import URLPattern, path

from web.views import app_shell

urlpatterns: list[URLPattern] = [
    path("", app_shell, name="web-lobby"),
    path("signin", app_shell, name="web-signin"),
    path("account", app_shell, name="web-account"),
    path("account/<str:step>", app_shell, name="web-account-step"),
    path("daily", app_shell, name="web-daily"),
    path("daily/<str:date>", app_shell, name="web-daily-date"),
    path("archive", app_shell, name="web-archive"),
    path("archive/<str:month>", app_shell, name="web-archive-month"),
    path("races", app_shell, name="web-races"),
    path("races/<str:key>", app_shell, name="web-race"),
    path("arenas", app_shell, name="web-arenas"),
    path("arenas/<str:arena>", app_shell, name="web-arena"),
    path("leaderboards", app_shell, name="web-leaderboards"),
    path("tv", app_shell, name="web-tv"),
    path("puzzles", app_shell, name="web-puzzles"),
    path("puzzles/<str:mode>", app_shell, name="web-puzzles-mode"),
    path("games/<str:game_id>", app_shell, name="web-game"),
    path("players/<str:username>", app_shell, name="web-player"),
    path("players/<str:username>/stats/<str:rules>", app_shell, name="web-player-stats"),
]
