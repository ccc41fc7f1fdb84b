"""Standard input that a run's time budget and Ctrl-C can stop while it waits for a line.

A pipe, FIFO, socket or terminal on stdin blocks a read until its writer sends more; a run
with a time budget (the command line's --total-time: interrupts.until) must not wait past it.
`stdin_stream()` gives, for such a stdin on a POSIX system, one buffered binary stream over
stdin's descriptor whose reads wait for data in steps of interrupts.WAIT_STEP and call
interrupts.check() between them: TimeSpent once the calling thread's deadline has passed, the
KeyboardInterrupt of a held press. Lines already buffered are handed out without a wait.

    descriptor 0 --(select, then os.read)--> _WaitingRaw --> io.BufferedReader --> the readers

Only the command line's file argument "-" (items.FileName) reads through it: nothing has read
stdin before the command does, so no bytes sit in sys.stdin's own buffer. A regular file or
/dev/null on stdin never blocks and is read through sys.stdin's buffer as before, and so is
stdin where select() cannot wait on it (Windows) or where it has no descriptor (replaced by a
test, closed by the shell).
"""

from __future__ import annotations

import io
import os
import select
import stat
import sys

from gpu_anneal import interrupts

_streams: dict[int, io.BufferedReader] = {}  # descriptor -> its one stream (a "-" given twice)


class _WaitingRaw(io.RawIOBase):
    """Raw reads of a descriptor that wait for data in steps, answering the deadline and
    Ctrl-C between steps (interrupts.check). Closing it leaves the descriptor open."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd

    def readable(self) -> bool:
        """True: a stream to read."""
        return True

    def fileno(self) -> int:
        """The descriptor read."""
        return self._fd

    def readinto(self, buffer) -> int:
        """Wait until the descriptor has data (or its end), then read what it has into
        buffer; 0 at the end of the input."""
        while not select.select([self._fd], [], [], interrupts.WAIT_STEP)[0]:
            interrupts.check()
        data = os.read(self._fd, len(buffer))
        buffer[: len(data)] = data
        return len(data)


def waits(fd: int) -> bool:
    """Whether a read of the descriptor may block until a writer sends more, and select() can
    wait on it: a pipe, FIFO, socket or terminal on a POSIX system."""
    if os.name != "posix":
        return False
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or (stat.S_ISCHR(mode) and os.isatty(fd))


def stdin_stream():
    """stdin as the command line's "-" reads it: the waiting stream (module docstring) where
    stdin may block, else "-" (cpu_reference.sources opens sys.stdin's buffer)."""
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):  # no descriptor: a stand-in, closed
        return "-"
    if not waits(fd):
        return "-"
    if fd not in _streams:
        _streams[fd] = io.BufferedReader(_WaitingRaw(fd))
    return _streams[fd]
