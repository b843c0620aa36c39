"""Corrupted texts are refused with the line and the reason; the writer refuses what the
notation cannot carry.

Each corruption changes one thing in a text of two games (printed in :data:`BASE`'s
docstring, with its line numbers) and names the code and the line the reader must refuse it
with: bad cards, illegal moves, truncations, unknown rulesets, wrong cards named, bad seeds,
garbage, and every tag and token gone wrong.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
import uuid
from collections.abc import Callable

import pytest

from games import engine
from games.store import events
from games.store.notation import Entry, NotationError, Transcript, read, write
from tests.golden import WIN

CLASSIC = engine.RULESETS["classic"]
START = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)


def created(seed: int, challenge: str | None = None) -> events.Created:
    deal = tuple(engine.card_code(card) for card in engine.seeded_deal(CLASSIC, seed))
    return events.Created("classic", seed, deal, True, challenge, engine.ENGINE_VERSION)


def action(number: int) -> events.PlayerEvent:
    """The event of action ``number`` of classic seed 0's winning line."""
    return events.of_action(engine.action_from_command(WIN["actions"][number]))


def base() -> str:
    """Two games of classic seed 0: one resigned, without times; one of a daily challenge
    with its times, hints, an undo, a deal and a moderator's void.

    ::

         1  [Scorpion "1"]
         2  [Game "00000000-0000-0000-0000-000000000001"]
         3  [Rules "classic"]
         4  [Engine "1"]
         5  [Seed "0"]
         6  [Public "true"]
         7  [Player "ada"]
         8  [Result "resigned"]
         9  [Score "15"]
        10
        11  2. 2D@1.6>4 QD@2.6>7 3D@4.6>1 resign =resigned
        12
        13  [Scorpion "1"]
        14  [Game "00000000-0000-0000-0000-000000000002"]
        15  [Rules "classic"]
        16  [Engine "1"]
        17  [Seed "0"]
        18  [Public "true"]
        19  [Challenge "2026-11-30"]
        20  [Player "grace"]
        21  [Created "2026-11-30T12:00:00.000Z"]
        22  [Result "playing"]
        23  [Score "110"]
        24
        25  2. hint:solver:2D@1.6>4+1500 2D@1.6>4+1600 QD@2.6>7+1700 3D@4.6>1+1800
        26  6. 9S@5.3>4+1900 4C@1.4>5+2000 undo+2100 4C@1.4>5+2200 4H@3.3>1+2300
        27  11. JC@4.8>6+2400 JD@6.4>7+2500 2C@1.5>6+2600 AH@7.1>2+2700 5S@2.10>3+2800
        28  16. QH@3.10>6+2900 5C@5.2>7+3000 2S@3.7>5+3100 TD@2.9>3+3200 8D@6.5>2+3300
        29  21. deal+3400 2H@2.5>3+3500 9C@2.3>3+3600 7H@4.3>3+3700
        30  25. hint:heuristic:deal+3800 void+3600000 "a bot" by "mod" =playing
    """
    resigned = (action(0), action(1), action(2), events.Resigned())
    first = Transcript(
        (Entry(created(0), by="ada"), *(Entry(fact, by="ada") for fact in resigned)),
        uuid.UUID(int=1),
        "ada",
    )
    hint = events.Hinted({"type": "move", "from": 1, "index": 6, "to": 4}, "solver")
    facts = [hint, *map(action, range(5)), events.Undone(), *map(action, range(4, 20))]
    facts.append(events.Hinted({"type": "deal"}, "heuristic"))
    entries = [Entry(created(0, "2026-11-30"), START, "grace")]
    at = START
    for number, fact in enumerate(facts):
        at += dt.timedelta(milliseconds=1500 + 100 * number)
        entries.append(Entry(fact, at, "grace"))
    entries.append(Entry(events.ResultVoided("a bot"), at + dt.timedelta(hours=1), "mod"))
    second = Transcript(tuple(entries), uuid.UUID(int=2), "grace")
    return write(first) + write(second)


BASE = base()
DEAL_OF_1 = " ".join(engine.card_code(card) for card in engine.seeded_deal(CLASSIC, 1))
DEAL_OF_0 = " ".join(engine.card_code(card) for card in engine.seeded_deal(CLASSIC, 0))
Corrupt = Callable[[list[str]], None]


