"""Ctrl-C that a compilation cannot lose: a SIGINT handler that also remembers the press.

A KeyboardInterrupt raised while numba compiles (type inference runs nested compilations) has
been seen to vanish: a solve interrupted in its first seconds went on annealing; and one that
cuts llvmlite's objects short leaves them half built. `install()` (the command line does it)
makes Ctrl-C record the press as well as raise KeyboardInterrupt as Python's default handler
does, except while the main thread is inside the compiler's code (numba's but for numba.cuda's
driver and simulator, llvmlite's: a compilation, a cache load): a first press there is held,
with one line on stderr, and raised in the main thread once it has left that code (a watcher
thread looks every WAIT_STEP), unless a `check()` answered it first; a second press while one
is held raises at once. The pool calls `check()` between rounds, which raises it again if a
press was recorded and not yet answered. `ever_pressed()` tells the command line that the user
pressed Ctrl-C at all (its exit code is then 130), and `ignore()` makes the presses that come
while the process ends (after every result is written) change nothing. SIGTERM (a batch
system's stop, `kill`) and SIGXCPU (the soft CPU-time limit) are answered as a press, and
`terminated()` tells the command line which (its exit code is then 128 + the signal's number).

A time budget for a whole run (the API's total_time, the command line's --total-time) stops it
the way Ctrl-C does, without a press: `until(deadline)` gives the calling thread a deadline
(time.perf_counter() seconds), and `check()` raises TimeSpent, a KeyboardInterrupt, once it has
passed, so every solver reports what it holds as it does on Ctrl-C. `stop_reason()` is the
`error` such a result carries: "interrupted", or TIME_SPENT when this thread's budget ran out.

A compiled search cannot be interrupted while it runs: `stoppable(work)` runs it on a worker
thread with a stop flag, and the calling thread answers Ctrl-C and its deadline meanwhile.
"""

from __future__ import annotations

import _thread
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TypeVar

# Plain flags, not threading.Event: the handler runs between any two calls of the main thread,
# and an Event's lock taken by that thread (a second press while the handler of the first, or
# answered(), holds it) would never be released.
_pressed = False  # a press not answered yet
_ever = False  # a press in this process
_terminated: str | None = None  # the stop signal's name (SIGTERM, SIGXCPU) answered as a press
# signals that stop a run as SIGTERM does: a batch system's stop, the CPU-time limit's warning
# (`ulimit -S -t`: SIGXCPU, then SIGKILL at the hard limit)
STOP_SIGNALS = ("SIGTERM", "SIGXCPU")
_budget = threading.local()  # per thread: deadline (perf_counter seconds or None), spent (bool)

INTERRUPTED = "interrupted"
WAIT_STEP = 0.05  # seconds between two looks at Ctrl-C and the deadline while a search runs
TIME_SPENT = "interrupted: the run's total time is spent"


T = TypeVar("T")


class TimeSpent(KeyboardInterrupt):
    """The calling thread's deadline (until) has passed: the run stops as on Ctrl-C."""


def _on_sigint(signum, frame) -> None:
    global _pressed, _ever
    held = _pressed  # a press already held (or swallowed) and not answered: raise now
    _ever = _pressed = True
    if not held and _compiling(frame):
        _say_held(signal.Signals(signum).name)
        threading.Thread(target=_raise_after_compiling, name="gpu-anneal-held-press",
                         daemon=True).start()  # fmt: skip
        return
    raise KeyboardInterrupt


def _raise_after_compiling() -> None:
    """A held press's watcher: once the main thread has left numba's and llvmlite's code, and
    nothing answered the press meanwhile (check), the press is raised there (as a second
    press is: interrupt_main runs the handler, which finds it held)."""
    main = threading.main_thread().ident
    while _pressed:
        frame = sys._current_frames().get(main)
        if frame is None:
            return
        if not _compiling(frame):
            if _pressed:
                _thread.interrupt_main(signal.SIGINT)
            return
        time.sleep(WAIT_STEP)


