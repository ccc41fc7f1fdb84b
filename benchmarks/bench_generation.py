"""Generation benchmark (seed 002): full grids per second by method, minimal puzzles' givens.

Full grids: anneal (Sirdey's annealing, one chain per grid, schedule ``grid_schedule``: geometric
T0 = 0.3, ratio 0.98), permute (the seed's random swaps kept when the surplus drops, restarted
when stuck; moves "any" as in the seed and "row" as an option), backtrack (exact solver, random
value order). Every grid is checked by verify_solution and the count of distinct grids is given.
The seed's completion of given puzzles by permute is measured on its easy and 17-given grids.

Minimal puzzles: 100 random 9x9 grids emptied with the seed's defaults (Ti = 1, Tf = 0.15,
step = 0.0002), all cores; each puzzle checked unique by the exact solver and minimal by trying
every single removal. The seed's 17-given grid's solution (appendix A.2.f, 22 givens in 5.5 s)
is emptied with 10 seeds, one grid at a time (one core). A handful of 16x16 grids as well.

Usage: python -m benchmarks.bench_generation [--quick]
Writes benchmarks/results/generation/generation.json and generation.md.
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np

from benchmarks.machine import machine
from benchmarks.paths import results
from cpu_reference.sudoku.exact import count_solutions
from cpu_reference.sudoku.formats import parse_line
from cpu_reference.sudoku.verify import verify_solution
from gpu_anneal import generation as gen

OUT = results("generation")
EASY = "002370900007568402080090000100040800204000706006020001000050010501932600003086200"
HARD = "700000400020070080003008009000500300060020090001007006000300900030040060009001005"
SEVENTEEN = "000000010400000000020000000000050407008000300001090000300400200050100000000806000"
SEVENTEEN_SOLUTION = (
    "693784512487512936125963874932651487568247391741398625319475268856129743274836159"
)


def grids_run(order: int, count: int, method: str, seed: int, **kw) -> dict:
    """One timed generate_grids call, every grid re-verified here."""
    grids, stats = gen.generate_grids(order, count, method, seed, backend="cpu", **kw)
    ok = [i for i in range(count) if verify_solution(grids[i], order) is None]
    distinct = len({grids[i].tobytes() for i in ok})
    row = {
        "order": order,
        "method": method,
        "count": count,
        "verified": len(ok),
        "distinct": distinct,
        "seconds": stats["seconds"],
        "grids_per_second": stats["grids_per_second"],
    }
    for key in ("moves", "stuck", "restarts_per_grid", "restart_budget_spent", "trials",
                "proposals", "restarts"):  # fmt: skip
        if key in stats:
            row[key] = stats[key]
    print(json.dumps(row, allow_nan=False), flush=True)
    return row


def completion_run(name: str, line: str, method: str, count: int, **kw) -> dict:
    """Complete one of the seed's puzzles ``count`` times; how many succeed, how often stuck."""
    puzzle = parse_line(line)
    grids, stats = gen.generate_grids(3, count, method, seed=1, backend="cpu", givens=puzzle, **kw)
    ok = sum(verify_solution(g, 3, puzzle) is None for g in grids)
    row = {
        "puzzle": name,
        "givens": int(np.count_nonzero(puzzle)),
        "method": method,
        "count": count,
        "completed": int(ok),
        "seconds": stats["seconds"],
    }
    for key in ("moves", "max_restarts", "stuck", "restart_budget_spent", "restarts_per_grid"):
        if key in stats:
            row[key] = stats[key]
    print(json.dumps(row, allow_nan=False), flush=True)
    return row


def histogram(values: np.ndarray) -> dict:
    """{value: how many} over the distinct values."""
    keys, counts = np.unique(values, return_counts=True)
    return {int(k): int(v) for k, v in zip(keys, counts, strict=True)}


