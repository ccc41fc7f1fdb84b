"""Sudoku by heat-bath annealing on partial legal grids (Morgenstern's impasse neighbourhood,
the search space of Blöchliger and Zufferey's PartialCol): jitted chain, CPU runner, replay.

The exact solver's rules run first (batch.logic_fill); the chains work on what they leave. A
chain's grid is never in conflict: each free cell holds one of its candidates or is open (0),
and no row, column or box holds a digit twice. Its cost is its open cells; cost 0 is a
solution. A move draws an open cell x; x stays open with the stay weight, or takes candidate d
with weight w(delta_d), delta_d the change of cost of writing d (the holders of d in x's row,
column and box open: delta_d = holders - 1, so -1..2), w(delta) = exp(-delta / T) at the
chain's held temperature T. The stay weight is s w(0), s the chain's stay factor in 0..1: 1 is
the heat bath; below 1 a drawn cell stays open less often, and at 0 it always takes a
candidate. A trial starts from every free cell open, then fills the free cells in a random
order, each with a random candidate that no unit of it holds where one exists; with
trial_moves > 0 a chain starts a fresh trial after that many moves (0: never).

Glossary of index names (as in cpu_reference.sudoku.layout):
    n, N     order, N = n * n digits and the side of the grid; cells = N * N
    i        chain index (thread index on the GPU); chain i draws from xoroshiro128+ stream i
    cell     r * N + c (row r, column c)
    unit     0..N-1 the rows, N..2N-1 the columns, 2N..3N-1 the boxes; units[cell] its three
    d        digit 1..N; cand[cell, :ncand[cell]] the cell's candidates after deduction
    free     free[:] the cells deduction leaves blank (the cells a chain writes)
    holder   holder[i, unit * (N + 1) + d]: the cell of the unit holding d in chain i, or -1
    oset     chain i's open set: oset[i, 0] its size, oset[i, 1:] its cells; where[i, cell] the
             cell's place in it (-1 outside)

Per-chain arrays (rows indexed by i):

    states  uint64[chains, 2]       RNG states          solved int32[chains]  1 once solved
    best    int16[chains, cells]    the grid of fewest open cells the chain has held (0 open);
                                    its solution once solved
    best_f  int64[chains]           best's open cells
    grid    uint8[chains, cells]    the chain's grid now (oset, where, holder: its indexes)
    counts  int64[chains, 3]        moves in all, moves of the trial, trials started
    weights int64[chains, 5]        w(-1), w(0), w(1), w(2) and the stay weight s w(0) in
                                    fixed point (heat_weights)

Draws per move: the open cell, then one draw a candidate in their order, a one-pass weighted
choice (draw_digit: stay open first; candidate m replaces the choice so far when a draw below
the running total falls under its weight), which picks d with probability w(delta_d) over the
total while computing each delta once. Every weight is an integer computed on the host, so a
chain takes the same moves on the CPU and on a card.

Fixed point of the weights (heat_weights):

    w(delta) = round(2**24 * exp(-(delta + 1) / T))      delta = -1, 0, 1, 2
    w(-1) = 2**24 .... w(2) = 2**24 * exp(-3 / T)        a draw's total <= (N + 1) * 2**24 < 2**31
    stay = round(s * w(0))                               weights[i, STAY_WEIGHT]

so the draw among them, uniform_below's top-32-bit product, is exact in 64-bit integers.
"""

from __future__ import annotations

import math
import time

import numpy as np
from numba import int64, njit, prange, uint64

from cpu_reference.anneal.rng import init_states, uniform_below
from cpu_reference.sudoku.batch import logic_fill

WEIGHT_BITS = 24  # w(-1), the largest weight, is 2**WEIGHT_BITS
STAY_WEIGHT = 4  # the stay weight's column of a chain's weights (heat_weights)
SLICE_MOVES = 200_000  # moves of every chain between two looks at the clock
# moves a chain makes at most when replayed alone (api.replay): well past any run's
REPLAY_MOVES = 2**62