def at(line: int, old: str, new: str) -> Corrupt:
    """Replace ``old`` (which must be there) by ``new`` on ``line``."""

    def corrupt(lines: list[str]) -> None:
        assert old in lines[line - 1], (line, old)
        lines[line - 1] = lines[line - 1].replace(old, new, 1)

    return corrupt


def insert(line: int, text: str) -> Corrupt:
    """Make ``text`` line ``line``."""
    return lambda lines: lines.insert(line - 1, text)


def delete(line: int) -> Corrupt:
    return lambda lines: lines.pop(line - 1)


def cut(after: int) -> Corrupt:
    """End the text after ``line``."""
    return lambda lines: lines.__delitem__(slice(after, None))


#: ``(what, corruption, code, line, words the reason holds)``.
CORRUPTIONS: list[tuple[str, Corrupt, str, int, str]] = [
    ("a bad card", at(25, "QD@2.6>7", "QX@2.6>7"), "bad_card", 25, "'QX' is not a card"),
    ("a ten written 10", at(29, "2H@2.5>3", "10H@2.5>3"), "bad_card", 29, "'10H'"),
    ("a card named lowercase", at(11, "2D@1.6>4", "2d@1.6>4"), "bad_card", 11, "'2d'"),
    ("a wrong card named", at(25, "QD@2.6>7", "KD@2.6>7"), "wrong_card", 25, "is QD"),
    ("a hint naming a wrong card", at(25, "solver:2D", "solver:3D"), "wrong_card", 25, "2D"),
    ("a hint at a face-down card", at(25, "solver:2D@1.6", "solver:2D@1.0"), "wrong_card", 25, ""),
    ("a move onto its own column", at(27, "JC@4.8>6", "JC@4.8>4"), "illegal", 27, "same_column"),
    ("a face-down card moved", at(25, "2D@1.6>4+1600", "2D@1.0>4+1600"), "illegal", 25, "face"),
    ("a move onto the wrong rank", at(11, "3D@4.6>1", "3D@4.6>2"), "illegal", 11, "wrong_rank"),
    ("a second deal", at(29, "deal+3400", "deal+3400 deal+1"), "illegal", 29, "reserve_empty"),
    ("an undo before any move", at(11, "2. 2D", "2. undo 2D"), "illegal", 11, "nothing_to_undo"),
    ("a move after resigning", at(11, "resign =", "resign deal ="), "illegal", 11, "game_over"),
    ("a tag line cut short", at(15, '"classic"]', '"clas'), "syntax", 15, "tag line"),
    ("a header cut short", cut(15), "truncated", 15, "tags"),
    ("a header without Scorpion", delete(13), "missing_tag", 13, "Scorpion"),
    ("an unknown ruleset", at(15, "classic", "klondike"), "unknown_rules", 15, "classic"),
    ("another engine", at(16, '"1"', '"2"'), "engine_version", 16, "engine 1"),
    ("another notation", at(13, '"1"', '"2"'), "bad_tag", 13, "version 1"),
    ("a seed that is no number", at(17, '"0"', '"0x"'), "bad_seed", 17, "integer"),
    ("a negative seed", at(17, '"0"', '"-1"'), "bad_seed", 17, "integer"),
    ("a seed too large", at(17, '"0"', '"9007199254740992"'), "bad_seed", 17, "integer"),
    ("a seed not the deal's", insert(18, f'[Deal "{DEAL_OF_1}"]'), "bad_seed", 17, "other cards"),
    ("a deal with a card twice", insert(18, f'[Deal "{DEAL_OF_0[:-2]}AD"]'), "bad_deal", 18, "AD"),
    ("a deal short of a card", insert(18, f'[Deal "{DEAL_OF_0[:-3]}"]'), "bad_deal", 18, "51"),
    ("a deal naming no card", insert(18, '[Deal "AS XX"]'), "bad_deal", 18, "'XX'"),
    ("an unknown tag", insert(15, '[Site "x"]'), "unknown_tag", 15, "Site"),
    ("a tag twice", insert(16, '[Rules "classic"]'), "duplicate_tag", 16, "Rules"),
    ("no Result tag", delete(22), "missing_tag", 23, "Result"),
    (
        "a Contest without Round",
        insert(19, f'[Contest "{uuid.UUID(int=3)}"]'),
        "missing_tag",
        25,
        "",
    ),
    ("a public that is no boolean", at(18, "true", "yes"), "bad_tag", 18, "true, false"),
    ("a challenge that is no day", at(19, "2026-11-30", "2026-11-31"), "bad_tag", 19, ""),
    ("a Created time malformed", at(21, ".000Z", "Z"), "bad_time", 21, ""),
    ("a garbage line", insert(28, "hello world"), "syntax", 28, "'hello'"),
    ("garbage between games", at(12, "", "hello"), "syntax", 12, "Scorpion"),
    ("moves cut short", cut(29), "truncated", 29, "line 13"),
    ("a game without its result", at(11, " =resigned", ""), "truncated", 13, "line 1 "),
    ("a line of moves lost", delete(27), "bad_seq", 27, "#11"),
    ("a seq out of step", at(26, "6. ", "7. "), "bad_seq", 26, "#6"),
    ("a result the moves do not reach", at(22, "playing", "won"), "wrong_result", 22, ""),
    ("an ending the moves do not reach", at(30, "=playing", "=won"), "wrong_result", 30, ""),
    ("an unknown ending", at(30, "=playing", "=drawn"), "syntax", 30, "=drawn"),
    ("a wrong score", at(23, "110", "115"), "wrong_result", 23, "110"),
    (
        "a playing game finished",
        insert(22, '[Finished "2026-11-30T13:00:00.000Z"]'),
        "wrong_result",
        22,
        "",
    ),
    ("an event without its time", at(26, "undo+2100", "undo"), "bad_time", 26, "every event"),
    ("a time past the year 9999", at(27, "+2400", "+999999999999999"), "bad_time", 27, "9999"),
    ("a comment never closed", at(28, "+3300", "+3300 {oops"), "truncated", 31, "comment"),
    ("a stray }", at(26, "undo+2100", "undo+2100 }"), "syntax", 26, "}"),
    ("a void without its reason", at(30, ' "a bot" by "mod"', ""), "syntax", 30, "string"),
    ("a string never closed", at(30, '"mod"', '"mod'), "syntax", 30, "string"),
    ("by without a moderator", at(30, ' "mod"', ""), "syntax", 30, "string"),
    ("by after a comment", at(30, '"a bot" by', '"a bot" {c} by'), "syntax", 30, "'by'"),
    (
        "a comment inside void",
        at(30, 'void+3600000 "a', 'void+3600000 {c} "a'),
        "syntax",
        30,
        "split",
    ),
    ("text after the result", at(11, "=resigned", "=resigned 2D@1.6>4"), "syntax", 11, ""),
]


