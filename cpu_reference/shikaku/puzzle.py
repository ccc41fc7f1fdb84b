"""Shikaku: the puzzle, its formats, candidate rectangles and an independent verifier.

Glossary:
    H, W     grid height (rows) and width (columns)
    r, c     row and column of a cell, 0-based from the top left
    cell     flat cell index r * W + c
    K        number of clues; k indexes clues in reading order (row by row)
    v_k      the value (area) of clue k, at cell (r_k, c_k)
    R        number of candidate rectangles over all clues; l indexes them
    rect     (top, left, height, width) of a rectangle

Candidate layout (CSR over clues, the same arrays feed the annealers and the ILP):

    cand   int32[R, 4]   (top, left, height, width) of rectangle l
    start  int32[K + 1]  the candidates of clue k are cand[start[k]:start[k + 1]]

Formats:
    game ID   Simon Tatham's `rect`: `WxH[params]:desc`; in desc a..z are runs of 1..26 blank
              cells, decimal numbers are clues, `_` separates two adjacent numbers.
    grid      one row per line; `.` or `0` is blank; cells are single characters, or separated by
              spaces (needed as soon as a clue exceeds 9).
    move      Tatham's solve move: `S`, then for each row y and x = 1..W-1 a `1` if a rectangle
              edge lies between (x-1, y) and (x, y), then for each y = 1..H-1 and each x a `1` if
              an edge lies between (x, y-1) and (x, y); `0` otherwise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from numba import njit

from cpu_reference.errors import InputError
from cpu_reference.fields import shown, whole_number
from cpu_reference.tatham import (
    check_params,
    desc_grid,
    grid_rows,
    parse_either,
    solo_description,
    split_game_id,
)


@dataclass(frozen=True)
class Shikaku:
    """A Shikaku instance: the clue grid (0 = blank) and the clues in reading order."""

    height: int
    width: int
    grid: np.ndarray  # int32[H, W]

    @property
    def clues(self) -> np.ndarray:
        """int32[K, 3]: (row, col, value) of each clue, in reading order."""
        rows, cols = np.nonzero(self.grid)
        return np.stack([rows, cols, self.grid[rows, cols]], axis=1).astype(np.int32)

    @property
    def n_clues(self) -> int:
        """Number of clues K."""
        return int(np.count_nonzero(self.grid))


# what Tatham's rect writes after WxH: the expansion factor and u (unique)
_PARAMS = re.compile(r"(?:e[0-9.]+|u)*")


def _validate(grid: np.ndarray, where: str) -> Shikaku:
    h, w = grid.shape
    if h < 1 or w < 1:
        raise InputError(f"{where}: empty grid")
    total = int(grid.sum())
    if total != h * w:
        raise InputError(f"{where}: clue areas sum to {total}, the grid has {h * w} cells")
    return Shikaku(h, w, grid.astype(np.int32))


def parse_game_id(text: str, where: str = "game ID") -> Shikaku:
    """Parse a Tatham `rect` game ID `WxH[params]:desc`."""
    w, h, params, desc = split_game_id(text, where)
    check_params(params, _PARAMS, "e with a number, u", where)
    cells: list[int] = []
    i = 0
    desc = desc.strip()
    while i < len(desc):
        ch = desc[i]
        if "a" <= ch <= "z":
            cells.extend([0] * (ord(ch) - ord("a") + 1))
            i += 1
        elif "0" <= ch <= "9":
            j = i
            while j < len(desc) and "0" <= desc[j] <= "9":
                j += 1
            value = whole_number(desc[i:j], w * h)
            if not value:  # None: more than the grid's cells
                clue = shown(desc[i:j], quote=False)
                raise InputError(f"{where}: clue {clue} at description offset {i} is not in "
                                 f"1..{w * h}")  # fmt: skip
            cells.append(value)
            i = j
        elif ch == "_":
            i += 1
        else:
            raise InputError(f"{where}: unknown character {ch!r} at description offset {i}")
        if len(cells) > w * h:
            raise InputError(f"{where}: description has more than {w * h} cells")
    return _validate(desc_grid(cells, w, h, where), where)


def _grid_cell(t: str) -> int | None:
    if t in (".", "0", "-"):
        return 0
    return int(t) if t.isascii() and t.isdigit() and len(t) <= 7 else None


def parse_grid(text: str, where: str = "grid") -> Shikaku:
    """Parse a plain text grid: digits and dots, one row per line (spaces between cells allowed)."""
    rows, first = grid_rows(text, where, _grid_cell, spaced_per_line=False)
    return _validate(np.array(rows, dtype=np.int64), f"{where} line {first}")


def parse(text: str, where: str = "input") -> Shikaku:
    """Parse a game ID (one line containing ':') or a plain text grid."""
    return parse_either(text, where, parse_game_id, parse_grid)


def to_game_id(p: Shikaku) -> str:
    """The Tatham `rect` game ID of a puzzle."""
    return f"{p.width}x{p.height}:" + solo_description(p.grid.ravel())


def to_grid_text(p: Shikaku) -> str:
    """The plain text grid of a puzzle (spaced when a clue exceeds 9)."""
    spaced = int(p.grid.max()) > 9
    width = len(str(int(p.grid.max())))
    lines = []
    for row in p.grid:
        cells = [(str(int(v)) if v else ".") for v in row]
        lines.append(" ".join(c.rjust(width) for c in cells) if spaced else "".join(cells))
    return "\n".join(lines)


def candidates(p: Shikaku, pruned: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Candidate rectangles per clue: area = value, holding the clue cell, inside the grid.

    With `pruned`, rectangles that hold another clue are left out (they can never be in a
    solution). Returns (cand int32[R, 4], start int32[K + 1]): clue by clue, each clue's by
    height, then top, then left.
    """
    clues = p.clues.astype(np.int64)
    occupied = _clues_above_left(p)
    counts = np.zeros(len(clues), np.int64)
    _rectangles(clues, p.height, p.width, occupied, pruned, counts, np.zeros((0, 4), np.int32))
    start = np.zeros(len(clues) + 1, np.int64)
    np.cumsum(counts, out=start[1:])
    cand = np.zeros((int(start[-1]), 4), np.int32)
    _rectangles(clues, p.height, p.width, occupied, pruned, counts, cand)
    return cand, start.astype(np.int32)


