"""One lent-card session in one call: the pools, the cores, the start, the rates against
occupancy, beside the models' predictions (`bash benchmarks/card_session.sh all` runs this).

Phases, in order, each under its own budget of seconds (BUDGETS; a step that would start with
nothing left of its phase, or of the whole --budget, is recorded as skipped, and a running
step is stopped at its allowance, SIGINT, its finished puzzles kept):

    env        the card (nvidia-smi), the versions, whether `gpu-anneal solve` takes --pool
    startup    `gpu-anneal solve --example seed002 --backend cuda --verbose` twice, with this
               environment's cache root (a fresh machine's is empty): the first start (compiles)
               and the second; the start-up timeline of each (gpu_anneal.timeline), its wall
    pools      6,000 and 60,000 random isomorphs of forum_hardest_1106 (fixed seed, the same as
               benchmarks/card_vs_cores.py's) on the card at the plan's chains, by the persistent
               pool and by the slice pool (`--pool persistent|slices`; where `solve` has no
               --pool, the one pool it has, named slices); a warm-up of 50 isomorphs a pool
               first; both pools on the 6,000 before either on the 60,000
    cores      the same 6,000 on the machine's cores: annealing (`--backend cpu`) and
               `--method exact`, after a warm-up of 4 puzzles
    occupancy  per-chain proposals/s (gpu_anneal.measure.measure_throughput) of the 9x9
               focused-two one-thread kernel and the 25x25 focused cooperative kernel at 1
               chain, 32 chains and a full wave, the 25x25 in the native regime and the solving
               regime (the auto schedule)
    ncu        Nsight Compute of one launch of each pool's kernel (a kernel named like slice or
               persist: the slice pool's second launch, the persistent pool's first) on the
               warm-up's 50 isomorphs, where `ncu` is on the PATH

Each measured figure stands beside the models' prediction made before it (a model, on an H100
SXM's rates, not this card's): the virtual card's committed runs and designs
(benchmarks/results/gpu/virtual_card.json) for the pools, the cooperative kernel's latency
model (benchmarks/results/kernels/coop_latency.json, `card_session`) for the rates.

Files written to --out-dir (at most 5): card_session.json (everything), card_session.md (the
tables), card_session.log (each step's command and the tail of its output), ncu.txt (where
ncu ran).

    python -m benchmarks.card_session --data DIR --out-dir DIR [--commit HASH] [--budget 510]
    python -m benchmarks.card_session --dry --out-dir DIR   # the CPU and the CUDA simulator,
                                                           # tiny sizes

--dry runs every phase's code on this machine: the card's steps under NUMBA_ENABLE_CUDASIM=1
with 2 puzzles (the 60,000's run left out: the same code), 2 chains a puzzle and a second a
puzzle, no warm-up run and one start, the occupancy points on 9x9 alone with 1 and 2 chains (the
cooperative kernel takes minutes in the simulator), no ncu; its figures mean nothing but that
the session's plumbing works.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from benchmarks import card_runs
from benchmarks.isomorphs import isomorphs, line
from benchmarks.paths import ROOT, results
from cpu_reference.cache import cache_root

SEED = 0  # of the isomorphs (benchmarks/card_vs_cores.py's, bench_host's: the same 6,000)
BASE = "forum_hardest_1106.txt"
BUDGETS = {"env": 10, "startup": 85, "pools": 185, "cores": 125, "occupancy": 65, "ncu": 40}
TOTAL = 510  # seconds of the whole session (9 minutes with the wheels' install and a stopped
# step's grace, benchmarks.card_runs.INTERRUPT_GRACE; a device command's limit is 600)
# a step's own cap; a fresh machine's first run of a kind compiles (tens of seconds): warm-ups
RUN_CAPS = {"first start": 60, "second start": 20, "warm-up": 45, 6000: 40, 60000: 60,
            "cores-warm-up": 40, "cores-anneal": 50, "cores-exact": 35}  # fmt: skip
VIRTUAL = results("gpu") / "virtual_card.json"
COOP = results("kernels") / "coop_latency.json"
MODEL_CARD = "H100 SXM"
FILES = ("card_session.json", "card_session.md", "card_session.log", "ncu.txt")


@dataclass
class Session:
    """The session's settings and what it found so far."""

    out: Path
    data: Path
    dry: bool
    commit: str
    budget: float
    start: float = field(default_factory=time.perf_counter)
    cache: Path = field(default_factory=cache_root)  # this environment's (a fresh machine's:
    # empty, so the first start compiles)
    log: list[str] = field(default_factory=list)
    doc: dict = field(default_factory=dict)

    def left(self) -> float:
        """Seconds left of the whole session."""
        return self.budget - (time.perf_counter() - self.start)

    def note(self, text: str) -> None:
        """A line of the log (and of stdout)."""
        print(text, flush=True)
        self.log.append(text)


