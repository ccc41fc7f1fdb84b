"""The cooperative Sudoku kernel (one warp a chain, orders 4 to 6): simulator equality with the
CPU runner for every move it serves, the pool and replay on it, which kernel runs where, its
PTX, ptxas figures and round loop."""

from __future__ import annotations

import warnings

import pytest
from simulate import run_simulated

from cpu_reference.errors import InputError, KernelWarning
from cpu_reference.sudoku import rules

pytest.importorskip("numba.cuda")

BIG = 228 * 1024  # an H100 SM's shared memory, bytes


def _check_rows(rows: list[dict], kernel: str) -> None:
    for row in rows:
        assert row["equal"], row
        assert row["kernel"] == kernel
        assert 0 < row["accepted"] < row["proposals"] and row["trials"] > 2


@pytest.mark.cudasim
def test_simulated_cooperative_kernel_equals_the_cpu_runner():
    """Orders 4, 5 and 6 and three of the moves it serves (focused-two, focused, sirdey; the
    slow test below adds the candidate move and every other pair): counters, grids,
    bitboards, best grids, RNG rows and solved bounds equal after three slices; the focused
    moves solve their first puzzle on the way."""
    cases = ("4:focused-two:4", "5:focused:2", "6:sirdey:1")
    rows = run_simulated("coop_equality.py", *cases)
    assert [(r["order"], r["move"]) for r in rows] == [
        (4, "focused-two"), (5, "focused"), (6, "sirdey")
    ]  # fmt: skip
    _check_rows(rows, "coop")
    assert [r["status"][0] for r in rows] == [rules.SOLVED, rules.SOLVED, rules.RUNNING]


@pytest.mark.cudasim
@pytest.mark.slow
def test_simulated_cooperative_kernel_equals_the_cpu_runner_everywhere():
    """Every order and move, three chains a puzzle (a puzzle's bound shared by its chains)."""
    cases = [
        f"{order}:{move}:{seed}"
        for seed, (order, move) in enumerate(
            (o, m) for o in (4, 5, 6) for m in ("sirdey", "candidate", "focused", "focused-two")
        )
    ]
    rows = run_simulated("coop_equality.py", *cases, "--chains", "3")
    assert len(rows) == 12
    _check_rows(rows, "coop")


@pytest.mark.cudasim
def test_simulated_one_thread_kernel_with_philox_equals_the_cpu_runner():
    """The kernel the runner falls back to (one chain a thread) draws the same Philox draws:
    25x25, focused-two, the same arrays after the slices."""
    rows = run_simulated("coop_equality.py", "5:focused-two:3", "--kernel", "thread")
    _check_rows(rows, "thread")


@pytest.mark.cudasim
@pytest.mark.slow
def test_simulated_one_thread_kernel_equals_the_cpu_runner_at_49x49_and_64x64():
    """49x49 and 64x64 run one chain a thread with Philox draws (their cooperative block does
    not fit): the same arrays as the CPU runner after a short slice of a short plateau (the
    simulator interprets each step in Python; the 25x25 case above checks the same path in CI)."""
    rows = run_simulated(
        "coop_equality.py", "7:focused:1", "8:focused:1", "--kernel", "thread",
        "--plateau", "2", "--slices", "1",
    )  # fmt: skip
    assert [(r["order"], r["kernel"]) for r in rows] == [(7, "thread"), (8, "thread")]
    for row in rows:
        assert row["equal"], row
        assert row["proposals"] > 0 and row["trials"] == 2


@pytest.mark.cudasim
@pytest.mark.parametrize("kernel, case", [("coop", "4:focused:1"), ("thread", "3:sirdey:1")])
def test_chains_past_the_trial_cap_keep_their_arrays(kernel, case):
    """Three chains a puzzle and a cap of two trials: the third chain of each puzzle never
    starts one, and the kernel leaves its grid and bitboards as the CPU runner does (they were
    written back from a grid never drawn)."""
    rows = run_simulated(
        "coop_equality.py", case, "--chains", "3", "--trial-cap", "2", "--kernel", kernel
    )
    assert rows[0]["equal"], rows[0]
    assert rows[0]["trials"] == 4  # two a puzzle: the cap, so one chain each never ran


