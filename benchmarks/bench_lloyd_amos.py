"""The engine's default on Lloyd & Amos' published 25x25 set, fill level by fill level.

    python -m benchmarks.bench_lloyd_amos [--data ../shared/data/sudoku] [--size 25]
        [--levels 30,35,40,45,50,55,60] [--per-level 10] [--limit 10] [--chains 2] [--seed 1]
        [--method impasse [--t0 T]] [--peers cp-sat] [--out PATH]

The set (general_{N}x{N}.tsv: names inst{N}x{N}_{f}_{k}, every `_f_k` cut from the full grid
`_100_k`) is the published reference for large Sudoku by stochastic search. For each level the
first `--per-level` instances are solved one after the other by `gpu_anneal.solve` with the
default method (auto: from 25x25 up on the cores the impasse chains, at 25x25 after the exact
search up to a few thousand branch values) under `--limit` seconds, `--chains` chains a puzzle.
`--method impasse` runs the chains alone, and `--t0` with it holds every chain at that
temperature instead of the band's for the order and fill. `--peers cp-sat` (the bench extra)
solves the same instances with CP-SAT, one worker, under the same limit, in the same run.

Per level and solver: solved, median, 90th percentile and slowest seconds (the search alone:
the engine's timing.search, compiling excluded; CP-SAT's solve, its model's building
excluded), an unsolved instance counting as infinitely slow, and the engine's held temperature.
Written to benchmarks/results/frontier/lloyd_amos_25x25.{json,md} unless `--out` says where.

Glossary:
    level      the percent of cells given, a multiple of 5 (Lloyd & Amos' f)
    k          an instance's number within its level
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.frontier_instances import lloyd_amos_set
from benchmarks.machine import machine, made_by
from benchmarks.paths import SUDOKU_DATA, results
from benchmarks.tables import (
    add_out_arguments,
    int_list,
    made_sentence,
    rerender,
    secs,
    table_block,
    write_results,
)

PEERS = ("cp-sat",)


def level_instances(path: Path, levels: list[int], per_level: int) -> dict[int, list]:
    """level -> its first `per_level` puzzles (by k) of the set at `path`, for each level."""
    chosen: dict[int, list] = {level: [] for level in levels}
    for level, k, puzzle in lloyd_amos_set(path):
        if level in chosen and k < per_level:
            chosen[level].append(puzzle)
    return chosen


def engine_rows(puzzles: list, args) -> list[dict]:
    """One row per puzzle of the engine's default run on them: name, solved, seconds, moves
    and the held temperature."""
    import gpu_anneal

    rows = []
    for result in gpu_anneal.solve(
        puzzles,
        method=args.method,
        chains=args.chains,
        seed=args.seed,
        time_limit=args.limit,
        t0=args.t0,
    ):
        rows.append({
            "solver": "gpu-anneal", "name": result.name, "solved": bool(result.solved),
            "seconds": result.timing.search if result.timing else None,
            "moves": (result.counts.proposals or 0) if result.counts else 0,
            "t0": result.params.t0 if result.params else None, "method": result.method,
        })  # fmt: skip
    return rows


def peer_rows(puzzles: list, args) -> list[dict]:
    """One row per puzzle of CP-SAT (one worker) under the same limit."""
    from benchmarks.frontier_peers import solve_cpsat

    rows = []
    for puzzle in puzzles:
        cells = np.asarray(puzzle.cells, np.int64).ravel()
        out = solve_cpsat(puzzle.order, cells, args.limit)
        rows.append({
            "solver": "cp-sat", "name": puzzle.name, "solved": out["status"] == "solved",
            "seconds": out["seconds"], "version": out["version"],
        })  # fmt: skip
    return rows


def summary(rows: list[dict]) -> dict:
    """solved, instances, median, p90 and max seconds of a level's rows (an unsolved one
    counting as infinitely slow: None where the statistic falls on one)."""
    times = sorted(r["seconds"] if r["solved"] else math.inf for r in rows)

    def finite(x: float) -> float | None:
        return x if math.isfinite(x) else None

    return {
        "solved": sum(r["solved"] for r in rows), "instances": len(rows),
        "median": finite(statistics.median(times)),
        "p90": finite(times[min(len(times) - 1, math.ceil(0.9 * len(times)) - 1)]),
        "max": finite(times[-1]),
    }  # fmt: skip


def seconds_text(value: float | None, limit: float) -> str:
    """A summary's seconds, or '> LIMIT s' where the statistic falls on an unsolved instance."""
    return secs(value) if value is not None else f"> {limit:g} s"


