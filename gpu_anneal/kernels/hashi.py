"""CUDA backend for Hashiwokakero chains: one chain per thread, each running `hashi_trial`.

Glossary:
    i        chain index = global thread index (cuda.grid(1)); thread i uses RNG state i
    tpb      threads per block

The kernel is a thin driver: the move, delta and acceptance code is the jitted
`cpu_reference.hashi.rules.hashi_trial`, the same function the CPU runner calls, so a chain
follows the same trajectory on both backends. Under the CUDA simulator the kernel calls that
function's Python source on the simulator's host arrays (see gpu_anneal.kernels.launch).
"""

from __future__ import annotations

from numba import cuda

from cpu_reference.hashi.rules import hashi_trial
from gpu_anneal.kernels.launch import TrialKernel
from gpu_anneal.kernels.launch import simulating as simulating


def kernel_source(trial=hashi_trial):
    """The kernel as a plain Python function (compile it with cuda.jit or compile_ptx)."""

    def kernel(
        states, ea, eb, xstart, xlist, istart, ilist, values, maxb, tree, wc, square, we, wg,
        beta0, growth, plateau, n_plateaus, mult, deg, mark, queue, best, best_f, solved, stop,
        early_stop,
    ):  # fmt: skip
        i = cuda.grid(1)
        if i < states.shape[0]:
            trial(
                i, states, ea, eb, xstart, xlist, istart, ilist, values, maxb, tree, wc, square,
                we, wg, beta0, growth, plateau, n_plateaus, mult, deg, mark, queue, best, best_f,
                solved, stop, early_stop,
            )  # fmt: skip

    return kernel


_KERNEL = TrialKernel(kernel_source, hashi_trial)
get_kernel = _KERNEL.get
run_chains_cuda = _KERNEL.run
compile_ptx = _KERNEL.compile_ptx
