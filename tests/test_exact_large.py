"""The exact-cover solver (cpu_reference.sudoku.exact_large): each rule on a hand-made state,
exhaustive counts, restarts that count to two, random runs, orders 2 to 5."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tdoku_cases import parse81, tdoku_cases

from cpu_reference.sudoku import exact_large as L

DATA = Path(__file__).parent / "data"
ALL_RULES = L.BOX_LINE | L.ALL_DIFFERENT


def tsv(name: str):
    out = []
    for line in (DATA / name).read_text().splitlines():
        label, n, values = line.split("\t")
        out.append((label, int(n), np.array(values.split(","), dtype=np.uint8)))
    return out


def valid(grid, puzzle, n) -> bool:
    N = n * n
    g = np.asarray(grid, dtype=np.int64).reshape(N, N)
    boxes = g.reshape(n, n, n, n).transpose(0, 2, 1, 3).reshape(N, N)
    want = list(range(1, N + 1))
    ok = all(sorted(u) == want for block in (g, g.T, boxes) for u in block)
    return ok and bool(np.all((puzzle == 0) | (puzzle == grid)))


def run(cells, n, limit, rules=ALL_RULES, restarts=False, seed=-1, max_nodes=0):
    solution = np.zeros(len(cells), np.uint8)
    count, nodes = L.solve_one(cells, n, limit, max_nodes, seed, restarts, 50, rules, solution)
    return int(count), solution, int(nodes)


class State:
    """An order-3 state of the empty grid, with eliminations applied through ``_elim``."""

    def __init__(self):
        self.ws = L.workspace(3, 8)
        self.S = self.ws[0][0]
        stack, branch, cq, fq, bq, flags, qs, uq, geo, _ = self.ws
        L._reset_queues(bq, flags, qs, uq, 81)
        assert L._start(np.zeros(81, np.uint8), self.S, 3, 9, 81, cq, fq, bq, flags, qs, uq, geo, 0)

    def remove(self, cell, digits):
        _, _, cq, fq, bq, flags, qs, uq, geo, _ = self.ws
        for d in digits:
            assert L._elim(self.S, cell, d - 1, 3, 9, 81, cq, fq, bq, flags, qs, uq, geo)

    def propagate(self, rules):
        _, _, cq, fq, bq, flags, qs, uq, geo, _ = self.ws
        return L._propagate(self.S, 3, 9, 81, cq, fq, bq, flags, qs, uq, geo, rules)

    def digits(self, cell):
        return [d + 1 for d in range(9) if self.S[cell] >> d & 1]

    def consistent(self):
        """The four views agree with the cell masks."""
        S = self.S
        for c in range(81):
            r, k = divmod(c, 9)
            b, p = (r // 3) * 3 + k // 3, (r % 3) * 3 + k % 3
            for d in range(9):
                bit = S[c] >> d & 1
                assert S[81 + d * 9 + r] >> k & 1 == bit
                assert S[162 + d * 9 + k] >> r & 1 == bit
                assert S[243 + d * 9 + b] >> p & 1 == bit


@pytest.mark.parametrize("rules", [0, L.ALL_DIFFERENT])
def test_naked_pair_needs_all_different(rules):
    """Cells 0 and 1 of row 0 hold {1, 2}: all-different clears 1 and 2 from the rest of row 0."""
    st = State()
    for cell in (0, 1):
        st.remove(cell, range(3, 10))
    assert st.propagate(rules)
    st.consistent()
    cleared = all(1 not in st.digits(c) and 2 not in st.digits(c) for c in range(2, 9))
    assert cleared == bool(rules)
    assert st.digits(0) == [1, 2]


def test_hidden_pair_by_all_different():
    """Digits 1 and 2 only in cells 0 and 1 of row 0: those cells keep just 1 and 2."""
    st = State()
    for cell in range(2, 9):
        st.remove(cell, (1, 2))
    assert st.propagate(L.ALL_DIFFERENT)
    st.consistent()
    assert st.digits(0) == [1, 2] and st.digits(1) == [1, 2]


@pytest.mark.parametrize("rules", [0, L.BOX_LINE])
def test_box_line_pointing(rules):
    """Digit 1 in box 0 only on row 0: with box-line, row 0 loses 1 outside box 0."""
    st = State()
    for cell in (9, 10, 11, 18, 19, 20):
        st.remove(cell, (1,))
    assert st.propagate(rules)
    st.consistent()
    assert all((1 in st.digits(c)) != bool(rules) for c in range(3, 9))
    assert all(1 in st.digits(c) for c in range(27, 81, 9))  # column 0 below untouched


def test_box_line_claiming():
    """Digit 1 on row 0 only inside box 0: box 0's other rows lose 1."""
    st = State()
    for cell in range(3, 9):
        st.remove(cell, (1,))
    assert st.propagate(L.BOX_LINE)
    st.consistent()
    assert all(1 not in st.digits(c) for c in (9, 10, 11, 18, 19, 20))


