"""Sirdey's table reproduced: mean trials on the paper's four grids, both parameter sets.

The paper prints only the solutions of its four "diabolical" grids (tables I-IV, 23, 26, 25 and
24 givens; the boxed givens were lost). Each solution is emptied at random, keeping the solution
unique, down to the paper's number of givens; then R runs of one chain each measure the
success probability per trial and the mean trials to solve, with the course schedule
(T0 = 810) and the paper's (e_P = 16202), Sirdey's move. The seed 002 grids are measured too.

Stall rule (abandon a trial after so many plateaus without a new best cost), `--stall`:
    scaled   the schedule's default: 10,000 plateaus scaled by (e_P + 1) / 811 (199,790 for the
             paper's e_P = 16202, 10,000 for the course's e_P = 810)
    literal  10,000 plateaus whatever e_P ("NAME:stall=10000"), the figure the paper gives with
             e_P = 16202; a schedule whose default is already 10,000 is skipped (same schedule)

Each call is one measurement (its machine, command and rows). Without `--add` it replaces
benchmarks/results/anneal/paper.json; with `--add` it is appended to the measurements already there.
The markdown (benchmarks/results/anneal/paper.md) is rendered from the whole JSON every time;
`--markdown-only` renders it without measuring.

    python -m benchmarks.bench_paper [--runs 20] [--time-limit 60] [--stall scaled|literal]
        [--grids all|paper] [--add] [--markdown-only]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.machine import machine
from benchmarks.paths import ROOT, results
from cpu_reference.sudoku.exact import solve_exact
from cpu_reference.sudoku.format_writer import format_grid
from cpu_reference.sudoku.formats import read_puzzles
from cpu_reference.sudoku.schedules import PAPER_EP_9X9, by_name, course_e_p
from gpu_anneal.tts import clopper_pearson, measure_puzzle

PAPER_TRIALS = {23: 7.69, 26: 2.28, 25: 3.85, 24: 2.38}
SCHEDULES = ("sirdey-course", "sirdey-paper")
STALL_LITERAL = 10_000  # the paper's "typiquement 10 000" plateaus, stated with e_P = 16202
OUT = results("anneal") / "paper"


def empty_to(solution: np.ndarray, givens: int, seed: int, tries: int = 200) -> np.ndarray:
    """A puzzle with exactly `givens` givens whose only solution is `solution`."""
    rng = np.random.default_rng(seed)
    for _ in range(tries):
        puzzle = solution.copy()
        for c in rng.permutation(81):
            if np.count_nonzero(puzzle) == givens:
                return puzzle
            keep = puzzle[c]
            puzzle[c] = 0
            if solve_exact(puzzle, 3, limit=2)[0] != 1:
                puzzle[c] = keep
    raise RuntimeError(f"no unique puzzle with {givens} givens found in {tries} tries")


def schedule_string(base: str, stall: str) -> str:
    """The schedule as solve_batch takes it: the base name, with stall=10000 when literal."""
    return base if stall == "scaled" else f"{base}:stall={STALL_LITERAL}"


def build_puzzles(seed: int, grids: str) -> list[dict]:
    """The paper's four grids (emptied from its solutions), then the seed 002 grids if "all"."""
    solutions = read_puzzles(ROOT / "tests/data/sirdey_paper_solutions.txt")
    puzzles = []
    for i, (sol, givens) in enumerate(zip(solutions, (23, 26, 25, 24), strict=True)):
        cells = empty_to(sol.cells, givens, seed + i)
        puzzles.append({"name": f"table {'I II III IV'.split()[i]}", "givens": givens,
                        "paper_mean_trials": PAPER_TRIALS[givens],
                        "puzzle": format_grid(cells, 3, "line"), "cells": cells})  # fmt: skip
    if grids == "all":
        for p in read_puzzles(ROOT / "tests/data/seed002_grids.txt"):
            puzzles.append({"name": f"seed 002 {p.name}", "givens": p.givens,
                            "paper_mean_trials": None, "puzzle": format_grid(p.cells, 3, "line"),
                            "cells": p.cells})  # fmt: skip
    return puzzles


