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
    solution). Returns (cand int32[R, 4], start int32[K + 1]).
    """
    clues = p.clues
    occupied = np.cumsum(np.cumsum(p.grid > 0, axis=0), axis=1)
    occupied = np.pad(occupied, ((1, 0), (1, 0)))
    rects: list[tuple[int, int, int, int]] = []
    start = [0]
    for r, c, v in clues:
        for hh in range(1, v + 1):
            if v % hh:
                continue
            ww = v // hh
            if hh > p.height or ww > p.width:
                continue
            for top in range(max(0, r - hh + 1), min(r, p.height - hh) + 1):
                for left in range(max(0, c - ww + 1), min(c, p.width - ww) + 1):
                    if pruned:
                        inside = (
                            occupied[top + hh, left + ww]
                            - occupied[top, left + ww]
                            - occupied[top + hh, left]
                            + occupied[top, left]
                        )
                        if inside != 1:
                            continue
                    rects.append((top, left, hh, ww))
        start.append(len(rects))
    cand = np.array(rects, dtype=np.int32).reshape(-1, 4)
    return cand, np.array(start, dtype=np.int32)


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

    `rects` lists (top, left, height, width) per clue in reading order. Returns (ok, reason).
    """
    clues = p.clues
    rects = np.asarray(rects, dtype=np.int64).reshape(-1, 4)
    if len(rects) != len(clues):
        return False, f"{len(rects)} rectangles for {len(clues)} clues"
    cover = np.zeros((p.height, p.width), dtype=np.int64)
    for k, ((r, c, v), (t, left, hh, ww)) in enumerate(zip(clues, rects, strict=True)):
        if hh < 1 or ww < 1 or t < 0 or left < 0 or t + hh > p.height or left + ww > p.width:
            return False, f"clue {k}: rectangle {[t, left, hh, ww]} leaves the grid"
        if hh * ww != v:
            return False, f"clue {k}: area {hh * ww} differs from the clue {v}"
        if not (t <= r < t + hh and left <= c < left + ww):
            return False, f"clue {k}: rectangle does not hold its clue cell ({r}, {c})"
        if np.count_nonzero(p.grid[t : t + hh, left : left + ww]) != 1:
            return False, f"clue {k}: rectangle holds another clue"
        cover[t : t + hh, left : left + ww] += 1
    if np.any(cover != 1):
        r, c = np.argwhere(cover != 1)[0]
        return False, f"cell ({r}, {c}) covered {cover[r, c]} times"
    return True, "ok"


def labels(p: Shikaku, rects) -> np.ndarray:
    """int32[H, W]: the index of the rectangle covering each cell (-1 where none)."""
    lab = np.full((p.height, p.width), -1, dtype=np.int32)
    for k, (t, left, hh, ww) in enumerate(np.asarray(rects).reshape(-1, 4)):
        lab[t : t + hh, left : left + ww] = k
    return lab


def solution_text(p: Shikaku, rects) -> str:
    """ASCII drawing of a solution: `+`, `-`, `|` borders between rectangles, clues inside."""
    lab = labels(p, rects)
    h, w = p.height, p.width
    cw = max(2, len(str(int(p.grid.max()))))
    lines = []
    for r in range(h + 1):
        top = ["+"]
        for c in range(w):
            edge = r == 0 or r == h or lab[r - 1, c] != lab[r, c]
            top.append(("-" if edge else " ") * cw + "+")
        lines.append("".join(top))
        if r == h:
            break
        row = ["|"]
        for c in range(w):
            v = p.grid[r, c]
            row.append((str(int(v)) if v else "").rjust(cw))
            edge = c == w - 1 or lab[r, c] != lab[r, c + 1]
            row.append("|" if edge else " ")
        lines.append("".join(row))
    return "\n".join(lines)


def solve_move(p: Shikaku, rects) -> str:
    """Tatham's `rect` solve move string for a solution (see the module docstring)."""
    lab = labels(p, rects)
    out = ["S"]
    for y in range(p.height):
        for x in range(1, p.width):
            out.append("1" if lab[y, x - 1] != lab[y, x] else "0")
    for y in range(1, p.height):
        for x in range(p.width):
            out.append("1" if lab[y - 1, x] != lab[y, x] else "0")
    return "".join(out)


def solution_json(rects) -> list[list[int]]:
    """JSON rectangles: [row, col, height, width] per clue in reading order."""
    return [[int(x) for x in r] for r in np.asarray(rects).reshape(-1, 4)]
