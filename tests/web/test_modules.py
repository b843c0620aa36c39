"""``web.modules`` reads the client's static imports as tree-sitter's JavaScript grammar
does, and a page's preloads are its entries' whole static import graph."""

from __future__ import annotations

from pathlib import Path

import pytest
import tree_sitter
import tree_sitter_javascript

from web import modules

STATIC = Path(__file__).resolve().parents[2] / "web" / "static"
LANGUAGE = tree_sitter.Language(tree_sitter_javascript.language())
#: Static imports and re-exports only: a dynamic import() is loaded when asked for.
STATIC_IMPORTS = tree_sitter.Query(
    LANGUAGE,
    """
    (import_statement source: (string (string_fragment) @path))
    (export_statement source: (string (string_fragment) @path))
    """,
)


def parsed_imports(source: bytes) -> list[str]:
    tree = tree_sitter.Parser(LANGUAGE).parse(source)
    found = tree_sitter.QueryCursor(STATIC_IMPORTS).captures(tree.root_node).get("path", [])
    return [node.text.decode() for node in sorted(found, key=lambda node: node.start_byte)]


@pytest.mark.parametrize(
    "module", sorted((STATIC / "web" / "js").rglob("*.js")), ids=lambda p: p.name
)
def test_each_modules_static_imports_are_read_as_the_grammar_reads_them(module: Path) -> None:
    source = module.read_bytes()
    assert modules.static_imports(source.decode()) == parsed_imports(source)


@pytest.mark.parametrize(
    "source",
    [
        'import { a,\n  b as c } from "./x.js";\nexport { d } from "../y.js";\nimport "./z.js";',
        'export const WAYS = { play: () => import("./play.js") };',
        '// import x from "./comment.js"\nconst s = "import y from \'./string.js\'";',
        "import EN from './lang/en.js';\nimport * as api from \"./api.js\";",
    ],
)
def test_a_written_import_is_read_as_the_grammar_reads_it(source: str) -> None:
    assert modules.static_imports(source) == parsed_imports(source.encode())


def test_a_game_pages_preloads_are_everything_its_modules_import() -> None:
    core = modules.closure("main.js", "views/game.js")
    assert core[:2] == ["web/js/main.js", "web/js/views/game.js"]
    assert {"web/js/api.js", "web/js/boot.js", "web/js/i18n.js", "web/js/lang/en.js"} <= set(core)
    # play.js and watch.js are loaded on demand: only the one the visitor needs is preloaded.
    assert "web/js/play.js" not in core and "web/js/board.js" not in core
    play = modules.closure("play.js", leaving=tuple(core))
    assert "web/js/board.js" in play and "web/js/api.js" not in play
    assert "web/js/help.js" not in play  # asked for by a click, not on the first view
