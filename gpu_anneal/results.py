"""One result type for every puzzle kind and method, its JSON form and its JSON Schema.

Glossary:
    kind      "sudoku", "shikaku" or "hashi"
    method    "anneal" (every kind), "exact" (Sudoku's bitmask search), "ilp" (Shikaku, Hashi)
    state     what a solver holds: a full Sudoku grid, one rectangle per Shikaku clue, a set of
              Hashiwokakero bridges; `best` is the lowest-cost state seen
    cost      rules a state breaks, 0 when it keeps them all (Sudoku: pairs of peers holding one
              digit; Shikaku: sum over cells of coverage**2 minus the cell count; Hashi: crossing
              bridge pairs + sum over islands of |value - bridges| + (groups - 1))

A `Result` serialises (`to_dict`, `to_json`) to the same keys for every kind and method: a key
that does not apply is null, never absent. `json_schema()` derives the JSON Schema from the
dataclasses below (committed as docs/result.schema.json); each field's `doc` is its description.
"""

from __future__ import annotations

import hashlib
import json
import types
import typing
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from typing import Any, Literal

import numpy as np

Kind = Literal["sudoku", "shikaku", "hashi"]
Method = Literal["anneal", "exact", "ilp"]
Backend = Literal["cpu", "cuda"]
Status = Literal["solved", "unsolved", "no_solution", "interrupted", "error"]

SCHEMA_ID = "https://gpu-anneal.invalid/result.schema.json"


def _doc(text: str, default: Any = MISSING, factory: Any = MISSING):
    """A dataclass field with a description (used by the JSON Schema)."""
    if factory is not MISSING:
        return field(default_factory=factory, metadata={"doc": text})
    return field(default=default, metadata={"doc": text})


@dataclass
class Timing:
    """Where a result's seconds went (as dimod's SampleSet info['timing'])."""

    compile: float = _doc(
        "Seconds compiling (or loading from numba's disk cache) the code this puzzle ran, "
        "counted once per process on the first puzzle that needed it, else 0",
        0.0,
    )
    search: float = _doc(
        "Seconds annealing (wall time from the puzzle's start to its end, all chains) or "
        "searching (exact search, integer program)",
        0.0,
    )
    verify: float = _doc("Seconds in the independent verifier", 0.0)

    @property
    def total(self) -> float:
        """compile + search + verify."""
        return self.compile + self.search + self.verify


@dataclass
class Counts:
    """Work done; null where a count does not apply to the method."""

    trials: int | None = _doc(
        "Annealing trials started over all chains of the puzzle (a failed trial restarts its "
        "chain from a fresh random state)",
        None,
    )
    proposals: int | None = _doc("Moves proposed over all chains (Sudoku annealing)", None)
    accepted: int | None = _doc("Moves accepted over all chains (Sudoku annealing)", None)
    nodes: int | None = _doc("Branch nodes of the search (Sudoku exact)", None)
    solving_chain: int | None = _doc(
        "RNG stream of the chain whose grid is reported (Sudoku annealing, solved): chain i of "
        "the q-th puzzle of a run draws stream q * chains + i, so --replay-chain re-runs it",
        None,
    )
    chain_trials: int | None = _doc("Trials of the reported chain (Sudoku annealing)", None)
    chain_proposals: int | None = _doc("Proposals of the reported chain (Sudoku annealing)", None)


@dataclass
class Params:
    """The settings that ran, defaults filled in; null where a setting does not apply."""

    seed: int | None = _doc("Seed of every chain's RNG stream (annealing)", None)
    chains: int | None = _doc("Chains that ran for this puzzle (annealing)", None)
    schedule: str | None = _doc(
        "Cooling schedule as NAME[:key=value,...] (annealing), t0 included when given", None
    )
    move: str | None = _doc(
        "Neighbourhood: sirdey | candidate | box-swap | focused (Sudoku), all | pruned | "
        "propagated (Shikaku's candidate rectangles); null for Hashiwokakero and the exact "
        "methods",
        None,
    )
    generator: str | None = _doc(
        "Random generator the chains drew from (Sudoku annealing): philox4x32-10, addressed "
        "by each chain's proposal index, for 16x16 to 36x36 with the sirdey, candidate, focused "
        "and focused-two moves (since the cooperative kernels); xoroshiro128+ for 4x4, 9x9 and "
        "the box swap. A run recorded without this field drew from xoroshiro128+ at every order: "
        "at 16x16 and above it cannot be replayed by a version that draws from Philox",
        None,
    )
    t0: float | None = _doc("Start temperature when one was given (annealing)", None)
    time_limit: float | None = _doc("Seconds allowed for the puzzle; null = none", None)
    max_trials: int | None = _doc("Trials allowed over all chains (annealing); null = none", None)
    propagate: bool | None = _doc(
        "Whether the exact solver's deduction rules fixed digits first (Sudoku annealing)", None
    )
    replay_chain: int | None = _doc("The chain re-run alone (--replay-chain), else null", None)
    rules: str | None = _doc(
        "Exact Sudoku's rules: fast (this project's solvers) | seed (seed 003's, as published)",
        None,
    )


