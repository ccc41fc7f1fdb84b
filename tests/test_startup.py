"""The start of a run: one runner a pool (the compile step is the pool's own, no second runner
for a warm-up), and the start-up timeline `gpu-anneal solve --verbose` prints (CPU path)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gpu_anneal import api, solvers, sudoku_solver, timeline

HARDEST = Path(__file__).parent / "data" / "hardest.txt"


def test_a_run_builds_one_runner_and_reports_its_compile_seconds_once(monkeypatch):
    built = []
    make = sudoku_solver.make_runner

    def counting(batch, used, seed):
        built.append(batch.puzzles)
        return make(batch, used, seed)

    monkeypatch.setattr(sudoku_solver, "make_runner", counting)
    monkeypatch.setattr(solvers, "_warm", set())  # as in a fresh process
    puzzles = HARDEST.read_text().split()[:2]
    results = list(api.solve_stream(puzzles, backend="cpu", seed=1, chains=2, batch=2))
    assert built == [2]  # the pool's runner alone: none for a warm-up
    assert all(r.solved for r in results)
    compiles = [r.timing.compile for r in sorted(results, key=lambda r: r.timing.compile)]
    assert compiles[0] == 0.0 and compiles[1] > 0.0  # the first result carries it, once
    again = list(api.solve_stream(puzzles[:1], backend="cpu", seed=1, chains=2))
    assert built == [2, 1] and again[0].timing.compile == 0.0  # compiled already


def test_timeline_keeps_the_first_mark_of_each_known_step():
    timeline.reset()
    timeline.mark("imports")
    first = timeline.as_dict()["imports"]
    timeline.mark("input")
    timeline.mark("imports")
    assert list(timeline.as_dict()) == ["imports", "input"]
    assert timeline.as_dict()["imports"] == first > 0.0  # after the process's start
    with pytest.raises(ValueError, match="timeline step 'warp'"):
        timeline.mark("warp")
    assert "imports" in timeline.text() and timeline.text().startswith("start-up timeline")
    timeline.reset()
    assert timeline.events() == []


def test_verbose_prints_the_start_up_timeline_of_a_cpu_run(tmp_path):
    out = tmp_path / "r.jsonl"
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    proc = subprocess.run(
        [sys.executable, "-m", "gpu_anneal", "solve", "--example", "seed002", "--backend", "cpu",
         "--verbose", "--quiet", "--out", str(out)],
        capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert out.read_text().count("\n") >= 1
    steps = re.findall(r"^  (\S+(?: \S+)?)\s+(\d+\.\d{3})  \(\+\d+\.\d{3}\)$", proc.stderr, re.M)
    names = [name for name, _ in steps]
    assert names == ["imports", "input", "compile", "first launch", "first result", "exit"]
    seconds = [float(at) for _, at in steps]
    assert seconds == sorted(seconds) and seconds[0] > 0.0
    assert "context" not in names and "module loads" not in names  # no card on this path


def test_the_context_is_made_once_on_a_thread_where_a_driver_loads():
    code = (
        "from gpu_anneal import backends, runners, timeline\n"
        "backends.driver_library_found = lambda: True\n"
        "runners.open_context_early()\n"
        "runners.open_context_early()\n"
        "(opener,) = runners._context_thread\n"
        "opener.join(240)\n"
        "print(opener.name, list(timeline.as_dict()))\n"
    )
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")  # the simulator's context
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env=env)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split("\n")[0] == "cuda-context ['context']"
