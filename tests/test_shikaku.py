"""Shikaku: formats, verifier, exact cover, generator, annealing."""

import numpy as np
import pytest

from cli.tally import is_summary
from cpu_reference.errors import InputError
from cpu_reference.shikaku import generate as SG
from cpu_reference.shikaku import ilp as SI
from cpu_reference.shikaku import puzzle as S

# A 5x4 puzzle and its only solution (rectangles per clue in reading order).
GRID = "3...2\n..9..\n....6\n....."
SOLUTION = [[0, 0, 1, 3], [0, 3, 1, 2], [1, 0, 3, 3], [1, 3, 3, 2]]


def test_game_id_round_trip_and_tatham_encoding():
    p = S.parse_grid(GRID)
    gid = S.to_game_id(p)
    assert gid == "5x4:3c2b9f6e"
    assert np.array_equal(S.parse_game_id(gid).grid, p.grid)
    # adjacent numbers are separated by '_', params after WxH are ignored
    q = S.parse("3x1e4:1_2a")
    assert q.grid.tolist() == [[1, 2, 0]]


def test_adjacent_numbers_and_spaced_grid():
    p = S.parse_game_id("3x2:2_1c3")
    assert p.grid.tolist() == [[2, 1, 0], [0, 0, 3]]
    assert S.to_game_id(p) == "3x2:2_1c3"
    big = S.parse_grid("12 . . . . .\n. . . . . .")
    assert big.grid[0, 0] == 12 and big.width == 6


def test_verifier_accepts_solution_and_rejects_faults():
    p = S.parse_grid(GRID)
    assert S.verify(p, SOLUTION) == (True, "ok")
    bad = [list(r) for r in SOLUTION]
    bad[0] = [0, 0, 3, 1]  # area right, but overlaps clue 9's rectangle
    assert not S.verify(p, bad)[0]
    assert not S.verify(p, SOLUTION[:3])[0]
    wrong_area = [list(r) for r in SOLUTION]
    wrong_area[1] = [0, 3, 2, 2]
    assert "area" in S.verify(p, wrong_area)[1]


def test_solve_move_and_text():
    p = S.parse_grid(GRID)
    move = S.solve_move(p, SOLUTION)
    assert move[0] == "S" and len(move) == 1 + 4 * 4 + 3 * 5
    # row 0: edges between x-1 and x for x = 1..4: only between columns 2 and 3
    assert move[1:5] == "0010"
    text = S.solution_text(p, SOLUTION)
    assert text.splitlines()[0] == "+--+--+--+--+--+"


def test_candidates_counts_and_pruning():
    p = S.parse_grid(GRID)
    cand, start = S.candidates(p)
    # clue 3 at (0, 0): 1x3 and 3x1 inside the grid
    assert start[1] - start[0] == 2
    pc, ps = S.candidates(p, pruned=True)
    assert len(pc) < len(cand)
    qc, qs = S.propagate(p, pc, ps)
    assert np.all(np.diff(qs) == 1)  # this small puzzle is decided by propagation alone


def test_ilp_solves_and_uniqueness():
    p = S.parse_grid(GRID)
    res = SI.solve_ilp(p)
    assert res["status"] == "optimal"
    assert S.verify(p, res["rects"])[0]
    assert SI.is_unique(p) is True
    two = S.parse_grid("2.\n.2")  # two ways to split a 2x2 square
    assert SI.is_unique(two) is False


def test_ilp_reports_no_solution():
    p = S.parse_grid("3.3\n...")  # each 3 fits only in row 0, which holds both clues
    res = SI.solve_ilp(p)
    assert res["status"] == "infeasible" and res["rects"] is None