def share(name: str, budget: float) -> float:
    """A phase's seconds under a session of `budget` seconds: BUDGETS[name], scaled down in
    proportion where the session is shorter than TOTAL."""
    return BUDGETS[name] * min(1.0, budget / TOTAL)


class Phase:
    """A phase's clock: allowance(cap) is what a step may take now (0: skip it)."""

    def __init__(self, session: Session, name: str):
        self.session, self.name = session, name
        self.budget = 1e9 if session.dry else share(name, session.budget)
        self.start = time.perf_counter()
        self.skipped: list[str] = []

    def allowance(self, cap: float) -> float:
        """Seconds a step may take: its cap, within what is left of the phase and the session
        (0 when less than 2 s is left)."""
        if self.session.dry:
            return max(cap, 300.0)  # the simulator's first launch is slow; sizes are tiny
        left = min(self.budget - (time.perf_counter() - self.start), self.session.left())
        return 0.0 if left < 2.0 else min(cap, left)

    def skip(self, what: str) -> None:
        """Record a step skipped for want of time."""
        self.skipped.append(what)
        self.session.note(f"  skipped (no time left in {self.name}): {what}")

    def record(self) -> dict:
        """The phase's seconds, budget and skipped steps."""
        return {
            "seconds": round(time.perf_counter() - self.start, 2),
            "budget": None if self.session.dry else round(share(self.name, self.session.budget)),
            "skipped": self.skipped,
        }


def env_for(session: Session, card: bool) -> dict:
    """The environment of a step: the simulator for a card step in a dry run."""
    env = dict(os.environ)
    if session.dry and card:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    elif not card:
        env.pop("NUMBA_ENABLE_CUDASIM", None)
    return env


def write_lines(path: Path, cells) -> Path:
    """Puzzles as one line each."""
    path.write_text("".join(line(c) + "\n" for c in cells))
    return path


def base_set(session: Session) -> np.ndarray:
    """The 9x9 base puzzles: --data's forum_hardest_1106 (a dry run: three of the test data's
    hard puzzles)."""
    path = (
        ROOT / "tests" / "data" / "hardest.txt" if session.dry else session.data / BASE
    )  # fmt: skip
    if not path.exists():
        raise SystemExit(f"card_session: {path} not found (bash benchmarks/card_session.sh "
                         "prepare puts it in .gpudata/)")  # fmt: skip
    rows = [t.split()[0] for t in path.read_text().splitlines() if t.strip() and t[0] != "#"]
    cells = [[0 if c in ".0" else int(c) for c in t] for t in rows if len(t) == 81]
    base = np.array(cells, np.uint8)
    return base[:3] if session.dry else base


# ---- phases ------------------------------------------------------------------------------


def knows_pool(env: dict) -> bool:
    """Whether `gpu-anneal solve` takes --pool: its exit code with the option given (the help
    text's layout differs between typer versions, so it is not read)."""
    proc = subprocess.run(
        [sys.executable, "-m", "gpu_anneal", "solve", "--pool", "slices", "--help"],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=60,
    )  # fmt: skip
    return proc.returncode == 0


