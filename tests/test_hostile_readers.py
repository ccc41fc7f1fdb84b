"""Hostile inputs at the readers, one case each: lines end at a line end only, each puzzle is
read on its own terms, the API reads a file object as a file and names a wrong argument, arrays
and lists in the shapes people have, UTF-16 / UTF-32 text, numbers of any length.

What every case asserts: no answer (no Item) for a grid never given; a fault is one InputError
line naming the source and the line (or the argument); the puzzles around a fault are still
read, at their own lines. Solving is kept tiny (4x4 and 9x9 Sudoku by the exact method, small
Shikaku and Hashiwokakero grids by the integer program); most cases are checked at the reader.
"""

from __future__ import annotations

import codecs
import io
import json

import numpy as np
import pytest
from typer.testing import CliRunner

import gpu_anneal
from cli.main import app
from cli.tally import is_summary
from cpu_reference.errors import InputError, OptionError
from cpu_reference.sudoku.format_writer import format_grid
from cpu_reference.sudoku.formats import Puzzle, parse_line, read_puzzles
from cpu_reference.sudoku.verify import verify_solution
from gpu_anneal.api import parse_grid_puzzle
from gpu_anneal.inputs import Item, read

runner = CliRunner()

GOOD9 = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
GOOD9B = "52...6.........7.13...........4..8..6......5...........418.........3..2...87....."
FOUR = ["1...........4...", "..3.4.........2."]  # solvable 4x4 puzzles, one a line
FOUR_GRID = "1234\n3412\n2143\n4.21"  # a 4x4 grid with one blank cell
G16 = "1234" + "." * 12 + "\n" + ("." * 16 + "\n") * 15  # one 16x16 grid, digits 1-4 only
# Line ends that str.splitlines takes and a file does not: each is a fault of its line.
SPLITLINES_ONLY = ["\f", "\v", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
BIG = "9" * 4400  # more digits than int() converts (4300), a line within MAX_LINE


def rows_text(line: str) -> str:
    """A one-line 9x9 puzzle as rows (0 blank)."""
    return format_grid(parse_line(line), 3, "rows")


def cli(*args):
    """`gpu-anneal ARGS` in-process; (exit code, JSON records, error lines)."""
    result = runner.invoke(app, [str(a) for a in args])
    assert "Traceback" not in result.output and "internal error" not in result.stderr
    records = [json.loads(x) for x in result.stdout.splitlines() if x.startswith("{")]
    faults = [
        x.removeprefix("gpu-anneal: ")
        for x in result.stderr.splitlines()
        if x.strip() and not is_summary(x)
    ]  # the run's closing summary line is no fault
    return result.exit_code, records, faults


def items(source, kind: str = "sudoku", **kw) -> list:
    """Everything the reader gives for one source: Items and InputErrors."""
    return list(read([source], kind, **kw))


def summary(got: list) -> list:
    """(line, size) of each Item, the message of each InputError."""
    return [(x.line, x.size) if isinstance(x, Item) else str(x) for x in got]


# ---- 1. lines are lines ------------------------------------------------------------------


@pytest.mark.parametrize(
    "kind, text, column",
    [("shikaku", "4\f.\n.\n.\n", 2), ("hashi", "2.2\f...\n2.2\n", 4)],
)
def test_a_form_feed_in_a_text_grid_is_a_fault_never_a_grid_of_other_lines(kind, text, column,
                                                                            tmp_path):  # fmt: skip
    """The issue's two files: `4\\f.` and `2.2\\f...` are not read as two lines (a 1x4 Shikaku,
    a 3x3 Hashi); line 1 is a fault naming U+000C and its column, nothing is solved."""
    path = tmp_path / "g.txt"
    path.write_bytes(text.encode())
    code, records, faults = cli("solve", path, "--kind", kind, "--method", "ilp",
                                "--output", "jsonl")  # fmt: skip
    assert code == 2 and records == []
    assert faults == [f"{path} line 1: control character U+000C at column {column}; not puzzle "
                      "text; a text grid with a faulty line is refused whole"]  # fmt: skip


@pytest.mark.parametrize("char", SPLITLINES_ONLY)
@pytest.mark.parametrize("kind", ["shikaku", "hashi"])
def test_splitlines_line_ends_inside_a_grid_row_fault_that_line(kind, char, tmp_path):
    """Every character str.splitlines takes for a line end, inside row 2 of a 3x3 text grid:
    a fault of line 2 naming its code point and column (never a grid with an extra row, never
    a fault at a later line); the API's text reader says the same."""
    grid = {"shikaku": ["3.2", "..2", "2.."], "hashi": ["2.2", "...", "2.2"]}[kind]
    rows = [grid[0], grid[1][:1] + char + grid[1][1:], grid[2]]
    path = tmp_path / "g.txt"
    path.write_bytes("\n".join(rows).encode() + b"\n")
    (fault,) = items(str(path), kind)
    assert isinstance(fault, InputError)
    assert str(fault).startswith(f"{path} line 2: ") and f"U+{ord(char):04X} at column 2" in str(
        fault
    )
    with pytest.raises(InputError, match=rf"^where line 2: .* U\+{ord(char):04X} at column 2"):
        parse_grid_puzzle(kind, "\n".join(rows), "where")


def test_a_separator_in_the_first_row_is_named_at_that_line_not_later(tmp_path):
    """U+2028 ending a Shikaku row: the fault is at line 1 (it used to split the row in two and
    name line 4 for a fault of line 3)."""
    path = tmp_path / "g.txt"
    path.write_text("3.2\u2028\n..2\n2.x\n")
    (fault,) = items(str(path), "shikaku")
    assert str(fault).startswith(f"{path} line 1: separator character U+2028 at column 4")


@pytest.mark.parametrize("char", SPLITLINES_ONLY + ["\x1b", "\x7f", "\x00"])
def test_a_control_character_in_a_sudoku_line_faults_that_line_alone(char, tmp_path):
    """A control or separator character inside a one-line 9x9 puzzle: that line is one fault
    naming the code point (or NUL) and column; the puzzle after it is read at line 2."""
    path = tmp_path / "p.txt"
    path.write_bytes((GOOD9[:40] + char + GOOD9[40:] + "\n" + GOOD9B + "\n").encode())
    fault, item = items(str(path))
    name = "NUL byte" if char == "\x00" else f"U+{ord(char):04X}"
    assert str(fault).startswith(f"{path} line 1: ") and f"{name} at column 41" in str(fault)
    assert isinstance(item, Item) and item.line == 2 and item.givens_text == GOOD9B
    with pytest.raises(InputError, match="at column 41"):
        parse_line(GOOD9[:40] + char + GOOD9[40:])


def test_split_lines_ends_lines_at_line_feeds_and_carriage_returns_only():
    """The text splitter: \\n, \\r\\n and \\r end a line; what str.splitlines adds does not."""
    from cpu_reference.sources import split_lines

    text = "a" + "b".join(SPLITLINES_ONLY) + "\r\nc\rd\n\ne"
    assert split_lines(text) == ["a" + "b".join(SPLITLINES_ONLY), "c", "d", "", "e"]
    assert split_lines("") == [] and split_lines("x\n") == ["x"]


# ---- 2. each puzzle read on its own terms ------------------------------------------------


def test_sixteen_rows_of_sixteen_are_one_16x16_grid_never_sixteen_4x4(tmp_path):
    """The issue's g16.txt: one 16x16 grid at line 1 (it was sixteen 4x4 puzzles); --format line
    still reads sixteen 4x4 puzzles, --format grid one grid."""
    path = tmp_path / "g16.txt"
    path.write_text(G16)
    assert summary(items(str(path))) == [(1, "16x16")]
    assert summary(items(str(path), fmt="grid")) == [(1, "16x16")]
    assert summary(items(str(path), fmt="line")) == [(L, "4x4") for L in range(1, 17)]


def test_sixteen_4x4_puzzles_that_make_no_16x16_grid_stay_4x4(tmp_path):
    """Exactly 16 lines of 4x4 puzzles whose rows repeat a digit as a 16x16 grid: sixteen 4x4
    puzzles (each line reads as one, the grid does not)."""
    path = tmp_path / "four.txt"
    path.write_text("\n".join(FOUR * 8) + "\n")
    assert summary(items(str(path))) == [(L, "4x4") for L in range(1, 17)]


def test_sixteen_lines_that_read_neither_way_ask_for_a_format(tmp_path):
    """16 lines of symbols 1-4 that are neither a sound 16x16 grid nor sixteen sound 4x4
    puzzles (a digit twice in line 1): one fault for lines 1-16 asking for --format."""
    path = tmp_path / "g16.txt"
    path.write_text("1231" + G16[4:])
    (fault,) = items(str(path))
    assert str(fault).startswith(f"{path} lines 1-16: 16 lines of 16 symbols read neither as one "
                                 "16x16 grid")  # fmt: skip
    assert str(fault).endswith("pass --format grid or --format line")


def test_a_16_symbol_line_with_high_digits_then_a_9x9_line(tmp_path):
    """A 16-character line holding digits above 4 followed by a 9x9 line: the first is one
    fault (no 4x4, and no 16x16 of one row); the 9x9 is still read (it used to be taken as the
    16x16's second row, the whole file one fault)."""
    path = tmp_path / "p.txt"
    path.write_text("1234567812345678\n" + GOOD9 + "\n")
    fault, item = items(str(path))
    assert str(fault) == (f"{path} line 1: 1 row of 16 symbols holding digits above 4: no 4x4 "
                          "puzzle, and a 16x16 grid needs 16 rows")  # fmt: skip
    assert (item.line, item.size, item.givens_text) == (2, "9x9", GOOD9)


def test_two_16_symbol_lines_are_two_4x4_puzzles(tmp_path):
    """Two 4x4 lines are two puzzles, never the first rows of a 16x16."""
    path = tmp_path / "p.txt"
    path.write_text("\n".join(FOUR) + "\n")
    assert summary(items(str(path))) == [(1, "4x4"), (2, "4x4")]


def test_a_6x6_rows_grid_then_a_9x9_rows_grid_reports_the_9x9(tmp_path):
    """Rows of 6 numbers then a 9x9 rows grid, no blank line: one fault for lines 1-6, the 9x9
    read at line 7 (the whole file was refused)."""
    path = tmp_path / "r.txt"
    path.write_text("\n".join(["0 0 0 0 0 0"] * 6) + "\n" + rows_text(GOOD9) + "\n")
    fault, item = items(str(path))
    assert str(fault).startswith(f"{path} lines 1-6: 6 rows of 6 numbers; a Sudoku row has 4, 9")
    assert (item.line, item.givens_text) == (7, rows_text(GOOD9))


@pytest.mark.parametrize(
    "head, fault",
    [
        ("-1 " + rows_text(GOOD9)[2:], "line 1, cell r1c1: number '-1' is not a digit 0..9"),
        ("1.0 " + rows_text(GOOD9)[2:], "line 1, cell r1c1: number '1.0' is not a digit 0..9"),
        ("." * 25 + "\n" + GOOD9, "line 1: puzzle ends after 1 rows, expected 25"),
        (".....\n" * 4 + ".....", "lines 1-5: 5 rows of 5 symbols; a Sudoku row has 4, 9, 16, 25"),
        ("3j:abc", "line 1: '3j:' is a Solo jigsaw game ID; only Sudoku of n x n boxes"),
        (
            "15x15m2:o4d3x6",
            "line 1: Solo order 15 is outside 2..8 (a Shikaku or Hashi game ID? "
            "solve and render read those with --kind)",
        ),
    ],
    ids=[
        "rows-minus-one",
        "rows-one-point-zero",
        "25-characters",
        "5x5-grid",
        "solo-jigsaw",
        "hashi-id",
    ],
)
def test_the_first_puzzles_format_does_not_turn_later_puzzles_into_faults(head, fault, tmp_path):
    """A faulty first puzzle (rows starting `-1` or `1.0`, a 25-character line, a 5x5 grid, a
    `3j:` Solo ID): one fault of its own; every good puzzle after it (rows, line, solo, tdoku)
    is read in its own format at its own line (they all became misleading faults)."""
    later = [rows_text(GOOD9), GOOD9B, format_grid(parse_line(GOOD9), 3, "solo"), GOOD9 + ":1:"]
    path = tmp_path / "p.txt"
    path.write_text(head + "\n\n" + "\n\n".join(later) + "\n")
    got = items(str(path))
    assert str(got[0]).startswith(f"{path} {fault}"), got[0]
    good = [x for x in got[1:] if isinstance(x, Item)]
    assert len(good) == len(got) - 1 >= 4
    assert [x.fmt for x in good[-4:]] == ["rows", "line", "solo", "tdoku"]
    assert [x.givens_text for x in good[-4:]] == [later[0], GOOD9B, later[2], GOOD9]


def test_every_format_in_one_file_each_read_on_its_own_terms():
    """line, tdoku, tsv, solo, grid and rows puzzles of orders 2 and 3 in one file (grids
    consecutive, no blank line): each read in its format, at its line, with its cells."""
    cells9, cells4 = parse_line(GOOD9), parse_line(FOUR[0])
    parts = []
    for fmt in ("grid", "line", "rows", "tdoku", "grid", "tsv", "solo", "rows", "grid"):
        for cells, n in ((cells4, 2), (cells9, 3)):
            extra = {"count": 1} if fmt == "tdoku" else {}
            parts.append((fmt, cells, format_grid(cells, n, fmt, name="a", **extra)))
    text = "\n".join(p[2] for p in parts) + "\n"
    got = read_puzzles(text)
    assert [p.fmt for p in got] == [p[0] for p in parts]
    assert all(np.array_equal(p.cells, want[1]) for p, want in zip(got, parts, strict=True))
    lines = np.cumsum([1] + [p[2].count("\n") + 1 for p in parts])[:-1]
    assert [p.line for p in got] == lines.tolist()


def test_a_faulty_first_row_keeps_consecutive_grids_aligned():
    """Two consecutive 9x9 grids, the first one's first row of 8 symbols: one fault (line 1),
    the second grid read whole at line 10 (never a grid of rows 2-9 and the next grid's row 1).
    A line that is no text in its place does the same."""
    a = format_grid(parse_line(GOOD9), 3, "grid").split("\n")
    b = format_grid(parse_line(GOOD9B), 3, "grid")
    for first in (a[0][:8], "\x00" * 9):
        got = read_puzzles("\n".join([first, *a[1:], b]) + "\n", strict=False)
        assert [type(x) for x in got] == [InputError, Puzzle], got
        assert str(got[0]).startswith("<input> line 1: ")
        assert got[1].line == 10 and np.array_equal(got[1].cells, parse_line(GOOD9B))


def test_a_binary_line_between_two_puzzles_costs_that_line(tmp_path):
    """One line of 81 NUL bytes between two good 9x9 lines: both solved, that line one fault
    (the whole file was refused as binary data)."""
    path = tmp_path / "nul.txt"
    path.write_bytes(GOOD9.encode() + b"\n" + b"\x00" * 81 + b"\n" + GOOD9B.encode() + b"\n")
    code, records, faults = cli("solve", path, "--method", "exact", "--output", "jsonl")
    assert code == 2 and faults == [f"{path} line 2: NUL byte at column 1; not puzzle text"]
    assert sorted((r["line"], r["solved"]) for r in records) == [(1, True), (3, True)]


# ---- 3. the API reads a file object as a file; wrong arguments named -----------------------


def test_an_open_file_is_one_source_read_as_a_file(tmp_path):
    """A Hashi text grid from an open file is one puzzle; a Sudoku grid file gives its results
    (text or binary mode), at the file's lines and under its name."""
    hashi = tmp_path / "h.txt"
    hashi.write_text("2.2\n...\n2.2\n")
    with open(hashi) as f:
        (result,) = gpu_anneal.solve(f, kind="hashi", method="ilp")
    assert (result.solved, result.line, result.size, result.source) == (True, 1, "3x3", str(hashi))
    grids = tmp_path / "g.txt"
    grids.write_text(FOUR_GRID + "\n\n" + FOUR_GRID.replace("4.21", "4.2.") + "\n")
    for mode in ("r", "rb"):
        with open(grids, mode) as f:
            results = gpu_anneal.solve(f, method="exact")
        assert [(r.line, r.solved, r.source) for r in results] == [
            (1, True, str(grids)), (6, True, str(grids))
        ]  # fmt: skip
    lines = tmp_path / "l.txt"
    lines.write_text(GOOD9 + "\n" + GOOD9B + "\n")
    with open(lines) as f:
        assert [(r.line, r.source) for r in gpu_anneal.solve(f, method="exact")] == [
            (1, str(lines)), (2, str(lines))
        ]  # fmt: skip


def test_a_closed_or_undecodable_file_object_is_an_input_error(tmp_path):
    """A closed file: InputError naming `puzzles`; a text file object whose bytes are not in its
    encoding: one InputError naming the file (no UnicodeDecodeError)."""
    path = tmp_path / "p.txt"
    path.write_text("# caf\u00e9\n" + GOOD9 + "\n")
    f = open(path)  # noqa: SIM115 (closed at once: the case under test)
    f.close()
    with pytest.raises(InputError, match=rf"^puzzles: the file object {path} is closed"):
        gpu_anneal.solve(f, method="exact")
    with open(path, encoding="ascii") as f, pytest.raises(InputError, match=rf"^{path}: not ascii"):
        gpu_anneal.solve(f, method="exact")


@pytest.mark.parametrize("value", [123, ["a"], b"r.jsonl", 1.5])
def test_resume_of_another_type_is_an_option_error_naming_it(value):
    """resume=123, ["a"], a bytes name, 1.5: OptionError naming `resume` (was a TypeError)."""
    with pytest.raises(OptionError, match=r"^resume .*: expected a file name"):
        gpu_anneal.solve(GOOD9, method="exact", resume=value)


def test_puzzles_of_another_kind_are_an_input_error_naming_the_kind():
    """A Sudoku Item or Puzzle with kind='shikaku', a parsed Shikaku with kind='hashi' and the
    reverse: InputError naming `puzzles` and the kind to pass (were AttributeErrors)."""
    (item,) = items(GOOD9)
    (puzzle,) = read_puzzles(GOOD9)
    shikaku = parse_grid_puzzle("shikaku", "2x1:2a")
    hashi = parse_grid_puzzle("hashi", "3x1m2:1a1")
    cases = [(item, "shikaku", "sudoku"), (puzzle, "shikaku", "sudoku"),
             (puzzle, "hashi", "sudoku"), (shikaku, "hashi", "shikaku"),
             (hashi, "shikaku", "hashi"), (shikaku, "sudoku", "shikaku")]  # fmt: skip
    for source, kind, own in cases:
        method = "exact" if kind == "sudoku" else "ilp"
        with pytest.raises(InputError, match=rf"^puzzles: .* of kind '{own}' passed with "
                                             rf"kind='{kind}'; pass kind='{own}'$"):  # fmt: skip
            gpu_anneal.solve(source, kind=kind, method=method)


# ---- 4. the shapes people have (arrays and lists) -----------------------------------------

CELLS9 = parse_line(GOOD9)


@pytest.mark.parametrize(
    "make, count",
    [
        (lambda: CELLS9.reshape(9, 9), 1),
        (lambda: CELLS9.reshape(9, 9).tolist(), 1),
        (lambda: CELLS9.tolist(), 1),
        (lambda: CELLS9.reshape(1, 9, 9), 1),
        (lambda: np.stack([CELLS9] * 2).reshape(2, 9, 9), 2),
        (lambda: [CELLS9.reshape(9, 9).tolist()] * 3, 3),
        (lambda: np.stack([CELLS9] * 2), 2),
        (lambda: CELLS9, 1),
        (lambda: [CELLS9.reshape(9, 9), CELLS9], 2),
    ],
    ids=[
        "(9,9)",
        "9x9-list",
        "flat-list",
        "(1,9,9)",
        "(2,9,9)",
        "list-of-9x9-lists",
        "(2,81)",
        "(81,)",
        "list-of-arrays",
    ],  # fmt: skip
)
def test_arrays_and_lists_in_the_shapes_people_have(make, count):
    """(N, N) and nested lists are one grid, (P, N, N) and lists of them P grids, a flat list
    of ints one grid, (P, cells) as before: each grid the puzzle given, solved and verified."""
    results = gpu_anneal.solve(make(), method="exact")
    assert len(results) == count and all(r.solved for r in results)
    for r in results:
        assert r.order == 3 and verify_solution(np.asarray(r.state), 3, CELLS9) is None


@pytest.mark.parametrize(
    "make, fragment",
    [
        (lambda: np.zeros(6561, np.uint8), r"an array of shape \(6561,\)"),
        (lambda: np.zeros((3, 3), np.uint8), r"an array of shape \(3, 3\)"),
        (lambda: np.zeros((2, 2, 9, 9), np.uint8), r"an array of shape \(2, 2, 9, 9\)"),
        (lambda: np.zeros((9, 8), np.uint8), r"an array of shape \(9, 8\)"),
        (lambda: [[0] * 9] * 8 + [[0] * 8], "lists of unequal lengths"),
        (lambda: np.zeros((16, 16), np.uint8), r"\(16, 16\) is one 16x16 grid or sixteen 4x4"),
        (lambda: [0.0] * 81, "array of dtype float64; expected integers"),
    ],
)
def test_other_shapes_are_one_line_naming_the_shape_and_the_shapes_taken(make, fragment):
    """Anything else: one OptionError naming `puzzles`, the shape it got and (for a shape) every
    shape it takes; order= settles the (16, 16) case."""
    with pytest.raises(OptionError, match=f"^puzzles: .*{fragment}") as caught:
        gpu_anneal.solve(make(), method="exact")
    assert "\n" not in str(caught.value)
    if "shape (" in fragment and "16, 16" not in fragment:
        assert "(cells,) or (N, N) for one grid, (P, cells) or (P, N, N) for P grids" in str(
            caught.value
        )
    grid = np.zeros((16, 16), np.uint8)
    assert summary(items(grid, order=4)) == [(None, "16x16")]
    assert summary(items(grid, order=2)) == [(None, "4x4")] * 16


@pytest.mark.parametrize("kind", ["shikaku", "hashi"])
def test_a_list_of_numbers_for_a_grid_kind_says_it_is_sudoku_input(kind):
    """A flat list of ints with kind shikaku or hashi: InputError, as for an array."""
    with pytest.raises(InputError, match="^puzzles: a list of numbers is Sudoku input"):
        gpu_anneal.solve(CELLS9.tolist(), kind=kind, method="ilp")


# ---- 5. UTF-16 and UTF-32 -----------------------------------------------------------------

ENCODINGS = [("utf-16-le", codecs.BOM_UTF16_LE), ("utf-16-be", codecs.BOM_UTF16_BE),
             ("utf-32-le", codecs.BOM_UTF32_LE), ("utf-32-be", codecs.BOM_UTF32_BE)]  # fmt: skip


@pytest.mark.parametrize("encoding, mark", ENCODINGS)
@pytest.mark.parametrize("kind", ["sudoku", "hashi"])
def test_utf16_and_utf32_with_a_byte_order_mark_are_read(kind, encoding, mark, tmp_path):
    """A UTF-16 / UTF-32 file with its byte-order mark (either byte order), "\\r\\n" line ends:
    the same puzzles at the same lines as the UTF-8 file."""
    text = (
        f"# a comment\r\n{GOOD9}\r\n\r\n{GOOD9B}\r\n"
        if kind == "sudoku"
        else "2.2\r\n...\r\n2.2\r\n"
    )
    plain, wide = tmp_path / "p.txt", tmp_path / "w.txt"
    plain.write_bytes(text.encode())
    wide.write_bytes(mark + text.encode(encoding))
    want = [(x.line, x.givens_text) for x in items(str(plain), kind)]
    assert [(x.line, x.givens_text) for x in items(str(wide), kind)] == want and want


@pytest.mark.parametrize("encoding, mark", ENCODINGS)
def test_utf16_and_utf32_without_a_mark_are_named_as_such(encoding, mark, tmp_path):
    """No byte-order mark: one line naming the encoding and byte order, never "binary data"; a
    Latin-1 file that happens to start with "ÿþ" is still read as UTF-8 (its line a fault)."""
    path = tmp_path / "w.txt"
    path.write_bytes(f"{GOOD9}\n{GOOD9B}\n".encode(encoding))
    name, order = encoding[:6].upper(), "little" if encoding.endswith("le") else "big"
    (fault,) = items(str(path))
    assert (
        str(fault) == f"{path}: {name} ({order}-endian) text (no byte-order mark): save it as UTF-8"
    )
    latin = tmp_path / "l.txt"
    latin.write_bytes(b"\xff\xfe" + GOOD9.encode() + b"\n" + GOOD9B.encode() + b"\n")
    fault, item = items(str(latin))
    assert str(fault) == f"{latin} line 1: not UTF-8 text: byte 0xff at column 1"
    assert item.line == 2


# ---- 6. numbers of any length ---------------------------------------------------------------


def test_whole_number_bounds_before_converting():
    """The bounded reader: values in 0..hi, None beyond (at any length, without int()'s limit)."""
    from cpu_reference.fields import shown, whole_number

    assert whole_number("007", 9) == 7 and whole_number("+5", 9, plus=True) == 5
    assert whole_number("10", 9) is None and whole_number(BIG * 3, 9) is None
    assert (
        whole_number("+5", 9) is None
        and whole_number("٣", 9) is None
        and whole_number("", 9) is None
    )
    assert shown("x" * 100).endswith("... (100 characters)") and shown("ab") == "'ab'"


FIVE_FOUR = format_grid(parse_line(FOUR[0]), 2, "rows")


@pytest.mark.parametrize(
    "kind, bad, good",
    [
        ("sudoku", f"2x2:{BIG}o", GOOD9),  # a Solo given
        ("sudoku", f"{BIG}x{BIG}:a", GOOD9),  # a Solo size
        ("sudoku", f"{GOOD9}:{BIG}:", GOOD9B),  # a tdoku count
        ("sudoku", f"{BIG} 0 0 0\n" + "\n".join(FIVE_FOUR.split("\n")[1:]), GOOD9),  # a rows cell
        ("sudoku", "a\t2\t" + BIG + ",0" * 15, GOOD9),  # a tsv cell
        ("sudoku", "a\t" + BIG + "\t" + ",".join(["0"] * 16), GOOD9),  # a tsv order
        ("shikaku", f"2x1:{BIG}", "2x1:2a"),  # a Shikaku clue
        ("hashi", f"3x1m{BIG}:1a1", "3x1m2:1a1"),  # a Hashi `m`
        ("hashi", f"3x1:1a{BIG}", "3x1m2:1a1"),  # a Hashi island
    ],
    ids=[
        "solo-given",
        "solo-size",
        "tdoku-count",
        "rows-cell",
        "tsv-cell",
        "tsv-order",
        "shikaku-clue",
        "hashi-m",
        "hashi-island",
    ],  # fmt: skip
)
def test_a_number_of_thousands_of_digits_is_a_fault_of_its_line(kind, bad, good, tmp_path):
    """A field of 4,400 digits: a fault of its puzzle naming the field shortened, the puzzle
    after it read and solved; exit 2, never an internal error (was ValueError, exit 3)."""
    path = tmp_path / "p.txt"
    path.write_text(bad + "\n\n" + good + "\n")
    method = "exact" if kind == "sudoku" else "ilp"
    code, records, faults = cli("solve", path, "--kind", kind, "--method", method,
                                "--output", "jsonl")  # fmt: skip
    assert code == 2 and len(faults) == 1 and faults[0].startswith(f"{path} line 1")
    assert "not square" not in faults[0]
    assert len(faults[0]) < 300, faults[0]
    assert [(r["puzzle"], r["solved"]) for r in records] == [(good, True)]


def test_a_hashi_grid_cell_of_thousands_of_digits_and_check_input():
    """A Hashi text-grid cell and a `check` tdoku count of 4,400 digits: one fault each, exit 2."""
    with pytest.raises(InputError, match=r"^grid line 1: unknown cell '9999"):
        parse_grid_puzzle("hashi", f"{BIG} . 2\n", "grid")
    result = runner.invoke(app, ["check", "-"], input=f"{GOOD9}:{BIG}:\n{GOOD9B}\n")
    assert result.exit_code == 2 and "internal error" not in result.stderr
    assert "line 1: count '9999" in result.stderr
    assert "line=2 kind=puzzle ok=True" in result.stdout


# ---- the binary head rule --------------------------------------------------------------------


def test_a_text_file_with_a_short_binary_stretch_is_read_a_binary_file_refused(tmp_path):
    """Lines of text outnumbering the lines of binary data in the head: text (the binary lines
    are faults); a file of mostly binary lines: refused whole as before."""
    path = tmp_path / "p.txt"
    path.write_bytes(b"\x00" * 200 + b"\n" + (GOOD9 + "\n" + GOOD9B + "\n").encode())
    got = items(str(path))
    assert [type(x) for x in got] == [InputError, Item, Item]
    path.write_bytes((b"\x00" * 200 + b"\n") * 3 + (GOOD9 + "\n").encode())
    assert summary(items(str(path))) == [f"{path}: binary data, not a puzzle file"]


def test_text_from_a_string_holds_a_form_feed_as_a_fault_too():
    """Puzzle text passed to the API as a string: the same rule as a file."""
    got = items(io.StringIO(GOOD9 + "\f\n" + GOOD9B + "\n"))
    assert str(got[0]).startswith("<api> line 1: control character U+000C at column 82")
    assert got[1].line == 2