@pytest.mark.parametrize("size", [4, 9, 16, 25])
def test_generator_is_seeded_and_valid(size):
    a, sol_a = SG.generate(size, size, np.random.default_rng(7))
    b, sol_b = SG.generate(size, size, np.random.default_rng(7))
    assert np.array_equal(a.grid, b.grid) and sol_a == sol_b
    assert S.verify(a, sol_a)[0]
    res = SI.solve_ilp(a)
    assert S.verify(a, res["rects"])[0]


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("5x4:3c2b9f6f", "more than"),  # one cell too many
        ("5x4:3c2b9f6d", "cells"),  # one cell short
        ("5x4:3c2b9f6!e", "unknown character"),
        ("5x4:3c2b9f5e", "sum"),  # areas sum to 19
        ("x4:3c2b9f6e", "WxH"),
        ("5x4garbage:3c2b9f6e", "parameters 'garbage' after the size"),  # taken before
        ("3...2\n..9.\n....6", "line 2"),
        ("3..x2\n..9..\n....6\n.....", "unknown cell"),
    ],
)
def test_bad_input_one_line_error(text, fragment):
    with pytest.raises(InputError) as err:
        S.parse(text)
    msg = str(err.value)
    assert fragment in msg and "\n" not in msg


def test_anneal_seed_method_solves_small_grids_and_verifies():
    from cpu_reference.shikaku import rules as SA

    for size, seed in ((4, 1), (9, 2)):
        p, _ = SG.generate(size, size, np.random.default_rng(seed))
        res = SA.anneal(p, chains=8, seed=seed, time_limit=20, candidate_set="all")
        assert res["solved"] and res["energy"] == size * size
        assert S.verify(p, res["rects"])[0]


def test_anneal_propagated_solves_25x25_within_bound():
    from cpu_reference.shikaku import rules as SA

    p, _ = SG.generate(25, 25, np.random.default_rng(25))
    res = SA.anneal(p, chains=8, seed=0, time_limit=20, candidate_set="propagated")
    assert res["solved"] and S.verify(p, res["rects"])[0]
    assert res["seconds"] < 20
    # the rectangles as one array, so that a large answer is never a list of lists till written
    assert res["rects"].dtype == np.int64 and res["rects"].shape == (p.n_clues, 4)


def test_anneal_is_reproducible_and_energy_matches_rectangles():
    from cpu_reference.shikaku import rules as SA

    p, _ = SG.generate(12, 12, np.random.default_rng(3))
    kw = dict(chains=4, seed=9, max_trials=1, early_stop=False, n_plateaus=5, plateau=20)
    a = SA.anneal(p, **kw)
    b = SA.anneal(p, **kw)
    assert np.array_equal(a["best_f"], b["best_f"]) and np.array_equal(a["best"], b["best"])
    lab = np.zeros((12, 12), dtype=int)
    for t, left, hh, ww in a["rects"]:
        lab[t : t + hh, left : left + ww] += 1
    assert int((lab**2).sum()) == a["energy"]


def test_anneal_unsolvable_reports_unsolved():
    from cpu_reference.shikaku import rules as SA

    q = S.parse_grid("4..\n...\n..5")  # the 5 has no rectangle inside 3x3
    res = SA.anneal(q, chains=4, seed=0, time_limit=2, max_trials=3, candidate_set="all")
    assert not res["solved"] and res.get("no_solution")
    r = S.parse_grid("4.4\n...\n1..")  # every clue has rectangles, but no cover exists
    assert SI.solve_ilp(r)["status"] == "infeasible"
    res = SA.anneal(r, chains=4, seed=0, time_limit=2, max_trials=3, candidate_set="all")
    assert not res["solved"] and res["energy"] > 9


