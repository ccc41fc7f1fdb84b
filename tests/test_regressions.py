"""The mishandled cases of the robustness review ("Nothing lost, nothing false"), one row each.

Each row is the review's description of what went wrong and a check that it no longer does:
nothing reported solved that is not, no puzzle lost to another one's fault, no traceback, user
errors exit 2 with one line naming the range, internal faults (exit 3) only for our own bugs.
Solving is kept tiny: 4x4 Sudoku by the exact method, small Shikaku and Hashiwokakero IDs.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import gpu_anneal
from cli.main import app
from cli.tally import is_summary
from cpu_reference.errors import InputError
from cpu_reference.sudoku.formats import parse_line
from cpu_reference.sudoku.verify import verify_solution

DATA = Path(__file__).parent / "data"
CORPUS = DATA / "fuzz_corpus"
runner = CliRunner()

FOUR = ["1...........4...", "..3.4.........2.", "4.....3..1....2."]  # solvable 4x4 puzzles
OTHER_FOUR = ["2...........1...", "..1.3.........4.", "3.....1..4....2."]
SHIKAKU = "5x4:3c2b9f6e"
HASHI = "3x3m2:2a2c2a2"
EXACT = ["--method", "exact"]


def invoke(*args: str):
    """Run the app in-process (typer's CliRunner); returns the click Result."""
    return runner.invoke(app, [str(a) for a in args])


def records(text: str) -> list[dict]:
    """The JSON objects of JSON-lines text."""
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def one_line_error(result, code: int = 2) -> str:
    """Assert exit `code`, no traceback, and one 'gpu-anneal:' line on stderr; return it."""
    assert result.exit_code == code, (result.exit_code, result.output)
    assert "Traceback" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip() and not is_summary(line)]
    assert len(lines) == 1 and lines[0].startswith("gpu-anneal: "), lines
    return lines[0]


def write(tmp: Path, name: str, lines: list[str]) -> Path:
    """A file of lines, each ended."""
    path = tmp / name
    path.write_text("".join(line + "\n" for line in lines))
    return path


def assert_all_verified(recs: list[dict]) -> None:
    """Every record claiming a Sudoku solution holds one that the verifier accepts."""
    for r in recs:
        if r["solved"]:
            grid = np.array(r["solution_rows"], np.uint8).ravel()
            assert verify_solution(grid, r["order"], parse_line(r["puzzle"])) is None


# ---- False "solved" ----------------------------------------------------------------------


def resume_other_input(tmp: Path) -> None:
    out = tmp / "out.jsonl"
    assert invoke("solve", write(tmp, "a.txt", FOUR), *EXACT, "--out", out).exit_code == 0
    result = invoke("solve", write(tmp, "b.txt", OTHER_FOUR), *EXACT, "--resume", out)
    assert result.exit_code == 0, result.output
    assert "3 of another puzzle" in result.stderr
    new = records(out.read_text())[3:]
    assert sorted(r["index"] for r in new) == [0, 1, 2]
    assert [r["puzzle"] for r in sorted(new, key=lambda r: r["index"])] == OTHER_FOUR
    assert_all_verified(new)


def resume_forged_solution(tmp: Path) -> None:
    out = tmp / "out.jsonl"
    out.write_text(json.dumps({"index": 1, "solved": True, "solution": "111"}) + "\n")
    result = invoke("solve", write(tmp, "a.txt", FOUR), *EXACT, "--resume", out)
    assert result.exit_code == 0 and "without the puzzle's identity" in result.stderr
    new = records(out.read_text())[1:]
    assert sorted(r["index"] for r in new) == [0, 1, 2]  # puzzle 1 solved again
    assert_all_verified(new)


def resume_malformed_record(tmp: Path) -> None:
    out = tmp / "out.jsonl"
    out.write_text(json.dumps({"index": 1.9, "solved": "no"}) + "\n")
    result = invoke("solve", write(tmp, "a.txt", FOUR), *EXACT, "--resume", out)
    assert result.exit_code == 0 and "1 malformed" in result.stderr
    assert sorted(r["index"] for r in records(out.read_text())[1:]) == [0, 1, 2]


