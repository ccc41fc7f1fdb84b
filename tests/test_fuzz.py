"""Fuzzing every parser and option validator with hypothesis, derandomized (same inputs each run).

What every test asserts, whatever the input:
    - no traceback: only the project's InputError (or a subclass) escapes, and the CLI exits with
      0, 1, 2 or 130 (never 3, the internal fault);
    - nothing lost: every good puzzle placed among garbage is read (or answered) at its line;
    - nothing false: no claimed solution (a result, a resume record, a tdoku field) is accepted
      unless the independent verifier accepts it.

Inputs generated per run (max_examples): Sudoku lines among garbage bytes 500, whole random
inputs 300, control characters inside Sudoku lines 300 and inside Shikaku and Hashi text grids
200 + 200, every format mixed in one file 300, numbers of thousands of digits 200, file objects
150, Shikaku and Hashi game IDs 300 + 300, schedule strings 400, option values 300, API arrays
150, array and list shapes 200, resume records 300, tdoku claims 150, command lines 60, closed
and full standard streams over commands 12 (each a process of its own): 4,322 in all. Solving is
kept tiny (4x4 Sudoku, the exact method or a few trials; Shikaku and Hashi are only parsed).
"""

from __future__ import annotations

import io
import json
import math
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from typer.testing import CliRunner

import gpu_anneal
from cli.main import app
from cpu_reference.errors import InputError, OptionError
from cpu_reference.hashi import puzzle as hashi
from cpu_reference.shikaku import puzzle as shikaku
from cpu_reference.sources import BINARY_SHARE, GZIP_MAGIC
from cpu_reference.sudoku.format_writer import format_grid
from cpu_reference.sudoku.formats import FORMATS, Puzzle, iter_puzzles, parse_line
from cpu_reference.sudoku.schedules import MAX_PLATEAUS, RANGES, by_name
from cpu_reference.sudoku.verify import verify_solution
from gpu_anneal import validate
from gpu_anneal.check import check_puzzle
from gpu_anneal.inputs import Item, read
from gpu_anneal.resume import ResumeFile, item_identity
from gpu_anneal.solvers import base_result, fill_solution

FUZZ = dict(
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.filter_too_much],
)  # fmt: skip
SOLUTION4 = np.array([1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1], np.uint8)  # a 4x4 grid
SHIKAKU_IDS = ["5x4:3c2b9f6e", "2x1:2a"]
HASHI_IDS = ["3x3m2:2a2c2a2", "3x1:1a1"]
LINE_AT = re.compile(r" line (\d+)")
runner = CliRunner()

# ---- strategies --------------------------------------------------------------------------

# (puzzle, a solution): the grid above with its digits relabelled, and that grid with some
# cells blanked (always solvable)
four_pairs = st.builds(
    lambda perm, mask: (np.where(mask, perm, 0).astype(np.uint8), perm),
    st.permutations([1, 2, 3, 4]).map(lambda p: np.array(p, np.uint8)[SOLUTION4 - 1]),
    st.lists(st.booleans(), min_size=16, max_size=16).map(np.array),
)
four_puzzles = four_pairs.map(lambda pair: pair[0])
# random bytes without line ends ("\n", and "\r", which ends a line too)
garbage_line = st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"").replace(b"\r", b""))
tatham_chars = st.sampled_from(list("0123456789abcxyz_:xmL.-, \t²٣é\x00AGg"))
game_ids = st.one_of(
    st.text(tatham_chars, max_size=30),
    st.builds(lambda w, h, p, d: f"{w}x{h}{p}:{d}", st.integers(0, 12), st.integers(0, 12),
              st.sampled_from(["", "m2", "m9", "L", "m0", "m99999999999999999999"]),
              st.text(tatham_chars, max_size=30)),
)  # fmt: skip
numbers_text = st.one_of(
    st.sampled_from(["nan", "inf", "-inf", "1e30", "1e-300", "0", "-5", "0.5", "1.5", "", "x"]),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(-(10**12), 10**12).map(str),
)
schedule_strings = st.one_of(
    st.text(max_size=30),
    st.builds(
        lambda base, pairs: base + (":" + ",".join(f"{k}={v}" for k, v in pairs) if pairs else ""),
        st.sampled_from(["sirdey-course", "sirdey-paper", "geometric", "fast", ""]),
        st.lists(st.tuples(st.sampled_from([*RANGES, "foo", "n_plateaus"]), numbers_text),
                 max_size=3),
    ),
)  # fmt: skip
any_value = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=5),
    st.sampled_from([np.int64(3), np.uint64(2**64 - 1), np.float32(1.5), np.bool_(True)]),
)  # fmt: skip


