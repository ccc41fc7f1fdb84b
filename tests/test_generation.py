"""Full grids (anneal, permute, backtrack, impasse), completion of givens, minimal puzzles,
CLI faults.

Minimising uses step = 0.01 (85 annealing steps instead of the seed's 4,250) to stay fast; the
greedy pass still makes every puzzle minimal, which is what these tests check.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from cli.main import app
from cpu_reference.errors import InputError
from cpu_reference.sudoku.exact import count_solutions
from cpu_reference.sudoku.format_writer import format_grid
from cpu_reference.sudoku.formats import parse_line
from cpu_reference.sudoku.verify import verify_solution
from gpu_anneal import generation as gen

runner = CliRunner()

# The easy grid of seed 002, appendix A.1.a.
EASY = "002370900007568402080090000100040800204000706006020001000050010501932600003086200"


def _small_puzzle() -> np.ndarray:
    cells = np.zeros(16, dtype=np.uint8)
    cells[[0, 6, 9, 15]] = [1, 2, 3, 4]
    return cells


@pytest.mark.parametrize("method", gen.METHODS)
@pytest.mark.parametrize("order", [2, 3])
def test_grids_valid(method, order):
    count = 6 if order == 3 and method == "permute" else 12
    grids, stats = gen.generate_grids(order, count, method, seed=5, backend="cpu")
    assert stats["failed"] == []
    assert stats["verified"] == count
    for g in grids:
        assert verify_solution(g, order) is None
    assert len({g.tobytes() for g in grids}) == count  # distinct grids


def test_permute_reports_stuck():
    _, stats = gen.generate_grids(3, 4, "permute", seed=1)
    assert stats["stuck"] >= 1  # pure descent from a random fill rarely reaches 0 at once
    assert stats["restart_budget_spent"] == 0


@pytest.mark.parametrize("method", gen.METHODS)
def test_completes_givens(method):
    if method == "permute":
        order, puzzle = 2, _small_puzzle()
    else:
        order, puzzle = 3, parse_line(EASY)
    grids, stats = gen.generate_grids(order, 3, method, seed=2, backend="cpu", givens=puzzle)
    assert stats["failed"] == []
    for g in grids:
        assert verify_solution(g, order, puzzle) is None
        assert np.all(g[puzzle != 0] == puzzle[puzzle != 0])


@pytest.mark.parametrize("method", ["backtrack", "impasse"])
def test_impossible_givens_fail_cleanly(method):
    bad = np.zeros(16, dtype=np.uint8)
    bad[[0, 5]] = [1, 1]  # same box twice: no completion
    grids, stats = gen.generate_grids(2, 1, method, seed=0, givens=bad)
    assert stats["failed"] == [0]
    assert not grids.any()


def test_impasse_makes_a_64x64_grid_and_says_its_chains():
    """The impasse chains fill an empty 64x64 grid (held at the order's temperature for an
    empty grid); the stats say the chains a grid and their moves."""
    grids, stats = gen.generate_grids(8, 1, "impasse", seed=3, time_limit=120)
    assert stats["failed"] == [] and verify_solution(grids[0], 8) is None
    assert stats["chains_a_grid"] == gen.GRID_CHAINS and stats["moves"] > 0
    assert not stats["time_limit_reached"] and stats["no_solution"] == 0


@pytest.mark.parametrize("groups", [1, 2, 3, 7])
def test_impasse_grids_side_by_side_are_the_grids_one_after_another(groups):
    """Grids of one row of givens, run side by side in 1-7 groups of chains, are each the grid
    impasse_solve gives from its own seed alone, with its moves; generate_grids makes the same."""
    from cpu_reference.sudoku.impasse import impasse_solve
    from gpu_anneal.impasse_solver import temperature_at

    order, count, seed = 4, 5, 6
    row = np.zeros(256, np.uint8)
    seeds = gen.sg.grid_seeds(seed, gen._PURPOSE_IMPASSE, 0, count)
    temperature = temperature_at(order, 0.0)
    grids = np.zeros((count, 256), np.uint8)
    moves = np.zeros(count, np.int64)
    no_solution = np.zeros(count, bool)
    stop = np.zeros(1, np.uint8)
    gen.impasse_side_by_side(row, order, seeds, temperature, grids, moves, no_solution, stop,
                             groups)  # fmt: skip
    for k in range(count):
        alone = impasse_solve(row, order, gen.GRID_CHAINS, int(seeds[k]), temperature, None)
        assert alone["status"] == "solved" and np.array_equal(grids[k], alone["grid"])
        assert moves[k] == alone["moves"]
    assert not no_solution.any() and len({g.tobytes() for g in grids}) == count
    made, stats = gen.generate_grids(order, count, "impasse", seed=seed)
    assert np.array_equal(made, grids) and stats["moves"] == moves.sum()


def test_impasse_side_by_side_stops_and_says_no_solution():
    """A set stop flag makes no grid; a row with no completion sets no_solution on all."""
    seeds = gen.sg.grid_seeds(1, gen._PURPOSE_IMPASSE, 0, 3)
    grids = np.zeros((3, 16), np.uint8)
    moves = np.zeros(3, np.int64)
    no_solution = np.zeros(3, bool)
    stopped = np.ones(1, np.uint8)
    gen.impasse_side_by_side(np.zeros(16, np.uint8), 2, seeds, 0.3, grids, moves, no_solution,
                             stopped)  # fmt: skip
    assert not grids.any() and not moves.any() and not no_solution.any()
    bad = np.zeros(16, np.uint8)
    bad[[0, 5]] = 1  # one box holds 1 twice
    gen.impasse_side_by_side(bad, 2, seeds, 0.3, grids, moves, no_solution, np.zeros(1, np.uint8))
    assert no_solution.all() and not grids.any()


@pytest.fixture(scope="module")
def grids9():
    grids, _ = gen.generate_grids(3, 4, "backtrack", seed=11)
    return grids


def test_minimize_unique_and_minimal(grids9):
    results = gen.minimize_grids(grids9, 3, seed=3, step=0.01)
    assert len(results) == 4
    for rec, grid in zip(results, grids9, strict=True):
        puzzle = rec["puzzle"]
        assert np.array_equal(rec["solution"], grid)
        assert rec["givens"] == int(np.count_nonzero(puzzle))
        assert rec["givens"] <= rec["sa_givens"]
        assert np.all((puzzle == 0) | (puzzle == grid))
        assert count_solutions(puzzle, 3) == 1
        for c in np.flatnonzero(puzzle):
            fewer = puzzle.copy()
            fewer[c] = 0
            assert count_solutions(fewer, 3) >= 2
        assert 17 <= rec["givens"] <= 32
        assert gen.check_minimal(puzzle, 3) == (True, True)


def test_minimize_same_seed_same_puzzles(grids9):
    a = gen.minimize_grids(grids9[:2], 3, seed=8, step=0.01)
    b = gen.minimize_grids(grids9[:2], 3, seed=8, step=0.01)
    c = gen.minimize_grids(grids9[:2], 3, seed=9, step=0.01)
    assert all(np.array_equal(x["puzzle"], y["puzzle"]) for x, y in zip(a, b, strict=True))
    assert any(not np.array_equal(x["puzzle"], y["puzzle"]) for x, y in zip(a, c, strict=True))


def test_minimize_tries_keeps_best(grids9):
    one = gen.minimize_grids(grids9, 3, seed=5, step=0.01, tries=1)
    three = gen.minimize_grids(grids9, 3, seed=5, step=0.01, tries=3)
    for a, b in zip(one, three, strict=True):
        assert b["givens"] <= a["givens"]  # the first try is the tries=1 run
        assert b["checks"] > a["checks"]
        assert gen.check_minimal(b["puzzle"], 3) == (True, True)


def test_same_seed_same_grids():
    for method in ("backtrack", "anneal", "impasse"):
        a, _ = gen.generate_grids(3, 4, method, seed=4, backend="cpu")
        b, _ = gen.generate_grids(3, 4, method, seed=4, backend="cpu")
        assert np.array_equal(a, b)


def test_generate_puzzles_max_givens():
    found, stats = gen.generate_puzzles(3, 2, seed=1, max_givens=25, backend="cpu", step=0.01)
    assert len(found) == 2 and stats["found"] == 2
    assert all(rec["givens"] <= 25 for rec in found)


def test_generate_puzzles_counts_the_grids_it_tried(monkeypatch):
    """grids_tried counts the grids emptied (or not made), not a round's every grid: a round
    left once enough puzzles qualify does not count the grids it never emptied; the shortfall
    line names a givens cap only where one was set."""
    emptied = []
    real = gen.minimize_grids

    def minimize(grids, *args, **kwargs):
        emptied.append(grids.shape[0])
        return real(grids, *args, **kwargs)

    monkeypatch.setattr(gen, "minimize_grids", minimize)
    monkeypatch.setattr(gen, "_threads", lambda: 1)
    found, stats = gen.generate_puzzles(3, 1, seed=0, max_givens=40, backend="cpu", step=0.05)
    assert len(found) == 1 and stats["grids_tried"] == sum(emptied) == 1
    result = runner.invoke(app, ["generate", "--puzzles", "--order", "4", "--count", "2",
                                 "--time-limit", "0.001", "--max-rounds", "1"])  # fmt: skip
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines()[-1] == (
        "gpu-anneal: found 0 of 2 puzzles in 2 grids tried"
    )


def test_a_later_chunk_does_not_warn_of_a_limit_the_caller_never_set(monkeypatch):
    """A chunk that starts with little of its window left runs under what is left; the
    solver's warning of a limit shorter than a plateau is not raised for it."""
    import warnings

    seen = []
    real = gen.solve_batch

    def solve(rows, order, **kwargs):
        seen.append(kwargs["time_limit"])
        if kwargs["time_limit"] is not None:  # as if every plateau outlasted any limit
            warnings.warn("a plateau takes longer than the limit", gen.LimitWarning, stacklevel=2)
        return real(rows, order, **kwargs)

    monkeypatch.setattr(gen, "solve_batch", solve)
    monkeypatch.setattr(gen, "MAX_CHUNK", 2 * gen._threads())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gen.generate_grids(2, 12, "anneal", seed=1, backend="cpu", time_limit=30)
    limits = [t for t in seen if t is not None]
    assert len(limits) >= 2 and limits[0] == 30
    assert len([w for w in caught if issubclass(w.category, gen.LimitWarning)]) == 1


