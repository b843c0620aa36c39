"""What folding symmetric positions would save the solver on ``double``: a measurement.

    .venv/bin/python bench/solver_symmetry.py [--budget N] [--rules R] SEED ...

Runs the systematic search of the Python core (no probes) on each seeded deal for N nodes
(20,000 unless told) and, for every position it visits, asks two things the
transposition table does not:

- **suit symmetry**: is the position the image, under some exchange of the suits, of a
  position visited before (the key of every one of the 24 relabellings of the suits,
  the undealt reserve relabelled too, compared with the keys of the positions met
  before)? A search that keyed positions on the least of those keys would visit it no
  more; the column ``folded`` counts them;
- could any exchange of suits but the identity apply at all: one that maps every
  face-down card, and the undealt reserve, to itself (face-down cards never move, so the
  image of a position whose face-down cards change is reached from no deal with this
  one's face-down cards). ``open`` counts those positions.

The two copies of a card are one byte value in the solver's positions (``cards.py``:
two decks repeat the same ints), so a position and the one with the two copies of a card
exchanged have the same bytes and the same key: that folding is already in the table, and
nothing here measures it. Prints one row a deal and the totals; docs/solvability.md has
the figures.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engine import RULESETS, Ruleset, State, new_game, seeded_deal  # noqa: E402
from games.engine.solver.search import Cells, Columns, Search  # noqa: E402

#: Every exchange of the four suits, as a ``bytes.translate`` table of the cards; the
#: identity first.
RELABELLINGS = [
    bytes(perm[card // 13] * 13 + card % 13 for card in range(52)) + bytes(range(52, 256))
    for perm in itertools.permutations(range(4))
]


class Measured(Search):
    """The Python search, unchanged, counting what suit symmetry would fold."""

    def __init__(self, rules: Ruleset, state: State) -> None:
        super().__init__(rules, state)
        #: The first position's key met for each least key, every key met, and the keys
        #: of positions another one met before would have folded.
        self.first: dict[bytes, bytes] = {}
        self.asked: set[bytes] = set()
        self.folded: set[bytes] = set()
        self.open = 0
        self.faces_down = 0

    def key(self, columns: Columns, cells: Cells, dealt: bool) -> bytes:
        plain = super().key(columns, cells, dealt)
        fixed: bytes = b"" if dealt else bytes(self.reserve)
        down = bytes(card for col in columns for card in col[1 : 1 + col[0]])
        least = plain
        applies = False
        for table in RELABELLINGS[1:]:
            relabelled = tuple(col[:1] + col[1:].translate(table) for col in columns)
            cells_relabelled = tuple(c if c < 0 else table[c] for c in cells)
            key = super().key(relabelled, cells_relabelled, dealt)
            if fixed:
                key += fixed.translate(table)
            least = min(least, key)
            if down.translate(table) == down and fixed.translate(table) == fixed:
                applies = True
        if fixed:
            least = min(least, plain + fixed)
        if plain in self.asked:
            return plain
        self.asked.add(plain)
        if self.first.setdefault(least, plain) != plain:
            self.folded.add(plain)
        if applies:
            self.open += 1
        self.faces_down += len(down)
        return plain


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("seeds", type=int, nargs="+")
    parser.add_argument("--budget", type=int, default=20_000)
    parser.add_argument("--rules", default="double")
    args = parser.parse_args()
    rules = RULESETS[args.rules]
    print("| seed | verdict | nodes | positions | folded | open | face-down cards a position | s |")
    print("|---|---|---|---|---|---|---|---|")
    totals = [0, 0, 0]
    for seed in args.seeds:
        started = time.perf_counter()
        search = Measured(rules, new_game(rules, seeded_deal(rules, seed)))
        verdict, _, nodes = search.run(args.budget)
        asked = len(search.asked)
        folded = len(search.folded)
        print(
            f"| {seed} | {verdict} | {nodes:,} | {asked:,} | {folded} | {search.open}"
            f" | {search.faces_down / max(1, asked):.1f}"
            f" | {time.perf_counter() - started:.0f} |",
            flush=True,
        )
        totals[0] += asked
        totals[1] += folded
        totals[2] += search.open
    print(f"positions {totals[0]:,}, folded {totals[1]}, an exchange open {totals[2]}")


if __name__ == "__main__":
    main()
