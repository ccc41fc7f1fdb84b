"""The pool's plan on described cards (a model, not a measurement): chains per launch and the
host's share of a slice, with the host's seconds per finished puzzle measured on this CPU.

For each card with a described SM, memory and host link: the default plan for 100 9x9 puzzles
(chains to fill a wave), and 100 puzzles x 10,000 chains (10^6 chains). The kernel's rate is the
performance model's (gpu_anneal.kernels.perf_model, sm_90 build). Writes
benchmarks/results/host/plan.json and plan.md.

    python -m benchmarks.bench_plan
"""

from __future__ import annotations

import json

from benchmarks.machine import machine
from benchmarks.paths import results
from gpu_anneal import plan

CARDS = ("H100 SXM", "A100 SXM")
TARGET_CHAINS = 118_000  # issue target: >= 118k chains planned on an H100 for >= 100 puzzles
TARGET_SHARE = 0.05  # modeled host share of a slice at 10^6 chains


def main() -> None:
    """Run the benchmark: parse the command line, measure, write the results."""
    host = plan.measure_host_seconds(3)
    host_s = host["verify"] + host["refill"]
    rows = []
    for card in CARDS:
        default = plan.launch_plan(3, "sirdey", puzzles=100, device=card, host_seconds=host_s)
        million = plan.launch_plan(
            3, "sirdey", puzzles=100, batch=100, chains=10_000, device=card, host_seconds=host_s
        )
        rows.append({"card": card, "default": default, "million": million})
    result = {"machine": machine(), "host_seconds_parts": host, "rows": rows,
              "command": "python -m benchmarks.bench_plan"}  # fmt: skip
    out = results("host") / "plan.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, default=str) + "\n")
    out.with_suffix(".md").write_text(render(result))
    print(render(result))


def _share(p: dict) -> str:
    ref = p.get("reference")
    return "no rate model" if not ref else f"{100 * ref['host_share']:.2f} %"


def render(result: dict) -> str:
    """The markdown table of a results dict."""
    m, h = result["machine"], result["host_seconds_parts"]
    lines = [
        "# The pool's plan (model, not measured)",
        "",
        f"Host seconds a finished 9x9 puzzle, measured on {m['cpu_model']} ({m['date']}, load "
        f"average {m['load_average']}): verify {h['verify'] * 1e6:.0f} us, refill "
        f"{h['refill'] * 1e6:.0f} us. Kernel rates are the performance model's. Host share: the "
        "modeled host time of a slice (bytes over the host link and host work per finished "
        "puzzle) over the slice's kernel time, reference workload.",
        "",
        "| card | 100 puzzles, default: chains per launch | target | 10^6 chains: host share "
        "| target | rate (model) |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in result["rows"]:
        d, mi = row["default"], row["million"]
        rate = mi.get("rate")
        lines.append(
            f"| {row['card']} | {d['chains']:,} | >= {TARGET_CHAINS:,} (H100) | {_share(mi)} "
            f"| < {100 * TARGET_SHARE:.0f} % | "
            f"{'-' if not rate else f'{rate / 1e9:.1f} G/s'} |"
        )
    lines += ["", f"Command: `{result['command']}`", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
