"""Full grids of 25x25 to 64x64 by each generation method (gpu_anneal.generation.generate_grids
on the CPU, every core), one call a method and order: grids made, verified and distinct, and
grids a second. Every method's code is compiled before any clock. A method that has not made
its grids within --limit seconds stops there (its grids so far counted). This is what sets
`generate`'s default method for these orders (cli.generate).
Glossary: order n (grids N x N, N = n * n); count, grids a call.
Results: benchmarks/results/generation/large_grids.{json,md} (--out).
    python -m benchmarks.bench_large_grids [--orders 5,6,7,8] [--counts 40,20,10,4]
        [--methods backtrack,impasse] [--limit 300] [--seed 1] [--out PATH]
"""

from __future__ import annotations

import argparse

from benchmarks.machine import machine, made_by
from benchmarks.paths import results
from benchmarks.tables import add_out_arguments, int_list, made_sentence, rerender, table_block
from benchmarks.tables import write_results as write_files
from cpu_reference.sudoku.verify import verify_solution
from gpu_anneal import generation as gen

OUT = results("generation") / "large_grids"


def one_call(order: int, count: int, method: str, seed: int, limit: float) -> dict:
    """generate_grids once, every grid re-verified here: its row of the table."""
    grids, stats = gen.generate_grids(order, count, method, seed, backend="cpu",
                                      time_limit=limit)  # fmt: skip
    made = [g for g in grids if g.any() and verify_solution(g, order) is None]
    return {
        "order": order, "method": method, "count": count, "verified": len(made),
        "distinct": len({g.tobytes() for g in made}), "seconds": stats["seconds"],
        "grids_per_second": stats["grids_per_second"],
        "time_limit_reached": bool(stats.get("time_limit_reached")),
    }  # fmt: skip


def render(result: dict) -> str:
    """The markdown report of one run."""
    a = result["args"]
    lines = [
        "# Full grids of 25x25 to 64x64 by method", "",
        made_sentence(result) + f" Seed {a['seed']}; each call limited to {a['limit']:g} s; "
        "CPU, every core; compiling excluded.", "",
    ]  # fmt: skip
    header = ("grid", "method", "grids", "verified", "distinct", "seconds", "grids/s")
    rows = []
    for r in result["rows"]:
        side = r["order"] ** 2
        rate = "-" if r["grids_per_second"] is None else f"{r['grids_per_second']:g}"
        late = " (limit)" if r["time_limit_reached"] else ""
        rows.append((f"{side}x{side}", r["method"], str(r["count"]), str(r["verified"]),
                     str(r["distinct"]), f"{r['seconds']:.2f}{late}", rate))  # fmt: skip
    tail = "verified: grids that verify_solution passed; (limit): the call was stopped there."
    lines += table_block("## Grids", header, rows, tail)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Parse the flags, make the grids by each method at each order, write the results."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--orders", type=int_list, default="5,6,7,8")
    ap.add_argument("--counts", type=int_list, default="40,20,10,4", help="grids an order")
    ap.add_argument("--methods", default="backtrack,impasse", help=", ".join(gen.METHODS))
    ap.add_argument("--limit", type=float, default=300.0, help="seconds a call at most")
    ap.add_argument("--seed", type=int, default=1)
    add_out_arguments(ap, OUT)
    args = ap.parse_args(argv)
    if args.render:
        rerender(args.out, render)
        return 0
    methods = [m.strip() for m in args.methods.split(",")]
    bad = [m for m in methods if m not in gen.METHODS]
    if bad:
        ap.error(f"--methods: {bad[0]!r} is not one of {', '.join(gen.METHODS)}")
    if len(args.counts) != len(args.orders):
        ap.error("--counts: one count for each of --orders")
    if min(args.counts) < 1 or args.limit <= 0 or not set(args.orders) <= set(range(2, 9)):
        ap.error("--counts must be 1 or more, --limit above 0, --orders within 2..8")
    facts = machine()
    for method in methods:  # compiled before any clock
        gen.generate_grids(2, 1, method, 99, backend="cpu")
    rows = [one_call(order, count, method, args.seed, args.limit)
            for order, count in zip(args.orders, args.counts, strict=True)
            for method in methods]  # fmt: skip
    settings = {"seed": args.seed, "limit": args.limit}
    result = {**made_by("bench_large_grids", argv), "machine": facts, "args": settings,
              "rows": rows}  # fmt: skip
    write_files(args.out, result, render)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