def phase_env(session: Session) -> None:
    """The card, the versions, and whether solve knows --pool."""
    phase = Phase(session, "env")
    card = None
    if not session.dry and shutil.which("nvidia-smi"):
        query = "name,clocks.sm,clocks.mem,memory.total,driver_version"
        proc = subprocess.run(
            ["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=phase.allowance(10) or 1,
        )  # fmt: skip
        card = proc.stdout.strip() or proc.stderr.strip()
    versions = {}
    for name in ("numpy", "numba", "numba_cuda"):
        try:
            versions[name] = __import__(name).__version__
        except ImportError:
            versions[name] = None
    has_pool = knows_pool(env_for(session, False))
    pools = ["persistent", "slices"] if has_pool else ["slices"]
    session.doc.update(
        card=card if not session.dry else "CUDA simulator (dry run)",
        cores=os.cpu_count(), versions=versions, pools=pools, pool_option=has_pool,
    )  # fmt: skip
    if len(pools) == 1:
        session.note("solve has no --pool here: the slice pool alone is measured")
    session.note(f"card: {session.doc['card']}; cores {os.cpu_count()}; {versions}")
    session.doc["phases"]["env"] = phase.record()


TIMELINE_LINE = re.compile(r"^  (\S+(?: \S+)?)\s+(\d+\.\d{3})  \(\+\d+\.\d{3}\)$", re.M)


def timeline_of(stderr: str) -> dict[str, float]:
    """The start-up timeline `solve --verbose` printed: {step: seconds since the start}."""
    return {name: float(at) for name, at in TIMELINE_LINE.findall(stderr or "")}


def phase_startup(session: Session) -> None:
    """The first and second start on the card, with their timelines."""
    phase = Phase(session, "startup")
    rows = []
    chains = ["--chains", "2"] if session.dry else []
    for which in ("first", "second") if not session.dry else ("first",):
        allowance = phase.allowance(RUN_CAPS[f"{which} start"])
        if not allowance:
            phase.skip(f"{which} start")
            continue
        with tempfile.TemporaryDirectory() as tmp:
            args = [
                sys.executable,
                "-m",
                "gpu_anneal",
                "solve",
                "--example",
                "seed002",
                "--backend",
                "cuda",
                *chains,
                "--verbose",
                "-q",
                "--out",
                f"{tmp}/r.jsonl",
            ]
            env = card_runs.child_env(session.cache, None) | {
                k: v for k, v in env_for(session, True).items() if k == "NUMBA_ENABLE_CUDASIM"
            }  # fmt: skip
            t0 = time.perf_counter()
            try:
                proc = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, env=env,
                                      timeout=allowance)  # fmt: skip
                code, err = proc.returncode, proc.stderr
            except subprocess.TimeoutExpired as late:
                code, err = None, (late.stderr or b"").decode(errors="replace")
            wall = time.perf_counter() - t0
        row = {"start": which, "wall_seconds": round(wall, 3), "exit_code": code,
               "timeline": timeline_of(err)}  # fmt: skip
        rows.append(row)
        session.note(f"  {which} start: {wall:.2f} s, exit {code}, timeline {row['timeline']}")
        session.log.append(err[-1500:])
    session.doc["startup"] = rows
    session.doc["phases"]["startup"] = phase.record()


def measured_run(
    session: Session, phase: Phase, label: str, args: list[str], backend: str, givens, cap
) -> dict | None:
    """One timed gpu-anneal run (benchmarks.card_runs), its record, or None when skipped."""
    allowance = phase.allowance(cap)
    if not allowance:
        phase.skip(label)
        return None
    command = card_runs.Command(args, backend, givens, 3, session.cache, timeout=allowance)
    saved = os.environ.get("NUMBA_ENABLE_CUDASIM")
    if session.dry and backend == "cuda":
        os.environ["NUMBA_ENABLE_CUDASIM"] = "1"  # card_runs passes this process's environment
    elif saved is not None and backend == "cpu":
        del os.environ["NUMBA_ENABLE_CUDASIM"]
    try:
        rec = card_runs.run(command)
    finally:
        if saved is None:
            os.environ.pop("NUMBA_ENABLE_CUDASIM", None)
        else:
            os.environ["NUMBA_ENABLE_CUDASIM"] = saved
    rec["label"] = label
    session.note(
        f"  {label}: {rec['wall_seconds']:.2f} s, {rec['solved']}/{rec.get('puzzles', '?')} "
        f"solved, {rec['checked_here']} checked, exit {rec['exit_code']}"
        + (f" ({rec['stopped']})" if rec.get("stopped") else "")
    )
    if rec.get("stderr_tail"):
        session.log.append(rec["stderr_tail"])
    return rec


