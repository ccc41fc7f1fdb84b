"""`gpu-anneal render` on hostile targets and faulty files: a picture that cannot be written
(a full disk, a folder or a dangling link in its place), a file whose first puzzle is faulty, a
Sudoku-shaped file no reader reads, --time-limit with --solve, a picture named `.png`. Each ends
with one 'gpu-anneal:' line per fault, exit code 2 (never an internal error, exit 3), and the
pictures that could be drawn are drawn.

Runs in-process through typer's CliRunner; the puzzles are 4x4 and 9x9 Sudoku and a 2x1
Shikaku, so that each case takes about a second.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.grid_puzzles import render_kind, sudoku_shaped
from cli.main import app
from cli.tally import is_summary

runner = CliRunner()
FOUR = ["1...........4...", "..3.4.........2.", "...4..3..2..1..."]  # 4x4 puzzles, one a line
NINE = "002370900007568402080090000100040800204000706006020001000050010501932600003086200"
FULL = Path("/dev/full")  # a device where every write fails with ENOSPC (Linux)


def invoke(*args):
    """`gpu-anneal ARGS` in-process; the click Result."""
    return runner.invoke(app, [str(a) for a in args])


def faults(result, code: int = 2) -> list[str]:
    """Assert exit `code`, no traceback or internal error; stderr's 'gpu-anneal:' lines
    (every line is one), without their prefix."""
    assert result.exit_code == code, (result.exit_code, result.output)
    assert "Traceback" not in result.output and "internal error" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip() and not is_summary(line)]
    assert all(line.startswith("gpu-anneal: ") for line in lines), lines
    return [line.removeprefix("gpu-anneal: ") for line in lines]


def puzzle_file(tmp_path: Path, lines: list[str], name: str = "p.txt") -> Path:
    """A file of the given lines."""
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


# ---- pictures that cannot be written ----------------------------------------------------


@pytest.mark.skipif(not FULL.exists(), reason="needs /dev/full")
@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_a_picture_on_a_full_disk_is_one_line_exit_2(tmp_path, suffix):
    """`render s.txt f.png` with f.png a link to /dev/full was 'internal error: OSError:
    [Errno 28] No space left on device', exit 3: now one line naming the picture and why."""
    picture = tmp_path / f"f{suffix}"
    picture.symlink_to(FULL)
    result = invoke("render", puzzle_file(tmp_path, [NINE]), picture)
    assert faults(result) == [
        f"render: picture {picture}: cannot write the picture: No space left on device"
    ]
    assert result.stdout == ""


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_a_fifo_as_the_picture_is_one_line_exit_2(tmp_path, suffix):
    """`render s.txt f.svg` with f.svg a FIFO no reader had open waited for one forever: now
    one line naming the picture, before anything is opened."""
    picture = tmp_path / f"f{suffix}"
    os.mkfifo(picture)
    result = invoke("render", puzzle_file(tmp_path, [NINE]), picture)
    assert faults(result) == [
        f"render: picture {picture}: a FIFO, which a picture cannot be written to; name a "
        "picture file"
    ]
    assert result.exit_code == 2


def test_a_folder_in_a_numbered_pictures_place_is_named_and_the_others_drawn(tmp_path):
    """`render s.txt pic.png` (3 puzzles) with a folder pic-1.png wrote pic-0.png, then
    'internal error: IsADirectoryError', exit 3, and never drew pic-2.png: now the folder is
    one line, pic-0.png and pic-2.png are drawn, exit 2."""
    (tmp_path / "pic-1.png").mkdir()
    result = invoke("render", puzzle_file(tmp_path, FOUR), tmp_path / "pic.png")
    assert faults(result) == [
        f"render: picture {tmp_path / 'pic-1.png'}: is a folder; name a file in it"
    ]
    for i in (0, 2):
        assert (tmp_path / f"pic-{i}.png").read_bytes().startswith(b"\x89PNG")
    assert result.stdout.split() == ["wrote", str(tmp_path / "pic-0.png"), "wrote",
                                     str(tmp_path / "pic-2.png")]  # fmt: skip


@pytest.mark.parametrize("grid", [True, False], ids=["shikaku", "sudoku"])
def test_a_dangling_link_as_the_picture_is_one_line_exit_2(tmp_path, grid):
    """`render s.txt d.png` with d.png a link to nofolder/z.png was 'internal error:
    FileNotFoundError', exit 3 (a Shikaku: the same path through its own writer)."""
    picture = tmp_path / "d.png"
    picture.symlink_to("nofolder/z.png")
    lines = ["2x1:2a"] if grid else [NINE]
    result = invoke("render", puzzle_file(tmp_path, lines), picture)
    assert faults(result) == [
        f"render: picture {picture}: cannot write the picture: No such file or directory"
    ]


