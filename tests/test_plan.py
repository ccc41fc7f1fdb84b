"""The pool's plan on described cards, the host-share model, and time limits held within a slice.

Plans need no card: a described card (gpu_anneal.plan.card_named) stands for one. The kernel's block
shape comes from gpu_anneal.kernels.sudoku (numba-cuda imported, nothing compiled).
"""

from __future__ import annotations

import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from simulate import run_simulated

from cpu_reference.errors import InputError, LimitWarning
from cpu_reference.sudoku.formats import read_puzzles
from gpu_anneal import plan, run_plan
from gpu_anneal.backend_choice import describe_plans
from gpu_anneal.resolve import resolve
from gpu_anneal.run_plan import sudoku_plan
from gpu_anneal.settings import SolveOptions
from gpu_anneal.sudoku_solver import SAFETY, Slicer, solve_one

pytest.importorskip("numba.cuda")

DATA = Path(__file__).parent / "data"
HOST_S = 1e-3  # host seconds a finished puzzle, fixed so that plans do not time this CPU
FIXED = {"host_seconds": HOST_S, "rate": 0.0}  # and no kernel rate model (no compilation)


def settings(**options):
    """The resolved settings of a solve with these options (what --dry-run and a run plan)."""
    return resolve(SolveOptions(**options))


# One full wave of the 9x9 kernel on an H100 SXM: 132 SMs x 8 blocks x 128 threads (issue 9)
H100_WAVE_9X9 = 132 * 8 * 128


def test_a_file_of_100_puzzles_fills_an_h100_with_one_wave():
    """Default chains on CUDA: >= one full wave, spread over every puzzle of the input."""
    p = plan.launch_plan(3, "sirdey", puzzles=100, device="H100 SXM", **FIXED)
    assert p["wave"] == H100_WAVE_9X9
    assert p["slots"] == 100
    assert p["chains"] >= H100_WAVE_9X9
    assert p["chains_per_puzzle"] % plan.WARP == 0  # whole warps a puzzle
    assert p["chains"] - H100_WAVE_9X9 < 100 * plan.WARP  # rounded up by less than a warp each


def test_more_puzzles_than_a_wave_holds_keep_each_puzzle_at_least_1024_chains():
    p = plan.launch_plan(3, "sirdey", puzzles=5000, device="H100 SXM", **FIXED)
    assert p["chains_per_puzzle"] >= plan.MIN_CHAINS_PER_PUZZLE
    assert p["slots"] == H100_WAVE_9X9 // plan.MIN_CHAINS_PER_PUZZLE
    assert p["chains"] >= p["wave"]


def test_given_chains_spread_one_wave_over_the_puzzles_it_needs():
    p = plan.launch_plan(3, "sirdey", puzzles=100, chains=5000, device="H100 SXM", **FIXED)
    assert p["chains_per_puzzle"] == 5000
    assert p["slots"] == math.ceil(H100_WAVE_9X9 / 5000)
    few = plan.launch_plan(3, "sirdey", puzzles=3, chains=5000, device="H100 SXM", **FIXED)
    assert few["slots"] == 3  # all the input holds