def measure(args: argparse.Namespace, command: str) -> dict:
    """One measurement: every grid under every schedule of `args`, with the machine's facts."""
    puzzles = build_puzzles(args.seed, args.grids)
    facts = machine()
    rows, skipped = [], []
    started = time.time()
    for base in SCHEDULES:
        name = schedule_string(base, args.stall)
        sched = by_name(name, 3)
        if args.stall == "literal" and by_name(base, 3).stall == sched.stall:
            skipped.append({"schedule": base, "stall_plateaus": sched.stall, "e_p": sched.e_p})
            print(f"{base}: its default stall is already {sched.stall}, not measured again")
            continue
        for j, p in enumerate(puzzles):
            r = measure_puzzle(p["cells"], 3, runs=args.runs, schedule=name,
                               seed=args.seed + 100 * j, time_limit=args.time_limit)  # fmt: skip
            rows.append({"schedule": name, "base_schedule": base, "stall_mode": args.stall,
                         "stall_plateaus": sched.stall, "e_p": sched.e_p, "name": p["name"],
                         "givens": p["givens"], "puzzle": p["puzzle"],
                         "paper_mean_trials": p["paper_mean_trials"], **r.as_dict()})  # fmt: skip
            print(f"{name} {p['name']}: solved {r.solved_runs}/{r.runs}, mean trials "
                  f"{r.mean_trials:.2f}, p in [{r.p_low:.3f}, {r.p_high:.3f}], "
                  f"{r.seconds_per_trial:.3f} s/trial", flush=True)  # fmt: skip
    facts["load_average_at_end"] = list(os.getloadavg())
    return {"machine": facts, "command": command, "stall": args.stall, "grids": args.grids,
            "runs": args.runs, "time_limit": args.time_limit, "seed": args.seed,
            "wall_seconds": time.time() - started, "skipped": skipped, "rows": rows}  # fmt: skip


def check_same_puzzles(measurements: list[dict]) -> None:
    """Every measurement must have run the same puzzle under each grid name."""
    seen: dict[str, str] = {}
    for m in measurements:
        for r in m["rows"]:
            if seen.setdefault(r["name"], r["puzzle"]) != r["puzzle"]:
                raise SystemExit(f"paper.json: grid {r['name']!r} differs between measurements")


def trial_range(row: dict) -> tuple[float, float]:
    """The 95 % range of mean trials: 1/p over p's Clopper-Pearson interval (inf when p_low = 0)."""
    lo = 1 / row["p_high"] if row["p_high"] else math.inf
    hi = 1 / row["p_low"] if row["p_low"] else math.inf
    return lo, hi


def excludes_paper(row: dict) -> bool:
    """Whether the row's 95 % range of mean trials leaves out the paper's figure."""
    lo, hi = trial_range(row)
    return not lo <= row["paper_mean_trials"] <= hi


def _number(x: float) -> str:
    return f"{x:.2f}" if math.isfinite(x) else "inf"


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def schedule_label(row: dict) -> str:
    """The schedule string with its stall plateaus: "sirdey-paper (stall 199,790)"."""
    return f"{row['schedule']} (stall {row['stall_plateaus']:,})"


def exclusion_sentences(measurements: list[dict]) -> list[str]:
    """Per schedule: which of the paper's grids have a 95 % range that excludes its figure."""
    by_schedule: dict[str, list[dict]] = {}
    for m in measurements:
        for r in m["rows"]:
            if r["paper_mean_trials"] is not None:
                by_schedule.setdefault(schedule_label(r), []).append(r)
    lines = []
    for label, rows in by_schedule.items():
        out = [r for r in rows if excludes_paper(r)]
        kept = [r["name"] for r in rows if not excludes_paper(r)]
        shown = [
            f"{r['name']} ({'-'.join(map(_number, trial_range(r)))} vs {r['paper_mean_trials']})"
            for r in out
        ]
        text = f"- {label}: {len(out)} of {len(rows)} ranges exclude the paper's figure"
        text += f": {_join(shown)}" if shown else ""
        text += f"; {_join(kept)} include{'s' if len(kept) == 1 else ''} it." if kept else "."
        lines.append(text)
    return lines


def _paper_rows(m: dict, base: str) -> list[dict]:
    return [r for r in m["rows"] if r["base_schedule"] == base and r["paper_mean_trials"]]


def commentary(measurements: list[dict]) -> list[str]:
    """The text under the tables, every figure in it computed from the measurements."""
    lines = [
        "Where a range excludes the paper's figure, by schedule (grid: our 95 % range vs the "
        "paper's mean trials):",
        "",
        *exclusion_sentences(measurements),
        "",
        "Our puzzles are not the paper's: its boxed givens were lost in the text, so each of our "
        "puzzles is a random emptying of the paper's solution to its number of givens, and "
        "difficulty for annealing varies a lot between puzzles with the same count. The paper "
        f'(seed 001) proposes the stall rule as an optional stop, "typically {STALL_LITERAL:,}" '
        f"plateaus, in the text that sets e_P = {PAPER_EP_9X9}, and does not say whether its "
        f"table used it; the course page (seed 000, e_P = {course_e_p(3)}) has no stall rule.",
    ]
    for i, m in enumerate(measurements, 1):
        course, paper = _paper_rows(m, "sirdey-course"), _paper_rows(m, "sirdey-paper")
        if m["stall"] == "scaled" and course and paper:
            ratio = np.mean([r["seconds_per_trial"] for r in paper]) / np.mean(
                [r["seconds_per_trial"] for r in course]
            )
            solved = sum(r["solved_runs"] for r in paper)
            trials = sum(r["trials"] for r in paper)
            lines += [
                "",
                f"Measurement {i}: with the paper's slower cooling (e_P = {paper[0]['e_p']:g}) and "
                f"the scaled stall rule ({paper[0]['stall_plateaus']:,} plateaus), a trial costs "
                f"{ratio:.1f} times the course schedule's on the paper's grids (mean s per trial), "
                f"and {solved} of {trials} trials solved.",
            ]
        if m["stall"] == "literal" and paper:
            solved = sum(r["solved_runs"] for r in paper)
            runs = sum(r["runs"] for r in paper)
            trials = sum(r["trials"] for r in paper)
            p_high = clopper_pearson(solved, trials)[1]
            lines += [
                "",
                f"Measurement {i}: with the stall rule taken literally "
                f"({paper[0]['stall_plateaus']:,} plateaus at e_P = {paper[0]['e_p']:g}, "
                f"schedule `{paper[0]['schedule']}`), {solved} of {runs} runs on the paper's "
                f"{len(paper)} grids solved, {solved} of {trials} trials in all (per-trial success "
                f"probability at most {p_high:.4f} at 95 %).",
            ]
        for s in m.get("skipped", []):
            lines += [
                "",
                f"Measurement {i}: {s['schedule']} is not measured again with the literal stall "
                f"rule: its default stall is already {s['stall_plateaus']:,} plateaus "
                f"(e_P = {s['e_p']:g}), so its scaled rows are the literal ones.",
            ]
    cpus = sorted({m["machine"]["cpu"] for m in measurements})
    if len(cpus) > 1:
        lines += [
            "",
            f"The measurements ran on different CPUs ({'; '.join(cpus)}): compare seconds per "
            "trial within one measurement only.",
        ]
    return lines