def line_of(error: InputError) -> int | None:
    """The line number an InputError names, if any."""
    m = LINE_AT.search(str(error))
    return int(m.group(1)) if m else None


def latin1(raw: bytes) -> str:
    """Bytes as Latin-1 text (every byte a character)."""
    return raw.decode("latin-1")


def crude_odd_share(data: bytes) -> float:
    """The share of bytes that are neither printable ASCII nor tab or a line end: at least the
    share of non-text characters cpu_reference.sources.is_binary counts (it forgives valid
    UTF-8), so a file it calls binary is above BINARY_SHARE here too."""
    odd = sum(1 for b in data if b >= 0x7F or (b < 0x20 and b not in b"\t\n\r\x0b\x0c"))
    return odd / max(1, len(data))


def line_text(cells: np.ndarray) -> str:
    """A 4x4 puzzle as one line ('.' blank)."""
    return "".join("." if d == 0 else str(d) for d in cells.tolist())


# ---- Sudoku readers ----------------------------------------------------------------------


@settings(max_examples=500, **FUZZ)
@given(st.lists(st.one_of(four_puzzles, garbage_line), min_size=1, max_size=8))
def test_sudoku_lines_among_garbage_are_all_read(lines):
    """Good 4x4 lines among random byte lines: each good line is read at its line number with
    its cells; each other line gives at most one item, at its own line; nothing else escapes.
    The input is refused whole only when it holds no puzzle, or when it is mostly not text (one
    line: binary data)."""
    raw = [line_text(x).encode() if isinstance(x, np.ndarray) else x for x in lines]
    data = b"\n".join(raw) + b"\n"
    try:
        got = list(iter_puzzles(io.BytesIO(data), fmt="line", order=2, name="f"))
    except InputError as exc:
        if "binary" in str(exc):
            event("refused as binary data")
            assert str(exc) == "f: binary data, not a puzzle file"
            assert crude_odd_share(data) > BINARY_SHARE, data
            return
        if data.startswith(GZIP_MAGIC):  # read as gzip data, which it is not
            event("refused as corrupt gzip data")
            assert re.fullmatch(r"f: cannot read: (corrupt )?gzip data.*", str(exc)), exc
            return
        assert "empty input" in str(exc)
        assert not any(isinstance(x, np.ndarray) for x in lines)
        return
    at: dict[int, list] = {}
    for item in got:
        where = item.line if isinstance(item, Puzzle) else line_of(item)
        assert where is not None and 1 <= where <= len(lines), item
        at.setdefault(where, []).append(item)
    assert all(len(v) == 1 for v in at.values())
    for number, x in enumerate(lines, 1):
        if isinstance(x, np.ndarray):
            (item,) = at[number]
            assert isinstance(item, Puzzle) and np.array_equal(item.cells, x)


# the characters the Sudoku readers split and pass over lines by
FORMAT_CHARS = '|#-+= ,;.:\t"0123456789abx\n'


@settings(max_examples=400, **FUZZ)
@given(st.one_of(st.binary(max_size=300), st.text(max_size=200).map(str.encode),
                 st.text(FORMAT_CHARS, max_size=200).map(str.encode)),
       st.sampled_from([None, *FORMATS]))  # fmt: skip
@example(b"|#\n", None)  # a bar before a comment: no token left
@example(b"|\t|\n", "rows")
def test_whole_random_inputs_give_puzzles_or_one_line_faults(data, fmt):
    """Any bytes in any format, and text of the characters the readers split lines by: Puzzles
    and one-line InputErrors only, each Puzzle's givens legal (check_givens passed), never a
    traceback."""
    try:
        got = list(iter_puzzles(io.BytesIO(data), fmt=fmt, name="f"))
    except InputError as exc:
        assert "\n" not in str(exc)
        return
    for item in got:
        if isinstance(item, Puzzle):
            N = item.order * item.order
            assert item.cells.size == N * N and int(item.cells.max(initial=0)) <= N
        else:
            assert isinstance(item, InputError) and "\n" not in str(item)


# Characters inside a line that end no line (str.splitlines takes some of them for line ends):
# every control character but the tab and the line ends, DEL, C1 (NEL) and U+2028 / U+2029.
control_chars = st.sampled_from(
    [chr(c) for c in [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0x7F, 0xA0)]]
    + ["\u2028", "\u2029"]
)
GRID_TEXTS = {"shikaku": ["3.2", "..2", "2.."], "hashi": ["2.2", "...", "2.2"]}


def _code_point(char: str) -> str:
    return "NUL byte" if char == "\x00" else f"U+{ord(char):04X}"


