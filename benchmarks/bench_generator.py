"""What Philox4x32-10 costs the CPU runner: orders 4 to 6, against xoroshiro128+, one thread.

Chains of orders 4 to 6 with one-cell moves draw from Philox4x32-10 by proposal index
(cpu_reference/anneal/philox.py), so that the cooperative kernels can run the same chains; before
they drew from xoroshiro128+. Each measurement is `measure_throughput` (a grid that never solves,
the native loop's hot regime) in a fresh process on one numba thread; the xoroshiro rows set
rules.COUNTER_ORDERS to () in that process, so they run the same code with the older generator.
Runs alternate between the generators; the medians are kept. Each call appends one labelled
record to the results file (run it at two commits to compare them: each process imports the
package of the repository the script sits in).

    python -m benchmarks.bench_generator --label NAME [--seconds 3] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from benchmarks.bench_throughput import engine
from benchmarks.machine import git, machine
from benchmarks.paths import results
from benchmarks.tables import add_out_arguments, rerender, table_block

ORDERS = (4, 5, 6)
MOVES = ("sirdey", "focused")
GENERATORS = ("philox4x32-10", "xoroshiro128+")


def rate(order: int, move: str, generator: str, seconds: float) -> float:
    """Proposals a second of one thread of the CPU runner, in a fresh process."""
    older = "rules.COUNTER_ORDERS = (); " if generator == "xoroshiro128+" else ""
    return engine(seconds, 1, move, order, setup=older)


def render(result: dict) -> str:
    """The results file as markdown: one table, a row per record, order and move."""
    cells = []
    for record in result["records"]:
        for row in record["rows"]:
            philox, xoro = row["rates"]["philox4x32-10"], row["rates"]["xoroshiro128+"]
            cells.append((
                record["label"], str(row["order"]), row["move"], f"{philox / 1e6:.1f}",
                f"{xoro / 1e6:.1f}", f"{philox / xoro:.2f}", record["commit"],
                record["machine"]["date"],
            ))  # fmt: skip
    machines = sorted({f"{r['machine']['cpu']}, {r['machine']['cores']} cores"
                       for r in result["records"]})  # fmt: skip
    return "\n".join(table_block(
        "# Philox4x32-10 against xoroshiro128+ in the CPU runner (one thread)\n\n"
        f"Machine: {'; '.join(machines)}. A grid that never solves, the native loop's hot "
        "regime; medians of alternating runs in fresh processes (M proposals/s).",
        ("label", "order", "move", "Philox", "xoroshiro128+", "Philox / xoroshiro", "commit",
         "date"),
        cells,
        "Command: `python -m benchmarks.bench_generator --label NAME` (at each commit).",
    ))  # fmt: skip


def main() -> None:
    """Measure, append the record, write the report."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--label", required=True)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--orders", default=",".join(map(str, ORDERS)))
    ap.add_argument("--moves", default=",".join(MOVES))
    add_out_arguments(ap, results("throughput") / "generator")
    args = ap.parse_args()
    out = Path(args.out)
    if args.render:
        rerender(out, render)
        return
    rows = []
    for order in (int(o) for o in args.orders.split(",")):
        for move in args.moves.split(","):
            runs = {g: [] for g in GENERATORS}
            for _ in range(args.repeats):
                for generator in GENERATORS:
                    runs[generator].append(rate(order, move, generator, args.seconds))
            rates = {g: statistics.median(r) for g, r in runs.items()}
            rows.append({"order": order, "move": move, "rates": rates, "runs": runs})
            print(f"order {order} {move}: " + ", ".join(
                f"{g} {r / 1e6:.1f} M/s" for g, r in rates.items()), flush=True)  # fmt: skip
    path = out.with_suffix(".json")
    result = json.loads(path.read_text()) if path.exists() else {"records": []}
    result["records"].append({
        "label": args.label, "commit": git("rev-parse", "--short", "HEAD"),
        "changed": bool(git("status", "--porcelain", "--untracked-files=no")),
        "machine": machine(), "seconds": args.seconds, "repeats": args.repeats, "rows": rows,
        "command": "python -m benchmarks.bench_generator " + " ".join(sys.argv[1:]),
    })  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1) + "\n")
    out.with_suffix(".md").write_text(render(result))
    print(render(result))


if __name__ == "__main__":
    main()
