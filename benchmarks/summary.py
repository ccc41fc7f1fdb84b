"""Build benchmarks/results/SUMMARY.md, the headline list of docs/performance.md and README's
few headline figures from the results JSON files.

    python -m benchmarks.summary            rewrite the three files
    python -m benchmarks.summary --check    exit 1 naming each file that differs from its output
    --results DIR  --summary FILE  --page FILE  --readme FILE   (other places, e.g. for tests)

Every figure is read from a JSON file in a topic folder of benchmarks/results/ (TOPIC/NAME.json,
the topics of benchmarks/paths.py); nothing here holds a measured number. Targets come from the
bench scripts' constants where they define one, otherwise from the issue that set them (written
in TARGETS below; a target is a requirement, not a measurement). Figures from
kernels/kernel_model_*.json are computed from compiled code, never run on a GPU: their rows say
"model, not measured". A results file that is absent gives a "no results file" row, or nothing
for the optional ones (OPTIONAL). In benchmarks/results/ only the files git tracks count (`git
add` a new results file first), so the committed summary follows the committed results; with
--results DIR every JSON file under DIR counts.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import statistics
import subprocess
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks import bench_frontier as frontier_bench
from benchmarks import bench_lloyd_amos
from benchmarks import card_vs_cores_report as report
from benchmarks.tables import secs

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
SUMMARY = RESULTS / "SUMMARY.md"
PAGE = ROOT / "docs" / "performance.md"
README = ROOT / "README.md"
# docs/performance.md's block: every headline bullet (BULLETS); README's: a few (HEADLINES)
BEGIN = "<!-- benchmarks:begin (python -m benchmarks.summary) -->"
END = "<!-- benchmarks:end -->"
README_BEGIN = "<!-- headline:begin (python -m benchmarks.summary) -->"
README_END = "<!-- headline:end -->"
MODEL = "model, not measured"
WIDTH = 100  # lines of the two markdown blocks
OPTIONAL = {
    "exact/exact_peers.json",
    "anneal/anneal_peers.json",
    "anneal/anneal_solve_candidate.json",
    "host/first_call.json",
    "anneal/paper.json",
}
# Requirements from the issues (not measurements); the bench scripts' own constants are read
# from their source by `script_constant` instead.
TARGETS = {
    "throughput_ratio": ">= 0.9",
    "second_call": "second < 1.5 s",
    "anneal_top95": ">= 90/95",
    "anneal_all": "all",
    "tts_top95": "median < 1 s",
    "tts_default_9x9": "median <= 0.1 s",
    "exact_25": "median < 1 s",
    "grids_9x9": ">= 1,000/s",
    "minimal_9x9": "median <= 22, < 2 s",
    "fill_16x16": ">= 95 % per level",
    "ptxas": "no spills",
}


class Missing(Exception):
    """A results file that is not there (or not tracked by git)."""


@dataclass(frozen=True)
class Row:
    """One line of a summary table."""

    what: str
    figure: str
    target: str
    command: str
    source: str


@dataclass
class Results:
    """The JSON files under one results folder, each read once by its path relative to the folder
    (TOPIC/NAME.json); `used` lists those read."""

    folder: Path
    only: set[str] | None = None  # relative paths allowed (None: every file under the folder)
    used: dict[str, object] = field(default_factory=dict)

    def load(self, name: str):
        """The parsed file at relative path `name`; Missing when it is absent or not allowed."""
        if name not in self.used:
            path = self.folder / name
            if not path.exists() or (self.only is not None and name not in self.only):
                raise Missing(name)
            self.used[name] = json.loads(path.read_text(encoding="utf-8"))
        return self.used[name]

    def names(self, pattern: str) -> list[str]:
        """Relative paths of the files matching a glob pattern (TOPIC/NAME_*.json), sorted."""
        found = (p.relative_to(self.folder).as_posix() for p in self.folder.glob(pattern))
        return sorted(n for n in found if self.only is None or n in self.only)


# ---------------------------------------------------------------- formatting


def rate(x: float, unit: str = "/s") -> str:
    """A rate: 242 G/s, 104.9 M/s, 92.1k/s, 2.75k/s, 46/s."""
    if x >= 1e9:
        return f"{x / 1e9:.3g} G{unit}"
    if x >= 1e6:
        return f"{x / 1e6:.1f} M{unit}"
    if x >= 1e4:
        return f"{x / 1e3:.1f}k{unit}"
    if x >= 1e3:
        return f"{x / 1e3:.2f}k{unit}"
    return f"{x:,.0f}{unit}"


def num(x: float) -> str:
    """A count or mean: integers with thousands commas, others to three significant digits."""
    if float(x).is_integer():
        return f"{int(x):,}"
    return f"{x:,.1f}" if x >= 100 else f"{x:.3g}"


def pct(x: float) -> str:
    """A fraction as a percentage."""
    return f"{100 * x:.0f} %"


def script_constant(script: str, name: str):
    """A module-level constant of benchmarks/SCRIPT, read from its source without importing it."""
    tree = ast.parse((ROOT / "benchmarks" / script).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return ast.literal_eval(node.value)
    raise KeyError(f"{script}: {name}")


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile, linear between closest ranks (numpy's default)."""
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


# ---------------------------------------------------------------- Sudoku core (CPU)


def throughput(res: Results) -> list[Row]:
    """Proposals/s of the engine against the native loop, per thread count; other moves."""
    name = "throughput/throughput.json"
    d = res.load(name)
    cmd = f"python -m benchmarks.bench_throughput --seconds {d['seconds']:g}"
    rows = []
    for r in d["rows"]:
        t = r["threads"]
        rows.append(
            Row(
                f"Sirdey proposals/s, engine / native loop, {t} thread{'s' * (t != 1)}",
                f"{rate(r['engine_proposals_per_second'])} / "
                f"{rate(r['native_proposals_per_second'])} = **{r['ratio']:.2f}**",
                TARGETS["throughput_ratio"],
                cmd,
                name,
            )
        )
    other = d.get("other_moves_all_threads", {})
    if other:
        threads = max(r["threads"] for r in d["rows"])
        rows.append(
            Row(
                f"{', '.join(other)} move, {threads} threads",
                ", ".join(rate(v) for v in other.values()),
                "",
                cmd,
                name,
            )
        )
    return rows


def move_rate(res: Results) -> list[Row]:
    """One-cell moves' proposals/s while solving (one thread), per version of the rules."""
    name = "throughput/move_rate.json"
    d = res.load(name)
    by_move: dict[str, list[str]] = {}
    for r in d["rows"]:
        by_move.setdefault(r["move"], []).append(
            f"{rate(r['proposals_per_second'])} ({r['label']})"
        )
    return [
        Row(
            f"{move} move while solving (forum_hardest_1106, deduction first, auto schedule), "
            "1 thread, same trajectories",
            ", ".join(figures),
            "",
            "python -m benchmarks.bench_move_rate --label LABEL --move MOVE",
            name,
        )
        for move, figures in by_move.items()
    ] + [_frontier_move_rate(res, size) for size in ("36x36", "49x49", "64x64")]


def _frontier_move_rate(res: Results, size: str) -> Row:
    """The focused move's proposals/s on one frontier instance (one thread), per version."""
    name = f"throughput/move_rate_{size}.json"
    d = res.load(name)
    figures = [f"{rate(r['proposals_per_second'])} ({r['label']})" for r in d["rows"]]
    file = d["setting"].split(",")[0]  # the setting starts with the instance's file name
    return Row(
        f"focused move while solving {file} ({size}, deduction first, auto schedule), 1 thread, "
        "same trajectories",
        ", ".join(figures),
        "",
        f"python -m benchmarks.bench_move_rate --file benchmarks/data/frontier/{file} --limit 1 "
        "--chains 2 --plateaus 1000 --move focused --label LABEL",
        name,
    )


def exact(res: Results) -> list[Row]:
    """The exact solver: 9x9 sets, tdoku's test puzzles, 25x25 at 40 and 45 % fill."""
    name = "exact/exact.json"
    d = res.load(name)
    cmd = "python -m benchmarks.bench_exact"
    rows = []
    for set_name, s in d["sets"].items():
        first, count = s["first_solution"], s["count_to_2"]
        target = s.get("published", {}).get("target")
        rows.append(
            Row(
                f"exact, {set_name.removesuffix('.txt')} ({first['puzzles']:,}), "
                f"{d['threads']} thread, first / count to 2",
                f"{rate(first['puzzles_per_s_wall'])} / {rate(count['puzzles_per_s_wall'])}",
                f">= {rate(target)}" if target else "",
                cmd,
                name,
            )
        )
    t = d.get("tdoku_test_puzzles")
    if t:
        rows.append(
            Row(
                f"exact, tdoku's test puzzles ({t['right'] + t['wrong']})",
                f"{t['right']} right counts and solutions, {t['wrong']} wrong",
                "all",
                cmd,
                name,
            )
        )
    g = d.get("general_25x25_40_45", {})
    for variant, r in g.items():
        fills = sorted({k.split("_")[1] for k in r["per_instance"]}, key=int)
        rows.append(
            Row(
                f"exact, 25x25 at {' and '.join(f'{f} %' for f in fills)} fill "
                f"({r['instances']}), {variant}",
                f"median {secs(r['median_s'])}, p90 {secs(r['p90_s'])}, max {secs(r['max_s'])}; "
                f"{r['solved']}/{r['instances']} within a {r['node_cap']:,}-node cap",
                TARGETS["exact_25"],
                cmd,
                name,
            )
        )
    return rows


