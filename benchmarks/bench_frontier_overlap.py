"""How far the impasse chains' best grids are from a solution at the frontier: each instance's
free cells as its planted grid holds them, beside the best grids of chains run apart.

For each instance of (--order, --fill, --count, --seed) (bench_frontier's Lewis-style ones;
their planted grid is the solved grid they were cut from), one chain of the engine's impasse
technique (cpu_reference.sudoku.impasse, held at the order and fill's temperature unless
--temperature) runs --limit seconds on each chains' seed of --chain-seeds. Of the cells
deduction leaves free it counts, for each run's best grid (the grid of fewest open cells the
chain held): the cells it fills as the planted grid does (agree), the cells it fills otherwise
(differ) and its open cells; and for each pair of runs the free cells their best grids fill
differently. Chance: the agreement expected of a grid filling every free cell with one of its
candidates at random (the mean of 1 / candidates over the free cells).

A near-solution (a few open cells) that agrees with the planted grid on most cells could be
finished by a local repair or by fixing what the chains agree on; one that agrees on few is a
different, distant grid. A solved run that differs from the planted grid found another solution
(an instance keeps ceil(f N^2 / 100) cells of its grid, not always a unique puzzle): solutions
seen counts the distinct grids among the planted one and the solved runs'.

Glossary (as in cpu_reference.sudoku.impasse): free, the cells deduction leaves blank; run, one
chain on one chains' seed.

Results: benchmarks/results/tuning/frontier_overlap_{N}x{N}_{fill}.{json,md} (--out).

    python -m benchmarks.bench_frontier_overlap [--order 6] [--fill 50] [--count 5] [--seed 1]
        [--limit 20] [--chain-seeds 1,2,3,4] [--temperature T] [--out PATH]
"""

from __future__ import annotations

import argparse
import itertools

import numpy as np

from benchmarks.frontier_instances import make_instances
from benchmarks.machine import machine, made_by
from benchmarks.paths import results
from benchmarks.tables import add_out_arguments, int_list, made_sentence, rerender, table_block
from benchmarks.tables import write_results as write_files
from cpu_reference.sudoku.impasse import compile_chains, impasse_solve, impasse_tables
from gpu_anneal.impasse_solver import temperature_at


def overlap(best: np.ndarray, planted: np.ndarray, free: np.ndarray) -> dict:
    """Of the free cells, those `best` fills as `planted` (agree), otherwise (differ) and not
    at all (open)."""
    got, want = best[free].astype(np.int64), planted[free].astype(np.int64)
    return {"agree": int((got == want).sum()), "differ": int(((got != want) & (got != 0)).sum()),
            "open": int((got == 0).sum())}  # fmt: skip


def apart(grids: list[np.ndarray], free: np.ndarray) -> list[int]:
    """For each pair of grids, the free cells they fill differently."""
    return [int((a[free] != b[free]).sum()) for a, b in itertools.combinations(grids, 2)]


def chance(tables) -> float:
    """The mean of 1 / candidates over the free cells."""
    _, free, _, ncand, _ = tables
    return float(np.mean(1.0 / ncand[free].astype(np.float64)))


def measure_instance(inst, temperature: float, limit: float, chain_seeds: list[int]) -> dict:
    """One instance: its free cells, chance, each run's status, moves and overlap, and the
    free cells its runs' best grids fill differently, pair by pair."""
    cells = np.asarray(inst.cells, np.uint8)
    tables = impasse_tables(cells, inst.order)
    free = tables[1].astype(np.int64)
    planted = np.asarray(inst.grid).ravel()
    runs, grids = [], []
    for seed in chain_seeds:
        r = impasse_solve(cells, inst.order, 1, seed, temperature, limit)
        grids.append(r["grid"].astype(np.int64))
        runs.append({"chain_seed": seed, "status": r["status"], "moves": r["moves"],
                     **overlap(r["grid"], planted, free)})  # fmt: skip
        print(inst.name, runs[-1], flush=True)
    return {"instance": inst.name, "free": int(free.size), "chance": chance(tables),
            "runs": runs, "apart": apart(grids, free)}  # fmt: skip


