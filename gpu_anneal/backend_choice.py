"""`--backend auto`: the backend that will finish a workload first, and why (a model).

With a usable CUDA card, auto predicts the seconds each backend takes for the workload and takes
the smaller (the cores on a tie); without one it takes the cores. `choose` is the rule, a pure
function of the workload and each side's rates; the functions below it gather those from this
machine (`sudoku_choice`, `grid_choice`). Every figure is a model built on measurements; each
constant says where it comes from (files under benchmarks/results, H100 80GB HBM3 with 16 Xeon
cores unless said otherwise; benchmarks/fit_backend_choice.py derives the fitted ones).

Glossary:
    n        puzzles of the workload: a file's count, or those read ahead from a stream (at least n)
    R        proposals a second of a backend, all its chains together (the native regime)
    S, c     puzzles at once (slots) and chains per puzzle: on the cores the pool's (1 slot and a
             chain a thread unless --batch or --chains say otherwise), on the card the plan's
             (gpu_anneal.plan.launch)
    K        chains at once, S x c; the rate is R x min(1, K / full) where `full` is the chains
             that fill the hardware (the card's wave, the cores' threads)
    s0       proposals the solving chain needs at least (its solving trial's course)
    m        mean proposals a puzzle's restarts cost over all its chains beyond that
    G_k      the hardest of k puzzles' work over the mean work (`hardest`)
    T        seconds of a slice at most (SLICE)

Work of a puzzle (a restart model): a chain reaches a solution after s0 proposals plus an
exponential part, so the first of c chains solves after s0 + w / c of its own, w the puzzle's
work (mean m); all c run until then, so a puzzle lasts

    L(w) = (s0 + w / c) x K / R

Puzzles differ: w over puzzles is taken as lognormal of spread WORK_SPREAD (fitted to the cores'
search seconds of hardest-class puzzles, whose 90th percentile lies farther above their median
than an exponential's can), so the hardest of k has mean m x G_k. The pool refills a
slot only between slices, and a slice ends when its last puzzle is solved or after T: a round of
S puzzles lasts its hardest puzzle when that fits a slice, else a slot turns over once a slice
or once a puzzle, whichever is longer:

    round = L(m x G_S)                      if that is at most T, else max(L(m), T)
    solve = L(m x G_n)                      n <= S: all at once, the hardest last
          = max(n / S x round, L(m x G_S))  n > S: rounds of S puzzles
    cores = start + solve + n x HOST_CPU    (the host's work between slices)
    card  = start + CARD_RUN + solve + n x HOST_CARD  (the host's work the kernel waits for)

with puzzles of the reference class (hardest-class: what the card is for). start is what a fresh
`gpu-anneal solve` process spends on the backend beyond its puzzles: the interpreter and imports,
compiled code loaded from the disk caches (numba's for the CPU rules of the order and move,
gpu_anneal.kernels.kernel_cache for the card's slice kernel), or compiled when the cache lacks it,
the card's context, writing the results and exiting; measured as whole processes on 3 easy
puzzles. Under auto the card's context is made before the choice (cuda_status), so a cores' run
chosen there costs that much more than `--backend cpu` does. Time limits are not part of the model
(it predicts the time to solve).

Rates: the cores' is measured on this machine once per CPU model, thread count, order and move
(measure_cpu_rate: about MEASURE_SECONDS, only when the rules are cached) and kept in
rates_file(); until then it is the reference CPU's per thread. The card's is the H100 SXM's for
the kernel the plan runs: measured where that kernel, order and move were measured, else its
model as built now times the measured / model ratio of the nearest measured kernel of the same
kind (`reference_card_rate`), scaled by the card's SMs and clock.

Grid puzzles (Shikaku, Hashi) are solved one at a time, with no pool: each pays a card run's
overhead (CARD_RUN, measured on the Sudoku pool), which the cores' median time a puzzle stays
under up to the kind's `cores_up_to` cells (gpu_anneal.kinds: shikaku.json, hashi.json, 2
cores); above that size nothing was measured and auto keeps the card.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import os
import platform
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace

from cpu_reference.sudoku.moves import MOVES

# ---- constants (measurements and the figures fitted to them) ------------------------------

# Proposals a second of the CPU engine on 16 Xeon threads, native regime: 9x9 focused-two
# gpu_throughput.json "cpu" (2026-11-24); 9x9 Sirdey the card_vs_cores.json "throughput" cpu row
# (`bench throughput --backend cpu`, the same measurement, 2026-11-26); 16x16 gpu_cpu_orders.json
# (2026-11-24, before the CPU runner drew from Philox there); 25x25 and 36x36
# gpu_throughput_large.json "cpu" (Philox draws, 2026-11-26).
REFERENCE_CPU = "Intel(R) Xeon(R) Processor"
REFERENCE_THREADS = 16
CPU_RATES = {
    (3, "sirdey"): 955.0e6, (3, "focused-two"): 245.4e6,
    (4, "sirdey"): 545.7e6, (4, "focused"): 132.8e6,
    (5, "sirdey"): 320.2e6, (5, "focused"): 69.74e6,
    (6, "sirdey"): 301.9e6, (6, "focused"): 40.31e6,
}  # fmt: skip

# The card's kernels on an H100 SXM (132 SMs, 1980 MHz), proposals a second.
REFERENCE_CARD = "H100 SXM"
REFERENCE_SMS, REFERENCE_MHZ = 132, 1980
# Measured on an H100 80GB HBM3, native regime, one wave: the one-thread kernels
# (gpu_throughput.json "cuda" rows, 2026-11-24: 16x16 to 36x36 before they drew from Philox) and
# the cooperative kernels that run at 25x25 and 36x36 (gpu_throughput_large.json "cuda" rows).
CARD_MEASURED = {
    "thread": {
        (3, "sirdey"): 177.2e9, (3, "candidate"): 146.9e9, (3, "box-swap"): 108.1e9,
        (3, "focused"): 34.35e9, (3, "focused-two"): 37.27e9,
        (4, "sirdey"): 82.95e9, (4, "focused"): 6.728e9,
        (5, "sirdey"): 1.119e9, (5, "focused"): 0.3693e9,
        (6, "sirdey"): 0.3597e9, (6, "focused"): 0.1132e9,
    },
    "coop": {
        (5, "sirdey"): 2.320e9, (5, "focused"): 1.279e9,
        (6, "sirdey"): 1.180e9, (6, "focused"): 0.4119e9,
    },
}  # fmt: skip
# The model of the kernels measured then (kernel_model_sm_90_after.json, commit 1fe47c7).
CARD_MODEL_THEN = {
    (3, "sirdey"): 245.99e9, (3, "candidate"): 206.51e9, (3, "box-swap"): 158.55e9,
    (3, "focused"): 67.29e9, (3, "focused-two"): 63.64e9,
    (4, "sirdey"): 50.26e9, (4, "focused"): 15.81e9,
    (5, "sirdey"): 2.330e9, (5, "focused"): 1.472e9,
    (6, "sirdey"): 0.8592e9, (6, "focused"): 0.2730e9,
}  # fmt: skip
# The model of the kernels as built now (coop_model.json: "thread" and "coop" records; 4x4, 9x9
# and the box swap keep the kernels of kernel_model_sm_90_after.json).
CARD_MODEL = {
    "thread": {
        (2, "sirdey"): 296.05e9, (2, "candidate"): 249.66e9, (2, "box-swap"): 196.79e9,
        (2, "focused"): 139.39e9, (2, "focused-two"): 128.67e9,
        (3, "sirdey"): 245.99e9, (3, "candidate"): 206.51e9, (3, "box-swap"): 158.55e9,
        (3, "focused"): 67.29e9, (3, "focused-two"): 63.64e9,
        (4, "sirdey"): 37.34e9, (4, "candidate"): 34.73e9, (4, "box-swap"): 29.12e9,
        (4, "focused"): 13.92e9, (4, "focused-two"): 12.95e9,
        (5, "sirdey"): 2.330e9, (5, "candidate"): 2.314e9, (5, "box-swap"): 1.570e9,
        (5, "focused"): 1.472e9, (5, "focused-two"): 1.151e9,
        (6, "sirdey"): 0.8592e9, (6, "candidate"): 0.4285e9, (6, "box-swap"): 0.4021e9,
        (6, "focused"): 0.2730e9, (6, "focused-two"): 0.2106e9,
    },
    "coop": {
        (4, "sirdey"): 43.48e9, (4, "candidate"): 48.52e9,
        (4, "focused"): 11.50e9, (4, "focused-two"): 7.344e9,
        (5, "sirdey"): 27.08e9, (5, "candidate"): 30.25e9,
        (5, "focused"): 8.607e9, (5, "focused-two"): 6.911e9,
        (6, "sirdey"): 6.329e9, (6, "candidate"): 6.366e9,
        (6, "focused"): 1.024e9, (6, "focused-two"): 0.7283e9,
    },
}  # fmt: skip


def family(move: str) -> str | None:
    """The move whose figures stand for `move` where it has none of its own (the same engine's
    nearest move): its declaration's `rates` (cpu_reference.sudoku.moves); None for none."""
    declared = MOVES.get(move)
    return declared.rates if declared else None


