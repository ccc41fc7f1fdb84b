"""Solve options declared once (gpu_anneal.settings.SolveOptions), resolved once
(gpu_anneal.resolve.resolve) into a frozen Settings; the API's messages name parameters, the
command line's name flags."""

from __future__ import annotations

import dataclasses
import inspect
import re
from pathlib import Path

import pytest
from typer.main import get_command

from cli.main import app
from cpu_reference.errors import InputError
from gpu_anneal import api, solvers
from gpu_anneal.resolve import resolve
from gpu_anneal.run_plan import sudoku_plan
from gpu_anneal.settings import API, CLI, FLAGS, Settings, SolveOptions

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("function", [api.solve, api.solve_stream, api.solve_on_dask])
def test_the_api_signatures_are_the_one_declaration(function):
    """puzzles, then SolveOptions' fields as keyword-only parameters: the same names, order and
    defaults."""
    params = list(inspect.signature(function).parameters.values())
    assert params[0].name == "puzzles"
    keywords = [(p.name, p.default) for p in params[1:]]
    declared = [(f.name, f.default) for f in dataclasses.fields(SolveOptions)]
    assert keywords == declared
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params[1:])


def test_the_solve_command_has_a_flag_for_every_option():
    """Every option but the API's own (the fault callback, and the order of arrays given
    without a format) is a flag of `gpu-anneal solve` (fmt is --format)."""
    command = get_command(app).commands["solve"]
    flags = {opt for param in command.params for opt in getattr(param, "opts", [])}
    for name in SolveOptions.names():
        if name not in ("on_input_error", "order"):
            assert CLI(name) in flags, name
    assert CLI("fmt") == "--" + FLAGS["fmt"]


def test_settings_are_frozen_and_built_in_one_place():
    """Settings cannot be changed once resolved, and only resolve() builds one in the package."""
    s = resolve(SolveOptions())
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.move = "sirdey"  # type: ignore[misc]
    builders = []
    for path in sorted((ROOT / "gpu_anneal").rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"\bSettings\(", line) and "class Settings" not in line:
                builders.append(f"{path.relative_to(ROOT)}:{number}")
    assert builders == ["gpu_anneal/resolve.py:" + builders[0].split(":")[1]], builders


def test_resolve_fills_the_kinds_defaults():
    """The default technique, the kind's time limit, one "no limit" (None), seed 0."""
    s = resolve(SolveOptions())
    assert (s.schedule, s.move, s.propagate, s.seed) == ("auto", "auto", True, 0)
    assert s.time_limit == 60.0 and resolve(SolveOptions(time_limit=0)).time_limit is None
    assert resolve(SolveOptions(method="exact")).time_limit is None
    assert resolve(SolveOptions(kind="hashi", method="exact")).method == "ilp"
    assert resolve(SolveOptions(kind="shikaku")).move is None


@pytest.mark.parametrize("order, move", [(2, "focused-two"), (3, "focused-two"), (4, "focused")])
def test_params_record_the_move_that_runs_never_a_preset(order, move):
    """The default technique's params.move is the order's move (auto resolved), as is the
    generator the chains draw from."""
    s = resolve(SolveOptions())
    assert s.move == "auto" and s.move_at(order) == move
    params = solvers.sudoku_params(sudoku_plan(s, order, "cpu", "cpu: asked"))
    assert params.move == move


@pytest.mark.parametrize(
    "kwargs, api_text, cli_text",
    [
        (dict(time_limit=-1), "time_limit -1: must be", "--time-limit -1: must be"),
        (dict(chains=0), "chains 0: must be", "--chains 0: must be"),
        (dict(seed=-1), "seed -1: must be", "--seed -1: must be"),
        (dict(method="exact", chains=2), "chains does not apply to method 'exact'",
         "--chains does not apply to --method exact"),
        (dict(kind="hashi", fmt="line"), "fmt does not apply to kind 'hashi'",
         "--format does not apply to --kind hashi"),
        (dict(kind="go"), "kind 'go': expected one of", "--kind 'go': expected one of"),
        (dict(scheduler="tcp://x:1", workers=2), "scheduler and workers: give one",
         "--scheduler and --workers: give one"),
    ],
)  # fmt: skip
def test_api_errors_name_parameters_and_cli_errors_name_flags(kwargs, api_text, cli_text):
    """The same fault, named the API's way through the API and the command line's way there."""
    with pytest.raises(InputError) as caught:
        api.solve_stream("no such file.txt", **kwargs)
    assert str(caught.value).startswith(api_text) and "--" not in str(caught.value)
    with pytest.raises(InputError) as caught:
        resolve(SolveOptions(**kwargs), CLI)
    assert str(caught.value).startswith(cli_text)
    assert API("time_limit") == "time_limit" and CLI("time_limit") == "--time-limit"


