"""Ctrl-C on a long run, as a user presses it: exit 130 with every finished puzzle written once.

For each delay in --after: `gpu-anneal solve FILE --backend B --out r.jsonl -q` in a fresh
process on N random isomorphs of --file (fixed seed), SIGINT after that many seconds, then the
process's exit code, the records written (every line JSON, one index each, every solved record's
grid checked against its puzzle's givens) and a `--resume r.jsonl` run that completes the file.
A row says whether exit was 130, whether no record was written twice, and whether the resumed
file holds every puzzle solved exactly once. Writes card_interrupt.json into --out-dir.

    python -m benchmarks.card_interrupt --file DATA/forum_hardest_1106.txt --backend cuda \\
        --puzzles 60000 --after 8,16 --out-dir DIR
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.card_runs import sigint_default
from benchmarks.isomorphs import isomorphs, line
from benchmarks.machine import machine
from cpu_reference.sudoku.formats import read_puzzles
from cpu_reference.sudoku.verify import verify_solution

ROOT = Path(__file__).resolve().parents[1]
SEED = 0  # the isomorphs of card_vs_cores (the same puzzles)


def records(path: Path) -> list[dict]:
    """Every line of a results file, parsed (a torn last line is skipped and counted apart)."""
    out = []
    if not path.exists():
        return out
    for text in path.read_text().splitlines():
        try:
            out.append(json.loads(text))
        except json.JSONDecodeError:
            out.append({"torn": True})
    return out


def check(rows: list[dict], givens: np.ndarray) -> dict:
    """Counts of a results file's records against the puzzles: written, torn, solved, indices
    written more than once (an `interrupted` line then the resumed one's), indices solved more
    than once, `interrupted` lines, solved grids that break a given or a rule."""
    seen: dict[int, int] = {}
    solved_at: dict[int, int] = {}
    wrong = 0
    solved = 0
    for r in rows:
        if r.get("torn"):
            continue
        seen[r["index"]] = seen.get(r["index"], 0) + 1
        if r.get("solved"):
            solved += 1
            solved_at[r["index"]] = solved_at.get(r["index"], 0) + 1
            grid = np.array(r["solution_rows"], np.uint8).reshape(-1)
            wrong += verify_solution(grid, 3, givens[r["index"]]) is not None
    return {
        "records": len(rows),
        "torn": sum(1 for r in rows if r.get("torn")),
        "solved": solved,
        "twice": sum(1 for n in seen.values() if n > 1),
        "solved_twice": sum(1 for n in solved_at.values() if n > 1),
        "interrupted": sum(1 for r in rows if r.get("status") == "interrupted"),
        "wrong_grids": wrong,
        "indices": len(seen),
    }


def run_one(puzzles: Path, givens: np.ndarray, backend: str, after: float, work: Path) -> dict:
    """One interrupted run and its resume."""
    out = work / f"r_{after:g}.jsonl"
    cmd = [sys.executable, "-m", "gpu_anneal", "solve", str(puzzles), "--backend", backend]
    start = time.perf_counter()
    proc = subprocess.Popen([*cmd, "--out", str(out), "-q"], cwd=ROOT, stderr=subprocess.PIPE,
                            preexec_fn=sigint_default)  # fmt: skip
    time.sleep(after)
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    stopped = time.perf_counter() - start
    first = check(records(out), givens)
    start = time.perf_counter()
    resumed = subprocess.run(
        [*cmd, "--resume", str(out), "--out", str(out), "-q"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    final = check(records(out), givens)
    solved_once = final["indices"] == len(givens) and final["wrong_grids"] == 0
    return {
        "after_seconds": after,
        "exit_code": proc.returncode,
        "exit_130": proc.returncode == 130,
        "seconds_to_exit": round(stopped, 2),
        "stderr_tail": err.decode(errors="replace")[-400:],
        "interrupted_file": first,
        "resume_exit_code": resumed.returncode,
        "resume_seconds": round(time.perf_counter() - start, 2),
        "resumed_file": final,
        "every_puzzle_solved": solved_once and final["solved"] >= len(givens),
    }


def main() -> None:
    """Run the benchmark: parse the command line, measure, write the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, required=True, help="base 9x9 set")
    parser.add_argument("--puzzles", type=int, default=60000)
    parser.add_argument("--backend", default="cuda")
    parser.add_argument("--after", default="8,16", help="seconds before SIGINT, comma-separated")
    parser.add_argument("--out-dir", type=Path, required=True)
    args = parser.parse_args()
    base = np.stack([p.cells for p in read_puzzles(args.file) if p.cells.size == 81])
    puzzles, _ = isomorphs(base, args.puzzles, SEED)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        path = work / "puzzles.txt"
        path.write_text("".join(line(p) + "\n" for p in puzzles))
        for after in (float(x) for x in args.after.split(",")):
            row = run_one(path, puzzles, args.backend, after, work)
            rows.append(row)
            print(json.dumps({k: v for k, v in row.items() if k != "stderr_tail"}), flush=True)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    result = {
        "machine": machine(),
        "backend": args.backend,
        "puzzles": args.puzzles,
        "base": args.file.name,
        "rows": rows,
        "command": "python -m benchmarks.card_interrupt " + " ".join(sys.argv[1:]),
    }
    (args.out_dir / "card_interrupt.json").write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
