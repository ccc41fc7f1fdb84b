"""Hashiwokakero instances (seed 004, section 2.4).

Glossary:
    n         number of islands drawn at first (the seed's parameter); the result has more
              (one per crossing) or fewer (outside the largest connected group)
    pair      two islands facing each other with only water between (a candidate edge)
    crossing  a cell where a horizontal and a vertical pair pass

Steps: draw n island cells, no two side by side; take every pair; put a new island on each
crossing cell (when that cell touches an island side by side, one of the two pairs is dropped
at random instead); give each remaining pair 1..maxb bridges at random (`edge_prob` < 1 leaves
some pairs empty); island values are the bridge counts; islands outside the largest connected
group are removed. The drawn bridges are one solution. A draw whose largest group is one island
is drawn again, at most MAX_DRAWS times. Grids are at most MAX_CELLS cells: the crossing pass
redraws every pair after each crossing, and its time grows with about the fifth power of the side
(a 50x50 grid takes seconds, 100x100 minutes).
"""

from __future__ import annotations

import numpy as np

from cpu_reference.errors import InputError, OptionError
from cpu_reference.hashi.puzzle import Hashi

MAX_CELLS = 2_500  # 50x50
MAX_DRAWS = 100  # draws of one instance before the generator gives up


def _pairs(occ, dropped):
    h, w = occ.shape
    pairs = []
    for r in range(h):
        cols = np.nonzero(occ[r])[0]
        for a, b in zip(cols[:-1], cols[1:], strict=True):
            if ((r, a), (r, b)) not in dropped:
                pairs.append(((r, int(a)), (r, int(b))))
    for c in range(w):
        rows = np.nonzero(occ[:, c])[0]
        for a, b in zip(rows[:-1], rows[1:], strict=True):
            if ((a, c), (b, c)) not in dropped:
                pairs.append(((int(a), c), (int(b), c)))
    return pairs


def _touches(occ, r, c):
    h, w = occ.shape
    for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
        rr, cc = r + dr, c + dc
        if 0 <= rr < h and 0 <= cc < w and occ[rr, cc]:
            return True
    return False


def generate(
    height: int,
    width: int,
    rng: np.random.Generator,
    n: int | None = None,
    maxb: int = 2,
    edge_prob: float = 1.0,
) -> tuple[Hashi, list]:
    """One instance and its drawn solution (bridges [r1, c1, r2, c2, count]); OptionError for a
    size outside 2x2..MAX_CELLS cells or one where no two islands can face each other (every
    row and column shorter than 3 cells)."""
    check_size(width, height)
    if n is None:
        n = max(2, (height * width) // 6)
    for _ in range(MAX_DRAWS):
        drawn = _draw(height, width, rng, n, maxb, edge_prob)
        if drawn is not None:
            return drawn
    raise InputError(f"size {width}x{height}: no instance with two connected islands in "
                     f"{MAX_DRAWS} draws; try a larger size")  # fmt: skip


def check_size(width: int, height: int) -> None:
    """OptionError unless a width x height grid can hold a Hashi this generator makes."""
    if height < 2 or width < 2:
        raise OptionError(f"size {width}x{height}: must be at least 2x2")
    if max(width, height) < 3:
        raise OptionError(f"size {width}x{height}: no two islands can face each other (a row "
                          "or column of 3 cells or more is needed)")  # fmt: skip
    if width * height > MAX_CELLS:
        raise OptionError(f"size {width}x{height}: {width * height:,} cells; the Hashi "
                          f"generator makes at most {MAX_CELLS:,} (50x50)")  # fmt: skip


def _draw(height, width, rng, n, maxb, edge_prob) -> tuple[Hashi, list] | None:
    """One draw of the steps above; None when its largest group is a single island."""
    occ = np.zeros((height, width), dtype=bool)
    cells = rng.permutation(height * width)
    placed = 0
    for cell in cells:
        r, c = divmod(int(cell), width)
        if not occ[r, c] and not _touches(occ, r, c):
            occ[r, c] = True
            placed += 1
            if placed == n:
                break
    dropped: set = set()
    while True:
        pairs = _pairs(occ, dropped)
        hmark = -np.ones((height, width), dtype=np.int64)
        for k, ((r1, c1), (r2, c2)) in enumerate(pairs):
            if r1 == r2:
                hmark[r1, c1 + 1 : c2] = k
        found = []
        for k, ((r1, c1), (r2, c2)) in enumerate(pairs):
            if c1 == c2:
                for r in range(r1 + 1, r2):
                    if hmark[r, c1] >= 0:
                        found.append((r, c1, int(hmark[r, c1]), k))
        if not found:
            break
        for i in rng.permutation(len(found)):
            r, c, hk, vk = found[i]
            if pairs[hk] in dropped or pairs[vk] in dropped:
                continue
            if not _touches(occ, r, c):
                occ[r, c] = True
            else:
                dropped.add(pairs[hk] if rng.random() < 0.5 else pairs[vk])
            break
    pairs = _pairs(occ, dropped)
    bridges = []
    for (r1, c1), (r2, c2) in pairs:
        if rng.random() < edge_prob:
            bridges.append([r1, c1, r2, c2, int(rng.integers(1, maxb + 1))])
    idx = {tuple(x): i for i, x in enumerate(np.argwhere(occ).tolist())}
    parent = list(range(len(idx)))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for r1, c1, r2, c2, _ in bridges:
        a, b = find(idx[(r1, c1)]), find(idx[(r2, c2)])
        if a != b:
            parent[a] = b
    roots = [find(i) for i in range(len(idx))]
    if not roots:
        raise InputError("generate: no island placed")
    best = max(set(roots), key=lambda x: (roots.count(x), -x))
    keep = {cell for cell, i in idx.items() if roots[i] == best}
    bridges = [b for b in bridges if (b[0], b[1]) in keep]
    grid = np.zeros((height, width), dtype=np.int32)
    for r1, c1, r2, c2, m in bridges:
        grid[r1, c1] += m
        grid[r2, c2] += m
    if len(keep) == 1:
        return None
    return Hashi(height, width, grid, maxb, True), bridges
