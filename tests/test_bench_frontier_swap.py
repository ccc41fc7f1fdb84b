"""benchmarks.bench_frontier_swap: box-permutation chains keep their invariants and solve."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import bench_frontier_swap as bs
from benchmarks.bench_frontier import checked
from benchmarks.frontier_instances import make_instances


def _invariants(chain, order: int) -> int:
    """Every box a permutation, every free cell on a candidate, the givens kept, the counts,
    the cost and the conflict set those of the grid recounted from scratch."""
    filled, masks, movable, _, _, _, grid, row_count, col_count, cset, where = chain
    N = order * order
    boxes = grid.reshape(order, order, order, order).transpose(0, 2, 1, 3).reshape(N, N)
    assert all(sorted(box) == list(range(1, N + 1)) for box in boxes.tolist())
    assert np.all((masks >> (grid - 1)) & 1)
    assert np.array_equal(grid[filled > 0], filled[filled > 0])
    rows, cols = np.zeros_like(row_count), np.zeros_like(col_count)
    cost = bs.count_lines(N, grid, rows, cols)
    assert np.array_equal(rows, row_count) and np.array_equal(cols, col_count)
    expected = {c for c in np.flatnonzero(movable)
                if rows[c // N, grid[c]] > 1 or cols[c % N, grid[c]] > 1}  # fmt: skip
    assert set(cset[1 : 1 + cset[0]].tolist()) == expected
    assert all(cset[1 + where[c]] == c for c in expected)
    return cost


def test_a_chain_keeps_its_boxes_candidates_cost_and_conflict_set_exact():
    """16x16 at 45 %: after plateaus of swaps (restarts included) the chain's state is the one
    recounted from its grid, and state[0] is that grid's cost."""
    inst = make_instances([4], [45], 1, 7)[0]
    chain, state = bs.new_chain(inst.cells, 4, seed=3)
    _invariants(chain, 4)
    params = np.array([0.7, 0.55, 3.0, 0.6, 1.0])  # trials of 3 plateaus: fresh grids too
    for _ in range(6):
        bs.run_plateaus(4, 5, chain, state, params)
        cost = _invariants(chain, 4)
        assert state[0] == cost
    assert state[3] >= 4 and state[4] > 0


def test_swap_chains_solve_a_16x16_instance_and_the_verifier_passes_it():
    """A solved outcome carries a grid the verifier passes (bench_frontier.checked)."""
    inst = make_instances([4], [45], 1, 7)[0]
    outcome = bs.swap_solve(inst.cells, 4, bs.SCHEDULES[0], 1, 60.0, seed=1)
    row = checked(outcome, inst, 60.0)
    assert row["solved"] and row["verified"], row["status"]
    assert outcome["proposals"] > 0


def test_a_contradiction_starts_no_chain_and_a_bad_schedule_is_refused():
    """Givens that deduction refutes give no chain (and an unsolved outcome); a schedule
    without its five fields is a ValueError naming the form."""
    cells = make_instances([3], [50], 1, 7)[0].cells.copy()
    free = np.flatnonzero(cells == 0)
    row = free[0] // 9
    given = [c for c in range(row * 9, row * 9 + 9) if cells[c]][0]
    cells[free[0]] = cells[given]  # the same digit twice in a row
    assert bs.new_chain(cells, 3, seed=0) is None
    assert bs.swap_solve(cells, 3, bs.SCHEDULES[0], 1, 1.0, seed=0)["status"] == "unsolved"
    with pytest.raises(ValueError, match="T_HI:T_LO:K:T_REHEAT:REHEATS"):
        bs.swap_solve(cells, 3, "0.5:0.3", 1, 1.0, seed=0)


def test_the_report_names_each_method_with_its_solved_and_rate():
    """render: one row a method, solved of instances, the solved seconds, M proposals/s."""
    rows = [{"solved": True, "seconds": 2.0, "proposals": 4_000_000},
            {"solved": False, "seconds": 8.0, "proposals": 16_000_000}]  # fmt: skip
    result = {
        "machine": {"cpu": "X", "cores": 2, "load_average_at_start": 0.5, "date": "D"},
        "args": {"order": 6, "fill": 50, "seed": 2, "count": 2, "limit": 8.0, "chains": 2},
        "table": [
            {
                "method": "swap 0.7:0.55:3000:0.6:3",
                "solved": 1,
                "instances": 2,
                "times": [2.0],
                "rows": rows,
            }
        ],  # fmt: skip
        "command": "python -m benchmarks.bench_frontier_swap",
    }
    text = bs.render(result)
    assert "| swap 0.7:0.55:3000:0.6:3 | 1/2 | 2 | 2.0 |" in text
    assert "training instances" in text and "36x36 at 50 %" in text
