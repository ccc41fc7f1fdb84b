"""The jitted Sudoku rules, one module for every specialisation: rules.model() writes a copy per
(order, move, variant).

Every name in capitals and `n` is a compile-time constant of the specialisation, imported
from its constants module: imported as itself, this module reads cpu_reference/sudoku/
rules_constants.py (the CPU runner's 9x9 rules); rules.model() writes a constants module per
specialisation and a copy of this file whose one import of rules_constants names that module
instead, every other line as here (cpu_reference.cache.rewrite_imports), so a traceback's line
number is this file's. The copy is a plain module of its own: numba caches its compiled functions
on disk (`cache=True`), so a second process starts solving at once instead of compiling.

What a chain does with these rules (trials, plateaus, stops) is chain_template.py; the steps it
hands to them (start_trial, fill_thresholds, plateau, focus_init) are this module's, or those of
another module with the same functions (gpu_anneal/kernels/coop_rules.py: a warp's). The rules
themselves are documented in rules.py; this file is their only source.
"""

import numpy as np
from numba import njit, types, uint32, uint64
from numba.extending import intrinsic

from cpu_reference.anneal.bits import deposit64, popcount32, popcount64
from cpu_reference.anneal.fixed_point import exp_neg
from cpu_reference.anneal.philox import (
    DRAWS,
    draw_buffer,
    fill_draws,
    philox_fill_below,
    philox_u64_unhoisted,
)
from cpu_reference.anneal.rng import next_u64, uniform_below
from cpu_reference.sudoku.rules_constants import (
    BAND_WORDS,
    BANDPAT,
    BOFF,
    BOX_IN_WORD,
    BOXROW,
    BRANCH_FREE,
    CANDS,
    CAPPED,
    CELL_BIT,
    CELL_UNITS,
    CELL_WORD,
    CELLS,
    COLPAT,
    COUNTER,
    COUNTS,
    CPW_MASK,
    CPW_SHIFT,
    DEPOSIT,
    DIV_BOX,
    DIV_ROW,
    DIV_WORD,
    FLAT_LISTS,
    FOCUS,
    FOFF,
    LANES,
    LINEAR,
    LINEAR_BIT_CELL,
    MOFF,
    NCOUNT,
    NM1,
    NWROW,
    ONE,
    PACKED,
    PART_CELLS,
    PEER_PARTS,
    ROW_BIT_CELL,
    ROW_BITS,
    ROW_CELL_BIT,
    ROW_CELL_WORD,
    ROW_NW,
    ROW_WR,
    ROW_WT,
    ROWMASK,
    SWAP,
    TABLE,
    THR_CAP,
    THR_OFF,
    TOFF,
    TWO_CHOICE,
    ULANES64,
    UN,
    UNR,
    UR,
    UWR,
    VBITS,
    VMASK,
    VOFF,
    VWROW,
    WIDE,
    WR,
    WT,
    N,
    R,
    Un,
    n,
)


@njit
def ix(i, lane):
    """Element of word i of the chain in column `lane` of a flat state array.

    With lanes (kernels) the element index is built in 64 bits from its parts, never from a
    wrapped 32-bit sum, so that the compiler folds constant word offsets into the address.
    """
    if LANES == 1:
        return uint32(i)
    return uint64(uint64(uint32(i)) * ULANES64 + uint64(lane))


@njit
def ixo(i, off, lane):
    """Element of word i + off (off a small compile-time constant, possibly negative)."""
    if LANES == 1:
        return uint32(uint32(i) + uint32(off))
    return uint64(uint64(uint64(uint32(i)) * ULANES64 + uint64(lane)) + uint64(off * LANES))


@njit
def vx(i, lane):
    """Element of value word i (VOFF: where the values start in a shared column)."""
    return ixo(i, VOFF, lane)


@njit
def bx(i, lane):
    """Element of bitboard word i (BOFF: where the bitboards start in a shared column)."""
    return ixo(i, BOFF, lane)


@intrinsic
def shl32(typingctx, x, s):
    """x << s on 32 bits (s < 32): one shift, where numba would widen to 64 bits."""
    sig = types.uint32(x, s)

    def codegen(context, builder, signature, args):
        a = context.cast(builder, args[0], signature.args[0], types.uint32)
        b = context.cast(builder, args[1], signature.args[1], types.uint32)
        return builder.shl(a, b)

    return sig, codegen


@intrinsic
def shr32(typingctx, x, s):
    """x >> s on 32 bits, unsigned (s < 32)."""
    sig = types.uint32(x, s)

    def codegen(context, builder, signature, args):
        a = context.cast(builder, args[0], signature.args[0], types.uint32)
        b = context.cast(builder, args[1], signature.args[1], types.uint32)
        return builder.lshr(a, b)

    return sig, codegen


@njit
def wshl(x, s):
    """A bitboard word x << s (s below the word's width)."""
    if WIDE:
        return WT(WT(x) << WT(s))
    return shl32(x, s)


@njit
def popc(x):
    """Population count of one bitboard word, as a uint32."""
    if WIDE:
        return uint32(popcount64(x))
    return popcount32(x)


@njit
def get_value(vals, lane, c):
    """0-based digit of cell c."""
    if not PACKED:
        return uint32(uint32(vals[vx(c, lane)]) - ONE)
    word = uint32(vals[vx(uint32(c >> CPW_SHIFT), lane)])
    return uint32(shr32(word, uint32(uint32(c & CPW_MASK) * VBITS)) & VMASK)