def minimize_run(order: int, grids: np.ndarray, seed: int, check: bool = True, **kw) -> dict:
    """Empty ``grids`` on all cores; distribution of givens, seconds, uniqueness and minimality."""
    start = time.perf_counter()
    results = gen.minimize_grids(grids, order, seed, **kw)
    wall = time.perf_counter() - start
    givens = np.array([r["givens"] for r in results])
    sa = np.array([r["sa_givens"] for r in results])
    unique = minimal = 0
    if check:
        for r in results:
            unique += count_solutions(r["puzzle"], order) == 1
            minimal += gen.check_minimal(r["puzzle"], order) == (True, True)
    row = {
        "order": order,
        "grids": len(results),
        "params": {
            "ti": kw.get("ti", gen.DEFAULT_TI),
            "tf": kw.get("tf", gen.DEFAULT_TF),
            "step": kw.get("step", gen.DEFAULT_STEP),
            "tries": kw.get("tries", gen.DEFAULT_TRIES),
        },
        "wall_seconds": round(wall, 3),
        "seconds_per_puzzle": round(wall / len(results), 4),
        "givens_min": int(givens.min()),
        "givens_median": float(np.median(givens)),
        "givens_mean": round(float(givens.mean()), 3),
        "givens_max": int(givens.max()),
        "givens_histogram": histogram(givens),
        "sa_givens_median": float(np.median(sa)),
        "sa_givens_histogram": histogram(sa),
        "checks_mean": round(float(np.mean([r["checks"] for r in results])), 1),
        "unique": int(unique) if check else None,
        "minimal": int(minimal) if check else None,
    }  # fmt: skip
    print(json.dumps(row, allow_nan=False), flush=True)
    return row


def seed_grid_runs(runs: int) -> dict:
    """The seed's A.2.f grid emptied with seeds 0..runs-1, one grid per call (one core)."""
    grid = parse_line(SEVENTEEN_SOLUTION)
    assert verify_solution(grid, 3, parse_line(SEVENTEEN)) is None
    givens, seconds = [], []
    for s in range(runs):
        start = time.perf_counter()
        rec = gen.minimize_grids(grid, 3, seed=s)[0]
        seconds.append(time.perf_counter() - start)
        givens.append(rec["givens"])
        assert gen.check_minimal(rec["puzzle"], 3) == (True, True)
    row = {
        "grid": "seed 002 A.2.f (solution of the 17-given grid)",
        "runs": runs,
        "givens": givens,
        "seconds": [round(x, 4) for x in seconds],
        "seconds_median": round(float(np.median(seconds)), 4),
    }
    print(json.dumps(row, allow_nan=False), flush=True)
    return row


