"""Annealing on partial legal grids at the frontier: Morgenstern's impasse neighbourhood (the
search space of Blöchliger and Zufferey's PartialCol) on the engine's candidates, beside the
default technique, on bench_frontier's Lewis-style instances.

An experiment, not an engine option. Deduction first (cpu_reference.sudoku.batch.logic_fill).
A grid here is never in conflict: each free cell holds one of its candidates or is open (0),
and no row, column or box holds a digit twice. The cost is the number of open cells; a grid of
cost 0 is a solution. A move draws an open cell x and one of its candidates d at random, writes
d into x, and opens every cell of x's row, column and box that held d (at most three cells):
its change of cost is the cells opened less one (-1, 0, 1 or 2), accepted by Metropolis' rule
at temperature T (updated every 1,024 moves while it cools). A trial starts from every free
cell open, then fills the cells in a random order, each with a random candidate that opens
nothing where one exists, and cools T geometrically from T0 to T1 over STEPS moves; an unsolved
trial starts afresh. With a fourth field DT, chain i runs T0 + i DT down to T1 + i DT (a
spread of temperatures over the chains; none by default). Other forms of a setting:

    heat/T0:T1:STEPS[:DT]   heat-bath moves: a random open cell stays open with weight 1 or
                            takes candidate d with weight exp(-delta_d / T)
    tabu/L:LAMBDA:STEPS     PartialCol's tabu search: each step the least-cost move over every
                            open cell and candidate, a cell it opens barred from its digit for
                            0..L plus LAMBDA times the open cells steps (aspiration below the
                            trial's best); a fresh trial after STEPS steps
    ptR/T_LOW:T_HIGH:MOVES  replica exchange: each chain R replicas on temperatures geometric
                            from T_LOW to T_HIGH, MOVES Metropolis moves each a round, then
                            neighbouring temperatures exchanged by the usual rule

Chains run in threads (one each), each on numba's generator seeded from (--seed, chain) (heat-
bath moves on the chain's own xorshift64* generator, seeded from the same); a solution counts
when the verifier passes it within --limit wall seconds.

Glossary of index names (as in cpu_reference.sudoku.layout and bench_frontier_tabu):
    n        order, N = n * n digits and the side of the grid
    cell     r * N + c (row r, column c)
    unit     0..N-1 the rows, N..2N-1 the columns, 2N..3N-1 the boxes; units[cell] its three
    d        digit 1..N; cand[cell, :ncand[cell]] the cell's candidates after deduction
    holder   holder[unit, d]: the cell of the unit holding d, or -1
    oset     the open set: oset[0] its size, oset[1:] its cells; where[cell] the cell's place
             in it (-1 outside)

Results: benchmarks/results/tuning/frontier_impasse_{N}x{N}_{fill}.{json,md}.

    python -m benchmarks.bench_frontier_impasse [--order 6] [--fill 50] [--count 3] [--seed 2]
        [--limit 60] [--chains 2] [--impasse SETTING ...] [--no-default] [--chain-seed S]
"""

from __future__ import annotations

import numba as nb
import numpy as np

from benchmarks.bench_frontier_tabu import puzzle_tables, seed_generator
from benchmarks.frontier_chains import chains_report, experiment_main, race

STEPS_A_CALL = 200_000  # moves between two looks at the clock
SETTINGS = ("0.265:0.265:1e12",)  # T held at 0.265: the best of three at 36x36, 50 %
TEMPERATURE_EVERY = 1024  # moves between two updates of T while it cools
HEAT_PREFIX = "heat/"  # a setting's prefix for heat-bath moves
FORM = "[heat/]T0:T1:STEPS[:DT]"
TABU_PREFIX = "tabu/"  # a setting's prefix for PartialCol's tabu search
TABU_FORM = "tabu/L:LAMBDA:STEPS"
LADDER_PREFIX = "pt"  # ptR/: replica exchange over R replicas a chain
LADDER_FORM = "ptR/T_LOW:T_HIGH:MOVES"


