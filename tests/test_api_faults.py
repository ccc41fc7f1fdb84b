"""The Python API on faulty calls: each is one InputError (or OptionError) naming what is wrong
in the API's own words, and a list of puzzle texts says which text a fault or a result is.

Before, each case below raised an internal exception (AttributeError, TypeError,
OverflowError), named a parameter the caller never set, named a command-line flag, or named
every text of a list `<api> line 1`.
"""

from __future__ import annotations

import decimal

import numpy as np
import pytest

import gpu_anneal as g
from cpu_reference.errors import InputError
from gpu_anneal.api import game_id, parse_grid_puzzle, parse_line

P4 = "1...........4..."  # a 4x4 puzzle
TWICE = "11.............."  # a 4x4 line with 1 given twice in row 1


def test_a_list_of_texts_names_each_text_by_its_position():
    """A fault and a result of a list's text name the text: `<api> text K`. The result's index
    counts the puzzles read (the faulty one takes none), so source names the list position; a
    lone text is still `<api>`."""
    faults = []
    results = g.solve([P4, P4, TWICE, P4], on_input_error=faults.append, method="exact")
    assert [str(f) for f in faults] == [
        "<api> text 2 line 1: digit 1 given twice in row 1 (r1c1, r1c2)"
    ]
    assert [(r.index, r.source) for r in results] == [
        (0, "<api> text 0"), (1, "<api> text 1"), (2, "<api> text 3")
    ]  # fmt: skip
    assert [r.source for r in g.solve(P4, method="exact")] == ["<api>"]
    shikaku = g.solve(["2x1:2a", "3x1:1a1"], kind="shikaku", on_input_error=faults.append)
    assert [r.source for r in shikaku] == ["<api> text 0"]
    assert str(faults[-1]).startswith("<api> text 1 line 1: ")


@pytest.mark.parametrize(
    ("args", "kwargs", "says"),
    [
        ((None,), {}, "text: a NoneType; expected the puzzle's line as a str"),
        ((5,), {}, "text: a int; expected the puzzle's line as a str"),
        ((P4.encode(),), {}, "expected the puzzle's line as a str (decode bytes first)"),
        ((P4,), {"order": "2"}, "order '2': expected an integer in 2..8"),
        ((P4,), {"order": 1.5}, "order 1.5: expected an integer in 2..8"),
        ((P4,), {"order": 2.0}, "order 2.0: expected an integer in 2..8"),
        ((P4,), {"order": True}, "order True: expected an integer in 2..8"),
    ],
)
def test_parse_line_refuses_what_is_no_line_or_order(args, kwargs, says):
    """parse_line(None) raised AttributeError, bytes a TypeError of re, order '2' a TypeError of
    pow, order 1.5 'expected 5.0625 (2.25x2.25)' cells."""
    with pytest.raises(InputError) as caught:
        parse_line(*args, **kwargs)
    assert str(caught.value).startswith(says) or says in str(caught.value)
    assert list(parse_line(P4, order=np.int64(2))[:4]) == [1, 0, 0, 0]


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("t0", 10**400, "t0 10000"),
        ("time_limit", 10**400, "time_limit 10000"),
        ("time_limit", decimal.Decimal(2), "time_limit Decimal('2'): must be a finite number"),
        ("method", ["anneal"], "method ['anneal']: expected one of auto, anneal, exact"),
        ("method", 5, "method 5: expected one of"),
    ],
)
def test_options_of_a_wrong_type_are_one_line(option, value, says):
    """t0=10**400 raised OverflowError, method=['anneal'] TypeError: unhashable type; a
    Decimal time limit read 'time_limit 2: must be a finite number in [0, 1e+09]'."""
    with pytest.raises(InputError) as caught:
        g.solve(P4, **{option: value})
    assert str(caught.value).startswith(says), str(caught.value)


def test_game_id_refuses_another_kind_and_another_kinds_puzzle():
    """game_id('sudoku', ...) raised AttributeError: 'Sudoku' object has no attribute
    'game_id'."""
    rect = parse_grid_puzzle("shikaku", "2x1:2a")
    bridges = parse_grid_puzzle("hashi", "3x1:1a1")
    with pytest.raises(InputError, match="kind 'sudoku': expected shikaku or hashi"):
        game_id("sudoku", rect)
    with pytest.raises(InputError, match="puzzle: a Hashi; expected a parsed shikaku puzzle"):
        game_id("shikaku", bridges)
    assert (game_id("shikaku", rect), game_id("hashi", bridges)) == ("2x1:2a", "3x1m2:1a1")


@pytest.mark.parametrize(
    ("kwargs", "what"),
    [({"method": "exact"}, "method 'exact'"), ({"method": "impasse"}, "method 'impasse'"),
     ({"kind": "shikaku"}, "kind 'shikaku'")],
)  # fmt: skip
def test_solve_on_dask_names_the_method_or_kind_it_does_not_run(kwargs, what):
    """solve_on_dask(method='exact') said 'workers does not apply to method exact': workers,
    which the caller never gave, is solve_on_dask's own default."""
    with pytest.raises(InputError) as caught:
        g.solve_on_dask(P4, **kwargs)
    assert str(caught.value) == (
        f"solve_on_dask runs Sudoku annealing only (method 'anneal'), not {what}; solve and "
        "solve_stream run it"
    )


def test_an_array_puzzle_is_checked_as_a_text_one_is():
    """An array with a digit given twice was solved to no_solution where the same text is a
    fault; an array value out of range did not say where; an empty array was 'of dtype
    float64'."""
    twice = np.zeros((9, 9), np.int64)
    twice[0, 0] = twice[0, 1] = 1
    faults = []
    results = g.solve(np.stack([twice.ravel(), np.zeros(81, np.int64)]), method="exact",
                      on_input_error=faults.append)  # fmt: skip
    assert [str(f) for f in faults] == ["<api> puzzle 0: digit 1 given twice in row 1 (r1c1, r1c2)"]
    assert [r.status for r in results] == ["solved"]
    big = np.zeros((49, 49), np.int64)
    big[0, 5] = 50
    with pytest.raises(InputError, match=r"<api> puzzle 0: cell r1c6 holds 50, outside 0\.\.49"):
        g.solve(big)
    with pytest.raises(InputError, match="puzzles: an empty array, no cell"):
        g.solve(np.array([]))
    for empty in (np.zeros((0, 81), np.int64), np.zeros((0, 9, 9), np.int64)):  # no grid: none
        assert g.solve(empty, method="exact") == []


def test_api_messages_name_the_apis_parameters_not_flags():
    """lanes with method auto said 'give --method impasse'; a malformed scheduler address said
    '--scheduler'."""
    with pytest.raises(InputError) as caught:
        g.solve(P4, lanes=32)
    assert "--" not in str(caught.value) and "impasse method" in str(caught.value)
    pytest.importorskip("distributed")
    with pytest.raises(InputError) as caught:
        g.solve(P4, scheduler="nonsense")
    assert str(caught.value).startswith("scheduler 'nonsense': not a scheduler address")


def test_a_t0_below_the_default_t_final_says_the_default_is_one_of_them():
    """Hashi with t0=1e-6 alone (in its range) read 't_final = 0.1 must be below t0 = 1e-06',
    naming a t_final the caller never gave; the message now says either may be a default."""
    with pytest.raises(InputError) as caught:
        g.solve("3x3m2:2a2c2a2", kind="hashi", t0=1e-6)
    assert str(caught.value) == (
        "t_final = 0.1 must be below t0 = 1e-06 (the temperature falls from t0 to t_final; "
        "where one of them is its default, give both)"
    )
