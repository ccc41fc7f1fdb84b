"""The command line: outputs, exit codes, and one-line errors on bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from terminal_signals import sigint_as_from_a_terminal
from typer.testing import CliRunner

from cli.main import app
from cli.tally import is_summary
from cpu_reference.sudoku.formats import parse_line
from cpu_reference.sudoku.verify import verify_solution

DATA = Path(__file__).parent / "data"
runner = CliRunner()


def invoke(*args: str, input: str | None = None):
    """Run the app in-process; returns the click Result."""
    return runner.invoke(app, list(args), input=input)


def jsonl(text: str) -> list[dict]:
    """The JSON objects of a jsonl output."""
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def test_solve_jsonl_fields_and_exit_code_zero():
    """The seed grids solve by annealing (the published technique: no deduction); each record
    carries the promised fields and a valid solution."""
    result = invoke(
        "solve", str(DATA / "seed002_grids.txt"), "--output", "jsonl", "--seed", "3",
        "--time-limit", "120", "--chains", "2", "--technique", "published", "--move",
        "candidate", "--t0", "1",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    records = jsonl(result.stdout)
    assert len(records) == 3
    puzzles = [line.split()[0] for line in (DATA / "seed002_grids.txt").read_text().splitlines()]
    records.sort(key=lambda r: r["index"])  # records come in completion order
    for record, text in zip(records, puzzles, strict=True):
        assert record["solved"] and record["verified"] and record["cost"] == 0
        assert record["backend"] == "cpu" and record["method"] == "anneal"
        assert record["params"]["move"] == "candidate" and record["params"]["chains"] == 2
        assert record["counts"]["trials"] >= 1 and record["counts"]["proposals"] >= 1
        solution = parse_line(record["solution"])
        assert verify_solution(solution, 3, parse_line(text)) is None


def test_exact_method_reports_no_solution_and_exit_one(tmp_path):
    """The exact method says 'no solution' for an impossible puzzle and exits 1."""
    path = tmp_path / "p.txt"
    # r1c1 sees 1, 2 in its row and 3, 4 in its column
    path.write_text("..12\n....\n3...\n4...\n".replace("\n", "", 3).replace("\n", "") + "\n")
    result = invoke("solve", str(path), "--method", "exact", "--output", "jsonl")
    assert result.exit_code == 1, result.output
    (record,) = jsonl(result.stdout)
    assert record["solved"] is False and record["error"] == "no solution"


def test_anneal_never_reports_an_impossible_puzzle_solved(tmp_path):
    """Annealing on an impossible puzzle ends unsolved, with its best cost, exit code 1."""
    path = tmp_path / "p.txt"
    path.write_text("..123...........\n".replace("123", "12.")[:14] + "..\n")
    grid = np.zeros(16, np.uint8)
    grid[[2, 3, 8, 12]] = [1, 2, 3, 4]
    path.write_text("".join(str(d) if d else "." for d in grid) + "\n")
    result = invoke(
        "solve", str(path), "--output", "jsonl", "--max-trials", "4", "--time-limit", "20"
    )
    assert result.exit_code == 1, result.output
    (record,) = jsonl(result.stdout)
    assert record["solved"] is False and record["cost"] >= 1 and record["solution"] is None


@pytest.mark.parametrize(
    "content, fault",
    [
        ("123\n", "cells"),
        ("4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4....X.\n",
         "symbol"),
        ("44....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......\n",
         "twice"),
        ("." * 50 + "\n", "cells"),
    ],
)  # fmt: skip
def test_bad_puzzles_give_one_line_with_line_number_and_exit_two(tmp_path, content, fault):
    """Each malformed puzzle: one stderr line naming the file, line and fault; exit code 2."""
    good = (DATA / "seed002_grids.txt").read_text().splitlines()[0]
    path = tmp_path / "bad.txt"
    path.write_text(good + "\n" + content)
    result = invoke("solve", str(path), "--output", "jsonl", "--time-limit", "30")
    assert result.exit_code == 2
    *errors, summary = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and "line 2" in errors[0] and fault in errors[0]
    assert is_summary(summary) and "1 solved, 0 unsolved, 1 bad" in summary
    assert "Traceback" not in result.output
    records = jsonl(result.stdout)
    assert len(records) == 1 and records[0]["solved"]  # the good puzzle is still solved


@pytest.mark.parametrize("content", [b"", b"\x00\x01\x02garbage\xff\xfe"])
def test_empty_or_binary_file_exit_two(tmp_path, content):
    """Empty input and binary garbage: a one-line error, exit 2, no traceback."""
    path = tmp_path / "f.txt"
    path.write_bytes(content)
    result = invoke("solve", str(path))
    assert result.exit_code == 2
    *errors, summary = result.stderr.strip().splitlines()
    assert len(errors) == 1 and is_summary(summary) and "1 bad" in summary
    assert "Traceback" not in result.output


def test_missing_file_and_bad_options_exit_two(tmp_path):
    """A missing file, an unknown backend or schedule: one line, exit code 2."""
    assert invoke("solve", str(tmp_path / "nope.txt")).exit_code == 2
    puzzle = str(DATA / "seed002_grids.txt")
    for args in (["--backend", "tpu"], ["--schedule", "fast"], ["--chains", "0"]):
        result = invoke("solve", puzzle, *args)
        assert result.exit_code == 2, (args, result.output)
        assert len(result.stderr.strip().splitlines()) == 1


def test_cuda_backend_without_device_is_a_clear_error():
    """--backend cuda on a machine without a device: exit 2 and a message, no fallback."""
    result = invoke("solve", str(DATA / "seed002_grids.txt"), "--backend", "cuda")
    assert result.exit_code == 2
    assert "cuda" in result.stderr.lower()
    assert result.stdout == ""


def test_check_counts_solutions_against_tdoku():
    """check: the 43 tdoku puzzles match their published counts; exit 0."""
    result = invoke("check", str(DATA / "tdoku_test_puzzles.txt"), "--output", "jsonl")
    assert result.exit_code == 0, result.output
    records = jsonl(result.stdout)
    assert len(records) == 43 and all(r["ok"] for r in records)
    assert {r["solutions"] for r in records} == {0, 1, "2+"}


def test_check_rejects_a_broken_grid(tmp_path):
    """check on a full grid with a duplicate in a row: exit 1, the fault named."""
    path = tmp_path / "g.txt"
    path.write_text("1234341221434321\n1234341221433421\n")
    result = invoke("check", str(path), "--output", "jsonl")
    records = jsonl(result.stdout)
    assert records[0]["valid"] is True
    assert records[1]["valid"] is False and "twice" in records[1]["error"]
    assert result.exit_code == 1


def test_check_stops_a_count_at_its_node_budget_and_says_it_is_unsettled(tmp_path):
    """check --max-nodes K: a count that needs more branch values than K is reported unsettled
    (solutions null, ok false, exit 1), saying whether a solution was found; the default budget
    settles it; a negative budget is one line, exit 2."""
    import numpy as np

    from cpu_reference.sudoku.exact import solve_exact
    from gpu_anneal.check import CHECK_NODES

    path = tmp_path / "empty16.txt"
    path.write_text("." * 256 + "\n")
    count, _, needed = solve_exact(np.zeros(256, np.uint8), 4, limit=2)
    assert count == 2 and needed > 2
    settled = invoke("check", str(path), "--output", "jsonl")
    assert jsonl(settled.stdout)[0]["solutions"] == "2+" and settled.exit_code == 1
    for budget, what in ((needed - 1, "a solution found, but whether it is the only one is not "
                          "known"), (1, "no solution found, and none ruled out")):  # fmt: skip
        result = invoke("check", str(path), "--output", "jsonl", "--max-nodes", str(budget))
        (record,) = jsonl(result.stdout)
        assert result.exit_code == 1
        assert record["solutions"] is None and record["ok"] is False
        assert record["error"] == (
            f"count not settled: {what} within {budget:,} branch values (--max-nodes)"
        )
    refused = invoke("check", str(path), "--max-nodes", "-1")
    assert refused.exit_code == 2 and refused.stdout == ""
    assert refused.stderr.strip() == "gpu-anneal: --max-nodes -1: must be an integer of 0 or more"
    help_text = " ".join(invoke("check", "--help").stdout.split())
    assert f"[default: {CHECK_NODES:,}]" in help_text


def test_check_stops_a_count_at_its_time_limit_and_says_so(tmp_path):
    """check --time-limit S: a count still unsettled after S seconds (here with no node budget,
    where it would run for minutes) is reported unsettled, naming the limit; a quick count
    settles under it; a negative limit is one line, exit 2."""
    import time

    hard = Path(__file__).parent.parent / "benchmarks/data/frontier/inst36x36_50_0.txt"
    began = time.perf_counter()
    result = invoke("check", str(hard), "--output", "jsonl", "--max-nodes", "0",
                    "--time-limit", "0.5")  # fmt: skip
    (record,) = jsonl(result.stdout)
    assert result.exit_code == 1 and record["solutions"] is None and record["ok"] is False
    assert record["error"] == (
        "count not settled: no solution found, and none ruled out within 0.5 s (--time-limit)"
    )
    assert time.perf_counter() - began < 30
    path = tmp_path / "empty16.txt"
    path.write_text("." * 256 + "\n")
    settled = invoke("check", str(path), "--output", "jsonl", "--time-limit", "60")
    assert jsonl(settled.stdout)[0]["solutions"] == "2+"
    refused = invoke("check", str(path), "--time-limit", "-1")
    assert refused.exit_code == 2 and refused.stdout == ""
    assert refused.stderr.startswith("gpu-anneal: --time-limit -1")


def test_info_and_throughput_json():
    """info says CUDA is unusable here; bench throughput prints proposals_per_second."""
    info = json.loads(invoke("info").stdout)
    assert info["cores"] >= 1 and "bench_gpu.py" in info["gpu_speed"]
    result = invoke("bench", "throughput", "--order", "2", "--seconds", "0.5", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["proposals_per_second"] > 1e5


def test_console_script_reads_stdin():
    """The installed entry point solves a 4x4 puzzle from stdin."""
    proc = subprocess.run(
        [sys.executable, "-m", "cli.main", "solve", "-", "--output", "jsonl"],
        input="1...\n".replace("\n", "") + "..1." + ".1.." + "...1\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    (record,) = jsonl(proc.stdout)
    assert record["solved"] and verify_solution(parse_line(record["solution"]), 2) is None


def test_replay_chain_reproduces_the_solving_chain():
    """--replay-chain re-runs the run's solving chain alone: same trials, proposals and grid."""
    args = ["solve", str(DATA / "seed002_grids.txt"), "--output", "jsonl", "--chains", "3"]
    args += ["--technique", "published", "--move", "candidate", "--t0", "1"]  # every one annealed
    run = jsonl(invoke(*args, "--seed", "21").stdout)
    for record in run[:2]:
        assert record["solved"]
        chain = record["counts"]["solving_chain"]
        assert record["index"] == chain // 3
        (replay,) = jsonl(invoke(*args, "--seed", "21", "--replay-chain", str(chain)).stdout)
        assert replay["params"]["replay_chain"] == chain
        assert replay["solution"] == record["solution"]
        for key in ("chain_trials", "chain_proposals"):
            assert replay["counts"][key] == record["counts"][key]
    first = run[0]["counts"]
    other = jsonl(
        invoke(*args, "--seed", "22", "--replay-chain", str(first["solving_chain"])).stdout
    )
    assert other[0]["counts"]["chain_proposals"] != first["chain_proposals"]


