"""Annealing beside CP-SAT and the exact solver on hard 9x9 sets, 25x25 and 36x36 by fill ratio.

Every method solves the same puzzles in one process on the same cores, one puzzle at a time:

    sirdey       `--technique published`: Sirdey's published algorithm (sirdey-course
                 schedule from T0 = e_P, sirdey move, no deduction)
    candidate    --technique published --move candidate --t0 1
    propagate    --technique published --move candidate --t0 1 --propagate (`gpu-anneal solve
                 FILE` runs the same with shorter, colder trials on 9x9: the "auto" preset,
                 cpu_reference.sudoku.presets)
    band         --move candidate --propagate --schedule band (cpu_reference.sudoku.presets)
    auto         --move candidate --propagate --schedule candidate-auto (the candidate move's
                 measured best; on 16x16 and above a shorter, cooler band than band's)
    focused      --move focused --propagate --schedule auto (the candidate move on a cell in
                 conflict): `gpu-anneal solve FILE` from 16x16 up
    default      --move auto --propagate --schedule auto: `gpu-anneal solve FILE` at every
                 order (the move preset auto: focused-two on 9x9, focused from 16x16 up)
    cpsat        OR-Tools CP-SAT (../shared/tools/peers/cpsat_sudoku.py), `--workers` workers
    exact        cpu_reference.sudoku.exact.solve_exact, first solution (limit 1), node cap

Sets: top95 and forum_hardest_1106 (`--per-set` puzzles each, spread evenly over the file),
Lloyd & Amos 25x25 (`--per-level` instances per fill level, spread evenly over k = 0..99) and
the 36x36 instances of benchmarks/data/general_36x36.tsv (made by `--make-36`: full grids from
`gpu-anneal generate --order 6 --method backtrack`, cells blanked at random). Seconds are wall
seconds around the whole call (propagation and set-up included); compilation is excluded by a
warm-up solve per order and method. Annealing runs `--chains` chains (one per core).

The methods of `--few-methods` (by default the two that cannot solve most large grids in the
limit: sirdey and candidate) run on `--few` / `--few-36` of each level's instances, spread the
same way, to keep the run within its time budget; the table says how many each row has.

Per method and level: solved rate, median and p90 seconds (an unsolved puzzle counts as
infinitely slow, so a median above the limit prints as "> limit"), and the ratio of the median
to CP-SAT's. Results: benchmarks/results/anneal/anneal_peers.{json,md,png}; `--part NAME`
writes a part (anneal_peers_NAME.json) and `--merge` joins the parts into the result.

    python -m benchmarks.bench_anneal_peers --sets 9x9 --part 9x9
    python -m benchmarks.bench_anneal_peers --sets 25x25 --part 25x25
    python -m benchmarks.bench_anneal_peers --sets 36x36 --part 36x36
    python -m benchmarks.bench_anneal_peers --merge 9x9,25x25,36x36

`--tune` measures schedule candidates instead (`--tune-move`, candidate by default; propagation;
`--chains` chains) on other instances than the benchmark's (k offset by half a spread step; 9x9:
magictour_top1465) and writes benchmarks/results/tuning/anneal_peers_tune_PART.{json,md}: the
tables the presets are read from.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import subprocess
import sys
import time
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np

from benchmarks import paths
from benchmarks.frontier_instances import lloyd_amos_set
from benchmarks.machine import machine
from benchmarks.paths import ROOT
from cpu_reference.sudoku.exact import solve_exact
from cpu_reference.sudoku.formats import iter_puzzles
from cpu_reference.sudoku.schedules import with_start
from cpu_reference.sudoku.verify import verify_solution
from gpu_anneal.sudoku_solver import solve_one

matplotlib.use("Agg")  # pictures into files, no window
DATA = paths.SUDOKU_DATA
PEER = paths.SHARED / "tools/peers/cpsat_sudoku.py"
DATA_36 = paths.DATA / "general_36x36.tsv"
RESULTS = paths.results("anneal")  # the parts and the merged table
TUNING = paths.results("tuning")  # --tune's tables

# name -> solve_one settings (schedule, t0, move, propagate); the peers are named apart
ANNEAL = {
    "sirdey": dict(schedule="sirdey-course", t0=None, move="sirdey", propagate=False),
    "candidate": dict(schedule="sirdey-course", t0=1.0, move="candidate", propagate=False),
    "propagate": dict(schedule="sirdey-course", t0=1.0, move="candidate", propagate=True),
    "band": dict(schedule="band", t0=None, move="candidate", propagate=True),
    "auto": dict(schedule="candidate-auto", t0=None, move="candidate", propagate=True),
    "focused": dict(schedule="auto", t0=None, move="focused", propagate=True),
    "default": dict(schedule="auto", t0=None, move="auto", propagate=True),
}
PEERS = ("cpsat", "exact")
LEVELS_25 = (30, 35, 40, 45, 50, 55, 60)
LEVELS_36 = (45, 50, 55, 60)


def spread(count: int, total: int) -> list[int]:
    """`count` indices spread evenly over 0..total-1 (all of them when count >= total)."""
    if count >= total:
        return list(range(total))
    return sorted({int(i * total / count) for i in range(count)})


def nine_by_nine(name: str, count: int) -> list[tuple[str, np.ndarray]]:
    """(label, cells) of `count` puzzles spread over a 9x9 set file."""
    every = [p for p in iter_puzzles(DATA / name, name=name)]
    return [(f"{name}:{i + 1}", every[i].cells) for i in spread(count, len(every))]


def by_level(path: Path, levels: tuple[int, ...], count: int) -> dict[int, list]:
    """fill -> [(name, cells)] of `count` instances spread over each level's k = 0..max."""
    found: dict[int, dict[int, np.ndarray]] = {}
    for fill, k, p in lloyd_amos_set(path):
        if fill in levels:
            found.setdefault(fill, {})[k] = p.cells
    out = {}
    for fill in levels:
        ks = sorted(found.get(fill, {}))
        out[fill] = [(f"{path.stem}_{fill}_{ks[i]}", found[fill][ks[i]]) for i in
                     spread(count, len(ks))]  # fmt: skip
    return out


