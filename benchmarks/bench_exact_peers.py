"""The exact solver beside tdoku, in one run, and counting to two on 25x25 and 36x36 grids.

9x9 (one thread each, same files, same run): tdoku's DPLL triad SIMD solver
(../shared/tools/peers/tdoku_rate.cc, built here with g++) and the engine's exact solver with its
default rules ("fast": the band solver) and with seed 003's rules ("seed"), on 17_clue,
forum_hardest_1106 and magictour_top1465, stopping at the first solution (limit 1) and counting to
two (limit 2). Each figure is the best of --repeats passes, compilation excluded; tdoku and the
engine alternate pass by pass so that both see the same machine. Nodes per puzzle (branch values
tried) for both rule sets. The batch mode (numba prange over puzzles) on every core as well.
tdoku's own test puzzles (counts 0, 1, 2 and more) are checked.

Large grids: every Lloyd & Amos 25x25 instance at 30 to 60 % fill (100 per level) and 36x36 grids
made here at the same fill levels (a random full grid from a shuffled pattern, random cells
emptied, fixed seed), counted to two, one thread, seconds per instance.

Escalation sweep (`--part escalate`): the same 25x25 instances counted to two with all-different
added after each of several node budgets (exact_large.count_restarts' escalate_nodes), beside
box-line alone ("never") and all-different from the start ("always"): how much the worst case
depends on the budget the solver ships with (exact_large.ESCALATE_NODES).

Settings for 36x36 (`--part settings-36`): 36x36 training grids made as above from another
seed (37, not the reported instances), counted to two under each combination of rules (box-line
with all-different escalated after ESCALATE_NODES, or all-different from the start; with or
without fish, the all-different of each digit's rows-to-columns matching; with or without phase
saving) and first restart budget (the restarted runs' base_nodes), node cap --max-nodes: whether
order 6 should ship other settings than every large order's (exact.RESTART_BASE,
exact_large.DEFAULT_RULES).

CP-SAT on the reported 36x36 grids (`--part cpsat-36`): OR-Tools CP-SAT
(../shared/tools/peers/cpsat_sudoku.py, --cpsat-workers workers, --cpsat-limit seconds each)
asked for one solution of each 36x36 instance of the large part (the same --per-level-36 and
seed): how a solver with clause learning fares where counting to two misses its second.

Node rate (`--part node-rate`): branch nodes per second of the exact-cover solver with box-line
alone (no all-different, so that every version of the solver does the same work per node) on
the 25x25 instances at 45 % filled, each run to its count or to --max-nodes; run at two commits
to compare versions (the result records the commit).

    python -m benchmarks.bench_exact_peers [--data-dir DIR] [--peers-dir DIR] [--repeats 3]
    python -m benchmarks.bench_exact_peers --render benchmarks/results/exact/exact_peers.json
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

from benchmarks.bench_exact import check_tdoku, read_81, read_tsv
from benchmarks.machine import git, machine
from benchmarks.paths import SHARED, SUDOKU_DATA, results
from benchmarks.tables import table_block
from cpu_reference.sudoku import exact_bands9 as bands9
from cpu_reference.sudoku import exact_large as large
from cpu_reference.sudoku.exact import (
    RESTART_BASE,
    solve_batch_serial,
    solve_exact,
    solve_many,
    tables,
)
from cpu_reference.sudoku.verify import verify_solution

RESULTS = results("exact")
SETS = ("17_clue.txt", "forum_hardest_1106.txt", "magictour_top1465.txt")
LEVELS = (30, 35, 40, 45, 50, 55, 60)
TARGET_RATIO = 0.5  # issue target: >= 0.5x tdoku at limit 2
TARGET_LARGE_S = 1.0  # every large instance counted to two within a second


@contextlib.contextmanager
def one_thread():
    """Run the block on one numba thread, then give numba all its threads back."""
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


def build_tdoku(peers: Path, out_dir: Path) -> Path:
    """Compile tdoku_rate as its README says; returns the binary's path."""
    binary = out_dir / "tdoku_rate"
    cmd = [
        "g++",
        "-O3",
        "-march=native",
        "-std=c++17",
        f"-I{peers / 'tdoku' / 'include'}",
        str(peers / "tdoku_rate.cc"),
        str(peers / "tdoku" / "src" / "solver_dpll_triad_simd.cc"),
        str(peers / "tdoku" / "src" / "util.cc"),
        "-o",
        str(binary),
    ]
    subprocess.run(cmd, check=True)
    return binary


