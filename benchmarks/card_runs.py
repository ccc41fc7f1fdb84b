"""One `gpu-anneal` command in a fresh process, timed as a user runs it, its results checked.

A run is `python -m gpu_anneal ARGS --out R -q` (or, on the card, the same entry point through
benchmarks.kernel_events, which also times every slice by CUDA events) with the repository on
PYTHONPATH and GPU_ANNEAL_CACHE_DIR set to the cache the caller names (NUMBA_CACHE_DIR removed, so
numba's cache sits under that root too). Its wall seconds run from just before the process is
started to its exit: start-up, reading, compilation or loading of cached code, solving and
writing included. Afterwards every JSON line of R is read back and each reported solution is
checked here, apart from the engine's own check: a complete grid whose rows, columns and boxes
hold each digit once and that keeps the givens of the puzzle at its index in the input.

While a run on the card lasts, nvidia-smi samples the card's utilization in the background
(benchmarks.smi_sampler). Glossary: wall (the process, start to exit), solve span (first slice
started to last status read, from the events), start-up (process start to first slice).
"""

from __future__ import annotations

import json
import math
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from benchmarks import smi_sampler
from benchmarks.paths import ROOT
from cpu_reference.sudoku.verify import verify_many

EVENTS_MODULE = "benchmarks.kernel_events"
INTERRUPT_GRACE = 20.0  # seconds a stopped run gets to write its finished results (SIGINT)


def sigint_default() -> None:
    """A subprocess preexec_fn: SIGINT's default action in the child, so that the SIGINT that
    stops a run reaches it even when this script was started with SIGINT ignored (a shell's
    background job), which the command line would otherwise keep."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@dataclass
class Command:
    """A gpu-anneal command to time: its arguments (after the program name, without --out),
    the backend it names, the givens of its input in file order (None: nothing to check), the
    cache root it runs with, whether to time slices by events, and its time allowance."""

    args: list[str]
    backend: str
    givens: list[np.ndarray] | None
    order: int
    cache: Path
    events: bool = False
    timeout: float = 600.0
    extra: dict = field(default_factory=dict)


def cache_entries(root: Path) -> int:
    """Compiled entries (numba index and data files) under a cache root."""
    if not root.exists():
        return 0
    return sum(1 for p in root.rglob("*") if p.suffix in (".nbi", ".nbc"))


def child_env(cache: Path, events_file: Path | None) -> dict:
    """The environment of a run: this one, with the repository on PYTHONPATH and the cache set."""
    env = dict(os.environ)
    env.pop("NUMBA_CACHE_DIR", None)
    env["GPU_ANNEAL_CACHE_DIR"] = str(cache)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    if events_file is not None:
        env["BENCH_KERNEL_EVENTS"] = str(events_file)
    return env


def argv(command: Command, out: Path) -> list[str]:
    """The process's argument vector."""
    entry = EVENTS_MODULE if command.events else "gpu_anneal"
    return [sys.executable, "-m", entry, *command.args, "--out", str(out), "-q"]


def shown(command: Command) -> str:
    """The command as a user types it (the events wrapper named when it ran; an input file by
    its name alone, R the results file)."""
    prefix = f"python -m {EVENTS_MODULE} " if command.events else "gpu-anneal "
    args = [Path(a).name if os.path.isabs(a) and Path(a).exists() else a for a in command.args]
    return prefix + " ".join(args) + " --out R -q"


def run(command: Command) -> dict:
    """Run the command once; its record (see `record`)."""
    with tempfile.TemporaryDirectory(prefix="card_run_") as tmp:
        out = Path(tmp) / "results.jsonl"
        events_file = Path(tmp) / "events.json" if command.events else None
        before = cache_entries(command.cache)
        sampler = smi_sampler.Sampler() if command.backend == "cuda" else None
        stopped = None
        start = time.time()
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            argv(command, out),
            cwd=ROOT,
            env=child_env(command.cache, events_file),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=sigint_default,
        )
        try:
            _, err = proc.communicate(timeout=max(1.0, command.timeout))
        except subprocess.TimeoutExpired:
            stopped = f"stopped after {command.timeout:.0f} s (the run's allowance)"
            proc.send_signal(signal.SIGINT)  # finished puzzles are written before exit 130
            try:
                _, err = proc.communicate(timeout=INTERRUPT_GRACE)
            except subprocess.TimeoutExpired:
                proc.kill()
                _, err = proc.communicate()
        wall = time.perf_counter() - t0
        end = time.time()
        samples = sampler.stop() if sampler else []
        lines = out.read_text().splitlines() if out.exists() else []
        events = (
            json.loads(events_file.read_text()) if events_file and events_file.exists() else None
        )
        rec = record(command, lines, wall, proc.returncode, err)
        rec.update(stopped=stopped, cache_entries_added=cache_entries(command.cache) - before)
        if command.backend == "cuda":
            rec["kernel_busy"] = kernel_busy(samples, sampler, events, start, end)
            if events and events.get("first_slice_at"):
                rec["startup_seconds"] = events["first_slice_at"] - start
        return rec


