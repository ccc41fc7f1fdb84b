"""Exact 9x9 Sudoku solver on per-digit band bitboards: matching in bands and stacks, singles.

Glossary of index names:
    c       cell index 0..80, row-major (c = 9 * row + col)
    d       digit index 0..8 (the digit d + 1)
    b       band 0..2: rows 3b..3b+2; also the band of a cell, b = c // 27
    s       stack 0..2: columns 3s..3s+2
    r       row inside a band, 0..2
    j       column inside a stack, 0..2
    k       bit of a cell inside its band word, k = c - 27 b = 9 r + col
    A       a band word: the cells of one band where one digit is still allowed
    F       the state: F[3 d + b] is the band word of digit d in band b
    depth   level of the search stack; stack[depth] holds one state

Band word (27 bits, one per cell of the band; the digit may go where the bit is set):

    bit:  26 ........ 18 | 17 ......... 9 | 8 .......... 0
          row 2: col 8..0 | row 1: col 8..0 | row 0: col 8..0

    minirow (r, s): bits 9r + 3s .. 9r + 3s + 2, the cells of row r inside box (b, s)

State row (int32[32]), one per search level:

    0 .. 26   F[3 d + b]      band words, digit-major
    27 .. 29  placed[b]       cells of band b whose digit is known (27 bits)
    30        branch cell     cell branched on at this level
    31        branch digits   digits (bit d) still to try there

Deductions, to a fixed point (``_propagate``):
    Band matching   In band b, digit d sits in one minirow of each row and of each box, so the rows
                    and the boxes are matched one to one (6 ways). A minirow that is in no
                    matching among the non-empty minirows is emptied (``_BAND_KEEP``); no
                    matching is a contradiction. This covers hidden singles in rows and boxes,
                    pointing and claiming inside the band.
    Stack matching  The same for the columns and the bands of a stack (``_MATCH``): hidden singles
                    in columns, locked candidates along columns.
    Placement       A row of a band word with one bit left places the digit there: the cell leaves
                    the other digits' words. The matchings then clear its row, column and box.
    Naked single    A cell left in one digit's word only: that row of that word keeps the cell.
    Empty cell      A cell in no digit's word is a contradiction.
The search branches on an open cell of fewest candidates (two whenever some cell has two),
trying its digits in ascending order; the last one is tried in place, with no copy.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from cpu_reference.sudoku.exact_bits import ctz as _ctz
from cpu_reference.sudoku.exact_bits import popcount as _popcount

ROW9 = 0x1FF
FULL27 = (1 << 27) - 1
REP3 = 0x40201  # bit x of a 9-bit column set -> bits x, x + 9, x + 18 (the column in all 3 rows)
STATE = 32
PLACED = 27
BR_CELL = 30
BR_DIGITS = 31
DEPTH = 83


def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(_MINIROWS, _MATCH, _BAND_KEEP).

    _MINIROWS[x]: the non-empty thirds of a 9-bit row x (3 bits).
    _MATCH[o]: for a 3x3 occupancy o (bit 3 p + q: pair (p, q) possible), the pairs that lie in a
    perfect matching of p to q with every pair possible; 0 when there is none.
    _BAND_KEEP[o]: _MATCH[o] with bit 3 r + s widened to the minirow (r, s) of a band word.
    """
    minirows = np.zeros(512, np.int32)
    for x in range(512):
        minirows[x] = sum(1 << s for s in range(3) if (x >> (3 * s)) & 7)
    perms = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    match = np.zeros(512, np.int32)
    keep = np.zeros(512, np.int32)
    for o in range(512):
        for p in perms:
            bits = [3 * r + p[r] for r in range(3)]
            if all((o >> bit) & 1 for bit in bits):
                for r in range(3):
                    match[o] |= 1 << bits[r]
                    keep[o] |= 7 << (9 * r + 3 * p[r])
    for a in (minirows, match, keep):
        a.setflags(write=False)
    return minirows, match, keep


_MINIROWS, _MATCH, _BAND_KEEP = _tables()


@nb.njit(cache=True, inline="always")
def _occupancy(a):
    """The 3x3 minirow occupancy of a band word: bit 3 r + s when minirow (r, s) is non-empty."""
    return (
        _MINIROWS[a & ROW9] | (_MINIROWS[(a >> 9) & ROW9] << 3) | (_MINIROWS[(a >> 18) & ROW9] << 6)
    )


@nb.njit(cache=True, inline="always")
def _singles(a):
    """Cells of a band word that are the only bit of their row."""
    out = 0
    for r in range(3):
        x = (a >> (9 * r)) & ROW9
        if x & (x - 1) == 0:
            out |= x << (9 * r)
    return out


