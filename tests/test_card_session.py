"""The card session's script (benchmarks/card_session.sh all, benchmarks/card_session.py) in its
dry mode (the CPU and the CUDA simulator, tiny sizes), the models' predictions it sets beside
the figures, and its budget."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile

import pytest
from simulate import one_core, simulator_env

from benchmarks import card_runs
from benchmarks import card_session as cs
from benchmarks.paths import ROOT

SCRIPT = ROOT / "benchmarks" / "card_session.sh"


def test_dry_run_writes_at_most_five_files_with_every_phase(tmp_path):
    # the simulator's block scheduler of tests/sim_site for the card's steps (simulator_env)
    env = dict(simulator_env(), OUT=str(tmp_path), PYTHON=sys.executable)
    env.pop("NUMBA_ENABLE_CUDASIM", None)  # the script sets it for the card's steps alone
    # on one core, as tests/simulate.py runs the simulator (its threads' lock hand-overs)
    proc = subprocess.run(["bash", str(SCRIPT), "all", "--dry"], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=900, preexec_fn=one_core())  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == ["card_session.json", "card_session.log", "card_session.md"]
    doc = json.loads((tmp_path / "card_session.json").read_text())
    assert doc["dry"] and sorted(doc["files"]) == written
    assert list(doc["phases"]) == ["env", "startup", "pools", "cores", "occupancy", "ncu"]
    assert all(not p["skipped"] for p in doc["phases"].values())
    (start,) = doc["startup"]
    assert start["exit_code"] == 0
    steps = list(start["timeline"])  # the simulator's path: a context and module loads
    assert steps[0] == "imports" and steps[-1] == "exit"
    assert {"context", "module loads", "first launch", "first result"} <= set(steps)
    assert list(start["timeline"].values()) == sorted(start["timeline"].values())
    pools = doc["pools_runs"]
    assert [r["pool"] for r in pools] == doc["pools"] == ["persistent", "slices"]
    assert doc["pool_option"] is True  # solve takes --pool: both pools are measured
    for run in pools:  # every puzzle reported once, on the card's backend
        assert run["results"] == run["puzzles"] == 2 and run["missing"] == 0
        assert run["backends_reported"] == ["cuda"] and run["chains_per_puzzle"] == 2
        assert run["checked_here"] == run["solved"]
    anneal, exact = doc["cores_runs"]
    assert anneal["method"] == "anneal" and anneal["backends_reported"] == ["cpu"]
    assert exact["method"] == "exact" and exact["solved"] == exact["checked_here"] == 2
    assert [r["chains"] for r in doc["occupancy"]] == [1, 2]
    assert all(r["chain_proposals_per_second"] > 0 for r in doc["occupancy"])
    assert doc["ncu"] == "dry run: not run"
    md = (tmp_path / "card_session.md").read_text()
    for heading in ("## Start-up", "## Pools and cores", "## Per-chain rate", "## Phases"):
        assert heading in md
    assert "iso6000 (2)" in md and "9x9 focused-two" in md


def test_predictions_are_the_committed_models_figures():
    virtual = json.loads(cs.VIRTUAL.read_text())
    persistent = cs.pool_prediction(60000, "persistent", 64)
    assert persistent["puzzles_per_second"] == virtual["predicted"]["puzzles_per_second"]
    slices = cs.pool_prediction(60000, "slices", 64)
    design = next(d for d in virtual["designs"]
                  if d["chains"] == 64 and d["pool"].startswith("slices"))  # fmt: skip
    assert slices["puzzles_per_second"] == design["puzzles_per_second"]
    modeled = next(r["modeled"] for r in virtual["runs"] if r["name"] == "iso6000")
    assert (
        cs.pool_prediction(6000, "slices", modeled["chains"])["wall_seconds"]
        == (modeled["wall_seconds"])
    )
    assert cs.pool_prediction(6000, "persistent", 64) is None  # never modeled
    assert cs.pool_prediction(6000, "slices", None) is None
    coop = cs.coop_predictions()
    points = {(k, p, r) for k, _, _, counts, regimes in cs.OCCUPANCY_POINTS
              for p in ("1 chain", "32 chains", "a full wave") for r in regimes}  # fmt: skip
    assert points <= set(coop) and all(v > 0 for v in coop.values())


def test_a_spent_budget_skips_the_step_and_says_so(tmp_path):
    session = cs.Session(tmp_path, tmp_path, dry=False, commit="x", budget=0.0)
    session.doc["phases"] = {}
    phase = cs.Phase(session, "pools")
    assert phase.allowance(40) == 0.0
    assert cs.measured_run(session, phase, "6,000 isomorphs", ["solve"], "cuda", None, 40) is None
    assert phase.record()["skipped"] == ["6,000 isomorphs"]
    roomy = cs.Session(tmp_path, tmp_path, dry=False, commit="x", budget=1000.0)
    assert cs.Phase(roomy, "cores").allowance(25) == 25
    assert cs.Phase(roomy, "env").allowance(1000) == pytest.approx(cs.BUDGETS["env"], abs=0.5)
    half = cs.Session(tmp_path, tmp_path, dry=False, commit="x", budget=cs.TOTAL / 2)
    assert cs.Phase(half, "pools").budget == pytest.approx(cs.BUDGETS["pools"] / 2)
    assert sum(cs.BUDGETS.values()) <= cs.TOTAL + 10  # the last phase may find less left
    assert cs.TOTAL + card_runs.INTERRUPT_GRACE <= 540  # 9 minutes, the wheels' install aside


def test_timeline_lines_are_read_back():
    text = "x\nstart-up timeline (seconds since the process started):\n" \
           "  imports          0.812  (+0.812)\n  module loads     1.500  (+0.688)\n"  # fmt: skip
    assert cs.timeline_of(text) == {"imports": 0.812, "module loads": 1.5}


def test_an_unknown_phase_is_one_line_and_exit_two():
    proc = subprocess.run(["bash", str(SCRIPT), "everything"], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "card_session.sh: phase must be all, lent, prepare, sets, large, check, frontier36, "
        "frontier49, impasse or warp, not 'everything'"
    )


FAKE_PYTHON = """#!/bin/sh
printf '%s\\n' "$*" >> "$CALLS"
case "$*" in *benchmarks.bench_frontier*) echo '{"instance": "one", "status": "solved"}';; esac
"""


def stand_in_env(tmp_path, **extra: str) -> dict:
    """The environment of a card phase run here: python3 (FAKE_PYTHON), nvidia-smi and nproc
    (16) stand-ins first on the PATH, $OUT and $CALLS under tmp_path, then `extra`."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("python3", FAKE_PYTHON), ("nvidia-smi", "#!/bin/sh\necho card\n"),
                       ("nproc", "#!/bin/sh\necho 16\n")):  # fmt: skip
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    return {"PATH": f"{bin_dir}:/usr/bin:/bin", "OUT": str(tmp_path / "out"),
            "CALLS": str(tmp_path / "calls.txt"), **extra}  # fmt: skip