def exact_peers(res: Results) -> list[Row]:
    """The exact solver beside tdoku (same run, one thread each); batch mode; large grids."""
    name = "exact/exact_peers.json"
    d = res.load(name)
    ratio_target = script_constant("bench_exact_peers.py", "TARGET_RATIO")
    large_target = script_constant("bench_exact_peers.py", "TARGET_LARGE_S")
    cmd = d.get("command_9x9", "python -m benchmarks.bench_exact_peers --part 9x9")
    rows = []
    for set_name, by_limit in d.get("sets", {}).items():
        for r in by_limit:
            rows.append(
                Row(
                    f"exact beside tdoku, {set_name.removesuffix('.txt')} ({r['puzzles']:,}), "
                    f"limit {r['limit']}, engine / tdoku",
                    f"{rate(r['fast_puzzles_per_second'])} / "
                    f"{rate(r['tdoku_puzzles_per_second'])} = **{r['ratio_fast_to_tdoku']:.2f}**",
                    f">= {ratio_target}" if r["limit"] == 2 else "",
                    cmd,
                    name,
                )
            )
    for set_name, r in d.get("batch", {}).items():
        rows.append(
            Row(
                f"exact batch (`solve_many`), {set_name.removesuffix('.txt')}, limit "
                f"{r['limit']}, {r['threads']} threads",
                rate(r["puzzles_per_second"]),
                "",
                cmd,
                name,
            )
        )
    cmd = d.get("command_large", "python -m benchmarks.bench_exact_peers --part large")
    for key, title in (("large_25", "25x25 (Lloyd & Amos)"), ("large_36", "36x36")):
        for fill, r in sorted(d.get(key, {}).items(), key=lambda kv: int(kv[0])):
            counts = ", ".join(f"{k}: {v}" for k, v in sorted(r["counts"].items()))
            rows.append(
                Row(
                    f"exact, {title} at {fill} % fill ({r['instances']}), count to 2",
                    f"median {secs(r['median_s'])}, p90 {secs(r['p90_s'])}, "
                    f"max {secs(r['max_s'])}; counts {counts}",
                    f"each <= {large_target:g} s",
                    cmd,
                    name,
                )
            )
    return rows


def anneal_solve(res: Results, name: str) -> list[Row]:
    """Annealing on 4x4, the seed's grids and top95: solved, times, trials."""
    d = res.load(name)
    sizes = {s["set"]: s["puzzles"] for s in d["sets"]}
    cmd = (
        f"python -m benchmarks.bench_anneal_solve --move {d['move']} --schedule {d['schedule']}"
        + (f" --t0 {d['t0']:g}" if d["t0"] is not None else "")
        + f" --chains {d['chains']} --time-limit {d['time_limit']:g}"
        + (f" --limit {sizes['top95']}" if "top95" in sizes else "")
        + (f" --fours {sizes['4x4']}" if "4x4" in sizes else "")
        + f" --name {Path(name).stem}"
    )
    how = f"{d['move']} move, {d['schedule']}" + (f" from T0 = {d['t0']:g}" if d["t0"] else "")
    rows = []
    for s in d["sets"]:
        t = [r["seconds"] for r in s["rows"]]
        full = s["set"] == "top95" and s["puzzles"] == 95
        rows.append(
            Row(
                f"annealing ({how}), {s['set']} ({s['puzzles']}), {d['time_limit']:g} s each, "
                f"{d['chains']} chains",
                f"**{s['solved']}/{s['puzzles']}** (median {secs(statistics.median(t))}, "
                f"p90 {secs(percentile(t, 90))}, max {secs(max(t))})",
                TARGETS["anneal_top95"] if full else TARGETS["anneal_all"],
                cmd,
                name,
            )
        )
    paper = paper_trials(res)
    for s in d["sets"]:
        if s["set"] != "top95":
            continue
        rows.append(
            Row(
                f"mean trials per solved puzzle, s per trial on one core ({how}), top95",
                f"{num(s['mean_trials_per_solved'])}, {secs(s['seconds_per_trial_one_core'])}"
                + (f"; the paper's tables: {paper}" if paper else ""),
                "",
                cmd,
                name + (", anneal/paper.json" if paper else ""),
            )
        )
    return rows


def anneal_default(res: Results) -> list[Row]:
    """anneal_solve_default.json: the published schedule with Sirdey's move."""
    return anneal_solve(res, "anneal/anneal_solve_default.json")


def anneal_candidate(res: Results) -> list[Row]:
    """anneal_solve_candidate.json: the candidate move."""
    return anneal_solve(res, "anneal/anneal_solve_candidate.json")


def paper_trials(res: Results) -> str:
    """The paper's mean trials per solved run, as a range over its tables ('' without paper)."""
    try:
        d = res.load("anneal/paper.json")
    except Missing:
        return ""
    values = {r["paper_mean_trials"] for m in d["measurements"] for r in m["rows"]}
    values.discard(None)
    return f"{min(values):g}-{max(values):g}" if values else ""


# ---------------------------------------------------------------- CUDA kernels


def ptxas(res: Results) -> list[Row]:
    """ptxas -v figures of every kernel, per architecture."""
    rows = []
    for name in res.names("kernels/ptxas_sm_*.json"):
        arch = Path(name).stem.removeprefix("ptxas_")
        cmd = f"gpu-anneal kernels --arch {arch} --json"
        for r in res.load(name):
            size = r["size"] if r["size"] == "any" else f"{r['size'] ** 2}x{r['size'] ** 2}"
            bounds = r["launch_bounds"]
            launch = f"{bounds[0]} threads, {bounds[1]} blocks/SM" if bounds else "no bounds"
            rows.append(
                Row(
                    f"{r['kernel']} {size}, {arch}, {launch}",
                    f"{r['registers']} registers, spills {r['spill_stores']} / "
                    f"{r['spill_loads']} B, stack {r['stack_frame']} B, "
                    f"shared {r['shared_bytes']:,} B",
                    TARGETS["ptxas"],
                    cmd,
                    name,
                )
            )
    if not rows:
        rows.append(Row("ptxas figures", "no results file", "", "", "kernels/ptxas_sm_*.json"))
    return rows


def kernel_model(res: Results) -> list[Row]:
    """Modeled proposals/s per kernel, each size, on the card(s) of the file's architecture."""
    rows = []
    order = {"before": 0, "after": 1}
    files = {name: res.load(name) for name in res.names("kernels/kernel_model_*.json")}
    for name, d in sorted(
        files.items(), key=lambda kv: (kv[1]["arch"], order.get(kv[1]["label"], 2), kv[0])
    ):
        arch = d["arch"]
        cc = [int(c) for c in arch.removeprefix("sm_")]
        cards = [c for c, v in d["cards"].items() if v["cc"] == cc] or list(d["cards"])
        cmd = f"python -m benchmarks.bench_kernel_model --label {d['label']}"
        for kernel in dict.fromkeys(r["kernel"] for r in d["records"]):
            records = [r for r in d["records"] if r["kernel"] == kernel]
            parts = []
            for r in records:
                size = r["size"] if r["size"] == "any" else f"{r['size'] ** 2}x{r['size'] ** 2}"
                model = r.get("model") or {}
                sass = r.get("sass") or {}
                rates = [
                    f"{rate(model[c]['proposals_per_second'])}"
                    + (f" on {c}" if len(cards) > 1 else "")
                    + f" ({model[c]['bound']} bound)"
                    for c in cards
                    if c in model and model[c].get("proposals_per_second") is not None
                ]
                n = sass.get("instructions_per_proposal")
                if n is not None:
                    upper = "<= " if sass.get("instructions_per_proposal_is_upper_bound") else ""
                    rates.append(f"{upper}{n} instr./proposal")
                parts.append(
                    f"{size}: {', '.join(rates) or 'no move loop found'}, {r['registers']} regs"
                )
            rows.append(
                Row(
                    f"{kernel}, {arch}, {d['label']} (commit {d['git_commit'][:7]}), proposals/s "
                    f"on {', '.join(cards)}",
                    f"{MODEL}: " + "; ".join(parts),
                    "",
                    cmd,
                    name,
                )
            )
    return rows


