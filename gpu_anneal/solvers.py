"""One solver per kind and method, each turning a stream of `Item`s into `Result`s.

Glossary:
    item       a puzzle read by gpu_anneal.inputs (kind, index, source, line, givens)
    settings   the resolved parameters of one API call (`Settings`)
    cpp        chains per puzzle
    warm-up    a run on no puzzle (or a tiny one) that compiles, or loads from numba's disk cache,
               the code a solver needs; its seconds are the first result's `timing.compile`
               (Sudoku annealing: the pool's own compile step, sudoku_solver.solve_stream's
               on_compiled, so that no second runner is built for it)

Every solver verifies each solution with the kind's independent verifier and times it; a
result is `solved` only when that verifier accepts it. `params` records the values that ran
(presets resolved for the puzzle's order, defaults filled in). A fault while writing one
puzzle's answer (a solution with no text in the input's format) is that puzzle's `error`
result; the next puzzles still run.
"""

from __future__ import annotations

import functools
import itertools
import math
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from cpu_reference.errors import InputError, LimitWarning, OptionError
from gpu_anneal import backend_choice, interrupts, phases, timeline
from gpu_anneal.backends import resolve_backend
from gpu_anneal.items import Item
from gpu_anneal.results import Counts, Params, Result, Timing, givens_hash
from gpu_anneal.run_plan import (  # noqa: F401 - schedule_text: the record's schedule string
    RunPlan,
    grid_plan,
    number_text,
    schedule_text,
    sudoku_plan,
)

if TYPE_CHECKING:  # the front's declaration of the settings: a type here, never imported
    from gpu_anneal.settings import Settings

# Branch nodes the exact method spends before it switches to randomised restarts.
EXACT_NODES = 2_000_000
NO_SOLUTION = "no solution"  # the error of a puzzle proved to have none (status no_solution)

_warm: set[tuple] = set()


def warm_up_seconds(key: tuple, warm) -> float:
    """Seconds of warm() the first time `key` is seen in this process, else 0."""
    if key in _warm:
        return 0.0
    start = time.perf_counter()
    with phases.compiling():
        warm()
    _warm.add(key)
    return time.perf_counter() - start


def timed_verify(item: Item, state) -> tuple[bool, str | None, float]:
    """(ok, fault, seconds) of the kind's verifier on a state of the item's puzzle."""
    start = time.perf_counter()
    if state is None:
        ok, fault = False, "no answer"
    else:
        fault = item.spec.verify(item, state)
        ok = fault is None
    return ok, fault, time.perf_counter() - start


def base_result(item: Item, method: str, backend: str) -> Result:
    """A Result carrying the item's identity, nothing solved yet."""
    return Result(method=method, backend=backend, **identity_fields(item))


def identity_fields(item: Item) -> dict:
    """A Result's fields naming the item: where it came from, its size, its givens as text
    (an InputError when its format cannot write them) and their hash."""
    size = item.size
    return dict(
        kind=item.kind, index=item.index, source=item.source, line=item.line, name=item.name,
        order=item.order, size=size, puzzle=item.givens_text,
        givens_hash=givens_hash(item.kind, size, item.spec.givens(item)),
    )  # fmt: skip


def guarded(item: Item, method: str, backend: str, build: Callable[[], Result]) -> Result:
    """build(), or when writing the answer fails (e.g. a 36x36 solution in the one-symbol `line`
    format), an `error` Result of the item naming the fault; the run goes on either way."""
    try:
        return build()
    except Exception as exc:  # noqa: BLE001 - one puzzle's output fault must not end the run
        fault = str(exc) if isinstance(exc, InputError) else f"{type(exc).__name__}: {exc}"
        try:
            result = base_result(item, method, backend)
        except Exception:  # noqa: BLE001 - the givens have no text in that format either
            result = Result(
                kind=item.kind, method=method, backend=backend, index=item.index,
                source=item.source, line=item.line, name=item.name, order=item.order,
                size=item.size, givens_hash=item.givens_hash,
            )  # fmt: skip
        result.status = "error"
        result.error = f"cannot write this puzzle's answer: {fault}"
        return result


