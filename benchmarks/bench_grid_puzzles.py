"""Shikaku and Hashiwokakero: the exact program against annealing, per grid size.

Both kinds alike: instances from the seed's generator, seeded by size and index; the exact
program on every instance (ILP_LIMIT seconds); annealing with CHAINS chains on the CPU backend,
restarts until solved or TIME_LIMIT seconds, in each of the kind's variants, the slow variants on
fewer instances at the largest sizes (they mostly use their whole TIME_LIMIT there; the counts
are in the results). 'solved' means the kind's verifier accepts the answer.

    shikaku  exact cover (HiGHS); square grids 4, 9, 16, 25, 50 as in seed 004's figures 6 and 7
             (depth drawn in 1..N//2, merge passes in 0..3, merge probability 0.5); annealing
             over the candidate rectangles of each --move: "all" (the seed's), "pruned" and
             "propagated"
    hashi    the exact program (connectivity by lazy cuts) and the seed's objective-only program
             (how often its answer is disconnected); square grids whose sides give about 4 to
             400 islands (at least 4); annealing with the seed's energy and the `connected` one

    python -m benchmarks.bench_grid_puzzles --kind shikaku [--quick | --replot]
    python -m benchmarks.bench_grid_puzzles --kind hashi [--quick | --replot]

Writes benchmarks/results/grid_puzzles/KIND.json, KIND.md and KIND.png (KIND_quick.* with
--quick: a few instances a size); --replot redraws KIND.png from KIND.json.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np

from benchmarks.machine import machine
from benchmarks.paths import results
from cpu_reference.hashi import generate as hashi_generate
from cpu_reference.hashi import ilp as hashi_ilp
from cpu_reference.hashi import puzzle as hashi
from cpu_reference.hashi import rules as hashi_anneal
from cpu_reference.shikaku import generate as shikaku_generate
from cpu_reference.shikaku import ilp as shikaku_ilp
from cpu_reference.shikaku import puzzle as shikaku
from cpu_reference.shikaku import rules as shikaku_anneal

matplotlib.use("Agg")  # pictures into files, no window
OUT = results("grid_puzzles")
TIME_LIMIT = 10.0
ILP_LIMIT = 60.0
CHAINS = 16


@dataclass(frozen=True)
class Kind:
    """What one puzzle kind's benchmark measures; the run itself is `run`'s, for both kinds."""

    sizes: tuple[int, ...]
    instances: dict[int, int]  # instances a size
    always: tuple[str, ...]  # annealing variants run on every instance
    some: tuple[str, ...]  # variants run on the first `some_instances[size]` only
    some_instances: dict[int, int]
    quick: tuple[int, int]  # --quick: instances a size, of which the `some` variants run on
    warm_up: Callable[[], None]  # compile the annealer before anything is timed
    exact: Callable[[int, int], tuple[object, dict]]  # (puzzle, row) of instance (size, index)
    anneal: Callable[[object, str, int], dict]  # a variant's row fields for a puzzle, seed
    summarize: Callable[[list[dict]], list[dict]]
    markdown: Callable[[dict], str]
    plot: Callable[[dict, Path], None]  # the picture of a results document

    def variants(self, size: int, index: int, quick: bool) -> tuple[str, ...]:
        """The annealing variants instance `index` of `size` runs."""
        some = self.quick[1] if quick else self.some_instances[size]
        return self.always + (self.some if index < some else ())


def run(kind: Kind, name: str, quick: bool) -> dict:
    """Measure every instance of every size (a row each, printed as it ends) and write
    NAME.json, .md and .png; the results document."""
    kind.warm_up()
    rows = []
    for size in kind.sizes:
        for index in range(kind.quick[0] if quick else kind.instances[size]):
            puzzle, row = kind.exact(size, index)
            for variant in kind.variants(size, index, quick):
                row.update(kind.anneal(puzzle, variant, index))
            rows.append(row)
            shown = {k: v for k, v in row.items() if k != "game_id"}
            print(json.dumps(shown, allow_nan=False), flush=True)
    data = {"machine": machine("scipy"), "time_limit_s": TIME_LIMIT, "ilp_limit_s": ILP_LIMIT,
            "chains": CHAINS, "summary": kind.summarize(rows), "instances": rows}  # fmt: skip
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{name}.json").write_text(json.dumps(data, indent=1, allow_nan=False))
    (OUT / f"{name}.md").write_text(kind.markdown(data))
    kind.plot(data, OUT / f"{name}.png")
    return data


def machine_line(m: dict) -> str:
    """The machine sentence of a report."""
    return (
        f"Machine: {m['cpu']}, {m['cores']} logical cores ({m['numba_threads']} numba threads), "
        f"Python {m['python']}, numba {m['numba']}, scipy {m['scipy']}; load average at start "
        f"{m['load_average_at_start']:.2f} (the machine is shared, times are noisy)."
    )


# ---------------------------------------------------------------- Shikaku


def shikaku_instance(size: int, index: int):
    """(puzzle, depth, merges) of Shikaku instance `index` of size N (seed 004's generator)."""
    rng = np.random.default_rng(1000 * size + index)
    depth = int(rng.integers(1, max(1, size // 2) + 1))
    merges = int(rng.integers(0, 4))
    p, _ = shikaku_generate.generate(size, size, rng, depth=depth, merge_iters=merges)
    return p, depth, merges


def shikaku_exact(size: int, index: int) -> tuple[object, dict]:
    """An instance and its row: the instance's facts and the exact cover's."""
    p, depth, merges = shikaku_instance(size, index)
    row = {"size": size, "index": index, "depth": depth, "merges": merges, "clues": p.n_clues,
           "game_id": shikaku.to_game_id(p)}  # fmt: skip
    res = shikaku_ilp.solve_ilp(p, time_limit=ILP_LIMIT)
    row["ilp_seconds"] = res["seconds"]
    row["ilp_ok"] = res["status"] == "optimal" and shikaku.verify(p, res["rects"])[0]
    return p, row


def shikaku_anneal_row(p, variant: str, seed: int) -> dict:
    """Annealing over a candidate set: seconds, verified, trials."""
    a = shikaku_anneal.anneal(p, chains=CHAINS, seed=seed, time_limit=TIME_LIMIT,
                              candidate_set=variant)  # fmt: skip
    ok = bool(a["solved"] and shikaku.verify(p, a["rects"])[0])
    return {f"anneal_{variant}_seconds": a["seconds"], f"anneal_{variant}_solved": ok,
            f"anneal_{variant}_trials": a["trials"]}  # fmt: skip


def shikaku_summary(rows) -> list[dict]:
    """Per size: instances, clues, the exact cover's rate and seconds, each variant's."""
    out = []
    for size in SHIKAKU.sizes:
        rs = [r for r in rows if r["size"] == size]
        if not rs:
            continue
        s = {"size": size, "instances": len(rs),
             "clues_median": float(np.median([r["clues"] for r in rs])),
             "ilp_solved": float(np.mean([r["ilp_ok"] for r in rs])),
             "ilp_median_s": float(np.median([r["ilp_seconds"] for r in rs])),
             "ilp_max_s": float(np.max([r["ilp_seconds"] for r in rs]))}  # fmt: skip
        for var in ("all", "pruned", "propagated"):
            vs = [r for r in rs if f"anneal_{var}_solved" in r]
            if not vs:
                continue
            s[f"{var}_instances"] = len(vs)
            s[f"{var}_solved"] = float(np.mean([r[f"anneal_{var}_solved"] for r in vs]))
            s[f"{var}_median_s"] = float(np.median([r[f"anneal_{var}_seconds"] for r in vs]))
            s[f"{var}_max_s"] = float(np.max([r[f"anneal_{var}_seconds"] for r in vs]))
        out.append(s)
    return out


def shikaku_markdown(data) -> str:
    """The Shikaku report."""
    lines = [
        "# Shikaku: exact cover (HiGHS) and annealing",
        "",
        machine_line(data["machine"]),
        "",
        f"Annealing: {data['chains']} chains on the CPU backend, restarts until solved or "
        f"{data['time_limit_s']:.0f} s; 'solved' = a verified exact cover. Instances as seed 004: "
        "depth in 1..N/2, merge passes 0..3. Command: "
        "`python -m benchmarks.bench_grid_puzzles --kind shikaku`.",
        "",
        "| N | inst. | clues (median) | ILP solved | ILP median / max s | SA all: n, solved, "
        "median s | SA pruned: n, solved, median s | SA propagated: n, solved, median / max s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for s in data["summary"]:

        def cell(var, with_max=False, s=s):
            if f"{var}_instances" not in s:
                return "-"
            txt = f"{s[f'{var}_instances']}, {s[f'{var}_solved']:.2f}, {s[f'{var}_median_s']:.3f}"
            return txt + (f" / {s[f'{var}_max_s']:.2f}" if with_max else "")

        lines.append(
            f"| {s['size']} | {s['instances']} | {s['clues_median']:.0f} | {s['ilp_solved']:.2f} "
            f"| {s['ilp_median_s']:.3f} / {s['ilp_max_s']:.2f} | {cell('all')} | "
            f"{cell('pruned')} | {cell('propagated', True)} |"
        )
    lines += [
        "",
        "Seed 004 (figure 7): the plain annealer's optimal rate is 1.0 at 4x4 and 0.95 at 9x9,",
        "falling fast above. 'all' is that annealer; 'pruned' drops rectangles holding another",
        "clue; 'propagated' adds exact propagation (see `shikaku.propagate`) before annealing.",
        "",
    ]
    return "\n".join(lines)


def shikaku_plot(data: dict, path: Path) -> None:
    """Median seconds and verified rate against N, the exact cover and each variant."""
    summary = data["summary"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    sizes = [s["size"] for s in summary]
    ax1.plot(sizes, [s["ilp_median_s"] for s in summary], "o-", color="C0",
             label="ILP (HiGHS) median")  # fmt: skip
    for var, style in (("all", "C1s--"), ("pruned", "C2^--"), ("propagated", "C3d-")):
        xs = [s["size"] for s in summary if f"{var}_median_s" in s]
        ys = [s[f"{var}_median_s"] for s in summary if f"{var}_median_s" in s]
        ax1.plot(xs, ys, style, label=f"SA {var} median")
        ax2.plot(xs, [s[f"{var}_solved"] for s in summary if f"{var}_solved" in s], style,
                 label=f"SA {var}")  # fmt: skip
    ax2.plot(sizes, [s["ilp_solved"] for s in summary], "o-", color="C0", label="ILP")
    ax1.set_yscale("log")
    ax1.set_xlabel("grid size N (N x N)")
    ax1.set_ylabel("seconds")
    ax1.set_title("Time to solve")
    ax1.legend(fontsize=8)
    ax2.set_xlabel("grid size N (N x N)")
    ax2.set_ylabel("rate of verified solutions")
    ax2.set_ylim(-0.05, 1.05)
    ax2.set_title("Annealing: optimal-solution rate (10 s)")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


SHIKAKU = Kind(
    sizes=(4, 9, 16, 25, 50),
    instances={4: 100, 9: 100, 16: 100, 25: 100, 50: 50},
    always=("propagated",),
    some=("all", "pruned"),
    some_instances={4: 100, 9: 100, 16: 50, 25: 30, 50: 8},
    quick=(5, 2),
    warm_up=lambda: shikaku_anneal.anneal(shikaku_instance(4, 0)[0], chains=2, max_trials=1),
    exact=shikaku_exact,
    anneal=shikaku_anneal_row,
    summarize=shikaku_summary,
    markdown=shikaku_markdown,
    plot=shikaku_plot,
)


# ---------------------------------------------------------------- Hashiwokakero


def hashi_instance(side: int, index: int):
    """Hashiwokakero instance `index` of a side (the seed's generator, at least 4 islands)."""
    rng = np.random.default_rng(7000 * side + index)
    while True:
        p, _ = hashi_generate.generate(side, side, rng, n=max(3, side * side // 6))
        if len(p.islands) >= 4:
            return p


def hashi_warm_up() -> None:
    """Compile both energies' annealers."""
    hashi_anneal.anneal(hashi_instance(6, 0), chains=2, max_trials=1)
    hashi_anneal.anneal(hashi_instance(6, 0), chains=2, max_trials=1, energy="connected")


def hashi_exact(side: int, index: int) -> tuple[object, dict]:
    """An instance and its row: the instance's facts, the exact and objective-only programs'."""
    p = hashi_instance(side, index)
    row = {"side": side, "index": index, "islands": int(len(p.islands)),
           "edges": int(len(hashi.edge_graph(p).ea)), "game_id": hashi.to_game_id(p)}  # fmt: skip
    exact = hashi_ilp.solve_ilp(p, time_limit=ILP_LIMIT)
    row["ilp_seconds"] = exact["seconds"]
    row["ilp_rounds"] = exact["rounds"]
    row["ilp_ok"] = exact["status"] == "optimal" and hashi.verify(p, exact["bridges"])[0]
    loose = hashi_ilp.solve_ilp(p, time_limit=ILP_LIMIT, mode="objective")
    row["objective_seconds"] = loose["seconds"]
    row["objective_disconnected"] = loose["connected"] is False
    row["objective_ok"] = bool(
        loose["status"] == "optimal" and hashi.verify(p, loose["bridges"])[0]
    )
    return p, row


def hashi_anneal_row(p, energy: str, seed: int) -> dict:
    """Annealing with an energy: verified (connected), seconds."""
    a = hashi_anneal.anneal(p, chains=CHAINS, seed=seed, time_limit=TIME_LIMIT,
                            energy=energy)  # fmt: skip
    bridges = hashi.bridges_from_mult(p, a["graph"], a["mult"])
    return {f"anneal_{energy}_solved": bool(a["solved"] and hashi.verify(p, bridges)[0]),
            f"anneal_{energy}_seconds": a["seconds"]}  # fmt: skip


def hashi_summary(rows) -> list[dict]:
    """Per side: islands, both programs' figures, each energy's."""
    out = []
    for side in HASHI.sizes:
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


def hashi_markdown(data) -> str:
    """The Hashiwokakero report."""
    lines = [
        "# Hashiwokakero: exact program, objective-only program, annealing",
        "",
        machine_line(data["machine"]),
        "",
        f"Exact: x, y variables, crossings, degrees, connectivity by lazy cuts (limit "
        f"{data['ilp_limit_s']:.0f} s). Objective-only: the seed's program (maximise used edges,"
        f" no connectivity row). Annealing: {data['chains']} chains, CPU backend, restarts until "
        f"solved or {data['time_limit_s']:.0f} s. 'solved' = passes the verifier (connected). "
        "Command: `python -m benchmarks.bench_grid_puzzles --kind hashi`.",
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


def hashi_plot(data: dict, path: Path) -> None:
    """Seconds against islands per instance, and each method's rate per side."""
    rows, buckets = data["instances"], data["summary"]
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


HASHI = Kind(
    sizes=(6, 8, 12, 18, 26, 36, 44, 50),
    instances=dict.fromkeys((6, 8, 12, 18, 26, 36, 44, 50), 10),
    always=(),
    some=("seed", "connected"),
    some_instances={6: 10, 8: 10, 12: 10, 18: 10, 26: 10, 36: 4, 44: 3, 50: 3},
    quick=(2, 1),
    warm_up=hashi_warm_up,
    exact=hashi_exact,
    anneal=hashi_anneal_row,
    summarize=hashi_summary,
    markdown=hashi_markdown,
    plot=hashi_plot,
)

KINDS = {"shikaku": SHIKAKU, "hashi": HASHI}


def main() -> None:
    """Measure one kind (or redraw its picture) and write its results."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kind", choices=list(KINDS), required=True)
    how = ap.add_mutually_exclusive_group()
    how.add_argument("--quick", action="store_true", help="a few instances a size")
    how.add_argument("--replot", action="store_true", help="only redraw KIND.png from KIND.json")
    args = ap.parse_args()
    kind = KINDS[args.kind]
    if args.replot:
        kind.plot(json.loads((OUT / f"{args.kind}.json").read_text()), OUT / f"{args.kind}.png")
        return
    run(kind, f"{args.kind}_quick" if args.quick else args.kind, args.quick)


if __name__ == "__main__":
    main()