def training(path: Path, levels: tuple[int, ...], count: int) -> dict[int, list]:
    """fill -> [(name, cells)] of `count` instances per level that the reported benchmark
    skips (each half a spread step from one of by_level's picks): schedules are tuned on these."""
    return {fill: items[1::2] for fill, items in by_level(path, levels, 2 * count).items()}


def load_peer():
    """The CP-SAT peer module (its solve(n, values, time_limit, workers))."""
    spec = importlib.util.spec_from_file_location("cpsat_sudoku", PEER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_method(method: str, cells: np.ndarray, order: int, args, limit: float, peer) -> dict:
    """Solve one puzzle by one method: {"solved", "seconds", ...} (wall seconds)."""
    if method == "cpsat":
        ok, seconds = peer.solve(order, [int(v) for v in cells], limit, args.workers)
        return {"solved": bool(ok), "seconds": seconds}
    if method == "exact":
        start = time.perf_counter()
        count, solution, nodes = solve_exact(cells, order, limit=1, max_nodes=args.exact_nodes)
        seconds = time.perf_counter() - start
        ok = count >= 1 and verify_solution(solution, order, cells) is None
        return {"solved": bool(ok), "seconds": seconds, "nodes": int(nodes)}
    s = ANNEAL[method]
    start = time.perf_counter()
    r = solve_one(
        cells, order, schedule=with_start(s["schedule"], order, s["t0"]), chains=args.chains,
        seed=args.seed, time_limit=limit, move=s["move"], propagate=s["propagate"],
    )  # fmt: skip
    seconds = time.perf_counter() - start
    return {"solved": bool(r.solved), "seconds": seconds, "pool_seconds": r.seconds,
            "trials": r.trials, "proposals": r.proposals, "cost": r.cost}  # fmt: skip


def warm_up(methods: list[str], cells: np.ndarray, order: int, args) -> None:
    """Compile each annealing method's rules for this order before any clock runs."""
    for method in methods:
        if method in ANNEAL:
            s = ANNEAL[method]
            solve_one(cells, order, schedule=with_start(s["schedule"], order, s["t0"]),
                      chains=args.chains, seed=args.seed, time_limit=0.5, move=s["move"],
                      propagate=s["propagate"])  # fmt: skip
        elif method == "exact":
            solve_exact(cells, order, limit=1, max_nodes=1000)


def summarize(rows: list[dict]) -> dict:
    """Solved rate, median and p90 seconds (unsolved = infinite; None when infinite)."""
    times = sorted(r["seconds"] if r["solved"] else math.inf for r in rows)
    solved = sum(r["solved"] for r in rows)

    def quantile(q: float):
        x = times[min(len(times) - 1, math.ceil(q * len(times)) - 1)]
        return None if math.isinf(x) else x

    median = float(np.median(times)) if times else math.inf
    return {"instances": len(rows), "solved": solved, "rate": solved / max(1, len(rows)),
            "median": None if math.isinf(median) else median, "p90": quantile(0.9)}  # fmt: skip


def measure(args, save=None) -> dict:
    """Run every requested set and method; return the part's JSON record. `save(record)`, when
    given, is called after each method and level, so that a stopped run keeps what it measured."""
    peer = load_peer() if "cpsat" in args.methods else None
    groups = []  # (set, level, order, limit, [(name, cells)])
    sets = args.sets.split(",")
    if "9x9" in sets:
        for name in ("top95.txt", "forum_hardest_1106.txt"):
            groups.append((name.removesuffix(".txt"), None, 3, args.limit_9,
                           nine_by_nine(name, args.per_set)))  # fmt: skip
    if "25x25" in sets:
        levels = tuple(int(x) for x in args.levels_25.split(","))
        for fill, items in by_level(DATA / "general_25x25.tsv", levels, args.per_level).items():
            groups.append(("25x25", fill, 5, args.limit_25, items))
    if "36x36" in sets:
        levels = tuple(int(x) for x in args.levels_36.split(","))
        for fill, items in by_level(DATA_36, levels, args.per_level_36).items():
            groups.append(("36x36", fill, 6, args.limit_36, items))
    skip = {m: set(filter(None, v.split("/")[1:])) for m, v in
            ((x.split("/")[0], x) for x in args.skip.split(",") if x)}  # fmt: skip
    warmed: set[int] = set()
    table, rows = [], []
    for set_name, level, order, limit, items in groups:
        if order not in warmed:
            warm_up(args.methods, items[0][1], order, args)
            warmed.add(order)
        for method in args.methods:
            if set_name in skip.get(method, ()):
                continue
            done = []
            subset = items
            if method in args.few_methods and set_name in ("25x25", "36x36"):
                count = args.few if set_name == "25x25" else args.few_36
                subset = [items[i] for i in spread(count, len(items))]
            for name, cells in subset:
                r = run_method(method, cells, order, args, limit, peer)
                r.update(method=method, set=set_name, level=level, puzzle=name, limit=limit)
                done.append(r)
                rows.append(r)
            row = {"set": set_name, "level": level, "method": method, "limit": limit,
                   **summarize(done)}  # fmt: skip
            table.append(row)
            print(json.dumps(row), flush=True)
            if save is not None:
                save({"args": vars(args), "rows": rows, "table": table, "complete": False})
    return {"args": vars(args), "rows": rows, "table": table, "complete": True}


def with_ratios(table: list[dict]) -> list[dict]:
    """Each row with ratio = its median / CP-SAT's median on the same set and level."""
    peer = {(r["set"], r["level"]): r["median"] for r in table if r["method"] == "cpsat"}
    out = []
    for r in table:
        base = peer.get((r["set"], r["level"]))
        ratio = None
        if base and r["median"] is not None:
            ratio = r["median"] / base
        out.append({**r, "ratio_to_cpsat": ratio})
    return out


def fmt_seconds(x, limit) -> str:
    """A time for the table: '> limit' when infinite."""
    if x is None:
        return f"> {limit:g}"
    return f"{x:.3g}" if x < 10 else f"{x:.1f}"


def describe(method) -> str:
    """An annealing method as its `gpu-anneal solve` options; a peer's text as it is."""
    if isinstance(method, str):
        return method
    flags = [f"--schedule {method['schedule']}", f"--move {method['move']}"]
    if method["t0"] is not None:
        flags.append(f"--t0 {method['t0']:g}")
    flags.append("--propagate" if method["propagate"] else "--no-propagate")
    return "`" + " ".join(flags) + "`"


def write_markdown(result: dict, path: Path) -> None:
    """The table of the merged result, one block per set."""
    m = result["machine"]
    lines = [
        "# Annealing beside CP-SAT and the exact solver",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, load average at start "
        f"{m['load_average_at_start']:.2f}, {m['date']}; OR-Tools {m.get('ortools')}.",
        "Seconds are wall seconds per puzzle, one puzzle at a time, on all cores (annealing: "
        "one chain per core; CP-SAT: 2 workers), set-up and propagation included, compilation "
        'excluded. Unsolved within the limit counts as infinitely slow ("> limit"); the exact '
        "solver has no time limit and stops at its node cap instead. ratio = median / CP-SAT's "
        "median on the same set and level (sirdey and candidate run on fewer of its puzzles: "
        "see solved). Machine load: each part's line under Commands.",
        "",
        "Methods: " + "; ".join(f"**{k}** {describe(v)}" for k, v in result["methods"].items()),
        "",
    ]
    for set_name in dict.fromkeys(r["set"] for r in result["table"]):
        rows = [r for r in result["table"] if r["set"] == set_name]
        lines += [f"## {set_name}", "",
                  "| fill % | method | limit s | solved | median s | p90 s | ratio to CP-SAT |",
                  "| ---: | --- | ---: | ---: | ---: | ---: | ---: |"]  # fmt: skip
        for r in rows:
            ratio = "-" if r["ratio_to_cpsat"] is None else f"{r['ratio_to_cpsat']:.2g}"
            lines.append(
                f"| {r['level'] if r['level'] is not None else '-'} | {r['method']} | "
                f"{r['limit']:g} | {r['solved']}/{r['instances']} | "
                f"{fmt_seconds(r['median'], r['limit'])} | {fmt_seconds(r['p90'], r['limit'])} "
                f"| {ratio} |"
            )
        lines.append("")
    lines += [f"Note: {n}" for n in result.get("notes", [])]
    lines += ["", "Commands (one per part with its start and load average, then the merge):", ""]
    for c, facts in zip(result["commands"], [*result["machines"], None], strict=True):
        when = (
            ""
            if facts is None
            else (f"  # {facts['date']}, load {facts['load_average_at_start']:.2f}")
        )
        lines.append(f"    {c}{when}")
    path.write_text("\n".join(lines) + "\n")


def plot(table: list[dict], path: Path) -> None:
    """Median seconds against fill per method, one panel per grid size (unsolved: not drawn)."""
    sizes = [s for s in ("25x25", "36x36") if any(r["set"] == s for r in table)]
    fig, axes = plt.subplots(1, max(1, len(sizes)), figsize=(6 * max(1, len(sizes)), 4.2))
    axes = np.atleast_1d(axes)
    for ax, size in zip(axes, sizes, strict=False):
        rows = [r for r in table if r["set"] == size]
        for method in dict.fromkeys(r["method"] for r in rows):
            pts = sorted((r["level"], r["median"], r["limit"]) for r in rows
                         if r["method"] == method)  # fmt: skip
            if all(y is None for _, y, _ in pts):
                continue  # never a median within the limit: named in the table only
            xs = [x for x, _, _ in pts]
            ys = [math.nan if y is None else y for _, y, _ in pts]  # gaps where unsolved
            ax.plot(xs, ys, marker="o", label=method)
        limit = max(r["limit"] for r in rows)
        ax.axhline(limit, color="grey", lw=0.8, ls="--")
        ax.set_yscale("log")
        ax.set_xlabel("fill ratio (% of cells given)")
        ax.set_ylabel("median wall seconds (gap or no line: median unsolved)")
        ax.set_title(f"{size} (dashed: time limit)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def latest(rows: list[dict], per_puzzle: bool = False) -> list[dict]:
    """Rows with only the last of each (set, level, method[, puzzle]), kept where the first
    stood."""
    key = lambda r: (r["set"], r["level"], r["method"], r["puzzle"] if per_puzzle else None)  # noqa: E731
    last = {key(r): r for r in rows}
    out, seen = [], set()
    for r in rows:
        if key(r) not in seen:
            seen.add(key(r))
            out.append(last[key(r)])
    return out


def in_order(table: list[dict]) -> list[dict]:
    """Table rows sorted by set (as first met), level, then method (ANNEAL, then PEERS)."""
    sets = list(dict.fromkeys(r["set"] for r in table))
    methods = [*ANNEAL, *PEERS]
    rank = lambda m: methods.index(m) if m in methods else len(methods)  # noqa: E731
    level = lambda x: -1 if x is None else x  # noqa: E731
    return sorted(table, key=lambda r: (sets.index(r["set"]), level(r["level"]), rank(r["method"])))


def merge(parts: list[str]) -> None:
    """Join part files into anneal_peers.{json,md,png}.

    A later part's rows replace an earlier part's of the same set, level and method (a method
    re-run with its peers after a change); the table is ordered by set (as first met), level
    and method (as ANNEAL and PEERS name them)."""
    records = [json.loads((RESULTS / f"anneal_peers_{p}.json").read_text()) for p in parts]
    table = with_ratios(in_order(latest([r for rec in records for r in rec["table"]])))
    result = {
        "machine": records[0]["machine"],
        "machines": [rec["machine"] for rec in records],
        "methods": {k: v for rec in records for k, v in rec["methods"].items()},  # later win
        "commands": [rec["command"] for rec in records]
        + ["python -m benchmarks.bench_anneal_peers --merge " + ",".join(parts)],
        "table": table,
        "rows": latest([r for rec in records for r in rec["rows"]], per_puzzle=True),
        "notes": [rec["note"] for rec in records if rec.get("note")],
    }
    out = RESULTS / "anneal_peers"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(result, indent=1, allow_nan=False))
    write_markdown(result, out.with_suffix(".md"))
    plot(table, out.with_suffix(".png"))


def make_36(count: int, seed: int) -> None:
    """benchmarks/data/general_36x36.tsv: `count` instances per level of LEVELS_36, each from
    its own backtracking grid, cells blanked uniformly at random to the level's fill."""
    grids_needed = count * len(LEVELS_36)
    text = subprocess.run(
        [sys.executable, "-m", "gpu_anneal", "generate", "--order", "6", "--method",
         "backtrack", "--count", str(grids_needed), "--seed", str(seed)],
        check=True, capture_output=True, text=True, cwd=ROOT,
    ).stdout  # fmt: skip
    grids = [np.array(line.split("\t")[2].split(","), np.uint8) for line in text.splitlines()]
    rng = np.random.default_rng(seed)
    lines = [
        f"# 36x36 instances: gpu-anneal generate --order 6 --method backtrack --count "
        f"{grids_needed} --seed {seed}, cells kept uniformly at random (numpy seed {seed})"
    ]
    for j, fill in enumerate(LEVELS_36):
        for k in range(count):
            grid = grids[j * count + k].copy()
            keep = round(fill / 100 * grid.size)
            blank = rng.permutation(grid.size)[keep:]
            grid[blank] = 0
            lines.append(f"inst36x36_{fill}_{k}\t6\t" + ",".join(str(v) for v in grid))
    DATA_36.parent.mkdir(parents=True, exist_ok=True)
    DATA_36.write_text("\n".join(lines) + "\n")


def tune(args) -> None:
    """Median seconds of each schedule candidate per order and fill level (see module doc)."""
    cands = [c for c in args.tune_candidates.split(";") if c]
    groups = []
    sets = args.sets.split(",")
    if "9x9" in sets:
        every = list(iter_puzzles(DATA / "magictour_top1465.txt", name="magictour"))
        picks = spread(args.per_set, len(every))
        groups.append(("magictour_top1465", None, 3, [(f"magictour:{i + 1}", every[i].cells)
                                                       for i in picks]))  # fmt: skip
    for size, order, path, levels, count in (
        ("25x25", 5, DATA / "general_25x25.tsv", args.levels_25, args.per_level),
        ("36x36", 6, DATA_36, args.levels_36, args.per_level_36),
    ):
        if size not in sets:
            continue
        levels = tuple(int(x) for x in levels.split(","))
        for fill, items in training(path, levels, count).items():
            groups.append((size, fill, order, items))
    limit = {3: args.limit_9, 5: args.limit_25, 6: args.limit_36}
    facts = machine()  # its load average before the runs
    table = []
    warmed = set()
    for set_name, level, order, items in groups:
        if order not in warmed:
            solve_one(items[0][1], order, schedule=with_start(cands[0], order),
                      chains=args.chains, seed=args.seed, time_limit=0.5, move=args.tune_move,
                      propagate=True)  # fmt: skip
            warmed.add(order)
        for cand in cands:
            done = []
            for name, cells in items:
                start = time.perf_counter()
                r = solve_one(cells, order, schedule=with_start(cand, order), chains=args.chains,
                              seed=args.seed, time_limit=limit[order], move=args.tune_move,
                              propagate=True)  # fmt: skip
                done.append({"puzzle": name, "solved": bool(r.solved),
                             "seconds": time.perf_counter() - start})  # fmt: skip
            row = {"set": set_name, "level": level, "schedule": cand, "limit": limit[order],
                   **summarize(done), "rows": done}  # fmt: skip
            table.append(row)
            print(json.dumps({k: v for k, v in row.items() if k != "rows"}), flush=True)
    record = {
        "machine": facts,
        "args": vars(args),
        "table": table,
        "command": "python -m benchmarks.bench_anneal_peers " + " ".join(sys.argv[1:]),
    }
    out = TUNING / f"anneal_peers_tune_{args.part}"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(record, indent=1, allow_nan=False))
    m = record["machine"]
    lines = [f"# Schedule candidates for the presets ({args.tune_move} move, propagation)", "",
             f"Machine: {m['cpu']}, {m['cores']} cores, load average at start "
             f"{m['load_average_at_start']:.2f}, {m['date']}; {args.chains} chains; wall "
             "seconds per puzzle; unsolved counts as infinitely slow.", "",
             "| set | fill % | schedule | limit s | solved | median s | p90 s |",
             "| --- | ---: | --- | ---: | ---: | ---: | ---: |"]  # fmt: skip
    for r in table:
        lines.append(f"| {r['set']} | {r['level'] if r['level'] is not None else '-'} | "
                     f"`{r['schedule']}` | {r['limit']:g} | {r['solved']}/{r['instances']} | "
                     f"{fmt_seconds(r['median'], r['limit'])} | "
                     f"{fmt_seconds(r['p90'], r['limit'])} |")  # fmt: skip
    lines += ["", f"Command: `{record['command']}`"]
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")


