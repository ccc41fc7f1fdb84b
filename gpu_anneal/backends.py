"""Where chains can run: the CUDA card when one is usable, else every CPU core.

resolve_backend is the device rule: `"auto"` resolves to CUDA when a usable device exists; `"cuda"`
without a device is an error, never a silent fallback. The solvers (gpu_anneal.api) choose by
speed instead: gpu_anneal.backend_choice takes, under `"auto"`, the backend that will finish the
workload first. An optional part that is not installed (numba-cuda,
Dask) is a MissingExtra naming the extra and the pip command that installs it.
"""

from __future__ import annotations

import ctypes
import os
import sys

import numba

from cpu_reference.errors import InputError

BACKENDS = ("auto", "cpu", "cuda")


class BackendError(RuntimeError):
    """The requested backend cannot run here (no CUDA device, no numba-cuda...)."""


class MissingExtra(BackendError, ImportError):
    """An optional part of the package is not installed; the message names the extra and the
    pip command that installs it. Also an ImportError, as a failed import is."""


def install_hint(extra: str) -> str:
    """The pip command that installs an extra, quoted for every shell."""
    return f'pip install "gpu-anneal[{extra}]"'


def missing_extra(what: str, extra: str, exc: BaseException | None = None) -> MissingExtra:
    """A MissingExtra: `what` needs the extra, the command, and the import's fault if given."""
    cause = f" ({type(exc).__name__}: {exc})" if exc is not None else ""
    return MissingExtra(f"{what} needs the {extra} extra: {install_hint(extra)}{cause}")


DRIVER_LIBRARIES = ("libcuda.so.1", "libcuda.so")  # the CUDA driver on Linux
NUMBA_CUDA = "NVIDIA"  # numba.cuda.implementation of numba-cuda (numba's own target: "Built-in")


def driver_library_found() -> bool:
    """Whether the CUDA driver library loads (Linux, no NUMBA_CUDA_DRIVER override); elsewhere
    True, and numba-cuda decides. A milliseconds check that spares importing numba.cuda
    (about half a second) on machines with no driver at all."""
    if not sys.platform.startswith("linux") or os.environ.get("NUMBA_CUDA_DRIVER"):
        return True
    for name in DRIVER_LIBRARIES:
        try:
            ctypes.CDLL(name)
            return True
        except OSError:
            continue
    return False


def cuda_status() -> tuple[bool, str]:
    """(usable, reason): whether numba-cuda is importable and sees a device, and why not."""
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return True, "CUDA simulator (NUMBA_ENABLE_CUDASIM=1): kernels run as Python, slowly"
    if not driver_library_found():
        return False, "no CUDA driver found (libcuda.so.1 does not load)"
    try:  # late: the optional numba-cuda, ~0.19 s of a CPU run's start
        from numba import cuda
    except ImportError as exc:  # neither numba-cuda nor numba's own CUDA target
        return False, f"numba-cuda is not installed: {install_hint('cuda')} ({exc})"
    except Exception as exc:  # numba-cuda there, its CUDA libraries not found
        return False, f"numba-cuda not importable ({type(exc).__name__}: {exc})"
    if getattr(cuda, "implementation", None) != NUMBA_CUDA:  # numba's deprecated built-in one
        return False, f"numba-cuda is not installed: {install_hint('cuda')}"
    try:
        if not cuda.is_available():
            return False, "no CUDA device or driver found"
        device = cuda.get_current_device()
        name = device.name.decode() if isinstance(device.name, bytes) else str(device.name)
        return True, f"{name}, compute capability {device.compute_capability}"
    except Exception as exc:
        return False, f"CUDA device unusable ({type(exc).__name__}: {exc})"


def check_backend_name(backend: str, flags: bool = False) -> None:
    """InputError unless backend is one of BACKENDS, naming it as the API does (backend 'x') or,
    with `flags`, as the command line does (--backend x); no device is looked for."""
    if backend not in BACKENDS:
        asked = f"--backend {backend}" if flags else f"backend {backend!r}"
        raise InputError(f"{asked}: expected one of {', '.join(BACKENDS)}")


def resolve_backend(backend: str, flags: bool = False) -> str:
    """'cpu' or 'cuda' for a requested backend name ("auto": CUDA when a device is usable);
    BackendError if CUDA is asked but missing, naming the parameter as the API does (backend
    'cuda') or, with `flags`, as the command line does (--backend cuda)."""
    check_backend_name(backend, flags)
    if backend == "cpu":
        return "cpu"
    usable, reason = cuda_status()
    if backend == "cuda" and not usable:
        if flags:
            raise BackendError(f"--backend cuda: {reason}; use --backend cpu or auto")
        raise BackendError(f"backend 'cuda': {reason}; use backend 'cpu' or 'auto'")
    return "cuda" if usable else "cpu"


def cpu_threads() -> int:
    """Threads numba's parallel loops use here, in the calling thread: numba.set_num_threads's
    count (the API's threads=, the command line's --threads), else NUMBA_NUM_THREADS (one per
    core unless set)."""
    return int(numba.get_num_threads())
