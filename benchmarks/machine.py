"""The machine facts every benchmark result records."""

from __future__ import annotations

import importlib


def machine(*extra_packages: str) -> dict:
    """CPU model, cores, load, versions and date (plus CUDA's state) for a results file.

    `extra_packages` adds their versions (e.g. "scipy", "dask", "distributed").
    """
    from cli.info import machine_now

    facts = machine_now()
    for name in extra_packages:
        try:
            facts[name] = importlib.import_module(name).__version__
        except ImportError:
            facts[name] = None
    return facts
