"""Hashiwokakero benchmark: exact program (connectivity by lazy cuts), the seed's
objective-only program, and annealing (the seed's energy and the `connected` energy).

Instances from the seed's generator on square grids whose sides give about 4 to 400 islands
(10 per side length, seeded by side and index; at least 4 islands). The exact program runs on
every instance with a 60 s limit; the objective-only program reports how often its answer is
disconnected.
Annealing: 16 chains on the CPU backend, restarts until solved or 10 s; it runs on fewer
instances at the largest sides (they mostly use their whole 10 s); counts are in the results.

Usage: python -m benchmarks.bench_hashi [--quick]
Writes benchmarks/results/grid_puzzles/hashi.json, hashi.md, hashi.png.
"""

from __future__ import annotations

import json
import sys

import matplotlib
import matplotlib.pyplot as plt
import numpy as np

from benchmarks.bench_shikaku import machine
from benchmarks.paths import results
from cpu_reference.hashi import generate as hashi_generate
from cpu_reference.hashi import ilp as hashi_ilp
from cpu_reference.hashi import puzzle as hashi
from cpu_reference.hashi import rules as hashi_anneal

OUT = results("grid_puzzles")
SIDES = (6, 8, 12, 18, 26, 36, 44, 50)
PER_SIDE = 10
ANNEAL_PER_SIDE = {6: 10, 8: 10, 12: 10, 18: 10, 26: 10, 36: 4, 44: 3, 50: 3}
TIME_LIMIT = 10.0
ILP_LIMIT = 60.0
CHAINS = 16
matplotlib.use("Agg")  # pictures into files, no window