@dataclass
class Result:
    """What happened to one puzzle, for every kind and method."""

    kind: Kind = _doc("Puzzle kind")
    method: Method = _doc("Solving method")
    backend: Backend = _doc("Where the search ran")
    index: int = _doc("0-based position of the puzzle in the input (over all files)")
    source: str = _doc("File the puzzle came from ('<stdin>', or '<api>' for in-memory input)")
    line: int | None = _doc("1-based line where the puzzle starts in its source", None)
    name: str = _doc("The puzzle's name (tsv name field or a comment), or ''", "")
    order: int | None = _doc("Sudoku order n (the grid is n^2 x n^2); null for other kinds", None)
    size: str = _doc("WIDTHxHEIGHT in cells", "")
    puzzle: str = _doc(
        "The givens as text: Sudoku in the input's format, Shikaku and Hashi as a game ID", ""
    )
    givens_hash: str = _doc(
        "First 16 hex digits of SHA-256 over kind, size and the givens: the puzzle's identity",
        "",
    )
    status: Status = _doc(
        "solved; unsolved (a limit was reached); no_solution (proved to have none); "
        "interrupted (Ctrl-C); error (see error)",
        "unsolved",
    )
    solved: bool = _doc("True only when the verifier accepted the solution", False)
    verified: bool = _doc("The independent verifier's verdict on the reported solution", False)
    solution: str | None = _doc(
        "The solution as text in the puzzle's own notation (Sudoku: the input's format; "
        "Shikaku and Hashi: a text grid); null unless solved",
        None,
    )
    solution_rows: list[list[int]] | None = _doc(
        "The solution as integer rows: Sudoku, N rows of N digits; Shikaku, one "
        "[row, col, height, width] per clue; Hashi, one [r1, c1, r2, c2, count] per bridge; "
        "null unless solved",
        None,
    )
    game_move: str | None = _doc(
        "The solution as Simon Tatham's game solve move (Shikaku, Hashi); null otherwise", None
    )
    best: str | None = _doc(
        "When not solved: the lowest-cost state seen, as text (NOT a solution); else null", None
    )
    cost: int | None = _doc(
        "Rules the best state breaks, 0 when it keeps them all; null when no state exists", None
    )
    unique: bool | None = _doc(
        "Whether the solution is the only one (Sudoku exact); null when not known", None
    )
    error: str | None = _doc("Why the puzzle is not solved, when known", None)
    counts: Counts = _doc("Work done", factory=Counts)
    params: Params = _doc("Settings that ran", factory=Params)
    timing: Timing = _doc("Seconds by phase", factory=Timing)
    state: Any = field(default=None, repr=False, compare=False, metadata={"json": False})

    def to_dict(self) -> dict:
        """Plain dict with every schema key (nested objects for counts, params, timing)."""
        return _plain(self)

    def to_json(self) -> str:
        """One JSON line; NaN and infinities are refused, never written."""
        return dumps(self.to_dict())


def dumps(obj: Any, **kwargs) -> str:
    """json.dumps that refuses NaN and infinities (allow_nan=False): output stays valid JSON."""
    return json.dumps(obj, allow_nan=False, **kwargs)


def _plain(obj: Any) -> Any:
    if is_dataclass(obj):
        keep = [f.name for f in fields(obj) if f.metadata.get("json", True)]
        return {name: _plain(getattr(obj, name)) for name in keep}
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, (list, tuple)):
        return [_plain(x) for x in obj]
    if isinstance(obj, float):
        return round(obj, 6)
    return obj


def givens_hash(kind: str, size: str, givens: str | bytes) -> str:
    """The identity of a puzzle: SHA-256 over kind, size and its givens, 16 hex digits."""
    data = givens.encode() if isinstance(givens, str) else bytes(givens)
    return hashlib.sha256(f"{kind}\n{size}\n".encode() + data).hexdigest()[:16]


def json_schema() -> dict:
    """The JSON Schema (draft 2020-12) of `Result.to_dict()`, derived from the dataclasses."""
    schema = _object_schema(Result)
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "gpu-anneal result",
        **schema,
    }
    return schema


def _object_schema(cls) -> dict:
    hints = typing.get_type_hints(cls)
    props = {}
    for f in fields(cls):
        if not f.metadata.get("json", True):
            continue
        prop = _type_schema(hints[f.name])
        prop["description"] = f.metadata["doc"]
        props[f.name] = prop
    return {
        "type": "object",
        "description": (cls.__doc__ or "").strip(),
        "properties": props,
        "required": list(props),
        "additionalProperties": False,
    }


def _type_schema(tp) -> dict:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        options = [_type_schema(a) for a in args if a is not type(None)]
        nullable = type(None) in args
        if len(options) == 1 and "type" in options[0] and not nullable:
            return options[0]
        if len(options) == 1 and set(options[0]) == {"type"}:
            return {"type": [options[0]["type"], "null"]}
        return {"anyOf": options + ([{"type": "null"}] if nullable else [])}
    if origin is Literal:
        return {"enum": list(args)}
    if origin is list:
        return {"type": "array", "items": _type_schema(args[0])}
    if is_dataclass(tp):
        return _object_schema(tp)
    simple = {str: "string", int: "integer", float: "number", bool: "boolean"}
    if tp in simple:
        return {"type": simple[tp]}
    raise TypeError(f"no JSON Schema for {tp!r}")
