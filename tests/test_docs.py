"""The documentation stays readable and true: a short README, prose that cites nothing a
reader cannot open, links and anchors that lead somewhere, and every setting and metric
documented in docs/operations.md.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[1]
README_MAX_LINES = 250

#: An issue or pull request cited by number ("issue 11", "#14"), or the solver's
#: reductions by number ("shortcut 7"): nothing a reader of the repository can open.
NUMBERED = re.compile(
    r"\b(?:issues?|pull requests?|PRs?|shortcuts?)\s+#?\d+\b|(?<![\w&#/])#\d+\b",
    re.IGNORECASE,
)
#: A commit hash: 7 to 40 hexadecimal digits holding both a digit and a letter (so neither
#: a plain number nor a word), not part of a longer word or of a UUID.
COMMIT = re.compile(r"(?<![\w-])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![\w-])")
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"", re.IGNORECASE)
INLINE_CODE = re.compile(r"(`+)(.+?)\1")
#: ``[text](target "title")`` and ``![alt](target)``, the text holding at most one level of
#: brackets; reference definitions (``[name]: target``); and HTML ``href``/``src``.
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?")
HTML_LINK = re.compile(r"\b(?:href|src)=\"([^\"]+)\"")
#: A Markdown file named in prose, with or without an anchor: ``docs/api.md#errors``.
MD_MENTION = re.compile(r"(?<![\w/.-])([\w./-]*\w\.md)(?:#([\w-]+))?\b")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//")


def markdown_files(root: Path = ROOT) -> list[Path]:
    """The repository's Markdown: the top-level files and everything under docs/."""
    return sorted([*root.glob("*.md"), *(root / "docs").rglob("*.md")])


def prose_lines(text: str) -> list[tuple[int, str]]:
    """The lines outside fenced code blocks, numbered from 1."""
    lines, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append((number, line))
    return lines


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its text lower-cased, punctuation dropped (hyphens
    and underscores kept), each space a hyphen."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text only
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every anchor a Markdown file defines: its headings' slugs (a repeated one numbered
    ``-1``, ``-2``… as GitHub does) and explicit ``<a id>``/``<a name>``."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for _, line in prose_lines(text):
        found.update(HTML_ANCHOR.findall(line))
        heading = HEADING.match(line)
        if not heading:
            continue
        base = slug(heading.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def resolve(source: Path, target: str, root: Path) -> Path:
    """Where a relative link of ``source`` leads (``/`` is the repository's root)."""
    path = unquote(target)
    return (root / path.lstrip("/")) if path.startswith("/") else (source.parent / path)


def broken_references(source: Path, root: Path = ROOT) -> list[str]:
    """Each relative link, image or named ``.md`` file of ``source`` that leads to no file,
    or to an anchor its Markdown file does not define."""
    problems = []
    text = source.read_text()
    cache: dict[Path, set[str]] = {}

    def check(number: int, target: str, *, named_in_prose: bool = False) -> None:
        path_part, _, anchor = target.partition("#")
        path = resolve(source, path_part, root) if path_part else source
        if not path.exists() and path_part and named_in_prose:
            path = root / unquote(path_part)  # prose may name a file from the root
        if not path.exists():
            problems.append(f"{source.name}:{number}: {target}: no such file")
            return
        if anchor and path.suffix == ".md":
            if path not in cache:
                cache[path] = anchors(path.read_text())
            if anchor not in cache[path]:
                problems.append(f"{source.name}:{number}: {target}: no such anchor")

    for number, line in prose_lines(text):
        plain = INLINE_CODE.sub("code", line)
        targets = [*LINK.findall(plain), *HTML_LINK.findall(plain), *REFERENCE.findall(plain)]
        for target in targets:
            if not SCHEME.match(target):
                check(number, target)
        for name, anchor in MD_MENTION.findall(REFERENCE.sub(" ", LINK.sub(" ", line))):
            check(number, f"{name}#{anchor}" if anchor else name, named_in_prose=True)
    return problems


def cited_numbers_and_hashes(source: Path) -> list[str]:
    """Each issue number, numbered shortcut or commit hash in the prose of ``source``."""
    problems = []
    for number, line in prose_lines(source.read_text()):
        for found in [*NUMBERED.findall(line), *COMMIT.findall(line)]:
            problems.append(f"{source.name}:{number}: {found!r}")
    return problems


# --- the checker itself, on a small tree of its own ------------------------------------------


def test_the_link_check_catches_a_missing_file_and_a_missing_anchor(tmp_path: Path) -> None:
    (tmp_path / "manual").mkdir()
    (tmp_path / "manual" / "guide.md").write_text(
        "# Guide\n\n## The `POST /games` call\n\n## Setup\n\n## Setup\n\n"
        '<a id="by-hand"></a>\n\n```sh\n# not a heading\n```\n'
    )
    (tmp_path / "README.md").write_text(
        "# Readme\n\n"
        "[ok](manual/guide.md#the-post-games-call) [ok](manual/guide.md#setup-1)"
        " [ok](manual/guide.md#by-hand) [ok](#readme) [ok](/manual/guide.md) [web](https://x.org/a#b)\n"
        "![missing image](manual/img/none.png)\n"
        "[bad anchor](manual/guide.md#set-up) [bad code anchor](manual/guide.md#not-a-heading)\n"
        "[bad local](#nowhere) `[not a link](nowhere.md)`\n"
        "Named in prose: manual/guide.md#setup and `manual/guide.md#teardown`, and API.md.\n"
        "[ref]: manual/gone.md\n"
    )

    assert broken_references(tmp_path / "README.md", tmp_path) == [
        "README.md:4: manual/img/none.png: no such file",
        "README.md:5: manual/guide.md#set-up: no such anchor",
        "README.md:5: manual/guide.md#not-a-heading: no such anchor",
        "README.md:6: #nowhere: no such anchor",
        "README.md:7: manual/guide.md#teardown: no such anchor",
        "README.md:7: API.md: no such file",
        "README.md:8: manual/gone.md: no such file",
    ]


def test_the_prose_check_catches_issue_numbers_shortcuts_and_commit_hashes(
    tmp_path: Path,
) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "Since issue 11 and #14, shortcut 7 (`e0cf634`) and 165b115 decide it.\n"
        "Not these: seed 5268327483657495311, the game 30985f50-657b-4c93, a decade, &#123;,\n"
        "the [anchor](#rules), section 4 and item 7.\n"
        "```\ncommit e0cf634, issue 11: code is not prose\n```\n"
    )

    assert cited_numbers_and_hashes(page) == [
        "page.md:1: 'issue 11'",
        "page.md:1: '#14'",
        "page.md:1: 'shortcut 7'",
        "page.md:1: 'e0cf634'",
        "page.md:1: '165b115'",
    ]


