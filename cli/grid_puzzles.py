"""`generate --kind shikaku|hashi` and `render`: parse the options, call gpu_anneal, print.

Glossary:
    kind     "shikaku" or "hashi"
    size     "WxH" (or "N" for a square)
    echo     a callable printing one line to stdout

`render` draws every puzzle of its input, one picture each: a file of one puzzle gives the
picture named, a file of several gives NAME-I.SUFFIX for the puzzle of index I (0-based, as the
`index` of solve's records; zero-padded to one width). Sudoku of every order is drawn too;
without --kind, a file one of whose first puzzles reads as a Sudoku is one, and so is a
Sudoku-shaped file no reader reads (render_kind), else Shikaku or Hashi. A faulty puzzle, and a
picture that cannot be written (a full disk, a folder in its place), is reported on its own line
and the others are still drawn. A picture name that is the input file (by any name, a numbered
one included) is refused before anything is drawn.

Exit codes: 0 every puzzle generated or drawn (and solved with --solve), 1 unsolved, 2 bad input
(one line each, the other puzzles still drawn; or raised as InputError and turned into one line by
cli.guard).
"""

from __future__ import annotations

import functools
import io
import os
import re
import stat
import sys
from collections.abc import Callable
from pathlib import Path

from cli.output import EXIT_BAD_INPUT, EXIT_OK, EXIT_UNSOLVED, error_line
from gpu_anneal import validate
from gpu_anneal.grid_puzzles import iter_grid_puzzles, render_grid_puzzle
from gpu_anneal.grid_puzzles import too_large_to_draw as puzzle_too_large
from gpu_anneal.reference import InputError, OutputError

_SIDE = re.compile(r"[0-9]{1,7}")
OVERWRITES = "the picture would overwrite the puzzles"
PICTURE = "render: picture"  # how render's messages name a picture file


def parse_size(size: str) -> tuple[int, int]:
    """(width, height) of 'WxH' or 'N' (ASCII digits, at most 7 each: larger sides are beyond
    every generator's cap); InputError otherwise."""
    text = size.lower().strip()
    parts = text.split("x") if "x" in text else [text, text]
    if len(parts) != 2 or not all(_SIDE.fullmatch(x) for x in parts):
        shown = size if len(size) <= 40 else size[:37] + "..."
        raise InputError(f"--size {shown!r}: expected WxH, e.g. 10x8 (each side at most 7 "
                         "digits)")  # fmt: skip
    return int(parts[0]), int(parts[1])


def cli_generate(
    kind: str,
    size: str,
    count: int,
    seed: int = 0,
    unique: bool = False,
    echo=print,
    output: str = "text",
    time_limit: float | None = None,
    **params,
) -> int:
    """Print `count` game IDs of size `size` (one a line, or GameIdRecord JSON lines with
    output "jsonl"), each as soon as it is made, within `time_limit` seconds (None: none);
    returns the exit code."""
    from gpu_anneal.records import GameIdRecord

    width, height = parse_size(size)
    validate.count(count)  # as the API checks them, named by their flags
    validate.seed(seed)
    ids = iter_grid_puzzles(kind, width, height, count, seed, unique, time_limit, **params)
    for index, gid in enumerate(ids):
        if output == "jsonl":
            size_text = f"{width}x{height}"
            record = GameIdRecord(index=index, kind=kind, size=size_text, puzzle=gid, seed=seed,
                                  unique=bool(unique))  # fmt: skip
            echo(record.to_json())
        else:
            echo(gid)
    return EXIT_OK


def picture_paths(output_path: str, indices: list[int]) -> list[str]:
    """Where each puzzle's picture goes: output_path itself for a single puzzle, else
    NAME-I.SUFFIX per puzzle index I, zero-padded to the widest index."""
    if len(indices) == 1:
        return [output_path]
    path = Path(output_path)
    width = len(str(max(indices)))
    return [str(path.with_name(f"{path.stem}-{i:0{width}d}{path.suffix}")) for i in indices]


SNIFFED = 10  # the puzzles of an input render_kind reads, per reader
STDIN_LIMIT = 256 * 2**20  # bytes of stdin render holds to tell its kind (--kind: any size)
STDIN = "<stdin>"