def resume_wrong_solution_with_right_identity(tmp: Path) -> None:
    out = tmp / "out.jsonl"
    puzzles = write(tmp, "a.txt", FOUR)
    assert invoke("solve", puzzles, *EXACT, "--out", out).exit_code == 0
    recs = records(out.read_text())
    rows = recs[0]["solution_rows"]
    rows[0][0], rows[0][1] = rows[0][1], rows[0][0]  # two digits swapped: no longer a solution
    out.write_text("".join(json.dumps(r) + "\n" for r in recs))
    result = invoke("solve", puzzles, *EXACT, "--resume", out)
    assert result.exit_code == 0 and "1 whose solution fails the verifier" in result.stderr
    assert "2 solved puzzle(s) skipped" in result.stderr
    new = records(out.read_text())[3:]
    assert [r["index"] for r in new] == [recs[0]["index"]]
    assert_all_verified(new)


def api_wraps_cells(tmp: Path) -> None:
    cells = parse_line(
        "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
    )
    bad = cells.astype(np.int64)
    bad[1] = 262  # 262 % 256 = 6 would be a legal digit
    with pytest.raises(InputError, match="0..9"):
        gpu_anneal.solve(bad, method="exact")


def check_ignores_tdoku_solution(tmp: Path) -> None:
    line = (DATA / "tdoku_test_puzzles.txt").read_text().splitlines()[0]
    puzzle, count, solution = line.split(":")
    swapped = solution[1] + solution[0] + solution[2:]
    good = invoke("check", write(tmp, "good.txt", [line]), "--output", "jsonl")
    assert good.exit_code == 0 and records(good.stdout)[0]["ok"] is True
    bad = invoke(
        "check", write(tmp, "bad.txt", [f"{puzzle}:{count}:{swapped}"]), "--output", "jsonl"
    )
    (record,) = records(bad.stdout)
    assert bad.exit_code == 1 and record["ok"] is False and record["solution_ok"] is False


# ---- Lost puzzles ------------------------------------------------------------------------


def sudoku_bad_byte(name: str):
    def check(tmp: Path) -> None:
        result = invoke("solve", CORPUS / name, *EXACT, "--output", "jsonl")
        line = one_line_error(result)
        assert "line 2" in line
        recs = records(result.stdout)
        assert sorted(r["line"] for r in recs) == [1, 3, 4] and all(r["solved"] for r in recs)
        assert_all_verified(recs)

    return check


def grid_bad_id(kind: str, good: str):
    def check(tmp: Path) -> None:
        path = write(tmp, "ids.txt", [good, good.replace(":", ":zz"), good])
        result = invoke("solve", path, "--kind", kind, "--method", "ilp", "--output", "jsonl")
        assert "line 2" in one_line_error(result)
        recs = records(result.stdout)
        assert sorted(r["line"] for r in recs) == [1, 3] and all(r["verified"] for r in recs)

    return check


def grid_non_utf8(kind: str, good: str):
    def check(tmp: Path) -> None:
        path = tmp / "ids.txt"
        path.write_bytes(good.encode() + b"\n\xff\xfe caf\xe9\x00\n" + good.encode() + b"\n")
        result = invoke("solve", path, "--kind", kind, "--method", "ilp", "--output", "jsonl")
        assert "line 2: not UTF-8" in one_line_error(result)
        assert sorted(r["line"] for r in records(result.stdout)) == [1, 3]

    return check


def grid_out_and_resume(kind: str, good: str):
    def check(tmp: Path) -> None:
        path, out = write(tmp, "ids.txt", [good]), tmp / "out.jsonl"
        first = invoke("solve", path, "--kind", kind, "--method", "ilp", "--resume", out)
        assert first.exit_code == 0 and len(records(out.read_text())) == 1
        again = invoke("solve", path, "--kind", kind, "--method", "ilp", "--resume", out)
        assert again.exit_code == 0 and "1 solved puzzle(s) skipped" in again.stderr
        assert len(records(out.read_text())) == 1
        other = tmp / "other.jsonl"
        assert (
            invoke("solve", path, "--kind", kind, "--method", "ilp", "--out", other).exit_code == 0
        )
        (record,) = records(other.read_text())
        assert record["kind"] == kind and record["verified"]

    return check


