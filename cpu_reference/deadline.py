"""Calls that end by their deadline: the work runs in a forked child, killed once its time is
spent.

HiGHS reads its clock only between the steps of its presolve and search, and one step of a
large program can take seconds; scipy's handing of the program over and back adds more. So
`milp_within` gives a program of more than FORK_COLUMNS columns to a child process (os.fork:
nothing is imported again, the program is not copied) and kills the child at the deadline.
A smaller program, or one where fork is not used (any system but Linux: macOS's system
libraries are not safe in a forked child, Windows has no fork) or fails (no memory for a
child), is solved in this process as before. Before forking, the C library's free memory is given
back to the system (glibc's malloc_trim): the child's allocations would otherwise reuse pages
shared with the parent, each first write a copy, and a large program's solve took about three
times as long.

    parent                               child (os.fork)
      | fork ------------------------------> | SIGINT ignored (the parent answers Ctrl-C)
      | select(pipe, time left)              | value = work()
      | <------ pickle(("value", value)) --- | or pickle(("raised", exception))
      | EOF: unpickle, reap                  | os._exit (no atexit, no flush of copied buffers)
      | deadline first: SIGKILL, reap, None  |
"""

from __future__ import annotations

import math
import os
import pickle
import select
import signal
import sys
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

FORK_COLUMNS = 10_000  # a program with more columns runs in a child: its steps may take seconds
READ_BYTES = 1 << 20  # bytes read from the child's pipe at a time
TIME_LIMIT_STATUS = 1  # scipy.optimize.milp's status for "time limit reached"


class ChildLost(MemoryError):
    """The child process ended without an answer: killed by a signal, most often the kernel's
    out-of-memory killer (a MemoryError: the machine's limit, as an allocation failing here)."""


def call_within(seconds: float, work: Callable[[], T]) -> tuple[bool, T | None]:
    """(True, work()) where a forked child finished `work` within `seconds`, else (False,
    None) with the child killed and reaped. An exception `work` raised in the child is raised
    here; ChildLost where the child ended without an answer. Where fork is not used (not
    Linux) or fails, work() runs in this process and (True, its value) is returned, whatever
    it took."""
    fork = getattr(os, "fork", None)
    if fork is None or not sys.platform.startswith("linux"):
        return True, work()
    deadline = time.perf_counter() + seconds
    _release_free_memory()
    read_end, write_end = os.pipe()
    try:
        pid = fork()
    except OSError:  # no memory for a child (strict overcommit), no processes left
        os.close(read_end)
        os.close(write_end)
        return True, work()
    if pid == 0:  # the child: never returns
        os.close(read_end)
        _answer(write_end, work)
    os.close(write_end)
    return _collect(pid, read_end, deadline)


def _release_free_memory() -> None:
    """Give the C library's free heap memory back to the system (glibc's malloc_trim; nothing
    where the C library has none), so that a child's allocations take fresh pages."""
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError):
        return
    trim(0)


def _answer(write_end: int, work: Callable[[], object]) -> None:
    """The child's whole life: run work, write its value (or the exception it raised) pickled
    to `write_end`, and leave by os._exit, running nothing of the parent's at exit."""
    code = 1
    try:
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
        except ValueError:  # not the interpreter's main thread: the parent kills it anyway
            pass
        try:
            message = ("value", work())
        except Exception as exc:  # raised again in the parent
            message = ("raised", exc)
        try:
            data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # an unpicklable value or exception: its words
            data = pickle.dumps(("raised", RuntimeError(f"{type(exc).__name__}: {exc}")))
        view = memoryview(data)
        while view:
            view = view[os.write(write_end, view) :]
        code = 0
    finally:
        os._exit(code)


def _collect(pid: int, read_end: int, deadline: float) -> tuple[bool, object]:
    """Read the child's pickled answer until its end or the deadline; kill the child at the
    deadline (and on any exception here, Ctrl-C included); reap it either way."""
    chunks: list[bytes] = []
    ended = False
    try:
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                break
            wait = left if math.isfinite(left) else None
            ready, _, _ = select.select([read_end], [], [], wait)
            if ready:
                chunk = os.read(read_end, READ_BYTES)
                if not chunk:
                    ended = True
                    break
                chunks.append(chunk)
    finally:
        os.close(read_end)
        if not ended:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    if not ended:
        return False, None
    if not chunks:
        raise ChildLost(f"a child process solving it ended {_how(status)} without an answer")
    kind, value = pickle.loads(b"".join(chunks))
    if kind == "raised":
        raise value
    return True, value


def _how(status: int) -> str:
    """How a child ended, from its wait status: "by SIGKILL (the memory's limit?)", "by
    SIGSEGV", "with exit code 1"."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return f"by {name}" + (" (the memory's limit?)" if number == signal.SIGKILL else "")
    return f"with exit code {os.WEXITSTATUS(status)}"


def milp_within(seconds: float, **problem):
    """scipy.optimize.milp(**problem) with HiGHS's time limit `seconds`, ending by then: a
    program of more than FORK_COLUMNS columns (len(problem["c"])) is solved in a forked child,
    killed at the deadline, when it returns an OptimizeResult of status TIME_LIMIT_STATUS and no
    x. A smaller one, or any with no limit (math.inf), is solved here (HiGHS's own limit
    holds a small program closely)."""
    from scipy.optimize import OptimizeResult, milp

    def solve():
        return milp(**problem, options={"time_limit": float(seconds)})

    if len(problem["c"]) <= FORK_COLUMNS or not math.isfinite(seconds):
        return solve()
    finished, result = call_within(seconds, solve)
    if finished:
        return result
    return OptimizeResult(status=TIME_LIMIT_STATUS, x=None, success=False,
                          message="killed at the time limit")  # fmt: skip
