"""`gpu-anneal bench`: throughput (Sirdey proposals per second, on a grid that never solves),
tts, tune and exact.

Every option is checked before any run: `--plot` and `--trace` name a picture file (.png, .svg or
.pdf) whose folder exists and that is not the puzzle file; the results are printed before the
pictures are drawn, so a picture that cannot be written (one line, exit code 2) loses none. A
faulty puzzle of the file is one line on stderr and exit code 2, the others still measured (tts,
tune and exact alike: usable_puzzles); a file with no usable puzzle adds the line '{file}: no
usable puzzle' and prints nothing on stdout, with --json too (no run, no report).
"""

from __future__ import annotations

from pathlib import Path

from cli.output import EXIT_BAD_INPUT, EXIT_OK, EXIT_UNSOLVED, error_line, json_line
from cli.pictures import draw
from cli.progress import RunProgress, messages_above
from cli.threads import use_threads
from gpu_anneal import validate
from gpu_anneal.measure import measure_throughput
from gpu_anneal.reference import InputError

PICTURE_SUFFIXES = (".png", ".svg", ".pdf")
OVERWRITES = "the picture would overwrite the puzzles"


def picture_option(option: str, path: str | None, puzzles: str) -> str | None:
    """A picture file an option names (None: not given), checked before any work: a file in
    an existing, writable folder, ending in PICTURE_SUFFIXES, not the puzzle file."""
    if path is None:
        return None
    validate.output_path(path, option)
    if Path(path).suffix.lower() not in PICTURE_SUFFIXES:
        raise InputError(f"{option} {path}: must end in {', '.join(PICTURE_SUFFIXES)}")
    validate.not_an_input(option, path, [puzzles], OVERWRITES)
    return path


def usable_puzzles(file: str, limit: int | None = None) -> tuple[list, int]:
    """The Sudoku puzzles of a file, at most `limit` (None: all), and how many faults were
    passed over, each said first as one line on stderr naming its line and what is wrong.
    InputError '{file}: no usable puzzle' when none is usable (the faults above say why); a
    file that cannot be read at all is the reader's InputError."""
    from gpu_anneal.reference import iter_puzzles

    puzzles, faults = [], 0
    for item in iter_puzzles(file, name=file):
        if isinstance(item, InputError):
            error_line(str(item))
            faults += 1
            continue
        puzzles.append(item)
        if limit is not None and len(puzzles) >= limit:
            break
    if not puzzles:
        raise InputError(f"{file}: no usable puzzle")
    return puzzles, faults


def run_throughput(
    order: int, seconds: float, backend: str, chains: int | None, json_out: bool,
    threads: int | None = None, progress: bool | None = None,
) -> int:  # fmt: skip
    """Print the measurement as JSON or as one line."""
    import math

    use_threads(threads)
    total = math.ceil(seconds) if math.isfinite(seconds) and 0 < seconds < 1e6 else None
    line = RunProgress(total=total, enabled=progress, work="measuring", noun="s measured")
    with line, messages_above(line):
        result = measure_throughput(
            order, seconds, backend, chains, on_round=lambda elapsed: line.set_done(int(elapsed))
        )
    if json_out:
        print(json_line(result))
    else:
        rate = result["proposals_per_second"]
        shown = f"{rate / 1e9:.1f} G" if rate >= 1e9 else f"{rate / 1e6:.1f} M"
        print(
            f"{shown} proposals/s ({result['backend']}, {result['chains']} chains, order {order})"
        )
    return 0


