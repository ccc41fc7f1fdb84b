"""Template of the Sudoku slice kernel: gpu_anneal.kernels.sudoku writes it out per specialisation.

Every name in capitals is a compile-time constant, and drive, get_value and set_value come from
the rules module of the same specialisation (cpu_reference.sudoku.rules.model); both are written
in at the marked line below by sudoku.kernel_function, which makes the generated file a plain
module whose kernel numba-cuda caches on disk (gpu_anneal.kernels.kernel_cache). The kernel is
documented in gpu_anneal/kernels/sudoku.py; this file is its only source.
"""

# ruff: noqa: F401, F821  (constants, and the names they use, come in at the marked line)

from numba import config, cuda, njit, uint8, uint32, uint64

from gpu_anneal.kernels.compat import plain

# <constants>


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
