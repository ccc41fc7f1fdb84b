"""A long search stops when asked: the stop flag of the exact searches and of the emptying of
grids, interrupts.stoppable, Ctrl-C during `solve --method exact`, `check --max-nodes 0` and
`generate --puzzles`, and the time limit of an exact solve."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace

import numpy as np
import pytest
from terminal_signals import sigint_as_from_a_terminal

from benchmarks.frontier_instances import make_instances
from cpu_reference.sudoku.exact import solve_exact, solve_restarts
from gpu_anneal import interrupts

# bench_frontier's second 36x36 instance at 50 % (seed 1): the exact search spends its
# 2,000,000 branch values (about a minute here) without settling it
HARD = make_instances([6], [50], 2, 1)[1]


@pytest.fixture(autouse=True)
def unspent_budget():
    """Each test starts with this thread's run budget unspent, as a new run does: a solve that
    another test ran in this process may have spent it (interrupts.until then sets no
    deadline)."""
    interrupts.reset_budget()


def _easy(instance):
    """The instance with its own solution's cells given but every 10th: settled at once."""
    cells = instance.grid.copy()
    cells[::10] = 0
    return replace(instance, cells=cells)


def _stopped_after(search, delay: float) -> tuple[tuple, float]:
    """search(stop) with stop set `delay` seconds in: its result and the seconds it ran on."""
    stop = np.ones(1, np.uint8)
    search(stop)  # compiled, and stopped at its first look
    stop[0] = 0
    threading.Timer(delay, lambda: stop.__setitem__(0, 1)).start()
    began = time.perf_counter()
    result = search(stop)
    return result, time.perf_counter() - began - delay


@pytest.mark.parametrize(
    "search",
    [
        lambda stop: solve_exact(HARD.cells, 6, 2, stop=stop),
        lambda stop: solve_exact(HARD.cells, 6, 2, rules="seed", stop=stop),
        lambda stop: solve_restarts(HARD.cells, 6, stop=stop),
    ],
    ids=["fast", "seed", "restarts"],
)
def test_a_stop_set_by_another_thread_ends_the_search_at_once(search):
    """Set 0.5 s in, the flag ends a search that would run for minutes within a second, with
    count -1 (not settled), as a spent node budget does."""
    (count, _, nodes), late = _stopped_after(search, 0.5)
    assert count == -1 and nodes > 0
    assert late < 1.0, late


def test_stoppable_gives_the_work_value_or_its_error():
    """The worker's value comes back; its exception is raised in the caller."""
    assert interrupts.stoppable(lambda stop: int(stop[0]) + 7) == 7

    def fails(stop):
        raise ValueError("bad grid")

    with pytest.raises(ValueError, match="bad grid"):
        interrupts.stoppable(fails)


def test_stoppable_sets_stop_and_raises_time_spent_once_the_deadline_passes():
    """A deadline 0.3 s away: the work sees stop set, ends, and the caller gets TimeSpent."""
    seen = []

    def work(stop):
        waited = time.perf_counter() + 10.0  # a stop never set fails the test, not hangs it
        while not stop[0] and time.perf_counter() < waited:
            time.sleep(0.01)
        seen.append(int(stop[0]))
        return "ended"

    began = time.perf_counter()
    try:
        with interrupts.until(began + 0.3), pytest.raises(interrupts.TimeSpent):
            interrupts.stoppable(work)
    finally:
        interrupts.reset_budget()
    assert seen == [1]
    assert time.perf_counter() - began < 2.0


def _interrupted(tmp_path, command: list[str]) -> tuple[subprocess.Popen, list[str], str, float]:
    """`command` on an easy 36x36 puzzle, then HARD; Ctrl-C once the easy one's record is out.
    The process, its stdout lines, its stderr and the seconds from the press to its end."""
    path = tmp_path / "two.tsv"
    path.write_text(_easy(HARD).tsv_line() + "\n" + HARD.tsv_line() + "\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "gpu_anneal", *command, str(path), "--format", "tsv",
         "--output", "jsonl"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=sigint_as_from_a_terminal,
    )  # fmt: skip
    first = proc.stdout.readline()  # the easy puzzle: the search's code is compiled by now
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    pressed = time.perf_counter()
    rest, stderr = proc.communicate(timeout=300)
    return proc, [first, *rest.splitlines()], stderr, time.perf_counter() - pressed


