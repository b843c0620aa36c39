"""The notation's round trip: self-played games of every ruleset, written and read back.

``NOTATION_GAMES`` games a ruleset (1,000 by default; the slow mode is
``NOTATION_GAMES=10000``), written 100 to a text and read back, must give the same events,
type and data exactly, with the same times, authors and comments; writing what was read
gives the same text again. The games must between them hold every type of event and every
ending a ruleset has, so that the round trip covers the whole vocabulary.
"""

from __future__ import annotations

import io
import os
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from games import engine
from games.store import events
from games.store.notation import Transcript, read, write, write_all

from .selfplay import self_played

GAMES = int(os.environ.get("NOTATION_GAMES", "1000"))
BATCH = 100
RESULT = re.compile(r" ?=(\w+)\n\n")


def stream(game: Transcript) -> list[tuple[str, dict[str, Any]]]:
    """The events of ``game`` as the store keeps them: type and data."""
    return [(entry.event.TYPE, entry.event.to_json()) for entry in game.entries]


def kind(event: events.GameEvent) -> str:
    """The event's type, a cell move told apart."""
    return "moved (cell)" if isinstance(event, events.CellMoved) else event.TYPE


def expected_kinds(rules: engine.Ruleset) -> set[str]:
    """Every type of event, but undo where the rules allow none and deal without a
    reserve; cell moves where there are cells."""
    kinds = set(events.TYPES)
    if rules.undo_depth == 0:
        kinds.remove(events.Undone.TYPE)
    if not rules.reserve_size:
        kinds.remove(events.Dealt.TYPE)
    return kinds | ({"moved (cell)"} if rules.cells else set())


def expected_endings(rules: engine.Ruleset) -> set[str]:
    return {engine.PLAYING, engine.WON, engine.RESIGNED, *([engine.LOST] * rules.lose_when_blocked)}


@pytest.mark.timeout(300 * max(1, GAMES // 1000))  # the slow mode takes its time
@pytest.mark.parametrize("rules_name", list(engine.RULESETS))
def test_self_played_games_read_back_exactly_as_written(rules_name: str) -> None:
    rules = engine.RULESETS[rules_name]
    kinds: Counter[str] = Counter()
    endings: Counter[str] = Counter()
    written = 0
    for first in range(0, GAMES, BATCH):
        games = [self_played(rules_name, number) for number in range(first, first + BATCH)]
        text = "".join(write_all(games))
        back = list(read(io.StringIO(text)))
        assert len(back) == len(games)
        for number, (game, again) in enumerate(zip(games, back, strict=True), start=first):
            assert stream(again) == stream(game), number
            assert again == game, number
            kinds.update(kind(entry.event) for entry in game.entries)
        assert "".join(write_all(back)) == text
        endings.update(RESULT.findall(text))
        written += len(text.encode())
    assert set(kinds) == expected_kinds(rules)
    assert set(endings) == expected_endings(rules)
    print(f"{rules_name}: {GAMES} games, {kinds.total()} events, {written} bytes, {endings}")


def test_a_text_of_many_games_is_read_one_game_at_a_time() -> None:
    """The reader yields a game as soon as its result is read, before it reads on."""
    first, second = self_played("classic", 1), self_played("classic", 2)

    def lines() -> Iterator[str]:
        yield from io.StringIO(write(first))
        raise AssertionError("the reader read past the first game before yielding it")
        yield from io.StringIO(write(second))

    assert next(read(lines())) == first


def test_many_games_are_written_one_game_at_a_time() -> None:
    """The writer takes the next game only when the text of the previous one was taken."""
    first = self_played("double", 3)

    def games() -> Iterator[Transcript]:
        yield first
        raise AssertionError("the writer took the second game before giving the first")

    assert next(write_all(games())) == write(first)


def test_the_examples_of_the_documentation_read_as_the_writer_writes_them() -> None:
    """docs/notation.md's examples are games the reader accepts, in the writer's form, and
    between them they show every type of event."""
    doc = (Path(__file__).parents[2] / "docs" / "notation.md").read_text()
    examples = [block.split("```", 1)[0] for block in doc.split("```scorpion\n")[1:]]
    kinds = set()
    for example in examples:
        (game,) = read(io.StringIO(example))
        assert write(game) == example
        kinds |= {kind(entry.event) for entry in game.entries}
    assert kinds == set(events.TYPES) | {"moved (cell)"}
