"""Exact Sudoku solver, any order n = 2..8: candidate bitmasks, three deduction rules, backtracking.

Glossary of index names (as in ``sudoku_layout``):
    n       order: box side (2..8)
    N       side of the grid and number of digits, N = n * n
    cells   number of cells, N * N
    c, p    cell index (row-major); p is a peer of c
    u       unit index: rows 0..N-1, columns N..2N-1, boxes 2N..3N-1
    d       digit, 1..N; 0 means blank
    m, v    candidate masks; v has a single bit (a placed value)
    depth   level in the search stack; stack[depth] is the grid state at that level

Candidates: one mask per cell, bit d-1 set when digit d is still allowed there. N <= 64, so a mask
fits in a signed 64-bit word (int64, so that x & -x and subtraction stay integral); at 64x64
digit 64 is bit 63, the sign bit, which the bit operations (popcount, lowest bit, x & (x - 1))
treat as any other bit, and the full mask is (2 << (N - 1)) - 1, -1 at N = 64.

    mask:  bit 63 ... bit N  bit N-1 ...... bit 1  bit 0
           0     ... 0      digit N ...... digit 2  digit 1

    9x9 cell that may hold 1, 4 or 9:  0b1_0000_1001 = 0x109

    64x64 cell that may hold 1 or 64:  bit 63 (the sign) | bit 0 = -2**63 + 1

Rules, applied until nothing changes (``propagate``):
    Exclusivity  a cell whose mask has one bit v removes v from all its peers (naked single).
    Uniqueness   a digit allowed in only one cell of a unit is placed there (hidden single).
    Parity       two cells of a unit with the same two-bit mask {a, b} remove a and b from the
                 other cells of that unit (naked pair).
An empty mask, or a unit in which some digit has no cell left, is a contradiction. When every mask
has one bit the grid is solved. Otherwise the search branches on a cell with the fewest
candidates, breaking ties by the most open peers that share a candidate with it. It tries each
value on a copy of the state one level deeper (explicit stack ``stack[depth, cells]``), so
returning from a branch restores the state for free. After a branch, rules 2 and 3 look only at
units that hold a changed cell. Rule 3 looks only where a cell has just become two-valued.
9x9 grids searched in ascending value order take a specialised path (``_search9``): the same
rules and branching, constant tables, int32 masks and unit sets in place of to-do lists.
``solve_restarts`` reruns the search with random value order and a growing node budget, for big
grids where one fixed order can run into a very long search.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numba as nb
import numpy as np

from cpu_reference.errors import InputError
from cpu_reference.sudoku import exact_bands9 as bands9
from cpu_reference.sudoku import exact_large as large
from cpu_reference.sudoku.exact_bits import ctz as _ctz
from cpu_reference.sudoku.exact_bits import popcount as _popcount
from cpu_reference.sudoku.exact_rules import RULES
from cpu_reference.sudoku.layout import MAX_ORDER, MIN_ORDER, layout

CONTRADICTION = -1
OPEN = 0
SOLVED = 1
QUICK_ORDER = 3  # searches up to this order end within seconds (9x9: the band solver, no stop)
RESTART_BASE = 300  # first node budget of the restarted runs on grids other than 9x9


class Tables(NamedTuple):
    """The index tables of an order (``layout``), uint16: the unit's cells ``units[u, i]``
    (i < N), the cell's units ``cell_units[c, j]`` (row, column, box), its peers
    ``peer_list[c, i]`` (i < P). N and P are their widths."""

    units: np.ndarray
    cell_units: np.ndarray
    peer_list: np.ndarray


class Todo(NamedTuple):
    """The propagation's to-do lists: ``queue`` (uint16[cells]: new singles to remove from their
    peers), ``hs_list`` and ``np_list`` (uint16[3N]: units to look at for hidden singles and for
    naked pairs), each unit flagged in ``flags`` (uint8[3N]: bit 0 on hs_list, bit 1 on np_list)
    while listed. Their lengths travel beside them (qlen, hlen, nlen)."""

    queue: np.ndarray
    flags: np.ndarray
    hs_list: np.ndarray
    np_list: np.ndarray


class Workspace(NamedTuple):
    """Scratch of one search (``workspace``): the ``stack`` of grid states, candidate masks
    ``stack[depth, c]`` (int64), the 9x9 path's ``stack9`` (int32[83, 81]; 1x1 elsewhere, or to
    keep a 9x9 search on the general path), the cell branched on at each depth
    ``choice[depth]`` and the values left to try there ``left[depth]``, and the to-do lists."""

    stack: np.ndarray
    stack9: np.ndarray
    choice: np.ndarray
    left: np.ndarray
    todo: Todo


@nb.njit(cache=True, inline="always")
def _digit(v):
    return _ctz(v) + 1


@nb.njit(cache=True, inline="always")
def _mark(c, m, cell_units, todo, hlen, nlen):
    """Cell c now has mask m: put its units on the to-do lists that m concerns; returns the
    lists' new lengths (hlen, nlen).

    Any change may create a hidden single (hs_list, flag bit 0); only a new two-candidate mask
    may create a naked pair (np_list, flag bit 1).
    """
    flags, hs_list, np_list = todo.flags, todo.hs_list, todo.np_list
    r = m & (m - 1)
    want = 3 if r != 0 and r & (r - 1) == 0 else 1
    for j in range(3):
        u = cell_units[c, j]
        f = flags[u]
        miss = want & ~f
        if miss:
            if miss & 1:
                hs_list[hlen] = u
                hlen += 1
            if miss & 2:
                np_list[nlen] = u
                nlen += 1
            flags[u] = f | want
    return hlen, nlen


@nb.njit(cache=True)
def _propagate(masks, tables, pairs, todo, qlen, hlen, nlen):
    """Rules 1-3 to a fixed point on the grid ``masks``, looking only at the units on the to-do
    lists (``pairs``: with the naked-pair rule).

    ``todo.queue[:qlen]``: cells that became single-valued and whose value has not yet left
    their peers. ``todo.hs_list[:hlen]`` and ``todo.np_list[:nlen]``: units to check for hidden
    singles and naked pairs, flagged in ``todo.flags`` (all zero again on return). Returns
    CONTRADICTION or OPEN; whether the grid is solved is left to the caller.
    """
    units, cell_units, peer_list = tables
    queue, flags, hs_list, np_list = todo
    N = units.shape[1]
    P = peer_list.shape[1]
    full = (np.int64(2) << (N - 1)) - 1  # N bits; all 64 (-1) at N = 64
    status = OPEN
    while True:
        # Exclusivity: drain the queue of new singles.
        while qlen > 0:
            qlen -= 1
            c = queue[qlen]
            v = masks[c]
            for i in range(P):
                p = peer_list[c, i]
                m = masks[p]
                if m & v:
                    m ^= v
                    masks[p] = m
                    if m == 0:
                        status = CONTRADICTION
                        break
                    if m & (m - 1) == 0:
                        queue[qlen] = p
                        qlen += 1
                    hlen, nlen = _mark(p, m, cell_units, todo, hlen, nlen)
            if status == CONTRADICTION:
                break
        if status == CONTRADICTION:
            break
        if hlen > 0:
            # Uniqueness: digits seen exactly once in the unit.
            hlen -= 1
            u = hs_list[hlen]
            flags[u] &= 2
            once = np.int64(0)
            twice = np.int64(0)
            for i in range(N):
                m = masks[units[u, i]]
                twice |= once & m
                once |= m
            if once != full:
                status = CONTRADICTION
                break
            singles = once & ~twice
            while singles:
                v = singles & -singles
                singles ^= v
                found = -1
                for i in range(N):
                    c = units[u, i]
                    if masks[c] & v:
                        found = c
                        break
                if found < 0:
                    status = CONTRADICTION
                    break
                if masks[found] != v:
                    masks[found] = v
                    queue[qlen] = found
                    qlen += 1
                    hlen, nlen = _mark(found, v, cell_units, todo, hlen, nlen)
            if status == CONTRADICTION:
                break
            continue
        if nlen == 0:
            break
        # Parity: naked pairs in the unit.
        nlen -= 1
        u = np_list[nlen]
        flags[u] &= 1
        if not pairs:
            continue
        for i in range(N - 1):
            mi = masks[units[u, i]]
            if _popcount(mi) != 2:
                continue
            for j in range(i + 1, N):
                if masks[units[u, j]] != mi:
                    continue
                for k in range(N):
                    if k == i or k == j:
                        continue
                    c = units[u, k]
                    m = masks[c]
                    if m & mi:
                        m &= ~mi
                        masks[c] = m
                        if m == 0:
                            status = CONTRADICTION
                            break
                        if m & (m - 1) == 0:
                            queue[qlen] = c
                            qlen += 1
                        hlen, nlen = _mark(c, m, cell_units, todo, hlen, nlen)
                break
            if status == CONTRADICTION:
                break
        if status == CONTRADICTION:
            break
    for i in range(hlen):
        flags[hs_list[i]] = 0
    for i in range(nlen):
        flags[np_list[i]] = 0
    return status


@nb.njit(cache=True)
def _propagate_fresh(masks, tables, pairs):
    """Rules 1-3 on a whole grid: every single-valued cell queued, every unit on the lists."""
    n_units = tables.units.shape[0]
    ncells = masks.shape[0]
    queue = np.empty(ncells, dtype=np.uint16)
    qlen = 0
    for c in range(ncells):
        m = masks[c]
        if m == 0:
            return CONTRADICTION
        if m & (m - 1) == 0:
            queue[qlen] = c
            qlen += 1
    hs_list = np.arange(n_units - 1, -1, -1).astype(np.uint16)
    todo = Todo(queue, np.full(n_units, 3, dtype=np.uint8), hs_list, hs_list.copy())
    status = _propagate(masks, tables, pairs, todo, np.int64(qlen), n_units, n_units)
    if status == CONTRADICTION:
        return status
    for c in range(ncells):
        m = masks[c]
        if m & (m - 1):
            return OPEN
    return SOLVED


def propagate(masks: np.ndarray, order: int, pairs: bool = True) -> int:
    """Apply the rules to candidate masks (int64[N*N], changed in place) until a fixed point.

    Returns CONTRADICTION (-1), OPEN (0: some cell keeps two or more candidates) or SOLVED (1).
    ``pairs=False`` leaves out the naked-pair rule.
    """
    lay, grid_tables = _tables(order)
    if masks.dtype != np.int64 or masks.shape != (lay.cells,):
        raise InputError(f"masks: need int64[{lay.cells}], got {masks.dtype}{list(masks.shape)}")
    return int(_propagate_fresh(masks, grid_tables, bool(pairs)))


@nb.njit(cache=True, nogil=True)
def _propagate_rows(masks, tables, pairs, status):
    for j in range(masks.shape[0]):
        status[j] = _propagate_fresh(masks[j], tables, pairs)


def propagate_many(masks: np.ndarray, order: int, pairs: bool = True) -> np.ndarray:
    """propagate() on every row of masks (int64[k, N*N], changed in place); int8[k] of
    CONTRADICTION, OPEN or SOLVED, row by row as propagate() returns them, and the same masks
    where a row does not contradict (a contradicted row's masks are left as the search stopped).
    9x9 rows with every rule take the 9x9 path (the same fixed point: the rules reach it in any
    order)."""
    lay, grid_tables = _tables(order)
    if masks.dtype != np.int64 or masks.ndim != 2 or masks.shape[1] != lay.cells:
        raise InputError(f"masks: need int64[k, {lay.cells}], got {masks.dtype}{list(masks.shape)}")
    status = np.zeros(masks.shape[0], np.int8)
    if order == 3 and pairs:
        _propagate_rows9(masks, status)
    else:
        _propagate_rows(masks, grid_tables, bool(pairs), status)
    return status


# --- 9x9 path -----------------------------------------------------------------------------------
# The same rules and the same branching as the general search, with the order-3 tables as
# compile-time constants (numba freezes global arrays into the code, so the loops over 20 peers and
# 9 unit cells have constant bounds) and int32 masks. Instead of per-unit to-do lists it keeps
# two 27-bit sets of units: ``hdirty`` (a cell of the unit changed: look for hidden singles) and
# ``pdirty`` (a cell of the unit became two-valued: look for naked pairs). Naked pairs are looked
# for only when the singles have stalled. The rules reach the same fixed point in any order, so the
# search tree, the node counts and the first solution are those of the general path.

_U9, _CU9, _PL9 = (
    np.array(a, dtype=np.int64)
    for a in (layout(3).units, layout(3).cell_units, layout(3).peer_list)
)
_UM9 = np.zeros(81, dtype=np.int64)  # bit u set when cell c lies in unit u
for _c in range(81):
    for _j in range(3):
        _UM9[_c] |= np.int64(1) << int(_CU9[_c, _j])
for _a in (_U9, _CU9, _PL9, _UM9):
    _a.setflags(write=False)
_FULL9 = 511
_ALL_UNITS9 = (1 << 27) - 1


@nb.njit(cache=True)
def _propagate9(row, queue, qlen, hdirty, pdirty):
    """Rules 1-3 on one 9x9 grid of int32 masks to a fixed point; CONTRADICTION or OPEN.

    ``queue[:qlen]``: new singles to remove from their peers; ``hdirty`` and ``pdirty``: sets of
    units (bit u) to look at for hidden singles and for naked pairs.
    """
    while True:
        # Exclusivity.
        while qlen > 0:
            qlen -= 1
            c = queue[qlen]
            v = np.int64(row[c])
            for i in range(20):
                p = _PL9[c, i]
                m = np.int64(row[p])
                if m & v:
                    m ^= v
                    row[p] = m
                    hdirty |= _UM9[p]
                    if m == 0:
                        return CONTRADICTION
                    r = m & (m - 1)
                    if r == 0:
                        queue[qlen] = p
                        qlen += 1
                    elif r & (r - 1) == 0:
                        pdirty |= _UM9[p]
        # Uniqueness, on the units that changed.
        if hdirty:
            todo = hdirty
            hdirty = 0
            while todo:
                u = _ctz(todo)
                todo &= todo - 1
                once = np.int64(0)
                twice = np.int64(0)
                solved = np.int64(0)
                for i in range(9):
                    m = np.int64(row[_U9[u, i]])
                    twice |= once & m
                    once |= m
                    if m & (m - 1) == 0:
                        solved |= m
                if once != _FULL9:
                    return CONTRADICTION
                singles = once & ~twice & ~solved
                while singles:
                    v = singles & -singles
                    singles ^= v
                    found = -1
                    for i in range(9):
                        c = _U9[u, i]
                        if row[c] & v:
                            found = c
                            break
                    if found < 0:
                        return CONTRADICTION
                    row[found] = v
                    hdirty |= _UM9[found]
                    queue[qlen] = found
                    qlen += 1
            continue
        # Parity, once the singles have stalled, on units with a new two-valued cell.
        changed = False
        while pdirty:
            u = _ctz(pdirty)
            pdirty &= pdirty - 1
            for i in range(8):
                mi = np.int64(row[_U9[u, i]])
                if _popcount(mi) != 2:
                    continue
                for j in range(i + 1, 9):
                    if row[_U9[u, j]] != mi:
                        continue
                    for k in range(9):
                        if k == i or k == j:
                            continue
                        c = _U9[u, k]
                        m = np.int64(row[c])
                        if m & mi:
                            changed = True
                            m &= ~mi
                            row[c] = m
                            hdirty |= _UM9[c]
                            if m == 0:
                                return CONTRADICTION
                            r = m & (m - 1)
                            if r == 0:
                                queue[qlen] = c
                                qlen += 1
                            elif r & (r - 1) == 0:
                                pdirty |= _UM9[c]
                    break
        if not changed:
            return OPEN


@nb.njit(cache=True, nogil=True)
def _propagate_rows9(masks, status):
    """_propagate_rows for 9x9 with every rule, through _propagate9 (int32 rows)."""
    row = np.empty(81, np.int32)
    queue = np.empty(81, np.int64)
    for j in range(masks.shape[0]):
        qlen = 0
        for c in range(81):
            m = masks[j, c]
            row[c] = m
            if m != 0 and m & (m - 1) == 0:
                queue[qlen] = c
                qlen += 1
        result = _propagate9(
            row, queue, np.int64(qlen), np.int64(_ALL_UNITS9), np.int64(_ALL_UNITS9)
        )
        for c in range(81):
            masks[j, c] = row[c]
        if result == CONTRADICTION:
            status[j] = CONTRADICTION
            continue
        status[j] = SOLVED
        for c in range(81):
            m = row[c]
            if m == 0:
                status[j] = CONTRADICTION
                break
            if m & (m - 1):
                status[j] = OPEN


@nb.njit(cache=True)
def _search9(cells_in, limit, max_nodes, stack, queue, choice, left, solution):
    """``search`` for N = 9 in ascending value order; stack is int32[>= 83, 81]."""
    solution[:] = 0
    qlen = 0
    for c in range(81):
        stack[0, c] = _FULL9
    for c in range(81):
        d = np.int64(cells_in[c])
        if d == 0:
            continue
        if d > 9:
            return 0, 0
        stack[0, c] = np.int64(1) << (d - 1)
        queue[qlen] = c
        qlen += 1
    if (
        _propagate9(stack[0], queue, np.int64(qlen), np.int64(_ALL_UNITS9), np.int64(_ALL_UNITS9))
        == CONTRADICTION
    ):
        return 0, 0
    count = 0
    nodes = 0
    depth = 0
    descend = True
    while True:
        if descend:
            # Fewest candidates; among those, the first with the most open peers sharing one.
            row = stack[depth]
            best = -1
            best_pc = 99
            for c in range(81):
                m = np.int64(row[c])
                if m & (m - 1):
                    pc = _popcount(m)
                    if pc < best_pc:
                        best_pc = pc
                        best = c
            if best >= 0:
                best_score = -1
                for c in range(best, 81):
                    m = np.int64(row[c])
                    if _popcount(m) == best_pc:
                        score = 0
                        for i in range(20):
                            mp = np.int64(row[_PL9[c, i]])
                            if mp & (mp - 1) and mp & m:
                                score += 1
                        if score > best_score:
                            best = c
                            best_score = score
            if best < 0:
                if count == 0:
                    for c in range(81):
                        solution[c] = _digit(np.int64(row[c]))
                count += 1
                if count >= limit:
                    return count, nodes
                depth -= 1
            else:
                choice[depth] = best
                left[depth] = row[best]
        descend = False
        if depth < 0:
            return count, nodes
        rest = left[depth]
        if rest == 0:
            depth -= 1
            continue
        v = rest & -rest
        left[depth] = rest ^ v
        if nodes == max_nodes and max_nodes > 0:
            return -1, nodes
        nodes += 1
        c = choice[depth]
        nxt = stack[depth + 1]
        cur = stack[depth]
        for i in range(81):
            nxt[i] = cur[i]
        nxt[c] = v
        queue[0] = c
        if _propagate9(nxt, queue, np.int64(1), _UM9[c], np.int64(0)) != CONTRADICTION:
            depth += 1
            descend = True


@nb.njit(cache=True, nogil=True)
def search(cells_in, tables, limit, shuffle_seed, max_nodes, ws, solution, stop=None):
    """Depth-first search on the explicit stack; returns (count, nodes); fills ``solution``.

    ``tables``: the order's Tables; ``ws``: a Workspace of the order (``workspace``), whose
    arrays the search overwrites. count is -1 when ``max_nodes`` > 0 branch values were tried
    before the search could finish, or when ``stop`` (uint8[1], optional; not on the 9x9 path)
    was set non-zero by another thread; ``shuffle_seed`` >= 0 tries branch values in a random order
    drawn from that seed, -1 in ascending order. 9x9 in ascending value order goes to
    ``_search9`` (int32 stack ``ws.stack9``; a 1x1 ``stack9`` keeps it on the general path,
    which the tests use to compare the two).
    """
    units, cell_units, peer_list = tables
    stack, stack9, choice, left, todo = ws
    queue, flags, hs_list, np_list = todo
    N = units.shape[1]
    P = peer_list.shape[1]
    if N == 9 and shuffle_seed < 0 and stack9.shape[0] > 1:
        return _search9(cells_in, limit, max_nodes, stack9, queue, choice, left, solution)
    n_units = 3 * N
    ncells = N * N
    full = (np.int64(2) << (N - 1)) - 1  # N bits; all 64 (-1) at N = 64
    solution[:] = 0
    if shuffle_seed >= 0:
        np.random.seed(shuffle_seed)
    qlen = 0
    for c in range(ncells):
        stack[0, c] = full
    for c in range(ncells):
        d = np.int64(cells_in[c])
        if d == 0:
            continue
        if d > N:
            return 0, 0
        stack[0, c] = np.int64(1) << (d - 1)
        queue[qlen] = c
        qlen += 1
    for u in range(n_units):
        flags[u] = 3
        hs_list[u] = n_units - 1 - u
        np_list[u] = n_units - 1 - u
    status = _propagate(stack[0], tables, True, todo, np.int64(qlen), n_units, n_units)
    if status == CONTRADICTION:
        return 0, 0
    count = 0
    nodes = 0
    depth = 0
    descend = True
    while True:
        if descend:
            # Pick the open cell of fewest candidates at this depth.
            best = -1
            best_pc = 99
            row = stack[depth]
            best_score = -1
            for c in range(ncells):
                m = row[c]
                if m & (m - 1):
                    pc = _popcount(m)
                    if pc <= best_pc:
                        score = 0
                        for i in range(P):
                            mp = row[peer_list[c, i]]
                            if mp & (mp - 1) and mp & m:
                                score += 1
                        if pc < best_pc or score > best_score:
                            best_pc = pc
                            best = c
                            best_score = score
            if best < 0:
                if count == 0:
                    for c in range(ncells):
                        solution[c] = _digit(row[c])
                count += 1
                if count >= limit:
                    return count, nodes
                depth -= 1
            else:
                choice[depth] = best
                left[depth] = row[best]
        descend = False
        if depth < 0:
            return count, nodes
        rest = left[depth]
        if rest == 0:
            depth -= 1
            continue
        if shuffle_seed >= 0:
            k = np.random.randint(0, _popcount(rest))
            for _ in range(k):
                rest &= rest - 1
        v = rest & -rest
        left[depth] ^= v
        if nodes == max_nodes and max_nodes > 0:
            return -1, nodes
        if stop is not None and nodes % large.STOP_EVERY == 0 and stop[0] != 0:
            return -1, nodes
        nodes += 1
        c = choice[depth]
        for i in range(ncells):
            stack[depth + 1, i] = stack[depth, i]
        stack[depth + 1, c] = v
        queue[0] = c
        hlen, nlen = _mark(c, v, cell_units, todo, np.int64(0), np.int64(0))
        status = _propagate(stack[depth + 1], tables, True, todo, np.int64(1), hlen, nlen)
        if status != CONTRADICTION:
            depth += 1
            descend = True


@nb.njit(cache=True)
def workspace(N):
    """The Workspace of one search on an N x N grid."""
    ncells = N * N
    todo = Todo(
        np.empty(ncells, dtype=np.uint16),
        np.zeros(3 * N, dtype=np.uint8),
        np.empty(3 * N, dtype=np.uint16),
        np.empty(3 * N, dtype=np.uint16),
    )
    return Workspace(
        np.empty((ncells + 2, ncells), dtype=np.int64),
        np.empty((83, 81) if N == 9 else (1, 1), dtype=np.int32),
        np.empty(ncells + 2, dtype=np.uint16),
        np.empty(ncells + 2, dtype=np.int64),
        todo,
    )


@nb.njit(cache=True, nogil=True)
def _solve_one(cells_in, tables, limit, shuffle_seed, max_nodes, stop):
    N = tables.units.shape[1]
    solution = np.zeros(N * N, dtype=np.uint8)
    ws = workspace(N)
    count, nodes = search(cells_in, tables, limit, shuffle_seed, max_nodes, ws, solution, stop)
    return count, solution, nodes


@nb.njit(cache=True, nogil=True)
def _solve_restarts(cells_in, tables, base_nodes, max_nodes, stop):
    N = tables.units.shape[1]
    ws = workspace(N)
    solution = np.zeros(N * N, dtype=np.uint8)
    total = 0
    r = 0
    while True:
        cap = base_nodes * (1 + r // 4)
        if max_nodes > 0:
            cap = min(cap, max_nodes - total)
            if cap <= 0:
                return -1, solution, total
        count, nodes = search(cells_in, tables, 1, r, cap, ws, solution, stop)
        total += nodes
        if count >= 0 or stop[0] != 0:
            return count, solution, total
        r += 1


@nb.njit(cache=True)
def solve_batch_serial(puzzles, tables, limit, max_nodes, counts, solutions):
    """Solve every row of ``puzzles`` on the calling thread; fills counts and solutions.

    Returns the total number of branch nodes. Used by the benchmark to time one thread.
    """
    ws = workspace(tables.units.shape[1])
    total = 0
    for i in range(puzzles.shape[0]):
        count, nodes = search(puzzles[i], tables, limit, -1, max_nodes, ws, solutions[i])
        counts[i] = count
        total += nodes
    return total


@nb.njit(cache=True, parallel=True)
def _solve_batch_parallel(puzzles, tables, limit, counts, solutions):
    n_puzzles = puzzles.shape[0]
    chunk = 64
    n_chunks = (n_puzzles + chunk - 1) // chunk
    for b in nb.prange(n_chunks):
        ws = workspace(tables.units.shape[1])
        for i in range(b * chunk, min(n_puzzles, (b + 1) * chunk)):
            count, _ = search(puzzles[i], tables, limit, -1, np.int64(0), ws, solutions[i])
            counts[i] = count


@cache
def tables(order: int) -> Tables:
    """The Tables of ``layout(order)`` as uint16, the solver's index tables.

    Unsigned indices spare the compiled code its negative-index checks.
    """
    lay = layout(order)
    out = Tables(
        *(
            np.ascontiguousarray(a, dtype=np.uint16)
            for a in (lay.units, lay.cell_units, lay.peer_list)
        )
    )
    for a in out:
        a.setflags(write=False)
    return out


def _tables(order: int):
    if not isinstance(order, (int, np.integer)) or not MIN_ORDER <= int(order) <= MAX_ORDER:
        raise InputError(f"order: {order!r} is not an integer in {MIN_ORDER}..{MAX_ORDER}")
    return layout(int(order)), tables(int(order))


def _check_limit(limit: int) -> int:
    if int(limit) < 1:
        raise InputError(f"limit: {limit} must be at least 1")
    return int(limit)


def _as_grid(cells, n_cells: int) -> np.ndarray:
    a = np.asarray(cells)
    if a.size != n_cells:
        raise InputError(f"cells: {a.size} values given, a grid of this order has {n_cells}")
    if a.size and (a.min() < 0 or a.max() > 255):
        raise InputError("cells: values must lie in 0..N (0 for blank)")
    return np.ascontiguousarray(a.reshape(n_cells), dtype=np.uint8)


def _check_rules(rules: str) -> str:
    if rules not in RULES:
        raise InputError(f"rules: {rules!r} is not one of {', '.join(RULES)}")
    return rules


def solve_exact(
    cells: np.ndarray,
    order: int,
    limit: int = 2,
    shuffle_seed: int = -1,
    max_nodes: int = 0,
    rules: str = "fast",
    stop: np.ndarray | None = None,
) -> tuple[int, np.ndarray, int]:
    """Solve one puzzle (N*N digits, 0 blank); stop after ``limit`` solutions.

    Returns (count, solution, nodes): count is 0, 1, ... or ``limit`` (meaning at least that many);
    solution is the first solution found as uint8[N*N] (zeros when there is none); nodes is the
    number of branch values tried. A digit above N or a repeated given gives count 0.
    ``max_nodes`` > 0 gives up after that many branch values (over all runs) and returns count -1
    (solution still filled if one was found).

    ``rules="fast"`` (default): 9x9 by the band solver (``exact_bands9``); other orders by the
    exact-cover solver (``exact_large``), which counts to 1 or 2 by restarted randomised runs.
    ``rules="seed"``: seed 003's three rules and search (this module), as published.
    ``shuffle_seed >= 0`` tries branch values in a random order drawn from that seed (for random
    full grids); it always takes the seed rules' search. -1 tries them in ascending order.
    ``stop`` (uint8[1]): another thread that sets it non-zero ends the search within
    STOP_EVERY nodes, count -1 as for ``max_nodes`` (the 9x9 band solver, which ends within
    seconds, does not look at it). The search releases the GIL.
    """
    stop = _stop_flag(stop)
    lay, grid_tables = _tables(order)
    grid = _as_grid(cells, lay.cells)
    limit = _check_limit(limit)
    if _check_rules(rules) == "fast" and int(shuffle_seed) < 0:
        solution = np.zeros(lay.cells, dtype=np.uint8)
        if lay.N == 9:
            stack = np.empty((bands9.DEPTH, bands9.STATE), dtype=np.int32)
            count, nodes = bands9.solve9(grid, limit, int(max_nodes), stack, solution)
        else:
            count, nodes = large.solve_one(
                grid,
                int(order),
                limit,
                int(max_nodes),
                -1,
                True,
                RESTART_BASE,
                large.DEFAULT_RULES,
                solution,
                stop,
            )
        return int(count), solution, int(nodes)
    count, solution, nodes = _solve_one(
        grid, grid_tables, limit, int(shuffle_seed), int(max_nodes), stop
    )
    return int(count), solution, int(nodes)


def _stop_flag(stop: np.ndarray | None) -> np.ndarray:
    """The uint8[1] stop flag a search looks at: `stop`, or a fresh one nothing sets."""
    return np.zeros(1, np.uint8) if stop is None else stop


def solve_restarts(
    cells: np.ndarray,
    order: int,
    base_nodes: int = 300,
    max_nodes: int = 0,
    stop: np.ndarray | None = None,
) -> tuple[int, np.ndarray, int]:
    """Find one solution by restarted randomised search (for big, loosely filled grids).

    Runs the search with branch values in random order (seeds 0, 1, 2, ...) and a node budget
    that starts at ``base_nodes`` and grows by ``base_nodes`` every four restarts, until a run
    finishes. Returns (count, solution, nodes) with count 1 (solved), 0 (no solution: a run
    finished without one) or -1 (``max_nodes`` > 0 spent first, or ``stop`` set as in
    ``solve_exact``); nodes counts all runs.
    """
    lay, grid_tables = _tables(order)
    grid = _as_grid(cells, lay.cells)
    if int(base_nodes) < 1:
        raise InputError(f"base_nodes: {base_nodes} must be at least 1")
    count, solution, nodes = _solve_restarts(
        grid, grid_tables, int(base_nodes), int(max_nodes), _stop_flag(stop)
    )
    return int(count), solution, int(nodes)


def count_solutions(cells: np.ndarray, order: int, limit: int = 2, rules: str = "fast") -> int:
    """Number of solutions of the puzzle, counting no further than ``limit``."""
    return solve_exact(cells, order, limit, rules=rules)[0]


def has_unique_solution(cells: np.ndarray, order: int, rules: str = "fast") -> bool:
    """True when the puzzle has exactly one solution."""
    return count_solutions(cells, order, 2, rules) == 1


def solve_many(
    puzzles: np.ndarray, order: int, limit: int = 2, rules: str = "fast"
) -> tuple[np.ndarray, np.ndarray]:
    """Solve uint8[P, cells] puzzles on all numba threads (``numba.set_num_threads`` sets them).

    Returns (counts int32[P], solutions uint8[P, cells]), each row as from ``solve_exact``.
    """
    lay, grid_tables = _tables(order)
    a = np.asarray(puzzles)
    if a.ndim != 2 or a.shape[1] != lay.cells:
        raise InputError(f"puzzles: shape {a.shape} is not (P, {lay.cells})")
    if a.size and (a.min() < 0 or a.max() > 255):
        raise InputError("puzzles: values must lie in 0..N (0 for blank)")
    a = np.ascontiguousarray(a, dtype=np.uint8)
    limit = _check_limit(limit)
    counts = np.zeros(a.shape[0], dtype=np.int32)
    solutions = np.zeros(a.shape, dtype=np.uint8)
    if not a.shape[0]:
        return counts, solutions
    if _check_rules(rules) == "fast":
        if lay.N == 9:
            bands9.solve9_parallel(
                a, limit, 0, nb.get_num_threads(), counts, solutions, np.zeros(len(a), np.int64)
            )
        else:
            large.solve_parallel(
                a, int(order), limit, 0, True, RESTART_BASE, large.DEFAULT_RULES, counts, solutions
            )
        return counts, solutions
    _solve_batch_parallel(a, grid_tables, limit, counts, solutions)
    return counts, solutions
