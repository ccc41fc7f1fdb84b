"""Choosing a schedule's trial length for a number of parallel chains, by measured TTS.

Glossary:
    K        chains running at once (all cores, or the threads of a card)
    p        success probability of one trial (gpu_anneal.tts)
    t        seconds of one chain per trial
    TTS(K)   t * max(1, ln(0.01) / (K ln(1 - p))): rounds of K simultaneous trials until the
             chance that none succeeded falls below 1 %, each round lasting one trial

With few chains the best schedule is the one with the best p per second; with many chains one
round is all it takes once K p is large, and shorter trials win. The candidates differ in how
long a trial lasts: the stall rule's patience and the start temperature.
"""

from __future__ import annotations

import math

import numpy as np

from cpu_reference.sudoku.schedules import by_name
from gpu_anneal.tts import measure_puzzle

DEFAULT_CANDIDATES = (
    "sirdey-course",
    "sirdey-course:t0=3",
    "sirdey-course:t0=1",
    "sirdey-course:t0=1,stall=3000",
    "sirdey-course:t0=1,stall=1000",
    "sirdey-course:t0=1,stall=300",
)


def tts_parallel(t_trial: float, p: float, chains: int) -> float:
    """Seconds until one of `chains` simultaneous restarting chains succeeds with 99 %."""
    if p <= 0:
        return math.inf
    if p >= 1:
        return t_trial
    rounds = math.log(0.01) / (chains * math.log1p(-p))
    return t_trial * max(1.0, rounds)


def tune(
    puzzles: list[np.ndarray],
    order: int,
    chains: int,
    *,
    candidates: tuple[str, ...] = DEFAULT_CANDIDATES,
    move: str = "sirdey",
    runs: int = 8,
    time_limit: float = 30.0,
    seed: int = 0,
    on_measured=None,
    on_row=None,
) -> dict:
    """Measure every candidate on the puzzles; the one with the lowest median TTS(K) wins (best
    None when no candidate solved the median puzzle in any run), as `tuned` states it.
    `on_measured()`, when given, is called after each candidate's run on each puzzle, and
    `on_row(row)` with each candidate's table row once it is measured on every puzzle (a
    caller stopped part way keeps the rows and makes them a result with `tuned`). Every
    candidate is refused before any is measured when one is malformed."""
    for name in candidates:
        by_name(name, order)
    table = []
    for name in candidates:
        per_puzzle = []
        for i, cells in enumerate(puzzles):
            row = measure_puzzle(
                cells, order, runs=runs, schedule=name, move=move, seed=seed + i,
                time_limit=time_limit, index=i,
            )  # fmt: skip
            per_puzzle.append(tts_parallel(row.seconds_per_trial, row.p, chains))
            if on_measured is not None:
                on_measured()
        median = float(np.median(per_puzzle))
        table.append({
            "schedule": name,
            "median_tts_parallel": None if math.isinf(median) else median,  # None: never solved
            "per_puzzle": [None if math.isinf(x) else x for x in per_puzzle],
        })  # fmt: skip
        if on_row is not None:
            on_row(table[-1])
    return tuned(table, chains, move)


def tuned(table: list[dict], chains: int, move: str) -> dict:
    """The tuning result of a table of measured candidates: {chains, move, best, table}, best
    the schedule of lowest median TTS(K) (None when none solved its median puzzle, or the table
    is empty)."""
    solved = [r for r in table if r["median_tts_parallel"] is not None]
    best = min(solved, key=lambda r: r["median_tts_parallel"], default=None)
    chosen = None if best is None else best["schedule"]
    return {"chains": chains, "move": move, "best": chosen, "table": table}
