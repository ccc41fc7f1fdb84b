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

import numpy as np

from cpu_reference.errors import InputError
from cpu_reference.hashi import puzzle as hashi
from cpu_reference.shikaku import puzzle as shikaku

KINDS = ("shikaku", "hashi")
METHODS = ("anneal", "ilp")
BACKENDS = ("cpu", "cuda", "auto")


def _check(name, value, allowed):
    if value not in allowed:
        raise InputError(f"{name}: {value!r} is not one of {', '.join(allowed)}")


def parse_grid_puzzle(kind: str, text: str, where: str = "input"):
    """Parse a game ID or a plain text grid into a Shikaku or Hashi object."""
    _check("kind", kind, KINDS)
    return shikaku.parse(text, where) if kind == "shikaku" else hashi.parse(text, where)


def cuda_available() -> bool:
    """True when numba.cuda imports and sees a device."""
    try:
        from numba import cuda

        return bool(cuda.is_available())
    except Exception:
        return False


def _backend(backend: str) -> str:
    _check("backend", backend, BACKENDS)
    if backend == "auto":
        return "cuda" if cuda_available() else "cpu"
    if backend == "cuda" and not cuda_available():
        raise InputError("backend: cuda was asked for but no CUDA device is available")
    return backend


def _runner(kind: str, backend: str):
    """None (anneal's CPU runner) or a fresh CUDA runner that keeps this run's arrays on the
    device (gpu_anneal.grid_runners)."""
    if backend == "cpu":
        return None
    from gpu_anneal.grid_runners import cuda_trials  # imports numba.cuda: for CUDA runs only

    return cuda_trials(kind)


