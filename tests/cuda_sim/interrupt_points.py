"""Ctrl-C at every point of a small Sudoku pool run, on either runner.

Used by tests/test_interrupts.py (CPU runner, in-process) and by
tests/cuda_sim/sudoku_interrupts.py (CUDA runner, under the simulator).

A run counts events: the entry and the return of every runner call (run, status, fetch,
fetched, load, empty, stop), of the pool's refill and results, of the puzzle source's next (a Ctrl-C
at its return loses the puzzle in transit: it counts as not read), of the solver's
Result-building at the Item level, and each result the consumer takes. `Points(k)` raises
KeyboardInterrupt at the k-th event; `faults` lists what a run got wrong: a puzzle read and
reported twice or never, a result solved without the verifier, a Ctrl-C that did not end the
run with KeyboardInterrupt.
"""

from __future__ import annotations

import contextlib
from collections import Counter

import numpy as np

# 4x4 puzzles: five that solve, and one that cannot (r1c1 has no digit left) and ends when its
# chains run out of trials or the exact search proves it has no solution; two slots, so that
# puzzles leave and enter the pool
PUZZLES = [
    "1...........4...", "..3.4.........2.", "..12....3...4...", "4.....3..1....2.",
    ".2......3.......", "..1.............",
]  # fmt: skip
SCHEDULE = "geometric:t0=1,ratio=0.8,t_final=0.1"  # 11 plateaus of 16 moves a trial
SETTINGS = dict(chains=2, seed=5, time_limit=None, max_trials=8, move="sirdey")
RUNNER_CALLS = ("run", "status", "fetch", "fetched", "load", "empty", "stop")


def cells(text: str) -> np.ndarray:
    """A 4x4 puzzle's cells (0 blank)."""
    return np.array([0 if ch == "." else int(ch) for ch in text.ljust(16, ".")], np.uint8)


class Points:
    """Counts events; raises KeyboardInterrupt at event number `stop_at` (1-based)."""

    def __init__(self, stop_at: int):
        self.stop_at = stop_at
        self.count = 0
        self.where: str | None = None

    def tick(self, name: str) -> None:
        """One event; Ctrl-C here if it is the chosen one."""
        self.count += 1
        if self.count == self.stop_at:
            self.where = name
            raise KeyboardInterrupt

    def wrap(self, name: str, fn):
        """fn with an event at its entry and one at its return."""

        def wrapped(*args, **kwargs):
            self.tick(f"{name}:enter")
            out = fn(*args, **kwargs)
            self.tick(f"{name}:return")
            return out

        return wrapped


@contextlib.contextmanager
def watched(points: Points):
    """Every runner the pool makes, the pool's refill and results, and the solvers' Result
    building, with events."""
    from gpu_anneal import solvers
    from gpu_anneal import sudoku_solver as solver

    make_runner = solver.make_runner

    def make(*args, **kwargs):
        runner = make_runner(*args, **kwargs)
        for name in RUNNER_CALLS:
            setattr(runner, name, points.wrap(name, getattr(runner, name)))
        return runner

    saved = {
        (solver, "make_runner"): make_runner,
        (solver._Pool, "refill"): solver._Pool.refill,
        (solver._Pool, "results"): solver._Pool.results,
        (solvers, "_from_pool"): solvers._from_pool,
    }
    solver.make_runner = make
    for (owner, name), fn in saved.items():
        if name != "make_runner":
            setattr(owner, name, points.wrap(name, fn))
    try:
        yield
    finally:
        for (owner, name), fn in saved.items():
            setattr(owner, name, fn)


SPARE_SETTINGS = dict(SETTINGS, max_trials=None, spare_chains=True)


