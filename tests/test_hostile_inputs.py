"""Hostile inputs, one case each: every fault is read correctly or refused with one line naming
the file (and the line), exit code 2; no answer for a grid never given; no input file spoiled.

Cases (the issues "Nothing lost at the terminal" and "No answer for a grid never given"):
    game IDs then a text grid, "\\r" line ends, empty and repeated schedule keys, --out / --resume
    naming an input, rows with `+0` and inline comments, orders a format cannot serve, missing
    paths, binary files, .gz files, FIFOs and /dev/fd paths, text grids with a faulty row,
    resume files that are no results file (or no regular file), a record whose two solution
    forms disagree, API parameter types, and the "last record wins" reader.

Solving is kept tiny: 4x4 Sudoku by the exact method, small Shikaku and Hashiwokakero grids by
the integer program; most cases are checked at the reader, without solving.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import gpu_anneal
from benchmarks.frontier_instances import pattern_grid
from cli.main import app
from cli.tally import is_summary
from cpu_reference.errors import InputError, OptionError
from cpu_reference.sudoku.format_writer import format_grid
from cpu_reference.sudoku.formats import (
    FORMAT_ORDERS,
    FORMATS,
    iter_puzzles,
    read_puzzles,
)
from cpu_reference.sudoku.verify import verify_solution
from gpu_anneal import resume, validate
from gpu_anneal.inputs import Item, file_names, read

ROOT = Path(__file__).parent.parent
runner = CliRunner()

FOUR = ["1...........4...", "..3.4.........2."]  # solvable 4x4 puzzles, one a line
FOUR_GRID = "1234\n3412\n2143\n4.21"  # a 4x4 grid with one blank cell
GOOD9 = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
IDS = {"shikaku": ["5x4:3c2b9f6e", "2x1:2a"], "hashi": ["3x3m2:2a2c2a2", "3x1m2:1a1"]}
GRIDS = {"shikaku": "3.2\n..2\n2..", "hashi": "2.2\n...\n2.2"}  # a text grid of each kind
SHIKAKU7 = ["7 . . . . . ."] * 7  # 7x7: a clue of 7 heading each row (one row per rectangle)
HASHI7 = ["...1..2", ".......", ".......", "..4.4.5", ".......", "..2....", "......2"]
KINDS = ("sudoku", "shikaku", "hashi")
METHOD = {"sudoku": "exact", "shikaku": "ilp", "hashi": "ilp"}


def solve(*args, input: str | None = None):
    """`gpu-anneal solve ARGS` in-process (typer's CliRunner); the click Result."""
    return runner.invoke(app, ["solve", *[str(a) for a in args]], input=input)


def solve_kind(kind: str, *args):
    """`gpu-anneal solve` of a kind by its quick exact method, results as JSON lines."""
    return solve("--kind", kind, "--method", METHOD[kind], "--output", "jsonl", *args)


def records(text: str) -> list[dict]:
    """The JSON objects of JSON-lines text."""
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def errors(result, code: int = 2) -> list[str]:
    """Assert exit `code` and no traceback; the 'gpu-anneal:' lines of stderr."""
    assert result.exit_code == code, (result.exit_code, result.output)
    assert "Traceback" not in result.output and "internal error" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip() and not is_summary(line)]
    assert all(line.startswith("gpu-anneal: ") for line in lines), lines
    return [line.removeprefix("gpu-anneal: ") for line in lines]


def one_error(result, code: int = 2) -> str:
    """The one error line of a run that exits `code`."""
    lines = errors(result, code)
    assert len(lines) == 1, lines
    return lines[0]


def items(source, kind: str = "sudoku") -> list:
    """Everything the reader gives for one source: Items and InputErrors."""
    return list(read([source], kind))


def good_text(kind: str) -> str:
    """A file's worth of good puzzles of a kind (two lines)."""
    return "\n".join(FOUR if kind == "sudoku" else IDS[kind]) + "\n"


# ---- a. game IDs, then a text grid -------------------------------------------------------


@pytest.mark.parametrize("kind", ["shikaku", "hashi"])
def test_game_ids_then_a_text_grid_is_a_fault_per_line_never_a_puzzle(kind, tmp_path):
    """A file of game IDs whose line 2 on is a text grid: each grid line is one fault naming
    the file and line; only the game IDs are solved, each record is an ID of the file."""
    path = tmp_path / "mixed.txt"
    path.write_text(f"{IDS[kind][0]}\n{GRIDS[kind]}\n{IDS[kind][1]}\n")
    result = solve_kind(kind, path)
    faults = errors(result)
    assert faults == [
        f"{path} line {n}: not a game ID (WxH:description); this file holds game IDs from "
        "line 1, one per line (a text grid must be a file of its own)"
        for n in (2, 3, 4)
    ]
    got = records(result.stdout)
    assert sorted((r["line"], r["puzzle"]) for r in got) == [(1, IDS[kind][0]), (5, IDS[kind][1])]


# ---- b. "\r" line ends ------------------------------------------------------------------


