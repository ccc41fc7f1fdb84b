"""Hashiwokakero (Tatham's `bridges`): the puzzle, its formats, its edge graph and a verifier.

Glossary:
    H, W     grid height and width; r, c row and column (0-based); x = c, y = r in Tatham's moves
    I        number of islands; i indexes islands in reading order; v_i the island's value
    E        number of candidate edges: pairs of islands facing each other on a row or a column
             with only water between; e indexes them; a_e < b_e their islands
    m_e      multiplicity of edge e (number of bridges, 0..maxb)
    X        number of crossing pairs (a horizontal and a vertical edge through one cell)

Edge graph layout (flat arrays shared by the annealers and the ILP):

    ea, eb     int32[E]       the two islands of edge e (a above or left of b)
    horiz      int8[E]        1 when e lies on a row
    xstart     int32[E + 1]   CSR: the edges crossing e are xlist[xstart[e]:xstart[e + 1]]
    xlist      int32[2 X]
    istart     int32[I + 1]   CSR: the edges at island i are ilist[istart[i]:istart[i + 1]]
    ilist      int32[2 E]

Formats:
    game ID   `WxH[params]:desc`; params may hold `m<maxb>` (default 2), `L` (no loops) and other
              letters with numbers that are ignored; in desc a..z are runs of 1..26 water cells,
              1..9 and A..G are islands of value 1..16.
    grid      one row per line, `.` or `0` for water, 1..9 (or A..G) for islands.
    move      Tatham's solve move: `S`, then `;L<x1>,<y1>,<x2>,<y2>,<n>` per bridge.
    text      solution drawing: island values, `-` and `=` for single and double horizontal
              bridges, `|` and `"` for vertical ones, `.` for water.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from cpu_reference.errors import InputError
from cpu_reference.fields import shown, whole_number
from cpu_reference.runs import run_offsets
from cpu_reference.tatham import (
    check_params,
    desc_grid,
    grid_rows,
    parse_either,
    split_game_id,
)


@dataclass(frozen=True)
class Hashi:
    """A bridges instance: island values on the grid (0 = water), maximum bridges per pair."""

    height: int
    width: int
    grid: np.ndarray  # int32[H, W]
    maxb: int = 2
    allow_loops: bool = True

    @property
    def islands(self) -> np.ndarray:
        """int32[I, 3]: (row, col, value) per island in reading order."""
        rows, cols = np.nonzero(self.grid)
        return np.stack([rows, cols, self.grid[rows, cols]], axis=1).astype(np.int32)


@dataclass(frozen=True)
class EdgeGraph:
    """Candidate edges and crossings of a puzzle (see the module docstring)."""

    ea: np.ndarray
    eb: np.ndarray
    horiz: np.ndarray
    xstart: np.ndarray
    xlist: np.ndarray
    istart: np.ndarray
    ilist: np.ndarray
    values: np.ndarray
    crossings: np.ndarray  # int32[X, 2]


# what Tatham's bridges writes after WxH: islands %, expansion %, maximum bridges, difficulty,
# and L (no loops)
_PARAMS = re.compile(r"(?:[iemd][0-9]+|L)*")


def _value_of(ch: str) -> int:
    if "1" <= ch <= "9":
        return ord(ch) - ord("0")
    if "A" <= ch <= "G":
        return ord(ch) - ord("A") + 10
    return -1


def _validate(grid: np.ndarray, maxb: int, allow_loops: bool, where: str) -> Hashi:
    h, w = grid.shape
    isl = grid > 0
    side = (isl[:, 1:] & isl[:, :-1]).nonzero()
    if len(side[0]):
        r, c = int(side[0][0]), int(side[1][0])
        raise InputError(f"{where}: islands side by side at ({r}, {c}) and ({r}, {c + 1})")
    down = (isl[1:, :] & isl[:-1, :]).nonzero()
    if len(down[0]):
        r, c = int(down[0][0]), int(down[1][0])
        raise InputError(f"{where}: islands side by side at ({r}, {c}) and ({r + 1}, {c})")
    if not isl.any():
        raise InputError(f"{where}: no island")
    return Hashi(h, w, grid.astype(np.int32), maxb, allow_loops)


def parse_game_id(text: str, where: str = "game ID") -> Hashi:
    """Parse a Tatham `bridges` game ID."""
    w, h, rest, desc = split_game_id(text, where)
    check_params(rest, _PARAMS, "i, e, m and d each with a number, L", where)
    maxb = 2
    mb = re.search(r"m(\d+)", rest)
    if mb:
        maxb = whole_number(mb.group(1), 4)
        if not maxb:  # None: a number of more digits than 4 has
            given = shown(mb.group(1), quote=False)
            raise InputError(f"{where}: maximum bridges m{given} outside 1..4")
    allow_loops = "L" not in rest
    cells: list[int] = []
    for i, ch in enumerate(desc.strip()):
        if "a" <= ch <= "z":
            cells.extend([0] * (ord(ch) - ord("a") + 1))
        elif _value_of(ch) > 0:
            cells.append(_value_of(ch))
        else:
            raise InputError(f"{where}: unknown character {ch!r} at description offset {i}")
        if len(cells) > w * h:
            raise InputError(f"{where}: description has more than {w * h} cells")
    return _validate(desc_grid(cells, w, h, where), maxb, allow_loops, where)


def _grid_cell(t: str) -> int | None:
    if t in (".", "0"):
        return 0
    value = whole_number(t, 16)
    if value:
        return value
    if len(t) == 1 and _value_of(t) > 0:
        return _value_of(t)
    return None


def parse_grid(text: str, where: str = "grid", maxb: int = 2) -> Hashi:
    """Parse a plain text grid of island values and dots (spaces between cells allowed)."""
    rows, first = grid_rows(text, where, _grid_cell, spaced_per_line=True)
    return _validate(np.array(rows), maxb, True, f"{where} line {first}")


def parse(text: str, where: str = "input") -> Hashi:
    """Parse a game ID (first line holds ':') or a plain text grid."""
    return parse_either(text, where, parse_game_id, parse_grid)


def to_game_id(p: Hashi) -> str:
    """The Tatham `bridges` game ID (`WxHm<maxb>:desc`)."""
    out = []
    run = 0
    for v in p.grid.ravel():
        if v == 0:
            run += 1
            if run == 26:
                out.append("z")
                run = 0
            continue
        if run:
            out.append(chr(ord("a") + run - 1))
            run = 0
        out.append(str(int(v)) if v < 10 else chr(ord("A") + int(v) - 10))
    if run:
        out.append(chr(ord("a") + run - 1))
    loops = "" if p.allow_loops else "L"
    return f"{p.width}x{p.height}m{p.maxb}{loops}:" + "".join(out)


def to_grid_text(p: Hashi) -> str:
    """Plain text grid of the puzzle."""
    chars = {0: "."}
    return "\n".join(
        "".join(chars.get(int(v), str(int(v)) if v < 10 else chr(55 + int(v))) for v in row)
        for row in p.grid
    )


def edge_graph(p: Hashi) -> EdgeGraph:
    """Candidate edges (nearest facing islands), their crossings and per-island incidence.

    Edges are listed island by island in reading order, each island's edge to its right before
    its edge downwards; crossings by (horizontal edge, vertical edge); each CSR list ascending.
    Every step is an array operation over the islands, edges or the cells edges pass over, so
    that a grid of a million cells takes well under a second.
    """
    isl = p.islands.astype(np.int64)
    n_i = len(isl)
    rows, cols = isl[:, 0], isl[:, 1]
    # the next island on the same row (reading order) and the same column, -1 where none
    right = np.full(n_i, -1, np.int64)
    same_row = rows[1:] == rows[:-1]
    right[:-1][same_row] = np.arange(1, n_i)[same_row]
    by_column = np.lexsort((rows, cols))
    down = np.full(n_i, -1, np.int64)
    same_col = cols[by_column[1:]] == cols[by_column[:-1]]
    down[by_column[:-1][same_col]] = by_column[1:][same_col]
    pairs = np.stack([right, down], axis=1).ravel()  # island i: its right, then its down
    kept = pairs >= 0
    ea = np.repeat(np.arange(n_i), 2)[kept].astype(np.int32)
    eb = pairs[kept].astype(np.int32)
    horiz = np.tile(np.array([1, 0], np.int8), n_i)[kept]
    n_e = len(ea)
    crossings = _crossings(p, isl, ea, eb, horiz)
    xstart, xlist = _csr(n_e, np.concatenate([crossings[:, 0], crossings[:, 1]]),
                         np.concatenate([crossings[:, 1], crossings[:, 0]]))  # fmt: skip
    edges = np.arange(n_e, dtype=np.int32)
    istart, ilist = _csr(n_i, np.concatenate([ea, eb]), np.concatenate([edges, edges]))
    return EdgeGraph(ea, eb, horiz, xstart, xlist, istart, ilist, isl[:, 2].astype(p.islands.dtype),
                     crossings)  # fmt: skip


def _crossings(p: Hashi, isl, ea, eb, horiz) -> np.ndarray:
    """int32[X, 2]: (horizontal edge, vertical edge) pairs through one cell, sorted. Each water
    cell lies on at most one horizontal and one vertical edge: the edges paint the cells between
    their islands, and a cell both paint is a crossing."""
    painted = []
    for lying, along in ((1, 1), (0, 0)):  # horizontal edges run along columns (axis 1)
        edge = np.nonzero(horiz == lying)[0]
        first, last = isl[ea[edge], along] + 1, isl[eb[edge], along] - 1
        owner, offset = run_offsets(np.maximum(last - first + 1, 0))  # the cells between
        fixed = isl[ea[edge], 1 - along][owner]
        moving = first[owner] + offset
        cells = fixed * p.width + moving if along == 1 else moving * p.width + fixed
        at = np.full(p.height * p.width, -1, np.int64)
        at[cells] = edge[owner]
        painted.append(at)
    both = (painted[0] >= 0) & (painted[1] >= 0)
    e, f = painted[0][both], painted[1][both]
    order = np.lexsort((f, e))
    return np.stack([e[order], f[order]], axis=1).astype(np.int32).reshape(-1, 2)


def _csr(count: int, owner: np.ndarray, item: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(start int32[count + 1], items int32[]): the items of each owner 0..count-1, ascending."""
    order = np.lexsort((item, owner))
    start = np.zeros(count + 1, np.int64)
    np.cumsum(np.bincount(owner, minlength=count), out=start[1:])
    return start.astype(np.int32), item[order].astype(np.int32)