def phase_pools(session: Session, files: dict) -> None:
    """Each pool on the 6,000, then each on the 60,000, after a warm-up of 50 isomorphs a
    pool (compiles what the startup did not): a short budget leaves out the last 60,000."""
    phase = Phase(session, "pools")
    rows = []
    tiny = ["--chains", "2", "--time-limit", "1"] if session.dry else []
    pools = session.doc["pools"]
    choose = {p: ["--pool", p] if session.doc["pool_option"] else [] for p in pools}
    if not session.dry:  # (a dry run's steps compile nothing the startup's did not)
        warm_path, warm_givens = files["warm"]
        for pool in pools:
            measured_run(session, phase, f"warm-up, {pool} pool",
                         ["solve", str(warm_path), "--backend", "cuda", *choose[pool]], "cuda",
                         warm_givens, RUN_CAPS["warm-up"])  # fmt: skip
    for n in ("n6",) if session.dry else ("n6", "n60"):  # (dry: the same code twice)
        path, givens = files[n]
        size = 6000 if n == "n6" else 60000
        for pool in pools:
            rec = measured_run(
                session, phase, f"{len(givens):,} isomorphs, {pool} pool",
                ["solve", str(path), "--backend", "cuda", *choose[pool], *tiny], "cuda", givens,
                RUN_CAPS[size],
            )  # fmt: skip
            if rec is not None:
                rec.update(workload=f"iso{size}", pool=pool, puzzles_asked=len(givens))
                rec["predicted"] = pool_prediction(size, pool, rec.get("chains_per_puzzle"))
                rows.append(rec)
    session.doc["pools_runs"] = rows
    session.doc["phases"]["pools"] = phase.record()


def phase_cores(session: Session, files: dict) -> None:
    """The 6,000 on the cores: annealing and the exact method."""
    phase = Phase(session, "cores")
    path, givens = files["n6"]
    rows = []
    if not session.dry:  # a fresh machine compiles the CPU runner first
        warm_path, warm_givens = files["warm_cores"]
        measured_run(session, phase, "warm-up on the cores",
                     ["solve", str(warm_path), "--backend", "cpu"], "cpu", warm_givens,
                     RUN_CAPS["cores-warm-up"])  # fmt: skip
    for key, method in (("cores-anneal", []), ("cores-exact", ["--method", "exact"])):
        tiny = ["--time-limit", "1"] if session.dry and not method else []
        rec = measured_run(
            session, phase, f"{len(givens):,} isomorphs on {os.cpu_count()} cores, "
            f"{'exact' if method else 'annealing'}",
            ["solve", str(path), "--backend", "cpu", *method, *tiny], "cpu", givens,
            RUN_CAPS[key],
        )  # fmt: skip
        if rec is not None:
            rec.update(workload="iso6000", method="exact" if method else "anneal")
            rows.append(rec)
    session.doc["cores_runs"] = rows
    session.doc["phases"]["cores"] = phase.record()


OCCUPANCY_POINTS = (  # kernel, order, move, chain counts ("wave": a full wave of this card)
    ("9x9 focused-two, one chain a thread", 3, "focused-two", (1, 32, "wave"), ("native",)),
    ("25x25 focused, cooperative", 5, "focused", (1, 32, "wave"), ("native", "solving")),
)
DRY_POINTS = (("9x9 focused-two, one chain a thread", 3, "focused-two", (1, 2), ("native",)),)


