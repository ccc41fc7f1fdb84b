"""A stand-in for the persistent pool's device (a model): the persistent pool's own host loop
(gpu_anneal.persistent_pool.PersistentPool) runs against a modeled card.

Glossary: G resident groups (the pool batch's chains / cpp), r ring row, q puzzle position, m
spare round, T the proposals of a puzzle's solving chain, L proposals a plateau, n the warps
active on an SM, pace(n) a warp's plateaus a second (benchmarks/card_model.py: Kernel.pace).

ModeledPersistentRunner answers the host loop as PersistentRunner does (publish, set_control,
set_open, stop_rows, launch, kernel_ended, wait, records) while a `VirtualClock`
(gpu_anneal.standin) stands for the host's clock. Its device, at the granularity of a puzzle's
chains:

    a free group takes the next published puzzle (published at or before the device's time),
        or, the input closed, joins a running puzzle going round the host's open list (the
        first entry from the join counter's whose puzzle runs unsolved), as the kernel's
        chains do (they join one by one; a group here joins whole)
    a group's work on a puzzle = ceil(T / L) plateaus at pace(n), n the active warps spread
        evenly over the SMs; the puzzle is done when its first group ends (its solving chain's
        plateau), its other groups are freed then
    a group that finds no task while the input is open waits for the host's next puzzle (the
        kernel's chains look again, a bounded number of times: the bound is not modeled); the
        launch ends when the input is closed and no group has work

The host's time: per_puzzle seconds for each puzzle published (deduction, tables, verification
and results: bench_host's figure) and COPY_SECONDS for each copy its publishing makes (as
PersistentRunner.publish: one a table, the bound, the first state, the record and the grid for
each run of consecutive rows, one for each run of order places, one for PUBLISHED),
poll_seconds for each drain (the records' copy) and launch_seconds for each launch. Which chain
solves after how many proposals: `profile(first)` as ModeledRunner's.
"""

from __future__ import annotations

import heapq

import numpy as np

from gpu_anneal.kernels import persistent_layout as L
from gpu_anneal.standin import VirtualClock

WARP = 32
POLL_SECONDS = 20e-6  # a drain: the records' copy and its synchronisation (modeled)
LAUNCH_SECONDS = 10e-6  # a launch (modeled)
COPY_SECONDS = 10e-6  # a host-to-device copy's host time (modeled)


