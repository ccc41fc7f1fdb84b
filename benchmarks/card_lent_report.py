"""One lent card's measurements, read back from the results files the session committed, as one
page beside the models and the issues' targets (`bash benchmarks/card_session.sh lent` and the
phases run after it write those files).

    python -m benchmarks.card_lent_report --tag h200_c83e05b            # write the page
    python -m benchmarks.card_lent_report --tag h200_c83e05b --check    # exit 1 if it differs

Reads, under benchmarks/results/ (TAG = CARD_COMMIT):
    gpu/card_session_TAG.json                     the session (pools, cores, occupancy)
    frontier/frontier_card_CARD_CELL_SOLVER_BACKEND.json   bench_frontier, card then cores
                                                  (SOLVER warp: the warp kernel on the card,
                                                  the default on the cores; a card row's
                                                  chain_moves, where recorded: the solving
                                                  chain's moves, shown with the rate they imply)
    throughput/impasse_rate_CARD_*.json           bench_impasse_rate, card and cores
    kernels/impasse_latency.json                  the warp kernel's modeled rate a chain
                                                  (two factors: bench_impasse_latency)
Writes gpu/card_lent_TAG.md. Nothing here holds a measured number.

Which pool ran: a session whose `solve --help` showed no --pool passed none, so each card run
took solve's default pool (gpu_anneal.sudoku_solver.persistent_chosen: the persistent pool on
a card where its kernel runs the order and move); the page names that pool and sets the run
beside that pool's model, whatever label the session gave it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys

from benchmarks import card_session as cs
from benchmarks.paths import results
from gpu_anneal.kernels.cards import CARDS

LATENCY = results("kernels") / "impasse_latency.json"  # the impasse kernels' latency model
# The issues' card targets (requirements, not measurements).
COOP_TARGET = 2_000_000  # issue 40: the 25x25 chain >= 2 M proposals/s on a lent card
POOL_TARGETS = {  # the card pools' issue (benchmarks/results/gpu/card_vs_cores.md's targets)
    "iso6000": 15.0,  # the card >= 15x the cores on 6,000 isomorphs, start-up included
    "iso60000": 10_000.0,  # >= 10,000 puzzles/s on 60,000 isomorphs
}
# how a frontier file's SOLVER reads on the page (else "--method SOLVER" on both backends)
SOLVER_TEXT = {
    "warp": "the card by --method impasse --lanes 32 (a warp a chain), the cores by the default",
}
CELL = re.compile(r"frontier_card_(?P<card>[a-z0-9]+)_(?P<cell>\d+x\d+_\d+)_(?P<solver>[a-z]+)"
                  r"_(?P<backend>cuda|cpu)\.json$")  # fmt: skip


def default_pool(move: str, order: int = 3) -> str:
    """The pool solve takes on a card when none is named: persistent where its kernel runs the
    order and move, else slices."""
    from cpu_reference.sudoku.rules import move_code
    from gpu_anneal.persistent_pool import serves

    return "persistent" if serves(order, move_code(move, order)) else "slices"


def pool_rows(session: dict) -> list[str]:
    """The pools' table: each card run under the pool that ran, beside that pool's model."""
    out = ["| workload | pool that ran | chains | wall s | puzzles/s | solved | model puzzles/s "
           "| measured / model |", "|---|---|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    for run in session.get("pools_runs", []):
        ran = run["pool"] if session.get("pool_option") else default_pool(run["move"])
        note = "" if session.get("pool_option") else " (solve's default)"
        model = cs.pool_prediction(run["puzzles"], ran, run.get("chains_per_puzzle"))
        rate = model["puzzles_per_second"] if model else None
        ratio = f"{run['puzzles_per_second'] / rate:.2f}" if rate else "-"
        out.append(f"| {run['workload']} ({run['puzzles']:,}) | {ran}{note} | "
                   f"{run.get('chains_per_puzzle')} | {run['wall_seconds']:.2f} | "
                   f"{run['puzzles_per_second']:,.0f} | {run['solved']:,} | "
                   f"{f'{rate:,.0f}' if rate else 'no model'} | {ratio} |")  # fmt: skip
    for run in session.get("cores_runs", []):
        out.append(f"| {run['workload']} ({run['puzzles']:,}) | {session['cores']} cores, "
                   f"{run.get('method', run.get('label', ''))} | - | {run['wall_seconds']:.2f} | "
                   f"{run['puzzles_per_second']:,.0f} | {run['solved']:,} | - | - |")  # fmt: skip
    return out


def pool_targets(session: dict) -> list[str]:
    """The card pools' targets against what ran."""
    card = {r["workload"]: r for r in session.get("pools_runs", [])}
    cores = [r for r in session.get("cores_runs", []) if "anneal" in str(r.get("label", ""))]
    out = []
    if "iso6000" in card and cores:
        ratio = cores[0]["wall_seconds"] / card["iso6000"]["wall_seconds"]
        out.append(target_row("6,000 isomorphs: the card against the cores' annealing",
                              f">= {POOL_TARGETS['iso6000']:g}x", f"{ratio:.1f}x",
                              ratio >= POOL_TARGETS["iso6000"]))  # fmt: skip
    if "iso60000" in card:
        rate = card["iso60000"]["puzzles_per_second"]
        out.append(target_row("60,000 isomorphs on the card, start-up included",
                              f">= {POOL_TARGETS['iso60000']:,.0f} puzzles/s", f"{rate:,.0f}/s",
                              rate >= POOL_TARGETS["iso60000"]))  # fmt: skip
    return out


