"""A fixed mixed set of solves through the command line on the CPU, and what they print.

`tests/data/golden/` holds the inputs and, per case, the output (`CASE.out`) with what depends on
the clock, the machine's rate or its cores masked. `tests/test_golden.py` checks that the code
reproduces every output byte for byte; `python tests/golden.py --write` writes them anew (only
when a change of output is meant).

What is masked (`mask`): `timing` (seconds), the counts that depend on when the other chains
learn of a solution (`MASKED_COUNTS`, where a case runs more than one chain at once), and in the
text of `--dry-run` the lines that quote this machine's measured rate or time.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

GOLDEN = Path(__file__).parent / "data" / "golden"
MASK = "<masked>"
MASKED_COUNTS = ("trials", "proposals", "accepted")
MACHINE_LINE = re.compile(r"this CPU|measured here|host share")
THREADS = re.compile(r"[0-9]+(?= threads$)")
RULES_CACHE = re.compile(r"rules (cached|to compile)")

CPU = ["--backend", "cpu"]
JSONL = ["--output", "jsonl", "--quiet"]

# name -> (arguments after `gpu-anneal solve`, whether several chains run at once)
CASES: dict[str, tuple[list[str], bool]] = {
    "sudoku_4x4_anneal": (
        ["sudoku_4x4.txt", *CPU, "--chains", "1", "--seed", "3", "--time-limit", "0", *JSONL],
        False,
    ),
    "sudoku_9x9_anneal_default": (
        ["sudoku_9x9.txt", *CPU, "--chains", "1", "--seed", "2", "--time-limit", "0"]
        + ["--max-trials", "400", *JSONL],
        False,
    ),
    "sudoku_9x9_anneal_published": (
        ["sudoku_9x9.txt", *CPU, "--technique", "published", "--chains", "1", "--seed", "5"]
        + ["--time-limit", "0", "--max-trials", "3", *JSONL],
        False,
    ),
    "sudoku_9x9_anneal_candidate_t0": (
        ["sudoku_9x9.txt", *CPU, "--technique", "published", "--move", "candidate", "--t0", "1"]
        + ["--schedule", "sirdey-paper", "--chains", "2", "--batch", "2", "--seed", "7"]
        + ["--time-limit", "0", "--max-trials", "4", *JSONL],
        True,
    ),
    "sudoku_9x9_anneal_box_swap": (
        ["sudoku_9x9.txt", *CPU, "--move", "box-swap", "--no-propagate", "--chains", "1"]
        + ["--seed", "11", "--time-limit", "0", "--max-trials", "2", *JSONL],
        False,
    ),
    "sudoku_9x9_replay_chain": (
        ["sudoku_9x9.txt", "--chains", "4", "--seed", "9", "--move", "candidate", "--t0", "1"]
        + ["--replay-chain", "2", "--time-limit", "0", "--max-trials", "2", *JSONL],
        False,
    ),
    "sudoku_16x16_anneal": (
        ["sudoku_16x16.txt", *CPU, "--chains", "1", "--seed", "1", "--time-limit", "0"]
        + ["--max-trials", "2", *JSONL],
        False,
    ),
    "sudoku_9x9_exact": (["sudoku_9x9.txt", "--method", "exact", *JSONL], False),
    "sudoku_16x16_exact": (["sudoku_16x16.txt", "--method", "exact", *JSONL], False),
    "sudoku_9x9_exact_seed_rules": (
        ["sudoku_9x9.txt", "--method", "exact", "--rules", "seed", *JSONL],
        False,
    ),
    "sudoku_9x9_dry_run_cuda": (
        ["sudoku_9x9.txt", "--dry-run", "--backend", "cuda", "--device", "H100 SXM"],
        False,
    ),
    "sudoku_9x9_dry_run_cpu": (["sudoku_9x9.txt", "--dry-run", *CPU, "--chains", "4"], False),
    "shikaku_anneal": (
        ["--kind", "shikaku", "shikaku.txt", *CPU, "--seed", "4", "--time-limit", "0"]
        + ["--max-trials", "64", *JSONL],
        True,
    ),
    "shikaku_anneal_one_chain": (
        ["--kind", "shikaku", "shikaku.txt", *CPU, "--chains", "1", "--move", "pruned"]
        + ["--seed", "4", "--time-limit", "0", "--max-trials", "8", *JSONL],
        False,
    ),
    "shikaku_ilp": (["--kind", "shikaku", "shikaku.txt", "--method", "ilp", *JSONL], False),
    "hashi_anneal": (
        ["--kind", "hashi", "hashi.txt", *CPU, "--chains", "1", "--seed", "6", "--time-limit", "0"]
        + ["--schedule", "geometric:n_plateaus=40", "--max-trials", "8", *JSONL],
        False,
    ),
    "hashi_ilp": (["--kind", "hashi", "hashi.txt", "--method", "exact", *JSONL], False),
}


def mask_line(line: str, parallel: bool) -> str:
    """One output line with its clock-, rate- and machine-dependent parts masked."""
    try:
        record = json.loads(line)
    except ValueError:
        if MACHINE_LINE.search(line):  # and whether this machine compiled the rules yet
            line = RULES_CACHE.sub("rules <cache>", line)
            return re.sub(r"[0-9][0-9.,]*", "#", line)
        return THREADS.sub("#", line)
    if isinstance(record.get("timing"), dict):
        record["timing"] = {key: MASK for key in record["timing"]}
    if parallel and isinstance(record.get("counts"), dict):
        for key in MASKED_COUNTS:
            if record["counts"].get(key) is not None:
                record["counts"][key] = MASK
    return json.dumps(record)


def _index_of(line: str) -> int:
    """The input index of a result line (-1 for a line that is no result: kept first)."""
    try:
        return int(json.loads(line).get("index", -1))
    except (ValueError, AttributeError, TypeError):
        return -1


def run_case(name: str) -> tuple[int, str]:
    """Run one case in this process, in the golden folder, as `gpu-anneal solve ARGS`:
    (exit code, masked stdout followed by an `exit N` line)."""
    from typer.testing import CliRunner

    from cli.main import app  # imported here: `python tests/golden.py` runs from any folder

    args, parallel = CASES[name]
    here = Path.cwd()
    os.chdir(GOLDEN)
    try:
        done = CliRunner().invoke(app, ["solve", *args], env={"COLUMNS": "200"})
    finally:
        os.chdir(here)
    lines = [mask_line(line, parallel) for line in done.stdout.splitlines()]
    if parallel:  # puzzles run at once are reported as they finish: in input order here
        lines.sort(key=_index_of)
    return done.exit_code, "".join(f"{line}\n" for line in lines) + f"exit {done.exit_code}\n"


def main() -> None:
    """`--write`: write every case's output file; otherwise print which differ."""
    write = "--write" in sys.argv[1:]
    names = [name for name in sys.argv[1:] if not name.startswith("--")] or list(CASES)
    for name in names:
        _, text = run_case(name)
        path = GOLDEN / f"{name}.out"
        if write:
            path.write_text(text)
            print(f"wrote {path.name}")
        else:
            same = path.exists() and path.read_text() == text
            print(f"{name}: {'same' if same else 'DIFFERS'}")


if __name__ == "__main__":
    main()
