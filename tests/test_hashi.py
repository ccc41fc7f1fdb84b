"""Hashiwokakero: formats, verifier, exact program with connectivity, generator, annealing."""

import numpy as np
import pytest

from cpu_reference.errors import InputError
from cpu_reference.hashi import generate as HG
from cpu_reference.hashi import ilp as HI
from cpu_reference.hashi import puzzle as H

# Two 2-islands above two 2-islands: the objective-free program may pair them into two
# disconnected double bridges; the only connected answer is the square of single bridges.
SQUARE = "2.2\n...\n2.2"
# Four 1s at the corners: only two bridges fit, so every answer is disconnected.
CORNERS = "1.1\n...\n1.1"


def test_game_id_round_trip():
    p = H.parse_grid("3.2\n...\n1.2")
    gid = H.to_game_id(p)
    assert gid == "3x3m2:3a2c1a2"
    q = H.parse_game_id("3x3i30e10m2d0:3a2c1a2")
    assert np.array_equal(q.grid, p.grid) and q.maxb == 2 and q.allow_loops
    assert not H.parse_game_id("3x3m2L:3a2c1a2").allow_loops
    assert H.parse_game_id("3x1:Aa1").grid.tolist() == [[10, 0, 1]]


def test_edge_graph_and_crossings():
    p = H.parse_grid(".1.\n1.1\n.1.")
    g = H.edge_graph(p)
    assert len(g.ea) == 2 and len(g.crossings) == 1


def test_verifier_rules():
    p = H.parse_grid(SQUARE)
    sol = [[0, 0, 0, 2, 1], [0, 0, 2, 0, 1], [0, 2, 2, 2, 1], [2, 0, 2, 2, 1]]
    assert H.verify(p, sol) == (True, "ok")
    split = [[0, 0, 0, 2, 2], [2, 0, 2, 2, 2]]
    assert "groups" in H.verify(p, split)[1]
    assert "value" in H.verify(p, sol[:3])[1]
    cross = H.parse_grid(".1.\n1.1\n.1.")
    assert "crosses" in H.verify(cross, [[1, 0, 1, 2, 1], [0, 1, 2, 1, 1]])[1]
    assert "not aligned" in H.verify(p, [[0, 0, 2, 2, 1]])[1]
    loops = H.parse_game_id("3x3m2L:2a2c2a2")
    assert "loop" in H.verify(loops, sol)[1]


def test_move_and_text():
    p = H.parse_grid(SQUARE)
    sol = [[0, 0, 0, 2, 1], [0, 0, 2, 0, 2]]
    assert H.solve_move(sol) == "S;L0,0,2,0,1;L0,0,0,2,2"
    assert H.solution_text(p, sol).splitlines() == ["2-2", '"..', "2.2"]


def test_ilp_connected_and_unique():
    p = H.parse_grid(SQUARE)
    res = HI.solve_ilp(p)
    assert res["status"] == "optimal" and res["connected"]
    assert H.verify(p, res["bridges"])[0]
    assert HI.is_unique(p) is True


def test_objective_mode_returns_disconnected_where_exact_says_no_solution():
    p = H.parse_grid(CORNERS)
    loose = HI.solve_ilp(p, mode="objective")
    assert loose["status"] == "optimal" and loose["connected"] is False
    assert not H.verify(p, loose["bridges"])[0]
    assert HI.solve_ilp(p)["status"] == "infeasible"


def test_lazy_cuts_make_a_disconnected_first_answer_connected():
    # the first program's answer on this generated instance splits into groups: 3 rounds
    p = H.parse_game_id("8x8m2:u2a2m2a2x")
    res = HI.solve_ilp(p)
    assert res["rounds"] >= 2 and res["cuts"] >= 1
    assert res["status"] == "optimal" and res["connected"]
    assert H.verify(p, res["bridges"])[0]


def test_no_solution_is_reported():
    assert HI.solve_ilp(H.parse_grid("3.1"))["status"] == "infeasible"


@pytest.mark.parametrize("size", [8, 20, 40])
def test_generator_seeded_valid_and_solvable(size):
    a, sol_a = HG.generate(size, size, np.random.default_rng(3))
    b, sol_b = HG.generate(size, size, np.random.default_rng(3))
    assert np.array_equal(a.grid, b.grid) and sol_a == sol_b
    assert H.verify(a, sol_a) == (True, "ok")
    res = HI.solve_ilp(a, time_limit=30)
    assert res["status"] == "optimal" and H.verify(a, res["bridges"])[0]


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("3x3m2:3a2c1a", "cells"),
        ("3x3m2:3a2c1a22", "more than"),
        ("3x3m2:3a2c1a?", "unknown character"),
        ("3x3m2:33a1c1a", "side by side"),
        ("3x3m9:3a2c1a2", "outside"),
        ("3x3m-1:3a2c1a2", "parameters 'm-1' after the size"),  # taken as m2 before
        ("3x3garbage:3a2c1a2", "parameters 'garbage' after the size"),
        ("3.2\n..\n1.2", "line 2"),
        ("3.2\n.x.\n1.2", "unknown cell"),
        ("...\n...", "no island"),
    ],
)
def test_bad_input_one_line_error(text, fragment):
    with pytest.raises(InputError) as err:
        H.parse(text)
    msg = str(err.value)
    assert fragment in msg and "\n" not in msg