@pytest.mark.cudasim
def test_simulated_pool_on_the_cooperative_kernel_replays_on_the_cpu():
    """Three 16x16 puzzles through one slot, three chains each: all solved on the simulated
    card; each solving chain re-run alone on the CPU (replay_chain) solves after the same
    trials and proposals, at the same grid; the refilled puzzles' chains are reseeded with
    their own streams (the solving chains are not all a puzzle's first)."""
    rows = run_simulated("coop_pool.py")
    assert [r["index"] for r in rows] == [0, 1, 2]
    for row in rows:
        assert row["backend"] == "cuda" and row["solved"] and row["error"] is None, row
        assert row["replay"] == {
            "solved": True, "trials": row["trials"], "proposals": row["proposals"],
            "same_grid": True,
        }, row  # fmt: skip
        assert 3 * row["index"] <= row["chain"] < 3 * row["index"] + 3
    assert any(row["chain"] % 3 != 0 for row in rows)


def test_which_kernel_runs_where():
    """auto: the cooperative kernel for orders 4-6 and one-cell moves where a block fits; the
    one-thread kernel for 9x9 and the box swap (no reason given: their design), and where a
    chain's shared memory does not fit (the reason names the bytes)."""
    from gpu_anneal.kernels import sudoku_coop as coop

    for order in (4, 5, 6):
        for move in (
            rules.MOVE_SIRDEY,
            rules.MOVE_CANDIDATE,
            rules.MOVE_FOCUSED,
            rules.MOVE_FOCUSED_TWO,
        ):
            assert coop.choose(order, move, "auto", 48 * 1024, BIG) == ("coop", None)
        assert coop.choose(order, rules.MOVE_BOX_SWAP, "auto", 48 * 1024, BIG) == ("thread", None)
    assert coop.choose(3, rules.MOVE_FOCUSED_TWO, "auto", 48 * 1024, BIG) == ("thread", None)
    kind, why = coop.choose(6, rules.MOVE_FOCUSED, "auto", 32 * 1024, BIG)
    need = coop.shared_bytes_per_block(6, rules.MOVE_FOCUSED)
    assert kind == "thread" and f"{need:,} B" in why and "32,768" in why and "\n" not in why
    kind, why = coop.choose(5, rules.MOVE_FOCUSED, "auto", 48 * 1024, 8 * 1024)
    assert kind == "thread" and "8,192" in why
    assert coop.choose(4, rules.MOVE_FOCUSED, "thread", 48 * 1024, BIG) == ("thread", None)


def test_asking_for_the_cooperative_kernel_where_it_cannot_run_is_one_line():
    """kernel coop for 9x9, the box swap or a device too small, or an unknown kernel name: an
    InputError of one line naming the fault."""
    from gpu_anneal.kernels import sudoku_coop as coop

    cases = [
        ((3, rules.MOVE_FOCUSED_TWO, "coop", 48 * 1024, BIG), "order 3, move focused-two"),
        ((5, rules.MOVE_BOX_SWAP, "coop", 48 * 1024, BIG), "move box-swap"),
        ((6, rules.MOVE_SIRDEY, "coop", 16 * 1024, BIG), "shared memory"),
        ((4, rules.MOVE_SIRDEY, "warp", 48 * 1024, BIG), "kernel 'warp'"),
    ]
    for args, text in cases:
        with pytest.raises(InputError, match=text) as caught:
            coop.choose(*args)
        assert "\n" not in str(caught.value)


def test_a_kernel_fallback_prints_one_line_through_the_command_guard(capsys):
    """A KernelWarning raised inside a command body: one 'gpu-anneal:' line on stderr."""
    from cli.guard import guarded

    def body():
        text = "36x36: a cooperative chain needs more shared memory"
        warnings.warn(text, KernelWarning, stacklevel=2)
        return 0

    assert guarded(body) == 0
    err = capsys.readouterr().err
    assert err == "gpu-anneal: 36x36: a cooperative chain needs more shared memory\n"


