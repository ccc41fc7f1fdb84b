"""Running a script of tests/cuda_sim under the CUDA simulator, in a child process.

The child is held to one core (one_core): the simulator runs each CUDA thread as a Python
thread that hands the interpreter lock on at every barrier, and lock hand-overs between cores
cost several times the work itself; two test workers run their simulator children on two
different cores.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parent


def one_core():
    """A preexec_fn holding a child process to one of this process's cores (the test worker's
    own: gw0 the first, gw1 the second, ...), or None where affinity cannot be set."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    cores = sorted(os.sched_getaffinity(0))
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    core = cores[int(worker) % len(cores) if worker.isdigit() else 0]
    return lambda: os.sched_setaffinity(0, {core})


def simulator_env() -> dict:
    """This process's environment with the CUDA simulator on, the project importable and the
    simulator's block scheduler replaced by tests/sim_site/sitecustomize.py's (a barrier that
    waits on a condition, not a main thread polling every simulated thread)."""
    path = os.pathsep.join([str(ROOT), str(HERE / "sim_site")])
    return dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONPATH=path)


def run_simulated(script: str, *args: str) -> object:
    """Run tests/cuda_sim/<script> with NUMBA_ENABLE_CUDASIM=1; its last stdout line as JSON.

    The simulator must be switched on before numba is imported, hence the child process.
    """
    proc = subprocess.run(
        [sys.executable, str(HERE / "cuda_sim" / script), *args],
        preexec_fn=one_core(),
        capture_output=True,
        text=True,
        timeout=900,
        env=simulator_env(),
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])
