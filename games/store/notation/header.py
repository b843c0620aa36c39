"""A game's tags (docs/notation.md#tags): read one line at a time, then checked, giving the
``created`` event they describe and the derived tags that the replay must agree with."""

from __future__ import annotations

import datetime as dt
import math
import re
import uuid
from typing import Any, NoReturn

from games import engine
from games.engine.cards import CODE
from games.store import events
from games.store.notation import syntax
from games.store.notation.transcript import NotationError

_INTEGER = re.compile(r"0|[1-9][0-9]{0,15}")
_SCORE = re.compile(r"-?(?:0|[1-9][0-9]{0,9})")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


class Tags:
    """A game's tags as they are read, each with its line."""

    def __init__(self) -> None:
        self.values: dict[str, tuple[str, int]] = {}

    def add(self, number: int, text: str) -> None:
        match = syntax.TAG.fullmatch(text)
        if match is None:
            raise NotationError(number, "syntax", 'not a tag line such as [Rules "classic"]')
        name = match["name"]
        if not self.values and name != "Scorpion":
            raise NotationError(number, "missing_tag", 'a game starts with [Scorpion "1"]')
        if name not in syntax.TAGS:
            raise NotationError(number, "unknown_tag", f"{name} is not a tag of the notation")
        if name in self.values:
            raise NotationError(number, "duplicate_tag", f"a second {name} tag")
        try:
            self.values[name] = (syntax.unquote(match["value"]), number)
        except ValueError:
            raise NotationError(number, "syntax", f"the value of {name} is not a string") from None

    def header(self, number: int) -> Header:
        """The tags checked, the game's moves starting at line ``number``."""
        return Header(self.values, number)


