"""benchmarks.bench_impasse_solve_rate: weight tables as written, chains that restart on a
solve and count verified solves, a tabu chain that never takes back a digit within its
tenure and keeps its grid legal, and the recolouring move that rewrites a filled cell."""

from __future__ import annotations

import numpy as np
import pytest
from test_impasse import assert_legal, lewis

from benchmarks import bench_impasse_solve_rate as sr
from benchmarks import impasse_recolour as rc
from cpu_reference.sudoku import impasse


def test_a_table_is_the_heat_bath_scaled_as_written():
    """T alone is impasse.heat_weights(T); S, A1 and A2 scale the stay weight, w(1) and w(2);
    malformed or out-of-range tables are refused naming the form."""
    plain = sr.parse_table("0.32")
    assert (plain["stay"], plain["a1"], plain["a2"]) == (1.0, 1.0, 1.0)
    assert sr.table_weights(plain).tolist() == impasse.heat_weights(0.32).tolist()
    heat = impasse.heat_weights(0.32, 0.5)
    scaled = sr.table_weights(sr.parse_table("0.32:0.5:2:0.25"))
    assert scaled.tolist() == [heat[0], heat[1], round(2 * heat[2]), round(0.25 * heat[3]),
                               heat[4]]  # fmt: skip
    for bad in ("x", "0.32:1:1:1:1", "0", "0.32:1.5", "0.32:1:-1"):
        with pytest.raises(ValueError, match="--tables"):
            sr.parse_table(bad)


def test_poisson_interval_holds_the_count_and_widens_as_it_shrinks():
    """The 95 % interval of k contains k, its upper bound at 0 is about 3.69, and the interval
    relative to k narrows as k grows."""
    assert sr.poisson_interval(0)[0] == 0 and sr.poisson_interval(0)[1] == pytest.approx(3.69, 0.02)
    widths = []
    for k in (1, 5, 20, 100):
        low, high = sr.poisson_interval(k)
        assert low < k < high
        widths.append((high - low) / k)
    assert widths == sorted(widths, reverse=True)


@pytest.mark.parametrize("tenure", [0, 2])
def test_chains_restart_on_a_solve_and_count_verified_solves(tenure):
    """25x25 at 45 % for 20 slices, two chains: several solves, each verified (count_solves
    raises on a wrong one), no more distinct solutions than solves, and the solves' moves
    within all moves."""
    cells = lewis(5, 45)
    run = sr.count_solves(cells, 5, sr.parse_table("0.35"), tenure, 2, 1, 1e9, max_slices=20)
    assert run["solves"] >= 2
    assert 1 <= run["solutions"] <= run["solves"]
    assert len(run["chain_moves"]) == run["solves"]
    assert sum(run["chain_moves"]) <= run["moves"]


def test_tabu_never_takes_back_a_digit_within_its_tenure():
    """A tabu chain run a move at a time on 25x25 at 45 %: a cell a write opened never holds
    the digit it left again within the tenure, it does so later in the same run (so the check
    can fail), and the grid, holders and open set stay legal."""
    cells = lewis(5, 45)
    tenure = 3
    args = list(impasse.chain_arrays(impasse.impasse_tables(cells, 5), 5, 1, 7, 0.35))
    args[impasse.SLICE_AT] = 1
    left_digit = np.zeros((1, cells.size), np.uint8)
    left_at = np.full((1, cells.size), sr.NEVER)
    grid = args[impasse.GRID]
    sr.run_tabu(*args[: impasse.SLICE_AT + 1], left_digit, left_at, tenure)
    opened_at = {}  # cell -> (digit it left, move)
    retaken_later = 0
    for move in range(1, 20_000):
        before = grid[0].copy()
        sr.run_tabu(*args[: impasse.SLICE_AT + 1], left_digit, left_at, tenure)
        after = grid[0]
        for cell in np.flatnonzero(before != after):
            if after[cell] == 0:
                opened_at[int(cell)] = (int(before[cell]), move)
            elif int(cell) in opened_at:
                digit, at = opened_at[int(cell)]
                if after[cell] == digit:
                    assert move - at > tenure, f"cell {cell} took back {digit} at {move - at}"
                    retaken_later += 1
        if args[impasse.SOLVED][0]:
            break
    assert retaken_later > 0
    args[impasse.BEST][0] = grid[0]
    args[impasse.BEST_F][0] = np.count_nonzero(grid[0] == 0)
    assert_legal(args, cells, 5)