@settings(max_examples=300, **FUZZ)
@given(st.lists(st.tuples(four_puzzles, st.none() | st.tuples(control_chars, st.integers(0, 16))),
                min_size=1, max_size=8))  # fmt: skip
def test_control_characters_inside_sudoku_lines_fault_their_line_alone(lines):
    """4x4 lines (no format given), some with a control or separator character inside: each of
    those is one fault at its own line naming the character and its column; every other line is
    read at its own line with its cells (a character never splits a line in two)."""
    texts = []
    for cells, bad in lines:
        text = line_text(cells)
        if bad is not None:
            text = text[: bad[1]] + bad[0] + text[bad[1] :]
        texts.append(text)
    got = list(iter_puzzles(io.BytesIO("\n".join(texts).encode() + b"\n"), name="f"))
    assert len(got) == len(lines)
    for number, ((cells, bad), item) in enumerate(zip(lines, got, strict=True), 1):
        if bad is None:
            assert isinstance(item, Puzzle) and item.line == number
            assert np.array_equal(item.cells, cells)
        else:
            assert isinstance(item, InputError) and line_of(item) == number
            assert f"{_code_point(bad[0])} at column {bad[1] + 1}" in str(item)


@pytest.mark.parametrize("kind", ["shikaku", "hashi"])
@settings(max_examples=200, **FUZZ)
@given(control_chars, st.integers(0, 2), st.integers(0, 3), st.sampled_from(["\n", "\r\n", "\r"]))
def test_control_characters_inside_text_grids_are_never_line_ends(kind, char, row, column, end):
    """A 3x3 Shikaku or Hashi text grid with a control or separator character in one row (any
    line end): one fault at that row's line naming the character, no puzzle, from a file and
    from the API's text reader alike."""
    rows = list(GRID_TEXTS[kind])
    rows[row] = rows[row][:column] + char + rows[row][column:]
    text = end.join(rows) + end
    (fault,) = list(read([text.encode()], kind))
    assert isinstance(fault, InputError) and line_of(fault) == row + 1, fault
    assert f"{_code_point(char)} at column {column + 1}" in str(fault)
    with pytest.raises(InputError, match=f"line {row + 1}: "):
        (hashi if kind == "hashi" else shikaku).parse(text, "t")


order_puzzles = st.one_of(
    four_puzzles.map(lambda cells: (cells, 2)),
    st.permutations(range(1, 10)).map(
        lambda p: (parse_line(GOOD9.translate(str.maketrans("123456789", "".join(map(str, p))))), 3)
    ),
)
GOOD9 = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


# the formats a puzzle of a mixed file may take: a Lloyd & Amos instance file is told by its
# first two lines (the order, then 1), so it is a whole file's format (tests/test_large_orders.py)
LINE_FORMATS = tuple(f for f in FORMATS if f != "lloyd-amos")
# the formats a 4x4 puzzle is detected in: its 16 comma-separated numbers on a line are a 16x16
# csv row unless --format csv-line is given (tests/test_sudoku_formats.py)
FOUR_FORMATS = tuple(f for f in FORMATS if f != "csv-line")
puzzles_and_formats = order_puzzles.flatmap(
    lambda puzzle: st.tuples(
        st.just(puzzle),
        st.sampled_from([f for f in LINE_FORMATS if puzzle[1] != 2 or f in FOUR_FORMATS]),
        st.booleans(),
    )
)


@settings(max_examples=300, **FUZZ)
@given(st.lists(puzzles_and_formats, min_size=1, max_size=8))
def test_every_format_mixed_in_one_file_is_read_puzzle_by_puzzle(puzzles):
    """4x4 and 9x9 puzzles, each in a random format (line, grid, rows, csv, tdoku, tsv, solo;
    csv-line at 9x9), with or without a blank line after it: each read in its own format, at
    its own line, with its cells (never by the first puzzle's format)."""
    text, want, line = "", [], 1
    for (cells, n), fmt, blank in puzzles:
        extra = {"count": 1} if fmt == "tdoku" else {}
        body = format_grid(cells, n, fmt, name="p" if fmt == "tsv" else "", **extra) + "\n"
        want.append((line, fmt, cells))
        line += body.count("\n") + blank
        text += body + "\n" * blank
    got = list(iter_puzzles(io.StringIO(text), name="f"))
    assert [(p.line, p.fmt) for p in got] == [(w[0], w[1]) for w in want], got
    assert all(np.array_equal(p.cells, w[2]) for p, w in zip(got, want, strict=True))


