"""xoroshiro128+ streams, one per chain, equal to numba.cuda.random's for the same seed.

Glossary:
    s0, s1   the two 64-bit words of one generator's state
    i        chain index (thread index on the GPU)
    r        one 64-bit output

`init_states(chains, seed)` returns uint64[chains, 2] holding exactly the states that
`numba.cuda.random.create_xoroshiro128p_states(chains, seed)` gives thread i: chain 0 is seeded by
splitmix64(seed) in both words, chain i is chain i-1 jumped ahead by 2**64 steps.

The step functions are pure: they take (s0, s1) and return the output with the new state, so the
same jitted code keeps the state in registers inside a CUDA kernel and in locals on the CPU.
Every integer is cast to uint64 explicitly: mixed uint64/int64 arithmetic promotes to float64
under NumPy 2 in the CUDA simulator.

Draw layout used by the annealers (one draw per proposed move):

    bit 63 ........ 32 | 31 ...... 20 | 19 ........ 0
        acceptance u32 |  value (12)  |   site (20)

site  = (r & 0xFFFFF) * sites >> 20       (relative bias <= sites / 2**20)
value = ((r >> 20) & 0xFFF) * values >> 12 (relative bias <= values / 2**12, none for powers of 2)
accept iff u32 < threshold[delta], threshold = floor(exp(-beta * delta) * (2**32 - 1))

A box swap (rules_template.swap_draw) takes its box, both cells and its acceptance from the same
one draw: 20 bits of site, 12 for each cell, the top 20 bits as the acceptance word.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint32, uint64

_GOLDEN = 0x9E3779B97F4A7C15
_JUMP = (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922)


@njit(inline="always")
def rotl(x, k):
    """Rotate the 64-bit word x left by k bits."""
    return (x << uint32(k)) | (x >> uint32(64 - k))


@njit(inline="always")
def next_u64(s0, s1):
    """One xoroshiro128+ step: returns (output, new s0, new s1)."""
    r = s0 + s1
    s1 ^= s0
    n0 = rotl(s0, 55) ^ s1 ^ (s1 << uint32(14))
    n1 = rotl(s1, 36)
    return r, n0, n1


@njit(inline="always")
def uniform_below(s0, s1, n):
    """A draw uniform on 0..n-1 from the top 32 bits of one output: (value, s0, s1)."""
    r, s0, s1 = next_u64(s0, s1)
    return ((r >> uint32(32)) * uint64(n)) >> uint32(32), s0, s1


@njit(inline="always")
def uniform_float64(s0, s1):
    """A float in [0, 1) from the top 53 bits, as numba.cuda.random's float64 draw: (x, s0, s1)."""
    r, s0, s1 = next_u64(s0, s1)
    return (r >> uint32(11)) * (1.0 / 9007199254740992.0), s0, s1


@njit(cache=True)
def _splitmix_seed(seed):
    z = uint64(seed) + uint64(_GOLDEN)
    z = (z ^ (z >> uint32(30))) * uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> uint32(27))) * uint64(0x94D049BB133111EB)
    return z ^ (z >> uint32(31))


@njit(cache=True)
def jump(s0, s1):
    """One jump: (s0, s1) advanced 2**64 steps, chain i's state to chain i + 1's."""
    j0 = uint64(0)
    j1 = uint64(0)
    for word in (uint64(_JUMP[0]), uint64(_JUMP[1])):
        for b in range(64):
            if (word >> uint32(b)) & uint64(1):
                j0 ^= s0
                j1 ^= s1
            _, s0, s1 = next_u64(s0, s1)
    return j0, j1


@njit(cache=True)
def walk(s0, s1, skip, out):
    """out[i] = the state (s0, s1) jumped skip + i times, for every row i of out (uint64[k, 2])."""
    for _ in range(skip):
        s0, s1 = jump(s0, s1)
    for i in range(out.shape[0]):
        if i > 0:
            s0, s1 = jump(s0, s1)
        out[i, 0] = s0
        out[i, 1] = s1


@njit(cache=True)
def _fill_states(states, seed, subsequence_start):
    z = _splitmix_seed(seed)
    walk(z, z, subsequence_start, states)


def init_states(chains: int, seed: int, subsequence_start: int = 0) -> np.ndarray:
    """States uint64[chains, 2] equal to create_xoroshiro128p_states(chains, seed), per thread."""
    states = np.zeros((chains, 2), dtype=np.uint64)
    _fill_states(states, np.uint64(seed % 2**64), subsequence_start)
    return states


def stream(states: np.ndarray, i: int, count: int) -> np.ndarray:
    """The next `count` outputs of chain i (for tests; the chain's state is not advanced)."""
    return _stream(states[i, 0], states[i, 1], count)


@njit(cache=True)
def _stream(s0, s1, count):
    out = np.empty(count, dtype=np.uint64)
    for t in range(count):
        r, s0, s1 = next_u64(s0, s1)
        out[t] = r
    return out
