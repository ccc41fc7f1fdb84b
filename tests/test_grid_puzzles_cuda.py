"""CUDA kernels for Shikaku and Hashiwokakero without a GPU: simulator and PTX.

The simulator run is a subprocess (NUMBA_ENABLE_CUDASIM must be set before numba is imported);
it runs each kernel for one short trial on three chains and prints per-chain best energies and
best states, which must equal the CPU runner's for the same seed.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cpu_reference.hashi import puzzle as H
from cpu_reference.hashi import rules as HA
from cpu_reference.shikaku import puzzle as S
from cpu_reference.shikaku import rules as SA

ROOT = Path(__file__).resolve().parents[1]
SHIKAKU = "3...2\n..9..\n....6\n....."
HASHI = "2.2\n...\n2.2"
SHORT = dict(chains=3, max_trials=1, early_stop=False, n_plateaus=4, plateau=10)

SIM_SCRIPT = """
import json, sys
from cpu_reference.shikaku import puzzle as S
from cpu_reference.shikaku import rules as SA
from cpu_reference.hashi import puzzle as H
from cpu_reference.hashi import rules as HA
from gpu_anneal.kernels import shikaku as cuda_shikaku
from gpu_anneal.kernels import hashi as cuda_hashi
assert cuda_shikaku.simulating()
short = json.loads(sys.argv[1])
out = {}
a = SA.anneal(S.parse_grid(sys.argv[2]), seed=11, t0=50.0, t_final=20.0,
              runner=cuda_shikaku.run_chains_cuda, **short)
out["shikaku"] = [a["best_f"].tolist(), a["best"].tolist()]
for energy in ("seed", "connected"):
    b = HA.anneal(H.parse_grid(sys.argv[3]), seed=5, energy=energy, t0=50.0, t_final=20.0,
                  runner=cuda_hashi.run_chains_cuda, **short)
    out["hashi-" + energy] = [b["best_f"].tolist(), b["best"].tolist()]
print(json.dumps(out))
"""


def _cpu_results():
    a = SA.anneal(S.parse_grid(SHIKAKU), seed=11, t0=50.0, t_final=20.0, **SHORT)
    out = {"shikaku": [a["best_f"].tolist(), a["best"].tolist()]}
    for energy in ("seed", "connected"):
        b = HA.anneal(H.parse_grid(HASHI), seed=5, energy=energy, t0=50.0, t_final=20.0, **SHORT)
        out["hashi-" + energy] = [b["best_f"].tolist(), b["best"].tolist()]
    return out


@pytest.mark.cudasim
def test_simulated_kernels_replay_cpu_chains():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-c", SIM_SCRIPT, json.dumps(SHORT), SHIKAKU, HASHI],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    sim = json.loads(proc.stdout.strip().splitlines()[-1])
    cpu = _cpu_results()
    assert sim == cpu
    # the three chains are distinct streams: their best states are not all equal
    states = np.array(cpu["shikaku"][1])
    assert not (states == states[0]).all()


@pytest.fixture
def fake_device(monkeypatch):
    """Pretend an sm_90 device is current, so kernels that call functions compile to PTX."""
    pytest.importorskip("numba.cuda")
    import numba.cuda.compiler as compiler
    import numba.cuda.dispatcher as dispatcher

    class Device:
        compute_capability = (9, 0)

    monkeypatch.setattr(dispatcher, "get_current_device", lambda: Device())
    monkeypatch.setattr(compiler, "get_current_device", lambda: Device())


def _captured_args(anneal, puzzle):
    captured = []
    anneal(puzzle, chains=2, max_trials=1, runner=lambda *a: captured.append(a))
    return captured[0]


@pytest.mark.ptx
def test_shikaku_kernel_compiles_to_ptx(fake_device):
    from gpu_anneal.kernels import shikaku as cuda_shikaku

    ptx = cuda_shikaku.compile_ptx(_captured_args(SA.anneal, S.parse_grid(SHIKAKU)))
    assert ".target sm_90" in ptx and ".entry" in ptx


@pytest.mark.ptx
def test_hashi_kernel_compiles_to_ptx(fake_device):
    from gpu_anneal.kernels import hashi as cuda_hashi

    ptx = cuda_hashi.compile_ptx(_captured_args(HA.anneal, H.parse_grid(HASHI)))
    assert ".target sm_90" in ptx and ".entry" in ptx


@pytest.mark.ptx
def test_ptx_compile_rejects_python_objects(fake_device):
    from numba import cuda, int64, njit

    @njit
    def helper(a):
        items = [1, 2]  # a reflected list cannot live on the device
        a[0] = items[0]

    def kernel(a):
        helper(a)

    with pytest.raises(Exception):  # noqa: B017 - numba raises several typing/lowering errors
        cuda.compile_ptx(kernel, (int64[::1],), cc=(9, 0))