@pytest.mark.parametrize(
    ("phase", "limit", "solvers", "cell"),
    [("frontier36", None, None, "--orders 36x36 --fills 50 --count 5 --limit 50"),
     ("frontier36", None, "gpu-anneal,gpu-anneal-impasse",
      "--orders 36x36 --fills 50 --count 5 --limit 50"),
     ("frontier49", "90", None, "--orders 49x49 --fills 45 --count 3 --limit 90")],
)  # fmt: skip
def test_a_frontier_phase_runs_bench_frontier_on_the_card_then_on_the_cores(
    tmp_path, phase, limit, solvers, cell
):
    """frontier36 / frontier49 (stand-ins on the PATH, stand_in_env): bench_frontier
    on the phase's cell, gpu-anneal alone (FRONTIER_SOLVERS: the solvers it names), --backend
    cuda then cpu, each to its own results file under $OUT; FRONTIER_LIMIT replaces the limit;
    each run's instance lines are shown."""
    out, calls = tmp_path / "out", tmp_path / "calls.txt"
    env = stand_in_env(tmp_path, TMPDIR=str(tmp_path),
                       **({"FRONTIER_LIMIT": limit} if limit else {}),
                       **({"FRONTIER_SOLVERS": solvers} if solvers else {}))  # fmt: skip
    proc = subprocess.run(["bash", str(SCRIPT), phase], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=60)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    runs = [line for line in calls.read_text().splitlines() if "bench_frontier" in line]
    assert len(runs) == 2
    for run, backend in zip(runs, ("cuda", "cpu"), strict=True):
        assert run.startswith(f"-m benchmarks.bench_frontier {cell} --solvers "
                              f"{solvers or 'gpu-anneal'} --backend {backend} ")  # fmt: skip
        assert f"--out {out}/{phase}_{backend}" in run
        assert f"--instances {tmp_path}/frontier_instances" in run
    assert proc.stdout.count('{"instance": "one"') == 2
    assert (out / f"{phase}.log").read_text().count('"instance"') == 2


def test_the_impasse_phase_measures_rates_on_the_card_then_on_the_cores(tmp_path):
    """impasse (stand-ins on the PATH, stand_in_env): bench_impasse_rate on the
    card over IMPASSE_CHAINS, then on the cores with one chain a core, each to its own file."""
    out, calls = tmp_path / "out", tmp_path / "calls.txt"
    env = stand_in_env(tmp_path, IMPASSE_CHAINS="64,128")
    proc = subprocess.run(["bash", str(SCRIPT), "impasse"], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=60)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    runs = [line for line in calls.read_text().splitlines() if "bench_impasse_rate" in line]
    assert runs == [
        f"-m benchmarks.bench_impasse_rate --backend cuda --chains 64,128 --slices 5 --moves "
        f"20000 --out {out}/impasse_rate_cuda",
        f"-m benchmarks.bench_impasse_rate --backend cpu --chains 16 --out {out}/impasse_rate_cpu",
    ]


