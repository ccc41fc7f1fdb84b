"""Cooperative Sudoku chains: one warp runs one chain, exactly as the sequential chain.

The chain's steps for a warp: start_trial, fill_thresholds, plateau and focus_init, the functions
cpu_reference/sudoku/chain_template.py's drive_chain calls as `steps.` (trials, plateaus,
reheats, the stop rules, the deterministic winner stay the template's, run on every lane of the
warp). gpu_anneal.kernels.sudoku_coop builds the rules with this module as their steps
(rules.model(..., steps=this file)): a copy of it, written out per order and move, imports the
specialisation's constants and rules where this file imports rules_constants and rules_template
(the CPU runner's 9x9 rules, when imported as itself: nothing runs that), every other line as
here.

Glossary (besides rules.py's and packing.py's):
    lane     the thread's index in the warp, 0..31; each lane holds the chain's control values
    round    one trip of the warp around the move loop: lanes evaluate proposals i .. i + 31
             of the chain against the same state
    r, k, b  a cell's row, column and box; bit k of row word r, bit r of column word k, bit
             (r mod n) n + (k mod n) of box word b
    rr       the row (or column, or box) a lane owns when the warp works word by word:
             rr = pass * 32 + lane

One round (plateau below): lane j draws Philox draw i + j of the chain (anneal/philox.py: draw i
needs no draw before it), picks its cell, digits and delta from the current state and decides
acceptance as the sequential move would (its threshold, its acceptance bits). A ballot of the
32 decisions (only lanes whose move lies inside the plateau vote) gives the first accepted
lane w; only its move is applied, by the whole warp, and the chain has made w + 1 proposals. With
no lane accepting, it has made 32. A refused proposal leaves the state unchanged, so every
proposal of the round was evaluated against the state the sequential chain would have had:
the chain, its draws, its accepted moves, costs and counts equal the CPU runner's.

A chain's state in shared memory (one chain a block of one warp):

    vals[VW]            uint32  packed cell values (packing.py), 0-based
    board[BOARD_WORDS]  WT      words of N bits (uint32 up to 25x25, uint64 for 36x36):
        ROWS  + dd N + r    cells of row r holding digit dd, bit k (the row-packed bitboard
                            word of packing.py where a word holds one row)
        COLS  + dd N + k    cells of column k holding dd, bit r
        BOXES + dd N + b    cells of box b holding dd, bit (r mod n) n + (k mod n)
        CONF  + r           focused moves: row r of the conflict set (movable cells a peer of
                            which holds their digit)
        MOVS  + r           focused moves: row r of the movable cells (the move list)
        PRE   + r           focused moves: cells of the conflict set in rows before r (r = 0..N)
        SCR   + j           scratch of the simulator's warp operations (unused on a card)
    thr[TMAX + 1]       uint32  thr[d], the acceptance threshold of delta d (d = 1..TMAX)

so a cell's conflicts with digit dd are three words:

    popc(row & ~segment(k)) + popc(column & ~segment(r)) + popc(box & ~own bit)

(segment(k): the n bits of k's box in a row word; row and column peers inside the box are
counted once, in the box word). The k-th cell of the conflict set, counted in ascending cell
order as the CPU counts it, is found by a binary search of PRE and the k'-th set bit of a row.

Warp operations (warp_sync, warp_ballot, warp_pick, warp_scan) are shuffles and votes on a
card; the simulator (NUMBA_ENABLE_CUDASIM=1), which has none, runs them through SCR and
syncthreads (a block is one warp). Lane work (coop_propose, coop_conflicts, ...) is jitted for
both; the warp-level functions are plain Python in the simulator and jitted on a card.
"""

import numpy as np
from numba import config, cuda, int32, njit, uint32, uint64

from cpu_reference.anneal.bits import popcount32
from cpu_reference.anneal.fixed_point import exp_neg
from cpu_reference.anneal.philox import philox_fill_below, philox_u64_unhoisted
from cpu_reference.sudoku.rules_constants import (
    BOXROW,
    CELLS,
    CPW_MASK,
    CPW_SHIFT,
    FOCUS,
    ONE,
    ROW_NW,
    ROW_WR,
    ROW_WT,
    ROWMASK,
    TMAX,
    TWO_CHOICE,
    UCELLS,
    UN,
    UR,
    VBITS,
    VMASK,
    VWROW,
    WT,
    N,
    R,
    n,
)
from cpu_reference.sudoku.rules_template import (
    draw_cell,
    get_value,
    move_at,
    new_digit,
    nth_bit,
    pop_lowest,
    popc,
    set_value,
    shl32,
    wshl,
)

