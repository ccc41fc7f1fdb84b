"""`gpu-anneal generate` and `gpu-anneal minimize`: full grids, minimal puzzles, puzzles on demand.

Glossary: n (--order) box side, N = n * n, cells = N * N; a "grid" is full, a "puzzle" has blanks
(0 or '.'); givens = filled cells of a puzzle; i an output index.

Output, text: one grid per line (line format; 36x36 as tsv lines) for full grids; for puzzles one
tdoku line `PUZZLE:1:SOLUTION  # puzzleI, G givens` (36x36: the tsv line `puzzleI, G
givens<TAB>6<TAB>CELLS` followed by the comment line `# solutionI<TAB>6<TAB>CELLS`), which
`solve` reads as puzzles and `check` checks (one solution, the solution given). With --output
jsonl one JSON object per line, every key always present: grids as
gpu_anneal.records.GridRecord, puzzles as MinimalPuzzleRecord (schemas: docs/grid.schema.json,
docs/minimal_puzzle.schema.json). Every record carries the seed: the same seed (default 0) gives
the same output. Full grids are printed in index order, each as soon as it and every grid
before it are made, so a stop keeps what was printed. --stats writes one JSON line of counters
to stderr.
Bad input or parameters: one line on stderr, exit code 2; grids or puzzles not found: exit code 1.

Every option given is honoured or refused (one line, exit code 2), never ignored: an option of
another kind, of another method (--moves and --max-restarts are permute's, --backend anneal's)
or of the emptying without --puzzles (--ti, --tf, --step, --tries, --max-rounds, --max-givens).
--time-limit holds for every method (anneal: per batch of grids). --count is capped by what fits
in memory (gpu_anneal.validate.max_grids), --seed is 0 <= seed < 2**64.
"""

from __future__ import annotations

import sys
from typing import Annotated

import numpy as np
import typer

from cli.guard import guarded
from cli.options import (
    Backend,
    GridMethod,
    Kind,
    Output,
    PermuteMoves,
    ShowProgress,
    Threads,
    value,
)
from cli.output import error_line, json_line
from cli.progress import RunProgress, messages_above
from cli.threads import use_threads
from gpu_anneal.kinds import game_id_kinds
from gpu_anneal.reference import MAX_ORDER, InputError

SIZE_DEFAULT = "10x10"
SEED_HELP = "Seed: the same seed gives the same output, another seed other puzzles"


def register(app: typer.Typer) -> None:
    """Add the `generate` and `minimize` commands to the app."""
    app.command("generate")(generate)
    app.command("minimize")(minimize)


# Defaults of the Sudoku options (None in the signatures, so that a given option is told apart).
SUDOKU_DEFAULTS = dict(
    method="anneal", ti=1.0, tf=0.15, step=0.0002, moves="any", max_restarts=10_000,
    time_limit=60.0, max_rounds=100, tries=4, backend="auto",
)  # fmt: skip
# From this order on, full grids are made by backtracking unless --method (or --backend) is
# given: annealing filled neither of two empty 25x25 grids within 60 s on 2 cores, backtracking
# makes hundreds a second (benchmarks/results/generation).
BACKTRACK_FROM_ORDER = 5
# From this order on, by the impasse chains instead: at 49x49 they made 2.3 times as many
# grids a second as backtracking, at 64x64 51 times, while at 25x25 and 36x36 backtracking
# made 1.4-1.6 times as many (benchmarks/results/generation/large_grids.md)
IMPASSE_FROM_ORDER = 7
# Emptying a grid of these orders into a minimal puzzle takes minutes a try: the CPU seconds one
# try takes at least (25x25: `gpu-anneal minimize --order 5 --count 1 --tries 1` had not
# finished after 109 s of CPU on a 2-core EPYC; 36x36 to 64x64 not measured, the 25x25 bound
# kept: a larger grid's try runs more checks, each on more cells)
SLOW_EMPTYING_SECONDS = dict.fromkeys(range(5, MAX_ORDER + 1), 100.0)
# Sudoku options that only some methods take: option -> the methods that take it
METHOD_OPTIONS = {"moves": ("permute",), "max_restarts": ("permute",), "backend": ("anneal",)}
EMPTYING_OPTIONS = ("ti", "tf", "step", "tries", "max_rounds", "max_givens")


