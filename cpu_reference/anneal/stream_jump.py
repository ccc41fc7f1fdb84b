"""Chain g's RNG state in a few matrix products instead of g jumps.

Glossary:
    s        a xoroshiro128+ state (s0, s1) seen as 128 bits: bit k of s0 is bit k, bit k of s1
             is bit 64 + k
    J        one jump (2**64 steps, anneal/rng.py), a linear map over GF(2)
    M_b      J ** (2 ** b), a 128 x 128 bit matrix kept as its columns
    g        chain index; chain g's state is chain 0's jumped g times

Walking costs one jump per chain (about 0.23 us each on a 2-core Xeon), so seeding a slot of
10,000 chains costs the host 2.3 ms. A jump is linear in the state, so J ** g is the product of
M_b over the set bits b of g: the host reaches the first chain of a puzzle in at most 64
products, and the device derives the puzzle's other chains from it in parallel
(gpu_anneal.kernels.pool), at most bit_length(cpp - 1) products a chain.

StreamCursor gives the states of any run of chains: it walks to a first chain a little ahead of
the last one it made (at most WALK_AT_MOST) and jumps ahead to any other (behind it, or far
ahead: a spare chain's stream, past 2**40). JumpCursor always jumps ahead, for one chain a
puzzle.

    powers[b, k, w]   uint64   word w of M_b applied to unit state k (column k of M_b)

Applying a matrix to s is the xor of the columns of the set bits of s: 128 conditional xors.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numba import njit, uint32, uint64

from cpu_reference.anneal.rng import init_states, jump, walk

STATE_BITS = 128
# chains a StreamCursor walks one jump at a time; farther, jumping ahead (at most 64 matrix
# products, whatever the distance) costs less than walking
WALK_AT_MOST = 32


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
    """Column k of J: unit state k jumped once."""
    for k in range(STATE_BITS):
        unit = np.zeros(2, dtype=np.uint64)
        unit[k // 64] = np.uint64(1) << np.uint64(k % 64)
        out[k] = jump(unit[0], unit[1])


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


class StreamCursor:
    """States of chains first..first+count-1 of a seed, for any `first` at the cost of a few jumps.

    Chain g's state is chain 0's jumped g times. The cursor remembers the last chain it made: a
    first at most `walk_at_most` chains past it is walked to one jump a chain (so walking through
    a file's chains in order costs one jump per chain in all); a first behind it starts again
    from chain 0, and one farther ahead is reached by jump_ahead.
    """

    def __init__(self, seed: int, walk_at_most: int = WALK_AT_MOST):
        self.walk_at_most = walk_at_most
        self.chain = 0
        self.state = init_states(1, seed)[0].copy()
        self.origin = self.state.copy()

    def states(self, first: int, count: int) -> np.ndarray:
        """uint64[count, 2]: the states of chains first, first + 1, ..."""
        if first < self.chain:
            self.chain, self.state = 0, self.origin.copy()
        if first - self.chain > self.walk_at_most:
            self.state = jump_ahead(self.state, first - self.chain)
            self.chain = first
        out = np.zeros((count, 2), dtype=np.uint64)
        walk(self.state[0], self.state[1], first - self.chain, out)
        self.chain = first + count - 1 if count else self.chain
        if count:
            self.state = out[-1].copy()
        return out


class JumpCursor(StreamCursor):
    """The state of any chain of a seed, by jump-ahead from the last chain asked for (or from
    chain 0 when that is behind): a StreamCursor that never walks, for callers that want one
    chain's state a puzzle, far apart."""

    def __init__(self, seed: int):
        super().__init__(seed, walk_at_most=0)

    def state_of(self, chain: int) -> np.ndarray:
        """uint64[2]: the state of chain `chain` (as StreamCursor.states(chain, 1)[0])."""
        return self.states(chain, 1)[0]
