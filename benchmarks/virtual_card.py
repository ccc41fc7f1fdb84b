"""The virtual card (a model): the pool's own code runs 9x9 isomorphs against a modeled card, to
see where a card's time goes and what a design would gain, without a card.

Glossary: c chains a puzzle, slots puzzles a launch, T the proposals of a puzzle's solving chain,
L proposals a plateau (81), B a slice's budget (plateaus), span the solve span (first slice
started to last status read), live slot a slot whose chains run in a slice (it held a puzzle
not yet solved when the slice started).

What runs for real: `gpu_anneal.api.solve_stream` on the `cuda` backend, as `gpu-anneal solve
FILE --backend cuda` runs it (reading, the plan for a described H100 SXM, deduction, tables,
slicing, refills, spare chains, verification, results), with gpu_anneal.standin.ModeledRunner
as the runner and a virtual clock as the pool's clock. What is modeled:

- which chain of a puzzle solves after how many proposals: exact, from the CPU runner's chains
  (the kernels run the same chains): benchmarks/solve_profiles.py's file of the first 6,000
  isomorphs at 1,056 and 64 chains a puzzle. Puzzles past them, and spare slots (other streams),
  take the profile of another isomorph of the same base puzzle from the file (a sample scaled
  up: puzzle q of 60,000 takes that of q mod 6,000); the counts of each are reported.
- the card's kernel seconds and the host's seconds: benchmarks/card_model.py (committed H100
  measurements; the host modeled, not measured). Two figures are fitted to the committed card
  runs of 6,000 isomorphs (iso6000, iso6000c64): n_half, how much faster a warp runs when
  fewer warps share its SM (to their kernel seconds), and rho, the card host's share of
  bench_host's seconds a puzzle (to their device gaps, span less kernel seconds); iso60000
  checks the fit.

Each run reports its slices, kernel seconds, span and wall (span + the committed runs' start-up
and exit), and where the launched proposals go:

    useful            c x ceil(T / L) x L a puzzle: its chains up to the plateau of the solve
    launched          sum over slices of slots x c x B x L
    useful fraction   useful / launched = live-slot share x useful share of a live slot's slice
    live-slot share   sum of live slots x B / sum of slots x B
    useful share      useful / sum of live slots x c x B x L

--calibrate first fits and models the three committed card runs (card_vs_cores.json at
ff6696e: iso6000, iso6000c64, iso60000, with their chains and slots, no spare chains, and that
code's host seconds) and quotes a prediction only when each modeled wall is within 25 % of the
measured one; the prediction is 60,000 isomorphs on the pool as built (the default plan, this
code's host seconds): the persistent pool's own host loop (gpu_anneal.persistent_pool) against
its modeled device (gpu_anneal.standin_persistent), beside the slice pool as it was before (the
refill after the relaunch: `before` in the results); and at 64 and 1,056 chains a puzzle the
slice pool as built (the refill first), the persistent pool as built and the older design
model of it (benchmarks/persistent_model.py).

    python -m benchmarks.virtual_card --calibrate [--json] [--save]
        [--file ../shared/data/sudoku/forum_hardest_1106.txt] [--profiles FILE]
    python -m benchmarks.virtual_card [--puzzles 60000] [--chains 64] [--batch N]
        [--pool slices|refill-first|persistent|persistent-model] [--host-cores 1]
        [--half-warps X] [--host-share X]   (one modeled run, the committed fit by default)

With --json the last line printed is {"runs": [{"name", "measured_s", "modeled_s"}, ...],
"predicted": {"iso60000_puzzles_per_second", "useful_fraction"}} (predicted null when the
calibration misses); --save writes benchmarks/results/gpu/virtual_card.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tempfile
import time
import types
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import gpu_anneal
from benchmarks import card_model
from benchmarks.card_vs_cores import SEED
from benchmarks.isomorphs import isomorphs, line
from benchmarks.machine import git, machine
from benchmarks.paths import ROOT, SUDOKU_DATA, results
from benchmarks.persistent_model import run_persistent
from benchmarks.solve_profiles import PROFILES, base_puzzles, load_profiles
from benchmarks.tables import add_out_arguments, rerender, table_block, write_results
from cpu_reference.sudoku.exact import solve_exact
from gpu_anneal import backends, persistent_pool, plan, solvers, sudoku_solver
from gpu_anneal.runners import make_runner as real_make_runner
from gpu_anneal.standin import ModeledRunner, VirtualClock
from gpu_anneal.standin_persistent import ModeledPersistentRunner
from gpu_anneal.sudoku_solver import SPARE_STRIDE

LABEL = "a model (virtual card), not a measurement"
OUT = results("gpu") / "virtual_card"
TOLERANCE = 0.25  # a modeled wall within this share of the measured one
CALIBRATION = ("iso6000", "iso6000c64", "iso60000")  # card_vs_cores.json workloads
DESIGN_CHAINS = (64, 1056)
FIT_RUNS = ("iso6000", "iso6000c64")  # the runs the two fitted figures come from
HALF_WARPS = (8.0, 12.0, 18.0, 27.0, 40.0, 60.0)  # n_half tried (card_model.Kernel.pace)
HOST_SHARES = (0.25, 0.35, 0.5, 0.7, 1.0, 1.4)  # rho tried: the card host's share of h
FIT_SHARE = 0.5  # rho while n_half is fitted
HOST_CORES = 16  # the card machine's cores (card_vs_cores.json)


class Profiles:
    """Solve profiles by first stream: (pick, proposals, trials) of a slot's solving chain.

    Exact where the file holds the slot (a puzzle's own chains); otherwise from `twin` (a
    callable (q, m, c) computing it on the CPU) when given, else the profile of another isomorph
    of the same base puzzle: position (q + m x base) mod n, n the file's first positions at c
    chains, a multiple of the base set's size (`exact` and `substituted` count each kind)."""

    def __init__(self, table: dict, base: int, twin: Callable | None = None):
        self.table, self.base, self.twin = table, base, twin
        self.exact = self.substituted = 0
        self._known: dict = {}
        self._span: dict[int, int] = {}

    def span(self, cpp: int) -> int:
        """n: the file's positions 0..n-1 at cpp chains, n a multiple of the base set's size."""
        if cpp not in self._span:
            rows, n = self.table.get(cpp, {}), 0
            while n in rows:
                n += 1
            self._span[cpp] = n - n % self.base
        return self._span[cpp]

    def __call__(self, first: int, cpp: int) -> tuple[int, int, int]:
        m, q = first // SPARE_STRIDE, (first % SPARE_STRIDE) // cpp
        rows = self.table.get(cpp, {})
        if m == 0 and q in rows:
            self.exact += 1
            return rows[q]
        if self.twin is not None:
            if (q, m, cpp) not in self._known:
                with real_pool():
                    self._known[q, m, cpp] = self.twin(q, m, cpp)
            self.exact += 1
            return self._known[q, m, cpp]
        n = self.span(cpp)
        if n == 0:
            raise SystemExit(f"no solve profiles at {cpp} chains a puzzle in {PROFILES.name}: "
                             "run python -m benchmarks.solve_profiles")  # fmt: skip
        self.substituted += 1
        return rows[(q + m * self.base) % n]


