"""Where gpu-anneal keeps what it writes for itself: generated rules and numba's compiled code.

One root for both, in the user's cache folder and never inside the installed package:

    GPU_ANNEAL_CACHE_DIR             if set
    $XDG_CACHE_HOME/gpu-anneal       else
    ~/.cache/gpu-anneal              else

    ROOT/rules    generated Sudoku rule modules (cpu_reference.sudoku.rules)
    ROOT/numba    numba's on-disk cache of every @njit(cache=True) and cuda.jit(cache=True)
                  function, unless NUMBA_CACHE_DIR is set (the user's choice wins)

Compiled code written next to the sources (numba's default, `__pycache__` beside each module)
would land in site-packages after `pip install .`; an uninstall leaves those files behind, and the
folder that holds them shadows a later editable install of the same packages.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT_VARIABLE = "GPU_ANNEAL_CACHE_DIR"
NUMBA_VARIABLE = "NUMBA_CACHE_DIR"
# numba's configuration and numba-cuda's (imported as numba.cuda, or under its own name)
CONFIG_MODULES = (
    "numba.core.config",
    "numba.cuda.core.config",
    "numba_cuda.numba.cuda.core.config",
)


def cache_root() -> Path:
    """The cache root: GPU_ANNEAL_CACHE_DIR, else $XDG_CACHE_HOME/gpu-anneal, else
    ~/.cache/gpu-anneal (an empty variable counts as unset). Nothing is created."""
    base = os.environ.get(ROOT_VARIABLE)
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(xdg) / "gpu-anneal"


def writable_folder(name: str) -> Path:
    """cache_root() / name, created; a private temporary folder when it cannot be written
    (what is kept there then lasts as long as the temporary folder)."""
    path = cache_root() / name
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".probe-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError:
        path = Path(tempfile.mkdtemp(prefix=f"gpu-anneal-{name}-"))
    return path


def use_for_numba() -> None:
    """Point numba's on-disk cache at cache_root() / "numba", unless NUMBA_CACHE_DIR is set.

    Must run before any cached function is decorated (this package's __init__ calls it). Sets
    NUMBA_CACHE_DIR in os.environ, so processes started from this one (Dask workers) use the
    same folder, and numba's own configuration when numba (or numba-cuda) is already imported.
    """
    if os.environ.get(NUMBA_VARIABLE):
        return
    numba_config = sys.modules.get("numba.core.config")
    if numba_config is not None and getattr(numba_config, "CACHE_DIR", ""):
        return  # set in code before this package was imported: left as it is
    folder = str(writable_folder("numba"))
    os.environ[NUMBA_VARIABLE] = folder
    for name in CONFIG_MODULES:
        config = sys.modules.get(name)
        if config is not None:
            config.CACHE_DIR = folder
