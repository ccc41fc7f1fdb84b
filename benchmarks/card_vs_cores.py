"""The card against the same machine's cores, `gpu-anneal solve` as a user runs it.

The workloads of the card-versus-cores tables (`--workloads`, in this order; groups: sets =
iso6000,forum375,iso60000; large = grids25,grids36; all; missing = the workloads whose rows are
absent, skipped, stopped or failed in the results file already there):

    start       `gpu-anneal solve --example seed002 --backend X`, first run in an empty cache
                root (cold: everything compiled) and a second run right after (warm)
    iso6000     6,000 random isomorphs of the base set (--file, forum_hardest_1106; fixed seed)
    iso6000c64  the same 6,000 with `--chains 64` (64 chains a puzzle, so many more puzzles at
                once than the default plan's); card only
    iso6000fixed  the same 6,000 with `--fixed-chains` (no spare chains on the last puzzles:
                what the spare chains of the default save); card only
    iso6000focused, iso6000candidate  the same 6,000 with the focused or the candidate move,
                each with its own best 9x9 schedule and deduction first (MOVE_TECHNIQUES: the
                moves benchmarks/card_move_choice.py models on the card); card only
    forum375    the base set itself (375 puzzles)
    iso60000    60,000 isomorphs (the same seed, so the 6,000 are its first rows); card only
                unless --cores-60k
    single      one hard puzzle at a time (`--batch 1`): 20 puzzles spread over the base set,
                search seconds a puzzle
    grids25     24 25x25 grids at 40, 45 and 50 % filled (8 a level, picked as
                benchmarks/bench_anneal_peers.py picks them from general_25x25.tsv), 20 s limit
    grids36     16 36x36 grids at 45-60 % (benchmarks/data/general_36x36.tsv, 4 a level), 30 s
    throughput  `gpu-anneal bench throughput --backend X`: raw 9x9 Sirdey proposals/s

Every measurement is one fresh process (benchmarks.card_runs): wall seconds from its start to its
exit, start-up included, and every result checked against its puzzle's givens. Apart from the
start workload, measurements run with the cache root of this environment (GPU_ANNEAL_CACHE_DIR,
else the default), after a warm-up process of the same backend and grid size (a few puzzles of
the set) has compiled or loaded what it needs; a measurement that still added compiled entries to
the cache is run a second time and the second run is the one reported (both kept). Card runs go
through benchmarks.kernel_events (slices timed by CUDA events) with nvidia-smi sampling the card.

Budget: an estimate of every step is printed before the first (seconds on an H100 with 16 cores,
from the runs the issues quote, scaled by how the steps measured so far compared with theirs);
a step whose estimate exceeds what is left of --budget is skipped and recorded as skipped, and a
running step is stopped (SIGINT: its finished puzzles are kept) when the budget runs out. The
results file is written after every step, rows of earlier runs kept unless --fresh.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from benchmarks import card_runs
from benchmarks.bench_anneal_peers import by_level
from benchmarks.card_vs_cores_report import render
from benchmarks.isomorphs import isomorphs, line
from benchmarks.paths import DATA, SHIPPED
from cpu_reference.cache import cache_root
from cpu_reference.sudoku.formats import read_puzzles
from gpu_anneal.backends import cuda_status

GROUPS = {
    "sets": ("iso6000", "forum375", "iso60000"),
    "large": ("grids25", "grids36"),
}
WORKLOADS = (
    "start",
    "iso6000",
    "iso6000c64",
    "iso6000fixed",
    "iso6000focused",
    "iso6000candidate",
    "forum375",
    "iso60000",
    "single",
    "grids25",
    "grids36",
    "throughput",
)
# Each 9x9 move with the schedule it solves best with (cpu_reference/sudoku/presets.py and the
# sweeps of benchmarks/results/tuning/), deduction first as in the default technique
MOVE_TECHNIQUES = (
    ("focused-two", "auto"),  # the default technique
    ("focused", "sirdey-course:t0=0.4,stall=0,max_plateaus=2000"),
    ("candidate", "candidate-auto"),
    ("sirdey", "candidate-auto"),
)
# The 6,000 isomorphs as each workload runs them: key, label's end, extra arguments.
ISO6000_VARIANTS = (
    ("iso6000", "", []),
    ("iso6000c64", ", 64 chains a puzzle", ["--chains", "64"]),
    ("iso6000fixed", ", fixed chains (no spare chains)", ["--fixed-chains"]),
    *(
        (f"iso6000{move}", f", {move} move (its schedule `{schedule}`, deduction first)",
         ["--move", move, "--schedule", schedule, "--propagate"])
        for move, schedule in MOVE_TECHNIQUES if move in ("focused", "candidate")
    ),
)  # fmt: skip
CARD_ONLY = ("iso6000c64", "iso6000fixed", "iso6000focused", "iso6000candidate")  # card alone
SEED = 0  # of the isomorphs (benchmarks/bench_host.py's default: the same 6,000)
SINGLE = 20  # puzzles of the single workload
LEVELS_25, PER_25, LIMIT_25 = (40, 45, 50), 8, 20.0
LEVELS_36, PER_36, LIMIT_36 = (45, 50, 55, 60), 4, 30.0
SMOKE_4X4 = ["1...........4...", "..3.4.........2.", "4.....3..1....2."]
# Estimated seconds of each step on an H100 with 16 cores, start-up included: the issues' runs
# (issue 28's table, issue 29's large grids) plus 10-15 s of compilation a card process and a
# margin; warm-ups compile. (workload, backend, role) -> seconds.
ESTIMATES = {
    ("start", "cuda", "first"): 60,
    ("start", "cuda", "second"): 12,
    ("start", "cpu", "first"): 40,
    ("start", "cpu", "second"): 5,
    ("warm-up 9x9", "cuda", "warm-up"): 20,
    ("warm-up 9x9", "cpu", "warm-up"): 10,
    ("iso6000", "cuda", "measure"): 22,
    ("iso6000", "cpu", "measure"): 42,
    ("iso6000c64", "cuda", "measure"): 22,
    ("iso6000fixed", "cuda", "measure"): 22,
    ("iso6000focused", "cuda", "measure"): 25,
    ("iso6000candidate", "cuda", "measure"): 30,
    ("forum375", "cuda", "measure"): 15,
    ("forum375", "cpu", "measure"): 7,
    ("iso60000", "cuda", "measure"): 70,
    ("iso60000", "cpu", "measure"): 400,
    ("single", "cuda", "measure"): 20,
    ("single", "cpu", "measure"): 6,
    ("warm-up 25x25", "cuda", "warm-up"): 35,
    ("warm-up 25x25", "cpu", "warm-up"): 30,
    ("grids25", "cuda", "measure"): 40,
    ("grids25", "cpu", "measure"): 25,
    ("warm-up 36x36", "cuda", "warm-up"): 45,
    ("warm-up 36x36", "cpu", "warm-up"): 40,
    ("grids36", "cuda", "measure"): 45,
    ("grids36", "cpu", "measure"): 110,
    ("throughput", "cuda", "measure"): 20,
    ("throughput", "cpu", "measure"): 10,
}
SMOKE_ESTIMATE = 5.0


@dataclass
class Workload:
    """A set of puzzles to solve: label, the file, its givens in file order, order, time limit."""

    key: str
    label: str
    path: Path | None
    givens: list[np.ndarray] | None
    order: int
    time_limit: float | None = None
    args: list[str] = field(default_factory=list)  # extra solve arguments
    why_not: str | None = None  # why the workload cannot run here (a missing file)


@dataclass
class Step:
    """One process to run: its workload, backend, role and command, and its estimate."""

    workload: Workload
    backend: str
    role: str  # first, second (start), warm-up, measure
    command: card_runs.Command
    estimate: float
    kind: str = "solve"  # or "throughput"


def select(names: str, existing: dict | None) -> list[str]:
    """The workloads `--workloads` names, in run order."""
    wanted: set[str] = set()
    for name in filter(None, (x.strip() for x in names.split(","))):
        if name == "all":
            wanted |= set(WORKLOADS)
        elif name == "missing":
            wanted |= set(missing(existing))
        elif name in GROUPS:
            wanted |= set(GROUPS[name])
        elif name in WORKLOADS:
            wanted.add(name)
        else:
            raise SystemExit(
                f"--workloads {name}: expected all, missing, "
                f"{', '.join(GROUPS)} or {', '.join(WORKLOADS)}"
            )
    return [w for w in WORKLOADS if w in wanted]


def missing(existing: dict | None) -> list[str]:
    """Workloads with no measured row in `existing`, or a row skipped, stopped or failed."""
    rows = (existing or {}).get("rows", [])
    good = {r["workload"] for r in rows if not bad_row(r)}
    failed = {r["workload"] for r in rows if bad_row(r)}
    return [w for w in WORKLOADS if w not in good or w in failed]


def bad_row(row: dict) -> bool:
    """A row that is no measurement to keep: skipped, stopped, or exited with an error (exit
    code 1 only says that some puzzle was not solved)."""
    return bool(row.get("skipped") or row.get("stopped") or row.get("exit_code", 0) not in (0, 1))


def cells_of(path: Path) -> list[np.ndarray]:
    """The givens of every puzzle of a file, in file order."""
    return [p.cells for p in read_puzzles(str(path), name=str(path))]


def spread(count: int, total: int) -> list[int]:
    """`count` indices spread evenly over 0..total-1 (all when count >= total)."""
    if count >= total:
        return list(range(total))
    return sorted({int(i * total / count) for i in range(count)})


def write_lines(path: Path, grids) -> Path:
    """9x9 (or 4x4) grids as one line each."""
    path.write_text("".join(line(g) + "\n" for g in grids))
    return path


def write_tsv(path: Path, items: list[tuple[str, np.ndarray]], order: int) -> Path:
    """Named grids as tsv lines (name, order, comma-separated cells)."""
    path.write_text(
        "".join(
            f"{name}\t{order}\t" + ",".join(str(int(v)) for v in cells) + "\n"
            for name, cells in items
        )
    )
    return path


def grids_by_level(source: Path, levels, per_level: int) -> list[tuple[str, np.ndarray]]:
    """(name, cells) of `per_level` instances of each level, as bench_anneal_peers picks them."""
    chosen = by_level(source, tuple(levels), per_level)
    return [item for fill in levels for item in chosen[fill]]


def workloads(args, tmp: Path) -> dict[str, Workload]:
    """Every workload's puzzles, written to files under `tmp` (smoke: a few of each)."""
    base_path = Path(args.file)
    smoke = args.smoke
    base = np.stack([c for c in cells_of(base_path) if c.size == 81])
    if smoke:
        base = base[:3]
    n6, n60 = (3, 6) if smoke else (6000, 60000)
    iso, _ = isomorphs(base, n60, SEED)
    stem = base_path.stem
    iso_path, iso_givens = write_lines(tmp / "iso6000.txt", iso[:n6]), list(iso[:n6])
    out = {
        key: Workload(
            key,
            f"{n6:,} random isomorphs of {stem}{what}",
            iso_path,
            iso_givens,
            3,
            args=list(extra),
        )  # fmt: skip
        for key, what, extra in ISO6000_VARIANTS
    }
    out.update(
        {
            "iso60000": Workload(
                "iso60000",
                f"{n60:,} random isomorphs of {stem}",
                write_lines(tmp / "iso60000.txt", iso),
                list(iso),
                3,
            ),
            "forum375": Workload(
                "forum375",
                f"{stem} ({len(base)})",
                write_lines(tmp / "base.txt", base),
                list(base),
                3,
            ),
        }
    )
    picks = base[spread(2 if smoke else SINGLE, len(base))]
    out["single"] = Workload(
        "single",
        f"one hard 9x9 at a time ({len(picks)} of {stem}, search seconds)",
        write_lines(tmp / "single.txt", picks),
        list(picks),
        3,
        args=["--batch", "1"],
    )
    seed002 = SHIPPED / "seed002.txt"
    out["start"] = Workload(
        "start",
        "`solve --example seed002` (3 easy puzzles)",
        None,
        cells_of(seed002),
        3,
        args=["--example", "seed002"],
    )
    out["throughput"] = Workload(
        "throughput", "raw 9x9 Sirdey proposals/s (`bench throughput`)", None, None, 3
    )
    for key, order, source, levels, per, limit in (
        ("grids25", 5, Path(args.data) / "general_25x25.tsv", LEVELS_25, PER_25, LIMIT_25),
        ("grids36", 6, DATA / "general_36x36.tsv", LEVELS_36, PER_36, LIMIT_36),
    ):
        side = order * order
        span = f"{levels[0]}-{levels[-1]} %"
        if smoke:
            cells = [np.array([0 if c == "." else int(c) for c in p], np.uint8) for p in SMOKE_4X4]
            path = write_lines(tmp / f"{key}.txt", cells)
            out[key] = Workload(
                key, f"{len(cells)} 4x4 (smoke stand-in for {side}x{side})", path, cells, 2, 10.0
            )
            continue
        if not source.exists():
            out[key] = Workload(
                key,
                f"{side}x{side} at {span}",
                None,
                None,
                order,
                limit,
                why_not=f"{source} not found (--data)",
            )
            continue
        items = grids_by_level(source, levels, per)
        path = write_tsv(tmp / f"{key}.tsv", items, order)
        out[key] = Workload(
            key,
            f"{len(items)} {side}x{side} at {span} filled, {limit:g} s limit",
            path,
            [c for _, c in items],
            order,
            limit,
        )
    return out


