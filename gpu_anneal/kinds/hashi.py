"""Hashiwokakero (Tatham's `bridges`) as a puzzle kind: join the islands by bridges, each
island's count of them its number, none crossing, all connected.

Glossary:
    p          a parsed puzzle (cpu_reference.hashi.puzzle.Hashi): width, height, islands
               (row, col, number), maxb (most bridges between two islands), allow_loops
    bridges    a state: one (r1, c1, r2, c2, count) per pair of joined islands
    energy     the annealer's cost: seed (the seed's) or connected (with a connectivity term)
"""

from __future__ import annotations

import numpy as np

from cpu_reference import render
from cpu_reference.hashi import generate, rules
from cpu_reference.hashi import puzzle as model
from gpu_anneal.kinds.base import ANNEAL, int_rows
from gpu_anneal.kinds.grid import GridKind, check, no_options


class Hashi(GridKind):
    """Hashiwokakero: annealing over bridge counts, or an ILP with lazy connectivity cuts."""

    name = "hashi"
    title = "Hashiwokakero"
    model = model
    ilp_module = "cpu_reference.hashi.ilp"
    rules = rules
    trial = staticmethod(rules.hashi_trial)  # a jitted function: no method of the kind
    trial_scalars = ("maxb", "tree", "wc", "square", "we", "wg")
    ptx_example = "2.2\n...\n2.2"
    cores_up_to = 18 * 18  # 18x18 (0.014 s a puzzle; 26x26: 0.18 s), 2 cores, 16 chains
    applies = {"anneal": ANNEAL | {"time_limit"}, "ilp": frozenset({"time_limit"})}
    parsed_types = (model.Hashi,)
    solution_key = "bridges"
    warm_up_id = "3x1:1a1"

    def solution_rows(self, item, state) -> list:
        """One [r1, c1, r2, c2, count] per bridge."""
        return [[int(x) for x in b] for b in state]

    def cost(self, item, state) -> int | None:
        """Island numbers missed, crossings, extra components and (where loops are not allowed)
        loops. A crossing is counted each time a bridge passes a water cell that a bridge of
        the other direction passed before it; a row whose ends are not both islands (or lie
        outside the grid) adds nothing but its count to the loops."""
        if state is None:
            return None
        p = item.puzzle
        isl = p.islands.astype(np.int64)
        index = model.island_index(p)
        rows = model.bridge_rows(state)
        a, b = model.end_islands(p, index, rows)
        ends = (a >= 0) & (b >= 0)
        degree = np.bincount(a[ends], rows[ends, 4], len(isl))
        degree += np.bincount(b[ends], rows[ends, 4], len(isl))
        ordered = model.ordered_ends(rows)
        aligned = ends & ((ordered[:, 0] == ordered[:, 2]) != (ordered[:, 1] == ordered[:, 3]))
        owner, cells = model.bridge_cells(p.width, ordered[aligned])
        water = index[cells] < 0
        owner, cells = owner[water], cells[water]
        flag = np.where(ordered[aligned, 0] == ordered[aligned, 2], 1, 2)[owner]
        by_cell = np.lexsort((owner, cells))
        cells, flag = cells[by_cell], flag[by_cell]
        group = np.flatnonzero(np.r_[True, cells[1:] != cells[:-1]])
        first = np.repeat(group, np.diff(np.r_[group, len(cells)]))
        before = np.zeros(len(cells), np.int64)
        for value in (1, 2):  # bridges of each direction through the cell before this one
            seen = np.cumsum(flag == value) - (flag == value)
            seen_at_group = seen[first]
            before |= np.where(seen - seen_at_group > 0, value, 0)
        crossings = int(np.count_nonzero((before != 0) & (before != flag)))
        groups = model.components(len(isl), np.column_stack([a[ends], b[ends]]))
        loops = len(rows) - len(isl) + groups if not p.allow_loops else 0
        return int(np.abs(degree - isl[:, 2]).sum() + crossings + groups - 1 + loops)

    def state_from_rows(self, item, rows) -> list:
        """Rows of 5 whole numbers inside the grid, any count."""
        p = item.puzzle
        return int_rows(rows, (-1, 5), 0, max(p.height, p.width)).tolist()

    def ilp(self, p, time_limit, options, out):
        """The ILP with lazy connectivity cuts, or the seed's objective (option ilp_mode)."""
        from cpu_reference.hashi.ilp import solve_ilp  # scipy's milp: loaded when used

        no_options(options, ("ilp_mode",))
        mode = options.get("ilp_mode", "connected")
        check("ilp_mode", mode, ("connected", "objective"))
        res = solve_ilp(p, time_limit=time_limit, mode=mode)
        out["connected"] = res["connected"]
        out["rounds"] = res["rounds"]
        out["cuts"] = res["cuts"]
        out["ilp_mode"] = mode
        return res, res["bridges"]

    def anneal(self, p, chains, seed, time_limit, runner, sched, options, out):
        """cpu_reference.hashi.rules.anneal with the energy asked (option energy)."""
        no_options(options, ("energy",))
        energy = options.get("energy", "seed")
        res = rules.anneal(p, chains=chains, seed=seed, time_limit=time_limit, energy=energy,
                     runner=runner, **sched)  # fmt: skip
        solution = (model.bridges_from_mult(p, res["graph"], res["mult"])
                    if res.get("graph") is not None else None)  # fmt: skip
        out["energy_kind"] = energy
        return res, solution

    def solution_dict(self, solution) -> dict | None:
        """{"bridges": [[r1, c1, r2, c2, count], ...]} (None without an answer)."""
        return {"bridges": solution} if solution is not None else None

    def move_text(self, p, solution) -> str:
        """Tatham's solve move."""
        return model.solve_move(solution)

    def generate(self, height, width, rng, **params):
        """cpu_reference.hashi.generate (params: n, maxb, edge_prob)."""
        return generate.generate(height, width, rng, **params)

    def is_unique(self, p, time_limit: float = 60.0) -> bool | None:
        """The ILP's uniqueness check within `time_limit` seconds (None: not settled)."""
        from cpu_reference.hashi.ilp import is_unique  # scipy's milp: loaded when used

        return is_unique(p, time_limit)

    drawn_fields = ("r1", "c1", "r2", "c2", "count")
    generator_ranges = {"n": (True, 2, None, True), "maxb": (True, 1, 4, False),
                        "edge_prob": (False, 0.0, 1.0, False)}  # fmt: skip

    def drawn_fault(self, p, row: tuple[int, ...]) -> str | None:
        """A bridge with an end outside the grid, or a count outside 1..maxb."""
        r1, c1, r2, c2, count = row
        if not (
            all(0 <= r < p.height for r in (r1, r2)) and all(0 <= c < p.width for c in (c1, c2))
        ):
            return f"outside the {p.width}x{p.height} grid"
        if not 1 <= count <= p.maxb:
            return f"{count} bridges, not 1..{p.maxb}"
        return None

    def render(self, p, path, solution=None) -> None:
        """cpu_reference.render.render_hashi."""
        render.render_hashi(p, path, solution)


KIND = Hashi()
