"""Which lines of a Sudoku input make each puzzle: every puzzle read on its own terms, never by
the format of the input's first line.

Glossary (index names as in cpu_reference.sudoku.formats):
    L        1-based line number
    entry    one line: (L, text, shape); the text is an Unreadable for a line that is no text
    shape    what a line looks like on its own (Shape): a one-line puzzle of some format, or a
             row of width w of a grid or rows puzzle
    run      lines of one shape one after another (no blank line between them; comment lines
             are passed over)
    piece    the lines of one puzzle and the format to read them in (with a grid's side N), or
             lines that make no puzzle
    N        side of a grid: a grid or rows puzzle takes N rows of N cells
    big      a 16-symbol line holding a digit above 4 (5-9, A-G): no 4x4 puzzle

How lines become puzzles when no format is given:

    a solo, tsv or tdoku line, one token of 81, 256, 625 or 1296 symbols, or a line of more
        than 64 comma- or semicolon-separated fields (csv-line: 81, 256, 625, 1296, 2401 or
        4096 of them, any other count its fault, but inside a csv grid not yet whole a row of
        that grid, at fault): a puzzle of that line (a 16-symbol token: see below)
    one token of 4, 9, 25 or 36 symbols, 4, 9, 16, 25, 36, 49 or 64 numbers, or a line of
        as many comma- or semicolon-separated fields (csv; 16 of them: always a row): the
        first row of a grid (rows, csv) puzzle whose side N is that width (numbers of any
        length: a token of 81 digits followed by 3 numbers is a 4x4 row whose first cell is at
        fault, not a one-line puzzle with a comment); it takes N rows, ending early (a fault of
        that puzzle) at a blank line or at a line that is another puzzle's (a one-line puzzle,
        a row of another width or form)
    a run of 16-symbol lines: 4x4 puzzles one a line, or 16x16 grids, decided by the run:
        exactly 16 lines   one 16x16 grid when they read as one, or when most hold a digit
                           above 4; else sixteen 4x4 puzzles when each line reads as one; else
                           one fault saying both readings fail, asking for --format
        fewer than 16      4x4 puzzles one a line, unless most hold a digit above 4 (then one
                           fault: a 16x16 grid needs 16 rows)
        more than 16       a 16x16 grid where the next 16 lines read as one and one holds a
                           digit above 4 (or most do), else the next line as a 4x4 puzzle
    lines of a width no Sudoku has (the rows of a 5x5 or 6x6 grid): one fault for their run; a
        single such line, or a line that is no text, directly above rows of one width N, one
        short of whole grids (N - 1, 2N - 1, ...), is the faulty first row of the first of them
        (so that consecutive grids stay aligned)

With a format given, every puzzle line is read in it: a one-line format a puzzle a line, grid and
rows a grid of N rows, N from each puzzle's own first row (or from the order given), ended early
only by a blank line. With an order given, 16-symbol lines are 4x4 puzzles (order 2) or 16x16
rows (order 4), and every grid takes N = order * order rows.
"""

from __future__ import annotations

import csv
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from cpu_reference.errors import InputError
from cpu_reference.fields import a_number
from cpu_reference.sources import Unreadable
from cpu_reference.sudoku.layout import MAX_ORDER, MIN_ORDER

SIDES = tuple(n * n for n in range(MIN_ORDER, MAX_ORDER + 1))  # 4, 9, 16, ..., 64
CELL_COUNTS = tuple(N * N for N in SIDES)  # 16, 81, 256, ..., 4096
MAX_SIDE = SIDES[-1]
FOUR_N = 16  # the width of a 4x4 one-line puzzle and of a 16x16 grid's row
ONE_LINE_FORMATS = ("line", "tdoku", "tsv", "solo", "csv-line")
GRID_FORMATS = ("grid", "rows", "csv")
MAX_ODD_RUN = 100  # lines of a width no Sudoku has that one fault covers at most
LOOK_AHEAD = 1000  # rows looked at to tell a grid's faulty first row from a stray line
_BIG = frozenset("56789ABCDEFGabcdefg")  # 16x16 digits above 4
_COMMA_COUNTS = frozenset(SIDES + CELL_COUNTS)  # a csv row's fields, or a puzzle's on one line
# a csv row's separators: ',' or, as a spreadsheet saves where ',' is the decimal mark, ';'
CSV_SEPARATORS = {",": "comma-separated", ";": "semicolon-separated"}
_RULE_CHARS = frozenset("-+=| \t")  # the lines drawn between a grid's boxes, and their borders
_SOLO_LIKE = re.compile(r"[0-9]+(?:x[0-9]+)?[A-Za-z0-9]*")  # `3x3`, `3x3dh`, `3j` before ':'


