"""`gpu-anneal info`: what this machine offers the engine."""

from __future__ import annotations

import os
import platform

from cli.output import json_line
from gpu_anneal.backends import cpu_threads, cuda_status


def machine() -> dict:
    """Versions, processor and cores, and CUDA's state: the facts every benchmark records."""
    import numba
    import numpy

    from gpu_anneal import __version__

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    usable, reason = cuda_status()
    return {
        "gpu_anneal": __version__,
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "numba": numba.__version__,
        "platform": platform.platform(),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "numba_threads": cpu_threads(),
        "cuda_usable": usable,
        "cuda": reason,
        "gpu_speed": "measured on an NVIDIA H100 by benchmarks/bench_gpu.py (results: "
        "benchmarks/results/gpu/); not on this machine's card, if it has one",
    }


def machine_now() -> dict:
    """machine() with the date (UTC) and the load average now: the record of a measurement."""
    import datetime

    facts = machine()
    facts["cpu_model"] = facts["cpu"]
    facts["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    try:
        facts["load_average"] = list(os.getloadavg())
    except OSError:
        facts["load_average"] = None
    facts["load_average_at_start"] = facts["load_average"][0] if facts["load_average"] else 0.0
    return facts


def device_plan() -> dict:
    """The pool's plan on the current CUDA device (gpu_anneal.plan.summary, a model), or why
    there is none."""
    usable, reason = cuda_status()
    if not usable:
        return {
            "plan": None,
            "plan_note": f"{reason}; `gpu-anneal solve FILE --dry-run --device 'H100 SXM'` "
            "prints the plan on a described card",
        }
    from gpu_anneal import plan, run_plan
    from gpu_anneal.resolve import resolve
    from gpu_anneal.settings import SolveOptions

    return {"plan": plan.summary(run_plan.card_plans(resolve(SolveOptions())))}  # a default solve's


def run_info() -> int:
    """Print machine() and the current device's plan as indented JSON."""
    print(json_line(machine() | device_plan(), indent=2))
    return 0
