"""Markdown pieces the benchmark scripts share, and writing a results file with its report."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def secs(x: float | None) -> str:
    """Seconds to three significant digits ('-' for None)."""
    if x is None:
        return "-"
    if x >= 100:
        return f"{x:,.0f} s"
    if x < 0.01:
        return f"{x * 1e3:.3g} ms"
    return f"{x:.3g} s"


def made_sentence(result: dict) -> str:
    """'Made by `COMMAND` at COMMIT: CPU, N cores, DATE, load average A, B, C at the start.' of
    a results document (made_by's fields and its machine)."""
    m = result["machine"]
    load = ", ".join(f"{x:.1f}" for x in m.get("load_average") or [])
    return (
        f"Made by `{result['command']}` at {result['commit'] or '?'}: {m.get('cpu_model')}, "
        f"{m.get('cores')} cores, {m.get('date')}, load average {load} at the start."
    )


def table_block(title: str, header: tuple, cells: list[tuple], tail: str) -> list[str]:
    """Markdown lines: a title, a table (first column left-aligned, the rest right), a tail."""
    align = "| --- |" + " ---: |" * (len(header) - 1)
    rows = ["| " + " | ".join(row) + " |" for row in cells]
    return [title, "", "| " + " | ".join(header) + " |", align, *rows, "", tail, ""]


def write_results(out, result: dict, render) -> None:
    """Write `result` as OUT.json and its markdown render(result) as OUT.md (making OUT's
    folder when absent), and print it."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n")
    report = render(result)
    out.with_suffix(".md").write_text(report)
    print(report)


def rerender(out, render) -> None:
    """Rewrite OUT.md from OUT.json (a changed report, no new measurement)."""
    out = Path(out)
    out.with_suffix(".md").write_text(render(json.loads(out.with_suffix(".json").read_text())))


def out_path(text: str) -> str:
    """--out's value: a results path without suffix (OUT.json and OUT.md replace one, so a name
    with a dot would lose what follows it); argparse reports a refusal in one line."""
    if Path(text).suffix:
        raise argparse.ArgumentTypeError(
            f"give the path without a suffix ({Path(text).name!r} has one: "
            ".json and .md replace it)"
        )
    return text


def int_list(text: str) -> list[int]:
    """A comma-separated list of integers (an argparse type, e.g. --chain-seeds or --chains);
    argparse reports a refusal in one line."""
    try:
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected integers, comma-separated") from None


def float_list(text: str) -> list[float]:
    """A comma-separated list of numbers (an argparse type, e.g. --stays); argparse reports a
    refusal in one line."""
    try:
        return [float(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected numbers, comma-separated") from None


def add_out_arguments(ap, default) -> None:
    """The results arguments of a benchmark: --out (path without suffix) and --render."""
    ap.add_argument(
        "--out", type=out_path, default=str(default), help="results path without suffix"
    )
    ap.add_argument("--render", action="store_true", help="only rewrite OUT.md from OUT.json")
