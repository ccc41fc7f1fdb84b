"""The persistent kernels' work on the device queue, shared by the one-thread kernel
(persistent_template.py) and the cooperative one (persistent_coop_template.py): reading a control
word, taking a task, starting a chain afresh, filing a stopped chain in its puzzle's record.
gpu_anneal.kernels.persistent documents the queue and the records (persistent_layout their
words).

Glossary: g chain row, r ring row, m spare round, i chain index within its puzzle, cpp chains a
puzzle. Every function here is run by one thread (a warp's lane 0 in the cooperative kernel).
"""

from numba import cuda, int64, uint64

from cpu_reference.sudoku.rules import (
    C_ACCEPTED,
    C_BEST_VALS_COST,
    C_PROPOSALS,
    C_STATUS,
    C_TRIALS,
    SOLVED,
)
from gpu_anneal.kernels.chain_start import clear_chain, counter_key, jumped_state
from gpu_anneal.kernels.persistent_layout import (
    CTL_CLOSED,
    CTL_JOINS,
    CTL_NEXT,
    CTL_OPEN,
    CTL_PUBLISHED,
    DONE,
    MAX_ROUNDS,
    N_REC,
    NOT_SOLVED,
    PUBLISHED,
    R_ACCEPTED,
    R_CHAINS,
    R_KEY,
    R_LEFT,
    R_LOCK,
    R_PICK,
    R_PICK_COST,
    R_PICK_PROPOSALS,
    R_PICK_TRIALS,
    R_PROPOSALS,
    R_SOLVED,
    R_SPARES,
    R_STATE,
    R_TRIALS,
    SPARE_STRIDE,
    UNSOLVED_BIT,
    VALUE_CAP,
)


def read(array, k):
    """array[k] read from memory (an atomic add of 0: never a stale register or cache line)."""
    return cuda.atomic.add(array, k, 0)


def take_task(ctl, order, open_rows, rec, solved, cpp, spare):
    """(ring row, round m, chain i) of the next task, or (-1, 0, 0) when there is none now:
    the next chain of the published puzzles (the p-th published puzzle's row: order[p mod R]),
    else (input closed, `spare`) a new chain of a running puzzle that no chain has solved yet:
    the first such row of the host's open list from entry CTL_JOINS mod CTL_OPEN (the counter
    taken by this try), so that joins go round the open puzzles in turn."""
    rows = rec.shape[0] // N_REC
    while True:
        t = read(ctl, CTL_NEXT)
        if t >= read(ctl, CTL_PUBLISHED) * cpp:
            break
        if cuda.atomic.cas(ctl, CTL_NEXT, t, t + 1) == t:
            p = t // cpp
            return read(order, p % rows), 0, t - p * cpp
    if not spare or read(ctl, CTL_CLOSED) == 0:
        return -1, 0, 0
    n = min(read(ctl, CTL_OPEN), open_rows.shape[0])
    if n <= 0:
        return -1, 0, 0
    start = cuda.atomic.add(ctl, CTL_JOINS, 1) % n
    for j in range(n):
        e = start + j
        if e >= n:
            e -= n
        r = read(open_rows, e)
        if r < 0 or r >= rows:
            continue
        base = r * N_REC
        if read(rec, base + R_STATE) != PUBLISHED or read(solved, r) != NOT_SOLVED:
            continue
        if read(rec, base + R_SPARES) >= (MAX_ROUNDS - 2) * cpp:
            continue
        left = read(rec, base + R_LEFT)
        while left > 0:
            seen = cuda.atomic.cas(rec, base + R_LEFT, left, left + 1)
            if seen == left:
                k = cuda.atomic.add(rec, base + R_SPARES, 1)
                m = 1 + k // cpp
                return r, m, k - (m - 1) * cpp
            left = seen
    return -1, 0, 0


def fresh_chain(g, ctr, rng, best_vals, first_state, r, m, i, counter, powers):
    """Chain g starts afresh as stream m x SPARE_STRIDE + i after puzzle row r's first stream:
    the counters and best grid load_puzzle writes, the RNG state the CPU runner gives it
    (gpu_anneal.kernels.chain_start, as the pool's refill kernels)."""
    clear_chain(g, ctr, best_vals)
    offset = uint64(m) * uint64(SPARE_STRIDE) + uint64(i)
    if counter:  # Philox: the key of stream first + offset (anneal/philox.py)
        rng[g, 0] = counter_key(first_state[r, 0], first_state[r, 1], offset)
        rng[g, 1] = 0
        return
    s0, s1 = jumped_state(first_state[r, 0], first_state[r, 1], offset, powers)
    rng[g, 0] = s0
    rng[g, 1] = s1


def file_chain(g, ctr, best_vals, rec, rec_grid, r, m, i):
    """Chain g (chain i of round m of row r's puzzle) has stopped: its counts into the record,
    its fields and grid too when it ranks first (under the record's lock), and the last chain
    out marks the record DONE."""
    base = r * N_REC
    status = ctr[g, C_STATUS]
    trials = ctr[g, C_TRIALS]
    proposals = ctr[g, C_PROPOSALS]
    if trials > 0:
        won = status == SOLVED
        value = proposals if won else ctr[g, C_BEST_VALS_COST]
        if value > VALUE_CAP:
            value = VALUE_CAP
        key = (value << 28) | (int64(m) << 16) | int64(i)
        if not won:
            key |= UNSOLVED_BIT
        if key < read(rec, base + R_KEY):
            while cuda.atomic.cas(rec, base + R_LOCK, 0, 1) != 0:
                pass
            cuda.threadfence()
            if key < rec[base + R_KEY]:
                rec[base + R_KEY] = key
                rec[base + R_PICK] = int64(m) * SPARE_STRIDE + int64(i)
                rec[base + R_PICK_COST] = ctr[g, C_BEST_VALS_COST]
                rec[base + R_PICK_TRIALS] = trials
                rec[base + R_PICK_PROPOSALS] = proposals
                for c in range(rec_grid.shape[1]):
                    rec_grid[r, c] = best_vals[g, c]
            cuda.threadfence()
            cuda.atomic.exch(rec, base + R_LOCK, 0)
        if won:
            cuda.atomic.add(rec, base + R_SOLVED, 1)
    cuda.atomic.add(rec, base + R_TRIALS, trials)
    cuda.atomic.add(rec, base + R_PROPOSALS, proposals)
    cuda.atomic.add(rec, base + R_ACCEPTED, ctr[g, C_ACCEPTED])
    cuda.atomic.add(rec, base + R_CHAINS, 1)
    cuda.threadfence()
    if cuda.atomic.add(rec, base + R_LEFT, -1) == 1:
        cuda.threadfence()
        cuda.atomic.exch(rec, base + R_STATE, DONE)


read = cuda.jit(device=True, inline=True)(read)
take_task = cuda.jit(device=True)(take_task)
fresh_chain = cuda.jit(device=True)(fresh_chain)
file_chain = cuda.jit(device=True)(file_chain)
