"""Checking Sudoku input: full grids verified, puzzles' solutions counted (0, 1, 2+), and every
claim the input makes tested (tdoku's solution count and solution fields).

Glossary:
    grid       a Sudoku with every cell filled: verified by the independent verifier
    puzzle     a Sudoku with blanks: its solutions are counted by the exact search, up to two
    claim      what a line asserts beside the givens: tdoku's `puzzle:count:solution` carries a
               count (2 meaning "two or more") and a solution, either may be left out
"""

from __future__ import annotations

import numpy as np

from cpu_reference.errors import InputError
from cpu_reference.sudoku.exact import QUICK_ORDER, solve_exact
from cpu_reference.sudoku.formats import Puzzle, check_givens
from cpu_reference.sudoku.verify import verify_solution
from gpu_anneal import interrupts, validate
from gpu_anneal.records import CheckRecord

CHECK_NODES = 2_000_000  # branch values a puzzle's count may spend by default (--max-nodes)


def check_puzzle(
    puzzle: Puzzle,
    index: int,
    source: str = "<stdin>",
    max_nodes: int = CHECK_NODES,
    time_limit: float | None = None,
) -> dict:
    """The check record of one puzzle (read with check=False, so repeated givens reach here): a
    gpu_anneal.records.CheckRecord as a dict, every key present (docs/check.schema.json).

    Keys: index, source, line, name, kind ("grid" or "puzzle"), ok; a grid sets valid; a
    puzzle sets solutions (0, 1 or "2+"), and where the input claims them expected (the count)
    and solution_ok (whether the claimed solution is a solution of these givens); error names
    the first fault; a field that does not apply is None. ok is true only when every check and
    every claim holds: a grid is valid, a puzzle has exactly one solution (or the claimed
    count), and a claimed solution verifies. A count may spend `max_nodes` branch values (0: no
    limit); one that spends them unsettled leaves solutions None, ok False, and error says so.
    So does a count still unsettled after `time_limit` seconds (None or 0: no limit; a 9x9
    count, which ends within seconds, is not timed).
    """
    if not isinstance(puzzle, Puzzle):
        raise InputError(f"puzzle: {type(puzzle).__name__}; expected a Puzzle as the Sudoku "
                         "readers give it (cpu_reference.sudoku.formats)")  # fmt: skip
    max_nodes = validate.integer("max_nodes", max_nodes, 0)
    time_limit = validate.time_limit(time_limit, "time_limit") or None
    findings = _findings(puzzle, max_nodes, time_limit)
    return CheckRecord(index=index, source=source, **findings).to_dict()


def _findings(puzzle: Puzzle, max_nodes: int, time_limit: float | None = None) -> dict:
    """The record's fields from line to error, as check_puzzle describes them."""
    record: dict = {"line": puzzle.line, "name": puzzle.name}
    full = bool(np.all(puzzle.cells))
    clash = check_givens(puzzle.cells, puzzle.order)
    if clash is not None and not full:
        record.update(kind="puzzle", solutions=0, ok=False, error=clash)
        return record
    if full:
        fault = verify_solution(puzzle.cells, puzzle.order)
        record.update(kind="grid", valid=fault is None, error=fault)
        ok = fault is None
    else:
        stop = np.zeros(1, np.uint8)  # set by the time limit (Ctrl-C raises)
        quick = puzzle.order <= QUICK_ORDER  # a 9x9 count ends within seconds, unstoppable
        if time_limit is not None and not quick:  # compiled before the clock starts, once
            from gpu_anneal.solvers import warm_up_seconds  # (the run's modules: not at start-up)
            from gpu_anneal.sudoku_solver import compile_proof

            warm_up_seconds(("sudoku-proof", puzzle.order), lambda: compile_proof(puzzle.order))
        count, found, nodes = interrupts.stoppable(
            lambda stop: solve_exact(puzzle.cells, puzzle.order, 2, max_nodes=max_nodes, stop=stop),
            quick=quick,
            seconds=time_limit,
            flag=stop,
        )
        settled = count >= 0
        record.update(kind="puzzle", solutions=("2+" if count >= 2 else count) if settled else None)
        ok = count == 1
        if puzzle.expected_count is not None:
            expected = min(puzzle.expected_count, 2)
            record["expected"] = "2+" if expected >= 2 else expected
            ok = count == expected
            if settled and not ok:
                record["error"] = f"claims {record['expected']} solution(s), has {count}"
        if not settled:
            budget_spent = 0 < max_nodes <= nodes
            spent = f"{time_limit:g} s (--time-limit)" if stop[0] and not budget_spent else None
            record["error"] = _unsettled(bool(found.any()), max_nodes, spent)
    if puzzle.expected_solution is not None:
        fault = verify_solution(puzzle.expected_solution, puzzle.order, puzzle.cells)
        record["solution_ok"] = fault is None
        if fault is not None:
            ok = False
            record["error"] = f"claimed solution: {fault}"
    record["ok"] = ok
    return record


def _unsettled(found: bool, max_nodes: int, spent: str | None = None) -> str:
    """The error of a count that spent its branch values (or `spent`, its time) unsettled."""
    what = (
        "a solution found, but whether it is the only one is not known"
        if found
        else "no solution found, and none ruled out"
    )
    spent = spent or f"{max_nodes:,} branch values (--max-nodes)"
    return f"count not settled: {what} within {spent}"