def generate(
    kind: Annotated[Kind, typer.Option(help="Puzzle kind")] = Kind.sudoku,
    order: Annotated[int | None, typer.Option(help="Sudoku order n, 2..8 [default: 3]")] = None,
    count: Annotated[int, typer.Option(help="Grids (or puzzles); with --from: per puzzle")] = 1,
    method: Annotated[
        GridMethod | None,
        typer.Option(help="[default: anneal; 25x25, 36x36: backtrack; 49x49, 64x64: impasse]"),
    ] = None,
    seed: Annotated[int, typer.Option(help=SEED_HELP)] = 0,
    backend: Annotated[
        Backend | None, typer.Option(help="Sudoku, method anneal  [default: auto]")
    ] = None,
    from_file: Annotated[
        str | None, typer.Option("--from", help="Complete the puzzles of this file ('-': stdin)")
    ] = None,
    puzzles: Annotated[bool, typer.Option("--puzzles", help="Minimal puzzles, not grids")] = False,
    max_givens: Annotated[
        int | None, typer.Option(help="With --puzzles: keep puzzles with at most this many")
    ] = None,
    ti: Annotated[float | None, typer.Option("--ti", help="Emptying: first T [1.0]")] = None,
    tf: Annotated[float | None, typer.Option("--tf", help="Emptying: last T [0.15]")] = None,
    step: Annotated[float | None, typer.Option(help="Emptying: T step [0.0002]")] = None,
    moves: Annotated[PermuteMoves | None, typer.Option(help="permute [default: any]")] = None,
    max_restarts: Annotated[int | None, typer.Option(help="permute: restarts [10000]")] = None,
    time_limit: Annotated[
        float | None,
        typer.Option(
            help="Seconds for the grids (anneal: per batch), 0 = none [60]; shikaku/"
            "hashi: for all the game IDs, --unique's checks included [none]"
        ),
    ] = None,
    max_rounds: Annotated[int | None, typer.Option(help="--puzzles: rounds of grids [100]")] = None,
    tries: Annotated[int | None, typer.Option(help="Emptying: anneal each grid N times [4]")] = (
        None
    ),
    output: Annotated[Output, typer.Option(help="How results are printed")] = Output.text,
    stats: Annotated[bool, typer.Option("--stats", help="Counters as JSON on stderr")] = False,
    size: Annotated[str | None, typer.Option(help=f"shikaku/hashi: WxH [{SIZE_DEFAULT}]")] = None,
    unique: Annotated[bool, typer.Option("--unique", help="shikaku/hashi: unique only")] = False,
    threads: Threads = None,
    progress: ShowProgress = None,
) -> None:
    """Full Sudoku grids (anneal, permute, backtrack), minimal puzzles with --puzzles, or
    Shikaku and Hashiwokakero game IDs."""
    sudoku_only = dict(
        order=order, method=value(method), from_file=from_file, puzzles=puzzles,
        max_givens=max_givens, ti=ti, tf=tf, step=step, moves=value(moves),
        max_restarts=max_restarts, time_limit=time_limit, max_rounds=max_rounds, tries=tries,
        backend=value(backend),
    )  # fmt: skip
    if value(kind) in game_id_kinds():
        grid_args = (value(kind), SIZE_DEFAULT if size is None else size, count, seed, unique,
                     sudoku_only)  # fmt: skip
        raise typer.Exit(guarded(_generate_grid_puzzles, *grid_args, value(output), stats))
    given = {name for name, v in sudoku_only.items() if v not in (None, False)}
    args = {k: SUDOKU_DEFAULTS.get(k) if v is None else v for k, v in sudoku_only.items()}
    args.update(count=count, seed=seed, stats=stats, given=given)
    args.update(output=value(output), size=size, unique=unique, threads=threads, progress=progress)
    raise typer.Exit(guarded(run_generate, args))


def _generate_grid_puzzles(kind, size, count, seed, unique, sudoku_only, output, stats) -> int:
    """Shikaku or Hashiwokakero game IDs within --time-limit (None: none); Sudoku's other
    options are refused."""
    from cli.grid_puzzles import cli_generate
    from gpu_anneal import validate

    if stats:
        sudoku_only = dict(sudoku_only, stats=True)
    time_limit = validate.time_limit(sudoku_only.pop("time_limit", None)) or None
    for name, given in sudoku_only.items():
        if given not in (None, False):
            raise InputError(f"{_flag(name)} does not apply to --kind {kind}")
    return cli_generate(kind, size, count, seed, unique, output=output, time_limit=time_limit)


