"""Annealing with the exact solver beside it at the frontier (36x36 and up near the hardest
fill): two hybrids measured against the same annealing alone, on training instances (--seed 2,
the default) or bench_frontier's own (--seed 1).

Experiments, not engine options. Every method anneals one puzzle on 2 chains of the default
technique (the `auto` band of the order, the focused move, deduction first), on the numba
threads of this process, in slices of SLICE plateaus; after each slice:

    anneal SLICE                 nothing else (the baseline, in the same harness)
    repair SLICE:COST:NODES      large-neighbourhood repair: each chain whose cost is at most
                                 COST gives up its cells in conflict and every free cell of
                                 their rows, columns and boxes; the exact solver (restarted
                                 searches, at most NODES branch values) completes the rest of
                                 the chain's grid or refutes it
    guided SLICE:NODES           solution-guided search: the exact solver on the puzzle itself
                                 (restarted searches, at most NODES branch values), each cell
                                 trying first the digit the lowest-cost chain holds there
    search SLICE:NODES           the same searches unguided (each cell trying first the digit
                                 the solver's own rule picks): guided's control

A solution counts when the verifier passes it within --limit wall seconds. Each row also says
how the hybrid's searches ended: refuted by deduction alone, refuted by search, cut at NODES.
Results: benchmarks/results/tuning/frontier_hybrid_{N}x{N}_{fill}.{json,md}.

    python -m benchmarks.bench_frontier_hybrid [--order 6] [--fill 50] [--count 3] [--seed 2]
        [--limit 60] [--method "repair 20:8:5000" ...]
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.bench_tempering import finished
from benchmarks.frontier_chains import (
    instance_arguments,
    instances_label,
    method_tables,
    times_text,
)
from benchmarks.frontier_instances import make_instances
from benchmarks.machine import machine
from benchmarks.paths import results
from benchmarks.tables import table_block
from cpu_reference.anneal.rng import init_states
from cpu_reference.sudoku import exact_large, presets, rules
from cpu_reference.sudoku.batch import load_puzzle, logic_fill, make_batch, run_slice_cpu
from cpu_reference.sudoku.layout import layout
from cpu_reference.sudoku.schedules import by_name
from cpu_reference.sudoku.verify import conflicted_cells

RESULTS = results("tuning")
METHODS = ("anneal 200", "repair 20:8:5000", "guided 3000:5000", "search 3000:5000")
CHAINS = 2


def around(order: int, cells: np.ndarray) -> np.ndarray:
    """bool[cells of the order]: every cell sharing a row, column or box with one of `cells`."""
    units = layout(order).cell_units  # row, column and box of each cell, distinct numbers
    return np.isin(units, units[cells]).any(axis=1)


def _exact(cells: np.ndarray, order: int, nodes: int, seed: int, ws, phase=None) -> tuple:
    """Restarted exact searches on cells (uint8, 0 blank) under `nodes` branch values:
    (count 1, 0 refuted or -1 cut, nodes, the solution found)."""
    solution = np.zeros(cells.size, np.uint8)
    ws[9][:] = -1 if phase is None else phase
    rule = exact_large.DEFAULT_RULES | (exact_large.PHASE if phase is not None else 0)
    count, spent = exact_large.count_restarts(
        cells, order, 1, nodes, 500, rule, seed, ws, solution, exact_large.ESCALATE_NODES
    )
    return int(count), int(spent), solution


def hybrid(cells, order: int, method: str, limit: float, seed: int) -> dict:
    """One puzzle by `method` (see the module docstring): {"status", "seconds", "solution",
    "by", "searches", "refuted_at_root", "refuted", "cut"}."""
    kind, spec = method.split()
    parts = [int(x) for x in spec.split(":")]
    filled, masks = logic_fill(cells, order)
    schedule = by_name(presets.expand("auto", order), order)
    move = rules.move_code("focused", order)
    batch = make_batch(filled[None], order, schedule, CHAINS, seed, move=move)
    load_puzzle(batch, 0, filled, init_states(CHAINS, seed), masks)
    ws = exact_large.workspace(order, 64)
    free = filled == 0
    tally = {"searches": 0, "refuted_at_root": 0, "refuted": 0, "cut": 0}
    solution, by = None, None
    start = time.perf_counter()
    while solution is None and time.perf_counter() - start < limit:
        run_slice_cpu(batch, parts[0])
        annealed = finished(batch, filled.size, start)
        if annealed["solved"]:
            solution, by = annealed["grid"], "anneal"
            break
        for sub, phase in _searches(kind, parts, batch, filled, free):
            count, spent, found = _exact(sub, order, parts[-1], tally["searches"] + 1, ws, phase)
            tally["searches"] += 1
            if count == 1:
                solution, by = found, kind
                break
            key = "cut" if count < 0 else "refuted_at_root" if spent == 0 else "refuted"
            tally[key] += 1
    seconds = time.perf_counter() - start
    return {
        "status": "solved" if solution is not None else "unsolved",
        "seconds": seconds,
        "solution": None if solution is None else solution.astype(np.int64).tolist(),
        "by": by,
        **tally,
    }


def _searches(kind: str, parts: list[int], batch, filled, free):
    """The exact searches one slice asks for: (cells, phase or None) pairs."""
    cost = batch.ctr[:CHAINS, rules.C_COST]
    if kind == "guided":
        grid = batch.grid(int(np.argmin(cost))).astype(np.int64)
        yield filled.astype(np.uint8), (grid - 1).astype(np.int8)
    elif kind == "search":
        yield filled.astype(np.uint8), None
    elif kind == "repair":
        for g in np.flatnonzero(cost <= parts[1]):
            grid = batch.grid(int(g)).astype(np.int64)
            bad = np.flatnonzero(conflicted_cells(grid, batch.order))
            opened = around(batch.order, bad) & free
            yield np.where(opened, 0, grid).astype(np.uint8), None


def measure(args) -> dict:
    """Every method on every instance, one at a time."""
    facts = machine()  # the load average before the run
    instances = make_instances([args.order], [args.fill], args.count, args.seed)
    methods = args.method or list(METHODS)
    for method in methods:  # compiles every part before any clock
        hybrid(instances[0].cells.astype(np.uint8), args.order, method, 0.5, args.seed)
    table = method_tables(methods, instances, args.limit, lambda method, index, inst: hybrid(
        inst.cells.astype(np.uint8), args.order, method, args.limit, args.seed))  # fmt: skip
    command = "python -m benchmarks.bench_frontier_hybrid " + shlex.join(sys.argv[1:])
    run = {"machine": facts, "command": command}
    return {"machine": facts, "args": vars(args), "table": table, "runs": [run]}


def appended(earlier: dict, result: dict) -> dict:
    """`result`'s methods added to an earlier run's on the same instances (--append): the
    earlier rows of a method measured again are replaced."""
    a, b = earlier["args"], result["args"]
    same = ("order", "fill", "count", "seed", "limit")
    if any(a[k] != b[k] for k in same):
        raise ValueError(
            f"--append: the earlier run measured {', '.join(f'{k} {a[k]}' for k in same)}"
        )
    methods = {r["method"] for r in result["table"]}
    table = [r for r in earlier["table"] if r["method"] not in methods] + result["table"]
    return {**earlier, "table": table, "runs": earlier["runs"] + result["runs"]}


def render(result: dict) -> str:
    """The markdown report of one run."""
    a = result["args"]
    size = f"{a['order'] ** 2}x{a['order'] ** 2}"
    which = instances_label(a["seed"])
    cells = []
    for r in result["table"]:
        rows = r["rows"]
        by = ", ".join(f"{x['instance']} by {x['by']}" for x in rows if x["solved"]) or "-"
        searches = sum(x["searches"] for x in rows)
        ends = (
            "-"
            if not searches
            else (
                f"{searches}: {sum(x['refuted_at_root'] for x in rows)} refuted by deduction, "
                f"{sum(x['refuted'] for x in rows)} by search, {sum(x['cut'] for x in rows)} cut"
            )
        )
        cells.append((r["method"], f"{r['solved']}/{r['instances']}", times_text(r["times"]), by,
                      ends))  # fmt: skip
    lines = [f"# Annealing with the exact solver beside it: {size} at {a['fill']} %, {which}",
             "", f"Instances: seed {a['seed']}, {a['count']} of them. Limit {a['limit']:g} s "
             "wall a puzzle. Every method: 2 "
             "chains of the default technique in slices of SLICE plateaus; repair "
             "SLICE:COST:NODES opens the units of a chain's conflicts when its cost is at most "
             "COST and lets the exact solver complete the rest of its grid; guided "
             "SLICE:NODES runs the exact solver on the puzzle, each cell trying the "
             "lowest-cost chain's digit first; search SLICE:NODES, its control, runs the same "
             "searches unguided (`benchmarks/bench_frontier_hybrid.py`).",
             ""]  # fmt: skip
    lines += table_block(
        "## Results",
        ("method", "solved", "seconds of the solved", "solved by", "exact searches"),
        cells,
        "",
    )[:-2]
    lines += ["## Runs", ""]
    for run in result["runs"]:
        m, when = run["machine"], run.get("facts_at", "start")
        load = m["load_average_at_start"]
        lines.append(f"- `{run['command']}`: {m['cpu']}, {m['cores']} cores, {m['date']} (the "
                     f"{when}), load average {load:.2f} at the {when}")  # fmt: skip
    return "\n".join(lines) + "\n"


def main() -> None:
    """Parse the flags, measure, write the results files."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    instance_arguments(ap)
    ap.add_argument("--method", action="append",
                    help=f"repeatable; default: {', '.join(METHODS)}")  # fmt: skip
    ap.add_argument("--out", default=None)
    ap.add_argument("--append", action="store_true",
                    help="add the methods to OUT.json's run on the same instances")  # fmt: skip
    args = ap.parse_args()
    for method in args.method or []:
        kind, _, spec = method.partition(" ")
        need = {"anneal": 1, "repair": 3, "guided": 2, "search": 2}.get(kind)
        if need is None or len(spec.split(":")) != need or not spec.replace(":", "").isdigit():
            ap.error(f"--method {method!r}: expected 'anneal SLICE', 'repair SLICE:COST:NODES', "
                     "'guided SLICE:NODES' or 'search SLICE:NODES'")  # fmt: skip
    size = f"{args.order**2}x{args.order**2}"
    out = Path(args.out or RESULTS / f"frontier_hybrid_{size}_{args.fill}")
    earlier = out.with_suffix(".json")
    if args.append and not earlier.exists():
        ap.error(f"--append: {earlier} does not exist")
    result = measure(args)
    if args.append:
        try:
            result = appended(json.loads(earlier.read_text()), result)
        except ValueError as e:
            ap.error(str(e))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(result, indent=1, allow_nan=False))
    out.with_suffix(".md").write_text(render(result))


if __name__ == "__main__":
    main()
