"""The gpu-anneal command line: parse, call gpu_anneal, print. One module per command group.

Every usage fault (an unknown option, a value outside an enum's choices, an option that does not
apply to the chosen kind or method) and every bad input is one line on stderr starting with
'gpu-anneal:' and exit code 2; internal faults give exit code 3; Ctrl-C gives 130. When several
apply, the first of this order wins: 130 interrupted (a second Ctrl-C too), 3 internal error,
2 bad input or usage, 1 some puzzle unsolved, 0.
"""

from __future__ import annotations

import functools
import sys
from typing import Annotated

import typer
from typer.core import TyperGroup

from cli import generate, streams
from cli.guard import guarded
from cli.options import (
    MOVES_HELP,
    Backend,
    Example,
    Format,
    Method,
    Output,
    Rules,
    ShowProgress,
    SolveOutput,
    Technique,
    Threads,
    kind_option,
    move_option,
    value,
)
from cli.output import (
    EXIT_BAD_INPUT,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_UNSOLVED,
    error_line,
    terminated_code,
)
from gpu_anneal import interrupts


class OneLineErrors(TyperGroup):
    """Click's usage errors as one 'gpu-anneal: ...' line and exit code 2."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        """Run the command; usage errors become one line and exit code 2."""
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except typer.Abort:
            code = EXIT_INTERRUPTED
        except Exception as exc:  # click's usage errors (typer may vendor click: duck-typed)
            if not hasattr(exc, "format_message"):
                raise
            if type(exc).__name__ != "NoArgsIsHelpError":  # that one's help is printed already
                message = exc.format_message().replace("Value error, ", "")
                error_line(f"{message} (see -h)")
            code = EXIT_BAD_INPUT
        code = code if isinstance(code, int) else 0
        if standalone_mode:
            sys.exit(code)
        return code


def _wrap_help_at_spaces_only() -> None:
    """Help text wraps at spaces, never at a hyphen: box-swap or sirdey-course stay whole.

    Click wraps help with the TextWrapper of its _textwrap module (typer vendors click as
    typer._click), a textwrap.TextWrapper; this swaps in a subclass that always passes the
    standard library's `break_on_hyphens=False`."""
    import importlib

    for name in ("typer._click._textwrap", "click._textwrap"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        wrapper = getattr(module, "TextWrapper", None)
        if wrapper is None or getattr(wrapper, "spaces_only", False):
            continue

        class SpacesOnly(wrapper):
            spaces_only = True

            def __init__(self, *args, **kwargs):
                kwargs["break_on_hyphens"] = False
                super().__init__(*args, **kwargs)

        module.TextWrapper = SpacesOnly


_wrap_help_at_spaces_only()
app = typer.Typer(
    cls=OneLineErrors,
    add_completion=True,
    rich_markup_mode=None,  # click's plain help: flags without a type, choices never wrapped
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    help="Thousands of simulated-annealing chains at once for Sudoku, Shikaku and Hashiwokakero.",
)
bench_app = typer.Typer(
    no_args_is_help=True, rich_markup_mode=None, help="Measure speed: moves per second, TTS."
)
app.add_typer(bench_app, name="bench")

Files = Annotated[list[str] | None, typer.Argument(help="Puzzle files; '-' or none: stdin.")]


def _version(show: bool) -> None:
    if show:
        from gpu_anneal import __version__

        print(f"gpu-anneal {__version__}")
        raise typer.Exit(0)


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version")
    ] = False,
) -> None:
    """Thousands of simulated-annealing chains at once for Sudoku, Shikaku and Hashiwokakero."""


