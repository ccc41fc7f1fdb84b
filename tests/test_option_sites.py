"""Where each of move, schedule, chains and backend is checked, parsed or defaulted: the call
sites of their validators in gpu_anneal/ and cli/, pinned. A run's options are settled once, in
gpu_anneal/run_plan.py (after resolve.py checked them), and the solvers below it read the frozen
RunPlan: a new call site on the solve path, or a second default, fails here.

Glossary:
    site     a line of a source file that calls one of an option's validators
    SITES    option -> (the code that checks, parses or defaults it, {file: sites there})
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("gpu_anneal", "cli")

# the solve path below resolve: these read the RunPlan and settle no option again
SOLVE_PATH = (
    "gpu_anneal/solvers.py",
    "gpu_anneal/sudoku_solver.py",
    "gpu_anneal/runners.py",
    "gpu_anneal/grid_runners.py",
)
# take a RunPlan too: the pool's launch model (--dry-run, info), the Dask scale-out
PLAN_TAKERS = ("gpu_anneal/plan.py", "gpu_anneal/scale.py")

SITES = {
    # the move preset resolved at an order (Settings.move_at for a run, --dry-run and info;
    # the pool's own entry point; `bench`), or a move defaulted where none is given
    "move": (
        r"\bmove_of\(|not in rules\.MOVE_NAMES|move or \"sirdey\"",
        {
            "gpu_anneal/settings.py": 1,
            "gpu_anneal/run_plan.py": 2,
            "cli/bench.py": 1,
        },
    ),
    # a Sudoku schedule parsed at an order: checked by resolve (kinds/sudoku.py), parsed once a
    # run (run_plan.py: sudoku_plan, pool_plan); `bench`, the grid generator and the rate
    # measurement parse their own
    "schedule": (
        r"\bwith_start\(|by_name\(schedule",
        {
            "gpu_anneal/kinds/sudoku.py": 4,
            "gpu_anneal/run_plan.py": 2,
            "gpu_anneal/generation.py": 1,
            "gpu_anneal/measure.py": 1,
            "cli/bench.py": 2,
        },
    ),
    # the grid kinds' schedule: checked by resolve (kinds/grid.py), parsed once a run
    "grid schedule": (
        r"\bgrid_schedule\(\s*(?:text|s\.schedule)",
        {"gpu_anneal/kinds/grid.py": 1, "gpu_anneal/run_plan.py": 1},
    ),
    # chains checked: resolve (any order), the run plan (the order's memory bound, on Dask for
    # a task's chunk; the pool's entry point), the rate measurement, `bench` and the grid
    # puzzles' own entry point (grid_puzzles.solve_grid_puzzle)
    "chains": (
        r"\bvalidate\.chains\(|\bchains < 1\b|\"--chains\", chains",
        {
            "gpu_anneal/resolve.py": 1,
            "gpu_anneal/grid_puzzles.py": 1,
            "gpu_anneal/run_plan.py": 2,
            "gpu_anneal/measure.py": 1,
            "cli/bench.py": 1,
        },
    ),
    # chains defaulted: the pool's one default (run_plan.default_chains, its CPU share
    # run_plan.cpu_chains, which the cost model behind `auto` prices too) and the grid kinds'
    # one default (run_plan.GRID_CHAINS)
    "chains default": (
        r"\bdefault_chains\(|\bcpu_chains\(|GRID_CHAINS\[|4096 if|else 16\b",
        {"gpu_anneal/run_plan.py": 4, "gpu_anneal/backend_choice.py": 1},
    ),
    # backend: one resolver (backends.resolve_backend, one device probe: cuda_status)
    "backend": (
        r"\bgrid_backend\(|\bcuda_available\(\)|GRID_BACKENDS|cuda\.is_available\(\)",
        {"gpu_anneal/backends.py": 1},
    ),
}


def sources():
    """(path relative to the root, text) of every Python file scanned."""
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), path.read_text()


def sites(pattern: str) -> dict[str, int]:
    """File -> lines matching the pattern (comments and docstring lines included: a site
    named in prose counts, so a moved check is not hidden by a stale mention)."""
    found: dict[str, int] = {}
    regex = re.compile(pattern)
    for name, text in sources():
        count = sum(1 for line in text.splitlines() if regex.search(line) and "def " not in line)
        if count:
            found[name] = count
    return found


@pytest.mark.parametrize("option", list(SITES))
def test_each_option_is_settled_where_the_table_says(option):
    """The validators of the option are called exactly at the pinned sites."""
    pattern, expected = SITES[option]
    assert sites(pattern) == expected


@pytest.mark.parametrize("option", list(SITES))
def test_the_solve_path_settles_no_option_again(option):
    """No module below the run plan, and none that takes one (the launch model behind
    --dry-run and info, the Dask scale-out), checks, parses or defaults an option."""
    pattern, _ = SITES[option]
    found = sites(pattern)
    assert not [name for name in SOLVE_PATH + PLAN_TAKERS if name in found]


def test_the_launch_model_and_the_dry_run_take_a_run_plan():
    """plan.make_plan and plan.summary read RunPlans (run_plan.sudoku_plan's); --dry-run's
    plans are built from resolved settings, the move that runs read from each order's plan."""
    import inspect

    from gpu_anneal import backend_choice, plan, run_plan

    assert list(inspect.signature(plan.make_plan).parameters)[0] == "run"
    for describe in (backend_choice.describe_plans, backend_choice.describe_cores):
        body = inspect.getsource(describe)
        assert "sudoku_plan(s, order" in body and "run.move" in body
    assert "sudoku_plan(s, order" in inspect.getsource(run_plan.card_plans)


def test_a_grid_kind_solves_with_what_it_is_given():
    """kinds/grid.py checks the schedule for resolve (check_schedule); its solve_one takes the
    plan's backend and chains and settles nothing."""
    import inspect

    from gpu_anneal.kinds.grid import GridKind

    body = inspect.getsource(GridKind.solve_one)
    for pattern, _ in SITES.values():
        assert not re.search(pattern, body)


def test_the_pattern_search_finds_a_site():
    """The search sees a call it is given (the check above can fail)."""
    assert re.search(SITES["move"][0], "    move = rules.move_of(move, order)")
    assert re.search(SITES["chains default"][0], "chains = 4096 if used == 'cuda' else 16")
    assert re.search(SITES["move"][0], '    move = move or "sirdey"')
    assert re.search(
        SITES["chains"][0], '    for name, value in (("--chains", chains), ("--batch", batch)):'
    )
