"""`gpu-anneal solve` for Sudoku: read puzzles as a stream, solve in batches, write each result."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from cli.output import (
    EXIT_BAD_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_UNSOLVED,
    error_line,
    grid_text,
    write_record,
)
from cli.progress import RunProgress
from cpu_reference.errors import InputError
from cpu_reference.sudoku.formats import Puzzle, iter_puzzles
from cpu_reference.sudoku.verify import verify_solution
from gpu_anneal.resume import solved_indices
from gpu_anneal.sudoku_solver import InterruptedBatch, SolveResult, replay_chain, solve_stream


@dataclass
class SolveOptions:
    """The solve command's settings, as parsed by the CLI."""

    method: str = "anneal"
    backend: str = "auto"
    chains: int | None = None
    seed: int = 0
    time_limit: float | None = 60.0
    max_trials: int | None = None
    schedule: str = "sirdey-course"
    fmt: str | None = None
    output: str = "text"
    batch: int | None = None
    replay_chain: int | None = None
    move: str = "sirdey"
    out: str | None = None
    resume: bool = False
    t0: float | None = None
    propagate: bool = False
    scheduler: str | None = None
    workers: int | None = None

    def schedule_for(self, order: int):
        """The named schedule of an order, started at t0 when one is given."""
        from cpu_reference.sudoku.schedules import with_start

        return with_start(self.schedule, order, self.t0)


class Tally:
    """Counts what happened, to choose the exit code."""

    def __init__(self) -> None:
        self.bad_input = 0
        self.unsolved = 0
        self.interrupted = False

    def exit_code(self) -> int:
        """2 on bad input, 130 on Ctrl-C, 1 if a puzzle stayed unsolved, else 0."""
        if self.bad_input:
            return EXIT_BAD_INPUT
        if self.interrupted:
            return EXIT_INTERRUPTED
        return EXIT_UNSOLVED if self.unsolved else EXIT_OK


def read_all(
    sources: list[str], fmt: str | None, tally: Tally, check: bool = True
) -> Iterator[Puzzle]:
    """Puzzles of every source in turn; faults are reported on stderr and counted, not raised."""
    for source in sources or ["-"]:
        name = "<stdin>" if source == "-" else source
        try:
            for item in iter_puzzles(source, fmt=fmt, name=name, check=check):
                if isinstance(item, InputError):
                    error_line(str(item))
                    tally.bad_input += 1
                else:
                    yield item
        except InputError as exc:
            error_line(str(exc))
            tally.bad_input += 1


def _text(cells, puzzle: Puzzle) -> str | None:
    """A grid written in the puzzle's own format."""
    return grid_text(cells, puzzle.order, puzzle.fmt, puzzle.name)


def result_record(puzzle: Puzzle, index: int, result: SolveResult) -> dict:
    """The JSON object of one annealed puzzle."""
    return {
        "index": index,
        "line": puzzle.line,
        "name": puzzle.name,
        "order": puzzle.order,
        "solved": result.solved,
        "verified": result.verified,
        "solution": _text(result.solution, puzzle),
        "best": None
        if result.solved
        else grid_text(result.best, puzzle.order, puzzle.fmt, puzzle.name),
        "method": "anneal",
        "backend": result.backend,
        "cost": result.cost,
        "trials": result.trials,
        "proposals": result.proposals,
        "seconds": round(result.seconds, 6),
        "chains": result.chains,
        "seed": result.seed,
        "schedule": result.schedule,
        "solving_chain": result.solving_chain,
        "chain_trials": result.extra.get("chain_trials"),
        "chain_proposals": result.extra.get("chain_proposals"),
        "error": result.error,
    }


# Branch nodes the exact method spends before it gives up counting (a few seconds at 25x25).
EXACT_NODES = 2_000_000


def exact_record(puzzle: Puzzle, index: int) -> dict:
    """Solve one puzzle with the exact solver, counting solutions up to two.

    A search that passes EXACT_NODES nodes switches to randomised restarts for one solution;
    uniqueness is then unknown (null), and with no solution found the puzzle is unsolved.
    """
    import time

    from cpu_reference.sudoku.exact import solve_exact, solve_restarts

    start = time.perf_counter()
    count, solution, nodes = solve_exact(puzzle.cells, puzzle.order, limit=2, max_nodes=EXACT_NODES)
    if count < 0:  # the ordered search hit its cap: randomised restarts find a solution
        found, solution, more = solve_restarts(puzzle.cells, puzzle.order, max_nodes=EXACT_NODES)
        nodes += more
        count = -1 if found > 0 else found
    seconds = time.perf_counter() - start
    error = None
    verified = False
    if count == 0:
        error = "no solution"
    elif count < 0 and not np.any(solution):
        error = f"search stopped after {nodes} nodes without an answer"
    else:
        error = verify_solution(solution, puzzle.order, puzzle.cells)
        verified = error is None
    return {
        "index": index,
        "line": puzzle.line,
        "name": puzzle.name,
        "order": puzzle.order,
        "solved": verified,
        "verified": verified,
        "unique": count == 1 if count > 0 else None,
        "solutions": "2+" if count >= 2 else (count if count >= 0 else None),
        "solution": grid_text(solution, puzzle.order, puzzle.fmt, puzzle.name)
        if verified
        else None,
        "method": "exact",
        "backend": "cpu",
        "cost": 0 if verified else None,
        "trials": None,
        "proposals": None,
        "nodes": int(nodes),
        "seconds": round(seconds, 6),
        "error": error,
    }


