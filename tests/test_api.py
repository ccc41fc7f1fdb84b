"""The public API: one signature for solve, solve_stream and solve_on_dask, options refused where
they do not apply, and the same answers as the engines it wraps for the same seeds."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import numpy as np
import pytest

import gpu_anneal
from cpu_reference.errors import InputError
from cpu_reference.sudoku.exact import count_solutions, solve_exact
from cpu_reference.sudoku.formats import read_puzzles
from gpu_anneal import api, datasets, solvers
from gpu_anneal.grid_puzzles import solve_grid_puzzle
from gpu_anneal.resolve import resolve
from gpu_anneal.run_plan import default_chains
from gpu_anneal.settings import SolveOptions
from gpu_anneal.sudoku_solver import solve_batch

SEED002 = str(datasets.path("seed002"))
HARDEST = str(Path(__file__).parent / "data" / "hardest.txt")


def test_solve_stream_and_dask_share_one_explicit_signature():
    """Same parameters, names, defaults and order; no **kwargs anywhere."""
    signatures = [inspect.signature(f) for f in (api.solve, api.solve_stream, api.solve_on_dask)]
    params = [list(s.parameters.values()) for s in signatures]
    assert params[0] == params[1] == params[2]
    kinds = {p.kind for p in params[0]}
    assert inspect.Parameter.VAR_KEYWORD not in kinds
    assert inspect.Parameter.VAR_POSITIONAL not in kinds
    names = [p.name for p in params[0]]
    for name in ("kind", "method", "backend", "chains", "seed", "schedule", "move",
                 "time_limit", "max_trials"):  # fmt: skip
        assert name in names
    assert gpu_anneal.solve is api.solve and gpu_anneal.Result is api.Result


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        (dict(kind="shikaku", batch=4), "^batch does not apply to kind 'shikaku'$"),
        (dict(kind="hashi", move="all"), "^move does not apply to kind 'hashi'$"),
        (dict(kind="shikaku", propagate=True), "^propagate does not apply to kind 'shikaku'$"),
        (dict(kind="hashi", fmt="line"), "^fmt does not apply to kind 'hashi'$"),
        (dict(method="exact", seed=3), "^seed does not apply to method 'exact'$"),
        (dict(method="exact", chains=2), "^chains does not apply to method 'exact'$"),
        (dict(method="exact", max_trials=5), "^max_trials does not apply to method 'exact'$"),
        (dict(method="exact", backend="cuda"), "^backend 'cuda': method 'exact' runs on the CPU"),
        (dict(method="exact", rules="tdoku"), "^rules 'tdoku': expected one of"),
        (dict(rules="seed"), "^rules does not apply to method 'auto'$"),
        (dict(rules="seed", method="anneal"), "^rules does not apply to method 'anneal'$"),
        (dict(kind="hashi", method="ilp", rules="seed"), "^rules does not apply to kind 'hashi'$"),
        (dict(kind="shikaku", method="ilp", schedule="geometric"), "^schedule does not apply"),
        (dict(method="ilp"), "^method 'ilp': expected one of auto, anneal, exact, impasse"),
        (dict(kind="hashi", workers=2), "^workers does not apply to kind 'hashi'$"),
        (dict(move="pruned"), "^move 'pruned': expected one of"),
        (dict(kind="go"), "^kind 'go': expected one of sudoku, shikaku, hashi$"),
    ],
)  # fmt: skip
def test_an_option_that_does_not_apply_is_refused(kwargs, fragment):
    """InputError naming the parameter as the API spells it, before anything is read or
    solved."""
    with pytest.raises(InputError, match=fragment):
        api.solve_stream("no such file.txt", **kwargs)


def test_sudoku_anneal_equals_the_pool_it_wraps():
    """For one seed and chain count, the API reports the pool's solving chain, counts and grid
    (the published technique with the candidate move from T0 = 1: no deduction, every puzzle
    annealed)."""
    puzzles = read_puzzles(SEED002)
    cells = np.stack([p.cells for p in puzzles])
    settings = dict(chains=2, seed=5, move="candidate", time_limit=None, max_trials=4000)
    pool = solve_batch(cells, 3, schedule="sirdey-course:t0=1", slots=1, **settings)
    results = api.solve(SEED002, technique="published", t0=1, batch=1, **settings)
    assert [r.index for r in results] == [0, 1, 2]
    for mine, theirs, puzzle in zip(results, pool, puzzles, strict=True):
        assert mine.solved and theirs.solved
        assert mine.counts.solving_chain == theirs.solving_chain
        assert mine.counts.chain_trials == theirs.extra["chain_trials"]
        assert mine.counts.chain_proposals == theirs.extra["chain_proposals"]
        assert np.array_equal(mine.state, theirs.solution)
        assert mine.solution == "".join(map(str, theirs.solution.tolist()))
        assert mine.name == puzzle.name and mine.line == puzzle.line
        assert mine.params.chains == 2 and mine.params.seed == 5
        assert mine.timing.search > 0 and mine.timing.verify > 0


@pytest.mark.parametrize(
    "named, technique",
    [
        ({}, ("auto", "auto", True)),
        ({"schedule": "sirdey-course", "move": "sirdey"}, ("sirdey-course", "sirdey", True)),
        ({"technique": "published"}, ("sirdey-course", "sirdey", False)),
        ({"move": "candidate"}, ("auto", "candidate", True)),
        ({"propagate": False}, ("auto", "auto", False)),
        ({"t0": 1.0}, ("auto", "auto", True)),
    ],
)  # fmt: skip
def test_the_default_technique_is_the_measured_best_and_naming_a_part_changes_it_alone(
    named, technique
):
    """No part named: schedule auto, move auto (focused-two on 9x9, focused from 16x16 up),
    propagation; a part named replaces that part alone; technique="published" is Sirdey's."""
    s = resolve(SolveOptions(backend="cpu", **named))
    assert (s.schedule, s.move, s.propagate) == technique


