"""Writing games in the notation (docs/notation.md): one game's text at a time.

The writer replays each game through the engine as it writes it, because a move names the
card it takes and the header states the result: so it writes only games that replay, and
refuses any other with a :class:`ValueError` that names the event.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator

from games import engine
from games.store import events
from games.store.notation import syntax
from games.store.notation.transcript import Entry, Transcript

#: Lines of moves are wrapped before this width, as PGN's export format does.
WIDTH = 79


def write_all(transcripts: Iterable[Transcript]) -> Iterator[str]:
    """The text of each game of ``transcripts`` in turn, taking the next game only when the
    previous one's text was taken: a file of many games is never built whole."""
    for transcript in transcripts:
        yield write(transcript)


def write(transcript: Transcript) -> str:
    """One game's text: its tags, a blank line, its moves ending with its result, and a
    blank line.

    :class:`ValueError` for what the notation cannot carry: a first event that is not
    ``created``, a seed that does not deal its deal, an event the rules refuse, a hint that
    names no face-up card, times on some events only, a player's event by someone other
    than the player, a comment holding ``}``.
    """
    if not transcript.entries or not isinstance(transcript.entries[0].event, events.Created):
        raise ValueError("a game's first event is created")
    first = transcript.entries[0]
    created = first.event
    assert isinstance(created, events.Created)
    try:  # the codes as the server writes them (TD, never 10D), so that they read back
        state = engine.new_game(
            engine.RULESETS[created.rules], [syntax.CARDS[code] for code in created.deal]
        )
    except (KeyError, ValueError) as error:
        raise ValueError(f"event #1 does not replay: {error!r}") from error
    rest = transcript.entries[1:]
    timed = _timed(transcript.entries)
    moves = _Lines()
    for comment in first.comments:
        moves.add(_comment(comment))
    finished_at: dt.datetime | None = None
    clock = syntax.millis(first.at) if timed and first.at is not None else 0
    for seq, entry in enumerate(rest, start=2):
        before = state
        token, state = _token(state, entry.event, seq)
        if before.status == engine.PLAYING and state.status != engine.PLAYING:
            finished_at = entry.at
        if not isinstance(entry.event, events.ResultVoided | events.ResultRestored):
            if entry.by not in (None, transcript.player):
                raise ValueError(f"event #{seq} is by {entry.by}, not by the player")
        elif entry.by is not None:
            token += f" {syntax.BY} {syntax.quote(entry.by)}"
        if timed:
            assert entry.at is not None
            now = syntax.millis(entry.at)
            token = _timed_token(token, now - clock)
            clock = now
        moves.add(token, seq)
        for comment in entry.comments:
            moves.add(_comment(comment))
    moves.add(f"={state.status}")
    tags = _tags(transcript, created, first.at, finished_at if timed else None, state)
    header = "".join(f"[{name} {syntax.quote(value)}]\n" for name, value in tags)
    return f"{header}\n{moves.text()}\n\n"


def _timed(entries: tuple[Entry, ...]) -> bool:
    """Whether the events carry their times: every one does (``created`` too), or none
    after ``created`` does."""
    times = [entry.at is not None for entry in entries[1:]]
    if not any(times):
        return False
    if not all(times) or entries[0].at is None:
        raise ValueError("every event has its time, or no event after created has one")
    for entry in entries:
        assert entry.at is not None
        if entry.at.tzinfo is None:
            raise ValueError(f"{entry.at} has no time zone")
    return True


def _token(state: engine.State, fact: events.GameEvent, seq: int) -> tuple[str, engine.State]:
    """The token of event ``seq`` played on ``state``, and the state after it."""
    if isinstance(fact, events.Moved):
        after = _apply(state, fact.action(), seq)
        card = state.columns[fact.source - 1][fact.index]
        return syntax.move_token(card, fact.source, fact.index, fact.to), after
    if isinstance(fact, events.CellMoved):
        after = _apply(state, fact.action(), seq)
        held = state.cells[fact.cell - 1]
        assert held is not None
        return syntax.cell_token(held, fact.cell, fact.to), after
    if isinstance(fact, events.Dealt | events.Undone | events.Restarted | events.Resigned):
        action = fact.action()
        word = syntax.ABANDON if isinstance(fact, events.Resigned) and fact.abandoned else None
        return word or syntax.WORDS[type(action)], _apply(state, action, seq)
    if isinstance(fact, events.ResultVoided | events.ResultRestored):
        word = "void" if isinstance(fact, events.ResultVoided) else "restore"
        if isinstance(fact, events.ResultRestored) and fact.owner_banned:
            word = "restore_banned"
        return f"{word} {syntax.quote(fact.reason)}", state
    if isinstance(fact, events.Hinted):
        return _hint(state, fact, seq), state
    raise ValueError(f"event #{seq}: a second created event")