@app.command()
def solve(
    files: Files = None,
    example: Annotated[
        Example | None, typer.Option(help="Solve a shipped sample set  [default: none]")
    ] = None,
    kind: Annotated[str | None, kind_option("Puzzle kind  [default: sudoku]")] = None,
    method: Annotated[
        Method,
        typer.Option(
            help="auto: Sudoku by impasse at 25x25-64x64 on the cores (an exact search first "
            "at 25x25 and on fuller 36x36 and 49x49), else by annealing; "
            "anneal: every kind; exact: every kind (ilp for Shikaku, Hashi); impasse "
            "(heat-bath chains on partial legal grids): Sudoku; ilp: Shikaku, Hashi"
        ),
    ] = Method.auto,
    backend: Annotated[Backend, typer.Option(help="auto: CUDA when usable")] = Backend.auto,
    chains: Annotated[
        int | None,
        typer.Option(
            help="Chains per puzzle  [default: fill the machine: CPU threads / --batch, or a "
            "full wave of the card; Shikaku, Hashi: 16 on the CPU, 4096 on CUDA]"
        ),
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the RNG streams  [default: 0]")] = None,
    time_limit: Annotated[
        float | None,
        typer.Option(
            help="Seconds per puzzle, 0 = none  [default: 60; --method exact: none, its node cap]"
        ),
    ] = None,
    max_trials: Annotated[
        int | None, typer.Option(help="Trials per puzzle, all chains  [default: no limit]")
    ] = None,
    technique: Annotated[
        Technique | None,
        typer.Option(
            help="Sudoku annealing: default (schedule auto, move auto, --propagate: the best "
            "measured) or published (Sirdey's: schedule sirdey-course, move sirdey, "
            "--no-propagate); --schedule, --move, --t0 and --propagate each change their part "
            "alone  [default: default]"
        ),
    ] = None,
    schedule: Annotated[
        str | None,
        typer.Option(
            metavar="NAME[:KEY=VALUE,...]",
            help="Sudoku: sirdey-course, sirdey-paper, geometric, band, auto or candidate-auto; "
            "Shikaku, Hashi: geometric  [default: the --technique's: auto, or sirdey-course]",
        ),
    ] = None,
    format: Annotated[
        Format | None, typer.Option("--format", help="Sudoku input format  [default: detected]")
    ] = None,
    output: Annotated[
        SolveOutput | None,
        typer.Option(
            help="How results are printed; grid: each solution as an aligned grid  [default: "
            "grid on a terminal for up to 5 puzzles, else text]"
        ),
    ] = None,
    batch: Annotated[
        int | None,
        typer.Option(
            help="Sudoku puzzles annealed at once  [default: 1 on the CPU; CUDA: the plan's; "
            "Dask: 8 per task]"
        ),
    ] = None,
    move: Annotated[
        str | None,
        move_option(
            f"Neighbourhood. Sudoku: {MOVES_HELP['sudoku']}  [default: the --technique's: "
            f"auto, or sirdey]. Shikaku: {MOVES_HELP['shikaku']}  [default: all]. Hashi: none "
            "to choose",
        ),
    ] = None,
    t0: Annotated[
        float | None,
        typer.Option(
            help="Start temperature; --method impasse: the chains' held temperature  "
            "[default: the schedule's; impasse: by order and fill]"
        ),
    ] = None,
    propagate: Annotated[
        bool | None,
        typer.Option(
            "--propagate/--no-propagate",
            help="Sudoku: deduction rules first (hybrid), or none  [default: the --technique's: "
            "on, or off]",
            show_default=False,
        ),
    ] = None,
    fixed_chains: Annotated[
        bool,
        typer.Option(
            "--fixed-chains",
            help="Sudoku on CUDA: each puzzle keeps --chains to the end (no spare chains once "
            "the input is exhausted), so the reported chain repeats for the seed",
        ),
    ] = False,
    pool: Annotated[
        str | None,
        typer.Option(
            metavar="POOL",
            help="Sudoku on CUDA: persistent (one launch, chains take puzzles from a device "
            "queue) or slices; the CPU backend takes either and runs as ever  [default: "
            "persistent where its kernel runs the order and move, else slices]",
        ),
    ] = None,
    lanes: Annotated[
        int | None,
        typer.Option(
            metavar="LANES",
            help="Sudoku --method impasse on --backend cuda: threads a chain, 1 (a thread) or "
            "32 (a warp over the drawn cell's candidates); the same moves either way  "
            "[default: 1]",
            show_default=False,
        ),
    ] = None,
    rules: Annotated[
        Rules | None,
        typer.Option(help="--method exact: seed runs seed 003's three rules  [default: fast]"),
    ] = None,
    scheduler: Annotated[
        str | None,
        typer.Option(
            metavar="ADDRESS",
            help="Dask scheduler, e.g. tcp://host:8786 (the dask extra)  [default: none]",
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            help="Start a local Dask cluster of N workers (the dask extra)  [default: none]"
        ),
    ] = None,
    out: Annotated[
        str | None,
        typer.Option(
            metavar="FILE",
            help="Also append JSON lines to FILE (stdout keeps the output unless --quiet)  "
            "[default: none]",
        ),
    ] = None,
    resume: Annotated[
        str | None,
        typer.Option(
            metavar="FILE",
            help="Skip puzzles solved in this JSON-lines file; append to it  [default: none]",
        ),
    ] = None,
    replay_chain: Annotated[
        int | None,
        typer.Option(help="Re-run one chain of a run (same seed) and report it  [default: none]"),
    ] = None,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet",
            "-q",
            help="No progress line, hint or summary on stderr; with --out or --resume, nothing "
            "on stdout either",
        ),
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            help="At the end, print on stderr when each start-up step was reached (imports, "
            "context, module loads, first launch, first result, exit)",
        ),
    ] = False,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Print the plan (a model) and the backend taken, with why: on the card, or on "
            "the cores where no card is found; solve nothing",
        ),
    ] = False,
    device: Annotated[
        str | None,
        typer.Option(help="--dry-run on a described card, e.g. 'H100 SXM'  [default: this one]"),
    ] = None,
    threads: Threads = None,
    total_time: Annotated[
        float | None,
        typer.Option(
            help="Seconds for the whole run: then the puzzles still running are reported "
            "interrupted with their state, exit code 1; --resume goes on  [default: none]"
        ),
    ] = None,
    progress: ShowProgress = None,
) -> None:
    """Solve puzzles by annealing or exactly; one result per puzzle, as each finishes."""
    from cli.solve import SolveRequest, run_solve
    from gpu_anneal.settings import SolveOptions

    options = SolveOptions(
        method=value(method), backend=value(backend), chains=chains, seed=seed,
        technique=value(technique), schedule=schedule, move=value(move), t0=t0,
        time_limit=time_limit,
        max_trials=max_trials, propagate=propagate, rules=value(rules), batch=batch,
        fmt=value(format), resume=resume, scheduler=scheduler, workers=workers,
        fixed_chains=fixed_chains, threads=threads, total_time=total_time, pool=pool,
        lanes=lanes,
    )  # fmt: skip
    if dry_run or device is not None:
        given = SolveRequest(files=files or [], example=value(example), kind=value(kind))
        raise typer.Exit(guarded(_dry_run, given, options, device, dry_run))
    request = SolveRequest(
        options, files=files or [], example=value(example), kind=value(kind),
        output=value(output), out=out, replay_chain=replay_chain, quiet=quiet, verbose=verbose,
        progress=progress,
    )  # fmt: skip
    raise typer.Exit(guarded(run_solve, request))


