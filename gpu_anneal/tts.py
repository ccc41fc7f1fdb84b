"""Time to solution, measured the way the annealing literature does.

Glossary:
    R        independent runs per puzzle (distinct RNG streams; one chain each)
    T_r      trials run r started (a solved run ends in its last trial)
    S        runs that solved
    p        success probability of one trial, estimated as S / sum_r T_r (the maximum
             likelihood estimate for trials that succeed independently with probability p)
    t_trial  seconds of one core per trial: the runs' core-seconds / sum_r T_r (each run holds
             one core from its start to its end, compilation excluded)
    TTS99    t_trial * ln(0.01) / ln(1 - p): one core's time to solve with probability 0.99 by
             restarting; on the whole machine (every core restarting independently) divide by
             the number of cores

On the CPU each run of a puzzle runs alone on one core (a one-slot pool, one numba thread), as many
runs at once as there are cores, in threads (the CPU runner releases the GIL); a run's seconds are
its own. Runs put in one pool instead would share its slices: a slice ends when the slowest of its
chains does, so a run that solved early would be charged the seconds its core then waited.
Where numba's threading layer is not thread-safe (workqueue) the runs go one after the other.
On CUDA the runs share the pool and the card's rate gives the seconds. The interval on p is
Clopper-Pearson (95 %, scipy.stats.binomtest(...).proportion_ci). The interval on TTS99 maps an
interval on p through TTS99, which falls as p rises: a BCa bootstrap over runs (95 %,
scipy.stats.bootstrap, resampling (solved, trials) pairs), or Clopper-Pearson's where the
bootstrap has no spread (every run solved in its first trial, or none solved) or fewer than two
runs, so an interval never has zero width because all resamples agree.
"""

from __future__ import annotations

import inspect
import math
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass

import numba
import numpy as np
from numba.np.ufunc.parallel import _launch_threads

from cpu_reference.sudoku import rules
from cpu_reference.sudoku.batch import make_batch, run_slice_cpu
from cpu_reference.sudoku.layout import layout
from cpu_reference.sudoku.schedules import Schedule
from gpu_anneal.backends import cpu_threads, resolve_backend
from gpu_anneal.measure import measure_throughput
from gpu_anneal.sudoku_solver import solve_batch


@dataclass
class TtsResult:
    """Time-to-solution figures of one puzzle."""

    index: int
    givens: int
    fill: float
    runs: int
    solved_runs: int
    trials: int
    p: float
    p_low: float
    p_high: float
    mean_trials: float
    seconds_per_trial: float
    tts99: float
    tts99_low: float
    tts99_high: float
    tts99_machine: float
    cores: int
    wall_seconds: float
    backend: str = "cpu"  # where the runs ran, as the solver reports it

    def as_dict(self) -> dict:
        """Plain dict for JSON (infinities and NaN as None)."""
        return finite_or_none(asdict(self))


def finite_or_none(values: dict) -> dict:
    """The dict with its infinite and NaN floats as None, so that it is JSON."""
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
            for k, v in values.items()}  # fmt: skip


def tts99(t_trial: float, p: float) -> float:
    """Seconds to reach 99 % success by restarts: t_trial ln(0.01) / ln(1 - p)."""
    if p <= 0:
        return math.inf
    if p >= 1:
        return t_trial
    return t_trial * math.log(0.01) / math.log1p(-p)


def clopper_pearson(successes: int, trials: int, level: float = 0.95) -> tuple[float, float]:
    """Exact binomial interval for a success probability (scipy's binomtest, method exact)."""
    from scipy.stats import binomtest  # late: scipy.stats costs ~0.5 s

    if trials == 0:
        return 0.0, 1.0
    ci = binomtest(int(successes), int(trials)).proportion_ci(level, method="exact")
    return float(ci.low), float(ci.high)


