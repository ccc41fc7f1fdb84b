"""benchmarks/probing.py: failed-literal probing keeps every solution's digit, removes what the
rules alone leave, and switches deduction only inside its block."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import cpu_reference.sudoku.batch as batch
from benchmarks.frontier_instances import make_instances
from benchmarks.probing import measure, open_candidates, probe, probing_deduction, render
from cpu_reference.sudoku.exact import CONTRADICTION, solve_exact

DATA = Path(__file__).parent / "data"


def puzzles(count: int) -> list[np.ndarray]:
    """The first hard 9x9 puzzles of the test set, as digit arrays."""
    lines = (DATA / "top95_head.txt").read_text().split()[:count]
    return [np.array([0 if ch == "." else int(ch) for ch in line], np.uint8) for line in lines]


def candidate_count(masks: np.ndarray) -> int:
    """Candidates over all cells."""
    return int(sum(bin(int(m)).count("1") for m in masks.view(np.uint64)))


def test_open_candidates_lists_each_bit_of_each_open_cell():
    """A fixed cell gives nothing; a cell of k candidates gives its k one-bit masks."""
    masks = np.array([0b1, 0b1010, 0b111], np.int64)
    cells, bits = open_candidates(masks)
    assert cells.tolist() == [1, 1, 2, 2, 2]
    assert bits.tolist() == [0b10, 0b1000, 0b1, 0b10, 0b100]


def test_open_candidates_holds_digit_64():
    """At 64x64 digit 64 is bit 63, the sign bit: it is listed as any other."""
    top = np.array(1 << 63, np.uint64).view(np.int64)
    masks = np.array([top | 1], np.int64)
    cells, bits = open_candidates(masks)
    assert cells.tolist() == [0, 0]
    assert bits.view(np.uint64).tolist() == [1, 1 << 63]


def test_probe_keeps_the_solution_and_removes_candidates_the_rules_leave():
    """On hard 9x9 puzzles with one solution, probing after the rules removes candidates on at
    least one, never a digit of the solution."""
    removed_any = 0
    for cells in puzzles(5):
        count, solution, _ = solve_exact(cells, 3)
        assert count == 1
        _, masks = batch.logic_fill(cells, 3)
        before = candidate_count(masks)
        removed, _ = probe(masks, 3)
        assert candidate_count(masks) <= before - removed  # a later round of rules may fix more
        bit = np.left_shift(np.int64(1), solution.astype(np.int64) - 1)
        assert np.all(masks & bit)
        removed_any += removed > 0
    assert removed_any >= 1


def test_probing_deduction_switches_inside_its_block_only():
    """Inside the block logic_fill narrows the masks further than the rules; after it, the
    rules alone again (the same masks as before the block)."""
    cells = next(c for c in puzzles(5) if probe(batch.logic_fill(c, 3)[1], 3)[0] > 0)
    plain = batch.logic_fill(cells, 3)[1]
    with probing_deduction():
        probed = batch.logic_fill(cells, 3)[1]
    after = batch.logic_fill(cells, 3)[1]
    assert candidate_count(probed) < candidate_count(plain)
    assert np.all(probed & ~plain == 0)
    assert np.array_equal(after, plain)


def test_measure_counts_what_probing_removes_and_renders_each_instance():
    """Each instance's row: probing leaves no more candidates than the rules, at least
    `removed` fewer; the table names every instance."""
    result = measure("3:30:3:5")
    assert [r["instance"] for r in result["rows"]] == [
        p.name for p in make_instances([3], [30], 3, 5)
    ]
    for row in result["rows"]:
        assert row["candidates_probed"] <= row["candidates_rules"] - row["removed"]
        assert row["open_probed"] <= row["open_rules"]
    report = render(result)
    assert all(r["instance"] in report for r in result["rows"])


def test_a_puzzle_probing_refutes_is_a_contradiction_with_its_cells_as_given():
    """A wrong given (cell 1 set to 9 on the first test puzzle) that the rules alone do not
    refute: inside the block probing does, so the row is not ok and keeps its cells as given;
    outside it the rules leave it open."""
    bad = puzzles(1)[0].copy()
    bad[1] = 9
    filled, masks, ok = batch.logic_fill_many(bad[None], 3)
    assert ok[0]
    with probing_deduction():
        filled, masks, ok = batch.logic_fill_many(bad[None], 3)
    assert not ok[0]
    assert np.array_equal(filled[0], bad)
    assert probe(batch.logic_fill(bad, 3)[1], 3)[1] == CONTRADICTION
