"""The registry is the one place a kind lives: a toy kind registered inside a test is read,
solved, verified and written as a result line by the API and by the command line, its name in
the JSON Schema's kind enum, with no other file of the project changed (docs/structure.md counts
the files a new kind needs from this test).

The toy kind, "parity": a puzzle is a line of digits and blanks ('.'); a solution fills every
blank with a digit so that the digits' sum is even. Its own module would be kinds/parity.py (the
class below) over its cpu_reference package (the reader and solver below), registered by one
line of gpu_anneal/kinds/__init__.py (here: kinds.register inside the test).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from cpu_reference.errors import InputError
from gpu_anneal import api, kinds
from gpu_anneal.items import FileName, Item
from gpu_anneal.kinds.base import PuzzleKind
from gpu_anneal.results import Counts, Params, Result
from gpu_anneal.schemas import json_schema

jsonschema = pytest.importorskip("jsonschema")


# ---- the toy kind's own code: what its cpu_reference package would hold -------------------


class ParityPuzzle(str):
    """A parsed parity puzzle: its digits and blanks ('.')."""


def parse_parity(text: str, where: str) -> ParityPuzzle:
    """A puzzle of one line of digits and blanks; InputError naming `where` otherwise."""
    if not text or any(c not in "0123456789." for c in text):
        raise InputError(f"{where}: a parity puzzle is digits and '.', got {text!r}")
    return ParityPuzzle(text)


def solve_parity(p: str) -> str | None:
    """Blanks filled with 0, the first with 1 when the givens' sum is odd; None when no blank
    can make it even."""
    odd = sum(int(c) for c in p if c != ".") % 2
    if odd and "." not in p:
        return None
    filled = p.replace(".", "1", 1) if odd else p
    return filled.replace(".", "0")


def verify_parity(p: str, answer: str | None) -> str | None:
    """None when the answer keeps the givens, fills every blank and has an even sum."""
    if answer is None or len(answer) != len(p) or not answer.isdigit():
        return "not a filled line"
    if any(g != "." and g != a for g, a in zip(p, answer, strict=True)):
        return "a given changed"
    return None if sum(map(int, answer)) % 2 == 0 else "odd sum"


# ---- kinds/parity.py: the kind on the registry's interface ---------------------------------


class Parity(PuzzleKind):
    """The toy kind: every PuzzleKind member the API and the command line call."""

    name = "parity"
    title = "Parity"
    methods = ("anneal",)
    default_time_limit = None
    applies = {"anneal": frozenset({"seed", "time_limit"})}
    parsed_types = (ParityPuzzle,)
    cuda_methods = ()

    def read(self, source, fmt, order):
        """The puzzles of one source (a path, puzzle text or a parsed puzzle), one a line; a
        line that is none is a fault of that line alone."""
        if isinstance(source, ParityPuzzle):
            yield Item(self, 0, "<api>", None, "", source)
            return
        path = isinstance(source, (FileName, os.PathLike))
        name = os.fspath(source) if path else "<api>"
        text = Path(name).read_text(encoding="utf-8") if path else source
        for at, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    yield Item(self, 0, name, at, "", parse_parity(line.strip(), f"line {at}"))
                except InputError as exc:
                    yield exc

    def size(self, item):
        """LENGTHx1."""
        return f"{len(item.puzzle)}x1"

    def givens(self, item):
        """The line as given."""
        return str(item.puzzle)

    def givens_text(self, item):
        """The line as given."""
        return str(item.puzzle)

    def text(self, item, state):
        """A filled line is its own text."""
        return state

    def identity_size(self, order, givens):
        """(LENGTHx1, the line)."""
        return f"{len(givens)}x1", str(givens)

    def verify(self, item, state):
        """verify_parity's verdict."""
        return verify_parity(item.puzzle, state)

    def solution_rows(self, item, state):
        """One row of the digits."""
        return [[int(c) for c in state]]

    def cost(self, item, state):
        """1 when the sum is odd, 0 when even."""
        return None if state is None else sum(map(int, state)) % 2

    def state_from_rows(self, item, rows):
        """The digits of the one row."""
        return "".join(str(x) for x in rows[0])

    def check_schedule(self, text, order, t0):
        """No schedule to check (the toy takes none)."""
        return None

    def solve(self, items, settings):
        """One Result an item, in input order."""
        for item in items:
            answer = solve_parity(item.puzzle)
            why = self.verify(item, answer)
            yield Result(
                kind=self.name, method=settings.method, backend="cpu", index=item.index,
                source=item.source, line=item.line, size=item.size, puzzle=item.givens_text,
                givens_hash=item.givens_hash,
                status="solved" if why is None else "no_solution", solved=why is None,
                verified=why is None, solution=answer if why is None else None,
                solution_rows=self.solution_rows(item, answer) if why is None else None,
                cost=self.cost(item, answer), error=why, counts=Counts(trials=1),
                params=Params(seed=settings.seed), state=answer,
            )  # fmt: skip


