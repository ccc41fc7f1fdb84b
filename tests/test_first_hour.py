"""What a new user meets first: a closing summary and progress on long work, readable grids and
pictures of every Sudoku order, --threads and --total-time, generate's output fed back to solve,
and an impossible puzzle reported at once."""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import cli.progress
from cli.main import app
from cpu_reference.sudoku.formats import iter_puzzles, parse_line
from cpu_reference.sudoku.verify import verify_solution
from gpu_anneal import datasets

DATA = Path(__file__).parent / "data"
runner = CliRunner()
HARD = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
# r1c9 has no digit left (1-8 in its row, 9 in its column): no solution, no clash of givens
IMPOSSIBLE = "12345678." + "........9" + "." * 63


def invoke(*args: str, input: str | None = None):
    """Run the app in-process (stderr is no terminal); returns the click Result."""
    return runner.invoke(app, list(args), input=input)


def jsonl(text: str) -> list[dict]:
    """The JSON objects of a jsonl output."""
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def write(path: Path, *lines: str) -> str:
    """Write the lines to `path`; its name."""
    path.write_text("\n".join(lines) + "\n")
    return str(path)


class Recorder(cli.progress.RunProgress):
    """A progress line that keeps every instance made (`made`), to read its counts after."""

    made: list[Recorder] = []

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        Recorder.made.append(self)


@pytest.fixture
def recorded(monkeypatch):
    """RunProgress replaced by Recorder in the modules that use it; the list of instances."""
    import cli.bench
    import cli.generate
    import cli.kernels
    import cli.solve
    import cli.sudoku_check

    Recorder.made = []
    for module in (cli.bench, cli.generate, cli.kernels, cli.solve, cli.sudoku_check):
        monkeypatch.setattr(module, "RunProgress", Recorder)
    return Recorder.made


# --- item: a closing summary and progress wherever work is long ------------------------------


def test_solve_piped_ends_with_a_summary_line_unless_quiet(tmp_path):
    """Where stderr is no terminal the run still ends with its counts; --quiet drops them."""
    path = write(tmp_path / "p.txt", HARD)
    result = invoke("solve", path, "--method", "exact")
    assert result.exit_code == 0, result.output
    assert re.fullmatch(r"gpu-anneal: 1 solved, 0 unsolved, 0 bad in \d+\.\d s\n", result.stderr)
    quiet = invoke("solve", path, "--method", "exact", "--quiet", "--out", str(tmp_path / "o"))
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_progress_forced_where_stderr_is_no_terminal_prints_plain_lines(monkeypatch, tmp_path):
    """--progress on a pipe: plain 'phase done/total ... ETA' lines; --no-progress: none."""
    monkeypatch.setattr(cli.progress, "DELAY_SECONDS", 0.0)
    path = write(tmp_path / "p.txt", *[HARD] * 3)
    shown = invoke("check", path, "--progress")
    assert shown.exit_code == 0, shown.output
    lines = [line for line in shown.stderr.splitlines() if "elapsed" in line]
    assert lines and re.match(r"gpu-anneal: \w+ \d+(/3)? checked, 0:00:\d\d elapsed", lines[0])
    hidden = invoke("check", path, "--no-progress")
    assert hidden.exit_code == 0 and "elapsed" not in hidden.stderr


@pytest.mark.parametrize("term, plain", [("dumb", True), ("xterm-256color", False)])
def test_progress_on_a_dumb_terminal_is_plain_lines(monkeypatch, capsys, term, plain):
    """On a terminal with TERM=dumb (an editor's shell) rich draws no live line, so the
    progress showed nothing at all; it now prints the plain lines there. A terminal that
    redraws keeps rich's line."""
    monkeypatch.setattr(cli.progress, "stderr_is_terminal", lambda: True)
    monkeypatch.setenv("TERM", term)
    line = cli.progress.RunProgress(total=2, delay=0.0)
    assert line.enabled and line.plain is plain
    if plain:
        with line:
            time.sleep(0.3)
        assert "gpu-anneal: annealing 0/2" in capsys.readouterr().err