def test_emptying_chunks_start_at_a_grid_a_thread_and_grow_to_their_cap(monkeypatch):
    """Slow chunks: one grid a thread, then doubling up to EMPTY_CHUNK_PER_THREAD a thread;
    quick chunks grow past it (paced); the ranges cover every grid once, in order."""
    monkeypatch.setattr(gen, "_threads", lambda: 2)
    monkeypatch.setattr(gen, "EMPTY_CHUNK_PER_THREAD", 4)
    monkeypatch.setattr(gen, "CHUNK_SECONDS", 0.0)
    slow = list(gen.emptying_chunks(40))
    assert [hi - lo for lo, hi in slow] == [2, 4, 8, 8, 8, 8, 2]
    assert [lo for lo, _ in slow] == [0, 2, 6, 14, 22, 30, 38]
    monkeypatch.setattr(gen, "CHUNK_SECONDS", 1e9)
    quick = [hi - lo for lo, hi in gen.emptying_chunks(100)]
    assert quick[0] == 2 and max(quick) > 8 and sum(quick) == 100


def test_generate_puzzles_reports_each_chunk_of_a_round_as_it_ends(monkeypatch):
    """A round's grids are emptied a chunk at a time and each chunk's puzzles reported before
    the next is emptied (a stop keeps them); the puzzles are those of one whole-round pass."""
    whole, _ = gen.generate_puzzles(3, 5, seed=4, backend="cpu", step=0.05)
    events = []
    real = gen.minimize_grids

    def minimize(grids, *args, **kwargs):
        events.append(("empty", grids.shape[0]))
        return real(grids, *args, **kwargs)

    monkeypatch.setattr(gen, "minimize_grids", minimize)
    monkeypatch.setattr(gen, "_threads", lambda: 1)
    monkeypatch.setattr(gen, "EMPTY_CHUNK_PER_THREAD", 2)
    monkeypatch.setattr(gen, "CHUNK_SECONDS", 0.0)  # every chunk slow: 1 grid, then 2, 2

    def reported(rec):
        events.append(("puzzle", rec["index"]))

    found, _ = gen.generate_puzzles(3, 5, seed=4, backend="cpu", step=0.05, on_puzzle=reported)
    assert events == [("empty", 1), ("puzzle", 0), ("empty", 2), ("puzzle", 1), ("puzzle", 2),
                      ("empty", 2), ("puzzle", 3), ("puzzle", 4)]  # fmt: skip
    assert all(np.array_equal(a["puzzle"], b["puzzle"]) for a, b in zip(whole, found, strict=True))