def game_id(kind: str, puzzle) -> str:
    """The Tatham game ID of a parsed puzzle."""
    return shikaku.to_game_id(puzzle) if kind == "shikaku" else hashi.to_game_id(puzzle)


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
    method, backend, energy (anneal) or status (ilp), seconds, solution (JSON), text, move,
    and method details (anneal: trials, chains, schedule, reason when no answer can exist)."""
    _check("kind", kind, KINDS)
    _check("method", method, METHODS)
    p = parse_grid_puzzle(kind, puzzle) if isinstance(puzzle, str) else puzzle
    t0 = time.perf_counter()
    out = {"kind": kind, "game_id": game_id(kind, p), "method": method}
    keys = ("t0", "t_final", "n_plateaus", "plateau", "max_trials")
    sched = {k: options.pop(k) for k in keys if k in options}
    if method == "ilp":
        out["backend"] = "cpu"
        if kind == "shikaku":
            from cpu_reference.shikaku.ilp import solve_ilp

            _no_options(options, ("pruned",))
            res = solve_ilp(p, time_limit=time_limit, pruned=options.get("pruned", True))
            solution = res["rects"]
        else:
            from cpu_reference.hashi.ilp import solve_ilp

            _no_options(options, ("ilp_mode",))
            mode = options.get("ilp_mode", "connected")
            _check("ilp_mode", mode, ("connected", "objective"))
            res = solve_ilp(p, time_limit=time_limit, mode=mode)
            solution = res["bridges"]
            out["connected"] = res["connected"]
            out["rounds"] = res["rounds"]
            out["cuts"] = res["cuts"]
            out["ilp_mode"] = mode
        out["status"] = res["status"]
        out["energy"] = None
    else:
        be = _backend(backend)
        out["backend"] = be
        runner = _runner(kind, be)
        if chains is None:
            chains = 4096 if be == "cuda" else 16
        if kind == "shikaku":
            from cpu_reference.shikaku.rules import anneal

            _no_options(options, ("candidates",))
            res = anneal(
                p,
                chains=chains,
                seed=seed,
                time_limit=time_limit,
                candidate_set=options.get("candidates", "all"),
                runner=runner,
                **sched,
            )
            solution = res["rects"]
            out["candidates"] = options.get("candidates", "all")
        else:
            from cpu_reference.hashi.rules import anneal

            _no_options(options, ("energy",))
            res = anneal(
                p,
                chains=chains,
                seed=seed,
                time_limit=time_limit,
                energy=options.get("energy", "seed"),
                runner=runner,
                **sched,
            )
            solution = (hashi.bridges_from_mult(p, res["graph"], res["mult"])
                        if res.get("graph") is not None else None)  # fmt: skip
            out["energy_kind"] = options.get("energy", "seed")
        out["energy"] = res["energy"]
        out["trials"] = res["trials"]
        out["chains"] = chains
        out["schedule"] = res["schedule"]  # t0, t_final, n_plateaus, plateau that ran
        out["reason"] = res.get("reason")  # why no answer exists, when anneal ruled it out
        out["status"] = "no_solution" if res.get("no_solution") else (
            "solved" if res["solved"] else "unsolved")  # fmt: skip
    verified = False
    reason = "no answer"
    if solution is not None:
        verified, reason = (shikaku.verify(p, solution) if kind == "shikaku"
                            else hashi.verify(p, solution))  # fmt: skip
    out["verified"] = bool(verified)
    out["verdict"] = reason
    out["solved"] = bool(verified)
    out["seconds"] = time.perf_counter() - t0
    if kind == "shikaku":
        out["solution"] = {"rectangles": shikaku.solution_json(solution)} if solution else None
        out["text"] = shikaku.solution_text(p, solution) if verified else None
        out["move"] = shikaku.solve_move(p, solution) if verified else None
    else:
        out["solution"] = {"bridges": solution} if solution is not None else None
        out["text"] = hashi.solution_text(p, solution) if verified else None
        out["move"] = hashi.solve_move(solution) if verified else None
    return out


def _no_options(options, allowed):
    for key in options:
        if key not in allowed:
            raise InputError(f"option: {key!r} is not known here (allowed: {', '.join(allowed)})")


def generate_grid_puzzles(
    kind: str, width: int, height: int, count: int, seed: int = 0, unique: bool = False, **params
) -> list[str]:
    """`count` game IDs from a seeded generator; with `unique`, only one-solution instances.

    shikaku params: depth, merge_iters, merge_prob, max_area; hashi params: n, maxb, edge_prob.
    """
    _check("kind", kind, KINDS)
    if count < 0:
        raise InputError(f"count: {count} is negative")
    rng = np.random.default_rng(seed)
    out: list[str] = []
    attempts = 0
    while len(out) < count:
        attempts += 1
        if attempts > 200 * max(1, count):
            raise InputError(f"unique: found {len(out)} of {count} unique instances, giving up")
        if kind == "shikaku":
            from cpu_reference.shikaku import generate as shikaku_generate
            from cpu_reference.shikaku import ilp as shikaku_ilp

            p, _ = shikaku_generate.generate(height, width, rng, **params)
            if unique and shikaku_ilp.is_unique(p) is not True:
                continue
        else:
            from cpu_reference.hashi import generate as hashi_generate
            from cpu_reference.hashi import ilp as hashi_ilp

            p, _ = hashi_generate.generate(height, width, rng, **params)
            if unique and hashi_ilp.is_unique(p) is not True:
                continue
        out.append(game_id(kind, p))
    return out


def render_grid_puzzle(kind: str, puzzle, path, solution=None) -> None:
    """Write a PNG or SVG of the puzzle, with the solution when given (rectangles or bridges,
    as in the solution JSON, or the dict `solution` of solve_grid_puzzle's result)."""
    from cpu_reference import render

    p = parse_grid_puzzle(kind, puzzle) if isinstance(puzzle, str) else puzzle
    if isinstance(solution, dict):
        solution = solution.get("rectangles", solution.get("bridges"))
    if kind == "shikaku":
        render.render_shikaku(p, path, solution)
    else:
        render.render_hashi(p, path, solution)
