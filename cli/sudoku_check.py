"""`gpu-anneal check`: read Sudoku input, check each puzzle (gpu_anneal.check), print."""

from __future__ import annotations

import threading

from cli.input_count import count_puzzles
from cli.output import EXIT_OK, EXIT_UNSOLVED, error_line, json_line
from cli.progress import RunProgress, messages_above
from cli.tally import Tally, read_all
from cli.threads import use_threads
from gpu_anneal import validate
from gpu_anneal.check import CHECK_NODES, check_puzzle


def run_check(
    sources: list[str], fmt: str | None, output: str, threads: int | None = None,
    progress: bool | None = None, max_nodes: int | None = None,
    time_limit: float | None = None,
) -> int:  # fmt: skip
    """Check each puzzle: a full grid is verified, a puzzle's solutions are counted up to two,
    and a solution the input claims (tdoku `puzzle:count:solution`) is verified.

    Exit code 0 when every grid is valid, every puzzle has exactly one solution (or its tdoku
    count) and every claimed solution verifies; 1 otherwise; 2 on bad input. JSON lines:
    gpu_anneal.records.CheckRecord (docs/check.schema.json); text: its key=value pairs that
    apply.

    `threads`: the threads of the solution counts (--threads); `progress`: the progress line
    (cli.progress: checks done out of the input's puzzles, counted in the background);
    `max_nodes`: the branch values a count may spend (--max-nodes; None: CHECK_NODES, 0: no
    limit); `time_limit`: the seconds a count may spend (--time-limit; None or 0: no limit).
    """
    nodes = CHECK_NODES if max_nodes is None else validate.integer("--max-nodes", max_nodes, 0)
    seconds = validate.time_limit(time_limit, "--time-limit") or None
    use_threads(threads)
    tally = Tally()
    failures = 0
    index = 0
    line = RunProgress(enabled=progress, work="checking", noun="checked")
    with line, messages_above(line):
        if line.enabled and "-" not in sources:
            count = threading.Thread(
                target=lambda: line.set_total(count_puzzles(sources, "sudoku", fmt)),
                name="count-puzzles", daemon=True,
            )  # fmt: skip
            count.start()
        for source in sources or ["-"]:
            name = "<stdin>" if source == "-" else source
            for puzzle in read_all([source], fmt, tally, check=False):
                record = check_puzzle(puzzle, index, name, nodes, seconds)
                index += 1
                failures += not record["ok"]
                print(json_line(record) if output == "jsonl" else _text(record), flush=True)
                line.advance()
    if tally.bad_input:
        return tally.exit_code()
    if failures:
        error_line(f"{failures} check(s) failed")
        return EXIT_UNSOLVED
    return EXIT_OK


def _text(record: dict) -> str:
    """key=value pairs of the keys that apply (not null, not empty)."""
    return " ".join(f"{k}={v}" for k, v in record.items() if v is not None and v != "")
