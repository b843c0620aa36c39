"""The search behind :func:`games.engine.solver.solve`: a depth-first search over positions
with a transposition table, on a compact copy of the rules.

A position here is a tuple of columns, each a ``bytes``: the face-down count, then the
cards bottom to top. Its moves and their effects follow games/engine/game.py exactly (the
tests compare both on thousands of positions); only what cannot change the answer is
left out. Every sound reduction, and why it is sound (docs/solvability.md names them
the same way):

1. **Columns are interchangeable.** Nothing in the rules depends on a column's number
   except the deal, whose cards land on the ``reserve_to`` columns in order, and the order
   in which runs leave (which does not matter for winning). So the transposition key
   lists the reserve's columns in order while the reserve is undealt and sorts every
   other column; once the reserve is gone (or in a ruleset without one) it sorts them
   all. Cells are sorted likewise. Two positions with one key have the same future up to
   renumbering columns, so one of them is searched. The two copies of a card (``double``)
   are one value, so positions that differ only in which copy lies where are one key.
2. **One empty column stands for all of its kind.** A card moved into an empty column is
   sent to one empty column outside the reserve's, and to each empty column of the
   reserve's (where a different card will land): the others give the same key.
3. **A whole column into an empty one** only renumbers columns; it is tried only before
   the deal and only when it changes which column the reserve lands on, or (where runs
   leave from the destination) when the column is one complete run, which the move takes
   off the table.
4. **The repetition rule** (``traditional``, ``open``) needs no history. In those rulesets
   (one deck, same suit, a King only on an empty column) every move that counts raises a
   measure that never falls: the same-suit pairs that sit on each other (a card can only
   leave its successor for another copy of it, and there is one deck), the Kings at the
   bottom of a column (a King can only go into an empty column, at its bottom), and the
   reserve dealt. So a move that counts always leads to a position not yet on the line of
   play, and "stuck" (the deal's lock, and ``traditional``'s loss) is a property of the
   position alone: no move but whole-column ones. Whole-column moves after the deal only
   renumber columns, so ``traditional``'s loss and ``open``'s blocked dead end are the same
   thing to the search.

5. **Safe joins** (one deck, same suit, a King only into an empty column: every ruleset
   but ``easy``, ``wasp`` and ``double``). Once no deal can come before it (the reserve is
   dealt or absent, or the deal waits until no move is possible, by which time the join
   must have been made), putting a card X onto its successor X+1 loses nothing when the
   column of X+1 is *anchored*: its face-up cards each sit on their successor and the
   lowest is a King or has its successor face-down beneath it, so no card at or under
   X+1 can ever move except a King carrying all of them into an empty column. Then any
   winning line can be replayed after the join (each of its moves is still legal, the
   pile of X riding on X+1, and its own join becomes no move at all), one move shorter.
   A card played from a cell onto its successor is safe the same way, with no condition:
   nothing is ever put on a card in a cell. The search then tries that move alone. The
   condition on X+1's column matters: without it, a card under X+1 may need to go onto a
   card of the pile that the join buried above it, and the join throws the win away.
   The join is just as safe, whatever X+1's column holds, when the pile on X is the rest
   of its suit in order, X-1 down to the Ace (a *tail*). Until X joins X+1 that pile
   cannot change: nothing is put on an Ace, and its cards but X sit on their successors,
   so none leaves it. Replayed after the join, a move that carries X+1 carries the tail
   too and is still legal, as its target is never in the tail (a card whose successor is
   in the tail is in the tail itself); a move from under X carries less; and
   nothing but X ever lands on X+1. A run the join completes leaves at once instead of
   at the join: its King's later move into an empty column becomes no move at all, and
   the replay has every empty column the original has.

6. **Stranded cards** (every ruleset). To win, every card not on its same-suit successor
   must at some time leave the card it sits on, every face-down card needs the card on it
   gone, and every King above another card must go too. What a card's first departure
   needs is all necessary (the card on it gone if it is face-down; a copy of a card it may
   go onto with the card on that copy gone first; for a King, an empty column), so the
   *least* set of cards closed under those conditions holds every card that ever departs
   in any line of play, and a card that must leave outside it proves the position lost.
   The conditions and the proof are in :mod:`.departures`. It replaced two earlier checks,
   both special cases of it: *locks* (a cycle of cards each of which must leave before the
   next can) and *frozen cards* (each with every place it may go under another that cannot
   move). On seeds 0-1999 as dealt it finds 1,723 ``classic`` deals lost against 1,424 for
   those two, 36 ``double`` deals against 19, 57 ``wasp`` and 1 ``easy`` deal against none.
7. **Two copies, one place** (``double``). The same closure, computed with one card held
   in place, holds every card that can depart before it. When both copies of a card must
   leave and one copy of their successor stays covered until both have departed, the
   first copy to leave takes the other copy of the successor, and it can leave that only
   for the covered one or with its run: the second copy never departs, and the position
   is lost (:mod:`.departures`). It decides 11 of the 21 ``double`` deals of seeds
   0-1999 that 1,500,000 nodes left undecided, as dealt.

   Moves can strand a card too (a card laid on the last free copy of what another needs,
   a run that leaves with a copy), so where a card has several places (``easy``,
   ``double``) every position the search visits is checked for stranded cards, and in
   ``double`` for two copies with one place, which costs about 0.1 ms a position (0.3 ms
   with the second) and pays many times over: on 154 ``double`` deals undecided at
   100,000 nodes without the stranded-card check, 129 are won within 100,000
   nodes with it, as probes no longer spend their nodes below lost positions. Elsewhere
   only the root and the positions right after the deal are checked (in one-place
   rulesets the deal strands a card far more often than a move does; the hints, which
   search many small positions, keep their speed).

Nothing else is pruned: every other legal move is searched. Moves are only *ordered*
(runs that leave first, then cards turned up, columns emptied, builds, and the deal last;
a probe's order is jittered within that, see ``jitter``). A focused probe (``focus``,
:meth:`Search.focused`) does leave moves out, which is why its end is never taken for a
proof (games.engine.solver).
"""

