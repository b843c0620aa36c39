"""Top-level URL routes: operations, admin, the versioned API and its OpenAPI documents, and
the browser client's pages (last: its routes never shadow the others)."""

from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from api.asyncapi import asyncapi_view
from api.exceptions import not_found
from api.views import ops
from scorpion_server.observability import metrics_view

urlpatterns = [
    path("healthz", ops.healthz, name="healthz"),
    path("readyz", ops.readyz, name="readyz"),
    path("metrics", metrics_view, name="metrics"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # HTML and script apart, and no inline style: the page keeps a strict CSP
    # (scorpion_server.security).
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(url_name="schema", template_name="api/swagger_ui.html"),
        name="docs",
    ),
    # The WebSocket feeds' contract (AsyncAPI 3.0), beside the REST one.
    path("api/asyncapi.json", asyncapi_view, name="asyncapi"),
    # Anything else under /api/ is the API's JSON 404, with DEBUG on too (Django's debug
    # page would answer a path that no route matches).
    re_path(r"^api/", not_found),
    path("", include("web.urls")),
]

# Under /api/ errors answer in the API's JSON shape; elsewhere Django's pages.
handler400 = "api.exceptions.bad_request"
handler403 = "api.exceptions.permission_denied"
handler404 = "api.exceptions.not_found"
handler500 = "api.exceptions.server_error"