def coop_latency(res: Results) -> list[Row]:
    """The cooperative kernel's latency model: its calibration on the card's figures and the
    25x25 chain's modeled rate against the target, as built and with the best change."""
    name = "kernels/coop_latency.json"
    d = res.load(name)
    cal = d["calibration"]
    cmd = "python -m benchmarks.bench_coop_latency"
    parts = [
        f"{r['order'] ** 2}x{r['order'] ** 2} {r['move']} {rate(r['chain_proposals_per_second'])}"
        f" vs {rate(r['model_chain_proposals_per_second'])}"
        for r in cal["rows"]
    ]
    left = [r["measured_over_left_out"] for r in cal["rows"]]
    rows = [
        Row(
            f"Latency model of the kernels' rounds (sm_90, {d['card']}): card figures of one "
            "wave a chain, measured vs modeled (one calibration factor)",
            f"{MODEL}: factor {cal['scale']:.2f} card cycles a modeled cycle; "
            + "; ".join(parts)
            + f"; measured / model {min(left):.2f}-{max(left):.2f} with the factor fitted "
            "without the figure",
            "",
            cmd,
            name,
        )
    ]
    target = d["target_chain_proposals_per_second"]
    for key, changes in d["changes"].items():
        order, card_name = key.split(":")
        if order != "5":
            continue
        built = changes[0]["solving_many"]["chain_proposals_per_second"]
        fits = [c for c in changes if c.get("fits")]
        best = max(fits, key=lambda c: c["solving_many"]["chain_proposals_per_second"])
        rows.append(
            Row(
                f"One 25x25 focused chain on {card_name}, full wave, acceptance of real solves, a "
                "puzzle a chain",
                f"{MODEL}: as built {rate(built)}; best change ({best['name']}) "
                f"{rate(best['solving_many']['chain_proposals_per_second'])}",
                f">= {rate(target)}",
                "same",
                name,
            )
        )
    return rows


def impasse_latency(res: Results) -> list[Row]:
    """The impasse kernels' latency model: its check on the one-thread kernel's lone chain and
    a chain's modeled rate in one wave of the warp kernel, at each order modeled."""
    name = "kernels/impasse_latency.json"
    d = res.load(name)
    cmd = "python -m benchmarks.bench_impasse_latency"
    check = d["lone_check"]
    factors = (d["coop_scale"], d["impasse_scale"])
    rows = [
        Row(
            f"Impasse kernels' latency model (sm_90, {d['card']}): the one-thread kernel's lone "
            "chain, measured vs modeled",
            f"{MODEL}: {rate(check['model_coop'], ' moves/s')} (factor {factors[0]:.2f}) "
            f"against {rate(check['measured'], ' moves/s')} measured on the card; measured / "
            f"model {check['ratio']:.2f}",
            "",
            cmd,
            name,
        )
    ]
    for cell in d["cells"]:
        side = cell["order"] ** 2
        parts = []
        for kind in ("warp-global", "warp-shared"):
            wave = cell["kernels"].get(kind, {}).get("wave")
            if wave:
                low, high = (wave["chain_rate_bare"] / f for f in factors)
                parts.append(f"{kind} {rate(low, ' moves/s')}-{rate(high, ' moves/s')}")
        rows.append(
            Row(
                f"A chain of one wave of the impasse warp kernel, {side}x{side} at "
                f"{cell['fill']} % ({cell['wave_chains']:,} chains)",
                f"{MODEL} (factors {factors[0]:.2f} and {factors[1]:.2f}): " + "; ".join(parts),
                "",
                "same",
                name,
            )
        )
    return rows


# ---------------------------------------------------------------- generation


def generation(res: Results) -> list[Row]:
    """Full grids per second by method, completion of given puzzles, minimal puzzles."""
    name = "generation/generation.json"
    d = res.load(name)
    cmd = "python -m benchmarks.bench_generation" + (" --quick" if d.get("quick") else "")
    rows = []
    seen = set()
    for r in d["full_grids"]:
        n = r["order"] ** 2
        key = (r["order"], r["method"], r.get("moves"))
        if key in seen:  # a repeat of the same measurement: the first is reported
            continue
        seen.add(key)
        extra = f", stuck {num(r['restarts_per_grid'])} times per grid" if "stuck" in r else ""
        moves = f" ({r['moves']} moves)" if "moves" in r else ""
        target = TARGETS["grids_9x9"] if (r["order"], r["method"]) == (3, "anneal") else ""
        rows.append(
            Row(
                f"full {n}x{n} grids/s, {r['method']}{moves}",
                f"**{num(round(r['grids_per_second']))}**; {r['verified']:,}/{r['count']:,} "
                f"verified, {r['distinct']:,} distinct{extra}",
                target,
                cmd,
                name,
            )
        )
    for r in d.get("completion_with_givens", []):
        rows.append(
            Row(
                f"completing {r['puzzle']} ({r['givens']} givens), {r['method']}",
                f"{r['completed']}/{r['count']} completed in {secs(r['seconds'])}",
                "",
                cmd,
                name,
            )
        )
    for key in ("minimal_9x9_tries4", "minimal_9x9", "minimal_16x16"):
        if key not in d:
            continue
        r = d[key]
        n = r["order"] ** 2
        hist = ", ".join(f"{k}: {v}" for k, v in r["givens_histogram"].items())
        tries = r["params"]["tries"]
        rows.append(
            Row(
                f"minimal {n}x{n} ({r['grids']} grids), {tries} "
                + ("emptying" if tries == 1 else "emptyings, best kept"),
                f"median {num(r['givens_median'])} givens ({hist}), "
                f"{secs(r['seconds_per_puzzle'])} per puzzle; {r['unique']}/{r['grids']} unique, "
                f"{r['minimal']}/{r['grids']} minimal",
                TARGETS["minimal_9x9"] if key == "minimal_9x9_tries4" else "",
                cmd,
                name,
            )
        )
    s = d.get("seed_grid_9x9")
    if s:
        rows.append(
            Row(
                f"minimal 9x9 from {s['grid']}, {s['runs']} runs",
                f"givens {min(s['givens'])}-{max(s['givens'])} "
                f"(median {num(statistics.median(s['givens']))}), "
                f"median {secs(s['seconds_median'])} per puzzle",
                "",
                cmd,
                name,
            )
        )
    return rows


# ---------------------------------------------------------------- time to solution


def tts_target(label: str, d: dict) -> str:
    """The target a TTS99 row answers: the default technique's on the hard 9x9 sets, else
    top95's older one."""
    if d["move"] == "auto" and d["schedule"] == "auto" and label in ("top95", "forum_hardest_1106"):
        return TARGETS["tts_default_9x9"]
    return TARGETS["tts_top95"] if label == "top95" else ""


def tts(res: Results) -> list[Row]:
    """TTS99 per tts_*.json: the summary, and each puzzle where a file holds three or fewer."""
    rows = []
    for name in res.names("tts/tts_*.json"):
        d = res.load(name)
        s = d["summary"]
        cmd = (
            f"gpu-anneal bench tts {d['file']} --runs {d['runs']} --move {d['move']} "
            f"--schedule {d['schedule']}"
            + (f" --t0 {d['t0']:g}" if d["t0"] is not None else "")
            + (" --propagate" if d.get("propagate") else "")
            + f" --time-limit {d['time_limit']:g} --limit {s['puzzles']} --json"
        )
        move = "auto (focused-two on 9x9)" if d["move"] == "auto" else d["move"]
        how = f"{move} move, {d['schedule']}" + (
            f" from T0 = {d['t0']:g}" if d["t0"] is not None else ""
        )
        how += ", deduction first" if d.get("propagate") else ""
        label = Path(d["file"]).stem
        rows.append(
            Row(
                f"TTS99, {label} ({s['puzzles']} puzzles, {d['runs']} runs each), {how}",
                f"median **{secs(s['tts99_median'])}** of one core "
                f"({secs(s['tts99_machine_median'])} on the machine), "
                f"p90 {secs(s['tts99_p90'])}; mean trials (median) {num(s['mean_trials_median'])}, "
                f"{secs(s['seconds_per_trial_median'])} per trial",
                tts_target(label, d),
                cmd,
                name,
            )
        )
        if len(d["puzzles"]) > 3:
            continue
        for p in d["puzzles"]:
            rows.append(
                Row(
                    f"TTS99, {label} #{p['index']} ({p['givens']} givens), {how}",
                    f"{secs(p['tts99'])} [{secs(p['tts99_low'])}, {secs(p['tts99_high'])}] of "
                    f"one core; {p['solved_runs']}/{p['runs']} runs solved, mean trials "
                    f"{num(p['mean_trials'])}",
                    "",
                    "same",
                    name,
                )
            )
    if not rows:
        rows.append(Row("TTS99", "no results file", "", "", "tts/tts_*.json"))
    return rows


# ---------------------------------------------------------------- the paper's table


