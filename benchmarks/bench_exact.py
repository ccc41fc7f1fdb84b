"""Benchmark of the exact Sudoku solver (cpu_reference.sudoku.exact) on one thread.

9x9 sets: a compiled loop over all puzzles (compile time excluded, best of --repeats), once
stopping at the first solution (limit 1) and once counting to two (limit 2: solve and prove
uniqueness). tdoku's 43 test puzzles: solution counts and solutions checked. 25x25 at 40 % and
45 % fill: seconds per instance with the plain search (limit 1, node cap) and with restarts.

    python -m benchmarks.bench_exact [--data-dir DIR] [--out FILE] [--skip-25]

Results: benchmarks/results/exact/exact.json.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from benchmarks.machine import machine
from benchmarks.paths import SUDOKU_DATA, results
from cpu_reference.sudoku.exact import (
    solve_batch_serial,
    solve_exact,
    solve_restarts,
    tables,
)

PUBLISHED = {
    "17_clue.txt": {"tdoku": 326_000, "norvig_cpp": 16_600, "target": 20_000},
    "forum_hardest_1106.txt": {"tdoku": 13_600, "norvig_cpp_hardest_1905": 1_200, "target": 2_000},
}


def read_81(path: Path) -> np.ndarray:
    """Lines of 81 characters ('.' or '0' blank) as uint8[P, 81]; '#' lines skipped."""
    lines = [s.strip() for s in path.read_text().splitlines()]
    lines = [s[:81] for s in lines if s and not s.startswith("#")]
    a = np.frombuffer("".join(lines).encode(), dtype=np.uint8).reshape(len(lines), 81).copy()
    a[a == ord(".")] = ord("0")
    return a - ord("0")


def read_tsv(path: Path, prefixes: tuple[str, ...]) -> list[tuple[str, int, np.ndarray]]:
    """(name, order, cells) of each line of a tsv puzzle file whose name starts with one of
    `prefixes`."""
    out = []
    for line in path.read_text().splitlines():
        name, n, values = line.split("\t")
        if name.startswith(prefixes):
            out.append((name, int(n), np.array(values.split(","), dtype=np.uint8)))
    return out


def bench_9x9(puzzles: np.ndarray, limit: int, repeats: int) -> dict:
    """The exact solver on 9x9 puzzles, counting to `limit`, best of `repeats` runs: puzzles a
    second (wall and CPU), nodes a puzzle and how many puzzles reached each count."""
    grid_tables = tables(3)
    counts = np.zeros(len(puzzles), np.int32)
    solutions = np.zeros_like(puzzles)
    solve_batch_serial(puzzles[:4], grid_tables, limit, 0, counts[:4], solutions[:4])
    walls, cpus = [], []
    nodes = 0
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.thread_time()
        nodes = solve_batch_serial(puzzles, grid_tables, limit, 0, counts, solutions)
        cpus.append(time.thread_time() - c0)
        walls.append(time.perf_counter() - w0)
    return {
        "limit": limit,
        "puzzles": len(puzzles),
        "puzzles_per_s_wall": len(puzzles) / min(walls),
        "puzzles_per_s_cpu": len(puzzles) / min(cpus),
        "best_wall_s": min(walls),
        "all_wall_s": walls,
        "nodes_per_puzzle": nodes / len(puzzles),
        "counts": np.bincount(counts, minlength=limit + 1).tolist(),
    }


def check_tdoku(path: Path) -> dict:
    """The exact solver on tdoku's test puzzles (their stated counts and solutions): right,
    wrong and the failures."""
    right = wrong = 0
    failures = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.strip().split(":")
        cells = read_81_line(fields[0])
        want = int(fields[1])
        got, grid, _ = solve_exact(cells, 3, limit=1000)
        ok = got == want and (len(fields) < 3 or "".join(map(str, grid)) == fields[2])
        ok = ok and solve_exact(cells, 3, limit=2)[0] == min(want, 2)
        right += ok
        wrong += not ok
        if not ok:
            failures.append(fields[0])
    return {"right": right, "wrong": wrong, "failures": failures}


def read_81_line(text: str) -> np.ndarray:
    """uint8[81] of a 9x9 one-line puzzle (`.` or `0` blank)."""
    return np.array([0 if ch in ".0" else int(ch) for ch in text], dtype=np.uint8)


def bench_25(rows, max_nodes: int, restart_nodes: int, restart_cap: int) -> dict:
    """The exact solver on 25x25 puzzles, plain (capped at max_nodes) and with restarts (capped
    at restart_cap): time quantiles, the unsolved and each puzzle's count, nodes and seconds."""
    solve_exact(rows[0][2], 5, limit=1, max_nodes=10)
    solve_restarts(rows[0][2], 5, max_nodes=10)
    out = {}
    for method in ("plain", "restarts"):
        times, unsolved, per = [], [], {}
        for name, n, cells in rows:
            t0 = time.perf_counter()
            if method == "plain":
                count, _, nodes = solve_exact(cells, n, limit=1, max_nodes=max_nodes)
            else:
                count, _, nodes = solve_restarts(cells, n, restart_nodes, restart_cap)
            t = time.perf_counter() - t0
            times.append(t)
            per[name] = {"count": count, "nodes": nodes, "s": round(t, 5)}
            if count != 1:
                unsolved.append(name)
        a = np.array(times)
        out[method] = {
            "node_cap": max_nodes if method == "plain" else restart_cap,
            "instances": len(rows),
            "solved": len(rows) - len(unsolved),
            "unsolved": unsolved,
            "median_s": float(np.median(a)),
            "p90_s": float(np.percentile(a, 90)),
            "max_s": float(a.max()),
            "mean_s": float(a.mean()),
            "note": "unsolved instances count with the time spent until the node cap",
            "per_instance": per,
        }
        if method == "restarts":
            out[method]["base_nodes"] = restart_nodes
    return out


