"""Items and the readers of every kind's sources, faults kept apart (gpu_anneal.inputs.read
dispatches here through the kinds registry).

Glossary:
    source   a path, "-" (stdin), a file object, or puzzle text held in memory
    item     one puzzle read: its kind, where it came from, and its parsed givens
    spec     the item's puzzle kind (a gpu_anneal.kinds object): the readers are handed it and
             every per-kind property of an Item asks it
    fault    an InputError naming the source, the line and what is wrong; a fault costs only its
             own puzzle, the rest of the source is still read

Every source is opened by cpu_reference.sources (missing paths, folders, FIFOs, gzip data, binary
data and "\r" line ends are handled there, the same for every kind). Sudoku sources are read by
cpu_reference.sudoku.formats (line, grid, rows, csv, tdoku, tsv, solo, lloyd-amos). A Shikaku
or Hashiwokakero source holds one Tatham game ID per line, or one plain text grid for the whole
source (see cpu_reference.shikaku.puzzle and cpu_reference.hashi.puzzle): its first puzzle line
decides which. In a file of game IDs a line that is no game ID is a fault of that line; a text
grid with a faulty line (a stray byte, an unknown cell) is refused whole, never read without that
line.

Paths and text: the API reads a str as puzzle text when it holds a newline, or names no existing
file and looks like no path (no `/`, no .txt / .tsv / .sdk / .ids / .jsonl ending). The command
line passes its file arguments as FileName (file_names()): always paths, so that a name that
does not exist is "no such file", never read as puzzles; only "-" reads stdin.

What else the API takes, and how: an open file object (text or binary) is one source, read as a
file (its lines numbered, its name in records); a Sudoku array or list (validate.sudoku_grids:
(cells,) or (N, N) one grid, (P, cells) or (P, N, N) P grids, a flat list of ints one grid, a
nested list as the array it makes); a parsed puzzle or an Item of the kind asked for. A closed
file, or a parsed puzzle or Item of another kind, is an InputError naming `puzzles`.
"""

from __future__ import annotations

import io
import numbers
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from cpu_reference.errors import InputError
from cpu_reference.sources import Unreadable, open_source
from cpu_reference.sources import lines as read_lines
from cpu_reference.sudoku.formats import FORMAT_ORDERS, Puzzle, check_givens, iter_puzzles
from gpu_anneal.results import givens_hash
from gpu_anneal.validate import sudoku_grids
from gpu_anneal.waiting_stdin import stdin_stream

PATH_ENDINGS = (".txt", ".tsv", ".sdk", ".ids", ".jsonl", ".gz")
MAX_GRID_LINE = 1 << 24  # characters on one line of a Shikaku / Hashi source (a game ID's)
ARRAY_FORMAT = "line"  # the notation of Sudoku solutions given as arrays ("rows" past 25x25)


class FileName(str):
    """A file argument of the command line: read as a path whatever it looks like ("-" is
    stdin, read through waiting_stdin), never as puzzle text."""


def file_names(names: Iterable[str]) -> list[FileName]:
    """The command line's file arguments, marked as paths (see FileName)."""
    return [FileName(name) for name in names]


def writable_format(fmt: str, order: int) -> str:
    """fmt when it can write an order-n grid back (FORMAT_ORDERS), else "rows"."""
    return fmt if order in FORMAT_ORDERS.get(fmt, ()) else "rows"