HUGE_FIELDS = {
    "solo-given": ("sudoku", lambda d: f"2x2:{d}o"),
    "solo-size": ("sudoku", lambda d: f"{d}x{d}:a"),
    "tdoku-count": ("sudoku", lambda d: f"{GOOD9}:{d}:"),
    "rows-cell": ("sudoku", lambda d: f"{d} 0 0 0\n0 0 0 0\n0 0 0 0\n0 0 0 0"),
    "csv-cell": ("sudoku", lambda d: f"{d},0,0,0\n0,0,0,0\n0,0,0,0\n0,0,0,0"),
    "tsv-cell": ("sudoku", lambda d: "a\t2\t" + d + ",0" * 15),
    "tsv-order": ("sudoku", lambda d: "a\t" + d + "\t" + ",".join(["0"] * 16)),
    "shikaku-clue": ("shikaku", lambda d: f"2x1:{d}"),
    "shikaku-cell": ("shikaku", lambda d: f"{d} 1\n1 1"),
    "hashi-m": ("hashi", lambda d: f"3x1m{d}:1a1"),
    "hashi-island": ("hashi", lambda d: f"3x1:1a{d}"),
    "hashi-cell": ("hashi", lambda d: f"{d} . 1"),
}
GOOD_OF = {"sudoku": "1...........4...", "shikaku": "2x1:2a", "hashi": "3x1m2:1a1"}


@settings(max_examples=200, **FUZZ)
@given(st.sampled_from(sorted(HUGE_FIELDS)), st.integers(25, 4900), st.sampled_from("19"),
       st.booleans())  # fmt: skip
@example("rows-cell", 81, "1", False)  # a number as long as a one-line puzzle: still a row's cell
@example("rows-cell", 625, "9", False)
@example("rows-cell", 4096, "1", False)
def test_numbers_of_thousands_of_digits_are_a_fault_of_their_line(field, digits, digit, zeros):
    """A field of 25 to 4,900 digits (or, for Shikaku and Hashi, a small number written with
    that many leading zeros), then a good puzzle: one short InputError at line 1 and the good
    puzzle read at its line; a text grid (a file of its own) is one fault. Never a ValueError
    from int()."""
    kind, make = HUGE_FIELDS[field]
    number = ("0" * (digits - 1) + "2") if zeros and kind != "sudoku" else digit * digits
    bad = make(number)
    grid = field.endswith("-cell") and kind != "sudoku"
    text = bad + "\n" if grid else bad + "\n\n" + GOOD_OF[kind] + "\n"
    got = list(read([text.encode()], kind))
    if zeros and kind != "sudoku" and isinstance(got[0], Item):  # a small number: may be read
        return
    fault = got[0]
    assert isinstance(fault, InputError) and line_of(fault) == 1 and len(str(fault)) < 400
    if grid:
        assert len(got) == 1
        return
    (item,) = got[1:]
    assert isinstance(item, Item) and item.line == bad.count("\n") + 3


@settings(max_examples=150, **FUZZ)
@given(st.lists(four_puzzles, min_size=1, max_size=5), st.sampled_from(FOUR_FORMATS),
       st.sampled_from(["text", "binary", "StringIO", "BytesIO"]),
       st.sampled_from(["\n", "\r\n", "\r"]))  # fmt: skip
def test_file_objects_read_as_the_file(tmp_path_factory, puzzles, fmt, mode, end):
    """Puzzles written to a file, passed as an open file (text or binary) or as StringIO /
    BytesIO: the same items at the same lines as the path, under the file's name (an in-memory
    stream: '<api>'); solved through the API with those lines."""
    sep = "\n\n" if fmt in ("grid", "rows") else "\n"
    extra = {"count": 0} if fmt == "tdoku" else {}
    text = sep.join(format_grid(c, 2, fmt, name="p", **extra) for c in puzzles) + "\n"
    path = tmp_path_factory.mktemp("files") / "p.txt"
    path.write_bytes(text.replace("\n", end).encode())
    want = [(x.line, x.givens_text) for x in read([str(path)])]
    assert len(want) == len(puzzles)
    if mode in ("text", "binary"):
        with open(path, "r" if mode == "text" else "rb") as f:
            got = list(read([f]))
            f.seek(0)
            results = gpu_anneal.solve(f, method="exact")
        assert {x.source for x in got} == {str(path)}
    else:
        data = path.read_bytes()
        got = list(read([io.StringIO(data.decode(), newline="") if mode == "StringIO"
                         else io.BytesIO(data)]))  # fmt: skip
        results = gpu_anneal.solve(io.BytesIO(data), method="exact")
    assert [(x.line, x.givens_text) for x in got] == want
    assert [r.line for r in results] == [w[0] for w in want] and all(r.solved for r in results)


# ---- Shikaku and Hashiwokakero -----------------------------------------------------------