def test_the_published_algorithm_named_runs_bit_for_bit_as_the_pool_runs_it():
    """technique="published": the pool's Sirdey chains, course schedule, no propagation."""
    cells = read_puzzles(SEED002)[0].cells
    settings = dict(chains=2, seed=3, time_limit=None, max_trials=4000)
    (theirs,) = solve_batch(cells[None], 3, schedule="sirdey-course", move="sirdey", **settings)
    (mine,) = api.solve(cells, technique="published", **settings)
    assert mine.solved and theirs.solved
    assert mine.counts.solving_chain == theirs.solving_chain
    assert mine.counts.chain_trials == theirs.extra["chain_trials"]
    assert mine.counts.chain_proposals == theirs.extra["chain_proposals"]
    assert np.array_equal(mine.state, theirs.solution)
    assert mine.params.propagate is False and mine.params.move == "sirdey"
    (default,) = api.solve(cells, **settings)
    assert default.solved and default.params.propagate and default.params.move == "focused-two"
    assert default.params.schedule == solvers.schedule_text("auto", 3) != "auto"


def test_sudoku_exact_equals_the_exact_solver():
    """Solutions and uniqueness as the exact solver gives them."""
    results = api.solve(SEED002, method="exact")
    for result, puzzle in zip(results, read_puzzles(SEED002), strict=True):
        count, solution, nodes = solve_exact(puzzle.cells, 3, limit=2)
        assert result.solved and np.array_equal(result.state, solution)
        assert result.unique == (count_solutions(puzzle.cells, 3) == 1)
        assert result.counts.nodes == nodes and result.counts.trials is None
        assert result.params.rules == "fast"