@nb.njit(cache=True)
def _digit_fixpoint(a0, a1, a2):
    """Band and stack matching on one digit's three band words until they stop changing.

    Returns (ok, a0, a1, a2); ok False on a contradiction.
    """
    while True:
        a0 &= _BAND_KEEP[_occupancy(a0)]
        a1 &= _BAND_KEEP[_occupancy(a1)]
        a2 &= _BAND_KEEP[_occupancy(a2)]
        if a0 == 0 or a1 == 0 or a2 == 0:
            return False, a0, a1, a2
        c0 = (a0 | (a0 >> 9) | (a0 >> 18)) & ROW9
        c1 = (a1 | (a1 >> 9) | (a1 >> 18)) & ROW9
        c2 = (a2 | (a2 >> 9) | (a2 >> 18)) & ROW9
        k0 = 0
        k1 = 0
        k2 = 0
        for s in range(3):
            sh = 3 * s
            m = _MATCH[((c0 >> sh) & 7) | (((c1 >> sh) & 7) << 3) | (((c2 >> sh) & 7) << 6)]
            if m == 0:
                return False, a0, a1, a2
            k0 |= (m & 7) << sh
            k1 |= ((m >> 3) & 7) << sh
            k2 |= ((m >> 6) & 7) << sh
        if (c0 & ~k0) | (c1 & ~k1) | (c2 & ~k2) == 0:
            return True, a0, a1, a2
        a0 &= k0 * REP3
        a1 &= k1 * REP3
        a2 &= k2 * REP3


@nb.njit(cache=True)
def _propagate(F, dirty):
    """All deductions to a fixed point on the state row F, starting from the digits in ``dirty``.

    Returns False on a contradiction (F is then left part-way).
    """
    bands = 7  # bands whose words changed since their last naked-single look
    while True:
        while dirty:
            d = _ctz(dirty)
            dirty &= dirty - 1
            i = 3 * d
            o0 = np.int64(F[i])
            o1 = np.int64(F[i + 1])
            o2 = np.int64(F[i + 2])
            ok, a0, a1, a2 = _digit_fixpoint(o0, o1, o2)
            if not ok:
                return False
            if a0 != o0:
                F[i] = a0
                bands |= 1
            if a1 != o1:
                F[i + 1] = a1
                bands |= 2
            if a2 != o2:
                F[i + 2] = a2
                bands |= 4
            for b in range(3):
                a = np.int64(F[i + b])
                new = _singles(a) & ~np.int64(F[PLACED + b])
                if new:
                    F[PLACED + b] |= new
                    for e in range(9):
                        if e != d:
                            x = np.int64(F[3 * e + b])
                            if x & new:
                                F[3 * e + b] = x & ~new
                                dirty |= 1 << e
                                bands |= 1 << b
        # Naked singles and empty cells, in the bands that changed.
        while bands:
            b = _ctz(bands)
            bands &= bands - 1
            ones = np.int64(0)
            twos = np.int64(0)
            for e in range(9):
                x = np.int64(F[3 * e + b])
                twos |= ones & x
                ones |= x
            if ones != FULL27:
                return False
            lone = ones & ~twos & ~np.int64(F[PLACED + b])
            if lone:
                for e in range(9):
                    x = np.int64(F[3 * e + b])
                    hits = x & lone
                    if hits:
                        for r in range(3):
                            h = (hits >> (9 * r)) & ROW9
                            if h:
                                if h & (h - 1):
                                    return False
                                x &= ~(ROW9 << (9 * r)) | (h << (9 * r))
                        if x != np.int64(F[3 * e + b]):
                            F[3 * e + b] = x
                            dirty |= 1 << e
                            bands |= 1 << b
        if dirty == 0:
            return True


