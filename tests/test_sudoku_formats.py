"""Puzzle formats: round trips, the shipped data files, tdoku and Solo fields, faults, streaming.

Glossary: n order, N = n * n side, r/k row/column, c cell, d digit (0 blank).
"""

from __future__ import annotations

import io
import re
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from benchmarks.frontier_instances import pattern_grid
from cpu_reference.errors import InputError
from cpu_reference.sources import HEAD_BYTES, MAX_BAD_RUN
from cpu_reference.sudoku.format_writer import format_grid
from cpu_reference.sudoku.formats import (
    FORMATS,
    MAX_LINE,
    SYMBOLS,
    Puzzle,
    _checked,
    _fast_line,
    _Fault,
    _parse_symbol_line,
    check_givens,
    iter_puzzles,
    parse_line,
    read_puzzles,
)
from cpu_reference.sudoku.verify import verify_solution

DATA = Path(__file__).parent / "data"


def random_grid(n: int, rng: np.random.Generator) -> np.ndarray:
    """A valid solved grid: the pattern grid with digits, rows in bands, columns in stacks,
    bands and stacks shuffled."""
    N = n * n
    base = np.array([[(r * n + r // n + k) % N for k in range(N)] for r in range(N)])
    digits = rng.permutation(N) + 1
    rows = np.concatenate([b * n + rng.permutation(n) for b in rng.permutation(n)])
    cols = np.concatenate([s * n + rng.permutation(n) for s in rng.permutation(n)])
    return digits[base[rows][:, cols]].astype(np.uint8).ravel()


def random_puzzle(n: int, rng: np.random.Generator, keep: float = 0.4) -> tuple:
    solution = random_grid(n, rng)
    puzzle = np.where(rng.random(solution.size) < keep, solution, 0).astype(np.uint8)
    return puzzle, solution


def only(items: list) -> Puzzle:
    assert len(items) == 1, items
    assert isinstance(items[0], Puzzle), items[0]
    return items[0]


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_random_grid_is_valid(n):
    rng = np.random.default_rng(n)
    assert verify_solution(random_grid(n, rng), n) is None


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_round_trip_each_format_and_order(fmt, n):
    rng = np.random.default_rng(100 * n + FORMATS.index(fmt))
    grids = [random_puzzle(n, rng)[0], random_grid(n, rng), np.zeros(n**4, dtype=np.uint8)]
    for cells in grids:
        text = format_grid(cells, n, fmt, name="p1" if fmt in ("line", "tsv", "solo") else "")
        p = only(read_puzzles(text, fmt=fmt))
        assert p.order == n and p.fmt == fmt and p.line == 1
        np.testing.assert_array_equal(p.cells, cells)
        assert p.cells.dtype == np.uint8
        if fmt in ("line", "tsv", "solo"):
            assert p.name == "p1"


@pytest.mark.parametrize("fmt", ["csv", "csv-line"])
@pytest.mark.parametrize("n", [3, 7])
def test_csv_round_trips_with_its_separator(fmt, n):
    """csv and csv-line written with `;` read back as the same puzzle, separator `;` kept (and
    `,` by default); a separator that no csv reader takes is refused in one line."""
    puzzle = random_puzzle(n, np.random.default_rng(n))[0]
    for separator in (",", ";"):
        text = format_grid(puzzle, n, fmt, separator=separator)
        (got,) = read_puzzles(text + "\n", fmt=fmt)
        assert (got.fmt, got.separator) == (fmt, separator)
        np.testing.assert_array_equal(got.cells, puzzle)
    with pytest.raises(InputError, match=r"csv separator '\|': expected one of ', ;'"):
        format_grid(puzzle, n, fmt, separator="|")


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_several_puzzles_round_trip_with_detection(fmt, n):
    rng = np.random.default_rng(7 * n)
    solved = [random_grid(n, rng) for _ in range(3)]
    puzzles = [random_puzzle(n, rng)[0] for _ in range(3)]
    extra = {"count": 1} if fmt == "tdoku" else {}
    texts = [format_grid(c, n, fmt, **extra) for c in solved + puzzles]
    sep = "\n\n" if fmt in ("grid", "rows") else "\n"
    # The first puzzle is solved so that a 16x16 grid row shows symbols above 4. A line of 16
    # comma-separated numbers is a 16x16 csv row unless the format is given.
    told = fmt if (fmt, n) == ("csv-line", 2) else None
    got = read_puzzles(sep.join(texts) + "\n", fmt=told)
    assert [p.fmt for p in got] == [fmt] * 6
    for p, c in zip(got, solved + puzzles, strict=True):
        np.testing.assert_array_equal(p.cells, c)
    if fmt in ("grid", "rows"):
        consecutive = read_puzzles("\n".join(texts), fmt=fmt)
        assert [p.line for p in consecutive] == [1 + i * n * n for i in range(6)]
        spaced = read_puzzles("\n\n".join(texts), fmt=fmt)
        assert [p.line for p in spaced] == [1 + i * (n * n + 1) for i in range(6)]


def test_tdoku_round_trip_with_count_and_solution():
    rng = np.random.default_rng(3)
    puzzle, solution = random_puzzle(3, rng)
    text = format_grid(puzzle, 3, "tdoku", count=1, solution=solution)
    assert text.count(":") == 2
    p = only(read_puzzles(text))
    assert p.fmt == "tdoku" and p.expected_count == 1
    np.testing.assert_array_equal(p.cells, puzzle)
    np.testing.assert_array_equal(p.expected_solution, solution)
    q = only(read_puzzles(format_grid(puzzle, 3, "tdoku", count=0)))
    assert q.expected_count == 0 and q.expected_solution is None


def test_symbol_scheme_for_16_and_25():
    cells = np.zeros(256, dtype=np.uint8)
    cells[:16] = np.arange(1, 17)
    text = format_grid(cells, 4, "line")
    assert text[:16] == "123456789ABCDEFG" and set(text[16:]) == {"."}
    cells25 = np.zeros(625, dtype=np.uint8)
    cells25[:25] = np.arange(1, 26)
    assert format_grid(cells25, 5, "line")[:25] == SYMBOLS[:25] == "123456789ABCDEFGHIJKLMNOP"
    np.testing.assert_array_equal(parse_line(text.lower()), cells)
    np.testing.assert_array_equal(parse_line(text.replace(".", "0")), cells)


def test_order_6_rows_csv_tsv_solo_round_trip():
    rng = np.random.default_rng(6)
    grid = random_grid(6, rng)
    for fmt in ("rows", "csv", "csv-line", "tsv", "solo"):
        np.testing.assert_array_equal(
            only(read_puzzles(format_grid(grid, 6, fmt), fmt=fmt)).cells, grid
        )
    with pytest.raises(InputError, match="rows, csv, csv-line, tsv or solo"):
        format_grid(grid, 6, "line")


@pytest.mark.parametrize(
    "file, count, order, fmt",
    [
        ("top95_head.txt", 20, 3, "line"),
        ("tdoku_test_puzzles.txt", 43, 3, "tdoku"),
        ("hardest.txt", 11, 3, "line"),
        ("logic_solvable_9x9.txt", 16, 3, "line"),
        ("general_9x9_head.tsv", 2, 3, "tsv"),
        ("general_16x16_head.tsv", 2, 4, "tsv"),
        ("general_25x25_head.tsv", 2, 5, "tsv"),
    ],
)
def test_data_files_parse(file, count, order, fmt):
    got = list(iter_puzzles(DATA / file))
    assert all(isinstance(p, Puzzle) for p in got), [str(p) for p in got]
    assert len(got) == count
    assert {p.order for p in got} == {order}
    assert {p.fmt for p in got} == {fmt}
    for p in got:
        assert check_givens(p.cells, p.order) is None
        assert p.cells.shape == (p.cells_count,) and p.N == order * order


def test_data_file_details():
    top = read_puzzles(DATA / "top95_head.txt")
    assert top[0].line == 1 and top[0].cells[0] == 4 and top[0].givens == 17
    logic = read_puzzles(DATA / "logic_solvable_9x9.txt")
    assert logic[0].name == "aiescargot"
    tsv = read_puzzles(DATA / "general_16x16_head.tsv")
    assert [p.name for p in tsv] == ["inst16x16_45_0", "inst16x16_45_1"]
    assert [p.line for p in tsv] == [1, 2]
    assert all(abs(p.givens - 0.45 * 256) < 2 for p in tsv)


def test_tdoku_fields():
    got = read_puzzles(DATA / "tdoku_test_puzzles.txt")
    counts = [p.expected_count for p in got]
    assert counts.count(0) == 10 and counts.count(1) == 18
    for p in got:
        if p.expected_count == 1:
            assert verify_solution(p.expected_solution, 3, p.cells) is None
        else:
            assert p.expected_solution is None
    assert max(counts) == 847


def test_solo_hand_made_ids():
    p = only(read_puzzles("2x2:a1b2_3j"))
    assert p.fmt == "solo" and p.order == 2
    expected = np.zeros(16, dtype=np.uint8)
    expected[[1, 4, 5]] = [1, 2, 3]
    np.testing.assert_array_equal(p.cells, expected)
    # Parameters after RxC are ignored; '_' is a no-op anywhere; a long run spans letters.
    q = only(read_puzzles("3x3dh:_1z_z_2b3x  # demo\n"))
    assert q.name == "demo" and q.order == 3
    assert q.cells[0] == 1 and q.cells[53] == 2 and q.cells[56] == 3
    assert np.count_nonzero(q.cells) == 3 and q.cells.size == 81
    assert format_grid(q.cells, 3, "solo") == "3x3:1zz2b3x"
    assert format_grid(p.cells, 2, "solo") == "2x2:a1b2_3j"
    np.testing.assert_array_equal(parse_line("3x3:1zz2b3x"), q.cells)


@pytest.mark.parametrize(
    "text, pattern",
    [
        ("2x3:a1", "boxes 2x3 are not square"),
        (
            "3x3:a1",
            r"line 1: Solo description: 2 cells, expected 81 \(9x9\) \(a Shikaku or "
            r"Hashi game ID\? solve and render read those with --kind\)$",
        ),
        ("2x2:10p", "cell r1c1: given 10 is not a digit 1..4"),
        ("2x2:a1b2$j", r"unexpected character '\$' at position 5"),
        ("3x3:a1,b2", "jigsaw"),
    ],
)
def test_solo_faults(text, pattern):
    (err,) = read_puzzles(text, fmt="solo", strict=False)
    assert isinstance(err, InputError)
    assert err.args[0].startswith("<input> line 1")
    assert re.search(pattern, str(err)), str(err)


def _one_fault(text: str, **kw) -> str:
    got = read_puzzles(text, strict=False, name="t.txt", **kw)
    errors = [g for g in got if isinstance(g, InputError)]
    assert len(errors) == 1, got
    msg = str(errors[0])
    assert "\n" not in msg
    return msg


GOOD = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


def test_fault_wrong_length():
    msg = _one_fault(f"{GOOD}\n{GOOD[:80]}\n{GOOD}\n")
    assert msg.startswith("t.txt line 2: 80 cells, expected 81 (9x9)")


def test_fault_bad_symbol():
    bad = GOOD[:30] + "X" + GOOD[31:]
    msg = _one_fault(f"# comment\n{GOOD}\n{bad}\n")
    assert msg == "t.txt line 3, cell r4c4: symbol 'X' is not a digit of a 9x9 grid"
    msg = _one_fault(GOOD[:5] + "é" + GOOD[6:])
    assert msg.startswith("t.txt line 1, cell r1c6: symbol 'é'")


def test_fault_repeated_given():
    bad = "5" + GOOD[1:7] + "5" + GOOD[8:]
    msg = _one_fault(f"{GOOD}\n{bad}\n")
    assert msg == "t.txt line 2: digit 5 given twice in row 1 (r1c1, r1c8)"
    col = "1" + "." * 8 + "1" + "." * 71
    assert _one_fault(col).endswith("digit 1 given twice in column 1 (r1c1, r2c1)")
    box = "1" + "." * 9 + "1" + "." * 70
    assert _one_fault(box).endswith("digit 1 given twice in box 1 (r1c1, r2c2)")


def test_fault_non_square_size():
    msg = _one_fault("." * 50 + "\n")
    assert msg.startswith("t.txt line 1: 50 cells, expected 81 (9x9)")
    msg = _one_fault("x\t3\t" + ",".join(["0"] * 50))
    assert msg.startswith("t.txt line 1: 50 cells, expected 81 (9x9)")


def test_fault_order_mismatch():
    msg = _one_fault(GOOD, order=4)
    assert msg.startswith("t.txt line 1: 81 cells, expected 256 (16x16)")


def test_fault_tsv_and_tdoku_fields():
    assert "is not a digit 0..9" in _one_fault("x\t3\t" + ",".join(["0"] * 80 + ["10"]))
    assert "order field" in _one_fault("x\t9\t1,2", fmt="tsv")
    # detected as tsv where the order field is any number: "x\tnan\t1,2" was read as a row of
    # 3 numbers ("3 numbers on the first row; a Sudoku row has 4, 9, ...")
    for field in ("nan", "-7", "0", "1", "2.5"):
        assert _one_fault(f"x\t{field}\t1,2\n") == (
            f"t.txt line 1: order field '{field}' is not an order 2..8"
        )
    assert _one_fault("x\t2\t\n") == "t.txt line 1: 0 cells, expected 16 (4x4)"


def test_fault_of_words_names_a_word_that_is_no_number():
    """`echo hello world | gpu-anneal solve -` said only "2 numbers on the first row"."""
    msg = _one_fault("hello world\n")
    assert msg.startswith("t.txt line 1: 2 numbers on the first row; a Sudoku row has 4, 9")
    assert msg.endswith("; 'hello' is no number")
    assert "no number" not in _one_fault("1 2\n")


def test_fault_csv_row_names_an_unclosed_quote():
    """A csv row with a quote left open read the rest of the row as one field, and the fault
    said only how many fields it had."""
    rows = ["0,0,0,0", '0,"0,0,0', "0,0,0,0", "0,0,0,0"]
    assert _one_fault("\n".join(rows) + "\n") == (
        "t.txt line 2: 2 comma-separated numbers on a row, expected 4; a double quote is not closed"
    )
    assert "count 'many'" in _one_fault(GOOD + ":many:")
    assert "solution: 80 cells" in _one_fault(GOOD + ":1:" + "1" * 80)


def test_fault_grid_rows_keep_alignment():
    rng = np.random.default_rng(1)
    a, b, c = (random_grid(3, rng) for _ in range(3))
    rows_b = format_grid(b, 3, "grid").split("\n")
    rows_b[4] = rows_b[4][:7]
    text = "\n".join([format_grid(a, 3, "grid"), *rows_b, format_grid(c, 3, "grid")])
    got = read_puzzles(text, strict=False, name="g")
    assert [type(x).__name__ for x in got] == ["Puzzle", "InputError", "Puzzle"]
    assert str(got[1]) == "g line 14: 7 symbols on a row, expected 9"
    np.testing.assert_array_equal(got[2].cells, c)
    rows = format_grid(a, 3, "rows").split("\n")
    rows[2] = rows[2].replace("9", "x")
    got = read_puzzles("\n".join(rows[:5]) + "\n\n" + format_grid(c, 3, "rows"), strict=False)
    assert [type(x).__name__ for x in got] == ["InputError", "Puzzle"]
    assert str(got[0]).startswith("<input> line 3, cell r3c")
    assert got[1].line == 7


def test_fault_grid_short_puzzle():
    rng = np.random.default_rng(2)
    rows = format_grid(random_grid(3, rng), 3, "grid").split("\n")
    got = read_puzzles("\n".join(rows[:5]) + "\n", strict=False)
    assert len(got) == 1 and str(got[0]) == "<input> line 1: puzzle ends after 5 rows, expected 9"


def test_fault_empty_input(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(InputError, match=r"empty\.txt: empty input, no puzzle found"):
        list(iter_puzzles(empty))
    comments = tmp_path / "c.txt"
    comments.write_text("# only a comment\n\n   \n")
    with pytest.raises(InputError, match="empty input"):
        read_puzzles(comments)


def test_fault_binary_input(tmp_path):
    """Binary bytes cost only their own lines: each is one fault, later puzzles are still read."""
    f = tmp_path / "blob.bin"
    f.write_bytes(GOOD.encode() + b"\n\x89PNG\r\n\x1a\n\x00\x00\x00\n" + GOOD.encode() + b"\n")
    got = list(iter_puzzles(f))
    kinds = ["Puzzle", "InputError", "InputError", "InputError", "Puzzle"]
    assert [type(x).__name__ for x in got] == kinds
    assert str(got[1]) == f"{f} line 2: not UTF-8 text: byte 0x89 at column 1"
    assert str(got[2]) == f"{f} line 3: control character U+001A at column 1; not puzzle text"
    assert str(got[3]) == f"{f} line 4: NUL byte at column 1; not puzzle text"
    assert got[4].line == 5
    g = tmp_path / "latin1.txt"
    g.write_bytes(b"\xff\xfe" + GOOD.encode())
    (fault,) = iter_puzzles(g)
    assert str(fault) == f"{g} line 1: not UTF-8 text: byte 0xff at column 1"


@pytest.mark.parametrize("fmt", ["line", "tdoku", "tsv", "solo", "grid", "rows"])
@pytest.mark.parametrize("bad", [b"\x00", b"caf\xe9"])
def test_one_bad_byte_costs_one_puzzle_in_every_format(tmp_path, fmt, bad):
    """A NUL or Latin-1 byte in the first puzzle of three: that puzzle is one fault, the two
    after it are read (the bad line is found again in the fault, with its line number)."""
    cells = parse_line(GOOD)
    text = format_grid(cells, 3, fmt, name="p" if fmt == "tsv" else "")
    lines = text.encode().split(b"\n")
    lines[0] = lines[0][:5] + bad + lines[0][5:]
    first = b"\n".join(lines)
    sep = b"\n\n" if fmt in ("grid", "rows") else b"\n"
    f = tmp_path / "p.txt"
    f.write_bytes(sep.join([first, text.encode(), text.encode()]) + b"\n")
    got = list(iter_puzzles(f, fmt=fmt))
    assert [type(x).__name__ for x in got] == ["InputError", "Puzzle", "Puzzle"], got
    assert f"{f} line 1" in str(got[0])
    for p in got[1:]:
        np.testing.assert_array_equal(p.cells, cells)


def test_binary_file_stops_after_a_run_of_unreadable_lines(tmp_path):
    """Binary data after a text head (HEAD_BYTES of puzzles): MAX_BAD_RUN unreadable lines in a
    row are a fault each, then reading stops with one 'binary file' error instead of a fault
    per line of a large blob."""
    f = tmp_path / "blob.bin"
    good = HEAD_BYTES // len(GOOD) + 1
    f.write_bytes((GOOD + "\n").encode() * good + b"\xff\n" * (MAX_BAD_RUN + 50) + GOOD.encode())
    it = iter_puzzles(f)
    assert all(isinstance(next(it), Puzzle) for _ in range(good))
    faults = [next(it) for _ in range(MAX_BAD_RUN)]
    assert all("not UTF-8" in str(x) for x in faults)
    with pytest.raises(InputError, match=f"line {good + MAX_BAD_RUN + 1}: .*binary file"):
        next(it)


def test_binary_head_is_one_error(tmp_path):
    """A file whose first bytes are mostly not text is refused whole with one line, before any
    line is read; the same bytes after a text head are faults of their own lines."""
    f = tmp_path / "blob.bin"
    f.write_bytes(b"\xff\n" * (MAX_BAD_RUN + 50) + GOOD.encode() + b"\n")
    with pytest.raises(InputError) as caught:
        iter_puzzles(f)
    assert str(caught.value) == f"{f}: binary data, not a puzzle file"


def test_fault_overlong_line(tmp_path):
    f = tmp_path / "long.txt"
    f.write_text(f"{GOOD}\n{'1' * (MAX_LINE * 5)}\n{GOOD}\n")
    got = read_puzzles(f, strict=False)
    assert [type(x).__name__ for x in got] == ["Puzzle", "InputError", "Puzzle"]
    assert str(got[1]) == f"{f} line 2: longer than {MAX_LINE} characters"
    assert got[2].line == 3


def test_whole_input_faults_are_raised():
    with pytest.raises(InputError, match="unknown puzzle format 'xml'"):
        iter_puzzles(io.StringIO(GOOD), fmt="xml")
    with pytest.raises(InputError, match="order 9"):
        iter_puzzles(io.StringIO(GOOD), order=9)
    with pytest.raises(InputError, match="^/nonexistent/puzzles.txt: no such file$"):
        iter_puzzles("/nonexistent/puzzles.txt")
    with pytest.raises(InputError, match="^missing.txt: no such file$"):
        read_puzzles("missing.txt")
    with pytest.raises(InputError, match="line 1: 7 numbers on the first row"):
        read_puzzles("1 2 3 4 5 6 7\n", fmt="rows")
    with pytest.raises(InputError, match="digit 5 given twice"):
        read_puzzles("5" + GOOD[1:7] + "5" + GOOD[8:])


def test_sources_stdin_binary_and_text_objects(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(f"{GOOD}\n".encode())))
    p = only(list(iter_puzzles("-")))
    assert p.cells[0] == 4
    assert only(list(iter_puzzles(io.BytesIO(GOOD.encode())))).givens == 17
    assert only(read_puzzles(GOOD.encode())).givens == 17
    got = list(iter_puzzles(io.StringIO(f"\ufeff{GOOD}\r\n\r\n{GOOD}\r\n"), name="x"))
    assert [q.line for q in got] == [1, 3]


def test_parse_line_forms():
    cells = parse_line(GOOD)
    assert cells.shape == (81,) and cells.dtype == np.uint8
    np.testing.assert_array_equal(parse_line(GOOD + "  # top95 #1"), cells)
    np.testing.assert_array_equal(parse_line(GOOD + ":1"), cells)
    np.testing.assert_array_equal(parse_line(",".join(map(str, cells))), cells)
    np.testing.assert_array_equal(parse_line(";".join(map(str, cells)) + ";"), cells)
    np.testing.assert_array_equal(parse_line(", ".join(f'"{v or ""}"' for v in cells)), cells)
    np.testing.assert_array_equal(parse_line(GOOD + "  # hard, very"), cells)  # a name's comma
    np.testing.assert_array_equal(parse_line(GOOD + " easy;ish"), cells)
    np.testing.assert_array_equal(parse_line(format_grid(cells, 3, "tsv", name="a")), cells)
    np.testing.assert_array_equal(parse_line(format_grid(cells, 3, "solo")), cells)
    with pytest.raises(InputError, match="80 cells"):
        parse_line(GOOD[:80])
    with pytest.raises(InputError, match="expected 256"):
        parse_line(GOOD, order=4)
    dup = "5" + GOOD[1:7] + "5" + GOOD[8:]
    with pytest.raises(InputError, match="given twice in row 1"):
        parse_line(dup)
    assert parse_line(dup, check=False)[7] == 5


NORVIG = """
4 . . |. . . |8 . 5
. 3 . |. . . |. . .
. . . |7 . . |. . .
------+------+------
. 2 . |. . . |. 6 .
. . . |. 8 . |4 . .
. . . |. 1 . |. . .
------+------+------
. . . |6 . 3 |. 7 .
5 . . |2 . . |. . .
1 . 4 |. . . |. . .
"""
HARD1 = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


def test_a_grid_printed_with_its_boxes_drawn_reads_as_rows():
    """Norvig's display (`.` blank, `|` and `------+------+------` between boxes), the same
    grid in a bordered frame (`+-------+`, `| ... |`) and with `=` rules, one after another:
    three rows puzzles equal to the one-line form, with or without --format rows; a `-1`
    cell is still a fault naming its cell."""
    framed = "\n".join(
        f"| {row.replace('|', ' | ')} |" if "|" in row else "+-------+-------+-------+"
        for row in NORVIG.strip().splitlines()
    )
    equals = NORVIG.replace("------+------+------", "======+======+======")
    text = "\n".join([NORVIG.strip(), "", "+-------+-------+-------+", framed, "", equals])
    want = parse_line(HARD1)
    for fmt in (None, "rows"):
        got = read_puzzles(text, fmt=fmt)
        assert [p.fmt for p in got] == ["rows"] * 3
        for puzzle in got:
            np.testing.assert_array_equal(puzzle.cells, want)
    bad = NORVIG.replace("4 . . |", "-1 . . |", 1)
    with pytest.raises(InputError, match=r"cell r1c1: number '-1' is not a digit 0\.\.9"):
        read_puzzles(bad)


def test_a_simple_sudoku_ss_file_reads_as_grid():
    """Simple Sudoku's .ss layout (`4..|...|8.5`, `-----------` between bands), two puzzles
    with a blank line between them: two grid puzzles equal to the one-line form, with or
    without --format grid; a row one symbol short is still a fault naming it."""
    ss = "\n".join(
        "-----------" if "-" in row else row.replace(" ", "") for row in NORVIG.strip().splitlines()
    )
    assert ss.splitlines()[0] == "4..|...|8.5"
    want = parse_line(HARD1)
    for fmt in (None, "grid"):
        got = read_puzzles(f"{ss}\n\n{ss}\n", fmt=fmt)
        assert [(p.fmt, p.line) for p in got] == [("grid", 1), ("grid", 13)]
        for puzzle in got:
            np.testing.assert_array_equal(puzzle.cells, want)
    short = ss.replace("4..|...|8.5", "4..|...|8.", 1)
    with pytest.raises(InputError, match="8 symbols on a row, expected 9"):
        read_puzzles(short, fmt="grid")


def test_a_16x16_ss_file_reads_as_grid():
    """A 16x16 grid in the .ss layout (`..9.|2D..|.4G.|EF17`: 16 symbols and three bars a row,
    a rule of 19 dashes between bands): one grid puzzle equal to its one-line form, with or
    without --format grid; a row one symbol short is a fault naming it."""
    grid = pattern_grid(4, np.random.default_rng(1)).ravel()
    puzzle = np.where(np.random.default_rng(2).random(grid.size) < 0.4, 0, grid).astype(np.uint8)
    line = format_grid(puzzle, 4, "line")
    rows = [line[r * 16 : (r + 1) * 16] for r in range(16)]
    ss = []
    for r, row in enumerate(rows):
        ss += ["-" * 19] if r and r % 4 == 0 else []
        ss.append("|".join(row[k : k + 4] for k in range(0, 16, 4)))
    for fmt in (None, "grid"):
        (got,) = read_puzzles("\n".join(ss) + "\n", fmt=fmt)
        assert (got.fmt, got.order) == ("grid", 4)
        np.testing.assert_array_equal(got.cells, puzzle)
    ss[0] = ss[0][:-1]
    with pytest.raises(InputError, match="line 1: 15 symbols on a row, expected 16"):
        read_puzzles("\n".join(ss) + "\n", fmt="grid")


@pytest.mark.parametrize("fmt", [None, "line", "grid", "rows"])
def test_lines_of_bars_and_rules_alone_are_passed_over(fmt):
    """Lines of `|`, `-`, `+`, `=`, spaces and tabs alone, with or without a `#` comment after
    them (`|#`, `|<TAB>|`, `------+------ # band 2`), above a puzzle: passed over like comments,
    never a crash; the puzzle read at its line."""
    lines = ["|#", "|\t|", "| # x", "------+------ # band 2", "=", "+"]
    ss = "\n".join(row.replace(" ", "") for row in NORVIG.strip().splitlines())
    puzzle = {None: HARD1, "line": HARD1, "grid": ss, "rows": NORVIG.strip()}[fmt]
    (got,) = read_puzzles("\n".join([*lines, puzzle]) + "\n", fmt=fmt)
    assert got.line == len(lines) + 1
    np.testing.assert_array_equal(got.cells, parse_line(HARD1))


def test_check_givens():
    rng = np.random.default_rng(5)
    for n in (2, 3, 4, 5):
        assert check_givens(random_puzzle(n, rng)[0], n) is None
    g = np.zeros(81, dtype=np.uint8)
    g[[0, 80]] = 9
    assert check_givens(g, 3) is None
    g[80] = 10
    assert check_givens(g, 3) == "cell r9c9 holds 10, outside 0..9"
    assert check_givens(np.zeros(80, dtype=np.uint8), 3).startswith("80 cells")
    g = np.zeros(256, dtype=np.uint8)
    g[[17, 255 - 17]] = 16
    assert check_givens(g, 4) is None
    g[[34]] = 16
    assert check_givens(g, 4) == "digit 16 given twice in box 1 (r2c2, r3c3)"


def test_auto_detection_of_4x4_line_versus_16x16_grid():
    assert only(read_puzzles("1..4" + "." * 12)).fmt == "line"
    rng = np.random.default_rng(4)
    grid16 = format_grid(random_grid(4, rng), 4, "grid")
    assert only(read_puzzles(grid16)).fmt == "grid"


def test_streaming_is_lazy(tmp_path):
    f = tmp_path / "big.txt"
    line = (GOOD + "\n").encode()
    with open(f, "wb") as out:
        for _ in range(200):
            out.write(line * 1000)
    assert f.stat().st_size > 16_000_000
    tracemalloc.start()
    t0 = time.perf_counter()
    it = iter_puzzles(f)
    first = [next(it) for _ in range(100)]
    elapsed = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    it.close()
    assert all(isinstance(p, Puzzle) for p in first) and first[-1].line == 100
    assert peak < 2_000_000, peak
    assert elapsed < 2.0


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_the_fast_line_reader_reads_what_the_checked_path_reads(n):
    """One-line puzzles of every symbol order, sound and faulty (a symbol outside the grid's,
    a digit given twice in a row, a column or a box): the fast path (_fast_line) gives the
    digits the checked path gives, and None wherever the checked path names a fault, so that
    path reads it and names it."""
    rng = np.random.default_rng(n)
    N = n * n
    lines = []
    for _ in range(20):
        puzzle, solution = random_puzzle(n, rng)
        lines.append(format_grid(puzzle, n, "line"))
        twice = puzzle.copy()
        r, c = divmod(int(rng.integers(N * N)), N)
        d = solution[r * N + (c + 1) % N]
        twice[r * N + c] = twice[r * N + (c + 1) % N] = d  # one digit twice in a row
        lines.append(format_grid(twice, n, "line"))
        box = puzzle.copy()
        box[0], box[N + 1] = solution[0], solution[0]  # one digit twice in the first box
        lines.append(format_grid(box, n, "line"))
        column = puzzle.copy()
        column[0], column[(N - 1) * N] = solution[0], solution[0]  # twice in the first column
        lines.append(format_grid(column, n, "line"))
    text = format_grid(random_puzzle(n, rng)[0], n, "line")
    lines += [text[:-1] + "?", text[:-1] + SYMBOLS[N], text[:-1] + "é"]
    faults = 0
    for line in lines:
        try:
            cells, order = _parse_symbol_line(line, None)
            _checked(cells, order)
        except _Fault:
            assert _fast_line(line, None) is None, line
            faults += 1
            continue
        fast = _fast_line(line, None)
        assert fast is not None, line
        assert fast[1] == order and np.array_equal(fast[0], cells), line
    assert faults == 3 * 20 + 3  # every faulty line, and no sound one


def test_a_csv_row_with_a_field_too_many_is_a_fault_of_its_grid(tmp_path):
    """A 64x64 csv grid whose row 10 holds 65 numbers gave three faults: 'puzzle ends after 9
    rows', 'line 10: 65 comma-separated numbers, expected 81 (9x9)', 'puzzle ends after 54
    rows' (a line of more than 64 fields reads as a one-line puzzle). Inside a csv grid, a row
    whose count is no puzzle's is now that grid's faulty row: one fault."""
    rows = [",".join(str((r * 8 + r // 8 + c) % 64 + 1) for c in range(64)) for r in range(64)]
    rows[9] += ",5"
    path = tmp_path / "f65.csv"
    path.write_text("\n".join(rows) + "\n")
    got = list(iter_puzzles(str(path)))
    assert [str(x) for x in got] == [
        f"{path} line 10: 65 comma-separated numbers on a row, expected 64"
    ]


def test_blank_lines_before_the_first_puzzle_are_not_held(tmp_path):
    """The look for a Lloyd & Amos head held every blank or comment line until it had seen two
    puzzle lines (ten million blank lines before a puzzle: 1.2 GB). It reads at most HEAD_LOOK
    + 1 lines; the rest stream on, and the puzzle after 300,000 blank lines keeps its line."""
    from cpu_reference.sudoku.formats import HEAD_LOOK, _head

    read = []

    def lines():
        for L in range(1, 300_001):
            read.append(L)
            yield L, ""

    head, again = _head(lines())
    assert head == [] and len(read) == HEAD_LOOK + 1
    assert sum(1 for _ in again) == 300_000  # nothing lost
    f = tmp_path / "blank.txt"
    f.write_text("\n" * 300_000 + "1...........4...\n")
    assert [(p.line, p.order) for p in iter_puzzles(f)] == [(300_001, 2)]


def test_sixteen_4x4_lines_are_sixteen_puzzles_whether_or_not_givens_are_checked(tmp_path):
    """16 lines of 4x4 puzzles read with check=False (as `check` reads claimed solutions) were
    one 16x16 grid (it 'read as one' once a digit twice was let through) and `check` reported
    one fault where `solve` read 16 puzzles. Whether they are one grid is now asked of a
    strict reading in both."""
    f = tmp_path / "fours.txt"
    f.write_text("\n".join(["1...........4...", "..3.4.........2."] * 8) + "\n")
    for check in (True, False):
        got = list(iter_puzzles(f, check=check))
        assert [(p.line, p.order) for p in got] == [(L, 2) for L in range(1, 17)], check


def test_a_64x64_csv_line_with_quoted_fields_and_spaces_reads():
    """A 64x64 csv-line puzzle written with quoted fields and ', ' between them (22,936
    characters here) was refused as 'longer than 20000 characters': it reads as the givens it
    holds, within MAX_LINE."""
    grid = pattern_grid(8, np.random.default_rng(8)).ravel()
    givens = np.where(np.random.default_rng(9).random(grid.size) < 0.5, grid, 0)
    fields = [f'"{v}"' if v else '"-1"' for v in givens.tolist()]
    line = ", ".join(fields)
    assert 20_000 < len(line) <= MAX_LINE
    (puzzle,) = read_puzzles(line + "\n", fmt="csv-line")
    assert puzzle.order == 8 and np.array_equal(puzzle.cells, givens)


class OneLineThenStall(io.RawIOBase):
    """A stream with one puzzle line whose writer then sends nothing more: a read past that
    line fails the test (a pipe would block there)."""

    def __init__(self, line: str):
        super().__init__()
        self.line = line.encode() + b"\n"

    def readable(self) -> bool:
        return True

    def readline(self, size: int = -1) -> bytes:
        if self.line is None:
            raise AssertionError("read past the first line: a pipe would wait here")
        line, self.line = self.line, None
        return line


@pytest.mark.parametrize("blank", [".", "0"])
@pytest.mark.parametrize("fmt", [None, "line"])
def test_a_puzzle_line_alone_is_read_without_waiting_for_a_second(fmt, blank):
    """A first line that is no number, or a number as long as a puzzle line (blanks written 0),
    cannot open a Lloyd & Amos file: the format's look at the head stops there, so a puzzle
    piped or typed alone is handed out at once."""
    top = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
    line = top.replace(".", blank)
    first = next(iter_puzzles(OneLineThenStall(line), fmt=fmt, name="<pipe>"))
    assert isinstance(first, Puzzle) and first.order == 3
    assert "".join(map(str, first.cells)).replace("0", ".") == top


def test_a_number_alone_first_still_looks_for_a_lloyd_amos_head():
    """A number alone on the first line may open a Lloyd & Amos file: the look goes on to the
    second line, as before."""
    with pytest.raises(AssertionError, match="read past the first line"):
        next(iter_puzzles(OneLineThenStall("3"), name="<pipe>"))