@pytest.mark.parametrize("kind, good_ids", [("shikaku", SHIKAKU_IDS), ("hashi", HASHI_IDS)])
@settings(max_examples=300, **FUZZ)
@given(data=st.data())
def test_game_ids_among_random_ones_are_all_read(kind, good_ids, data):
    """A file of game IDs, good ones among random ones: every good one is read at its line;
    a random one is read (and then round-trips through its game ID) or is one fault."""
    good = data.draw(st.sampled_from(good_ids))
    lines = [good] + data.draw(st.lists(st.one_of(st.sampled_from(good_ids), game_ids),
                                        max_size=6))  # fmt: skip
    lines = [x.replace("\n", " ").replace("\r", " ") for x in lines]
    text = "\n".join(lines) + "\n"
    got = list(read([text.encode()], kind))
    by_line = {}
    for item in got:
        where = item.line if not isinstance(item, InputError) else line_of(item)
        assert where is not None, item
        by_line.setdefault(where, []).append(item)
    module = shikaku if kind == "shikaku" else hashi
    for number, gid in enumerate(lines, 1):
        items = by_line.get(number, [])
        assert len(items) <= 1
        if gid in good_ids:
            (item,) = items
            assert not isinstance(item, InputError)
        for item in items:
            if not isinstance(item, InputError):
                again = module.parse(module.to_game_id(item.puzzle))
                assert np.array_equal(again.grid, item.puzzle.grid)


# ---- schedules and option values ---------------------------------------------------------


@settings(max_examples=400, **FUZZ)
@given(schedule_strings, st.sampled_from([2, 3, 4]))
def test_schedule_strings_are_built_in_range_or_refused(text, order):
    """A schedule string is refused with OptionError, or gives finite temperatures, at least one
    move per plateau, a stall rule >= 0 and at most MAX_PLATEAUS plateaus."""
    try:
        s = by_name(text, order)
    except OptionError as exc:
        assert "\n" not in str(exc)
        return
    for value in (s.beta0, s.step, s.t0, s.t_final, s.e_p, s.delta):
        assert math.isfinite(value)
    assert s.beta0 > 0 and s.step > 0 and s.plateau >= 1 and s.stall >= 0
    assert 1 <= s.max_plateaus <= MAX_PLATEAUS


VALIDATORS = [
    (validate.seed, lambda v: 0 <= v < 2**64),
    (validate.time_limit, lambda v: 0 <= v <= validate.MAX_SECONDS),
    (validate.max_trials, lambda v: 1 <= v <= validate.MAX_TRIALS),
    (validate.batch, lambda v: 1 <= v <= validate.MAX_BATCH),
    (validate.workers, lambda v: 1 <= v <= validate.MAX_WORKERS),
    (validate.t0, lambda v: 0 < v <= validate.MAX_TEMPERATURE),
    (validate.order, lambda v: 2 <= v <= 6),
    (validate.chains, lambda v: 1 <= v <= validate.MAX_TOTAL_CHAINS),
    (validate.slice_seconds, lambda v: 0 < v <= validate.MAX_SLICE_SECONDS),
    (validate.replay_chain, lambda v: 0 <= v < 2**63),
]


@settings(max_examples=300, **FUZZ)
@given(st.sampled_from(VALIDATORS), any_value)
def test_option_validators_return_in_range_or_refuse(pair, value):
    """Every option validator, on any value: OptionError naming the range, or a plain int/float
    inside it (None only where None means the default)."""
    check, holds = pair
    try:
        got = check(value)
    except OptionError as exc:
        assert "\n" not in str(exc) and ("in " in str(exc) or "must" in str(exc))
        return
    if got is None:
        assert value is None
        return
    assert type(got) in (int, float) and holds(got)
    assert not isinstance(value, (bool, np.bool_))


# ---- the API on arrays -------------------------------------------------------------------

arrays = st.one_of(
    hnp.arrays(st.sampled_from([np.int8, np.uint8, np.int64, np.uint16, np.float64, np.bool_]),
               st.sampled_from([(16,), (2, 16), (3, 16), (15,), (4, 4), (1, 81)])),
    st.lists(four_puzzles, min_size=1, max_size=3).map(np.stack),
)  # fmt: skip