def test_cli_generate_and_minimize(tmp_path, grids9):
    result = runner.invoke(
        app, ["generate", "--count", "3", "--method", "backtrack", "--seed", "1"]
    )
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.split()
    assert len(lines) == 3
    for line in lines:
        assert verify_solution(parse_line(line), 3) is None
    path = tmp_path / "grids.txt"
    path.write_text("\n".join(format_grid(g, 3, "line") for g in grids9[:2]) + "\n")
    args = ["minimize", str(path), "--seed", "2", "--step", "0.01", "--output", "jsonl"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.stderr
    records = [json.loads(x) for x in result.stdout.splitlines()]
    assert [r["index"] for r in records] == [0, 1]
    for r in records:
        assert count_solutions(parse_line(r["puzzle"]), 3) == 1
        assert r["givens"] == sum(ch != "." for ch in r["puzzle"])


def test_cli_from_file(tmp_path):
    path = tmp_path / "easy.txt"
    path.write_text(EASY + "\n")
    result = runner.invoke(app, ["generate", "--from", str(path), "--method", "anneal",
                                 "--backend", "cpu", "--count", "2"])  # fmt: skip
    assert result.exit_code == 0, result.stderr
    puzzle = parse_line(EASY)
    for line in result.stdout.split():
        assert verify_solution(parse_line(line), 3, puzzle) is None


def test_cli_from_file_completes_the_good_puzzles_past_a_bad_one(tmp_path):
    """generate --from stopped at the file's first bad puzzle, the good ones after it never
    completed. Each bad puzzle is one line, the others are completed, exit 2 at the end."""
    path = tmp_path / "mixed.txt"
    path.write_text("12345\n" + EASY + "\n" + "1" * 81 + "\n")
    result = runner.invoke(app, ["generate", "--from", str(path), "--method", "backtrack",
                                 "--count", "1", "--output", "jsonl"])  # fmt: skip
    assert result.exit_code == 2, result.stderr
    (record,) = [json.loads(x) for x in result.stdout.splitlines()]
    assert record["index"] == 0
    assert verify_solution(parse_line(record["grid"]), 3, parse_line(EASY)) is None
    lines = [x for x in result.stderr.splitlines() if x.strip()]
    assert lines[0].startswith(f"gpu-anneal: {path} line 1: 5 cells")
    assert lines[1].startswith(f"gpu-anneal: {path} line 3: ")
    assert lines[-1] == f"gpu-anneal: 2 bad puzzle(s) of {path} left out"


def _one_line_error(result) -> None:
    assert result.exit_code == 2, result.stdout
    lines = [x for x in result.stderr.splitlines() if x.strip()]
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["generate", "--count", "0"],
        ["generate", "--order", "9"],
        ["generate", "--method", "guess"],
        ["generate", "--order", "7", "--method", "impasse", "--backend", "cpu"],
        ["generate", "--puzzles", "--max-givens", "-1"],
        ["generate", "--puzzles", "--tf", "2", "--ti", "1"],
        ["minimize", "--count", "2", "--tf", "1", "--ti", "1"],
        ["minimize", "--count", "2", "--step", "0"],
        ["minimize", "--count", "2", "--step", "-0.1"],
        ["minimize", "--count", "0"],
    ],
)
def test_cli_bad_parameters(args):
    _one_line_error(runner.invoke(app, args))


