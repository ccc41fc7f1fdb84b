"""Which 9x9 move solves fastest on the card: the solving chain's proposals, measured on the
CPU, over each move's kernel rate, measured on the card.

Glossary: c chains a puzzle, T the proposals of a puzzle's solving chain (the chain with the
fewest), L moves a plateau (81 at 9x9), rate a kernel's measured proposals a second.

The kernels run the very chains of the CPU runner, so with --fixed-chains a puzzle's solving
chain and its proposals T are the same on both backends; only the rate differs. Every chain of
a puzzle runs until its count passes T at a plateau's end, so the card spends about
c x (T + L) proposals on the puzzle, in c x (T + L) / rate seconds of kernel time. This script
runs each move, with its own best measured schedule and deduction first, on random isomorphs
of forum_hardest_1106 (the seed of benchmarks/card_vs_cores.py) on the CPU at the card's
chain counts, and divides by the move's rate in benchmarks/results/gpu/gpu_throughput.json
(an H100's kernels). The kernel seconds are thus a model built from two measurements: they
leave out the host, the slices' rounds and start-up, the same for every move.

    python -m benchmarks.card_move_choice [--puzzles 40] [--chains 1056,64]
        [--file ../shared/data/sudoku/forum_hardest_1106.txt]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from benchmarks.card_vs_cores import MOVE_TECHNIQUES, SEED, cells_of
from benchmarks.isomorphs import isomorphs, line
from benchmarks.machine import git, machine
from benchmarks.paths import ROOT, SUDOKU_DATA, results
from benchmarks.tables import add_out_arguments, rerender, table_block, write_results
from gpu_anneal import api

RATES = results("gpu") / "gpu_throughput.json"
PLATEAU = 81  # moves a plateau at 9x9 (the cells)


def card_rate(rates: dict, move: str) -> tuple[float, str]:
    """(proposals/s, schedule regime) of the move's 9x9 kernel on the card: the preset regime
    ('auto') where it was measured, else the native loop's; the most waves."""
    rows = [r for r in rates["cuda"] if r["order"] == 3 and r["move"] == move]
    if not rows:
        raise SystemExit(f"{RATES}: no 9x9 rate of move {move} on the card")
    auto = [r for r in rows if r["schedule"] == "auto"]
    best = max(auto or rows, key=lambda r: r["waves"])
    return best["proposals_per_second"], best["schedule"]


def run_move(lines: list[str], move: str, schedule: str, chains: int, limit: float) -> dict:
    """Solve every puzzle on the CPU with fixed chains: per puzzle its status and the solving
    chain's proposals (None when deduction alone solved it, or nothing did)."""
    start = time.perf_counter()
    found = api.solve(lines, backend="cpu", move=move, schedule=schedule, propagate=True,
                      chains=chains, fixed_chains=True, seed=0, time_limit=limit)  # fmt: skip
    return {
        "move": move,
        "schedule": schedule,
        "chains": chains,
        "seconds": time.perf_counter() - start,
        "status": [r.status for r in found],
        "chain_proposals": [r.counts.chain_proposals for r in found],
    }


def kernel_seconds(row: dict, rate: float) -> float:
    """Modeled kernel seconds of the row's puzzles on the card: sum of c x (T + L) / rate over
    the solved ones that ran a chain."""
    c = row["chains"]
    return sum(c * (t + PLATEAU) / rate for t in row["chain_proposals"] if t is not None)


def render(result: dict) -> str:
    """The report: a row per chain count and move, the fastest first."""
    cells = []
    for chains in result["chain_counts"]:
        rows = [r for r in result["rows"] if r["chains"] == chains]
        for r in sorted(rows, key=lambda r: (r["unsolved"] > 0, r["kernel_seconds"])):
            ran = [t for t in r["chain_proposals"] if t is not None]
            cells.append((
                r["move"], f"`{r['schedule']}`", str(chains),
                f"{len(r['status']) - r['unsolved']}/{len(r['status'])}",
                f"{statistics.median(ran):,.0f}" if ran else "-",
                f"{r['rate'] / 1e9:.1f} ({r['rate_regime']})",
                f"{r['kernel_seconds'] * 1e3:.2f}" + (" (solved only)" if r["unsolved"] else ""),
            ))  # fmt: skip
    m = result["machine"]
    return "\n".join(table_block(
        "# Which 9x9 move solves fastest on the card\n\n"
        f"**A model from two measurements**: each puzzle's solving-chain proposals T, measured "
        f"on the CPU ({m['cpu']}, {m['cores']} cores; the kernels run the same chains, so T is "
        "the card's too), and each move's kernel rate measured on the card "
        f"(`{result['rates_file']}`, {result['rates_machine']}). Kernel seconds: sum of "
        "c x (T + 81) / rate "
        f"over {result['puzzles']} random isomorphs of {result['file']} (seed {SEED}), "
        "deduction first, fixed chains; host, rounds and start-up left out.",
        ("move", "schedule", "chains a puzzle", "solved", "median T", "card G proposals/s",
         "modeled kernel ms"),
        cells,
        f"Command: `{result['command']}` (commit {result['commit']}, {m['date']}).",
    ))  # fmt: skip


def main() -> None:
    """Run every move at every chain count, write the results and the report."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", default=str(SUDOKU_DATA / "forum_hardest_1106.txt"))
    ap.add_argument("--puzzles", type=int, default=40)
    ap.add_argument("--chains", default="1056,64", help="chain counts a puzzle (the card's)")
    ap.add_argument("--time-limit", type=float, default=30.0, help="seconds a puzzle")
    ap.add_argument("--moves", default=",".join(m for m, _ in MOVE_TECHNIQUES))
    add_out_arguments(ap, results("tuning") / "card_move_choice")
    args = ap.parse_args()
    if args.render:
        rerender(args.out, render)
        return
    path = Path(args.file)
    if not path.is_file():
        raise SystemExit(f"{path}: no such file (give --file)")
    grids, _ = isomorphs(cells_of(path), args.puzzles, SEED)
    lines = [line(g) for g in grids]
    rates = json.loads(RATES.read_text())
    schedules = dict(MOVE_TECHNIQUES)
    rows = []
    for chains in (int(c) for c in args.chains.split(",")):
        for move in args.moves.split(","):
            row = run_move(lines, move, schedules[move], chains, args.time_limit)
            row["rate"], row["rate_regime"] = card_rate(rates, move)
            row["unsolved"] = sum(s != "solved" for s in row["status"])
            row["kernel_seconds"] = kernel_seconds(row, row["rate"])
            rows.append(row)
            print(f"{chains} chains, {move}: {len(lines) - row['unsolved']}/{len(lines)} solved,"
                  f" modeled kernel {row['kernel_seconds'] * 1e3:.2f} ms,"
                  f" CPU {row['seconds']:.1f} s", flush=True)  # fmt: skip
    result = {
        "file": path.name, "puzzles": args.puzzles, "seed": SEED,
        "chain_counts": [int(c) for c in args.chains.split(",")],
        "rates_file": str(RATES.relative_to(ROOT)),
        "rates_machine": rates["machine"]["gpu"], "rows": rows,
        "command": "python -m benchmarks.card_move_choice " + " ".join(sys.argv[1:]),
        "commit": git("rev-parse", "--short", "HEAD"), "machine": machine(),
    }  # fmt: skip
    write_results(args.out, result, render)


if __name__ == "__main__":
    main()
