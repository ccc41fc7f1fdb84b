"""Philox4x32-10, a counter-based generator: draw i of a chain is a function of (key, i) alone.

Glossary:
    key      a chain's 64-bit key: the two 32-bit key words of Philox, k0 = low, k1 = high
    i        a draw's counter: the chain's proposal index (draws of a move) or, for the draws
             that fill a trial's free cells, the proposal index at the trial's start
    f        a free cell's position in its puzzle's list of free cells (init_cells)
    S        splitmix64(seed): a seed's base key

Philox4x32-10 is the block cipher of Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as
easy as 1, 2, 3" (SC11), as Random123 implements it: ten rounds of two 32x32 -> 64-bit multiplies
over a 128-bit counter (c0, c1, c2, c3), the key bumped by the Weyl constants between rounds.
philox4x32_10 gives the four output words of one counter; tests/test_philox.py checks it against
Random123's published known-answer vectors (tests/kat_vectors).

How the Sudoku chains use it (the chains of orders 4 to 6 that the cooperative kernels serve,
cpu_reference.sudoku.rules: COUNTER):

    a chain's RNG state    rng[g, 0] = key = S ^ stream,  rng[g, 1] = proposals made (i)
    proposal i             block b = i >> 1: counter (b mod 2**32, b >> 32, 0, 0) -> x0..x3;
                           the move's 64-bit draw is x0 | x1 << 32 for even i, x2 | x3 << 32
                           for odd i (bit layout as anneal/rng.py's draws)
    fill of free cell f    counter (i mod 2**32, i >> 32, f + 1, 0) -> x0; the digit's index
    at a trial's start     among n candidates is (x0 * n) >> 32
    (i proposals so far)

so draw i of a chain is computable without the i - 1 before it: the lanes of a warp evaluate
proposals i, i + 1, ... of one chain at once, and the CPU computes DRAWS draws together
(fill_draws, into draw_buffer(): the compiler runs the blocks side by side in vector registers)
where one at a time would cost a fast move several times its own work. Every integer is cast
to its width explicitly (the CUDA simulator runs these as NumPy scalars, where mixed
uint64/int64 arithmetic gives float64).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types, uint32, uint64
from numba.core import cgutils
from numba.extending import intrinsic

M0 = 0xD2511F53  # Random123's multipliers
M1 = 0xCD9E8D57
W0 = 0x9E3779B9  # Weyl key increments: golden ratio and sqrt(3) - 1, as 32-bit fractions
W1 = 0xBB67AE85
GOLDEN64 = 0x9E3779B97F4A7C15


@njit(inline="always")
def philox_round(c0, c1, c2, c3, k0, k1):
    """One Philox4x32 round: the counter words after it."""
    p0 = uint64(uint64(uint32(M0)) * uint64(c0))
    p1 = uint64(uint64(uint32(M1)) * uint64(c2))
    hi0 = uint32(p0 >> uint64(32))
    hi1 = uint32(p1 >> uint64(32))
    return (
        uint32(uint32(hi1 ^ c1) ^ k0),
        uint32(p1 & uint64(0xFFFFFFFF)),
        uint32(uint32(hi0 ^ c3) ^ k1),
        uint32(p0 & uint64(0xFFFFFFFF)),
    )


@njit(inline="always")
def philox4x32_10(c0, c1, c2, c3, k0, k1):
    """The four 32-bit output words of Philox4x32-10 for counter (c0..c3) and key (k0, k1)."""
    x0, x1, x2, x3 = uint32(c0), uint32(c1), uint32(c2), uint32(c3)
    a, b = uint32(k0), uint32(k1)
    for _ in range(10):
        x0, x1, x2, x3 = philox_round(x0, x1, x2, x3, a, b)
        a = uint32(a + uint32(W0))
        b = uint32(b + uint32(W1))
    return x0, x1, x2, x3


@njit(inline="always")
def philox_pair(key, b):
    """The two 64-bit move draws of block b (draws 2b and 2b + 1) of the chain keyed `key`."""
    x0, x1, x2, x3 = philox4x32_10(
        uint32(uint64(b) & uint64(0xFFFFFFFF)), uint32(uint64(b) >> uint64(32)), uint32(0),
        uint32(0), uint32(uint64(key) & uint64(0xFFFFFFFF)), uint32(uint64(key) >> uint64(32)),
    )  # fmt: skip
    return (
        uint64(uint64(x0) | uint64(uint64(x1) << uint64(32))),
        uint64(uint64(x2) | uint64(uint64(x3) << uint64(32))),
    )


@njit(inline="always")
def philox_u64(key, i):
    """The 64-bit move draw number i of the chain keyed `key` (module docstring)."""
    even, odd = philox_pair(key, uint64(uint64(i) >> uint64(1)))
    return odd if uint64(i) & uint64(1) else even


@intrinsic
def opaque_u64(typingctx, x):
    """x, where the compiler cannot see that it is x: on a CUDA device an inline PTX move with
    side effects, so a loop-invariant key's round keys are computed at each draw rather than
    hoisted out of the move loop into 18 registers held for the whole loop (a one-thread kernel
    near the register limit would spill them); elsewhere x itself."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        if "nvptx" not in str(builder.module.triple):
            return args[0]
        i64 = ir.IntType(64)
        move = ir.InlineAsm(ir.FunctionType(i64, [i64]), "mov.b64 $0, $1;", "=l,l",
                            side_effect=True)  # fmt: skip
        return builder.call(move, [args[0]])

    return sig, codegen