def test_resume_skips_solved_puzzles_and_appends(tmp_path):
    """--resume: puzzles whose records are trusted are skipped; new records are appended. A
    record without the puzzle's identity and a verified solution is not trusted."""
    out = tmp_path / "out.jsonl"
    base = ["solve", str(DATA / "seed002_grids.txt"), "--move", "candidate", "--t0", "1"]
    first = {"index": 1, "solved": True, "solution": "x"}
    out.write_text(json.dumps(first) + "\n")
    result = invoke(*base, "--resume", str(out))
    assert result.exit_code == 0, result.output
    assert "1 without the puzzle's identity" in result.stderr
    records = jsonl(out.read_text())
    assert [r["index"] for r in records][0] == 1
    assert sorted(r["index"] for r in records[1:]) == [0, 1, 2]
    assert all(r["solved"] for r in records[1:])
    again = invoke(*base, "--resume", str(out))
    assert again.exit_code == 0 and len(jsonl(out.read_text())) == 4  # nothing left to do
    assert "3 solved puzzle(s) skipped" in again.stderr


def test_pool_streams_many_puzzles_with_refill(tmp_path):
    """A file of 30 4x4 puzzles through a pool of 4 slots: every one solved, each index once."""
    path = tmp_path / "many.txt"
    lines = ["1...........4...", "..3.4.........2.", "4.....3..1....2."] * 10
    path.write_text("\n".join(lines) + "\n")
    result = invoke("solve", str(path), "--output", "jsonl", "--batch", "4", "--chains", "1")
    assert result.exit_code == 0, result.output
    records = jsonl(result.stdout)
    assert sorted(r["index"] for r in records) == list(range(30))
    assert all(r["solved"] and r["verified"] for r in records)


