"""Time-to-solution arithmetic and one small measurement."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gpu_anneal.tts import clopper_pearson, measure_puzzle, percentile, summarize, tts99


def test_tts99_formula_and_edges():
    """TTS99 = t ln(0.01)/ln(1-p); p = 0.5 needs log2(100) trials; p = 0 never succeeds."""
    assert tts99(2.0, 0.5) == pytest.approx(2.0 * math.log(100) / math.log(2))
    assert tts99(1.0, 1.0) == 1.0
    assert math.isinf(tts99(1.0, 0.0))


def test_clopper_pearson_brackets_and_known_values():
    """The exact interval holds the estimate; 0 of 10 gives [0, 0.3085]."""
    low, high = clopper_pearson(0, 10)
    assert low == 0.0 and high == pytest.approx(0.30850, abs=1e-4)
    low, high = clopper_pearson(5, 20)
    assert low < 0.25 < high and low == pytest.approx(0.0866, abs=1e-3)


def test_measure_puzzle_on_4x4_and_summary():
    """Easy 4x4: every run solves in its first trial, p = 1, TTS99 equals one trial's time."""
    puzzle = np.array([int(c) for c in "1000000000004000".replace("0", "0")], np.uint8)
    row = measure_puzzle(puzzle, 2, runs=6, schedule="sirdey-course", seed=3, core_rate=1e7)
    assert row.runs == 6 and row.solved_runs == 6
    assert row.trials >= 6 and 0 < row.p <= 1
    assert row.tts99 >= row.seconds_per_trial > 0
    summary = summarize([row, row])
    assert summary["puzzles"] == 2 and summary["tts99_median"] == pytest.approx(row.tts99)


def test_percentile_of_unsolved_puzzles_is_infinite_without_a_warning():
    """Two or more puzzles never solved: the 90th percentile falls between two infinite TTS99
    and is infinite, with no RuntimeWarning; between finite ones it interpolates as numpy does."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert math.isinf(percentile(np.array([1.0, 2.0, math.inf, math.inf]), 90))
        assert math.isinf(percentile(np.array([1.0, math.inf]), 90))
    finite = np.array([1.0, 2.0, 4.0, 8.0])
    assert percentile(finite, 90) == pytest.approx(np.percentile(finite, 90))


def test_tts99_interval_has_width_when_every_run_solves_at_once():
    """p = 1 from 8 runs of one trial each: all bootstrap resamples agree, so the interval comes
    from Clopper-Pearson's p_low = 0.025 ** (1 / 8), never zero width."""
    from gpu_anneal.tts import tts99_interval

    low, high = tts99_interval(np.ones(8), np.ones(8), 0.5)
    assert low == 0.5
    assert high == pytest.approx(tts99(0.5, 0.025 ** (1 / 8)))


def test_tts99_interval_brackets_the_estimate_and_repeats_for_a_seed():
    """Mixed runs: the BCa interval holds TTS99 at the pooled p; the same seed, the same bounds."""
    from gpu_anneal.tts import tts99_interval

    solved = np.array([1, 1, 0, 1, 1, 1, 0, 1, 1, 1])
    trials = np.array([3, 1, 7, 2, 5, 4, 6, 1, 2, 3])
    estimate = tts99(0.1, solved.sum() / trials.sum())
    low, high = tts99_interval(solved, trials, 0.1, seed=4)
    assert low < estimate < high and math.isfinite(high)
    assert (low, high) == tts99_interval(solved, trials, 0.1, seed=4)


def test_measure_puzzle_with_propagation_counts_a_deduced_run_as_one_trial():
    """A 4x4 puzzle that deduction alone solves: every run solved in one trial, p = 1; without
    propagation the same puzzle is annealed (proposals spent)."""
    puzzle = np.array([int(c) for c in "1234340021434321"], np.uint8)
    row = measure_puzzle(puzzle, 2, runs=4, schedule="sirdey-course", propagate=True, core_rate=1e7)
    assert (row.solved_runs, row.trials, row.p) == (4, 4, 1.0)
    assert row.tts99 == row.seconds_per_trial == 0.0
    plain = measure_puzzle(puzzle, 2, runs=4, schedule="sirdey-course", core_rate=1e7)
    assert plain.solved_runs == 4 and plain.seconds_per_trial > 0


def _hard_9x9() -> np.ndarray:
    """The first puzzle of tests/data/hardest.txt."""
    from pathlib import Path

    from cpu_reference.sudoku.formats import read_puzzles

    return read_puzzles(Path(__file__).parent / "data" / "hardest.txt")[0].cells


