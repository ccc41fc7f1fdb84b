"""Sudoku's `impasse` method: heat-bath chains on partial legal grids
(cpu_reference.sudoku.impasse), one puzzle at a time, on the cores or on the card.

Glossary:
    item       a Sudoku read by gpu_anneal.inputs
    q          the item's place in the input (item.index)
    cpp        chains per puzzle; chain i of puzzle q draws xoroshiro128+ stream i of the seed
               puzzle_seed(seed, q), and a result names it as stream q * cpp + i
               (counts.solving_chain), which --replay-chain re-runs alone on the CPU
    T          the chains' held temperature: --t0, else TEMPERATURES' for the order and the
               puzzle's fill (percent of its cells given)

The chains never restart (a trial runs until the puzzle is solved or its time is up). The
first chain to reach a solution in moves wins (impasse.winner), so the answer does not depend on
how the chains were scheduled.

Under --method auto (s.exact_first) a puzzle of an order and fill EXACT_FIRST_NODES gives branch
values first gets the exact search for one solution, up to that many branch values: a solution
it finds, or its proof that there is none, is the puzzle's result (method exact); else the
chains run as above, in the time that is left. The search is deterministic, so the answer
still does not depend on timing.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import numpy as np

from gpu_anneal import interrupts
from gpu_anneal.backend_choice import Choice, asked
from gpu_anneal.items import Item
from gpu_anneal.results import Counts, Params, Result, Timing
from gpu_anneal.solvers import (
    NO_SOLUTION,
    base_result,
    exact_result,
    fill_solution,
    guarded,
    interrupted,
    out_of_time,
    timed_verify,
    warm_up_seconds,
)

if TYPE_CHECKING:
    from gpu_anneal.settings import Settings

METHOD = "impasse"
# order -> ((fill below which, T), ..., (None, T)): the held temperature measured best at the
# order for a puzzle's fill (its givens over its cells, in percent), by
# benchmarks/bench_impasse_sweep.py on training instances (benchmarks/results/tuning/
# impasse_sweep_*.md, below 40 % impasse_sweep_*_low.md and impasse_sweep_empty.md, above 50 %
# impasse_sweep_*_high*.md; 36x36 at 50 % also frontier_impasse_36x36_50_heat*.md); an order
# without a row takes the nearest order's. The fuller the grid, the warmer: 36x36's 0.25 left
# an empty grid unsolved, and 64x64's 0.23 every training grid at 60 %. The 49x49 and 64x64
# bands were swept on a shuffled pattern's grids and checked on random ones
# (impasse_sweep_*_generator*.md).
TEMPERATURES = {
    # 0-20, 30-35, 40, 45 and 50-60 % (impasse_sweep_25x25_*.md)
    5: ((25, 0.21), (37.5, 0.29), (42.5, 0.31), (47.5, 0.35), (None, 0.37)),
    # 0-20, 40, 45 and 50 % (at 52 % 0.35 won on one held-out seed and lost on another:
    # impasse_sweep_36x36_5[12]*.md, frontier/frontier_auto_heldout_36x36_52.md)
    6: ((25, 0.21), (42.5, 0.25), (47.5, 0.29), (None, 0.32)),
    # 0-20, 30, 40, 45, 50 and 55 %
    7: ((25, 0.18), (35, 0.21), (42.5, 0.23), (47.5, 0.25), (52.5, 0.27), (None, 0.29)),
    # 0-30, 40, 45-50, 55 (the fewest open cells: none solved) and 60 % (on random grids too)
    8: ((35, 0.18), (42.5, 0.21), (52.5, 0.23), (57.5, 0.25), (None, 0.29)),
}
# order -> ((fill below which, branch values), ..., (None, values)): the exact search a puzzle
# gets before the chains under --method auto, by its fill as TEMPERATURES' bands (an order not
# here, or 0 values: none). At 25x25 it solved Lloyd & Amos' instances at 30-50 % in a median
# of 0.75-13 ms a level, most within 5,000 values, where the chains took 4-18 ms; at 36x36 to
# 64x64 it answered no grid at 40-52 % within 5,000 values (exact_first.md). From 55 % at 36x36
# and 60 % at 49x49 it answered every training grid within a few thousand values, sooner than
# the chains; at 64x64 the chains were as fast or faster from 62 % and the search answered none
# at 60 % (benchmarks/results/frontier/exact_first*.md, frontier_impasse_high_fill_*.md,
# frontier_auto_high_fill_*.md, docs/algorithm.md).
EXACT_FIRST_NODES = {
    5: ((None, 5_000),),
    6: ((52.5, 0), (None, 5_000)),  # 52 % (none within 20,000 values) and 55-60 %
    7: ((57.5, 0), (None, 5_000)),  # 57 % (1 of 10 within 20,000) and 60-65 %
}
CUDA_CHAINS = 4096  # chains a puzzle on a card when --chains is not given, a thread a chain
# registers a thread of the warp kernel, its state rows in shared memory or in global memory:
# ptxas's sm_80 figures (above sm_90's) rounded up to a multiple of 8
# (benchmarks/results/kernels/ptxas_sm_*.json), by which its chains a puzzle on a card are sized
# to one full wave (warp_chains)
WARP_REGISTERS = {True: 176, False: 200}
CUDA_SLICE_MOVES = 20_000  # moves of every chain a launch on a card
GOLDEN = 0x9E3779B97F4A7C15


def temperature_at(order: int, fill: float, given: float | None = None) -> float:
    """The held temperature of a puzzle of this order and fill (percent of its cells given):
    the one given, else TEMPERATURES' for the fill at the nearest order measured."""
    if given is not None:
        return float(given)
    return band_value(TEMPERATURES[nearest_order(order)], fill)