def test_progress_counts_and_stays_silent_off_a_terminal():
    """The progress line counts puzzles; it never starts when disabled (not a terminal)."""
    from cli.progress import RunProgress

    with RunProgress(total=3, delay=0.0, enabled=False) as progress:
        progress.advance(True)
        progress.advance(False)
    assert (progress.done, progress.solved) == (2, 1)
    assert progress._progress is None


@pytest.mark.parametrize("name, code", [("SIGINT", 130), ("SIGTERM", 143), ("SIGXCPU", 152)])
def test_ctrl_c_keeps_what_was_written_and_reports_the_rest(tmp_path, name, code):
    """SIGINT mid-run: solved puzzles stay written, the one in progress is reported, exit 130.
    SIGTERM (a batch system's stop) the same, exit 143; it killed the process with no summary.
    SIGXCPU (the soft CPU-time limit, `ulimit -S -t`) killed it too: the same, exit 152."""
    import signal
    import time

    path = tmp_path / "mixed.txt"
    # an empty 25x25 anneals for minutes (an impossible puzzle is proved so at once)
    path.write_text("1...........4...\n..3.4.........2.\n" + "." * 625 + "\n")
    out = tmp_path / "out.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "solve", str(path), "--out", str(out), "--chains", "1",
         "--time-limit", "0", "--method", "anneal"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=sigint_as_from_a_terminal,
    )  # fmt: skip
    start = time.time()
    while time.time() < start + 120 and (not out.exists() or len(jsonl(out.read_text())) < 2):
        time.sleep(0.2)
    waited = f"{name} sent {time.time() - start + 1:.1f} s after the start"
    time.sleep(1.0)
    proc.send_signal(getattr(signal, name))
    sent = time.time()
    try:
        _, stderr = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail(f"{waited}: no exit within 60 s of it; stderr: {proc.communicate()[1]}")
    waited += f", exit {time.time() - sent:.1f} s after it"
    records = jsonl(out.read_text())
    assert proc.returncode == code, (waited, stderr)
    assert [r["index"] for r in records] == [0, 1, 2], (waited, records, stderr)
    assert "1 interrupted" in stderr and f"--resume {out} goes on" in stderr, stderr
    assert records[0]["solved"] and records[1]["solved"]
    assert records[2]["solved"] is False and records[2]["error"] == "interrupted", records[2]
    assert "Traceback" not in stderr, stderr