def stand_ins(move: str) -> list[str]:
    """The move and the moves whose figures stand for it, nearest first: its family, the
    family's family, ... until a move has none or one repeats."""
    chain = [move]
    while (nxt := family(chain[-1])) is not None and nxt not in chain:
        chain.append(nxt)
    return chain


def priced_as(move: str, table: dict) -> str:
    """The move name under which `table` (keys (order, move)) prices `move`: the nearest of
    stand_ins(move) that the table names at any order (itself where it has figures), else
    itself."""
    named = {m for _, m in table}
    return next((m for m in stand_ins(move) if m in named), move)


# Work of a reference puzzle: mean proposals a puzzle over 2 chains on the CPU, default
# technique (anneal_peers_9x9.json "default" on forum_hardest_1106; coop_acceptance.json
# 16x16 "focused"; anneal_peers_25x25_work.json, 40 puzzles a level at 40-50 %, whose heavy
# tail 10 a level had missed; anneal_peers_36x36_focused.json
# levels 45-60), and s0 = S0_PER_CELL x cells, fitted to the one-thread card's 25x25 run
# (gpu_solve.json l25.tsv: median 5.45 s at 2,272 chains a puzzle, 30 at once, 0.369 G/s).
MEAN_PROPOSALS = {3: 931_887.0, 4: 48_990.0, 5: 3_974_484.0, 6: 127_232_065.0}
MEAN_CHAINS = 2
S0_PER_CELL = 44.5
# The spread of a puzzle's work (the sigma of its logarithm): ln(p90 / median) / 1.2816 of the
# 16 cores' search seconds on 6,000 hardest-class 9x9 puzzles (card_vs_cores.json iso6000 cpu:
# median 1.708 ms, p90 8.719 ms).
WORK_SPREAD = 1.272
# The pool's slice: gpu_anneal.sudoku_solver.solve_stream's default slice_seconds.
SLICE = 0.2

