"""Chain g's RNG state in a few matrix products instead of g jumps.

Glossary:
    s        a xoroshiro128+ state (s0, s1) seen as 128 bits: bit k of s0 is bit k, bit k of s1
             is bit 64 + k
    J        one jump (2**64 steps, cpu_reference.anneal.rng), a linear map over GF(2)
    M_b      J ** (2 ** b), a 128 x 128 bit matrix kept as its columns
    g        chain index; chain g's state is chain 0's jumped g times

StreamCursor walks one jump per chain (about 0.23 us each on a 2-core Xeon), so seeding a slot of
10,000 chains costs the host 2.3 ms. A jump is linear in the state, so J ** g is the product of
M_b over the set bits b of g: the host reaches the first chain of a puzzle in at most 64
products, and the device derives the puzzle's other chains from it in parallel
(gpu_anneal.kernels.pool), at most bit_length(cpp - 1) products a chain.

    powers[b, k, w]   uint64   word w of M_b applied to unit state k (column k of M_b)

Applying a matrix to s is the xor of the columns of the set bits of s: 128 conditional xors.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numba import njit, uint32, uint64

from cpu_reference.anneal.rng import StreamCursor, init_states

STATE_BITS = 128


@njit(cache=True)
def apply(columns, s0, s1):
    """The state columns @ (s0, s1) over GF(2): (new s0, new s1)."""
    r0 = uint64(0)
    r1 = uint64(0)
    for k in range(64):
        if (s0 >> uint32(k)) & uint64(1):
            r0 ^= columns[k, 0]
            r1 ^= columns[k, 1]
        if (s1 >> uint32(k)) & uint64(1):
            r0 ^= columns[64 + k, 0]
            r1 ^= columns[64 + k, 1]
    return r0, r1


@njit(cache=True)
def _square(columns, out):
    for k in range(STATE_BITS):
        out[k, 0], out[k, 1] = apply(columns, columns[k, 0], columns[k, 1])


def _jump_columns(out: np.ndarray) -> None:
    """Column k of J: unit state k jumped once (a cursor set to that state walks one jump)."""
    cursor = StreamCursor(0)
    for k in range(STATE_BITS):
        unit = np.zeros(2, dtype=np.uint64)
        unit[k // 64] = np.uint64(1) << np.uint64(k % 64)
        cursor.chain, cursor.state = 0, unit
        out[k] = cursor.states(1, 1)[0]


@cache
def powers(bits: int = 64) -> np.ndarray:
    """uint64[bits, 128, 2]: the columns of M_0 .. M_{bits-1} (M_b = J ** 2 ** b)."""
    if not 1 <= bits <= 64:
        raise ValueError(f"bits = {bits}: expected 1..64")
    out = np.zeros((bits, STATE_BITS, 2), dtype=np.uint64)
    _jump_columns(out[0])
    for b in range(1, bits):
        _square(out[b - 1], out[b])
    return out


def bits_for(count: int) -> int:
    """Matrices needed to reach any chain index below `count` (at least 1)."""
    return max(1, int(count - 1).bit_length())


def jump_ahead(state: np.ndarray, count: int) -> np.ndarray:
    """uint64[2]: `state` jumped `count` times (0 <= count < 2**64)."""
    if not 0 <= count < 2**64:
        raise ValueError(f"count = {count}: expected 0 .. 2**64 - 1")
    out = np.asarray(state, dtype=np.uint64).copy()
    _jump_ahead(powers(64), out, np.uint64(count))
    return out


@njit(cache=True)
def _jump_ahead(table, state, count):
    s0 = state[0]
    s1 = state[1]
    for b in range(64):
        if (count >> uint32(b)) & uint64(1):
            s0, s1 = apply(table[b], s0, s1)
    state[0] = s0
    state[1] = s1


class JumpCursor:
    """The state of any chain of a seed, by jump-ahead from the last chain asked for."""

    def __init__(self, seed: int):
        self.chain = 0
        self.state = init_states(1, seed)[0].copy()
        self.origin = self.state.copy()

    def state_of(self, chain: int) -> np.ndarray:
        """uint64[2]: the state of chain `chain` (as StreamCursor.states(chain, 1)[0])."""
        if chain < self.chain:
            self.chain, self.state = 0, self.origin.copy()
        self.state = jump_ahead(self.state, chain - self.chain)
        self.chain = chain
        return self.state.copy()