@pytest.mark.parametrize(
    "args, message",
    [
        (["generate", "--puzzles", "--tf", "2", "--ti", "1"], "tf 2.0: must be below ti 1.0"),
        (["minimize", "--count", "2", "--step", "1e-12"], "from ti 1.0 to tf 0.15"),
    ],
)
def test_cli_temperature_faults_name_the_flags(args, message):
    """The emptying's temperature faults name --ti, --tf and --step as the user spells them."""
    result = runner.invoke(app, args)
    _one_line_error(result)
    assert message in result.stderr


def test_cli_bad_grids(tmp_path, grids9):
    """A file whose only grid is bad: its fault, then the file's closing line (a bad grid is
    reported and passed over, tests/test_bench_minimize_faults.py), exit code 2."""
    bad = grids9[0].copy()
    bad[[0, 1]] = bad[[1, 0]]  # swap two cells of a row: columns now repeat
    path = tmp_path / "bad.txt"
    closing = f"gpu-anneal: {path}: no usable grid"
    path.write_text(format_grid(bad, 3, "line") + "\n")
    _error_then(runner.invoke(app, ["minimize", str(path)]), closing)
    path.write_text(EASY + "\n")  # has blanks: not a full grid
    _error_then(runner.invoke(app, ["minimize", str(path)]), closing)
    path.write_text(format_grid(grids9[0], 3, "line") + "\n")
    _error_then(runner.invoke(app, ["minimize", str(path), "--order", "2"]), closing)


