"""Success rate against fill ratio on Lloyd & Amos' 9x9, 16x16 and 25x25 instances.

For each size and fill level (0 to 100 % in steps of 5), the first `--per-level` instances are
annealed with `--time-limit` seconds each on all cores; the rate solved is written with a plot to
benchmarks/results/anneal/fill.json, .md and .png.

    python -m benchmarks.bench_fill [--data ../shared/data/sudoku] [--move candidate] [--t0 1]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from benchmarks.frontier_instances import lloyd_amos_set
from benchmarks.machine import machine
from benchmarks.paths import SUDOKU_DATA, results
from cpu_reference.sudoku.schedules import with_start
from gpu_anneal.plots import plot_rates
from gpu_anneal.sudoku_solver import solve_one


def instances(path: Path, per_level: int) -> dict[int, list]:
    """fill level -> the first `per_level` puzzles of that level (names inst{N}x{N}_{f}_{k})."""
    levels: dict[int, list] = {}
    for fill, k, p in lloyd_amos_set(path):
        if k < per_level:
            levels.setdefault(fill, []).append(p)
    return levels


def main() -> None:
    """Measure every size and level; write the table and plot."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(SUDOKU_DATA))
    parser.add_argument("--sizes", default="9,16,25")
    parser.add_argument(
        "--per-level", default="10", help="instances per level: one number, or one per size"
    )
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--move", default="candidate")
    parser.add_argument("--schedule", default="sirdey-course")
    parser.add_argument("--t0", type=float, default=1.0)
    parser.add_argument("--chains", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    table = []
    started = time.time()
    sizes = [int(x) for x in args.sizes.split(",")]
    counts = [int(x) for x in str(args.per_level).split(",")]
    counts += counts[-1:] * (len(sizes) - len(counts))
    for size, per_level in zip(sizes, counts, strict=False):
        levels = instances(Path(args.data) / f"general_{size}x{size}.tsv", per_level)
        for fill in sorted(levels):
            solved, seconds = 0, []
            for p in levels[fill]:
                r = solve_one(
                    p.cells, p.order, schedule=with_start(args.schedule, p.order, args.t0),
                    chains=args.chains, seed=args.seed, time_limit=args.time_limit,
                    move=args.move,
                )  # fmt: skip
                solved += r.solved
                seconds.append(r.seconds)
            row = {"size": f"{size}x{size}", "fill": fill, "instances": len(levels[fill]),
                   "solved": solved, "rate": solved / len(levels[fill]),
                   "mean_seconds": sum(seconds) / len(seconds)}  # fmt: skip
            table.append(row)
            print(json.dumps(row, allow_nan=False), flush=True)
    result = {"machine": machine(), "args": vars(args), "wall_seconds": time.time() - started,
              "table": table}  # fmt: skip
    out = results("anneal") / "fill"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(result, indent=1, allow_nan=False))
    plot_rates(table, str(out.with_suffix(".png")))
    m = result["machine"]
    lines = [
        "# Success rate against fill ratio (Lloyd & Amos instances)",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, load {m['load_average']}, {m['date']}. "
        f"Move {args.move}, schedule {args.schedule} from T0 = {args.t0}, {args.chains} chains, "
        f"{args.time_limit:g} s per instance, first {args.per_level} instances per level "
        f"(sizes {args.sizes}).",
        "",
        "| size | " + " | ".join(f"{f}%" for f in range(0, 101, 5)) + " |",
        "| --- |" + " ---: |" * 21,
    ]
    for size in sorted({r["size"] for r in table}, key=lambda s: int(s.split("x")[0])):
        rates = {r["fill"]: r["rate"] for r in table if r["size"] == size}
        lines.append(f"| {size} | " + " | ".join(
            f"{rates[f]:.1f}" if f in rates else "-" for f in range(0, 101, 5)) + " |")  # fmt: skip
        weakest = min(rates, key=lambda f: (rates[f], f))
        lines.append(f"|  weakest: {weakest}% at {rates[weakest]:.2f} |" + " |" * 21)
    lines += ["", "Command: `python -m benchmarks.bench_fill "
              f"--move {args.move} --t0 {args.t0} --per-level {args.per_level} "
              f"--time-limit {args.time_limit:g}`"]  # fmt: skip
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
