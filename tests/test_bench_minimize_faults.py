"""Faulty puzzles and grids in `bench tts`, `bench tune`, `bench exact` and `minimize FILE`: each
fault is one 'gpu-anneal:' line naming its file and line, the good ones are still measured or
emptied, the exit code is 2 at the end; a file with nothing usable ends with one closing line
and prints nothing on stdout. In-process through typer's CliRunner, on 4x4 Sudoku."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from cli.main import app
from gpu_anneal.inputs import read_grids
from gpu_anneal.reference import InputError

runner = CliRunner()
FOUR = "1...........4..."  # a solvable 4x4 puzzle
GRIDS = ["1243431224313124", "2134342142131342"]  # valid 4x4 full grids
BLANKED = GRIDS[0][:5] + "0" + GRIDS[0][6:]  # the first one, r2c2 blank
BENCH = {
    "tts": ["--runs", "1", "--time-limit", "5"],
    "tune": ["--chains", "2", "--runs", "1", "--time-limit", "5"],
    "exact": ["--repeats", "1"],
}


def invoke(*args):
    """`gpu-anneal ARGS` in-process; the click Result."""
    return runner.invoke(app, [str(a) for a in args])


def messages(result) -> list[str]:
    """stderr's lines, each asserted to be a 'gpu-anneal:' line (no traceback); without the
    prefix."""
    assert "Traceback" not in result.output and "internal error" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert all(line.startswith("gpu-anneal: ") for line in lines), lines
    return [line.removeprefix("gpu-anneal: ") for line in lines]


@pytest.fixture
def short_la(tmp_path):
    """A Lloyd & Amos file (order 3, one puzzle) one row short: its one puzzle is a fault."""
    path = tmp_path / "bad.la"
    path.write_text("3\n1\n" + ("\t".join(["-1"] * 9) + "\n") * 8)
    return path


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_bench_tts_with_no_usable_puzzle_prints_nothing_on_stdout(short_la, json_flag):
    """bench tts on a file whose only puzzle is a fault printed `{}` (an empty summary) on
    stdout beside the error, and with --json a whole report of no puzzles. Now stdout stays
    empty in both modes, as for `bench exact` and `bench tune` (--json too): nothing was run,
    so there is no report; stderr names the fault, then '{file}: no usable puzzle', exit 2."""
    result = invoke("bench", "tts", short_la, *BENCH["tts"], *json_flag)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = messages(result)
    assert len(lines) == 2 and lines[0].startswith(f"{short_la} line ")
    assert "puzzle ends after 8 rows, expected 9" in lines[0]
    assert lines[1] == f"{short_la}: no usable puzzle"


@pytest.mark.parametrize("command", ["tts", "tune", "exact"])
def test_every_bench_command_says_why_no_puzzle_is_usable(short_la, command):
    """bench tune said only '{file}: no usable puzzle', never why (tts and exact named each
    fault first): the three now give the same lines, the fault, then the closing line."""
    result = invoke("bench", command, short_la, *BENCH[command])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = messages(result)
    assert len(lines) == 2 and "puzzle ends after 8 rows, expected 9" in lines[0]
    assert lines[1] == f"{short_la}: no usable puzzle"


def test_bench_tune_reports_a_faulty_puzzle_and_tunes_on_the_rest(tmp_path):
    """bench tune passed over a faulty puzzle in silence (exit 0): it is one line naming its
    line now, the good puzzle still tuned and the table printed, exit 2 (as tts and exact)."""
    path = tmp_path / "p.txt"
    path.write_text(f"11..............\n{FOUR}\n")
    result = invoke("bench", "tune", path, *BENCH["tune"])
    assert result.exit_code == 2, result.output
    lines = messages(result)
    assert len(lines) == 1 and lines[0].startswith(f"{path} line 1: digit 1 given twice")
    table = json.loads(result.stdout)
    assert table["best"] is not None and len(table["table"][0]["per_puzzle"]) == 1


@pytest.fixture
def grids(tmp_path):
    """A file of two 4x4 grids, the first with a blank cell (not a full grid)."""
    path = tmp_path / "g.txt"
    path.write_text(f"{BLANKED}\n{GRIDS[1]}\n")
    return path


def test_minimize_reports_a_bad_grid_and_empties_the_rest(grids):
    """minimize stopped the whole file at its first bad grid ('line 1: not a valid full grid',
    exit 2): the valid grid of line 2 was never emptied. Each bad grid is one line now, the good
    ones are emptied, a closing line counts both, exit 2 at the end."""
    result = invoke("minimize", grids, "--tries", "1")
    assert result.exit_code == 2, result.output
    lines = messages(result)
    assert lines[0] == f"{grids}, line 1: not a valid full grid: cell r2c2 is blank"
    assert lines[1].startswith("1 minimized, 1 bad in ") and len(lines) == 2
    (puzzle,) = result.stdout.splitlines()
    assert puzzle.split(":")[2].split()[0] == GRIDS[1] and "# puzzle0, " in puzzle


def test_minimize_jsonl_indexes_the_good_grids_in_input_order(tmp_path):
    """--output jsonl with a bad grid between two good ones: a record for each good grid, its
    `index` counting the good grids only in input order (as `solve` counts puzzles: a bad one,
    reported on stderr, is not counted), its solution the grid of its line (before: no record,
    the run stopped at the bad grid)."""
    path = tmp_path / "g.txt"
    path.write_text(f"{GRIDS[0]}\n{BLANKED}\n{GRIDS[1]}\n")
    result = invoke("minimize", path, "--tries", "1", "--output", "jsonl")
    assert result.exit_code == 2, result.output
    assert messages(result)[0] == f"{path}, line 2: not a valid full grid: cell r2c2 is blank"
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["index"], r["solution"]) for r in records] == [(0, GRIDS[0]), (1, GRIDS[1])]


def test_minimize_a_grid_of_another_order_is_one_bad_grid(tmp_path):
    """A 9x9 grid in a file of 4x4 grids stopped the run ('a 9x9 grid, order 2 is 4x4'): it is
    one bad grid now, the 4x4 grids around it emptied."""
    nine = "123456789456789123789123456234567891567891234891234567345678912678912345912345678"
    path = tmp_path / "g.txt"
    path.write_text(f"{GRIDS[0]}\n{nine}\n{GRIDS[1]}\n")
    result = invoke("minimize", path, "--tries", "1")
    assert result.exit_code == 2, result.output
    assert messages(result)[0] == f"{path}, line 2: a 9x9 grid, order 2 is 4x4"
    assert len(result.stdout.splitlines()) == 2


def test_minimize_a_file_of_bad_grids_names_each_then_one_closing_line(tmp_path):
    """Every grid bad: only the first was named before. Each is named now, then one line
    saying no grid was usable; nothing on stdout, exit 2."""
    path = tmp_path / "g.txt"
    path.write_text(f"{BLANKED}\n{GRIDS[1][:15]}\n")
    result = invoke("minimize", path)
    assert result.exit_code == 2 and result.stdout == ""
    lines = messages(result)
    assert lines[0] == f"{path}, line 1: not a valid full grid: cell r2c2 is blank"
    assert lines[1].startswith(f"{path} line 2: 15 cells")
    assert lines[2:] == [f"{path}: no usable grid"]


def test_minimize_good_grids_only_exit_0_and_say_nothing(tmp_path):
    """Control: a file of good grids is emptied whole, exit 0, no closing line (as before)."""
    path = tmp_path / "g.txt"
    path.write_text("\n".join(GRIDS) + "\n")
    result = invoke("minimize", path, "--tries", "1")
    assert result.exit_code == 0, result.output
    assert messages(result) == [] and len(result.stdout.splitlines()) == 2


def test_read_grids_without_on_fault_still_raises_the_first_fault(tmp_path):
    """read_grids (used by generate --from) keeps raising the first fault unless on_fault is
    given; with it, the faults are handed over and the good grids returned."""
    path = tmp_path / "g.txt"
    path.write_text(f"{BLANKED}\n{GRIDS[1]}\n")
    with pytest.raises(InputError, match="line 1: not a valid full grid"):
        read_grids(str(path), None, full=True)
    seen = []
    rows, order = read_grids(str(path), None, full=True, on_fault=seen.append)
    assert order == 2 and rows.shape == (1, 16) and len(seen) == 1
