"""The host side of a card's run, measured with no card: puzzles a second the host takes in and
gives out while a stand-in runner (gpu_anneal.standin) plays the kernel.

A run reads N random isomorphs of a hard 9x9 set (forum_hardest_1106 by default, fixed seed)
from a file through `gpu_anneal.solve_stream` with the default technique on the `cuda` backend,
whose pool is planned for a described card (H100 SXM), and writes every result as a JSON line
to a file, as `gpu-anneal solve FILE --out R` does. The stand-in reports each puzzle solved
after --slices slices with its known solution (solved beforehand by the exact solver, outside
the clock), so everything measured is host work: reading, deduction, tables and refills,
status handling, verification, result records and JSON. Compilation is done by a warm-up run
first and is not timed.

The pool's batched host work (deduction, tables, verification: gpu_anneal.host_cores) runs on
1, 2 and all the machine's cores in turn (--cores); each count is one timed run of the same
puzzles. The machine's load average is printed beside the figures: on a shared machine they
move with it.

    python -m benchmarks.bench_host [--puzzles 6000] [--slices 2] [--cores 1,2,all]
        [--label NAME] [--json] [--file ../shared/data/sudoku/forum_hardest_1106.txt]
        [--profile [--sort tottime]]

The last line printed is a JSON object with `puzzles_per_second` and `host_us_per_puzzle` (the
last count of --cores: all cores by default), `by_cores` (each count's puzzles a second) and
`load_average`; --label NAME also merges the row into benchmarks/results/host/host.{json,md}
(other labels stay).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import gpu_anneal
from benchmarks.isomorphs import isomorphs, line
from benchmarks.machine import git, machine
from benchmarks.paths import SUDOKU_DATA, results
from benchmarks.tables import add_out_arguments, table_block, write_results
from cpu_reference.sudoku.batch import logic_fill
from cpu_reference.sudoku.exact import solve_exact
from cpu_reference.sudoku.formats import read_puzzles
from gpu_anneal import backends, host_cores, plan, sudoku_solver
from gpu_anneal.standin import StandInRunner

RESULTS = results("host")
DEFAULT_FILE = SUDOKU_DATA / "forum_hardest_1106.txt"
CARD = "H100 SXM"


def base_set(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """The file's 9x9 puzzles and their solutions (exact solver, first solution)."""
    puzzles = np.stack([p.cells for p in read_puzzles(str(path)) if p.order == 3])
    solutions = np.zeros_like(puzzles)
    for k, cells in enumerate(puzzles):
        count, solution, _ = solve_exact(cells, 3, limit=1)
        if count < 1:
            raise SystemExit(f"{path}: puzzle {k} has no solution")
        solutions[k] = solution
    return puzzles, solutions


def solution_table(puzzles: np.ndarray, solutions: np.ndarray) -> dict[bytes, np.ndarray]:
    """Solutions keyed by the givens as the pool loads them: raw, and after deduction."""
    table = {}
    for cells, solution in zip(puzzles, solutions, strict=True):
        table[cells.tobytes()] = solution
        table[logic_fill(cells, 3)[0].tobytes()] = solution
    return table


def stand_in(table: dict, slices: int) -> None:
    """Make the `cuda` backend run the stand-in on a described card, in this process."""
    backends.cuda_status = lambda: (True, f"stand-in runner on a described {CARD}")
    plan.current_card = lambda: plan.card_named(CARD)
    sudoku_solver.make_runner = lambda batch, used, seed: StandInRunner(batch, seed, table, slices)


def run(path: Path, out: Path) -> tuple[int, int, float]:
    """(puzzles, solved, seconds) of one solve of `path` writing JSON lines to `out`."""
    count = solved = 0
    start = time.perf_counter()
    with open(out, "w") as sink:
        for result in gpu_anneal.solve_stream(str(path), backend="cuda"):
            sink.write(result.to_json() + "\n")
            count += 1
            solved += result.solved
    return count, solved, time.perf_counter() - start


def core_counts(text: str) -> list[int]:
    """The thread counts of --cores ("1,2,all": all is os.cpu_count()), duplicates dropped."""
    counts: list[int] = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        n = (os.cpu_count() or 1) if part == "all" else int(part) if part.isdigit() else 0
        if n < 1:
            raise SystemExit(f"--cores: {part!r} is not a positive integer or 'all'")
        if n not in counts:
            counts.append(n)
    if not counts:
        raise SystemExit("--cores: no count given")
    return counts


