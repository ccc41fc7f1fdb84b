"""The machine facts every benchmark result records."""

from __future__ import annotations

import datetime
import os


def machine() -> dict:
    """CPU model, cores, load, versions and date (plus CUDA's state) for a results file."""
    from cli.info import machine as info

    facts = info()
    facts["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    try:
        facts["load_average"] = os.getloadavg()
    except OSError:
        facts["load_average"] = None
    return facts
