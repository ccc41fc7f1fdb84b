"""Shikaku as an exact cover integer program (seed 004, section 1.2), solved by HiGHS.

Glossary:
    k        clue index, l candidate rectangle index (global over clues), x_l binary
    cell     flat cell index r * W + c
    rows     constraint rows: K clue rows (one rectangle each) then H * W cell rows (covered once)

Matrix layout (A x = 1, all rows equalities):

               x_0 .. x_{R-1}
    clue k   [ 1 where l is a candidate of k ]
    cell     [ 1 where rectangle l covers the cell ]
"""

from __future__ import annotations

import math
import time

import numpy as np
from scipy.optimize import Bounds, LinearConstraint
from scipy.sparse import coo_matrix

from cpu_reference.deadline import milp_within
from cpu_reference.runs import run_offsets
from cpu_reference.shikaku.puzzle import Shikaku, candidates

# entries of the exact cover's matrix (a candidate's clue and cells) the program is built with
# at most: past them a grid is refused in one line (about 16 bytes an entry, and HiGHS's copy)
MAX_COVER_ENTRIES = 20_000_000


def cover_entries(cand: np.ndarray) -> int:
    """Entries of the exact cover's matrix over these candidates: one for a candidate's clue,
    one for each of its cells."""
    return int(len(cand) + (cand[:, 2].astype(np.int64) * cand[:, 3]).sum())


def _matrix(p: Shikaku, cand: np.ndarray, start: np.ndarray):
    """The exact cover's 0/1 matrix, CSR: row k (a clue) holds its candidates, row K + cell the
    candidates covering the cell; built from arrays (a rectangle's cells in reading order)."""
    k_count = len(start) - 1
    n_cand = len(cand)
    clue_rows = np.repeat(np.arange(k_count, dtype=np.int64), np.diff(start))
    top, left = cand[:, 0].astype(np.int64), cand[:, 1].astype(np.int64)
    height, width = cand[:, 2].astype(np.int64), cand[:, 3].astype(np.int64)
    owner, offset = run_offsets(height * width)  # each candidate's cells, in reading order
    wide = width[owner]
    cells = (top[owner] + offset // wide) * p.width + left[owner] + offset % wide
    rows = np.concatenate([clue_rows, k_count + cells])
    cols = np.concatenate([np.arange(n_cand, dtype=np.int64), owner])
    n_rows = k_count + p.height * p.width
    return coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(n_rows, n_cand)).tocsr()


def _rects(x: np.ndarray, cand: np.ndarray, start: np.ndarray) -> list:
    """The chosen candidates of a solution `x` as rects per clue ([top, left, height, width],
    None for a clue with none chosen), found for all candidates at once."""
    chosen = np.flatnonzero(np.round(x).astype(np.int64))
    owner = np.searchsorted(start, chosen, side="right") - 1
    rects = [None] * (len(start) - 1)
    for k, rect in zip(owner.tolist(), cand[chosen].tolist(), strict=True):
        rects[k] = rect
    return rects


def solve_ilp(
    p: Shikaku, time_limit: float = 60.0, pruned: bool = True, exclude: list | None = None
) -> dict:
    """Solve by exact cover. Returns {status, rects (or None), seconds, variables}.

    `exclude` is a list of solutions (rects per clue) to forbid with no-good cuts; status is
    "optimal", "infeasible", "time_limit" (the model's building counts toward time_limit) or
    "too_large" (with a `reason`: the matrix would pass MAX_COVER_ENTRIES, so none is built).
    The clock is read after the candidates and after the matrix; HiGHS is given what is left
    (cpu_reference.deadline.milp_within: a large program in a child process killed at the
    deadline). The call may pass time_limit by one step of building.
    """
    t0 = time.perf_counter()
    cand, start = candidates(p, pruned=pruned)
    k_count = len(start) - 1
    if np.any(np.diff(start) == 0):
        return {"status": "infeasible", "rects": None, "seconds": 0.0, "variables": len(cand)}
    entries = cover_entries(cand)
    if entries > MAX_COVER_ENTRIES:  # refused: built, it would take gigabytes and minutes
        reason = (f"its exact cover would hold {entries:,} entries, past the "
                  f"{MAX_COVER_ENTRIES:,} the integer program is built with; the annealing "
                  "method takes it")  # fmt: skip
        return {"status": "too_large", "reason": reason, "rects": None,
                "seconds": time.perf_counter() - t0, "variables": len(cand)}  # fmt: skip

    def left() -> float:
        return math.inf if time_limit is None else float(time_limit) - (time.perf_counter() - t0)

    def spent() -> dict:
        return {"status": "time_limit", "rects": None, "seconds": time.perf_counter() - t0,
                "variables": len(cand)}  # fmt: skip

    if left() <= 0:
        return spent()
    a = _matrix(p, cand, start)
    cons = [LinearConstraint(a, 1, 1)]
    if exclude:
        index = {tuple(int(v) for v in r): i for i, r in enumerate(cand)}
        for sol in exclude:
            chosen = [index.get(tuple(int(v) for v in r)) for r in sol]
            if any(c is None for c in chosen):
                continue
            row = np.zeros(len(cand))
            row[chosen] = 1
            cons.append(LinearConstraint(row.reshape(1, -1), -np.inf, k_count - 1))
    budget = left()
    if budget <= 0:  # the model took the whole limit: HiGHS is not started
        return spent()
    res = milp_within(
        budget,
        c=np.zeros(len(cand)),
        constraints=cons,
        integrality=np.ones(len(cand)),
        bounds=Bounds(0, 1),
    )
    seconds = time.perf_counter() - t0
    out = {"rects": None, "seconds": seconds, "variables": len(cand)}
    if res.status == 0 and res.x is not None:
        out.update(status="optimal", rects=_rects(res.x, cand, start))
    elif res.status == 2:
        out["status"] = "infeasible"
    else:
        out["status"] = "time_limit"
    return out


def is_unique(p: Shikaku, time_limit: float = 60.0) -> bool | None:
    """True when the puzzle has exactly one solution (solve, forbid it, re-solve); None: not
    settled (the time limit, or a program too large to build)."""
    unsettled = ("time_limit", "too_large")
    start = time.perf_counter()
    first = solve_ilp(p, time_limit)
    if first["status"] != "optimal":
        return None if first["status"] in unsettled else False
    left = time_limit - (time.perf_counter() - start)  # the two solves share the limit
    second = solve_ilp(p, max(left, 1.0), exclude=[first["rects"]])
    if second["status"] in unsettled:
        return None
    return second["status"] == "infeasible"
