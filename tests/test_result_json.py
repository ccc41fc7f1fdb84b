"""Result.to_json writes exactly what dumps(to_dict()) writes, whatever mix of Python and NumPy
values a result holds (its fast path reads fields straight into a dict)."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_anneal.results import Counts, Params, Result, Timing, dumps

FUZZ = dict(derandomize=True, database=None, deadline=None, max_examples=300)

floats = st.floats(0, 1e6, allow_nan=False, allow_infinity=False)
ints = st.integers(0, 2**40)


def maybe_numpy(values, kinds):
    """A value of `values`, None, or the same value as a NumPy scalar of one of `kinds`."""
    plain = st.one_of(st.none(), values)
    return st.one_of(plain, st.tuples(values, st.sampled_from(kinds)).map(lambda t: t[1](t[0])))


counts = st.builds(
    Counts, trials=maybe_numpy(ints, [np.int64]), proposals=maybe_numpy(ints, [np.int64]),
    accepted=st.one_of(st.none(), ints), solving_chain=maybe_numpy(ints, [np.uint64]),
)  # fmt: skip
params = st.builds(
    Params, seed=st.one_of(st.none(), ints), t0=maybe_numpy(floats, [np.float64]),
    time_limit=st.one_of(st.none(), floats), propagate=maybe_numpy(st.booleans(), [np.bool_]),
    schedule=st.one_of(st.none(), st.text(max_size=20)),
)  # fmt: skip
timing = st.builds(Timing, compile=floats, search=maybe_numpy(floats, [np.float64]), verify=floats)
rows = st.one_of(
    st.none(),
    st.lists(st.lists(st.integers(1, 9), min_size=2, max_size=4), min_size=1, max_size=4),
    st.integers(1, 9).map(lambda d: np.full((3, 3), d, np.uint8).tolist()),
    st.integers(1, 9).map(lambda d: [list(np.full(3, d, np.uint8))]),
)


@settings(**FUZZ)
@given(counts, params, timing, rows, maybe_numpy(st.integers(0, 99), [np.int64]))
def test_to_json_equals_the_dataclass_walk(counts, params, timing, rows, cost):
    result = Result(kind="sudoku", method="anneal", backend="cpu", index=3, source="x")
    result.counts, result.params, result.timing = counts, params, timing
    result.solution_rows, result.cost = rows, cost
    result.state = np.zeros(4)  # not part of the record
    text = result.to_json()
    assert text == dumps(result.to_dict())
    assert json.loads(text)["counts"] == result.to_dict()["counts"]