@pytest.mark.parametrize("rules", [L.BOX_LINE | L.ALL_DIFFERENT, L.FISH])
def test_x_wing_needs_fish(rules):
    """Digit 1 in rows 0 and 4 only in columns 0 and 4 (an X-wing): with FISH, the other rows
    lose 1 in those two columns; unit all-different and box-line see nothing."""
    st = State()
    for r in (0, 4):
        for k in range(9):
            if k not in (0, 4):
                st.remove(r * 9 + k, (1,))
    assert st.propagate(rules)
    st.consistent()
    others = [r * 9 + k for r in range(9) if r not in (0, 4) for k in (0, 4)]
    assert all((1 in st.digits(c)) != bool(rules & L.FISH) for c in others)
    assert all(1 in st.digits(c) for c in (0, 4, 36, 40))


def test_hidden_single_places_digit():
    st = State()
    for cell in range(1, 9):
        st.remove(cell, (5,))
    assert st.propagate(0)
    st.consistent()
    assert st.digits(0) == [5]
    assert all(5 not in st.digits(c) for c in (9, 18, 27, 10, 20))


def test_order2_empty_grid_has_288_solutions():
    for rules in (0, L.BOX_LINE, ALL_RULES, ALL_RULES | L.FISH, L.BOX_LINE | L.PHASE):
        count, grid, _ = run(np.zeros(16, np.uint8), 2, 1000, rules)
        assert count == 288
        assert valid(grid, np.zeros(16), 2)


@pytest.mark.parametrize("index", range(43))
def test_tdoku_counts(index):
    cells, count, solution = tdoku_cases()[index]
    got, grid, _ = run(cells, 3, 1000)
    assert got == count
    assert run(cells, 3, 1000, rules=0)[0] == count
    assert run(cells, 3, 1000, rules=L.FISH | L.PHASE)[0] == count
    got2, grid2, _ = run(cells, 3, 2, restarts=True)
    assert got2 == min(count, 2)
    if count:
        assert valid(grid, cells, 3) and valid(grid2, cells, 3)
    if solution:
        assert "".join(map(str, grid2)) == solution


def two_solution_puzzle():
    """A full grid (tdoku's first solution) less a rectangle a b / b a over two boxes: exactly
    two solutions, the grid and the grid with the rectangle swapped."""
    full = next(parse81(s) for _, _, s in tdoku_cases() if s)
    g = full.reshape(9, 9)
    for r1 in range(9):
        for r2 in range(r1 + 1, 9):
            if r1 // 3 != r2 // 3:
                continue  # rows of one band, columns of two stacks
            for k1 in range(9):
                for k2 in range(k1 + 1, 9):
                    if k1 // 3 != k2 // 3 and g[r1, k1] == g[r2, k2] and g[r1, k2] == g[r2, k1]:
                        puzzle = full.copy()
                        for r, k in ((r1, k1), (r1, k2), (r2, k1), (r2, k2)):
                            puzzle[r * 9 + k] = 0
                        return puzzle, full
    raise AssertionError("no rectangle")


def test_restarts_count_two_and_known_solution():
    puzzle, full = two_solution_puzzle()
    assert run(puzzle, 3, 1000)[0] == 2
    assert run(puzzle, 3, 2, restarts=True)[0] == 2
    # a search told of one solution stops at the other, the one it has not seen
    ws = L.workspace(3, 8)
    known = full.copy()
    count, _, distinct, _, _ = L.search(puzzle, 3, 2, 0, -1, ALL_RULES, 1, ws, known)
    assert distinct == 2 and count >= 1
    assert np.array_equal(known, full)


