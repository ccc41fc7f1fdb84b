"""Device functions that start a chain afresh on the card, shared by the kernels that do it: the
pool's refill (gpu_anneal.kernels.pool's fresh_chains, sudoku_coop's fresh_counter_chains) and
the persistent kernel's tasks (persistent_template's fresh_chain).

Glossary: g chain row, s0 s1 an RNG state (two uint64 words), offset how far a chain's stream
lies past a puzzle's first stream (chain index i, plus m x SPARE_STRIDE for a spare chain of
round m), b a bit of the offset.

clear_chain     the counters and best grid cpu_reference.sudoku.batch.load_puzzle writes: every
                counter 0, the plateau -1 (none begun), the best cost INT64_MAX, the best grid 0
jumped_state    xoroshiro128+: the state `offset` jumps past (s0, s1), one product by the
                jump matrix power M_b (powers[b], cpu_reference.anneal.stream_jump) for each set
                bit b of the offset: the state is a vector of 128 bits, a product the XOR of the
                rows of M_b its set bits select

                    powers[b, j]       the row of bit j of s0 (j = 0..63)
                    powers[b, 64 + j]  the row of bit j of s1

counter_key     Philox: the key of the stream `offset` past a puzzle's first stream, s0 the
                seed's base key and s1 the first stream (anneal/philox.py's counter_states:
                base ^ stream, with no proposal made)
"""

from numba import cuda, uint32, uint64

from cpu_reference.sudoku import rules

C_PLATEAU, C_BEST_VALS_COST = rules.C_PLATEAU, rules.C_BEST_VALS_COST
INT64_MAX = 9223372036854775807


@cuda.jit(device=True)
def clear_chain(g, ctr, best_vals):
    """Chain row g's counters and best grid as load_puzzle writes them (module docstring)."""
    for j in range(ctr.shape[1]):
        ctr[g, j] = 0
    ctr[g, C_PLATEAU] = -1
    ctr[g, C_BEST_VALS_COST] = INT64_MAX
    for c in range(best_vals.shape[1]):
        best_vals[g, c] = 0


@cuda.jit(device=True)
def jumped_state(s0, s1, offset, powers):
    """(s0, s1) jumped `offset` (uint64) times ahead in xoroshiro128+'s stream: the products by
    powers[b] for the set bits b of the offset (bits past powers' rows must be clear)."""
    for b in range(powers.shape[0]):
        if (offset >> uint64(b)) & uint64(1):
            r0 = uint64(0)
            r1 = uint64(0)
            for j in range(64):
                if (s0 >> uint32(j)) & uint64(1):
                    r0 ^= powers[b, j, 0]
                    r1 ^= powers[b, j, 1]
                if (s1 >> uint32(j)) & uint64(1):
                    r0 ^= powers[b, 64 + j, 0]
                    r1 ^= powers[b, 64 + j, 1]
            s0 = r0
            s1 = r1
    return s0, s1


@cuda.jit(device=True)
def counter_key(base, first, offset):
    """The Philox key of stream first + offset (uint64 words; the seed's base key `base`)."""
    return base ^ uint64(first + offset)