def run_solve(sources: list[str], opts: SolveOptions) -> int:
    """Solve every puzzle of the sources; returns the exit code.

    Records go to stdout, or are appended to `opts.out` (also the file `--resume` reads: puzzle
    indices already solved there are skipped). Each record is flushed as soon as it is known.
    """
    tally = Tally()
    done = solved_indices(opts.out) if opts.resume else set()
    sink = open(opts.out, "a", encoding="utf-8") if opts.out else None  # noqa: SIM115
    try:
        emit = _emitter(opts, tally, sink)
        puzzles = (
            (index, puzzle)
            for index, puzzle in enumerate(read_all(sources, opts.fmt, tally))
            if index not in done
        )
        if opts.method == "exact":
            for index, puzzle in puzzles:
                emit(exact_record(puzzle, index))
            return tally.exit_code()
        if opts.replay_chain is not None:
            return _replay(puzzles, opts, emit)
        try:
            _anneal_stream(puzzles, opts, emit)
        except KeyboardInterrupt:  # InterruptedBatch too: what it holds was written
            tally.interrupted = True
        return tally.exit_code()
    finally:
        if sink is not None:
            sink.close()


def _emitter(opts: SolveOptions, tally: Tally, sink):
    """A function writing one record (stdout or the output file) and counting unsolved ones."""

    def emit(record: dict) -> None:
        tally.unsolved += not record["solved"]
        if sink is None:
            write_record(record, opts.output)
        else:
            import json

            sink.write(json.dumps(record) + "\n")
            sink.flush()

    return emit


def _anneal_stream(puzzles, opts: SolveOptions, emit) -> None:
    """Anneal the stream in a pool per order (the first order streams, others follow)."""
    held: dict[int, list[tuple[int, Puzzle]]] = {}
    first_order: list[int] = []

    def main_stream():
        for index, puzzle in puzzles:
            if not first_order:
                first_order.append(puzzle.order)
            if puzzle.order == first_order[0]:
                yield index, puzzle
            else:
                held.setdefault(puzzle.order, []).append((index, puzzle))

    stream = main_stream()
    head = next(stream, None)
    if head is None:
        return
    _anneal_order(head[1].order, itertools.chain([head], stream), opts, emit)
    for order, items in held.items():
        _anneal_order(order, iter(items), opts, emit)


def _anneal_order(order: int, items, opts: SolveOptions, emit) -> None:
    """Run one pool over (index, puzzle) items of one order; records emitted as they finish."""
    by_index: dict[int, Puzzle] = {}

    def cells():
        for index, puzzle in items:
            by_index[index] = puzzle
            yield index, puzzle.cells

    def write(result: SolveResult) -> None:
        puzzle = by_index.pop(result.index)
        record = result_record(puzzle, result.index, result)
        record["move"] = result.move
        emit(record)

    settings = dict(
        schedule=opts.schedule_for(order), chains=opts.chains, seed=opts.seed,
        time_limit=opts.time_limit, max_trials=opts.max_trials, backend=opts.backend,
        move=opts.move, propagate=opts.propagate,
    )  # fmt: skip
    if opts.scheduler or opts.workers:
        stream = _dask_stream(cells(), order, opts, settings)
    else:
        stream = solve_stream(cells(), order, slots=opts.batch or 1, **settings)
    with RunProgress() as progress:
        try:
            for result in stream:
                write(result)
                progress.advance(result.solved)
        except InterruptedBatch as stop:
            for result in stop.results:
                write(result)
            raise


def _dask_stream(items, order: int, opts: SolveOptions, settings: dict):
    """Results from a Dask cluster (--scheduler ADDRESS or --workers N), in completion order.

    The cluster takes whole chunks, so the puzzles are read first; each result keeps its index
    and its chains' streams, so the results equal a single-process run with the same seed.
    """
    from gpu_anneal.scale import solve_on_dask

    pairs = list(items)
    if not pairs:
        return
    indices = [index for index, _ in pairs]
    if indices != list(range(indices[0], indices[0] + len(indices))):
        raise InputError("--scheduler/--workers: mixed orders or --resume gaps are not supported")
    settings = dict(settings, chains=settings["chains"] or 1)
    cells = np.stack([c for _, c in pairs])
    for result in solve_on_dask(
        cells, order, scheduler=opts.scheduler, workers=opts.workers, chunk=opts.batch or 8,
        **settings,
    ):  # fmt: skip
        result.index += indices[0]
        yield result


def _replay(puzzles, opts: SolveOptions, emit) -> int:
    """Re-run chain I (of a run with --chains K over the same file) alone on the CPU."""
    if opts.chains is None:
        raise InputError("--replay-chain needs --chains, the chains per puzzle of the run")
    if opts.replay_chain < 0:
        raise InputError(f"--replay-chain {opts.replay_chain}: must be 0 or more")
    wanted = opts.replay_chain // opts.chains
    for index, puzzle in puzzles:
        if index != wanted:
            continue
        result = replay_chain(
            puzzle.cells, puzzle.order, opts.replay_chain, chains=opts.chains, seed=opts.seed,
            schedule=opts.schedule_for(puzzle.order), max_trials=opts.max_trials,
            time_limit=opts.time_limit, move=opts.move,
        )  # fmt: skip
        record = result_record(puzzle, index, result)
        record.update(replayed_chain=opts.replay_chain, backend="cpu", move=opts.move)
        emit(record)
        return EXIT_OK if result.solved else EXIT_UNSOLVED
    raise InputError(f"--replay-chain {opts.replay_chain}: the input has no puzzle {wanted}")
