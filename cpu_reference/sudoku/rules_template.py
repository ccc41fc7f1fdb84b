"""Template of the jitted Sudoku rules: rules.model() writes it out per (order, move, variant).

Every name in capitals, `n` and `move` is a compile-time constant that rules.model() defines at
the marked line below, which makes the generated file a plain module: numba caches its compiled
functions on disk (`cache=True`), so a second process starts solving at once instead of compiling.
The rules themselves are documented in rules.py; this file is their only source.
"""

# ruff: noqa: F401, F821  (constants, and the names they use, come in at the marked line)

import numpy as np
from numba import njit, prange, uint32, uint64

from cpu_reference.anneal.bits import popcount32, popcount64
from cpu_reference.anneal.fixed_point import exp_neg, next_beta
from cpu_reference.anneal.rng import next_u64, uniform_below
from cpu_reference.sudoku.packing import peer_tables
from cpu_reference.sudoku.schedules import KIND_GEOMETRIC

# <constants>


@njit(inline="always")
def ix(i, lane):
    """Element of word i of the chain in column `lane` of a flat state array."""
    if LANES == 1:
        return uint32(i)
    return uint32(uint32(i) * ULANES + uint32(lane))


@njit(inline="always")
def popc(x):
    """Population count of one bitboard word, as a uint32."""
    if WIDE:
        return uint32(popcount64(x))
    return popcount32(x)


@njit(inline="always")
def get_value(vals, lane, c):
    """0-based digit of cell c."""
    if not PACKED:
        return uint32(uint32(vals[ix(c, lane)]) - ONE)
    word = uint32(vals[ix(uint32(c >> CPW_SHIFT), lane)])
    return uint32(word >> uint32((c & CPW_MASK) * VBITS)) & VMASK


@njit(inline="always")
def set_value(vals, lane, c, dd):
    """Store 0-based digit dd in cell c."""
    if not PACKED:
        vals[ix(c, lane)] = np.uint8(dd + ONE)
        return
    at = uint32(c >> CPW_SHIFT)
    shift = uint32((c & CPW_MASK) * VBITS)
    keep = uint32(vals[ix(at, lane)]) & uint32(~uint32(VMASK << shift))
    vals[ix(at, lane)] = uint32(keep | uint32(dd << shift))


