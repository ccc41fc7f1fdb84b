"""CUDA kernels for Shikaku and Hashiwokakero without a GPU: the real kernels in the simulator.

The simulator run is a child process (NUMBA_ENABLE_CUDASIM must be set before numba is imported)
running tests/cuda_sim/grid_anneal.py: each case anneals through the kernel source compiled
with cuda.jit and the device runner, and reports per-chain best energies, best states and RNG
states, which must equal the CPU runner's for the same seed. PTX and ptxas checks of these
kernels are in test_cuda_proof.py with every other kernel.
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from simulate import one_core, simulator_env

from cpu_reference.hashi import puzzle as H
from cpu_reference.hashi import rules as HA
from cpu_reference.shikaku import puzzle as S
from cpu_reference.shikaku import rules as SA
from gpu_anneal.kinds import kind_of

HERE = Path(__file__).parent
ROOT = HERE.parent
SHIKAKU = "3...2\n..9..\n....6\n....."
HASHI = "2.2\n...\n2.2"
HASHI_6 = "3.4.3\n.....\n3.4.3"  # 6 islands, 7 edges: rarely solved by a random state
# Two trials a chain (unless a chain solves in the first), so chains also carry state across
# launches; no clock (time_limit inf): the simulator under load ends a run by its trials alone
SHORT = dict(chains=3, max_trials=6, early_stop=False, n_plateaus=4, plateau=10, t0=50.0,
             t_final=20.0, time_limit=float("inf"))  # fmt: skip
CASES = [
    {"kind": "shikaku", "puzzle": SHIKAKU, "seed": 11, "options": SHORT},
    {"kind": "hashi", "puzzle": HASHI, "seed": 5, "options": {**SHORT, "energy": "seed"}},
    {"kind": "hashi", "puzzle": HASHI, "seed": 5, "options": {**SHORT, "energy": "connected"}},
]
# Three trials a chain that cannot solve (two moves a trial from a random state): the traffic
# case
NO_SOLVE = dict(chains=5, max_trials=15, early_stop=False, n_plateaus=1, plateau=1, t0=50.0,
                t_final=20.0, time_limit=float("inf"))  # fmt: skip


def run_simulated(cases: list[dict]) -> list[dict]:
    """tests/cuda_sim/grid_anneal.py's results for `cases`, run under the CUDA simulator."""
    proc = subprocess.run(
        [sys.executable, str(HERE / "cuda_sim" / "grid_anneal.py"), json.dumps(cases)],
        preexec_fn=one_core(),
        env=simulator_env(),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_cpu(case: dict) -> dict:
    """The same case on the CPU runner: best energies, best states and final RNG states."""
    if case["kind"] == "shikaku":
        parse, anneal, run_chains = S.parse_grid, SA.anneal, SA.run_chains_cpu
    else:
        parse, anneal, run_chains = H.parse_grid, HA.anneal, HA.run_chains_cpu
    seen: list[tuple] = []

    def runner(*args):
        seen.append(args)
        run_chains(*args)

    result = anneal(parse(case["puzzle"]), seed=case["seed"], runner=runner, **case["options"])
    return {
        "best_f": result["best_f"].tolist(),
        "best": result["best"].tolist(),
        "states": seen[0][0].tolist(),
        "trials": result["trials"],
    }


def chains_of(result: dict) -> dict:
    """The fields both backends report about the chains."""
    return {key: result[key] for key in ("best_f", "best", "states", "trials")}


# Same-typed argument pairs a launch could pass in each other's place: int64 plateau and
# n_plateaus (Shikaku), float64 beta0 and growth (Hashi)
SWAPPED = [
    {**CASES[0], "swap": ["plateau", "n_plateaus"]},
    {**CASES[2], "swap": ["beta0", "growth"]},
]
TRAFFIC = [
    {"kind": "shikaku", "puzzle": SHIKAKU, "seed": 3, "options": NO_SOLVE},
    {"kind": "hashi", "puzzle": HASHI_6, "seed": 3, "options": NO_SOLVE},
]


@pytest.fixture(scope="module")
def simulated() -> dict[str, list[dict]]:
    """Every case of this module in one simulator run: {"replay", "swapped", "traffic"}."""
    groups = {"replay": CASES, "swapped": SWAPPED, "traffic": TRAFFIC}
    results = run_simulated([case for cases in groups.values() for case in cases])
    out, at = {}, 0
    for name, cases in groups.items():
        out[name] = results[at : at + len(cases)]
        at += len(cases)
    return out


@pytest.mark.cudasim
def test_simulated_kernels_replay_cpu_chains(simulated):
    """Shikaku and both Hashi energies: the kernel source run by the device runner ends with
    the CPU runner's best energies, best states and RNG states, chain by chain."""
    for case, got in zip(CASES, simulated["replay"], strict=True):
        # the factory's kernel, as a device builds it
        made = kind_of(case["kind"]).trial_kernel().function()
        assert got["kernel"] == f"{made.__module__}.kernel"  # the real kernel ran
        assert chains_of(got) == run_cpu(case), case
    # the chains are distinct streams: their RNG states are not all equal
    states = np.array(simulated["replay"][0]["states"])
    assert not (states == states[0]).all()


@pytest.mark.cudasim
def test_swapping_two_same_typed_kernel_arguments_breaks_equality(simulated):
    """The equality above catches argument-order bugs: a launch passing two arguments of one
    numba type in each other's place (the runner refuses a swap of different types) no longer
    replays the CPU chains."""
    for case, got in zip(SWAPPED, simulated["swapped"], strict=True):
        assert chains_of(got) != run_cpu(case), case


@pytest.mark.cudasim
def test_device_runner_keeps_arrays_on_the_device_between_trials(simulated):
    """Over three trials every array goes to the device once; each trial brings back only the
    solved flags, and the end of the run the RNG states, best states and best energies."""
    for case, got in zip(TRAFFIC, simulated["traffic"], strict=True):
        assert got["launches"] == 3 and got["trials"] == 15, case  # trials over all chains
        sizes = got["array_bytes"]
        assert got["bytes_to_device"] == sum(sizes.values())
        results = sizes["states"] + sizes["best"] + sizes["best_f"]
        assert got["bytes_to_host"] == 3 * sizes["solved"] + results
        assert chains_of(got) == run_cpu(case), case


@pytest.mark.parametrize("kind", ["shikaku", "hashi"])
def test_kernel_arguments_are_the_trials_after_the_chain_index(kind):
    """The factory's kernel takes the trial's arguments after `i`, by name and in order (the
    runner finds solved, states, best and best_f by these names), passes the declared scalars as
    they are and every other argument through `plain`: the scalars are exactly the arguments a
    real launch passes as non-arrays."""
    pytest.importorskip("numba.cuda")
    import numba

    kernel = kind_of(kind).trial_kernel()
    trial = SA.shikaku_trial if kind == "shikaku" else HA.hashi_trial
    trial_names = list(inspect.signature(trial.py_func).parameters)
    assert list(inspect.signature(kernel.function()).parameters) == trial_names[1:]
    assert kernel.names == tuple(trial_names[1:])
    types = kind_of(kind).trial_types()  # the argument types of a real launch
    arrays = {
        n for n, t in zip(kernel.names, types, strict=True) if isinstance(t, numba.types.Array)
    }
    assert set(kernel.scalars) == set(kernel.names) - arrays
    source = kernel.source()
    for name in kernel.names:
        assert (f"plain({name})," in source) == (name not in kernel.scalars), name


def test_the_factory_refuses_a_trial_it_cannot_drive():
    """A trial must start with (i, states) and name the arguments the runner reads; declared
    scalars must be its arguments."""
    pytest.importorskip("numba.cuda")
    from numba import njit

    from gpu_anneal.kernels.launch import TrialKernel

    @njit
    def no_index(states, solved, best, best_f):
        pass

    @njit
    def no_best(i, states, solved, best_f):
        pass

    @njit
    def trial(i, states, solved, best, best_f, width):
        pass

    with pytest.raises(ValueError, match="must start with i, states"):
        TrialKernel(no_index, ())
    with pytest.raises(ValueError, match="no argument named 'best'"):
        TrialKernel(no_best, ())
    with pytest.raises(ValueError, match="no argument named 'height'"):
        TrialKernel(trial, ("height",))
    assert TrialKernel(trial, ("width",)).names == ("states", "solved", "best", "best_f", "width")
