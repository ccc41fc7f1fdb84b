"""Resuming a run: which puzzles a JSON-lines results file already holds as solved."""

from __future__ import annotations

import json
import os

from cpu_reference.errors import InputError


def solved_indices(path: str | None) -> set[int]:
    """Indices recorded as solved in a JSON-lines results file (empty if there is none)."""
    found: set[int] = set()
    if not path or not os.path.exists(path):
        return found
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                record = json.loads(line)
            except ValueError:
                raise InputError(f"{path} line {number}: not a JSON object (--resume)") from None
            if isinstance(record, dict) and record.get("solved") and "index" in record:
                found.add(int(record["index"]))
    return found