from __future__ import annotations

import random
from typing import Literal

from ..actions import Action, CellMove, Deal, Move
from ..cards import RUNS
from ..rules import Ruleset
from ..state import State
from . import limits
from .departures import lost_as_it_stands

#: ``(kind, a, b, c)``: a move ``(0, source, index, to)``, a cell move ``(1, cell, to, 0)``
#: or the deal ``(2, 0, 0, 0)``; columns and cells 0-based.
Step = tuple[int, int, int, int]
Columns = tuple[bytes, ...]
Cells = tuple[int, ...]  # a card, or -1 for an empty cell
Verdict = Literal["won", "lost", "unknown"]
#: What :meth:`Search.run` answers: the verdict, the line (when won) and the nodes.
Decided = tuple[Verdict, tuple[Action, ...], int]

_NO_CARD = -1
_IN_CELL = 64
_NOWHERE = 255
_KINGS = (12, 25, 38, 51)
_RUN_BYTES = tuple(bytes(run) for run in RUNS)
#: A card and every lower card of its suit above it, in order, down to the Ace.
_RUN_TAILS = frozenset(run[k:] for run in _RUN_BYTES for k in range(13))
#: A column that holds one run, face-up, and nothing else.
_RUN_COLUMNS = frozenset(b"\x00" + run for run in _RUN_BYTES)
_SAME_SUIT_TARGETS: tuple[tuple[int, ...], ...] = tuple(
    (card + 1,) if card % 13 != 12 else () for card in range(52)
)
_ANY_SUIT_TARGETS: tuple[tuple[int, ...], ...] = tuple(
    tuple(suit * 13 + card % 13 + 1 for suit in range(4)) if card % 13 != 12 else ()
    for card in range(52)
)

# Move ordering: higher first.
_P_RUN = 1000
_P_FLIP = 100
_P_EMPTIES = 40
_P_BUILD = 10
_P_KING = 5
_P_DEAL = -1
_P_BREAKS = -50
#: A probe's random part of a priority: enough to reorder builds, Kings, other moves and
#: the deal among themselves, not to put them before a column emptied, a card turned up or
#: a run that leaves (measured on easy seeds 20-49: 28 won with 15, 23 with 30, 25 with 8).
_JITTER = 15