def tdoku_pass(binary: Path, path: Path, limit: int) -> dict:
    """One tdoku run over a file (its own best of 1): the JSON line it prints."""
    proc = subprocess.run(
        [str(binary), str(path), str(limit), "1"], capture_output=True, text=True, check=True
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def engine_fast_pass(puzzles: np.ndarray, limit: int) -> tuple[float, np.ndarray, np.ndarray]:
    """The band solver over all puzzles on one thread: (seconds, counts, nodes)."""
    counts = np.zeros(len(puzzles), np.int32)
    nodes = np.zeros(len(puzzles), np.int64)
    solutions = np.zeros_like(puzzles)
    start = time.perf_counter()
    bands9.solve9_parallel(puzzles, limit, 0, 1, counts, solutions, nodes)
    return time.perf_counter() - start, counts, nodes


def engine_seed_pass(puzzles: np.ndarray, limit: int) -> tuple[float, np.ndarray, int]:
    """Seed 003's rules over all puzzles on the calling thread: (seconds, counts, total nodes)."""
    counts = np.zeros(len(puzzles), np.int32)
    solutions = np.zeros_like(puzzles)
    start = time.perf_counter()
    total = solve_batch_serial(puzzles, tables(3), limit, 0, counts, solutions)
    return time.perf_counter() - start, counts, total


def bench_set(binary: Path, path: Path, limit: int, repeats: int) -> dict:
    """tdoku and the engine (both rule sets) alternating over `repeats` passes of one file."""
    puzzles = read_81(path)
    engine_fast_pass(puzzles[:8], limit)  # compile
    engine_seed_pass(puzzles[:8], limit)
    tdoku, fast, seed = [], [], []
    fast_counts = fast_nodes = seed_counts = None
    seed_nodes = 0
    for _ in range(repeats):
        tdoku.append(tdoku_pass(binary, path, limit))
        seconds, fast_counts, fast_nodes = engine_fast_pass(puzzles, limit)
        fast.append(seconds)
        seconds, seed_counts, seed_nodes = engine_seed_pass(puzzles, limit)
        seed.append(seconds)
    if not np.array_equal(fast_counts, seed_counts):
        raise SystemExit(f"{path.name}: the two rule sets disagree on solution counts")
    best_tdoku = max(t["puzzles_per_second"] for t in tdoku)
    fast_rate = len(puzzles) / min(fast)
    return {
        "limit": limit,
        "puzzles": len(puzzles),
        "tdoku_puzzles_per_second": best_tdoku,
        "tdoku_passes": tdoku,
        "fast_puzzles_per_second": fast_rate,
        "fast_seconds": fast,
        "seed_puzzles_per_second": len(puzzles) / min(seed),
        "seed_seconds": seed,
        "ratio_fast_to_tdoku": fast_rate / best_tdoku,
        "ratio_seed_to_tdoku": len(puzzles) / min(seed) / best_tdoku,
        "fast_nodes_per_puzzle": float(fast_nodes.mean()),
        "seed_nodes_per_puzzle": seed_nodes / len(puzzles),
        "counts": {
            str(int(v)): int(c)
            for v, c in zip(*np.unique(fast_counts, return_counts=True), strict=True)
        },
    }


def bench_batch(path: Path, limit: int, repeats: int) -> dict:
    """solve_many (prange over puzzles) on every numba thread: best puzzles/s."""
    puzzles = read_81(path)
    solve_many(puzzles[:8], 3, limit)
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        solve_many(puzzles, 3, limit)
        seconds.append(time.perf_counter() - start)
    return {
        "limit": limit,
        "threads": numba.get_num_threads(),
        "puzzles": len(puzzles),
        "puzzles_per_second": len(puzzles) / min(seconds),
        "seconds": seconds,
    }


def full_grid(order: int, rng: np.random.Generator) -> np.ndarray:
    """A random full grid: the pattern (n (r % n) + r // n + k) % N, digits relabelled, rows
    shuffled inside bands and bands shuffled, the same for columns, maybe transposed."""
    n = order
    N = n * n
    r, k = np.meshgrid(np.arange(N), np.arange(N), indexing="ij")
    grid = (n * (r % n) + r // n + k) % N

    def lines() -> np.ndarray:
        bands = rng.permutation(n)
        return np.concatenate([b * n + rng.permutation(n) for b in bands])

    grid = grid[lines()][:, lines()]
    if rng.random() < 0.5:
        grid = grid.T
    return (rng.permutation(N) + 1)[grid].astype(np.uint8)


def holes(grid: np.ndarray, fill: int, rng: np.random.Generator) -> np.ndarray:
    """The grid with all but round(fill % of cells) emptied at random, flattened."""
    flat = grid.reshape(-1).copy()
    keep = round(flat.size * fill / 100)
    flat[rng.permutation(flat.size)[keep:]] = 0
    return flat


def instances_36(per_level: int, seed: int) -> list[tuple[str, int, np.ndarray]]:
    """36x36 instances at each fill level: (name, order, cells)."""
    rng = np.random.default_rng(seed)
    out = []
    for fill in LEVELS:
        for k in range(per_level):
            out.append((f"made36x36_{fill}_{k}", 6, holes(full_grid(6, rng), fill, rng)))
    return out


def bench_large(rows: list[tuple[str, int, np.ndarray]], max_nodes: int) -> dict:
    """Count to two on each instance, one thread: per level counts, median, p90, max seconds.

    A search stopped at `max_nodes` branch values counts as "-1" (not settled), with its time.
    """
    with one_thread():
        solve_exact(rows[0][2], rows[0][1], 2)  # compile
        levels: dict[str, dict] = {}
        for index, (name, order, cells) in enumerate(rows):
            if index == 0 or name.split("_")[1] != rows[index - 1][0].split("_")[1]:
                print(f"{name} ...", file=sys.stderr, flush=True)
            start = time.perf_counter()
            count, solution, nodes = solve_exact(cells, order, 2, max_nodes=max_nodes)
            seconds = time.perf_counter() - start
            if count >= 1 and verify_solution(solution, order, cells) is not None:
                raise SystemExit(f"{name}: the solver's solution does not verify")
            level = levels.setdefault(name.split("_")[1], {"times": [], "nodes": [], "counts": {}})
            level["times"].append(seconds)
            level["nodes"].append(int(nodes))
            level["counts"][str(count)] = level["counts"].get(str(count), 0) + 1
            if seconds > TARGET_LARGE_S:
                level.setdefault("over_target", []).append([name, round(seconds, 3)])
    out = {}
    for fill, level in levels.items():
        t = np.array(level.pop("times"))
        nodes = np.array(level.pop("nodes"))
        out[fill] = {
            **level,
            "instances": len(t),
            "median_s": float(np.median(t)),
            "p90_s": float(np.percentile(t, 90)),
            "max_s": float(t.max()),
            "max_nodes": int(nodes.max()),
            "median_nodes": float(np.median(nodes)),
        }
    return out


def render(result: dict) -> str:
    """The markdown summary of a results dict."""
    if "sets" not in result:
        return "# Exact solver beside tdoku\n\nNo 9x9 part in this results file yet.\n"
    m = result["machine"]
    lines = [
        "# Exact solver beside tdoku (one thread each, same run), and large grids counted to two",
        "",
        f"Machine: {m['cpu_model']}, {m['cores']} cores, load average {m.get('load_average')}, "
        f"{m.get('date', '')}. Each rate is the best of {result['repeats']} passes (compile "
        "excluded); tdoku and the engine alternate pass by pass. Raw figures: `exact_peers.json`.",
        "",
        "| set | limit | tdoku p/s | engine p/s | ratio | seed rules p/s | ratio | nodes/puzzle "
        "(engine / seed rules) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for name, by_limit in result["sets"].items():
        for r in by_limit:
            lines.append(
                f"| {name.removesuffix('.txt')} ({r['puzzles']:,}) | {r['limit']} "
                f"| {r['tdoku_puzzles_per_second']:,.0f} | {r['fast_puzzles_per_second']:,.0f} "
                f"| {r['ratio_fast_to_tdoku']:.2f} | {r['seed_puzzles_per_second']:,.0f} "
                f"| {r['ratio_seed_to_tdoku']:.2f} | {r['fast_nodes_per_puzzle']:.1f} / "
                f"{r['seed_nodes_per_puzzle']:.1f} |"
            )
    ratios = [
        r["ratio_fast_to_tdoku"] for v in result["sets"].values() for r in v if r["limit"] == 2
    ]
    met = all(x >= TARGET_RATIO for x in ratios)
    lines += [
        "",
        f"Target >= {TARGET_RATIO}x tdoku on every set at limit 2: "
        f"{'met' if met else 'missed'} (ratios {', '.join(f'{x:.2f}' for x in ratios)}).",
        "",
        "Batch mode (`solve_many`, numba prange over puzzles, every core):",
        "",
        "| set | limit | threads | puzzles/s |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, r in result["batch"].items():
        lines.append(
            f"| {name.removesuffix('.txt')} | {r['limit']} | {r['threads']} "
            f"| {r['puzzles_per_second']:,.0f} |"
        )
    t = result["tdoku_test_puzzles"]
    lines += ["", f"tdoku's test puzzles: {t['right']} right, {t['wrong']} wrong.", ""]
    for key, title in (("large_25", "Lloyd & Amos 25x25"), ("large_36", "36x36 made here")):
        if key not in result:
            continue
        lines += [
            f"{title}, counted to two, one thread, seconds per instance:",
            "",
            "| fill % | instances | counts | median s | p90 s | max s | max nodes | over 1 s |",
            "| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |",
        ]
        for fill, r in sorted(result[key].items(), key=lambda kv: int(kv[0])):
            counts = ", ".join(f"{k}: {v}" for k, v in sorted(r["counts"].items()))
            lines.append(
                f"| {fill} | {r['instances']} | {counts} | {r['median_s']:.4f} | {r['p90_s']:.4f} "
                f"| {r['max_s']:.3f} | {r['max_nodes']:,} | {len(r.get('over_target', []))} |"
            )
        worst = max(r["max_s"] for r in result[key].values())
        verdict = "met" if worst <= TARGET_LARGE_S else "missed"
        lines += [
            "",
            f"Target: every instance within {TARGET_LARGE_S:g} s: {verdict} (worst {worst:.3f} s).",
            "",
        ]
    if "escalate" in result:
        e = result["escalate"]
        title = (
            "Lloyd & Amos 25x25 at 30-60 % filled counted to two with all-different added after "
            f"a node budget (the solver ships with {e['shipped']:,}), one thread, "
            f"{e['instances']} instances, node cap {e['max_nodes']:,}:"
        )
        header = ("all-different after", "total s", "median s", "max s", "max nodes", "over 1 s")
        cells = [
            (r["after"], f"{r['total_s']:.2f}", f"{r['median_s']:.4f}", f"{r['max_s']:.3f}",
             f"{r['max_nodes']:,}", str(r["over_1s"]))
            for r in e["rows"]
        ]  # fmt: skip
        tail = f"Command (escalate): `{e['command']}`, {e['machine'].get('date', '')}."
        lines += table_block(title, header, cells, tail)
    if "settings_36" in result:
        e = result["settings_36"]
        title = (
            f"36x36 training grids (made from seed {e['seed']}, not the reported ones) counted "
            f"to two under each setting, one thread, node cap {e['max_nodes']:,}:"
        )
        header = ("settings", "fill %", "settled", "median s", "max s", "over 1 s")
        cells = [
            (r["settings"], str(r["fill"]), f"{r['settled']}/{r['instances']}",
             f"{r['median_s']:.4f}", f"{r['max_s']:.3f}", str(r["over_1s"]))
            for r in e["rows"]
        ]  # fmt: skip
        tail = f"Command (settings-36): `{e['command']}`, {e['machine'].get('date', '')}."
        lines += table_block(title, header, cells, tail)
    if "cpsat_36" in result:
        e = result["cpsat_36"]
        title = (
            f"OR-Tools CP-SAT on the reported 36x36 grids, one solution asked, {e['workers']} "
            f"workers, {e['limit']:g} s each (a peer with clause learning):"
        )
        header = ("fill %", "instances", "solved", "within 1 s", "median s", "max s")
        cells = [
            (str(r["fill"]), str(r["instances"]), str(r["solved"]), str(r["within_1s"]),
             "-" if r["median_s"] is None else f"{r['median_s']:.3f}",
             "-" if r["max_s"] is None else f"{r['max_s']:.3f}")
            for r in e["rows"]
        ]  # fmt: skip
        tail = (
            "median s and max s over the solved instances; an unsolved one ran the whole limit. "
            f"Command (cpsat-36): `{e['command']}`, {e['machine'].get('date', '')}."
        )
        lines += table_block(title, header, cells, tail)
    if result.get("node_rate"):
        title = (
            "Exact-cover solver, box-line only, the 100 25x25 instances at 45 % filled counted to "
            "two, one thread, best of the passes:"
        )
        header = ("commit", "nodes", "seconds", "nodes/s", "date")
        cells = [
            (r["commit"], f"{r['nodes']:,}", f"{r['best_seconds']:.2f}",
             f"{r['nodes_per_second']:,.0f}", r["machine"].get("date", ""))
            for r in result["node_rate"]
        ]  # fmt: skip
        tail = f"Command (node rate): `{result['node_rate'][-1]['command']}`"
        lines += table_block(title, header, cells, tail)
    for key in ("command_9x9", "command_large"):
        if key in result:
            lines.append(f"Command ({key.removeprefix('command_')}): `{result[key]}`  ")
    if "machine_large" in result:
        m = result["machine_large"]
        lines.append(
            f"Large grids: node cap {result['max_nodes']:,} (count -1: not settled), "
            f"load average at start {m.get('load_average')}, {m.get('date', '')}."
        )
    lines.append("")
    return "\n".join(lines)


def run_9x9(args: argparse.Namespace) -> dict:
    """tdoku beside the engine on the three sets, the batch mode, tdoku's test puzzles."""
    part: dict = {"machine": machine(), "repeats": args.repeats, "sets": {}, "batch": {}}
    with one_thread(), tempfile.TemporaryDirectory() as build:
        binary = build_tdoku(args.peers_dir, Path(build))
        for name in SETS:
            path = args.data_dir / name
            part["sets"][name] = [bench_set(binary, path, limit, args.repeats) for limit in (1, 2)]
            ratios = [round(r["ratio_fast_to_tdoku"], 3) for r in part["sets"][name]]
            print(f"{name}: engine / tdoku at limits 1, 2: {ratios}", file=sys.stderr, flush=True)
    for name in SETS:
        part["batch"][name] = bench_batch(args.data_dir / name, 2, args.repeats)
    part["tdoku_test_puzzles"] = check_tdoku(args.data_dir / "tdoku_test_puzzles.txt")
    return part


def run_large(args: argparse.Namespace) -> dict:
    """Lloyd & Amos 25x25 and 36x36 made here, counted to two."""
    prefixes = tuple(f"inst25x25_{fill}_" for fill in LEVELS)
    rows = read_tsv(args.data_dir / "general_25x25.tsv", prefixes)
    facts = machine()  # its load average before the runs
    return {
        "machine_large": facts,
        "max_nodes": args.max_nodes,
        "large_25": bench_large(rows, args.max_nodes),
        "large_36": bench_large(instances_36(args.per_level_36, seed=36), args.max_nodes),
    }


def run_escalate(args: argparse.Namespace) -> dict:
    """Every 25x25 instance counted to two under each escalation budget (see the docstring)."""
    facts = machine()  # its load average before the runs
    prefixes = tuple(f"inst25x25_{fill}_" for fill in LEVELS)
    rows = read_tsv(args.data_dir / "general_25x25.tsv", prefixes)
    solution = np.zeros(625, np.uint8)
    settings = [("never", large.BOX_LINE, 0), ("always", large.BOX_LINE | large.ALL_DIFFERENT, 0)]
    settings += [(f"{b:,}", large.DEFAULT_RULES, b) for b in args.escalate_budgets]
    out = []
    with one_thread():
        for label, rules, budget in settings:
            ws = large.workspace(5, 64)
            large.count_restarts(rows[0][2], 5, 2, 10, RESTART_BASE, rules, 0, ws, solution, budget)
            times, nodes = [], []
            for _, order, cells in rows:
                ws = large.workspace(order, 64)
                start = time.perf_counter()
                _, spent = large.count_restarts(
                    cells, order, 2, args.max_nodes, RESTART_BASE, rules, 0, ws, solution, budget
                )
                times.append(time.perf_counter() - start)
                nodes.append(int(spent))
            t = np.array(times)
            out.append({
                "after": label, "total_s": float(t.sum()), "median_s": float(np.median(t)),
                "max_s": float(t.max()), "max_nodes": max(nodes),
                "over_1s": int((t > TARGET_LARGE_S).sum()),
            })  # fmt: skip
            print(f"escalate {label}: max {t.max():.3f} s", file=sys.stderr, flush=True)
    return {
        "machine": facts, "shipped": large.ESCALATE_NODES, "instances": len(rows),
        "max_nodes": args.max_nodes, "rows": out,
    }  # fmt: skip


SETTINGS_36 = (  # label, rules, escalate_nodes, first restart budget
    ("escalate 3,000, base 300", large.DEFAULT_RULES, large.ESCALATE_NODES, RESTART_BASE),
    ("escalate 3,000, base 100", large.DEFAULT_RULES, large.ESCALATE_NODES, 100),
    ("all-different, base 300", large.BOX_LINE | large.ALL_DIFFERENT, 0, RESTART_BASE),
    ("all-different, base 100", large.BOX_LINE | large.ALL_DIFFERENT, 0, 100),
    ("all-different, base 30", large.BOX_LINE | large.ALL_DIFFERENT, 0, 30),
    ("escalate 3,000, base 300, fish", large.DEFAULT_RULES | large.FISH, large.ESCALATE_NODES,
     RESTART_BASE),
    ("all-different and fish, base 300", large.BOX_LINE | large.ALL_DIFFERENT | large.FISH, 0,
     RESTART_BASE),
    ("escalate 3,000, base 300, phase saving", large.DEFAULT_RULES | large.PHASE,
     large.ESCALATE_NODES, RESTART_BASE),
)  # fmt: skip


def run_settings_36(args: argparse.Namespace) -> dict:
    """36x36 training grids counted to two under each of SETTINGS_36 (see the docstring)."""
    facts = machine()  # its load average before the runs
    rows = instances_36(args.per_level_36, seed=37)
    solution = np.zeros(36 * 36, np.uint8)
    out = []
    with one_thread():
        ws = large.workspace(6, 64)
        large.count_restarts(rows[0][2], 6, 2, 10, 100, large.DEFAULT_RULES, 0, ws, solution, 0)
        for label, rules, escalate, base in SETTINGS_36:
            by_level: dict[str, dict] = {}
            for name, order, cells in rows:
                ws = large.workspace(order, 64)
                start = time.perf_counter()
                count, spent = large.count_restarts(
                    cells, order, 2, args.max_nodes, base, rules, 0, ws, solution, escalate
                )
                level = by_level.setdefault(name.split("_")[1], {"times": [], "settled": 0})
                level["times"].append(time.perf_counter() - start)
                level["settled"] += int(count >= 0)
            for fill, level in by_level.items():
                t = np.array(level["times"])
                out.append({
                    "settings": label, "fill": int(fill), "instances": len(t),
                    "settled": level["settled"], "median_s": float(np.median(t)),
                    "max_s": float(t.max()), "over_1s": int((t > TARGET_LARGE_S).sum()),
                })  # fmt: skip
            print(f"{label}: done", file=sys.stderr, flush=True)
    return {"machine": facts, "max_nodes": args.max_nodes, "seed": 37, "rows": out}


def run_cpsat_36(args: argparse.Namespace) -> dict:
    """CP-SAT asked for one solution of each reported 36x36 instance (see the docstring)."""
    facts = machine()  # its load average before the runs
    spec = importlib.util.spec_from_file_location(
        "cpsat_sudoku", args.peers_dir / "cpsat_sudoku.py"
    )
    peer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(peer)
    levels: dict[int, list[tuple[bool, float]]] = {}
    for name, order, cells in instances_36(args.per_level_36, seed=36):
        solved, seconds = peer.solve(order, [int(v) for v in cells], args.cpsat_limit,
                                     args.cpsat_workers)  # fmt: skip
        print(f"{name}: solved {solved} in {seconds:.2f} s", file=sys.stderr, flush=True)
        levels.setdefault(int(name.split("_")[1]), []).append((bool(solved), float(seconds)))
    rows = []
    for fill, runs in levels.items():
        done = [t for ok, t in runs if ok]
        rows.append({
            "fill": fill, "instances": len(runs), "solved": len(done),
            "within_1s": sum(t <= TARGET_LARGE_S for t in done),
            "median_s": float(np.median(done)) if done else None,
            "max_s": max(done) if done else None,
        })  # fmt: skip
    return {"machine": facts, "workers": args.cpsat_workers, "limit": args.cpsat_limit,
            "rows": rows}  # fmt: skip


def run_node_rate(args: argparse.Namespace) -> dict:
    """Nodes per second of exact_large.solve_one, box-line only, on the 25x25 45 % instances."""
    rows = read_tsv(args.data_dir / "general_25x25.tsv", ("inst25x25_45_",))
    solution = np.zeros(625, np.uint8)
    best = None
    with one_thread():
        large.solve_one(rows[0][2], 5, 2, 10, -1, True, RESTART_BASE, large.BOX_LINE, solution)
        for _ in range(args.repeats):
            nodes, start = 0, time.perf_counter()
            for _, order, cells in rows:
                cap = args.max_nodes
                nodes += large.solve_one(
                    cells, order, 2, cap, -1, True, RESTART_BASE, large.BOX_LINE, solution
                )[1]
            seconds = time.perf_counter() - start
            best = seconds if best is None else min(best, seconds)
    commit = git("rev-parse", "--short", "HEAD")
    return {
        "machine": machine(), "commit": commit, "instances": len(rows), "nodes": int(nodes),
        "best_seconds": best, "nodes_per_second": nodes / best, "max_nodes": args.max_nodes,
    }  # fmt: skip


def main() -> None:
    """Run the benchmark: parse the command line, measure, write the results."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=SUDOKU_DATA)
    ap.add_argument("--peers-dir", type=Path, default=SHARED / "tools" / "peers")
    ap.add_argument("--out", type=Path, default=RESULTS / "exact_peers.json")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--per-level-36", type=int, default=20, help="36x36 instances per fill level")
    ap.add_argument("--max-nodes", type=int, default=2_000_000, help="node cap, large grids")
    ap.add_argument(
        "--part", default="all",
        choices=("all", "9x9", "large", "escalate", "settings-36", "cpsat-36", "node-rate"),
        help="run one part and merge it into --out (the other part's figures are kept)",
    )  # fmt: skip
    ap.add_argument(
        "--escalate-budgets", type=lambda t: [int(x) for x in t.split(",")],
        default=[1000, 2000, 3000, 5000, 10000, 20000], help="--part escalate: node budgets",
    )  # fmt: skip
    ap.add_argument("--cpsat-limit", type=float, default=10.0, help="--part cpsat-36: seconds")
    ap.add_argument("--cpsat-workers", type=int, default=2, help="--part cpsat-36: workers")
    ap.add_argument("--render", type=Path, help="only rewrite the markdown of this results file")
    args = ap.parse_args()
    if args.render:
        result = json.loads(args.render.read_text())
        args.render.with_suffix(".md").write_text(render(result))
        return
    result = json.loads(args.out.read_text()) if args.part != "all" and args.out.exists() else {}
    command = "python -m benchmarks.bench_exact_peers " + " ".join(sys.argv[1:])
    if args.part in ("all", "9x9"):
        result.update(run_9x9(args), command_9x9=command)
    if args.part in ("all", "large"):
        result.update(run_large(args), command_large=command)
    if args.part == "escalate":
        result["escalate"] = {**run_escalate(args), "command": command}
    if args.part == "settings-36":
        result["settings_36"] = {**run_settings_36(args), "command": command}
    if args.part == "cpsat-36":
        result["cpsat_36"] = {**run_cpsat_36(args), "command": command}
    if args.part == "node-rate":
        result.setdefault("node_rate", []).append({**run_node_rate(args), "command": command})
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, allow_nan=False) + "\n")
    args.out.with_suffix(".md").write_text(render(result))
    print(render(result))


if __name__ == "__main__":
    main()
