"""Ctrl-C anywhere: every puzzle read is reported once, the run ends with KeyboardInterrupt, and
the command line exits 130, a second Ctrl-C included.

The pool is interrupted at every event of a small 4x4 run (tests/cuda_sim/interrupt_points.py:
each runner call's entry and return, the pool's refill and result, the source's next, the
consumer), on the CPU runner here and on the CUDA runner under the simulator.
"""

from __future__ import annotations

import gc
import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from cuda_sim.interrupt_points import faults, item_run, pool_run
from simulate import run_simulated
from terminal_signals import sigint_as_from_a_terminal

import gpu_anneal
from cli.output import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_OK, EXIT_UNSOLVED
from cli.tally import Tally
from cpu_reference.sudoku.formats import read_puzzles
from gpu_anneal import backends, datasets, interrupts, plan, sudoku_solver
from gpu_anneal.standin import StandInRunner
from gpu_anneal.sudoku_solver import POOL_GC_THRESHOLD, fewer_collections

HERE = Path(__file__).parent
POOL_EVENTS = {"run", "status", "fetch", "fetched", "load", "refill", "next", "results", "consumer"}


def every_point(run) -> tuple[list[str], set[str], int]:
    """run(k, 'cpu') for k = 1, 2, ... until a run ends before its k-th event: the faults of
    each, the events interrupted (by name) and how many runs."""
    found, where, k = [], set(), 0
    while True:
        k += 1
        one = run(k, "cpu")
        found += [f"Ctrl-C {k} at {one['where']}: {f}" for f in faults(one)]
        if one["where"] is None:
            return found, where, k
        where.add(one["where"].split(":")[0])


def test_ctrl_c_at_every_point_of_a_cpu_pool_run_reports_each_puzzle_once():
    """solve_stream on the CPU runner, Ctrl-C at each event (before, during and after every
    refill): the run ends with KeyboardInterrupt, every puzzle read is reported once (handed
    out, or in InterruptedBatch.results), none that was not read, none solved unverified."""
    found, where, runs = every_point(pool_run)
    assert found == []
    assert where >= POOL_EVENTS and runs > 50


def test_ctrl_c_at_every_point_of_the_solvers_reports_each_item_once():
    """The solvers' Sudoku annealing on Items (what api.solve_stream runs), Ctrl-C at each
    event, the warm-up and the building of each Result included: no KeyError or other fault,
    KeyboardInterrupt at the end, every item read reported once (unstarted ones interrupted)."""
    found, where, runs = every_point(item_run)
    assert found == []
    assert where >= POOL_EVENTS - {"consumer"} | {"_from_pool"} and runs > 50


@pytest.mark.cudasim
@pytest.mark.slow
def test_ctrl_c_at_many_points_of_a_cuda_pool_run_in_the_simulator():
    """The CUDA runner (slices, the refill before each relaunch) under the simulator, three
    puzzles in two slots, Ctrl-C at every second event of the run: no fault. (Which events a
    stride hits depends on when the simulated chains see a puzzle solved; the CPU test above
    takes every event.) Slow: CI keeps the CPU pool at every event and the CUDA pool with
    spare chains at every tenth (test_ctrl_c_with_spare_chains_in_a_cuda_pool_run_...)."""
    result = run_simulated("sudoku_interrupts.py", "pool", "3", "2")
    assert result["faults"] == []
    assert result["runs"] >= 25 and set(result["where"]) >= {"run", "status", "load", "refill"}


def test_ctrl_c_with_spare_chains_in_the_pool_reports_each_puzzle_once():
    """Spare chains on (the slots the others leave take the unsolvable puzzle's chains once the
    input is exhausted), Ctrl-C at every third event of a CPU pool run (0.3 s a puzzle): no
    fault; a run without Ctrl-C (1 s a puzzle) reports the unsolvable puzzle once, with its
    spare chains."""
    whole = pool_run(10**9, "cpu", spare=1.0)
    assert faults(whole) == []
    spare = {r["index"]: r["spare_chains"] for r in whole["handed"]}
    assert spare[2] > 0 and sorted(spare) == list(range(len(spare)))
    found, where = [], set()
    for k in range(1, whole["events"] + 1, 3):
        one = pool_run(k, "cpu", spare=0.3)
        found += [f"Ctrl-C {k} at {one['where']}: {f}" for f in faults(one)]
        where.add((one["where"] or "none").split(":")[0])
    assert found == []
    assert where >= {"run", "status", "load", "refill", "fetch", "results"}


