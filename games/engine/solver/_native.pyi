"""Types of the native solver core, the C extension built from csrc/ (see native.py)."""

#: Verdict codes of :meth:`Core.run` and :func:`search`.
WON: int
LOST: int
UNKNOWN: int
#: The search passed its deadline, or :func:`interrupt` was called.
CUT: int

class Core:
    """One search from one position: search.py's ``Search`` in C.

    Takes the state's own tuples (a cell ``None`` when empty) and the rules' fields;
    raises ValueError for a position outside the core's limits.
    """

    def __init__(
        self,
        down: tuple[int, ...],
        columns: tuple[tuple[int, ...], ...],
        cells: tuple[int | None, ...],
        reserve: tuple[int, ...],
        reserve_to: tuple[int, ...],
        removed: int,
        decks: int,
        mode: int,
        flags: int,
    ) -> None: ...
    def run(
        self, budget: int, mt: tuple[int, ...] | None = None, deadline: float = 0.0, /
    ) -> tuple[int, bytes, int, tuple[int, ...] | None]:
        """``(verdict, line, nodes, mt)``: Search.run, the line 4 bytes a step; ``mt`` is
        a probe's random state (random.Random.getstate()'s words), given and given back;
        :data:`CUT` once ``time.monotonic()`` passes ``deadline`` (0: none)."""

def search(
    down: tuple[int, ...],
    columns: tuple[tuple[int, ...], ...],
    cells: tuple[int | None, ...],
    reserve: tuple[int, ...],
    reserve_to: tuple[int, ...],
    removed: int,
    decks: int,
    mode: int,
    flags: int,
    budget: int,
    deadline: float = 0.0,
) -> tuple[int, bytes, int]:
    """``Core(...).run(budget, None, deadline)`` without a probe's random source, in one
    call."""

def interrupt() -> None:
    """Every search of this process, running or to come, ends as :data:`CUT`."""