class Shape(NamedTuple):
    """What one line looks like on its own."""

    kind: str  # blank comment bad solo tsv tdoku csv-line line four grid rows csv
    width: int = 0  # symbols of a token, or numbers of a rows line
    big: bool = False  # a 16-symbol token holding a digit above 4


BLANK, COMMENT, BAD = Shape("blank"), Shape("comment"), Shape("bad")
SOLO, TSV, TDOKU = Shape("solo"), Shape("tsv"), Shape("tdoku")
FOUR, FOUR_BIG = Shape("four", FOUR_N), Shape("four", FOUR_N, True)


class Entry(NamedTuple):
    """One line of the input."""

    L: int
    text: str | Unreadable
    shape: Shape


@dataclass
class Piece:
    """The lines of one puzzle and the format to read them in: a one-line format (one line), or
    grid / rows with the side N (fewer than N lines: the puzzle ended early). N None: lines of
    rows of a width no Sudoku has, which make no puzzle."""

    fmt: str
    lines: list[Entry]
    N: int | None = None


Read = Callable[[Piece], object]  # a piece's Puzzle, or its InputError
ReadOne = Callable[[int, str, str], object]  # (L, text, format): a one-line puzzle, or its fault
_PLAIN = {c: Shape("line", c) for c in CELL_COUNTS if c != FOUR_N}  # a token, no comment
_entry = tuple.__new__  # Entry(L, text, shape) without NamedTuple's slower constructor


def shape_of(text: str) -> Shape:
    """The shape of a line when no format is given (see the module docstring)."""
    plain = _PLAIN.get(len(text))
    if plain and _plain(text):
        return plain  # most lines: a puzzle of 81 symbols
    if len(text) == FOUR_N and _plain(text):  # a 4x4 puzzle or a 16x16 row
        return FOUR_BIG if not _BIG.isdisjoint(text) else FOUR
    passed = _blank_or_comment(text)
    if passed is not None:
        return passed
    s = text.strip()
    if "\t" in s:
        fields = text.split("\t")
        if len(fields) >= 3 and a_number(fields[1]) and ("," in fields[2] or len(fields) == 3):
            return TSV  # a number in the order field (a fault names it), no Sudoku row of 3
    elif ":" not in s and ("," in s or ";" in s):
        width = _csv_width(_body(s))
        if width:  # more fields than a row has: a csv-line puzzle, its count at fault
            one_line = width in CELL_COUNTS and width != FOUR_N or width > MAX_SIDE
            return Shape("csv-line", width) if one_line else Shape("csv", width)
    tokens = row_numbers(grid_symbols(s.split("#", 1)[0]))  # never empty: a rule is passed over
    first = tokens[0]
    if ":" in first:
        head = first.split(":", 1)[0]
        return SOLO if len(head) not in CELL_COUNTS and _SOLO_LIKE.fullmatch(head) else TDOKU
    if len(tokens) >= 2 and (len(first) not in CELL_COUNTS or _numbers_of_a_row(tokens)):
        return Shape("rows", len(tokens))
    width = len(first)
    if width == FOUR_N:
        return FOUR_BIG if not _BIG.isdisjoint(first) else FOUR
    if width in CELL_COUNTS or width > MAX_SIDE:
        return Shape("line", width)
    return Shape("grid", width)


def csv_separator(body: str) -> str | None:
    """The separator of a csv row: ',' where the row holds one, else ';' where it holds one,
    else None."""
    return next((sep for sep in CSV_SEPARATORS if sep in body), None)