@pytest.mark.parametrize(
    ("corrupt", "code", "line", "words"),
    [case[1:] for case in CORRUPTIONS],
    ids=[case[0] for case in CORRUPTIONS],
)
def test_a_corrupted_text_is_refused_with_its_line_and_reason(
    corrupt: Corrupt, code: str, line: int, words: str
) -> None:
    lines = BASE.split("\n")
    corrupt(lines)
    text = "\n".join(lines)
    with pytest.raises(NotationError) as refused:
        list(read(io.StringIO(text)))
    error = refused.value
    assert (error.code, error.line) == (code, line), error
    assert words in error.reason
    assert str(error).startswith(f"line {line}")


def test_the_text_before_the_corruptions_reads() -> None:
    first, second = read(io.StringIO(BASE))
    assert first.entries[-1].event == events.Resigned()
    assert second.entries[-1] == Entry(
        events.ResultVoided("a bot"), second.entries[-2].at + dt.timedelta(hours=1), "mod"
    )


@pytest.mark.parametrize("comment", ["", " {a comment on the line}"])
def test_the_games_before_a_refused_one_are_yielded_whole(comment: str) -> None:
    """The column is found alike on a line of words alone and on one with a comment."""
    text = BASE.replace("QD@2.6>7+1700", f"KD@2.6>7+1700{comment}")
    games = read(io.StringIO(text))
    assert next(games).player == "ada"
    with pytest.raises(NotationError) as refused:
        next(games)
    column = text.split("\n")[24].index("KD@") + 1
    assert (refused.value.line, refused.value.column) == (25, column)