@pytest.mark.cudasim
def test_ctrl_c_with_spare_chains_in_a_cuda_pool_run_in_the_simulator():
    """The same on the CUDA runner under the simulator (three puzzles, a 4 s limit, eight
    Ctrl-C runs spread over the run's events): no fault, and a puzzle got spare chains (the
    unsolvable one, unless a slow simulation let its limit pass first: then the one still
    running)."""
    result = run_simulated("sudoku_interrupts.py", "spare", "3", "/8", "4")
    assert result["faults"] == []
    assert max(n or 0 for n in result["spare_chains"].values()) > 0 and result["runs"] >= 6


def test_reported_once_drops_repeats_and_reports_what_was_read_on_ctrl_c():
    """A result for an item reported already is dropped; on Ctrl-C each item read and not
    reported is reported by `unreported`, in reading order, then KeyboardInterrupt."""
    from types import SimpleNamespace as Row

    def solve(items):
        first = next(items)
        yield Row(index=first.index, how="solved")
        yield Row(index=first.index, how="solved")  # reported twice by a faulty solver
        next(items), next(items)
        raise KeyboardInterrupt

    def cut(item):
        return Row(index=item.index, how="interrupted")

    got = []
    items = (Row(index=i) for i in range(5))
    with pytest.raises(KeyboardInterrupt):
        for result in interrupts.reported_once(items, solve, cut):
            got.append((result.index, result.how))
    assert got == [(0, "solved"), (1, "interrupted"), (2, "interrupted")]


def test_exit_code_order_ctrl_c_first():
    """130 beats bad input, bad input beats unsolved."""
    tally = Tally()
    assert tally.exit_code() == EXIT_OK
    tally.unsolved = 1
    assert tally.exit_code() == EXIT_UNSOLVED
    tally.bad_input = 1
    assert tally.exit_code() == EXIT_BAD_INPUT
    tally.interrupted = True
    assert tally.exit_code() == EXIT_INTERRUPTED


# Annealing fills no empty 25x25 grid for minutes (an impossible puzzle would be proved so and
# reported no_solution at once): the puzzle still running when Ctrl-C comes.
UNSOLVED_FOR_MINUTES = "." * 625


def _interrupted_run(tmp_path, extra_args, presses):
    """The command line on two easy 4x4 puzzles and one that does not solve for minutes (an
    empty 25x25, no time limit), results to --out; once both easy ones are written, SIGINT
    `presses` times 20 ms apart (or until the process ends). Returns (process, records)."""
    path = tmp_path / "mixed.txt"
    path.write_text("1...........4...\n..3.4.........2.\n" + UNSOLVED_FOR_MINUTES + "\n")
    out = tmp_path / "out.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-c", "from cli.main import run; run()", "solve", str(path),
         "--out", str(out), "--chains", "1", "--time-limit", "0", "--method", "anneal",
         *extra_args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=sigint_as_from_a_terminal,
    )  # fmt: skip

    def records():
        text = out.read_text() if out.exists() else ""
        return [json.loads(line) for line in text.splitlines()]

    deadline = time.time() + 120
    while time.time() < deadline and len(records()) < 2 and proc.poll() is None:
        time.sleep(0.1)
    time.sleep(0.5)
    for _ in range(presses):
        if proc.poll() is not None:
            break
        proc.send_signal(signal.SIGINT)
        time.sleep(0.02)
    proc.wait(timeout=60)
    return proc, records()


def test_ctrl_c_pressed_again_and_again_still_exits_130_with_the_results_written(tmp_path):
    """SIGINT every 20 ms until the process ends (the second lands while the first one's
    results are written, or while Python exits): exit code 130, not death by the signal;
    the results file holds whole JSON lines, the two solved puzzles once each."""
    proc, records = _interrupted_run(tmp_path, [], presses=500)
    stderr = proc.stderr.read()
    assert proc.returncode == EXIT_INTERRUPTED, (proc.returncode, stderr[-2000:])
    solved = [r["index"] for r in records if r["solved"]]
    assert sorted(solved) == [0, 1]
    assert len({r["index"] for r in records}) == len(records)
    assert "Traceback" not in stderr


