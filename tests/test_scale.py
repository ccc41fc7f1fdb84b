"""Dask scale-out: a local cluster of two worker processes gives one process's results."""

from __future__ import annotations

import multiprocessing
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from cpu_reference.errors import InputError
from cpu_reference.sudoku.formats import read_puzzles
from cpu_reference.sudoku.schedules import sirdey
from cpu_reference.sudoku.verify import verify_solution
from gpu_anneal.run_plan import pool_plan
from gpu_anneal.sudoku_solver import solve_batch

DATA = Path(__file__).parent / "data" / "seed002_grids.txt"
FOUR = "1.3.\n.4..\n..2.\n.1.4\n\n...1\n3...\n....\n2..3\n\n.2..\n...4\n1...\n..3.\n"
SETTINGS = dict(chains=1, seed=11, time_limit=None, max_trials=20, move="candidate")


def planned(order: int, chunk: int = 2, backend: str = "cpu"):
    """The run plan of SETTINGS at this order, `chunk` puzzles a task."""
    return pool_plan(
        order, backend=backend, schedule=sirdey(order, t0=1.0), slots=chunk, propagate=False,
        spare_chains=None, **SETTINGS,
    )  # fmt: skip


def puzzle_sets() -> list[tuple[int, np.ndarray]]:
    """Three 4x4 puzzles (the first has no solution) and three easy 9x9 puzzles."""
    four = np.stack([p.cells for p in read_puzzles(FOUR, fmt="grid")])
    easy = read_puzzles(str(DATA))[0].cells
    digits = np.array([0, 4, 7, 1, 9, 2, 5, 8, 3, 6], dtype=np.uint8)
    nine = np.stack([easy, digits[easy], easy.reshape(9, 9).T.ravel()])
    return [(2, four), (3, nine)]


def same(a, b) -> None:
    assert a.index == b.index
    assert (a.solved, a.verified, a.cost) == (b.solved, b.verified, b.cost)
    assert (a.trials, a.proposals, a.accepted) == (b.trials, b.proposals, b.accepted)
    assert a.solving_chain == b.solving_chain and a.extra == b.extra
    assert np.array_equal(a.best, b.best)
    assert (a.solution is None) == (b.solution is None)
    if a.solution is not None:
        assert np.array_equal(a.solution, b.solution)


@pytest.mark.dask
def test_two_workers_equal_one_process():
    """Chunks of one or two puzzles on two workers against one solve_batch over all of them.

    The one-process run is a single task on one of the workers, so that numba compiles each
    (order, move) only in the two worker processes.
    """
    import distributed

    from gpu_anneal.scale import solve_on_dask

    sets = puzzle_sets()
    assert [grids.shape for _, grids in sets] == [(3, 16), (3, 81)]
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        for order, grids in sets:
            schedule = sirdey(order, t0=1.0)
            alone = client.submit(
                solve_batch, grids, order, schedule=schedule, backend="cpu", **SETTINGS
            ).result()
            plan = planned(order, chunk=2, backend="auto")
            spread = list(solve_on_dask(grids, order, plan, scheduler=cluster.scheduler_address))
            assert sorted(r.index for r in spread) == [0, 1, 2]
            for result in spread:
                same(result, alone[result.index])
            solved = [r.solved for r in sorted(spread, key=lambda r: r.index)]
            assert solved == ([False, True, True] if order == 2 else [True] * 3)


@pytest.mark.dask
def test_local_cluster_closed_when_the_stream_is_closed():
    """Closing the stream early (as Ctrl-C does) cancels the rest and closes the local cluster."""
    from gpu_anneal.scale import solve_on_dask

    order, grids = puzzle_sets()[0]
    stream = solve_on_dask(grids[1:], order, planned(order, chunk=1), workers=1)
    first = next(stream)
    assert first.index in (0, 1) and first.solved
    assert verify_solution(first.solution, order, grids[1 + first.index]) is None
    stream.close()
    assert multiprocessing.active_children() == []


@pytest.mark.dask
def test_bad_arguments():
    from gpu_anneal.scale import solve_on_dask

    grids = puzzle_sets()[0][1]
    with pytest.raises(InputError, match="not both"):
        solve_on_dask(grids, 2, planned(2), scheduler="tcp://127.0.0.1:1", workers=1)
    with pytest.raises(InputError, match="batch = 0"):  # the chunk: the plan's slots
        solve_on_dask(grids, 2, planned(2, chunk=0), workers=1)
    with pytest.raises(ValueError, match="settle chains and slots"):
        solve_on_dask(grids, 2, replace(planned(2), chains=None), workers=1)  # left to a pool


def test_missing_dask_names_the_extra(monkeypatch):
    """Without dask: a MissingExtra (an ImportError and a BackendError) naming the extra and
    the quoted pip command."""
    from gpu_anneal import scale
    from gpu_anneal.backends import BackendError, MissingExtra

    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(MissingExtra, match=r'pip install "gpu-anneal\[dask\]"') as caught:
        scale.solve_on_dask(np.zeros((1, 16), np.uint8), 2, planned(2), workers=1)
    assert isinstance(caught.value, ImportError) and isinstance(caught.value, BackendError)


@pytest.mark.dask
def test_scheduler_address_malformed_or_unanswered(monkeypatch):
    """A malformed address: InputError before anything starts; an address where nothing
    answers: BackendError naming it once the stream starts, after CONNECT_SECONDS at most."""
    import time

    from gpu_anneal import scale
    from gpu_anneal.backends import BackendError

    grids = puzzle_sets()[0][1]
    with pytest.raises(InputError, match="'tcp://host:port': not a scheduler address"):
        scale.solve_on_dask(grids, 2, planned(2), scheduler="tcp://host:port")
    monkeypatch.setattr(scale, "CONNECT_SECONDS", 1)
    stream = scale.solve_on_dask(grids, 2, planned(2), scheduler="tcp://127.0.0.1:1")
    start = time.perf_counter()
    with pytest.raises(BackendError, match="no Dask scheduler answers at 'tcp://127.0.0.1:1'"):
        next(stream)
    assert time.perf_counter() - start < 20


@pytest.mark.dask
def test_a_run_whose_last_answer_came_past_total_time_is_not_stopped(monkeypatch, tmp_path):
    """A Dask run whose cluster took longer than --total-time to start, every puzzle solved:
    the run said `stopped, --total-time 1 s spent` and exited 1, as if puzzles were left. The
    cluster is faked by solve_chunk in this process after a wait past the budget."""
    import time
    from concurrent.futures import ThreadPoolExecutor

    from typer.testing import CliRunner

    import gpu_anneal.scale as scale
    from cli.main import app

    def late(cells, order, plan, **kwargs):  # a worker: a thread of its own, with no budget
        with ThreadPoolExecutor(1) as worker:
            results = worker.submit(scale.solve_chunk, cells, order, 0, plan).result()
        time.sleep(0.6)
        yield from results

    monkeypatch.setattr(scale, "solve_on_dask", late)
    path = tmp_path / "easy.txt"
    path.write_text(DATA.read_text().splitlines()[0] + "\n")
    args = ["solve", str(path), "--workers", "1", "--total-time", "0.3", "--seed", "1"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.stderr
    assert "1 solved, 0 unsolved, 0 bad" in result.stderr
    assert "stopped" not in result.stderr
