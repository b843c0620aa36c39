"""WebSocket routes, mounted by scorpion_server.asgi.

A path no route matches (a game's path without its final ``/``, an unknown feed, a
parameter holding a control character) is accepted and closed with 4404, never left to the
router's exception (a 1011 close).
"""

from django.urls import URLPattern, URLResolver, path, re_path

from api import (
    consumers,
    converters,  # noqa: F401  (registers the "text" path converter)
)

websocket_urlpatterns: list[URLPattern | URLResolver] = [
    path("ws/games/<text:game_id>/", consumers.GameConsumer.as_asgi()),
    path("ws/challenges/<text:date>/", consumers.ChallengeConsumer.as_asgi()),
    path("ws/races/<text:race>/", consumers.RaceConsumer.as_asgi()),
    path("ws/arenas/<text:arena>/", consumers.ArenaConsumer.as_asgi()),
    re_path(r"", consumers.NoRoute.as_asgi()),
]
