"""The persistent Sudoku kernel (one chain a thread), one module for every specialisation:
gpu_anneal.kernels.persistent writes a copy per order, move and launch bounds, as
gpu_anneal.kernels.sudoku does with slice_template.py (its imports of the rules name the
specialisation's generated modules; every other line as here). The kernel is documented in
gpu_anneal/kernels/persistent.py; this file is its only source.

Each thread is a resident chain slot: it takes the next chain task from the device's counter
(chain i of puzzle q, or once the input is closed a spare chain of a puzzle still running), runs
it from a fresh state to its stop in rounds of `budget` plateaus, files its counters (and its
grid, when it ranks first) in the puzzle's record, and takes the next task; the last chain of a
puzzle to stop marks the record DONE for the host to drain. Nothing waits on the host but a
thread with no task while the input is open: it looks again up to `wait` times, then ends.
"""

from numba import cuda, int64, uint8, uint32, uint64

from cpu_reference.sudoku.chain_template import drive_chain as drive
from cpu_reference.sudoku.rules_constants import (
    C_ACCEPTED,
    C_BEST_VALS_COST,
    C_PROPOSALS,
    C_STATUS,
    C_TRIALS,
    CELLS,
    LANES,
    NWFOCUS,
    RUNNING,
    SOLVED,
    STOPPED,
    THR_ROWS,
    VWROW,
    WT,
)
from gpu_anneal.kernels.chain_start import clear_chain, counter_key, jumped_state
from gpu_anneal.kernels.compat import plain
from gpu_anneal.kernels.persistent_layout import (
    CTL_CLOSED,
    CTL_JOINS,
    CTL_NEXT,
    CTL_OPEN,
    CTL_PUBLISHED,
    CTL_STOP,
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

SHARED = LANES > 1  # chains share state arrays: the block's, in shared memory (rules.model)
VALUE_WORDS = VWROW if SHARED else CELLS
BOARD_WORDS = NWFOCUS
TH = THR_ROWS
SHARED_WORDS = (VALUE_WORDS + BOARD_WORDS + TH) * LANES
STATE_WORDS = VALUE_WORDS + BOARD_WORDS + TH


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


def run_task(g, lane, sv, sb, st, ctr, rng, best_vals, solved, exp_table, tables, r, settings,
             ctl):  # fmt: skip
    """Run chain g on ring row r's puzzle from a fresh state until it stops (or the stop flag),
    in rounds of the settings' budget, the stop flag and the puzzle's bound read between rounds;
    the chain's state stays in this thread's column."""
    (given_packed, given_board, init_cells, ninit, move_cells, nmove, cand, ncand,
     box_cells, nbox, box_missing) = tables  # fmt: skip
    rows = solved.shape[0]
    mw = move_cells.shape[0] // rows
    bw = box_cells.shape[0] // rows
    nw = nbox.shape[0] // rows
    if SHARED:  # one array: the chain's column
        for w in range(STATE_WORDS):
            sv[w * LANES + lane] = 0
    else:
        for w in range(VALUE_WORDS):
            sv[w] = 0
        for w in range(BOARD_WORDS):
            sb[w] = 0
        for w in range(TH):
            st[w] = 0
    while True:
        drive(
            uint64(0), uint64(0), lane, sv, sb, st, best_vals[g : g + 1], ctr[g : g + 1],
            rng[g : g + 1], solved[r : r + 1], exp_table, given_packed[r : r + 1],
            given_board[r : r + 1], init_cells[r : r + 1], ninit[r : r + 1],
            move_cells[r * mw : r * mw + mw], nmove[r : r + 1], cand[r : r + 1],
            ncand[r : r + 1], box_cells[r * bw : r * bw + bw], nbox[r * nw : r * nw + nw],
            box_missing[r : r + 1], settings,
        )  # fmt: skip
        if ctr[g, C_STATUS] != RUNNING:
            return
        # the stop flag, and the puzzle's bound read from memory (the plateaus' own reads of
        # solved[r] may see an older copy in this SM's cache): the chain stops as drive would
        if read(ctl, CTL_STOP) != 0 or ctr[g, C_PROPOSALS] >= read(solved, r):
            ctr[g, C_STATUS] = STOPPED
            return


read = cuda.jit(device=True, inline=True)(read)
take_task = cuda.jit(device=True)(take_task)
fresh_chain = cuda.jit(device=True)(fresh_chain)
file_chain = cuda.jit(device=True)(file_chain)
run_task = cuda.jit(device=True)(run_task)


def chain_slot(g, lane, sv, sb, st, vals, ctr, rng, best_vals, solved, exp_table, tables,
               first_state, rec, rec_grid, ctl, order, open_rows, powers, cpp, counter, spare,
               wait, schedule, trial_cap, budget):  # fmt: skip
    """The loop of resident chain slot g: take a task, run it, file it, until none is left
    (or the stop flag). With no task while the input is open, it looks again up to `wait`
    times in a row (a microsecond apart) for the host's next puzzles, then ends: a launch never
    outlives a host that stopped publishing."""
    (kind, beta0, step, plateau_len, max_plateaus, stall, reheat_k, reheat_beta,
     reheats) = schedule  # fmt: skip
    idle = 0
    while read(ctl, CTL_STOP) == 0:
        r, m, i = take_task(ctl, order, open_rows, rec, solved, cpp, spare)
        if r < 0:
            if idle < wait and read(ctl, CTL_CLOSED) == 0:
                idle += 1
                cuda.nanosleep(1000)
                continue
            return
        idle = 0
        share = trial_cap // cpp + (1 if i < trial_cap % cpp else 0)  # chain_trials
        settings = (kind, beta0, step, plateau_len, max_plateaus, stall, reheat_k,
                    reheat_beta, reheats, share, budget, True)  # fmt: skip
        fresh_chain(g, ctr, rng, best_vals, first_state, r, m, i, counter, powers)
        if share > 0:
            run_task(g, lane, sv, sb, st, ctr, rng, best_vals, solved, exp_table, tables,
                     r, settings, ctl)  # fmt: skip
        file_chain(g, ctr, best_vals, rec, rec_grid, r, m, i)


chain_slot = cuda.jit(device=True)(chain_slot)

if SHARED:

    def sudoku_persistent(
        vals, boards, best_vals, ctr, rng, solved, exp_table,
        given_packed, given_board, init_cells, ninit, move_cells, nmove, cand, ncand,
        box_cells, nbox, box_missing, first_state, rec, rec_grid, ctl, order, open_rows,
        powers, cpp, counter, spare, wait,
        kind, beta0, step, plateau_len, max_plateaus, stall, reheat_k, reheat_beta, reheats,
        trial_cap, budget,
    ):  # fmt: skip
        state = cuda.shared.array(SHARED_WORDS, uint32)
        g = cuda.grid(1)
        if g >= ctr.shape[0]:
            return
        tables = (plain(given_packed), plain(given_board), plain(init_cells), plain(ninit),
                  plain(move_cells), plain(nmove), plain(cand), plain(ncand),
                  plain(box_cells), plain(nbox), plain(box_missing))  # fmt: skip
        schedule = (kind, beta0, step, plateau_len, max_plateaus, stall, reheat_k,
                    reheat_beta, reheats)  # fmt: skip
        chain_slot(
            g, cuda.threadIdx.x, state, state, state, plain(vals), plain(ctr), plain(rng),
            plain(best_vals), plain(solved), plain(exp_table), tables, plain(first_state),
            plain(rec), plain(rec_grid), plain(ctl), plain(order), plain(open_rows),
            plain(powers), cpp, counter, spare, wait, schedule, trial_cap, budget,
        )  # fmt: skip

else:

    def sudoku_persistent(
        vals, boards, best_vals, ctr, rng, solved, exp_table,
        given_packed, given_board, init_cells, ninit, move_cells, nmove, cand, ncand,
        box_cells, nbox, box_missing, first_state, rec, rec_grid, ctl, order, open_rows,
        powers, cpp, counter, spare, wait,
        kind, beta0, step, plateau_len, max_plateaus, stall, reheat_k, reheat_beta, reheats,
        trial_cap, budget,
    ):  # fmt: skip
        g = cuda.grid(1)
        if g >= ctr.shape[0]:
            return
        sv = cuda.local.array(CELLS, uint8)
        sb = cuda.local.array(BOARD_WORDS, WT)
        st = cuda.local.array(TH, uint32)
        tables = (plain(given_packed), plain(given_board), plain(init_cells), plain(ninit),
                  plain(move_cells), plain(nmove), plain(cand), plain(ncand),
                  plain(box_cells), plain(nbox), plain(box_missing))  # fmt: skip
        schedule = (kind, beta0, step, plateau_len, max_plateaus, stall, reheat_k,
                    reheat_beta, reheats)  # fmt: skip
        chain_slot(
            g, 0, sv, sb, st, plain(vals), plain(ctr), plain(rng), plain(best_vals),
            plain(solved), plain(exp_table), tables, plain(first_state), plain(rec),
            plain(rec_grid), plain(ctl), plain(order), plain(open_rows), plain(powers), cpp,
            counter, spare, wait, schedule, trial_cap, budget,
        )  # fmt: skip
