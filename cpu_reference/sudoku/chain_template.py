"""A chain's life on the Sudoku rules: trials, plateaus, reheats, stops and the deterministic
winner, one module for every specialisation (rules.model() writes a copy per order, move and
variant, as it does of rules_template.py).

The constants come from the specialisation's constants module and the rules from its copy of
rules_template.py; the steps drive_chain hands a chain's work to (`steps`: start_trial,
fill_thresholds, plateau, focus_init) from a module the specialisation names: the rules
themselves (the CPU runner, the one-thread kernels) or gpu_anneal/kernels/coop_rules.py (one warp
a chain). Imported as itself, it reads rules_constants.py and rules_template.py for both; a copy
names the specialisation's modules in these imports instead, every other line as here
(cpu_reference.cache.rewrite_imports). The rules are documented in rules.py.
"""

import numpy as np
from numba import njit, uint32, uint64

from cpu_reference.anneal.fixed_point import next_beta
from cpu_reference.sudoku import rules_template as steps
from cpu_reference.sudoku.rules_constants import (
    C_ACCEPTED,
    C_BEST,
    C_BEST_VALS_COST,
    C_BETA,
    C_COST,
    C_LAST_IMPROVE,
    C_PLATEAU,
    C_PROPOSALS,
    C_REHEATED,
    C_STATUS,
    C_TRIALS,
    CAPPED,
    CELLS,
    COUNTS,
    EXHAUSTED,
    FLAT_LISTS,
    FOCUS,
    LINEAR,
    NCOUNT,
    NWFOCUS,
    NWROW,
    ONE,
    RUNNING,
    SOLVED,
    STOPPED,
)
from cpu_reference.sudoku.rules_template import (
    counts_from_values,
    get_value,
    linear_to_rows,
    rare_move,
    rows_from_values,
    rows_to_linear,
)
from cpu_reference.sudoku.schedules import KIND_GEOMETRIC


def drive_chain(
    g, p, lane, vals, board, thr, best_vals, ctr, rng, solved, exp_table,
    given_vals, given_board, init_cells, ninit, move_cells, nmove, cand, ncand,
    box_cells, nbox, box_missing, settings,
):  # fmt: skip
    """Run chain g (of puzzle p) for up to `budget` plateaus.

    vals, board and thr are the chain's flat state arrays (column `lane`); the other arrays are
    the whole batch's. Starts trials as needed (trial_cap over the puzzle's chains, below), ends
    a trial when beta passes the last plateau or after `stall` plateaus without a new best,
    stops at cost 0 (lowering solved[p] to its proposal count) or, when stop_on_solved, once its
    proposals reach solved[p]. With reheat_beta > 0 a trial after the chain's first keeps the
    grid and starts at plateau reheat_k, inverse temperature reheat_beta, unless reheats > 0
    trials in a row were reheated already (ctr's C_REHEATED): that one starts afresh. settings =
    (kind, beta0, step, plateau_len, max_plateaus, stall, reheat_k, reheat_beta, reheats,
    trial_cap, budget, stop_on_solved): one tuple, so that every call stays under Python's 30
    positional arguments (above that it compiles to *args, which the compilers cannot inline).

    trial_cap is the puzzle's trials over all its chains, dealt round-robin: the puzzle's n-th
    trial (from 0) is chain n % cpp's, so chain i of cpp starts a trial while trials * cpp + i
    < trial_cap (cap // cpp trials, one more when i < cap % cpp; none when i >= cap) and is
    then exhausted. cpp is the batch's chains over its puzzles (ctr and solved are whole).
    """
    (
        kind, beta0, step, plateau_len, max_plateaus, stall, reheat_k, reheat_beta, reheats,
        trial_cap, budget, stop_on_solved,
    ) = settings  # fmt: skip
    cpp = uint64(ctr.shape[0]) // uint64(solved.shape[0])  # once a slice, outside the loops
    # Only the values the plateau loop needs live in registers; the other counters are
    # updated in ctr once per plateau. Puzzle rows are taken where they are used.
    s0 = rng[g, 0]
    s1 = rng[g, 1]
    cost = np.int32(ctr[g, C_COST])
    best = np.int32(ctr[g, C_BEST])
    k = ctr[g, C_PLATEAU]
    beta = uint64(ctr[g, C_BETA])
    geometric = kind == KIND_GEOMETRIC
    ubeta0 = uint64(beta0)
    ustep = uint64(step)
    if FLAT_LISTS:  # kernels: the lists come flat, the puzzle's rows found by pu (move_at)
        mlist, blist, nlist, pu = move_cells, box_cells, nbox, uint32(p)
    else:
        mlist, blist, nlist, pu = move_cells[p], box_cells[p], nbox[p], uint32(0)
    # the puzzle's rows taken once (a row taken in the loop costs reference counting a plateau)
    pcand, pncand, pmoves = cand[p], ncand[p], nmove[p]
    prev_best = best
    moved = uint32(0)  # moves of the current plateau made before a rare move stopped it
    plateaus = 0
    if FOCUS and ctr[g, C_TRIALS] > 0:  # the conflict set is not kept between slices
        steps.focus_init(vals, board, lane, mlist, pu, pmoves)
    while plateaus < budget:
        if moved == 0:
            if ctr[g, C_STATUS] != RUNNING:
                break
            if stop_on_solved and ctr[g, C_PROPOSALS] >= solved[p]:
                ctr[g, C_STATUS] = STOPPED
                break
            if k < 0:
                chain = uint64(g) - uint64(p) * cpp  # i: the chain's place in its puzzle
                if uint64(ctr[g, C_TRIALS]) * cpp + chain >= uint64(trial_cap):
                    ctr[g, C_STATUS] = EXHAUSTED
                    break
                # a counter rather than trials % (reheats + 1): an integer division by a
                # run-time value compiles to floating-point reciprocal code on the GPU
                if (
                    uint64(reheat_beta) != uint64(0)
                    and ctr[g, C_TRIALS] > 0
                    and (reheats == 0 or ctr[g, C_REHEATED] < reheats)
                ):
                    k = reheat_k  # reheat: the grid stays, the law runs on from plateau k_r
                    beta = uint64(reheat_beta)
                    ctr[g, C_REHEATED] += 1
                else:
                    ctr[g, C_REHEATED] = 0
                    c0, s0, s1 = steps.start_trial(
                        vals, board, lane, given_vals[p], given_board[p], init_cells[p],
                        ninit[p], pcand, pncand, blist, nlist, pu, box_missing[p], s0, s1,
                    )  # fmt: skip
                    cost = np.int32(c0)
                    k = 0
                    beta = ubeta0
                    if FOCUS:
                        steps.focus_init(vals, board, lane, mlist, pu, pmoves)
                ctr[g, C_TRIALS] += 1
                best = cost
                ctr[g, C_LAST_IMPROVE] = k
        if cost > 0 and pmoves > 0:
            if moved == 0:
                steps.fill_thresholds(thr, lane, beta, exp_table)
                prev_best = best
            cost, best, done, acc, s0, s1, rare, r1, _ = steps.plateau(
                vals, board, thr, lane, mlist, pu, pmoves, pcand, pncand,
                blist, nlist, moved, plateau_len, cost, best, s0, s1,
            )  # fmt: skip
            ctr[g, C_PROPOSALS] += done - moved
            ctr[g, C_ACCEPTED] += acc
            if CAPPED and rare:  # decide the move outside the move loop, then resume
                up, taken = rare_move(
                    vals, board, thr, lane, mlist, pu, pmoves, pcand, pncand,
                    blist, nlist, r1,
                )  # fmt: skip
                cost = np.int32(cost + up)
                ctr[g, C_ACCEPTED] += taken
                moved = done
                continue
            moved = uint32(0)
            if best < prev_best:
                ctr[g, C_LAST_IMPROVE] = k
        if cost < ctr[g, C_BEST_VALS_COST]:
            ctr[g, C_BEST_VALS_COST] = cost
            for c in range(CELLS):
                best_vals[g, c] = np.uint8(get_value(vals, lane, uint32(c)) + ONE)
        if cost == 0:
            ctr[g, C_STATUS] = SOLVED
            if ctr[g, C_PROPOSALS] < solved[p]:
                solved[p] = ctr[g, C_PROPOSALS]
            break
        k += 1
        beta = next_beta(geometric, beta, ustep)
        stalled = stall > 0 and k - ctr[g, C_LAST_IMPROVE] >= stall
        if k >= max_plateaus or stalled or pmoves == 0:
            k = -1
        plateaus += 1
    ctr[g, C_COST] = cost
    ctr[g, C_BEST] = best
    ctr[g, C_PLATEAU] = k
    ctr[g, C_BETA] = np.int64(beta)
    rng[g, 0] = s0
    rng[g, 1] = s1


