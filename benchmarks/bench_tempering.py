"""Replica exchange (parallel tempering) on 25x25, measured beside the band and auto presets.

An experiment, not an engine option: R chains of one puzzle each hold one temperature of a
geometric ladder from T_LOW to T_HIGH (--ladder R:T_LOW:T_HIGH; Sirdey's one-cell move drawn
among candidates, propagation first, no restarts). After every --every plateaus the host
offers each pair of neighbouring rungs (even pairs, then odd pairs, alternating) an exchange
of temperatures, accepted with probability min(1, exp((beta_j - beta_i)(E_j - E_i))), the
textbook rule.
The chains run on the CPU runner's slices (all cores); each preset of --preset (band and
candidate-auto by default) runs as `gpu-anneal solve --schedule PRESET --move candidate --propagate`
with one chain per core (bench_anneal_peers.py's run_method). All see the same training
instances as bench_anneal_peers.py --tune (Lloyd & Amos 25x25, the instances the reported
benchmark skips), one seed, wall seconds per puzzle, unsolved within --limit counts as
infinitely slow. Results: benchmarks/results/tuning/tempering_25x25.{json,md}.

    python -m benchmarks.bench_tempering [--levels 35,40,45,50] [--per-level 8] [--limit 10]
        [--ladder R:T_LOW:T_HIGH ...] [--preset band --preset auto] [--every 5]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from benchmarks.bench_anneal_peers import (
    ANNEAL,
    DATA,
    run_method,
    summarize,
    training,
)
from benchmarks.machine import machine
from benchmarks.paths import results
from benchmarks.tables import table_block
from cpu_reference.anneal.fixed_point import beta_fixed
from cpu_reference.anneal.rng import init_states
from cpu_reference.sudoku import rules
from cpu_reference.sudoku.batch import (
    load_puzzle,
    logic_fill,
    make_batch,
    run_slice_cpu,
)
from cpu_reference.sudoku.schedules import by_name

RESULTS = results("tuning")
ORDER = 5
LADDERS = ("4:0.22:0.3", "4:0.22:0.34", "6:0.21:0.34", "2:0.23:0.27")
PRESETS = ("band", "candidate-auto")  # run with the candidate move


def tempering(
    cells, replicas, t_low, t_high, every, limit, seed, order=ORDER, move=rules.MOVE_CANDIDATE
) -> dict:
    """One puzzle by replica exchange: {"solved", "seconds", "swaps", "offers", "grid"}
    (grid: the solving chain's cells, None unsolved). The chains make `move` (a rules move
    code) on plateaus of the order's cells."""
    filled, masks = logic_fill(cells, order)
    held = replace(by_name("sirdey-course:stall=0", order), step=0.0, max_plateaus=10**11)
    batch = make_batch(filled[None], order, held, replicas, seed, move=move)
    load_puzzle(batch, 0, filled, init_states(replicas, seed), masks)
    betas = np.geomspace(1.0 / t_high, 1.0 / t_low, replicas)  # rung 0 hottest
    ladder = np.array([beta_fixed(b) for b in betas], np.int64)
    at_rung = np.arange(replicas)  # the chain holding each rung
    draw = np.random.default_rng(seed)
    swaps = offers = 0
    start = time.perf_counter()
    run_slice_cpu(batch, 1)  # every chain starts its trial (at t_high)
    batch.ctr[at_rung, rules.C_BETA] = ladder
    parity = 0
    while not (batch.ctr[:, rules.C_STATUS] == rules.SOLVED).any():
        if time.perf_counter() - start >= limit:
            break
        run_slice_cpu(batch, every)
        energy = batch.ctr[at_rung, rules.C_COST].astype(float)
        for r in range(parity, replicas - 1, 2):
            offers += 1
            x = (betas[r + 1] - betas[r]) * (energy[r + 1] - energy[r])
            if x >= 0 or draw.random() < math.exp(x):
                at_rung[[r, r + 1]] = at_rung[[r + 1, r]]
                energy[[r, r + 1]] = energy[[r + 1, r]]
                swaps += 1
        batch.ctr[at_rung, rules.C_BETA] = ladder
        parity ^= 1
    return {**finished(batch, filled.size, start), "swaps": swaps, "offers": offers}