def comma_fields(body: str, N: int | None = None) -> list[str]:
    """The fields of a csv row (a line without its comment): split at its separator
    (csv_separator; a field in double quotes, as a spreadsheet may write it, is read without
    them), less a last empty field that follows a row's whole N fields (N None: a Sudoku
    side's, or a whole puzzle's cells), a spreadsheet's trailing comma."""
    sep = csv_separator(body) or ","
    try:
        parts = next(csv.reader([body], delimiter=sep, skipinitialspace=True), [""]) or [""]
    except csv.Error:  # a character the csv module refuses: the fields as the text splits
        parts = body.split(sep)
    if len(parts) > 2 and not parts[-1].strip():
        whole = len(parts) - 1
        if whole == N if N is not None else whole in _COMMA_COUNTS:
            return parts[:-1]
    return parts


def _csv_width(body: str) -> int:
    """The fields of a csv row, or 0 for a line that is none: no separator, or a field
    holding a space (a one-line puzzle whose name after it holds a comma)."""
    if csv_separator(body) is None:
        return 0
    fields = comma_fields(body)
    return 0 if any(len(f.split()) > 1 for f in fields) else len(fields)


def _numbers_of_a_row(tokens: list[str]) -> bool:
    """Whether the tokens are a Sudoku row's count of numbers (a rows line), rather than a
    one-line puzzle followed by a comment: a first number of 81 or 4,096 digits is a faulty
    cell of that row, never a puzzle of that many symbols."""
    return len(tokens) in SIDES and all(t.isascii() and t.isdigit() for t in tokens)


def _plain(text: str) -> bool:
    """No space, tab, ':', '#' or csv separator in the text: a token of one-line puzzle length
    is that puzzle, where a csv row of as many characters is not (substring scans are faster
    here than one regular expression)."""
    return (
        " " not in text
        and ":" not in text
        and "\t" not in text
        and "#" not in text
        and "," not in text
        and ";" not in text
    )


def _shaper(fmt: str | None) -> Callable[[str], Shape]:
    """How lines are shaped: by shape_of, or all in the given format."""
    if fmt is None:
        return shape_of
    if fmt in ONE_LINE_FORMATS:
        one = Shape(fmt)
        return lambda text: _blank_or_comment(text) or one
    if fmt == "grid":
        return lambda text: _blank_or_comment(text) or Shape("grid", len(grid_symbols(_body(text))))
    if fmt == "csv":
        return lambda text: _blank_or_comment(text) or Shape("csv", len(comma_fields(_body(text))))
    return lambda text: _blank_or_comment(text) or Shape("rows", len(row_numbers(_body(text))))


def _blank_or_comment(text: str) -> Shape | None:
    s = text.strip()
    return BLANK if not s else COMMENT if s[0] == "#" or _rule(s) else None


def passed_over(text: str) -> bool:
    """Whether a line holds no puzzle text: blank, a `#` comment, or a line drawn between a
    grid's boxes."""
    return _blank_or_comment(text) is not None


def _rule(s: str) -> bool:
    """Whether a stripped nonblank line is drawn between a grid's boxes, or is its border
    (`------+------+------`, `+-------+`, `|`), before any `#` comment: passed over like a
    comment."""
    if s[0] not in _RULE_CHARS:
        return False
    body = s.split("#", 1)[0]
    return _RULE_CHARS.issuperset(body)


def grid_symbols(body: str) -> str:
    """A line without whitespace less its `|` between boxes (a grid row as Simple Sudoku's .ss
    files write it: `4..|...|8.5`); any other line as it is."""
    return body.replace("|", "") if "|" in body and len(body.split()) == 1 else body


def row_numbers(body: str) -> list[str]:
    """The numbers of a rows line (without its comment): separated by whitespace, a `|`
    between boxes read as a space (`4 . . | . . . | 8 . 5`)."""
    return body.replace("|", " ").split()


def _body(text: str) -> str:
    """A grid or rows line without its `#` comment and outer whitespace."""
    return text.split("#", 1)[0].strip()