def test_bench_tune_prints_valid_json_when_a_schedule_never_solves(monkeypatch):
    """A schedule that never solves has an infinite TTS: printed as null, never as Infinity."""
    import math

    import gpu_anneal.tune as tune
    from gpu_anneal.tts import TtsResult

    def never(cells, order, **kwargs):
        row = dict.fromkeys(TtsResult.__dataclass_fields__, 0)
        row.update(p=0.0, seconds_per_trial=1.0, tts99=math.inf, mean_trials=math.inf)
        return TtsResult(**row)

    monkeypatch.setattr(tune, "measure_puzzle", never)
    args = ["bench", "tune", str(DATA / "seed002_grids.txt"), "--candidate", "sirdey-course"]
    result = invoke(*args, "--limit", "1", "--runs", "1")
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout, parse_constant=lambda name: pytest.fail(name))
    assert report["table"][0]["median_tts_parallel"] is None and report["best"] is None
    assert result.stderr.strip() == (
        "gpu-anneal: no schedule solved the median puzzle in any run: none chosen"
    )


def test_version_help_and_python_m():
    """--version, -h and `python -m gpu_anneal` work; help lists enum choices."""
    from gpu_anneal import __version__

    assert invoke("--version").stdout.strip() == f"gpu-anneal {__version__}"
    module = [sys.executable, "-m", "gpu_anneal"]
    proc = subprocess.run([*module, "--version"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == f"gpu-anneal {__version__}"
    env = dict(os.environ, COLUMNS="250")
    helped = subprocess.run(
        [*module, "solve", "-h"], capture_output=True, text=True, timeout=120, env=env
    )
    assert helped.returncode == 0
    assert "sudoku|shikaku|hashi" in helped.stdout and "box-swap" in helped.stdout


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--kind", "go"], "--kind"),
        (["--method", "simplex"], "--method"),
        (["--bogus"], "--bogus"),
        (["--example", "shikaku", "--batch", "2"], "--batch does not apply to --kind shikaku"),
        (["--example", "hashi", "--move", "all"], "--move does not apply to --kind hashi"),
        (["--example", "hashi", "--schedule", "x", "--method", "ilp"], "--schedule"),
        (["--example", "seed002", "--method", "exact", "--seed", "1"], "--seed does not apply"),
        (["--example", "seed002", "--rules", "seed"], "--rules does not apply"),
        (["--example", "seed002", "--method", "exact", "--rules", "x"], "--rules"),
        (["--example", "seed002", "--kind", "hashi"], "holds sudoku puzzles"),
        (["--example", "seed002", "--method", "ilp"], "--method 'ilp'"),
        (["--example", "seed002", "--move", "pruned"], "--move 'pruned'"),
    ],
)  # fmt: skip
def test_usage_faults_are_one_line_and_exit_two(args, fragment):
    """Every refused choice or option: exit 2, one stderr line naming it, nothing on stdout."""
    result = invoke("solve", *args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gpu-anneal: ") and fragment in lines[0]
    assert result.stdout == ""


def test_grid_kinds_write_out_files(tmp_path):
    """--out works for Shikaku and Hashiwokakero as for Sudoku: one JSON line per puzzle in the
    file, the text on stdout as without --out; --quiet leaves stdout empty."""
    for kind in ("shikaku", "hashi"):
        out = tmp_path / f"{kind}.jsonl"
        result = invoke("solve", "--example", kind, "--method", "ilp", "--out", str(out))
        assert result.exit_code == 0
        assert result.stdout.count(": solved") == 5
        records = jsonl(out.read_text())
        assert [r["index"] for r in records] == list(range(5))
        assert all(r["kind"] == kind and r["solved"] for r in records)
        out.unlink()
        quiet = invoke("solve", "--example", kind, "--method", "ilp", "--out", str(out), "-q")
        assert quiet.exit_code == 0 and quiet.stdout == ""
        assert len(jsonl(out.read_text())) == 5


def test_text_output_puts_only_verified_solutions_where_solutions_go(tmp_path):
    """An unsolved puzzle gets its header line only: its best (invalid) grid is not printed."""
    path = tmp_path / "p.txt"
    impossible = "..12" + "...." + "3..." + "4..."  # reported no_solution, its best grid kept
    path.write_text("1...........4...\n" + impossible + "\n")
    result = invoke("solve", str(path), "--chains", "1", "--max-trials", "4", "--seed", "2")
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    heads = [i for i, line in enumerate(lines) if line.startswith("# puzzle")]
    assert len(heads) == 2 and len(lines) == 3  # two headers, one grid
    unsolved = next(i for i in heads if "no solution" in lines[i])
    assert "best state not shown" in lines[unsolved]
    grid = next(line for line in lines if not line.startswith("#"))
    assert verify_solution(parse_line(grid), 2) is None


def test_examples_lists_and_prints_the_shipped_sets():
    """`examples` names every set; `examples NAME` prints a file the solver reads."""
    from gpu_anneal import datasets

    listed = invoke("examples").stdout
    assert all(name in listed for name in datasets.names())
    printed = invoke("examples", "seed002").stdout
    assert printed == datasets.text("seed002") and printed.count("\n") == 4


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--kind", "shikaku", "--order", "3"], "--order does not apply to --kind shikaku"),
        (["--kind", "hashi", "--puzzles"], "--puzzles does not apply to --kind hashi"),
        (["--size", "5x5"], "--size does not apply to --kind sudoku"),
        (["--method", "guess"], "--method"),
    ],
)  # fmt: skip
def test_generate_refuses_options_of_another_kind(args, fragment):
    """generate: a Sudoku option with a grid kind, or the reverse: one line, exit 2."""
    result = invoke("generate", *args)
    assert result.exit_code == 2 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0]


