"""Writing results: JSON lines or text, flushed as they come so nothing done is lost.

Text output puts only verified solutions where solutions go: each puzzle gets one header line
starting with '#', followed by its solution when it is solved (grid output: as an aligned grid,
cli.grid_view, and a blank line). An unsolved puzzle's best state is never printed as text (it
is in the JSON line's `best`).
"""

from __future__ import annotations

import sys

from gpu_anneal.results import Result, dumps

EXIT_OK = 0
EXIT_UNSOLVED = 1
EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130


def terminated_code(name: str) -> int:
    """The exit code of a run stopped by the stop signal `name`, answered as Ctrl-C is (SIGTERM:
    143, SIGXCPU: 152): 128 + its number, as a shell reports a process that signal ends."""
    import signal

    return 128 + int(getattr(signal, name, signal.SIGTERM))


# While a progress line may show on the terminal (cli.progress.messages_above): each prints text
# above it and returns True, or returns False when it cannot (no line showing; for stdout, when
# stdout is not the terminal the line is on, so the text goes to stdout's own file untouched).
stderr_printer = None
stdout_printer = None


def error_line(message: str) -> None:
    """One line on stderr, for bad input and usage faults (above the progress line, if any)."""
    text = " ".join(str(message).split("\n")).strip()
    printer = stderr_printer
    if printer is not None and printer(f"gpu-anneal: {text}"):
        return
    print(f"gpu-anneal: {text}", file=sys.stderr, flush=True)


def json_line(obj, **kwargs) -> str:
    """A JSON line; NaN and infinities are refused (they are not JSON)."""
    return dumps(obj, **kwargs)


def write_result(result: Result, output: str) -> None:
    """Write one puzzle's result to stdout as a JSON line, a text block (header, solution on
    one line) or a grid block (header, the solution as an aligned grid, a blank line)."""
    if output == "jsonl":
        text = result.to_json()
    elif output == "grid":
        from cli.grid_view import result_grid

        grid = result_grid(result)
        text = result_header(result) + ("" if grid is None else "\n" + grid) + "\n"
    else:
        text = result_header(result)
        if result.solved and result.solution:
            text += "\n" + result.solution
    printer = stdout_printer
    if printer is not None and printer(text):
        return
    print(text, flush=True)


def result_header(result: Result) -> str:
    """'# puzzle I (name) line L: solved key=value ...' for a text block."""
    head = f"# puzzle {result.index}"
    if result.name:
        head += f" ({result.name})"
    if result.line is not None:
        head += f" line {result.line}"
    state = result.status.replace("_", " ")
    fields = [state if result.solved else f"{state}, best state not shown"]
    counts = result.counts
    shown = {
        "unique": result.unique, "cost": result.cost, "trials": counts.trials,
        "proposals": counts.proposals, "nodes": counts.nodes,
        "seconds": f"{result.timing.search:.3f}", "method": result.method,
        "backend": result.backend, "error": result.error,
    }  # fmt: skip
    fields += [f"{key}={value}" for key, value in shown.items() if value is not None]
    return f"{head}: {' '.join(fields)}"


def print_table(columns: list[str], rows: list[list], title: str | None = None) -> None:
    """A table on stdout through rich (plain characters when stdout is not a terminal)."""
    from rich.console import Console
    from rich.table import Table

    table = Table(*columns, title=title, box=None, pad_edge=False, header_style="bold")
    for row in rows:
        table.add_row(*(str(x) for x in row))
    Console(width=None if sys.stdout.isatty() else 200).print(table)


def write_json_or_line(record: dict, output: str) -> None:
    """A record as JSON, or as `key=value` pairs on one line."""
    if output == "jsonl":
        print(json_line(record), flush=True)
    else:
        print(
            " ".join(f"{key}={value}" for key, value in record.items() if value != ""), flush=True
        )
