"""Tests that need an optional extra carry its marker (EXTRA_MARKERS): where the extra is
missing, each is skipped with the reason and the pip command, so a `pip install -e ".[dev]"`
runs the rest. With GPU_ANNEAL_REQUIRE_EXTRAS=1 (.ci/run, which installs every extra) such a
test fails instead of being skipped: CI runs them all or says which extra is missing.

Glossary:
    marker   a pytest marker of pyproject's [tool.pytest.ini_options] ("ptx", "dask")
    extra    the pyproject.toml extra that brings what the marked tests need
"""

from __future__ import annotations

import functools
import importlib.util
import os
from importlib import metadata

import pytest

REQUIRE = "GPU_ANNEAL_REQUIRE_EXTRAS"


def _numba_cuda() -> str | None:
    """Why numba-cuda (NVIDIA's CUDA target, which compiles PTX with launch bounds) is
    missing, or None. Read from the installed distributions: nothing is imported."""
    try:
        metadata.version("numba-cuda")
    except metadata.PackageNotFoundError:
        return "numba-cuda is not installed (numba's own CUDA target cannot compile the kernels)"
    return None


def _dask() -> str | None:
    """Why dask.distributed is missing, or None."""
    for module in ("dask", "distributed"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed"
    return None


# marker -> (the extra that brings what its tests need, why it is missing or None)
EXTRA_MARKERS = {"ptx": ("ptx", _numba_cuda), "dask": ("dask", _dask)}


@functools.cache
def missing(marker: str) -> str | None:
    """Why the extra of a marker is missing here, or None (checked once a session)."""
    return EXTRA_MARKERS[marker][1]()


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip (or, with GPU_ANNEAL_REQUIRE_EXTRAS=1, fail) a marked test whose extra is
    missing."""
    for marker, (extra, _) in EXTRA_MARKERS.items():
        if item.get_closest_marker(marker) is None:
            continue
        why = missing(marker)
        if why is None:
            continue
        message = f'needs the {extra} extra: {why}; pip install -e ".[{extra}]"'
        if os.environ.get(REQUIRE) == "1":
            pytest.fail(f"{REQUIRE}=1 and this test {message}", pytrace=False)
        pytest.skip(message)
