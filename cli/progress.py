"""A progress line on stderr (rich) for runs that last longer than a second, on a terminal only."""

from __future__ import annotations

import sys
import threading


class RunProgress:
    """Puzzles done and solved, elapsed time; appears after `delay` seconds, gone at the end."""

    def __init__(self, total: int | None = None, delay: float = 1.0, enabled: bool | None = None):
        self.total = total
        self.done = 0
        self.solved = 0
        self._lock = threading.Lock()
        self._progress = None
        self._task = None
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._timer = threading.Timer(delay, self._start) if self.enabled else None

    def __enter__(self) -> RunProgress:
        if self._timer is not None:
            self._timer.daemon = True
            self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            if self._progress is not None:
                self._progress.stop()
                self._progress = None

    def _start(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        with self._lock:
            self._progress = Progress(
                SpinnerColumn(),
                TextColumn("annealing"),
                BarColumn(),
                TextColumn("{task.completed} done, {task.fields[solved]} solved"),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self._task = self._progress.add_task(
                "solve", total=self.total, completed=self.done, solved=self.solved
            )
            self._progress.start()

    def advance(self, solved: bool) -> None:
        """Count one finished puzzle."""
        with self._lock:
            self.done += 1
            self.solved += bool(solved)
            if self._progress is not None:
                self._progress.update(self._task, completed=self.done, solved=self.solved)