def paper(res: Results) -> list[Row]:
    """Mean trials per solved run for the paper's grids, per measurement and schedule."""
    name = "anneal/paper.json"
    d = res.load(name)
    rows = []
    for m in d["measurements"]:
        for r in m["rows"]:
            lo = 1 / r["p_high"] if r.get("p_high") else None
            hi = 1 / r["p_low"] if r.get("p_low") else None
            span = f" (1/p range {lo:.2f}-{hi:.2f})" if lo and hi else ""
            mean = "none solved" if r["mean_trials"] is None else f"{r['mean_trials']:.2f}"
            paper_figure = r.get("paper_mean_trials")
            rows.append(
                Row(
                    f"{r['name']} ({r['givens']} givens), {r['schedule']}, stall "
                    f"{r['stall_mode']}, {r['solved_runs']}/{r['runs']} runs solved",
                    f"mean trials {mean}{span}, {secs(r['seconds_per_trial'])} per trial",
                    f"paper: {paper_figure:g}" if paper_figure is not None else "",
                    m["command"],
                    name,
                )
            )
    return rows


# ---------------------------------------------------------------- fill ratio


def fill(res: Results) -> list[Row]:
    """Success rate against fill per grid size: levels all solved, the weakest level."""
    name = "anneal/fill.json"
    d = res.load(name)
    a = d["args"]
    cmd = (
        f"python -m benchmarks.bench_fill --per-level {a['per_level']} "
        f"--time-limit {a['time_limit']:g}"
    )
    rows = []
    for size in dict.fromkeys(r["size"] for r in d["table"]):
        levels = [r for r in d["table"] if r["size"] == size]
        weakest = min(levels, key=lambda r: (r["rate"], -r["mean_seconds"]))
        slowest = max(levels, key=lambda r: r["mean_seconds"])
        full = sum(r["rate"] == 1.0 for r in levels)
        rows.append(
            Row(
                f"{size}, {sum(r['instances'] for r in levels)} instances over "
                f"{len(levels)} fill levels, {a['time_limit']:g} s each, {a['move']} move",
                f"**{full}/{len(levels)}** levels all solved; weakest {weakest['fill']} % fill: "
                f"{weakest['solved']}/{weakest['instances']}; slowest {slowest['fill']} % fill "
                f"(mean {secs(slowest['mean_seconds'])})",
                TARGETS["fill_16x16"] if size == "16x16" else "",
                cmd,
                name,
            )
        )
    return rows


# ---------------------------------------------------------------- scale-out, other puzzles


def dask(res: Results) -> list[Row]:
    """Dask workers against one process: same results, wall seconds."""
    name = "scale/dask.json"
    d = res.load(name)
    st = d["settings"]
    cmd = (
        f"python -m benchmarks.bench_dask --count {d['input']['puzzles']} --workers {st['workers']}"
    )
    rows = []
    for key in ("dask_cold_vs_one_process", "dask_warm_vs_one_process"):
        c = d[key]
        same = [k for k in ("same_solved_set", "same_solutions", "every_field_equal") if c[k]]
        rows.append(
            Row(
                f"Dask, {st['workers']} workers ({key.split('_')[1]}) against one process, "
                f"{d['input']['puzzles']} top95 puzzles",
                f"{c['solved']}/{c['results']} solved; equal: {', '.join(same) or 'nothing'}",
                "every field equal",
                cmd,
                name,
            )
        )
    sec = d["seconds"]
    rows.append(
        Row(
            "Dask wall seconds: one process / cold / warm (worker compile)",
            f"{secs(sec['one_process'])} / {secs(sec['dask_cold'])} / {secs(sec['dask_warm'])} "
            f"({secs(sec['worker_compile'])})",
            "",
            cmd,
            name,
        )
    )
    return rows


def first_call(res: Results) -> list[Row]:
    """The first call of the CLI (empty compile cache) against the second."""
    name = "host/first_call.json"
    d = res.load(name)
    cmd = f"python -m benchmarks.bench_first_call --repeats {len(d['first_call_s'])}"
    return (
        [
            Row(
                "`gpu-anneal solve`, one easy 9x9: first call (empty cache) / second call",
                f"{secs(d['first_median_s'])} / {secs(d['second_median_s'])} (median); "
                f"all solved: {d['all_solved']}",
                TARGETS["second_call"],
                cmd,
                name,
            )
        ]
        + start_example(res)
        + host_capacity(res)
    )


def host_capacity(res: Results) -> list[Row]:
    """The host side of a card's run with a stand-in runner (benchmarks/bench_host.py)."""
    name = "host/host.json"
    d = res.load(name)
    rows = d["rows"]
    text = "; ".join(
        f"{label} ({r['commit']}): {num(round(r['puzzles_per_second']))}/s, "
        f"{r['host_us_per_puzzle']:.0f} us a puzzle"
        for label, r in rows.items()
    )
    return [
        Row(
            f"Host side of a card's run, {num(next(iter(rows.values()))['puzzles'])} hard 9x9 "
            "isomorphs, stand-in runner (no kernel), every result verified and written as JSON",
            text,
            ">= 20,000 puzzles/s on 2 cores",
            d["command"],
            name,
        )
    ]


def start_example(res: Results) -> list[Row]:
    """`solve --example seed002 --backend cpu` in fresh processes on this machine (the start
    workload of benchmarks/card_vs_cores.py, run without a card)."""
    name = "host/start_cpu.json"
    d = res.load(name)
    first = report.find(d["rows"], "start", "cpu", "first")
    second = report.find(d["rows"], "start", "cpu", "second")
    return [
        Row(
            "`gpu-anneal solve --example seed002 --backend cpu`: first run (empty cache) / "
            "second run",
            f"{secs(first['wall_seconds'])} / **{secs(second['wall_seconds'])}**",
            "second run <= 1.5 s",
            "python -m benchmarks.bench_gpu --part card_vs_cores --workloads start --backends "
            "cpu --fresh --out-dir DIR",
            name,
        )
    ]


def shikaku(res: Results) -> list[Row]:
    """Shikaku per size: the integer program and each annealing option."""
    name = "grid_puzzles/shikaku.json"
    d = res.load(name)
    rows = []
    for s in d["summary"]:
        parts = [f"ILP {pct(s['ilp_solved'])} (median {secs(s['ilp_median_s'])})"]
        for opt in ("propagated", "pruned", "all"):
            if f"{opt}_solved" in s:
                parts.append(
                    f"{opt} {pct(s[f'{opt}_solved'])} of {s[f'{opt}_instances']} "
                    f"(max {secs(s[f'{opt}_max_s'])})"
                )
        rows.append(
            Row(
                f"Shikaku {s['size']}x{s['size']} ({s['instances']}), "
                f"{d['time_limit_s']:g} s limit",
                "; ".join(parts),
                "",
                "python -m benchmarks.bench_grid_puzzles --kind shikaku",
                name,
            )
        )
    return rows


def hashi(res: Results) -> list[Row]:
    """Hashiwokakero per side: exact program with cuts, objective-only, annealing."""
    name = "grid_puzzles/hashi.json"
    d = res.load(name)
    rows = []
    for s in d["summary"]:
        rows.append(
            Row(
                f"Hashiwokakero {s['side']}x{s['side']} ({s['instances']}, "
                f"{s['islands_min']}-{s['islands_max']} islands), {d['time_limit_s']:g} s limit",
                f"ILP with cuts {pct(s['ilp_solved'])} (max {secs(s['ilp_max_s'])}); "
                f"objective-only disconnected {s['objective_disconnected']}; annealing "
                f"connected {pct(s['connected_solved'])} of {s['connected_instances']}, "
                f"seed's {pct(s['seed_solved'])} of {s['seed_instances']}",
                "",
                "python -m benchmarks.bench_grid_puzzles --kind hashi",
                name,
            )
        )
    return rows


def anneal_peers(res: Results) -> list[Row]:
    """Annealing beside CP-SAT and the exact solver: per set and method, over all levels."""
    name = "anneal/anneal_peers.json"
    d = res.load(name)
    cmd = "; ".join(d.get("commands", [])) or "python -m benchmarks.bench_anneal_peers"
    rows = []
    for set_name in dict.fromkeys(r["set"] for r in d["table"]):
        for method in dict.fromkeys(r["method"] for r in d["table"] if r["set"] == set_name):
            part = [r for r in d["table"] if r["set"] == set_name and r["method"] == method]
            levels = [str(r["level"]) for r in part if r["level"] is not None]
            medians = [r["median"] for r in part if r["median"] is not None]
            ratios = [r["ratio_to_cpsat"] for r in part if r.get("ratio_to_cpsat") is not None]
            figure = f"{sum(r['solved'] for r in part)}/{sum(r['instances'] for r in part)} solved"
            if medians:
                figure += f"; median per level {span(medians, secs)}"
            if ratios and method != "cpsat":
                figure += f"; ratio to CP-SAT {span(ratios, lambda x: f'{x:.2g}')}"
            limits = sorted({r["limit"] for r in part})
            rows.append(
                Row(
                    f"{set_name}"
                    + (f" at {', '.join(levels)} % fill" if levels else "")
                    + f", {method}, {'/'.join(f'{x:g}' for x in limits)} s limit",
                    figure,
                    "",
                    cmd,
                    name,
                )
            )
    return rows


