"""The persistent pool: its kernel's queue, record ring, spare chains, stop flag and replay in
the CUDA simulator (the real kernel source), its PTX for sm_80 and sm_90, and the host's side
(records as status rows, the option's checks)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from simulate import run_simulated

from cpu_reference.errors import InputError
from cpu_reference.sudoku import rules
from gpu_anneal import pool_status as S
from gpu_anneal import sudoku_solver
from gpu_anneal.kernels import persistent_layout as L


def test_layout_constants_match_the_rules_and_the_pool():
    """The kernel's copies of the bound and the spare stride are the rules' and the pool's."""
    assert L.NOT_SOLVED == rules.NOT_SOLVED
    assert L.SPARE_STRIDE == sudoku_solver.SPARE_STRIDE


def test_rank_key_orders_chains_as_the_slice_pool_reports_them():
    """Solved before unsolved; fewer proposals (lower cost) first; then round m, then index."""
    keys = [
        L.rank_key(True, 100, 0, 5),
        L.rank_key(True, 100, 1, 0),
        L.rank_key(True, 101, 0, 0),
        L.rank_key(False, 0, 0, 0),
        L.rank_key(False, 3, 0, 1),
    ]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert L.rank_key(True, 100, 0, 4) < keys[0]
    assert all(k < L.NO_KEY for k in keys)


def test_records_become_status_rows():
    """A done record's fields land in the pool_status columns _results reads; a record with no
    reported chain reports chain 0 with no counts."""
    from gpu_anneal.persistent_pool import status_rows

    rec = np.zeros((2, L.N_REC), np.int64)
    rec[0, [L.R_KEY, L.R_PICK, L.R_PICK_COST, L.R_PICK_TRIALS, L.R_PICK_PROPOSALS]] = (
        5, L.SPARE_STRIDE + 3, 0, 2, 777,
    )  # fmt: skip
    rec[0, [L.R_SOLVED, L.R_TRIALS, L.R_PROPOSALS, L.R_ACCEPTED]] = (1, 9, 4000, 300)
    rec[1, L.R_KEY] = L.NO_KEY
    rows = status_rows(rec, 4)
    assert rows[0, S.S_PICK] == L.SPARE_STRIDE + 3 and rows[0, S.S_PICK_PROPOSALS] == 777
    assert rows[0, S.S_PICK_TRIALS] == 2 and rows[0, S.S_SOLVED] == 1
    assert list(rows[0, [S.S_TRIALS, S.S_PROPOSALS, S.S_ACCEPTED]]) == [9, 4000, 300]
    assert rows[1, S.S_PICK] == 0 and rows[1, S.S_PICK_TRIALS] == 0
    assert rows[1, S.S_PICK_COST] == np.iinfo(np.int64).max


def test_a_pool_not_known_is_refused_in_one_line():
    """pool="ring": InputError naming the parameter and the choices."""
    import gpu_anneal

    with pytest.raises(InputError, match=r"pool.*persistent.*slices") as err:
        gpu_anneal.solve(["1..." + "." * 12], order=2, backend="cpu", pool="ring")
    assert "\n" not in str(err.value)


def test_the_cpu_backend_takes_either_pool_and_runs_as_ever():
    """pool="persistent" and "slices" on the CPU: the same results (the option has no effect
    there), and a kind without pools refuses it."""
    import gpu_anneal

    puzzle = ["1..." + "." * 12]
    runs = [
        gpu_anneal.solve(puzzle, order=2, backend="cpu", chains=2, seed=3, pool=pool)[0]
        for pool in ("persistent", "slices", None)
    ]
    assert all(r.solved for r in runs)
    assert len({(str(r.solution), r.counts.chain_proposals) for r in runs}) == 1
    with pytest.raises(InputError, match="pool"):
        gpu_anneal.solve(puzzle, order=2, method="exact", pool="slices")


@pytest.mark.cudasim
def test_simulated_queue_and_ring_report_every_puzzle_once_and_each_replays():
    """4x4 (five puzzles) and 9x9 (three puzzles) through a ring of two rows (rows reused,
    several launches), four chains each: every puzzle taken from the queue once and drained
    from the ring once, all solved, and replay_chain of each reported chain gives its grid,
    trials and proposals."""
    got = run_simulated("persistent_pool.py", "replay")
    assert got["2"]["indices"] == [0, 1, 2, 3, 4] and got["2"]["solved"] == 5
    assert got["2"]["launches"] >= 3 and got["3"]["launches"] >= 2
    assert got["3"]["indices"] == [0, 1, 2] and got["3"]["solved"] == 3
    for order in ("2", "3"):
        assert all(got[order]["replayed"]), got[order]
        assert all(p > 0 for p in got[order]["proposals"])


