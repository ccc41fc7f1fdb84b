"""Benchmark of the Dask scale-out (gpu_anneal.scale) against one process, on the CPU.

The first `--count` puzzles of a 9x9 file (top95 by default) are annealed with the
candidate-restricted move, Sirdey's schedule started at T0 = 1.0 and one chain per puzzle, no time
limit and a trial cap, so that every result is reproducible. Three runs:

- one process: one `solve_batch` over all puzzles, numba on every core (compile time excluded);
- Dask, cold: `solve_on_dask(workers=W)`, timed from cluster start to the last result (worker
  start and numba compilation in each worker included);
- Dask, warm: the same on a local cluster whose workers have already compiled.

Each Dask run must give the same solved set and solutions as the one process (with one chain per
puzzle every field of every result is equal, which is checked too).

    python -m benchmarks.bench_dask [PATH] [--count 20] [--workers 2] [--chunk 2] [--out-dir DIR]

Results: benchmarks/results/scale/dask.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import replace
from pathlib import Path

import numba
import numpy as np

from benchmarks.machine import machine as _machine
from benchmarks.paths import ROOT, SUDOKU_DATA, results
from cpu_reference.sudoku.formats import read_puzzles
from cpu_reference.sudoku.schedules import sirdey
from gpu_anneal.run_plan import pool_plan
from gpu_anneal.scale import import_distributed, solve_chunk, solve_on_dask
from gpu_anneal.sudoku_solver import SolveResult, solve_batch


def machine() -> dict:
    """This machine's facts (benchmarks/machine.py) with dask, distributed versions."""
    return _machine("dask", "distributed")


FIELDS = ("solved", "verified", "cost", "trials", "proposals", "accepted", "solving_chain")


def record(r: SolveResult) -> dict:
    """The comparable fields of a result, with its solution as a digit string."""
    out = {"index": r.index, **{key: getattr(r, key) for key in FIELDS}}
    out["solution"] = None if r.solution is None else "".join(map(str, r.solution.tolist()))
    out["seconds"] = round(r.seconds, 3)
    return out


def compare(alone: list[dict], spread: list[dict]) -> dict:
    """Whether a Dask run has the one process's solved set, solutions and every other field."""
    by_index = {r["index"]: r for r in spread}
    same_set = {r["index"] for r in alone if r["solved"]} == {
        r["index"] for r in spread if r["solved"]
    }
    same_solutions = all(by_index[r["index"]]["solution"] == r["solution"] for r in alone)
    same_fields = all(
        all(by_index[r["index"]][key] == r[key] for key in FIELDS + ("solution",)) for r in alone
    )
    return {
        "results": len(spread),
        "solved": sum(r["solved"] for r in spread),
        "same_solved_set": same_set,
        "same_solutions": same_solutions,
        "every_field_equal": same_fields,
    }