@njit(inline="always")
def philox_u64_unhoisted(key, i):
    """philox_u64 with the key passed through opaque_u64 (the one-thread kernels' draws)."""
    return philox_u64(opaque_u64(uint64(key)), i)


DRAWS = 64  # draws the CPU computes at once (32 blocks): a power of two


@intrinsic
def draw_buffer(typingctx):
    """uint64[DRAWS] on the calling function's stack (no allocation, no reference counting)."""
    array = types.Array(types.uint64, 1, "C")

    def codegen(context, builder, signature, args):
        data = cgutils.alloca_once(builder, context.get_data_type(types.uint64), size=DRAWS)
        out = context.make_array(array)(context, builder)
        intp = lambda v: context.get_constant(types.intp, v)  # noqa: E731
        context.populate_array(
            out, data=data, shape=cgutils.pack_array(builder, [intp(DRAWS)]),
            strides=cgutils.pack_array(builder, [intp(8)]), itemsize=intp(8), meminfo=None,
        )  # fmt: skip
        return out._getvalue()

    return array(), codegen


@njit
def fill_draws(key, first, buf):
    """buf[t] = draw first + t for t < DRAWS (first a multiple of DRAWS).

    A call of its own, not inlined: inlined, its vector code shared the move loop's registers
    and slowed every proposal (benchmarks/results/throughput/generator.md)."""
    b = uint64(uint64(first) >> uint64(1))
    for t in range(DRAWS // 2):
        even, odd = philox_pair(key, uint64(b + uint64(t)))
        buf[2 * t] = even
        buf[2 * t + 1] = odd


@njit(inline="always")
def philox_fill_below(key, i, f, n):
    """A draw uniform on 0..n-1 for free cell f of the trial that starts after i proposals."""
    x0, _, _, _ = philox4x32_10(
        uint32(uint64(i) & uint64(0xFFFFFFFF)), uint32(uint64(i) >> uint64(32)),
        uint32(uint32(f) + uint32(1)), uint32(0),
        uint32(uint64(key) & uint64(0xFFFFFFFF)), uint32(uint64(key) >> uint64(32)),
    )  # fmt: skip
    return uint32(uint64(uint64(x0) * uint64(uint32(n))) >> uint64(32))


def seed_key(seed: int) -> int:
    """S: splitmix64 of the seed (mod 2**64), the base key of a run's chains."""
    z = (seed + GOLDEN64) % 2**64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
    return z ^ (z >> 31)


def counter_states(seed: int, first: int, count: int) -> np.ndarray:
    """uint64[count, 2]: fresh RNG states of streams first .. first + count - 1 of a seed: the
    key S ^ stream and 0 proposals made."""
    out = np.zeros((count, 2), dtype=np.uint64)
    streams = np.arange(first, first + count, dtype=np.uint64)
    out[:, 0] = np.uint64(seed_key(seed % 2**64)) ^ streams
    return out


def philox_block(counter, key) -> tuple[int, int, int, int]:
    """Philox4x32-10 of a counter (4 words) and key (2 words), as Python ints (for tests)."""
    words = philox4x32_10(*(np.uint32(c) for c in counter), *(np.uint32(k) for k in key))
    return tuple(int(w) for w in words)


class CounterCursor:
    """States of streams first..first+count-1 of a seed (anneal/stream_jump.py's StreamCursor's
    interface: a counter-based stream needs no walk, so any range costs the same)."""

    def __init__(self, seed: int):
        self.seed = seed % 2**64

    def states(self, first: int, count: int) -> np.ndarray:
        """uint64[count, 2]: the fresh states of streams first, first + 1, ..."""
        return counter_states(self.seed, first, count)
