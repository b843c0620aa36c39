"""WebSocket routes, mounted by scorpion_server.asgi."""

from django.urls import URLPattern, URLResolver, path

from api import consumers

websocket_urlpatterns: list[URLPattern | URLResolver] = [
    path("ws/games/<str:game_id>/", consumers.GameConsumer.as_asgi()),
    path("ws/challenges/<str:date>/", consumers.ChallengeConsumer.as_asgi()),
    path("ws/races/<str:race>/", consumers.RaceConsumer.as_asgi()),
    path("ws/arenas/<str:arena>/", consumers.ArenaConsumer.as_asgi()),
]