def _dry_run(given, options, device, dry_run) -> int:
    """Print the plan of each order in the input (`given`: the files or --example, as a run
    reads them) and the backend --backend takes, with why (--dry-run): on the card (this one,
    or the one --device describes), or on the cores where the run takes them without a card to
    weigh (--backend cpu, or auto where none is usable). The options are resolved as a run's
    (gpu_anneal.resolve), each order's run plan built from them
    (gpu_anneal.run_plan.sudoku_plan), every option checked as a run checks it (`options`: the
    run's SolveOptions); a kind other than Sudoku has no plan and is refused. --method exact:
    each order's exact search, its node cap and time limit (gpu_anneal.solvers.exact_plan_text);
    --method impasse: its chains (gpu_anneal.impasse_solver.plan_text)."""
    from gpu_anneal import plan
    from gpu_anneal.backend_choice import describe_cores, describe_plans, format_cores_plan
    from gpu_anneal.backends import cuda_status
    from gpu_anneal.kinds import game_id_kinds
    from gpu_anneal.method_choice import AUTO, settings_for
    from gpu_anneal.reference import InputError
    from gpu_anneal.resolve import resolve
    from gpu_anneal.settings import CLI

    files, kind = given.sources_and_kind()
    if kind in game_id_kinds():  # Shikaku and Hashi
        raise InputError(f"--dry-run: a {kind} run has no plan to print (it plans Sudoku's "
                         "chains on the card or the cores); run it without --dry-run")  # fmt: skip
    s = resolve(options, CLI)
    backend = options.backend
    if not dry_run:
        raise InputError(f"--device {device!r} describes a card for --dry-run: add --dry-run")
    if s.method == "exact" and device is not None:
        raise InputError(f"--device {device!r} describes a card; --method exact runs on the "
                         "CPU only")  # fmt: skip
    if backend == "cpu" and device is not None and s.method != "exact":
        raise InputError(f"--device {device!r} describes a card; --backend cpu runs on the "
                         "cores: give one of them")  # fmt: skip
    # the input read once, each faulty puzzle one line as a run says it (exit 2 at the end)
    faults = []

    def said(fault) -> None:
        error_line(str(fault))
        faults.append(fault)

    counts = plan.count_orders(files, s.fmt, on_fault=said)
    done = EXIT_BAD_INPUT if faults else 0
    if s.method == "exact":
        from gpu_anneal.solvers import exact_plan_text

        for order, n in counts.items():
            print(exact_plan_text(order, n, s))
        return done
    if s.method == "impasse":
        from gpu_anneal.impasse_solver import plan_text

        for order, n in counts.items():
            print(plan_text(order, n, s, device))
        return done
    only = counts  # the puzzles of each order annealed (auto: on a card every order)
    if s.method == AUTO:
        picked = _auto_dry_run(counts, s, device, backend)
        only = counts if picked is None else picked
        if not only:
            return done
        s = settings_for(s, "anneal")
    if device is None:
        usable, reason = cuda_status()
        if backend == "cuda" and not usable:
            raise InputError(f"--dry-run --backend cuda: {reason}; describe a card, e.g. "
                             "--device 'H100 SXM'")  # fmt: skip
        if backend == "cpu" or not usable:
            why = ("cpu: asked (--backend cpu)" if backend == "cpu"
                   else f"auto: cpu, no usable CUDA device: {reason}")  # fmt: skip
            for one in describe_cores(files, s, why, counts=only):
                print(format_cores_plan(one))
            return done
    for one in describe_plans(files, s, device, counts=only):
        print(plan.format_plan(one))
    return done