def test_the_warp_phase_measures_both_kernels_then_the_cores(tmp_path):
    """warp (stand-ins on the PATH, stand_in_env): bench_impasse_rate at 32 lanes a chain over
    WARP_CHAINS (state in shared memory), then WARP_GLOBAL_CHAINS (state in global memory),
    then the impasse phase at 3 slices: a thread a chain over IMPASSE_CHAINS on the same card,
    then the cores with one chain a core, each to its own file."""
    out, calls = tmp_path / "out", tmp_path / "calls.txt"
    env = stand_in_env(tmp_path, WARP_CHAINS="32,64", WARP_GLOBAL_CHAINS="8",
                       IMPASSE_CHAINS="1,64")  # fmt: skip
    proc = subprocess.run(["bash", str(SCRIPT), "warp"], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=60)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    runs = [line for line in calls.read_text().splitlines() if "bench_impasse_rate" in line]
    rate = "-m benchmarks.bench_impasse_rate"
    assert runs == [
        f"{rate} --backend cuda --lanes 32 --chains 32,64 --slices 3 --moves 20000 --out "
        f"{out}/impasse_rate_warp",
        f"{rate} --backend cuda --lanes 32 --warp-state global --chains 8 --slices 3 --moves "
        f"20000 --out {out}/impasse_rate_warp_global",
        f"{rate} --backend cuda --chains 1,64 --slices 3 --moves 20000 --out "
        f"{out}/impasse_rate_cuda",
        f"{rate} --backend cpu --chains 16 --out {out}/impasse_rate_cpu",
    ]
    assert (out / "warp.log").exists() and (out / "impasse.log").exists()


def test_a_frontier_phase_runs_other_solvers_on_the_cores_where_asked(tmp_path):
    """FRONTIER_CPU_SOLVERS names the cores' solvers; the card's stay FRONTIER_SOLVERS."""
    calls = tmp_path / "calls.txt"
    env = stand_in_env(tmp_path, TMPDIR=str(tmp_path), FRONTIER_SOLVERS="gpu-anneal-impasse-warp",
                       FRONTIER_CPU_SOLVERS="gpu-anneal-auto")  # fmt: skip
    proc = subprocess.run(["bash", str(SCRIPT), "frontier36"], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=60)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    runs = [line for line in calls.read_text().splitlines() if "bench_frontier" in line]
    assert "--solvers gpu-anneal-impasse-warp --backend cuda" in runs[0]
    assert "--solvers gpu-anneal-auto --backend cpu" in runs[1]


def test_the_lent_phase_runs_warp_then_the_frontier_then_all_into_one_archive(tmp_path):
    """lent (stand-ins on the PATH, stand_in_env): the impasse rates of both kernels and the
    cores, then bench_frontier at 36x36 and 49x49 at a 20 s limit, the warp kernel on the card
    and the engine's default on the cores, then the session at CARD_BUDGET's 120 s, each
    phase's files under its own folder of $OUT/card_lent.tgz."""
    out, calls = tmp_path / "out", tmp_path / "calls.txt"
    env = stand_in_env(tmp_path, TMPDIR=str(tmp_path))
    proc = subprocess.run(["bash", str(SCRIPT), "lent", "abc123"], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=60)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    runs = [line.split()[1] for line in calls.read_text().splitlines()
            if line.startswith("-m benchmarks")]  # fmt: skip
    assert runs == [*["benchmarks.bench_impasse_rate"] * 4, *["benchmarks.bench_frontier"] * 4,
                    "benchmarks.card_session"]  # fmt: skip
    text = calls.read_text()
    assert "--commit abc123 --budget 120" in text
    assert text.count("--limit 20 --solvers gpu-anneal-impasse-warp --backend cuda") == 2
    assert text.count("--limit 20 --solvers gpu-anneal-auto --backend cpu") == 2
    assert text.count("--orders 49x49 --fills 45") == 2
    assert "--lanes 32 --chains 1,32,132,528,924,1452,2112" in text
    assert "--lanes 32 --warp-state global --chains 1,132,1056" in text
    with tarfile.open(out / "card_lent.tgz") as archive:
        names = set(archive.getnames())
    assert {"./all", "./frontier36/frontier36.log", "./frontier49/frontier49.log",
            "./warp/warp.log"} <= names  # fmt: skip


def test_the_base_set_missing_is_named(tmp_path):
    session = cs.Session(tmp_path, tmp_path / "nowhere", dry=False, commit="x", budget=1.0)
    with pytest.raises(SystemExit, match="nowhere/forum_hardest_1106.txt not found"):
        cs.base_set(session)
