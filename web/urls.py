"""The client's pages, all answered by the one shell (the browser routes within it)."""

from django.urls import URLPattern, path

from web.views import app_shell

urlpatterns: list[URLPattern] = [
    path("", app_shell, name="web-lobby"),
    path("signin", app_shell, name="web-signin"),
    path("daily", app_shell, name="web-daily"),
    path("daily/<str:date>", app_shell, name="web-daily-date"),
    path("games/<str:game_id>", app_shell, name="web-game"),
    path("players/<str:username>", app_shell, name="web-player"),
]
