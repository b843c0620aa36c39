"""WebSocket routes, mounted by scorpion_server.asgi."""

from django.urls import URLPattern, URLResolver, path

from api import consumers, contest_consumers

websocket_urlpatterns: list[URLPattern | URLResolver] = [
    path("ws/games/<str:game_id>/", consumers.GameConsumer.as_asgi()),
    path("ws/challenges/<str:date>/", consumers.ChallengeConsumer.as_asgi()),
    path("ws/races/<str:race>/", contest_consumers.RaceConsumer.as_asgi()),
    path("ws/arenas/<str:arena>/", contest_consumers.ArenaConsumer.as_asgi()),
]