def test_plain_progress_line_counts_toward_the_total_with_an_eta():
    """The plain line holds done/total and, once a rate is known, an ETA; what a --resume file
    held is counted in but not into the rate."""
    line = cli.progress.RunProgress(total=10, enabled=False, noun="grids")
    assert line.plain_line().startswith("annealing 0/10 grids") and "ETA" not in line.plain_line()
    line.count_in(4)
    assert "4/10 grids" in line.plain_line() and "ETA" not in line.plain_line()
    line.advance(count=2)
    assert "6/10 grids" in line.plain_line() and "ETA" in line.plain_line()


@pytest.mark.parametrize(
    "args, total",
    [
        (["check", "{file}"], 3),
        (["generate", "--order", "2", "--count", "3"], 3),
        (["generate", "--order", "2", "--puzzles", "--count", "2"], 2),
        (["minimize", "--order", "2", "--count", "3"], 3),
        (["bench", "exact", "{file}", "--repeats", "2"], 2),
        (["bench", "tts", "{small}", "--runs", "1", "--limit", "2"], 2),
    ],
)  # fmt: skip
def test_long_commands_count_done_out_of_a_total(recorded, tmp_path, args, total):
    """Each long command gives its progress line the total it works toward and reaches it."""
    small = write(tmp_path / "s.txt", "1...........4...", "..3.4.........2.")
    file = write(tmp_path / "p.txt", *[HARD] * 3)
    args = [a.format(file=file, small=small) for a in args]
    result = invoke(*args, "--progress")
    assert result.exit_code == 0, result.output
    for thread in threading.enumerate():  # check counts its input in the background
        if thread.name == "count-puzzles":
            thread.join(10)
    (line,) = recorded
    assert line.enabled and (line.done, line.total) == (total, total)


def test_kernels_count_kernel_sizes_out_of_all(recorded, monkeypatch):
    """`kernels` advances one kernel at a time toward the count of every kernel size."""
    from gpu_anneal.kernels import perf_model, ptx

    sizes = {"a": (1, 2), "b": (3,)}
    monkeypatch.setattr(
        ptx, "kernel_registry", lambda trials: {k: (None, None, v) for k, v in sizes.items()}
    )
    monkeypatch.setattr(ptx, "kernel_table", lambda arch, kinds, with_ptx, trials: [
        {"kernel": kinds[0], "size": s, "ptx": True} for s in sizes[kinds[0]]])  # fmt: skip
    monkeypatch.setattr(perf_model, "record_reader", lambda arch, keep: None)
    monkeypatch.setattr("gpu_anneal.kernels.cards.parse_arch", lambda arch: None)
    result = invoke("kernels", "--json", "--progress")
    assert result.exit_code == 0, result.output
    assert [r["size"] for r in json.loads(result.stdout)] == [1, 2, 3]
    (line,) = recorded
    assert (line.done, line.total) == (3, 3)


def test_resume_counts_what_the_results_file_holds_into_the_total(tmp_path):
    """With --resume the progress line starts from the puzzles the file holds solved."""
    from cli.solve import count_in_background

    path = write(tmp_path / "p.txt", HARD, HARD, HARD)
    out = tmp_path / "r.jsonl"
    first = invoke("solve", path, "--method", "exact", "--out", str(out), "--quiet")
    assert first.exit_code == 0, first.output
    records = out.read_text().splitlines()
    out.write_text("\n".join(records[:2]) + "\n")  # two of three held
    line = cli.progress.RunProgress(enabled=False)
    count_in_background(line, [path], "sudoku", None, str(out))
    for thread in threading.enumerate():
        if thread.name == "count-puzzles":
            thread.join(10)
    assert (line.done, line.total, line.solved) == (2, 3, 2)


def test_total_time_stops_the_run_counted_interrupted_not_unsolved(tmp_path):
    """--total-time ends a run whose puzzle would anneal far longer: reported interrupted (not
    unsolved), its state as it stands, the summary says why, exit code 1."""
    path = write(tmp_path / "p.txt", HARD)
    start = time.perf_counter()
    result = invoke(
        "solve", path, "--t0", "1000", "--time-limit", "60", "--total-time", "1",
        "--output", "jsonl", "--chains", "2",
    )  # fmt: skip
    elapsed = time.perf_counter() - start
    assert result.exit_code == 1, result.output
    (record,) = jsonl(result.stdout)
    assert elapsed - record["timing"]["compile"] < 30  # not the 60 s time limit
    assert record["status"] == "interrupted" and "total time" in record["error"]
    summary = result.stderr.splitlines()[-1]
    assert "0 unsolved, 1 interrupted" in summary and "--total-time 1 s spent" in summary


