"""The array forms of the grid puzzles' verifier, costs and texts agree with their cell-by-cell
definitions (written out here as loops) on random puzzles and faulty answers. The loops were
the code: at a million cells (a 999x999 Hashi of 250,000 islands, a 1000x1000 Shikaku) they
took seconds a call, past `--time-limit`."""

from __future__ import annotations

import dataclasses
import types

import numpy as np
import pytest

from cpu_reference import tatham
from cpu_reference.hashi import puzzle as H
from cpu_reference.hashi.generate import generate as hashi_generate
from gpu_anneal.kinds.hashi import Hashi as HashiKind
from gpu_anneal.kinds.shikaku import Shikaku as ShikakuKind


def verify_by_bridge(p, bridges) -> tuple[bool, str]:
    """The Hashi rules, one bridge and one cell at a time (H.verify's contract)."""
    h, w = p.height, p.width
    isl = p.islands
    index = -np.ones((h, w), dtype=np.int64)
    index[isl[:, 0], isl[:, 1]] = np.arange(len(isl))
    used = np.zeros((h, w), dtype=np.int8)
    degree = np.zeros(len(isl), dtype=np.int64)
    seen, pairs = set(), []
    for n, br in enumerate(bridges):
        r1, c1, r2, c2, m = (int(x) for x in br)
        for r, c in ((r1, c1), (r2, c2)):
            if not (0 <= r < h and 0 <= c < w) or index[r, c] < 0:
                return False, f"bridge {n}: end ({r}, {c}) is not an island"
        if (r1, c1) > (r2, c2):
            r1, c1, r2, c2 = r2, c2, r1, c1
        if not 1 <= m <= p.maxb:
            return False, f"bridge {n}: count {m} outside 1..{p.maxb}"
        if (r1 != r2) == (c1 != c2):
            return False, f"bridge {n}: ends not aligned or equal"
        if (r1, c1, r2, c2) in seen:
            return False, f"bridge {n}: pair listed twice"
        seen.add((r1, c1, r2, c2))
        kind = 1 if r1 == r2 else 2
        cells = [(r1, c) for c in range(c1 + 1, c2)] if kind == 1 else []
        cells += [(r, c1) for r in range(r1 + 1, r2)] if kind == 2 else []
        for r, c in cells:
            if index[r, c] >= 0:
                return False, f"bridge {n}: passes over the island at ({r}, {c})"
            if used[r, c]:
                return False, f"bridge {n}: crosses another bridge at ({r}, {c})"
            used[r, c] = kind
        a, b = int(index[r1, c1]), int(index[r2, c2])
        degree[a] += m
        degree[b] += m
        pairs.append((a, b))
    bad = np.nonzero(degree != isl[:, 2])[0]
    if len(bad):
        i = bad[0]
        return False, f"island ({isl[i, 0]}, {isl[i, 1]}): {degree[i]} bridges, value {isl[i, 2]}"
    groups = groups_by_search(len(isl), pairs)
    if groups != 1:
        return False, f"islands form {groups} separate groups"
    if not p.allow_loops and len(pairs) != len(isl) - 1:
        return False, "the bridges form a loop, which this puzzle forbids"
    return True, "ok"


def groups_by_search(count: int, pairs) -> int:
    """Connected groups of `count` islands joined by `pairs`, by depth-first search."""
    near = {i: [] for i in range(count)}
    for a, b in pairs:
        near[a].append(b)
        near[b].append(a)
    seen, groups = set(), 0
    for i in range(count):
        if i in seen:
            continue
        groups += 1
        todo = [i]
        while todo:
            x = todo.pop()
            if x not in seen:
                seen.add(x)
                todo.extend(near[x])
    return groups


def hashi_cost_by_cell(p, state) -> int:
    """The Hashi cost (the Hashi kind's cost), a bridge and a cell at a time."""
    isl = p.islands
    index = {(int(r), int(c)): i for i, (r, c, _) in enumerate(isl)}
    degree = np.zeros(len(isl), np.int64)
    used = np.zeros((p.height, p.width), np.int8)
    crossings, pairs = 0, []
    for r1, c1, r2, c2, m in state:
        a, b = index[(r1, c1)], index[(r2, c2)]
        degree[a] += m
        degree[b] += m
        pairs.append((a, b))
        flag = 1 if r1 == r2 else 2
        for r in range(min(r1, r2), max(r1, r2) + 1):
            for c in range(min(c1, c2), max(c1, c2) + 1):
                if (r, c) not in index:
                    crossings += used[r, c] not in (0, flag)
                    used[r, c] |= flag
    groups = groups_by_search(len(isl), pairs)
    loops = len(pairs) - len(isl) + groups if not p.allow_loops else 0
    return int(np.abs(degree - isl[:, 2]).sum() + crossings + groups - 1 + loops)


