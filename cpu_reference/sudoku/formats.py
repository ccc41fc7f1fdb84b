"""Sudoku puzzle formats: streaming readers with one-line error messages (the writer:
cpu_reference.sudoku.format_writer).

Glossary of index names (as in sudoku_layout):
    n       order: box side (2..8)
    N       side of the grid and number of digits, N = n * n
    cells   number of cells, N * N
    c       cell index, row-major: c = r * N + k
    r, k    row and column of a cell, 0-based in code, 1-based in messages (r1c1 is the top left)
    d       digit, 1..N; 0 means blank
    L       1-based line number in the input

Formats (FORMATS), detected puzzle by puzzle from each puzzle's own lines (blank lines and `#`
comments passed over; cpu_reference.sudoku.puzzle_lines says how lines become puzzles), or chosen
for a whole input with `fmt`:

    line    one puzzle per line, one symbol per cell, `.` or `0` blank. Digit d is written as
            SYMBOLS[d - 1] with SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ": 1-9 for 9x9,
            1-9 then A-G for 16x16 (A = 10 ... G = 16), 1-9 then A-P for 25x25 (P = 25). Letters
            are read in either case and written in upper case. The order follows from the length
            (16, 81, 256 or 625 cells). Text after whitespace is a comment and becomes the
            puzzle's name (a leading `#` dropped): `4.....8.5...  # aiescargot`.
    grid    N lines of N symbols (the line symbols, no separators) per puzzle; puzzles separated by
            blank lines or consecutive. A `|` between boxes is passed over, and so is a line of
            `-`, `+`, `=`, `|` alone (Simple Sudoku's .ss files: `4..|...|8.5`, `-----------`).
    rows    N lines of N whitespace-separated decimal numbers, 0 or `.` blank, per puzzle;
            puzzles separated by blank lines or consecutive. A number may carry a leading `+`
            (as int() reads it; a `-` is refused), and text from a `#` on is a comment. A grid
            printed with its boxes drawn reads as rows: a `|` is a space, and a line of `-`,
            `+`, `=`, `|` alone (`------+------+------`) is passed over like a comment.
    csv     N lines of N comma-separated numbers per puzzle, as a spreadsheet saves a grid: a
            blank is an empty field, 0 or -1, a comma may end a line (N + 1 fields, the last
            empty), and text from a `#` on is a comment. A line without a comma may separate
            its numbers by `;` (a spreadsheet's where `,` is the decimal mark), and a field
            may be in double quotes (`"5"`, `""`). Solutions are written with commas.
    csv-line  one puzzle a line: its N*N cells as csv numbers (blanks, `;`, quotes and a
            trailing comma as csv reads them); text from a `#` on is a comment and becomes the
            puzzle's name. Detected for every count of cells but 16 (a line of 16 fields is a
            16x16 csv row unless the format is given).
    tdoku   `puzzle:count:solution` (tdoku's test set): a line-form puzzle, the number of
            solutions (tdoku writes 2 for "two or more") and a line-form solution; the count and
            the solution may be left out or empty.
    tsv     `name<TAB>n<TAB>N*N comma-separated numbers`, 0 blank (Lloyd & Amos' benchmark).
    solo    Simon Tatham's Solo game ID `nxn:description`: the letters a-z stand for runs of 1-26
            blank cells, decimal numbers for givens, `_` separates two adjacent numbers (read
            anywhere as a no-op). Parameters after `nxn` (`3x3dh:`) are ignored; only square
            boxes are supported, and jigsaw or killer descriptions are refused.
    lloyd-amos  Lloyd & Amos' published instance files (`inst{N}x{N}_{f}_{k}.txt`): the order n
            alone on a line, a `1` alone on the next, then N rows of N tab-separated numbers
            (each may be followed by a tab), -1 blank; lines may end in "\r\n". Several such
            blocks may follow one another (blank lines between them passed over). Detected
            for a whole input when its first two lines are a number alone and `1`:

                8               order (64x64)
                1
                -1<TAB>3<TAB>-1<TAB>...<TAB>    row 1: 64 numbers
                ...                             rows 2 .. 64

In grid and rows each puzzle's side N is taken from its own first row (or from `order`); it
takes N lines (fewer if a blank line, or another puzzle's line, ends it early, which is a fault
of that puzzle). Auto-detection tells 16-symbol 4x4 line puzzles from the rows of a 16x16 grid
by the run of such lines: its length, its symbols (a digit above 4 is no 4x4 digit) and which
reading holds; where neither does it says so and asks for a format.

The symbol forms (line, grid, tdoku) have 35 symbols, so they serve orders 2..5 (4x4 to 25x25):
a 36x36 puzzle in one of them is refused at reading, since its solution could not be written
back in the same form; rows, csv, csv-line, tsv, solo and lloyd-amos serve every order 2..8
(FORMAT_ORDERS). No one-symbol table beyond these 35 symbols is read or written, so 36x36, 49x49
and 64x64 take one of the number formats.

Input is read by cpu_reference.sources: paths, stdin, FIFOs and file objects, gzip data unpacked,
UTF-16 / UTF-32 with a byte-order mark decoded, lines ended by "\n", "\r\n" or "\r" only, binary
data refused whole. A line may hold at most MAX_LINE characters, so files of any length stream.
Bytes are decoded line by line: a line that is not UTF-8, holds a NUL byte or another control or
separator character, or is too long is a fault of that line (and of the grid or rows puzzle it
belongs to); the lines after it are still read. Numbers are bounded before they are converted
(cpu_reference.fields): a field of thousands of digits is a fault of its puzzle. A malformed
puzzle, or a run of lines that make no puzzle, is yielded as an InputError naming the input, the
line and the fault; the whole input is refused (InputError raised) only when it is missing,
empty, binary or unreadable, or `fmt` or `order` is unknown, or after MAX_BAD_RUN unreadable
lines in a row.
"""

