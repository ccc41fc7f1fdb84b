"""Ctrl-C that a compilation cannot lose: a SIGINT handler that also remembers the press.

A KeyboardInterrupt raised while numba compiles (type inference runs nested compilations) has
been seen to vanish: a solve interrupted in its first seconds went on annealing. `install()`
(the command line does it) makes Ctrl-C record the press as well as raise KeyboardInterrupt as
Python's default handler does; the pool calls `check()` between rounds, which raises it again if
a press was recorded and not yet answered. `ever_pressed()` tells the command line that the
user pressed Ctrl-C at all (its exit code is then 130), and `ignore()` makes the presses that
come while the process ends (after every result is written) change nothing.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterable, Iterator

# Plain flags, not threading.Event: the handler runs between any two calls of the main thread,
# and an Event's lock taken by that thread (a second press while the handler of the first, or
# answered(), holds it) would never be released.
_pressed = False  # a press not answered yet
_ever = False  # a press in this process


def _on_sigint(signum, frame) -> None:
    global _pressed, _ever
    _ever = _pressed = True
    raise KeyboardInterrupt


def install() -> None:
    """Make SIGINT remember the press (main thread only: Python's rule for signal handlers)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _on_sigint)


def press() -> None:
    """Record a press without raising (as one that a compilation swallowed)."""
    global _pressed
    _pressed = True


def check() -> None:
    """Raise KeyboardInterrupt once for a recorded press that nothing answered yet."""
    global _pressed
    if _pressed:
        _pressed = False
        raise KeyboardInterrupt


def answered() -> None:
    """The press was handled (a KeyboardInterrupt reached its handler): forget it."""
    global _pressed
    _pressed = False


def ever_pressed() -> bool:
    """True once the installed handler saw a press in this process (answered or not)."""
    return _ever


def ignore() -> None:
    """Ignore SIGINT from now on (main thread only), through the interpreter's exit too: Python
    puts back the default action, which kills the process, only in place of a handler of its
    own."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def reported_once(items: Iterable, solve: Callable, unreported: Callable) -> Iterator:
    """solve(items) with every item it reads reported once, whatever a Ctrl-C interrupts.

    Yields solve's results, matched to items by their `index` (a result for an item reported
    already is dropped). On Ctrl-C (a KeyboardInterrupt out of solve, or at a yield of this
    generator) yields unreported(item) for each item read and not reported yet, in reading
    order, then raises KeyboardInterrupt.
    """
    read: dict = {}

    def tracked():
        for item in items:
            read[item.index] = item
            yield item

    try:
        for result in solve(tracked()):
            if result.index not in read:
                continue
            try:
                yield result
            finally:  # the consumer has it: a Ctrl-C at the yield comes after
                if result.index in read:
                    del read[result.index]
    except KeyboardInterrupt:
        while read:
            index = next(iter(read))
            result = unreported(read[index])
            try:
                yield result
            finally:
                if index in read:
                    del read[index]
        raise KeyboardInterrupt from None