class Child:
    """A position reached by ``steps`` from its parent, and how promising it looks."""

    __slots__ = (
        "cells",
        "columns",
        "dealt",
        "landed",
        "priority",
        "removed",
        "steps",
        "where",
        "won",
    )

    def __init__(
        self,
        steps: tuple[Step, ...],
        columns: Columns,
        cells: Cells,
        dealt: bool,
        removed: int,
        won: bool,
        priority: int,
        where: bytes = b"",
    ) -> None:
        self.steps = steps
        self.columns = columns
        self.cells = cells
        self.dealt = dealt
        self.removed = removed
        self.won = won
        self.priority = priority
        #: Where each card is (one deck only): its column, ``_IN_CELL + n`` for cell n, or
        #: ``_NOWHERE`` (the reserve, or gone); worked out by :meth:`Search.locate` when
        #: the position is expanded, as most children are never visited.
        self.where = where
        #: ``(parent's where, cards moved, column they landed on)`` when a move made this
        #: position and no run left, so that :attr:`where` is the parent's, updated.
        self.landed: tuple[bytes, bytes, int] | None = None


class Search:
    """A search from one state; :meth:`run` decides it within a node budget."""

    def __init__(
        self,
        rules: Ruleset,
        state: State,
        *,
        safe_joins: bool = True,
        jitter: random.Random | None = None,
        focus: bool = False,
    ) -> None:
        self.rules = rules
        #: A probe's random source (shortcut-free: it only reorders moves), or None.
        self.jitter = jitter
        #: Whether this is a focused probe (:meth:`focused`; any-suit building only).
        self.focus = focus and not rules.same_suit
        # What :meth:`run` keeps between calls: the open lines, the keys seen, the line to
        # the current position and the positions counted; ``stack`` is None until it starts.
        self.stack: list[tuple[list[Child], int, int]] | None = None
        self.seen: set[bytes] | None = None
        self.path: list[Step] = []
        self.nodes = 0
        self.decided: Decided | None = None
        self.targets = _SAME_SUIT_TARGETS if rules.same_suit else _ANY_SUIT_TARGETS
        self.king_only = rules.king_only_on_empty
        self.whole_ok = rules.whole_column_to_empty
        self.mode = rules.sequences
        self.need = rules.sequences_to_win
        self.any_time = rules.deal_any_time
        self.reserve = tuple(state.reserve)
        self.reserve_to = rules.reserve_to
        count = rules.column_count
        self.reserve_columns = frozenset(rules.reserve_to)
        self.other_columns = tuple(c for c in range(count) if c not in self.reserve_columns)
        self.has_cells = bool(rules.cells)
        # One deck and same-suit building: each card has one place to go, found through
        # ``Child.where``. Safe joins hold where, besides, only Kings go into empty columns.
        self.one_target = rules.decks == 1 and rules.same_suit
        self.one_place = self.one_target and rules.king_only_on_empty
        self.two_decks = rules.decks == 2
        self.joins_safe = safe_joins and self.one_place
        # Stranded cards: at the root and after the deal, or where a card has several places,
        # at every position visited.
        self.strands_checked = safe_joins
        self.strands_everywhere = safe_joins and not self.one_target
        self.anchored_cache: dict[bytes, bool] = {}
        if rules.repeats_are_not_moves:
            # The repetition rule above holds only for these rules.
            assert rules.same_suit and rules.decks == 1 and rules.king_only_on_empty
        columns: Columns = tuple(
            bytes((down,)) + bytes(cards)
            for down, cards in zip(state.down, state.columns, strict=True)
        )
        cells: Cells = tuple(_NO_CARD if c is None else c for c in state.cells)
        removed = len(state.removed)
        self.root = Child((), columns, cells, not state.reserve, removed, False, 0)
        if self.one_target:
            self.root.where = _places(list(columns), cells)
        self.root.won = self.won(list(columns), removed)
        # Where every column is checked after each move, a move need check only the two it
        # changed, once every column has been: the engine's positions all have, but a
        # position made by hand may hold a run that its next move removes.
        self.settled = self.mode != "all" or not self.settle(list(columns), range(count))

    # --- the position's key ----------------------------------------------------------

    def key(self, columns: Columns, cells: Cells, dealt: bool) -> bytes:
        """The transposition key: equal keys, equal futures (interchangeable columns)."""
        if dealt or not self.reserve_to:
            key = b"\xff".join(sorted(columns))
        else:
            key = (
                b"\xfe".join([columns[c] for c in self.reserve_to])
                + b"\xfd"
                + b"\xff".join(sorted([columns[c] for c in self.other_columns]))
            )
        if self.has_cells:
            key += b"\xfc" + bytes(sorted(c for c in cells if c >= 0))
        return key

    # --- effects -----------------------------------------------------------------------

    def settle(self, columns: list[bytes], touched: tuple[int, ...] | range) -> int:
        """The sequence check on ``touched`` columns; how many runs left."""
        runs = 0
        for c in touched:
            col = columns[c]
            while len(col) - 1 - col[0] >= 13 and col[-1] % 13 == 0:
                if col[-13:] != _RUN_BYTES[col[-1] // 13]:
                    break
                col = col[:-13]
                runs += 1
                down = col[0]
                if down and len(col) - 1 == down:
                    col = bytes((down - 1,)) + col[1:]
            columns[c] = col
        return runs

    def won(self, columns: list[bytes], removed: int) -> bool:
        if self.mode != "stay":
            return removed >= self.need
        for col in columns:
            if len(col) == 1:
                continue
            if len(col) != 14 or col[0] or col[1:] != _RUN_BYTES[col[1] // 13]:
                return False
        return True

    # --- successors --------------------------------------------------------------------

    def moves(self, node: Child) -> tuple[list[Step], bool]:
        """The moves worth searching (one empty column for all; whole-column moves only where
        they matter), and whether any move counts."""
        if self.one_target:
            return self.one_target_moves(node)
        columns, cells, dealt = node.columns, node.cells, node.dealt
        targets = self.targets
        tops: dict[int, list[int]] = {}
        empty_reserve: list[int] = []
        empty_other = -1
        before_deal = not dealt and bool(self.reserve_to)
        reserve_columns = self.reserve_columns
        for c, col in enumerate(columns):
            if len(col) > 1:
                top = col[-1]
                if top in tops:
                    tops[top].append(c)
                else:
                    tops[top] = [c]
            elif before_deal and c in reserve_columns:
                empty_reserve.append(c)
            elif empty_other < 0:
                empty_other = c
        empties = empty_reserve + [empty_other] if empty_other >= 0 else empty_reserve
        steps: list[Step] = []
        progress = False
        king_only = self.king_only
        for s, col in enumerate(columns):
            length = len(col) - 1
            for i in range(col[0], length):
                card = col[1 + i]
                for target in targets[card]:
                    for t in tops.get(target, ()):
                        if t != s:
                            steps.append((0, s, i, t))
                            progress = True
                if empties and (not king_only or card % 13 == 12):
                    if i:
                        for t in empties:
                            steps.append((0, s, i, t))
                        progress = True
                    elif self.whole_ok and self.mode == "destination" and col in _RUN_COLUMNS:
                        # A whole column that is one run: the move takes it off the table.
                        steps.append((0, s, i, empties[0]))
                        progress = True
                    elif self.whole_ok and before_deal:
                        # A whole column: only where it changes the reserve's landing.
                        for t in empty_reserve:
                            if t != s:
                                steps.append((0, s, i, t))
                        if s in reserve_columns and empty_other >= 0:
                            steps.append((0, s, i, empty_other))
        for n, card in enumerate(cells):
            if card < 0:
                continue
            for target in targets[card]:
                for t in tops.get(target, ()):
                    steps.append((1, n, t, 0))
                    progress = True
            if empties and (not king_only or card % 13 == 12):
                for t in empties:
                    steps.append((1, n, t, 0))
                progress = True
        if self.focus:
            steps = self.focused(columns, steps)
        return steps, progress

    def focused(self, columns: Columns, steps: list[Step]) -> list[Step]:
        """A focused probe's moves: a card goes onto a card of another suit only to turn up
        a card, to empty a column, or to uncover a card whose own predecessor lies face-up
        in another column, ready to join it. Not a shortcut: it throws wins away, so such
        a probe never proves a position lost."""
        up: dict[int, int] = {}
        for c, col in enumerate(columns):
            for card in col[1 + col[0] :]:
                up[card] = c
        kept = []
        for step in steps:
            kind, s, i, t = step
            if kind == 0:
                src = columns[s]
                dest = columns[t]
                card = src[1 + i]
                if len(dest) > 1 and dest[-1] != card + 1 and i != src[0] and i:
                    under = src[i]
                    if not (under % 13 and up.get(under - 1, s) != s):
                        continue
            kept.append(step)
        return kept

    def one_target_moves(self, node: Child) -> tuple[list[Step], bool]:
        """:meth:`moves` where every card has one place to go (one deck, same suit): the
        predecessor of each column's top, found through ``node.where``, and the cards that
        can go into an empty column (the Kings, or in ``wasp`` every face-up card, in the
        order :meth:`moves` gives, so that both search the same way)."""
        columns = node.columns
        where = node.where or self.locate(node)
        before_deal = not node.dealt and bool(self.reserve_to)
        reserve_columns = self.reserve_columns
        steps: list[Step] = []
        empty_reserve: list[int] = []
        empty_other = -1
        for t, col in enumerate(columns):
            if len(col) > 1:
                top = col[-1]
                if top % 13:
                    c = where[top - 1]
                    if c < _IN_CELL:
                        if c != t:
                            src = columns[c]
                            i = src.index(top - 1, 1) - 1
                            if i >= src[0]:
                                steps.append((0, c, i, t))
                    elif c != _NOWHERE:
                        steps.append((1, c - _IN_CELL, t, 0))
            elif before_deal and t in reserve_columns:
                empty_reserve.append(t)
            elif empty_other < 0:
                empty_other = t
        progress = bool(steps)
        if empty_other >= 0 or empty_reserve:
            empties = empty_reserve + [empty_other] if empty_other >= 0 else empty_reserve
            # Where each card that may go into an empty column is: (column, index), or
            # (_IN_CELL + cell, 0); in the order of _KINGS, or of the columns in wasp.
            movers: list[tuple[int, int]] = []
            if self.king_only:
                for king in _KINGS:
                    c = where[king]
                    if c < _IN_CELL:
                        i = columns[c].index(king, 1) - 1
                        if i >= columns[c][0]:
                            movers.append((c, i))
                    elif c != _NOWHERE:
                        movers.append((c, 0))
            else:
                for c, col in enumerate(columns):
                    movers.extend((c, i) for i in range(col[0], len(col) - 1))
                movers.extend((_IN_CELL + n, 0) for n, card in enumerate(node.cells) if card >= 0)
            for c, i in movers:
                if c >= _IN_CELL:
                    steps.extend((1, c - _IN_CELL, t, 0) for t in empties)
                    progress = True
                    continue
                col = columns[c]
                if i:
                    steps.extend((0, c, i, t) for t in empties)
                    progress = True
                elif self.whole_ok and self.mode == "destination" and col in _RUN_COLUMNS:
                    steps.append((0, c, 0, empties[0]))
                    progress = True
                elif self.whole_ok and before_deal:
                    steps.extend((0, c, 0, t) for t in empty_reserve if t != c)
                    if c in reserve_columns and empty_other >= 0:
                        steps.append((0, c, 0, empty_other))
        if not self.king_only:
            # :meth:`moves`' order (by source, a build before the empty columns), so that
            # both search alike.
            steps.sort(
                key=lambda step: (
                    step[:3] if step[0] == 0 else step[:2],
                    len(columns[step[3] if step[0] == 0 else step[2]]) == 1,
                )
            )
        return steps, progress

    def anchored(self, col: bytes) -> bool:
        """Whether no face-up card of ``col`` can ever move but with the whole face-up
        part (a King heading it into an empty column): its face-up cards each sit on
        their successor, and the lowest is a King or has its successor face-down below."""
        known = self.anchored_cache.get(col)
        if known is not None:
            return known
        down = col[0]
        answer = True
        for j in range(2 + down, len(col)):
            card = col[j]
            if card % 13 == 12 or col[j - 1] != card + 1:
                answer = False
                break
        if answer:
            low = col[1 + down]
            answer = low % 13 == 12 or (low + 1) in col[1 : 1 + down]
        self.anchored_cache[col] = answer
        return answer

    def children(self, node: Child) -> list[Child]:
        """Every successor worth searching, most promising first; a safe join alone
        (safe joins) when there is one, and no deal that strands a card (stranded cards)."""
        columns = node.columns
        steps, progress = self.moves(node)
        if self.joins_safe and (node.dealt or not self.any_time):
            for step in steps:
                if step[0] == 1:
                    if len(columns[step[2]]) > 1:
                        return [self.play(node, step)]
                    continue
                dest = columns[step[3]]
                if len(dest) > 1 and (
                    self.anchored(dest) or columns[step[1]][1 + step[2] :] in _RUN_TAILS
                ):
                    return [self.play(node, step)]
        kids = [self.play(node, step) for step in steps]
        if not node.dealt and self.reserve and (self.any_time or not progress):
            dealt = self.deal(node)
            if not (
                self.strands_checked
                and not self.strands_everywhere
                and self.stranded(dealt.columns, self.free(dealt))
            ):
                kids.append(dealt)
        jitter = self.jitter
        if jitter is None:
            kids.sort(key=_priority, reverse=True)
        else:
            noise = jitter.random
            kids.sort(key=lambda kid: kid.priority + noise() * _JITTER, reverse=True)
        return kids

    def play(self, node: Child, step: Step) -> Child:
        """The child after ``step``; the hot path of the search, hence written flat."""
        columns = node.columns
        cells = node.cells
        kind, a, b, t = step
        new = list(columns)
        if kind == 0:
            src = columns[a]
            pile = src[1 + b :]
            if not b:
                rest = src[:1]
                priority = _P_EMPTIES
            elif b == src[0]:
                rest = bytes((b - 1,)) + src[1 : 1 + b]
                priority = _P_FLIP
            else:
                rest = src[: 1 + b]
                low = pile[0]
                priority = _P_BREAKS if rest[-1] == low + 1 and low % 13 != 12 else 0
            new[a] = rest
            dest = columns[t]
            if len(dest) > 1:
                if dest[-1] // 13 == pile[0] // 13:
                    priority += _P_BUILD
            else:
                priority += _P_KING
        else:
            pile = bytes((cells[a],))
            t = b
            dest = columns[t]
            cells = cells[:a] + (_NO_CARD,) + cells[a + 1 :]
            priority = _P_EMPTIES
        landed = dest + pile
        new[t] = landed
        mode = self.mode
        runs = 0
        if mode == "destination":
            # Only a column that ends in an Ace over 13 face-up cards can lose a run.
            if landed[-1] % 13 == 0 and len(landed) - 1 - landed[0] >= 13:
                runs = self.settle(new, (t,))
        elif mode == "all" and not self.settled:
            runs = self.settle(new, range(len(new)))
        elif mode == "all":
            # Every column is checked, but only the two this move changed can have a run on
            # top: the others were checked after the move that last changed them.
            if landed[-1] % 13 == 0 and len(landed) - 1 - landed[0] >= 13:
                runs = self.settle(new, (t,))
            if kind == 0:
                rest = new[a]
                if rest[-1] % 13 == 0 and len(rest) - 1 - rest[0] >= 13:
                    runs += self.settle(new, (a,))
        removed = node.removed + runs
        if runs:
            priority += runs * _P_RUN
        won = removed >= self.need if mode != "stay" else self.won(new, removed)
        child = Child((step,), tuple(new), cells, node.dealt, removed, won, priority)
        if self.one_target and not runs:
            child.landed = (node.where, pile, t)
        return child

    def locate(self, node: Child) -> bytes:
        """``node.where``, worked out once the node is expanded."""
        landed = node.landed
        if landed is None:
            node.where = _places(list(node.columns), node.cells)
        else:
            parent, pile, t = landed
            where = bytearray(parent)
            for card in pile:
                where[card] = t
            node.where = bytes(where)
            node.landed = None
        return node.where

    def deal(self, node: Child) -> Child:
        new = list(node.columns)
        for card, c in zip(self.reserve, self.reserve_to, strict=True):
            new[c] = new[c] + bytes((card,))
        if self.mode == "destination":
            runs = self.settle(new, self.reserve_to)
        elif self.mode == "all":
            runs = self.settle(new, range(len(new)))
        else:
            runs = 0
        removed = node.removed + runs
        return Child(
            ((2, 0, 0, 0),),
            tuple(new),
            node.cells,
            True,
            removed,
            self.won(new, removed),
            _P_DEAL + runs * _P_RUN,
        )

    # --- the search --------------------------------------------------------------------

    def run(self, budget: int) -> Decided:
        """``(verdict, line, nodes)`` within ``budget`` distinct positions in all.

        An ``unknown`` search keeps where it stopped: a later call with a larger budget goes
        on from there, and so searches exactly what one call with that budget would."""
        if self.decided is not None:
            return self.decided
        if self.stack is None:
            self.decided = self.start()
            if self.decided is not None:
                return self.decided
        stack = self.stack
        assert stack is not None and self.seen is not None
        seen = self.seen
        path = self.path
        nodes = self.nodes
        key = self.key
        steps = 0
        while stack:
            steps += 1
            if not steps & 127 and limits.passed():
                self.nodes = nodes
                raise limits.Interrupted()
            kids, at, mark = stack[-1]
            if at == len(kids):
                stack.pop()
                continue
            child = kids[at]
            k = key(child.columns, child.cells, child.dealt)
            if k in seen:
                stack[-1] = (kids, at + 1, mark)
                continue
            if nodes >= budget:
                self.nodes = nodes
                return "unknown", (), nodes
            stack[-1] = (kids, at + 1, mark)
            seen.add(k)
            nodes += 1
            del path[mark:]
            path.extend(child.steps)
            if child.won:
                self.nodes = nodes
                won: Decided = "won", tuple(_action(step) for step in path), nodes
                self.decided = won
                return won
            if self.strands_everywhere and self.stranded(child.columns, self.free(child)):
                continue  # lost (stranded cards)
            stack.append((self.children(child), 0, len(path)))
        self.nodes = nodes
        lost: Decided = "lost", (), nodes
        self.decided = lost
        return lost

    def start(self) -> Decided | None:
        """The root's own verdict, if it has one; else the search is set up to run."""
        root = self.root
        self.path = list(root.steps)
        self.nodes = 1
        self.stack = []
        if root.won:
            return "won", tuple(_action(step) for step in self.path), 1
        if self.strands_checked and self.stranded(root.columns, self.free(root)):
            return "lost", (), 1
        self.seen = {self.key(root.columns, root.cells, root.dealt)}
        self.stack.append((self.children(root), 0, len(self.path)))
        return None

    def free(self, node: Child) -> set[int]:
        """The cards of ``node`` that are neither in a column nor gone: the reserve until
        the deal, and the cells."""
        free = set() if node.dealt else set(self.reserve)
        free.update(card for card in node.cells if card >= 0)
        return free

    def stranded(self, columns: Columns, free: set[int]) -> bool:
        """Whether stranded cards, or where there are two decks two copies with one place,
        prove the position lost as it stands (:mod:`.departures`)."""
        return lost_as_it_stands(columns, free, self.targets, self.king_only, self.two_decks)

    def reachable(self) -> set[bytes]:
        """Every key the search reaches from the root, searched to the end (for tests)."""
        root = self.root
        seen = {self.key(root.columns, root.cells, root.dealt)}
        todo = [root]
        while todo:
            node = todo.pop()
            if node.won:
                continue
            for child in self.children(node):
                k = self.key(child.columns, child.cells, child.dealt)
                if k not in seen:
                    seen.add(k)
                    todo.append(child)
        return seen


def _places(columns: list[bytes], cells: Cells) -> bytes:
    """The ``where`` of :class:`Child` for a position of one deck."""
    where = bytearray([_NOWHERE]) * 52
    for c, col in enumerate(columns):
        for card in col[1:]:
            where[card] = c
    for n, card in enumerate(cells):
        if card >= 0:
            where[card] = _IN_CELL + n
    return bytes(where)


def _priority(child: Child) -> int:
    return child.priority


def _action(step: Step) -> Action:
    kind, a, b, c = step
    if kind == 0:
        return Move(source=a + 1, index=b, to=c + 1)
    if kind == 1:
        return CellMove(cell=a + 1, to=b + 1)
    return Deal()