class _Ahead:
    """The lines of an input, read ahead as far as a decision needs: peek(i) is the i-th line
    not taken yet. A stop raised by the line reader (binary data after a text head) is raised
    once every line before it is taken."""

    def __init__(self, lines: Iterable[tuple[int, str | Unreadable]], shaper):
        self._lines = iter(lines)
        self._shaper = shaper
        self._held: deque[Entry] = deque()
        self._stop: InputError | None = None
        self._end = False

    def peek(self, i: int = 0) -> Entry | None:
        """The i-th line not taken yet (None past the end)."""
        while len(self._held) <= i and not self._end:
            e = self._read()
            if e is not None:
                self._held.append(e)
        return self._held[i] if i < len(self._held) else None

    def _read(self) -> Entry | None:
        """The next line of the input, shaped (None at the end, or at the reader's stop)."""
        try:
            L, text = next(self._lines)
        except StopIteration:
            self._end = True
            return None
        except InputError as stop:
            self._stop, self._end = stop, True
            return None
        shape = BAD if isinstance(text, Unreadable) else self._shaper(text)
        return _entry(Entry, (L, text, shape))

    def take(self, count: int = 1) -> list[Entry]:
        """The next `count` lines, taken; comment lines among them left out."""
        taken = [self._held.popleft() for _ in range(count)]
        return [e for e in taken if e.shape is not COMMENT]

    def next_puzzle_line(self) -> Entry | None:
        """The next line that is neither blank nor a comment (held, not taken), blank and
        comment lines before it taken; None at the end (raising the reader's stop, if any)."""
        held = self._held
        while True:
            e = held[0] if held else None if self._end else self._read()
            if e is None:
                if self._end:
                    if self._stop is not None:
                        stop, self._stop = self._stop, None
                        raise stop
                    return None
                continue
            if e.shape is not BLANK and e.shape is not COMMENT:
                if not held:
                    held.append(e)
                return e
            if held:
                held.popleft()

    def run(self, start: int, accept: Callable[[Shape], bool], limit: int) -> list[int]:
        """Indices (for peek) of the lines of the run from index `start`: up to `limit` lines
        whose shape `accept`s, comment lines passed over; a blank line, another shape or the
        end stops it."""
        out: list[int] = []
        i = start
        while len(out) < limit:
            e = self.peek(i)
            if e is None or e.shape is BLANK:
                break
            if e.shape is not COMMENT:
                if not accept(e.shape):
                    break
                out.append(i)
            i += 1
        return out


def puzzles(
    lines: Iterable[tuple[int, str | Unreadable]],
    name: str,
    fmt: str | None,
    order: int | None,
    read: Read,
    read_one: ReadOne,
    strict: Read | None = None,
) -> Iterator:
    """The puzzles of an input's lines ((L, text) pairs, cpu_reference.sources.lines): each
    piece's read(piece) (a line in a one-line format: read_one(L, text, format)), a Puzzle or an
    InputError, in the order of the lines; an InputError of its own where lines read two ways
    and neither holds (see the module docstring). `strict`: a read that refuses a digit given
    twice, where `read` lets it through, so that 16 lines of 16 symbols are one 16x16 grid only
    where it would be one for a solve (None: read is strict)."""
    shaper = _shaper(fmt)
    ahead = _Ahead(lines, shaper)
    fixed = order * order if order is not None else None  # the side every grid has
    auto = fmt is None
    held, source = ahead._held, ahead._lines
    while True:
        if not held and not ahead._end:  # nothing read ahead: a one-line puzzle goes at once
            try:
                L, text = next(source)
            except StopIteration:
                ahead._end = True
                continue
            except InputError as stop:
                ahead._stop, ahead._end = stop, True
                continue
            if text.__class__ is str:
                if auto and len(text) in _PLAIN and _plain(text):
                    yield read_one(L, text, "line")  # most lines: a puzzle of 81 symbols
                    continue
                shape = shaper(text)
            else:
                shape = BAD
            if shape.kind in ONE_LINE_FORMATS:
                yield read_one(L, text, shape.kind)
                continue
            if shape is BLANK or shape is COMMENT:
                continue
            held.append(_entry(Entry, (L, text, shape)))
        e = ahead.next_puzzle_line()
        if e is None:
            return
        kind, width = e.shape.kind, e.shape.width
        if kind in ONE_LINE_FORMATS:
            held.popleft()
            yield read_one(e.L, e.text, kind)
        elif kind == "four" and fixed != FOUR_N:
            if fixed is None:
                yield from _sixteen(ahead, name, read, read_one, strict or read)
            else:  # order 2: a 4x4 puzzle (another order: a fault of its size)
                yield read(Piece("line", ahead.take()))
        elif kind in ("four", *GRID_FORMATS) and (fixed is not None or width in SIDES):
            N = fixed or width
            yield read(_grid(ahead, "grid" if kind == "four" else kind, N, auto))
        elif auto and fixed is None and _next_is_four(ahead):
            yield from _sixteen(ahead, name, read, read_one, strict or read)
        else:  # a line that is no text, or rows of a width no Sudoku has
            piece = _first_row_of_grid(ahead, fixed)
            yield read(piece if piece is not None else _odd(ahead, auto))


