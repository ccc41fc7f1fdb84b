"""Hostile command lines, one case each: outputs that would overwrite an input, standard streams
that close or fill, option values beyond what can run, options that were accepted and ignored,
and Ctrl-C from the first instruction. Every case ends with one 'gpu-anneal:' line (or none, when
no stream is left), the documented exit code, no traceback, and nothing already finished lost.

Streams and Ctrl-C need a process of their own (a closed descriptor, a signal): those cases run
`python -m cli.main` (the console script's run()) in a subprocess; the others run in-process
through typer's CliRunner. Solving is kept tiny: 4x4 Sudoku by the exact method, small Shikaku
IDs.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from terminal_signals import sigint_as_from_a_terminal
from typer.testing import CliRunner

import gpu_anneal
from cli.grid_puzzles import render_kind
from cli.main import app
from cli.tally import is_summary
from cpu_reference.anneal.fixed_point import BETA_BITS, BETA_MAX, beta_fixed
from cpu_reference.errors import OptionError
from cpu_reference.hashi import generate as hashi_generate
from cpu_reference.shikaku import generate as shikaku_generate
from cpu_reference.sudoku.formats import parse_line
from cpu_reference.sudoku.schedules import MIN_TEMPERATURE
from cpu_reference.sudoku.verify import verify_solution
from gpu_anneal import generation

runner = CliRunner()
FOUR = ["1...........4...", "..3.4.........2."]  # solvable 4x4 puzzles, one a line
SHIKAKU = ["5x4:3c2b9f6e", "2x1:2a"]
COMMAND = [sys.executable, "-m", "cli.main"]
EXACT = ["--method", "exact"]


def invoke(*args, input: str | None = None):
    """`gpu-anneal ARGS` in-process; the click Result."""
    return runner.invoke(app, [str(a) for a in args], input=input)


def one_error(result, code: int = 2) -> str:
    """Assert exit `code`, no traceback or internal error, and exactly one 'gpu-anneal:' line
    on stderr; that line without its prefix."""
    assert result.exit_code == code, (result.exit_code, result.output)
    assert "Traceback" not in result.output and "internal error" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip() and not is_summary(line)]
    assert len(lines) == 1 and lines[0].startswith("gpu-anneal: "), lines
    return lines[0].removeprefix("gpu-anneal: ")


def shell(command: str, cwd: Path, timeout: int = 120) -> subprocess.CompletedProcess:
    """A bash command line (for the redirections `>&-`, `2>&-`, `<&-`, `> /dev/full`), with
    `gpu-anneal` standing for `python -m cli.main`."""
    program = " ".join(f"'{part}'" for part in COMMAND)
    line = command.replace("gpu-anneal", program)
    return subprocess.run(["bash", "-c", line], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)  # fmt: skip


def messages(stderr: str) -> list[str]:
    """stderr's lines but a run's closing summary, each asserted to be a 'gpu-anneal:' line;
    returned without the prefix."""
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip() and not is_summary(line)]
    assert all(line.startswith("gpu-anneal: ") for line in lines), lines
    return [line.removeprefix("gpu-anneal: ") for line in lines]


def verified_records(text: str) -> list[dict]:
    """The JSON records of a results text, each solved one checked by the verifier."""
    records = [json.loads(line) for line in text.splitlines() if line.strip()]
    for r in records:
        if r["solved"]:
            grid = np.array(r["solution_rows"], np.uint8).ravel()
            assert verify_solution(grid, r["order"], parse_line(r["puzzle"])) is None
    return records


@pytest.fixture
def puzzles(tmp_path) -> Path:
    """A file of the two 4x4 puzzles."""
    path = tmp_path / "p.txt"
    path.write_text("\n".join(FOUR) + "\n")
    return path


# ---- 4. no output over an input ----------------------------------------------------------


@pytest.mark.parametrize("name", ["p.png", "p.svg"])
def test_render_onto_its_own_input_is_refused(tmp_path, name):
    """`render p.png p.png` (a game ID file named like a picture): refused, the file kept."""
    path = tmp_path / name
    path.write_text(SHIKAKU[0] + "\n")
    fault = one_error(invoke("render", path, path, "--kind", "shikaku"))
    assert fault == (f"render: picture {path}: is the input file {path}; the picture would "
                     "overwrite the puzzles; name another file")  # fmt: skip
    assert path.read_text() == SHIKAKU[0] + "\n"


def test_render_whose_numbered_pictures_include_the_input_is_refused(tmp_path):
    """`render pic-0.png pic.png` with two puzzles: pic-0.png would be the first picture; refused
    before anything is drawn (no pic-1.png either), the input kept."""
    path = tmp_path / "pic-0.png"
    path.write_text("\n".join(SHIKAKU) + "\n")
    fault = one_error(invoke("render", path, tmp_path / "pic.png", "--kind", "shikaku"))
    assert fault.startswith(f"render: picture {path}: is the input file {path};")
    assert path.read_text() == "\n".join(SHIKAKU) + "\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pic-0.png"]


def test_render_onto_its_input_by_another_name_is_refused(tmp_path):
    """The input named through a link, or as ./name: the same file, refused."""
    path = tmp_path / "q.svg"
    path.write_text(SHIKAKU[0] + "\n")
    link = tmp_path / "l.svg"
    link.symlink_to(path)
    one_error(invoke("render", link, path, "--kind", "shikaku"))
    one_error(invoke("render", path, f"{tmp_path}/./q.svg", "--kind", "shikaku"))
    assert path.read_text() == SHIKAKU[0] + "\n"


def test_render_refuses_a_grid_too_large_to_draw_and_draws_the_others(tmp_path):
    """A line of 20,001 ones reads as a valid 20001x1 Shikaku (each cell its own clue): drawing
    it took minutes, where render now names it and draws the next puzzle."""
    path = tmp_path / "p.txt"
    path.write_text("1" * 20_001 + "\n")
    fault = one_error(invoke("render", path, tmp_path / "pic.png", "--kind", "shikaku"))
    assert (
        fault
        == f"{path} line 1: a 20001x1 grid (20,001 cells) is past the 10,000 cells render draws"
    )
    path.write_text(f"101x100:{'_'.join(['1'] * 10_100)}\n{SHIKAKU[0]}\n")
    result = invoke("render", path, tmp_path / "pic.png", "--kind", "shikaku")
    assert result.exit_code == 2 and "(10,100 cells) is past" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.txt", "pic.png"]


@pytest.mark.parametrize("option", ["--plot", "--trace"])
def test_bench_tts_picture_onto_the_puzzle_file_is_refused_before_the_run(puzzles, option):
    """bench tts --plot / --trace naming the puzzle file (as .png): refused before any run."""
    png = puzzles.with_suffix(".png")
    puzzles.rename(png)
    result = invoke("bench", "tts", png, "--runs", "1", option, png)
    assert one_error(result).startswith(f"{option} {png}: is the input file")
    assert result.stdout == "" and png.read_text() == "\n".join(FOUR) + "\n"


# ---- 5. streams that close or fill -------------------------------------------------------


def test_a_pipe_whose_reader_leaves_stops_the_run_and_out_keeps_every_result(tmp_path):
    """`solve t.txt --method exact --out r.jsonl | head -1`: once the reader has gone the run
    stops, exit 2, one line saying how many results it finished; r.jsonl holds exactly those,
    each verified. (400 records are more than a pipe holds, so the writer is still writing
    when the reader leaves.)"""
    path = tmp_path / "t.txt"
    path.write_text("\n".join(FOUR * 200) + "\n")
    out = tmp_path / "r.jsonl"
    proc = subprocess.Popen(
        [*COMMAND, "solve", str(path), *EXACT, "--out", str(out), "--output", "jsonl"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    first = proc.stdout.readline()
    proc.stdout.close()  # the reader leaves, as `head -1` does
    stderr = proc.stderr.read()
    proc.wait(timeout=120)
    assert json.loads(first)["index"] == 0
    (line,) = messages(stderr)
    assert proc.returncode == 2, stderr
    kept = verified_records(out.read_text())
    assert 1 <= len(kept) < 400
    assert line == (f"stdout: its reader has gone (broken pipe); the run stopped after "
                    f"{len(kept)} result(s), every one in {out}")  # fmt: skip
    assert len({r["index"] for r in kept}) == len(kept)


def test_stderr_closed_loses_no_result(tmp_path, puzzles):
    """`--output jsonl 2>&-`: every result on stdout, exit 0, no 'internal error' anywhere; with
    a faulty line as well, exit 2 (its message has nowhere to go)."""
    run = shell(f"gpu-anneal solve {puzzles} --method exact --output jsonl 2>&-", tmp_path)
    assert run.returncode == 0 and "internal error" not in run.stdout, run.stdout
    assert sorted(r["index"] for r in verified_records(run.stdout)) == [0, 1]
    puzzles.write_text(f"{FOUR[0]}\n12x\n{FOUR[1]}\n")
    run = shell(f"gpu-anneal solve {puzzles} --method exact --output jsonl 2>&-", tmp_path)
    assert run.returncode == 2 and len(verified_records(run.stdout)) == 2


@pytest.mark.parametrize(
    "command, code, lines",
    [
        ("solve {p} --method exact >&-", 2, ["stdout: closed; the run stopped after 1 result(s)"]),
        ("solve {p} --method exact --out {o} >&-", 2,
         ["stdout: closed; the run stopped after 1 result(s), every one in {o}"]),
        ("solve {p} --method exact --out {o} --quiet >&-", 0, []),
        ("solve {p} --method exact > /dev/full", 2,
         ["stdout: no space left on device; the run stopped after 1 result(s)"]),
        ("solve - --method exact <&-", 2,
         ["<stdin>: cannot read: stdin is closed (<&-); name puzzle files, or send puzzles to "
          "stdin"]),
        ("check {p} > /dev/full", 2, ["stdout: no space left on device"]),
        ("check - <&-", 2,
         ["<stdin>: cannot read: stdin is closed (<&-); name puzzle files, or send puzzles to "
          "stdin"]),
        ("generate --order 2 --count 3 --method backtrack > /dev/full", 2,
         ["stdout: no space left on device"]),
        ("generate --kind shikaku --size 4x4 --count 3 >&-", 2, ["stdout: closed"]),
    ],
)  # fmt: skip
def test_closed_and_full_standard_streams(tmp_path, puzzles, command, code, lines):
    """A standard stream closed (`>&-`, `<&-`) or full (`> /dev/full`): one line on stderr
    saying which and why, exit 2 where results could not be written; --out keeps what finished;
    a stream the command does not need changes nothing."""
    out = tmp_path / "r.jsonl"
    run = shell("gpu-anneal " + command.format(p=puzzles, o=out), tmp_path)
    assert messages(run.stderr) == [line.format(o=out) for line in lines]
    assert run.returncode == code, run.stderr
    if "--out" in command:
        kept = verified_records(out.read_text())
        assert len(kept) == (2 if code == 0 else 1)


# ---- 6. option values validated against what can run ---------------------------------------


def test_a_start_temperature_below_what_beta_can_hold_is_refused(puzzles):
    """--t0 1e-300 (solve, bench tts, the API, a schedule string; Shikaku too): one line naming
    [1e-06, 1e+09], never an OverflowError; beta_fixed holds any finite beta at BETA_MAX."""
    assert one_error(invoke("solve", puzzles, "--t0", "1e-300")) == (
        "--t0 1e-300: must be a finite number in [1e-06, 1e+09]"
    )
    result = invoke("bench", "tts", puzzles, "--runs", "1", "--t0", "1e-300")
    assert "[1e-06, 1e+09]" in one_error(result) and result.stdout == ""
    assert "t0 = 1e-300" in one_error(invoke("solve", puzzles, "--schedule", "geometric:t0=1e-300"))
    with pytest.raises(OptionError, match=r"^t0 1e-300: must be a finite number in \[1e-06"):
        gpu_anneal.solve(FOUR, t0=1e-300)
    ids = puzzles.with_name("s.txt")
    ids.write_text(SHIKAKU[0] + "\n")
    assert "[1e-06, 1e+09]" in one_error(
        invoke("solve", ids, "--kind", "shikaku", "--t0", "1e-300")
    )
    assert beta_fixed(1e300) == BETA_MAX and beta_fixed(1 / MIN_TEMPERATURE) < BETA_MAX
    assert (1 / MIN_TEMPERATURE) * 2**BETA_BITS < BETA_MAX


@pytest.mark.parametrize("value", ["1e-320", "0.0009"])
def test_a_time_limit_too_short_to_run_anything_is_refused(puzzles, value):
    """--time-limit 1e-320: one line naming the range [0.001, 1e+09] (0 stays 'no limit')."""
    assert one_error(invoke("solve", puzzles, "--time-limit", value)) == (
        f"--time-limit {float(value)}: must be 0 (no limit) or a number of seconds in "
        "[0.001, 1e+09]"
    )


def test_a_limit_one_plateau_passes_is_a_warning_and_the_run_goes_on(puzzles):
    """20,000 chains and a 1 ms limit: one plateau takes longer (a rate measured under load can
    say so wrongly): a warning line, and the run reports both puzzles (exit 1 or 0, never 2)."""
    result = invoke("solve", puzzles, "--chains", "20000", "--time-limit", "0.001", "--output",
                    "jsonl")  # fmt: skip
    assert result.exit_code in (0, 1), result.output
    (line,) = messages(result.stderr)
    assert "one plateau of all 20,000 chains takes about" in line and "running anyway" in line
    assert sorted(r["index"] for r in verified_records(result.stdout)) == [0, 1]


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--order", "2", "--count", str(10**30)], "--count 1000000000000000000000000000000: "
                                                    "must be an integer in 1.."),
        (["--kind", "shikaku", "--count", str(10**30)], "must be an integer in 1..1,000,000,000"),
        (["--kind", "shikaku", "--count", "0"], "--count 0: must be an integer in 1.."),
        (["--kind", "hashi", "--size", "2x2", "--unique"],
         "size 2x2: no two islands can face each other"),
        (["--kind", "hashi", "--size", "100000x100000"],
         "size 100000x100000: 10,000,000,000 cells; the Hashi generator makes at most 2,500"),
        (["--kind", "shikaku", "--size", "1000000x1000000"],
         "cells; the Shikaku generator makes at most 10,000 (100x100)"),
        (["--kind", "shikaku", "--size", "9" * 5000 + "x2"], "each side at most 7 digits"),
        (["--kind", "shikaku", "--seed", "-1"], "--seed -1: must be an integer in 0.."),
        (["--order", "2", "--method", "permute", "--seed", "-1"], "--seed -1: must be an integer"),
    ],
)  # fmt: skip
def test_generator_counts_sizes_and_seeds_are_capped_with_the_cap_named(args, fragment):
    """generate with a count, size or seed beyond what can run: one line naming the cap, exit 2,
    at once (nothing generated first)."""
    start = time.perf_counter()
    result = invoke("generate", *args)
    assert fragment in one_error(result) and result.stdout == ""
    assert time.perf_counter() - start < 10


def test_a_cap_set_by_free_memory_says_so(puzzles):
    """--chains and a grid --count are capped by the memory free now, so the bound changes from
    run to run: the fault says what sets it; a fixed cap (Shikaku's --count) says nothing."""
    why = "(what half of the memory free now holds)"
    assert one_error(invoke("solve", puzzles, "--chains", str(10**12))).endswith(why)
    assert one_error(invoke("generate", "--count", str(10**12))).endswith(why)
    assert why not in one_error(invoke("generate", "--kind", "shikaku", "--count", str(10**30)))


def test_generator_count_from_a_file_is_capped_per_puzzle(puzzles):
    """generate --from FILE --count N makes N per puzzle: a count whose total does not fit is
    refused before any grid is allocated."""
    result = invoke("generate", "--from", puzzles, "--count", str(10**18))
    assert "--count 1000000000000000000: must be an integer in 1.." in one_error(result)


def test_the_generators_refuse_sizes_beyond_their_caps_and_never_recurse():
    """The Shikaku and Hashi generators: the cap named (OptionError), 2x2 Hashi refused, a
    thin Hashi made in a loop of draws (no recursion)."""
    rng = np.random.default_rng(0)
    with pytest.raises(OptionError, match=r"at most 10,000 \(100x100\)"):
        shikaku_generate.generate(101, 100, rng)
    with pytest.raises(OptionError, match=r"at most 2,500 \(50x50\)"):
        hashi_generate.generate(51, 50, rng)
    with pytest.raises(OptionError, match="no two islands can face each other"):
        hashi_generate.generate(2, 2, rng)
    puzzle, bridges = hashi_generate.generate(2, 3, rng)
    assert bridges and puzzle.grid.sum() == 2 * sum(b[4] for b in bridges)


@pytest.mark.parametrize("value", ["0", "-1", "abc", "100000", "9" * 5000])
def test_numba_threads_out_of_range_is_one_line(tmp_path, value):
    """NUMBA_NUM_THREADS=0 (numba raises at import), a word, or more threads than start (a
    segmentation fault at the first parallel loop): one line naming the range, exit 2."""
    env = dict(os.environ, NUMBA_NUM_THREADS=value)
    run = subprocess.run([*COMMAND, "info"], capture_output=True, text=True, env=env,
                         timeout=120, cwd=tmp_path)  # fmt: skip
    (line,) = messages(run.stderr)
    assert run.returncode == 2 and run.stdout == ""
    assert line.startswith("NUMBA_NUM_THREADS=") and "whole number of threads in 1..1,024" in line


# ---- 8. an option accepted is an option honoured -------------------------------------------


@pytest.mark.parametrize("kind", ["shikaku", "hashi"])
@pytest.mark.parametrize(
    "args", [["--schedule", "geometric:t0=1,t_final=5"], ["--schedule", "geometric:t_final=50"],
             ["--t0", "0.01"]],
)  # fmt: skip
def test_grid_schedules_whose_final_temperature_is_not_below_the_start_are_refused(
    tmp_path, kind, args
):
    """Shikaku and Hashi, like Sudoku, refuse a t_final at or above t0 (given, or the kind's
    default): one line, exit 2, no puzzle solved."""
    ids = tmp_path / "ids.txt"
    ids.write_text({"shikaku": SHIKAKU[0], "hashi": "3x3m2:2a2c2a2"}[kind] + "\n")
    result = invoke("solve", ids, "--kind", kind, "--time-limit", "1", *args)
    assert "must be below t0" in one_error(result) and result.stdout == ""
    with pytest.raises(OptionError, match="must be below t0"):
        gpu_anneal.solve(str(ids), kind=kind, schedule="geometric:t0=1,t_final=5")


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--method", "anneal", "--moves", "row"], "--moves applies to --method permute, not "
                                                   "anneal"),
        (["--method", "backtrack", "--max-restarts", "5"], "--max-restarts applies to --method "
                                                           "permute"),
        (["--method", "permute", "--backend", "cpu"], "--backend applies to --method anneal"),
        (["--ti", "2"], "--ti needs --puzzles"),
        (["--tries", "2"], "--tries needs --puzzles"),
        (["--kind", "shikaku", "--backend", "cpu"], "--backend does not apply to --kind shikaku"),
        (["--kind", "hashi", "--max-rounds", "5"], "--max-rounds does not apply to --kind hashi"),
    ],
)  # fmt: skip
def test_generate_options_the_run_would_ignore_are_refused(args, fragment):
    """generate: an option of another method, of the emptying without --puzzles, or of another
    kind: one line, exit 2."""
    result = invoke("generate", *(args if "--kind" in args else ["--order", "2", *args]))
    assert fragment in one_error(result) and result.stdout == ""


