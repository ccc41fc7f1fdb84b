"""Measured on a CUDA card: kernel equality with the CPU runner, proposals/s, and solving runs.

Run on a machine with a CUDA device (nothing here runs without one). Each part writes
`gpu_PART.json` into `--out-dir` (benchmarks/results/gpu by default), with the machine and the card;
`python -m benchmarks.summary` puts them in SUMMARY.md. Every figure is a measurement on the
card named in the file, unlike the kernel model (bench_kernel_model.py), whose figures are read
from compiled code.

    env          the card (name, SMs, compute capability, clocks), driver, CUDA and numba versions
    equality     the compiled kernel and the CPU runner move the same chains through the same
                 states: for each order and move, after the same slices, every counter, grid,
                 bitboard, best grid and RNG state equal. Two batches a case: one puzzle that
                 never solves with many chains, and real puzzles with one chain each (so no chain
                 stops because another solved, which depends on timing)
    throughput   proposals per second of each kernel on a grid that never solves
                 (gpu_anneal.measure.measure_throughput) at one and four full waves of the card,
                 in the native loop's hot regime and, on 9x9, under the auto schedule; beside the
                 same measurement on this machine's CPU cores, and the native Sirdey loop
                 (`--native-tool`, built with gcc -O3 -march=native -fopenmp) when gcc is there
    solve        `gpu_anneal.api.solve` with the default technique on whole sets at once (the pool
                 fills the card), then on the CPU cores: wall seconds for the set, solved and
                 verified counts, median and p90 of each puzzle's search seconds
    pool         the 9x9 sets again: the pool's default plan beside every puzzle in at once
                 (`batch` = the set's size) with the plan's, 128 and 32 chains a puzzle
    cpu_orders   the CPU runner on this machine's cores for 16x16 to 36x36 (Sirdey's and the
                 focused move), beside the kernels' rates
    latency      one puzzle at a time with a full wave of chains: seconds to solution per puzzle,
                 beside the CPU backend with one chain per core
    card_vs_cores  the card-versus-cores tables of issues 28 and 29, `gpu-anneal solve` as a user
                 runs it (a fresh process a measurement, start-up included) on the card and on
                 the same machine's cores in one run: seed002's first and second start, 6,000 and
                 60,000 random isomorphs of forum_hardest_1106 and the 375 themselves, one hard
                 puzzle at a time, 25x25 and 36x36 grids, raw proposals/s; every result checked,
                 the card's kernel-busy fraction by nvidia-smi and CUDA events. Writes
                 card_vs_cores.{json,md} (not gpu_PART.json) and merges into the file there;
                 benchmarks/card_vs_cores.py says what each workload is

    python -m benchmarks.bench_gpu --part env,equality,throughput --out-dir DIR
    python -m benchmarks.bench_gpu --part solve,latency --data DIR --out-dir DIR
    python -m benchmarks.bench_gpu --part pool,latency,cpu_orders --data DIR --out-dir DIR

`--data DIR` holds the sets that do not ship with the package: forum_hardest_1106.txt and
general_25x25.tsv from ../shared/data/sudoku (the 25x25 file may be cut to the levels used);
the 36x36 instances are benchmarks/data/general_36x36.tsv.

card_vs_cores on a lent card. The device machine gets the working tree but not ../shared, and
its image's numpy is too new for numba (numpy < 2.5), so, here, once:

    mkdir -p .gpudata && cp ../shared/data/sudoku/{forum_hardest_1106,general_25x25}.* .gpudata/
    # (.gitignore names /.gpudata/ and /.whl/; `bash benchmarks/card_session.sh prepare` does this)
    python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
        --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux2014_x86_64 \
        -d .whl numpy==2.4.6

then one device command a phase (carry [".gpudata", ".whl"]), each writing to $OUT:

    bash benchmarks/card_session.sh sets HASH    # 9x9 sets, start, single, throughput
    bash benchmarks/card_session.sh large HASH   # 25x25 and 36x36, their kernels' rates
    bash benchmarks/card_session.sh check HASH   # Ctrl-C on 60,000, kernel equality

(HASH: this checkout's `git rev-parse --short HEAD`, written into the command; CVC_BUDGET and the
other variables the script names bound each part's seconds, and a step that would not fit is
recorded as skipped.) On an H100 the sets and large phases took about 2.5 and 4 minutes and the
check phase about 5.5. Before the large phase, copy the sets phase's card_vs_cores.json into
.gpudata/ so that the large phase merges into it. Copy what comes back into
benchmarks/results/gpu/, `git add` it and run `python -m benchmarks.summary` so that SUMMARY.md
shows the figures (it reads only tracked files).
`--smoke` runs the same code path on a few 4x4 and 9x9 puzzles (here, on the CPU alone or under
NUMBA_ENABLE_CUDASIM=1), writing to --out-dir.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
import traceback
from pathlib import Path

import numpy as np
from numba import cuda

from benchmarks import card_vs_cores
from benchmarks.machine import git, machine
from benchmarks.paths import DATA, SHARED, SHIPPED, SUDOKU_DATA, results
from cpu_reference.sudoku import rules
from cpu_reference.sudoku.batch import make_batch
from cpu_reference.sudoku.formats import iter_puzzles
from cpu_reference.sudoku.schedules import by_name
from gpu_anneal import api, plan
from gpu_anneal.measure import measure_throughput, never_solving_puzzle
from gpu_anneal.runners import same_chains_after

PARTS = ("env", "equality", "throughput", "solve", "latency", "pool", "cpu_orders", "card_vs_cores")
SELF_WRITING = ("card_vs_cores",)  # parts that write their own results files
MOVES = ("sirdey", "candidate", "box-swap", "focused", "focused-two")


def log(text: str) -> None:
    """One progress line on stderr (the device tool returns the output's tail)."""
    print(text, file=sys.stderr, flush=True)


def env_part(args) -> dict:
    """The card, driver and software versions: machine_record() (which every part's file
    holds) with the driver's version, the card's shared memory an SM and nvidia-smi's clocks."""
    facts = machine_record()
    facts["max_shared_per_sm"] = plan.current_card().shared_per_sm
    facts["driver_version"] = list(cuda.cudadrv.driver.driver.get_version())
    query = "name,driver_version,clocks.max.sm,clocks.sm,power.limit,memory.total"
    smi = shutil.which("nvidia-smi")
    if smi:
        out = subprocess.run([smi, f"--query-gpu={query}", "--format=csv,noheader"],
                             capture_output=True, text=True)  # fmt: skip
        facts["nvidia_smi"] = {"query": query, "answer": out.stdout.strip()}
    return facts


def never_solving(order: int) -> np.ndarray:
    """The throughput grid (a clash no move can undo) as a batch of one."""
    return never_solving_puzzle(order)[None]


def real_puzzles(order: int, data: Path | None, count: int) -> np.ndarray | None:
    """`count` real puzzles of an order (shipped sets, or --data's), uint8[P, cells]."""
    files = {
        2: None,
        3: SHIPPED / "top95.txt",
        4: SHIPPED / "lloyd_amos_16x16.tsv",
        5: data / "general_25x25.tsv" if data else None,
        6: DATA / "general_36x36.tsv",
    }
    if order == 2:
        base = ["1...........4...", "..3.4.........2.", "4.....3..1....2.", "................"]
        cells = [[0 if ch == "." else int(ch) for ch in text] for text in base]
        return np.array([cells[i % len(cells)] for i in range(count)], np.uint8)
    path = files[order]
    if path is None or not path.exists():
        return None
    found = []
    for item in iter_puzzles(path, name=str(path)):
        if hasattr(item, "cells") and np.any(item.cells == 0):
            found.append(item.cells)
        if len(found) >= count:
            break
    return np.stack(found) if found else None


def equal_after(puzzles, order, move, cpp, seed, slices, schedule) -> dict:
    """Run the same slices on the CPU runner and the CUDA kernel; which fields are equal."""
    # Sirdey's schedule with short trials, so that chains restart within the slices; the auto
    # schedules as shipped (their reheats must fall within a trial)
    short = {"max_plateaus": 6} if schedule == "sirdey-course" else {}
    sched = by_name(schedule, order, **short)
    code = rules.move_code(move, order)
    cpu = make_batch(puzzles, order, sched, cpp=cpp, seed=seed, trial_cap=1000, move=code)
    gpu = make_batch(puzzles, order, sched, cpp=cpp, seed=seed, trial_cap=1000, move=code)
    fields = same_chains_after(cpu, gpu, slices)
    differing = int(np.any(cpu.ctr != gpu.ctr, axis=1).sum())
    return {
        "equal": all(fields.values()),
        "fields": fields,
        "chains": int(cpu.ctr.shape[0]),
        "chains_with_other_counters": differing,
        "proposals": int(cpu.ctr[:, rules.C_PROPOSALS].sum()),
        "trials": int(cpu.ctr[:, rules.C_TRIALS].sum()),
        "solved_chains": int((cpu.ctr[:, rules.C_STATUS] == rules.SOLVED).sum()),
    }


def equality_part(args) -> dict:
    """Kernel against CPU runner for every order and move."""
    rows = []
    for order in args.orders:
        for move in args.moves:
            schedule = "sirdey-course" if move in ("sirdey", "box-swap") else "auto"
            many = 2048 if order <= 4 else 512
            cases = [("never-solving", never_solving(order), 4 if args.smoke else many)]
            real = real_puzzles(order, args.data, 2 if args.smoke else 256 if order <= 3 else 16)
            if real is not None:
                cases.append(("real, one chain each", real, 1))
            for label, puzzles, cpp in cases:
                start = time.perf_counter()
                try:
                    slices = [1, 1] if args.smoke else [2, 5, 4, 9]
                    row = equal_after(puzzles, order, move, cpp, 7, slices, schedule)
                except Exception as exc:  # noqa: BLE001 - recorded, the other cases go on
                    row = {"equal": False, "error": f"{type(exc).__name__}: {exc}",
                           "trace": traceback.format_exc()[-1500:]}  # fmt: skip
                row.update(order=order, move=move, schedule=schedule, batch=label,
                           puzzles=int(puzzles.shape[0]), cpp=cpp,
                           seconds=round(time.perf_counter() - start, 2))  # fmt: skip
                rows.append(row)
                log(f"equality order {order} {move} {label}: {row['equal']} "
                    f"({row.get('proposals', 0)} proposals, {row['seconds']} s)")  # fmt: skip
    return {"rows": rows, "all_equal": all(r["equal"] for r in rows)}


def wave(order: int, move: str) -> int:
    """Chains of one full wave of the current card for the order's kernel."""
    return plan.wave_chains(plan.current_card(), plan.kernel_shape(order, move))


def native_rate(tool: Path, seconds: float) -> dict | None:
    """The native Sirdey loop on every core of this machine (None without gcc or the tool)."""
    gcc = shutil.which("gcc") or shutil.which("cc")
    if not gcc or not tool.exists():
        return None
    binary = Path("/tmp/sirdey_limit")
    cmd = [gcc, "-O3", "-march=native", "-fopenmp", str(tool), "-o", str(binary), "-lm"]
    build = subprocess.run(cmd, capture_output=True, text=True)
    if build.returncode != 0:
        return {"error": build.stderr[-500:]}
    out = subprocess.run([str(binary), str(seconds)], capture_output=True, text=True)
    return json.loads(out.stdout)


def throughput_part(args) -> dict:
    """Proposals per second of each kernel, the CPU runner and the native loop."""
    cases = []
    if 3 in args.orders:
        cases += [(3, m, None) for m in args.moves]
        cases += [(3, m, "auto") for m in ("focused", "focused-two") if m in args.moves]
    cases += [(o, m, None) for o in args.orders if o >= 4 for m in ("sirdey", "focused")
              if m in args.moves]  # fmt: skip
    rows = []
    for order, move, schedule in cases:
        w = 128 if args.smoke else wave(order, move)
        for waves in (1, 4):
            try:
                r = measure_throughput(order, args.seconds, "cuda", chains=w * waves, move=move,
                                       schedule=schedule)  # fmt: skip
            except Exception as exc:  # noqa: BLE001 - recorded, the other cases go on
                r = {"error": f"{type(exc).__name__}: {exc}"}
            r.update(order=order, move=move, schedule=schedule or "native regime", waves=waves,
                     wave_chains=w)  # fmt: skip
            rows.append(r)
            rate = r.get("proposals_per_second", 0) / 1e9
            log(f"throughput cuda order {order} {move} {schedule} x{waves}: {rate:.2f} G/s")
    cpu_cases = [(3, "sirdey", None), (3, "focused-two", None), (3, "focused-two", "auto")]
    cpu_cases = [c for c in cpu_cases if 3 in args.orders]
    cpu_cases += [(o, m, s) for o, m, s in cases if o >= 4]
    cpu_rows = []
    for order, move, schedule in cpu_cases:
        r = measure_throughput(order, args.seconds, "cpu", move=move, schedule=schedule)
        r.update(order=order, move=move, schedule=schedule or "native regime")
        cpu_rows.append(r)
        log(f"throughput cpu order {order} {move}: {r['proposals_per_second'] / 1e6:.1f} M/s")
    native = native_rate(args.native_tool, args.seconds) if 3 in args.orders else None
    return {"cuda": rows, "cpu": cpu_rows, "native": native, "seconds": args.seconds}


def solve_set(path, backend: str, time_limit: float, limit: int | None, **kw) -> dict:
    """Solve a set with the default technique; wall seconds and per-puzzle figures."""
    items = api.parse_puzzles(str(path))
    if limit is not None:
        items = items[:limit]
    start = time.perf_counter()
    results = api.solve(items, backend=backend, time_limit=time_limit, **kw)
    wall = time.perf_counter() - start
    search = sorted(r.timing.search for r in results)
    solved = [r for r in results if r.solved]
    return {
        "file": Path(path).name,
        "backend": backend,
        "puzzles": len(results),
        "solved": len(solved),
        "verified": sum(r.verified for r in results),
        "wall_seconds": wall,
        "puzzles_per_second": len(results) / wall,
        "median_search_seconds": statistics.median(search),
        "p90_search_seconds": search[min(len(search) - 1, int(0.9 * len(search)))],
        "max_search_seconds": search[-1],
        "chains_per_puzzle": results[0].params.chains if results else None,
        "move": results[0].params.move if results else None,
        "schedule": results[0].params.schedule if results else None,
        "time_limit": time_limit,
    }


def level_file(source: Path, levels: tuple[int, ...], per_level: int, out: Path) -> Path | None:
    """A tsv of `per_level` instances of each fill level of `source` (names NAME_FILL_K)."""
    if not source.exists():
        return None
    taken: dict[int, int] = {}
    lines = []
    for line in source.read_text().splitlines():
        parts = line.split("\t")[0].split("_")
        if len(parts) >= 3 and parts[1].isdigit():
            fill = int(parts[1])
            if fill in levels and taken.get(fill, 0) < per_level:
                taken[fill] = taken.get(fill, 0) + 1
                lines.append(line)
    out.write_text("\n".join(lines) + "\n")
    return out


def solve_part(args) -> dict:
    """Whole sets at once on the card, then on the CPU cores (same technique)."""
    tmp = Path("/tmp/bench_gpu_sets")
    tmp.mkdir(exist_ok=True)
    sets = [("top95", SHIPPED / "top95.txt", 10.0, True)]
    if args.data and (args.data / "forum_hardest_1106.txt").exists():
        sets.append(("forum_hardest_1106", args.data / "forum_hardest_1106.txt", 10.0, True))
    if args.data:
        f25 = level_file(args.data / "general_25x25.tsv", (40, 45, 50), 10, tmp / "l25.tsv")
        if f25:
            sets.append(("25x25 40-50 %", f25, 10.0, True))
    f36 = level_file(DATA / "general_36x36.tsv", (45, 50, 55, 60), 4, tmp / "l36.tsv")
    sets.append(("36x36 45-60 %", f36, 30.0, False))
    for order in (3, 5, 6):  # compile the kernels and pool before timing
        for backend in ("cuda", "cpu"):
            path = {3: sets[0][1], 5: tmp / "l25.tsv", 6: f36}[order]
            if Path(path).exists():
                first = api.parse_puzzles(str(path))[:1]
                api.solve(first, backend=backend, time_limit=5.0)
    rows = []
    for label, path, limit, on_cpu in sets:
        for backend in ("cuda", "cpu") if on_cpu else ("cuda",):
            try:
                r = solve_set(path, backend, limit, None)
            except Exception as exc:  # noqa: BLE001 - recorded, the other sets go on
                r = {
                    "error": f"{type(exc).__name__}: {exc}",
                    "trace": traceback.format_exc()[-1500:],
                }
            r["set"] = label
            rows.append(r)
            log(f"solve {label} {backend}: {r.get('solved')}/{r.get('puzzles')} in "
                f"{r.get('wall_seconds', 0):.2f} s")  # fmt: skip
    return {"rows": rows}


def latency_part(args) -> dict:
    """One puzzle at a time: a full wave of chains on the card, one chain a core on the CPU."""
    rows = []
    path = args.data / "forum_hardest_1106.txt" if args.data else None
    if path is None or not path.exists():
        path = SHIPPED / "top95.txt"
    items = api.parse_puzzles(str(path))[: args.latency_puzzles]
    api.solve(items[:1], backend="cuda", batch=1, time_limit=5.0)
    api.solve(items[:1], backend="cpu", batch=1, time_limit=5.0)
    for backend in ("cuda", "cpu"):
        chains = wave(3, "focused-two") if backend == "cuda" else None
        seconds, solved = [], 0
        for item in items:
            start = time.perf_counter()
            (r,) = api.solve([item], backend=backend, batch=1, chains=chains, time_limit=10.0)
            seconds.append(time.perf_counter() - start)
            solved += r.solved
        rows.append({
            "backend": backend, "file": path.name, "puzzles": len(items), "solved": solved,
            "chains_per_puzzle": chains, "median_seconds": statistics.median(seconds),
            "p90_seconds": sorted(seconds)[int(0.9 * (len(seconds) - 1))],
            "seconds": seconds,
        })  # fmt: skip
        log(f"latency {backend}: median {rows[-1]['median_seconds']:.3f} s, {solved} solved")
    return {"rows": rows}


def cpu_orders_part(args) -> dict:
    """The CPU runner's proposals per second on 16x16 to 36x36, beside the kernels' figures."""
    rows = []
    for order in (4, 5, 6):
        for move in ("sirdey", "focused"):
            rows.append(measure_throughput(order, args.seconds, "cpu", move=move))
            log(f"cpu order {order} {move}: {rows[-1]['proposals_per_second'] / 1e6:.1f} M/s")
    return {"cpu": rows}


def pool_part(args) -> dict:
    """Whole 9x9 sets on the card with the pool's default plan and with every puzzle in at
    once (`batch` = the set's size) at several chain counts; the CPU cores' default beside."""
    sets = [("top95", SHIPPED / "top95.txt")]
    if args.data and (args.data / "forum_hardest_1106.txt").exists():
        sets.append(("forum_hardest_1106", args.data / "forum_hardest_1106.txt"))
    first = api.parse_puzzles(str(sets[0][1]))[:1]
    for backend in ("cuda", "cpu"):  # compile before timing
        api.solve(first, backend=backend, time_limit=5.0)
    rows = []
    for label, path in sets:
        size = len(api.parse_puzzles(str(path)))
        variants = [("cuda", None, None), ("cuda", size, None), ("cuda", size, 128),
                    ("cuda", size, 32), ("cuda", None, None), ("cpu", None, None)]  # fmt: skip
        for backend, batch, chains in variants:
            r = solve_set(path, backend, 10.0, None, batch=batch, chains=chains)
            r.update(set=label, batch=batch, chains_asked=chains)
            rows.append(r)
            log(f"pool {label} {backend} batch {batch} chains {chains}: {r['solved']}/"
                f"{r['puzzles']} in {r['wall_seconds']:.2f} s, median search "
                f"{r['median_search_seconds']:.3f} s")  # fmt: skip
    return {"rows": rows}


def machine_record() -> dict:
    """The machine facts of benchmarks.machine plus the card (name, SMs, compute capability)."""
    facts = machine("numba_cuda")
    try:
        card = plan.current_card()
        cc = list(cuda.get_current_device().compute_capability)
        facts.update(gpu=card.name, sms=card.sms, compute_capability=cc)
    except Exception as exc:  # noqa: BLE001 - a machine without a card still records the rest
        facts["gpu"] = f"none ({type(exc).__name__})"
    return facts


def card_vs_cores_part(args) -> dict:
    """The card against the same machine's cores (benchmarks/card_vs_cores.py); writes
    card_vs_cores.{json,md} into --out-dir itself."""
    data = args.data or SUDOKU_DATA
    if args.file is None:
        args.file = SHIPPED / "seed002.txt" if args.smoke else data / "forum_hardest_1106.txt"
    if not Path(args.file).exists():
        raise SystemExit(f"--file {args.file}: not found (forum_hardest_1106.txt; see --data)")
    args.data = data
    if args.smoke:
        args.seconds = min(args.seconds, 0.3)
    if args.commit is None:
        head = git("rev-parse", "--short", "HEAD")
        args.commit = head + ("+" if head and git("status", "--porcelain", "-uno") else "")
    command = "python -m benchmarks.bench_gpu " + " ".join(sys.argv[1:])
    path = card_vs_cores.main(args, machine_record(), command)
    return {"written": str(path)}


RUNNERS = {"env": env_part, "equality": equality_part, "throughput": throughput_part,
           "solve": solve_part, "pool": pool_part, "latency": latency_part,
           "cpu_orders": cpu_orders_part, "card_vs_cores": card_vs_cores_part}  # fmt: skip


def main() -> None:
    """Run the parts asked for; each writes its JSON as soon as it ends."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", default="env,equality,throughput")
    parser.add_argument("--out-dir", type=Path, default=results("gpu"))
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--orders", default="2,3,4,5,6")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--moves", default=",".join(MOVES), help="equality and throughput moves")
    parser.add_argument("--latency-puzzles", type=int, default=20)
    parser.add_argument("--native-tool", type=Path,
                        default=SHARED / "tools/sirdey_limit.c")  # fmt: skip
    parser.add_argument("--tag", default="", help="suffix of the JSON file names")
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="tiny sizes, to try the script's paths in the CUDA simulator",
    )
    cvc = parser.add_argument_group("card_vs_cores")
    cvc.add_argument("--workloads", default="all", help="all, missing, sets, large or names")
    cvc.add_argument("--file", type=Path, default=None,
                     help="base 9x9 set (default: DATA/forum_hardest_1106.txt, DATA = --data "
                     "or ../shared/data/sudoku; smoke: the shipped seed002)")  # fmt: skip
    cvc.add_argument("--backends", default="cuda,cpu")
    cvc.add_argument("--budget", type=float, default=540.0, help="seconds for the whole run")
    cvc.add_argument("--cores-60k", action="store_true", help="60,000 isomorphs on the cores too")
    cvc.add_argument("--fresh", action="store_true", help="drop the rows of earlier runs")
    cvc.add_argument("--commit", default=None, help="the commit measured (default: git's)")
    cvc.add_argument("--cache-dir", default=None, help="cache root of the measured runs")
    cvc.add_argument("--no-events", action="store_true", help="card runs without CUDA events")
    cvc.add_argument("--plan-only", action="store_true", help="print the plan; run nothing")
    args = parser.parse_args()
    args.orders = [int(x) for x in args.orders.split(",")]
    args.moves = [m for m in args.moves.split(",") if m]
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for part in args.part.split(","):
        if part not in RUNNERS:
            raise SystemExit(f"--part {part}: expected one of {', '.join(PARTS)}")
        start = time.perf_counter()
        try:
            result = RUNNERS[part](args)
        except Exception as exc:  # noqa: BLE001 - recorded, the next part goes on
            result = {"error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()}
            log(result["trace"])
        if part in SELF_WRITING and "error" not in result:
            continue
        result["part"] = part
        result["machine"] = machine_record()
        result["seconds"] = round(time.perf_counter() - start, 1)
        result["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        result["command"] = "python -m benchmarks.bench_gpu " + " ".join(sys.argv[1:])
        path = args.out_dir / f"gpu_{part}{args.tag}.json"
        path.write_text(json.dumps(result, indent=1, default=str))
        log(f"wrote {path} ({result['seconds']} s)")


if __name__ == "__main__":
    main()
