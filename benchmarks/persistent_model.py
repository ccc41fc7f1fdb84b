"""A model of a persistent pool on the card: no slices, chain groups that take the next puzzle
from a device work queue as soon as their puzzle is solved (a design, not built yet).

Glossary: G groups (the card's wave / c: each holds c chains of one puzzle at a time), c chains
a puzzle, q a puzzle's position in the queue, T the proposals of a puzzle's solving chain, L
proposals a plateau, n the warps active on an SM, pace(n) a warp's plateaus a second
(benchmarks/card_model.py: Kernel.pace), h the host's seconds a puzzle, cores the host cores
sharing h.

    a group's work on a puzzle  = ceil(T / L) plateaus (its chains stop at the end of the
                                  plateau in which the solving chain solves)
    the card                    = every active group's warps at pace(n), n the active warps
                                  spread evenly over the SMs (G groups: the full N)
    puzzle q reaches the queue  = (q + 1) x h / cores            (the host prepares puzzles in
                                  order, uploads overlapping the kernel)
    the tail                    = once the queue is empty, a free group joins the unfinished
                                  puzzle with the fewest groups (the longest running first), as
                                  the slice pool's spare chains do; a puzzle is over when one of
                                  its groups solves, its other groups are then free
    span                        = max(the last group's end, the host's N x h / cores)

Which chain solves after how many proposals comes from the same profiles as the slice pool's
modeled runner (a joining group's chains are a spare slot's).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

SPARE_STRIDE = 1 << 40  # gpu_anneal.sudoku_solver.SPARE_STRIDE: a spare slot's streams
WARP = 32


@dataclass
class PersistentRun:
    """What the model of one run gives."""

    span: float  # seconds from the kernel's start to the last result
    device_span: float  # ... to the last group's end
    host_seconds: float  # the host's work, over its cores
    useful: int  # proposals up to each puzzle's solve (c chains x its plateaus x L)
    launched: int  # the card's chains x the device span x their pace on a full card
    spare_groups: int  # groups that joined a puzzle in the tail
    finish: list[float]  # each puzzle's end, in queue order


def run_persistent(profile, count: int, cpp: int, kernel, host_per_puzzle: float,
                   host_cores: int = 1) -> PersistentRun:  # fmt: skip
    """Model `count` puzzles on G = kernel.wave // cpp groups; profile(first stream) gives
    (pick, proposals, trials) of the slot whose chains draw from `first` (q x cpp, a spare's
    plus m x SPARE_STRIDE); kernel: its wave, plateau, sms and pace(n)."""
    groups = max(1, kernel.wave // cpp)
    warps = max(1, -(-cpp // WARP)) / kernel.sms  # warps an SM gets from one group
    feed = host_per_puzzle / max(1, host_cores)
    plateaus: dict[tuple[int, int], int] = {}

    def need(q: int, m: int) -> int:
        if (q, m) not in plateaus:
            _, proposals, _ = profile(m * SPARE_STRIDE + q * cpp)
            plateaus[q, m] = -(-max(proposals, 0) // kernel.plateau)
        return plateaus[q, m]

    t = phi = 0.0  # real seconds, and plateaus an active warp has made since the start
    running: list = []  # heap of (phi at its end, order, group, q, m, version)
    waiting: list = []  # heap of (real time its puzzle is there, order, group, q, m, version)
    working: dict[int, list] = {}  # q -> [(group, m)] on it
    start_of: dict[int, float] = {}
    spares: dict[int, int] = {}
    version = [0] * groups
    active = [False] * groups
    finish, reported = [0.0] * count, [0] * count
    state = {"next": 0, "tick": 0, "joined": 0, "active": 0}

    def begin(g: int, q: int, m: int) -> None:
        active[g] = True
        state["active"] += 1
        state["tick"] += 1
        heapq.heappush(running, (phi + need(q, m), state["tick"], g, q, m, version[g]))

    def assign(g: int, q: int, m: int) -> None:
        version[g] += 1
        working.setdefault(q, []).append((g, m))
        if start_of[q] > t:  # its puzzle is not on the device yet
            state["tick"] += 1
            heapq.heappush(waiting, (start_of[q], state["tick"], g, q, m, version[g]))
        else:
            begin(g, q, m)

    def take(g: int) -> None:
        if state["next"] < count:
            q = state["next"]
            state["next"] += 1
            start_of[q] = max(t, (q + 1) * feed)
            assign(g, q, 0)
            return
        open_ = [q for q in working if working[q]]
        if open_:
            q = min(open_, key=lambda k: (len(working[k]), start_of[k], k))
            spares[q] = spares.get(q, 0) + 1
            state["joined"] += 1
            assign(g, q, spares[q])

    for g in range(groups):
        take(g)
    while running or waiting:
        pace = float(kernel.pace(max(1.0, state["active"] * warps)))
        ends = t + (running[0][0] - phi) / pace if running else float("inf")
        if waiting and waiting[0][0] <= ends:
            at, _, g, q, m, ver = heapq.heappop(waiting)
            phi += (at - t) * pace
            t = at
            if ver == version[g]:
                begin(g, q, m)
            continue
        end_phi, _, g, q, m, ver = heapq.heappop(running)
        if ver != version[g]:
            continue  # the group was freed when another group solved its puzzle
        phi, t = end_phi, ends
        finish[q], reported[q] = t, need(q, m)
        freed = [h for h, _ in working.pop(q)]
        for h in freed:
            if active[h]:
                active[h] = False
                state["active"] -= 1
            version[h] += 1
        for h in freed:
            take(h)
    device = max(finish, default=0.0)
    host = count * feed
    useful = sum(cpp * n * kernel.plateau for n in reported)
    launched = int(groups * cpp * device * kernel.resident_chain_rate)
    return PersistentRun(max(device, host), device, host, useful, launched, state["joined"],
                         finish)  # fmt: skip