def finished(batch, cells: int, start: float) -> dict:
    """{"solved", "seconds", "grid"} of a one-puzzle batch run since perf_counter() `start`:
    grid the first solving chain's `cells` digits (None unsolved)."""
    seconds = time.perf_counter() - start
    winners = np.flatnonzero(batch.ctr[:, rules.C_STATUS] == rules.SOLVED)
    grid = batch.best_vals[winners[0], :cells].copy() if winners.size else None
    return {"solved": bool(winners.size), "seconds": seconds, "grid": grid}


def measure(args) -> dict:
    """Every method on every level's training instances."""
    levels = tuple(int(x) for x in args.levels.split(","))
    picked = training(DATA / "general_25x25.tsv", levels, args.per_level)
    presets = args.preset or list(PRESETS)
    methods = presets + [f"tempering {ladder}" for ladder in args.ladder or LADDERS]
    facts = machine()  # its load average before the runs
    table = []
    for fill in levels:
        items = picked[fill]
        for method in methods:
            run_one(method, items[0][1], 0.3, args)  # compiles before any clock
            rows = [{"puzzle": name, **run_one(method, cells, args.limit, args)}
                    for name, cells in items]  # fmt: skip
            row = {"fill": fill, "method": method, "limit": args.limit, **summarize(rows),
                   "rows": rows}  # fmt: skip
            table.append(row)
            print(json.dumps({k: v for k, v in row.items() if k != "rows"}), flush=True)
    command = "python -m benchmarks.bench_tempering " + " ".join(sys.argv[1:])
    return {"machine": facts, "args": vars(args), "table": table, "command": command}


def run_one(method: str, cells, limit: float, args) -> dict:
    """One puzzle by one method (a preset's name or "tempering R:T_LOW:T_HIGH")."""
    if not method.startswith("tempering "):
        return run_method(method, cells, ORDER, args, limit, None)
    out = tempering(cells, *_ladder(method), args.every, limit, args.seed)
    del out["grid"]
    return out


def _ladder(method: str) -> tuple[int, float, float]:
    replicas, t_low, t_high = method.split()[1].split(":")
    return int(replicas), float(t_low), float(t_high)


def render(result: dict) -> str:
    """The markdown report of one run."""
    m = result["machine"]
    cells = [(str(r["fill"]), r["method"], f"{r['solved']}/{r['instances']}",
              _seconds(r["median"]), _seconds(r["p90"])) for r in result["table"]]  # fmt: skip
    a = result["args"]
    lines = ["# Replica exchange beside the presets: 25x25 training instances", "",
             f"Machine: {m['cpu']}, {m['cores']} cores, load average at start "
             f"{m['load_average_at_start']:.2f}, {m['date']}. Wall seconds per puzzle, unsolved "
             f"within {a['limit']:g} s counts as infinitely slow. band, auto: the presets, "
             "one chain a core, restarts; tempering R:T_LOW:T_HIGH: R chains on a geometric "
             f"ladder, an exchange offered every {a['every']} plateaus, no restarts.",
             ""]  # fmt: skip
    lines += table_block("## Results", ("fill %", "method", "solved", "median s", "p90 s"),
                         cells, f"Command: `{result['command']}`")  # fmt: skip
    return "\n".join(lines)


def _seconds(x) -> str:
    return "> limit" if x is None else f"{x:.3g}"


def main() -> None:
    """Parse the flags, measure, write the results files."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", default="35,40,45,50")
    ap.add_argument("--per-level", type=int, default=8)
    ap.add_argument("--limit", type=float, default=10.0)
    ap.add_argument("--ladder", action="append", help="R:T_LOW:T_HIGH (repeatable)")
    ap.add_argument("--every", type=int, default=5, help="plateaus between exchange offers")
    ap.add_argument("--preset", action="append", choices=list(ANNEAL),
                    help="an annealing method of bench_anneal_peers.py to run beside")  # fmt: skip
    ap.add_argument("--chains", type=int, default=2, help="presets: chains (one a core)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=str(RESULTS / "tempering_25x25"))
    args = ap.parse_args()
    result = measure(args)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(result, indent=1, allow_nan=False))
    out.with_suffix(".md").write_text(render(result))


if __name__ == "__main__":
    main()
