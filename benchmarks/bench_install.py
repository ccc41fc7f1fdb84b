"""What an install costs: the disk each extra adds, and the test suite's wall time.

    python -m benchmarks.bench_install [--suite] [--name install]

Sizes: the distributions each extra of pyproject.toml pulls in (its requirements and theirs,
extras of extras followed) beyond the base install and the `dev` extra, each summed over the
files its RECORD lists, as installed in the running environment (an extra not installed there
counts 0 and is marked so). `--suite` also runs the README's test command
(`python -m pytest -q -n 2 --dist worksteal`) and records its wall seconds, its last line
(passed, skipped) and the load average before and after: on a shared machine the time depends on
what else runs. Writes benchmarks/results/install/NAME.json and .md.

Glossary:
    dist      an installed distribution (importlib.metadata)
    closure   the dists a list of requirements pulls in, dependencies of dependencies included
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from importlib import metadata

from packaging.requirements import Requirement

from benchmarks.machine import machine
from benchmarks.paths import ROOT, results

EXTRAS = ("dev", "cuda", "ptx", "dask", "bench")
SUITE = [sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "worksteal"]


def norm(name: str) -> str:
    """A distribution name as PyPI compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def installed() -> dict:
    """Name -> dist of the running environment."""
    return {norm(d.metadata["Name"]): d for d in metadata.distributions()}


def dist_bytes(dist) -> int:
    """Bytes on disk of the files a dist's RECORD lists."""
    total = 0
    for name in dist.files or []:
        try:
            total += os.path.getsize(dist.locate_file(name))
        except OSError:
            pass
    return total


def closure(requirements: list[str], extra: str, dists: dict) -> set[str]:
    """The installed dists these requirements of the package pull in, the package's own
    requirements taken for `extra` ("" for the base), a dependency's with the extras its parent
    names."""
    seen: set[str] = set()
    todo = [(text, True) for text in requirements]
    while todo:
        text, top = todo.pop()
        req = Requirement(text)
        if top and req.marker is not None and not req.marker.evaluate({"extra": extra}):
            continue
        name = norm(req.name)
        if name in seen or name not in dists:
            continue
        seen.add(name)
        for sub in dists[name].requires or []:
            marker = Requirement(sub).marker
            if marker is None or any(marker.evaluate({"extra": e}) for e in req.extras or {""}):
                todo.append((sub, False))
    return seen


def extra_sizes() -> dict:
    """MB of the base install, and of each extra beyond the base and dev, with its largest
    dists and whether every requirement of it is installed here."""
    dists = installed()
    requirements = dists["gpu-anneal"].requires or []
    base = closure(requirements, "", dists)
    held = base | closure(requirements, "dev", dists)
    rows = {"base": row(base, dists, True)}
    for extra in EXTRAS:
        wanted = [r for r in requirements if Requirement(r).marker is not None
                  and Requirement(r).marker.evaluate({"extra": extra})]  # fmt: skip
        pulled = closure(wanted, extra, dists) - (base if extra == "dev" else held)
        every = all(norm(Requirement(r).name) in dists for r in wanted)
        rows[extra] = row(pulled, dists, every)
    return rows


def row(names: set[str], dists: dict, every: bool) -> dict:
    """MB and count of these dists, the largest four, and whether all were installed."""
    sizes = {n: dist_bytes(dists[n]) / 1e6 for n in names}
    largest = dict(sorted(sizes.items(), key=lambda kv: -kv[1])[:4])
    return {"mb": sum(sizes.values()), "dists": len(names), "installed": every,
            "largest": largest}  # fmt: skip


def run_suite() -> dict:
    """The README's test command in the repository root: wall seconds, its last line, the
    failed tests' lines, the load average before and after; where it fails, its whole output
    is also written to a file outside the repository (printed on stderr), as the failures'
    tracebacks are not kept in the results."""
    before = os.getloadavg()[0]
    start = time.perf_counter()
    proc = subprocess.run(SUITE, cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    lines = proc.stdout.strip().splitlines()
    failed = [line for line in lines if line.startswith(("FAILED ", "ERROR "))]
    if proc.returncode != 0:
        with tempfile.NamedTemporaryFile(
            "w", prefix="bench_install_suite_", suffix=".log", delete=False
        ) as log:
            log.write(proc.stdout + proc.stderr)
        print(f"the suite failed: its output is in {log.name}", file=sys.stderr)
    return {"command": " ".join(["python", *SUITE[1:]]), "seconds": seconds,
            "returncode": proc.returncode, "last_line": lines[-1] if lines else "",
            "failed": failed, "load_average_before": before,
            "load_average_after": os.getloadavg()[0]}  # fmt: skip


def write(result: dict, name: str) -> None:
    """NAME.json and NAME.md under benchmarks/results/install."""
    out = results("install") / name
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n")
    m = result["machine"]
    lines = [
        "# What an install costs",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['date']}.",
        "",
        "| part | MB on disk | distributions | largest |",
        "| --- | ---: | ---: | --- |",
    ]
    for part, row in result["sizes"].items():
        largest = ", ".join(f"{n} {mb:.0f} MB" for n, mb in row.get("largest", {}).items())
        note = "" if row.get("installed", True) else " (not installed here)"
        lines.append(f"| {part}{note} | {row['mb']:.0f} | {row['dists']} | {largest} |")
    suite = result.get("suite")
    if suite:
        loads = f"{suite['load_average_before']:.1f} before and {suite['load_average_after']:.1f}"
        lines += [
            "",
            f"Test suite: `{suite['command']}` took {suite['seconds'] / 60:.1f} min (exit "
            f"{suite['returncode']}: {suite['last_line']}), load average {loads} after (a shared "
            "machine: other work ran beside it).",
        ]
    lines += [
        "",
        "Command: `python -m benchmarks.bench_install"
        + (" --suite" if suite else "")
        + f" --name {name}`",
    ]
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")


def main() -> None:
    """Measure and write."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", action="store_true", help="also time the README's test command")
    ap.add_argument("--name", default="install")
    args = ap.parse_args()
    result = {"machine": machine(), "sizes": extra_sizes()}
    if args.suite:
        result["suite"] = run_suite()
    write(result, args.name)


if __name__ == "__main__":
    main()
