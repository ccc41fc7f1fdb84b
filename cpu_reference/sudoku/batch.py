"""A batch of Sudoku puzzles of one order and their chains, as the flat arrays the runners share.

Glossary: p puzzle, g chain (g = p * cpp + i), cpp chains per puzzle, c cell, b box, j index in
a list, f index into a puzzle's list of free cells.

Per-puzzle arrays (besides the givens, drawn in rules.py's docstring):

    init_cells[p, f]    int16  free cells, filled at the start of every trial; ninit[p] of them
    move_cells[p, f]    int16  what a move draws from; nmove[p] of them:
                               sirdey: every free cell; candidate and focused: free cells
                               with >= 2 candidates; box-swap: boxes (not cells) with >= 2
                               free cells
    cand[p, c, j]       uint8  candidate digits of cell c, ascending; ncand[p, c] of them
                               (sirdey and box-swap: 1..N; candidate, focused: digits no
                               given of the cell's row, column or box holds, all N if none
                               is left)
    box_cells[p, b, j]  int16  free cells of box b; nbox[p, b] of them
    box_missing[p, b, j] uint8 digits box b's givens lack, as many as its free cells

Rows of the per-chain arrays are padded to whole 64-byte cache lines and the arrays aligned on
one, so chains run by different CPU cores never write to the same cache line.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numba
import numpy as np

from cpu_reference.anneal.fixed_point import exp_table
from cpu_reference.anneal.philox import counter_states
from cpu_reference.anneal.stream_jump import StreamCursor
from cpu_reference.anneal.threads import over_chains
from cpu_reference.sudoku import rules
from cpu_reference.sudoku.exact import CONTRADICTION, propagate_many
from cpu_reference.sudoku.layout import layout
from cpu_reference.sudoku.packing import cell_word_bit, packing
from cpu_reference.sudoku.schedules import Schedule

# The movable cells a move's proposal needs (_fill_puzzle's `shape`, from its declaration):
CELLS_ANY = 0  # free cells, every digit
CELLS_CANDIDATES = 1  # free cells and their candidates
BOXES = 2  # boxes with two free cells or more (a box swap)
EXP_TABLE = exp_table()  # the fixed-point exp factors every runner hands to the chains


@dataclass
class SudokuBatch:
    """Host arrays of one batch; a backend copies them in, runs slices, and copies them back."""

    order: int
    cpp: int
    seed: int
    schedule: Schedule
    move: int
    given_vals: np.ndarray
    given_board: np.ndarray
    init_cells: np.ndarray
    ninit: np.ndarray
    move_cells: np.ndarray
    nmove: np.ndarray
    cand: np.ndarray
    ncand: np.ndarray
    box_cells: np.ndarray
    nbox: np.ndarray
    box_missing: np.ndarray
    solved: np.ndarray
    vals: np.ndarray
    boards: np.ndarray
    best_vals: np.ndarray
    thr: np.ndarray
    ctr: np.ndarray
    rng: np.ndarray
    trial_cap: int  # trials of a puzzle over all its chains (chain_template.drive_chain)
    exp_table: np.ndarray

    @property
    def puzzles(self) -> int:
        """Number of puzzles in the batch."""
        return self.given_vals.shape[0]

    @property
    def chains(self) -> int:
        """Number of chains over all puzzles."""
        return self.vals.shape[0]

    def chain_slice(self, p: int) -> slice:
        """The chains of puzzle p."""
        return slice(p * self.cpp, (p + 1) * self.cpp)

    def puzzle_arrays(self) -> tuple:
        """The per-puzzle arrays in the order the runners take them (rules.PUZZLE_ARRAYS)."""
        return tuple(getattr(self, name) for name in rules.PUZZLE_ARRAYS)

    def grid(self, g: int) -> np.ndarray:
        """uint8[cells]: chain g's current grid (1-based digits)."""
        return self.vals[g, : self.given_vals.shape[1]]


@cache
def _board_bits(order: int) -> tuple[np.ndarray, np.ndarray]:
    """(word index within a digit's bitboard, the cell's bit as a word) of every cell."""
    pk = packing(order)
    words = np.zeros(pk.cells, dtype=np.int64)
    bits = np.zeros(pk.cells, dtype=pk.word_dtype)
    for c in range(pk.cells):
        w, bit = cell_word_bit(order, c)
        words[c] = w
        bits[c] = pk.word_dtype(1) << pk.word_dtype(bit)
    return words, bits


