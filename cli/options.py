"""The command line's choices as enums: typer shows them in --help and refuses others itself."""

from __future__ import annotations

from enum import Enum

from cpu_reference.sudoku.formats import FORMATS
from gpu_anneal.datasets import DATASETS


class Kind(str, Enum):
    """Puzzle kind."""

    sudoku = "sudoku"
    shikaku = "shikaku"
    hashi = "hashi"


class Method(str, Enum):
    """Solving method: anneal (every kind), exact (Sudoku), ilp (Shikaku, Hashi)."""

    anneal = "anneal"
    exact = "exact"
    ilp = "ilp"


class Backend(str, Enum):
    """Where chains run."""

    auto = "auto"
    cpu = "cpu"
    cuda = "cuda"


class Move(str, Enum):
    """Neighbourhood: Sudoku sirdey | candidate | box-swap | focused | focused-two | auto (the
    measured best per order); Shikaku all | pruned | propagated (MOVES_HELP, per kind)."""

    sirdey = "sirdey"
    candidate = "candidate"
    box_swap = "box-swap"
    focused = "focused"
    focused_two = "focused-two"
    auto = "auto"
    all = "all"
    pruned = "pruned"
    propagated = "propagated"


MOVES_HELP = {
    "sudoku": "sirdey, candidate, box-swap, focused, focused-two, auto (the measured best)",
    "shikaku": "all, pruned, propagated",
}  # the --move choices of each kind, for the help text


class Rules(str, Enum):
    """Exact Sudoku's rules: fast (this project's solvers) or seed (seed 003's, as published)."""

    fast = "fast"
    seed = "seed"


class GridMethod(str, Enum):
    """How full Sudoku grids are made."""

    anneal = "anneal"
    permute = "permute"
    backtrack = "backtrack"


class PermuteMoves(str, Enum):
    """The permute method's moves: any two cells (the seed's) or two cells of one row."""

    any = "any"
    row = "row"


class Output(str, Enum):
    """How results are printed."""

    text = "text"
    jsonl = "jsonl"


Format = Enum("Format", {name: name for name in FORMATS}, type=str)  # Sudoku input formats
Example = Enum("Example", {name: name for name in DATASETS}, type=str)  # shipped sample sets


def value(choice):
    """The string behind an enum member (None stays None)."""
    return None if choice is None else getattr(choice, "value", choice)