@pytest.mark.parametrize(
    "kind, text",
    [
        ("sudoku", "\r".join(FOUR) + "\r"),  # line
        ("sudoku", FOUR_GRID.replace("\n", "\r") + "\r"),  # grid
        ("sudoku", format_grid(np.zeros(16, np.uint8), 2, "rows").replace("\n", "\r")),  # rows
        ("shikaku", "\r".join(IDS["shikaku"]) + "\r"),
        ("shikaku", GRIDS["shikaku"].replace("\n", "\r")),
        ("hashi", "\r".join(IDS["hashi"])),
        ("hashi", GRIDS["hashi"].replace("\n", "\r") + "\r"),
    ],
)
def test_cr_only_files_read_as_lines(kind, text, tmp_path):
    """Lines ended by "\\r" alone are lines: the same puzzles, at the same lines, as the file
    with "\\n" line ends."""
    cr, lf = tmp_path / "cr.txt", tmp_path / "lf.txt"
    cr.write_bytes(text.encode())
    lf.write_bytes(text.replace("\r", "\n").encode())
    got, want = items(str(cr), kind), items(str(lf), kind)
    assert all(isinstance(x, Item) for x in got) and len(got) == len(want) >= 1, got
    for a, b in zip(got, want, strict=True):
        assert (a.line, a.givens_text) == (b.line, b.givens_text)


# ---- c. schedules ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("text", ["", "  ", "geometric:t0=1,t0=2", "geometric:plateau=5,plateau=5"])
def test_empty_or_repeated_schedule_is_refused(kind, text, tmp_path):
    """An empty --schedule and a key given twice: one line naming the fault, exit 2, through
    the command line and the API alike."""
    path = tmp_path / "p.txt"
    path.write_text(good_text(kind))
    fault = one_error(solve("--kind", kind, path, "--schedule", text, "--time-limit", "1"))
    assert ("empty" in fault) if not text.strip() else ("given twice" in fault), fault
    with pytest.raises(OptionError, match="empty" if not text.strip() else "given twice"):
        gpu_anneal.solve(str(path), kind=kind, schedule=text, time_limit=1)


def test_a_preset_with_the_users_key_and_t0_over_a_t0_key_still_run():
    """A preset's own keys followed by the user's, and --t0 with a t0 key: the user's last
    word counts, as before (only a key repeated in the user's own string is refused)."""
    from cpu_reference.sudoku.schedules import by_name, with_start

    assert by_name("auto:t0=1", 3).t0 == 1.0
    assert with_start("geometric:t0=3,ratio=0.99", 3, 0.5).t0 == 0.5


# ---- d. --out and --resume naming an input ---------------------------------------------


@pytest.mark.parametrize("option", ["--out", "--resume"])
@pytest.mark.parametrize("alias", ["same", "dot", "symlink", "hardlink"])
def test_out_or_resume_naming_an_input_file_is_refused(option, alias, tmp_path):
    """--out / --resume naming an input file by any name: refused before anything is written,
    the input unchanged."""
    path = tmp_path / "p.txt"
    path.write_text(good_text("sudoku"))
    before = path.read_bytes()
    names = {"same": str(path), "dot": os.path.join(tmp_path, ".", "p.txt")}
    if alias == "symlink":
        os.symlink(path, tmp_path / "link.txt")
    if alias == "hardlink":
        os.link(path, tmp_path / "link.txt")
    name = names.get(alias, str(tmp_path / "link.txt"))
    other = tmp_path / "q.txt"
    other.write_text(FOUR[0] + "\n")
    fault = one_error(solve(other, path, "--method", "exact", option, name))
    assert fault.startswith(f"{option} {name}: is the input file {path}")
    assert path.read_bytes() == before


