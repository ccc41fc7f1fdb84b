"""What a command saw (bad input, unsolved puzzles, Ctrl-C), and the exit code it makes."""

from __future__ import annotations

import re
from collections.abc import Iterator

from cli.output import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_OK, EXIT_UNSOLVED, error_line
from gpu_anneal.reference import InputError, Puzzle, iter_puzzles

SUMMARY = re.compile(r"gpu-anneal: \d+ solved, ")  # how a run's closing line starts


def is_summary(line: str) -> bool:
    """Whether a line of stderr is a run's closing summary (Tally.counts_text)."""
    return SUMMARY.match(line) is not None


class Tally:
    """Counts what happened, to choose the exit code: results by status (solved; and the
    others, which leave a puzzle unsolved: unsolved, no_solution, interrupted, error), bad
    input, and whether Ctrl-C was pressed (`interrupted`)."""

    UNSOLVED = ("unsolved", "no_solution", "interrupted", "error")

    def __init__(self) -> None:
        self.bad_input = 0
        self.solved = 0
        self.statuses: dict[str, int] = dict.fromkeys(self.UNSOLVED, 0)
        self.interrupted = False
        self.time_spent = False  # --total-time stopped the run: puzzles may be left unread

    @property
    def unsolved(self) -> int:
        """Results of puzzles left unsolved, whatever their status."""
        return sum(self.statuses.values())

    @unsolved.setter
    def unsolved(self, count: int) -> None:
        """Every unsolved status 0 but "unsolved", which is `count`."""
        self.statuses = dict.fromkeys(self.UNSOLVED, 0)
        self.statuses["unsolved"] = count

    def count(self, status: str) -> None:
        """Count one result by its status."""
        if status == "solved":
            self.solved += 1
        else:
            self.statuses[status] = self.statuses.get(status, 0) + 1

    def results(self) -> int:
        """Results counted."""
        return self.solved + self.unsolved

    def counts_text(self) -> str:
        """'3 solved, 1 unsolved, 2 interrupted, 0 bad': solved, unsolved and bad always, the
        other statuses when some result has them."""
        parts = [f"{self.solved} solved", f"{self.statuses['unsolved']} unsolved"]
        parts += [f"{n} {status.replace('_', ' ')}" for status, n in self.statuses.items()
                  if status != "unsolved" and n]  # fmt: skip
        return ", ".join([*parts, f"{self.bad_input} bad"])

    def fault(self, error: InputError) -> None:
        """Report one malformed puzzle on stderr and count it."""
        error_line(str(error))
        self.bad_input += 1

    def exit_code(self) -> int:
        """The first that applies: 130 on Ctrl-C, 2 on bad input, 1 if a puzzle stayed
        unsolved (no solution, stopped by --total-time, an error included) or --total-time
        stopped the run (the puzzles it never read are not solved), else 0 (an internal fault,
        3, is the error guard's: cli.guard)."""
        if self.interrupted:
            return EXIT_INTERRUPTED
        if self.bad_input:
            return EXIT_BAD_INPUT
        return EXIT_UNSOLVED if self.unsolved or self.time_spent else EXIT_OK


def read_all(
    sources: list[str], fmt: str | None, tally: Tally, check: bool = True
) -> Iterator[Puzzle]:
    """Sudoku puzzles of every source in turn; faults are reported on stderr and counted."""
    for source in sources or ["-"]:
        name = "<stdin>" if source == "-" else source
        try:
            for item in iter_puzzles(source, fmt=fmt, name=name, check=check):
                if isinstance(item, InputError):
                    tally.fault(item)
                else:
                    yield item
        except InputError as exc:
            tally.fault(exc)
