"""Generating full Sudoku grids and minimal unique puzzles at scale (seed 002).

Glossary:
    n, order   box side (2..8 here); N = n * n digits; cells = N * N
    G          number of grids in a call; i a grid index in 0..G-1
    method     how full grids are made: "anneal", "permute", "backtrack" or "impasse"
    givens     uint8[G, cells] partly filled grids to complete (0 = blank), or None for empty grids
    Ti, Tf     first and last temperature of the emptying annealing; ``step`` its linear decrement

Full grids, four ways (``generate_grids``):
    anneal     Sirdey's annealing (``solve_batch``) with one chain per grid, thousands of grids per
               batch, on the CUDA card or on every CPU core. The schedule is ``GRID_SCHEDULE``:
               geometric cooling from T0 = 0.3 by a factor 0.98 per plateau of `cells` moves down
               to the order's failure temperature (233 plateaus for 9x9), restarted until solved.
               The course's Sirdey schedule (T0 = 810) spends millions of plateaus above any useful
               temperature and solves none of 2,000 empty 9x9 grids in 30 s; from T0 = 0.3 an empty
               9x9 grid takes about two trials. Grids with givens use the solver's default
               "sirdey-course" instead: from T0 = 0.3 the seed's 17-given puzzle is never solved,
               while the course schedule solves it in seconds to a minute per chain.
    permute    the seed's random swaps kept only when the surplus drops (cpu_reference.
               sudoku_generate), restarted from a fresh fill when stuck; the stats say how often.
    backtrack  the exact solver with branch values in random order, restarted with a growing
               node budget.
    impasse    the heat-bath chains on partial legal grids (cpu_reference.sudoku.impasse), held
               at `solve`'s temperature for the order and the givens' fill, GRID_CHAINS a grid
               (a CPU thread each); the first chain to solve in moves gives the grid. Grids of
               one row of givens (every grid of an empty start) run side by side, as many as
               the CPU threads hold (impasse_side_by_side); others one after another.
Every grid is checked by ``verify_solution`` (against its givens); a grid that fails or was not
found stays all zeros and is listed in ``stats["failed"]``. Grids are made a chunk at a time, a
few a thread at first, the chunks growing while they end within a second; each grid is handed
to ``on_grid`` as its chunk ends, so a long call shows its first grids at once (the chunks
change no grid: grid i depends on its index alone). ``time_limit`` holds for every method:
anneal's per batch (each chunk's pool given what is left of it), permute's and backtrack's for
the call (their chunks run in a worker thread that a stop flag ends at the limit, or at
Ctrl-C, which is then raised; impasse's likewise, the flag read between slices of moves).

Minimal puzzles (``minimize_grids``): the seed's annealing on the set of givens, then a greedy pass
that removes every given still removable (cpu_reference.sudoku.minimize), on all cores.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterator
from functools import partial

import numba
import numpy as np

from cpu_reference.errors import InputError, LimitWarning
from cpu_reference.sudoku import generate as sg
from cpu_reference.sudoku import minimize as sm
from cpu_reference.sudoku.exact import tables
from cpu_reference.sudoku.layout import MAX_ORDER, MIN_ORDER, layout
from cpu_reference.sudoku.schedules import Schedule, by_name, geometric
from cpu_reference.sudoku.verify import verify_solution
from gpu_anneal import interrupts, phases, validate
from gpu_anneal.backends import check_backend_name, resolve_backend
from gpu_anneal.sudoku_solver import solve_batch

METHODS = ("anneal", "permute", "backtrack", "impasse")
# impasse: chains a grid, fixed so that a grid does not depend on the machine's cores
GRID_CHAINS = 2
GRID_T0 = 0.3
GRID_RATIO = 0.98
PERMUTE_MOVES = {"any": sg.MOVES_ANY, "row": sg.MOVES_ROW}
DEFAULT_TI = 1.0
DEFAULT_TF = 0.15
DEFAULT_STEP = 0.0002
# Emptyings per grid, best kept: 4 bring the median to 22 givens at about 0.03 s a puzzle
# (benchmarks/results/generation.md); the seed's single run gives 23.
DEFAULT_TRIES = 4

# Seed purposes: each use of the seed draws from its own splitmix64 family.
_PURPOSE_PERMUTE = 1
_PURPOSE_BACKTRACK = 2
_PURPOSE_MINIMIZE = 3
_PURPOSE_IMPASSE = 4


def grid_schedule(order: int) -> Schedule:
    """The annealing schedule used to fill grids: geometric, T0 = 0.3, ratio 0.98."""
    return geometric(order, t0=GRID_T0, ratio=GRID_RATIO, stall=0)


def check_order(order) -> int:
    """The order as an int, or InputError when it is not in 2..8."""
    if not isinstance(order, (int, np.integer)) or not MIN_ORDER <= int(order) <= MAX_ORDER:
        raise InputError(f"order {order!r}: must be an integer in {MIN_ORDER}..{MAX_ORDER}")
    return int(order)


def check_temperatures(ti: float, tf: float, step: float) -> None:
    """InputError unless 0 < tf < ti and step > 0, each a number up to validate's largest
    temperature (and the step count stays reasonable)."""
    for name, value in (("ti", ti), ("tf", tf), ("step", step)):  # each above 0
        validate.number(name, value, 0.0, validate.MAX_TEMPERATURE, lo_open=True)
    if not tf < ti:
        raise InputError(f"tf {tf}: must be below ti {ti}")
    if sm.step_count(ti, tf, step) > 10**9:
        raise InputError(f"step {step}: more than 10**9 steps from ti {ti} to tf {tf}")


# generate_grids' options that some methods alone take: option -> the methods that take it
METHOD_OPTIONS = {
    "batch": ("anneal",),
    "schedule": ("anneal",),
    "moves": ("permute",),
    "patience": ("permute",),
    "max_restarts": ("permute",),
    "max_nodes": ("backtrack",),
}


def check_method_options(method: str, backend: str, given: dict) -> None:
    """InputError for an option given (not None) that `method` does not take (METHOD_OPTIONS),
    or a backend other than "auto" or "cpu" for a method that runs on the CPU alone."""
    for name, value in given.items():
        if value is not None and method not in METHOD_OPTIONS[name]:
            takers = " and ".join(METHOD_OPTIONS[name])
            raise InputError(f"{name} applies to method {takers}, not {method}")
    if method != "anneal" and backend not in ("auto", "cpu"):
        raise InputError(f"backend {backend!r}: method {method} runs on the CPU alone (backend "
                         "applies to method anneal)")  # fmt: skip


def generate_grids(
    order: int,
    count: int,
    method: str = "anneal",
    seed: int = 0,
    backend: str = "auto",
    givens: np.ndarray | None = None,
    *,
    time_limit: float | None = 60.0,
    batch: int | None = None,
    moves: str | None = None,
    patience: int | None = None,
    max_restarts: int | None = None,
    max_nodes: int | None = None,
    first_index: int = 0,
    schedule: Schedule | str | None = None,
    on_grid: Callable[[int, np.ndarray | None], None] | None = None,
) -> tuple[np.ndarray, dict]:
    """``count`` full grids of ``order`` made by ``method``; returns (uint8[count, cells], stats).

    ``givens`` (uint8[count, cells] or one row used for every grid) are kept: the method completes
    them. Without givens the grids start empty. Grid i depends only on (seed, method,
    first_index + i) for permute, backtrack and impasse, and on the chain stream first_index + i
    for anneal.
    Failed grids are all zeros, their indices in ``stats["failed"]``. Options: ``time_limit``
    (seconds; anneal: per batch; None or 0: none), ``batch`` (anneal grids per solve_batch call),
    ``moves`` ("any"), ``patience`` and ``max_restarts`` (10,000) (permute), ``max_nodes``
    (backtrack, 0 = no limit), ``schedule`` (anneal; default ``grid_schedule`` for empty grids,
    "sirdey-course" with givens). An option of another method (METHOD_OPTIONS) is refused, and so
    is a backend other than "auto" or "cpu" where the method runs on the CPU alone.
    ``on_grid(i, grid)`` is called once for every i, in the order of i, as soon as the chunk
    holding grid i has ended and been checked, with the grid, or None for one not found; grids
    already reported are kept by the caller when the call is cut short (Ctrl-C). Neither the
    checking nor on_grid counts in ``time_limit``.
    """
    order = check_order(order)
    if method not in METHODS:
        raise InputError(f"method {method!r}: expected one of {', '.join(METHODS)}")
    check_backend_name(backend)  # for every method, as solve checks it
    given = dict(batch=batch, schedule=schedule, moves=moves, patience=patience,
                 max_restarts=max_restarts, max_nodes=max_nodes)  # fmt: skip
    check_method_options(method, backend, given)
    moves = "any" if moves is None else moves
    max_restarts = 10_000 if max_restarts is None else max_restarts
    max_nodes = 0 if max_nodes is None else max_nodes
    lay = layout(order)
    # integers in 0..N only: a float is never truncated, a 257 never wrapped to 1
    if givens is not None:
        given_rows = np.ascontiguousarray(validate.sudoku_array(givens, order, "givens")[0])
    else:
        given_rows = None
    if count is None and given_rows is not None:  # a grid of givens each
        count = given_rows.shape[0]
    count = validate.count(count, lay.cells, "count")
    seed = validate.seed(seed, "seed") or 0  # None: the default
    first_index = validate.integer("first_index", first_index, 0)
    batch = validate.batch(batch, "batch")
    if schedule is not None and not isinstance(schedule, (str, Schedule)):
        raise InputError(f"schedule {schedule!r}: expected a schedule's name or a Schedule")
    time_limit = validate.time_limit(time_limit, "time limit") or None
    rows = np.zeros((count, lay.cells), np.uint8) if given_rows is None else given_rows
    if rows.shape[0] == 1 and count > 1:
        rows = np.repeat(rows, count, axis=0)
    if rows.shape[0] != count:
        raise InputError(f"givens: {rows.shape[0]} rows for count = {count}")
    if on_grid is not None and not callable(on_grid):
        raise InputError(f"on_grid {on_grid!r}: must be a function taking (index, grid or None)")
    start = time.perf_counter()
    checked, clock = _Checked(rows, order, on_grid), _Clock(time_limit)
    if method == "anneal":  # the limit per batch, a card's first chunk a whole batch
        used, sched, size = _anneal_plan(rows, order, backend, batch, schedule)
        made = partial(_anneal, order=order, seed=seed, options=(used, sched, clock))
        first = size if used == "cuda" else min(size, FIRST_CHUNK_PER_THREAD * _threads())
        stats = _in_chunks(made, rows, first_index, clock, checked, size, first)
    else:
        options = {"permute": (moves, patience, max_restarts), "backtrack": (max_nodes,)}
        made = partial(_METHOD_RUNS[method], order=order, seed=seed, options=options.get(method))
        stats = _in_chunks(made, rows, first_index, clock, checked)
    grids, failed = checked.grids, sorted(checked.failed)
    seconds = time.perf_counter() - start
    stats.update(
        method=method,
        order=order,
        count=count,
        verified=count - len(failed),
        failed=failed,
        seconds=round(seconds, 6),
        grids_per_second=round((count - len(failed)) / seconds, 3) if seconds > 0 else None,
        threads=numba.get_num_threads(),
        cells=lay.cells,
    )
    return grids, stats


class _Checked:
    """The grids of a call as they end: each checked by verify_solution against its givens,
    kept (grids[i]) or listed in `failed`, and handed to on_grid once."""

    def __init__(self, rows: np.ndarray, order: int, on_grid) -> None:
        self.rows, self.order, self.on_grid = rows, order, on_grid
        self.grids = np.zeros_like(rows)
        self.failed: list[int] = []

    def __call__(self, i: int, grid: np.ndarray | None) -> None:
        """Grid i ended: `grid` as its method left it (None or all zeros: not found)."""
        good = grid is not None and grid.any()
        if good and verify_solution(grid, self.order, self.rows[i]) is None:
            self.grids[i] = grid
        else:
            self.failed.append(i)
            grid = None
        if self.on_grid is not None:
            self.on_grid(i, None if grid is None else self.grids[i].copy())


# Grids a chunk holds at first, per CPU thread; a chunk that ends within CHUNK_SECONDS is
# followed by a larger one (_next_chunk), up to MAX_CHUNK grids (anneal: up to its batch).
# Each chunk's grids are reported as it ends, so a long call shows (and keeps) its first
# grids soon.
FIRST_CHUNK_PER_THREAD = 2
LAST_CHUNK_SECONDS = 0.001  # a window with less time left starts no chunk
EMPTY_CHUNK_PER_THREAD = 8  # grids emptied at a time, per thread, at most, by a slow chunk
CHUNK_SECONDS = 1.0
MAX_CHUNK = 4096


class _Clock:
    """The deadline of a window of grids: time_limit seconds (None: none) from its start, put
    off by the compiling that a method says it did and by the checking and reporting of the
    grids made (neither is counted in the limit: a slow reader of the output costs no grid)."""

    def __init__(self, time_limit: float | None) -> None:
        self.time_limit, self.deadline = time_limit, None

    def start(self) -> None:
        if self.time_limit is not None:
            self.deadline = time.perf_counter() + self.time_limit

    def put_off(self, seconds: float) -> None:
        if self.deadline is not None:
            self.deadline += seconds

    def left(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.perf_counter()


def _next_chunk(size: int, seconds: float) -> int:
    """The grids of the chunk after one of `size` grids that took `seconds`: a quick chunk is
    followed by one sized to take about a quarter of CHUNK_SECONDS (at least twice as large, up
    to MAX_CHUNK; a larger first chunk is kept), a slow one by one as large."""
    if seconds >= CHUNK_SECONDS:
        return size
    paced = int(size * CHUNK_SECONDS / 4 / max(seconds, 1e-6))
    return min(max(MAX_CHUNK, size), max(2 * size, paced))


def _in_chunks(made, rows, first_index, clock, checked, window=None, first=None) -> dict:
    """The grids of `rows` by made(rows, first_index, seconds) -> (grids, stats), a chunk at a
    time (`first` grids, default FIRST_CHUNK_PER_THREAD a thread, then growing), each chunk's
    grids handed to `checked` as it ends. The clock's limit holds for each `window` grids
    (None: the whole call); a chunk never spans two windows. made(rows[:0], ...) runs first and
    compiles. Grids the limit leaves unmade are reported not found. Returns the chunks' stats
    merged (_merged)."""
    count = rows.shape[0]
    parts, weights = [made(rows[:0], first_index, None)[1]], [0]
    window = window or max(1, count)
    size = first or FIRST_CHUNK_PER_THREAD * _threads()
    lo, cut = 0, False
    while lo < count:
        if lo % window == 0:
            clock.start()
            cut = False
        left = clock.time_limit if lo % window == 0 else clock.left()  # a window's first: whole
        if cut or (left is not None and left < LAST_CHUNK_SECONDS):  # the rest is not made
            parts.append({"time_limit_reached": True})
            weights.append(0)
            end = min(count, (lo // window + 1) * window)
            for i in range(lo, end):
                checked(i, None)
            lo = end
            continue
        hi = min(count, lo + size, (lo // window + 1) * window)
        began = time.perf_counter()
        grids, stats = made(rows[lo:hi], first_index + lo, left)
        parts.append(stats)
        weights.append(hi - lo)
        ended = time.perf_counter()
        for i in range(lo, hi):
            checked(i, grids[i - lo])
        clock.put_off(time.perf_counter() - ended)
        cut = bool(stats.get("time_limit_reached"))  # the limit stopped the chunk
        size = _next_chunk(size, ended - began)
        lo = hi
    return _merged(parts, weights)


# counts in a method's stats that say how it was asked to run, the same in every chunk (so are
# its texts, such as permute's moves, and its dicts, such as anneal's schedule)
_SETTINGS = ("patience", "max_restarts", "chains_a_grid")


def _merged(parts: list[dict], weights: list[int]) -> dict:
    """The stats of chunks as one call's: counts summed, flags or-ed, settings kept,
    restarts_per_grid the mean over the grids (weights: the grids of each part)."""
    out: dict = {}
    for key in parts[0]:
        values = [p[key] for p in parts if key in p]
        if key in _SETTINGS or isinstance(values[0], (str, dict)):
            out[key] = values[0]
        elif isinstance(values[0], bool):
            out[key] = any(values)
        elif key == "restarts_per_grid":
            pairs = [(p[key], w) for p, w in zip(parts, weights, strict=True) if key in p]
            grids = sum(w for _, w in pairs)
            out[key] = round(sum(v * w for v, w in pairs) / max(1, grids), 3)
        else:
            out[key] = sum(values)
    if any("time_limit_reached" in p for p in parts):
        out["time_limit_reached"] = any(p.get("time_limit_reached", False) for p in parts)
    return out


def _anneal(rows, first_index, time_limit, *, order, seed, options):
    """Grids of rows by solve_batch, one chain each (options: backend, schedule, clock)."""
    used, sched, clock = options
    grids = np.zeros_like(rows)
    compiling = []

    def compiled(seconds: float) -> None:
        compiling.append(seconds)
        clock.put_off(seconds)

    began = time.perf_counter()
    with warnings.catch_warnings():
        if time_limit is not None and time_limit < clock.time_limit:
            # a later chunk's seconds are what its window has left, not a limit the caller set
            warnings.simplefilter("ignore", LimitWarning)
        results = solve_batch(
            rows, order, schedule=sched, chains=1, seed=seed, time_limit=time_limit,
            backend=used, first_chain=first_index, on_compiled=compiled,
        )  # fmt: skip
    annealed = time.perf_counter() - began - sum(compiling)
    unsolved = any(not r.solved for r in results)
    for r in results:
        if r.solved:
            grids[r.index] = r.solution
    trials = sum(r.trials for r in results)
    proposals = sum(r.proposals for r in results)
    stats = {
        "backend": used,
        "schedule": sched.as_dict(),
        "trials": int(trials),
        "proposals": int(proposals),
        # a grid left unmade when the chunk's seconds ran out (not by its restart budget)
        "time_limit_reached": bool(unsolved and time_limit is not None and annealed >= time_limit),
    }  # fmt: skip
    return grids, stats


def _anneal_plan(rows, order, backend, batch, schedule) -> tuple[str, Schedule, int]:
    """(backend, schedule, batch) of anneal's grids: a card's batch fills it at once."""
    used = resolve_backend(backend)
    size = batch or (65536 if used == "cuda" else 4096)
    if size < 1:
        raise InputError(f"batch = {size}: must be at least 1")
    if schedule is None:
        schedule = "sirdey-course" if rows.any() else grid_schedule(order)
    sched = by_name(schedule, order) if isinstance(schedule, str) else schedule
    return used, sched, size


def until_stopped(work: Callable[..., None], time_limit: float | None) -> bool:
    """work(stop, rows) by interrupts.stoppable, stop a uint8[1] flag that it reads and rows a
    slice of its batch; the flag is set when time_limit seconds pass (None: never), on Ctrl-C
    or at the run's deadline, which are raised once the work has stopped. work(stop,
    slice(0, 0)) runs first, here: it compiles, and compilation is not counted in the limit.
    Returns whether the limit stopped the work (an exception of the work is raised here)."""
    work(np.zeros(1, np.uint8), slice(0, 0))
    flags = []

    def whole(stop) -> None:
        flags.append(stop)
        work(stop, slice(None))

    interrupts.stoppable(whole, seconds=time_limit)
    return bool(flags[0][0])


def _permute(rows, first_index, time_limit, *, order, seed, options):
    moves, patience, max_restarts = options
    if moves not in PERMUTE_MOVES:
        raise InputError(f"moves {moves!r}: expected one of {', '.join(PERMUTE_MOVES)}")
    lay = layout(order)
    if patience is None:
        patience = lay.cells * (lay.cells - 1)
    patience = validate.integer("patience", patience, 1)
    max_restarts = validate.integer("max_restarts", max_restarts, 0)
    units, cell_units, _ = tables(order)
    count = rows.shape[0]
    grids = np.zeros_like(rows)
    costs = np.zeros(count, dtype=np.int64)
    restarts = np.zeros(count, dtype=np.int64)
    proposals = np.zeros(count, dtype=np.int64)
    seeds = sg.grid_seeds(seed, _PURPOSE_PERMUTE, first_index, count)

    def work(stop, part):
        sg.permute_batch(
            rows[part], seeds[part], units, cell_units, lay.N, PERMUTE_MOVES[moves],
            int(patience), int(max_restarts), grids[part], costs[part], restarts[part],
            proposals[part], stop,
        )  # fmt: skip

    stopped = until_stopped(work, time_limit)
    grids[costs != 0] = 0
    stats = {
        "moves": moves,
        "patience": int(patience),
        "max_restarts": int(max_restarts),
        "stuck": int(restarts.sum() + (costs != 0).sum()),
        "restarts_per_grid": round(float(restarts.mean()), 3) if count else 0.0,
        # unfinished with every restart spent (the others the limit stopped)
        "restart_budget_spent": int(((costs != 0) & (restarts >= max_restarts)).sum()),
        "proposals": int(proposals.sum()),
        "time_limit_reached": stopped,
    }
    return grids, stats


def _backtrack(rows, first_index, time_limit, *, order, seed, options):
    (max_nodes,) = options
    max_nodes = validate.integer("max_nodes", max_nodes, 0)
    lay = layout(order)
    units, cell_units, peer_list = tables(order)
    count = rows.shape[0]
    grids = np.zeros_like(rows)
    counts = np.zeros(count, dtype=np.int64)
    restarts = np.zeros(count, dtype=np.int64)
    nodes = np.zeros(count, dtype=np.int64)
    seeds = sg.grid_seeds(seed, _PURPOSE_BACKTRACK, first_index, count)

    def work(stop, part):
        sg.backtrack_batch(
            rows[part], seeds[part], units, cell_units, peer_list, lay.N, lay.peer_count,
            4 * lay.cells, int(max_nodes), grids[part], counts[part], restarts[part],
            nodes[part], stop,
        )  # fmt: skip

    stopped = until_stopped(work, time_limit)
    grids[counts != 1] = 0
    stats = {
        "no_completion": int((counts == 0).sum()),
        "node_budget_spent": int((counts == -1).sum()),
        "restarts": int(restarts.sum()),
        "nodes": int(nodes.sum()),
        "time_limit_reached": stopped,
    }
    return grids, stats


def _impasse(rows, first_index, time_limit, *, order, seed, options=None):
    from cpu_reference.sudoku.impasse import compile_chains, impasse_solve
    from gpu_anneal.impasse_solver import fill_of, temperature_at

    count = rows.shape[0]
    grids = np.zeros_like(rows)
    moves = np.zeros(count, dtype=np.int64)
    no_solution = np.zeros(count, dtype=bool)
    seeds = sg.grid_seeds(seed, _PURPOSE_IMPASSE, first_index, count)
    shared = count > 0 and bool((rows == rows[0]).all())

    def work(stop, part):
        indices = range(count)[part]
        if not indices:
            compile_chains()
            return
        if shared:
            temperature = temperature_at(order, fill_of(rows[0]))
            impasse_side_by_side(
                rows[0], order, seeds, temperature, grids, moves, no_solution, stop
            )
            return
        for i in indices:
            if stop[0]:
                return
            temperature = temperature_at(order, fill_of(rows[i]))
            raw = impasse_solve(
                rows[i], order, GRID_CHAINS, int(seeds[i]), temperature, None,
                stop=lambda: stop[0] != 0,
            )  # fmt: skip
            moves[i] = raw["moves"]
            no_solution[i] = raw["status"] == "no_solution"
            if raw["status"] == "solved":
                grids[i] = raw["grid"]

    stopped = until_stopped(work, time_limit)
    stats = {
        "chains_a_grid": GRID_CHAINS,
        "moves": int(moves.sum()),
        "no_solution": int(no_solution.sum()),
        "time_limit_reached": stopped,
    }
    return grids, stats


_METHOD_RUNS = {"permute": _permute, "backtrack": _backtrack, "impasse": _impasse}


def _threads() -> int:
    return numba.get_num_threads()


def impasse_side_by_side(
    row, order, seeds, temperature, grids, moves, no_solution, stop, groups=None
) -> None:
    """Grid k of len(seeds) completions of one row of givens, by GRID_CHAINS impasse chains on
    the streams of seeds[k], written to grids[k] (moves[k]: its chains' moves) once one solves:
    the grid impasse_solve(row, order, GRID_CHAINS, seeds[k], temperature) gives. `groups` grids
    (default: as many as the CPU threads hold GRID_CHAINS chains each) run side by side, each
    slice of moves on every chain at once, a grid's chains taking the next grid when it is
    found; stop[0] set ends the run between slices. A row with no solution sets no_solution."""
    from cpu_reference.anneal.rng import init_states
    from cpu_reference.sudoku import impasse as im

    count = len(seeds)
    tables = im.impasse_tables(np.asarray(row, np.uint8).ravel(), order)
    if tables is None:
        no_solution[:] = True
        return
    if groups is None:
        groups = max(1, numba.get_num_threads() // GRID_CHAINS)
    groups = max(1, min(int(groups), count))
    args = list(im.chain_arrays(tables, order, groups * GRID_CHAINS, 0, temperature))
    states, best, best_f, solved, counts = (
        args[im.STATES], args[im.BEST], args[im.BEST_F], args[im.SOLVED], args[im.COUNTS]
    )  # fmt: skip
    cells = best.shape[1]
    grid_of = np.full(groups, -1, np.int64)  # the grid each group of chains works on
    waiting = iter(range(count))

    def take_next(g: int) -> None:
        chains = slice(g * GRID_CHAINS, (g + 1) * GRID_CHAINS)
        k = next(waiting, -1)
        grid_of[g] = k
        solved[chains] = 1  # an idle group's chains make no moves
        if k >= 0:
            states[chains] = init_states(GRID_CHAINS, int(seeds[k]))
            best_f[chains], solved[chains], counts[chains] = cells + 1, 0, 0

    for g in range(groups):
        take_next(g)
    while (grid_of >= 0).any() and not stop[0]:
        im.run_impasse_cpu(*args)
        for g in np.flatnonzero(grid_of >= 0):
            chains = slice(g * GRID_CHAINS, (g + 1) * GRID_CHAINS)
            k = grid_of[g]
            moves[k] = counts[chains, 0].sum()
            if solved[chains].any():
                grids[k] = best[g * GRID_CHAINS + im.winner(solved[chains], counts[chains])]
                take_next(g)


def minimize_grids(
    grids: np.ndarray,
    order: int,
    seed: int = 0,
    ti: float = DEFAULT_TI,
    tf: float = DEFAULT_TF,
    step: float = DEFAULT_STEP,
    *,
    max_nodes: int = 0,
    first_index: int = 0,
    check_grids: bool = True,
    tries: int = DEFAULT_TRIES,
) -> list[dict]:
    """Empty each full grid to a minimal unique puzzle; one dict per grid, in order.

    Keys: index, seed, puzzle and solution (uint8[cells]), givens, sa_givens (before the greedy
    pass), checks (exact-solver calls), degradations, nodes, steps, seconds (the batch's wall time
    divided by its grids: amortised over all cores). Grid i depends only on (seed,
    first_index + i). ``max_nodes`` > 0 bounds each check during the annealing (a cut-short check
    counts as "not unique"); the greedy pass is never bounded, so every puzzle is minimal.
    ``tries`` anneals each grid that many times with the seed's parameters and keeps the puzzle
    of fewest givens (restarts, as for solving; the seed ran once: tries = 1).
    """
    order = check_order(order)
    seed = validate.seed(seed, "seed") or 0  # None: the default
    first_index = validate.integer("first_index", first_index, 0)
    check_grids = validate.flag("check_grids", check_grids)
    check_temperatures(ti, tf, step)
    tries = validate.integer("tries", tries, 1)
    max_nodes = validate.integer("max_nodes", max_nodes, 0)
    lay = layout(order)
    a = np.ascontiguousarray(validate.sudoku_array(grids, order, "grids")[0])
    if check_grids:
        for i, row in enumerate(a):
            fault = verify_solution(row, order)
            if fault is not None:
                raise InputError(f"grid {first_index + i}: not a valid full grid: {fault}")
    count = a.shape[0]
    if count == 0:
        return []
    units, cell_units, peer_list = tables(order)
    seeds = sg.grid_seeds(seed, _PURPOSE_MINIMIZE, first_index, count)
    out = np.zeros_like(a)
    stats = np.zeros((count, sm.STATS), dtype=np.int64)
    steps = sm.step_count(ti, tf, step)
    start = time.perf_counter()

    def empty(stop) -> None:
        numba.set_parallel_chunksize(1)  # on the worker's thread: numba keeps one a thread
        sm.minimize_batch(
            a, seeds, units, cell_units, peer_list, lay.N, lay.peer_count, float(ti),
            float(step), steps, int(max_nodes), int(tries), out, stats, stop,
        )  # fmt: skip

    interrupts.stoppable(empty)  # Ctrl-C and the run's deadline end every try at once
    per = (time.perf_counter() - start) / count
    return [
        {
            "index": first_index + i,
            "seed": int(seed),
            "puzzle": out[i].copy(),
            "solution": a[i].copy(),
            "givens": int(stats[i, sm.S_GIVENS]),
            "sa_givens": int(stats[i, sm.S_SA_GIVENS]),
            "checks": int(stats[i, sm.S_CHECKS]),
            "degradations": int(stats[i, sm.S_DEGRADATIONS]),
            "nodes": int(stats[i, sm.S_NODES]),
            "steps": int(stats[i, sm.S_STEPS]),
            "seconds": round(per, 6),
        }
        for i in range(count)
    ]


def emptying_chunks(count: int) -> Iterator[tuple[int, int]]:
    """The (lo, hi) ranges of `count` grids to empty a chunk at a time, each timed from its
    yield to the next request: one grid a thread first (a 16x16 grid's emptying takes seconds,
    a 25x25's minutes), then twice as many while a chunk takes CHUNK_SECONDS or more, up to
    EMPTY_CHUNK_PER_THREAD a thread, or sized by _next_chunk when a chunk is quicker."""
    threads = _threads()
    size, cap, lo = threads, EMPTY_CHUNK_PER_THREAD * threads, 0
    while lo < count:
        hi = min(count, lo + size)
        began = time.perf_counter()
        yield lo, hi
        seconds = time.perf_counter() - began
        slow = seconds >= CHUNK_SECONDS
        size = min(max(size, cap), 2 * size) if slow else _next_chunk(size, seconds)
        lo = hi


def check_minimal(puzzle: np.ndarray, order: int) -> tuple[bool, bool]:
    """(unique, minimal) of a puzzle by the exact solver: one solution, no given removable."""
    order = check_order(order)
    lay = layout(order)
    units, cell_units, peer_list = tables(order)
    rows = validate.sudoku_array(puzzle, order, "puzzle")[0]
    if rows.shape[0] != 1:
        raise InputError(f"puzzle: {rows.shape[0]} grids; check_minimal takes one")
    cells = np.ascontiguousarray(rows[0])
    unique, minimal = sm.is_minimal(cells, units, cell_units, peer_list, lay.N, lay.peer_count)
    return bool(unique), bool(minimal)


def generate_puzzles(
    order: int,
    count: int,
    seed: int = 0,
    max_givens: int | None = None,
    *,
    method: str = "anneal",
    backend: str = "auto",
    ti: float = DEFAULT_TI,
    tf: float = DEFAULT_TF,
    step: float = DEFAULT_STEP,
    batch: int | None = None,
    max_rounds: int = 100,
    tries: int = DEFAULT_TRIES,
    on_puzzle=None,
    grid_options: dict | None = None,
) -> tuple[list[dict], dict]:
    """``count`` minimal puzzles with at most ``max_givens`` givens: full grids, then emptying.

    Grids are made and emptied in rounds of ``batch`` (default: the number still wanted, or
    with ``max_givens``, which some puzzles miss, 4 per thread and at least that many) until
    ``count`` puzzles qualify or ``max_rounds`` rounds are spent; each step is announced
    (gpu_anneal.phases: making grids, emptying). Returns
    (puzzles as from ``minimize_grids``, stats with grids_tried, the grids emptied or not made,
    and rounds). A round's grids
    are emptied a chunk at a time (emptying_chunks), and ``on_puzzle`` is called with each kept
    puzzle as soon as its chunk ends (a stop keeps the puzzles reported). ``grid_options`` are
    ``generate_grids``' keyword options for the grids of each round (time_limit, moves...).
    """
    order = check_order(order)
    check_temperatures(ti, tf, step)
    count = validate.count(count, layout(order).cells, "count")
    if max_givens is not None:
        max_givens = validate.integer("max_givens", max_givens, 0)
    max_rounds = validate.integer("max_rounds", max_rounds, 1)
    tries = validate.integer("tries", tries, 1)
    batch = validate.batch(batch, "batch")
    if on_puzzle is not None and not callable(on_puzzle):
        raise InputError(f"on_puzzle {on_puzzle!r}: must be a function taking a puzzle's dict")
    if grid_options is not None and not isinstance(grid_options, dict):
        raise InputError(f"grid_options {grid_options!r}: must be a dict of generate_grids' "
                         "keyword options")  # fmt: skip
    kept: list[dict] = []
    tried = made_and_tried = 0
    rounds = 0
    start = time.perf_counter()
    while len(kept) < count and rounds < max_rounds:
        wanted = count - len(kept)
        size = batch or (wanted if max_givens is None else max(4 * numba.get_num_threads(), wanted))
        phases.announce(phases.MAKING_GRIDS)
        grids, gstats = generate_grids(
            order, size, method, seed, backend, first_index=tried, **(grid_options or {})
        )
        good = grids[np.setdiff1d(np.arange(size), gstats["failed"])]
        phases.announce(phases.EMPTYING)
        emptied = 0
        for lo, hi in emptying_chunks(good.shape[0]):  # each chunk's puzzles reported as it ends
            if len(kept) >= count:
                break
            results = minimize_grids(
                good[lo:hi], order, seed, ti, tf, step, first_index=tried + lo, tries=tries
            )
            emptied = hi
            for rec in results:
                if len(kept) < count and (max_givens is None or rec["givens"] <= max_givens):
                    kept.append(rec)
                    if on_puzzle is not None:
                        on_puzzle(rec)
        tried += size  # the next round's grids are numbered on from this round's
        made_and_tried += len(gstats["failed"]) + emptied
        rounds += 1
    stats = {
        "wanted": int(count),
        "found": len(kept),
        "grids_tried": made_and_tried,  # emptied, or not made
        "rounds": rounds,
        "max_givens": max_givens,
        "seconds": round(time.perf_counter() - start, 6),
    }
    return kept, stats
