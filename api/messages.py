"""Every human message the API sends, by stable code, translated through Django's i18n.

An error's ``detail`` is ``message(code)`` in the language ``Accept-Language`` asked for
(en, it, es, pt); the code never changes. The rejection codes (docs/rules.md#rejections)
keep the wording of the app the rules come from. Field messages (the lists under
``fields``) are here too.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

#: ``detail`` of every error code the API answers with.
MESSAGES: dict[str, Promise] = {
    # The rejection codes (422), in their order of precedence (docs/rules.md#precedence).
    "game_over": _("The game is over."),
    "bad_column": _("There is no such column or cell."),
    "bad_index": _("There is no card at that position."),
    "same_column": _("A group cannot move onto its own column."),
    "card_face_down": _("A face-down card cannot be moved."),
    "only_king_on_empty": _("Only a King can go onto an empty column."),
    "whole_column_king": _("A King that heads a whole column cannot move to an empty column."),
    "not_same_suit": _("Rule: cards must be of the same suit."),
    "wrong_rank": _("The target card must be exactly one rank higher."),
    "reserve_empty": _("The reserve has already been dealt."),
    "reserve_locked": _("The reserve can be dealt only when no move is possible."),
    "nothing_to_undo": _("There is nothing to undo."),
    "undo_limit": _("Undo cannot reach further back under these rules."),
    # Errors of the API itself.
    "invalid": _("The request is not valid; see fields."),
    "invalid_credentials": _("Wrong username or password."),
    "wrong_password": _("The current password is wrong."),
    "account_required": _(
        "This needs an account: sign up to play rated games, daily challenges, races and "
        "arenas (your games as a guest become your account's)."
    ),
    "link_invalid": _(
        "This link is not valid: it is wrong, was used already, or has expired. Ask for a new one."
    ),
    "not_authenticated": _("Authentication is required: send Authorization: Token <key>."),
    "authentication_failed": _("The credentials sent are not valid."),
    "permission_denied": _("You are not allowed to do this."),
    "not_owner": _("Only the owner of this game can play it."),
    "private_game": _("This game is private."),
    "banned": _("This account is banned."),
    "challenge_in_progress": _(
        "Another player's game of an open daily challenge cannot be seen until it closes."
    ),
    "challenge_closed": _("This daily challenge is over: it can no longer be joined."),
    "contest_in_progress": _(
        "Another player's game of a running race or arena cannot be seen until it ends."
    ),
    "contest_closed": _("This race or arena is over."),
    "contest_not_started": _("This race or arena has not started yet."),
    "race_started": _("This race has started: it can no longer be joined."),
    "not_entrant": _("Only the players who joined this race before its start can play it."),
    "pool_empty": _(
        "No winnable deal of this ruleset is ready for you right now; try again shortly."
    ),
    "rated_with_deal": _(
        "A rated deal is chosen by the server: send rated without a seed or a deal."
    ),
    "rated_no_pool": _("This ruleset has no pool of winnable deals: it cannot be played rated."),
    "winnable_with_deal": _(
        "A winnable deal is chosen by the server: send winnable without a seed or a deal."
    ),
    "solver_busy": _(
        "Too much solver work of yours is running; try again after Retry-After seconds."
    ),
    "solver_throttled": _(
        "You have asked for hints and analyses too often; try again after Retry-After seconds."
    ),
    "solver_overloaded": _(
        "The server's solver is fully busy right now; try again after Retry-After seconds."
    ),
    "challenge_not_ready": _("This day's challenge is still being prepared; try again shortly."),
    "hint_needs_post": _(
        "In a running daily challenge, race or arena your hints count: ask for one with "
        "POST /games/{id}/hints, which records it."
    ),
    "finish_not_ready": _(
        "There is nothing to finish: the game is over, or a card is still face down or in "
        "the reserve."
    ),
    "finish_counts": _(
        "In a running daily challenge, race or arena, or a rated game, the finish is not "
        "offered: it would be help from the solver."
    ),
    "analysis_not_yet": _(
        "The analysis of a game of a daily challenge, race or arena is available once it is over."
    ),
    "game_not_finished": _(
        "The analysis and the notation of a game are available once the game is finished."
    ),
    "no_puzzle": _("There is no puzzle left that you have not seen; new ones come as games end."),
    "puzzle_over": _("This puzzle attempt has ended."),
    "puzzle_moved_on": _(
        "The attempt has moved on: ply is not the number of moves played; see played."
    ),
    "puzzle_no_progress": _(
        "A whole column into an empty one only renumbers the columns: try a move that "
        "changes the position."
    ),
    "puzzle_day_not_ready": _("Today's puzzle is not chosen yet; try again shortly."),
    "not_found": _("Not found."),
    "unknown_scope": _("There is no such leaderboard scope: use daily or a ruleset's name."),
    "unknown_metric": _("There is no such leaderboard for this scope."),
    "method_not_allowed": _("This method is not allowed here."),
    "not_acceptable": _("This resource is only available as application/json."),
    "unsupported_media_type": _("Send the body as application/json."),
    "version_conflict": _("The game has moved on: expected_version is not the current version."),
    "stale_card": _("That card is no longer at that position."),
    "idempotency_key_reused": _("This Idempotency-Key was already used for a different request."),
    "throttled": _("Too many requests; try again later."),
    "too_large": _("The request body is larger than %(limit)d bytes."),
    "unavailable": _("The service is unavailable right now; try again shortly."),
    "server_error": _("Something went wrong on the server."),
}

# Messages under ``fields``.
UNKNOWN_FIELD = _("Unknown field.")
NOT_A_CARD = _("Not a card code (such as AS, TD or 10D).")
NOT_AN_OBJECT = _("The body must be a JSON object.")
MALFORMED_JSON = _("The body is not valid JSON.")
TOO_DEEP = _("The JSON is nested deeper than %(depth)d levels.")
LONE_SURROGATE = _("The JSON holds a lone surrogate (\\uD800 to \\uDFFF), which is not text.")
SEED_OR_DEAL = _("Give a seed or a deal, not both.")
BAD_IDEMPOTENCY_KEY = _("Must be 1 to 255 printable ASCII characters.")
BAD_CURSOR = _("This cursor is not valid.")
BAD_PERIOD_AT = _(
    "Not a period of this kind: YYYY-MM for a month, YYYY-Www for a week, or a day YYYY-MM-DD."
)
COUNTDOWN_OR_START = _("Give a countdown or a start time, not both.")
START_IN_PAST = _("The start is in the past.")
START_TOO_FAR = _("The start is more than %(limit)d seconds away.")
ONE_VALUE = _("Give this parameter once, with a value.")
RESERVED_NAME = _("This name is kept for guests and closed accounts: choose another.")


def message(code: str, **params: Any) -> str:
    """The ``detail`` for ``code`` in the active language (``code`` itself if unknown)."""
    text = MESSAGES.get(code)
    if text is None:
        return code
    return str(text) % params if params else str(text)


def too_large_body(request_id: str | None = None) -> dict[str, Any]:
    """The error body of a request body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (413), the same
    from the transport (``scorpion_server.transport``), the HTTP handler and a view (which
    refuse before the request-id middleware runs, so they pass the ``request_id``)."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    body: dict[str, Any] = {"code": "too_large", "detail": message("too_large", limit=limit)}
    if request_id is not None:
        body["request_id"] = request_id
    return body