@pytest.mark.parametrize(
    "order_args, method", [([], "backtrack"), (["--order", "5"], "backtrack"),
                           (["--method", "anneal"], "anneal")],
)  # fmt: skip
def test_generate_from_names_the_method_of_the_files_order(order_args, method):
    """generate --from a 25x25 file with --moves (permute's): the method the message names is the
    one the file's order would run (backtracking from 25x25), whether --order is given or read
    from the file, and the one named where --method is given."""
    puzzles = Path(__file__).parent / "data" / "exact_25x25_45.tsv"
    result = invoke("generate", "--from", puzzles, *order_args, "--moves", "row")
    assert one_error(result) == f"--moves applies to --method permute, not {method}"
    assert result.stdout == ""


def test_minimize_refuses_a_negative_seed_and_options_of_generated_grids(tmp_path):
    """minimize --seed -1 (generate refuses it: the same rule), and --method / --backend with a
    FILE of grids (they choose how --count's grids are made)."""
    assert one_error(invoke("minimize", "--count", "1", "--order", "2", "--seed", "-1")) == (
        "--seed -1: must be an integer in 0..18,446,744,073,709,551,615"
    )
    grids = tmp_path / "g.txt"
    grids.write_text("1234341221434321\n")
    assert "--method applies to --count" in one_error(
        invoke("minimize", grids, "--method", "permute")
    )
    with pytest.raises(OptionError, match="seed -1"):
        generation.minimize_grids(np.zeros((1, 16), np.uint8), 2, seed=-1)


