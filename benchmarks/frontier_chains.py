"""What the frontier experiments with their own chains share: chains raced in threads on one
puzzle, every method beside the default technique on the same instances, the rate column and
the results files.

A chain here is whatever an experiment keeps (a tuple of arrays and an int64 state); the
experiment says how to start one and how to advance it by a batch of steps.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

from benchmarks.bench_frontier import checked, run_gpu_anneal
from benchmarks.frontier_instances import make_instances
from benchmarks.machine import machine
from benchmarks.paths import results
from benchmarks.tables import table_block


def race(
    chains: int,
    limit: float,
    start: Callable[[int], tuple | None],
    advance: Callable[[tuple, object], list | None],
    tally: Callable[[object], tuple[int, int]],
) -> dict:
    """`chains` chains, one thread each, until one solves or `limit` wall seconds pass.

    start(index) gives (chain, state), or None when the puzzle starts no chain (every thread
    then stops); advance(chain, state) runs a batch and gives the solved grid (a list) or None;
    tally(state) gives (proposals, trials). Returns an outcome bench_frontier.checked reads:
    status, seconds, solution, proposals and trials summed over the chains.
    """
    began = time.perf_counter()
    done = threading.Event()
    found: dict = {}
    states = []

    def work(index: int) -> None:
        made = start(index)
        if made is None:
            done.set()
            return
        chain, state = made
        states.append(state)
        while not done.is_set() and time.perf_counter() - began < limit:
            solution = advance(chain, state)
            if solution is not None and not done.is_set():
                done.set()
                found.update(seconds=time.perf_counter() - began, solution=solution)

    with ThreadPoolExecutor(chains) as pool:
        list(pool.map(work, range(chains)))
    tallies = [tally(s) for s in states]
    return {
        "status": "solved" if found else "unsolved",
        "seconds": found.get("seconds", time.perf_counter() - began),
        "solution": found.get("solution"),
        "proposals": int(sum(p for p, _ in tallies)),
        "trials": int(sum(t for _, t in tallies)),
    }


def measure_beside_default(args, name: str, settings: list[str], solve, instances) -> dict:
    """The default technique (unless args.default is false) and `name SETTING` for each setting
    on every instance of `instances` (make_instances of args.order, args.fill, args.count and
    args.seed), one at a time.
    solve(cells, order, setting, chains, limit, seed) gives an outcome; settings_checked has
    run each setting first (its code compiled). The command recorded is `python -m
    benchmarks.bench_frontier_NAME` with this run's flags."""
    facts = machine()  # the load average before the run
    methods = (["default"] if args.default else []) + [f"{name} {s}" for s in settings]
    seed = chains_seed(args)
    engine = default_engine(seed)

    def run(method: str, index: int, inst) -> dict:
        if method == "default":
            return run_gpu_anneal(inst, args.limit, engine)
        setting = method.split()[1]
        return solve(inst.cells, inst.order, setting, args.chains, args.limit, seed)

    table = method_tables(methods, instances, args.limit, run)
    command = f"python -m benchmarks.bench_frontier_{name} " + " ".join(sys.argv[1:])
    return {"machine": facts, "args": vars(args), "table": table, "command": command}


def settings_checked(name: str, form: str, settings: list[str], solve, first) -> None:
    """Each setting run once on `first` (the run's first instance), one chain for 0.1 s,
    before any clock: its code compiled, and a setting solve refuses (a ValueError) refused
    again as ValueError('--NAME SETTING: expected FORM') before anything is measured."""
    for setting in settings:
        try:
            solve(first.cells, first.order, setting, 1, 0.1, 0)
        except ValueError:
            raise ValueError(f"--{name} {setting!r}: expected {form}") from None


def chains_seed(args) -> int:
    """The seed of the chains (the default's and the experiment's): --chain-seed where given,
    else the instances' seed."""
    chain_seed = getattr(args, "chain_seed", None)
    return args.seed if chain_seed is None else chain_seed


def rate_cells(table: list[dict], digits: int) -> list[tuple]:
    """(method, solved/instances, the solved seconds, M proposals a second) a method; the rate
    is '-' for a method whose outcomes count no proposals (the default's)."""
    cells = []
    for r in table:
        proposals = [row.get("proposals") for row in r["rows"] if row.get("proposals")]
        seconds = sum(row["seconds"] for row in r["rows"])
        rate = f"{sum(proposals) / seconds / 1e6:.{digits}f}" if proposals else "-"
        cells.append((r["method"], f"{r['solved']}/{r['instances']}", times_text(r["times"]), rate))
    return cells


def write_results(out: Path, result: dict, render: Callable[[dict], str]) -> None:
    """OUT.json (the result) and OUT.md (its report), the folder made first."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(result, indent=1, allow_nan=False))
    out.with_suffix(".md").write_text(render(result))


def default_engine(seed: int) -> SimpleNamespace:
    """bench_frontier's settings for `gpu-anneal solve` with the default technique (its
    run_gpu_anneal): the CPU backend, the seed, no schedule or move in place of the default's."""
    return SimpleNamespace(backend="cpu", seed=seed, schedule=None, move=None, grace=60.0)


