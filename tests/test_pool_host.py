"""The pool's host side with no kernel (the stand-in runner, gpu_anneal.standin): reading puzzles
into slots, a puzzle's spare slots reported once, and the JSON text of results (the verifier
over many grids: tests/test_sudoku_verify.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cpu_reference.errors import InputError
from cpu_reference.sudoku.batch import logic_fill, make_batch, puzzle_tables
from cpu_reference.sudoku.exact import solve_exact
from cpu_reference.sudoku.schedules import by_name
from gpu_anneal import results, sudoku_solver
from gpu_anneal.results import Params, Result, Timing, dumps
from gpu_anneal.standin import StandInRunner
from gpu_anneal.sudoku_solver import SPARE_STRIDE, Slicer, _Pool

HARDEST = Path(__file__).parent / "data" / "hardest.txt"
PUZZLES = HARDEST.read_text().split()[:6]  # 9x9, one line each


def cells(text: str) -> np.ndarray:
    """A puzzle's cells (0 blank) from its one-line text."""
    return np.array([0 if ch == "." else int(ch) for ch in text], np.uint8)


def standin_pool(slots: int, source, slices: int = 2, spare: bool = False, propagate=False):
    """A 9x9 pool of `slots` slots on the stand-in runner, reading `source`."""
    table = {}
    for text in PUZZLES:
        puzzle = cells(text)
        _, solution, _ = solve_exact(puzzle, 3, limit=1)
        table[puzzle.tobytes()] = table[logic_fill(puzzle, 3)[0].tobytes()] = solution
    batch = make_batch(np.zeros((slots, 81), np.uint8), 3, by_name("sirdey-course", 3), 2, 0)
    runner = StandInRunner(batch, 0, table, slices)
    report = dict(backend="cuda", seed=0, move="sirdey")
    return _Pool(batch, runner, iter(source), 0, 0, report, propagate, spare)


def test_refill_names_positions_and_cells_as_read():
    """Items (q, cells) keep their q; plain cells take the positions that follow; cells of
    another integer type are taken as uint8; the slots past the stream's end stay empty."""
    grids = [cells(text) for text in PUZZLES[:3]]
    pool = standin_pool(5, [(4, grids[0]), grids[1], (9, grids[2].astype(np.int64))])
    pool.refill(np.arange(5))
    assert pool.slot_q.tolist() == [4, 5, 9, -1, -1]
    assert pool.slot_lead.tolist() == [0, 1, 2, -1, -1]
    assert pool.slot_first.tolist()[:3] == [8, 10, 18]
    assert pool.slot_cells.dtype == np.uint8
    assert np.array_equal(pool.slot_cells[:3], np.stack(grids))
    assert pool.exhausted and pool.next_q == 10


@pytest.mark.parametrize("bad", [(-1, None), (2.0, None), (3, 10)])
def test_a_malformed_item_raises_with_the_items_before_it_named(bad):
    """A position below 0 or not an integer, or a cell outside 0..9, is refused (InputError);
    the puzzles read before it are named in their slots."""
    q, value = bad
    grids = [cells(text) for text in PUZZLES[:3]]
    broken = grids[2].copy()
    if value is not None:
        broken[5] = value
    pool = standin_pool(4, [(0, grids[0]), (1, grids[1]), (q, broken), (5, grids[2])])
    with pytest.raises(InputError):
        pool.refill(np.arange(4))
    assert pool.slot_q.tolist()[:2] == [0, 1]
    assert np.array_equal(pool.slot_cells[:2], np.stack(grids[:2]))
    assert pool.slot_q[3] == -1


def test_a_ctrl_c_while_reading_leaves_the_puzzles_read_in_their_slots():
    """The stream raises KeyboardInterrupt after two puzzles: both are named (not started,
    no lead), so stop_all reports them, as read."""
    grids = [cells(text) for text in PUZZLES[:2]]

    def stream():
        yield 0, grids[0]
        yield 1, grids[1]
        raise KeyboardInterrupt

    pool = standin_pool(4, stream())
    with pytest.raises(KeyboardInterrupt):
        pool.refill(np.arange(4))
    assert pool.slot_q.tolist() == [0, 1, -1, -1]
    assert pool.slot_lead.tolist() == [-1, -1, -1, -1]
    pool.stop_all("interrupted")
    assert [r.index for r in pool.outbox] == [0, 1]
    assert all(np.array_equal(r.best, g) for r, g in zip(pool.outbox, grids, strict=True))
    assert {r.error for r in pool.outbox} == {"interrupted"}


def test_a_puzzle_with_spare_slots_is_merged_once_as_it_leaves(monkeypatch):
    """Four slots, six puzzles solving after three slices each: once the stream is exhausted
    the two empty slots take spare chains of the last two puzzles, which run a slice before
    those solve. The round that hands them out merges their slots' rows once (the same merge
    names the slots fetched and the results), and every puzzle is reported solved, once; the
    last two with one spare slot (2 chains) each."""
    calls = []
    merge = sudoku_solver.merged_rows

    def counted(*args):
        calls.append(len(args[0]))
        return merge(*args)

    monkeypatch.setattr(sudoku_solver, "merged_rows", counted)
    pool = standin_pool(4, [cells(text) for text in PUZZLES], slices=3, spare=True)
    pool.warm()
    results = list(pool.drive(None, Slicer(1000, 0.2)))
    assert sorted(r.index for r in results) == list(range(6))
    assert all(r.solved and r.verified and r.error is None for r in results)
    spares = {r.index: r.extra.get("spare_chains", 0) for r in results}
    assert spares == {0: 0, 1: 0, 2: 0, 3: 0, 4: 2, 5: 2}
    assert calls == [4]  # one round had spare slots leaving: its four slots, merged once


