"""The runner contract: how every puzzle kind's chains are run, on the CPU and on CUDA.

Glossary: p slot (a puzzle's place in a Sudoku batch), k index into a list of slots, chain one
annealing chain (a row of the per-chain arrays), budget how far one run() takes each chain.

A runner owns the working arrays of some chains and offers, under the same names everywhere:

    load(...)     give chains their puzzle: arrays to work on (and, on CUDA, to upload)
    run(budget)   start advancing every chain by up to `budget` units of work
    status()      the per-puzzle or per-chain status after the runs started so far; waits
    fetch(...)    start bringing back what the host needs of the chains' results
    fetched()     those results (waits for them)
    name          "cpu", "cuda" (or "standin")
    overlaps      True when run() returns before the work ends (the host may work meanwhile)

Two families keep this shape and differ in what a call addresses, for a real reason:

    PoolRunner    Sudoku (gpu_anneal.runners: CpuRunner, CudaRunner; gpu_anneal.standin): a pool
                  of many puzzles, each in a slot with its chains; a budget is plateaus (a slice);
                  status() is one row a slot; puzzles come and go between slices, so load, fetch,
                  stop and empty take the slots they act on.
    TrialRunner   Shikaku, Hashiwokakero (cpu_reference.anneal.trials.CpuTrials,
                  gpu_anneal.grid_runners.CudaTrials): one puzzle's chains from start to end; a
                  budget is trials; status() is the chains' solved flags; load takes the run's
                  arguments once and fetch brings back every chain's result.

Merging them would give the grid puzzles slots they never have (one puzzle a run) or the pool
whole-run arguments it never takes (its puzzles change between slices); the shared part is
Runner. The protocols are structural (typing.Protocol): runners need not name them.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Runner(Protocol):
    """What every runner offers with the same arguments: run, status, name, overlaps."""

    name: str
    overlaps: bool

    def run(self, budget: int) -> None:
        """Start advancing every chain by up to `budget` units of work (plateaus or trials)."""

    def status(self) -> np.ndarray:
        """The status after the runs started so far (per slot or per chain); waits for them."""


@runtime_checkable
class PoolRunner(Runner, Protocol):
    """A Sudoku pool's runner: slots of puzzles, run a slice (budget plateaus) at a time.

    status() is int64[slots, N_STATS] (gpu_anneal.pool_status)."""

    def load(self, slots: np.ndarray, tables: dict, firsts: np.ndarray) -> None:
        """Slots take new puzzles (puzzle_tables rows) with fresh chains, slot slots[j]'s chain i
        drawing stream firsts[j] + i."""

    def empty(self, slots: np.ndarray) -> None:
        """Slots left empty: their chains never run."""

    def stop(self, slots: np.ndarray) -> None:
        """Ask the chains of slots to stop at their next plateau."""

    def fetch(self, slots: list[int], status: np.ndarray) -> None:
        """Start copying the best grid of each slot's reported chain."""

    def fetched(self) -> np.ndarray:
        """uint8[k, cells]: the grids of the last fetch, in the order asked (waits for them)."""


@runtime_checkable
class TrialRunner(Runner, Protocol):
    """A grid puzzle's runner: one puzzle's chains, run a trial (or `budget` trials) at a time.

    status() is int32[chains]: 1 where a chain has solved (the `solved` argument)."""

    def load(self, args: tuple) -> None:
        """The run's arguments: the trial function's after the chain index `i`, in its order
        (host arrays and scalars; states first). Every later call works on these."""

    def fetch(self) -> None:
        """Start making the host's RNG states, best states and best energies current."""

    def fetched(self) -> tuple:
        """The arguments given to load, their chain results current (waits for them)."""
