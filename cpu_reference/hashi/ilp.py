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
from scipy.optimize import Bounds, LinearConstraint
from scipy.sparse import coo_matrix

from cpu_reference.deadline import milp_within
from cpu_reference.errors import InputError
from cpu_reference.hashi.puzzle import Hashi, bridges_from_mult, component_labels, edge_graph


def _base_rows(g, maxb: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(row, column, value, lower, upper): the entries and bounds of the rows every program
    holds, as arrays: x_e - y_e <= 0 (row 2e), y_e - maxb x_e <= 0 (row 2e + 1), x_e + x_f <= 1
    for each crossing, then each island's sum of y_e at it equal to its value."""
    n_e, n_i = len(g.ea), len(g.values)
    cross = np.asarray(g.crossings, np.int64).reshape(-1, 2)
    n_x = len(cross)
    e = np.arange(n_e, dtype=np.int64)
    x_rows = 2 * n_e + np.arange(n_x, dtype=np.int64)
    at = 2 * n_e + n_x + np.repeat(np.arange(n_i, dtype=np.int64), np.diff(g.istart))
    rows = np.concatenate([2 * e, 2 * e, 2 * e + 1, 2 * e + 1, x_rows, x_rows, at])
    cols = np.concatenate([e, n_e + e, n_e + e, e, cross[:, 0], cross[:, 1],
                           n_e + np.asarray(g.ilist, np.int64)])  # fmt: skip
    vals = np.concatenate([np.ones(n_e), np.full(n_e, -1.0), np.ones(n_e),
                           np.full(n_e, -float(maxb)), np.ones(2 * n_x + len(at))])  # fmt: skip
    values = np.asarray(g.values, float)
    lo = np.concatenate([np.full(2 * n_e + n_x, -np.inf), values])
    hi = np.concatenate([np.zeros(2 * n_e), np.ones(n_x), values])
    return rows, cols, vals, lo, hi


def _no_good(sol, n_e: int, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """(row, column, value, lower) of row r, which every answer but the multiplicities `sol`
    meets: sum_{m=0} x + sum_{m>0} (1 - x) + sum_{m=1} (y - x) + sum_{m>1} (2 - y) >= 1."""
    m = np.asarray(sol)[:n_e]
    zero, one = m == 0, m == 1
    more = ~zero & ~one
    x_val = np.where(zero, 1.0, np.where(one, -2.0, -1.0))
    y_at = np.flatnonzero(~zero)
    y_val = np.where(one[y_at], 1.0, -1.0)
    cols = np.concatenate([np.arange(n_e, dtype=np.int64), n_e + y_at])
    const = float(np.count_nonzero(~zero) + 2 * np.count_nonzero(more))
    return np.full(len(cols), r, np.int64), cols, np.concatenate([x_val, y_val]), 1.0 - const


def _cuts(g, lab: np.ndarray, r: int) -> tuple[np.ndarray, np.ndarray, int, int]:
    """(row, column, the cuts' count, the components before the first with no edge leaving
    it, -1 when every component has one): row r + k is the cut of the k-th component of the
    island labels `lab`, sum of x_e over the edges leaving it >= 1."""
    comp = np.unique(lab, return_inverse=True)[1].reshape(-1)
    a, b = comp[g.ea], comp[g.eb]
    leaving = np.flatnonzero(a != b)
    n_comp = int(comp.max()) + 1 if len(comp) else 0
    count = np.bincount(a[leaving], minlength=n_comp) + np.bincount(b[leaving], minlength=n_comp)
    closed = np.flatnonzero(count == 0)
    rows = r + np.concatenate([a[leaving], b[leaving]]).astype(np.int64)
    cols = np.concatenate([leaving, leaving]).astype(np.int64)
    return rows, cols, n_comp, int(closed[0]) if len(closed) else -1


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
    time_limit bounds the whole call: the clock is read between the steps of building the
    program and between rounds, "time_limit" is returned once it is spent, and HiGHS is given
    what is left of it (cpu_reference.deadline.milp_within: a large program in a child process
    killed at the deadline). The call may pass time_limit by what one step of building takes.
    """
    t0 = time.perf_counter()
    out = {"bridges": None, "mult": None, "connected": None, "rounds": 0, "cuts": 0}

    def left() -> float:
        return time_limit - (time.perf_counter() - t0)

    def done(status: str) -> dict:
        out["status"] = status
        if status != "optimal":
            out.update(mult=None, bridges=None)
        out["seconds"] = time.perf_counter() - t0
        return out

    g = edge_graph(p)
    n_e = len(g.ea)
    n_i = len(g.values)
    if n_e == 0:  # islands with no candidate edge: no bridge can reach them (every value >= 1)
        return done("infeasible")
    if left() <= 0:
        return done("time_limit")
    rows, cols, vals, lo, hi = _base_rows(g, p.maxb)
    entries, bounds_lo, bounds_hi = [(rows, cols, vals)], [lo], [hi]
    r = len(lo)
    for sol in exclude or []:
        rows, cols, vals, lower = _no_good(sol, n_e, r)
        entries.append((rows, cols, vals))
        bounds_lo.append(np.array([lower]))
        bounds_hi.append(np.array([np.inf]))
        r += 1
    c = np.zeros(2 * n_e)
    if mode == "objective":
        c[:n_e] = -1.0
    integrality = np.ones(2 * n_e)
    bounds = Bounds(np.zeros(2 * n_e), np.r_[np.ones(n_e), np.full(n_e, float(p.maxb))])
    while True:
        if left() <= 0 or out["rounds"] >= max_rounds:
            return done("time_limit")
        rows, cols, vals = (np.concatenate(part) for part in zip(*entries, strict=True))
        a = coo_matrix((vals, (rows, cols)), shape=(r, 2 * n_e)).tocsr()
        constraint = LinearConstraint(a, np.concatenate(bounds_lo), np.concatenate(bounds_hi))
        budget = left()
        if budget <= 0:
            return done("time_limit")
        res = milp_within(budget, c=c, constraints=[constraint], integrality=integrality,
                          bounds=bounds)  # fmt: skip
        out["rounds"] += 1
        if res.status == 2:
            return done("infeasible")
        if res.status != 0 or res.x is None:
            return done("time_limit")
        y = np.round(res.x[n_e:]).astype(np.int64)
        used = np.nonzero(y > 0)[0]
        lab = component_labels(n_i, np.column_stack([g.ea[used], g.eb[used]]))
        connected = bool(lab.min() == lab.max())
        out.update(mult=y, connected=connected)
        if connected or mode == "objective":
            out["bridges"] = bridges_from_mult(p, g, y)
            return done("optimal")
        rows, cols, n_comp, closed = _cuts(g, lab, r)
        if closed >= 0:  # a component no candidate edge leaves: no answer joins it
            out["cuts"] += closed
            out["connected"] = None
            return done("infeasible")
        entries.append((rows, cols, np.ones(len(rows))))
        bounds_lo.append(np.ones(n_comp))
        bounds_hi.append(np.full(n_comp, np.inf))
        r += n_comp
        out["cuts"] += n_comp


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
