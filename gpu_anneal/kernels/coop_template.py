"""The cooperative Sudoku slice kernel, one module for every specialisation:
gpu_anneal.kernels.sudoku_coop writes a copy per order, move and launch bounds.

Every name in capitals is a compile-time constant of the rules' specialisation, drive_chain is its
chain driver and coop_load, coop_store and BOARD_WORDS come from its cooperative steps
(sudoku_coop.coop_model: the rules with coop_rules.py as their steps): imported as itself, this
module reads the CPU runner's 9x9 rules and coop_rules.py (nothing runs that);
sudoku_coop.kernel_function writes a copy whose imports of them name the specialisation's
generated modules instead, every other line as here (cpu_reference.cache.rewrite_imports), which
makes the copy a plain module whose kernel numba-cuda caches on disk
(gpu_anneal.kernels.kernel_cache). The kernel is documented in gpu_anneal/kernels/sudoku_coop.py;
this file is its only source.
"""

from numba import config, cuda, njit, uint32, uint64

from cpu_reference.sudoku.chain_template import drive_chain
from cpu_reference.sudoku.rules_constants import C_STATUS, C_TRIALS, RUNNING, TMAX, VWROW, WT
from gpu_anneal.kernels.compat import plain
from gpu_anneal.kernels.coop_rules import BOARD_WORDS, coop_load, coop_store

VALUE_WORDS = VWROW  # packed values
THRESHOLD_WORDS = TMAX + 1  # thr[d] at element d, d = 1..TMAX

if config.ENABLE_CUDASIM:
    drive = drive_chain.py_func  # the simulator runs the rules as Python: warp operations too

    def lane_copy(array):
        """The simulator: a copy of the array for this lane alone (its 32 threads interleave at
        any point, where a warp's lanes run each instruction together)."""
        return array.copy()

    def lane_write_back(array, copy, g, lane):
        """The simulator: lane 0's copy of row g written back."""
        if lane == 0:
            array[g] = copy[g]

else:
    drive = drive_chain

    @njit(inline="always")
    def lane_copy(array):
        """On a card: the array itself. Every lane updates the chain's row with the same values
        in the same instructions of a converged warp (no lane's branch differs), so a
        read-modify-write of the row reads one value and stores one value."""
        return array

    @njit(inline="always")
    def lane_write_back(array, copy, g, lane):
        """On a card: nothing to write back."""


def sudoku_coop_slice(
    vals, boards, best_vals, ctr, rng, solved, cpp, exp_table,
    given_vals, given_board, init_cells, ninit, move_cells, nmove, cand, ncand,
    box_cells, nbox, box_missing,
    kind, beta0, step, plateau_len, max_plateaus, stall, reheat_k, reheat_beta, reheats,
    trial_cap, budget, stop_on_solved,
):  # fmt: skip
    sv = cuda.shared.array(VALUE_WORDS, uint32)
    sb = cuda.shared.array(BOARD_WORDS, WT)
    st = cuda.shared.array(THRESHOLD_WORDS, uint32)
    g = uint64(cuda.blockIdx.x)  # unsigned: indices need no negative-index fix-up
    lane = uint32(cuda.threadIdx.x)
    if g >= uint64(vals.shape[0]):
        return
    if ctr[g, C_STATUS] != RUNNING:
        return
    counters, states = lane_copy(plain(ctr)), lane_copy(plain(rng))
    grids = plain(vals)
    coop_load(sv, sb, lane, grids[g])
    settings = (kind, beta0, step, plateau_len, max_plateaus, stall, reheat_k,
                reheat_beta, reheats, trial_cap, budget, stop_on_solved)  # fmt: skip
    drive(
        g, g // uint64(cpp), lane, sv, sb, st, plain(best_vals), counters, states,
        plain(solved), plain(exp_table), plain(given_vals), plain(given_board),
        plain(init_cells), plain(ninit), plain(move_cells), plain(nmove), plain(cand),
        plain(ncand), plain(box_cells), plain(nbox), plain(box_missing), settings,
    )  # fmt: skip
    if counters[g, C_TRIALS] > 0:  # a chain past its puzzle's trial cap never had a grid
        coop_store(sv, sb, lane, grids[g], plain(boards)[g])
    lane_write_back(plain(ctr), counters, g, lane)
    lane_write_back(plain(rng), states, g, lane)
