"""max_trials counts trials over all of a puzzle's chains, exactly, for every kind and backend.

A puzzle that never solves runs exactly max_trials trials; one that solves runs at most that
many. Trials are dealt round-robin over the chains (chain i of c takes max_trials // c, one more
when i < max_trials % c): the CPU runners and the kernels (under the simulator) alike, and a
replayed Sudoku chain gets its own share.
"""

from __future__ import annotations

import numpy as np
import pytest
from simulate import run_simulated

from cpu_reference.anneal.trials import trials_left
from cpu_reference.hashi import puzzle as H
from cpu_reference.hashi import rules as HA
from cpu_reference.shikaku import puzzle as S
from cpu_reference.shikaku import rules as SA
from cpu_reference.sudoku import rules
from cpu_reference.sudoku.batch import make_batch, run_slice_cpu
from cpu_reference.sudoku.schedules import by_name
from gpu_anneal import api
from gpu_anneal.sudoku_solver import chain_trials, replay_chain, solve_one

# never solved: r1c1 has no digit left; no exact cover; only disconnected answers
SUDOKU_NONE = "..12....3...4..."
SHIKAKU_NONE = "4.4\n...\n1..\n"
HASHI_NONE = "1.1\n...\n1.1\n"
SOLVABLE = {"sudoku": "1...........4...\n", "shikaku": "3...2\n..9..\n....6\n.....\n",
            "hashi": "2.2\n...\n2.2\n"}  # fmt: skip
NEVER = {"sudoku": SUDOKU_NONE + "\n", "shikaku": SHIKAKU_NONE, "hashi": HASHI_NONE}
# no deduction: it would prove SUDOKU_NONE unsolvable before any trial (status no_solution)
SUDOKU_SETTINGS = dict(
    schedule="geometric:t0=1,ratio=0.8,t_final=0.1", move="sirdey", propagate=False
)
# (chains, max_trials): fewer trials than chains, a remainder, an exact multiple
LIMITS = [(4, 3), (64, 3), (16, 2), (4, 10), (3, 9)]


def cells(text: str) -> np.ndarray:
    """A 4x4 puzzle's cells (0 blank)."""
    return np.array([0 if ch == "." else int(ch) for ch in text], np.uint8)


def solve(kind: str, text: str, chains: int, max_trials: int):
    """api.solve on the CPU, no time limit; the one result."""
    extra = SUDOKU_SETTINGS if kind == "sudoku" else {}
    (result,) = api.solve(
        text, kind=kind, backend="cpu", chains=chains, max_trials=max_trials, seed=3,
        time_limit=0, **extra,
    )  # fmt: skip
    return result


@pytest.mark.parametrize("kind", ["sudoku", "shikaku", "hashi"])
@pytest.mark.parametrize("chains,max_trials", LIMITS)
def test_a_puzzle_that_never_solves_runs_exactly_max_trials(kind, chains, max_trials, monkeypatch):
    """counts.trials equals max_trials, whether it is below, above or a multiple of chains (the
    exact search's proof of no solution held off: it would end the puzzle first)."""
    from gpu_anneal import sudoku_solver

    monkeypatch.setattr(sudoku_solver, "PROOF_AFTER", float("inf"))
    result = solve(kind, NEVER[kind], chains, max_trials)
    assert not result.solved and result.status == "unsolved", result.error
    assert result.counts.trials == max_trials


@pytest.mark.parametrize("kind", ["sudoku", "shikaku", "hashi"])
@pytest.mark.parametrize("chains,max_trials", [(4, 3), (8, 13)])
def test_a_puzzle_that_solves_runs_at_most_max_trials(kind, chains, max_trials):
    """A solvable puzzle stops at its solution or at max_trials, never beyond."""
    result = solve(kind, SOLVABLE[kind], chains, max_trials)
    assert 1 <= result.counts.trials <= max_trials


def test_sudoku_runs_no_more_chains_than_trials():
    """--chains 4 --max-trials 3: three chains, one trial each (none idle); the record says so."""
    result = solve("sudoku", NEVER["sudoku"], 4, 3)
    assert result.params.chains == 3 and result.counts.trials == 3


def test_sudoku_chains_take_their_round_robin_share():
    """make_batch's trial_cap is the puzzle's total: chain i of cpp starts cap // cpp trials, one
    more when i < cap % cpp, none when i >= cap (exhausted at once), on every puzzle."""
    sched = by_name(SUDOKU_SETTINGS["schedule"], 2)
    for cap in (3, 6, 9):
        batch = make_batch(np.stack([cells(SUDOKU_NONE)] * 2), 2, sched, 4, 1, trial_cap=cap)
        for _ in range(20):
            run_slice_cpu(batch, 5, stop_on_solved=False)
        share = [chain_trials(cap, 4, i) for i in range(4)]
        assert batch.ctr[:, rules.C_TRIALS].tolist() == share * 2
        assert sum(share) == cap
        assert (batch.ctr[:, rules.C_STATUS] == rules.EXHAUSTED).all()
    assert trials_left(4, 6).tolist() == [chain_trials(6, 4, i) for i in range(4)] == [2, 2, 1, 1]


