"""Writing a month's export of the puzzles (docs/operations.md#monthly-exports), as lichess
publishes its puzzle database: every puzzle found that month, with its answer, its themes
and its ratings as they stand when the export is written, one CSV row each, gzip.

The columns (docs/api.md#puzzle-exports): ``PuzzleId``, ``Rules``, ``Position`` (the
columns bottom to top, separated by ``/``, a face-down card marked ``*``: every card, as
docs/rules.md writes a deal), ``Reserve`` (its cards in dealing order), ``Cells``
(``-`` for an empty one), ``Removed`` (the suits of the runs gone), ``Moves`` (the solver's
line, in the game notation's tokens: docs/notation.md#events), ``Length``, ``Rating``,
``RatingDeviation``, ``Plays``, ``Solved``, ``Themes``, ``Game`` and ``Version`` (the public
game it was found in, and the version whose position it is) or ``Challenge`` and ``Step``
(the daily challenge whose certified line it was found in), and ``Created``.

A month is exported once it is over; its puzzles were live then, and may still be dealt to
players who have not seen them: an answer looked up here earns a rating its player did not,
as one looked up in lichess's database does (docs/puzzles.md#what-stays-secret).
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path

from django.db.models import Count, Q

from games import clock, engine
from games.engine import puzzles as found
from games.puzzles import positions
from games.puzzles.models import Puzzle, PuzzleRating
from games.ratings import parameters
from games.reads import presenters, puzzle_exports
from games.writes.exports import SETTLE, ExportRefused, Hashing, atomic_write, month_bounds

COLUMNS = (
    "PuzzleId",
    "Rules",
    "Position",
    "Reserve",
    "Cells",
    "Removed",
    "Moves",
    "Length",
    "Rating",
    "RatingDeviation",
    "Plays",
    "Solved",
    "Themes",
    "Game",
    "Version",
    "Challenge",
    "Step",
    "Created",
)


@dataclass(frozen=True, slots=True)
class Written:
    export: puzzle_exports.Export
    path: Path


def export_month(month: str, *, replace: bool = False) -> Written:
    """Write ``month``'s export into ``PUZZLE_EXPORT_DIR``; :class:`ExportRefused` for a
    month not over by ``SETTLE``, or already exported unless ``replace``."""
    start, end = month_bounds(month)
    if clock.now() < end + SETTLE:
        raise ExportRefused(f"{month} is not over yet (exports start {SETTLE} after its end)")
    if puzzle_exports.export_of(month) is not None and not replace:
        raise ExportRefused(f"{month} is exported already")
    directory = puzzle_exports.directory()
    directory.mkdir(parents=True, exist_ok=True)
    export_name = f"{month}{puzzle_exports.SUFFIX}"
    target = directory / export_name
    partial = target.with_name(target.name + ".partial")
    with partial.open("wb") as raw:
        hashing = Hashing(raw)
        with gzip.GzipFile(filename="", mode="wb", fileobj=hashing, mtime=0) as out:
            count = write_rows(start, end, out)
        raw.flush()
        os.fsync(raw.fileno())
    os.replace(partial, target)
    export = puzzle_exports.Export(month, count, hashing.size, hashing.digest.hexdigest())
    atomic_write(directory / export.checksum_name, f"{export.sha256}  {export.name}\n")
    manifest = {
        "month": month,
        "puzzles": count,
        "bytes": export.bytes,
        "sha256": export.sha256,
    }
    atomic_write(puzzle_exports.manifest(month), json.dumps(manifest) + "\n")
    return Written(export, target)


def write_rows(start: object, end: object, out: gzip.GzipFile) -> int:
    """Write the header and a row for each puzzle made in ``[start, end)``, oldest first;
    how many puzzles."""
    text = io.TextIOWrapper(out, encoding="utf-8", newline="")
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(COLUMNS)
    ratings = {
        row.puzzle_id: row
        for row in PuzzleRating.objects.filter(
            puzzle__created_at__gte=start, puzzle__created_at__lt=end
        )
    }
    puzzles = (
        Puzzle.objects.filter(created_at__gte=start, created_at__lt=end)
        .annotate(
            plays=Count("results", distinct=True),
            solved=Count("results", filter=Q(results__solved=True), distinct=True),
        )
        .order_by("created_at", "id")
    )
    count = 0
    for puzzle in puzzles.iterator(chunk_size=500):
        rating = ratings.get(puzzle.id)
        writer.writerow(_row(puzzle, rating))
        count += 1
    text.flush()
    text.detach()
    return count


def _row(puzzle: Puzzle, rating: PuzzleRating | None) -> list[object]:
    data = puzzle.position
    columns = [
        " ".join(("*" if index < down else "") + code for index, code in enumerate(cards))
        for cards, down in zip(data["columns"], data["down"], strict=True)
    ]
    return [
        puzzle.id,
        puzzle.rules,
        "/".join(columns),
        " ".join(data["reserve"]),
        " ".join(code or "-" for code in data["cells"]),
        data["removed"],
        " ".join(_tokens(puzzle)),
        puzzle.length,
        round(rating.rating if rating else puzzle.first_rating, 1),
        round(rating.rd if rating else parameters.DEAL_RD, 1),
        getattr(puzzle, "plays", 0),
        getattr(puzzle, "solved", 0),
        " ".join(puzzle.themes),
        puzzle.source_game or "",
        puzzle.source_version or "",
        puzzle.source_challenge.isoformat() if puzzle.source_challenge else "",
        "" if puzzle.source_step is None else puzzle.source_step,
        presenters.timestamp(puzzle.created_at),
    ]


def _tokens(puzzle: Puzzle) -> list[str]:
    """The line in the notation's tokens: ``4H@2.5>7``, ``9S@c2>5``, ``deal``."""
    state = positions.state_of(engine.RULESETS[puzzle.rules], puzzle.position)
    tokens = []
    for move in puzzle.line:
        action = found.decode(move)
        if isinstance(action, engine.Move):
            card = engine.card_code(state.columns[action.source - 1][action.index])
            tokens.append(f"{card}@{action.source}.{action.index}>{action.to}")
        elif isinstance(action, engine.CellMove):
            held = state.cells[action.cell - 1]
            assert held is not None
            tokens.append(f"{engine.card_code(held)}@c{action.cell}>{action.to}")
        else:
            tokens.append("deal")
        state = engine.apply(state, action)[0]
    return tokens
