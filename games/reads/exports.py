"""The monthly exports of the public log as the API lists and serves them
(docs/api.md#monthly-exports): finished files in ``EXPORT_DIR``, written by
``manage.py export_games`` (``games.writes.exports``).

A month's export is three files: ``YYYY-MM.scorpion.gz`` (every game that became public
that month, in the notation, gzip-compressed), ``YYYY-MM.scorpion.gz.sha256`` (its
``sha256sum`` line) and ``YYYY-MM.json`` (what it holds), written last: a month is listed
only once its files are whole.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

#: A month as the exports name it.
MONTH = re.compile(r"^(\d{4})-(0[1-9]|1[0-2])$")
SUFFIX = ".scorpion.gz"
CHECKSUM_SUFFIX = ".sha256"


@dataclass(frozen=True, slots=True)
class Export:
    """A finished month's export: its month, games, size in bytes and sha256 (hex)."""

    month: str
    games: int
    bytes: int
    sha256: str

    @property
    def name(self) -> str:
        return f"{self.month}{SUFFIX}"

    @property
    def checksum_name(self) -> str:
        return f"{self.name}{CHECKSUM_SUFFIX}"


def directory() -> Path:
    return Path(settings.EXPORT_DIR)


def manifest(month: str) -> Path:
    return directory() / f"{month}.json"


def exports() -> list[Export]:
    """Every finished month's export, oldest first."""
    found = []
    if directory().is_dir():
        for path in sorted(directory().glob("*.json")):
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
    if not MONTH.match(path.stem):
        return None
    try:
        data = json.loads(path.read_text())
        export = Export(path.stem, int(data["games"]), int(data["bytes"]), str(data["sha256"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return export if (directory() / export.name).is_file() else None
