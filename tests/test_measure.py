"""measure_throughput's rounds: a short measurement over many chains stays short."""

from __future__ import annotations

from cpu_reference.sudoku.schedules import by_name
from gpu_anneal.measure import FIRST_BUDGET, NATIVE_REGIME, first_budget, measure_throughput


def test_first_budget_fits_a_twentieth_of_the_measurement():
    assert first_budget(0.0, 2.0) == FIRST_BUDGET  # no time measured: the usual first round
    assert first_budget(1e-6, 2.0) == FIRST_BUDGET  # cheap plateaus: capped
    assert first_budget(0.01, 2.0) == 10  # 2 s / 20 / 0.01 s
    assert first_budget(5.0, 1.0) == 1  # one plateau outlasts the measurement: one plateau


def test_many_chains_do_not_run_64_plateaus_past_a_short_measurement():
    """`bench throughput --seconds 1 --chains 1000000` took 27 s: its first round ran 64
    plateaus of every chain whatever they cost. The first round now holds what fits in a
    twentieth of the measurement (one plateau here: 200,000 chains of 81 proposals take far
    longer than 2.5 ms on any CPU)."""
    chains = 200_000
    plateau = by_name(NATIVE_REGIME, 3).plateau
    result = measure_throughput(3, 0.05, chains=chains)
    assert result["chains"] == chains
    assert 0 < result["proposals"] < FIRST_BUDGET * chains * plateau
    assert result["proposals"] % (chains * plateau) == 0  # whole plateaus of every chain
