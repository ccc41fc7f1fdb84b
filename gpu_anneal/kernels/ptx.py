"""Proof of GPU code without a GPU: compile every kernel to PTX and read ptxas's resource report.

`compile_ptx(fn, signature, arch)` runs numba-cuda's NVVM compilation for a real architecture
(sm_80, sm_90...) with no device present: numba-cuda asks the current device for its compute
capability when a kernel calls other jitted functions, so that lookup is answered with the
requested architecture for the duration of the call. Python objects inside a kernel (lists,
dicts) fail here, as they would on a card, although the simulator runs them.

The kernels compiled here are the very functions a device process compiles and caches
(kernel_registry): the Sudoku kernels' generated modules (sudoku.kernel_function, one chain a
thread, and sudoku_coop.kernel_function, one warp a chain), the grid kinds' trial kernels'
generated copies (launch.TrialKernel.function), handed in from the kinds registry, and beside
the impasse trial kernel its one-warp-a-chain kernel (impasse_warp.kernel_function), which takes
the same arguments. A device
process builds for its card's own target (numba-cuda picks sm_90a on an sm_90 card); the PTX
here is for plain sm_80 / sm_90.

`ptxas_report(ptx, arch)` assembles the PTX with `ptxas -v` (from the nvidia-cuda-nvcc wheel or
PATH) and returns registers, stack frame, spill stores and loads, and shared/constant bytes.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from cpu_reference.sudoku.moves import MOVES
from gpu_anneal.kernels.cards import parse_arch

try:
    import nvidia.cuda_nvcc as nvcc_pkg  # the ptx extra
except ImportError:
    nvcc_pkg = None

ARCHES = ("sm_80", "sm_90")


class _FakeDevice:
    def __init__(self, cc: tuple[int, int]):
        self.compute_capability = cc


@contextlib.contextmanager
def _device_lookup_answers(cc: tuple[int, int]) -> Iterator[None]:
    """While inside, numba-cuda's current-device lookup returns a device of capability cc."""
    from numba.cuda import dispatcher  # late: numba.cuda costs ~0.19 s

    saved = dispatcher.get_current_device
    dispatcher.get_current_device = lambda: _FakeDevice(cc)
    try:
        yield
    finally:
        dispatcher.get_current_device = saved


def compile_ptx(
    fn: Callable, signature: tuple, arch: str = "sm_90", launch_bounds: tuple | None = None
) -> str:
    """PTX text of kernel `fn` (a plain Python function) for `signature` on `arch`.

    launch_bounds = (threads per block, minimum blocks per SM) as the kernel is launched.
    """
    from numba import cuda  # late: numba.cuda costs ~0.19 s

    cc = parse_arch(arch)
    with _device_lookup_answers(cc):
        ptx, _ = cuda.compile_ptx(fn, signature, cc=cc, launch_bounds=launch_bounds)
    return ptx


def find_ptxas() -> str | None:
    """Path of ptxas: the nvidia-cuda-nvcc wheel's, else CUDA_HOME's, else PATH's."""
    candidates = []
    if nvcc_pkg is not None:
        for root in nvcc_pkg.__path__:
            candidates.append(Path(root) / "bin" / "ptxas")
    if os.environ.get("CUDA_HOME"):
        candidates.append(Path(os.environ["CUDA_HOME"]) / "bin" / "ptxas")
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    return shutil.which("ptxas")


@dataclass
class PtxasReport:
    """ptxas -v figures of one kernel."""

    registers: int
    stack_frame: int
    spill_stores: int
    spill_loads: int
    shared_bytes: int
    constant_bytes: int
    ptxas: str

    def as_dict(self) -> dict:
        """Plain dict for JSON."""
        return asdict(self)


def ptxas_report(ptx: str, arch: str = "sm_90", ptxas: str | None = None) -> PtxasReport | None:
    """Assemble `ptx` with ptxas -v and parse its resource lines; None when no ptxas is found."""
    tool = ptxas or find_ptxas()
    if tool is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "kernel.ptx"
        src.write_text(ptx)
        proc = subprocess.run(
            [tool, "-v", f"-arch={arch}", str(src), "-o", str(Path(tmp) / "kernel.cubin")],
            capture_output=True,
            text=True,
            timeout=300,
        )
    if proc.returncode != 0:
        raise RuntimeError(f"ptxas failed: {proc.stderr.strip().splitlines()[-1:]}")
    text = proc.stderr + proc.stdout

    def number(pattern: str) -> int:
        found = re.findall(pattern, text)
        return max((int(x) for x in found), default=0)

    return PtxasReport(
        registers=number(r"Used (\d+) registers"),
        stack_frame=number(r"(\d+) bytes stack frame"),
        spill_stores=number(r"(\d+) bytes spill stores"),
        spill_loads=number(r"(\d+) bytes spill loads"),
        shared_bytes=number(r"(\d+) bytes smem"),
        constant_bytes=sum(int(x) for x in re.findall(r"(\d+) bytes cmem\[\d+\]", text)),
        ptxas=tool,
    )


