"""The browser client's ES modules import one another without a circle.

Every ``import … from``, ``export … from``, bare ``import "…"`` and ``import("…")`` with a
literal path under ``web/static`` is read with tree-sitter's JavaScript grammar (so a path
inside a string or a comment is never taken for an import) and the graph of relative imports
is searched for cycles. Dynamic imports count too: a page loaded on demand that imports its
loader back is still a circle. Navigation goes through ``router.js``, which imports no page.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from pathlib import Path

import pytest
import tree_sitter
import tree_sitter_javascript

STATIC = Path(__file__).resolve().parents[2] / "web" / "static"
LANGUAGE = tree_sitter.Language(tree_sitter_javascript.language())
#: The module specifier of every static import, re-export and literal dynamic import.
IMPORTS = tree_sitter.Query(
    LANGUAGE,
    """
    (import_statement source: (string (string_fragment) @path))
    (export_statement source: (string (string_fragment) @path))
    (call_expression function: (import)
                     arguments: (arguments . (string (string_fragment) @path)))
    """,
)


def imports_of(module: Path) -> list[str]:
    """The specifiers ``module`` imports, in source order."""
    tree = tree_sitter.Parser(LANGUAGE).parse(module.read_bytes())
    assert not tree.root_node.has_error, f"{module} does not parse as JavaScript"
    found = tree_sitter.QueryCursor(IMPORTS).captures(tree.root_node).get("path", [])
    return [node.text.decode() for node in sorted(found, key=lambda node: node.start_byte)]


def module_graph(root: Path) -> dict[Path, list[Path]]:
    """Each module under ``root`` and the modules it imports by a relative path."""
    graph: dict[Path, list[Path]] = {}
    for module in sorted(root.rglob("*.js")):
        targets = []
        for specifier in imports_of(module):
            if not specifier.startswith("."):
                continue  # none today; a bare name would need an import map
            target = (module.parent / specifier).resolve()
            assert target.is_file(), f"{module} imports {specifier}, which does not exist"
            targets.append(target)
        graph[module.resolve()] = targets
    return graph


def cycles(graph: dict[Path, list[Path]]) -> list[list[Path]]:
    """One circle through each strongly connected group of modules (Tarjan's algorithm),
    as the modules met going round it."""
    index: dict[Path, int] = {}
    low: dict[Path, int] = {}
    stack: list[Path] = []
    on_stack: set[Path] = set()
    groups: list[set[Path]] = []

    def visit(node: Path) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, []):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1 or node in graph.get(node, []):
                groups.append(group)

    for node in graph:
        if node not in index:
            visit(node)
    return [circle(graph, group) for group in groups]


def circle(graph: dict[Path, list[Path]], group: set[Path]) -> list[Path]:
    """The shortest path from a module of ``group`` back to itself (breadth first; every
    member of a strongly connected group leads back to every other)."""
    start = min(group)
    paths = deque([[start]])
    seen = {start}
    while paths:
        path = paths.popleft()
        for target in graph[path[-1]]:
            if target == start:
                return [*path, start]
            if target in group and target not in seen:
                seen.add(target)
                paths.append([*path, target])
    raise AssertionError(f"{start} is in no circle")


def shown(circles: Iterable[list[Path]], root: Path) -> list[str]:
    return [" -> ".join(str(m.relative_to(root.resolve())) for m in c) for c in circles]


def test_the_client_has_modules_and_reads_their_imports() -> None:
    graph = module_graph(STATIC)
    main = (STATIC / "web" / "js" / "main.js").resolve()
    assert main in graph
    assert (STATIC / "web" / "js" / "router.js").resolve() in graph[main]
    # main.js loads each page on demand: the dynamic imports are in the graph.
    assert (STATIC / "web" / "js" / "views" / "lobby.js").resolve() in graph[main]


def test_no_client_module_imports_itself_back() -> None:
    assert shown(cycles(module_graph(STATIC)), STATIC) == []


def test_the_router_imports_no_page() -> None:
    router = (STATIC / "web" / "js" / "router.js").resolve()
    assert module_graph(STATIC)[router] == []


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (
            {"a.js": 'import { b } from "./b.js";', "b.js": 'import "./a.js";'},
            ["a.js -> b.js -> a.js"],
        ),
        (
            {
                "main.js": 'const pages = [() => import("./views/one.js")];',
                "views/one.js": '// import "./nothing.js"\nexport { go } from "../main.js";',
            },
            ["main.js -> views/one.js -> main.js"],
        ),
        ({"self.js": 'import "./self.js";'}, ["self.js -> self.js"]),
        (
            {"a.js": "const s = \"import x from './b.js'\";", "b.js": 'import "./a.js";'},
            [],  # an import written inside a string is no import
        ),
    ],
)
def test_a_planted_circle_is_found(
    tmp_path: Path, files: dict[str, str], expected: list[str]
) -> None:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert shown(cycles(module_graph(tmp_path)), tmp_path) == expected
