"""Completes impasse chains' near-solutions exactly: does a grid with a few open cells lie
close to a solution?

The engine's impasse chains (cpu_reference.sudoku.impasse) run on one hard puzzle in slices
of --slice-moves moves. After every slice, each chain's grid of fewest open cells in that
slice, where it has at most --open of them, is given to the exact solver (exact.solve_exact,
one solution, at most --max-nodes branch values) with a region of its cells blanked: the open
cells, then, D times over for each D of --depths, every free cell (one deduction left blank)
of a region cell's row, column or box holding one of that region cell's candidates (the digits
that block it); or, for each K of --keeps, every free cell but K of the chain's written ones
drawn at random (numpy's generator of --seed). The rest of the chain's grid is kept as givens.
The solver completes the region (a solution of the puzzle, verified), proves it has no
completion, or gives up at its budget. The chains go on unchanged either way, and their own
solves are counted as well.

So a depth measures whether the puzzle's solutions lie within that many rings of blockers of
the grids the chains reach, and a keep whether K of a grid's digits at random agree with one
solution: an engine that completed such grids exactly would solve where its chains stall.

Glossary of index names (as in cpu_reference.sudoku.impasse):
    i        chain index; chain i draws from stream i of --seed
    cell     r * N + c; region: the blanked cells of one attempt
    depth    rings of blockers added to the open cells (0: the open cells alone)
    keep     written cells of the chain's grid kept at random, every other free cell blanked
    rule     ("depth", D) or ("keep", K): how a run's attempts draw their regions

Results: benchmarks/results/tuning/impasse_repair.{json,md} (--out).

    python -m benchmarks.bench_impasse_repair FILE... [--depths 0,1,2] [--keeps 65] [--open 2]
        [--seconds 60] [--slice-moves 20000] [--max-nodes 2000] [--temperature 0.32]
        [--chains 2] [--seed 1] [--out PATH]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from benchmarks.frontier_instances import read_lloyd_amos
from benchmarks.machine import machine, made_by
from benchmarks.paths import results
from benchmarks.tables import (
    add_out_arguments,
    int_list,
    made_sentence,
    rerender,
    table_block,
    write_results,
)
from cpu_reference.sudoku.exact import solve_exact
from cpu_reference.sudoku.impasse import (
    BEST,
    BEST_F,
    COUNTS,
    SLICE_AT,
    SOLVED,
    chain_arrays,
    compile_chains,
    impasse_tables,
    run_impasse_cpu,
)
from cpu_reference.sudoku.verify import verify_solution

OUT = results("tuning") / "impasse_repair"


def unit_members(units: np.ndarray, side: int) -> np.ndarray:
    """int64[3 N, N]: the cells of each unit (rows, then columns, then boxes), ascending."""
    members = np.empty((3 * side, side), np.int64)
    for k in range(3):
        by_unit = np.argsort(units[:, k], kind="stable").reshape(side, side)
        members[units[by_unit[:, 0], k].astype(np.int64)] = by_unit
    return members


def blockers(grid: np.ndarray, region: np.ndarray, tables, side: int) -> np.ndarray:
    """The free cells outside `region` (a bool mask over the cells) of a region cell's row,
    column or box that hold one of that region cell's candidates in `grid`, as a bool mask."""
    _, free, cand, ncand, units = tables
    members = unit_members(units, side)
    is_free = np.zeros(grid.size, bool)
    is_free[free] = True
    found = np.zeros(grid.size, bool)
    for x in np.flatnonzero(region):
        mates = members[units[x].astype(np.int64)].ravel()
        found[mates[np.isin(grid[mates], cand[x, : ncand[x]])]] = True
    return found & is_free & ~region


def repair_region(grid: np.ndarray, tables, side: int, depth: int) -> np.ndarray:
    """The cells an attempt blanks (int64, ascending): `grid`'s open free cells, then `depth`
    rings of blockers (module docstring)."""
    region = np.zeros(grid.size, bool)
    region[tables[1]] = grid[tables[1]] == 0
    ring = region.copy()
    for _ in range(depth):
        ring = blockers(grid, ring, tables, side)
        if not ring.any():
            break
        region |= ring
    return np.flatnonzero(region)