def test_out_naming_the_file_on_stdin_and_empty_names_are_refused(tmp_path):
    """`solve - --out FILE < FILE` and an empty --out / --resume: refused, nothing written."""
    path = tmp_path / "p.txt"
    path.write_text(good_text("sudoku"))
    with open(path, "rb") as stdin:
        run = subprocess.run(
            [sys.executable, "-m", "gpu_anneal", "solve", "-", "--method", "exact", "--out",
             str(path)], stdin=stdin, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    assert run.returncode == 2 and "is the input file stdin" in run.stderr, run.stderr
    assert path.read_text() == good_text("sudoku")
    for option in ("--out", "--resume"):
        assert one_error(solve(path, "--method", "exact", option, "")) == (
            f"{option} '': expected a file name"
        )


def test_api_resume_naming_the_input_is_refused(tmp_path):
    """gpu_anneal.solve(path, resume=path): InputError, the puzzles unchanged."""
    path = tmp_path / "p.txt"
    path.write_text(good_text("sudoku"))
    with pytest.raises(InputError, match="is the input file"):
        gpu_anneal.solve(str(path), method="exact", resume=str(path))
    assert path.read_text() == good_text("sudoku")


# ---- e. rows: a leading + and inline comments --------------------------------------------


def test_rows_with_plus_signs_and_inline_comments_are_read():
    """`+0` reads as int() reads it, a `# comment` after a row is dropped: the same cells as
    the plain rows; a negative number is still a fault of its puzzle."""
    plain = "1 0 0 0\n0 0 0 0\n0 0 4 0\n0 0 0 0\n"
    signed = "+1 +0 0 0   # first row\n0 0 0 0\n0 0 +4 0 # a comment\n0 0 0 +0\n"
    (want,), (got,) = read_puzzles(plain), read_puzzles(signed)
    assert got.fmt == "rows" and np.array_equal(got.cells, want.cells)
    (fault,) = read_puzzles(signed.replace("+4", "-4"), strict=False)
    assert isinstance(fault, InputError) and "'-4' is not a digit 0..4" in str(fault)


# ---- f. orders a format cannot serve --------------------------------------------------------


def test_36x36_in_a_symbol_format_is_refused_with_the_formats_that_serve_it():
    """36x36 in line (and grid) form: the error says the format serves up to 25x25 and names
    rows, csv, csv-line, tsv, solo and lloyd-amos; 49x49 and 64x64 rows are read, 81x81 rows
    say which orders are supported."""
    (fault,) = read_puzzles("." * 1296 + "\n", strict=False)
    assert str(fault) == (
        "<input> line 1: a 36x36 puzzle in the line format, which serves grids up to 25x25 "
        "(35 symbols: 1-9, A-Z); give 36x36 puzzles as rows, csv, csv-line, tsv, solo or "
        "lloyd-amos"
    )
    with pytest.raises(InputError, match="grid format, which serves grids up to 25x25"):
        read_puzzles("\n".join(["." * 36] * 36) + "\n")
    for side, order in ((49, 7), (64, 8)):
        rows = "\n".join([" ".join(["0"] * side)] * side) + "\n"
        (puzzle,) = read_puzzles(rows)
        assert (puzzle.order, puzzle.fmt, puzzle.givens) == (order, "rows", 0)
    rows = "\n".join([" ".join(["0"] * 81)] * 81) + "\n"
    with pytest.raises(InputError) as caught:
        read_puzzles(rows)
    assert "a 81x81 Sudoku (order 9) is not supported; orders 2..8 (4x4, 9x9, 16x16, 25x25, " \
        "36x36, 49x49, 64x64) are" in str(caught.value)  # fmt: skip


def test_36x36_in_line_form_then_a_9x9_the_9x9_is_still_solved(tmp_path):
    """The 36x36 line is refused at reading with file and line; the 9x9 after it is solved
    and written."""
    path = tmp_path / "p.txt"
    path.write_text("." * 1296 + "\n" + GOOD9 + "\n")
    result = solve(path, "--method", "exact", "--output", "jsonl")
    (fault,) = errors(result)
    assert fault.startswith(f"{path} line 1: a 36x36 puzzle in the line format")
    (record,) = records(result.stdout)
    assert record["line"] == 2 and record["solved"]


@pytest.mark.parametrize("order", [3, 7])
def test_a_puzzles_numbers_on_one_line_are_a_csv_line_puzzle_written_back_so(order, tmp_path):
    """A puzzle's N*N numbers on one line, comma-separated with a name after `#`, then
    semicolon-separated with a trailing `;`, then one number short, then a 9x9 line: the two
    solved and written back as one line each, separated as read, the short one a fault naming
    its count; with --format line such a line is a fault naming csv-line."""
    N = order * order
    grid = pattern_grid(order, np.random.default_rng(order))
    puzzle = np.where(np.random.default_rng(1).random((N, N)) < 0.3, 0, grid).ravel()
    numbers = ",".join(map(str, puzzle))
    path = tmp_path / "p.txt"
    lines = [f"{numbers}  # big, first", numbers.replace(",", ";") + ";", numbers[:-2], GOOD9]
    path.write_text("\n".join(lines) + "\n")
    result = solve(path, "--method", "exact", "--output", "jsonl")
    assert errors(result) == [
        f"{path} line 3: {N * N - 1} comma-separated numbers, expected {N * N} ({N}x{N}); a "
        "Sudoku has 16, 81, 256, 625, 1296, 2401, 4096 cells"
    ]
    got = records(result.stdout)
    assert [(r["line"], r["solved"]) for r in got] == [(1, True), (2, True), (4, True)]
    assert got[0]["name"] == "big, first"
    text = solve(path, "--method", "exact")
    written = [x for x in text.stdout.splitlines() if x and not x.startswith("#")]
    for line, sep in zip(written[:2], ",;", strict=True):
        assert len(line.split(sep)) == N * N, line
        solution = np.array([int(v) for v in line.split(sep)])
        assert verify_solution(solution, order, puzzle) is None
    (fault, *_) = errors(solve(path, "--format", "line", "--method", "exact"))
    assert fault == (
        f"{path} line 1: {N * N} comma-separated numbers on one line, where one symbol a cell "
        "was expected; read a puzzle of numbers a line as csv-line (--format csv-line)"
    )


def test_format_line_names_csv_line_for_quoted_numbers_and_empty_fields(tmp_path):
    """With --format line, a 9x9 puzzle's numbers on one line in the ways a spreadsheet writes
    them (blanks as empty fields, every field in double quotes, `;` between them) are each a
    fault naming csv-line, as plain numbers are."""
    puzzle = [int(c) for c in GOOD9.split()[0].replace(".", "0")]
    empty = ",".join(str(v) if v else "" for v in puzzle)
    quoted = ",".join(f'"{v}"' if v else '""' for v in puzzle)
    path = tmp_path / "p.txt"
    path.write_text("\n".join([empty, quoted, empty.replace(",", ";")]) + "\n")
    faults = errors(solve(path, "--format", "line", "--method", "exact"))
    hint = (
        "81 {} numbers on one line, where one symbol a cell was expected; read a puzzle of "
        "numbers a line as csv-line (--format csv-line)"
    )
    assert faults == [
        f"{path} line 1: " + hint.format("comma-separated"),
        f"{path} line 2: " + hint.format("comma-separated"),
        f"{path} line 3: " + hint.format("semicolon-separated"),
    ]
    result = solve(path, "--format", "csv-line", "--method", "exact", "--output", "jsonl")
    assert [r["solved"] for r in records(result.stdout)] == [True, True, True]


@pytest.mark.parametrize("trailing", ["", ","])
def test_a_64x64_grid_as_a_spreadsheet_saves_it_is_solved_and_written_back_as_csv(
    trailing, tmp_path
):
    """64 lines of 64 comma-separated numbers, blanks written as an empty field, 0 and -1, a
    trailing comma or none, then a 9x9 puzzle: both solved, the 64x64 written back as 64 csv
    lines equal to the grid it was cut from."""
    grid = pattern_grid(8, np.random.default_rng(8))
    text = grid.astype(str)
    text[0, :3] = ["", "0", "-1"]
    text[5, 7], text[63, 63] = "", "-1"
    path = tmp_path / "grid.csv"
    path.write_text("\n".join(",".join(row) + trailing for row in text) + f"\n{GOOD9}\n")
    result = solve(path, "--method", "exact")
    assert result.exit_code == 0, result.output
    lines = [x for x in result.stdout.splitlines() if x and not x.startswith("#")]
    assert len(lines) == 64 + 1
    written = np.array([[int(v) for v in x.split(",")] for x in lines[:64]])
    assert (written == grid).all()


@pytest.mark.parametrize("order", [3, 6])
def test_a_grid_saved_with_semicolons_quotes_a_bom_and_crlf_is_read_and_written_back(
    order, tmp_path
):
    """The ways spreadsheets save a grid: `;` between the numbers (where `,` is the decimal
    mark) with a trailing `;`, every field in double quotes (a blank `""`), a UTF-8 BOM and
    "\r\n" line ends; each file solved and its solution written back as N lines that solve
    the puzzle (its givens kept), separated as the file was: `;` for `;`, else `,`."""
    N = order * order
    grid = pattern_grid(order, np.random.default_rng(order))
    text = grid.astype(str)
    blank = np.random.default_rng(1).random((N, N)) < 0.3
    text[blank] = ""
    puzzle = np.where(blank, 0, grid)
    forms = {
        "semicolons": (["".join(f"{v};" for v in row) for row in text], ";"),
        "quoted": ([", ".join(f'"{v}"' for v in row) for row in text], ","),
    }
    for name, (lines, sep) in forms.items():
        path = tmp_path / f"{name}.csv"
        path.write_bytes(("\r\n".join(lines) + "\r\n").encode("utf-8-sig"))
        result = solve(path, "--method", "exact")
        assert result.exit_code == 0, (name, result.output)
        written = [x for x in result.stdout.splitlines() if x and not x.startswith("#")]
        assert all(len(x.split(sep)) == N for x in written), (name, written[0])
        solution = np.array([[int(v) for v in x.split(sep)] for x in written])
        assert verify_solution(solution.ravel(), order, puzzle.ravel()) is None, name


def test_a_csv_row_as_long_as_a_one_line_puzzle_is_a_row(tmp_path):
    """csv rows of 16 or 81 characters, a one-line puzzle's lengths (a 9x9 row of eight
    givens, a 49x49 row of 33 one-digit givens): rows of their grid, never a 4x4 or 9x9
    one-line puzzle; the 9x9 grid solved with its givens kept."""
    grid = pattern_grid(3, np.random.default_rng(3))
    puzzle = grid.copy()
    puzzle[np.arange(9), np.arange(9)] = 0  # one blank a row
    rows = [",".join(str(v) if v else "" for v in row) for row in puzzle]
    assert {len(row) for row in rows} == {16}
    path = tmp_path / "nine.csv"
    path.write_text("\n".join(rows) + "\n")
    result = solve(path, "--method", "exact")
    assert result.exit_code == 0, result.output
    written = [x for x in result.stdout.splitlines() if x and not x.startswith("#")]
    solution = np.array([[int(v) for v in x.split(",")] for x in written])
    assert verify_solution(solution.ravel(), 3, puzzle.ravel()) is None
    row49 = ",".join(["1"] * 33 + [""] * 16)
    assert len(row49) == 81
    (piece,) = iter_puzzles(io.StringIO("\n".join([row49] * 49)), check=False)
    assert (piece.fmt, piece.order, piece.givens) == ("csv", 7, 33 * 49)


def test_semicolon_faults_say_semicolon_separated(tmp_path):
    """A 49x49 grid saved with `;` with a short row, a line of three such numbers and a 9x9
    puzzle's 80 such numbers on one line: each fault names its line and `semicolon-separated`
    numbers, as commas' do, and the good 9x9 after them is solved."""
    rows = [";".join(row) for row in pattern_grid(7, np.random.default_rng(7)).astype(str)]
    rows[3] = rows[3].rsplit(";", 1)[0]
    path = tmp_path / "semi.csv"
    one_line = ";".join(["0"] * 79 + ["9"])
    path.write_text("\n".join(rows) + f"\n\n1;2;3\n{one_line}\n{GOOD9}\n")
    result = solve(path, "--method", "exact", "--output", "jsonl")
    assert errors(result) == [
        f"{path} line 4: 48 semicolon-separated numbers on a row, expected 49",
        f"{path} line 51: 3 semicolon-separated numbers on the first row; a Sudoku row has 4, "
        "9, 16, 25, 36, 49, 64 semicolon-separated numbers: orders 2..8 (4x4, 9x9, 16x16, "
        "25x25, 36x36, 49x49, 64x64) (or pass the order)",
        f"{path} line 52: 80 semicolon-separated numbers, expected 81 (9x9); a Sudoku has 16, "
        "81, 256, 625, 1296, 2401, 4096 cells",
    ]
    (record,) = records(result.stdout)
    assert record["line"] == 53 and record["solved"]


def test_a_one_line_puzzle_whose_name_holds_a_comma_is_no_csv_row():
    """A comma in a one-line puzzle's name (after `#` or after whitespace) leaves the line a
    puzzle with that name; a rows line's comment with commas leaves it a row."""
    rows = "\n".join(["1 0 0 0  # a, b", "0 0 0 0", "0 0 0 0", "0 0 0 2"])
    text = f"{GOOD9}  # hard, very\n{GOOD9} easy,ish\n{rows}\n"
    got = read_puzzles(text)
    assert [(p.fmt, p.name, p.line) for p in got] == [
        ("line", "hard, very", 1),
        ("line", "easy,ish", 2),
        ("rows", "", 3),
    ]


def test_csv_faults_name_their_line_and_cell(tmp_path):
    """A 49x49 csv grid with a 50, one with a row of 48 numbers, one of 48 rows, and a lone
    line of 16 numbers: one line each naming the line (and the cell), with or without
    --format csv."""
    grid = pattern_grid(7, np.random.default_rng(7)).astype(str)
    rows = [",".join(row) for row in grid]
    grid[2, 4] = "50"
    fifty, short_row = [",".join(row) for row in grid], list(rows)
    short_row[3] = short_row[3].rsplit(",", 1)[0]
    cases = {
        "fifty": (fifty, "line 3, cell r3c5: number '50' is not a digit 0..49 of a 49x49 grid"),
        "short_row": (short_row, "line 4: 48 comma-separated numbers on a row, expected 49"),
        "short_grid": (rows[:48], "line 1: puzzle ends after 48 rows, expected 49"),
    }
    for name, (lines, fault) in cases.items():
        path = tmp_path / f"{name}.csv"
        path.write_text("\n".join(lines) + "\n")
        for options in ((), ("--format", "csv")):
            result = solve(path, *options, "--method", "exact")
            assert errors(result) == [f"{path} {fault}"]
    lone = tmp_path / "lone.csv"
    lone.write_text(",".join(["0"] * 16) + "\n")
    (fault,) = errors(solve(lone, "--method", "exact"))
    assert fault.startswith(
        f"{lone} line 1: 16 comma-separated numbers on one line: a 16x16 grid's first row, where "
        "16 rows were expected; a 4x4 puzzle takes 4 rows of 4 numbers (csv, rows), or its 16 "
        "numbers as csv-line (--format csv-line)"
    )


def test_a_36x36_solution_is_never_an_unwritable_line():
    """A 36x36 array is written as rows; a hand-made Item asking for the line form is one
    InputError naming the puzzle and the formats that can write it."""
    grid = np.arange(1296, dtype=np.int64) % 36  # row r: digits from r * 36 % 36 = 0 on
    cells = (grid + 1).astype(np.uint8)  # holds the digit 36
    (item,) = items(np.zeros(1296, np.uint8))
    assert item.fmt == "rows" and item.text(cells).count("\n") == 35
    item.fmt = "line"
    with pytest.raises(InputError, match=r"^<api> puzzle 0: digit 36 has no one-line symbol"):
        item.text(cells)


def test_readme_format_table_says_which_orders_each_format_serves():
    """README's format table has an orders column that matches FORMAT_ORDERS."""
    text = (ROOT / "README.md").read_text().split("## Formats", 1)[1]
    table = next(block for block in text.split("\n\n") if block.startswith("|"))
    head, _, *rows = table.splitlines()
    assert "orders" in head
    served = {}
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        served[cells[0].strip("`")] = cells[1]
    assert sorted(served) == sorted(FORMATS)
    for fmt, orders in FORMAT_ORDERS.items():
        lo, hi = orders[0] ** 2, orders[-1] ** 2
        assert served[fmt] == f"{lo}x{lo} to {hi}x{hi}", (fmt, served[fmt])


# ---- g. paths that do not exist ------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_a_missing_path_is_no_such_file_never_puzzle_text(kind, tmp_path, monkeypatch):
    """`gpu-anneal solve easy` (no file `easy`): "easy: no such file", for every kind; the API
    still reads puzzle text."""
    monkeypatch.chdir(tmp_path)
    assert one_error(solve_kind(kind, "easy")) == "easy: no such file"
    assert one_error(solve_kind(kind, "2x1:2a")) == "2x1:2a: no such file"
    text = good_text(kind)
    results = gpu_anneal.solve(text, kind=kind, method=METHOD[kind])
    assert len(results) == 2 and all(r.solved for r in results)
    assert [type(x) for x in items(file_names(["easy"])[0], kind)] == [InputError]


# ---- h. binary files -------------------------------------------------------------------------

RANDOM = np.random.default_rng(7).integers(0, 256, 5000, dtype=np.uint8).tobytes()
ELF = b"\x7fELF\x02\x01\x01" + bytes(57) + RANDOM[:2000]
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + RANDOM[:3000]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("blob", [RANDOM, ELF, PNG], ids=["random", "elf", "png"])
def test_a_binary_file_is_one_line_and_the_other_files_are_read(kind, blob, tmp_path):
    """A binary file: exactly `FILE: binary data, not a puzzle file`, exit 2; the good file
    after it is still solved."""
    bad, good = tmp_path / "blob.bin", tmp_path / "good.txt"
    bad.write_bytes(blob)
    good.write_text(good_text(kind))
    result = solve_kind(kind, bad, good)
    assert errors(result) == [f"{bad}: binary data, not a puzzle file"]
    got = records(result.stdout)
    assert len(got) == 2 and all(r["solved"] and r["source"] == str(good) for r in got)


# ---- i. gzip ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_gz_files_are_read_transparently(kind, tmp_path):
    """A .gz file gives the same puzzles as the plain file (gzip data is known by its magic
    number, whatever the name); corrupt gzip data is one line."""
    plain, packed = tmp_path / "p.txt", tmp_path / "p.txt.gz"
    plain.write_text(good_text(kind))
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    want = [(x.line, x.givens_text) for x in items(str(plain), kind)]
    assert [(x.line, x.givens_text) for x in items(str(packed), kind)] == want
    result = solve_kind(kind, packed)
    assert result.exit_code == 0 and len(records(result.stdout)) == 2
    packed.write_bytes(gzip.compress(plain.read_bytes())[:-12])  # cut short
    (fault,) = [x for x in items(str(packed), kind) if isinstance(x, InputError)]
    assert str(fault).startswith(f"{packed}") and "gzip data" in str(fault)


# ---- j. FIFOs, /dev/fd paths, folders, /dev/null ---------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_fifos_and_dev_fd_paths_are_read_like_files(kind, tmp_path):
    """A FIFO and a /dev/fd/N path (what `<(cat file)` passes) are read as streams, for every
    kind: the puzzles of the data written into them."""
    fifo = tmp_path / "p.fifo"
    os.mkfifo(fifo)
    data = good_text(kind).encode()

    def feed():
        with open(fifo, "wb") as w:
            w.write(data)

    writer = threading.Thread(target=feed)
    writer.start()
    result = solve_kind(kind, fifo)
    writer.join(timeout=30)
    assert result.exit_code == 0, result.output
    assert len(records(result.stdout)) == 2
    r, w = os.pipe()
    os.write(w, data)
    os.close(w)
    try:
        got = items(file_names([f"/dev/fd/{r}"])[0], kind)
    finally:
        os.close(r)
    assert len(got) == 2 and all(isinstance(x, Item) for x in got), got


@pytest.mark.parametrize("kind", KINDS)
def test_a_folder_and_dev_null_say_what_they_are(kind, tmp_path):
    """A folder: "is a folder"; /dev/null: read as empty input; never "no such file"."""
    assert one_error(solve_kind(kind, tmp_path)) == f"{tmp_path}: is a folder; name a puzzle file"
    assert one_error(solve_kind(kind, "/dev/null")) == "/dev/null: empty input, no puzzle found"


# ---- 31.1 text grids with a faulty row -----------------------------------------------------


@pytest.mark.parametrize(
    "kind, rows, bad_row", [("shikaku", SHIKAKU7, 0), ("hashi", HASHI7, 3)]
)  # fmt: skip
def test_a_text_grid_with_a_faulty_row_is_refused_whole(kind, rows, bad_row, tmp_path):
    """A 7x7 text grid with a byte that is not UTF-8 in one row: one error naming the file and
    that line, no record (never the 7x6 grid left without the row). The grid without the byte
    is read as 7x7."""
    path = tmp_path / "grid.txt"
    path.write_text("\n".join(rows) + "\n")
    (item,) = items(str(path), kind)
    assert (item.puzzle.height, item.puzzle.width) == (7, 7)
    lines = [row.encode() for row in rows]
    lines[bad_row] += b" \xff"
    path.write_bytes(b"\n".join(lines) + b"\n")
    result = solve_kind(kind, path)
    fault = one_error(result)
    assert fault.startswith(f"{path} line {bad_row + 1}: not UTF-8 text")
    assert fault.endswith("a text grid with a faulty line is refused whole")
    assert records(result.stdout) == []


def test_a_text_grid_fault_names_the_files_line(tmp_path):
    """Row faults of a text grid name the file's own line (comments and blank lines counted)."""
    path = tmp_path / "grid.txt"
    path.write_text("# a comment\n\n3.2\n.x2\n2..\n")
    (fault,) = items(str(path), "shikaku")
    assert str(fault) == f"{path} line 4: unknown cell 'x'"


# ---- 31.3 resume files that are no results file --------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        FOUR[0].encode(),
        b"a note about the run",
        RANDOM.replace(b"\n", b"").replace(b"\r", b""),
        b'{"kind": "sudoku", "ind',
    ],
    ids=["puzzle", "note", "random", "torn-first"],
)
def test_resume_on_one_line_without_a_line_end_refuses_and_spoils_nothing(content, tmp_path):
    """--resume X where X is one line without its line end (a puzzle, a note, random bytes, a
    torn first record): not a results file, exit 2, X unchanged."""
    path, target = tmp_path / "p.txt", tmp_path / "x"
    path.write_text(FOUR[1] + "\n")
    target.write_bytes(content)
    fault = one_error(solve(path, "--method", "exact", "--resume", target))
    assert fault.startswith(f"--resume {target} line 1: not a JSON object")
    assert target.read_bytes() == content


