"""CLI helpers for Shikaku and Hashiwokakero, free of typer: the main CLI calls these.

Glossary:
    kind     "shikaku" or "hashi"
    input    a file path or "-" (stdin): one game ID per line (lines holding ':'), or one plain
             text grid for the whole file
    echo     a callable printing one line to stdout; errors go to `err` (stderr by default)

Exit codes: 0 every puzzle solved (or generated, or drawn), 1 some puzzle unsolved, 2 bad input.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cpu_reference.errors import InputError
from gpu_anneal.grid_puzzles import (
    generate_grid_puzzles,
    parse_grid_puzzle,
    render_grid_puzzle,
    solve_grid_puzzle,
)


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


def read_puzzles(kind: str, inputs: list[str]) -> list[tuple[str, object]]:
    """(where, parsed puzzle) for every puzzle in the inputs; InputError names file and line."""
    out = []
    for name in inputs:
        if name == "-":
            text = sys.stdin.read()
        else:
            path = Path(name)
            if not path.is_file():
                raise InputError(f"{name}: no such file")
            text = path.read_text()
        lines = text.splitlines()
        first = next((ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")), "")
        if ":" in first:
            for n, ln in enumerate(lines, 1):
                if ln.strip() and not ln.lstrip().startswith("#"):
                    where = f"{name}:{n}"
                    out.append((where, parse_grid_puzzle(kind, ln.strip(), where)))
        else:
            out.append((name, parse_grid_puzzle(kind, text, name)))
    return out


def cli_solve(
    kind: str,
    inputs: list[str],
    method: str = "anneal",
    backend: str = "auto",
    chains: int | None = None,
    seed: int = 0,
    time_limit: float = 10.0,
    output: str = "text",
    echo=print,
    err=_stderr,
    **options,
) -> int:
    """Solve every puzzle of the inputs and print text blocks or JSON lines; returns exit code."""
    try:
        if output not in ("text", "jsonl"):
            raise InputError(f"output: {output!r} is not one of text, jsonl")
        puzzles = read_puzzles(kind, inputs)
        code = 0
        for where, p in puzzles:
            res = solve_grid_puzzle(kind, p, method=method, backend=backend, chains=chains,
                                    seed=seed, time_limit=time_limit, **options)  # fmt: skip
            res["input"] = where
            if not res["solved"]:
                code = 1
            if output == "jsonl":
                echo(json.dumps(res))
                continue
            head = "solved" if res["solved"] else f"unsolved ({res['status']})"
            echo(f"{where}: {res['game_id']}: {head} by {res['method']} on {res['backend']}"
                 f" in {res['seconds']:.3f} s")  # fmt: skip
            if res["solved"]:
                echo(res["text"])
                echo(f"move: {res['move']}")
            elif res.get("energy") is not None:
                echo(f"best energy: {res['energy']}")
        return code
    except InputError as exc:
        err(f"error: {exc}")
        return 2


def cli_generate(
    kind: str, size: str, count: int, seed: int = 0, unique: bool = False, echo=print,
    err=_stderr, **params,
) -> int:  # fmt: skip
    """Print `count` game IDs of size `size` ("WxH" or "N"); returns exit code."""
    try:
        text = size.lower().strip()
        parts = text.split("x") if "x" in text else [text, text]
        if len(parts) != 2 or not all(x.isdigit() for x in parts):
            raise InputError(f"size: {size!r} is not WxH")
        width, height = int(parts[0]), int(parts[1])
        for gid in generate_grid_puzzles(kind, width, height, count, seed, unique, **params):
            echo(gid)
        return 0
    except InputError as exc:
        err(f"error: {exc}")
        return 2


def cli_render(
    kind: str, input: str, output_path: str, solve: bool = False, echo=print, err=_stderr,
    **solve_options,
) -> int:  # fmt: skip
    """Draw the first puzzle of `input` (solved first when `solve`) to a .png or .svg file."""
    try:
        where, p = read_puzzles(kind, [input])[0]
        solution = None
        code = 0
        if solve:
            res = solve_grid_puzzle(kind, p, **solve_options)
            if res["solved"]:
                solution = res["solution"]
            else:
                err(f"{where}: unsolved ({res['status']}), drawing the puzzle only")
                code = 1
        render_grid_puzzle(kind, p, output_path, solution)
        echo(f"wrote {output_path}")
        return code
    except InputError as exc:
        err(f"error: {exc}")
        return 2