def run_tts(
    file, runs, schedule, t0, move, time_limit, seed, limit, json_out, plot, trace,
    backend="cpu", card_rate=None, propagate=None, technique=None, *, threads=None,
    progress=None,
) -> int:  # fmt: skip
    """Measure TTS99 over the puzzles of a file; print per-puzzle rows and the summary.

    The technique is `solve`'s (cpu_reference.sudoku.presets.technique): the named one
    (`technique`, None: the default), each of schedule, move and propagate given in place of
    that part alone; the report's `params` give, per order, the move, schedule and deduction
    setting that ran, resolved as `solve`'s results record them.
    `backend` ("cpu", "cuda" or "auto") is resolved first: "cuda" without a usable device is a
    BackendError before any work. On CUDA, seconds per trial come from the card's proposal
    rate: `card_rate` when given, else measured on the card before the runs.
    A stop (Ctrl-C, SIGTERM) prints the report of the puzzles measured before it
    ("interrupted": true), draws its --plot, and is raised again.
    """
    import math

    from cli.info import machine_now
    from gpu_anneal.backends import resolve_backend
    from gpu_anneal.reference import technique as technique_of
    from gpu_anneal.reference import with_start
    from gpu_anneal.tts import core_rate_of, finite_or_none, summarize, trace_run

    use_threads(threads)
    schedule, move, propagate = technique_of(schedule, move, propagate, technique)
    runs = validate.integer("--runs", runs, 1)
    if limit is not None:
        limit = validate.integer("--limit", limit, 1)
    t0 = validate.t0(t0)
    time_limit = validate.time_limit(time_limit) or None
    plot = picture_option("--plot", plot, file)
    trace = picture_option("--trace", trace, file)
    if plot is not None and trace is not None and Path(plot).resolve() == Path(trace).resolve():
        raise InputError(f"--plot and --trace both name {plot}: give each its own file")
    machine = machine_now()
    if card_rate is not None and not (math.isfinite(card_rate) and card_rate > 0):
        raise InputError(f"--card-rate {card_rate}: must be a positive number of proposals/s")
    backend = resolve_backend(backend, flags=True)
    if card_rate is not None and backend != "cuda":
        raise InputError("--card-rate: only for --backend cuda (CPU runs are timed)")
    rows = []
    puzzles, faults = usable_puzzles(file, limit)
    rate = card_rate
    if rate is None and puzzles and backend == "cuda":
        rate = core_rate_of(puzzles[0].order, move, backend)
    line = RunProgress(total=len(puzzles), enabled=progress, work="measuring", noun="puzzles")
    interrupted = False
    try:
        _tts_rows(puzzles, rows, line, json_out, runs=runs, schedule=schedule, move=move,
                  t0=t0, seed=seed, time_limit=time_limit, rate=rate, backend=backend,
                  propagate=propagate)  # fmt: skip
    except KeyboardInterrupt:  # Ctrl-C, SIGTERM: the report of the puzzles measured
        interrupted = True
    summary = finite_or_none(summarize(rows)) if rows else {}
    label = schedule if t0 is None else f"{schedule} from T0 = {t0:g}"
    label += ", deduction first" if propagate else ""
    report = {
        "file": file, "schedule": schedule, "t0": t0, "move": move, "propagate": propagate,
        "params": tts_params(puzzles, schedule, move, t0, propagate),
        "runs": runs, "backend": backend, "machine": machine,
        "time_limit": time_limit, "card_rate": rate, "summary": summary,
        "interrupted": interrupted, "puzzles": [r.as_dict() for r in rows],
    }  # fmt: skip
    if json_out:
        print(json_line(report), flush=True)
    else:
        print(json_line({**summary, "interrupted": True} if interrupted else summary), flush=True)
    if plot and rows:
        from gpu_anneal.plots import plot_tts

        title = f"{Path(file).name}: {label}, move {move}"
        draw("--plot", plot, lambda path: plot_tts(report["puzzles"], path, title))
    if interrupted:  # the trace is another run: not started after a stop
        raise KeyboardInterrupt
    if trace and puzzles:
        from gpu_anneal.plots import plot_trace

        sched = with_start(schedule, puzzles[0].order, t0)
        data = trace_run(puzzles[0].cells, puzzles[0].order, sched, move=move, seed=seed)
        title = f"{Path(file).name}, puzzle 0: {label}, move {move}"
        draw("--trace", trace, lambda path: plot_trace(data, path, title))
    return EXIT_BAD_INPUT if faults else EXIT_OK


def _tts_rows(puzzles, rows: list, line, json_out: bool, *, runs, schedule, move, t0, seed,
              time_limit, rate, backend, propagate) -> None:  # fmt: skip
    """Measure each puzzle in turn (gpu_anneal.tts.measure_puzzle) into `rows`, each printed
    as it ends unless the report is JSON; a stop leaves the rows of the puzzles done."""
    from gpu_anneal.reference import with_start
    from gpu_anneal.tts import measure_puzzle

    with line, messages_above(line):
        for index, puzzle in enumerate(puzzles):
            sched = with_start(schedule, puzzle.order, t0)
            row = measure_puzzle(
                puzzle.cells, puzzle.order, runs=runs, schedule=sched, move=move,
                seed=seed + index, time_limit=time_limit, index=index, core_rate=rate,
                backend=backend, propagate=propagate,
            )  # fmt: skip
            rows.append(row)
            line.advance()
            if not json_out:
                print(
                    f"puzzle {index}: givens={row.givens} solved {row.solved_runs}/{row.runs} "
                    f"p={row.p:.4f} [{row.p_low:.4f}, {row.p_high:.4f}] "
                    f"trials/solve={row.mean_trials:.2f} s/trial={row.seconds_per_trial:.4f} "
                    f"TTS99={row.tts99:.3f} s [{row.tts99_low:.3f}, {row.tts99_high:.3f}]",
                    flush=True,
                )