def solve_args(w: Workload, backend: str, path: Path | None = None) -> list[str]:
    """`solve` arguments of a workload (default technique) on a backend."""
    target = [str(path or w.path)] if (path or w.path) else []
    limit = ["--time-limit", f"{w.time_limit:g}"] if w.time_limit else []
    return ["solve", *target, *w.args, "--backend", backend, *limit]


def estimate(key: str, backend: str, role: str, smoke: bool) -> float:
    """The step's estimated seconds (SMOKE_ESTIMATE in smoke mode)."""
    return SMOKE_ESTIMATE if smoke else float(ESTIMATES.get((key, backend, role), 30))


def size_of(order: int) -> str:
    """'9x9', '25x25', ... of an order."""
    return f"{order * order}x{order * order}"


def plan(
    chosen: list[str],
    loads: dict[str, Workload],
    args,
    backends: list[str],
    tmp: Path,
    card_why: str | None = None,
) -> list[Step]:
    """The steps of a run, in order: warm-ups before the first measurement that needs them
    (one a backend and grid size). With `card_why` (no usable card) each card row is one step
    recorded as skipped for that reason."""
    main_cache = Path(args.cache_dir) if args.cache_dir else cache_root()
    steps: list[Step] = []
    warmed: set[tuple[str, int]] = set()

    def step(w, backend, role, argv, cache=main_cache, givens=None, kind="solve"):
        events = backend == "cuda" and not args.no_events and kind == "solve"
        c = card_runs.Command(argv, backend, givens, w.order, cache, events=events)
        return Step(w, backend, role, c, estimate(w.key, backend, role, args.smoke), kind)

    for key in chosen:
        w = loads[key]
        for backend in backends:
            if key == "iso60000" and backend == "cpu" and not args.cores_60k:
                continue
            if key in CARD_ONLY and backend == "cpu":
                continue
            if backend == "cuda" and card_why:
                roles = ("first", "second") if key == "start" else ("measure",)
                for role in roles:
                    skipped = Workload(
                        w.key,
                        w.label,
                        None,
                        None,
                        w.order,
                        w.time_limit,
                        why_not=f"no usable CUDA device: {card_why}",
                    )
                    steps.append(
                        Step(skipped, backend, role, step(w, backend, role, []).command, 0.0)
                    )
                continue
            if key == "start":  # an empty cache root of its own, then the same root again
                for role in ("first", "second"):
                    argv = solve_args(w, backend)
                    steps.append(step(w, backend, role, argv, tmp / f"cold_{backend}", w.givens))
                continue
            if key == "throughput":
                argv = [
                    "bench",
                    "throughput",
                    "--backend",
                    backend,
                    "--seconds",
                    f"{args.seconds:g}",
                    "--json",
                ]
                steps.append(step(w, backend, "measure", argv, kind="throughput"))
                continue
            if w.why_not:
                steps.append(
                    Step(w, backend, "measure", step(w, backend, "measure", []).command, 0.0)
                )
                continue
            if (backend, w.order) not in warmed:
                warmed.add((backend, w.order))
                few = w.givens[: 8 if w.order <= 3 else 2]
                name = f"warm_{backend}_{w.order}"
                path = (
                    write_lines(tmp / f"{name}.txt", few)
                    if w.order <= 3
                    else write_tsv(
                        tmp / f"{name}.tsv", [(f"warm_{k}", g) for k, g in enumerate(few)], w.order
                    )
                )
                size = size_of(w.order)
                warm = Workload(
                    f"warm-up {size}",
                    f"warm-up: {len(few)} {size}",
                    path,
                    list(few),
                    w.order,
                    min(w.time_limit or 5.0, 5.0),
                )
                steps.append(
                    step(warm, backend, "warm-up", solve_args(warm, backend), givens=warm.givens)
                )
            steps.append(step(w, backend, "measure", solve_args(w, backend), givens=w.givens))
    return steps


