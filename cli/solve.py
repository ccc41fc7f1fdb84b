"""`gpu-anneal solve`: hand the parsed options to gpu_anneal.api, print each result as it comes.

No solving, verification, Dask or resume logic lives here: `api.solve_stream` does all of it.
Records go to stdout (text or JSON lines) and, with `--out` (or `--resume`), are also appended
to that file as JSON lines (`--quiet` leaves stdout empty then), flushed one by one so that a
crash or Ctrl-C loses nothing already finished. The progress line (cli.progress) is on stderr
only, on a terminal; reading puzzles from a terminal, a hint says how to end the input.
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass, field

from cli.input_count import count_puzzles
from cli.output import error_line, write_result
from cli.progress import RunProgress, messages_above
from cli.tally import Tally
from cpu_reference.errors import InputError
from gpu_anneal import api, datasets, validate
from gpu_anneal.inputs import file_names
from gpu_anneal.kinds import kind_of
from gpu_anneal.resume import open_results


@dataclass
class SolveRequest:
    """The solve command's options, as parsed (None: not given)."""

    files: list[str] = field(default_factory=list)
    example: str | None = None
    kind: str | None = None
    method: str = "anneal"
    backend: str = "auto"
    chains: int | None = None
    seed: int | None = None
    time_limit: float | None = None
    max_trials: int | None = None
    schedule: str | None = None
    fmt: str | None = None
    output: str = "text"
    batch: int | None = None
    move: str | None = None
    t0: float | None = None
    propagate: bool = False
    rules: str | None = None
    scheduler: str | None = None
    workers: int | None = None
    out: str | None = None
    resume: str | None = None
    replay_chain: int | None = None
    quiet: bool = False

    def sources_and_kind(self) -> tuple[list[str], str]:
        """The input files and the kind (an example brings its own kind)."""
        if self.example is None:
            return file_names(self.files or ["-"]), self.kind or "sudoku"
        if self.files:
            raise InputError("--example: give an example or files, not both")
        shipped = datasets.get(self.example)
        if self.kind not in (None, shipped.kind):
            held = f"{shipped.kind} puzzles, not {self.kind}"
            raise InputError(f"--example {self.example} holds {held}")
        return file_names([str(datasets.path(self.example))]), shipped.kind


def run_solve(req: SolveRequest) -> int:
    """Solve every puzzle of the request's input; returns the exit code."""
    sources, kind = req.sources_and_kind()
    if req.out is not None and req.resume is not None and req.out != req.resume:
        raise InputError("--out and --resume: --resume appends to its own file; give one")
    validate.not_an_input("--out", req.out, sources)
    validate.not_an_input("--resume", req.resume, sources)
    tally = Tally()
    from_terminal = "-" in sources and sys.stdin.isatty()
    work = "annealing" if req.method == "anneal" else "solving"
    progress = RunProgress(enabled=False if req.quiet or from_terminal else None, work=work)

    def fault(error: InputError) -> None:
        tally.fault(error)
        progress.advance(False)

    settings = dict(
        kind=kind, method=req.method, backend=req.backend, chains=req.chains, seed=req.seed,
        schedule=req.schedule, move=req.move, t0=req.t0, time_limit=req.time_limit,
        max_trials=req.max_trials, fmt=req.fmt, on_input_error=fault,
    )  # fmt: skip
    if req.replay_chain is not None:
        validate.replay_request(kind_of(kind), req.method, out=req.out, resume=req.resume)
        if req.rules is not None:
            raise InputError("--rules does not apply to --method anneal")
        settings.pop("kind"), settings.pop("method"), settings.pop("backend")
        result = api.replay(sources, req.replay_chain, propagate=req.propagate, **settings)
        _emit(result, req, tally, None)
        return tally.exit_code()
    stream = api.solve_stream(
        sources, propagate=req.propagate, rules=req.rules, batch=req.batch, resume=req.resume,
        scheduler=req.scheduler, workers=req.workers, **settings,
    )  # fmt: skip
    if req.scheduler is not None or req.workers is not None:
        from gpu_anneal.scale import require_dask

        require_dask(req.scheduler)  # a missing extra or a malformed address: one line, exit 2
    if from_terminal and not req.quiet:
        error_line("reading puzzles from the terminal; end with Ctrl-D")
    path = req.resume if req.resume is not None else req.out
    option = "--resume" if req.resume is not None else "--out"
    sink = open_results(path, option) if path is not None else None
    try:
        with progress, messages_above(progress):
            if progress.enabled and req.resume is None:
                count_in_background(progress, sources, kind, req.fmt)
            for result in stream:
                _emit(result, req, tally, sink)
                progress.advance(result.solved)
    except KeyboardInterrupt:
        tally.interrupted = True
    finally:
        if sink is not None:
            sink.close()
    if not req.quiet and sys.stderr.isatty():
        error_line(f"{tally.solved} solved, {tally.unsolved} unsolved, {tally.bad_input} bad")
    return tally.exit_code()


def count_in_background(progress: RunProgress, sources, kind: str, fmt: str | None) -> None:
    """Count the input's puzzles in a daemon thread and give the progress line the total."""

    def count() -> None:
        progress.set_total(count_puzzles(sources, kind, fmt))

    threading.Thread(target=count, name="count-puzzles", daemon=True).start()


def _emit(result, req: SolveRequest, tally: Tally, sink) -> None:
    """Count one result; write it to the sink (a JSON line) and, unless --quiet with a sink,
    to stdout (text or a JSON line)."""
    tally.solved += result.solved
    tally.unsolved += not result.solved
    if sink is not None:
        sink.write(result.to_json() + "\n")
        sink.flush()
    if sink is None or not req.quiet:
        write_result(result, req.output)
