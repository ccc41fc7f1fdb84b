"""A progress line on stderr (rich) for runs that last longer than a second, on a terminal only.

The line writes to stderr alone and never captures stdout or stderr: results printed while it
shows go where stdout is sent (a file, a pipe). The command's one-line messages, and its results
when stdout is the same terminal, are printed above the line (cli.output through
`messages_above`). It shows what the engine is doing (`compiling` while numba compiles the
first code, then the work: annealing or solving), the puzzles done and solved, and, once the
input's puzzle count is known, that total and an ETA.
"""

from __future__ import annotations

import os
import sys
import threading
from contextlib import contextmanager

from gpu_anneal import phases

DELAY_SECONDS = 1.0  # the line appears only for runs that last longer than this


class RunProgress:
    """Puzzles done and solved, the phase, elapsed time and ETA; appears after `delay` seconds
    (default DELAY_SECONDS), gone at the end. `work` names the solving phase."""

    def __init__(
        self,
        total: int | None = None,
        delay: float | None = None,
        enabled: bool | None = None,
        work: str = "annealing",
    ):
        self.total = total
        self.done = 0
        self.solved = 0
        self.work = work
        self.phase = work
        self._lock = threading.Lock()
        self._progress = None
        self._task = None
        self._closed = False
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        wait = DELAY_SECONDS if delay is None else delay
        self._timer = threading.Timer(wait, self._start) if self.enabled else None
        self._phases = phases.listening(self.set_phase)

    def __enter__(self) -> RunProgress:
        self._phases.__enter__()
        if self._timer is not None:
            self._timer.daemon = True
            self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self._phases.__exit__(None, None, None)
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            self._closed = True
            if self._progress is not None:
                self._progress.stop()
                self._progress = None

    def _start(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        with self._lock:
            if self._closed:
                return
            self._progress = Progress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.fields[counts]}"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self._task = self._progress.add_task(
                self.phase, total=self.total, completed=self.done, counts=self._counts()
            )
            self._progress.start()

    def _counts(self) -> str:
        done = f"{self.done}/{self.total}" if self.total is not None else str(self.done)
        return f"{done} done, {self.solved} solved"

    def _update(self) -> None:
        """Show the current state (the caller holds the lock)."""
        if self._progress is not None:
            self._progress.update(
                self._task,
                description=self.phase,
                total=self.total,
                completed=self.done,
                counts=self._counts(),
            )

    def advance(self, solved: bool) -> None:
        """Count one finished puzzle."""
        with self._lock:
            self.done += 1
            self.solved += bool(solved)
            if self.total is not None and self.done > self.total:
                self.total = self.done  # a count made before reading is only an estimate
            self._update()

    def set_total(self, total: int | None) -> None:
        """The number of puzzles of the input, once known (None: unknown)."""
        with self._lock:
            self.total = None if total is None else max(total, self.done)
            self._update()

    def set_phase(self, phase: str) -> None:
        """What the engine does now (gpu_anneal.phases); `solving` shows as the `work`."""
        with self._lock:
            self.phase = self.work if phase == phases.SOLVING else phase
            self._update()

    def print_above(self, text: str) -> bool:
        """Print text on stderr above the progress line; False when none is showing."""
        with self._lock:
            if self._progress is None:
                return False
            self._progress.console.print(
                text, markup=False, highlight=False, emoji=False, soft_wrap=True
            )
            return True

    def print_above_if_same_terminal(self, text: str) -> bool:
        """Print stdout's text above the progress line when stdout is the terminal the line is
        on (printed beside it, it would be mixed into the line); else False: stdout goes to its
        own file (a file, a pipe, another terminal) untouched."""
        return stdout_is_stderr_terminal() and self.print_above(text)


def stdout_is_stderr_terminal() -> bool:
    """Whether stdout and stderr are the same terminal."""
    try:
        if not (sys.stdout.isatty() and sys.stderr.isatty()):
            return False
        return os.path.samestat(os.fstat(sys.stdout.fileno()), os.fstat(sys.stderr.fileno()))
    except (OSError, ValueError, AttributeError):
        return False


@contextmanager
def messages_above(progress: RunProgress):
    """Within the block, cli.output's messages (stderr) and results (stdout, when it is the same
    terminal) print above the progress line while it shows."""
    from cli import output

    previous = output.stderr_printer, output.stdout_printer
    output.stderr_printer = progress.print_above
    output.stdout_printer = progress.print_above_if_same_terminal
    try:
        yield progress
    finally:
        output.stderr_printer, output.stdout_printer = previous
