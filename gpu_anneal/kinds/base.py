"""The interface every puzzle kind offers (gpu_anneal.kinds registers one object per kind).

Glossary:
    kind       one puzzle family: its name ("sudoku"), methods, moves and per-puzzle operations
    item       a puzzle read by gpu_anneal.inputs (Item: kind, index, source, line, givens)
    state      an answer of the kind: Sudoku uint8[cells]; Shikaku one (top, left, height,
               width) per clue; Hashi one (r1, c1, r2, c2, count) per bridge
    rows       a state as a result's `solution_rows` (JSON lists)
    parameter  a solve option as the API names it ("time_limit"); `applies` says which ones a
               method of the kind takes

A kind reads puzzles (delegating to gpu_anneal.inputs' readers), verifies a state with its
independent verifier, writes a state as text and rows, and solves a stream of items by one of its
methods (delegating to gpu_anneal.solvers). Nothing above the registry compares kind names.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

# Parameters every annealing method takes.
ANNEAL = frozenset({"chains", "seed", "schedule", "t0", "max_trials"})
# The solve parameters a kind can refuse, in the order they are checked.
PARAMETERS = (
    "chains", "seed", "technique", "schedule", "t0", "max_trials", "move", "propagate", "batch",
    "scheduler", "workers", "fmt", "order", "time_limit", "rules", "fixed_chains", "pool",
    "lanes",
)  # fmt: skip


class PuzzleKind:
    """One puzzle kind. Subclasses set the attributes and implement the methods below."""

    name: str = ""  # as the API and records spell it
    title: str = ""  # as messages name it ("Hashiwokakero")
    methods: tuple[str, ...] = ("anneal",)  # the first is the default
    method_aliases: dict[str, str] = {}  # another kind's method name -> this kind's
    moves: tuple[str, ...] = ()  # --move choices (empty: none to choose)
    default_move: str | None = None
    moves_help: str = ""  # the --move choices as the help text lists them
    techniques: tuple[str, ...] = ()  # named sets of schedule, move, propagate (first: default)
    default_time_limit: float | None = 60.0  # seconds per puzzle when none is given
    applies: dict[str, frozenset[str]] = {}  # method -> the parameters it takes
    refusal_notes: dict[tuple[str, str], str] = {}  # (method, parameter) -> why, for messages
    parsed_types: tuple[type, ...] = ()  # parsed puzzle objects the API takes as sources
    cuda_methods: tuple[str, ...] = ("anneal",)  # methods that may run on a CUDA device
    game_ids: bool = False  # sources hold Tatham game IDs, one a line, or one text grid
    replays: bool = False  # whether one chain of an annealing run can be re-run (api.replay)
    replay_methods: tuple[str, ...] = ("anneal",)  # the methods whose chains can be re-run

    def method(self, name: str) -> str:
        """The method's name for this kind (aliases resolved; "auto", Sudoku's default, is the
        kind's own default where it has no auto); the caller checks it is one of `methods`."""
        if name == "auto" and name not in self.methods:
            return self.methods[0]
        return self.method_aliases.get(name, name)

    def takes(self, parameter: str, method: str | None = None) -> bool:
        """Whether `method` (any method of the kind when None) takes `parameter`."""
        if method is not None:
            return parameter in self.applies.get(method, frozenset())
        return any(parameter in taken for taken in self.applies.values())

    def time_limit(self, method: str, value: float | None) -> float | None:
        """Seconds per puzzle that run: None when the method takes no limit or 0 was given
        (no limit), the kind's default when none was given."""
        if not self.takes("time_limit", method):
            return None
        if value is None:
            return self.default_time_limit
        return float(value) or None

    def technique(self, method: str, name, schedule, move, propagate) -> tuple:
        """(schedule, move, propagate) that run when these were given (None: not given): the
        kind's presets filled in (`name`: a named set of them, where the kind has any)."""
        return schedule, move, propagate

    # ---- reading and writing ------------------------------------------------------------

    def read(self, source, fmt: str | None, order: int | None) -> Iterator:
        """Every puzzle of one source: an Item per puzzle, an InputError per fault. The source
        is no Item, closed file or iterator of sources, and no parsed puzzle of another kind
        (gpu_anneal.items.read_source takes those first)."""
        raise NotImplementedError

    def size(self, item) -> str:
        """WIDTHxHEIGHT of the item's grid in cells."""
        raise NotImplementedError

    def givens(self, item) -> bytes | str:
        """The canonical givens that results.givens_hash digests."""
        raise NotImplementedError

    def givens_text(self, item) -> str:
        """The givens as text (Sudoku in the puzzle's format, the others as a game ID)."""
        raise NotImplementedError

    def text(self, item, state) -> str:
        """A state of the item's puzzle as text in the puzzle's notation."""
        raise NotImplementedError

    def identity_size(self, order: int | None, givens) -> tuple[str, bytes | str]:
        """(size, canonical givens) of a puzzle given by its order and givens (Sudoku cells, or
        a game ID or parsed puzzle), as gpu_anneal.resume.identity hashes them."""
        raise NotImplementedError

    # ---- checking answers ---------------------------------------------------------------

    def verify(self, item, state) -> str | None:
        """None when the kind's verifier accepts the state as a solution of the item, else why
        not."""
        raise NotImplementedError

    def solution_rows(self, item, state) -> list:
        """A solved state as a result's `solution_rows`."""
        raise NotImplementedError

    def game_move(self, item, state) -> str | None:
        """A solved state as Tatham's solve move (None where the kind has none)."""
        return None

    def cost(self, item, state) -> int | None:
        """Rules the state breaks (0: solved), None without a state."""
        raise NotImplementedError

    def state_from_rows(self, item, rows):
        """A record's `solution_rows` as a state of the item's puzzle; ValueError when they
        have the wrong shape or values outside the grid."""
        raise NotImplementedError

    def check_schedule(self, text: str, order: int | None, t0: float | None) -> None:
        """OptionError now when the schedule string cannot run (a bad key or value)."""
        raise NotImplementedError

    # ---- solving ------------------------------------------------------------------------

    def solve(self, items, settings) -> Iterator:
        """Results of the items by settings.method, in completion order."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<puzzle kind {self.name}>"


def int_rows(rows: Any, shape: tuple[int, int], lo: int, hi: int) -> np.ndarray:
    """rows as int64[shape] (-1: any length) of whole numbers in lo..hi; ValueError otherwise."""
    if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
        raise ValueError("not a list of lists")
    flat = [x for r in rows for x in r]
    if not all(isinstance(x, int) and not isinstance(x, bool) and lo <= x <= hi for x in flat):
        raise ValueError("not whole numbers in range")
    a = np.array(flat, dtype=np.int64)
    width = shape[1]
    if any(len(r) != width for r in rows) or (shape[0] >= 0 and len(rows) != shape[0]):
        raise ValueError("wrong shape")
    return a.reshape(-1, width)
