"""`gpu-anneal solve` on grid puzzles of about a million cells, as a user runs it: the wall time
of the whole command (start, reading, search, checking the answer, writing it) against its
--time-limit, and the parts the result's timing names. Each commit's code is taken by `git
archive` into a folder of its own and run from there, so that commits compare in one run on one
machine; "." runs the working tree. One untimed run of each puzzle first compiles an archived
commit's code into a cache of its own.
Glossary: side, the grid's width and height (the Hashi lattice: side - 1, an odd number);
repeat, one timed command.
Results: benchmarks/results/scale/million_cells.{json,md} (--out).
    python -m benchmarks.bench_million_cells [--commits 002768b,HEAD] [--side 1000]
        [--time-limit 2] [--method anneal|ilp] [--repeats 3] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.machine import git, machine, made_by
from benchmarks.paths import ROOT, results
from benchmarks.tables import add_out_arguments, made_sentence, rerender, table_block
from benchmarks.tables import write_results as write_files

OUT = results("scale") / "million_cells"


def puzzles(side: int) -> dict[str, tuple[str, str]]:
    """{name: (kind, plain text grid)}: a Shikaku of ones (every clue its own cell), a Shikaku
    of dominoes (a 2 then a blank across each row; `side` even) and a Hashi lattice (a 2 on
    every other cell of every other row, side - 1 square)."""
    odd = side - 1
    return {
        "shikaku ones": ("shikaku", "".join(" ".join(["1"] * side) + "\n" for _ in range(side))),
        "shikaku dominoes": (
            "shikaku",
            "".join(" ".join(["2", "."] * (side // 2)) + "\n" for _ in range(side)),
        ),
        "hashi lattice": (
            "hashi",
            "\n".join(("2." * (odd // 2) + "2") if r % 2 == 0 else "." * odd for r in range(odd))
            + "\n",
        ),
    }


def tree_of(commit: str, into: Path) -> tuple[Path, str]:
    """(the folder to run from, the commit's short hash): the working tree for ".", else the
    commit's files unpacked under `into`."""
    if commit == ".":
        return ROOT, git("describe", "--always", "--dirty")
    short = git("rev-parse", "--short", commit)
    if not short:
        raise SystemExit(f"--commits: {commit!r} is not a commit of this repository")
    folder = into / short
    folder.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "archive", short], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder, short


def solve_words(path: str, kind: str, limit: float, method: str) -> list[str]:
    """The words of the timed `solve` command (the annealer's alone take --chains)."""
    chains = ["--chains", "2"] if method == "anneal" else []
    return ["solve", path, "--kind", kind, *chains, "--time-limit", f"{limit:g}",
            "--backend", "cpu", "--method", method, "--output", "jsonl"]  # fmt: skip


def one_command(
    tree: Path, path: Path, kind: str, limit: float, cache: Path | None, method: str = "anneal"
) -> dict:
    """One `python -m gpu_anneal solve --method METHOD` from `tree` (compiling into `cache`,
    None: the user's): wall seconds, status and result timing."""
    command = [sys.executable, "-m", "gpu_anneal", *solve_words(str(path), kind, limit, method)]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    if cache is not None:  # an archived commit compiles into a cache of its own
        env["GPU_ANNEAL_CACHE_DIR"] = str(cache)
    start = time.perf_counter()
    proc = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        raise SystemExit(f"{kind} from {tree}: no result (exit {proc.returncode}): "
                         f"{proc.stderr.strip()[-300:]}")  # fmt: skip
    record = json.loads(lines[0])
    return {"wall": wall, "status": record["status"], "timing": record.get("timing") or {}}


def measure(
    commits: list[str], side: int, limit: float, repeats: int, work: Path, method: str = "anneal"
) -> list[dict]:
    """A row per commit and puzzle: the median and range of `repeats` timed commands."""
    files = {}
    for name, (kind, text) in puzzles(side).items():
        files[name] = (kind, work / (name.replace(" ", "_") + ".txt"))
        files[name][1].write_text(text)
    rows = []
    for commit in commits:
        tree, label = tree_of(commit, work / "trees")
        cache = None if commit == "." else work / "cache" / label
        for name, (kind, path) in files.items():
            command = (tree, path, kind, limit, cache, method)
            one_command(*command)  # compiles this commit's code
            runs = [one_command(*command) for _ in range(repeats)]
            walls = [r["wall"] for r in runs]
            parts = {key: statistics.median(r["timing"].get(key, 0.0) for r in runs)
                     for key in ("search", "verify")}  # fmt: skip
            rows.append({
                "commit": label, "puzzle": name, "kind": kind,
                "statuses": [r["status"] for r in runs],
                "wall_median": statistics.median(walls), "wall_min": min(walls),
                "wall_max": max(walls), **{f"{k}_median": v for k, v in parts.items()},
            })  # fmt: skip
    return rows


def render(result: dict) -> str:
    """The markdown report of one run."""
    a = result["args"]
    solve = " ".join(solve_words("FILE", "K", a["time_limit"], a.get("method", "anneal")))
    lines = [
        "# Grid puzzles of a million cells, the whole command", "",
        made_sentence(result) + f" Grids {a['side']}x{a['side']} (the Hashi lattice "
        f"{a['side'] - 1}x{a['side'] - 1}); `gpu-anneal {solve}`, {a['repeats']} timed runs "
        "each after one that compiles.", "",
    ]  # fmt: skip
    header = ("commit", "puzzle", "status", "wall (median)", "wall (range)", "search", "verify")
    rows = []
    for r in result["rows"]:
        statuses = sorted(set(r["statuses"]))
        rows.append((r["commit"], r["puzzle"], "/".join(statuses), f"{r['wall_median']:.2f} s",
                     f"{r['wall_min']:.2f}-{r['wall_max']:.2f} s", f"{r['search_median']:.2f} s",
                     f"{r['verify_median']:.2f} s"))  # fmt: skip
    tail = ("wall: the command from start to exit; search: the result's timing.search (the "
            "puzzle's solve, its answer's checking and writing included); verify: the "
            "verifier's share.")  # fmt: skip
    lines += table_block("## Commands", header, rows, tail)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Parse the flags, time the commands of each commit, write the results."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--commits", default=".", help="commits to compare ('.': the working tree)")
    ap.add_argument("--side", type=int, default=1000, help="the grids' side (even)")
    ap.add_argument("--time-limit", type=float, default=2.0, help="each command's --time-limit")
    ap.add_argument(
        "--method", choices=("anneal", "ilp"), default="anneal", help="each command's --method"
    )
    ap.add_argument("--repeats", type=int, default=3, help="timed commands a puzzle and commit")
    add_out_arguments(ap, OUT)
    args = ap.parse_args(argv)
    if args.render:
        rerender(args.out, render)
        return 0
    side = args.side
    if side < 4 or side % 2 or args.repeats < 1 or args.time_limit <= 0:
        ap.error("--side must be even and 4 or more, --repeats 1 or more, --time-limit above 0")
    commits = [c.strip() for c in args.commits.split(",") if c.strip()]
    facts = machine()
    with tempfile.TemporaryDirectory(prefix="million_cells_") as work:
        rows = measure(commits, side, args.time_limit, args.repeats, Path(work), args.method)
    settings = {"side": side, "time_limit": args.time_limit, "repeats": args.repeats,
                "commits": commits, "method": args.method}  # fmt: skip
    result = {**made_by("bench_million_cells", argv), "machine": facts, "args": settings,
              "rows": rows}  # fmt: skip
    write_files(args.out, result, render)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
