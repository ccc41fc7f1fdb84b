"""The Shikaku integer program's time limit counts its building, and an answer is read back
in time in proportion to the grid."""

import time

import numpy as np
from scipy.optimize import OptimizeResult

from benchmarks.bench_million_cells import puzzles
from cpu_reference.shikaku import ilp as SI
from cpu_reference.shikaku import puzzle as S


def test_shikaku_reading_back_an_answer_is_proportional(monkeypatch):
    """A 500x500 grid of ones (250,000 clues, each its own cell): the answer HiGHS returns is
    turned into rectangles in array operations (one binary search a clue took seconds)."""
    side = 500
    p = S.parse(puzzles(side)["shikaku ones"][1], "ones")

    def answer(seconds, c, **kwargs):
        return OptimizeResult(status=0, x=np.ones(len(c)))

    monkeypatch.setattr(SI, "milp_within", answer)
    start = time.perf_counter()
    res = SI.solve_ilp(p, time_limit=60.0)
    wall = time.perf_counter() - start
    assert res["status"] == "optimal"
    assert res["rects"][:2] == [[0, 0, 1, 1], [0, 1, 1, 1]] and len(res["rects"]) == side**2
    assert res["rects"][-1] == [side - 1, side - 1, 1, 1]
    assert wall < 3.0, f"{wall:.2f} s to build and read back a {side}x{side} exact cover"


def test_shikaku_limit_spent_while_building_stops_before_highs(monkeypatch):
    """A limit spent by the candidates: time_limit, the matrix not built, HiGHS not started."""
    p = S.parse(puzzles(200)["shikaku dominoes"][1], "dominoes")

    def never(*args, **kwargs):
        raise AssertionError("the program was built or run past the limit")

    monkeypatch.setattr(SI, "_matrix", never)
    monkeypatch.setattr(SI, "milp_within", never)
    assert SI.solve_ilp(p, time_limit=1e-9)["status"] == "time_limit"
