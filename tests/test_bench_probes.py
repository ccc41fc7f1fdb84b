"""The focused chain of bench_focus_9x9, an experiment's own logic: the same seed gives the same
run, and the focused choice meets more solutions than the uniform one."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from benchmarks.bench_focus_9x9 import chain
from cpu_reference.sudoku.batch import logic_fill

DATA = Path(__file__).parent / "data"


def lloyd_amos_9x9():
    """inst9x9_40_1 (Lloyd & Amos, 40 % filled): 35 cells left after the deductions."""
    for line in (DATA / "general_9x9_head.tsv").read_text().splitlines():
        name, _, values = line.split("\t")
        if name == "inst9x9_40_1":
            filled, masks = logic_fill(np.array(values.split(","), np.uint8), 3)
            return filled.astype(np.int64), masks
    raise AssertionError("inst9x9_40_1 missing")


def test_chain_meets_solutions_replays_and_focus_helps():
    """Fixed seed: both cell choices meet solutions (at least 20 in 400,000 proposals), the same
    seed gives the same run, and choosing only conflicted cells (q = 1) meets more than the
    uniform choice; with a stale conflict set the focused chain would stall instead."""
    filled, masks = lloyd_amos_9x9()
    uniform = chain(filled, masks, 0.5, 0.0, 20_000, 400_000, 1)
    focused = chain(filled, masks, 0.5, 1.0, 20_000, 400_000, 1)
    assert uniform[1] == focused[1] == 400_000
    assert uniform[0] >= 20 and focused[0] > uniform[0]
    assert chain(filled, masks, 0.5, 1.0, 20_000, 400_000, 1) == focused


def test_heat_bath_chain_replays_and_meets_more_per_proposal():
    """Fixed seed, T = 0.5: the heat bath on a focused cell replays with the same seed and meets
    more solutions in 400,000 proposals than the focused Metropolis choice (1,237 against 890
    when written)."""
    filled, masks = lloyd_amos_9x9()
    metropolis = chain(filled, masks, 0.5, 1.0, 20_000, 400_000, 1)
    heat = chain(filled, masks, 0.5, 1.0, 20_000, 400_000, 1, True)
    assert heat[1] == 400_000
    assert heat[0] > metropolis[0] >= 20
    assert chain(filled, masks, 0.5, 1.0, 20_000, 400_000, 1, True) == heat
