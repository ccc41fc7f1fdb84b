"""The engine and its API: chains by the thousand on a GPU or every CPU core.

gpu-anneal solves Sudoku, Shikaku and Hashiwokakero by simulated annealing, thousands of chains at
once, with exact solvers beside them.

    import gpu_anneal
    results = gpu_anneal.solve(gpu_anneal.datasets.path("seed002"), seed=1)
    print(results[0].solution, results[0].timing)

Public entry points (gpu_anneal.api): `solve`, `solve_stream`, `solve_on_dask`, `replay`, the
readers `read` and `parse_puzzles`, and the one result type `Result` (gpu_anneal.results), whose
`to_json()` is a JSON line of docs/result.schema.json. Errors: `InputError` (unusable input or
parameter; `OptionError` and `OutputError` are kinds of it), `BackendError` (the backend cannot
run here; `MissingExtra` names the optional extra to install). Importing this package never needs
CUDA and compiles nothing.
"""

from __future__ import annotations

import sys as _sys

if _sys.argv[:1] == ["-m"]:  # `python -m gpu_anneal`: the command line's start-up comes first
    import cli  # noqa: F401  (cli.startup: Ctrl-C and standard streams before the imports below)

__version__ = "0.2.0"

from cpu_reference.errors import InputError, OptionError, OutputError  # noqa: E402
from gpu_anneal import datasets  # noqa: E402
from gpu_anneal.api import (  # noqa: E402
    parse_puzzles,
    read,
    replay,
    solve,
    solve_on_dask,
    solve_stream,
)
from gpu_anneal.backends import BackendError, MissingExtra  # noqa: E402
from gpu_anneal.results import Counts, Params, Result, Timing  # noqa: E402
from gpu_anneal.schemas import json_schema  # noqa: E402

__all__ = [
    "BackendError",
    "Counts",
    "InputError",
    "MissingExtra",
    "OptionError",
    "OutputError",
    "Params",
    "Result",
    "Timing",
    "__version__",
    "datasets",
    "json_schema",
    "parse_puzzles",
    "read",
    "replay",
    "solve",
    "solve_on_dask",
    "solve_stream",
]