def reopener(input: str) -> Callable[[], object]:
    """A source of `input` fresh at each call, for reading it more than once: a regular file's
    path itself (a FileName); stdin ("-", named <stdin>) and any other file that can be read
    only once (a FIFO, a shell's `<(command)`) an in-memory copy, read here up to STDIN_LIMIT
    bytes: InputError past them, naming --kind, which reads the input as it comes."""
    from gpu_anneal.inputs import file_names

    if input != "-" and not _read_once(input):
        (path,) = file_names([input])
        return lambda: path
    name = STDIN if input == "-" else input
    try:
        if input == "-":
            data = getattr(sys.stdin, "buffer", sys.stdin).read(STDIN_LIMIT + 1)
        else:
            with open(input, "rb") as stream:
                data = stream.read(STDIN_LIMIT + 1)
    except (OSError, ValueError, AttributeError) as error:  # closed, or no stdin at all
        why = getattr(error, "strerror", None) or error
        raise InputError(f"{name}: cannot read: {why}") from None
    if isinstance(data, str):
        data = data.encode()
    if len(data) > STDIN_LIMIT:
        held = f"{STDIN_LIMIT // 2**20} MiB" if STDIN_LIMIT >= 2**20 else f"{STDIN_LIMIT} bytes"
        raise InputError(f"{name}: more than {held} to tell its puzzle kind from; name it with "
                         "--kind, which reads it as it comes")  # fmt: skip

    def copy() -> io.BytesIO:
        fresh = io.BytesIO(data)
        fresh.name = name
        return fresh

    return copy