def _flag(name: str) -> str:
    """The command-line flag of an option name."""
    return "--from" if name == "from_file" else "--" + name.replace("_", "-")


def check_applies(args: dict) -> None:
    """InputError for a Sudoku option given (args["given"]) that this run would not use: one of
    another method (METHOD_OPTIONS) or of the emptying without --puzzles."""
    method, given = args["method"], args["given"]
    for name, methods in METHOD_OPTIONS.items():
        if name in given and method not in methods:
            raise InputError(f"{_flag(name)} applies to --method {' and '.join(methods)}, not "
                             f"{method}")  # fmt: skip
    for name in EMPTYING_OPTIONS:
        if name in given and not args["puzzles"]:
            raise InputError(f"{_flag(name)} needs --puzzles (it sets the emptying of grids "
                             "into puzzles)")  # fmt: skip


def minimize(
    file: Annotated[str | None, typer.Argument(help="Full grids; '-' for stdin")] = None,
    order: Annotated[int | None, typer.Option(help="Order n, 2..8 (default: the file's, or 3)")] = (
        None
    ),
    count: Annotated[
        int | None, typer.Option(help="With no file: generate this many grids first")
    ] = None,
    seed: Annotated[int, typer.Option(help=SEED_HELP)] = 0,
    ti: Annotated[float, typer.Option("--ti", help="First temperature")] = 1.0,
    tf: Annotated[float, typer.Option("--tf", help="Last temperature")] = 0.15,
    step: Annotated[float, typer.Option(help="Temperature decrement per step")] = 0.0002,
    tries: Annotated[
        int, typer.Option(help="Anneal each grid this often, keep the best (seed: 1)")
    ] = 4,
    method: Annotated[
        GridMethod | None,
        typer.Option(
            help="With --count: how grids are made  [default: backtrack; 49x49, 64x64: impasse]"
        ),
    ] = None,
    backend: Annotated[
        Backend | None, typer.Option(help="With --count and anneal  [default: auto]")
    ] = None,
    output: Annotated[Output, typer.Option(help="How results are printed")] = Output.text,
    stats: Annotated[bool, typer.Option("--stats", help="Counters as JSON on stderr")] = False,
    threads: Threads = None,
    progress: ShowProgress = None,
) -> None:
    """Empty full grids to minimal unique puzzles (annealing on the givens, then a greedy pass)."""
    args = dict(
        file=file, order=order, count=count, seed=seed, ti=ti, tf=tf, step=step,
        method=value(method), backend=value(backend), output=value(output), stats=stats,
        tries=tries, threads=threads, progress=progress,
    )  # fmt: skip
    raise typer.Exit(guarded(run_minimize, args))


def settle_method(args: dict, order: int) -> None:
    """args["method"] for grids of this order (grid_method), once the order is known (--from's
    file may give it); InputError for an option the run would not use (check_applies)."""
    args["method"] = grid_method(args, order)
    check_applies(args)


def grid_method(args: dict, order: int) -> str:
    """How `generate` makes full grids of this order: --method, else with --backend anneal,
    else from BACKTRACK_FROM_ORDER on large_grid_method's (annealing fills no such grid within
    its time limit), else anneal."""
    if args["given"] & {"method", "backend"} or order < BACKTRACK_FROM_ORDER:
        return args["method"]
    return large_grid_method(order)


def large_grid_method(order: int) -> str:
    """How full grids of this order (5 or more) are made unless --method is given: backtrack,
    or from IMPASSE_FROM_ORDER on the impasse chains."""
    return "impasse" if order >= IMPASSE_FROM_ORDER else "backtrack"


def grid_text(cells, order: int, name: str) -> str:
    """One grid or puzzle on one line: the line format, or from 36x36 up (whose digits have no
    one-character symbols) a tsv line named `name`."""
    from gpu_anneal.reference import format_grid

    if order < 6:
        return format_grid(cells, order, "line")
    return format_grid(cells, order, "tsv", name)


