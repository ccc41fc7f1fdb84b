"""One run's plan: every option settled once, after the backend is chosen, frozen.

A `RunPlan` is built by one function per kind of run: `sudoku_plan` (a Sudoku annealing run at
one order, from resolved Settings), `grid_plan` (a Shikaku or Hashi run), and `pool_plan` (the
pool's own entry points, `sudoku_solver.solve_stream` and `replay_chain`, for callers that skip
the API: benchmarks, Dask workers). The solvers below it read the plan's fields and check
nothing again.

Glossary:
    plan       a RunPlan: kind, method, backend ("cpu" or "cuda"), the move and its rules code,
               the parsed schedule, chains a puzzle and slots, seed, limits, generator
    cpp        chains per puzzle
    slots      puzzles annealed at once (Sudoku's --batch)
    choice     gpu_anneal.backend_choice.Choice: the backend taken and why
    settings   the resolved options of one API call (gpu_anneal.settings.Settings)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from cpu_reference.errors import InputError
from cpu_reference.sudoku import rules
from cpu_reference.sudoku.presets import expand
from cpu_reference.sudoku.schedules import Schedule, by_name, with_start
from gpu_anneal import validate
from gpu_anneal.backends import cpu_threads, resolve_backend

BACKENDS = ("cpu", "cuda")  # a plan's backend: "auto" is chosen before a plan is made
GRID_CHAINS = {"cpu": 16, "cuda": 4096}  # Shikaku and Hashi: chains a puzzle when none is asked
DASK_CHUNK = 8  # Sudoku on Dask: puzzles a task when --batch is not given
POOLS = ("persistent", "slices")  # Sudoku annealing's pools on CUDA (persistent_pool)


@dataclass(frozen=True)
class RunPlan:
    """The settled options of one run (a Sudoku order, or one grid kind's puzzles)."""

    kind: str
    method: str
    backend: str  # "cpu" or "cuda"
    choice: str  # why this backend (Params.backend_choice)
    seed: int
    time_limit: float | None  # seconds a puzzle; None: no limit
    max_trials: int | None  # over a puzzle's chains; None: no cap
    chains: int | None  # chains a puzzle; None: the CUDA pool's plan fills a wave
    slots: int | None = None  # Sudoku: puzzles at once; None: the backend's (1, or the plan's)
    order: int | None = None  # Sudoku's order
    move: str | None = None  # the move that runs (a preset resolved at the order)
    move_code: int | None = None  # its rules code (cpu_reference.sudoku.rules.MOVE_NAMES)
    schedule: Any = None  # parsed: a Schedule (Sudoku) or the grid kinds' schedule keys (dict)
    schedule_text: str | None = None  # Sudoku: the schedule string the record names
    propagate: bool = False
    spare_chains: bool | None = None  # Sudoku: None: on for CUDA, off on the CPU
    generator: str | None = None  # the RNG that draws the moves
    options: tuple = ()  # grid kinds: the kind's solver options, (key, value) pairs
    pool: str | None = None  # Sudoku on CUDA: "persistent" | "slices" (None: the default rule)

    def __post_init__(self):
        if self.backend not in BACKENDS:
            raise ValueError(f"a plan runs on cpu or cuda, not {self.backend!r}")


def default_chains(backend: str, puzzles: int) -> int:
    """Chains per puzzle when none is asked, for a pool of `puzzles` slots: fill the CPU cores,
    or on CUDA the plan's share of a full wave (gpu_anneal.plan; 9x9, the current device)."""
    if backend == "cuda":
        from gpu_anneal import plan

        shape = plan.launch_plan(3, "sirdey", batch=max(1, puzzles), host_seconds=0.0)
        return shape["chains_per_puzzle"]
    return cpu_chains(cpu_threads(), puzzles)


def cpu_chains(threads: int, slots: int) -> int:
    """Chains a puzzle when none is asked on the CPU: enough for `slots` puzzles at once to
    fill `threads` threads (the run's default, and the cost model's for the machine it
    prices)."""
    return max(1, math.ceil(threads / max(1, slots)))


def number_text(x: float) -> str:
    """A number as a schedule string writes it: 3 for 3.0, repr's shortest form otherwise."""
    x = float(x)
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(x)


def schedule_text(name: str, order: int, t0: float | None = None) -> str:
    """The Sudoku schedule string that ran: a preset expanded for this order (presets.expand,
    "auto" -> its geometric string), with the t0 given set in it (one t0 key, later keys win as
    in cpu_reference.sudoku.schedules.by_name)."""
    base, _, tail = expand(name, order).partition(":")
    keys: dict[str, str] = {}
    for part in filter(None, (piece.strip() for piece in tail.split(","))):
        key, _, value = part.partition("=")
        keys[key.strip()] = value.strip()
    if t0 is not None:
        keys["t0"] = number_text(t0)
    return base.strip() + (":" + ",".join(f"{k}={v}" for k, v in keys.items()) if keys else "")


def sudoku_plan(s, order: int, backend: str, choice: str) -> RunPlan:
    """The plan of Sudoku annealing at one order from resolved settings `s`, on the backend
    chosen (`backend`, why: `choice`): the move preset resolved at the order, the schedule
    parsed there, the chains checked against the order's memory bound (resolve knew no order)
    and defaulted (on CUDA, unset chains and slots follow the pool's plan; on Dask, slots are
    the puzzles a task takes, DASK_CHUNK unless --batch says)."""
    slots = (s.batch or DASK_CHUNK) if s.on_dask else s.batch
    validate.chains(s.chains, order**4, slots or 1, s.naming("chains"))
    move = s.move_at(order)
    code = rules.MOVE_NAMES[move]
    cuda_plan = backend == "cuda" and not s.on_dask
    chains = s.chains
    if chains is None and not cuda_plan:
        chains = default_chains(backend, s.batch or 1)
    return RunPlan(
        kind="sudoku", method="anneal", backend=backend, choice=choice, seed=s.seed,
        time_limit=s.time_limit, max_trials=s.max_trials, chains=chains, slots=slots,
        order=order, move=move, move_code=code, schedule=with_start(s.schedule, order, s.t0),
        schedule_text=schedule_text(s.schedule, order, s.t0), propagate=s.propagate,
        spare_chains=False if s.fixed_chains else None,
        generator=rules.generator_name(order, code), pool=s.pool,
    )  # fmt: skip


def grid_plan(s, spec, backend: str, choice: str) -> RunPlan:
    """The plan of a Shikaku or Hashi run (spec: the kind's gpu_anneal.kinds object) from
    resolved settings `s` on the backend chosen: the schedule keys parsed, the chains defaulted
    (GRID_CHAINS), the kind's solver options."""
    from gpu_anneal.validate import grid_schedule

    anneal = s.method == "anneal"
    options: dict = {}
    if anneal:
        options["max_trials"] = s.max_trials  # over all chains (anneal deals them out)
        options.update(spec.anneal_options(s))
    return RunPlan(
        kind=spec.name, method=s.method, backend=backend, choice=choice, seed=s.seed,
        time_limit=s.time_limit, max_trials=s.max_trials,
        chains=grid_chains(backend, s.chains),
        schedule=grid_schedule(s.schedule, s.t0) if anneal else {},
        options=tuple(options.items()),
    )  # fmt: skip


def grid_chains(backend: str, chains: int | None) -> int:
    """Shikaku and Hashi: the chains asked, or the one default of the backend."""
    return GRID_CHAINS[backend] if chains is None else int(chains)


def pool_plan(
    order: int,
    *,
    backend: str,
    schedule: Schedule | str,
    chains: int | None,
    slots: int | None,
    seed: int,
    time_limit: float | None,
    max_trials: int | None,
    move: str,
    propagate: bool,
    spare_chains: bool | None,
    pool: str | None = None,
) -> RunPlan:
    """The plan of a pool run from the arguments of sudoku_solver.solve_stream or replay_chain,
    which callers that skip the API give: each checked here (InputError naming it), the
    backend resolved ("auto": CUDA when usable), the move preset resolved at the order, the
    schedule parsed, chains defaulted on the CPU (on CUDA the pool's launch plan fills them)."""
    used = resolve_backend(backend)
    move = rules.move_of(move, order)  # a move preset ("auto") names this order's move
    sched = by_name(schedule, order) if isinstance(schedule, str) else schedule
    if chains is not None and chains < 1:
        raise InputError(f"chains = {chains}: must be at least 1")
    if slots is not None and slots < 1:
        raise InputError(f"batch = {slots}: must be at least 1")
    if max_trials is not None and max_trials < 1:
        raise InputError(f"max trials = {max_trials}: must be at least 1")
    if move not in rules.MOVE_NAMES:
        raise InputError(f"move {move!r}: expected one of {', '.join(rules.MOVE_NAMES)}")
    if time_limit is not None and not time_limit > 0:
        raise InputError(f"time limit = {time_limit}: must be positive (None: no limit)")
    seed = validate.seed(seed)
    if pool is not None and pool not in POOLS:
        raise InputError(f"pool {pool!r}: expected one of {', '.join(POOLS)}")
    if chains is None and used == "cpu":  # on CUDA the pool's launch plan fills them
        chains = default_chains(used, slots or 1)
    code = rules.MOVE_NAMES[move]
    return RunPlan(
        kind="sudoku", method="anneal", backend=used, choice=f"{used}: asked", seed=seed,
        time_limit=time_limit, max_trials=max_trials, chains=chains, slots=slots, order=order,
        move=move, move_code=code, schedule=sched, propagate=propagate,
        spare_chains=spare_chains, generator=rules.generator_name(order, code), pool=pool,
    )  # fmt: skip


def card_plans(s) -> dict:
    """order -> the run plan of resolved settings `s` on the card at every order the CUDA
    kernels take (sudoku_plan), or the InputError that refused it (what `info` plans)."""
    from gpu_anneal.kernels.sudoku import CUDA_ORDERS  # late: numba.cuda, ~0.19 s

    plans: dict[int, RunPlan | InputError] = {}
    for order in CUDA_ORDERS:
        try:
            plans[order] = sudoku_plan(s, order, "cuda", "cuda: the card's plan")
        except InputError as exc:
            plans[order] = exc
    return plans