@pytest.mark.cudasim
def test_simulated_spare_chains_join_unsolved_puzzles_and_replay():
    """Two 4x4 puzzles on four groups of four chains, the input closed from the start: chains
    with no task join the puzzles (spare streams past 2**40), and each reported chain, spare or
    not, replays to the same grid, trials and proposals."""
    got = run_simulated("persistent_pool.py", "spare")
    assert got["indices"] == [0, 1]
    assert sum(got["spare"]) > 0
    assert all(got["replayed"]), got


@pytest.mark.cudasim
def test_simulated_stop_flag_reports_every_published_puzzle_interrupted():
    """The stop flag set before the kernel runs (Ctrl-C): no chain takes a task, and every
    puzzle published (the first chunk: two, one a resident group) is reported once, unsolved,
    with error "interrupted"."""
    got = run_simulated("persistent_pool.py", "stop")
    assert got["indices"] == [0, 1]
    assert got["solved"] == 0 and got["errors"] == ["interrupted"] and got["proposals"] == 0


@pytest.mark.cudasim
def test_simulated_stop_flag_set_while_the_kernel_runs_loses_nothing():
    """Four 4x4 puzzles in chunks of two, the fourth never solving: the first two are handed
    out; during the second launch, once the third puzzle is DONE, the host sets the stop flag
    (Ctrl-C) while the kernel runs: the fourth one's chains stop (else the launch would never
    end), and the interruption reports the third solved and the fourth unsolved with error
    "interrupted", every puzzle once, and each solved one replays on the CPU."""
    got = run_simulated("persistent_pool.py", "midstop")
    assert got["stopped_in"] == 2
    assert got["handed"] == [0, 1] and got["reported"] == [2, 3]
    assert got["solved"] == [0, 1, 2]
    assert got["errors"] == {"0": None, "1": None, "2": None, "3": "interrupted"}
    assert len(got["replayed"]) == 3 and all(got["replayed"]), got


@pytest.mark.cudasim
def test_simulated_slow_puzzle_holds_up_no_other_row():
    """Five 4x4 puzzles through a ring of three rows, the first one's record read as running
    for its first drains (a slow puzzle): the next puzzles go into the other rows, passing over
    the held one (its row taken again only once drained), the kernel runs each from the row the
    order ring names, every puzzle is reported once, solved, the held one last, and each
    reported chain replays."""
    got = run_simulated("persistent_pool.py", "held")
    assert got["rows"] == [0, 1, 2, 1, 2]
    assert got["indices"] == [0, 1, 2, 3, 4] and got["solved"] == 5
    assert got["order"][-1] == 0
    assert all(got["replayed"]), got


def test_free_rows_go_round_the_ring_from_the_cursor_passing_over_held_rows():
    """The host's next free rows: from the row after the last one published, round the ring,
    rows still held passed over, at most the count asked."""
    from types import SimpleNamespace

    from gpu_anneal.persistent_pool import PersistentPool

    batch = SimpleNamespace(given_vals=np.zeros((1, 16), np.uint8), puzzles=2)
    pool = PersistentPool(batch, None, iter(()), 0, 0, {}, False, 5, None)
    pool.row_q[[1, 3]] = (7, 9)  # rows 1 and 3 hold puzzles
    pool.cursor = 3
    assert pool.free_rows(2).tolist() == [4, 0]
    assert pool.free_rows(9).tolist() == [4, 0, 2]
    pool.row_q[:] = 0
    assert pool.free_rows(2).size == 0


@pytest.mark.ptx
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_persistent_kernel_compiles_with_its_atomics_and_the_slice_kernels_shared_state(arch):
    """9x9, Sirdey's move: the persistent kernel compiles to PTX for the architecture (no Python
    object: nopython CUDA), takes tasks and locks by compare-and-swap (atom.cas), keeps the
    chains' state in the slice kernel's shared memory, and ptxas fits it in the launch bounds'
    registers (its spills are printed: the kernel's figures)."""
    pytest.importorskip("numba.cuda")
    from gpu_anneal.kernels import persistent as kp
    from gpu_anneal.kernels import ptx
    from gpu_anneal.kernels import sudoku as ks

    move = rules.MOVE_SIRDEY
    bounds = ks.launch_bounds(3, move, arch)
    text = ptx.compile_ptx(kp.kernel_function(3, move), kp.kernel_signature(3, move), arch, bounds)
    assert "atom.global.cas" in text and "atom.global.add" in text
    assert text.count("ld.shared") > 10 and text.count("st.shared") > 10
    report = ptx.ptxas_report(text, arch)
    if report is None:
        pytest.skip("no ptxas")
    print(arch, report)
    assert report.shared_bytes == ks.shared_bytes_per_block(3, move)
    threads, blocks = bounds
    assert report.registers * threads * blocks <= 65536


