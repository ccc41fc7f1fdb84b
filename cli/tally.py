"""What a command saw (bad input, unsolved puzzles, Ctrl-C), and the exit code it makes."""

from __future__ import annotations

from collections.abc import Iterator

from cli.output import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_OK, EXIT_UNSOLVED, error_line
from cpu_reference.errors import InputError
from cpu_reference.sudoku.formats import Puzzle, iter_puzzles


class Tally:
    """Counts what happened, to choose the exit code."""

    def __init__(self) -> None:
        self.bad_input = 0
        self.unsolved = 0
        self.solved = 0
        self.interrupted = False

    def fault(self, error: InputError) -> None:
        """Report one malformed puzzle on stderr and count it."""
        error_line(str(error))
        self.bad_input += 1

    def exit_code(self) -> int:
        """The first that applies: 130 on Ctrl-C, 2 on bad input, 1 if a puzzle stayed
        unsolved, else 0 (an internal fault, 3, is the error guard's: cli.guard)."""
        if self.interrupted:
            return EXIT_INTERRUPTED
        if self.bad_input:
            return EXIT_BAD_INPUT
        return EXIT_UNSOLVED if self.unsolved else EXIT_OK


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
