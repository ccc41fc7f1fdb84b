"""Choosing where chains run: the CUDA card when one is usable, else every CPU core.

`backend="auto"` picks CUDA when a usable device exists and says which it took; `"cuda"` without a
device is an error, never a silent fallback.
"""

from __future__ import annotations

import ctypes
import os
import sys

from cpu_reference.errors import InputError

BACKENDS = ("auto", "cpu", "cuda")


class BackendError(RuntimeError):
    """The requested backend cannot run here (no CUDA device, no numba-cuda...)."""


DRIVER_LIBRARIES = ("libcuda.so.1", "libcuda.so")  # the CUDA driver on Linux


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
    try:
        from numba import cuda
    except Exception as exc:  # numba-cuda missing or its CUDA libraries not found
        return False, f"numba-cuda not importable ({type(exc).__name__}: {exc})"
    try:
        if not cuda.is_available():
            return False, "no CUDA device or driver found"
        device = cuda.get_current_device()
        name = device.name.decode() if isinstance(device.name, bytes) else str(device.name)
        return True, f"{name}, compute capability {device.compute_capability}"
    except Exception as exc:
        return False, f"CUDA device unusable ({type(exc).__name__}: {exc})"


def resolve_backend(backend: str) -> str:
    """'cpu' or 'cuda' for a requested backend name; BackendError if CUDA is asked but missing."""
    if backend not in BACKENDS:
        raise InputError(f"backend {backend!r}: expected one of {', '.join(BACKENDS)}")
    if backend == "cpu":
        return "cpu"
    usable, reason = cuda_status()
    if backend == "cuda" and not usable:
        raise BackendError(f"--backend cuda: {reason}; use --backend cpu or auto")
    return "cuda" if usable else "cpu"


def cpu_threads() -> int:
    """Threads numba's parallel loops use here."""
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)