def test_the_command_line_takes_pool_and_names_a_wrong_one():
    """solve --pool slices on the CPU solves as without it; --pool ring: exit 2, one line
    naming --pool and the choices, no traceback."""
    from typer.testing import CliRunner

    from cli.main import app

    cli = CliRunner()
    args = ["solve", "-", "--backend", "cpu", "--chains", "2", "--output",
            "jsonl", "--quiet"]  # fmt: skip
    plain = cli.invoke(app, args, input="1...............\n")
    pooled = cli.invoke(app, [*args, "--pool", "slices"], input="1...............\n")
    assert plain.exit_code == pooled.exit_code == 0, pooled.output
    assert json.loads(plain.stdout)["solution"] == json.loads(pooled.stdout)["solution"]
    bad = cli.invoke(app, [*args, "--pool", "ring"], input="1...............\n")
    assert bad.exit_code == 2 and "Traceback" not in bad.output
    assert "--pool" in bad.output and "persistent" in bad.output


def test_the_ring_holds_sixteen_rows_a_group_at_most_the_input_and_a_cap():
    """Ring rows: sixteen a resident group; the puzzles and one when the count is known (an
    empty input, as the warm-up's: one row, not sixteen a group of a wave of one-chain groups);
    never more than RING_MAX."""
    from types import SimpleNamespace

    from gpu_anneal.persistent_pool import RING_MAX, ring_rows

    assert ring_rows(SimpleNamespace(puzzles=100)) == 1600
    assert ring_rows(SimpleNamespace(puzzles=100), 5) == 6
    assert ring_rows(SimpleNamespace(puzzles=140_000), 0) == 1
    assert ring_rows(SimpleNamespace(puzzles=140_000)) == RING_MAX


def test_stop_reports_every_puzzle_not_handed_out_once_unsolved_ones_with_the_error():
    """stop(): rows held are reported in puzzle order after the outbox, once each; a record
    the stop made DONE (its chains stopped by the flag) counts as interrupted, not finished,
    as does one still running; a solved one keeps no error; every row is freed."""
    from types import SimpleNamespace

    from gpu_anneal.persistent_pool import PersistentPool

    rec = np.zeros((3, L.N_REC), np.int64)
    rec[:, L.R_KEY] = L.NO_KEY
    rec[:, L.R_STATE] = (L.DONE, L.DONE, L.PUBLISHED)
    rec[0, L.R_SOLVED] = 1
    runner = SimpleNamespace(
        set_control=lambda field, value: None, wait=lambda: None,
        records=lambda: (rec, np.zeros((3, 16), np.uint8)),
    )  # fmt: skip

    def make_results(batch, status, *args):
        qs = args[5]
        return [SimpleNamespace(index=int(q), solved=bool(row[S.S_SOLVED]), error=None, extra={})
                for row, q in zip(status, qs, strict=True)]  # fmt: skip

    batch = SimpleNamespace(given_vals=np.zeros((1, 16), np.uint8), puzzles=1, cpp=2)
    pool = PersistentPool(batch, runner, iter(()), 0, 0, {"seed": 0, "move": "sirdey"}, False,
                          3, make_results)  # fmt: skip
    pool.row_q[:] = (5, 4, 6)
    pool.outbox.append(SimpleNamespace(index=3, solved=True, error=None))
    out = pool.stop("interrupted")
    assert [r.index for r in out] == [3, 4, 5, 6]
    assert [r.error for r in out] == [None, "interrupted", None, "interrupted"]
    assert (pool.row_q == -1).all()


def test_49x49_and_64x64_run_on_the_persistent_pool():
    """49x49 and 64x64 run one chain a thread (their cooperative block is never built): a CUDA
    run takes the persistent pool for them, asked for or by default on a card, every one-cell
    move; 9x9 too; the box swap at 49x49 as ever."""
    from gpu_anneal.persistent_pool import serves

    one_cell = (rules.MOVE_SIRDEY, rules.MOVE_CANDIDATE, rules.MOVE_FOCUSED,
                rules.MOVE_FOCUSED_TWO)  # fmt: skip
    for order in (7, 8):
        for move in one_cell:
            assert serves(order, move) and not serves(order, move, "coop"), (order, move)
            assert sudoku_solver.persistent_chosen("persistent", order, move)
            assert sudoku_solver.persistent_chosen(None, order, move)
            assert not sudoku_solver.persistent_chosen("slices", order, move)
        assert serves(order, rules.MOVE_BOX_SWAP)
    assert serves(3, rules.MOVE_FOCUSED_TWO)
    assert not serves(9, rules.MOVE_FOCUSED)


