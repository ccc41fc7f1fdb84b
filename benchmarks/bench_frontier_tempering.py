"""Replica exchange and population annealing at the frontier (36x36 and up near the hardest
fill) beside the default technique, on training instances (--seed 2, the default) or
bench_frontier's own (--seed 1).

Experiments, not engine options: bench_tempering.tempering's ladder of R chains of one puzzle
(a geometric ladder of temperatures from T_LOW to T_HIGH, the focused move, deduction first, no
restarts, an exchange of temperatures offered between neighbouring rungs every --every
plateaus), `population` below (R chains cooling together on the default band, resampled by
their Boltzmann weights) and `run_portfolio` (the default technique and a population at once,
each on one thread, the first verified solution wins) against `gpu-anneal solve` with the
default technique (its own process, as bench_frontier runs it: restarts and reheats on two
chains). Instances: bench_frontier's Lewis-style generator (frontier_instances.make_instances)
at --order, --fill, --count and --seed. A solution counts when the verifier passes it within
--limit wall seconds.
Results: benchmarks/results/tuning/frontier_tempering_{N}x{N}_{fill}.{json,md}.

    python -m benchmarks.bench_frontier_tempering [--order 6] [--fill 50] [--count 3] [--seed 2]
        [--limit 60] [--ladder R:T_LOW:T_HIGH ...] [--every 5] [--population R:EVERY ...]
        [--portfolio R:EVERY ...] [--no-default]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.bench_frontier import (
    checked,
    gpu_anneal_command,
    gpu_anneal_outcome,
    last_json,
    run_gpu_anneal,
)
from benchmarks.bench_tempering import finished, tempering
from benchmarks.frontier_chains import (
    default_engine,
    instance_arguments,
    instances_label,
    method_tables,
    times_text,
    write_results,
)
from benchmarks.frontier_instances import make_instances
from benchmarks.machine import machine
from benchmarks.paths import ROOT, results
from benchmarks.tables import table_block
from cpu_reference.anneal.fixed_point import BETA_BITS
from cpu_reference.anneal.rng import init_states
from cpu_reference.sudoku import presets, rules
from cpu_reference.sudoku.batch import load_puzzle, logic_fill, make_batch, run_slice_cpu
from cpu_reference.sudoku.schedules import by_name

RESULTS = results("tuning")
LADDERS = ("8:0.26:0.4", "4:0.27:0.36")


def run_tempering(inst, ladder: str, args) -> dict:
    """One instance by a ladder "R:T_LOW:T_HIGH": an outcome bench_frontier.checked reads."""
    replicas, t_low, t_high = ladder.split(":")
    move = rules.move_code("focused", inst.order)
    got = tempering(inst.cells.astype(np.uint8), int(replicas), float(t_low), float(t_high),
                    args.every, args.limit, args.seed, order=inst.order, move=move)  # fmt: skip
    return _outcome(got)


def _outcome(got: dict) -> dict:
    """A method's {"solved", "grid", "seconds", ...} as an outcome bench_frontier.checked reads
    (status and solution in place of solved and grid; the other keys as they are)."""
    solved, grid = got.pop("solved"), got.pop("grid")
    solution = None if grid is None else grid.astype(np.int64).tolist()
    return {"status": "solved" if solved else "unsolved", "solution": solution, **got}


def population(cells, replicas, every, limit, seed, order, move) -> dict:
    """One puzzle by population annealing: {"solved", "seconds", "resamples", "grid"}.

    R chains cool together on the default band of the order (the `auto` schedule, its reheats
    included). After every `every` plateaus, where every chain is running at the same plateau
    and beta has grown since the last resampling (from beta_0 to beta_1), the population is
    resampled: R draws (systematic) from the chains, chain i weighted by
    exp(-(beta_1 - beta_0) E_i); each chain takes the grid, bitboards and cost of its draw and
    keeps its own random stream."""
    filled, masks = logic_fill(cells, order)
    schedule = by_name(presets.expand("auto", order), order)
    batch = make_batch(filled[None], order, schedule, replicas, seed, move=move)
    load_puzzle(batch, 0, filled, init_states(replicas, seed), masks)
    draw = np.random.default_rng(seed)
    resamples = 0
    last_beta = None
    start = time.perf_counter()
    while not (batch.ctr[:, rules.C_STATUS] == rules.SOLVED).any():
        if time.perf_counter() - start >= limit:
            break
        run_slice_cpu(batch, every)
        beta = batch.ctr[:, rules.C_BETA].astype(float) / 2.0**BETA_BITS
        plateau = batch.ctr[:, rules.C_PLATEAU]
        running = (batch.ctr[:, rules.C_STATUS] == rules.RUNNING).all()
        grown = last_beta is not None and (beta > last_beta).all()
        if running and grown and (plateau == plateau[0]).all():
            energy = batch.ctr[:, rules.C_COST].astype(float)
            weight = np.exp(-(beta - last_beta) * (energy - energy.min()))
            edges = np.cumsum(weight) / weight.sum()
            picks = np.searchsorted(edges, (draw.random() + np.arange(replicas)) / replicas)
            picks = np.minimum(picks, replicas - 1)
            batch.vals[:] = batch.vals[picks]
            batch.boards[:] = batch.boards[picks]
            for column in (rules.C_COST, rules.C_BEST):
                batch.ctr[:, column] = batch.ctr[picks, column]
            resamples += 1
        last_beta = beta
    return {**finished(batch, filled.size, start), "resamples": resamples}


def run_population(inst, method: str, args) -> dict:
    """One instance by "population R:EVERY": an outcome bench_frontier.checked reads."""
    replicas, every = method.split()[1].split(":")
    move = rules.move_code("focused", inst.order)
    got = population(inst.cells.astype(np.uint8), int(replicas), int(every), args.limit,
                     args.seed, inst.order, move)  # fmt: skip
    return _outcome(got)


def portfolio_commands(index: int, spec: str, args, engine) -> dict[str, list[str]]:
    """The two parts of "portfolio R:EVERY" on instance `index`: the default technique (`gpu-anneal
    solve`, restarts and reheats) and population annealing R:EVERY (this script's --child)."""
    child = [sys.executable, "-m", "benchmarks.bench_frontier_tempering", "--child", str(index),
             "--population", spec, "--order", str(args.order), "--fill", str(args.fill),
             "--count", str(args.count), "--seed", str(args.seed),
             "--limit", f"{args.limit:g}"]  # fmt: skip
    return {"restarts": gpu_anneal_command(args.limit, engine), "population": child}


def run_portfolio(inst, index: int, method: str, args, engine) -> dict:
    """One instance by "portfolio R:EVERY": restarts and population annealing at the same time,
    each its own process on one thread (NUMBA_NUM_THREADS=1); the first to end with a solution
    the verifier passes within the limit wins and the other is stopped. An outcome
    bench_frontier.checked reads, with `part` (the winner, or None) and `parts` (each part's
    status and seconds)."""
    spec = method.split()[1]
    env = {**os.environ, "NUMBA_NUM_THREADS": "1"}
    stdin = {"restarts": inst.tsv_line() + "\n", "population": ""}
    procs, files = {}, {}
    start = time.perf_counter()
    for part, cmd in portfolio_commands(index, spec, args, engine).items():
        files[part] = tempfile.TemporaryFile(mode="w+")
        procs[part] = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=files[part], stderr=subprocess.DEVNULL,
            text=True, cwd=ROOT, env=env,
        )  # fmt: skip
        procs[part].stdin.write(stdin[part])
        procs[part].stdin.close()
    outcomes, winner = {}, None
    deadline = start + args.limit + engine.grace
    while winner is None and len(outcomes) < len(procs) and time.perf_counter() < deadline:
        time.sleep(0.05)
        for part, proc in procs.items():
            if part in outcomes or proc.poll() is None:
                continue
            files[part].seek(0)
            outcomes[part] = _part_outcome(part, proc.returncode, files[part].read())
            if checked(outcomes[part], inst, args.limit)["solved"]:
                winner = part
                break
    for part, proc in procs.items():
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        files[part].close()
        outcomes.setdefault(part, {"status": "stopped" if winner else "timeout"})
    best = outcomes[winner] if winner else {"status": "unsolved", "solution": None}
    parts = {k: {"status": v["status"], "seconds": v.get("seconds")} for k, v in outcomes.items()}
    return {"status": best["status"], "solution": best.get("solution"),
            "seconds": best.get("seconds"), "part": winner, "parts": parts,
            "wall_seconds": time.perf_counter() - start}  # fmt: skip


