"""Large Sudoku near the phase transition: gpu-anneal beside CP-SAT and CaDiCaL in one run.

    python -m benchmarks.bench_frontier [--orders 6,7,8] [--fills 40,45,50,55] [--count 5]
        [--limit 20 | --limit 6:60,7:120,8:300] [--seed 1] [--solvers gpu-anneal,cp-sat,cadical]
        [--backend cpu] [--schedule S] [--move M] [--grace 60] [--instances DIR] [--out PATH]
        [--full-grids by-order|generator] [--append] [--render]

Instances: `--count` per order and fill, made Lewis-style from `--seed`
(benchmarks/frontier_instances.py: a solved grid, ceil(f x N^2 / 100) cells kept at random;
the grid random up to 36x36, see --full-grids below), written as Lloyd & Amos instance files
to `--instances` (benchmarks/data/frontier by default; `inst{N}x{N}_{f}_{k}.txt`). Every seed
names its instances alike, so a run whose folder holds another instance under one of its names
stops before it starts, in one line naming the file (give another seed another folder). Orders
may be given as 6 or as 36x36.
`--full-grids generator` cuts every order's instances from the project's backtracking
generator's random full grids (by-order, the default: up to 36x36 only, 49x49 and 64x64 from a
shuffled pattern grid); its 49x49 and 64x64 instances differ from the default's under the same
names, so they take a folder of their own.

Solvers, each on every instance under the same limit (`--limit` seconds, or ORDER:SECONDS per
order), one process at a time, each in its own process with a hard timeout of the limit plus
`--grace` seconds (start-up, compiling or loading code, building a model):

    gpu-anneal   `python -m gpu_anneal solve - --format tsv --backend BACKEND --time-limit LIMIT
                 --seed SEED --output jsonl -q --method anneal`: annealing's default
                 technique, the instance on stdin.
                 Seconds: the record's timing.search (compiling excluded). Before an order's
                 first instance one probe solve (limit 1 s, not counted) loads its code and finds
                 whether the engine takes the order: where it refuses, every instance of the
                 order reads "refused: MESSAGE" with the engine's one-line message.
                 `--schedule S` runs that schedule in place of the default technique's (the
                 rest of the technique as by default), for measuring schedule candidates on
                 instances of another `--seed` into another `--out`. `--move M` does the
                 same for the move.
    gpu-anneal-impasse, gpu-anneal-auto   the same with `--method impasse` (`--t0 T`: its
                 held temperature), or with no --method: auto, the engine's choice for the
                 order and backend (gpu_anneal.method_choice)
    gpu-anneal-impasse-warp   `--method impasse --lanes 32`: on a card, one warp a chain
                 (gpu_anneal.kernels.impasse_warp); the engine refuses it on the cores
    cp-sat       OR-Tools CP-SAT, 1 worker, AllDifferent model (benchmarks/frontier_peers.py)
    cadical      CaDiCaL 1.9.5 through python-sat, the standard CNF (benchmarks/frontier_peers.py)

A peer whose package is not installed (the `bench` extra: pip install -e '.[bench]') reads
"missing: PACKAGE". Every reported solution is checked by cpu_reference.sudoku.verify
(verify_solution against the instance's givens); an instance counts as solved only with a
solution that passes it within the limit. Statuses: solved, unsolved (the solver stopped at its
limit), timeout (killed at limit + grace, or by its own timer), over limit, wrong: FAULT
(a solution the verifier refused), unsat, refused: MESSAGE, missing: PACKAGE, error: MESSAGE.

Per order, fill and solver: solved of instances and the median seconds, an unsolved instance
counting as infinitely slow (so a median above the limit reads "> LIMIT"), and the solved times.
Results: benchmarks/results/frontier/frontier.json and .md (`--out`), the machine with its load
average at the start and at each instance. `--append` adds this run's cells to an existing
results file (replacing the same order, fill and solver), so one file can hold runs with
different limits; each run's command and machine are kept.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import math
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks import paths
from benchmarks.frontier_instances import (
    Instance,
    add_full_grids_argument,
    generated_up_to,
    lloyd_amos_text,
    make_instances,
    write_lloyd_amos,
)
from benchmarks.frontier_peers import PACKAGES
from benchmarks.machine import machine, made_by
from benchmarks.tables import add_out_arguments, rerender, secs, write_results
from cpu_reference.sudoku.verify import verify_solution

SOLVERS = (
    "gpu-anneal",
    "gpu-anneal-impasse",
    "gpu-anneal-impasse-warp",
    "gpu-anneal-auto",
    "cp-sat",
    "cadical",
)
DEFAULT_SOLVERS = ("gpu-anneal", "cp-sat", "cadical")
# solver -> --method
ENGINE = {
    "gpu-anneal": "anneal",
    "gpu-anneal-impasse": "impasse",
    "gpu-anneal-impasse-warp": "impasse-warp",
    "gpu-anneal-auto": "auto",
}
LABELS = {
    "gpu-anneal": "gpu-anneal, annealing (its default technique)",
    "gpu-anneal-impasse": "gpu-anneal, --method impasse",
    "gpu-anneal-impasse-warp": "gpu-anneal, --method impasse --lanes 32 (a warp a chain)",
    "gpu-anneal-auto": "gpu-anneal, --method auto (the default)",
    "cp-sat": "CP-SAT, 1 worker",
    "cadical": "CaDiCaL (python-sat)",
}
# the targets set for gpu-anneal on 2 cores, per (order, fill): requirements, not measurements
TARGETS = {
    (6, 45): "gpu-anneal: all within 20 s",
    (6, 50): "gpu-anneal: all within 60 s",
    (7, 45): "gpu-anneal: >= 80 % within 120 s",
    (7, 50): "gpu-anneal: more than CP-SAT and CaDiCaL together within 120 s",
    (8, 45): "gpu-anneal: at least one within 300 s",
}
OUT = paths.results("frontier") / "frontier"
INSTANCES = paths.DATA / "frontier"
PROBE_LIMIT = 1.0  # seconds of the probe solve before an order's first instance
PROBE_TIMEOUT = 900.0  # the probe may compile the engine's code for the order


def order_of(text: str) -> int:
    """An order from '6' or '36x36'."""
    text = text.strip()
    if "x" in text:
        side = int(text.split("x")[0])
        order = math.isqrt(side)
        if order * order != side or text != f"{side}x{side}":
            raise ValueError(f"size {text!r} is not NxN with N a square")
        return order
    return int(text)


def limits_of(text: str, orders: list[int]) -> dict[int, float]:
    """order -> seconds from '20' (every order) or '6:60,7:120,8:300' (orders left out: error)."""
    if ":" not in text:
        return {order: float(text) for order in orders}
    given = {order_of(k): float(v) for k, v in (part.split(":") for part in text.split(","))}
    missing = [o for o in orders if o not in given]
    if missing:
        raise ValueError(f"--limit names no limit for order {missing[0]}")
    return {o: given[o] for o in orders}


def run_process(cmd: list[str], timeout: float, stdin: str | None = None) -> dict:
    """Run cmd with a hard timeout: returncode (None when killed at the timeout), stdout, stderr,
    wall seconds and the CPU seconds the process used (user + system, its threads together)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            cmd, input=stdin, capture_output=True, text=True, timeout=timeout, cwd=paths.ROOT
        )
        code, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as e:
        code = None
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"code": code, "stdout": out, "stderr": err, "wall": wall, "cpu": cpu}