# Fixed seconds of a fresh `gpu-anneal solve` process (card_vs_cores.json, "start": 3 easy 9x9
# puzzles, whose search is under 0.02 s; "first" with an empty cache root, "second" with the same
# root again). The cores: the whole wall, 1.541 s second and 14.448 s first. The card: its wall,
# 2.287 s second (1.483 s of it to the first slice) and 15.097 s first, less CARD_RUN.
CPU_LOAD = 1.541
CPU_COMPILE = 14.448
CARD_LOAD = 2.203
CARD_COMPILE = 15.013

# Seconds of a card run beyond the kernel: the one-puzzle run's 0.0957 s in a warm process
# (gpu_latency_after.json) less its modeled kernel time. The host's seconds a puzzle that the
# kernel waits for: 60,000 hardest-class 9x9 (card_vs_cores.json iso60000, kernel-bound: busy 93 %
# of its solve) whose 25.066 s from first slice to last status read held 23.189 s of slices.
# The cores' seconds a puzzle beyond the model's search: iso6000 on the cores, 27.579 s, less
# CPU_LOAD and 6,000 x L(m).
CARD_RUN = 0.084
HOST_CARD = 31.3e-6
HOST_CPU = 0.337e-3

# A stream is read ahead at most this far to decide (the break-even count when the card wins).
LOOKAHEAD = 20_000
MEASURE_SECONDS = 0.1  # the CPU rate's one measurement per machine, order and move
MEASURE_CHAINS = 64  # chains a thread in that measurement


# ---- the rule ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Workload:
    """What is to be solved: kind, method, order and move (Sudoku), puzzles and what was asked."""

    kind: str = "sudoku"
    method: str = "anneal"
    order: int = 3
    move: str = "focused-two"  # resolved for the order (no "auto")
    puzzles: int = 1
    more: bool = False  # a stream that may hold more than `puzzles`
    chains: int | None = None  # chains per puzzle asked
    batch: int | None = None  # puzzles at once asked
    cells: int | None = None  # grid puzzles: cells of the (first) puzzle
    size: str = ""  # grid puzzles: WIDTHxHEIGHT
    # grid puzzles, solved one at a time: the most cells at which the cores' median time a
    # puzzle is under CARD_RUN (the kind's cores_up_to); None: a pool (Sudoku)
    cores_up_to: int | None = None
    title: str = ""  # grid puzzles: the kind as messages name it


@dataclass(frozen=True)
class Cores:
    """The CPU side: rate of every thread together, threads, start-up seconds."""

    rate: float
    threads: int
    start: float
    measured: bool = False  # rate measured on this machine (else modeled from the reference)
    cached: bool = True  # the order's rules are in numba's cache


@dataclass(frozen=True)
class CardSide:
    """The card side: its kernel's rate, a full wave of chains, start-up seconds."""

    name: str
    rate: float  # 0: no rate model for this card
    wave: int
    coop: bool  # the cooperative kernel (a chain a warp) runs
    start: float
    measured: bool = False  # the rate rests on a measurement of this kernel (else the model)
    cached: bool = True  # the slice kernel is in the kernel cache


@dataclass(frozen=True)
class Choice:
    """The backend taken ("cpu" or "cuda"), why, and the predicted seconds behind it."""

    backend: str
    reason: str
    seconds: dict = field(default_factory=dict)


@functools.cache
def hardest(k: int, spread: float = WORK_SPREAD) -> float:
    """G_k: the mean of the largest of k puzzles' work over their mean work, the work lognormal
    with log-sigma `spread` (1 for k <= 1)."""
    if k <= 1:
        return 1.0
    # E[exp(spread x Z)] over the largest Z of k standard normals, times exp(-spread^2 / 2)
    step, total = 0.005, 0.0
    for i in range(3601):  # z from -8 to 10
        z = -8.0 + i * step
        tail = 0.5 * math.erfc(abs(z) / math.sqrt(2))
        log_cdf = math.log1p(-tail) if z >= 0 else math.log(tail)
        log_f = spread * z - z * z / 2 + (k - 1) * log_cdf
        total += math.exp(log_f) * (0.5 if i in (0, 3600) else 1.0)
    return k * total * step / math.sqrt(2 * math.pi) * math.exp(-spread * spread / 2)


