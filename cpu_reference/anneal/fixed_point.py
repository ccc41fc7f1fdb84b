"""Metropolis thresholds in integers only: the CPU and the GPU agree bit for bit by construction.

Glossary:
    beta     inverse temperature 1/T, held as an unsigned fixed-point number in Q23.40
    k        plateau index inside a trial
    d        a move's cost increase (delta), 1 <= d <= TMAX
    thr[d]   acceptance threshold of delta d: accept iff u32 < thr[d], u32 a uniform 32-bit draw

Fixed-point formats:

    beta (uint64, Q23.40)      bit 63 ... 40 | 39 .......... 0
                                  integer     |    fraction
    growth (uint64, Q2.62)     exp(step) of a geometric schedule, 1 <= exp(step) < 4
    thr, table entries         uint32, Q0.32: exp(-x) * 2**32, truncated, capped at 2**32 - 1

exp(-x) for x = beta * 1 in Q23.40 is the product of six table entries: five 6-bit slices of its
fraction (all factors near 1, multiplied first), then the integer part of x (0..22; x >= 23 gives
0 since exp(-23) * 2**32 < 1), held normalised as a 32-bit mantissa and a shift so that small
thresholds keep their relative precision:

    EXP_TABLE[0:23]              mantissa of exp(-i) * 2**(32 + s_i), in [2**31, 2**32)
    EXP_TABLE[23 + 64 l + j]     exp(-j * 2**-(6 (l + 1))),     l = 0..4, j = 0..63
    EXP_TABLE[343 + i]           s_i, the shift of exp(-i)

    x:  iiiii.aaaaaa bbbbbb cccccc dddddd eeeeee (10 fraction bits below these are dropped)

so thr[1] carries a relative error below 2**-29 (the five truncations and the dropped 10 bits), and
thr[d] = thr[d-1] * thr[1] >> 32 (repeated multiplication, as the float version did) adds at most
one unit of 2**-32 per step. Beta advances by integer arithmetic too: linear schedules add step
(Q23.40) per plateau; geometric ones multiply by exp(step) (Q2.62) with a 64x64 high product.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, uint32, uint64

from cpu_reference.anneal.bits import mul_high64

BETA_BITS = 40  # fraction bits of beta
GROWTH_BITS = 62  # fraction bits of a geometric schedule's growth factor
EXP_INT = 23  # exp(-x) rounds to 0 for x >= 23
EXP_LEVELS = 5
EXP_SLICE = 6
EXP_SHIFTS = EXP_INT + EXP_LEVELS * (1 << EXP_SLICE)  # where the integer part's shifts start
EXP_TABLE_SIZE = EXP_SHIFTS + EXP_INT
BETA_MAX = (1 << 61) - 1  # beta stops growing here (about 2.1e6), far past any threshold

_ONE32 = 1 << 32


def _q32(value: float) -> int:
    return min(_ONE32 - 1, int(value * _ONE32))


def exp_table() -> np.ndarray:
    """uint32[EXP_TABLE_SIZE]: the integer-part and fraction-slice factors of exp(-x)."""
    shifts = [max(0, math.floor(i / math.log(2)) - 1) for i in range(EXP_INT)]
    table = [min(_ONE32 - 1, int(math.exp(-i) * 2.0 ** (32 + s))) for i, s in enumerate(shifts)]
    for level in range(EXP_LEVELS):
        unit = 2.0 ** (-EXP_SLICE * (level + 1))
        table += [_q32(math.exp(-j * unit)) for j in range(1 << EXP_SLICE)]
    return np.array(table + shifts, dtype=np.uint32)


def beta_fixed(beta: float) -> int:
    """beta as Q23.40 (rounded), for the host to hand to the chains."""
    if not (math.isfinite(beta) and beta >= 0):
        raise ValueError(f"beta = {beta}: must be finite and non-negative")
    scaled = beta * (1 << BETA_BITS)
    return BETA_MAX if scaled >= BETA_MAX else round(scaled)


def growth_fixed(step: float) -> int:
    """exp(step) as Q2.62 for a geometric schedule (beta_{k+1} = beta_k exp(step))."""
    factor = math.exp(step)
    if not 1.0 <= factor < 4.0:
        raise ValueError(f"geometric growth exp({step}) = {factor}: must lie in [1, 4)")
    return round(factor * (1 << GROWTH_BITS))


@njit(inline="always")
def exp_neg(x, table):
    """exp(-x / 2**40) * 2**32, truncated, for x in Q23.40 (uint64): a uint32."""
    if x >= uint64(EXP_INT << BETA_BITS):
        return uint32(0)
    acc = uint64(0xFFFFFFFF)
    fraction = x & uint64((1 << BETA_BITS) - 1)
    for level in range(EXP_LEVELS):
        shift = uint64(BETA_BITS - EXP_SLICE * (level + 1))
        j = uint32((fraction >> shift) & uint64((1 << EXP_SLICE) - 1))
        factor = uint64(table[uint32(EXP_INT + (level << EXP_SLICE)) + j])
        acc = (acc * factor) >> uint64(32)
    i = uint32(x >> uint64(BETA_BITS))
    acc = (acc * uint64(table[i])) >> uint64(32 + table[uint32(EXP_SHIFTS) + i])
    return uint32(min(acc, uint64(0xFFFFFFFF)))


@njit(inline="always")
def next_beta(geometric, beta, step):
    """Beta of the next plateau: beta + step (linear) or beta * growth (geometric), capped."""
    if geometric:
        nxt = mul_high64(beta, step) << uint64(64 - GROWTH_BITS)
    else:
        nxt = beta + step
    return min(nxt, uint64(BETA_MAX))


def threshold_reference(beta: float, delta: int) -> float:
    """The exact threshold exp(-beta delta) * 2**32 in floating point (for tests and docs)."""
    return math.exp(-beta * delta) * _ONE32