class ModeledPersistentRunner:
    """The persistent pool's runner on a modeled card (module docstring)."""

    def __init__(self, batch, rows: int, seed: int, spare: bool, profile, grid,
                 clock: VirtualClock, kernel, per_puzzle: float = 0.0,
                 poll_seconds: float = POLL_SECONDS,
                 launch_seconds: float = LAUNCH_SECONDS):  # fmt: skip
        self.batch, self.rows, self.spare = batch, int(rows), bool(spare)
        self.cpp = batch.cpp
        self.profile, self.grid, self.clock, self.kernel = profile, grid, clock, kernel
        self.per_puzzle, self.poll_seconds = per_puzzle, poll_seconds
        self.launch_seconds = launch_seconds
        self.groups = max(1, batch.chains // self.cpp)
        self.warps = max(1, -(-self.cpp // WARP)) / kernel.sms  # an SM's warps from one group
        cells = batch.given_vals.shape[1]
        self.rec = np.zeros((self.rows, L.N_REC), np.int64)
        self.rec[:, L.R_KEY] = L.NO_KEY
        self.grids = np.zeros((self.rows, cells), np.uint8)
        self.first = np.zeros(self.rows, np.int64)
        self.queue: list[tuple[float, int, int]] = []  # (published at, q, r), q order
        self.closed = False
        self.t = 0.0  # the device's time
        self.phi = 0.0  # plateaus an active warp has made since the start
        self.heap: list = []  # (phi at its end, tick, group, r, m, version)
        self.version = [0] * self.groups
        self.free: list[int] = []  # groups of the running launch with no task
        self.active = 0
        self.on_row: dict[int, list[tuple[int, int]]] = {}  # r -> [(group, m)]
        self.spares: dict[int, int] = {}
        self.open_rows: list[int] = []  # the host's open list
        self.joins = 0  # joins tried (the kernel's CTL_JOINS)
        self.tick = 0
        self.running = False
        self.launches = 0
        self.busy = 0.0  # device seconds a launch was running
        self.started = 0.0
        self.useful = 0  # plateaus x chains up to each puzzle's solve
        self.joined = 0

    # the host's side -------------------------------------------------------------------
    def publish(self, rows, tables, firsts, qs, published: int) -> None:
        """Rows take puzzles, published after the host's per-puzzle seconds and its copies'."""
        rows = np.asarray(rows)
        if len(rows) == 0:
            return
        places = (published - len(rows) + np.arange(len(rows))) % self.rows
        runs = 1 + np.count_nonzero(np.diff(rows) != 1)
        copies = runs * (len(tables) + 4) + 1 + np.count_nonzero(np.diff(places) != 1) + 1
        self.clock.spend(self.per_puzzle * len(rows) + COPY_SECONDS * copies)
        for r, f, q in zip(np.asarray(rows).tolist(), np.asarray(firsts).tolist(),
                           np.asarray(qs).tolist(), strict=True):  # fmt: skip
            self.rec[r] = 0
            self.rec[r, [L.R_Q, L.R_STATE, L.R_LEFT, L.R_KEY]] = (q, L.PUBLISHED, self.cpp,
                                                                   L.NO_KEY)  # fmt: skip
            self.first[r] = f
            self.spares[r] = 0
            self.queue.append((self.clock.now, q, r))

    def set_control(self, field: int, value: int) -> None:
        """CLOSED and STOP as the host sets them."""
        self._advance(self.clock.now)
        if field == L.CTL_CLOSED:
            self.closed = bool(value)
        elif field == L.CTL_STOP and value:
            self.queue.clear()
            self.closed = False

    def set_open(self, rows) -> None:
        """The host's open list (the rows spare chains may join)."""
        self._advance(self.clock.now)
        self.open_rows = np.asarray(rows).tolist()

    def stop_rows(self, rows) -> None:
        """Time limits are not modeled (the modeled runs set none)."""

    def launch(self) -> None:
        """Start a launch: every group free, at the host's time (after the device's)."""
        self.clock.spend(self.launch_seconds)
        self._advance(self.clock.now)
        self.t = max(self.t, self.clock.now)
        self.free = list(range(self.groups))
        self.running = True
        self.started = self.t
        self.launches += 1
        self._assign()

    def kernel_ended(self) -> bool:
        """Whether the launch has ended by the host's time."""
        self._advance(self.clock.now)
        return not self.running

    def wait(self) -> None:
        """The host waits for the launch to end."""
        self._advance(float("inf"))
        self.clock.now = max(self.clock.now, self.t)

    def records(self):
        """The records and grids at the host's time (after a modeled drain)."""
        self.clock.spend(self.poll_seconds)
        self._advance(self.clock.now)
        return self.rec.copy(), self.grids.copy()

    # the device's side -----------------------------------------------------------------
    def _need(self, r: int, m: int) -> tuple[int, int, int, int]:
        first = int(self.first[r]) + m * L.SPARE_STRIDE
        pick, proposals, trials = self.profile(first)
        return pick, proposals, trials, -(-max(proposals, 0) // self.kernel.plateau)

    def _begin(self, g: int, r: int, m: int) -> None:
        pick, proposals, trials, need = self._need(r, m)
        self.version[g] += 1
        self.on_row.setdefault(r, []).append((g, m))
        self.active += 1
        self.tick += 1
        heapq.heappush(self.heap, (self.phi + need, self.tick, g, r, m, self.version[g]))

    def _assign(self) -> None:
        """Free groups take tasks (or end, while the input is open)."""
        while self.free and self.running:
            if self.queue and self.queue[0][0] <= self.t:
                _, _, r = self.queue.pop(0)
                self._begin(self.free.pop(), r, 0)
                continue
            if self.queue or not self.closed:  # the group looks again for the host's next
                return
            r = self._join_row() if self.spare else -1
            if r >= 0:
                self.spares[r] += 1
                self.joined += 1
                self._begin(self.free.pop(), r, self.spares[r])
                continue
            self.free.clear()  # no task: these threads end
        if self.running and self.active == 0 and not self.free:
            self.running = False
            self.busy += self.t - self.started

    def _join_row(self) -> int:
        """The row a joining group takes: the first entry of the open list from the join
        counter's whose puzzle runs unsolved (-1: none)."""
        n = len(self.open_rows)
        if n == 0:
            return -1
        start = self.joins % n
        self.joins += 1
        for j in range(n):
            r = self.open_rows[(start + j) % n]
            if self.on_row.get(r):
                return r
        return -1

    def _pace(self) -> float:
        return float(self.kernel.pace(max(1.0, self.active * self.warps)))

    def _advance(self, until: float) -> None:
        """Run the device to time `until` (or to the launch's end)."""
        while self.running:
            pace = self._pace()
            ends = self.t + (self.heap[0][0] - self.phi) / pace if self.heap else float("inf")
            arrive = self.queue[0][0] if (self.queue and self.free) else float("inf")
            nxt = min(ends, arrive)
            if nxt > until:
                if until != float("inf"):
                    self.phi += (until - self.t) * pace
                    self.t = until
                return
            if arrive <= ends:
                self.phi += (arrive - self.t) * pace
                self.t = arrive
                self._assign()
                continue
            end_phi, _, g, r, m, ver = heapq.heappop(self.heap)
            if ver != self.version[g]:
                continue
            self.phi, self.t = end_phi, ends
            self._finish(r, m)
            self._assign()

    def _finish(self, r: int, m: int) -> None:
        """Row r's puzzle is solved by its group of round m: the record DONE, its groups free."""
        pick, proposals, trials, need = self._need(r, m)
        groups = self.on_row.pop(r)
        for h, _ in groups:
            self.version[h] += 1
            self.active -= 1
            self.free.append(h)
        chains = self.cpp * len(groups)
        rec = self.rec[r]
        rec[L.R_STATE], rec[L.R_LEFT], rec[L.R_CHAINS] = L.DONE, 0, chains
        rec[L.R_PROPOSALS] = chains * need * self.kernel.plateau  # modeled: every chain alike
        rec[L.R_TRIALS] = chains * max(trials, 0)
        if pick >= 0:
            rec[L.R_KEY] = L.rank_key(True, proposals, m, pick)
            rec[L.R_PICK] = m * L.SPARE_STRIDE + pick
            rec[L.R_PICK_COST], rec[L.R_SOLVED] = 0, 1
            rec[L.R_PICK_TRIALS], rec[L.R_PICK_PROPOSALS] = trials, proposals
            self.grids[r] = self.grid(int(self.first[r]))
        self.useful += self.cpp * need * self.kernel.plateau
