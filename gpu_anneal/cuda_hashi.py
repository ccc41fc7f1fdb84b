"""CUDA backend for Hashiwokakero chains: one chain per thread, each running `hashi_trial`.

Glossary:
    i        chain index = global thread index (cuda.grid(1)); thread i uses RNG state i
    tpb      threads per block

The kernel is a thin driver: the move, delta and acceptance code is the jitted
`cpu_reference.hashi_anneal.hashi_trial`, the same function the CPU runner calls, so a chain
follows the same trajectory on both backends. Under the CUDA simulator the kernel calls that
function's Python source on the simulator's host arrays.
"""

from __future__ import annotations

import numpy as np
from numba import cuda

from cpu_reference.hashi_anneal import hashi_trial

_KERNEL = None


def simulating() -> bool:
    """True when numba runs CUDA code in its simulator (NUMBA_ENABLE_CUDASIM=1)."""
    from numba import config

    return bool(getattr(config, "ENABLE_CUDASIM", False))


def kernel_source(trial=hashi_trial, unwrap=False):
    """The kernel as a plain Python function (compile it with cuda.jit or compile_ptx)."""
    if unwrap:

        def host(a):
            return getattr(a, "_ary", a)

        def kernel(
            states, ea, eb, xstart, xlist, istart, ilist, values, maxb, tree, wc, square, we,
            wg, beta0, growth, plateau, n_plateaus, mult, deg, mark, queue, best, best_f,
            solved, stop, early_stop,
        ):  # fmt: skip
            i = cuda.grid(1)
            if i < states.shape[0]:
                trial(
                    i, host(states), host(ea), host(eb), host(xstart), host(xlist),
                    host(istart), host(ilist), host(values), maxb, tree, wc, square, we, wg,
                    beta0, growth, plateau, n_plateaus, host(mult), host(deg), host(mark),
                    host(queue), host(best), host(best_f), host(solved), host(stop), early_stop,
                )  # fmt: skip

        return kernel

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


def get_kernel():
    """The compiled kernel (cached); under the simulator it runs the trial's Python source."""
    global _KERNEL
    if _KERNEL is None:
        if simulating():
            _KERNEL = cuda.jit(kernel_source(hashi_trial.py_func, unwrap=True))
        else:
            _KERNEL = cuda.jit(kernel_source())
    return _KERNEL


def run_chains_cuda(*args, threads_per_block: int = 64):
    """One trial on every chain on the CUDA device; same arguments as run_chains_cpu.

    The host arrays among the arguments are updated in place, as the CPU runner does.
    """
    from numba import cuda

    kernel = get_kernel()
    dev = [cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
    chains = args[0].shape[0]
    blocks = (chains + threads_per_block - 1) // threads_per_block
    kernel[blocks, threads_per_block](*dev)
    for host_array, device_array in zip(args, dev, strict=True):
        if isinstance(host_array, np.ndarray):
            device_array.copy_to_host(host_array)


def compile_ptx(example_args, cc=(9, 0)) -> str:
    """PTX of the kernel for the argument types of `example_args` (no device needed)."""
    import numba

    sig = tuple(numba.typeof(a) for a in example_args)
    ptx, _ = cuda.compile_ptx(kernel_source(), sig, cc=cc)
    return ptx
