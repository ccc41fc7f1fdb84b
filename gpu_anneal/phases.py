"""What the engine is doing now, for a progress display: the solvers announce, listeners hear.

Phases:
    compiling   numba compiles (or loads from its disk cache) the code a solver needs: the
                warm-up of gpu_anneal.solvers, the first time a solver runs in a process
    solving     the warm-up is over; puzzles are being solved
    making grids, emptying
                gpu_anneal.generation's two steps of minimal puzzles: full grids, then
                emptying them

Listeners are called in the announcing thread and must return quickly; they never change what
is solved.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

COMPILING = "compiling"
SOLVING = "solving"
MAKING_GRIDS = "making grids"
EMPTYING = "emptying"

_listeners: list[Callable[[str], None]] = []
_lock = threading.Lock()


def announce(phase: str) -> None:
    """Tell every listener that `phase` begins."""
    with _lock:
        listeners = list(_listeners)
    for listener in listeners:
        listener(phase)


@contextmanager
def listening(listener: Callable[[str], None]) -> Iterator[None]:
    """Call `listener(phase)` for every phase announced inside the block."""
    with _lock:
        _listeners.append(listener)
    try:
        yield
    finally:
        with _lock:
            _listeners.remove(listener)


@contextmanager
def compiling() -> Iterator[None]:
    """Announce `compiling` for the block, then `solving` (also when the block raises)."""
    announce(COMPILING)
    try:
        yield
    finally:
        announce(SOLVING)
