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
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from cpu_reference.errors import InputError
from cpu_reference.fields import shown, whole_number
from cpu_reference.runs import run_offsets
from cpu_reference.tatham import (
    blank_runs,
    check_params,
    desc_grid,
    grid_rows,
    parse_either,
    run_chars,
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


# the character of a cell value 0..16 in a grid text: water, then the islands 1..9, A..G
_CELL_CHARS = np.frombuffer(b".123456789ABCDEFG", np.uint8)


def to_game_id(p: Hashi) -> str:
    """The Tatham `bridges` game ID (`WxHm<maxb>:desc`)."""
    values = p.grid.ravel()
    at, full, rest = blank_runs(values)
    widths = np.append(np.ones(at.size, np.int64), 0)  # an island is one character
    chars, text_at = run_chars(full, rest, widths)
    chars[text_at[:-1]] = _CELL_CHARS[values[at]]
    loops = "" if p.allow_loops else "L"
    return f"{p.width}x{p.height}m{p.maxb}{loops}:" + chars.tobytes().decode("ascii")


def _text_bytes(rows: np.ndarray) -> str:
    """The text of a uint8[H, W] array of characters, a line a row."""
    lines = np.column_stack([rows, np.full(len(rows), ord("\n"), np.uint8)])
    return lines.tobytes()[:-1].decode("ascii")


def to_grid_text(p: Hashi) -> str:
    """Plain text grid of the puzzle."""
    return _text_bytes(_CELL_CHARS[p.grid])


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
    """Number of connected components of the islands joined by `pairs` (rows of two islands:
    an int array or a list of pairs)."""
    return int(len(np.unique(component_labels(n_islands, pairs))))


def component_labels(n_islands: int, pairs) -> np.ndarray:
    """int64[I]: a component label per island (islands joined by `pairs`, as components',
    share one)."""
    ends = np.asarray(pairs, np.int64).reshape(-1, 2)
    joined = coo_matrix((np.ones(len(ends), np.int8), (ends[:, 0], ends[:, 1])),
                        shape=(n_islands, n_islands))  # fmt: skip
    return connected_components(joined, directed=False)[1].astype(np.int64)


def bridges_from_mult(p: Hashi, g: EdgeGraph, mult) -> list[list[int]]:
    """JSON bridges [r1, c1, r2, c2, count] for the edges with nonzero multiplicity."""
    isl = p.islands.astype(np.int64)
    mult = np.asarray(mult, np.int64)
    used = np.flatnonzero(mult > 0)
    a, b = isl[g.ea[used]], isl[g.eb[used]]
    return np.column_stack([a[:, :2], b[:, :2], mult[used]]).tolist()


# a bound on the numbers of a bridge row taken as int64: beyond any grid and any count, so a
# number past it fails every check as it would unbounded
ROW_BOUND = 2**40


def bridge_rows(bridges) -> np.ndarray:
    """int64[K, 5]: bridges [r1, c1, r2, c2, count] as rows (K may be 0), each number held
    within -ROW_BOUND..ROW_BOUND."""
    try:
        rows = np.asarray(bridges, np.int64)
    except OverflowError:  # a number past int64: held at the bound, as every larger one
        rows = np.array([[max(-ROW_BOUND, min(int(x), ROW_BOUND)) for x in row]
                         for row in bridges], np.int64)  # fmt: skip
    return np.clip(rows, -ROW_BOUND, ROW_BOUND).reshape(-1, 5)


def island_index(p: Hashi) -> np.ndarray:
    """int64[H * W]: the island at each cell r * W + c (i, in reading order), -1 on water."""
    isl = p.islands.astype(np.int64)
    index = np.full(p.height * p.width, -1, np.int64)
    index[isl[:, 0] * p.width + isl[:, 1]] = np.arange(len(isl))
    return index


def end_islands(p: Hashi, index: np.ndarray, rows: np.ndarray) -> list[np.ndarray]:
    """[a, b], int64[K] each: the island (island_index) at each row's first and second end, -1
    where that end is on water or outside the grid."""
    found = []
    for r, c in (rows[:, 0:2].T, rows[:, 2:4].T):
        inside = (r >= 0) & (r < p.height) & (c >= 0) & (c < p.width)
        found.append(np.where(inside, index[np.where(inside, r * p.width + c, 0)], -1))
    return found


def ordered_ends(rows: np.ndarray) -> np.ndarray:
    """int64[K, 4]: each row's ends as r1, c1, r2, c2 with r1 <= r2 and c1 <= c2 (for an
    aligned bridge: its first end above or left of the second)."""
    return np.column_stack([np.minimum(rows[:, 0:2], rows[:, 2:4]),
                            np.maximum(rows[:, 0:2], rows[:, 2:4])])  # fmt: skip


def bridge_lengths(rows: np.ndarray) -> np.ndarray:
    """int64[K]: the cells strictly between the ends of every bridge of `rows` (aligned, ends
    ordered: ordered_ends)."""
    across = rows[:, 0] == rows[:, 2]
    return np.maximum(np.where(across, rows[:, 3] - rows[:, 1], rows[:, 2] - rows[:, 0]) - 1, 0)


def bridge_cells(width: int, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(owner, cell), int64 each: the cells strictly between the ends of every bridge of `rows`
    (aligned, ends ordered: ordered_ends), bridge by bridge, each bridge's cells in order from
    its first end; cell = r * width + c."""
    owner, offset = run_offsets(bridge_lengths(rows))
    step = np.where(rows[:, 0] == rows[:, 2], 1, width)[owner]
    return owner, rows[owner, 0] * width + rows[owner, 1] + (offset + 1) * step


def _first_of(owner: np.ndarray, bad: np.ndarray, count: int) -> np.ndarray:
    """int64[count]: for each owner (`owner` ascending) the position of its first bad entry,
    -1 where it has none."""
    first = np.full(count, -1, np.int64)
    at = np.flatnonzero(bad)
    owners, place = np.unique(owner[at], return_index=True)
    first[owners] = at[place]
    return first


def _first_cell_fault(width: int, rows: np.ndarray, index: np.ndarray):
    """(bridge, cell, over) of the first bridge of `rows` (aligned, ends islands and ordered:
    ordered_ends) whose walk from its first end meets an island (over True) or a cell an
    earlier bridge passed (over False), at the first such cell; None when none does. The
    bridges are walked in pieces of at most as many cells as the grid holds past the last
    bridge, so a fault early in a long list costs no more than the cells before it: the cells
    of the bridges before the first fault never repeat, so they are at most the grid's."""
    ends = np.cumsum(bridge_lengths(rows))
    used = np.zeros(index.size, bool)
    start, walked = 0, 0
    while start < len(rows):
        stop = max(int(np.searchsorted(ends, walked + index.size, "right")), start + 1)
        owner, cells = bridge_cells(width, rows[start:stop])
        by_cell = np.lexsort((owner, cells))  # owner ascends with the bridge's place
        later = used[cells]
        later[by_cell[1:]] |= cells[by_cell[1:]] == cells[by_cell[:-1]]
        over = index[cells] >= 0
        first = _first_of(owner, over | later, stop - start)
        hit = np.flatnonzero(first >= 0)
        if hit.size:
            j = first[hit[0]]
            return start + int(hit[0]), int(cells[j]), bool(over[j])
        used[cells] = True
        walked = int(ends[stop - 1])
        start = stop
    return None


def verify(p: Hashi, bridges) -> tuple[bool, str]:
    """Check every rule: aligned island pairs with water between, 1..maxb bridges per pair, no
    crossing, each island's bridge count equal to its value, all islands connected (and no loop
    when the puzzle forbids loops). `bridges` is a list of [r1, c1, r2, c2, count]. A faulty
    bridge is named by its place in the list: the first faulty one, by its first fault (ends,
    count, alignment, a pair listed twice, then its cells from its first end: an island, or a
    cell an earlier bridge crosses)."""
    isl = p.islands.astype(np.int64)
    index = island_index(p)
    rows = bridge_rows(bridges)
    k = len(rows)
    a, b = end_islands(p, index, rows)
    ordered = ordered_ends(rows)
    m = rows[:, 4]
    bad_count = (m < 1) | (m > p.maxb)
    bad_line = (ordered[:, 0] != ordered[:, 2]) == (ordered[:, 1] != ordered[:, 3])
    ends_ok = (a >= 0) & (b >= 0)
    key = np.where(ends_ok, np.minimum(a, b) * len(isl) + np.maximum(a, b), -1)
    first_seen = np.unique(key, return_index=True)[1]
    repeated = np.ones(k, bool)
    repeated[first_seen] = False
    repeated &= ends_ok
    early = ~ends_ok | bad_count | bad_line | repeated
    first_early = int(np.argmax(early)) if early.any() else k
    cell_fault = _first_cell_fault(p.width, ordered[:first_early], index)
    if cell_fault is not None:  # a bridge before any other fault meets an island or a bridge
        n, cell, over = cell_fault
        r, c = divmod(cell, p.width)
        if over:
            return False, f"bridge {n}: passes over the island at ({r}, {c})"
        return False, f"bridge {n}: crosses another bridge at ({r}, {c})"
    if first_early < k:
        n = first_early
        given = [int(x) for x in list(bridges)[n]]  # its numbers as given, however large
        for e, end in enumerate((a, b)):
            if end[n] < 0:
                where = f"({given[2 * e]}, {given[2 * e + 1]})"
                return False, f"bridge {n}: end {where} is not an island"
        if bad_count[n]:
            return False, f"bridge {n}: count {given[4]} outside 1..{p.maxb}"
        if bad_line[n]:
            return False, f"bridge {n}: ends not aligned or equal"
        return False, f"bridge {n}: pair listed twice"
    degree = np.bincount(a, m, len(isl)) + np.bincount(b, m, len(isl))
    bad = np.flatnonzero(degree != isl[:, 2])
    if len(bad):
        i = bad[0]
        return False, (f"island ({isl[i, 0]}, {isl[i, 1]}): {int(degree[i])} bridges, value "
                       f"{isl[i, 2]}")  # fmt: skip
    ncomp = components(len(isl), np.column_stack([a, b]))
    if ncomp != 1:
        return False, f"islands form {ncomp} separate groups"
    if not p.allow_loops and k != len(isl) - 1:
        return False, "the bridges form a loop, which this puzzle forbids"
    return True, "ok"


def solution_text(p: Hashi, bridges) -> str:
    """Text drawing of a solution (see the module docstring); a bridge with r1 == r2 is drawn
    along its row, any other along column c1, a later bridge over an earlier one."""
    drawn = _CELL_CHARS[p.grid].ravel()
    rows = bridge_rows(bridges)
    r1, c1, r2, c2, m = rows.T
    across = r1 == r2
    lo = np.where(across, np.minimum(c1, c2), np.minimum(r1, r2))
    hi = np.where(across, np.maximum(c1, c2), np.maximum(r1, r2))
    owner, offset = run_offsets(np.maximum(hi - lo - 1, 0))
    along = lo[owner] + 1 + offset
    cells = np.where(across[owner], r1[owner] * p.width + along, along * p.width + c1[owner])
    marks = np.where(across, np.where(m == 1, ord("-"), ord("=")),
                     np.where(m == 1, ord("|"), ord('"')))  # fmt: skip
    last = len(cells) - 1 - np.unique(cells[::-1], return_index=True)[1]  # later ones win
    drawn[cells[last]] = marks[owner[last]]
    return _text_bytes(drawn.reshape(p.height, p.width))


def solve_move(bridges) -> str:
    """Tatham's `bridges` solve move: `S;L<x1>,<y1>,<x2>,<y2>,<n>` per bridge (x = column)."""
    parts = ["S"]
    for r1, c1, r2, c2, m in bridges:
        parts.append(f"L{c1},{r1},{c2},{r2},{m}")
    return ";".join(parts)