@njit
def set_value(vals, lane, c, dd):
    """Store 0-based digit dd in cell c."""
    if not PACKED:
        vals[vx(c, lane)] = np.uint8(dd + ONE)
        return
    at = uint32(c >> CPW_SHIFT)
    shift = uint32(uint32(c & CPW_MASK) * VBITS)
    keep = uint32(uint32(vals[vx(at, lane)]) & uint32(~shl32(VMASK, shift)))
    vals[vx(at, lane)] = uint32(keep | shl32(dd, shift))


@njit
def small_div(x, m, sh):
    """x // D as (x * m) >> sh, with (m, sh) chosen by rules.py so that it is exact for the
    range x takes (a multiply and a shift, where a general division takes four)."""
    return uint32(uint32(uint32(x) * uint32(m)) >> uint32(sh))


@njit
def move_at(move_cells, pu, site):
    """Entry `site` of the puzzle's move list: its row (CPU), or the flat table's row pu
    (kernels, FLAT_LISTS: the index built in 64 bits from its parts, never wrapped)."""
    if FLAT_LISTS:
        return np.uint16(move_cells[uint64(uint64(pu) * uint64(CELLS) + uint64(site))])
    return move_cells[site]


@njit
def box_at(box_cells, pu, b, j):
    """Free cell j of box b of the puzzle (box_cells[p, b, j])."""
    if FLAT_LISTS:
        at = uint64(uint64(uint64(pu) * uint64(N) + uint64(b)) * uint64(N) + uint64(j))
        return np.uint16(box_cells[at])  # zero-extended: a cell index is never negative
    return box_cells[b, j]


@njit
def nbox_at(nbox, pu, b):
    """Free cells of box b of the puzzle (nbox[p, b])."""
    if FLAT_LISTS:
        return nbox[uint64(uint64(pu) * uint64(N) + uint64(b))]
    return nbox[b]


@njit
def computed_masks(c):
    """(own word, cell bit, own-word mask, column mask, box mask, first, end band word)."""
    wr = small_div(c, DIV_WORD[0], DIV_WORD[1])  # c // (N R)
    pos = uint32(c - uint32(wr * UNR))  # the cell's bit in its word: (r mod R) N + k
    rr = small_div(pos, DIV_ROW[0], DIV_ROW[1])  # r mod R
    sh = uint32(rr * UN)
    k = uint32(pos - sh)
    bit = wshl(WT(1), pos)
    col = wshl(COLPAT, k)
    boxrow = wshl(BOXROW, uint32(Un * small_div(k, DIV_BOX[0], DIV_BOX[1])))
    r = uint32(uint32(wr * UR) + rr)
    band = small_div(r, DIV_BOX[0], DIV_BOX[1])  # r // n
    if BOX_IN_WORD:
        if R == n:  # a word is a band: the box starts on the word's first row
            box = WT(boxrow * BANDPAT)
        else:
            band_row = uint32(uint32(band * Un) - uint32(wr * UR))
            box = wshl(WT(boxrow * BANDPAT), uint32(band_row * UN))
        b0 = uint32(0)
        b1 = uint32(0)
    else:
        box = WT(boxrow * COLPAT)
        b0 = uint32(band * uint32(BAND_WORDS))
        b1 = uint32(b0 + uint32(BAND_WORDS))
    own = WT(WT(wshl(ROWMASK, sh) | col | box) ^ bit)  # the row holds the bit: cleared
    return wr, bit, own, col, box, b0, b1


@njit
def masks_in_box(z, da):
    """Cell z's descriptor (as computed_masks) from that of a cell of its box, where a box lies
    within one word (BOX_IN_WORD): the same word and box mask, z's own row, column and bit."""
    wr, box = da[0], da[4]
    pos = uint32(z - uint32(wr * UNR))
    sh = uint32(small_div(pos, DIV_ROW[0], DIV_ROW[1]) * UN)
    k = uint32(pos - sh)
    bit = wshl(WT(1), pos)
    col = wshl(COLPAT, k)
    own = WT(WT(wshl(ROWMASK, sh) | col | box) ^ bit)
    return wr, bit, own, col, box, da[5], da[6]


@njit
def flip(board, lane, dd, w, bit):
    """Toggle one cell's bit in word w of digit dd's bitboard (kernels: the element index
    built from dd and w apart, so that one lane address serves both digits' words)."""
    if LANES == 1:
        at = uint32(uint32(dd * UWR) + w)
    else:
        at = uint64(
            uint64(dd) * uint64(WR * LANES) + uint64(w) * ULANES64 + uint64(lane)
            + uint64(BOFF * LANES)
        )  # fmt: skip
    board[at] = WT(board[at] ^ bit)


@njit
def cell_masks(c):
    """Cell c's descriptor (own word, cell bit, ...): the peer masks computed from its row
    and column (kernels), or (own word, cell bit, c) with the masks in a table (CPU)."""
    if TABLE:
        return uint32(CELL_WORD[c]), WT(CELL_BIT[c]), uint32(c)
    return computed_masks(c)


