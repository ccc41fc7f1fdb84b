"""tdoku's test puzzles (tests/data/tdoku_test_puzzles.txt) for the exact-solver tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np

DATA = Path(__file__).parent / "data"


def parse81(text: str) -> np.ndarray:
    """81 characters ('.' or '0' blank) as uint8[81]."""
    return np.array([0 if ch in ".0" else int(ch) for ch in text], dtype=np.uint8)


def tdoku_cases() -> list[tuple[np.ndarray, int, str]]:
    """(puzzle, solution count, solution text or '') of every line of the file."""
    out = []
    for line in (DATA / "tdoku_test_puzzles.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            fields = line.strip().split(":")
            out.append((parse81(fields[0]), int(fields[1]), fields[2] if len(fields) > 2 else ""))
    return out
