"""The cooperative kernel's model beside the one-thread kernels': a model, not a measurement.

Compiles, for sm_90, the cooperative kernels (one warp a chain: orders 4-6 and every move they
serve, and a 9x9 build for the comparison only), the one-thread kernels with Philox draws they
fall back to (orders 4-6) and the 9x9 kernels, reads their SASS and models proposals/s on the
H100 SXM (gpu_anneal.kernels.perf_model; a cooperative round's proposals from the acceptance
measured on the CPU, benchmarks/results/kernels/coop_acceptance.json). "Before" is the committed
model of the one-thread kernels with xoroshiro128+ draws (kernel_model_sm_90_after.json). Writes
benchmarks/results/kernels/coop_model.json and .md: the rates, per-chain rates, the issue's targets
(one 25x25 chain >= 2 M proposals/s; 16x16 and 25x25 proposals/s x cells >= half the 9x9
default move's), whether a cooperative 9x9 kernel would be faster, and what fewer lanes a chain
would give.

    python -m benchmarks.bench_coop_model
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchmarks.machine import git, machine
from benchmarks.paths import results
from cpu_reference.sudoku import rules
from gpu_anneal.kernels import perf_model, ptx, sass
from gpu_anneal.kernels import sudoku as ks
from gpu_anneal.kernels import sudoku_coop as coop
from gpu_anneal.kernels.cards import CARDS
from gpu_anneal.kernels.perf_model import DEFAULT, proposals_per_round

ARCH = "sm_90"
CARD = "H100 SXM"
MOVES = ("sirdey", "candidate", "focused", "focused-two")
DEFAULT_MOVE = {3: "focused-two", 4: "focused", 5: "focused", 6: "focused"}  # presets' auto
BEFORE = results("kernels") / "kernel_model_sm_90_after.json"
ACCEPTANCE = results("kernels") / "coop_acceptance.json"
LANE_CHOICES = (4, 8, 16, 32)


def compile_kernel(kind: str, order: int, move: str) -> tuple[sass.Listing, dict, sass.Assembled]:
    """Compile one kernel for ARCH, kind "coop" or "thread": its SASS read (the listing), a
    record of ptxas's figures (kernel, size, arch, launch_bounds, registers, ...) and the
    cubin."""
    code = rules.MOVE_NAMES[move]
    if kind == "coop":
        fn = coop.kernel_function(order, code, any_order=not coop.serves(order, code))
        sig, bounds = coop.kernel_signature(order, code), coop.launch_bounds(order, code)
        name = coop.kernel_name(code)
    else:
        fn, sig = ks.kernel_function(order, code), ks.kernel_signature(order, code)
        bounds, name = (
            ks.launch_bounds(order, code),
            "sudoku" if move == "sirdey" else f"sudoku-{move}",
        )
    tool, nvdisasm = ptx.find_ptxas(), sass.require_nvdisasm()
    text = ptx.compile_ptx(fn, sig, ARCH, bounds)
    record = {"kernel": name, "size": order, "arch": ARCH, "launch_bounds": list(bounds)}
    record |= ptx.ptxas_report(text, ARCH, tool).as_dict()
    built = sass.assemble(text, ARCH, tool)
    listing = sass.read_listing(sass.disassemble(built.cubin, nvdisasm), name)
    return listing, record, built


def build(kind: str, order: int, move: str, acceptance: float | None) -> dict:
    """Compile and model one kernel: kind "coop" or "thread"."""
    listing, record, built = compile_kernel(kind, order, move)
    bounds = record["launch_bounds"]
    record["sass"] = listing.summary()
    record["model"] = perf_model.model_listing(
        listing, record["registers"], record["stack_frame"], record["shared_bytes"],
        built.constant_bank_bytes(3), bounds[0], acceptance=acceptance,
    )  # fmt: skip
    code = rules.MOVE_NAMES[move]
    record["generator"] = rules.generator_name(order, code) if kind == "thread" else rules.PHILOX
    return record


def before_rates() -> dict:
    """ "KERNEL:ORDER" -> the committed one-thread model's figures on CARD (xoroshiro128+)."""
    doc = json.loads(BEFORE.read_text())
    rates = {f"{r['kernel']}:{r['size']}": figures(r) for r in doc["records"]}
    return {"commit": doc["git_commit"], "records": rates}