def test_sudoku_exact_with_the_seeds_rules_runs_the_seeds_search():
    """rules="seed": the same solutions, found by seed 003's rules (their own node counts)."""
    fast = api.solve(HARDEST, method="exact")
    seed = api.solve(HARDEST, method="exact", rules="seed")
    for mine, theirs, puzzle in zip(seed, fast, read_puzzles(HARDEST), strict=True):
        count, solution, nodes = solve_exact(puzzle.cells, 3, limit=2, rules="seed")
        assert mine.solved and np.array_equal(mine.state, solution)
        assert np.array_equal(mine.state, theirs.state)
        assert mine.unique == (count == 1) and mine.counts.nodes == nodes
        assert mine.params.rules == "seed"
    assert [r.counts.nodes for r in seed] != [r.counts.nodes for r in fast]


@pytest.mark.parametrize("kind", ["shikaku", "hashi"])
@pytest.mark.parametrize("method", ["anneal", "ilp"])
def test_grid_puzzles_equal_the_engine_they_wrap(kind, method):
    """Shikaku and Hashi through the API: the engine's answer and trials for the same seed."""
    (item,) = api.parse_puzzles(datasets.path(kind), kind)[:1]
    seed = dict(seed=4) if method == "anneal" else {}
    (result,) = api.solve([item], kind=kind, method=method, time_limit=30, **seed)
    chains = 16 if method == "anneal" else None
    raw = solve_grid_puzzle(
        kind, item.puzzle, method=method, backend="cpu", chains=chains, seed=4, time_limit=30
    )
    assert result.solved == raw["solved"] is True
    key = "rectangles" if kind == "shikaku" else "bridges"
    assert result.solution_rows == raw["solution"][key]
    assert result.game_move == raw["move"]
    if method == "anneal":
        assert result.counts.trials == raw["trials"] and result.params.chains == 16
    else:
        assert result.counts.trials is None and result.params.seed is None


def test_dask_gets_the_chains_one_process_would_use(monkeypatch):
    """With chains unset, the Dask path is handed the one-process default, and the record
    says how many ran."""
    import gpu_anneal.scale as scale

    seen = {}

    def fake(cells, order, plan, **kwargs):
        seen.update(kwargs, chains=plan.chains, chunk=plan.slots)
        return iter(())

    monkeypatch.setattr(scale, "solve_on_dask", fake)
    assert list(api.solve_on_dask(SEED002, batch=2, workers=1)) == []
    assert seen["chains"] == default_chains("cpu", 2)
    assert seen["workers"] == 1 and seen["chunk"] == 2
    assert list(api.solve_on_dask(SEED002, workers=1)) == []
    assert seen["chunk"] == 8 and seen["chains"] == default_chains("cpu", 1)  # a task's puzzles


def test_bad_input_reaches_the_callback_and_the_rest_is_solved():
    """A malformed puzzle goes to on_input_error; the good one is still answered."""
    faults = []
    text = "1...........4...\n12\n"
    results = api.solve(text, chains=1, seed=1, on_input_error=faults.append)
    assert len(faults) == 1 and "line 2" in str(faults[0])
    assert [r.solved for r in results] == [True]
    with pytest.raises(InputError, match="line 2"):
        api.solve(text, chains=1)


def test_replay_reruns_the_solving_chain():
    """replay(chain) of a run's solving chain: the same grid after the same trials."""
    (first,) = api.solve("1...........4...\n", chains=3, seed=8)
    again = api.replay("1...........4...\n", first.counts.solving_chain, chains=3, seed=8)
    assert again.solution == first.solution
    assert again.counts.chain_trials == first.counts.chain_trials
    assert again.counts.chain_proposals == first.counts.chain_proposals
    assert again.params.replay_chain == first.counts.solving_chain


def test_the_auto_move_names_each_orders_measured_best():
    """The move preset "auto" stands for focused-two on 4x4 and 9x9 and focused from 16x16 up;
    any other name stands for itself."""
    from cpu_reference.sudoku import rules
    from cpu_reference.sudoku.presets import move_of

    assert [move_of("auto", n) for n in (2, 3, 4, 5, 6, 7)] == [
        "focused-two", "focused-two", "focused", "focused", "focused", "focused",
    ]  # fmt: skip
    assert move_of("candidate", 3) == "candidate"
    assert rules.move_code("auto", 3) == rules.MOVE_FOCUSED_TWO
    assert rules.move_code("auto", 5) == rules.MOVE_FOCUSED


