"""A batch of Sudoku puzzles of one order and their chains, as the flat arrays the runners share.

Glossary: p puzzle, g chain (g = p * cpp + i), cpp chains per puzzle, c cell, f free-cell index.
The array layouts are drawn in sudoku_anneal's docstring.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cpu_reference import sudoku_anneal as sa
from cpu_reference.rng import init_states
from cpu_reference.schedules import Schedule
from cpu_reference.sudoku_layout import layout


@dataclass
class SudokuBatch:
    """Host arrays of one batch; a backend copies them in, runs slices, and copies them back."""

    order: int
    cpp: int
    seed: int
    schedule: Schedule
    given_vals: np.ndarray
    given_board: np.ndarray
    free: np.ndarray
    nfree: np.ndarray
    solved: np.ndarray
    vals: np.ndarray
    boards: np.ndarray
    best_vals: np.ndarray
    thr: np.ndarray
    ctr: np.ndarray
    rng: np.ndarray
    trial_cap: int

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


def make_batch(
    puzzles: np.ndarray,
    order: int,
    schedule: Schedule,
    cpp: int,
    seed: int,
    trial_cap: int = 2**62,
    first_chain: int = 0,
) -> SudokuBatch:
    """Arrays for `puzzles` (uint8[P, cells], 0 blank) with cpp chains each, seeded like the GPU.

    Chain g draws the stream that create_xoroshiro128p_states(first_chain + chains, seed) gives
    thread first_chain + g, so a batch can be cut into pieces without changing any trajectory.
    """
    lay = layout(order)
    puzzles = np.ascontiguousarray(puzzles, dtype=np.uint8).reshape(-1, lay.cells)
    count = puzzles.shape[0]
    given_board = np.zeros((count, lay.N, lay.W), dtype=np.uint64)
    free = np.zeros((count, lay.cells), dtype=np.int16)
    nfree = np.zeros(count, dtype=np.int32)
    for p in range(count):
        cells_free = np.flatnonzero(puzzles[p] == 0)
        nfree[p] = cells_free.size
        free[p, : cells_free.size] = cells_free
        for c in np.flatnonzero(puzzles[p]):
            d = int(puzzles[p, c])
            given_board[p, d - 1, c >> 6] |= np.uint64(1) << np.uint64(c & 63)
    chains = count * cpp
    # Rows padded to whole 64-byte cache lines: chains on different cores never share a line.
    vals_row = _pad(lay.cells, 64)
    board_rows = next(rows for rows in range(lay.N, lay.N + 9) if rows * lay.W % 8 == 0)
    thr_row = _pad(lay.peer_count + 1, 16)
    ctr = _zeros_aligned((chains, _pad(sa.N_COUNTERS, 8)), np.int64)
    ctr[:, sa.C_PLATEAU] = -1
    ctr[:, sa.C_BEST_VALS_COST] = np.iinfo(np.int64).max
    rng = _zeros_aligned((chains, 8), np.uint64)
    rng[:, :2] = init_states(first_chain + chains, seed)[first_chain:]
    return SudokuBatch(
        order=order,
        cpp=cpp,
        seed=seed,
        schedule=schedule,
        given_vals=puzzles,
        given_board=given_board,
        free=free,
        nfree=nfree,
        solved=np.zeros(count, dtype=np.int32),
        vals=_zeros_aligned((chains, vals_row), np.uint8),
        boards=_zeros_aligned((chains, board_rows, lay.W), np.uint64),
        best_vals=_zeros_aligned((chains, vals_row), np.uint8),
        thr=_zeros_aligned((chains, thr_row), np.uint32),
        ctr=ctr,
        rng=rng,
        trial_cap=int(trial_cap),
    )


def run_slice_cpu(batch: SudokuBatch, budget: int, stop_on_solved: bool = True) -> None:
    """Advance every chain of the batch by up to `budget` plateaus on all CPU cores, in place."""
    m = sa.model(batch.order)
    m.run_slice_cpu(
        batch.vals,
        batch.boards,
        batch.best_vals,
        batch.thr,
        batch.ctr,
        batch.rng,
        batch.given_vals,
        batch.given_board,
        batch.free,
        batch.nfree,
        layout(batch.order).peers,
        batch.solved,
        batch.cpp,
        *sa.schedule_args(batch.schedule),
        batch.trial_cap,
        int(budget),
        bool(stop_on_solved),
    )


def _pad(count: int, multiple: int) -> int:
    return -(-count // multiple) * multiple


def _zeros_aligned(shape: tuple, dtype) -> np.ndarray:
    """Zeros whose first byte starts a 64-byte cache line."""
    size = int(np.prod(shape)) * np.dtype(dtype).itemsize
    raw = np.zeros(size + 64, dtype=np.uint8)
    start = -raw.ctypes.data % 64
    return raw[start : start + size].view(dtype).reshape(shape)
