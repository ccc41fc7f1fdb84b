"""Failed-literal probing after the deduction rules, for sweeps that measure what it is worth.

Glossary:
    n       Sudoku order (box side); N = n * n digits
    c       cell index (row-major)
    v       a one-bit candidate mask (bit d - 1: digit d)
    masks   int64[N * N] candidate masks, as the exact solver keeps them

A probe sets cell c to one candidate v and runs the exact solver's rules (``propagate``); where
they reach a contradiction, v is no digit of any solution at c and leaves its mask. Every
candidate of every open cell is probed, the rules run again, and the round repeats until one
removes nothing (singleton consistency on the rules).

``probing_deduction()`` makes every run in its block deduce that way: it swaps the
``logic_fill_many`` that the CPU runner, the host cores and the pool import for one that probes
after the rules. It is a benchmark's switch, not an engine option.

    python -m benchmarks.probing [--lewis 6:50:6:5] [--out PATH]
        (each instance's open cells and candidates after the rules, and after probing:
         benchmarks/results/tuning/probe_candidates_NxN_F.{json,md})
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

import cpu_reference.sudoku.batch as batch
import gpu_anneal.host_cores as host_cores
import gpu_anneal.persistent_pool as persistent_pool
from benchmarks.frontier_instances import lewis_spec, make_instances
from benchmarks.machine import machine
from benchmarks.paths import results
from benchmarks.tables import add_out_arguments, rerender, table_block, write_results
from cpu_reference.sudoku.exact import CONTRADICTION, OPEN, SOLVED, propagate, propagate_many

_USERS = (batch, host_cores, persistent_pool)  # the modules that call logic_fill_many


def open_candidates(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(cells, bits): every candidate of every cell with two or more, one pair per candidate."""
    bits = masks.view(np.uint64)[:, None] & (np.uint64(1) << np.arange(64, dtype=np.uint64))
    open_cell = (masks & (masks - 1)) != 0
    cells, digits = np.nonzero((bits != 0) & open_cell[:, None])
    return cells, (np.uint64(1) << digits.astype(np.uint64)).view(np.int64)


def probe(masks: np.ndarray, order: int) -> tuple[int, int]:
    """Remove from masks (changed in place) every candidate whose probe the rules contradict,
    round after round with the rules between, until a round removes nothing: (the candidates
    removed, the grid's status: OPEN, SOLVED or CONTRADICTION as propagate gives them). masks
    come at a fixed point of the rules without a contradiction. Stops early where the rules
    contradict or solve the grid."""
    removed = 0
    while True:
        cells, bits = open_candidates(masks)
        if cells.size == 0:
            return removed, SOLVED
        rows = np.repeat(masks[None], cells.size, axis=0)
        rows[np.arange(cells.size), cells] = bits
        refuted = propagate_many(rows, order) == CONTRADICTION
        if not refuted.any():
            return removed, OPEN
        np.bitwise_and.at(masks, cells[refuted], ~bits[refuted])
        removed += int(refuted.sum())
        status = propagate(masks, order)
        if status != OPEN:
            return removed, status


def _probed(fill):
    """logic_fill_many `fill` followed by probe() on every row it did not contradict; a row
    that probing contradicts is then one as well (ok False, its cells as given)."""

    def logic_fill_many(cells: np.ndarray, order: int):
        _, masks, ok = fill(cells, order)
        for j in np.nonzero(ok)[0]:
            ok[j] = probe(masks[j], order)[1] != CONTRADICTION
        rows = np.asarray(cells, np.uint8).reshape(masks.shape)
        return batch.singles_filled(rows, masks, ok), masks, ok

    return logic_fill_many


@contextmanager
def probing_deduction() -> Iterator[None]:
    """Within the block, deduction before annealing probes after the rules (probe())."""
    fill = batch.logic_fill_many
    probed = _probed(fill)
    for module in _USERS:
        module.logic_fill_many = probed
    try:
        yield
    finally:
        for module in _USERS:
            module.logic_fill_many = fill


def candidates(masks: np.ndarray) -> tuple[int, int]:
    """(open cells, their candidates): cells with two or more candidates, and those counted."""
    cells, _ = open_candidates(masks)
    return int(np.unique(cells).size), int(cells.size)


def measure(spec: str) -> dict:
    """Candidates after the rules and after probing on each instance ORDER:FILL:COUNT:SEED
    (bench_frontier's instances of that seed)."""
    order, fill, count, seed = lewis_spec(spec)
    rows = []
    for puzzle in make_instances([order], [fill], count, seed):
        _, masks = batch.logic_fill(puzzle.cells, order)
        before = candidates(masks)
        start = time.perf_counter()
        removed, _ = probe(masks, order)
        seconds = time.perf_counter() - start
        after = candidates(masks)
        rows.append({
            "instance": puzzle.name, "open_rules": before[0], "candidates_rules": before[1],
            "open_probed": after[0], "candidates_probed": after[1], "removed": removed,
            "seconds": seconds,
        })  # fmt: skip
    return {"machine": machine(), "lewis": spec, "rows": rows,
            "command": "python -m benchmarks.probing " + " ".join(sys.argv[1:])}  # fmt: skip


def render(result: dict) -> str:
    """The markdown table of a measure() result."""
    m = result["machine"]
    cells = [
        (r["instance"], f"{r['open_rules']} / {r['candidates_rules']:,}",
         f"{r['open_probed']} / {r['candidates_probed']:,}",
         f"{100 * (1 - r['candidates_probed'] / r['candidates_rules']):.1f} %",
         f"{r['seconds']:.2f}")
        for r in result["rows"]
    ]  # fmt: skip
    title = (
        f"# Candidates after the rules and after failed-literal probing: lewis {result['lewis']}"
        f"\n\nMachine: {m['cpu_model']}, {m['cores']} cores, {m['date']}. Open cells / their "
        "candidates; probing: every candidate of every open cell set alone and the rules run, a "
        "contradicted one removed, round after round (benchmarks/probing.py)."
    )
    header = ("instance", "after the rules", "after probing", "candidates removed", "probing s")
    return "\n".join(table_block(title, header, cells, f"Command: `{result['command']}`"))


def main() -> None:
    """Parse the flags, measure, write the JSON and markdown results."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lewis", default="6:50:6:5", help="ORDER:FILL:COUNT:SEED instances")
    add_out_arguments(ap, results("tuning") / "probe_candidates_36x36_50")
    args = ap.parse_args()
    if args.render:
        rerender(args.out, render)
        return
    write_results(args.out, measure(args.lewis), render)


if __name__ == "__main__":
    main()