@pytest.mark.parametrize("method", ["permute", "backtrack"])
def test_permute_and_backtrack_keep_their_time_limit(method):
    """generate_grids with a 0.5 s limit on grids that take far longer (order 5 permute, one
    grid; order 6 backtrack, 4,096 grids of milliseconds each): the call returns within the limit
    plus a second, the grids not finished listed as failed, the limit recorded in the stats.
    Compilation is not counted (a first call compiles and builds the order's tables)."""
    order, count = (5, 1) if method == "permute" else (6, 4096)
    generation.generate_grids(order, 1, method, seed=1, time_limit=0.1)  # compiles, tables
    start = time.perf_counter()
    grids, stats = generation.generate_grids(order, count, method, seed=1, time_limit=0.5)
    seconds = time.perf_counter() - start
    assert seconds < 0.5 + 1.0, seconds
    assert stats["time_limit_reached"] and stats["failed"]
    for i in range(count):
        assert (i in stats["failed"]) == (not grids[i].any())
        if grids[i].any():
            assert verify_solution(grids[i], order) is None


def test_generate_puzzles_hands_its_grid_options_to_every_round(monkeypatch):
    """generate --puzzles --time-limit 5 --method permute --moves row: the grids of each round
    are made with that limit and those moves (they were dropped)."""
    seen = []
    real = generation.generate_grids

    def recording(*args, **kwargs):
        seen.append({k: kwargs.get(k) for k in ("time_limit", "moves", "max_restarts")})
        return real(*args, **kwargs)

    monkeypatch.setattr(generation, "generate_grids", recording)
    args = ["--puzzles", "--order", "2", "--method", "permute", "--moves", "row",
            "--max-restarts", "50", "--time-limit", "5", "--step", "0.01"]  # fmt: skip
    result = invoke("generate", *args)
    assert result.exit_code == 0, result.output
    assert seen and all(s == {"time_limit": 5.0, "moves": "row", "max_restarts": 50} for s in seen)