def table(m: dict) -> list[str]:
    """One measurement: its machine line, its rows as a markdown table, its command."""
    f = m["machine"]
    end = f" at start, {f['load_average_at_end']} at end" if "load_average_at_end" in f else ""
    lines = [
        f"Machine: {f['cpu']}, {f['cores']} cores, load {f['load_average']}{end}, {f['date']}. "
        f"{m['runs']} runs of one chain per puzzle, {m['time_limit']:g} s per run, Sirdey's "
        f"move, stall rule {m['stall']}. Mean trials = trials / solved runs; its 95 % range is "
        "1/p over the Clopper-Pearson interval of p.",
        "",
        "| schedule | stall plateaus | grid | givens | paper mean trials | our mean trials "
        "| 1/p range | solved runs | s per trial (one core) |",
        "| --- | ---: | --- | ---: | ---: | ---: | --- | ---: | ---: |",
    ]
    for r in m["rows"]:
        mean = f"{r['mean_trials']:.2f}" if r["mean_trials"] is not None else "-"
        lo, hi = trial_range(r)
        paper = r["paper_mean_trials"] if r["paper_mean_trials"] is not None else "-"
        cells = [r["schedule"], f"{r['stall_plateaus']:,}", r["name"], r["givens"], paper, mean,
                 f"{_number(lo)}-{_number(hi)}", f"{r['solved_runs']}/{r['runs']}",
                 f"{r['seconds_per_trial']:.3f}"]  # fmt: skip
        lines.append("| " + " | ".join(map(str, cells)) + " |")
    return lines + ["", f"Command: `{m['command']}`"]


def render(result: dict) -> str:
    """paper.md: one table per measurement, then the generated commentary."""
    lines = [
        "# Sirdey's table, reproduced on puzzles built from the paper's solutions",
        "",
        f'Stall rule: "scaled" is the default, {STALL_LITERAL:,} plateaus scaled by (e_P + 1) / '
        f'{course_e_p(3) + 1}; "literal" is {STALL_LITERAL:,} plateaus whatever e_P. Generated by '
        "`benchmarks/bench_paper.py` from `paper.json`.",
    ]
    for i, m in enumerate(result["measurements"], 1):
        lines += ["", f"## Measurement {i}: stall rule {m['stall']}", "", *table(m)]
    lines += ["", "## Against the paper", "", *commentary(result["measurements"])]
    return "\n".join(lines) + "\n"


def main() -> None:
    """Measure (unless --markdown-only), write paper.json, render paper.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=2006)
    parser.add_argument("--stall", choices=("scaled", "literal"), default="scaled")
    parser.add_argument("--grids", choices=("all", "paper"), default="all")
    parser.add_argument("--add", action="store_true", help="append to paper.json's measurements")
    parser.add_argument("--markdown-only", action="store_true", help="render paper.md only")
    parser.add_argument("--out", type=Path, default=OUT, help="results path without suffix")
    args = parser.parse_args()
    json_path = args.out.with_suffix(".json")
    if args.markdown_only:
        result = json.loads(json_path.read_text())
    else:
        command = "python -m benchmarks.bench_paper " + " ".join(sys.argv[1:])
        block = measure(args, command.strip())
        old = json.loads(json_path.read_text())["measurements"] if args.add else []
        result = {"measurements": [*old, block]}
        check_same_puzzles(result["measurements"])
        json_path.write_text(json.dumps(result, indent=1, allow_nan=False))
    args.out.with_suffix(".md").write_text(render(result))


if __name__ == "__main__":
    main()