def keep_region(grid: np.ndarray, tables, keep: int, rng) -> np.ndarray:
    """The cells an attempt blanks (int64, ascending): every free cell but `keep` of those
    `grid` writes, drawn by `rng` (all of them where it writes fewer)."""
    free = tables[1].astype(np.int64)
    written = free[grid[free] != 0]
    kept = rng.choice(written, min(keep, written.size), replace=False)
    return np.setdiff1d(free, kept)


def region_of(grid: np.ndarray, tables, side: int, rule: tuple[str, int], rng) -> np.ndarray:
    """The region of an attempt on `grid` by `rule` (glossary): repair_region or keep_region."""
    kind, size = rule
    if kind == "depth":
        return repair_region(grid, tables, side, size)
    return keep_region(grid, tables, size, rng)


def attempt_repair(cells, order: int, grid, region: np.ndarray, max_nodes: int) -> dict:
    """One attempt on a chain's grid with `region` blanked: {region (cells blanked), outcome
    ("completed", "none": proved to have no completion, "gave up"), nodes}; RuntimeError on a
    completion the verifier refuses."""
    puzzle = grid.astype(np.uint8)
    puzzle[region] = 0
    count, solution, nodes = solve_exact(puzzle, order, limit=1, max_nodes=max_nodes)
    if count == 1:
        problem = verify_solution(solution, order, cells)
        if problem is not None:
            raise RuntimeError(f"a completion the verifier refuses: {problem}")
    outcome = {1: "completed", 0: "none"}.get(int(count), "gave up")
    return {"region": int(region.size), "outcome": outcome, "nodes": int(nodes)}


def run_repairs(
    cells, order: int, rule: tuple[str, int], most_open: int, seconds: float, slice_moves: int,
    max_nodes: int, temperature: float, chains: int, seed: int, max_slices: int | None = None,
) -> dict:  # fmt: skip
    """The chains on one puzzle for `seconds` (or `max_slices` slices where given), an attempt
    on each chain's fewest-open grid of a slice that has at most `most_open` open cells, its
    region drawn by `rule` (glossary; a keep's draws from numpy's generator of `seed`):
    {attempts, completed, none, gave_up, regions (mean cells blanked), lowest (slices by the
    fewest open cells, up to 8), chain_solves, moves, seconds, repair_seconds}."""
    tables = impasse_tables(cells, order)
    if tables is None:
        raise ValueError("deduction finds the puzzle has no solution")
    args = list(chain_arrays(tables, order, chains, seed, temperature))
    args[SLICE_AT] = slice_moves
    draws = np.random.default_rng(seed)
    best, best_f, counts, solved = args[BEST], args[BEST_F], args[COUNTS], args[SOLVED]
    cells_n = best.shape[1]
    tally = {"completed": 0, "none": 0, "gave up": 0}
    regions, lowest = [], {}
    chain_solves, repair_seconds, rounds = 0, 0.0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds and rounds != max_slices:
        best_f[:] = cells_n + 1  # each slice keeps its own fewest-open grid
        run_impasse_cpu(*args)
        rounds += 1
        for i in range(chains):
            fewest = int(best_f[i])
            lowest[fewest] = lowest.get(fewest, 0) + 1
            if solved[i]:
                chain_solves += 1
                solved[i], counts[i, 1], counts[i, 2] = 0, 0, 0  # a fresh trial next slice
                continue
            if fewest > most_open:
                continue
            began = time.perf_counter()
            region = region_of(best[i], tables, order * order, rule, draws)
            attempt = attempt_repair(cells, order, best[i], region, max_nodes)
            repair_seconds += time.perf_counter() - began
            tally[attempt["outcome"]] += 1
            regions.append(attempt["region"])
    return {
        "attempts": len(regions), "completed": tally["completed"], "none": tally["none"],
        "gave_up": tally["gave up"], "regions": float(np.mean(regions)) if regions else None,
        "lowest": {str(k): lowest[k] for k in sorted(lowest)[:8]},
        "chain_solves": chain_solves, "moves": int(counts[:, 0].sum()),
        "seconds": time.perf_counter() - start, "repair_seconds": repair_seconds,
        "free": int(len(tables[1])),
    }  # fmt: skip