@pytest.mark.parametrize("limit", ["0", "-1"])
def test_bench_tts_limit_below_one_is_refused(puzzles, limit):
    """bench tts --limit 0 / -1 ran one puzzle: refused before any run."""
    result = invoke("bench", "tts", puzzles, "--runs", "1", "--limit", limit)
    assert one_error(result) == f"--limit {limit}: must be an integer of 1 or more"
    assert result.stdout == ""


BEYOND_INT64 = [str(2**63), str(2**64)]  # a 64-bit counter wraps or refuses these


@pytest.mark.parametrize("big", BEYOND_INT64)
@pytest.mark.parametrize(
    "command",
    [["check", "FILE", "--max-nodes"], ["minimize", "GRIDS", "--tries"],
     ["generate", "--puzzles", "--tries"], ["generate", "--max-rounds"],
     ["generate", "--method", "permute", "--max-restarts"], ["bench", "tts", "FILE", "--runs"],
     ["bench", "tune", "FILE", "--runs"], ["bench", "exact", "FILE", "--repeats"]],
)  # fmt: skip
def test_a_count_past_64_bits_is_refused_by_its_flag(tmp_path, puzzles, command, big):
    """Counts from 2**63 up were taken: --max-nodes 2**64 was an internal error, minimize
    --tries 2**63 wrote blank 'minimal puzzles' with exit 0, --runs ran on without end."""
    grids = tmp_path / "grids.txt"
    grids.write_text("1234341221434321\n")
    args = [{"FILE": puzzles, "GRIDS": grids}.get(word, word) for word in command]
    result = invoke(*args, big)
    least = 0 if command[-1] in ("--max-nodes", "--max-restarts") else 1
    assert one_error(result) == f"{command[-1]} {big}: must be an integer in {least}..{2**62:,}"
    assert result.stdout == ""


