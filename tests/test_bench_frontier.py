"""benchmarks/bench_frontier.py: Lewis-style instances, Lloyd & Amos files, and the benchmark run
end to end on 9x9 (gpu-anneal always; CP-SAT and CaDiCaL where their package is installed), with
every reported solution through the verifier, and a refused order reported as refused."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks import bench_frontier as bf
from benchmarks import summary
from benchmarks.frontier_instances import (
    full_grids,
    kept_count,
    lloyd_amos_text,
    make_instances,
    pattern_grid,
    read_lloyd_amos,
    write_lloyd_amos,
)
from cpu_reference.sudoku.layout import MAX_ORDER
from cpu_reference.sudoku.verify import verify_solution


@pytest.mark.parametrize("order", [2, 3, 5, 7, 8, 9])
def test_pattern_grid_is_valid_and_random(order):
    """Every shuffled pattern grid is a valid full grid; two seeds give two grids."""
    a = pattern_grid(order, np.random.default_rng(1))
    b = pattern_grid(order, np.random.default_rng(2))
    assert verify_solution(a, order) is None
    assert verify_solution(b, order) is None
    assert not np.array_equal(a, b)


def test_instances_are_lewis_style_and_fixed_by_the_seed():
    """ceil(f x N^2 / 100) givens, each the cut grid's, the grid valid; one grid per (order, k)
    for every fill; the same seed gives the same instances, another seed others; an instance
    does not depend on how many a run asks for."""
    made = make_instances([3, 7], [40, 55], 2, seed=4)
    assert [i.name for i in made[:4]] == [
        "inst9x9_40_0", "inst9x9_40_1", "inst9x9_55_0", "inst9x9_55_1",
    ]  # fmt: skip
    for inst in made:
        given = inst.cells != 0
        assert given.sum() == kept_count(inst.order, inst.fill)
        assert np.array_equal(inst.cells[given], inst.grid[given])
        assert verify_solution(inst.grid, inst.order, inst.cells) is None
    assert kept_count(6, 45) == 584 and kept_count(8, 50) == 2048 and kept_count(7, 45) == 1081
    by_name = {i.name: i for i in made}
    assert np.array_equal(by_name["inst49x49_40_1"].grid, by_name["inst49x49_55_1"].grid)
    assert not np.array_equal(by_name["inst49x49_40_0"].grid, by_name["inst49x49_40_1"].grid)
    again = make_instances([3, 7], [40, 55], 2, seed=4)
    assert all(np.array_equal(a.cells, b.cells) for a, b in zip(made, again, strict=True))
    other = make_instances([7], [40], 1, seed=5)[0]
    assert not np.array_equal(other.cells, by_name["inst49x49_40_0"].cells)
    alone = make_instances([7], [55], 1, seed=4)[0]
    assert np.array_equal(alone.cells, by_name["inst49x49_55_0"].cells)


def test_lloyd_amos_file_round_trip_and_faults(tmp_path):
    """The published layout (order, `1`, N tab-ended rows, -1 blank) written and read back, CRLF
    too; a 64x64 file with 63 rows and a 49x49 file holding 50 are refused by name."""
    inst = make_instances([3], [45], 1, seed=1)[0]
    text = lloyd_amos_text(3, inst.cells)
    lines = text.split("\n")
    assert lines[:2] == ["3", "1"] and len(lines) == 12 and lines[-1] == ""
    first = [int(x) for x in lines[2].rstrip("\t").split("\t")]
    assert lines[2].endswith("\t") and first == [v or -1 for v in inst.cells[:9]]
    path = tmp_path / "a.txt"
    write_lloyd_amos(path, 3, inst.cells)
    assert path.read_text() == text
    order, cells = read_lloyd_amos(path)
    assert order == 3 and np.array_equal(cells, inst.cells)
    path.write_bytes(text.replace("\n", "\r\n").encode())
    assert np.array_equal(read_lloyd_amos(path)[1], inst.cells)
    big = make_instances([8], [45], 1, seed=1)[0]
    short = "\n".join(lloyd_amos_text(8, big.cells).split("\n")[:-2]) + "\n"
    path.write_text(short)
    with pytest.raises(ValueError, match="63 rows, expected 64"):
        read_lloyd_amos(path)
    grid = make_instances([7], [45], 1, seed=1)[0].grid.copy()
    grid[5] = 50
    write_lloyd_amos(path, 7, grid)
    with pytest.raises(ValueError, match="line 3: value 50 outside 1..49"):
        read_lloyd_amos(path)


def test_outcomes_are_checked_by_the_verifier():
    """A solution the verifier refuses is 'wrong' and unsolved; a good one after the limit is
    'over limit'; 'solved' without a solution is not solved."""
    inst = make_instances([3], [45], 1, seed=1)[0]
    good = {"status": "solved", "seconds": 0.5, "solution": inst.grid.tolist()}
    assert bf.checked(good, inst, 1.0) | {} == {
        "status": "solved", "seconds": 0.5, "verified": True, "solved": True,
    }  # fmt: skip
    bad = inst.grid.copy()
    bad[[0, 1]] = bad[[1, 0]]
    wrong = bf.checked({"status": "solved", "seconds": 0.5, "solution": bad}, inst, 1.0)
    assert wrong["status"].startswith("wrong: ") and not wrong["solved"] and not wrong["verified"]
    late = bf.checked({**good, "seconds": 1.5}, inst, 1.0)
    assert late["status"] == "over limit" and not late["solved"]
    empty = bf.checked({"status": "solved", "seconds": 0.1}, inst, 1.0)
    assert not empty["solved"] and empty["status"].startswith("wrong")


def test_refusal_timeout_and_medians_read_from_processes():
    """The engine's exit without a record is 'refused: MESSAGE' (its prefix dropped); a killed
    process is a timeout; a median over unsolved instances reads '> LIMIT' with solved times."""
    proc = {"code": 2, "stdout": "", "stderr": "gpu-anneal: <stdin> line 1: order field '7' is "
            "not an order 2..6\n", "wall": 1.0}  # fmt: skip
    assert bf.gpu_anneal_outcome(proc) == {
        "status": "refused: order field '7' is not an order 2..6"
    }
    assert bf.gpu_anneal_outcome({**proc, "code": None})["status"] == "timeout"
    record = {"solved": True, "status": "solved", "timing": {"search": 2.0},
              "counts": {"chain_proposals": 1_234_567}, "params": {"chains": 1024}}  # fmt: skip
    read = bf.gpu_anneal_outcome({**proc, "code": 0, "stdout": json.dumps(record) + "\n"})
    assert read["chain_moves"] == 1_234_567 and read["chains"] == 1024
    assert bf.peer_outcome({**proc, "code": -14})["status"] == "timeout"
    killed = bf.run_process(["sleep", "5"], 0.2)
    assert killed["code"] is None and killed["wall"] < 4
    times = ((True, 1.25), (True, 7.8), (False, 20), (False, 20), (False, 20))
    rows = [{"solved": s, "seconds": t, "status": "solved" if s else "timeout"} for s, t in times]
    entry = {"limit": 20.0, **bf.cell_summary(rows)}
    assert entry["median"] is None and entry["solved"] == 2
    assert bf.cell_text(entry) == "2/5, median > 20 s (1.25 s, 7.8 s)"
    entry = {"limit": 20.0, **bf.cell_summary(rows[:2] + rows[2:3])}
    assert bf.cell_text(entry) == "2/3, median 7.8 s"


@pytest.mark.parametrize(
    "argv, fault",
    [
        (["--orders", "36x35"], "is not NxN"),
        (["--solvers", "gpu-anneal,minisat"], "'minisat' is not one of"),
        (["--limit", "6:20", "--orders", "6,7"], "no limit for order 7"),
        (["--fills", "120"], "percentage"),
        (["--out", "results/tune_t0_0.30"], "without a suffix"),
    ],
)
def test_bad_options_exit_with_one_line(argv, fault, capsys):
    with pytest.raises(SystemExit) as e:
        bf.main(argv)
    assert e.value.code == 2
    assert fault in capsys.readouterr().err.strip().splitlines()[-1]


def is_pattern_image(grid: np.ndarray, order: int) -> bool:
    """Whether a full grid may be a shuffled pattern grid: in the pattern (and in every image
    of it under band, row, stack and column permutations, relabelling and transposition), the
    rows of a band split the digits alike: each row's n pieces (its cells in each stack) are the
    same n sets of digits, in another order (or so the columns of a stack)."""
    n, N = order, order * order
    g = grid.reshape(N, N)

    def pieces(row: np.ndarray) -> frozenset:
        return frozenset(frozenset(row[s * n : s * n + n].tolist()) for s in range(n))

    def bands_agree(x: np.ndarray) -> bool:
        return all(len({pieces(x[b * n + i]) for i in range(n)}) == 1 for b in range(n))

    return bands_agree(g) or bands_agree(g.T)


@pytest.mark.parametrize("order", [3, 7])
def test_full_grids_by_source(order):
    """by-order: the generator at 9x9, a pattern image at 49x49; generator: the generator's
    random grids at every order, none a pattern image, each fixed by (seed, order, k)."""
    by_order, by_order_method = full_grids(order, 2, seed=3)
    generated, method = full_grids(order, 2, seed=3, source="generator")
    assert method == "generate_grids backtrack"
    for grid in generated:
        assert verify_solution(grid, order) is None
        assert not is_pattern_image(grid, order)
    assert is_pattern_image(by_order[0], order) == (order == 7)
    assert (by_order_method == method) == (order == 3)
    assert np.array_equal(full_grids(order, 1, seed=3, source="generator")[0][0], generated[0])
    assert not np.array_equal(generated[0], generated[1])
    made = make_instances([order], [50], 2, 3, "generator")
    assert all(np.array_equal(i.grid, g) for i, g in zip(made, generated, strict=True))
    with pytest.raises(ValueError, match="full grids 'pattern'"):
        full_grids(order, 1, seed=3, source="pattern")


def test_the_generators_instances_clash_with_the_patterns_under_one_name(tmp_path, capsys):
    """A folder of the default's 49x49 instance (from a pattern grid) stops a --full-grids
    generator run of the same seed in one line naming the file and the source."""
    folder = tmp_path / "inst"
    folder.mkdir()
    pattern = make_instances([7], [45], 1, 1)[0]
    path = folder / f"{pattern.name}.txt"
    path.write_text(lloyd_amos_text(7, pattern.cells))
    argv = ["--orders", "49x49", "--fills", "45", "--count", "1", "--instances", str(folder)]
    with pytest.raises(SystemExit) as e:
        bf.main([*argv, "--full-grids", "generator", "--out", str(tmp_path / "out")])
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert e.value.code == 2 and str(path) in line and "--full-grids generator" in line
    assert bf.instance_clash(bf.parse_args(argv)) is None


def test_the_report_names_where_its_full_grids_came_from():
    """grids_text: pattern grids above 36x36 unless every run took the generator's."""
    assert "pattern" in bf.grids_text({"by-order"})
    assert "pattern" not in bf.grids_text({"generator"})
    assert "--full-grids generator" in bf.grids_text({"by-order", "generator"})