from __future__ import annotations

import io
import itertools
import math
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache, partial

import numpy as np
from numba import njit

from cpu_reference.errors import InputError
from cpu_reference.fields import a_number, shown, whole_number
from cpu_reference.sources import Source, Unreadable, line_fault, open_source
from cpu_reference.sources import lines as read_lines
from cpu_reference.sudoku import puzzle_lines
from cpu_reference.sudoku.layout import MAX_ORDER, MIN_ORDER, layout
from cpu_reference.sudoku.puzzle_lines import FOUR_N, Piece, shape_of

FORMATS = ("line", "grid", "rows", "csv", "csv-line", "tdoku", "tsv", "solo", "lloyd-amos")
SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
# a line's most characters: a 64x64 tsv line (4,096 numbers of up to two digits) is about
# 12,300, a csv-line one with quoted fields and ", " between them ('"-1", ') up to 24,576
MAX_LINE = 65_536
ORDERS = tuple(range(MIN_ORDER, MAX_ORDER + 1))
SIDES = tuple(n * n for n in ORDERS)  # 4, 9, 16, 25, 36, 49, 64
CELL_COUNTS = tuple(n**4 for n in ORDERS)  # 16, 81, 256, 625, 1296, 2401, 4096
SYMBOL_FORMATS = ("line", "grid", "tdoku")  # one symbol per cell: digits up to len(SYMBOLS)
ROWS_BLANKS = (".",)  # rows fields read as a blank besides 0, as printed grids show one
CSV_BLANKS = ("", "-1")  # csv fields read as a blank besides 0: a spreadsheet's empty cell, -1
MAX_SYMBOL_ORDER = max(n for n in ORDERS if n * n <= len(SYMBOLS))  # 5: 25x25
_SYMBOL_COUNTS = {n**4: n for n in ORDERS if n <= MAX_SYMBOL_ORDER}  # cells -> order
# The orders each format serves (reads, and writes solutions in).
FORMAT_ORDERS = {
    fmt: tuple(n for n in ORDERS if fmt not in SYMBOL_FORMATS or n <= MAX_SYMBOL_ORDER)
    for fmt in FORMATS
}
MAX_COUNT = 2**63 - 1  # the largest solution count a tdoku line may claim

_LUT = np.full(256, 255, dtype=np.uint8)
_LUT[ord(".")] = 0
_LUT[ord("0")] = 0
for _i, _s in enumerate(SYMBOLS):
    _LUT[ord(_s)] = _i + 1
    _LUT[ord(_s.lower())] = _i + 1
_LUT.setflags(write=False)

_SOLO_HEAD = re.compile(r"([0-9]+)x([0-9]+)([A-Za-z0-9]*):")
_SOLO_JIGSAW = re.compile(r"[0-9]+j")  # Solo's jigsaw game IDs: `3j:...`
_PATH_END = re.compile(r"\.(txt|tsv|csv|sdk|sudoku)$", re.IGNORECASE)
_UNIT_KIND = ("row", "column", "box")


@dataclass
class Puzzle:
    """One puzzle read from an input, with where it came from."""

    cells: np.ndarray  # uint8[N*N], 0 = blank, row-major
    order: int  # n
    line: int  # 1-based line number where the puzzle starts
    name: str = ""  # tsv name, or the comment after a one-line puzzle
    fmt: str = "line"  # format it was read in, one of FORMATS
    expected_count: int | None = None  # tdoku's count field
    expected_solution: np.ndarray | None = None  # tdoku's solution field, uint8[N*N]
    separator: str = ","  # csv, csv-line: the separator it was read with (CSV_SEPARATORS)

    @property
    def N(self) -> int:
        """Side of the grid and number of digits, n * n."""
        return self.order * self.order

    @property
    def cells_count(self) -> int:
        """Number of cells, N * N."""
        return self.N * self.N

    @property
    def givens(self) -> int:
        """Number of nonblank cells."""
        return int(np.count_nonzero(self.cells))


class _Fault(Exception):
    """A fault of one puzzle; `at` is the line it was found on when not the puzzle's first."""

    def __init__(self, msg: str, at: int | None = None):
        super().__init__(msg)
        self.msg = msg
        self.at = at


def _rc(c: int, N: int) -> str:
    return f"r{c // N + 1}c{c % N + 1}"


def _size_fault(count: int, order: int | None, what: str = "cells") -> str:
    if order is not None:
        return f"{count} {what}, expected {order**4} ({order * order}x{order * order})"
    best = min(ORDERS, key=lambda n: abs(n**4 - count))
    N = best * best
    sizes = ", ".join(str(x) for x in CELL_COUNTS)
    return f"{count} {what}, expected {best**4} ({N}x{N}); a Sudoku has {sizes} cells"


def _order_of(count: int, order: int | None, what: str = "cells") -> int:
    if order is not None:
        if count != order**4:
            raise _Fault(_size_fault(count, order, what))
        return order
    if count in CELL_COUNTS:
        return CELL_COUNTS.index(count) + MIN_ORDER
    raise _Fault(_size_fault(count, None, what))


