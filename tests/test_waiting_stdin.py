"""stdin that a run's time budget stops while it waits (gpu_anneal.waiting_stdin): a pipe whose
writer sends nothing more no longer holds a --total-time run past its budget."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time

import pytest

from gpu_anneal import interrupts, waiting_stdin

HARD = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
posix_only = pytest.mark.skipif(os.name != "posix", reason="select() waits on pipes on POSIX")


@pytest.fixture
def pipe():
    """(a buffered waiting stream over a pipe's read end, its write end); both closed after."""
    read_end, write_end = os.pipe()
    yield io.BufferedReader(waiting_stdin._WaitingRaw(read_end)), write_end
    for fd in (read_end, write_end):
        try:
            os.close(fd)
        except OSError:
            pass
    interrupts.reset_budget()


@posix_only
def test_pipes_wait_and_files_and_dev_null_do_not(tmp_path):
    """A pipe may block a read; a regular file and /dev/null never do."""
    read_end, write_end = os.pipe()
    path = tmp_path / "p.txt"
    path.write_text(HARD + "\n")
    try:
        with open(path, "rb") as file, open(os.devnull, "rb") as null:
            assert waiting_stdin.waits(read_end)
            assert not waiting_stdin.waits(file.fileno())
            assert not waiting_stdin.waits(null.fileno())
    finally:
        os.close(read_end)
        os.close(write_end)


@posix_only
def test_a_read_of_a_silent_pipe_stops_at_the_deadline(pipe):
    """A read with nothing to read raises TimeSpent once the thread's deadline passes, and
    marks the budget spent."""
    stream, _ = pipe
    start = time.perf_counter()
    with pytest.raises(interrupts.TimeSpent), interrupts.until(start + 0.3):
        stream.readline()
    assert 0.3 <= time.perf_counter() - start < 5
    assert interrupts.spent()


@posix_only
def test_lines_sent_are_read_before_the_deadline_stops_the_wait(pipe):
    """Lines the writer sent come out even past the deadline (no wait for them); the read
    after them, which would wait, stops."""
    stream, write_end = pipe
    os.write(write_end, b"first\nsecond\n")
    with interrupts.until(time.perf_counter() - 1):
        assert stream.readline() == b"first\n"
        assert stream.readline() == b"second\n"
        with pytest.raises(interrupts.TimeSpent):
            stream.readline()


@posix_only
def test_the_end_of_the_pipe_is_the_end_of_the_input(pipe):
    """The writer's close ends the stream: its last line, then no more (no deadline needed)."""
    stream, write_end = pipe
    os.write(write_end, b"last")
    os.close(write_end)
    assert stream.readline() == b"last"
    assert stream.readline() == b""


def test_stdin_without_a_descriptor_is_read_as_before(monkeypatch):
    """stdin replaced by an object with no descriptor (a test's, a closed stdin's stand-in) is
    left to the usual reader: "-"."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(HARD + "\n"))
    assert waiting_stdin.stdin_stream() == "-"


@posix_only
def test_total_time_ends_a_run_whose_stdin_writer_sends_no_more(tmp_path):
    """`solve -` with --total-time, fed a puzzle line by a writer that then keeps the pipe open
    and silent, waited for its next line however long that took. It stops at its total time:
    the puzzle reported (solved, or stopped while its kernel compiled), exit code 1 and the
    summary saying the time was spent."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-m", "gpu_anneal", "solve", "-", "--total-time", "2",
               "--output", "jsonl"]  # fmt: skip
    with subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        cwd=tmp_path, env=env,
    ) as process:  # fmt: skip
        process.stdin.write(HARD.encode() + b"\n")
        process.stdin.flush()  # the pipe stays open: no end of input
        try:
            process.wait(timeout=60)  # stdin still open (communicate would close it)
        except subprocess.TimeoutExpired:
            process.kill()
            pytest.fail("solve - --total-time 2 was still waiting for stdin after 60 s")
        out, err = process.stdout.read().decode(), process.stderr.read().decode()
    (record,) = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert record["status"] in ("solved", "interrupted"), record
    assert "--total-time 2 s spent" in err.splitlines()[-1], err
    assert process.returncode == 1
