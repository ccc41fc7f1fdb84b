"""A stop (Ctrl-C, SIGTERM: a KeyboardInterrupt in the main thread) of `bench tts`, `bench
tune` or `bench exact` prints what was measured before it, marked interrupted, and is raised
again once that is written."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cli import bench
from cpu_reference.sudoku.formats import parse_line
from gpu_anneal import measure, tts, tune

DATA = Path(__file__).parent / "data"
HARDEST = str(DATA / "hardest.txt")


def _stop_on_call(real, calls: int):
    """real, except that its call number `calls` (1-based) raises KeyboardInterrupt."""
    seen = []

    def wrapped(*args, **kwargs):
        seen.append(1)
        if len(seen) == calls:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    return wrapped


def test_bench_tts_json_keeps_the_puzzles_measured_before_a_stop(monkeypatch, capsys):
    monkeypatch.setattr(tts, "measure_puzzle", _stop_on_call(tts.measure_puzzle, 3))
    with pytest.raises(KeyboardInterrupt):
        bench.run_tts(HARDEST, 2, "auto", None, "auto", 30, 0, None, True, None, None)
    report = json.loads(capsys.readouterr().out)
    assert report["interrupted"] is True
    assert [p["index"] for p in report["puzzles"]] == [0, 1]
    assert report["summary"]["puzzles"] == 2
    monkeypatch.setattr(tts, "measure_puzzle", _stop_on_call(tts.measure_puzzle, 2))
    with pytest.raises(KeyboardInterrupt):
        bench.run_tts(HARDEST, 2, "auto", None, "auto", 30, 0, None, False, None, None)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("puzzle 0: ") and len(lines) == 2
    assert json.loads(lines[1])["interrupted"] is True


def test_bench_tune_keeps_the_candidates_measured_before_a_stop(monkeypatch, capsys):
    candidates = ("sirdey-course", "sirdey-course:t0=1", "sirdey-course:t0=3")
    monkeypatch.setattr(tune, "measure_puzzle", _stop_on_call(tune.measure_puzzle, 3))
    path = str(DATA / "general_16x16_head.tsv")
    with pytest.raises(KeyboardInterrupt):
        bench.run_tune(path, 2, "sirdey", candidates, 2, 2, 20)
    result = json.loads(capsys.readouterr().out)
    assert result["interrupted"] is True
    assert [row["schedule"] for row in result["table"]] == ["sirdey-course"]
    assert len(result["table"][0]["per_puzzle"]) == 2


def test_bench_exact_keeps_the_passes_done_and_answers_within_a_piece(monkeypatch, capsys):
    monkeypatch.setattr(measure, "EXACT_PIECE", 4)
    lines = [x for x in Path(HARDEST).read_text().splitlines() if x and not x.startswith("#")]
    real = measure.solve_many
    # the warm-up, then 3 pieces of 11 puzzles a pass: a stop in the second pass
    monkeypatch.setattr(measure, "solve_many", _stop_on_call(real, 1 + 3 + 2))
    with pytest.raises(KeyboardInterrupt):
        bench.run_exact(HARDEST, 2, 1, 3, "fast", True)
    result = json.loads(capsys.readouterr().out)
    assert result["interrupted"] is True and len(result["all_seconds"]) == 1
    assert result["puzzles"] == len(lines) and result["counts"] == {"1": len(lines)}
    # stopped in the first pass: the rate of the puzzles done
    monkeypatch.setattr(measure, "solve_many", _stop_on_call(real, 1 + 3))
    done = measure.measure_exact(np.stack([parse_line(x) for x in lines]), 3, repeats=2)
    assert done["interrupted"] is True and done["puzzles"] == 8
    # stopped before anything was measured: the stop itself
    monkeypatch.setattr(measure, "solve_many", _stop_on_call(real, 2))
    with pytest.raises(KeyboardInterrupt):
        measure.measure_exact(np.stack([parse_line(x) for x in lines]), 3, repeats=2)
