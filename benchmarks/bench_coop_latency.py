"""The cooperative kernel's latency model against the card's figures: a model, calibrated on
committed card measurements, and what it says of changes not yet made.

Compiles for sm_90 the cooperative kernels of 25x25 and 36x36 (Sirdey's move and the focused
move) and the 9x9 one-thread kernels (Sirdey's, focused-two), walks the SASS of each round
(gpu_anneal.kernels.latency_model) and shares the SM among the warps the card ran. Then:

- calibration: the model against every card figure committed for these kernels (per-chain
  proposals/s of one wave, benchmarks/results/gpu/gpu_throughput*.json), at the acceptance
  those runs had (the native regime: measured here on the CPU runner over the same plateaus,
  the same chains), fitted with one factor: card cycles a modeled cycle takes; each figure's
  error with the factor fitted on the others (leave one out); Nsight Compute's issue rate of
  the 9x9 kernels (benchmarks/results/gpu/ncu/) beside the model's, a check the fit never saw;
- occupancy: per-chain and card rates against warps an SM;
- changes (not built): chains an SM, draws ahead, the prefix count by ballots, candidate
  masks in shared memory, 16 or 8 lanes a chain; each at 25x25 and 36x36 on an H100 SXM and
  an H200 SXM, at the solving acceptance (benchmarks/results/kernels/coop_acceptance.json);
- 49x49 and 64x64: estimates from the structure (no such kernel exists yet);
- the points a card session should measure, with the model's figure for each.

    python -m benchmarks.bench_coop_latency            # writes kernels/coop_latency.json, .md
    python -m benchmarks.bench_coop_latency --render   # the .md again from the .json
"""

from __future__ import annotations

import argparse
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.bench_coop_model import compile_kernel
from benchmarks.machine import git, machine
from benchmarks.paths import results
from cpu_reference.sudoku import rules
from cpu_reference.sudoku.batch import make_batch, run_slice_cpu
from cpu_reference.sudoku.schedules import by_name
from gpu_anneal.kernels import latency_model as lm
from gpu_anneal.kernels import perf_model
from gpu_anneal.kernels import sudoku_coop as coop
from gpu_anneal.kernels.cards import CARDS, HOPPER_TIMING, Card
from gpu_anneal.measure import NATIVE_REGIME, never_solving_puzzle

CARD = "H100 SXM"
OTHER = "H200 SXM"
TIMING = HOPPER_TIMING
KERNELS = (
    ("coop", 5, "sirdey"),
    ("coop", 5, "focused"),
    ("coop", 6, "sirdey"),
    ("coop", 6, "focused"),
    ("thread", 3, "sirdey"),
    ("thread", 3, "focused-two"),
)
LARGE = results("gpu") / "gpu_throughput_large.json"  # the cooperative kernels' card figures
NINE = results("gpu") / "gpu_throughput.json"  # the 9x9 one-thread kernels'
NCU = {
    "sirdey": results("gpu") / "ncu" / "ncu_sirdey.txt",
    "focused-two": results("gpu") / "ncu" / "ncu_focused_two.txt",
}
ACCEPTANCE = results("kernels") / "coop_acceptance.json"
TARGET = 2e6  # one 25x25 chain's proposals/s on a card (the issue's target)
# the round's global reads: a cell's candidates and their count (cand, ncand), and the move
# list (move_cells) for moves that draw from it; their bytes a puzzle decide the L1 hit
ROUND_TABLES = {
    "sirdey": ("cand", "ncand", "move_cells"),
    "focused": ("cand", "ncand"),
    "focused-two": ("cand", "ncand", "move_cells"),
}
# an nth-set-bit select of a cell's candidate mask (6 halvings: mask, POPC, compare, 2 selects,
# shift), as coop_select's nth_bit: its instructions and its dependent latency (cycles)
MASK_SELECT = {"alu": 30, "popc": 6}
MASK_SELECT_CYCLES = 6 * (4 + 6 + 4 + 4)
BALLOT_SEGMENT = {"alu": 3}  # a chain's lanes of the warp's ballot: shift, mask, test
ASSUMED_LARGE_ACCEPTANCE = 0.18  # focused at orders 4-6 measured 0.176-0.196 (assumption)


# ----------------------------------------------------------------------------- inputs


def card_points() -> list[dict]:
    """The committed card figures the model is calibrated on: one wave of each kernel."""
    out = []
    large = json.loads(LARGE.read_text())
    sms = int(large["machine"]["sms"])
    for r in large["cuda"]:
        if r["waves"] == 1 and r["move"] in ("sirdey", "focused"):
            out.append(
                {
                    "kind": "coop",
                    "order": r["order"],
                    "move": r["move"],
                    "chains": r["chains"],
                    "warps_per_sm": r["chains"] // sms,
                    "proposals_per_second": r["proposals_per_second"],
                    "proposals": r["proposals"],
                    "file": f"gpu/{LARGE.name}",
                    "gpu": large["machine"]["gpu"],
                    "date": large["date"],
                }
            )
    nine = json.loads(NINE.read_text())
    for r in nine["cuda"]:
        if (
            r["order"] == 3
            and r["waves"] == 1
            and r["schedule"] == "native regime"
            and r["move"] in ("sirdey", "focused-two")
        ):
            out.append(
                {
                    "kind": "thread",
                    "order": 3,
                    "move": r["move"],
                    "chains": r["chains"],
                    "warps_per_sm": r["chains"] // sms // lm.LANES,
                    "proposals_per_second": r["proposals_per_second"],
                    "proposals": r.get("proposals"),
                    "file": f"gpu/{NINE.name}",
                    "gpu": nine["machine"]["gpu"],
                    "date": nine["date"],
                }
            )
    return out


