"""Make the shipped 25x25 and 36x36 examples (gpu_anneal/data/made_25x25.tsv, made_36x36.tsv).

Each puzzle is a full grid made by backtracking (gpu_anneal.generation, seed 0, grid i), with
cells emptied at random (numpy's default_rng(seed + i)) until FILL of them are given; a puzzle
is kept only when the exact solver, counting to two, finds exactly one solution. The same
command writes the same files.

    python -m benchmarks.make_examples [--count 2]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from cpu_reference.sudoku.exact import solve_exact
from cpu_reference.sudoku.formats import format_grid
from gpu_anneal.generation import generate_grids

DATA = Path(__file__).resolve().parent.parent / "gpu_anneal" / "data"
FILL = 0.6  # the share of cells given
FILES = {5: "made_25x25.tsv", 6: "made_36x36.tsv"}


def unique_puzzles(order: int, count: int, seed: int = 0) -> list[np.ndarray]:
    """`count` puzzles of `order` with FILL of their cells given and one solution each."""
    kept: list[np.ndarray] = []
    i = 0
    while len(kept) < count:
        grids, _ = generate_grids(order, 1, "backtrack", seed, "cpu", first_index=i)
        rng = np.random.default_rng(seed + i)
        cells = grids[0].copy()
        empty = rng.permutation(cells.size)[: cells.size - round(cells.size * FILL)]
        cells[empty] = 0
        if solve_exact(cells, order, limit=2)[0] == 1:
            kept.append(cells)
        i += 1
    return kept


def main() -> None:
    """Write both files."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2, help="puzzles per file")
    args = parser.parse_args()
    for order, name in FILES.items():
        N = order * order
        lines = [f"# {N}x{N} at {FILL:.0%} of cells given, one solution each: "
                 "python -m benchmarks.make_examples"]  # fmt: skip
        for k, cells in enumerate(unique_puzzles(order, args.count)):
            lines.append(format_grid(cells, order, "tsv", f"made{N}x{N}_{k}"))
        (DATA / name).write_text("\n".join(lines) + "\n")
        print(f"wrote {DATA / name}")


if __name__ == "__main__":
    main()
