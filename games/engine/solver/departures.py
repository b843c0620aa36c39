"""Which cards of a position can ever leave their place: the stranded cards and the two
copies with one place of :mod:`games.engine.solver.search`, which prove a position lost
as it stands.

A card *departs* when it moves itself (the lowest card of the pile it takes along); being
carried by a card beneath it is not a departure, as it still sits on the same card. To win,
every card that is not on its same-suit successor must depart at some time (the *needed*
cards), and so must the card on each face-down card and every King above another card.

**Stranded cards**. What a card's first departure needs is all necessary: the
card on it gone, if it is face-down; for a card other than a King, a copy ``T`` of a card
it may go onto whose own card on top has departed first (and, when ``T`` lies above it in
its own column, some card between the two, or ``T`` would travel with it); a copy in the
reserve or a cell counts as always there; for a King (any card in ``wasp``), an empty
column instead, which needs some column emptied first. The least set of cards closed under
these conditions (:meth:`Departures.closure`) holds every card that departs in any line of
play: along the line, each departure's conditions were met by departures before it. A
needed card outside it never departs, and the position is lost.

The same argument holds up to any moment of a line: the cards that departed before a card
``v`` first did form a set closed under the conditions that does not hold ``v``. So the
closure computed with ``v`` held in place (never departing) holds every card that can
depart before ``v``; a card outside it departs, if ever, after ``v``.

**Two copies, one place** (two decks). Let ``a`` and ``b`` be the two copies of
a card other than a King, both in columns and both needed, and let ``T'``, one copy of
their successor, be covered by a card ``c`` that departs only after both ``a`` and ``b``
have (``c`` is outside the closure with ``a`` held and outside the one with ``b`` held, or
outside one of them and after the other copy by the same token). Then the first of the two
copies to depart, say ``a``, finds ``T'`` covered and goes onto the other copy ``T``. From
there it can depart only onto ``T'``, still covered until ``b`` has departed, or leave the
table with its run, which takes ``T`` along. So ``T`` is never free again before ``b``
departs, ``T'`` never is, and ``b`` never departs: the position is lost. (A copy of the
card sitting on ``T'`` itself is not needed there, so it is never such a pair.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

#: A card's place in :class:`Departures`: its index, counting through the columns in
#: order, bottom to top.
Index = int
#: ``(cover, low, high)``: a copy of a card it may go onto, with ``cover`` the card on it
#: (or -1) and ``low:high`` the cards between the two when the copy lies above it in its
#: own column (else ``low == high``).
Way = tuple[int, int, int]
#: ``(card, the card on it when face-down or -1, may go into an empty column, ways)``, the
#: ways ``None`` when one needs nothing (a copy in the reserve or a cell, or a King's run
#: completed on it).
Entry = tuple[Index, int, bool, list[Way] | None]

#: The order of a card that never joins the closure.
NEVER = 1 << 30


class Departures:
    """A position's cards, what each one's first departure needs, and the closures."""

    __slots__ = (
        "any_empty",
        "covers",
        "emptiers",
        "entries",
        "missing",
        "needed",
        "places",
        "total",
        "why",
    )

    def __init__(
        self,
        columns: Sequence[bytes],
        free: set[int],
        targets: Sequence[tuple[int, ...]],
        king_only: bool,
    ) -> None:
        offsets: list[int] = []
        total = 0
        for col in columns:
            offsets.append(total)
            total += len(col) - 1
        self.total = total
        places: dict[int, list[Index]] = {}
        #: The card on each card, or -1 for a column's top.
        covers: list[int] = []
        for c, col in enumerate(columns):
            base = offsets[c]
            n = len(col) - 1
            covers.extend(range(base + 1, base + n))
            if n:
                covers.append(-1)
            for j, card in enumerate(col[1:]):
                if card in places:
                    places[card].append(base + j)
                else:
                    places[card] = [base + j]
        self.places = places
        self.covers = covers
        needed = bytearray(total)
        missing = 0
        entries: list[Entry] = []
        any_empty = False
        for c, col in enumerate(columns):
            base = offsets[c]
            n = len(col) - 1
            if not n:
                any_empty = True
                continue
            down = col[0]
            top = base + n
            for j in reversed(range(n)):  # top first: the first pass settles more
                i = base + j
                card = col[1 + j]
                up = i + 1 if j < down else -1
                if up >= 0 and not needed[up]:
                    needed[up] = 1
                    missing += 1
                if card % 13 == 12:
                    if not j:
                        continue
                    if not needed[i]:
                        needed[i] = 1
                        missing += 1
                    # Its run completed on it: nothing, or its Queen, or the card on it gone.
                    done = j + 1 == n or col[2 + j] == card - 1
                    entries.append((i, up, True, None if done else [(i + 1, 0, 0)]))
                    continue
                if (not j or col[j] != card + 1) and not needed[i]:
                    needed[i] = 1
                    missing += 1
                ways: list[Way] = []
                anyway = False
                for t in targets[card]:
                    if t in free:
                        anyway = True
                        break
                    for ti in places.get(t, ()):
                        if ti == i - 1 and j:
                            continue  # the card it sits on
                        cover = covers[ti]
                        ways.append((cover, i + 1, ti + 1) if i < ti < top else (cover, 0, 0))
                entries.append((i, up, not king_only, None if anyway else ways))
        self.needed = needed
        self.missing = missing
        self.entries = entries
        # A column can be emptied once one of ``emptiers`` departs: a bottom card, or the
        # card on a King at the bottom (a run completed on it).
        emptiers: set[Index] = set()
        for c, col in enumerate(columns):
            if len(col) == 1:
                continue
            bottom = col[1]
            if bottom % 13 != 12:
                emptiers.add(offsets[c])
            elif len(col) == 2 or col[2] == bottom - 1:
                any_empty = True
            else:
                emptiers.add(offsets[c] + 1)
        self.emptiers = emptiers
        self.any_empty = any_empty
        #: For each card in the closure, the cards whose departures let it in (its way in):
        #: filled in by :meth:`closure`.
        self.why: list[tuple[Index, ...]] = []

    def closure(self, *, until_needed: bool = False) -> list[int]:
        """The least set of cards closed under the conditions: for each card, the step at
        which it joined, or :data:`NEVER`; and in :attr:`why`, the cards whose departures
        let it join (its way in).

        With ``until_needed`` it stops as soon as every needed card has joined (the rest
        of the order is then incomplete)."""
        order = [NEVER] * self.total
        nothing: tuple[Index, ...] = ()
        self.why = [nothing] * self.total
        if until_needed and not self.missing:
            return order
        self._grow(bytearray(self.total), order, self.entries, self.any_empty, until_needed)
        return order

    def without(self, order: list[int], held: Index) -> bytearray:
        """The least set with ``held`` never departing (1 for each card in it), given the
        whole closure ``order``: the cards that joined it before ``held`` are in it (their
        ways did not pass through ``held``), and the rest are looked at again."""
        limit = order[held]
        leaves = bytearray(self.total)
        rest: list[Entry] = []
        for entry in self.entries:
            i = entry[0]
            if order[i] < limit:
                leaves[i] = 1
            elif i != held:
                rest.append(entry)
        any_empty = self.any_empty or any(order[i] < limit for i in self.emptiers)
        self._grow(leaves, None, rest, any_empty, False)
        return leaves

    def _grow(
        self,
        leaves: bytearray,
        order: list[int] | None,
        entries: list[Entry],
        any_empty: bool,
        until_needed: bool,
    ) -> None:
        """Add to ``leaves`` every card of ``entries`` that the conditions let in, and to
        ``order`` and :attr:`why` (when ``order`` is given) when and by which way each
        joined."""
        needed = self.needed
        emptiers = self.emptiers
        missing = self.missing
        why = self.why
        step = 0
        #: The card whose departure first emptied a column, if one had to.
        emptied: tuple[int, ...] = ()

        def way_in(entry: Entry) -> tuple[int, ...] | None:
            """The cards whose departures let ``entry``'s card depart, or None."""
            _, up, to_empty, exits = entry
            if up >= 0 and not leaves[up]:
                return None
            first = (up,) if up >= 0 else ()
            if exits is None:
                return first
            if to_empty and any_empty:
                return first + emptied
            for cover, low, high in exits:
                if cover >= 0 and not leaves[cover]:
                    continue
                if low == high:
                    return first + (cover,) if cover >= 0 else first
                k = leaves.find(1, low, high)
                if k >= 0:
                    return first + (cover, k) if cover >= 0 else first + (k,)
            return None

        # One pass over every card first (most can leave at once), then only the cards
        # left, each looked at again when a card it waits on joins.
        left: list[Entry] = []

        def join(i: Index, cause: tuple[Index, ...]) -> bool:
            """Put ``i`` in; whether the closure may stop there."""
            nonlocal step, missing, any_empty, emptied
            leaves[i] = 1
            if order is not None:
                order[i] = step
                why[i] = cause
                step += 1
            if needed[i]:
                missing -= 1
            if not any_empty and i in emptiers:
                any_empty = True
                emptied = (i,)
            return until_needed and not missing

        for entry in entries:
            cause = way_in(entry)
            if cause is None:
                left.append(entry)
            elif join(entry[0], cause):
                return
        waiting: dict[Index, list[int]] = {}
        for e, (_, up, _, exits) in enumerate(left):
            if up >= 0:
                waiting.setdefault(up, []).append(e)
            for cover, low, high in exits or ():
                if cover >= 0:
                    waiting.setdefault(cover, []).append(e)
                for k in range(low, high):
                    waiting.setdefault(k, []).append(e)
        queue = list(range(len(left)))
        while queue:
            entry = left[queue.pop()]
            i = entry[0]
            if leaves[i]:
                continue
            cause = way_in(entry)
            if cause is None:
                continue
            emptying = not any_empty
            if join(i, cause):
                return
            queue.extend(waiting.get(i, ()))
            if emptying and any_empty:
                queue.extend(e for e, entry in enumerate(left) if entry[2])

    def depends(self, order: list[int], u: Index, v: Index) -> bool:
        """Whether ``v`` is among the cards whose departures let ``u`` join the closure
        ``order``, its way in and theirs (:attr:`why`). When it is not, ``u`` joins the
        closure without ``v`` too."""
        why = self.why
        limit = order[v]
        todo = [u]
        seen = {u}
        while todo:
            for p in why[todo.pop()]:
                if p == v:
                    return True
                if order[p] > limit and p not in seen:
                    seen.add(p)
                    todo.append(p)
        return False

    def stranded(self, order: list[int]) -> bool:
        """Whether a needed card is outside the closure ``order`` (stranded cards)."""
        needed = self.needed
        return any(needed[i] and order[i] == NEVER for i in range(self.total))

    def one_place(self, order: list[int]) -> bool:
        """Whether two copies of a card can only ever use one place between them (two copies,
        one place), ``order`` being the whole closure (not stopped ``until_needed``)."""
        needed = self.needed
        places = self.places
        covers = self.covers
        held: dict[Index, bytearray] = {}

        def may_follow(u: Index, v: Index) -> bool:
            """False when ``u`` surely can depart before ``v``: its way into the closure
            does not pass through ``v``."""
            return order[u] == NEVER or (order[u] > order[v] and self.depends(order, u, v))

        def follows(u: Index, v: Index) -> bool:
            """Whether ``u`` departs only after ``v``, if ever."""
            if order[u] == NEVER:
                return True
            if not may_follow(u, v):
                return False
            if v not in held:
                held[v] = self.without(order, v)
            return not held[v][u]

        def after_both(c: Index, a: Index, b: Index, after: Callable[[Index, Index], bool]) -> bool:
            """Whether ``c`` departs only after both ``a`` and ``b``, directly or through
            the other one."""
            return (after(c, a) or (after(c, b) and after(b, a))) and (
                after(c, b) or (after(c, a) and after(a, b))
            )

        for card, copies in places.items():
            if card % 13 == 12 or len(copies) != 2:
                continue
            a, b = copies
            if not (needed[a] and needed[b]):
                continue
            for place in places.get(card + 1, ()):
                c = covers[place]
                if c < 0 or c in (a, b):
                    continue
                if after_both(c, a, b, may_follow) and after_both(c, a, b, follows):
                    return True
        return False


def lost_as_it_stands(
    columns: Sequence[bytes],
    free: Iterable[int],
    targets: Sequence[tuple[int, ...]],
    king_only: bool,
    two_copies: bool,
) -> bool:
    """Whether stranded cards (or, with ``two_copies``, two copies with one place) prove
    the position lost."""
    departures = Departures(columns, set(free), targets, king_only)
    if not departures.missing:
        return False
    order = departures.closure(until_needed=not two_copies)
    if departures.stranded(order):
        return True
    return two_copies and departures.one_place(order)