def test_another_seeds_instance_under_the_same_name_is_kept_and_named(tmp_path, capsys):
    """A folder holding seed 2's 16x16 instance under the name seed 1 gives it: the run stops
    in one line naming the file and the seed, and the file is kept; the same instance's file
    is no clash."""
    folder = tmp_path / "inst"
    folder.mkdir()
    other = make_instances([4], [45], 1, 2)[0]
    path = folder / f"{other.name}.txt"
    text = lloyd_amos_text(4, other.cells)
    path.write_text(text)
    argv = ["--orders", "16x16", "--fills", "45", "--count", "1", "--instances", str(folder)]
    with pytest.raises(SystemExit) as e:
        bf.main([*argv, "--seed", "1", "--out", str(tmp_path / "out")])
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert e.value.code == 2 and str(path) in line and "--seed 1" in line
    assert path.read_text() == text
    assert bf.instance_clash(bf.parse_args([*argv, "--seed", "2"])) is None


def run_bench(tmp_path, *args) -> dict:
    """bench_frontier on tmp_path; its results JSON, after checking the .md was written."""
    out = tmp_path / "res" / "frontier" / "frontier"
    assert bf.main([*args, "--instances", str(tmp_path / "inst"), "--out", str(out)]) == 0
    assert out.with_suffix(".md").read_text().startswith("# Large Sudoku")
    return json.loads(out.with_suffix(".json").read_text())


