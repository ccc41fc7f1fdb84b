"""`gpu-anneal kernels`: PTX compilation and ptxas resources of every kernel, per size."""

from __future__ import annotations

import json

from cpu_reference.errors import InputError


def run_kernels(arch: str, kinds: tuple[str, ...], json_out: bool) -> int:
    """Print the kernel table; exit code 1 if any kernel failed to compile."""
    try:
        from gpu_anneal.kernels.ptx import kernel_table, parse_arch
    except ImportError as exc:
        raise InputError(f"PTX checks need numba-cuda: pip install '.[ptx]' ({exc})") from None
    try:
        parse_arch(arch)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    rows = kernel_table(arch, kinds or None)
    if json_out:
        print(json.dumps(rows, indent=1))
    else:
        print(f"{'kernel':10} {'size':>5} {'ptx':>4} {'regs':>5} {'stack':>6} {'spill st/ld':>12}")
        for row in rows:
            spills = f"{row.get('spill_stores', '-')}/{row.get('spill_loads', '-')}"
            print(
                f"{row['kernel']:10} {row['size']!s:>5} {'ok' if row['ptx'] else 'FAIL':>4} "
                f"{row.get('registers', '-')!s:>5} {row.get('stack_frame', '-')!s:>6} {spills:>12}"
            )
            if not row["ptx"]:
                print(f"  error: {row['error']}")
    return 0 if all(row["ptx"] for row in rows) else 1
