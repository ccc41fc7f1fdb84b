"""Integer thresholds and beta arithmetic against exact floating-point references."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit, uint64

from cpu_reference.anneal.bits import mul_high64
from cpu_reference.anneal.fixed_point import (
    BETA_BITS,
    beta_fixed,
    exp_neg,
    exp_table,
    growth_fixed,
    next_beta,
)
from cpu_reference.sudoku import rules

TABLE = exp_table()


@njit
def _exp_many(xs, table):
    out = np.empty(xs.size, dtype=np.uint32)
    for i in range(xs.size):
        out[i] = exp_neg(uint64(xs[i]), table)
    return out


@njit
def _mulhi_many(a, b):
    out = np.empty(a.size, dtype=np.uint64)
    for i in range(a.size):
        out[i] = mul_high64(a[i], b[i])
    return out


@njit
def _betas(geometric, beta0, step, count):
    out = np.empty(count, dtype=np.uint64)
    beta = uint64(beta0)
    for k in range(count):
        out[k] = beta
        beta = next_beta(geometric, beta, uint64(step))
    return out


def test_exp_of_fixed_point_beta_is_within_two_to_the_minus_28():
    """exp(-x) * 2**32 from six table factors: relative error below 2**-28 plus one unit."""
    rng = np.random.default_rng(5)
    x = rng.uniform(0, 24, 20_000)
    fixed = np.array([beta_fixed(v) for v in x], dtype=np.uint64)
    got = _exp_many(fixed, TABLE).astype(np.float64)
    exact = np.exp(-fixed.astype(np.float64) / 2.0**BETA_BITS) * 2.0**32
    exact = np.minimum(exact, 2.0**32 - 1)
    assert np.all(np.abs(got - exact) <= exact * 2.0**-28 + 1.0)
    assert got[x >= 23].max() == 0 and got[x < 0.001].min() > 2**32 - 2**23


def test_high_product_equals_python_integers():
    """mul_high64 is the top half of the exact 128-bit product."""
    rng = np.random.default_rng(9)
    a = rng.integers(0, 2**64, 5000, dtype=np.uint64, endpoint=False)
    b = rng.integers(0, 2**64, 5000, dtype=np.uint64, endpoint=False)
    a[:3] = [2**64 - 1, 0, 1]
    b[:3] = [2**64 - 1, 2**64 - 1, 2**64 - 1]
    got = _mulhi_many(a, b)
    for x, y, z in zip(a.tolist(), b.tolist(), got.tolist(), strict=True):
        assert z == (x * y) >> 64


def test_linear_beta_is_exact_and_geometric_tracks_the_float_law():
    """Linear: beta_k = beta_0 + k step exactly. Geometric: each step truncates under 4 units of
    2**-40 at beta >= 0.5, a relative 7.3e-12, so 10,000 plateaus stay within 7.3e-8."""
    b0, st = beta_fixed(1 / 810), beta_fixed(math.log(1.1) / 811)
    lin = _betas(False, b0, st, 1000)
    assert lin.tolist() == [b0 + k * st for k in range(1000)]
    g0, growth = beta_fixed(0.5), growth_fixed(-math.log(0.999))
    geo = _betas(True, g0, growth, 10_000).astype(np.float64) / 2.0**BETA_BITS
    exact = 0.5 * np.exp(np.arange(10_000) * -math.log(0.999))
    np.testing.assert_allclose(geo, exact, rtol=7.3e-8)


@pytest.mark.parametrize("beta", [0.001, 0.05, 0.7, 3.0, 30.0])
def test_plateau_thresholds_follow_exp_minus_beta_delta(beta):
    """thr[d] = thr[1]**d: thr[1]'s relative error (< 2**-28) grows d-fold, plus d truncations."""
    model = rules.model(3, rules.MOVE_SIRDEY)
    thr = np.zeros((model.tmax + 1, 1), dtype=np.uint32)

    fill_thresholds = model.fill_thresholds

    @njit
    def fill(thr, b, table):
        fill_thresholds(thr, 0, uint64(b), table)

    fill(thr, beta_fixed(beta), TABLE)
    for d in range(1, model.tmax + 1):
        exact = min(math.exp(-beta * d) * 2.0**32, 2.0**32 - 1)
        assert abs(int(thr[d, 0]) - exact) <= exact * d * 2.0**-28 + d + 1


def test_out_of_range_schedule_values_are_refused():
    """Fixed point refuses what it cannot hold instead of wrapping."""
    with pytest.raises(ValueError):
        beta_fixed(float("nan"))
    with pytest.raises(ValueError):
        growth_fixed(2.0)  # exp(2) > 4