def _compiling(frame) -> bool:
    """Whether the interrupted frame or a caller runs the compiler's code: numba's (but for
    numba.cuda's driver, waiting on a card, and its simulator, running a simulated kernel's
    Python) or llvmlite's, as the loaded packages place them."""
    places, elsewhere = _compiler_places()
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith(places) and not name.startswith(elsewhere):
            return True
        frame = frame.f_back
    return False


def _compiler_places() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the folders of the compiler's code, those within them that are not the compiler's),
    each ending with a separator, from the packages loaded (none loaded: nothing compiles)."""
    places, elsewhere = [], []
    for name in ("numba", "llvmlite", "numba.cuda"):
        module = sys.modules.get(name)
        where = getattr(module, "__file__", None)
        if not where:
            continue
        folder = os.path.dirname(os.path.abspath(where)) + os.sep
        places.append(folder)
        if name == "numba.cuda":
            elsewhere += [folder + "cudadrv" + os.sep, folder + "simulator" + os.sep]
    return tuple(places), tuple(elsewhere)


def _say_held(name: str) -> None:
    """One line on stderr for a press held while numba compiles."""
    again = "; Ctrl-C again stops at once" if name == "SIGINT" else ""
    what = "Ctrl-C" if name == "SIGINT" else name
    try:
        sys.stderr.write(
            f"gpu-anneal: {what}: stopping once the compilation in progress ends{again}\n"
        )
        sys.stderr.flush()
    except Exception:  # noqa: BLE001 - stderr closed or busy: the press is held all the same
        pass


def _on_sigterm(signum, frame) -> None:
    global _terminated
    _terminated = signal.Signals(signum).name
    _on_sigint(signum, frame)


def install() -> None:
    """Make SIGINT remember the press (main thread only: Python's rule for signal handlers),
    held while numba or llvmlite runs (module docstring), and keep quiet about what a second
    press that lands while numba compiles leaves behind: Python
    prints as an exception it ignored the KeyboardInterrupt raised in a callback from compiled
    code (llvmlite's object cache), or the finalizer's error of an llvmlite object the press cut
    short; the press, already remembered, is answered by `check()`. A process started with
    SIGINT ignored (a shell's background job, nohup) keeps it ignored, as Python itself does.
    SIGTERM and SIGXCPU (STOP_SIGNALS), where they have their default action, are answered
    as a press too."""
    if threading.current_thread() is not threading.main_thread():
        return
    for name in STOP_SIGNALS:
        number = getattr(signal, name, None)  # SIGXCPU: POSIX only
        if number is not None and signal.getsignal(number) is signal.SIG_DFL:
            signal.signal(number, _on_sigterm)
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, _on_sigint)
        if not isinstance(sys.unraisablehook, _QuietPresses):
            sys.unraisablehook = _QuietPresses(sys.unraisablehook)


class _QuietPresses:
    """sys.unraisablehook that, once Ctrl-C was pressed, drops what the press leaves behind: the
    KeyboardInterrupt itself, and an exception raised in llvmlite (the finalizer of an object
    whose construction the press cut short); everything else is passed on."""

    def __init__(self, previous) -> None:
        self.previous = previous

    def __call__(self, unraisable) -> None:
        if _ever and (
            isinstance(unraisable.exc_value, KeyboardInterrupt)
            or _in_llvmlite(unraisable.exc_traceback)
        ):
            return
        self.previous(unraisable)


def _in_llvmlite(traceback) -> bool:
    """Whether a traceback passes through llvmlite's code."""
    part = f"{os.sep}llvmlite{os.sep}"
    while traceback is not None:
        if part in traceback.tb_frame.f_code.co_filename:
            return True
        traceback = traceback.tb_next
    return False


def press() -> None:
    """Record a press without raising (as one that a compilation swallowed)."""
    global _pressed
    _pressed = True


def check() -> None:
    """Raise KeyboardInterrupt once for a recorded press that nothing answered yet, or
    TimeSpent once the calling thread's deadline has passed (`until`)."""
    global _pressed
    if _pressed:
        _pressed = False
        raise KeyboardInterrupt
    left = time_left()
    if left is not None and left <= 0:
        spend()
        raise TimeSpent


def launch_threads() -> None:
    """Launch numba's threads now: stoppable's worker sets its thread count, which launches
    them the first time in a process. A search's warm-up calls this so that no search's time
    holds the launch."""
    import numba

    numba.set_num_threads(numba.get_num_threads())


def stoppable(
    work: Callable[[object], T],
    quick: bool = False,
    seconds: float | None = None,
    flag=None,
) -> T:
    """work(stop) on a worker thread while the calling thread waits and answers Ctrl-C and its
    deadline (`check`) every WAIT_STEP seconds: on either, stop (uint8[1], or the array `flag`
    given) is set to 1, work is waited for, and the interrupt is raised. work must release the
    GIL (compiled with nogil) and end soon after stop is set, as the exact searches, the grid
    batches and the grid puzzles' trials do; its own exception is raised in the caller. The
    worker runs numba's parallel code on the caller's thread count (numba keeps one a thread:
    --threads). `seconds`: once they pass, stop is set and work's own result (what it holds
    when stopped) is returned. `quick`: work ends within seconds anyway (a 9x9 search), and runs
    on the calling thread, sparing a thread's start, with a stop flag nothing sets."""
    import numba
    import numpy as np

    stop = np.zeros(1, np.uint8) if flag is None else flag
    if quick:
        return work(stop)
    outcome: dict = {}
    threads = numba.get_num_threads()

    def run() -> None:
        try:
            numba.set_num_threads(threads)
            outcome["value"] = work(stop)
        except BaseException as error:  # handed to the caller
            outcome["error"] = error

    worker = threading.Thread(target=run, name="gpu-anneal-search", daemon=True)
    worker.start()
    ends = None if seconds is None else time.perf_counter() + seconds
    try:
        while worker.is_alive():
            left = None if ends is None or stop[0] else ends - time.perf_counter()
            wait = WAIT_STEP if left is None else min(WAIT_STEP, max(left, 0))
            worker.join(wait)
            check()
            if ends is not None and time.perf_counter() >= ends:
                stop[0] = 1
    except KeyboardInterrupt:
        stop[0] = 1
        worker.join()
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


@contextmanager
def until(deadline: float | None):
    """Within the block the calling thread's deadline is `deadline` (a time.perf_counter()
    value; None: none), unless its budget is spent already (then none: what is reported after
    the stop runs to its end); the one before is put back after."""
    before = getattr(_budget, "deadline", None)
    _budget.deadline = None if spent() else deadline
    try:
        yield
    finally:
        _budget.deadline = before


def time_left() -> float | None:
    """Seconds until the calling thread's deadline (negative once past), None without one."""
    deadline = getattr(_budget, "deadline", None)
    return None if deadline is None else deadline - time.perf_counter()


def spend() -> None:
    """Mark the calling thread's budget spent: its deadline is dropped, stop_reason() says
    TIME_SPENT until reset_budget()."""
    _budget.spent = True
    _budget.deadline = None


def spent() -> bool:
    """Whether the calling thread's budget ran out (since reset_budget)."""
    return getattr(_budget, "spent", False)


def reset_budget() -> None:
    """A new run in the calling thread: its budget is not spent."""
    _budget.spent = False


def stop_reason() -> str:
    """The `error` of a result stopped before its end: TIME_SPENT when the calling thread's
    budget ran out, else INTERRUPTED (Ctrl-C)."""
    return TIME_SPENT if spent() else INTERRUPTED


def answered() -> None:
    """The press was handled (a KeyboardInterrupt reached its handler): forget it."""
    global _pressed
    _pressed = False


def ever_pressed() -> bool:
    """True once the installed handler saw a press in this process (answered or not)."""
    return _ever


def terminated() -> str | None:
    """The name of the stop signal (STOP_SIGNALS: SIGTERM, SIGXCPU) that reached the installed
    handler in this process, None if none did."""
    return _terminated


def ignore() -> None:
    """Ignore SIGINT from now on (main thread only), through the interpreter's exit too: Python
    puts back the default action, which kills the process, only in place of a handler of its
    own. The stop signals answered as a press (STOP_SIGNALS) are ignored too."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        for name in STOP_SIGNALS:
            number = getattr(signal, name, None)
            if number is not None and signal.getsignal(number) is _on_sigterm:
                signal.signal(number, signal.SIG_IGN)


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
