"""WebSocket routes, mounted by scorpion_server.asgi."""

from django.urls import URLPattern, URLResolver

websocket_urlpatterns: list[URLPattern | URLResolver] = []
