"""The solver's shortcuts against a plain exhaustive search, on small positions.

The plain search knows nothing of the solver: it walks ``legal_actions`` and ``apply`` of
the engine, keeps every position apart (no column is interchangeable with another, every
empty column and whole-column move is tried) and, under the repetition rule, tells
positions apart by their line of play too. On every position small enough for it to
search completely:

* the solver's verdict is the plain search's, and every won line replays to a won state;
* with the safe joins off, the positions the solver reaches are exactly the plain
  search's, once each is put in canonical form (so the move generator, the canonical key,
  the pruned empty columns and whole-column moves, and the history-free repetition rule
  lose nothing and add nothing).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator

import pytest

from games.engine import RULESETS, Ruleset, State, apply, legal_actions
from games.engine.cards import RUNS, Card
from games.engine.game import _cell_moves, _column_moves, _has_progress
from games.engine.solver import Solution, solve
from games.engine.solver.departures import lost_as_it_stands
from games.engine.solver.search import _RUN_TAILS, Search
from games.engine.state import LOST, WON, position

#: Positions per ruleset; nine rulesets make well over 500.
POSITIONS = 60
#: A position the plain search cannot finish within this many states is not used.
CAP = 600

PlainKey = tuple[object, ...]


def plain_key(state: State) -> PlainKey:
    return (state.columns, state.down, len(state.reserve), state.cells)


def check_history_free(state: State) -> None:
    """The solver's repetition rule, on a state reached through the engine with its own line of
    play: under the repetition rule, whether a move counts never depends on that line."""
    if not state.rules.repeats_are_not_moves or state.status == WON:
        return
    counts = any(True for _ in _column_moves(state, True)) or any(True for _ in _cell_moves(state))
    assert _has_progress(state) == counts
    if state.status == LOST:
        assert not counts and not state.reserve


def plain_search(state: State, cap: int) -> tuple[bool, list[State]] | None:
    """(whether a won state is reachable, every state reached), or None past ``cap``."""
    seen = {plain_key(state)}
    reached = [state]
    todo = [state]
    won = state.status == WON
    while todo:
        current = todo.pop()
        if current.status != "playing":
            continue
        for action in legal_actions(current):
            after = apply(current, action)[0]
            key = plain_key(after)
            if key in seen:
                continue
            seen.add(key)
            check_history_free(after)
            reached.append(after)
            if len(reached) > cap:
                return None
            if after.status == WON:
                won = True
            elif after.status != LOST:
                todo.append(after)
    return won, reached


def canonical(state: State) -> bytes:
    search = Search(state.rules, state)
    root = search.root
    return search.key(root.columns, root.cells, root.dealt)


def small_position(rules: Ruleset, rng: random.Random) -> State:
    """A position of one suit (two copies of it in ``double``, sometimes one), the other
    suits gone: the suit cut into a few pieces that each run down by one, a few cards
    swapped, the pieces dealt onto random columns over some face-down cards, with a
    reserve or cells when the rules have them."""
    suit = rng.randrange(4)
    copies = rules.decks if rng.random() < 0.5 else 1
    cards: list[Card] = [card for _ in range(copies) for card in RUNS[suit]]
    removed = [s for s in range(4) for _ in range(rules.decks) if s != suit]
    removed += [suit] * (rules.decks - copies)
    if not rules.king_only_on_empty:
        # Any card may go into an empty column, and every order of the columns is its own
        # position to the plain search: a whole suit gives it far too many, so these hold
        # only a few low cards (and can never be won).
        cards = cards[-rng.randint(3, 4) :]
    for _ in range(rng.choice((0, 0, 1, 2))):
        i, j = rng.randrange(len(cards)), rng.randrange(len(cards))
        cards[i], cards[j] = cards[j], cards[i]
    most = 3 if rules.king_only_on_empty else 2  # any card into an empty column: more moves
    cuts = sorted(
        rng.sample(range(1, len(cards)), min(len(cards) - 1, rng.randint(2, most + copies)))
    )
    pieces = [cards[a:b] for a, b in zip([0, *cuts], [*cuts, len(cards)], strict=True)]
    rng.shuffle(pieces)
    reserve: list[Card] = []
    if rules.reserve_to and rng.random() < 0.6:
        reserve = [pieces[-1].pop() for _ in range(rules.reserve_size) if pieces[-1]]
        if len(reserve) < rules.reserve_size:
            pieces[-1].extend(reversed(reserve))
            reserve = []
    cells: list[Card | None] = [None] * rules.cells
    for n in range(rules.cells):
        if rng.random() < 0.6 and pieces[0]:
            cells[n] = pieces[0].pop()
    count = rules.column_count
    columns: list[list[Card]] = [[] for _ in range(count)]
    for piece in pieces:
        columns[rng.randrange(count)].extend(piece)
    down = [rng.choice((0, 0, 1, 2)) if len(col) > 2 else 0 for col in columns]
    return position(
        rules,
        columns=columns,
        down=down,
        reserve=reserve,
        cells=cells,
        removed=[] if rules.sequences == "stay" else removed,
    )


def two_suit_position(rules: Ruleset, rng: random.Random) -> State:
    """Two whole suits of one deck, a few cards swapped, cut into pieces dealt onto a
    few columns over some face-down cards: stranded cards need two suits or more, and the
    first version of whole-column moves only where they matter lost a win here (a run
    completed in place, at the bottom of a column, that only a whole-column move takes off
    the table)."""
    suits = rng.sample(range(4), 2)
    cards: list[Card] = [card for suit in suits for card in RUNS[suit]]
    for _ in range(rng.choice((0, 1, 1, 2, 3))):
        i, j = rng.randrange(len(cards)), rng.randrange(len(cards))
        cards[i], cards[j] = cards[j], cards[i]
    cuts = sorted(rng.sample(range(1, len(cards)), rng.randint(3, 7)))
    pieces = [cards[a:b] for a, b in zip([0, *cuts], [*cuts, len(cards)], strict=True)]
    rng.shuffle(pieces)
    reserve: list[Card] = []
    if rules.reserve_to and rng.random() < 0.6:
        reserve = [pieces[-1].pop() for _ in range(rules.reserve_size) if pieces[-1]]
        if len(reserve) < rules.reserve_size:
            pieces[-1].extend(reversed(reserve))
            reserve = []
    cells: list[Card | None] = [None] * rules.cells
    for n in range(rules.cells):
        if rng.random() < 0.6 and pieces[0]:
            cells[n] = pieces[0].pop()
    count = rules.column_count
    columns: list[list[Card]] = [[] for _ in range(count)]
    used = rng.sample(range(count), rng.randint(2, min(count, 5)))
    for piece in pieces:
        columns[rng.choice(used)].extend(piece)
    down = [
        min(len(col) - 1, rng.choice((0, 0, 1, 2, 3))) if len(col) > 2 else 0 for col in columns
    ]
    removed = [suit for suit in range(4) if suit not in suits]
    return position(
        rules,
        columns=columns,
        down=down,
        reserve=reserve,
        cells=cells,
        removed=[] if rules.sequences == "stay" else removed,
    )


ONE_PLACE = sorted(
    name
    for name, rules in RULESETS.items()
    if rules.decks == 1 and rules.same_suit and rules.king_only_on_empty
)
#: Two-suit positions per ruleset where each card has one place to go.
TWO_SUIT_POSITIONS = 60
TWO_SUIT_CAP = 3000


@pytest.mark.parametrize("name", ONE_PLACE)
def test_two_suit_positions_agree_with_plain_exhaustive_search(name: str) -> None:
    rules = RULESETS[name]
    rng = random.Random(f"crosscheck-two-suits:{name}")
    verdicts: Counter[str] = Counter()
    while sum(verdicts.values()) < TWO_SUIT_POSITIONS:
        state = two_suit_position(rules, rng)
        plain = plain_search(state, TWO_SUIT_CAP)
        if plain is None:
            continue
        solution = solve(rules, state, budget=10**7)
        verdicts[solution.verdict] += 1
        assert solution.verdict == ("won" if plain[0] else "lost"), (state.columns, state.down)
        if plain[0]:
            after = state
            for action in solution.line:
                after = apply(after, action)[0]
            assert after.status == WON
    # Two shuffled suits are mostly lost; classic's sample holds wins too (the lost win of
    # whole-column moves' first version was one of them).
    assert verdicts["lost"] >= 20, verdicts
    assert verdicts["won"] >= (1 if name == "classic" else 0), verdicts


def positions(rules: Ruleset) -> list[tuple[State, tuple[bool, list[State]]]]:
    rng = random.Random(f"crosscheck:{rules.name}")
    found: list[tuple[State, tuple[bool, list[State]]]] = []
    while len(found) < POSITIONS:
        state = small_position(rules, rng)
        plain = plain_search(state, CAP)
        if plain is not None:
            found.append((state, plain))
    return found


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_shortcuts_agree_with_plain_exhaustive_search(name: str) -> None:
    rules = RULESETS[name]
    verdicts: Counter[str] = Counter()
    for state, (won, reached) in positions(rules):
        solution = solve(rules, state, budget=10**7)
        verdicts[solution.verdict] += 1
        assert solution.verdict == ("won" if won else "lost"), state.columns
        if won:
            after = state
            for action in solution.line:
                after = apply(after, action)[0]
            assert after.status == WON
        without_joins = Search(rules, state, safe_joins=False).reachable()
        assert without_joins == {canonical(s) for s in reached}
    # The sample holds both outcomes, or the comparison would prove little (but see
    # small_position for wasp, whose won lines are checked on whole deals instead).
    assert verdicts["won"] >= (5 if rules.king_only_on_empty else 0), verdicts
    assert verdicts["lost"] >= 5, verdicts


def tail_join_position(rules: Ruleset, rng: random.Random) -> State | None:
    """A position of two or three suits with no deal to come, where some card X can go
    onto its successor with the rest of its suit below it, down to the Ace, above it, in
    order, and X+1's column is not anchored: the second kind of safe join,
    nothing else vouching for it. None when the draw holds no such join."""
    suits = rng.sample(range(4), rng.choice((2, 2, 3)))
    tails: list[list[Card]] = []
    rest: list[Card] = []
    for suit in suits:
        cut = rng.randrange(0, 12)  # RUNS[suit][cut + 1:] runs from rank 12 - cut down to A
        tails.append(list(RUNS[suit][cut + 1 :]))
        rest.extend(RUNS[suit][: cut + 1])
    rng.shuffle(rest)
    cuts = sorted(rng.sample(range(1, len(rest)), min(len(rest) - 1, rng.randint(2, 5))))
    pieces = [rest[a:b] for a, b in zip([0, *cuts], [*cuts, len(rest)], strict=True)]
    pieces += tails
    rng.shuffle(pieces)
    count = rules.column_count
    columns: list[list[Card]] = [[] for _ in range(count)]
    used = rng.sample(range(count), rng.randint(2, min(count, 5)))
    for piece in pieces:
        columns[rng.choice(used)].extend(piece)
    cells: list[Card | None] = [None] * rules.cells
    down = [
        min(len(col) - 2, rng.choice((0, 0, 1, 2, 3))) if len(col) > 2 else 0 for col in columns
    ]
    state = position(
        rules,
        columns=columns,
        down=down,
        reserve=[],
        cells=cells,
        removed=[] if rules.sequences == "stay" else [s for s in range(4) if s not in suits],
    )
    search = Search(rules, state)
    tops = {col[-1]: c for c, col in enumerate(search.root.columns) if len(col) > 1}
    for c, col in enumerate(search.root.columns):
        for i in range(col[0], len(col) - 1):
            x = col[1 + i]
            t = tops.get(x + 1) if x % 13 != 12 else None
            if (
                t is not None
                and t != c
                and not search.anchored(search.root.columns[t])
                and col[1 + i :] in _RUN_TAILS
            ):
                return state
    return None


@pytest.mark.parametrize("name", ONE_PLACE)
def test_joins_of_a_tail_down_to_the_ace_lose_nothing(name: str) -> None:
    """The second kind of safe join, where it alone prunes: the solver's verdict is that of its
    own search without safe joins or locks (whose positions are the plain search's, as
    the test above checks), and every won line replays to a won state."""
    rules = RULESETS[name]
    rng = random.Random(f"tail-joins:{name}")
    verdicts: Counter[str] = Counter()
    while sum(verdicts.values()) < 40:
        state = tail_join_position(rules, rng)
        if state is None:
            continue
        full = Search(rules, state, safe_joins=False).run(20_000)[0]
        if full == "unknown":
            continue
        solution = solve(rules, state, budget=10**7)
        verdicts[solution.verdict] += 1
        assert solution.verdict == full, (state.columns, state.down)
        if full == "won":
            after = state
            for action in solution.line:
                after = apply(after, action)[0]
            assert after.status == WON
    assert verdicts["won"] >= 5 and verdicts["lost"] >= 5, verdicts


KING_ONLY = sorted(name for name, rules in RULESETS.items() if rules.king_only_on_empty)


def bury(rules: Ruleset, state: State, rng: random.Random) -> State | None:
    """``state`` with the cards some card X may go onto (every copy of its successor, or
    in ``easy`` every card a rank above it) taken from wherever they are and put at the
    bottom of X's column, face-down, and the cards under X face-down too, or (half the
    time) one of them left face-up, so that X can still be carried away: stranded cards'
    case and its near miss. None when the draw has no such X."""
    columns = [list(col) for col in state.columns]
    cells = list(state.cells)
    reserve = list(state.reserve)
    c = rng.randrange(len(columns))
    if len(columns[c]) < 2:
        return None
    x = columns[c][rng.randrange(1, len(columns[c]))]
    if x % 13 == 12:
        return None
    rank = x % 13 + 1
    suits = [x // 13] if rules.same_suit else range(4)
    places = {suit * 13 + rank for suit in suits}
    moved = [card for col in columns for card in col if card in places]
    moved += [card for card in cells if card in places]
    moved += [card for card in reserve if card in places]
    if not moved:
        return None
    columns = [[card for card in col if card not in places] for col in columns]
    cells = [None if card in places else card for card in cells]
    reserve = [card for card in reserve if card not in places]
    if len(reserve) not in (0, rules.reserve_size):
        return None
    columns[c] = moved + columns[c]
    under = columns[c].index(x)
    down = [min(d, len(col) - 1) if col else 0 for d, col in zip(state.down, columns, strict=True)]
    down[c] = under - 1 if rng.random() < 0.5 and under >= 2 else under
    return position(
        rules,
        columns=columns,
        down=down,
        reserve=reserve,
        cells=cells,
        removed=list(state.removed),
    )


def stranded(state: State) -> bool:
    """Whether the solver calls ``state`` lost as it stands (stranded cards)."""
    search = Search(state.rules, state)
    return search.stranded(search.root.columns, search.free(search.root))


def planted(
    rules: Ruleset,
    rng: random.Random,
    plant: Callable[[Ruleset, State, random.Random], State | None],
    tries: int,
) -> Iterator[tuple[State, Solution, bool]]:
    """Small positions changed by ``plant`` that the plain search finishes, once the
    solver's verdict is checked against it: each with the solution, and whether the solver
    calls it lost as dealt (stranded cards), which the plain search must then agree with."""
    for _ in range(tries):
        drawn = (two_suit_position if rng.random() < 0.5 else small_position)(rules, rng)
        state = plant(rules, drawn, rng)
        if state is None:
            continue
        plain = plain_search(state, CAP)
        if plain is None:
            continue
        solution = solve(rules, state, budget=10**7)
        assert solution.verdict == ("won" if plain[0] else "lost"), (state.columns, state.down)
        frozen = stranded(state)
        assert not (frozen and plain[0])
        yield state, solution, frozen


@pytest.mark.parametrize("name", KING_ONLY)
def test_buried_cards_are_lost_for_the_plain_search_too(name: str) -> None:
    """Stranded cards: every position the solver calls lost at once because a card can never
    be turned up is lost for the plain exhaustive search as well, and its near misses
    (a face-up card left under the buried one, which can carry it away) are searched."""
    rules = RULESETS[name]
    cut: Counter[str] = Counter()
    for _, solution, frozen in planted(rules, random.Random(f"buried:{name}"), bury, 3000):
        if frozen:
            cut["buried"] += 1
            # One node (in easy, one for the same-suit game first and one for its own).
            assert solution.nodes == (1 if rules.same_suit else 2)
        else:
            cut["searched"] += 1
        if cut["buried"] >= 25 and cut["searched"] >= 10:
            break
    # Few near misses are searched: stranded cards decide most of them too (a card under the
    # buried one can carry it away, but these small positions are mostly lost for it).
    assert cut["buried"] >= 25 and cut["searched"] >= 10, cut


def freeze(rules: Ruleset, state: State, rng: random.Random) -> State | None:
    """``state`` with two cards X and Y of two columns each over face-down cards only, and
    the cards each may go onto (every copy of its successor, or in ``easy`` every card a
    rank above it) face-down under the other: neither can ever move, though neither has its
    own places beneath it. Half the time one card under X is left face-up, so that X (and
    then Y) can still move. None when the draw has no such pair."""
    columns = [list(col) for col in state.columns]
    used = [c for c, col in enumerate(columns) if col]
    if len(used) < 2:
        return None
    a, b = rng.sample(used, 2)
    x, y = rng.choice(columns[a]), rng.choice(columns[b])
    if x % 13 == 12 or y % 13 == 12:
        return None

    def above(card: Card) -> set[Card]:
        rank = card % 13 + 1
        return {suit * 13 + rank for suit in ([card // 13] if rules.same_suit else range(4))}

    places_x, places_y = above(x), above(y)
    if x in places_y or y in places_x or places_x & places_y:
        return None
    if any(card in places_x | places_y for card in [*state.reserve, *state.cells] if card):
        return None
    under_b = [card for col in columns for card in col if card in places_x]
    under_a = [card for col in columns for card in col if card in places_y]
    if not under_a or not under_b:
        return None
    columns = [[card for card in col if card not in places_x | places_y] for col in columns]
    columns[a] = under_a + columns[a]
    columns[b] = under_b + columns[b]
    down = [min(d, len(col) - 1) if col else 0 for d, col in zip(state.down, columns, strict=True)]
    down[a] = columns[a].index(x)
    down[b] = columns[b].index(y)
    if rng.random() < 0.5 and down[a] >= 2:
        down[a] -= 1
    return position(
        rules,
        columns=columns,
        down=down,
        reserve=list(state.reserve),
        cells=list(state.cells),
        removed=list(state.removed),
    )


def buried_alone(state: State) -> bool:
    """Stranded cards, the simplest case: one card with every place it may go beneath it."""
    rules = state.rules
    present = Counter(card for col in state.columns for card in col)
    present.update(state.reserve)
    present.update(card for card in state.cells if card is not None)
    for col, down in zip(state.columns, state.down, strict=True):
        for p in range(1, min(down, len(col) - 1) + 1):
            card = col[p]
            if card % 13 == 12:
                continue
            rank = card % 13 + 1
            suits = [card // 13] if rules.same_suit else range(4)
            if all(col[:p].count(s * 13 + rank) == present[s * 13 + rank] for s in suits):
                return True
    return False


@pytest.mark.parametrize("name", KING_ONLY)
def test_cards_frozen_by_each_other_are_lost_for_the_plain_search_too(name: str) -> None:
    """Stranded cards beyond one card: two cards each holding the other's places face-down
    beneath it never move. The plain exhaustive search agrees wherever the solver calls
    such a position lost at once, and on its near misses."""
    rules = RULESETS[name]
    cut: Counter[str] = Counter()
    for state, _, frozen in planted(rules, random.Random(f"frozen:{name}"), freeze, 4000):
        if frozen and not buried_alone(state):
            cut["frozen"] += 1
        elif not frozen:
            cut["searched"] += 1
        if cut["frozen"] >= 20 and cut["searched"] >= 20:
            break
    assert cut["frozen"] >= 20 and cut["searched"] >= 20, cut


@pytest.mark.parametrize("name", ["double", "easy"])
def test_probes_agree_with_plain_exhaustive_search(name: str) -> None:
    """A probe (the moves in a random order) prunes nothing the search does not: searched to
    the end, it reaches the plain search's verdict, and its won lines replay to a won state."""
    rules = RULESETS[name]
    verdicts: Counter[str] = Counter()
    for n, (state, (won, _)) in enumerate(positions(rules)[:120]):
        for k in range(3):
            verdict, line, _ = Search(rules, state, jitter=random.Random(n * 3 + k)).run(10**7)
            verdicts[verdict] += 1
            assert verdict == ("won" if won else "lost"), state.columns
            after = state
            for action in line:
                after = apply(after, action)[0]
            assert (after.status == WON) == won
    assert verdicts["won"] >= 15 and verdicts["lost"] >= 15, verdicts


