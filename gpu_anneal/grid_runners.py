"""The grid puzzles' runners (Shikaku, Hashiwokakero): one puzzle's chains, trial by trial.

Both implement cpu_reference.anneal.contract.TrialRunner (gpu_anneal.runners says how it
relates to the Sudoku pool's runners), driven by cpu_reference.anneal.trials.run_trials:

    load(args)     the run's arguments: the trial's after the chain index, in its order
    run(budget)    `budget` trials on every chain (one launch a trial on CUDA)
    status()       int32[chains]: the solved flags (run_trials stops on them)
    fetch()        bring back RNG states, best states and best energies; fetched(): the arguments

CPU: cpu_reference.anneal.trials.CpuTrials runs a kind's run_chains_cpu on the host arrays.
CUDA: CudaTrials runs the kind's trial kernel (its kind's trial_kernel(), gpu_anneal.kinds.grid)
on the device, one chain a thread (or a warp, where the kernel has 32 lanes a chain:
gpu_anneal.kernels.impasse_warp); a run's arrays stay there from load to fetch:

    load()         every array argument copied to the device, once
    run(1)         one launch
    status()       `solved` (int32 a chain) copied back: the host's stop test
    fetch()        the chain results (the kernel's results: states, best, best_f and any more)
                   copied back, once; device arrays freed

Its counters say what moved: launches, bytes_to_device, bytes_to_host.
"""

from __future__ import annotations

import numpy as np
from numba import cuda

from gpu_anneal.kernels.launch import PER_TRIAL, TrialKernel


class CudaTrials:
    """The CUDA TrialRunner of one anneal run: `kernel`'s launches over the run's arguments,
    kept on the device between trials."""

    name = "cuda"
    overlaps = True  # run() returns when the launch is queued; status() waits for it

    def __init__(self, kernel: TrialKernel):
        self.kernel = kernel
        self.host: tuple = ()
        self.dev: list = []
        self.launches = 0
        self.bytes_to_device = 0
        self.bytes_to_host = 0

    @property
    def threads_per_block(self) -> int:
        """The block size the runner launches with: its kernel's."""
        return self.kernel.threads_per_block

    def load(self, args: tuple) -> None:
        """Copy the run's array arguments to the device (scalars are passed as they are)."""
        names = self.kernel.names
        if len(args) != len(names):
            raise ValueError(f"kernel takes {len(names)} arguments ({names}), got {len(args)}")
        self.host = tuple(args)
        self.dev = []
        for a in args:
            if isinstance(a, np.ndarray):
                self.dev.append(cuda.to_device(a))
                self.bytes_to_device += a.nbytes
            else:
                self.dev.append(a)

    def run(self, budget: int) -> None:
        """`budget` trials on every chain: one launch each."""
        for _ in range(budget):
            self.launch(self.dev)
            self.launches += 1

    def launch(self, dev: list) -> None:
        """Launch the kernel over every chain with the device arguments in kernel order: the
        kernel's `lanes` threads a chain, in blocks of its `threads_per_block`."""
        threads = self.host[0].shape[0] * self.kernel.lanes
        tpb = self.threads_per_block
        self.kernel.get()[(threads + tpb - 1) // tpb, tpb](*dev)

    def status(self) -> np.ndarray:
        """The chains' solved flags, copied back into the host's `solved`."""
        return self._download(PER_TRIAL)[0]

    def fetch(self) -> None:
        """Copy the chain results back to the host arrays and release the device arrays."""
        if self.dev:
            self._download(self.kernel.results)
        self.dev = []

    def fetched(self) -> tuple:
        """The arguments given to load, their chain results current after fetch()."""
        return self.host

    def _download(self, keys: tuple[str, ...]) -> list[np.ndarray]:
        out = []
        for key in keys:
            at = self.kernel.names.index(key)
            self.dev[at].copy_to_host(self.host[at])
            self.bytes_to_host += self.host[at].nbytes
            out.append(self.host[at])
        return out


def cuda_trials(kernel: TrialKernel) -> CudaTrials:
    """A fresh CUDA runner for one anneal run of a kind's trial kernel."""
    return CudaTrials(kernel)