def grid_schedule_text(schedule: dict) -> str:
    """The Shikaku / Hashi schedule that ran as 'geometric:t0=..,t_final=..,n_plateaus=..,
    plateau=..' (the string --schedule takes)."""
    keys = ("t0", "t_final", "n_plateaus", "plateau")
    return "geometric:" + ",".join(f"{k}={number_text(schedule[k])}" for k in keys)


def fill_solution(result: Result, item: Item, state, ok: bool) -> None:
    """Set solution, solution_rows and game_move (when ok) or best (when not) from a state."""
    for name, value in solution_fields(item, state, ok).items():
        setattr(result, name, value)


def solution_fields(item: Item, state, ok: bool) -> dict:
    """A Result's fields from a state: solved, verified, status, solution, solution_rows and
    game_move when ok (a verified solution), else best; and the state itself."""
    if ok:
        return dict(
            solved=True, verified=True, status="solved", solution=item.text(state),
            solution_rows=item.spec.solution_rows(item, state),
            game_move=item.spec.game_move(item, state), state=state,
        )  # fmt: skip
    return dict(best=item.text(state), state=state)


def fill_checked_solution(result: Result, raw: dict, state) -> None:
    """fill_solution(ok=True) from a grid kind's solve_one dict that verified its answer and
    wrote its text, rows (the state) and move, so that none is made twice."""
    result.solved = result.verified = True
    result.status = "solved"
    result.solution, result.solution_rows, result.game_move = raw["text"], state, raw["move"]
    result.state = state


# ---- Sudoku annealing --------------------------------------------------------------------


def sudoku_anneal(items: Iterable[Item], s: Settings) -> Iterator[Result]:
    """Anneal Sudoku items in one pool per order: the first order streams, others follow.

    Ctrl-C: every item read and not reported yet is reported interrupted, once. Where the
    card may run them, its context is made on a thread meanwhile (runners.open_context_early)."""
    if s.backend != "cpu" and not s.on_dask:
        from gpu_anneal.runners import open_context_early

        open_context_early()
    return interrupts.reported_once(
        items, lambda read: _anneal_orders(read, s), lambda item: _interrupted(item, s)
    )


def _interrupted(item: Item, s: Settings) -> Result:
    """An item read but never annealed, stopped by Ctrl-C."""
    result = base_result(item, "anneal", resolve_backend(s.backend, s.naming.flags))
    result.status, result.error = "interrupted", interrupts.stop_reason()
    return result


def _anneal_orders(items: Iterable[Item], s: Settings) -> Iterator[Result]:
    held: dict[int, list[Item]] = {}
    first: list[int] = []

    def main_stream():
        for item in items:
            if not first:
                first.append(item.order)
            if item.order == first[0]:
                yield item
            else:
                held.setdefault(item.order, []).append(item)

    stream = main_stream()
    head = next(stream, None)
    if head is None:
        return
    timeline.mark("input")
    yield from _anneal_order(head.order, itertools.chain([head], stream), s, first=True)
    for order, rest in held.items():
        yield from _anneal_order(order, iter(rest), s)


def _refused_at_order(items: Iterator[Item], method: str, backend: str, fault) -> Iterator[Result]:
    """An `error` Result for each puzzle of an order the options cannot run at (`fault`, named
    with the puzzle's file and line by the output); the run goes on with other orders."""
    for item in items:
        result = base_result(item, method, backend)
        result.status, result.error = "error", str(fault)
        yield result


