"""The CUDA simulator's block scheduler, waiting on a condition instead of polling its threads,
and its swap of the `cuda` module made safe for threads that call the same module at once.

Python imports this module at start-up when tests/sim_site is on PYTHONPATH (tests/simulate.py's
simulator_env puts it there). Under NUMBA_ENABLE_CUDASIM=1 it replaces numba's simulator
BlockManager, which runs each CUDA thread of a block as a Python thread and releases a
`syncthreads` barrier by polling every thread from the main thread in a loop. The poll competes
for the interpreter lock with the threads it waits for. Here a barrier is a condition variable:

    thread reaches syncthreads ---> waiting += 1
        waiting == live threads --> generation += 1, waiting = 0, wake all
        otherwise ----------------> sleep until the generation changes
    thread returns ---------------> live -= 1 (and release the barrier if the rest all wait)
    thread raises ----------------> abort: every waiting thread raises, the launch re-raises

The semantics are the simulator's: a barrier counts the block's live threads (a thread that has
returned no longer takes part), and the first thread's exception is raised from the launch with
its traceback. The kernels' code runs unchanged; only who waits for whom, and how, differs.

A device function call puts the simulator's fake `cuda` module in its module's globals for the
call and restores the real one after. numba's own simulator (numba without numba-cuda: a
`[dev]` install) does that per call with no count: when two threads are inside functions of one
module, the first to return puts the real module back under the other, whose next `cuda.atomic`
fails. Here the swap is counted per module: the first call in swaps, the last call out restores.
"""

from __future__ import annotations

import os

if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
    import threading

    import numpy as np
    from numba.cuda.simulator import kernel as simulator_kernel

    class WaitingBlockThread(simulator_kernel.BlockThread):
        """A simulated CUDA thread whose barrier is its block's condition."""

        def run(self):
            try:
                super().run()
            finally:
                self._manager.thread_returned(self)

        def syncthreads(self):
            self._manager.barrier()

    class WaitingBlockManager(simulator_kernel.BlockManager):
        """Runs one block's threads; its barrier wakes them when the last live one arrives."""

        def barrier(self):
            """Wait until every live thread of the block has reached this barrier."""
            with self._cond:
                if self._abort:
                    raise RuntimeError("abort flag set on syncthreads call")
                generation = self._generation
                self._waiting += 1
                if self._waiting == self._live:
                    self._release()
                while generation == self._generation and not self._abort:
                    self._cond.wait()
                if self._abort:
                    raise RuntimeError("abort flag set on syncthreads clear")

        def _release(self):
            self._waiting = 0
            self._generation += 1
            self._cond.notify_all()

        def thread_returned(self, thread):
            """Count a thread out of the block's barriers; an exception aborts the block."""
            with self._cond:
                self._live -= 1
                if thread.exception:
                    self._abort = True
                    self._failed.append(thread)
                    self._cond.notify_all()
                elif self._live and self._waiting == self._live:
                    self._release()
                elif not self._live:
                    self._cond.notify_all()

        def run(self, grid_point, *args):
            """Run the block at grid_point to its end; re-raise its first thread's exception."""
            self._cond = threading.Condition()
            self._abort = False
            self._failed = []
            self._generation = 0
            self._waiting = 0
            points = list(np.ndindex(*self._block_dim))
            self._live = len(points)

            def target():
                self._f(*args)

            threads = [
                WaitingBlockThread(target, self, grid_point, point, self._debug) for point in points
            ]
            for thread in threads:
                thread.start()
            with self._cond:
                while self._live and not self._failed:
                    self._cond.wait()
            if self._failed:  # every thread that raised is there (thread_returned)
                error, traceback = self._failed[0].exception
                raise error.with_traceback(traceback)
            for thread in threads:
                thread.join()

    simulator_kernel.BlockManager = WaitingBlockManager

    from contextlib import contextmanager

    _swap_lock = threading.Lock()
    _swaps: dict[int, list] = {}  # id(module globals) -> [calls inside, the names swapped]

    @contextmanager
    def counted_swap(fn, fake_cuda_module):
        """fn's module sees fake_cuda_module for `cuda` while any call of the module runs."""
        from numba import cuda

        env = fn.__globals__
        with _swap_lock:
            entry = _swaps.setdefault(id(env), [0, {}])
            if entry[0] == 0:
                entry[1] = {name: value for name, value in env.items() if value is cuda}
                env.update(dict.fromkeys(entry[1], fake_cuda_module))
            entry[0] += 1
        try:
            yield
        finally:
            with _swap_lock:
                entry[0] -= 1
                if entry[0] == 0:
                    env.update(entry[1])

    simulator_kernel.swapped_cuda_module = counted_swap