def drawing_by_bridge(p, bridges) -> str:
    """H.solution_text's drawing, a bridge and a cell at a time."""
    chars = ".123456789ABCDEFG"
    rows = [[chars[int(v)] for v in row] for row in p.grid]
    for r1, c1, r2, c2, m in bridges:
        if r1 == r2:
            for c in range(min(c1, c2) + 1, max(c1, c2)):
                rows[r1][c] = "-" if m == 1 else "="
        else:
            for r in range(min(r1, r2) + 1, max(r1, r2)):
                rows[r][c1] = "|" if m == 1 else '"'
    return "\n".join("".join(r) for r in rows)


def description_by_cell(cells, parted: str = "_") -> str:
    """Tatham's run-length description (tatham.solo_description's contract), a cell at a time;
    two tokens with no blank between are parted by `parted` (a Hashi game ID: none)."""
    out, run, number_before = [], 0, False
    for v in list(cells) + [None]:
        if v == 0:
            run += 1
            continue
        while run > 0:
            out.append(chr(ord("a") + min(run, 26) - 1))
            run -= min(run, 26)
            number_before = False
        if v is None:
            break
        out.append((parted if number_before else "") + str(v))
        number_before = True
    return "".join(out)


def faulty(bridges: list, p, rng) -> list:
    """A copy of a solution's bridges with one random fault (or none)."""
    b = [list(x) for x in bridges]
    h, w = p.height, p.width
    kind = int(rng.integers(0, 8))
    if kind == 1 and b:
        b.pop(int(rng.integers(len(b))))
    elif kind == 2 and b:
        b.append(list(b[int(rng.integers(len(b)))]))
    elif kind == 3 and b:
        b[int(rng.integers(len(b)))][4] = int(rng.integers(-1, 5))
    elif kind == 4 and b:
        k = int(rng.integers(len(b)))
        b[k] = b[k][2:4] + b[k][0:2] + b[k][4:]
    elif kind == 5:
        row = [int(rng.integers(-1, x + 1)) for x in (h, w, h, w)] + [int(rng.integers(0, 4))]
        b.insert(int(rng.integers(len(b) + 1)), row)
    elif kind == 6:
        isl = p.islands
        a, c = isl[rng.integers(len(isl))], isl[rng.integers(len(isl))]
        row = [int(a[0]), int(a[1]), int(c[0]), int(c[1]), int(rng.integers(1, 3))]
        b.insert(int(rng.integers(len(b) + 1)), row)
    elif kind == 7:  # every candidate edge once: crossings
        g = H.edge_graph(p)
        b = H.bridges_from_mult(p, g, np.ones(len(g.ea), np.int64))
    return b


def random_hashis(count: int, seed: int):
    """(puzzle, solution) pairs of random sizes, a third of them forbidding loops."""
    rng = np.random.default_rng(seed)
    made = 0
    while made < count:
        h, w = (int(x) for x in rng.integers(3, 12, 2))
        p, solution = hashi_generate(h, w, rng)
        if rng.random() < 0.3:
            p = dataclasses.replace(p, allow_loops=False)
        made += 1
        yield p, solution, rng


def test_the_hashi_verifier_agrees_with_its_rules_bridge_by_bridge():
    """600 random puzzles, each answer with one random fault or none: the same verdict and
    message as the loop, and every kind of fault met (so the comparison can fail)."""
    kinds = set()
    for p, solution, rng in random_hashis(600, 3):
        bridges = faulty(solution, p, rng)
        expected = verify_by_bridge(p, bridges)
        assert H.verify(p, bridges) == expected, bridges
        kinds.add(expected[1].split(": ")[1].split()[0] if expected[1].startswith("bridge")
                  else expected[1].split()[0])  # fmt: skip
    assert kinds >= {"ok", "end", "count", "ends", "pair", "passes", "crosses", "island",
                     "the"}, kinds  # fmt: skip


def test_the_hashi_texts_and_cost_agree_with_their_definitions():
    """Game IDs, grid texts, drawings, bridges from multiplicities, component counts and the
    cost on random puzzles and random states of their candidate edges (repeated and
    shuffled)."""
    spec = HashiKind()
    for p, _, rng in random_hashis(300, 5):
        g = H.edge_graph(p)
        mult = rng.integers(0, 3, len(g.ea))
        state = H.bridges_from_mult(p, g, mult)
        isl = p.islands.tolist()
        expected = [[*isl[g.ea[e]][:2], *isl[g.eb[e]][:2], int(mult[e])]
                    for e in np.flatnonzero(mult)]  # fmt: skip
        assert state == expected
        state = state + state[: int(rng.integers(0, len(state) + 1))]
        rng.shuffle(state)
        assert spec.cost(types.SimpleNamespace(puzzle=p), state) == hashi_cost_by_cell(p, state)
        assert H.solution_text(p, state) == drawing_by_bridge(p, state)
        pairs = [(int(g.ea[e]), int(g.eb[e])) for e in np.flatnonzero(mult)]
        assert H.components(len(p.islands), pairs) == groups_by_search(len(p.islands), pairs)
        desc = description_by_cell([0 if v == 0 else ".123456789ABCDEFG"[v]
                                    for v in p.grid.ravel().tolist()], parted="")  # fmt: skip
        loops = "" if p.allow_loops else "L"
        assert H.to_game_id(p) == f"{p.width}x{p.height}m{p.maxb}{loops}:" + desc
        assert H.to_grid_text(p) == drawing_by_bridge(p, [])


