"""The api Django app: REST views, WebSocket consumers and operations endpoints (no models)."""
