"""How many puzzles the input files hold, counted cheaply for the progress line's total.

A count by lines: the puzzle lines of each file (neither blank, '#' comments nor the lines drawn
between a grid's boxes), divided by the lines one puzzle takes, which the file's first puzzle
shows (a Sudoku `grid`, `rows` or `csv` puzzle takes N lines, a `lloyd-amos` block N + 2; every
other Sudoku format, and a Shikaku or Hashiwokakero game ID, one line; a plain text grid of
those kinds is the whole file). The count
is an estimate: a malformed line counts as a puzzle. None when it cannot be known cheaply:
stdin, a compressed file, a file that is not a regular file.
"""

from __future__ import annotations

import itertools
import math
import os

from gpu_anneal.kinds import kind_of
from gpu_anneal.reference import GRID_FORMATS, InputError, Puzzle, iter_puzzles, passed_over

HEAD_ITEMS = 16  # faults looked past for the first good puzzle


def count_puzzles(sources: list[str], kind: str, fmt: str | None = None) -> int | None:
    """The puzzles of every source together, or None when one of them cannot be counted."""
    total = 0
    for source in sources:
        one = _count_file(str(source), kind, fmt)
        if one is None:
            return None
        total += one
    return total


def _count_file(path: str, kind: str, fmt: str | None) -> int | None:
    if path == "-" or path.endswith((".gz", ".bz2", ".xz", ".zip")) or not os.path.isfile(path):
        return None
    try:
        lines_per_puzzle = _lines_per_puzzle(path, kind, fmt)
        if lines_per_puzzle is None:
            return None
        with open(path, encoding="utf-8", errors="replace") as stream:
            lines = sum(1 for line in stream if not passed_over(line))
    except (OSError, InputError):
        return None
    if lines_per_puzzle == 0:  # the whole file is one puzzle
        return 1 if lines else 0
    return math.ceil(lines / lines_per_puzzle)


def _lines_per_puzzle(path: str, kind: str, fmt: str | None) -> int | None:
    """Lines one puzzle of the file takes (0: the whole file), None when no puzzle shows it."""
    if kind_of(kind).game_ids:  # a game ID a line, or one text grid
        with open(path, "rb") as stream:
            for line in stream:
                text = line.strip()
                if text and not text.startswith(b"#"):
                    return 1 if b":" in text else 0
        return None
    items = iter_puzzles(path, fmt=fmt, name=path)
    try:
        for item in itertools.islice(items, HEAD_ITEMS):
            if isinstance(item, Puzzle):
                if item.fmt == "lloyd-amos":  # the order, `1`, then N rows
                    return item.N + 2
                return item.N if item.fmt in GRID_FORMATS else 1
    finally:
        items.close()
    return None
