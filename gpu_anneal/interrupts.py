"""Ctrl-C that a compilation cannot lose: a SIGINT handler that also remembers the press.

A KeyboardInterrupt raised while numba compiles (type inference runs nested compilations) has
been seen to vanish: a solve interrupted in its first seconds went on annealing. `install()`
(the command line does it) makes Ctrl-C record the press as well as raise KeyboardInterrupt as
Python's default handler does; the pool calls `check()` between rounds, which raises it again if
a press was recorded and not yet answered.
"""

from __future__ import annotations

import signal
import threading

_pressed = threading.Event()


def _on_sigint(signum, frame) -> None:
    _pressed.set()
    raise KeyboardInterrupt


def install() -> None:
    """Make SIGINT remember the press (main thread only: Python's rule for signal handlers)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _on_sigint)


def press() -> None:
    """Record a press without raising (as one that a compilation swallowed)."""
    _pressed.set()


def check() -> None:
    """Raise KeyboardInterrupt once for a recorded press that nothing answered yet."""
    if _pressed.is_set():
        _pressed.clear()
        raise KeyboardInterrupt


def answered() -> None:
    """The press was handled (a KeyboardInterrupt reached its handler): forget it."""
    _pressed.clear()