def solutions_seen(entry: dict) -> int:
    """The distinct solutions among the planted grid and the solved runs' best grids (a solved
    run fills every free cell: it is the planted grid where it differs nowhere, and two solved
    runs are one grid where they are nowhere apart)."""
    runs = entry["runs"]
    pairs = dict(zip(itertools.combinations(range(len(runs)), 2), entry["apart"], strict=True))
    others: list[int] = []  # one solved run of each solution other than the planted grid
    for i, run in enumerate(runs):
        if run["status"] == "solved" and run["differ"] > 0:
            if all(pairs[(j, i)] > 0 for j in others):
                others.append(i)
    return 1 + len(others)


def percent(part: float, whole: float) -> str:
    """part / whole as a whole percentage."""
    return f"{100 * part / whole:.0f} %"


def render(result: dict) -> str:
    """The markdown report of one run."""
    N = result["order"] ** 2
    lines = [f"# Near-solutions at the frontier: {N}x{N} at {result['fill']} %", "",
             made_sentence(result) + f" Instances Lewis-style of seed {result['seed']}; one "
             f"chain at T {result['temperature']:g} for {result['limit']:g} s on each chains' "
             "seed; the free cells deduction leaves (module docstring).", ""]  # fmt: skip
    header = ("instance", "free", "run (seed: status, open)", "agree with the planted grid",
              "differ from it", "chance", "runs' best grids apart", "solutions seen")  # fmt: skip
    rows = []
    for e in result["instances"]:
        mean_apart = np.mean(e["apart"]) if e["apart"] else None  # none with a single run
        apart_text = "" if mean_apart is None else (
            f"{mean_apart:.0f} ({percent(mean_apart, e['free'])})")  # fmt: skip
        # the instance's cells, on its first run's row alone
        once = (e["instance"], str(e["free"]), percent(e["chance"], 1), apart_text,
                str(solutions_seen(e)))  # fmt: skip
        for k, r in enumerate(e["runs"]):
            name, free, chance_text, apart_cell, seen = once if k == 0 else ("",) * len(once)
            rows.append((
                name, free, f"{r['chain_seed']}: {r['status']}, {r['open']} open",
                f"{r['agree']} ({percent(r['agree'], e['free'])})",
                f"{r['differ']} ({percent(r['differ'], e['free'])})",
                chance_text, apart_cell, seen,
            ))  # fmt: skip
    tail = ("Agree, differ: the free cells a run's best grid fills as the planted grid does, and "
            "otherwise. Apart: the mean over pairs of runs of the free cells their best grids "
            "fill differently. Solutions seen: the planted grid and the solved runs' other "
            "solutions (module docstring).")  # fmt: skip
    lines += table_block("## Runs", header, rows, tail)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Parse the flags, run every instance on every chains' seed, write the results files."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--order", type=int, default=6)
    ap.add_argument("--fill", type=int, default=50)
    ap.add_argument("--count", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1, help="instances' seed (1: bench_frontier's)")
    ap.add_argument("--limit", type=float, default=20.0, help="seconds a run")
    ap.add_argument(
        "--chain-seeds", type=int_list, default="1,2,3,4", help="chains' seeds, comma-separated"
    )
    ap.add_argument("--temperature", type=float, default=None)
    add_out_arguments(ap, results("tuning") / "frontier_overlap")
    args = ap.parse_args(argv)
    if args.render:
        rerender(args.out, render)
        return 0
    if not 2 <= args.order <= 8 or args.count < 1 or args.limit <= 0:
        ap.error("--order 2..8, --count 1 or more, --limit above 0")
    temperature = args.temperature or temperature_at(args.order, args.fill)
    facts = machine()
    compile_chains()
    instances = make_instances([args.order], [args.fill], args.count, args.seed)
    measured = [measure_instance(inst, temperature, args.limit, args.chain_seeds)
                for inst in instances]  # fmt: skip
    result = {
        **made_by("bench_frontier_overlap", argv), "machine": facts, "order": args.order,
        "fill": args.fill, "seed": args.seed, "limit": args.limit, "temperature": temperature,
        "chain_seeds": args.chain_seeds, "instances": measured,
    }  # fmt: skip
    write_files(args.out, result, render)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