def main() -> None:
    """Parse the flags; measure a part, merge parts, or make the 36x36 instances."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="9x9,25x25,36x36")
    ap.add_argument("--methods", default=",".join((*ANNEAL, *PEERS)))
    ap.add_argument("--skip", default="", help="method/set/set,...: sets a method skips")
    ap.add_argument("--per-set", type=int, default=20, help="9x9 puzzles per set")
    ap.add_argument("--per-level", type=int, default=10, help="25x25 instances per level")
    ap.add_argument("--per-level-36", type=int, default=4, help="36x36 instances per level")
    ap.add_argument("--levels-25", default=",".join(map(str, LEVELS_25)))
    ap.add_argument("--levels-36", default=",".join(map(str, LEVELS_36)))
    ap.add_argument("--limit-9", type=float, default=10.0, help="seconds per 9x9 puzzle")
    ap.add_argument("--limit-25", type=float, default=10.0)
    ap.add_argument("--limit-36", type=float, default=60.0)
    ap.add_argument(
        "--few-methods",
        default="sirdey,candidate",
        help="methods run on fewer instances per 25x25 and 36x36 level (slow ones)",
    )
    ap.add_argument("--few", type=int, default=3, help="their 25x25 instances per level")
    ap.add_argument("--few-36", type=int, default=1, help="their 36x36 instances per level")
    ap.add_argument("--chains", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2, help="CP-SAT workers")
    ap.add_argument("--exact-nodes", type=int, default=5_000_000, help="exact solver node cap")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--part", default="all", help="name of the part file to write")
    ap.add_argument("--merge", default=None, help="comma-separated part names to merge")
    ap.add_argument("--make-36", type=int, default=None, help="instances per level to make")
    ap.add_argument("--tune", action="store_true", help="measure schedule candidates instead")
    ap.add_argument(
        "--tune-candidates",
        default=";".join(
            f"sirdey-course:t0={t},stall=0,max_plateaus=20000" for t in (0.22, 0.26, 0.3, 0.34)
        ),
    )
    ap.add_argument("--tune-move", default="candidate", help="the move --tune runs")
    args = ap.parse_args()
    if args.make_36 is not None:
        make_36(args.make_36, 36)
        return
    if args.merge:
        merge(args.merge.split(","))
        return
    if args.tune:
        tune(args)
        return
    args.methods = args.methods.split(",")
    args.few_methods = [m for m in args.few_methods.split(",") if m]
    start = time.time()
    facts = machine("ortools")
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"anneal_peers_{args.part}.json"

    def save(record: dict) -> None:
        record.update(
            machine=facts,
            wall_seconds=time.time() - start,
            command="python -m benchmarks.bench_anneal_peers " + " ".join(sys.argv[1:]),
            methods={**{k: v for k, v in ANNEAL.items() if k in args.methods},
                     **{"cpsat": f"OR-Tools CP-SAT, {args.workers} workers",
                        "exact": f"solve_exact limit 1, node cap {args.exact_nodes:,} "
                                 "(no time limit)"}},
        )  # fmt: skip
        path.write_text(json.dumps(record, indent=1, allow_nan=False))

    record = measure(args, save)
    save(record)
    print(f"wrote {path} in {record['wall_seconds']:.0f} s", flush=True)


if __name__ == "__main__":
    main()