def restart_work(order: int) -> tuple[float, float]:
    """(s0, m) of a reference puzzle of this order (see the module docstring); an order with no
    measurement takes 9x9's m scaled by its cells."""
    cells = order**4
    s0 = S0_PER_CELL * cells
    mean = MEAN_PROPOSALS.get(order, MEAN_PROPOSALS[3] * cells / 81)
    return s0, max(0.0, mean - MEAN_CHAINS * s0)


def solve_seconds(
    n: int, slots: int, cpp: int, rate: float, full: int, s0: float, m: float
) -> float:
    """Seconds of n puzzles, `slots` at a time with `cpp` chains each, on hardware running
    `full` chains at `rate` proposals a second (module docstring: solve)."""
    running = slots * cpp
    per_chain = rate * min(1.0, running / full) / running

    def latency(work: float) -> float:
        return (s0 + work / cpp) / per_chain

    last = latency(m * hardest(min(n, slots)))
    if n <= slots:
        return last
    one_round = latency(m * hardest(slots))
    if one_round > SLICE:
        one_round = max(latency(m), SLICE)
    return max(n / slots * one_round, last)


def cpu_seconds(w: Workload, cores: Cores) -> float:
    """Predicted seconds of a Sudoku workload on the cores."""
    from gpu_anneal.run_plan import cpu_chains

    slots = w.batch or 1
    cpp = w.chains or cpu_chains(cores.threads, slots)
    s0, m = restart_work(w.order)
    n = max(1, w.puzzles)
    solve = solve_seconds(n, min(slots, n), cpp, cores.rate, cores.threads, s0, m)
    return cores.start + solve + n * HOST_CPU


def card_seconds(w: Workload, card: CardSide) -> float:
    """Predicted seconds of a Sudoku workload on the card (its plan's launch)."""
    from gpu_anneal.plan import launch

    n = max(1, w.puzzles)
    slots, cpp = launch(card.wave, n, w.chains, w.batch, card.coop)
    s0, m = restart_work(w.order)
    solve = solve_seconds(n, slots, cpp, card.rate, card.wave, s0, m)
    return card.start + CARD_RUN + solve + n * HOST_CARD


def choose(
    w: Workload, cores: Cores | None, card: CardSide | None, why_no_card: str = ""
) -> Choice:
    """The backend that finishes `w` first by the model, with the reason as one line
    ("auto: cpu, 3 puzzles of 9x9: cores 1.6 s vs card 2.3 s (model: ...)"). `card` None: no
    usable card (`why_no_card` says why); the cores then, as for every method but annealing."""
    if w.method != "anneal":
        return Choice("cpu", f"cpu: --method {w.method} runs on the CPU only")
    if card is None:
        return Choice("cpu", f"auto: cpu, no usable CUDA device: {why_no_card or 'none found'}")
    if w.cores_up_to is not None:  # one puzzle at a time
        return _grid(w, card)
    if card.rate <= 0:
        return Choice("cpu", f"auto: cpu, no rate model for the card {card.name}")
    predicted = {"cpu": cpu_seconds(w, cores), "cuda": card_seconds(w, card)}
    backend = "cuda" if predicted["cuda"] < predicted["cpu"] else "cpu"
    reason = (
        f"auto: {backend}, {_what(w)}: cores {_secs(predicted['cpu'])} vs card "
        f"{_secs(predicted['cuda'])} (model: {_cores_text(cores)}; {_card_text(card)})"
    )
    return Choice(backend, reason, predicted)


def break_even(w: Workload, cores: Cores, card: CardSide, most: int = LOOKAHEAD) -> int | None:
    """The fewest puzzles (up to `most`) at which `choose` takes the card; None: not up to that
    many (the search assumes one crossing, as the model's seconds grow with n on both sides)."""
    if card.rate <= 0 or w.cores_up_to is not None or w.method != "anneal":
        return None

    def card_wins(n: int) -> bool:
        return choose(replace(w, puzzles=n), cores, card).backend == "cuda"

    low, n = 0, 1  # card_wins(low) is false (or low = 0)
    while not card_wins(n):
        if n >= most:
            return None
        low, n = n, min(most, 2 * n)
    while n - low > 1:
        middle = (low + n) // 2
        low, n = (low, middle) if card_wins(middle) else (middle, n)
    return n