def _grid(ahead: _Ahead, fmt: str, N: int, auto: bool) -> Piece:
    """The grid (or rows) puzzle whose first row is the next line: N rows, fewer when a blank
    line, the end or (auto) another puzzle's line comes first."""
    count = 1
    rows = 0
    while rows < N - 1:
        e = ahead.peek(count)
        if e is None or e.shape is BLANK or (auto and _another_puzzle(e.shape, fmt, N)):
            break
        count += 1
        rows += e.shape is not COMMENT
    return Piece(fmt, ahead.take(count), N)


def _another_puzzle(shape: Shape, fmt: str, N: int) -> bool:
    """Whether a line of this shape, inside a grid of `fmt` and side N, starts another puzzle
    rather than being a (faulty) row of that grid."""
    kind = "grid" if shape.kind == "four" else shape.kind
    if kind == "csv-line" and fmt == "csv" and shape.width not in CELL_COUNTS:
        return False  # a csv row with fields too many (no puzzle's count): the grid's, faulty
    if kind in ONE_LINE_FORMATS:
        return True
    if kind in GRID_FORMATS and shape.width in SIDES:
        return kind != fmt or shape.width != N
    return False


def _odd(ahead: _Ahead, auto: bool) -> Piece:
    """A line that is no text (a piece of its own), or the run of rows of one width no Sudoku
    has (auto: a single such token is read as a one-line puzzle, whose fault names its cells)."""
    first = ahead.peek()
    if first.shape is BAD:
        return Piece("line", ahead.take())
    run = ahead.run(0, lambda s: s == first.shape, MAX_ODD_RUN)
    lines = ahead.take(run[-1] + 1)
    if auto and len(lines) == 1 and first.shape.kind == "grid":
        return Piece("line", lines)
    return Piece("grid" if first.shape.kind == "grid" else first.shape.kind, lines, None)


def _first_row_of_grid(ahead: _Ahead, fixed: int | None) -> Piece | None:
    """The grid whose faulty first row is the next line (no text, or of a width no Sudoku has)
    when rows of one Sudoku width N follow it directly, as many as whole grids with that first
    row take (N - 1, 2N - 1, ...: one row short; or more than LOOK_AHEAD of them); else None."""
    odd = ahead.peek()
    after = ahead.run(1, lambda s: s is not BAD, 1)
    if not after or after[0] != 1:
        return None
    shape = ahead.peek(1).shape
    if shape.kind not in GRID_FORMATS or (shape.width not in SIDES and fixed is None):
        return None
    N = fixed or shape.width
    if odd.shape is not BAD and odd.shape.kind != shape.kind:
        return None
    rows = ahead.run(1, lambda s: s == shape, LOOK_AHEAD)
    if len(rows) < LOOK_AHEAD and (len(rows) + 1) % N:
        return None
    return Piece(shape.kind, ahead.take(rows[N - 2] + 1), N)


def _next_is_four(ahead: _Ahead) -> bool:
    """Whether the line after the next (no blank line between) is a 16-symbol token, the next
    being no text or a token of a width no Sudoku has: the first line of a 16-symbol run."""
    if ahead.peek().shape is not BAD and ahead.peek().shape.kind != "grid":
        return False
    after = ahead.run(1, lambda s: True, 1)
    return bool(after) and ahead.peek(after[0]).shape.kind == "four"


def _in_sixteen_run(shape: Shape) -> bool:
    """A 16-symbol token, a line that is no text, or a token of a width no Sudoku has."""
    if shape.kind == "four" or shape is BAD:
        return True
    return shape.kind == "grid" and shape.width not in SIDES