@dataclass
class Item:
    """One puzzle read from a source."""

    spec: Any  # its puzzle kind (a gpu_anneal.kinds object)
    index: int  # 0-based position among the good puzzles of the whole input
    source: str  # file name, "<stdin>" or "<api>"
    line: int | None  # 1-based line where the puzzle starts
    name: str
    puzzle: Any  # Sudoku: uint8[cells]; Shikaku / Hashi: the parsed puzzle object
    order: int | None = None  # Sudoku order n
    fmt: str = "line"  # Sudoku: the format the puzzle was read in (solutions are written in it)
    separator: str = ","  # Sudoku in csv or csv-line: the separator it was read with

    @property
    def kind(self) -> str:
        """The kind's name ("sudoku", "shikaku", "hashi")."""
        return self.spec.name

    @property
    def size(self) -> str:
        """WIDTHxHEIGHT in cells."""
        return self.spec.size(self)

    @property
    def givens_hash(self) -> str:
        """The puzzle's identity (results.givens_hash over its canonical givens)."""
        return givens_hash(self.kind, self.size, self.spec.givens(self))

    @property
    def givens_text(self) -> str:
        """The givens as text: Sudoku in the puzzle's format, the others as a game ID."""
        return self.spec.givens_text(self)

    @property
    def where(self) -> str:
        """Where the puzzle came from, as messages name it: "FILE line L" (or "puzzle I")."""
        at = f"line {self.line}" if self.line is not None else f"puzzle {self.index}"
        return f"{self.source} {at}"

    def text(self, state) -> str | None:
        """A state of this puzzle as text in the puzzle's notation (None for no state).

        Sudoku is written in the format it was read in; the readers give no puzzle a format
        that cannot write it back (a 36x36 comes in rows, csv, csv-line, tsv, solo or
        lloyd-amos), and a hand-made Item that asks for one is an InputError naming the puzzle
        and the formats that can."""
        if state is None:
            return None
        return self.spec.text(self, state)


def as_sources(puzzles, parsed_types: tuple[type, ...] = ()) -> list:
    """The list of sources in an API call's `puzzles` argument: one source (a parsed puzzle of
    `parsed_types` among them), or each of a list's (a list of numbers, or of lists, is one
    Sudoku array), a puzzle text of a list named by its position (named_text)."""
    single = (str, bytes, os.PathLike, np.ndarray, Item, io.IOBase, *parsed_types)
    if isinstance(puzzles, single) or _is_stream(puzzles) or _is_array_like(puzzles):
        return [puzzles]
    if isinstance(puzzles, Iterator):
        return [puzzles]
    try:
        listed = list(puzzles)
    except TypeError:  # no iterable: one source, refused by its reader
        return [puzzles]
    return [named_text(source, position) for position, source in enumerate(listed)]


def _is_stream(source) -> bool:
    """An open (or closed) file object: read as a file, never iterated line by line."""
    return hasattr(source, "readline") and not isinstance(source, (str, bytes))


def _is_number(x) -> bool:
    """A number (a float too: the array's dtype is then refused), never a bool."""
    return isinstance(x, (numbers.Number, np.number)) and not isinstance(x, (bool, np.bool_))


def _is_array_like(source) -> bool:
    """A list or tuple of numbers, or of lists and tuples: a Sudoku array given as lists."""
    if not isinstance(source, (list, tuple)) or not source:
        return False
    return all(_is_number(x) for x in source) or all(isinstance(x, (list, tuple)) for x in source)


def read_source(
    spec, source, read_one, parsed: dict[type, str] | None = None
) -> Iterator[Item | InputError]:
    """The items of one source: an Item of this kind as it is, an iterator's sources each in
    turn (a file object is no such iterator: it is read as a file), a parsed puzzle of another
    kind refused (`parsed`: parsed type -> its kind's name, the registry's), anything else by
    read_one(source) (the kind's reader)."""
    if isinstance(source, Item):
        yield source if source.kind == spec.name else _other_kind(spec, source.kind, "an Item")
    elif _is_stream(source):
        if getattr(source, "closed", False) is True:
            yield InputError(f"puzzles: the file object {_name(source)} is closed; pass an "
                             "open file")  # fmt: skip
        else:
            yield from read_one(source)
    elif isinstance(source, Iterator):
        for sub in source:
            yield from read_source(spec, sub, read_one, parsed)
    elif (owner := _owner(source, parsed or {})) not in (None, spec.name):
        yield _other_kind(spec, owner, f"a parsed {type(source).__name__}")
    else:
        yield from read_one(source)


def _owner(source, parsed: dict[type, str]) -> str | None:
    """The name of the kind whose parsed puzzle the source is (None: no parsed puzzle)."""
    return next((kind for t, kind in parsed.items() if isinstance(source, t)), None)


def _other_kind(spec, kind: str, what: str) -> InputError:
    """A source of another kind (a parsed puzzle, an Item) passed with kind=spec.name."""
    return InputError(f"puzzles: {what} of kind {kind!r} passed with kind={spec.name!r}; pass "
                      f"kind={kind!r}")  # fmt: skip


