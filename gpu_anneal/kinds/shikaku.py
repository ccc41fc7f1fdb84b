"""Shikaku (Tatham's `rect`) as a puzzle kind: cover the grid with rectangles, one clue each,
its area the clue.

Glossary:
    p          a parsed puzzle (cpu_reference.shikaku.puzzle.Shikaku): width, height, clues
    rects      a state: one (top, left, height, width) per clue, in clue order
    candidates the rectangles a clue may take: all, pruned (no other clue inside) or propagated
               (pruned, then forced placements spread); the kind's --move
"""

from __future__ import annotations

import numpy as np

from cpu_reference import render
from cpu_reference.shikaku import generate, rules
from cpu_reference.shikaku import puzzle as model
from gpu_anneal.kinds.base import ANNEAL, int_rows
from gpu_anneal.kinds.grid import GridKind, no_options


class Shikaku(GridKind):
    """Shikaku: annealing over each clue's candidate rectangles, or an exact cover ILP."""

    name = "shikaku"
    title = "Shikaku"
    model = model
    ilp_module = "cpu_reference.shikaku.ilp"
    rules = rules
    trial = staticmethod(rules.shikaku_trial)  # a jitted function: no method of the kind
    trial_scalars = ("width",)
    ptx_example = "3...2\n..9..\n....6\n....."
    cores_up_to = 25 * 25  # 25x25 (0.021 s a puzzle; 50x50: 10 s), 2 cores, 16 chains
    moves = rules.CANDIDATE_SETS
    default_move = "all"
    moves_help = ", ".join(rules.CANDIDATE_SETS)
    applies = {"anneal": ANNEAL | {"move", "time_limit"}, "ilp": frozenset({"time_limit"})}
    parsed_types = (model.Shikaku,)
    solution_key = "rectangles"
    warm_up_id = "2x1:2a"

    def solution_rows(self, item, state) -> list:
        """One [top, left, height, width] per clue."""
        return model.solution_json(state)

    def cost(self, item, state) -> int | None:
        """Cells covered more than once or not at all: sum of cover^2 minus the cells."""
        if state is None:
            return None
        p = item.puzzle
        rects = np.asarray(state, np.int64).reshape(-1, 4)
        top, left = np.minimum(rects[:, 0], p.height), np.minimum(rects[:, 1], p.width)
        bottom = np.minimum(top + rects[:, 2], p.height)  # cut at the grid's edge
        right = np.minimum(left + rects[:, 3], p.width)
        # each rectangle's corners in a table of differences; its sums down and across
        # are the cover
        corners = np.zeros((p.height + 1, p.width + 1), np.int64)
        for rows, cols, sign in ((top, left, 1), (top, right, -1), (bottom, left, -1),
                                 (bottom, right, 1)):  # fmt: skip
            np.add.at(corners, (rows, cols), sign)
        cover = corners.cumsum(axis=0).cumsum(axis=1)[: p.height, : p.width]
        return int((cover * cover).sum() - p.height * p.width)

    def state_from_rows(self, item, rows) -> np.ndarray:
        """One row of 4 whole numbers inside the grid per clue."""
        p = item.puzzle
        return int_rows(rows, (p.n_clues, 4), 0, max(p.height, p.width))

    def anneal_options(self, settings) -> dict:
        """The candidate set (the move; all by default)."""
        return {"candidates": self.ran_move(settings)}

    def ran_move(self, settings) -> str | None:
        """The candidate set that ran."""
        return settings.move or self.default_move

    def ilp(self, p, time_limit, options, out):
        """The exact cover ILP (cpu_reference.shikaku.ilp)."""
        from cpu_reference.shikaku.ilp import solve_ilp  # scipy's milp: loaded when used

        no_options(options, ("pruned",))
        res = solve_ilp(p, time_limit=time_limit, pruned=options.get("pruned", True))
        return res, res["rects"]

    def anneal(self, p, chains, seed, time_limit, runner, sched, options, out):
        """cpu_reference.shikaku.rules.anneal over the candidate set."""
        no_options(options, ("candidates",))
        candidates = options.get("candidates", "all")
        res = rules.anneal(p, chains=chains, seed=seed, time_limit=time_limit,
                     candidate_set=candidates, runner=runner, **sched)  # fmt: skip
        out["candidates"] = candidates
        return res, res["rects"]

    def solution_dict(self, solution) -> dict | None:
        """{"rectangles": [[top, left, height, width], ...]} (None without an answer)."""
        return {"rectangles": model.solution_json(solution)} if solution is not None else None

    def move_text(self, p, solution) -> str:
        """Tatham's solve move."""
        return model.solve_move(p, solution)

    def generate(self, height, width, rng, **params):
        """cpu_reference.shikaku.generate (params: depth, merge_iters, merge_prob, max_area)."""
        return generate.generate(height, width, rng, **params)

    def is_unique(self, p, time_limit: float = 60.0) -> bool | None:
        """The ILP's uniqueness check within `time_limit` seconds (None: not settled)."""
        from cpu_reference.shikaku.ilp import is_unique  # scipy's milp: loaded when used

        return is_unique(p, time_limit)

    drawn_fields = ("top", "left", "height", "width")
    generator_ranges = {"depth": (True, 0, 64, True), "merge_iters": (True, 0, 10**6, False),
                        "merge_prob": (False, 0.0, 1.0, False),
                        "max_area": (True, 1, None, True)}  # fmt: skip

    def drawn_fault(self, p, row: tuple[int, ...]) -> str | None:
        """A rectangle not wholly inside the grid."""
        top, left, height, width = row
        inside = top >= 0 and left >= 0 and height >= 1 and width >= 1
        if inside and top + height <= p.height and left + width <= p.width:
            return None
        return f"outside the {p.width}x{p.height} grid"

    def render(self, p, path, solution=None) -> None:
        """cpu_reference.render.render_shikaku."""
        render.render_shikaku(p, path, solution)


KIND = Shikaku()