@pytest.mark.parametrize("seconds", ["0", "inf", "nan"])
def test_bench_tune_wants_a_time_limit_that_passes(puzzles, seconds):
    """bench tune took --time-limit inf (a run never ending on an unsolved puzzle) and 0 (an
    error naming no option)."""
    result = invoke("bench", "tune", puzzles, "--time-limit", seconds)
    assert one_error(result).startswith(f"--time-limit {float(seconds)}: must be a finite number")


def test_bench_tts_on_a_puzzle_never_solved_writes_null_not_infinity(tmp_path):
    """A puzzle no run solves has an infinite TTS99: the summary line writes it as null (it was
    an internal error after the table, JSON having no infinity)."""
    path = tmp_path / "none.txt"
    path.write_text("12345678" + "." * 45 + "9" + "." * 27 + "\n")  # r1c9 wants the 9 of c9
    result = invoke("bench", "tts", path, "--runs", "2", "--time-limit", "0.05")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.splitlines()[-1])
    assert summary["solved_any"] == 0 and summary["tts99_median"] is None


@pytest.mark.parametrize(
    "where, fragment",
    [("folder", "is a folder; name a file in it"), ("x.txt", "must end in .png, .svg, .pdf"),
     ("trace", "must end in .png, .svg, .pdf"), ("/nonexistent/x.png", "does not exist")],
)  # fmt: skip
@pytest.mark.parametrize("option", ["--trace", "--plot"])
def test_bench_tts_pictures_are_checked_before_the_run(puzzles, tmp_path, option, where,
                                                       fragment):  # fmt: skip
    """--trace FOLDER wrote nothing (exit 0); --plot x.txt or /nonexistent/x.png failed after
    the whole run (exit 3, no summary): each is one line before any run now."""
    (tmp_path / "folder").mkdir()
    target = where if where.startswith("/") else str(tmp_path / where)
    result = invoke("bench", "tts", puzzles, "--runs", "1", option, target)
    assert fragment in one_error(result) and result.stdout == ""


