"""The gpu-anneal command line: parse, call gpu_anneal, print. One module per command group."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from cli import generate
from cli.guard import check_choice, guarded

app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    help="Thousands of simulated-annealing chains at once for Sudoku, Shikaku and Hashiwokakero.",
)
bench_app = typer.Typer(no_args_is_help=True, help="Measure speed: moves per second, TTS.")
app.add_typer(bench_app, name="bench")

Files = Annotated[list[str] | None, typer.Argument(help="Puzzle files; '-' or none: stdin.")]


@app.command()
def solve(
    files: Files = None,
    kind: Annotated[str, typer.Option(help="sudoku | shikaku | hashi")] = "sudoku",
    method: Annotated[str, typer.Option(help="anneal | exact (ilp for shikaku/hashi)")] = "anneal",
    backend: Annotated[str, typer.Option(help="auto | cpu | cuda")] = "auto",
    chains: Annotated[int | None, typer.Option(help="Chains per puzzle (default: fill)")] = None,
    seed: Annotated[int, typer.Option(help="Seed of every chain's RNG stream")] = 0,
    time_limit: Annotated[float, typer.Option(help="Seconds per puzzle; 0 = none")] = 60.0,
    max_trials: Annotated[int | None, typer.Option(help="Trials per puzzle, all chains")] = None,
    schedule: Annotated[str, typer.Option(help="sirdey-course | sirdey-paper | geometric")] = (
        "sirdey-course"
    ),
    format: Annotated[str | None, typer.Option("--format", help="Input format (auto)")] = None,
    output: Annotated[str, typer.Option(help="text | jsonl")] = "text",
    batch: Annotated[int | None, typer.Option(help="Puzzles annealed at once (pool)")] = None,
    move: Annotated[str, typer.Option(help="sirdey | candidate | box-swap")] = "sirdey",
    t0: Annotated[float | None, typer.Option(help="Start temperature (default: e_P)")] = None,
    propagate: Annotated[
        bool, typer.Option(help="Fix what the deduction rules fix first (hybrid, off by default)")
    ] = False,
    scheduler: Annotated[str | None, typer.Option(help="Dask scheduler address")] = None,
    workers: Annotated[int | None, typer.Option(help="Start a local Dask cluster")] = None,
    out: Annotated[str | None, typer.Option(help="Append JSON lines to this file")] = None,
    resume: Annotated[
        str | None, typer.Option(help="Skip puzzles solved in this JSON-lines file; append to it")
    ] = None,
    replay_chain: Annotated[
        int | None, typer.Option(help="Re-run one chain of a run (same seed) and report it")
    ] = None,
) -> None:
    """Solve puzzles by annealing or exactly; one result per puzzle, as each finishes."""
    from cli.sudoku_solve import SolveOptions, run_solve

    check_choice("output", output, ("text", "jsonl"))
    if kind in ("shikaku", "hashi"):
        from cli.grid_puzzles import cli_solve

        chosen = "ilp" if method == "exact" else method
        code = cli_solve(
            kind, files or ["-"], chosen, backend, chains, seed, time_limit or None, output, print
        )
        raise typer.Exit(code)
    check_choice("kind", kind, ("sudoku", "shikaku", "hashi"))
    check_choice("method", method, ("anneal", "exact"))
    opts = SolveOptions(
        method=method,
        backend=backend,
        chains=chains,
        seed=seed,
        time_limit=time_limit or None,
        max_trials=max_trials,
        schedule=schedule,
        fmt=format,
        output=output,
        batch=batch,
        replay_chain=replay_chain,
        move=move,
        out=resume or out,
        resume=resume is not None,
        t0=t0,
        propagate=propagate,
        scheduler=scheduler,
        workers=workers,
    )
    raise typer.Exit(guarded(run_solve, files or ["-"], opts))


@app.command()
def check(
    files: Files = None,
    format: Annotated[str | None, typer.Option("--format", help="Input format (auto)")] = None,
    output: Annotated[str, typer.Option(help="text | jsonl")] = "text",
) -> None:
    """Verify full grids, or count the solutions of puzzles (0, 1, 2+)."""
    from cli.sudoku_check import run_check

    check_choice("output", output, ("text", "jsonl"))
    raise typer.Exit(guarded(run_check, files or ["-"], format, output))


@app.command()
def render(
    input: Annotated[str, typer.Argument(help="Puzzle file (game ID or text grid) or '-'")],
    output_path: Annotated[str, typer.Argument(help="Picture to write: .png or .svg")],
    kind: Annotated[str, typer.Option(help="shikaku | hashi")] = "shikaku",
    solve: Annotated[bool, typer.Option(help="Solve first and draw the solution")] = False,
) -> None:
    """Draw a Shikaku or Hashiwokakero puzzle, and its solution with --solve, to PNG or SVG."""
    check_choice("kind", kind, ("shikaku", "hashi"))
    from cli.grid_puzzles import cli_render

    raise typer.Exit(guarded(cli_render, kind, input, output_path, solve))


@app.command()
def info() -> None:
    """Versions, cores, and whether a CUDA device is usable."""
    from cli.info import run_info

    raise typer.Exit(run_info())


@app.command()
def kernels(
    arch: Annotated[str, typer.Option(help="Target architecture, e.g. sm_80, sm_90")] = "sm_90",
    kind: Annotated[list[str] | None, typer.Option(help="Only these kernels")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Compile every kernel to PTX (no GPU needed) and report ptxas registers and spills."""
    from cli.kernels import run_kernels

    raise typer.Exit(guarded(run_kernels, arch, tuple(kind or ()), json_out))


