"""benchmarks.frontier_chains and the experiments on it (box permutations, tabu search, a
memetic search, simulated quantum annealing): each solves and is verified, refuses what it
cannot run, and reports one row a method."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from benchmarks import bench_frontier_memetic as bm
from benchmarks import bench_frontier_quantum as bq
from benchmarks import bench_frontier_swap as bs
from benchmarks import bench_frontier_tabu as bt
from benchmarks import frontier_chains as fc
from benchmarks.bench_frontier import checked
from benchmarks.frontier_instances import make_instances

# module, its solve, a setting it runs, its setting's form, a setting missing fields
EXPERIMENTS = [
    (bs, bs.swap_solve, bs.SCHEDULES[0], "T_HI:T_LO:K:T_REHEAT:REHEATS", "0.5:0.3"),
    (bt, bt.tabu_solve, bt.SETTINGS[0], "L_RAND:LAMBDA:STALL", "5:0.3"),
    (bm, bm.memetic_solve, bm.SETTINGS[0], "POP:STEPS:L_RAND:LAMBDA", "10:20000"),
    (bq, bq.quantum_solve, bq.SETTINGS[0], "P:T0:T1:G0:SWEEPS:REHEATS", "10:0.45:0.3"),
]
NAMES = ["swap", "tabu", "memetic", "quantum"]


@pytest.mark.parametrize(("module", "solve", "setting", "form", "short"), EXPERIMENTS, ids=NAMES)
def test_its_chains_solve_a_16x16_instance_and_the_verifier_passes_it(
    module, solve, setting, form, short
):
    """A solved outcome carries a grid the verifier passes (bench_frontier.checked)."""
    inst = make_instances([4], [45], 1, 7)[0]
    outcome = solve(inst.cells, 4, setting, 1, 60.0, seed=1)
    row = checked(outcome, inst, 60.0)
    assert row["solved"] and row["verified"], row["status"]
    assert outcome["proposals"] > 0


@pytest.mark.parametrize(("module", "solve", "setting", "form", "short"), EXPERIMENTS, ids=NAMES)
def test_a_contradiction_starts_no_chain_and_a_bad_setting_is_refused(
    module, solve, setting, form, short
):
    """Givens that deduction refutes give no chain (and an unsolved outcome); a setting
    without its fields is a ValueError naming the form."""
    cells = make_instances([3], [50], 1, 7)[0].cells.copy()
    free = np.flatnonzero(cells == 0)
    row = free[0] // 9
    given = [c for c in range(row * 9, row * 9 + 9) if cells[c]][0]
    cells[free[0]] = cells[given]  # the same digit twice in a row
    if module is bm:  # a population of chains, each started as the tabu chain is
        assert bm.new_population(cells, 3, setting, seed=0) is None
    elif module is bq:  # a ring of replicas, each started as the tabu chain is
        assert bq.new_ring(cells, 3, bq.parse_setting(setting), seed=0) is None
    else:
        assert module.new_chain(cells, 3, seed=0) is None
    assert solve(cells, 3, setting, 1, 1.0, seed=0)["status"] == "unsolved"
    with pytest.raises(ValueError, match=form):
        solve(cells, 3, short, 1, 1.0, seed=0)


@pytest.mark.parametrize(
    ("module", "method", "rate"),
    [
        (bs, "swap 0.7:0.55:3000:0.6:3", "2.0"),
        (bt, "tabu 5:0.3:2000000", "2.00"),
        (bm, "memetic 10:20000:5:0.3", "2.00"),
        (bq, "quantum 10:0.45:0.3:0.5:2000000:3", "2.00"),
    ],  # fmt: skip
    ids=NAMES,
)
def test_the_report_names_each_method_with_its_solved_and_rate(module, method, rate):
    """render: one row a method, solved of instances, the solved seconds, M proposals/s."""
    rows = [{"solved": True, "seconds": 2.0, "proposals": 4_000_000},
            {"solved": False, "seconds": 8.0, "proposals": 16_000_000}]  # fmt: skip
    result = {
        "machine": {"cpu": "X", "cores": 2, "load_average_at_start": 0.5, "date": "D"},
        "args": {"order": 6, "fill": 50, "seed": 2, "count": 2, "limit": 8.0, "chains": 2},
        "table": [fc.method_entry(method, rows)],
        "command": f"python -m benchmarks.{module.__name__.split('.')[-1]}",
    }
    text = module.render(result)
    assert f"| {method} | 1/2 | 2 | {rate} |" in text
    assert "training instances" in text and "36x36 at 50 %" in text
    assert "2 chains, one thread each" in text


def test_race_stops_every_chain_once_one_solves_and_sums_their_tallies():
    """Chain 1 solves at its third batch; chain 0 never does; both stop, the outcome carries
    chain 1's grid and the proposals and trials of both."""

    def start(index):
        return ({"index": index}, np.zeros(2, np.int64))

    def advance(chain, state):
        state[0] += 10
        state[1] += 1
        return [chain["index"]] * 4 if chain["index"] == 1 and state[1] == 3 else None

    outcome = fc.race(2, 30.0, start, advance, lambda s: (s[0], s[1]))
    assert outcome["status"] == "solved" and outcome["solution"] == [1, 1, 1, 1]
    assert outcome["seconds"] < 30.0 and outcome["trials"] >= 3
    assert outcome["proposals"] == 10 * outcome["trials"]


