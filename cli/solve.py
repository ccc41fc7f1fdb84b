"""`gpu-anneal solve`: hand the parsed options to gpu_anneal.api, print each result as it comes.

No solving, verification, Dask or resume logic lives here: `api.solve_stream` does all of it.
Records go to stdout (text or JSON lines) and, with `--out` (or `--resume`), are also appended
to that file as JSON lines (`--quiet` leaves stdout empty then), flushed one by one so that a
crash or Ctrl-C loses nothing already finished. When stdout takes no more (closed, full, a pipe
whose reader has gone: cli.streams) the run stops with one line saying how many results it
finished and that the --out file holds every one of them, exit code 2. The progress line
(cli.progress) is on stderr only, on a terminal (or, with --progress, where stderr is no
terminal, as plain lines); with --resume its total holds the puzzles the file has solved
already. Reading puzzles from a terminal, a hint says how to end the input. Every run ends with
one summary line on stderr (what was solved, unsolved, proved to have no solution, interrupted,
bad), unless --quiet.

Text output on a terminal for a few puzzles (GRID_AT_MOST) prints each solution as a grid
(--output grid, cli.grid_view); elsewhere one line each (--output text).
"""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass, field, replace

from cli.input_count import count_puzzles
from cli.output import error_line, write_result
from cli.progress import RunProgress, messages_above
from cli.streams import StdoutLost
from cli.tally import Tally
from gpu_anneal import api, datasets, interrupts, timeline, validate
from gpu_anneal.inputs import file_names
from gpu_anneal.kinds import kind_of
from gpu_anneal.reference import InputError, OutputError
from gpu_anneal.resolve import resolve
from gpu_anneal.resume import open_results
from gpu_anneal.settings import CLI, SolveOptions


@dataclass
class SolveRequest:
    """The solve command's options, as parsed: the solve options (the API's declaration,
    gpu_anneal.settings.SolveOptions; its kind is set from --kind or the example) and the
    command line's own (None: not given)."""

    options: SolveOptions = field(default_factory=SolveOptions)
    files: list[str] = field(default_factory=list)
    example: str | None = None
    kind: str | None = None
    output: str | None = None  # None: grid on a terminal for a few puzzles, else text
    out: str | None = None
    replay_chain: int | None = None
    quiet: bool = False
    verbose: bool = False  # print the start-up timeline (gpu_anneal.timeline) at the end
    progress: bool | None = None  # None: on a terminal only

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
    """Solve every puzzle of the request's input; returns the exit code. With --verbose the
    start-up timeline follows on stderr, however the run ends."""
    timeline.mark("imports")
    try:
        return _run_solve(req)
    finally:
        timeline.mark("exit")
        if req.verbose:
            print(timeline.text(), file=sys.stderr, flush=True)


def _run_solve(req: SolveRequest) -> int:
    sources, kind = req.sources_and_kind()
    resume = req.options.resume
    if req.out is not None and resume is not None and req.out != resume:
        raise InputError("--out and --resume: --resume appends to its own file; give one")
    validate.not_an_input("--out", req.out, sources)
    validate.not_an_input("--resume", resume, sources)
    tally = Tally()
    from_terminal = "-" in sources and sys.stdin.isatty()
    work = "annealing" if req.options.method == "anneal" else "solving"
    shown = req.progress if not (req.quiet or from_terminal) else False
    progress = RunProgress(enabled=shown, work=work)
    req = replace(req, output=req.output or default_output(sources, kind, req.options.fmt))
    started = time.perf_counter()

    def fault(error: InputError) -> None:
        tally.fault(error)
        progress.advance(False)

    options = replace(req.options, kind=kind, on_input_error=fault)
    if req.replay_chain is not None:
        validate.replay_request(kind_of(kind), options.method, out=req.out, resume=resume)
        # the replayed chain runs alone on the CPU, one puzzle: no pool, cluster or backend
        options = replace(options, backend="cpu", batch=None, scheduler=None, workers=None)
        result = api.replay_run(sources, req.replay_chain, options, CLI)
        _emit(result, req, tally, None)
        return _ended(tally, started, options, None, req.quiet)
    stream = api.run(sources, resolve(options, CLI))
    if options.scheduler is not None or options.workers is not None:
        from gpu_anneal.scale import require_dask

        # a missing extra or a malformed address: one line
        require_dask(options.scheduler, "--scheduler")
    if from_terminal and not req.quiet:
        error_line("reading puzzles from the terminal; end with Ctrl-D")
    path = resume if resume is not None else req.out
    option = "--resume" if resume is not None else "--out"
    sink = open_results(path, option) if path is not None else None
    try:
        with progress, messages_above(progress):
            if progress.enabled:
                count_in_background(progress, sources, kind, options.fmt, resume)
            for result in stream:
                _emit(result, req, tally, sink)
                progress.advance(result.solved)
    except KeyboardInterrupt:
        tally.interrupted = True
    except StdoutLost as lost:
        _stop(stream)
        done = tally.results()
        kept = f", every one in {path}" if sink is not None else ""
        raise OutputError(f"{lost}; the run stopped after {done} result(s){kept}") from None
    finally:
        if sink is not None:
            sink.close()
    return _ended(tally, started, options, path, req.quiet)