#: ``description`` of each ruleset in ``GET /rules`` (docs/api.md#get-rules), by its API name.
RULESET_DESCRIPTIONS: dict[str, Promise] = {
    "classic": _(
        "The standard game: build down in the same suit; only a King, or a group headed by "
        "one, fills an empty column; complete runs leave the tableau; the three reserve cards"
        " may be dealt at any time; up to 100 actions can be undone."
    ),
    "easy": _("As classic, but a card goes onto the next higher card of any suit."),
    "cards4": _(
        "As classic, but complete runs are looked for on every column, a whole column never "
        "moves into an empty one, and undo is unlimited."
    ),
    "traditional": _(
        "The old rules: complete runs stay on the tableau, the reserve may be dealt only when"
        " no move is left, nothing can be undone, and the game is lost when no move is left."
    ),
    "open": _("As traditional, with unlimited undo and no loss when no move is left."),
    "wasp": _(
        "As classic, but any card fills an empty column, complete runs are looked for on "
        "every column, and undo is unlimited."
    ),
    "scorpion2": _("As cards4, with face-down cards in three columns instead of four."),
    "three_blind_mice": _(
        "As cards4, on ten columns with two free cells and no reserve: seven columns of five "
        "face-up cards, three of three face-down cards under two face-up ones."
    ),
    "double": _(
        "As cards4, with two decks on ten columns: eight complete runs win, and the reserve "
        "holds four cards."
    ),
}