def resume_torn_last_line(tmp: Path) -> None:
    out = tmp / "out.jsonl"
    puzzles = write(tmp, "a.txt", FOUR)
    assert invoke("solve", puzzles, *EXACT, "--out", out).exit_code == 0
    whole = out.read_text().splitlines()
    out.write_text(whole[0] + "\n" + whole[1] + "\n" + whole[2][:40])  # a crash mid-write
    result = invoke("solve", puzzles, *EXACT, "--resume", out)
    assert result.exit_code == 0, result.output
    assert "line 3: torn last line" in result.stderr
    lines = out.read_text().splitlines()
    assert lines[2] == whole[2][:40]  # the torn line is ended, the next record starts afresh
    assert [json.loads(x)["index"] for x in lines[3:]] == [json.loads(whole[2])["index"]]


def solve_stream_negative_index(tmp: Path) -> None:
    from gpu_anneal.sudoku_solver import solve_stream

    cells = parse_line(FOUR[0])
    with pytest.raises(InputError, match="puzzle position -1"):
        list(solve_stream([(-1, cells)], 2, chains=1, max_trials=1, backend="cpu"))


# ---- Tracebacks and user errors reported as internal ---------------------------------------


def grid_time_limit_zero(kind: str, good: str):
    def check(tmp: Path) -> None:
        path = write(tmp, "ids.txt", [good])
        result = invoke("solve", path, "--kind", kind, "--time-limit", 0, "--max-trials", 64,
                        "--output", "jsonl")  # fmt: skip
        assert result.exit_code in (0, 1) and "Traceback" not in result.output
        (record,) = records(result.stdout)
        assert record["params"]["time_limit"] is None

    return check


def cli_error(*args: str, fragment: str, files: list[str] | None = None):
    """A command that must exit 2 with one line holding `fragment` (files: FOUR written)."""

    def check(tmp: Path) -> None:
        path = write(tmp, "a.txt", files or FOUR)
        argv = [str(path) if a == "{file}" else a for a in args]
        argv = [str(tmp / a[6:]) if a.startswith("{tmp}/") else a for a in argv]
        assert fragment in one_line_error(invoke(*argv))

    return check


