"""The machine facts every benchmark result records, and the repository's git state."""

from __future__ import annotations

import importlib
import shlex
import subprocess
import sys
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


def made_by(module: str, argv: list[str] | None) -> dict:
    """{"command": the benchmark's command line as run (argv: its arguments, None for
    sys.argv's), "commit": HEAD's short hash} for a results file."""
    args = sys.argv[1:] if argv is None else argv
    command = f"python -m benchmarks.{module}" + (f" {shlex.join(args)}" if args else "")
    return {"command": command, "commit": git("rev-parse", "--short", "HEAD")}


def git(*args: str) -> str:
    """Output of a git command in the repository ('' when git fails)."""
    proc = subprocess.run(["git", *args], capture_output=True, text=True, cwd=ROOT)
    return proc.stdout.rstrip("\n") if proc.returncode == 0 else ""