def test_settings_type_is_the_one_the_solvers_take():
    """The solvers type their settings with gpu_anneal.settings.Settings (one type, not a
    copy), imported for the type checker only (the run sits below the front: pyproject's
    import-linter layers)."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(solvers))
    imported = [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "gpu_anneal.settings"
        for alias in node.names
    ]
    assert imported == ["Settings"]
    assert not any(isinstance(n, ast.ClassDef) and n.name == "Settings" for n in ast.walk(tree))
    assert inspect.signature(solvers.sudoku_anneal).parameters["s"].annotation == "Settings"


# The default technique as resolve gives it: (schedule, move, t0, propagate)
DEFAULT = {"schedule": "auto", "move": "auto", "t0": None, "propagate": True}
PUBLISHED = {"schedule": "sirdey-course", "move": "sirdey", "t0": None, "propagate": False}


def technique_of(s: Settings) -> dict:
    return {"schedule": s.schedule, "move": s.move, "t0": s.t0, "propagate": s.propagate}


@pytest.mark.parametrize(
    "given",
    [
        {"schedule": "sirdey-course"},
        {"schedule": "band"},
        {"move": "sirdey"},
        {"move": "candidate"},
        {"t0": 1.0},
        {"propagate": False},
        {"propagate": True},
    ],
)
def test_each_technique_option_given_alone_changes_that_part_alone(given):
    """One of schedule, move, t0, propagate given: that part as given, every other part the
    default technique's (not Sirdey's published ones); propagate=False turns deduction off."""
    s = resolve(SolveOptions(**given))
    assert technique_of(s) == DEFAULT | given


@pytest.mark.parametrize(
    "given",
    [{}, {"move": "candidate"}, {"schedule": "band"}, {"t0": 2.0}, {"propagate": True}],
)
def test_the_published_technique_with_each_option_given_alone(given):
    """technique="published": Sirdey's course schedule, his move, no deduction (what
    `--schedule sirdey-course --move sirdey --no-propagate` names part by part), each option
    given in place of its part alone."""
    s = resolve(SolveOptions(technique="published", **given))
    assert technique_of(s) == PUBLISHED | given
    by_parts = SolveOptions(schedule="sirdey-course", move="sirdey", propagate=False)
    assert technique_of(resolve(by_parts)) == PUBLISHED
    assert technique_of(resolve(SolveOptions(technique="default"))) == DEFAULT


@pytest.mark.parametrize(
    "given, want",
    [
        ({}, {}),
        ({"move": "candidate"}, {"move": "candidate"}),
        ({"schedule": "sirdey-course"}, {"schedule": "sirdey-course", "t0": 810.0}),
        ({"t0": 1.0}, {"t0": 1.0, "schedule": "geometric:t0=1,t_final=0.48,ratio=0.99997959,"
                                             "stall=0"}),
        ({"propagate": False}, {"propagate": False}),
        ({"technique": "published"},
         {"schedule": "sirdey-course", "move": "sirdey", "t0": 810.0, "propagate": False}),
    ],
)  # fmt: skip
def test_params_record_what_runs(given, want):
    """A result's params (solvers.sudoku_params of the run plan at 9x9) name the part given as
    given and every other part as the default technique runs it at that order: the auto
    schedule's string, the focused-two move, deduction on."""
    s = resolve(SolveOptions(**given))
    params = solvers.sudoku_params(sudoku_plan(s, 3, "cpu", "cpu: asked"))
    ran = {key: getattr(params, key) for key in ("schedule", "move", "t0", "propagate")}
    default = {"schedule": "geometric:t0=0.5,t_final=0.48,ratio=0.99997959,stall=0",
               "move": "focused-two", "t0": 0.5, "propagate": True}  # fmt: skip
    assert ran == default | want


def test_a_technique_name_outside_the_sets_and_on_other_kinds_is_refused():
    """An unknown technique names the two; Shikaku and Hashi take none (nor propagate, on or
    off), and the exact method takes none."""
    with pytest.raises(InputError, match="^technique 'fast': expected one of default, published"):
        resolve(SolveOptions(technique="fast"))
    with pytest.raises(InputError, match="^--technique does not apply to --kind shikaku$"):
        resolve(SolveOptions(kind="shikaku", technique="default"), CLI)
    with pytest.raises(InputError, match="^--propagate does not apply to --kind hashi$"):
        resolve(SolveOptions(kind="hashi", propagate=False), CLI)
    with pytest.raises(InputError, match="^technique does not apply to method 'exact'$"):
        resolve(SolveOptions(method="exact", technique="published"))
    assert resolve(SolveOptions(kind="shikaku")).move is None


def test_a_start_temperature_the_default_schedule_cannot_take_is_one_clear_line():
    """t0 at or below the auto schedule's t_final at 9x9 (0.48): refused naming t0, the
    schedule and the order; with the order not known yet it waits for the puzzles (16x16's
    auto schedule takes 0.3), and the published technique's schedule takes it."""
    with pytest.raises(InputError, match=r"^t0 = 0\.3 with schedule 'auto' at 9x9: t_final"):
        resolve(SolveOptions(t0=0.3, order=3))
    assert resolve(SolveOptions(t0=0.3)).t0 == 0.3
    assert resolve(SolveOptions(t0=0.3, order=4)).t0 == 0.3
    assert resolve(SolveOptions(t0=0.3, order=3, technique="published")).t0 == 0.3
    with pytest.raises(InputError, match=r"^t0 = 0\.3 with schedule 'auto' at 9x9: t_final"):
        api.solve(NINE, t0=0.3)
    with pytest.raises(InputError, match="no_such_key"):  # the schedule's own fault first
        resolve(SolveOptions(t0=0.3, schedule="auto:no_such_key=1"))
    # a schedule that runs only from the t0 given (its own t0, 2, is below t_final = 3)
    assert resolve(SolveOptions(t0=5.0, schedule="geometric:t_final=3", order=3)).t0 == 5.0


@pytest.mark.parametrize(
    "schedule, fault",
    [("auto:k", "^schedule 'auto:k': 'k' is not one of t0, "),
     ("auto:t0=-1", r"^schedule 'auto:t0=-1': t0 = -1: must be"),
     ("sirdey-paper:k", "^schedule 'sirdey-paper:k': 'k' is not one of")],
)  # fmt: skip
def test_a_fault_in_a_preset_schedule_names_it_as_given(schedule, fault):
    """A bad key after a preset named the preset's expanded string ('geometric:t0=0.5,...,k')
    in place of what was given."""
    with pytest.raises(InputError, match=fault):
        resolve(SolveOptions(schedule=schedule, order=3))


NINE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