def test_a_text_may_hold_comments_and_blank_lines_between_games() -> None:
    text = "; Scorpion games\n\n" + BASE.replace("\n\n[Scorpion", "\n; the second\n\n[Scorpion")
    assert list(read(io.StringIO(text))) == list(read(io.StringIO(BASE)))


def test_comments_follow_the_event_before_them() -> None:
    text = BASE.replace("resign =", "resign {gave up} ; tired\n=").replace(
        "2. 2D@1.6>4 QD", "{a quiet start}\n2. 2D@1.6>4 {a\nlong one} QD"
    )
    first = next(read(io.StringIO(text)))
    comments = [entry.comments for entry in first.entries]
    assert comments == [("a quiet start",), ("a\nlong one",), (), (), ("gave up", " tired")]


# --- The writer --------------------------------------------------------------------------------

GAME = next(read(io.StringIO(BASE)))
SECOND = list(read(io.StringIO(BASE)))[1]
LATER = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)


def with_entry(game: Transcript, index: int, entry: Entry) -> Transcript:
    entries = list(game.entries)
    entries[index] = entry
    return dataclasses.replace(game, entries=tuple(entries))


#: ``(what, a transcript the writer must refuse, words of the reason)``.
UNWRITABLE: list[tuple[str, Transcript, str]] = [
    ("no events", Transcript(()), "created"),
    ("a first event that is not created", Transcript(GAME.entries[1:]), "created"),
    ("a second created", with_entry(GAME, 2, GAME.entries[0]), "second created"),
    (
        "an unknown ruleset",
        with_entry(GAME, 0, Entry(dataclasses.replace(created(0), rules="x"))),
        "#1",
    ),
    (
        "a deal in codes the server never writes",
        with_entry(
            GAME,
            0,
            Entry(
                dataclasses.replace(
                    created(0), deal=tuple(code.lower() for code in created(0).deal)
                )
            ),
        ),
        "#1",
    ),
    (
        "a seed that does not deal the deal",
        with_entry(GAME, 0, Entry(dataclasses.replace(created(0), seed=1))),
        "seed 1",
    ),
    ("an illegal move", with_entry(GAME, 1, Entry(events.Moved(1, 0, 4))), "card_face_down"),
    (
        "a hint at a face-down card",
        with_entry(
            GAME,
            1,
            Entry(events.Hinted({"type": "move", "from": 1, "index": 0, "to": 2}, "solver")),
        ),
        "face-up",
    ),
    (
        "a hint of an undo",
        with_entry(GAME, 1, Entry(events.Hinted({"type": "undo"}, "solver"))),
        "face-up",
    ),
    (
        "a player's event by another",
        with_entry(GAME, 1, dataclasses.replace(GAME.entries[1], by="eve")),
        "eve",
    ),
    (
        "times on some events only",
        with_entry(SECOND, 3, dataclasses.replace(SECOND.entries[3], at=None)),
        "time",
    ),
    (
        "a time without a zone",
        with_entry(SECOND, 3, dataclasses.replace(SECOND.entries[3], at=dt.datetime(2026, 1, 1))),
        "zone",
    ),
    (
        "a comment holding }",
        with_entry(GAME, 1, dataclasses.replace(GAME.entries[1], comments=("a}b",))),
        "comment",
    ),
    (
        "a comment holding CR",
        with_entry(GAME, 1, dataclasses.replace(GAME.entries[1], comments=("a\rb",))),
        "comment",
    ),
]


@pytest.mark.parametrize(
    ("game", "words"), [case[1:] for case in UNWRITABLE], ids=[case[0] for case in UNWRITABLE]
)
def test_the_writer_refuses_what_the_notation_cannot_carry(game: Transcript, words: str) -> None:
    with pytest.raises(ValueError, match=words) as refused:
        write(game)
    assert not isinstance(refused.value, NotationError)