@pytest.mark.ptx
@pytest.mark.slow
def test_persistent_kernel_compiles_at_49x49():
    """49x49, the focused move, sm_90: the persistent kernel (one chain a thread, Philox draws)
    compiles to PTX with its atomics, and ptxas fits it in the launch bounds' registers (its
    spills and stack are printed: the kernel's figures). Slow (about 30 s): the 9x9 build above
    checks the same source in CI."""
    pytest.importorskip("numba.cuda")
    from gpu_anneal.kernels import persistent as kp
    from gpu_anneal.kernels import ptx
    from gpu_anneal.kernels import sudoku as ks

    move, arch = rules.MOVE_FOCUSED, "sm_90"
    bounds = ks.launch_bounds(7, move, arch)
    text = ptx.compile_ptx(kp.kernel_function(7, move), kp.kernel_signature(7, move), arch, bounds)
    assert "atom.global.cas" in text and "atom.global.add" in text
    report = ptx.ptxas_report(text, arch)
    if report is None:
        pytest.skip("no ptxas")
    print(arch, report)
    threads, blocks = bounds
    assert report.registers * threads * blocks <= 65536


def test_the_cooperative_orders_run_on_the_persistent_cooperative_kernel():
    """16x16 to 36x36 with a one-cell move: the persistent pool serves them one warp a chain
    where the cooperative block fits (an H100's limits); where only the slice block fits (the
    task words do not), slices with one line naming the bytes; where neither fits, one chain a
    thread with the cooperative kernel's own reason."""
    from gpu_anneal.kernels import persistent as kp
    from gpu_anneal.kernels import sudoku_coop as coop
    from gpu_anneal.persistent_pool import persistent_kernel, serves

    big = (48 * 1024, 228 * 1024)
    for order in (4, 5, 6):
        for move in (rules.MOVE_SIRDEY, rules.MOVE_FOCUSED, rules.MOVE_FOCUSED_TWO):
            assert serves(order, move) and serves(order, move, "coop")
            assert persistent_kernel(order, move, big) == ("coop", None)
        assert persistent_kernel(order, rules.MOVE_BOX_SWAP, big) == ("thread", None)
    move = rules.MOVE_FOCUSED
    slice_block = coop.shared_bytes_per_block(6, move)
    need = kp.coop_shared_bytes(6, move)
    assert slice_block < need <= slice_block + 8 + kp.TASK_BYTES
    kind, why = persistent_kernel(6, move, (slice_block, 228 * 1024))
    assert kind == "slices" and f"{need:,} B" in why and "\n" not in why
    kind, why = persistent_kernel(6, move, (16 * 1024, 228 * 1024))
    assert kind == "thread" and "one chain a thread" in why


@pytest.mark.cudasim
def test_simulated_cooperative_persistent_kernel_replays_every_reported_chain():
    """Two mostly-given 16x16 puzzles, the focused move, two chains each, on the persistent
    cooperative kernel (one warp a chain, rounds of one plateau of 16 moves): both reported
    once, solved, each by its second chain, and replay_chain of each reported chain gives its
    grid, trials and proposals (the first one's crosses rounds and trials)."""
    got = run_simulated("persistent_pool.py", "coop")
    assert got["kernels"] == ["coop"]
    assert got["indices"] == [0, 1] and got["solved"] == 2
    assert got["chains"] == [1, 3]
    assert got["proposals"][0] > 32
    assert all(got["replayed"]), got


@pytest.mark.ptx
@pytest.mark.parametrize(
    "order, arch",
    [(4, "sm_90"), pytest.param(4, "sm_80", marks=pytest.mark.slow),
     pytest.param(5, "sm_90", marks=pytest.mark.slow),
     pytest.param(5, "sm_80", marks=pytest.mark.slow)],
)  # fmt: skip
def test_persistent_cooperative_kernel_compiles_with_warp_votes_and_its_shared_block(order, arch):
    """The focused move: the persistent cooperative kernel compiles to PTX (nopython CUDA) with
    the warp's ballot, its barriers and the queue's atomics; ptxas's static shared memory is
    the slice kernel's chain state and the task words, and its registers fit the launch bounds
    (its spills are printed: the kernel's figures). 16x16 on sm_90 in CI (about 25 s a build)."""
    pytest.importorskip("numba.cuda")
    from gpu_anneal.kernels import persistent as kp
    from gpu_anneal.kernels import ptx

    move = rules.MOVE_FOCUSED
    bounds = kp.coop_launch_bounds(order, move, arch)
    text = ptx.compile_ptx(kp.coop_kernel_function(order, move),
                           kp.kernel_signature(order, move), arch, bounds)  # fmt: skip
    assert "vote.sync.ballot" in text and "bar.warp.sync" in text
    assert "atom.global.cas" in text and "atom.global.add" in text
    report = ptx.ptxas_report(text, arch)
    if report is None:
        pytest.skip("no ptxas")
    print(arch, order, report)
    assert report.shared_bytes == kp.coop_shared_bytes(order, move)
    threads, blocks = bounds
    assert threads == 32 and report.registers * threads * blocks <= 65536
