"""Chains spread over the calling thread's numba threads, by Python threads.

A compiled range function `run(lo, hi, *args)` (numba `nogil=True`) advances chains lo..hi-1;
`over_chains` cuts 0..count-1 into contiguous pieces and runs them on a pool of as many threads
as numba.get_num_threads() says for the caller (`--threads`, numba.set_num_threads), the caller
waiting. One range function compiles in a fraction of the time a numba parallel loop around the
same body takes, and that compile is paid once per rules specialisation. The pools themselves
(thread_pool) serve gpu_anneal.host_cores's row chunks too, each use with pools of its own.

A Ctrl-C in the caller while the pieces run is held until every piece has finished, then
raised: the chains' arrays are never read half-written (as with a numba parallel loop, whose
interrupt also lands when the loop returns).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

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


def over_chains(run: Callable, count: int, args: tuple) -> None:
    """run(lo, hi, *args) over chains 0..count-1 on the caller's numba thread count; returns when
    every chain is done (a Ctrl-C meanwhile is raised then)."""
    threads = min(int(numba.get_num_threads()), count)
    if threads <= 1:
        run(0, count, *args)
        return
    pool = thread_pool("chains", threads)
    futures = [pool.submit(run, lo, hi, *args) for lo, hi in pieces(count, threads)]
    interrupted, failure = False, None
    for future in futures:
        while True:
            try:
                future.result()
            except KeyboardInterrupt:
                interrupted = True
                continue
            except Exception as exc:  # noqa: BLE001 - raised once every piece has ended
                failure = failure or exc
            break
    if failure is not None:
        raise failure
    if interrupted:
        raise KeyboardInterrupt
