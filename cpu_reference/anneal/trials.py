"""Trial bookkeeping of the grid puzzles' annealing (Shikaku, Hashiwokakero): puzzle-free.

Glossary:
    chains     number of independent chains; chain i draws from RNG state i
    plateau    moves per plateau; n_plateaus plateaus per trial
    beta       1 / T; plateau t uses beta0 * exp(t * growth), so T falls geometrically from
               t0 to t_final over the n_plateaus plateaus
    runner     one trial on every chain: the puzzle's run_chains_cpu, or a CUDA backend's
               runner with the same arguments

Per-chain arrays every puzzle's runner takes (rows indexed by i):

    states int64[chains, 2]   RNG states        best_f int64[chains]  best energy of chain i
    solved int32[chains]      1 once solved     stop   int32[1]       set by the first solver
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np

from cpu_reference.anneal.rng import init_states


def schedule(defaults: dict, **given) -> tuple[int, int, float, float]:
    """(plateau, n_plateaus, beta0, growth) from the defaults and the settings given (not None)."""
    sched = dict(defaults)
    sched.update({key: val for key, val in given.items() if val is not None})
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


def run_trials(
    runner: Callable,
    args: tuple,
    solved: np.ndarray,
    t_start: float,
    time_limit: float,
    max_trials: int | None,
) -> int:
    """Call runner(*args) until a chain solves, time runs out or max_trials; returns the count."""
    trials = 0
    while True:
        runner(*args)
        trials += 1
        if solved.any() or time.perf_counter() - t_start > time_limit:
            break
        if max_trials is not None and trials >= max_trials:
            break
    return trials


def trial_stats(
    t_start: float, trials: int, best_f: np.ndarray, best: np.ndarray, solved: np.ndarray
) -> dict:
    """The fields every anneal result ends with: trials, seconds, chains, per-chain results."""
    return {
        "trials": trials,
        "seconds": time.perf_counter() - t_start,
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