def _decode_symbols(
    text: str, N: int, first_cell: int = 0, grid_N: int | None = None
) -> np.ndarray:
    """Line symbols to digits; a fault names the cell (counted from first_cell) and symbol."""
    grid_N = N if grid_N is None else grid_N
    try:
        raw = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    except UnicodeEncodeError:
        raw = None
    if raw is not None:
        vals = _LUT[raw]
        bad = np.flatnonzero(vals > grid_N)
        if bad.size == 0:
            return vals.copy()
        i = int(bad[0])
    else:
        i = next(j for j, ch in enumerate(text) if ord(ch) > 127 or _LUT[ord(ch)] > grid_N)
    raise _Fault(
        f"cell {_rc(first_cell + i, grid_N)}: symbol {text[i]!r} is not a digit of a "
        f"{grid_N}x{grid_N} grid"
    )


def _split_comment(text: str) -> tuple[str, str]:
    """The first whitespace-separated token and the comment after it (a leading # dropped)."""
    parts = text.strip().split(None, 1)
    if not parts:
        return "", ""
    rest = parts[1].strip() if len(parts) > 1 else ""
    if rest.startswith("#"):
        rest = rest[1:].strip()
    return parts[0], rest


def _unit_label(u: int, N: int) -> str:
    return f"{_UNIT_KIND[u // N]} {u % N + 1}"


def check_givens(cells: np.ndarray, order: int) -> str | None:
    """Fault of a puzzle's givens (size, range, a digit twice in a unit) as one line, or None."""
    n = order
    if n not in ORDERS:
        return f"order {n} is outside {MIN_ORDER}..{MAX_ORDER}"
    N = n * n
    a = np.asarray(cells).ravel()
    if a.size != N * N:
        return _size_fault(int(a.size), n)
    if a.dtype.kind not in "iub":
        return f"cells have type {a.dtype}, expected integers"
    if a.min() < 0 or a.max() > N:
        c = int(np.flatnonzero((a < 0) | (a > N))[0])
        return f"cell {_rc(c, N)} holds {int(a[c])}, outside 0..{N}"
    units, offsets = _unit_keys(n)
    keys = (a[units] + offsets).ravel()  # (unit, digit) pairs, [3N, N]
    counts = np.bincount(keys, minlength=3 * N * (N + 1))
    counts[:: N + 1] = 0  # blanks
    if counts.max() <= 1:
        return None
    counts = counts.reshape(3 * N, N + 1)
    lay = layout(n)
    vals = a.astype(np.int64)[lay.units]
    dup = np.argwhere(counts > 1)
    if dup.size == 0:
        return None
    u, d = (int(x) for x in dup[0])
    where = ", ".join(_rc(int(c), N) for c in lay.units[u][vals[u] == d][:2])
    return f"digit {d} given twice in {_unit_label(u, N)} ({where})"


