"""The machine facts every benchmark result records."""

from __future__ import annotations

import datetime
import importlib
import os


def machine(*extra_packages: str) -> dict:
    """CPU model, cores, load, versions and date (plus CUDA's state) for a results file.

    `extra_packages` adds their versions (e.g. "scipy", "dask", "distributed").
    """
    from cli.info import machine as info

    facts = info()
    facts["cpu_model"] = facts["cpu"]
    facts["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    try:
        facts["load_average"] = list(os.getloadavg())
    except OSError:
        facts["load_average"] = None
    facts["load_average_at_start"] = facts["load_average"][0] if facts["load_average"] else 0.0
    for name in extra_packages:
        try:
            facts[name] = importlib.import_module(name).__version__
        except ImportError:
            facts[name] = None
    return facts