def instance(side: int, index: int):
    rng = np.random.default_rng(7000 * side + index)
    while True:
        p, _ = hashi_generate.generate(side, side, rng, n=max(3, side * side // 6))
        if len(p.islands) >= 4:
            return p


def main(quick: bool = False) -> None:
    rows = []
    hashi_anneal.anneal(instance(6, 0), chains=2, max_trials=1)  # compile once
    hashi_anneal.anneal(instance(6, 0), chains=2, max_trials=1, energy="connected")
    for side in SIDES:
        for index in range(PER_SIDE if not quick else 2):
            p = instance(side, index)
            rec = {"side": side, "index": index, "islands": int(len(p.islands)),
                   "edges": int(len(hashi.edge_graph(p).ea)),
                   "game_id": hashi.to_game_id(p)}  # fmt: skip
            exact = hashi_ilp.solve_ilp(p, time_limit=ILP_LIMIT)
            rec["ilp_seconds"] = exact["seconds"]
            rec["ilp_rounds"] = exact["rounds"]
            rec["ilp_ok"] = exact["status"] == "optimal" and hashi.verify(p, exact["bridges"])[0]
            loose = hashi_ilp.solve_ilp(p, time_limit=ILP_LIMIT, mode="objective")
            rec["objective_seconds"] = loose["seconds"]
            rec["objective_disconnected"] = loose["connected"] is False
            rec["objective_ok"] = bool(
                loose["status"] == "optimal" and hashi.verify(p, loose["bridges"])[0]
            )
            if index < (ANNEAL_PER_SIDE[side] if not quick else 1):
                for energy in ("seed", "connected"):
                    a = hashi_anneal.anneal(p, chains=CHAINS, seed=index, time_limit=TIME_LIMIT,
                                            energy=energy)  # fmt: skip
                    bridges = hashi.bridges_from_mult(p, a["graph"], a["mult"])
                    rec[f"anneal_{energy}_solved"] = bool(
                        a["solved"] and hashi.verify(p, bridges)[0]
                    )
                    rec[f"anneal_{energy}_seconds"] = a["seconds"]
            rows.append(rec)
            shown = {k: v for k, v in rec.items() if k != "game_id"}
            print(json.dumps(shown, allow_nan=False), flush=True)
    buckets = bucketize(rows)
    data = {"machine": machine(), "time_limit_s": TIME_LIMIT, "ilp_limit_s": ILP_LIMIT,
            "chains": CHAINS, "summary": buckets, "instances": rows}  # fmt: skip
    OUT.mkdir(parents=True, exist_ok=True)
    name = "hashi_quick" if quick else "hashi"
    (OUT / f"{name}.json").write_text(json.dumps(data, indent=1, allow_nan=False))
    (OUT / f"{name}.md").write_text(markdown(data))
    plot(rows, buckets, OUT / f"{name}.png")


def bucketize(rows):
    out = []
    for side in SIDES:
        rs = [r for r in rows if r["side"] == side]
        if not rs:
            continue
        isl = [r["islands"] for r in rs]
        s = {"side": side, "instances": len(rs), "islands_min": min(isl), "islands_max": max(isl),
             "ilp_solved": float(np.mean([r["ilp_ok"] for r in rs])),
             "ilp_median_s": float(np.median([r["ilp_seconds"] for r in rs])),
             "ilp_max_s": float(np.max([r["ilp_seconds"] for r in rs])),
             "ilp_rounds_max": int(max(r["ilp_rounds"] for r in rs)),
             "objective_median_s": float(np.median([r["objective_seconds"] for r in rs])),
             "objective_disconnected": int(sum(r["objective_disconnected"]
                                               for r in rs))}  # fmt: skip
        for energy in ("seed", "connected"):
            vs = [r for r in rs if f"anneal_{energy}_solved" in r]
            if vs:
                s[f"{energy}_instances"] = len(vs)
                s[f"{energy}_solved"] = float(np.mean([r[f"anneal_{energy}_solved"] for r in vs]))
                s[f"{energy}_median_s"] = float(
                    np.median([r[f"anneal_{energy}_seconds"] for r in vs])
                )
        out.append(s)
    return out


def markdown(data) -> str:
    m = data["machine"]
    lines = [
        "# Hashiwokakero: exact program, objective-only program, annealing",
        "",
        f"Machine: {m['cpu']}, {m['cores']} logical cores ({m['numba_threads']} numba threads), "
        f"Python {m['python']}, numba {m['numba']}, scipy {m['scipy']}; load average at start "
        f"{m['load_average_at_start']:.2f} (the machine is shared, times are noisy).",
        "",
        f"Exact: x, y variables, crossings, degrees, connectivity by lazy cuts (limit "
        f"{data['ilp_limit_s']:.0f} s). Objective-only: the seed's program (maximise used edges,"
        f" no connectivity row). Annealing: {data['chains']} chains, CPU backend, restarts until "
        f"solved or {data['time_limit_s']:.0f} s. 'solved' = passes the verifier (connected). "
        "Command: `python -m benchmarks.bench_hashi`.",
        "",
        "| side | inst. | islands | exact solved | exact median / max s | max rounds | "
        "objective median s | objective disconnected | SA seed: n, solved, median s | "
        "SA connected: n, solved, median s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in data["summary"]:
        cells = []
        for energy in ("seed", "connected"):
            if f"{energy}_instances" in s:
                cells.append(f"{s[f'{energy}_instances']}, {s[f'{energy}_solved']:.2f}, "
                             f"{s[f'{energy}_median_s']:.3f}")  # fmt: skip
            else:
                cells.append("-")
        lines.append(
            f"| {s['side']} | {s['instances']} | {s['islands_min']}-{s['islands_max']} | "
            f"{s['ilp_solved']:.2f} | {s['ilp_median_s']:.3f} / {s['ilp_max_s']:.2f} | "
            f"{s['ilp_rounds_max']} | {s['objective_median_s']:.3f} | "
            f"{s['objective_disconnected']} / {s['instances']} | {cells[0]} | {cells[1]} |"
        )
    lines.append("")
    return "\n".join(lines)


def plot(rows, buckets, path) -> None:
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    isl = [r["islands"] for r in rows]
    ax1.scatter(isl, [r["ilp_seconds"] for r in rows], s=12, label="exact (lazy cuts)")
    ax1.scatter(isl, [r["objective_seconds"] for r in rows], s=12, marker="x",
                label="objective-only")  # fmt: skip
    for energy, mk in (("seed", "s"), ("connected", "^")):
        rs = [r for r in rows if f"anneal_{energy}_seconds" in r]
        ax1.scatter([r["islands"] for r in rs], [r[f"anneal_{energy}_seconds"] for r in rs],
                    s=12, marker=mk, label=f"SA {energy}")  # fmt: skip
    ax1.set_xscale("log")
    ax1.set_yscale("log")
    ax1.set_xlabel("islands")
    ax1.set_ylabel("seconds")
    ax1.set_title("Time to solve")
    ax1.legend(fontsize=8)
    mid = [(b["islands_min"] + b["islands_max"]) / 2 for b in buckets]
    for energy, st in (("seed", "s--"), ("connected", "^-")):
        xs = [m for m, b in zip(mid, buckets, strict=True) if f"{energy}_solved" in b]
        ys = [b[f"{energy}_solved"] for b in buckets if f"{energy}_solved" in b]
        ax2.plot(xs, ys, st, label=f"SA {energy}: valid connected")
    ax2.plot(mid, [b["ilp_solved"] for b in buckets], "o-", label="exact: solved")
    ax2.plot(mid, [b["objective_disconnected"] / b["instances"] for b in buckets], "x:",
             label="objective-only: disconnected")  # fmt: skip
    ax2.set_xscale("log")
    ax2.set_ylim(-0.05, 1.05)
    ax2.set_xlabel("islands (bucket middle)")
    ax2.set_ylabel("rate")
    ax2.set_title("Rates")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