def band_value(bands, fill: float):
    """The value of the band a fill falls in, in a row of ((fill below which, value), ...,
    (None, value)) as TEMPERATURES' and EXACT_FIRST_NODES' rows are."""
    for below, value in bands:
        if below is None or fill < below:
            return value
    raise AssertionError("a row of bands ends with (None, value)")


def nearest_order(order: int) -> int:
    """The order of TEMPERATURES nearest this one (the lower on a tie)."""
    return min(TEMPERATURES, key=lambda known: (abs(known - order), known))


def temperature_text(order: int, given: float | None) -> str:
    """The temperatures of a run at this order as --dry-run says them: 'T = 0.3', or by fill
    ('T = 0.25 below 47.5 % filled, else 0.27')."""
    if given is not None:
        return f"T = {given:g}"
    bands = TEMPERATURES[nearest_order(order)]
    parts = [f"{t:g} below {below:g} % filled" for below, t in bands[:-1]]
    return "T = " + ", ".join([*parts, f"else {bands[-1][1]:g}" if parts else f"{bands[-1][1]:g}"])


def exact_first_nodes(order: int, fill: float) -> int:
    """The branch values of the exact search a puzzle of this order and fill (percent of its
    cells given) gets before the chains under --method auto: EXACT_FIRST_NODES' (0: none)."""
    return band_value(EXACT_FIRST_NODES.get(order, ((None, 0),)), fill)


def exact_first_text(order: int) -> str | None:
    """The exact search first as --dry-run says it at this order ('each first by the exact
    search for one solution, up to 5,000 branch values; ...', or 'those from 52.5 % filled
    first ...' where not every fill gets it), or None where no puzzle of the order gets it."""
    bands = EXACT_FIRST_NODES.get(order, ((None, 0),))
    lows = [None, *(below for below, _ in bands[:-1])]
    parts = []
    for low, (below, nodes) in zip(lows, bands, strict=True):
        if nodes <= 0:
            continue
        if low is None and below is None:
            where = "each"
        elif low is None:
            where = f"those below {below:g} % filled"
        elif below is None:
            where = f"those from {low:g} % filled"
        else:
            where = f"those {low:g} to {below:g} % filled"
        parts.append(f"{where} first by the exact search for one solution, up to {nodes:,} "
                     "branch values")  # fmt: skip
    if not parts:
        return None
    return "; ".join(parts) + "; the chains where it ends without an answer"


def fill_of(cells) -> float:
    """The percent of a Sudoku's cells given (not 0)."""
    cells = np.asarray(cells)
    return 100.0 * np.count_nonzero(cells) / cells.size


def puzzle_seed(seed: int, q: int) -> int:
    """The seed of puzzle q's chains in a run of `seed`: seed + q times the golden ratio of 2**64
    (so puzzles draw different streams)."""
    return (int(seed) + int(q) * GOLDEN) % 2**64


def impasse_choice(s: Settings) -> Choice:
    """The backend of an impasse run: the one asked, else the card when one is usable."""
    fixed = asked(s.backend, s.naming.flags)
    if fixed is not None:
        return fixed
    from gpu_anneal.backends import cuda_status

    usable, why = cuda_status()
    if usable:
        return Choice("cuda", f"auto: cuda, {why} (--method impasse takes a usable card)")
    return Choice("cpu", f"auto: cpu, no usable CUDA device: {why}")


def lanes_of(s: Settings, backend: str) -> int:
    """Threads a chain: --lanes on a card (1 unless given), 1 on the cores."""
    return int(s.lanes or 1) if backend == "cuda" else 1