def _auto_dry_run(counts, s, device, backend) -> dict[int, int] | None:
    """--method auto's part of --dry-run: on the cores, the impasse plan of each order it runs
    by the impasse chains, after the line saying so; returns the orders left to annealing with
    their puzzles (`counts`: the puzzles of each order in the input; None on a card: auto
    anneals every order there)."""
    from gpu_anneal.impasse_solver import plan_text
    from gpu_anneal.method_choice import method_for, on_card, settings_for, why

    if device is not None or (backend != "cpu" and on_card(backend)):
        return None
    for order, n in counts.items():
        if method_for(order, False) == "impasse":
            print(why(order, False))
            print(plan_text(order, n, settings_for(s, "impasse"), device))
    return {order: n for order, n in counts.items() if method_for(order, False) == "anneal"}


@app.command()
def examples(
    name: Annotated[Example | None, typer.Argument(help="Print this set's file")] = None,
) -> None:
    """List the sample puzzle sets shipped in the package, or print one."""
    from gpu_anneal import datasets

    if name is not None:
        print(datasets.text(value(name)), end="")
        return
    from cli.output import print_table

    rows = [[d.name, d.kind, d.count, d.description] for d in datasets.DATASETS.values()]
    print_table(["name", "kind", "puzzles", "what"], rows)


@app.command()
def check(
    files: Files = None,
    format: Annotated[
        Format | None, typer.Option("--format", help="Input format  [default: detected]")
    ] = None,
    output: Annotated[Output, typer.Option(help="How results are printed")] = Output.text,
    threads: Threads = None,
    progress: ShowProgress = None,
    max_nodes: Annotated[
        int | None,
        typer.Option(
            help="Branch values a puzzle's count may spend before it is reported unsettled "
            "(ok false); 0: no limit  [default: 2,000,000]",
            show_default=False,
        ),
    ] = None,
    time_limit: Annotated[
        float,
        typer.Option(
            help="Seconds a puzzle's count may spend before it is reported unsettled (ok "
            "false); 0: no limit"
        ),
    ] = 0.0,
) -> None:
    """Verify full grids, or count the solutions of puzzles (0, 1, 2+)."""
    from cli.sudoku_check import run_check

    args = (files or ["-"], value(format), value(output), threads, progress, max_nodes,
            time_limit)  # fmt: skip
    raise typer.Exit(guarded(run_check, *args))


@app.command()
def render(
    input: Annotated[str, typer.Argument(help="Puzzle file (game ID or text grid) or '-'")],
    output_path: Annotated[
        str, typer.Argument(help="Picture to write: .png or .svg (several puzzles: NAME-I.png)")
    ],
    kind: Annotated[
        str | None,
        kind_option(
            "Puzzle kind  [default: by the file's first puzzles: sudoku when one reads as one, "
            "hashi when one reads as a Hashi and none as a Shikaku, shikaku when one reads as "
            "one; when none reads, sudoku for a Sudoku-shaped file (a digit given twice, a "
            "Lloyd & Amos head), else shikaku]"
        ),
    ] = None,
    solve: Annotated[bool, typer.Option(help="Solve first and draw the solution")] = False,
    time_limit: Annotated[
        float | None,
        typer.Option(
            help="--solve: seconds per puzzle, 0 = none (as solve's --time-limit)  [default: 60]"
        ),
    ] = None,
    threads: Threads = None,
) -> None:
    """Draw every Sudoku (any order), Shikaku or Hashiwokakero puzzle of a file, with its
    solution when --solve, to PNG or SVG: one puzzle gives OUTPUT_PATH, several give one picture
    each, OUTPUT_PATH's name followed by -I, the puzzle's 0-based index (picture.png:
    picture-0.png, picture-1.png...)."""
    from cli.grid_puzzles import cli_render

    draw = functools.partial(cli_render, threads=threads, time_limit=time_limit)
    raise typer.Exit(guarded(draw, value(kind), input, output_path, solve))


