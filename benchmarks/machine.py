"""The machine facts every benchmark result records, and the repository's git state."""

from __future__ import annotations

import importlib
import subprocess
from pathlib import Path

from cli.info import machine_now

ROOT = Path(__file__).resolve().parent.parent


def machine(*extra_packages: str) -> dict:
    """CPU model, cores, load, versions and date (plus CUDA's state) for a results file.

    `extra_packages` adds their versions (e.g. "scipy", "dask", "distributed").
    """
    facts = machine_now()
    for name in extra_packages:
        try:
            facts[name] = importlib.import_module(name).__version__
        except ImportError:
            facts[name] = None
    return facts


def git(*args: str) -> str:
    """Output of a git command in the repository ('' when git fails)."""
    proc = subprocess.run(["git", *args], capture_output=True, text=True, cwd=ROOT)
    return proc.stdout.rstrip("\n") if proc.returncode == 0 else ""