@pytest.mark.parametrize("name", KING_ONLY)
def test_stranded_positions_are_lost_for_the_plain_search_too(name: str) -> None:
    """Stranded cards on their own: no position it calls lost is won for the plain exhaustive
    search, over small positions of one or two suits, some with a card buried or two
    frozen (the shapes above), and the check decides most of the lost ones. Not in
    ``wasp``: there any card may go into an empty column, and in such small positions no
    card is ever stranded (none of 1,500), so the test could not fail; its check is
    tested along whole deals' won lines (``test_won_lines_never_hold_a_lost_position``)."""
    rules = RULESETS[name]
    rng = random.Random(f"stranded:{name}")
    seen: Counter[tuple[bool, bool]] = Counter()
    for _ in range(1500):
        state = (two_suit_position if rng.random() < 0.5 else small_position)(rules, rng)
        if rng.random() < 0.3:
            state = (bury if rng.random() < 0.5 else freeze)(rules, state, rng) or state
        plain = plain_search(state, TWO_SUIT_CAP)
        if plain is None:
            continue
        lost = stranded(state)
        assert not (lost and plain[0]), (state.columns, state.down, state.reserve, state.cells)
        seen[lost, plain[0]] += 1
        if seen[True, False] >= 150 and seen[False, True] >= 20:
            break
    assert seen[True, False] >= 150 and seen[False, True] >= 20, seen
    # Most lost positions are decided by the check alone.
    assert seen[True, False] > 5 * seen[False, False], seen


