"""Results say what ran: impossible Hashi islands answered no_solution by both methods, `params`
holding the resolved values, null counts for a puzzle no chain touched, one puzzle's output
fault kept to that puzzle, every puzzle of a file drawn, TTS plots with their intervals."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from cli.main import app
from cpu_reference.hashi import puzzle as hashi
from cpu_reference.hashi.rules import default_schedule as hashi_defaults
from cpu_reference.hashi.rules import impossible
from cpu_reference.shikaku.rules import default_schedule as shikaku_defaults
from cpu_reference.shikaku.rules import model_arrays
from cpu_reference.sudoku.presets import PRESETS
from cpu_reference.sudoku.schedules import by_name, with_start
from cpu_reference.sudoku.verify import verify_solution
from gpu_anneal import api, datasets, solvers
from gpu_anneal.inputs import Item
from gpu_anneal.kinds import kind_of
from gpu_anneal.resolve import resolve
from gpu_anneal.results import Params
from gpu_anneal.settings import SolveOptions
from gpu_anneal.sudoku_solver import SolveResult, solve_batch
from gpu_anneal.validate import grid_schedule

runner = CliRunner()

LONE_ISLAND = "1x1:1"
ISLAND_OF_16 = "3x3:dGd"  # 16 in the middle, nothing it faces
SIXTEEN_FACING_FOUR = "5x5:b1g1aGa1g1b"  # 16 with four candidate edges: at most 8 bridges
HASHI_VALID = datasets.text("hashi").splitlines()[-1]
IMPOSSIBLE = [LONE_ISLAND, ISLAND_OF_16, SIXTEEN_FACING_FOUR]
DEDUCED_4X4 = "1234340021434321"  # naked singles fill it
ANNEALED_4X4 = "1...........4..."  # two givens: left to the chains
SEED002 = datasets.path("seed002")


def jsonl(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


# ---- Hashi: islands no bridge can satisfy -----------------------------------------------------


@pytest.mark.parametrize("method", ["ilp", "anneal"])
def test_impossible_islands_are_no_solution_and_the_next_puzzle_is_solved(method, tmp_path):
    """A lone island, an island of 16 facing none, and one of 16 facing four islands (8
    bridges at most), before a valid puzzle in one file: three no_solution records, then the
    valid puzzle solved; exit code 1 (a puzzle unsolved), never an internal error."""
    path = tmp_path / "islands.txt"
    path.write_text("\n".join([*IMPOSSIBLE, HASHI_VALID]) + "\n")
    result = runner.invoke(app, ["solve", "--kind", "hashi", "--method", method, str(path),
                                 "--output", "jsonl", "--time-limit", "30"])  # fmt: skip
    assert result.exit_code == 1, result.output
    records = sorted(jsonl(result.stdout), key=lambda r: r["index"])
    assert [r["status"] for r in records] == ["no_solution"] * 3 + ["solved"]
    assert [r["line"] for r in records] == [1, 2, 3, 4]
    assert all(r["error"].startswith("no solution") for r in records[:3])
    assert "internal error" not in result.output


def test_the_ilp_answers_infeasible_without_a_program_when_no_edge_exists():
    """solve_ilp: no candidate edge is infeasible at once (HiGHS refuses a program of no
    variables); an island of 16 facing four is infeasible by the program."""
    from cpu_reference.hashi.ilp import is_unique, solve_ilp

    for text in IMPOSSIBLE:
        out = solve_ilp(hashi.parse(text), time_limit=30)
        assert out["status"] == "infeasible" and out["bridges"] is None, text
    assert solve_ilp(hashi.parse(LONE_ISLAND))["rounds"] == 0
    assert is_unique(hashi.parse(LONE_ISLAND)) is False


def test_impossible_names_each_counting_argument():
    """Islands its edges cannot fill, an odd sum of values, candidate edges that leave groups
    apart; a solvable puzzle passes."""

    def reason(text):
        p = hashi.parse(text)
        return impossible(p, hashi.edge_graph(p))

    assert "has 0 candidate edges" in reason(LONE_ISLAND)
    assert "value 16 has 4 candidate edges" in reason(SIXTEEN_FACING_FOUR)
    assert "odd" in reason("3x1:1a2")  # 1 + 2 = 3: bridges add 2 at a time
    assert "chain" in reason("6x3:1a1l1a1")  # a pair on row 0, another on row 2, none between
    assert reason(HASHI_VALID) is None


# ---- params: the values that ran ---------------------------------------------------------------


@pytest.mark.parametrize("order, puzzle", [(2, ANNEALED_4X4), (3, None)])
def test_default_technique_records_the_resolved_move_and_schedule(order, puzzle):
    """The default technique on 4x4 and 9x9: move focused-two (not auto), the preset's schedule
    string for that order (not auto), its start temperature, seed 0, time limit 60."""
    puzzles = puzzle + "\n" if puzzle else SEED002
    result = api.solve(puzzles, chains=1, seed=None)[0]
    p = result.params
    assert p.move == "focused-two"
    assert p.schedule == PRESETS["auto"][order]
    assert p.t0 == by_name("auto", order).t0 == 0.5
    assert (p.seed, p.time_limit, p.propagate, p.chains) == (0, 60.0, True, 1)


def test_a_given_t0_is_folded_into_the_schedule_text_once():
    """--schedule auto --t0 0.55: one t0 key, the given one; the string reproduces the schedule
    that ran (by_name of it equals with_start's schedule but for the name)."""
    (result,) = api.solve(ANNEALED_4X4 + "\n", schedule="auto", t0=0.55, chains=1, seed=2)
    text = result.params.schedule
    assert text.count("t0=") == 1 and "t0=0.55" in text and result.params.t0 == 0.55
    ran = with_start("auto", 2, 0.55)
    assert by_name(text, 2).as_dict() | {"name": ran.name} == ran.as_dict()
    (named,) = api.solve(
        ANNEALED_4X4 + "\n", technique="published", move="candidate", t0=1, chains=1, seed=2
    )
    assert (named.params.schedule, named.params.move, named.params.t0) == (
        "sirdey-course:t0=1", "candidate", 1.0,
    )  # fmt: skip
    (alone,) = api.solve(ANNEALED_4X4 + "\n", move="candidate", t0=1, chains=1, seed=2)
    assert (alone.params.schedule, alone.params.move, alone.params.t0) == (
        "geometric:t0=1,t_final=0.48,ratio=0.99997959,stall=0", "candidate", 1.0,
    )  # fmt: skip


@pytest.mark.parametrize("name", sorted(PRESETS))
@pytest.mark.parametrize("order", [2, 3, 4])
def test_schedule_text_stands_for_the_schedule_it_expands(name, order):
    """schedule_text of every preset at every order builds the same schedule as the preset."""
    text = solvers.schedule_text(name, order)
    assert not text.startswith(name + ":") and ":" in text
    assert by_name(text, order).as_dict() | {"name": name} == by_name(name, order).as_dict()


@pytest.mark.parametrize("kind", ["shikaku", "hashi"])
def test_grid_puzzles_record_the_schedule_that_ran(kind):
    """Shikaku and Hashi: the annealer's defaults for the puzzle as a geometric string; passed
    back as --schedule it gives the same run (trials and answer) for the same seed."""
    (item,) = api.parse_puzzles(datasets.path(kind), kind)[:1]
    (result,) = api.solve([item], kind=kind, seed=3)
    p = item.puzzle
    if kind == "shikaku":
        expected = shikaku_defaults(p, len(model_arrays(p, "all")[2]))
    else:
        expected = hashi_defaults(len(hashi.edge_graph(p).ea), "seed")
    assert grid_schedule(result.params.schedule) == {k: float(v) for k, v in expected.items()}
    assert result.params.t0 == expected["t0"] and result.params.chains == 16
    assert (result.params.seed, result.params.time_limit) == (3, 60.0)
    assert result.params.move == ("all" if kind == "shikaku" else None)
    (again,) = api.solve([item], kind=kind, seed=3, schedule=result.params.schedule)
    assert again.counts.trials == result.counts.trials
    assert again.solution_rows == result.solution_rows


def test_exact_methods_record_their_settings():
    """Sudoku exact: rules fast, no time limit; ILP: the time limit (60 by default)."""
    (exact,) = api.solve(ANNEALED_4X4 + "\n", method="exact")
    assert exact.params.rules == "fast" and exact.params.time_limit is None
    (ilp,) = api.solve(HASHI_VALID + "\n", kind="hashi", method="ilp")
    assert ilp.params.time_limit == 60.0 and ilp.params.seed is None


# ---- a puzzle that deduction completes ---------------------------------------------------------

CHAIN_COUNTS = ("trials", "proposals", "accepted", "solving_chain", "chain_trials",
                "chain_proposals")  # fmt: skip


def test_a_deduced_puzzle_has_null_chain_counts_and_an_annealed_one_keeps_them():
    """Deduction fills the first puzzle: no chain ran, every chain count is null; the second
    still anneals and reports its chain."""
    deduced, annealed = api.solve(f"{DEDUCED_4X4}\n{ANNEALED_4X4}\n", chains=2, seed=3)
    assert deduced.solved and annealed.solved
    assert all(getattr(deduced.counts, key) is None for key in CHAIN_COUNTS)
    assert all(getattr(annealed.counts, key) is not None for key in CHAIN_COUNTS)
    cells = np.array([int(c) for c in DEDUCED_4X4], np.uint8)
    (raw,) = solve_batch(cells[None], 2, schedule="auto", move="auto", propagate=True,
                         chains=4, seed=1, time_limit=60.0)  # fmt: skip
    assert raw.solved and raw.solving_chain is None and raw.extra["no_chain"]
    assert raw.extra["chain_trials"] is None and raw.extra["chain_proposals"] is None


@pytest.mark.cudasim
def test_deduced_counts_are_the_same_on_the_cpu_and_the_simulated_card():
    """Through the API on both backends: the deduced puzzle's counts all null on each; with
    fixed chains the annealed puzzle's reported chain, its counts and grid equal (the totals
    of two chains depend on timing, docs/runs.md's "What repeats for the same seed"); with
    spare chains (the card's default) the reported chain, spare or not, replays on the CPU."""
    from simulate import run_simulated

    out = run_simulated("deduced_counts.py")
    cpu, cuda = out["cpu"], out["cuda"]
    assert [r["backend"] for r in cpu + cuda] == ["cpu", "cpu", "cuda", "cuda"]
    for deduced in (cpu[0], cuda[0]):
        assert deduced["status"] == "solved" and deduced["solution"] == cpu[0]["solution"]
        assert all(deduced["counts"][key] is None for key in CHAIN_COUNTS)
    repeat = ("solving_chain", "chain_trials", "chain_proposals")
    assert [cpu[1]["counts"][key] for key in repeat] == [cuda[1]["counts"][key] for key in repeat]
    assert cpu[1]["solution"] == cuda[1]["solution"] and cpu[1]["status"] == "solved"
    assert all(cuda[1]["counts"][key] is not None for key in CHAIN_COUNTS)
    spare, again = out["cuda_spare"][1], out["replayed"]
    assert spare["status"] == "solved" and again["solution"] == spare["solution"]
    assert [again[key] for key in repeat[1:]] == [spare["counts"][key] for key in repeat[1:]]


# ---- a fault in writing one puzzle's answer ----------------------------------------------------


def _pattern_36x36() -> np.ndarray:
    n, size = 6, 36
    grid = [((r % n) * n + r // n + c) % size + 1 for r in range(size) for c in range(size)]
    return np.array(grid, np.uint8)


def test_an_answer_that_cannot_be_written_is_that_puzzles_error_and_the_run_goes_on():
    """A 36x36 Item asking for the one-symbol line format (no symbol for 36), then a 9x9: the
    first is status error naming the fault, the second is solved."""
    grid = _pattern_36x36()
    assert verify_solution(grid, 6) is None
    puzzle = grid.copy()
    puzzle[[0, 37, 100, 555, 1200]] = 0
    big = Item(kind_of("sudoku"), 0, "big.txt", 1, "", puzzle, 6, "line")
    (nine,) = api.parse_puzzles(SEED002)[:1]
    nine.index = 1
    s = resolve(SolveOptions(method="exact"))
    first, second = solvers.sudoku_exact([big, nine], s)
    assert first.status == "error" and not first.solved and first.solution is None
    assert "cannot write" in first.error and "36" in first.error and "big.txt" in first.error
    assert (first.index, first.line, first.givens_hash) == (0, 1, big.givens_hash)
    assert second.solved and second.index == 1
    raw = SolveResult(index=0, order=6, solved=True, verified=True, solution=grid, best=grid,
                      cost=0, trials=1, proposals=1, accepted=1, seconds=0.1)  # fmt: skip
    annealed = solvers._from_pool(big, raw, Params(seed=0), 0.0)  # the annealing path
    assert annealed.status == "error" and "36" in annealed.error


# ---- render, plots, default seeds --------------------------------------------------------------


def test_render_draws_every_puzzle_of_a_file(tmp_path):
    """Several puzzles: NAME-I.png per puzzle index; one puzzle: the name given; a faulty line
    is its own error (exit 2) and the others are still drawn."""
    ids = datasets.text("shikaku").split("\n")
    ids = [line for line in ids if line and not line.startswith("#")][:3]
    many = tmp_path / "many.txt"
    many.write_text("\n".join([ids[0], "5x4:3c2b9f5e", *ids[1:]]) + "\n")
    result = runner.invoke(app, ["render", "--kind", "shikaku", str(many), str(tmp_path / "p.png")])
    assert result.exit_code == 2
    assert "many.txt line 2" in result.stderr
    assert sorted(p.name for p in tmp_path.glob("p*.png")) == ["p-0.png", "p-1.png", "p-2.png"]
    assert all(p.read_bytes()[:4] == b"\x89PNG" for p in tmp_path.glob("p*.png"))
    one = tmp_path / "one.txt"
    one.write_text(ids[0] + "\n")
    result = runner.invoke(app, ["render", "--kind", "shikaku", str(one), str(tmp_path / "o.svg")])
    assert result.exit_code == 0 and (tmp_path / "o.svg").exists()
    assert not list(tmp_path.glob("o-*"))


def test_render_offers_only_the_kinds_it_draws(tmp_path):
    """--kind lists the three kinds render draws (Sudoku of any order, Shikaku, Hashi); another
    name is refused as a usage fault (exit 2) naming it."""
    help_text = runner.invoke(app, ["render", "--help"]).stdout
    assert "sudoku|shikaku|hashi" in help_text
    result = runner.invoke(app, ["render", "--kind", "kakuro", "x.txt", str(tmp_path / "x.png")])
    assert result.exit_code == 2 and "kakuro" in result.stderr


def test_tts_plot_draws_each_interval():
    """p and TTS99 bars span their intervals; an interval open above is flagged; the figure
    holds the error bars."""
    from matplotlib.container import ErrorbarContainer

    from gpu_anneal.plots import draw_tts, interval_bars

    rows = [
        dict(givens=20, p=0.5, p_low=0.2, p_high=0.8, tts99=1.0, tts99_low=0.5, tts99_high=3.0),
        dict(givens=22, p=0.1, p_low=0.0, p_high=0.4, tts99=5.0, tts99_low=1.0, tts99_high=None),
        dict(givens=23, p=0.0, p_low=0.0, p_high=0.3, tts99=None, tts99_low=2.0, tts99_high=None),
    ]
    p = interval_bars(rows, "p")
    assert p["x"] == [20, 22, 23]
    assert np.allclose(p["below"], [0.3, 0.1, 0.0]) and np.allclose(p["above"], [0.3, 0.3, 0.3])
    t = interval_bars(rows, "tts99")
    assert t == {"x": [20, 22], "y": [1.0, 5.0], "below": [0.5, 4.0], "above": [2.0, 0.0],
                 "open": [False, True]}  # fmt: skip
    fig = draw_tts(rows)
    left, right = fig.axes[:2]
    assert any(isinstance(c, ErrorbarContainer) for c in left.containers)
    assert sum(isinstance(c, ErrorbarContainer) for c in right.containers) == 3


@pytest.mark.parametrize("command", ["generate", "minimize"])
def test_generate_and_minimize_show_their_default_seed(command):
    """--seed's help says what it does and shows its default, 0."""
    help_text = runner.invoke(app, [command, "--help"]).stdout
    row = help_text[help_text.index("--seed") :]
    assert "same seed" in row[:300] and re.search(r"default: 0\]", row[:300])
