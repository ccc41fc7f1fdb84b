"""The public API: solve puzzles of every kind by every method, one `Result` per puzzle.

    solve(puzzles, ...)          -> list[Result] in input order
    solve_stream(puzzles, ...)   -> Result after Result, in completion order
    solve_on_dask(puzzles, ...)  -> the same stream, computed on a Dask cluster
    replay(puzzles, chain, ...)  -> one chain of an annealing run, re-run alone on the CPU

The three solve functions share one signature, declared once (gpu_anneal.settings.SolveOptions,
which the command line builds too) and resolved once into a frozen Settings
(gpu_anneal.resolve); nothing below re-checks it. A parameter that does not apply to the chosen
kind and method must be left at None (fixed_chains at False): setting it raises InputError
naming it (as the API spells it: `time_limit`), it is never ignored silently. Which parameter
applies where:

    parameter                 sudoku anneal   sudoku exact   shikaku/hashi anneal   ilp
    chains seed schedule t0   yes             -              yes                    -
    max_trials                yes             -              yes                    -
    move                      yes             -              shikaku only           -
    time_limit                yes             yes (1)        yes                    yes
    technique propagate       yes             -              -                      -
    threads total_time        yes             yes            yes                    yes
    batch fixed_chains pool   yes             -              -                      -
    lanes                     impasse (2)     -              -                      -
    scheduler workers         yes (Dask)      -              -                      -
    fmt order                 yes             yes            -                      -
    backend                   yes             cpu only       yes                    cpu only

    (1) no default: the search stops at its node cap unless a time limit is given.
    (2) Sudoku --method impasse on backend cuda alone.

Reproducibility: chain i of the q-th puzzle draws RNG stream q * chains + i whatever the batch,
backend or Dask chunking, and the reported chain is chosen from the seed alone, so the solving
chain, its trials, proposals and grid repeat for the same seed and chains. With several chains per
puzzle the totals (counts.trials, counts.proposals) also count the other chains' work up to the
moment the puzzle was stopped, which depends on thread timing. On CUDA, once the input is
exhausted, the slots that fall empty give the puzzles still running spare chains
(counts.spare_chains), and a spare chain may solve first, which depends on timing: it replays
like any other, but the reported chain repeats only with fixed_chains=True.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

from cpu_reference.errors import InputError
from cpu_reference.sudoku.formats import iter_puzzles, parse_line
from gpu_anneal import method_choice, solvers, validate
from gpu_anneal.inputs import Item, as_sources, game_id, parse_grid_puzzle, read
from gpu_anneal.kinds import KINDS, kind_of
from gpu_anneal.method_choice import AUTO
from gpu_anneal.resolve import resolve
from gpu_anneal.results import Result
from gpu_anneal.resume import ResumeFile
from gpu_anneal.settings import API, Naming, Settings, SolveOptions

METHODS = {name: spec.methods for name, spec in KINDS.items()}
MOVES = {name: spec.moves for name, spec in KINDS.items() if spec.moves}

__all__ = [
    "Result",
    "game_id",
    "iter_puzzles",
    "parse_grid_puzzle",
    "parse_line",
    "parse_puzzles",
    "read",
    "replay",
    "solve",
    "solve_on_dask",
    "solve_stream",
]


def solve(
    puzzles,
    *,
    kind: str = "sudoku",
    method: str = "auto",
    backend: str = "auto",
    chains: int | None = None,
    seed: int | None = None,
    technique: str | None = None,
    schedule: str | None = None,
    move: str | None = None,
    t0: float | None = None,
    time_limit: float | None = None,
    max_trials: int | None = None,
    propagate: bool | None = None,
    rules: str | None = None,
    batch: int | None = None,
    fmt: str | None = None,
    order: int | None = None,
    resume: str | None = None,
    on_input_error: Callable[[InputError], None] | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    fixed_chains: bool = False,
    threads: int | None = None,
    total_time: float | None = None,
    pool: str | None = None,
    lanes: int | None = None,
) -> list[Result]:
    """Solve every puzzle; results in input order (see solve_stream for the parameters)."""
    results = list(run(puzzles, resolve(SolveOptions.of(locals()))))
    return sorted(results, key=lambda r: r.index)


def solve_stream(
    puzzles,
    *,
    kind: str = "sudoku",
    method: str = "auto",
    backend: str = "auto",
    chains: int | None = None,
    seed: int | None = None,
    technique: str | None = None,
    schedule: str | None = None,
    move: str | None = None,
    t0: float | None = None,
    time_limit: float | None = None,
    max_trials: int | None = None,
    propagate: bool | None = None,
    rules: str | None = None,
    batch: int | None = None,
    fmt: str | None = None,
    order: int | None = None,
    resume: str | None = None,
    on_input_error: Callable[[InputError], None] | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    fixed_chains: bool = False,
    threads: int | None = None,
    total_time: float | None = None,
    pool: str | None = None,
    lanes: int | None = None,
) -> Iterator[Result]:
    """Solve every puzzle, yielding each Result as it finishes (completion order).

    puzzles: a path or "-" (stdin), a list of paths, puzzle text, an open file (read as a file),
        a Sudoku array or nested list ((cells,) or (N, N) one grid, a flat list of ints one grid,
        (P, cells) or (P, N, N) P grids; a (16, 16) array needs order= to say which), parsed
        puzzles, or Items from `read` (gpu_anneal.inputs.read); a wrong one is an InputError
        naming `puzzles`.
    kind: sudoku | shikaku | hashi.  method: auto | anneal | exact (Sudoku) | impasse (Sudoku:
        heat-bath chains on partial legal grids, held at t0) | ilp (Shikaku, Hashi; "exact" is
        taken as ilp there). auto (the default): Sudoku by the impasse chains at 25x25 to
        64x64 on the cores (at 25x25, and at 36x36 and 49x49 near full, after the exact
        search for one solution, up to impasse_solver.EXACT_FIRST_NODES' branch values: a
        puzzle it answers is reported as method exact, uniqueness unknown), by annealing
        elsewhere, on a card and wherever an option only annealing takes is given
        (gpu_anneal.method_choice); Shikaku and Hashi by annealing.
    backend: auto | cpu | cuda (auto: with a usable device, the backend the model predicts
        finishes first, gpu_anneal.backend_choice, a stream read ahead to decide; each result's
        params.backend_choice says why; cuda without a device raises BackendError).
    chains: chains per puzzle (default: fill the machine, the same in one process and on Dask:
        Sudoku ceil(threads / batch) on the CPU, on CUDA each puzzle's share of a full wave
        (gpu_anneal.plan); Sudoku's impasse chains one a CPU thread, on CUDA 4096 a thread each
        or at lanes=32 one full wave of warps at the puzzle's order; Shikaku/Hashi 16 or 4096).
    technique: Sudoku annealing's set of schedule, move and propagate: "default" (when None),
        the best measured: schedule "auto", move "auto", propagation first; "published":
        Sirdey's algorithm, schedule "sirdey-course", move "sirdey", no propagation
        (cpu_reference.sudoku.presets.TECHNIQUES). Each of schedule, move and propagate given
        replaces that part alone; t0 restarts whichever schedule runs. Each result's params
        record the schedule, move, t0 and propagate that ran.
    seed: seed of every chain's stream (default 0).  schedule: Sudoku: sirdey-course |
        sirdey-paper | geometric | band | auto (presets: cpu_reference.sudoku.presets), with
        ":key=value,..." overrides; Shikaku/Hashi:
        "geometric[:t0=..,t_final=..,n_plateaus=..,plateau=..]".  t0: start temperature.
    move: Sudoku sirdey | candidate | box-swap | focused; Shikaku all (default) | pruned |
        propagated.  time_limit: seconds per puzzle (default 60; 0 = no limit; Sudoku exact:
        none unless given, it stops at a node cap).  max_trials: trials per
        puzzle over all its chains.  propagate: Sudoku's deduction rules first (hybrid):
        True, False (none), None (the technique's).
    batch: Sudoku puzzles annealed at once (a pool: solved puzzles leave, the next enter; on
        Dask the chunk size, default 8).  fmt, order: Sudoku input format and order (detected).
    resume: a JSON-lines results file: a puzzle is skipped when a record holds it solved with
        its identity (kind, order, line, givens_hash) and a solution the verifier accepts;
        other records are ignored, counted in a ResumeWarning (gpu_anneal.resume).
    on_input_error: called with each malformed puzzle's InputError (the others are still
        solved); None raises the first one.
    scheduler, workers: run Sudoku annealing on Dask (a scheduler address, or a local cluster
        of that many workers); see solve_on_dask.
    fixed_chains: Sudoku annealing keeps each puzzle to its `chains` to the end. By default, on
        CUDA, once the input is exhausted the slots that fall empty take spare chains of the
        puzzles still running (counts.spare_chains), which finishes the last hard puzzles
        sooner; which chain then solves first depends on timing.
    threads: numba's threads for the run (1..NUMBA_NUM_THREADS; default: as they are, one per
        core), in the calling thread while the stream runs; the default chains per puzzle on
        the CPU follow it.
    total_time: seconds for the whole call (default: no budget). When they are spent, the
        puzzles still running are yielded with status "interrupted", their state as it stands
        and error "interrupted: the run's total time is spent", and the stream ends; puzzles not
        read yet get no result (a `resume` file run again goes on with them). A read of "-"
        waits as Python's stdin does (the command line's "-" stops at its deadline:
        gpu_anneal.waiting_stdin).

    A puzzle proved to have no solution is yielded with status "no_solution" as soon as it is
    proved, by deduction or by a capped exact search once it has annealed half a second
    (gpu_anneal.sudoku_solver), not after the time limit.
    pool: Sudoku annealing on CUDA: "persistent" (one launch of the persistent kernel for the
        whole input: resident chains take their next puzzle from a device queue,
        gpu_anneal.persistent_pool; one chain a thread, or a warp where the cooperative kernel
        runs) or
        "slices" (the slice pool: gpu_anneal.sudoku_solver). None: persistent on a card where it
        serves, slices otherwise. The CPU backend takes either and runs as ever.
    lanes: Sudoku method "impasse" on backend "cuda": threads a chain, 1 (a thread, the
        default) or 32 (a warp, its lanes over the drawn cell's candidates:
        gpu_anneal.kernels.impasse_warp); the chains take the same moves either way.

    Ctrl-C: results of puzzles still running are yielded with status "interrupted", then
    KeyboardInterrupt is raised.
    """
    return run(puzzles, resolve(SolveOptions.of(locals())))


def solve_on_dask(
    puzzles,
    *,
    kind: str = "sudoku",
    method: str = "auto",
    backend: str = "auto",
    chains: int | None = None,
    seed: int | None = None,
    technique: str | None = None,
    schedule: str | None = None,
    move: str | None = None,
    t0: float | None = None,
    time_limit: float | None = None,
    max_trials: int | None = None,
    propagate: bool | None = None,
    rules: str | None = None,
    batch: int | None = None,
    fmt: str | None = None,
    order: int | None = None,
    resume: str | None = None,
    on_input_error: Callable[[InputError], None] | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    fixed_chains: bool = False,
    threads: int | None = None,
    total_time: float | None = None,
    pool: str | None = None,
    lanes: int | None = None,
) -> Iterator[Result]:
    """solve_stream on a Dask cluster (Sudoku annealing; `pip install .[dask]`).

    scheduler: address of a running distributed scheduler; workers: start a local cluster of
    that many one-thread workers (closed at the end); neither: one local worker per core. Each
    chunk of `batch` puzzles (default 8) is one task; results equal a one-process run with the
    same seed and chains (the compile time on the workers is not measured: timing.compile 0).
    InputError for another kind or method (they run with solve and solve_stream).
    """
    _dask_runs(kind, method)
    if scheduler is None and workers is None:
        workers = os.cpu_count() or 1
    return run(puzzles, resolve(SolveOptions.of(locals())))


def _dask_runs(kind, method) -> None:
    """InputError naming a kind or method (by the registry: those that take `workers`) that
    solve_on_dask does not run; a name no kind or method has is left to resolve to name."""
    spec = kind_of(kind) if isinstance(kind, str) and kind in KINDS else None
    if spec is None or not isinstance(method, str) or spec.method(method) not in spec.methods:
        return
    if not spec.takes("workers"):
        what = f"kind {kind!r}"
    elif not spec.takes("workers", spec.method(method)):
        what = f"method {method!r}"
    else:
        return
    raise InputError(f"solve_on_dask runs Sudoku annealing only (method 'anneal'), not {what}; "
                     "solve and solve_stream run it")  # fmt: skip


def run(puzzles, settings: Settings) -> Iterator[Result]:
    """Solve the puzzles with settings resolved already (gpu_anneal.resolve.resolve: the API's
    functions resolve theirs, the command line its own, naming flags); completion order."""
    stream = kind_of(settings.kind).solve(_items(puzzles, settings), settings)
    if settings.threads is None and settings.total_time is None:
        return stream
    return _bounded(stream, settings.threads, settings.total_time)


def _bounded(stream: Iterator[Result], threads: int | None, total_time: float | None):
    """The stream run on `threads` numba threads (None: as they are) within `total_time`
    seconds from its first result asked (None: no budget): once they are spent, the solvers
    report what they hold, as on Ctrl-C (gpu_anneal.interrupts), and the stream ends."""
    import time

    import numba

    from gpu_anneal import interrupts

    interrupts.reset_budget()
    deadline = None if total_time is None else time.perf_counter() + total_time
    while True:
        before = numba.get_num_threads()
        try:
            with interrupts.until(deadline):
                if threads is not None:
                    numba.set_num_threads(threads)
                result = next(stream)
        except StopIteration:
            return
        except KeyboardInterrupt:
            if interrupts.spent():
                return  # the budget: every result it stopped was yielded before
            raise
        finally:
            numba.set_num_threads(before)
        yield result


def replay(
    puzzles,
    chain: int,
    *,
    chains: int,
    method: str = "auto",
    seed: int | None = None,
    technique: str | None = None,
    schedule: str | None = None,
    move: str | None = None,
    t0: float | None = None,
    time_limit: float | None = None,
    max_trials: int | None = None,
    propagate: bool | None = None,
    fmt: str | None = None,
    order: int | None = None,
    on_input_error: Callable[[InputError], None] | None = None,
) -> Result:
    """Re-run chain `chain` of a Sudoku annealing run with `chains` chains per puzzle, alone on
    the CPU: a chain that solved in the run solves here after the same trials and proposals, at
    the same grid. The chain belongs to puzzle chain // chains of the input. Give the run's
    settings (technique and propagate included: the chain annealed the propagated puzzle).
    method "impasse": a chain of an impasse run (seed, t0 and time_limit apply); "auto": the
    method auto runs the puzzle with on the cores (gpu_anneal.method_choice)."""
    options = SolveOptions(
        kind="sudoku", method=method, backend="cpu", chains=chains, seed=seed,
        technique=technique, schedule=schedule, move=move, t0=t0, time_limit=time_limit,
        max_trials=max_trials, propagate=propagate, fmt=fmt, order=order,
        on_input_error=on_input_error,
    )  # fmt: skip
    return replay_run(puzzles, chain, options)


def replay_run(puzzles, chain: int, options: SolveOptions, naming: Naming = API) -> Result:
    """replay with its options given as SolveOptions, messages naming parameters by `naming`."""
    if options.chains is None:
        raise InputError(f"{naming('chain')} needs {naming('chains')}: the run's chains per "
                         "puzzle")  # fmt: skip
    chain = validate.replay_chain(chain, naming("chain"))
    s = resolve(options, naming)
    from gpu_anneal.sudoku_solver import puzzle_of_stream

    wanted = puzzle_of_stream(chain, s.chains)
    for item in _items(puzzles, s):
        if item.index == wanted:
            if s.method == AUTO:
                s = method_choice.settings_for(s, method_choice.method_for(item.order, False))
            if s.method == "impasse":
                from gpu_anneal.impasse_solver import replay as impasse_replay

                return impasse_replay(item, chain, s)
            return solvers.replay(item, chain, s)
    raise InputError(f"{naming.value('chain', chain)}: the input has no puzzle {wanted}")


def _items(puzzles, s: Settings) -> Iterator[Item]:
    """The good Items of the input, faults passed to s.on_input_error (or raised); puzzles that
    a trusted record of the resume file holds are skipped (gpu_anneal.resume)."""
    sources = as_sources(puzzles)
    done = None
    if s.resume is not None:
        done = ResumeFile.load(s.resume, sources, s.naming("resume"))
    for item in read(sources, s.kind, fmt=s.fmt, order=s.order):
        if isinstance(item, InputError):
            if s.on_input_error is None:
                raise item
            s.on_input_error(item)
        elif done is None or not done.holds(item):
            yield item
    if done is not None:
        done.report()


def parse_puzzles(text_or_path, kind: str = "sudoku") -> list[Item]:
    """Every puzzle of a path or of puzzle text, parsed (InputError on the first fault)."""
    return list(_items(text_or_path, resolve(SolveOptions(kind=kind))))
