"""Sudoku's --method auto: annealing or the impasse chains, per order and backend.

Glossary:
    order      box side n of an n^2 x n^2 grid
    pinned     auto was given an option only annealing takes (a schedule, a move, a technique,
               a start temperature, batches, a pool, Dask): it anneals
    on_card    the run's puzzles go to a CUDA device (--backend cuda, or auto with one usable)

The rule, from the committed measurements:
    - on the cores, orders 5 to 8 (25x25 to 64x64): --method impasse. It solved every 25x25
      and 36x36 grid at 20-55 % filled and the 49x49 and 64x64 grids of the frontier sooner
      than annealing or where annealing did not (benchmarks/results/frontier/: the
      frontier_impasse_* files, frontier_auto_low_fill.md). At 25x25, at 36x36 from
      52.5 % filled and at 49x49 from 57.5 %, the exact search runs first, up to
      impasse_solver.EXACT_FIRST_NODES' branch values: it solved most of Lloyd & Amos' 25x25
      instances and most such grids sooner than the chains (frontier/lloyd_amos_25x25*.md,
      frontier/frontier_auto_high_fill_*.md);
    - on a card: annealing (on an H200, 36x36 at 50 % by annealing on the card solved more
      than --method impasse on the card: benchmarks/results/gpu/card_lent_h200_c83e05b.md);
    - orders 2 to 4 (4x4 to 16x16), on either: annealing, the measured technique of the presets.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator

AUTO = "auto"
IMPASSE_ORDERS = range(5, 9)  # on the cores: --method impasse at these orders
# parameters only annealing takes, besides those the kind's applies tables already tell apart
# (t0 is taken by both, as a start temperature or as a held one: given, auto anneals)
PINS_ANNEALING = ("t0",)


def pinned(spec, given: dict) -> str | None:
    """The first option given (name: value not None) that only annealing takes under --method
    auto, or None."""
    only = [p for p in given if spec.takes(p, "anneal") and not spec.takes(p, "impasse")]
    for parameter in (*only, *PINS_ANNEALING):
        if given.get(parameter) is not None:
            return parameter
    return None


def on_card(backend: str) -> bool:
    """Whether a run on `backend` puts its puzzles on a CUDA device."""
    if backend == "cuda":
        return True
    if backend != "auto":
        return False
    from gpu_anneal.backends import cuda_status

    return cuda_status()[0]


def method_for(order: int, card: bool) -> str:
    """The method --method auto runs a puzzle of this order with: impasse on the cores at
    IMPASSE_ORDERS, else anneal."""
    return "impasse" if order in IMPASSE_ORDERS and not card else "anneal"


def why(order: int, card: bool) -> str:
    """One line: the method auto takes at this order and why."""
    method = method_for(order, card)
    side = order * order
    if method == "impasse":
        return f"method auto: impasse at {side}x{side} on the cores"
    where = "on a card" if card else f"at {side}x{side}"
    return f"method auto: anneal {where}"


def settings_for(settings, method: str):
    """The run's settings with `method` in place of auto (the impasse chains take no schedule,
    move or deduction switch, and get the exact search first where impasse_solver's
    EXACT_FIRST_NODES says)."""
    if method == "impasse":
        return dataclasses.replace(settings, method=method, schedule=None, move=None,
                                   propagate=False, exact_first=True)  # fmt: skip
    return dataclasses.replace(settings, method=method)


def split(items, card: bool) -> Iterator[tuple[str, Iterator]]:
    """(method, the items it runs) for each run of consecutive items auto sends to one method,
    in input order; each group must be consumed before the next is drawn."""
    return itertools.groupby(items, key=lambda i: method_for(i.order, card))
