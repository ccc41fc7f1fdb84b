"""The figures of gpu_anneal.backend_choice fitted to the committed card-versus-cores runs, and the
model's seconds beside every run's wall.

`python -m benchmarks.fit_backend_choice` prints each constant derived here with the figures it
comes from, then two tables: the model of each run as it ran (its launch, its caches) against
its wall, and what `--backend auto` takes for each workload with today's plan. Nothing here
holds a measured number: everything is read from the results files named in SOURCES.

Glossary: row, one run of card_vs_cores.json (workload, backend, role); role, "first" (an empty
cache root), "second" (the same root again) or "measure" (after a warm-up process).
"""

from __future__ import annotations

import json
import math
import re
import statistics
from functools import cache

from benchmarks.paths import RESULTS
from gpu_anneal import backend_choice as bc

SOURCES = {
    "card_vs_cores": RESULTS / "gpu" / "card_vs_cores.json",
    "throughput_large": RESULTS / "gpu" / "gpu_throughput_large.json",
}
REFERENCE_CARD = dict(device="H100 SXM", cc=(9, 0), clock_mhz=1980)  # the card the runs had


@cache
def load(name: str) -> dict:
    """A results file of SOURCES, parsed."""
    return json.loads(SOURCES[name].read_text())


def rows() -> list[dict]:
    """card_vs_cores.json's runs that solved puzzles (not the throughput runs)."""
    return [r for r in load("card_vs_cores")["rows"] if r.get("puzzles")]


def find(workload: str, backend: str, role: str = "measure") -> dict | None:
    """The card_vs_cores run of a workload, backend and role (None when absent)."""
    for r in load("card_vs_cores")["rows"]:
        if (r["workload"], r["backend"], r["role"]) == (workload, backend, role):
            return r
    return None


def asked(row: dict, option: str) -> int | None:
    """The value of a command-line option of the run's command (--chains, --batch), or None."""
    found = re.search(rf"{option} (\d+)", row["command"])
    return int(found.group(1)) if found else None


def launch_as_run(row: dict) -> tuple[str, int, int]:
    """(kernel, slots, chains per puzzle) of a card run's pool (its last runner recorded)."""
    runner = row["kernel_busy"]["events"]["runners"][-1]
    return runner["kernel"], runner["puzzles"], runner["chains_per_puzzle"]


def search_less_than_modeled(row: dict) -> float:
    """Model search seconds a puzzle of the cores' run: L(m) on 16 cores (one slot, a chain a
    thread), the figure HOST_CPU is fitted beside."""
    s0, m = bc.restart_work(row["order"])
    rate = bc.reference_cpu_rate(row["order"], row["move"], bc.REFERENCE_THREADS)
    threads = bc.REFERENCE_THREADS
    return bc.solve_seconds(1, 1, threads, rate, threads, s0, m)


def derive() -> dict[str, float]:
    """Every figure of backend_choice fitted here, by its constant's name (rate tables by
    'CPU_RATES[order, move]' and 'CARD_MEASURED[coop][order, move]')."""
    out: dict[str, float] = {}
    large = load("throughput_large")
    for row in large["cpu"]:
        out[f"CPU_RATES[{row['order']}, {row['move']}]"] = row["proposals_per_second"]
    for row in large["cuda"]:
        if row["waves"] == 1:
            key = f"CARD_MEASURED[coop][{row['order']}, {row['move']}]"
            out[key] = row["proposals_per_second"]
    cpu_rate = find("throughput", "cpu")["throughput"]
    out[f"CPU_RATES[{cpu_rate['order']}, {cpu_rate['move']}]"] = cpu_rate["proposals_per_second"]

    cores = find("iso6000", "cpu")
    z90 = statistics.NormalDist().inv_cdf(0.9)
    spread = math.log(cores["p90_search_seconds"] / cores["median_search_seconds"]) / z90
    out["WORK_SPREAD"] = spread

    out["CPU_LOAD"] = find("start", "cpu", "second")["wall_seconds"]
    out["CPU_COMPILE"] = find("start", "cpu", "first")["wall_seconds"]
    out["CARD_LOAD"] = find("start", "cuda", "second")["wall_seconds"] - bc.CARD_RUN
    out["CARD_COMPILE"] = find("start", "cuda", "first")["wall_seconds"] - bc.CARD_RUN

    bound = find("iso60000", "cuda")
    busy = bound["kernel_busy"]
    idle = busy["solve_span_seconds"] - busy["events"]["kernel_seconds"]
    out["HOST_CARD"] = idle / bound["puzzles"]
    per_puzzle = (cores["wall_seconds"] - out["CPU_LOAD"]) / cores["puzzles"]
    out["HOST_CPU"] = per_puzzle - search_less_than_modeled(cores)
    return out