def solvers_here() -> list[str]:
    """gpu-anneal, and each peer whose package is installed."""
    import importlib.util

    return ["gpu-anneal"] + [
        s for s in ("cp-sat", "cadical") if importlib.util.find_spec(bf.PACKAGES[s]) is not None
    ]


def test_benchmark_end_to_end_on_9x9(tmp_path):
    """One 9x9 instance at 45 % by every solver here: each solved with a solution the verifier
    passed within the limit, one table entry per solver, the instance file written."""
    solvers = solvers_here()
    result = run_bench(tmp_path, "--orders", "3", "--fills", "45", "--count", "1",
                       "--limit", "10", "--solvers", ",".join(solvers))  # fmt: skip
    assert result["complete"] is True
    assert [r["solver"] for r in result["rows"]] == solvers
    for r in result["rows"]:
        assert (r["status"], r["solved"], r["verified"]) == ("solved", True, True), r
        assert 0 <= r["seconds"] <= 10 and r["limit"] == 10
    assert [(e["size"], e["fill"], e["solver"], e["solved"], e["instances"])
            for e in result["table"]] == [("9x9", 45, s, 1, 1) for s in solvers]  # fmt: skip
    run = result["runs"][0]
    assert run["machine"]["cores"] >= 1 and run["args"]["count"] == 1
    order, cells = read_lloyd_amos(tmp_path / "inst" / "inst9x9_45_0.txt")
    assert order == 3 and (cells != 0).sum() == kept_count(3, 45)