def tts99_interval(
    solved: np.ndarray,
    trials: np.ndarray,
    t_trial: float,
    *,
    level: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float]:
    """(low, high) of TTS99 from runs' (solved, trials): BCa bootstrap of p over runs mapped
    through TTS99, or Clopper-Pearson's interval on p where the bootstrap has no spread."""
    from scipy.stats import bootstrap  # late: scipy.stats costs ~0.5 s

    solved = np.asarray(solved, dtype=np.int64)
    trials = np.asarray(trials, dtype=np.int64)
    low = high = math.nan
    if len(trials) >= 2 and trials.sum() > 0:
        rng = np.random.default_rng(seed)
        key = "rng" if "rng" in inspect.signature(bootstrap).parameters else "random_state"
        with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
            warnings.simplefilter("ignore")  # degenerate resamples: handled below
            res = bootstrap(
                (solved, trials), lambda s, t, axis: s.sum(axis) / t.sum(axis), paired=True,
                vectorized=True, method="BCa", confidence_level=level, n_resamples=resamples,
                **{key: rng},
            )  # fmt: skip
        low, high = (float(x) for x in res.confidence_interval)
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        low, high = clopper_pearson(int(solved.sum()), int(trials.sum()), level)
    return tts99(t_trial, high), tts99(t_trial, low)


def runs_alone(puzzle: np.ndarray, order: int, runs: int, cores: int, **options) -> list:
    """`runs` CPU runs of one puzzle (solve_batch `options`, one chain each), each alone on one
    core, `cores` at a time: SolveResults in run order.

    Run r is position r of the stream (first_index = first_chain = r), so it draws the chain and
    follows the trajectory it would have in a pool of every run.
    """
    cells = np.asarray(puzzle, np.uint8)[None]

    def one(r: int):
        numba.set_num_threads(1)  # numba's thread count is per calling thread
        return solve_batch(cells, order, slots=1, first_index=r, first_chain=r, **options)[0]

    workers = min(cores, runs)
    if workers > 1 and threadsafe_layer():
        with ThreadPoolExecutor(workers) as pool:
            return list(pool.map(one, range(runs)))
    before = numba.get_num_threads()
    try:
        return [one(r) for r in range(runs)]
    finally:
        numba.set_num_threads(before)


def threadsafe_layer() -> bool:
    """Whether numba's threading layer lets threads run parallel functions at once (omp, tbb;
    not workqueue), the layer started first where no parallel function has run yet."""
    try:
        layer = numba.threading_layer()
    except ValueError:  # not started yet
        _launch_threads()
        layer = numba.threading_layer()
    return layer in ("omp", "tbb")


def measure_puzzle(
    puzzle: np.ndarray,
    order: int,
    *,
    runs: int,
    schedule: Schedule | str,
    move: str = "sirdey",
    seed: int = 0,
    time_limit: float = 60.0,
    backend: str = "cpu",
    propagate: bool = False,
    index: int = 0,
    bootstrap: int = 2000,
    core_rate: float | None = None,
) -> TtsResult:
    """R independent runs of one puzzle, one chain each, as many at once as there are cores.

    On the CPU each run holds one core from start to end, alone (runs_alone), so its seconds
    are core-seconds, and seconds per trial are their sum over the trials of all runs
    (compilation excluded). With `core_rate` (proposals per second of one core, or of the
    whole card) they are the mean proposals per trial divided by it instead: exact
    arithmetic, for tests and GPU runs.
    With `propagate`, every run first applies the exact solver's deduction rules (the hybrid);
    a run that they solve outright counts as one trial.
    """
    used = resolve_backend(backend)
    cores = cpu_threads() if used == "cpu" else 1
    options = dict(
        schedule=schedule, chains=1, seed=seed, time_limit=time_limit, backend=used, move=move,
        propagate=propagate,
    )  # fmt: skip
    start = time.perf_counter()
    if used == "cpu":
        results = runs_alone(puzzle, order, runs, cores, **options)
    else:
        copies = np.repeat(np.asarray(puzzle, np.uint8)[None], runs, axis=0)
        results = solve_batch(copies, order, slots=runs, **options)
    wall = time.perf_counter() - start
    solved = np.array([r.solved for r in results])
    trials = np.maximum(np.array([r.trials for r in results]), solved)
    total = int(trials.sum())
    p = float(solved.sum() / total) if total else 0.0
    low, high = clopper_pearson(int(solved.sum()), total)
    proposals = sum(r.proposals for r in results)
    if core_rate is not None or used != "cpu":
        rate = core_rate or core_rate_of(order, move, used)
        t_trial = proposals / max(total, 1) / rate
    else:
        t_trial = sum(r.seconds for r in results) / max(total, 1)
    tts_low, tts_high = tts99_interval(solved, trials, t_trial, resamples=bootstrap, seed=seed)
    lay = layout(order)
    givens = int(np.count_nonzero(puzzle))
    tts = tts99(t_trial, p)
    return TtsResult(
        index=index,
        givens=givens,
        fill=givens / lay.cells,
        runs=runs,
        solved_runs=int(solved.sum()),
        trials=total,
        p=p,
        p_low=low,
        p_high=high,
        mean_trials=total / max(int(solved.sum()), 1) if solved.any() else math.inf,
        seconds_per_trial=t_trial,
        tts99=tts,
        tts99_low=tts_low,
        tts99_high=tts_high,
        tts99_machine=tts / cores,
        cores=cores,
        wall_seconds=wall,
        backend=results[0].backend if results else used,
    )


