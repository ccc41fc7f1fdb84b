"""The Sudoku slice kernel, one module for every specialisation: gpu_anneal.kernels.sudoku writes
a copy per order, move and launch bounds.

Every name in capitals is a compile-time constant of the rules' specialisation, and drive,
get_value and set_value are its functions (cpu_reference.sudoku.rules.model): imported as itself,
this module reads the CPU runner's 9x9 rules (rules_constants.py, rules_template.py,
chain_template.py; nothing runs that); sudoku.kernel_function writes a copy whose imports of them
name the specialisation's generated modules instead, every other line as here
(cpu_reference.cache.rewrite_imports), which makes the copy a plain module whose kernel numba-cuda
caches on disk (gpu_anneal.kernels.kernel_cache). The kernel is documented in
gpu_anneal/kernels/sudoku.py; this file is its only source.
"""

from numba import config, cuda, njit, uint8, uint32, uint64

from cpu_reference.sudoku.chain_template import drive_chain as drive
from cpu_reference.sudoku.rules_constants import (
    BOFF,
    C_STATUS,
    C_TRIALS,
    CELLS,
    LANES,
    NWFOCUS,
    ROW_NW,
    RUNNING,
    THR_ROWS,
    VWROW,
    WT,
)
from cpu_reference.sudoku.rules_template import get_value, set_value
from gpu_anneal.kernels.compat import plain

SHARED = LANES > 1  # chains share state arrays: the block's, in shared memory (rules.model)
VALUE_WORDS = VWROW if SHARED else CELLS  # 4-bit fields in shared memory, bytes in local
NW = ROW_NW  # row-packed bitboard words a chain
BOARD_WORDS = NWFOCUS  # and the focused move's conflict set and movable cells after them
TH = THR_ROWS
SHARED_WORDS = (VALUE_WORDS + BOARD_WORDS + TH) * LANES


def run_chain(g, lane, sv, sb, st, vals, boards, best_vals, ctr, rng, solved, cpp, exp_table,
              tables, settings):  # fmt: skip
    (given_packed, given_board, init_cells, ninit, move_cells, nmove, cand, ncand,
     box_cells, nbox, box_missing) = tables  # fmt: skip
    for i in range(VALUE_WORDS):
        sv[i * LANES + lane] = 0
    for c in range(CELLS):
        set_value(sv, lane, uint32(c), uint32(vals[g, c]) - uint32(1))
    for i in range(NW):
        sb[(BOFF + i) * LANES + lane] = boards[g, i]
    drive(
        g, g // uint64(cpp), lane, plain(sv), plain(sb), plain(st), plain(best_vals),
        plain(ctr), plain(rng), plain(solved), plain(exp_table), plain(given_packed),
        plain(given_board),
        plain(init_cells), plain(ninit), plain(move_cells), plain(nmove), plain(cand),
        plain(ncand), plain(box_cells), plain(nbox), plain(box_missing), settings,
    )  # fmt: skip
    if ctr[g, C_TRIALS] > 0:  # a chain past its puzzle's trial cap never had a grid
        for c in range(CELLS):
            vals[g, c] = get_value(sv, lane, uint32(c)) + uint32(1)
        for i in range(NW):
            boards[g, i] = sb[(BOFF + i) * LANES + lane]


if not config.ENABLE_CUDASIM:  # the simulator runs it as Python on its host arrays
    run_chain = njit(run_chain)

if SHARED:

    def sudoku_slice(
        vals, boards, best_vals, ctr, rng, solved, cpp, exp_table,
        given_packed, given_board, init_cells, ninit, move_cells, nmove, cand, ncand,
        box_cells, nbox, box_missing,
        kind, beta0, step, plateau_len, max_plateaus, stall, reheat_k, reheat_beta, reheats,
        trial_cap, budget, stop_on_solved,
    ):  # fmt: skip
        # values, bitboards and thresholds in one array: one base address (rules.py: VOFF,
        # BOFF, TOFF give where each starts in a chain's column)
        state = cuda.shared.array(SHARED_WORDS, uint32)
        g = uint64(cuda.grid(1))  # unsigned: indices need no negative-index fix-up
        if g >= uint64(vals.shape[0]):
            return
        if ctr[g, C_STATUS] != RUNNING:
            return
        tables = (given_packed, given_board, init_cells, ninit, move_cells, nmove, cand,
                  ncand, box_cells, nbox, box_missing)  # fmt: skip
        settings = (kind, beta0, step, plateau_len, max_plateaus, stall, reheat_k,
                    reheat_beta, reheats, trial_cap, budget, stop_on_solved)  # fmt: skip
        run_chain(
            g, cuda.threadIdx.x, state, state, state, vals, boards, best_vals, ctr, rng,
            solved, cpp, exp_table, tables, settings,
        )  # fmt: skip

else:

    def sudoku_slice(
        vals, boards, best_vals, ctr, rng, solved, cpp, exp_table,
        given_packed, given_board, init_cells, ninit, move_cells, nmove, cand, ncand,
        box_cells, nbox, box_missing,
        kind, beta0, step, plateau_len, max_plateaus, stall, reheat_k, reheat_beta, reheats,
        trial_cap, budget, stop_on_solved,
    ):  # fmt: skip
        g = uint64(cuda.grid(1))  # unsigned: indices need no negative-index fix-up
        if g >= uint64(vals.shape[0]):
            return
        if ctr[g, C_STATUS] != RUNNING:
            return
        sv = cuda.local.array(CELLS, uint8)
        sb = cuda.local.array(BOARD_WORDS, WT)
        st = cuda.local.array(TH, uint32)
        tables = (given_packed, given_board, init_cells, ninit, move_cells, nmove, cand,
                  ncand, box_cells, nbox, box_missing)  # fmt: skip
        settings = (kind, beta0, step, plateau_len, max_plateaus, stall, reheat_k,
                    reheat_beta, reheats, trial_cap, budget, stop_on_solved)  # fmt: skip
        run_chain(
            g, 0, sv, sb, st, vals, boards, best_vals, ctr, rng, solved, cpp,
            exp_table, tables, settings,
        )  # fmt: skip