def test_out_on_a_file_that_is_no_results_file_refuses_and_spoils_nothing(tmp_path):
    """--out X appended JSON lines to any file X: a puzzle file (which then read as faults) or
    notes. A file there already must start as a results file, as --resume's must; an empty one,
    a results file and a new name are taken."""
    path, notes = tmp_path / "p.txt", tmp_path / "notes.txt"
    path.write_text(FOUR[1] + "\n")
    notes.write_text("\n".join(FOUR) + "\n")
    before = notes.read_bytes()
    fault = one_error(solve(path, "--method", "exact", "--out", notes))
    assert fault == (f"--out {notes} line 1: not a JSON object; this is no results file (and "
                     "would be appended to)")  # fmt: skip
    assert notes.read_bytes() == before
    for name in ("new.jsonl", "empty.jsonl"):
        out = tmp_path / name
        if name == "empty.jsonl":
            out.write_text("")
        assert solve(path, "--method", "exact", "--out", out).exit_code == 0
        assert solve(path, "--method", "exact", "--out", out).exit_code == 0  # appended to
        assert len(out.read_text().splitlines()) == 2


def test_resume_reads_a_byte_order_mark_and_names_utf16(tmp_path):
    """A results file an editor saved with a byte-order mark was "not a JSON object; this is no
    results file"; UTF-16 said the same. The UTF-8 mark is read past; UTF-16 is named."""
    path, out = tmp_path / "p.txt", tmp_path / "r.jsonl"
    path.write_text(FOUR[1] + "\n")
    assert solve(path, "--method", "exact", "--out", out).exit_code == 0
    marked, wide = tmp_path / "bom.jsonl", tmp_path / "u16.jsonl"
    marked.write_bytes(b"\xef\xbb\xbf" + out.read_bytes())
    wide.write_bytes(out.read_text().encode("utf-16"))
    result = solve(path, "--method", "exact", "--resume", marked)
    assert result.exit_code == 0 and "1 solved puzzle(s) skipped" in result.stderr
    fault = one_error(solve(path, "--method", "exact", "--resume", wide))
    assert (
        fault
        == f"--resume {wide}: UTF-16 text (a byte-order mark); a results file is UTF-8 JSON lines"
    )


