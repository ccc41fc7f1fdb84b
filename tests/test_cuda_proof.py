"""GPU code proven without a GPU: simulator equality with the CPU, PTX compilation, ptxas figures.

The simulator runs in a child process (NUMBA_ENABLE_CUDASIM must be set before numba loads).
PTX compilation needs numba-cuda with its NVVM wheels: these tests skip where it is missing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
ROOT = HERE.parent
pytest.importorskip("numba.cuda")


def run_simulated(script: str, *args: str) -> object:
    """Run tests/cuda_sim/<script> under the CUDA simulator; its stdout parsed as JSON."""
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, str(HERE / "cuda_sim" / script), *args],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.cudasim
def test_kernel_and_cpu_move_chains_alike():
    """3 seeds x orders 2 and 3: counters, grids, bitboards and RNG states equal after slices."""
    rows = run_simulated("sudoku_equality.py", "1", "2", "3")
    assert len(rows) == 6
    for row in rows:
        assert row["equal"], row
        assert row["proposals"] > 0 and row["trials"] > 1  # chains moved and restarted


@pytest.mark.cudasim
def test_simulated_4x4_batch_solves_end_to_end():
    """solve_batch with backend='cuda' in the simulator solves and verifies a 4x4 batch."""
    result = run_simulated("sudoku_solve.py")
    assert result["backend"] == "cuda"
    assert result["solved"] == result["puzzles"] == 3
    assert all(result["verified"])


@pytest.mark.cudasim
def test_device_fault_mid_run_reports_every_puzzle_and_names_the_error():
    """A launch failing mid-run: each puzzle still reported, unsolved, with the CUDA error."""
    result = run_simulated("sudoku_device_fault.py")
    assert result["reported"] == [0, 1, 2]
    assert all(e and e.startswith("CUDA error: RuntimeError") for e in result["errors"])
    assert not any(result["solved"])


@pytest.mark.ptx
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_every_sudoku_kernel_compiles_to_ptx(arch):
    """Orders 2 to 5 compile for sm_80 and sm_90 with no device present."""
    from gpu_anneal.kernels.ptx import kernel_table

    rows = kernel_table(arch, ("sudoku",))
    assert [row["size"] for row in rows] == [2, 3, 4, 5]
    for row in rows:
        assert row["ptx"], row.get("error")
        assert row["ptx_lines"] > 100


@pytest.mark.ptx
def test_a_kernel_with_a_python_list_fails_the_ptx_check():
    """The check can fail: a list inside a kernel is refused by the compiler."""
    from numba import types

    from gpu_anneal.kernels.ptx import compile_ptx

    def broken(out):
        values = [1, 2, 3]
        values.append(4)
        out[0] = len(values)

    with pytest.raises(Exception):  # noqa: B017 - numba raises a TypingError subclass
        compile_ptx(broken, (types.Array(types.int64, 1, "C"),), "sm_90")


@pytest.mark.ptx
def test_ptxas_reports_resources_of_the_9x9_kernel():
    """ptxas -v gives registers and spills for the 9x9 kernel within its launch bounds."""
    from gpu_anneal.kernels import sudoku as cuda_sudoku
    from gpu_anneal.kernels.ptx import compile_ptx, find_ptxas, ptxas_report

    if find_ptxas() is None:
        pytest.skip("no ptxas here")
    bounds = cuda_sudoku.launch_bounds(3)
    ptx = compile_ptx(
        cuda_sudoku.kernel_function(3), cuda_sudoku.kernel_signature(), "sm_90", bounds
    )
    report = ptxas_report(ptx, "sm_90")
    threads_per_sm = bounds[0] * bounds[1]
    assert 0 < report.registers <= 65536 // threads_per_sm
    assert report.spill_stores <= 64  # bytes; the committed table holds the exact figure


def test_cuda_backend_without_device_is_an_error_not_a_fallback():
    """backend='cuda' where no device is usable raises BackendError; 'auto' takes the CPU."""
    from gpu_anneal.backends import BackendError, cuda_status, resolve_backend

    if cuda_status()[0]:
        pytest.skip("a CUDA device is usable here")
    with pytest.raises(BackendError):
        resolve_backend("cuda")
    assert resolve_backend("auto") == "cpu"


def test_orders_without_kernels_are_refused():
    """Order 6 has no CUDA kernel: a clear InputError."""
    from cpu_reference.errors import InputError
    from gpu_anneal.kernels.sudoku import check_order

    with pytest.raises(InputError, match="order 6"):
        check_order(6)
