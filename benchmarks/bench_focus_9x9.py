"""Focused cells and heat bath on 9x9: how often a chain meets a solution, per proposal and second.

An experiment, not an engine option. A self-contained chain (numba; the engine's cost, conflicting
peer pairs; the candidate move with propagation first; restarts every --trial proposals from a
fresh random grid, 162,000 by default, the proposals of the auto preset's 2,000 plateaus of 81
moves; a temperature held at T) runs on each puzzle with three ways of choosing a move:

    uniform   every free cell alike (the engine's candidate move)
    focused   with probability q, a cell drawn from those in conflict (a peer holds the same
              digit); the set of such cells is kept up to date after each accepted move by
              re-reading the three units of the moved cell
    heat      a cell drawn as focused with q = 1, its digit drawn among its candidates with
              probability proportional to exp(-k / T), k the peers holding that digit (the
              heat bath: no rejection; a draw of the cell's own digit changes nothing)

After each solution the chain restarts. Figures: solutions met per 10^8 proposals and per
second of one core, summed over the puzzles (the first --limit of --file), each chain seeded
by its puzzle's index. Every way runs in the same chain code, so their ratios show what the
focused choice and the heat bath gain; the engine's own loop is faster per proposal than this
one, so the seconds are this experiment's only. Results:
benchmarks/results/tuning/focus_9x9.{json,md}.

    python -m benchmarks.bench_focus_9x9 --file PUZZLES [--limit 20] [--proposals 2e7]
        [--setting uniform:0.34 --setting focused:0.5:0.8 ...]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numba as nb
import numpy as np

from benchmarks.machine import machine
from benchmarks.paths import results
from benchmarks.tables import add_out_arguments, rerender, table_block, write_results
from cpu_reference.sudoku.batch import logic_fill
from cpu_reference.sudoku.formats import iter_puzzles

RESULTS = results("tuning")
SETTINGS = ("uniform:0.3", "uniform:0.34", "uniform:0.4", "focused:0.5:0.8", "focused:0.45:1",
            "focused:0.5:1", "focused:0.55:1", "focused:0.6:1", "focused:0.7:1", "heat:0.4",
            "heat:0.45", "heat:0.5", "heat:0.55")  # fmt: skip


def _peers() -> np.ndarray:
    """int64[81, 20]: the cells sharing a row, column or box with each cell."""
    out = np.zeros((81, 20), np.int64)
    for c in range(81):
        r, k = divmod(c, 9)
        others = [x for x in range(81) if x != c and (x // 9 == r or x % 9 == k or
                  (x // 27, x % 9 // 3) == (r // 3, k // 3))]  # fmt: skip
        out[c] = others
    return out


PEERS = _peers()


@nb.njit(cache=True)
def _unit_of(c, u):
    r = c // 9
    k = c % 9
    if u == 0:
        return r
    if u == 1:
        return 9 + k
    return 18 + (r // 3) * 3 + k // 3


@nb.njit(cache=True)
def _cell_in(unit, j):
    if unit < 9:
        return unit * 9 + j
    if unit < 18:
        return j * 9 + unit - 9
    b = unit - 18
    return ((b // 3) * 3 + j // 3) * 9 + (b % 3) * 3 + j % 3


@nb.njit(cache=True)
def _in_conflict(cnt, v, c):
    d = v[c]
    return cnt[_unit_of(c, 0), d] > 1 or cnt[_unit_of(c, 1), d] > 1 or cnt[_unit_of(c, 2), d] > 1


@nb.njit(cache=True)
def _set_status(c, on, members, pos, size):
    """Add cell c to the conflict set or take it out; returns the new size."""
    if on and pos[c] < 0:
        members[size] = c
        pos[c] = size
        return size + 1
    if not on and pos[c] >= 0:
        last = members[size - 1]
        members[pos[c]] = last
        pos[last] = pos[c]
        pos[c] = -1
        return size - 1
    return size


@nb.njit(cache=True)
def _heat_digit(v, c, cands, nc, T, held, weight):
    """Heat bath on cell c: (a candidate drawn with weight exp(-k / T), its k less the old
    digit's), k the peers holding a digit."""
    held[:] = 0
    for j in range(20):
        held[v[PEERS[c, j]]] += 1
    k_min = 20
    for i in range(nc):
        k_min = min(k_min, held[cands[i]])
    total = 0.0
    for i in range(nc):
        weight[i] = np.exp(-(held[cands[i]] - k_min) / T)
        total += weight[i]
    r = np.random.random() * total
    i = 0
    while i < nc - 1 and r >= weight[i]:
        r -= weight[i]
        i += 1
    return cands[i], held[cands[i]] - held[v[c]]


@nb.njit(cache=True)
def chain(cells, masks, T, q, trial, budget, seed, heat=False):
    """Solutions met in `budget` proposals (held T, restarts every `trial` proposals); with
    `heat`, each proposal's digit comes from the heat bath over the cell's candidates."""
    np.random.seed(seed)
    free = np.flatnonzero(cells == 0)
    cand = np.zeros((81, 9), np.int64)
    ncand = np.zeros(81, np.int64)
    for c in range(81):
        for d in range(9):
            if masks[c] >> d & 1:
                cand[c, ncand[c]] = d
                ncand[c] += 1
    movable = free[ncand[free] > 1]
    M = movable.size
    thr = np.exp(-np.arange(1, 40) / T)
    cnt = np.zeros((27, 9), np.int64)
    v = np.zeros(81, np.int64)
    members = np.zeros(81, np.int64)
    pos = np.full(81, -1, np.int64)
    held = np.zeros(9, np.int64)  # heat: peers holding each digit
    weight = np.zeros(9)  # heat: each candidate's exp(-(k - k_min) / T)
    hits = 0
    done = 0
    while done < budget and M > 0:
        cnt[:] = 0
        for c in range(81):
            v[c] = cells[c] - 1 if cells[c] > 0 else cand[c, np.random.randint(ncand[c])]
            for u in range(3):
                cnt[_unit_of(c, u), v[c]] += 1
        cost = 0
        for c in range(81):
            for j in range(20):
                cost += v[PEERS[c, j]] == v[c]
        cost //= 2
        size = 0
        pos[:] = -1
        for i in range(M):
            size = _set_status(movable[i], _in_conflict(cnt, v, movable[i]), members, pos, size)
        end = done + trial
        while done < budget and done < end and cost > 0:
            done += 1
            if size > 0 and q > 0 and np.random.random() < q:
                c = members[np.random.randint(size)]
            else:
                c = movable[np.random.randint(M)]
            old = v[c]
            if heat:
                new, delta = _heat_digit(v, c, cand[c], ncand[c], T, held, weight)
                if new == old:
                    continue
            else:
                new = cand[c, np.random.randint(ncand[c] - 1)]
                if new == old:
                    new = cand[c, ncand[c] - 1]
                delta = 0  # peers holding the new digit less those holding the old one
                for j in range(20):
                    x = PEERS[c, j]
                    delta += (v[x] == new) - (v[x] == old)
                if delta > 0 and np.random.random() >= thr[delta - 1]:
                    continue
            for u in range(3):
                cnt[_unit_of(c, u), old] -= 1
                cnt[_unit_of(c, u), new] += 1
            v[c] = new
            cost += delta
            if q > 0:
                for u in range(3):
                    unit = _unit_of(c, u)
                    for j in range(9):
                        x = _cell_in(unit, j)
                        if pos[x] >= 0 or (v[x] == old or v[x] == new) and ncand[x] > 1:
                            if cells[x] == 0:
                                size = _set_status(x, _in_conflict(cnt, v, x), members, pos, size)
        if cost == 0:
            hits += 1
    return hits, done


def parse_setting(text: str) -> tuple[str, float, float, bool]:
    """'uniform:T', 'focused:T:q' or 'heat:T' -> (name, T, q, heat)."""
    parts = text.split(":")
    if parts[0] == "uniform" and len(parts) == 2:
        return text, float(parts[1]), 0.0, False
    if parts[0] == "focused" and len(parts) == 3:
        return text, float(parts[1]), float(parts[2]), False
    if parts[0] == "heat" and len(parts) == 2:
        return text, float(parts[1]), 1.0, True
    raise SystemExit(f"--setting {text}: want uniform:T, focused:T:q or heat:T")


def measure(args) -> dict:
    """Every setting on every puzzle."""
    puzzles = []
    for puzzle in iter_puzzles(args.file, order=3):
        if isinstance(puzzle, Exception):
            raise SystemExit(str(puzzle))
        filled, masks = logic_fill(puzzle.cells, 3)
        puzzles.append((filled.astype(np.int64), masks))
        if len(puzzles) == args.limit:
            break
    for heat in (False, True):  # compile
        chain(puzzles[0][0], puzzles[0][1], 0.4, 0.5, 1000, 10_000, 1, heat)
    rows = []
    for text in args.setting or SETTINGS:
        name, T, q, heat = parse_setting(text)
        start = time.perf_counter()
        per = [chain(f, m, T, q, args.trial, args.proposals, i + 1, heat)[0]
               for i, (f, m) in enumerate(puzzles)]  # fmt: skip
        seconds = time.perf_counter() - start
        total = len(puzzles) * args.proposals
        row = {"setting": name, "T": T, "q": q, "solutions": int(sum(per)),
               "puzzles_met": int(sum(h > 0 for h in per)), "proposals": total,
               "seconds": seconds, "per_1e8": 1e8 * sum(per) / total,
               "per_second": sum(per) / seconds}  # fmt: skip
        rows.append(row)
        print(json.dumps(row), flush=True)
    command = "python -m benchmarks.bench_focus_9x9 " + " ".join(sys.argv[1:])
    return {"machine": machine(), "args": {k: str(v) for k, v in vars(args).items()},
            "puzzles": len(puzzles), "rows": rows, "command": command}  # fmt: skip


def render(result: dict) -> str:
    """The markdown report."""
    m = result["machine"]
    a = result["args"]
    uniform = [r for r in result["rows"] if r["q"] == 0]
    # the baseline: the best uniform row, else the first row
    base = max(uniform or result["rows"][:1], key=lambda r: r["per_second"])
    cells = [(r["setting"], f"{r['solutions']}", f"{r['puzzles_met']}/{result['puzzles']}",
              f"{r['per_1e8']:.1f}", _ratio(r["per_1e8"], base["per_1e8"]),
              f"{r['per_second']:.2f}", _ratio(r["per_second"], base["per_second"]))
             for r in result["rows"]]  # fmt: skip
    lines = ["# Focused cell choice and heat bath on 9x9 (an experiment, not an engine option)", "",
             f"Machine: {m['cpu']}, {m['cores']} cores, load average at start "
             f"{m['load_average_at_start']:.2f}, {m['date']}. {Path(a['file']).name}, first "
             f"{result['puzzles']} puzzles; {float(a['proposals']):.0e} proposals a puzzle, "
             f"restart every {a['trial']} proposals and after each solution; held T; "
             "one thread.", ""]  # fmt: skip
    header = ("setting (T, q)", "solutions", "puzzles met", "per 10^8 proposals",
              f"per 10^8 / {base['setting']}", "per second",
              f"per second / {base['setting']}")  # fmt: skip
    lines += table_block("## Solutions met", header, cells, f"Command: `{result['command']}`")
    return "\n".join(lines)


def _ratio(x: float, y: float) -> str:
    return f"{x / y:.2f}" if y > 0 else "-"


def main() -> None:
    """Run the settings and write the results."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", type=Path, help="puzzles (required unless --render)")
    ap.add_argument("--limit", type=int, default=20)
    ap.add_argument("--proposals", type=lambda t: int(float(t)), default=20_000_000)
    ap.add_argument("--trial", type=int, default=162_000)
    ap.add_argument("--setting", action="append", help="uniform:T, focused:T:q, heat:T")
    add_out_arguments(ap, RESULTS / "focus_9x9")
    args = ap.parse_args()
    if args.render:
        rerender(args.out, render)
        return
    if args.file is None:
        ap.error("--file is required to measure")
    result = measure(args)
    write_results(args.out, result, render)


if __name__ == "__main__":
    main()
