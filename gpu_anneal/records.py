"""The JSON lines of `check`, `generate` and `minimize` (`--output jsonl`): one dataclass per
record type, each with its JSON Schema (`solve` writes gpu_anneal.results.Result).

Glossary:
    grid      a full Sudoku grid; a puzzle has blanks (0 or '.')
    givens    the filled cells of a puzzle
    game ID   Simon Tatham's text of a Shikaku (`rect`) or Hashiwokakero (`bridges`) puzzle
    record    one JSON object on one line; every key is present, null where it does not apply

RECORDS names each record type's schema file (docs/<name>.schema.json, written by
`python docs/generate.py` from gpu_anneal.schemas.record_schema) and the command lines that
write it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gpu_anneal.results import described, dumps, plain

SCHEMA_BASE = "https://gpu-anneal.invalid/"
SolutionCount = int | Literal["2+"]


class _Record:
    """JSON helpers shared by the record dataclasses."""

    def to_dict(self) -> dict:
        """Plain dict with every schema key."""
        return plain(self)

    def to_json(self) -> str:
        """One JSON line; NaN and infinities are refused, never written."""
        return dumps(self.to_dict())


@dataclass
class CheckRecord(_Record):
    """What `gpu-anneal check` found in one Sudoku puzzle or full grid."""

    index: int = described(
        "0-based position of the puzzle among those read (over all files; a faulty puzzle, "
        "reported on its own, takes none: source and line name it)"
    )
    source: str = described("File the puzzle came from ('<stdin>' for standard input)")
    line: int | None = described("1-based line where the puzzle starts in its source")
    name: str = described("The puzzle's name (tsv name field or a comment), or ''")
    kind: Literal["grid", "puzzle"] = described(
        "grid: every cell filled (verified); puzzle: blanks left (its solutions counted)"
    )
    ok: bool = described(
        "True only when every check and claim holds: a grid is valid; a puzzle has exactly one "
        "solution (or the count its line claims) and a claimed solution verifies"
    )
    valid: bool | None = described("Grid: whether it keeps every rule; null for a puzzle", None)
    solutions: SolutionCount | None = described(
        "Puzzle: its solutions counted up to two (0, 1 or '2+'); null for a grid, or for a "
        "count that spent its branch values (--max-nodes) unsettled",
        None,
    )
    expected: SolutionCount | None = described(
        "The solution count the line claims (tdoku's count field; 2 or more as '2+'), else null",
        None,
    )
    solution_ok: bool | None = described(
        "Whether the solution the line claims (tdoku's solution field) solves these givens; "
        "null when none is claimed",
        None,
    )
    error: str | None = described("The first fault found, else null", None)


@dataclass
class GridRecord(_Record):
    """One full Sudoku grid from `gpu-anneal generate`."""

    index: int = described("0-based grid index (with --from: puzzle i // count's completions)")
    grid: str = described(
        "The grid: one line of digits (1-9, then A-Z), or from 36x36 up a tsv line "
        "name<TAB>n<TAB>comma-separated numbers"
    )
    method: Literal["anneal", "permute", "backtrack", "impasse"] = described(
        "How the grid was made"
    )
    seed: int = described("Seed of the run (default 0): the same seed gives the same grids")


@dataclass
class MinimalPuzzleRecord(_Record):
    """One minimal unique Sudoku puzzle from `gpu-anneal minimize` or `generate --puzzles`."""

    index: int = described(
        "0-based index of the full grid the puzzle was emptied from; minimize FILE: among the "
        "file's good grids in input order (a bad grid, reported on stderr, is not counted)"
    )
    seed: int = described("Seed of the run (default 0): the same seed gives the same puzzles")
    puzzle: str = described(
        "The puzzle as one line ('.' for a blank; 36x36: a tsv line puzzleI<TAB>6<TAB>numbers)"
    )
    solution: str = described(
        "Its only solution, the grid it was emptied from (36x36: tsv, named solutionI)"
    )
    givens: int = described("Filled cells of the puzzle (minimal: none can be removed)")
    sa_givens: int = described("Givens of the best puzzle the annealing reached, before the "
                               "greedy pass")  # fmt: skip
    checks: int = described("Uniqueness checks (exact-solver calls), over all tries")
    degradations: int = described(
        "Blank cells the annealing refilled (a given put back), over all tries"
    )
    seconds: float = described("The batch's wall seconds divided by its grids (all cores)")


@dataclass
class GameIdRecord(_Record):
    """One Shikaku or Hashiwokakero puzzle from `gpu-anneal generate --kind shikaku|hashi`."""

    index: int = described("0-based index of the puzzle in the run")
    kind: str = described("Puzzle kind", enum="game_id_kinds")
    size: str = described("WIDTHxHEIGHT in cells")
    puzzle: str = described("The puzzle as Simon Tatham's game ID")
    seed: int = described("Seed of the run (default 0): the same seed gives the same puzzles")
    unique: bool = described("True when generated with --unique: each has one solution")


# schema file stem -> (record type, title, the command lines that write it)
RECORDS: dict[str, tuple[type, str, tuple[str, ...]]] = {
    "check": (CheckRecord, "gpu-anneal check record", ("gpu-anneal check --output jsonl",)),
    "grid": (GridRecord, "gpu-anneal grid record", ("gpu-anneal generate --output jsonl",)),
    "minimal_puzzle": (
        MinimalPuzzleRecord,
        "gpu-anneal minimal puzzle record",
        ("gpu-anneal minimize --output jsonl", "gpu-anneal generate --puzzles --output jsonl"),
    ),
    "game_id": (
        GameIdRecord,
        "gpu-anneal game ID record",
        ("gpu-anneal generate --kind shikaku|hashi --output jsonl",),
    ),
}