@pytest.mark.parametrize("energy", ["seed", "connected"])
def test_anneal_solves_generated_and_verifies(energy):
    from cpu_reference.hashi import rules as HA

    for size, seed in ((8, 1), (16, 2)):
        p, _ = HG.generate(size, size, np.random.default_rng(seed))
        res = HA.anneal(p, chains=8, seed=seed, time_limit=20, energy=energy)
        assert res["solved"]
        bridges = H.bridges_from_mult(p, res["graph"], res["mult"])
        assert H.verify(p, bridges) == (True, "ok")


def test_anneal_never_reports_a_disconnected_answer_as_solved():
    from cpu_reference.hashi import rules as HA

    p = H.parse_grid(CORNERS)  # only disconnected answers exist
    res = HA.anneal(p, chains=4, seed=0, time_limit=2, max_trials=3, energy="seed")
    assert not res["solved"]
    # the seed's energy reaches its floor (C = 0, D = 0, two edges: f = -2) but that is no solution
    assert res["energy"] == -2


def test_anneal_reproducible():
    from cpu_reference.hashi import rules as HA

    p, _ = HG.generate(10, 10, np.random.default_rng(4))
    kw = dict(chains=4, seed=3, max_trials=1, early_stop=False, n_plateaus=3, plateau=10)
    a = HA.anneal(p, **kw)
    b = HA.anneal(p, **kw)
    assert np.array_equal(a["best"], b["best"]) and np.array_equal(a["best_f"], b["best_f"])


def test_api_unique_generation_and_objective_report():
    from gpu_anneal.grid_puzzles import generate_grid_puzzles, solve_grid_puzzle

    ids = generate_grid_puzzles("hashi", 9, 9, 2, seed=2, unique=True)
    assert all(HI.is_unique(H.parse(g)) for g in ids)
    res = solve_grid_puzzle("hashi", CORNERS, method="ilp", ilp_mode="objective")
    assert res["connected"] is False and not res["solved"] and not res["verified"]
    res = solve_grid_puzzle("hashi", ids[0], method="anneal", backend="cpu", chains=4)
    assert res["solved"] and res["move"].startswith("S;L")
    with pytest.raises(InputError):
        solve_grid_puzzle("hashi", ids[0], method="anneal", backend="cpu", energy="nope")


@pytest.mark.parametrize("params", ["", "m3", "i30e10m2d0", "i30e10m2Ld1"])
def test_tathams_parameters_after_the_size_are_read(params):
    """The parameters Tatham's bridges writes after WxH (islands, expansion, maximum bridges,
    L, difficulty) are taken; m sets the maximum."""
    p = H.parse(f"3x3{params}:3a2c1a2")
    assert p.maxb == (3 if params == "m3" else 2) and p.allow_loops == ("L" not in params)


def _oracle_graph(p):
    """The edge graph by its definition, island by island and edge pair by edge pair."""
    isl = p.islands.tolist()
    at = {(r, c): i for i, (r, c, _) in enumerate(isl)}
    edges = []  # (a, b, horizontal)
    for i, (r, c, _) in enumerate(isl):
        for dr, dc, hz in ((0, 1, 1), (1, 0, 0)):
            rr, cc = r + dr, c + dc
            while rr < p.height and cc < p.width and (rr, cc) not in at:
                rr, cc = rr + dr, cc + dc
            if rr < p.height and cc < p.width:
                edges.append((i, at[rr, cc], hz))
    pairs = []
    for e, (a, b, hz) in enumerate(edges):
        for f, (c, d, vz) in enumerate(edges):
            if hz == 1 and vz == 0:
                row, col = isl[a][0], isl[c][1]
                if isl[a][1] < col < isl[b][1] and isl[c][0] < row < isl[d][0]:
                    pairs.append((e, f))
    crossing = {e: sorted([f for x, f in pairs if x == e] + [x for x, f in pairs if f == e])
                for e in range(len(edges))}  # fmt: skip
    incident = {i: [e for e, (a, b, _) in enumerate(edges) if i in (a, b)] for i in range(len(isl))}
    return edges, pairs, crossing, incident


def test_edge_graph_agrees_with_its_definition_on_random_grids():
    """On 200 random grids (sides 1-14, islands never side by side): the edges, their order, the
    crossings and both CSR lists equal the definition's. The graph was built by a loop over
    every pair of a horizontal and a vertical edge: a 999x999 grid of 250,000 islands held
    the solve in it for minutes, past any time limit."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        height, width = (int(x) for x in rng.integers(1, 15, 2))
        grid = np.zeros((height, width), np.int64)
        for _ in range(int(height * width * rng.random())):
            r, c = int(rng.integers(height)), int(rng.integers(width))
            if (
                not grid[max(r - 1, 0) : r + 2, c].any()
                and not grid[r, max(c - 1, 0) : c + 2].any()
            ):
                grid[r, c] = rng.integers(1, 9)
        if not grid.any():
            continue
        p = H.parse_grid("\n".join("".join(str(v) if v else "." for v in row) for row in grid))
        g = H.edge_graph(p)
        edges, pairs, crossing, incident = _oracle_graph(p)
        assert list(zip(g.ea.tolist(), g.eb.tolist(), g.horiz.tolist(), strict=True)) == edges
        assert g.crossings.tolist() == [list(x) for x in pairs]
        for e in range(len(edges)):
            assert g.xlist[g.xstart[e] : g.xstart[e + 1]].tolist() == crossing[e]
        for i in range(len(p.islands)):
            assert g.ilist[g.istart[i] : g.istart[i + 1]].tolist() == incident[i]
        assert g.values.tolist() == p.islands[:, 2].tolist()
