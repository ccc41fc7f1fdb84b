"""Chain g's xoroshiro128+ state reached by walking and by jump-ahead is the same state.

anneal/stream_jump.py's StreamCursor walks to a chain a little ahead of its last one and jumps
ahead to one behind or far ahead; make_batch seeds a batch from any first chain through it, so
that a spare chain (stream past 2**40) replays without patching the batch.
"""

from __future__ import annotations

import numpy as np
import pytest

from cpu_reference.anneal.rng import init_states
from cpu_reference.anneal.stream_jump import WALK_AT_MOST, JumpCursor, StreamCursor, jump_ahead
from cpu_reference.sudoku import rules
from cpu_reference.sudoku.batch import make_batch
from cpu_reference.sudoku.schedules import by_name

SEED = 2024
FAR = 2**40 + 3  # a spare chain's stream (gpu_anneal.sudoku_solver.SPARE_STRIDE)


def origin(seed: int = SEED) -> np.ndarray:
    return init_states(1, seed)[0]


def test_walking_and_jumping_agree_with_init_states_on_the_first_chains():
    """Streams 0..5: init_states (walked), a cursor that walks, one that only jumps, jump_ahead."""
    want = init_states(6, SEED)
    jump = JumpCursor(SEED)
    assert np.array_equal(StreamCursor(SEED).states(0, 6), want)
    assert np.array_equal(np.stack([jump.state_of(g) for g in range(6)]), want)
    assert np.array_equal(np.stack([jump_ahead(origin(), g) for g in range(6)]), want)
    assert len({tuple(row) for row in want}) == 6  # distinct streams: the check can fail


def test_a_cursor_behind_its_target_or_far_from_it_jumps_to_the_walked_state():
    """Behind, near and far, in an order that moves the cursor back and forth: every answer is
    the state jump_ahead gives from chain 0, and a near one is walked (no jump-ahead needed)."""
    cursor = StreamCursor(SEED)
    for first in (3, 70_000, 5, FAR, 70_000, FAR + 2, 0, FAR):
        got = cursor.states(first, 3)
        want = np.stack([jump_ahead(origin(), first + i) for i in range(3)])
        assert np.array_equal(got, want), first
        assert cursor.chain == first + 2


def test_70_000_walked_equals_70_000_jumped():
    """A target past WALK_AT_MOST: the cursor's jump-ahead equals a walk of every jump (a cursor
    that may walk that far), and JumpCursor's state."""
    assert 70_000 > WALK_AT_MOST
    walked = StreamCursor(SEED, walk_at_most=2**20).states(70_000, 2)
    assert np.array_equal(StreamCursor(SEED).states(70_000, 2), walked)
    assert np.array_equal(JumpCursor(SEED).state_of(70_001), walked[1])
    assert np.array_equal(init_states(1, SEED, subsequence_start=70_000)[0], walked[0])


def test_a_far_stream_is_its_neighbour_jumped_once():
    """FAR + 1 reached by jump-ahead is FAR's state walked one jump (init_states' own jump)."""
    far = StreamCursor(SEED).states(FAR, 1)[0]
    assert np.array_equal(JumpCursor(SEED).state_of(FAR), far)
    cursor = StreamCursor(SEED, walk_at_most=0)
    cursor.states(FAR, 1)
    cursor.walk_at_most = WALK_AT_MOST
    assert np.array_equal(cursor.states(FAR + 1, 1)[0], JumpCursor(SEED).state_of(FAR + 1))
    assert not np.array_equal(far, origin())


@pytest.mark.parametrize(
    "order, move", [(3, rules.MOVE_SIRDEY), (2, rules.MOVE_SIRDEY), (3, rules.MOVE_BOX_SWAP)]
)
@pytest.mark.parametrize("first", [0, 4, 70_000, FAR])
def test_make_batch_seeds_xoroshiro_chains_from_any_first_chain(order, move, first):
    """make_batch(first_chain=first) for a xoroshiro128+ move: chain g holds stream first + g,
    as JumpCursor jumps to it."""
    assert not rules.counter_based(order, move)
    cpp, puzzles = 3, np.zeros((2, order**4), np.uint8)
    sched = by_name("sirdey-course", order)
    batch = make_batch(puzzles, order, sched, cpp, SEED, first_chain=first, move=move)
    jump = JumpCursor(SEED)
    want = np.stack([jump.state_of(first + g) for g in range(batch.chains)])
    assert np.array_equal(batch.rng[:, :2], want)
