"""A progress line on stderr for work that lasts longer than a second: done/total and an ETA.

On a terminal (the default there; `--no-progress` turns it off) it is one line redrawn in place
(rich); on one that cannot redraw a line (TERM=dumb) it is plain lines, one every PLAIN_SECONDS
while the work goes on. Where stderr is no terminal (a file, a pipe) it shows only when asked
(`--progress`): then as plain lines too. The line writes to stderr
alone and never captures stdout or stderr: results printed while it shows go where stdout is
sent (a file, a pipe). The command's one-line messages, and its results when stdout is the same
terminal, are printed above the line (cli.output through `messages_above`). It shows what the
engine is doing (`compiling` while numba compiles the first code, then the work: annealing,
solving, emptying...), what is done (puzzles done and solved; or a count of `noun`: grids,
kernels...), and, once the total is known, that total and an ETA.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import contextmanager

from gpu_anneal import phases

DELAY_SECONDS = 1.0  # the line appears only for runs that last longer than this
PLAIN_SECONDS = 5.0  # where stderr is no terminal: one plain line this often


def stderr_is_terminal() -> bool:
    """Whether stderr is a terminal (False when it is closed or replaced)."""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError, OSError):
        return False


class RunProgress:
    """Done (and solved), the phase, elapsed time and ETA; appears after `delay` seconds
    (default DELAY_SECONDS), gone at the end. `work` names the working phase; `noun` what is
    counted (None: puzzles, done and solved). `enabled`: None shows it on a terminal only, True
    also where stderr is no terminal (plain lines), False never."""

    def __init__(
        self,
        total: int | None = None,
        delay: float | None = None,
        enabled: bool | None = None,
        work: str = "annealing",
        noun: str | None = None,
    ):
        self.total = total
        self.done = 0
        self.solved = 0
        self.work = work
        self.noun = noun
        self.phase = work
        self._lock = threading.Lock()
        self._progress = None
        self._task = None
        self._closed = False
        self._stop = threading.Event()
        self._start_time = time.perf_counter()
        self._done_before = 0  # counted in without being worked on here (--resume)
        terminal = stderr_is_terminal()
        self.enabled = terminal if enabled is None else bool(enabled)
        # a terminal that cannot redraw a line (TERM=dumb: rich draws nothing there) gets the
        # plain lines
        self.plain = self.enabled and not (terminal and os.environ.get("TERM") != "dumb")
        wait = DELAY_SECONDS if delay is None else delay
        target = self._plain_lines if self.plain else self._start
        self._timer = threading.Timer(wait, target) if self.enabled else None
        self._phases = phases.listening(self.set_phase)

    def __enter__(self) -> RunProgress:
        self._phases.__enter__()
        if self._timer is not None:
            self._timer.daemon = True
            self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self._phases.__exit__(None, None, None)
        self._stop.set()
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

    def _plain_lines(self) -> None:
        """Where stderr is no terminal: a line now and every PLAIN_SECONDS until the end."""
        while True:
            with self._lock:
                if self._closed:
                    return
                line = self.plain_line()
            print(f"gpu-anneal: {line}", file=sys.stderr, flush=True)
            if self._stop.wait(PLAIN_SECONDS):
                return

    def plain_line(self) -> str:
        """The state as one line of text: phase, counts, elapsed time and ETA (once known)."""
        elapsed = time.perf_counter() - self._start_time
        text = f"{self.phase} {self._counts()}, {_clock(elapsed)} elapsed"
        eta = self.eta(elapsed)
        return text + (f", ETA {_clock(eta)}" if eta is not None else "")

    def eta(self, elapsed: float) -> float | None:
        """Seconds left at the rate so far (what was counted in, --resume's, left out); None
        while the total or a rate is unknown."""
        worked = self.done - self._done_before
        if self.total is None or worked <= 0 or elapsed <= 0:
            return None
        return max(0.0, (self.total - self.done) * elapsed / worked)

    def _counts(self) -> str:
        done = f"{self.done}/{self.total}" if self.total is not None else str(self.done)
        if self.noun is not None:
            return f"{done} {self.noun}"
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

    def advance(self, solved: bool = False, count: int = 1) -> None:
        """Count `count` more done (puzzles: one, solved or not)."""
        with self._lock:
            self.done += count
            self.solved += bool(solved) * count
            if self.total is not None and self.done > self.total:
                self.total = self.done  # a count made before reading is only an estimate
            self._update()

    def set_done(self, done: int) -> None:
        """What is done now (a count that only grows: a smaller one is ignored)."""
        with self._lock:
            if done > self.done:
                self.done = done
                self._update()

    def count_in(self, done: int, solved: int = 0) -> None:
        """Count work done before this run (a --resume file's solved puzzles): into done and
        the total, not into the rate the ETA comes from."""
        with self._lock:
            self.done += done
            self.solved += solved
            self._done_before += done
            if self.total is not None and self.done > self.total:
                self.total = self.done
            if self._progress is not None:
                self._progress.reset(
                    self._task, total=self.total, completed=self.done, description=self.phase,
                    counts=self._counts(),
                )  # fmt: skip

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


def _clock(seconds: float) -> str:
    """H:MM:SS, as rich's columns show time."""
    whole = int(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


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