@numba.njit(cache=True)
def _fill_puzzle(
    grid, units, cell_units, N, WR, words, bits, shape, mask_row, has_mask,
    board, init_cells, move_cells, cand, ncand, box_cells, nbox, box_missing,
):  # fmt: skip
    """One puzzle's tables into its rows (fresh zeros; cand 1..N and ncand N by default), the
    move list as `shape` says (CELLS_ANY, CELLS_CANDIDATES or BOXES: table_shape).

    Returns (ninit, nmove). Same content as the module docstring says, cell and digit lists
    ascending.
    """
    cells = grid.shape[0]
    ninit = 0
    for c in range(cells):
        d = grid[c]
        if d == 0:
            init_cells[ninit] = c
            ninit += 1
        elif d <= N:
            board[(d - 1) * WR + words[c]] |= bits[c]
    present = np.zeros(N + 1, dtype=np.bool_)
    for b in range(N):
        present[:] = False
        k = 0
        for j in range(N):
            c = units[2 * N + b, j]
            d = grid[c]
            if d == 0:
                box_cells[b, k] = c
                k += 1
            elif d <= N:
                present[d] = True
        nbox[b] = k
        m = 0
        for d in range(1, N + 1):
            if not present[d]:
                box_missing[b, m] = d
                m += 1
    nmove = 0
    if shape == BOXES:
        for b in range(N):
            if nbox[b] >= 2:
                move_cells[nmove] = b
                nmove += 1
        return ninit, nmove
    for f in range(ninit):
        c = init_cells[f]
        if shape == CELLS_CANDIDATES:
            present[:] = False
            if has_mask:
                for d in range(N):
                    present[d + 1] = (mask_row[c] >> d) & 1 == 0
            else:
                for u in range(3):
                    for j in range(N):
                        d = grid[units[cell_units[c, u], j]]
                        if d <= N:
                            present[d] = True
            k = 0
            for d in range(1, N + 1):
                if not present[d]:
                    k += 1
            if k > 0:  # no candidate left: the cell keeps all N (the chain meets the conflict)
                k = 0
                for d in range(1, N + 1):
                    if not present[d]:
                        cand[c, k] = d
                        k += 1
                ncand[c] = k
            if ncand[c] < 2:
                continue
        move_cells[nmove] = c
        nmove += 1
    return ninit, nmove


def table_shape(move: int) -> int:
    """The movable cells the move of this code proposes among: BOXES for a box swap,
    CELLS_CANDIDATES for a move that draws candidates, else CELLS_ANY."""
    proposal = rules.proposal(move)
    if proposal.swap:
        return BOXES
    return CELLS_CANDIDATES if proposal.candidates else CELLS_ANY


