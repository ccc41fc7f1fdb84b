"""Writing results: JSON lines or text, flushed as they come so nothing done is lost."""

from __future__ import annotations

import json
import sys

import numpy as np

from cpu_reference.sudoku.formats import format_grid

EXIT_OK = 0
EXIT_UNSOLVED = 1
EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130


def error_line(message: str) -> None:
    """One line on stderr, for bad input and usage faults."""
    print(f"gpu-anneal: {message}", file=sys.stderr, flush=True)


def grid_text(cells: np.ndarray | None, order: int, fmt: str, name: str = "") -> str | None:
    """A grid in the input's own format (tsv lines keep the puzzle's name)."""
    if cells is None:
        return None
    return format_grid(np.asarray(cells, dtype=np.uint8), order, fmt, name if fmt == "tsv" else "")


def write_record(record: dict, output: str) -> None:
    """Write one puzzle's record to stdout as JSON or as a short text block."""
    if output == "jsonl":
        print(json.dumps(record), flush=True)
        return
    state = "solved" if record.get("solved") else "unsolved"
    head = f"# puzzle {record['index']}"
    if record.get("name"):
        head += f" ({record['name']})"
    fields = [state]
    for key in ("unique", "cost", "trials", "proposals", "seconds", "backend", "error"):
        value = record.get(key)
        if value is None:
            continue
        if key == "seconds":
            value = f"{value:.3f}"
        fields.append(f"{key}={value}")
    print(f"{head}: {' '.join(fields)}", flush=True)
    grid = record.get("solution") or record.get("best")
    if grid:
        print(grid, flush=True)


def write_json_or_line(record: dict, output: str) -> None:
    """A record as JSON, or as `key=value` pairs on one line."""
    if output == "jsonl":
        print(json.dumps(record), flush=True)
    else:
        print(
            " ".join(f"{key}={value}" for key, value in record.items() if value != ""), flush=True
        )