def _part_outcome(part: str, code: int, stdout: str) -> dict:
    """A finished part's outcome from its output."""
    if part == "restarts":
        return gpu_anneal_outcome({"code": code, "stdout": stdout, "stderr": ""})
    record = last_json(stdout)
    return record if record is not None else {"status": f"error: exit {code}"}


def child(args) -> None:
    """--child K: instance K by population annealing (the one --population), one JSON line."""
    inst = make_instances([args.order], [args.fill], args.count, args.seed)[args.child]
    print(json.dumps(run_population(inst, f"population {args.population[0]}", args)), flush=True)


def measure(args) -> dict:
    """Every method on every instance, one at a time."""
    facts = machine()  # the load average before the run
    instances = make_instances([args.order], [args.fill], args.count, args.seed)
    ladders = list(args.ladder or ([] if args.population or args.portfolio else LADDERS))
    populations = [f"population {p}" for p in args.population or []]
    portfolios = [f"portfolio {p}" for p in args.portfolio or []]
    methods = (["default"] if args.default else []) + ladders + populations + portfolios
    engine = default_engine(args.seed)
    if methods != ["default"]:  # compile the rules (the population's, its children's from the
        # disk cache, too) before any clock
        tempering(instances[0].cells.astype(np.uint8), 2, 0.3, 0.3, 1, 0.3, args.seed,
                  order=args.order, move=rules.move_code("focused", args.order))  # fmt: skip

    def solve(method: str, index: int, inst) -> dict:
        if method == "default":
            return run_gpu_anneal(inst, args.limit, engine)
        if method.startswith("portfolio "):
            return run_portfolio(inst, index, method, args, engine)
        if method.startswith("population "):
            return run_population(inst, method, args)
        return run_tempering(inst, method, args)

    table = method_tables(methods, instances, args.limit, solve)
    command = "python -m benchmarks.bench_frontier_tempering " + " ".join(sys.argv[1:])
    return {"machine": facts, "args": vars(args), "table": table, "command": command}