@settings(max_examples=150, **FUZZ)
@given(arrays)
def test_api_arrays_are_refused_or_solved_and_verified(array):
    """Random arrays through gpu_anneal.solve (exact method): InputError, or one result per grid
    (a row of (P, cells); a (4, 4) array is one grid) and every result claiming a solution holds
    one the verifier accepts for that grid."""
    if array.shape[-1] == 81:
        array = np.zeros_like(array)  # an empty 9x9 stays quick for the exact method
    try:
        results = gpu_anneal.solve(array, method="exact")
    except InputError as exc:
        assert "\n" not in str(exc)
        return
    one_grid = array.shape == (4, 4)  # (N, N): one 4x4 grid
    rows = array.reshape(1, 16) if one_grid else array.reshape(-1, array.shape[-1])
    assert len(results) == len(rows)
    for r in results:
        given_ = rows[r.index].astype(np.uint8)
        assert np.array_equal(rows[r.index], given_)  # accepted only when nothing was wrapped
        if r.solved:
            assert verify_solution(np.asarray(r.state), r.order, given_) is None


shapes = st.one_of(
    st.sampled_from([(16,), (81,), (4, 4), (9, 9), (16, 16), (1, 4, 4), (3, 9, 9), (2, 16),
                     (2, 81), (3, 3), (2401,), (2, 2, 4, 4), (4, 5), (0, 81), (0, 9, 9)]),
    st.lists(st.integers(0, 20), min_size=1, max_size=4).map(tuple),
)  # fmt: skip


@settings(max_examples=200, **FUZZ)
@given(shapes, st.sampled_from([None, 2, 3, 4]), st.booleans())
def test_array_and_list_shapes_are_read_as_grids_or_named(shape, order, as_list):
    """Blank grids of any shape, as an array or as nested lists, with or without an order: the
    grids its shape holds ((cells,) and (N, N) one, (P, cells) and (P, N, N) P), or one
    OptionError naming `puzzles` and the shape (or a fault of the order given)."""
    grids = np.zeros(shape, np.uint8)
    source = grids.tolist() if as_list else grids
    try:
        got = list(read([source], order=order))
    except OptionError:  # the list of lists of one shape as_sources takes as several sources
        raise
    if any(isinstance(x, InputError) for x in got):
        assert len(got) == 1 and "\n" not in str(got[0])
        message = str(got[0])
        assert message.startswith("puzzles: ") or message.startswith("<api>"), message
        return
    sides = {N: N * N for N in (4, 9, 16, 25, 36, 49, 64)}
    square = len(shape) in (2, 3) and shape[-1] == shape[-2] and shape[-1] in sides
    flat = len(shape) in (1, 2) and shape[-1] in sides.values()
    assert square or flat, shape
    cells = shape[-1] ** 2 if square and not (flat and order == 2) else shape[-1]
    assert len(got) == grids.size // cells and all(x.puzzle.size == cells for x in got)
    if order is not None:
        assert all(x.order == order for x in got)


# ---- resume records and claimed solutions ------------------------------------------------


def _record_and_item(puzzle: np.ndarray, solution: np.ndarray):
    """The JSON record that a solved result of this puzzle serialises to, and its Item."""
    (item,) = [x for x in read([line_text(puzzle) + "\n"]) if not isinstance(x, InputError)]
    result = base_result(item, "exact", "cpu")
    fill_solution(result, item, solution, True)
    return result.to_dict(), item


mutations = st.sampled_from(
    ["none", "index", "index-float", "solved-str", "hash", "line", "order", "kind", "swap",
     "cell", "rows-shape", "rows-type", "drop-identity", "solution-text", "text-swap",
     "text-none"]
)  # fmt: skip


