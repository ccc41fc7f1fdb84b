"""`gpu-anneal solve` for Sudoku: read puzzles as a stream, solve in batches, write each result."""

from __future__ import annotations

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
from cpu_reference.errors import InputError
from cpu_reference.sudoku_formats import Puzzle, iter_puzzles
from cpu_reference.sudoku_verify import verify_solution
from gpu_anneal.sudoku_solver import SolveResult, batched, replay_chain, solve_batch


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


def result_record(puzzle: Puzzle, index: int, result: SolveResult) -> dict:
    """The JSON object of one annealed puzzle."""
    return {
        "index": index,
        "line": puzzle.line,
        "name": puzzle.name,
        "order": puzzle.order,
        "solved": result.solved,
        "verified": result.verified,
        "solution": grid_text(result.solution, puzzle.order, puzzle.fmt),
        "best": None if result.solved else grid_text(result.best, puzzle.order, puzzle.fmt),
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


def exact_record(puzzle: Puzzle, index: int) -> dict:
    """Solve one puzzle with the exact solver, counting solutions up to two."""
    import time

    from cpu_reference.sudoku_exact import solve_exact

    start = time.perf_counter()
    count, solution, nodes = solve_exact(puzzle.cells, puzzle.order, limit=2)
    seconds = time.perf_counter() - start
    error = None
    verified = False
    if count == 0:
        error = "no solution"
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
        "unique": count == 1 if count else None,
        "solutions": "2+" if count >= 2 else count,
        "solution": grid_text(solution, puzzle.order, puzzle.fmt) if verified else None,
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
    """Solve every puzzle of the sources; returns the exit code."""
    tally = Tally()
    puzzles = enumerate(read_all(sources, opts.fmt, tally))
    if opts.method == "exact":
        for index, puzzle in puzzles:
            record = exact_record(puzzle, index)
            tally.unsolved += not record["solved"]
            write_record(record, opts.output)
        return tally.exit_code()
    if opts.replay_chain is not None:
        return _replay(puzzles, opts, tally)
    size = opts.batch or 1
    for chunk in batched(puzzles, size):
        by_order: dict[int, list[tuple[int, Puzzle]]] = {}
        for index, puzzle in chunk:
            by_order.setdefault(puzzle.order, []).append((index, puzzle))
        for order, items in by_order.items():
            try:
                _anneal_group(order, items, opts, tally)
            except KeyboardInterrupt:  # InterruptedBatch too: its results were already written
                tally.interrupted = True
                return tally.exit_code()
    return tally.exit_code()


def _anneal_group(order: int, items: list[tuple[int, Puzzle]], opts, tally: Tally) -> None:
    cells = np.stack([puzzle.cells for _, puzzle in items])

    def emit(result: SolveResult) -> None:
        index, puzzle = items[result.index]
        record = result_record(puzzle, index, result)
        tally.unsolved += not result.solved
        write_record(record, opts.output)

    solve_batch(
        cells,
        order,
        schedule=opts.schedule,
        chains=opts.chains,
        seed=opts.seed,
        time_limit=opts.time_limit,
        max_trials=opts.max_trials,
        backend=opts.backend,
        first_chain=items[0][0] * (opts.chains or 1),
        on_result=emit,
    )


def _replay(puzzles, opts: SolveOptions, tally: Tally) -> int:
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
            schedule=opts.schedule, max_trials=opts.max_trials, time_limit=opts.time_limit,
        )  # fmt: skip
        record = result_record(puzzle, index, result)
        record.update(replayed_chain=opts.replay_chain, backend="cpu")
        tally.unsolved += not result.solved
        write_record(record, opts.output)
        return tally.exit_code()
    raise InputError(f"--replay-chain {opts.replay_chain}: the input has no puzzle {wanted}")