def _peer_tables() -> np.ndarray:
    """_PEERS[c, b]: the peers of cell c (same row, column or box, c excluded) in band b."""
    peers = np.zeros((81, 3), np.int32)
    for c in range(81):
        r, k = divmod(c, 9)
        for p in range(81):
            pr, pk = divmod(p, 9)
            if p != c and (pr == r or pk == k or (pr // 3 == r // 3 and pk // 3 == k // 3)):
                peers[c, pr // 3] |= 1 << (p - 27 * (pr // 3))
    peers.setflags(write=False)
    return peers


_PEERS = _peer_tables()


@nb.njit(cache=True)
def _choose(F):
    """(cell, digits) to branch on: an open cell of fewest candidates; cell -1 when solved.

    Ties go to the cell whose candidates are open in the most of its peers.
    """
    best = -1
    best_n = 10
    best_score = -1
    for b in range(3):
        open_ = FULL27 & ~np.int64(F[PLACED + b])
        if open_ == 0:
            continue
        ones = np.int64(0)
        twos = np.int64(0)
        threes = np.int64(0)
        for e in range(9):
            x = np.int64(F[3 * e + b])
            threes |= twos & x
            twos |= ones & x
            ones |= x
        two = twos & ~threes & open_
        while two:
            k = _ctz(two)
            two &= two - 1
            c = 27 * b + k
            bit = np.int64(1) << k
            score = 0
            for e in range(9):
                if np.int64(F[3 * e + b]) & bit:
                    for bb in range(3):
                        score += _popcount(
                            np.int64(F[3 * e + bb])
                            & np.int64(_PEERS[c, bb])
                            & ~np.int64(F[PLACED + bb])
                        )
            if score > best_score:
                best_score = score
                best = c
                best_n = 2
    if best < 0:
        for c in range(81):
            bb = c // 27
            bt = np.int64(1) << (c - 27 * bb)
            if np.int64(F[PLACED + bb]) & bt:
                continue
            n = 0
            for e in range(9):
                if np.int64(F[3 * e + bb]) & bt:
                    n += 1
            if n < best_n:
                best_n = n
                best = c
    if best < 0:
        return -1, 0
    b = best // 27
    bit = np.int64(1) << (best - 27 * b)
    digits = 0
    for e in range(9):
        if np.int64(F[3 * e + b]) & bit:
            digits |= 1 << e
    return best, digits


@nb.njit(cache=True, inline="always")
def _assign(F, c, d):
    """Keep only cell c in its row of digit d's band word (the propagation does the rest)."""
    b = c // 27
    k = c - 27 * b
    r = k // 9
    F[3 * d + b] &= ~(ROW9 << (9 * r)) | (1 << k)


@nb.njit(cache=True)
def _start(cells_in, F):
    """State row of the givens, propagated; False when the givens contradict."""
    for i in range(27):
        F[i] = FULL27
    for b in range(3):
        F[PLACED + b] = 0
    for c in range(81):
        v = np.int64(cells_in[c])
        if v == 0:
            continue
        if v > 9:
            return False
        _assign(F, c, v - 1)
    return _propagate(F, np.int64(ROW9))


@nb.njit(cache=True)
def _write_solution(F, solution):
    for e in range(9):
        for b in range(3):
            x = np.int64(F[3 * e + b])
            while x:
                k = _ctz(x)
                x &= x - 1
                solution[27 * b + k] = e + 1


@nb.njit(cache=True)
def solve9(cells_in, limit, max_nodes, stack, solution):
    """Count the solutions of one 9x9 puzzle up to ``limit``; (count, nodes).

    ``stack``: int32[>= DEPTH, STATE] scratch. ``solution`` (uint8[81]) gets the first solution
    found, or zeros. count is -1 when ``max_nodes`` > 0 branch values were tried first.
    """
    solution[:] = 0
    if not _start(cells_in, stack[0]):
        return 0, 0
    count = 0
    nodes = 0
    depth = 0
    descend = True
    while True:
        if descend:
            c, digits = _choose(stack[depth])
            if c < 0:
                if count == 0:
                    _write_solution(stack[depth], solution)
                count += 1
                if count >= limit:
                    return count, nodes
                depth -= 1
            else:
                stack[depth, BR_CELL] = c
                stack[depth, BR_DIGITS] = digits
        descend = False
        if depth < 0:
            return count, nodes
        rest = np.int64(stack[depth, BR_DIGITS])
        if rest == 0:
            depth -= 1
            continue
        if nodes == max_nodes and max_nodes > 0:
            return -1, nodes
        nodes += 1
        d = _ctz(rest)
        rest &= rest - 1
        stack[depth, BR_DIGITS] = rest
        c = stack[depth, BR_CELL]
        if rest == 0:
            # the last digit: work on this level itself
            row = stack[depth]
            _assign(row, c, d)
            if _propagate(row, 1 << d):
                descend = True
            else:
                depth -= 1
            continue
        cur = stack[depth]
        nxt = stack[depth + 1]
        for i in range(PLACED + 3):
            nxt[i] = cur[i]
        _assign(nxt, c, d)
        if _propagate(nxt, 1 << d):
            depth += 1
            descend = True


@nb.njit(cache=True)
def solve9_serial(puzzles, limit, max_nodes, counts, solutions):
    """``solve9`` on every row of uint8[P, 81] on the calling thread; total nodes."""
    stack = np.empty((DEPTH, STATE), dtype=np.int32)
    total = 0
    for i in range(puzzles.shape[0]):
        count, nodes = solve9(puzzles[i], limit, max_nodes, stack, solutions[i])
        counts[i] = count
        total += nodes
    return total


@nb.njit(cache=True, parallel=True)
def solve9_parallel(puzzles, limit, max_nodes, threads, counts, solutions, nodes_out):
    """``solve9`` on every row of uint8[P, 81] over ``threads`` numba threads.

    Thread t takes puzzles t, t + T, t + 2T, ... (T = ``threads``, numba.get_num_threads() from
    the caller), so runs of hard puzzles in a file are shared out; each thread allocates its
    stack once.
    """
    n = puzzles.shape[0]
    for t in nb.prange(threads):
        stack = np.empty((DEPTH, STATE), dtype=np.int32)
        for i in range(t, n, threads):
            count, nodes = solve9(puzzles[i], limit, max_nodes, stack, solutions[i])
            counts[i] = count
            nodes_out[i] = nodes
