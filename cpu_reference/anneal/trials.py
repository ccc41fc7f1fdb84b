"""Trial bookkeeping of the grid puzzles' annealing (Shikaku, Hashiwokakero): puzzle-free.

Glossary:
    chains     number of independent chains; chain i draws from RNG state i
    plateau    moves per plateau; n_plateaus plateaus per trial
    beta       1 / T; plateau t uses beta0 * exp(t * growth), so T falls geometrically from
               t0 to t_final over the n_plateaus plateaus
    runner     a TrialRunner (cpu_reference.anneal.contract): CpuTrials over the puzzle's
               run_chains_cpu (one trial on every chain), or the CUDA runner
               (gpu_anneal.grid_runners.CudaTrials); both take the same arguments
    round      one run(1) of the runner; max_trials counts trials over all chains, dealt
               round-robin (trial n to chain n % chains), so the last round may run on the
               first chains only

Per-chain arrays every puzzle's runner takes (rows indexed by i):

    states int64[chains, 2]   RNG states        best_f int64[chains]  best energy of chain i
    solved int32[chains]      1 once solved     stop   int32[1]       set by the first solver
    left   int64[chains]      trials chain i may still start (it starts none at 0)

With early_stop, a chain reads `stop` (set by the first solver, or on the CPU by the puzzle's
deadline and Ctrl-C: gpu_anneal.stoppable_trials) before each plateau and every STOP_LOOK_MASK
+ 1 moves within one, and ends its trial once it is set: a plateau of a large puzzle, or of a
schedule's own length, may last far longer than the time limit.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from cpu_reference.anneal.contract import TrialRunner
from cpu_reference.anneal.rng import init_states
from cpu_reference.errors import OptionError


def schedule(defaults: dict, **given) -> tuple[int, int, float, float]:
    """(plateau, n_plateaus, beta0, growth) from the defaults and the settings given (not None);
    OptionError when the merged t_final is not below t0 (the temperature would rise)."""
    sched = dict(defaults)
    sched.update({key: val for key, val in given.items() if val is not None})
    if not sched["t_final"] < sched["t0"]:
        raise OptionError(f"t_final = {sched['t_final']:g} must be below t0 = {sched['t0']:g} "
                          "(the temperature falls from t0 to t_final; where one of them is its "
                          "default, give both)")  # fmt: skip
    npl = int(sched["n_plateaus"])
    beta0 = 1.0 / sched["t0"]
    growth = math.log(sched["t0"] / sched["t_final"]) / max(1, npl - 1)
    return int(sched["plateau"]), npl, beta0, growth


def chain_arrays(chains: int, seed: int) -> tuple[np.ndarray, ...]:
    """(states, best_f, solved, stop) for `chains` fresh chains seeded from `seed`."""
    states = init_states(chains, seed)
    best_f = np.full(chains, np.iinfo(np.int64).max, dtype=np.int64)
    solved = np.zeros(chains, dtype=np.int32)
    stop = np.zeros(1, dtype=np.int32)
    return states, best_f, solved, stop


NO_LIMIT = 2**62  # trials left of a chain when max_trials is None
STOP_LOOK_MASK = 1023  # a chain reads the stop flag every 1,024 moves of a plateau too


def trials_left(chains: int, max_trials: int | None) -> np.ndarray:
    """int64[chains]: the trials each chain may start, max_trials dealt round-robin (chain i
    takes max_trials // chains, one more when i < max_trials % chains); NO_LIMIT each for None."""
    if max_trials is None:
        return np.full(chains, NO_LIMIT, dtype=np.int64)
    i = np.arange(chains, dtype=np.int64)
    return (max_trials // chains + (i < max_trials % chains)).astype(np.int64)


class CpuTrials:
    """The CPU TrialRunner: `run_chains` (a puzzle's run_chains_cpu, numba prange over chains)
    on the host arrays in place; `solved` is the host's per-chain solved array among them."""

    name = "cpu"
    overlaps = False

    def __init__(self, run_chains: Callable, solved: np.ndarray):
        self.run_chains = run_chains
        self.solved = solved
        self.args: tuple = ()

    def load(self, args: tuple) -> None:
        """The run's arguments (run_chains' own); `solved` must be one of them."""
        if not any(a is self.solved for a in args):
            raise ValueError("CpuTrials.load: the arguments do not hold the solved array")
        self.args = tuple(args)

    def run(self, budget: int) -> None:
        """`budget` trials on every chain (returns when done)."""
        for _ in range(budget):
            self.run_chains(*self.args)

    def status(self) -> np.ndarray:
        """The chains' solved flags (the host array itself)."""
        return self.solved

    def fetch(self) -> None:
        """Host arrays are the working arrays: nothing to copy."""

    def fetched(self) -> tuple:
        """The arguments given to load (current all along)."""
        return self.args


class TrialsRun(NamedTuple):
    """What run_trials ran: trials over all chains, and the seconds of its first round (one
    trial on every chain, the launch's compile included where it is the first)."""

    trials: int
    first_round: float


def run_trials(
    runner: TrialRunner | Callable,
    args: tuple,
    solved: np.ndarray,
    t_start: float,
    time_limit: float,
    max_trials: int | None,
) -> TrialsRun:
    """Run trials on `runner` (a TrialRunner, or a callable with run_chains_cpu's signature run
    as CpuTrials) over `args` until a chain solves, time runs out or every chain is out of
    trials (the chains' `left` counts, from trials_left(chains, max_trials), stop them); then
    fetch the chain results into the host arrays. Returns the trials run over all chains
    (`chains` a round, fewer in a last round that max_trials cuts) and the first round's
    seconds: where a runner cannot cut a round (a card's launch) and that passes time_limit,
    the chains were too many for it."""
    if not isinstance(runner, TrialRunner):
        runner = CpuTrials(runner, solved)
    chains = len(solved)
    runner.load(args)
    trials = 0
    first_round = None
    while True:
        started = time.perf_counter()
        runner.run(1)
        trials += chains if max_trials is None else min(chains, max_trials - trials)
        done = runner.status().any()
        now = time.perf_counter()
        if first_round is None:
            first_round = now - started
        if done or now - t_start > time_limit:
            break
        if max_trials is not None and trials >= max_trials:
            break
    runner.fetch()
    runner.fetched()
    return TrialsRun(trials, first_round)


def trial_stats(
    t_start: float, ran: TrialsRun, best_f: np.ndarray, best: np.ndarray, solved: np.ndarray
) -> dict:
    """The fields every anneal result ends with: trials, seconds, the first round's seconds,
    chains, per-chain results."""
    return {
        "trials": ran.trials,
        "seconds": time.perf_counter() - t_start,
        "first_round": ran.first_round,
        "chains": len(best_f),
        "best_f": best_f,
        "best": best,
        "solved_chains": int(solved.sum()),
    }


def no_solution(t_start: float, chains: int, **fields) -> dict:
    """anneal's result for an instance that has no solution (no trial run)."""
    return {
        "solved": False,
        "energy": None,
        **fields,
        "trials": 0,
        "seconds": time.perf_counter() - t_start,
        "chains": chains,
        "no_solution": True,
    }
