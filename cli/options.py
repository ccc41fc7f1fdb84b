"""The command line's choices as enums: typer shows them in --help and refuses others itself.
`solve --kind` and `render --kind` read the registry's names when the command line is parsed
(kind_name), so a kind registered after this module was imported is a choice too; `solve --move`
reads the moves registered then (move_choice) likewise."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

import typer

from gpu_anneal.datasets import DATASETS
from gpu_anneal.kinds import KINDS, game_id_kinds, names
from gpu_anneal.reference import FORMATS


def _choices(name: str, values, doc: str) -> type[Enum]:
    """A str Enum of the values (a member per value, in order, repeats dropped)."""
    choices = Enum(name, {v: v for v in dict.fromkeys(values)}, type=str)
    choices.__doc__ = doc
    return choices


def kind_name(text: str) -> str:
    """A --kind value: one of the kinds registered now; ValueError naming them otherwise."""
    if text not in names():
        raise ValueError(f"{text!r} is not one of {', '.join(map(repr, names()))}.")
    return text


def kind_names(incomplete: str) -> list[str]:
    """The registered kinds that start with what was typed (shell completion of --kind)."""
    return [name for name in names() if name.startswith(incomplete)]


KIND_METAVAR = f"<{'|'.join(names())}>"  # as --help lists the kinds registered at start-up


def kind_option(help: str):
    """The --kind option of solve and render: a registered kind's name, checked when the
    command line is parsed, completed from the registry."""
    return typer.Option(
        parser=kind_name, metavar=KIND_METAVAR, autocompletion=kind_names, help=help
    )


Kind = _choices("Kind", KINDS, "Puzzle kind (gpu_anneal.kinds).")
GridKind = _choices("GridKind", game_id_kinds(), "A puzzle kind of Tatham game IDs.")
Method = _choices(
    "Method",
    [m for spec in KINDS.values() for m in (*spec.methods, *spec.method_aliases)],
    "Solving method: anneal (every kind), exact and impasse (Sudoku), ilp (Shikaku, Hashi).",
)


def move_names() -> list[str]:
    """Every kind's --move choices as registered now (a Sudoku move registered after this
    module was imported included), repeats dropped."""
    return list(dict.fromkeys(m for spec in KINDS.values() for m in spec.moves))


def move_choice(text: str) -> str:
    """A --move value: one of the moves registered now; ValueError naming them otherwise."""
    if text not in move_names():
        raise ValueError(f"{text!r} is not one of {', '.join(map(repr, move_names()))}.")
    return text


def move_option(help: str):
    """The --move option of solve: a registered move's name, checked when the command line is
    parsed, completed from the registry."""
    return typer.Option(
        parser=move_choice,
        metavar="MOVE",
        autocompletion=lambda incomplete: [m for m in move_names() if m.startswith(incomplete)],
        help=help,
    )


Technique = _choices(
    "Technique",
    [t for spec in KINDS.values() for t in spec.techniques],
    "Sudoku annealing's named set of schedule, move and deduction.",
)
# the --move choices of each kind, for the help text
MOVES_HELP = {name: spec.moves_help for name, spec in KINDS.items() if spec.moves}


class Backend(str, Enum):
    """Where chains run."""

    auto = "auto"
    cpu = "cpu"
    cuda = "cuda"


class Rules(str, Enum):
    """Exact Sudoku's rules: fast (this project's solvers) or seed (seed 003's, as published)."""

    fast = "fast"
    seed = "seed"


class GridMethod(str, Enum):
    """How full Sudoku grids are made."""

    anneal = "anneal"
    permute = "permute"
    backtrack = "backtrack"
    impasse = "impasse"


class PermuteMoves(str, Enum):
    """The permute method's moves: any two cells (the seed's) or two cells of one row."""

    any = "any"
    row = "row"


class Output(str, Enum):
    """How results are printed."""

    text = "text"
    jsonl = "jsonl"


class SolveOutput(str, Enum):
    """How solve prints results: also as aligned grids."""

    text = "text"
    jsonl = "jsonl"
    grid = "grid"


# Options every command that computes takes (typer reads each Annotated alike).
Threads = Annotated[
    int | None,
    typer.Option(
        help="Threads of the CPU work, 1..the cores (or NUMBA_NUM_THREADS)  [default: every core]"
    ),
]
ShowProgress = Annotated[
    bool | None,
    typer.Option(
        "--progress/--no-progress",
        help="The progress line (done/total, ETA) on stderr, also where stderr is no terminal "
        "(plain lines), or never  [default: on a terminal]",
        show_default=False,
    ),
]


Format = Enum("Format", {name: name for name in FORMATS}, type=str)  # Sudoku input formats
Example = Enum("Example", {name: name for name in DATASETS}, type=str)  # shipped sample sets


def value(choice):
    """The string behind an enum member (None stays None)."""
    return None if choice is None else getattr(choice, "value", choice)
