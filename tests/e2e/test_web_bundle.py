"""The one script ``web.bundle`` builds runs as its modules would, in Debian's chromium: each
module once, its imports first and in order, a dynamic import only when asked, a module the
shell runs itself shared with the bundle, a failing module's error on every import of it.
(The real client runs bundled in every browser test: their servers run with DEBUG off.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from web import bundle

pytestmark = pytest.mark.e2e

ORIGIN = "http://bundle.test"

MODULES = {
    "boot.js": "export let runs = (globalThis.bootRuns = (globalThis.bootRuns || 0) + 1);\n",
    "main.js": """
import { log } from "./log.js";
import * as b from "./b.js";
import first, { second as two } from "./a.js";
import { runs } from "./boot.js";
log("main");
const late = await import("./late.js");
const broken = await import("./broken.js").catch((e) => e.message);
const again = await import("./broken.js").catch((e) => e.message);
const italian = (await import("./lang/it.js")).default;
globalThis.result = {
  order: globalThis.order, first, two: two(), b: b.value(), late: late.default,
  broken, again, italian, runs, bootRuns: globalThis.bootRuns,
  keys: Object.keys(b).sort(),
};
""",
    "log.js": "export function log(name) { (globalThis.order ||= []).push(name); }\n",
    "a.js": 'import { log } from "./log.js";\nlog("a");\nexport default "one";\n'
    "export function second() { return 2; }\n",
    "b.js": 'import { log } from "./log.js";\nimport "./a.js";\nlog("b");\n'
    "const hidden = 3;\nexport const value = () => hidden;\nexport { hidden as shown };\n",
    "late.js": 'import { log } from "./log.js";\nlog("late");\nexport default "late";\n',
    "broken.js": 'throw new Error("broken on purpose");\n',
    "lang/it.js": 'export default { hello: "ciao" };\n',
}


def served(tmp_path: Path) -> dict[str, str]:
    for name, text in MODULES.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return {
        "/js/bundle.js": bundle.build(tmp_path),
        "/js/boot.js": MODULES["boot.js"],
        "/js/lang/it.js": MODULES["lang/it.js"],
        "/": '<!doctype html><script type="module" async src="/js/boot.js"></script>'
        '<script type="module" src="/js/bundle.js"></script>',
    }


def test_the_bundle_runs_as_its_modules_would(browser: Any, tmp_path: Path) -> None:
    files = served(tmp_path)
    asked: list[str] = []
    context = browser.new_context()

    def answer(route: Any) -> None:
        path = route.request.url.removeprefix(ORIGIN)
        asked.append(path)
        kind = "text/html" if path == "/" else "text/javascript"
        if path in files:
            route.fulfill(status=200, content_type=kind, body=files[path])
        else:
            route.fulfill(status=404, body="")

    context.route(f"{ORIGIN}/**", answer)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{ORIGIN}/")
    page.wait_for_function("globalThis.result !== undefined")
    result = page.evaluate("globalThis.result")
    context.close()

    assert errors == []
    assert result == {
        # Imports first, in order, each once; a dynamic import when it is asked for.
        "order": ["a", "b", "main", "late"],
        "first": "one",
        "two": 2,
        "b": 3,
        "late": "late",
        # A module that throws fails every import of it, as a module's evaluation does.
        "broken": "broken on purpose",
        "again": "broken on purpose",
        "italian": {"hello": "ciao"},
        # The module the shell runs is the bundle's too: it ran once.
        "runs": 1,
        "bootRuns": 1,
        "keys": ["shown", "value"],
    }, json.dumps(result)
    # Only the bundle, the shell's own module and the language asked for were fetched.
    assert sorted(set(asked)) == ["/", "/js/boot.js", "/js/bundle.js", "/js/lang/it.js"]