class Header:
    """The tags of a game, checked, and the ``created`` event they describe."""

    def __init__(self, tags: dict[str, tuple[str, int]], number: int) -> None:
        self.tags = tags
        self.number = number
        if tags["Scorpion"][0] != syntax.VERSION:
            self.fail("Scorpion", "bad_tag", f"this reader reads version {syntax.VERSION}")
        for name in syntax.REQUIRED:
            if name not in tags:
                raise NotationError(number, "missing_tag", f"the tags lack {name}")
        self.rules = self.ruleset()
        seed, self.deal = self.cards()
        contest, round_ = self.contest()
        self.player = self.get("Player")
        if self.player == "":
            self.fail("Player", "bad_tag", "a player has a name")
        self.created_at = self.time("Created")
        self.created = events.Created(
            rules=self.rules.name,
            seed=seed,
            deal=tuple(CODE[card] for card in self.deal),
            public=self.choice("Public", {"true": True, "false": False}, default=True),
            challenge=self.matching("Challenge", _DATE, _day),
            engine=engine.ENGINE_VERSION,
            contest=contest,
            round=round_,
            rated="Rated" in tags,
            difficulty=self.difficulty(),
            deal_rating=self.deal_rating(),
        )
        self.game_id = self.matching("Game", None, uuid.UUID)
        self.result = self.choice("Result", {status: status for status in engine.STATUSES})
        self.score = self.matching("Score", _SCORE, int)

    def get(self, name: str) -> str | None:
        found = self.tags.get(name)
        return None if found is None else found[0]

    def fail(self, name: str, code: str, reason: str) -> NoReturn:
        """Refuse the tag ``name`` (on its line; the header's end if it is missing)."""
        line = self.tags[name][1] if name in self.tags else self.number
        raise NotationError(line, code, f"{name}: {reason}")

    def ruleset(self) -> engine.Ruleset:
        engine_version = self.get("Engine")
        if engine_version != str(engine.ENGINE_VERSION):
            self.fail(
                "Engine", "engine_version", f"this reader replays engine {engine.ENGINE_VERSION}"
            )
        rules = engine.RULESETS.get(self.get("Rules") or "")
        if rules is None:
            self.fail("Rules", "unknown_rules", f"the rulesets are {', '.join(engine.RULESETS)}")
        return rules

    def cards(self) -> tuple[int | None, tuple[engine.Card, ...]]:
        """The seed (or ``None``) and the deal of the ``Seed`` and ``Deal`` tags."""
        seed_text, deal_text = self.get("Seed"), self.get("Deal")
        if seed_text is None and deal_text is None:
            raise NotationError(self.number, "missing_tag", "the tags lack Seed or Deal")
        seed = None
        if seed_text is not None:
            if not _INTEGER.fullmatch(seed_text) or int(seed_text) > engine.MAX_SEED:
                self.fail("Seed", "bad_seed", f"a seed is an integer from 0 to {engine.MAX_SEED}")
            seed = int(seed_text)
        if deal_text is None:
            assert seed is not None
            return seed, engine.seeded_deal(self.rules, seed)
        codes = deal_text.split(" ")
        wrong = next((code for code in codes if code not in syntax.CARDS), None)
        if wrong is not None:
            self.fail("Deal", "bad_deal", f"{wrong!r} is not a card code such as TD")
        try:
            deal = engine.check_deal(self.rules, [syntax.CARDS[code] for code in codes])
        except engine.DealError as error:
            self.fail("Deal", "bad_deal", str(error))
        if seed is not None and engine.seeded_deal(self.rules, seed) != deal:
            self.fail("Seed", "bad_seed", f"seed {seed} deals other cards than the Deal tag")
        return seed, deal

    def difficulty(self) -> float | None:
        """A rated game's deal difficulty (the ``Rated`` tag), from 0 to 1."""
        text = self.get("Rated")
        if text is None:
            return None
        try:
            value = float(text)
        except ValueError:
            value = -1.0
        if not 0.0 <= value <= 1.0:
            self.fail("Rated", "bad_tag", "a difficulty from 0 to 1")
        return value

    def deal_rating(self) -> float | None:
        """A rated pool game's first deal rating (the ``DealRating`` tag, with ``Rated``)."""
        text = self.get("DealRating")
        if text is None:
            return None
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if "Rated" not in self.tags or not math.isfinite(value):
            self.fail("DealRating", "bad_tag", "a rated game's deal rating, a number")
        return value

    def contest(self) -> tuple[str | None, int | None]:
        if ("Contest" in self.tags) != ("Round" in self.tags):
            raise NotationError(self.number, "missing_tag", "Contest and Round go together")
        contest = self.matching("Contest", None, uuid.UUID)
        round_ = self.matching("Round", _INTEGER, int)
        if round_ == 0:
            self.fail("Round", "bad_tag", "rounds count from 1")
        return None if contest is None else str(contest), round_

    def choice(self, name: str, values: dict[str, Any], default: Any = None) -> Any:
        text = self.get(name)
        if text is None:
            return default
        if text not in values:
            self.fail(name, "bad_tag", f"one of {', '.join(values)}")
        return values[text]

    def matching(self, name: str, pattern: re.Pattern[str] | None, convert: Any) -> Any:
        """The tag's value converted, if it is given; refused unless it is written exactly
        as ``pattern`` (or, without a pattern, as ``convert`` writes it back)."""
        text = self.get(name)
        if text is None:
            return None
        try:
            value = convert(text)
            if (pattern.fullmatch(text) is None) if pattern else (str(value) != text):
                raise ValueError(text)
        except ValueError:
            self.fail(name, "bad_tag", f"{text!r} is not written as docs/notation.md says")
        return value

    def time(self, name: str) -> dt.datetime | None:
        text = self.get(name)
        if text is None:
            return None
        try:
            return syntax.parse_time(text)
        except ValueError as error:
            self.fail(name, "bad_time", str(error))


def _day(text: str) -> str:
    """``text``, a day (``YYYY-MM-DD``), as it is (:class:`ValueError` if it is none)."""
    dt.date.fromisoformat(text)
    return text
