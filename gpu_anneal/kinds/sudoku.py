"""Sudoku as a puzzle kind: read in every Sudoku format, anneal (CPU, CUDA, Dask) or search
exactly.

Glossary:
    n, order   box side; the grid is N x N with N = n * n, cells = N * N
    cells      a puzzle or state as uint8[cells], 0 blank, row-major
    fmt        the format a puzzle was read in (cpu_reference.sudoku.formats); its solution is
               written in the same one
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from cpu_reference.errors import InputError, OptionError
from cpu_reference.sudoku import rules
from cpu_reference.sudoku.format_writer import format_grid
from cpu_reference.sudoku.formats import Puzzle
from cpu_reference.sudoku.presets import MOVE_PRESETS, TECHNIQUES, technique
from cpu_reference.sudoku.schedules import with_start
from cpu_reference.sudoku.verify import conflict_cost, verify_solution
from gpu_anneal import items, method_choice, solvers
from gpu_anneal.kinds.base import ANNEAL, PuzzleKind, int_rows
from gpu_anneal.method_choice import AUTO

FORMATS = frozenset({"fmt", "order"})
ORDERS = (2, 4, 5, 6)  # the orders other than 9x9 that the presets cover


class Sudoku(PuzzleKind):
    """Sudoku of orders 2..8: annealing (the pool of gpu_anneal.sudoku_solver), heat-bath
    chains on partial legal grids (gpu_anneal.impasse_solver) or the exact bitmask search;
    "auto" (the default) takes annealing or the impasse chains per order and backend
    (gpu_anneal.method_choice)."""

    name = "sudoku"
    title = "Sudoku"
    methods = (AUTO, "anneal", "exact", "impasse")
    default_move = "auto"
    applies = {
        "anneal": ANNEAL
        | FORMATS
        | {"technique", "move", "time_limit", "propagate", "batch", "scheduler", "workers"}
        | {"fixed_chains", "pool"},
        "exact": FORMATS | {"rules", "time_limit"},
        "impasse": FORMATS | {"chains", "seed", "t0", "time_limit", "lanes"},
    }
    applies[AUTO] = (applies["anneal"] | applies["impasse"]) - {"lanes"}
    refusal_notes = {
        ("impasse", "schedule"): "its chains hold one temperature, t0",
        ("impasse", "move"): "its move is the heat-bath move",
        (AUTO, "lanes"): "lanes set the impasse kernel on a card, which the impasse method runs",
        ("anneal", "lanes"): "lanes set the impasse kernel on a card",
    }
    techniques = tuple(TECHNIQUES)
    parsed_types = (Puzzle,)
    cuda_methods = (AUTO, "anneal", "impasse")
    replays = True  # one chain of an annealing run can be re-run alone (api.replay)
    replay_methods = (AUTO, "anneal", "impasse")  # the methods whose chains --replay-chain re-runs
    # The CUDA trial kernel of --method impasse (gpu_anneal.kernels.launch.TrialKernel, one
    # chain a thread), registered for the PTX checks as trial_name
    trial_name = "sudoku-impasse"

    @property
    def moves(self) -> tuple[str, ...]:
        """The moves registered now (cpu_reference.sudoku.moves) and the move presets."""
        return (*rules.MOVE_NAMES, *MOVE_PRESETS)

    @property
    def moves_help(self) -> str:
        """The --move choices as the help lists them."""
        presets = (f"{m} (the measured best)" for m in MOVE_PRESETS)
        return ", ".join([*rules.MOVE_NAMES, *presets])

    def time_limit(self, method: str, value: float | None) -> float | None:
        """Annealing: the kind's default when none was given; the exact search: none unless
        given (it stops at its node cap); 0: none."""
        if method == "exact" and value is None:
            return None
        return super().time_limit(method, value)

    def technique(self, method: str, name, schedule, move, propagate) -> tuple:
        """Annealing runs the named technique ("default": the best measured; "published":
        Sirdey's), each of schedule, move and propagate given in place of that part alone
        (cpu_reference.sudoku.presets.technique); --method auto fills them in as annealing
        would, for the puzzles it anneals."""
        if method not in ("anneal", AUTO):
            return schedule, move, propagate
        return technique(schedule, move, propagate, name)

    def read(self, source, fmt: str | None, order: int | None) -> Iterator:
        """Every Sudoku of one source (gpu_anneal.items.read_sudoku)."""
        return items.read_sudoku(self, source, fmt, order)

    def size(self, item) -> str:
        """NxN."""
        side = item.order * item.order
        return f"{side}x{side}"

    def givens(self, item) -> bytes:
        """The givens' cells as bytes."""
        return np.asarray(item.puzzle, np.uint8).tobytes()

    def givens_text(self, item) -> str:
        """The givens in the puzzle's format."""
        return self.text(item, item.puzzle)

    def text(self, item, state) -> str:
        """The cells in the puzzle's format (a tsv puzzle keeps its name); InputError naming the
        puzzle when that format cannot write this order."""
        cells = np.asarray(state, dtype=np.uint8)
        name = item.name if item.fmt == "tsv" else ""
        try:
            return format_grid(cells, item.order, item.fmt, name, separator=item.separator)
        except InputError as exc:
            raise InputError(f"{item.where}: {exc}") from None

    def identity_size(self, order: int | None, givens) -> tuple[str, bytes]:
        """(NxN, the cells' bytes)."""
        cells = np.asarray(givens, dtype=np.uint8).ravel()
        side = int(order) * int(order)
        return f"{side}x{side}", cells.tobytes()

    def verify(self, item, state) -> str | None:
        """cpu_reference.sudoku.verify against the item's givens."""
        return verify_solution(np.asarray(state), item.order, item.puzzle)

    def solution_rows(self, item, state) -> list:
        """N rows of N digits."""
        side = item.order * item.order
        return np.asarray(state).reshape(side, side).tolist()

    def cost(self, item, state) -> int | None:
        """Pairs of peers holding the same digit (Sirdey's cost)."""
        if state is None:
            return None
        return conflict_cost(np.asarray(state, np.uint8), item.order)

    def state_from_rows(self, item, rows) -> np.ndarray:
        """N rows of N digits 1..N as uint8[cells]."""
        side = item.order * item.order
        return int_rows(rows, (side, side), 1, side).astype(np.uint8).ravel()

    def check_schedule(self, text: str, order: int | None, t0: float | None) -> None:
        """The schedule parsed at the order. An order not known yet is taken as 9x9, unless
        only t0 stops the schedule there and another order takes it (a preset's t_final differs
        by order): that order's puzzles are checked when they are read (solvers)."""
        if order is not None:
            with_start(text, order, t0)
            return
        try:
            with_start(text, 3, t0)
        except OptionError as first:
            with_start(text, 3)  # a fault of the schedule itself
            for other in ORDERS:
                try:
                    with_start(text, other, t0)
                    return
                except OptionError:
                    continue
            raise first from None

    def solve(self, items, settings) -> Iterator:
        """The pool's annealing, the impasse chains, or the exact search; --method auto sends
        each run of consecutive puzzles to the method gpu_anneal.method_choice takes for them."""
        if settings.method == AUTO:
            return self._auto(items, settings)
        if settings.method == "exact":
            return solvers.sudoku_exact(items, settings)
        if settings.method == "impasse":
            from gpu_anneal.impasse_solver import sudoku_impasse

            return sudoku_impasse(items, settings)
        return solvers.sudoku_anneal(items, settings)

    def _auto(self, items, settings) -> Iterator:
        card = method_choice.on_card(settings.backend)
        for method, group in method_choice.split(items, card):
            yield from self.solve(group, method_choice.settings_for(settings, method))

    @property
    def trial(self):
        """The jitted chain of --method impasse (cpu_reference.sudoku.impasse.impasse_slice)."""
        from cpu_reference.sudoku.impasse import impasse_slice

        return impasse_slice

    def trial_kernel(self):
        """The TrialKernel of --method impasse (gpu_anneal.impasse_solver.impasse_kernel)."""
        from gpu_anneal.impasse_solver import impasse_kernel

        return impasse_kernel()

    def trial_types(self) -> tuple:
        """The numba types of the impasse kernel's arguments, from the chains of a 4x4 puzzle."""
        import numba

        from cpu_reference.sudoku.impasse import chain_arrays, impasse_tables

        tables = impasse_tables(np.zeros(16, np.uint8), 2)
        return tuple(numba.typeof(a) for a in chain_arrays(tables, 2, 2, 0, 1.0))


KIND = Sudoku()
