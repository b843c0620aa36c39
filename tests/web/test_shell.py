"""The web client's shell: one page for every client route, under a strict CSP, beside the
API, the admin and the operations endpoints it must never shadow."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders

from web.views import ASSETS_COOKIE, CONTENT_SECURITY_POLICY, inline_client

CLIENT_PAGES = [
    "/",
    "/signin",
    "/daily",
    "/daily/2026-11-30",
    "/games/6f1c0000-0000-0000-0000-000000000000",
    "/players/%3Cimg%20src%3Dx%3E",
    "/archive",
    "/archive/2026-11",
    "/races",
    "/races/K7QH2M",
    "/arenas",
    "/arenas/6f1c0000-0000-0000-0000-000000000000",
    "/leaderboards",
    "/tv",
]


class Tags(HTMLParser):
    """Every start tag of a document, with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.script_text = ""
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.script_text += data


def parsed(html: str) -> Tags:
    tags = Tags()
    tags.feed(html)
    return tags


def linked(client) -> None:
    """The client of a browser that has the client's files: its shell links them."""
    carried = inline_client()
    assert carried is not None
    client.cookies[ASSETS_COOKIE] = carried.version


@pytest.mark.django_db
@pytest.mark.parametrize("path", CLIENT_PAGES)
def test_every_client_page_is_the_shell_under_the_policy(client, path):
    carried = inline_client()
    assert carried is not None

    first = client.get(path)  # a first visit: the client inline, under its hashes

    assert first.status_code == 200
    assert first["Content-Type"].startswith("text/html")
    assert first["Content-Security-Policy"] == carried.policy
    assert first["Referrer-Policy"] == "same-origin"
    assert b'<script type="module">' in first.content
    scripts = [a for tag, a in parsed(first.content.decode()).tags if tag == "script"]
    assert not any(a.get("src") for a in scripts)  # no script or module to fetch first
    assert first.cookies[ASSETS_COOKIE].value == carried.version

    again = client.get(path)  # the cookie says the files are cached: the shell links them

    assert again.status_code == 200
    assert again["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    assert again["Referrer-Policy"] == "same-origin"
    # The client in one script (web.bundle), after boot.js, which starts the first requests.
    assert b'<script type="module" src="/static/web/js/bundle.js">' in again.content
    assert b'<script type="module" async src="/static/web/js/boot.js">' in again.content
    assert b"modulepreload" not in again.content
    assert ASSETS_COOKIE not in again.cookies
    assert {"Cookie"} <= {v.strip() for v in again["Vary"].split(",")}


@pytest.mark.django_db
def test_a_cookie_of_another_version_gets_the_client_inline_again(client):
    client.cookies[ASSETS_COOKIE] = "0123456789abcdef"  # before the last deploy

    response = client.get("/")

    assert b'<script type="module">' in response.content
    assert response.cookies[ASSETS_COOKIE].value == inline_client().version  # type: ignore[union-attr]


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/games/6f1c0000-0000-0000-0000-000000000000"])
def test_unbundled_the_shell_loads_main_js_and_preloads_what_it_imports(client, settings, path):
    settings.WEB_BUNDLE = False
    html = client.get(path).content.decode()

    assert '<script type="module" src="/static/web/js/main.js">' in html
    assert "bundle.js" not in html
    tags = parsed(html)
    preloads = [a["href"] for t, a in tags.tags if t == "link" and a.get("rel") == "modulepreload"]
    assert "/static/web/js/api.js" in preloads and "/static/web/js/i18n.js" in preloads


def test_the_policy_allows_only_this_sites_own_scripts_and_connections():
    carried = inline_client()
    assert carried is not None
    for policy, inline in ((CONTENT_SECURITY_POLICY, 0), (carried.policy, 1)):
        directives = dict(part.split(" ", 1) for part in policy.split("; "))

        assert directives["default-src"] == "'none'"
        # No 'unsafe-inline', no 'unsafe-eval': the client's own inline script, by its hash.
        assert directives["script-src"].split()[0] == "'self'"
        assert len(directives["script-src"].split()) == 1 + inline
        assert len(directives["style-src"].split()) == 1 + inline
        assert all(w.startswith("'sha256-") for w in directives["script-src"].split()[1:])
        assert directives["connect-src"] == "'self'"
        assert directives["frame-ancestors"] == "'none'"


def digest(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


@pytest.mark.django_db
def test_a_first_visit_carries_the_client_under_its_hashes_and_names_its_files(client):
    response = client.get("/")
    html = response.content.decode()
    tags = parsed(html)
    policy = response["Content-Security-Policy"]
    directives = dict(part.split(" ", 1) for part in policy.split("; "))

    scripts = [attrs for tag, attrs in tags.tags if tag == "script"]
    assert scripts == [{"type": "module"}]  # the client, and nothing that runs but it
    assert not any(tag == "link" and a.get("rel") == "stylesheet" for tag, a in tags.tags)
    script = html[html.index('<script type="module">') + 22 : html.index("</script>")]
    style = html[html.index("<style>") + 7 : html.index("</style>")]
    assert directives["script-src"] == f"'self' {digest(script)}"
    assert directives["style-src"] == f"'self' {digest(style)}"
    assert style == Path(finders.find("web/css/app.css")).read_text().strip()  # type: ignore[arg-type]
    assert not any(name.startswith("on") for _, attrs in tags.tags for name in attrs)
    # Read against the page's address, a relative specifier would miss: none is left.
    assert 'from "./' not in script and 'import("./' not in script
    for url in re.findall(r'import\("([^"]+)"\)', script):  # the language packs, by their URLs
        assert finders.find(url.removeprefix("/static/")), f"{url} is not a static file"
    # The files the next visit links, fetched by the page once it is idle.
    metas = {a["name"]: a["content"] for t, a in tags.tags if t == "meta" and "name" in a}
    files = str(metas["scorpion:prefetch"]).split()
    css, script_file, boot = "web/css/app.css", "web/js/bundle.js", "web/js/boot.js"
    assert files == [f"/static/{name}" for name in (css, script_file, boot)]
    for url in files:
        assert finders.find(url.removeprefix("/static/")), f"{url} is not a static file"


@pytest.mark.django_db
def test_a_first_visit_is_sent_compressed_when_the_browser_accepts_it(client, django_user_model):
    from games.writes import services

    owner = django_user_model.objects.create_user("cy", password="pw-cy-12345")
    game = str(services.game_create(owner=owner, rules="classic", seed=5).game_id)
    for path in ("/", f"/games/{game}", "/players/%3Cimg%20src%3Dx%3E"):
        plain = client.get(path)
        client.cookies.clear()
        packed = client.get(path, headers={"Accept-Encoding": "br, gzip;q=0.9"})
        client.cookies.clear()

        assert "Content-Encoding" not in plain
        assert packed["Content-Encoding"] == "gzip"
        assert gzip.decompress(packed.content) == plain.content
        assert len(packed.content) < len(plain.content) / 3
        assert {"Accept-Encoding", "Cookie"} <= {v.strip() for v in packed["Vary"].split(",")}


def test_the_linked_shell_has_no_inline_script_or_style_and_its_files_exist(client):
    linked(client)
    tags = parsed(client.get("/").content.decode())

    scripts = [attrs for tag, attrs in tags.tags if tag == "script"]
    assert scripts and all(attrs.get("src") for attrs in scripts)
    assert tags.script_text.strip() == ""
    assert not any(tag == "style" or "style" in attrs for tag, attrs in tags.tags)
    assert not any(name.startswith("on") for _, attrs in tags.tags for name in attrs)
    linked_files = [
        attrs.get("src") or attrs.get("href")
        for tag, attrs in tags.tags
        if tag in ("script", "link") and (attrs.get("src") or attrs.get("href"))
    ]
    for url in linked_files:
        assert url.startswith("/static/"), url
        assert finders.find(url.removeprefix("/static/")), f"{url} is not a static file"


@pytest.mark.django_db
@pytest.mark.parametrize("bundled", [True, False], ids=["bundled", "modules"])
def test_a_game_page_carries_the_api_answers_an_anonymous_reader_gets(
    client, settings, django_user_model, bundled
):
    from games.writes import services

    settings.WEB_BUNDLE = bundled
    if bundled:
        linked(client)

    owner = django_user_model.objects.create_user("ann</script><b>", password="pw-ann-123")
    game = str(services.game_create(owner=owner, rules="classic", seed=3).game_id)

    html = client.get(f"/games/{game}").content.decode()
    tags = parsed(html)
    scripts = [attrs for tag, attrs in tags.tags if tag == "script"]
    # The only script without src is JSON data, which runs nothing (CSP allows no other).
    assert [a for a in scripts if not a.get("src")] == [
        {"id": "scorpion-answers", "type": "application/json"}
    ]
    carried = json.loads(tags.script_text)
    assert carried[f"/games/{game}"] == client.get(f"/api/v1/games/{game}").json()
    assert carried["/rules"] == client.get("/api/v1/rules").json()
    assert "</script><b>" not in tags.script_text  # the owner's name is escaped in the data
    assert carried[f"/games/{game}"]["owner"] == "ann</script><b>"
    metas = {a["name"]: a["content"] for t, a in tags.tags if t == "meta" and "name" in a}
    if bundled:  # every way to show it is in the one script
        assert not any(name.startswith("scorpion:") for name in metas)
        return
    # Played by its owner or watched: both ways are named for boot.js, neither preloaded.
    assert "/static/web/js/play.js" in str(metas["scorpion:play"]).split()
    assert "/static/web/js/watch.js" in str(metas["scorpion:watch"]).split()


@pytest.mark.django_db
def test_a_finished_game_page_preloads_its_replay_and_a_missing_one_carries_nothing(
    client, settings, django_user_model
):
    from games.writes import services

    settings.WEB_BUNDLE = False  # preloads are for the modules one by one

    owner = django_user_model.objects.create_user("bea", password="pw-bea-123")
    game = str(services.game_create(owner=owner, rules="classic", seed=4).game_id)
    services.game_command(game_id=game, actor=owner, command={"type": "resign"})

    tags = parsed(client.get(f"/games/{game}").content.decode())
    preloads = [a["href"] for t, a in tags.tags if t == "link" and a.get("rel") == "modulepreload"]
    assert "/static/web/js/replay.js" in preloads and "/static/web/js/board.js" in preloads
    assert not any(a.get("name", "").startswith("scorpion:") for t, a in tags.tags if t == "meta")

    missing = parsed(client.get("/games/6f1c0000-0000-0000-0000-000000000000").content.decode())
    assert missing.script_text == ""


def test_only_reading_methods_answer(client):
    assert client.post("/").status_code == 405
    assert client.head("/daily").status_code == 200


@pytest.mark.parametrize(
    ("path", "status", "kind"),
    [
        ("/healthz", 200, "application/json"),
        ("/api/v1/no-such-thing", 404, "application/json"),
        ("/api/v1/rules", 200, "application/json"),
        ("/admin/", 302, None),
    ],
)
@pytest.mark.django_db
def test_the_client_never_shadows_the_server_s_own_paths(client, path, status, kind):
    response = client.get(path)

    assert response.status_code == status
    if kind:
        assert response["Content-Type"].startswith(kind)
    # Not the client's shell (the admin has a policy of its own: scorpion_server.security).
    assert response.get("Content-Security-Policy") != CONTENT_SECURITY_POLICY


def test_unknown_pages_outside_the_client_stay_404(client):
    assert client.get("/games").status_code == 404
    assert client.get("/games/a/b").status_code == 404


# --- the modules' strings ---------------------------------------------------------------------

LANG_DIR = "web/js/lang"
KEY = re.compile(r'^\s*"?([a-z_][\w.]*)"?:\s', re.MULTILINE)


def keys_of(language: str) -> set[str]:
    path = finders.find(f"{LANG_DIR}/{language}.js")
    assert path, language
    with open(path, encoding="utf-8") as text:
        return set(KEY.findall(text.read()))


@pytest.mark.parametrize("language", ["it", "es", "pt"])
def test_each_language_has_every_english_string_and_no_other(language):
    assert keys_of(language) == keys_of("en")


def test_every_string_the_modules_name_exists_in_english():
    english = keys_of("en")
    root = finders.find("web/js/main.js")
    assert root
    used: set[str] = set()
    for module in Path(root).parent.rglob("*.js"):
        if module.parent.name == "lang":
            continue
        used |= set(re.findall(r'\bt\("([a-z_][\w.]*)"', module.read_text(encoding="utf-8")))
    assert used, 'no t("…") calls found'
    assert sorted(used - english) == []


def test_every_plural_the_modules_name_has_its_forms_in_english():
    english = keys_of("en")
    root = finders.find("web/js/main.js")
    assert root
    used: set[str] = set()
    for module in Path(root).parent.rglob("*.js"):
        used |= set(re.findall(r'\bplural\("([a-z_][\w.]*)"', module.read_text(encoding="utf-8")))
    assert used, 'no plural("…") calls found'
    # Intl.PluralRules picks the form; every language falls back to "other".
    assert sorted(key for key in used if f"{key}.other" not in english) == []
    assert sorted(key for key in used if key in english) == []  # no form-less leftovers
