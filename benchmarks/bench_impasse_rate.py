"""Moves a second of `--method impasse`'s chains against how many run, on the cores or a card.

For each count C of --chains, C fresh chains on one of bench_frontier's Lewis-style instances
(--order, --fill, --k, --seed: 36x36 at 50 %, k 0, seed 1 by default) run --slices slices of
--moves moves a chain (a slice: one launch on a card, one parallel loop over the chains on
the cores), each slice waited for; the chains' code is compiled before the clock (a 4x4 run on
the same runner). A chain that solves stops moving; the moves counted are those the chains
made. Reports the moves a second of all chains and of one chain, and the launches.

Glossary: C chains; slice, moves of every chain between two looks of the host.

Results: benchmarks/results/throughput/impasse_rate_{backend}.{json,md} (card runs: --out in
benchmarks/results/gpu/).

    python -m benchmarks.bench_impasse_rate [--backend cpu] [--chains 1,2,4] [--lanes 1]
        [--slices 5] [--moves 200000] [--order 6] [--fill 50] [--k 0] [--seed 1] [--out PATH]
        [--warp-state shared]

--lanes 32 (a card): one warp a chain (gpu_anneal.kernels.impasse_warp) in place of a thread,
its state rows in shared memory where they fit (every order up to 64x64), or with --warp-state
global in global memory.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from benchmarks.frontier_instances import make_instances
from benchmarks.machine import machine, made_by
from benchmarks.paths import results
from benchmarks.tables import add_out_arguments, int_list, rerender, table_block, write_results
from cpu_reference.anneal.trials import CpuTrials
from cpu_reference.sudoku import impasse

TEMPERATURE = 0.325  # every rate here is measured at this T, so that runs compare


def runner_of(
    backend: str, solved: np.ndarray, lanes: int = 1, order: int = 6, state: str = "shared"
):
    """A TrialRunner of the impasse chains on `backend` (the CPU one over `solved`; on a card
    one chain a thread, or a warp at 32 lanes, its state rows in `state` memory where they fit
    shared memory at this order, else in global memory)."""
    if backend == "cuda":
        from gpu_anneal.impasse_solver import runner_for

        return runner_for("cuda", lanes, order, state == "shared")[0]
    return CpuTrials(impasse.run_impasse_cpu, solved)


def measure(
    cells,
    order: int,
    chains: int,
    slices: int,
    moves: int,
    backend: str,
    lanes: int = 1,
    state: str = "shared",
) -> dict:
    """One count of chains: its moves, seconds, moves a second (all chains, one chain)."""
    args = list(impasse.chain_arrays(impasse.impasse_tables(cells, order), order, chains, 0,
                                     TEMPERATURE))  # fmt: skip
    args[impasse.SLICE_AT] = moves
    runner = runner_of(backend, args[impasse.SOLVED], lanes, order, state)
    runner.load(tuple(args))
    start = time.perf_counter()
    for _ in range(slices):
        runner.run(1)
        runner.status()  # waits for the slice
    seconds = time.perf_counter() - start
    runner.fetch()
    counts = runner.fetched()[impasse.COUNTS]
    made = int(counts[:, 0].sum())
    return {
        "chains": chains, "slices": slices, "moves_a_slice": moves, "moves": made,
        "seconds": seconds, "rate": made / seconds, "rate_a_chain": made / seconds / chains,
        "solved_chains": int(np.count_nonzero(runner.fetched()[impasse.SOLVED])),
        "launches": getattr(runner, "launches", None),
    }  # fmt: skip


def compile_first(backend: str, lanes: int = 1, order: int = 6, state: str = "shared") -> float:
    """Seconds to compile (or load) the chains' code for the backend: a 4x4 run."""
    start = time.perf_counter()
    runner = runner_of(backend, None, lanes, order, state) if backend == "cuda" else None
    impasse.compile_chains(runner)
    return time.perf_counter() - start


