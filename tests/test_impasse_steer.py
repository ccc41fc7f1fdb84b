"""benchmarks.impasse_steer: a chain holding more open cells than K cools, one holding fewer
warms, within the range, past its first H moves only; the weights follow; and the bench steers
the chains it runs on a real puzzle."""

from __future__ import annotations

import numpy as np
import pytest
from test_impasse import lewis

from benchmarks import bench_impasse_solve_rate as sr
from benchmarks import impasse_steer as st
from cpu_reference.sudoku import impasse


def test_steer_tables_are_parsed_as_written():
    """K/H gives the target and the horizon in moves; malformed or non-positive ones are
    refused naming the form."""
    steer = st.parse_steer("20/5")
    assert (steer["target"], steer["horizon"]) == (20.0, 5e6)
    for bad in ("20", "20/5/1", "a/5", "0/5", "20/0", "-1/5"):
        with pytest.raises(ValueError, match="--steer"):
            st.parse_steer(bad)


def test_a_chain_above_k_cools_one_below_warms_and_the_weights_follow():
    """Three chains at 0.32, K = 20, H = 1 M moves, slices of 100,000: one holding 40 open
    cells cools, one holding 5 warms, one holding 20 keeps 0.32; each row of weights is
    heat_weights of its chain's temperature."""
    steering = st.Steering({"target": 20.0, "horizon": 1e6}, 3, 0.32)
    weights = np.zeros((3, 5), np.int64)
    opens = np.array([40, 5, 20])
    for _ in range(5):
        steering.step(opens, np.full(3, 2_000_000), 100_000, weights)
    cold, warm, held = steering.temperatures
    assert cold < 0.32 < warm
    assert held == pytest.approx(0.32)
    for row, temperature in zip(weights, steering.temperatures, strict=True):
        assert row.tolist() == impasse.heat_weights(temperature).tolist()


def test_the_temperature_stays_in_range_and_a_trials_first_h_moves_are_left_out():
    """Held far from K for many slices, the temperatures stop at TEMPERATURE_RANGE's ends; a
    chain within its trial's first H moves keeps its temperature and weights."""
    low, high = st.TEMPERATURE_RANGE
    steering = st.Steering({"target": 10.0, "horizon": 1e5}, 3, 0.32)
    weights = np.full((3, 5), -1, np.int64)
    trial_moves = np.array([10**6, 10**6, 10**4])
    for _ in range(2_000):
        steering.step(np.array([200, 0, 200]), trial_moves, 100_000, weights)
    assert steering.temperatures.tolist() == [low, high, 0.32]
    assert weights[2].tolist() == [-1] * 5


def test_the_bench_steers_the_chains_of_a_real_puzzle():
    """Two chains on a 25x25 at 45 % from 0.35, steered to 8 open cells over 50,000 moves, for
    four slices: they make moves, their temperatures at the end are reported, inside the range,
    and have left 0.35 (the steering acted on the chains count_solves ran); the chains' mean
    open count at the slices' ends is reported, a count a 25x25 chain can hold."""
    cells = lewis(5, 45)
    run = sr.count_solves(cells, 5, sr.parse_table("0.35"), 0, 2, 1, 60.0, max_slices=4,
                          steer=st.parse_steer("8/0.05"))  # fmt: skip
    assert 0 < run["moves"] <= 4 * 2 * impasse.SLICE_MOVES
    low, high = st.TEMPERATURE_RANGE
    assert len(run["temperatures"]) == 2
    assert all(low <= t <= high for t in run["temperatures"])
    assert any(t != pytest.approx(0.35) for t in run["temperatures"])
    assert 0 < run["mean_open"] < 25 * 25