def phase_occupancy(session: Session) -> None:
    """Per-chain proposals/s against chains launched, in a child process (the card's)."""
    phase = Phase(session, "occupancy")
    points = DRY_POINTS if session.dry else OCCUPANCY_POINTS
    allowance = phase.allowance(share("occupancy", session.budget))
    if not allowance:
        phase.skip("occupancy")
        session.doc["occupancy"] = []
        session.doc["phases"]["occupancy"] = phase.record()
        return
    seconds = 0.05 if session.dry else 1.0
    code = (
        "import json, sys\nfrom benchmarks.card_session import occupancy_rows\n"
        f"occupancy_rows({json.dumps(points)}, {seconds})\n"
    )
    env = card_runs.child_env(session.cache, None) | {
        k: v for k, v in env_for(session, True).items() if k == "NUMBA_ENABLE_CUDASIM"
    }  # fmt: skip
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              cwd=ROOT, env=env, timeout=allowance)  # fmt: skip
        out, err = proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as late:
        out = (late.stdout or b"").decode(errors="replace")
        err = f"stopped after {allowance:.0f} s"
        phase.skip("the occupancy points after the last one printed")
    rows = [json.loads(t) for t in out.splitlines() if t.startswith("{")]
    predicted = coop_predictions()
    for row in rows:
        row["predicted_chain_proposals_per_second"] = predicted.get(
            (row["kernel"], row["point"], row["regime"])
        )
        session.note(
            f"  {row['kernel']}, {row['chains']} chains ({row['point']}), {row['regime']}: "
            f"{row['chain_proposals_per_second']:,.0f} a chain/s"
        )
    if err.strip():
        session.log.append(err[-1500:])
    session.doc["occupancy"] = rows
    session.doc["phases"]["occupancy"] = phase.record()


def occupancy_rows(points, seconds: float) -> None:
    """Print one JSON line a measured point (run in the card's process)."""
    from gpu_anneal import plan
    from gpu_anneal.measure import measure_throughput

    card = plan.current_card()
    for kernel, order, move, counts, regimes in points:
        wave = plan.wave_chains(card, plan.kernel_shape(order, move, card))
        for regime in regimes:
            schedule = "auto" if regime == "solving" else None
            for count in counts:
                chains = wave if count == "wave" else int(count)
                rate = measure_throughput(order, seconds, "cuda", chains=chains, move=move,
                                          schedule=schedule)  # fmt: skip
                point = "a full wave" if count == "wave" else f"{count} chain" + "s" * (count > 1)
                print(json.dumps({
                    "kernel": kernel, "order": order, "move": move, "chains": chains,
                    "point": point, "regime": regime, "seconds": rate["seconds"],
                    "proposals_per_second": rate["proposals_per_second"],
                    "chain_proposals_per_second": rate["proposals_per_second"] / chains,
                }), flush=True)  # fmt: skip


def phase_ncu(session: Session, files: dict) -> None:
    """Nsight Compute of one launch of each pool's kernel (a small solve), into ncu.txt."""
    phase = Phase(session, "ncu")
    ncu = shutil.which("ncu")
    status = "dry run: not run" if session.dry else None if ncu else "ncu is not on this image"
    reports = []
    if status is None:
        path, _ = files["warm"]
        for pool in session.doc["pools"]:
            allowance = phase.allowance(share("ncu", session.budget) / len(session.doc["pools"]))
            if not allowance:
                phase.skip(f"ncu, {pool} pool")
                continue
            choose = ["--pool", pool] if session.doc["pool_option"] else []
            skip = "0" if pool == "persistent" else "1"  # a slice pool's first is the warm-up
            args = [ncu, "--target-processes", "all", "-k", "regex:slice|persist|queue",
                    "--launch-skip", skip, "--launch-count", "1", "--section", "SpeedOfLight",
                    "--section", "Occupancy", "--section", "WarpStateStats",
                    sys.executable, "-m", "gpu_anneal", "solve", str(path), "--backend",
                    "cuda", *choose, "-q", "--out", os.devnull]  # fmt: skip
            env = card_runs.child_env(session.cache, None)
            try:
                proc = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, env=env,
                                      timeout=allowance)  # fmt: skip
                text = proc.stdout + proc.stderr[-2000:]
            except subprocess.TimeoutExpired:
                text = f"stopped after {allowance:.0f} s"
            reports.append(f"==== {pool} pool: {' '.join(args[:-6])} ...\n{text}")
            session.note(f"  ncu, {pool} pool: {len(text):,} characters")
        status = "ran" if reports else "skipped"
        (session.out / "ncu.txt").write_text("\n".join(reports) + "\n")
    session.doc["ncu"] = status
    session.doc["phases"]["ncu"] = phase.record()