def test_total_time_that_leaves_puzzles_unread_exits_1(tmp_path):
    """--total-time stopping a run between puzzles, every puzzle it read solved and the rest
    never read, exited 0 ('all solved'), so a script took the run as complete. It exits 1."""
    path = write(tmp_path / "many.txt", *(["1...........4...", "..3.4.........2."] * 20000))
    out = tmp_path / "out.jsonl"
    result = invoke("solve", path, "--total-time", "1", "--method", "exact", "--out", out)
    solved = [r for r in jsonl(out.read_text()) if r["status"] == "solved"]
    assert 0 < len(solved) < 40000, len(solved)  # stopped part way
    assert result.exit_code == 1, result.output
    assert "--total-time 1 s spent" in result.stderr.splitlines()[-1]


class LateClock:
    """interrupts' clock: time.perf_counter plus `ahead` seconds (0 until a test moves it), and
    time.sleep."""

    def __init__(self):
        self.ahead = 0.0

    def perf_counter(self) -> float:
        return time.perf_counter() + self.ahead

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


FINISHED_RUNS = [
    ("sudoku", ["--method", "exact"]),
    ("sudoku", ["--method", "impasse"]),
    ("sudoku", ["--method", "anneal"]),
    ("shikaku", ["--method", "ilp"]),
    ("hashi", ["--method", "anneal"]),
]


FINISHED_IDS = [" ".join([kind, *method]) for kind, method in FINISHED_RUNS]


def run_with_late_clock(tmp_path, monkeypatch, kind, method, puzzles, late_after):
    """`solve` of the kind's first `puzzles` sample puzzles (HARD for sudoku), the run's total
    time (600 s) passing as its `late_after`-th answer is written; the click Result."""
    import cli.solve
    from gpu_anneal import datasets, interrupts

    if kind == "sudoku":
        lines = [HARD] * puzzles
    else:
        lines = [line for line in datasets.text(kind).splitlines() if line[:1].isdigit()]
    path = write(tmp_path / "p.txt", *lines[:puzzles])
    clock = LateClock()
    monkeypatch.setattr(interrupts, "time", clock)
    emit = cli.solve._emit

    def late_emit(result, req, tally, sink):
        emit(result, req, tally, sink)
        if tally.results() == late_after:
            clock.ahead = 10_000.0

    monkeypatch.setattr(cli.solve, "_emit", late_emit)
    kind_flag = [] if kind == "sudoku" else ["--kind", kind]
    seed = [] if "exact" in method or "ilp" in method else ["--seed", "1"]
    args = [*kind_flag, *method, *seed, "--total-time", "600", "--output", "jsonl"]
    return invoke("solve", path, *args)


@pytest.mark.parametrize("kind, method", FINISHED_RUNS, ids=FINISHED_IDS)
def test_total_time_passing_after_the_last_answer_leaves_the_run_complete(
    tmp_path, monkeypatch, kind, method
):
    """A run whose every puzzle was answered, the total time passing while the last answer was
    written, reported 'stopped, --total-time spent' and exited 1: the solver looked at the clock
    once more after its last result. It exits 0 and says nothing of a stop."""
    result = run_with_late_clock(tmp_path, monkeypatch, kind, method, puzzles=1, late_after=1)
    (record,) = jsonl(result.stdout)
    assert record["status"] == "solved", record
    summary = result.stderr.splitlines()[-1]
    assert "stopped" not in summary and "spent" not in summary, summary
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("kind, method", FINISHED_RUNS, ids=FINISHED_IDS)
def test_total_time_passing_between_puzzles_reports_the_next_one_stopped(
    tmp_path, monkeypatch, kind, method
):
    """The total time passing as the first of three answers is written: the first stays
    solved, a puzzle read after it is reported stopped by the total time (the pool of
    `--method anneal` may have solved one it held beside the first), the run is not reported
    all solved, and the summary says the time was spent (exit code 1)."""
    result = run_with_late_clock(tmp_path, monkeypatch, kind, method, puzzles=3, late_after=1)
    records = jsonl(result.stdout)
    assert records[0]["status"] == "solved", records
    later = [r for r in records[1:] if r["status"] != "solved"]
    assert all(r["status"] == "interrupted" and "total time" in r["error"] for r in later)
    assert sum(r["status"] == "solved" for r in records) < 3
    if method != ["--method", "anneal"]:  # one puzzle at a time: the next one read is stopped
        assert [r["status"] for r in records] == ["solved", "interrupted"], records
    assert "--total-time 600 s spent" in result.stderr.splitlines()[-1]
    assert result.exit_code == 1, result.output


