"""Acceptance rates of the moves the cooperative kernel runs, measured on the CPU runner.

The cooperative kernel's model (gpu_anneal.kernels.perf_model) needs how many proposals a warp
round makes: (1 - (1 - p)^32) / p at acceptance p. This measures p (accepted / proposed, over
every chain) with the default technique (propagation first, the "auto" schedule) on held-out
style grids: full grids from `gpu-anneal generate --method backtrack` (16x16, 25x25) or the
36x36 instances of benchmarks/data/general_36x36.tsv, cells kept at random to each fill level,
each puzzle run until it solves or PROPOSALS_CAP proposals. 9x9 (the model's comparison: would
a cooperative 9x9 kernel be faster?) takes the first NINE_BY_NINE puzzles of top95.

    python -m benchmarks.bench_coop_acceptance    # benchmarks/results/kernels/coop_acceptance.json

Results: per (order, move) the pooled p and each puzzle's row. `--orders 3` measures those
orders only and keeps the other orders' rows of an existing results file.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.machine import git, machine
from benchmarks.paths import DATA, ROOT, SHIPPED, results
from cpu_reference.sudoku import rules
from cpu_reference.sudoku.batch import load_puzzle, logic_fill, make_batch, run_slice_cpu
from cpu_reference.sudoku.formats import parse_line, read_puzzles
from cpu_reference.sudoku.schedules import by_name

LEVELS = {4: (30, 35), 5: (40, 45, 50), 6: (45, 50, 55, 60)}  # fill %, as the targets name them
NINE_BY_NINE = 8
PER_LEVEL = 2
MOVES = ("sirdey", "candidate", "focused", "focused-two")
PROPOSALS_CAP = {3: 2_000_000, 4: 2_000_000, 5: 4_000_000, 6: 4_000_000}
CHAINS = 2
SEED = 29


def grids(order: int, count: int, seed: int) -> list[np.ndarray]:
    """`count` full grids of an order from the backtracking generator."""
    text = subprocess.run(
        [sys.executable, "-m", "gpu_anneal", "generate", "--order", str(order), "--method",
         "backtrack", "--count", str(count), "--seed", str(seed)],
        check=True, capture_output=True, text=True, cwd=ROOT,
    ).stdout  # fmt: skip
    return [parse_line(line, order) for line in text.splitlines() if line.strip()]


def puzzles(order: int) -> list[tuple[str, np.ndarray]]:
    """(name, cells) of PER_LEVEL puzzles a fill level."""
    rng = np.random.default_rng(SEED)
    out = []
    if order == 3:
        path = SHIPPED / "top95.txt"
        return [(f"top95_{k}", p.cells) for k, p in enumerate(read_puzzles(path))][:NINE_BY_NINE]
    if order == 6:
        rows = [
            line.split("\t")
            for line in (DATA / "general_36x36.tsv").read_text().splitlines()
            if line and not line.startswith("#")
        ]
        for fill in LEVELS[6]:
            found = [r for r in rows if r[0].startswith(f"inst36x36_{fill}_")][:PER_LEVEL]
            out += [(r[0], np.array(r[2].split(","), np.uint8)) for r in found]
        return out
    full = grids(order, PER_LEVEL * len(LEVELS[order]), SEED)
    for j, fill in enumerate(LEVELS[order]):
        for k in range(PER_LEVEL):
            grid = full[j * PER_LEVEL + k]
            keep = rng.permutation(grid.size) < round(fill / 100 * grid.size)
            out.append((f"backtrack{order}_{fill}_{k}", np.where(keep, grid, 0).astype(np.uint8)))
    return out


def run_one(cells: np.ndarray, order: int, move: str) -> dict:
    """One puzzle with the default technique until solved or the cap: proposals, accepted."""
    filled, masks = logic_fill(cells, order)
    sched = by_name("auto", order)
    code = rules.move_code(move, order)
    batch = make_batch(filled[None], order, sched, CHAINS, seed=SEED, move=code)
    load_puzzle(batch, 0, filled, batch.rng[:CHAINS, :2].copy(), masks)
    start = time.perf_counter()
    while (batch.ctr[:, rules.C_STATUS] == rules.RUNNING).any():
        run_slice_cpu(batch, 16)
        if batch.ctr[:, rules.C_PROPOSALS].sum() >= PROPOSALS_CAP[order]:
            break
    return {
        "proposals": int(batch.ctr[:, rules.C_PROPOSALS].sum()),
        "accepted": int(batch.ctr[:, rules.C_ACCEPTED].sum()),
        "solved": bool((batch.ctr[:, rules.C_STATUS] == rules.SOLVED).any()),
        "seconds": time.perf_counter() - start,
    }


def main() -> None:
    """Measure every order and move; write the results JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(results("kernels") / "coop_acceptance.json"))
    parser.add_argument("--orders", default="3,4,5,6")
    args = parser.parse_args()
    orders = [int(x) for x in args.orders.split(",")]
    rows, pooled, kept, commits = [], {}, [], {}
    if Path(args.out).exists():  # other orders' measurements stay
        old = json.loads(Path(args.out).read_text())
        kept = [r for r in old["rows"] if r["order"] not in orders]
        pooled = {k: v for k, v in old["pooled"].items() if int(k.split(":")[0]) not in orders}
        first = {str(r["order"]): old["git_commit"] for r in kept}
        commits = old.get("commit_of_order", first)
        commits = {k: v for k, v in commits.items() if int(k) not in orders}
    for order in orders:
        items = puzzles(order)
        for move in MOVES:
            run_one(items[0][1], order, move)  # compile first
            for name, cells in items:
                row = {"order": order, "move": move, "puzzle": name, **run_one(cells, order, move)}
                rows.append(row)
                print(json.dumps(row), flush=True)
            mine = [r for r in rows if r["order"] == order and r["move"] == move]
            total = sum(r["proposals"] for r in mine)
            pooled[f"{order}:{move}"] = {
                "acceptance": sum(r["accepted"] for r in mine) / total if total else None,
                "proposals": total,
                "puzzles": len(mine),
                "solved": sum(r["solved"] for r in mine),
            }
    doc = {
        "what": "measured on the CPU runner: accepted / proposed moves, default technique "
        "(propagation, schedule auto), each puzzle until solved or the cap",
        "command": "python -m benchmarks.bench_coop_acceptance",
        "git_commit": git("rev-parse", "HEAD"),
        "commit_of_order": {**commits, **{str(o): git("rev-parse", "HEAD") for o in orders}},
        "machine": machine("numba"),
        "levels": {str(k): v for k, v in LEVELS.items()},
        "chains": CHAINS,
        "proposals_cap": {str(k): v for k, v in PROPOSALS_CAP.items()},
        "pooled": dict(sorted(pooled.items())),
        "rows": sorted(kept + rows, key=lambda r: r["order"]),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