def test_api_and_cli_solve_generate_render(tmp_path):
    import json

    from typer.testing import CliRunner

    from cli.grid_puzzles import cli_generate, cli_render
    from cli.main import app
    from gpu_anneal.grid_puzzles import generate_grid_puzzles, solve_grid_puzzle

    ids = generate_grid_puzzles("shikaku", 6, 5, 3, seed=4, unique=True)
    assert ids == generate_grid_puzzles("shikaku", 6, 5, 3, seed=4, unique=True)
    assert all(SI.is_unique(S.parse(g)) for g in ids)
    res = solve_grid_puzzle("shikaku", GRID, method="anneal", backend="cpu", chains=4)
    assert (
        res["solved"]
        and res["verified"]
        and res["move"] == S.solve_move(S.parse_grid(GRID), res["solution"]["rectangles"])
    )
    path = tmp_path / "in.txt"
    path.write_text("\n".join(ids) + "\n")
    lines = []

    def cli_solve(file):  # the solve command on a file, by ILP, as JSON lines
        args = ["solve", "--kind", "shikaku", file, "--method", "ilp", "--output", "jsonl"]
        return CliRunner().invoke(app, args)

    result = cli_solve(str(path))
    assert result.exit_code == 0
    records = [json.loads(x) for x in result.stdout.splitlines()]
    assert [r["puzzle"] for r in records] == ids and all(r["verified"] for r in records)
    out = []
    assert cli_generate("shikaku", "6x5", 3, seed=4, unique=True, echo=out.append) == 0
    assert out == ids
    bad = tmp_path / "bad.txt"
    bad.write_text(ids[0] + "\n5x4:3c2b9f5e\n")
    result = cli_solve(str(bad))  # the bad line is one error; the good one is still solved
    assert result.exit_code == 2 and len(result.stdout.splitlines()) == 1
    fault = f"gpu-anneal: {bad} line 2: clue areas sum to 19, the grid has 20 cells"
    assert [x for x in result.stderr.splitlines() if not is_summary(x)] == [fault]
    unsolvable = tmp_path / "none.txt"
    unsolvable.write_text("4.4\n...\n1..\n")
    assert cli_solve(str(unsolvable)).exit_code == 1
    png = tmp_path / "p.png"  # three puzzles: one picture each, p-0.png .. p-2.png
    assert cli_render("shikaku", str(path), str(png), solve=True, echo=lines.append) == 0
    drawn = [tmp_path / f"p-{i}.png" for i in range(3)]
    assert lines == [f"wrote {p}" for p in drawn]
    assert all(p.read_bytes()[:4] == b"\x89PNG" for p in drawn)
    with pytest.raises(InputError, match=r"\.png or \.svg"):
        cli_render("shikaku", str(path), str(tmp_path / "p.gif"))


@pytest.mark.parametrize("params", ["", "e0.5", "e2u", "u"])
def test_tathams_parameters_after_the_size_are_read(params):
    """The parameters Tatham's rect writes after WxH (expansion factor, u) are taken."""
    assert S.parse(f"5x4{params}:3c2b9f6e").n_clues == 4


# ---- the array forms of the verifier and the drawings, against cell-by-cell oracles ------


def _oracle_verify(p, rects):
    """The verifier clue by clue, cell by cell (the definition the array form must keep)."""
    clues = p.clues.tolist()
    rects = np.asarray(rects, dtype=np.int64).reshape(-1, 4).tolist()
    if len(rects) != len(clues):
        return False, f"{len(rects)} rectangles for {len(clues)} clues"
    cover = np.zeros((p.height, p.width), dtype=np.int64)
    for k, ((r, c, v), (t, left, hh, ww)) in enumerate(zip(clues, rects, strict=True)):
        if hh < 1 or ww < 1 or t < 0 or left < 0 or t + hh > p.height or left + ww > p.width:
            return False, f"clue {k}: rectangle {[t, left, hh, ww]} leaves the grid"
        if hh * ww != v:
            return False, f"clue {k}: area {hh * ww} differs from the clue {v}"
        if not (t <= r < t + hh and left <= c < left + ww):
            return False, f"clue {k}: rectangle does not hold its clue cell ({r}, {c})"
        if np.count_nonzero(p.grid[t : t + hh, left : left + ww]) != 1:
            return False, f"clue {k}: rectangle holds another clue"
        cover[t : t + hh, left : left + ww] += 1
    if np.any(cover != 1):
        r, c = np.argwhere(cover != 1)[0]
        return False, f"cell ({r}, {c}) covered {cover[r, c]} times"
    return True, "ok"


