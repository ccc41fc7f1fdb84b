"""Reading puzzles of every kind into one stream of `Item`s, faults kept apart.

Glossary:
    source   a path, "-" (stdin), a file object, or puzzle text held in memory
    item     one puzzle read: its kind, where it came from, and its parsed givens
    fault    an InputError naming the source, the line and what is wrong; a fault costs only its
             own puzzle, the rest of the source is still read

Sudoku sources are read by cpu_reference.sudoku.formats (line, grid, rows, tdoku, tsv, solo).
Shikaku and Hashiwokakero sources hold one Tatham game ID per line, or one plain text grid for
the whole source (see cpu_reference.shikaku.puzzle and cpu_reference.hashi.puzzle).
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from cpu_reference.errors import InputError
from cpu_reference.hashi import puzzle as hashi
from cpu_reference.shikaku import puzzle as shikaku
from cpu_reference.sudoku.formats import Puzzle, format_grid, iter_puzzles
from cpu_reference.sudoku.layout import layout
from gpu_anneal.results import givens_hash

KINDS = ("sudoku", "shikaku", "hashi")
PATH_ENDINGS = (".txt", ".tsv", ".sdk", ".ids", ".jsonl")


@dataclass
class Item:
    """One puzzle read from a source."""

    kind: str
    index: int  # 0-based position among the good puzzles of the whole input
    source: str  # file name, "<stdin>" or "<api>"
    line: int | None  # 1-based line where the puzzle starts
    name: str
    puzzle: Any  # Sudoku: uint8[cells]; Shikaku / Hashi: the parsed puzzle object
    order: int | None = None  # Sudoku order n
    fmt: str = "line"  # Sudoku: the format the puzzle was read in (solutions are written in it)

    @property
    def size(self) -> str:
        """WIDTHxHEIGHT in cells."""
        if self.kind == "sudoku":
            side = self.order * self.order
            return f"{side}x{side}"
        return f"{self.puzzle.width}x{self.puzzle.height}"

    @property
    def givens_hash(self) -> str:
        """The puzzle's identity (results.givens_hash over its canonical givens)."""
        if self.kind == "sudoku":
            givens = np.asarray(self.puzzle, np.uint8).tobytes()
        else:
            givens = game_id(self.kind, self.puzzle)
        return givens_hash(self.kind, self.size, givens)

    @property
    def givens_text(self) -> str:
        """The givens as text: Sudoku in the puzzle's format, the others as a game ID."""
        if self.kind == "sudoku":
            return self.text(self.puzzle)
        return game_id(self.kind, self.puzzle)

    def text(self, state) -> str | None:
        """A state of this puzzle as text in the puzzle's notation (None for no state)."""
        if state is None:
            return None
        if self.kind == "sudoku":
            cells = np.asarray(state, dtype=np.uint8)
            return format_grid(cells, self.order, self.fmt, self.name if self.fmt == "tsv" else "")
        if self.kind == "shikaku":
            return shikaku.solution_text(self.puzzle, state)
        return hashi.solution_text(self.puzzle, state)


def game_id(kind: str, puzzle) -> str:
    """Tatham's game ID of a parsed Shikaku or Hashiwokakero puzzle."""
    return shikaku.to_game_id(puzzle) if kind == "shikaku" else hashi.to_game_id(puzzle)


def parse_grid_puzzle(kind: str, text: str, where: str = "input"):
    """A Shikaku or Hashiwokakero puzzle from a game ID or a text grid; InputError if malformed."""
    if kind == "shikaku":
        return shikaku.parse(text, where)
    if kind == "hashi":
        return hashi.parse(text, where)
    raise InputError(f"kind {kind!r}: expected shikaku or hashi")


def read(
    sources: Iterable,
    kind: str = "sudoku",
    *,
    fmt: str | None = None,
    order: int | None = None,
) -> Iterator[Item | InputError]:
    """Every puzzle of the sources in turn: an Item per puzzle, an InputError per fault.

    A source is a path, "-" (stdin), a file object, puzzle text (a str holding a newline, or
    one that names no file and looks like no path), a Sudoku array (uint8[cells] or
    uint8[P, cells]), a parsed puzzle, or an Item. Unreadable sources give one InputError each.
    """
    if kind not in KINDS:
        raise InputError(f"kind {kind!r}: expected one of {', '.join(KINDS)}")
    index = 0
    for source in sources:
        for item in _read_one(source, kind, fmt, order):
            if isinstance(item, Item):
                item.index = index
                index += 1
            yield item


def as_sources(puzzles) -> list:
    """The list of sources in an API call's `puzzles` argument."""
    if isinstance(puzzles, (str, bytes, os.PathLike, np.ndarray, Item, io.IOBase)):
        return [puzzles]
    if hasattr(puzzles, "read") or isinstance(puzzles, (shikaku.Shikaku, hashi.Hashi, Puzzle)):
        return [puzzles]
    return list(puzzles) if not isinstance(puzzles, Iterator) else [puzzles]


def _read_one(source, kind: str, fmt: str | None, order: int | None) -> Iterator[Item | InputError]:
    if isinstance(source, Item):
        yield source
    elif isinstance(source, Iterator):
        for sub in source:
            yield from _read_one(sub, kind, fmt, order)
    elif kind == "sudoku":
        yield from _read_sudoku(source, fmt, order)
    else:
        yield from _read_grid(source, kind)