def throughput_record(step: Step, timeout: float) -> dict:
    """`bench throughput`'s JSON (its last stdout line) with the process's wall seconds."""
    c = step.command
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "gpu_anneal", *c.args],
        capture_output=True,
        text=True,
        cwd=card_runs.ROOT,
        env=card_runs.child_env(c.cache, None),
        timeout=timeout,
    )
    rec = {
        "command": "gpu-anneal " + " ".join(c.args),
        "backend": c.backend,
        "wall_seconds": time.perf_counter() - start,
        "exit_code": proc.returncode,
    }
    try:
        found = json.loads(proc.stdout.strip().splitlines()[-1])
        rec["proposals_per_second"] = found.get("proposals_per_second")
        rec["throughput"] = found
    except (ValueError, IndexError):
        rec["stderr_tail"] = (proc.stderr or proc.stdout)[-1500:]
        rec["exit_code"] = rec["exit_code"] or 1
    return rec


def print_plan(steps: list[Step], budget: float) -> None:
    """The plan and its estimated seconds on stderr, before anything runs."""
    total = sum(s.estimate for s in steps)
    log(
        f"card_vs_cores plan: {len(steps)} processes, estimate {total:.0f} s "
        f"(budget {budget:.0f} s; estimates: an H100 with 16 cores, start-up included)"
    )
    running = 0.0
    for s in steps:
        running += s.estimate
        over = "  (past the budget if the estimates hold)" if running > budget else ""
        log(
            f"  {s.workload.key:<14} {s.backend:<4} {s.role:<8} ~{s.estimate:4.0f} s  "
            f"cumulative {running:5.0f} s{over}"
        )