@bench_app.command("throughput")
def bench_throughput(
    order: Annotated[int, typer.Option(help="Sudoku order n (3 = 9x9)")] = 3,
    seconds: Annotated[float, typer.Option(help="Seconds to measure")] = 5.0,
    backend: Annotated[str, typer.Option(help="auto | cpu | cuda")] = "auto",
    chains: Annotated[int | None, typer.Option(help="Chains (default: 8 per thread)")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object")] = False,
) -> None:
    """Sirdey proposals per second over all cores (or the GPU), on a grid that never solves."""
    from cli.bench import run_throughput

    raise typer.Exit(guarded(run_throughput, order, seconds, backend, chains, json_out))


@bench_app.command("tts")
def bench_tts(
    file: Annotated[str, typer.Argument(help="Puzzle file")],
    runs: Annotated[int, typer.Option(help="Independent runs per puzzle")] = 10,
    schedule: Annotated[str, typer.Option(help="Schedule name")] = "sirdey-course",
    t0: Annotated[float | None, typer.Option(help="Start temperature")] = None,
    move: Annotated[str, typer.Option(help="sirdey | candidate | box-swap")] = "sirdey",
    time_limit: Annotated[float, typer.Option(help="Seconds per run")] = 60.0,
    seed: Annotated[int, typer.Option(help="Seed")] = 0,
    limit: Annotated[int | None, typer.Option(help="Only the first N puzzles")] = None,
    backend: Annotated[str, typer.Option(help="cpu | cuda (runs = chains on the card)")] = "cpu",
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object")] = False,
    plot: Annotated[str | None, typer.Option(help="PNG: p and TTS99 against givens")] = None,
    trace: Annotated[str | None, typer.Option(help="PNG: cost and acceptance vs T")] = None,
) -> None:
    """Success probability per trial, mean trials, seconds per trial and TTS99 per puzzle."""
    from cli.bench import run_tts

    raise typer.Exit(
        guarded(
            run_tts,
            file,
            runs,
            schedule,
            t0,
            move,
            time_limit,
            seed,
            limit,
            json_out,
            plot,
            trace,
        )  # fmt: skip
    )


@bench_app.command("tune")
def bench_tune(
    file: Annotated[str, typer.Argument(help="Puzzle file (a sample of the kind to solve)")],
    chains: Annotated[int, typer.Option(help="Chains that will run at once")] = 2,
    move: Annotated[str, typer.Option(help="sirdey | candidate | box-swap")] = "sirdey",
    candidate: Annotated[
        list[str] | None, typer.Option(help="Schedules to try (default: a ladder of lengths)")
    ] = None,
    runs: Annotated[int, typer.Option(help="Runs per puzzle and schedule")] = 8,
    limit: Annotated[int, typer.Option(help="Puzzles of the file to use")] = 5,
    time_limit: Annotated[float, typer.Option(help="Seconds per run")] = 30.0,
) -> None:
    """Pick the schedule (trial length) with the lowest measured TTS for that many chains."""
    from cli.bench import run_tune

    raise typer.Exit(
        guarded(run_tune, file, chains, move, tuple(candidate or ()), runs, limit, time_limit)
    )


generate.register(app)


def run() -> None:
    """Console entry point."""
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    run()