def test_api_total_time_and_threads():
    """The API takes total_time and threads as the command line does; a bad value is refused."""
    from cpu_reference.errors import InputError
    from gpu_anneal import api

    (result,) = api.solve([HARD], t0=1000.0, time_limit=60, total_time=0.5, threads=1, chains=2)
    assert result.status == "interrupted"
    with pytest.raises(InputError, match="threads"):
        api.solve([HARD], threads=0)


# --- item: readable answers -----------------------------------------------------------------


def grids_of(text: str) -> list[list[str]]:
    """The grid blocks of --output grid: the lines after each '#' header up to a blank line."""
    blocks, block = [], None
    for line in text.splitlines():
        if line.startswith("#"):
            block = []
            blocks.append(block)
        elif line.strip() and block is not None:
            block.append(line)
    return blocks


@pytest.mark.parametrize("order, example", [(3, None), (5, "made-25x25"), (6, "made-36x36")])
def test_output_grid_aligns_every_order_with_box_separators(tmp_path, order, example):
    """--output grid: N rows of N right-aligned numbers, ' | ' between boxes, a rule between
    bands, every line the same width, and the numbers a verified solution; the output read
    back as input (rows, its rules passed over) is every solution, `check` finding each
    valid."""
    source = ["--example", example] if example else [write(tmp_path / "p.txt", HARD)]
    result = invoke("solve", *source, "--method", "exact", "--output", "grid")
    assert result.exit_code == 0, result.output
    n, N = order, order * order
    for block in grids_of(result.stdout):
        assert len(block) == N + n - 1 and len({len(line) for line in block}) == 1
        rules = [line for line in block if set(line) <= set("-+")]
        assert len(rules) == n - 1 and rules[0].count("+") == n - 1
        rows = [line for line in block if line not in rules]
        assert all(line.count(" | ") == n - 1 for line in rows)
        digits = np.array([int(v) for line in rows for v in line.replace("|", " ").split()])
        assert digits.size == N * N and verify_solution(digits.astype(np.uint8), order) is None
    back = write(tmp_path / "back.txt", result.stdout)
    checked = invoke("check", back)
    assert checked.exit_code == 0, checked.output
    verdicts = [line for line in checked.stdout.splitlines() if line.startswith("index=")]
    assert len(verdicts) == len(grids_of(result.stdout)) >= 1
    assert all("kind=grid ok=True valid=True" in line for line in verdicts), verdicts


def test_output_defaults_to_grid_on_a_terminal_for_a_few_puzzles(monkeypatch, tmp_path):
    """No --output: grid when stdout is a terminal and the input holds few puzzles, else text."""
    from cli import solve

    few = write(tmp_path / "few.txt", HARD)
    many = write(tmp_path / "many.txt", *[HARD] * (solve.GRID_AT_MOST + 1))
    monkeypatch.setattr("sys.stdout.isatty", lambda: True, raising=False)
    assert solve.default_output([few], "sudoku", None) == "grid"
    assert solve.default_output([many], "sudoku", None) == "text"
    monkeypatch.setattr("sys.stdout.isatty", lambda: False, raising=False)
    assert solve.default_output([few], "sudoku", None) == "text"


@pytest.mark.parametrize("example, suffix", [("seed002", ".svg"), ("made-25x25", ".png")])
def test_render_draws_sudoku_of_every_order(tmp_path, example, suffix):
    """render draws a Sudoku file without --kind (it said `unknown cell`): its first puzzle's
    picture, the givens drawn as text."""
    source = tmp_path / f"in{Path(datasets.get(example).file).suffix}"
    lines = [line for line in datasets.text(example).splitlines() if not line.startswith("#")]
    source.write_text(lines[0] + "\n")
    picture = tmp_path / f"p{suffix}"
    result = invoke("render", str(source), str(picture))
    assert result.exit_code == 0, result.output
    assert result.stdout == f"wrote {picture}\n" and picture.stat().st_size > 1000
    if suffix == ".svg":
        assert picture.read_text().count('<g id="text_') >= 17  # at least a 9x9's givens