def test_resume_finds_a_puzzle_at_another_index_by_its_source_and_line(tmp_path):
    """A run over a.txt b.txt, then `--resume` over b.txt alone (or b.txt a.txt): each puzzle's
    index moved, and every one was solved again, the run saying its records were of another
    puzzle. A record naming the puzzle's source, line and givens holds it wherever its index
    was; one of another file with the same line and givens does not."""
    a, b, out = tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "r.jsonl"
    a.write_text(FOUR[0] + "\n")
    b.write_text(FOUR[1] + "\n" + FOUR[0] + "\n")
    assert solve(a, b, "--method", "exact", "--out", out).exit_code == 0
    for files in ([b], [b, a]):
        result = solve(*files, "--method", "exact", "--resume", out)
        assert result.exit_code == 0, result.stderr
        assert f"--resume {out}: {len(files) + 1} solved puzzle(s) skipped" in result.stderr
        assert "not trusted" not in result.stderr
    assert len(out.read_text().splitlines()) == 3  # nothing solved again
    copy = tmp_path / "c.txt"  # the same puzzles in another file: solved again
    copy.write_text(b.read_text())
    result = solve(copy, "--method", "exact", "--resume", out)
    assert result.exit_code == 0 and "0 solved puzzle(s) skipped" in result.stderr
    assert len(out.read_text().splitlines()) == 5


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/full"])
def test_resume_on_a_device_is_refused_before_reading(device, tmp_path):
    """--resume /dev/zero or /dev/full: not a regular file, exit 2 (nothing read from it)."""
    path = tmp_path / "p.txt"
    path.write_text(FOUR[1] + "\n")
    fault = one_error(solve(path, "--method", "exact", "--resume", device))
    assert fault == f"--resume {device}: not a regular file; name a results file"
    with pytest.raises(InputError, match="not a regular file"):
        validate.input_file(device, "--resume")