def ncu_points() -> list[dict]:
    """Nsight Compute's issue rate and achieved warps of the two 9x9 kernels."""
    out = []
    for move, path in NCU.items():
        text = path.read_text()
        issue = float(re.search(r"Issued Warp Per Scheduler\s+([\d.]+)", text).group(1))
        warps = float(re.search(r"Achieved Active Warps Per SM\s+warp\s+([\d.]+)", text).group(1))
        clock = float(re.search(r"SM Frequency\s+Ghz\s+([\d.]+)", text).group(1))
        out.append(
            {
                "move": move,
                "issued_per_scheduler": issue,
                "achieved_warps_per_sm": warps,
                "sm_ghz": clock,
                "file": f"gpu/ncu/{path.name}",
            }
        )
    return out


def native_acceptance(order: int, move: str, proposals_per_chain: float) -> dict:
    """Accepted / proposed on the CPU runner in the card run's regime: the native regime's
    schedule on the never-solving grid, as many plateaus as the card's chains ran."""
    sched = by_name(NATIVE_REGIME, order)
    code = rules.move_code(move, order)
    batch = make_batch(never_solving_puzzle(order)[None], order, sched, 2, seed=1, move=code)
    run_slice_cpu(batch, 1)  # the warm-up slice measure_throughput runs first
    before = batch.ctr[:, [rules.C_PROPOSALS, rules.C_ACCEPTED]].sum(axis=0)
    plateaus = max(1, math.ceil(proposals_per_chain / sched.plateau))
    run_slice_cpu(batch, plateaus)
    after = batch.ctr[:, [rules.C_PROPOSALS, rules.C_ACCEPTED]].sum(axis=0)
    proposed, accepted = (int(x) for x in after - before)
    return {
        "plateaus": plateaus,
        "proposed": proposed,
        "accepted": accepted,
        "acceptance": accepted / proposed,
    }


def table_bytes(order: int, move: str) -> int:
    """Bytes a puzzle of the tables a round reads from global memory (ROUND_TABLES)."""
    code = rules.move_code(move, order)
    batch = make_batch(
        never_solving_puzzle(order)[None], order, by_name("auto", order), 1, seed=1, move=code
    )
    return sum(getattr(batch, name).nbytes for name in ROUND_TABLES[move])


# ----------------------------------------------------------------------------- kernels


@dataclass
class Kernel:
    """One compiled kernel: its round's instructions and ptxas's figures."""

    kind: str
    order: int
    move: str
    listing: object
    record: dict
    instrs: list = field(repr=False)
    constant_bytes: int = 0

    def profile(self, l1_hit: float, edits: lm.Edits = lm.Edits()) -> lm.Profile:
        """The round's profile at an L1 hit fraction, with what-if latencies."""
        return lm.profile(
            self.listing,
            TIMING,
            l1_hit,
            frame_bytes=self.record["stack_frame"],
            constant_bytes=self.constant_bytes,
            edits=edits,
            instrs=self.instrs,
        )

    def shared_per_chain(self) -> int:
        """Shared memory of one chain (cooperative: its block's static shared memory)."""
        return int(self.record["shared_bytes"])

    def occupancy(self, card: Card) -> dict:
        """perf_model's occupancy of the kernel as built on `card`."""
        threads = self.record["launch_bounds"][0]
        return perf_model.occupancy(
            card, self.record["registers"], threads, self.record["shared_bytes"]
        )


def build(kind: str, order: int, move: str) -> Kernel:
    """Compile one kernel and read its round."""
    listing, record, built = compile_kernel(kind, order, move)
    return Kernel(
        kind, order, move, listing, record, lm.round_sequence(listing), built.constant_bank_bytes(3)
    )


def shared_per_sm(chains: int, chain_bytes: int, chains_per_block: int = 1) -> int:
    """Shared memory an SM gives `chains` chains, blocks of `chains_per_block` chains (+1 KiB
    reserved a block)."""
    blocks = math.ceil(chains / chains_per_block)
    return chains * chain_bytes + blocks * coop.SHARED_RESERVED


