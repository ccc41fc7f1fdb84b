"""The exact peers of bench_frontier, one instance in one process: CP-SAT and CaDiCaL.

    python -m benchmarks.frontier_peers SOLVER FILE LIMIT

SOLVER is cp-sat or cadical; FILE a Lloyd & Amos instance file (benchmarks.frontier_instances);
LIMIT the seconds the solve may take. Prints one JSON line: status ("solved", "unsolved" when the
solver gave up at its limit, "unsat"), seconds (the solve alone), build_seconds (the model or
formula), the solution (N*N numbers, or null) and the solver's name and version. The caller
verifies the solution; a process the caller has to kill is its "timeout".

Glossary of index names (as in cpu_reference.sudoku.layout):
    n       order: box side
    N       side of the grid and number of digits, N = n * n
    r, c    row and column, 0-based
    b       box, row-major: b = (r // n) * n + c // n
    d       digit, 0-based in a variable, 1..N in a grid (0 blank)

cp-sat: Google OR-Tools CP-SAT, the model of ../shared/tools/peers/cpsat_sudoku.py: an integer
1..N per cell, the givens as equalities, AllDifferent on every row, column and box; one worker,
max_time_in_seconds = LIMIT.

cadical: CaDiCaL 1.9.5 through python-sat. The standard Sudoku CNF: a variable x(r, c, d) per cell
and digit, at least one and at most one (pairwise clauses) true per cell, and per row, column and
box and digit; the givens as unit clauses. The formula is the one the givens' unit clauses leave
after one round of unit propagation: a variable a given rules out (its cell holds another given,
or a peer holds d) is left out, with every literal of it, so a clause is only as long as its
candidates. Nothing else is deduced before the solver. python-sat's CaDiCaL cannot be interrupted,
so LIMIT is a SIGALRM timer with its default action: the process ends at LIMIT seconds of
solving, and the caller reports the timeout.
"""

from __future__ import annotations

import argparse
import itertools
import json
import signal
import sys
import time

import numpy as np

from benchmarks.frontier_instances import read_lloyd_amos

SOLVERS = ("cp-sat", "cadical")
PACKAGES = {"cp-sat": "ortools", "cadical": "pysat"}  # the module each needs (the bench extra)


def solve_cpsat(order: int, cells: np.ndarray, limit: float) -> dict:
    """CP-SAT on one instance: status, seconds, build_seconds, solution."""
    from ortools.sat.python import cp_model

    start = time.perf_counter()
    n = order
    N = n * n
    model = cp_model.CpModel()
    x = [[model.NewIntVar(1, N, "") for _ in range(N)] for _ in range(N)]
    for r in range(N):
        for c in range(N):
            if cells[r * N + c]:
                model.Add(x[r][c] == int(cells[r * N + c]))
    for i in range(N):
        model.AddAllDifferent(x[i])
        model.AddAllDifferent([x[r][i] for r in range(N)])
    for br in range(0, N, n):
        for bc in range(0, N, n):
            model.AddAllDifferent([x[br + i][bc + j] for i in range(n) for j in range(n)])
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = limit
    solver.parameters.num_workers = 1
    built = time.perf_counter()
    status = solver.Solve(model)
    seconds = time.perf_counter() - built
    found = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    solution = [solver.Value(x[r][c]) for r in range(N) for c in range(N)] if found else None
    import ortools

    return {
        "status": "solved" if found else ("unsat" if status == cp_model.INFEASIBLE else "unsolved"),
        "seconds": seconds,
        "build_seconds": built - start,
        "solution": solution,
        "version": f"OR-Tools CP-SAT {ortools.__version__}, 1 worker",
    }