def chains_of(s: Settings, backend: str, order: int = 3, card=None) -> int:
    """Chains a puzzle: --chains, else one a CPU thread, or on a card CUDA_CHAINS (at 32 lanes
    a chain, one full wave of the warp kernel at this order on `card`, the current device when
    None: warp_chains)."""
    if s.chains is not None:
        return int(s.chains)
    if backend == "cuda":
        if lanes_of(s, backend) > 1:
            from gpu_anneal.plan import resolve_card

            return warp_chains(resolve_card(card), order)
        return CUDA_CHAINS
    from gpu_anneal.backends import cpu_threads

    return cpu_threads()


def wave_card(s: Settings, backend: str, lanes: int):
    """The card whose full wave sizes a puzzle's chains (a gpu_anneal.plan.Card, the current
    device's attributes read once a run): at more than one lane a chain on a card when --chains
    is not given, else None (no card is read)."""
    if backend != "cuda" or lanes <= 1 or s.chains is not None:
        return None
    from gpu_anneal.plan import resolve_card

    return resolve_card(None)


def warp_chains(card, order: int) -> int:
    """Chains of one full wave of the warp kernel on `card` (a gpu_anneal.plan.Card) at this
    order: its SMs times the blocks each holds (by threads, blocks, WARP_REGISTERS and the
    state rows' shared memory where they are there) times the chains a block."""
    from gpu_anneal.kernels import impasse_warp
    from gpu_anneal.plan import wave_chains

    shared = impasse_warp.shared_fits(order)
    warps = impasse_warp.warps_a_block(shared)
    threads = warps * impasse_warp.WARP
    shape = {
        "threads_per_block": threads,
        "chains_per_block": warps,
        "blocks_by_registers": card.registers_per_sm // (WARP_REGISTERS[shared] * threads),
        "shared_per_block": impasse_warp.state_bytes(order) if shared else 0,
    }
    return wave_chains(card, shape)


KERNEL_SCALARS = ("side", "slice_moves", "trial_moves")  # impasse_slice's non-array arguments


@functools.cache
def impasse_kernel(lanes: int = 1, order: int | None = None, shared: bool = True):
    """The TrialKernel of the impasse chains, one chain a thread, or at 32 lanes one warp a
    chain (gpu_anneal.kernels.impasse_warp), its state rows in shared memory where `order`
    (the puzzles' order, or above) is given, they fit and `shared` holds, else in global
    memory; built once, compiled on first use: impasse_slice's arguments, its RNG states, best
    grids, their open cells and counts brought back after the last launch."""
    from cpu_reference.sudoku.impasse import impasse_slice
    from gpu_anneal.kernels.launch import RESULTS, TrialKernel

    results = (*RESULTS, "counts")
    if lanes > 1:
        from gpu_anneal.kernels import impasse_warp

        if shared and order is not None and impasse_warp.shared_fits(order):
            return impasse_warp.SharedWarpKernel(impasse_slice, KERNEL_SCALARS, results, order)
        return impasse_warp.WarpKernel(impasse_slice, KERNEL_SCALARS, results)
    return TrialKernel(impasse_slice, KERNEL_SCALARS, results)


def warp_state_text(order: int) -> str:
    """Where a warp chain's state rows live at this order, as --dry-run says it."""
    from gpu_anneal.kernels import impasse_warp

    size = impasse_warp.state_bytes(order)
    if impasse_warp.shared_fits(order):
        return f"its state ({size:,} bytes) in shared memory, a chain a block"
    return (f"its state in global memory: {size:,} bytes a chain pass the "
            f"{impasse_warp.SHARED_LIMIT:,} bytes of shared memory a block")  # fmt: skip


def runner_for(backend: str, lanes: int = 1, order: int | None = None, shared: bool = True):
    """(a fresh TrialRunner or None for the CPU runner, the moves a slice): on a card, the
    kernel of one chain a thread, or of one warp a chain at 32 lanes (sized for `order`, its
    state in shared memory where it fits and `shared` holds: impasse_kernel)."""
    from cpu_reference.sudoku.impasse import SLICE_MOVES

    if backend != "cuda":
        return None, SLICE_MOVES
    from gpu_anneal.grid_runners import cuda_trials

    # one kernel object for every order at a thread a chain: compiled (or loaded) once
    sized = order if lanes > 1 else None
    return cuda_trials(impasse_kernel(lanes, sized, shared)), CUDA_SLICE_MOVES