def _error_then(result, closing: str) -> None:
    """Exit code 2, one fault line, then `closing`; no traceback."""
    assert result.exit_code == 2, result.stdout
    lines = [x for x in result.stderr.splitlines() if x.strip()]
    assert len(lines) == 2 and lines[1] == closing, result.stderr
    assert lines[0].startswith("gpu-anneal: ") and "Traceback" not in result.stderr


def test_cli_delegates_grid_puzzles(monkeypatch):
    import cli.grid_puzzles as gp

    calls = []

    def fake(kind, size, count, seed, unique, echo=print, **_):
        calls.append((kind, size, count, seed, unique))
        echo("ID")
        return 0

    monkeypatch.setattr(gp, "cli_generate", fake)
    args = ["generate", "--kind", "hashi", "--size", "7x5", "--count", "2", "--seed", "3"]
    result = runner.invoke(app, [*args, "--unique"])
    assert result.exit_code == 0
    assert calls == [("hashi", "7x5", 2, 3, True)]
    assert result.stdout.strip() == "ID"


@pytest.mark.parametrize(
    "method, option, fault",
    [("permute", dict(batch=8), "batch applies to method anneal, not permute"),
     ("backtrack", dict(schedule="sirdey-course"), "schedule applies to method anneal, not "),
     ("anneal", dict(max_nodes=100), "max_nodes applies to method backtrack, not anneal"),
     ("impasse", dict(moves="row"), "moves applies to method permute, not impasse"),
     ("backtrack", dict(patience=3), "patience applies to method permute, not backtrack"),
     ("anneal", dict(max_restarts=5), "max_restarts applies to method permute, not anneal"),
     ("permute", dict(backend="cuda"), "backend 'cuda': method permute runs on the CPU alone")],
)  # fmt: skip
def test_an_option_of_another_method_is_refused(method, option, fault):
    """generate_grids took `batch` with permute and `max_nodes` with anneal and used neither,
    where the command line refuses an option its method does not take."""
    with pytest.raises(InputError, match="^" + re.escape(fault)):
        gen.generate_grids(2, 1, method, seed=1, **option)
    with pytest.raises(InputError, match="^" + re.escape(fault)):
        gen.generate_puzzles(2, 1, seed=1, method=method, **_split(option))


def _split(option: dict) -> dict:
    """generate_puzzles' arguments for one of generate_grids' options: backend is its own."""
    return dict(option) if "backend" in option else {"grid_options": option}


def test_each_method_takes_its_own_options():
    """The other side: each method's options are taken by it."""
    for method, option in [("anneal", dict(batch=2, schedule="sirdey-course")),
                           ("permute", dict(moves="row", patience=500, max_restarts=1000)),
                           ("backtrack", dict(max_nodes=10**6))]:  # fmt: skip
        grids, stats = gen.generate_grids(2, 2, method, seed=1, backend="cpu", **option)
        assert stats["failed"] == [] and grids.shape == (2, 16), (method, option)


def _full_grid() -> np.ndarray:
    """A valid 9x9 grid as int64 (so that values past 255 stay what they are)."""
    return gen.generate_grids(3, 1, "permute", seed=1)[0][0].astype(np.int64)


