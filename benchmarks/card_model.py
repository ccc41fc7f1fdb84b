"""A card and its host as the virtual card models them: the kernel's per-chain pace, the
launch's blocks on the SMs, the host's seconds; the figures read from committed measurements,
two of them fitted to the committed card runs (benchmarks/virtual_card.py --calibrate).

Glossary: W wave (chains the card holds at once: SMs x resident blocks x threads a block), v a
chain's proposals a second, L proposals a plateau (81 at 9x9), B a slice's budget (plateaus),
N the warps an SM holds in a full launch (28), n the warps active on an SM, g the host's gap
a round (device idle between a slice's end and the next launch), h the host's seconds a puzzle
(reading, deduction, tables, verification, result), block 128 chains (threads).

Kernel (one-thread 9x9 kernel, focused-two, schedule auto, as gpu-anneal solve runs it):

    v(resident)  = the card's rate with blocks refilling the SMs / W     gpu_throughput.json,
                                                                          4 waves
    pace(n)      = v(resident) / L x (N + n_half) / (n + n_half)         a warp's plateaus a
                   second with n warps active on its SM: N at the measured rate, faster as
                   others stop (an SM gives n / (n + n_half) of its most); n_half fitted
    a launch     = block b of the first SMs x resident blocks on SM b mod SMs, later blocks
                   where a place frees first; each SM's warps share it at pace(n) while they
                   run; the launch lasts until its last warp ends, times (1 + c / sqrt(B)) for
                   its slowest warps, c such that one wave of the throughput run's B plateaus
                   runs at its measured rate (gpu_throughput.json, 1 wave against 4)

Host (modeled, not measured here):

    g  = (solve span - kernel seconds) / slices of the iso60000 card run (card_vs_cores.json):
         the run where the kernel fills the span, so the gap is the round's own cost
    h  = rho x bench_host's seconds a puzzle (host/host.json) at the last measured commit at or
         before the code that ran (a 2-core AMD EPYC); rho, the card host's share, fitted
    start-up and exit = wall - solve span of the card runs, their mean (not modeled)

For reference `ncu_half_warps` gives the n_half Nsight Compute's figures imply if an SM's most
were one instruction a scheduler a cycle (gpu/ncu/ncu_focused_two.txt); it is not used.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.paths import ROOT, results
from gpu_anneal import plan

CARD = "H100 SXM"  # the described card the pool is planned for (the committed runs' card)
THROUGHPUT = results("gpu") / "gpu_throughput.json"
CARD_RUNS = results("gpu") / "card_vs_cores.json"
NCU = results("gpu") / "ncu" / "ncu_focused_two.txt"
HOST = results("host") / "host.json"
MOVE = "focused-two"
RUNS_COMMIT = "ff6696e"  # the code the committed card runs ran


def _relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


WARP = 32


@dataclass(frozen=True)
class Kernel:
    """The 9x9 kernel on the card: its wave, blocks and per-chain rates.

    A warp's pace (plateaus a second) with n warps active on its SM:

        pace(n) = v(launch) / L x (N + n_half) / (n + n_half)

    N the warps an SM holds in a full launch (where the measured rate holds), n_half the
    active warps at which an SM gives half its most (infinite: flat, a warp's pace whatever the
    others do). The warps of an SM share it while they run: each runs at pace(n) for the
    warps then active, so as warps stop the others speed up."""

    card: str
    gpu: str  # the card the rates were measured on
    wave: int
    threads_per_block: int
    sms: int
    blocks_per_sm: int  # resident blocks an SM holds
    launch_rate: float  # proposals/s of the whole card, one wave launched at once
    resident_rate: float  # ... with blocks refilling the SMs (steady)
    plateau: int = 81
    half_warps: float = math.inf  # n_half
    launch_plateaus: float = 0.0  # plateaus a chain ran in the one-wave measurement (0: none)

    @property
    def places(self) -> int:
        """Resident-block places: SMs x resident blocks an SM."""
        return self.sms * self.blocks_per_sm

    @property
    def warps_per_block(self) -> int:
        """Warps in a block of the kernel (at least one)."""
        return max(1, self.threads_per_block // WARP)

    @property
    def full_warps(self) -> int:
        """N: the warps an SM holds in a full launch."""
        return self.blocks_per_sm * self.warps_per_block

    @property
    def chain_rate(self) -> float:
        """v(launch): a chain's proposals a second in a full launch of one wave."""
        return self.launch_rate / self.wave

    @property
    def resident_chain_rate(self) -> float:
        """v(resident): a chain's proposals a second while blocks keep the SMs full."""
        return self.resident_rate / self.wave

    @property
    def dispersion(self) -> float:
        """c: a launch of B plateaus a chain lasts (1 + c / sqrt(B)) times its mean warp's
        time (the slowest warps of a launch), c set so that the one-wave measurement (B its
        plateaus a chain) runs at its measured rate against the steady one."""
        if self.launch_plateaus <= 0:
            return 0.0
        return (self.resident_rate / self.launch_rate - 1) * math.sqrt(self.launch_plateaus)

    def pace(self, active) -> np.ndarray:
        """Plateaus a second of a warp with `active` warps running on its SM."""
        base = self.resident_chain_rate / self.plateau
        if math.isinf(self.half_warps):
            return np.full(np.shape(active), base)
        n = np.maximum(np.asarray(active, float), 1.0)
        return base * (self.full_warps + self.half_warps) / (n + self.half_warps)

    def slice_seconds(self, plateaus: np.ndarray, cpp: int) -> float:
        """Device seconds of a launch whose slot p's cpp chains run plateaus[p] plateaus each:
        chains in slot order, a warp as long as its longest chain, blocks of threads_per_block
        chains; block b of the first places on SM b mod SMs, each later block on the SM whose
        first block ends first (the hardware's dispatch to the first free place); the SM's
        warps sharing it (pace). The launch lasts until its last warp ends."""
        per_chain = np.repeat(np.asarray(plateaus, np.int64), cpp)
        chunk = self.threads_per_block
        pad = (-len(per_chain)) % chunk
        if pad:
            per_chain = np.concatenate([per_chain, np.zeros(pad, np.int64)])
        warps = per_chain.reshape(-1, min(WARP, chunk)).max(axis=1)
        blocks = warps.reshape(-1, self.warps_per_block)
        first, later = blocks[: self.places], blocks[self.places :]
        grid = np.zeros((self.places, self.warps_per_block), np.int64)
        grid[: len(first)] = first
        # place k of SM s holds block k x SMs + s
        per_sm = grid.reshape(self.blocks_per_sm, self.sms, -1).transpose(1, 0, 2)
        ends, first_block = self._shared_ends(per_sm)
        longest = int(warps.max(initial=0))
        slowest = 1 + self.dispersion / math.sqrt(longest) if longest else 1.0
        if not len(later):
            return slowest * float(ends.max(initial=0.0))
        empty = (per_sm.max(axis=2) == 0).sum(axis=1)  # places free from the start
        first_free = np.where(empty > 0, 0.0, first_block)  # else when its first block ends
        order = np.argsort(first_free, kind="stable")
        queues: dict[int, list] = {}
        for j, block in enumerate(later):
            queues.setdefault(int(order[j % self.sms]), []).append(block)
        for sm, queue in queues.items():
            now = min(len(queue), int(empty[sm]))  # these start with the launch
            start = np.array(queue[:now], np.int64).reshape(now, self.warps_per_block)
            blocks = np.concatenate([per_sm[sm], start])
            if now == len(queue):
                ends[sm] = self._shared_ends(blocks[None])[0][0]
            else:
                ends[sm] = self._shared_with_arrivals(blocks, np.array(queue[now:]))
        return slowest * float(ends.max(initial=0.0))

    def _shared_ends(self, blocks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(each SM's end, when its first block ends) when its blocks (SMs x blocks x warps of
        plateaus) start together and its warps share it."""
        w = np.sort(blocks.reshape(len(blocks), -1), axis=1)
        m = w.shape[1]
        steps = np.diff(w, axis=1, prepend=0)
        active = m - np.arange(m)  # warps still running through step j
        at = np.cumsum(steps / self.pace(active)[None, :], axis=1)  # when work w[:, j] is done
        shortest = blocks.max(axis=2).min(axis=1)  # the first block ends with its longest warp
        first = at[np.arange(len(w)), (w < shortest[:, None]).sum(axis=1)]
        return at[:, -1], first

    def _shared_with_arrivals(self, blocks: np.ndarray, queue: np.ndarray) -> float:
        """An SM's end when its resident blocks (rows of warps' plateaus) start together and
        each queued block starts as a place frees (when a block's last warp ends)."""
        rem = blocks.astype(float)
        queue = list(queue.astype(float))
        t = 0.0
        while True:
            done = rem.max(axis=1) <= 0
            while done.any() and queue:
                rem[np.flatnonzero(done)[0]] = queue.pop(0)
                done = rem.max(axis=1) <= 0
            live = rem > 0
            if not live.any():
                return t
            step = rem[live].min()
            t += step / float(self.pace(int(live.sum())))
            rem = np.where(live, rem - step, 0.0)


def throughput_rate(rows: list[dict], waves: int) -> dict:
    """The 9x9 focused-two row (schedule auto) of gpu_throughput.json at `waves` waves."""
    for r in rows:
        if (r["order"], r["move"], r["schedule"], r["waves"]) == (3, MOVE, "auto", waves):
            return r
    raise SystemExit(f"{_relative(THROUGHPUT)}: no 9x9 {MOVE} rate at {waves} waves")


def kernel(card: str = CARD, half_warps: float = math.inf, dispersion: bool = True) -> Kernel:
    """The kernel model of `card` with the committed H100 rates (gpu_throughput.json), the
    plan's blocks (gpu_anneal.plan: kernel shape and resident blocks of the described card)
    and n_half `half_warps`."""
    data = json.loads(THROUGHPUT.read_text())
    one, four = throughput_rate(data["cuda"], 1), throughput_rate(data["cuda"], 4)
    c = plan.card_named(card)
    shape = plan.kernel_shape(3, MOVE, c)
    wave = plan.wave_chains(c, shape)
    if wave != one["wave_chains"]:
        raise SystemExit(f"{card}: the plan's wave {wave:,} is not the measured one "
                         f"({one['wave_chains']:,}, {_relative(THROUGHPUT)})")  # fmt: skip
    return Kernel(
        card=c.name, gpu=data["machine"]["gpu"], wave=wave,
        threads_per_block=shape["threads_per_block"], sms=c.sms,
        blocks_per_sm=plan.resident_blocks(c, shape),
        launch_rate=one["proposals_per_second"], resident_rate=four["proposals_per_second"],
        half_warps=half_warps,
        launch_plateaus=one["proposals"] / one["chains"] / 81 if dispersion else 0.0,
    )  # fmt: skip


def ncu_figure(text: str, name: str) -> float:
    """A metric's value from an Nsight Compute text report."""
    found = re.search(rf"^\s*{re.escape(name)}\s+(?:\S+\s+)?([\d,.]+)\s*$", text, re.M)
    if not found:
        raise SystemExit(f"{_relative(NCU)}: no '{name}'")
    return float(found.group(1).replace(",", ""))


def ncu_half_warps() -> dict:
    """n_half as Nsight Compute's report implies it, were an SM's most one issue a scheduler a
    cycle (4 an SM): n (n / (n + n_half)) = issued, n the achieved active warps an SM."""
    text = NCU.read_text()
    active = ncu_figure(text, "Achieved Active Warps Per SM")
    issued = 4 * ncu_figure(text, "Issued Warp Per Scheduler")
    return {"source": _relative(NCU), "active_warps_per_sm": active, "issued_per_sm": issued,
            "half_warps": active * (4 / issued - 1)}  # fmt: skip


def card_runs() -> dict[str, dict]:
    """The committed card runs of the 9x9 isomorphs on the card (card_vs_cores.json, cuda,
    role measure), by workload."""
    data = json.loads(CARD_RUNS.read_text())
    return {
        r["workload"]: r
        for r in data["rows"]
        if r["backend"] == "cuda" and r["role"] == "measure" and r["workload"].startswith("iso")
    }


def span_of(row: dict) -> tuple[float, float, int]:
    """(solve span, kernel seconds, slices) of a card run's row."""
    busy = row["kernel_busy"]
    events = busy["events"]
    return busy["solve_span_seconds"], events["kernel_seconds"], events["slices"]


@dataclass(frozen=True)
class Host:
    """The host's modeled seconds."""

    round_gap: float  # g: a round's gap, device idle
    per_puzzle: float  # h: a puzzle's host work (overlaps the slice on the card)
    per_puzzle_commit: str  # bench_host's commit h was measured at
    start_and_exit: float  # wall - solve span, the committed runs' mean (not modeled)
    share: float = 1.0  # rho: h over bench_host's seconds a puzzle


def _ancestor(commit: str, of: str) -> bool:
    proc = subprocess.run(["git", "merge-base", "--is-ancestor", commit, of], cwd=ROOT,
                          capture_output=True)  # fmt: skip
    if proc.returncode not in (0, 1):
        raise SystemExit(f"git cannot order commits {commit} and {of} (a full clone is needed)")
    return proc.returncode == 0


def _depth(commit: str) -> int:
    out = subprocess.run(["git", "rev-list", "--count", commit], cwd=ROOT, capture_output=True,
                         text=True, check=True)  # fmt: skip
    return int(out.stdout)


def host_per_puzzle(commit: str) -> tuple[float, str]:
    """(seconds, commit) of bench_host's last row measured at or before `commit`."""
    rows = json.loads(HOST.read_text())["rows"].values()
    before = [r for r in rows if _ancestor(r["commit"], commit)]
    if not before:
        raise SystemExit(f"{_relative(HOST)}: no bench_host row at or before {commit}")
    row = max(before, key=lambda r: _depth(r["commit"]))
    return row["host_us_per_puzzle"] * 1e-6, row["commit"]


def host(commit: str, share: float = 1.0) -> Host:
    """The host model for the code at `commit`: `share` x its bench_host seconds a puzzle; the
    round gap and start-up of the committed card runs."""
    runs = card_runs()
    span, kernel_s, slices = span_of(runs["iso60000"])
    h, at = host_per_puzzle(commit)
    spans = [span_of(r)[0] for r in runs.values()]
    start = sum(r["wall_seconds"] - s for r, s in zip(runs.values(), spans, strict=True))
    return Host((span - kernel_s) / slices, share * h, at, start / len(runs), share)
