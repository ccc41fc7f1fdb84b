"""Running a script of tests/cuda_sim under the CUDA simulator, in a child process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parent


def run_simulated(script: str, *args: str) -> object:
    """Run tests/cuda_sim/<script> with NUMBA_ENABLE_CUDASIM=1; its last stdout line as JSON.

    The simulator must be switched on before numba is imported, hence the child process.
    """
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, str(HERE / "cuda_sim" / script), *args],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])