@njit(inline="always")
def computed_masks(c):
    """(own word, cell bit, own-word mask, column mask, box mask, first, end band word)."""
    r = uint32(c // UN)
    k = uint32(c - uint32(r * UN))
    wr = uint32(r // UR)
    sh = uint32(uint32(r - uint32(wr * UR)) * UN)
    bit = WT(WT(1) << WT(uint32(sh + k)))
    col = WT(COLPAT << WT(k))
    boxrow = WT(BOXROW << WT(uint32(Un * uint32(k // Un))))
    if BOX_IN_WORD:
        band_row = uint32(uint32(uint32(r // Un) * Un) - uint32(wr * UR))
        box = WT(WT(boxrow * BANDPAT) << WT(uint32(band_row * UN)))
        b0 = uint32(0)
        b1 = uint32(0)
    else:
        box = WT(boxrow * COLPAT)
        b0 = uint32(uint32(r // Un) * uint32(BAND_WORDS))
        b1 = uint32(b0 + uint32(BAND_WORDS))
    own = WT(WT(WT(ROWMASK << WT(sh)) | col | box) & WT(~bit))
    return wr, bit, own, col, box, b0, b1


@njit(inline="always")
def flip(board, lane, at, bit):
    """Toggle one cell's bit in bitboard word `at`."""
    board[ix(at, lane)] = WT(board[ix(at, lane)] ^ bit)


@njit(inline="always")
def cell_masks(c):
    """Cell c's descriptor (own word, cell bit, ...): the peer masks computed from its row
    and column (kernels), or (own word, cell bit, c) with the masks in a table (CPU)."""
    if TABLE:
        return uint32(CELL_WORD[c]), WT(CELL_BIT[c]), uint32(c)
    return computed_masks(c)


@njit(inline="always")
def conflicts(board, lane, dd, desc):
    """Peers of the cell (by its descriptor) holding 0-based digit dd."""
    base = uint32(dd * UWR)
    total = uint32(0)
    for w in range(WR):
        uw = uint32(w)
        if TABLE:
            mask = WT(PEER_TABLE[uint32(desc[2] * UWR + uw)])
        elif uw == desc[0]:
            mask = desc[2]
        elif uw >= desc[5] and uw < desc[6]:
            mask = WT(desc[3] | desc[4])
        else:
            mask = desc[3]
        total = uint32(total + popc(WT(board[ix(uint32(base + uw), lane)] & mask)))
    return total


@njit(cache=True)
def peer_words(c, out):
    """out[w] = cell c's peer mask in word w, as the move loop sees it (for tests)."""
    desc = cell_masks(uint32(c))
    for w in range(WR):
        uw = uint32(w)
        if TABLE:
            out[w] = WT(PEER_TABLE[uint32(desc[2] * UWR + uw)])
        elif uw == desc[0]:
            out[w] = desc[2]
        elif uw >= desc[5] and uw < desc[6]:
            out[w] = WT(desc[3] | desc[4])
        else:
            out[w] = desc[3]
    return desc[0], desc[1]


@njit(inline="always")
def conflicts_at(board, lane, dd, c):
    """Peers of cell c holding 0-based digit dd."""
    return conflicts(board, lane, dd, cell_masks(c))


@njit(inline="always")
def fill_thresholds(thr, lane, beta, exp_table):
    """thr[d] = exp(-beta d) 2**32 for d = 1..TMAX, integers only (see fixed_point)."""
    t1 = uint64(exp_neg(beta, exp_table))
    t = t1
    thr[ix(1, lane)] = uint32(t1)
    for d in range(2, TMAX + 1):
        t = (t * t1) >> uint64(32)
        thr[ix(d, lane)] = uint32(t)


@njit(inline="always")
def full_cost(vals, board, lane):
    """c(w): conflicting peer pairs, from scratch."""
    total = uint32(0)
    for c in range(CELLS):
        uc = uint32(c)
        total = uint32(total + conflicts_at(board, lane, get_value(vals, lane, uc), uc))
    return np.int64(total >> ONE)


@njit(inline="always")
def place(vals, board, lane, c, dd):
    """Put 0-based digit dd in cell c (whose bit is clear in every bitboard)."""
    set_value(vals, lane, c, dd)
    desc = cell_masks(c)
    wr, bit = desc[0], desc[1]
    at = uint32(uint32(dd * UWR) + wr)
    board[ix(at, lane)] = WT(board[ix(at, lane)] | bit)


@njit(inline="always")
def start_trial(
    vals, board, lane, given_vals, given_board, init_cells, ninit, cand, ncand, box_cells,
    nbox, box_missing, s0, s1,
):  # fmt: skip
    """A fresh random state for the move's search space. Returns (cost, s0, s1).

    Sirdey and candidate moves: every free cell uniform among its candidates (all N digits
    for Sirdey's move). Box swap: each box's missing digits shuffled into its free cells.
    """
    for i in range(NWROW):
        board[ix(i, lane)] = given_board[i]
    if PACKED:
        for i in range(VWROW):
            vals[ix(i, lane)] = uint32(0)
    for c in range(CELLS):  # free cells hold 0 here and get a digit below
        set_value(vals, lane, uint32(c), uint32(uint32(given_vals[c]) - ONE) & VMASK)
    if move == MOVE_BOX_SWAP:
        for b in range(N):
            nb = nbox[b]
            for j in range(nb):
                set_value(vals, lane, uint32(box_cells[b, j]), uint32(box_missing[b, j]) - ONE)
            for j in range(nb - 1, 0, -1):  # Fisher-Yates over the box's free cells
                i, s0, s1 = uniform_below(s0, s1, j + 1)
                a = uint32(box_cells[b, j])
                z = uint32(box_cells[b, i])
                va = get_value(vals, lane, a)
                set_value(vals, lane, a, get_value(vals, lane, z))
                set_value(vals, lane, z, va)
        for f in range(ninit):
            c = uint32(init_cells[f])
            desc = cell_masks(c)
            wr, bit = desc[0], desc[1]
            at = uint32(uint32(get_value(vals, lane, c) * UWR) + wr)
            board[ix(at, lane)] = WT(board[ix(at, lane)] | bit)
    else:
        for f in range(ninit):
            c = uint32(init_cells[f])
            j, s0, s1 = uniform_below(s0, s1, ncand[c])
            place(vals, board, lane, c, uint32(cand[c, j]) - ONE)
    return full_cost(vals, board, lane), s0, s1


@njit(inline="always")
def plateau(vals, board, thr, lane, move_cells, nmove, cand, ncand, box_cells, nbox,
            moves, cost, best, s0, s1):  # fmt: skip
    """Up to `moves` moves; stops at cost 0. Returns (cost, best, done, accepted, s0, s1).

    Every index and count is a 32-bit unsigned integer, so the move loop carries no 64-bit
    arithmetic beyond the RNG and no negative-index wraparound code.
    """
    accepted = uint32(0)
    m = uint32(0)
    unmove = uint32(nmove)
    umoves = uint32(moves)
    while m < umoves:
        m = uint32(m + ONE)
        r, s0, s1 = next_u64(s0, s1)
        lo = uint32(r & uint64(0xFFFFFFFF))
        hi = uint32(r >> uint64(32))
        if move == MOVE_BOX_SWAP:
            b = uint32(move_cells[uint32((uint64(lo) * uint64(unmove)) >> uint64(32))])
            nb = uint32(nbox[b])
            ia = uint32((uint64(hi) * uint64(nb)) >> uint64(32))
            r, s0, s1 = next_u64(s0, s1)
            lo = uint32(r & uint64(0xFFFFFFFF))
            hi = uint32(r >> uint64(32))
            ib = uint32((uint64(lo) * uint64(nb - ONE)) >> uint64(32))
            if ib >= ia:
                ib = uint32(ib + ONE)
            a = uint32(box_cells[b, ia])
            z = uint32(box_cells[b, ib])
            va = get_value(vals, lane, a)
            vz = get_value(vals, lane, z)
            da = cell_masks(a)
            dz = cell_masks(z)
            wa, bita, wz, bitz = da[0], da[1], dz[0], dz[1]
            # a and z share a box: each sees the other holding the digit it would receive
            gain = conflicts(board, lane, vz, da) + conflicts(board, lane, va, dz)
            loss = conflicts(board, lane, va, da) + conflicts(board, lane, vz, dz)
            delta = np.int32(gain) - np.int32(loss) - np.int32(2)
            if delta <= 0 or hi < thr[ix(uint32(delta), lane)]:
                flip(board, lane, uint32(uint32(va * UWR) + wa), bita)
                flip(board, lane, uint32(uint32(vz * UWR) + wa), bita)
                flip(board, lane, uint32(uint32(vz * UWR) + wz), bitz)
                flip(board, lane, uint32(uint32(va * UWR) + wz), bitz)
                set_value(vals, lane, a, vz)
                set_value(vals, lane, z, va)
            else:
                continue
        else:
            site = uint32(uint32(uint32(lo & uint32(0xFFFFF)) * unmove) >> uint32(20))
            c = uint32(move_cells[site])
            old = get_value(vals, lane, c)
            field = uint32(uint32(lo >> uint32(20)) & uint32(0xFFF))
            if move == MOVE_CANDIDATE:
                j = uint32(uint32(field * uint32(uint32(ncand[c]) - ONE)) >> uint32(12))
                new = uint32(uint32(cand[c, j]) - ONE)
                if new >= old:
                    new = uint32(uint32(cand[c, uint32(j + ONE)]) - ONE)
            else:
                new = uint32(uint32(field * NM1) >> uint32(12))
                if new >= old:
                    new = uint32(new + ONE)
            desc = cell_masks(c)
            wr, bit = desc[0], desc[1]
            delta = np.int32(conflicts(board, lane, new, desc)) - np.int32(
                conflicts(board, lane, old, desc)
            )
            if delta <= 0 or hi < thr[ix(uint32(delta), lane)]:
                flip(board, lane, uint32(uint32(old * UWR) + wr), bit)
                flip(board, lane, uint32(uint32(new * UWR) + wr), bit)
                set_value(vals, lane, c, new)
            else:
                continue
        cost = np.int32(cost + delta)
        accepted = uint32(accepted + ONE)
        best = np.int32(min(best, cost))  # branch-free: cost moves up and down all the time
        if cost == 0:
            return cost, best, m, accepted, s0, s1
    return cost, best, m, accepted, s0, s1


def drive_chain(
    g, p, lane, vals, board, thr, best_vals, ctr, rng, solved, exp_table,
    given_vals, given_board, init_cells, ninit, move_cells, nmove, cand, ncand,
    box_cells, nbox, box_missing, settings,
):  # fmt: skip
    """Run chain g (of puzzle p) for up to `budget` plateaus.

    vals, board and thr are the chain's flat state arrays (column `lane`); the other
    arrays are the whole batch's. Starts trials as needed (trial_cap of them at most), ends a
    trial when beta passes the last plateau or after `stall` plateaus without a new best,
    stops at cost 0 (lowering solved[p] to its proposal count) or, when stop_on_solved, once
    its proposals reach solved[p]. settings = (kind, beta0, step, plateau_len,
    max_plateaus, stall, trial_cap, budget, stop_on_solved): one tuple, so that every call
    stays under Python's 30 positional arguments (above that it compiles to *args, which
    the compilers cannot inline).
    """
    kind, beta0, step, plateau_len, max_plateaus, stall, trial_cap, budget, stop_on_solved = (
        settings
    )
    # Only the values the plateau loop needs live in registers; the other counters are
    # updated in ctr once per plateau. Puzzle rows are taken where they are used.
    s0 = rng[g, 0]
    s1 = rng[g, 1]
    cost = np.int32(ctr[g, C_COST])
    best = np.int32(ctr[g, C_BEST])
    k = ctr[g, C_PLATEAU]
    beta = uint64(ctr[g, C_BETA])
    geometric = kind == KIND_GEOMETRIC
    ubeta0 = uint64(beta0)
    ustep = uint64(step)
    for _ in range(budget):
        if ctr[g, C_STATUS] != RUNNING:
            break
        if stop_on_solved and ctr[g, C_PROPOSALS] >= solved[p]:
            ctr[g, C_STATUS] = STOPPED
            break
        if k < 0:
            if ctr[g, C_TRIALS] >= trial_cap:
                ctr[g, C_STATUS] = EXHAUSTED
                break
            c0, s0, s1 = start_trial(
                vals, board, lane, given_vals[p], given_board[p], init_cells[p], ninit[p],
                cand[p], ncand[p], box_cells[p], nbox[p], box_missing[p], s0, s1,
            )  # fmt: skip
            cost = np.int32(c0)
            ctr[g, C_TRIALS] += 1
            k = 0
            beta = ubeta0
            best = cost
            ctr[g, C_LAST_IMPROVE] = 0
        if cost > 0 and nmove[p] > 0:
            fill_thresholds(thr, lane, beta, exp_table)
            prev_best = best
            cost, best, done, acc, s0, s1 = plateau(
                vals, board, thr, lane, move_cells[p], nmove[p], cand[p], ncand[p],
                box_cells[p], nbox[p], plateau_len, cost, best, s0, s1,
            )  # fmt: skip
            ctr[g, C_PROPOSALS] += done
            ctr[g, C_ACCEPTED] += acc
            if best < prev_best:
                ctr[g, C_LAST_IMPROVE] = k
        if cost < ctr[g, C_BEST_VALS_COST]:
            ctr[g, C_BEST_VALS_COST] = cost
            for c in range(CELLS):
                best_vals[g, c] = np.uint8(get_value(vals, lane, uint32(c)) + ONE)
        if cost == 0:
            ctr[g, C_STATUS] = SOLVED
            if ctr[g, C_PROPOSALS] < solved[p]:
                solved[p] = ctr[g, C_PROPOSALS]
            break
        k += 1
        beta = next_beta(geometric, beta, ustep)
        stalled = stall > 0 and k - ctr[g, C_LAST_IMPROVE] >= stall
        if k >= max_plateaus or stalled or nmove[p] == 0:
            k = -1
    ctr[g, C_COST] = cost
    ctr[g, C_BEST] = best
    ctr[g, C_PLATEAU] = k
    ctr[g, C_BETA] = np.int64(beta)
    rng[g, 0] = s0
    rng[g, 1] = s1


# Compiled twice from one source: called (CPU prange loop) and inlined (CUDA kernel, so that
# the compiler sees which address space the state arrays live in).
drive_chain_inlined = njit(inline="always")(drive_chain)
drive_chain = njit(cache=True)(drive_chain)


@njit(parallel=True, cache=True)
def run_slice_cpu(
    vals, boards, best_vals, thr, ctr, rng, solved, cpp, exp_table,
    given_vals, given_board, init_cells, ninit, move_cells, nmove, cand, ncand,
    box_cells, nbox, box_missing,
    kind, beta0, step, plateau_len, max_plateaus, stall, trial_cap, budget, stop_on_solved,
):  # fmt: skip
    """Every chain of the batch for up to `budget` plateaus, one chain per prange iteration."""
    settings = (
        kind,
        beta0,
        step,
        plateau_len,
        max_plateaus,
        stall,
        trial_cap,
        budget,
        stop_on_solved,
    )
    for g in prange(vals.shape[0]):
        drive_chain(
            g, g // cpp, 0, vals[g], boards[g], thr[g],
            best_vals, ctr, rng, solved, exp_table,
            given_vals, given_board, init_cells, ninit, move_cells, nmove, cand, ncand,
            box_cells, nbox, box_missing, settings,
        )  # fmt: skip
