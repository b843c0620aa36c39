"""``web.bundle`` builds the client's one script from its modules, and refuses what it
would not render as the modules behave. (What the bundle does in a browser:
``tests/e2e/test_web_bundle.py``; every browser test runs the client bundled.)"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from web import bundle

CLIENT = Path(__file__).resolve().parents[2] / "web" / "static" / "web" / "js"


def modules(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in {"boot.js": "export const booted = 1;", **files}.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def bundled_names(text: str) -> list[str]:
    return re.findall(r'^\$module\("([^"]+)"', text, re.MULTILINE)


def test_the_client_is_bundled_but_for_boot_and_the_languages_loaded_on_demand() -> None:
    text = bundle.build(CLIENT)
    names = set(bundled_names(text))
    every = {f"web/js/{p.relative_to(CLIENT).as_posix()}" for p in CLIENT.rglob("*.js")}
    separate = {"web/js/boot.js", "web/js/lang/it.js", "web/js/lang/es.js", "web/js/lang/pt.js"}
    # Every module main.js reaches, statically or by import(), views included.
    assert names == every - separate
    assert 'import * as $s0 from "./boot.js";' in text
    assert 'import("./lang/it.js")' in text
    # No import statement is left inside a module, and no comment reaches the browser.
    assert not re.search(r"^\s*import\s+[\w{*]", text.split("$module(", 1)[1], re.MULTILINE)
    assert "// The client's entry point" not in text


def test_a_bundle_for_a_page_to_carry_has_boot_in_it_and_names_the_languages_by_url() -> None:
    text = bundle.build(CLIENT, located=lambda name: f"/static/{name}")
    names = set(bundled_names(text))

    assert "web/js/boot.js" in names  # nothing runs before an inline bundle
    assert "$separate = {  }" in text and "import * as" not in text.split("$module(", 1)[0]
    assert 'import("/static/web/js/lang/it.js")' in text
    assert 'import("./' not in text and 'from "./' not in text
    # main.js takes boot.js from the registry, as any bundled module.
    assert '$require("web/js/boot.js")' in text.split('$module("web/js/main.js"', 1)[1]


def test_a_module_keeps_its_scope_and_its_exports_are_getters(tmp_path: Path) -> None:
    main = 'import count, { bump as up } from "./a.js";\nimport * as a from "./a.js";\nup();\n'
    a = (
        "let n = 0;\nexport function bump() { n += 1; }\nexport const twice = () => 2 * n;\n"
        "export default n;\nconst hidden = 1;\nexport { hidden as shown };\n"
    )
    text = bundle.build(modules(tmp_path, {"main.js": main, "a.js": a}))
    body = text.split('$module("web/js/a.js"', 1)[1].split("\n});", 1)[0]
    getters = '"twice": () => twice, "default": () => $default, "shown": () => hidden'
    assert f'$export($exports, {{ "bump": () => bump, {getters} }});' in body
    assert "const $default = n;" in body
    assert "export" not in body.replace("$export", "")
    main = text.split('$module("web/js/main.js"', 1)[1]
    assert 'const count = $require("web/js/a.js").default;' in main
    assert 'const { bump: up } = $require("web/js/a.js");' in main
    assert 'const a = $require("web/js/a.js");' in main


@pytest.mark.parametrize(
    ("files", "reason"),
    [
        ({"main.js": 'import "./a.js";', "a.js": 'import "./main.js";'}, "import circle"),
        ({"main.js": "export let x = 1;"}, "may change"),
        ({"main.js": 'export { x } from "./a.js";', "a.js": "export const x = 1;"}, "re-export"),
        ({"main.js": 'const name = "./a.js";\nimport(name);'}, "computed"),
        ({"main.js": 'import "./a.js";', "a.js": "await 1;"}, "top-level await"),
        ({"main.js": "console.log(import.meta.url);"}, "import.meta"),
        ({"main.js": "const $require = 1;"}, "keeps for itself"),
        ({"main.js": "const = ;"}, "not valid"),
        (
            {"main.js": 'import("./lang/xx.js");', "lang/xx.js": 'import "../a.js";', "a.js": ""},
            "import nothing",
        ),
    ],
    ids=["circle", "let", "re-export", "computed", "await", "meta", "reserved", "syntax", "lang"],
)
def test_what_it_cannot_render_faithfully_is_refused(
    tmp_path: Path, files: dict[str, str], reason: str
) -> None:
    with pytest.raises(bundle.BundleError, match=reason):
        bundle.build(modules(tmp_path, files))


def test_a_top_level_await_in_the_entry_and_in_functions_is_fine(tmp_path: Path) -> None:
    files = {"main.js": 'import "./a.js";\nawait 1;', "a.js": "export async function f() {}"}
    assert "async ($exports) =>" in bundle.build(modules(tmp_path, files))


def test_it_is_written_again_only_when_a_module_changes(tmp_path: Path) -> None:
    source = modules(tmp_path / "src", {"main.js": "export const a = 1;"})
    written = bundle.write(source, tmp_path / "out")
    os.utime(written, ns=(0, 0))  # untouched below: its mtime stays
    assert bundle.write(source, tmp_path / "out").stat().st_mtime_ns == 0
    # A change, even with the old file's time (a copy that keeps times), is built again.
    (source / "main.js").write_text("export const a = 2;")
    os.utime(source / "main.js", ns=(0, 0))
    again = bundle.write(source, tmp_path / "out")
    assert "const a = 2;" in again.read_text() and again.stat().st_mtime_ns > 0
