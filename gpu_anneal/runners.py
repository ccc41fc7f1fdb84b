"""Runners: where a batch's slices run. One contract for every backend.

A runner holds a SudokuBatch and offers:

    run(budget)      advance every chain by up to `budget` plateaus
    sync()           make the host's counters and solved flags current
    fetch_grids()    make the host's grids (best, current), bitboards and RNG states current
    load_slot(p)     publish slot p's new puzzle and fresh chains (after load_puzzle on the host)
    stop_puzzle(p)   ask slot p's chains to stop at their next plateau

The CPU runner works on the host arrays in place (numba prange over chains); the CUDA runner keeps
the arrays on the device and copies only what the host asks for.
"""

from __future__ import annotations

import numpy as np

from cpu_reference.sudoku.batch import SudokuBatch, run_slice_cpu

HOST_STOPPED = 0  # solved[p] value the host writes to stop a puzzle's chains at once


class CpuRunner:
    """Runs a batch's slices on every CPU core (numba prange over chains)."""

    name = "cpu"

    def __init__(self, batch: SudokuBatch):
        self.batch = batch

    def run(self, budget: int) -> None:
        """Advance every chain by up to `budget` plateaus."""
        run_slice_cpu(self.batch, budget, stop_on_solved=True)

    def sync(self) -> None:
        """Host arrays are the working arrays: nothing to copy."""

    def fetch_grids(self) -> None:
        """Host arrays are the working arrays: nothing to copy."""

    def load_slot(self, p: int) -> None:
        """Host arrays are the working arrays: nothing to copy."""

    def stop_puzzle(self, p: int) -> None:
        """Ask the chains of slot p to stop at their next plateau."""
        self.batch.solved[p] = HOST_STOPPED


class CudaRunner:
    """Keeps a batch's arrays on the device and runs its slices there."""

    name = "cuda"

    def __init__(self, batch: SudokuBatch):
        from numba import cuda

        from gpu_anneal.kernels import sudoku as ks

        self.ks = ks
        ks.check_order(batch.order)
        self.batch = batch
        self.kernel = self.ks.compiled_kernel(batch.order, batch.move)
        self.d = {key: cuda.to_device(self.host(key)) for key in self.ks.DEVICE_KEYS}
        self.blocks = (batch.chains + self.ks.THREADS_PER_BLOCK - 1) // self.ks.THREADS_PER_BLOCK

    def host(self, key: str) -> np.ndarray:
        """The host array behind device array `key` (bitboards seen flat, as the kernel does)."""
        return self.ks.host_array(self.batch, key)

    def run(self, budget: int) -> None:
        """Advance every chain by up to `budget` plateaus (one kernel launch)."""
        from numba import cuda

        self.ks.launch_slice(self.kernel, self.blocks, self.d, self.batch, budget)
        cuda.synchronize()

    def sync(self) -> None:
        """Copy counters and solved flags back to the host batch."""
        self.d["ctr"].copy_to_host(self.batch.ctr)
        self.d["solved"].copy_to_host(self.batch.solved)

    def fetch_grids(self) -> None:
        """Copy the best grids (and current grids and RNG states) back to the host batch."""
        for key in ("best_vals", "vals", "boards", "rng"):
            self.d[key].copy_to_host(self.host(key))

    def load_slot(self, p: int) -> None:
        """Copy slot p's puzzle tables and its chains' fresh state to the device."""
        b, d = self.batch, self.d
        rows = b.chain_slice(p)
        for key in self.ks.sa.PUZZLE_ARRAYS + ("solved",):
            d[key][p : p + 1].copy_to_device(self.host(key)[p : p + 1])
        for key in ("ctr", "rng", "best_vals"):
            d[key][rows].copy_to_device(self.host(key)[rows])

    def stop_puzzle(self, p: int) -> None:
        """Ask the chains of puzzle p to stop at their next plateau."""
        self.batch.solved[p] = HOST_STOPPED
        self.d["solved"][p : p + 1].copy_to_device(self.batch.solved[p : p + 1])


def make_runner(batch: SudokuBatch, backend: str):
    """The runner of a resolved backend name ('cpu' or 'cuda')."""
    if backend == "cuda":
        return CudaRunner(batch)
    return CpuRunner(batch)