def _puzzle_record(rec: dict, order: int, output: str) -> str:
    """A minimal puzzle as a JSON line, or as text that `solve` and `check` read (module
    docstring)."""
    from gpu_anneal.records import MinimalPuzzleRecord
    from gpu_anneal.reference import MAX_SYMBOL_ORDER, format_grid

    index = rec["index"]
    if output == "jsonl":
        puzzle = grid_text(rec["puzzle"], order, f"puzzle{index}")
        solution = grid_text(rec["solution"], order, f"solution{index}")
        keys = ("index", "seed", "givens", "sa_givens", "checks", "degradations", "seconds")
        record = MinimalPuzzleRecord(puzzle=puzzle, solution=solution, **{k: rec[k] for k in keys})
        return record.to_json()
    name = f"puzzle{index}, {rec['givens']} givens"
    if order <= MAX_SYMBOL_ORDER:
        return format_grid(rec["puzzle"], order, "tdoku", name, 1, rec["solution"])
    solution = format_grid(rec["solution"], order, "tsv", f"solution{index}")
    return f"{format_grid(rec['puzzle'], order, 'tsv', name)}\n# {solution}"


def _emit_stats(enabled: bool, stats: dict) -> None:
    if enabled:
        print(json_line(stats), file=sys.stderr, flush=True)


# the counts `generate` and `minimize` take, and the least each may be
COUNT_OPTIONS = {"tries": 1, "max_rounds": 1, "max_restarts": 0, "max_givens": 0}


def check_counts(args: dict) -> None:
    """InputError naming the flag of a count in args (COUNT_OPTIONS) below its least or past
    what a 64-bit counter holds."""
    from gpu_anneal import validate

    for name, least in COUNT_OPTIONS.items():
        if args.get(name) is not None:
            validate.integer(_flag(name), args[name], least)


def run_generate(args: dict) -> int:
    """Body of `generate` for Sudoku; returns the exit code."""
    from gpu_anneal import validate

    for option in ("size", "unique"):
        if args[option] not in (None, False):
            raise InputError(f"--{option} does not apply to --kind sudoku (shikaku, hashi)")
    use_threads(args["threads"])
    validate.seed(args["seed"])
    args["time_limit"] = validate.time_limit(args["time_limit"]) or None
    check_counts(args)
    if args["puzzles"]:
        if args["from_file"] is not None:
            raise InputError("--from and --puzzles do not go together (use minimize FILE)")
        return _generate_puzzles(args)
    return _generate_grids(args)