def test_exchanges_keep_one_replica_a_rung_and_its_weights():
    """Replica exchange on 25x25 at 45 %, two chains of four rungs: after rounds of moves and
    exchanges every chain still has one replica on each rung, each row's weights are its
    rung's, and some replicas have left their first rung (so the check can fail)."""
    cells = lewis(5, 45)
    ladder = [0.3, 0.33, 0.36, 0.39]
    table = sr.parse_table("0.3")
    rung_weights = [sr.table_weights({**table, "temperature": t}) for t in ladder]
    args = list(impasse.chain_arrays(impasse.impasse_tables(cells, 5), 5, 8, 3, 0.3))
    rung_of = np.tile(np.arange(4), 2)
    args[impasse.WEIGHTS][:] = [rung_weights[r] for r in rung_of]
    args[impasse.SLICE_AT] = 500
    rng = np.random.default_rng(0)
    for parity in range(40):
        impasse.run_impasse_cpu(*args)
        sr.exchange(args, rung_of, rung_weights, ladder, 2, parity % 2, rng)
    for c in range(2):
        assert sorted(rung_of[4 * c : 4 * c + 4].tolist()) == [0, 1, 2, 3]
    for row, rung in enumerate(rung_of):
        assert args[impasse.WEIGHTS][row].tolist() == rung_weights[rung].tolist()
    assert (rung_of != np.tile(np.arange(4), 2)).any()


def test_a_ladder_run_counts_its_solves_by_rung():
    """count_solves with a ladder on 25x25 at 45 % for 100 rounds: solves verified, counted on
    the rungs they were made on, and every replica's moves counted."""
    table = sr.parse_table("0.35")
    run = sr.count_solves(lewis(5, 45), 5, table, 0, 2, 1, 1e9, [0.33, 0.35], max_slices=100)
    assert run["solves"] >= 2 and sum(run["by_rung"]) == run["solves"]
    assert len(run["by_rung"]) == 2 and sum(run["chain_moves"]) <= run["moves"]


def test_ladders_are_rising_temperatures():
    """--ladders refuses a ladder of one rung, a falling one, or a non-number, in one line."""
    assert sr.ladder_list("0.31/0.32,0.3/0.4/0.5") == [[0.31, 0.32], [0.3, 0.4, 0.5]]
    for bad in ("0.32", "0.33/0.32", "a/b", "0/0.3"):
        with pytest.raises(Exception, match="ladder|expected"):
            sr.ladder_list(bad)


def test_place_tables_list_each_units_cells_that_may_take_a_digit():
    """25x25 at 45 %: places[u, d] holds exactly the free cells of unit u with candidate d, in
    cell order, and nplaces counts them."""
    tables = impasse.impasse_tables(lewis(5, 45), 5)
    _, free, cand, ncand, units = tables
    places, nplaces = rc.place_tables(tables, 25)
    for u in (0, 30, 60, 74):
        for d in (1, 13, 25):
            want = [c for c in free.tolist() if u in units[c] and d in cand[c, : ncand[c]]]
            assert places[u, d, : nplaces[u, d]].tolist() == want


def test_recolouring_rewrites_filled_cells_and_keeps_the_grid_legal():
    """Recolouring half the moves on 25x25 at 45 %, a move at a time: some move changes a filled
    cell's digit to another with no cell opened (which the engine's move never does, so the
    check can fail), and the grid, holders and open set stay legal."""
    cells = lewis(5, 45)
    tables = impasse.impasse_tables(cells, 5)
    args = list(impasse.chain_arrays(tables, 5, 1, 7, 0.35))
    args[impasse.SLICE_AT] = 1
    places = rc.place_tables(tables, 25)
    grid = args[impasse.GRID]
    one_move = (0, *args[: impasse.SLICE_AT + 1], *places, rc.chance_of(0.5))
    rc.recolour_slice(*one_move)  # the chain's slice alone: the parallel runner compiles slowly
    rewritten = 0
    for _ in range(5_000):
        before = grid[0].copy()
        rc.recolour_slice(*one_move)
        changed = np.flatnonzero(before != grid[0])
        if len(changed) == 1 and before[changed[0]] != 0 and grid[0][changed[0]] != 0:
            rewritten += 1
        if args[impasse.SOLVED][0]:
            break
    assert rewritten > 0
    args[impasse.BEST][0] = grid[0]
    args[impasse.BEST_F][0] = np.count_nonzero(grid[0] == 0)
    assert_legal(args, cells, 5)


@pytest.mark.slow  # the parallel runner's first compile takes about 20 s on 2 cores
def test_a_recolouring_run_counts_verified_solves():
    """count_solves with recolouring 0.3 on 25x25 at 45 % for 20 slices: several solves, each
    verified, within all moves (the moves themselves: the test above, in CI)."""
    run = sr.count_solves(lewis(5, 45), 5, sr.parse_table("0.35"), 0, 2, 1, 1e9, max_slices=20,
                          recolour=0.3)  # fmt: skip
    assert run["solves"] >= 2 and 1 <= run["solutions"] <= run["solves"]
    assert sum(run["chain_moves"]) <= run["moves"]