def render(result: dict) -> str:
    """The markdown report of one run."""
    a = result["args"]
    rows = [(f"{r['chains']:,}", f"{r['moves']:,}", f"{r['seconds']:.3g}",
             f"{r['rate'] / 1e6:.3g}", f"{r['rate_a_chain'] / 1e6:.3g}",
             str(r["solved_chains"])) for r in result["rows"]]  # fmt: skip
    m = result["machine"]
    lanes = ""
    if result["backend"] == "cuda" and a.get("lanes", 1) > 1:
        lanes = f", {a['lanes']} lanes a chain"
        if "warp_state" in a:
            lanes += f", state in {a['warp_state']} memory"
    head = (
        f"# --method impasse: moves a second against chains ({result['backend']}{lanes})\n\n"
        f"Made by `{result['command']}` at {result['commit'] or '?'}: instance "
        f"{result['instance']} ({a['order'] ** 2}x{a['order'] ** 2}, {a['fill']} % filled), "
        f"held at T = {TEMPERATURE:g}, {a['slices']} slices of {a['moves']:,} moves a chain, each "
        f"waited for; compiling ({result['compile_seconds']:.3g} s) before the clock. "
        f"{m.get('cpu_model')}, {m.get('cores')} cores, {m.get('date')}; load average "
        f"{', '.join(f'{x:.1f}' for x in m.get('load_average') or [])} at the start.\n"
    )
    table = table_block(
        "## Rates", ("chains", "moves", "seconds", "M moves/s", "M moves/s a chain", "solved"),
        rows, "A solved chain stops moving: its moves end where it solved.",
    )  # fmt: skip
    return "\n".join([head, *table])


def add_run_arguments(ap, slices: int = 5, k: int = 0) -> None:
    """The flags that pick the instance and the run's length: --slices, --moves, --order,
    --fill, --k, --seed (bench_frontier's instances)."""
    ap.add_argument("--slices", type=int, default=slices)
    ap.add_argument("--moves", type=int, default=200_000, help="moves a chain a slice")
    ap.add_argument("--order", type=int, default=6)
    ap.add_argument("--fill", type=int, default=50)
    ap.add_argument("--k", type=int, default=k, help="which instance of the seed")
    ap.add_argument("--seed", type=int, default=1, help="instances' seed (bench_frontier's)")


def check_run_arguments(ap, args) -> None:
    """add_run_arguments' flags in range, else one usage line (ap.error)."""
    if args.slices < 1 or args.moves < 1 or args.k < 0:
        ap.error("--slices and --moves must be 1 or more, --k 0 or more")
    if not 2 <= args.order <= 8 or not 0 <= args.fill <= 100:
        ap.error("--order must be 2..8, --fill a percentage")


def run_instance(args):
    """The instance add_run_arguments' flags pick (an Instance of benchmarks.frontier_instances)."""
    return make_instances([args.order], [args.fill], args.k + 1, args.seed)[args.k]


def parse_args(argv):
    """The command line; a bad value is one line and exit code 2."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument(
        "--chains", type=int_list, default="1,2", help="chain counts, e.g. 1024,4096,16384"
    )
    add_run_arguments(ap)
    ap.add_argument("--lanes", type=int, default=1, choices=(1, 32),
                    help="threads a chain on a card: 1, or 32 (a warp)")  # fmt: skip
    ap.add_argument("--warp-state", default="shared", choices=("shared", "global"),
                    help="at 32 lanes, a chain's state rows in shared memory (where they fit) "
                         "or in global memory")  # fmt: skip
    add_out_arguments(ap, None)
    args = ap.parse_args(argv)
    if min(args.chains) < 1:
        ap.error("--chains must be 1 or more")
    check_run_arguments(ap, args)
    if args.lanes > 1 and args.backend != "cuda":
        ap.error("--lanes 32 runs on a card: give --backend cuda")
    if args.out in (None, "None"):
        args.out = str(results("throughput") / f"impasse_rate_{args.backend}")
    return args


def main(argv: list[str] | None = None) -> int:
    """Measure every chain count, write the results files."""
    args = parse_args(argv)
    if args.render:
        rerender(args.out, render)
        return 0
    facts = machine()
    inst = run_instance(args)
    compile_s = compile_first(args.backend, args.lanes, args.order, args.warp_state)
    rows = []
    for chains in args.chains:
        row = measure(np.asarray(inst.cells, np.uint8), args.order, chains, args.slices,
                      args.moves, args.backend, args.lanes, args.warp_state)  # fmt: skip
        rows.append(row)
        print(row, flush=True)
    result = {
        **made_by("bench_impasse_rate", argv), "machine": facts, "backend": args.backend,
        "instance": inst.name, "compile_seconds": compile_s,
        "args": vars(args), "rows": rows,
    }  # fmt: skip
    write_results(args.out, result, render)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
