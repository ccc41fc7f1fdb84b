"""Lewis-style Sudoku instances of any order from a fixed seed, and Lloyd & Amos's instance files.

Glossary of index names (as in cpu_reference.sudoku.layout):
    n       order: box side (2 and up; 7 is 49x49, 8 is 64x64)
    N       side of the grid and number of digits, N = n * n
    cells   number of cells, N * N
    r, c    row and column, 0-based
    d       digit, 1..N; 0 means blank (here), -1 means blank (in a Lloyd & Amos file)
    f       fill: the percentage of cells kept as givens
    k       instance number within one (order, fill)

An instance is made the way Lewis made his (and Lloyd & Amos theirs): a random solved grid, then
ceil(f x N^2 / 100) of its cells kept at random and the rest blanked. Every instance has a
solution (the grid it was cut from), not always a unique one. The full grid of (seed, order, k) is
shared by every fill, as Lloyd & Amos cut every `_f_k` from the same `_100_k`; the kept cells are
drawn by a generator seeded with (seed, order, f, k), so an instance depends on nothing else (not
on how many instances or fills a run asks for).

Full grids: orders 2..6 (GENERATOR_ORDERS) come from the project's generator
(gpu_anneal.generation.generate_grids, method "backtrack": randomised backtracking); larger orders
from a pattern grid shuffled by the symmetries that keep a grid valid (pattern_grid). The rule is
fixed by the order, not by what the engine can do, so the instances of a seed stay the same when
the engine grows. `source="generator"` takes every order's full grids from that generator
(randomised backtracking finds a 64x64 grid in seconds), so instances of 49x49 and 64x64 are cut
from random grids as Lewis's are, not from one pattern's symmetric images.

Lloyd & Amos's instance file (their published `instances/general/inst{N}x{N}_{f}_{k}.txt`):

    n            the order, alone on the first line
    1            a `1`, alone on the second line
    N rows       each of N numbers, every one followed by a tab; -1 for a blank

Lines end with "\\n" (written) or "\\r\\n" (read too).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cpu_reference.sudoku.formats import iter_puzzles
from cpu_reference.sudoku.layout import MAX_ORDER, MIN_ORDER

GENERATOR_ORDERS = range(2, 7)  # full grids from the project's generator; pattern_grid above
FULL_GRID_SOURCES = ("by-order", "generator")  # full_grids' source: that rule, or the generator


@dataclass(frozen=True)
class Instance:
    """One puzzle: its Lloyd & Amos-style name, order, fill (percent), number k, cells (int64[
    cells], 0 blank) and the grid it was cut from (a solution)."""

    name: str
    order: int
    fill: int
    k: int
    cells: np.ndarray
    grid: np.ndarray
    grid_method: str

    @property
    def size(self) -> str:
        """'36x36' for order 6."""
        return f"{self.order**2}x{self.order**2}"

    def tsv_line(self) -> str:
        """`name<TAB>n<TAB>comma-separated cells` (the engine's tsv format, 0 blank)."""
        return f"{self.name}\t{self.order}\t{','.join(str(int(v)) for v in self.cells)}"


def instance_name(order: int, fill: int, k: int) -> str:
    """inst{N}x{N}_{f}_{k}, Lloyd & Amos's naming."""
    N = order * order
    return f"inst{N}x{N}_{fill}_{k}"


def kept_count(order: int, fill: int) -> int:
    """ceil(fill / 100 x N^2): the number of givens of an instance (exact integer arithmetic)."""
    cells = order**4
    return -(-fill * cells // 100)


def add_full_grids_argument(ap) -> None:
    """A benchmark's --full-grids option: the source full_grids cuts instances from."""
    ap.add_argument("--full-grids", default="by-order", choices=FULL_GRID_SOURCES,
                    help="the full grids instances are cut from (frontier_instances)")  # fmt: skip


def generated_up_to() -> str:
    """The largest size the by-order rule takes from the generator: '36x36'."""
    side = max(GENERATOR_ORDERS) ** 2
    return f"{side}x{side}"


def pattern_grid(order: int, rng: np.random.Generator) -> np.ndarray:
    """A random valid full grid (int64[N, N], digits 1..N) of any order, no solver needed.

    The pattern d(r, c) = (n * (r mod n) + r div n + c) mod N + 1 is a valid grid; permuting the
    rows within each band, the bands, the columns within each stack, the stacks, relabelling the
    digits and transposing at random each keep it valid."""
    n = int(order)
    N = n * n
    r = np.arange(N)[:, None]
    c = np.arange(N)[None, :]
    base = (n * (r % n) + r // n + c) % N

    def lines() -> np.ndarray:
        bands = rng.permutation(n)
        return np.concatenate([b * n + rng.permutation(n) for b in bands])

    grid = base[lines()][:, lines()]
    grid = rng.permutation(N)[grid] + 1
    return grid.T.copy() if rng.integers(2) else grid


def full_grids(
    order: int, count: int, seed: int, source: str = "by-order"
) -> tuple[np.ndarray, str]:
    """(int64[count, cells], method): full grids 0..count-1 of the order, by the module's rule
    (source "by-order") or all from the generator (source "generator"); grid k depends only on
    (seed, order, k) and the source."""
    if source not in FULL_GRID_SOURCES:
        raise ValueError(f"full grids {source!r}: expected one of {', '.join(FULL_GRID_SOURCES)}")
    if order in GENERATOR_ORDERS or source == "generator":
        from gpu_anneal.generation import generate_grids

        grids, stats = generate_grids(order, count, method="backtrack", seed=seed)
        if stats["failed"]:
            raise RuntimeError(f"generator failed grids {stats['failed']} of order {order}")
        return grids.astype(np.int64), "generate_grids backtrack"
    out = [
        pattern_grid(order, np.random.default_rng([seed, order, k])).ravel() for k in range(count)
    ]
    return np.array(out, dtype=np.int64), "pattern grid, random symmetries"


def cut(grid: np.ndarray, order: int, fill: int, rng: np.random.Generator) -> np.ndarray:
    """The grid with kept_count(order, fill) cells kept at random and the rest blanked (0)."""
    cells = np.asarray(grid, dtype=np.int64).ravel()
    keep = rng.choice(cells.size, size=kept_count(order, fill), replace=False)
    out = np.zeros_like(cells)
    out[keep] = cells[keep]
    return out


def make_instances(
    orders, fills, count: int, seed: int, source: str = "by-order"
) -> list[Instance]:
    """count instances per (order, fill), ordered by order, fill and k, cut from full_grids of
    the source."""
    out = []
    for order in orders:
        grids, method = full_grids(order, count, seed, source)
        for fill in fills:
            if not 0 <= fill <= 100:
                raise ValueError(f"fill {fill}: expected a percentage 0..100")
            for k in range(count):
                rng = np.random.default_rng([seed, order, fill, k])
                out.append(
                    Instance(
                        instance_name(order, fill, k),
                        order,
                        fill,
                        k,
                        cut(grids[k], order, fill, rng),
                        grids[k],
                        method,
                    )
                )
    return out


def lloyd_amos_text(order: int, cells) -> str:
    """An instance as Lloyd & Amos's file holds it: order, `1`, N rows of tab-ended numbers."""
    N = order * order
    values = np.asarray(cells, dtype=np.int64).reshape(N, N)
    rows = ["".join(f"{-1 if v == 0 else int(v)}\t" for v in row) for row in values]
    return "\n".join([str(order), "1", *rows]) + "\n"


def write_lloyd_amos(path: Path, order: int, cells) -> None:
    """Write lloyd_amos_text to path."""
    Path(path).write_text(lloyd_amos_text(order, cells), newline="")


def lloyd_amos_set(path: Path) -> Iterator[tuple[int, int, object]]:
    """(f, k, puzzle) of each puzzle of a Lloyd & Amos set file in file order: their published
    instances gathered one a line, `general_{N}x{N}.tsv` (names inst{N}x{N}_{f}_{k})."""
    for puzzle in iter_puzzles(path, fmt="tsv", name=str(path)):
        f, k = (int(x) for x in puzzle.name.split("_")[1:3])
        yield f, k, puzzle


def read_lloyd_amos(path: Path) -> tuple[int, np.ndarray]:
    """(order, int64[cells], 0 blank) of a Lloyd & Amos file; ValueError naming the fault."""
    text = Path(path).read_text()
    lines = [line.rstrip("\r") for line in text.split("\n")]
    while lines and not lines[-1].strip():
        lines.pop()
    if len(lines) < 2:
        raise ValueError(f"{path}: {len(lines)} lines, expected the order, `1` and the rows")
    try:
        order = int(lines[0])
    except ValueError:
        raise ValueError(f"{path} line 1: order {lines[0]!r} is not a number") from None
    if order < 1:
        raise ValueError(f"{path} line 1: order {order} is not positive")
    N = order * order
    rows = lines[2:]
    if len(rows) != N:
        raise ValueError(f"{path}: {len(rows)} rows, expected {N} for order {order}")
    values = []
    for i, row in enumerate(rows, start=3):
        fields = row.rstrip("\t").split("\t")
        if len(fields) != N:
            raise ValueError(f"{path} line {i}: {len(fields)} numbers, expected {N}")
        try:
            numbers = [int(x) for x in fields]
        except ValueError:
            raise ValueError(f"{path} line {i}: not a tab-separated row of numbers") from None
        bad = [x for x in numbers if x != -1 and not 1 <= x <= N]
        if bad:
            raise ValueError(f"{path} line {i}: value {bad[0]} outside 1..{N} (or -1 blank)")
        values += [0 if x == -1 else x for x in numbers]
    return order, np.array(values, dtype=np.int64)


def lewis_spec(spec: str) -> tuple[int, int, int, int]:
    """ORDER:FILL:COUNT:SEED as four integers; a one-line exit naming the spec otherwise."""
    try:
        order, fill, count, seed = (int(x) for x in spec.split(":"))
    except ValueError:
        raise SystemExit(
            f"--lewis {spec!r}: expected ORDER:FILL:COUNT:SEED, four integers"
        ) from None
    if not MIN_ORDER <= order <= MAX_ORDER or count < 1:
        raise SystemExit(
            f"--lewis {spec!r}: the order must be {MIN_ORDER}..{MAX_ORDER} and the count at least 1"
        )
    return order, fill, count, seed