def _sixteen(ahead: _Ahead, name: str, read: Read, read_one: ReadOne, strict: Read) -> Iterator:
    """The puzzles of a run of 16-symbol lines from the next line (see the module docstring);
    whether 16 of them read as one grid is asked of `strict`, the puzzle read by `read`."""
    window = ahead.run(0, _in_sixteen_run, FOUR_N + 1)  # where the run's next lines are held
    entries = [ahead.peek(i) for i in window]
    while entries:
        big = sum(e.shape.big for e in entries[:FOUR_N])
        if len(entries) > FOUR_N and big == 0:  # the next line is a 4x4 puzzle
            if window[-1] > FOUR_N:  # a comment line among them
                yield read(Piece("line", ahead.take(window[0] + 1)))
            else:  # a 4x4 file: so is each next line while the 16 after it hold no digit above 4
                held = ahead._held
                while True:
                    e = held.popleft()  # no comment line: the window was contiguous
                    bad = e.shape is BAD
                    yield read(Piece("line", [e])) if bad else read_one(e.L, e.text, "line")
                    if len(held) <= FOUR_N:
                        ahead.peek(4 * FOUR_N)  # read a few lines ahead at once
                    after = held[FOUR_N] if len(held) > FOUR_N else None
                    if held[FOUR_N - 1].shape.big or after is None:
                        break
                    if not _in_sixteen_run(after.shape):
                        break
            window = ahead.run(0, _in_sixteen_run, FOUR_N + 1)
            entries = [ahead.peek(i) for i in window]
            continue
        most = 2 * big > min(len(entries), FOUR_N)
        if len(entries) < FOUR_N:
            if most:
                yield _needs_sixteen_rows(name, ahead.take(window[-1] + 1))
            else:
                for e in entries:
                    yield read(Piece("line", [e]))
                ahead.take(window[-1] + 1)
            return
        as_grid = read(Piece("grid", entries[:FOUR_N], FOUR_N))
        reads = as_grid if strict is read else strict(Piece("grid", entries[:FOUR_N], FOUR_N))
        whole = len(entries) == FOUR_N
        if not isinstance(reads, InputError) and (big or whole) or most:
            ahead.take(window[FOUR_N - 1] + 1)
            yield as_grid
        elif not whole:
            yield read(Piece("line", ahead.take(window[0] + 1)))
        else:
            as_lines = [read(Piece("line", [e])) for e in entries]
            ahead.take(window[-1] + 1)
            fault = next((x for x in as_lines if isinstance(x, InputError)), None)
            if fault is None:
                yield from as_lines
            else:
                yield _read_two_ways(name, entries, as_grid, fault)
        if whole:
            return
        window = ahead.run(0, _in_sixteen_run, FOUR_N + 1)
        entries = [ahead.peek(i) for i in window]


def _needs_sixteen_rows(name: str, lines: list[Entry]) -> InputError:
    """Fewer than 16 lines of 16 symbols, most holding a digit above 4: one fault."""
    rows = len(lines)
    return InputError(
        f"{name} {_where(lines)}: {rows} row{'s' * (rows != 1)} of 16 symbols holding digits "
        "above 4: no 4x4 puzzle, and a 16x16 grid needs 16 rows"
    )


def _read_two_ways(name: str, lines: list[Entry], as_grid, as_line) -> InputError:
    """16 lines of 16 symbols that read neither as a 16x16 grid nor as sixteen 4x4 puzzles."""
    grid_fault = str(as_grid).removeprefix(f"{name} ")
    line_fault = str(as_line).removeprefix(f"{name} ")
    return InputError(
        f"{name} {_where(lines)}: 16 lines of 16 symbols read neither as one 16x16 grid "
        f"({grid_fault}) nor as sixteen 4x4 puzzles ({line_fault}); pass --format grid or "
        "--format line"
    )


def _where(lines: list[Entry]) -> str:
    """ "line L" or "lines L1-L2"."""
    first, last = lines[0].L, lines[-1].L
    return f"line {first}" if first == last else f"lines {first}-{last}"


def where(piece: Piece) -> str:
    """Where a piece is, as messages say it: "line L" or "lines L1-L2"."""
    return _where(piece.lines)