def test_restarts_zero_one_and_cap():
    bad = np.zeros(81, np.uint8)
    bad[0] = bad[5] = 7
    assert run(bad, 3, 2, restarts=True)[0] == 0
    cells, count, _ = tdoku_cases()[0]
    assert run(cells, 3, 2, restarts=True)[0] == min(count, 2)
    count, _, nodes = run(np.zeros(256, np.uint8), 4, 2, rules=0, restarts=False, max_nodes=3)
    assert (count, nodes) == (-1, 3)


def test_random_runs_give_different_valid_grids():
    empty = np.zeros(81, np.uint8)
    grids = set()
    for seed in (1, 2, 3):
        count, grid, _ = run(empty, 3, 1, seed=seed)
        assert count == 1 and valid(grid, empty, 3)
        grids.add(grid.tobytes())
    assert len(grids) == 3
    assert run(empty, 3, 1, seed=2)[1].tobytes() in grids  # same seed, same grid


@pytest.mark.parametrize("name", ["exact_16x16_45.tsv", "exact_25x25_45.tsv"])
def test_big_grids_count_to_two(name):
    for label, n, cells in tsv(name):
        count, grid, _ = run(cells, n, 2, restarts=True)
        assert count >= 1, label
        assert valid(grid, cells, n), label


def test_parallel_equals_one_by_one():
    puzzles = np.stack([c for c, _, _ in tdoku_cases()])
    counts = np.zeros(len(puzzles), np.int32)
    solutions = np.zeros_like(puzzles)
    L.solve_parallel(puzzles, 3, 2, 0, True, 50, ALL_RULES, counts, solutions)
    for i, cells in enumerate(puzzles):
        count, grid, _ = run(cells, 3, 2, restarts=True)
        assert counts[i] == count
        assert np.array_equal(solutions[i], grid)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_geometry_table_places_every_cell_in_its_row_column_and_box(n):
    N = n * n
    N2 = N * N
    geo = L.geometry(n)
    for c in range(N2):
        r, k = divmod(c, N)
        b = (r // n) * n + k // n
        p = (r % n) * n + k % n
        assert (geo[c], geo[N2 + c], geo[2 * N2 + c], geo[3 * N2 + c]) == (r, k, b, p)
        assert geo[4 * N2 + b * N + p] == c


def restarts(cells, n, rules, escalate_nodes):
    ws = L.workspace(n, 16)
    solution = np.zeros(len(cells), np.uint8)
    count, nodes = L.count_restarts(cells, n, 2, 0, 20, rules, 0, ws, solution, escalate_nodes)
    return int(count), int(nodes), solution.tobytes()


def test_escalation_adds_all_different_once_its_node_budget_is_spent():
    (_, n, cells), *_ = tsv("exact_25x25_45.tsv")
    plain = restarts(cells, n, L.BOX_LINE, 0)
    strong = restarts(cells, n, L.BOX_LINE | L.ALL_DIFFERENT, 0)
    assert plain[1] != strong[1]  # the instance tells the two rule sets apart
    assert restarts(cells, n, L.BOX_LINE | L.ESCALATE, 0) == strong
    assert restarts(cells, n, L.BOX_LINE | L.ESCALATE, 10**9) == plain
    late = restarts(cells, n, L.BOX_LINE | L.ESCALATE, 40)
    assert late[0] == plain[0] == strong[0] == 2
    assert late[1] != plain[1]  # the later runs took the stronger rules


def test_phase_saving_walks_straight_to_the_saved_grid():
    """With PHASE and every cell's saved digit taken from a solution, each branch takes that
    digit first and is never undone: the search meets that solution in at most one node an
    open cell, where the default value order takes more on this instance."""
    (_, n, cells), *_ = tsv("exact_25x25_45.tsv")
    first = np.zeros(len(cells), np.uint8)
    ws = L.workspace(n, 16)
    assert L.count_restarts(cells, n, 1, 0, 20, L.BOX_LINE, 0, ws, first, 0)[0] == 1
    plain = L.search(cells, n, 1, 0, 7, L.BOX_LINE, 0, L.workspace(n, 16), np.zeros_like(first))
    ws = L.workspace(n, 16)
    ws[9][:] = first.astype(np.int8) - 1
    found = np.zeros_like(first)
    count, nodes, *_ = L.search(cells, n, 1, 0, 7, L.BOX_LINE | L.PHASE, 0, ws, found)
    assert count == 1 and np.array_equal(found, first)
    assert nodes <= int((cells == 0).sum()) and nodes < plain[1]
