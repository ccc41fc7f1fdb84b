"""The grid puzzles' CPU trial runner that Ctrl-C, SIGTERM and the time limit stop in a trial.

A trial of every chain (cpu_reference.anneal.trials: run_chains_cpu, numba's prange over the
chains) is one compiled call, and a call holds the process until it returns: a large Shikaku
whose trial takes seconds passed its time limit, and signals waited for the trial's end. This
runner makes the call on a worker thread (interrupts.stoppable; run_chains_cpu releases the
GIL) and sets the trial's `stop` flag at the puzzle's deadline or on an interrupt; the chains
look at it after every plateau (early_stop, as a solve runs them) and end their trial there,
their best states kept. Implements cpu_reference.anneal.contract.TrialRunner as CpuTrials does.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from gpu_anneal import interrupts


class StoppableCpuTrials:
    """The CPU TrialRunner of one anneal run whose trials stop at `seconds` from now or on an
    interrupt; `names` are the trial's arguments after i, in run_chains' order (the kind's
    TrialKernel.names), where it finds `stop` and `solved`."""

    name = "cpu"
    overlaps = False

    def __init__(self, run_chains: Callable, names: tuple[str, ...], seconds: float):
        self.run_chains = run_chains
        self.names = tuple(names)
        self.deadline = time.perf_counter() + seconds if math.isfinite(seconds) else None
        self.args: tuple = ()

    def load(self, args: tuple) -> None:
        """The run's arguments (run_chains' own, in `names`' order)."""
        if len(args) != len(self.names):
            raise ValueError(f"trial takes {len(self.names)} arguments, got {len(args)}")
        self.args = tuple(args)

    def _arg(self, key: str):
        return self.args[self.names.index(key)]

    def run(self, budget: int) -> None:
        """`budget` trials on every chain, each stopped at the deadline or on an interrupt
        (which is raised here once the chains have ended)."""
        for _ in range(budget):
            left = None if self.deadline is None else max(0.0, self.deadline - time.perf_counter())
            interrupts.stoppable(
                lambda _flag: self.run_chains(*self.args), seconds=left, flag=self._arg("stop")
            )

    def status(self):
        """The chains' solved flags (the host array itself)."""
        return self._arg("solved")

    def fetch(self) -> None:
        """Host arrays are the working arrays: nothing to copy."""

    def fetched(self) -> tuple:
        """The arguments given to load (current all along)."""
        return self.args
