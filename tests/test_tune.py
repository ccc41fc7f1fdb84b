"""Choosing the trial length for a number of chains."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gpu_anneal.tune import tts_parallel, tune


def test_tts_parallel_rounds_and_floor():
    """Few chains: ln(0.01)/ln(1-p)/K trials' time; many chains: one trial's time at least."""
    assert tts_parallel(1.0, 0.5, 1) == pytest.approx(math.log(0.01) / math.log(0.5))
    assert tts_parallel(1.0, 0.5, 2) == pytest.approx(math.log(0.01) / math.log(0.5) / 2)
    assert tts_parallel(2.0, 0.01, 10_000) == 2.0
    assert math.isinf(tts_parallel(1.0, 0.0, 8))


def test_tune_picks_the_fastest_measured_candidate():
    """On 4x4 puzzles a short schedule beats a slow-cooling one (about 0.3 ms against 35 ms a
    solve here: a gap that the timing noise of a loaded machine does not close); the table
    names both."""
    puzzles = [np.array([int(c) for c in text], np.uint8)
               for text in ("1000000000004000", "0030400000000020")]  # fmt: skip
    long = "geometric:t0=10,ratio=0.9999,t_final=0.05"
    short = "geometric:t0=1,ratio=0.99,t_final=0.05"
    result = tune(puzzles, 2, chains=2, candidates=(long, short), runs=3, time_limit=20)
    rows = {row["schedule"]: row["median_tts_parallel"] for row in result["table"]}
    assert set(rows) == {long, short}
    assert result["best"] == min(rows, key=rows.get)
    assert rows[short] < rows[long]