def method_tables(methods: list[str], instances, limit: float, solve) -> list[dict]:
    """Every method on every instance, one at a time: solve(method, index, instance) gives an
    outcome, checked by bench_frontier.checked and printed as a JSON line; one method_entry a
    method."""
    table = []
    for method in methods:
        rows = []
        for index, inst in enumerate(instances):
            row = {"instance": inst.name, **checked(solve(method, index, inst), inst, limit)}
            rows.append(row)
            print(json.dumps({"method": method, **row}), flush=True)
        table.append(method_entry(method, rows))
    return table


def instances_label(seed: int) -> str:
    """The report's name for the instances of a seed: bench_frontier's own (1) or training."""
    return "bench_frontier's own instances" if seed == 1 else "training instances"


def method_entry(method: str, rows: list[dict]) -> dict:
    """One method's entry of a report's table: its rows (one an instance, checked), how many
    were solved and their seconds, ascending."""
    solved = sorted(r["seconds"] for r in rows if r["solved"])
    return {"method": method, "solved": len(solved), "instances": len(rows), "times": solved,
            "rows": rows}  # fmt: skip


def times_text(seconds: list[float]) -> str:
    """The solved instances' seconds, three significant digits each; '-' for none."""
    return ", ".join(f"{t:.3g}" for t in seconds) or "-"


def instance_arguments(ap: argparse.ArgumentParser) -> None:
    """The options that pick the instances and the limit (--order, --fill, --count, --seed,
    --limit), with the defaults of the frontier experiments: 36x36 at 50 %, training seed."""
    ap.add_argument("--order", type=int, default=6)
    ap.add_argument("--fill", type=int, default=50)
    ap.add_argument("--count", type=int, default=3)
    ap.add_argument("--seed", type=int, default=2, help="instances' seed (and the chains')")
    ap.add_argument("--limit", type=float, default=60.0)


def chain_seed_text(args: dict) -> str:
    """', chains' seed N' where a run's chains had a seed of their own, else nothing."""
    chain_seed = args.get("chain_seed")
    return "" if chain_seed is None else f", chains' seed {chain_seed}"


def chains_report(result: dict, title: str, how: str, digits: int) -> str:
    """The markdown report of a measure_beside_default run: `title` with the size, fill and
    instances, the machine and settings, then `how` (what the experiment's chains do), then one
    row a method with its rate (`digits` decimals)."""
    m, a = result["machine"], result["args"]
    size = f"{a['order'] ** 2}x{a['order'] ** 2}"
    lines = [f"# {title}: {size} at {a['fill']} %, {instances_label(a['seed'])}", "",
             f"Machine: {m['cpu']}, {m['cores']} cores, load average at start "
             f"{m['load_average_at_start']:.2f}, {m['date']}. Instances: seed {a['seed']}, "
             f"{a['count']} of them{chain_seed_text(a)}. Limit {a['limit']:g} s wall a puzzle. "
             "default: `gpu-anneal solve` in its own process (compiled code cached; its search "
             "seconds). "
             f"{how.format(chains=a['chains'])}", ""]  # fmt: skip
    header = ("method", "solved", "seconds of the solved", "M/s")
    command = f"Command: `{result['command']}`"
    lines += table_block("## Results", header, rate_cells(result["table"], digits), command)
    return "\n".join(lines)


def experiment_main(doc: str, name: str, form: str, defaults, solve, render) -> None:
    """The command line of a frontier experiment (benchmarks/bench_frontier_NAME.py): the
    instance options, --chains, --NAME FORM (repeatable; `defaults` when none is given),
    --no-default, --chain-seed, --out (default: results/tuning/frontier_NAME_{N}x{N}_{fill});
    a flag or setting out of range refused in one usage line (settings_checked), then
    measure_beside_default with solve and the results files written with render."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    instance_arguments(ap)
    ap.add_argument("--chains", type=int, default=2, help=f"{name} chains, one thread each")
    ap.add_argument(f"--{name}", action="append", help=f"{form} (repeatable)")
    ap.add_argument("--no-default", dest="default", action="store_false")
    ap.add_argument("--chain-seed", type=int, default=None, help="default: the instances' seed")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    size = f"{args.order**2}x{args.order**2}"
    out = Path(args.out or results("tuning") / f"frontier_{name}_{size}_{args.fill}")
    settings = getattr(args, name) or list(defaults)
    if not 2 <= args.order <= 8 or args.count < 1 or args.limit <= 0 or args.chains < 1:
        ap.error("--order 2..8, --count and --chains 1 or more, --limit above 0")
    instances = make_instances([args.order], [args.fill], args.count, args.seed)
    try:
        settings_checked(name, form, settings, solve, instances[0])
    except ValueError as exc:
        ap.error(str(exc))
    measured = measure_beside_default(args, name, settings, solve, instances)
    write_results(out, measured, render)
