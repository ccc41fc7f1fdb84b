"""One result type for every kind and method: real output validated against the committed JSON
Schema (docs/result.schema.json), which must equal the one generated from the type."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from cli.main import app
from gpu_anneal import api, datasets
from gpu_anneal.results import Result, json_schema

jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "docs" / "result.schema.json"
# 4x4 puzzles: two solvable, one with no digit left for r1c1 (it sees 1, 2 in its row, 3, 4 below)
EASY_4X4 = ["1...........4...", "..3.4.........2."]
IMPOSSIBLE_4X4 = "..12" + "...." + "3..." + "4..."
NO_SHIKAKU_COVER = "4.4\n...\n1..\n"  # every clue has rectangles, but no exact cover exists


def _generate_module():
    spec = importlib.util.spec_from_file_location("docs_generate", ROOT / "docs" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def validator():
    """A Draft 2020-12 validator of the committed schema."""
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_committed_schema_and_table_are_generated_from_the_type():
    """docs/result.schema.json and docs/result.md equal what docs/generate.py writes."""
    generate = _generate_module()
    assert json.loads(SCHEMA.read_text()) == json_schema(), "run: python docs/generate.py"
    assert (ROOT / "docs" / "result.md").read_text() == generate.result_table()


@pytest.fixture(scope="module")
def records() -> dict[str, list[dict]]:
    """JSON lines of every kind and method, solved and unsolved, as the API writes them."""
    out: dict[str, list[Result]] = {}
    text = "\n".join(EASY_4X4 + [IMPOSSIBLE_4X4]) + "\n"
    out["sudoku anneal"] = api.solve(text, chains=1, seed=1, max_trials=8, time_limit=30)
    out["sudoku exact"] = api.solve(text, method="exact")
    shikaku = datasets.path("shikaku")
    hashi = datasets.path("hashi")
    out["shikaku anneal"] = api.solve([shikaku, NO_SHIKAKU_COVER], kind="shikaku", max_trials=64)
    out["shikaku ilp"] = api.solve([shikaku, NO_SHIKAKU_COVER], kind="shikaku", method="ilp")
    out["hashi anneal"] = api.solve(hashi, kind="hashi", seed=2, time_limit=20)
    out["hashi ilp"] = api.solve(hashi, kind="hashi", method="ilp")
    return {key: [json.loads(r.to_json()) for r in results] for key, results in out.items()}


def test_every_kind_and_method_validates_against_the_schema(records):
    """Every line of Sudoku anneal/exact, Shikaku anneal/ILP, Hashi anneal/ILP is valid."""
    check = validator()
    for key, lines in records.items():
        assert lines, key
        for line in lines:
            errors = [e.message for e in check.iter_errors(line)]
            assert errors == [], (key, errors)


def test_every_line_has_the_same_keys(records):
    """The same keys, nested ones included, for every kind and method."""

    def keys(obj, prefix=""):
        found = set()
        for k, v in obj.items():
            found.add(prefix + k)
            if isinstance(v, dict):
                found |= keys(v, f"{prefix}{k}.")
        return found

    shapes = {key: {frozenset(keys(line)) for line in lines} for key, lines in records.items()}
    assert len(set().union(*shapes.values())) == 1, shapes


def test_outcomes_are_what_the_puzzles_allow(records):
    """Solvable puzzles solved and verified; the impossible ones not, with no solution text."""
    sudoku = sorted(records["sudoku anneal"], key=lambda r: r["index"])
    assert [r["solved"] for r in sudoku] == [True, True, False]
    assert sudoku[2]["solution"] is None and sudoku[2]["best"] and sudoku[2]["cost"] > 0
    exact = sorted(records["sudoku exact"], key=lambda r: r["index"])
    assert [r["status"] for r in exact] == ["solved", "solved", "no_solution"]
    assert exact[0]["counts"]["nodes"] is not None and exact[0]["counts"]["trials"] is None
    for key in ("shikaku anneal", "shikaku ilp"):
        lines = records[key]
        assert [r["solved"] for r in lines] == [True] * 5 + [False], key
    assert records["shikaku ilp"][-1]["status"] == "no_solution"
    assert records["shikaku anneal"][-1]["cost"] > 0  # a best state that breaks the rules
    for key in ("hashi anneal", "hashi ilp"):
        assert all(r["solved"] and r["game_move"].startswith("S") for r in records[key]), key
    for lines in records.values():
        for r in lines:
            assert r["solved"] == r["verified"] == (r["status"] == "solved")
            assert (r["solution"] is None) == (not r["solved"])


def test_the_validator_refuses_a_missing_or_extra_key(records):
    """The schema can fail: a line without `timing` or with an unknown key is refused."""
    check = validator()
    line = dict(records["sudoku exact"][0])
    assert check.is_valid(line)
    assert not check.is_valid({k: v for k, v in line.items() if k != "timing"})
    assert not check.is_valid(dict(line, seconds=1.0))
    assert not check.is_valid(dict(line, cost=float("nan")))


def test_cli_jsonl_lines_validate(tmp_path):
    """The command line's --output jsonl and --out lines are the same schema's."""
    out = tmp_path / "out.jsonl"
    args = ["solve", "--example", "shikaku", "--method", "ilp", "--output", "jsonl"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    again = CliRunner().invoke(app, [*args, "--out", str(out)])
    assert again.exit_code == 0 and again.stdout == ""
    check = validator()
    lines = result.stdout.splitlines() + out.read_text().splitlines()
    assert len(lines) == 10
    for line in lines:
        assert check.is_valid(json.loads(line)), line


def test_no_nan_or_infinity_is_written():
    """to_json refuses NaN and infinities (allow_nan=False) instead of writing invalid JSON."""
    from gpu_anneal.results import dumps

    with pytest.raises(ValueError):
        dumps({"x": float("inf")})
    assert dumps({"x": np.float64(1.5).item()}) == '{"x": 1.5}'