def emptying_notice(order: int, grids: int, tries: int) -> str | None:
    """What emptying `grids` grids of `order` `tries` times each is expected to take, said at the
    start where it takes minutes (SLOW_EMPTYING_SECONDS); None where it is quick."""
    least = SLOW_EMPTYING_SECONDS.get(order)
    if least is None:
        return None
    N = order * order
    threads = _threads()
    rounds = -(-grids // threads)  # one grid a thread at a time, its tries in a row
    minutes = least * tries * rounds / 60
    return (f"emptying {N}x{N} grids into minimal puzzles is slow: each try runs thousands of "
            f"exact uniqueness checks, {least / 60:.0f}+ min on one core; {grids} grid(s), "
            f"--tries {tries}, one grid a thread, {min(threads, grids)} of {threads} thread(s) "
            f"at work: expect {minutes:.0f} min or more")  # fmt: skip


def _generate_puzzles(args: dict) -> int:
    """Minimal unique puzzles, printed as they are found."""
    from cli.output import EXIT_OK, EXIT_UNSOLVED, error_line
    from gpu_anneal import generation as gen
    from gpu_anneal import validate

    order = gen.check_order(3 if args["order"] is None else args["order"])
    settle_method(args, order)
    validate.count(args["count"], order**4)
    gen.check_temperatures(args["ti"], args["tf"], args["step"])
    notice = emptying_notice(order, args["count"], args["tries"])
    if notice is not None:
        error_line(notice)
    line = RunProgress(total=args["count"], enabled=args["progress"], work="emptying",
                       noun="puzzles")  # fmt: skip

    def found_one(rec: dict) -> None:
        print(_puzzle_record(rec, order, args["output"]), flush=True)
        line.advance()

    with line, messages_above(line):
        found, stats = gen.generate_puzzles(
            order, args["count"], args["seed"], args["max_givens"], method=args["method"],
            backend=args["backend"], ti=args["ti"], tf=args["tf"], step=args["step"],
            max_rounds=args["max_rounds"], tries=args["tries"], on_puzzle=found_one,
            grid_options=_grid_options(args),
        )  # fmt: skip
    _emit_stats(args["stats"], stats)
    if len(found) < args["count"]:
        capped = "" if args["max_givens"] is None else f" with at most {args['max_givens']} givens"
        error_line(
            f"found {len(found)} of {args['count']} puzzles{capped} in {stats['grids_tried']} "
            "grids tried"
        )
        return EXIT_UNSOLVED
    return EXIT_OK


class SaidFaults(list):
    """The faults of an input read so far, each said as one line on stderr as it comes (an
    on_fault of gpu_anneal.inputs.read_grids)."""

    def __call__(self, error: InputError) -> None:
        error_line(str(error))
        self.append(error)


def _generate_grids(args: dict) -> int:
    """Full grids (completing --from's puzzles when given), printed in order. A faulty puzzle
    of --from's file is one line and left out, the others completed (their grids indexed in
    the order of the good puzzles, as solve counts them), exit code 2 at the end."""
    from cli.output import EXIT_BAD_INPUT, EXIT_OK, EXIT_UNSOLVED, error_line
    from gpu_anneal import generation as gen
    from gpu_anneal import validate
    from gpu_anneal.inputs import read_grids
    from gpu_anneal.records import GridRecord

    givens, count, order = None, args["count"], args["order"]
    bad = SaidFaults()
    if args["from_file"] is not None:
        rows, order = read_grids(args["from_file"], order, full=False, on_fault=bad,
                                 completable=True)  # fmt: skip
        most = validate.max_grids(order**4) // rows.shape[0]
        validate.integer("--count", count, 1, max(1, most))  # per puzzle of the file
        givens = np.repeat(rows, count, axis=0)
        count = givens.shape[0]
    order = gen.check_order(3 if order is None else order)
    validate.count(count, order**4)
    settle_method(args, order)  # the file's order where --order was not given
    progress = RunProgress(total=count, enabled=args["progress"], work="making grids",
                           noun="grids")  # fmt: skip

    def show(i: int, grid: np.ndarray | None) -> None:
        if grid is None:
            return
        line = grid_text(grid, order, f"grid{i}")
        if args["output"] == "jsonl":
            record = GridRecord(index=i, grid=line, method=args["method"], seed=args["seed"])
            line = record.to_json()
        print(line, flush=True)
        progress.advance()

    with progress, messages_above(progress):
        _, stats = gen.generate_grids(
            order, count, args["method"], args["seed"], args["backend"], givens,
            on_grid=InOrder(show), **_grid_options(args),
        )  # fmt: skip
    failed = stats["failed"]
    _emit_stats(args["stats"], stats)
    if failed:
        which = ", ".join(str(i) for i in sorted(failed)[:5])
        more = "..." if len(failed) > 5 else ""
        reason = shortfall_reason(stats, args, order)
        error_line(f"{len(failed)} of {count} grids not found (index {which}{more}){reason}")
    if bad:
        error_line(f"{len(bad)} bad puzzle(s) of {args['from_file']} left out")
        return EXIT_BAD_INPUT
    return EXIT_UNSOLVED if failed else EXIT_OK


def shortfall_reason(stats: dict, args: dict, order: int) -> str:
    """What ended the grids not found, from generate_grids' stats, as '': ...' ('' when the
    stats do not say), with a better method where permute was given a grid past 9x9."""
    reasons = []
    if stats.get("time_limit_reached"):
        limit = f"{args['time_limit'] or 0:f}".rstrip("0").rstrip(".")  # as given, no exponent
        reasons.append(f"--time-limit {limit} ran out")
    if stats.get("restart_budget_spent"):
        reasons.append(f"{stats['restart_budget_spent']} spent --max-restarts "
                       f"{stats['max_restarts']}")  # fmt: skip
    if stats.get("node_budget_spent"):
        reasons.append(f"{stats['node_budget_spent']} spent their node budget")
    if stats.get("no_completion") or stats.get("no_solution"):
        reasons.append("the givens have no completion")
    if args["method"] == "permute" and order > 3:
        reasons.append("permute, the seed's pure descent, rarely completes a grid past 9x9: "
                       "--method backtrack or anneal")  # fmt: skip
    return ": " + "; ".join(reasons) if reasons else ""


class InOrder:
    """An on_grid that hands grids to show(i, grid) in index order, as soon as every grid
    before one has ended (grids end out of order: generate_grids' on_grid)."""

    def __init__(self, show) -> None:
        self.show, self.next, self.waiting = show, 0, {}

    def __call__(self, i: int, grid) -> None:
        self.waiting[i] = grid
        while self.next in self.waiting:
            self.show(self.next, self.waiting.pop(self.next))
            self.next += 1


def _grid_options(args: dict) -> dict:
    """generate_grids' keyword options from the command's: permute's only where it runs
    (check_applies refuses them given to another method)."""
    keys = ("time_limit", "moves", "max_restarts") if args["method"] == "permute" else ()
    return {key: args[key] for key in ("time_limit", *keys)}


def run_minimize(args: dict) -> int:
    """Body of `minimize`; returns the exit code: 0, or 2 when a grid of FILE was bad (each one
    line on stderr as it is read, the good grids still emptied, then the closing line 'M
    minimized, B bad in S s', as `solve`'s summary)."""
    import time

    from cli.output import EXIT_BAD_INPUT, EXIT_OK, error_line
    from gpu_anneal import generation as gen

    started = time.perf_counter()
    use_threads(args["threads"])
    check_counts(args)
    bad = SaidFaults()
    grids, order = _grids_to_empty(args, bad)
    notice = emptying_notice(order, grids.shape[0], args["tries"])
    if notice is not None:
        error_line(notice)
    givens, seconds = [], 0.0
    line = RunProgress(total=grids.shape[0], enabled=args["progress"], work="emptying",
                       noun="grids emptied")  # fmt: skip
    with line, messages_above(line):
        for lo, hi in gen.emptying_chunks(grids.shape[0]):
            results = gen.minimize_grids(
                grids[lo:hi], order, args["seed"], args["ti"], args["tf"],
                args["step"], first_index=lo, check_grids=False, tries=args["tries"],
            )  # fmt: skip
            for rec in results:
                print(_puzzle_record(rec, order, args["output"]), flush=True)
                givens.append(rec["givens"])
                seconds += rec["seconds"]
            line.advance(count=len(results))
    if args["stats"]:
        g = np.array(givens)
        _emit_stats(True, {
            "grids": len(givens), "givens_min": int(g.min()),
            "givens_median": float(np.median(g)), "givens_max": int(g.max()),
            "seconds": round(seconds, 6),
        })  # fmt: skip
    if bad:
        error_line(f"{len(givens)} minimized, {len(bad)} bad in "
                   f"{time.perf_counter() - started:.1f} s")  # fmt: skip
        return EXIT_BAD_INPUT
    return EXIT_OK


def _grids_to_empty(args: dict, on_bad) -> tuple[np.ndarray, int]:
    """The full grids `minimize` empties: read from FILE, or generated (--count). A bad grid of
    FILE (unreadable, of another order, not a valid full grid) is handed to on_bad and left out,
    the rest still read; InputError when FILE holds no good grid."""
    from gpu_anneal import generation as gen
    from gpu_anneal import validate
    from gpu_anneal.inputs import read_grids

    validate.seed(args["seed"])
    gen.check_temperatures(args["ti"], args["tf"], args["step"])
    order = args["order"]
    if order is not None:
        gen.check_order(order)
    if args["file"] is not None and args["count"] is not None:
        raise InputError("give a FILE of grids or --count, not both")
    if args["file"] is None and args["count"] is None:
        raise InputError("give a FILE of full grids ('-' for stdin) or --count N")
    if args["file"] is not None:
        for name in ("method", "backend"):
            if args[name] is not None:
                raise InputError(f"--{name} applies to --count (the grids minimize makes), not "
                                 "to a FILE of grids")  # fmt: skip
        grids, order = read_grids(args["file"], order, full=True, on_fault=on_bad)
        return grids, gen.check_order(order)
    order = gen.check_order(3 if order is None else order)
    validate.count(args["count"], order**4)
    method = args["method"] or large_grid_method(order)
    if args["backend"] is not None and method != "anneal":
        raise InputError(f"--backend applies to --method anneal, not {method}")
    grids, gstats = gen.generate_grids(
        order, args["count"], method, args["seed"], args["backend"] or "auto"
    )
    if gstats["failed"]:
        raise InputError(f"{len(gstats['failed'])} grids could not be generated")
    return grids, order


def _threads() -> int:
    import numba

    return numba.get_num_threads()
