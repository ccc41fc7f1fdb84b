"""The Hashi integer program's time limit bounds the whole solve, its building included."""

import time

import pytest

from benchmarks.bench_million_cells import puzzles
from cpu_reference.hashi import ilp as HI
from cpu_reference.hashi import puzzle as H
from gpu_anneal.kinds.hashi import KIND as HASHI

# seconds a call may run past a limit that is spent before HiGHS starts: one step of
# building (the candidate edges of the 999x999 lattice) on a loaded machine
MARGIN = 1.0
SQUARE = "2.2\n...\n2.2"  # three rounds: two of cuts, then the square of single bridges


def test_hashi_limit_spent_while_building_stops_before_highs():
    """A 999x999 lattice (250,000 islands, 499,000 candidate edges) given 0.05 s: time_limit,
    HiGHS never started, within the margin (building its whole program took seconds)."""
    p = H.parse(puzzles(1000)["hashi lattice"][1], "lattice")
    start = time.perf_counter()
    res = HI.solve_ilp(p, time_limit=0.05)
    wall = time.perf_counter() - start
    assert res["status"] == "time_limit" and res["rounds"] == 0 and res["bridges"] is None
    assert wall < 0.05 + MARGIN, f"{wall:.2f} s for a limit of 0.05 s"
    raw = HASHI.solve_one(p, "ilp", "cpu", 1, 0, 0.05)
    assert raw["status"] == "time_limit" and raw["solution"] is None
    assert raw["seconds"] < 0.05 + MARGIN, f"{raw['seconds']:.2f} s for a limit of 0.05 s"


def test_hashi_limit_spent_by_the_candidate_edges_builds_no_rows(monkeypatch):
    """The clock is read once the candidate edges are found: spent, no row is built."""
    real = HI.edge_graph

    def slow_edges(p):
        time.sleep(0.3)
        return real(p)

    def never(*args):
        raise AssertionError("rows built past the limit")

    monkeypatch.setattr(HI, "edge_graph", slow_edges)
    monkeypatch.setattr(HI, "_base_rows", never)
    res = HI.solve_ilp(H.parse_grid(SQUARE), time_limit=0.1)
    assert res["status"] == "time_limit" and res["rounds"] == 0


def test_hashi_matrix_building_counts_before_highs(monkeypatch):
    """The matrix's building counts: a limit it spends ends the call with time_limit, HiGHS not
    started (HiGHS was given the limit as it stood before the matrix was built)."""
    real = HI.coo_matrix

    def slow_matrix(*args, **kwargs):
        time.sleep(0.5)
        return real(*args, **kwargs)

    monkeypatch.setattr(HI, "coo_matrix", slow_matrix)
    start = time.perf_counter()
    res = HI.solve_ilp(H.parse_grid(SQUARE), time_limit=0.3)
    wall = time.perf_counter() - start
    assert res["status"] == "time_limit" and res["rounds"] == 0
    assert wall < 0.5 + MARGIN


def test_hashi_highs_is_given_what_is_left(monkeypatch):
    """Each round's HiGHS limit is what is left of the call's when HiGHS starts."""
    given = []
    real = HI.milp_within

    def recording(seconds, **kwargs):
        given.append((seconds, time.perf_counter()))
        return real(seconds, **kwargs)

    monkeypatch.setattr(HI, "milp_within", recording)
    start = time.perf_counter()
    res = HI.solve_ilp(H.parse_grid(SQUARE), time_limit=30.0)
    assert res["status"] == "optimal" and res["rounds"] == len(given) > 1
    limits = [limit for limit, _ in given]
    assert limits == sorted(limits, reverse=True) and len(set(limits)) == len(limits)
    for limit, at in given:
        assert 30.0 - (at - start) <= limit < 30.0


def test_parsing_spends_the_puzzles_time_limit(monkeypatch):
    """A puzzle's time limit counts from the solve's start: a parse that took 0.4 s of a 0.3 s
    limit leaves HiGHS nothing, and the annealer is given what is left of 10 s."""
    real = HASHI.parse

    def slow_parse(*args, **kwargs):
        time.sleep(0.4)
        return real(*args, **kwargs)

    monkeypatch.setattr(HASHI, "parse", slow_parse)
    raw = HASHI.solve_one(SQUARE, "ilp", "cpu", 1, 0, 0.3)
    assert raw["status"] == "time_limit" and raw["rounds"] == 0 and raw["solution"] is None

    given = []

    def recording(p, chains, seed, time_limit, *rest):
        given.append(time_limit)
        raise LookupError("recorded")

    monkeypatch.setattr(HASHI, "anneal", recording)
    with pytest.raises(LookupError, match="recorded"):
        HASHI.solve_one(SQUARE, "anneal", "cpu", 1, 0, 10.0)
    assert len(given) == 1 and given[0] <= 10.0 - 0.4
