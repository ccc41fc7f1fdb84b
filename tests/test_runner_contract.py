"""The runner contract (cpu_reference.anneal.contract): every runner offers its protocol's members
with the protocol's arguments, and run_trials drives a grid puzzle's runner through it."""

from __future__ import annotations

import inspect
import typing

import numpy as np
import pytest

from cpu_reference.anneal.contract import PoolRunner, Runner, TrialRunner
from cpu_reference.anneal.trials import CpuTrials, run_trials
from gpu_anneal.runners import CpuRunner, CudaRunner
from gpu_anneal.standin import ModeledRunner, StandInRunner


def members(protocol: type) -> set[str]:
    """The names a protocol asks for: its methods and attributes, its bases' included."""
    names: set[str] = set()
    for cls in protocol.__mro__:
        if cls in (object, typing.Protocol, typing.Generic):
            continue
        names |= {name for name in vars(cls) if not name.startswith("_")}
        names |= set(vars(cls).get("__annotations__", {}))
    return names


def runner_classes() -> list[tuple[type, type]]:
    from gpu_anneal.grid_runners import CudaTrials

    pool = [(cls, PoolRunner) for cls in (CpuRunner, CudaRunner, StandInRunner, ModeledRunner)]
    return pool + [(CpuTrials, TrialRunner), (CudaTrials, TrialRunner)]


def test_every_runner_offers_its_protocol_with_the_same_arguments():
    """Sudoku's pool runners and the grid puzzles' trial runners have every member of their
    protocol; each method takes the protocol's arguments, by name and in order."""
    assert members(Runner) == {"name", "overlaps", "run", "status"}
    assert members(Runner) < members(PoolRunner) and members(Runner) < members(TrialRunner)
    for cls, protocol in runner_classes():
        for name in sorted(members(protocol)):
            assert hasattr(cls, name), f"{cls.__name__} lacks {name}"
            wanted = getattr(protocol, name, None)
            if callable(wanted):
                got = list(inspect.signature(getattr(cls, name)).parameters)
                assert got == list(inspect.signature(wanted).parameters), (cls.__name__, name)
    assert {cls.name for cls, _ in runner_classes()} == {"cpu", "cuda", "standin"}


class Recording:
    """A TrialRunner whose chain 1 solves in round `solves_at` (never when None); records calls."""

    name = "recording"
    overlaps = False

    def __init__(self, solves_at: int | None = None):
        self.solves_at = solves_at
        self.calls: list[str] = []
        self.rounds = 0
        self.args: tuple = ()

    def load(self, args: tuple) -> None:
        self.calls.append("load")
        self.args = args

    def run(self, budget: int) -> None:
        self.calls.append(f"run({budget})")
        self.rounds += budget

    def status(self) -> np.ndarray:
        self.calls.append("status")
        solved = np.zeros(3, np.int32)
        solved[1] = self.solves_at is not None and self.rounds >= self.solves_at
        return solved

    def fetch(self) -> None:
        self.calls.append("fetch")

    def fetched(self) -> tuple:
        self.calls.append("fetched")
        return self.args


def test_run_trials_drives_a_trial_runner_round_by_round():
    """load once, then run(1) and status() a round until a chain solves or max_trials (exact,
    over all chains) is spent, then fetch and fetched once."""
    solved = np.zeros(3, np.int32)  # the host's array: a TrialRunner reports through status()
    args = (np.zeros((3, 2), np.uint64), solved)
    runner = Recording(solves_at=2)
    assert isinstance(runner, TrialRunner)
    assert run_trials(runner, args, solved, 0.0, float("inf"), None).trials == 6
    assert runner.calls == ["load"] + ["run(1)", "status"] * 2 + ["fetch", "fetched"]
    assert runner.args is args
    never = Recording()
    assert run_trials(never, args, solved, 0.0, float("inf"), 7).trials == 7  # 3 + 3 + 1
    assert never.calls == ["load"] + ["run(1)", "status"] * 3 + ["fetch", "fetched"]
    late = Recording(solves_at=5)
    assert run_trials(late, args, solved, 0.0, float("inf"), 8).trials == 8  # 3 + 3 + 2
    assert late.rounds == 3


def test_a_callable_runs_as_the_cpu_trial_runner():
    """A callable with run_chains_cpu's signature is not a TrialRunner: run_trials runs it as
    CpuTrials, once a round on the host arrays, and reads the host's solved array."""
    solved = np.zeros(4, np.int32)
    seen: list[tuple] = []

    def run_chains(states, flags):
        seen.append((states, flags))
        if len(seen) == 3:
            flags[2] = 1

    assert not isinstance(run_chains, TrialRunner)
    args = (np.zeros((4, 2), np.uint64), solved)
    assert run_trials(run_chains, args, solved, 0.0, float("inf"), None).trials == 12
    assert len(seen) == 3 and all(s[1] is solved for s in seen)
    cpu = CpuTrials(run_chains, solved)
    assert isinstance(cpu, TrialRunner)
    cpu.load(args)
    cpu.run(2)
    assert len(seen) == 5 and cpu.status() is solved and cpu.fetched() == args
    with pytest.raises(ValueError, match="solved"):
        cpu.load((np.zeros((4, 2), np.uint64), np.zeros(4, np.int32)))
