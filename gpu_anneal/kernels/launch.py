"""CUDA driver shared by the Shikaku and Hashiwokakero backends: one chain per thread.

Glossary:
    i        chain index = global thread index (cuda.grid(1)); thread i uses RNG state i
    tpb      threads per block
    source   a puzzle's kernel as a plain Python function (its `kernel_source`); its parameter
             names are the names of the runner's arguments, in launch order
    run      one anneal: trials on every chain until one solves, time runs out or max_trials

The kernel is the puzzle's kernel source compiled with cuda.jit, on a device and in the CUDA
simulator alike (NUMBA_ENABLE_CUDASIM=1); there `plain` (gpu_anneal.kernels.compat) hands the
jitted trial the host arrays behind the simulator's wrappers. Both run a generated copy of
kernel_source (TrialKernel.function); on a device its compiled code is kept on disk and a later
process loads it instead of compiling (gpu_anneal.kernels.kernel_cache).

A run's arrays stay on the device from its first trial to its end (`DeviceTrials`):

    first trial    every array argument copied to the device, once
    every trial    one launch, then `solved` (int32 a chain) copied back: the host's stop test
    finish()       the chain results (RNG states, best states, best energies) copied back, once

PTX of these kernels: gpu_anneal.kernels.ptx (kernel_registry, compile_ptx).
"""

from __future__ import annotations

import inspect

import numpy as np
from numba import cuda

from gpu_anneal.kernels.kernel_cache import cached_jit, module_copy

PER_TRIAL = ("solved",)  # what the host reads after every trial (cpu_reference.anneal.trials)
RESULTS = ("states", "best", "best_f")  # what anneal reads after the last trial, with solved


def simulating() -> bool:
    """True when numba runs CUDA code in its simulator (NUMBA_ENABLE_CUDASIM=1)."""
    from numba import config

    return bool(getattr(config, "ENABLE_CUDASIM", False))


GRID_THREADS_PER_BLOCK = 64  # threads per block of the grid-puzzle kernels


class TrialKernel:
    """A puzzle's kernel source, its argument names, and its kernel compiled on first use."""

    def __init__(self, kernel_source):
        self.kernel_source = kernel_source
        self.names = tuple(inspect.signature(kernel_source()).parameters)
        for key in PER_TRIAL + RESULTS:
            if key not in self.names:
                raise ValueError(f"kernel source: no argument named {key!r}")
        self._kernel = None

    def function(self):
        """The kernel as built: kernel_source copied into a generated module and called there
        (kernel_cache.module_copy), so that numba-cuda can keep its compiled code on disk."""
        name = self.kernel_source.__module__.rsplit(".", 1)[-1]
        return module_copy(f"trial_{name}", (self.kernel_source,)).kernel_source()

    def get(self):
        """The kernel for the current device, loaded from the disk cache or compiled on first
        use (kept in this object; the simulator runs the same source, uncached)."""
        if self._kernel is None:
            self._kernel = cached_jit(self.function())
        return self._kernel

    def runner(self, threads_per_block: int = GRID_THREADS_PER_BLOCK) -> DeviceTrials:
        """A fresh runner for one anneal run (see DeviceTrials)."""
        return DeviceTrials(self, threads_per_block)


class DeviceTrials:
    """Runner of one anneal run on the CUDA device, with run_chains_cpu's arguments.

    Called once a trial with the same host arrays; the arrays go to the device at the first
    call and stay there. After each trial only `solved` comes back (run_trials stops on it);
    `finish()` copies the chain results back once the run ends (anneal calls it). The counters
    say what moved: launches, bytes_to_device, bytes_to_host.
    """

    def __init__(self, kernel: TrialKernel, threads_per_block: int = GRID_THREADS_PER_BLOCK):
        self.kernel = kernel
        self.threads_per_block = threads_per_block
        self.host: tuple = ()
        self.dev: list = []
        self.launches = 0
        self.bytes_to_device = 0
        self.bytes_to_host = 0

    def __call__(self, *args) -> None:
        """One trial on every chain; afterwards the host's `solved` is current."""
        if not self._holds(args):
            self._upload(args)
        self.launch(self.dev)
        self.launches += 1
        self._download(PER_TRIAL)

    def launch(self, dev: list) -> None:
        """Launch the kernel over every chain with the device arguments in kernel order."""
        chains = self.host[0].shape[0]
        tpb = self.threads_per_block
        self.kernel.get()[(chains + tpb - 1) // tpb, tpb](*dev)

    def finish(self) -> None:
        """Copy the chain results back to the host arrays and release the device arrays."""
        if self.host:
            self._download(RESULTS)
        self.host, self.dev = (), []

    def _holds(self, args: tuple) -> bool:
        """True when the device arrays are those of `args` (same arrays, same scalars)."""
        if len(args) != len(self.host):
            return False
        for new, old in zip(args, self.host, strict=True):
            same = new is old if isinstance(new, np.ndarray) else new == old
            if not same:
                return False
        return True

    def _upload(self, args: tuple) -> None:
        names = self.kernel.names
        if len(args) != len(names):
            raise ValueError(f"kernel takes {len(names)} arguments ({names}), got {len(args)}")
        self.host = args
        self.dev = []
        for a in args:
            if isinstance(a, np.ndarray):
                self.dev.append(cuda.to_device(a))
                self.bytes_to_device += a.nbytes
            else:
                self.dev.append(a)

    def _download(self, keys: tuple[str, ...]) -> None:
        for key in keys:
            at = self.kernel.names.index(key)
            self.dev[at].copy_to_host(self.host[at])
            self.bytes_to_host += self.host[at].nbytes