def test_shipped_game_ids_come_from_the_command_their_file_names():
    """The shipped Shikaku and Hashi IDs are what the generate command in their header prints."""
    from gpu_anneal import datasets

    for kind in ("shikaku", "hashi"):
        text = datasets.text(kind)
        command = next(line for line in text.splitlines() if "gpu-anneal generate" in line)
        args = command.split("gpu-anneal ", 1)[1].split()
        printed = invoke(*args).stdout.split()
        assert printed == [line for line in text.splitlines() if not line.startswith("#")]


def test_bench_exact_json_counts_each_puzzle(tmp_path):
    """`bench exact --json`: puzzles, a positive rate, and counts that tell the unique puzzles
    from one with a given removed until it has several solutions (limit 2), with either rules."""
    unique = (DATA / "top95_head.txt").read_text().split()[:3]
    open_grid = "." * 81  # the empty grid: many solutions
    path = tmp_path / "set.txt"
    path.write_text("\n".join([*unique, open_grid]) + "\n")
    for rules in ("fast", "seed"):
        result = invoke("bench", "exact", str(path), "--json", "--repeats", "1", "--rules", rules)
        assert result.exit_code == 0, result.output
        record = json.loads(result.stdout.strip().splitlines()[-1])
        assert record["puzzles"] == 4 and record["puzzles_per_second"] > 0
        assert record["counts"] == {"1": 3, "2": 1}, rules


@pytest.mark.parametrize(
    ("args", "needle"),
    [(["--limit", "3"], "--limit 3"), (["--rules", "bogus"], "bogus"), (["--repeats", "0"], "0")],
)
def test_bench_exact_bad_options_are_one_line_exit_2(tmp_path, args, needle):
    """A limit other than 1 or 2, unknown rules, no repeats: one line naming it, exit 2."""
    path = tmp_path / "one.txt"
    path.write_text((DATA / "top95_head.txt").read_text().split()[0] + "\n")
    result = invoke("bench", "exact", str(path), *args)
    assert result.exit_code == 2, result.output
    assert needle in result.output and "Traceback" not in result.output


def test_throughput_line_names_a_card_rate_in_g_per_second(monkeypatch, capsys):
    """A card's rate (measured: 166 G proposals/s on an H100) prints in G/s, a CPU's in M/s."""
    import cli.bench as bench

    for rate, text in ((1.662049e11, "166.2 G proposals/s"), (8.005e8, "800.5 M proposals/s")):
        monkeypatch.setattr(bench, "measure_throughput", lambda *a, r=rate, on_round=None: {
            "proposals_per_second": r, "backend": "cuda", "chains": 65536})  # fmt: skip
        assert bench.run_throughput(3, 1.0, "cuda", None, False) == 0
        assert capsys.readouterr().out.startswith(text)