def test_a_picture_that_cannot_be_written_closes_its_figure(tmp_path):
    """A failed save left its matplotlib figure open: a file of many puzzles to a full disk
    piled up figures (matplotlib's multi-line 'More than 20 figures' warning, and memory)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.close("all")
    (tmp_path / "pic-0.png").mkdir()
    picture = tmp_path / "pic-1.png"
    picture.symlink_to("nofolder/z.png")  # passes the checks, fails in savefig
    result = invoke("render", puzzle_file(tmp_path, FOUR[:2]), tmp_path / "pic.png")
    assert len(faults(result)) == 2
    assert plt.get_fignums() == []


def test_a_picture_named_only_by_its_suffix_is_named_as_such(tmp_path):
    """`render s.txt .png` said 'picture .png must end in .png or .svg', though it does: the
    fault is the empty name before the suffix."""
    os.chdir(tmp_path)
    result = invoke("render", puzzle_file(tmp_path, [NINE]), ".png")
    assert faults(result) == [
        "render: picture .png: the file name before .png is empty; name the picture, e.g. "
        "puzzle.png"
    ]
    assert list(tmp_path.iterdir()) == [tmp_path / "p.txt"]


# ---- the kind of a file whose first puzzles are faulty -----------------------------------


def test_a_sudoku_file_whose_first_line_is_faulty_is_drawn_as_sudoku(tmp_path):
    """A bad first line, then three good 9x9 lines, was read as Shikaku: 'line 2: unknown cell
    ...', exit 2, nothing drawn. Now the line is the Sudoku reader's fault and the three are
    drawn, as with --kind sudoku."""
    path = puzzle_file(tmp_path, ["12345", NINE, NINE.replace("2", ".", 1), NINE[::-1]])
    assert render_kind(str(path)) == "sudoku"
    result = invoke("render", path, tmp_path / "o.svg")
    assert faults(result) == [
        f"{path} line 1: 5 cells, expected 16 (4x4); a Sudoku has 16, 81, 256, 625, 1296, "
        "2401, 4096 cells"
    ]
    assert sorted(p.name for p in tmp_path.glob("o-*.svg")) == ["o-0.svg", "o-1.svg", "o-2.svg"]


def test_a_sudoku_line_with_a_repeated_given_is_named_as_a_sudoku_fault(tmp_path):
    """'11' then 79 zeros (a digit given twice) was read as Shikaku: 'clue areas sum to 2, the
    grid has 81 cells'. Now: the Sudoku reader's fault, as `solve` says it."""
    path = puzzle_file(tmp_path, ["11" + "0" * 79])
    assert sudoku_shaped(str(path)) and render_kind(str(path)) == "sudoku"
    assert faults(invoke("render", path, tmp_path / "o.svg")) == [
        f"{path} line 1: digit 1 given twice in row 1 (r1c1, r1c2)"
    ]


def test_a_lloyd_amos_file_a_row_short_is_named_as_a_sudoku_fault(tmp_path):
    """A Lloyd & Amos file (order 3, `1`) of 8 rows was read as Shikaku: "line 3: unknown cell
    '-1'". Now: 'puzzle ends after 8 rows, expected 9', as `solve` says it."""
    path = puzzle_file(tmp_path, ["3", "1", *["\t".join(["-1"] * 9)] * 8], "la.txt")
    assert render_kind(str(path)) == "sudoku"
    assert faults(invoke("render", path, tmp_path / "o.svg")) == [
        f"{path} line 1: puzzle ends after 8 rows, expected 9"
    ]


# a 5x5 Shikaku grid, tab-separated, its clues summing to 24 (a fault)
TAB_GRID = ["\t".join("20" if (r, c) == (0, 0) else "4" if (r, c) == (4, 4) else "."
                      for c in range(5)) for r in range(5)]  # fmt: skip
# a 16x16 Shikaku grid, 0 for a blank, its eight clues summing to 255 (a fault): a row of 16
# numbers, as a 16x16 Sudoku's, whose numbers sum to no more than its cells
_CLUES = {(1, 1): 31, (3, 5): 32, (5, 9): 32, (7, 13): 32, (9, 2): 32, (11, 6): 32,
          (13, 10): 32, (15, 14): 32}  # fmt: skip
SPACED_16 = [" ".join(str(_CLUES.get((r, c), 0)) for c in range(16)) for r in range(16)]


