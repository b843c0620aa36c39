"""The client's modules in one script, so that a first view costs one request, not twenty.

The browser client is written as plain ES modules (``web/static/web/js``), and with
``DEBUG`` on the server serves them as they are, so an edit shows on reload. Otherwise the
shell loads ``web/js/bundle.js``, which this module builds from those sources: every module
that ``main.js`` reaches, by a static import or by a literal ``import("./x.js")``, wrapped
in a function that runs once, the first time the module is imported, as a module would.
Each module keeps its own scope, so no name is renamed; an import becomes a lookup in the
registry (``$require``), and an export a getter on the module's exports object, so a module
imported whole (``import * as api``) sees its exports' current values.

Two kinds of module stay files of their own, imported by the bundle as modules are:

* ``boot.js``, which the shell runs first, on its own, so that a page's first API requests
  leave before the rest of the client has arrived; the bundle imports it, so both share
  its one instance (the answers it holds);
* the language packs that no module imports statically (all but English): a visitor
  fetches only the one they read.

The reading is tree-sitter's JavaScript grammar, and the bundle refuses what it does not
render faithfully: an import circle (named imports are bound once, when the module runs,
which is exact only when every module it imports has finished), ``export let`` or
``export var`` (a binding that may change), re-exports, ``import.meta``, a computed
``import()``, and top-level ``await`` outside the entry. The whole client runs bundled in
the browser tests (their servers run with ``DEBUG`` off).

Esbuild would do this and minify too, but it is a Go binary that neither pip nor a fresh
checkout installs, and the server must start on Python alone; what is here is one pass
over a syntax tree. The bundle is written to ``DATA_DIR/bundle`` when a finder first lists
it, and again whenever a module (or this builder) has changed: ``collectstatic`` then
hashes, compresses and serves it as any static file.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import tree_sitter
import tree_sitter_javascript
from django.conf import settings
from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage

from web.modules import ROOT, source_root

ENTRY = "main.js"
#: The bundle's own static name.
NAME = f"{ROOT}/bundle.js"
#: Modules run by the shell itself before the bundle arrives.
SHELL_RUNS = ("boot.js",)

LANGUAGE = tree_sitter.Language(tree_sitter_javascript.language())
#: What the bundle itself names (a module must not use these names).
RESERVED = ("$module", "$require", "$load", "$export", "$separate", "$exports")

RUNTIME = """\
// The client's modules in one file, built by web/bundle.py from web/static/web/js: each
// module is a function that runs once, when it is first imported, as a module would.
{imports}
const $separate = {{ {separate} }};
const $defined = new Map();
const $done = new Map();
function $module(name, body) {{
  $defined.set(name, body);
}}
function $require(name) {{
  let entry = $done.get(name);
  if (!entry) {{
    entry = {{ exports: Object.create(null), error: null }};
    $done.set(name, entry);
    try {{
      $defined.get(name)(entry.exports);
    }} catch (error) {{
      entry.error = error;
    }}
  }}
  if (entry.error) throw entry.error;
  return entry.exports;
}}
function $load(name) {{
  return new Promise((resolve) => resolve($require(name)));
}}
function $export(exports, getters) {{
  for (const [name, get] of Object.entries(getters)) {{
    Object.defineProperty(exports, name, {{ get, enumerable: true }});
  }}
}}
"""


class BundleError(ValueError):
    """A module the bundle cannot render faithfully; the message names it and why."""


def _text(node: tree_sitter.Node) -> str:
    return (node.text or b"").decode()


def _resolve(module: str, specifier: str) -> str:
    if not specifier.startswith(("./", "../")):
        raise BundleError(f"{module}: {specifier!r} is not a relative module")
    return posixpath.normpath(posixpath.join(posixpath.dirname(module), specifier))


def _walk(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    yield node
    for child in node.children:
        yield from _walk(child)


_FUNCTIONS = {
    "function_declaration",
    "generator_function_declaration",
    "function_expression",
    "function",
    "generator_function",
    "arrow_function",
    "method_definition",
    "class_static_block",
}


def _top_level_await(root: tree_sitter.Node) -> bool:
    def inside_function(node: tree_sitter.Node) -> bool:
        parent = node.parent
        while parent is not None:
            if parent.type in _FUNCTIONS:
                return True
            parent = parent.parent
        return False

    return any(n.type == "await_expression" and not inside_function(n) for n in _walk(root))


class _Module:
    """One module read: the modules it imports statically and dynamically, and its source
    rewritten as a bundle's function body."""

    def __init__(self, name: str, source: bytes) -> None:
        self.name = name
        self.source = source
        self.tree = tree_sitter.Parser(LANGUAGE).parse(source)
        root = self.tree.root_node
        if root.has_error:
            raise BundleError(f"{name}: not valid JavaScript")
        for word in RESERVED:
            if word.encode() in source:
                raise BundleError(f"{name} uses {word}, a name the bundle keeps for itself")
        self.static: list[str] = []
        #: The ``import()`` calls, each with the module it loads.
        self.calls: list[tuple[tree_sitter.Node, str]] = []
        for node in root.children:
            if node.type == "import_statement":
                self.static.append(self._source_of(node))
            elif node.type == "export_statement" and node.child_by_field_name("source"):
                raise BundleError(f"{name}: re-exports are not bundled")
        for node in _walk(root):
            if node.type == "call_expression" and _text(node.children[0]) == "import":
                self.calls.append((node, self._dynamic_target(node)))
            elif node.type == "meta_property":
                raise BundleError(f"{name}: import.meta is not bundled")
        self.awaits = _top_level_await(root)

    def _source_of(self, node: tree_sitter.Node) -> str:
        source = node.child_by_field_name("source")
        assert source is not None
        return _resolve(self.name, _text(source)[1:-1])

    def _dynamic_target(self, call: tree_sitter.Node) -> str:
        arguments = call.child_by_field_name("arguments")
        args = [c for c in (arguments.named_children if arguments else []) if c.type != "comment"]
        if len(args) != 1 or args[0].type != "string":
            raise BundleError(f"{self.name}: import() of a computed name is not bundled")
        return _resolve(self.name, _text(args[0])[1:-1])

    def render(self, bundled: set[str], separate: dict[str, str]) -> str:
        """The module as a bundle's function body: imports bound at the top, ``export``
        keywords dropped, dynamic imports of bundled modules through the registry."""
        edits: list[tuple[int, int, str]] = []
        bindings: list[str] = []
        exports: dict[str, str] = {}
        for node in self.tree.root_node.children:
            if node.type == "import_statement":
                bindings.extend(self._bindings(node, separate))
                edits.append((node.start_byte, node.end_byte, ""))
            elif node.type == "export_statement":
                edits.append(self._export(node, exports))
        for node, target in self.calls:
            if target in bundled:
                call = f"$load({json.dumps(target)})"
            else:
                call = f"import({json.dumps(separate[target])})"
            edits.append((node.start_byte, node.end_byte, call))
        edits.extend(self._comments(edits))
        body = self.source
        for start, end, text in sorted(edits, reverse=True):
            body = body[:start] + text.encode() + body[end:]
        getters = ", ".join(f"{json.dumps(k)}: () => {v}" for k, v in exports.items())
        lines = [f"$export($exports, {{ {getters} }});"] if exports else []
        return "\n".join([*lines, *bindings, body.decode().strip()])

    def _comments(self, edits: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
        """Every comment outside ``edits`` removed (the browser need not read them): a
        comment alone on its lines with its lines, else in place of a space."""
        source, found = self.source, []
        for node in _walk(self.tree.root_node):
            if node.type != "comment":
                continue
            start, end = node.start_byte, node.end_byte
            if any(s <= start < e for s, e, _ in edits):
                continue
            line = source.rfind(b"\n", 0, start) + 1
            after = source.find(b"\n", end)
            after = len(source) if after < 0 else after + 1
            if not source[line:start].strip() and not source[end:after].strip():
                found.append((line, after, ""))
            else:
                found.append((start, end, " "))
        return found

    def _bindings(self, node: tree_sitter.Node, separate: dict[str, str]) -> list[str]:
        target = self._source_of(node)
        where = (
            f"$separate[{json.dumps(target)}]"
            if target in separate
            else f"$require({json.dumps(target)})"
        )
        clause = next((c for c in node.named_children if c.type == "import_clause"), None)
        if clause is None:
            return [f"{where};"]
        found = []
        for part in clause.named_children:
            if part.type == "identifier":
                found.append(f"const {_text(part)} = {where}.default;")
            elif part.type == "namespace_import":
                found.append(f"const {_text(part.named_children[-1])} = {where};")
            elif part.type == "named_imports":
                names = []
                for spec in part.named_children:
                    if spec.type != "import_specifier":
                        continue
                    imported = _text(spec.child_by_field_name("name"))  # type: ignore[arg-type]
                    alias = spec.child_by_field_name("alias")
                    names.append(f"{imported}: {_text(alias)}" if alias else imported)
                found.append(f"const {{ {', '.join(names)} }} = {where};")
        return found

    def _export(self, node: tree_sitter.Node, exports: dict[str, str]) -> tuple[int, int, str]:
        declaration = node.child_by_field_name("declaration")
        value = node.child_by_field_name("value")
        if declaration is not None:
            kind = declaration.type
            if kind in ("variable_declaration",) or (
                kind == "lexical_declaration" and _text(declaration.children[0]) != "const"
            ):
                raise BundleError(f"{self.name}: export of a binding that may change")
            if kind == "lexical_declaration":
                for declarator in declaration.named_children:
                    if declarator.type != "variable_declarator":
                        continue
                    name = declarator.child_by_field_name("name")
                    if name is None or name.type != "identifier":
                        raise BundleError(f"{self.name}: exported destructuring")
                    exports[_text(name)] = _text(name)
            else:
                name = declaration.child_by_field_name("name")
                if name is None:
                    raise BundleError(f"{self.name}: an unnamed exported declaration")
                default = any(child.type == "default" for child in node.children)
                exports["default" if default else _text(name)] = _text(name)
            return node.start_byte, declaration.start_byte, ""
        if value is not None:  # export default <expression>
            exports["default"] = "$default"
            return node.start_byte, value.start_byte, "const $default = "
        clause = next((c for c in node.named_children if c.type == "export_clause"), None)
        if clause is None:
            raise BundleError(f"{self.name}: an export the bundle does not know")
        for spec in clause.named_children:
            local = _text(spec.child_by_field_name("name"))  # type: ignore[arg-type]
            alias = spec.child_by_field_name("alias")
            exports[_text(alias) if alias else local] = local
        return node.start_byte, node.end_byte, ""


def build(root: Path, located: Callable[[str], str] | None = None) -> str:
    """The bundle of the modules under ``root`` (the folder of ``main.js``).

    With ``located``, the bundle is for a page to carry inline (``web.views``): nothing runs
    before it, so ``boot.js`` is bundled too, and the modules that stay files of their own
    (the language packs) are imported by the URL ``located`` gives their name, since a
    relative specifier in an inline script would be read against the page's address."""

    def read(name: str) -> _Module:
        return _Module(f"{ROOT}/{name}", (root / name).read_bytes())

    modules: dict[str, _Module] = {}
    pending = [f"{ROOT}/{ENTRY}"]
    while pending:
        name = pending.pop(0)
        if name in modules:
            continue
        module = read(name.removeprefix(f"{ROOT}/"))
        modules[name] = module
        pending.extend(module.static + [target for _, target in module.calls])
    statically = {target for module in modules.values() for target in module.static}
    shell = {f"{ROOT}/{name}" for name in SHELL_RUNS} if located is None else set()
    separate_names = [
        name
        for name in modules
        if name in shell or (name.startswith(f"{ROOT}/lang/") and name not in statically)
    ]
    for name in separate_names:
        if modules[name].static and name not in shell:
            raise BundleError(f"{name} stays a file of its own and must import nothing")
    bundled = [name for name in modules if name not in separate_names]
    _refuse_circles(bundled, modules)
    entry = f"{ROOT}/{ENTRY}"
    for name in bundled:
        if modules[name].awaits and name != entry:
            raise BundleError(f"{name}: top-level await outside the entry")

    def relative(name: str) -> str:
        return "./" + posixpath.relpath(name, ROOT) if located is None else located(name)

    static_separate = [name for name in separate_names if name in statically]
    aliases = {name: f"$s{n}" for n, name in enumerate(static_separate)}
    head = RUNTIME.format(
        imports="\n".join(
            f"import * as {alias} from {json.dumps(relative(name))};"
            for name, alias in aliases.items()
        ),
        separate=", ".join(f"{json.dumps(name)}: {alias}" for name, alias in aliases.items()),
    )
    separate = {name: relative(name) for name in separate_names}
    parts = [head]
    for name in bundled:
        sync = "async " if name == entry else ""
        body = modules[name].render(set(bundled), separate)
        parts.append(f"\n$module({json.dumps(name)}, {sync}($exports) => {{\n{body}\n}});\n")
    parts.append(f"\nawait $defined.get({json.dumps(entry)})(Object.create(null));\n")
    return "".join(parts)


def _refuse_circles(names: list[str], modules: dict[str, _Module]) -> None:
    state: dict[str, int] = {}

    def visit(name: str, path: list[str]) -> None:
        if state.get(name) == 2 or name not in names:
            return
        if state.get(name) == 1:
            raise BundleError("an import circle: " + " -> ".join([*path, name]))
        state[name] = 1
        for target in modules[name].static:
            visit(target, [*path, name])
        state[name] = 2

    for name in names:
        visit(name, [])


def _digest(root: Path) -> str:
    """What the bundle is built from: every module's name and bytes, and this builder's
    own source (an upgrade that changes only how modules are wrapped builds it again)."""
    digest = hashlib.sha256(Path(__file__).read_bytes())
    for path in sorted(root.rglob("*.js")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def write(root: Path, folder: Path) -> Path:
    """The bundle of ``root``'s modules at ``folder/web/js/bundle.js``, written again only
    when what it is built from has changed (its first line names the digest), atomically:
    several processes may start at once on one data folder."""
    target = folder / NAME
    stamp = f"// built from {_digest(root)}\n"
    if target.exists():
        with target.open(encoding="utf-8") as existing:
            if existing.readline() == stamp:
                return target
    text = stamp + build(root)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".bundle-")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(temporary, target)
    return target


class BundleFinder(BaseFinder):
    """The staticfiles finder of ``web/js/bundle.js``, built from the client's sources as
    the app finder finds them."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.storage = FileSystemStorage(location=Path(settings.DATA_DIR) / "bundle")

    def _ensure(self) -> None:
        write(source_root(), Path(self.storage.location))

    def check(self, **kwargs: Any) -> list[Any]:
        return []

    def find(self, path: str, find_all: bool = False, **kwargs: Any) -> Any:
        if path != NAME:
            return [] if find_all else None
        self._ensure()
        found = self.storage.path(NAME)
        return [found] if find_all else found

    def list(self, ignore_patterns: Any) -> Iterator[tuple[str, FileSystemStorage]]:
        self._ensure()
        yield NAME, self.storage