CASES = [
    ("--resume trusts any record by index: a results file of another input", resume_other_input),
    ('--resume: a record {"index": 1, "solved": true, "solution": "111"} skips the puzzle',
     resume_forged_solution),
    ('--resume: "index": 1.9, "solved": "no" also counts as solved', resume_malformed_record),
    ("--resume: a record of the right puzzle whose solution is wrong is trusted",
     resume_wrong_solution_with_right_identity),
    ("the API wraps out-of-range cells modulo 256: a 9x9 cell of 262 is solved as 6",
     api_wraps_cells),
    ("check ignores the solution field of tdoku lines (two digits swapped: ok true)",
     check_ignores_tdoku_solution),
    ("one NUL byte drops every later line of a Sudoku file", sudoku_bad_byte("nul_line.txt")),
    ("one Latin-1 byte drops every later line of a Sudoku file",
     sudoku_bad_byte("latin1_line.txt")),
    ("one bad game ID refuses a whole Shikaku file", grid_bad_id("shikaku", SHIKAKU)),
    ("one bad game ID refuses a whole Hashiwokakero file", grid_bad_id("hashi", HASHI)),
    ("--out and --resume are ignored for Shikaku", grid_out_and_resume("shikaku", SHIKAKU)),
    ("--out and --resume are ignored for Hashiwokakero", grid_out_and_resume("hashi", HASHI)),
    ("a torn last line in a resume file stops the run", resume_torn_last_line),
    ("solve_stream with a puzzle index of -1 yields nothing", solve_stream_negative_index),
    ("--kind shikaku --time-limit 0: TypeError", grid_time_limit_zero("shikaku", SHIKAKU)),
    ("--kind hashi --time-limit 0: TypeError", grid_time_limit_zero("hashi", HASHI)),
    ("--kind shikaku on non-UTF-8 bytes: traceback", grid_non_utf8("shikaku", SHIKAKU)),
    ("--kind hashi on non-UTF-8 bytes: traceback", grid_non_utf8("hashi", HASHI)),
    ("--chains 0: traceback",
     cli_error("solve", "{file}", "--chains", "0", fragment="--chains 0: must be an integer")),
    ("--chains negative: traceback",
     cli_error("solve", "{file}", "--chains", "-5", fragment="--chains -5: must be an integer")),
    ("huge --chains: MemoryError, exit 3",
     cli_error("solve", "{file}", "--chains", str(10**12), fragment="--chains 1000000000000")),
    ("schedule value nan: exit 3",
     cli_error("solve", "{file}", "--schedule", "sirdey-course:delta=nan", fragment="(0, 100]")),
    ("schedule value inf: exit 3",
     cli_error("solve", "{file}", "--schedule", "geometric:t0=inf", fragment="[1e-06, 1e+09]")),
    ("schedule value 1e30: exit 3",
     cli_error("solve", "{file}", "--schedule", "sirdey-course:plateau=1e30",
               fragment="1..10,000,000")),
    ("--out naming a directory: exit 3",
     cli_error("solve", "{file}", *EXACT, "--out", "{tmp}/", fragment="is a folder")),
    ("--resume naming a directory: exit 3",
     cli_error("solve", "{file}", *EXACT, "--resume", "{tmp}/", fragment="is a folder")),
    ("--out in a missing folder: exit 3",
     cli_error("solve", "{file}", *EXACT, "--out", "{tmp}/no/out.jsonl",
               fragment="does not exist")),
    ("--resume in a missing folder: exit 3",
     cli_error("solve", "{file}", *EXACT, "--resume", "{tmp}/no/out.jsonl",
               fragment="does not exist")),
    ("--out /dev/full: exit 3",
     cli_error("solve", "{file}", *EXACT, "--out", "/dev/full",
               fragment="No space left on device")),
    ("bench throughput --seconds -1: exit 3",
     cli_error("bench", "throughput", "--seconds", "-1", fragment="--seconds -1.0")),
    ("bench throughput --order 9: exit 3",
     cli_error("bench", "throughput", "--order", "9", fragment="--order 9: must be an integer")),
    ("generate --order 9: exit 3", cli_error("generate", "--order", "9", fragment="order 9")),
    ("render to a missing folder: exit 3",
     cli_error("render", "{file}", "{tmp}/no/p.svg", "--kind", "shikaku", files=[SHIKAKU],
               fragment="does not exist")),
    ("--time-limit -1 accepted",
     cli_error("solve", "{file}", "--time-limit", "-1", fragment="[0, 1e+09]")),
    ("--time-limit nan accepted",
     cli_error("solve", "{file}", "--time-limit", "nan", fragment="--time-limit nan")),
    ("--batch 0 accepted", cli_error("solve", "{file}", "--batch", "0", fragment="--batch 0")),
    ("seeds beyond 64 bits silently wrapped",
     cli_error("solve", "{file}", "--seed", str(2**64), fragment="0..18,446,744,073,709,551,615")),
    ("a negative seed silently wrapped",
     cli_error("solve", "{file}", "--seed", "-1", fragment="--seed -1")),
    ("plateau=0 runs with no moves",
     cli_error("solve", "{file}", "--schedule", "sirdey-course:plateau=0",
               fragment="plateau = 0: must be a whole number in 1..")),
    ("plateau=-5 reports negative proposals",
     cli_error("solve", "{file}", "--schedule", "sirdey-course:plateau=-5",
               fragment="plateau = -5")),
    ("stall=-1 accepted",
     cli_error("solve", "{file}", "--schedule", "sirdey-course:stall=-1",
               fragment="0..1,000,000,000")),
    ("delta=inf accepted",
     cli_error("solve", "{file}", "--schedule", "sirdey-course:delta=inf",
               fragment="delta = inf")),
    ("--replay-chain silently ignored with --method exact",
     cli_error("solve", "{file}", *EXACT, "--chains", "2", "--replay-chain", "1",
               fragment="--method exact has no chains")),
    ("--replay-chain with --max-trials 0 accepted",
     cli_error("solve", "{file}", "--chains", "2", "--replay-chain", "1", "--max-trials", "0",
               fragment="--max-trials 0")),
]  # fmt: skip


