"""Exact Sudoku solver for any order n = 2..8 as an exact cover: four views, singles, restarts.

Glossary of index names (as in ``sudoku_layout``):
    n       order: box side (2..8)
    N       side of the grid and number of digits, N = n * n; N2 = N * N cells
    c       cell index, row-major: c = r * N + k
    r, k    row and column of a cell
    b       box index, b = (r // n) * n + k // n
    p       position inside a box, p = (r % n) * n + k % n
    d       digit index 0..N-1 (the digit d + 1)
    S       one state row (int64[4 N2 + 1]); stack[depth] is the state at that search level
    depth   level in the search stack

The state keeps every constraint of the exact cover as a bitmask of its remaining options:

    S[c]                   cell c: the digits still allowed there (bit d)
    S[N2 + d N + r]        digit d in row r: the columns k still open (bit k)
    S[2 N2 + d N + k]      digit d in column k: the rows r still open (bit r)
    S[3 N2 + d N + b]      digit d in box b: the positions p still open (bit p)
    S[4 N2]                number of cells with one digit left

    9x9, digit 5 (d = 4) in row 2 may go in columns 0, 3 and 8:  S[81 + 4*9 + 2] = 0b1_0000_1001

Deductions, to a fixed point (``_propagate``):
    Naked single   a cell with one digit left removes it from its row, column and box.
    Hidden single  a row, column or box where digit d has one option left places d there.
    Box-line       digit d confined to one row (or column) inside a box leaves the rest of that
                   row (column); confined to one box inside a row (column), it leaves the rest of
                   the box. Run when the singles stall.
An empty cell or a digit with no option left in a unit is a contradiction.

All-different  (rules bit ALL_DIFFERENT) each changed row, column and box to arc consistency:
               a digit leaves a cell when no matching of the unit's cells to digits gives it
               that digit. About three times the cost of a node without it.

Fish           (rules bit FISH) the same arc consistency on each digit's rows-to-columns
               matching (the view S[N2 + d N + r]): X-wing, swordfish and larger fish. Measured
               on 36x36, not used by default (benchmarks/results/exact_peers.md, settings-36).

Search: branch on the open cell with the fewest digits per failure weight of its units
(dom/wdeg), trying the digit with the fewest places left first on a copy of the state one level
deeper, then removing it in place. Counting to two
on big grids can meet very long searches; ``count_restarts`` reruns the search with random tie
breaks and option order under a growing node budget. With the PHASE bit a cell first tries the
digit it took the last time it was branched on (phase saving, kept in the workspace from run to
run; a caller may seed it, say from an annealed grid). A run that finishes is exact; otherwise two
different solutions seen over the runs also settle "at least two". With the ESCALATE bit, the
runs after the first ESCALATE_NODES nodes add all-different: most instances settle before that
with the cheaper rules, and the few that do not get the stronger pruning.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from cpu_reference.sudoku.exact_bits import ctz, popcount

W0 = 4  # qs[W0 + u]: failure weight of unit u
DESCEND, NEGATE, UP = 0, 1, 2  # steps of the search loop
TIE_NUM, TIE_DEN = 6, 5  # randomised runs: cells within 6/5 of the best ratio count as ties
BOX_LINE = 1  # rules: bit set when box-line eliminations run
ALL_DIFFERENT = 2  # rules: bit set when all-different arc consistency runs
ESCALATE = 4  # rules: bit set when restarted runs add ALL_DIFFERENT once ESCALATE_NODES are spent
FISH = 8  # rules: bit set when all-different also runs on each digit's rows-to-columns matching
PHASE = 16  # rules: bit set when a cell first tries the digit it took last time (phase saving)
ESCALATE_NODES = 3000  # chosen on Lloyd & Amos 25x25 (benchmarks/results/exact_peers.md)
DEFAULT_RULES = BOX_LINE | ESCALATE  # box-line always; all-different on the hard instances
STOP_EVERY = 256  # nodes between two looks at the stop flag (a node takes microseconds)


@nb.njit(cache=True, inline="always")
def _view_update(S, i, x, n, N2, fq, bq, flags, qs, uq, cell, d):
    """Store x at S[i]; queue a force when one option is left, box-line when at most n are."""
    S[i] = x
    if x & (x - 1) == 0:
        fq[qs[1]] = cell * 64 + d
        qs[1] += 1
    elif flags[i - N2] == 0 and popcount(x) <= n:
        flags[i - N2] = 1
        bq[qs[2]] = i
        qs[2] += 1


@nb.njit(cache=True, inline="always")
def _mark_unit(flags, uq, qs, N2, u):
    """Put unit u (rows, columns, boxes, digits: 0..4N-1) on the all-different queue, once."""
    if flags[3 * N2 + u] == 0:
        flags[3 * N2 + u] = 1
        uq[qs[3]] = u
        qs[3] += 1


@nb.njit(cache=True, _nrt=False)
def _elim(S, c, d, n, N, N2, cq, fq, bq, flags, qs, uq, geo):
    """Remove digit d from cell c and update the four views; False on a contradiction.

    A cell left with one digit goes on the spread queue ``cq``; a unit left with one option for
    d puts (cell, d) on the force queue ``fq`` (as cell * 64 + d); a unit left with 2..n options
    goes (once) on the box-line queue ``bq``. A contradiction adds 1 to the failure weight of
    the unit (or, for an empty cell, the three units) where it showed.
    """
    bit = np.int64(1) << d
    m = S[c]
    if m & bit == 0:
        return True
    m ^= bit
    S[c] = m
    r = geo[c]
    k = geo[N2 + c]
    b = geo[2 * N2 + c]
    _mark_unit(flags, uq, qs, N2, r)
    _mark_unit(flags, uq, qs, N2, N + k)
    _mark_unit(flags, uq, qs, N2, 2 * N + b)
    _mark_unit(flags, uq, qs, N2, 3 * N + d)
    if m == 0:
        qs[W0 + r] += 1
        qs[W0 + N + k] += 1
        qs[W0 + 2 * N + b] += 1
        return False
    if m & (m - 1) == 0:
        cq[qs[0]] = c
        qs[0] += 1
        S[4 * N2] += 1
    i = N2 + d * N + r
    x = S[i] & ~(np.int64(1) << k)
    if x == 0:
        qs[W0 + r] += 1
        return False
    _view_update(S, i, x, n, N2, fq, bq, flags, qs, uq, r * N + ctz(x), d)
    i = 2 * N2 + d * N + k
    x = S[i] & ~(np.int64(1) << r)
    if x == 0:
        qs[W0 + N + k] += 1
        return False
    _view_update(S, i, x, n, N2, fq, bq, flags, qs, uq, ctz(x) * N + k, d)
    i = 3 * N2 + d * N + b
    x = S[i] & ~(np.int64(1) << geo[3 * N2 + c])
    if x == 0:
        qs[W0 + 2 * N + b] += 1
        return False
    _view_update(S, i, x, n, N2, fq, bq, flags, qs, uq, geo[4 * N2 + b * N + ctz(x)], d)
    return True


@nb.njit(cache=True, _nrt=False)
def _singles(S, n, N, N2, cq, fq, bq, flags, qs, uq, geo):
    """Drain the force and spread queues: forced placements, then single cells' peers."""
    while qs[0] > 0 or qs[1] > 0:
        if qs[1] > 0:
            qs[1] -= 1
            e = fq[qs[1]]
            c = e >> 6
            d = e & 63
            m = S[c]
            if m & (np.int64(1) << d) == 0:
                return False
            rest = m & ~(np.int64(1) << d)
            while rest:
                if not _elim(S, c, ctz(rest), n, N, N2, cq, fq, bq, flags, qs, uq, geo):
                    return False
                rest &= rest - 1
            continue
        qs[0] -= 1
        c = cq[qs[0]]
        d = ctz(S[c])
        r = geo[c]
        k = geo[N2 + c]
        x = S[N2 + d * N + r] & ~(np.int64(1) << k)
        while x:
            if not _elim(S, r * N + ctz(x), d, n, N, N2, cq, fq, bq, flags, qs, uq, geo):
                return False
            x &= x - 1
        x = S[2 * N2 + d * N + k] & ~(np.int64(1) << r)
        while x:
            if not _elim(S, ctz(x) * N + k, d, n, N, N2, cq, fq, bq, flags, qs, uq, geo):
                return False
            x &= x - 1
        b = geo[2 * N2 + c]
        x = S[3 * N2 + d * N + b] & ~(np.int64(1) << geo[3 * N2 + c])
        while x:
            c2 = np.int64(geo[4 * N2 + b * N + ctz(x)])
            if not _elim(S, c2, d, n, N, N2, cq, fq, bq, flags, qs, uq, geo):
                return False
            x &= x - 1
    return True