def _anneal_order(
    order: int, items: Iterator[Item], s: Settings, first: bool = False
) -> Iterator[Result]:
    """The results of one order's puzzles. Options that cannot run at the order are an
    OptionError for the run's `first` order (nothing run yet: one line), else an error result
    of each of its puzzles (the results of the orders before stay, the run goes on)."""
    from gpu_anneal.sudoku_solver import InterruptedBatch, run_pool, stop_stream

    items, choice = backend_choice.sudoku_choice(
        s.backend, order, s.move_at(order), items, s.chains, s.batch, s.on_dask, s.naming.flags
    )
    try:
        plan = sudoku_plan(s, order, choice.backend, choice.reason)
    except OptionError as exc:  # the options fail at this order alone (a preset's t_final)
        if first:
            raise
        yield from _refused_at_order(items, "anneal", choice.backend, exc)
        return
    used = plan.backend
    params = sudoku_params(plan)

    dask = s.on_dask
    key = ("sudoku", used, order, plan.move)
    compile_s = 0.0  # the pool's own compile step (no second runner for a warm-up), once a key

    def compiled(seconds: float) -> None:
        nonlocal compile_s
        compile_s = 0.0 if key in _warm else seconds
        _warm.add(key)

    by_index: dict[int, Item] = {}

    def cells():
        for item in items:
            by_index[item.index] = item
            yield item.index, item.puzzle

    if dask:
        stream = _dask_stream(cells(), order, s, plan)
    else:
        stream = run_pool(plan, cells(), on_compiled=compiled)
    try:
        for raw in stream:
            item = by_index.pop(raw.index, None)  # None: reported already
            if item is not None:
                yield _from_pool(item, raw, params, compile_s)
            compile_s = 0.0
            if dask and by_index:  # the cluster holds every puzzle: none left, nothing to stop
                interrupts.check()  # the run's total time (a pool checks it between slices)
    except KeyboardInterrupt as stop:  # in the pool, or here: the pool reports what it holds
        stopped = stop.results if isinstance(stop, InterruptedBatch) else stop_stream(stream)
        for raw in stopped:
            item = by_index.pop(raw.index, None)
            if item is not None:
                yield _from_pool(item, raw, params, compile_s)
        raise KeyboardInterrupt from None


def sudoku_params(plan: RunPlan) -> Params:
    """The Params of a Sudoku annealing run at the plan's order: the move and schedule presets
    resolved (move "auto" -> focused-two on 9x9, schedule "auto" -> its string), the start
    temperature that ran; `chains` is filled per result (the pool may plan it)."""
    return Params(
        seed=plan.seed, schedule=plan.schedule_text, move=plan.move, t0=plan.schedule.t0,
        time_limit=plan.time_limit, max_trials=plan.max_trials, propagate=plan.propagate,
        generator=plan.generator, backend_choice=plan.choice,
    )  # fmt: skip


def _dask_stream(pairs, order: int, s: Settings, plan: RunPlan):
    """Results from a Dask cluster in completion order, indices those of the input."""
    from gpu_anneal.scale import solve_on_dask

    pairs = list(pairs)
    if not pairs:
        return
    indices = [index for index, _ in pairs]
    if indices != list(range(indices[0], indices[0] + len(indices))):
        raise InputError("Dask: mixed orders or resumed gaps in the input are not supported")
    cells = np.stack([c for _, c in pairs])
    for raw in solve_on_dask(cells, order, plan, scheduler=s.scheduler, workers=s.workers):
        raw.index += indices[0]
        yield raw


def _from_pool(item: Item, raw, params: Params, compile_s: float) -> Result:
    """A Result from the pool's SolveResult (an `error` Result when its answer cannot be
    written)."""
    return guarded(item, "anneal", raw.backend, lambda: _pool_result(item, raw, params, compile_s))


def _pool_result(item: Item, raw, params: Params, compile_s: float) -> Result:
    """The Result of one pool answer, made in one call: the item's identity (its givens
    written first: their fault is the one named), the reported state, counts, the params with
    the pool's chains, timing."""
    ok = raw.solved  # the pool ran the verifier on it against the item's givens (verify_many)
    identity = identity_fields(item)
    answer = solution_fields(item, raw.solution if ok else raw.best, ok)
    extra = raw.extra or {}
    if extra.get("no_chain"):  # deduction completed the puzzle: no chain ran, nothing to count
        counts = Counts()
    else:
        counts = Counts(
            trials=raw.trials, proposals=raw.proposals, accepted=raw.accepted,
            solving_chain=raw.solving_chain, chain_trials=extra.get("chain_trials"),
            chain_proposals=extra.get("chain_proposals"),
            spare_chains=extra.get("spare_chains", 0),
        )  # fmt: skip
    if not ok:
        answer["status"] = _status(raw.error)
    return Result(
        method="anneal", backend=raw.backend, **identity, **answer,
        cost=int(raw.cost) if raw.cost >= 0 else None, error=raw.error, counts=counts,
        params=with_chains(params, raw.chains),
        timing=Timing(compile=compile_s, search=raw.seconds, verify=raw.verify_seconds),
    )  # fmt: skip