def target_row(what: str, target: str, measured: str, met: bool) -> str:
    """One row of the targets table."""
    return f"| {what} | {target} | {measured} | {'met' if met else '**not met**'} |"


def occupancy_rows(session: dict) -> tuple[list[str], list[str]]:
    """The per-chain rates against chains, and the 25x25 chain's target."""
    out = ["| kernel | chains | regime | proposals/s a chain | model |", "|---|---:|---|---:|---:|"]
    targets = []
    for row in session.get("occupancy", []):
        model = row.get("predicted_chain_proposals_per_second")
        out.append(f"| {row['kernel']} | {row['chains']:,} ({row['point']}) | {row['regime']} | "
                   f"{row['chain_proposals_per_second']:,.0f} | "
                   f"{f'{model:,.0f}' if model else '-'} |")  # fmt: skip
        if row["kernel"].startswith("25x25") and row["point"] == "a full wave":
            rate = row["chain_proposals_per_second"]
            targets.append(target_row(f"25x25 chain, a full wave, {row['regime']} regime",
                                      ">= 2 M proposals/s", f"{rate / 1e6:.2f} M/s",
                                      rate >= COOP_TARGET))  # fmt: skip
    return out, targets


def frontier_pairs(card: str) -> dict[tuple[str, str], dict[str, dict]]:
    """{(cell, solver): {backend: bench_frontier's document}} of this card's frontier files."""
    pairs: dict[tuple[str, str], dict[str, dict]] = {}
    for path in sorted(results("frontier").glob(f"frontier_card_{card}_*.json")):
        m = CELL.match(path.name)
        if m:
            key = (m["cell"], m["solver"])
            pairs.setdefault(key, {})[m["backend"]] = json.loads(path.read_text())
    return pairs


def frontier_rows(card: str, cores: int) -> tuple[list[str], list[str]]:
    """Each frontier cell and solver, instance by instance, card then cores, and the target:
    the card faster in wall time than the cores over the instances both reached, solving no
    fewer."""
    out, targets = [], []
    for (cell, solver), docs in frontier_pairs(card).items():
        if set(docs) != {"cuda", "cpu"}:
            continue
        by = {b: {r["instance"]: r for r in d["rows"]} for b, d in docs.items()}
        limit = next(iter(by["cuda"].values()))["limit"] if by["cuda"] else None
        text = SOLVER_TEXT.get(solver, f"--method {solver}")
        names = sorted(set(by["cuda"]) | set(by["cpu"]))
        moves = any(r.get("chain_moves") for r in by["cuda"].values())
        out += ["", f"### {cell.replace('_', ' at ')} % filled, {text}, {limit:g} s a grid", "",
                "| instance | card | cores |" + (" card: the solving chain's moves |" if moves
                                                  else ""),
                "|---|---:|---:|" + ("---:|" if moves else "")]  # fmt: skip
        for name in names:
            cells = [_status(by[b].get(name)) for b in ("cuda", "cpu")]
            extra = f" {_chain_moves(by['cuda'].get(name))} |" if moves else ""
            out.append(f"| {name} | {cells[0]} | {cells[1]} |{extra}")
        both = [n for n in names if n in by["cuda"] and n in by["cpu"]]
        solved = {b: sum(by[b][n]["solved"] for n in both) for b in by}
        wall = {b: sum(by[b][n]["seconds"] for n in both) for b in by}
        unreached = [n for n in names if n not in by["cuda"] or n not in by["cpu"]]
        out.append("")
        out.append(f"Over the {len(both)} grids both reached: the card solved {solved['cuda']} "
                   f"in {wall['cuda']:.1f} s of solving, the cores {solved['cpu']} in "
                   f"{wall['cpu']:.1f} s (an unsolved grid counts its limit)"
                   + (f"; not reached by one backend within the phase's time: "
                      f"{', '.join(unreached)}." if unreached else "."))  # fmt: skip
        met = solved["cuda"] >= solved["cpu"] and wall["cuda"] < wall["cpu"]
        targets.append(target_row(f"{cell.replace('_', ' at ')} %, {text}: the card "
                                  f"against {cores} cores", "faster, solving no fewer",
                                  f"card {solved['cuda']}/{len(both)} in {wall['cuda']:.1f} s, "
                                  f"cores {solved['cpu']}/{len(both)} in {wall['cpu']:.1f} s",
                                  met))  # fmt: skip
    return out, targets


