"""bench_tts_sweep's --lewis instances: bench_frontier's own instances of the seed named, the
file's puzzles otherwise, and a malformed spec refused in one line."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pytest

from benchmarks.bench_tts_sweep import lewis_instances, training_puzzles
from benchmarks.frontier_instances import kept_count, make_instances

DATA = Path(__file__).parent / "data"


def args(**given) -> argparse.Namespace:
    """The sweep's flags that choose its puzzles, with these values."""
    base = {"lewis": None, "file": None, "skip": 0, "limit": 30}
    return argparse.Namespace(**{**base, **given})


def test_lewis_instances_are_bench_frontiers_of_that_seed():
    """The same cells as bench_frontier's make_instances for that order, fill and seed; another
    seed gives other cells; each keeps the fill's count of givens of its own full grid."""
    made = lewis_instances("4:45:3:5")
    same = make_instances([4], [45], 3, 5)
    other = make_instances([4], [45], 3, 6)
    assert [p.name for p in made] == [p.name for p in same]
    for p, q, r in zip(made, same, other, strict=True):
        assert np.array_equal(p.cells, q.cells)
        assert not np.array_equal(p.cells, r.cells)
        given = p.cells != 0
        assert int(given.sum()) == kept_count(4, 45)
        assert np.array_equal(p.cells[given], np.ravel(p.grid)[given])


def test_training_puzzles_take_skip_and_limit_of_either_source():
    """--skip and --limit cut the --lewis instances as they cut a file's puzzles."""
    made = training_puzzles(args(lewis="4:45:4:5", skip=1, limit=2))
    assert [p.k for p in made] == [1, 2]
    from_file = training_puzzles(args(file=DATA / "top95_head.txt", skip=1, limit=2))
    lines = (DATA / "top95_head.txt").read_text().split()
    assert [p.cells.tolist() for p in from_file] == [
        [0 if ch == "." else int(ch) for ch in line] for line in lines[1:3]
    ]


@pytest.mark.parametrize("spec", ["4:45:3", "4:45:x:5", "9:45:3:5", "4:45:0:5"])
def test_malformed_lewis_spec_is_one_line(spec):
    """Too few fields, a non-number, an order above 8 or no instance: a one-line exit naming
    the spec."""
    with pytest.raises(SystemExit) as stop:
        lewis_instances(spec)
    message = str(stop.value)
    assert spec in message and "\n" not in message