@app.command()
def info() -> None:
    """Versions, cores, and whether a CUDA device is usable."""
    from cli.info import run_info

    raise typer.Exit(run_info())


@app.command()
def kernels(
    arch: Annotated[str, typer.Option(help="Target architecture, e.g. sm_80, sm_90")] = "sm_90",
    kind: Annotated[
        list[str] | None, typer.Option(help="Only these kernels  [default: every kernel]")
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
    keep: Annotated[
        str | None,
        typer.Option(
            metavar="DIR", help="Write DIR/KERNEL-SIZE.ptx, .cubin and .sass  [default: none]"
        ),
    ] = None,
    progress: ShowProgress = None,
) -> None:
    """Compile every kernel (no GPU needed): ptxas registers and spills, SASS counts of the move
    loop and modeled proposals/s on named cards (a model, not a measurement)."""
    from cli.kernels import run_kernels

    raise typer.Exit(guarded(run_kernels, arch, tuple(kind or ()), json_out, keep, progress))


@bench_app.command("throughput")
def bench_throughput(
    order: Annotated[int, typer.Option(help="Sudoku order n (3 = 9x9)")] = 3,
    seconds: Annotated[float, typer.Option(help="Seconds to measure")] = 5.0,
    backend: Annotated[Backend, typer.Option(help="Where chains run")] = Backend.auto,
    chains: Annotated[int | None, typer.Option(help="Chains  [default: 8 per thread]")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object")] = False,
    threads: Threads = None,
    progress: ShowProgress = None,
) -> None:
    """Sirdey proposals per second over all cores (or the GPU), on a grid that never solves."""
    from cli.bench import run_throughput

    args = (order, seconds, value(backend), chains, json_out, threads, progress)
    raise typer.Exit(guarded(run_throughput, *args))


@bench_app.command("tts")
def bench_tts(
    file: Annotated[str, typer.Argument(help="Puzzle file")],
    runs: Annotated[int, typer.Option(help="Independent runs per puzzle")] = 10,
    schedule: Annotated[
        str | None, typer.Option(help="Schedule name  [default: solve's technique]")
    ] = None,
    t0: Annotated[
        float | None, typer.Option(help="Start temperature  [default: the schedule's]")
    ] = None,
    move: Annotated[
        str | None, typer.Option(help=f"{MOVES_HELP['sudoku']}  [default: solve's technique]")
    ] = None,
    propagate: Annotated[
        bool | None,
        typer.Option(
            "--propagate/--no-propagate",
            help="Deduction rules first in every run (hybrid), or none  [default: solve's "
            "technique]",
            show_default=False,
        ),
    ] = None,
    technique: Annotated[
        Technique | None, typer.Option(help="default or published  [default: default]")
    ] = None,
    time_limit: Annotated[float, typer.Option(help="Seconds per run")] = 60.0,
    seed: Annotated[int, typer.Option(help="Seed")] = 0,
    limit: Annotated[
        int | None, typer.Option(help="Only the first N puzzles  [default: all]")
    ] = None,
    backend: Annotated[
        Backend, typer.Option(help="cpu | cuda (runs = chains on the card) | auto")
    ] = Backend.cpu,
    card_rate: Annotated[
        float | None,
        typer.Option(help="CUDA: the card's proposals/s  [default: measured for 1.5 s first]"),
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object")] = False,
    plot: Annotated[
        str | None, typer.Option(help="PNG: p and TTS99 against givens  [default: none]")
    ] = None,
    trace: Annotated[
        str | None, typer.Option(help="PNG: cost and acceptance vs T  [default: none]")
    ] = None,
    threads: Threads = None,
    progress: ShowProgress = None,
) -> None:
    """Success probability per trial, mean trials, seconds per trial and TTS99 per puzzle, of
    the technique `solve` runs with the same options (--technique, then each of --schedule,
    --move, --t0, --propagate in place of its part alone)."""
    from cli.bench import run_tts

    args = (file, runs, schedule, t0, move, time_limit, seed, limit, json_out, plot, trace,
            value(backend), card_rate, propagate, value(technique))  # fmt: skip
    raise typer.Exit(guarded(functools.partial(run_tts, threads=threads, progress=progress), *args))


@bench_app.command("tune")
def bench_tune(
    file: Annotated[str, typer.Argument(help="Puzzle file (a sample of the kind to solve)")],
    chains: Annotated[int, typer.Option(help="Chains that will run at once")] = 2,
    move: Annotated[str, typer.Option(help="sirdey | candidate | box-swap | focused")] = "sirdey",
    candidate: Annotated[
        list[str] | None, typer.Option(help="Schedules to try  [default: a ladder of lengths]")
    ] = None,
    runs: Annotated[int, typer.Option(help="Runs per puzzle and schedule")] = 8,
    limit: Annotated[int, typer.Option(help="Puzzles of the file to use")] = 5,
    time_limit: Annotated[float, typer.Option(help="Seconds per run")] = 30.0,
    threads: Threads = None,
    progress: ShowProgress = None,
) -> None:
    """Pick the schedule (trial length) with the lowest measured TTS for that many chains."""
    from cli.bench import run_tune

    args = (file, chains, move, tuple(candidate or ()), runs, limit, time_limit, threads)
    raise typer.Exit(guarded(run_tune, *args, progress))


@bench_app.command("exact")
def bench_exact(
    file: Annotated[str, typer.Argument(help="Puzzle file (all puzzles of one order)")],
    limit: Annotated[int, typer.Option(help="1: first solution; 2: prove uniqueness")] = 2,
    threads: Annotated[int, typer.Option(help="Threads (numba)")] = 1,
    repeats: Annotated[int, typer.Option(help="Passes over the file; the best counts")] = 3,
    rules: Annotated[Rules, typer.Option(help="seed: seed 003's three rules")] = Rules.fast,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object")] = False,
    progress: ShowProgress = None,
) -> None:
    """Exact solver: puzzles per second on a file, compilation excluded, best of a few passes."""
    from cli.bench import run_exact

    args = (file, limit, threads, repeats, value(rules), json_out, progress)
    raise typer.Exit(guarded(run_exact, *args))


generate.register(app)


def run() -> None:
    """Console entry point: the command's exit code, 130 if Ctrl-C was pressed at all (143 if
    a SIGTERM stopped it the same way).

    Until interrupts.install() runs, a Ctrl-C is cli.startup's (one line, exit 130 at once);
    from it on every press lands in the `try` below or in the loop after it. The standard
    streams get cli.streams' stand-ins first: stdout lost (closed, full, its reader gone) is
    one line and exit code 2, stderr lost drops the messages only. A second Ctrl-C, while the
    first one's results are written or while the process ends, still exits 130, with what was
    written flushed: from the end of the command on SIGINT is ignored (Python's exit would
    otherwise put back the default action, which kills the process by the signal).
    """
    code = EXIT_INTERRUPTED
    try:
        interrupts.install()
        streams.guard()
        app()
    except SystemExit as done:
        code = done.code
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    except streams.StdoutLost as lost:  # (click's own output: help, a usage line)
        error_line(str(lost))
        code = EXIT_BAD_INPUT
    except Exception as exc:  # beyond every command's guard: still one line, never a traceback
        error_line(f"internal error: {type(exc).__name__}: {exc}".splitlines()[0])
        code = EXIT_INTERNAL
    said = False
    while True:
        try:
            interrupts.ignore()
            if interrupts.ever_pressed():
                code = EXIT_INTERRUPTED
            elif not isinstance(code, int):
                code = 0 if code is None else EXIT_INTERNAL
            lost = streams.finish()
            if lost is not None and code in (EXIT_OK, EXIT_UNSOLVED):
                error_line(lost)
                code = EXIT_BAD_INPUT
            if code == EXIT_INTERRUPTED and not said:
                said = True
                stopped_by = interrupts.terminated()
                error_line("interrupted" + (f" ({stopped_by})" if stopped_by else ""))
            break
        except KeyboardInterrupt:  # a press before SIGINT was ignored
            code = EXIT_INTERRUPTED
    if code == EXIT_INTERRUPTED and interrupts.terminated():
        code = terminated_code(interrupts.terminated())
    sys.exit(code)


if __name__ == "__main__":
    run()
