"""Shikaku instances by recursive random cuts and random merges (seed 004, section 1.4).

Glossary:
    rect          (top, left, height, width)
    depth         recursion depth of the cuts: at most 2**depth rectangles before merging
    merge_iters   the seed's nbMergeIter: passes over adjacent pairs that may merge
    merge_prob    the seed's mergeProb: probability that a compatible pair merges in a pass
    compatible    two rectangles sharing a whole side (their union is a rectangle)

A cut splits a rectangle across its rows with probability height / (height + width), else
across its columns, at a uniform position; one clue per final rectangle, at a uniform cell.
Grids are at most MAX_CELLS cells: the merge pass compares pairs of rectangles, and a 200x200
grid already takes seconds.
"""

from __future__ import annotations

import math

import numpy as np

from cpu_reference.errors import OptionError
from cpu_reference.shikaku.puzzle import Shikaku

MAX_CELLS = 10_000  # 100x100


def default_depth(height: int, width: int) -> int:
    """A depth that gives rectangles of about six cells on average."""
    return max(1, round(math.log2(max(2.0, height * width / 6.0))))


def _cut(rect, depth, rng, out):
    t, left, h, w = rect
    if depth == 0 or (h == 1 and w == 1):
        out.append(rect)
        return
    across_rows = h > 1 and (w == 1 or rng.random() < h / (h + w))
    if across_rows:
        s = int(rng.integers(1, h))
        _cut((t, left, s, w), depth - 1, rng, out)
        _cut((t + s, left, h - s, w), depth - 1, rng, out)
    else:
        s = int(rng.integers(1, w))
        _cut((t, left, h, s), depth - 1, rng, out)
        _cut((t, left + s, h, w - s), depth - 1, rng, out)


def _merge(a, b):
    """The union of a and b when it is a rectangle, else None."""
    ta, la, ha, wa = a
    tb, lb, hb, wb = b
    if ta == tb and ha == hb and (la + wa == lb or lb + wb == la):
        return (ta, min(la, lb), ha, wa + wb)
    if la == lb and wa == wb and (ta + ha == tb or tb + hb == ta):
        return (min(ta, tb), la, ha + hb, wa)
    return None


def generate(
    height: int,
    width: int,
    rng: np.random.Generator,
    depth: int | None = None,
    merge_iters: int = 1,
    merge_prob: float = 0.5,
    max_area: int | None = None,
) -> tuple[Shikaku, list]:
    """One instance and the rectangles it was built from (a solution).

    `max_area` (optional) refuses merges above that area. OptionError for a size outside
    1x1..MAX_CELLS cells.
    """
    check_size(width, height)
    if depth is None:
        depth = default_depth(height, width)
    rects: list = []
    _cut((0, 0, height, width), depth, rng, rects)
    for _ in range(merge_iters):
        order = rng.permutation(len(rects))
        rects = [rects[i] for i in order]
        merged = True
        i = 0
        while i < len(rects):
            merged = False
            for j in range(i + 1, len(rects)):
                u = _merge(rects[i], rects[j])
                if u is None or (max_area is not None and u[2] * u[3] > max_area):
                    continue
                if rng.random() < merge_prob:
                    rects[i] = u
                    del rects[j]
                    merged = True
                break
            if not merged:
                i += 1
    grid = np.zeros((height, width), dtype=np.int32)
    for t, left, h, w in rects:
        r = t + int(rng.integers(h))
        c = left + int(rng.integers(w))
        grid[r, c] = h * w
    p = Shikaku(height, width, grid)
    order = sorted(range(len(rects)), key=lambda i: _clue_cell(grid, rects[i]))
    return p, [list(rects[i]) for i in order]


def check_size(width: int, height: int) -> None:
    """OptionError unless a width x height grid is one this generator makes."""
    if height < 1 or width < 1:
        raise OptionError(f"size {width}x{height}: must be at least 1x1")
    if width * height > MAX_CELLS:
        raise OptionError(f"size {width}x{height}: {width * height:,} cells; the Shikaku "
                          f"generator makes at most {MAX_CELLS:,} (100x100)")  # fmt: skip


def _clue_cell(grid, rect):
    t, left, h, w = rect
    sub = grid[t : t + h, left : left + w]
    r, c = np.argwhere(sub)[0]
    return (t + r, left + c)
