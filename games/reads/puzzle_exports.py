"""The monthly exports of the puzzles as the API lists and serves them
(docs/api.md#puzzle-exports): finished files in ``PUZZLE_EXPORT_DIR``, written by
``manage.py export_puzzles`` (``games.writes.puzzle_exports``).

A month's export is three files, as the public log's are (``games.reads.exports``):
``YYYY-MM.puzzles.csv.gz`` (the puzzles found that month, CSV, gzip-compressed),
``YYYY-MM.puzzles.csv.gz.sha256`` and ``YYYY-MM.puzzles.json`` (what it holds), written
last: a month is listed only once its files are whole.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from games.reads.exports import CHECKSUM_SUFFIX, MONTH

SUFFIX = ".puzzles.csv.gz"
MANIFEST_SUFFIX = ".puzzles.json"

__all__ = ["CHECKSUM_SUFFIX", "SUFFIX", "Export", "directory", "export_of", "exports"]


@dataclass(frozen=True, slots=True)
class Export:
    """A finished month's export: its month, puzzles, size in bytes and sha256 (hex)."""

    month: str
    puzzles: int
    bytes: int
    sha256: str

    @property
    def name(self) -> str:
        return f"{self.month}{SUFFIX}"

    @property
    def checksum_name(self) -> str:
        return f"{self.name}{CHECKSUM_SUFFIX}"


def directory() -> Path:
    return Path(settings.PUZZLE_EXPORT_DIR)


def manifest(month: str) -> Path:
    return directory() / f"{month}{MANIFEST_SUFFIX}"


def exports() -> list[Export]:
    """Every finished month's export, oldest first."""
    found = []
    if directory().is_dir():
        for path in sorted(directory().glob(f"*{MANIFEST_SUFFIX}")):
            export = _read(path)
            if export is not None:
                found.append(export)
    return found


def export_of(month: str) -> Export | None:
    """The finished export of ``month`` (``YYYY-MM``), if there is one."""
    if not MONTH.match(month):
        return None
    path = manifest(month)
    return _read(path) if path.is_file() else None


def _read(path: Path) -> Export | None:
    month = path.name.removesuffix(MANIFEST_SUFFIX)
    if not MONTH.match(month):
        return None
    try:
        data = json.loads(path.read_text())
        export = Export(month, int(data["puzzles"]), int(data["bytes"]), str(data["sha256"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return export if (directory() / export.name).is_file() else None