def kernel_registry(trials: Mapping[str, tuple[Callable, Callable]] | None = None) -> dict:
    """name -> (kernel function factory of a size key, signature factory, size keys[, bounds]).

    The optional fourth item maps a size key and an architecture to the launch bounds the kernel
    is compiled with there. The Sudoku kernels are always there; `trials` adds the grid puzzles'
    trial kernels, name -> (kernel function factory, argument types factory): the kinds
    registry's (gpu_anneal.kinds.trial_kernels; the kernels know no kind).
    """
    # late: the Sudoku kernels bring numba.cuda (~0.19 s), which find_ptxas's callers do not need
    from gpu_anneal.kernels import sudoku as cuda_sudoku
    from gpu_anneal.kernels import sudoku_coop as coop

    registry = {}
    for move in MOVES.values():
        code = move.code
        name = "sudoku" if move.name == "sirdey" else f"sudoku-{move.name}"
        registry[name] = (
            lambda order, code=code: cuda_sudoku.kernel_function(order, code),
            lambda order, code=code: cuda_sudoku.kernel_signature(order, code),
            cuda_sudoku.orders_for(code),
            lambda order, arch="sm_90", code=code: cuda_sudoku.launch_bounds(order, code, arch),
        )
    for code in (m.code for m in MOVES.values() if m.cooperative):  # one warp a chain
        registry[coop.kernel_name(code)] = (
            lambda order, code=code: coop.kernel_function(order, code),
            lambda order, code=code: coop.kernel_signature(order, code),
            coop.block_orders(code),
            lambda order, arch="sm_90", code=code: coop.launch_bounds(order, code, arch),
        )
    for name, (function, types) in (trials or {}).items():  # the grid puzzles' trial kernels
        registry[name] = (lambda key, function=function: function(), types, ("any",))
    if "sudoku-impasse" in (trials or {}):  # the impasse chains' kernel of one warp a chain
        from gpu_anneal.kernels import impasse_warp

        registry[impasse_warp.NAME] = (
            lambda key: impasse_warp.kernel_function(),
            trials["sudoku-impasse"][1],
            ("any",),
        )
        registry[impasse_warp.SHARED_NAME] = (  # its state rows in shared memory, by order
            impasse_warp.shared_kernel_function,
            trials["sudoku-impasse"][1],
            impasse_warp.shared_orders(),
        )
    return registry


def _signature_of(signature: Callable, key) -> tuple:
    """A registry entry's argument types for a size key (grid puzzles' take no key)."""
    return signature(key) if inspect.signature(signature).parameters else signature()


def kernel_table(
    arch: str = "sm_90",
    kinds: tuple[str, ...] | None = None,
    with_ptx: Callable | None = None,
    trials: Mapping[str, tuple[Callable, Callable]] | None = None,
) -> list[dict]:
    """For every kernel of kernel_registry(trials) (those named in `kinds`, when given) and
    size: whether PTX compiled, and ptxas's figures when it did.

    with_ptx(row, ptx), when given, is called with each compiled record and its PTX text
    (e.g. to read the SASS); it may add fields to the record.
    """
    rows = []
    tool = find_ptxas()
    for name, entry in kernel_registry(trials).items():
        factory, signature, keys = entry[:3]
        bounds = entry[3] if len(entry) > 3 else (lambda key, arch: None)
        if kinds and name not in kinds:
            continue
        for key in keys:
            built_for = bounds(key, arch)
            row = {"kernel": name, "size": key, "arch": arch, "launch_bounds": built_for}
            try:
                ptx = compile_ptx(factory(key), _signature_of(signature, key), arch, built_for)
                row["ptx"] = True
                row["ptx_lines"] = ptx.count("\n")
                report = ptxas_report(ptx, arch, tool) if tool else None
                row.update(report.as_dict() if report else {"ptxas": None})
                if with_ptx is not None:
                    with_ptx(row, ptx)
            except Exception as exc:
                row["ptx"] = False
                row["error"] = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
            rows.append(row)
    return rows
