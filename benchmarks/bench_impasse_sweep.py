"""The held temperature of `--method impasse` per order and fill: each temperature on the same
Lewis-style training instances, the chains of the engine (cpu_reference.sudoku.impasse).

For each (order, fill) of --cells and each T of its list, --count instances of --seed (2 by
default: training grids, neither bench_frontier's own, seed 1, nor its held-out ones, seed 4)
are solved by --chains chains (one a core) held at T within --limit seconds, once for each
chains' seed of --chain-seeds (1 alone by default). Reports, per T, the runs solved, their
median seconds (an unsolved one counting as infinitely slow) and each instance's seconds or its
fewest open cells when unsolved (with several chains' seeds: its runs solved and their median).
`--full-grids generator` cuts the instances of every order from the backtracking generator's
random grids (frontier_instances; by default 49x49 and 64x64 are cut from a shuffled pattern).
`--probe` has deduction probe every candidate after the rules before the chains start
(failed-literal probing, benchmarks/probing.py): an experiment, not an engine option.
`--trial-moves L1,L2` runs every temperature once for each L: a chain starts a fresh trial after
L moves of one (0, the engine's default: never), a row each. `--stays S1,S2` runs every
temperature once for each stay factor S (impasse.heat_weights: 1, the default, is the heat
bath; 0, a drawn open cell always takes a candidate), a row each.

Glossary: cell, one (order, fill) with its temperatures, written ORDER:FILL:T1/T2/...

Results: benchmarks/results/tuning/impasse_sweep.{json,md} (--out).

    python -m benchmarks.bench_impasse_sweep [--cells 6:45:0.25/0.29,7:50:0.27] [--count 3]
        [--seed 2] [--limit 60] [--chains 2] [--chain-seeds 1,2,3] [--probe]
        [--trial-moves 0,20000000] [--stays 1,0] [--full-grids by-order|generator] [--out PATH]
"""

from __future__ import annotations

import argparse
import statistics
from contextlib import nullcontext

import numpy as np

from benchmarks.frontier_instances import add_full_grids_argument, make_instances
from benchmarks.machine import machine, made_by
from benchmarks.paths import results
from benchmarks.probing import probing_deduction
from benchmarks.tables import (
    add_out_arguments,
    float_list,
    int_list,
    made_sentence,
    rerender,
    secs,
    table_block,
    write_results,
)
from cpu_reference.sudoku.impasse import compile_chains, impasse_solve
from cpu_reference.sudoku.verify import verify_solution

OUT = results("tuning") / "impasse_sweep"


def parse_cells(text: str) -> list[tuple[int, int, list[float]]]:
    """[(order, fill, temperatures)] from ORDER:FILL:T1/T2,...; ValueError naming the form."""
    cells = []
    for part in text.split(","):
        try:
            order, fill, temps = part.split(":")
            cell = (int(order), int(fill), [float(t) for t in temps.split("/")])
        except ValueError:
            raise ValueError(f"--cells {part!r}: expected ORDER:FILL:T1/T2/...") from None
        if not 2 <= cell[0] <= 8 or not 0 <= cell[1] <= 100 or min(cell[2]) <= 0:
            raise ValueError(f"--cells {part!r}: order 2..8, fill 0..100, every T above 0")
        cells.append(cell)
    return cells


def solve_once(
    inst, temperature: float, chains: int, limit: float, chain_seed: int = 1, trial_moves: int = 0,
    stay: float = 1.0,
) -> dict:  # fmt: skip
    """One instance at one temperature and stay factor on one chains' seed, a fresh trial every
    `trial_moves` moves of one (0: never): status (verified), seconds, fewest open cells, moves,
    trials."""
    cells = np.asarray(inst.cells, np.uint8)
    r = impasse_solve(cells, inst.order, chains, chain_seed, temperature, limit,
                      trial_moves=trial_moves, stay=stay)  # fmt: skip
    ok = r["status"] == "solved" and verify_solution(r["grid"], inst.order, cells) is None
    return {"instance": inst.name, "chain_seed": chain_seed, "solved": ok,
            "seconds": r["seconds"], "open": r["open"], "moves": r["moves"],
            "trials": r["trials"]}  # fmt: skip


def median_text(runs: list[dict]) -> str:
    """'k/n, median S' with an unsolved run counting as infinitely slow."""
    times = sorted(r["seconds"] if r["solved"] else float("inf") for r in runs)
    solved = sum(r["solved"] for r in runs)
    median = statistics.median(times)
    return f"{solved}/{len(runs)}, median " + (secs(median) if median != float("inf") else "-")


def moves_a_solve_text(runs: list[dict]) -> str:
    """All runs' moves (every chain's) over their solves, in millions: the mean moves to a
    solve, were solving memoryless; `> M` where no run solved in M million moves."""
    moves = sum(r["moves"] for r in runs) / 1e6
    solves = sum(r["solved"] for r in runs)
    return f"{millions(moves / solves)} M" if solves else f"> {millions(moves)} M"


def rate_text(runs: list[dict]) -> str:
    """All runs' moves over all their seconds, in millions a second."""
    rate = sum(r["moves"] for r in runs) / sum(r["seconds"] for r in runs) / 1e6
    return f"{rate:.3g} M/s"


def millions(x: float) -> str:
    """x to three figures, whole from 100 up with thousands separated."""
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def by_instance(runs: list[dict], names: list[str]) -> list[list[dict]]:
    """The runs of each instance of `names`, in that order."""
    return [[r for r in runs if r["instance"] == name] for name in names]


def instance_text(runs: list[dict]) -> str:
    """One instance's cell: its seconds or `open N` for one run, else median_text of its runs."""
    if len(runs) > 1:
        return median_text(runs)
    r = runs[0]
    return secs(r["seconds"]) if r["solved"] else f"open {r['open']}"