# the engine's default (--method auto) on bench_frontier's grids, after the peers' table:
# (results file, what its rows add to "NxN at F % fill")
FRONTIER_DEFAULT = (
    ("frontier/frontier_auto_36x36_50.json", ""),
    ("frontier/frontier_auto_36x36_50_second_run.json", ", the same chains again (ac80a69)"),
    ("frontier/frontier_auto_36x36_50_peers.json", ", beside the peers (4986c37)"),
    ("frontier/frontier_auto_heldout_36x36_50.json", ", held-out grids (seed 4)"),
    ("frontier/frontier_auto_heldout_36x36_50_seed7.json", ", held-out grids (seed 7)"),
    ("frontier/frontier_auto_heldout_36x36_50_seed7_300s.json", ", held-out grids (seed 7)"),
    ("frontier/frontier_auto_49x49_50.json", ""),
    ("frontier/frontier_auto_heldout_49x49_50.json", ", held-out grids (seed 4), beside the peers"),
    ("frontier/frontier_auto_64x64_45.json", ""),
    ("frontier/frontier_auto_45.json", ", beside the peers"),
    ("frontier/frontier_auto_heldout_45.json", ", held-out grids (seed 4), beside the peers"),
    ("frontier/frontier_generator_grids.json", ", grids from the generator (not a pattern)"),
)


def frontier(res: Results) -> list[Row]:
    """gpu-anneal beside CP-SAT and CaDiCaL on large grids, then the default alone: one row
    per file, order, fill and limit."""
    rows = frontier_rows(res, "frontier/frontier.json")
    present = set(res.names("frontier/frontier_*.json"))  # none: the peers' rows alone
    for name, note in FRONTIER_DEFAULT:
        if name in present:
            rows += frontier_rows(res, name, note)
    return rows


def lloyd_amos(res: Results) -> list[Row]:
    """The engine's default beside CP-SAT on Lloyd & Amos' 25x25 set: one row per level."""
    name = "frontier/lloyd_amos_25x25.json"
    d = res.load(name)
    rows = []
    for level in d["levels"]:
        parts = []
        for solver in d["solvers"]:
            part = [r for r in d["rows"] if r["level"] == level and r["solver"] == solver]
            s = bench_lloyd_amos.summary(part)
            median = bench_lloyd_amos.seconds_text(s["median"], d["limit"])
            slowest = bench_lloyd_amos.seconds_text(s["max"], d["limit"])
            parts.append(f"{solver}: {s['solved']}/{s['instances']}, median {median}, "
                         f"slowest {slowest}")  # fmt: skip
        rows.append(Row(
            f"Lloyd & Amos 25x25 at {level} % fill ({d['per_level']}), {d['limit']:g} s limit",
            "; ".join(parts), "", d["command"], name,
        ))  # fmt: skip
    return rows


def frontier_rows(res: Results, name: str, note: str = "") -> list[Row]:
    """One bench_frontier results file's rows: one per order, fill and limit."""
    d = res.load(name)
    cmd = "; ".join(run["command"] for run in d["runs"])
    rows = []
    for order, fill, limit in dict.fromkeys(
        (e["order"], e["fill"], e["limit"]) for e in d["table"]
    ):
        part = [
            e for e in d["table"] if (e["order"], e["fill"], e["limit"]) == (order, fill, limit)
        ]
        figure = "; ".join(
            f"{frontier_bench.LABELS.get(e['solver'], e['solver'])}: {frontier_bench.cell_text(e)}"
            for e in part
        )
        rows.append(
            Row(
                f"{part[0]['size']} at {fill} % fill ({max(e['instances'] for e in part)})"
                f"{note}, {limit:g} s limit",
                figure,
                frontier_bench.TARGETS.get((order, fill), ""),
                cmd,
                name,
            )
        )
    return rows


def span(values: list[float], fmt: Callable[[float], str]) -> str:
    """One value, or 'low to high'."""
    lo, hi = min(values), max(values)
    return fmt(lo) if lo == hi else f"{fmt(lo)} to {fmt(hi)}"


# ---------------------------------------------------------------- document


def _modeled(res: Results, kernel: str, order: int) -> float | None:
    """The committed model's H100 SXM proposals/s of a kernel and order (sm_90, after)."""
    try:
        d = res.load("kernels/kernel_model_sm_90_after.json")
    except Missing:
        return None
    for r in d["records"]:
        if r["kernel"] == kernel and r["size"] == order:
            return (r.get("model") or {}).get("H100 SXM", {}).get("proposals_per_second")
    return None


def gpu_measured(res: Results) -> list[Row]:
    """Figures measured on a CUDA card by benchmarks/bench_gpu.py."""
    rows = []
    eq = res.load("gpu/gpu_equality.json")
    cases = eq["rows"]
    same = sum(r["equal"] for r in cases)
    orders = sorted({r["order"] for r in cases})
    moves = list(dict.fromkeys(r["move"] for r in cases))
    gpu = eq["machine"]["gpu"]
    rows.append(Row(
        f"Kernel against CPU runner on {gpu}: counters, grids, bitboards, best grids, RNG states "
        f"and solved bounds equal after the same slices (orders {orders[0]}-{orders[-1]}, "
        f"{len(moves)} moves, a never-solving puzzle with many chains and real puzzles with one "
        "chain each)",
        f"**{same} of {len(cases)}** cases equal "
        f"({num(sum(r.get('proposals', 0) for r in cases))} proposals compared)",
        "", "python -m benchmarks.bench_gpu --part equality", "gpu/gpu_equality.json",
    ))  # fmt: skip
    tp = res.load("gpu/gpu_throughput.json")
    cmd = "python -m benchmarks.bench_gpu --part throughput"
    by_case: dict = {}
    for r in tp["cuda"]:
        if "proposals_per_second" in r:
            by_case.setdefault((r["order"], r["move"], r["schedule"]), {})[r["waves"]] = r
    for (order, move, schedule), waves in by_case.items():
        kernel = "sudoku" if move == "sirdey" else f"sudoku-{move}"
        side = order * order
        one = waves.get(1, next(iter(waves.values())))
        measured = one["proposals_per_second"]
        model = _modeled(res, kernel, order) if schedule == "native regime" else None
        vs = f"; model {rate(model)}, measured / model **{measured / model:.2f}**" if model else ""
        four = f", 4 waves {rate(waves[4]['proposals_per_second'])}" if 4 in waves else ""
        rows.append(Row(
            f"{side}x{side} {move} kernel on {gpu}, {schedule}, one wave "
            f"({num(one['wave_chains'])} chains)",
            f"{rate(measured)}{four}{vs}", "", cmd, "gpu/gpu_throughput.json",
        ))  # fmt: skip
    cpu = {(r["order"], r["move"], r["schedule"]): r for r in tp["cpu"]}
    native = tp.get("native") or {}
    sird = cpu.get((3, "sirdey", "native regime"))
    if sird and native.get("proposals_per_second"):
        e, n = sird["proposals_per_second"], native["proposals_per_second"]
        rows.append(Row(
            f"Same machine's CPU, {sird['threads']} threads: 9x9 Sirdey engine / native loop",
            f"{rate(e)} / {rate(n)} = {e / n:.2f}; the card's one wave: "
            f"**{by_case[(3, 'sirdey', 'native regime')][1]['proposals_per_second'] / e:.0f}x** "
            "the engine on these cores", "", cmd, "gpu/gpu_throughput.json",
        ))  # fmt: skip
    co = res.load("gpu/gpu_cpu_orders.json")
    parts = []
    for r in co["cpu"]:
        card = by_case.get((r["order"], r["move"], "native regime"), {}).get(1)
        side = r["order"] ** 2
        ratio = (
            f" (card {card['proposals_per_second'] / r['proposals_per_second']:.1f}x)"
            if card
            else ""
        )
        parts.append(f"{side}x{side} {r['move']} {rate(r['proposals_per_second'])}{ratio}")
    rows.append(Row(
        f"Same machine's CPU, {co['cpu'][0]['threads']} threads, larger grids",
        "; ".join(parts), "", "python -m benchmarks.bench_gpu --part cpu_orders",
        "gpu/gpu_cpu_orders.json",
    ))  # fmt: skip
    for name, when in (("gpu/gpu_solve.json", "before"), ("gpu/gpu_pool.json", "before"),
                       ("gpu/gpu_pool_after.json", "after")):  # fmt: skip
        d = res.load(name)
        part = d["part"]
        seen = set()
        for r in d["rows"]:
            key = (r["set"], r["backend"], r.get("batch"), r.get("chains_asked"))
            if "wall_seconds" not in r:
                continue
            again = " (again)" if key in seen else ""
            seen.add(key)
            how = "card" if r["backend"] == "cuda" else f"{d['machine']['cores']} CPU cores"
            plan = ""
            if r["backend"] == "cuda" and r.get("batch"):
                plan = f", all {r['batch']} at once" + (
                    f", {r['chains_asked']} chains each" if r.get("chains_asked") else ""
                )
            rows.append(Row(
                f"{r['set']}, whole set, default technique, {how}{plan}{again} "
                + (f"(pool row copies {when} the driver-level copy)" if r["backend"] == "cuda"
                   else "(same run as the card rows above)"),
                f"{r['solved']}/{r['puzzles']} verified in **{secs(r['wall_seconds'])}**; "
                f"median {secs(r['median_search_seconds'])}, p90 "
                f"{secs(r['p90_search_seconds'])} a puzzle ({r['chains_per_puzzle']} chains)",
                "", f"python -m benchmarks.bench_gpu --part {part}", name,
            ))  # fmt: skip
    for name in ("gpu/gpu_latency.json", "gpu/gpu_latency_after.json"):
        d = res.load(name)
        for r in d["rows"]:
            how = (
                f"card, {num(r['chains_per_puzzle'])} chains"
                if r["backend"] == "cuda"
                else (f"{d['machine']['cores']} CPU cores, a chain each")
            )
            rows.append(Row(
                f"One puzzle at a time ({r['file']}, first {r['puzzles']}), {how}",
                f"{r['solved']}/{r['puzzles']} solved, median **{secs(r['median_seconds'])}**, "
                f"p90 {secs(r['p90_seconds'])} a puzzle",
                "", "python -m benchmarks.bench_gpu --part latency", name,
            ))  # fmt: skip
    return rows


