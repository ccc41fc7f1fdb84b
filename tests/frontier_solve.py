"""A check the frontier experiments' tests share: their chains solve a small instance."""

from __future__ import annotations

import numpy as np

from benchmarks.frontier_instances import make_instances
from cpu_reference.sudoku.verify import verify_solution


def assert_solves_16x16(solve, setting: str) -> None:
    """solve(cells, order, setting, chains, limit, seed) with two chains solves a 16x16
    Lewis-style instance at 45 % within 60 s: a full grid, every unit holding each digit once,
    the givens kept."""
    inst = make_instances([4], [45], 1, 7)[0]
    outcome = solve(inst.cells, 4, setting, 2, 60.0, 1)
    assert outcome["status"] == "solved"
    assert verify_solution(np.array(outcome["solution"], np.uint8), 4, inst.cells) is None