@njit
def peer_mask(desc, w):
    """The cell's (by its descriptor) peers in bitboard word w."""
    uw = uint32(w)
    if TABLE:  # the table in parts of at most 1 MB (packing.table_parts): one below 64x64
        if PART_CELLS >= CELLS:
            return WT(PEER_PARTS[0][uint32(desc[2] * UWR + uw)])
        part = uint32(desc[2] // uint32(PART_CELLS))
        row = uint32(desc[2] - part * uint32(PART_CELLS))
        return WT(PEER_PARTS[part][uint32(row * UWR + uw)])
    if uw == desc[0]:
        return desc[2]
    if uw >= desc[5] and uw < desc[6]:
        return WT(desc[3] | desc[4])
    return desc[3]


@njit
def conflicts(board, lane, dd, desc):
    """Peers of the cell (by its descriptor) holding 0-based digit dd."""
    base = uint32(dd * UWR)
    total = uint32(0)
    for w in range(WR):
        mask = peer_mask(desc, w)
        total = uint32(total + popc(WT(board[ixo(base, w + BOFF, lane)] & mask)))
    return total


@njit(cache=True)
def peer_words(c, out):
    """out[w] = cell c's peer mask in word w, as the move loop sees it (for tests)."""
    desc = cell_masks(uint32(c))
    for w in range(WR):
        out[w] = peer_mask(desc, w)
    return desc[0], desc[1]


@njit
def unit_count(board, c, dd):
    """COUNTS: cell c's peers holding dd, plus c itself when it holds dd (packing.py)."""
    return uint32(
        uint32(board[CELL_UNITS[c, 0] + dd]) + uint32(board[CELL_UNITS[c, 1] + dd])
        + uint32(board[CELL_UNITS[c, 2] + dd]) - uint32(board[CELL_UNITS[c, 3] + dd])
        - uint32(board[CELL_UNITS[c, 4] + dd])
    )  # fmt: skip


@njit
def count_cell(board, c, dd, step):
    """COUNTS: add step (1, or 255 to take one away) to the five units of cell c for dd."""
    for j in range(5):
        at = CELL_UNITS[c, j] + dd
        board[at] = np.uint8(board[at] + step)


@njit
def counts_from_values(vals, board):
    """COUNTS: the table of a grid (1-based bytes, 0 for an empty cell)."""
    for i in range(NCOUNT):
        board[i] = np.uint8(0)
    for c in range(CELLS):
        if vals[c] != 0:
            count_cell(board, c, uint32(vals[c]) - ONE, np.uint8(1))


@njit
def rows_from_values(vals, rows):
    """Row-packed bitboards of a grid (1-based bytes, 0 for an empty cell)."""
    for i in range(ROW_NW):
        rows[i] = ROW_WT(0)
    for c in range(CELLS):
        if vals[c] != 0:
            at = (vals[c] - 1) * ROW_WR + ROW_CELL_WORD[c]
            rows[at] = ROW_WT(rows[at] | ROW_CELL_BIT[c])


@njit
def conflicts_at(board, lane, dd, c):
    """Peers of cell c holding 0-based digit dd."""
    return conflicts(board, lane, dd, cell_masks(c))


@njit
def thr_ix(d, lane):
    """Element of threshold d (1 <= d <= THR_CAP) in the chain's flat threshold array."""
    return ixo(d, TOFF - THR_OFF, lane)


@njit
def thr_at(thr, lane, gain, loss):
    """thr[gain - loss] where gain > loss, else thr[THR_CAP] (read, unused): the branch-free
    kernels' threshold, its index built in 64 bits so that no 32-bit wrap is kept."""
    if LANES == 1:
        return thr[thr_ix(uint32(gain - loss) if gain > loss else uint32(THR_CAP), lane)]
    d = uint64(uint64(gain) - uint64(loss)) if gain > loss else uint64(THR_CAP)
    return thr[uint64(d * ULANES64 + uint64(lane) + uint64((TOFF - THR_OFF) * LANES))]


@njit
def fill_thresholds(thr, lane, beta, exp_table):
    """thr[d] = exp(-beta d) 2**32 for d = 1..THR_CAP, integers only (see fixed_point)."""
    t1 = uint64(exp_neg(beta, exp_table))
    t = t1
    thr[thr_ix(1, lane)] = uint32(t1)
    for d in range(2, THR_CAP + 1):
        t = (t * t1) >> uint64(32)
        thr[thr_ix(d, lane)] = uint32(t)


@njit
def exact_threshold(thr, lane, d):
    """Threshold of delta d > THR_CAP, continuing fill_thresholds' products from the stored
    thr[THR_CAP] and thr[1] (= t1): the very value a table of TMAX entries would hold."""
    t1 = uint64(thr[thr_ix(1, lane)])
    t = uint64(thr[thr_ix(THR_CAP, lane)])
    for _ in range(uint32(d) - uint32(THR_CAP)):
        t = (t * t1) >> uint64(32)
    return uint32(t)


@njit
def pop_lowest(x):
    """(x without its lowest set bit, that bit, the bit's index) of a nonzero bitboard word."""
    rest = WT(x & WT(x - WT(1)))
    low = WT(x ^ rest)
    return rest, low, popc(WT(low - WT(1)))


@njit
def copy_cells(src, src_wr, src_bits, src_cell, dst, dst_wr, dst_word, dst_bit, dst_words):
    """dst = the cells of bitboards src in another layout: one step a set bit of src, its cell
    src_cell[w * src_bits + b] (word w of a digit, bit b), put at dst_word/dst_bit of the cell."""
    for i in range(dst_words):
        dst[i] = 0
    for dd in range(N):
        for w in range(src_wr):
            x = WT(src[dd * src_wr + w])  # WT is uint64 where bitboards are linear
            while x != WT(0):
                x, _, b = pop_lowest(x)
                c = src_cell[w * src_bits + b]
                at = dd * dst_wr + dst_word[c]
                dst[at] = dst[at] | dst_bit[c]


@njit
def rows_to_linear(rows, board):
    """board (cell-linear, LINEAR) = the cells of the row-packed bitboards `rows`."""
    copy_cells(rows, ROW_WR, ROW_BITS, ROW_BIT_CELL, board, WR, CELL_WORD, CELL_BIT, NWROW)


@njit
def linear_to_rows(board, rows):
    """Row-packed bitboards `rows` = the cells of cell-linear `board` (rows_to_linear's inverse)."""
    copy_cells(board, WR, 64, LINEAR_BIT_CELL, rows, ROW_WR, ROW_CELL_WORD, ROW_CELL_BIT, ROW_NW)


@njit
def full_cost(vals, board, lane):
    """c(w): conflicting peer pairs, from scratch."""
    total = uint32(0)
    for c in range(CELLS):
        uc = uint32(c)
        if COUNTS:
            total = uint32(total + unit_count(board, uc, get_value(vals, lane, uc)) - ONE)
        else:
            total = uint32(total + conflicts_at(board, lane, get_value(vals, lane, uc), uc))
    return np.int64(total >> ONE)


@njit
def place(vals, board, lane, c, dd):
    """Put 0-based digit dd in cell c (whose bit is clear in every bitboard)."""
    set_value(vals, lane, c, dd)
    if COUNTS:
        count_cell(board, c, dd, np.uint8(1))
        return
    desc = cell_masks(c)
    wr, bit = desc[0], desc[1]
    at = uint32(uint32(dd * UWR) + wr)
    board[bx(at, lane)] = WT(board[bx(at, lane)] | bit)


@njit
def chain_u64(s0, s1, draws):
    """A chain's next move draw and its RNG state after: xoroshiro128+'s next output, or
    (COUNTER) Philox draw s1 of key s0, s1 counting the chain's proposals (anneal/philox.py);
    on the CPU (TABLE) taken from `draws`, which holds the DRAWS draws around s1 (prime_draws)
    and is refilled at each multiple of DRAWS."""
    if COUNTER:
        if TABLE:
            at = uint64(uint64(s1) & uint64(DRAWS - 1))
            if at == uint64(0):
                fill_draws(s0, s1, draws)
            return draws[at], s0, uint64(uint64(s1) + uint64(1))
        return philox_u64_unhoisted(s0, s1), s0, uint64(uint64(s1) + uint64(1))
    return next_u64(s0, s1)


@njit
def prime_draws(s0, s1, draws):
    """COUNTER on the CPU: `draws` holds the DRAWS draws from s1 rounded down to a multiple."""
    if COUNTER and TABLE:
        fill_draws(s0, uint64(uint64(s1) & ~uint64(DRAWS - 1)), draws)


@njit
def fill_below(s0, s1, f, n):
    """The index (0..n-1) of free cell f's digit among its n candidates at a trial's start, and
    the RNG state after: xoroshiro128+'s next draw, or (COUNTER) the Philox fill draw of cell f
    keyed by the proposals made so far, which leaves the state as it was."""
    if COUNTER:
        return uint64(philox_fill_below(s0, s1, f, n)), s0, s1
    return uniform_below(s0, s1, n)


@njit
def start_trial(
    vals, board, lane, given_vals, given_board, init_cells, ninit, cand, ncand, box_cells,
    nbox, pu, box_missing, s0, s1,
):  # fmt: skip
    """A fresh random state for the move's search space. Returns (cost, s0, s1).

    Sirdey and candidate moves: every free cell uniform among its candidates (all N digits
    for Sirdey's move). Box swap: each box's missing digits shuffled into its free cells.
    """
    if LINEAR:
        rows_to_linear(given_board, board)
    elif COUNTS:
        counts_from_values(given_vals, board)
    else:
        for i in range(NWROW):
            board[bx(i, lane)] = given_board[i]
    if PACKED:
        for i in range(VWROW):
            vals[vx(i, lane)] = uint32(0)
    for c in range(CELLS):  # free cells hold 0 here and get a digit below
        set_value(vals, lane, uint32(c), uint32(uint32(given_vals[c]) - ONE) & VMASK)
    if SWAP:
        for b in range(N):
            nb = nbox_at(nbox, pu, b)
            for j in range(nb):
                cell = uint32(box_at(box_cells, pu, b, j))
                set_value(vals, lane, cell, uint32(box_missing[b, j]) - ONE)
            for j in range(nb - 1, 0, -1):  # Fisher-Yates over the box's free cells
                i, s0, s1 = uniform_below(s0, s1, j + 1)
                a = uint32(box_at(box_cells, pu, b, j))
                z = uint32(box_at(box_cells, pu, b, i))
                va = get_value(vals, lane, a)
                set_value(vals, lane, a, get_value(vals, lane, z))
                set_value(vals, lane, z, va)
        for f in range(ninit):
            c = uint32(init_cells[f])
            desc = cell_masks(c)
            wr, bit = desc[0], desc[1]
            at = uint32(uint32(get_value(vals, lane, c) * UWR) + wr)
            board[bx(at, lane)] = WT(board[bx(at, lane)] | bit)
    else:
        for f in range(ninit):
            c = uint32(init_cells[f])
            j, s0, s1 = fill_below(s0, s1, f, ncand[c])
            place(vals, board, lane, c, uint32(cand[c, j]) - ONE)
    return full_cost(vals, board, lane), s0, s1


@njit
def new_digit(field, c, old, cand, ncand):
    """The new digit of a one-cell move from a 12-bit field of the draw: one of the N - 1
    others (Sirdey) or of the cell's candidates other than the old digit (candidate move)."""
    if CANDS:
        j = uint32(uint32(field * uint32(uint32(ncand[c]) - ONE)) >> uint32(12))
        new = uint32(uint32(cand[c, j]) - ONE)
        if TABLE:  # CPU: both loads, then a select, where a branch on the draw mispredicts
            after = uint32(uint32(cand[c, uint32(j + ONE)]) - ONE)
            return after if new >= old else new
        if new >= old:
            new = uint32(uint32(cand[c, uint32(j + ONE)]) - ONE)
        return new
    new = uint32(uint32(field * NM1) >> uint32(12))
    return uint32(new + ONE) if new >= old else new


@njit
def draw_cell(lo, move_cells, pu, unmove):
    """The move-list entry the low 20 bits of a draw pick: a one-cell move's cell, a box swap's
    box."""
    site = uint32(uint32(uint32(lo & uint32(0xFFFFF)) * unmove) >> uint32(20))
    return uint32(move_at(move_cells, pu, site))


@njit
def cell_draw(lo, vals, board, lane, move_cells, pu, unmove, cand, ncand, nconf):
    """A one-cell move from the low word of a draw: (cell, its digit, the new digit); the cell
    one of the nconf in conflict for the focused move (focus_cell)."""
    c = focus_cell(lo, board, lane, move_cells, pu, unmove, nconf)
    old = get_value(vals, lane, c)
    field = uint32(uint32(lo >> uint32(20)) & uint32(0xFFF))
    return c, old, new_digit(field, c, old, cand, ncand)


@njit
def second_choice(hi, board, lane, c, old, new, gain, cand, ncand):
    """TWO_CHOICE: the better of two candidate draws for cell c's new digit. The second digit
    comes from the low 12 bits of the draw's high word, as the first came from 12 bits of its
    low word; the fewer conflicts win, the first on a tie. Returns (new digit, its conflicts,
    acceptance word): the high word with those 12 bits cleared (compared with the threshold
    as a one-cell move's word is). Other moves: the first draw and the whole high word.

        bit 63 ......... 44 | 43 .. 32 | 31 .. 20 | 19 ......... 0
            acceptance (20) | digit 2  | digit 1  | cell (20)
    """
    if not TWO_CHOICE:
        return new, gain, hi
    other = new_digit(uint32(hi & uint32(0xFFF)), c, old, cand, ncand)
    more = conflicts(board, lane, other, cell_masks(c))
    better = more < gain
    return (
        other if better else new,
        more if better else gain,
        uint32(hi & uint32(0xFFFFF000)),
    )


@njit
def wshr(x, s):
    """A bitboard word x >> s (s below the word's width)."""
    if WIDE:
        return WT(WT(x) >> WT(s))
    return shr32(x, s)


@njit
def nth_bit(x, k):
    """Index of set bit k (0 = the lowest) of word x, k < popc(x): a binary search on the
    popcounts of the low halves (5 steps for 32-bit words, 6 for 64-bit ones), each step's
    choice taken by arithmetic so that no step branches. DEPOSIT (the CPU runner's 64-bit words
    on x86 with BMI2): bit k of x is where pdep puts bit k of 1 << k."""
    if DEPOSIT:
        low = deposit64(uint64(uint64(1) << uint64(k)), uint64(x))
        return uint32(popcount64(uint64(low - uint64(1))))
    pos = uint32(0)
    half = uint32(32 if WIDE else 16)
    for _ in range(6 if WIDE else 5):
        low = popc(WT(x & WT(wshl(WT(1), half) - WT(1))))
        up = uint32(k >= low)
        step = uint32(half * up)
        k = uint32(k - uint32(low * up))
        x = wshr(x, step)
        pos = uint32(pos + step)
        half = uint32(half >> ONE)
    return pos


@njit
def cell_of(w, b):
    """The cell at bit b of bitboard word w."""
    if LINEAR:
        return uint32(uint32(uint32(w) << uint32(6)) + b)
    return uint32(uint32(uint32(w) * UNR) + b)


@njit
def focus_count(board, lane):
    """FOCUS: cells in the conflict set (board words FOFF .. FOFF + WR - 1)."""
    total = uint32(0)
    for w in range(WR):
        total = uint32(total + popc(WT(board[bx(FOFF + w, lane)])))
    return total


@njit
def focus_select(board, lane, k):
    """FOCUS: cell k of the conflict set, counted from word 0's lowest bit (k < focus_count):
    every word read and the one holding cell k kept by arithmetic, so that nothing branches
    and a warp's lanes stay together. LINEAR (the CPU runner's bitboards): the words are read
    up to the one holding cell k and no further, the same cell."""
    kk = uint32(k)
    if LINEAR:
        w = uint32(0)
        x = WT(board[bx(FOFF, lane)])
        held = uint32(popc(x))
        while kk >= held:
            kk = uint32(kk - held)
            w = uint32(w + ONE)
            x = WT(board[bx(FOFF + w, lane)])
            held = uint32(popc(x))
        return cell_of(w, nth_bit(x, kk))
    wsel = uint32(0)
    xsel = WT(0)
    base = uint32(0)  # set cells in the words before the one holding cell k
    before = uint32(0)  # set cells in the words before word w
    for w in range(WR):
        x = WT(board[bx(FOFF + w, lane)])
        after = uint32(before + popc(x))
        hit = uint32(uint32(kk >= before) & uint32(kk < after))
        wsel = uint32(wsel + uint32(uint32(w) * hit))
        xsel = WT(xsel | WT(x * WT(hit)))
        base = uint32(base + uint32(before * hit))
        before = after
    return cell_of(wsel, nth_bit(xsel, uint32(kk - base)))


@njit
def focus_cell(lo, board, lane, move_cells, pu, unmove, nconf):
    """The cell the low 20 bits of a draw pick: one of the nconf cells in conflict (FOCUS), or
    a move-list entry (draw_cell) when none is or the move is not focused."""
    if FOCUS:
        if nconf > 0:
            k = uint32(uint32(uint32(lo & uint32(0xFFFFF)) * nconf) >> uint32(20))
            return focus_select(board, lane, k)
    return draw_cell(lo, move_cells, pu, unmove)


@njit
def focus_init(vals, board, lane, move_cells, pu, nmove):
    """FOCUS: the movable-cell bitboard (words MOFF..) from the move list and the conflict set
    (words FOFF..) from the grid: each movable cell a peer of which holds its digit."""
    for w in range(WR):
        board[bx(FOFF + w, lane)] = WT(0)
        board[bx(MOFF + w, lane)] = WT(0)
    for f in range(nmove):
        c = uint32(move_at(move_cells, pu, f))
        desc = cell_masks(c)
        at = bx(MOFF + desc[0], lane)
        board[at] = WT(board[at] | desc[1])
        if conflicts(board, lane, get_value(vals, lane, c), desc) > 0:
            at = bx(FOFF + desc[0], lane)
            board[at] = WT(board[at] | desc[1])


# The CPU runner's focused-two loop inlines it: 41.0 -> 47.3 M proposals/s on forum puzzles, one
# thread, the same trajectories (benchmarks/results/move_rate.md). The focused move keeps the
# call (inlined there too, one trial ran 54 -> 47 M/s), and the kernels leave inlining to NVVM:
# their PTX is unchanged.
@njit(inline="always" if TABLE and TWO_CHOICE else "never")
def focus_update(board, lane, c, old, new, gain, desc, take):
    """FOCUS: the conflict set after cell c (descriptor desc) went from digit old to new, the
    bitboards already updated (nothing changes unless take). Peers holding new join the set
    (movable ones), c is in it iff gain > 0, and each peer holding old that was in it stays iff
    a peer of its own still holds old. Returns the change in the set's size, as a uint32."""
    change = uint32(0)
    for w in range(WR):
        mask = peer_mask(desc, w)
        at = bx(FOFF + w, lane)
        cb = WT(board[at])
        add = WT(
            WT(board[bx(uint32(new * UWR) + uint32(w), lane)] & mask) & board[bx(MOFF + w, lane)]
        )
        add = WT(add & WT(~cb)) if take else WT(0)
        drop = WT(WT(board[bx(uint32(old * UWR) + uint32(w), lane)] & mask) & cb)
        drop = drop if take else WT(0)
        cb = WT(cb | add)
        change = uint32(change + popc(add))
        while drop != WT(0):
            drop, low, b = pop_lowest(drop)
            z = cell_of(w, b)
            if conflicts_at(board, lane, old, z) == 0:
                cb = WT(cb ^ low)
                change = uint32(change - ONE)
        board[at] = cb
    at = bx(FOFF + desc[0], lane)
    cb = WT(board[at])
    was = WT(cb & desc[1]) != WT(0)
    now = (gain > 0) if take else was
    board[at] = WT(WT(cb & WT(~desc[1])) | (desc[1] if now else WT(0)))
    return uint32(uint32(change + uint32(now)) - uint32(was))


@njit
def cell_gain_loss(board, lane, c, old, new):
    """(conflicts of the new digit, of the old one, word, bit) of a one-cell move."""
    if COUNTS:
        gain = unit_count(board, c, new)
        return gain, uint32(unit_count(board, c, old) - ONE), uint32(0), WT(0)
    desc = cell_masks(c)
    return conflicts(board, lane, new, desc), conflicts(board, lane, old, desc), desc[0], desc[1]


@njit
def cell_apply(vals, board, lane, c, old, new, wr, bit):
    """Make a one-cell move."""
    if COUNTS:
        count_cell(board, c, old, np.uint8(255))
        count_cell(board, c, new, np.uint8(1))
        set_value(vals, lane, c, new)
        return
    flip(board, lane, old, wr, bit)
    flip(board, lane, new, wr, bit)
    set_value(vals, lane, c, new)


@njit
def swap_draw(r1, vals, lane, move_cells, pu, unmove, box_cells, nbox):
    """A box swap from one draw: (cell a, cell z, their digits).

        bit 63 ....... 44 | 43 .. 32 | 31 .. 20 | 19 ....... 0
          acceptance (20) |  z (12)  |  a (12)  | box site (20)

    The box is move_cells[site] as a one-cell move draws its cell; a is one of the box's nb free
    cells, z one of the nb - 1 others (relative bias <= nb / 2**12); swap_accept_word() gives
    the acceptance word.
    """
    lo = uint32(r1)
    hi = uint32(r1 >> uint64(32))
    b = draw_cell(lo, move_cells, pu, unmove)  # the move list holds boxes here
    nb = uint32(nbox_at(nbox, pu, b))
    ia = uint32(uint32(uint32(lo >> uint32(20)) * nb) >> uint32(12))
    ib = uint32(uint32(uint32(hi & uint32(0xFFF)) * uint32(nb - ONE)) >> uint32(12))
    if ib >= ia:
        ib = uint32(ib + ONE)
    a = uint32(box_at(box_cells, pu, b, ia))
    z = uint32(box_at(box_cells, pu, b, ib))
    return a, z, get_value(vals, lane, a), get_value(vals, lane, z)


@njit
def swap_accept_word(r1):
    """The acceptance word of a box swap's draw: its top 20 bits, as a uint32 whose low 12 bits
    are 0 (the bits below drew z), compared with the threshold as a one-cell move's word is."""
    return uint32(uint32(r1 >> uint64(32)) & uint32(0xFFFFF000))


@njit
def swap_gain_loss(board, lane, a, z, va, vz):
    """(conflicts after, conflicts before + 2, words and bits of a and z) of a box swap: a and
    z share a box, so each sees the other holding the digit it would receive (the 2)."""
    da = cell_masks(a)
    dz = masks_in_box(z, da) if BOX_IN_WORD and not TABLE else cell_masks(z)
    gain = uint32(conflicts(board, lane, vz, da) + conflicts(board, lane, va, dz))
    loss = uint32(conflicts(board, lane, va, da) + conflicts(board, lane, vz, dz) + uint32(2))
    return gain, loss, da[0], da[1], dz[0], dz[1]


@njit
def swap_apply(vals, board, lane, a, z, va, vz, wa, bita, wz, bitz):
    """Make a box swap."""
    flip(board, lane, va, wa, bita)
    flip(board, lane, vz, wa, bita)
    flip(board, lane, vz, wz, bitz)
    flip(board, lane, va, wz, bitz)
    set_value(vals, lane, a, vz)
    set_value(vals, lane, z, va)


# CPU: without reference counting (the plateau allocates nothing). A call with counting updates
# a dozen reference counts a plateau, on arrays that every thread shares.
@(njit(_nrt=False) if TABLE else njit)
def plateau(vals, board, thr, lane, move_cells, pu, nmove, cand, ncand, box_cells, nbox,
            start, moves, cost, best, s0, s1):  # fmt: skip
    """Moves start+1 .. `moves` of a plateau; stops at cost 0.

    Returns (cost, best, moves done in the plateau, accepted, s0, s1, rare, r1, cells in the
    conflict set: FOCUS, kept move by move; 0 for the other moves). Every index
    and count is a 32-bit unsigned integer, so the move loop carries no 64-bit arithmetic beyond
    the RNG and no negative-index wraparound code. A move is accepted when its conflicts after
    (gain) are at most those before (loss), else when the draw's high word is below
    thr[gain - loss]. Where the table stops short of TMAX (CAPPED, kernels), a move with
    gain - loss > THR_CAP (more than THR_CAP conflicts for one cell: practically never) stops
    the loop undecided with `rare` set and its draw r1; rare_move() decides it with its
    exact threshold and the plateau resumes, so the loop holds no threshold arithmetic and
    every decision equals the full table's.
    """
    accepted = uint32(0)
    m = uint32(start)
    unmove = uint32(nmove)
    umoves = uint32(moves)
    ucost = uint32(cost)
    ubest = uint32(best)
    rare = False
    r1 = uint64(0)
    nconf = focus_count(board, lane) if FOCUS else uint32(0)
    draws = draw_buffer()  # COUNTER on the CPU: Philox draws computed DRAWS at a time
    prime_draws(s0, s1, draws)
    while m < umoves:
        m = uint32(m + ONE)
        r1, s0, s1 = chain_u64(s0, s1, draws)
        if SWAP and BRANCH_FREE:
            # kernels: one path for every lane (a rejected swap writes back what it read)
            a, z, va, vz = swap_draw(r1, vals, lane, move_cells, pu, unmove, box_cells, nbox)
            gain, loss, wa, bita, wz, bitz = swap_gain_loss(board, lane, a, z, va, vz)
            if CAPPED and gain > uint32(loss + uint32(THR_CAP)):
                rare = True
                break
            take = (gain <= loss) | (swap_accept_word(r1) < thr_at(thr, lane, gain, loss))
            ma = bita if take else WT(0)
            mz = bitz if take else WT(0)
            if BOX_IN_WORD:  # a box lies in one word: wz == wa, one toggle a digit
                flip(board, lane, va, wa, WT(ma | mz))
                flip(board, lane, vz, wa, WT(ma | mz))
            else:
                flip(board, lane, va, wa, ma)
                flip(board, lane, vz, wa, ma)
                flip(board, lane, vz, wz, mz)
                flip(board, lane, va, wz, mz)
            set_value(vals, lane, a, vz if take else va)
            set_value(vals, lane, z, va if take else vz)
            ucost = uint32(ucost + (uint32(gain - loss) if take else uint32(0)))
            accepted = uint32(accepted + uint32(take))
            ubest = min(ubest, ucost)
            if ucost == 0:
                break
            continue
        elif SWAP:
            a, z, va, vz = swap_draw(r1, vals, lane, move_cells, pu, unmove, box_cells, nbox)
            gain, loss, wa, bita, wz, bitz = swap_gain_loss(board, lane, a, z, va, vz)
            hi = swap_accept_word(r1)
        elif BRANCH_FREE:
            # kernels: one path for every lane (a rejected move writes back what it read)
            lo = uint32(r1)
            c = focus_cell(lo, board, lane, move_cells, pu, unmove, nconf)
            at = uint32(c >> CPW_SHIFT)
            shift = uint32(uint32(c & CPW_MASK) * VBITS)
            word = uint32(vals[vx(at, lane)])
            old = uint32(shr32(word, shift) & VMASK)
            new = new_digit(uint32(uint32(lo >> uint32(20)) & uint32(0xFFF)), c, old, cand, ncand)
            gain, loss, wr, bit = cell_gain_loss(board, lane, c, old, new)
            new, gain, hi = second_choice(
                uint32(r1 >> uint64(32)), board, lane, c, old, new, gain, cand, ncand
            )
            if CAPPED and gain > uint32(loss + uint32(THR_CAP)):
                rare = True
                break
            take = (gain <= loss) | (hi < thr_at(thr, lane, gain, loss))
            mask = bit if take else WT(0)
            flip(board, lane, old, wr, mask)
            flip(board, lane, new, wr, mask)
            keep = uint32(word & uint32(~shl32(VMASK, shift)))
            vals[vx(at, lane)] = uint32(keep | shl32(new if take else old, shift))
            if FOCUS:
                change = focus_update(board, lane, c, old, new, gain, cell_masks(c), take)
                nconf = uint32(nconf + change)
            ucost = uint32(ucost + (uint32(gain - loss) if take else uint32(0)))
            accepted = uint32(accepted + uint32(take))
            ubest = min(ubest, ucost)
            if ucost == 0:
                break
            continue
        else:
            c, old, new = cell_draw(
                uint32(r1), vals, board, lane, move_cells, pu, unmove, cand, ncand, nconf
            )
            gain, loss, wr, bit = cell_gain_loss(board, lane, c, old, new)
            new, gain, hi = second_choice(
                uint32(r1 >> uint64(32)), board, lane, c, old, new, gain, cand, ncand
            )
        if gain > loss:
            if CAPPED and uint32(gain - loss) > uint32(THR_CAP):
                rare = True
                break
            if hi >= thr[thr_ix(uint32(gain - loss), lane)]:
                continue
        if SWAP:
            swap_apply(vals, board, lane, a, z, va, vz, wa, bita, wz, bitz)
        else:
            cell_apply(vals, board, lane, c, old, new, wr, bit)
            if FOCUS:
                nconf = uint32(
                    nconf + focus_update(board, lane, c, old, new, gain, cell_masks(c), True)
                )
        ucost = uint32(uint32(ucost + gain) - loss)
        accepted = uint32(accepted + ONE)
        ubest = min(ubest, ucost)  # branch-free: cost moves up and down all the time
        if ucost == 0:
            break
    return np.int32(ucost), np.int32(ubest), m, accepted, s0, s1, rare, r1, nconf


@njit
def rare_move(vals, board, thr, lane, move_cells, pu, nmove, cand, ncand, box_cells, nbox, r1):
    """Decide and make the move that stopped a plateau (rare): the state is as it was drawn,
    so r1 gives the same move again. Returns (cost change, 1 if accepted else 0); an
    accepted move raises the cost (gain - loss > THR_CAP)."""
    unmove = uint32(nmove)
    if SWAP:
        a, z, va, vz = swap_draw(r1, vals, lane, move_cells, pu, unmove, box_cells, nbox)
        gain, loss, wa, bita, wz, bitz = swap_gain_loss(board, lane, a, z, va, vz)
        if swap_accept_word(r1) < exact_threshold(thr, lane, uint32(gain - loss)):
            swap_apply(vals, board, lane, a, z, va, vz, wa, bita, wz, bitz)
            return np.int32(gain - loss), uint32(1)
    else:
        nconf = focus_count(board, lane) if FOCUS else uint32(0)  # as when it was drawn
        c, old, new = cell_draw(
            uint32(r1), vals, board, lane, move_cells, pu, unmove, cand, ncand, nconf
        )
        gain, loss, wr, bit = cell_gain_loss(board, lane, c, old, new)
        new, gain, hi = second_choice(
            uint32(r1 >> uint64(32)), board, lane, c, old, new, gain, cand, ncand
        )
        if hi < exact_threshold(thr, lane, uint32(gain - loss)):
            cell_apply(vals, board, lane, c, old, new, wr, bit)
            if FOCUS:
                focus_update(board, lane, c, old, new, gain, cell_masks(c), True)
            return np.int32(gain - loss), uint32(1)
    return np.int32(0), uint32(0)