def card_vs_cores(res: Results) -> list[Row]:
    """The card against the same machine's cores, `gpu-anneal solve` as a user runs it
    (benchmarks/card_vs_cores.py; the tables in full: gpu/card_vs_cores.md)."""
    name = "gpu/card_vs_cores.json"
    d = res.load(name)
    cmd = "python -m benchmarks.bench_gpu --part card_vs_cores"
    rows = []
    for label, card, cores, ratio, pps, solved, busy in report.main_table(d["rows"]):
        extra = "" if pps == "-" else f"; {pps}"
        extra += "" if busy == "-" else f"; kernel busy (nvidia-smi / events) {busy}"
        rows.append(Row(
            f"{label}: card / 16 cores (wall, start-up included)",
            f"{card} / {cores}, **{ratio}**{extra}; checked solved {solved}", "", cmd, name,
        ))  # fmt: skip
    for label, card, cores, busy in report.large_table(d["rows"]):
        rows.append(Row(label, f"card: {card} (busy {busy}); 16 cores: {cores}", "", cmd, name))
    for what, target, figure, verdict in report.targets(d["rows"]):
        rows.append(Row(f"Target: {what}", f"{figure} ({verdict})", target, cmd, name))
    return rows


def card_move_choice(res: Results) -> list[Row]:
    """The 9x9 move that solves fastest on the card: CPU-measured solving-chain proposals over
    card-measured kernel rates (benchmarks/card_move_choice.py; a model from measurements)."""
    name = "tuning/card_move_choice.json"
    d = res.load(name)
    rows = []
    for chains in d["chain_counts"]:
        ranked = sorted(
            (r for r in d["rows"] if r["chains"] == chains),
            key=lambda r: (r["unsolved"] > 0, r["kernel_seconds"]),
        )
        best = ranked[0]["kernel_seconds"]
        text = ", ".join(
            f"{r['move']} {r['kernel_seconds'] * 1e3:.2f} ms ({r['kernel_seconds'] / best:.1f}x)"
            + (f", {r['unsolved']} unsolved" if r["unsolved"] else "")
            for r in ranked
        )
        rows.append(Row(
            f"Fastest 9x9 move on the card, {chains} chains a puzzle: modeled kernel time of "
            f"{d['puzzles']} hard isomorphs (solving-chain proposals measured on the CPU, "
            f"kernel rates on the {d['rates_machine']}; a model)",
            text, "the card's default move solves fastest there (issue 28)", d["command"], name,
        ))  # fmt: skip
    return rows


def virtual_card(res: Results) -> list[Row]:
    """The virtual card (benchmarks/virtual_card.py, a model): the committed card runs modeled,
    then 60,000 isomorphs on the pool as built and on the designs beside it."""
    name = "gpu/virtual_card.json"
    d = res.load(name)
    cmd = "python -m benchmarks.virtual_card --calibrate --save"
    rows = []
    for r in d["runs"]:
        m, g = r["measured"], r["modeled"]
        rows.append(Row(
            f"Virtual card ({MODEL}): {r['label']}, {g['slots']:,} x {g['chains']:,} chains, "
            "measured / modeled wall",
            f"{secs(m['wall_seconds'])} / {secs(g['wall_seconds'])} ({r['error']:+.0%}); "
            f"slices {m['slices']:,} / {g['slices']:,}; useful {pct(g['useful_fraction'])} = "
            f"live slots {pct(g['live_slot_share'])} x useful share "
            f"{pct(g['useful_share_of_live'])}",
            f"within {d['tolerance']:.0%}", cmd, name,
        ))  # fmt: skip
    p = d["predicted"]
    if p is None:
        return rows
    before = [(d["before"]["pool"], d["before"])] if d.get("before") else []
    built = "the pool as built" + (
        f", {p['pool'].replace(' (as built)', '')}" if "pool" in p else ""
    )
    for what, x in before + [(built, p)] + [(x["pool"], x) for x in d["designs"]]:
        rows.append(Row(
            f"Virtual card ({MODEL}): 60,000 isomorphs, {what}, {x['slots']:,} x "
            f"{x['chains']:,} chains",
            f"{rate(x['puzzles_per_second'])} after start-up, useful "
            f"{pct(x['useful_fraction'])}",
            ">= 30,000/s, >= 60 % useful", cmd, name,
        ))  # fmt: skip
    return rows


def card_checks(res: Results) -> list[Row]:
    """Equality of the kernels with the CPU runner and Ctrl-C on a long run, on a card."""
    rows = []
    name = "gpu/gpu_equality_coop_ff6696e.json"
    d = res.load(name)
    bad = [r for r in d["rows"] if not r["equal"]]
    differing = "; ".join(
        f"order {r['order']} {r['batch']} ({', '.join(k for k, v in r['fields'].items() if not v)})"
        for r in bad
    )
    rows.append(Row(
        f"Kernels against the CPU runner on {d['machine']['gpu']}, orders 4-5, focused move, at "
        "commit ff6696e",
        f"{len(d['rows']) - len(bad)} of {len(d['rows'])} equal; differing: "
        + differing,
        "", "python -m benchmarks.bench_gpu --part equality --orders 4,5 --moves focused", name,
    ))  # fmt: skip
    name = "gpu/gpu_equality_o3_cc165ce.json"
    d = res.load(name)
    rows.append(Row(
        f"The same after the fix (cc165ce), 9x9, {len(d['rows'])} cases "
        "(orders 4-6: gpu/card_check_cc165ce.log)",
        f"{sum(r['equal'] for r in d['rows'])} of {len(d['rows'])} equal "
        f"({num(sum(r.get('proposals', 0) for r in d['rows']))} proposals compared)",
        "", "bash benchmarks/card_session.sh check", name,
    ))  # fmt: skip
    name = "gpu/card_interrupt.json"
    d = res.load(name)
    for r in d["rows"]:
        first, final = r["interrupted_file"], r["resumed_file"]
        rows.append(Row(
            f"Ctrl-C after {r['after_seconds']:g} s on {num(d['puzzles'])} isomorphs of "
            f"{d['base']}, {d['backend']} backend",
            f"exit {r['exit_code']}; {num(first['solved'])} solved records written, "
            f"{first['wrong_grids']} wrong, {first['records'] - first['solved']} `interrupted`; "
            f"`--resume` (exit {r['resume_exit_code']}): {num(final['indices'])} puzzles, "
            f"{num(final['solved'])} solved, {final['wrong_grids']} wrong",
            "exit 130, nothing lost", "python -m benchmarks.card_interrupt", name,
        ))  # fmt: skip
    return rows