def row_label(row: dict) -> str:
    """A row's temperature, its stay factor where it is not 1, and its trials' length where
    chains start fresh ones."""
    every, stay = row.get("trial_moves", 0), row.get("stay", 1.0)
    return (
        f"{row['temperature']:g}"
        + (f", stay {stay:g}" if stay != 1 else "")
        + (f", fresh every {millions(every / 1e6)} M" if every else "")
    )


def render(result: dict) -> str:
    """The markdown report of one sweep."""
    seeds = result.get("chain_seeds", [1])
    several = len(seeds) > 1
    generated = result.get("full_grids") == "generator"
    cell_text = (
        "an instance's runs solved and their median seconds"
        if several
        else "seconds when solved (the verifier passed it), else `open N`, the fewest open "
        "cells a chain reached"
    )
    probed = (
        " Deduction probed every candidate after the rules before the chains started."
        if result.get("probe")
        else ""
    )
    lines = [
        "# --method impasse: the held temperature per order and fill",
        "",
        f"{made_sentence(result)} Instances Lewis-style of seed {result['seed']}"
        f"{' (full grids from the generator at every order)' if generated else ''}, "
        f"{result['chains']} chains (chains' seed {', '.join(map(str, seeds))}) within "
        f"{result['limit']:g} s; a cell: {cell_text}.{probed}",
        "",
    ]
    for cell in result["cells"]:
        side = cell["order"] ** 2
        names = list(dict.fromkeys(r["instance"] for r in cell["rows"][0]["runs"]))
        rows = [
            (row_label(row), median_text(row["runs"]),
             *map(instance_text, by_instance(row["runs"], names)))
            for row in cell["rows"]
        ]  # fmt: skip
        per = f" on each of {len(seeds)} chains' seeds" if several else ""
        lines += table_block(
            f"## {side}x{side}, {cell['fill']} % filled", ("T", "solved", *names), rows,
            f"{len(names)} instances, each at every temperature{per}.",
        )  # fmt: skip
        if several:
            lines += table_block(
                f"### {side}x{side}, {cell['fill']} % filled: chains' moves a solve",
                ("T", "moves a second", *names),
                [(row_label(row), rate_text(row["runs"]),
                  *map(moves_a_solve_text, by_instance(row["runs"], names)))
                 for row in cell["rows"]],
                "Moves of all the instance's runs (every chain's) over their solves; `> M`: "
                "none solved in M moves. Moves a second: all runs' moves over their seconds.",
            )  # fmt: skip
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Parse the flags, run every cell and temperature, write the results files."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cells", default="6:45:0.25/0.29/0.325", help="ORDER:FILL:T1/T2,...")
    ap.add_argument("--count", type=int, default=3)
    ap.add_argument("--seed", type=int, default=2, help="instances' seed")
    ap.add_argument("--limit", type=float, default=60.0, help="seconds an instance")
    ap.add_argument("--chains", type=int, default=2)
    ap.add_argument(
        "--chain-seeds", type=int_list, default="1", help="chains' seeds, comma-separated"
    )
    ap.add_argument("--probe", action="store_true", help="probe every candidate before chains")
    ap.add_argument(
        "--trial-moves", type=int_list, default="0",
        help="moves of a trial before a fresh one (0: never), comma-separated: a row each",
    )  # fmt: skip
    ap.add_argument(
        "--stays", type=float_list, default="1",
        help="stay factors 0..1 (1: the heat bath), comma-separated: a row each",
    )  # fmt: skip
    add_full_grids_argument(ap)
    add_out_arguments(ap, OUT)
    args = ap.parse_args(argv)
    if args.render:
        rerender(args.out, render)
        return 0
    try:
        cells = parse_cells(args.cells)
    except ValueError as exc:
        ap.error(str(exc))
    if args.count < 1 or args.limit <= 0 or args.chains < 1 or min(args.trial_moves) < 0:
        ap.error("--count and --chains must be 1 or more, --limit above 0, --trial-moves 0 or more")
    if not all(0 <= stay <= 1 for stay in args.stays):
        ap.error(f"--stays {args.stays}: each stay factor must be in 0..1")
    facts = machine()
    compile_chains()
    with probing_deduction() if args.probe else nullcontext():
        out_cells = [run_cell(cell, args, args.chain_seeds) for cell in cells]
    result = {
        **made_by("bench_impasse_sweep", argv), "machine": facts, "seed": args.seed,
        "chains": args.chains, "chain_seeds": args.chain_seeds, "limit": args.limit,
        "probe": args.probe, "full_grids": args.full_grids, "trial_moves": args.trial_moves,
        "stays": args.stays, "cells": out_cells,
    }  # fmt: skip
    write_results(args.out, result, render)
    return 0


def run_cell(cell: tuple, args, chain_seeds: list[int]) -> dict:
    """One (order, fill, temperatures) of --cells: every temperature's runs on its instances."""
    order, fill, temperatures = cell
    instances = make_instances([order], [fill], args.count, args.seed, args.full_grids)
    rows = []
    for temperature in temperatures:
        for stay in args.stays:
            for every in args.trial_moves:
                runs = [solve_once(inst, temperature, args.chains, args.limit, chain_seed, every,
                                   stay)
                        for inst in instances for chain_seed in chain_seeds]  # fmt: skip
                print(order, fill, temperature, stay, every, median_text(runs), flush=True)
                rows.append({"temperature": temperature, "stay": stay, "trial_moves": every,
                             "runs": runs})  # fmt: skip
    return {"order": order, "fill": fill, "rows": rows}


if __name__ == "__main__":
    raise SystemExit(main())