def main() -> None:
    """Run the benchmark: parse the command line, measure, write the results."""
    quick = "--quick" in sys.argv
    info = machine()
    print(json.dumps(info, allow_nan=False), flush=True)
    # compile everything once
    for method in gen.METHODS:
        gen.generate_grids(3, 2, method, seed=99, backend="cpu")
    gen.minimize_grids(gen.generate_grids(3, 2, "backtrack", seed=98)[0], 3, seed=0, step=0.01)
    scale = 10 if quick else 1
    full = [
        grids_run(3, 4000 // scale, "anneal", 1),
        grids_run(3, 4000 // scale, "anneal", 2),
        grids_run(3, 20000 // scale, "backtrack", 1),
        grids_run(3, 100 // scale, "permute", 1, moves="any"),
        grids_run(3, 400 // scale, "permute", 1, moves="row"),
        grids_run(4, 16 // min(scale, 4), "anneal", 1),
        grids_run(4, 2000 // scale, "backtrack", 1),
        grids_run(5, 200 // scale, "backtrack", 1),
    ]
    completion = [
        completion_run("easy (A.1.a)", EASY, "permute", 20, max_restarts=100),
        completion_run("17 givens (A.1.d)", SEVENTEEN, "permute", 20, max_restarts=100),
        completion_run("very hard (A.1.b)", HARD, "permute", 20, max_restarts=100),
        completion_run("17 givens (A.1.d)", SEVENTEEN, "anneal", 20, time_limit=30.0),
        completion_run("easy (A.1.a)", EASY, "anneal", 20),
        completion_run("17 givens (A.1.d)", SEVENTEEN, "backtrack", 20),
    ]
    grids9, _ = gen.generate_grids(3, 100 // scale, "backtrack", seed=2024)
    minimal9 = minimize_run(3, grids9, seed=1, tries=1)
    minimal9_tries = minimize_run(3, grids9, seed=1, tries=4)
    seed_grid = seed_grid_runs(10 // min(scale, 5))
    grids16, _ = gen.generate_grids(4, 6 // min(scale, 3), "backtrack", seed=2024)
    minimal16 = minimize_run(4, grids16, seed=1, tries=1)
    result = {
        "machine": info,
        "grid_schedule": gen.grid_schedule(3).as_dict(),
        "full_grids": full,
        "completion_with_givens": completion,
        "minimal_9x9": minimal9,
        "minimal_9x9_tries4": minimal9_tries,
        "seed_grid_9x9": seed_grid,
        "minimal_16x16": minimal16,
        "quick": quick,
    }
    OUT.mkdir(parents=True, exist_ok=True)
    name = "generation_quick" if quick else "generation"
    (OUT / f"{name}.json").write_text(json.dumps(result, indent=1, allow_nan=False) + "\n")
    (OUT / f"{name}.md").write_text(markdown(result))


def markdown(r: dict) -> str:
    """The results as a short Markdown report."""
    m = r["machine"]
    lines = [
        "# Generation benchmark (seed 002)",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores ({m['numba_threads']} numba threads), "
        f"Python {m['python']}, numpy {m['numpy']}, numba {m['numba']}; {m['date']}; "
        f"load average at start {m['load_average_at_start']:.2f}. "
        "Command: `python -m benchmarks.bench_generation`.",
        "",
        "## Full grids (CPU backend, all cores)",
        "",
        "anneal: one chain per grid, geometric schedule T0 = 0.3, ratio 0.98 per plateau of "
        "`cells` moves, to T_f = 0.00274 (233 plateaus for 9x9), restarted until solved.",
        "",
        "| order | method | grids | verified | distinct | seconds | grids/s | notes |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in r["full_grids"]:
        notes = []
        if "moves" in row:
            notes.append(
                f"moves {row['moves']}, stuck {row['stuck']} times "
                f"({row['restarts_per_grid']} restarts/grid), budget spent "
                f"{row['restart_budget_spent']}"
            )
        if "trials" in row:
            notes.append(f"{row['trials'] / row['count']:.2f} trials/grid")
        N = row["order"] ** 2
        lines.append(
            f"| {N}x{N} | {row['method']} | {row['count']} | {row['verified']} | "
            f"{row['distinct']} | {row['seconds']:.2f} | {row['grids_per_second']:.0f} | "
            f"{'; '.join(notes)} |"
        )
    lines += [
        "",
        "## Completing the seed's puzzles (20 runs each)",
        "",
        "anneal with givens uses the schedule sirdey-course, one chain per run, 60 s limit "
        "(30 s for the 17-given puzzle); permute uses the seed's move (any two free cells).",
        "",
        "| puzzle | givens | method | completed | stuck | seconds |",
        "|---|---|---|---|---|---|",
    ]
    for row in r["completion_with_givens"]:
        stuck = row.get("stuck", "")
        if "max_restarts" in row:
            stuck = f"{stuck} (budget {row['max_restarts']} restarts/grid)"
        lines.append(
            f"| {row['puzzle']} | {row['givens']} | {row['method']} | "
            f"{row['completed']}/{row['count']} | {stuck} | {row['seconds']:.2f} |"
        )
    lines += ["", "## Minimal puzzles", ""]
    for key, title in (
        ("minimal_9x9", "9x9, one emptying per grid (the seed's method, --tries 1)"),
        ("minimal_9x9_tries4", "9x9, best of 4 emptyings per grid (the default, --tries 4)"),
        ("minimal_16x16", "16x16, one emptying per grid (--tries 1)"),
    ):
        row = r[key]
        lines += [
            f"### {title}: {row['grids']} random grids, Ti = {row['params']['ti']}, "
            f"Tf = {row['params']['tf']}, step = {row['params']['step']}, "
            f"tries = {row['params']['tries']}",
            "",
            f"- wall {row['wall_seconds']} s, {row['seconds_per_puzzle']} s per puzzle "
            "(all cores, amortised)",
            f"- givens: min {row['givens_min']}, median {row['givens_median']}, "
            f"mean {row['givens_mean']}, max {row['givens_max']}",
            f"- histogram (givens: puzzles): {row['givens_histogram']}",
            f"- before the greedy pass: median {row['sa_givens_median']}, "
            f"{row['sa_givens_histogram']}",
            f"- uniqueness checks per puzzle: {row['checks_mean']}",
            f"- unique (exact solver): {row['unique']}/{row['grids']}; minimal (every single "
            f"removal gives 2+ solutions): {row['minimal']}/{row['grids']}",
            "",
        ]
    s = r["seed_grid_9x9"]
    lines += [
        f"### {s['grid']}, {s['runs']} seeds, one core",
        "",
        f"- givens: {s['givens']} (seed 002: 22, in 5.5 s)",
        f"- seconds: {s['seconds']} (median {s['seconds_median']})",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
