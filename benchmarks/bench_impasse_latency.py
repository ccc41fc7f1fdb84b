"""The impasse kernels' latency model: a chain's moves a second on a card, one thread a chain
against one warp a chain (state in global or in shared memory). A model, not a measurement.

Compiles for sm_90 the one-thread impasse kernel (sudoku-impasse) and the warp kernels
(sudoku-impasse-warp, its state rows in global memory; sudoku-impasse-warp-shared, in shared
memory, at the instance's order), finds one move's path in each (gpu_anneal.kernels.
impasse_latency), walks it with the latency model's instruction figures and shares the SM among
its warps by the model's Mean Value Analysis. A move's inner loops run as often as the drawn
cell has candidates, so the model mixes over the candidate counts the chains draw, and a move
opens fewer cells than write_digit's three, so its opens are walked by the opens a move makes:
both measured here on the CPU runner, the chains held at the engine's temperature for the
instance.

- calibration: the cooperative kernels' factor (card cycles a modeled cycle,
  benchmarks/results/kernels/coop_latency.json), and a check it never saw: the one-thread
  impasse kernel's lone chain on the H200 (benchmarks/results/throughput/
  impasse_rate_h200_cuda_occupancy.json), whose measured / model is the impasse kernels' own
  factor (one figure);
- a chain's moves a second against warps an SM, each kernel, both factors;
- one wave of the warp kernel (gpu_anneal.impasse_solver.warp_chains) against the same card's 16
  cores (benchmarks/results/throughput/impasse_rate_h200_cpu.json, 36x36);
- where a lone warp's move waits, and the move without its RNG loop (what drawing ahead could
  gain at most);
- the time to the first solve: the earliest solve among the CPU chains of
  benchmarks/results/tuning/impasse_horizon.json over the wave's modeled chain rate, beside the
  same card's 16 cores solving the grid (benchmarks/results/frontier/frontier_card_h200_*).

Glossary: nc the drawn cell's candidates; L a lone warp's cycles a move; W warps an SM (one
chain a warp in the warp kernels, 32 chains a warp in the one-thread kernel); h the L1 hit
fraction of the move's global loads.

    python -m benchmarks.bench_impasse_latency [--cells 6:50,7:45,8:45] [--out PATH] [--render]

Results: benchmarks/results/kernels/impasse_latency.{json,md}.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from benchmarks.frontier_instances import make_instances
from benchmarks.machine import machine, made_by
from benchmarks.paths import results
from benchmarks.tables import add_out_arguments, rerender, table_block, write_results
from cpu_reference.sudoku import impasse
from gpu_anneal.kernels import impasse_latency as il
from gpu_anneal.kernels import impasse_warp, ptx, sass
from gpu_anneal.kernels import latency_model as lm
from gpu_anneal.kernels.cards import CARDS, HOPPER_TIMING
from gpu_anneal.plan import RESERVED_SHARED_PER_BLOCK

ARCH = "sm_90"
CARD = "H200 SXM"
WAVE_CARD = "H100 SXM"  # the plan's card of the H200's SM figures (cards.py: the same GH100 SM)
COOP = results("kernels") / "coop_latency.json"
LONE = results("throughput") / "impasse_rate_h200_cuda_occupancy.json"
CORES = results("throughput") / "impasse_rate_h200_cpu.json"
HORIZON = results("tuning") / "impasse_horizon.json"  # moves to a chain's solve, CPU runner
# the same H200 machine's 16 cores solving the frontier grids (seconds a grid, by instance)
CORE_SOLVES = {
    (6, 50): results("frontier") / "frontier_card_h200_36x36_50_impasse_cpu.json",
    (7, 45): results("frontier") / "frontier_card_h200_49x49_45_impasse_cpu.json",
}
WARPS = (1, 2, 4, 7, 8, 11, 14, 16)
KERNELS = ("thread", "warp-global", "warp-shared")
NAMES = {
    "thread": "sudoku-impasse",
    "warp-global": impasse_warp.NAME,
    "warp-shared": impasse_warp.SHARED_NAME,
}


# ----------------------------------------------------------------------------- inputs


def warmed_chains(cells, order: int, temperature: float, chains: int, warm: int,
                  seed: int) -> tuple[tuple, list]:  # fmt: skip
    """(the puzzle's tables, impasse_slice's arguments) of `chains` chains held at
    `temperature` on the CPU runner after `warm` moves each."""
    tables = impasse.impasse_tables(cells, order)
    args = list(impasse.chain_arrays(tables, order, chains, seed, temperature))
    args[impasse.SLICE_AT] = warm
    impasse.run_impasse_cpu(*args)
    return tables, args


def candidate_share(cells, order: int, temperature: float, chains: int = 16, warm: int = 20_000,
                    looks: int = 100, gap: int = 2_000, seed: int = 0) -> dict:  # fmt: skip
    """nc -> the fraction of moves whose drawn cell has nc candidates, and the mean open cells:
    `chains` chains on the CPU runner, `warm` moves, then `looks` looks `gap` moves apart (a move
    draws its cell uniformly from the open set, so a look weighs each open cell 1 / open)."""
    tables, args = warmed_chains(cells, order, temperature, chains, warm, seed)
    ncand = tables[3]
    args[impasse.SLICE_AT] = gap
    share: dict[int, float] = {}
    opened = []
    for _ in range(looks):
        impasse.run_impasse_cpu(*args)
        oset = args[impasse.OSET]
        for i in range(chains):
            size = int(oset[i, 0])
            if size == 0:
                continue
            opened.append(size)
            for nc, count in zip(*np.unique(ncand[oset[i, 1 : 1 + size]], return_counts=True),
                                 strict=True):  # fmt: skip
                share[int(nc)] = share.get(int(nc), 0.0) + count / size
    total = sum(share.values())
    return {
        "share": {str(k): v / total for k, v in sorted(share.items())},
        "mean_open": float(np.mean(opened)) if opened else 0.0,
        "mean_nc": sum(k * v for k, v in share.items()) / total,
        "max_nc": int(ncand.max()),
        "free_cells": int(tables[1].size),
        "chains": chains, "warm": warm, "looks": looks, "gap": gap,
    }  # fmt: skip


def opens_and_writes(cells, order: int, temperature: float, chains: int = 4,
                     warm: int = 20_000, moves: int = 5_000, seed: int = 1) -> dict:  # fmt: skip
    """The cells a move opens (write_digit's opens) and the share of moves that write a digit:
    `chains` chains on the CPU runner, `warm` moves, then `moves` moves one at a time, each
    move's grid compared with the grid before it."""
    _, args = warmed_chains(cells, order, temperature, chains, warm, seed)
    args[impasse.SLICE_AT] = 1
    grid, counts = args[impasse.GRID], args[impasse.COUNTS]
    made = int(counts[:, 0].sum())
    opened = written = 0
    for _ in range(moves):
        before = grid.copy()
        impasse.run_impasse_cpu(*args)
        opened += int(np.count_nonzero((before != 0) & (grid == 0)))
        written += int(np.count_nonzero((before == 0) & (grid != 0)))
    made = int(counts[:, 0].sum()) - made
    return {"opens_a_move": opened / made, "writes_a_move": written / made, "moves": made,
            "chains": chains, "warm": warm}  # fmt: skip


def compile_listing(kind: str, order: int) -> tuple[sass.Listing, dict]:
    """One impasse kernel for ARCH: its SASS read and ptxas's figures."""
    from gpu_anneal import kinds

    trial_function, types = kinds.trial_kernels()["sudoku-impasse"]
    function = {
        "thread": trial_function,
        "warp-global": impasse_warp.kernel_function,
        "warp-shared": lambda: impasse_warp.shared_kernel_function(order),
    }[kind]()
    tool, nvdisasm = ptx.find_ptxas(), sass.require_nvdisasm()
    text = ptx.compile_ptx(function, types(), ARCH, None)
    report = ptx.ptxas_report(text, ARCH, tool).as_dict()
    built = sass.assemble(text, ARCH, tool)
    return sass.read_listing(sass.disassemble(built.cubin, nvdisasm), NAMES[kind]), report


def table_bytes(free: int, order: int) -> int:
    """Bytes of the read-only tables a move reads at random over the free cells: a cell's
    candidates (a row of N), its count and its three units (impasse.TABLE_TYPES)."""
    size = {name: np.dtype(t).itemsize for name, t in impasse.TABLE_TYPES.items()}
    return free * (order * order * size["cand"] + size["ncand"] + 3 * size["units"])


def l1_hit(kind: str, order: int, free: int, warps: int, lone: bool = False) -> float:
    """h for `warps` warps an SM of the kernel (the state rows of global-memory chains read at
    random beside the tables; shared-memory chains' rows take the carve-out from the L1)."""
    card = CARDS[CARD]
    state = impasse_warp.state_bytes(order)
    tables = table_bytes(free, order)
    if kind == "warp-shared":
        shared = warps * (state + RESERVED_SHARED_PER_BLOCK)
        return lm.l1_hit_fraction(card, shared, tables)
    chains = 1 if lone else (warps if kind == "warp-global" else 32 * warps)
    return lm.l1_hit_fraction(card, 0, tables + chains * state)


# ----------------------------------------------------------------------------- the model


def model(listing, shape, share: dict[int, float], kind: str, h: float, writes: dict,
          rng_free: bool = False) -> il.MoveModel:  # fmt: skip
    """The kernel's move mixed over `share` at L1 hit h, its write and opens walked as often as
    `writes` (opens_and_writes) says; rng_free: the warp kernel's lane loop walked 0 times (its
    RNG steps made elsewhere, free)."""
    coop = kind != "thread"
    trips = 0.0 if rng_free else None

    def one(nc: int) -> il.Move:
        return il.move_at(listing, shape, nc, HOPPER_TIMING, h, coop,
                          open_share=writes["opens_a_move"] / 3, solved_trips=trips,
                          write_share=writes["writes_a_move"])  # fmt: skip

    return il.mixed(listing, shape, share, one)


def chain_rate(m: il.MoveModel, warps: int, scale: float) -> float:
    """A chain's moves a second with `warps` warps an SM, `scale` card cycles a model cycle."""
    return CARDS[CARD].boost_mhz * 1e6 / (scale * m.round_cycles(warps))


def measured_lone() -> dict:
    """The committed one-thread lone-chain figure (chains = 1) and where it is from."""
    doc = json.loads(LONE.read_text())
    row = next(r for r in doc["rows"] if r["chains"] == 1)
    return {"rate": row["rate_a_chain"], "file": f"throughput/{LONE.name}",
            "commit": doc.get("commit"), "date": doc["machine"].get("date"),
            "instance": doc["instance"]}  # fmt: skip


def measured_cores() -> dict:
    """The committed 16-core figure of the same card's machine (36x36)."""
    doc = json.loads(CORES.read_text())
    row = max(doc["rows"], key=lambda r: r["chains"])
    return {"rate": row["rate"], "chains": row["chains"], "file": f"throughput/{CORES.name}",
            "instance": doc["instance"], "date": doc["machine"].get("date")}  # fmt: skip


def first_solves(order: int, fill: int, temperature: float) -> list[dict]:
    """Per instance of the horizon run at this order, fill and temperature: the moves of its
    earliest solving chain of those run, beside the 16 cores' solve on the card's machine."""
    horizon = json.loads(HORIZON.read_text())
    cores = {}
    if (order, fill) in CORE_SOLVES and CORE_SOLVES[(order, fill)].exists():
        for r in json.loads(CORE_SOLVES[(order, fill)].read_text())["rows"]:
            cores[r["instance"]] = r
    out = []
    for cell in horizon["cells"]:
        if (cell["order"], cell["fill"]) != (order, fill) or cell["temperature"] != temperature:
            continue
        for r in cell["runs"]:
            core = cores.get(r["instance"])
            out.append({
                "instance": r["instance"], "chains": horizon["chains"],
                "horizon_moves": horizon["moves"],
                "earliest": min(r["solved_moves"]) if r["solved_moves"] else None,
                "cores_status": core["status"] if core else None,
                "cores_seconds": core["seconds"] if core else None,
                "cores_limit": core["limit"] if core else None,
            })  # fmt: skip
    return out


def run(cells_arg: list[tuple[int, int]]) -> dict:
    """Every kernel at every (order, fill): the model's figures (module docstring)."""
    from gpu_anneal.impasse_solver import temperature_at, warp_chains
    from gpu_anneal.plan import card_named

    coop_scale = json.loads(COOP.read_text())["calibration"]["scale"]
    lone = measured_lone()
    cores = measured_cores()
    out = {"arch": ARCH, "card": CARD, "coop_scale": coop_scale, "lone": lone, "cores": cores,
           "cells": []}  # fmt: skip
    for order, fill in cells_arg:
        inst = make_instances([order], [fill], 1, 1)[0]
        temperature = temperature_at(order, fill)
        share = candidate_share(inst.cells, order, temperature)
        writes = opens_and_writes(inst.cells, order, temperature)
        weights = {int(k): v for k, v in share["share"].items()}
        free = share["free_cells"]
        wave = warp_chains(card_named(WAVE_CARD), order)
        sms = CARDS[CARD].sms
        cell = {"order": order, "fill": fill, "instance": inst.name, "temperature": temperature,
                "candidates": share, "writes": writes, "wave_chains": wave,
                "wave_warps": wave // sms, "first_solves": first_solves(order, fill, temperature),
                "kernels": {}}  # fmt: skip
        for kind in KERNELS:
            if kind == "warp-shared" and not impasse_warp.shared_fits(order):
                continue
            listing, report = compile_listing(kind, order)
            shape = il.move_shape(listing)
            rows, memo = [], {}
            for w in sorted({*WARPS, wave // sms}):
                h = l1_hit(kind, order, free, w)
                if h not in memo:  # the walk depends on W only through h
                    memo[h] = model(listing, shape, weights, kind, h, writes)
                m = memo[h]
                rows.append({
                    "warps": w, "l1_hit": h, "lone_cycles": m.cycles, "sched": m.sched(),
                    "mio": m.part.mio, "round_cycles": m.round_cycles(w), "bound": m.bound(w),
                    "chain_rate_bare": chain_rate(m, w, 1.0),
                    "chain_rate_coop": chain_rate(m, w, coop_scale),
                })  # fmt: skip
            h1 = l1_hit(kind, order, free, 1, lone=True)
            alone = memo.get(h1) or model(listing, shape, weights, kind, h1, writes)
            entry = {
                "registers": report.get("registers"), "spill_stores": report.get("spill_stores"),
                "path_instructions": sum(listing.cfg.blocks[b].end - listing.cfg.blocks[b].start
                                         for b in shape.path),
                "lone": {"l1_hit": h1, "cycles": alone.cycles, "instructions":
                         alone.part.instructions, "waits": alone.waits,
                         "rate_bare": chain_rate(alone, 1, 1.0)},
                "rows": rows,
            }  # fmt: skip
            if kind != "thread":
                free_rng = model(listing, shape, weights, kind, h1, writes, rng_free=True)
                entry["lone"]["cycles_rng_free"] = free_rng.cycles
                w = wave // sms
                in_l1 = memo.get(1.0) or model(listing, shape, weights, kind, 1.0, writes)
                entry["wave"] = {
                    "warps": w, "l1_hit": l1_hit(kind, order, free, w),
                    "chain_rate_bare": next(r["chain_rate_bare"] for r in rows if r["warps"] == w),
                    "chain_rate_bare_all_l1": chain_rate(in_l1, w, 1.0),
                }  # fmt: skip
            cell["kernels"][kind] = entry
        out["cells"].append(cell)
    first = out["cells"][0]
    thread = first["kernels"]["thread"]["lone"]
    out["impasse_scale"] = thread["rate_bare"] / lone["rate"]  # card cycles a model cycle
    out["lone_check"] = {"instance": first["instance"], "measured": lone["rate"],
                         "model_coop": thread["rate_bare"] / coop_scale,
                         "ratio": lone["rate"] / (thread["rate_bare"] / coop_scale)}  # fmt: skip
    return out


# ----------------------------------------------------------------------------- report


def _m(x: float) -> str:
    return f"{x / 1e6:.3g}"


def render(doc: dict) -> str:
    """The markdown report."""
    m, lone, cores = doc["machine"], doc["lone"], doc["cores"]
    check = doc["lone_check"]
    s_coop, s_imp = doc["coop_scale"], doc["impasse_scale"]
    lines = [
        "# The impasse kernels' latency model (sm_90): a chain's moves a second on a card",
        "",
        f"Computed from the compiled code (`{doc['command']}` at {doc['commit'] or '?'}, "
        "gpu_anneal/kernels/impasse_latency.py, gpu_anneal/kernels/latency_model.py); never run "
        f"on a card. {m.get('cpu_model')}, {m.get('cores')} cores, {m.get('date')}. Card: "
        f"{doc['card']} (its SM figures from gpu_anneal/kernels/cards.py). One move's path "
        "in the SASS is walked (a lone warp's cycles L, each instruction issuing when its "
        "operands are ready) and the SM shared among W warps by Mean Value Analysis; a move's "
        "loops run as often as the drawn cell has candidates (nc), mixed over the nc the "
        "chains draw, measured on the CPU runner (below).",
        "",
        "## Calibration and its check",
        "",
        f"- The cooperative kernels' factor: **{s_coop:.3f}** card cycles a modeled cycle "
        "(fitted on six card figures of other kernels, `kernels/coop_latency.json`).",
        f"- The check it never saw: the one-thread impasse kernel, one chain alone on the "
        f"H200 ({check['instance']}): measured **{_m(check['measured'])} M moves/s** "
        f"(`{lone['file']}`, {lone['date']}); the model with the cooperative factor "
        f"{_m(check['model_coop'])} M moves/s: measured / model **{check['ratio']:.2f}**. The "
        f"card ran the kernel of commit {lone['commit']}; the model walks this commit's.",
        f"- The impasse kernels' own factor, from that one figure: **{s_imp:.3f}** card "
        "cycles a modeled cycle. Below, each rate is given with both factors: the one fitted "
        "on the other kernels and the one fitted on this figure alone.",
        "",
    ]
    for cell in doc["cells"]:
        side = cell["order"] ** 2
        c = cell["candidates"]
        lines += [
            f"## {side}x{side} at {cell['fill']} % ({cell['instance']}, T = "
            f"{cell['temperature']:g})",
            "",
            f"Candidates of a drawn cell (CPU runner, {c['chains']} chains, {c['warm']:,} moves, "
            f"then {c['looks']} looks {c['gap']:,} moves apart): mean nc {c['mean_nc']:.1f} "
            f"(at most {c['max_nc']}); {c['mean_open']:.1f} open cells on average of "
            f"{c['free_cells']} free. A move opens {cell['writes']['opens_a_move']:.3f} cells "
            f"and writes a digit in {100 * cell['writes']['writes_a_move']:.0f} % of moves "
            f"({cell['writes']['chains']} chains, {cell['writes']['moves']:,} moves one at a "
            "time), so a move's write is walked that share of moves, and write_digit's three "
            "opens the opens of a writing move over three. One wave of "
            f"the warp kernel: {cell['wave_chains']:,} chains, {cell['wave_warps']} warps an SM.",
            "",
        ]
        lines += table_block(
            "### A lone warp's move",
            ("kernel", "registers", "path instructions", "instructions a move", "h",
             "L (cycles)", "L without the RNG loop", "waits (cycles, top 4)"),
            [(f"`{NAMES[k]}`", str(e["registers"]), f"{e['path_instructions']:,}",
              f"{e['lone']['instructions']:,}", f"{e['lone']['l1_hit']:.2f}",
              f"{e['lone']['cycles']:,.0f}",
              f"{e['lone']['cycles_rng_free']:,.0f}" if "cycles_rng_free" in e["lone"] else "-",
              ", ".join(f"{u} {v:,.0f}" for u, v in sorted(e["lone"]["waits"].items(),
                                                            key=lambda x: -x[1])[:4]))
             for k, e in cell["kernels"].items()],
            "Path instructions: the move path's blocks once; a move: its loops as often as nc "
            "asks, mixed over nc. Without the RNG loop: the warp kernel's lane loop walked 0 "
            "times (every lane stepping the RNG over the chunk's draws), the most drawing ahead "
            "could gain.",
        )  # fmt: skip
        rows = []
        for k, e in cell["kernels"].items():
            for r in e["rows"]:
                chains = r["warps"] * (32 if k == "thread" else 1)
                rows.append((
                    f"`{NAMES[k]}`", str(r["warps"]), f"{chains:,}", f"{r['l1_hit']:.2f}",
                    f"{r['round_cycles']:,.0f}", r["bound"],
                    _m(r["chain_rate_bare"] / s_coop), _m(r["chain_rate_bare"] / s_imp),
                    f"{r['chain_rate_bare'] / s_coop * chains * CARDS[doc['card']].sms / 1e6:,.0f}",
                ))  # fmt: skip
        lines += table_block(
            "### Against warps an SM",
            ("kernel", "W", "chains an SM", "h", "T(W) model cycles", "bound",
             f"chain M moves/s (x{s_coop:.2f})", f"chain M moves/s (x{s_imp:.2f})",
             f"card M moves/s (x{s_coop:.2f})"),
            rows,
            "The one-thread kernel's rows take its 32 chains a warp as one warp walking one "
            "chain's path: its lanes draw different cells, so a warp runs their paths apart "
            "(divergence) and the measured rate falls well below these (the one-thread card "
            "runs: 0.1 M moves/s a chain at 32 chains and more). Card: the chains of every SM.",
        )  # fmt: skip
        waves = [
            f"`{NAMES[k]}` {e['wave']['chain_rate_bare'] / s_coop / 1e6:.2f}-"
            f"{e['wave']['chain_rate_bare'] / s_imp / 1e6:.2f} M moves/s at h = "
            f"{e['wave']['l1_hit']:.2f}, {e['wave']['chain_rate_bare_all_l1'] / s_coop / 1e6:.2f}-"
            f"{e['wave']['chain_rate_bare_all_l1'] / s_imp / 1e6:.2f} were every table read an "
            "L1 hit"
            for k, e in cell["kernels"].items() if "wave" in e
        ]  # fmt: skip
        lines += [
            f"A chain of the wave ({cell['wave_warps']} warps an SM): " + "; ".join(waves) + ".",
            "",
        ]
        if side == 36 and "warp-shared" in cell["kernels"]:
            w = cell["wave_warps"]
            row = next(r for r in cell["kernels"]["warp-shared"]["rows"] if r["warps"] == w)
            card_rates = [row["chain_rate_bare"] / s * cell["wave_chains"] for s in (s_coop, s_imp)]
            lines += [
                "### One wave against the same card's 16 cores",
                "",
                f"The shared-state warp kernel's wave ({cell['wave_chains']:,} chains): "
                f"{card_rates[0] / 1e6:,.0f} M moves/s (x{s_coop:.2f}) to "
                f"{card_rates[1] / 1e6:,.0f} M moves/s (x{s_imp:.2f}); the H200's 16 cores "
                f"measured {cores['rate'] / 1e6:.1f} M moves/s ({cores['chains']} chains, "
                f"`{cores['file']}`, {cores['date']}): "
                f"{card_rates[0] / cores['rate']:.1f}x to {card_rates[1] / cores['rate']:.1f}x; "
                f"a card chain {row['chain_rate_bare'] / s_coop / 1e6:.2f}-"
                f"{row['chain_rate_bare'] / s_imp / 1e6:.2f} M moves/s against a core's "
                f"{cores['rate'] / cores['chains'] / 1e6:.2f}.",
                "",
            ]
        lines += _first_solve_lines(doc, cell, s_coop, s_imp)
    lines += [
        "Left out (besides latency_model's own): a trial start and a new best's copy and "
        "record are never walked (they are rare); the RNG loop's remainder steps are walked in "
        "full, so a move of few candidates walks more steps than it makes.",
        "",
    ]
    return "\n".join(lines)


def _first_solve_lines(doc: dict, cell: dict, s_coop: float, s_imp: float) -> list[str]:
    """The first-solve table of a cell: the horizon's earliest solve over the wave's modeled
    chain rate, beside the cores' measured solve."""
    kind = "warp-shared" if "warp-shared" in cell["kernels"] else "warp-global"
    w = cell["wave_warps"]
    row = next(r for r in cell["kernels"][kind]["rows"] if r["warps"] == w)
    rates = [row["chain_rate_bare"] / s for s in (s_coop, s_imp)]
    cells = []
    for f in cell["first_solves"]:
        if f["earliest"] is None:
            card = f"none of {f['chains']} within {f['horizon_moves'] / 1e6:g} M moves"
        else:
            card = f"{f['earliest'] / rates[1]:.2g}-{f['earliest'] / rates[0]:.2g} s"
        if f["cores_status"] is None:
            cores = "-"
        elif f["cores_status"] == "solved":
            cores = f"{f['cores_seconds']:.3g} s"
        else:
            cores = f"{f['cores_status']} at {f['cores_limit']:g} s"
        first = f"{f['earliest'] / 1e6:.2f} M" if f["earliest"] is not None else "-"
        cells.append((f["instance"], first, card, cores))
    if not cells:
        return []
    return table_block(
        "### Time to the first solve: the wave, modeled, against the 16 cores, measured",
        ("instance", f"earliest of {cell['first_solves'][0]['chains']} chains (moves)",
         f"wave of {cell['wave_chains']:,} on the card (model)", "16 cores (measured)"),
        cells,
        f"Earliest: the first solve among the chains of `tuning/{HORIZON.name}` (the CPU runner; "
        "a card runs these very moves), over the modeled chain rate of the "
        f"`{NAMES[kind]}` wave ({w} warps an SM) with either factor; a wave has more chains, so "
        "its first solve comes no later on average. 16 cores: the same H200 machine's "
        "`--method impasse` run (`frontier/"
        f"{CORE_SOLVES.get((cell['order'], cell['fill']), Path('-')).name}`).",
    )  # fmt: skip


def parse_cells(text: str) -> list[tuple[int, int]]:
    """--cells ORDER:FILL,...: the (order, fill) pairs modeled."""
    out = []
    for item in text.split(","):
        order, _, fill = item.partition(":")
        if not (order.isdigit() and fill.isdigit()):
            raise argparse.ArgumentTypeError(f"--cells: {item!r} is not ORDER:FILL")
        out.append((int(order), int(fill)))
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the model and write its results (or --render them again)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cells", type=parse_cells, default=parse_cells("6:50,7:45,8:45"),
                    help="ORDER:FILL pairs (default 6:50,7:45,8:45)")  # fmt: skip
    add_out_arguments(ap, results("kernels") / "impasse_latency")
    a = ap.parse_args(argv)
    if a.render:
        rerender(a.out, render)
        return 0
    doc = made_by("bench_impasse_latency", argv) | {"machine": machine()} | run(a.cells)
    write_results(a.out, doc, render)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
