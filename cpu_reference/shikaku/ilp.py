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

import time

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_matrix

from cpu_reference.shikaku.puzzle import Shikaku, candidates


def _matrix(p: Shikaku, cand: np.ndarray, start: np.ndarray):
    rows, cols = [], []
    k_count = len(start) - 1
    for k in range(k_count):
        for l_ in range(start[k], start[k + 1]):
            rows.append(k)
            cols.append(l_)
    for l_, (t, left, hh, ww) in enumerate(cand):
        rr, cc = np.meshgrid(np.arange(t, t + hh), np.arange(left, left + ww), indexing="ij")
        cells = (rr * p.width + cc).ravel()
        rows.extend((k_count + cells).tolist())
        cols.extend([l_] * len(cells))
    n_rows = k_count + p.height * p.width
    return coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(n_rows, len(cand))).tocsr()


def solve_ilp(
    p: Shikaku, time_limit: float = 60.0, pruned: bool = True, exclude: list | None = None
) -> dict:
    """Solve by exact cover. Returns {status, rects (or None), seconds, variables}.

    `exclude` is a list of solutions (rects per clue) to forbid with no-good cuts; status is
    "optimal", "infeasible" or "time_limit".
    """
    t0 = time.perf_counter()
    cand, start = candidates(p, pruned=pruned)
    k_count = len(start) - 1
    if np.any(np.diff(start) == 0):
        return {"status": "infeasible", "rects": None, "seconds": 0.0, "variables": len(cand)}
    a = _matrix(p, cand, start)
    cons = [LinearConstraint(a, 1, 1)]
    index = {tuple(int(v) for v in r): i for i, r in enumerate(cand)}
    for sol in exclude or []:
        chosen = [index.get(tuple(int(v) for v in r)) for r in sol]
        if any(c is None for c in chosen):
            continue
        row = np.zeros(len(cand))
        row[chosen] = 1
        cons.append(LinearConstraint(row.reshape(1, -1), -np.inf, k_count - 1))
    res = milp(
        c=np.zeros(len(cand)),
        constraints=cons,
        integrality=np.ones(len(cand)),
        bounds=Bounds(0, 1),
        options={"time_limit": float(time_limit)},
    )
    seconds = time.perf_counter() - t0
    out = {"rects": None, "seconds": seconds, "variables": len(cand)}
    if res.status == 0 and res.x is not None:
        x = np.round(res.x).astype(int)
        chosen = np.nonzero(x)[0]
        rects = [None] * k_count
        for l_ in chosen:
            k = int(np.searchsorted(start, l_, side="right") - 1)
            rects[k] = cand[l_].tolist()
        out.update(status="optimal", rects=rects)
    elif res.status == 2:
        out["status"] = "infeasible"
    else:
        out["status"] = "time_limit"
    return out


def is_unique(p: Shikaku, time_limit: float = 60.0) -> bool | None:
    """True when the puzzle has exactly one solution (solve, forbid it, re-solve); None: timeout."""
    first = solve_ilp(p, time_limit)
    if first["status"] != "optimal":
        return None if first["status"] == "time_limit" else False
    second = solve_ilp(p, time_limit, exclude=[first["rects"]])
    if second["status"] == "time_limit":
        return None
    return second["status"] == "infeasible"
