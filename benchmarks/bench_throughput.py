"""Sirdey proposals per second: the engine beside the tuned native loop, on the same machine.

Builds ../shared/tools/sirdey_limit.c (gcc -O3 -march=native -fopenmp), then alternates runs of
the native loop and of `gpu-anneal bench throughput` on one thread and on all threads, and
writes the medians and their ratios to benchmarks/results/throughput/throughput.json and .md.

Then, on one thread, the CPU runner's two ways of counting conflicts on every order from 3 to 6
(Sirdey's and the candidate move): cell-linear bitboards and unit counts
(cpu_reference/sudoku/packing.py), the child process choosing one through
rules.COUNTS_FROM_ORDER; the shipped choice is marked. Twice: in the native loop's hot regime
(T0 = e_P, most moves taken) and where the presets solve (COOL: T from 0.3 down to 0.2, a few
per cent taken), since a taken move costs the counts ten byte updates against the bitboards'
two word toggles.

    python -m benchmarks.bench_throughput [--tool ../shared/tools/sirdey_limit.c] [--seconds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from benchmarks.machine import machine
from benchmarks.paths import ROOT, SHARED, results
from cpu_reference.sudoku.rules import COUNTS_FROM_ORDER


def build(tool: Path, out: Path) -> Path:
    """Compile the native reference loop with the build line of its header."""
    out.parent.mkdir(parents=True, exist_ok=True)
    cmd = ["gcc", "-O3", "-march=native", "-fopenmp", str(tool), "-o", str(out), "-lm"]
    subprocess.run(cmd, check=True)
    return out


def native(binary: Path, seconds: float, threads: int) -> float:
    """Proposals per second of the native loop over `threads` OpenMP threads."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    out = subprocess.run([str(binary), str(seconds)], env=env, capture_output=True, text=True)
    return float(json.loads(out.stdout)["proposals_per_second"])


COOL = "geometric:t0=0.3,t_final=0.2,ratio=0.9999,stall=0"


def engine(
    seconds: float,
    threads: int,
    move: str = "sirdey",
    order: int = 3,
    counts_from: int = 0,
    schedule: str | None = None,
    setup: str = "",
) -> float:
    """Proposals per second of the engine's CPU backend over `threads` numba threads, in a
    fresh process (counts_from > 0: unit counts from that order up, in place of the shipped
    choice; `setup`: more statements run there on `rules` before measuring)."""
    env = dict(os.environ, NUMBA_NUM_THREADS=str(threads))
    code = (
        "import json; from cpu_reference.sudoku import rules; "
        f"rules.COUNTS_FROM_ORDER = {counts_from} or rules.COUNTS_FROM_ORDER; {setup}"
        "from gpu_anneal.measure import measure_throughput; "
        f"print(json.dumps(measure_throughput({order}, {seconds}, 'cpu', move={move!r}, "
        f"schedule={schedule!r}), allow_nan=False))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT
    )
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    return float(json.loads(out.stdout.strip().splitlines()[-1])["proposals_per_second"])


def main() -> None:
    """Run the comparison and write the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", default=str(SHARED / "tools/sirdey_limit.c"))
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default=str(results("throughput") / "throughput"))
    args = parser.parse_args()
    binary = build(Path(args.tool), ROOT / "benchmarks/tools/sirdey_limit")
    cores = os.cpu_count() or 1
    rows = []
    for threads in sorted({1, cores}):
        c_runs, e_runs = [], []
        for _ in range(args.repeats):
            c_runs.append(native(binary, args.seconds, threads))
            e_runs.append(engine(args.seconds, threads))
        c, e = statistics.median(c_runs), statistics.median(e_runs)
        rows.append({
            "threads": threads,
            "native_proposals_per_second": c,
            "engine_proposals_per_second": e,
            "ratio": e / c,
            "native_runs": c_runs,
            "engine_runs": e_runs,
        })  # fmt: skip
        print(f"{threads} thread(s): native {c / 1e6:.1f} M/s, engine {e / 1e6:.1f} M/s, "
              f"ratio {e / c:.3f}", flush=True)  # fmt: skip
    moves = {
        move: engine(args.seconds, cores, move)
        for move in ("candidate", "focused", "focused-two", "box-swap")
    }
    layouts = []
    for regime, schedule in (("hot", None), ("cool", COOL)):
        for order in (3, 4, 5, 6):
            for move in ("sirdey", "candidate"):
                linear = engine(args.seconds, 1, move, order, 99, schedule)
                counts = engine(args.seconds, 1, move, order, 2, schedule)
                shipped = "counts" if order >= COUNTS_FROM_ORDER else "linear"
                layouts.append({"regime": regime, "order": order, "move": move, "linear": linear,
                                "counts": counts, "shipped": shipped})  # fmt: skip
                print(f"{regime} order {order} {move}: linear {linear / 1e6:.1f} M/s, counts "
                      f"{counts / 1e6:.1f} M/s", flush=True)  # fmt: skip
    result = {"machine": machine(), "seconds": args.seconds, "rows": rows,
              "other_moves_all_threads": moves, "layouts_one_thread": layouts}  # fmt: skip
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out + ".json").write_text(json.dumps(result, indent=1, allow_nan=False))
    lines = [
        "# Sirdey proposals per second: engine against the native reference loop",
        "",
        f"Machine: {result['machine']['cpu']}, {result['machine']['cores']} cores, "
        f"{result['machine']['date']}. Medians of {args.repeats} alternating runs of "
        f"{args.seconds} s. Command: `python -m benchmarks.bench_throughput`.",
        "",
        "| threads | native (M/s) | engine (M/s) | engine / native |",
        "| ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        c_rate = r["native_proposals_per_second"] / 1e6
        e_rate = r["engine_proposals_per_second"] / 1e6
        lines.append(f"| {r['threads']} | {c_rate:.1f} | {e_rate:.1f} | {r['ratio']:.3f} |")
    lines += ["", "Other moves, all threads (M proposals/s): "
              + ", ".join(f"{k} {v / 1e6:.1f}" for k, v in moves.items())]  # fmt: skip
    lines += ["", "The CPU runner's conflict counting, one thread, M proposals/s (shipped: *); "
              "hot: Sirdey's course schedule from T0 = e_P, cool: `" + COOL + "`:", "",
              "| regime | order | move | linear bitboards | unit counts | counts / linear |",
              "| --- | ---: | --- | ---: | ---: | ---: |"]  # fmt: skip
    for r in layouts:
        mark = {k: "*" if r["shipped"] == k else "" for k in ("linear", "counts")}
        lines.append(f"| {r['regime']} | {r['order']} | {r['move']} | "
                     f"{r['linear'] / 1e6:.1f}{mark['linear']} | "
                     f"{r['counts'] / 1e6:.1f}{mark['counts']} | "
                     f"{r['counts'] / r['linear']:.2f} |")  # fmt: skip
    Path(args.out + ".md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