# ---- predictions -------------------------------------------------------------------------


def pool_prediction(puzzles: int, pool: str, chains: int | None) -> dict | None:
    """The virtual card's committed figure for this size, pool and chains (a model on an H100
    SXM's rates), or None where it modeled no such run."""
    if chains is None or not VIRTUAL.exists():
        return None
    doc = json.loads(VIRTUAL.read_text())
    found = [doc.get("predicted") or {}, *doc.get("designs", [])]
    found += [dict(r["modeled"], pool="slices") for r in doc.get("runs", [])]
    for row in found:
        if row.get("puzzles") != puzzles or row.get("chains") != chains:
            continue
        kind = str(row.get("pool", ""))
        if (pool == "slices" and kind.startswith("slices")) or (
            pool == "persistent" and kind.startswith("persistent (as built)")
        ):
            return {
                "model": f"virtual card (a model, {MODEL_CARD} rates): {kind}",
                "wall_seconds": row.get("wall_seconds"),
                "puzzles_per_second": row.get("puzzles_per_second")
                or puzzles / row["wall_seconds"],
                "useful_fraction": row.get("useful_fraction"),
            }
    return None


def coop_predictions() -> dict:
    """{(kernel, point, regime): per-chain proposals/s} of the latency model's card session
    list (a model, on an H100 SXM's rates)."""
    if not COOP.exists():
        return {}
    out = {}
    for row in json.loads(COOP.read_text()).get("card_session", []):
        label = row["chains"]
        point = ("1 chain" if label.startswith("1 chain") else "32 chains"
                 if label.startswith("32") else "a full wave")  # fmt: skip
        regime = "native" if row["regime"].startswith("native") else "solving"
        out[(row["kernel"], point, regime)] = row["model_chain_proposals_per_second"]
    return out


# ---- output ------------------------------------------------------------------------------


def _f(x, spec: str = ",.0f") -> str:
    return "-" if x is None else format(x, spec)


