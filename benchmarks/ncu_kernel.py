"""Launch one 9x9 kernel over a wave of chains, for Nsight Compute to read (needs a CUDA card).

    ncu --target-processes all -k regex:sudoku_slice --launch-skip 3 --launch-count 1 \
        --section SpeedOfLight --section WarpStateStats --section Occupancy \
        --section SchedulerStats python -m benchmarks.ncu_kernel focused-two

Arguments: move names (sirdey, candidate, box-swap, focused, focused-two). Prints each move's
proposals per second, which under the profiler's replays means nothing: the figures that count
are the profiler's (benchmarks/results/ncu/). The chain count is 1,056 blocks of 128 (8 blocks
an SM on 132 SMs): one wave for Sirdey's move, 1.14 waves for the focused moves (7 blocks an SM).
"""

from __future__ import annotations

import sys

from gpu_anneal.measure import measure_throughput

CHAINS = 1056 * 128

if __name__ == "__main__":
    for move in sys.argv[1:] or ["sirdey"]:
        rate = measure_throughput(3, 0.3, "cuda", chains=CHAINS, move=move)
        print(move, rate["proposals_per_second"] / 1e9, "G/s (under the profiler)", flush=True)
