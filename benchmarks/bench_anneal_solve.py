"""Annealing solves with a schedule and move: 4x4 puzzles, the seed 002 grids, top95.

Every puzzle gets `--chains` chains on all cores and `--time-limit` seconds; the script records
solved or not, trials, proposals and seconds per puzzle, the mean trials per solved puzzle (the
paper's figure) and the seconds per trial of one core, in benchmarks/results/anneal/<name>.json
and .md.

    python -m benchmarks.bench_anneal_solve --top95 ../shared/data/sudoku/top95.txt \
        [--schedule sirdey-course] [--move sirdey] [--t0 T] [--limit 95] [--name anneal_solve]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from benchmarks.machine import machine
from benchmarks.paths import ROOT, SUDOKU_DATA, results
from cpu_reference.sudoku.formats import read_puzzles
from cpu_reference.sudoku.schedules import with_start
from gpu_anneal.backends import cpu_threads
from gpu_anneal.generation import generate_puzzles
from gpu_anneal.sudoku_solver import solve_one

SEED002 = ROOT / "tests/data/seed002_grids.txt"


def unique_4x4(count: int, seed: int) -> list[np.ndarray]:
    """Random minimal 4x4 puzzles with a unique solution (generation's emptying)."""
    made, _ = generate_puzzles(2, count, seed=seed, method="backtrack", tries=1)
    return [m["puzzle"] for m in made]


def run_set(name, puzzles, order, args) -> dict:
    """Solve each puzzle in turn; per-puzzle rows and a summary."""
    rows = []
    sched = with_start(args.schedule, order, args.t0)
    for i, cells in enumerate(puzzles):
        r = solve_one(
            cells, order, schedule=sched, chains=args.chains, seed=args.seed + i,
            time_limit=args.time_limit, move=args.move,
        )  # fmt: skip
        rows.append({"index": i, "givens": int(np.count_nonzero(cells)), "solved": r.solved,
                     "trials": r.trials, "proposals": r.proposals, "seconds": r.seconds,
                     "cost": r.cost})  # fmt: skip
        print(f"{name} {i}: solved={r.solved} trials={r.trials} {r.seconds:.2f} s", flush=True)
    solved = [r for r in rows if r["solved"]]
    trials = sum(r["trials"] for r in rows)
    busy = min(args.chains, cpu_threads())
    core_seconds = sum(r["seconds"] * busy for r in rows)
    return {
        "set": name,
        "puzzles": len(rows),
        "solved": len(solved),
        "mean_trials_per_solved": trials / len(solved) if solved else None,
        # each puzzle holds min(chains, cores) cores for its seconds
        "seconds_per_trial_one_core": core_seconds / trials if trials else None,
        "median_seconds": statistics.median(r["seconds"] for r in rows) if rows else None,
        "rows": rows,
    }


def main() -> None:
    """Run the sets and write the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top95", default=str(SUDOKU_DATA / "top95.txt"))
    parser.add_argument("--schedule", default="sirdey-course")
    parser.add_argument("--move", default="sirdey")
    parser.add_argument("--t0", type=float, default=None)
    parser.add_argument("--chains", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--limit", type=int, default=95, help="first N puzzles of top95")
    parser.add_argument("--fours", type=int, default=100, help="random unique 4x4 puzzles")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--name", default="anneal_solve")
    args = parser.parse_args()
    facts = machine()  # its load average before the runs
    started = time.time()
    sets = [
        run_set("4x4", unique_4x4(args.fours, args.seed), 2, args),
        run_set("seed002", [p.cells for p in read_puzzles(SEED002)], 3, args),
        run_set("top95", [p.cells for p in read_puzzles(args.top95)][: args.limit], 3, args),
    ]
    result = {"machine": facts, "schedule": args.schedule, "t0": args.t0, "move": args.move,
              "chains": args.chains, "time_limit": args.time_limit,
              "wall_seconds": time.time() - started, "sets": sets}  # fmt: skip
    out = results("anneal") / args.name
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(result, indent=1, allow_nan=False))
    m = result["machine"]
    lines = [
        f"# Annealing solves: schedule {args.schedule}"
        + (f" from T0 = {args.t0}" if args.t0 else "")
        + f", move {args.move}",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, load {m['load_average']}, {m['date']}. "
        f"{args.chains} chains per puzzle on all cores, {args.time_limit:g} s per puzzle. "
        "Seconds per trial: the cores a puzzle holds times its seconds, over its trials.",
        "",
        "| set | solved | mean trials per solved puzzle | seconds per trial (one core) "
        "| median seconds |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for s in sets:
        mt = f"{s['mean_trials_per_solved']:.2f}" if s["mean_trials_per_solved"] else "-"
        st = f"{s['seconds_per_trial_one_core']:.4f}" if s["seconds_per_trial_one_core"] else "-"
        lines.append(f"| {s['set']} | {s['solved']}/{s['puzzles']} | {mt} | {st} | "
                     f"{s['median_seconds']:.2f} |")  # fmt: skip
    lines += ["", "Paper (Sirdey 2006): 2.28-7.69 mean trials on its 23-26-given grids, about 3 s "
              "per trial on a 2006 laptop.", "",
              f"Command: `python -m benchmarks.bench_anneal_solve --schedule {args.schedule} "
              f"--move {args.move}" + (f" --t0 {args.t0}" if args.t0 else "")
              + f" --limit {args.limit} --name {args.name}`"]  # fmt: skip
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
