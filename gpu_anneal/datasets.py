"""Sample puzzle sets shipped in the package (gpu_anneal/data), for first runs and examples.

    name              kind     puzzles  what
    top95             sudoku   95       Norvig's top95 hard 9x9 puzzles
    seed002           sudoku   3        the seed project's easy, very hard and 17-given 9x9
    lloyd-amos-9x9    sudoku   9        Lloyd & Amos' benchmark, 40-50 % of cells given (tsv)
    lloyd-amos-16x16  sudoku   3        Lloyd & Amos' benchmark, 16x16 at 50 % given (tsv)
    made-25x25        sudoku   2        25x25 at 60 % given, one solution each (tsv)
    made-36x36        sudoku   2        36x36 at 60 % given, one solution each (tsv)
    made-49x49        sudoku   2        49x49 at 60 % given, one solution each (tsv)
    made-64x64        sudoku   1        64x64 at 70 % given, one solution (tsv)
    shikaku           shikaku  5        unique 15x15 puzzles as Tatham `rect` game IDs
    hashi             hashi    5        unique 15x15 puzzles as Tatham `bridges` game IDs

`gpu-anneal solve --example NAME` solves one; `gpu-anneal examples NAME` prints its file. The
made-* sets are written by `python -m benchmarks.make_examples`.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from cpu_reference.errors import InputError


@dataclass(frozen=True)
class Dataset:
    """One shipped sample set."""

    name: str
    kind: str
    file: str
    count: int
    description: str


DATASETS = {
    d.name: d
    for d in (
        Dataset("top95", "sudoku", "top95.txt", 95, "Norvig's top95 hard 9x9 puzzles"),
        Dataset("seed002", "sudoku", "seed002.txt", 3, "easy, very hard and 17-given 9x9"),
        Dataset(
            "lloyd-amos-9x9",
            "sudoku",
            "lloyd_amos_9x9.tsv",
            9,
            "Lloyd & Amos' benchmark, 9x9 at 40-50 % of cells given",
        ),
        Dataset(
            "lloyd-amos-16x16",
            "sudoku",
            "lloyd_amos_16x16.tsv",
            3,
            "Lloyd & Amos' benchmark, 16x16 at 50 % of cells given",
        ),
        Dataset(
            "made-25x25",
            "sudoku",
            "made_25x25.tsv",
            2,
            "25x25 at 60 % of cells given, one solution each",
        ),
        Dataset(
            "made-36x36",
            "sudoku",
            "made_36x36.tsv",
            2,
            "36x36 at 60 % of cells given, one solution each",
        ),
        Dataset(
            "made-49x49",
            "sudoku",
            "made_49x49.tsv",
            2,
            "49x49 at 60 % of cells given, one solution each",
        ),
        Dataset(
            "made-64x64",
            "sudoku",
            "made_64x64.tsv",
            1,
            "64x64 at 70 % of cells given, one solution",
        ),
        Dataset(
            "shikaku",
            "shikaku",
            "shikaku_15x15.txt",
            5,
            "unique 15x15 Shikaku, Tatham `rect` game IDs",
        ),
        Dataset(
            "hashi",
            "hashi",
            "hashi_15x15.txt",
            5,
            "unique 15x15 Hashiwokakero, Tatham `bridges` game IDs",
        ),
    )  # fmt: skip
}


def names() -> list[str]:
    """The names of the shipped sets."""
    return list(DATASETS)


def get(name: str) -> Dataset:
    """The set called `name`; InputError naming the choices otherwise."""
    if name not in DATASETS:
        raise InputError(f"--example {name!r}: expected one of {', '.join(DATASETS)}")
    return DATASETS[name]


def path(name: str) -> Path:
    """The file of set `name` inside the installed package."""
    return Path(str(resources.files("gpu_anneal") / "data" / get(name).file))


def text(name: str) -> str:
    """The contents of set `name` (comment lines start with '#')."""
    return path(name).read_text(encoding="utf-8")
