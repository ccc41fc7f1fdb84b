"""`generate --kind shikaku|hashi` and `render`: parse the options, call gpu_anneal, print.

Glossary:
    kind     "shikaku" or "hashi"
    size     "WxH" (or "N" for a square)
    echo     a callable printing one line to stdout

Exit codes: 0 every puzzle generated or drawn (and solved with --solve), 1 unsolved, 2 bad input
(raised as InputError and turned into one line by cli.guard).
"""

from __future__ import annotations

from cli.output import error_line
from cpu_reference.errors import InputError
from gpu_anneal import api, validate
from gpu_anneal.grid_puzzles import generate_grid_puzzles, render_grid_puzzle


def parse_size(size: str) -> tuple[int, int]:
    """(width, height) of 'WxH' or 'N'; InputError otherwise."""
    text = size.lower().strip()
    parts = text.split("x") if "x" in text else [text, text]
    if len(parts) != 2 or not all(x.isdigit() for x in parts):
        raise InputError(f"--size {size!r}: expected WxH, e.g. 10x8")
    return int(parts[0]), int(parts[1])


def cli_generate(
    kind: str, size: str, count: int, seed: int = 0, unique: bool = False, echo=print, **params
) -> int:
    """Print `count` game IDs of size `size`; returns the exit code."""
    width, height = parse_size(size)
    for gid in generate_grid_puzzles(kind, width, height, count, seed, unique, **params):
        echo(gid)
    return 0


def cli_render(
    kind: str, input: str, output_path: str, solve: bool = False, echo=print, err=error_line
) -> int:
    """Draw the first puzzle of `input` (solved first when `solve`) to a .png or .svg file."""
    validate.output_path(output_path, "render: picture")
    item = next(iter(api.parse_puzzles(input, kind)), None)
    if item is None:
        raise InputError(f"{input}: no puzzle found")
    rows, code = None, 0
    if solve:
        (result,) = api.solve([item], kind=kind)
        rows = result.solution_rows
        if not result.solved:
            where = f"{item.source} line {item.line}"
            err(f"{where}: {result.status}, drawing the puzzle only")
            code = 1
    render_grid_puzzle(kind, item.puzzle, output_path, rows)
    echo(f"wrote {output_path}")
    return code
