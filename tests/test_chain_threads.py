"""cpu_reference.anneal.threads: a batch's chains cut into ranges run on threads, every chain
once, and a Ctrl-C held until every range has ended."""

from __future__ import annotations

import _thread
import gc
import os
import threading
import time

import numba
import pytest
from forked import in_forked_child

from cpu_reference.anneal import threads


@pytest.fixture
def python_sigint():
    """Python's own SIGINT handler for the test (a process started in a shell's background
    inherits SIGINT ignored, and Python then installs none)."""
    import signal

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


@pytest.mark.parametrize(("count", "workers"), [(1, 4), (7, 2), (64, 2), (1000, 3), (5, 16)])
def test_pieces_cover_every_chain_once_in_order(count, workers):
    parts = threads.pieces(count, workers)
    assert parts[0][0] == 0 and parts[-1][1] == count
    assert all(lo < hi for lo, hi in parts)
    assert all(a[1] == b[0] for a, b in zip(parts, parts[1:], strict=False))
    assert len(parts) <= workers * threads.PIECES_A_THREAD


def test_every_chain_runs_once_on_the_callers_thread_count():
    seen, names = [], set()

    def run(lo, hi, out):
        names.add(threading.current_thread().name)
        out.extend(range(lo, hi))

    before = numba.get_num_threads()
    try:
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        threads.over_chains(run, 50, (seen,))
        assert sorted(seen) == list(range(50))
        numba.set_num_threads(1)
        names.clear()
        threads.over_chains(run, 3, (seen,))
        assert names == {threading.current_thread().name}  # one thread: the caller's own
    finally:
        numba.set_num_threads(before)


def _every_range_ends_before_the_interrupt(run, done: list) -> None:
    """over_chains(run, 40) on two threads raises KeyboardInterrupt only after every range
    has appended itself to `done`. The garbage collector is off meanwhile: an interrupt that
    lands in a gc callback (hypothesis installs one) is printed and dropped there, not raised."""
    before = numba.get_num_threads()
    collecting = gc.isenabled()
    gc.disable()
    try:
        numba.set_num_threads(2)
        with pytest.raises(KeyboardInterrupt):
            threads.over_chains(run, 40, ())
    finally:
        numba.set_num_threads(before)
        if collecting:
            gc.enable()
    assert sorted(done) == threads.pieces(40, 2)


def test_ctrl_c_waits_for_every_range_then_is_raised(python_sigint):
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one numba thread: the caller runs the chains itself")
    done = []

    def run(lo, hi):
        if lo == 0:
            _thread.interrupt_main()  # as a Ctrl-C lands while the ranges run
        time.sleep(0.05)
        done.append((lo, hi))

    _every_range_ends_before_the_interrupt(run, done)


class _SlowToHandOut:
    """A pool whose second submit has a Ctrl-C land in the caller while pieces are still being
    handed out (the main thread runs the handler at its next step)."""

    def __init__(self, pool):
        self.pool, self.submitted = pool, 0

    def submit(self, *args):
        self.submitted += 1
        if self.submitted == 2:
            _thread.interrupt_main()
        return self.pool.submit(*args)


def test_ctrl_c_while_the_pieces_are_handed_out_waits_for_every_range(monkeypatch, python_sigint):
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one numba thread: the caller runs the chains itself")
    done = []

    def run(lo, hi):
        time.sleep(0.05)
        done.append((lo, hi))

    real = threads.thread_pool
    monkeypatch.setattr(threads, "thread_pool", lambda use, n: _SlowToHandOut(real(use, n)))
    _every_range_ends_before_the_interrupt(run, done)


def test_a_press_held_goes_to_the_handler_that_was_in_place():
    import signal

    calls = []
    before = signal.signal(signal.SIGINT, lambda signum, frame: calls.append(signum))
    try:
        with threads.sigint_held() as held:
            _thread.interrupt_main()
            time.sleep(0.01)  # the handler runs in the block: the press is held
            assert calls == [] and len(held.frames) == 1
        assert calls == []
        held.deliver()
        assert calls == [signal.SIGINT]
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        with threads.sigint_held() as held:
            _thread.interrupt_main()
            time.sleep(0.01)
        held.deliver()  # an ignored SIGINT stays ignored
        assert calls == [signal.SIGINT]
    finally:
        signal.signal(signal.SIGINT, before)


def test_a_failing_range_is_raised_after_the_others_end():
    done = []

    def run(lo, hi):
        if lo == 0:
            raise ValueError("range 0 broke")
        time.sleep(0.02)
        done.append(lo)

    before = numba.get_num_threads()
    try:
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        with pytest.raises(ValueError, match="range 0 broke"):
            threads.over_chains(run, 12, ())
    finally:
        numba.set_num_threads(before)
    if numba.get_num_threads() > 1:
        assert len(done) == len(threads.pieces(12, 2)) - 1


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_runs_chains_on_threads_of_its_own():
    """A pool made before a fork has no threads in the child: the child makes its own."""

    def run(lo, hi, out):
        out.extend(range(lo, hi))

    def child_runs_every_chain() -> bool:
        got = []
        threads.over_chains(run, 8, (got,))
        return sorted(got) == list(range(8))

    before = numba.get_num_threads()
    try:
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        assert child_runs_every_chain()  # the parent's pool exists now
        assert in_forked_child(child_runs_every_chain) is True
    finally:
        numba.set_num_threads(before)
