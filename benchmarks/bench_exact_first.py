"""The exact search for one solution as the impasse chains' head start: its branch values and
seconds per order and fill, under a cap.

    python -m benchmarks.bench_exact_first [--orders 5,6,7,8] [--fills 40,45,50,55,60] [--count 3]
        [--seed 4] [--max-nodes 5000] [--lloyd-amos DATA] [--levels 30,35,40,45,50]
        [--per-level 100] [--out PATH]

Each instance (Lewis-style ones of `--orders` and `--fills` made as bench_frontier makes them,
and with `--lloyd-amos` the first `--per-level` 25x25 instances of each of `--levels` in
Lloyd & Amos' set) is searched once by `solve_exact(limit=1)` (the exact-cover search with
restarts) up to `--max-nodes` branch values, one thread. Per set, order and fill: the instances
answered within the cap, the median and largest branch values and seconds of those answered.
It is what `impasse_solver.EXACT_FIRST_NODES` was chosen from.

Glossary:
    answered   the search found a solution (count 1) or ended without one (count 0) within
               the cap; count -1: the cap came first
    nodes      branch values tried (solve_exact's third value)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.bench_lloyd_amos import level_instances
from benchmarks.frontier_instances import make_instances
from benchmarks.machine import machine, made_by
from benchmarks.paths import results
from benchmarks.tables import (
    add_out_arguments,
    int_list,
    made_sentence,
    rerender,
    secs,
    table_block,
    write_results,
)
from cpu_reference.sudoku.exact import solve_exact


def search(cells, order: int, max_nodes: int) -> dict:
    """One capped search: count, nodes and seconds."""
    start = time.perf_counter()
    count, _, nodes = solve_exact(np.asarray(cells, np.uint8).ravel(), order, 1,
                                  max_nodes=max_nodes)  # fmt: skip
    return {"count": int(count), "nodes": int(nodes), "seconds": time.perf_counter() - start}


def lloyd_amos_rows(data: Path, levels: list[int], per_level: int, max_nodes: int) -> list:
    """One row per instance of Lloyd & Amos' 25x25 set at the levels asked (the first
    `per_level` of each)."""
    rows = []
    for level, puzzles in level_instances(data / "general_25x25.tsv", levels, per_level).items():
        for puzzle in puzzles:
            found = search(puzzle.cells, 5, max_nodes)
            rows.append({"set": "lloyd-amos", "order": 5, "fill": level, "name": puzzle.name,
                         **found})  # fmt: skip
    return rows


def lewis_rows(orders: list[int], fills: list[int], count: int, seed: int, max_nodes: int):
    """One row per Lewis-style instance (bench_frontier's making) of the orders and fills."""
    rows = []
    for inst in make_instances(orders, fills, count, seed):
        found = search(inst.cells, inst.order, max_nodes)
        rows.append({"set": f"lewis-seed{seed}", "order": inst.order, "fill": inst.fill,
                     "name": inst.name, **found})  # fmt: skip
    return rows


def render(result: dict) -> str:
    """The report: one row per set, order and fill."""
    header = ("set", "grid", "fill %", "answered", "median values", "most values",
              "median seconds", "slowest")  # fmt: skip
    cells = []
    keys = dict.fromkeys((r["set"], r["order"], r["fill"]) for r in result["rows"])
    for key in keys:
        part = [r for r in result["rows"] if (r["set"], r["order"], r["fill"]) == key]
        done = [r for r in part if r["count"] >= 0]
        nodes = [r["nodes"] for r in done]
        times = [r["seconds"] for r in done]
        side = key[1] ** 2
        cells.append((
            key[0], f"{side}x{side}", str(key[2]), f"{len(done)}/{len(part)}",
            f"{statistics.median(nodes):,.0f}" if done else "-",
            f"{max(nodes):,}" if done else "-",
            secs(statistics.median(times)) if done else "-", secs(max(times)) if done else "-",
        ))  # fmt: skip
    tail = (f"Answered: a solution found (or none proved) within {result['max_nodes']:,} branch "
            f"values (Lloyd & Amos' set: {result['la_max_nodes']:,}); values and seconds over "
            "those answered.")  # fmt: skip
    head = ["# The exact search as a head start: branch values by order and fill", "",
            made_sentence(result), ""]  # fmt: skip
    return "\n".join(head + table_block("## Branch values to an answer", header, cells, tail))


def main(argv: list[str] | None = None) -> int:
    """Search every instance asked; write the results."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--orders", type=int_list, default=[5, 6, 7, 8])
    ap.add_argument("--fills", type=int_list, default=[40, 45, 50, 55, 60])
    ap.add_argument("--count", type=int, default=3)
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--max-nodes", type=int, default=5000)
    ap.add_argument("--lloyd-amos", default=None, help="folder of general_25x25.tsv")
    ap.add_argument("--levels", type=int_list, default=[30, 35, 40, 45, 50])
    ap.add_argument("--per-level", type=int, default=100)
    ap.add_argument("--la-max-nodes", type=int, default=40000)
    add_out_arguments(ap, results("frontier") / "exact_first")
    args = ap.parse_args(argv)
    if args.render:
        rerender(args.out, render)
        return 0
    if args.lloyd_amos is not None and not (Path(args.lloyd_amos) / "general_25x25.tsv").is_file():
        print(f"--lloyd-amos: {args.lloyd_amos} holds no general_25x25.tsv", file=sys.stderr)
        return 2
    result = {**made_by("bench_exact_first", argv), "machine": machine()}
    for order in sorted({5, *args.orders}):  # compiled before any search is timed
        solve_exact(np.zeros(order**4, np.uint8), order, 1, max_nodes=1)
    rows = []
    if args.lloyd_amos is not None:
        rows += lloyd_amos_rows(Path(args.lloyd_amos), args.levels, args.per_level,
                                args.la_max_nodes)  # fmt: skip
    rows += lewis_rows(args.orders, args.fills, args.count, args.seed, args.max_nodes)
    result.update(max_nodes=args.max_nodes, la_max_nodes=args.la_max_nodes, rows=rows)
    write_results(args.out, result, render)
    return 0


if __name__ == "__main__":
    sys.exit(main())