def test_runs_alone_follow_the_pooled_runs_trajectories():
    """Runs each alone on a core (two threads at once) draw the chains a pool of every run gives
    them: the same trials, proposals and grids, run by run, in run order."""
    from gpu_anneal.sudoku_solver import solve_batch
    from gpu_anneal.tts import runs_alone

    puzzle = _hard_9x9()
    options = dict(schedule="auto", move="auto", propagate=True, chains=1, seed=5,
                   time_limit=60.0, backend="cpu")  # fmt: skip
    alone = runs_alone(puzzle, 3, 6, 2, **options)
    pooled = solve_batch(np.repeat(puzzle[None], 6, axis=0), 3, slots=6, **options)
    assert [r.index for r in alone] == list(range(6))
    for a, b in zip(alone, pooled, strict=True):
        assert (a.solved, a.trials, a.proposals) == (b.solved, b.trials, b.proposals)
        assert np.array_equal(a.best, b.best) and a.solving_chain == b.solving_chain
    assert sum(r.solved for r in alone) >= 1  # the comparison covers solved runs


def test_measure_puzzle_times_each_run_alone():
    """The timed (CPU) path: seconds per trial are the runs' own seconds over their trials, each
    run no longer than the whole measurement, and the trial counts are the pooled runs'."""
    puzzle = _hard_9x9()
    row = measure_puzzle(puzzle, 3, runs=4, schedule="auto", move="auto", propagate=True, seed=5)
    assert row.solved_runs >= 1 and row.trials >= row.runs
    assert 0 < row.seconds_per_trial * row.trials <= row.wall_seconds * row.cores
    assert row.tts99 >= row.seconds_per_trial


def test_generated_rules_load_once_under_threads(tmp_path, monkeypatch):
    """Threads asking for one not yet loaded rules module at once all get the same, whole module
    (a thread once saw it half executed)."""
    from concurrent.futures import ThreadPoolExecutor

    from cpu_reference.sudoku import rules

    monkeypatch.setattr(rules, "cache_dir", lambda: tmp_path)
    spec = rules.Specialisation(2, rules.MOVE_SIRDEY, 1, True, False, linear=True)
    constants = rules.constants_text(spec)
    key = "threads_test"
    with ThreadPoolExecutor(8) as pool:
        loaded = list(pool.map(lambda _: rules._load_generated(key, constants), range(16)))
    kinds = ("constants", "rules", "chain")
    try:
        for kind in kinds:
            assert len({id(getattr(m, kind)) for m in loaded}) == 1, kind
        assert all(hasattr(loaded[0].rules, name) for name in rules._EXPORTED)
        assert hasattr(loaded[0].chain, "drive_chain") and loaded[0].steps is loaded[0].rules
    finally:
        import sys

        for kind in kinds:
            sys.modules.pop(getattr(loaded[0], kind).__name__, None)


@pytest.mark.parametrize(
    "given", [[], ["--move", "candidate"], ["--t0", "1"], ["--technique", "published"]]
)
def test_bench_tts_json_reports_the_technique_solve_runs(tmp_path, given):
    """`bench tts FILE --json` measures what `solve FILE` runs with the same options: its params
    per order name the move, schedule and deduction setting of solve's result for that order:
    the default technique with the option given in place of its part alone, or the published
    one when named."""
    import json

    from typer.testing import CliRunner

    from cli.main import app
    from cpu_reference.sudoku.presets import DEFAULT_TECHNIQUE, PUBLISHED, move_of

    path = tmp_path / "two_orders.txt"
    path.write_text("1...........4...\n" + "".join(map(str, _hard_9x9())).replace("0", ".") + "\n")
    runner = CliRunner()
    solved = runner.invoke(app, ["solve", str(path), "--output", "jsonl", "--quiet", *given])
    assert solved.exit_code in (0, 1), solved.output
    records = [json.loads(line) for line in solved.stdout.splitlines() if line.startswith("{")]
    args = ["bench", "tts", str(path), "--runs", "1", "--time-limit", "2", "--json", *given]
    measured = runner.invoke(app, args)
    assert measured.exit_code == 0, measured.output
    report = json.loads(measured.stdout.strip().splitlines()[-1])
    assert sorted(report["params"]) == ["2", "3"] and len(records) == 2
    for record, order in zip(records, (2, 3), strict=True):
        solve_ran = {key: record["params"][key] for key in ("move", "schedule", "propagate")}
        assert report["params"][str(order)] == solve_ran
    technique = PUBLISHED if "--technique" in given else DEFAULT_TECHNIQUE
    want_move = "candidate" if "--move" in given else move_of(technique["move"], 3)
    assert report["params"]["3"]["move"] == want_move
    assert report["params"]["3"]["propagate"] is technique["propagate"]