@pytest.mark.parametrize(
    ("command", "done"),
    [(["solve", "--method", "exact"], "solved"), (["check", "--max-nodes", "0"], "ok")],
    ids=["solve", "check"],
)
def test_ctrl_c_during_a_long_exact_search_ends_the_command_at_once(tmp_path, command, done):
    """Exit 130 within a few seconds of the press (the search alone would run for minutes),
    the easy puzzle's record kept, no traceback."""
    proc, lines, stderr, seconds = _interrupted(tmp_path, command)
    assert proc.returncode == 130, stderr
    assert seconds < 5.0, seconds
    first = json.loads(lines[0])
    assert first["index"] == 0 and first[done] is True, first
    assert "Traceback" not in stderr, stderr


def test_a_time_limit_stops_the_exact_search_of_a_36x36_puzzle_unsettled(tmp_path):
    """`solve --method exact --time-limit 1`: the search (minutes alone) stops after about a
    second, unsolved (exit 1), its error naming the limit, the limit in its params."""
    path = tmp_path / "hard.tsv"
    path.write_text(HARD.tsv_line() + "\n")
    proc = subprocess.run(
        [sys.executable, "-m", "gpu_anneal", "solve", str(path), "--format", "tsv", "--method",
         "exact", "--time-limit", "1", "--output", "jsonl", "-q"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    record = json.loads(proc.stdout.splitlines()[-1])
    assert proc.returncode == 1, proc.stderr
    assert record["status"] == "unsolved" and record["unique"] is None, record
    assert "at the time limit (1 s)" in record["error"], record["error"]
    assert record["params"]["time_limit"] == 1.0
    assert 0.9 <= record["timing"]["search"] < 3.0, record["timing"]


def test_a_deadline_ends_the_emptying_of_a_25x25_grid_at_once():
    """minimize_grids under a 1 s deadline: a try of minutes stops, TimeSpent is raised within
    a few seconds of the deadline (the code compiled first, on a 4x4 grid)."""
    from gpu_anneal import generation

    small, _ = generation.generate_grids(2, 1, "backtrack", seed=1)
    generation.minimize_grids(small, 2, seed=1, tries=1)
    grids, _ = generation.generate_grids(5, 1, "backtrack", seed=1)
    began = time.perf_counter()
    try:
        with interrupts.until(began + 1.0), pytest.raises(interrupts.TimeSpent):
            generation.minimize_grids(grids, 5, seed=1, tries=4)
    finally:
        interrupts.reset_budget()
    assert time.perf_counter() - began < 4.0


def test_ctrl_c_while_generate_empties_a_25x25_grid_ends_it_at_once():
    """`generate --order 5 --puzzles`: Ctrl-C after its notice of minutes to come ends it with
    exit 130 (each try alone runs for minutes), no traceback."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "gpu_anneal", "generate", "--order", "5", "--puzzles", "--count",
         "1", "--output", "jsonl", "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=sigint_as_from_a_terminal,
    )  # fmt: skip
    notice = proc.stderr.readline()
    assert "expect" in notice, notice
    time.sleep(3.0)
    proc.send_signal(signal.SIGINT)
    pressed = time.perf_counter()
    out, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 130, stderr
    assert time.perf_counter() - pressed < 60.0  # a cold compile may finish first
    assert out == "" and "Traceback" not in stderr, stderr


def test_the_worker_runs_numba_on_the_callers_thread_count():
    """numba keeps a thread count a thread: the grid batches' worker (until_stopped, by
    stoppable) takes the caller's (--threads), not every core."""
    import numba

    from gpu_anneal import generation

    seen = []
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        generation.until_stopped(lambda stop, rows: seen.append(numba.get_num_threads()), None)
        interrupts.stoppable(lambda stop: seen.append(numba.get_num_threads()))
    finally:
        numba.set_num_threads(before)
    assert seen == [1, 1, 1]
