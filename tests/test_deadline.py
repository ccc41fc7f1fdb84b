"""A call given to a forked child ends by its deadline: the child is killed and reaped, its
answer or its exception comes back, and a large integer program's time limit holds."""

import os
import signal
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import scipy.optimize
from scipy.optimize import Bounds, LinearConstraint

from benchmarks.bench_million_cells import puzzles
from cpu_reference import deadline
from cpu_reference.hashi import ilp as HI
from cpu_reference.hashi import puzzle as H

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux only")

MARGIN = 1.0  # seconds a killed call may take past its limit on a loaded machine


def _gone(pid: int) -> bool:
    """Whether no process (not even a zombie) has this id any more."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _sleeper(pid_file, seconds: float):
    """A work that writes its process id, then sleeps."""

    def work():
        pid_file.write_text(str(os.getpid()))
        time.sleep(seconds)
        return "late"

    return work


def test_a_child_past_its_deadline_is_killed_and_reaped(tmp_path):
    pid_file = tmp_path / "pid"
    start = time.perf_counter()
    finished, value = deadline.call_within(0.5, _sleeper(pid_file, 60))
    wall = time.perf_counter() - start
    assert (finished, value) == (False, None)
    assert 0.5 <= wall < 0.5 + MARGIN, f"{wall:.2f} s for a limit of 0.5 s"
    child = int(pid_file.read_text())
    assert child != os.getpid() and _gone(child)


def test_a_childs_value_and_exception_come_back():
    big = np.arange(3_000_000, dtype=np.float64)  # more than a pipe holds at once
    finished, value = deadline.call_within(30, lambda: big * 2)
    assert finished and np.array_equal(value, big * 2)

    def fails():
        raise ValueError("no such island at row 3")

    with pytest.raises(ValueError, match="no such island at row 3"):
        deadline.call_within(30, fails)


def test_a_child_that_dies_without_an_answer_is_named():
    """A child's death without an answer is a MemoryError naming how it ended (the kernel's
    out-of-memory killer sends SIGKILL), where in-process the whole run would have died."""
    with pytest.raises(deadline.ChildLost, match="ended with exit code 3 without an answer"):
        deadline.call_within(30, lambda: os._exit(3))
    with pytest.raises(MemoryError, match=r"ended by SIGKILL \(the memory's limit\?\)"):
        deadline.call_within(30, lambda: os.kill(os.getpid(), signal.SIGKILL))


def test_without_fork_the_work_runs_here(monkeypatch):
    monkeypatch.delattr(os, "fork")
    assert deadline.call_within(0.01, os.getpid) == (True, os.getpid())
    monkeypatch.undo()
    monkeypatch.setattr(sys, "platform", "darwin")
    assert deadline.call_within(0.01, os.getpid) == (True, os.getpid())


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                    reason="Ctrl-C reaches the main thread only")  # fmt: skip
def test_ctrl_c_while_waiting_kills_the_child(tmp_path):
    pid_file = tmp_path / "pid"
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # a worker may ignore it
    press = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    try:
        press.start()
        with pytest.raises(KeyboardInterrupt):
            deadline.call_within(60, _sleeper(pid_file, 60))
    finally:
        press.join()
        signal.signal(signal.SIGINT, before)
    assert _gone(int(pid_file.read_text()))


def _tiny_problem(columns: int) -> dict:
    return {
        "c": -np.ones(columns),
        "constraints": [LinearConstraint(np.ones((1, columns)), 0, 2)],
        "integrality": np.ones(columns),
        "bounds": Bounds(0, 1),
    }


def test_milp_within_answers_small_and_large_programs(monkeypatch):
    """A program above FORK_COLUMNS is solved in a child, one below here: both optimal."""
    small = deadline.milp_within(30, **_tiny_problem(4))
    assert small.status == 0 and round(-small.fun) == 2
    monkeypatch.setattr(deadline, "FORK_COLUMNS", 3)
    seen = []
    real = scipy.optimize.milp

    def recording(**problem):
        seen.append(os.getpid())
        return real(**problem)

    monkeypatch.setattr(scipy.optimize, "milp", recording)
    large = deadline.milp_within(30, **_tiny_problem(4))
    assert large.status == 0 and round(-large.fun) == 2
    assert seen == []  # the child's record stayed in the child


def test_milp_within_kills_a_solve_past_its_limit(monkeypatch):
    monkeypatch.setattr(deadline, "FORK_COLUMNS", 3)
    monkeypatch.setattr(scipy.optimize, "milp", lambda **problem: time.sleep(60))
    start = time.perf_counter()
    res = deadline.milp_within(0.5, **_tiny_problem(4))
    wall = time.perf_counter() - start
    assert res.status == deadline.TIME_LIMIT_STATUS and res.x is None
    assert wall < 0.5 + MARGIN, f"{wall:.2f} s for a limit of 0.5 s"


def test_hashi_ilp_ends_by_its_limit_when_highs_would_not(monkeypatch):
    """A 201x201 lattice (more than FORK_COLUMNS columns) whose HiGHS would run for a minute,
    given 2 s: time_limit, within the margin."""
    p = H.parse(puzzles(202)["hashi lattice"][1], "lattice")
    monkeypatch.setattr(scipy.optimize, "milp", lambda **problem: time.sleep(60))
    start = time.perf_counter()
    res = HI.solve_ilp(p, time_limit=2.0)
    wall = time.perf_counter() - start
    assert res["status"] == "time_limit" and res["rounds"] == 1 and res["bridges"] is None
    assert wall < 2.0 + MARGIN, f"{wall:.2f} s for a limit of 2 s"


def test_the_commands_page_names_the_programs_given_a_child():
    page = (Path(__file__).parent.parent / "docs" / "commands.md").read_text()
    assert f"more than {deadline.FORK_COLUMNS:,} variables" in " ".join(page.split())