def test_render_solve_draws_a_sudoku_solution(tmp_path):
    """render --solve on a 9x9: the 81 digits, given and found, are drawn."""
    picture = tmp_path / "s.svg"
    result = invoke("render", write(tmp_path / "p.txt", HARD), str(picture), "--solve")
    assert result.exit_code == 0, result.output
    assert picture.read_text().count('<g id="text_') >= 81


@pytest.mark.parametrize(
    "name, order", [("made-25x25", 5), ("made-36x36", 6), ("made-49x49", 7), ("made-64x64", 8)]
)
def test_large_examples_ship_with_one_solution_each(tmp_path, name, order):
    """The 25x25 to 64x64 examples are listed, print as files solve reads, and each puzzle
    has exactly one solution (check counts to two)."""
    assert name in invoke("examples").stdout
    text = invoke("examples", name).stdout
    path = tmp_path / "x.tsv"
    path.write_text(text)
    puzzles = list(iter_puzzles(str(path)))
    assert len(puzzles) == datasets.get(name).count and {p.order for p in puzzles} == {order}
    result = invoke("check", str(path), "--output", "jsonl")
    assert result.exit_code == 0, result.output
    assert [r["solutions"] for r in jsonl(result.stdout)] == [1] * len(puzzles)


# --- item: threads, a whole run's time, generate's output as input, no solution at once -------

COMMANDS = [
    ["solve", "{file}"], ["check", "{file}"], ["render", "{file}", "{png}", "--solve"],
    ["generate"], ["generate", "--puzzles"], ["minimize", "--count", "1"],
    ["bench", "throughput"], ["bench", "tts", "{file}"], ["bench", "tune", "{file}"],
    ["bench", "exact", "{file}"],
]  # fmt: skip


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_every_computing_command_takes_threads(tmp_path, command):
    """--threads on every command that computes: a count numba cannot run is one line naming
    --threads, before any work."""
    file = write(tmp_path / "p.txt", HARD)
    args = [a.format(file=file, png=tmp_path / "x.png") for a in command]
    result = invoke(*args, "--threads", "0")
    assert result.exit_code == 2, result.output
    assert "--threads 0: must be an integer in 1.." in result.stderr
    assert not (tmp_path / "x.png").exists()


def test_threads_sets_the_threads_of_the_run(tmp_path):
    """--threads 1: the default chains on the cores follow one thread (backends.cpu_threads)."""
    from gpu_anneal.backends import cpu_threads

    path = write(tmp_path / "p.txt", HARD)
    one = invoke("solve", path, "--threads", "1", "--backend", "cpu", "--output", "jsonl")
    every = invoke("solve", path, "--backend", "cpu", "--output", "jsonl")
    assert one.exit_code == 0 and every.exit_code == 0, one.output + every.output
    chains_one = jsonl(one.stdout)[0]["params"]["chains"]
    chains_every = jsonl(every.stdout)[0]["params"]["chains"]
    assert chains_every == chains_one * cpu_threads()


@pytest.mark.parametrize("order", [2, 3])
def test_generated_puzzles_are_read_back_by_solve_and_check(tmp_path, order):
    """generate --puzzles's text output is input: solve reads each line as one puzzle named by
    its index, and check finds each has one solution, the one given."""
    generated = invoke("generate", "--order", str(order), "--puzzles", "--count", "2")
    assert generated.exit_code == 0, generated.output
    path = tmp_path / "g.txt"
    path.write_text(generated.stdout)
    puzzles = list(iter_puzzles(str(path)))
    assert len(puzzles) == 2 and all(p.order == order for p in puzzles)
    solved = invoke("solve", str(path), "--method", "exact", "--output", "jsonl")
    assert solved.exit_code == 0, solved.output
    records = sorted(jsonl(solved.stdout), key=lambda r: r["index"])
    assert [r["name"].split(",")[0] for r in records] == ["puzzle0", "puzzle1"]
    for record, line in zip(records, generated.stdout.splitlines(), strict=True):
        assert record["solution"] == line.split(":")[2].split()[0]
    checked = invoke("check", str(path), "--output", "jsonl")
    assert checked.exit_code == 0, checked.output
    assert all(r["ok"] for r in jsonl(checked.stdout))


