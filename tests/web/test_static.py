"""Static files as a server serves them: after ``collectstatic``, hashed names cached for a
year, gzip copies, and ES modules that import one another by those names; before it, the
source files under their plain names, briefly cached."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from channels.testing import HttpCommunicator
from django.core.management import call_command

from scorpion_server.static import HASHED_NAME, static_application

#: Relative module specifiers in a JavaScript file (static and literal dynamic imports).
SPECIFIER = re.compile(r"""(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s*)["'](\.{1,2}/[^"']+)["']""")
YEAR = 365 * 24 * 3600


async def _not_found(scope, receive, send):
    await send({"type": "http.response.start", "status": 404, "headers": []})
    await send({"type": "http.response.body", "body": b"not static"})


def get(app, path: str, **headers: str) -> dict:
    encoded = [(name.replace("_", "-").encode(), value.encode()) for name, value in headers.items()]
    response = async_to_sync(HttpCommunicator(app, "GET", path, headers=encoded).get_response)()
    response["headers"] = {k.decode().lower(): v.decode() for k, v in response["headers"]}
    return response


@pytest.fixture
def collected(tmp_path: Path, settings) -> Path:
    """The client's static files collected into a fresh STATIC_ROOT, DEBUG off."""
    settings.DEBUG = False
    settings.STATIC_ROOT = tmp_path
    call_command(
        "collectstatic",
        "--no-input",
        *("-v", "0"),
        *("-i", "admin", "-i", "rest_framework", "-i", "drf_spectacular_sidecar"),
    )
    return tmp_path


def test_the_shell_names_hashed_files_served_for_a_year_and_gzipped(client, collected):
    first = client.get("/").content.decode()  # the client inline, its files named to fetch
    files = re.search(r'<meta name="scorpion:prefetch" content="([^"]+)">', first)
    assert files, first[:400]
    shell = client.get("/").content.decode()  # with the cookie: the shell links them
    urls = re.findall(r'(?:src|href)="(/static/[^"]+)"', shell)
    assert any("/web/js/bundle." in url for url in urls), shell
    assert set(files[1].split()) <= set(urls)
    app = static_application(_not_found)
    for url in urls:
        assert HASHED_NAME.search(url), f"{url} is not a hashed name"
        plain = get(app, url)
        assert plain["status"] == 200, url
        assert plain["headers"]["cache-control"] == f"max-age={10 * YEAR}, public, immutable"
        zipped = get(app, url, accept_encoding="gzip, deflate, br")
        if url.endswith((".js", ".css", ".svg")):
            assert zipped["headers"].get("content-encoding") == "gzip", url
            assert len(zipped["body"]) < len(plain["body"])


def test_collected_modules_import_each_other_by_hashed_name(collected):
    """A module fetched once by its hashed name (a preload) and again by its plain name (an
    import) would cost the bytes twice: every relative import names a hashed file."""
    hashed = [
        path for path in (collected / "web" / "js").rglob("*.js") if HASHED_NAME.search(path.name)
    ]
    assert len(hashed) > 20
    for module in hashed:
        for specifier in SPECIFIER.findall(module.read_text()):
            assert HASHED_NAME.search(specifier), f"{module.name} imports {specifier}"
            assert (module.parent / specifier).is_file(), f"{module.name}: {specifier}"


def test_plain_names_are_cached_briefly_and_other_paths_go_to_the_app(collected):
    app = static_application(_not_found)
    plain = get(app, "/static/web/js/main.js")
    assert plain["status"] == 200
    assert plain["headers"]["cache-control"] == "max-age=60, public"
    assert get(app, "/static/web/js/nothing.js")["status"] == 404
    assert get(app, "/api/v1/games")["body"] == b"not static"


def test_without_collectstatic_the_source_files_are_served(client, settings, tmp_path):
    settings.DEBUG = False
    settings.STATIC_ROOT = tmp_path  # empty: nothing collected
    settings.WEB_BUNDLE = False
    shell = client.get("/").content.decode()
    assert 'src="/static/web/js/main.js"' in shell
    app = static_application(_not_found)
    source = Path(__file__).resolve().parents[2] / "web" / "static" / "web" / "js" / "main.js"
    response = get(app, "/static/web/js/main.js")
    assert response["body"] == source.read_bytes()
    assert "immutable" not in response["headers"]["cache-control"]