@lru_cache(maxsize=64)
def with_chains(params: Params, chains: int) -> Params:
    """params with `chains` filled in: one Params for all the results of a pool."""
    return replace(params, chains=chains)


def _status(error: str | None) -> str:
    if error is None:
        return "unsolved"
    if error in (interrupts.INTERRUPTED, interrupts.TIME_SPENT):
        return "interrupted"
    if error.startswith(NO_SOLUTION):
        return "no_solution"
    return "error"


def replay(item: Item, chain: int, s: Settings) -> Result:
    """Chain `chain` of a run with `s.chains` chains per puzzle, re-run alone on the CPU."""
    from gpu_anneal.sudoku_solver import replay_planned

    plan = sudoku_plan(s, item.order, "cpu", "cpu: --replay-chain runs on the CPU")
    raw = replay_planned(plan, item.puzzle, chain)
    raw.index = item.index
    result = _from_pool(item, raw, sudoku_params(plan), 0.0)
    result.backend = "cpu"
    result.params = replace(result.params, replay_chain=chain)
    return result


# ---- Sudoku exact ------------------------------------------------------------------------


def sudoku_exact(items: Iterable[Item], s: Settings) -> Iterator[Result]:
    """Each item by the exact bitmask search, counting solutions up to two.

    A search that passes EXACT_NODES nodes switches to randomised restarts for one solution;
    uniqueness is then unknown (null), and with no solution found the puzzle is unsolved.
    s.time_limit (seconds a puzzle, None: none) stops both searches of a grid above 9x9 as
    the node cap does (a 9x9 search ends at its cap within seconds).
    """
    from cpu_reference.sudoku.exact import solve_exact, solve_restarts

    for item in items:

        def warm(order=item.order):
            blank = np.zeros(order**4, np.uint8)
            solve_exact(blank, order, limit=1, max_nodes=1, rules=s.rules)
            solve_restarts(blank, order, max_nodes=1)
            interrupts.launch_threads()

        compile_s = warm_up_seconds(("sudoku-exact", item.order, s.rules), warm)
        try:
            interrupts.check()  # the run's total time
            start = time.perf_counter()
            count, solution, nodes, timed_out = _exact_searches(item, s)
            search_s = time.perf_counter() - start
        except KeyboardInterrupt:
            yield interrupted(item, "exact", "cpu")
            raise
        search = (count, solution, nodes, compile_s, search_s, timed_out)
        yield guarded(item, "exact", "cpu", functools.partial(exact_result, item, s, *search))


def exact_plan_text(order: int, puzzles: int, s: Settings) -> str:
    """What `solve --method exact` will do with `puzzles` puzzles of this order (--dry-run):
    the search, its node cap and its time limit, as a few lines of text."""
    from cpu_reference.sudoku.exact import QUICK_ORDER

    side = order * order
    if s.time_limit is None:
        limit = "no time limit"
    elif order <= QUICK_ORDER:
        limit = f"--time-limit does not apply at {side}x{side} (the search ends within seconds)"
    else:
        limit = (f"time limit {s.time_limit:g} s a puzzle: then unsolved, or solved with "
                 "uniqueness unknown")  # fmt: skip
    return "\n".join([
        f"plan for {puzzles:,} puzzle{'s' if puzzles != 1 else ''}, {side}x{side}, exact search "
        f"(rules {s.rules}) on one CPU thread, one puzzle at a time",
        f"  each: up to {EXACT_NODES:,} branch values counting its solutions to two, then up "
        f"to {EXACT_NODES:,} in randomised restarts for one (uniqueness then unknown)",
        f"  {limit}",
    ])  # fmt: skip