def sides(order: int, move: str, kernel: str, cached: bool) -> tuple[bc.Cores, bc.CardSide]:
    """The reference machine's sides for a run: its 16 cores and the H100 SXM running `kernel`
    (the one the run's pool ran), with the code cached or to compile."""
    rate = bc.reference_cpu_rate(order, move, bc.REFERENCE_THREADS)
    start = bc.CPU_LOAD if cached else bc.CPU_COMPILE
    cores = bc.Cores(rate, bc.REFERENCE_THREADS, start, True, cached)
    card = bc.card_side(order, move, cached=cached, **REFERENCE_CARD)
    if card.coop != (kernel == "coop"):
        raise ValueError(f"the plan runs the {'coop' if card.coop else 'thread'} kernel at "
                         f"order {order}, the run ran {kernel}")  # fmt: skip
    return cores, card


def modeled(row: dict) -> float:
    """The model's seconds for a run as it ran: its order, move, puzzles, the pool it had (the
    card's slots and chains as recorded; the cores' --batch and --chains) and its caches."""
    cached = row["role"] != "first"
    kernel = launch_as_run(row)[0] if row["backend"] == "cuda" else None
    cores, card = sides(row["order"], row["move"], kernel or _planned_kernel(row), cached)
    if row["backend"] == "cpu":
        w = bc.Workload(order=row["order"], move=row["move"], puzzles=row["puzzles"],
                        chains=asked(row, "--chains"), batch=asked(row, "--batch"))  # fmt: skip
        return bc.cpu_seconds(w, cores)
    _, slots, cpp = launch_as_run(row)
    w = bc.Workload(order=row["order"], move=row["move"], puzzles=row["puzzles"], chains=cpp,
                    batch=slots)  # fmt: skip
    return bc.card_seconds(w, card)


def _planned_kernel(row: dict) -> str:
    card = bc.card_side(row["order"], row["move"], cached=True, **REFERENCE_CARD)
    return "coop" if card.coop else "thread"


def auto_now(workload: str, role: str = "measure") -> bc.Choice | None:
    """What auto takes today for a workload both backends ran with the same options (its
    puzzles, --batch and --chains as asked, today's plan), or None where one did not run."""
    cpu, cuda = find(workload, "cpu", role), find(workload, "cuda", role)
    if cpu is None or cuda is None:
        return None
    cached = role != "first"
    cores, card = sides(cpu["order"], cpu["move"], _planned_kernel(cpu), cached)
    w = bc.Workload(order=cpu["order"], move=cpu["move"], puzzles=cpu["puzzles"],
                    chains=asked(cpu, "--chains"), batch=asked(cpu, "--batch"))  # fmt: skip
    return bc.choose(w, cores, card)


def main() -> None:
    """Print the derived constants beside the module's, and the two tables."""
    print("| constant | in backend_choice | derived here |\n| --- | ---: | ---: |")
    for name, value in derive().items():
        base, _, key = name.partition("[")
        current = getattr(bc, base)
        if key:
            parts = key.rstrip("]").split("][")
            for part in parts:
                order, _, move = part.partition(", ")
                current = current[(int(order), move)] if move else current[part]
        print(f"| {name} | {current:.6g} | {value:.6g} |")
    print("\n| workload | backend | run | puzzles | solved | modeled s | wall s | modeled / wall |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for row in rows():
        predicted = modeled(row)
        print(f"| {row['workload']} | {row['backend']} | {row['role']} | {row['puzzles']} | "
              f"{row['solved']} | {predicted:.3g} | {row['wall_seconds']:.3g} | "
              f"{predicted / row['wall_seconds']:.2f} |")  # fmt: skip
    print("\n| workload | run | auto takes | cores modeled / measured | card modeled / measured |")
    print("| --- | --- | --- | ---: | ---: |")
    for row in rows():
        if row["backend"] != "cpu":
            continue
        choice = auto_now(row["workload"], row["role"])
        if choice is None:
            continue
        cuda = find(row["workload"], "cuda", row["role"])
        print(f"| {row['workload']} | {row['role']} | {choice.backend} | "
              f"{choice.seconds['cpu']:.3g} / {row['wall_seconds']:.3g} | "
              f"{choice.seconds['cuda']:.3g} / {cuda['wall_seconds']:.3g} |")  # fmt: skip


if __name__ == "__main__":
    main()