def pool_run(stop_at: int, backend: str, count: int = len(PUZZLES), spare: float = 0.0) -> dict:
    """solve_stream (the pool) on the first `count` PUZZLES with a Ctrl-C at event `stop_at`;
    a consumer that, interrupted itself, asks the pool for what it holds (stop_stream).
    `spare` > 0: spare chains on, no trial cap and a time limit of `spare` seconds instead
    (SPARE_SETTINGS), so that the slot the last solvable puzzle leaves once the stream is
    exhausted takes the chains of the puzzle still running (the unsolvable one)."""
    from gpu_anneal import sudoku_solver as solver

    points = Points(stop_at)
    read: list[int] = []

    def source():
        for q, text in enumerate(PUZZLES[:count]):
            points.tick("next:enter")
            item = (q, cells(text))
            points.tick("next:return")
            read.append(q)
            yield item

    got, stopped, interrupted = [], [], False
    proof_after = solver.PROOF_AFTER
    if spare:  # the unsolvable puzzle runs to its time limit, unproved, to take spare chains
        solver.PROOF_AFTER = float("inf")
    with watched(points):
        stream = solver.solve_stream(
            source(), 2, slots=2, backend=backend, schedule=SCHEDULE,
            **(dict(SPARE_SETTINGS, time_limit=spare) if spare else SETTINGS),
        )  # fmt: skip
        try:
            for result in stream:
                got.append(result)
                points.tick("consumer")
        except solver.InterruptedBatch as stop:
            stopped, interrupted = stop.results, True
        except KeyboardInterrupt:
            stopped, interrupted = solver.stop_stream(stream), True
        finally:
            solver.PROOF_AFTER = proof_after
    return outcome(points, count, read, got, stopped, interrupted)


def item_run(stop_at: int, backend: str, count: int = len(PUZZLES)) -> dict:
    """The solvers' Sudoku annealing (sudoku_anneal, as api.solve_stream runs it) on the first
    `count` PUZZLES as Items, with a Ctrl-C at event `stop_at`; the consumer is not interrupted
    (the command line's loop: it stops at the KeyboardInterrupt that ends the stream)."""
    from gpu_anneal import api, solvers
    from gpu_anneal.settings import Settings

    points = Points(stop_at)
    items = api.parse_puzzles("\n".join(PUZZLES[:count]) + "\n")
    read: list[int] = []

    def source():
        for item in items:
            points.tick("next:enter")
            points.tick("next:return")
            read.append(item.index)
            yield item

    settings = Settings(
        kind="sudoku", method="anneal", backend=backend, schedule=SCHEDULE, t0=None,
        propagate=False, batch=2, **SETTINGS,
    )  # fmt: skip
    got, interrupted = [], False
    with watched(points):
        try:
            for result in solvers.sudoku_anneal(source(), settings):
                got.append(result)
        except KeyboardInterrupt:
            interrupted = True
    return outcome(points, count, read, got, [], interrupted)


def outcome(points: Points, count: int, read, got, stopped, interrupted: bool) -> dict:
    """What a run read and reported (plain data: it crosses a process boundary as JSON)."""

    def row(r) -> dict:
        return {"index": int(r.index), "solved": bool(r.solved), "verified": bool(r.verified),
                "error": r.error, "status": getattr(r, "status", None),
                "spare_chains": (getattr(r, "extra", None) or {}).get("spare_chains")}  # fmt: skip

    return {
        "stop_at": points.stop_at, "events": points.count, "where": points.where, "count": count,
        "interrupted": interrupted, "read": list(read), "handed": [row(r) for r in got],
        "stopped": [row(r) for r in stopped],
    }  # fmt: skip


def faults(run: dict) -> list[str]:
    """What a run got wrong (empty when nothing)."""
    out = []
    injected = run["where"] is not None
    if injected != run["interrupted"]:
        out.append(f"Ctrl-C at {run['where']}: interrupted={run['interrupted']}")
    reported = [r["index"] for r in run["handed"] + run["stopped"]]
    twice = sorted(i for i, n in Counter(reported).items() if n > 1)
    if twice:
        out.append(f"reported more than once: {twice}")
    if sorted(set(reported)) != sorted(run["read"]):
        out.append(f"read {sorted(run['read'])}, reported {sorted(set(reported))}")
    if not injected and sorted(run["read"]) != list(range(run["count"])):
        out.append(f"a run without Ctrl-C read {run['read']}")
    for r in run["handed"] + run["stopped"]:
        if r["solved"] and not r["verified"]:
            out.append(f"puzzle {r['index']} solved without the verifier")
        proved = r["index"] == 2 and (r["error"] or "").startswith("no solution")
        if not injected and r["error"] is not None and not proved:
            out.append(f"puzzle {r['index']}: error {r['error']!r} without Ctrl-C")
    if not injected and not all(r["solved"] for r in run["handed"] if r["index"] != 2):
        out.append("a solvable puzzle stayed unsolved")
    return out
