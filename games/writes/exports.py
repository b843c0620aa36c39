"""Writing a month's export of the public log, and verifying one
(docs/operations.md#monthly-exports).

:func:`export_month` streams every game that became public in a month, in the log's order,
from the stored notation (``games.store.log.published_between``) through gzip into a file,
hashing the compressed bytes as they are written: nothing is held whole, whatever the
number of games. It runs only once the month is over by :data:`SETTLE`, after entering the
games of the contests that ended (``public_log_seal``) and once every transaction that was
running when it began has ended (the log's high-water mark), so the month's games are all
there. :func:`verify` reads a file back through the notation's reader, which replays every
game, and refuses a corrupt one with the line and the reason.

Why gzip rather than zstd: every language and every system reads gzip with what it has
(``zcat``, the standard libraries), the notation compresses to about a third with it
(docs/benchmarks.md#the-public-log), and the export runs once a month; zstd would read
faster and be a little smaller, at the cost of a dependency here and for every reader.
"""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import io
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from games import clock, routing
from games.reads import exports
from games.store import log, notation
from games.writes import public_log

#: How long after a month's end its export may be written.
SETTLE = dt.timedelta(minutes=10)
#: The gzip level: 6, zlib's default (level 9 is much slower for a few per cent).
LEVEL = 6


class ExportRefused(Exception):
    """A month that cannot be exported (not over yet, or already exported)."""


class Corrupt(Exception):
    """A file :func:`verify` refuses: the line (0: the file as a whole) and the reason."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}" if line else reason)
        self.line = line
        self.reason = reason


def month_bounds(month: str) -> tuple[dt.datetime, dt.datetime]:
    """``[start, end)`` of the month ``YYYY-MM`` in UTC; :class:`ValueError` for another
    text."""
    found = exports.MONTH.match(month)
    if found is None:
        raise ValueError(f"not a month (YYYY-MM): {month!r}")
    year, number = int(found[1]), int(found[2])
    if year < 1 or (year, number) >= (9999, 12):
        raise ValueError(f"no export for {month}")
    start = dt.datetime(year, number, 1, tzinfo=dt.UTC)
    end = dt.datetime(year + number // 12, number % 12 + 1, 1, tzinfo=dt.UTC)
    return start, end


class Hashing(io.RawIOBase):
    """A file that hashes and counts what is written to it."""

    def __init__(self, out: IO[bytes]) -> None:
        self.out, self.digest, self.size = out, hashlib.sha256(), 0

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        view = memoryview(data)
        self.out.write(view)
        self.digest.update(view)
        self.size += len(view)
        return len(view)


@dataclass(frozen=True, slots=True)
class Written:
    """The export written, where, and the seconds spent streaming it (after waiting for the
    month's transactions to end and its entries' notation to be written)."""

    export: exports.Export
    path: Path
    streamed: float


def export_month(month: str, *, replace: bool = False, wait: float = 60.0) -> Written:
    """Write ``month``'s export into ``EXPORT_DIR`` (see the module's docstring);
    :class:`ExportRefused` for a month not over by :data:`SETTLE`, or already exported
    unless ``replace``."""
    start, end = month_bounds(month)
    if clock.now() < end + SETTLE:
        raise ExportRefused(f"{month} is not over yet (exports start {SETTLE} after its end)")
    if exports.export_of(month) is not None and not replace:
        raise ExportRefused(f"{month} is exported already")
    public_log.public_log_seal()
    _settle(wait)
    public_log.public_log_write(budget=3600.0)
    directory = exports.directory()
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / f"{month}{exports.SUFFIX}"
    partial = target.with_name(target.name + ".partial")
    started = time.perf_counter()
    with partial.open("wb") as raw:
        hashing = Hashing(raw)
        gzipped = gzip.GzipFile(
            filename="", mode="wb", fileobj=hashing, compresslevel=LEVEL, mtime=0
        )
        # Read from the replica once it holds everything committed so far (else the
        # primary): a month's export is a long read that needs nothing newer.
        with gzipped as out, routing.reading_from(routing.caught_up_replica()):
            games = write_entries(log.published_between(start, end), out)
        raw.flush()
        os.fsync(raw.fileno())
    os.replace(partial, target)
    streamed = time.perf_counter() - started
    export = exports.Export(month, games, hashing.size, hashing.digest.hexdigest())
    atomic_write(directory / export.checksum_name, f"{export.sha256}  {export.name}\n")
    manifest = {"month": month, "games": games, "bytes": export.bytes, "sha256": export.sha256}
    atomic_write(exports.manifest(month), json.dumps(manifest) + "\n")
    return Written(export, target, streamed)


def write_entries(entries: Iterator[log.Published], out: IO[bytes] | gzip.GzipFile) -> int:
    """Write each entry's notation to ``out`` (the stored text; a game without one is written
    now), in order; how many games."""
    games = 0
    for entry in entries:
        text = entry.notation
        if text is None:
            text = log.write([entry.game_id])[entry.game_id][1]
        out.write(text.encode())
        games += 1
    return games


def _settle(wait: float) -> None:
    """Wait until every transaction running now has ended (at most ``wait`` seconds)."""
    end = log.snapshot_end()
    deadline = time.monotonic() + wait
    while log.horizon() < end:
        if time.monotonic() > deadline:
            raise ExportRefused("a transaction has stayed open too long: try again later")
        time.sleep(0.1)


def atomic_write(path: Path, text: str) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text)
    os.replace(partial, path)


def verify(path: Path) -> int:
    """How many games the export ``path`` holds, each replayed through the rules by the
    notation's reader; :class:`Corrupt` with the line and the reason for a file that is
    not whole: a checksum beside it (``.sha256``) that does not match, a stream gzip
    cannot read, text that is not UTF-8, or a game the reader refuses."""
    checksum = path.with_name(path.name + exports.CHECKSUM_SUFFIX)
    if checksum.is_file():
        expected = checksum.read_text().split()[0] if checksum.read_text().split() else ""
        digest = hashlib.sha256()
        with path.open("rb") as raw:
            while block := raw.read(1 << 20):
                digest.update(block)
        if digest.hexdigest() != expected:
            raise Corrupt(0, f"the file's sha256 is not the one in {checksum.name}")
    lines = _Lines(path)
    try:
        return sum(1 for _ in notation.read(lines))
    except notation.NotationError as error:
        raise Corrupt(error.line, error.reason) from None
    except (OSError, EOFError, UnicodeDecodeError, gzip.BadGzipFile) as error:
        raise Corrupt(lines.number + 1, f"the file cannot be read: {error}") from None


class _Lines:
    """The lines of a file of text, gzip-compressed or not, counted."""

    def __init__(self, path: Path) -> None:
        self.path, self.number = path, 0

    def __iter__(self) -> Iterator[str]:
        with self.path.open("rb") as raw:
            compressed = raw.read(2) == b"\x1f\x8b"
        opened = gzip.open(self.path, "rb") if compressed else self.path.open("rb")  # noqa: SIM115
        with opened as binary, io.TextIOWrapper(binary, encoding="utf-8", newline="") as text:
            for line in text:
                self.number += 1
                yield line