def results_of(lines: list[str]) -> tuple[list[dict], int]:
    """The JSON objects of the result lines, and how many lines were not JSON objects."""
    found, bad = [], 0
    for text in lines:
        try:
            obj = json.loads(text)
        except ValueError:
            bad += 1
            continue
        if isinstance(obj, dict):
            found.append(obj)
        else:
            bad += 1
    return found, bad


def grid_of(result: dict) -> np.ndarray | None:
    """A result's solution as int[cells] (None when it reports none)."""
    rows = result.get("solution_rows")
    if rows:
        return np.asarray(rows, np.int64).ravel()
    text = result.get("solution")
    if isinstance(text, str) and text and "," not in text:
        return np.array([0 if ch == "." else int(ch, 36) for ch in text], np.int64)
    if isinstance(text, str) and text:
        return np.array(text.split(","), np.int64)
    return None


def checked(results: list[dict], givens: list[np.ndarray] | None, order: int) -> dict:
    """Counts of the results against the input: each index reported once, each reported solution
    a valid grid keeping its puzzle's givens (checked here)."""
    indices = [r.get("index") for r in results]
    out = {
        "results": len(results),
        "solved": sum(bool(r.get("solved")) for r in results),
        "engine_verified": sum(bool(r.get("verified")) for r in results),
        "errors": sum(r.get("error") is not None for r in results),
        "duplicate_indices": len(indices) - len(set(indices)),
    }
    if givens is None:
        return out
    out["puzzles"] = len(givens)
    out["missing"] = len(set(range(len(givens))) - set(indices))
    rows, puzzles = [], []
    for r in results:
        k, grid = r.get("index"), grid_of(r)
        if r.get("solved") and grid is not None and isinstance(k, int) and 0 <= k < len(givens):
            if grid.size == givens[k].size:
                rows.append(grid)
                puzzles.append(givens[k])
    faults = verify_many(np.stack(rows), order, np.stack(puzzles)) if rows else []
    out["checked_here"] = sum(f is None for f in faults)
    return out


def quantiles(results: list[dict], count: int) -> dict:
    """Median and p90 of the search seconds over `count` puzzles, an unsolved or missing puzzle
    counting as infinitely slow (None where the quantile falls on one)."""
    times = sorted(
        [r["timing"]["search"] if r.get("solved") else math.inf for r in results]
        + [math.inf] * max(0, count - len(results))
    )
    if not times:
        return {"median_search_seconds": None, "p90_search_seconds": None}
    median = statistics.median(times)
    p90 = times[min(len(times) - 1, math.ceil(0.9 * len(times)) - 1)]
    finite = lambda x: None if math.isinf(x) else x  # noqa: E731
    return {"median_search_seconds": finite(median), "p90_search_seconds": finite(p90)}


def record(command: Command, lines: list[str], wall: float, code: int, err: str) -> dict:
    """The record of a finished run: command, wall, exit code, counts and search quantiles."""
    results, bad = results_of(lines)
    counts = checked(results, command.givens, command.order)
    count = len(command.givens) if command.givens is not None else len(results)
    rec = {
        "command": shown(command),
        "backend": command.backend,
        "wall_seconds": wall,
        "exit_code": code,
        **counts,
        "unreadable_lines": bad,
        **quantiles(results, count),
        "puzzles_per_second": counts["results"] / wall if wall > 0 else None,
        "chains_per_puzzle": (results[0].get("params") or {}).get("chains") if results else None,
        "move": (results[0].get("params") or {}).get("move") if results else None,
        "backends_reported": sorted({str(r.get("backend")) for r in results}),
        **command.extra,
    }
    if code != 0:
        rec["stderr_tail"] = (err or "")[-1500:]
    return rec


def kernel_busy(samples, sampler, events: dict | None, start: float, end: float) -> dict:
    """The card's busy fractions: nvidia-smi's mean over the wall, over the solve span (events)
    and over its own active span; the events' kernel seconds over the solve span."""
    out: dict = {"smi_method": smi_sampler.METHOD, "smi_samples": len(samples)}
    if sampler is not None and sampler.why:
        out["smi_note"] = sampler.why
    out["smi_wall"] = smi_sampler.busy(samples, start, end)
    span = None
    if events and events.get("first_slice_at") and events.get("last_status_at"):
        span = (events["first_slice_at"], events["last_status_at"])
    out["smi_solve"] = smi_sampler.busy(samples, *span) if span else None
    active = smi_sampler.active_span(samples)
    out["smi_active"] = smi_sampler.busy(samples, *active) if active else None
    if events is not None:
        out["events"] = {
            k: v for k, v in events.items() if k not in ("first_slice_at", "last_status_at")
        }
        if span and span[1] > span[0] and events.get("timed"):
            out["events_solve"] = events["kernel_seconds"] / (span[1] - span[0])
            out["solve_span_seconds"] = span[1] - span[0]
    return out