NINE_LINE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


def test_read_takes_one_text_as_one_source_and_names_a_bad_order():
    """read(text) went through the text character by character (81 faults such as "'.': is a
    folder"); read(None) raised TypeError; order='3' said 'order 3 is outside 2..8'."""
    (item,) = gpu_anneal.read(NINE_LINE)
    assert item.order == 3
    with pytest.raises(InputError, match="^sources: NoneType; expected a list"):
        list(gpu_anneal.read(None))
    (fault,) = gpu_anneal.read([NINE_LINE], order="3")
    assert str(fault) == "order '3': expected an integer in 2..8"


def test_check_puzzle_time_limit_counts_the_search_alone(monkeypatch):
    """Compiling the search is done before the clock starts (a quick count is not called
    unsettled for its compile time), and a count that spent its node budget names the budget
    even when the time limit had also passed."""
    import time

    from cpu_reference.sudoku.formats import Puzzle
    from gpu_anneal import check

    empty = Puzzle(cells=np.zeros(256, np.uint8), order=4, line=1)
    from gpu_anneal import sudoku_solver

    compiled = sudoku_solver.compile_proof

    def slow_compile(order):  # as a first compile of the session
        compiled(order)
        time.sleep(0.5)

    monkeypatch.setattr(sudoku_solver, "compile_proof", slow_compile)
    monkeypatch.setattr(solvers, "_warm", set())  # this process compiles it anew
    assert check.check_puzzle(empty, 0, time_limit=0.3)["solutions"] == "2+"
    real = check.solve_exact

    def slow(cells, order, limit, max_nodes, stop):  # the budget ends it past the deadline
        time.sleep(0.4)
        return real(cells, order, limit, max_nodes=max_nodes, stop=None)

    monkeypatch.setattr(check, "solve_exact", slow)
    record = check.check_puzzle(empty, 0, max_nodes=1, time_limit=0.1)
    assert record["error"].endswith("within 1 branch values (--max-nodes)")


def test_check_puzzle_and_solve_grid_puzzle_check_their_arguments():
    """check_puzzle's max_nodes of 2**63 raised OverflowError, a str puzzle AttributeError;
    solve_grid_puzzle's chains=0 raised 'argmin of an empty sequence' and time_limit=-1 ran."""
    from gpu_anneal.check import check_puzzle
    from gpu_anneal.grid_puzzles import solve_grid_puzzle

    puzzle = read_puzzles(SEED002)[0]
    assert check_puzzle(puzzle, 0)["solutions"] == 1
    with pytest.raises(InputError, match=r"^max_nodes 9223372036854775808: must be"):
        check_puzzle(puzzle, 0, max_nodes=2**63)
    with pytest.raises(InputError, match="^puzzle: str; expected a Puzzle"):
        check_puzzle(NINE_LINE, 0)
    for options, fault in (({"chains": 0}, "chains 0: must be"),
                           ({"time_limit": -1}, "time_limit -1: must be"),
                           ({"seed": -1}, "seed -1: must be")):  # fmt: skip
        with pytest.raises(InputError, match=f"^{fault}"):
            solve_grid_puzzle("shikaku", "5x4:3c2b9f6e", **options)
    assert solve_grid_puzzle("shikaku", "5x4:3c2b9f6e", seed=None, chains=2)["verified"]


def test_a_move_that_is_none_and_an_error_hook_that_is_no_function_are_refused():
    """measure_throughput(move='bogus') raised KeyError; solve(on_input_error='x') raised
    TypeError only when a bad puzzle came."""
    from gpu_anneal.measure import measure_throughput

    for move in ("bogus", None):
        with pytest.raises(InputError, match=f"^move {move!r}: expected one of sirdey, "):
            measure_throughput(3, 0.1, move=move)
    with pytest.raises(InputError, match="^on_input_error 'x': must be a function"):
        api.solve(NINE_LINE, on_input_error="x")