def last_json(text: str) -> dict | None:
    """The last line of text that parses as a JSON object (None when none does)."""
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                continue
    return None


def engine_message(stderr: str) -> str:
    """The engine's one-line error without its 'gpu-anneal: <stdin> line 1: ' prefix."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    if not lines:
        return "no message"
    text = lines[-1].strip()
    text = re.sub(r"^gpu-anneal:\s*", "", text)
    return re.sub(r"^(<stdin>|\S+) line \d+:\s*", "", text)


def gpu_anneal_command(limit: float, args, method: str = "anneal") -> list[str]:
    """The CLI call that solves one tsv instance from stdin by annealing's default technique (its
    schedule replaced by args.schedule when given), or with --method impasse (its held
    temperature args.t0 when given; method impasse-warp: --lanes 32 too), or with no --method
    (auto: the method the engine takes for the order and backend)."""
    if method == "auto":
        tail = []
    elif method in ("impasse", "impasse-warp"):
        tail = ["--method", "impasse", *(["--t0", f"{args.t0:g}"] if args.t0 else []),
                *(["--lanes", "32"] if method == "impasse-warp" else [])]  # fmt: skip
    else:
        tail = ["--method", "anneal", *(["--schedule", args.schedule] if args.schedule else []),
                *(["--move", args.move] if args.move else [])]  # fmt: skip
    return [
        sys.executable, "-m", "gpu_anneal", "solve", "-", "--format", "tsv",
        "--backend", args.backend, "--time-limit", f"{limit:g}", "--seed", str(args.seed),
        "--output", "jsonl", "-q", *tail,
    ]  # fmt: skip


def gpu_anneal_outcome(proc: dict) -> dict:
    """An outcome (status, seconds, solution, ...) from a gpu-anneal process's output: its JSON
    record, or "refused: MESSAGE" when it exited non-zero without one."""
    record = last_json(proc["stdout"])
    if record is None:
        if proc["code"] is None:
            return {"status": "timeout"}
        if proc["code"] != 0:
            return {"status": f"refused: {engine_message(proc['stderr'])}"}
        return {"status": "error: no result printed"}
    timing = record.get("timing") or {}
    counts = record.get("counts") or {}
    rows = record.get("solution_rows")
    return {
        "status": "solved" if record.get("solved") else "unsolved",
        "engine_status": record.get("status"),
        "seconds": timing.get("search"),
        "compile_seconds": timing.get("compile"),
        "solution": [v for row in rows for v in row] if rows else None,
        "chains": (record.get("params") or {}).get("chains"),
        "move": (record.get("params") or {}).get("move"),
        "chain_moves": counts.get("chain_proposals"),  # the solving (or shown) chain's moves
    }


def run_gpu_anneal(inst: Instance, limit: float, args, method: str = "anneal") -> dict:
    """One instance by gpu-anneal (--method `method`) in its own process."""
    command = gpu_anneal_command(limit, args, method)
    proc = run_process(command, limit + args.grace, inst.tsv_line() + "\n")
    return {**gpu_anneal_outcome(proc), "wall_seconds": proc["wall"], "cpu_seconds": proc["cpu"]}


def probe_gpu_anneal(inst: Instance, args, method: str = "anneal") -> str | None:
    """None when the engine takes the instance's order (its code is then loaded), else the
    status every instance of the order gets ("refused: MESSAGE", or an error)."""
    command = gpu_anneal_command(PROBE_LIMIT, args, method)
    proc = run_process(command, PROBE_TIMEOUT, inst.tsv_line() + "\n")
    outcome = gpu_anneal_outcome(proc)
    if outcome["status"] in ("solved", "unsolved"):
        return None
    if outcome["status"] == "timeout":
        return f"error: the probe solve ran past {PROBE_TIMEOUT:g} s"
    return outcome["status"]


def peer_outcome(proc: dict) -> dict:
    """An outcome from a peer process (benchmarks.frontier_peers): its JSON line, or timeout
    when it was killed (by the caller, or by its own SIGALRM timer)."""
    record = last_json(proc["stdout"])
    if record is not None:
        return dict(record)
    if proc["code"] is None or proc["code"] == -14:  # -14: SIGALRM, cadical's own limit
        return {"status": "timeout"}
    return {"status": f"error: {engine_message(proc['stderr'])}"}


def run_peer(solver: str, inst: Instance, limit: float, args) -> dict:
    """One instance by an exact peer in its own process, read from its Lloyd & Amos file."""
    package = PACKAGES[solver]
    if importlib.util.find_spec(package) is None:
        return {"status": f"missing: {package}"}
    path = Path(args.instances) / f"{inst.name}.txt"
    cmd = [sys.executable, "-m", "benchmarks.frontier_peers", solver, str(path), f"{limit:g}"]
    proc = run_process(cmd, limit + args.grace)
    return {**peer_outcome(proc), "wall_seconds": proc["wall"], "cpu_seconds": proc["cpu"]}


def checked(outcome: dict, inst: Instance, limit: float) -> dict:
    """The outcome with `verified` and `solved`: a reported solution goes through the verifier,
    and counts only when it passes and came within the limit."""
    out = dict(outcome)
    solution = out.pop("solution", None)
    out["verified"] = None
    if solution is not None:
        fault = verify_solution(np.asarray(solution, dtype=np.int64), inst.order, inst.cells)
        out["verified"] = fault is None
        if fault is not None:
            out["status"] = f"wrong: {fault}"
        elif out.get("status") == "solved" and (out.get("seconds") or 0.0) > limit:
            out["status"] = "over limit"
    elif out.get("status") == "solved":
        out["status"] = "wrong: solved without a solution"
    out["solved"] = out.get("status") == "solved" and out["verified"] is True
    return out


def cell_summary(rows: list[dict]) -> dict:
    """Solved, median seconds (unsolved = infinite; None above the limit), solved times, and the
    statuses of one (order, fill, solver)."""
    times = sorted(r["seconds"] if r["solved"] else math.inf for r in rows)
    median = statistics.median(times) if times else math.inf
    statuses: dict[str, int] = {}
    for r in rows:
        key = r["status"] if not r["status"].startswith("wrong") else "wrong"
        statuses[key] = statuses.get(key, 0) + 1
    return {
        "instances": len(rows),
        "solved": sum(r["solved"] for r in rows),
        "median": None if math.isinf(median) else median,
        "solved_seconds": [t for t in times if not math.isinf(t)],
        "statuses": statuses,
    }


def row_key(row: dict) -> tuple:
    """Rows sort by order, fill, limit, instance number and solver (SOLVERS' order)."""
    return (row["order"], row["fill"], row["limit"], row["k"], SOLVERS.index(row["solver"]))


def table_of(rows: list[dict]) -> list[dict]:
    """One entry per (order, fill, limit, solver), sorted, with cell_summary's figures."""
    rows = sorted(rows, key=row_key)
    keys = list(dict.fromkeys((r["order"], r["fill"], r["solver"], r["limit"]) for r in rows))
    out = []
    for order, fill, solver, limit in keys:
        part = [r for r in rows if (r["order"], r["fill"], r["solver"], r["limit"]) ==
                (order, fill, solver, limit)]  # fmt: skip
        out.append({"order": order, "size": f"{order**2}x{order**2}", "fill": fill,
                    "solver": solver, "limit": limit, **cell_summary(part)})  # fmt: skip
    return out


def cell_text(entry: dict) -> str:
    """'5/5, median 1.8 s', '2/5, median > 20 s (1.3 s, 7.8 s)', or the one status all share
    when none was solved and every instance reads the same (refused, missing)."""
    statuses = entry["statuses"]
    if entry["solved"] == 0 and len(statuses) == 1:
        (status,) = statuses
        if status.split(":")[0] in ("refused", "missing", "error"):
            return status
    text = f"{entry['solved']}/{entry['instances']}, median "
    text += secs(entry["median"]) if entry["median"] is not None else f"> {entry['limit']:g} s"
    if entry["median"] is None and entry["solved_seconds"]:
        text += " (" + ", ".join(secs(t) for t in entry["solved_seconds"]) + ")"
    return text


def instance_text(row: dict) -> str:
    """'18.5 s, 0.34 cores' (solved), 'timeout, 0.9 cores', or the status alone."""
    text = secs(row["seconds"]) if row["solved"] else row["status"]
    if row.get("cpu_seconds") is not None and row.get("wall_seconds"):
        text += f", {row['cpu_seconds'] / row['wall_seconds']:.2f} cores"
    return text


def label(result: dict, solver: str) -> str:
    """A solver's row label; gpu-anneal's names the schedule and the move its last run gave
    (--schedule, --move)."""
    settings = result["runs"][-1]["args"] if result["runs"] else {}
    parts = [f"{key} `{settings[key]}`" for key in ("schedule", "move") if settings.get(key)]
    if solver == "gpu-anneal" and parts:
        return "gpu-anneal, " + ", ".join(parts)
    return LABELS.get(solver, solver)


def grids_text(sources: set[str]) -> str:
    """Where the instances' full grids came from, for runs of these --full-grids sources."""
    generated = "the project's backtracking generator's random grids"
    if sources == {"generator"}:
        return f"the full grids: {generated} at every order"
    text = (
        f"the full grids: {generated} up to {generated_up_to()}, a pattern grid shuffled by its "
        "symmetries"
    )
    if "generator" in sources:
        return f"{text} above, or the generator's at every order in --full-grids generator runs"
    return text + " above"


def render(result: dict) -> str:
    """The markdown report: one table per order (solvers by fill), then every instance."""
    table = result["table"]
    sources = {run.get("args", {}).get("full_grids", "by-order") for run in result["runs"]}
    lines = [
        "# Large Sudoku near the phase transition: gpu-anneal beside CP-SAT and CaDiCaL",
        "",
        "Made by `python -m benchmarks.bench_frontier` (commands below); instances Lewis-style "
        "(a solved grid, ceil(f x N^2 / 100) cells kept at random; "
        f"{grids_text(sources)}), every solver on "
        "every instance under the same limit, one process at a time. Solved: a solution the "
        "verifier passed within the limit. Median over all instances, an unsolved one "
        "counting as infinitely slow (the solved times in brackets where the median is above "
        "the limit). Seconds: the solve alone (gpu-anneal: timing.search, compiling excluded; "
        "the peers: model or formula building excluded).",
        "",
    ]
    if not result.get("complete", True):
        lines += ["**Incomplete: the run stopped before its last instance.**", ""]
    for order in dict.fromkeys(e["order"] for e in table):
        part = [e for e in table if e["order"] == order]
        columns = list(dict.fromkeys((e["fill"], e["limit"]) for e in part))
        header = ["solver"]
        for fill, limit in columns:
            count = max(e["instances"] for e in part if (e["fill"], e["limit"]) == (fill, limit))
            header.append(f"{fill} % filled ({count}), {limit:g} s")
        lines += [f"## {order**2}x{order**2}", "", "| " + " | ".join(header) + " |",
                  "| --- |" + " ---: |" * len(columns)]  # fmt: skip
        for solver in dict.fromkeys(e["solver"] for e in part):
            cells = []
            for fill, limit in columns:
                found = [e for e in part if (e["fill"], e["limit"], e["solver"]) ==
                         (fill, limit, solver)]  # fmt: skip
                cells.append(cell_text(found[0]) if found else "-")
            lines.append("| " + " | ".join([label(result, solver), *cells]) + " |")
        lines.append("")
    lines += [
        "## Every instance",
        "",
        "Seconds of a solved instance, else its status; then the cores the solver's process "
        "used on average over its whole run (CPU seconds over wall seconds, start-up included: "
        "below its threads where other work shared the machine). Load: the 1-minute load "
        "average when the instance finished.",
        "",
    ]
    rows = sorted(result["rows"], key=row_key)
    solvers = [s for s in SOLVERS if any(r["solver"] == s for r in rows)]
    lines += ["| instance | limit | load | " + " | ".join(solvers) + " |",
              "| --- | ---: | ---: |" + " --- |" * len(solvers)]  # fmt: skip
    by_instance: dict[tuple, dict] = {}
    for r in rows:
        by_instance.setdefault((r["instance"], r["limit"]), {})[r["solver"]] = r
    for (name, limit), found in by_instance.items():
        load = max((r.get("load") or 0.0) for r in found.values())
        cells = [instance_text(found[s]) if s in found else "-" for s in solvers]
        lines.append(f"| {name} | {limit:g} s | {load:.1f} | " + " | ".join(cells) + " |")
    lines += ["", "## Runs", ""]
    for run in result["runs"]:
        m = run["machine"]
        lines.append(
            f"- `{run['command']}` at {run['commit'] or '?'}: {m.get('cpu_model')}, "
            f"{m.get('cores')} cores, {m.get('date')}, load average "
            f"{', '.join(f'{x:.1f}' for x in m.get('load_average') or [])} (1, 5, 15 minutes) "
            f"at the start; {run.get('seconds', 0):.0f} s."
        )
    lines.append("")
    return "\n".join(lines)


def parse_args(argv: list[str] | None):
    """The command line; a bad option value exits with a one-line error."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--orders", default="6,7,8", help="orders or sizes: 6,7,8 or 36x36,49x49")
    ap.add_argument("--fills", default="40,45,50,55", help="percent of cells given")
    ap.add_argument("--count", type=int, default=5, help="instances per order and fill")
    ap.add_argument("--limit", default="20", help="seconds: 20, or per order 6:60,7:120,8:300")
    ap.add_argument("--seed", type=int, default=1, help="instances' seed (and gpu-anneal's)")
    ap.add_argument("--solvers", default=",".join(DEFAULT_SOLVERS), help=", ".join(SOLVERS))
    ap.add_argument("--backend", default="cpu", help="gpu-anneal's --backend (cpu, cuda, auto)")
    ap.add_argument("--schedule", default=None, help="gpu-anneal's --schedule (default: none)")
    ap.add_argument("--move", default=None, help="gpu-anneal's --move (default: none)")
    ap.add_argument("--t0", type=float, default=None,
                    help="gpu-anneal-impasse's --t0 (default: the method's)")  # fmt: skip
    ap.add_argument("--grace", type=float, default=60.0,
                    help="seconds past the limit before a solver process is killed")  # fmt: skip
    ap.add_argument("--instances", default=str(INSTANCES), help="folder of the instance files")
    add_full_grids_argument(ap)
    ap.add_argument("--append", action="store_true", help="add to OUT.json's runs")
    add_out_arguments(ap, OUT)
    args = ap.parse_args(argv)
    try:
        args.order_list = [order_of(x) for x in args.orders.split(",")]
        args.fill_list = [int(x) for x in args.fills.split(",")]
        args.limits = limits_of(args.limit, args.order_list)
        args.solver_list = [s.strip() for s in args.solvers.split(",")]
    except ValueError as e:
        ap.error(str(e))
    bad = [s for s in args.solver_list if s not in SOLVERS]
    if bad:
        ap.error(f"--solvers: {bad[0]!r} is not one of {', '.join(SOLVERS)}")
    if any(o < 2 for o in args.order_list):
        ap.error("--orders: an order must be 2 or more")
    if any(not 0 <= f <= 100 for f in args.fill_list):
        ap.error("--fills: a fill is a percentage 0..100")
    if args.count < 1 or any(x <= 0 for x in args.limits.values()) or args.grace < 0:
        ap.error("--count and --limit must be positive, --grace not negative")
    clash = instance_clash(args)
    if clash:
        ap.error(clash)
    return args


@functools.cache
def order_instances(
    order: int, fills: tuple[int, ...], count: int, seed: int, source: str = "by-order"
) -> list:
    """make_instances of one order, made once a run: the clash check and the solving read the
    same instances."""
    return make_instances([order], list(fills), count, seed, source)


def instance_clash(args) -> str | None:
    """Where a file of --instances already holds another instance under the name of one this
    run makes (another seed's: every seed names its instances alike), the line that says so;
    else None. A run writes its instances there, and would replace that file."""
    for order in args.order_list:
        for inst in order_instances(
            order, tuple(args.fill_list), args.count, args.seed, args.full_grids
        ):
            path = Path(args.instances) / f"{inst.name}.txt"
            if path.exists() and path.read_text() != lloyd_amos_text(inst.order, inst.cells):
                return (
                    f"--instances: {path} holds another instance than {inst.name} of "
                    f"--seed {args.seed} --full-grids {args.full_grids}; give another folder "
                    "for these files"
                )
    return None


def solve_all(args, result: dict, save) -> None:
    """Every instance by every solver, one process at a time; rows appended to result["rows"],
    save(result) after each."""
    run = len(result["runs"]) - 1
    for order in args.order_list:
        instances = order_instances(
            order, tuple(args.fill_list), args.count, args.seed, args.full_grids
        )
        Path(args.instances).mkdir(parents=True, exist_ok=True)
        for inst in instances:
            write_lloyd_amos(Path(args.instances) / f"{inst.name}.txt", inst.order, inst.cells)
        refused = None
        engines = [ENGINE[solver] for solver in args.solver_list if solver in ENGINE]
        if engines:
            refused = probe_gpu_anneal(instances[0], args, engines[0])
        limit = args.limits[order]
        for inst in instances:
            for solver in args.solver_list:
                if solver in ENGINE:
                    outcome = {"status": refused} if refused else run_gpu_anneal(
                        inst, limit, args, ENGINE[solver]
                    )  # fmt: skip
                else:
                    outcome = run_peer(solver, inst, limit, args)
                row = {"instance": inst.name, "order": order, "fill": inst.fill, "k": inst.k,
                       "solver": solver, "limit": limit, "run": run,
                       "load": os.getloadavg()[0], **checked(outcome, inst, limit)}  # fmt: skip
                result["rows"].append(row)
                print(json.dumps({k: row[k] for k in ("instance", "solver", "status", "solved")}
                                 | {"seconds": row.get("seconds")}), flush=True)  # fmt: skip
                save(result)


def main(argv: list[str] | None = None) -> int:
    """Make the instances, run every solver on each, write the table."""
    args = parse_args(argv)
    if args.render:
        rerender(args.out, render)
        return 0
    out = Path(args.out)
    result = {"rows": [], "runs": [], "table": [], "complete": False}
    if args.append and out.with_suffix(".json").exists():
        result = json.loads(out.with_suffix(".json").read_text())
    kept = ("orders", "fills", "count", "limit", "seed", "solvers", "backend", "schedule", "move",
            "grace", "full_grids")  # fmt: skip
    settings = {k: getattr(args, k) for k in kept}
    run = {**made_by("bench_frontier", argv), "args": settings,
           "machine": machine("ortools", "pysat")}  # fmt: skip
    # cells this run measures replace the same cells of an earlier run
    measured = {
        (o, f, s) for o in args.order_list for f in args.fill_list for s in args.solver_list
    }
    result["rows"] = [r for r in result["rows"] if (r["order"], r["fill"], r["solver"]) not in
                      measured]  # fmt: skip
    used = sorted({r["run"] for r in result["rows"]})  # runs with a row left, renumbered
    result["runs"] = [result["runs"][i] for i in used]
    for r in result["rows"]:
        r["run"] = used.index(r["run"])
    result["runs"].append(run)
    result["complete"] = False
    started = time.perf_counter()

    def save(res: dict) -> None:
        res["table"] = table_of(res["rows"])
        run["seconds"] = time.perf_counter() - started
        out.parent.mkdir(parents=True, exist_ok=True)
        out.with_suffix(".json").write_text(json.dumps(res, indent=1) + "\n")

    solve_all(args, result, save)
    run["load_average_at_end"] = list(os.getloadavg())
    result["complete"] = True
    result["table"] = table_of(result["rows"])
    run["seconds"] = time.perf_counter() - started
    write_results(out, result, render)
    return 0


if __name__ == "__main__":
    sys.exit(main())