@settings(max_examples=300, **FUZZ)
@given(four_pairs, mutations, st.integers(0, 15), st.integers(0, 15))
def test_resume_trusts_only_matching_verified_records(pair, mutation, a, b):
    """A solved record, mutated: resume trusts it exactly when its identity still equals the
    puzzle's and its solution still passes the verifier (judged here independently). Its index
    may differ (a run that read other files first), the record naming the puzzle's source and
    line; the source is the puzzle's here, so another whole index is trusted."""
    record, item = _record_and_item(*pair)
    rows = record["solution_rows"]
    if mutation == "index":
        record["index"] = 5
    elif mutation == "index-float":
        record["index"] = 0.0
    elif mutation == "solved-str":
        record["solved"] = "yes"
    elif mutation == "hash":
        record["givens_hash"] = "0" * 16
    elif mutation == "line":
        record["line"] = 2
    elif mutation == "order":
        record["order"] = 3
    elif mutation == "kind":
        record["kind"] = "hashi"
    elif mutation == "swap":
        rows[a // 4][a % 4], rows[b // 4][b % 4] = rows[b // 4][b % 4], rows[a // 4][a % 4]
    elif mutation == "cell":
        rows[a // 4][a % 4] = b
    elif mutation == "rows-shape":
        record["solution_rows"] = rows[:3]
    elif mutation == "rows-type":
        rows[0][0] = str(rows[0][0])
    elif mutation == "drop-identity":
        del record["givens_hash"]
    elif mutation == "solution-text":
        record["solution_rows"] = None
    elif mutation == "text-swap":  # the rows right, the text with two cells swapped
        text = list(record["solution"])
        text[a], text[b] = text[b], text[a]
        record["solution"] = "".join(text)
    elif mutation == "text-none":
        record["solution"] = None
    resume = ResumeFile("r.jsonl")
    resume._add(1, json.loads(json.dumps(record)))
    trusted = resume.holds(item)
    event(f"trusted {trusted}")
    want = item_identity(item)
    index = record["index"]
    whole = isinstance(index, int) and not isinstance(index, bool) and index >= 0
    assert record["source"] == item.source  # so an index of its own is no other puzzle's
    identity_ok = all(record.get(k) == want[k] for k in want) and whole
    identity_ok = identity_ok and record["solved"] is True
    grid, text = record["solution_rows"], record["solution"]  # both must hold the solution
    cells = None
    if grid is not None and all(isinstance(x, int) for row in grid for x in row):
        cells = np.array(grid, np.int64).ravel() if len(grid) == 4 else None
    solution_ok = cells is not None and verify_solution(cells, 2, item.puzzle) is None
    solution_ok = solution_ok and text is not None and len(text) == 16
    solution_ok = solution_ok and np.array_equal(parse_line(text, 2, check=False), cells)
    assert trusted == (identity_ok and solution_ok), (mutation, record)


@settings(max_examples=150, **FUZZ)
@given(four_pairs, st.integers(0, 15), st.integers(0, 15), st.sampled_from([None, 0, 1, 2]))
def test_check_accepts_a_claimed_solution_only_when_it_verifies(pair, a, b, count):
    """tdoku `puzzle:count:solution` with a solution, two of its cells swapped: check says ok
    only when the claimed grid is a solution of the givens and the claimed count holds."""
    puzzle, claimed = pair[0], pair[1].copy()
    claimed[a], claimed[b] = claimed[b], claimed[a]
    text = format_grid(puzzle, 2, "tdoku", count=count, solution=claimed)
    (item,) = list(iter_puzzles(io.StringIO(text + "\n"), check=False))
    record = check_puzzle(item, 0)
    solution_ok = verify_solution(claimed, 2, puzzle) is None
    assert record["solution_ok"] == solution_ok
    if record["ok"]:
        assert solution_ok
        assert record["solutions"] == (1 if count is None else record["expected"])


# ---- the command line --------------------------------------------------------------------

option_values = {
    "--chains": st.one_of(st.integers(1, 3), st.integers(-(10**20), 0), st.integers(10**10)),
    "--batch": st.one_of(st.integers(1, 3), st.integers(-5, 0), st.integers(10**7, 10**9)),
    "--seed": st.integers(-(2**70), 2**70),
    "--t0": st.one_of(st.floats(0.5, 5), st.sampled_from(["nan", "inf", "-1", "0", "1e30", "x"])),
    "--schedule": st.one_of(st.sampled_from(["sirdey-course", "geometric", "sirdey-paper"]),
                            schedule_strings),
    "--move": st.sampled_from(["sirdey", "candidate", "box-swap", "all", "bogus"]),
    "--method": st.sampled_from(["anneal", "exact", "ilp", "bogus"]),
    "--workers": st.integers(-3, 0),
    "--format": st.sampled_from(["line", "grid", "tsv", "xml"]),
}  # fmt: skip


@settings(max_examples=60, **FUZZ)
@given(
    st.lists(st.one_of(four_puzzles.map(line_text), garbage_line.map(latin1)),
             min_size=1, max_size=3),
    st.dictionaries(st.sampled_from(sorted(option_values)), st.just(None), max_size=3),
    st.data(),
)  # fmt: skip
def test_command_line_exit_codes_and_answers(tmp_path_factory, lines, chosen, data):
    """`gpu-anneal solve` with random options: exit code 0, 1, 2 or 130 (never 3, never a
    traceback); every solved record verifies; a fault is one 'gpu-anneal:' line."""
    path = tmp_path_factory.mktemp("fuzz") / "p.txt"
    path.write_bytes("\n".join(lines).encode("latin-1") + b"\n")
    args = ["solve", str(path), "--output", "jsonl"]
    values = {option: str(data.draw(option_values[option])) for option in chosen}
    for option, value in values.items():
        args += [option, value]
    if values.get("--method", "anneal") == "anneal":  # valid runs stay short: limits always set
        limit = data.draw(st.sampled_from(["0.5", "1", "-1", "nan", "x"]))
        trials = data.draw(st.one_of(st.integers(1, 6), st.integers(-3, 0)))
        args += ["--time-limit", limit, "--max-trials", str(trials)]
    result = runner.invoke(app, args)
    event(f"exit code {result.exit_code}")
    assert result.exit_code in (0, 1, 2, 130), (args, result.output)
    assert "Traceback" not in result.output and "internal error" not in result.stderr, args
    for line in result.stderr.splitlines():
        assert line.startswith("gpu-anneal: "), (args, line)
    for out in result.stdout.splitlines():
        r = json.loads(out)
        if r["solved"]:
            grid = np.array(r["solution_rows"], np.uint8).ravel()
            assert verify_solution(grid, r["order"], parse_line(r["puzzle"])) is None


# ---- standard streams that close or fill ---------------------------------------------------

# command -> (its arguments, the exit code with every stream open, whether it reads stdin)
STREAM_COMMANDS = {
    "solve": ("solve {p} --method exact --output jsonl --out {o}", 0, False),
    "solve -": ("solve - --method exact < {p}", 0, True),
    "check": ("check {p}", 1, False),  # the two puzzles have more than one solution
    "generate": ("generate --order 2 --count 3 --method backtrack", 0, False),
    "generate shikaku": ("generate --kind shikaku --size 4x4 --count 3 --output jsonl", 0, False),
}
STDOUT_FAULTS = {"stdout closed": ">&-", "stdout full": "> /dev/full",
                 "stdout reader gone": "| head -c 1 > /dev/null"}  # fmt: skip
OTHER_FAULTS = {"stderr closed": "2>&-", "stderr full": "2> /dev/full", "stdin closed": "<&-"}
stream_faults = st.one_of(  # (stdout's fault or None, the others): at least one fault
    st.tuples(st.sampled_from(sorted(STDOUT_FAULTS)),
              st.sets(st.sampled_from(sorted(OTHER_FAULTS)), max_size=2)),
    st.tuples(st.none(), st.sets(st.sampled_from(sorted(OTHER_FAULTS)), min_size=1, max_size=2)),
)  # fmt: skip


@settings(max_examples=12, **FUZZ)
@given(st.sampled_from(sorted(STREAM_COMMANDS)), stream_faults)
def test_closed_and_full_streams_end_with_one_line_and_lose_nothing(tmp_path_factory, command,
                                                                    faults):  # fmt: skip
    """A command with stdout closed, full or read by a reader that leaves at once, and stderr or
    stdin closed or full: exit 0, 1 or 2 (never 3, never death by a signal); exit 2 when stdout
    took no result, or when the command reads a closed stdin; otherwise the exit code of a run
    with every stream open. stderr, where it is left, holds 'gpu-anneal:' lines only; --out
    holds only verified results, each once, all of them when the run ended well."""
    tmp = tmp_path_factory.mktemp("streams")
    path, out = tmp / "p.txt", tmp / "r.jsonl"
    path.write_text("1...........4...\n..3.4.........2.\n")
    args, usual, reads_stdin = STREAM_COMMANDS[command]
    stdout_fault, others = faults
    program = " ".join(f"'{part}'" for part in (sys.executable, "-m", "cli.main"))
    redirects = " ".join(OTHER_FAULTS[name] for name in sorted(others))
    tail = STDOUT_FAULTS[stdout_fault] if stdout_fault else ""
    line = f"{program} {args.format(p=path, o=out)} {redirects} {tail}; exit ${{PIPESTATUS[0]}}"
    run = subprocess.run(["bash", "-c", line], cwd=tmp, capture_output=True, text=True,
                         timeout=300)  # fmt: skip
    event(f"{command}: exit code {run.returncode}")
    assert run.returncode in (0, 1, 2), (line, run.returncode, run.stderr[-2000:])
    for text in (run.stdout, run.stderr):
        assert "Traceback" not in text and "internal error" not in text, (line, text[-2000:])
    assert all(x.startswith("gpu-anneal: ") for x in run.stderr.splitlines() if x.strip()), line
    if reads_stdin and "stdin closed" in others or stdout_fault in ("stdout closed", "stdout full"):
        assert run.returncode == 2, (line, run.stderr)
    elif stdout_fault is None:
        assert run.returncode == usual, (line, run.stderr)
    else:  # the reader left: all of it fit in the pipe first, or the run stopped there
        assert run.returncode in (usual, 2), (line, run.stderr)
    if out.exists():
        records = [json.loads(x) for x in out.read_text().splitlines()]
        assert len({r["index"] for r in records}) == len(records)
        for r in records:
            grid = np.array(r["solution_rows"], np.uint8).ravel()
            assert r["solved"] and verify_solution(grid, 2, parse_line(r["puzzle"])) is None
        if run.returncode == usual:
            assert len(records) == 2, line
