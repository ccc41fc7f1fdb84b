"""Make the shipped 25x25 to 64x64 examples (gpu_anneal/data/made_{N}x{N}.tsv).

Each puzzle is a full grid made by backtracking (gpu_anneal.generation, seed 0, grid i), with
cells emptied at random (numpy's default_rng(seed + i)) until FILLS[order] of them are given; a
puzzle is kept only when the exact solver, counting to two, finds exactly one solution. The same
command writes the same files. 64x64 keeps 70 %: at 60 % one count to two took minutes.

    python -m benchmarks.make_examples [--count 2] [--orders 5,6,7,8]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from cpu_reference.sudoku.exact import solve_exact
from cpu_reference.sudoku.format_writer import format_grid
from gpu_anneal.generation import generate_grids

DATA = Path(__file__).resolve().parent.parent / "gpu_anneal" / "data"
FILLS = {5: 0.6, 6: 0.6, 7: 0.6, 8: 0.7}  # the share of cells given
FILES = {5: "made_25x25.tsv", 6: "made_36x36.tsv", 7: "made_49x49.tsv", 8: "made_64x64.tsv"}
COUNTS = {8: 1}  # puzzles of an order when not --count


def unique_puzzles(order: int, count: int, seed: int = 0) -> list[np.ndarray]:
    """`count` puzzles of `order` with FILLS[order] of their cells given and one solution
    each."""
    kept: list[np.ndarray] = []
    i = 0
    while len(kept) < count:
        grids, _ = generate_grids(order, 1, "backtrack", seed, "cpu", first_index=i)
        rng = np.random.default_rng(seed + i)
        cells = grids[0].copy()
        empty = rng.permutation(cells.size)[: cells.size - round(cells.size * FILLS[order])]
        cells[empty] = 0
        if solve_exact(cells, order, limit=2)[0] == 1:
            kept.append(cells)
        i += 1
    return kept


def main() -> None:
    """Write the files of the orders asked for."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=None, help="puzzles per file [2; 64x64: 1]")
    parser.add_argument("--orders", default="5,6,7,8", help="orders to write, comma-separated")
    args = parser.parse_args()
    for order in (int(o) for o in args.orders.split(",")):
        N, name = order * order, FILES[order]
        count = args.count or COUNTS.get(order, 2)
        lines = [f"# {N}x{N} at {FILLS[order]:.0%} of cells given, one solution each: "
                 "python -m benchmarks.make_examples"]  # fmt: skip
        for k, cells in enumerate(unique_puzzles(order, count)):
            lines.append(format_grid(cells, order, "tsv", f"made{N}x{N}_{k}"))
        (DATA / name).write_text("\n".join(lines) + "\n")
        print(f"wrote {DATA / name}")


if __name__ == "__main__":
    main()