def _chain_moves(row: dict | None) -> str:
    """A solved card row's solving chain: its moves, and the moves a second they make over the
    search seconds (to set beside bench_impasse_horizon's moves before a first solve)."""
    if row is None or not row["solved"] or not row.get("chain_moves"):
        return "-"
    return (f"{row['chain_moves'] / 1e6:.3g} M ({row['chain_moves'] / row['seconds'] / 1e6:.3g} "
            "M/s)")  # fmt: skip


def _status(row: dict | None) -> str:
    if row is None:
        return "not reached"
    return f"{row['seconds']:.2f} s" if row["solved"] else row["status"]


def warps_an_sm(chains: int, state: str, sms: int) -> int:
    """Warps on the busiest SM when `chains` warp-kernel chains spread over `sms` SMs, a block
    holding impasse_warp.warps_a_block of them for the state's placement."""
    from gpu_anneal.kernels.impasse_warp import warps_a_block

    block = warps_a_block(state == "shared")
    blocks = -(-chains // block)
    return -(-blocks // sms) * min(block, chains)


def modeled_rate(doc: dict, chains: int) -> str:
    """The latency model's rate of one chain (M moves/s, its two factors) for a warp-kernel
    row of bench_impasse_rate, from kernels/impasse_latency.json; '-' where it has none."""
    if doc["backend"] != "cuda" or doc["args"].get("lanes", 1) == 1 or not LATENCY.exists():
        return "-"
    model = json.loads(LATENCY.read_text())
    state = doc["args"].get("warp_state", "global")
    cell = next((c for c in model["cells"] if (c["order"], c["fill"]) ==
                 (doc["args"]["order"], doc["args"]["fill"])), None)  # fmt: skip
    kernel = (cell or {}).get("kernels", {}).get(f"warp-{state}")
    if kernel is None:
        return "-"
    warps = warps_an_sm(chains, state, CARDS[model["card"]].sms)
    row = next((r for r in kernel["rows"] if r["warps"] == warps), None)
    if row is None:
        return "-"
    low, high = (row["chain_rate_bare"] / model[k] / 1e6 for k in ("coop_scale", "impasse_scale"))
    return f"{low:.2f}-{high:.2f}"


def impasse_rows(card: str) -> list[str]:
    """--method impasse's moves a second against chains, card and cores, beside the latency
    model's rate a chain for the warp kernel's rows (kernels/impasse_latency.json)."""
    out = [
        "| file | backend | chains | M moves/s | M moves/s a chain | model, M moves/s a chain |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for path in sorted(results("throughput").glob(f"impasse_rate_{card}_*.json")):
        doc = json.loads(path.read_text())
        backend = doc["backend"]
        if doc["args"].get("lanes", 1) > 1:  # runs before --warp-state held it in global memory
            state = doc["args"].get("warp_state", "global")
            backend += f", a warp a chain, state in {state} memory"
        for row in doc["rows"]:
            out.append(f"| {path.stem} | {backend} | {row['chains']:,} | "
                       f"{row['rate'] / 1e6:,.1f} | {row['rate_a_chain'] / 1e6:.3f} | "
                       f"{modeled_rate(doc, row['chains'])} |")  # fmt: skip
    return out


def render(tag: str) -> str:
    """The page of the lent session TAG (CARD_COMMIT)."""
    card = tag.split("_")[0]
    session = json.loads((results("gpu") / f"card_session_{tag}.json").read_text())
    occupancy, coop_targets = occupancy_rows(session)
    frontier, frontier_targets = frontier_rows(card, session["cores"])
    pool_note = ("solve named --pool" if session.get("pool_option") else
                 "the session saw no --pool in solve's help and passed none: each card run took "
                 "solve's default pool, named below")  # fmt: skip
    out = [f"# A lent card: {session['card']}", "",
           f"Written by `python -m benchmarks.card_lent_report --tag {tag}` from the committed "
           f"results files (module docstring). Session commit {session['commit']}; "
           f"{session['cores']} cores; {session['versions']}. Models are on an H100 SXM's rates, "
           "made before these runs.", "", "## Targets", "",
           "| target | asked | measured | |", "|---|---|---|---|",
           *pool_targets(session), *coop_targets, *frontier_targets, "",
           "## Pools and cores (9x9)", "", f"Pools: {pool_note}.", "", *pool_rows(session), "",
           "## Per-chain rate against chains", "", *occupancy, "",
           "## The frontier, card then cores", *frontier, "",
           "## --method impasse: moves a second", "", *impasse_rows(card), ""]  # fmt: skip
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Write (or --check) gpu/card_lent_TAG.md."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tag", required=True, help="CARD_COMMIT, e.g. h200_c83e05b")
    ap.add_argument("--check", action="store_true", help="exit 1 if the page differs")
    args = ap.parse_args(argv)
    source = results("gpu") / f"card_session_{args.tag}.json"
    if not source.exists():
        print(f"card_lent_report: no session file {source}", file=sys.stderr)
        return 2
    page, text = results("gpu") / f"card_lent_{args.tag}.md", render(args.tag)
    if args.check:
        same = page.exists() and page.read_text() == text
        if not same:
            print(f"card_lent_report: {page} differs from its output", file=sys.stderr)
        return 0 if same else 1
    page.write_text(text)
    print(f"wrote {page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
