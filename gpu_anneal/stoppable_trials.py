"""The grid puzzles' CPU trial runner that Ctrl-C, SIGTERM and the time limit stop in a trial.

A trial of every chain (cpu_reference.anneal.trials: run_chains_cpu, numba's prange over the
chains) is one compiled call, and a call holds the process until it returns: a large Shikaku
whose trial takes seconds passed its time limit, and signals waited for the trial's end. This
runner makes the call on a worker thread (interrupts.stoppable; run_chains_cpu releases the
GIL) and sets the trial's `stop` flag at the puzzle's deadline or on an interrupt; the chains
look at it before every plateau and every 1,024 moves within one (early_stop, as a solve runs
them; cpu_reference.anneal.trials.STOP_LOOK_MASK) and end their trial there,
their best states kept. A CpuTrials (cpu_reference.anneal.trials) in all else.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from cpu_reference.anneal.trials import CpuTrials
from gpu_anneal import interrupts


class StoppableCpuTrials(CpuTrials):
    """CpuTrials whose trials stop at `seconds` from now or on an interrupt; `names` are the
    trial's arguments after i, in run_chains' order (the kind's TrialKernel.names), where load
    finds `solved` and `stop`."""

    def __init__(self, run_chains: Callable, names: tuple[str, ...], seconds: float):
        super().__init__(run_chains, None)
        self.names = tuple(names)
        self.deadline = time.perf_counter() + seconds if math.isfinite(seconds) else None
        self.stop = None

    def load(self, args: tuple) -> None:
        """The run's arguments (run_chains' own, in `names`' order)."""
        if len(args) != len(self.names):
            raise ValueError(f"trial takes {len(self.names)} arguments, got {len(args)}")
        self.solved = args[self.names.index("solved")]
        self.stop = args[self.names.index("stop")]
        super().load(args)

    def run(self, budget: int) -> None:
        """`budget` trials on every chain, each stopped at the deadline or on an interrupt
        (which is raised here once the chains have ended)."""
        for _ in range(budget):
            left = None if self.deadline is None else max(0.0, self.deadline - time.perf_counter())
            interrupts.stoppable(
                lambda _flag: self.run_chains(*self.args), seconds=left, flag=self.stop
            )