def tts_params(puzzles, schedule: str, move: str, t0, propagate: bool) -> dict:
    """Per order of the puzzles (as text), the move, schedule and deduction setting that ran,
    resolved for the order as `solve` records them in each result's params (move_of and
    schedule_text, as gpu_anneal.solvers.sudoku_params does)."""
    from gpu_anneal.reference import move_of
    from gpu_anneal.solvers import schedule_text

    orders = sorted({p.order for p in puzzles})
    return {
        str(order): {
            "move": move_of(move, order),
            "schedule": schedule_text(schedule, order, t0),
            "propagate": bool(propagate),
        }
        for order in orders
    }


def run_tune(
    file, chains, move, candidates, runs, limit, time_limit, threads=None, progress=None
) -> int:
    """Print the tuning table and the chosen schedule as JSON; exit code 2 when a puzzle of
    the file was a fault (each one line, usable_puzzles), else 1 when no schedule was chosen.
    A stop prints the table of the candidates measured on every puzzle ("interrupted": true)
    and is raised again."""
    from gpu_anneal.tune import DEFAULT_CANDIDATES, tune, tuned

    use_threads(threads)
    chains = validate.chains(chains)
    runs = validate.integer("--runs", runs, 1)
    limit = validate.integer("--limit", limit, 1)
    time_limit = validate.seconds("--time-limit", time_limit)
    puzzles, faults = usable_puzzles(file, limit)
    order = puzzles[0].order
    cells = [p.cells for p in puzzles if p.order == order]
    candidates = candidates or DEFAULT_CANDIDATES
    total = len(candidates) * len(cells)
    line = RunProgress(total=total, enabled=progress, work="measuring", noun="schedule x puzzle")
    rows: list[dict] = []
    interrupted = False
    try:
        with line, messages_above(line):
            tune(
                cells, order, chains, candidates=candidates, move=move, runs=runs,
                time_limit=time_limit, on_measured=line.advance, on_row=rows.append,
            )  # fmt: skip
    except KeyboardInterrupt:  # Ctrl-C, SIGTERM: the candidates measured on every puzzle
        interrupted = True
    result = tuned(rows, chains, move)
    result["interrupted"] = interrupted
    print(json_line(result), flush=True)
    if interrupted:
        raise KeyboardInterrupt
    if result["best"] is None:
        error_line("no schedule solved the median puzzle in any run: none chosen")
    if faults:
        return EXIT_BAD_INPUT
    return EXIT_UNSOLVED if result["best"] is None else EXIT_OK


def run_exact(
    file: str, limit: int, threads: int, repeats: int, rules: str, json_out: bool,
    progress: bool | None = None,
) -> int:  # fmt: skip
    """The exact solver's puzzles/s on a file's puzzles (all of one order); JSON or one line.
    A stop prints the rate of the passes done (measure_exact) and is raised again."""
    import numpy as np

    from gpu_anneal.measure import measure_exact

    validate.threads(threads, "--threads")  # the passes' threads (default 1)
    repeats = validate.integer("--repeats", repeats, 1)
    if limit not in (1, 2):
        raise InputError(f"--limit {limit}: must be 1 (first solution) or 2 (prove uniqueness)")
    puzzles, faults = usable_puzzles(file)  # a puzzle breaking a rule is a fault, not 0
    order = puzzles[0].order
    for item in puzzles:
        if item.order != order:
            raise InputError(f"{file}: puzzles of orders {order} and {item.order} mixed")
    cells = [item.cells for item in puzzles]
    line = RunProgress(total=repeats, enabled=progress, work="measuring", noun="passes")
    with line, messages_above(line):
        result = measure_exact(
            np.stack(cells), order, limit, threads, repeats, rules, on_pass=line.advance
        )
    result["file"] = file
    if json_out:
        print(json_line(result), flush=True)
    else:
        stopped = ", interrupted" if result["interrupted"] else ""
        print(
            f"{result['puzzles_per_second']:.0f} puzzles/s ({result['puzzles']} puzzles, "
            f"limit {limit}, {threads} thread(s), rules {rules}{stopped}); counts "
            f"{result['counts']}",
            flush=True,
        )
    if result["interrupted"]:
        raise KeyboardInterrupt
    return EXIT_BAD_INPUT if faults else EXIT_OK
