"""The impasse chains' CPU runner (impasse.run_impasse_cpu: the slice inlined into its
parallel loop) against the same slice called from the loop, interleaved in one process.

Both runners take the same chains on one of bench_frontier's Lewis-style instances (--order,
--fill, --k, --seed: 36x36 at 50 %, k 4, seed 1 by default) through --slices slices of --moves
moves a chain, --reps times each, alternating which goes first; every pair of runs must end
in the same chains (RNG states, grids, best grids, counts), else the run stops. This
machine's speed drifts from minute to minute, so a rate is compared with the other runner's
next to it rather than with a run made at another time. Reports each runner's moves a second
over the repetitions (mean, lowest, highest) and the ratio of the means.

Glossary: C chains; slice, moves of every chain between two looks of the host; rep, one run
of each runner.

Results: benchmarks/results/throughput/impasse_inline.{json,md} (--out).

    python -m benchmarks.bench_impasse_inline [--chains 1,2] [--reps 8] [--slices 40]
        [--moves 200000] [--order 6] [--fill 50] [--k 4] [--seed 1] [--out PATH]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from numba import njit, prange

from benchmarks.bench_impasse_rate import (
    TEMPERATURE,
    add_run_arguments,
    check_run_arguments,
    run_instance,
)
from benchmarks.machine import machine, made_by
from benchmarks.paths import results
from benchmarks.tables import add_out_arguments, int_list, made_sentence, rerender, table_block
from benchmarks.tables import write_results as write_files
from cpu_reference.sudoku import impasse

OUT = results("throughput") / "impasse_inline"
RUNNERS = ("slice called", "slice inlined")


@njit(parallel=True, nogil=True)
def run_called(states, *args):
    """One slice on every chain, impasse_slice called from each prange iteration."""
    for i in prange(states.shape[0]):
        impasse.impasse_slice(i, states, *args)


def timed(runner, tables, order: int, chains: int, slices: int, moves: int):
    """Fresh chains (chains' seed 1) through `slices` slices of `moves` moves: (their arrays,
    moves a second of all chains)."""
    args = list(impasse.chain_arrays(tables, order, chains, 1, TEMPERATURE))
    args[impasse.SLICE_AT] = moves
    start = time.perf_counter()
    for _ in range(slices):
        runner(*args)
    return args, args[impasse.COUNTS][:, 0].sum() / (time.perf_counter() - start)


def compare(tables, order: int, chains: int, reps: int, slices: int, moves: int) -> dict:
    """Both runners `reps` times each on `chains` chains, interleaved: each runner's rates (M
    moves a second); AssertionError where a pair of runs ends in different chains."""
    runners = dict(zip(RUNNERS, (run_called, impasse.run_impasse_cpu), strict=True))
    for runner in runners.values():  # compiled before any clock
        timed(runner, tables, order, chains, 1, 10)
    rates: dict[str, list[float]] = {name: [] for name in RUNNERS}
    for rep in range(reps):
        names = RUNNERS if rep % 2 == 0 else RUNNERS[::-1]
        ends = {}
        for name in names:
            ends[name], rate = timed(runners[name], tables, order, chains, slices, moves)
            rates[name].append(rate / 1e6)
        a, b = (ends[name] for name in RUNNERS)
        assert all(np.array_equal(a[k], b[k]) for k in range(impasse.WEIGHTS)), "moves differ"
    return {"chains": chains, "rates": rates}


def render(result: dict) -> str:
    """The markdown report of one run."""
    a = result["args"]
    lines = [
        "# --method impasse: the CPU runner's slice inlined against called", "",
        made_sentence(result) + f" Instance {result['instance']}, held at T = {TEMPERATURE}; "
        f"{a['slices']} slices of {a['moves']:,} moves a chain a run, {a['reps']} runs of "
        "each runner, interleaved; every pair of runs ended in the same chains.", "",
    ]  # fmt: skip
    header = ("chains", *(f"{name}: M moves/s (lowest-highest)" for name in RUNNERS),
              "inlined / called")  # fmt: skip
    rows = []
    for row in result["rows"]:
        means = [statistics.mean(row["rates"][name]) for name in RUNNERS]
        cells = [f"{m:.1f} ({min(row['rates'][n]):.1f}-{max(row['rates'][n]):.1f})"
                 for m, n in zip(means, RUNNERS, strict=True)]  # fmt: skip
        rows.append((str(row["chains"]), *cells, f"{means[1] / means[0]:.2f}"))
    tail = "Moves a second of all chains, mean over the runs; the ratio is of the means."
    lines += table_block("## Rates", header, rows, tail)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Parse the flags, compare the runners at each chain count, write the results files."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chains", type=int_list, default="1,2", help="chain counts, comma-separated")
    ap.add_argument("--reps", type=int, default=8)
    add_run_arguments(ap, slices=40, k=4)
    add_out_arguments(ap, OUT)
    args = ap.parse_args(argv)
    if args.render:
        rerender(args.out, render)
        return 0
    if min(args.chains) < 1 or args.reps < 1:
        ap.error("--chains and --reps must be 1 or more")
    check_run_arguments(ap, args)
    facts = machine()
    inst = run_instance(args)
    tables = impasse.impasse_tables(np.asarray(inst.cells, np.uint8), args.order)
    if tables is None:
        ap.error(f"{inst.name}: deduction finds no solution")
    rows = [compare(tables, args.order, c, args.reps, args.slices, args.moves) for c in args.chains]
    settings = {k: vars(args)[k] for k in ("reps", "slices", "moves")}
    result = {**made_by("bench_impasse_inline", argv), "machine": facts, "instance": inst.name,
              "args": settings, "rows": rows}  # fmt: skip
    write_files(args.out, result, render)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
