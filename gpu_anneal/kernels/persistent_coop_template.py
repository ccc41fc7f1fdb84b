"""The persistent cooperative Sudoku kernel (one warp a chain), one module for every
specialisation: gpu_anneal.kernels.persistent writes a copy per order, move and launch bounds
whose imports of the rules and the steps name the specialisation's generated modules (the
cooperative slice kernel's: gpu_anneal.kernels.sudoku_coop.coop_model), every other line as
here. The queue is documented in gpu_anneal/kernels/persistent.py; this file is its only source.

Glossary: g resident chain slot (= block = one warp), lane the thread's index in the warp, r ring
row, m spare round, i chain index within its puzzle.

Each block is one warp and one resident chain slot. Lane 0 alone touches the queue: it reads
the stop flag, takes the next task (persistent_tasks.take_task), starts the chain afresh in its
rows of ctr, rng and best_vals, and once the chain stops files it in the puzzle's record. What
the warp must agree on (the task and what to do next; between rounds whether the chain stops)
lane 0 writes in the block's shared words TASK and every lane reads after a warp barrier, so
that the lanes branch together and meet every warp operation of the rules together. The chain
runs as the cooperative slice kernel runs it (chain_template's drive_chain on every lane, the
chain's state in the block's shared memory, the rules' warp steps), in rounds of `budget`
plateaus, its state staying in shared memory from round to round.
"""

from numba import config, cuda, int64, njit, uint32, uint64

from cpu_reference.sudoku.chain_template import drive_chain
from cpu_reference.sudoku.rules_constants import (
    C_PROPOSALS,
    C_STATUS,
    RUNNING,
    STOPPED,
    TMAX,
    VWROW,
    WT,
)
from gpu_anneal.kernels.compat import plain
from gpu_anneal.kernels.coop_rules import BOARD_WORDS
from gpu_anneal.kernels.persistent_layout import CTL_CLOSED, CTL_STOP
from gpu_anneal.kernels.persistent_tasks import file_chain, fresh_chain, read, take_task

VALUE_WORDS = VWROW  # packed values
THRESHOLD_WORDS = TMAX + 1  # thr[d] at element d, d = 1..TMAX
T_ROW, T_ROUND, T_CHAIN, T_NEXT = 0, 1, 2, 3  # the task's shared words
TASK_WORDS = 4
RUN, WAIT, END = 0, 1, 2  # T_NEXT after a take: run the task, look again, end

FULL = uint32(0xFFFFFFFF)

if config.ENABLE_CUDASIM:

    def drive(*args):
        """The simulator: chain_template's drive_chain as Python (warp operations too), one
        plateau a call, `budget` calls: run as Python it carries beta from one plateau to the
        next as the jitted next_beta returns it (a Python int, which meets the uint64 growth as
        a float a plateau later); a call starts from the counters the last one stored, which
        is what the chain does between its plateaus."""
        settings = args[-1]
        one = settings[:10] + (1,) + settings[11:]
        for _ in range(settings[10]):
            drive_chain.py_func(*args[:-1], one)

    def lane_copy(array):
        """The simulator: this lane's own copy (its threads interleave at any point)."""
        return array.copy()

    def lane_write_back(array, copy, lane):
        """The simulator: lane 0's copy written back."""
        if lane == 0:
            array[:] = copy

    def warp_barrier():
        """Every lane of the warp reaches this point (memory written before is seen after):
        the simulator's block is the warp."""
        cuda.syncthreads()

else:
    drive = drive_chain

    @njit(inline="always")
    def lane_copy(array):
        """On a card: the array itself (the converged warp's lanes store the same values)."""
        return array

    @njit(inline="always")
    def lane_write_back(array, copy, lane):
        """On a card: nothing to write back."""

    def warp_barrier():
        """Every lane of the warp reaches this point (memory written before is seen after)."""
        cuda.syncwarp(FULL)


warp_barrier = cuda.jit(device=True)(warp_barrier)


def run_task(g, lane, sv, sb, st, task, ctr, rng, best_vals, solved, exp_table, tables, r,
             settings, ctl):  # fmt: skip
    """Run chain g on ring row r's puzzle from its fresh state until it stops (or the stop
    flag), in rounds of the settings' budget; between rounds lane 0 reads the stop flag and the
    puzzle's bound from memory and the warp stops together."""
    (given_vals, given_board, init_cells, ninit, move_cells, nmove, cand, ncand, box_cells,
     nbox, box_missing) = tables  # fmt: skip
    rows = solved.shape[0]
    mw = move_cells.shape[0] // rows
    bw = box_cells.shape[0] // rows
    nw = nbox.shape[0] // rows
    counters = lane_copy(ctr[g : g + 1])
    states = lane_copy(rng[g : g + 1])
    while True:
        drive(
            uint64(0), uint64(0), lane, sv, sb, st, best_vals[g : g + 1], counters, states,
            solved[r : r + 1], exp_table, given_vals[r : r + 1], given_board[r : r + 1],
            init_cells[r : r + 1], ninit[r : r + 1], move_cells[r * mw : r * mw + mw],
            nmove[r : r + 1], cand[r : r + 1], ncand[r : r + 1],
            box_cells[r * bw : r * bw + bw], nbox[r * nw : r * nw + nw],
            box_missing[r : r + 1], settings,
        )  # fmt: skip
        if counters[0, C_STATUS] != RUNNING:
            break
        if lane == 0:
            stop = read(ctl, CTL_STOP) != 0 or counters[0, C_PROPOSALS] >= read(solved, r)
            task[T_NEXT] = 1 if stop else 0
        warp_barrier()
        stop = task[T_NEXT] != 0
        warp_barrier()
        if stop:
            counters[0, C_STATUS] = STOPPED
            break
    lane_write_back(ctr[g : g + 1], counters, lane)
    lane_write_back(rng[g : g + 1], states, lane)