QUIET_CALLBACK = """
import ctypes, signal, sys
from gpu_anneal import interrupts
interrupts.install()
def landed():  # a press that lands in a callback from C, as in llvmlite's while numba compiles
    interrupts._on_sigint(signal.SIGINT, sys._getframe())
def broken():
    raise ValueError("not a press")
for callback in (landed, broken):
    ctypes.CFUNCTYPE(None)(callback)()
half_built = "class Half:\\n    def __del__(self):\\n        raise AttributeError('cut short')\\n"
exec(compile(half_built, "/site-packages/llvmlite/binding/ffi.py", "exec"))
Half()  # its finalizer fails in "llvmlite", as one whose construction a press cut short
try:
    interrupts.check()
except KeyboardInterrupt:
    print("answered")
"""


def test_a_press_in_a_callback_from_compiled_code_prints_no_traceback_and_is_answered():
    """Ctrl-C landing in a ctypes callback (Python ignores the exception there and prints its
    traceback), and after it an llvmlite object's finalizer failing: the command line's handler
    keeps quiet about both and `check()` answers the press afterwards; any other exception
    ignored in a callback is still printed."""
    child = subprocess.run([sys.executable, "-c", QUIET_CALLBACK], capture_output=True,
                           text=True, timeout=60, cwd=HERE.parent,
                           preexec_fn=sigint_as_from_a_terminal)  # fmt: skip
    assert child.returncode == 0 and child.stdout.strip() == "answered", child.stderr
    assert "KeyboardInterrupt" not in child.stderr and "cut short" not in child.stderr
    assert "ValueError: not a press" in child.stderr


HELD_IN_NUMBA = """
import os, signal, sys, time
import numba, numba.cuda
from gpu_anneal import interrupts
interrupts.install()
presses, where = int(sys.argv[1]), sys.argv[2]
folder = os.path.dirname(numba.cuda.__file__ if where != "core" else numba.__file__)
inside = (
    "def compiling(presses):\\n"
    "    for _ in range(presses):\\n"
    "        os.kill(os.getpid(), signal.SIGINT)\\n"
    "        time.sleep(0.3)\\n"
    "    return 'compiled'\\n"
)
exec(compile(inside, os.path.join(folder, where, "module.py"), "exec"))
done = None  # compiling's value, stored as it returns: a press raised later finds it
lines = []
try:
    done = compiling(presses)
    time.sleep(5)  # no check() here: the held press is raised all the same
    lines.append("never raised")
except KeyboardInterrupt:
    lines += [done, "raised after"] if done else ["raised inside"]
try:
    interrupts.check()
    lines.append("nothing held")
except KeyboardInterrupt:
    lines.append("answered")
print("\\n".join(lines), flush=True)  # printed at the end: a press cuts no line short
"""


@pytest.mark.parametrize(("presses", "where", "lines", "held_lines"), [
    (1, "core", ["compiled", "raised after", "answered"], 1),
    (2, "core", ["raised inside", "answered"], 1),
    (1, "simulator", ["raised inside", "answered"], 0),
    (1, "cudadrv", ["raised inside", "answered"], 0),
])  # fmt: skip
def test_a_press_while_numba_compiles_is_held_until_it_is_left_and_a_second_raises(
    presses, where, lines, held_lines
):
    """Ctrl-C landing in numba's compiler (numba/core here; a KeyboardInterrupt cuts a
    compilation short and leaves llvmlite's objects half built) is held: numba's code runs to
    its end, one line on stderr says so, and the press is raised once the main thread has left
    it, with no check() needed (a command without a pool's loop stopped only at its end); a
    second press while one is held raises at once, inside. Where numba runs no compiler, a
    press raises at once: its CUDA simulator (a simulated kernel's Python, minutes long) and
    numba.cuda's driver (waiting on a card)."""
    child = subprocess.run([sys.executable, "-c", HELD_IN_NUMBA, str(presses), where],
                           capture_output=True, text=True, timeout=60, cwd=HERE.parent,
                           preexec_fn=sigint_as_from_a_terminal)  # fmt: skip
    assert child.returncode == 0, child.stderr
    assert child.stdout.splitlines() == lines
    held = "gpu-anneal: Ctrl-C: stopping once the compilation in progress ends"
    assert child.stderr.count(held) == held_lines, child.stderr
    assert "Traceback" not in child.stderr


