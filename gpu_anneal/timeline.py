"""The start-up timeline of this process: when each first step of a run was reached, in seconds
since the process started (`gpu-anneal solve --verbose` prints it on stderr).

Steps, in the order a run meets them (a step that does not happen on a path is absent: the CPU
has no context, a run of no puzzle no launch):
    imports        the command's modules are imported and it starts its work
    input          the first puzzle is read
    context        the CUDA context exists (made while the input is read)
    module loads   every kernel of the pool is loaded (compiled, or taken from the disk cache)
                   and has run once; on the CPU `compile`, numba's functions likewise
    first launch   the first slice (or the persistent kernel) is started with puzzles in it
    first result   the first result is handed out
    exit           the command is done

Each step keeps the first time it is marked; `reset()` forgets them (a test, a second run in
one process). The zero is the process's start as the system records it (Linux: /proc), else
the moment this module was imported.
"""

from __future__ import annotations

import os
import threading
import time

STEPS = ("imports", "input", "context", "module loads", "compile", "first launch",
         "first result", "exit")  # fmt: skip

_lock = threading.Lock()
_marks: dict[str, float] = {}


def _process_age() -> float:
    """Seconds since this process started (Linux: /proc), else 0."""
    try:
        with open("/proc/self/stat") as f:
            fields = f.read().rpartition(")")[2].split()
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22: starttime, in ticks
        return max(0.0, uptime - started)
    except (OSError, ValueError, IndexError):
        return 0.0


ZERO = time.perf_counter() - _process_age()  # perf_counter at the process's start


def mark(step: str) -> None:
    """Record that `step` (one of STEPS) is reached now, unless it was already."""
    if step not in STEPS:
        raise ValueError(f"timeline step {step!r}: expected one of {', '.join(STEPS)}")
    now = time.perf_counter() - ZERO
    with _lock:
        _marks.setdefault(step, now)


def events() -> list[tuple[str, float]]:
    """(step, seconds since the process started) of every step marked, earliest first."""
    with _lock:
        return sorted(_marks.items(), key=lambda item: item[1])


def reset() -> None:
    """Forget every mark."""
    with _lock:
        _marks.clear()


def text() -> str:
    """The timeline as lines: each step, its second since the start and since the step
    before."""
    lines = ["start-up timeline (seconds since the process started):"]
    before = 0.0
    for step, at in events():
        lines.append(f"  {step:<13} {at:8.3f}  (+{at - before:.3f})")
        before = at
    return "\n".join(lines)


def as_dict() -> dict[str, float]:
    """{step: seconds since the start}, rounded to the millisecond, earliest first."""
    return {step: round(at, 3) for step, at in events()}