def main() -> None:
    """Run the benchmark, write its results file."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=SUDOKU_DATA)
    ap.add_argument("--out", type=Path, default=results("exact") / "exact.json")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cap-25", type=int, default=100_000, help="node cap, plain 25x25 search")
    ap.add_argument("--restart-base", type=int, default=300)
    ap.add_argument("--restart-cap", type=int, default=300_000)
    ap.add_argument("--skip-25", action="store_true")
    args = ap.parse_args()

    result = {"machine": machine(), "threads": 1, "sets": {}}
    for name in ("17_clue.txt", "forum_hardest_1106.txt"):
        puzzles = read_81(args.data_dir / name)
        result["sets"][name] = {
            "published": PUBLISHED[name],
            "first_solution": bench_9x9(puzzles, 1, args.repeats),
            "count_to_2": bench_9x9(puzzles, 2, args.repeats),
        }
    result["tdoku_test_puzzles"] = check_tdoku(args.data_dir / "tdoku_test_puzzles.txt")
    if not args.skip_25:
        rows = read_tsv(args.data_dir / "general_25x25.tsv", ("inst25x25_40_", "inst25x25_45_"))
        result["general_25x25_40_45"] = bench_25(
            rows, args.cap_25, args.restart_base, args.restart_cap
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, allow_nan=False) + "\n")

    m = result["machine"]
    print(f"{m['cpu_model']} ({m['cores']} cores), python {m['python']}, numba {m['numba']}")
    print(f"{'set':<24} {'mode':<15} {'puzzles/s':>10} {'cpu p/s':>10} {'nodes/p':>9}")
    for name, r in result["sets"].items():
        for mode in ("first_solution", "count_to_2"):
            x = r[mode]
            print(f"{name:<24} {mode:<15} {x['puzzles_per_s_wall']:>10.0f} "
                  f"{x['puzzles_per_s_cpu']:>10.0f} {x['nodes_per_puzzle']:>9.1f}")  # fmt: skip
    t = result["tdoku_test_puzzles"]
    print(f"tdoku test puzzles: {t['right']} right, {t['wrong']} wrong")
    if "general_25x25_40_45" in result:
        for method, x in result["general_25x25_40_45"].items():
            print(f"25x25 40/45 % {method:<9} solved {x['solved']}/{x['instances']}  "
                  f"median {x['median_s']:.3f} s  p90 {x['p90_s']:.3f} s  max {x['max_s']:.3f} s "
                  f"(node cap {x['node_cap']})")  # fmt: skip
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
