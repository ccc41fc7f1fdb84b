"""The public API: solve puzzles of every kind by every method, one `Result` per puzzle.

    solve(puzzles, ...)          -> list[Result] in input order
    solve_stream(puzzles, ...)   -> Result after Result, in completion order
    solve_on_dask(puzzles, ...)  -> the same stream, computed on a Dask cluster
    replay(puzzles, chain, ...)  -> one chain of an annealing run, re-run alone on the CPU

The three solve functions share one signature. A parameter that does not apply to the chosen kind
and method must be left at None (or False): setting it raises InputError naming it, it is never
ignored silently. Which parameter applies where:

    parameter                 sudoku anneal   sudoku exact   shikaku/hashi anneal   ilp
    chains seed schedule t0   yes             -              yes                    -
    max_trials                yes             -              yes                    -
    move                      yes             -              shikaku only           -
    time_limit                yes             -              yes                    yes
    propagate batch           yes             -              -                      -
    scheduler workers         yes (Dask)      -              -                      -
    fmt order                 yes             yes            -                      -
    backend                   yes             cpu only       yes                    cpu only

Reproducibility: chain i of the q-th puzzle draws RNG stream q * chains + i whatever the batch,
backend or Dask chunking, and the reported chain is chosen from the seed alone, so the solving
chain, its trials, proposals and grid repeat for the same seed and chains. With several chains per
puzzle the totals (counts.trials, counts.proposals) also count the other chains' work up to the
moment the puzzle was stopped, which depends on thread timing.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

from cpu_reference.errors import InputError
from cpu_reference.sudoku.exact_rules import RULES as EXACT_RULES
from cpu_reference.sudoku.formats import FORMATS, iter_puzzles, parse_line
from gpu_anneal import solvers, validate
from gpu_anneal.backends import BACKENDS
from gpu_anneal.inputs import Item, as_sources, game_id, parse_grid_puzzle, read
from gpu_anneal.kinds import KINDS, kind_of
from gpu_anneal.kinds.base import PARAMETERS
from gpu_anneal.results import Result
from gpu_anneal.resume import ResumeFile

METHODS = {name: spec.methods for name, spec in KINDS.items()}
MOVES = {name: spec.moves for name, spec in KINDS.items() if spec.moves}
FLAGS = {"fmt": "format"}  # parameters the command line names otherwise

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
    method: str = "anneal",
    backend: str = "auto",
    chains: int | None = None,
    seed: int | None = None,
    schedule: str | None = None,
    move: str | None = None,
    t0: float | None = None,
    time_limit: float | None = None,
    max_trials: int | None = None,
    propagate: bool = False,
    rules: str | None = None,
    batch: int | None = None,
    fmt: str | None = None,
    order: int | None = None,
    resume: str | None = None,
    on_input_error: Callable[[InputError], None] | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
) -> list[Result]:
    """Solve every puzzle; results in input order (see solve_stream for the parameters)."""
    results = list(
        solve_stream(
            puzzles,
            kind=kind,
            method=method,
            backend=backend,
            chains=chains,
            seed=seed,
            schedule=schedule,
            move=move,
            t0=t0,
            time_limit=time_limit,
            max_trials=max_trials,
            propagate=propagate,
            rules=rules,
            batch=batch,
            fmt=fmt,
            order=order,
            resume=resume,
            on_input_error=on_input_error,
            scheduler=scheduler,
            workers=workers,
        )  # fmt: skip
    )
    return sorted(results, key=lambda r: r.index)


def solve_stream(
    puzzles,
    *,
    kind: str = "sudoku",
    method: str = "anneal",
    backend: str = "auto",
    chains: int | None = None,
    seed: int | None = None,
    schedule: str | None = None,
    move: str | None = None,
    t0: float | None = None,
    time_limit: float | None = None,
    max_trials: int | None = None,
    propagate: bool = False,
    rules: str | None = None,
    batch: int | None = None,
    fmt: str | None = None,
    order: int | None = None,
    resume: str | None = None,
    on_input_error: Callable[[InputError], None] | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
) -> Iterator[Result]:
    """Solve every puzzle, yielding each Result as it finishes (completion order).

    puzzles: a path or "-" (stdin), a list of paths, puzzle text, a Sudoku array uint8[cells] or
        uint8[P, cells], parsed puzzles, or Items from `read` (gpu_anneal.inputs.read).
    kind: sudoku | shikaku | hashi.  method: anneal | exact (Sudoku) | ilp (Shikaku, Hashi;
        "exact" is taken as ilp there).  backend: auto | cpu | cuda (auto: with a usable device,
        the backend the model predicts finishes first, gpu_anneal.backend_choice, a stream read
        ahead to decide; each result's params.backend_choice says why; cuda without a device
        raises BackendError).
    chains: chains per puzzle (default: fill the machine, the same in one process and on Dask:
        Sudoku ceil(threads / batch) on the CPU, on CUDA each puzzle's share of a full wave
        (gpu_anneal.plan); Shikaku/Hashi 16 or 4096).
    Sudoku annealing with none of schedule, move, t0 and propagate given runs the best
        measured technique: schedule "auto", move "auto", propagation first
        (cpu_reference.sudoku.presets.DEFAULT_TECHNIQUE). Give any of them and the others
        default to Sirdey's published algorithm: schedule="sirdey-course", move="sirdey".
    seed: seed of every chain's stream (default 0).  schedule: Sudoku: sirdey-course |
        sirdey-paper | geometric | band | auto (presets: cpu_reference.sudoku.presets), with
        ":key=value,..." overrides; Shikaku/Hashi:
        "geometric[:t0=..,t_final=..,n_plateaus=..,plateau=..]".  t0: start temperature.
    move: Sudoku sirdey | candidate | box-swap | focused; Shikaku all (default) | pruned |
        propagated.  time_limit: seconds per puzzle (default 60; 0 = no limit; Sudoku exact
        has none: it stops at a node cap).  max_trials: trials per
        puzzle over all its chains.  propagate: Sudoku's deduction rules first (hybrid).
    batch: Sudoku puzzles annealed at once (a pool: solved puzzles leave, the next enter; on
        Dask the chunk size, default 8).  fmt, order: Sudoku input format and order (detected).
    resume: a JSON-lines results file: a puzzle is skipped when a record holds it solved with
        its identity (kind, order, line, givens_hash) and a solution the verifier accepts;
        other records are ignored, counted in a ResumeWarning (gpu_anneal.resume).
    on_input_error: called with each malformed puzzle's InputError (the others are still
        solved); None raises the first one.
    scheduler, workers: run Sudoku annealing on Dask (a scheduler address, or a local cluster
        of that many workers); see solve_on_dask.

    Ctrl-C: results of puzzles still running are yielded with status "interrupted", then
    KeyboardInterrupt is raised.
    """
    s = _settings(
        kind, method, backend, chains, seed, schedule, move, t0, time_limit, max_trials,
        propagate, batch, fmt, order, scheduler, workers, rules,
    )  # fmt: skip
    items = _items(puzzles, s.kind, fmt, order, resume, on_input_error)
    return kind_of(s.kind).solve(items, s)


def solve_on_dask(
    puzzles,
    *,
    kind: str = "sudoku",
    method: str = "anneal",
    backend: str = "auto",
    chains: int | None = None,
    seed: int | None = None,
    schedule: str | None = None,
    move: str | None = None,
    t0: float | None = None,
    time_limit: float | None = None,
    max_trials: int | None = None,
    propagate: bool = False,
    rules: str | None = None,
    batch: int | None = None,
    fmt: str | None = None,
    order: int | None = None,
    resume: str | None = None,
    on_input_error: Callable[[InputError], None] | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
) -> Iterator[Result]:
    """solve_stream on a Dask cluster (Sudoku annealing; `pip install .[dask]`).

    scheduler: address of a running distributed scheduler; workers: start a local cluster of
    that many one-thread workers (closed at the end); neither: one local worker per core. Each
    chunk of `batch` puzzles (default 8) is one task; results equal a one-process run with the
    same seed and chains (the compile time on the workers is not measured: timing.compile 0).
    """
    if scheduler is None and workers is None:
        workers = os.cpu_count() or 1
    return solve_stream(
        puzzles, kind=kind, method=method, backend=backend, chains=chains, seed=seed,
        schedule=schedule, move=move, t0=t0, time_limit=time_limit, max_trials=max_trials,
        propagate=propagate, rules=rules, batch=batch, fmt=fmt, order=order, resume=resume,
        on_input_error=on_input_error, scheduler=scheduler, workers=workers,
    )  # fmt: skip


def replay(
    puzzles,
    chain: int,
    *,
    chains: int,
    seed: int | None = None,
    schedule: str | None = None,
    move: str | None = None,
    t0: float | None = None,
    time_limit: float | None = None,
    max_trials: int | None = None,
    propagate: bool = False,
    fmt: str | None = None,
    order: int | None = None,
    on_input_error: Callable[[InputError], None] | None = None,
) -> Result:
    """Re-run chain `chain` of a Sudoku annealing run with `chains` chains per puzzle, alone on
    the CPU: a chain that solved in the run solves here after the same trials and proposals, at
    the same grid. The chain belongs to puzzle chain // chains of the input. Give the run's
    settings (propagate included: the chain annealed the propagated puzzle)."""
    if chains is None:
        raise InputError("--replay-chain needs --chains: the run's chains per puzzle")
    chain = validate.replay_chain(chain)
    s = _settings(
        "sudoku", "anneal", "cpu", chains, seed, schedule, move, t0, time_limit, max_trials,
        propagate, None, fmt, order, None, None,
    )  # fmt: skip
    wanted = chain // chains
    for item in _items(puzzles, "sudoku", fmt, order, None, on_input_error):
        if item.index == wanted:
            return solvers.replay(item, chain, s)
    raise InputError(f"--replay-chain {chain}: the input has no puzzle {wanted}")


def _settings(
    kind, method, backend, chains, seed, schedule, move, t0, time_limit, max_trials,
    propagate, batch, fmt, order, scheduler, workers, rules=None,
) -> solvers.Settings:  # fmt: skip
    """Check choices and applicability; fill defaults."""
    propagate, schedule = validate.flag("--propagate", propagate), validate.schedule_text(schedule)
    _choice("kind", kind, KINDS)
    spec = kind_of(kind)
    method = spec.method(method)
    _choice("method", method, spec.methods, f" for {kind}")
    _choice("backend", backend, BACKENDS)
    anneal = method == "anneal"
    given = {
        "chains": chains, "seed": seed, "schedule": schedule, "t0": t0,
        "max_trials": max_trials, "move": move, "propagate": propagate or None, "batch": batch,
        "scheduler": scheduler, "workers": workers, "fmt": fmt, "order": order,
        "time_limit": time_limit, "rules": rules,
    }  # fmt: skip
    _refuse(spec, method, given)
    if backend == "cuda" and method not in spec.cuda_methods:
        raise InputError(f"--backend cuda: --method {method} runs on the CPU only")
    if rules is not None:
        _choice("rules", rules, EXACT_RULES)
    if move is not None:
        _choice("move", move, spec.moves, f" for {kind}")
    if fmt is not None:
        _choice("format", fmt, FORMATS)
    if scheduler is not None and workers is not None:
        raise InputError("--scheduler and --workers: give one, not both")
    batch, workers = validate.batch(batch), validate.workers(workers)
    max_trials, order = validate.max_trials(max_trials), validate.order(order)
    chains = validate.chains(chains, (order or 3) ** 4, batch or 1)
    seed, t0, time_limit = validate.seed(seed), validate.t0(t0), validate.time_limit(time_limit)
    schedule, move, propagate = spec.technique(method, schedule, move, t0, propagate)
    if anneal and schedule is not None:
        spec.check_schedule(schedule, order, t0)
    return solvers.Settings(
        kind=kind, method=method, backend=backend, chains=chains,
        seed=(0 if seed is None else int(seed)) if anneal else None,
        schedule=schedule if anneal else None,
        move=move, t0=t0,
        time_limit=spec.time_limit(method, time_limit),
        max_trials=max_trials, propagate=bool(propagate), batch=batch, scheduler=scheduler,
        workers=workers, rules=(rules or "fast") if spec.takes("rules", method) else None,
    )  # fmt: skip


def _choice(name: str, value, allowed, where: str = "") -> None:
    if value not in allowed:
        raise InputError(f"--{name} {value!r}: expected one of {', '.join(allowed)}{where}")


def _refuse(spec, method: str, given: dict) -> None:
    """InputError naming the first parameter given that the method does not take: first those
    another method of the kind takes ("does not apply to --method exact"), then those the kind
    never takes ("does not apply to --kind hashi")."""
    wrong = [p for p in PARAMETERS if given.get(p) is not None and not spec.takes(p, method)]
    for name in sorted(wrong, key=lambda p: not spec.takes(p)):
        flag = "--" + FLAGS.get(name, name).replace("_", "-")
        if spec.takes(name):
            note = spec.refusal_notes.get((method, name))
            where = f"--method {method}" + (f" ({note})" if note else "")
        else:
            where = f"--kind {spec.name}"
        raise InputError(f"{flag} does not apply to {where}")


def _items(puzzles, kind, fmt, order, resume, on_input_error) -> Iterator[Item]:
    """The good Items of the input, faults passed to on_input_error (or raised); puzzles that a
    trusted record of the resume file holds are skipped (gpu_anneal.resume)."""
    sources = as_sources(puzzles)
    done = ResumeFile.load(resume, sources) if resume is not None else None
    for item in read(sources, kind, fmt=fmt, order=order):
        if isinstance(item, InputError):
            if on_input_error is None:
                raise item
            on_input_error(item)
        elif done is None or not done.holds(item):
            yield item
    if done is not None:
        done.report()


def parse_puzzles(text_or_path, kind: str = "sudoku") -> list[Item]:
    """Every puzzle of a path or of puzzle text, parsed (InputError on the first fault)."""
    return list(_items(text_or_path, kind, None, None, None, None))