def test_the_plan_runs_one_chain_a_block_where_the_cooperative_kernel_runs():
    """25x25 on an H100: 23 blocks of one warp an SM (shared memory), a wave of 132 x 23
    chains; on a card whose SMs cannot hold a block, the one-thread kernel's plan."""
    from gpu_anneal import plan

    fixed = {"host_seconds": 1e-3, "rate": 0.0}
    p = plan.launch_plan(5, "focused", puzzles=24, device="H100 SXM", **fixed)
    assert p["kernel"] == "coop" and p["threads_per_block"] == 32 and p["chains_per_block"] == 1
    assert p["resident_blocks_per_sm"] == 23 and p["wave"] == 132 * 23
    assert p["slots"] == 24 and p["chains"] >= p["wave"]
    assert "one warp a chain" in plan.format_plan(p)
    small = plan.with_card(plan.card_named("H100 SXM"), shared_per_sm=20 * 1024)
    q = plan.launch_plan(6, "focused", puzzles=2, device=small, **fixed)
    assert q["kernel"] == "thread" and q["chains_per_block"] == q["threads_per_block"]
    from gpu_anneal.resolve import resolve
    from gpu_anneal.run_plan import sudoku_plan
    from gpu_anneal.settings import SolveOptions

    run = sudoku_plan(resolve(SolveOptions(move="auto")), 3, "cuda", "cuda: asked")
    assert plan.make_plan(run, 5, "H100 SXM", **fixed)["kernel"] == "thread"


def test_model_acceptance_table_is_the_measured_one():
    """sudoku_coop.ACCEPTANCE holds benchmarks/results/kernels/coop_acceptance.json's pooled rates,
    rounded to three places, for every order and move the kernel serves."""
    import json
    from pathlib import Path

    from gpu_anneal.kernels.sudoku_coop import ACCEPTANCE, serves

    path = Path(__file__).parent.parent / "benchmarks/results/kernels/coop_acceptance.json"
    pooled = json.loads(path.read_text())["pooled"]
    assert {key for key in ACCEPTANCE if serves(*key)} == set(ACCEPTANCE)
    for (order, move), p in ACCEPTANCE.items():
        assert p == round(pooled[f"{order}:{rules.move_name(move)}"]["acceptance"], 3)


@pytest.mark.ptx
@pytest.mark.parametrize("order", [4, 5, 6])
def test_cooperative_kernel_ptx_shared_memory_and_round_loop(order):
    """Focused move, sm_90: ptxas's static shared memory is the layout's (values, boards,
    thresholds), no spill, no stack frame; the SASS holds one round loop (a Philox multiply and
    the ballot) with no local memory and no floating point in it, nor floating point in the
    plateau loop around it."""
    from gpu_anneal.kernels import ptx, sass
    from gpu_anneal.kernels import sudoku_coop as coop

    move = rules.MOVE_FOCUSED
    text = ptx.compile_ptx(
        coop.kernel_function(order, move), coop.kernel_signature(order, move), "sm_90",
        coop.launch_bounds(order, move),
    )  # fmt: skip
    assert "vote.sync.ballot" in text
    tool, nvdisasm = ptx.find_ptxas(), sass.find_nvdisasm()
    if tool is None or nvdisasm is None:
        pytest.skip("no ptxas or nvdisasm here")
    report = ptx.ptxas_report(text, "sm_90", tool)
    assert report.shared_bytes == coop.shared_bytes_per_block(order, move)
    assert report.stack_frame == report.spill_stores == report.spill_loads == 0
    listing = sass.read_listing(
        sass.disassemble(sass.assemble(text, "sm_90", tool).cubin, nvdisasm),
        coop.kernel_name(move),
    )
    summary = listing.summary()
    assert summary["move_loop_found"], summary
    assert summary["votes"] == 1 and summary["philox_multiplies"] >= 20
    assert (summary["fp"], summary["plateau_fp"]) == (0, 0)
    assert (summary["local_loads"], summary["local_stores"]) == (0, 0)