REAL_COMPILE = """
import os, signal, threading, time
from numba import njit
from gpu_anneal import interrupts
interrupts.install()
@njit(cache=False)
def busy(n):
    total = 0.0
    for k in range(n):
        total += (k % 7) * 0.5 - (k % 3)
    return total
times = {}
def press():
    time.sleep(0.05)
    times["sent"] = time.perf_counter()
    os.kill(os.getpid(), signal.SIGINT)
threading.Thread(target=press).start()
value = None
try:
    value = busy(10)  # the first call compiles (numba's first compilation in a process)
    times["ended"] = time.perf_counter()
    time.sleep(5)
    print("never raised")
except KeyboardInterrupt:
    times.setdefault("ended", time.perf_counter())
    print("cut" if value is None else f"value {value}, then raised")
print("landed during" if times.get("sent", 1e9) < times["ended"] else "landed after")
"""


def test_a_press_during_a_real_numba_compilation_lets_it_finish_then_is_raised():
    """SIGINT sent 50 ms into a process's first numba compilation (it takes longer): the
    compilation finishes and the function returns its value, then the press is raised."""
    child = subprocess.run([sys.executable, "-c", REAL_COMPILE], capture_output=True,
                           text=True, timeout=120, cwd=HERE.parent,
                           preexec_fn=sigint_as_from_a_terminal)  # fmt: skip
    assert child.returncode == 0, child.stderr
    assert child.stdout.splitlines()[-1] == "landed during", child.stdout  # else: no test made
    assert child.stdout.splitlines()[0] == "value 3.0, then raised", child.stdout
    assert "stopping once the compilation in progress ends" in child.stderr


INSTALL_AND_SHOW = """
import signal
from gpu_anneal import interrupts
interrupts.install()
handler = signal.getsignal(signal.SIGINT)
print("ignored" if handler is signal.SIG_IGN else getattr(handler, "__name__", handler))
"""


@pytest.mark.parametrize(
    ("inherited", "after"),
    [(signal.SIG_IGN, "ignored"), (signal.SIG_DFL, "_on_sigint")],
)  # fmt: skip
def test_a_process_started_with_ctrl_c_ignored_keeps_it_ignored(inherited, after):
    """install() in a process started with SIGINT ignored (a shell's background job, nohup)
    leaves it ignored, as Python does; started with the default action, it puts the handler
    that remembers the press in place."""
    child = subprocess.run([sys.executable, "-c", INSTALL_AND_SHOW], capture_output=True,
                           text=True, timeout=60, cwd=HERE.parent,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, inherited))  # fmt: skip
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip() == after


def test_ctrl_c_after_a_bad_line_exits_130(tmp_path):
    """A malformed line is reported (exit 2 on its own), then Ctrl-C: 130 wins."""
    path = tmp_path / "bad.txt"
    path.write_text("1...........4...\n12x\n" + UNSOLVED_FOR_MINUTES + "\n")
    out = tmp_path / "out.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-c", "from cli.main import run; run()", "solve", str(path),
         "--out", str(out), "--chains", "1", "--time-limit", "0", "--method", "anneal"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=sigint_as_from_a_terminal,
    )  # fmt: skip
    deadline = time.time() + 120
    while time.time() < deadline and (not out.exists() or not out.read_text()):
        time.sleep(0.1)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    stderr = proc.stderr.read()
    assert "line 2" in stderr  # the bad line was reported
    assert proc.returncode == EXIT_INTERRUPTED, stderr[-2000:]
    assert stderr.splitlines()[-1] == "gpu-anneal: interrupted"  # one line says why it ended