def candidate_variables(order: int, cells: np.ndarray) -> np.ndarray:
    """int64[N, N, N]: the variable number (1 and up) of x(r, c, d), 0 where a given rules it out
    (the cell holds another given, or a row, column or box peer holds d + 1)."""
    n = order
    N = n * n
    grid = np.asarray(cells, dtype=np.int64).reshape(N, N)
    box = (np.arange(N)[:, None] // n) * n + np.arange(N)[None, :] // n
    in_row = np.zeros((N, N + 1), bool)
    in_col = np.zeros((N, N + 1), bool)
    in_box = np.zeros((N, N + 1), bool)
    rows, cols = np.nonzero(grid)
    digits = grid[rows, cols]
    in_row[rows, digits] = True
    in_col[cols, digits] = True
    in_box[box[rows, cols], digits] = True
    taken = in_row[:, None, 1:] | in_col[None, :, 1:] | in_box[box][:, :, 1:]  # [r, c, d]
    allowed = ~taken & (grid == 0)[:, :, None]
    allowed[rows, cols, digits - 1] = True  # a given's own variable stays, as a unit clause
    numbers = np.zeros((N, N, N), dtype=np.int64)
    numbers[allowed] = np.arange(1, int(allowed.sum()) + 1)
    return numbers


def sudoku_cnf(order: int, cells: np.ndarray) -> tuple[list[list[int]], np.ndarray]:
    """(clauses, variables): the standard Sudoku CNF of the module docstring, on the variables of
    candidate_variables."""
    n = order
    N = n * n
    var = candidate_variables(order, cells)
    boxes = var.reshape(n, n, n, n, N).transpose(0, 2, 1, 3, 4).reshape(N, N, N)  # [b, i, d]
    groups = itertools.chain(
        (var[r, c, :] for r in range(N) for c in range(N)),  # a cell holds one digit
        (var[r, :, d] for r in range(N) for d in range(N)),  # a row holds d once
        (var[:, c, d] for c in range(N) for d in range(N)),  # a column
        (boxes[b, :, d] for b in range(N) for d in range(N)),  # a box
    )
    clauses = []
    for group in groups:
        lits = [int(v) for v in group if v]
        clauses.append(lits)  # at least one (empty only where the givens clash)
        clauses += [[-a, -b] for a, b in itertools.combinations(lits, 2)]  # at most one
    r, c = np.nonzero(np.asarray(cells).reshape(N, N))
    clauses += [[int(var[i, j, cells[i * N + j] - 1])] for i, j in zip(r, c, strict=True)]
    return clauses, var


def solve_cadical(order: int, cells: np.ndarray, limit: float) -> dict:
    """CaDiCaL 1.9.5 (python-sat) on one instance; the process ends at `limit` seconds of
    solving (SIGALRM)."""
    import pysat
    from pysat.solvers import Solver

    start = time.perf_counter()
    clauses, var = sudoku_cnf(order, cells)
    if any(not clause for clause in clauses):  # two givens clash: nothing to search
        return {
            "status": "unsat",
            "seconds": 0.0,
            "build_seconds": time.perf_counter() - start,
            "solution": None,
            "version": f"CaDiCaL 1.9.5 (python-sat {pysat.__version__})",
        }
    solver = Solver(name="cadical195", bootstrap_with=clauses)
    built = time.perf_counter()
    signal.signal(signal.SIGALRM, signal.SIG_DFL)  # the default action ends the process
    signal.setitimer(signal.ITIMER_REAL, max(limit, 1e-3))
    found = solver.solve()
    seconds = time.perf_counter() - built
    signal.setitimer(signal.ITIMER_REAL, 0)
    solution = None
    if found:
        true = {lit for lit in solver.get_model() if lit > 0}
        N = order * order
        holds = np.isin(var, list(true)) & (var > 0)
        solution = (np.argmax(holds, axis=2) + 1).ravel()
        solution[~holds.any(axis=2).ravel()] = 0  # a cell without a true variable: left blank
        solution = [int(v) for v in solution.reshape(N * N)]
    solver.delete()
    return {
        "status": "solved" if found else "unsat",
        "seconds": seconds,
        "build_seconds": built - start,
        "solution": solution,
        "version": f"CaDiCaL 1.9.5 (python-sat {pysat.__version__})",
        "clauses": len(clauses),
        "variables": int((var > 0).sum()),
    }


def main(argv: list[str] | None = None) -> int:
    """Solve one instance file by one peer; print its JSON line."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("solver", choices=SOLVERS)
    ap.add_argument("file")
    ap.add_argument("limit", type=float)
    args = ap.parse_args(argv)
    try:
        order, cells = read_lloyd_amos(args.file)
    except (OSError, ValueError) as e:
        print(f"frontier_peers: {e}", file=sys.stderr)
        return 2
    solve = solve_cpsat if args.solver == "cp-sat" else solve_cadical
    print(json.dumps(solve(order, cells, args.limit)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