#: Why a puzzle's losing move loses (``reason.detail`` of an attempt,
#: docs/puzzles.md#why-a-move-loses), by the reason's code. ``%(card)s`` and the like are
#: cards as players write them (``7♠``).
PUZZLE_REASONS: dict[str, Promise] = {
    "blocked": _("After this move no card can move any more: the game is stuck."),
    "under_it": _(
        "This leaves the %(card)s stuck for good: the %(needs)s it must go onto lies under it, "
        "in column %(column)d."
    ),
    "above_it": _(
        "This leaves the %(card)s stuck for good: the %(needs)s it must go onto lies above it "
        "in column %(column)d, and would always travel with it."
    ),
    "covered": _(
        "This leaves the %(card)s stuck for good: the %(needs)s it must go onto stays buried "
        "under the %(cover)s in column %(at)d, which can never move."
    ),
    "king_no_column": _(
        "This leaves the %(card)s stuck for good: a King can only go into an empty column, "
        "and no column can be emptied any more."
    ),
    "buried": _(
        "This buries the face-down card under the %(card)s in column %(column)d for good: "
        "the %(card)s can never move again."
    ),
    "stuck": _("This leaves the %(card)s stuck for good: it can never reach the %(needs)s."),
    "searched": _(
        "No line of play wins after this move: the solver tried every one, %(nodes)d "
        "positions in all."
    ),
    "gave_up": _("You gave up: the solution is shown."),
}
#: A losing move that wins as the unseen cards lie, but not however they lie.
PUZZLE_HIDDEN = _(
    "This would win as the cards happen to lie, but not however they lie: were the unseen "
    "cards %(cards)s (face-down places column by column, then the reserve), it would lose. "
    "%(why)s"
)

#: Each puzzle theme's name and description (``GET /puzzles/themes``, docs/puzzles.md#themes).
PUZZLE_THEMES: dict[str, tuple[Promise, Promise]] = {
    "only_move": (_("Only move"), _("Exactly one move wins.")),
    "one_move": (_("One move"), _("One move is all the puzzle asks for.")),
    "long": (_("Long"), _("Four moves or more to find.")),
    "win_in_n": (_("Win in N"), _("The moves found win the game.")),
    "free_column": (_("Free a column"), _("The answer empties a column.")),
    "king_to_empty": (_("King to an empty column"), _("A King goes into an empty column.")),
    "reserve_timing": (
        _("The reserve's timing"),
        _("Whether to deal the reserve now or later decides it."),
    ),
    "turn_up": (_("Turn a card up"), _("The answer turns a face-down card up.")),
    "run_home": (_("A run home"), _("The answer completes a run, which leaves the tableau.")),
    "hidden_cards": (
        _("Hidden cards"),
        _("Cards are unseen: the move must win however they lie."),
    ),
}

_SUIT_SIGNS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}


def card_label(code: str) -> str:
    """A card as players write it: ``7♠``, ``10♥``."""
    rank = "10" if code[0] == "T" else code[0]
    return rank + _SUIT_SIGNS[code[1]]


def puzzle_reason(reason: dict[str, Any]) -> str:
    """Why a puzzle's move lost, in the active language."""
    text = PUZZLE_REASONS.get(reason.get("code", ""))
    if text is None:
        return str(reason.get("code", ""))
    params = {
        name: card_label(value) if name in ("card", "needs", "cover") else value
        for name, value in reason.items()
        if name not in ("code", "hidden", "detail")
    }
    why = str(text) % params
    hidden = reason.get("hidden")
    if not hidden:
        return why
    cards = " ".join(card_label(code) for code in hidden)
    return str(PUZZLE_HIDDEN) % {"cards": cards, "why": why}