def heat_weights(temperature: float, stay: float = 1.0) -> np.ndarray:
    """int64[5]: w(-1), w(0), w(1), w(2) at this temperature and the stay weight, `stay` (the
    stay factor, 0..1) times w(0), in the module's fixed point; ValueError when the
    temperature is not a number above 0 or the stay factor not one in 0..1."""
    if not (isinstance(temperature, (int, float)) and math.isfinite(temperature)):
        raise ValueError(f"temperature {temperature!r}: expected a number above 0")
    if temperature <= 0:
        raise ValueError(f"temperature {temperature!r}: expected a number above 0")
    if not (isinstance(stay, (int, float)) and 0 <= stay <= 1):
        raise ValueError(f"stay factor {stay!r}: expected a number in 0..1")
    scale = 2**WEIGHT_BITS
    weights = [round(scale * math.exp(-k / temperature)) for k in range(4)]
    return np.array([*weights, round(stay * weights[1])], np.int64)


# the tables' types: a move reads cand, ncand and units, so they are bytes (a digit, a count
# <= 64, a unit < 3 x 64) and more of them stay in a card's L1; free holds cells (< 4,096)
TABLE_TYPES = {"filled": np.int16, "free": np.int16, "cand": np.uint8, "ncand": np.uint8,
               "units": np.uint8}  # fmt: skip


