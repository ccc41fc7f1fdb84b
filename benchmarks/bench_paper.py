"""Sirdey's table reproduced: mean trials on the paper's four grids, both parameter sets.

The paper prints only the solutions of its four "diabolical" grids (tables I-IV, 23, 26, 25 and
24 givens; the boxed givens were lost). Each solution is emptied at random, keeping the solution
unique, down to the paper's number of givens; then R runs of one chain each measure the
success probability per trial and the mean trials to solve, with the course schedule
(T0 = 810) and the paper's (e_P = 16202), Sirdey's move, the stall rule at its default.
The seed 002 grids are measured too. Results: benchmarks/results/paper.json and .md.

    python benchmarks/bench_paper.py [--runs 20] [--time-limit 60]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.machine import machine  # noqa: E402
from cpu_reference.sudoku.exact import solve_exact  # noqa: E402
from cpu_reference.sudoku.formats import format_grid, read_puzzles  # noqa: E402
from gpu_anneal.tts import measure_puzzle  # noqa: E402

PAPER_TRIALS = {23: 7.69, 26: 2.28, 25: 3.85, 24: 2.38}


def empty_to(solution: np.ndarray, givens: int, seed: int, tries: int = 200) -> np.ndarray:
    """A puzzle with exactly `givens` givens whose only solution is `solution`."""
    rng = np.random.default_rng(seed)
    for _ in range(tries):
        puzzle = solution.copy()
        for c in rng.permutation(81):
            if np.count_nonzero(puzzle) == givens:
                return puzzle
            keep = puzzle[c]
            puzzle[c] = 0
            if solve_exact(puzzle, 3, limit=2)[0] != 1:
                puzzle[c] = keep
    raise RuntimeError(f"no unique puzzle with {givens} givens found in {tries} tries")


def main() -> None:
    """Build the puzzles, measure them under both schedules, write the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=2006)
    args = parser.parse_args()
    solutions = read_puzzles(ROOT / "tests/data/sirdey_paper_solutions.txt")
    puzzles = []
    for i, (sol, givens) in enumerate(zip(solutions, (23, 26, 25, 24), strict=True)):
        cells = empty_to(sol.cells, givens, args.seed + i)
        puzzles.append({"name": f"table {'I II III IV'.split()[i]}", "givens": givens,
                        "paper_mean_trials": PAPER_TRIALS[givens],
                        "puzzle": format_grid(cells, 3, "line"), "cells": cells})  # fmt: skip
    for p in read_puzzles(ROOT / "tests/data/seed002_grids.txt"):
        puzzles.append({"name": f"seed 002 {p.name}", "givens": p.givens,
                        "paper_mean_trials": None, "puzzle": format_grid(p.cells, 3, "line"),
                        "cells": p.cells})  # fmt: skip
    rows = []
    started = time.time()
    for schedule in ("sirdey-course", "sirdey-paper"):
        for j, p in enumerate(puzzles):
            r = measure_puzzle(p["cells"], 3, runs=args.runs, schedule=schedule,
                               seed=args.seed + 100 * j, time_limit=args.time_limit)  # fmt: skip
            row = {"schedule": schedule, "name": p["name"], "givens": p["givens"],
                   "puzzle": p["puzzle"], "paper_mean_trials": p["paper_mean_trials"],
                   **r.as_dict()}  # fmt: skip
            rows.append(row)
            print(f"{schedule} {p['name']}: solved {r.solved_runs}/{r.runs}, mean trials "
                  f"{r.mean_trials:.2f}, p in [{r.p_low:.3f}, {r.p_high:.3f}], "
                  f"{r.seconds_per_trial:.3f} s/trial", flush=True)  # fmt: skip
    result = {"machine": machine(), "runs": args.runs, "time_limit": args.time_limit,
              "wall_seconds": time.time() - started, "rows": rows}  # fmt: skip
    out = ROOT / "benchmarks/results/paper"
    out.with_suffix(".json").write_text(json.dumps(result, indent=1, allow_nan=False))
    m = result["machine"]
    lines = [
        "# Sirdey's table, reproduced on puzzles built from the paper's solutions",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, load {m['load_average']}, {m['date']}. "
        f"{args.runs} runs of one chain per puzzle, {args.time_limit:g} s per run, Sirdey's "
        "move, stall rule 10,000 plateaus at the course's cooling rate (scaled by (e_P + 1) / "
        "811: 199,790 for the paper's e_P = 16202). Mean trials = trials / solved runs; its 95 % "
        "range "
        "is 1/p over the Clopper-Pearson interval of p.",
        "",
        "| schedule | grid | givens | paper mean trials | our mean trials | 1/p range "
        "| solved runs | s per trial (one core) |",
        "| --- | --- | ---: | ---: | ---: | --- | ---: | ---: |",
    ]
    for r in rows:
        mean = f"{r['mean_trials']:.2f}" if r["mean_trials"] is not None else "-"
        lo = 1 / r["p_high"] if r["p_high"] else float("inf")
        hi = 1 / r["p_low"] if r["p_low"] else float("inf")
        paper = r["paper_mean_trials"] if r["paper_mean_trials"] is not None else "-"
        lines.append(f"| {r['schedule']} | {r['name']} | {r['givens']} | {paper} | {mean} | "
                     f"{lo:.2f}-{hi:.2f} | {r['solved_runs']}/{r['runs']} | "
                     f"{r['seconds_per_trial']:.3f} |")  # fmt: skip
    lines += ["", "Command: `python benchmarks/bench_paper.py "
              f"--runs {args.runs} --time-limit {args.time_limit:g}`"]  # fmt: skip
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
