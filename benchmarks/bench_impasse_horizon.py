"""Moves a chain of `--method impasse` makes before it solves: the distribution over many
chains of the very moves a card runs, measured on the CPU runner.

A card runs the impasse chains move for move as the CPU runner does (same streams, same
moves), only at another rate a chain. So how many moves the first of C chains needs is a
property of the puzzle, the temperature and C, measured here; a card's wall time for it is
those moves over its rate a chain. For each instance, --chains chains (streams 0.. of chains'
seed 1) held at T (the engine's for the order and fill, or --temperature) each make up to
--moves moves on the CPU runner (a solved chain stops); the moves of every solved chain are
kept, and one solution is checked by the verifier.

Reports per instance: chains solved within --moves, the earliest solve's moves, the fraction
solved within each checkpoint, and the moves by which the first of C chains solves for C below
--chains (the empirical quantile 1 / (C + 1), '-' where fewer chains solved than that needs).

Glossary: K the chains run, M the moves each may make, C the chains of a run the figures
describe (16: a 16-core machine; a card runs thousands, more than K: only the earliest of K
bounds what C > K would need).

Results: benchmarks/results/tuning/impasse_horizon.{json,md} (--out).

    python -m benchmarks.bench_impasse_horizon [--cells 6:50,7:45] [--count 3] [--seed 1]
        [--chains 512] [--moves 3000000] [--temperature T] [--out PATH]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from benchmarks.frontier_instances import make_instances
from benchmarks.machine import machine, made_by
from benchmarks.paths import results
from benchmarks.tables import (
    add_out_arguments,
    made_sentence,
    rerender,
    secs,
    table_block,
    write_results,
)
from cpu_reference.sudoku import impasse as im
from cpu_reference.sudoku.verify import verify_solution
from gpu_anneal.impasse_solver import temperature_at

OUT = results("tuning") / "impasse_horizon"
CHECKPOINTS = (250_000, 500_000, 1_000_000, 2_000_000, 3_000_000)  # moves a chain
RUN_CHAINS = (16, 64, 128, 256)  # C: the chains of the runs whose first solve the report estimates
SLICE_MOVES = 100_000


def parse_cells(text: str) -> list[tuple[int, int]]:
    """[(order, fill)] from ORDER:FILL,...; ValueError naming the part and the form."""
    cells = []
    for part in text.split(","):
        try:
            order, fill = (int(v) for v in part.split(":"))
        except ValueError:
            raise ValueError(f"--cells {part!r}: expected ORDER:FILL") from None
        if not 2 <= order <= 8 or not 0 <= fill <= 100:
            raise ValueError(f"--cells {part!r}: order 2..8, fill 0..100")
        cells.append((order, fill))
    return cells


def first_of(solved_moves: list[int], chains: int, run_chains: int) -> int | None:
    """Moves by which the first of `run_chains` chains solves: the empirical quantile
    1 / (run_chains + 1) of the moves of `chains` chains (the solved ones' sorted moves, the
    rest unsolved); None when fewer chains solved than that quantile needs, or when
    run_chains is not below `chains` (the earliest of them only bounds it)."""
    if run_chains >= chains:
        return None
    rank = math.ceil(chains / (run_chains + 1))
    return solved_moves[rank - 1] if len(solved_moves) >= rank else None


def run_instance(inst, temperature: float, chains: int, moves: int) -> dict:
    """`chains` chains of one instance, each up to `moves` moves: the solved chains' sorted
    moves, one solution checked, the seconds it took."""
    cells = np.asarray(inst.cells, np.uint8)
    tables = im.impasse_tables(cells, inst.order)
    if tables is None:
        raise ValueError(f"{inst.name}: deduction contradicts the givens")
    args = list(im.chain_arrays(tables, inst.order, chains, 1, temperature))
    args[im.SLICE_AT] = SLICE_MOVES
    counts, solved = args[im.COUNTS], args[im.SOLVED]
    start = time.perf_counter()
    while not ((counts[:, 0] >= moves) | (solved != 0)).all():
        im.run_impasse_cpu(*args)
    seconds = time.perf_counter() - start
    done = np.flatnonzero(solved)
    fault = None
    if done.size:
        grid = args[im.BEST][done[0]].astype(np.uint8)
        fault = verify_solution(grid, inst.order, cells)
    within = sorted(int(m) for m in counts[done, 0] if m <= moves)
    return {"instance": inst.name, "solved_moves": within, "verified": fault is None,
            "fault": fault, "seconds": seconds, "moves_made": int(counts[:, 0].sum())}  # fmt: skip


def millions(x: int | None) -> str:
    """Moves in millions, to three digits ('-' for None)."""
    return "-" if x is None else f"{x / 1e6:.3g} M"


def render(result: dict) -> str:
    """The markdown report of one run."""
    k, budget = result["chains"], result["moves"]
    points = [c for c in CHECKPOINTS if c <= budget]
    lines = [
        "# --method impasse: moves a chain makes before it solves",
        "",
        f"{made_sentence(result)} Instances Lewis-style of seed {result['seed']}; {k:,} chains "
        "(streams 0.. of chains' seed 1) "
        f"on the CPU runner, each up to {budget / 1e6:g} M moves, held at the engine's "
        "temperature for the order and fill unless the cell names one. A card runs these very "
        "moves; only its rate a chain differs. First of C: the moves by which the first of C "
        f"chains solves (the quantile 1 / (C + 1) of the {k:,}; '-': too few solved).",
        "",
    ]
    for cell in result["cells"]:
        side = cell["order"] ** 2
        header = ("instance", "T", "solved", "earliest",
                  *(f"within {millions(c)}" for c in points),
                  *(f"first of {c}" for c in RUN_CHAINS), "verified", "seconds")  # fmt: skip
        rows = []
        for run in cell["runs"]:
            got = run["solved_moves"]
            rows.append((
                run["instance"], f"{cell['temperature']:g}", f"{len(got)}/{k:,}",
                millions(got[0] if got else None),
                *(f"{sum(1 for g in got if g <= c) / k:.2%}" for c in points),
                *(millions(first_of(got, k, c)) for c in RUN_CHAINS),
                "yes" if run["verified"] else f"no: {run['fault']}", secs(run["seconds"]),
            ))  # fmt: skip
        lines += table_block(
            f"## {side}x{side}, {cell['fill']} % filled", header, rows,
            "verified: the first solved chain's grid, checked by the verifier (yes where none "
            "solved); seconds: the CPU runner's, both cores.",
        )  # fmt: skip
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Parse the flags, run every instance, write the results files."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cells", default="6:50,7:45", help="ORDER:FILL,...")
    ap.add_argument("--count", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1, help="instances' seed (1: bench_frontier's)")
    ap.add_argument("--chains", type=int, default=512)
    ap.add_argument("--moves", type=int, default=3_000_000, help="moves a chain at most")
    ap.add_argument("--temperature", type=float, default=None, help="T (default: the engine's)")
    add_out_arguments(ap, OUT)
    args = ap.parse_args(argv)
    if args.render:
        rerender(args.out, render)
        return 0
    try:
        cells = parse_cells(args.cells)
    except ValueError as exc:
        ap.error(str(exc))
    if args.count < 1 or args.chains < 1 or args.moves < 1:
        ap.error("--count, --chains and --moves must be 1 or more")
    if args.temperature is not None and not args.temperature > 0:
        ap.error("--temperature must be above 0")
    facts = machine()
    im.compile_chains()
    out_cells = []
    for order, fill in cells:
        temperature = args.temperature or temperature_at(order, fill)
        runs = []
        for inst in make_instances([order], [fill], args.count, args.seed):
            run = run_instance(inst, temperature, args.chains, args.moves)
            print(inst.name, temperature, len(run["solved_moves"]), secs(run["seconds"]),
                  flush=True)  # fmt: skip
            runs.append(run)
        out_cells.append({"order": order, "fill": fill, "temperature": temperature,
                          "runs": runs})  # fmt: skip
    result = {
        **made_by("bench_impasse_horizon", argv), "machine": facts, "seed": args.seed,
        "chains": args.chains, "moves": args.moves, "cells": out_cells,
    }  # fmt: skip
    write_results(args.out, result, render)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
