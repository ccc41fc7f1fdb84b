"""Stand-in runners: the pool's runner contract with no kernel, to measure the host side alone
or to run the pool on a modeled card.

Glossary: p slot (a puzzle's place in the batch), cpp chains per puzzle, k index into a list of
slots, first a slot's first RNG stream (it names the puzzle and, past SPARE_STRIDE, its spare
slot), L proposals a plateau.

`StandInRunner` answers like the CUDA runner (gpu_anneal.runners: run, status, fetch, fetched,
load, stop; `overlaps`), but its "slice" does no annealing: a puzzle loaded into a slot reports
itself solved by chain 0 after `slices` slices, with its known solution as the grid. Everything
else a run does (reading, deduction, tables, verification, results, JSON) is the real code, so
a run with it measures how many puzzles a second the host can take in and give out, the ceiling
that no card can lift. Solutions come from a table keyed by the loaded givens (the puzzle as
the pool loads it, after deduction when the run deduces first).

`ModeledRunner` runs the pool on a modeled card (benchmarks/virtual_card.py): its chains make
the proposals the CPU runner's chains make (a profile a slot: which chain solves after how many
proposals), a slice lasts the device seconds a kernel model gives, and a `VirtualClock` stands
for the host's clock, so the pool's own code (slicing, refills, spare chains) decides what runs
when while the clock moves by modeled device and host seconds alone.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from gpu_anneal import pool_status
from gpu_anneal.sudoku_solver import SPARE_STRIDE

PROPOSALS_PER_SLICE = 1000  # what a stand-in chain "proposes" a slice (the pool's rate)


class StandInRunner:
    """A runner whose puzzles solve themselves after `slices` slices (no kernel runs)."""

    name = "standin"
    overlaps = True

    def __init__(self, batch, seed: int, solutions: dict[bytes, np.ndarray], slices: int = 2):
        self.batch = batch
        self.solutions = solutions
        self.slices = max(1, int(slices))
        P, cells = batch.puzzles, batch.given_vals.shape[1]
        self.left = np.zeros(P, np.int64)  # slices until the slot's puzzle reports solved
        self.grids = np.zeros((P, cells), np.uint8)
        self.stats = np.zeros((P, pool_status.N_STATS), np.int64)
        self._fetched = np.zeros((0, cells), np.uint8)

    def run(self, budget: int) -> None:
        """One slice: every running slot moves one slice closer to solved."""
        running = self.stats[:, pool_status.S_RUNNING] > 0
        self.left[running] -= 1
        self.stats[running, pool_status.S_PROPOSALS] += PROPOSALS_PER_SLICE * self.batch.cpp
        done = running & (self.left <= 0)
        self.stats[done, pool_status.S_RUNNING] = 0
        self.stats[done, pool_status.S_SOLVED] = 1
        self.stats[done, pool_status.S_PICK] = 0
        self.stats[done, pool_status.S_PICK_COST] = 0
        self.stats[done, pool_status.S_PICK_TRIALS] = 1
        self.stats[done, pool_status.S_PICK_PROPOSALS] = PROPOSALS_PER_SLICE
        self.stats[done, pool_status.S_TRIALS] = self.batch.cpp

    def status(self) -> np.ndarray:
        """The status rows after the slices so far."""
        return self.stats.copy()

    def fetch(self, slots: list[int], status: np.ndarray) -> None:
        """Take the grids of `slots`."""
        self._fetched = self.grids[slots]

    def fetched(self) -> np.ndarray:
        """The grids of the last fetch."""
        return self._fetched

    def load(self, slots: np.ndarray, tables: dict, firsts: np.ndarray) -> None:
        """Slots take new puzzles; each one's solution is looked up by its loaded givens."""
        solutions, givens = self.solutions, tables["given_vals"][: len(slots)]
        if len(givens):
            self.grids[slots] = [solutions[cells.tobytes()] for cells in givens]
        self.stats[slots] = 0
        self.stats[slots, pool_status.S_RUNNING] = self.batch.cpp
        self.left[slots] = self.slices

    def empty(self, slots: np.ndarray) -> None:
        """Slots left empty."""
        self.stats[slots] = 0
        self.left[slots] = 0

    def stop(self, slots: np.ndarray) -> None:
        """Stop the slots' puzzles at once."""
        self.stats[slots, pool_status.S_RUNNING] = 0