def puzzle_tables(
    puzzles: np.ndarray,
    order: int,
    move: int,
    masks: np.ndarray | None = None,
    has_mask: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """The per-puzzle arrays of `puzzles` (uint8[P, cells]) for a move (see module docstring).

    masks (int64[P, cells], bit d - 1 = digit d allowed), when given, replace the candidates the
    candidate move derives from the givens (see logic_fill); has_mask (bool[P]) says which rows
    of masks hold (default: all of them).
    """
    lay = layout(order)
    pk = packing(order)
    puzzles = np.ascontiguousarray(puzzles, dtype=np.uint8)
    count, N = puzzles.shape[0], lay.N
    t = {
        "given_vals": puzzles,
        "given_board": np.zeros((count, pk.NW), dtype=pk.word_dtype),
        "init_cells": np.zeros((count, lay.cells), dtype=np.int16),
        "ninit": np.zeros(count, dtype=np.int32),
        "move_cells": np.zeros((count, lay.cells), dtype=np.int16),
        "nmove": np.zeros(count, dtype=np.int32),
        "cand": np.tile(np.arange(1, N + 1, dtype=np.uint8), (count, lay.cells, 1)),
        "ncand": np.full((count, lay.cells), N, dtype=np.int32),
        "box_cells": np.zeros((count, N, N), dtype=np.int16),
        "nbox": np.zeros((count, N), dtype=np.int32),
        "box_missing": np.zeros((count, N, N), dtype=np.uint8),
    }
    if masks is None:
        masks = np.zeros((count, lay.cells), dtype=np.int64)
        has_mask = np.zeros(count, dtype=np.bool_)
    else:
        masks = np.ascontiguousarray(masks, dtype=np.int64).reshape(count, lay.cells)
        has_mask = np.ones(count, np.bool_) if has_mask is None else np.asarray(has_mask, bool)
    words, bits = _board_bits(order)
    _fill_puzzles(
        puzzles, lay.units, lay.cell_units, N, pk.WR, words, bits, table_shape(move), masks,
        has_mask, *(t[name] for name in rules.PUZZLE_ARRAYS[1:]),
    )  # fmt: skip
    return t


@numba.njit(cache=True, nogil=True)  # nogil: rows run in threads (gpu_anneal.host_cores)
def _fill_puzzles(
    puzzles, units, cell_units, N, WR, words, bits, shape, masks, has_mask,
    board, init_cells, ninit, move_cells, nmove, cand, ncand, box_cells, nbox, box_missing,
):  # fmt: skip
    """_fill_puzzle on every row (the tables' rows fresh as puzzle_tables makes them)."""
    for p in range(puzzles.shape[0]):
        ninit[p], nmove[p] = _fill_puzzle(
            puzzles[p], units, cell_units, N, WR, words, bits, shape, masks[p], has_mask[p],
            board[p], init_cells[p], move_cells[p], cand[p], ncand[p], box_cells[p], nbox[p],
            box_missing[p],
        )  # fmt: skip


def make_batch(
    puzzles: np.ndarray,
    order: int,
    schedule: Schedule,
    cpp: int,
    seed: int,
    trial_cap: int = 2**62,
    first_chain: int = 0,
    move: int = rules.MOVE_SIRDEY,
) -> SudokuBatch:
    """Arrays for `puzzles` (uint8[P, cells], 0 blank) with cpp chains each, seeded like the GPU.

    Chain g draws stream first_chain + g of the seed: the state create_xoroshiro128p_states(
    first_chain + chains, seed) gives thread first_chain + g (any first_chain, a spare chain's
    past 2**40 included: anneal/stream_jump.py's StreamCursor), or where the chains draw from Philox
    (rules.counter_based) the key of that stream (anneal/philox.py); so a batch can be cut into
    pieces without changing any trajectory.
    trial_cap: the trials each puzzle may start over its cpp chains, dealt round-robin (chain
    i of a puzzle takes trial_cap // cpp, one more when i < trial_cap % cpp).
    """
    lay = layout(order)
    pk = packing(order)
    puzzles = np.ascontiguousarray(puzzles, dtype=np.uint8).reshape(-1, lay.cells)
    tables = puzzle_tables(puzzles, order, move)
    chains = puzzles.shape[0] * cpp
    word_bytes = np.dtype(pk.word_dtype).itemsize
    ctr = _zeros_aligned((chains, _pad(rules.N_COUNTERS, 8)), np.int64)
    ctr[:, rules.C_PLATEAU] = -1
    ctr[:, rules.C_BEST_VALS_COST] = np.iinfo(np.int64).max
    rng = _zeros_aligned((chains, 8), np.uint64)
    if rules.counter_based(order, move):
        rng[:, :2] = counter_states(seed, first_chain, chains)
    else:
        rng[:, :2] = StreamCursor(seed).states(first_chain, chains)
    return SudokuBatch(
        order=order,
        cpp=cpp,
        seed=seed,
        schedule=schedule,
        move=move,
        **tables,
        solved=np.full(puzzles.shape[0], rules.NOT_SOLVED, dtype=np.int64),
        vals=_zeros_aligned((chains, _pad(lay.cells, 64)), np.uint8),
        boards=_zeros_aligned((chains, _pad(pk.NW, 64 // word_bytes)), pk.word_dtype),
        best_vals=_zeros_aligned((chains, _pad(lay.cells, 64)), np.uint8),
        thr=_zeros_aligned((chains, _pad(rules.max_delta(order, move) + 1, 16)), np.uint32),
        ctr=ctr,
        rng=rng,
        trial_cap=int(trial_cap),
        exp_table=EXP_TABLE,
    )


def run_slice_cpu(batch: SudokuBatch, budget: int, stop_on_solved: bool = True, model=None) -> None:
    """Advance every chain of the batch by up to `budget` plateaus on the calling thread's numba
    threads (cpu_reference.anneal.threads), in place, with `model` (a rules.model(); default:
    the CPU runner's, rules.cpu_model)."""
    m = model or rules.cpu_model(batch.order, batch.move)
    args = (
        batch.vals,
        batch.boards,
        batch.best_vals,
        batch.thr,
        batch.ctr,
        batch.rng,
        batch.solved,
        batch.cpp,
        batch.exp_table,
        *batch.puzzle_arrays(),
        *rules.schedule_args(batch.schedule),
        batch.trial_cap,
        int(budget),
        bool(stop_on_solved),
    )
    over_chains(m.run_chains_cpu, batch.vals.shape[0], args)


def _pad(count: int, multiple: int) -> int:
    return -(-count // multiple) * multiple


def _zeros_aligned(shape: tuple, dtype) -> np.ndarray:
    """Zeros whose first byte starts a 64-byte cache line."""
    size = int(np.prod(shape)) * np.dtype(dtype).itemsize
    raw = np.zeros(size + 64, dtype=np.uint8)
    start = -raw.ctypes.data % 64
    return raw[start : start + size].view(dtype).reshape(shape)


def load_puzzle(
    batch: SudokuBatch,
    p: int,
    cells: np.ndarray | None,
    states: np.ndarray,
    masks: np.ndarray | None = None,
) -> None:
    """Put a new puzzle in slot p with fresh chains (states: uint64[cpp, 2]); None empties it.

    An empty slot's chains are marked exhausted, so runners skip them. masks: candidate masks
    of the puzzle's cells (see puzzle_tables). One slot of load_puzzles / empty_puzzles.
    """
    slots = np.array([p], np.int64)
    if cells is None:
        empty_puzzles(batch, slots)
        return
    lay = layout(batch.order)
    rows = None if masks is None else masks.reshape(1, lay.cells)
    tables = puzzle_tables(cells.reshape(1, lay.cells), batch.order, batch.move, rows)
    load_puzzles(batch, slots, tables, states)


def chains_of(batch: SudokuBatch, slots: np.ndarray) -> np.ndarray:
    """int64[k * cpp]: the chains of slots (each slot's cpp chains in order)."""
    return (np.asarray(slots, np.int64)[:, None] * batch.cpp + np.arange(batch.cpp)).ravel()


def load_puzzles(batch: SudokuBatch, slots: np.ndarray, tables: dict, states: np.ndarray) -> None:
    """Slots take new puzzles with fresh chains: row j of every table (puzzle_tables) goes to
    slot slots[j], whose chains start from states[j * cpp : (j + 1) * cpp] (uint64[k*cpp, 2])."""
    for name in rules.PUZZLE_ARRAYS:
        getattr(batch, name)[slots] = tables[name]
    batch.solved[slots] = rules.NOT_SOLVED
    chains = chains_of(batch, slots)
    _fresh_counters(batch, chains)
    batch.rng[chains, :2] = states


def empty_puzzles(batch: SudokuBatch, slots: np.ndarray) -> None:
    """Slots left empty: blank tables, and their chains marked exhausted so runners skip them."""
    for name, table in _blank_tables(batch.order, batch.move).items():
        getattr(batch, name)[slots] = table
    batch.solved[slots] = rules.NOT_SOLVED
    chains = chains_of(batch, slots)
    _fresh_counters(batch, chains)
    batch.ctr[chains, rules.C_STATUS] = rules.EXHAUSTED


def _fresh_counters(batch: SudokuBatch, chains: np.ndarray) -> None:
    """Counters and best grids of chains as a new puzzle starts them."""
    batch.ctr[chains] = 0
    batch.ctr[chains, rules.C_PLATEAU] = -1
    batch.ctr[chains, rules.C_BEST_VALS_COST] = np.iinfo(np.int64).max
    batch.best_vals[chains] = 0


@cache
def _blank_tables(order: int, move: int) -> dict[str, np.ndarray]:
    """The tables of an empty slot (a grid of blanks): one row of each."""
    return puzzle_tables(np.zeros((1, layout(order).cells), np.uint8), order, move)


def logic_fill(cells: np.ndarray, order: int) -> tuple[np.ndarray, np.ndarray | None]:
    """The exact solver's rules to a fixed point: (cells with every deduced digit, masks).

    masks (int64[cells], bit d - 1 = digit d still possible) narrow what the candidate move
    draws. A contradiction returns the puzzle unchanged and no masks: annealing then reports
    it unsolved with its best cost, as for any puzzle without a solution.
    """
    filled, masks, ok = logic_fill_many(np.asarray(cells)[None], order)
    return (filled[0], masks[0]) if ok[0] else (np.asarray(cells), None)


def logic_fill_many(cells: np.ndarray, order: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """logic_fill of every row of cells (uint8[k, cells]) at once: (filled, masks, ok), ok[j]
    False where row j meets a contradiction (its filled row is the puzzle unchanged and its
    masks row is not to be used)."""
    lay = layout(order)
    cells = np.asarray(cells, np.uint8).reshape(-1, lay.cells)
    full = np.array((1 << lay.N) - 1, np.uint64).view(np.int64)  # bit 63 is digit 64
    digits = cells.astype(np.int64)
    masks = np.where(cells > 0, np.left_shift(1, np.maximum(digits - 1, 0)), full)
    ok = propagate_many(masks, order) != CONTRADICTION
    return singles_filled(cells, masks, ok), masks, ok


def singles_filled(cells: np.ndarray, masks: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """A copy of cells (uint8[k, cells]) with the digit of every one-candidate mask written in,
    on the rows where ok (bool[k]) alone; the other rows stay as given."""
    single = ((masks & (masks - 1)) == 0) & ok[:, None]
    filled = cells.copy()
    filled[single] = (np.log2(masks[single].view(np.uint64)).astype(np.int64) + 1).astype(np.uint8)
    return filled


def flat_rows(array: np.ndarray) -> np.ndarray:
    """A (rows, a, b) array seen as (rows, a * b), sharing its memory."""
    return array.reshape(array.shape[0], -1)