def test_bench_tts_prints_its_summary_when_the_picture_cannot_be_written(puzzles, monkeypatch):
    """A picture that fails while it is written (a full disk): the rows and the summary are
    printed first, then one line naming the picture, exit 2."""
    from gpu_anneal import plots

    def full_disk(rows, path, title=""):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(plots, "plot_tts", full_disk)
    plot = puzzles.with_name("p.png")
    result = invoke("bench", "tts", puzzles, "--runs", "1", "--time-limit", "5", "--plot", plot)
    assert one_error(result) == (f"--plot {plot}: cannot write the picture: No space left on "
                                 "device")  # fmt: skip
    summary = json.loads(result.stdout.splitlines()[-1])
    assert summary["puzzles"] == 2 and summary["solved_any"] == 2


def test_bench_exact_reports_a_puzzle_that_breaks_a_rule(tmp_path):
    """bench exact on a puzzle with a repeated given counted it as 0 solutions, exit 0: it is a
    fault of its line now (exit 2), the good puzzles still measured; a file of faults only
    measures nothing."""
    path = tmp_path / "rep.txt"
    path.write_text(f"11..............\n{FOUR[0]}\n")
    result = invoke("bench", "exact", path, "--repeats", "1", "--json")
    assert one_error(result).startswith(f"{path} line 1: ")
    assert json.loads(result.stdout)["puzzles"] == 1
    path.write_text("11..............\n")
    result = invoke("bench", "exact", path, "--repeats", "1")
    assert result.exit_code == 2 and result.stdout == ""
    assert messages(result.stderr)[1:] == [f"{path}: no usable puzzle"]


# ---- 9. Ctrl-C from the first instruction ------------------------------------------------


def _loaded(pid: int, library: str) -> bool:
    """Whether the process has mapped a shared library whose path holds `library`."""
    try:
        return library in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc")
@pytest.mark.parametrize(
    "entry", ["console script", "python -m gpu_anneal", "python -m cli.main"]
)  # fmt: skip
@pytest.mark.parametrize("library", ["_multiarray_umath", "llvmlite"])
def test_ctrl_c_while_the_command_imports_exits_130_with_one_line(puzzles, entry, library):
    """SIGINT while Python imports numpy or numba (the first second, before the command's own
    handler; seen there as the shared library mapped): exit 130, one line, no traceback (it was
    a KeyboardInterrupt traceback, or death by the signal)."""
    script = shutil.which("gpu-anneal") or str(Path(sys.executable).parent / "gpu-anneal")
    argv = {"console script": [script], "python -m gpu_anneal": [sys.executable, "-m",
            "gpu_anneal"], "python -m cli.main": COMMAND}[entry]  # fmt: skip
    proc = subprocess.Popen([*argv, "solve", str(puzzles), *EXACT], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=sigint_as_from_a_terminal)  # fmt: skip
    deadline = time.time() + 60
    while not _loaded(proc.pid, library) and proc.poll() is None and time.time() < deadline:
        time.sleep(0.002)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (proc.returncode, err[-2000:])
    assert messages(err) in (["interrupted before the command started"], ["interrupted"])


