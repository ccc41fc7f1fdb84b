"""The Sudoku kernel: every move's real kernel source equals the CPU runner (simulator), and the
compiled move loop keeps its state out of local memory with no floating point (PTX)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from simulate import run_simulated

from cpu_reference.sudoku import rules
from cpu_reference.sudoku.batch import EXP_TABLE, make_batch, run_slice_cpu
from cpu_reference.sudoku.schedules import by_name


@pytest.mark.cudasim
@pytest.mark.parametrize("move", ["candidate", "box-swap", "focused", "focused-two"])
def test_simulated_kernel_equals_cpu_runner_for_every_move(move):
    """Same counters, packed grids, bitboards, best grids, RNG states and solved bounds."""
    rows = run_simulated("sudoku_equality.py", "4", "--move", move)
    assert [row["order"] for row in rows] == [2, 3]
    for row in rows:
        assert row["equal"], row
        assert row["move"] == move and row["proposals"] > 0 and row["trials"] > 1


@pytest.mark.ptx
def test_9x9_move_loop_state_in_shared_memory_and_integer_only():
    """9x9, Sirdey's move, sm_90: the state lives in shared memory (ld/st.shared), nothing in
    local memory, no floating-point instruction anywhere in the kernel, and ptxas spills
    nothing within the launch bounds' register budget."""
    pytest.importorskip("numba.cuda")
    from cpu_reference.sudoku.rules import MOVE_SIRDEY
    from gpu_anneal.kernels import ptx
    from gpu_anneal.kernels import sudoku as ks

    text = ptx.compile_ptx(
        ks.kernel_function(3, MOVE_SIRDEY), ks.kernel_signature(3, MOVE_SIRDEY), "sm_90",
        ks.launch_bounds(3, MOVE_SIRDEY),
    )  # fmt: skip
    assert text.count("ld.shared") > 10 and text.count("st.shared") > 10
    assert "ld.local" not in text and "st.local" not in text
    assert not re.search(r"\.f(16|32|64)\b", text)
    report = ptx.ptxas_report(text, "sm_90")
    if report is None:
        pytest.skip("no ptxas")
    assert report.spill_stores == report.spill_loads == report.stack_frame == 0
    assert report.shared_bytes == ks.shared_bytes_per_block(3, MOVE_SIRDEY)
    threads, blocks = ks.launch_bounds(3, MOVE_SIRDEY)
    assert report.registers * threads * blocks <= 65536


