"""Hashiwokakero as an integer program (seed 004, section 2.2), connectivity made exact.

Glossary:
    e        candidate edge (see cpu_reference.hashi.puzzle); x_e binary (edge used), y_e in 0..maxb
    S        a set of islands forming one component of a candidate answer
    cut      sum of x_e over edges with one end in S >= 1, added for every component S of a
             disconnected answer, then the program is solved again (lazy constraints)

Variable layout: z = [x_0 .. x_{E-1}, y_0 .. y_{E-1}].

Rows: x_e <= y_e <= maxb x_e; x_e + x_f <= 1 for crossing e, f; sum_{e at i} y_e = v_i;
cuts; no-good rows excluding earlier solutions (for the uniqueness test).

Modes: "connected" (default, exact: lazy cuts until the answer is connected) and "objective"
(the seed's: maximise sum x_e, no connectivity row; the result says if it came out
disconnected).
"""

from __future__ import annotations

import time

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_matrix

from cpu_reference.errors import InputError
from cpu_reference.hashi.puzzle import Hashi, bridges_from_mult, component_labels, edge_graph


def _base_rows(g, maxb):
    n_e = len(g.ea)
    n_i = len(g.values)
    rows, cols, vals, lo, hi = [], [], [], [], []
    r = 0
    for e in range(n_e):
        rows += [r, r]
        cols += [e, n_e + e]
        vals += [1.0, -1.0]
        lo.append(-np.inf)
        hi.append(0.0)
        r += 1
        rows += [r, r]
        cols += [n_e + e, e]
        vals += [1.0, -float(maxb)]
        lo.append(-np.inf)
        hi.append(0.0)
        r += 1
    for e, f in g.crossings:
        rows += [r, r]
        cols += [int(e), int(f)]
        vals += [1.0, 1.0]
        lo.append(-np.inf)
        hi.append(1.0)
        r += 1
    for i in range(n_i):
        for e in g.ilist[g.istart[i] : g.istart[i + 1]]:
            rows.append(r)
            cols.append(n_e + int(e))
            vals.append(1.0)
        lo.append(float(g.values[i]))
        hi.append(float(g.values[i]))
        r += 1
    return rows, cols, vals, lo, hi, r


def solve_ilp(
    p: Hashi,
    time_limit: float = 60.0,
    mode: str = "connected",
    exclude: list | None = None,
    max_rounds: int = 1000,
) -> dict:
    """Solve; returns {status, mult (int[E]) or None, bridges, connected, rounds, cuts, seconds}.

    status is "optimal", "infeasible" or "time_limit". `exclude` holds multiplicity vectors to
    forbid (no-good rows). A puzzle with no candidate edge (a lone island, islands that face
    none) is infeasible without a program: HiGHS refuses a program of no variables.
    """
    t0 = time.perf_counter()
    g = edge_graph(p)
    n_e = len(g.ea)
    n_i = len(g.values)
    if n_e == 0:  # islands with no candidate edge: no bridge can reach them (every value >= 1)
        return {"status": "infeasible", "bridges": None, "mult": None, "connected": None,
                "rounds": 0, "cuts": 0, "seconds": time.perf_counter() - t0}  # fmt: skip
    rows, cols, vals, lo, hi, r = _base_rows(g, p.maxb)
    for sol in exclude or []:
        sol = np.asarray(sol)
        const = 0.0
        for e in range(n_e):
            if sol[e] == 0:
                rows.append(r)
                cols.append(e)
                vals.append(1.0)
                continue
            rows.append(r)
            cols.append(e)
            vals.append(-1.0)
            const += 1.0
            if sol[e] == 1:
                rows += [r, r]
                cols += [n_e + e, e]
                vals += [1.0, -1.0]
            else:
                rows.append(r)
                cols.append(n_e + e)
                vals.append(-1.0)
                const += 2.0
        lo.append(1.0 - const)
        hi.append(np.inf)
        r += 1
    c = np.zeros(2 * n_e)
    if mode == "objective":
        c[:n_e] = -1.0
    integrality = np.ones(2 * n_e)
    bounds = Bounds(np.zeros(2 * n_e), np.r_[np.ones(n_e), np.full(n_e, float(p.maxb))])
    out = {"bridges": None, "mult": None, "connected": None, "rounds": 0, "cuts": 0}
    rounds = 0
    while True:
        left = time_limit - (time.perf_counter() - t0)
        if left <= 0 or rounds >= max_rounds:
            out["status"] = "time_limit"
            break
        a = coo_matrix((vals, (rows, cols)), shape=(r, 2 * n_e)).tocsr()
        res = milp(
            c=c,
            constraints=[LinearConstraint(a, lo, hi)] if r else [],
            integrality=integrality,
            bounds=bounds,
            options={"time_limit": float(left)},
        )
        rounds += 1
        if res.status == 2:
            out["status"] = "infeasible"
            break
        if res.status != 0 or res.x is None:
            out["status"] = "time_limit"
            break
        y = np.round(res.x[n_e:]).astype(np.int64)
        used = np.nonzero(y > 0)[0]
        lab = component_labels(n_i, np.column_stack([g.ea[used], g.eb[used]]))
        comps = np.unique(lab)
        out.update(mult=y, bridges=bridges_from_mult(p, g, y), connected=len(comps) == 1)
        if len(comps) == 1 or mode == "objective":
            out["status"] = "optimal"
            break
        for comp in comps:
            inside = lab == comp
            leaving = np.nonzero(inside[g.ea] != inside[g.eb])[0]
            if len(leaving) == 0:
                out["status"] = "infeasible"
                break
            for e in leaving:
                rows.append(r)
                cols.append(int(e))
                vals.append(1.0)
            lo.append(1.0)
            hi.append(np.inf)
            r += 1
            out["cuts"] += 1
        if out.get("status") == "infeasible":
            out.update(mult=None, bridges=None, connected=None)
            break
    out["rounds"] = rounds
    out["seconds"] = time.perf_counter() - t0
    if out["status"] != "optimal":
        out.update(mult=None, bridges=None)
    return out


def is_unique(p: Hashi, time_limit: float = 60.0) -> bool | None:
    """True when exactly one connected solution exists (solve, forbid it, solve again).

    The no-good row is exact for maxb <= 2: sum_{m=0} x + sum_{m>0} (1 - x)
    + sum_{m=1} (y - x) + sum_{m=2} (2 - y) >= 1. None when a solve times out.
    """
    if p.maxb > 2:
        raise InputError(f"unique: only puzzles with at most 2 bridges per pair, not {p.maxb}")
    t0 = time.perf_counter()
    first = solve_ilp(p, time_limit)
    if first["status"] != "optimal":
        return None if first["status"] == "time_limit" else False
    left = time_limit - (time.perf_counter() - t0)
    second = solve_ilp(p, max(left, 1.0), exclude=[first["mult"]])
    if second["status"] == "time_limit":
        return None
    return second["status"] == "infeasible"