@pytest.mark.parametrize(
    "lines, fault",
    [
        (["10x10:zzz"], "description has 78 cells, 10x10 needs 100"),
        (["12345"], "clue areas sum to 15, the grid has 5 cells"),
        (["4.x", "..2", "..."], "unknown cell 'x'"),
        (
            ["4.\x01", "..2", "..."],
            "control character U+0001 at column 3; not puzzle text; a "
            "text grid with a faulty line is refused whole",
        ),
        (TAB_GRID, "clue areas sum to 24, the grid has 25 cells"),
        (SPACED_16, "clue areas sum to 255, the grid has 256 cells"),
    ],
    ids=["game-id", "one-row-grid", "text-grid", "unreadable-line", "tab-grid", "spaced-16"],
)
def test_a_faulty_file_not_shaped_as_sudoku_stays_shikaku(tmp_path, lines, fault):
    """The Sudoku-shaped rule leaves other files that no reader reads as they were: Shikaku,
    its fault named (not the Sudoku reader's 'N cells, expected ...')."""
    path = puzzle_file(tmp_path, lines)
    assert not sudoku_shaped(str(path)) and render_kind(str(path)) == "shikaku"
    assert faults(invoke("render", path, tmp_path / "o.svg")) == [f"{path} line 1: {fault}"]


# ---- stdin ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, kind, drawn",
    [
        ("\n".join(FOUR) + "\n", "sudoku", ["o-0.svg", "o-1.svg", "o-2.svg"]),
        ("3x3m2:3a2c1a2\n", "hashi", ["o.svg"]),
        ("2x1:2a\n", "shikaku", ["o.svg"]),
    ],
    ids=["sudoku", "hashi", "shikaku"],
)
def test_render_of_stdin_without_a_kind_tells_its_kind(tmp_path, monkeypatch, text, kind, drawn):
    """`gpu-anneal generate | gpu-anneal render - o.svg`: stdin, which cannot be read twice, was
    always read as Shikaku, so Sudoku lines were refused ('clue areas sum to 16, the grid has
    16 cells', exit 2). It is now held in memory and its kind told as a file's."""
    import cli.grid_puzzles as grid_puzzles

    kinds = []
    told = grid_puzzles.render_kind
    monkeypatch.setattr(
        grid_puzzles, "render_kind", lambda src: kinds.append(told(src)) or kinds[-1]
    )
    result = runner.invoke(app, ["render", "-", str(tmp_path / "o.svg")], input=text)
    assert result.exit_code == 0, result.output
    assert kinds == [kind]
    assert sorted(p.name for p in tmp_path.glob("o*.svg")) == drawn


def test_render_of_stdin_past_its_limit_without_a_kind_is_one_line(tmp_path, monkeypatch):
    """stdin longer than what render holds to tell its kind: one line naming --kind (which
    reads it as it comes), exit 2; with --kind it is drawn."""
    import cli.grid_puzzles as grid_puzzles

    monkeypatch.setattr(grid_puzzles, "STDIN_LIMIT", 20)
    text = "\n".join(FOUR) + "\n"  # 51 bytes
    result = runner.invoke(app, ["render", "-", str(tmp_path / "o.svg")], input=text)
    assert faults(result) == [
        "<stdin>: more than 20 bytes to tell its puzzle kind from; name it with --kind, which "
        "reads it as it comes"
    ]
    assert not list(tmp_path.glob("o*.svg"))
    args = ["render", "--kind", "sudoku", "-", str(tmp_path / "o.svg")]
    assert runner.invoke(app, args, input=text).exit_code == 0
    assert len(list(tmp_path.glob("o-*.svg"))) == 3


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_render_of_a_fifo_without_a_kind_reads_it_once(tmp_path):
    """A FIFO (or a shell's `<(command)`) was read to tell its kind, then opened again: the
    second open waited for a writer that never came (a hang), or found it empty. It is now read
    once into memory, as stdin is."""
    import subprocess
    import sys
    import threading

    fifo = tmp_path / "puzzles.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text("\n".join(FOUR) + "\n"))
    writer.start()
    try:
        ran = subprocess.run([sys.executable, "-m", "cli.main", "render", str(fifo),
                              str(tmp_path / "o.svg")], capture_output=True, text=True,
                             timeout=60)  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail("render of a FIFO: no exit within 60 s")
    finally:
        if writer.is_alive():  # the writer waits for a reader: give it one
            with open(fifo, encoding="utf-8") as drain:
                drain.read()
        writer.join()
    assert ran.returncode == 0, ran.stderr
    assert sorted(p.name for p in tmp_path.glob("o-*.svg")) == ["o-0.svg", "o-1.svg", "o-2.svg"]