def test_help_shows_defaults_whole_choices_and_no_type_on_flags():
    """Every option that takes a value shows its default; flags show no type (`<bool>`); a
    narrow terminal never cuts a list of choices; --move lists each kind's moves apart."""
    import typer.main

    command = typer.main.get_command(app)
    bench = command.commands["bench"]
    subs = [command.commands[name] for name in ("solve", "check", "kernels")]
    for sub in [*subs, *(bench.commands[name] for name in ("throughput", "tts", "tune", "exact"))]:
        name = sub.name
        ctx = sub.make_context(name, [], resilient_parsing=True)
        for param in sub.params:
            if param.param_type_name != "option" or param.is_flag or param.name == "help":
                continue
            record = param.get_help_record(ctx)
            assert record is not None and "default:" in record[1], (name, param.name)
    env = dict(os.environ, COLUMNS="60")
    module = [sys.executable, "-m", "gpu_anneal"]
    for args in ([], ["solve"], ["generate"], ["bench", "tts"]):
        helped = subprocess.run(
            [*module, *args, "-h"], capture_output=True, text=True, timeout=120, env=env
        )
        assert helped.returncode == 0 and "<bool>" not in helped.stdout, args
    assert (
        "--install-completion"
        in subprocess.run(
            [*module, "-h"], capture_output=True, text=True, timeout=120, env=env
        ).stdout
    )
    solve_help = subprocess.run(
        [*module, "solve", "-h"], capture_output=True, text=True, timeout=120, env=env
    ).stdout
    from gpu_anneal import datasets

    assert f"<{'|'.join(datasets.names())}>" in solve_help
    flat = " ".join(solve_help.split())
    assert "Sudoku: sirdey, candidate, box-swap, focused, focused-two, auto" in flat
    assert "Shikaku: all, pruned, propagated" in flat
    assert "Seed of the RNG streams [default: 0]" in flat