@nb.njit(cache=True, nogil=True)
def _open(cell, grid, units, holder, oset, where):
    """Cell from its digit to open: the holders of its units forget it, it joins the set."""
    d = grid[cell]
    for k in range(3):
        holder[units[cell, k], d] = -1
    grid[cell] = 0
    where[cell] = oset[0]
    oset[1 + oset[0]] = cell
    oset[0] += 1


@nb.njit(cache=True, nogil=True)
def _close(cell, d, grid, units, holder, oset, where):
    """An open cell takes d (no unit of it holds d): it leaves the set."""
    for k in range(3):
        holder[units[cell, k], d] = cell
    grid[cell] = d
    last = oset[oset[0]]
    oset[1 + where[cell]] = last
    where[last] = where[cell]
    oset[0] -= 1
    where[cell] = -1


@nb.njit(cache=True, nogil=True)
def fresh_trial(N, filled, cand, ncand, movable, units, grid, holder, oset, where):
    """The start of a trial: the deduced grid with every free cell open, then the free cells in
    a random order, each taking a random candidate that no unit of it holds, where one exists."""
    holder[:] = -1
    oset[0] = 0
    where[:] = -1
    for cell in range(N * N):
        grid[cell] = filled[cell]
        if filled[cell]:
            for k in range(3):
                holder[units[cell, k], filled[cell]] = cell
    for cell in range(N * N):
        if movable[cell]:
            where[cell] = oset[0]
            oset[1 + oset[0]] = cell
            oset[0] += 1
    order = oset[1 : 1 + oset[0]].copy()
    np.random.shuffle(order)
    for cell in order:
        fits = 0
        pick = 0
        for k in range(ncand[cell]):
            d = cand[cell, k]
            if holder[units[cell, 0], d] < 0 and holder[units[cell, 1], d] < 0:
                if holder[units[cell, 2], d] < 0:
                    fits += 1
                    if np.random.randint(fits) == 0:
                        pick = d
        if fits:
            _close(cell, pick, grid, units, holder, oset, where)


@nb.njit(cache=True, nogil=True)
def _holders(x, d, units, holder):
    """The distinct cells of x's row, column and box holding d (-1 for none): three slots."""
    a = holder[units[x, 0], d]
    b = holder[units[x, 1], d]
    c = holder[units[x, 2], d]
    if b == a:
        b = -1
    if c == a or c == b:
        c = -1
    return a, b, c


@nb.njit(cache=True, nogil=True)
def _change(a, b, c):
    """The change of cost of a write whose distinct holders are a, b, c: the cells it opens
    less the one it closes."""
    return (a >= 0) + (b >= 0) + (c >= 0) - 1


@nb.njit(cache=True, nogil=True)
def _write(x, d, a, b, c, grid, units, holder, oset, where):
    """Open cell x takes d: its holders a, b, c (from _holders; -1 for none) open first."""
    for y in (a, b, c):
        if y >= 0:
            _open(y, grid, units, holder, oset, where)
    _close(x, d, grid, units, holder, oset, where)


@nb.njit(cache=True, nogil=True)
def impasse_move(chain, accept_one, accept_two):
    """One move (see the module docstring) whose rise of cost by 1 or 2 is taken with
    probability accept_one or accept_two (exp(-1 / T), exp(-2 / T)); returns its change of cost
    (0 when it was refused)."""
    filled, cand, ncand, movable, units, grid, holder, oset, where = chain
    x = oset[1 + np.random.randint(oset[0])]
    d = cand[x, np.random.randint(ncand[x])]
    a, b, c = _holders(x, d, units, holder)
    delta = _change(a, b, c)
    if delta > 0 and np.random.random() >= (accept_one if delta == 1 else accept_two):
        return 0
    _write(x, d, a, b, c, grid, units, holder, oset, where)
    return delta


