"""Sudoku's default --method auto (gpu_anneal.method_choice): the impasse chains at 25x25 to
64x64 on the cores (at 25x25 after the exact search, up to a few thousand branch values),
annealing at the smaller orders, on a card and wherever an option only annealing takes is
given; each record names the method that ran, and a chain replays."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from benchmarks.frontier_instances import make_instances
from cli.main import app
from cpu_reference.sudoku.format_writer import format_grid
from gpu_anneal import api, impasse_solver, kinds, method_choice
from gpu_anneal.resolve import resolve
from gpu_anneal.settings import SolveOptions

HARD_9X9 = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


def grid_25x25(fill: int = 30) -> str:
    """A Lewis-style 25x25 puzzle (a random solved grid, fill % of its cells kept), one line."""
    cells = np.asarray(make_instances([5], [fill], 1, 5)[0].cells, np.uint8)
    return format_grid(cells, 5, "line")


def test_the_rule_by_order_and_backend():
    assert [method_choice.method_for(n, card=False) for n in range(2, 9)] == [
        "anneal", "anneal", "anneal", "impasse", "impasse", "impasse", "impasse"]  # fmt: skip
    assert {method_choice.method_for(n, card=True) for n in range(2, 9)} == {"anneal"}
    assert method_choice.why(6, False) == "method auto: impasse at 36x36 on the cores"
    assert "auto" not in kinds.methods()  # a record names the method that ran


@pytest.mark.parametrize(
    ("given", "method"),
    [({}, "auto"), ({"backend": "cuda"}, "anneal"), ({"schedule": "auto"}, "anneal"),
     ({"t0": 0.5}, "anneal"), ({"propagate": False}, "anneal"), ({"batch": 2}, "anneal"),
     ({"move": "focused"}, "anneal"), ({"chains": 3, "seed": 1}, "auto")],
)  # fmt: skip
def test_an_annealing_option_or_a_card_pins_annealing(given, method):
    assert resolve(SolveOptions(**given)).method == method


def test_the_default_solves_each_order_by_its_method_in_input_order():
    """A 9x9, a 25x25 and a 9x9 in one input: annealing, the exact search (which solves this
    25x25 in 230 branch values, within EXACT_FIRST_NODES'), annealing, each record saying so
    and verified; the exact one's says the chains would have followed, and that uniqueness was
    not looked for."""
    text = "\n".join([HARD_9X9, grid_25x25(), HARD_9X9])
    results = api.solve(text, backend="cpu", chains=2, seed=3, time_limit=30)
    assert [r.method for r in results] == ["anneal", "exact", "anneal"]
    assert all(r.status == "solved" and r.verified for r in results)
    big = results[1]
    assert 0 < big.counts.nodes <= impasse_solver.exact_first_nodes(5, 30) and big.unique is None
    assert big.params.backend_choice.startswith("auto: the exact search first, up to 5,000")
    assert big.counts.proposals is None and big.counts.solving_chain is None


def test_past_its_branch_values_the_chains_take_over_and_replay(monkeypatch):
    """With one branch value the exact search ends without an answer on the 25x25 grid: the
    impasse chains solve it, the record counts that value and says so, and the chain replays
    alone to the same solution by default."""
    monkeypatch.setitem(impasse_solver.EXACT_FIRST_NODES, 5, ((None, 1),))
    text = "\n".join([HARD_9X9, grid_25x25(), HARD_9X9])
    results = api.solve(text, backend="cpu", chains=2, seed=3, time_limit=30)
    assert [r.method for r in results] == ["anneal", "impasse", "anneal"]
    assert all(r.status == "solved" and r.verified for r in results)
    big = results[1]
    assert big.counts.nodes == 1 and big.counts.proposals > 0
    assert "the exact search first, 1 branch value without an answer, then the impasse" in (
        big.params.backend_choice
    )
    again = api.replay(text, big.counts.solving_chain, chains=2, seed=3, time_limit=30)
    assert again.method == "impasse" and again.solution == big.solution
    assert again.counts.chain_proposals == big.counts.chain_proposals


def test_the_exact_search_first_goes_by_order_and_fill():
    """Every 25x25 puzzle gets the search; 36x36 and 49x49 ones from the fill their row names
    (the bound in); 64x64 and orders without a row none; the dry run names the band."""
    nodes = impasse_solver.exact_first_nodes
    assert [nodes(5, f) for f in (0, 45, 100)] == [5_000] * 3
    assert [nodes(6, f) for f in (50, 52.4, 52.5, 70)] == [0, 0, 5_000, 5_000]
    assert [nodes(7, f) for f in (55, 57.4, 57.5, 65)] == [0, 0, 5_000, 5_000]
    assert nodes(8, 60) == 0 and nodes(4, 50) == 0 and nodes(9, 50) == 0
    assert impasse_solver.exact_first_text(6) == (
        "those from 52.5 % filled first by the exact search for one solution, up to 5,000 "
        "branch values; the chains where it ends without an answer"
    )
    assert impasse_solver.exact_first_text(8) is None


def test_the_dry_run_words_a_band_below_and_between_fills(monkeypatch):
    """A row giving the search below one fill and between two others is worded band by band,
    the bands without values left out; a row giving every fill is worded 'each'."""
    rows = {9: ((30, 100), (40, 0), (50, 2_000), (None, 0)), 10: ((None, 7),)}
    monkeypatch.setattr(impasse_solver, "EXACT_FIRST_NODES", rows)
    assert impasse_solver.exact_first_text(9) == (
        "those below 30 % filled first by the exact search for one solution, up to 100 branch "
        "values; those 40 to 50 % filled first by the exact search for one solution, up to "
        "2,000 branch values; the chains where it ends without an answer"
    )
    assert impasse_solver.exact_first_text(10).startswith("each first by the exact search")
    assert [impasse_solver.exact_first_nodes(9, f) for f in (29, 30, 45, 50)] == [100, 0, 2_000, 0]


def test_a_36x36_grid_in_the_band_is_answered_by_the_exact_search_and_one_below_is_not():
    """A Lewis-style 36x36 grid at 55 % (the search's band) comes back by method exact; the
    same grid's 50 % cut goes to the chains, whose record counts no branch value."""
    band, below = (make_instances([6], [fill], 1, 2)[0].cells for fill in (55, 50))
    (fast,) = api.solve(np.asarray(band, np.uint8).reshape(36, 36), backend="cpu", chains=2,
                        seed=3, time_limit=30)  # fmt: skip
    assert fast.method == "exact" and fast.status == "solved" and fast.verified
    assert 0 < fast.counts.nodes <= 5_000
    (slow,) = api.solve(np.asarray(below, np.uint8).reshape(36, 36), backend="cpu", chains=2,
                        seed=3, time_limit=0.2)  # fmt: skip
    assert slow.method == "impasse" and slow.counts.nodes is None


def test_the_impasse_method_given_runs_no_exact_search():
    """--method impasse, given, runs the chains alone on the 25x25 grid the default solves
    exactly."""
    (result,) = api.solve(grid_25x25(), method="impasse", backend="cpu", chains=2, seed=3,
                          time_limit=30)  # fmt: skip
    assert result.method == "impasse" and result.status == "solved" and result.verified
    assert result.counts.nodes is None and result.counts.proposals > 0


def test_an_annealing_option_keeps_a_large_grid_annealing():
    (result,) = api.solve(grid_25x25(45), backend="cpu", chains=2, move="focused", time_limit=30)
    assert result.method == "anneal" and result.status == "solved"


def test_the_grid_kinds_take_auto_as_annealing():
    (result,) = api.solve("5x4:3c2b9f6e", kind="shikaku", backend="cpu", time_limit=10)
    assert result.method == "anneal"


def test_the_command_line_default_and_its_dry_run(tmp_path):
    """solve with no --method: the 25x25 grid's record says exact; --dry-run on the cores
    says which orders auto sends to the impasse chains and plans the rest as annealing."""
    puzzles = tmp_path / "mixed.txt"
    puzzles.write_text(grid_25x25() + "\n" + HARD_9X9 + "\n")
    runner = CliRunner()
    ran = runner.invoke(app, ["solve", str(puzzles), "--backend", "cpu", "--output", "jsonl",
                              "--chains", "2", "--time-limit", "30"])  # fmt: skip
    assert ran.exit_code == 0, ran.output
    records = [json.loads(line) for line in ran.output.splitlines() if line.startswith("{")]
    assert sorted(r["method"] for r in records) == ["anneal", "exact"]
    plan = runner.invoke(app, ["solve", str(puzzles), "--backend", "cpu", "--dry-run"])
    assert plan.exit_code == 0, plan.output
    assert "method auto: impasse at 25x25 on the cores" in plan.output
    assert "1 puzzle, 25x25, --method impasse" in plan.output
    assert "each first by the exact search for one solution, up to 5,000 branch" in plan.output
    assert "9x9" in plan.output.split("--method impasse")[-1]  # then 9x9's annealing plan
    card = runner.invoke(app, ["solve", str(puzzles), "--dry-run", "--device", "H100 SXM"])
    assert card.exit_code == 0 and "impasse" not in card.output  # auto anneals on a card


def test_the_dry_run_reads_the_input_once(tmp_path, monkeypatch):
    """--dry-run under auto on the cores counts the orders once and plans the annealed ones
    from those counts (the 9x9 puzzles: 2, not the 25x25 one)."""
    from gpu_anneal import plan

    puzzles = tmp_path / "mixed.txt"
    puzzles.write_text("\n".join([grid_25x25(), HARD_9X9, HARD_9X9]) + "\n")
    reads = []
    counted = plan.count_orders
    monkeypatch.setattr(plan, "count_orders", lambda *a, **k: reads.append(a) or counted(*a, **k))
    shown = CliRunner().invoke(app, ["solve", str(puzzles), "--backend", "cpu", "--dry-run"])
    assert shown.exit_code == 0, shown.output
    assert len(reads) == 1
    assert "plan (model) for 2 puzzles, 9x9" in shown.output
    assert "25x25, move" not in shown.output  # no annealing plan for the impasse order


def test_the_exact_search_proves_a_25x25_puzzle_unsolvable():
    """A 25x25 puzzle whose first row gives 24 digits and whose missing digit is given lower in
    the empty cell's column: the default's exact search proves it has no solution, and the
    record says so (method exact) without a chain run."""
    full = np.asarray(make_instances([5], [100], 1, 5)[0].cells, np.uint8).reshape(25, 25)
    cells = np.zeros((25, 25), np.uint8)
    cells[0, 1:] = full[0, 1:]
    cells[5, 0] = full[0, 0]  # the one digit the first cell could take, in its column
    (result,) = api.solve(cells, backend="cpu", chains=2, time_limit=30)
    assert result.method == "exact" and result.status == "no_solution"
    assert result.counts.proposals is None and result.solution is None