def _exact_searches(item: Item, s: Settings) -> tuple[int, np.ndarray, int, bool]:
    """The ordered search for up to two solutions, then, past its node cap, randomised
    restarts for one, both within s.time_limit: (count, solution, nodes, timed_out); count -1
    where the count is not settled (a solution may still have been found)."""
    from cpu_reference.sudoku.exact import QUICK_ORDER, solve_exact, solve_restarts

    quick = item.order <= QUICK_ORDER
    ends = None if s.time_limit is None else time.perf_counter() + s.time_limit

    def left() -> float | None:
        return None if ends is None else max(ends - time.perf_counter(), 0.0)

    ordered = functools.partial(
        _exact_search, solve_exact, item, limit=2, max_nodes=EXACT_NODES, rules=s.rules
    )
    count, solution, nodes = interrupts.stoppable(ordered, quick, left())
    if count < 0 and left() != 0.0:
        restarts = functools.partial(_exact_search, solve_restarts, item, max_nodes=EXACT_NODES)
        found, solution, more = interrupts.stoppable(restarts, quick, left())
        nodes += more
        count = -1 if found > 0 else found
    return count, solution, nodes, count < 0 and left() == 0.0


def _exact_search(search, item: Item, stop, **options):
    """search(item's puzzle, its order, stop=stop, **options): one of the exact searches, as
    interrupts.stoppable runs it."""
    return search(item.puzzle, item.order, stop=stop, **options)


def interrupted(item: Item, method: str, backend: str) -> Result:
    """The Result of a puzzle stopped by Ctrl-C before its answer."""

    def build() -> Result:
        result = base_result(item, method, backend)
        result.status, result.error = "interrupted", interrupts.stop_reason()
        return result

    return guarded(item, method, backend, build)


def exact_result(
    item, s, count, solution, nodes, compile_s, search_s, timed_out, counted_to: int = 2,
    choice: str = "cpu: --method exact runs on the CPU only",
) -> Result:  # fmt: skip
    """The Result of an exact search of the item that counted its solutions up to `counted_to`
    (count: 0 none, -1 not settled; its uniqueness is known where it counted to 2 or more),
    its rules s.rules (fast where the run names none), `choice` its params.backend_choice."""
    result = base_result(item, "exact", "cpu")
    ok, fault, verify_s = (False, None, 0.0)
    if count != 0 and np.any(solution):
        ok, fault, verify_s = timed_verify(item, solution)
    fill_solution(result, item, solution if ok else None, ok)
    result.cost = 0 if ok else None
    result.unique = (count == 1) if count > 0 and counted_to >= 2 else None
    if count == 0:
        result.status, result.error = "no_solution", NO_SOLUTION
    elif not ok:
        when = f" at the time limit ({s.time_limit:g} s)" if timed_out else ""
        result.error = fault or f"search stopped{when} after {nodes} nodes without an answer"
    result.counts = Counts(nodes=int(nodes))
    result.params = Params(rules=s.rules or "fast", time_limit=s.time_limit, backend_choice=choice)
    result.timing = Timing(compile=compile_s, search=search_s, verify=verify_s)
    return result


# ---- Shikaku and Hashiwokakero -----------------------------------------------------------