def run_as_kernel(batch, budget: int, thr_cap: int, lane: int = 5) -> None:
    """Every chain of `batch` through the shared-memory kernel's rules on the CPU, as
    kernel_function's run_chain does: the kernel's model (lanes, packed values, one state array
    of values, bitboards and `thr_cap` thresholds, flat move lists), column `lane`."""
    from cpu_reference.sudoku.batch import flat_rows
    from gpu_anneal.kernels import sudoku as ks

    order, T = batch.order, ks.threads_per_block(batch.order)
    m = rules.model(order, batch.move, T, table=False, packed=True, thr_cap=thr_cap)
    pk = m.packing
    puzzle = {key: ks.host_array(batch, key) for key in rules.PUZZLE_ARRAYS}
    for key in ks.FLAT_KEYS:
        puzzle[key] = puzzle[key].reshape(-1)
    settings = (*rules.schedule_args(batch.schedule), batch.trial_cap, budget, True)
    board_rows = flat_rows(batch.boards)
    for g in range(batch.chains):
        state = np.zeros((pk.VW + pk.NW + m.focus_words + m.thr_rows) * T, np.uint32)
        for c in range(pk.cells):
            digit = (int(batch.vals[g, c]) - 1) & 0xFFFFFFFF  # as the kernel: wraps before a trial
            m.set_value(state, lane, np.uint32(c), np.uint32(digit))
        at = (pk.VW + np.arange(pk.NW)) * T + lane
        state[at] = board_rows[g, : pk.NW]
        m.drive_chain(
            np.uint64(g), np.uint64(g // batch.cpp), lane, state, state, state,
            batch.best_vals, batch.ctr, batch.rng, batch.solved, batch.exp_table,
            *(puzzle[key] for key in rules.PUZZLE_ARRAYS), settings,
        )  # fmt: skip
        for c in range(pk.cells):
            batch.vals[g, c] = m.get_value(state, lane, np.uint32(c)) + 1
        board_rows[g, : pk.NW] = state[at]


# Sirdey's move and the default one in CI; every move in the slow run (each compiles its own
# kernel rules on the host; the move loops themselves are checked against the CPU runner for
# every move, with the whole table, by the simulator test above and tests/test_cuda_proof.py).
SHORT_TABLE_MOVES = [
    "sirdey",
    "focused-two",
    *(pytest.param(m, marks=pytest.mark.slow) for m in ("candidate", "box-swap", "focused")),
]


@pytest.mark.parametrize("move", SHORT_TABLE_MOVES)
def test_kernel_rules_with_a_short_threshold_table_equal_the_cpu(move):
    """The kernel's rules (branch-free move loop, one shared array, flat lists) keeping only
    thr[1] (thr_cap=1: every move of delta >= 2 leaves the move loop and is decided with
    exact_threshold, then the plateau resumes) move every chain exactly as the CPU runner
    with its whole table: same counters, grids, bitboards, best grids, RNG states. The CPU
    runner takes one thread here, so that its chains run one after the other as the emulation
    runs them: once a puzzle solves, where its other chains stop depends on when each saw the
    bound (only the winner is fixed), which threads running at once would leave to timing."""
    import numba

    puzzles = np.array(
        [[0 if ch == "." else int(ch) for ch in text] for text in
         ["1...........4...", "..3.4.........2.", "................"]], dtype=np.uint8,
    )  # fmt: skip
    sched = by_name("sirdey-course", 2, plateau=20, stall=3, max_plateaus=8)
    code = rules.MOVE_NAMES[move]
    cpu = make_batch(puzzles, 2, sched, cpp=4, seed=11, trial_cap=12, move=code)
    kern = make_batch(puzzles, 2, sched, cpp=4, seed=11, trial_cap=12, move=code)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        for budget in (2, 5, 4):
            run_slice_cpu(cpu, budget, stop_on_solved=True)
            run_as_kernel(kern, budget, thr_cap=1)
    finally:
        numba.set_num_threads(threads)
    for key in ("ctr", "vals", "boards", "best_vals", "rng", "solved"):
        np.testing.assert_array_equal(getattr(kern, key), getattr(cpu, key), err_msg=key)
    accepted, proposals = cpu.ctr[:, rules.C_ACCEPTED].sum(), cpu.ctr[:, rules.C_PROPOSALS].sum()
    assert 0 < accepted < proposals  # moves were taken and refused, past the table too


@pytest.mark.parametrize("move", [rules.MOVE_SIRDEY, rules.MOVE_BOX_SWAP])
def test_thresholds_past_the_cap_equal_the_whole_table(move):
    """exact_threshold(d) of a table cut at 16 (9x9 kernels) equals thr[d] of the CPU's whole
    table for every d = 17..TMAX, at temperatures from beta = 0 to beyond the last threshold."""
    from cpu_reference.anneal.fixed_point import beta_fixed

    whole = rules.model(3, move)
    cut = rules.model(3, move, thr_cap=16)
    full = np.zeros(whole.tmax + 1, np.uint32)
    short = np.zeros(16, np.uint32)
    for beta in (0.0, 1e-6, 0.01, 0.1, 0.37, 1.0, 2.5, 7.0, 30.0):
        whole.fill_thresholds(full, 0, np.uint64(beta_fixed(beta)), EXP_TABLE)
        cut.fill_thresholds(short, 0, np.uint64(beta_fixed(beta)), EXP_TABLE)
        np.testing.assert_array_equal(short, full[1:17])
        for d in range(17, whole.tmax + 1):
            assert cut.exact_threshold(short, 0, np.uint32(d)) == full[d], (beta, d)


def test_launch_bounds_follow_each_architectures_shared_memory():
    """A 9x9 block holds 27 KB of state (+1 KB reserved): 8 blocks fit an sm_90 SM's 228 KB,
    5 an sm_80 SM's 164 KB, 3 an sm_89 SM's 100 KB; the register budget follows from the block
    count (at least 64 a thread) and never asks more blocks than shared memory holds."""
    from cpu_reference.sudoku.rules import MOVE_NAMES
    from gpu_anneal.kernels import sudoku as ks
    from gpu_anneal.kernels.cards import shared_kib_per_sm

    assert [shared_kib_per_sm(a) for a in ("sm_80", "sm_89", "sm_90")] == [164, 100, 228]
    assert shared_kib_per_sm("sm_75") == 100  # no named card: the smallest
    assert [ks.launch_bounds(3, 0, a)[1] for a in ("sm_90", "sm_80", "sm_89")] == [8, 5, 3]
    for arch in ("sm_80", "sm_89", "sm_90"):
        for order in (2, 3, 4):
            for code in MOVE_NAMES.values():
                threads, blocks = ks.launch_bounds(order, code, arch)
                need = ks.shared_bytes_per_block(order, code) + ks.SHARED_RESERVED
                assert blocks * need <= shared_kib_per_sm(arch) * 1024
                assert 65536 // (threads * blocks) >= ks.REGISTER_BUDGET
