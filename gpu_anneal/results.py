"""One result type for every puzzle kind and method, its JSON form and its JSON Schema.

Glossary:
    kind      "sudoku", "shikaku" or "hashi"
    method    "anneal" (every kind), "exact" (Sudoku's bitmask search), "ilp" (Shikaku, Hashi):
              the registry's kinds' methods (gpu_anneal.kinds.methods)
    state     what a solver holds: a full Sudoku grid, one rectangle per Shikaku clue, a set of
              Hashiwokakero bridges; `best` is the lowest-cost state seen
    cost      rules a state breaks, 0 when it keeps them all (Sudoku: pairs of peers holding one
              digit; Shikaku: sum over cells of coverage**2 minus the cell count; Hashi: crossing
              bridge pairs + sum over islands of |value - bridges| + (groups - 1))

A `Result` serialises (`to_dict`, `to_json`) to the same keys for every kind and method: a key
that does not apply is null, never absent. `schema_of` derives a JSON Schema from the dataclasses
below (gpu_anneal.schemas.json_schema, committed as docs/result.schema.json); each field's `doc`
is its description, and a field `described(..., enum=NAME)` takes its choices from the `enums`
it is handed (NAME "kinds": the registry's names, "methods": its kinds' methods, which this
module below the registry cannot import). `described`, `plain` and `schema_of` serve the other
commands' records the same way (gpu_anneal.records).
"""

from __future__ import annotations

import hashlib
import json
import math
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from functools import lru_cache
from typing import Any, Literal

import numpy as np

Backend = Literal["cpu", "cuda"]
Status = Literal["solved", "unsolved", "no_solution", "interrupted", "error"]

SCHEMA_ID = "https://gpu-anneal.invalid/result.schema.json"
Enums = Mapping[str, Sequence[str]]  # an enum's name -> its choices (gpu_anneal.schemas.enums)


def described(text: str, default: Any = MISSING, factory: Any = MISSING, enum: str = ""):
    """A dataclass field with a description (used by the JSON Schema); `enum` names the choices
    the schema lists for it (taken from the enums schema_of is handed)."""
    metadata = {"doc": text, "enum": enum} if enum else {"doc": text}
    if factory is not MISSING:
        return field(default_factory=factory, metadata=metadata)
    return field(default=default, metadata=metadata)


_doc = described


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


NO_CHAIN = "; null when no chain ran (a Sudoku puzzle that deduction completed)"


@dataclass
class Counts:
    """Work done; null where a count does not apply to the method, and every chain count null
    for a Sudoku puzzle that deduction alone solved (no chain ran)."""

    trials: int | None = _doc(
        "Annealing trials started over all chains of the puzzle (a failed trial restarts its "
        "chain from a fresh random state)" + NO_CHAIN,
        None,
    )
    proposals: int | None = _doc(
        "Moves proposed over all chains (Sudoku annealing; impasse: moves made)" + NO_CHAIN, None
    )
    accepted: int | None = _doc(
        "Moves accepted over all chains (Sudoku annealing)" + NO_CHAIN, None
    )
    nodes: int | None = _doc("Branch nodes of the search (Sudoku exact)", None)
    solving_chain: int | None = _doc(
        "RNG stream of the chain whose grid is reported (Sudoku annealing and impasse, "
        "solved): chain i of the q-th puzzle of a run draws stream q * chains + i, so "
        "--replay-chain re-runs it" + NO_CHAIN,
        None,
    )
    chain_trials: int | None = _doc(
        "Trials of the reported chain (Sudoku annealing)" + NO_CHAIN, None
    )
    chain_proposals: int | None = _doc(
        "Proposals of the reported chain (Sudoku annealing and impasse)" + NO_CHAIN, None
    )
    spare_chains: int | None = _doc(
        "Chains the puzzle got beyond params.chains once the input was exhausted (Sudoku "
        "annealing on CUDA: slots that fell empty take more chains of the puzzles still "
        "running; 0 otherwise). The m-th such slot's chain i draws stream m * 2**40 + q * "
        "chains + i, which --replay-chain re-runs like any other" + NO_CHAIN,
        None,
    )