def plan_text(order: int, puzzles: int, s: Settings, device: str | None = None) -> str:
    """What `solve --method impasse` will do with `puzzles` puzzles of this order (--dry-run):
    where the chains run, how many, at what temperature, for how long. `device` names a card
    described rather than found (--device)."""
    if device is not None:
        choice = Choice("cuda", f"cuda: the card described (--device {device!r})")
    else:
        choice = impasse_choice(s)
    chains = chains_of(s, choice.backend, order, device)
    where = "on the cores, one chain a thread"
    if choice.backend == "cuda":
        where = ("on the card, one chain a warp (its 32 lanes over the drawn cell's candidates;"
                 f" {warp_state_text(order)})" if lanes_of(s, "cuda") > 1
                 else "on the card, one chain a thread")  # fmt: skip
    side = order * order
    limit = "no time limit" if s.time_limit is None else f"time limit {s.time_limit:g} s a puzzle"
    lines = [
        f"plan for {puzzles:,} puzzle{'s' if puzzles != 1 else ''}, {side}x{side}, --method "
        f"impasse (heat-bath chains on partial legal grids, deduction first), one puzzle at a "
        f"time",
        f"  {chains:,} chains a puzzle {where}, held at {temperature_text(order, s.t0)}, never "
        f"restarted; {limit}",
        f"  backend: {choice.reason}",
    ]  # fmt: skip
    if choice.backend == "cuda":
        lines.append(f"  {CUDA_SLICE_MOVES:,} moves a chain a launch")
    head = exact_first_text(order) if s.exact_first else None
    if head is not None:
        lines.insert(1, f"  {head}")
    return "\n".join(lines)


def sudoku_impasse(items: Iterable[Item], s: Settings) -> Iterator[Result]:
    """Each item by heat-bath chains on partial legal grids, within s.time_limit seconds."""
    from cpu_reference.sudoku.impasse import compile_chains

    choice = impasse_choice(s)
    used = choice.backend
    lanes = lanes_of(s, used)

    def warm(order: int) -> None:
        compile_chains(runner_for(used, lanes, order)[0])

    card = wave_card(s, used, lanes)
    for item in items:
        try:
            interrupts.check()  # the run's total time
            head = exact_first(item, s)
        except KeyboardInterrupt:
            yield interrupted(item, "exact", "cpu")
            raise
        if head is not None and head.count >= 0:  # solved, or proved to have no solution
            build = functools.partial(_head_result, item, s, head, choice)
            yield out_of_time(guarded(item, "exact", "cpu", build))
            continue
        # a warp's kernel is sized for the order (its shared memory): compiled for each
        key = ("sudoku-impasse", used, lanes, item.order if lanes > 1 else None)
        compile_s = warm_up_seconds(key, functools.partial(warm, item.order))
        chains = chains_of(s, used, item.order, card)
        temperature = temperature_at(item.order, fill_of(item.puzzle), s.t0)
        seed = puzzle_seed(s.seed or 0, item.index)
        try:
            interrupts.check()  # the run's total time
            limit = _time_left(s, head)
            runner, slice_moves = runner_for(used, lanes, item.order)
            search = (item, chains, seed, temperature, limit, runner, slice_moves)
            raw = interrupts.stoppable(functools.partial(_search, *search))
        except KeyboardInterrupt:
            yield interrupted(item, METHOD, used)
            raise
        build = functools.partial(_result, item, raw, s, used, chains, temperature, choice, lanes)
        result = guarded(item, METHOD, used, functools.partial(build, compile_s, head))
        yield out_of_time(result)


@dataclasses.dataclass(frozen=True)
class ExactHead:
    """The exact search a puzzle got before its chains: count 1 (a solution), 0 (none: the
    search ended without one) or -1 (its branch values, or the time, ran out first)."""

    count: int
    solution: np.ndarray
    nodes: int
    budget: int  # the branch values it was given
    seconds: float
    compile_seconds: float


def exact_first(item: Item, s: Settings) -> ExactHead | None:
    """The exact search for one solution of the item, up to EXACT_FIRST_NODES' branch values
    at its order and fill, within its time limit; None where the run takes none (not --method
    auto, or no values at the item's order and fill)."""
    budget = exact_first_nodes(item.order, fill_of(item.puzzle)) if s.exact_first else 0
    if budget <= 0:
        return None
    from cpu_reference.sudoku.exact import solve_exact

    def warm(order: int = item.order) -> None:
        solve_exact(np.zeros(order**4, np.uint8), order, limit=1, max_nodes=1)
        interrupts.launch_threads()

    compile_s = warm_up_seconds(("sudoku-exact-first", item.order), warm)

    def search(stop):
        return solve_exact(item.puzzle, item.order, limit=1, max_nodes=budget, stop=stop)

    start = time.perf_counter()
    count, solution, nodes = interrupts.stoppable(search, False, _time_left(s, None))
    return ExactHead(count, solution, nodes, budget, time.perf_counter() - start, compile_s)