def _clues_above_left(p: Shikaku) -> np.ndarray:
    """int64[H + 1, W + 1], the clues' summed-area table: [r, c] counts the clues in rows < r
    and columns < c, so a rectangle's clues are four lookups."""
    table = np.cumsum(np.cumsum(p.grid != 0, axis=0), axis=1)
    return np.pad(table, ((1, 0), (1, 0))).astype(np.int64)


@njit(cache=True)
def _rectangles(clues, height, width, occupied, pruned, counts, out):  # pragma: no cover
    """candidates' loop: with an empty `out`, counts[k] = clue k's rectangles; else they are
    written into out, clue after clue."""
    at = 0
    for k in range(clues.shape[0]):
        r, c, v = clues[k, 0], clues[k, 1], clues[k, 2]
        found = 0
        for hh in range(1, v + 1):
            if v % hh:
                continue
            ww = v // hh
            if hh > height or ww > width:
                continue
            for top in range(max(0, r - hh + 1), min(r, height - hh) + 1):
                for left in range(max(0, c - ww + 1), min(c, width - ww) + 1):
                    if pruned:
                        inside = (
                            occupied[top + hh, left + ww]
                            - occupied[top, left + ww]
                            - occupied[top + hh, left]
                            + occupied[top, left]
                        )
                        if inside != 1:
                            continue
                    if out.shape[0] > 0:
                        out[at, 0], out[at, 1], out[at, 2], out[at, 3] = top, left, hh, ww
                    at += 1
                    found += 1
        counts[k] = found


