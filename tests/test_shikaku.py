"""Shikaku: formats, verifier, exact cover, generator, annealing."""

import numpy as np
import pytest

from cpu_reference import shikaku as S
from cpu_reference import shikaku_generate as SG
from cpu_reference import shikaku_ilp as SI
from cpu_reference.errors import InputError

# A 5x4 puzzle and its only solution (rectangles per clue in reading order).
GRID = "3...2\n..9..\n....6\n....."
SOLUTION = [[0, 0, 1, 3], [0, 3, 1, 2], [1, 0, 3, 3], [1, 3, 3, 2]]


def test_game_id_round_trip_and_tatham_encoding():
    p = S.parse_grid(GRID)
    gid = S.to_game_id(p)
    assert gid == "5x4:3c2b9f6e"
    assert np.array_equal(S.parse_game_id(gid).grid, p.grid)
    # adjacent numbers are separated by '_', params after WxH are ignored
    q = S.parse("3x1e4:1_2a")
    assert q.grid.tolist() == [[1, 2, 0]]


def test_adjacent_numbers_and_spaced_grid():
    p = S.parse_game_id("3x2:2_1c3")
    assert p.grid.tolist() == [[2, 1, 0], [0, 0, 3]]
    assert S.to_game_id(p) == "3x2:2_1c3"
    big = S.parse_grid("12 . . . . .\n. . . . . .")
    assert big.grid[0, 0] == 12 and big.width == 6


def test_verifier_accepts_solution_and_rejects_faults():
    p = S.parse_grid(GRID)
    assert S.verify(p, SOLUTION) == (True, "ok")
    bad = [list(r) for r in SOLUTION]
    bad[0] = [0, 0, 3, 1]  # area right, but overlaps clue 9's rectangle
    assert not S.verify(p, bad)[0]
    assert not S.verify(p, SOLUTION[:3])[0]
    wrong_area = [list(r) for r in SOLUTION]
    wrong_area[1] = [0, 3, 2, 2]
    assert "area" in S.verify(p, wrong_area)[1]


def test_solve_move_and_text():
    p = S.parse_grid(GRID)
    move = S.solve_move(p, SOLUTION)
    assert move[0] == "S" and len(move) == 1 + 4 * 4 + 3 * 5
    # row 0: edges between x-1 and x for x = 1..4: only between columns 2 and 3
    assert move[1:5] == "0010"
    text = S.solution_text(p, SOLUTION)
    assert text.splitlines()[0] == "+--+--+--+--+--+"


def test_candidates_counts_and_pruning():
    p = S.parse_grid(GRID)
    cand, start = S.candidates(p)
    # clue 3 at (0, 0): 1x3 and 3x1 inside the grid
    assert start[1] - start[0] == 2
    pc, ps = S.candidates(p, pruned=True)
    assert len(pc) < len(cand)
    qc, qs = S.propagate(p, pc, ps)
    assert np.all(np.diff(qs) == 1)  # this small puzzle is decided by propagation alone


def test_ilp_solves_and_uniqueness():
    p = S.parse_grid(GRID)
    res = SI.solve_ilp(p)
    assert res["status"] == "optimal"
    assert S.verify(p, res["rects"])[0]
    assert SI.is_unique(p) is True
    two = S.parse_grid("2.\n.2")  # two ways to split a 2x2 square
    assert SI.is_unique(two) is False


def test_ilp_reports_no_solution():
    p = S.parse_grid("3.3\n...")  # each 3 fits only in row 0, which holds both clues
    res = SI.solve_ilp(p)
    assert res["status"] == "infeasible" and res["rects"] is None


@pytest.mark.parametrize("size", [4, 9, 16, 25])
def test_generator_is_seeded_and_valid(size):
    a, sol_a = SG.generate(size, size, np.random.default_rng(7))
    b, sol_b = SG.generate(size, size, np.random.default_rng(7))
    assert np.array_equal(a.grid, b.grid) and sol_a == sol_b
    assert S.verify(a, sol_a)[0]
    res = SI.solve_ilp(a)
    assert S.verify(a, res["rects"])[0]


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("5x4:3c2b9f6f", "more than"),  # one cell too many
        ("5x4:3c2b9f6d", "cells"),  # one cell short
        ("5x4:3c2b9f6!e", "unknown character"),
        ("5x4:3c2b9f5e", "sum"),  # areas sum to 19
        ("x4:3c2b9f6e", "WxH"),
        ("3...2\n..9.\n....6", "line 2"),
        ("3..x2\n..9..\n....6\n.....", "unknown cell"),
    ],
)
def test_bad_input_one_line_error(text, fragment):
    with pytest.raises(InputError) as err:
        S.parse(text)
    msg = str(err.value)
    assert fragment in msg and "\n" not in msg
