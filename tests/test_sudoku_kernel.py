"""The Sudoku kernel: every move's real kernel source equals the CPU runner (simulator), and the
compiled move loop keeps its state out of local memory with no floating point (PTX)."""

from __future__ import annotations

import re

import pytest
from simulate import run_simulated


@pytest.mark.cudasim
@pytest.mark.parametrize("move", ["candidate", "box-swap"])
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