def grid_puzzles(items: Iterable[Item], s: Settings, spec) -> Iterator[Result]:
    """Shikaku or Hashiwokakero items (their kind: spec, gpu_anneal.kinds.grid) by annealing or
    by integer programming, one puzzle at a time."""
    method = s.method
    items, choice = backend_choice.grid_choice(s.backend, spec, method, items, s.naming.flags)
    plan = grid_plan(s, spec, choice.backend, choice.reason)
    used = plan.backend
    warned = False
    for item in items:
        limit = math.inf if plan.time_limit is None else plan.time_limit

        def solve(puzzle, time_limit=limit, chains=plan.chains):
            return spec.solve_one(
                puzzle, method=method, backend=used, chains=chains, seed=plan.seed,
                time_limit=time_limit, **{**plan.schedule, **dict(plan.options)},
            )  # fmt: skip

        compile_s = 0.0
        if method == "anneal":
            compile_s = warm_up_seconds((spec.name, used), lambda: solve(spec.warm_up_id, 1.0, 1))
        try:
            interrupts.check()  # the run's total time
            left = interrupts.time_left()  # a puzzle's search ends with the run's time
            start = time.perf_counter()
            given = limit if left is None else max(0.01, min(limit, left))
            raw = solve(item.puzzle, given)
            search_s = time.perf_counter() - start
        except KeyboardInterrupt:
            yield interrupted(item, method, used)
            raise
        if not warned and plan.time_limit is not None:
            warned = warn_long_round(raw, plan.chains, given, item.where)
        build = functools.partial(
            _from_grid, item, raw, s, plan.chains, compile_s, search_s, choice.reason
        )
        result = guarded(item, method, used, build)
        yield out_of_time(result)


def warn_long_round(raw: dict, chains: int, time_limit: float, where: str) -> bool:
    """LimitWarning, and True, where one trial of every chain on a card (a launch, never cut;
    the cores' trials stop at the plateau after the deadline: gpu_anneal.stoppable_trials) took
    longer than the puzzle's time limit. The run goes on; the caller warns once a run."""
    first = raw.get("first_round")
    if raw.get("backend") == "cpu" or first is None or first <= time_limit:
        return False
    warnings.warn(
        f"chains = {chains:,}: one trial of every chain took {first:.3g} s ({where}), "
        f"more than the time limit of {time_limit:.3g} s; running anyway (each puzzle runs at "
        "least one trial); fewer chains would keep the limit",
        LimitWarning,
        stacklevel=2,
    )
    return True


def out_of_time(result: Result) -> Result:
    """The result, reported interrupted (as on Ctrl-C) when it is unsolved because the run's
    total time ran out during its search."""
    left = interrupts.time_left()
    if left is not None and left <= 0 and result.status == "unsolved":
        interrupts.spend()
        result.status, result.error = "interrupted", interrupts.stop_reason()
    return result


def _from_grid(
    item, raw: dict, s: Settings, chains: int, compile_s: float, search_s: float, chosen: str
):
    spec = item.spec
    result = base_result(item, raw["method"], raw["backend"])
    state = spec.state_of(raw)
    if state is not None and "verified" in raw:  # solve_one verified and wrote this answer
        ok, fault, verify_s = raw["verified"], raw["verdict"], raw["verify_seconds"]
    else:
        ok, fault, verify_s = timed_verify(item, state) if state is not None else (False, None, 0.0)
    if ok and raw.get("text") is not None:
        fill_checked_solution(result, raw, state)
    else:
        fill_solution(result, item, state, ok)
    result.cost = 0 if ok else spec.cost(item, state)
    status = raw.get("status")
    if ok:
        pass
    elif status in ("infeasible", "no_solution"):
        reason = raw.get("reason")
        result.status = "no_solution"
        result.error = NO_SOLUTION + (f": {reason}" if reason else "")
    else:
        result.error = None if state is None or status == "unsolved" else fault
        if status == "time_limit":
            result.error = "time limit reached"
        elif status == "too_large":
            result.error = raw.get("reason")
    if raw["method"] == "anneal":
        result.counts = Counts(trials=int(raw["trials"]))  # over all chains
        ran = raw["schedule"]  # the annealer's defaults for this puzzle with the settings given
        result.params = Params(
            seed=s.seed, chains=chains, schedule=grid_schedule_text(ran),
            move=spec.ran_move(s), t0=float(ran["t0"]),
            time_limit=s.time_limit, max_trials=s.max_trials, backend_choice=chosen,
        )  # fmt: skip
    else:
        result.params = Params(time_limit=s.time_limit, backend_choice=chosen)
    result.timing = Timing(compile=compile_s, search=search_s, verify=verify_s)
    return result