@pytest.mark.parametrize("propagate", [False, True])
def test_spare_slots_go_round_robin_with_each_puzzles_next_streams(propagate):
    """Empty slots go to the running puzzles round-robin, the longest-running first; the m-th
    slot a puzzle gets (over all calls) draws streams m * 2**40 + q * cpp + i, takes the
    puzzle's cells as read and as loaded (after its deduction), and is loaded with the tables
    its lead's puzzle makes on its own."""
    pool = standin_pool(8, [cells(text) for text in PUZZLES[:3]], spare=True, propagate=propagate)
    loads, load = [], pool.runner.load

    def logged(slots, tables, firsts):
        loads.append(tables)
        load(slots, tables, firsts)

    pool.runner.load = logged
    pool.warm()  # slots 0..2 hold puzzles 0..2, the stream is exhausted
    pool.slot_start[:3] = [2.0, 1.0, 3.0]  # started: slot 1 first, then 0, then 2
    cpp, seen = pool.batch.cpp, {}

    def want(free, leads):
        out = []
        for j, _ in enumerate(free):
            q = int(pool.slot_q[leads[j % len(leads)]])
            seen[q] = seen.get(q, 0) + 1
            out.append((leads[j % len(leads)], q, seen[q] * SPARE_STRIDE + q * cpp))
        return out

    for free in (np.arange(3, 8), np.array([6, 7]), np.array([3, 4, 5, 6, 7])):
        pool.slot_q[free] = pool.slot_lead[free] = -1
        expected = want(free, [1, 0, 2])
        pool._spare(free)
        lead = pool.slot_lead[free]
        got = np.stack([lead, pool.slot_q[free], pool.slot_first[free]], 1)
        assert [tuple(g) for g in got.tolist()] == expected
        assert np.isnan(pool.slot_start[free]).all()
        assert np.array_equal(pool.slot_cells[free], pool.slot_cells[lead])
        assert np.array_equal(pool.slot_loaded[free], pool.slot_loaded[lead])
        assert np.array_equal(pool.runner.grids[free], pool.runner.grids[lead])
        masks = None if not propagate else pool.slot_masks[lead]
        has_mask = None if not propagate else pool.slot_deduced[lead]
        alone = puzzle_tables(pool.slot_loaded[lead], 3, pool.batch.move, masks, has_mask)
        assert loads[-1].keys() == alone.keys()
        assert all(np.array_equal(loads[-1][k], alone[k]) for k in alone)
    assert pool.spares_of == seen
    assert propagate == (pool.slot_loaded[:3] != pool.slot_cells[:3]).any()  # it deduced


def result_with(timing: Timing, params: Params | None = None) -> Result:
    """A solved 4x4 Result with the given timing."""
    return Result(
        kind="sudoku", method="anneal", backend="cuda", index=3, source="x.txt", line=4,
        order=2, size="4x4", puzzle="1...........4...", givens_hash="0" * 16, status="solved",
        solved=True, verified=True, solution="1234341221434321",
        solution_rows=[[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]], cost=0,
        params=params or Params(seed=0, chains=8, t0=0.5), timing=timing,
    )  # fmt: skip


@pytest.mark.parametrize("timing", [
    Timing(0.0, 0.000272, 2.1e-06),
    Timing(0.1234567891, 12.0, 1e-09),
    Timing(1e17, 3.0000005, 0.5),
    Timing(np.float64(0.25), 1.0, 2.0),  # a NumPy float: through plain()
    Timing(0, 1, 2.5),  # ints
])  # fmt: skip
def test_to_json_is_dumps_of_to_dict(timing):
    """The fast JSON text equals dumps(to_dict()) for every kind of timing value."""
    result = result_with(timing)
    assert result.to_json() == dumps(result.to_dict())
    assert json.loads(result.to_json())["timing"] == result.to_dict()["timing"]


def test_to_json_without_the_c_encoder_or_with_numpy_counts_is_dumps_of_to_dict(monkeypatch):
    """A NumPy count goes through plain(); without json's C encoder, through dumps."""
    result = result_with(Timing(0.5, 0.25, 1e-06))
    result.counts.trials, result.counts.proposals = np.int64(7), np.int32(3)
    assert result.to_json() == dumps(result.to_dict())
    assert json.loads(result.to_json())["counts"]["trials"] == 7
    monkeypatch.setattr(results, "_C_ENCODER", None)
    plain = result_with(Timing(0.5, 0.25, 1e-06))
    assert plain.to_json() == dumps(plain.to_dict())


def test_to_json_refuses_nan_as_dumps_does():
    """A NaN anywhere is refused (ValueError), never written."""
    with pytest.raises(ValueError):
        result_with(Timing(0.0, float("nan"), 0.0)).to_json()


def test_to_json_writes_each_params_object_as_it_holds():
    """Results sharing one Params write it the same; a changed copy writes its own values."""
    params = Params(seed=1, chains=8)
    first, second = result_with(Timing(), params), result_with(Timing(), params)
    assert first.to_json() == second.to_json() == dumps(first.to_dict())
    other = result_with(Timing(), Params(seed=2, chains=8))
    assert json.loads(other.to_json())["params"]["seed"] == 2
    assert json.loads(first.to_json())["params"]["seed"] == 1