def test_generate_an_empty_size_is_refused():
    """generate --kind shikaku --size '' made a 10x10 puzzle (the default) silently."""
    result = invoke("generate", "--kind", "shikaku", "--size", "")
    assert one_error(result) == "--size '': expected WxH, e.g. 10x8 (each side at most 7 digits)"
    assert result.stdout == ""


def test_render_without_a_kind_draws_a_hashi_file_as_hashi(tmp_path):
    """A file of bridges IDs drawn without --kind was read as Shikaku and refused ('clue areas
    sum to ...'); a Shikaku file stays Shikaku."""
    bridges = tmp_path / "b.txt"
    bridges.write_text("3x3m2:3a2c1a2\n")
    assert invoke("render", bridges, tmp_path / "b.png").exit_code == 0
    assert (tmp_path / "b.png").stat().st_size > 0
    rect = tmp_path / "r.txt"
    rect.write_text(SHIKAKU[0] + "\n")
    result = invoke("render", rect, tmp_path / "r.png", "--solve")
    assert result.exit_code == 0, result.output
    assert (render_kind(str(bridges)), render_kind(str(rect))) == ("hashi", "shikaku")


def test_a_name_stdout_cannot_encode_is_escaped_and_the_run_goes_on(tmp_path):
    """A puzzle named `ëasy` on an ASCII stdout (PYTHONIOENCODING=ascii, LC_ALL=C) raised
    UnicodeEncodeError, which read as "stdout: closed; the run stopped after 1 result(s)"
    (exit 2) and left the other puzzles unsolved. The character is written as an escape."""
    (tmp_path / "p.txt").write_text("1...........4... ëasy\n..3.4.........2. two\n")
    run = shell("PYTHONIOENCODING=ascii gpu-anneal solve p.txt --method exact --output text",
                tmp_path)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "(\\xebasy)" in run.stdout and "(two)" in run.stdout
    assert "2 solved" in run.stderr and "stdout" not in run.stderr


def test_a_deleted_current_folder_is_named_in_one_line(tmp_path):
    """`cd d; rmdir ../d; gpu-anneal solve /abs/p.txt --out r.jsonl` was `internal error:
    FileNotFoundError`, exit 3. Absolute paths still work there."""
    puzzles = tmp_path / "p.txt"
    puzzles.write_text("1...........4...\n")
    gone = "mkdir d && cd d && rmdir ../d && "
    run = shell(gone + f"gpu-anneal solve {puzzles} --method exact --out r.jsonl", tmp_path)
    assert run.returncode == 2, run.stderr
    assert messages(run.stderr) == [
        "the current folder no longer exists: name files by absolute paths, or run from a "
        "folder that exists"
    ]
    run = shell(gone + f"gpu-anneal solve {puzzles} --method exact", tmp_path)
    assert run.returncode == 0 and run.stdout.count("solved") == 1, run.stderr


@pytest.mark.parametrize(
    "fault, said",
    [(MemoryError("Unable to allocate 30.5 MiB"), "not enough memory (Unable to allocate 30.5 "
      "MiB); fewer --chains, a smaller --batch or fewer --threads need less"),
     (RuntimeError("can't start new thread"), "cannot start a thread (a memory or process "
      "limit: ulimit -v, -u); fewer --threads need fewer")],
)  # fmt: skip
def test_the_machines_limits_are_one_line_not_an_internal_error(fault, said, capsys):
    """Under `ulimit -v` a big --chains was `internal error: MemoryError ...` and a thread that
    could not start `internal error: RuntimeError: can't start new thread`, exit 3."""
    from cli.guard import guarded
    from cli.output import EXIT_BAD_INPUT

    def body():
        raise fault

    assert guarded(body) == EXIT_BAD_INPUT
    assert capsys.readouterr().err.strip() == f"gpu-anneal: {said}"


def test_a_results_file_past_the_file_size_limit_keeps_whole_records(tmp_path):
    """`ulimit -f` (or a full disk) cut a record part way: the file ended in a torn line, which
    every later --resume counted as a record not trusted, and the line did not say how many
    records were safe. The failed record is taken back; the line counts the whole ones."""
    (tmp_path / "p.txt").write_text("1...........4...\n..3.4.........2.\n" * 20)
    run = shell("ulimit -f 8; gpu-anneal solve p.txt --method exact --out r.jsonl --quiet",
                tmp_path)  # fmt: skip
    assert run.returncode == 2, run.stderr
    lines = (tmp_path / "r.jsonl").read_bytes().split(b"\n")
    assert lines[-1] == b"" and all(json.loads(line) for line in lines[:-1])  # no torn record
    kept = len(lines) - 1
    assert 0 < kept < 40
    assert messages(run.stderr) == [
        f"--out r.jsonl: cannot write: File too large; the {kept} record(s) this run wrote "
        "before are whole"
    ]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_out_to_a_fifo_without_a_reader_is_one_line_and_with_one_is_written(tmp_path):
    """`--out FIFO` with no reader waited forever, with no word and no work done (opening a FIFO
    for writing waits for a reader). Now one line, exit 2; with a reader the records arrive."""
    import threading

    fifo = tmp_path / "results.fifo"
    os.mkfifo(fifo)
    puzzles = tmp_path / "p.txt"
    puzzles.write_text("\n".join(FOUR) + "\n")
    try:  # a subprocess: the wait it was is a timeout here
        lone = subprocess.run([*COMMAND, "solve", str(puzzles), *EXACT, "--out", str(fifo)],
                              capture_output=True, text=True, timeout=60)  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail("--out to a FIFO without a reader: no exit within 60 s")
    assert lone.returncode == 2 and lone.stderr.splitlines() == [
        f"gpu-anneal: --out {fifo}: a FIFO that no reader has open; start its reader first"
    ], lone.stderr
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader, open before the writer
    written, got = threading.Event(), []

    def read() -> None:  # until the writer is done and nothing is left
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                chunk = None
            if chunk:
                got.append(chunk)
            elif written.is_set():
                return
            else:
                time.sleep(0.01)

    reader = threading.Thread(target=read)
    reader.start()
    result = invoke("solve", puzzles, *EXACT, "--out", fifo)
    written.set()
    reader.join(timeout=60)
    os.close(fd)
    assert result.exit_code == 0, result.output
    lines = b"".join(got).decode().splitlines()
    assert [json.loads(x)["index"] for x in lines] == [0, 1]