def _is_path(source) -> bool:
    if isinstance(source, (FileName, os.PathLike)):
        return True
    if not isinstance(source, str) or "\n" in source:
        return False
    if source == "-" or os.path.exists(source):
        return True
    return "/" in source or os.sep in source or source.lower().endswith(PATH_ENDINGS)


def _name(source) -> str:
    if isinstance(source, str) and source == "-":
        return "<stdin>"
    if _is_path(source):
        return os.fspath(source)
    name = getattr(source, "name", None)
    return name if isinstance(name, str) and name else "<api>"


def named_text(source, position: int):
    """A source as read() takes it from a list: puzzle text (a str that is no path, or bytes)
    as a stream named `<api> text K`, K its position in the list, so that its faults and
    results say which text they come from; any other source as it is."""
    if isinstance(source, (str, bytes)) and not _is_path(source):
        stream = _opened(source)
        stream.name = f"<api> text {position}"
        return stream
    return source


def _opened(source):
    """What cpu_reference.sources.open_source takes for a source: puzzle text as a stream,
    the command line's "-" as stdin that a run's time budget can stop while it waits
    (waiting_stdin)."""
    if isinstance(source, FileName) and source == "-":
        return stdin_stream()
    if isinstance(source, str) and not _is_path(source):
        return io.StringIO(source)
    if isinstance(source, bytes):
        return io.BytesIO(source)
    if isinstance(source, os.PathLike):
        return os.fspath(source)
    return source


def read_sudoku(spec, source, fmt, order) -> Iterator[Item | InputError]:
    """The Sudoku puzzles of one source (cpu_reference.sudoku.formats reads text)."""
    if isinstance(source, Puzzle):
        out = writable_format(source.fmt, source.order)
        yield Item(spec, 0, "<api>", source.line, source.name, source.cells, source.order, out,
                   source.separator)  # fmt: skip
        return
    if isinstance(source, (np.ndarray, list, tuple)):
        yield from _sudoku_arrays(spec, source, order)
        return
    name = _name(source)
    try:
        for got in iter_puzzles(_opened(source), fmt=fmt, order=order, name=name):
            if isinstance(got, InputError):
                yield got
            else:
                yield Item(spec, 0, name, got.line, got.name, got.cells, got.order, got.fmt,
                           got.separator)  # fmt: skip
    except InputError as exc:
        yield exc


def _sudoku_arrays(spec, array, order: int | None) -> Iterator[Item | InputError]:
    """The grids of an API array or list (validate.sudoku_grids takes its shape); a grid with a
    value outside 0..N, or a digit given twice in a unit, is a fault of that grid alone, named
    as the text readers name it (check_givens)."""
    try:
        a, n = sudoku_grids(array, order)
    except InputError as exc:
        yield exc
        return
    fmt = writable_format(ARRAY_FORMAT, n)
    for q, row in enumerate(a):
        fault = check_givens(row, n)
        if fault is not None:
            yield InputError(f"<api> puzzle {q}: {fault}")
            continue
        yield Item(spec, 0, "<api>", None, "", row.astype(np.uint8), n, fmt)


def read_grid(spec, source) -> Iterator[Item | InputError]:
    """The Shikaku or Hashi puzzles of one source (spec.parse_game_id and spec.parse_grid read
    them)."""
    if isinstance(source, spec.parsed_types):
        yield Item(spec, 0, "<api>", None, "", source)
        return
    if isinstance(source, np.ndarray) or _is_array_like(source):
        what = "a NumPy array" if isinstance(source, np.ndarray) else "a list of numbers"
        yield InputError(f"puzzles: {what} is Sudoku input; {spec.title} takes game IDs, text "
                         "grids, files or parsed puzzles")  # fmt: skip
        return
    name = _name(source)
    try:
        with open_source(_opened(source), name) as opened:
            numbered = read_lines(opened.stream, opened.shown, MAX_GRID_LINE)
            yield from _grid_items(numbered, opened.shown, spec)
    except InputError as exc:
        yield exc


