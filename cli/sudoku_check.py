"""`gpu-anneal check`: verify full grids, count the solutions of puzzles."""

from __future__ import annotations

import numpy as np

from cli.output import EXIT_OK, EXIT_UNSOLVED, error_line, write_json_or_line
from cli.tally import Tally, read_all
from cpu_reference.sudoku.formats import check_givens
from cpu_reference.sudoku.verify import verify_solution


def run_check(sources: list[str], fmt: str | None, output: str) -> int:
    """Check each puzzle: a full grid is verified, a puzzle's solutions are counted up to two.

    Exit code 0 when every grid is valid and every puzzle has exactly one solution (and matches
    its tdoku count where one is given), 1 otherwise, 2 on bad input.
    """
    from cpu_reference.sudoku.exact import solve_exact

    tally = Tally()
    failures = 0
    for index, puzzle in enumerate(read_all(sources, fmt, tally, check=False)):
        record = {"index": index, "line": puzzle.line, "name": puzzle.name}
        clash = check_givens(puzzle.cells, puzzle.order)
        if clash is not None and not np.all(puzzle.cells):
            record.update(kind="puzzle", solutions=0, ok=False, error=clash)
            failures += 1
            write_json_or_line(record, output)
            continue
        if np.all(puzzle.cells):
            fault = verify_solution(puzzle.cells, puzzle.order)
            record.update(kind="grid", valid=fault is None, error=fault)
            ok = fault is None
        else:
            count, _, _ = solve_exact(puzzle.cells, puzzle.order, limit=2)
            record.update(kind="puzzle", solutions="2+" if count >= 2 else count)
            ok = count == 1
            if puzzle.expected_count is not None:
                expected = min(puzzle.expected_count, 2)
                record["expected"] = "2+" if expected >= 2 else expected
                ok = count == expected
        record["ok"] = ok
        failures += not ok
        write_json_or_line(record, output)
    if tally.bad_input:
        return tally.exit_code()
    if failures:
        error_line(f"{failures} check(s) failed")
        return EXIT_UNSOLVED
    return EXIT_OK