@pytest.mark.parametrize("top", [10, 10**3, 10**7])
def test_descriptions_agree_with_their_definition(top):
    """Random rows of blanks and numbers below `top` (runs past 26 blanks, numbers side by
    side, all blank, none blank): the description the loop writes."""
    rng = np.random.default_rng(top)
    for size in list(range(0, 60)) * 20:
        blank = rng.random()
        cells = np.where(rng.random(size) < blank, 0, rng.integers(1, top, size))
        assert tatham.solo_description(cells) == description_by_cell(cells.tolist())
    assert tatham.solo_description(np.zeros(60, np.int64)) == "zzh"


def test_the_shikaku_cost_agrees_with_its_definition():
    """Random rectangles, some past the grid's edge or overlapping: the squared cover less the
    cells, as a loop over the rectangles adds it up."""
    spec = ShikakuKind()
    rng = np.random.default_rng(11)
    for _ in range(500):
        h, w = (int(x) for x in rng.integers(1, 15, 2))
        k = int(rng.integers(0, 12))
        rects = np.column_stack([rng.integers(0, h, k), rng.integers(0, w, k),
                                 rng.integers(1, h + 3, k), rng.integers(1, w + 3, k)])  # fmt: skip
        cover = np.zeros((h, w), np.int64)
        for top, left, height, width in rects:
            cover[top : top + height, left : left + width] += 1
        item = types.SimpleNamespace(puzzle=types.SimpleNamespace(height=h, width=w))
        assert spec.cost(item, rects.tolist()) == int((cover * cover).sum() - h * w)


def test_numbers_past_int64_get_the_loops_messages():
    """A bridge row with a number past int64 (an end far outside, a count of 10**30) is named
    with its number as given, as the loop names it."""
    p = H.parse_grid("2.2\n...\n2.2")
    good = [[0, 0, 0, 2, 1], [0, 0, 2, 0, 1], [2, 0, 2, 2, 1], [0, 2, 2, 2, 1]]
    assert H.verify(p, good) == (True, "ok")
    for bad in ([10**30, 0, 0, 2, 1], [0, 0, -(10**30), 2, 1], [0, 0, 0, 2, 10**30]):
        bridges = [*good[:2], bad]
        expected = verify_by_bridge(p, bridges)
        assert expected[0] is False and str(10**30) in expected[1]
        assert H.verify(p, bridges) == expected


def test_a_fault_early_in_a_long_list_is_found_as_the_loop_finds_it():
    """Islands on every other cell of a 999-wide row and 30,000 bridges between them, the
    second crossing the first: the loop's message (the array form walks the bridges in pieces
    of the grid's size, and stops at the first piece with a fault); then 497 bridges side by
    side and one crossing the first of them."""
    grid = np.zeros((3, 999), np.int32)
    grid[0, ::2] = 1
    p = H.Hashi(3, 999, grid)
    columns = range(0, 999, 2)
    pairs = [[0, a, 0, b, 1] for a in columns for b in columns if a < b][:30_000]
    assert H.verify(p, pairs) == verify_by_bridge(p, pairs)
    assert H.verify(p, pairs)[1] == "bridge 1: crosses another bridge at (0, 1)"
    chain = [[0, a, 0, a + 2, 1] for a in range(0, 996, 2)] + [[0, 0, 0, 4, 1]]
    assert H.verify(p, chain) == verify_by_bridge(p, chain)
    assert H.verify(p, chain)[1] == "bridge 498: crosses another bridge at (0, 1)"


def test_costs_of_rows_off_the_grid_count_nothing_but_themselves():
    """A Hashi row with an end outside the grid adds nothing (no island read by a wrapped
    index); a Shikaku rectangle starting below a wide grid covers nothing (a resume file's
    rows may hold numbers up to the longer side)."""
    p = H.parse_grid("1.1\n...\n1..")
    item = types.SimpleNamespace(puzzle=p)
    empty = HashiKind().cost(item, [])
    for row in ([0, 3, 0, 0, 1], [5, 0, 0, 0, 1], [-1, 0, 0, 0, 1]):
        assert HashiKind().cost(item, [row]) == empty
    wide = types.SimpleNamespace(puzzle=types.SimpleNamespace(height=2, width=5))
    assert ShikakuKind().cost(wide, [[4, 0, 1, 1]]) == -10  # nothing covered: 0 - 10 cells
    assert ShikakuKind().cost(wide, [[1, 4, 3, 3], [4, 0, 1, 1]]) == 1 - 10
