"""Time to solution (TTS99) of several schedules and moves, on a training set.

For the `auto` preset: each candidate schedule runs the same puzzles (the first --limit of a
file that the reported benchmarks do not use, magictour_top1465 by default, or those after the
first --skip of a file whose first ones they do use) with --runs
independent one-chain runs each, with each --move (candidate by default) and (by default)
propagation first, as `gpu-anneal bench tts` measures them. The table gives the median and p90
TTS99 of one core per move and schedule, best first (infinite, printed "inf", where no run of a
puzzle solved). Results: benchmarks/results/tuning/sweep_tts_NxN.{json,md}.

    python -m benchmarks.bench_tts_sweep [--file ../shared/data/sudoku/magictour_top1465.txt]
        [--skip 0] [--limit 30] [--runs 10] [--schedule S ...] [--move M ...]
        [--case MOVE@SCHEDULE ...]   (pairs instead of every move with every schedule)
        [--lewis ORDER:FILL:COUNT:SEED]   (instances made as bench_frontier makes them, in
                                           place of --file: a seed bench_frontier's tables
                                           do not use keeps them training instances)
        [--probe]   (deduction probes every candidate after the rules: benchmarks/probing.py)
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from contextlib import nullcontext
from pathlib import Path

from benchmarks.frontier_instances import lewis_spec, make_instances
from benchmarks.machine import machine
from benchmarks.paths import SUDOKU_DATA, results
from benchmarks.probing import probing_deduction
from benchmarks.tables import table_block
from cpu_reference.sudoku.formats import iter_puzzles
from cpu_reference.sudoku.schedules import with_start
from gpu_anneal.tts import finite_or_none, measure_puzzle, summarize

RESULTS = results("tuning")
CANDIDATES = (
    "candidate-auto",
    "sirdey-course:t0=0.5",
    "sirdey-course:t0=1,max_plateaus=4000",
    "sirdey-course:t0=0.5,max_plateaus=4000",
    "sirdey-course:t0=0.34,stall=0,max_plateaus=20000",
    "sirdey-course:t0=0.34,stall=0,max_plateaus=5000",
)


def lewis_instances(spec: str) -> list:
    """The instances ``ORDER:FILL:COUNT:SEED`` names, made as bench_frontier makes them."""
    order, fill, count, seed = lewis_spec(spec)
    return make_instances([order], [fill], count, seed)


def training_puzzles(args: argparse.Namespace) -> list:
    """The puzzles a sweep runs: --lewis's instances, else --file's after --skip."""
    if args.lewis:
        return lewis_instances(args.lewis)[args.skip : args.skip + args.limit]
    puzzles = [p for p in iter_puzzles(args.file, name=args.file) if hasattr(p, "cells")]
    return puzzles[args.skip : args.skip + args.limit]


def sweep(args: argparse.Namespace) -> dict:
    """Every candidate on the same puzzles, one after the other."""
    puzzles = training_puzzles(args)
    order = puzzles[0].order
    rows = []
    moves = args.move or ["candidate"]
    cases = [(m, s) for m in moves for s in args.schedule or CANDIDATES]
    if args.case:
        for case in args.case:
            if "@" not in case:
                raise SystemExit(f"--case {case!r}: expected MOVE@SCHEDULE")
        cases = [tuple(case.split("@", 1)) for case in args.case]
        moves = list(dict.fromkeys(m for m, _ in cases))
    for move, schedule in cases:
        start = time.perf_counter()
        measured = [
            measure_puzzle(
                p.cells,
                order,
                runs=args.runs,
                schedule=with_start(schedule, order, None),
                move=move,
                seed=args.skip + index,
                time_limit=args.time_limit,
                propagate=not args.no_propagate,
                index=args.skip + index,
            )  # fmt: skip
            for index, p in enumerate(puzzles)
        ]
        summary = finite_or_none(summarize(measured))
        wall = time.perf_counter() - start
        rows.append({"schedule": schedule, "move": move, "wall_seconds": wall, **summary})
        print(f"{move} {schedule}: median TTS99 {summary['tts99_median']} s", file=sys.stderr)
    return {
        "machine": machine(), "file": f"lewis {args.lewis}" if args.lewis else str(args.file),
        "order": order, "puzzles": len(puzzles),
        "skip": args.skip,
        "runs": args.runs, "move": " and ".join(moves), "propagate": not args.no_propagate,
        "probe": args.probe,
        "time_limit": args.time_limit, "rows": rows,
        "command": "python -m benchmarks.bench_tts_sweep " + " ".join(sys.argv[1:]),
    }  # fmt: skip


def render(result: dict) -> str:
    """The markdown table of a sweep, best median first."""
    m = result["machine"]
    skip = result.get("skip", 0)
    which = (
        f"puzzles {skip + 1}-{skip + result['puzzles']}"
        if skip
        else f"first {result['puzzles']} puzzles"
    )
    how = f"{result['move']} move" + (", deduction first" if result["propagate"] else "")
    if result.get("probe"):
        how += ", every candidate probed after the rules"
    title = (
        f"# TTS99 by schedule: {Path(result['file']).name}, {which}\n\n"
        f"Machine: {m['cpu_model']}, {m['cores']} cores, load average at start "
        f"{m['load_average_at_start']:.2f}, {m['date']}. {how}; {result['runs']} one-chain runs "
        f"per puzzle, {result['time_limit']:g} s each; TTS99 in seconds of one core."
    )
    header = ("move", "schedule", "median TTS99 s", "p90 s", "p (median)", "s per trial (median)",
              "solved any")  # fmt: skip

    def sec(x) -> str:
        return "inf" if x is None else f"{x:.3f}"

    cells = [
        (r.get("move", result["move"]), f"`{r['schedule']}`", sec(r["tts99_median"]),
         sec(r["tts99_p90"]), f"{r['p_median']:.3f}", f"{r['seconds_per_trial_median']:.4f}",
         f"{r['solved_any']}/{r['puzzles']}")
        for r in sorted(result["rows"], key=lambda r: r["tts99_median"] or math.inf)
    ]  # fmt: skip
    foot = f"Command: `{result['command']}`"
    if result.get("schedule_note"):
        foot += f"\n\nNote: {result['schedule_note']}."
    return "\n".join(table_block(title, header, cells, foot))


def main() -> None:
    """Parse the flags, run the sweep, write the JSON and markdown results."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", type=Path, default=SUDOKU_DATA / "magictour_top1465.txt")
    ap.add_argument("--skip", type=int, default=0, help="puzzles skipped at the file's start")
    ap.add_argument("--limit", type=int, default=30, help="puzzles of the file after --skip")
    ap.add_argument("--runs", type=int, default=10, help="one-chain runs per puzzle")
    ap.add_argument("--move", action="append", help="a move (repeat; default: candidate)")
    ap.add_argument("--no-propagate", action="store_true", help="anneal the puzzle as given")
    ap.add_argument("--time-limit", type=float, default=30.0, help="seconds per run")
    ap.add_argument("--schedule", action="append", help="a candidate (repeat; default: a set)")
    ap.add_argument("--case", action="append", help="MOVE@SCHEDULE (repeat): these pairs instead")
    ap.add_argument(
        "--lewis", default=None, help="ORDER:FILL:COUNT:SEED: bench_frontier's instances instead"
    )
    ap.add_argument("--out", type=Path, default=None, help="results path without suffix")
    ap.add_argument(
        "--probe", action="store_true", help="deduction probes every candidate after the rules"
    )
    args = ap.parse_args()
    if args.probe and args.no_propagate:
        raise SystemExit("--probe: probing follows the deduction rules; drop --no-propagate")
    with probing_deduction() if args.probe else nullcontext():
        result = sweep(args)
    out = args.out or RESULTS / f"sweep_tts_{result['order'] ** 2}x{result['order'] ** 2}"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(result, indent=1, allow_nan=False) + "\n")
    out.with_suffix(".md").write_text(render(result))
    print(render(result))


if __name__ == "__main__":
    main()