@pytest.mark.parametrize("description, check", CASES, ids=[c[0][:60] for c in CASES])
def test_mishandled_case_is_handled(description, check, tmp_path):
    """The review's case (description) is handled: see each check."""
    check(tmp_path)


@pytest.mark.dask
def test_dask_refuses_out_of_range_cells_as_the_api_does():
    """solve_on_dask with a 9x9 cell of 262 (262 % 256 = 6 would be a legal digit): InputError
    naming the range, as gpu_anneal.solve gives (the regression case above)."""
    from cpu_reference.sudoku.schedules import by_name
    from gpu_anneal.run_plan import pool_plan
    from gpu_anneal.scale import solve_on_dask

    cells = parse_line(
        "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
    ).astype(np.int64)
    cells[1] = 262
    with pytest.raises(InputError, match="0..9"):
        plan = pool_plan(
            3, backend="cpu", schedule=by_name("sirdey-course", 3), chains=1, slots=1, seed=0,
            time_limit=None, max_trials=10, move="sirdey", propagate=False, spare_chains=None,
        )  # fmt: skip
        solve_on_dask(cells[None], 3, plan)


def test_replay_chain_replays_what_was_run_with_propagate():
    """--replay-chain replays what was run: with --propagate the run and the replay anneal the
    same propagated puzzle, so the solving chain repeats its trials, proposals and grid."""
    path = DATA / "seed002_grids.txt"
    args = ["solve", path, "--chains", "2", "--seed", "4", "--propagate", "--move", "candidate",
            "--t0", "1", "--output", "jsonl", "--time-limit", "60"]  # fmt: skip
    run = records(invoke(*args).stdout)
    annealed = [r for r in run if r["counts"]["solving_chain"] is not None]  # not deduced alone
    first = min(annealed, key=lambda r: r["index"])
    assert first["solved"]
    replay = records(invoke(*args, "--replay-chain", first["counts"]["solving_chain"]).stdout)
    (again,) = replay
    for key in ("chain_trials", "chain_proposals", "solving_chain"):
        assert again["counts"][key] == first["counts"][key]
    assert again["solution"] == first["solution"] and again["params"]["propagate"] is True


def test_a_puzzle_that_deduction_solves_reports_no_annealing_trial():
    """seed002's puzzles 0 and 2 are solved by deduction first: their chains make no proposal,
    so the result counts 0 trials (it counted one a chain: 39,424 on a card); puzzle 1 still
    anneals, so it counts at least one."""
    from cpu_reference.sudoku.formats import read_puzzles
    from gpu_anneal.sudoku_solver import solve_batch

    puzzles = np.stack([p.cells for p in read_puzzles(DATA / "seed002_grids.txt")])
    results = solve_batch(puzzles, 3, schedule="auto", move="auto", propagate=True, chains=4,
                          seed=1, time_limit=60.0, backend="cpu")  # fmt: skip
    assert all(r.solved for r in results)
    assert [(r.trials, r.proposals) for r in (results[0], results[2])] == [(0, 0), (0, 0)]
    assert results[1].trials >= 1 and results[1].proposals > 0


def test_a_swallowed_ctrl_c_still_stops_the_pool():
    """A Ctrl-C that a compilation swallowed (recorded by the command line's handler, never
    raised to the pool) stops the run at its next round: every puzzle reported, none lost."""
    from gpu_anneal import interrupts
    from gpu_anneal.sudoku_solver import InterruptedBatch, solve_batch

    impossible = np.array([int(c) for c in "0012000030004000"], np.uint8)  # r1c1: no digit
    interrupts.press()
    try:
        with pytest.raises(InterruptedBatch) as stop:
            solve_batch(impossible[None], 2, chains=1, time_limit=None, backend="cpu")
    finally:
        interrupts.answered()
    (result,) = stop.value.results
    assert not result.solved and result.error == "interrupted"
    interrupts.check()  # answered: nothing left to raise