def cores_at_any_count(w: Workload, cores: Cores, card: CardSide, most: int = LOOKAHEAD) -> Choice:
    """The Choice when the card wins at no count up to `most` (nothing need be read ahead)."""
    side = w.order * w.order
    at_most = choose(replace(w, puzzles=most), cores, card)
    detail = at_most.reason.split(" (model: ", 1)[1]
    reason = (
        f"auto: cpu, {side}x{side}: the cores finish first at every count up to {most:,} "
        f"puzzles (model: at {most:,}, cores {_secs(at_most.seconds['cpu'])} vs card "
        f"{_secs(at_most.seconds['cuda'])}; {detail}"
    )
    return Choice("cpu", reason, at_most.seconds)


def _grid(w: Workload, card: CardSide) -> Choice:
    limit = w.cores_up_to or 0
    name = w.title or w.kind
    if w.cells is not None and w.cells <= limit:
        return Choice(
            "cpu",
            f"auto: cpu, {name} {w.size}: solved one at a time, each would pay the card's run "
            f"overhead (~{CARD_RUN:.2f} s), above the cores' median a puzzle up to "
            f"{math.isqrt(limit)}x{math.isqrt(limit)} (model)",
        )
    return Choice(
        "cuda",
        f"auto: cuda, {name} {w.size or 'puzzles'}: larger than the sizes the cores were measured "
        f"to finish within the card's run overhead (no model above {math.isqrt(limit)}x"
        f"{math.isqrt(limit)}); {card.name}",
    )


def _what(w: Workload) -> str:
    side = w.order * w.order
    n = w.puzzles
    count = f"{n:,} puzzle{'s' if n != 1 else ''} of {side}x{side}"
    return f"at least {count} (read ahead)" if w.more else count


def _secs(x: float) -> str:
    return f"{x:.0f} s" if x >= 100 else f"{x:.2g} s"


def _rate(x: float) -> str:
    return f"{x / 1e9:.3g} G/s" if x >= 1e9 else f"{x / 1e6:.3g} M/s"


def _cores_text(c: Cores) -> str:
    how = "measured here" if c.measured else "modeled"
    start = "rules cached" if c.cached else "rules to compile"
    return f"cores {_rate(c.rate)} {how}, {c.threads} threads, {start}"


def _card_text(c: CardSide) -> str:
    kernel = "cooperative kernel" if c.coop else "one-thread kernel"
    how = "measured/model" if c.measured else "modeled"
    start = "kernels cached" if c.cached else "kernels to compile"
    return f"card {c.name} {_rate(c.rate)} {how}, {kernel}, {start}"


# ---- rates and start-up of this machine ----------------------------------------------------


def rate_key(order: int, move: str, table: dict) -> tuple[int, str] | None:
    """The key of `table` that stands for (order, move): itself, its move family's (followed
    from declaration to declaration: family()), or 9x9's for 4x4; None where none does."""
    for o in (order, 3) if order == 2 else (order,):
        for m in stand_ins(move):
            if (o, m) in table:
                return o, m
    return None


def reference_card_rate(order: int, move: str, kernel: str) -> tuple[float, bool]:
    """(proposals a second on an H100 SXM, measured) of the kernel ("thread" or "coop"): the
    model of the kernel as built now times the measured / model ratio of the nearest measured
    kernel of the same kind (itself where it was measured: its measured rate; else its move
    family's at the same order, else the nearest order's), or of the nearest measured one-thread
    kernel where no kernel of its kind was measured; (0.0, False) where there is no model."""
    models = CARD_MODEL.get(kernel, {})
    move = priced_as(move, CARD_MODEL["thread"])  # a move with no model of its own: its family's
    model = models.get((order, move))
    if not model:
        return 0.0, False
    for kind in (kernel, "thread"):
        own = CARD_MEASURED.get(kind, {})
        # the model of the kernels as they were measured: the one-thread kernels changed since
        then = CARD_MODEL_THEN if kind == "thread" else CARD_MODEL[kind]
        for other in sorted({o for o, _ in own}, key=lambda o: (abs(o - order), o)):
            near = rate_key(other, move, own)
            if near is not None:
                measured = kind == kernel and near == (order, move)
                return model * own[near] / then[near], measured
    return model, False


def reference_cpu_rate(order: int, move: str, threads: int) -> float:
    """The reference CPU's rate scaled to `threads` threads (a model; the nearest measured order
    and move as rate_key finds it)."""
    near = rate_key(order, move, CPU_RATES) or (3, "focused-two")
    return CPU_RATES[near] * threads / REFERENCE_THREADS


def cpu_name() -> str:
    """This CPU's model name (/proc/cpuinfo on Linux, else platform's)."""
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def rates_file():
    """The file that keeps this machine's measured CPU rates (in the cache root)."""
    from cpu_reference.cache import cache_root

    return cache_root() / "cpu_rates.json"


def _rate_entry(order: int, move: str, threads: int) -> str:
    import numba

    return f"{cpu_name()} | {threads} threads | order {order} | {move} | numba {numba.__version__}"


