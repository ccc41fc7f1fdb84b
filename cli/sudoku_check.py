"""`gpu-anneal check`: read Sudoku input, check each puzzle (gpu_anneal.check), print."""

from __future__ import annotations

from cli.output import EXIT_OK, EXIT_UNSOLVED, error_line, json_line
from cli.tally import Tally, read_all
from gpu_anneal.check import check_puzzle


def run_check(sources: list[str], fmt: str | None, output: str) -> int:
    """Check each puzzle: a full grid is verified, a puzzle's solutions are counted up to two,
    and a solution the input claims (tdoku `puzzle:count:solution`) is verified.

    Exit code 0 when every grid is valid, every puzzle has exactly one solution (or its tdoku
    count) and every claimed solution verifies; 1 otherwise; 2 on bad input. JSON lines:
    gpu_anneal.records.CheckRecord (docs/check.schema.json); text: its key=value pairs that
    apply.
    """
    tally = Tally()
    failures = 0
    index = 0
    for source in sources or ["-"]:
        name = "<stdin>" if source == "-" else source
        for puzzle in read_all([source], fmt, tally, check=False):
            record = check_puzzle(puzzle, index, name)
            index += 1
            failures += not record["ok"]
            print(json_line(record) if output == "jsonl" else _text(record), flush=True)
    if tally.bad_input:
        return tally.exit_code()
    if failures:
        error_line(f"{failures} check(s) failed")
        return EXIT_UNSOLVED
    return EXIT_OK


def _text(record: dict) -> str:
    """key=value pairs of the keys that apply (not null, not empty)."""
    return " ".join(f"{k}={v}" for k, v in record.items() if v is not None and v != "")
