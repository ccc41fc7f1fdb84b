"""Simon Tatham's game IDs and plain text grids: the codecs the three puzzles share.

Glossary:
    W, H       grid width and height, as a game ID writes them (`WxH...:desc`)
    desc       the description after ':' (run-length: `a`-`z` are 1-26 blank cells)
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from cpu_reference.errors import InputError
from cpu_reference.fields import shown
from cpu_reference.runs import run_offsets
from cpu_reference.sources import line_fault, split_lines

_SIZE = re.compile(r"^\s*([0-9]{1,7})\s*x\s*([0-9]{1,7})")
MAX_CELLS = 10**6  # the most cells of a game ID's grid, and of a text grid


def split_game_id(text: str, where: str) -> tuple[int, int, str, str]:
    """(W, H, the parameters after WxH, the description) of a game ID `WxH[params]:desc`."""
    text = text.strip()
    if ":" not in text:
        raise InputError(f"{where}: no ':' between parameters and description")
    params, desc = text.split(":", 1)
    m = _SIZE.match(params)
    if not m:
        raise InputError(f"{where}: parameters {shown(params)} do not start with WxH")
    w, h = int(m.group(1)), int(m.group(2))
    if w < 1 or h < 1 or w * h > MAX_CELLS:
        raise InputError(f"{where}: size {w}x{h} out of range")
    return w, h, params[m.end() :], desc


def check_params(params: str, pattern: re.Pattern, expected: str, where: str) -> None:
    """InputError unless the parameters after a game ID's WxH are all of `pattern`'s (what
    Tatham's games write there), `expected` saying which."""
    if not pattern.fullmatch(params.strip()):
        raise InputError(f"{where}: parameters {shown(params.strip())} after the size: expected "
                         f"{expected}")  # fmt: skip


def desc_grid(cells: list[int], w: int, h: int, where: str) -> np.ndarray:
    """int64[H, W] of the cells a game ID's description lists; InputError unless W * H of them."""
    if len(cells) != w * h:
        raise InputError(f"{where}: description has {len(cells)} cells, {w}x{h} needs {w * h}")
    return np.array(cells, dtype=np.int64).reshape(h, w)


def grid_rows(
    text: str, where: str, cell: Callable[[str], int | None], spaced_per_line: bool
) -> tuple[list[list[int]], int]:
    """Rows of cell values of a plain text grid, and the line number of its first row; `cell`
    maps a token to its value (None: unknown).

    Lines are numbered as the text's lines (1-based, blank lines counted, so that a grid read
    from a file keeps the file's numbers; a line ends at "\\n", "\\r\\n" or "\\r" only, never at
    a form feed or U+2028); blank lines hold no row. A fault names `where` and the line: "FILE
    line 3: unknown cell 'x'", "FILE line 1: control character U+000C at column 2; not puzzle
    text". Cells are single characters, or tokens separated by spaces: on every line as soon as
    one line has spaces, or (`spaced_per_line`) on each line that has them.
    """
    lines = []
    for n, ln in enumerate(split_lines(text), 1):
        fault = line_fault(ln)
        if fault is not None:
            raise InputError(f"{where} line {n}: {fault}")
        if ln.strip():
            lines.append((n, ln.strip()))
    if not lines:
        raise InputError(f"{where}: empty grid")
    rows: list[list[int]] = []
    spaced = any(len(ln.split()) > 1 for _, ln in lines)
    cells = 0
    known: dict[str, int | None] = {}  # a token's value (None: unknown)
    for n, ln in lines:
        split = len(ln.split()) > 1 if spaced_per_line else spaced
        tokens = ln.split() if split else list(ln)
        cells += len(tokens)
        if cells > MAX_CELLS:
            raise InputError(f"{where} line {n}: more than {MAX_CELLS:,} cells, the most a grid "
                             "may have (as a game ID's)")  # fmt: skip
        for t in set(tokens).difference(known):  # each distinct token's value computed once
            known[t] = cell(t)
        row = [known[t] for t in tokens]
        if None in row:
            t = tokens[row.index(None)]
            raise InputError(f"{where} line {n}: unknown cell {shown(t)}")
        if rows and len(row) != len(rows[0]):
            first = lines[0][0]
            raise InputError(f"{where} line {n}: {len(row)} cells, line {first} has "
                             f"{len(rows[0])}")  # fmt: skip
        rows.append(row)
    return rows, lines[0][0]


def parse_either(text: str, where: str, parse_game_id: Callable, parse_grid: Callable):
    """parse_game_id on the first line when it holds ':' (and nothing but blank lines
    follows it), else parse_grid on the whole text (lines split as split_lines splits them)."""
    stripped = text.strip()
    if not stripped:
        raise InputError(f"{where}: empty input")
    first, *rest = split_lines(stripped)
    if ":" in first:
        fault = line_fault(first)
        if fault is not None:
            raise InputError(f"{where}: {fault}")
        if any(ln.strip() for ln in rest):
            raise InputError(f"{where}: a game ID is one line; give several one per line in a "
                             "file")  # fmt: skip
        return parse_game_id(first, where)
    return parse_grid(text, where)


RUN_MAX = 26  # the longest run of blanks one letter of a description holds ("z")


def blank_runs(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(at, full, rest) of a description's blanks: the places of the non-blank cells, and for
    the run of blanks before each of them and the one after the last (len(at) + 1 runs) its
    count of whole "z" letters and the blanks left for one more letter (0: none)."""
    at = np.flatnonzero(cells)
    runs = np.append(at, cells.size) - np.concatenate([[0], at + 1])
    full, rest = np.divmod(runs, RUN_MAX)
    return at, full, rest


def run_chars(full: np.ndarray, rest: np.ndarray, widths: np.ndarray):
    """(chars, text_at) laying out a description: run k's letters ("z" times full[k], then the
    letter of rest[k] where it is above 0) followed by widths[k] characters of its token; chars
    holds the letters (uint8, a token's places still 0), text_at[k] where run k's token
    begins."""
    letters = full + (rest > 0)
    owner, offset = run_offsets(letters + widths)
    chars = np.zeros(owner.size, np.uint8)
    in_run = offset < letters[owner]
    chars[in_run] = ord("z")
    last = in_run & (offset == full[owner])
    chars[last] = ord("a") - 1 + rest[owner[last]]
    starts = np.cumsum(letters + widths) - (letters + widths)
    return chars, starts + letters


def solo_description(cells: np.ndarray) -> str:
    """Run-length description of cells, as Tatham's game IDs write it (a-z: runs of blanks;
    numbers in decimal, two numbers with no blank between parted by "_")."""
    cells = np.asarray(cells, np.int64)
    at, full, rest = blank_runs(cells)
    values = cells[at]
    digits = np.ones(values.size, np.int64)
    for power in range(1, 19):  # the decimal digits of each number
        digits += values >= 10**power
    parted = np.zeros(values.size, np.int64)
    parted[1:] = (full[1:-1] + rest[1:-1]) == 0
    widths = np.append(parted + digits, 0)
    chars, text_at = run_chars(full, rest, widths)
    text_at = text_at[:-1]
    chars[text_at[parted == 1]] = ord("_")
    first = text_at + parted
    owner, offset = run_offsets(digits)
    place = 10 ** (digits[owner] - 1 - offset)
    chars[first[owner] + offset] = ord("0") + (values[owner] // place) % 10
    return chars.tobytes().decode("ascii")