def render(doc: dict) -> str:
    """The session's tables (markdown)."""
    out = [
        "# Card session" + (" (dry run: CPU and the CUDA simulator, tiny sizes)" if doc["dry"]
                            else ""),  # fmt: skip
        "",
        f"Card: {doc.get('card')}; {doc.get('cores')} cores; commit {doc['commit']}; "
        f"{doc['seconds']:.0f} s in all. Predictions are models on an {MODEL_CARD}'s rates, "
        "made before these runs.",
        "",
        "## Start-up",
        "",
        "| start | wall s | " + " | ".join(STEPS_SHOWN) + " |",
        "|---|---:|" + "---:|" * len(STEPS_SHOWN),
    ]  # fmt: skip
    for row in doc.get("startup", []):
        cells = [_f(row["timeline"].get(s), ".3f") for s in STEPS_SHOWN]
        out.append(f"| {row['start']} | {row['wall_seconds']:.2f} | " + " | ".join(cells) + " |")
    out += ["", "## Pools and cores", "",
            "| workload | pool or method | chains | wall s | puzzles/s | solved | checked "
            "| predicted puzzles/s (model) |",
            "|---|---|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    for row in doc.get("pools_runs", []) + doc.get("cores_runs", []):
        what = row.get("pool") or f"{doc.get('cores')} cores, {row.get('method')}"
        predicted = (row.get("predicted") or {}).get("puzzles_per_second")
        out.append(
            f"| {row['workload']} ({row.get('puzzles', '?'):,}) | {what} | "
            f"{_f(row.get('chains_per_puzzle'), 'd')} | {row['wall_seconds']:.2f} | "
            f"{_f(row.get('puzzles_per_second'), ',.1f')} | {row['solved']:,} | "
            f"{row.get('checked_here', 0):,} | {_f(predicted)} |"
        )
    out += ["", "## Per-chain rate against occupancy", "",
            "| kernel | point | chains | regime | proposals/s a chain | predicted (model) |",
            "|---|---|---:|---|---:|---:|"]  # fmt: skip
    for row in doc.get("occupancy", []):
        out.append(
            f"| {row['kernel']} | {row['point']} | {row['chains']:,} | {row['regime']} | "
            f"{row['chain_proposals_per_second']:,.0f} | "
            f"{_f(row.get('predicted_chain_proposals_per_second'))} |"
        )
    out += ["", "## Phases", "", "| phase | seconds | budget | skipped |", "|---|---:|---:|---|"]
    for name, p in doc["phases"].items():
        out.append(f"| {name} | {p['seconds']:.1f} | {_f(p['budget'], 'd')} | "
                   f"{'; '.join(p['skipped']) or '-'} |")  # fmt: skip
    out += ["", f"ncu: {doc.get('ncu')}", ""]
    return "\n".join(out)


STEPS_SHOWN = ("imports", "input", "context", "module loads", "first launch", "first result",
               "exit")  # fmt: skip


def prepare_files(session: Session, tmp: Path) -> dict:
    """The isomorph files: the 6,000, the 60,000, a warm-up's 50 on the card and 4 on the cores
    (dry: 2, 3, 1 and 1)."""
    base = base_set(session)
    n6, n60, warm = (2, 3, 1) if session.dry else (6000, 60000, 50)
    iso, _ = isomorphs(base, n60, SEED)
    warm_iso, _ = isomorphs(base, warm, SEED + 1)  # other isomorphs: no result cached by chance
    return {
        "n6": (write_lines(tmp / "iso6000.txt", iso[:n6]), list(iso[:n6])),
        "n60": (write_lines(tmp / "iso60000.txt", iso), list(iso)),
        "warm": (write_lines(tmp / "warm.txt", warm_iso), list(warm_iso)),
        "warm_cores": (write_lines(tmp / "warm_cores.txt", warm_iso[:4]), list(warm_iso[:4])),
    }


def main(argv: list[str] | None = None) -> dict:
    """Run the session; returns its document (also written to --out-dir)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(ROOT / ".gpudata"), help=f"folder holding {BASE}")
    ap.add_argument("--out-dir", default=os.environ.get("OUT", "/tmp/card_session"))
    ap.add_argument("--commit", default="unknown")
    ap.add_argument("--budget", type=float, default=TOTAL, help="seconds of the whole session")
    ap.add_argument("--dry", action="store_true", help="CPU and simulator, tiny sizes")
    args = ap.parse_args(argv)
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    session = Session(out, Path(args.data), args.dry, args.commit, args.budget)
    session.doc.update(dry=args.dry, commit=args.commit, phases={}, files=[])
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a guard's timeout: files written
    try:
        with tempfile.TemporaryDirectory(prefix="card_session_data_") as tmp:
            files = prepare_files(session, Path(tmp))
            phase_env(session)
            phase_startup(session)
            phase_pools(session, files)
            phase_cores(session, files)
            phase_occupancy(session)
            phase_ncu(session, files)
    finally:
        session.doc["seconds"] = round(time.perf_counter() - session.start, 1)
        session.doc["files"] = [f for f in FILES if (out / f).exists() or f != "ncu.txt"]
        (out / "card_session.json").write_text(json.dumps(session.doc, indent=1) + "\n")
        (out / "card_session.md").write_text(render(session.doc))
        (out / "card_session.log").write_text("\n".join(session.log) + "\n")
    return session.doc


if __name__ == "__main__":
    main()