def measure(args) -> dict:
    """One measurement: warm-up, then one timed run of --puzzles isomorphs a core count."""
    base, base_solutions = base_set(Path(args.file))
    puzzles, solutions = isomorphs(base, args.puzzles, args.seed, base_solutions)
    stand_in(solution_table(puzzles, solutions), args.slices)
    by_cores: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        warm, timed = Path(tmp) / "warm.txt", Path(tmp) / "puzzles.txt"
        warm.write_text("".join(line(p) + "\n" for p in puzzles[:50]))
        timed.write_text("".join(line(p) + "\n" for p in puzzles))
        run(warm, Path(tmp) / "warm.jsonl")
        for cores in core_counts(args.cores):
            profiler = cProfile.Profile() if args.profile else None
            if profiler:
                profiler.enable()
            with host_cores.using(cores):
                count, solved, seconds = run(timed, Path(tmp) / "results.jsonl")
            if profiler:
                profiler.disable()
                pstats.Stats(profiler, stream=sys.stderr).sort_stats(args.sort).print_stats(40)
            if count != args.puzzles or solved != count:
                want = args.puzzles
                raise SystemExit(f"{count} results, {solved} solved: expected {want} solved")
            by_cores[str(cores)] = round(count / seconds, 1)
            if not args.json:
                print(f"{cores} cores: {count / seconds:,.0f} puzzles/s ({seconds:.3f} s)")
    return {
        "puzzles": count,
        "slices_per_puzzle": args.slices,
        "seconds": round(seconds, 4),
        "puzzles_per_second": round(count / seconds, 1),
        "host_us_per_puzzle": round(1e6 * seconds / count, 2),
        "by_cores": by_cores,
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def render(result: dict) -> str:
    """The results file's markdown: one row per label."""
    rows = [
        (label, f"{r['puzzles']:,}", str(r["slices_per_puzzle"]), f"{r['seconds']:.2f}",
         f"{r['puzzles_per_second']:,.0f}", f"{r['host_us_per_puzzle']:.1f}",
         ", ".join(f"{k}: {v:,.0f}" for k, v in r.get("by_cores", {}).items()) or "-",
         " ".join(f"{x:g}" for x in r.get("load_average", [])) or "-", r["commit"])
        for label, r in result["rows"].items()
    ]  # fmt: skip
    head = ("label", "puzzles", "slices a puzzle", "seconds", "puzzles/s", "host us a puzzle",
            "puzzles/s by host threads", "load average (1, 5, 15 min)", "commit")  # fmt: skip
    return "\n".join(
        ["# Host side of a card's run (stand-in runner, no kernel)", ""]
        + table_block(
            f"`{result['command']}` on {result['machine'].get('cpu', '?')}, "
            f"{result['machine'].get('cores', '?')} cores:",
            head,
            rows,
            "Default technique, `cuda` backend planned for a described H100 SXM; every result "
            "verified and written as a JSON line; compilation excluded (warm-up run first).",
        )
    )


def main() -> None:
    """Run the benchmark: parse the command line, measure, write the results."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--file", default=str(DEFAULT_FILE), help="base 9x9 set")
    ap.add_argument("--puzzles", type=int, default=6000)
    ap.add_argument("--slices", type=int, default=2, help="slices until a puzzle solves")
    ap.add_argument("--seed", type=int, default=0, help="seed of the isomorphs")
    ap.add_argument("--cores", default="1,2,all", help="host threads of each timed run")
    ap.add_argument("--label", default=None, help="merge the row into the results file")
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    ap.add_argument("--profile", action="store_true", help="cProfile of the timed run")
    ap.add_argument("--sort", default="cumulative", help="--profile's order (pstats key)")
    add_out_arguments(ap, RESULTS / "host")
    args = ap.parse_args()
    row = measure(args)
    if args.label:
        out = Path(args.out)
        previous = out.with_suffix(".json")
        old = json.loads(previous.read_text()) if previous.exists() else {"rows": {}}
        command = (
            f"python -m benchmarks.bench_host --puzzles {args.puzzles} "
            f"--slices {args.slices} --cores {args.cores}"
        )
        old["rows"][args.label] = {**row, "commit": git("rev-parse", "--short", "HEAD")}
        result = {"command": command, "machine": machine(), "rows": old["rows"]}
        if args.json:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n")
            out.with_suffix(".md").write_text(render(result))
        else:
            write_results(out, result, render)
    print(json.dumps(row))


if __name__ == "__main__":
    main()