@dataclass
class Workload:
    """Puzzles to run: their givens and solutions, chains a puzzle and slots (None: the plan's)."""

    name: str
    label: str
    puzzles: np.ndarray
    solutions: np.ndarray
    chains: int | None = None
    slots: int | None = None
    spare: bool = True  # spare chains once the input is exhausted (the card's default)


def isomorph_set(path: Path, count: int) -> tuple[np.ndarray, np.ndarray, int]:
    """(puzzles, solutions, base set size): the first `count` isomorphs of benchmarks/
    card_vs_cores.py (seed SEED) of the file's puzzles, solved through their base puzzles."""
    base = base_puzzles(path)
    solutions = np.zeros_like(base)
    for k, cells in enumerate(base):
        found, solution, _ = solve_exact(cells, 3, limit=1)
        if found < 1:
            raise SystemExit(f"{path}: puzzle {k} has no solution")
        solutions[k] = solution
    puzzles, solved = isomorphs(base, count, SEED, solutions)
    return puzzles, solved, len(base)


class _PoolClock(types.SimpleNamespace):
    """The `time` module as the pool sees it: perf_counter is the virtual clock's."""

    def __getattr__(self, name):
        return getattr(time, name)


@contextmanager
def modeled_card(factory: Callable, clock: VirtualClock, persistent: Callable | None = None):
    """While inside: the `cuda` backend is usable, plans for the described card, builds its
    runners with factory(batch, backend, seed) (the persistent pool's with
    persistent(batch, rows, seed, spare)), and the pools read `clock` (a sleep spends its
    seconds); each run warms up as a fresh process does. Everything is put back on leaving."""
    saved = (backends.cuda_status, plan.current_card, sudoku_solver.make_runner,
             sudoku_solver.time, persistent_pool.PersistentRunner, persistent_pool.time,
             set(solvers._warm))  # fmt: skip
    backends.cuda_status = lambda: (True, f"a modeled {card_model.CARD} (virtual card)")
    plan.current_card = lambda: plan.card_named(card_model.CARD)
    sudoku_solver.make_runner = factory
    sudoku_solver.time = _PoolClock(perf_counter=clock.perf_counter)
    persistent_pool.time = _PoolClock(perf_counter=clock.perf_counter, sleep=clock.spend)
    if persistent is not None:
        persistent_pool.PersistentRunner = persistent
    solvers._warm.clear()
    try:
        yield
    finally:
        (backends.cuda_status, plan.current_card, sudoku_solver.make_runner,
         sudoku_solver.time, persistent_pool.PersistentRunner, persistent_pool.time,
         warm) = saved  # fmt: skip
        solvers._warm.clear()
        solvers._warm.update(warm)


