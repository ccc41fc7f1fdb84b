"""A pool answer as a Result (gpu_anneal.solvers._from_pool) and the one-line text it writes
(cpu_reference.sudoku.format_writer.line_text): the same record as the item's own writers make,
for every status, format and order, and the same error result when the answer cannot be
written."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cpu_reference.errors import InputError
from cpu_reference.sudoku.format_writer import format_grid, line_text
from cpu_reference.sudoku.verify import verify_solution
from gpu_anneal import solvers
from gpu_anneal.items import Item
from gpu_anneal.kinds import kind_of
from gpu_anneal.results import Counts, Params, Timing, dumps
from gpu_anneal.sudoku_solver import SolveResult

SUDOKU = kind_of("sudoku")


def grids(order: int, rng, dtype=np.uint8) -> list[np.ndarray]:
    """Cells of an order-n grid: full, with blanks, 2-D, every other cell of a longer row."""
    N = order * order
    full = rng.integers(1, N + 1, N * N).astype(dtype)
    blanks = full.copy()
    blanks[rng.random(N * N) < 0.5] = 0
    wide = np.repeat(blanks, 2)[::2]  # not contiguous
    return [full, blanks, blanks.reshape(N, N), wide]


@pytest.mark.parametrize("order", [2, 3, 4, 5, 6, 7])
def test_line_text_writes_what_format_grid_writes_or_nothing(order):
    """uint8 cells with one-line symbols: format_grid's text; any other cells: None."""
    rng = np.random.default_rng(order)
    N = order * order
    for cells in grids(order, rng):
        if N <= 35:
            assert line_text(cells, order) == format_grid(cells, order, "line")
        else:
            assert line_text(cells, order) is None
    assert line_text(grids(order, rng, np.int64)[0], order) is None
    over = grids(order, rng)[0]
    over[-1] = N + 1  # no digit of this grid
    assert line_text(over, order) is None
    with pytest.raises(InputError):
        format_grid(over, order, "line")
    assert line_text(over[:-1], order) is None
    assert line_text(over.tolist(), order) is None
    assert line_text(grids(order, rng)[0], order + 10) is None  # no order


def old_pool_result(item: Item, raw, params: Params, compile_s: float):
    """The record as base_result and fill_solution make it, field by field."""
    result = solvers.base_result(item, "anneal", raw.backend)
    ok = raw.solved
    solvers.fill_solution(result, item, raw.solution if ok else raw.best, ok)
    result.cost = int(raw.cost) if raw.cost >= 0 else None
    result.error = raw.error
    if not ok:
        result.status = solvers._status(result.error)
    extra = raw.extra or {}
    if extra.get("no_chain"):
        result.counts = Counts()
    else:
        result.counts = Counts(
            trials=raw.trials, proposals=raw.proposals, accepted=raw.accepted,
            solving_chain=raw.solving_chain, chain_trials=extra.get("chain_trials"),
            chain_proposals=extra.get("chain_proposals"),
            spare_chains=extra.get("spare_chains", 0),
        )  # fmt: skip
    result.params = solvers.with_chains(params, raw.chains)
    result.timing = Timing(compile=compile_s, search=raw.seconds, verify=raw.verify_seconds)
    return result


def solved_puzzle(order: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """(givens, solution) of an order-n puzzle: the pattern grid with its digits relabelled,
    about half its cells blank."""
    n, N = order, order * order
    r, c = np.divmod(np.arange(N * N), N)
    pattern = (n * (r % n) + r // n + c) % N
    solution = (rng.permutation(N) + 1)[pattern].astype(np.uint8)
    givens = solution.copy()
    givens[rng.random(N * N) < 0.5] = 0
    assert verify_solution(solution, order, givens) is None
    return givens, solution


def answers(solution: np.ndarray):
    """(solved, error, state, extra) of the pool's answers: solved, deduced, refused, stopped,
    unsolved, no state."""
    wrong = solution.copy()
    wrong[[0, 1]] = wrong[[1, 0]]
    chains = {"chain_trials": 2, "chain_proposals": 900, "spare_chains": 3}
    return [
        (True, None, solution, chains),
        (True, None, solution.astype(np.int64), {"no_chain": True}),
        (False, "column 1 holds 2 twice", wrong, chains),
        (False, "interrupted", wrong, {}),
        (False, None, wrong, None),
        (False, "no solution", None, {"no_chain": True}),
    ]


@pytest.mark.parametrize(("order", "fmt"), [
    (2, "line"), (3, "line"), (3, "grid"), (3, "rows"), (3, "tsv"), (3, "tdoku"), (3, "solo"),
    (4, "line"), (6, "rows"), (6, "line"),  # 36x36 has no one-line text: an error result
])  # fmt: skip
def test_from_pool_makes_the_record_base_result_and_fill_solution_make(order, fmt):
    """Every field, the JSON line and the state equal the field-by-field record's; an answer
    that cannot be written is the same error result."""
    rng = np.random.default_rng(order * 10 + len(fmt))
    givens, solution = solved_puzzle(order, rng)
    params = Params(seed=0, schedule="geometric:t0=0.5", move="sirdey", t0=0.5)
    item = Item(SUDOKU, 7, "x.txt", 3, "p7", givens, order, fmt)
    for solved, error, state, extra in answers(solution):
        raw = SolveResult(
            index=7, order=order, solved=solved, verified=solved,
            solution=state if solved else None, best=None if solved else state,
            cost=0 if solved else (-1 if state is None else 2), trials=5, proposals=6000,
            accepted=40, seconds=0.25, backend="cuda", chains=16, solving_chain=3,
            error=error, extra=extra, verify_seconds=1e-6,
        )  # fmt: skip
        got = solvers._from_pool(item, raw, params, 0.5)
        want = solvers.guarded(
            item, "anneal", "cuda", lambda r=raw: old_pool_result(item, r, params, 0.5)
        )
        assert got.to_dict() == want.to_dict()
        assert got.to_json() == want.to_json()
        assert got.state is want.state
        if (order, fmt) == (6, "line"):
            assert got.status == "error" and "cannot write" in got.error
        elif solved:
            assert got.status == "solved" and got.solution_rows == want.solution_rows


def test_to_json_reads_the_fields_whatever_the_attributes_hold():
    """An attribute added, or a field deleted and set again (its place in __dict__ moved),
    changes nothing: to_json is still dumps(to_dict()) with the fields in their order."""
    rng = np.random.default_rng(5)
    givens, solution = solved_puzzle(3, rng)
    item = Item(SUDOKU, 2, "x.txt", 1, "", givens, 3, "line")
    raw = SolveResult(
        index=2, order=3, solved=True, verified=True, solution=solution, best=solution, cost=0,
        trials=1, proposals=10, accepted=2, seconds=0.5, backend="cuda", chains=4,
        solving_chain=0, extra={},
    )  # fmt: skip
    plain = solvers._from_pool(item, raw, Params(seed=0), 0.0)
    text = plain.to_json()
    assert text == dumps(plain.to_dict())
    added = solvers._from_pool(item, raw, Params(seed=0), 0.0)
    added.note = "not a field"
    assert added.to_json() == text
    moved = solvers._from_pool(item, raw, Params(seed=0), 0.0)
    kind = moved.kind
    del moved.kind
    moved.kind = kind
    assert list(moved.__dict__)[-1] == "kind"
    assert moved.to_json() == text
    assert list(json.loads(text)) == list(plain.to_dict())