def components(n_islands: int, pairs) -> int:
    """Number of connected components of the islands joined by `pairs` (union-find)."""
    return len(set(component_labels(n_islands, pairs).tolist()))


def component_labels(n_islands: int, pairs) -> np.ndarray:
    """int64[I]: a component label per island (islands joined by `pairs` share one)."""
    parent = list(range(n_islands))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
    return np.array([find(i) for i in range(n_islands)])


def bridges_from_mult(p: Hashi, g: EdgeGraph, mult) -> list[list[int]]:
    """JSON bridges [r1, c1, r2, c2, count] for the edges with nonzero multiplicity."""
    isl = p.islands
    out = []
    for e, m in enumerate(np.asarray(mult)):
        if m > 0:
            a, b = isl[g.ea[e]], isl[g.eb[e]]
            out.append([int(a[0]), int(a[1]), int(b[0]), int(b[1]), int(m)])
    return out


def verify(p: Hashi, bridges) -> tuple[bool, str]:
    """Check every rule: aligned island pairs with water between, 1..maxb bridges per pair, no
    crossing, each island's bridge count equal to its value, all islands connected (and no loop
    when the puzzle forbids loops). `bridges` is a list of [r1, c1, r2, c2, count]."""
    h, w = p.height, p.width
    isl = p.islands
    index = -np.ones((h, w), dtype=np.int64)
    index[isl[:, 0], isl[:, 1]] = np.arange(len(isl))
    used = np.zeros((h, w), dtype=np.int8)  # 1 horizontal bridge, 2 vertical
    degree = np.zeros(len(isl), dtype=np.int64)
    seen = set()
    pairs = []
    for n, br in enumerate(bridges):
        r1, c1, r2, c2, m = (int(x) for x in br)
        for r, c in ((r1, c1), (r2, c2)):
            if not (0 <= r < h and 0 <= c < w) or index[r, c] < 0:
                return False, f"bridge {n}: end ({r}, {c}) is not an island"
        if (r1, c1) > (r2, c2):
            r1, c1, r2, c2 = r2, c2, r1, c1
        if not 1 <= m <= p.maxb:
            return False, f"bridge {n}: count {m} outside 1..{p.maxb}"
        if (r1 != r2) == (c1 != c2):
            return False, f"bridge {n}: ends not aligned or equal"
        key = (r1, c1, r2, c2)
        if key in seen:
            return False, f"bridge {n}: pair listed twice"
        seen.add(key)
        kind = 1 if r1 == r2 else 2
        cells = [(r1, c) for c in range(c1 + 1, c2)] if kind == 1 else []
        cells += [(r, c1) for r in range(r1 + 1, r2)] if kind == 2 else []
        for r, c in cells:
            if index[r, c] >= 0:
                return False, f"bridge {n}: passes over the island at ({r}, {c})"
            if used[r, c]:
                return False, f"bridge {n}: crosses another bridge at ({r}, {c})"
            used[r, c] = kind
        a, b = int(index[r1, c1]), int(index[r2, c2])
        degree[a] += m
        degree[b] += m
        pairs.append((a, b))
    bad = np.nonzero(degree != isl[:, 2])[0]
    if len(bad):
        i = bad[0]
        return False, f"island ({isl[i, 0]}, {isl[i, 1]}): {degree[i]} bridges, value {isl[i, 2]}"
    ncomp = components(len(isl), pairs)
    if ncomp != 1:
        return False, f"islands form {ncomp} separate groups"
    if not p.allow_loops and len(pairs) != len(isl) - 1:
        return False, "the bridges form a loop, which this puzzle forbids"
    return True, "ok"


def solution_text(p: Hashi, bridges) -> str:
    """Text drawing of a solution (see the module docstring)."""
    rows = [list(r) for r in to_grid_text(p).splitlines()]
    for r1, c1, r2, c2, m in bridges:
        if r1 == r2:
            for c in range(min(c1, c2) + 1, max(c1, c2)):
                rows[r1][c] = "-" if m == 1 else "="
        else:
            for r in range(min(r1, r2) + 1, max(r1, r2)):
                rows[r][c1] = "|" if m == 1 else '"'
    return "\n".join("".join(r) for r in rows)


def solve_move(bridges) -> str:
    """Tatham's `bridges` solve move: `S;L<x1>,<y1>,<x2>,<y2>,<n>` per bridge (x = column)."""
    parts = ["S"]
    for r1, c1, r2, c2, m in bridges:
        parts.append(f"L{c1},{r1},{c2},{r2},{m}")
    return ";".join(parts)