def _ended(tally: Tally, started: float, options: SolveOptions, path, quiet: bool) -> int:
    """The run's end: whether --total-time stopped it (tally.time_spent), its summary line
    (unless quiet), and its exit code."""
    tally.time_spent = options.total_time is not None and interrupts.spent()
    if not quiet:
        error_line(summary_line(tally, time.perf_counter() - started, options, path))
    return tally.exit_code()


def summary_line(tally: Tally, seconds: float, options: SolveOptions, path: str | None) -> str:
    """The run's closing line: its counts and seconds, and why it stopped early (Ctrl-C, or
    --total-time spent: tally.time_spent, with how to go on)."""
    text = f"{tally.counts_text()} in {seconds:.1f} s"
    spent = tally.time_spent
    if tally.interrupted or spent:
        why = f"--total-time {options.total_time:g} s spent" if spent else "interrupted"
        go_on = f": --resume {path} goes on" if path is not None else ""
        text += f"; stopped, {why}{go_on}"
    return text


GRID_AT_MOST = 5  # text output on a terminal: grids for at most this many puzzles


def default_output(sources: list[str], kind: str, fmt: str | None) -> str:
    """The output when none is asked: grid where stdout is a terminal and the input holds at
    most GRID_AT_MOST puzzles (counted cheaply: cli.input_count), else text."""
    try:
        terminal = sys.stdout.isatty()
    except (AttributeError, ValueError, OSError):
        terminal = False
    if not terminal:
        return "text"
    count = count_puzzles(sources, kind, fmt)
    return "grid" if count is not None and count <= GRID_AT_MOST else "text"


def _stop(stream) -> None:
    """End the solving stream early (its workers and pools stop; a Ctrl-C meanwhile is the
    caller's)."""
    close = getattr(stream, "close", None)
    if close is not None:
        close()


def count_in_background(
    progress: RunProgress, sources, kind: str, fmt: str | None, resume: str | None = None
) -> None:
    """Count the input's puzzles in a daemon thread and give the progress line the total; with
    a --resume file, the puzzles it holds solved are counted in as done (an estimate: its
    solved records of the input's indices; a record the run does not trust is solved again)."""

    def count() -> None:
        total = count_puzzles(sources, kind, fmt)
        progress.set_total(total)
        if resume is not None:
            held = held_solved(resume, sources, total)
            if held:
                progress.count_in(held, held)

    threading.Thread(target=count, name="count-puzzles", daemon=True).start()


def held_solved(path: str, sources, total: int | None) -> int:
    """Puzzles a results file holds solved: the distinct indices of its solved records (below
    `total` when known); 0 when it cannot be read (the run itself says why)."""
    import warnings

    from gpu_anneal.resume import ResumeFile

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the run reads it again, and warns once
            held = ResumeFile.load(path, sources).solved
    except (InputError, OSError):
        return 0
    return sum(1 for index in held if total is None or index < total)


def _emit(result, req: SolveRequest, tally: Tally, sink) -> None:
    """Count one result; write it to the sink (a JSON line) and, unless --quiet with a sink,
    to stdout (text, grid or a JSON line)."""
    tally.count(result.status)
    if sink is not None:
        sink.write(result.to_json() + "\n")
        sink.flush()
    if sink is None or not req.quiet:
        write_result(result, req.output)
