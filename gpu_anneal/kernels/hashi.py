"""CUDA backend for Hashiwokakero chains: one chain per thread, each running `hashi_trial`.

Glossary:
    i        chain index = global thread index (cuda.grid(1)); thread i uses RNG state i
    tpb      threads per block

The kernel is a thin driver: the move, delta and acceptance code is the jitted
`cpu_reference.hashi.rules.hashi_trial`, the same function the CPU runner calls, so a chain
follows the same trajectory on both backends. The simulator runs this same kernel source;
`plain` hands the trial the host arrays behind its wrappers (see gpu_anneal.kernels.compat).
A run's arrays stay on the device between trials (see gpu_anneal.kernels.launch).
"""

from __future__ import annotations

from numba import cuda

from cpu_reference.hashi.rules import hashi_trial
from gpu_anneal.kernels.compat import plain
from gpu_anneal.kernels.launch import DeviceTrials, TrialKernel
from gpu_anneal.kernels.launch import simulating as simulating


def kernel_source():
    """The kernel as a plain Python function (compile it with cuda.jit or ptx.compile_ptx).

    Its arguments are run_chains_cpu's, in the same order and with the same names as
    hashi_trial's after `i`.
    """

    def kernel(
        states, ea, eb, xstart, xlist, istart, ilist, values, maxb, tree, wc, square, we, wg,
        beta0, growth, plateau, n_plateaus, mult, deg, mark, queue, best, best_f, solved, left,
        stop, early_stop,
    ):  # fmt: skip
        i = cuda.grid(1)
        if i < states.shape[0]:
            hashi_trial(
                i, plain(states), plain(ea), plain(eb), plain(xstart), plain(xlist),
                plain(istart), plain(ilist), plain(values), maxb, tree, wc, square, we, wg,
                beta0, growth, plateau, n_plateaus, plain(mult), plain(deg), plain(mark),
                plain(queue), plain(best), plain(best_f), plain(solved), plain(left), plain(stop),
                early_stop,
            )  # fmt: skip

    return kernel


KERNEL = TrialKernel(kernel_source)
get_kernel = KERNEL.get


def device_runner(threads_per_block: int = 64) -> DeviceTrials:
    """A runner for one Hashiwokakero anneal run on the CUDA device (pass it as anneal's runner)."""
    return KERNEL.runner(threads_per_block)