def share(rules: Ruleset, state: State, rng: random.Random) -> State | None:
    """``state`` (two decks) with both copies of some card X, a copy of X+1 and one more
    card Y taken from wherever they are and put at the bottom of one column, from the
    bottom up X+1, Y, X, X, with the three lowest face-down: the top X must go onto the
    other copy of X+1 and then the second X can never move (two copies, one place). Half the time Y
    goes to the bottom of another column instead, and a third of the time one card fewer
    is face-down: the near misses. None when the draw has no such X."""
    columns = [list(col) for col in state.columns]
    present = Counter(card for col in columns for card in col)
    choices = sorted(x for x, n in present.items() if n == 2 and x % 13 != 12 and present[x + 1])
    if not choices:
        return None
    x = rng.choice(choices)
    others = sorted(y for y in present if y not in (x, x + 1))
    if not others:
        return None
    y = rng.choice(others)
    taken = [x, x, x + 1, y]
    for col in columns:
        for card in list(col):
            if card in taken:
                col.remove(card)
                taken.remove(card)
    c = rng.randrange(len(columns))
    if rng.random() < 0.5:
        columns[c][:0] = [x + 1, y, x, x]
        down = 3
    else:
        columns[c][:0] = [x + 1, x, x]
        columns[(c + 1) % len(columns)].insert(0, y)
        down = 2
    downs = [0] * len(columns)
    downs[c] = down - (rng.random() < 1 / 3)
    return position(
        rules,
        columns=columns,
        down=downs,
        reserve=list(state.reserve),
        cells=list(state.cells),
        removed=list(state.removed),
    )


def test_two_copies_with_one_place_are_lost_for_the_plain_search_too() -> None:
    """Two copies, one place (two decks): every position the solver calls lost because both
    copies of a card could only ever use one copy of their successor between them is lost for the
    plain exhaustive search too, and many such positions are decided by it alone (stranded
    cards do not decide them); the near misses are searched to agree."""
    rules = RULESETS["double"]
    rng = random.Random("one-place:double")
    cut: Counter[str] = Counter()
    for _ in range(2000):
        state = share(rules, small_position(rules, rng), rng)
        if state is None:
            continue
        plain = plain_search(state, TWO_SUIT_CAP)
        if plain is None:
            continue
        search = Search(rules, state)
        columns, free = search.root.columns, search.free(search.root)
        alone = lost_as_it_stands(columns, free, search.targets, search.king_only, False)
        lost = lost_as_it_stands(columns, free, search.targets, search.king_only, True)
        assert not (lost and plain[0]), (state.columns, state.down, state.reserve)
        if lost:
            cut["one place" if not alone else "stranded"] += 1
        else:
            cut["won" if plain[0] else "searched"] += 1
        if cut["one place"] >= 30 and cut["won"] >= 10:
            break
    assert cut["one place"] >= 30 and cut["won"] >= 10, cut
