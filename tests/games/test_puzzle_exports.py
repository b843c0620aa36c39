"""The monthly export of the puzzles: once the month is over, exactly its puzzles, with
their position, answer, themes, ratings and plays, as CSV, gzip, with their checksum; the
API lists it and serves it (docs/operations.md#monthly-exports)."""

from __future__ import annotations

import csv
import datetime as dt
import gzip
import hashlib
import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from games import clock, engine
from games.engine import puzzles as found
from games.puzzles.models import Puzzle, PuzzleRating
from games.writes import puzzle_exports
from games.writes import puzzles as writing
from games.writes.exports import ExportRefused
from tests.puzzle_helpers import make_puzzle

pytestmark = pytest.mark.django_db

NOVEMBER = dt.datetime(2026, 11, 20, 12, tzinfo=dt.UTC)
AFTER = dt.datetime(2026, 12, 1, 1, tzinfo=dt.UTC)


def test_a_month_of_puzzles_is_exported_with_their_answers_and_ratings(
    settings, tmp_path, alice, bob
):
    settings.PUZZLE_EXPORT_DIR = tmp_path
    with clock.frozen(NOVEMBER):
        hidden = make_puzzle("hidden_only_move")
        opened = make_puzzle("open_two_ways")
        attempt = writing.puzzle_next(player=alice)
        writing.puzzle_give_up(attempt_id=attempt.id, player=alice)
    with clock.frozen(AFTER - dt.timedelta(minutes=30)):
        december = make_puzzle("reveal_then_open")
    with clock.frozen(NOVEMBER + dt.timedelta(days=5)), pytest.raises(ExportRefused):
        puzzle_exports.export_month("2026-11")
    with clock.frozen(AFTER):
        written = puzzle_exports.export_month("2026-11")
        with pytest.raises(ExportRefused):
            puzzle_exports.export_month("2026-11")
    path = tmp_path / "2026-11.puzzles.csv.gz"
    data = path.read_bytes()
    assert written.path == path and written.export.puzzles == 2
    assert written.export.sha256 == hashlib.sha256(data).hexdigest()
    line = (tmp_path / "2026-11.puzzles.csv.gz.sha256").read_text()
    assert line == f"{written.export.sha256}  2026-11.puzzles.csv.gz\n"
    assert json.loads((tmp_path / "2026-11.puzzles.json").read_text())["puzzles"] == 2
    rows = list(csv.DictReader(io.StringIO(gzip.decompress(data).decode())))
    assert [row["PuzzleId"] for row in rows] == [hidden.id, opened.id]
    assert december.id not in {row["PuzzleId"] for row in rows}
    played = Puzzle.objects.get(id=attempt.puzzle_id)
    for row in rows:
        puzzle = Puzzle.objects.get(id=row["PuzzleId"])
        assert row["Rules"] == "classic" and int(row["Length"]) == puzzle.length
        assert row["Themes"].split() == list(puzzle.themes)
        # Every card where it lies, face-down ones marked: the position replays the line.
        columns = [column.split() for column in row["Position"].split("/")]
        assert [[card.lstrip("*") for card in column] for column in columns] == puzzle.position[
            "columns"
        ]
        assert [
            sum(card.startswith("*") for card in column) for column in columns
        ] == puzzle.position["down"]
        assert row["Reserve"].split() == puzzle.position["reserve"]
        tokens = row["Moves"].split()
        assert len(tokens) == puzzle.length
        assert (
            tokens[0].split("@")[0]
            in {card for column in puzzle.position["columns"] for card in column}
            or tokens[0] == "deal"
        )
        assert (
            row["Game"] == str(puzzle.source_game) and int(row["Version"]) == puzzle.source_version
        )
        if puzzle.id == played.id:
            rating = PuzzleRating.objects.get(puzzle=puzzle)
            assert (row["Plays"], row["Solved"]) == ("1", "0")
            assert float(row["Rating"]) == round(rating.rating, 1)
        else:
            assert row["Plays"] == "0" and float(row["Rating"]) == round(puzzle.first_rating, 1)
    # The line's first token names the card the solver's first move takes.
    first = rows[0]
    state_cards = {card for column in hidden.position["columns"] for card in column}
    move = found.decode(hidden.line[0])
    assert isinstance(move, engine.Move)
    card = hidden.position["columns"][move.source - 1][move.index]
    assert first["Moves"].split()[0] == f"{card}@{move.source}.{move.index}>{move.to}"
    assert first["Moves"].split()[0].split("@")[0] in state_cards

    # The API lists it and serves it, byte for byte.
    listed = Client().get("/api/v1/puzzles/exports").json()["results"]
    assert listed[0]["month"] == "2026-11" and listed[0]["sha256"] == written.export.sha256
    served = Client().get("/api/v1/puzzles/exports/2026-11.puzzles.csv.gz")
    assert b"".join(served.streaming_content) == data
    assert Client().get("/api/v1/puzzles/exports/2026-10.puzzles.csv.gz").status_code == 404


def test_the_command_refuses_a_month_not_over(settings, tmp_path):
    settings.PUZZLE_EXPORT_DIR = tmp_path
    with clock.frozen(NOVEMBER), pytest.raises(CommandError):
        call_command("export_puzzles", "--month", "2026-11")
    with clock.frozen(AFTER):
        call_command("export_puzzles", "--month", "2026-11")
    assert (tmp_path / "2026-11.puzzles.json").is_file()
