"""GPU code proven without a GPU: simulator equality with the CPU, PTX compilation, ptxas figures.

The simulator runs in a child process (NUMBA_ENABLE_CUDASIM must be set before numba loads).
PTX compilation needs numba-cuda with its NVVM wheels: these tests skip where it is missing.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest
from simulate import one_core, run_simulated, simulator_env

HERE = Path(__file__).parent
ROOT = HERE.parent
pytest.importorskip("numba.cuda")


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


@functools.cache
def _registry() -> dict:
    from gpu_anneal.kernels.ptx import kernel_registry
    from gpu_anneal.kinds import trial_kernels

    return kernel_registry(trial_kernels())


def _every_kernel() -> list[tuple[str, object, str]]:
    """(kernel, size, architecture) of every kernel the registry builds, for parametrizing."""
    from gpu_anneal.kernels.ptx import ARCHES

    return [
        (name, key, arch)
        for name, entry in _registry().items()
        for key in entry[2]
        for arch in ARCHES
    ]


def _kernel_cases() -> list:
    """_every_kernel as pytest params: every kernel on every architecture (5-60 s a build).
    CI's default run keeps every kernel at 4x4 and 9x9 on both architectures, Shikaku and Hashi
    on both, every move's one-thread and cooperative kernel at 16x16 on sm_90, and the default
    move's (presets.move_of("auto", order)) at every larger order on sm_90. The rest of the
    matrix, the same sources built for sm_80 from 16x16 up and for the other moves at 25x25 and
    up, is marked slow (`-m slow` runs it)."""
    return [
        pytest.param(
            name, key, arch, marks=[pytest.mark.slow] if _long_build(name, key, arch) else []
        )
        for name, key, arch in _every_kernel()
    ]


def _long_build(name: str, key, arch: str) -> bool:
    """A build left to the slow run: its source is compiled in CI for another architecture or
    order (see _kernel_cases)."""
    if not isinstance(key, int):
        return False
    from cpu_reference.sudoku.presets import move_of

    default_move = move_of("auto", key)
    default_kernel = name in (f"sudoku-{default_move}", f"sudoku-coop-{default_move}")
    return (arch == "sm_80" and key >= 4) or (key >= 5 and not default_kernel)


@functools.cache
def _compiled(name: str, key, arch: str) -> dict:
    """PTX and ptxas figures of one kernel, size and architecture: compiled once a session.

    Returns {"ptx": text or None, "error": message or None, "report": PtxasReport or None,
    "bounds": launch bounds or None}.
    """
    import inspect

    from gpu_anneal.kernels.ptx import compile_ptx, find_ptxas, ptxas_report

    entry = _registry()[name]
    factory, signature = entry[:2]
    bounds = entry[3](key, arch) if len(entry) > 3 else None
    sig = signature(key) if inspect.signature(signature).parameters else signature()
    built = {"ptx": None, "error": None, "report": None, "bounds": bounds}
    try:
        built["ptx"] = compile_ptx(factory(key), sig, arch, bounds)
    except Exception as exc:  # reported by the test, with the kernel's name
        built["error"] = f"{type(exc).__name__}: {exc}"[:500]
        return built
    if find_ptxas() is not None:
        built["report"] = ptxas_report(built["ptx"], arch)
    return built


def test_the_registry_holds_every_kernel():
    """Every Sudoku move for orders 2 to 5, Shikaku and Hashiwokakero, on sm_80 and sm_90: all
    of them are compiled below."""
    from cpu_reference.sudoku.rules import MOVE_NAMES
    from gpu_anneal.kernels.ptx import ARCHES

    registry = _registry()
    for move in MOVE_NAMES:
        name = "sudoku" if move == "sirdey" else f"sudoku-{move}"
        assert {2, 3, 4, 5} <= set(registry[name][2]), name
    assert {"shikaku", "hashi"} <= set(registry)
    assert set(ARCHES) == {"sm_80", "sm_90"}
    assert len(_every_kernel()) >= (3 * 4 + 2) * 2


@pytest.mark.ptx
@pytest.mark.parametrize(("name", "key", "arch"), _kernel_cases())
def test_kernel_compiles_with_registers_and_no_spills(name, key, arch):
    """PTX compiles for the architecture; ptxas reports registers within the launch bounds'
    budget (255 without bounds) and spills nothing: 0 bytes stored, 0 bytes loaded."""
    built = _compiled(name, key, arch)
    assert built["ptx"], f"{name}-{key} {arch}: {built['error']}"
    assert f".target {arch}" in built["ptx"] and ".entry" in built["ptx"]
    report, bounds = built["report"], built["bounds"]
    if report is None:
        pytest.skip("no ptxas here")
    budget = 255 if bounds is None else min(255, 65536 // (bounds[0] * bounds[1]))
    assert 0 < report.registers <= budget, f"{name}-{key} {arch}: budget {budget}"
    spills = (report.spill_stores, report.spill_loads)
    assert spills == (0, 0), f"{name}-{key} {arch}: spill stores, loads (bytes) {spills}"


@pytest.mark.ptx
@pytest.mark.parametrize("name", ["sudoku", "sudoku-candidate", "sudoku-box-swap"])
def test_9x9_sass_has_no_floating_point_around_the_move_loop(name):
    """The compiled 9x9 kernels (sm_90 SASS): no floating-point instruction in the move loop or
    in the plateau loop around it, and no local memory in the move loop (an integer division
    by a run-time value there would compile to floating-point reciprocal code)."""
    from gpu_anneal.kernels import sass
    from gpu_anneal.kernels.ptx import find_ptxas

    built, ptxas, nvdisasm = _compiled(name, 3, "sm_90"), find_ptxas(), sass.find_nvdisasm()
    if ptxas is None or nvdisasm is None:
        pytest.skip("no ptxas or nvdisasm here")
    text = sass.disassemble(sass.assemble(built["ptx"], "sm_90", ptxas).cubin, nvdisasm)
    summary = sass.read_listing(text, name).summary()
    assert summary["move_loop_found"], summary
    assert (summary["fp"], summary["plateau_fp"]) == (0, 0), summary
    assert (summary["local_loads"], summary["local_stores"]) == (0, 0), summary


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
def test_the_spill_check_can_fail():
    """A loop carrying 48 int64 values, held to 32 registers by its launch bounds, spills, and
    ptxas -v reports it: the zero-spill assertion above can fail."""
    from numba import cuda, types

    from gpu_anneal.kernels.ptx import compile_ptx, find_ptxas, ptxas_report

    if find_ptxas() is None:
        pytest.skip("no ptxas here")
    n = 48
    lines = ["def heavy(a, out):", "    i = cuda.grid(1)"]
    lines += [f"    v{k} = a[i + {k}]" for k in range(n)]
    lines += ["    for t in range(a.shape[0]):"]
    lines += [f"        v{k} = v{k} * v{(k + 1) % n} + t" for k in range(n)]
    lines += ["    out[i] = " + " ^ ".join(f"v{k}" for k in range(n))]
    namespace = {"cuda": cuda}
    exec("\n".join(lines), namespace)
    array = types.Array(types.int64, 1, "C")
    text = compile_ptx(namespace["heavy"], (array, array), "sm_90", (1024, 2))
    report = ptxas_report(text, "sm_90")
    assert report.registers <= 32
    assert report.spill_stores > 0 and report.spill_loads > 0


def test_cuda_backend_without_device_is_an_error_not_a_fallback():
    """backend='cuda' where no device is usable raises BackendError; 'auto' takes the CPU."""
    from gpu_anneal.backends import BackendError, cuda_status, resolve_backend

    if cuda_status()[0]:
        pytest.skip("a CUDA device is usable here")
    with pytest.raises(BackendError):
        resolve_backend("cuda")
    assert resolve_backend("auto") == "cpu"


def test_orders_without_kernels_are_refused():
    """The order above the largest with a CUDA kernel: a clear InputError naming it."""
    from cpu_reference.errors import InputError
    from gpu_anneal.kernels.sudoku import CUDA_ORDERS, check_order

    order = max(CUDA_ORDERS) + 1
    with pytest.raises(InputError, match=f"order {order}"):
        check_order(order)


TINY_4X4 = "1...........4...\n"  # a 4x4 with many solutions: every run solves in a trial or two


def test_bench_tts_backend_cuda_without_a_device_is_exit_2(tmp_path):
    """`bench tts --backend cuda` reaches the run: with no usable device it stops with the
    backend error (exit 2, one line naming the backend), not a CPU measurement."""
    from typer.testing import CliRunner

    from cli.main import app
    from gpu_anneal.backends import cuda_status

    if cuda_status()[0]:
        pytest.skip("a CUDA device is usable here")
    path = tmp_path / "tiny.txt"
    path.write_text(TINY_4X4)
    result = CliRunner().invoke(app, ["bench", "tts", str(path), "--backend", "cuda", "--json"])
    assert result.exit_code == 2, result.output
    assert "--backend cuda" in result.output and "Traceback" not in result.output
    assert not result.stdout.strip().startswith("{")


@pytest.mark.cudasim
def test_bench_tts_backend_cuda_runs_on_the_simulated_card(tmp_path):
    """Under the simulator a tiny 4x4 `bench tts --backend cuda` runs its runs on the CUDA
    runner: the report and every puzzle row say backend "cuda", seconds per trial come from the
    given card rate (proposals per trial / rate), and every run solved."""
    path = tmp_path / "tiny.txt"
    path.write_text(TINY_4X4)
    args = ["bench", "tts", str(path), "--backend", "cuda", "--runs", "3", "--card-rate", "1e6"]
    proc = subprocess.run(
        [sys.executable, "-m", "gpu_anneal", *args, "--json", "--time-limit", "60"],
        preexec_fn=one_core(),
        capture_output=True,
        text=True,
        timeout=600,
        env=simulator_env(),
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["backend"] == "cuda" and report["card_rate"] == 1e6
    (row,) = report["puzzles"]
    assert row["backend"] == "cuda" and row["cores"] == 1
    assert row["runs"] == row["solved_runs"] == 3 and row["trials"] >= 3
    assert 0 < row["seconds_per_trial"] < 1  # a 4x4 trial is far below a million proposals


def test_bench_tts_card_rate_only_with_cuda(tmp_path):
    """--card-rate without CUDA, or not positive: one line, exit 2."""
    from typer.testing import CliRunner

    from cli.main import app

    path = tmp_path / "tiny.txt"
    path.write_text(TINY_4X4)
    for extra in (["--card-rate", "1e6"], ["--backend", "cuda", "--card-rate", "0"]):
        result = CliRunner().invoke(app, ["bench", "tts", str(path), *extra])
        assert result.exit_code == 2, result.output
        assert "--card-rate" in result.output


def test_no_driver_library_answers_without_importing_numba_cuda(monkeypatch):
    """Where libcuda does not load, cuda_status says so at once, and auto picks the CPU."""
    from gpu_anneal import backends

    def refuse(name):
        raise OSError(f"{name}: cannot open shared object file")

    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)
    monkeypatch.delenv("NUMBA_CUDA_DRIVER", raising=False)
    monkeypatch.setattr(backends.sys, "platform", "linux")
    monkeypatch.setattr(backends.ctypes, "CDLL", refuse)
    assert backends.cuda_status() == (False, "no CUDA driver found (libcuda.so.1 does not load)")
    assert backends.resolve_backend("auto") == "cpu"
    with pytest.raises(backends.BackendError, match="^backend 'cuda': no CUDA driver"):
        backends.resolve_backend("cuda")
    with pytest.raises(backends.BackendError, match="^--backend cuda: no CUDA driver"):
        backends.resolve_backend("cuda", flags=True)
