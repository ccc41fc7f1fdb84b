"""Chains per puzzle, priced: what k chains of one puzzle cost in all and how soon one solves,
from single chains measured alone on the CPU.

Glossary: P_i proposals chain i of a puzzle makes until it solves (measured alone, so other
chains never stop it), k chains per puzzle, min_k the fewest proposals among k chains: the
pool's deterministic winner (rules.py: every chain runs on to the winner's count, so a puzzle
costs about k x min_k proposals in all and finishes after min_k proposals of one chain).

For each puzzle of a sample (forum_hardest_1106 by default, the default technique: focused-two,
the auto schedule, deduction first) the script replays --chains chains one at a time on the CPU
(gpu_anneal.sudoku_solver.replay_chain, the same chain as on any backend) and records P_i;
then, for each k, it takes disjoint groups of k chains of a puzzle and reports, over puzzles
and groups, the mean of min_k (latency, in proposals of one chain) and of k x min_k (work).
On a card, a wave of W chains finishes W / work puzzles per proposal-time of one chain, and a
puzzle alone takes latency: the two ends of the plan's choice of k (gpu_anneal.plan).

    python -m benchmarks.bench_chains [--puzzles 20] [--chains 64] [--time-limit 5]
        [--file ../shared/data/sudoku/forum_hardest_1106.txt]

Results: benchmarks/results/host/chains.{json,md}.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from benchmarks.machine import git, machine
from benchmarks.paths import SUDOKU_DATA, results
from benchmarks.tables import add_out_arguments, rerender, table_block, write_results
from cpu_reference.sudoku.formats import read_puzzles
from cpu_reference.sudoku.presets import DEFAULT_TECHNIQUE, expand
from gpu_anneal.sudoku_solver import replay_chain

GROUPS = (1, 2, 4, 8, 16, 32, 64)


def chain_proposals(puzzle, chains: int, time_limit: float) -> list[int | None]:
    """P_i of chains 0..chains-1 of a puzzle run alone (None: unsolved within the limit)."""
    schedule = expand(DEFAULT_TECHNIQUE["schedule"], 3)
    out = []
    for i in range(chains):
        r = replay_chain(
            puzzle, 3, i, chains=chains, seed=0, schedule=schedule, time_limit=time_limit,
            move=DEFAULT_TECHNIQUE["move"], propagate=DEFAULT_TECHNIQUE["propagate"],
        )  # fmt: skip
        solved = r.solved and r.extra.get("chain_proposals") is not None
        out.append(int(r.extra["chain_proposals"]) if solved else None)
    return out


def price(per_puzzle: list[list[int | None]], k: int) -> dict:
    """Mean latency (min_k) and work (k x min_k) over disjoint groups of k chains of every
    puzzle; a group none of whose chains solved counts its chains' largest measured P_i (a
    lower bound), and is counted in `unsolved_groups`."""
    latency, work, unsolved = [], [], 0
    for chains in per_puzzle:
        cap = max((p for p in chains if p is not None), default=0)
        for start in range(0, len(chains) - k + 1, k):
            group = chains[start : start + k]
            solved = [p for p in group if p is not None]
            best = min(solved) if solved else cap
            unsolved += not solved
            latency.append(best)
            work.append(k * best)
    return {
        "chains": k,
        "groups": len(latency),
        "latency_proposals": float(np.mean(latency)),
        "work_proposals": float(np.mean(work)),
        "unsolved_groups": unsolved,
    }


def measure(args) -> dict:
    """Every chain of the sample, then the price of each group size."""
    puzzles = [p.cells for p in read_puzzles(args.file) if p.order == 3][: args.puzzles]
    facts = machine()  # its load average before the runs
    start = time.perf_counter()
    per_puzzle = [chain_proposals(p, args.chains, args.time_limit) for p in puzzles]
    seconds = time.perf_counter() - start
    return {
        "command": f"python -m benchmarks.bench_chains --puzzles {args.puzzles} "
        f"--chains {args.chains} --time-limit {args.time_limit:g}",
        "file": str(args.file),
        "technique": dict(DEFAULT_TECHNIQUE, schedule=expand("auto", 3)),
        "machine": facts,
        "commit": git("rev-parse", "--short", "HEAD"),
        "seconds": round(seconds, 1),
        "chain_proposals": per_puzzle,
        "rows": [price(per_puzzle, k) for k in GROUPS if k <= args.chains],
    }


def render(result: dict) -> str:
    """The results file's markdown: one row per chains-per-puzzle."""
    one = result["rows"][0]["work_proposals"]
    rows = [
        (str(r["chains"]), f"{r['latency_proposals']:,.0f}", f"{r['work_proposals']:,.0f}",
         f"{r['work_proposals'] / one:.2f}", str(r["unsolved_groups"]))
        for r in result["rows"]
    ]  # fmt: skip
    head = ("chains a puzzle", "latency (proposals of one chain)", "work (all chains)",
            "work / one chain's", "groups unsolved")  # fmt: skip
    sample = len(result["chain_proposals"])
    return "\n".join(
        ["# Chains per puzzle: latency and work (CPU, chains measured alone)", ""]
        + table_block(
            f"`{result['command']}` on {result['machine'].get('cpu', '?')} "
            f"({sample} puzzles, commit {result['commit']}):",
            head,
            rows,
            "A puzzle solved by k chains costs about k x the winner's proposals in all (the "
            "pool's deterministic winner); these are the means over disjoint groups of the "
            "measured chains. A group with no solving chain counts its largest measured "
            "proposals (a lower bound).",
        )
    )


def main() -> None:
    """Run the benchmark: parse the command line, measure, write the results."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--file", default=str(SUDOKU_DATA / "forum_hardest_1106.txt"))
    ap.add_argument("--puzzles", type=int, default=20)
    ap.add_argument("--chains", type=int, default=64)
    ap.add_argument("--time-limit", type=float, default=5.0, help="seconds a chain")
    add_out_arguments(ap, results("host") / "chains")
    args = ap.parse_args()
    if args.render:
        rerender(args.out, render)
        return
    write_results(args.out, measure(args), render)


if __name__ == "__main__":
    main()
