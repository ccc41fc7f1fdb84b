"""The gpu-anneal command line with the CUDA runner's slices timed by CUDA events.

    BENCH_KERNEL_EVENTS=FILE python -m benchmarks.kernel_events solve PUZZLES --backend cuda ...

runs `gpu-anneal` exactly as `python -m gpu_anneal` does (the same entry point and arguments),
with one addition: each slice the CUDA runner starts (`CudaRunner.run`) records its start and end
events into a pair of its own instead of the runner's one reused pair, so that every slice's
device seconds can be read after the run without any wait during it. At exit FILE receives one
JSON object:

    slices            slices started
    timed             slices whose event pair gave a time (the others: `untimed`)
    kernel_seconds    sum of the timed slices' device seconds (the annealing kernel alone: the
                      pool's status, gather and scatter kernels fall outside the pairs)
    first_slice_at    time.time() when the first slice was started (None: no slice ran)
    last_status_at    time.time() when the last status read returned
    runners           one {"kernel", "puzzles", "chains_per_puzzle"} per runner made
    error             why the runner could not be instrumented, or null

kernel_seconds / (last_status_at - first_slice_at) is the kernel-busy fraction of the solve after
start-up. Nothing changes where the runner's attributes differ from those expected: the command
runs as it is and `error` says what was missing. Under the CUDA simulator events keep no time
(`timed` 0).
"""

from __future__ import annotations

import json
import os
import sys
import time

from cli.main import run as run_command_line
from gpu_anneal import runners

ENV = "BENCH_KERNEL_EVENTS"


class Tally:
    """Event pairs and counters of every CUDA runner of this process."""

    def __init__(self) -> None:
        self.pairs: list = []
        self.first_slice_at: float | None = None
        self.last_status_at: float | None = None
        self.runners: list[dict] = []
        self.error: str | None = None

    def record(self) -> dict:
        """The JSON object described in the module docstring (reads every pair's time)."""
        seconds, timed = 0.0, 0
        for start, end in self.pairs:
            try:
                ms = start.elapsed_time(end)
            except Exception:  # noqa: BLE001 - an event without time: counted as untimed
                continue
            if ms and ms > 0:
                seconds += ms / 1000
                timed += 1
        return {
            "slices": len(self.pairs),
            "timed": timed,
            "untimed": len(self.pairs) - timed,
            "kernel_seconds": seconds,
            "first_slice_at": self.first_slice_at,
            "last_status_at": self.last_status_at,
            "runners": self.runners,
            "error": self.error,
        }


def install(tally: Tally) -> None:
    """Wrap CudaRunner's __init__, run and status so that `tally` sees every slice."""
    try:  # late: numba.cuda fails to import where numba-cuda or its libraries are missing
        from numba import cuda

        cls = runners.CudaRunner
        init, run, status = cls.__init__, cls.run, cls.status
    except Exception as exc:  # noqa: BLE001 - no CUDA runner to time: the command runs as is
        tally.error = f"{type(exc).__name__}: {exc}"
        return

    def timed_init(self, batch, *args, **kwargs):
        init(self, batch, *args, **kwargs)
        tally.runners.append(
            {
                "kernel": getattr(self, "kernel_name", None),
                "puzzles": int(getattr(batch, "puzzles", 0)),
                "chains_per_puzzle": int(getattr(batch, "cpp", 0)),
            }
        )

    def timed_run(self, *args, **kwargs):
        if hasattr(self, "slice_start") and hasattr(self, "slice_end"):
            self.slice_start, self.slice_end = cuda.event(), cuda.event()
            tally.pairs.append((self.slice_start, self.slice_end))
        elif tally.error is None:
            tally.error = "CudaRunner has no slice_start/slice_end events"
        if tally.first_slice_at is None:
            tally.first_slice_at = time.time()
        return run(self, *args, **kwargs)

    def timed_status(self, *args, **kwargs):
        out = status(self, *args, **kwargs)
        tally.last_status_at = time.time()
        return out

    cls.__init__, cls.run, cls.status = timed_init, timed_run, timed_status


def main() -> None:
    """Run the command line with the tally installed; write the tally to $BENCH_KERNEL_EVENTS."""
    tally = Tally()
    install(tally)
    try:
        run_command_line()
    finally:
        path = os.environ.get(ENV)
        if path:
            try:
                record = tally.record()
            except Exception as exc:  # noqa: BLE001 - the command's own exit code must stand
                record = {"error": f"{type(exc).__name__}: {exc}"}
            with open(path, "w") as sink:
                json.dump(record, sink)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
