"""Philox4x32-10 (cpu_reference.anneal.philox): Random123's known answers, the draws built on it."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit, uint32, uint64

from cpu_reference.anneal.philox import (
    DRAWS,
    counter_states,
    draw_buffer,
    fill_draws,
    philox_block,
    philox_fill_below,
    philox_u64,
    philox_u64_unhoisted,
    seed_key,
)

# Random123 tests/kat_vectors, the three "philox4x32 10" lines: counter (4 words), key (2 words),
# expected output (4 words)
KAT = [
    ((0x00000000,) * 4, (0x00000000,) * 2, (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    (
        (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
        (0xA4093822, 0x299F31D0),
        (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1),
    ),
]


@pytest.mark.parametrize(("counter", "key", "expected"), KAT)
def test_philox4x32_10_gives_random123s_known_answers(counter, key, expected):
    """Each published vector, word for word."""
    assert philox_block(counter, key) == expected


def test_a_wrong_round_count_would_fail_the_known_answers():
    """The check can fail: one round more or less changes every vector's output."""
    from cpu_reference.anneal.philox import W0, W1, philox_round

    def rounds(counter, key, r):
        x = tuple(np.uint32(c) for c in counter)
        a, b = key
        for _ in range(r):
            x = philox_round(*x, np.uint32(a), np.uint32(b))
            a, b = (a + W0) % 2**32, (b + W1) % 2**32
        return tuple(int(w) for w in x)

    for counter, key, expected in KAT:
        assert rounds(counter, key, 10) == expected
        assert rounds(counter, key, 9) != expected and rounds(counter, key, 11) != expected


def test_move_draws_are_the_halves_of_block_i_over_2():
    """Draws 2b and 2b + 1 of key K: x0 | x1 << 32 and x2 | x3 << 32 of counter (b low, b high,
    0, 0), key (K low, K high)."""
    key, b = 0x0123456789ABCDEF, (7 << 32) + 5
    x = philox_block((5, 7, 0, 0), (0x89ABCDEF, 0x01234567))
    assert int(philox_u64(np.uint64(key), np.uint64(2 * b))) == x[0] | x[1] << 32
    assert int(philox_u64(np.uint64(key), np.uint64(2 * b + 1))) == x[2] | x[3] << 32


@njit(cache=True)
def _buffered(key, first, count):
    """Draws first .. first + count - 1 through the CPU's stack buffer (first a multiple of
    DRAWS), as the CPU runner's plateau takes them."""
    buf = draw_buffer()
    out = np.empty(count, np.uint64)
    for t in range(count):
        i = uint64(first + t)
        if i % uint64(DRAWS) == uint64(0):
            fill_draws(key, i, buf)
        out[t] = buf[i % uint64(DRAWS)]
    return out


def test_the_cpus_batched_draws_are_the_draws_one_at_a_time():
    """fill_draws into draw_buffer() (DRAWS draws a fill) gives draws 64..223 as philox_u64
    gives them one by one."""
    key = np.uint64(seed_key(3) ^ 11)
    assert np.array_equal(_buffered(key, 64, 160), _draws(key, 64, 160))


def test_fill_draw_uses_its_own_counter_word_and_stays_below_n():
    """Free cell f of a trial starting at proposal i: word x0 of counter (i, 0, f + 1, 0),
    scaled to 0..n-1; it differs from the move draw of the same i."""
    key, i = np.uint64(99), np.uint64(12)
    for f, n in ((0, 25), (3, 7), (600, 36)):
        x0 = philox_block((12, 0, f + 1, 0), (99, 0))[0]
        got = int(philox_fill_below(key, i, np.uint32(f), np.uint32(n)))
        assert got == (x0 * n) >> 32 and 0 <= got < n
    assert philox_block((12, 0, 1, 0), (99, 0)) != philox_block((12, 0, 0, 0), (99, 0))


@njit(cache=True)
def _draws(key, first, count):
    out = np.empty(count, np.uint64)
    for t in range(count):
        out[t] = philox_u64(key, uint64(first + t))
    return out


@njit(cache=True)
def _low_bits_histogram(key, count, bins):
    hist = np.zeros(bins, np.int64)
    for t in range(count):
        r = philox_u64(key, uint64(t))
        hist[uint32(uint64(uint32(r) & uint32(0xFFFFF)) * uint64(bins) >> uint64(20))] += 1
    return hist


def test_draw_i_does_not_depend_on_the_draws_before_it():
    """Draws 1000..1099 computed alone equal those of a run from 0 (counter-based)."""
    key = np.uint64(seed_key(5) ^ 3)
    assert np.array_equal(_draws(key, 1000, 100), _draws(key, 0, 1100)[1000:])
    assert len(set(_draws(key, 0, 10_000).tolist())) == 10_000


def test_site_bits_are_uniform():
    """The 20 site bits of 200,000 draws over 25 bins: chi-square below the 0.999 quantile of
    24 degrees of freedom (51.2), fixed key."""
    hist = _low_bits_histogram(np.uint64(seed_key(1)), 200_000, 25)
    expected = hist.sum() / 25
    assert ((hist - expected) ** 2 / expected).sum() < 51.2


def test_counter_states_key_each_stream_apart():
    """Stream s of seed x: key splitmix64(x) ^ s, no proposal made; a batch cut into pieces
    keys its chains as the whole batch does."""
    whole = counter_states(7, 0, 10)
    assert np.array_equal(whole[4:7], counter_states(7, 4, 3))
    assert np.all(whole[:, 1] == 0)
    assert len(set(whole[:, 0].tolist())) == 10
    assert int(whole[0, 0]) == seed_key(7) != seed_key(8)


@njit(cache=True)
def _unhoisted(key, count):
    out = np.empty(count, np.uint64)
    for t in range(count):
        out[t] = philox_u64_unhoisted(key, uint64(t))
    return out


def test_the_kernels_unhoisted_draws_are_the_same_draws():
    """philox_u64_unhoisted (the one-thread kernels' draw: the key through an opaque move on a
    device, itself on the CPU) gives philox_u64's draws."""
    key = np.uint64(seed_key(4))
    assert np.array_equal(_unhoisted(key, 50), _draws(key, 0, 50))
