"""Wall time of a first and a second `gpu-anneal solve` of one easy puzzle, in fresh processes.

The first call compiles the rules (numba) and writes them to an empty cache folder; the second
finds them there. Each call is a new process, as a user's would be.

    python -m benchmarks.bench_first_call [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks.machine import machine
from benchmarks.paths import results

EASY = "..237.9....75684.2.8..9....1...4.8..2.4...7.6..6.2...1....5..1.5.1932.....3.862.."
COMMAND = ["gpu-anneal", "solve", "-", "--output", "jsonl", "--seed", "1", "--quiet"]


def one_call(cache: Path) -> tuple[float, dict]:
    """Wall seconds of one solve in a new process, and its JSON record."""
    env = dict(os.environ, GPU_ANNEAL_CACHE_DIR=str(cache))
    exe = shutil.which("gpu-anneal") or "gpu-anneal"
    start = time.perf_counter()
    proc = subprocess.run(
        [exe, *COMMAND[1:]], input=EASY + "\n", capture_output=True, text=True, env=env
    )
    wall = time.perf_counter() - start
    record = json.loads(proc.stdout.strip().splitlines()[-1])
    return wall, record


def main() -> None:
    """Measure, print, and write benchmarks/results/host/first_call.json and .md."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default=str(results("host") / "first_call"))
    args = parser.parse_args()
    firsts, seconds, solved = [], [], []
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory() as tmp:
            for bucket in (firsts, seconds):
                wall, record = one_call(Path(tmp))
                bucket.append(wall)
                solved.append(bool(record.get("solved")))
    result = {
        "machine": machine(),
        "command": " ".join(COMMAND) + "  (one easy 9x9 puzzle on stdin)",
        "first_call_s": firsts,
        "second_call_s": seconds,
        "first_median_s": statistics.median(firsts),
        "second_median_s": statistics.median(seconds),
        "all_solved": all(solved),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out + ".json").write_text(json.dumps(result, indent=1, allow_nan=False) + "\n")
    m = result["machine"]
    lines = [
        "# First and second call of `gpu-anneal solve` (one easy 9x9 puzzle)",
        "",
        f"Machine: {m['cpu_model']}, {m['cores']} cores, {m['date']}, load {m['load_average']}. "
        f"Command: `python -m benchmarks.bench_first_call --repeats {args.repeats}`; "
        f"each call a new process, `{result['command']}`.",
        "",
        "| call | wall s (median) | runs |",
        "| --- | ---: | --- |",
        f"| first (empty compile cache) | {result['first_median_s']:.2f} | "
        + ", ".join(f"{x:.2f}" for x in firsts)
        + " |",
        f"| second (cache filled by the first) | {result['second_median_s']:.2f} | "
        + ", ".join(f"{x:.2f}" for x in seconds)
        + " |",
        "",
        f"Every call solved and verified its puzzle: {result['all_solved']}.",
    ]
    Path(args.out + ".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