def test_resume_reads_a_line_at_a_time_within_a_cap(tmp_path, monkeypatch):
    """A results line over MAX_RECORD bytes is skipped (counted as not trusted), never held
    whole; the records around it still count."""
    path = tmp_path / "p.txt"
    path.write_text("\n".join(FOUR) + "\n")
    out = tmp_path / "r.jsonl"
    assert solve(path, "--method", "exact", "--out", out).exit_code == 0
    first, second = out.read_text().splitlines()
    monkeypatch.setattr(resume, "MAX_RECORD", 4 * max(len(first), len(second)))
    out.write_text(first + "\n" + "x" * (50 * resume.MAX_RECORD) + "\n" + second + "\n")
    done = resume.ResumeFile.load(out)
    assert done.untrusted == {resume.TOO_LONG: 1}
    assert sorted(done.solved) == [0, 1]


def test_resume_keeps_only_what_a_record_is_trusted_by(tmp_path):
    """ResumeFile kept every solved record whole (timing, parameters, counts: a 141 MB results
    file took 1.04 GB to resume). It keeps what _distrust and solution_holds read, and the
    records are trusted as before."""
    path = tmp_path / "p.txt"
    path.write_text("\n".join(FOUR) + "\n")
    out = tmp_path / "r.jsonl"
    assert solve(path, "--method", "exact", "--out", out).exit_code == 0
    lines = out.read_text().splitlines()
    padded = [json.dumps(json.loads(x) | {"junk": "x" * 100_000}) for x in lines]
    out.write_text("\n".join(padded) + "\n")
    done = resume.ResumeFile.load(out)
    kept = [json.loads(entry) for entries in done.solved.values() for _, entry in entries]
    assert kept and all(set(k) <= set(resume.KEPT_KEYS) for k in kept)
    assert sum(len(entry) for es in done.solved.values() for _, entry in es) < 10_000
    result = solve(path, "--method", "exact", "--resume", out)
    assert result.exit_code == 0 and f"{len(lines)} solved puzzle(s) skipped" in result.stderr