def test_race_with_no_chain_to_start_ends_unsolved_at_once():
    """start giving None (a contradiction) stops every thread: unsolved, nothing counted."""
    outcome = fc.race(2, 30.0, lambda index: None, lambda c, s: None, lambda s: (0, 0))
    assert outcome["status"] == "unsolved" and outcome["solution"] is None
    assert outcome["seconds"] < 5.0 and outcome["proposals"] == 0


def test_the_chains_seed_is_their_own_where_given_and_the_report_names_it():
    """--chain-seed gives the chains (the default's and the experiment's) their own seed and
    the report says so; without it they take the instances' seed and the report is silent."""
    assert fc.chains_seed(SimpleNamespace(seed=2, chain_seed=None)) == 2
    assert fc.chains_seed(SimpleNamespace(seed=2, chain_seed=13)) == 13
    assert fc.chains_seed(SimpleNamespace(seed=4)) == 4
    result = {
        "machine": {"cpu": "X", "cores": 2, "load_average_at_start": 0.5, "date": "D"},
        "args": {"order": 6, "fill": 50, "seed": 1, "count": 5, "limit": 60.0, "chains": 2},
        "table": [fc.method_entry("tabu 5:0.3:2000000", [])],
        "command": "python -m benchmarks.bench_frontier_tabu",
    }
    assert "chains' seed" not in bt.render(result)
    result["args"]["chain_seed"] = 13
    assert "Instances: seed 1, 5 of them, chains' seed 13." in bt.render(result)


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--tabu", "5:0.3"], "L_RAND:LAMBDA:STALL"),
        (["--tabu", "5:0.3:100", "--tabu", "x:0.3:100"], "L_RAND:LAMBDA:STALL"),
        (["--count", "0"], "--count and --chains 1 or more"),
        (["--order", "9"], "--order 2..8"),
    ],
    ids=["short", "second", "count", "order"],
)
def test_an_experiment_refuses_a_bad_flag_or_setting_in_one_line_before_measuring(
    monkeypatch, capsys, tmp_path, flags, named
):
    """experiment_main stops with a usage error naming what is wrong, every setting checked
    before any instance is measured: no results file is written."""
    out = tmp_path / "run"
    argv = ["bench_frontier_tabu", "--order", "3", "--count", "1", "--limit", "1",
            "--no-default", "--out", str(out), *flags]  # fmt: skip
    monkeypatch.setattr("sys.argv", argv)
    with pytest.raises(SystemExit) as stop:
        bt.main()
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and named in err[-1] and "Traceback" not in "\n".join(err)
    assert not out.with_suffix(".json").exists()