def _apply(state: engine.State, action: engine.Action, seq: int) -> engine.State:
    try:
        return engine.apply(state, action)[0]
    except engine.RuleViolation as error:
        raise ValueError(f"event #{seq} does not replay: {error}") from error


def _hint(state: engine.State, fact: events.Hinted, seq: int) -> str:
    """``hint:solver:5H@2.5>7``: what chose the hint, then the action it suggested, naming
    its card (face-up: a hint is computed from the player's view)."""
    token = f"hint:{fact.source}"
    move = fact.move
    if move is None:
        return token
    keys = set(move)
    if move == {"type": "deal"}:
        return f"{token}:deal"
    if move.get("type") == "move" and keys == {"type", "from", "index", "to"}:
        card = state.card_at(move["from"], move["index"])
        if card is not None:
            return f"{token}:{syntax.move_token(card, move['from'], move['index'], move['to'])}"
    elif move.get("type") == "move" and keys == {"type", "cell", "to"}:
        cell = move["cell"]
        held = state.cells[cell - 1] if 1 <= cell <= len(state.cells) else None
        if held is not None:
            return f"{token}:{syntax.cell_token(held, cell, move['to'])}"
    raise ValueError(f"event #{seq}: the hint {move} names no face-up card")


def _timed_token(token: str, delta: int) -> str:
    """``token`` with its time, ``delta`` milliseconds after the previous event's, on its
    head (the first word)."""
    head, space, rest = token.partition(" ")
    return f"{head}{delta:+d}{space}{rest}"


def _comment(text: str) -> str:
    if syntax.COMMENT_FORBIDS.search(text):
        raise ValueError(f"a comment may hold neither }} nor a line break but LF: {text!r}")
    return f"{{{text}}}"


def _tags(
    transcript: Transcript,
    created: events.Created,
    created_at: dt.datetime | None,
    finished_at: dt.datetime | None,
    state: engine.State,
) -> list[tuple[str, str]]:
    """The header's tags, in the order of :data:`syntax.TAGS`."""
    tags = [("Scorpion", syntax.VERSION)]
    if transcript.game_id is not None:
        tags.append(("Game", str(transcript.game_id)))
    tags += [("Rules", created.rules), ("Engine", str(created.engine))]
    if created.seed is None:
        tags.append(("Deal", " ".join(created.deal)))
    elif engine.seeded_deal(state.rules, created.seed) == state.deal:
        tags.append(("Seed", str(created.seed)))
    else:
        raise ValueError(f"event #1: seed {created.seed} does not deal the deal recorded")
    tags.append(("Public", "true" if created.public else "false"))
    if created.challenge is not None:
        tags.append(("Challenge", created.challenge))
    if created.contest is not None:
        tags += [("Contest", created.contest), ("Round", str(created.round))]
    if created.rated:
        tags.append(("Rated", repr(created.difficulty)))
        if created.deal_rating is not None:
            tags.append(("DealRating", repr(created.deal_rating)))
    if transcript.player is not None:
        tags.append(("Player", transcript.player))
    if created_at is not None:
        tags.append(("Created", syntax.format_time(created_at)))
    if finished_at is not None:
        tags.append(("Finished", syntax.format_time(finished_at)))
    tags += [("Result", state.status), ("Score", str(state.score))]
    return tags


class _Lines:
    """The moves, wrapped before :data:`WIDTH`; a line that starts with an event starts
    with its seq (``12.``)."""

    def __init__(self) -> None:
        self._lines: list[str] = []
        self._line = ""

    def add(self, text: str, seq: int | None = None) -> None:
        if self._line and len(self._line) + 1 + len(text) >= WIDTH:
            self._lines.append(self._line)
            self._line = ""
        if self._line:
            self._line += " " + text
        else:
            self._line = text if seq is None else f"{seq}. {text}"
        if "\n" in text:  # a comment of several lines: go on after its last
            *whole, self._line = self._line.split("\n")
            self._lines += whole

    def text(self) -> str:
        return "\n".join([*self._lines, self._line])
