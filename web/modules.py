"""The client's ES module graph, read from the static modules' own import statements.

A page names in ``<link rel="modulepreload">`` every module its first view imports, so the
browser fetches them all at once instead of one round of imports after another. Which
modules those are is read here from the sources (once per process), not listed by hand: a
new import is preloaded the day it is written.

Only static imports count (``import … from "./x.js"``, ``import "./x.js"``,
``export … from "./x.js"``): a module cannot run before they have arrived. A dynamic
``import("./x.js")`` is loaded when the code asks for it, so it is left out, except where a
page names it as an entry (a page's view, a game's way of being shown).
``tests/web/test_modules.py`` checks this reading against tree-sitter's.
"""

from __future__ import annotations

import functools
import posixpath
import re
from pathlib import Path

from django.contrib.staticfiles import finders

#: Where the modules live, as static names (``web/js/main.js``).
ROOT = "web/js"

#: A static import or re-export with a relative specifier, at the start of a line (import
#: and export declarations are top-level statements; the client writes one per line, its
#: names possibly over several lines). A clause is names, ``*``, braces, commas and ``as``:
#: a string elsewhere in an ``export`` line (``import("./x.js")``) is never taken.
_STATIC = re.compile(
    r"""^(?:import|export)\s+(?:[\w$*{},\s]+?\s+from\s*)?["'](\.{1,2}/[^"'\n]+)["']""",
    re.MULTILINE,
)


def static_imports(source: str) -> list[str]:
    """The relative specifiers ``source`` imports statically, in source order."""
    return _STATIC.findall(source)


def source_root() -> Path:
    """The folder of the client's modules, as the staticfiles finders find ``main.js``."""
    found = finders.find(f"{ROOT}/main.js")
    if not found:
        raise LookupError(f"{ROOT}/main.js is not a static file")
    return Path(str(found)).parent


@functools.cache
def graph() -> dict[str, tuple[str, ...]]:
    """Each module (a static name under :data:`ROOT`) and the modules it imports
    statically, read once."""
    root = source_root()
    found: dict[str, tuple[str, ...]] = {}
    for module in sorted(root.rglob("*.js")):
        name = module.relative_to(root).as_posix()
        targets = (
            posixpath.normpath(posixpath.join(posixpath.dirname(name), specifier))
            for specifier in static_imports(module.read_text(encoding="utf-8"))
        )
        found[f"{ROOT}/{name}"] = tuple(f"{ROOT}/{target}" for target in targets)
    return found


def closure(*entries: str, leaving: tuple[str, ...] = ()) -> list[str]:
    """``entries`` (names under :data:`ROOT`, ``"views/game.js"``) and every module they
    import statically, directly or not, as static names, each once, in the order met;
    without those in ``leaving`` (static names already preloaded)."""
    modules = graph()
    seen: dict[str, None] = {}
    pending = [f"{ROOT}/{entry}" for entry in entries]
    while pending:
        name = pending.pop(0)
        if name in seen:
            continue
        if name not in modules:
            raise LookupError(f"{name} is not a client module")
        seen[name] = None
        pending.extend(modules[name])
    return [name for name in seen if name not in leaving]