def propagate(p: Shikaku, cand: np.ndarray, start: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Shrink pruned candidates by two exact rules until nothing changes.

    (a) A cell that every candidate of clue k covers belongs to k: other clues' candidates
    covering it go. (b) A cell that only clue k's candidates can cover must be covered by k:
    k's candidates missing it go. Only rectangles that are in no solution are removed. Returns
    (cand, start) as `candidates` does; a clue left with no candidate means no solution.
    """
    h, w = p.height, p.width
    k_count = len(start) - 1
    alive = [list(range(start[k], start[k + 1])) for k in range(k_count)]
    masks = np.zeros((len(cand), h, w), dtype=bool)
    for idx, (t, left, hh, ww) in enumerate(cand):
        masks[idx, t : t + hh, left : left + ww] = True
    changed = True
    while changed:
        changed = False
        owner = np.full((h, w), -1, dtype=np.int64)
        reach = np.zeros((k_count, h, w), dtype=bool)
        for k in range(k_count):
            if not alive[k]:
                return cand[:0], np.zeros(k_count + 1, dtype=np.int32)
            m = masks[alive[k]]
            reach[k] = m.any(axis=0)
            owner[m.all(axis=0)] = k
        count = reach.sum(axis=0)
        only = np.where(count == 1, np.argmax(reach, axis=0), -1)
        for k in range(k_count):
            keep = []
            for idx in alive[k]:
                m = masks[idx]
                o = owner[m]
                if np.any((o >= 0) & (o != k)):
                    continue
                if np.any((only == k) & ~m):
                    continue
                keep.append(idx)
            if len(keep) != len(alive[k]):
                alive[k] = keep
                changed = True
    order = [idx for k in range(k_count) for idx in alive[k]]
    new_start = np.cumsum([0] + [len(a) for a in alive]).astype(np.int32)
    return cand[order].reshape(-1, 4).astype(np.int32), new_start


def verify(p: Shikaku, rects) -> tuple[bool, str]:
    """Check a solution: one rectangle per clue, holding only that clue, area = value, exact cover.

    `rects` lists (top, left, height, width) per clue in reading order. Returns (ok, reason):
    the first clue at fault, and its first fault in that order, else the first cell not covered
    exactly once.
    """
    clues = p.clues.astype(np.int64)
    rects = np.asarray(rects, dtype=np.int64).reshape(-1, 4)
    if len(rects) != len(clues):
        return False, f"{len(rects)} rectangles for {len(clues)} clues"
    h, w = p.height, p.width
    r, c, v = clues.T
    t, left, hh, ww = rects.T
    leaves = (hh < 1) | (ww < 1) | (t < 0) | (left < 0) | (t > h - hh) | (left > w - ww)
    area = hh * ww != v
    holds = (t <= r) & (r - t < hh) & (left <= c) & (c - left < ww)
    # clues inside each rectangle (those inside the grid) by a summed-area table
    occupied = _clues_above_left(p)
    top, lo = np.where(leaves, 0, t), np.where(leaves, 0, left)
    bottom, right = np.where(leaves, 0, t + hh), np.where(leaves, 0, left + ww)
    inside = (occupied[bottom, right] - occupied[top, right] - occupied[bottom, lo]
              + occupied[top, lo])  # fmt: skip
    faults = leaves | area | ~holds | (inside != 1)
    if faults.any():
        k = int(np.argmax(faults))
        if leaves[k]:
            return False, f"clue {k}: rectangle {rects[k].tolist()} leaves the grid"
        if area[k]:
            return False, f"clue {k}: area {hh[k] * ww[k]} differs from the clue {v[k]}"
        if not holds[k]:
            return False, f"clue {k}: rectangle does not hold its clue cell ({r[k]}, {c[k]})"
        return False, f"clue {k}: rectangle holds another clue"
    # cover counts by a difference table: +1 at each rectangle's corners in, -1 past them
    cover = np.zeros((h + 1, w + 1), dtype=np.int64)
    np.add.at(cover, (t, left), 1)
    np.add.at(cover, (t, left + ww), -1)
    np.add.at(cover, (t + hh, left), -1)
    np.add.at(cover, (t + hh, left + ww), 1)
    cover = np.cumsum(np.cumsum(cover, axis=0), axis=1)[:h, :w]
    if np.any(cover != 1):
        r, c = np.argwhere(cover != 1)[0]
        return False, f"cell ({r}, {c}) covered {cover[r, c]} times"
    return True, "ok"


def labels(p: Shikaku, rects) -> np.ndarray:
    """int32[H, W]: the index of the rectangle covering each cell (-1 where none; the last one
    where several do)."""
    lab = np.full((p.height, p.width), -1, dtype=np.int32)
    _paint(lab, np.asarray(rects, dtype=np.int64).reshape(-1, 4))
    return lab


@njit(cache=True)
def _paint(lab, rects):  # pragma: no cover
    """labels' loop: rectangle k writes k over its cells, in order."""
    for k in range(rects.shape[0]):
        t, left, hh, ww = rects[k, 0], rects[k, 1], rects[k, 2], rects[k, 3]
        lab[t : t + hh, left : left + ww] = k


def solution_text(p: Shikaku, rects) -> str:
    """ASCII drawing of a solution: `+`, `-`, `|` borders between rectangles, clues inside.

    Drawn on a character canvas of 2H + 1 lines, each `|` or `+` then, per column, CW
    characters (a clue right-aligned, or the border `-` / blank) and a `|`, `+` or blank::

        +--+--+        border line: `-` where the cells above and below differ
        | 2   |        cell line: `|` where the cells left and right differ
        +--+--+
    """
    lab = labels(p, rects)
    h, w = p.height, p.width
    cw = max(2, len(str(int(p.grid.max()))))
    step = cw + 1
    canvas = np.full((2 * h + 1, 1 + w * step + 1), ord(" "), dtype=np.uint8)
    canvas[:, -1] = ord("\n")
    borders, cells = canvas[0::2, 1:-1], canvas[1::2, 1:-1]
    borders = borders.reshape(h + 1, w, step)
    cells = cells.reshape(h, w, step)
    inner_down, inner_across = _borders(lab)
    across = np.ones((h + 1, w), dtype=bool)  # a border between the cells above and below
    across[1:h] = inner_across
    borders[:, :, :cw][across] = ord("-")
    borders[:, :, cw] = ord("+")
    canvas[0::2, 0] = ord("+")
    down = np.ones((h, w), dtype=bool)  # a border between the cells left and right
    down[:, :-1] = inner_down
    cells[:, :, cw][down] = ord("|")
    canvas[1::2, 0] = ord("|")
    rows, cols = np.nonzero(p.grid)
    if len(rows):
        shown = np.char.rjust(p.grid[rows, cols].astype(str), cw).astype(f"S{cw}")
        cells[rows, cols, :cw] = np.frombuffer(shown.tobytes(), np.uint8).reshape(-1, cw)
    return canvas.tobytes().decode("ascii")[:-1]


def solve_move(p: Shikaku, rects) -> str:
    """Tatham's `rect` solve move string for a solution (see the module docstring)."""
    down, across = _borders(labels(p, rects))
    edges = np.concatenate([down.ravel(), across.ravel()])
    return "S" + np.where(edges, ord("1"), ord("0")).astype(np.uint8).tobytes().decode("ascii")


def _borders(lab: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(bool[H, W - 1]: a rectangle's edge between each cell and the one on its right,
    bool[H - 1, W]: between each cell and the one below), from labels' grid."""
    return lab[:, :-1] != lab[:, 1:], lab[:-1] != lab[1:]


def solution_json(rects) -> list[list[int]]:
    """JSON rectangles: [row, col, height, width] per clue in reading order."""
    return np.asarray(rects).reshape(-1, 4).astype(np.int64).tolist()