def log(text: str) -> None:
    """One progress line on stderr."""
    print(text, file=sys.stderr, flush=True)


def execute(steps: list[Step], budget: float, save) -> None:
    """Run the steps within the budget; save(rows, warmups) after each."""
    deadline = time.monotonic() + budget
    rows: list[dict] = []
    warmups: list[dict] = []
    ratios: list[float] = []
    for s in steps:
        w = s.workload
        scale = min(2.0, max(0.2, statistics.median(ratios))) if ratios else 1.0
        left = deadline - time.monotonic()
        meta = {
            "workload": w.key,
            "label": w.label,
            "backend": s.backend,
            "role": s.role,
            "order": w.order,
            "time_limit": w.time_limit,
        }
        if w.why_not:
            rows.append({**meta, "skipped": w.why_not})
        elif s.estimate * scale > left:
            why = f"estimate {s.estimate * scale:.0f} s > {max(left, 0):.0f} s left of the budget"
            (warmups if s.role == "warm-up" else rows).append({**meta, "skipped": why})
        else:
            s.command.timeout = left
            if s.kind == "throughput":
                rec = throughput_record(s, left)
            else:
                rec = card_runs.run(s.command)
                if s.role == "measure" and rec.get("cache_entries_added", 0) > 0:
                    log(f"  {w.key} {s.backend}: compiled during the run; again, warm")
                    first = rec
                    s.command.timeout = deadline - time.monotonic()
                    rec = card_runs.run(s.command) if s.command.timeout > 1 else rec
                    if rec is not first:
                        rec["first_run"] = first
            if s.estimate and s.estimate != SMOKE_ESTIMATE:
                ratios.append(rec["wall_seconds"] / s.estimate)
            entry = {**meta, **rec}
            (warmups if s.role == "warm-up" else rows).append(entry)
            log(f"  {w.key} {s.backend} {s.role}: {describe(entry)}")
        save(rows, warmups)


