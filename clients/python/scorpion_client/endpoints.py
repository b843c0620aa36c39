"""Every operation of the REST API (docs/api.md), written once for both clients.

:class:`Endpoints` builds each request as a :class:`Call` and hands it to ``_send``: the
synchronous client answers with the value, the asynchronous one with an awaitable of it.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from scorpion_client._shared import JSON, Call, segment

R = TypeVar("R")


class Endpoints(Generic[R]):
    """The REST operations; ``R`` is what ``_send`` returns (a value, or an awaitable)."""

    def _send(self, call: Call) -> R:
        raise NotImplementedError

    # --- accounts ------------------------------------------------------------------------

    def me(self) -> R:
        """The signed-in account (``GET /auth/me``)."""
        return self._send(Call.get("/auth/me"))

    def player(self, username: str) -> R:
        """A player's public record."""
        return self._send(Call.get(f"/players/{segment(username)}"))

    def player_stats(self, username: str, rules: str) -> R:
        """A player's statistics in one ruleset: games, wins, streaks, times."""
        return self._send(Call.get(f"/players/{segment(username)}/stats/{segment(rules)}"))

    def player_ratings(self, username: str, rules: str | None = None) -> R:
        """A player's rating in each ruleset, or in ``rules`` with its history."""
        tail = f"/{segment(rules)}" if rules is not None else ""
        return self._send(Call.get(f"/players/{segment(username)}/ratings{tail}"))

    def preferences(self) -> R:
        """How the player likes the browser client (``card_size``, ``theme``, ``sound``,
        ``animations``, ``auto_finish``)."""
        return self._send(Call.get("/auth/preferences"))

    def keys(self) -> R:
        """The account's API keys: name, prefix, created, last used and from where."""
        return self._send(Call.get("/auth/keys"))

    def revoke_key(self, key_id: int) -> R:
        """Revoke one of the account's keys (its open sockets close at once)."""
        return self._send(Call.delete(f"/auth/keys/{int(key_id)}"))

    def logout(self) -> R:
        """Sign out: revoke the key this client holds."""
        return self._send(Call.delete("/auth/token"))

    def logout_everywhere(self) -> R:
        """Sign out everywhere: every key, ticket and session of the account ends."""
        return self._send(Call.delete("/auth/keys"))

    def set_email(self, email: str) -> R:
        """Set the account's email address; a verification link is mailed to it."""
        return self._send(Call.post("/auth/email", {"email": email}))

    def request_password_reset(self, email: str) -> R:
        """Mail a password reset link to the account with this address, if there is one
        (the answer is the same either way)."""
        return self._send(Call.post("/auth/password/reset", {"email": email}))

    def my_data(self, format: str = "scorpion") -> R:
        """Every game of the account and its events, as text: ``scorpion`` (the notation,
        docs/notation.md) or ``ndjson`` (a JSON object a line, a game each)."""
        return self._send(Call.text_get("/auth/data", format=format))

    def close_account(self, password: str) -> R:
        """Close the account: its name leaves every page; its games stay public under a
        pseudonym (docs/operations.md)."""
        return self._send(Call.post("/auth/close", {"password": password}))

    # --- rules and games -----------------------------------------------------------------

    def rules(self) -> R:
        """Every ruleset with its parameters and descriptions, and the default."""
        return self._send(Call.get("/rules"))

    def create_game(self, rules: str | None = None, seed: int | None = None, **extra: Any) -> R:
        """A new game of yours (``POST /games``): ``rules``, ``seed`` and any other field
        of docs/api.md#create-a-game (``public``, ``deal``, ``winnable`` …)."""
        body: JSON = {
            **({"rules": rules} if rules is not None else {}),
            **({"seed": seed} if seed is not None else {}),
            **extra,
        }
        return self._send(Call.post("/games", body))

    def games(self, **query: Any) -> R:
        """A page of games (``owner``, ``status``, ``rules``, ``limit``, ``cursor``)."""
        return self._send(Call.get("/games", **query))

    def game(self, game_id: str) -> R:
        """A game as you may see it."""
        return self._send(Call.get(f"/games/{segment(game_id)}"))

    def command(
        self,
        game_id: str,
        command: JSON,
        *,
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> R:
        """Play one command (``{"type": "move", "from": 1, "index": 6, "to": 4}``,
        ``{"type": "deal"}`` …): ``{"event", "game"}``. It carries an Idempotency-Key (a
        fresh one unless given), so the client's retries are applied at most once."""
        call = Call.command(
            game_id, command, expected_version=expected_version, idempotency_key=idempotency_key
        )
        return self._send(call)

    def events(self, game_id: str, after: int = 0) -> R:
        """A page of a game's events after ``after``: ``{"results", "next"}``."""
        return self._send(Call.get(f"/games/{segment(game_id)}/events", after=after))

    def moves(self, game_id: str) -> R:
        """The legal actions of a game now."""
        return self._send(Call.get(f"/games/{segment(game_id)}/moves"))

    def hint(self, game_id: str) -> R:
        """A hint that records nothing (``GET /games/{id}/hint``)."""
        return self._send(Call.get(f"/games/{segment(game_id)}/hint"))

    def take_hint(self, game_id: str) -> R:
        """A hint recorded in the game (``POST /games/{id}/hints``): in a race it counts."""
        return self._send(Call.post(f"/games/{segment(game_id)}/hints"))

    def finish(self, game_id: str) -> R:
        """Once nothing is hidden, the solver's line that wins the game from here:
        ``{"version", "verdict", "line"}``. The client plays each action as a command."""
        return self._send(Call.get(f"/games/{segment(game_id)}/finish"))

    def analysis(self, game_id: str) -> R:
        """A finished game's analysis."""
        return self._send(Call.get(f"/games/{segment(game_id)}/analysis"))

    # --- daily challenges ----------------------------------------------------------------

    def challenge(self, date: str = "today") -> R:
        return self._send(Call.get(f"/challenges/{segment(date)}"))

    def join_challenge(self, date: str = "today") -> R:
        """Your game of the day (made on the first join)."""
        return self._send(Call.post(f"/challenges/{segment(date)}/join"))

    def challenge_standings(self, date: str = "today") -> R:
        return self._send(Call.get(f"/challenges/{segment(date)}/standings"))

    # --- races and arenas ----------------------------------------------------------------

    def create_race(self, **body: Any) -> R:
        """A new race (``rules``, ``deals``, ``countdown`` or ``starts_at``, ``time_limit``)."""
        return self._send(Call.post("/races", body))

    def race(self, race: str) -> R:
        return self._send(Call.get(f"/races/{segment(race)}"))

    def join_race(self, race: str) -> R:
        return self._send(Call.post(f"/races/{segment(race)}/join"))

    def race_deals(self, race: str) -> R:
        """Your games of a running race (dealt on the first ask)."""
        return self._send(Call.post(f"/races/{segment(race)}/games"))

    def race_standings(self, race: str) -> R:
        return self._send(Call.get(f"/races/{segment(race)}/standings"))

    def arenas(self, **query: Any) -> R:
        return self._send(Call.get("/arenas", **query))

    def arena(self, arena: str) -> R:
        return self._send(Call.get(f"/arenas/{segment(arena)}"))

    def play_arena(self, arena: str) -> R:
        """Your next deal of a running arena."""
        return self._send(Call.post(f"/arenas/{segment(arena)}/play"))

    def arena_standings(self, arena: str) -> R:
        return self._send(Call.get(f"/arenas/{segment(arena)}/standings"))

    # --- leaderboards --------------------------------------------------------------------

    def leaderboard(self, scope: str, metric: str, **query: Any) -> R:
        """A leaderboard page (``period``, ``at``, ``limit``, ``cursor``)."""
        return self._send(Call.get(f"/leaderboards/{segment(scope)}/{segment(metric)}", **query))

    # --- puzzles (docs/api.md#puzzles) ---------------------------------------------------

    def next_puzzle(self) -> R:
        """Your rated puzzle (``POST /puzzles/next``): the attempt you are playing, else a
        new one near your puzzle rating. Asking again gives the same attempt."""
        return self._send(Call.post("/puzzles/next", retry=True))

    def puzzle_attempt(self, attempt_id: str) -> R:
        """One of your attempts: what you may see of it now."""
        return self._send(Call.get(f"/puzzles/attempts/{segment(attempt_id)}"))

    def puzzle_move(self, attempt_id: str, move: JSON, *, ply: int | None = None) -> R:
        """Play a move of an attempt (a ``move`` or ``deal`` command, as ``legal`` lists
        them): ``{"verdict", "event", "attempt"}``. With ``ply`` (the moves you know were
        played) a retry is answered as the first send was, so the client may retry it."""
        body = {**move, **({"ply": ply} if ply is not None else {})}
        call = Call.post(
            f"/puzzles/attempts/{segment(attempt_id)}/moves", body, retry=ply is not None
        )
        return self._send(call)

    def give_up_puzzle(self, attempt_id: str) -> R:
        """End an attempt failed, and see its answer."""
        return self._send(Call.post(f"/puzzles/attempts/{segment(attempt_id)}/give-up", retry=True))

    def daily_puzzle(self) -> R:
        """The puzzle of the day, with your attempt at it if you started one."""
        return self._send(Call.get("/puzzles/daily"))

    def play_daily_puzzle(self) -> R:
        """Your attempt at the puzzle of the day (made on the first ask)."""
        return self._send(Call.post("/puzzles/daily", retry=True))

    def streak(self) -> R:
        """Your streak running, and your best."""
        return self._send(Call.get("/puzzles/streak"))

    def play_streak(self) -> R:
        """Go on with Streak: ``{"streak", "attempt"}`` (``attempt`` null once it ended)."""
        return self._send(Call.post("/puzzles/streak", retry=True))

    def puzzle_dashboard(self, username: str) -> R:
        """A player's puzzles: rating, best streak, and each theme, the most failed first."""
        return self._send(Call.get(f"/players/{segment(username)}/puzzles"))

    def puzzle_themes(self) -> R:
        """Every puzzle theme with its name and description in your language."""
        return self._send(Call.get("/puzzles/themes"))

    def puzzle_exports(self) -> R:
        """The monthly exports of the puzzles."""
        return self._send(Call.get("/puzzles/exports"))