def kept_cpu_rate(order: int, move: str, threads: int) -> float | None:
    """The rate kept for this CPU, thread count, order and move, or None."""
    try:
        kept = json.loads(rates_file().read_text())
        return float(kept[_rate_entry(order, move, threads)]["proposals_per_second"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def keep_cpu_rate(order: int, move: str, threads: int, rate: float) -> None:
    """Keep a measured rate (a failure to write is ignored: it is measured again next time)."""
    path = rates_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            kept = json.loads(path.read_text())
        except (OSError, ValueError):
            kept = {}
        kept[_rate_entry(order, move, threads)] = {
            "proposals_per_second": rate,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        }
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps(kept, indent=1, sort_keys=True))
        os.replace(partial, path)
    except OSError:
        pass


def cpu_rules_cached(order: int, move: str) -> bool:
    """Whether numba's disk cache holds the CPU runner's rules of this order and move."""
    from cpu_reference.sudoku import rules

    try:
        dispatcher = rules.cpu_model(order, rules.move_code(move, order)).run_chains_cpu
        return os.path.exists(dispatcher._cache._cache_file._index_path)
    except Exception:  # noqa: BLE001 - no cache (or another numba): count it as compiling
        return False


def measure_cpu_rate(
    order: int, move: str, threads: int, seconds: float = MEASURE_SECONDS
) -> float:
    """Proposals a second of the CPU runner on every thread, as the reference figures were
    measured (gpu_anneal.measure: a grid that never solves, the native regime): MEASURE_CHAINS
    chains a thread, a one-plateau slice that loads the code, then one slice as long as the
    reference's rate for these threads would make about `seconds` (a slice's fixed cost then
    weighs little)."""
    from cpu_reference.sudoku import rules
    from cpu_reference.sudoku.batch import make_batch, run_slice_cpu
    from cpu_reference.sudoku.schedules import by_name
    from gpu_anneal.measure import NATIVE_REGIME, never_solving_puzzle

    sched = by_name(NATIVE_REGIME, order)
    chains = MEASURE_CHAINS * threads
    batch = make_batch(
        never_solving_puzzle(order)[None], order, sched, chains, seed=1,
        move=rules.move_code(move, order),
    )  # fmt: skip
    run_slice_cpu(batch, 1, stop_on_solved=False)  # loads the compiled rules
    expected = reference_cpu_rate(order, move, threads) * seconds
    budget = int(min(4096, max(1, expected / (chains * sched.plateau))))
    before = int(batch.ctr[:, rules.C_PROPOSALS].sum())
    start = time.perf_counter()
    run_slice_cpu(batch, budget, stop_on_solved=False)
    elapsed = time.perf_counter() - start
    return (int(batch.ctr[:, rules.C_PROPOSALS].sum()) - before) / elapsed


def _idle(threads: int) -> bool:
    """Whether this machine ran no more than `threads` busy processes over the last minute."""
    try:
        return os.getloadavg()[0] <= threads
    except OSError:  # no load average here
        return True


def cores_side(order: int, move: str, measure: bool = True) -> Cores:
    """This machine's cores: the rate kept for it, else measured (about MEASURE_SECONDS, only
    when the rules are cached: measuring must not compile) and kept when the machine was not
    busy, else the reference's scaled to this machine's threads; start-up by the rules' cache.
    Deleting rates_file() has the rates measured again."""
    from gpu_anneal.backends import cpu_threads

    threads = cpu_threads()
    cached = cpu_rules_cached(order, move)
    start = CPU_LOAD if cached else CPU_COMPILE
    rate = kept_cpu_rate(order, move, threads)
    if rate is None and measure and cached:
        try:
            rate = measure_cpu_rate(order, move, threads)
        except Exception:  # noqa: BLE001 - no measurement: the model below
            rate = None
        if rate is not None and _idle(threads):  # a busy machine's figure is used, not kept
            keep_cpu_rate(order, move, threads, rate)
    if rate is None:
        return Cores(reference_cpu_rate(order, move, threads), threads, start, False, cached)
    return Cores(rate, threads, start, True, cached)


def card_kernel_cached(order: int, move: str, kernel: str, cc: tuple[int, int]) -> bool:
    """Whether the kernel cache holds the slice kernel of this order and move ("thread" or
    "coop") compiled for compute capability `cc` (a kernel not kept in it compiles every time)."""
    from cpu_reference.sudoku import rules
    from gpu_anneal.kernels import kernel_cache

    try:
        code = rules.move_code(move, order)
        if kernel == "coop":
            from gpu_anneal.kernels import sudoku_coop

            fn = sudoku_coop.kernel_function(order, code)
        else:
            from gpu_anneal.kernels import sudoku as ks

            bounds = ks.launch_bounds(order, code, f"sm_{cc[0]}{cc[1]}")
            fn = ks.kernel_function(order, code, bounds)
        module = fn.__module__
        if not module.startswith(kernel_cache.PREFIX):
            return False
        return any(kernel_cache.compiled_dir().glob(f"{module}.*.nbi"))
    except Exception:  # noqa: BLE001 - nothing to tell: count it as compiling
        return False


def card_side(
    order: int,
    move: str,
    device=None,
    cc: tuple[int, int] | None = None,
    clock_mhz: float | None = None,
    cached: bool | None = None,
) -> CardSide:
    """The card's side for a Sudoku order and move: `device` a plan.Card or a described card's
    name (None: the current device); the reference rates scaled by its SMs and clock (the H100
    SXM's where the clock is unknown); start-up by the kernel cache for `cc` (`cached` given:
    taken as it is)."""
    from gpu_anneal import plan

    card = plan.resolve_card(device)
    shape = plan.kernel_shape(order, move, card)
    coop = shape["kernel"] == "coop"
    rate, measured = reference_card_rate(order, move, shape["kernel"])
    if card.name == plan.SIMULATOR.name:
        rate = 0.0
    cc, clock_mhz = _card_facts(card, cc, clock_mhz)
    rate *= card.sms / REFERENCE_SMS * (clock_mhz or REFERENCE_MHZ) / REFERENCE_MHZ
    if cached is None:
        cached = cc is not None and card_kernel_cached(order, move, shape["kernel"], cc)
    start = CARD_LOAD if cached else CARD_COMPILE
    wave = plan.wave_chains(card, shape)
    return CardSide(card.name, rate, wave, coop, start, measured, cached)


def _card_facts(card, cc, clock_mhz):
    """Compute capability and clock of a card: given, a described card's, or the device's."""
    if cc is not None and clock_mhz is not None:
        return cc, clock_mhz
    if card.described:
        from gpu_anneal.kernels import cards

        try:
            known = cards.card(card.name)
            return cc or tuple(known.cc), clock_mhz or known.boost_mhz
        except Exception:  # noqa: BLE001 - the simulator or an unknown card
            return cc, clock_mhz
    try:
        from numba import cuda

        device = cuda.get_current_device()
        cc = cc or tuple(device.compute_capability)
        clock_mhz = clock_mhz or device.CLOCK_RATE / 1000  # kHz
    except Exception:  # noqa: BLE001 - what was read stays; the rest is unknown
        pass
    return cc, clock_mhz


# ---- what the solvers call -----------------------------------------------------------------


def asked(backend: str, flags: bool = False) -> Choice | None:
    """The Choice of a backend named outright ("cpu", "cuda": BackendError without a device,
    naming the parameter as the command line does with `flags`); None for "auto"."""
    from gpu_anneal.backends import resolve_backend

    if backend == "auto":
        return None
    used = resolve_backend(backend, flags)
    return Choice(used, f"{used}: asked (--backend {backend})")


def sudoku_choice(
    backend: str,
    order: int,
    move: str,
    items: Iterable,
    chains: int | None = None,
    batch: int | None = None,
    dask: bool = False,
    flags: bool = False,
) -> tuple[Iterator, Choice]:
    """(the items, the Choice) of Sudoku annealing at one order of `move`, the move that runs
    there (a preset resolved: Settings.move_at; `flags`: a fault names --backend, as the
    command line does): auto reads a stream ahead up to
    the break-even count (at most LOOKAHEAD items, none when the card cannot win) and decides on
    what it read; the items come back whole, those read ahead first."""
    from gpu_anneal import backends

    items = iter(items)
    fixed = asked(backend, flags)
    if fixed is not None:
        return items, fixed
    usable, why = backends.cuda_status()
    if not usable:
        return items, choose(Workload(order=order), None, None, why)
    if dask:
        return items, Choice("cuda", "auto: cuda, Dask workers take a usable device (no model)")
    from cpu_reference.errors import InputError

    resolved = move  # the move that runs at this order (Settings.move_at)
    w = Workload(order=order, move=resolved, chains=chains, batch=batch)
    try:
        card = card_side(order, resolved)
    except InputError as exc:  # no kernel for this order or move on this card
        return items, Choice("cpu", f"auto: cpu, the card cannot run it: {exc}")
    if card.rate <= 0:
        return items, choose(w, None, card)
    cores = cores_side(order, resolved)
    need = break_even(w, cores, card)
    if need is None:
        return items, cores_at_any_count(w, cores, card)
    ahead = list(itertools.islice(items, need))
    w = replace(w, puzzles=max(1, len(ahead)), more=len(ahead) >= need)
    return itertools.chain(ahead, items), choose(w, cores, card)


def grid_choice(
    backend: str, spec, method: str, items: Iterable, flags: bool = False
) -> tuple[Iterator, Choice]:
    """(the items, the Choice) of Shikaku or Hashi (spec: its kind, gpu_anneal.kinds.grid): by
    the size of the first puzzle (read ahead)."""
    from gpu_anneal import backends

    items = iter(items)
    kind = spec.name
    if method != "anneal":
        return items, choose(Workload(kind=kind, method=method), None, None)
    fixed = asked(backend, flags)
    if fixed is not None:
        return items, fixed
    usable, why = backends.cuda_status()
    if not usable:
        return items, choose(Workload(kind=kind), None, None, why)
    first = next(items, None)
    if first is None:
        return items, Choice("cpu", "auto: cpu, no puzzle")
    width, _, height = first.size.partition("x")
    cells = int(width) * int(height) if width.isdigit() and height.isdigit() else None
    card = CardSide(why, 0.0, 0, False, CARD_LOAD)  # the device as cuda_status names it
    w = Workload(kind, cells=cells, size=first.size, cores_up_to=spec.cores_up_to, title=spec.title)
    return itertools.chain([first], items), choose(w, None, card)


def describe_plans(
    sources: list[str],
    s,
    device: str | None = None,
    cores: Cores | None = None,
    counts: dict[int, int] | None = None,
    **model,
) -> list[dict]:
    """The plans of a Sudoku solve on a card over these files (what `solve --dry-run` prints):
    for each order found, the pool's plan (gpu_anneal.plan.make_plan) of the run plan that
    run_plan.sudoku_plan builds from resolved settings `s` (gpu_anneal.settings.Settings) for
    the card, for as many puzzles of that order as the files hold, with `backend_choice`: why
    s.backend ("auto" or "cuda") runs where it does for them (`cores`: this CPU's side, else
    gathered). `device` names a described card (None: the current device); `counts`: the
    puzzles of each order, already counted, else read from the files; `model` goes to
    make_plan (host_seconds, rate, slice_seconds)."""
    from gpu_anneal import plan
    from gpu_anneal.run_plan import sudoku_plan

    card = plan.resolve_card(device)
    if counts is None:
        counts = plan.count_orders(sources, s.fmt)
    runs = [sudoku_plan(s, order, "cuda", "cuda: the card's plan") for order in counts]
    plans = [plan.make_plan(run, counts[run.order], card, **model) for run in runs]
    for run, one in zip(runs, plans, strict=True):
        chosen = describe_choice(
            s.backend, run.order, run.move, one["puzzles"], s.chains, s.batch, card, cores
        )
        one["backend_choice"] = chosen.reason
    return plans


def describe_cores(
    sources: list[str],
    s,
    reason: str = "",
    cores: Cores | None = None,
    counts: dict[int, int] | None = None,
) -> list[dict]:
    """The plans of a Sudoku solve on this machine's cores over these files, one per order
    found (what `solve --dry-run` prints where the run takes the cores without a card to weigh:
    none found, or --backend cpu), from the run plan run_plan.sudoku_plan builds from resolved
    settings `s` for the CPU: puzzles at once, chains each, threads, and the seconds the model
    predicts for that many puzzles of the reference class (`cpu_seconds`); `reason` says why
    the cores run it (`cores`: this CPU's side for every order, else gathered; `counts`: the
    puzzles of each order, already counted, else read from the files)."""
    from gpu_anneal import plan
    from gpu_anneal.run_plan import sudoku_plan

    plans = []
    if counts is None:
        counts = plan.count_orders(sources, s.fmt)
    for order, n in counts.items():
        run = sudoku_plan(s, order, "cpu", reason)
        side = cores or cores_side(order, run.move)
        w = Workload(order=order, move=run.move, puzzles=n, chains=s.chains, batch=s.batch)
        plans.append({
            "model": True, "order": order, "puzzles": n, "move": run.move,
            "threads": side.threads, "slots": run.slots or 1,
            "chains_per_puzzle": run.chains,
            "seconds": cpu_seconds(w, side), "start_seconds": side.start,
            "cores": _cores_text(side),
            "backend_choice": reason,
        })  # fmt: skip
    return plans


def format_cores_plan(one: dict) -> str:
    """A plan of describe_cores as a few lines of text, every modeled figure labelled."""
    side = one["order"] * one["order"]
    n = one["puzzles"]
    slots, cpp = one["slots"], one["chains_per_puzzle"]
    return "\n".join([
        f"plan (model) for {n:,} puzzle{'s' if n != 1 else ''}, {side}x{side}, move "
        f"{one['move']}, on this machine's CPU cores",
        f"  backend: {one['backend_choice']}",
        f"  launch: {slots:,} puzzle{'s' if slots != 1 else ''} at once x {cpp:,} chain"
        f"{'s' if cpp != 1 else ''} = {slots * cpp:,} chains on {one['threads']} threads",
        f"  predicted (model, puzzles as hard as the reference class): {_secs(one['seconds'])}"
        f", {_secs(one['start_seconds'])} of it to start ({one['cores']})",
    ])  # fmt: skip


def describe_choice(
    backend: str,
    order: int,
    move: str,
    puzzles: int,
    chains: int | None = None,
    batch: int | None = None,
    device=None,
    cores: Cores | None = None,
) -> Choice:
    """The Choice for `puzzles` puzzles of one order on `device` (a described card's name, or
    None: the current one), as `solve --dry-run` prints it; `cores` given: this CPU's side as it
    is (else gathered: cores_side). `move`: the move that runs at this order (a run plan's)."""
    if backend != "auto":  # a plan describes a card without needing one here
        return Choice(backend, f"{backend}: asked (--backend {backend})")
    w = Workload(order=order, move=move, puzzles=puzzles, chains=chains, batch=batch)
    card = card_side(order, move, device)
    return choose(w, cores or cores_side(order, move), card)
