"""Reading games written in the notation (docs/notation.md), one game at a time.

Each game is replayed through the engine as its moves are read, and yielded only once its
result is read and agrees with the replay: a game that does not replay is refused with a
:class:`NotationError` naming the line, the column and the reason. Only the game being read
is held in memory, however long the text.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from games import engine
from games.engine.cards import CODE
from games.store import events
from games.store.notation import syntax
from games.store.notation.header import Header, Tags
from games.store.notation.transcript import Entry, NotationError, Transcript

_Moderation = Callable[[str], events.ResultVoided | events.ResultRestored]


def read(lines: Iterable[str]) -> Iterator[Transcript]:
    """Each game of ``lines`` (a text's lines, such as an open file or ``io.StringIO``), as
    soon as its result is read.

    Raises :class:`NotationError` at the first thing refused (the games yielded before it
    were whole, and replayed); the line numbers count from the start of ``lines``.
    """
    reader = _Reader()
    number = 0
    for number, line in enumerate(lines, start=1):
        game = reader.line(number, line.rstrip("\r\n"))
        if game is not None:
            yield game
    reader.end(number)


class _Reader:
    """Between games, in a game's tags, or in its moves."""

    def __init__(self) -> None:
        self._tags: Tags | None = None
        self._game: _Game | None = None

    def line(self, number: int, text: str) -> Transcript | None:
        if self._game is not None:
            done = self._game.line(number, text)
            if done is not None:
                self._game = None
            return done
        if self._tags is not None:
            if text.startswith("["):
                self._tags.add(number, text)
                return None
            self._game = _Game(self._tags.header(number))
            self._tags = None
            return self.line(number, text)
        between = text.lstrip(" \t")
        if not between or between.startswith(";"):
            return None
        if not text.startswith("["):
            raise NotationError(number, "syntax", 'a game starts with the tag [Scorpion "1"]')
        self._tags = Tags()
        self._tags.add(number, text)
        return None

    def end(self, number: int) -> None:
        """The text ended at line ``number``: refuse a game left unfinished."""
        if self._tags is not None:
            raise NotationError(number, "truncated", "the text ends in a game's tags")
        if self._game is not None:
            self._game.truncated(number)


class _Game:
    """A game's moves as they are read, replayed as they come."""

    def __init__(self, header: Header) -> None:
        self.header = header
        self.state = engine.new_game(header.rules, header.deal)
        self.entries: list[Entry] = []
        #: The latest event, still taking its comments (and a moderator).
        self.last = Entry(header.created, header.created_at, header.player)
        self.clock = header.created_at
        self.timed: bool | None = None
        self.finished_at: dt.datetime | None = None
        #: A moderation event waiting for its reason: its class and time.
        self.moderation: tuple[_Moderation, dt.datetime | None] | None = None
        #: After a moderation event's reason, ``by``; after ``by``, the moderator's name.
        self.expect: str | None = None
        #: A comment of several lines: its lines so far.
        self.comment: list[str] | None = None

    def line(self, number: int, text: str) -> Transcript | None:
        """Read one line of moves: the game once its result is read."""
        position = 0
        if self.comment is not None:
            close = text.find("}")
            if close < 0:
                self.comment.append(text)
                return None
            self.note("\n".join([*self.comment, text[:close]]), number, 1)
            self.comment = None
            position = close + 1
        elif text.startswith("["):
            self.truncated(number)
        elif syntax.PLAIN_LINE.fullmatch(text):
            return self.words(number, text)
        while position < len(text):
            match = syntax.LEXEME.match(text, position)
            column = position + 1
            if match is None:
                problem = "a string must end on its line" if text[position] == '"' else "a stray }"
                raise NotationError(number, "syntax", problem, column)
            position = match.end()
            kind = match.lastgroup
            if kind == "rest":
                self.note(match.group()[1:], number, column)
            elif kind == "open":
                close = text.find("}", position)
                if close < 0:
                    self.comment = [text[position:]]
                    return None
                self.note(text[position:close], number, column)
                position = close + 1
            elif kind == "string":
                self.string(match.group(), number, column)
            elif kind == "word":
                word = match.group()
                if word[0] == "=":
                    game = self.end(word, number, column)
                    _nothing_after(text, position, number)
                    return game
                self.word(word, number, column)
        return None

    def words(self, number: int, text: str) -> Transcript | None:
        """A line of words alone, without a comment or a string (most lines): read without
        the lexer."""
        for found in syntax.WORD.finditer(text):
            word = found.group()
            if word[0] == "=":
                game = self.end(word, number, found.start() + 1)
                _nothing_after(text, found.end(), number)
                return game
            self.word(word, number, found.start() + 1)
        return None

    def note(self, text: str, number: int, column: int) -> None:
        """A comment: it follows the latest event (and ends it: no ``by`` after it)."""
        if self.moderation is not None or self.expect == "moderator":
            raise NotationError(number, "syntax", "a comment cannot split an event", column)
        self.expect = None
        self.last = Entry(self.last.event, self.last.at, self.last.by, (*self.last.comments, text))

    def string(self, literal: str, number: int, column: int) -> None:
        try:
            text = syntax.unquote(literal)
        except ValueError:
            raise NotationError(number, "syntax", "not a JSON string", column) from None
        if self.moderation is not None:
            kind, at = self.moderation
            self.moderation = None
            self.push(kind(text), at, None)
            self.expect = syntax.BY
        elif self.expect == "moderator":
            self.last = Entry(self.last.event, self.last.at, text, self.last.comments)
            self.expect = None
        else:
            raise NotationError(number, "syntax", "a string follows void, restore or by", column)

    def word(self, word: str, number: int, column: int) -> None:
        if self.moderation is not None or self.expect == "moderator":
            raise NotationError(number, "syntax", "a string must come here", column)
        if word == syntax.BY and self.expect == syntax.BY:
            self.expect = "moderator"
            return
        self.expect = None
        match = syntax.EVENT.fullmatch(word)
        if match is None:
            seq = syntax.SEQ.fullmatch(word)
            if seq is None:
                raise NotationError(number, "syntax", f"{word!r} is not an event", column)
            wanted = len(self.entries) + 2
            if int(seq["seq"]) != wanted:
                raise NotationError(number, "bad_seq", f"the next event is #{wanted}", column)
            return
        at = self.time(match["time"], number, column)
        place = syntax.place(match)
        kind = match["word"]
        if place is not None:
            self.act(self.move(place, word, number, column), word, at, number, column)
        elif kind in syntax.PLAIN:
            self.act(syntax.PLAIN[kind], word, at, number, column)
        elif kind == syntax.ABANDON:
            abandoned = events.Resigned(abandoned=True)
            self.act(abandoned.action(), word, at, number, column, recorded=abandoned)
        elif kind in syntax.MODERATION:
            self.moderation = (syntax.MODERATION[kind], at)
        else:
            self.push(self.hint(match, number, column), at, self.header.player)

    def push(self, event: events.GameEvent, at: dt.datetime | None, by: str | None) -> None:
        """Close the latest event and make ``event`` the latest."""
        self.entries.append(self.last)
        self.last = Entry(event, at, by)

    def act(
        self,
        action: engine.Action,
        word: str,
        at: dt.datetime | None,
        number: int,
        column: int,
        *,
        recorded: events.PlayerEvent | None = None,
    ) -> None:
        """Apply ``action`` (the token ``word``) to the game; ``recorded`` is its event when
        that is not the plain one."""
        try:
            state = engine.apply(self.state, action)[0]
        except engine.RuleViolation as refused:
            reason = f"{word} is refused: {refused.code} ({refused.message})"
            raise NotationError(number, "illegal", reason, column) from None
        if self.state.status == engine.PLAYING and state.status != engine.PLAYING:
            self.finished_at = at
        self.state = state
        self.push(recorded or events.of_action(action), at, self.header.player)

    def move(self, place: syntax.Place, word: str, number: int, column: int) -> engine.Action:
        """The action of a move token, whose card must be the one at its place (the rules
        judge a place that holds no face-up card)."""
        card = self.card(place, number, column)
        if place.cell is not None:
            cells = self.state.cells
            held = cells[place.cell - 1] if 1 <= place.cell <= len(cells) else None
            action: engine.Action = engine.CellMove(cell=place.cell, to=place.to)
        else:
            assert place.source is not None and place.index is not None
            held = self.state.card_at(place.source, place.index)
            action = engine.Move(source=place.source, index=place.index, to=place.to)
        if held is not None and held != card:
            reason = f"{word} names {place.card}, but the card there is {CODE[held]}"
            raise NotationError(number, "wrong_card", reason, column)
        return action

    def card(self, place: syntax.Place, number: int, column: int) -> engine.Card:
        card = syntax.CARDS.get(place.card)
        if card is None:
            reason = (
                f"{place.card!r} is not a card code: a rank (A 2-9 T J Q K), then a suit (S H D C)"
            )
            raise NotationError(number, "bad_card", reason, column)
        return card

    def hint(self, match: re.Match[str], number: int, column: int) -> events.Hinted:
        """The ``hinted`` event of a hint token: the card it names must be face-up at its
        place (a hint is computed from what the player sees)."""
        place = syntax.place(match, "h")
        move: dict[str, Any] | None = None
        if place is not None:
            card = self.card(place, number, column)
            if place.cell is not None:
                cells = self.state.cells
                held = cells[place.cell - 1] if 1 <= place.cell <= len(cells) else None
                move = {"type": "move", "cell": place.cell, "to": place.to}
            else:
                assert place.source is not None and place.index is not None
                held = self.state.card_at(place.source, place.index)
                move = {"type": "move", "from": place.source, "index": place.index, "to": place.to}
            if held != card:
                there = "no face-up card" if held is None else CODE[held]
                reason = f"the hint names {place.card}, but there lies {there}"
                raise NotationError(number, "wrong_card", reason, column)
        elif match["hdeal"] is not None:
            move = {"type": "deal"}
        return events.Hinted(move=move, source=match["chose"])

    def time(self, delta: str | None, number: int, column: int) -> dt.datetime | None:
        """The time of an event whose head ends with ``delta`` (or nothing): every event has
        one, after a ``Created`` tag, or none has."""
        timed = delta is not None
        if self.timed is None:
            self.timed = timed
        if timed != self.timed:
            raise NotationError(number, "bad_time", "every event has its time, or none", column)
        if delta is None:
            return None
        if self.clock is None:
            raise NotationError(number, "bad_time", "times need the Created tag", column)
        try:
            self.clock = self.clock + dt.timedelta(milliseconds=int(delta))
        except OverflowError:
            raise NotationError(number, "bad_time", "a time beyond the year 9999", column) from None
        return self.clock

    def end(self, word: str, number: int, column: int) -> Transcript:
        """The result (``=won``) ends the moves: it, the tags and the replay must agree."""
        if self.moderation is not None or self.expect == "moderator":
            raise NotationError(number, "syntax", "a string must come here", column)
        ending = syntax.END.fullmatch(word)
        result = None if ending is None else ending["result"]
        if result not in engine.STATUSES:
            raise NotationError(number, "syntax", f"{word} is not a result", column)
        status, header = self.state.status, self.header
        if result != status:
            reason = f"the moves leave the game {status}, not {result}"
            raise NotationError(number, "wrong_result", reason, column)
        if header.result != status:
            header.fail("Result", "wrong_result", f"the moves leave the game {status}")
        if header.score is not None and header.score != self.state.score:
            header.fail("Score", "wrong_result", f"the moves score {self.state.score}")
        finished = header.time("Finished")
        if finished is not None and status == engine.PLAYING:
            header.fail("Finished", "wrong_result", "the game is still playing")
        if finished is not None and self.timed and finished != self.finished_at:
            header.fail("Finished", "wrong_result", "the game ends at another time")
        self.entries.append(self.last)
        return Transcript(tuple(self.entries), header.game_id, header.player)

    def truncated(self, number: int) -> None:
        """Refuse a game whose moves stop before its result (a new game, or the text's end,
        at line ``number``)."""
        cut = "in a comment" if self.comment is not None else "before its result"
        reason = f"the game that begins at line {self.header.tags['Scorpion'][1]} stops {cut}"
        raise NotationError(number, "truncated", reason)


def _nothing_after(text: str, position: int, number: int) -> None:
    """Only blanks and a ``;`` comment may follow a game's result on its line."""
    rest = text[position:].lstrip(" \t")
    if rest and not rest.startswith(";"):
        raise NotationError(
            number, "syntax", "nothing follows a game's result", len(text) - len(rest) + 1
        )