def impasse_tables(cells: np.ndarray, order: int):
    """(filled, free, cand, ncand, units) of a puzzle after deduction (the glossary's, typed as
    TABLE_TYPES, filled the deduced grid), or None when deduction contradicts the givens (the
    puzzle has no solution)."""
    N = order * order
    filled, masks = logic_fill(np.asarray(cells, np.uint8).ravel(), order)
    if masks is None:
        return None
    free = np.flatnonzero(filled == 0)
    bits = masks.view(np.uint64)[free]
    digit_bits = np.uint64(1) << np.arange(N, dtype=np.uint64)
    has = (bits[:, None] & digit_bits[None, :]) != 0  # has[k, d - 1]: free cell k may take d
    cand = np.zeros((N * N, N), TABLE_TYPES["cand"])
    ncand = np.zeros(N * N, TABLE_TYPES["ncand"])
    ncand[free] = has.sum(axis=1)
    rank = np.cumsum(has, axis=1) - 1
    rows_at, digits_at = np.nonzero(has)
    cand[free[rows_at], rank[rows_at, digits_at]] = digits_at + 1
    rows, cols = np.divmod(np.arange(N * N), N)
    boxes = 2 * N + (rows // order) * order + cols // order
    units = np.stack([rows, N + cols, boxes], axis=1).astype(TABLE_TYPES["units"])
    return (filled.astype(TABLE_TYPES["filled"]), free.astype(TABLE_TYPES["free"]), cand, ncand,
            units)  # fmt: skip


# The helpers a move runs are inlined into the slice by numba: called, each takes its arrays as
# a stack of words, and a move's calls (its best kept, its write) cost more than its candidates.
@njit(cache=True, inline="always")
def _unit_holder(holder, i, units, cell, k, side, d):
    """The cell of `cell`'s k-th unit holding d in chain i, or -1."""
    return int64(holder[i, int64(units[cell, k]) * (side + 1) + d])


@njit(cache=True, inline="always")
def _set_holders(holder, i, units, cell, side, d, value):
    """The three units of `cell` record `value` (a cell, or -1) as their holder of d."""
    for k in range(3):
        holder[i, int64(units[cell, k]) * (side + 1) + d] = value


@njit(cache=True, inline="always")
def _open_cell(i, cell, grid, holder, oset, where, units, side):
    """Chain i's cell leaves its digit and joins the open set."""
    d = int64(grid[i, cell])
    _set_holders(holder, i, units, cell, side, d, -1)
    grid[i, cell] = 0
    size = int64(oset[i, 0])
    where[i, cell] = size
    oset[i, 1 + size] = cell
    oset[i, 0] = size + 1


@njit(cache=True, inline="always")
def _close_cell(i, cell, d, grid, holder, oset, where, units, side):
    """Chain i's open cell takes d (no unit of it holds d) and leaves the open set."""
    _set_holders(holder, i, units, cell, side, d, cell)
    grid[i, cell] = d
    size = int64(oset[i, 0])
    last = int64(oset[i, size])
    at = int64(where[i, cell])
    oset[i, 1 + at] = last
    where[i, last] = at
    oset[i, 0] = size - 1
    where[i, cell] = -1


@njit(cache=True, inline="always")
def cell_delta(i, x, d, holder, units, side):
    """The change of cost of writing d into open cell x: its distinct holders less one."""
    a = _unit_holder(holder, i, units, x, 0, side, d)
    b = _unit_holder(holder, i, units, x, 1, side, d)
    c = _unit_holder(holder, i, units, x, 2, side, d)
    opened = int64(a >= 0)
    if b >= 0 and b != a:
        opened += 1
    if c >= 0 and c != a and c != b:
        opened += 1
    return opened - 1


@njit(cache=True, inline="always")
def write_digit(i, x, d, grid, holder, oset, where, units, side):
    """Open cell x takes d: the holders of d in its units open first."""
    for k in range(3):
        y = _unit_holder(holder, i, units, x, k, side, d)
        if y >= 0:
            _open_cell(i, y, grid, holder, oset, where, units, side)
    _close_cell(i, x, d, grid, holder, oset, where, units, side)


@njit(cache=True, inline="always")
def draw_digit(i, x, stay, barred, s0, s1, weights, holder, cand, ncand, units, side):
    """The heat-bath draw of open cell x of chain i: (the digit it takes, 0 when it stays open,
    and the RNG state after). One pass, one draw a candidate in cand's order: the choice starts
    at staying open with weight `stay`; candidate m, of weight w_m = weights[i, delta_m + 1],
    replaces the choice so far when a draw below the running total stay + w_0 + ... + w_m falls
    under w_m, so d ends up chosen with probability w_d over the total. The candidate `barred`
    takes no draw and no weight (a value no candidate has, -1, bars none)."""
    total = stay
    pick = 0
    for m in range(ncand[x]):
        d = int64(cand[x, m])
        if d == barred:
            continue
        w = weights[i, cell_delta(i, x, d, holder, units, side) + 1]
        total += w
        r, s0, s1 = uniform_below(s0, s1, total)
        if int64(r) < w:
            pick = d
    return pick, s0, s1


@njit(cache=True)
def fresh_trial(i, s0, s1, grid, holder, oset, where, filled, free, cand, ncand, units, side):
    """Chain i's grid at the start of a trial (module docstring); returns the RNG state."""
    cells = side * side
    for k in range(3 * side * (side + 1)):
        holder[i, k] = -1
    for cell in range(cells):
        grid[i, cell] = filled[cell]
        where[i, cell] = -1
        if filled[cell] != 0:
            _set_holders(holder, i, units, cell, side, int64(filled[cell]), cell)
    nfree = free.shape[0]
    for k in range(nfree):
        oset[i, 1 + k] = free[k]
    for k in range(nfree - 1, 0, -1):  # Fisher-Yates: the order the free cells are filled in
        j, s0, s1 = uniform_below(uint64(s0), uint64(s1), k + 1)
        swap = oset[i, 1 + k]
        oset[i, 1 + k] = oset[i, 1 + int64(j)]
        oset[i, 1 + int64(j)] = swap
    for k in range(nfree):
        cell = int64(oset[i, 1 + k])
        fits = 0
        pick = 0
        for m in range(ncand[cell]):
            d = int64(cand[cell, m])
            if cell_delta(i, cell, d, holder, units, side) < 0:
                fits += 1
                r, s0, s1 = uniform_below(uint64(s0), uint64(s1), fits)
                if r == 0:
                    pick = d
        if fits > 0:
            grid[i, cell] = pick
            _set_holders(holder, i, units, cell, side, pick, cell)
    size = 0
    for k in range(nfree):
        cell = int64(free[k])
        if grid[i, cell] == 0:
            where[i, cell] = size
            oset[i, 1 + size] = cell
            size += 1
    oset[i, 0] = size
    return s0, s1


@njit(cache=True, inline="always")
def _keep_best(i, grid, oset, best, best_f):
    """Chain i's grid becomes its best when it has fewer open cells."""
    size = int64(oset[i, 0])
    if size < best_f[i]:
        best_f[i] = size
        for cell in range(grid.shape[1]):
            best[i, cell] = grid[i, cell]


@njit(cache=True)
def impasse_slice(
    i, states, best, best_f, solved, grid, holder, oset, where, counts, weights,
    filled, free, cand, ncand, units, side, slice_moves, trial_moves,
):  # fmt: skip
    """Up to `slice_moves` heat-bath moves of chain i (none once solved): its first trial
    started where it has none, a fresh one after `trial_moves` moves of a trial (0: never);
    solved[i] = 1 at cost 0, best and best_f kept (module docstring)."""
    if solved[i] != 0:
        return
    s0 = uint64(states[i, 0])
    s1 = uint64(states[i, 1])
    # the counts live in registers for the slice: a chain's row of counts shares a cache line
    # with its neighbours', which other threads write
    moves, trial, trials = int64(counts[i, 0]), int64(counts[i, 1]), int64(counts[i, 2])
    if trials == 0:
        s0, s1 = fresh_trial(
            i, s0, s1, grid, holder, oset, where, filled, free, cand, ncand, units, side
        )
        trials = 1
        _keep_best(i, grid, oset, best, best_f)
    stay = int64(weights[i, STAY_WEIGHT])
    for _ in range(slice_moves):
        size = int64(oset[i, 0])
        if size == 0:
            solved[i] = 1
            break
        if trial_moves > 0 and trial >= trial_moves:
            s0, s1 = fresh_trial(
                i, s0, s1, grid, holder, oset, where, filled, free, cand, ncand, units, side
            )
            trial = 0
            trials += 1
            _keep_best(i, grid, oset, best, best_f)
            continue
        at, s0, s1 = uniform_below(s0, s1, size)
        x = int64(oset[i, 1 + int64(at)])
        pick, s0, s1 = draw_digit(i, x, stay, -1, s0, s1, weights, holder, cand, ncand, units, side)
        if pick != 0:
            write_digit(i, x, pick, grid, holder, oset, where, units, side)
        moves += 1
        trial += 1
        _keep_best(i, grid, oset, best, best_f)
    counts[i, 0] = moves
    counts[i, 1] = trial
    counts[i, 2] = trials
    if oset[i, 0] == 0:
        solved[i] = 1
    states[i, 0] = s0
    states[i, 1] = s1


# impasse_slice compiled once more to be inlined into the CPU runner's parallel loop: called,
# the loop's body passes its 18 arguments a chain and the slice's loop compiles apart from it
_inlined_slice = njit(cache=True, inline="always")(impasse_slice.py_func)


@njit(parallel=True, cache=True, nogil=True)
def run_impasse_cpu(
    states, best, best_f, solved, grid, holder, oset, where, counts, weights,
    filled, free, cand, ncand, units, side, slice_moves, trial_moves,
):  # fmt: skip
    """One slice on every chain, one chain per prange iteration (impasse_slice's arguments
    after i)."""
    for i in prange(states.shape[0]):
        _inlined_slice(
            i, states, best, best_f, solved, grid, holder, oset, where, counts, weights,
            filled, free, cand, ncand, units, side, slice_moves, trial_moves,
        )  # fmt: skip


# the state arrays' types: a digit (1..N, N <= 64) fits a byte; a cell (< 4,096) or -1 an int16
ROW_TYPES = {"grid": np.uint8, "where": np.int16, "oset": np.int16, "holder": np.int16}


def row_lengths(side: int) -> dict[str, int]:
    """The length of a chain's row of each state array (ROW_TYPES) for a side-N grid: grid
    and where (the cells), oset (the cells and the count), holder (3 N (N + 1))."""
    cells = side * side
    return {"grid": cells, "where": cells, "oset": cells + 1, "holder": 3 * side * (side + 1)}


def row_bytes(side: int, name: str) -> int:
    """Bytes of a chain's row of the state array `name` for a side-N grid (row_lengths,
    ROW_TYPES)."""
    return row_lengths(side)[name] * np.dtype(ROW_TYPES[name]).itemsize


def chain_arrays(
    tables, order: int, chains: int, seed: int, temperature: float, stay: float = 1.0
) -> tuple:
    """impasse_slice's arguments after i for `chains` fresh chains (slice_moves SLICE_MOVES,
    trial_moves 0), chain i on xoroshiro128+ stream i of `seed`, its weights
    heat_weights(temperature, stay): states, best, best_f, solved, grid, holder, oset, where,
    counts, weights, the puzzle's tables, side, slice_moves, trial_moves."""
    filled, free, cand, ncand, units = tables
    N = order * order
    cells = N * N
    rows = row_lengths(N)
    states = init_states(chains, seed)
    weights = np.tile(heat_weights(temperature, stay), (chains, 1))
    return (
        states, np.zeros((chains, cells), np.int16), np.full(chains, cells + 1, np.int64),
        np.zeros(chains, np.int32), np.zeros((chains, rows["grid"]), ROW_TYPES["grid"]),
        np.full((chains, rows["holder"]), -1, ROW_TYPES["holder"]),
        np.zeros((chains, rows["oset"]), ROW_TYPES["oset"]),
        np.full((chains, rows["where"]), -1, ROW_TYPES["where"]),
        np.zeros((chains, 3), np.int64), weights,
        filled, free, cand, ncand, units, N, SLICE_MOVES, 0,
    )  # fmt: skip


# indexes of chain_arrays' tuple
STATES, BEST, BEST_F, SOLVED, GRID, HOLDER, OSET, WHERE, COUNTS, WEIGHTS = range(10)
SLICE_AT, TRIAL_AT = 16, 17


def blank_chain(moves: int = 10) -> tuple:
    """(tables, arguments): the tables of a blank 4x4 grid and impasse_slice's arguments after
    i up to slice_moves (SLICE_AT) for one fresh chain on it making `moves` moves a slice, as a
    warm-up that compiles a slice of the same arguments runs it."""
    tables = impasse_tables(np.zeros(16, np.uint8), 2)
    args = list(chain_arrays(tables, 2, 1, 0, 1.0))
    args[SLICE_AT] = moves
    return tables, args[: SLICE_AT + 1]


def winner(solved: np.ndarray, counts: np.ndarray) -> int:
    """The reported chain: among the solved, the one that solved in the fewest moves (the
    lowest index on a tie; every chain runs the same moves a slice, so the choice does not
    depend on how chains are scheduled); -1 when none solved."""
    done = np.flatnonzero(solved)
    if done.size == 0:
        return -1
    return int(done[np.argmin(counts[done, 0])])


def impasse_solve(
    cells,
    order: int,
    chains: int,
    seed: int,
    temperature: float,
    time_limit: float | None,
    runner=None,
    trial_moves: int = 0,
    slice_moves: int = SLICE_MOVES,
    stop=None,
    stay: float = 1.0,
) -> dict:
    """One puzzle by `chains` heat-bath chains (stay factor `stay`) until one solves,
    `time_limit` seconds pass (None: none) or stop() is true (checked between slices).

    runner: a TrialRunner (cpu_reference.anneal.contract; budget = slices) over
    impasse_slice's arguments, None for run_impasse_cpu. Returns {status ("solved", "unsolved"
    or "no_solution"), free (the cells deduction left blank: 0 when it solved the puzzle),
    grid (uint8[cells]: the solution, else the best chain's best grid with 0 on its open
    cells; None for no_solution), open (its open cells), chain (the solving
    chain or -1), moves (over all chains), chain_moves (the solving chain's), trials, slices,
    seconds}.
    """
    from cpu_reference.anneal.trials import CpuTrials

    start = time.perf_counter()
    cells = np.asarray(cells, np.uint8).ravel()
    tables = impasse_tables(cells, order)
    if tables is None:
        return {"status": "no_solution", "free": 0, "grid": None, "open": None, "chain": -1,
                "moves": 0, "chain_moves": 0, "trials": 0, "slices": 0,
                "seconds": time.perf_counter() - start}  # fmt: skip
    args = list(chain_arrays(tables, order, chains, seed, temperature, stay))
    args[SLICE_AT], args[TRIAL_AT] = int(slice_moves), int(trial_moves)
    solved = args[SOLVED]
    if runner is None:
        runner = CpuTrials(run_impasse_cpu, solved)
    runner.load(tuple(args))
    slices = 0
    while True:
        runner.run(1)
        slices += 1
        done = runner.status().any()
        late = time_limit is not None and time.perf_counter() - start > time_limit
        if done or late or (stop is not None and stop()):
            break
    runner.fetch()
    host = runner.fetched()
    best, best_f, solved, counts = host[BEST], host[BEST_F], host[SOLVED], host[COUNTS]
    chain = winner(solved, counts)
    shown = chain if chain >= 0 else int(np.argmin(best_f))
    return {
        "status": "solved" if chain >= 0 else "unsolved",
        "free": len(tables[1]),
        "grid": best[shown].astype(np.uint8),
        "open": int(best_f[shown]),
        "chain": chain,
        "moves": int(counts[:, 0].sum()),
        "chain_moves": int(counts[shown, 0]),
        "trials": int(counts[:, 2].sum()),
        "slices": slices,
        "seconds": time.perf_counter() - start,
    }


def compile_chains(runner=None) -> None:
    """Compile (or load from the cache) the chains' code, and the runner's kernel where one is
    given: impasse_solve on a blank 4x4 grid, 10 moves of one chain."""
    impasse_solve(np.zeros(16, np.uint8), 2, 1, 0, 1.0, None, runner, slice_moves=10)


def impasse_replay(
    cells, order: int, chains: int, seed: int, temperature: float, chain: int,
    trial_moves: int = 0, max_moves: int = REPLAY_MOVES, time_limit: float | None = None,
    stay: float = 1.0,
) -> dict:  # fmt: skip
    """Chain `chain` of a run with `chains` chains (stay factor `stay`) re-run alone on the
    CPU from its own stream, until it solves, makes max_moves moves or `time_limit` seconds pass
    (None: none): {status, free, grid, open, moves, trials} as impasse_solve's (the same grid
    and moves as in the run where it solved)."""
    start = time.perf_counter()
    cells = np.asarray(cells, np.uint8).ravel()
    tables = impasse_tables(cells, order)
    if tables is None:
        return {"status": "no_solution", "free": 0, "grid": None, "open": None, "moves": 0,
                "trials": 0}  # fmt: skip
    args = list(chain_arrays(tables, order, 1, seed, temperature, stay))
    args[STATES] = init_states(chains, seed)[chain : chain + 1].copy()
    args[TRIAL_AT] = int(trial_moves)
    counts = args[COUNTS]
    while not args[SOLVED][0] and counts[0, 0] < max_moves:
        if time_limit is not None and time.perf_counter() - start > time_limit:
            break
        args[SLICE_AT] = int(min(SLICE_MOVES, max_moves - counts[0, 0]))
        impasse_slice(0, *args)
    return {
        "status": "solved" if args[SOLVED][0] else "unsolved",
        "free": len(tables[1]),
        "grid": args[BEST][0].astype(np.uint8),
        "open": int(args[BEST_F][0]),
        "moves": int(counts[0, 0]),
        "trials": int(counts[0, 2]),
    }