@nb.njit(cache=True, nogil=True)
def _xorshift(rng):
    """The next 64 bits of a chain's xorshift64* generator (state rng[0], never 0)."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return x * np.uint64(0x2545F4914F6CDD1D)


@nb.njit(cache=True, nogil=True)
def _below(rng, n):
    """A draw from 0..n-1 (n < 2**32) by the high 32 bits of the generator, scaled."""
    return np.int64(((_xorshift(rng) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@nb.njit(cache=True, nogil=True)
def _uniform(rng):
    """A draw from [0, 1): the generator's high 53 bits."""
    return np.float64(_xorshift(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


def xorshift_seed(seed: int) -> np.int64:
    """A generator state from a seed by splitmix64 (never 0), as the int64 state[6] keeps."""
    z = (seed + 0x9E3779B97F4A7C15) % 2**64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
    z ^= z >> 31
    return np.array([z or 1], np.uint64).view(np.int64)[0]


@nb.njit(cache=True, nogil=True)
def heat_bath_move(chain, weights, deltas, rng):
    """One heat-bath move: a random open cell x stays open with weight 1 or takes candidate d
    with weight weights[delta + 1] (exp(-delta / T)), delta the change of cost of writing d
    (the module docstring's move); deltas is scratch of N entries, rng the chain's xorshift64*
    state (uint64[1]). Returns the change of cost (0 when x stays open)."""
    filled, cand, ncand, movable, units, grid, holder, oset, where = chain
    x = oset[1 + _below(rng, oset[0])]
    total = 1.0
    for k in range(ncand[x]):
        a, b, c = _holders(x, cand[x, k], units, holder)
        deltas[k] = _change(a, b, c)
        total += weights[deltas[k] + 1]
    r = _uniform(rng) * total - 1.0
    if r < 0.0:
        return 0
    pick = ncand[x] - 1
    for k in range(ncand[x]):
        r -= weights[deltas[k] + 1]
        if r < 0.0:
            pick = k
            break
    d = cand[x, pick]
    a, b, c = _holders(x, d, units, holder)
    _write(x, d, a, b, c, grid, units, holder, oset, where)
    return deltas[pick]


@nb.njit(cache=True, nogil=True)
def run_steps(n, steps, chain, state, params):
    """`steps` moves of one chain. state: int64[cost, move of the trial, trials, moves in all,
    solved, (run_partialcol's and run_ladder's), generator] (the xorshift64* state of heat-bath
    moves); params: float64[T0, T1, STEPS, HEAT] (STEPS moves a trial; HEAT 1 for heat-bath
    moves, 0 for Metropolis' rule)."""
    filled, cand, ncand, movable, units, grid, holder, oset, where = chain
    N = n * n
    t0, t1, trial = params[0], params[1], params[2]
    heat = params[3] > 0.5
    ratio = (t1 / t0) ** (1.0 / trial)
    weights = np.ones(4)
    deltas = np.zeros(N, np.int64)
    rng = np.empty(1, np.uint64)
    rng[0] = np.uint64(state[6])
    for step in range(steps):
        if oset[0] == 0:
            state[0], state[4], state[6] = 0, 1, np.int64(rng[0])
            return
        if state[1] >= trial:
            state[2] += 1
            state[1] = 0
            fresh_trial(N, filled, cand, ncand, movable, units, grid, holder, oset, where)
        if step == 0 or state[1] % TEMPERATURE_EVERY == 0:
            beta = 1.0 / (t0 * ratio ** state[1])
            accept_one, accept_two = np.exp(-beta), np.exp(-2.0 * beta)
            weights[0], weights[2], weights[3] = np.exp(beta), accept_one, accept_two
        if heat:
            heat_bath_move(chain, weights, deltas, rng)
        else:
            impasse_move(chain, accept_one, accept_two)
        state[1] += 1
        state[3] += 1
    state[6] = np.int64(rng[0])
    state[0] = oset[0]
    if oset[0] == 0:
        state[4] = 1


@nb.njit(cache=True, nogil=True)
def partialcol_move(chain, tabu, state, tenure_rand, tenure_lambda):
    """One PartialCol step: the move of least change of cost over every open cell and
    candidate (ties drawn at random) whose pair is not tabu, or is tabu but reaches fewer open
    cells than the trial's best (state[5]); each cell it opens may not take its digit back for
    a random 0..tenure_rand steps plus tenure_lambda times the open cells. Returns the change
    of cost (0 when every move is tabu)."""
    filled, cand, ncand, movable, units, grid, holder, oset, where = chain
    step = state[1]
    best, ties, px, pd = 3, 0, -1, 0
    for i in range(oset[0]):
        x = oset[1 + i]
        for k in range(ncand[x]):
            d = cand[x, k]
            a, b, c = _holders(x, d, units, holder)
            delta = _change(a, b, c)
            if tabu[x, d] > step and oset[0] + delta >= state[5]:
                continue
            if delta < best:
                best, ties, px, pd = delta, 1, x, d
            elif delta == best:
                ties += 1
                if np.random.randint(ties) == 0:
                    px, pd = x, d
    if px < 0:
        return 0
    a, b, c = _holders(px, pd, units, holder)
    tenure = step + int(tenure_lambda * (oset[0] + best))
    for y in (a, b, c):
        if y >= 0:
            tabu[y, pd] = tenure + np.random.randint(tenure_rand + 1)
    _write(px, pd, a, b, c, grid, units, holder, oset, where)
    state[5] = min(state[5], oset[0])
    return best


@nb.njit(cache=True, nogil=True)
def run_partialcol(n, steps, chain, tabu, state, params):
    """`steps` PartialCol steps of one chain (state as run_steps's, state[5] the trial's
    fewest open cells); params: float64[L, LAMBDA, STEPS] (tenure 0..L plus LAMBDA times the
    open cells; STEPS steps a trial, then a fresh trial)."""
    filled, cand, ncand, movable, units, grid, holder, oset, where = chain
    N = n * n
    for _ in range(steps):
        if oset[0] == 0:
            break
        if state[1] >= params[2]:
            state[2] += 1
            state[1] = 0
            fresh_trial(N, filled, cand, ncand, movable, units, grid, holder, oset, where)
            tabu[:] = 0
            state[5] = oset[0]
        partialcol_move(chain, tabu, state, int(params[0]), params[1])
        state[1] += 1
        state[3] += 1
    state[0] = oset[0]
    if oset[0] == 0:
        state[4] = 1


@nb.njit(cache=True, nogil=True)
def run_ladder(n, sweeps, chain, ladder, state, params):
    """`sweeps` rounds of replica exchange over R impasse replicas of one puzzle: each replica
    makes params[2] Metropolis moves at its temperature, then the replicas at neighbouring
    temperatures exchange them (even pairs on even rounds, odd pairs on odd rounds) with
    probability min(1, exp((beta_i - beta_j)(cost_i - cost_j))). chain: the puzzle's tables
    as new_chain's (its grid, holder, oset and where those of replica 0); ladder: (grids,
    holders, osets, wheres, rung) with one row a replica, rung[r] the temperature index of
    replica r. state as run_steps's, state[0] the fewest open cells of any replica, state[5]
    the replica solved (when state[4]); params: float64[T_LOW, T_HIGH, MOVES] (R temperatures
    geometric from T_LOW to T_HIGH)."""
    filled, cand, ncand, movable, units = chain[0], chain[1], chain[2], chain[3], chain[4]
    grids, holders, osets, wheres, rung = ladder
    replicas = grids.shape[0]
    betas = np.empty(replicas)
    for i in range(replicas):
        t = params[0] * (params[1] / params[0]) ** (i / max(replicas - 1, 1))
        betas[i] = 1.0 / t
    at_rung = np.empty(replicas, np.int64)
    for r in range(replicas):
        at_rung[rung[r]] = r
    moves = int(params[2])
    for _ in range(sweeps):
        for r in range(replicas):
            own = (filled, cand, ncand, movable, units, grids[r], holders[r], osets[r], wheres[r])
            beta = betas[rung[r]]
            accept_one, accept_two = np.exp(-beta), np.exp(-2.0 * beta)
            for _move in range(moves):
                impasse_move(own, accept_one, accept_two)
                if osets[r, 0] == 0:
                    state[0], state[4], state[5] = 0, 1, r
                    state[3] += _move + 1
                    return
            state[3] += moves
        for i in range(state[1] % 2, replicas - 1, 2):
            lo, hi = at_rung[i], at_rung[i + 1]
            gain = (betas[i] - betas[i + 1]) * (osets[lo, 0] - osets[hi, 0])
            if gain >= 0.0 or np.random.random() < np.exp(gain):
                rung[lo], rung[hi] = i + 1, i
                at_rung[i], at_rung[i + 1] = hi, lo
        state[1] += 1
    state[0] = osets[:, 0].min()


def new_ladder(cells: np.ndarray, order: int, seed: int, replicas: int):
    """(chain, ladder, state) of `replicas` impasse replicas on the puzzle, each from its own
    fresh trial (run_ladder's arguments); None when deduction contradicts the givens."""
    made = new_chain(cells, order, seed)
    if made is None:
        return None
    chain, state = made
    N = order * order
    filled, cand, ncand, movable, units = chain[:5]
    grids = np.zeros((replicas, N * N), np.int64)
    holders = np.full((replicas, 3 * N, N + 1), -1, np.int64)
    osets = np.zeros((replicas, N * N + 1), np.int64)
    wheres = np.full((replicas, N * N), -1, np.int64)
    for r in range(replicas):
        fresh_trial(
            N, filled, cand, ncand, movable, units, grids[r], holders[r], osets[r], wheres[r]
        )
    state[0] = osets[:, 0].min()
    state[4] = int(state[0] == 0)
    state[5] = int(np.argmin(osets[:, 0]))
    return chain, (grids, holders, osets, wheres, np.arange(replicas, dtype=np.int64)), state


def new_chain(cells: np.ndarray, order: int, seed: int):
    """(chain, state) of one chain on the puzzle, its first trial started; None when deduction
    contradicts the givens. Seeds numba's generator of the calling thread."""
    N = order * order
    tables = puzzle_tables(cells, order)
    if tables is None:
        return None
    filled, movable, cand, ncand, units = tables
    grid = np.zeros(N * N, np.int64)
    holder = np.full((3 * N, N + 1), -1, np.int64)
    oset = np.zeros(N * N + 1, np.int64)
    where = np.full(N * N, -1, np.int64)
    seed_generator(seed)
    chain = (filled, cand, ncand, movable, units, grid, holder, oset, where)
    fresh_trial(N, filled, cand, ncand, movable, units, grid, holder, oset, where)
    state = np.array([oset[0], 0, 0, 0, int(oset[0] == 0), oset[0], 0], np.int64)
    state[6] = xorshift_seed(seed)
    return chain, state


def chain_settings(setting: str, chains: int) -> list[np.ndarray]:
    """run_steps's params (T0, T1, STEPS) of each chain from T0:T1:STEPS[:DT]: chain i at
    T0 + i DT down to T1 + i DT. ValueError naming the form where a part is missing or not a
    number, or a chain's temperature is not above 0."""
    heat = setting.startswith(HEAT_PREFIX)
    try:
        values = [float(v) for v in setting.removeprefix(HEAT_PREFIX).split(":")]
    except ValueError:
        values = []
    if len(values) not in (3, 4) or not values[2] >= 1:
        raise ValueError(f"impasse {setting!r}: expected {FORM}, STEPS 1 or more")
    spread = values[3] if len(values) == 4 else 0.0
    settings = []
    for index in range(chains):
        t0, t1 = values[0] + index * spread, values[1] + index * spread
        if not (t0 > 0 and t1 > 0):
            raise ValueError(f"impasse {setting!r}: expected {FORM}, every T above 0")
        settings.append(np.array([t0, t1, values[2], float(heat)], np.float64))
    return settings


def tabu_settings(setting: str) -> np.ndarray:
    """run_partialcol's params (L, LAMBDA, STEPS) from tabu/L:LAMBDA:STEPS. ValueError naming
    the form where a part is missing or not a number, L or LAMBDA is below 0, or STEPS below 1."""
    try:
        values = [float(v) for v in setting.removeprefix(TABU_PREFIX).split(":")]
    except ValueError:
        values = []
    if len(values) != 3 or not (values[0] >= 0 and values[1] >= 0 and values[2] >= 1):
        raise ValueError(f"impasse {setting!r}: expected {TABU_FORM}")
    return np.array(values, np.float64)


def ladder_settings(setting: str) -> tuple[int, np.ndarray]:
    """(replicas, run_ladder's params (T_LOW, T_HIGH, MOVES)) from ptR/T_LOW:T_HIGH:MOVES.
    ValueError naming the form where a part is missing or not a number, R is below 2, a
    temperature is not above 0, or MOVES is below 1."""
    try:
        head, rest = setting.removeprefix(LADDER_PREFIX).split("/", 1)
        replicas = int(head)
        values = [float(v) for v in rest.split(":")]
    except ValueError:
        replicas, values = 0, []
    if replicas < 2 or len(values) != 3 or not (min(values[:2]) > 0 and values[2] >= 1):
        raise ValueError(f"impasse {setting!r}: expected {LADDER_FORM}")
    return replicas, np.array(values, np.float64)


def impasse_solve(cells, order: int, setting: str, chains: int, limit: float, seed: int) -> dict:
    """One puzzle by `chains` impasse chains, one thread each, until one solves or `limit` wall
    seconds pass: an outcome bench_frontier.checked reads (status, seconds, solution, proposals
    (the moves, tabu steps, or moves of every replica), trials)."""
    tabu_search = setting.startswith(TABU_PREFIX)
    replicas = 0
    if tabu_search:
        settings = [tabu_settings(setting)] * chains
    elif setting.startswith(LADDER_PREFIX):
        replicas, ladder_params = ladder_settings(setting)
        settings = [ladder_params] * chains
    else:
        settings = chain_settings(setting, chains)

    def start(index: int):
        if replicas:
            made = new_ladder(cells, order, seed * 1000 + index, replicas)
            if made is None:
                return None
            chain, ladder, state = made
            return (chain, ladder, settings[index]), state
        made = new_chain(cells, order, seed * 1000 + index)
        if made is None:
            return None
        chain, state = made
        tabu = np.zeros((order**4, order * order + 1), np.int64) if tabu_search else None
        return (chain, tabu, settings[index]), state

    def advance(chain_extra_params, state) -> list | None:
        chain, extra, own = chain_extra_params
        if replicas:
            sweeps = max(1, STEPS_A_CALL // int(own[2] * replicas))
            run_ladder(order, sweeps, chain, extra, state, own)
            return extra[0][state[5]].tolist() if state[4] else None
        if tabu_search:
            run_partialcol(order, STEPS_A_CALL // 20, chain, extra, state, own)
        else:
            run_steps(order, STEPS_A_CALL, chain, state, own)
        return chain[5].tolist() if state[4] else None

    return race(chains, limit, start, advance, lambda state: (state[3], state[2]))


HOW = (
    "impasse SETTING: {chains} chains, one thread each, on grids without conflicts whose "
    "cost is their open cells: T0:T1:STEPS[:DT] Metropolis moves, heat/ heat-bath moves, "
    "tabu/ PartialCol's tabu search, ptR/ replica exchange over R replicas a chain (module "
    "docstring). M/s: millions of proposals (default) or of moves or steps (impasse) of all "
    "chains over the seconds spent."
)


def render(result: dict) -> str:
    """The markdown report of one run."""
    return chains_report(result, "Annealing on partial legal grids at the frontier", HOW, 1)


def main() -> None:
    """Parse the flags, measure, write the results files."""
    experiment_main(
        __doc__, "impasse", f"{FORM}, {TABU_FORM} or {LADDER_FORM}", SETTINGS, impasse_solve, render
    )


if __name__ == "__main__":
    main()