@pytest.mark.parametrize("solver, package", [("cp-sat", "ortools"), ("cadical", "pysat")])
def test_peer_solves_16x16_and_its_solution_is_verified(tmp_path, solver, package):
    """Each exact peer on a 16x16 instance at 40 %: solved and verified (skipped without its
    package, the bench extra)."""
    pytest.importorskip(package)
    result = run_bench(tmp_path, "--orders", "16x16", "--fills", "40", "--count", "1",
                       "--limit", "20", "--solvers", solver)  # fmt: skip
    (row,) = result["rows"]
    assert (row["solver"], row["solved"], row["verified"]) == (solver, True, True), row


def test_an_order_the_engine_refuses_reads_refused(tmp_path):
    """At the first order the engine does not take, every gpu-anneal row reads 'refused: ' with
    the engine's message naming the order, and the table says so."""
    order = MAX_ORDER + 1
    result = run_bench(tmp_path, "--orders", str(order), "--fills", "45", "--count", "2",
                       "--limit", "5", "--solvers", "gpu-anneal")  # fmt: skip
    assert len(result["rows"]) == 2
    for r in result["rows"]:
        assert r["status"].startswith("refused: ") and str(order) in r["status"], r
        assert r["solved"] is False
    (entry,) = result["table"]
    assert bf.cell_text(entry) == result["rows"][0]["status"]
    (row,) = summary.frontier(summary.Results(tmp_path / "res"))
    assert row.what.endswith("at 45 % fill (2), 5 s limit")
    assert row.figure == f"{bf.LABELS['gpu-anneal']}: {result['rows'][0]['status']}"