def _sudoku_49(separator: str, value: int = 50) -> list[str]:
    """A 49x49 grid's rows (half blank) with one cell, r3c5, holding `value`."""
    rows = [[((r % 7) * 7 + r // 7 + c) % 49 + 1 if (r + c) % 2 else 0 for c in range(49)]
            for r in range(49)]  # fmt: skip
    rows[2][4] = value
    return [separator.join(str(v) for v in row) for row in rows]


@pytest.mark.parametrize(
    "lines, fault",
    [
        (_sudoku_49(" "), "line 3, cell r3c5: number '50' is not a digit 0..49 of a 49x49 grid"),
        (_sudoku_49(","), "line 3, cell r3c5: number '50' is not a digit 0..49 of a 49x49 grid"),
        (
            _sudoku_49(" ", -2),
            "line 3, cell r3c5: number '-2' is not a digit 0..49 of a 49x49 grid",
        ),  # fmt: skip
        (_sudoku_49(",", 0)[:48], "line 1: puzzle ends after 48 rows, expected 49"),
    ],
    ids=["rows-50", "csv-50", "rows-minus-2", "csv-48-rows"],
)
def test_a_faulty_file_of_numbers_laid_out_as_sudoku_is_named_as_a_sudoku_fault(
    tmp_path, lines, fault
):
    """A 49x49 grid of numbers with a 50 (or -2, or a row short) was read as Shikaku: 'clue
    areas sum to 30902, the grid has 2401 cells', "unknown cell ','". A first line of numbers
    separated by commas, or of 16 or more numbers, is now Sudoku-shaped."""
    path = puzzle_file(tmp_path, lines)
    assert sudoku_shaped(str(path)) and render_kind(str(path)) == "sudoku"
    assert faults(invoke("render", path, tmp_path / "o.svg")) == [f"{path} {fault}"]


# ---- --time-limit ------------------------------------------------------------------------


@pytest.fixture
def solved_params(monkeypatch) -> list:
    """The params (seed, chains, time_limit...) of every result render's api.solve returns."""
    from gpu_anneal import api

    seen: list = []
    solve = api.solve

    def spy(items, **options):
        results = solve(items, **options)
        seen.extend(result.params for result in results)
        return results

    monkeypatch.setattr(api, "solve", spy)
    return seen


@pytest.mark.parametrize("given, ran", [(["--time-limit", "7.5"], 7.5), ([], 60.0)])
def test_render_solve_takes_a_time_limit_to_the_solver(tmp_path, solved_params, given, ran):
    """`render --solve` had no --time-limit: a puzzle the solver cannot finish ran for solve's
    default. Now the limit reaches the solver (60 s, solve's default, when not given)."""
    path = puzzle_file(tmp_path, ["2x1:2a"])
    result = invoke("render", path, tmp_path / "s.png", "--solve", *given)
    assert result.exit_code == 0, result.output
    assert [params.time_limit for params in solved_params] == [ran]


@pytest.mark.parametrize(
    "given, fault",
    [
        (["--solve", "--time-limit", "-1"], "--time-limit -1.0: must be a finite number in [0, "),
        (["--time-limit", "5"], "--time-limit does not apply without --solve"),
    ],
)
def test_render_refuses_a_time_limit_it_cannot_use(tmp_path, given, fault):
    """A negative --time-limit, or one without --solve: one line before anything is drawn."""
    result = invoke("render", puzzle_file(tmp_path, [NINE]), tmp_path / "s.png", *given)
    (line,) = faults(result)
    assert line.startswith(fault) and not (tmp_path / "s.png").exists()


def test_a_picture_write_fault_without_a_message_is_named_by_its_type(tmp_path):
    """A writer's ValueError() with no message made bench's picture helper fail on its first
    line ('internal error: IndexError', exit 3); the shared helper names the type."""
    from cli.pictures import draw
    from gpu_anneal.reference import OutputError

    def silent(path):
        raise ValueError()

    with pytest.raises(OutputError) as caught:
        draw("--plot", "p.png", silent)
    assert str(caught.value) == "--plot p.png: cannot write the picture: ValueError"


def test_a_puzzle_with_no_solution_is_said_in_words_and_drawn(tmp_path):
    """`render --solve` of a 4x4 whose r1c3 can hold nothing said 'no_solution, drawing the
    puzzle only' (a result's status word): it says 'no solution', draws the puzzle, exit 1."""
    picture = tmp_path / "p.svg"
    result = invoke("render", puzzle_file(tmp_path, ["12........3...4."]), picture, "--solve")
    assert faults(result, code=1) == [f"{tmp_path / 'p.txt'} line 1: no solution, drawing the "
                                      "puzzle only"]  # fmt: skip
    assert picture.read_text().lstrip().startswith("<?xml")
