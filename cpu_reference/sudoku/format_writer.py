"""Sudoku puzzles written in the formats cpu_reference.sudoku.formats reads (its docstring
describes them): one puzzle or solution as text, read back as the same cells.

Glossary of index names (as in cpu_reference.sudoku.formats):
    n       order: box side (2..8)
    N       side of the grid and number of digits, N = n * n
    d       digit, 1..N; 0 means blank, written `.` in the symbol formats
"""

from __future__ import annotations

from functools import cache

import numpy as np

from cpu_reference.errors import InputError
from cpu_reference.sudoku import puzzle_lines
from cpu_reference.sudoku.formats import FORMATS, ORDERS, SYMBOLS
from cpu_reference.sudoku.layout import MAX_ORDER, MIN_ORDER
from cpu_reference.tatham import solo_description


def _symbols(cells: np.ndarray, N: int) -> str:
    if N > len(SYMBOLS) and int(cells.max(initial=0)) > len(SYMBOLS):
        raise InputError(
            f"digit {len(SYMBOLS) + 1} has no one-line symbol; write {N}x{N} as rows, csv, "
            "csv-line, tsv or solo"
        )
    return _SYMBOL_BYTES[cells].tobytes().decode("ascii")


_SYMBOL_BYTES = np.frombuffer(("." + SYMBOLS).encode("ascii"), np.uint8)  # digit -> its symbol


@cache
def _line_symbols(N: int) -> np.ndarray:
    """uint8[256]: digit d <= N -> its symbol's byte, any other value -> 0xFF (no ASCII)."""
    table = np.full(256, 0xFF, np.uint8)
    table[: N + 1] = _SYMBOL_BYTES[: N + 1]
    table.setflags(write=False)
    return table


def line_text(cells, order: int) -> str | None:
    """format_grid(cells, order, "line") for uint8 cells of an order-`order` grid whose every
    value is a digit 0..N with a one-line symbol, in one gather; None for anything else (a
    value above N, another dtype or size, an order outside ORDERS or without one-line symbols),
    which format_grid then writes or refuses."""
    if not isinstance(cells, np.ndarray) or cells.dtype != np.uint8 or order not in ORDERS:
        return None
    N = order * order
    if cells.size != N * N or N > len(SYMBOLS):
        return None
    try:  # a value above N maps to a byte that is no ASCII
        return _line_symbols(N).take(cells).tobytes().decode("ascii")  # in row-major order
    except UnicodeDecodeError:
        return None


def format_grid(
    cells: np.ndarray,
    order: int,
    fmt: str,
    name: str = "",
    count: int | None = None,
    solution: np.ndarray | None = None,
    separator: str = ",",
) -> str:
    """One puzzle or solution written in fmt, without a final newline (N lines for grid, rows,
    csv).

    name goes into the tsv name field, or after `  # ` for line, csv-line, tdoku and solo;
    count and solution are tdoku's optional fields; separator (one of CSV_SEPARATORS) is
    csv's and csv-line's. Several grid or rows puzzles are best joined by a blank line.
    """
    if fmt not in FORMATS:
        raise InputError(f"unknown puzzle format {fmt!r}; formats are {', '.join(FORMATS)}")
    n = order
    if n not in ORDERS:
        raise InputError(f"order {n} is outside {MIN_ORDER}..{MAX_ORDER}")
    N = n * n
    a = np.asarray(cells).ravel()
    comment = f"  # {name}" if name else ""
    if fmt == "line":
        text = line_text(a, n)
        if text is not None:  # the common case
            return text + comment
    if a.size != N * N or a.dtype.kind not in "iub" or a.min() < 0 or a.max() > N:
        raise InputError(f"cannot write {a.size} cells of type {a.dtype} as a {N}x{N} grid")
    a = a.astype(np.int64)
    if fmt == "line":
        return _symbols(a, N) + comment
    if fmt == "grid":
        text = _symbols(a, N).replace(".", "0")
        return "\n".join(text[r * N : (r + 1) * N] for r in range(N))
    if fmt == "rows":
        w = len(str(N))
        return "\n".join(
            " ".join(f"{v:>{w}}" for v in a[r * N : (r + 1) * N].tolist()) for r in range(N)
        )
    if fmt in ("csv", "csv-line") and separator not in puzzle_lines.CSV_SEPARATORS:
        raise InputError(f"csv separator {separator!r}: expected one of ', ;'")
    if fmt == "csv":
        return "\n".join(
            separator.join(map(str, a[r * N : (r + 1) * N].tolist())) for r in range(N)
        )
    if fmt == "csv-line":
        return separator.join(map(str, a.tolist())) + comment
    if fmt == "tsv":
        return f"{name}\t{n}\t" + ",".join(str(v) for v in a.tolist())
    if fmt == "solo":
        return f"{n}x{n}:" + solo_description(a) + comment
    if fmt == "lloyd-amos":
        rows = ("".join(f"{-1 if v == 0 else v}\t" for v in a[r * N : (r + 1) * N].tolist())
                for r in range(N))  # fmt: skip
        return "\n".join([str(n), "1", *rows])
    text = _symbols(a, N)
    if solution is not None:
        s = np.asarray(solution).ravel().astype(np.int64)
        text += f":{'' if count is None else count}:{_symbols(s, N)}"
    elif count is not None:
        text += f":{count}"
    return text + comment