def render(result: dict) -> str:
    """The report: a table of solved and seconds per level and solver."""
    header = ("fill %", "solver", "T", "solved", "by exact", "median", "p90", "slowest",
              "median moves")  # fmt: skip
    cells = []
    for level in result["levels"]:
        for solver in result["solvers"]:
            part = [r for r in result["rows"] if r["level"] == level and r["solver"] == solver]
            if not part:
                continue
            s = summary(part)
            temps = sorted({r["t0"] for r in part if r.get("t0") is not None})
            moves = [r["moves"] for r in part if r["solved"] and "moves" in r]
            cells.append((
                str(level), solver, "/".join(f"{t:g}" for t in temps) or "-",
                f"{s['solved']}/{s['instances']}",
                str(sum(r["solved"] and r.get("method") == "exact" for r in part))
                if solver == "gpu-anneal" else "-",
                *(seconds_text(s[k], result["limit"]) for k in ("median", "p90", "max")),
                f"{statistics.median(moves) / 1e6:.3g} M" if moves else "-",
            ))  # fmt: skip
    tail = (
        "Seconds: the search alone (the engine's timing.search, compiling excluded; CP-SAT's "
        "solve, its model's building excluded), one instance at a time; an unsolved instance "
        "counts as infinitely slow. T: the engine's held temperature. By exact: solved by the "
        "exact search the default runs first at 25x25 (`impasse_solver.EXACT_FIRST_NODES`). "
        "Median moves: every chain's moves of a solved instance, the median over the solved "
        "(0 for one the exact search solved)."
    )
    head = [
        f"# Lloyd & Amos' {result['size']}x{result['size']} set: the engine's default by fill",
        "",
        made_sentence(result)
        + f" The first {result['per_level']} instances of each level, {result['chains']} chains "
        f"a puzzle, seed {result['seed']}, {result['limit']:g} s an instance.",
        "",
    ]
    body = table_block("## Solved and seconds by fill", header, cells, tail)
    return "\n".join(head + body)


def main(argv: list[str] | None = None) -> int:
    """Run every level with the engine (and the peers asked for); write the results."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(SUDOKU_DATA), help="folder of general_NxN.tsv")
    ap.add_argument("--size", type=int, default=25, help="the set's side: 9, 16 or 25")
    ap.add_argument("--levels", type=int_list, default=[30, 35, 40, 45, 50, 55, 60])
    ap.add_argument("--per-level", type=int, default=10)
    ap.add_argument("--limit", type=float, default=10.0, help="seconds an instance")
    ap.add_argument("--chains", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--method", choices=("auto", "impasse"), default="auto")
    ap.add_argument("--t0", type=float, default=None, help="--method impasse's held temperature")
    ap.add_argument("--peers", default="", help="comma-separated: cp-sat")
    add_out_arguments(ap, results("frontier") / "lloyd_amos_25x25")
    args = ap.parse_args(argv)
    if args.render:
        rerender(args.out, render)
        return 0
    if args.t0 is not None and args.method != "impasse":
        print("--t0 holds the impasse chains: give --method impasse with it", file=sys.stderr)
        return 2
    peers = [p for p in args.peers.split(",") if p]
    unknown = [p for p in peers if p not in PEERS]
    if unknown:
        print(f"--peers: {unknown[0]!r} is not one of {', '.join(PEERS)}", file=sys.stderr)
        return 2
    path = Path(args.data) / f"general_{args.size}x{args.size}.tsv"
    if not path.is_file():
        print(f"--data: {path} is not a file", file=sys.stderr)
        return 2
    started = time.time()
    result = {**made_by("bench_lloyd_amos", argv), "machine": machine("ortools")}
    chosen = level_instances(path, args.levels, args.per_level)
    rows = []
    for level in args.levels:
        for solve in (engine_rows, *(peer_rows for _ in peers)):
            for row in solve(chosen[level], args):
                rows.append({"level": level, **row})
                print(rows[-1], flush=True)
    result.update(
        size=args.size, levels=args.levels, per_level=args.per_level, limit=args.limit,
        chains=args.chains, seed=args.seed, method=args.method, t0=args.t0,
        solvers=["gpu-anneal", *peers], rows=rows, wall_seconds=time.time() - started,
    )  # fmt: skip
    write_results(args.out, result, render)
    return 0


if __name__ == "__main__":
    sys.exit(main())