def test_a_schedule_given_runs_in_place_of_the_default_and_names_the_row():
    """--schedule S goes to gpu-anneal's command line, and the table's gpu-anneal row names it;
    without it the command has no --schedule and the row reads the default technique."""
    schedule = "geometric:t0=0.3,t_final=0.2,ratio=0.99998,stall=0"
    given = bf.parse_args(["--orders", "3", "--schedule", schedule])
    plain = bf.parse_args(["--orders", "3"])
    command = bf.gpu_anneal_command(10, given)
    assert command[command.index("--schedule") + 1] == schedule
    assert "--schedule" not in bf.gpu_anneal_command(10, plain)
    runs = {"runs": [{"args": {"schedule": schedule}}]}
    assert bf.label(runs, "gpu-anneal") == f"gpu-anneal, schedule `{schedule}`"
    assert (
        bf.label({"runs": [{"args": {"schedule": None}}]}, "gpu-anneal") == bf.LABELS["gpu-anneal"]
    )
    assert bf.label(runs, "cadical") == bf.LABELS["cadical"]


def test_tempering_ladder_population_and_portfolio_solve_16x16_and_are_verified():
    """bench_frontier_tempering's ladder, population and portfolio (no default run): two 16x16
    instances at 45 %, both solved by each within the limit (the ladder with exchanges made on
    the way), each solution through the verifier; a portfolio names the part that won and
    stops the other; the report names each method and its solved count."""
    from types import SimpleNamespace

    from benchmarks import bench_frontier_tempering as bft

    args = SimpleNamespace(
        order=4, fill=45, count=2, seed=2, limit=20.0, ladder=["4:0.27:0.36"], every=5,
        population=["4:2"], portfolio=["4:2"], default=False,
    )  # fmt: skip
    result = bft.measure(args)
    ladder, population, portfolio = result["table"]
    assert ladder["method"] == "4:0.27:0.36" and population["method"] == "population 4:2"
    assert portfolio["method"] == "portfolio 4:2"
    for row in (ladder, population, portfolio):
        assert row["solved"] == row["instances"] == 2
        assert all(r["verified"] is True and r["seconds"] <= args.limit for r in row["rows"])
    assert sum(r["swaps"] for r in ladder["rows"]) > 0
    assert all(r["swaps"] <= r["offers"] for r in ladder["rows"])
    for r in portfolio["rows"]:
        won, parts = r["part"], r["parts"]
        assert set(parts) == {"restarts", "population"} and parts[won]["status"] == "solved"
        assert parts[won]["seconds"] == r["seconds"]
        (other,) = set(parts) - {won}
        assert parts[other]["status"] in ("stopped", "solved")
    text = bft.render(result)
    assert "| 4:0.27:0.36 | 2/2 |" in text and "| portfolio 4:2 | 2/2 |" in text


def test_a_move_given_goes_to_the_command_and_names_the_row_beside_the_schedule():
    """--move M goes to gpu-anneal's command line; the row names it, after the schedule when
    both are given; without it the command has no --move."""
    given = bf.parse_args(["--orders", "3", "--move", "focused-two"])
    command = bf.gpu_anneal_command(10, given)
    assert command[command.index("--move") + 1] == "focused-two"
    assert "--move" not in bf.gpu_anneal_command(10, bf.parse_args(["--orders", "3"]))
    moved = {"runs": [{"args": {"schedule": None, "move": "focused-two"}}]}
    assert bf.label(moved, "gpu-anneal") == "gpu-anneal, move `focused-two`"
    both = {"runs": [{"args": {"schedule": "band", "move": "candidate"}}]}
    assert bf.label(both, "gpu-anneal") == "gpu-anneal, schedule `band`, move `candidate`"


def test_each_engine_solver_names_its_method_and_auto_names_none():
    """gpu-anneal runs --method anneal, gpu-anneal-impasse --method impasse (with --t0 when
    given), gpu-anneal-auto no --method at all: the engine's default, auto."""
    args = bf.parse_args(["--orders", "3", "--t0", "0.3"])
    solvers = ("gpu-anneal", "gpu-anneal-impasse", "gpu-anneal-auto")
    anneal, impasse, auto = (bf.gpu_anneal_command(10, args, bf.ENGINE[s]) for s in solvers)
    assert anneal[anneal.index("--method") + 1] == "anneal"
    assert impasse[impasse.index("--method") + 1 :] == ["impasse", "--t0", "0.3"]
    assert "--method" not in auto and "--t0" not in auto
    assert set(bf.ENGINE) <= set(bf.SOLVERS) and set(bf.ENGINE) <= set(bf.LABELS)