def warps_fitting(card: Card, chain_bytes: int, chains_per_warp: int, registers: int) -> int:
    """Warps (one block each, `chains_per_warp` chains) an SM holds by shared memory, registers
    and the block limit."""
    per_block = chains_per_warp * chain_bytes + coop.SHARED_RESERVED
    by_shared = card.max_shared_kib_per_sm * 1024 // per_block
    per_warp = math.ceil(registers * lm.LANES / 256) * 256
    return max(0, min(card.max_blocks_per_sm, by_shared, card.registers_per_sm // per_warp))


# ----------------------------------------------------------------------------- calibration


def bare_rate(prof: lm.Profile, card: Card, warps: int, p: float) -> float:
    """The model's per-chain proposals/s before calibration."""
    return lm.rates(prof, card, warps, p)["chain_proposals_per_second"]


def fit_scale(pairs: list[tuple[float, float]]) -> float:
    """The factor s minimising the squared log error of measured against bare / s: the
    geometric mean of bare / measured."""
    return math.exp(sum(math.log(b / m) for m, b in pairs) / len(pairs))


def calibrate(kernels: dict, card: Card) -> dict:
    """Every card figure against the model: bare, calibrated, and left out of its own fit."""
    rows = []
    for pt in card_points():
        k = kernels[(pt["kind"], pt["order"], pt["move"])]
        chain_rate = pt["proposals_per_second"] / pt["chains"]
        if k.kind == "coop":
            acc = native_acceptance(pt["order"], pt["move"], pt["proposals"] / pt["chains"])
            p = acc["acceptance"]
            chains_per_sm = pt["warps_per_sm"]
            h = lm.l1_hit_fraction(
                card,
                shared_per_sm(chains_per_sm, k.shared_per_chain()),
                table_bytes(pt["order"], pt["move"]),
            )
        else:
            acc, p, h = None, 1.0, 1.0  # one puzzle's 9x9 tables: L1
        prof = k.profile(h)
        bare = bare_rate(prof, card, pt["warps_per_sm"], p)
        rows.append(
            {
                **pt,
                "chain_proposals_per_second": chain_rate,
                "native": acc,
                "acceptance": p,
                "l1_hit": h,
                "profile": prof.as_dict(),
                "bare_chain_proposals_per_second": bare,
            }
        )
    scale = fit_scale(
        [(r["chain_proposals_per_second"], r["bare_chain_proposals_per_second"]) for r in rows]
    )
    for j, r in enumerate(rows):
        others = [
            (x["chain_proposals_per_second"], x["bare_chain_proposals_per_second"])
            for i, x in enumerate(rows)
            if i != j
        ]
        s_out = fit_scale(others)
        r["model_chain_proposals_per_second"] = r["bare_chain_proposals_per_second"] / scale
        r["left_out_chain_proposals_per_second"] = r["bare_chain_proposals_per_second"] / s_out
        r["measured_over_model"] = r["chain_proposals_per_second"] / (
            r["bare_chain_proposals_per_second"] / scale
        )
        r["measured_over_left_out"] = r["chain_proposals_per_second"] / (
            r["bare_chain_proposals_per_second"] / s_out
        )
    checks = []
    for pt in ncu_points():
        k = kernels[("thread", 3, pt["move"])]
        prof = k.profile(1.0)
        latency, sched, mio = prof.mixed(1.0)
        out = {}
        for warps in (
            math.floor(pt["achieved_warps_per_sm"]),
            math.ceil(pt["achieved_warps_per_sm"]),
        ):
            t = scale * lm.mva_round_cycles(warps, sched, mio, latency)
            out[warps] = warps * prof.eval.instructions / (lm.SUB_PARTITIONS * t)
        w = pt["achieved_warps_per_sm"]
        lo, hi = math.floor(w), math.ceil(w)
        model = out[lo] + (out[hi] - out[lo]) * (w - lo) if hi != lo else out[lo]
        checks.append(
            {**pt, "model_issued_per_scheduler": model, "bare_issued_per_scheduler": model * scale}
        )
    return {"scale": scale, "rows": rows, "ncu": checks}


# ----------------------------------------------------------------------------- changes


@dataclass
class Variant:
    """A kernel as it might be built: its round's profiles and how many chains an SM holds."""

    name: str
    what: str
    profile_one: lm.Profile  # one puzzle's tables in L1 (the card's throughput runs)
    profile_many: lm.Profile  # a puzzle a chain (a real batch)
    warps: int
    lanes: int = lm.LANES
    needs: str = ""
    profile_many_overlapped: lm.Profile | None = None  # lanes a chain: the passes overlapping


def variants(k: dict, order: int, card: Card) -> list[Variant]:
    """The kernel as built and the changes (module docstring) for the focused move at `order`."""
    foc, sir = k[("coop", order, "focused")], k[("coop", order, "sirdey")]
    rows = order * order
    cells = rows * rows
    chain = foc.shared_per_chain()
    regs = foc.record["registers"]
    built_warps = foc.occupancy(card)["warps_per_sm"]
    tables = table_bytes(order, "focused")
    lat_lds = TIMING.latency["lds"]
    ballots = sum(1 for i in foc.instrs if i.opcode.startswith("SHFL.UP"))
    ahead_foc, ahead_sir = lm.last_rng_step(foc.instrs), lm.last_rng_step(sir.instrs)

    def hit(warps: int, chains_per_warp: int, chain_bytes: int, puzzles: int) -> float:
        chains = warps * chains_per_warp
        used = shared_per_sm(chains, chain_bytes, chains_per_warp)
        return lm.l1_hit_fraction(card, used, puzzles * tables)

    def profiles(kern, h, edits, masks, prefix):
        prof = kern.profile(h, edits)
        if masks:
            prof.eval = lm.added(prof.eval, TIMING, MASK_SELECT)
            prof.latency_eval += MASK_SELECT_CYCLES
        if prefix and kern is foc:
            prof.update = lm.added(
                prof.update,
                TIMING,
                {"vote": ballots, "popc": ballots, "shfl": -ballots},
                mio=-ballots,
            )
        return prof

    def make(name, what, *, ahead=False, prefix=False, masks=False, lanes=32, warps=None, needs=""):
        chain_bytes = chain + (cells * (4 if rows <= 32 else 8) if masks else 0)
        per_warp = lm.LANES // lanes
        if per_warp * chain_bytes > coop.STATIC_SHARED_LIMIT:
            block = f"dynamic shared memory ({per_warp * chain_bytes:,} B a block, above 48 KB)"
            needs = "; ".join(x for x in (needs, block) if x)
        if warps is None:
            warps = warps_fitting(card, chain_bytes, per_warp, regs)
        out = []
        for puzzles in (1, warps * per_warp):
            h = hit(warps, per_warp, chain_bytes, puzzles)
            ed = {}
            if masks:
                ed["unit_latency"] = {"ldg": lat_lds}
            if prefix:
                ed["opcode_latency"] = {"SHFL.UP": TIMING.latency["vote"] + TIMING.latency["popc"]}
            pf = profiles(foc, h, lm.Edits(**ed, ahead=ahead_foc if ahead else 0), masks, prefix)
            if lanes != lm.LANES:
                ps = profiles(
                    sir, h, lm.Edits(**ed, ahead=ahead_sir if ahead else 0), masks, prefix
                )
                out.append(lanes_profile(pf, ps, lanes, rows, overlap=True))
                pf = lanes_profile(pf, ps, lanes, rows)
            out.append(pf)
        if lanes != lm.LANES:  # out: overlapped and not, one puzzle then a puzzle a chain
            return Variant(name, what, out[1], out[3], warps, lanes, needs, out[2])
        return Variant(name, what, out[0], out[1], warps, lanes, needs)

    full = f"{built_warps} chains an SM"
    return [
        make("as built", f"one warp a chain, {full} (shared memory)", warps=built_warps),
        make(
            "32 chains an SM",
            "the round as built, 32 chains an SM",
            warps=32,
            needs=f"<= {(card.max_shared_kib_per_sm * 1024 // 32 - 1024):,} B of shared memory "
            f"a chain (now {chain:,}) and <= 64 registers (now {regs})",
        ),
        make(
            "draws ahead",
            "each round's Philox draws made during the round before",
            ahead=True,
            warps=built_warps,
        ),
        make(
            "prefix by ballots",
            "the conflict set's prefix count by ballots and population "
            "counts instead of a shuffle scan",
            prefix=True,
            warps=built_warps,
        ),
        make(
            "candidate masks in shared memory",
            "a cell's candidates as a bit mask in the "
            "chain's shared memory (its count a POPC, the j-th an nth-bit select) instead of "
            "the global cand / ncand tables",
            masks=True,
        ),
        make("16 lanes a chain", "2 chains a warp", lanes=16),
        make("8 lanes a chain", "4 chains a warp", lanes=8),
        make(
            "ahead + ballots + masks",
            "the three together, one warp a chain",
            ahead=True,
            prefix=True,
            masks=True,
        ),
        make(
            "ahead + ballots + masks, 8 lanes",
            "the three together, 4 chains a warp",
            ahead=True,
            prefix=True,
            masks=True,
            lanes=8,
        ),
    ]


def lanes_profile(
    foc: lm.Profile, sir: lm.Profile, lanes: int, rows: int, overlap: bool = False
) -> lm.Profile:
    """A round with `lanes` lanes a chain and 32 / lanes chains a warp, from the 32-lane
    focused round (estimate, from the structure): the lanes evaluate as now (each its chain's
    proposal), a chain reads its own lanes of the ballot (BALLOT_SEGMENT); the update is
    Sirdey's round's (the pick, the move made, the bookkeeping) plus the focused move's
    per-row work (its update beyond Sirdey's: conflict-set rows and their prefix count) run
    ceil(rows / lanes) / ceil(rows / 32) times: its instructions always, its latency too
    unless `overlap` (the passes' latencies overlapping entirely: the lower end)."""
    ratio = math.ceil(rows / lanes) / math.ceil(rows / lm.LANES)
    row_part = lm.difference(foc.update, sir.update)
    row_latency = max(0.0, foc.latency_update - sir.latency_update)
    return lm.Profile(
        kernel=f"{foc.kernel} ({lanes} lanes a chain, estimate)",
        chain_per_warp=True,
        l1_hit=foc.l1_hit,
        latency_eval=foc.latency_eval + 4.0 * sum(BALLOT_SEGMENT.values()),
        latency_update=sir.latency_update + (1.0 if overlap else ratio) * row_latency,
        eval=lm.added(foc.eval, TIMING, BALLOT_SEGMENT),
        update=lm.total(sir.update, lm.scaled(row_part, ratio)),
        waits={},
        lanes=lanes,
    )


def evaluate(v: Variant, card: Card, p_solve: float, p_native: float, scale: float) -> dict:
    """A variant's modeled rates on a card: native regime and solving acceptance, one puzzle
    and a puzzle a chain."""
    out = {
        "name": v.name,
        "what": v.what,
        "needs": v.needs,
        "warps_per_sm": v.warps,
        "lanes": v.lanes,
        "chains_per_sm": v.warps * (lm.LANES // v.lanes),
    }
    if v.warps < 1:
        return out | {"fits": False}
    for key, prof, p in (
        ("native_one", v.profile_one, p_native),
        ("solving_one", v.profile_one, p_solve),
        ("solving_many", v.profile_many, p_solve),
    ):
        r = lm.rates(prof, card, v.warps, p, scale)
        out[key] = {
            k: r[k]
            for k in (
                "chain_proposals_per_second",
                "card_proposals_per_second",
                "round_us",
                "bound",
                "proposals_per_round",
            )
        }
    if v.profile_many_overlapped is not None:
        r = lm.rates(v.profile_many_overlapped, card, v.warps, p_solve, scale)
        out["solving_many_overlapped"] = {
            "chain_proposals_per_second": r["chain_proposals_per_second"]
        }
    out["fits"] = True
    out["meets_target"] = out["solving_many"]["chain_proposals_per_second"] >= TARGET
    return out


def occupancy_curve(prof: lm.Profile, card: Card, p: float, scale: float, warps: list[int]):
    """Per-chain and card rates against warps an SM."""
    return [
        {
            k: r[k]
            for k in (
                "warps_per_sm",
                "chains_per_sm",
                "chain_proposals_per_second",
                "card_proposals_per_second",
                "round_us",
                "bound",
            )
        }
        for r in (lm.rates(prof, card, w, p, scale) for w in warps)
    ]


# ----------------------------------------------------------------------------- 49x49, 64x64


def large_shared_bytes(order: int) -> int:
    """One chain's shared memory at a larger order, by the cooperative kernel's layout
    (sudoku_coop: values a byte a cell, 3 N^2 + 3 N + 35 board words of 8 bytes, thresholds
    at most 3 N words of 4 bytes: an upper estimate)."""
    n2 = order * order
    return n2 * n2 + 8 * (3 * n2 * n2 + 3 * n2 + 35) + 4 * 3 * n2


def large_orders(k: dict, card: Card, scale: float) -> list[dict]:
    """49x49 and 64x64 from the 36x36 focused round (estimates from the structure): the same
    word size (64 bits) and two passes of 32 rows, one more halving of the conflict-set row
    search at 64 rows (a shared load and 4 ALU ops), the chains an SM by
    shared memory, the tables' L1 hit by what the carve-out leaves, acceptance
    ASSUMED_LARGE_ACCEPTANCE."""
    foc = k[("coop", 6, "focused")]
    out = []
    for order in (7, 8):
        rows = order * order
        chain = large_shared_bytes(order)
        warps = warps_fitting(card, chain, 1, foc.record["registers"])
        tables = rows * rows * (rows + 4)  # cand (a byte a candidate) and ncand (4 bytes)
        h = lm.l1_hit_fraction(card, shared_per_sm(max(1, warps), chain), max(1, warps) * tables)
        for name, edits, extra in (
            ("as built (structure)", lm.Edits(), False),
            (
                "ahead + ballots",
                lm.Edits(
                    opcode_latency={"SHFL.UP": TIMING.latency["vote"] + TIMING.latency["popc"]},
                    ahead=lm.last_rng_step(foc.instrs),
                ),
                True,
            ),
        ):
            prof = foc.profile(h, edits)
            if rows > 63:
                prof.eval = lm.added(prof.eval, TIMING, {"lds": 1, "alu": 4})
                prof.latency_eval += TIMING.latency["lds"] + 4 * TIMING.latency["alu"]
            if extra:
                n = sum(1 for i in foc.instrs if i.opcode.startswith("SHFL.UP"))
                prof.update = lm.added(
                    prof.update, TIMING, {"vote": n, "popc": n, "shfl": -n}, mio=-n
                )
            row = {
                "order": order,
                "grid": f"{rows}x{rows}",
                "variant": name,
                "shared_bytes_a_chain": chain,
                "warps_per_sm": warps,
                "l1_hit": h,
                "acceptance_assumed": ASSUMED_LARGE_ACCEPTANCE,
            }
            if warps >= 1:
                r = lm.rates(prof, card, warps, ASSUMED_LARGE_ACCEPTANCE, scale)
                row |= {
                    x: r[x]
                    for x in (
                        "chain_proposals_per_second",
                        "card_proposals_per_second",
                        "round_us",
                        "bound",
                    )
                }
            out.append(row)
    return out


# ----------------------------------------------------------------------------- the run


def run() -> dict:
    """Every build, the calibration, the changes; the results document."""
    card = CARDS[CARD]
    kernels = {(kind, order, move): build(kind, order, move) for kind, order, move in KERNELS}
    cal = calibrate(kernels, card)
    scale = cal["scale"]
    pooled = json.loads(ACCEPTANCE.read_text())["pooled"]
    native = {(r["order"], r["move"]): r["acceptance"] for r in cal["rows"] if r["kind"] == "coop"}
    changes = {}
    curves = {}
    for order in (5, 6):
        p_solve = pooled[f"{order}:focused"]["acceptance"]
        p_native = native[(order, "focused")]
        for name in (CARD, OTHER):
            c = CARDS[name]
            changes[f"{order}:{name}"] = [
                evaluate(v, c, p_solve, p_native, scale) for v in variants(kernels, order, c)
            ]
        foc = kernels[("coop", order, "focused")]
        built = foc.occupancy(card)["warps_per_sm"]
        warps = sorted({1, 2, 4, 8, 16, built, 32})
        curves[f"coop:{order}:focused"] = {
            "acceptance": p_solve,
            "native_acceptance": p_native,
            "one_puzzle": occupancy_curve(foc.profile(1.0), card, p_solve, scale, warps),
            "native": occupancy_curve(foc.profile(1.0), card, p_native, scale, warps),
        }
    nine = kernels[("thread", 3, "focused-two")]
    curves["thread:3:focused-two"] = {
        "acceptance": None,
        "one_puzzle": occupancy_curve(
            nine.profile(1.0), card, 1.0, scale, [1, 2, 4, 8, 16, 28, 32]
        ),
    }
    return {
        "what": "model: round times and proposals/s computed from the compiled code (SASS) and "
        "instruction latencies, calibrated with one factor on committed card figures; nothing "
        "here ran on a GPU",
        "command": "python -m benchmarks.bench_coop_latency",
        "arch": "sm_90",
        "card": CARD,
        "git_commit": git("rev-parse", "HEAD"),
        "git_changed_files": [line[3:] for line in git("status", "--porcelain").splitlines()],
        "machine": machine("numba"),
        "timing": TIMING.as_dict(),
        "cards": {n: CARDS[n].as_dict() for n in (CARD, OTHER)},
        "target_chain_proposals_per_second": TARGET,
        "kernels": {
            f"{kind}:{order}:{move}": {
                "registers": k.record["registers"],
                "shared_bytes": k.record["shared_bytes"],
                "launch_bounds": k.record["launch_bounds"],
                "round_instructions": len(k.instrs),
                "occupancy": k.occupancy(card),
                "profile_one_puzzle": k.profile(1.0).as_dict(),
            }
            for (kind, order, move), k in kernels.items()
        },
        "calibration": cal,
        "occupancy": curves,
        "changes": changes,
        "large_orders": large_orders(kernels, card, scale),
        "card_session": card_session(kernels, card, scale, native, pooled),
    }


def card_session(kernels: dict, card: Card, scale: float, native: dict, pooled: dict) -> list:
    """What a card session should measure, and the model's figure for each: the per-chain rate
    at 1 chain, 32 chains and a full wave (9x9 focused-two one-thread; 25x25 focused
    cooperative, native regime and the solving acceptance)."""
    out = []
    nine = kernels[("thread", 3, "focused-two")]
    full_nine = nine.occupancy(card)["warps_per_sm"]
    for label, warps in (
        ("1 chain", 1),
        ("32 chains (one warp)", 1),
        (f"a full wave ({full_nine} warps an SM)", full_nine),
    ):
        r = lm.rates(nine.profile(1.0), card, warps, 1.0, scale)
        out.append(
            {
                "kernel": "9x9 focused-two, one chain a thread",
                "chains": label,
                "warps_per_sm": warps,
                "regime": "native regime",
                "model_chain_proposals_per_second": r["chain_proposals_per_second"],
            }
        )
    foc = kernels[("coop", 5, "focused")]
    full = foc.occupancy(card)["warps_per_sm"]
    for regime, p in (
        ("native regime", native[(5, "focused")]),
        ("solving acceptance", pooled["5:focused"]["acceptance"]),
    ):
        for label, warps in (
            ("1 chain", 1),
            ("32 chains (32 SMs, one each)", 1),
            (f"a full wave ({full} chains an SM)", full),
        ):
            r = lm.rates(foc.profile(1.0), card, warps, p, scale)
            out.append(
                {
                    "kernel": "25x25 focused, cooperative",
                    "chains": label,
                    "warps_per_sm": warps,
                    "regime": f"{regime} (p = {p:.3f})",
                    "model_chain_proposals_per_second": r["chain_proposals_per_second"],
                }
            )
    return out


# ----------------------------------------------------------------------------- markdown


def _m(x: float | None) -> str:
    return "-" if x is None else f"{x / 1e6:.2f}"


def _g(x: float | None) -> str:
    return "-" if x is None else f"{x / 1e9:.2f}"


def markdown(doc: dict) -> str:
    """The tables of the results document."""
    cal = doc["calibration"]
    s = cal["scale"]
    lines = [
        "# The cooperative kernel's latency model (sm_90): a model, calibrated on card figures",
        "",
        "Computed from the compiled code (`python -m benchmarks.bench_coop_latency`, "
        "gpu_anneal/kernels/latency_model.py, docs/performance-model.md); never run on a "
        "card. Each round's SASS is walked in order with the instruction latencies of "
        "gpu_anneal/kernels/cards.py (sources there), and the SM is shared among its warps by "
        "Mean Value Analysis. One factor calibrates it: card cycles a modeled cycle takes.",
        "",
        f"- commit `{doc['git_commit'][:12]}`; generated {doc['machine'].get('date')} on "
        f"{doc['machine'].get('cpu_model')} ({doc['machine'].get('cores')} cores)",
        f"- calibration factor: **{s:.3f}** card cycles a modeled cycle (fitted on the "
        f"{len(cal['rows'])} card figures below)",
        "",
        "## Calibration: the card's figures against the model",
        "",
        "Per-chain proposals/s of one wave as the card measured it. The cooperative runs were "
        "in the native regime (hot: its acceptance p, measured here on the CPU runner over the "
        "same plateaus, is nearly 1, so a round makes E(p) ~ 1 proposal), which is why their "
        "round time is the chain's time a proposal.",
        "",
        "| kernel | card (file, date) | warps an SM | p | E | L1 hit | round, model (us) | "
        "measured M/s | bare model M/s | model M/s | measured / model | measured / model "
        "fitted without it |",
        "|" + "---|" * 12,
    ]
    for r in cal["rows"]:
        kern = f"{r['order'] ** 2}x{r['order'] ** 2} {r['move']}, " + (
            "cooperative" if r["kind"] == "coop" else "one-thread"
        )
        prof = lm.Profile.from_dict(r["profile"])
        rr = lm.rates(prof, CARDS[CARD], r["warps_per_sm"], r["acceptance"], s)
        lines.append(
            f"| {kern} | {r['gpu']} (`{r['file']}`, {r['date'][:10]}) | {r['warps_per_sm']} | "
            f"{r['acceptance']:.4f} | {rr['proposals_per_round']:.2f} | {r['l1_hit']:.2f} | "
            f"{rr['round_us']:.2f} | {_m(r['chain_proposals_per_second'])} | "
            f"{_m(r['bare_chain_proposals_per_second'])} | "
            f"{_m(r['model_chain_proposals_per_second'])} | {r['measured_over_model']:.2f} | "
            f"{r['measured_over_left_out']:.2f} |"
        )
    left = [r["measured_over_left_out"] for r in cal["rows"]]
    worst = max(cal["rows"], key=lambda r: abs(math.log(r["measured_over_left_out"])))
    lines += [
        "",
        f"Left out of its own fit, each figure's measured / model lies in {min(left):.2f}-"
        f"{max(left):.2f} (worst: {worst['order'] ** 2}x{worst['order'] ** 2} "
        f"{worst['move']}). Without the factor the model runs {s:.2f}x as fast as the card "
        "(geometric mean): the instruction figures of cards.py are "
        "microbenchmark figures for back-to-back instructions, and the card loses more than "
        "them (a check below); the factor is the same for rounds bound by latency (36x36, 6 "
        "warps an SM) and by issue (25x25, 9x9), so it scales the model, not one of its terms.",
        "",
        "Check the fit never saw (Nsight Compute, `gpu/ncu/`, SM clock locked by the profiler): "
        "warp-instructions issued a scheduler a clock, measured and modeled at the achieved "
        "warps:",
        "",
        "| 9x9 kernel | achieved warps an SM | SM clock (GHz) | measured | model | bare model |",
        "|---|---|---|---|---|---|",
    ]
    for c in cal["ncu"]:
        lines.append(
            f"| {c['move']} | {c['achieved_warps_per_sm']:.1f} | {c['sm_ghz']:.2f} | "
            f"{c['issued_per_scheduler']:.2f} | {c['model_issued_per_scheduler']:.2f} | "
            f"{c['bare_issued_per_scheduler']:.2f} |"
        )
    prof = lm.Profile.from_dict(doc["kernels"]["coop:5:focused"]["profile_one_puzzle"])
    waits = sorted(prof.waits.items(), key=lambda kv: -kv[1])
    lines += [
        "",
        "## Where a 25x25 focused round goes (one warp alone, one puzzle's tables in L1)",
        "",
        f"Walked: {prof.latency_eval:.0f} cycles to the ballot, "
        f"{prof.latency_update:.0f} after it ({prof.eval.instructions} + "
        f"{prof.update.instructions} instructions); the warp waits on (cycles, modeled, "
        "before the factor): " + ", ".join(f"{u} {c:.0f}" for u, c in waits[:8]) + ".",
        "",
        "## Occupancy (H100 SXM, modeled, calibrated)",
        "",
    ]
    for key, c in doc["occupancy"].items():
        kind, order, move = key.split(":")
        side = int(order) ** 2
        p = c["acceptance"]
        title = f"{side}x{side} {move}, " + ("cooperative" if kind == "coop" else "one-thread")
        lines.append(f"{title}" + (f" (solving acceptance p = {p:.3f})" if p else "") + ":")
        lines += [
            "",
            "| warps an SM | chains an SM | chain M/s | card G/s | round (us) | bound |",
            "|---|---|---|---|---|---|",
        ]
        for r in c["one_puzzle"]:
            lines.append(
                f"| {r['warps_per_sm']} | {r['chains_per_sm']} | "
                f"{_m(r['chain_proposals_per_second'])} | {_g(r['card_proposals_per_second'])} "
                f"| {r['round_us']:.2f} | {r['bound']} |"
            )
        lines.append("")
    lines += [
        "## Changes (not built): modeled chain proposals/s",
        "",
        "Focused move (the default at 25x25 and 36x36). Native: the card's throughput regime "
        "(p ~ 1), one puzzle; solving: the acceptance of real solves "
        f"(`{ACCEPTANCE.name}`), one puzzle's tables in L1, or a puzzle a chain (the tables "
        "from L2, as in a batch). Meets: one 25x25 chain >= 2 M proposals/s with a puzzle a "
        "chain. H100 SXM and H200 SXM model alike: the same GH100 SM, clock and caches; the "
        "H200's HBM3e only serves what misses L2, which no round here does.",
        "",
    ]
    for key, rows in doc["changes"].items():
        order, name = key.split(":")
        side = int(order) ** 2
        lines += [
            f"{side}x{side} on {name}:",
            "",
            "| change | chains an SM | native M/s | solving, one puzzle M/s | solving, a puzzle "
            "a chain M/s | card G/s (a puzzle a chain) | round (us) | bound | meets 2 M/s | "
            "needs |",
            "|" + "---|" * 10,
        ]
        for r in rows:
            if not r.get("fits"):
                lines.append(f"| {r['name']} | 0 | - | - | - | - | - | - | no | does not fit |")
                continue
            many = r["solving_many"]
            meets = ("yes" if r["meets_target"] else "no") if side == 25 else "-"
            over = r.get("solving_many_overlapped")
            over = f" ({_m(over['chain_proposals_per_second'])} if passes overlap)" if over else ""
            lines.append(
                f"| {r['name']} ({r['what']}) | {r['chains_per_sm']} | "
                f"{_m(r['native_one']['chain_proposals_per_second'])} | "
                f"{_m(r['solving_one']['chain_proposals_per_second'])} | "
                f"{_m(many['chain_proposals_per_second'])}{over} | "
                f"{_g(many['card_proposals_per_second'])} | {many['round_us']:.2f} | "
                f"{many['bound']} | {meets} | {r['needs'] or '-'} |"
            )
        lines.append("")
    lines += [
        "## 49x49 and 64x64: estimates from the structure (no such kernel yet)",
        "",
        "From the 36x36 focused round (64-bit words, two passes of 32 rows), one more halving "
        "of the row search at 64 rows, the tables mostly from L2 (a puzzle a chain), chains an "
        "SM by shared memory "
        "(dynamic shared memory: a chain needs more than 48 KB), acceptance assumed "
        f"{ASSUMED_LARGE_ACCEPTANCE} (the focused move measured 0.176-0.196 at orders 4-6).",
        "",
        "| grid | variant | shared a chain (B) | chains an SM | chain M/s | card G/s | round (us) "
        "| bound |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in doc["large_orders"]:
        lines.append(
            f"| {r['grid']} | {r['variant']} | {r['shared_bytes_a_chain']:,} | "
            f"{r['warps_per_sm']} | {_m(r.get('chain_proposals_per_second'))} | "
            f"{_g(r.get('card_proposals_per_second'))} | "
            f"{r.get('round_us', float('nan')):.2f} | {r.get('bound', '-')} |"
        )
    lines += [
        "",
        "## What a card session should measure (the model's figure beside each)",
        "",
        "Per-chain proposals/s against occupancy, with the acceptance of the same run "
        "(accepted / proposed from the counters), on the card the model names:",
        "",
        "| kernel | chains | warps an SM | regime | model chain M/s |",
        "|---|---|---|---|---|",
    ]
    for r in doc["card_session"]:
        lines.append(
            f"| {r['kernel']} | {r['chains']} | {r['warps_per_sm']} | {r['regime']} | "
            f"{_m(r['model_chain_proposals_per_second'])} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    """Build, model, write the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(results("kernels") / "coop_latency"))
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
    print(f"wrote {out}.md" if args.render else f"wrote {out}.json and .md")


if __name__ == "__main__":
    main()
