"""Public API for the grid puzzles Shikaku ("shikaku", Tatham's `rect`) and Hashiwokakero
("hashi", Tatham's `bridges`): parse, solve (annealing on CPU or CUDA, or exact ILP),
generate, render.

Glossary:
    kind      "shikaku" or "hashi"
    method    "anneal" (default: the seed's annealer) or "ilp" (exact integer program)
    backend   "cpu", "cuda" or "auto" (cuda when a device is present, else cpu)
    options   shikaku anneal: candidates = "all" (seed) | "pruned" | "propagated";
              hashi anneal: energy = "seed" | "connected";
              hashi ilp: ilp_mode = "connected" (exact, lazy cuts) | "objective" (seed's);
              anneal schedule: t0, t_final, n_plateaus, plateau

Every reported solution is checked by the kind's verifier: `verified` is its verdict and
`solved` is true only when it passed.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import numpy as np

from cpu_reference.errors import InputError
from gpu_anneal import backends, validate
from gpu_anneal.kinds import KINDS as ALL_KINDS
from gpu_anneal.kinds.grid import GRID_METHODS, GridKind, check
from gpu_anneal.run_plan import grid_chains

KINDS = tuple(name for name, spec in ALL_KINDS.items() if isinstance(spec, GridKind))
METHODS = GRID_METHODS
BACKENDS = backends.BACKENDS

__all__ = [
    "cuda_available",
    "game_id",
    "generate_grid_puzzles",
    "iter_grid_puzzles",
    "parse_grid_puzzle",
    "render_grid_puzzle",
    "solve_grid_puzzle",
]


def cuda_available() -> bool:
    """Whether a CUDA device is usable here (gpu_anneal.backends.cuda_status)."""
    return backends.cuda_status()[0]


def grid_kind(kind: str) -> GridKind:
    """The registry's object of a grid puzzle kind; InputError naming the grid kinds otherwise."""
    check("kind", kind, KINDS)
    return ALL_KINDS[kind]


def parse_grid_puzzle(kind: str, text: str, where: str = "input"):
    """Parse a game ID or a plain text grid into a Shikaku or Hashi object."""
    return grid_kind(kind).parse(text, where)


def game_id(kind: str, puzzle) -> str:
    """The Tatham game ID of a parsed puzzle."""
    return grid_kind(kind).game_id(puzzle)


def solve_grid_puzzle(
    kind: str,
    puzzle,
    method: str = "anneal",
    backend: str = "auto",
    chains: int | None = None,
    seed: int = 0,
    time_limit: float = 10.0,
    **options,
) -> dict:
    """Solve one puzzle (text or parsed). Returns a dict with kind, game_id, solved, verified,
    method, backend, energy (anneal) or status (ilp), seconds, verify_seconds (the verifier's),
    solution (JSON: the answer's solution_rows under the kind's key), text, move,
    and method details (anneal: trials, chains, schedule, first_round: the seconds of one trial of
    every chain, reason when no answer can exist)."""
    spec = grid_kind(kind)
    check("method", method, GRID_METHODS)
    chains = validate.chains(chains, option="chains")
    seed = validate.seed(seed, "seed") or 0  # None: the default
    time_limit = validate.seconds("time_limit", time_limit)
    used = "cpu" if method == "ilp" else backends.resolve_backend(backend)
    return spec.solve_one(
        puzzle, method, used, grid_chains(used, chains), seed, time_limit, **options
    )


def generate_grid_puzzles(
    kind: str, width: int, height: int, count: int, seed: int = 0, unique: bool = False, **params
) -> list[str]:
    """`count` game IDs from a seeded generator; with `unique`, only one-solution instances.

    shikaku params: depth, merge_iters, merge_prob, max_area; hashi params: n, maxb, edge_prob.
    """
    return list(iter_grid_puzzles(kind, width, height, count, seed, unique, **params))


# the most cells of a picture: the generators' largest grid is 100x100, and drawing takes
# seconds a few thousand cells
MAX_DRAWN_CELLS = 10_000


def generator_params(spec: GridKind, params: dict) -> dict:
    """The generator's settings checked against the kind's generator_ranges: OptionError
    naming an unknown one (and the ones the kind takes) or a value out of its range."""
    allowed = spec.generator_ranges
    checked = {}
    for name, value in params.items():
        if name not in allowed:
            raise InputError(f"{name}: not a setting of the {spec.name} generator; it takes "
                             f"{', '.join(allowed)}")  # fmt: skip
        whole, least, most, none_is_default = allowed[name]
        if value is None and none_is_default:
            checked[name] = None
        elif whole:
            checked[name] = validate.integer(name, value, least, most)
        else:
            checked[name] = validate.number(name, value, least, most)
    return checked


UNIQUE_CHECK_SECONDS = 60.0  # the longest a uniqueness check of a generated puzzle runs


def iter_grid_puzzles(
    kind: str, width: int, height: int, count: int, seed: int = 0, unique: bool = False,
    time_limit: float | None = None, **params,
) -> Iterator[str]:  # fmt: skip
    """generate_grid_puzzles' game IDs one at a time, each as soon as it is made. OptionError
    for a count outside 1..validate.MAX_COUNT, a seed outside 0..2**64 - 1, or a size the
    kind's generator does not make (its cap named), before the first. With `time_limit`
    (seconds for all of them, each uniqueness check given what is left, at most
    UNIQUE_CHECK_SECONDS), InputError after the game IDs made when it runs out first."""
    spec = grid_kind(kind)
    count = validate.count(count, None, "count")
    seed = validate.seed(seed, "seed")
    width = validate.integer("width", width, 1)
    height = validate.integer("height", height, 1)
    unique = validate.flag("unique", unique)
    params = generator_params(spec, params)
    limit = None if time_limit is None else validate.seconds("time_limit", time_limit)
    deadline = None if limit is None else time.perf_counter() + limit
    rng = np.random.default_rng(seed)
    made = 0
    attempts = 0
    while made < count:
        attempts += 1
        if attempts > 200 * max(1, count):
            raise InputError(f"unique: found {made} of {count} unique instances, giving up")
        left = UNIQUE_CHECK_SECONDS if deadline is None else deadline - time.perf_counter()
        if left <= 0:
            raise InputError(f"made {made} of {count} game IDs before the time limit of "
                             f"{limit:g} s ran out")  # fmt: skip
        p, _ = spec.generate(height, width, rng, **params)
        if unique and spec.is_unique(p, min(left, UNIQUE_CHECK_SECONDS)) is not True:
            continue
        made += 1
        yield spec.game_id(p)


def too_large_to_draw(p) -> str | None:
    """What keeps a parsed Shikaku or Hashi puzzle of more than MAX_DRAWN_CELLS cells from a
    picture, or None."""
    h, w = p.height, p.width
    if h * w <= MAX_DRAWN_CELLS:
        return None
    return f"a {w}x{h} grid ({w * h:,} cells) is past the {MAX_DRAWN_CELLS:,} cells render draws"


def render_grid_puzzle(kind: str, puzzle, path, solution=None) -> None:
    """Write a PNG or SVG of the puzzle, with the solution when given (rectangles or bridges,
    as in the solution JSON, or the dict `solution` of solve_grid_puzzle's result)."""
    spec = grid_kind(kind)
    p = spec.parsed(puzzle)
    fault = too_large_to_draw(p)
    if fault is not None:
        raise InputError(fault)
    validate.output_path(path, "path")
    if isinstance(solution, dict):
        solution = solution.get("rectangles", solution.get("bridges"))
    if solution is not None:
        spec.check_drawn(p, solution)
    spec.render(p, path, solution)