def run() -> dict:
    """Every build; the results document."""
    accept = json.loads(ACCEPTANCE.read_text())["pooled"]
    records = []
    for order in (4, 5, 6):
        for move in MOVES:
            p = accept[f"{order}:{move}"]["acceptance"]
            records.append({"kind": "coop", "move": move, **build("coop", order, move, p)})
            records.append({"kind": "thread", "move": move, **build("thread", order, move, None)})
    for move in ("sirdey", "focused-two"):
        p = accept[f"3:{move}"]["acceptance"]
        records.append({"kind": "coop", "move": move, **build("coop", 3, move, p)})
        records.append({"kind": "thread", "move": move, **build("thread", 3, move, None)})
    lanes = {
        f"{order}:{move}": {
            str(k): (32 // k) * proposals_per_round(accept[f"{order}:{move}"]["acceptance"], k)
            for k in LANE_CHOICES
        }
        for order in (4, 5, 6)
        for move in MOVES
    }
    return {
        "what": "model: proposals/s computed from the compiled code (SASS), not measured on a GPU",
        "arch": ARCH,
        "card": CARD,
        "git_commit": git("rev-parse", "HEAD"),
        "git_changed_files": [line[3:] for line in git("status", "--porcelain").splitlines()],
        "machine": machine("numba"),
        "model_assumptions": DEFAULT.as_dict(),
        "cards": {CARD: CARDS[CARD].as_dict()},
        "acceptance_file": ACCEPTANCE.name,
        "before": before_rates() | {"file": BEFORE.name},
        "records": records,
        "proposals_a_warp_trip_by_lanes_a_chain": lanes,
    }


def figures(r: dict) -> dict:
    """The card's figures of a record ({} when no move loop was found)."""
    return (r.get("model") or {}).get(CARD, {})


def markdown(doc: dict) -> str:
    """The tables of the results document."""
    cells = {3: 81, 4: 256, 5: 625, 6: 1296}
    before = doc["before"]["records"]
    by = {(r["kind"], r["size"], r["move"]): r for r in doc["records"]}

    def old(order, move):
        kernel = "sudoku" if move == "sirdey" else f"sudoku-{move}"
        return before.get(f"{kernel}:{order}", {}).get("proposals_per_second")

    g = lambda x: "-" if x is None else f"{x / 1e9:.2f}"  # noqa: E731
    m = lambda x: "-" if x is None else f"{x / 1e6:.2f}"  # noqa: E731
    lines = [
        "# The cooperative kernel's model (sm_90, H100 SXM): a model, not a measurement",
        "",
        "Computed from the compiled code (`python -m benchmarks.bench_coop_model`, "
        "gpu_anneal/kernels/perf_model.py), never run on a card. A cooperative round's "
        "proposals E(p) = (1 - (1 - p)^32) / p come from the acceptance p measured on the CPU "
        f"runner (`{doc['acceptance_file']}`: default technique, held-out style grids). "
        f"Before: the committed model of the one-thread kernels with xoroshiro128+ draws "
        f"(`{doc['before']['file']}`, commit {doc['before']['commit'][:7]}); thread now: the "
        "one-thread kernels with Philox draws (what the runner falls back to).",
        "",
        f"- commit `{doc['git_commit'][:12]}`; generated {doc['machine'].get('date')}",
        f"- assumptions: {', '.join(f'{k} = {v}' for k, v in doc['model_assumptions'].items())}",
        "",
        "| grid | move | before G/s | thread now G/s | coop G/s | coop / before | p | E(p) "
        "| instr / round | bound | blocks / SM | regs | chain M/s (card full) | chain M/s "
        "(alone) |",
        "|" + "---|" * 14,
    ]
    for order in (4, 5, 6, 3):
        for move in MOVES:
            c = by.get(("coop", order, move))
            if c is None:
                continue
            t = by[("thread", order, move)]
            fc, ft = figures(c), figures(t)
            b = old(order, move)
            rate = fc.get("proposals_per_second")
            ratio = f"{rate / b:.1f}x" if rate and b else "-"
            p = fc.get("acceptance")
            side = int(cells[order] ** 0.5)
            lines.append(
                f"| {side}x{side} | {move} | {g(b)} | {g(ft.get('proposals_per_second'))} | "
                f"{g(rate)} | {ratio} | {p:.3f} | {fc.get('proposals_per_warp_trip', 0):.2f} | "
                f"{c['sass'].get('instructions_per_proposal', '-')} | {fc.get('bound', '-')} | "
                f"{fc.get('blocks_per_sm', '-')} | {c['registers']} | "
                f"{m(fc.get('chain_proposals_per_second'))} | "
                f"{m(fc.get('lone_chain_proposals_per_second'))} |"
            )
    nine = figures(by[("thread", 3, DEFAULT_MOVE[3])])["proposals_per_second"] * cells[3]
    lines += [
        "",
        "Targets (the model's figures; the 9x9 default move is focused-two on the one-thread "
        f"kernel: {nine / 1e12:.2f} x 10^12 proposals x cells a second):",
        "",
        "| target | before | coop | met (coop) |",
        "|---|---|---|---|",
    ]
    for order in (4, 5):
        move = DEFAULT_MOVE[order]
        side = int(cells[order] ** 0.5)
        coop = figures(by[("coop", order, move)])["proposals_per_second"] * cells[order] / nine
        b = old(order, move)
        prior = f"{b * cells[order] / nine:.0%}" if b else "-"
        lines.append(
            f"| {side}x{side} {move}: proposals/s x cells >= 50 % of 9x9's | {prior} | "
            f"{coop:.0%} | {'yes' if coop >= 0.5 else 'no'} |"
        )
    chain = figures(by[("coop", 5, "focused")])
    lines.append(
        f"| one 25x25 focused chain >= 2 M proposals/s (card full; alone) | - | "
        f"{m(chain['chain_proposals_per_second'])} M/s; "
        f"{m(chain['lone_chain_proposals_per_second'])} M/s | "
        f"{'yes' if chain['chain_proposals_per_second'] >= 2e6 else 'no'} |"
    )
    nine_coop = figures(by[("coop", 3, DEFAULT_MOVE[3])]).get("proposals_per_second")
    nine_thread = figures(by[("thread", 3, DEFAULT_MOVE[3])])["proposals_per_second"]
    lines += [
        "",
        f"9x9 (focused-two): a cooperative build models {g(nine_coop)} G/s against the "
        f"one-thread kernel's {g(nine_thread)} G/s, so 9x9 stays on one chain a thread (and "
        "xoroshiro128+).",
        "",
        "Fewer lanes a chain (not built): proposals a warp trip would make with 32 / K chains "
        "of K lanes each, (32 / K) E_K(p), if a trip cost the instructions of one K = 32 round "
        "(it would cost more: each chain's accepted move is made by its own K lanes):",
        "",
        "| grid | move | " + " | ".join(f"K = {k}" for k in LANE_CHOICES) + " |",
        "|" + "---|" * (2 + len(LANE_CHOICES)),
    ]
    for key, row in doc["proposals_a_warp_trip_by_lanes_a_chain"].items():
        order, move = key.split(":")
        side = int(cells[int(order)] ** 0.5)
        lines.append(
            f"| {side}x{side} | {move} | "
            + " | ".join(f"{row[str(k)]:.1f}" for k in LANE_CHOICES)
            + " |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    """Build, model, write the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(results("kernels") / "coop_model"))
    parser.add_argument("--render", action="store_true", help="only rewrite the .md")
    args = parser.parse_args()
    out = Path(args.out)
    if args.render:
        doc = json.loads(out.with_suffix(".json").read_text())
    else:
        doc = run()
        out.parent.mkdir(parents=True, exist_ok=True)
        out.with_suffix(".json").write_text(json.dumps(doc, indent=1) + "\n")
    out.with_suffix(".md").write_text(markdown(doc))
    print(f"wrote {out}.json and .md")


if __name__ == "__main__":
    main()