def test_resident_blocks_follow_the_card():
    """An L4 SM (1,536 threads, 100 KB shared) holds fewer 9x9 blocks than an H100 SM."""
    h100 = plan.launch_plan(3, "sirdey", puzzles=10, device="H100 SXM", **FIXED)
    l4 = plan.launch_plan(3, "sirdey", puzzles=10, device="L4", **FIXED)
    shared = h100["shared_per_block"]
    if shared:  # the shared-memory kernel: 100 KB of an L4 SM for blocks of `shared` bytes
        assert l4["resident_blocks_per_sm"] == min(7, 100 * 1024 // (shared + 1024))
    assert l4["wave"] == 58 * l4["resident_blocks_per_sm"] * l4["threads_per_block"]


def test_a_card_too_small_is_refused_with_the_sizes_named():
    tiny = plan.with_card(plan.card_named("H100 SXM"), memory=20 * 10**6)
    with pytest.raises(InputError, match=r"GB.*use fewer chains"):
        plan.launch_plan(3, "sirdey", puzzles=100, batch=100, device=tiny, **FIXED)
    shrunk = plan.launch_plan(3, "sirdey", puzzles=100, device=tiny, **FIXED)
    assert shrunk["device_bytes"] <= tiny.memory * plan.MEMORY_SHARE < shrunk["chains"] * 1000
    no_room = plan.with_card(plan.card_named("H100 SXM"), shared_per_sm=4096)
    with pytest.raises(InputError, match="does not fit one of its SMs"):
        plan.launch_plan(3, "sirdey", puzzles=1, device=no_room, **FIXED)
    with pytest.raises(InputError, match="described cards: H100 SXM"):
        plan.launch_plan(3, "sirdey", puzzles=1, device="GTX 480", **FIXED)


def test_host_share_model_at_a_million_chains():
    """100 puzzles x 10,000 chains: the model's terms, recomputed from its stated formula."""
    rate = 50e9
    p = plan.launch_plan(
        3, "sirdey", puzzles=100, batch=100, chains=10_000, device="H100 SXM", host_seconds=HOST_S,
        rate=rate,
    )  # fmt: skip
    assert p["chains"] == 10**6
    kernel_s = max(plan.SLICE_SECONDS, 10**6 * 81 / rate)
    finished = kernel_s * rate / plan.REFERENCE_PROPOSALS[3]
    moved = 100 * 72 + finished * p["bytes_per_finished"]
    expect = (moved / 63.0e9 + finished * HOST_S) / kernel_s
    assert p["reference"]["host_share"] == pytest.approx(expect)
    worst = (100 * 72 + 100 * p["bytes_per_finished"]) / 63.0e9 + 100 * HOST_S
    assert p["worst"]["host_share"] == pytest.approx(worst / kernel_s)
    assert p["bytes_per_finished"] < 4096  # a finished puzzle moves kilobytes, not its chains


def test_the_plan_of_a_run_plan_takes_its_settled_fields():
    """make_plan reads the run plan's move (a preset resolved at the order), chains and slots
    as run_plan.sudoku_plan settled them; --dry-run refuses what a run refuses (--chains 0 was
    planned as the default)."""
    from typer.testing import CliRunner

    from cli.main import app

    run = sudoku_plan(settings(chains=5000, batch=3, move="auto"), 3, "cuda", "cuda: asked")
    p = plan.make_plan(run, 100, "H100 SXM", **FIXED)
    assert (p["move"], p["chains_per_puzzle"], p["slots"]) == ("focused-two", 5000, 3)
    default = plan.make_plan(sudoku_plan(settings(), 3, "cuda", "cuda: asked"), 100, "H100 SXM",
                             **FIXED)  # fmt: skip
    assert default["slots"] == 100 and default["chains"] >= default["wave"]
    top95 = str(Path(plan.__file__).parent / "data" / "top95.txt")
    refused = CliRunner().invoke(app, ["solve", top95, "--dry-run", "--backend", "cpu",
                                       "--chains", "0"])  # fmt: skip
    assert refused.exit_code == 2 and refused.stdout == "" and "--chains" in refused.stderr


def test_the_plan_prints_every_figure_labelled_as_a_model():
    p = plan.launch_plan(
        3, "sirdey", puzzles=100, device="H100 SXM", host_seconds=HOST_S, rate=50e9
    )
    text = plan.format_plan(p)
    assert "135,168 chains" in text and "100 puzzles x 1,376 chains" in text
    assert text.count("(model)") >= 3


def test_dry_run_plans_a_file_of_95_puzzles_on_an_h100():
    """`solve FILE --dry-run --device 'H100 SXM'`'s plans: one per order, a wave or more."""
    top95 = Path(plan.__file__).parent / "data" / "top95.txt"
    (p,) = describe_plans(
        [str(top95)], settings(backend="cuda", move="sirdey"), "H100 SXM", **FIXED
    )
    assert p["puzzles"] == 95 and p["slots"] == 95
    assert p["chains"] >= H100_WAVE_9X9


@pytest.mark.slow
def test_dry_run_command_prints_the_plan_without_a_card(tmp_path):
    """The command itself on 100 puzzles (models the kernel's rate: compiles it, slow)."""
    from typer.testing import CliRunner

    from cli.main import app

    text = (Path(plan.__file__).parent / "data" / "top95.txt").read_text()
    top95 = [line for line in text.splitlines() if line and not line.startswith("#")]
    path = tmp_path / "p.txt"
    path.write_text("\n".join(top95 + top95[:5]) + "\n")
    args = ["solve", str(path), "--backend", "cuda", "--dry-run", "--device", "H100 SXM"]
    run = CliRunner().invoke(app, args)
    assert run.exit_code == 0, run.output
    assert "100 puzzles x 1,376 chains = 137,600 chains" in run.output


def test_slices_are_sized_from_the_measured_rate():
    """One plateau before any measurement; then as many plateaus as fit half the time left."""
    slicer = Slicer(plateau=81, slice_seconds=10.0)
    assert slicer.budget(running=1000, least_left=1.0) == 1
    slicer.measure(64_800_000, kernel=1.0, running=100_000, round_seconds=1.0)  # 0.125 s/plateau
    assert slicer.budget(running=100_000, least_left=None) == 80
    assert slicer.budget(running=100_000, least_left=2.0) == SAFETY * 2.0 / 0.125
    assert slicer.budget(running=200_000, least_left=2.0) == SAFETY * 2.0 / 0.25
    assert slicer.budget(running=10, least_left=2.0) == SAFETY * 2.0 / 0.125  # not faster
    assert slicer.budget(running=100_000, least_left=0.01) == 1


def test_host_overhead_lengthens_slices_but_not_past_a_time_limit():
    """0.5 s of each round outside the kernel: slices grow to keep it a fifth of a round, and
    the overhead counts against the time a puzzle has left."""
    slicer = Slicer(plateau=81, slice_seconds=0.25)
    slicer.measure(64_800_000, kernel=1.0, running=100_000, round_seconds=1.5)
    assert slicer.overhead == 0.5
    assert slicer.budget(running=100_000, least_left=None) == 0.5 * (1 - 0.2) / 0.2 / 0.125
    assert slicer.budget(running=100_000, least_left=3.0) == (SAFETY * 3.0 - 0.5) / 0.125
    assert slicer.predict(1, 100_000) == 0.5 + 0.125  # a round, as the time-limit check sees it


def test_a_time_limit_holds_within_one_slice():
    """20,000 chains of a hopeless 9x9: a plateau of them takes 0.02-0.15 s on 2 cores, so the
    first slice of 16 plateaus used before could overrun a 1 s limit; the pool reports in time
    (the rate is measured before the first slice; a round takes at most half the time left)."""
    puzzle = read_puzzles(DATA / "top95_head.txt")[0].cells
    limit = 1.0
    result = solve_one(puzzle, 3, chains=20_000, seed=3, time_limit=limit, backend="cpu")
    assert not result.solved
    assert result.seconds <= limit + 0.1
    assert result.proposals >= 20_000 * 81  # it annealed: at least a plateau of every chain


@pytest.mark.cudasim
def test_simulated_pool_fills_a_wave_copies_only_finished_rows_and_refills_first():
    """The CUDA pool in the simulator on its one-block card: 4 puzzles x 32 chains = the wave;
    every puzzle solved; only status rows and finished puzzles' grids come back; the slots the
    finished puzzles free are loaded before the next slice starts (none sits out a slice)."""
    got = run_simulated("sudoku_pool.py")
    assert got["chains"] >= got["wave"] == 128 and got["slots"] == 4
    assert got["solved"] == got["puzzles"] == 6
    assert got["fetched_running"] == 0
    assert got["bytes_down"] == got["expected_down"]
    assert got["bytes_down"] < got["all_rows_per_slice"]  # less in all than one old slice
    assert got["refill_chances"] >= 2 and got["refilled_first"] == got["refill_chances"]


@pytest.mark.cudasim
def test_pool_kernels_equal_their_host_twins():
    """Status rows, reseeded chains and gathered grids: the device's equal the host's."""
    got = run_simulated("sudoku_pool_kernels.py")
    assert got["status"] == [True, True, True]
    assert got["fresh"] == {"ctr": True, "rng": True, "best_vals": True}
    assert got["gather"] is True
    assert len(got["runner"]) == 3
    for case, fields in got["runner"].items():
        assert all(fields.values()), (case, fields)


def test_a_limit_that_not_one_plateau_fits_is_a_warning_and_the_run_keeps_its_limit():
    """20,000 chains and 1 ms: one plateau (1.6 M proposals) would need 1.6 G proposals/s. A rate
    measured while the machine is busy can be far too low, so the run is never refused: a
    LimitWarning says how long one plateau takes, the puzzle runs its first slice and stops at
    its limit, unsolved, every proposal of that slice counted."""
    puzzle = read_puzzles(DATA / "top95_head.txt")[0].cells
    with pytest.warns(
        LimitWarning,
        match=r"one plateau of all 20,000 chains takes about .* "
        r"the time limit of 0\.001 s; running anyway",
    ):
        result = solve_one(puzzle, 3, chains=20_000, seed=3, time_limit=0.001, backend="cpu")
    assert not result.solved and result.error is None
    assert result.proposals >= 20_000 * 81  # the one plateau ran on every chain


def test_the_warning_holds_when_deduction_completes_the_first_puzzle():
    """seed002's first puzzle is completed by deduction, so a calibration on it made no proposal,
    measured no rate, and a run whose plateaus far outlast its limit said nothing (3,000,000
    chains and 1 s took 14 s on the sample). The calibration takes an empty grid then."""
    from gpu_anneal import api

    text = (DATA / "seed002_grids.txt").read_text()
    with pytest.warns(LimitWarning, match=r"one plateau of all 20,000 chains takes about"):
        results = api.solve(text, chains=20_000, seed=3, time_limit=0.001, backend="cpu")
    assert results[0].solved and not results[0].counts.proposals  # deduction alone


def test_a_card_trial_longer_than_the_limit_is_a_warning():
    """A Shikaku or Hashi trial of every chain on a card is one launch, never cut, and many
    chains passed a short limit in silence (3,000,000 chains and 1 s: 19 s for five 15x15
    Shikaku, on the cores then). A LimitWarning says how long the round took (the run warns
    once); the cores' trials stop at the limit, so a CPU round says nothing."""
    from gpu_anneal.solvers import warn_long_round

    card = {"backend": "cuda", "first_round": 2.5}
    with pytest.warns(LimitWarning) as caught:
        assert warn_long_round(card, 50_000, 0.5, "f line 3")
    expected = (
        r"^chains = 50,000: one trial of every chain took 2\.5 s \(f line 3\), "
        r"more than the time limit of 0\.5 s; running anyway"
    )
    assert re.search(expected, str(caught[0].message)), str(caught[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LimitWarning)
        assert not warn_long_round({**card, "first_round": 0.4}, 50_000, 0.5, "f line 3")
        assert not warn_long_round({**card, "backend": "cpu"}, 50_000, 0.5, "f line 3")


@pytest.mark.parametrize("kind", ["shikaku", "hashi"])
def test_many_chains_on_the_cores_keep_a_grid_puzzles_limit_without_a_word(kind):
    """The cores stop a trial at the plateau after the deadline: 50,000 chains and 1 ms run one
    cut round a puzzle, unsolved or solved, and say nothing."""
    from gpu_anneal import api, datasets

    items = api.parse_puzzles(datasets.path(kind), kind)[:2]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", LimitWarning)
        results = api.solve(items, kind=kind, chains=50_000, seed=3, time_limit=0.001)
    assert not [w for w in caught if issubclass(w.category, LimitWarning)]
    assert [r.counts.trials for r in results] == [50_000, 50_000]


@pytest.mark.slow
def test_a_million_chains_keep_a_5_second_limit():
    """The issue's case: --chains 1000000 and a 5 s limit (one slice used to take 21 s). Either
    the limit holds, or, where one plateau of every chain takes longer than 5 s on this CPU at
    the time, a LimitWarning says so and the run stops after that plateau; never a silent
    overrun."""
    puzzle = read_puzzles(DATA / "top95_head.txt")[0].cells
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", LimitWarning)
        result = solve_one(puzzle, 3, chains=10**6, seed=3, time_limit=5.0, backend="cpu")
    if any(issubclass(w.category, LimitWarning) for w in caught):
        assert not result.solved
        return
    assert result.seconds <= 5.0 + 0.5
    assert np.count_nonzero(result.best) == 81


def test_summary_plans_the_default_techniques_move():
    """`info`'s plan is the launch `gpu-anneal solve FILE` makes: focused-two's kernel on 9x9
    (7 blocks an H100 SM, not the Sirdey kernel's 8), focused from 16x16."""
    orders = plan.summary(run_plan.card_plans(settings()), "H100 SXM")["orders"]
    assert orders["3"]["move"] == "focused-two" and orders["4"]["move"] == "focused"
    for order, entry in orders.items():
        p = plan.launch_plan(int(order), entry["move"], device="H100 SXM", **FIXED)
        assert entry["resident_blocks_per_sm"] == p["resident_blocks_per_sm"]
    sirdey = plan.launch_plan(3, "sirdey", device="H100 SXM", **FIXED)
    assert orders["3"]["resident_blocks_per_sm"] < sirdey["resident_blocks_per_sm"]


def test_a_one_off_host_cost_grows_a_slice_to_two_seconds_at_most():
    """A round whose host part took 30 s (a first compilation under load) would have set 120 s
    slices, which Ctrl-C waits for; grown slices stop at GROWN_SLICE_SECONDS."""
    from gpu_anneal.sudoku_solver import GROWN_SLICE_SECONDS

    slicer = Slicer(plateau=81, slice_seconds=0.25)
    slicer.measure(64_800_000, kernel=1.0, running=100_000, round_seconds=31.0)
    assert slicer.budget(running=100_000, least_left=None) == GROWN_SLICE_SECONDS / 0.125
    assert slicer.budget(running=100_000, least_left=None) * 0.125 < 30.0


def _sixteen_cores(order: int):
    """The reference machine's 16 cores as backend_choice models them (nothing measured here)."""
    from gpu_anneal import backend_choice as bc

    move = "focused-two" if order == 3 else "focused"
    return bc.Cores(bc.reference_cpu_rate(order, move, 16), 16, bc.CPU_LOAD, True, True)


def test_dry_run_says_which_backend_auto_takes_and_why(monkeypatch, tmp_path):
    """380 puzzles (top95 four times) on a described H100 beside 16 cores: with the card's
    kernels to compile, the cores finish first; with them cached, the card. --backend cuda says
    it was asked."""
    from gpu_anneal import backend_choice as bc

    top95 = (Path(plan.__file__).parent / "data" / "top95.txt").read_text()
    (tmp_path / "top95x4.txt").write_text(top95 * 4)
    top95 = str(tmp_path / "top95x4.txt")
    args = dict(device="H100 SXM", cores=_sixteen_cores(3), **FIXED)
    monkeypatch.setattr(bc, "card_kernel_cached", lambda *a: False)
    (cold,) = describe_plans([top95], settings(move="focused-two"), **args)
    assert cold["backend_choice"].startswith("auto: cpu, 380 puzzles of 9x9: cores ")
    assert "kernels to compile" in cold["backend_choice"]
    monkeypatch.setattr(bc, "card_kernel_cached", lambda *a: True)
    (warm,) = describe_plans([top95], settings(move="focused-two"), **args)
    assert warm["backend_choice"].startswith("auto: cuda, 380 puzzles of 9x9: cores ")
    assert f"  backend: {warm['backend_choice']}" in plan.format_plan(warm).splitlines()
    (asked,) = describe_plans([top95], settings(move="focused-two", backend="cuda"), **args)
    assert asked["backend_choice"] == "cuda: asked (--backend cuda)"


def test_dry_run_command_prints_the_choice(monkeypatch, tmp_path):
    """`solve FILE --dry-run --device 'H100 SXM'` prints the backend line above the plan (the
    kernel's rate model and this CPU's rate left out: nothing compiles, nothing is measured),
    on a machine where no card is found too."""
    from typer.testing import CliRunner

    from cli.main import app
    from gpu_anneal import backend_choice as bc
    from gpu_anneal import backends

    monkeypatch.setattr(backends, "cuda_status", lambda: (False, "no CUDA driver found"))

    monkeypatch.setattr(plan, "_modeled_rates", lambda *a: {})
    monkeypatch.setattr(bc, "cores_side", lambda order, move, measure=True: _sixteen_cores(order))
    monkeypatch.setattr(bc, "card_kernel_cached", lambda *a: True)
    path = tmp_path / "one.txt"
    path.write_text((DATA / "top95_head.txt").read_text().splitlines()[0] + "\n")
    run = CliRunner().invoke(app, ["solve", str(path), "--dry-run", "--device", "H100 SXM"])
    assert run.exit_code == 0, run.output
    lines = run.output.splitlines()
    assert lines[1].startswith("  backend: auto: cpu, 1 puzzle of 9x9: cores ")
    assert "card H100 SXM" in lines[1] and "kernels cached" in lines[1]


def test_dry_run_of_an_exact_solve_plans_the_exact_search_not_an_annealing_run(tmp_path):
    """`solve --method exact --dry-run`: per order, the exact search with its node cap and
    time limit; no chains, move or card. What a run refuses, the plan refuses too."""
    from typer.testing import CliRunner

    from cli.main import app
    from gpu_anneal.solvers import EXACT_NODES

    data = Path(plan.__file__).parent / "data"
    path = tmp_path / "two_orders.txt"
    path.write_text((data / "top95.txt").read_text().splitlines()[1] + "\n" + "." * 256 + "\n")
    run = CliRunner().invoke(app, ["solve", str(path), "--method", "exact", "--time-limit", "30",
                                   "--dry-run"])  # fmt: skip
    assert run.exit_code == 0, run.output
    assert "plan for 1 puzzle, 9x9, exact search (rules fast)" in run.stdout
    assert "plan for 1 puzzle, 16x16, exact search (rules fast)" in run.stdout
    assert run.stdout.count(f"up to {EXACT_NODES:,} branch values") == 2
    assert "--time-limit does not apply at 9x9" in run.stdout
    assert "time limit 30 s a puzzle" in run.stdout
    assert "chains" not in run.stdout and "move" not in run.stdout
    for extra, word in ((["--chains", "3"], "--chains"), (["--backend", "cuda"], "--backend"),
                        (["--device", "H100 SXM"], "--device")):  # fmt: skip
        refused = CliRunner().invoke(app, ["solve", str(path), "--method", "exact", "--dry-run",
                                           *extra])  # fmt: skip
        assert refused.exit_code == 2 and refused.stdout == "", refused.output
        assert word in refused.stderr and "exact" in refused.stderr