def test_a_puzzle_solved_when_ctrl_c_lands_is_reported_solved_without_an_error(monkeypatch):
    """Ctrl-C right after the slice in which the loaded puzzle solved (a stand-in runner, so no
    kernel's timing decides it): the pool stops, and the puzzle is reported solved, its
    verified grid in, with no error (it said 'interrupted'); the run still ends with
    KeyboardInterrupt."""
    puzzles = [read_puzzles(datasets.path("top95"))[0].cells]
    (exact,) = gpu_anneal.solve(puzzles, method="exact")
    table = {puzzles[0].tobytes(): np.array(exact.solution_rows, np.uint8).reshape(-1)}

    class InterruptedAfterItsSlice(StandInRunner):
        def run(self, budget: int) -> None:
            super().run(budget)
            if budget > 0:  # the first real slice (a compile warm-up runs budget 0)
                raise KeyboardInterrupt

    monkeypatch.setattr(backends, "cuda_status", lambda: (True, "stand-in"))
    monkeypatch.setattr(plan, "current_card", lambda: plan.card_named("H100 SXM"))
    monkeypatch.setattr(
        sudoku_solver,
        "make_runner",
        lambda batch, used, seed: InterruptedAfterItsSlice(batch, seed, table, 1),
    )
    got = []
    with pytest.raises(KeyboardInterrupt):
        # no deduction: the stand-in's table holds the puzzle's givens as they are
        for result in gpu_anneal.solve_stream(puzzles, backend="cuda", technique="published"):
            got.append(result)
    assert [(r.index, r.status, r.error) for r in got] == [(0, "solved", None)]
    assert got[0].solved and got[0].counts.solving_chain is not None


def test_pools_defer_collections_and_put_the_thresholds_back():
    """While pools run (nested, or in threads at once) the youngest generation's threshold is
    POOL_GC_THRESHOLD; when the last pool ends, the thresholds are what they were, also after
    a pool stopped by an exception."""
    before = gc.get_threshold()
    inside = []
    with fewer_collections():
        inside.append(gc.get_threshold()[0])
        with fewer_collections():
            inside.append(gc.get_threshold()[0])
        inside.append(gc.get_threshold()[0])
    assert inside == [max(before[0], POOL_GC_THRESHOLD)] * 3
    assert gc.get_threshold() == before
    with pytest.raises(KeyboardInterrupt), fewer_collections():
        raise KeyboardInterrupt
    assert gc.get_threshold() == before
    started, release = threading.Barrier(3), threading.Event()

    def pool():
        with fewer_collections():
            started.wait()
            release.wait()

    threads = [threading.Thread(target=pool) for _ in range(2)]
    for t in threads:
        t.start()
    started.wait()
    assert gc.get_threshold()[0] == max(before[0], POOL_GC_THRESHOLD)
    release.set()
    for t in threads:
        t.join()
    assert gc.get_threshold() == before


LAUNCH_CHECK = """
import numba, numpy as np
from benchmarks.frontier_instances import make_instances
from gpu_anneal import api, interrupts
try:
    numba.threading_layer()
    print("launched before")
except ValueError:
    pass
calls = []
launch, stoppable = interrupts.launch_threads, interrupts.stoppable
interrupts.launch_threads = lambda: calls.append("launch") or launch()
interrupts.stoppable = lambda *a, **k: calls.append("search") or stoppable(*a, **k)
grid = np.asarray(make_instances([6], [60], 1, 2)[0].cells, np.uint8).reshape(36, 36)
for method in ("exact", "auto"):
    calls.clear()
    (result,) = api.solve(grid, method=method, backend="cpu", time_limit=20)
    print(method, result.method, result.status, calls[:2])
print("layer", numba.threading_layer())
"""


def test_an_exact_searchs_warm_up_launches_numbas_threads_before_its_search():
    """In a fresh process, --method exact and auto's exact search at 36x36 launch numba's
    threads in their warm-up (which stoppable's worker would otherwise do inside the first
    search's time), before the search runs."""
    ran = subprocess.run([sys.executable, "-c", LAUNCH_CHECK], capture_output=True, text=True,
                         timeout=300, cwd=Path(__file__).resolve().parents[1])  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert "launched before" not in lines
    assert "exact exact solved ['launch', 'search']" in lines
    assert "auto exact solved ['launch', 'search']" in lines
    assert lines[-1].startswith("layer ")