# --- the repository's own documentation -----------------------------------------------------


def test_the_readme_is_short() -> None:
    lines = len((ROOT / "README.md").read_text().splitlines())
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines"


@pytest.mark.parametrize("source", markdown_files(), ids=lambda path: path.name)
def test_prose_cites_no_issue_numbers_and_no_commit_hashes(source: Path) -> None:
    assert cited_numbers_and_hashes(source) == []


#: Issues and the solver's reductions cited by number in code (a ``#12`` there is a colour
#: or an index far more often than an issue, so only the worded form is looked for).
NUMBERED_IN_CODE = re.compile(r"\b(?:issues?|pull requests?|shortcuts?)\s+#?\d+\b", re.IGNORECASE)
CODE_SUFFIXES = {".py", ".c", ".h", ".pyi", ".js", ".css", ".html", ".toml", ".yml", ".sh"}


def code_files(root: Path = ROOT) -> list[Path]:
    """The repository's own code and configuration (not the virtualenv, not build output)."""
    skipped = {".venv", ".git", "build", "node_modules", "__pycache__"}
    return sorted(
        path
        for path in root.rglob("*")
        if path.suffix in CODE_SUFFIXES
        and path.is_file()
        and not skipped.intersection(path.relative_to(root).parts)
    )


def test_code_cites_no_issue_numbers_and_no_numbered_reductions() -> None:
    """Comments and docstrings name things a reader can open: "stranded cards", not
    "shortcut 6"; what a change was for, not the issue that asked for it."""
    this = Path(__file__).resolve()
    found = [
        f"{path.relative_to(ROOT)}:{number}: {match!r}"
        for path in code_files()
        if path != this
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
        for match in NUMBERED_IN_CODE.findall(line)
    ]
    assert found == []


@pytest.mark.parametrize("source", markdown_files(), ids=lambda path: path.name)
def test_every_relative_link_and_anchor_exists(source: Path) -> None:
    assert broken_references(source) == []


def settings_read_from_the_environment() -> set[str]:
    """Every variable the server reads: the settings' readers and ``os.environ.get``."""
    reader = re.compile(r"\b(?:env_\w+|redis_urls?|os\.environ\.get)\(\s*\"([A-Z][A-Z0-9_]+)\"")
    names: set[str] = set()
    for package in ("scorpion_server", "games", "api"):
        for path in (ROOT / package).rglob("*.py"):
            names.update(reader.findall(path.read_text()))
    return names


def test_every_setting_is_documented_in_operations() -> None:
    names = settings_read_from_the_environment()
    assert {"DATABASE_URL", "REDIS_URL", "PORT", "PROMETHEUS_MULTIPROC_DIR"} <= names
    operations = (ROOT / "docs" / "operations.md").read_text()
    assert {name for name in names if f"`{name}`" not in operations} == set()


def test_every_metric_is_documented_in_operations() -> None:
    names = set(re.findall(r"\"(scorpion_\w+)\"", (ROOT / "games" / "metrics.py").read_text()))
    assert "scorpion_commands" in names
    operations = (ROOT / "docs" / "operations.md").read_text()
    assert {name for name in names if f"`{name}" not in operations} == set()