@pytest.fixture
def parity():
    """The toy kind, registered for the test and unregistered after it."""
    kind = Parity()
    kinds.register(kind)
    try:
        yield kind
    finally:
        kinds.unregister(kind.name)
    assert "parity" not in kinds.names()


def test_a_registered_kind_is_solved_by_the_api(parity):
    """api.solve reads, solves and verifies the toy's puzzles; each result names the kind."""
    results = api.solve("1.3\n12\n4.\n", kind="parity")
    assert [r.kind for r in results] == ["parity"] * 3
    assert [r.status for r in results] == ["solved", "no_solution", "solved"]
    assert [r.solution for r in results] == ["103", None, "40"]
    assert results[0].size == "3x1" and results[0].line == 1
    json_schema_of_now = jsonschema.Draft202012Validator(json_schema())
    for r in results:
        json_schema_of_now.validate(json.loads(r.to_json()))


def test_a_registered_kind_is_solved_by_the_command_line(parity, tmp_path):
    """`gpu-anneal solve --kind parity FILE --output jsonl`: one result line a puzzle, its kind
    the toy's, valid under the schema generated from the registry now."""
    path = tmp_path / "lines.txt"
    path.write_text("7.\n22\n")
    result = CliRunner().invoke(
        app, ["solve", "--kind", "parity", str(path), "--output", "jsonl", "--quiet"]
    )
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["kind"], r["solution"], r["source"]) for r in lines] == [
        ("parity", "71", str(path)),
        ("parity", "22", str(path)),
    ]
    validator = jsonschema.Draft202012Validator(json_schema())
    for record in lines:
        validator.validate(record)


def test_the_schema_enum_and_parsed_types_follow_the_registry(parity):
    """The result schema's kind enum is the registry's names, the toy's included, and a parsed
    toy puzzle passed as another kind is refused by name."""
    assert json_schema()["properties"]["kind"]["enum"] == list(kinds.names())
    assert "parity" in kinds.names()
    with pytest.raises(InputError, match="ParityPuzzle of kind 'parity' passed with kind='sudoku'"):
        api.solve(ParityPuzzle("1."), kind="sudoku")


class ParityCount(Parity):
    """The toy kind again under a method no built-in kind has ("count")."""

    name = "parity-count"
    methods = ("count",)
    applies = {"count": frozenset({"seed"})}


def test_a_registered_kinds_method_is_in_the_result_schema():
    """The result schema's method enum is the registered kinds' methods: a kind's own method
    ("count") comes with its registration and goes with it; its results validate."""
    assert json_schema()["properties"]["method"]["enum"] == ["anneal", "exact", "impasse", "ilp"]
    kinds.register(ParityCount())
    try:
        enum = json_schema()["properties"]["method"]["enum"]
        assert enum == ["anneal", "exact", "impasse", "ilp", "count"]
        results = api.solve("1.\n", kind="parity-count", method="count")
        assert [(r.method, r.solution) for r in results] == [("count", "11")]
        jsonschema.Draft202012Validator(json_schema()).validate(json.loads(results[0].to_json()))
    finally:
        kinds.unregister("parity-count")
    assert "count" not in json_schema()["properties"]["method"]["enum"]


def test_an_unregistered_kind_is_refused():
    """Without the registration the kind is unknown to the API and to the command line."""
    with pytest.raises(InputError, match="kind 'parity'"):
        api.solve("1.\n", kind="parity")
    result = CliRunner().invoke(app, ["solve", "--kind", "parity", "-", "--output", "jsonl"])
    assert result.exit_code != 0
    assert "parity" in result.output