# ---- 31.4 both forms of a solution checked ----------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_a_record_whose_solution_text_is_wrong_is_not_trusted(kind, tmp_path):
    """A solved record with correct solution_rows and another `solution` text (or none): the
    puzzle is solved again; the record as written is trusted."""
    path = tmp_path / "p.txt"
    path.write_text(good_text(kind).splitlines()[0] + "\n")
    out = tmp_path / "r.jsonl"
    assert solve_kind(kind, path, "--out", out).exit_code == 0
    (record,) = records(out.read_text())
    (item,) = items(str(path), kind)
    assert resume.solution_holds(item, record)
    for wrong in ("x" + record["solution"][1:], None, record["solution"] + "\n"):
        assert not resume.solution_holds(item, {**record, "solution": wrong})
    out.write_text(json.dumps({**record, "solution": "x" + record["solution"][1:]}) + "\n")
    result = solve_kind(kind, path, "--resume", out)
    assert result.exit_code == 0 and "1 whose solution fails the verifier" in result.stderr
    assert [r["solved"] for r in records(out.read_text())] == [True, True]


# ---- 31.7 API parameter types -----------------------------------------------------------------


@pytest.mark.parametrize("value", ["no", 2, 1.0])
def test_propagate_must_be_a_bool(value):
    """propagate='no', 2 or 1.0: InputError naming propagate, before anything runs (None is
    "not given": the technique's)."""
    with pytest.raises(InputError, match=r"^propagate .*: must be True or False$"):
        gpu_anneal.solve(FOUR[0], propagate=value)


