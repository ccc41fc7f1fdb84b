"""`generate --kind shikaku|hashi` and `render`: parse the options, call gpu_anneal, print.

Glossary:
    kind     "shikaku" or "hashi"
    size     "WxH" (or "N" for a square)
    echo     a callable printing one line to stdout

`render` draws every puzzle of its input, one picture each: a file of one puzzle gives the
picture named, a file of several gives NAME-I.SUFFIX for the puzzle of index I (0-based, as the
`index` of solve's records; zero-padded to one width). Sudoku of every order is drawn too;
without --kind, a file whose first puzzle reads as a Sudoku is one (render_kind), else Shikaku.
A faulty puzzle is reported on its own line and the others are still drawn. A picture name that
is the input file (by any name, a numbered one included) is refused before anything is drawn.

Exit codes: 0 every puzzle generated or drawn (and solved with --solve), 1 unsolved, 2 bad input
(one line each, the other puzzles still drawn; or raised as InputError and turned into one line by
cli.guard).
"""

from __future__ import annotations

import re
from pathlib import Path

from cli.output import EXIT_BAD_INPUT, EXIT_OK, EXIT_UNSOLVED, error_line
from gpu_anneal import validate
from gpu_anneal.grid_puzzles import iter_grid_puzzles, render_grid_puzzle
from gpu_anneal.grid_puzzles import too_large_to_draw as puzzle_too_large
from gpu_anneal.reference import InputError

_SIDE = re.compile(r"[0-9]{1,7}")
OVERWRITES = "the picture would overwrite the puzzles"


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
    **params,
) -> int:
    """Print `count` game IDs of size `size` (one a line, or GameIdRecord JSON lines with
    output "jsonl"), each as soon as it is made; returns the exit code."""
    from gpu_anneal.records import GameIdRecord

    width, height = parse_size(size)
    validate.count(count)  # as the API checks them, named by their flags
    validate.seed(seed)
    ids = iter_grid_puzzles(kind, width, height, count, seed, unique, **params)
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


def render_kind(input: str) -> str:
    """The kind `render` draws when none is given: sudoku when the input's first puzzle reads
    as a Sudoku (any of its formats), else hashi when it reads as a Hashi and not as a Shikaku,
    else shikaku."""
    from gpu_anneal.reference import Puzzle, iter_puzzles

    if input == "-":
        return "shikaku"  # stdin cannot be read twice
    try:
        items = iter_puzzles(input, name=input)
        try:
            first = next(items, None)
        finally:
            items.close()
    except InputError:
        return "shikaku"
    if isinstance(first, Puzzle):
        return "sudoku"
    if not _first_reads_as(input, "shikaku") and _first_reads_as(input, "hashi"):
        return "hashi"  # a Shikaku file is read once more, not twice
    return "shikaku"


def _first_reads_as(input: str, kind: str) -> bool:
    """Whether the first puzzle of the file reads as a puzzle of `kind`."""
    from gpu_anneal.inputs import file_names, read

    items = read(file_names([input]), kind)
    try:
        first = next(items, None)
    finally:
        items.close()
    return first is not None and not isinstance(first, InputError)


def too_large_to_draw(item) -> InputError | None:
    """The fault of a Shikaku or Hashi item too large for a picture (grid_puzzles'), or None."""
    fault = puzzle_too_large(item.puzzle)
    return None if fault is None else InputError(f"{item.source} line {item.line}: {fault}")


def cli_render(
    kind: str | None, input: str, output_path: str, solve: bool = False, echo=print,
    err=error_line, threads: int | None = None,
) -> int:  # fmt: skip
    """Draw every puzzle of `input` (each solved first when `solve`) to .png or .svg files,
    named by picture_paths; a faulty puzzle is one line on stderr, the others are drawn. `kind`
    None: render_kind's; `threads`: the threads of the solving (--threads)."""
    from cli.threads import use_threads
    from gpu_anneal import api
    from gpu_anneal.inputs import file_names, read

    use_threads(threads)
    validate.output_path(output_path, "render: picture")
    if Path(output_path).suffix.lower() not in (".png", ".svg"):
        raise InputError(f"render: picture {output_path} must end in .png or .svg")
    validate.not_an_input("render: picture", output_path, [input], OVERWRITES)
    kind = kind or render_kind(input)
    items, faults = [], 0
    for item in read(file_names([input]), kind):
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
        validate.not_an_input("render: picture", path, [input], OVERWRITES)
    results = api.solve(items, kind=kind) if solve else [None] * len(items)
    code = EXIT_OK
    for item, result, path in zip(items, results, paths, strict=True):
        rows = None
        if result is not None:
            rows = result.solution_rows
            if not result.solved:
                err(f"{item.source} line {item.line}: {result.status}, drawing the puzzle only")
                code = EXIT_UNSOLVED
        if item.order is not None:  # a Sudoku grid, drawn by its order
            from gpu_anneal.reference import render_sudoku

            render_sudoku(item.puzzle, item.order, path, rows)
        else:
            render_grid_puzzle(kind, item.puzzle, path, rows)
        echo(f"wrote {path}")
    return EXIT_BAD_INPUT if faults else code
