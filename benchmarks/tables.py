"""Markdown pieces the benchmark scripts share."""

from __future__ import annotations


def table_block(title: str, header: tuple, cells: list[tuple], tail: str) -> list[str]:
    """Markdown lines: a title, a table (first column left-aligned, the rest right), a tail."""
    align = "| --- |" + " ---: |" * (len(header) - 1)
    rows = ["| " + " | ".join(row) + " |" for row in cells]
    return [title, "", "| " + " | ".join(header) + " |", align, *rows, "", tail, ""]