def _grid_items(numbered, name: str, spec) -> Iterator[Item | InputError]:
    """The puzzles of one Shikaku or Hashi source: a game ID per line, or one text grid (the
    first puzzle line decides: a ':' means game IDs)."""
    mode = None  # "ids" or "grid", once the first puzzle line is read
    start = 0  # its line number
    held: list[InputError] = []  # unreadable lines before it
    grid: list[tuple[int, str]] = []  # the lines of a text grid
    bad: InputError | None = None  # a text grid's first faulty line
    for L, text in numbered:
        if isinstance(text, Unreadable):
            fault = InputError(f"{name} line {L}: {text.msg}")
            if mode == "ids":
                yield fault
            elif mode == "grid":
                bad = bad or fault
            else:
                held.append(fault)
            continue
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        if mode is None:
            mode, start = ("ids" if ":" in text else "grid"), L
            if mode == "ids":
                yield from held
            else:
                bad = held[0] if held else None
            held = []
        if mode == "ids":
            yield _game_id_item(spec, name, L, text, start)
        else:
            grid.append((L, text))
    if mode is None:
        yield from held
        yield InputError(f"{name}: empty input, no puzzle found")
    elif mode == "grid":
        yield _text_grid_item(spec, name, grid, bad)


def _game_id_item(spec, name: str, L: int, text: str, start: int) -> Item | InputError:
    """Line L of a file of game IDs, parsed (or its fault)."""
    where = f"{name} line {L}"
    if ":" not in text:
        return InputError(f"{where}: not a game ID (WxH:description); this file holds game IDs "
                          f"from line {start}, one per line (a text grid must be a file of its "
                          "own)")  # fmt: skip
    try:
        return Item(spec, 0, name, L, "", spec.parse_game_id(text.strip(), where))
    except InputError as exc:
        return exc


def _text_grid_item(spec, name: str, grid: list[tuple[int, str]], bad) -> Item | InputError:
    """The one text grid of a source (its lines with their numbers), or its one fault."""
    if bad is not None:
        return InputError(f"{bad}; a text grid with a faulty line is refused whole")
    lines = [""] * grid[-1][0]
    for L, text in grid:
        lines[L - 1] = text
    try:
        return Item(spec, 0, name, grid[0][0], "", spec.parse_grid("\n".join(lines), name))
    except InputError as exc:
        return exc


def read_grids(
    source, order: int | None, full: bool, on_fault: Callable[[InputError], None] | None = None,
    completable: bool = False,
) -> tuple[np.ndarray, int]:  # fmt: skip
    """uint8[P, cells] of every Sudoku in source, all of one order, and that order; InputError
    on the first fault. With `full`, each must be a complete valid grid (checked by the
    verifier), and repeated digits are read rather than refused so that the verifier names them.
    With `on_fault`, each faulty grid (unreadable, of another order, not a valid full grid) is
    handed to it and left out, the rest still read (the order: `order`, else the first grid
    kept); InputError '{name}: no usable grid' when every grid was a fault. With
    `completable`, givens that the exact solver's deduction finds contradictory (no grid
    completes them) are a fault too.
    """
    from cpu_reference.sudoku.batch import logic_fill
    from cpu_reference.sudoku.verify import verify_solution

    rows, faults = [], []
    name = "<stdin>" if source == "-" else str(source)
    for item in iter_puzzles(source, name=name, check=not full):
        if isinstance(item, InputError):
            error = item
        elif order is not None and item.order != order:
            N = order * order
            where = f"{name}, line {item.line}"
            error = InputError(f"{where}: a {item.N}x{item.N} grid, order {order} is {N}x{N}")
        else:
            wrong = verify_solution(item.cells, item.order) if full else None
            error = None if wrong is None else InputError(
                f"{name}, line {item.line}: not a valid full grid: {wrong}"
            )  # fmt: skip
            if error is None and completable and logic_fill(item.cells, item.order)[1] is None:
                error = InputError(f"{name}, line {item.line}: the givens have no completion "
                                   "(deduction meets a contradiction)")  # fmt: skip
        if error is not None:
            if on_fault is None:
                raise error
            on_fault(error)
            faults.append(error)
            continue
        order = item.order
        rows.append(item.cells)
    if not rows:
        raise InputError(f"{name}: no usable grid" if faults else f"{name}: no grid found")
    return np.stack(rows), order