# ---- a toy move: one declaration (cpu_reference/sudoku/moves.py's Move), registered here -----

# 4x4 puzzles that deduction does not finish alone; --no-propagate: the chains solve them
TOY_PUZZLES = "..4..3...4....2.\n21...........34.\n"
TOY_RUN = {"backend": "cpu", "chains": 1, "seed": 4, "propagate": False, "time_limit": None}


@pytest.fixture
def toy_move():
    """A move declared as the candidate move proposes (the candidate's flags), under its own
    name, code and rates entry: registered for the test, unregistered after it."""
    from cpu_reference.sudoku import moves

    toy = moves.Move(
        "toy", 9, moves.Proposal(candidates=True), "a toy: the candidate move renamed",
        rates="candidate",
    )  # fmt: skip
    moves.register_move(toy)
    try:
        yield toy
    finally:
        moves.unregister_move(toy.name)
    assert "toy" not in moves.MOVE_NAMES


def chain_work(results) -> list[tuple]:
    """(status, solution, trials, proposals, accepted) of each result: the chains' own path."""
    return [
        (r.status, r.solution, r.counts.trials, r.counts.proposals, r.counts.accepted)
        for r in results
    ]


def test_a_registered_move_runs_through_the_api_as_its_declaration_says(toy_move):
    """api.solve takes move="toy": its results name the move, and its chains, proposing as its
    declaration says (the candidate move's proposal), take the candidate move's steps exactly;
    `auto`'s rate tables price it as its declared rates entry."""
    from gpu_anneal import backend_choice

    toy = api.solve(TOY_PUZZLES, kind="sudoku", move="toy", **TOY_RUN)
    candidate = api.solve(TOY_PUZZLES, kind="sudoku", move="candidate", **TOY_RUN)
    assert [r.params.move for r in toy] == ["toy", "toy"]
    assert all(r.solved and r.verified for r in toy)
    assert all(r.counts.proposals for r in toy)  # the chains ran (no deduction)
    assert chain_work(toy) == chain_work(candidate)
    sirdey = api.solve(TOY_PUZZLES, kind="sudoku", move="sirdey", **TOY_RUN)
    assert chain_work(sirdey) != chain_work(toy)  # another proposal, other steps
    for kernel in ("thread", "coop"):
        for order in (3, 5):
            assert backend_choice.reference_card_rate(order, "toy", kernel) == (
                backend_choice.reference_card_rate(order, "candidate", kernel)
            )
        assert backend_choice.reference_cpu_rate(order, "toy", 16) == (
            backend_choice.reference_cpu_rate(order, "candidate", 16)
        )
    assert backend_choice.stand_ins("toy") == ["toy", "candidate", "sirdey"]


def test_a_registered_move_runs_through_the_command_line(toy_move, tmp_path):
    """`gpu-anneal solve --move toy`: accepted when the command line is parsed, one result line
    a puzzle naming the move, the same chains as the API's."""
    path = tmp_path / "toy.txt"
    path.write_text(TOY_PUZZLES)
    args = ["solve", str(path), "--move", "toy", "--backend", "cpu", "--chains", "1"]
    args += ["--seed", "4", "--no-propagate", "--time-limit", "0", "--output", "jsonl", "--quiet"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    api_results = api.solve(TOY_PUZZLES, kind="sudoku", move="toy", **TOY_RUN)
    assert [r["params"]["move"] for r in lines] == ["toy", "toy"]
    assert [(r["status"], r["solution"], r["counts"]["proposals"]) for r in lines] == [
        (r.status, r.solution, r.counts.proposals) for r in api_results
    ]


def test_an_unregistered_move_is_refused():
    """Without its declaration the move is unknown to the API and to the command line."""
    with pytest.raises(InputError, match="move 'toy'"):
        api.solve(TOY_PUZZLES, kind="sudoku", move="toy", backend="cpu")
    result = CliRunner().invoke(app, ["solve", "-", "--move", "toy", "--output", "jsonl"])
    assert result.exit_code != 0
    assert "'toy' is not one of" in result.output