def _is_path(source) -> bool:
    if isinstance(source, os.PathLike):
        return True
    if not isinstance(source, str) or "\n" in source:
        return False
    if source == "-" or os.path.exists(source):
        return True
    return "/" in source or os.sep in source or source.lower().endswith(PATH_ENDINGS)


def _name(source) -> str:
    if source == "-":
        return "<stdin>"
    if _is_path(source):
        return os.fspath(source)
    return getattr(source, "name", None) or "<api>"


def _read_sudoku(source, fmt, order) -> Iterator[Item | InputError]:
    if isinstance(source, Puzzle):
        yield Item("sudoku", 0, "<api>", source.line, source.name, source.cells, source.order,
                   source.fmt)  # fmt: skip
        return
    if isinstance(source, np.ndarray):
        yield from _sudoku_arrays(source, order)
        return
    name = _name(source)
    if isinstance(source, str) and not _is_path(source):
        source = io.StringIO(source)
    elif isinstance(source, bytes):
        source = io.BytesIO(source)
    elif isinstance(source, os.PathLike):
        source = os.fspath(source)
    try:
        for got in iter_puzzles(source, fmt=fmt, order=order, name=name):
            if isinstance(got, InputError):
                yield got
            else:
                yield Item("sudoku", 0, name, got.line, got.name, got.cells, got.order, got.fmt)
    except InputError as exc:
        yield exc


def _sudoku_arrays(array: np.ndarray, order: int | None) -> Iterator[Item | InputError]:
    a = np.asarray(array)
    if a.ndim == 1:
        a = a[None]
    if a.ndim != 2:
        yield InputError(f"puzzles: array of shape {array.shape}; expected (cells,) or (P, cells)")
        return
    n = order
    if n is None:
        n = next((k for k in range(2, 8) if k**4 == a.shape[1]), None)
        if n is None:
            yield InputError(f"puzzles: {a.shape[1]} cells is no Sudoku size (16, 81, 256, 625)")
            return
    cells = layout(n).cells
    if a.shape[1] != cells:
        yield InputError(f"puzzles: {a.shape[1]} cells per puzzle; order {n} has {cells}")
        return
    N = n * n
    for q, row in enumerate(a):
        if not np.issubdtype(row.dtype, np.integer) or row.min() < 0 or row.max() > N:
            yield InputError(f"<api> puzzle {q}: cells must be integers in 0..{N} (0 blank)")
            continue
        yield Item("sudoku", 0, "<api>", None, "", row.astype(np.uint8), n, "line")


def _read_grid(source, kind: str) -> Iterator[Item | InputError]:
    if isinstance(source, (shikaku.Shikaku, hashi.Hashi)):
        yield Item(kind, 0, "<api>", None, "", source)
        return
    name = _name(source)
    try:
        lines = _decoded_lines(source)
    except InputError as exc:
        yield exc
        return
    for n, text in lines:
        if text is None:
            yield InputError(f"{name} line {n}: not UTF-8 text")
    lines = [(n, text) for n, text in lines if text is not None]
    body = [(n, text) for n, text in lines if text.strip() and not text.lstrip().startswith("#")]
    if not body:
        yield InputError(f"{name}: empty input, no puzzle found")
        return
    if ":" not in body[0][1]:  # one text grid for the whole source
        text = "\n".join(t for _, t in lines)
        try:
            yield Item(kind, 0, name, body[0][0], "", parse_grid_puzzle(kind, text, name))
        except InputError as exc:
            yield exc
        return
    for n, text in body:
        try:
            puzzle = parse_grid_puzzle(kind, text.strip(), f"{name} line {n}")
        except InputError as exc:
            yield exc
            continue
        yield Item(kind, 0, name, n, "", puzzle)


def _decoded_lines(source) -> list[tuple[int, str | None]]:
    """(line number, text) of a source, text None where a line is not UTF-8; InputError for a
    missing file."""
    if source == "-":
        raw = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read()
    elif _is_path(source):
        path = os.fspath(source)
        if not os.path.isfile(path):
            raise InputError(f"{path}: no such file")
        with open(path, "rb") as f:
            raw = f.read()
    elif hasattr(source, "read"):
        raw = source.read()
    else:
        raw = source
    if isinstance(raw, str):
        raw = raw.encode()
    out = []
    for n, chunk in enumerate(raw.splitlines(), 1):
        try:
            out.append((n, chunk.decode("utf-8-sig" if n == 1 else "utf-8")))
        except UnicodeDecodeError:
            out.append((n, None))
    return out


def read_grids(source, order: int | None, full: bool) -> tuple[np.ndarray, int]:
    """uint8[P, cells] of every Sudoku in source, all of one order, and that order; InputError
    on the first fault. With `full`, each must be a complete valid grid (checked by the
    verifier), and repeated digits are read rather than refused so that the verifier names them.
    """
    from cpu_reference.sudoku.verify import verify_solution

    rows = []
    name = "<stdin>" if source == "-" else str(source)
    for item in iter_puzzles(source, name=name, check=not full):
        if isinstance(item, InputError):
            raise item
        if order is None:
            order = item.order
        if item.order != order:
            N = order * order
            raise InputError(
                f"{name}, line {item.line}: a {item.N}x{item.N} grid, order {order} is {N}x{N}"
            )
        if full:
            fault = verify_solution(item.cells, item.order)
            if fault is not None:
                raise InputError(f"{name}, line {item.line}: not a valid full grid: {fault}")
        rows.append(item.cells)
    if not rows:
        raise InputError(f"{name}: no grid found")
    return np.stack(rows), order
