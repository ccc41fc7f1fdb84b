"""The command line at a terminal: stderr on a pseudo-terminal (the usual case), stdout sent to a
file. The progress line must appear on the terminal and every result must reach the file.

The command runs with cli.progress.DELAY_SECONDS set to 0, so that the progress line shows from
the start of the run (it normally waits a second), while every result is printed.
"""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
import threading
from pathlib import Path

from gpu_anneal import datasets

ROOT = Path(__file__).resolve().parent.parent
COMMAND = (
    "import sys, cli.progress; cli.progress.DELAY_SECONDS = 0.0; from cli.main import run; run()"
)


def run_at_terminal(
    args: list[str], out: Path | None, typed: bytes | None = None
) -> tuple[int, str]:
    """Run `gpu-anneal ARGS` with stderr (and, when `typed` is given, stdin) on a pseudo-terminal
    and stdout to `out` (None: the same terminal); returns the exit code and everything the
    terminal received."""
    master, slave = pty.openpty()
    env = dict(os.environ, TERM="xterm", COLUMNS="120")
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    with open(out if out is not None else os.devnull, "wb") as stdout:
        proc = subprocess.Popen(
            [sys.executable, "-c", COMMAND, *args],
            stdin=slave if typed is not None else subprocess.DEVNULL,
            stdout=stdout if out is not None else slave, stderr=slave, env=env, cwd=ROOT,
        )  # fmt: skip
    os.close(slave)
    received: list[bytes] = []

    def drain() -> None:  # the terminal must be read, or a long progress output blocks the run
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # the other side closed
                return
            if not data:
                return
            received.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    if typed is not None:
        os.write(master, typed)
    try:
        code = proc.wait(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
        reader.join(timeout=10)
        os.close(master)
    return code, b"".join(received).decode("utf-8", "replace")


def test_every_result_reaches_redirected_stdout_while_the_progress_line_shows(tmp_path):
    """All 95 JSON lines in the file, none on the terminal; the progress line (with the total
    counted from the file) and the summary on the terminal."""
    out = tmp_path / "o.jsonl"
    args = ["solve", "--example", "top95", "--method", "exact", "--output", "jsonl"]
    code, terminal = run_at_terminal(args, out)
    assert code == 0, terminal[-2000:]
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["index"] for r in records) == list(range(95))
    assert all(r["solved"] for r in records)
    assert "done," in terminal and "/95 done" in terminal, terminal[-2000:]  # the progress line
    assert '"index"' not in terminal  # no result went to the terminal
    assert "95 solved, 0 unsolved, 0 bad" in terminal
    assert "reading puzzles from the terminal" not in terminal


def test_out_file_keeps_stdout_and_quiet_empties_it(tmp_path):
    """--out FILE: the JSON lines in FILE and the text on stdout; --quiet: stdout empty and
    nothing but results on the terminal."""
    path = datasets.path("seed002")
    out, results = tmp_path / "stdout.txt", tmp_path / "results.jsonl"
    args = ["solve", str(path), "--method", "exact", "--out", str(results)]
    code, terminal = run_at_terminal(args, out)
    assert code == 0, terminal[-2000:]
    assert len(results.read_text().splitlines()) == 3
    assert out.read_text().count(": solved") == 3
    assert "3 solved" in terminal
    results.unlink()
    code, terminal = run_at_terminal([*args, "--quiet"], out)
    assert code == 0, terminal[-2000:]
    assert len(results.read_text().splitlines()) == 3
    assert out.read_text() == "" and terminal.strip() == ""


def test_puzzles_typed_at_the_terminal_get_a_hint_and_are_solved(tmp_path):
    """stdin on a terminal: a hint says how to end the input; Ctrl-D ends it."""
    out = tmp_path / "o.txt"
    args = ["solve", "--method", "exact", "--output", "jsonl"]
    code, terminal = run_at_terminal(args, out, typed=b"1...........4...\n\x04")
    assert code == 0, terminal[-2000:]
    assert "reading puzzles from the terminal; end with Ctrl-D" in terminal
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert record["solved"] and record["puzzle"].startswith("1")


def test_results_and_messages_on_the_same_terminal_print_above_the_progress_line(tmp_path):
    """stdout and stderr on one terminal: each result and each error line is a line of its own,
    never written into the progress line."""
    lines = datasets.text("top95").splitlines()
    path = tmp_path / "p.txt"
    path.write_text("\n".join([*lines[:21], "1" * 80, *lines[21:41]]) + "\n")
    args = ["solve", str(path), "--method", "exact", "--output", "jsonl"]
    code, terminal = run_at_terminal(args, None)
    assert code == 2, terminal[-2000:]
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", terminal)
    assert "done," in shown  # the progress line showed
    ends = [line.rstrip("\r").split("\r")[-1] for line in shown.split("\n")]  # what stays
    records = [json.loads(end) for end in ends if '"index"' in end]
    assert sorted(r["index"] for r in records) == list(range(40))
    (error,) = [end for end in ends if "gpu-anneal:" in end and "line 22" in end]
    assert error.startswith("gpu-anneal: ") and "done," not in error
