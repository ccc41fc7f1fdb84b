"""Solves a billion moves: the engine's impasse chains (cpu_reference.sudoku.impasse) on one
hard puzzle, each chain starting a fresh trial as soon as it solves, so a run of a few minutes
counts several solves where a run that stops at the first counts one.

A chain's solving is close to memoryless once past its first million moves
(docs/algorithm.md), so the solves of all chains over their moves estimate the rate a chain
solves at, and its inverse the mean moves a solve: the figure that sets the time to the first
solve of C chains at R moves a second each (1 / (rate x C x R)). Each weight table of
--tables is run for --seconds on every puzzle, the chains on xoroshiro128+ streams of --seed
(one stream a chain, continued across its trials). Every solution is verified, and the
distinct solutions are counted.

A weight table is written T[:S[:A1[:A2]]]: the heat bath held at T (impasse.heat_weights),
its stay weight S times w(0) (1: the heat bath), w(1) times A1 and w(2) times A2 (1: the heat
bath's). Any table is one a chain of the engine can run: the kernels read a chain's five
weights from its row, as the CPU runner does.

`--tenures K1,K2` runs every table once for each K: with K > 0, a cell a write opened may not
take back the digit it left during the next K moves (its weight is 0 in the heat bath's draw;
a tabu of tenure K moves in the heat bath's form, run by this module's own slice, an
experiment, not an engine option); K = 0 is the engine's chain, run by its CPU runner.

`--ladders T1/T2/...,...` runs every table once more for each ladder: replica exchange, each
chain a replica on every temperature of the ladder (the table's S, A1 and A2 kept), every
replica making EXCHANGE_MOVES moves between two rounds of exchanges; a round tries the pairs of
neighbouring rungs (k, k + 1) of one parity, alternating, each swapping its replicas' rungs with
probability min(1, exp((1 / T_k - 1 / T_k+1) (open_k - open_k+1))). Its moves are every
replica's. The exchanges draw from numpy's generator of --seed: an experiment (a solution
would not replay from its chain's stream alone), not an engine option.

`--recolours P1,P2` runs every table once more for each P > 0: a move is, with probability P,
the recolouring move of benchmarks.impasse_recolour (a digit missing from a unit of the drawn
open cell takes a cell of that unit by the heat bath over its places, a filled cell rewritten
in one step), else the engine's.

`--graded LOW/HIGH@K,...` runs each such table once a puzzle: the engine's move at the
temperature LOW while a chain has K open cells or fewer and HIGH while it has more
(benchmarks.impasse_graded); its row also gives the share of moves made at K open cells or
fewer.

`--steer K/H,...` runs each such table once a puzzle: the engine's chains, each one's
temperature steered between slices toward the one at which its grid holds K open cells on
average over about H million moves, starting from the first table's (benchmarks.impasse_steer);
its row also gives the chains' temperatures at the end.

Glossary of index names (as in cpu_reference.sudoku.impasse):
    i        chain index; chain i draws from stream i of --seed
    table    one weight table of --tables, the five integers of a chain's row of weights
    cell     r * N + c; left_digit[i, cell], left_at[i, cell]: the digit the cell left when a
             write last opened it, and the move that did

Results: benchmarks/results/tuning/impasse_solve_rate.{json,md} (--out).

    python -m benchmarks.bench_impasse_solve_rate FILE... [--tables 0.32,0.31:1:1:0.5]
        [--tenures 0,1] [--ladders 0.31/0.32/0.33/0.34] [--recolours 0.1,0.3]
        [--graded 0.30/0.34@4] [--steer 20/20] [--seconds 240]
        [--chains 2]
        [--seed 1] [--out PATH]
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numba as nb
import numpy as np
from numba import int64, uint64

from benchmarks.frontier_instances import read_lloyd_amos
from benchmarks.impasse_graded import (
    SEEN_SIZES,
    compile_graded,
    graded_weights,
    parse_graded,
    run_graded,
)
from benchmarks.impasse_recolour import chance_of, compile_recolour, place_tables, run_recolour
from benchmarks.impasse_steer import Steering, parse_steer
from benchmarks.machine import machine, made_by
from benchmarks.paths import results
from benchmarks.tables import (
    add_out_arguments,
    float_list,
    int_list,
    made_sentence,
    rerender,
    table_block,
    write_results,
)
from cpu_reference.anneal.rng import uniform_below
from cpu_reference.sudoku.impasse import (
    BEST,
    BEST_F,
    COUNTS,
    OSET,
    SLICE_AT,
    SOLVED,
    STAY_WEIGHT,
    WEIGHTS,
    _close_cell,
    _open_cell,
    _unit_holder,
    blank_chain,
    chain_arrays,
    compile_chains,
    draw_digit,
    fresh_trial,
    heat_weights,
    impasse_tables,
    run_impasse_cpu,
)
from cpu_reference.sudoku.verify import verify_solution

OUT = results("tuning") / "impasse_solve_rate"
NEVER = -(1 << 40)  # left_at of a cell no write has opened in this trial
EXCHANGE_MOVES = 20_000  # moves of every replica between two rounds of exchanges (--ladders)


@nb.njit(cache=True)
def tabu_slice(
    i, states, best, best_f, solved, grid, holder, oset, where, counts, weights,
    filled, free, cand, ncand, units, side, slice_moves, left_digit, left_at, tenure,
):  # fmt: skip
    """impasse_slice's chain (no fresh trials but the first, best kept only once solved) with
    the tenure-K tabu of the module docstring."""
    if solved[i] != 0:
        return
    s0, s1 = uint64(states[i, 0]), uint64(states[i, 1])
    moves, trials = int64(counts[i, 0]), int64(counts[i, 2])
    if trials == 0:
        s0, s1 = fresh_trial(
            i, s0, s1, grid, holder, oset, where, filled, free, cand, ncand, units, side
        )
        trials = 1
        left_at[i, :] = NEVER
    stay = int64(weights[i, STAY_WEIGHT])
    for _ in range(slice_moves):
        size = int64(oset[i, 0])
        if size == 0:
            break
        at, s0, s1 = uniform_below(s0, s1, size)
        x = int64(oset[i, 1 + int64(at)])
        barred = int64(left_digit[i, x]) if left_at[i, x] >= moves - tenure else 0
        pick, s0, s1 = draw_digit(
            i, x, stay, barred, s0, s1, weights, holder, cand, ncand, units, side
        )
        if pick != 0:
            for k in range(3):
                y = _unit_holder(holder, i, units, x, k, side, pick)
                if y >= 0:
                    left_digit[i, y], left_at[i, y] = pick, moves
                    _open_cell(i, y, grid, holder, oset, where, units, side)
            _close_cell(i, x, pick, grid, holder, oset, where, units, side)
        moves += 1
    if oset[i, 0] == 0:
        solved[i] = 1
        best_f[i] = 0
        best[i, :] = grid[i, :]
    counts[i, 0], counts[i, 2] = moves, trials
    states[i, 0], states[i, 1] = s0, s1


@nb.njit(parallel=True, cache=True)
def run_tabu(
    states, best, best_f, solved, grid, holder, oset, where, counts, weights,
    filled, free, cand, ncand, units, side, slice_moves, left_digit, left_at, tenure,
):  # fmt: skip
    """One slice of tabu_slice on every chain (its arguments after i)."""
    for i in nb.prange(states.shape[0]):
        tabu_slice(
            i, states, best, best_f, solved, grid, holder, oset, where, counts, weights,
            filled, free, cand, ncand, units, side, slice_moves, left_digit, left_at, tenure,
        )  # fmt: skip


def parse_table(text: str) -> dict:
    """{"spec", "temperature", "stay", "a1", "a2"} from T[:S[:A1[:A2]]]; ValueError naming the
    form."""
    parts = text.split(":")
    try:
        values = [float(x) for x in parts]
    except ValueError:
        raise ValueError(f"--tables {text!r}: expected T[:S[:A1[:A2]]], numbers") from None
    if not 1 <= len(values) <= 4:
        raise ValueError(f"--tables {text!r}: expected T[:S[:A1[:A2]]]")
    temperature, stay, a1, a2 = values + [1.0, 1.0, 1.0][: 4 - len(values)]
    if temperature <= 0 or not 0 <= stay <= 1 or a1 < 0 or a2 < 0:
        raise ValueError(f"--tables {text!r}: T above 0, S in 0..1, A1 and A2 0 or more")
    return {"spec": text, "temperature": temperature, "stay": stay, "a1": a1, "a2": a2}


def compile_tabu() -> None:
    """Compile (or load from the cache) run_tabu: 10 moves of one chain on a blank 4x4 grid."""
    _, args = blank_chain()
    run_tabu(*args, np.zeros((1, 16), np.uint8), np.full((1, 16), NEVER), 1)


def ladder_list(text: str) -> list[list[float]]:
    """--ladders' value: ladders T1/T2/... (two or more rising temperatures above 0),
    comma-separated; argparse reports a refusal in one line."""
    try:
        ladders = [[float(t) for t in part.split("/")] for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected T1/T2/...,... numbers") from None
    for ladder in ladders:
        if len(ladder) < 2 or min(ladder) <= 0 or ladder != sorted(set(ladder)):
            raise argparse.ArgumentTypeError(
                f"ladder {ladder}: two or more rising temperatures above 0"
            )
    return ladders


def table_weights(table: dict) -> np.ndarray:
    """int64[5]: a chain's row of weights for `table` (heat_weights, then w(1) and w(2)
    scaled)."""
    weights = heat_weights(table["temperature"], table["stay"])
    weights[2] = round(weights[2] * table["a1"])
    weights[3] = round(weights[3] * table["a2"])
    return weights


def count_solves(
    cells, order: int, table: dict, tenure: int, chains: int, seed: int, seconds: float,
    ladder: list[float] | None = None, max_slices: int | None = None, recolour: float = 0.0,
    graded: dict | None = None, steer: dict | None = None,
) -> dict:  # fmt: skip
    """`chains` chains of `table` (tabu tenure `tenure`, 0: the engine's chain) on one puzzle
    for `seconds` (or `max_slices` slices where given, whichever ends first), each restarting
    on a solve: {solves, moves, seconds, solutions (distinct),
    chain_moves (moves of each solve), by_rung (solves at each rung)}. With a `ladder` of
    temperatures each chain is a replica on every rung (exchanging, module docstring), the
    table's S, A1 and A2 kept at each; with `recolour` > 0 a move recolours with that
    probability (benchmarks.impasse_recolour); with a `graded` table (parse_graded) the
    chains run benchmarks.impasse_graded's slice, and `low_share` is the share of their moves
    made at K open cells or fewer; `mean_open`, the open cells of the chains not solved at a
    slice's end, averaged over the slices; with a `steer` table (parse_steer) each chain's
    temperature is steered between slices (benchmarks.impasse_steer), `temperatures` those at
    the end."""
    tables = impasse_tables(cells, order)
    if tables is None:
        raise ValueError("deduction finds the puzzle has no solution")
    rungs = [{**table, "temperature": t} for t in ladder] if ladder else [table]
    width = len(rungs)
    rows = chains * width  # replica r of chain c: row c * width + r
    args = list(chain_arrays(tables, order, rows, seed, table["temperature"]))
    rung_weights = [table_weights(rung) for rung in rungs]
    rung_of = np.tile(np.arange(width), chains)  # the rung each row is on
    args[WEIGHTS][:] = [rung_weights[r] for r in rung_of]
    if ladder:
        args[SLICE_AT] = EXCHANGE_MOVES
    exchanges = np.random.default_rng(seed)
    solved, counts, best, best_f = args[SOLVED], args[COUNTS], args[BEST], args[BEST_F]
    cells_n = best.shape[1]
    left_digit = np.zeros((rows, cells.size), np.uint8)
    left_at = np.full((rows, cells.size), NEVER, np.int64)
    started = np.zeros(rows, np.int64)  # each row's moves when its trial began
    places = place_tables(tables, order * order) if recolour > 0 else None
    seen = np.zeros((rows, SEEN_SIZES), np.int64)
    grades = graded_weights(graded) if graded else None
    steering = Steering(steer, rows, table["temperature"]) if steer else None
    solve_moves, solutions, by_rung = [], set(), [0] * width
    start = time.perf_counter()
    rounds = 0
    open_sum = open_count = 0  # the open cells of the chains unsolved at each slice's end
    while time.perf_counter() - start < seconds and rounds != max_slices:
        if graded:
            run_graded(*args[: SLICE_AT + 1], grades, graded["below"], seen)
        elif recolour > 0:
            run_recolour(*args[: SLICE_AT + 1], *places, chance_of(recolour))
        elif tenure == 0:
            run_impasse_cpu(*args)
        else:
            run_tabu(*args[: SLICE_AT + 1], left_digit, left_at, tenure)
        unsolved = solved == 0
        open_sum += int(args[OSET][unsolved, 0].sum())
        open_count += int(unsolved.sum())
        for i in np.flatnonzero(solved):
            grid = best[i].astype(np.uint8)
            problem = verify_solution(grid, order, cells)
            if problem is not None:
                raise RuntimeError(f"chain {i} reported a wrong solution: {problem}")
            solutions.add(grid.tobytes())
            solve_moves.append(int(counts[i, 0] - started[i]))
            by_rung[rung_of[i]] += 1
            started[i] = counts[i, 0]
            solved[i] = 0
            counts[i, 1] = 0
            counts[i, 2] = 0  # the next slice starts the chain's fresh trial
            best_f[i] = cells_n + 1
        if steering is not None:
            steering.step(args[OSET][:, 0], counts[:, 1], args[SLICE_AT], args[WEIGHTS])
        if ladder:
            exchange(args, rung_of, rung_weights, ladder, chains, rounds % 2, exchanges)
        rounds += 1
    elapsed = time.perf_counter() - start
    ends = None if steering is None else steering.temperatures.tolist()
    low_share = None
    if graded:
        low_share = float(seen[:, : graded["below"] + 1].sum() / max(1, seen.sum()))
    return {"solves": len(solve_moves), "moves": int(counts[:, 0].sum()), "seconds": elapsed,
            "solutions": len(solutions), "chain_moves": solve_moves,
            "by_rung": by_rung, "low_share": low_share,
            "temperatures": ends, "mean_open": open_sum / max(1, open_count)}  # fmt: skip


def exchange(args, rung_of, rung_weights, ladder, chains: int, parity: int, rng) -> None:
    """Every chain's replicas on rungs (k, k + 1), k of this parity, swap rungs with
    probability min(1, exp((1 / T_k - 1 / T_k+1) (open_k - open_k+1))): their rows of weights
    and rung_of swap."""
    width = len(ladder)
    for c in range(chains):
        rows = c * width + np.arange(width)
        on = rows[np.argsort(rung_of[rows])]  # on[k]: the row on rung k
        for k in range(parity, width - 1, 2):
            a, b = on[k], on[k + 1]
            gain = (1 / ladder[k] - 1 / ladder[k + 1]) * (
                int(args[OSET][a, 0]) - int(args[OSET][b, 0])
            )
            if gain >= 0 or rng.random() < math.exp(gain):
                rung_of[a], rung_of[b] = k + 1, k
                args[WEIGHTS][a], args[WEIGHTS][b] = rung_weights[k + 1], rung_weights[k]


def poisson_interval(k: int) -> tuple[float, float]:
    """A 95 % interval on the mean of a Poisson count k (Wilson-Hilferty's approximation of
    the chi-square quantiles; the upper bound of k = 0 is 3.69)."""

    def chi2_quantile(p: float, dof: float) -> float:
        z = {0.025: -1.959964, 0.975: 1.959964}[p]
        h = 2 / (9 * dof)
        return dof * (1 - h + z * math.sqrt(h)) ** 3

    low = 0.0 if k == 0 else chi2_quantile(0.025, 2 * k) / 2
    return low, chi2_quantile(0.975, 2 * k + 2) / 2


def moves_a_solve_text(run: dict) -> str:
    """Millions of moves a solve (all moves over the solves) with its 95 % interval."""
    moves = run["moves"] / 1e6
    low, high = poisson_interval(run["solves"])
    if run["solves"] == 0:
        return f"> {moves / high:,.0f}"
    upper = f"{moves / low:,.0f}" if low > 0 else "inf"
    return f"{moves / run['solves']:,.0f} ({moves / high:,.0f}-{upper})"


def mean_open_text(run: dict) -> str:
    """The run's mean open cells at the slices' ends, '-' in a run that did not record it."""
    mean_open = run.get("mean_open")
    return "-" if mean_open is None else f"{mean_open:.1f}"


def table_label(run: dict) -> str:
    """A run's table, its recolouring probability where above 0, and its ladder with the
    solves on each rung where it had one; a graded table with its share of moves at K open
    cells or fewer."""
    if run.get("steer"):
        ends = "/".join(f"{t:.3f}" for t in run["temperatures"])
        return f"steered {run['steer']} from {run['table']} (at the end {ends})"
    if run.get("graded"):
        return f"graded {run['graded']} ({run['low_share']:.0%} of moves at K or fewer)"
    ladder = run.get("ladder")
    if not ladder:
        recolour = run.get("recolour") or 0
        return run["table"] + (f", recolouring {recolour:g}" if recolour else "")
    rungs = "/".join(f"{t:g}" for t in ladder)
    solves = "/".join(str(k) for k in run["by_rung"])
    return f"{run['table']}, ladder {rungs} (solves {solves})"


def render(result: dict) -> str:
    """The markdown report."""
    rows = []
    for run in result["runs"]:
        rate = run["moves"] / run["seconds"] / 1e6
        seconds = run["seconds"] / run["solves"] if run["solves"] else None
        rows.append((
            run["puzzle"], table_label(run), f"{run.get('tenure', 0)}", f"{run['solves']}",
            moves_a_solve_text(run),
            f"{run['moves'] / 1e6:,.0f}", f"{rate:.1f}", mean_open_text(run),
            f"{seconds:.3g}" if seconds else f"> {run['seconds']:.0f}", f"{run['solutions']}",
        ))  # fmt: skip
    header = ("puzzle", "table", "tabu tenure", "solves", "M moves a solve (95 %)", "M moves",
              "M/s", "mean open", "s a solve", "solutions")  # fmt: skip
    tail = (
        "Table: T[:S[:A1[:A2]]], a move's chance of recolouring (--recolours), a ladder's "
        "rungs and the solves on each, graded LOW/HIGH@K (--graded), or steered K/H "
        "(--steer) with the chains' last temperatures; tabu tenure: K "
        "moves, 0 the engine's chain (module docstring). M moves a solve: all chains' moves over "
        "their solves, were solving memoryless; the interval is a Poisson count's. Mean open: "
        "the open cells of the unsolved chains at the slices' ends, averaged (- where not "
        "recorded). s a solve: "
        f"the run's seconds over its solves, {result['chains']} chains at once. Solutions: "
        "the distinct verified solutions found."
    )
    head = [
        "# Impasse chains' solves a billion moves on hard puzzles",
        "",
        made_sentence(result)
        + f" {result['chains']} chains (one a thread), seed {result['seed']}, "
        f"{result['seconds']:g} s a table and puzzle, every chain restarting on a solve.",
        "",
    ]
    return "\n".join(head + table_block("## Runs", header, rows, tail))


def main(argv: list[str] | None = None) -> int:
    """Parse the flags, run every puzzle and table, write the results files."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", help="puzzle files in Lloyd & Amos' format")
    ap.add_argument("--tables", default="0.32", help="T[:S[:A1[:A2]]],... : a run each")
    ap.add_argument(
        "--tenures", type=int_list, default="0", help="tabu tenures (0: none): a run each"
    )
    ap.add_argument(
        "--ladders", type=ladder_list, default=[], help="T1/T2/...,... : replica exchange runs"
    )
    ap.add_argument(
        "--recolours", type=float_list, default="0", help="recolouring chances: a run each > 0"
    )
    ap.add_argument("--graded", default="", help="LOW/HIGH@K,... : a graded run each a puzzle")
    ap.add_argument("--steer", default="", help="K/H,... : a steered run each a puzzle")
    ap.add_argument("--seconds", type=float, default=240.0, help="seconds a table and puzzle")
    ap.add_argument("--chains", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1, help="the chains' streams' seed")
    add_out_arguments(ap, OUT)
    args = ap.parse_args(argv)
    if args.render:
        rerender(args.out, render)
        return 0
    try:
        tables = [parse_table(part) for part in args.tables.split(",")]
        grades = [parse_graded(part) for part in args.graded.split(",") if part]
        steers = [parse_steer(part) for part in args.steer.split(",") if part]
    except ValueError as exc:
        ap.error(str(exc))
    if not args.files or args.seconds <= 0 or args.chains < 1 or min(args.tenures) < 0:
        ap.error("give puzzle files, --seconds above 0, --chains 1 or more, --tenures 0 or more")
    if not all(0 <= p <= 1 for p in args.recolours):
        ap.error("--recolours: chances in 0..1")
    facts = machine()
    compile_chains()
    if max(args.tenures) > 0:
        compile_tabu()
    if max(args.recolours) > 0:
        compile_recolour()
    if grades:
        compile_graded()
    runs = []
    for path in args.files:
        order, cells = read_lloyd_amos(Path(path))
        for table in tables:
            settings = [(tenure, None, 0.0) for tenure in args.tenures]
            settings += [(0, ladder, 0.0) for ladder in args.ladders]
            settings += [(0, None, p) for p in args.recolours if p > 0]
            for tenure, ladder, recolour in settings:
                run = count_solves(cells.astype(np.uint8), order, table, tenure, args.chains,
                                   args.seed, args.seconds, ladder, recolour=recolour)  # fmt: skip
                run.update(puzzle=Path(path).stem, table=table["spec"], tenure=tenure,
                           ladder=ladder, recolour=recolour)  # fmt: skip
                print(run["puzzle"], run["table"], tenure, ladder, run["solves"],
                      moves_a_solve_text(run), flush=True)  # fmt: skip
                runs.append(run)
        for graded in grades:
            run = count_solves(cells.astype(np.uint8), order, tables[0], 0, args.chains,
                               args.seed, args.seconds, graded=graded)  # fmt: skip
            run.update(puzzle=Path(path).stem, table=graded["spec"], tenure=0, ladder=None,
                       recolour=0.0, graded=graded["spec"])  # fmt: skip
            print(run["puzzle"], "graded", graded["spec"], run["solves"],
                  moves_a_solve_text(run), f"{run['low_share']:.3f}", flush=True)  # fmt: skip
            runs.append(run)
        for steer in steers:
            run = count_solves(cells.astype(np.uint8), order, tables[0], 0, args.chains,
                               args.seed, args.seconds, steer=steer)  # fmt: skip
            run.update(puzzle=Path(path).stem, table=tables[0]["spec"], tenure=0, ladder=None,
                       recolour=0.0, steer=steer["spec"])  # fmt: skip
            print(run["puzzle"], "steered", steer["spec"], run["solves"],
                  moves_a_solve_text(run), run["temperatures"], flush=True)  # fmt: skip
            runs.append(run)
    result = {**made_by("bench_impasse_solve_rate", argv), "machine": facts,
              "chains": args.chains, "seed": args.seed, "seconds": args.seconds,
              "runs": runs}  # fmt: skip
    write_results(args.out, result, render)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
