"""The JSON Schemas of the result and record lines, their kind and method enums read from the
registry.

    enums()             the choices of every `described(..., enum=NAME)` field: "kinds" (the
                        registry's names), "methods" (its kinds' methods), "game_id_kinds"
                        (its kinds of Tatham game IDs)
    json_schema()       docs/result.schema.json: gpu_anneal.results.Result
    record_schema(name) docs/NAME.schema.json: the record type gpu_anneal.records.RECORDS names

gpu_anneal.results and gpu_anneal.records sit below the registry (the readers and solvers build
results), so the schemas are assembled here, above it: a kind registered is in the enums.
"""

from __future__ import annotations

from gpu_anneal import kinds
from gpu_anneal.records import RECORDS, SCHEMA_BASE
from gpu_anneal.results import SCHEMA_ID, Result, schema_of


def enums() -> dict[str, tuple[str, ...]]:
    """Each named enum of the result and record fields -> its choices, from the registry."""
    return {
        "kinds": kinds.names(),
        "methods": kinds.methods(),
        "game_id_kinds": kinds.game_id_kinds(),
    }


def json_schema() -> dict:
    """The JSON Schema (draft 2020-12) of `Result.to_dict()`, derived from the dataclasses."""
    return schema_of(Result, "gpu-anneal result", SCHEMA_ID, enums())


def record_schema(name: str) -> dict:
    """The JSON Schema of the record type RECORDS names `name`."""
    cls, title, _ = RECORDS[name]
    return schema_of(cls, title, f"{SCHEMA_BASE}{name}.schema.json", enums())
