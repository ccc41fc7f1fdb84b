"""The registry of puzzle kinds (gpu_anneal.kinds): one object per kind with one interface, the
command line's choices generated from it, and no kind chosen by string comparison elsewhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cli import options
from cpu_reference.errors import InputError
from gpu_anneal import api, datasets, kinds
from gpu_anneal.kinds.base import PARAMETERS, PuzzleKind

ROOT = Path(__file__).resolve().parent.parent
# A comparison of a kind against a kind name (the target of issue 30: at most 5 outside kinds/).
KIND_COMPARISON = re.compile(
    r"kind\s*(==|!=|\bin\b|\bnot in\b|\bis\b|\bis not\b)\s*[^\n]*"
    r"(\"(sudoku|shikaku|hashi)\"|\.kind\b|Kind\.)"
)
# Which exact method each kind solves with here, and its example set.
EXACT = {"sudoku": ("exact", "seed002"), "shikaku": ("ilp", "shikaku"), "hashi": ("ilp", "hashi")}


def test_the_registry_names_every_kind_once_in_order():
    """names() and KINDS agree; each object's name is its key."""
    assert kinds.names() == ("sudoku", "shikaku", "hashi")
    assert all(spec.name == name for name, spec in kinds.KINDS.items())


def test_an_unknown_kind_is_one_line_naming_the_valid_ones():
    """kind_of('kakuro') raises InputError listing sudoku, shikaku, hashi on one line."""
    with pytest.raises(InputError) as caught:
        kinds.kind_of("kakuro")
    text = str(caught.value)
    assert "\n" not in text and "'kakuro'" in text
    assert all(name in text for name in kinds.names())
    with pytest.raises(InputError):
        kinds.kind_of(None)
    assert kinds.kind_of(kinds.KINDS["hashi"]) is kinds.KINDS["hashi"]


@pytest.mark.parametrize("name", kinds.names())
def test_every_kind_offers_the_interface(name):
    """Methods with their parameters, moves with a default among them, a default limit, and every
    operation of PuzzleKind overridden where the base has none."""
    spec = kinds.kind_of(name)
    assert isinstance(spec, PuzzleKind)
    assert spec.methods[0] == ("auto" if name == "sudoku" else "anneal")
    assert set(spec.applies) == set(spec.methods)
    assert all(set(taken) <= set(PARAMETERS) for taken in spec.applies.values())
    assert (spec.default_move in spec.moves) if spec.moves else spec.default_move is None
    assert spec.default_time_limit and spec.default_time_limit > 0
    assert spec.takes("move", "anneal") == bool(spec.moves)
    for method in ("read", "size", "givens", "text", "verify", "solution_rows", "cost", "solve"):
        assert getattr(type(spec), method) is not getattr(PuzzleKind, method), method


def test_time_limits_come_from_the_kind():
    """None: the kind's default; 0: no limit; a method that takes none: None."""
    sudoku, hashi = kinds.kind_of("sudoku"), kinds.kind_of("hashi")
    assert sudoku.time_limit("anneal", None) == sudoku.default_time_limit
    assert sudoku.time_limit("anneal", 0) is None and sudoku.time_limit("anneal", 2) == 2.0
    assert sudoku.time_limit("exact", None) is None
    assert hashi.time_limit("ilp", None) == hashi.default_time_limit


@pytest.mark.parametrize("name", kinds.names())
def test_a_kind_reads_verifies_and_writes_its_answers(name):
    """The example set's first puzzle, solved exactly: the kind verifies the answer, its cost is 0,
    its rows read back to a state that verifies and writes the same text; a broken state fails."""
    method, example = EXACT[name]
    spec = kinds.kind_of(name)
    item = next(iter(api.parse_puzzles(datasets.path(example), kind=name)))
    assert item.spec is spec and item.kind == name
    (result,) = api.solve([item], kind=name, method=method)
    assert result.solved, result.error
    state = spec.state_from_rows(item, result.solution_rows)
    assert spec.verify(item, state) is None and spec.cost(item, state) == 0
    assert spec.text(item, state) == result.solution
    assert spec.solution_rows(item, state) == result.solution_rows
    with pytest.raises(ValueError):
        spec.state_from_rows(item, [[-1]])


@pytest.mark.parametrize("name", ["shikaku", "hashi"])
@pytest.mark.parametrize("method", ["anneal", "ilp"])
def test_a_grid_answer_is_verified_and_written_once(name, method, monkeypatch):
    """A solved Shikaku or Hashi answer goes through the kind's verifier, text and solve move
    once on its way to the Result (a million-cell answer takes seconds each), and the Result
    carries what they gave."""
    spec = kinds.kind_of(name)
    item = next(iter(api.parse_puzzles(datasets.path(name), kind=name)))
    calls = {"verify": 0, "solution_text": 0, "move_text": 0}

    def counted(function, key):
        def wrapper(p, *args):
            calls[key] += p is item.puzzle or spec.game_id(p) == spec.game_id(item.puzzle)
            return function(p, *args)

        return wrapper

    for key in ("verify", "solution_text"):
        monkeypatch.setattr(spec.model, key, counted(getattr(spec.model, key), key))
    monkeypatch.setattr(spec, "move_text", counted(spec.move_text, "move_text"))
    seeded = {"seed": 1} if method == "anneal" else {}
    (result,) = api.solve([item], kind=name, method=method, time_limit=60, **seeded)
    assert result.solved and result.verified, result.error
    assert calls == {"verify": 1, "solution_text": 1, "move_text": 1}
    state = spec.state_from_rows(item, result.solution_rows)
    assert spec.verify(item, state) is None and spec.text(item, state) == result.solution


def test_the_command_lines_choices_come_from_the_registry():
    """--kind, --method and --move list what the kinds declare, nothing else."""
    assert [k.value for k in options.Kind] == list(kinds.names())
    methods = {m for spec in kinds.KINDS.values() for m in (*spec.methods, *spec.method_aliases)}
    assert {m.value for m in options.Method} == methods
    moves = [m for spec in kinds.KINDS.values() for m in spec.moves]
    assert options.move_names() == list(dict.fromkeys(moves))
    assert set(options.MOVES_HELP) == {n for n, spec in kinds.KINDS.items() if spec.moves}
    assert [k.value for k in options.GridKind] == list(kinds.game_id_kinds())


def kind_comparisons() -> list[str]:
    """'path:line: text' of every comparison of a kind with a kind name outside gpu_anneal/kinds."""
    found = []
    for package in ("gpu_anneal", "cpu_reference", "cli"):
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT)
            if rel.parts[:2] == ("gpu_anneal", "kinds"):
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if KIND_COMPARISON.search(line):
                    found.append(f"{rel}:{number}: {line.strip()}")
    return found


def test_kinds_are_chosen_by_the_registry_not_by_name():
    """At most 5 comparisons of a kind with a kind name outside the kinds' own modules."""
    found = kind_comparisons()
    assert len(found) <= 5, "\n".join(found)


def test_the_comparison_count_can_fail():
    """The pattern sees the comparisons it is meant to count, and not a dtype's kind."""
    assert KIND_COMPARISON.search('    if item.kind == "sudoku":')
    assert KIND_COMPARISON.search('    module = shikaku if kind == "shikaku" else hashi')
    assert KIND_COMPARISON.search("    if self.kind not in (None, shipped.kind):")
    assert KIND_COMPARISON.search("    if kind is not Kind.sudoku:")
    assert not KIND_COMPARISON.search('    if a.dtype.kind not in "iu":')