def test_the_grid_puzzle_functions_check_their_arguments(tmp_path):
    """Hashi's maxb=0 was numpy's 'low >= high', an unknown setting or a width of '5' a
    TypeError, merge_prob=2.0 and unique='no' were taken; a puzzle of None, a str where a parsed
    puzzle goes, or a picture in a missing folder raised deep in the code."""
    from gpu_anneal import grid_puzzles as gp

    calls = [
        (lambda: gp.generate_grid_puzzles("hashi", 9, 9, 1, maxb=0), "maxb 0: must be"),
        (lambda: gp.generate_grid_puzzles("hashi", 9, 9, 1, bogus=1),
         "bogus: not a setting of the hashi generator; it takes n, maxb, edge_prob"),
        (lambda: gp.generate_grid_puzzles("shikaku", "5", 5, 1), "width '5': must be"),
        (lambda: gp.generate_grid_puzzles("shikaku", 5, 5, 1, merge_prob=2.0),
         "merge_prob 2.0: must be"),
        (lambda: gp.generate_grid_puzzles("hashi", 9, 9, 1, unique="no"), "unique 'no': must"),
        (lambda: gp.solve_grid_puzzle("shikaku", None), "input: NoneType; expected a Shikaku"),
        (lambda: gp.parse_grid_puzzle("hashi", 5), "input: int; expected a Hashiwokakero"),
        (lambda: gp.game_id("shikaku", "5x4:3c2b9f6e"), "puzzle: str; expected a parsed"),
        (lambda: gp.render_grid_puzzle("shikaku", "5x4:3c2b9f6e", tmp_path / "no" / "p.png"),
         "path "),
        (lambda: gp.render_grid_puzzle("shikaku", "1" * 20_001, tmp_path / "big.png"),
         "a 20001x1 grid (20,001 cells) is past the 10,000 cells render draws"),
    ]  # fmt: skip
    for call, fault in calls:
        with pytest.raises(InputError) as err:
            call()
        assert str(err.value).startswith(fault), str(err.value)
    (gid,) = gp.generate_grid_puzzles("hashi", 9, 9, 1, maxb=3, n=None)
    assert gid.startswith("9x9m3:")


@pytest.mark.parametrize(
    "kind, solution, fault",
    [("shikaku", "x", "solution: expected rows of (top, left, height, width) integers"),
     ("shikaku", [[99, 99, 99, 99]], "solution row 0 [99, 99, 99, 99]: outside the 5x4 grid"),
     ("shikaku", {"rectangles": [[0, 0, 5, 1]]}, "solution row 0 [0, 0, 5, 1]: outside"),
     ("hashi", [[0, 0, 0, 5, 1]], "solution row 0 [0, 0, 0, 5, 1]: outside the 3x3 grid"),
     ("hashi", [[0, 0, 0, 2, 3]], "solution row 0 [0, 0, 0, 2, 3]: 3 bridges, not 1..2")],
)  # fmt: skip
def test_a_picture_refuses_a_solution_it_cannot_draw(tmp_path, kind, solution, fault):
    """render_grid_puzzle drew rectangles outside the grid without complaint, and a solution of
    'x' was 'not enough values to unpack'; a solver's own solution is still drawn."""
    from gpu_anneal.grid_puzzles import render_grid_puzzle, solve_grid_puzzle

    puzzle = {"shikaku": "5x4:3c2b9f6e", "hashi": "3x3m2:3a2c1a2"}[kind]
    with pytest.raises(InputError, match=f"^{re.escape(fault)}"):
        render_grid_puzzle(kind, puzzle, tmp_path / "p.png", solution)
    solved = solve_grid_puzzle("shikaku", "5x4:3c2b9f6e", chains=2)
    render_grid_puzzle("shikaku", "5x4:3c2b9f6e", tmp_path / "s.png", solved["solution"])
    assert (tmp_path / "s.png").stat().st_size > 0
