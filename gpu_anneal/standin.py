"""A stand-in runner: the pool's runner contract with no kernel, to measure the host side alone.

Glossary: p slot (a puzzle's place in the batch), cpp chains per puzzle, k index into a list of
slots.

`StandInRunner` answers like the CUDA runner (gpu_anneal.runners: run, status, fetch, fetched,
load, stop; `overlaps`), but its "slice" does no annealing: a puzzle loaded into a slot reports
itself solved by chain 0 after `slices` slices, with its known solution as the grid. Everything
else a run does (reading, deduction, tables, verification, results, JSON) is the real code, so
a run with it measures how many puzzles a second the host can take in and give out, the ceiling
that no card can lift. Solutions come from a table keyed by the loaded givens (the puzzle as
the pool loads it, after deduction when the run deduces first).
"""

from __future__ import annotations

import numpy as np

from gpu_anneal import pool_status

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