@pytest.mark.parametrize(
    "call, fault",
    [(lambda S: gen.minimize_grids(np.where(S == 1, 257, S).astype(np.uint16), 3),
      "grids: puzzle 0 cell r1c4 holds 257; cells must be in 0..9"),
     (lambda S: gen.check_minimal(np.where(S == 4, 260, S).astype(np.uint16), 3),
      "puzzle: puzzle 0 cell r1c8 holds 260"),
     (lambda S: gen.generate_grids(3, 1, "backtrack", givens=S * 0 + 0.7),
      "givens: array of dtype float64; expected integers"),
     (lambda S: gen.check_minimal(S[:80], 3), "puzzle: an array of shape (80,)"),
     (lambda S: gen.check_minimal(np.stack([S, S]), 3), "puzzle: 2 grids; check_minimal takes one"),
     (lambda S: gen.generate_grids(2, 1, "permute", first_index=-1), "first_index -1: must be"),
     (lambda S: gen.generate_grids(2, 1, "anneal", batch=0), "batch 0: must be an integer"),
     (lambda S: gen.generate_grids(2, 1, "anneal", schedule=1), "schedule 1: expected a"),
     (lambda S: gen.minimize_grids(S, 3, ti="1"), "ti '1': must be a finite number"),
     (lambda S: gen.minimize_grids(S, 3, ti=1e308), "ti 1e+308: must be a finite number"),
     (lambda S: gen.generate_puzzles(2, 2, batch=-1), "batch -1: must be an integer"),
     (lambda S: gen.generate_grids(2, 1, "permute", backend="bogus"),
      "backend 'bogus': expected one of auto, cpu, cuda")],
)  # fmt: skip
def test_bad_arrays_and_arguments_are_refused_by_name(call, fault):
    """A 257 was wrapped to 1 and a 4.7 truncated to 4 (a grid holding an impossible value
    minimised, check_minimal saying (True, True)); a wrong shape, index, batch, schedule or
    temperature raised deep in numpy or numba, or named `count`."""
    with pytest.raises(InputError) as err:
        call(_full_grid())
    assert str(err.value).startswith(fault) and "\n" not in str(err.value)


def test_a_seed_of_none_is_the_default():
    """seed=None raised TypeError deep in the generators; it is the default seed."""
    grids = gen.generate_grids(2, 2, "permute", seed=None)[0]
    assert np.array_equal(grids, gen.generate_grids(2, 2, "permute")[0])
    (row,) = gen.minimize_grids(grids[0], 2, seed=None)
    assert row["puzzle"].tolist() == gen.minimize_grids(grids[0], 2)[0]["puzzle"].tolist()


@pytest.mark.parametrize(
    "call, fault",
    [(lambda: gen.minimize_grids(np.ones(81, np.uint8), 3, check_grids="no"),
      "check_grids 'no': must be True or False"),
     (lambda: gen.generate_puzzles(2, 1, on_puzzle="x"), "on_puzzle 'x': must be a function"),
     (lambda: gen.generate_puzzles(2, 1, grid_options="x"), "grid_options 'x': must be a dict")],
)  # fmt: skip
def test_flags_and_hooks_of_the_generators_are_checked(call, fault):
    """check_grids='no' was taken as true, on_puzzle='x' and grid_options='x' raised TypeError."""
    with pytest.raises(InputError, match=f"^{fault}"):
        call()


def test_givens_as_one_square_grid_make_one_grid():
    """Givens of shape (9, 9) (one grid, as solve takes it) make one grid when no count is
    given, not nine; a (2, 81) array makes two."""
    full = _full_grid().astype(np.uint8)
    givens = full.copy()
    givens[::2] = 0
    (one,) = gen.generate_grids(3, None, "backtrack", givens=givens.reshape(9, 9))[0]
    assert verify_solution(one, 3) is None and np.array_equal(one[givens > 0], givens[givens > 0])
    two = gen.generate_grids(3, None, "backtrack", givens=np.stack([givens] * 2))[0]
    assert two.shape == (2, 81)


@pytest.mark.parametrize("method", gen.METHODS)
def test_chunks_change_no_grid_and_each_grid_is_reported_once(monkeypatch, method):
    """Grids are made a chunk at a time and handed to on_grid as they end: every index once,
    each the grid returned; chunks of 1 growing to 2 give the grids and counts of one chunk."""
    count, order = 7, 3 if method != "impasse" else 2
    seen = {}

    def on_grid(i, grid):
        seen.setdefault(i, []).append(grid)

    grids, stats = gen.generate_grids(order, count, method, seed=5, backend="cpu", on_grid=on_grid)
    assert sorted(seen) == list(range(count)) and all(len(v) == 1 for v in seen.values())
    assert all(np.array_equal(seen[i][0], grids[i]) for i in range(count))
    monkeypatch.setattr(gen, "FIRST_CHUNK_PER_THREAD", 1)
    monkeypatch.setattr(gen, "_threads", lambda: 1)
    monkeypatch.setattr(gen, "MAX_CHUNK", 2)
    monkeypatch.setattr(gen, "CHUNK_SECONDS", 1e9)
    small, small_stats = gen.generate_grids(order, count, method, seed=5, backend="cpu")
    assert np.array_equal(small, grids)
    counts = ("trials", "proposals", "moves", "nodes", "restarts", "stuck", "no_solution")
    for key in (k for k in counts if isinstance(stats.get(k), int)):
        assert small_stats[key] == stats[key], key