@pytest.mark.parametrize("kind", ["shikaku", "hashi"])
def test_a_numpy_array_for_a_grid_kind_is_a_clear_input_error(kind):
    """solve(np.zeros(81), kind=shikaku|hashi): InputError saying arrays are Sudoku input."""
    with pytest.raises(InputError, match="a NumPy array is Sudoku input"):
        gpu_anneal.solve(np.zeros(81, np.uint8), kind=kind, method="ilp")


# ---- issue 27 item 5: the last record of a puzzle wins -------------------------------------


def test_read_results_keeps_the_last_record_of_each_puzzle(tmp_path):
    """An `interrupted` record and then the resumed run's record of the same puzzle: the reader
    gives the later one, in the earlier one's place; other puzzles stay as they are."""
    path = tmp_path / "p.txt"
    path.write_text("\n".join(FOUR) + "\n")
    out = tmp_path / "r.jsonl"
    assert solve(path, "--method", "exact", "--out", out).exit_code == 0
    first, second = sorted(records(out.read_text()), key=lambda r: r["index"])
    stopped = {**first, "status": "interrupted", "solved": False, "verified": False,
               "solution": None, "solution_rows": None}  # fmt: skip
    out.write_text("".join(json.dumps(r) + "\n" for r in (stopped, second, first)) + '{"torn')
    with pytest.warns(resume.ResumeWarning, match="torn last line"):
        got = resume.read_results(out)
    assert got == [first, second]
    grid = np.array(got[0]["solution_rows"], np.uint8).ravel()
    assert verify_solution(grid, 2) is None