@dataclass(frozen=True)
class Params:
    """The settings that ran, defaults filled in; null where a setting does not apply.

    Frozen: the results of one run share one Params (dataclasses.replace makes a changed one)."""

    seed: int | None = _doc("Seed of every chain's RNG stream (annealing; 0 unless given)", None)
    chains: int | None = _doc("Chains that ran for this puzzle (annealing)", None)
    schedule: str | None = _doc(
        "Cooling schedule that ran, as NAME:key=value,... (annealing): Sudoku's preset "
        "expanded for the puzzle's order (auto -> its geometric string), a t0 given folded in; "
        "Shikaku and Hashi geometric:t0=..,t_final=..,n_plateaus=..,plateau=.. with the "
        "puzzle's defaults filled in",
        None,
    )
    move: str | None = _doc(
        "Neighbourhood that ran: sirdey | candidate | box-swap | focused | focused-two (Sudoku; "
        "the preset auto resolved for the order), all | pruned | propagated (Shikaku's candidate "
        "rectangles), heat-bath (Sudoku impasse); null for Hashiwokakero and the exact methods",
        None,
    )
    t0: float | None = _doc(
        "Start temperature that ran (annealing): the one given, else the schedule's; Sudoku "
        "impasse: the chains' held temperature",
        None,
    )
    time_limit: float | None = _doc(
        "Seconds allowed for the puzzle (60 unless given; Sudoku exact: none unless given); null "
        "= none",
        None,
    )
    generator: str | None = _doc(
        "Random generator the chains drew from (Sudoku annealing): philox4x32-10, addressed "
        "by each chain's proposal index, for 16x16 to 36x36 with the sirdey, candidate, focused "
        "and focused-two moves (since the cooperative kernels); xoroshiro128+ for 4x4, 9x9, "
        "the box swap and the impasse chains. A run recorded without this field drew from "
        "xoroshiro128+ at every order: at 16x16 and above it cannot be replayed by a version "
        "that draws from Philox",
        None,
    )
    max_trials: int | None = _doc("Trials allowed over all chains (annealing); null = none", None)
    propagate: bool | None = _doc(
        "Whether the exact solver's deduction rules fixed digits first (Sudoku annealing)", None
    )
    replay_chain: int | None = _doc("The chain re-run alone (--replay-chain), else null", None)
    lanes: int | None = _doc(
        "Threads a chain ran on (Sudoku impasse on a card): 1, a thread a chain, or 32, a warp "
        "a chain over the drawn cell's candidates; null elsewhere",
        None,
    )
    rules: str | None = _doc(
        "Exact Sudoku's rules: fast (this project's solvers) | seed (seed 003's, as published)",
        None,
    )
    backend_choice: str | None = _doc(
        "How the backend was chosen, and why: 'cpu: asked (--backend cpu)', 'cpu: --method exact "
        "runs on the CPU only', or under --backend auto the model's comparison, e.g. 'auto: cpu, "
        "3 puzzles of 9x9: cores 1.55 s vs card 2.3 s (model: ...)' (predicted seconds of each "
        "backend for the workload: gpu_anneal/backend_choice.py); null where no search ran",
        None,
    )


@dataclass
class Result:
    """What happened to one puzzle, for every kind and method."""

    kind: str = _doc("Puzzle kind", enum="kinds")
    method: str = _doc("Solving method", enum="methods")
    backend: Backend = _doc("Where the search ran")
    index: int = _doc(
        "0-based position of the puzzle among those read (over all files; a faulty puzzle, "
        "reported on its own, takes none: source and line name it)"
    )
    source: str = _doc(
        "File the puzzle came from ('<stdin>'; '<api>' for in-memory input, "
        "'<api> text K' for the puzzle text at position K of a list)"
    )
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
        """One JSON line; NaN and infinities are refused, never written.

        The same text as dumps(to_dict()), written without walking the dataclasses: the fields
        are read straight into a dict (floats rounded as plain() rounds them), and only when
        json refuses that dict (a NumPy value somewhere) is it built by plain(). (A record that
        holds itself raises RecursionError here, where dumps names the circular reference.)"""
        record = _top_record(self)
        record["counts"] = self.counts.__dict__.copy()
        try:  # params, shared by a run's results, encoded once (_params_json)
            head = _record_json(record)
            params = _params_json(self.params)
            timing = _floats_json(self.timing)
        except TypeError:
            return dumps(self.to_dict())
        return f'{head[:-1]}, "params": {params}, "timing": {timing}}}'


def _top_record(result: Result) -> dict:
    """The top-level fields of a result as a dict, in field order: a copy of its __dict__ less
    params, timing and state when that holds exactly the fields in their order (as __init__
    sets them), else read field by field (an attribute added, or deleted and set again)."""
    held = result.__dict__
    if tuple(held) != _DICT_KEYS:
        return {name: getattr(result, name) for name in _TOP_KEYS}
    record = held.copy()
    del record["params"], record["timing"], record["state"]
    return record


def _rounded(obj) -> dict:
    """A record of scalar fields as a dict, floats rounded to 6 places as plain() rounds them;
    TypeError for a NumPy float (plain() takes its value unrounded)."""
    out = {}
    for key, value in obj.__dict__.items():
        if isinstance(value, float):
            if type(value) is not float:
                raise TypeError("a NumPy float")
            value = round(value, 6)
        out[key] = value
    return out


