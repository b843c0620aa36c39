"""Django project package: settings, ASGI routing and URLs of the Scorpion server."""
