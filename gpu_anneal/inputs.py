"""Reading puzzles of every kind into one stream of `Item`s, faults kept apart.

Glossary:
    source   a path, "-" (stdin), a file object, or puzzle text held in memory
    item     one puzzle read: its kind, where it came from, and its parsed givens
    fault    an InputError naming the source, the line and what is wrong; a fault costs only its
             own puzzle, the rest of the source is still read

`read` hands each source to its kind's reader (gpu_anneal.kinds); the readers and the Item live
in gpu_anneal.items, which says how each kind's sources are read and how the API tells paths
from puzzle text.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

from cpu_reference.errors import InputError
from gpu_anneal import items
from gpu_anneal.items import (
    FileName,
    Item,
    file_names,
    read_grids,
    read_source,
    writable_format,
)
from gpu_anneal.kinds import KINDS, kind_of, parsed_kinds
from gpu_anneal.kinds.grid import GridKind

__all__ = [
    "KINDS",
    "FileName",
    "Item",
    "as_sources",
    "file_names",
    "game_id",
    "parse_grid_puzzle",
    "read",
    "read_grids",
    "writable_format",
]


def as_sources(puzzles) -> list:
    """The list of sources in an API call's `puzzles` argument: one source (a parsed puzzle of
    any registered kind among them), or each of a list's (items.as_sources)."""
    return items.as_sources(puzzles, tuple(parsed_kinds()))


def game_id(kind: str, puzzle) -> str:
    """Tatham's game ID of a parsed Shikaku or Hashiwokakero puzzle; InputError for another
    kind, or a puzzle that is not one of the kind's parsed puzzles."""
    spec = _grid_kind(kind)
    if not isinstance(puzzle, spec.parsed_types):
        raise InputError(f"puzzle: a {type(puzzle).__name__}; expected a parsed {kind} puzzle "
                         "(parse_grid_puzzle)")  # fmt: skip
    return spec.game_id(puzzle)


def parse_grid_puzzle(kind: str, text: str, where: str = "input"):
    """A Shikaku or Hashiwokakero puzzle from a game ID or a text grid; InputError if malformed."""
    return _grid_kind(kind).parse(text, where)


def _grid_kind(kind: str) -> GridKind:
    """The registry's grid kind named `kind`; InputError naming shikaku and hashi otherwise."""
    spec = kind_of(kind)
    if not isinstance(spec, GridKind):
        raise InputError(f"kind {kind!r}: expected shikaku or hashi")
    return spec


def read(
    sources: Iterable,
    kind: str = "sudoku",
    *,
    fmt: str | None = None,
    order: int | None = None,
) -> Iterator[Item | InputError]:
    """Every puzzle of the sources in turn: an Item per puzzle, an InputError per fault.

    A source is a path (a FileName always is), "-" (stdin), a file object (read as a file),
    puzzle text (a str holding a newline, or one that names no file and looks like no path), a
    Sudoku array or nested list (validate.sudoku_grids: (cells,) or (N, N) one grid, (P, cells)
    or (P, N, N) P grids), a parsed puzzle, or an Item. Unreadable sources give one InputError
    each.
    """
    spec = kind_of(kind)
    parsed = parsed_kinds()
    index = 0
    if isinstance(sources, (str, bytes, os.PathLike)):  # one source, not its characters
        sources = [sources]
    elif not isinstance(sources, Iterable):
        raise InputError(f"sources: {type(sources).__name__}; expected a list of paths, texts, "
                         "arrays or puzzles")  # fmt: skip
    for source in sources:
        for item in read_source(spec, source, lambda one: spec.read(one, fmt, order), parsed):
            if isinstance(item, Item):
                item.index = index
                index += 1
            yield item