SECTIONS: list[tuple[str, str, list[Callable[[Results], list[Row]]]]] = [
    (
        "Sudoku: proposals per second and the exact solver (CPU)",
        "",
        [
            throughput,
            move_rate,
            exact,
            exact_peers,
        ],
    ),
    ("Sudoku: annealing", "", [anneal_default, anneal_candidate]),
    (
        "Measured on a CUDA card (`benchmarks/bench_gpu.py`)",
        "Every figure in this section ran on the card named in each row; the kernel model's "
        "figure beside a rate is the committed model (sm_90), not a measurement.",
        [gpu_measured],
    ),
    (
        "The card against its machine's cores, as a user runs it",
        "`gpu-anneal solve` in a fresh process a measurement, start-up included, on the card and "
        "on the same machine's 16 cores in one run (tables in full: `gpu/card_vs_cores.md`).",
        [card_vs_cores, card_checks, card_move_choice, virtual_card],
    ),
    (
        "CUDA kernels: ptxas (compiled, no device)",
        "`ptxas -v` figures of each kernel as compiled for the architecture; nothing ran on a GPU.",
        [ptxas],
    ),
    (
        "Performance model (a model, not a measurement)",
        "Proposals/s computed from the SASS of each kernel's move loop on the card(s) of the "
        "file's architecture (docs/performance-model.md); never run on a GPU.",
        [kernel_model, coop_latency, impasse_latency],
    ),
    ("Generation", "Grids checked by the verifier; puzzles unique and minimal.", [generation]),
    (
        "Time to solution (`gpu-anneal bench tts`)",
        "TTS99 in seconds of one core: each run (one chain) alone on a core, as many runs at "
        "once as the machine has cores; on the machine, divided by the cores. Brackets: 95 % "
        "interval.",
        [tts],
    ),
    (
        "The paper's table (`benchmarks/bench_paper.py`)",
        "The paper's grids emptied at random to its number of givens; mean trials per solved run.",
        [paper],
    ),
    (
        "Success rate against fill ratio",
        "Table per level: `anneal/fill.md`; plot: `anneal/fill.png`.",
        [fill],
    ),
    (
        "Large grids near the phase transition, beside CP-SAT and CaDiCaL",
        "`benchmarks/bench_frontier.py`: Lewis-style instances, every solver under the same "
        "limit on the same cores; solved of instances and the median (tables: "
        "`frontier/frontier.md`); then the engine's default, `--method auto` (the impasse "
        "chains on the cores), on the same grids (`frontier/frontier_auto_*.md`); then the "
        "default and the peers again at 49x49 and 64x64 on instances cut from the generator's "
        "random grids, where the others are cut from a shuffled pattern grid "
        "(`frontier/frontier_generator_grids.md`); then Lloyd & Amos' published 25x25 set, the "
        "first instances of each level (`frontier/lloyd_amos_25x25.md`).",
        [frontier, lloyd_amos],
    ),
    (
        "Scale-out, start-up and the other puzzles",
        "",
        [dask, first_call, shikaku, hashi, anneal_peers],
    ),
]


def section_rows(res: Results, builder: Callable[[Results], list[Row]]) -> list[Row]:
    """A builder's rows; one row naming the file when it is absent or lacks a figure."""
    try:
        return builder(res)
    except Missing as e:
        name = e.args[0]
        return [] if name in OPTIONAL else [Row(name, "no results file", "", "", name)]
    except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError) as e:
        print(f"summary: {builder.__name__}: {type(e).__name__} {e}", file=sys.stderr)
        return [Row(builder.__name__, f"figures not read ({type(e).__name__}: {e})", "", "", "")]


def cell(text: str) -> str:
    """Text safe inside a markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def table(rows: list[Row]) -> list[str]:
    """A markdown table; a command or results file equal to the row above's reads 'same'."""
    lines = [
        "| what | figure | target | command | results file |",
        "| --- | --- | --- | --- | --- |",
    ]
    prev_cmd = prev_src = None
    for r in rows:
        command = prev_cmd if r.command == "same" else r.command
        cmd = "same" if command and command == prev_cmd else (f"`{command}`" if command else "")
        src = "same" if r.source and r.source == prev_src else (f"`{r.source}`" if r.source else "")
        cells = (r.what, r.figure, r.target, cmd, src)
        lines.append("| " + " | ".join(cell(c) for c in cells) + " |")
        prev_cmd, prev_src = command, r.source
    return lines


def machine_of(data) -> dict | None:
    """The machine record of a results file, where it keeps one."""
    if not isinstance(data, dict):
        return None
    for key in ("machine", "machine_large"):
        if isinstance(data.get(key), dict):
            return data[key]
    for key in ("measurements", "runs"):  # bench_paper's measurements, card_vs_cores' runs
        entries = data.get(key)
        if entries and isinstance(entries[-1], dict):
            return entries[-1].get("machine")
    return None


def describe(m: dict | None) -> tuple[str, str, str]:
    """(machine, date, load average at start) of a machine record."""
    if m is None:
        return "not recorded in the file", "", ""
    cpu = m.get("cpu_model") or m.get("cpu") or "?"
    versions = ", ".join(
        f"{k} {m[k]}" for k in ("python", "numpy", "numba") if isinstance(m.get(k), str)
    )
    load = m.get("load_average_at_start", m.get("load_average"))
    if isinstance(load, list):
        load = load[0]
    gpu = "" if m.get("cuda_usable") is None else ("; CUDA usable" if m["cuda_usable"] else "")
    return (
        f"{cpu}, {m.get('cores', '?')} cores; {versions}{gpu}",
        str(m.get("date", "")),
        "" if load is None else f"{load:.2f}",
    )


