"""Runs of consecutive positions laid end to end: the cells of many segments or rectangles as
flat arrays, with no Python loop over them.

    lengths  [2, 0, 3]           a run each (a segment's cells, a rectangle's area)
    owner    [0, 0, 2, 2, 2]     the run each position belongs to
    offset   [0, 1, 0, 1, 2]     its place within that run
"""

from __future__ import annotations

import numpy as np


def run_offsets(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(owner, offset), int64 each of sum(lengths) entries: for every position of every run
    (lengths >= 0, in order), the run's index and the position's place within it."""
    lengths = np.asarray(lengths, dtype=np.int64)
    owner = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    starts = np.cumsum(lengths) - lengths
    return owner, np.arange(int(lengths.sum()), dtype=np.int64) - starts[owner]