def test_shell_completion_is_offered():
    """--show-completion prints a completion script; completing `solve --ki` offers --kind."""
    # a fresh process, as a user's shell runs it (in-process, what earlier tests left in typer's
    # and click's state can change the answer)
    shown = subprocess.run(
        [sys.executable, "-c", "from cli.main import app; app(prog_name='gpu-anneal')",
         "--show-completion", "bash"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert shown.returncode == 0 and "_GPU_ANNEAL_COMPLETE" in shown.stdout, shown.stderr
    env = dict(os.environ, _GPU_ANNEAL_COMPLETE="complete_bash", COMP_WORDS="gpu-anneal solve --ki",
               COMP_CWORD="2")  # fmt: skip
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from cli.main import app; app(prog_name='gpu-anneal')"],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    assert proc.stdout.split() == ["--kind"], proc.stderr


def test_errors_are_exported_from_the_package():
    """`from gpu_anneal import InputError` catches what the API raises on a bad parameter."""
    import gpu_anneal
    from gpu_anneal import InputError, MissingExtra, OptionError, OutputError

    assert issubclass(OptionError, InputError) and issubclass(OutputError, InputError)
    assert issubclass(MissingExtra, gpu_anneal.BackendError) and issubclass(
        MissingExtra, ImportError
    )
    with pytest.raises(InputError, match="^seed does not apply"):
        gpu_anneal.solve(str(DATA / "seed002_grids.txt"), method="exact", seed=1)


def _one_line(result) -> str:
    """The single stderr line of a usage fault (exit code 2, nothing on stdout)."""
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gpu-anneal: "), lines
    assert result.stdout == "" and "Traceback" not in result.output
    return lines[0]


@pytest.mark.parametrize("args", [["--workers", "2"], ["--scheduler", "tcp://127.0.0.1:8786"]])
def test_dask_options_without_the_dask_extra_name_the_extra(monkeypatch, args):
    """--workers or --scheduler with dask not installed: one line naming the extra and the
    quoted command, exit 2."""
    monkeypatch.setitem(sys.modules, "distributed", None)
    line = _one_line(invoke("solve", "--example", "seed002", *args))
    assert "dask extra" in line and 'pip install "gpu-anneal[dask]"' in line


@pytest.mark.parametrize(
    "address, fragment",
    [("nonsense", "not a scheduler address"), ("xyz://host:1", "not a scheduler address"),
     ("tcp://127.0.0.1:1", "no Dask scheduler answers at")],
)  # fmt: skip
@pytest.mark.dask
def test_scheduler_address_that_is_malformed_or_unreachable_is_one_line(
    monkeypatch, address, fragment
):
    """A malformed --scheduler, or one where nothing answers (within the connect timeout, set
    to 1 s here): one line naming the address, exit 2, no wait beyond the timeout."""
    import time

    from gpu_anneal import scale

    monkeypatch.setattr(scale, "CONNECT_SECONDS", 1)
    start = time.perf_counter()
    line = _one_line(invoke("solve", "--example", "seed002", "--scheduler", address))
    assert time.perf_counter() - start < 30
    assert f"{address!r}" in line and fragment in line


def test_cuda_backend_without_numba_cuda_names_the_extra(monkeypatch):
    """--backend cuda where numba-cuda is not installed (its import fails, or numba's own
    deprecated target answers): one line naming the cuda extra, exit 2."""
    import types

    import numba

    from gpu_anneal import backends

    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)
    monkeypatch.setattr(backends, "driver_library_found", lambda: True)
    monkeypatch.delattr(numba, "cuda", raising=False)
    monkeypatch.setitem(sys.modules, "numba.cuda", None)
    line = _one_line(invoke("solve", "--example", "seed002", "--backend", "cuda"))
    assert "numba-cuda is not installed" in line and 'pip install "gpu-anneal[cuda]"' in line
    built_in = types.SimpleNamespace(implementation="Built-in", is_available=lambda: True)
    monkeypatch.setattr(numba, "cuda", built_in, raising=False)
    monkeypatch.setitem(sys.modules, "numba.cuda", built_in)
    assert backends.cuda_status() == (
        False, 'numba-cuda is not installed: pip install "gpu-anneal[cuda]"'
    )  # fmt: skip


def test_progress_follows_the_phases_and_the_total(tmp_path):
    """The progress line says `compiling` while a solver warms up, then its work; the total
    comes from a count by lines, never below the puzzles done."""
    from cli.input_count import count_puzzles
    from cli.progress import RunProgress
    from gpu_anneal import datasets, phases, solvers

    seen = []
    with RunProgress(enabled=False, work="annealing") as progress:
        assert progress.phase == "annealing"
        key = ("test-phase", object())
        solvers.warm_up_seconds(key, lambda: seen.append(progress.phase))
        assert seen == ["compiling"] and progress.phase == "annealing"
        progress.set_total(count_puzzles([str(datasets.path("top95"))], "sudoku"))
        assert progress.total == 95
        for _ in range(2):
            progress.advance(True)
        progress.set_total(1)
        assert progress.total == 2 and progress._counts() == "2/2 done, 2 solved"
    phases.announce("compiling")  # heard by no one once the block is left
    assert progress.phase == "annealing"


def test_puzzle_count_by_lines(tmp_path):
    """One-line formats count their puzzle lines; grid formats N lines a puzzle; a text grid of
    Shikaku or Hashi is one puzzle; stdin and compressed files are not counted."""
    from cli.input_count import count_puzzles
    from gpu_anneal import datasets

    grids = tmp_path / "grids.txt"
    grids.write_text("# two 4x4 grids\n1...\n....\n..4.\n....\n\n.2..\n....\n....\n...3\n")
    text_grid = tmp_path / "hashi.txt"
    text_grid.write_text("1.1\n...\n")
    assert count_puzzles([str(grids)], "sudoku") == 2
    assert count_puzzles([str(DATA / "seed002_grids.txt")], "sudoku") == 3
    assert count_puzzles([str(datasets.path("top95")), str(grids)], "sudoku") == 97
    assert (
        count_puzzles([str(datasets.path("lloyd-amos-9x9"))], "sudoku")
        == datasets.get("lloyd-amos-9x9").count
    )
    assert count_puzzles([str(datasets.path("shikaku"))], "shikaku") == 5
    assert count_puzzles([str(text_grid)], "hashi") == 1
    boxed = tmp_path / "boxed.txt"  # a 4x4 grid printed with its boxes drawn, twice
    boxed.write_text("+-----+-----+\n| 1 . | . . |\n| . . | . 4 |\n|-----+-----|\n"
                     "| . 3 | . . |\n| . . | . 2 |\n+-----+-----+\n" * 2)  # fmt: skip
    assert count_puzzles([str(boxed)], "sudoku") == 2
    assert count_puzzles(["-"], "sudoku") is None
    assert count_puzzles([str(tmp_path / "p.txt.gz")], "sudoku") is None
    assert count_puzzles([str(tmp_path / "missing.txt")], "sudoku") is None


# ---- the technique: the command line and the API alike ------------------------------------------

TECHNIQUE_CASES = [
    ([], {}),
    (["--schedule", "sirdey-course"], {"schedule": "sirdey-course"}),
    (["--move", "candidate"], {"move": "candidate"}),
    (["--t0", "1"], {"t0": 1.0}),
    (["--propagate"], {"propagate": True}),
    (["--no-propagate"], {"propagate": False}),
    (["--technique", "default"], {"technique": "default"}),
    (["--technique", "published"], {"technique": "published"}),
    (["--technique", "published", "--propagate"], {"technique": "published", "propagate": True}),
]


@pytest.mark.parametrize("flags, kwargs", TECHNIQUE_CASES)
def test_the_command_line_resolves_technique_options_as_the_api_does(monkeypatch, flags, kwargs):
    """Each technique flag of `solve` gives the Settings the API's keyword gives (the run itself
    left out: api.run records what it is handed)."""
    from dataclasses import replace

    from gpu_anneal import api
    from gpu_anneal.resolve import resolve
    from gpu_anneal.settings import API, SolveOptions

    handed = []
    monkeypatch.setattr(api, "run", lambda puzzles, settings: handed.append(settings) or iter(()))
    result = invoke("solve", str(DATA / "seed002_grids.txt"), "--backend", "cpu", *flags)
    assert result.exit_code == 0, result.output
    (settings,) = handed
    assert replace(settings, naming=API) == resolve(SolveOptions(backend="cpu", **kwargs))


@pytest.mark.parametrize("flags, kwargs", [TECHNIQUE_CASES[2], TECHNIQUE_CASES[7]])
def test_the_command_lines_params_are_the_apis(flags, kwargs):
    """A 4x4 puzzle solved through `solve` and through api.solve with the same options: the
    same params (what ran) in the record."""
    from gpu_anneal import api

    puzzle = "1...........4...\n"
    common = {"chains": 2, "seed": 3, "backend": "cpu"}
    run = invoke("solve", "-", "--output", "jsonl", "--chains", "2", "--seed", "3",
                 "--backend", "cpu", *flags, input=puzzle)  # fmt: skip
    assert run.exit_code == 0, run.output
    (record,) = jsonl(run.stdout)
    (result,) = api.solve(puzzle, **common, **kwargs)
    assert record["params"] == json.loads(result.to_json())["params"]
    assert record["params"]["move"] == ("candidate" if "move" in kwargs else "sirdey")


@pytest.mark.parametrize("method", ["anneal", "backtrack"])
def test_generate_from_names_givens_with_no_completion_by_line(tmp_path, method):
    """`generate --from` of givens deduction finds contradictory said only '1 of 1 grids not
    found (index 0)' (backtrack adding 'the givens have no completion'), naming no file or
    line: it is now a bad puzzle of its line, left out, the others completed, exit 2."""
    cells = list("123456780" + "0" * 72)
    cells[44] = "9"  # r1c9 can hold only 9, which column 9 already has at r5c9
    easy = "002370900007568402080090000100040800204000706006020001000050010501932600003086200"
    path = tmp_path / "p.txt"
    path.write_text("".join(cells) + "\n" + easy + "\n")
    result = invoke("generate", "--from", path, "--method", method)
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [
        f"gpu-anneal: {path}, line 1: the givens have no completion (deduction meets a "
        "contradiction)",
        f"gpu-anneal: 1 bad puzzle(s) of {path} left out",
    ]
    (grid,) = result.stdout.split()
    assert all(g == c for g, c in zip(grid, easy, strict=True) if c != "0") and "0" not in grid


def test_a_generate_shortfall_says_what_ended_the_grids():
    """Grids not found are named with what ended them: permute's restart budget (with the
    better methods past 9x9) or the time limit."""
    spent = invoke("generate", "--order", "3", "--method", "permute", "--count", "2",
                   "--max-restarts", "0", "--time-limit", "5")  # fmt: skip
    assert spent.exit_code == 1
    assert spent.stderr.strip().endswith(
        "2 of 2 grids not found (index 0, 1): 2 spent --max-restarts 0"
    ), spent.stderr
    large = invoke("generate", "--order", "4", "--method", "permute", "--count", "1",
                   "--max-restarts", "1", "--time-limit", "5")  # fmt: skip
    assert large.exit_code == 1
    expected = ("1 spent --max-restarts 1; permute, the seed's pure descent, rarely completes a "
                "grid past 9x9: --method backtrack or anneal")  # fmt: skip
    assert large.stderr.strip().endswith(expected), large.stderr


def test_generate_game_ids_stop_at_the_time_limit_keeping_those_made(monkeypatch):
    """`generate --kind shikaku --unique` could run for hours (up to 200 tries a game ID, each
    check up to 60 s) and refused --time-limit: it now takes it for all the game IDs, hands each
    uniqueness check at most what is left, prints those made and says how many, exit 2."""
    from gpu_anneal.kinds import kind_of

    spec = kind_of("shikaku")
    limits = []
    checked = spec.is_unique

    def timed(p, time_limit=60.0):
        limits.append(time_limit)
        return checked(p, time_limit)

    monkeypatch.setattr(spec, "is_unique", timed)
    result = invoke("generate", "--kind", "shikaku", "--size", "6x6", "--unique", "--count",
                    "100000", "--time-limit", "0.5")  # fmt: skip
    assert result.exit_code == 2, result.output
    made = result.stdout.split()
    assert made and all(gid.startswith("6x6:") for gid in made)
    assert result.stderr.strip() == (
        f"gpu-anneal: made {len(made)} of 100000 game IDs before the time limit of 0.5 s ran out"
    )
    assert limits and max(limits) <= 0.5
