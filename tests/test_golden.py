"""The fixed mixed set of `tests/golden.py` (Sudoku 4x4, 9x9 and 16x16 by annealing with fixed
seeds and by the exact solver, `--dry-run` plans, a replayed chain, Shikaku and Hashi by
annealing and ILP, all on the CPU) prints what `tests/data/golden/` holds, byte for byte, with
only the clock-, rate- and machine-dependent parts masked."""

from __future__ import annotations

import pytest
from golden import CASES, GOLDEN, mask_line, run_case

# the card plan's rates come from the kernels' model (compiled to PTX and SASS: the ptx extra)
NEEDS_PTX = {"sudoku_9x9_dry_run_cuda"}


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.ptx) if n in NEEDS_PTX else n for n in CASES]
)
def test_golden_output_is_reproduced(name):
    """The case prints exactly its golden output (and exits as it did)."""
    _, text = run_case(name)
    assert text == (GOLDEN / f"{name}.out").read_text()


def test_mask_hides_only_the_clock_and_the_racing_counts():
    """Timing is masked always, the aggregate counts only where chains run at once, and the
    per-chain counts never: a changed solving chain still fails the check."""
    line = (
        '{"counts": {"trials": 3, "proposals": 10, "accepted": 4, "solving_chain": 1}, '
        '"timing": {"search": 0.5}}'
    )
    alone = mask_line(line, parallel=False)
    racing = mask_line(line, parallel=True)
    assert '"trials": 3' in alone and '"search": "<masked>"' in alone
    assert '"trials": "<masked>"' in racing and '"solving_chain": 1' in racing
    assert mask_line("plan (model) for 3 puzzles", parallel=False) == "plan (model) for 3 puzzles"
    cold = "predicted: 2 s (cores 9.1 M/s measured here, 2 threads, rules to compile)"
    warm = "predicted: 2 s (cores 9.1 M/s measured here, 2 threads, rules cached)"
    assert mask_line(cold, parallel=False) == mask_line(warm, parallel=False)
    assert "rules <cache>" in mask_line(cold, parallel=False)
