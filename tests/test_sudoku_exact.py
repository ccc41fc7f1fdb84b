"""Exact solver: solution counts, valid solutions, the three rules, random grids, orders 2-5.

Also: the 9x9 path against the general path (same counts, nodes, solutions and fixed points).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cpu_reference.errors import InputError
from cpu_reference.sudoku.exact import (
    CONTRADICTION,
    OPEN,
    SOLVED,
    _propagate9,
    count_solutions,
    has_unique_solution,
    propagate,
    propagate_many,
    search,
    solve_exact,
    solve_many,
    solve_restarts,
    tables,
    workspace,
)
from cpu_reference.sudoku.formats import read_puzzles

DATA = Path(__file__).parent / "data"


def parse81(text: str) -> np.ndarray:
    return np.array([0 if ch in ".0" else int(ch) for ch in text], dtype=np.uint8)


def tdoku_cases():
    cases = []
    for line in (DATA / "tdoku_test_puzzles.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            fields = line.strip().split(":")
            solution = fields[2] if len(fields) > 2 else None
            cases.append((fields[0], int(fields[1]), solution))
    return cases


def tsv_grids(name: str):
    out = []
    for line in (DATA / name).read_text().splitlines():
        label, n, values = line.split("\t")
        out.append((label, int(n), np.array(values.split(","), dtype=np.uint8)))
    return out


def is_valid_solution(grid: np.ndarray, puzzle: np.ndarray, n: int) -> bool:
    """Independent check: rows, columns and boxes are permutations of 1..N; givens kept."""
    N = n * n
    g = np.asarray(grid, dtype=np.int64).reshape(N, N)
    want = np.arange(1, N + 1)
    boxes = g.reshape(n, n, n, n).transpose(0, 2, 1, 3).reshape(N, N)
    for block in (g, g.T, boxes):
        if not all(np.array_equal(np.sort(row), want) for row in block):
            return False
    p = np.asarray(puzzle).reshape(N, N)
    return bool(np.all((p == 0) | (p == g)))


TDOKU = tdoku_cases()


def test_tdoku_file_has_43_puzzles():
    assert len(TDOKU) == 43


@pytest.mark.parametrize("puzzle,count,solution", TDOKU)
def test_tdoku_counts_and_solutions(puzzle, count, solution):
    cells = parse81(puzzle)
    got, grid, _ = solve_exact(cells, 3, limit=1000)
    assert got == count
    assert count_solutions(cells, 3) == min(count, 2)
    assert has_unique_solution(cells, 3) == (count == 1)
    if count == 0:
        assert not grid.any()
    else:
        assert is_valid_solution(grid, cells, 3)
    if solution is not None:
        assert "".join(map(str, grid)) == solution


def test_solve_many_matches_single_solves():
    puzzles = np.stack([parse81(p) for p, _, _ in TDOKU])
    counts, grids = solve_many(puzzles, 3)
    for i, (_, count, solution) in enumerate(TDOKU):
        assert counts[i] == min(count, 2)
        if count:
            assert is_valid_solution(grids[i], puzzles[i], 3)
        if solution is not None:
            assert "".join(map(str, grids[i])) == solution


def test_order2_empty_grid_has_288_solutions():
    count, grid, _ = solve_exact(np.zeros(16, np.uint8), 2, limit=1000)
    assert count == 288
    assert is_valid_solution(grid, np.zeros(16), 2)


def test_order2_puzzle_unique():
    puzzle = np.array([1, 0, 0, 0, 0, 0, 3, 0, 0, 4, 0, 0, 0, 0, 0, 2], dtype=np.uint8)
    count, grid, _ = solve_exact(puzzle, 2)
    assert count == 1
    assert is_valid_solution(grid, puzzle, 2)


@pytest.mark.parametrize("label,n,cells", tsv_grids("exact_16x16_45.tsv"))
def test_order4_puzzles_solve(label, n, cells):
    count, grid, _ = solve_exact(cells, n, limit=1)
    assert count == 1, label
    assert is_valid_solution(grid, cells, n)


@pytest.mark.parametrize("label,n,cells", tsv_grids("exact_25x25_45.tsv"))
def test_order5_at_45_percent_solves(label, n, cells):
    count, grid, _ = solve_exact(cells, n, limit=1)
    assert count == 1, label
    assert is_valid_solution(grid, cells, n)
    count, grid, _ = solve_restarts(cells, n)
    assert count == 1, label
    assert is_valid_solution(grid, cells, n)


def test_contradictory_givens_give_zero():
    puzzle = np.zeros(81, np.uint8)
    puzzle[0] = puzzle[5] = 7  # same digit twice in row 0
    count, grid, _ = solve_exact(puzzle, 3)
    assert count == 0
    assert not grid.any()
    assert not has_unique_solution(puzzle, 3)
    assert solve_restarts(puzzle, 3)[0] == 0


def test_digit_above_N_gives_zero_and_bad_shapes_raise():
    puzzle = np.zeros(16, np.uint8)
    puzzle[3] = 5
    assert count_solutions(puzzle, 2) == 0
    with pytest.raises(InputError):
        solve_exact(np.zeros(80, np.uint8), 3)
    with pytest.raises(InputError):
        solve_exact(np.zeros(81, np.uint8), 7)
    with pytest.raises(InputError):
        solve_exact(np.zeros(81, np.uint8), 3, limit=0)


def test_node_cap_reports_unfinished():
    count, _, nodes = solve_exact(np.zeros(256, np.uint8), 4, limit=10**9, max_nodes=50)
    assert count == -1
    assert nodes == 50


def test_shuffle_seed_gives_random_full_grids():
    empty = np.zeros(81, np.uint8)
    grids = {}
    for seed in (0, 1, 2):
        count, grid, _ = solve_exact(empty, 3, limit=1, shuffle_seed=seed)
        assert count == 1
        assert is_valid_solution(grid, empty, 3)
        grids[seed] = grid
    assert len({g.tobytes() for g in grids.values()}) == 3
    again = solve_exact(empty, 3, limit=1, shuffle_seed=1)[1]
    assert np.array_equal(again, grids[1])
    ascending = solve_exact(empty, 3, limit=1)[1]
    assert "".join(map(str, ascending[:9])) == "123456789"


def masks_of(rows: list[list[list[int]]]) -> np.ndarray:
    """Order-2 candidate masks from per-cell digit lists."""
    out = np.zeros(16, np.int64)
    for c, digits in enumerate(d for row in rows for d in row):
        for d in digits:
            out[c] |= 1 << (d - 1)
    return out


ALL = [1, 2, 3, 4]


def test_rule_exclusivity_removes_value_from_peers():
    rows = [[[1], ALL, ALL, ALL], [ALL, ALL, ALL, ALL], [ALL] * 4, [ALL] * 4]
    masks = masks_of(rows)
    assert propagate(masks, 2, pairs=False) == OPEN
    peers = [1, 2, 3, 4, 5, 8, 12]  # row 0, column 0, box 0
    assert all(masks[p] & 1 == 0 for p in peers)
    assert masks[0] == 1
    assert masks[15] == 0b1111


def test_rule_uniqueness_places_hidden_single():
    # Digit 4 allowed only at cell 2 of row 0; nothing is single yet.
    rows = [[[1, 2], [1, 2, 3], [1, 4], [2, 3]], [ALL] * 4, [ALL] * 4, [ALL] * 4]
    masks = masks_of(rows)
    assert propagate(masks, 2, pairs=False) != CONTRADICTION
    assert masks[2] == 0b1000


def test_rule_parity_naked_pair():
    # Order 3, row 0: cells 0 and 1 hold {1, 2}; cell 2 holds {1, 2, 3}. The pair forces 3 there.
    masks = np.full(81, (1 << 9) - 1, np.int64)
    masks[0] = masks[1] = 0b11
    masks[2] = 0b111
    with_pairs = masks.copy()
    propagate(masks, 3, pairs=False)
    assert masks[2] == 0b111
    propagate(with_pairs, 3, pairs=True)
    assert with_pairs[2] == 0b100
    assert with_pairs[3] & 0b11 == 0


def test_propagate_detects_contradiction_and_solved():
    masks = masks_of([[[1], [1], ALL, ALL], [ALL] * 4, [ALL] * 4, [ALL] * 4])
    assert propagate(masks, 2) == CONTRADICTION
    solved = np.array([1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1], np.uint8)
    masks = (np.int64(1) << (solved.astype(np.int64) - 1)).astype(np.int64)
    assert propagate(masks, 2) == SOLVED


def test_propagate_many_gives_propagate_row_by_row():
    """Rows of every fate (contradiction, open, solved, from the hardest puzzles and random
    candidate grids): propagate_many (the 9x9 path with every rule, the general one without
    naked pairs) gives each row's status as propagate does alone, and the same masks where the
    row does not contradict."""
    rng = np.random.default_rng(5)
    rows = []
    for cells in read_puzzles(str(DATA / "hardest.txt"))[:12]:
        g = cells.cells.astype(np.int64)
        rows.append(np.where(g > 0, np.int64(1) << (g - 1), 511))
    for _ in range(60):
        rows.append(rng.integers(1, 512, 81) | np.where(rng.random(81) < 0.6, 511, 0))
    for _ in range(4):  # two cells of row 0 left with the same single digit
        row = np.full(81, 511, np.int64)
        row[0] = row[1] = np.int64(1) << int(rng.integers(9))
        rows.append(row)
    masks = np.stack(rows).astype(np.int64)
    want_masks = masks.copy()
    want = [propagate(row, 3) for row in want_masks]
    got = propagate_many(masks, 3)
    assert got.tolist() == want
    kept = np.array(want) != CONTRADICTION  # a contradicted row's masks are left unspecified
    assert np.array_equal(masks[kept], want_masks[kept])
    general = np.stack(rows).astype(np.int64)
    assert propagate_many(general, 3, pairs=False).tolist() == [
        propagate(row, 3, pairs=False) for row in np.stack(rows).astype(np.int64)
    ]
    assert {CONTRADICTION, OPEN, SOLVED} <= set(want)


def _both_paths(cells: np.ndarray, limit: int):
    """(count, nodes, solution) from the 9x9 path and from the general path, same puzzle."""
    out = []
    for stack9 in (np.empty((83, 81), np.int32), np.empty((1, 1), np.int32)):
        ws = workspace(9)._replace(stack9=stack9)
        solution = np.zeros(81, np.uint8)
        count, nodes = search(cells, tables(3), limit, -1, 0, ws, solution)
        out.append((int(count), int(nodes), solution.tobytes()))
    return out


def test_9x9_path_matches_general_path():
    """Same rules, same fixed points, same branching: same counts, node counts and solutions."""
    puzzles = [parse81(p) for p, _, _ in TDOKU]
    for name in ("hardest.txt", "top95_head.txt"):
        for line in (DATA / name).read_text().splitlines():
            if len(line.strip()) >= 81 and not line.startswith("#"):
                puzzles.append(parse81(line.strip()[:81]))
    for cells in puzzles:
        for limit in (1, 2, 1000):
            fast, general = _both_paths(cells, limit)
            assert fast == general


def test_9x9_propagation_matches_general_rules():
    """Random candidate grids: the 9x9 fixed point equals ``propagate``'s, or both contradict."""
    rng = np.random.default_rng(5)
    solved = [np.array(list(sol), dtype=np.int64) for _, _, sol in TDOKU if sol]
    for t in range(600):
        if t % 2:
            masks = rng.integers(1, 512, size=81).astype(np.int64)
            masks[rng.random(81) < 0.6] = 511
        else:  # candidates around a known solution: never a contradiction, many rules fire
            sol = solved[t % len(solved)]
            masks = (np.int64(1) << (sol - 1)) | (
                rng.integers(0, 512, size=81) & rng.integers(0, 512, size=81)
            )
        general = masks.copy()
        want = propagate(general, 3)
        row = masks.astype(np.int32)
        queue = np.empty(81, np.uint16)
        qlen = 0
        for c in range(81):
            if row[c] & (row[c] - 1) == 0:
                queue[qlen] = c
                qlen += 1
        got = _propagate9(row, queue, qlen, (1 << 27) - 1, (1 << 27) - 1)
        assert (got == CONTRADICTION) == (want == CONTRADICTION)
        if want != CONTRADICTION:
            assert np.array_equal(row.astype(np.int64), general)
