"""Chains spread over the calling thread's numba threads, by Python threads.

A compiled range function `run(lo, hi, *args)` (numba `nogil=True`) advances chains lo..hi-1;
`over_chains` cuts 0..count-1 into contiguous pieces and runs them on a pool of as many threads
as numba.get_num_threads() says for the caller (`--threads`, numba.set_num_threads), the caller
waiting. One range function compiles in a fraction of the time a numba parallel loop around the
same body takes, and that compile is paid once per rules specialisation. The pools themselves
(thread_pool) serve gpu_anneal.host_cores's row chunks too, each use with pools of its own.

A Ctrl-C in the caller while the pieces are handed out or run is held until every piece has
finished, then handed to the SIGINT handler that was in place (Python's own raises
KeyboardInterrupt): the chains' arrays are never read half-written (as with a numba parallel loop,
whose interrupt also lands when the loop returns).
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numba

PIECES_A_THREAD = 4  # pieces a thread: chains that finish early leave less of a thread idle

_pools: dict[tuple[str, int], ThreadPoolExecutor] = {}
_pools_lock = threading.Lock()


def _forget_pools() -> None:
    """In a forked child: the parent's pools have no threads there; new ones are made."""
    global _pools_lock
    _pools.clear()
    _pools_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pools)


def thread_pool(use: str, threads: int) -> ThreadPoolExecutor:
    """The process's pool of `threads` worker threads for one use ("chains" here, "host" for
    gpu_anneal.host_cores): made once, kept for the process, made again in a forked child.
    Uses keep pools of their own, so that no work waits behind another use's."""
    with _pools_lock:
        pool = _pools.get((use, threads))
        if pool is None:
            pool = ThreadPoolExecutor(threads, thread_name_prefix=f"gpu-anneal-{use}")
            _pools[(use, threads)] = pool
        return pool


def pieces(count: int, threads: int) -> list[tuple[int, int]]:
    """Contiguous (lo, hi) ranges covering 0..count-1 in order, at most PIECES_A_THREAD a
    thread, none empty."""
    parts = min(count, max(1, threads) * PIECES_A_THREAD)
    if parts <= 0:
        return []
    bounds = [count * k // parts for k in range(parts + 1)]
    return list(zip(bounds[:-1], bounds[1:], strict=True))


class HeldSigint:
    """What sigint_held saw: the handler in place before (previous) and the frames of the
    presses recorded (frames)."""

    def __init__(self, previous) -> None:
        self.previous = previous
        self.frames: list = []

    def deliver(self) -> None:
        """Hand a recorded press to the handler that was in place: a Python handler is called;
        the default action (or a handler set outside Python) raises KeyboardInterrupt; an
        ignored SIGINT stays ignored. Nothing without a press."""
        if not self.frames:
            return
        if callable(self.previous):
            self.previous(signal.SIGINT, self.frames[-1])
        elif self.previous != signal.SIG_IGN:
            raise KeyboardInterrupt


@contextmanager
def sigint_held() -> Iterator[HeldSigint]:
    """Within the block a SIGINT to the main thread is recorded, not acted on; the handler in
    place before is put back on leaving. The caller hands a press on (HeldSigint.deliver) once
    its work is safe to leave. In other threads, which never get SIGINT, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield HeldSigint(None)
        return
    held = HeldSigint(signal.getsignal(signal.SIGINT))
    signal.signal(signal.SIGINT, lambda signum, frame: held.frames.append(frame))
    try:
        yield held
    finally:
        signal.signal(signal.SIGINT, held.previous if held.previous is not None else signal.SIG_DFL)


def over_chains(run: Callable, count: int, args: tuple) -> None:
    """run(lo, hi, *args) over chains 0..count-1 on the caller's numba thread count; returns when
    every chain is done (a Ctrl-C meanwhile, even while the pieces are handed out, is handed on
    then)."""
    threads = min(int(numba.get_num_threads()), count)
    if threads <= 1:
        run(0, count, *args)
        return
    pool = thread_pool("chains", threads)
    failure = None
    with sigint_held() as held:
        futures = [pool.submit(run, lo, hi, *args) for lo, hi in pieces(count, threads)]
        for future in futures:
            try:
                future.result()
            except Exception as exc:  # noqa: BLE001 - raised once every piece has ended
                failure = failure or exc
    if failure is not None:
        raise failure
    held.deliver()