def describe(row: dict) -> str:
    """A row in a progress line."""
    if row.get("skipped"):
        return f"skipped ({row['skipped']})"
    if "proposals_per_second" in row and "results" not in row:
        pps = row.get("proposals_per_second") or 0
        return f"{pps / 1e9:.3g} G proposals/s, wall {row['wall_seconds']:.1f} s"
    return (
        f"{row.get('checked_here', row.get('solved'))}/{row.get('puzzles', row.get('results'))}"
        f" checked solved, wall {row['wall_seconds']:.2f} s, exit {row.get('exit_code')}"
        + (f", {row['stopped']}" if row.get("stopped") else "")
    )


def merge(existing: dict | None, run: dict, rows: list[dict], warmups: list[dict]) -> dict:
    """The results file: this run's rows, and each earlier row of a (workload, backend, role)
    this run did not measure; a row this run skipped never replaces a measured one."""
    old = existing or {}
    runs = [r for r in old.get("runs", []) if r.get("id") != run["id"]] + [run]
    key = lambda r: (r["workload"], r["backend"], r["role"])  # noqa: E731
    mine = {key(r): {**r, "run": run["id"]} for r in rows}
    kept = []
    for r in old.get("rows", []):
        new = mine.get(key(r))
        if new is None:
            kept.append(r)
        elif new.get("skipped") and not r.get("skipped"):
            kept.append(r)
            del mine[key(r)]
    order = {w: i for i, w in enumerate(WORKLOADS)}
    roles = {"first": 0, "second": 1, "measure": 2}
    merged = sorted(
        kept + list(mine.values()),
        key=lambda r: (
            order.get(r["workload"], 99),
            r["backend"] != "cuda",
            roles.get(r["role"], 3),
        ),
    )
    return {
        "part": "card_vs_cores",
        "smoke": run["smoke"],
        "runs": runs,
        "rows": merged,
        "warmups": warmups,
    }


