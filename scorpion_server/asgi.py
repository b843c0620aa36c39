"""ASGI entry point: HTTP goes to ServeStatic (static files) or Django, WebSockets to Channels."""

import asyncio
import gc
import os
from typing import Any

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scorpion_server.settings")
from scorpion_server.handler import http_application  # noqa: E402

# Set Django up before importing anything that may import models (the WebSocket routes).
django_asgi_app = http_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

import api.routing  # noqa: E402
from api.ws_auth import BrowserOriginValidator, TicketAuthMiddleware  # noqa: E402
from games.live import outbox  # noqa: E402
from games.reads import solver_work  # noqa: E402
from scorpion_server.liveness import liveness  # noqa: E402
from scorpion_server.static import static_application  # noqa: E402

router = ProtocolTypeRouter(
    {
        # The static files, served with DEBUG off too, before Django: one process is a
        # complete server, with no separate web server needed for a small site.
        # And /healthz before both, on the event loop: it must not wait for a thread.
        "http": liveness(static_application(django_asgi_app)),
        # Browsers must come from an allowed host; programs that send no Origin pass.
        "websocket": BrowserOriginValidator(
            AuthMiddlewareStack(TicketAuthMiddleware(URLRouter(api.routing.websocket_urlpatterns)))
        ),
    }
)


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The server's ASGI application: publications leave from the server's own event loop
    (``games.live.outbox``), then the router takes the connection."""
    outbox.bind(asyncio.get_running_loop())
    await router(scope, receive, send)


# The solver's processes start with the server, not on its first hint.
solver_work.warm()

# Everything loaded so far (Django, the apps, the URL and model registries) lives as long as
# the process: freeze it out of the garbage collector, and collect young objects in bigger
# batches. Otherwise full collections walk every object and pause the event loop for tens of
# milliseconds under load (it showed as the p99 of bench/daily.py: 104 ms, 24 ms after this).
gc.freeze()
gc.set_threshold(20_000, 50, 100)
