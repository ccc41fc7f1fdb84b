"""`gpu-anneal kernels`: PTX, ptxas resources, SASS counts of the move loop and a modeled rate.

Per kernel and size the record holds ptxas's figures, a `sass` object (counts read from the
SASS of the move loop, see gpu_anneal.kernels.sass) and a `model` object (modeled proposals/s on
named cards, see gpu_anneal.kernels.perf_model): a model read from compiled code, not a
measurement. `--keep DIR` writes DIR/KERNEL-SIZE.ptx, .cubin and .sass for each kernel, so that
the counts can be re-derived from the files.
"""

from __future__ import annotations

import json
from pathlib import Path

from cli.progress import RunProgress, messages_above
from gpu_anneal.reference import InputError

MODEL_CARD = "H100 SXM"  # the card the text table shows


def run_kernels(
    arch: str, kinds: tuple[str, ...], json_out: bool, keep: str | None = None,
    progress: bool | None = None,
) -> int:  # fmt: skip
    """Print the kernel table; exit code 1 if any kernel failed to compile. `progress`: the
    progress line (cli.progress: kernel sizes compiled out of all)."""
    try:
        from gpu_anneal.kernels.cards import parse_arch
        from gpu_anneal.kernels.ptx import kernel_table
    except ImportError as exc:
        raise InputError(
            f'PTX checks need the ptx extra: pip install "gpu-anneal[ptx]" ({exc})'
        ) from None
    try:
        parse_arch(arch)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    keep_dir = None
    if keep is not None:
        if not keep.strip():
            raise InputError("--keep '': name a folder for the compiled files")
        keep_dir = Path(keep)
        try:
            keep_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"--keep {keep}: cannot create the folder ({exc.strerror})") from None
    from gpu_anneal.kernels.perf_model import record_reader
    from gpu_anneal.kernels.ptx import kernel_registry
    from gpu_anneal.kinds import trial_kernels

    trials = trial_kernels()
    registry = kernel_registry(trials)
    unknown = [name for name in kinds if name not in registry]
    if unknown:
        raise InputError(
            f"--kind {unknown[0]!r}: no such kernel; kernels are {', '.join(registry)}"
        )
    names = [name for name in registry if not kinds or name in kinds]
    sizes = sum(len(registry[name][2]) for name in names)
    line = RunProgress(total=sizes, enabled=progress, work="compiling", noun="kernel sizes")
    rows = []
    with line, messages_above(line):
        for name in names:  # one kernel at a time, so that the line moves
            rows += kernel_table(arch, (name,), record_reader(arch, keep_dir), trials)
            line.set_done(len(rows))
    if json_out:
        print(json.dumps(rows, indent=1))
    else:
        print_table(rows)
    return 0 if all(row["ptx"] for row in rows) else 1


def print_table(rows: list[dict]) -> None:
    """The human-readable table (model figures on MODEL_CARD)."""
    print(
        f"{'kernel':17} {'size':>4} {'ptx':>4} {'regs':>4} {'stack':>5} {'spill st/ld':>11} "
        f"{'instr':>5} {'LDL':>3} {'STL':>3} {'FP':>3} {'FPpl':>4} {'model G/s':>9}"
    )
    for row in rows:
        spills = f"{row.get('spill_stores', '-')}/{row.get('spill_loads', '-')}"
        s = row.get("sass") or {}
        rate = (row.get("model") or {}).get(MODEL_CARD, {}).get("proposals_per_second")
        print(
            f"{row['kernel']:17} {row['size']!s:>4} {'ok' if row['ptx'] else 'FAIL':>4} "
            f"{row.get('registers', '-')!s:>4} {row.get('stack_frame', '-')!s:>5} {spills:>11} "
            f"{s.get('instructions_per_proposal', '-')!s:>5} {s.get('local_loads', '-')!s:>3} "
            f"{s.get('local_stores', '-')!s:>3} {s.get('fp', '-')!s:>3} "
            f"{s.get('plateau_fp', '-')!s:>4} {f'{rate / 1e9:.1f}' if rate else '-':>9}"
        )
        if not row["ptx"]:
            print(f"  error: {row['error']}")
        elif s.get("error") or s.get("move_loop_found") is False:
            print(f"  sass: {s.get('error') or s.get('rule')}")
    print(f"model: proposals/s modeled on {MODEL_CARD} from the compiled code, not measured")