BUSY_METHOD = (
    "nvidia-smi's utilization.gpu sampled every 100 ms during each card run (its mean over the "
    "process's wall, over the solve span, and over the samples from the first to the last with "
    "a kernel running), and CUDA events around every slice (benchmarks.kernel_events: the sum "
    "of slice seconds over the solve span, first slice started to last status read)"
)


def main(args, machine: dict, command: str) -> Path:
    """Plan, print the estimate, run, and write OUT.json and OUT.md after every step."""
    out = Path(args.out_dir) / "card_vs_cores"
    json_path = out.with_suffix(".json")
    existing = None if args.fresh or not json_path.exists() else json.loads(json_path.read_text())
    chosen = select(args.workloads, existing)
    backends = [b for b in ("cuda", "cpu") if b in args.backends.split(",")]
    usable, why = cuda_status()
    if "cuda" in backends and not usable:
        log(f"card_vs_cores: no usable card ({why}); the card's rows are recorded as skipped")
    started = time.time()
    cache = args.cache_dir or "this environment's cache root"
    run = {
        "id": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
        "commit": args.commit,
        "command": command,
        "machine": machine,
        "workloads": chosen,
        "budget_seconds": args.budget,
        "smoke": bool(args.smoke),
        "kernel_busy_method": BUSY_METHOD,
        "cache": "start: an empty cache root a backend, then the same root again; the others: "
        f"{cache}, after a warm-up process of the same backend and grid size",
    }
    with tempfile.TemporaryDirectory(prefix="card_vs_cores_") as tmp:
        loads = workloads(args, Path(tmp))
        steps = plan(chosen, loads, args, backends, Path(tmp), None if usable else why)
        run["estimate_seconds"] = sum(s.estimate for s in steps)
        print_plan(steps, args.budget)
        if args.plan_only:
            return json_path

        def save(rows, warmups):
            run["seconds"] = round(time.time() - started, 1)
            result = merge(existing, run, rows, warmups)
            out.parent.mkdir(parents=True, exist_ok=True)
            json_path.write_text(json.dumps(result, indent=1, default=str) + "\n")
            out.with_suffix(".md").write_text(render(result))

        save([], [])
        execute(steps, args.budget, save)
    log(f"wrote {json_path} and {out.with_suffix('.md')}")
    return json_path
