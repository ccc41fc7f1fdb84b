"""Bit primitives shared by the CPU and CUDA code: population counts and a 64x64 high product.

Each is one instruction or a short integer sequence on both targets (popcnt / POPC), jitted as
intrinsics so that no float or Python object ever appears.
"""

from __future__ import annotations

from llvmlite import binding, ir
from numba import njit, types, uint64
from numba.extending import intrinsic


@intrinsic
def popcount64(typingctx, x):
    """Population count of a uint64 (one popcnt / POPC instruction on CPU and GPU)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(fn, [args[0]])

    return sig, codegen


@intrinsic
def popcount32(typingctx, x):
    """Population count of a uint32, as a uint32 (no widening to 64 bits)."""
    sig = types.uint32(types.uint32)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(32)])
        return builder.call(fn, [args[0]])

    return sig, codegen


@njit(inline="always")
def mul_high64(a, b):
    """The high 64 bits of the 128-bit product a * b (both uint64), from 32-bit halves."""
    low = uint64(0xFFFFFFFF)
    a_lo = a & low
    a_hi = a >> uint64(32)
    b_lo = b & low
    b_hi = b >> uint64(32)
    lo_lo = a_lo * b_lo
    hi_lo = a_hi * b_lo
    lo_hi = a_lo * b_hi
    cross = (lo_lo >> uint64(32)) + (hi_lo & low) + lo_hi
    return a_hi * b_hi + (hi_lo >> uint64(32)) + (cross >> uint64(32))


@intrinsic
def deposit64(typingctx, x, mask):
    """The low bits of x deposited at mask's set bits (x86 BMI2 pdep: CPU only, and only where
    host_has_deposit() says so)."""
    sig = types.uint64(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fn = builder.module.declare_intrinsic(
            "llvm.x86.bmi.pdep.64", fnty=ir.FunctionType(i64, [i64, i64])
        )
        return builder.call(fn, [args[0], args[1]])

    return sig, codegen


def host_has_deposit() -> bool:
    """Whether this CPU runs pdep (x86-64 with BMI2)."""
    try:
        features = binding.get_host_cpu_features()
    except RuntimeError:  # no feature query on this host
        return False
    return bool(features.get("bmi2", False)) and "x86_64" in binding.get_default_triple()