@cache
def _unit_keys(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(cells of each unit as indices [3N, N], (N + 1) x the unit's row [3N, 1]): a cell's
    digit plus its unit's offset is a (unit, digit) key."""
    N = n * n
    units = layout(n).units.astype(np.intp)
    return units, ((N + 1) * np.arange(3 * N, dtype=np.intp))[:, None]


def _checked(cells: np.ndarray, n: int) -> np.ndarray:
    fault = check_givens(cells, n)
    if fault is not None:
        raise _Fault(fault)
    return cells


@njit(cache=True, nogil=True)
def _decode_checked(raw, lut, n, out):
    """Symbols `raw` (bytes of a one-line puzzle of order n) into digits `out`; 0 when every
    symbol is a digit of the grid and no digit is given twice in a unit, else 1 (the slow path
    then names the fault). One pass: a bit a digit in each row's, column's and box's word."""
    N = n * n
    rows = np.zeros(N, np.uint64)
    cols = np.zeros(N, np.uint64)
    boxes = np.zeros(N, np.uint64)
    for i in range(N * N):
        v = lut[raw[i]]
        if v > N:
            return 1
        out[i] = v
        if v == 0:
            continue
        bit = np.uint64(1) << np.uint64(v - 1)
        r = i // N
        c = i - r * N
        b = (r // n) * n + c // n
        if (rows[r] | cols[c] | boxes[b]) & bit:
            return 1
        rows[r] |= bit
        cols[c] |= bit
        boxes[b] |= bit
    return 0


def _fast_line(token: str, order: int | None) -> tuple[np.ndarray, int] | None:
    """(digits, order) of a one-line puzzle whose symbols and givens are sound, or None: the
    slow path (_parse_symbol_line and _checked) then reads it and names its fault."""
    count = len(token)
    if count not in _SYMBOL_COUNTS or (order is not None and count != order**4):
        return None
    try:
        raw = np.frombuffer(token.encode("ascii"), np.uint8)
    except UnicodeEncodeError:
        return None
    n = _SYMBOL_COUNTS[count]
    out = np.empty(count, np.uint8)
    return (out, n) if _decode_checked(raw, _LUT, n, out) == 0 else None


def _parse_symbol_line(token: str, order: int | None, fmt: str = "line") -> tuple[np.ndarray, int]:
    numbers = _numbers_line_fault(token)
    if numbers is not None:
        raise _Fault(numbers)
    n = _order_of(len(token), order)
    if n > MAX_SYMBOL_ORDER:
        raise _Fault(_symbol_order_fault(n, fmt))
    return _decode_symbols(token, n * n), n


def _numbers_line_fault(token: str) -> str | None:
    """Why a line of comma- (or semicolon-) separated numbers is no one-symbol-a-cell puzzle,
    and the forms that hold such numbers; None for any other token."""
    sep = puzzle_lines.csv_separator(token)
    if sep is None:
        return None
    parts = [p.strip() for p in puzzle_lines.comma_fields(token)]  # quotes, trailing comma
    if not all(p.lstrip("+-").isdigit() or p in CSV_BLANKS for p in parts):
        return None
    if not any(p.lstrip("+-").isdigit() for p in parts):
        return None
    count, numbers = len(parts), f"{len(parts)} {puzzle_lines.CSV_SEPARATORS[sep]} numbers"
    if count in SIDES and count not in CELL_COUNTS:
        return (
            f"{numbers} on one line, a row of a {count}x{count} grid? "
            f"read its {count} rows as csv (--format csv)"
        )
    if count not in CELL_COUNTS:
        sizes = ", ".join(str(x) for x in CELL_COUNTS)
        return f"{numbers} on one line; a Sudoku has {sizes} cells"
    return (
        f"{numbers} on one line, where one symbol a cell was expected; read a puzzle of "
        "numbers a line as csv-line (--format csv-line)"
    )


def _symbol_order_fault(n: int, fmt: str) -> str:
    """Why a symbol format (line, grid, tdoku) cannot hold an order-n puzzle."""
    N = n * n
    top = MAX_SYMBOL_ORDER * MAX_SYMBOL_ORDER
    *some, last = [f for f in FORMATS if n in FORMAT_ORDERS[f]]
    others = f"{', '.join(some)} or {last}" if some else last
    return (
        f"a {N}x{N} puzzle in the {fmt} format, which serves grids up to {top}x{top} "
        f"({len(SYMBOLS)} symbols: 1-9, A-Z); give {N}x{N} puzzles as {others}"
    )


def _width_fault(width: int, fmt: str, rows: int = 1, first: str = "") -> str:
    """Why rows of `width` symbols (numbers) make no grid that fmt serves: the first row of a
    grid (its text `first`), or a run of `rows` such rows."""
    what = {"rows": "numbers", "csv": _csv_numbers(first)}.get(fmt, "symbols")
    text = f"{width} {what} on the first row" if rows == 1 else f"{rows} rows of {width} {what}"
    served = FORMAT_ORDERS[fmt]
    n = math.isqrt(width)
    if n * n == width and n in ORDERS:  # an order that another format serves
        return f"{text}: " + _symbol_order_fault(n, fmt)
    sides = ", ".join(f"{m * m}x{m * m}" for m in served)
    orders = f"orders {served[0]}..{served[-1]} ({sides})"
    if n * n == width and n >= 2:
        return f"{text}: a {width}x{width} Sudoku (order {n}) is not supported; {orders} are"
    widths = ", ".join(str(m * m) for m in served)
    return f"{text}; a Sudoku row has {widths} {what}: {orders} (or pass the order)" + (
        _no_number(first) if fmt == "rows" else ""
    )


def _no_number(row: str) -> str:
    """'; WORD is no number' for the first field of a rows line that is neither a number nor a
    blank (text that is no puzzle: "hello world"), else ''."""
    for field in puzzle_lines.row_numbers(row.split("#", 1)[0]):
        if field not in ROWS_BLANKS and not a_number(field):
            return f"; {shown(field)} is no number"
    return ""


def _parse_csv_line(body: str, order: int | None) -> tuple[np.ndarray, int]:
    """(digits, order) of a csv-line puzzle (its text without the comment)."""
    parts = puzzle_lines.comma_fields(body)  # a trailing comma after any puzzle's cells dropped
    n = _order_of(len(parts), order, _csv_numbers(body))
    return _parse_numbers(parts, n * n, 0, also_blank=CSV_BLANKS), n


def _csv_numbers(text: str) -> str:
    """`comma-separated numbers`, or `semicolon-separated numbers` for a csv row separated by
    `;`."""
    sep = puzzle_lines.csv_separator(text if isinstance(text, str) else "") or ","
    return f"{puzzle_lines.CSV_SEPARATORS[sep]} numbers"


def _parse_tdoku(
    token: str, order: int | None
) -> tuple[np.ndarray, int, int | None, np.ndarray | None]:
    parts = token.split(":")
    if len(parts) > 3:
        raise _Fault(f"{len(parts)} ':'-separated fields, expected puzzle:count:solution")
    cells, n = _parse_symbol_line(parts[0], order, "tdoku")
    count = None
    if len(parts) > 1 and parts[1] != "":
        count = whole_number(parts[1], MAX_COUNT)
        if count is None:
            digits = parts[1].isascii() and parts[1].isdigit()
            why = f"is over {MAX_COUNT}" if digits else "is not a whole number"
            raise _Fault(f"count {shown(parts[1])} {why}")
    solution = None
    if len(parts) > 2 and parts[2] != "":
        if len(parts[2]) != n**4:
            raise _Fault("solution: " + _size_fault(len(parts[2]), n))
        try:
            solution = _decode_symbols(parts[2], n * n)
        except _Fault as f:
            raise _Fault("solution " + f.msg) from None
    return cells, n, count, solution


# a -1 where 0 is the blank: a Lloyd & Amos file whose head (the order, then `1`) is missing
LLOYD_AMOS_BLANK_HINT = (
    "; -1 is a blank in a Lloyd & Amos file, which starts with the order alone on a line and "
    "`1` on the next"
)


def _parse_numbers(
    parts: list[str],
    N: int,
    first_cell: int,
    what: str = "number",
    blank: str = "0",
    also_blank: tuple[str, ...] = (),
) -> np.ndarray:
    """The digits of number fields, 0 for a blank: `blank` is the field a blank cell holds ("0";
    "-1" in Lloyd & Amos files, where 0 in any writing is no digit), `also_blank` other fields
    read as blank (csv's empty field and -1)."""
    zero_is_blank = blank == "0"
    out = np.zeros(len(parts), dtype=np.uint8)
    for i, p in enumerate(parts):
        p = p.strip()
        if p == blank or p in also_blank:
            continue
        if len(p) <= 2 and p.isdigit() and p.isascii():  # most cells: int() of two digits at most
            value = int(p)
            value = value if value <= N else None
        else:
            value = whole_number(p, N, plus=True)
        if value is None or (value == 0 and not zero_is_blank):
            digits = f"0..{N}" if blank == "0" else f"1..{N} or {blank} (blank)"
            hint = LLOYD_AMOS_BLANK_HINT if p == "-1" and blank == "0" else ""
            raise _Fault(
                f"cell {_rc(first_cell + i, N)}: {what} {shown(p)} is not a digit {digits} of a "
                f"{N}x{N} grid{hint}"
            )
        out[i] = value
    return out


def _parse_tsv(raw: str, order: int | None) -> tuple[np.ndarray, int, str]:
    fields = raw.split("\t")
    if len(fields) != 3:
        raise _Fault(f"{len(fields)} tab-separated fields, expected name<TAB>n<TAB>cells")
    name, ntext, body = fields[0].strip(), fields[1].strip(), fields[2].strip()
    n = whole_number(ntext, MAX_ORDER)
    if n not in ORDERS:
        raise _Fault(f"order field {shown(ntext)} is not an order {MIN_ORDER}..{MAX_ORDER}")
    if order is not None and n != order:
        raise _Fault(f"order {n}, expected {order}")
    parts = body.split(",") if body else []
    if len(parts) != n**4:
        raise _Fault(_size_fault(len(parts), n))
    return _parse_numbers(parts, n * n, 0), n, name


# what a Solo fault adds where the line may be a Shikaku or Hashi game ID
KIND_HINT = " (a Shikaku or Hashi game ID? solve and render read those with --kind)"


def _parsesolo_description(token: str, order: int | None) -> tuple[np.ndarray, int]:
    m = _SOLO_HEAD.match(token)
    if not m:
        if _SOLO_JIGSAW.match(token):
            raise _Fault(f"{shown(token.split(':', 1)[0] + ':')} is a Solo jigsaw game ID; only "
                         "Sudoku of n x n boxes (RxC:description) is supported")  # fmt: skip
        raise _Fault(f"{shown(token[:20])} is not a Solo game ID RxC:description")
    R, C = (whole_number(g, 10**6) for g in m.group(1, 2))
    if R is None or C is None:  # more digits than any box side has
        boxes = "x".join(shown(g, quote=False) for g in m.group(1, 2))
        raise _Fault(f"Solo boxes {boxes}: order outside {MIN_ORDER}..{MAX_ORDER}")
    if R != C:
        raise _Fault(f"Solo boxes {R}x{C} are not square; only n x n boxes are supported")
    n = R
    if n not in ORDERS:
        raise _Fault(f"Solo order {n} is outside {MIN_ORDER}..{MAX_ORDER}{KIND_HINT}")
    if order is not None and n != order:
        raise _Fault(f"order {n}, expected {order}")
    N = n * n
    desc = token[m.end() :]
    if "," in desc:
        raise _Fault("Solo jigsaw and killer descriptions are not supported")
    cells = np.zeros(N * N, dtype=np.uint8)
    c = 0
    i = 0
    while i < len(desc):
        ch = desc[i]
        if "a" <= ch <= "z":
            c += ord(ch) - ord("a") + 1
            i += 1
        elif ch == "_":
            i += 1
        elif ch.isascii() and ch.isdigit():
            j = i
            while j < len(desc) and desc[j].isascii() and desc[j].isdigit():
                j += 1
            d = whole_number(desc[i:j], N)
            if c < N * N:
                if not d:  # None: more digits than N has
                    given = shown(desc[i:j], quote=False)
                    raise _Fault(f"cell {_rc(c, N)}: given {given} is not a digit 1..{N}")
                cells[c] = d
            c += 1
            i = j
        else:
            raise _Fault(f"Solo description: unexpected character {ch!r} at position {i + 1}")
    if c != N * N:
        hint = KIND_HINT if c < N * N else ""  # Tatham's rect and bridges IDs look alike
        raise _Fault("Solo description: " + _size_fault(c, n) + hint)
    return cells, n


def parse_line(text: str, order: int | None = None, *, check: bool = True) -> np.ndarray:
    """Cells (uint8[N*N]) of one puzzle in a one-line form: line, tdoku, tsv, solo, or N*N
    comma- (or semicolon-) separated numbers as csv reads them; InputError with a one-line
    message on a fault (and, when check, on a digit given twice in a unit, or a control
    character in the text)."""
    if not isinstance(text, str):
        decode = " (decode bytes first)" if isinstance(text, (bytes, bytearray)) else ""
        raise InputError(f"text: a {type(text).__name__}; expected the puzzle's line as a "
                         f"str{decode}")  # fmt: skip
    _check_order(order)
    fault = line_fault(text.strip())
    if fault is not None:
        raise InputError(fault)
    text = text.strip()
    try:
        fmt = shape_of(text).kind if text else "line"
        if fmt == "tsv":
            cells, n, _ = _parse_tsv(text, order)
        elif fmt == "solo":
            cells, n = _parsesolo_description(_split_comment(text)[0], order)
        elif fmt == "tdoku":
            cells, n, _, _ = _parse_tdoku(_split_comment(text)[0], order)
        elif puzzle_lines.csv_separator(_split_comment(text)[0]):  # numbers, not a name's
            cells, n = _parse_csv_line(text.split("#", 1)[0].strip(), order)
        else:
            cells, n = _parse_symbol_line(_split_comment(text)[0], order)
        if check:
            _checked(cells, n)
    except _Fault as f:
        raise InputError(f.msg) from None
    return cells


def _check_order(order) -> None:
    """InputError unless order is None or an order the readers take (an int, no bool)."""
    whole = isinstance(order, (int, np.integer)) and not isinstance(order, (bool, np.bool_))
    if order is not None and (not whole or order not in ORDERS):
        raise InputError(f"order {order!r}: expected an integer in {MIN_ORDER}..{MAX_ORDER}")


def _bad_line(name: str, L: int, line: Unreadable) -> InputError:
    return InputError(f"{name} line {L}: {line.msg}")


def _error(name: str, L: int, fault: _Fault) -> InputError:
    where = fault.at if fault.at is not None else L
    sep = ", " if fault.msg.startswith("cell ") else ": "
    return InputError(f"{name} line {where}{sep}{fault.msg}")


def _one_line_puzzles(lines, name: str, fmt: str, order: int | None, check: bool = True):
    """The puzzles of an input in a one-line format given (a puzzle a line)."""
    for L, text in lines:
        if isinstance(text, Unreadable):
            yield _bad_line(name, L, text)
        elif not puzzle_lines.passed_over(text):
            yield _one_line(name, order, check, L, text, fmt)


def _one_line(name: str, order: int | None, check: bool, L: int, text: str, fmt: str):
    """The puzzle of line L in a one-line format (fmt), or its fault."""
    try:
        count = solution = fast = None
        separator = ","
        if fmt == "tsv":
            cells, n, label = _parse_tsv(text, order)
        elif fmt == "csv-line":
            body, _, comment = text.partition("#")
            label = comment.strip()
            cells, n = _parse_csv_line(body.strip(), order)
            separator = puzzle_lines.csv_separator(body) or separator
        else:
            token, label = _split_comment(text)
            if fmt == "tdoku":
                cells, n, count, solution = _parse_tdoku(token, order)
            elif fmt == "solo":
                cells, n = _parsesolo_description(token, order)
            else:
                fast = _fast_line(token, order) if check else None
                cells, n = _parse_symbol_line(token, order, fmt) if fast is None else fast
        if check and fast is None:  # the fast path checked its givens as it read them
            _checked(cells, n)
    except _Fault as f:
        return _error(name, L, f)
    return Puzzle(cells, n, L, label, fmt, count, solution, separator)


def _grid_row(text: str, fmt: str, N: int, first_cell: int) -> np.ndarray:
    body = text.split("#", 1)[0].strip()
    if fmt == "rows":
        parts = puzzle_lines.row_numbers(body)
        if len(parts) != N:
            raise _Fault(f"{len(parts)} numbers on a row, expected {N}")
        return _parse_numbers(parts, N, first_cell, also_blank=ROWS_BLANKS)
    if fmt == "csv":
        parts = puzzle_lines.comma_fields(body, N)
        if len(parts) != N:
            quote = "; a double quote is not closed" if body.count('"') % 2 else ""
            raise _Fault(f"{len(parts)} {_csv_numbers(body)} on a row, expected {N}{quote}")
        return _parse_numbers(parts, N, first_cell, also_blank=CSV_BLANKS)
    body = puzzle_lines.grid_symbols(body)
    if len(body) != N:
        raise _Fault(f"{len(body)} symbols on a row, expected {N}")
    return _decode_symbols(body, N, first_cell)


def _sides(fmt: str) -> tuple[int, ...]:
    """The grid sides N that fmt serves."""
    return tuple(n * n for n in FORMAT_ORDERS[fmt])


def _grid_puzzle(name: str, piece: Piece, check: bool):
    """The grid or rows puzzle of a piece (its N rows; fewer: it ended early), or its fault:
    the first faulty row's, else the short grid's, else its givens'."""
    fmt, N, lines = piece.fmt, piece.N, piece.lines
    start = lines[0].L
    if N not in _sides(fmt):
        return InputError(f"{name} line {start}: {_width_fault(N, fmt, 1, lines[0].text)}")
    rows = []
    for i, (L, text, _) in enumerate(lines):
        try:
            if isinstance(text, Unreadable):
                raise _Fault(text.msg)
            rows.append(_grid_row(text, fmt, N, i * N))
        except _Fault as f:
            return _error(name, start, _Fault(f.msg, L))
    if len(rows) < N:
        ends = f"puzzle ends after {len(rows)} rows, expected {N}"
        if fmt == "csv" and N == FOUR_N and len(rows) == 1:  # or a 4x4 puzzle's cells?
            ends = (
                f"16 {_csv_numbers(lines[0].text)} on one line: a 16x16 grid's first row, where 16 "
                "rows were expected; a 4x4 puzzle takes 4 rows of 4 numbers (csv, rows), or "
                "its 16 numbers as csv-line (--format csv-line)"
            )
        return InputError(f"{name} line {start}: {ends}")
    cells = np.concatenate(rows)
    n = ORDERS[SIDES.index(N)]
    if check:
        try:
            _checked(cells, n)
        except _Fault as f:
            return _error(name, start, f)
    # a csv grid's separator: its first row's, as comma_fields split it (every row holds one)
    first = puzzle_lines.csv_separator(lines[0].text.split("#", 1)[0]) if fmt == "csv" else None
    return Puzzle(cells, n, start, "", fmt, separator=first or ",")


def _piece_puzzle(name: str, order: int | None, check: bool, piece: Piece):
    """The puzzle of one piece of an input (cpu_reference.sudoku.puzzle_lines), or its fault."""
    first = piece.lines[0]
    if piece.fmt in puzzle_lines.GRID_FORMATS:
        if piece.N is None:  # rows of a width no Sudoku has
            fault = _width_fault(first.shape.width, piece.fmt, len(piece.lines), first.text)
            return InputError(f"{name} {puzzle_lines.where(piece)}: {fault}")
        return _grid_puzzle(name, piece, check)
    if isinstance(first.text, Unreadable):
        return _bad_line(name, first.L, first.text)
    return _one_line(name, order, check, first.L, first.text, piece.fmt)


def iter_puzzles(
    source,
    fmt: str | None = None,
    order: int | None = None,
    name: str = "<input>",
    *,
    check: bool = True,
) -> Iterator[Puzzle | InputError]:
    """Stream the puzzles of a path, "-" (stdin) or text/binary file object, one at a time.

    With check=False a digit repeated in a unit is let through (to verify claimed solutions).

    Yields a Puzzle per puzzle, or an InputError (one line: input, line, fault) per malformed
    puzzle or per run of lines that make no puzzle. Raises InputError for an unknown fmt or
    order, an unreadable, empty or binary input.
    """
    if fmt is not None and fmt not in FORMATS:
        raise InputError(f"unknown puzzle format {fmt!r}; formats are {', '.join(FORMATS)}")
    _check_order(order)
    if order is not None and fmt is not None and order not in FORMAT_ORDERS[fmt]:
        raise InputError(_symbol_order_fault(order, fmt))
    opened = open_source(source, name)
    return _iter(opened, fmt, order, check)


def _iter(opened: Source, fmt: str | None, order: int | None, check: bool):
    name = opened.shown
    try:
        lines = read_lines(opened.stream, name, MAX_LINE)
        if fmt is None:
            head, lines = _head(lines)
            fmt = "lloyd-amos" if _lloyd_amos_head(head) else None
        if fmt == "lloyd-amos":
            items = _lloyd_amos_puzzles(lines, name, order, check)
        elif fmt in puzzle_lines.ONE_LINE_FORMATS:
            items = _one_line_puzzles(lines, name, fmt, order, check)
        else:
            read = partial(_piece_puzzle, name, order, check)
            read_one = partial(_one_line, name, order, check)
            strict = None if check else partial(_piece_puzzle, name, order, True)
            items = puzzle_lines.puzzles(lines, name, fmt, order, read, read_one, strict)
        found = False
        for item in items:
            found = True
            yield item
        if not found:
            raise InputError(f"{name}: empty input, no puzzle found")
    finally:
        opened.close()


HEAD_LOOK = 10_000  # lines _head holds at most while it looks for an input's first two


def _head(lines) -> tuple[list, Iterator]:
    """(the first two lines that are neither blank nor comments among the first HEAD_LOOK, the
    lines again from the start): a look at an input's head that loses nothing and holds at
    most HEAD_LOOK lines (ten million blank lines before a puzzle held 1.2 GB). A first line
    that is no number, or as long as a puzzle line (a 4x4's 16 characters or more: an order has
    a digit or two), cannot open a Lloyd & Amos file: the look stops there, so that a puzzle
    typed or piped alone, with `.` or `0` for its blanks, is read without waiting for a second
    line."""
    seen: list = []
    head: list = []
    it = iter(lines)
    for entry in it:
        seen.append(entry)
        if len(seen) > HEAD_LOOK:
            break
        text = entry[1]
        if isinstance(text, Unreadable):
            break
        if text.strip() and not text.lstrip().startswith("#"):
            head.append(text.strip())
            first = head[0]
            if len(head) == 2 or len(first) >= CELL_COUNTS[0] or not a_number(first):
                break
    return head, itertools.chain(seen, it)


def opens_as_lloyd_amos(source, name: str = "<input>") -> bool:
    """Whether a path or file opens as a Lloyd & Amos file (its first two lines neither blank
    nor comments: a number alone, then `1`), as iter_puzzles detects it without a format;
    False where it cannot be read."""
    head = _opening(source, name, lambda lines: _head(lines)[0])
    return head is not None and _lloyd_amos_head(head)


def opens_as_numbers(source, name: str = "<input>") -> bool:
    """Whether a path or file opens with lines of numbers laid out as a Sudoku's rather than a
    Shikaku's or Hashi's; False where it cannot be read. Yes for a first line of fields
    separated by `,` or `;` (csv, csv-line, tsv: no Shikaku or Hashi reader takes them); yes
    for N numbers separated by spaces or tabs, N a side of 16 or more, whose block's positive
    numbers (up to N lines) sum to more than twice its cells: a Shikaku's clues sum to its
    cells, and a Sudoku's givens, at any fill a Sudoku-shaped fault needs, far more."""
    head = _opening(source, name, partial(_first_block, count=SIDES[-1]))
    if not head:
        return False
    first = head[0].split("#", 1)[0].strip()
    if "," in first or ";" in first:
        return True
    width = len(first.split())
    if width not in SIDES or width < 16:
        return False
    total = cells = 0
    for line in head[:width]:
        fields = line.split("#", 1)[0].split()
        if not all(field.lstrip("+-").isdigit() for field in fields):
            return False
        total += sum(max(int(field), 0) for field in fields)
        cells += len(fields)
    return total > 2 * cells


def _opening(source, name: str, take: Callable) -> list | None:
    """take(the lines of a path or file): the lines it keeps of the input's opening; None where
    it cannot be read."""
    try:
        opened = open_source(source, name)
    except InputError:
        return None
    try:
        return take(read_lines(opened.stream, opened.shown, MAX_LINE))
    except InputError:
        return None
    finally:
        opened.close()


def _first_block(lines, count: int) -> list:
    """The first `count` lines that are neither blank nor comments, stripped, up to the first
    blank line after one of them or a line that is no text."""
    block: list = []
    for _, text in lines:
        if isinstance(text, Unreadable) or (block and not text.strip()):
            break
        if text.strip() and not text.lstrip().startswith("#"):
            block.append(text.strip())
            if len(block) == count:
                break
    return block


def _lloyd_amos_head(head: list) -> bool:
    """Whether an input's first two lines are a Lloyd & Amos file's: a number alone (any number
    Python reads, so that a `nan`, `-2` or `2.0` order is named as the order field), then 1."""
    return len(head) == 2 and head[1] == "1" and head[0].isascii() and a_number(head[0])


def _lloyd_amos_puzzles(lines, name: str, order: int | None, check: bool):
    """The puzzles of Lloyd & Amos instance blocks (the order, `1`, N rows), or each one's
    fault; a faulty block's rows are passed over up to its end, so the next block still reads."""
    lines = iter(lines)
    for L, text in lines:
        if isinstance(text, Unreadable):
            yield _bad_line(name, L, text)
        elif text.strip() and not text.lstrip().startswith("#"):
            yield _lloyd_amos_block(lines, name, order, check, L, text)


def _comment(text: str) -> bool:
    """Whether a line is a `#` comment."""
    return text.lstrip().startswith("#")


def _lloyd_amos_block(lines, name: str, order: int | None, check: bool, L: int, head: str):
    """The puzzle of the block whose order line (L) is `head`, its rows taken from lines."""
    ntext = head.strip()
    n = whole_number(ntext, MAX_ORDER)
    if n not in ORDERS or (order is not None and n != order):
        for _, text in lines:  # the block's rows, up to a blank line, are passed over
            if not isinstance(text, Unreadable) and not text.strip():
                break
        fields = len(ntext.split())
        if n not in ORDERS and fields > 1:  # a row where a block's order line belongs
            why = (f"{fields} numbers where a Lloyd & Amos puzzle starts with its order alone "
                   "(a row more than the puzzle before holds?)")  # fmt: skip
        elif n not in ORDERS:
            why = f"order field {shown(ntext)} is not an order {MIN_ORDER}..{MAX_ORDER}"
        else:
            why = f"order {n}, expected {order}"
        return InputError(f"{name} line {L}: {why}")
    N = n * n
    one = next(lines, None)
    while one is not None and not isinstance(one[1], Unreadable) and _comment(one[1]):
        one = next(lines, None)  # a comment between the order and the `1` is passed over
    if one is None or isinstance(one[1], Unreadable) or one[1].strip() != "1":
        at = L + 1 if one is None else one[0]
        got = "the end of the input" if one is None else shown(str(one[1]).strip())
        return InputError(f"{name} line {at}: {got} where a Lloyd & Amos file has `1`")
    rows: list[np.ndarray] = []
    fault = None
    for Lr, text in lines:
        if not isinstance(text, Unreadable) and not text.strip():
            break  # a blank line ends the block
        if fault is None:
            try:
                if isinstance(text, Unreadable):
                    raise _Fault(text.msg)
                rows.append(_lloyd_amos_row(text, N, len(rows) * N))
            except _Fault as f:
                fault = _error(name, L, _Fault(f.msg, Lr))
        if len(rows) == N or (fault is not None and Lr - one[0] >= N):
            break
    if fault is not None:
        return fault
    if len(rows) < N:
        return InputError(f"{name} line {L}: puzzle ends after {len(rows)} rows, expected {N}")
    cells = np.concatenate(rows)
    if check:
        try:
            _checked(cells, n)
        except _Fault as f:
            return _error(name, L, f)
    return Puzzle(cells, n, L, "", "lloyd-amos")


def _lloyd_amos_row(text: str, N: int, first_cell: int) -> np.ndarray:
    """One row of a Lloyd & Amos block: N tab-separated numbers (a tab after each allowed), -1
    blank, into digits (0 blank)."""
    parts = text.strip().split("\t")
    if len(parts) == 1 and len(text.split()) == N:
        raise _Fault(f"{N} numbers separated by spaces; a Lloyd & Amos row separates them by tabs")
    if len(parts) != N:
        raise _Fault(f"{len(parts)} numbers on a row, expected {N}")
    return _parse_numbers(parts, N, first_cell, blank="-1")


def _looks_like_path(text: str) -> bool:
    if "\n" in text:
        return False
    if os.path.exists(text):
        return True
    return "/" in text or os.sep in text or bool(_PATH_END.search(text))


def read_puzzles(
    source,
    fmt: str | None = None,
    order: int | None = None,
    name: str = "<input>",
    *,
    strict: bool = True,
) -> list:
    """All puzzles of a small input: a path, "-", a file object, or puzzle text itself.

    A str is read as text when it holds a newline, or names no existing file and looks like
    no path (no `/`, no .txt/.tsv/.sdk ending). With strict, the
    first malformed puzzle is raised; otherwise the list holds its InputError in its place.
    """
    if isinstance(source, str) and source != "-" and not _looks_like_path(source):
        source = io.StringIO(source)
    elif isinstance(source, bytes):
        source = io.BytesIO(source)
    out = []
    for item in iter_puzzles(source, fmt, order, name):
        if strict and isinstance(item, InputError):
            raise item
        out.append(item)
    return out
