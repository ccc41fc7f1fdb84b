"""What the Shikaku and Hashiwokakero modules share: format parsing and the annealing driver.

Glossary:
    W, H       grid width and height, as a game ID writes them (`WxH...:desc`)
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
import re
import time
from collections.abc import Callable

import numpy as np

from cpu_reference.errors import InputError
from cpu_reference.rng import init_states

_SIZE = re.compile(r"^\s*(\d+)\s*x\s*(\d+)")


def split_game_id(text: str, where: str) -> tuple[int, int, str, str]:
    """(W, H, the parameters after WxH, the description) of a game ID `WxH[params]:desc`."""
    text = text.strip()
    if ":" not in text:
        raise InputError(f"{where}: no ':' between parameters and description")
    params, desc = text.split(":", 1)
    m = _SIZE.match(params)
    if not m:
        raise InputError(f"{where}: parameters {params!r} do not start with WxH")
    w, h = int(m.group(1)), int(m.group(2))
    if w < 1 or h < 1 or w * h > 10**6:
        raise InputError(f"{where}: size {w}x{h} out of range")
    return w, h, params[m.end() :], desc


def desc_grid(cells: list[int], w: int, h: int, where: str) -> np.ndarray:
    """int64[H, W] of the cells a game ID's description lists; InputError unless W * H of them."""
    if len(cells) != w * h:
        raise InputError(f"{where}: description has {len(cells)} cells, {w}x{h} needs {w * h}")
    return np.array(cells, dtype=np.int64).reshape(h, w)


def grid_rows(
    text: str, where: str, cell: Callable[[str], int | None], spaced_per_line: bool
) -> list[list[int]]:
    """Rows of cell values of a plain text grid; `cell` maps a token to its value (None: unknown).

    Cells are single characters, or tokens separated by spaces: on every line as soon as one
    line has spaces, or (`spaced_per_line`) on each line that has them.
    """
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    if not lines:
        raise InputError(f"{where}: empty grid")
    rows: list[list[int]] = []
    spaced = any(len(ln.split()) > 1 for ln in lines)
    for n, ln in enumerate(lines, 1):
        split = len(ln.split()) > 1 if spaced_per_line else spaced
        row = []
        for t in ln.split() if split else list(ln):
            value = cell(t)
            if value is None:
                raise InputError(f"{where}: line {n}: unknown cell {t!r}")
            row.append(value)
        if rows and len(row) != len(rows[0]):
            raise InputError(f"{where}: line {n}: {len(row)} cells, line 1 has {len(rows[0])}")
        rows.append(row)
    return rows


def parse_either(text: str, where: str, parse_game_id: Callable, parse_grid: Callable):
    """parse_game_id on the first line when it holds ':', else parse_grid on the whole text."""
    stripped = text.strip()
    if not stripped:
        raise InputError(f"{where}: empty input")
    first = stripped.splitlines()[0]
    if ":" in first:
        return parse_game_id(first, where)
    return parse_grid(text, where)


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