def _oracle_text(p, lab):
    """solution_text's drawing line by line."""
    h, w = p.height, p.width
    cw = max(2, len(str(int(p.grid.max()))))
    lines = []
    for r in range(h + 1):
        edges = [r in (0, h) or lab[r - 1, c] != lab[r, c] for c in range(w)]
        lines.append("+" + "".join(("-" if e else " ") * cw + "+" for e in edges))
        if r < h:
            cells = [(str(v) if v else "").rjust(cw) for v in p.grid[r].tolist()]
            seps = ["|" if c == w - 1 or lab[r, c] != lab[r, c + 1] else " " for c in range(w)]
            lines.append("|" + "".join(a + b for a, b in zip(cells, seps, strict=True)))
    return "\n".join(lines)


def _clue_order(p, rects):
    """The generator's rectangles in the clues' reading order."""
    rects = np.asarray(rects)
    return np.array([next(x for x in rects if x[0] <= r < x[0] + x[2] and x[1] <= c < x[1] + x[3])
                     for r, c, _ in p.clues])  # fmt: skip


def test_verifier_labels_and_drawings_agree_with_their_cell_by_cell_definitions():
    """On 150 generated puzzles (sides 1-14, clues up to 3 digits) and ten damaged answers each
    (a field moved by -3..3, a rectangle dropped): verify's verdict and message, labels,
    solution_text and solve_move equal the cell-by-cell forms; messages show plain numbers."""
    rng = np.random.default_rng(11)
    for _ in range(150):
        height, width = (int(x) for x in rng.integers(1, 15, 2))
        p, rects = SG.generate(height, width, rng)
        solution = _clue_order(p, rects)
        assert S.verify(p, solution) == (True, "ok")
        lab = S.labels(p, solution)
        assert S.solution_text(p, solution) == _oracle_text(p, lab)
        across = "".join("1" if lab[y, x - 1] != lab[y, x] else "0"
                         for y in range(height) for x in range(1, width))  # fmt: skip
        down = "".join("1" if lab[y - 1, x] != lab[y, x] else "0"
                       for y in range(1, height) for x in range(width))  # fmt: skip
        assert S.solve_move(p, solution) == "S" + across + down
        for _ in range(10):
            bad = solution.copy()
            k, field = rng.integers(len(bad)), rng.integers(4)
            bad[k, field] += rng.integers(-3, 4)
            if rng.random() < 0.2:
                bad = bad[:-1]
            verdict = S.verify(p, bad)
            assert verdict == _oracle_verify(p, bad)
            assert "np." not in verdict[1]


def test_the_ilp_matrix_and_its_size_cap():
    """The exact cover's matrix, built from arrays (it was Python lists of every candidate's
    cells: 10 GB and 98 s under a 2 s limit at 1000x1000), equals its definition; a puzzle
    whose matrix would pass MAX_COVER_ENTRIES is refused without building it (status
    too_large, a reason naming the count), and its uniqueness is unknown, not False."""
    rng = np.random.default_rng(4)
    for _ in range(30):
        p, _rects = SG.generate(int(rng.integers(1, 12)), int(rng.integers(1, 12)), rng)
        cand, start = S.candidates(p, pruned=True)
        a = SI._matrix(p, cand, start).toarray()
        want = np.zeros_like(a)
        for k in range(len(start) - 1):
            want[k, start[k] : start[k + 1]] = 1
        for col, (t, left, hh, ww) in enumerate(cand):
            for r in range(t, t + hh):
                for c in range(left, left + ww):
                    want[len(start) - 1 + r * p.width + c, col] = 1
        assert np.array_equal(a, want)
        assert SI.cover_entries(cand) == int(want.sum())
    p = S.parse_grid(GRID)
    entries = SI.cover_entries(S.candidates(p, pruned=True)[0])
    cap = SI.MAX_COVER_ENTRIES
    try:
        SI.MAX_COVER_ENTRIES = entries - 1
        refused = SI.solve_ilp(p, time_limit=10)
        assert refused["status"] == "too_large" and refused["rects"] is None
        assert f"would hold {entries:,} entries" in refused["reason"]
        assert SI.is_unique(p, time_limit=10) is None
    finally:
        SI.MAX_COVER_ENTRIES = cap
    assert SI.solve_ilp(p, time_limit=10)["rects"] == SOLUTION