def model_run(w: Workload, profiles: Profiles, kernel: card_model.Kernel,
              host: card_model.Host, overlaps: bool = True) -> tuple[list, list]:  # fmt: skip
    """Run the workload through the pool (gpu_anneal.api.solve_stream, `cuda` backend) on the
    modeled card: (its runners, the warm-up's first; its Results in completion order)."""
    clock = VirtualClock()
    runners: list[ModeledRunner] = []

    def factory(batch, used, seed):
        cpp = batch.cpp
        runner = ModeledRunner(
            batch, seed, lambda first: profiles(first, cpp),
            lambda first: w.solutions[(first % SPARE_STRIDE) // cpp], clock,
            kernel.slice_seconds, host.round_gap, host.per_puzzle, overlaps,
        )  # fmt: skip
        runners.append(runner)
        return runner

    with tempfile.TemporaryDirectory(prefix="virtual_card_") as tmp:
        path = Path(tmp) / f"{w.name}.txt"
        path.write_text("".join(line(p) + "\n" for p in w.puzzles))
        with modeled_card(factory, clock):
            found = list(gpu_anneal.solve_stream(
                str(path), backend="cuda", chains=w.chains, batch=w.slots,
                fixed_chains=not w.spare, pool="slices",
            ))  # fmt: skip
    return runners, found


def model_persistent(w: Workload, profiles: Profiles, kernel: card_model.Kernel,
                     host: card_model.Host) -> tuple[list, list]:  # fmt: skip
    """Run the workload through the persistent pool as built (gpu_anneal.api.solve_stream,
    `cuda` backend, pool "persistent": its host loop, gpu_anneal.persistent_pool) on the
    modeled card (gpu_anneal.standin_persistent): (its runners, the warm-up's first; its
    Results in completion order)."""
    clock = VirtualClock()
    runners: list[ModeledPersistentRunner] = []

    def persistent(batch, rows, seed, spare):
        cpp = batch.cpp
        runner = ModeledPersistentRunner(
            batch, rows, seed, spare, lambda first: profiles(first, cpp),
            lambda first: w.solutions[(first % SPARE_STRIDE) // cpp], clock, kernel,
            host.per_puzzle,
        )  # fmt: skip
        runner.started_at = clock.now
        runners.append(runner)
        return runner

    with tempfile.TemporaryDirectory(prefix="virtual_card_") as tmp:
        path = Path(tmp) / f"{w.name}.txt"
        path.write_text("".join(line(p) + "\n" for p in w.puzzles))
        with modeled_card(real_make_runner, clock, persistent):
            found = []
            for result in gpu_anneal.solve_stream(
                str(path), backend="cuda", chains=w.chains, batch=w.slots,
                fixed_chains=not w.spare, pool="persistent",
            ):  # fmt: skip
                found.append(result)
            runners[-1].ended_at = clock.now
    return runners, found


def run_persistent_pool(w: Workload, profiles: Profiles, kernel: card_model.Kernel,
                        host: card_model.Host) -> dict:  # fmt: skip
    """The summary of the workload's run through the persistent pool as built on the modeled
    card: span from its runner's making to the last result, useful fraction = each puzzle's
    chains up to the plateau of its solve over the resident chains' proposals while launches
    ran (at the full card's pace)."""
    exact, substituted = profiles.exact, profiles.substituted
    runners, results = model_persistent(w, profiles, kernel, host)
    unsolved = [r.index for r in results if not r.solved]
    if unsolved:
        raise SystemExit(f"the modeled run left {len(unsolved)} puzzles unsolved: {unsolved[:5]}")
    main = runners[-1]
    span = main.ended_at - main.started_at
    launched = main.groups * main.cpp * main.busy * kernel.resident_chain_rate
    return {
        "name": w.name, "label": w.label, "pool": "persistent (as built)",
        "puzzles": len(results), "chains": main.cpp, "slots": main.groups,
        "slices": 0, "launches": main.launches, "kernel_seconds": main.busy,
        "span_seconds": span, "wall_seconds": span + host.start_and_exit,
        "puzzles_per_second": len(results) / span,
        "useful_fraction": main.useful / launched if launched else None,
        "live_slot_share": None, "useful_share_of_live": None,
        "spare_groups": main.joined, "median_search_seconds": None,
        "p90_search_seconds": None, "host_per_puzzle_us": host.per_puzzle * 1e6,
        "round_gap_ms": None, "profiles_exact": profiles.exact - exact,
        "profiles_substituted": profiles.substituted - substituted,
    }  # fmt: skip


@contextmanager
def real_pool():
    """While inside (within modeled_card): pools run on their real runners and clock (the CPU
    twin computing a profile while a modeled run asks for it)."""
    saved = sudoku_solver.make_runner, sudoku_solver.time
    sudoku_solver.make_runner, sudoku_solver.time = real_make_runner, time
    try:
        yield
    finally:
        sudoku_solver.make_runner, sudoku_solver.time = saved


def run_slices(w: Workload, profiles: Profiles, kernel: card_model.Kernel,
               host: card_model.Host, overlaps: bool = True) -> dict:  # fmt: skip
    """The summary (summarize) of the workload's run through the pool on the modeled card."""
    exact, substituted = profiles.exact, profiles.substituted
    runners, results = model_run(w, profiles, kernel, host, overlaps)
    found = [(r.index, r.solved, r.timing.search, r.counts.chain_proposals, r.params.chains)
             for r in results]  # fmt: skip
    out = summarize(runners, found, kernel.plateau, host)
    out.update(
        name=w.name, label=w.label, pool="slices" if overlaps else "refill first",
        profiles_exact=profiles.exact - exact,
        profiles_substituted=profiles.substituted - substituted,
    )  # fmt: skip
    return out


def quantile(values: list[float], q: float) -> float:
    """The q-quantile (nearest rank) of values."""
    ranked = sorted(values)
    return ranked[min(len(ranked) - 1, max(0, math.ceil(q * len(ranked)) - 1))]


def summarize(runners: list[ModeledRunner], found: list[tuple], plateau: int, host) -> dict:
    """A run's figures from its runners' slices and its results ((index, solved, search
    seconds, solving chain's proposals, chains) a puzzle)."""
    unsolved = [i for i, ok, *_ in found if not ok]
    if unsolved:
        raise SystemExit(f"the modeled run left {len(unsolved)} puzzles unsolved: {unsolved[:5]}")
    main = runners[-1]  # the pool's runner (a warm-up runner comes first)
    cpp, slots = main.batch.cpp, main.batch.puzzles
    slices = [s for r in runners for s in r.slices]
    work = [s for s in main.slices if s.budget > 0]
    span = max(r.last_status_at for r in runners) - min(r.first_run_at for r in runners)
    kernel_s = sum(s.seconds for s in slices)
    useful = sum(c * -(-t // plateau) * plateau for *_, t, c in found if t is not None)
    launched = sum(s.slots * cpp * s.budget * plateau for s in work)
    live_work = sum(s.live_chains * s.budget * plateau for s in work)
    live_share = sum(s.live * s.budget for s in work) / sum(s.slots * s.budget for s in work)
    search = [x for _, _, x, *_ in found]
    return {
        "puzzles": len(found),
        "chains": cpp,
        "slots": slots,
        "slices": len(slices),
        "kernel_seconds": kernel_s,
        "span_seconds": span,
        "wall_seconds": span + host.start_and_exit,
        "puzzles_per_second": len(found) / span,
        "useful_fraction": useful / launched,
        "live_slot_share": live_share,
        "useful_share_of_live": useful / live_work,
        "kernel_per_slice_ms": 1e3 * kernel_s / max(1, len(work)),
        "median_search_seconds": statistics.median(search),
        "p90_search_seconds": quantile(search, 0.9),
        "host_per_puzzle_us": host.per_puzzle * 1e6,
        "round_gap_ms": host.round_gap * 1e3,
    }


def run_persistent_design(w: Workload, profiles: Profiles, kernel: card_model.Kernel,
                          host: card_model.Host, cores: int) -> dict:  # fmt: skip
    """The persistent pool's model on the workload (w.chains chains a puzzle)."""
    cpp = w.chains
    exact, substituted = profiles.exact, profiles.substituted
    r = run_persistent(
        lambda first: profiles(first, cpp), len(w.puzzles), cpp, kernel, host.per_puzzle, cores
    )
    return {
        "name": w.name, "label": w.label,
        "pool": f"persistent, host on {cores} core{'s' if cores > 1 else ''}",
        "puzzles": len(w.puzzles), "chains": cpp, "slots": kernel.wave // cpp, "slices": 0,
        "kernel_seconds": r.device_span, "span_seconds": r.span,
        "wall_seconds": r.span + host.start_and_exit,
        "puzzles_per_second": len(w.puzzles) / r.span,
        "useful_fraction": r.useful / r.launched, "live_slot_share": None,
        "useful_share_of_live": None, "host_seconds": r.host_seconds,
        "spare_groups": r.spare_groups, "median_search_seconds": None,
        "p90_search_seconds": None, "host_per_puzzle_us": host.per_puzzle * 1e6,
        "round_gap_ms": None, "profiles_exact": profiles.exact - exact,
        "profiles_substituted": profiles.substituted - substituted,
    }  # fmt: skip


def measured(row: dict) -> dict:
    """A committed card run's figures (card_vs_cores.json row)."""
    span, kernel_s, slices = card_model.span_of(row)
    return {
        "wall_seconds": row["wall_seconds"], "span_seconds": span, "kernel_seconds": kernel_s,
        "slices": slices, "median_search_seconds": row["median_search_seconds"],
        "p90_search_seconds": row["p90_search_seconds"], "command": row["command"],
    }  # fmt: skip


def calibration_workloads(puzzles, solutions) -> list[Workload]:
    """The committed card runs as workloads: their puzzles, the chains and slots their pool ran
    with (the last runner the run made), and no spare chains (their code had none)."""
    rows = card_model.card_runs()
    out = []
    for name in CALIBRATION:
        row = rows[name]
        runner = row["kernel_busy"]["events"]["runners"][-1]
        n = row["puzzles"]
        chains, slots = runner["chains_per_puzzle"], runner["puzzles"]
        out.append(Workload(name, row["label"], puzzles[:n], solutions[:n], chains, slots,
                            spare=False))  # fmt: skip
    return out


def fit(workloads: list[Workload], profiles: Profiles, log) -> tuple[float, float, list]:
    """(n_half, rho, every run tried): n_half of the kernel model that brings the workloads'
    modeled kernel seconds closest to the measured ones (least squares of their logs, rho
    FIT_SHARE), then the host's share rho that does the same for their device gaps (solve
    span less kernel seconds: the host's part)."""
    rows, tried = card_model.card_runs(), []

    def error(half: float, share: float, key: str) -> float:
        kernel = card_model.kernel(half_warps=half)
        host = card_model.host(card_model.RUNS_COMMIT, share)
        total = 0.0
        for w in workloads:
            got, want = run_slices(w, profiles, kernel, host), measured(rows[w.name])
            tried.append({
                "half_warps": half, "host_share": share, "name": w.name,
                "kernel_seconds": got["kernel_seconds"], "span_seconds": got["span_seconds"],
                "slices": got["slices"],
            })  # fmt: skip
            if key == "gap_seconds":
                got["gap_seconds"] = got["span_seconds"] - got["kernel_seconds"]
                want["gap_seconds"] = want["span_seconds"] - want["kernel_seconds"]
            total += math.log(got[key] / want[key]) ** 2
        log(f"fit: n_half {half:g}, rho {share:g}: {key} error {total:.4f}")
        return total

    half = min(HALF_WARPS, key=lambda h: error(h, FIT_SHARE, "kernel_seconds"))
    share = min(HOST_SHARES, key=lambda r: error(half, r, "gap_seconds"))
    return half, share, tried


def calibrate(args) -> dict:
    """Fit the model on the 6,000-isomorph card runs, check it on all three, and when every
    modeled wall is within TOLERANCE, the prediction and the designs."""

    def log(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    count = max(r["puzzles"] for r in card_model.card_runs().values())
    puzzles, solutions, base = isomorph_set(Path(args.file), count)
    profiles = Profiles(load_profiles(Path(args.profiles)), base)
    rows = card_model.card_runs()
    workloads = calibration_workloads(puzzles, solutions)
    half, share, tried = fit([w for w in workloads if w.name in FIT_RUNS], profiles, log)
    kernel = card_model.kernel(half_warps=half)
    then = card_model.host(card_model.RUNS_COMMIT, share)
    now = card_model.host("HEAD", share)
    runs = []
    for w in workloads:
        got = run_slices(w, profiles, kernel, then)
        want = measured(rows[w.name])
        runs.append({"name": w.name, "label": w.label, "fitted_on": w.name in FIT_RUNS,
                     "measured": want, "modeled": got,
                     "error": got["wall_seconds"] / want["wall_seconds"] - 1})  # fmt: skip
        log(f"{w.name}: measured {want['wall_seconds']:.2f} s, modeled "
            f"{got['wall_seconds']:.2f} s ({runs[-1]['error']:+.0%}); slices "
            f"{want['slices']} / {got['slices']}")  # fmt: skip
    within = all(abs(r["error"]) <= TOLERANCE for r in runs)
    result = {
        "model": LABEL, "card": card_model.CARD,
        "kernel": kernel.__dict__ | {"resident_chain_rate": kernel.resident_chain_rate,
                                     "dispersion": kernel.dispersion},
        "fit": {"half_warps": half, "host_share": share, "runs": list(FIT_RUNS),
                "half_warps_grid": list(HALF_WARPS), "host_share_grid": list(HOST_SHARES),
                "tried": tried},
        "ncu_half_warps": card_model.ncu_half_warps(),
        "host_then": then.__dict__, "host_now": now.__dict__, "host_cores": HOST_CORES,
        "profiles_file": _shown(Path(args.profiles)),
        "tolerance": TOLERANCE, "runs": runs, "within": within, "predicted": None, "designs": [],
    }  # fmt: skip
    if not within:
        return result
    full = Workload("iso60000", f"{count:,} random isomorphs", puzzles, solutions)
    before = run_slices(full, profiles, kernel, now)  # the slice pool's older loop
    before["pool"] = "slices, refill after the relaunch (before)"
    result["before"] = before
    built = run_persistent_pool(full, profiles, kernel, now)
    result["predicted"] = built
    for d, when in ((before, "before"), (built, "as built")):
        log(f"{when}: {d['puzzles_per_second']:,.0f} puzzles/s, useful "
            f"{d['useful_fraction']:.1%}")  # fmt: skip
    for chains in DESIGN_CHAINS:
        w = Workload(f"iso60000c{chains}", f"{count:,} isomorphs, {chains} chains a puzzle",
                     puzzles, solutions, chains)  # fmt: skip
        result["designs"].append(run_slices(w, profiles, kernel, now, overlaps=False))
        result["designs"][-1]["pool"] = "slices, refill first (as built, --pool slices)"
        if chains != built["chains"]:
            result["designs"].append(run_persistent_pool(w, profiles, kernel, now))
        for cores in (1, HOST_CORES):
            result["designs"].append(run_persistent_design(w, profiles, kernel, now, cores))
            result["designs"][-1]["pool"] += " (the older design model)"
        for d in result["designs"][-3:]:
            log(f"{d['pool']}, {chains} chains: {d['puzzles_per_second']:,.0f} puzzles/s, "
                f"useful {d['useful_fraction']:.1%}")  # fmt: skip
    return result


def _shown(path: Path) -> str:
    """A path relative to the repository where it lies in it."""
    path = path.resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def last_line(result: dict) -> dict:
    """The --json line: each run's measured and modeled wall, and the prediction."""
    runs = [
        {"name": r["name"], "measured_s": round(r["measured"]["wall_seconds"], 3),
         "modeled_s": round(r["modeled"]["wall_seconds"], 3)}
        for r in result["runs"]
    ]  # fmt: skip
    p = result["predicted"]
    predicted = None if p is None else {
        "iso60000_puzzles_per_second": round(p["puzzles_per_second"], 1),
        "useful_fraction": round(p["useful_fraction"], 4),
    }  # fmt: skip
    return {"runs": runs, "predicted": predicted}


def _pct(x) -> str:
    return "-" if x is None else f"{x:.1%}"


def render(result: dict) -> str:
    """The report: the calibration table, the prediction and the designs."""
    cal = []
    for r in result["runs"]:
        m, g = r["measured"], r["modeled"]
        cal.append((
            f"{r['name']} ({g['slots']:,} x {g['chains']:,}; "
            + ("fitted on)" if r["fitted_on"] else "check)"),
            f"{m['wall_seconds']:.2f}", f"{g['wall_seconds']:.2f}", f"{r['error']:+.0%}",
            f"{m['span_seconds']:.2f} / {g['span_seconds']:.2f}",
            f"{m['kernel_seconds']:.2f} / {g['kernel_seconds']:.2f}",
            f"{m['slices']:,} / {g['slices']:,}",
            f"{m['median_search_seconds'] * 1e3:.0f} / {g['median_search_seconds'] * 1e3:.0f}",
            _pct(g["live_slot_share"]), _pct(g["useful_share_of_live"]),
            _pct(g["useful_fraction"]),
        ))  # fmt: skip
    k, m, fitted = result["kernel"], result["machine"], result["fit"]
    then, now = result["host_then"], result["host_now"]
    full = k["blocks_per_sm"] * k["threads_per_block"] // 32
    lines = table_block(
        "# The virtual card: the pool on a modeled card (a model, not a measurement)\n\n"
        "The pool's own code (`gpu_anneal.api.solve_stream`, `cuda` backend, the default "
        f"technique) runs against a modeled {result['card']} (`benchmarks/virtual_card.py`, "
        "`benchmarks/card_model.py`): each puzzle's solving chain and its proposals from the "
        f"CPU runner's chains (`{result['profiles_file']}`); a chain "
        f"{k['resident_chain_rate'] / 1e3:,.0f}k proposals/s on a full card ({k['gpu']}, "
        "`gpu/gpu_throughput.json`, 4 waves), a launch of B plateaus a chain lasting "
        f"(1 + {k['dispersion']:.2f} / sqrt(B)) times its mean warp (the same file's one-wave "
        f"rate), blocks of {k['threads_per_block']} chains on {k['sms']} SMs x "
        f"{k['blocks_per_sm']}, an SM's warps sharing it: n active warps each at (N + n_half) "
        f"/ (n + n_half) of the full card's pace, N = {full}, n_half = "
        f"{fitted['half_warps']:g} (fitted; Nsight Compute's figures would give "
        f"{result['ncu_half_warps']['half_warps']:.1f}). The host modeled: "
        f"{now['round_gap'] * 1e3:.2f} ms of gap a round (iso60000's span less its kernel "
        f"seconds, over its slices); rho = {fitted['host_share']:g} (fitted) of bench_host's "
        "seconds a puzzle (`host/host.json`, 2 cores of an AMD EPYC): "
        f"{then['per_puzzle'] * 1e6:.0f} us for the committed runs' code "
        f"({then['per_puzzle_commit']}), {now['per_puzzle'] * 1e6:.1f} us for this code "
        f"({now['per_puzzle_commit']}); start-up and exit {then['start_and_exit']:.2f} s (the "
        "committed runs' wall less span, not modeled). n_half and rho are fitted on "
        f"{' and '.join(fitted['runs'])} (n_half to their kernel seconds, then rho to their "
        "device gaps: span less kernel seconds); the other run checks.\n\n"
        f"## Calibration: the committed card runs (`gpu/card_vs_cores.json`, commit "
        f"{card_model.RUNS_COMMIT}, no spare chains then), within {result['tolerance']:.0%} "
        "before any prediction",
        ("run (slots x chains)", "measured s", "modeled s", "error", "span s meas. / model",
         "kernel s meas. / model", "slices meas. / model", "median search ms meas. / model",
         "live-slot share", "useful share of a live slot", "useful fraction"),
        cal,
        "Wall: start-up, solve span and exit. Useful: each puzzle's chains up to the plateau of "
        "its solve; live-slot share x useful share = useful fraction. "
        + ("All within the tolerance." if result["within"] else
           "**Not all within the tolerance: no prediction is quoted.**"),
    )  # fmt: skip
    p = result["predicted"]
    if p is not None:
        rows = [_design_row(d, d["pool"]) for d in (result.get("before"), p) if d] + [
            _design_row(d, d["pool"]) for d in result["designs"]
        ]
        lines += table_block(
            "## Prediction: 60,000 isomorphs, this code's host (a model)",
            ("pool", "slots x chains", "span s", "puzzles/s (span)", "useful fraction",
             "live-slot share", "useful share of a live slot", "slices"),
            rows,
            "Puzzles/s over the solve span (start-up not counted). Before: the default plan on "
            "the slice pool as it was, the refill queued after the relaunch, spare chains once "
            "the input is exhausted. Persistent (as built): the default plan on the persistent "
            "pool's own host loop (`gpu_anneal.persistent_pool`, one host core) against its "
            "modeled device (`gpu_anneal.standin_persistent`: a group of a puzzle's chains "
            "takes the next published puzzle when its own is solved; modeled drains of "
            "20 us, launches and host-to-device copies of 10 us); useful fraction over the "
            "resident chains' proposals while launches ran. Slices, refill first: the slice "
            "pool as built now "
            "(`--pool slices`). The older design model: `benchmarks/persistent_model.py` (the "
            f"host on one core or the card machine's {result['host_cores']}). Puzzles from "
            "6,000 on take the profiles of the first 6,000 (an isomorph of the same base "
            "puzzle), spare slots that of another isomorph of their base: as built "
            f"{p['profiles_exact']:,} slots exact, {p['profiles_substituted']:,} substituted.",
        )  # fmt: skip
    lines.append(
        f"Command: `{result['command']}` (commit {result['commit']}, {m.get('cpu', '?')}, "
        f"{m.get('cores', '?')} cores, {m.get('date', '?')}; the model's own run took "
        f"{result['seconds']:.0f} s)."
    )
    return "\n".join(lines) + "\n"


def _design_row(d: dict, pool: str) -> tuple:
    return (
        pool, f"{d['slots']:,} x {d['chains']:,}", f"{d['span_seconds']:.2f}",
        f"{d['puzzles_per_second']:,.0f}", _pct(d["useful_fraction"]),
        _pct(d["live_slot_share"]), _pct(d["useful_share_of_live"]), f"{d['slices']:,}",
    )  # fmt: skip


def committed_fit() -> tuple[float, float]:
    """(n_half, rho) of the committed calibration (OUT.json), or a flat pace and bench_host's
    own seconds where there is none."""
    path = OUT.with_suffix(".json")
    if not path.exists():
        return math.inf, 1.0
    fitted = json.loads(path.read_text())["fit"]
    return fitted["half_warps"], fitted["host_share"]


def single(args) -> dict:
    """One modeled run of --puzzles isomorphs with this code's host, the committed fit (or
    --half-warps, --host-share)."""
    half, share = committed_fit()
    half = args.half_warps if args.half_warps is not None else half
    share = args.host_share if args.host_share is not None else share
    kernel, now = card_model.kernel(half_warps=half), card_model.host("HEAD", share)
    puzzles, solutions, base = isomorph_set(Path(args.file), args.puzzles)
    profiles = Profiles(load_profiles(Path(args.profiles)), base)
    w = Workload(f"iso{args.puzzles}", f"{args.puzzles:,} random isomorphs", puzzles,
                 solutions, args.chains, args.batch)  # fmt: skip
    if args.pool == "persistent":
        return run_persistent_pool(w, profiles, kernel, now)
    if args.pool == "persistent-model":
        if args.chains is None:
            raise SystemExit("--pool persistent-model: give --chains")
        return run_persistent_design(w, profiles, kernel, now, args.host_cores)
    return run_slices(w, profiles, kernel, now, overlaps=args.pool == "slices")


def main() -> None:
    """Run the benchmark: parse the command line, measure, write the results."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calibrate", action="store_true", help="the committed runs, then predict")
    ap.add_argument("--json", action="store_true", help="last line: the runs and the prediction")
    ap.add_argument("--save", action="store_true", help="write OUT.json and OUT.md")
    ap.add_argument("--file", default=str(SUDOKU_DATA / "forum_hardest_1106.txt"))
    ap.add_argument("--profiles", default=str(PROFILES))
    ap.add_argument("--puzzles", type=int, default=60000)
    ap.add_argument("--chains", type=int, default=None)
    ap.add_argument("--batch", type=int, default=None)
    ap.add_argument(
        "--pool",
        default="slices",
        choices=("slices", "refill-first", "persistent", "persistent-model"),
    )
    ap.add_argument("--host-cores", type=int, default=1)
    ap.add_argument("--half-warps", type=float, default=None, help="n_half (default: the fit)")
    ap.add_argument("--host-share", type=float, default=None, help="rho (default: the fit)")
    add_out_arguments(ap, OUT)
    args = ap.parse_args()
    if args.render:
        rerender(args.out, render)
        return
    start = time.perf_counter()
    if not args.calibrate:
        print(json.dumps(single(args) | {"model": LABEL}))
        return
    result = calibrate(args)
    result.update(
        command="python -m benchmarks.virtual_card " + " ".join(sys.argv[1:]),
        commit=git("rev-parse", "--short", "HEAD"), machine=machine(),
        seconds=time.perf_counter() - start,
    )  # fmt: skip
    if args.save:
        write_results(args.out, result, render)
    else:
        print(render(result))
    if args.json:
        print(json.dumps(last_line(result)))
    if not result["within"]:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
