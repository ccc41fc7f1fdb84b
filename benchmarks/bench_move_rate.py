"""Proposals per second of one-cell moves in the regime the default technique runs: hard 9x9
puzzles, deduction first, the move's `auto` schedule, one thread.

`bench_throughput.py` measures the moves on a grid that never solves, hot (from T0 = e_P),
where most proposals are taken; here each chain anneals a real puzzle at its tuned
temperature, so the focused moves keep small conflict sets, as they do when solving. Every
chain runs a fixed number of plateaus (a chain that solves stops there; no restart), from the
same seeds in every run of the script, so two versions of the rules do the same proposals: the
`trajectory` hash (counters, grids and RNG states after the run) says so, and the rates then
compare the code alone. The figure is the best pass (compilation excluded) of --repeats, and
of every earlier run of the script under the same --label with the same trajectory: the
machine's speed drifts by a quarter over minutes, so versions are best compared by running them
in turn several times. Results: benchmarks/results/throughput/move_rate.{json,md}; other
labels' rows stay.

    python -m benchmarks.bench_move_rate [--file ../shared/data/sudoku/forum_hardest_1106.txt]
        [--limit 40] [--chains 4] [--plateaus 2000] [--repeats 6] [--move focused-two ...]
        [--label NAME]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shlex
import sys
import time
from pathlib import Path

import numba
import numpy as np

from benchmarks.machine import git, machine
from benchmarks.paths import results
from benchmarks.tables import table_block, write_results
from cpu_reference.sudoku import presets, rules
from cpu_reference.sudoku.batch import (
    load_puzzle,
    logic_fill,
    make_batch,
    run_slice_cpu,
)
from cpu_reference.sudoku.formats import iter_puzzles
from cpu_reference.sudoku.schedules import by_name

RESULTS = results("throughput")
STATE = ("vals", "boards", "ctr", "rng", "solved")
SCHEDULE_OF = {"candidate": "candidate-auto"}  # the preset each move is tuned with (else auto)


def measure(puzzles: list, move: str, chains: int, plateaus: int, repeats: int) -> dict:
    """Best-of-`repeats` proposals/s of `move` over every puzzle's chains, one thread."""
    order = puzzles[0].order
    filled = [logic_fill(p.cells, order) for p in puzzles]
    schedule = presets.expand(SCHEDULE_OF.get(move, "auto"), order)
    batch = make_batch(
        np.array([cells for cells, _ in filled]), order, by_name(schedule, order), chains,
        seed=7, move=rules.move_code(move, order),
    )  # fmt: skip
    for p, (cells, masks) in enumerate(filled):
        load_puzzle(batch, p, cells, batch.rng[batch.chain_slice(p), :2].copy(), masks)
    start_state = {name: getattr(batch, name).copy() for name in STATE}
    run_slice_cpu(batch, 1, stop_on_solved=False)  # compile
    seconds = []
    for _ in range(repeats):
        for name, array in start_state.items():
            getattr(batch, name)[...] = array
        start = time.perf_counter()
        run_slice_cpu(batch, plateaus, stop_on_solved=False)
        seconds.append(time.perf_counter() - start)
    proposals = int(batch.ctr[:, rules.C_PROPOSALS].sum())
    digest = hashlib.sha256(b"".join(getattr(batch, n).tobytes() for n in STATE[:4]))
    return {
        "move": move,
        "schedule": schedule,
        "proposals": proposals,
        "accepted": int(batch.ctr[:, rules.C_ACCEPTED].sum()),
        "solved_chains": int((batch.ctr[:, rules.C_STATUS] == rules.SOLVED).sum()),
        "chains": int(batch.chains),
        "best_seconds": min(seconds),
        "all_seconds": seconds,
        "proposals_per_second": proposals / min(seconds),
        "trajectory": digest.hexdigest()[:16],
    }


def render(report: dict) -> str:
    """The results file's table: one row per label and move."""
    rows = [
        [
            r["label"], r["move"], f"{r['proposals_per_second'] / 1e6:.1f}",
            f"{r['accepted'] / r['proposals']:.3f}", f"{r['solved_chains']}/{r['chains']}",
            str(len(r["all_seconds"])),
            f"`{r['trajectory']}`", r["commit"], r["date"],
        ]
        for r in report["rows"]
    ]  # fmt: skip
    header = ["label", "move", "M proposals/s", "accepted", "chains solved", "passes",
              "trajectory", "commit", "date"]  # fmt: skip
    m = report["machine"]
    lines = table_block(
        "# Move rates while solving (one thread)\n\n"
        f"Machine: {m['cpu_model']}, {m['cores']} cores. {report['setting']}",
        tuple(header), [tuple(r) for r in rows], f"Command: `{report['command']}`",
    )  # fmt: skip
    return "\n".join(lines)


def main() -> None:
    """Measure each --move and merge the rows into the results files."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", default="../shared/data/sudoku/forum_hardest_1106.txt")
    ap.add_argument("--limit", type=int, default=40)
    ap.add_argument("--chains", type=int, default=4)
    ap.add_argument("--plateaus", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=6)
    ap.add_argument("--move", action="append")
    ap.add_argument("--label", default="current")
    ap.add_argument("--out", default=str(RESULTS / "move_rate"))
    args = ap.parse_args()
    puzzles = [p for p in iter_puzzles(args.file, name=args.file) if hasattr(p, "cells")]
    puzzles = puzzles[: args.limit]
    if not puzzles:
        raise SystemExit(f"{args.file}: no puzzle")
    numba.set_num_threads(1)
    out = Path(args.out)
    kept = out.with_suffix(".json")
    old = json.loads(kept.read_text()) if kept.exists() else {}
    rows = old.get("rows", [])
    stamp = machine()
    for move in args.move or ["focused-two", "focused", "candidate"]:
        row = measure(puzzles, move, args.chains, args.plateaus, args.repeats)
        same = [r for r in rows if (r["label"], r["move"]) == (args.label, move)]
        rows = [r for r in rows if r not in same]
        alike = [r for r in same if r["trajectory"] == row["trajectory"]]
        earlier = [s for r in alike for s in r["all_seconds"]]
        row["all_seconds"] = earlier + row["all_seconds"]
        row["best_seconds"] = min(row["all_seconds"])
        row["proposals_per_second"] = row["proposals"] / row["best_seconds"]
        row.update(label=args.label, commit=git("rev-parse", "--short", "HEAD"), date=stamp["date"])
        rows.append(row)
        print(f"{args.label} {move}: {row['proposals_per_second'] / 1e6:.1f} M/s "
              f"trajectory {row['trajectory']}", flush=True)  # fmt: skip
    report = {
        "machine": stamp,
        "setting": (
            f"{Path(args.file).name}, first {len(puzzles)} puzzles, deduction first, "
            f"{args.chains} chains each, {args.plateaus} plateaus a chain under the move's "
            "auto schedule; the best pass of those run (passes)."
        ),
        "command": "python -m benchmarks.bench_move_rate " + shlex.join(sys.argv[1:]),
        "rows": rows,
    }
    write_results(out, report, render)


if __name__ == "__main__":
    main()
