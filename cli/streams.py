"""Standard streams that close or fill while the command runs: one line, never a traceback.

`guard()` (cli.main.run, before the command) puts stand-ins in sys.stdin, sys.stdout and
sys.stderr:

    stdout   writes as before, a character its encoding cannot hold as a backslash escape; the
             first write or flush that fails (closed at the start:
             `>&-`; full: `> /dev/full`; a pipe whose reader left: `| head -1`) raises
             StdoutLost, an OutputError (exit code 2) whose message says why; /dev/null then
             takes fd 1, so that what Python still holds for it never fails again
    stderr   writes as before; a failing write (closed, full, a reader gone) is dropped, and so
             is every later one: messages have nowhere to go, the results still do
    stdin    closed at the start (`<&-`): reading it is an OSError that the readers report as
             "<stdin>: cannot read: ..." (one line, exit code 2)

A command that writes results to a file as well (solve --out) catches StdoutLost, stops, and
says how many results that file holds.
"""

from __future__ import annotations

import errno
import io
import os
import sys

from cli import startup
from gpu_anneal.reference import OutputError

_WHY = {
    errno.EPIPE: "its reader has gone (broken pipe)",
    errno.ENOSPC: "no space left on device",
    errno.EBADF: "closed",
}


class StdoutLost(OutputError):
    """stdout takes no more output: closed, full, or a pipe whose reader has gone."""


def why(exc: BaseException) -> str:
    """A failed write in a few words."""
    if isinstance(exc, OSError) and exc.errno in _WHY:
        return _WHY[exc.errno]
    if isinstance(exc, ValueError):  # a write to a file object closed already
        return "closed"
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


def _devnull_on(fd: int) -> None:
    """Put /dev/null on fd (best effort): later writes to it succeed and go nowhere."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    try:
        os.dup2(null, fd)
    except OSError:
        pass
    finally:
        os.close(null)


class GuardedStdout:
    """sys.stdout that turns its first failed write or flush into StdoutLost (see the module
    docstring). `stream` None: stdout was closed when the process started."""

    def __init__(self, stream, fd: int = 1):
        self._stream = stream
        self._fd = fd
        self.lost: str | None = None if stream is not None else "closed"

    def _lose(self, exc: BaseException):
        self.lost = why(exc)
        _devnull_on(self._fd)
        raise StdoutLost(f"stdout: {self.lost}") from None

    def write(self, text: str) -> int:
        """Write text, or raise StdoutLost."""
        if self.lost is not None:
            raise StdoutLost(f"stdout: {self.lost}")
        try:
            return self._stream.write(text)
        except (OSError, ValueError) as exc:
            self._lose(exc)

    def writelines(self, lines) -> None:
        """Write each line, or raise StdoutLost."""
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        """Flush, or raise StdoutLost; nothing once stdout is lost (the loss was raised)."""
        if self.lost is not None:
            return
        try:
            self._stream.flush()
        except (OSError, ValueError) as exc:
            self._lose(exc)

    def isatty(self) -> bool:
        """Whether stdout is a terminal (False once lost)."""
        return self.lost is None and _ask(self._stream, "isatty", False)

    def fileno(self) -> int:
        """The stream's file descriptor; io.UnsupportedOperation when stdout was closed."""
        if self._stream is None:
            raise io.UnsupportedOperation("stdout is closed")
        return self._stream.fileno()

    def __getattr__(self, name):
        if self._stream is None:
            raise AttributeError(name)
        return getattr(self._stream, name)


class GuardedStderr:
    """sys.stderr that drops what it cannot write (see the module docstring)."""

    def __init__(self, stream, fd: int = 2):
        self._stream = stream
        self._fd = fd
        self.lost = stream is None

    def write(self, text: str) -> int:
        """Write text; dropped once stderr failed."""
        if not self.lost:
            try:
                self._stream.write(text)
            except (OSError, ValueError):
                self._drop()
        return len(text)

    def writelines(self, lines) -> None:
        """Write each line (dropped once stderr failed)."""
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        """Flush; dropped once stderr failed."""
        if not self.lost:
            try:
                self._stream.flush()
            except (OSError, ValueError):
                self._drop()

    def _drop(self) -> None:
        self.lost = True
        _devnull_on(self._fd)

    def isatty(self) -> bool:
        """Whether stderr is a terminal (False once it failed)."""
        return not self.lost and _ask(self._stream, "isatty", False)

    def fileno(self) -> int:
        """The stream's file descriptor; io.UnsupportedOperation when stderr was closed."""
        if self._stream is None:
            raise io.UnsupportedOperation("stderr is closed")
        return self._stream.fileno()

    def __getattr__(self, name):
        if self._stream is None:
            raise AttributeError(name)
        return getattr(self._stream, name)


class ClosedStdin(io.RawIOBase):
    """sys.stdin (and its buffer) when the shell closed it: every read is an OSError."""

    name = "<stdin>"

    @property
    def buffer(self) -> ClosedStdin:
        """Itself: readers that take sys.stdin.buffer get the same refusal."""
        return self

    def readable(self) -> bool:
        """True: reading is what is refused, with a message (readinto)."""
        return True

    def isatty(self) -> bool:
        """False: a closed stdin is no terminal."""
        return False

    def fileno(self) -> int:
        """io.UnsupportedOperation: a closed stdin has no descriptor."""
        raise io.UnsupportedOperation("stdin is closed")

    def readinto(self, buffer) -> int:
        """OSError (EBADF) saying that stdin is closed and what to give instead."""
        raise OSError(errno.EBADF, "stdin is closed (<&-); name puzzle files, or send puzzles "
                                   "to stdin")  # fmt: skip

    def peek(self, size: int = 0) -> bytes:
        """readinto's refusal."""
        return self.readinto(bytearray(1))


def _ask(stream, method: str, default):
    try:
        return getattr(stream, method)()
    except (OSError, ValueError, AttributeError):
        return default


def escape_unwritable(stream) -> None:
    """Write what the stream's encoding cannot hold as backslash escapes (a puzzle's name in
    `ë` on an ASCII stdout: PYTHONIOENCODING=ascii, LC_ALL=C), as stderr does: the character
    raised UnicodeEncodeError, a ValueError, which read as stdout closed and stopped the run."""
    try:
        stream.reconfigure(errors="backslashreplace")
    except (AttributeError, ValueError, OSError, io.UnsupportedOperation):
        pass


def guard() -> None:
    """Put the stand-ins in sys.stdin, sys.stdout and sys.stderr (once; see the module
    docstring). A stream is closed when Python has none for it or cli.startup found it closed."""
    startup.fill_closed_streams()  # (done already when cli.startup.begin ran)
    if not isinstance(sys.stdout, GuardedStdout):
        gone = sys.stdout is None or "stdout" in startup.closed
        if not gone:
            escape_unwritable(sys.stdout)
        sys.stdout = GuardedStdout(None if gone else sys.stdout)
    if not isinstance(sys.stderr, GuardedStderr):
        gone = sys.stderr is None or "stderr" in startup.closed
        sys.stderr = GuardedStderr(None if gone else sys.stderr)
    if sys.stdin is None or "stdin" in startup.closed:
        sys.stdin = ClosedStdin()


def finish() -> str | None:
    """Flush stdout and stderr at the end of the command: why stdout failed (its last output
    lost), else None."""
    lost = None
    try:
        sys.stdout.flush()
    except StdoutLost as exc:
        lost = str(exc)
    except (OSError, ValueError, AttributeError):
        pass
    try:
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass
    return lost