def chain_slot(g, lane, sv, sb, st, task, ctr, rng, best_vals, solved, exp_table, tables,
               first_state, rec, rec_grid, ctl, order, open_rows, powers, cpp, counter, spare,
               wait, schedule, trial_cap, budget):  # fmt: skip
    """The loop of resident chain slot g (one warp): lane 0 takes a task and the warp runs it,
    lane 0 files it, until none is left (or the stop flag); with no task while the input is
    open, it looks again up to `wait` times (a microsecond apart), then ends."""
    (kind, beta0, step, plateau_len, max_plateaus, stall, reheat_k, reheat_beta,
     reheats) = schedule  # fmt: skip
    idle = 0
    while True:
        if lane == 0:
            nxt = END
            if read(ctl, CTL_STOP) == 0:
                r, m, i = take_task(ctl, order, open_rows, rec, solved, cpp, spare)
                if r >= 0:
                    nxt = RUN
                    task[T_ROW] = r
                    task[T_ROUND] = m
                    task[T_CHAIN] = i
                elif idle < wait and read(ctl, CTL_CLOSED) == 0:
                    nxt = WAIT
            task[T_NEXT] = nxt
        warp_barrier()
        nxt = task[T_NEXT]
        r = task[T_ROW]
        m = task[T_ROUND]
        i = task[T_CHAIN]
        warp_barrier()
        if nxt == END:
            return
        if nxt == WAIT:
            idle += 1
            cuda.nanosleep(1000)
            continue
        idle = 0
        share = trial_cap // cpp + (1 if i < trial_cap % cpp else 0)  # chain_trials
        settings = (kind, beta0, step, plateau_len, max_plateaus, stall, reheat_k,
                    reheat_beta, reheats, share, budget, True)  # fmt: skip
        if lane == 0:
            fresh_chain(g, ctr, rng, best_vals, first_state, r, m, i, counter, powers)
        warp_barrier()  # every lane sees the fresh rows
        if share > 0:
            run_task(g, lane, sv, sb, st, task, ctr, rng, best_vals, solved, exp_table,
                     tables, r, settings, ctl)  # fmt: skip
        warp_barrier()  # the chain's rows written back before lane 0 files them
        if lane == 0:
            file_chain(g, ctr, best_vals, rec, rec_grid, r, m, i)
        warp_barrier()


run_task = cuda.jit(device=True)(run_task)
chain_slot = cuda.jit(device=True)(chain_slot)


def sudoku_coop_persistent(
    vals, boards, best_vals, ctr, rng, solved, exp_table,
    given_vals, given_board, init_cells, ninit, move_cells, nmove, cand, ncand,
    box_cells, nbox, box_missing, first_state, rec, rec_grid, ctl, order, open_rows,
    powers, cpp, counter, spare, wait,
    kind, beta0, step, plateau_len, max_plateaus, stall, reheat_k, reheat_beta, reheats,
    trial_cap, budget,
):  # fmt: skip
    sv = cuda.shared.array(VALUE_WORDS, uint32)
    sb = cuda.shared.array(BOARD_WORDS, WT)
    st = cuda.shared.array(THRESHOLD_WORDS, uint32)
    task = cuda.shared.array(TASK_WORDS, int64)
    g = cuda.blockIdx.x
    lane = uint32(cuda.threadIdx.x)
    if g >= ctr.shape[0]:  # the whole block: no lane waits for another
        return
    tables = (plain(given_vals), plain(given_board), plain(init_cells), plain(ninit),
              plain(move_cells), plain(nmove), plain(cand), plain(ncand), plain(box_cells),
              plain(nbox), plain(box_missing))  # fmt: skip
    schedule = (kind, beta0, step, plateau_len, max_plateaus, stall, reheat_k, reheat_beta,
                reheats)  # fmt: skip
    chain_slot(
        g, lane, sv, sb, st, task, plain(ctr), plain(rng), plain(best_vals), plain(solved),
        plain(exp_table), tables, plain(first_state), plain(rec), plain(rec_grid), plain(ctl),
        plain(order), plain(open_rows), plain(powers), cpp, counter, spare, wait, schedule,
        trial_cap, budget,
    )  # fmt: skip