def test_a_limit_that_cuts_the_call_keeps_the_chunks_made(monkeypatch):
    """A time limit reached part way keeps the grids of the chunks that ended, and reports
    the rest not found (a chunk at a time, so the first grids are not lost with the last)."""
    calls = []
    real = gen._backtrack

    def slow(rows, first_index, time_limit, **kw):
        calls.append(rows.shape[0])
        if len(calls) > 2:  # the compiling call, then one chunk; later chunks take the limit
            import time

            time.sleep(time_limit + 0.05)
        return real(rows, first_index, time_limit, **kw)

    monkeypatch.setitem(gen._METHOD_RUNS, "backtrack", slow)
    monkeypatch.setattr(gen, "MAX_CHUNK", 2 * gen._threads())  # chunks of the first's size
    grids, stats = gen.generate_grids(3, 40, "backtrack", seed=2, time_limit=0.5)
    first = 2 * gen._threads()
    assert calls[:2] == [0, first]
    assert stats["time_limit_reached"] and stats["verified"] >= first
    assert all(verify_solution(grids[i], 3) is None for i in range(first))
    assert set(stats["failed"]) == set(range(stats["verified"], 40))


def test_time_spent_reporting_grids_is_not_counted_in_the_limit(monkeypatch):
    """A slow on_grid (a reader of the output that is behind) costs no grid: the limit counts
    the making of grids alone."""
    import time

    monkeypatch.setattr(gen, "MAX_CHUNK", 2 * gen._threads())

    def slow_reader(i, grid):
        time.sleep(0.02)

    grids, stats = gen.generate_grids(3, 60, "backtrack", seed=2, time_limit=0.5,
                                      on_grid=slow_reader)  # fmt: skip
    assert stats["verified"] == 60 and not stats["time_limit_reached"]


def test_a_chunk_the_limit_stopped_is_the_last_of_its_window(monkeypatch):
    """Once the limit stops a chunk part way, no later chunk of that window is made (the time
    spent checking the cut chunk does not buy another one)."""
    calls = []
    real = gen._backtrack

    def cut(rows, first_index, time_limit, **kw):
        calls.append(rows.shape[0])
        grids, stats = real(rows, first_index, time_limit, **kw)
        if len(calls) == 2:  # the first chunk after the compiling call: as if cut
            grids[1:] = 0
            stats["time_limit_reached"] = True
        return grids, stats

    monkeypatch.setitem(gen._METHOD_RUNS, "backtrack", cut)
    grids, stats = gen.generate_grids(3, 40, "backtrack", seed=2, time_limit=30)
    assert len(calls) == 2
    assert stats["verified"] == 1 and stats["failed"] == list(range(1, 40))


def test_anneal_stats_always_say_whether_the_limit_was_reached():
    """time_limit_reached is in anneal's stats with or without a limit, true only when grids
    were left unmade by it."""
    _, easy = gen.generate_grids(2, 3, "anneal", seed=1, backend="cpu", time_limit=30)
    _, free = gen.generate_grids(2, 3, "anneal", seed=1, backend="cpu", time_limit=None)
    _, tight = gen.generate_grids(5, 4, "anneal", seed=1, backend="cpu", time_limit=0.001)
    assert easy["time_limit_reached"] is False and free["time_limit_reached"] is False
    assert tight["verified"] < 4 and tight["time_limit_reached"] is True


def test_generate_prints_grids_as_they_are_made_and_a_stop_keeps_them(tmp_path):
    """`generate` prints each grid once it and the grids before it are made, so SIGTERM part
    way keeps what was printed (it printed nothing until every grid was made)."""
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "grids.txt"
    with out.open("w") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-m", "cli.main", "generate", "--order", "4", "--count", "5000",
             "--time-limit", "0"],
            stdout=sink, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        start = time.time()
        while time.time() < start + 120 and not out.read_text().count("\n"):
            time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=60)
    lines = out.read_text().splitlines()
    assert proc.returncode == 143, stderr
    assert 1 <= len(lines) < 5000, (len(lines), stderr)
    assert all(verify_solution(parse_line(line, 4), 4) is None for line in lines)
