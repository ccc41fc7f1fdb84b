"""TrialKernel: the one factory making a grid puzzle's CUDA trial kernel from its jitted trial.

Glossary:
    i        chain index = global thread index (cuda.grid(1)); thread i uses RNG state i
    trial    a puzzle's jitted trial(i, states, ...): one annealing trial of chain i, the function
             its CPU runner calls over chains (cpu_reference.shikaku.rules.shikaku_trial,
             cpu_reference.hashi.rules.hashi_trial)
    names    the trial's parameter names after i: the kernel's parameters, in launch order
    scalars  the names that are not arrays (the trial takes them as they are)
    tpb      threads per block

TrialKernel(trial, scalars) writes the kernel as a module of its own (kernel_cache.
generated_module, named by the trial and a digest of all it depends on), for Shikaku:

    def kernel(states, cand, start, ..., early_stop):
        i = cuda.grid(1)
        if i < states.shape[0]:
            shikaku_trial(i, plain(states), plain(cand), ..., width, ..., early_stop)

so a chain follows the same trajectory on both backends. On a device the kernel is compiled once
and kept on disk (kernel_cache.cached_jit); the CUDA simulator (NUMBA_ENABLE_CUDASIM=1) runs the
same module, where `plain` (gpu_anneal.kernels.compat) hands the trial the host arrays behind the
simulator's wrappers. The kinds' declarations: each grid kind's trial and trial_scalars
(gpu_anneal.kinds.grid); their runner: gpu_anneal.grid_runners.CudaTrials; their PTX:
gpu_anneal.kernels.ptx.
"""

from __future__ import annotations

import inspect
import textwrap

from numba import config

from gpu_anneal.kernels.compat import plain
from gpu_anneal.kernels.kernel_cache import cached_jit, generated_module

PER_TRIAL = ("solved",)  # what the host reads after every trial (cpu_reference.anneal.trials)
RESULTS = ("states", "best", "best_f")  # what anneal reads after the last trial, with solved
SCHEDULE = ("beta0", "growth", "plateau", "n_plateaus", "early_stop")  # every trial's scalars

GRID_THREADS_PER_BLOCK = 64  # threads per block of the grid-puzzle kernels

TEMPLATE = '''\
"""CUDA trial kernel of {home}.{trial}
(gpu_anneal.kernels.launch.TrialKernel)."""

from numba import cuda

from {home} import {trial}
from gpu_anneal.kernels.compat import plain


def kernel(
{params}
):
    i = cuda.grid(1)
    if i < states.shape[0]:
        {trial}(
{passed}
        )
'''


def simulating() -> bool:
    """True when numba runs CUDA code in its simulator (NUMBA_ENABLE_CUDASIM=1)."""
    return bool(getattr(config, "ENABLE_CUDASIM", False))


class TrialKernel:
    """A puzzle's CUDA trial kernel made from its jitted `trial` (one chain a thread), its
    parameters the trial's after `i`; `scalars` names those that are not arrays, `results` the
    arrays the runner brings back after the last launch (RESULTS and any more). Compiled on
    first use. `lanes` threads run a chain, in blocks of `threads_per_block`."""

    lanes = 1
    threads_per_block = GRID_THREADS_PER_BLOCK

    def __init__(self, trial, scalars: tuple[str, ...], results: tuple[str, ...] = RESULTS):
        params = tuple(inspect.signature(trial.py_func).parameters)
        if params[:2] != ("i", "states"):
            raise ValueError(f"{trial.__name__}: the arguments must start with i, states")
        self.trial = trial
        self.names = params[1:]
        self.scalars = tuple(scalars)
        self.results = tuple(results)
        for key in PER_TRIAL + RESULTS + self.results + self.scalars:
            if key not in self.names:
                raise ValueError(f"{trial.__name__}: no argument named {key!r}")
        self._kernel = None

    def source(self) -> str:
        """The text of the kernel's module: the kernel calls the trial on chain cuda.grid(1)."""
        passed = ["i"] + [n if n in self.scalars else f"plain({n})" for n in self.names]
        return TEMPLATE.format(
            home=self.trial.__module__,
            trial=self.trial.__name__,
            params=_wrapped(self.names, "    "),
            passed=_wrapped(passed, "            "),
        )

    def function(self):
        """The kernel as a plain Python function of its generated module (compile it with
        cuda.jit or ptx.compile_ptx)."""
        module = generated_module(self.trial.__name__, self.source(), (self.trial, plain))
        return module.kernel

    def get(self):
        """The kernel for the current device, loaded from the disk cache or compiled on first
        use (kept in this object; the simulator runs the same source, uncached)."""
        if self._kernel is None:
            self._kernel = cached_jit(self.function())
        return self._kernel


def _wrapped(items: list[str] | tuple[str, ...], indent: str) -> str:
    """`items` as comma-separated lines of at most 100 characters, each starting with indent."""
    text = ", ".join(items) + ","
    return textwrap.fill(text, 100, initial_indent=indent, subsequent_indent=indent)