def tracked(folder: Path) -> set[str] | None:
    """Paths relative to `folder` of the JSON files under it that git tracks (None outside a git
    checkout)."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "--", "*.json"],
            cwd=folder,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return set(out.splitlines())


def summary_text(folder: Path = RESULTS, only: set[str] | None = None) -> str:
    """SUMMARY.md as it should read for the results in `folder` (only the names in `only`)."""
    res = Results(folder, only)
    body: list[str] = []
    for title, intro, builders in SECTIONS:
        rows = [row for b in builders for row in section_rows(res, b)]
        body += [f"## {title}", ""]
        if intro:
            body += [intro, ""]
        body += (table(rows) if rows else ["No results file."]) + [""]
    machines = {name: machine_of(data) for name, data in sorted(res.used.items())}
    cuda = [n for n, m in machines.items() if m and m.get("cuda_usable")]
    head = [
        "# Measured figures",
        "",
        "Generated by `python -m benchmarks.summary` from the JSON files in the topic folders "
        "beside this file (benchmarks/README.md lists them); do not edit by hand "
        "(`python -m benchmarks.summary --check` and tests/test_summary.py compare).",
        "Each row names the command that wrote its results file and that file's path here. "
        "Machines, dates and load averages per file are listed at the end.",
        "",
        (
            f"Files recording a usable CUDA device: {', '.join(cuda)}."
            if cuda
            else "**No results file here records a usable CUDA device: no figure here was "
            "measured on a GPU.**"
        ),
        "",
    ]
    tail = [
        "## Results files",
        "",
        "| results file | machine | date | load average at start |",
        "| --- | --- | --- | ---: |",
    ]
    for name, m in machines.items():
        cpu, date, load = describe(m)
        tail.append("| " + " | ".join(cell(c) for c in (f"`{name}`", cpu, date, load)) + " |")
    return "\n".join(head + body + tail) + "\n"


# ---------------------------------------------------------------- headline lists

BULLETS = ("gpu", "throughput", "anneal", "tts", "exact", "peers", "generation")
HEADLINES = ("gpu", "tts")  # README's few; the rest in docs/performance.md


def _sentences(res: Results) -> dict[str, Callable[[], str]]:
    """Each headline figure's sentence builder by name; a builder raises Missing without its
    results file."""

    def throughput_line() -> str:
        rows = {r["threads"]: r for r in res.load("throughput/throughput.json")["rows"]}
        one, two = rows[1], rows[max(rows)]
        return (
            f"Sirdey proposals per second: {one['ratio']:.2f}x the tuned native loop on one "
            f"thread, {two['ratio']:.2f}x on {max(rows)} threads "
            f"({rate(two['engine_proposals_per_second'])}) (`throughput/throughput.json`);"
        )

    def anneal_line() -> str:
        d = res.load("anneal/anneal_solve_default.json")
        s = next(s for s in d["sets"] if s["set"] == "top95")
        t = [r["seconds"] for r in s["rows"]]
        return (
            "Sirdey's algorithm exactly as published (`--technique published`): "
            f"{s['solved']} of top95's {s['puzzles']} "
            f"within {d['time_limit']:g} s each (median {secs(statistics.median(t))}) "
            "(`anneal/anneal_solve_default.json`);"
        )

    def tts_line() -> str:
        top = res.load("tts/tts_top95_default.json")
        forum = res.load("tts/tts_forum_hardest_default.json")
        was_top, was_forum = (
            res.load("tts/tts_top95_focused.json"),
            res.load("tts/tts_forum_hardest_focused.json"),
        )
        old_top = res.load("tts/tts_top95_auto.json")
        old_forum = res.load("tts/tts_forum_hardest_auto.json")
        return (
            "the default technique (9x9: focused-two move, deduction first, schedule auto): "
            f"median TTS99 {secs(top['summary']['tts99_median'])} of one core on top95 and "
            f"{secs(forum['summary']['tts99_median'])} on the forum's hardest (first "
            f"{forum['summary']['puzzles']}), against "
            f"{secs(was_top['summary']['tts99_median'])} and "
            f"{secs(was_forum['summary']['tts99_median'])} for the focused move at the former "
            f"preset and {secs(old_top['summary']['tts99_median'])} and "
            f"{secs(old_forum['summary']['tts99_median'])} for the candidate move "
            "(`tts/tts_top95_default.json`, `tts/tts_forum_hardest_default.json`, "
            "`tts/tts_top95_focused.json`, `tts/tts_forum_hardest_focused.json`, "
            "`tts/tts_top95_auto.json`, `tts/tts_forum_hardest_auto.json`);"
        )

    def exact_line() -> str:
        sets = res.load("exact/exact.json")["sets"]
        a = sets["17_clue.txt"]["count_to_2"]["puzzles_per_s_wall"]
        b = sets["forum_hardest_1106.txt"]["count_to_2"]["puzzles_per_s_wall"]
        return (
            f"exact solver, one thread: {rate(a)} on the 17-clue set and {rate(b)} on the "
            "hardest set, both proving uniqueness (`exact/exact.json`);"
        )

    def peers_line() -> str:
        sets = res.load("exact/exact_peers.json")["sets"]
        ratios = [r["ratio_fast_to_tdoku"] for v in sets.values() for r in v if r["limit"] == 2]
        return (
            f"beside tdoku in the same run, one thread each, counting to two: "
            f"{span(ratios, lambda x: f'{x:.2f}')}x tdoku's rate on {len(ratios)} sets "
            "(`exact/exact_peers.json`);"
        )

    def generation_line() -> str:
        d = res.load("generation/generation.json")
        g = next(r for r in d["full_grids"] if (r["order"], r["method"]) == (3, "anneal"))
        m = d["minimal_9x9_tries4"]
        return (
            f"{num(round(g['grids_per_second']))} full 9x9 grids/s by annealing; minimal "
            f"puzzles with a median of {num(m['givens_median'])} givens in "
            f"{secs(m['seconds_per_puzzle'])} (`generation/generation.json`)."
        )

    def gpu_line() -> str:
        cvc = res.load("gpu/card_vs_cores.json")
        rows = cvc["rows"]
        gpu = cvc["runs"][-1]["machine"].get("gpu") or "a CUDA card"

        def pair(key: str, role: str = "measure") -> tuple[dict, dict]:
            card, cores = report.find(rows, key, "cuda", role), report.find(rows, key, "cpu", role)
            if card is None or cores is None:
                raise Missing(f"gpu/card_vs_cores.json: {key}")
            return card, cores

        iso, forum = pair("iso6000"), pair("forum375")
        single, start = pair("single"), pair("start", "second")
        big = pair("grids25")
        tp = pair("throughput")
        return (
            f"`gpu-anneal solve` as a user runs it on an {gpu} and on the same machine's 16 "
            f"cores (fresh processes, start-up included, every result checked): 6,000 hard 9x9 "
            f"puzzles in {secs(iso[0]['wall_seconds'])} against {secs(iso[1]['wall_seconds'])} "
            f"({iso[1]['wall_seconds'] / iso[0]['wall_seconds']:.1f}x), the forum's hardest 375 "
            f"in {secs(forum[0]['wall_seconds'])} against {secs(forum[1]['wall_seconds'])}, 24 "
            f"25x25 grids in {secs(big[0]['wall_seconds'])} against "
            f"{secs(big[1]['wall_seconds'])}; slower on the card: one hard puzzle at a time "
            f"(median {secs(single[0]['median_search_seconds'])} against "
            f"{secs(single[1]['median_search_seconds'])}) and a second `solve --example "
            f"seed002` ({secs(start[0]['wall_seconds'])} against "
            f"{secs(start[1]['wall_seconds'])}); raw 9x9 Sirdey proposals "
            f"{rate(tp[0]['proposals_per_second'])} against {rate(tp[1]['proposals_per_second'])} "
            "(`gpu/card_vs_cores.json`; every card figure, the kernels' equality with the CPU "
            "runner included, in SUMMARY.md);"
        )

    return {
        "gpu": gpu_line,
        "throughput": throughput_line,
        "anneal": anneal_line,
        "tts": tts_line,
        "exact": exact_line,
        "peers": peers_line,
        "generation": generation_line,
    }


def _wrapped(sentences: list[str]) -> list[str]:
    """Sentences as a markdown list WIDTH wide; the last one ends the list with a full stop."""
    lines: list[str] = []
    for i, sentence in enumerate(sentences):
        if i == len(sentences) - 1:
            sentence = sentence.rstrip(";") + ("" if sentence.endswith(".") else ".")
        glued = re.sub(r"(\d) (?=[kMG]?/s|s\b|%)", "\\1\0", f"- {sentence}")  # keep 2 s together
        wrapped = textwrap.wrap(glued, WIDTH, subsequent_indent="  ", break_on_hyphens=False)
        lines += [w.replace("\0", " ") for w in wrapped]
    return lines


def _figures(res: Results, names: tuple[str, ...]) -> list[str]:
    """The named headline sentences whose results files are there, in `names` order."""
    builders = _sentences(res)
    out: list[str] = []
    for name in names:
        try:
            out.append(builders[name]())
        except Missing:
            pass
        except (KeyError, IndexError, TypeError, ValueError, StopIteration) as e:
            print(f"summary: headline {name} skipped: {type(e).__name__} {e}", file=sys.stderr)
    return out


def bullets(folder: Path = RESULTS, only: set[str] | None = None) -> list[str]:
    """docs/performance.md's list of headline figures, each naming its results file, under a
    line naming the cards and machines they ran on."""
    res = Results(folder, only)
    out = _figures(res, BULLETS)
    machines = sorted(
        {describe(m)[0].split(";")[0] for m in map(machine_of, res.used.values()) if m}
    )
    cards = sorted({m["gpu"] for m in map(machine_of, res.used.values()) if m and m.get("gpu")})
    intro = (
        ("Cards: " + "; ".join(cards) + ". " if cards else "CPU only, no GPU; ")
        + "Machines: "
        + "; ".join(machines)
        + " (dates and load averages per file in SUMMARY.md):"
    )
    return textwrap.wrap(intro, WIDTH) + [""] + _wrapped(out)


def headlines(folder: Path = RESULTS, only: set[str] | None = None) -> list[str]:
    """README's few headline figures (HEADLINES), each naming its results file."""
    return _wrapped(_figures(Results(folder, only), HEADLINES))


def _with_block(text: str, where: str, begin: str, end: str, lines: list[str]) -> str:
    """`text` with the block between its `begin` and `end` markers replaced by `lines`."""
    if begin not in text or end not in text:
        raise SystemExit(f"{where}: markers {begin!r} and {end!r} not found")
    start, stop = text.index(begin) + len(begin), text.index(end)
    return text[:start] + "\n" + "\n".join(lines) + "\n" + text[stop:]


def page_text(page: str, folder: Path = RESULTS, only: set[str] | None = None) -> str:
    """docs/performance.md's text with the block between BEGIN and END regenerated."""
    return _with_block(page, "docs/performance.md", BEGIN, END, bullets(folder, only))


def readme_text(readme: str, folder: Path = RESULTS, only: set[str] | None = None) -> str:
    """README text with the block between README_BEGIN and README_END regenerated."""
    return _with_block(readme, "README", README_BEGIN, README_END, headlines(folder, only))


def main(argv: list[str] | None = None) -> int:
    """Rewrite SUMMARY.md, docs/performance.md's and README's blocks, or with --check report
    which differ."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if a file differs")
    ap.add_argument("--results", type=Path, default=RESULTS, help="folder of results JSON")
    ap.add_argument("--summary", type=Path, default=None, help="default: RESULTS/SUMMARY.md")
    ap.add_argument("--page", type=Path, default=PAGE, help="default: docs/performance.md")
    ap.add_argument("--readme", type=Path, default=README)
    args = ap.parse_args(argv)
    summary = args.summary or args.results / "SUMMARY.md"
    only = tracked(args.results) if args.results.resolve() == RESULTS else None
    if only is not None:
        found = (p.relative_to(args.results).as_posix() for p in args.results.rglob("*.json"))
        skipped = sorted(name for name in found if name not in only)
        if skipped:
            print(f"summary: not tracked by git, left out: {', '.join(skipped)}", file=sys.stderr)
    loose = sorted(p.name for p in args.results.glob("*.json"))
    if loose:
        print(f"summary: in {args.results} itself, not in a topic folder (benchmarks/README.md), "
              f"left out: {', '.join(loose)}", file=sys.stderr)  # fmt: skip
    wanted = {
        summary: summary_text(args.results, only),
        args.page: page_text(args.page.read_text(encoding="utf-8"), args.results, only),
        args.readme: readme_text(args.readme.read_text(encoding="utf-8"), args.results, only),
    }
    if args.check:
        stale = [p for p, text in wanted.items() if not p.exists() or p.read_text() != text]
        for p in stale:
            print(f"{p}: differs from `python -m benchmarks.summary`", file=sys.stderr)
        return 1 if stale else 0
    for p, text in wanted.items():
        if not p.exists() or p.read_text(encoding="utf-8") != text:
            p.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