@pytest.mark.parametrize("propagate", ["--propagate", "--no-propagate"])
def test_an_impossible_puzzle_is_reported_no_solution_at_once(tmp_path, propagate):
    """Deduction's contradiction, or without deduction the capped exact search after half a
    second, ends the puzzle `no_solution` long before its 60 s time limit; exit code 1."""
    path = write(tmp_path / "p.txt", IMPOSSIBLE)
    start = time.perf_counter()
    result = invoke("solve", path, propagate, "--time-limit", "60", "--output", "jsonl")
    elapsed = time.perf_counter() - start
    assert result.exit_code == 1, result.output
    (record,) = jsonl(result.stdout)
    assert elapsed - record["timing"]["compile"] < 20  # not the 60 s time limit
    assert record["status"] == "no_solution" and record["error"].startswith("no solution")
    assert record["solution"] is None
    assert "1 no solution" in result.stderr


def test_order_five_puzzles_default_to_backtracked_grids():
    """generate --order 5 fills its grids by backtracking unless --method is given (annealing
    fills no empty 25x25 grid within its time limit on a few cores)."""
    result = invoke("generate", "--order", "5", "--count", "1", "--output", "jsonl")
    assert result.exit_code == 0, result.output
    (record,) = jsonl(result.stdout)
    grid = parse_line(record["grid"])
    assert record["method"] == "backtrack" and verify_solution(grid, 5) is None


def test_order_eight_grids_default_to_the_impasse_chains():
    """generate --order 8 fills its grid by the impasse chains unless --method is given
    (backtracking took seconds to minutes a 64x64 grid: benchmarks/results/generation/
    large_grids.md), a tsv line that `check` passes."""
    result = invoke("generate", "--order", "8", "--count", "1", "--output", "jsonl")
    assert result.exit_code == 0, result.output
    (record,) = jsonl(result.stdout)
    grid = parse_line(record["grid"])
    assert record["method"] == "impasse" and verify_solution(grid, 8) is None


def test_completing_a_large_file_takes_the_files_order_for_its_method(tmp_path):
    """generate --from a 36x36 puzzle file, --order not given, completes it by backtracking
    as --order 6 would (annealing completed neither grid within 20 s), each grid keeping the
    puzzle's givens."""
    shown = invoke("examples", "made-36x36")
    assert shown.exit_code == 0, shown.output
    path = write(tmp_path / "p36.txt", shown.stdout)
    result = invoke("generate", "--from", path, "--count", "1", "--output", "jsonl")
    assert result.exit_code == 0, result.output
    records, puzzles = jsonl(result.stdout), list(iter_puzzles(path))
    assert len(records) == len(puzzles) == 2
    for record, puzzle in zip(records, puzzles, strict=True):
        grid = parse_line(record["grid"])
        assert record["method"] == "backtrack" and verify_solution(grid, 6, puzzle.cells) is None


@pytest.mark.parametrize("order", [5, 8])
@pytest.mark.parametrize("command", [["generate", "--puzzles"], ["minimize", "--tries", "1"]])
def test_slow_emptying_says_at_the_start_how_long_it_expects(monkeypatch, command, order):
    """generate --order 5 (to 8) --puzzles (minutes a grid) says first what it expects, from the
    least one try takes, the tries and the threads at work (one grid a thread: one grid keeps
    one thread busy whatever the machine has); the emptying itself is stubbed out here."""
    import numba

    from cli.generate import SLOW_EMPTYING_SECONDS
    from gpu_anneal import generation

    monkeypatch.setattr(generation, "generate_puzzles", lambda *a, **k: ([], {"grids_tried": 0}))
    monkeypatch.setattr(generation, "minimize_grids", lambda *a, **k: [])
    result = invoke(*command, "--order", str(order), "--count", "1")
    tries = 1 if "--tries" in command else 4
    minutes = SLOW_EMPTYING_SECONDS[order] * tries / 60
    first = result.stderr.splitlines()[0]
    N = order * order
    assert first.startswith(f"gpu-anneal: emptying {N}x{N} grids into minimal puzzles is slow")
    threads = numba.get_num_threads()
    assert first.endswith(f"--tries {tries}, one grid a thread, {min(threads, 1)} of {threads} "
                          f"thread(s) at work: expect {minutes:.0f} min or more")  # fmt: skip
    quick = invoke(command[0], *command[1:], "--order", "2", "--count", "1")
    assert "slow" not in quick.stderr  # 4x4: quick, nothing said