def main() -> None:
    """Run the three configurations and write dask.json and dask.md."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", type=Path, nargs="?", default=SUDOKU_DATA / "top95.txt")
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--chunk", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-trials", type=int, default=100)
    ap.add_argument("--out-dir", type=Path, default=results("scale"))
    args = ap.parse_args()

    distributed = import_distributed()
    info = machine()
    puzzles = read_puzzles(str(args.path))[: args.count]
    grids = np.stack([p.cells for p in puzzles])
    schedule = sirdey(3, t0=1.0)
    settings = dict(
        chains=1, seed=args.seed, time_limit=None, max_trials=args.max_trials, move="candidate"
    )
    common = dict(schedule=schedule, backend="cpu", **settings)
    plan = pool_plan(3, slots=args.chunk, propagate=False, spare_chains=None, **common)

    solve_batch(grids[:1], 3, **{**common, "max_trials": 1})
    t0 = time.perf_counter()
    alone = [record(r) for r in solve_batch(grids, 3, **common)]
    alone_s = time.perf_counter() - t0
    print(f"one process: {alone_s:.2f} s, {sum(r['solved'] for r in alone)} solved", flush=True)

    t0 = time.perf_counter()
    cold = [record(r) for r in solve_on_dask(grids, 3, plan, workers=args.workers)]
    cold_s = time.perf_counter() - t0
    print(f"dask cold: {cold_s:.2f} s", flush=True)

    with (
        distributed.LocalCluster(
            n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        t0 = time.perf_counter()
        client.run(solve_chunk, grids[:1], 3, 0, replace(plan, max_trials=1), 0.2, 1)
        warmup_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        warm = [
            record(r) for r in solve_on_dask(grids, 3, plan, scheduler=cluster.scheduler_address)
        ]
        warm_s = time.perf_counter() - t0
    print(f"dask warm: {warm_s:.2f} s (compile in workers {warmup_s:.2f} s)", flush=True)

    report = {
        "machine": info,
        "input": {"path": os.path.relpath(args.path, ROOT), "puzzles": len(puzzles)},
        "settings": {
            **settings,
            "schedule": schedule.name,
            "t0": schedule.t0,
            "workers": args.workers,
            "threads_per_worker": 1,
            "chunk": args.chunk,
            "one_process_numba_threads": numba.config.NUMBA_NUM_THREADS,
        },
        "seconds": {
            "one_process": round(alone_s, 3),
            "dask_cold": round(cold_s, 3),
            "dask_warm": round(warm_s, 3),
            "worker_compile": round(warmup_s, 3),
        },
        "solved": sum(r["solved"] for r in alone),
        "dask_cold_vs_one_process": compare(alone, cold),
        "dask_warm_vs_one_process": compare(alone, warm),
        "one_process": alone,
        "dask_cold_completion_order": [r["index"] for r in cold],
        "dask_warm_completion_order": [r["index"] for r in warm],
    }
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "dask.json").write_text(json.dumps(report, indent=1, allow_nan=False) + "\n")
    (args.out_dir / "dask.md").write_text(markdown(report))
    print(json.dumps(report["seconds"], allow_nan=False), report["dask_cold_vs_one_process"])


def markdown(rep: dict) -> str:
    """The summary page of a report."""
    m, s, sec = rep["machine"], rep["settings"], rep["seconds"]
    load = m["load_average"]
    rows = [
        ("one process (numba, all cores; compile excluded)", sec["one_process"], None),
        ("Dask cold (cluster start + compile in workers)", sec["dask_cold"], "cold"),
        ("Dask warm (workers already compiled)", sec["dask_warm"], "warm"),
    ]
    lines = [
        "# Dask scale-out (gpu_anneal/scale.py) against one process",
        "",
        f"Machine: {m['cpu_model']}, {m['cores']} cores, Python {m['python']}, numba "
        f"{m['numba']}, dask {m['dask']}, distributed {m['distributed']}, {m['date'][:10]}. "
        f"Load average at start: {', '.join(f'{x:.1f}' for x in load) if load else 'n/a'}.",
        "",
        f"Input: the first {rep['input']['puzzles']} puzzles of "
        f"`{Path(rep['input']['path']).name}`. Settings: move `candidate`, schedule "
        f"`{s['schedule']}` with T0 = {s['t0']}, {s['chains']} chain per puzzle, seed "
        f"{s['seed']}, no time limit, at most {s['max_trials']} trials per puzzle. Dask: "
        f"{s['workers']} local worker processes of 1 thread, chunks of {s['chunk']} puzzles.",
        "",
        "| run | wall s | solved | same solved set | same solutions | every field equal |",
        "| --- | ---: | ---: | --- | --- | --- |",
    ]
    for name, seconds, key in rows:
        if key is None:
            lines.append(f"| {name} | {seconds:.2f} | {rep['solved']} | | | |")
        else:
            c = rep[f"dask_{key}_vs_one_process"]
            lines.append(
                f"| {name} | {seconds:.2f} | {c['solved']} | {c['same_solved_set']} | "
                f"{c['same_solutions']} | {c['every_field_equal']} |"
            )
    lines += [
        "",
        f"Compiling in the workers of the warm cluster took {sec['worker_compile']:.2f} s.",
        "Raw figures, per-puzzle trials and proposals, and the completion orders: `dask.json`.",
        "To reproduce: `python -m benchmarks.bench_dask`.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