def _time_left(s: Settings, head: ExactHead | None) -> float | None:
    """Seconds the puzzle's search may still take: its time limit less the exact search's,
    within the run's total time (None: no limit)."""
    limit = s.time_limit
    if limit is not None and head is not None:
        limit = max(limit - head.seconds, 0.0)
    left = interrupts.time_left()
    return limit if left is None else min(left if limit is None else limit, left)


def _choice_text(choice: Choice, head: ExactHead | None) -> str:
    """params.backend_choice of a result of the chains: the backend's reason, after the exact
    search's where one ran first."""
    if head is None:
        return choice.reason
    values = f"{head.nodes:,} branch value{'s' if head.nodes != 1 else ''}"
    return (f"auto: the exact search first, {values} without an answer, then the impasse "
            f"chains; {choice.reason}")  # fmt: skip


def _head_result(item: Item, s: Settings, head: ExactHead, choice: Choice) -> Result:
    said = (f"auto: the exact search first, up to {head.budget:,} branch values (the impasse "
            f"chains where it ends without an answer); {choice.reason}")  # fmt: skip
    return exact_result(
        item, s, head.count, head.solution, head.nodes, head.compile_seconds, head.seconds,
        False, counted_to=1, choice=said,
    )  # fmt: skip


def _search(item, chains, seed, temperature, limit, runner, slice_moves, stop) -> dict:
    """impasse_solve on the item, stopped between slices once stop[0] is set."""
    from cpu_reference.sudoku.impasse import impasse_solve

    return impasse_solve(
        item.puzzle, item.order, chains, seed, temperature, limit, runner,
        slice_moves=slice_moves, stop=lambda: stop[0] != 0,
    )  # fmt: skip


def _result(item, raw, s, used, chains, temperature, choice, lanes, compile_s, head=None):
    result = base_result(item, METHOD, used)
    grid = raw["grid"]
    ok, fault, verify_s = (False, None, 0.0)
    if raw["status"] == "solved":
        ok, fault, verify_s = timed_verify(item, grid)
    if grid is not None:
        fill_solution(result, item, grid, ok)
    if raw["status"] == "no_solution":
        result.status = "no_solution"
        result.error = f"{NO_SOLUTION}: deduction contradicts the givens"
    elif ok:
        result.cost = 0
    else:
        result.cost = raw["open"]  # the best grid's open cells
        result.error = fault
    if raw["free"] > 0:  # else deduction completed the puzzle (or refuted it): no chain ran
        result.counts = Counts(
            trials=raw["trials"], proposals=raw["moves"],
            solving_chain=item.index * chains + raw["chain"] if raw["chain"] >= 0 else None,
            chain_proposals=raw["chain_moves"], nodes=head.nodes if head else None,
        )  # fmt: skip
    result.params = Params(
        seed=s.seed, chains=chains, t0=temperature, time_limit=s.time_limit,
        move="heat-bath", generator="xoroshiro128+", propagate=True,
        backend_choice=_choice_text(choice, head), lanes=lanes if used == "cuda" else None,
    )  # fmt: skip
    result.timing = Timing(compile=compile_s, search=raw["seconds"], verify=verify_s)
    if head is not None:  # the exact search's time is the puzzle's too
        result.timing = Timing(compile=compile_s + head.compile_seconds,
                               search=raw["seconds"] + head.seconds, verify=verify_s)  # fmt: skip
    return result


def replay(item: Item, stream: int, s: Settings) -> Result:
    """Stream `stream` of an impasse run with s.chains chains a puzzle (chain stream % chains
    of puzzle stream // chains, the item) re-run alone on the CPU."""
    from cpu_reference.sudoku.impasse import impasse_replay

    chains = int(s.chains)
    temperature = temperature_at(item.order, fill_of(item.puzzle), s.t0)
    seed = puzzle_seed(s.seed or 0, item.index)
    start = time.perf_counter()
    raw = impasse_replay(
        item.puzzle, item.order, chains, seed, temperature, stream % chains,
        time_limit=s.time_limit,
    )  # fmt: skip
    raw.update(
        chain=stream % chains if raw["status"] == "solved" else -1, chain_moves=raw["moves"],
        seconds=time.perf_counter() - start,
    )  # fmt: skip
    choice = Choice("cpu", "cpu: --replay-chain runs on the CPU")
    result = _result(item, raw, s, "cpu", chains, temperature, choice, 1, 0.0)
    result.params = dataclasses.replace(result.params, replay_chain=stream)
    return result