def percentile(values: np.ndarray, q: float) -> float:
    """The q-th percentile of times that may be infinite (never solved): infinite where it
    falls between two infinite ones, where numpy's interpolation gives NaN and a warning."""
    with np.errstate(invalid="ignore"):
        value = float(np.percentile(values, q))
    return math.inf if math.isnan(value) else value


def summarize(rows: list[TtsResult]) -> dict:
    """Median and 90th percentile of TTS99 (core and machine) and of p over puzzles."""
    tts = np.array([r.tts99 for r in rows], dtype=float)
    machine = np.array([r.tts99_machine for r in rows], dtype=float)
    return {
        "puzzles": len(rows),
        "solved_any": int(sum(r.solved_runs > 0 for r in rows)),
        "tts99_median": float(np.median(tts)),
        "tts99_p90": percentile(tts, 90),
        "tts99_machine_median": float(np.median(machine)),
        "tts99_machine_p90": percentile(machine, 90),
        "p_median": float(np.median([r.p for r in rows])),
        "mean_trials_median": float(np.median([r.mean_trials for r in rows])),
        "seconds_per_trial_median": float(np.median([r.seconds_per_trial for r in rows])),
    }


def trace_run(
    puzzle: np.ndarray,
    order: int,
    schedule: Schedule,
    *,
    move: str = "sirdey",
    seed: int = 0,
    every: int = 100,
    max_plateaus: int | None = None,
) -> dict:
    """Cost and acceptance rate against temperature along one trial of one chain (CPU)."""
    batch = make_batch(
        np.asarray(puzzle)[None], order, schedule, 1, seed, 1, 0, rules.move_code(move, order)
    )
    limit = max_plateaus or schedule.max_plateaus
    temps, costs, rates = [], [], []
    k = 0
    while k < limit and batch.ctr[0, rules.C_STATUS] == rules.RUNNING:
        before_p = batch.ctr[0, rules.C_PROPOSALS]
        before_a = batch.ctr[0, rules.C_ACCEPTED]
        run_slice_cpu(batch, every, stop_on_solved=False)
        proposed = batch.ctr[0, rules.C_PROPOSALS] - before_p
        if proposed == 0:
            break
        temps.append(1.0 / schedule.beta(k))
        costs.append(int(batch.ctr[0, rules.C_COST]))
        rates.append(float((batch.ctr[0, rules.C_ACCEPTED] - before_a) / proposed))
        k += every
        if batch.ctr[0, rules.C_PLATEAU] < 0:  # the trial ended (stall or T_f)
            break
    return {"temperature": temps, "cost": costs, "acceptance": rates,
            "solved": bool(batch.ctr[0, rules.C_STATUS] == rules.SOLVED)}  # fmt: skip


def core_rate_of(order: int, move: str = "sirdey", backend: str = "cpu", seconds: float = 1.5):
    """Proposals per second of one core (CPU: all-core rate / threads; GPU: whole card)."""
    result = measure_throughput(order, seconds, backend, move=move)
    threads = result["threads"] or 1
    return result["proposals_per_second"] / threads
