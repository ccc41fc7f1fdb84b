"""Failed-literal probing after the deduction rules, for sweeps that measure what it is worth.

Glossary:
    n       Sudoku order (box side); N = n * n digits
    c       cell index (row-major)
    v       a one-bit candidate mask (bit d - 1: digit d)
    masks   int64[N * N] candidate masks, as the exact solver keeps them

A probe sets cell c to one candidate v and runs the exact solver's rules (``propagate``); where
they reach a contradiction, v is no digit of any solution at c and leaves its mask. Every
candidate of every open cell is probed, the rules run again, and the round repeats until one
removes nothing (singleton consistency on the rules).

``probing_deduction()`` makes every run in its block deduce that way: it swaps the
``logic_fill_many`` that the CPU runner, the host cores and the pool import for one that probes
after the rules. It is a benchmark's switch, not an engine option.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

import cpu_reference.sudoku.batch as batch
import gpu_anneal.host_cores as host_cores
import gpu_anneal.persistent_pool as persistent_pool
from cpu_reference.sudoku.exact import CONTRADICTION, OPEN, propagate, propagate_many

_USERS = (batch, host_cores, persistent_pool)  # the modules that call logic_fill_many


def open_candidates(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(cells, bits): every candidate of every cell with two or more, one pair per candidate."""
    bits = masks.view(np.uint64)[:, None] & (np.uint64(1) << np.arange(64, dtype=np.uint64))
    open_cell = (masks & (masks - 1)) != 0
    cells, digits = np.nonzero((bits != 0) & open_cell[:, None])
    return cells, (np.uint64(1) << digits.astype(np.uint64)).view(np.int64)


def probe(masks: np.ndarray, order: int) -> int:
    """Remove from masks (changed in place) every candidate whose probe the rules contradict,
    round after round with the rules between, until a round removes nothing; the candidates
    removed. Stops early where the rules contradict or solve the grid."""
    removed = 0
    while True:
        cells, bits = open_candidates(masks)
        if cells.size == 0:
            return removed
        rows = np.repeat(masks[None], cells.size, axis=0)
        rows[np.arange(cells.size), cells] = bits
        refuted = propagate_many(rows, order) == CONTRADICTION
        if not refuted.any():
            return removed
        np.bitwise_and.at(masks, cells[refuted], ~bits[refuted])
        removed += int(refuted.sum())
        if propagate(masks, order) != OPEN:
            return removed


def _probed(fill):
    """logic_fill_many `fill` followed by probe() on every row it did not contradict."""

    def logic_fill_many(cells: np.ndarray, order: int):
        filled, masks, ok = fill(cells, order)
        for j in np.nonzero(ok)[0]:
            probe(masks[j], order)
            single = (masks[j] & (masks[j] - 1)) == 0
            digits = np.log2(masks[j][single].view(np.uint64)).astype(np.int64) + 1
            filled[j][single] = digits.astype(np.uint8)
        return filled, masks, ok

    return logic_fill_many


@contextmanager
def probing_deduction() -> Iterator[None]:
    """Within the block, deduction before annealing probes after the rules (probe())."""
    fill = batch.logic_fill_many
    probed = _probed(fill)
    for module in _USERS:
        module.logic_fill_many = probed
    try:
        yield
    finally:
        for module in _USERS:
            module.logic_fill_many = fill