def render(result: dict) -> str:
    """The markdown report of one run."""
    m, a = result["machine"], result["args"]
    size = f"{a['order'] ** 2}x{a['order'] ** 2}"
    cells = [
        (r["method"], f"{r['solved']}/{r['instances']}", times_text(r["times"]))
        for r in result["table"]
    ]
    which = instances_label(a["seed"])
    lines = [f"# Replica exchange and population annealing at the frontier: {size} at "
             f"{a['fill']} %, {which}",
             "", f"Machine: {m['cpu']}, {m['cores']} cores, load average at start "
             f"{m['load_average_at_start']:.2f}, {m['date']}. Instances: seed {a['seed']}, "
             f"{a['count']} of them. Limit {a['limit']:g} s wall a puzzle. default: `gpu-anneal "
             "solve` in its own process (compiled code cached; its search seconds). tempering "
             "R:T_LOW:T_HIGH: R chains of the focused move on a geometric ladder, an exchange "
             f"offered every {a['every']} plateaus, no restarts. population R:EVERY: R chains "
             "cooling together on the default band, resampled by their Boltzmann weights "
             "every EVERY plateaus. portfolio R:EVERY: default and population R:EVERY at once, "
             "each its own process on one thread, the first verified solution wins (the "
             "winner's own seconds).", ""]  # fmt: skip
    lines += table_block("## Results", ("method", "solved", "seconds of the solved"), cells,
                         f"Command: `{result['command']}`")  # fmt: skip
    return "\n".join(lines)


def main() -> None:
    """Parse the flags, measure, write the results files."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    instance_arguments(ap)
    ap.add_argument("--ladder", action="append", help="R:T_LOW:T_HIGH (repeatable)")
    ap.add_argument("--every", type=int, default=5, help="plateaus between exchange offers")
    ap.add_argument("--population", action="append",
                    help="R:EVERY: population annealing of R chains resampled every EVERY "
                    "plateaus (repeatable; without --ladder, no ladder runs)")  # fmt: skip
    ap.add_argument("--portfolio", action="append",
                    help="R:EVERY: the default technique and population annealing R:EVERY at "
                    "once, each on one thread (repeatable)")  # fmt: skip
    ap.add_argument("--no-default", dest="default", action="store_false")
    ap.add_argument("--out", default=None)
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        child(args)
        return
    size = f"{args.order**2}x{args.order**2}"
    out = Path(args.out or RESULTS / f"frontier_tempering_{size}_{args.fill}")
    result = measure(args)
    write_results(out, result, render)


if __name__ == "__main__":
    main()