def _read_once(path: str) -> bool:
    """Whether a path names something that can be read once only: a FIFO, a pipe or a
    character device (`<(command)` is /dev/fd/N); False for a regular file, a folder and a
    path that is not there (the reader names those)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISSOCK(mode)


def render_kind(input: str | Callable[[], object]) -> str:
    """The kind `render` draws when none is given, from each reader's first SNIFFED puzzles of
    the input (a path, or a reopener of one: stdin is read once, as reopener("-") does), a
    fault among them being that puzzle's own, as `render --kind` reports it: sudoku when one of
    them reads as a Sudoku (any of its formats); else hashi when one reads as a Hashi and none
    as a Shikaku; else shikaku when one reads as a Shikaku; else, when no reader reads any,
    sudoku when the input is shaped as Sudoku (sudoku_shaped: its faults are then the Sudoku
    reader's), else shikaku."""
    from gpu_anneal.reference import Puzzle, iter_puzzles

    source = reopener(input) if isinstance(input, str) else input
    if any(isinstance(x, Puzzle) for x in _firsts(lambda: iter_puzzles(**_named(source())))):
        return "sudoku"
    shikaku = _reads_as(source, "shikaku")
    if not shikaku and _reads_as(source, "hashi"):
        return "hashi"  # a Shikaku file is read once more, not twice
    if shikaku or not sudoku_shaped(source):
        return "shikaku"
    return "sudoku"


def _named(source) -> dict:
    """iter_puzzles' source and name for a fresh source: a path, or stdin's copy."""
    return {"source": source, "name": getattr(source, "name", None) or str(source)}


def _firsts(open_items, count: int = SNIFFED) -> list:
    """The first `count` items (puzzles or faults) of open_items(), a reader's stream, which is
    closed after; those read before the reader refused the input whole (unreadable, empty,
    binary: [] at once)."""
    firsts: list = []
    try:
        items = open_items()
        try:
            for item in items:
                firsts.append(item)
                if len(firsts) == count:
                    break
        finally:
            items.close()
    except InputError:  # refused whole: render's own reading names the fault
        pass
    return firsts


def _reads_as(source: Callable[[], object], kind: str) -> bool:
    """Whether one of the first SNIFFED puzzles of a fresh source() reads as one of `kind`."""
    from gpu_anneal.inputs import read

    firsts = _firsts(lambda: read([source()], kind))
    return any(not isinstance(item, InputError) for item in firsts)


def sudoku_shaped(input: str | Callable[[], object]) -> bool:
    """Whether an input (a path, or a reopener of one) that no reader reads is a faulty Sudoku
    file rather than anything else: one of its first SNIFFED puzzles reads as a Sudoku but for
    a digit given twice in a unit, or it opens as a Lloyd & Amos file (its order alone on a
    line, then `1`), which the Sudoku reader takes as one whatever its rows hold, or with a
    line of numbers laid out as a Sudoku's (opens_as_numbers: csv, tsv, or a row of 16 or
    more numbers)."""
    from gpu_anneal.reference import (
        Puzzle,
        iter_puzzles,
        opens_as_lloyd_amos,
        opens_as_numbers,
    )

    source = reopener(input) if isinstance(input, str) else input
    firsts = _firsts(lambda: iter_puzzles(**_named(source()), check=False))
    if any(isinstance(x, Puzzle) for x in firsts):
        return True
    if not firsts:
        return False
    return opens_as_lloyd_amos(**_named(source())) or opens_as_numbers(**_named(source()))


def too_large_to_draw(item) -> InputError | None:
    """The fault of a Shikaku or Hashi item too large for a picture (grid_puzzles'), or None."""
    fault = puzzle_too_large(item.puzzle)
    return None if fault is None else InputError(f"{item.source} line {item.line}: {fault}")


def cli_render(
    kind: str | None, input: str, output_path: str, solve: bool = False, echo=print,
    err=error_line, threads: int | None = None, time_limit: float | None = None,
) -> int:  # fmt: skip
    """Draw every puzzle of `input` (each solved first when `solve`) to .png or .svg files,
    named by picture_paths; a faulty puzzle, or a picture that cannot be written, is one line
    on stderr and the others are drawn (exit code 2 at the end). `kind` None: render_kind's;
    `threads`: the threads of the solving (--threads); `time_limit`: seconds per puzzle of the
    solving (--time-limit, as solve's: None the kind's default, 0 none; only with `solve`)."""
    from cli.pictures import draw
    from cli.threads import use_threads
    from gpu_anneal import api
    from gpu_anneal.inputs import file_names, read

    use_threads(threads)
    validate.time_limit(time_limit)
    if time_limit is not None and not solve:
        raise InputError("--time-limit does not apply without --solve (it bounds the solving)")
    validate.output_path(output_path, PICTURE)
    check_picture_name(output_path)
    validate.not_an_input(PICTURE, output_path, [input], OVERWRITES)
    source = reopener(input) if kind is None else None  # stdin: read once, here
    kind = kind or render_kind(source)
    items, faults = [], 0
    for item in read([source()] if source is not None else file_names([input]), kind):
        if not isinstance(item, InputError) and item.order is None:
            item = too_large_to_draw(item) or item
        if isinstance(item, InputError):
            err(str(item))
            faults += 1
        else:
            items.append(item)
    if not items:
        if faults:
            return EXIT_BAD_INPUT
        raise InputError(f"{input}: no puzzle found")
    paths = picture_paths(output_path, [item.index for item in items])
    for path in paths:  # a numbered name may be the input's too (pic-0.png from pic.png)
        validate.not_an_input(PICTURE, path, [input], OVERWRITES)
    results = api.solve(items, kind=kind, time_limit=time_limit) if solve else [None] * len(items)
    code = EXIT_OK
    for item, result, path in zip(items, results, paths, strict=True):
        rows = None
        if result is not None:
            rows = result.solution_rows
            if not result.solved:
                said = result.status.replace("_", " ")  # no_solution: "no solution"
                err(f"{item.source} line {item.line}: {said}, drawing the puzzle only")
                code = EXIT_UNSOLVED
        try:
            validate.output_path(path, PICTURE)  # a folder in a numbered picture's place
            if os.path.exists(path) and stat.S_ISFIFO(os.stat(path).st_mode):  # opening waits
                raise OutputError(f"{PICTURE} {path}: a FIFO, which a picture cannot be "
                                  "written to; name a picture file")  # fmt: skip
            draw(PICTURE, path, functools.partial(_draw_item, kind, item, rows))
        except OutputError as exc:  # the pictures drawn stay, the others are still drawn
            err(str(exc))
            faults += 1
            continue
        echo(f"wrote {path}")
    return EXIT_BAD_INPUT if faults else code


def check_picture_name(output_path: str) -> None:
    """InputError unless the picture's file name is a name ending in .png or .svg (a bare
    '.png' is a name without its part before the suffix)."""
    name = Path(output_path).name
    if name.lower() in (".png", ".svg"):
        raise InputError(f"{PICTURE} {output_path}: the file name before {name} is empty; name "
                         f"the picture, e.g. puzzle{name}")  # fmt: skip
    if Path(output_path).suffix.lower() not in (".png", ".svg"):
        raise InputError(f"{PICTURE} {output_path} must end in .png or .svg")


def _draw_item(kind: str, item, rows, path: str) -> None:
    """Draw one puzzle (a Sudoku by its order, a Shikaku or Hashi by `kind`), with the
    solution `rows` when given, to path."""
    if item.order is not None:  # a Sudoku grid, drawn by its order
        from gpu_anneal.reference import render_sudoku

        render_sudoku(item.puzzle, item.order, path, rows)
    else:
        render_grid_puzzle(kind, item.puzzle, path, rows)
