"""`plain(array)`: the array a kernel hands to shared jitted rules, on a device or in the simulator.

Compiled for a device it is the identity. Under the CUDA simulator (NUMBA_ENABLE_CUDASIM=1) kernel
arguments are Python wrappers around NumPy arrays, which jitted CPU functions cannot take; there
`plain` unwraps them, so the simulated kernel calls the very same jitted rules as the CPU runner.
"""

from __future__ import annotations

from numba import config, njit

if config.ENABLE_CUDASIM:

    def plain(array):
        """The NumPy array behind a simulator wrapper."""
        while True:
            if hasattr(array, "_item"):
                array = array._item
            elif hasattr(array, "_ary"):
                array = array._ary
            else:
                return array

else:

    @njit(inline="always")
    def plain(array):
        """Identity: on a device the argument already is the array."""
        return array