def render(result: dict) -> str:
    """The markdown report."""
    rows = []
    for run in result["runs"]:
        region = f"{run['regions']:.0f}" if run["regions"] is not None else "-"
        lowest = ", ".join(f"{k}: {v:,}" for k, v in run["lowest"].items())
        rows.append((
            run["puzzle"], "{} {}".format(*run["rule"]), f"{run['free']}",
            f"{run['attempts']:,}", region,
            f"{run['completed']:,}", f"{run['none']:,}", f"{run['gave_up']:,}",
            f"{run['chain_solves']}", f"{run['moves'] / 1e6:,.0f}",
            f"{run['repair_seconds']:.1f} of {run['seconds']:.0f}", lowest,
        ))  # fmt: skip
    header = ("puzzle", "region", "free cells", "attempts", "cells blanked", "completed",
              "none", "gave up", "chain solves", "M moves", "s repairing",
              "slices by fewest open cells")  # fmt: skip
    tail = (
        f"Attempts: a chain's fewest-open grid of a slice with at most {result['open']} open "
        "cells; region: depth D, the open cells and D rings of blockers, or keep K, every free "
        "cell blanked but K the grid writes (module docstring); cells blanked: the mean "
        "region. Completed: a verified solution; none: the solver proved the "
        f"region has no completion; gave up: {result['max_nodes']:,} branch values spent. "
        "Chain solves: the chains' own. Slices by fewest open cells: how many chain-slices "
        "had each lowest count (the lowest eight)."
    )
    head = [
        "# Exact completion of impasse chains' near-solutions",
        "",
        made_sentence(result)
        + f" {result['chains']} chains at {result['temperature']:g}, seed {result['seed']}, "
        f"{result['seconds']:g} s a region rule and puzzle, slices of {result['slice_moves']:,} "
        "moves.",
        "",
    ]
    return "\n".join(head + table_block("## Runs", header, rows, tail))


def main(argv: list[str] | None = None) -> int:
    """Parse the flags, run every puzzle and region rule, write the results files."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", help="puzzle files in Lloyd & Amos' format")
    ap.add_argument("--depths", type=int_list, default="1,2", help="rings of blockers")
    ap.add_argument("--keeps", type=int_list, default=[], help="written cells kept at random")
    ap.add_argument("--open", type=int, default=2, help="most open cells of a grid attempted")
    ap.add_argument("--seconds", type=float, default=60.0, help="seconds a rule and puzzle")
    ap.add_argument("--slice-moves", type=int, default=20_000)
    ap.add_argument("--max-nodes", type=int, default=2_000, help="an attempt's branch values")
    ap.add_argument("--temperature", type=float, default=0.32)
    ap.add_argument("--chains", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1, help="the chains' streams' seed")
    add_out_arguments(ap, OUT)
    args = ap.parse_args(argv)
    if args.render:
        rerender(args.out, render)
        return 0
    numbers = (args.seconds, args.slice_moves, args.max_nodes, args.temperature, args.chains)
    sizes = args.depths + args.keeps
    if not args.files or min(numbers) <= 0 or args.open < 1 or min(sizes, default=0) < 0:
        ap.error("give puzzle files, --depths and --keeps 0 or more, and --open, --seconds, "
                 "--slice-moves, --max-nodes, --temperature, --chains above 0")  # fmt: skip
    facts = machine()
    compile_chains()
    runs = []
    for path in args.files:
        order, cells = read_lloyd_amos(Path(path))
        rules = [("depth", d) for d in args.depths] + [("keep", k) for k in args.keeps]
        for rule in rules:
            run = run_repairs(cells.astype(np.uint8), order, rule, args.open, args.seconds,
                              args.slice_moves, args.max_nodes, args.temperature, args.chains,
                              args.seed)  # fmt: skip
            run.update(puzzle=Path(path).stem, rule=list(rule))
            print(run["puzzle"], *rule, run["attempts"], run["completed"], run["none"],
                  run["gave_up"], run["chain_solves"], flush=True)  # fmt: skip
            runs.append(run)
    result = {**made_by("bench_impasse_repair", argv), "machine": facts, "open": args.open,
              "slice_moves": args.slice_moves, "max_nodes": args.max_nodes,
              "temperature": args.temperature, "chains": args.chains, "seed": args.seed,
              "seconds": args.seconds, "runs": runs}  # fmt: skip
    write_results(args.out, result, render)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
