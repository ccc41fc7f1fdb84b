"""One result type for every kind and method: real output validated against the committed JSON
Schema (docs/result.schema.json), which must equal the one generated from the type; and every
other command's --output jsonl (check, generate, minimize) validated against its record type's
committed schema (docs/NAME.schema.json, gpu_anneal.records)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from cli.main import app
from gpu_anneal import api, datasets
from gpu_anneal.records import RECORDS
from gpu_anneal.results import Result
from gpu_anneal.schemas import json_schema, record_schema

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


def validator(path: Path = SCHEMA):
    """A Draft 2020-12 validator of a committed schema (default: the result's)."""
    schema = json.loads(path.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def record_validator(name: str):
    """The validator of docs/NAME.schema.json (a record type of gpu_anneal.records)."""
    return validator(ROOT / "docs" / f"{name}.schema.json")


def test_committed_schema_and_table_are_generated_from_the_type():
    """docs/result.schema.json and docs/result.md equal what docs/generate.py writes."""
    generate = _generate_module()
    assert json.loads(SCHEMA.read_text()) == json_schema(), "run: python docs/generate.py"
    assert (ROOT / "docs" / "result.md").read_text() == generate.result_table()


def test_committed_record_schemas_and_tables_are_generated_from_the_types():
    """docs/NAME.schema.json of every record type and docs/records.md equal what
    docs/generate.py writes."""
    generate = _generate_module()
    for name in RECORDS:
        path = ROOT / "docs" / f"{name}.schema.json"
        assert json.loads(path.read_text()) == record_schema(name), "run: python docs/generate.py"
    assert (ROOT / "docs" / "records.md").read_text() == generate.records_table()


def test_committed_options_are_generated_from_the_command_line():
    """docs/options.md equals what docs/generate.py writes from cli.main.app, and every argument
    and option there says what it does (options were missing from the documents)."""
    generate = _generate_module()
    text = generate.options_table()
    assert (ROOT / "docs" / "options.md").read_text() == text, "run: python docs/generate.py"
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    for command in ("solve", "check", "generate", "minimize", "render", "kernels", "bench tts"):
        assert f"## gpu-anneal {command}\n" in text
    assert {"`--stats`", "`--card-rate`", "`--candidate`", "`--kind`"} <= {
        cell.strip() for row in rows for cell in row.split("|")[1:2]
    }
    assert all(not row.rstrip().endswith("|  |") for row in rows), "an option without help"


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
    assert again.exit_code == 0, again.output
    check = validator()
    lines = result.stdout.splitlines() + out.read_text().splitlines()
    assert len(lines) == 10
    for line in lines:
        assert check.is_valid(json.loads(line)), line


def _jsonl(*args: str) -> list[dict]:
    """The JSON lines a command writes to stdout (exit code 0 or 1)."""
    result = CliRunner().invoke(app, [*args, "--output", "jsonl"])
    assert result.exit_code in (0, 1), result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


def _every_line_valid(name: str, lines: list[dict]) -> None:
    check = record_validator(name)
    for line in lines:
        assert [e.message for e in check.iter_errors(line)] == [], (name, line)


def test_check_lines_validate(tmp_path):
    """check --output jsonl: a valid grid, a bad grid, a unique puzzle, a puzzle of two
    solutions, one of none, and tdoku claims (count, solution) all give valid records."""
    path, claims = tmp_path / "check.txt", tmp_path / "claims.txt"
    path.write_text(
        "1234341221434321\n"  # a valid full grid
        "1234341221434312\n"  # a full grid breaking the rules
        "1...........4...\n"  # two solutions or more
        "..12....3...4...\n"  # none
    )
    claims.write_text("123434..21434321:1:1234341221434321\n")  # tdoku: one, and its solution
    lines = _jsonl("check", str(path), str(claims))
    assert [line["index"] for line in lines] == [0, 1, 2, 3, 4]
    assert [line["source"] for line in lines] == [str(path)] * 4 + [str(claims)]
    assert [line["kind"] for line in lines] == ["grid", "grid", "puzzle", "puzzle", "puzzle"]
    assert [line["solutions"] for line in lines[2:]] == ["2+", 0, 1]
    assert lines[4]["expected"] == 1 and lines[4]["solution_ok"] is True and lines[4]["ok"]
    _every_line_valid("check", lines)


def test_generate_and_minimize_lines_validate(tmp_path):
    """generate (grids, --puzzles, --kind shikaku|hashi) and minimize write valid records, each
    with the run's seed (0 by default)."""
    grids = _jsonl("generate", "--order", "2", "--count", "3", "--method", "backtrack")
    assert len(grids) == 3 and {g["seed"] for g in grids} == {0}
    _every_line_valid("grid", grids)
    path = tmp_path / "grids.txt"
    path.write_text("".join(g["grid"] + "\n" for g in grids))
    minimal = _jsonl("minimize", str(path), "--seed", "5")
    assert len(minimal) == 3 and {m["seed"] for m in minimal} == {5}
    puzzles = _jsonl("generate", "--puzzles", "--order", "2", "--count", "2")
    assert len(puzzles) == 2 and {m["seed"] for m in puzzles} == {0}
    _every_line_valid("minimal_puzzle", minimal + puzzles)
    ids = []
    for kind in ("shikaku", "hashi"):
        ids += _jsonl("generate", "--kind", kind, "--size", "6x5", "--count", "2", "--seed", "4")
    assert [(r["kind"], r["index"], r["seed"]) for r in ids] == [
        ("shikaku", 0, 4), ("shikaku", 1, 4), ("hashi", 0, 4), ("hashi", 1, 4),
    ]  # fmt: skip
    _every_line_valid("game_id", ids)


def test_record_validators_refuse_a_missing_or_extra_key():
    """Each record schema can fail: a line without a key, or with one more, is refused."""
    samples = {
        "check": {
            "index": 0,
            "source": "f",
            "line": 1,
            "name": "",
            "kind": "grid",
            "ok": True,
            "valid": True,
            "solutions": None,
            "expected": None,
            "solution_ok": None,
            "error": None,
        },  # fmt: skip
        "grid": {"index": 0, "grid": "1234341221434321", "method": "backtrack", "seed": 0},
        "minimal_puzzle": {
            "index": 0,
            "seed": 0,
            "puzzle": "1...",
            "solution": "1234",
            "givens": 4,
            "sa_givens": 5,
            "checks": 9,
            "degradations": 1,
            "seconds": 0.1,
        },  # fmt: skip
        "game_id": {
            "index": 0,
            "kind": "hashi",
            "size": "3x1",
            "puzzle": "3x1m2:1a1",
            "seed": 0,
            "unique": False,
        },  # fmt: skip
    }
    assert set(samples) == set(RECORDS)
    for name, line in samples.items():
        check = record_validator(name)
        assert check.is_valid(line), name
        first = next(iter(line))
        assert not check.is_valid({k: v for k, v in line.items() if k != first}), name
        assert not check.is_valid(dict(line, extra=1)), name


def test_no_nan_or_infinity_is_written():
    """to_json refuses NaN and infinities (allow_nan=False) instead of writing invalid JSON."""
    from gpu_anneal.results import dumps

    with pytest.raises(ValueError):
        dumps({"x": float("inf")})
    assert dumps({"x": np.float64(1.5).item()}) == '{"x": 1.5}'