# One function for both: called by the CPU runner's chain loop, and compiled into the CUDA kernel
# as a device function that NVVM inlines (with every helper above), so that each state access
# compiles to an instruction of the array's address space (shared or local memory).
drive_chain = njit(cache=True)(drive_chain)


@njit(cache=True, nogil=True)  # nogil: pieces of a batch run in threads at once
def run_chains_cpu(
    lo, hi, vals, boards, best_vals, thr, ctr, rng, solved, cpp, exp_table,
    given_vals, given_board, init_cells, ninit, move_cells, nmove, cand, ncand,
    box_cells, nbox, box_missing,
    kind, beta0, step, plateau_len, max_plateaus, stall, reheat_k, reheat_beta, reheats,
    trial_cap, budget, stop_on_solved,
):  # fmt: skip
    """Chains lo..hi-1 of the batch for up to `budget` plateaus each, one after another
    (cpu_reference.anneal.threads.over_chains spreads a batch's ranges over threads)."""
    settings = (
        kind, beta0, step, plateau_len, max_plateaus, stall, reheat_k, reheat_beta, reheats,
        trial_cap, budget, stop_on_solved,
    )  # fmt: skip
    for g in range(lo, hi):
        if LINEAR:  # the chain's bitboards cell-linear for the slice (packing.py)
            board = np.empty(NWFOCUS, np.uint64)
            rows_to_linear(boards[g], board)
        elif FOCUS:  # room for the conflict set and movable cells after the bitboards
            board = np.empty(NWFOCUS, boards.dtype)
            board[:NWROW] = boards[g, :NWROW]
        elif COUNTS:  # the chain's unit counts for the slice, from its grid (packing.py)
            board = np.empty(NCOUNT, np.uint8)
            counts_from_values(vals[g], board)
        else:
            board = boards[g]
        chain = np.uint64(g)  # one compiled drive_chain for every caller (the kernels' too)
        drive_chain(
            chain, chain // cpp, 0, vals[g], board, thr[g],
            best_vals, ctr, rng, solved, exp_table,
            given_vals, given_board, init_cells, ninit, move_cells, nmove, cand, ncand,
            box_cells, nbox, box_missing, settings,
        )  # fmt: skip
        if LINEAR:
            linear_to_rows(board, boards[g])
        elif FOCUS:
            boards[g, :NWROW] = board[:NWROW]
        elif COUNTS:
            rows_from_values(vals[g], boards[g])