def test_a_replayed_sudoku_chain_gets_its_share_of_the_trials():
    """Each chain of a run replayed alone runs the run's share of the trials; their proposals
    add up to the run's (the puzzle never solves, so every chain runs all of its trials)."""
    kwargs = dict(chains=4, seed=7, max_trials=6, **SUDOKU_SETTINGS)
    run = solve_one(cells(SUDOKU_NONE), 2, backend="cpu", time_limit=None, **kwargs)
    replays = [replay_chain(cells(SUDOKU_NONE), 2, i, **kwargs) for i in range(4)]
    assert [r.trials for r in replays] == [2, 2, 1, 1]
    assert run.trials == 6 and sum(r.proposals for r in replays) == run.proposals


def _grid_case(kind: str, seed: int) -> dict:
    # no clock: the run ends at its trial cap however slowly the simulator runs (under load)
    options = dict(chains=5, max_trials=7, early_stop=False, n_plateaus=3, plateau=8,
                   time_limit=float("inf"))  # fmt: skip
    if kind == "hashi":
        options["energy"] = "seed"
    text = {"shikaku": SHIKAKU_NONE, "hashi": HASHI_NONE}[kind]
    return {"kind": kind, "puzzle": text.strip(), "seed": seed, "options": options}


def _grid_cpu(case: dict) -> dict:
    parse, anneal = (S.parse_grid, SA.anneal) if case["kind"] == "shikaku" else (
        H.parse_grid, HA.anneal)  # fmt: skip
    states: list = []

    def runner(*args):
        states[:] = [args[0]]
        (SA if case["kind"] == "shikaku" else HA).run_chains_cpu(*args)

    result = anneal(parse(case["puzzle"]), seed=case["seed"], runner=runner, **case["options"])
    return {"best_f": result["best_f"].tolist(), "best": result["best"].tolist(),
            "states": states[0].tolist(), "trials": result["trials"]}  # fmt: skip


@pytest.mark.cudasim
def test_grid_kernels_deal_the_trials_as_the_cpu_does():
    """Shikaku and Hashi, 5 chains and 7 trials (two rounds, the second on chains 0 and 1 only):
    under the simulator the kernels end with the CPU runner's best energies, best states and
    RNG states chain by chain (a chain that ran an extra trial has moved its RNG state)."""
    cases = [_grid_case("shikaku", 11), _grid_case("hashi", 5)]
    for case, got in zip(cases, run_simulated("grid_anneal.py", _json(cases)), strict=True):
        want = _grid_cpu(case)
        assert {key: got[key] for key in want} == want, case
        assert want["trials"] == 7


@pytest.mark.cudasim
def test_sudoku_kernel_deals_the_trials_as_the_cpu_runner_does(monkeypatch):
    """Two never-solving 4x4 puzzles through one slot (the second a refill), 4 chains, 6 trials:
    the CUDA pool under the simulator reports the CPU pool's trials, proposals, accepted moves
    and best cost for each (the proof of no solution held off on both sides)."""
    from gpu_anneal import sudoku_solver

    monkeypatch.setattr(sudoku_solver, "PROOF_AFTER", float("inf"))
    got = run_simulated("sudoku_trial_limits.py")
    puzzles = [cells(SUDOKU_NONE)] * 2
    want = []
    from gpu_anneal.sudoku_solver import solve_stream

    for r in solve_stream(puzzles, 2, slots=1, chains=4, seed=9, time_limit=None,
                          max_trials=6, backend="cpu", **SUDOKU_SETTINGS):  # fmt: skip
        want.append([r.index, r.trials, r.proposals, r.accepted, r.cost])
    assert got == want and [row[1] for row in want] == [6, 6]


def _json(cases) -> str:
    import json

    return json.dumps(cases)


def test_the_proof_search_is_compiled_in_the_compile_step(monkeypatch):
    """The pool's compile step compiles the proof search at the run's order (compile_proof,
    before the clock starts): on a cold cache its compiling never counts as search time."""
    from gpu_anneal import sudoku_solver

    compiled = []
    monkeypatch.setattr(sudoku_solver, "compile_proof", compiled.append)
    result = solve("sudoku", SOLVABLE["sudoku"], 2, 4)
    assert compiled == [2] and result.counts.trials >= 1
