"""Solve profiles of random isomorphs: which chain of each puzzle solves first, after how many
proposals, from the CPU runner (the CPU twin of the card's kernels).

Glossary: q a puzzle's position in the isomorph set (its chains draw streams q x c + i), c chains
a puzzle, T the proposals of the puzzle's solving chain (the chain with the fewest at its solve),
pick that chain's index i in its puzzle, base the puzzle of the base set it is an isomorph of
(q mod the base set's size).

The kernels run the very chains of the CPU runner (same streams, same moves; the equality
tests), so a puzzle's (pick, T) at c chains is the same on a card as here. This script runs the
pool on the CPU with the default technique (schedule and move "auto", deduction first), seed 0,
no spare chains and no time limit, on the first --puzzles isomorphs of --file (the isomorphs of
benchmarks/card_vs_cores.py: seed 0), at each chain count of --chains, and appends one row per
puzzle to a TSV file as each finishes (a rerun skips the rows already there):

    chains  position  solving_chain  chain_proposals  chain_trials

    python -m benchmarks.solve_profiles [--puzzles 6000] [--chains 1056,64]
        [--file ../shared/data/sudoku/forum_hardest_1106.txt] [--out benchmarks/data/...]

benchmarks/virtual_card.py reads the file (load_profiles).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.card_vs_cores import SEED, cells_of
from benchmarks.isomorphs import isomorphs
from benchmarks.machine import git
from benchmarks.paths import DATA, SUDOKU_DATA
from gpu_anneal.sudoku_solver import SPARE_STRIDE, solve_stream

PROFILES = DATA / "solve_profiles_forum_hardest_1106.tsv"
COLUMNS = ("chains", "position", "solving_chain", "chain_proposals", "chain_trials")
CHAIN_SEED = 0  # the pool's seed (every card run's default)
TWIN_CHAINS = 16384  # chains the twin runs at once (slots = this // chains a puzzle)


def base_puzzles(path: Path) -> np.ndarray:
    """The 9x9 puzzles of a file (uint8[P, 81]), in file order."""
    if not path.is_file():
        raise SystemExit(f"{path}: no such file (give --file)")
    return np.stack([c for c in cells_of(path) if c.size == 81])


def twin_profiles(items, chains: int, seed: int = CHAIN_SEED, first_chain: int = 0,
                  slice_seconds: float = 0.5):  # fmt: skip
    """Yield (position, solving chain, its proposals, its trials) of each puzzle of `items`
    ((position, cells) pairs: puzzle q's chain i draws stream first_chain + q x chains + i) as
    the CPU runner solves it with `chains` chains a puzzle and the default technique; None for
    the chain fields where no chain ran (deduction solved it)."""
    slots = max(1, TWIN_CHAINS // chains)
    for r in solve_stream(
        items, 3, slots=slots, chains=chains, seed=seed, time_limit=None, backend="cpu",
        move="focused-two", schedule="auto", propagate=True, spare_chains=False,
        slice_seconds=slice_seconds, first_chain=first_chain,
    ):  # fmt: skip
        if not r.solved:
            raise SystemExit(f"puzzle {r.index}: not solved ({r.error})")
        q = r.index
        if r.solving_chain is None:
            yield q, None, None, None
            continue
        pick = r.solving_chain - first_chain - q * chains
        yield q, pick, r.extra["chain_proposals"], r.extra["chain_trials"]


def twin_profile(cells: np.ndarray, q: int, m: int, chains: int) -> tuple[int, int, int]:
    """(pick, proposals, trials) of the solving chain of puzzle q's slot m (0: its own chains,
    m > 0: its m-th spare slot, streams m x SPARE_STRIDE + q x chains + i), from the CPU runner;
    (-1, 0, 0) where deduction solved it."""
    ((_, pick, t, trials),) = twin_profiles([(q, cells)], chains, first_chain=m * SPARE_STRIDE)
    return (-1, 0, 0) if pick is None else (pick, t, trials)


def load_profiles(path: Path = PROFILES) -> dict[int, dict[int, tuple]]:
    """{chains: {position: (solving chain, proposals, trials)}} of a profiles file (-1 for
    the chain fields of a puzzle that deduction solved)."""
    out: dict[int, dict[int, tuple]] = {}
    if not path.exists():
        return out
    for text in path.read_text().splitlines():
        if not text or text.startswith("#") or text.startswith("chains"):
            continue
        c, q, pick, t, trials = (int(x) for x in text.split("\t"))
        out.setdefault(c, {})[q] = (pick, t, trials)
    return out


def main() -> None:
    """Run the benchmark: parse the command line, measure, write the results."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", default=str(SUDOKU_DATA / "forum_hardest_1106.txt"))
    ap.add_argument("--puzzles", type=int, default=6000)
    ap.add_argument("--chains", default="1056,64", help="chain counts a puzzle")
    ap.add_argument("--out", default=str(PROFILES))
    args = ap.parse_args()
    path, out = Path(args.file), Path(args.out)
    iso, _ = isomorphs(base_puzzles(path), args.puzzles, SEED)
    have = load_profiles(out)
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(
            f"# solve profiles: {path.name}, {args.puzzles:,} random isomorphs (seed {SEED}), "
            f"default technique, chain seed {CHAIN_SEED}, CPU runner\n"
            f"# python -m benchmarks.solve_profiles {' '.join(sys.argv[1:])} "
            f"(commit {git('rev-parse', '--short', 'HEAD')})\n" + "\t".join(COLUMNS) + "\n"
        )
    for chains in (int(c) for c in args.chains.split(",")):
        done = have.get(chains, {})
        todo = [(q, iso[q]) for q in range(args.puzzles) if q not in done]
        start, count = time.perf_counter(), 0
        with open(out, "a") as sink:
            for q, pick, t, trials in twin_profiles(todo, chains):
                row = (chains, q, -1 if pick is None else pick, -1 if t is None else t,
                       -1 if trials is None else trials)  # fmt: skip
                sink.write("\t".join(str(x) for x in row) + "\n")
                sink.flush()
                count += 1
                if count % 200 == 0:
                    rate = count / (time.perf_counter() - start)
                    print(f"{chains} chains: {count:,}/{len(todo):,} ({rate:.1f}/s)", flush=True)
        print(f"{chains} chains: {count:,} puzzles in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
