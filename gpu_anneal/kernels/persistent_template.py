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
thread with no task while the input is open: it looks again up to `wait` times, then ends. The
queue's work (taking a task, a fresh start, filing a chain) is persistent_tasks.py's.
"""

from numba import cuda, uint8, uint32, uint64

from cpu_reference.sudoku.chain_template import drive_chain as drive
from cpu_reference.sudoku.rules_constants import (
    C_PROPOSALS,
    C_STATUS,
    CELLS,
    LANES,
    NWFOCUS,
    RUNNING,
    STOPPED,
    THR_ROWS,
    VWROW,
    WT,
)
from gpu_anneal.kernels.compat import plain
from gpu_anneal.kernels.persistent_layout import CTL_CLOSED, CTL_STOP
from gpu_anneal.kernels.persistent_tasks import file_chain, fresh_chain, read, take_task

SHARED = LANES > 1  # chains share state arrays: the block's, in shared memory (rules.model)
VALUE_WORDS = VWROW if SHARED else CELLS
BOARD_WORDS = NWFOCUS
TH = THR_ROWS
SHARED_WORDS = (VALUE_WORDS + BOARD_WORDS + TH) * LANES
STATE_WORDS = VALUE_WORDS + BOARD_WORDS + TH


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
