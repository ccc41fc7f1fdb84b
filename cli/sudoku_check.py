"""`gpu-anneal check`: read Sudoku input, check each puzzle (gpu_anneal.check), print."""

from __future__ import annotations

from cli.output import EXIT_OK, EXIT_UNSOLVED, error_line, write_json_or_line
from cli.tally import Tally, read_all
from gpu_anneal.check import check_puzzle


def run_check(sources: list[str], fmt: str | None, output: str) -> int:
    """Check each puzzle: a full grid is verified, a puzzle's solutions are counted up to two,
    and a solution the input claims (tdoku `puzzle:count:solution`) is verified.

    Exit code 0 when every grid is valid, every puzzle has exactly one solution (or its tdoku
    count) and every claimed solution verifies; 1 otherwise; 2 on bad input.
    """
    tally = Tally()
    failures = 0
    for index, puzzle in enumerate(read_all(sources, fmt, tally, check=False)):
        record = check_puzzle(puzzle, index)
        failures += not record["ok"]
        write_json_or_line(record, output)
    if tally.bad_input:
        return tally.exit_code()
    if failures:
        error_line(f"{failures} check(s) failed")
        return EXIT_UNSOLVED
    return EXIT_OK
