"""The impasse chain with its held temperature steered to an open count: an experiment for
benchmarks.bench_impasse_solve_rate (--steer), not an engine option.

A steered table K/H runs the engine's chains (cpu_reference.sudoku.impasse) slice by slice, and
between two slices moves each chain's temperature toward the one at which its grid holds K
open cells on average: the chain's open count at the end of the slice enters a running mean
over about H moves (a chain's first H moves of a trial, its descent from the trial's start,
are left out), and the temperature is multiplied by exp(a (K - mean) / K), a the slice's
moves over H, within TEMPERATURE_RANGE. The chain's row of weights is then heat_weights of
its new temperature. A puzzle's chains so find their own temperature for that open count
(a chain held at 0.32 averages other open counts on other grids). The steering reads only the
chain's own state at fixed moves (every slice), so a steered chain is one a replay could repeat.

Glossary of index names (as in cpu_reference.sudoku.impasse):
    i        chain index
    open     oset[i, 0]: chain i's open cells at the end of a slice
    mean     mean[i]: the running mean of chain i's open counts over about H moves
"""

from __future__ import annotations

import math

import numpy as np

from cpu_reference.sudoku.impasse import heat_weights

TEMPERATURE_RANGE = (0.2, 0.45)  # the lowest and highest temperature a steered chain takes


def parse_steer(text: str) -> dict:
    """{"spec", "target", "horizon"} from K/H (K open cells above 0, H million moves above 0);
    ValueError naming the form."""
    try:
        target, horizon = (float(part) for part in text.split("/"))
    except ValueError:
        raise ValueError(f"--steer {text!r}: expected K/H, e.g. 20/20") from None
    if not (target > 0 and horizon > 0):
        raise ValueError(f"--steer {text!r}: K and H above 0")
    return {"spec": text, "target": target, "horizon": horizon * 1e6}


class Steering:
    """The steered temperatures of `chains` chains starting at `temperature` (module
    docstring)."""

    def __init__(self, steer: dict, chains: int, temperature: float) -> None:
        self.target = steer["target"]
        self.horizon = steer["horizon"]
        self.temperatures = np.full(chains, float(temperature))
        self.mean = np.full(chains, float(self.target))

    def step(
        self, opens: np.ndarray, trial_moves: np.ndarray, slice_moves: int, weights: np.ndarray
    ) -> None:
        """After a slice of `slice_moves` moves with open counts `opens`, the chains having made
        `trial_moves` moves of their trials: each chain past its first H moves moves its mean
        and temperature on, and its row of `weights` takes the new temperature."""
        share = min(1.0, slice_moves / self.horizon)
        low, high = TEMPERATURE_RANGE
        for i, found in enumerate(np.asarray(opens, np.float64)):
            if trial_moves[i] < self.horizon:
                continue
            self.mean[i] += share * (found - self.mean[i])
            change = math.exp(share * (self.target - self.mean[i]) / self.target)
            self.temperatures[i] = min(high, max(low, self.temperatures[i] * change))
            weights[i] = heat_weights(self.temperatures[i])