@nb.njit(cache=True, _nrt=False)
def _box_line_one(S, i, n, N, N2, cq, fq, bq, flags, qs, uq, geo):
    """Box-line eliminations from the unit-digit constraint at S[i]; False on a contradiction."""
    x = S[i]
    if x & (x - 1) == 0:
        return True
    nmask = (np.int64(1) << n) - 1
    v = i // N2
    j = i - v * N2
    d = j // N
    u = j - d * N
    if v == 3:  # digit d in box u
        br = (u // n) * n
        bk = (u % n) * n
        rows = 0
        cols = np.int64(0)
        for t in range(n):
            y = (x >> (t * n)) & nmask
            if y:
                rows |= 1 << t
            cols |= y
        if rows & (rows - 1) == 0:  # one row of the box: clear the rest of that row
            r = br + ctz(rows)
            y = S[N2 + d * N + r] & ~(nmask << bk)
            while y:
                if not _elim(S, r * N + ctz(y), d, n, N, N2, cq, fq, bq, flags, qs, uq, geo):
                    return False
                y &= y - 1
        if cols & (cols - 1) == 0:  # one column of the box
            k = bk + ctz(cols)
            y = S[2 * N2 + d * N + k] & ~(nmask << br)
            while y:
                if not _elim(S, ctz(y) * N + k, d, n, N, N2, cq, fq, bq, flags, qs, uq, geo):
                    return False
                y &= y - 1
        return True
    g = -1
    for t in range(n):
        if (x >> (t * n)) & nmask:
            if g >= 0:
                return True
            g = t
    # digit d in row (v = 1) or column (v = 2) u lies in one box: clear the rest of that box
    if v == 1:
        b = (u // n) * n + g
        keep = nmask << ((u % n) * n)
    else:
        b = g * n + u // n
        keep = np.int64(0)
        for t in range(n):
            keep |= np.int64(1) << (t * n + u % n)
    y = S[3 * N2 + d * N + b] & ~keep
    while y:
        c = np.int64(geo[4 * N2 + b * N + ctz(y)])
        if not _elim(S, c, d, n, N, N2, cq, fq, bq, flags, qs, uq, geo):
            return False
        y &= y - 1
    return True


@nb.njit(cache=True, _nrt=False)
def _alldiff(S, u, n, N, N2, cq, fq, bq, flags, qs, uq, geo):
    """All-different on unit u to arc consistency (a perfect matching of its cells to digits,
    then only the digits reachable in the cells' strongly connected components); False on a
    contradiction."""
    o = 4 * N + 1  # uq[o:]: scratch, six arrays of N
    cells = uq[o : o + N]
    masks = uq[o + N : o + 2 * N]
    mate = uq[o + 2 * N : o + 3 * N]  # mate[i]: digit matched to cell i
    owner = uq[o + 3 * N : o + 4 * N]  # owner[d]: cell matched to digit d
    prev = uq[o + 4 * N : o + 5 * N]  # prev[d]: cell from which digit d was reached
    queue = uq[o + 5 * N : o + 6 * N]
    reach = prev  # reused once the matching is done
    for i in range(N):
        owner[i] = -1
    M = 0  # open cells of the unit (the singles take no part)
    union = np.int64(0)
    for i in range(N):
        if u < N:
            c = u * N + i
        elif u < 2 * N:
            c = i * N + u - N
        elif u < 3 * N:
            c = geo[4 * N2 + (u - 2 * N) * N + i]
        else:  # digit u - 3N: row i takes one column (the view S[N2 + d N + i])
            c = N2 + (u - 3 * N) * N + i
        x = S[c]
        if x & (x - 1):
            cells[M] = c
            masks[M] = x
            mate[M] = -1
            union |= x
            M += 1
    if M <= 1:
        return True
    if popcount(union) != M:
        # fewer digits than cells: a contradiction; more can only happen off a fixed point
        # of the singles, where this rule has nothing to add
        if popcount(union) < M:
            qs[W0 + u] += 1
            return False
        return True
    # greedy, then augmenting paths (breadth first over digits)
    used = np.int64(0)
    for i in range(M):
        free = masks[i] & ~used
        if free:
            d = ctz(free)
            mate[i] = d
            owner[d] = i
            used |= np.int64(1) << d
    for i in range(M):
        if mate[i] >= 0:
            continue
        seen = np.int64(0)
        head = 0
        tail = 1
        queue[0] = i
        end = -1
        while head < tail and end < 0:
            j = queue[head]
            head += 1
            x = masks[j] & ~seen
            while x:
                d = ctz(x)
                x &= x - 1
                seen |= np.int64(1) << d
                prev[d] = j
                if owner[d] < 0:
                    end = d
                    break
                queue[tail] = owner[d]
                tail += 1
        if end < 0:
            qs[W0 + u] += 1
            return False
        d = end
        while True:
            j = prev[d]
            nd = mate[j]
            mate[j] = d
            owner[d] = j
            if j == i:
                break
            d = nd
    # reach[i]: cells reachable from cell i (i may take the digit of j, which then moves on)
    for i in range(M):
        x = masks[i] & ~(np.int64(1) << mate[i])
        y = np.int64(0)
        while x:
            d = ctz(x)
            x &= x - 1
            y |= np.int64(1) << owner[d]
        reach[i] = y
    for k in range(M):
        bk = np.int64(1) << k
        rk = reach[k]
        for i in range(M):
            if reach[i] & bk:
                reach[i] |= rk
    for i in range(M):
        x = masks[i]
        if x & (x - 1) == 0:
            continue
        keep = np.int64(1) << mate[i]
        y = reach[i]
        while y:
            j = ctz(y)
            y &= y - 1
            if reach[j] & (np.int64(1) << i):
                keep |= np.int64(1) << mate[j]
        c = cells[i]
        drop = S[c] & ~keep
        while drop:
            if c < N2:
                ok = _elim(S, c, ctz(drop), n, N, N2, cq, fq, bq, flags, qs, uq, geo)
            else:  # digit dd leaves column ctz(drop) of row c - N2 - dd N
                dd = u - 3 * N
                cell = (c - N2 - dd * N) * N + ctz(drop)
                ok = _elim(S, cell, dd, n, N, N2, cq, fq, bq, flags, qs, uq, geo)
            if not ok:
                return False
            drop &= drop - 1
    return True


@nb.njit(cache=True, inline="always")
def _reset_queues(bq, flags, qs, uq, N2):
    """Empty the three queues (and the box-line flags)."""
    for t in range(qs[2]):
        flags[bq[t] - N2] = 0
    for t in range(qs[3]):
        flags[3 * N2 + uq[t]] = 0
    qs[0] = 0
    qs[1] = 0
    qs[2] = 0
    qs[3] = 0


@nb.njit(cache=True, _nrt=False)
def _propagate(S, n, N, N2, cq, fq, bq, flags, qs, uq, geo, rules):
    """Singles, then box-line on the queued units, to a fixed point; False on a contradiction.

    The box-line queue holds only the units changed since the last fixed point: no others can
    offer new box-line eliminations.
    """
    while True:
        if not _singles(S, n, N, N2, cq, fq, bq, flags, qs, uq, geo):
            return False
        if rules & BOX_LINE and qs[2] > 0:
            qs[2] -= 1
            i = bq[qs[2]]
            flags[i - N2] = 0
            if not _box_line_one(S, i, n, N, N2, cq, fq, bq, flags, qs, uq, geo):
                return False
            continue
        if rules & (ALL_DIFFERENT | FISH) and qs[3] > 0:
            qs[3] -= 1
            u = uq[qs[3]]
            flags[3 * N2 + u] = 0
            if u < 3 * N and not rules & ALL_DIFFERENT or u >= 3 * N and not rules & FISH:
                continue
            if not _alldiff(S, u, n, N, N2, cq, fq, bq, flags, qs, uq, geo):
                return False
            continue
        return True


@nb.njit(cache=True, _nrt=False)
def _start(cells_in, S, n, N, N2, cq, fq, bq, flags, qs, uq, geo, rules):
    """The state of the givens, propagated; False when the givens contradict."""
    full = (np.int64(2) << (N - 1)) - 1  # N bits; all 64 (-1) at N = 64
    for i in range(4 * N2):
        S[i] = full
    S[4 * N2] = 0
    for c in range(N2):
        v = np.int64(cells_in[c])
        if v == 0:
            continue
        if v > N:
            return False
        fq[qs[1]] = c * 64 + v - 1
        qs[1] += 1
    return _propagate(S, n, N, N2, cq, fq, bq, flags, qs, uq, geo, rules)


@nb.njit(cache=True, _nrt=False)
def _weight(qs, geo, c, N, N2):
    """Weighted degree of cell c: the failure weights of its row, column and box."""
    return qs[W0 + geo[c]] + qs[W0 + N + geo[N2 + c]] + qs[W0 + 2 * N + geo[2 * N2 + c]]


@nb.njit(cache=True, _nrt=False)
def _choose(S, N, N2, randomise, qs, geo):
    """The open cell of least domain / weighted degree; -1 when every cell is single (solved).

    The weighted degree of a cell is the sum of its three units' failure weights. The first
    best cell, or with ``randomise`` a uniformly random one among those within a factor
    TIE_NUM / TIE_DEN of the best ratio.
    """
    best = -1
    best_p = 1  # best ratio best_p / best_w, compared by cross-multiplying
    best_w = 0
    for c in range(N2):
        x = S[c]
        if x & (x - 1) == 0:
            continue
        w = _weight(qs, geo, c, N, N2)
        p = popcount(x)
        if p * best_w < best_p * w:
            best_p = p
            best_w = w
            best = c
    if best < 0 or not randomise:
        return best
    ties = 0
    for c in range(N2):
        x = S[c]
        if x & (x - 1) == 0:
            continue
        w = _weight(qs, geo, c, N, N2)
        if TIE_DEN * popcount(x) * best_w <= TIE_NUM * best_p * w:
            ties += 1
            if np.random.randint(0, ties) == 0:
                best = c
    return best


@nb.njit(cache=True, _nrt=False)
def _pick_value(S, c, rest, N, N2, randomise, geo):
    """The digit of cell c among ``rest`` with the fewest places left in one of its units."""
    r = geo[c]
    k = geo[N2 + c]
    b = geo[2 * N2 + c]
    best = -1
    best_s = 999
    ties = 0
    while rest:
        d = ctz(rest)
        rest &= rest - 1
        sc = (
            popcount(S[N2 + d * N + r])
            + popcount(S[2 * N2 + d * N + k])
            + popcount(S[3 * N2 + d * N + b])
        )
        if sc < best_s:
            best_s = sc
            best = d
            ties = 1
        elif sc == best_s and randomise:
            ties += 1
            if np.random.randint(0, ties) == 0:
                best = d
    return best


@nb.njit(cache=True)
def workspace(n, depth):
    """Scratch of one search on order n: (stack, branch, cq, fq, bq, flags, qs, uq, geo, phase).

    The stack grows on need. Queues: cq (cells to spread), fq (forced placements), bq (units
    for box-line, each flagged in ``flags`` while queued), uq (units for all-different: rows,
    columns, boxes, then digits). qs[0..3]: their lengths; qs[W0 + u]: failures seen in unit u,
    from 1 (the branching weighs rows, columns and boxes only). phase[c]: the digit cell c took
    when last branched on, -1 none (PHASE).
    """
    N = n * n
    N2 = N * N
    stack = np.empty((depth, 4 * N2 + 1), dtype=np.int64)
    branch = np.empty((depth, 2), dtype=np.int64)
    cq = np.empty(N2 + 1, dtype=np.int32)
    fq = np.empty(5 * N2 + 1, dtype=np.int32)
    bq = np.empty(3 * N2 + 1, dtype=np.int32)
    flags = np.zeros(3 * N2 + 4 * N, dtype=np.uint8)
    qs = np.ones(W0 + 4 * N, dtype=np.int64)
    qs[:W0] = 0
    uq = np.empty(10 * N + 1, dtype=np.int64)
    phase = np.full(N2, -1, dtype=np.int8)
    return stack, branch, cq, fq, bq, flags, qs, uq, geometry(n), phase


@nb.njit(cache=True)
def geometry(n):
    """Where each cell lies, as one int32 table of 5 N2 entries (no division in the search):

    geo[c]               row r of cell c
    geo[N2 + c]          column k
    geo[2 N2 + c]        box b
    geo[3 N2 + c]        position p inside box b
    geo[4 N2 + b N + p]  the cell at position p of box b
    """
    N = n * n
    N2 = N * N
    geo = np.empty(5 * N2, dtype=np.int32)
    for r in range(N):
        for k in range(N):
            c = r * N + k
            b = (r // n) * n + k // n
            p = (r % n) * n + k % n
            geo[c] = r
            geo[N2 + c] = k
            geo[2 * N2 + c] = b
            geo[3 * N2 + c] = p
            geo[4 * N2 + b * N + p] = c
    return geo


@nb.njit(cache=True)
def _grow(stack, branch):
    # element loops: a sliced array assignment would compile numba's shape-mismatch message
    bigger = np.empty((2 * stack.shape[0], stack.shape[1]), dtype=np.int64)
    for i in range(stack.shape[0]):
        for j in range(stack.shape[1]):
            bigger[i, j] = stack[i, j]
    more = np.empty((2 * branch.shape[0], 2), dtype=np.int64)
    for i in range(branch.shape[0]):
        more[i, 0] = branch[i, 0]
        more[i, 1] = branch[i, 1]
    return bigger, more


@nb.njit(cache=True, _nrt=False)
def _write_solution(S, N2, solution):
    for c in range(N2):
        solution[c] = ctz(S[c]) + 1


@nb.njit(cache=True, _nrt=False)
def _same(S, N2, solution):
    for c in range(N2):
        if solution[c] != ctz(S[c]) + 1:
            return False
    return True


@nb.njit(cache=True, nogil=True)
def search(cells_in, n, limit, max_nodes, seed, rules, known, ws, solution, stop=None):
    """Depth-first count of solutions up to ``limit``: (count, nodes, distinct, stack, branch).

    Two-way branching: at each level the chosen cell c takes digit d on a copy one level deeper;
    once that subtree is done, d leaves c on this level itself and the choice is made anew.
    Both count as a node (a branch value tried).
    ``seed`` >= 0: random tie breaks from that seed; -1: the first of equals.
    ``known`` > 0 means ``solution`` already holds a solution found elsewhere: then ``distinct``
    counts that one plus those found here that differ from it, and the search stops when
    ``distinct`` reaches ``limit``. Otherwise the first solution found is written to
    ``solution``. count is -1 when ``max_nodes`` > 0 branch values were tried first, or when
    ``stop`` (uint8[1], optional) was set non-zero by another thread (looked at every
    STOP_EVERY nodes). The stack and branch arrays come back because they may have grown.
    """
    stack, branch, cq, fq, bq, flags, qs, uq, geo, phase = ws
    N = n * n
    N2 = N * N
    randomise = seed >= 0
    if randomise:
        np.random.seed(seed)
    distinct = known
    _reset_queues(bq, flags, qs, uq, N2)
    if not _start(cells_in, stack[0], n, N, N2, cq, fq, bq, flags, qs, uq, geo, rules):
        return 0, 0, distinct, stack, branch
    count = 0
    nodes = 0
    depth = 0
    state = DESCEND
    while True:
        if state == UP:
            depth -= 1
            if depth < 0:
                return count, nodes, distinct, stack, branch
            state = NEGATE
        if state == NEGATE:
            if nodes == max_nodes and max_nodes > 0:
                return -1, nodes, distinct, stack, branch
            if stop is not None and nodes % STOP_EVERY == 0 and stop[0] != 0:
                return -1, nodes, distinct, stack, branch
            nodes += 1
            _reset_queues(bq, flags, qs, uq, N2)
            S = stack[depth]
            ok = _elim(
                S, branch[depth, 0], branch[depth, 1], n, N, N2, cq, fq, bq, flags, qs, uq, geo
            )
            if ok and _propagate(S, n, N, N2, cq, fq, bq, flags, qs, uq, geo, rules):
                state = DESCEND
            else:
                state = UP
            continue
        # DESCEND: choose at this level
        S = stack[depth]
        c = _choose(S, N, N2, randomise, qs, geo)
        if c < 0:
            if distinct == 0:
                _write_solution(S, N2, solution)
                distinct = 1
            elif known > 0 and distinct == 1 and not _same(S, N2, solution):
                distinct = 2
            count += 1
            if count >= limit or (known > 0 and distinct >= limit):
                return count, nodes, distinct, stack, branch
            state = UP
            continue
        d = phase[c]
        if rules & PHASE == 0 or d < 0 or S[c] & (np.int64(1) << d) == 0:
            d = _pick_value(S, c, S[c], N, N2, randomise, geo)
            phase[c] = d
        branch[depth, 0] = c
        branch[depth, 1] = d
        if nodes == max_nodes and max_nodes > 0:
            return -1, nodes, distinct, stack, branch
        if stop is not None and nodes % STOP_EVERY == 0 and stop[0] != 0:
            return -1, nodes, distinct, stack, branch
        nodes += 1
        if depth + 2 >= stack.shape[0]:
            stack, branch = _grow(stack, branch)
        stack[depth + 1] = stack[depth]
        _reset_queues(bq, flags, qs, uq, N2)
        fq[0] = c * 64 + d
        qs[1] = 1
        if _propagate(stack[depth + 1], n, N, N2, cq, fq, bq, flags, qs, uq, geo, rules):
            depth += 1
        else:
            state = NEGATE


@nb.njit(cache=True, nogil=True)
def count_restarts(
    cells_in,
    n,
    limit,
    max_nodes,
    base_nodes,
    rules,
    seed0,
    ws,
    solution,
    escalate_nodes,
    stop=None,
):
    """Count solutions up to ``limit`` (1 or 2) by restarted randomised searches: (count, nodes).

    Run r (r = 0, 1, ...) searches under a node budget of base_nodes * 2**(r // 2), with seed
    seed0 * 100003 + r (run 0 of seed0 = 0 in the fixed order). Failure weights carry over from
    run to run. With the ESCALATE bit in ``rules``, the runs that start after ``escalate_nodes``
    nodes also run ALL_DIFFERENT: it costs about three times as much a node, and only pays on
    the instances that the cheaper rules did not settle quickly. A run that finishes gives the
    exact count. A run cut short still counts its solutions: the first solution seen is kept in
    ``solution`` and any later solution that differs from it makes two. count -1:
    ``max_nodes`` (> 0) spent first, or ``stop`` set (as in ``search``).
    """
    solution[:] = 0
    total = 0
    distinct = np.int64(0)  # one type for search's `known`: one compile
    r = 0
    while True:
        cap = base_nodes << (r // 2)
        if max_nodes > 0:
            cap = min(cap, max_nodes - total)
            if cap <= 0:
                return -1, total
        seed = -1 if r == 0 and seed0 == 0 else seed0 * 100003 + r
        run_rules = rules
        if rules & ESCALATE and total >= escalate_nodes:
            run_rules |= ALL_DIFFERENT
        count, nodes, distinct, stack, branch = search(
            cells_in, n, limit, cap, seed, run_rules, distinct, ws, solution, stop
        )
        ws = (stack, branch, ws[2], ws[3], ws[4], ws[5], ws[6], ws[7], ws[8], ws[9])
        total += nodes
        if distinct >= limit:
            return limit, total
        if count >= 0:
            return min(count, limit), total
        if stop is not None and stop[0] != 0:
            return -1, total
        r += 1


@nb.njit(cache=True, nogil=True)
def solve_one(
    cells_in, n, limit, max_nodes, seed, restarts, base_nodes, rules, solution, stop=None
):
    """One puzzle: ``count_restarts`` (seed0 = max(seed, 0)) when ``restarts`` and limit <= 2,
    else one ``search`` with that seed. Returns (count, nodes); count -1 when ``max_nodes`` were
    spent or ``stop`` was set first (as in ``search``).
    """
    ws = workspace(n, 64)
    if restarts and limit <= 2:
        return count_restarts(
            cells_in,
            n,
            limit,
            max_nodes,
            base_nodes,
            rules,
            max(seed, 0),
            ws,
            solution,
            ESCALATE_NODES,
            stop,
        )
    solution[:] = 0
    count, nodes, _, _, _ = search(
        cells_in, n, limit, max_nodes, seed, rules, np.int64(0), ws, solution, stop
    )
    return count, nodes


@nb.njit(cache=True, parallel=True)
def solve_parallel(puzzles, n, limit, max_nodes, restarts, base_nodes, rules, counts, solutions):
    """``solve_one`` (fixed order) on every row of ``puzzles`` over all threads."""
    for i in nb.prange(puzzles.shape[0]):
        count, _ = solve_one(
            puzzles[i], n, limit, max_nodes, -1, restarts, base_nodes, rules, solutions[i]
        )
        counts[i] = count