def _floats_json(obj) -> str:
    """dumps(_rounded(obj)) of a record whose fields are floats, each written as json writes
    it (float.__repr__ of the value rounded) when all are finite Python floats; any other
    record goes through dumps (TypeError for a NumPy float, as _rounded)."""
    parts = []
    for key, value in obj.__dict__.items():
        if type(value) is not float or not math.isfinite(value):
            return dumps(_rounded(obj))
        parts.append(f"{_key_json(key)}: {float.__repr__(round(value, 6))}")
    return "{" + ", ".join(parts) + "}"


@lru_cache(maxsize=256)
def _key_json(key: str) -> str:
    """A dict key as json writes it."""
    return dumps(key)


_params_text: dict[int, tuple[Params, str]] = {}  # id -> (the Params, its JSON), 256 at most


def _params_json(params: Params) -> str:
    """dumps(_rounded(params)), once per Params object (the results of a run share one; a
    Params is frozen): looked up by identity, without hashing its fields."""
    held = _params_text.get(id(params))
    if held is not None and held[0] is params:
        return held[1]
    text = dumps(_rounded(params))
    if len(_params_text) >= 256:
        _params_text.clear()
    _params_text[id(params)] = (params, text)
    return text


_NESTED = ("counts", "params", "timing")
_TOP_KEYS = tuple(
    f.name for f in fields(Result) if f.metadata.get("json", True) and f.name not in _NESTED
)
# a Result's __dict__ as __init__ leaves it when its fields end with these (else never matched)
_DICT_KEYS = (*_TOP_KEYS, "counts", "params", "timing", "state")


def dumps(obj: Any, **kwargs) -> str:
    """json.dumps that refuses NaN and infinities (allow_nan=False): output stays valid JSON."""
    if kwargs:
        return json.dumps(obj, allow_nan=False, **kwargs)
    return _ENCODER.encode(obj)


_ENCODER = json.JSONEncoder(allow_nan=False)  # json.dumps's defaults but NaN: made once


def _c_encoder():
    """The C encoder that _ENCODER.encode makes for each call, made once and without its
    check for circular references (which keeps a dict of every container it is inside), or
    None where json has no C encoder."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return None
    e = _ENCODER
    try:
        return make(
            None, e.default, json.encoder.encode_basestring_ascii, None, e.key_separator,
            e.item_separator, e.sort_keys, e.skipkeys, e.allow_nan,
        )  # fmt: skip
    except TypeError:  # another signature
        return None


_C_ENCODER = _c_encoder()


def _record_json(record: dict) -> str:
    """dumps(record) for a result's record (no container in it holds itself)."""
    if _C_ENCODER is None:
        return dumps(record)
    return "".join(_C_ENCODER(record, 0))


def plain(obj: Any) -> Any:
    """A dataclass record as plain JSON values (nested dicts, NumPy scalars as Python ones,
    floats rounded to 6 places); fields marked json=False are left out."""
    return _plain(obj)


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
    if type(givens) is not bytes:
        givens = givens.encode() if isinstance(givens, str) else bytes(givens)
    return hashlib.sha256(f"{kind}\n{size}\n".encode() + givens).hexdigest()[:16]


def schema_of(cls, title: str, schema_id: str, enums: Enums | None = None) -> dict:
    """The JSON Schema (draft 2020-12) of a record dataclass: every field required, no other
    key allowed, each field's `described` text as its description, a field described with
    `enum=NAME` one of enums[NAME]."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": schema_id,
        "title": title,
        **_object_schema(cls, enums or {}),
    }


def _object_schema(cls, enums: Enums) -> dict:
    hints = typing.get_type_hints(cls)
    props = {}
    for f in fields(cls):
        if not f.metadata.get("json", True):
            continue
        enum = f.metadata.get("enum")
        if enum and enum not in enums:
            raise TypeError(f"{cls.__name__}.{f.name}: no choices given for enum {enum!r}")
        prop = {"enum": list(enums[enum])} if enum else _type_schema(hints[f.name], enums)
        prop["description"] = f.metadata["doc"]
        props[f.name] = prop
    return {
        "type": "object",
        "description": (cls.__doc__ or "").strip(),
        "properties": props,
        "required": list(props),
        "additionalProperties": False,
    }


def _type_schema(tp, enums: Enums) -> dict:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        options = [_type_schema(a, enums) for a in args if a is not type(None)]
        nullable = type(None) in args
        if len(options) == 1 and "type" in options[0] and not nullable:
            return options[0]
        if len(options) == 1 and set(options[0]) == {"type"}:
            return {"type": [options[0]["type"], "null"]}
        return {"anyOf": options + ([{"type": "null"}] if nullable else [])}
    if origin is Literal:
        return {"enum": list(args)}
    if origin is list:
        return {"type": "array", "items": _type_schema(args[0], enums)}
    if is_dataclass(tp):
        return _object_schema(tp, enums)
    simple = {str: "string", int: "integer", float: "number", bool: "boolean"}
    if tp in simple:
        return {"type": simple[tp]}
    raise TypeError(f"no JSON Schema for {tp!r}")