class VirtualClock:
    """Host and device time of a modeled run, in seconds from 0: the host's clock `now` moves
    only when told (spend, wait), the device runs one stream whose queued work ends at
    `device_free`. perf_counter() reads `now`, so a pool given it instead of time.perf_counter
    times its rounds, slices and puzzles by the model."""

    def __init__(self) -> None:
        self.now = 0.0
        self.device_free = 0.0

    def perf_counter(self) -> float:
        """The host's time now."""
        return self.now

    def spend(self, seconds: float) -> None:
        """The host works `seconds`."""
        self.now += seconds

    def launch(self, seconds: float) -> float:
        """Queue `seconds` of device work after what is queued; returns when it starts."""
        start = max(self.now, self.device_free)
        self.device_free = start + seconds
        return start

    def wait(self) -> None:
        """The host waits for the device's queued work."""
        self.now = max(self.now, self.device_free)


class Slice(NamedTuple):
    """One modeled slice: when it started, its device seconds, budget (plateaus), the slots of
    the launch, those with chains running at its start (live), their chains, the plateaus every
    chain of the launch made in it, summed, and the most any chain made."""

    start: float
    seconds: float
    budget: int
    slots: int
    live: int
    live_chains: int
    chain_plateaus: int
    longest: int


class ModeledRunner:
    """A pool runner whose chains are modeled: each slot's chains advance in lockstep, a plateau
    at a time, until the plateau in which the puzzle's solving chain solves, then all stop.

    Which chain solves after how many proposals comes from `profile(first)` (first: the slot's
    first RNG stream, which names the puzzle and its spare slot): (pick, proposals, trials) of
    the solving chain, as the CPU runner (and so the kernel, running the same chains) reports
    it; pick -1 for a puzzle deduction solved (no chain runs). `grid(first)` is the solution the
    reported chain holds. A slice's device seconds come from `kernel_seconds(plateaus, cpp)`
    (plateaus: int64[slots], what each slot's chains run in it), on the `clock`'s one stream;
    the host spends `round_gap` seconds before each launch and `load_seconds` on each new
    puzzle loaded (a spare slot takes its lead's tables: none). `overlaps` as the CUDA runner
    (the pool refills while a slice runs); False makes the pool refill before it relaunches.

    Counts as the kernel reports them where the model knows them (running and solved chains,
    the reported chain, its proposals and trials, proposals over the chains); accepted moves
    are not modeled (0), nor an unsolved chain's cost (1)."""

    name = "standin"
    overlaps = True  # as the CUDA runner; each runner's own value set at its making

    def __init__(
        self, batch, seed: int, profile, grid, clock: VirtualClock, kernel_seconds,
        round_gap: float = 0.0, load_seconds: float = 0.0, overlaps: bool = True,
    ):  # fmt: skip
        self.batch, self.seed = batch, seed
        self.profile, self.grid = profile, grid
        self.clock, self.kernel_seconds = clock, kernel_seconds
        self.round_gap, self.load_seconds = round_gap, load_seconds
        self.overlaps = overlaps
        P, cells = batch.puzzles, batch.given_vals.shape[1]
        self.plateau = int(batch.schedule.plateau)
        self.max_plateaus = int(batch.schedule.max_plateaus)
        self.state = np.full(P, _EMPTY, np.int8)
        self.first = np.zeros(P, np.int64)  # each slot's first stream
        self.pick = np.zeros(P, np.int64)
        self.proposals = np.zeros(P, np.int64)  # the solving chain's, at its solve
        self.trials = np.zeros(P, np.int64)  # the solving chain's
        self.need = np.zeros(P, np.int64)  # plateaus until all the slot's chains stop
        self.done = np.zeros(P, np.int64)  # plateaus each of the slot's chains has run
        self.cells = np.zeros((P, cells), np.uint8)  # as loaded: an unsolved slot's grid
        self.slices: list[Slice] = []
        self.first_run_at: float | None = None  # the host's time at the first run() call
        self.last_status_at: float | None = None  # ... when the last status() returned
        # the host's calls in order: ("run", time called, device seconds), ("load", time
        # called, new puzzles), ("status", time it returned, 0)
        self.events: list[tuple[str, float, float]] = []
        self._fetched = np.zeros((0, cells), np.uint8)

    def run(self, budget: int) -> None:
        """One slice of up to `budget` plateaus: the host's round gap, then the launch."""
        called = self.clock.now
        if self.first_run_at is None:
            self.first_run_at = called
        self.clock.spend(self.round_gap)
        running = self.state == _RUNNING
        step = np.where(running, np.minimum(budget, self.need - self.done), 0)
        self.done += step
        self.state[running & (self.done >= self.need)] = _SOLVED
        seconds = float(self.kernel_seconds(step, self.batch.cpp)) if budget > 0 else 0.0
        live, cpp = int(running.sum()), self.batch.cpp
        start = self.clock.launch(seconds)
        plateaus = int(step.sum()) * cpp
        longest = int(step.max(initial=0))
        row = Slice(start, seconds, int(budget), len(step), live, live * cpp, plateaus, longest)
        self.slices.append(row)
        self.events.append(("run", called, seconds))

    def last_slice_seconds(self) -> float | None:
        """Modeled device seconds of the last slice (None before any)."""
        return self.slices[-1].seconds if self.slices else None

    def status(self) -> np.ndarray:
        """The status rows after the slices so far (the host waits for the device)."""
        self.clock.wait()
        S, cpp, L = pool_status, self.batch.cpp, self.plateau
        rows = np.zeros((len(self.state), S.N_STATS), np.int64)
        solved = self.state == _SOLVED
        held = self.state != _EMPTY
        done = self.done
        trials = np.where(done > 0, 1 + (done - 1) // self.max_plateaus, 0)
        rows[:, S.S_RUNNING] = np.where(self.state == _RUNNING, cpp, 0)
        rows[:, S.S_SOLVED] = solved
        rows[:, S.S_PICK] = np.where(solved, self.pick, 0)
        rows[:, S.S_PICK_COST] = np.where(solved, 0, np.where(done > 0, 1, np.iinfo(np.int64).max))
        rows[:, S.S_PICK_TRIALS] = np.where(solved, self.trials, trials)
        rows[:, S.S_PICK_PROPOSALS] = np.where(solved, self.proposals, done * L)
        rows[:, S.S_TRIALS] = cpp * trials
        rows[:, S.S_PROPOSALS] = (cpp - 1) * done * L + np.where(solved, self.proposals, done * L)
        rows[~held] = 0
        self.last_status_at = self.clock.now
        self.events.append(("status", self.clock.now, 0))
        return rows

    def fetch(self, slots: list[int], status: np.ndarray) -> None:
        """Take the reported grids of `slots`: the solution where solved, else the loaded grid."""
        slots = np.asarray(slots, np.int64)
        grids = self.cells[slots].copy()
        for j, p in enumerate(slots.tolist()):
            if self.state[p] == _SOLVED:
                grids[j] = self.grid(int(self.first[p]))
        self._fetched = grids

    def fetched(self) -> np.ndarray:
        """The grids of the last fetch."""
        return self._fetched

    def load(self, slots: np.ndarray, tables: dict, firsts: np.ndarray) -> None:
        """Slots take new puzzles (rows of `tables`), their profiles looked up by first stream;
        the host spends load_seconds on each one that is no spare slot."""
        slots = np.asarray(slots, np.int64)
        firsts = np.asarray(firsts, np.int64)
        self.cells[slots] = tables["given_vals"][: len(slots), : self.cells.shape[1]]
        self.first[slots] = firsts
        self.done[slots] = 0
        for p, first in zip(slots.tolist(), firsts.tolist(), strict=True):
            pick, proposals, trials = self.profile(first)
            self.pick[p], self.proposals[p], self.trials[p] = max(pick, 0), proposals, trials
            self.need[p] = -(-max(proposals, 0) // self.plateau)
            self.state[p] = _SOLVED if pick < 0 else _RUNNING
        new = int((firsts < SPARE_STRIDE).sum())
        self.events.append(("load", self.clock.now, new))
        self.clock.spend(self.load_seconds * new)

    def empty(self, slots: np.ndarray) -> None:
        """Slots left empty."""
        self.state[np.asarray(slots, np.int64)] = _EMPTY

    def stop(self, slots: np.ndarray) -> None:
        """Stop the slots' chains (at their next plateau: none of the next slice)."""
        slots = np.asarray(slots, np.int64)
        self.state[slots[self.state[slots] == _RUNNING]] = _STOPPED


_EMPTY, _RUNNING, _SOLVED, _STOPPED = 0, 1, 2, 3