SIM = bool(config.ENABLE_CUDASIM)
WARP = 32
FULL = uint32(0xFFFFFFFF)
UWARP = uint32(WARP)
ROWS = 0
COLS = N * N
BOXES = 2 * N * N
CONF = 3 * N * N
MOVS = CONF + N
PRE = MOVS + N
SCR = PRE + N + 1
BOARD_WORDS = SCR + WARP + 2
PASSES = (N + WARP - 1) // WARP  # rows (columns, boxes) a lane owns
UNN = uint32(n)


def warp_fn(fn):
    """A warp-level function: plain Python in the simulator (its cuda calls go to the simulated
    block), jitted on a card."""
    return cuda.jit(device=True)(fn) if SIM else njit(fn)


# ----------------------------------------------------------------------------- lane work


@njit(cache=True)
def coop_geometry(c):
    """(r, k, b, box bit) of cell c."""
    r = uint32(uint32(c) // UN)
    k = uint32(uint32(c) - uint32(r * UN))
    br = uint32(r // UNN)
    bc = uint32(k // UNN)
    b = uint32(uint32(br * UNN) + bc)
    t = uint32(uint32(uint32(r - uint32(br * UNN)) * UNN) + uint32(k - uint32(bc * UNN)))
    return r, k, b, wshl(WT(1), t)


@njit(cache=True)
def segment(x):
    """The n bits of the box band (of rows or columns) holding index x, in a word of N bits."""
    return wshl(BOXROW, uint32(UNN * uint32(x // UNN)))


@njit(cache=True)
def coop_conflicts(board, dd, r, k, b, bb):
    """Peers of cell (r, k) (box b, box bit bb) holding 0-based digit dd."""
    row = WT(WT(board[ROWS + dd * UN + r]) & WT(~segment(k)))
    col = WT(WT(board[COLS + dd * UN + k]) & WT(~segment(r)))
    box = WT(WT(board[BOXES + dd * UN + b]) & WT(~bb))
    return uint32(uint32(popc(row) + popc(col)) + popc(box))


@njit(cache=True)
def coop_select(board, kk):
    """Cell kk of the conflict set in ascending cell order (kk < its size): (r, k)."""
    r = uint32(0)
    step = uint32(32)
    while step > uint32(0):
        at = uint32(r + step)
        ok = (at < UN) and uint32(board[PRE + at]) <= kk
        r = at if ok else r
        step = uint32(step >> ONE)
    k = nth_bit(WT(board[CONF + r]), uint32(kk - uint32(board[PRE + r])))
    return r, k


@njit(cache=True)
def coop_propose(r1, vals, board, thr, move_cells, pu, unmove, cand, ncand, nconf):
    """One lane's proposal from draw r1, as the sequential move makes it: (accepted, cell, old
    digit, new digit, conflicts of the new digit, of the old one)."""
    lo = uint32(r1)
    if FOCUS and nconf > uint32(0):
        kk = uint32(uint32(uint32(lo & uint32(0xFFFFF)) * nconf) >> uint32(20))
        r, k = coop_select(board, kk)
        c = uint32(uint32(r * UN) + k)
    else:
        c = draw_cell(lo, move_cells, pu, unmove)
    r, k, b, bb = coop_geometry(c)
    old = get_value(vals, 0, c)
    new = new_digit(uint32(uint32(lo >> uint32(20)) & uint32(0xFFF)), c, old, cand, ncand)
    gain = coop_conflicts(board, new, r, k, b, bb)
    loss = coop_conflicts(board, old, r, k, b, bb)
    hi = uint32(r1 >> uint64(32))
    if TWO_CHOICE:
        other = new_digit(uint32(hi & uint32(0xFFF)), c, old, cand, ncand)
        more = coop_conflicts(board, other, r, k, b, bb)
        better = more < gain
        new = other if better else new
        gain = more if better else gain
        hi = uint32(hi & uint32(0xFFFFF000))
    d = uint32(gain - loss) if gain > loss else uint32(0)
    take = (gain <= loss) or (hi < uint32(thr[d]))
    return take, c, old, new, gain, loss


@njit(cache=True)
def coop_flip(vals, board, lane, c, old, new):
    """Lane `lane`'s part of making move c: old -> new (lanes 0-5 one board word each, lane 6
    the value); every word a different lane, so no two lanes write one word."""
    r, k, b, bb = coop_geometry(c)
    if lane < uint32(6):
        part = uint32(lane >> ONE)
        dd = new if lane & ONE else old
        base = (
            uint32(ROWS) if part == uint32(0) else (uint32(COLS) if part == ONE else uint32(BOXES))
        )
        pos = r if part == uint32(0) else (k if part == ONE else b)
        bit = wshl(WT(1), k) if part == uint32(0) else (wshl(WT(1), r) if part == ONE else bb)
        at = uint32(uint32(base + uint32(dd * UN)) + pos)
        board[at] = WT(WT(board[at]) ^ bit)
    elif lane == uint32(6):
        set_value(vals, 0, c, new)


@njit(cache=True)
def coop_focus_row(vals, board, rr, c, old, new, gain):
    """Row rr of the conflict set after move c: old -> new (the boards already updated), as
    the template's focus_update keeps it: peers holding new join (if movable), each peer
    holding old that was in the set stays iff a peer of its own still holds old, c is in it
    iff gain > 0."""
    r, k, b, bb = coop_geometry(c)
    bitk = wshl(WT(1), k)
    if rr == r:
        peer = WT(ROWMASK & WT(~bitk))
    elif uint32(rr // UNN) == uint32(r // UNN):
        peer = WT(bitk | segment(k))
    else:
        peer = bitk
    cw = WT(board[CONF + rr])
    add = WT(WT(WT(board[ROWS + new * UN + rr]) & peer) & WT(board[MOVS + rr]))
    add = WT(add & WT(~cw))
    drop = WT(WT(WT(board[ROWS + old * UN + rr]) & peer) & cw)
    cw = WT(cw | add)
    while drop != WT(0):
        drop, low, kz = pop_lowest(drop)
        rz, kz2, bz, bbz = coop_geometry(uint32(uint32(rr * UN) + kz))
        if coop_conflicts(board, old, rz, kz2, bz, bbz) == uint32(0):
            cw = WT(cw ^ low)
    if rr == r:
        cw = WT(WT(cw & WT(~bitk)) | (bitk if gain > uint32(0) else WT(0)))
    board[CONF + rr] = cw


@njit(cache=True)
def coop_movable_row(board, rr, move_cells, pu, nmove):
    """Row rr of the movable cells: the move list's cells in row rr."""
    word = WT(0)
    for f in range(nmove):
        c = uint32(move_at(move_cells, pu, f))
        r = uint32(c // UN)
        if r == rr:
            word = WT(word | wshl(WT(1), uint32(c - uint32(r * UN))))
    board[MOVS + rr] = word


@njit(cache=True)
def coop_conflict_row(vals, board, rr):
    """Row rr of the conflict set from the grid: each movable cell a peer of which holds its
    digit."""
    word = WT(0)
    movable = WT(board[MOVS + rr])
    for k in range(N):
        if WT(movable & wshl(WT(1), uint32(k))) != WT(0):
            c = uint32(uint32(rr * UN) + uint32(k))
            r, kk, b, bb = coop_geometry(c)
            if coop_conflicts(board, get_value(vals, 0, c), r, kk, b, bb) > uint32(0):
                word = WT(word | wshl(WT(1), uint32(k)))
    board[CONF + rr] = word


@njit(cache=True)
def coop_clear_words(board, rr):
    """Rows, columns and boxes rr of every digit: emptied."""
    for dd in range(N):
        board[ROWS + dd * N + rr] = WT(0)
        board[COLS + dd * N + rr] = WT(0)
        board[BOXES + dd * N + rr] = WT(0)


@njit(cache=True)
def coop_fill_words(vals, board, rr):
    """Row rr, column rr and box rr of every digit from the grid (a digit >= N: no cell)."""
    for t in range(N):
        ut = uint32(t)
        dd = get_value(vals, 0, uint32(uint32(rr * UN) + ut))
        if dd < UN:
            at = ROWS + dd * UN + rr
            board[at] = WT(WT(board[at]) | wshl(WT(1), ut))
        dd = get_value(vals, 0, uint32(uint32(ut * UN) + rr))
        if dd < UN:
            at = COLS + dd * UN + rr
            board[at] = WT(WT(board[at]) | wshl(WT(1), ut))
        br = uint32(rr // UNN)
        bc = uint32(rr - uint32(br * UNN))
        r = uint32(uint32(br * UNN) + uint32(ut // UNN))
        k = uint32(uint32(bc * UNN) + uint32(ut - uint32(uint32(ut // UNN) * UNN)))
        dd = get_value(vals, 0, uint32(uint32(r * UN) + k))
        if dd < UN:
            at = BOXES + dd * UN + rr
            board[at] = WT(WT(board[at]) | wshl(WT(1), ut))


@njit(cache=True)
def coop_cell_conflicts(vals, board, c):
    """Conflicts of cell c's digit."""
    r, k, b, bb = coop_geometry(c)
    return coop_conflicts(board, get_value(vals, 0, c), r, k, b, bb)


@njit(cache=True)
def coop_pack_word(vals, board, i):
    """Value word i from one digit a cell held in board words (ROWS + c) by fill_cell."""
    word = uint32(0)
    for t in range(CPW_MASK + 1):
        c = uint32(uint32(i << CPW_SHIFT) + uint32(t))
        if c < UCELLS:
            dd = uint32(uint32(board[ROWS + c]) & VMASK)
            word = uint32(word | shl32(dd, uint32(uint32(t) * VBITS)))
    vals[i] = word


@njit(cache=True)
def coop_fill_cell(board, key, proposals, f, c, cand, ncand):
    """Free cell f (cell c) of a trial that starts after `proposals` proposals: its digit drawn
    among its candidates by the Philox fill draw, kept in board word ROWS + c."""
    j = philox_fill_below(key, proposals, uint32(f), uint32(ncand[c]))
    board[ROWS + c] = WT(uint32(cand[c, j]) - ONE)


@njit(cache=True)
def coop_thresholds(thr, beta, exp_table):
    """thr[d] for d = 1..TMAX: fill_thresholds' products, the very same values."""
    t1 = uint64(exp_neg(beta, exp_table))
    t = t1
    thr[1] = uint32(t1)
    for d in range(2, TMAX + 1):
        t = (t * t1) >> uint64(32)
        thr[d] = uint32(t)


@njit(cache=True)
def lowest_lane(votes):
    """Index of the lowest set bit of a nonzero 32-bit ballot."""
    v = uint32(votes)
    return popcount32(uint32(uint32(v & uint32(uint32(~v) + ONE)) - ONE))


# ----------------------------------------------------------------------------- warp operations

if SIM:

    def warp_sync(board):
        """All lanes of the warp reach this point (memory written before is seen after)."""
        cuda.syncthreads()

    def warp_ballot(board, lane, vote):
        """Bit j set iff lane j votes."""
        board[SCR + lane] = WT(1 if vote else 0)
        cuda.syncthreads()
        total = 0
        for j in range(WARP):
            total |= int(board[SCR + j]) << j
        cuda.syncthreads()
        return uint32(total)

    def warp_pick(board, lane, a, b, src):
        """Lane src's (a, b), two 32-bit words, in every lane."""
        if lane == src:
            board[SCR + WARP] = WT(a)
            board[SCR + WARP + 1] = WT(b)
        cuda.syncthreads()
        out = uint32(board[SCR + WARP]), uint32(board[SCR + WARP + 1])
        cuda.syncthreads()
        return out

    def warp_scan(board, lane, x):
        """(x summed over lanes 0..lane, x summed over the warp)."""
        board[SCR + lane] = WT(x)
        cuda.syncthreads()
        upto = sum(int(board[SCR + j]) for j in range(int(lane) + 1))
        total = sum(int(board[SCR + j]) for j in range(WARP))
        cuda.syncthreads()
        return uint32(upto), uint32(total)

else:

    @njit
    def warp_sync(board):
        """All lanes of the warp reach this point (memory written before is seen after)."""
        cuda.syncwarp(FULL)

    @njit
    def warp_ballot(board, lane, vote):
        """Bit j set iff lane j votes."""
        return uint32(cuda.ballot_sync(FULL, vote))

    @njit
    def warp_pick(board, lane, a, b, src):
        """Lane src's (a, b), two 32-bit words, in every lane."""
        x = cuda.shfl_sync(FULL, int32(a), src)
        y = cuda.shfl_sync(FULL, int32(b), src)
        return uint32(x), uint32(y)

    @njit
    def warp_scan(board, lane, x):
        """(x summed over lanes 0..lane, x summed over the warp)."""
        v = int32(x)
        d = 1
        while d < WARP:
            y = cuda.shfl_up_sync(FULL, v, d)
            if lane >= uint32(d):
                v = int32(v + y)
            d *= 2
        return uint32(v), uint32(cuda.shfl_sync(FULL, v, WARP - 1))


# ----------------------------------------------------------------------------- warp level


@warp_fn
def coop_prefix(board, lane):
    """PRE from the conflict set's rows; returns its size."""
    carry = uint32(0)
    for p in range(PASSES):
        rr = uint32(uint32(p * WARP) + lane)
        count = popc(WT(board[CONF + rr])) if rr < UN else uint32(0)
        upto, total = warp_scan(board, lane, count)
        if rr < UN:
            board[PRE + rr + ONE] = WT(uint32(carry + upto))
        carry = uint32(carry + total)
    if lane == uint32(0):
        board[PRE] = WT(0)
    warp_sync(board)
    return carry


@warp_fn
def coop_build(vals, board, lane):
    """Rows, columns and boxes of every digit from the grid in vals."""
    for p in range(PASSES):
        rr = uint32(uint32(p * WARP) + lane)
        if rr < UN:
            coop_clear_words(board, rr)
    warp_sync(board)
    for p in range(PASSES):
        rr = uint32(uint32(p * WARP) + lane)
        if rr < UN:
            coop_fill_words(vals, board, rr)
    warp_sync(board)


@warp_fn
def coop_cost(vals, board, lane):
    """c(w): conflicting peer pairs of the grid, from scratch (the warp's sum)."""
    mine = uint32(0)
    for c in range(lane, CELLS, WARP):
        mine = uint32(mine + coop_cell_conflicts(vals, board, uint32(c)))
    _, total = warp_scan(board, lane, mine)
    return np.int64(total >> ONE)


@warp_fn
def focus_init(vals, board, lane, move_cells, pu, nmove):
    """FOCUS: the movable cells and the conflict set from the grid, and their prefix counts."""
    for p in range(PASSES):
        rr = uint32(uint32(p * WARP) + lane)
        if rr < UN:
            coop_movable_row(board, rr, move_cells, pu, nmove)
            coop_conflict_row(vals, board, rr)
    warp_sync(board)
    coop_prefix(board, lane)


@warp_fn
def fill_thresholds(thr, lane, beta, exp_table):
    """thr[d] = exp(-beta d) 2**32 for d = 1..TMAX (the template's values), lane 0 writing."""
    if lane == uint32(0):
        coop_thresholds(thr, beta, exp_table)
    warp_sync(thr)


@warp_fn
def start_trial(
    vals, board, lane, given_vals, given_board, init_cells, ninit, cand, ncand, box_cells,
    nbox, pu, box_missing, s0, s1,
):  # fmt: skip
    """A fresh random grid (one-cell moves): givens kept, free cell f drawn among its
    candidates by Philox fill draw f of the trial (s0 the key, s1 the proposals made so far).
    Returns (cost, s0, s1), the state unchanged."""
    for c in range(lane, CELLS, WARP):
        board[ROWS + c] = WT(uint32(uint32(given_vals[c]) + VMASK) & VMASK)
    warp_sync(board)
    for f in range(lane, ninit, WARP):
        coop_fill_cell(board, s0, s1, f, uint32(init_cells[f]), cand, ncand)
    warp_sync(board)
    for i in range(lane, VWROW, WARP):
        coop_pack_word(vals, board, uint32(i))
    warp_sync(board)
    coop_build(vals, board, lane)
    return coop_cost(vals, board, lane), s0, s1


@warp_fn
def plateau(vals, board, thr, lane, move_cells, pu, nmove, cand, ncand, box_cells, nbox,
            start, moves, cost, best, s0, s1):  # fmt: skip
    """Moves start+1 .. `moves` of a plateau in rounds of 32 proposals (module docstring);
    stops at cost 0. Returns what the template's plateau returns: (cost, best, moves done,
    accepted, s0, s1 advanced by the proposals made, False (no move left undecided), 0, size of
    the conflict set)."""
    accepted = uint32(0)
    m = uint32(start)
    umoves = uint32(moves)
    unmove = uint32(nmove)
    ucost = uint32(cost)
    ubest = uint32(best)
    first = uint64(s1)  # the proposal index of move start + 1
    nconf = uint32(board[PRE + N]) if FOCUS else uint32(0)
    while m < umoves:
        j = uint32(m + lane)
        r1 = uint64(philox_u64_unhoisted(s0, uint64(first + uint64(j - uint32(start)))))
        take, c, old, new, gain, loss = coop_propose(
            r1, vals, board, thr, move_cells, pu, unmove, cand, ncand, nconf
        )
        votes = warp_ballot(board, lane, take and j < umoves)
        if votes == uint32(0):
            m = uint32(min(uint32(m + UWARP), umoves))
            continue
        w = lowest_lane(votes)
        a, b = warp_pick(
            board, lane, uint32(c | uint32(old << uint32(16)) | uint32(new << uint32(24))),
            uint32(gain | uint32(loss << uint32(16))), w,
        )  # fmt: skip
        c = uint32(a & uint32(0xFFFF))
        old = uint32(uint32(a >> uint32(16)) & uint32(0xFF))
        new = uint32(a >> uint32(24))
        gain = uint32(b & uint32(0xFFFF))
        loss = uint32(b >> uint32(16))
        m = uint32(uint32(m + w) + ONE)
        coop_flip(vals, board, lane, c, old, new)
        warp_sync(board)
        if FOCUS:
            for p in range(PASSES):
                rr = uint32(uint32(p * WARP) + lane)
                if rr < UN:
                    coop_focus_row(vals, board, rr, c, old, new, gain)
            warp_sync(board)
            nconf = coop_prefix(board, lane)
        ucost = uint32(uint32(ucost + gain) - loss)
        accepted = uint32(accepted + ONE)
        ubest = min(ubest, ucost)
        if ucost == uint32(0):
            break
    done = uint64(uint64(m) - uint64(start))
    return (
        np.int32(ucost), np.int32(ubest), m, accepted, s0, uint64(first + done), False,
        uint64(0), nconf,
    )  # fmt: skip


# ----------------------------------------------------------------------------- slice ends


@warp_fn
def coop_load(vals, board, lane, grid):
    """The chain's state from its grid (one byte a cell, 1-based; 0 before its first trial)."""
    for c in range(lane, CELLS, WARP):
        board[ROWS + c] = WT(uint32(uint32(grid[c]) + VMASK) & VMASK)
    warp_sync(board)
    for i in range(lane, VWROW, WARP):
        coop_pack_word(vals, board, uint32(i))
    warp_sync(board)
    coop_build(vals, board, lane)


@njit(cache=True)
def coop_row_word(board, w):
    """Word w of the row-packed bitboards (packing.py: digit w // ROW_WR, rows R at a time)."""
    dd = uint32(uint32(w) // uint32(ROW_WR))
    first = uint32(uint32(uint32(w) - uint32(dd * uint32(ROW_WR))) * UR)
    word = ROW_WT(0)
    for t in range(R):
        row = ROW_WT(board[ROWS + dd * UN + first + uint32(t)])
        word = ROW_WT(word | ROW_WT(row << ROW_WT(t * N)))
    return word


@warp_fn
def coop_store(vals, board, lane, grid, rows):
    """The chain's grid (one byte a cell, 1-based) and row-packed bitboards, written back."""
    for c in range(lane, CELLS, WARP):
        grid[c] = np.uint8(get_value(vals, 0, uint32(c)) + ONE)
    for w in range(lane, ROW_NW, WARP):
        rows[w] = coop_row_word(board, w)