@pytest.mark.parametrize("method", ["auto", "anneal", "exact", "impasse"])
def test_dry_run_names_each_faulty_puzzle_and_exits_2(tmp_path, method):
    """`solve --dry-run` left malformed puzzles out in silence: a file of one bad line and one
    good one planned one puzzle with exit 0; a file of bad lines alone said only 'the input
    holds no Sudoku puzzle to plan for'. Each fault is now one line, as a run says it, the plan
    is printed for the rest, and the exit code is 2."""
    bad = "11" + "." * 79
    mixed = tmp_path / "mixed.txt"
    mixed.write_text(f"{bad}\n{FOUR[0]}\n")
    result = invoke("solve", "--dry-run", "--method", method, mixed)
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [
        f"gpu-anneal: {mixed} line 1: digit 1 given twice in row 1 (r1c1, r1c2)"
    ]
    assert "1 puzzle" in result.stdout
    lone = tmp_path / "bad.txt"
    lone.write_text(bad + "\n")
    result = invoke("solve", "--dry-run", "--method", method, lone)
    assert result.exit_code == 2 and result.stderr.splitlines() == [
        f"gpu-anneal: {lone} line 1: digit 1 given twice in row 1 (r1c1, r1c2)",
        "gpu-anneal: --dry-run: the input holds no Sudoku puzzle to plan for",
    ], result.output


@pytest.mark.parametrize(
    ("extra", "fault"),
    [
        (["--kind", "shikaku"], "--dry-run: a shikaku run has no plan to print"),
        (["--example", "hashi"], "--dry-run: a hashi run has no plan to print"),
        (["--seed", "-1"], "--seed -1: must be an integer in 0.."),
        (["--pool", "foo"], "--pool 'foo': expected one of"),
        (["--schedule", "foo"], "schedule 'foo': expected one of"),
        (["--threads", "0"], "--threads 0"),
        (["--max-trials", "0"], "--max-trials 0"),
        (["--total-time", "-1"], "--total-time -1"),
    ],
)
def test_dry_run_checks_the_kind_and_every_option_as_a_run_does(tmp_path, extra, fault):
    """`solve --dry-run --kind shikaku` read a Shikaku file as Sudoku (five Solo faults), and
    --dry-run took --seed -1, --pool foo, --schedule foo... with exit 0: each is now the one
    line a run gives, exit 2."""
    puzzle = tmp_path / "p.txt"
    puzzle.write_text(FOUR[0] + "\n")
    files = [] if "--example" in extra else [puzzle]
    assert one_error(invoke("solve", "--dry-run", *extra, *files)).startswith(fault)


def test_options_that_fail_at_a_later_puzzles_order_are_that_puzzles_error(tmp_path):
    """`--schedule geometric --t0 0.01` runs at 9x9 but not at 4x4 (the preset's t_final there
    is above 0.01): a 4x4 puzzle after 9x9 ones ended the run with a line naming no puzzle and
    no summary. Now that puzzle's result is an error naming the fault, the run goes on, the
    results are written and the summary counts it."""
    nine = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
    path = tmp_path / "mix.txt"
    path.write_text(f"{nine}\n\n1...............\n{nine}\n")
    out = tmp_path / "r.jsonl"
    result = invoke("solve", path, "--method", "anneal", "--schedule", "geometric", "--t0",
                    "0.01", "--time-limit", "0.5", "--out", out, "--output", "jsonl")  # fmt: skip
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["index"] for r in records) == [0, 1, 2]
    (refused,) = [r for r in records if r["status"] == "error"]
    assert (refused["index"], refused["line"]) == (1, 3)
    assert refused["error"].startswith("t0 = 0.01 with schedule 'geometric' at 4x4: t_final")
    assert "1 error" in result.stderr.splitlines()[-1], result.stderr
    assert "Traceback" not in result.output and result.exit_code in (1, 2)
