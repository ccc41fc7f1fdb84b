"""The solve options, declared once, and the frozen Settings they resolve to.

Glossary:
    options    what a caller gives (SolveOptions): the keyword parameters of api.solve,
               solve_stream and solve_on_dask, and what the command line's solve builds; None
               (or False for fixed_chains) means "not given"; propagate=False is given (no
               deduction)
    settings   the options resolved once at the boundary (gpu_anneal.resolve): checked, the
               kind's presets and defaults filled in, one representation of "no limit" (None);
               nothing below re-validates or re-resolves them
    naming     how messages name a parameter: the API's own names ("time_limit") or the
               command line's flags ("--time-limit")
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from cpu_reference.errors import InputError
from cpu_reference.sudoku.presets import move_of
from gpu_anneal.run_plan import POOLS  # noqa: F401 (re-exported: the API checks pool against it)

FLAGS = {"fmt": "format", "chain": "replay-chain"}  # parameters the command line names otherwise


@dataclass(frozen=True)
class SolveOptions:
    """The solve parameters as given, in the order of the API's signatures (see
    gpu_anneal.api.solve_stream for what each means)."""

    kind: str = "sudoku"
    method: str = "auto"
    backend: str = "auto"
    chains: int | None = None
    seed: int | None = None
    technique: str | None = None
    schedule: str | None = None
    move: str | None = None
    t0: float | None = None
    time_limit: float | None = None
    max_trials: int | None = None
    propagate: bool | None = None
    rules: str | None = None
    batch: int | None = None
    fmt: str | None = None
    order: int | None = None
    resume: str | None = None
    on_input_error: Callable[[InputError], None] | None = None
    scheduler: str | None = None
    workers: int | None = None
    fixed_chains: bool = False
    threads: int | None = None
    total_time: float | None = None
    pool: str | None = None
    lanes: int | None = None

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The parameters' names, in order."""
        return tuple(f.name for f in fields(cls))

    @classmethod
    def of(cls, given: dict) -> SolveOptions:
        """The options among `given` (a function's locals(): other names are left out)."""
        return cls(**{name: given[name] for name in cls.names() if name in given})


@dataclass(frozen=True)
class Naming:
    """How messages name parameters: the API's names, or the command line's flags."""

    flags: bool = False

    def __call__(self, parameter: str) -> str:
        """'time_limit', or '--time-limit' for flags."""
        if not self.flags:
            return parameter
        return "--" + FLAGS.get(parameter, parameter).replace("_", "-")

    def value(self, parameter: str, value) -> str:
        """A parameter with its value: "method 'exact'", or '--method exact' for flags."""
        return f"{self(parameter)} {value}" if self.flags else f"{parameter} {value!r}"


API = Naming(flags=False)
CLI = Naming(flags=True)


@dataclass(frozen=True)
class Settings:
    """The parameters of one solve call, resolved (gpu_anneal.resolve.resolve builds it).

    Sudoku's move and schedule may still be presets ("auto"), which stand for a move and a
    schedule string per order: move_at(order) names the move that runs at an order (the one
    place a preset is resolved), run_plan.schedule_text the schedule."""

    kind: str
    method: str
    backend: (
        str  # requested: auto | cpu | cuda (auto: chosen per order by gpu_anneal.backend_choice)
    )
    chains: int | None  # None: the solver's default for the backend
    seed: int | None  # None for methods without chains
    schedule: str | None
    move: str | None
    t0: float | None
    time_limit: float | None  # seconds per puzzle; None: no limit
    max_trials: int | None  # None: no cap
    propagate: bool
    batch: int | None
    scheduler: str | None = None
    workers: int | None = None
    rules: str | None = None  # Sudoku exact: fast | seed (cpu_reference.sudoku.exact_rules)
    fmt: str | None = None
    order: int | None = None
    resume: str | None = None
    fixed_chains: bool = False  # Sudoku annealing: no spare chains (sudoku_solver)
    threads: int | None = None  # numba's threads for the run; None: as they are
    total_time: float | None = None  # seconds for the whole run; None: no budget
    pool: str | None = None  # Sudoku annealing on CUDA: persistent | slices (None: default)
    lanes: int | None = None  # Sudoku impasse on CUDA: threads a chain, 1 or 32 (None: 1)
    # Sudoku impasse chosen by --method auto: the exact search first at the orders and fills
    # of impasse_solver.EXACT_FIRST_NODES (method_choice.settings_for sets it)
    exact_first: bool = False
    on_input_error: Any = field(default=None, compare=False)
    naming: Naming = API  # how this call's messages name parameters

    def move_at(self, order: int) -> str | None:
        """The move that runs at this order (a preset such as "auto" resolved)."""
        return None if self.move is None else move_of(self.move, order)

    @property
    def on_dask(self) -> bool:
        """Whether the puzzles are annealed on a Dask cluster."""
        return self.scheduler is not None or self.workers is not None
