"""A Shikaku or Hashi trial is stopped inside by its time limit, Ctrl-C and SIGTERM.

A trial of every chain is one compiled call. It held the process to its end: a 300x300
Shikaku whose trial takes 15 s ran 16 s under `--time-limit 2`, answered SIGTERM only then, and
a 1000x1000 one ran on for more than 11 minutes after it. The chains now end their trial at the
plateau after the deadline or the signal (gpu_anneal.stoppable_trials). Here a schedule of a
billion plateaus makes a trial that would never end.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest
from terminal_signals import sigint_as_from_a_terminal

# T held near 1000: a random walk, never a solution of a 15x15 puzzle
ENDLESS = "geometric:t0=1000,t_final=999,n_plateaus=1000000000,plateau=1000"
QUICK = {"shikaku": "2x1:2a", "hashi": "3x1m2:1a1"}  # solved by the chains' first state
HARD = {
    "shikaku": "15x15:a6a11j2e22x6g12e3zc2zzv4_24f33f1a3l3a4_2a9m3i75a",
    "hashi": "15x15m2:o4d3x6b4a4h2zzh5a4a2e4c5za1l3f1l2i2a3a3o",
}


def _start(tmp_path, kind: str, limit: str) -> tuple[subprocess.Popen, object]:
    path = tmp_path / f"{kind}.txt"
    path.write_text(f"{QUICK[kind]}\n{HARD[kind]}\n")
    out = tmp_path / "out.jsonl"
    args = [sys.executable, "-m", "cli.main", "solve", str(path), "--kind", kind,
            "--chains", "2", "--schedule", ENDLESS, "--time-limit", limit, "--backend", "cpu",
            "--out", str(out)]  # fmt: skip
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=sigint_as_from_a_terminal)  # fmt: skip
    return proc, out


def _records(out) -> list[dict]:
    return [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []


def _finish(proc: subprocess.Popen, within: float) -> str:
    try:
        return proc.communicate(timeout=within)[1]
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail(f"no exit within {within} s; stderr: {proc.communicate()[1]}")


@pytest.mark.parametrize("kind", ["shikaku", "hashi"])
def test_the_time_limit_ends_a_trial_that_would_never_end(tmp_path, kind):
    proc, out = _start(tmp_path, kind, "1")
    stderr = _finish(proc, 120)
    records = _records(out)
    assert proc.returncode == 1, stderr
    assert [r["status"] for r in records] == ["solved", "unsolved"], stderr
    assert records[1]["counts"]["trials"] == 2  # one round of the 2 chains, cut inside


@pytest.mark.parametrize("name, code", [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_ends_a_trial_that_would_never_end(tmp_path, name, code):
    proc, out = _start(tmp_path, "shikaku", "0")
    start = time.time()
    while time.time() < start + 120 and not _records(out):
        time.sleep(0.2)
    time.sleep(1.0)  # the endless trial has started
    proc.send_signal(getattr(signal, name))
    stderr = _finish(proc, 60)
    records = _records(out)
    assert proc.returncode == code, stderr
    assert [r["status"] for r in records] == ["solved", "interrupted"], stderr
    assert "Traceback" not in stderr, stderr


@pytest.mark.parametrize("kind", ["shikaku", "hashi"])
def test_a_text_grid_past_a_game_ids_cells_is_refused(kind):
    """Game IDs stop at 1,000,000 cells; a text grid had no bound, and a 15,000,000-cell line of
    ones set up for minutes under `--time-limit 2`."""
    from cpu_reference.errors import InputError
    from gpu_anneal.grid_puzzles import parse_grid_puzzle

    with pytest.raises(InputError, match=r"^f line 2: more than 1,000,000 cells, the most"):
        parse_grid_puzzle(kind, "\n" + "1" * 1_000_001 + "\n", "f")
    with pytest.raises(InputError, match=r"^f line 3: more than 1,000,000 cells"):
        parse_grid_puzzle(kind, ("1" * 500_000 + "\n") * 3, "f")


def test_a_plateau_of_a_large_hashi_is_stopped_inside(tmp_path):
    """A 999x999 Hashi of 250,000 islands: each move may search the islands (whether a bridge
    taken away splits them), so one plateau of a chain lasted minutes and the chains, reading
    the stop flag only between plateaus, searched 103 s under `--time-limit 1`. They now read
    it every 1,024 moves of a plateau too (cpu_reference.anneal.trials.STOP_LOOK_MASK)."""
    side = 999
    rows = ["".join("2" if r % 2 == 0 and c % 2 == 0 else "." for c in range(side))
            for r in range(side)]  # fmt: skip
    path = tmp_path / "lattice.txt"
    path.write_text("\n".join(rows) + "\n")
    out = tmp_path / "out.jsonl"
    args = [sys.executable, "-m", "cli.main", "solve", str(path), "--kind", "hashi", "--chains",
            "2", "--time-limit", "1", "--backend", "cpu", "--out", str(out)]  # fmt: skip
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    stderr = _finish(proc, 120)
    (record,) = _records(out)
    assert proc.returncode == 1 and record["status"] == "unsolved", stderr
    assert record["timing"]["search"] < 30, record["timing"]
