"""Is a low-cost annealed 36x36 grid near a solution? Two probes at the fills annealing misses.

On 36x36 grids at 45-50 % filled the candidate-auto preset (candidate move) ends its time limit
at a few conflict pairs (anneal_peers.md: 0 of 3 solved in 60 s). Two ways to finish such a grid
with the exact solver, each measured here on the 36x36 training grids
(bench_exact_peers.instances_36, seed 37, not the reported instances):

    guided   the exact solver (exact_large.count_restarts, shipped rules) stopping at the first
             solution, with phase saving seeded from the annealed grid: every cell first tries
             the digit annealing left there. Beside it the same search unseeded (plain).
    repair   keep the annealed grid's cells that take part in no conflict, empty a random
             fraction f of them as well, and ask the exact solver whether that partial grid
             has a solution (limit 1). A contradiction at f means the kept cells are not all
             those of any solution: the annealed grid is not near one.

The 60 % grids, which annealing solves, are the control: there the kept cells are a solution's.

Annealing: the candidate-auto preset (candidate move, propagation first), --chains chains, one
seed, for --anneal-seconds; its best grid (the reported chain's lowest-cost grid). Exact
searches: one thread, node cap --max-nodes. Results:
benchmarks/results/exact/hybrid_36.{json,md}.

    python -m benchmarks.bench_hybrid_36 [--levels 45,50,60] [--per-level 5] [--anneal-seconds 3]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from benchmarks.bench_exact_peers import instances_36, one_thread
from benchmarks.machine import machine
from benchmarks.paths import results
from benchmarks.tables import add_out_arguments, rerender, table_block, write_results
from cpu_reference.sudoku import exact_large as large
from cpu_reference.sudoku.exact import RESTART_BASE
from cpu_reference.sudoku.verify import conflicted_cells
from gpu_anneal.sudoku_solver import solve_one

RESULTS = results("exact")
ORDER = 6
FRACTIONS = (0.0, 0.2, 0.4, 0.6)


def exact_first(cells: np.ndarray, max_nodes: int, phase: np.ndarray | None) -> dict:
    """Search for one solution (shipped rules, phase saving when seeded): count, nodes, s."""
    ws = large.workspace(ORDER, 64)
    rules = large.DEFAULT_RULES
    if phase is not None:
        ws[9][:] = phase
        rules |= large.PHASE
    solution = np.zeros(cells.size, np.uint8)
    start = time.perf_counter()
    count, nodes = large.count_restarts(
        cells, ORDER, 1, max_nodes, RESTART_BASE, rules, 0, ws, solution, large.ESCALATE_NODES
    )
    return {"count": int(count), "nodes": int(nodes), "seconds": time.perf_counter() - start}


def probe(name: str, cells: np.ndarray, args, rng: np.random.Generator) -> dict:
    """Anneal one grid, then both probes on its best grid."""
    r = solve_one(cells, ORDER, schedule="candidate-auto", move="candidate", propagate=True,
                  chains=args.chains, seed=args.seed, time_limit=args.anneal_seconds)  # fmt: skip
    best = np.asarray(r.best, np.uint8).reshape(-1)
    bad = conflicted_cells(best, ORDER)
    row = {"puzzle": name, "anneal_solved": bool(r.solved), "cost": int(r.cost),
           "conflicted_cells": int(bad.sum())}  # fmt: skip
    with one_thread():
        row["plain"] = exact_first(cells, args.max_nodes, None)
        row["guided"] = exact_first(cells, args.max_nodes, best.astype(np.int8) - 1)
        row["repair"] = []
        for f in FRACTIONS:
            free = bad | (rng.random(cells.size) < f)
            kept = np.where(free, 0, best).astype(np.uint8)
            kept[cells > 0] = cells[cells > 0]
            got = exact_first(kept, args.max_nodes, None)
            row["repair"].append({"fraction": f, "filled": float((kept > 0).mean()), **got})
    print(json.dumps({k: row[k] for k in ("puzzle", "cost", "plain", "guided")}), flush=True)
    return row


def render(result: dict) -> str:
    """The markdown report."""
    m = result["machine"]
    a = result["args"]
    lines = ["# Annealed 36x36 grids finished by the exact solver: two probes", "",
             f"Machine: {m['cpu']}, {m['cores']} cores, load average at start "
             f"{m['load_average_at_start']:.2f}, {m['date']}. Training grids (seed 37). "
             f"Annealing: candidate-auto preset, {a['chains']} chains, {a['anneal_seconds']:g} s; "
             f"exact searches one thread, node cap {a['max_nodes']:,}, count -1 = cap "
             "reached.", ""]  # fmt: skip
    cells = []
    for r in result["rows"]:
        p, g = r["plain"], r["guided"]
        cells.append((r["puzzle"], str(r["cost"]), str(r["conflicted_cells"]),
                      f"{p['count']}", f"{p['nodes']:,}", f"{p['seconds']:.2f}",
                      f"{g['count']}", f"{g['nodes']:,}", f"{g['seconds']:.2f}"))  # fmt: skip
    header = ("grid", "annealed cost", "cells in conflict", "plain count", "plain nodes",
              "plain s", "guided count", "guided nodes", "guided s")  # fmt: skip
    hard = [r for r in result["rows"] if not r["anneal_solved"]]
    settled = {k: sum(r[k]["count"] >= 0 for r in hard) for k in ("plain", "guided")}
    tail = (f"On the {len(hard)} grids annealing left unsolved: plain settled "
            f"{settled['plain']}, guided {settled['guided']}.")  # fmt: skip
    lines += table_block("## Guided: the exact solver seeded with the annealed grid", header,
                         cells, tail)  # fmt: skip
    verdicts = {}
    for r in hard:
        for x in r["repair"]:
            verdicts[x["count"]] = verdicts.get(x["count"], 0) + 1
    lines += [f"Repair on the grids annealing left unsolved: {verdicts.get(0, 0)} of "
              f"{sum(verdicts.values())} partial grids have no solution.", ""]  # fmt: skip
    cells = []
    for r in result["rows"]:
        for x in r["repair"]:
            verdict = {0: "contradiction", 1: "solution", -1: "cap"}[x["count"]]
            cells.append((r["puzzle"], f"{x['fraction']:.1f}", f"{100 * x['filled']:.1f}",
                          verdict, f"{x['nodes']:,}"))  # fmt: skip
    lines += table_block("## Repair: the annealed grid's conflict-free cells kept, a fraction f "
                         "of them emptied", ("grid", "f", "filled %", "exact", "nodes"), cells,
                         f"Command: `{result['command']}`")  # fmt: skip
    return "\n".join(lines)


def main() -> None:
    """Run the probes and write the results."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", default="45,50,60")
    ap.add_argument("--per-level", type=int, default=5)
    ap.add_argument("--anneal-seconds", type=float, default=3.0)
    ap.add_argument("--chains", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-nodes", type=int, default=60_000)
    add_out_arguments(ap, RESULTS / "hybrid_36")
    args = ap.parse_args()
    if args.render:
        rerender(args.out, render)
        return
    levels = {int(x) for x in args.levels.split(",")}
    rows = [r for r in instances_36(args.per_level, seed=37) if int(r[0].split("_")[1]) in levels]
    solve_one(rows[0][2], ORDER, schedule="candidate-auto", move="candidate", propagate=True,
              chains=2, seed=1, time_limit=0.5)  # fmt: skip
    exact_first(rows[0][2], 10, None)  # compile before any clock
    rng = np.random.default_rng(args.seed)
    command = "python -m benchmarks.bench_hybrid_36 " + " ".join(sys.argv[1:])
    result = {"machine": machine(), "args": vars(args),
              "rows": [probe(name, cells, args, rng) for name, _, cells in rows],
              "command": command}  # fmt: skip
    write_results(args.out, result, render)


if __name__ == "__main__":
    main()
