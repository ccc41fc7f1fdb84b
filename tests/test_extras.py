"""tests/conftest.py: a test marked for an extra is skipped with the reason where that extra is
missing, and fails instead with GPU_ANNEAL_REQUIRE_EXTRAS=1, which CI sets as it installs every
extra."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import conftest
import pytest

ROOT = Path(__file__).resolve().parent.parent


class Marked:
    """A stand-in test item carrying some markers."""

    def __init__(self, *markers: str) -> None:
        self.markers = markers

    def get_closest_marker(self, name: str):
        return name if name in self.markers else None


def dask_missing(monkeypatch) -> None:
    """Here the dask extra is missing and every other one is installed."""

    def missing(marker: str) -> str | None:
        return "dask is not installed" if marker == "dask" else None

    monkeypatch.setattr(conftest, "missing", missing)


def test_a_missing_extra_skips_its_tests_with_the_reason(monkeypatch):
    """The dask extra missing: a dask test is skipped naming it and the pip command; a test of
    an extra that is there, and an unmarked one, run."""
    monkeypatch.delenv(conftest.REQUIRE, raising=False)
    dask_missing(monkeypatch)
    reason = r'^needs the dask extra: dask is not installed; pip install -e "\.\[dask\]"$'
    with pytest.raises(pytest.skip.Exception, match=reason):
        conftest.pytest_runtest_setup(Marked("dask"))
    conftest.pytest_runtest_setup(Marked("ptx"))
    conftest.pytest_runtest_setup(Marked())


def test_with_every_extra_required_a_missing_one_fails_the_test(monkeypatch):
    """GPU_ANNEAL_REQUIRE_EXTRAS=1: the same test fails, naming the variable and the extra."""
    monkeypatch.setenv(conftest.REQUIRE, "1")
    dask_missing(monkeypatch)
    with pytest.raises(pytest.fail.Exception, match="^GPU_ANNEAL_REQUIRE_EXTRAS=1 and this "
                       "test needs the dask extra: dask is not installed"):  # fmt: skip
        conftest.pytest_runtest_setup(Marked("dask"))
    conftest.pytest_runtest_setup(Marked("ptx"))


def test_ci_installs_every_extra_and_requires_the_marked_tests():
    """.ci/run installs the extras the markers stand for and runs the suite with them required;
    pyproject declares each marker."""
    ci = (ROOT / ".ci" / "run").read_text()
    installed = ci.split('pip install -q -e ".[', 1)[1].split("]", 1)[0].split(",")
    assert {extra for extra, _ in conftest.EXTRA_MARKERS.values()} <= set(installed)
    assert "GPU_ANNEAL_REQUIRE_EXTRAS=1 python -m pytest" in ci
    markers = (ROOT / "pyproject.toml").read_text().split("markers = [", 1)[1].split("]", 1)[0]
    declared = re.findall(r'^\s*"(\w+):', markers, re.M)
    assert set(conftest.EXTRA_MARKERS) <= set(declared)


def test_the_checks_see_this_environment():
    """Each check says missing exactly where its modules are: dask and distributed; numba's
    CUDA target being numba-cuda's (NVIDIA), not numba's own."""
    have_dask = all(importlib.util.find_spec(m) for m in ("dask", "distributed"))
    assert (conftest._dask() is None) == have_dask
    from numba import cuda

    assert (conftest._numba_cuda() is None) == (getattr(cuda, "implementation", None) == "NVIDIA")
