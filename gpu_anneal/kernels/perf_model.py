"""A performance model read from compiled code: modeled proposals per second on named cards.

This is a model, not a measurement: nothing here runs on a GPU. Every figure it gives is computed
from the SASS of a kernel's move loop (gpu_anneal.kernels.sass), ptxas's resource report and the
card figures of gpu_anneal.kernels.cards, under the assumptions below.

Glossary:
    I        instructions per proposal: the static count of the move loop's body (sass.py)
    W        L1 wavefronts per warp-proposal: what one trip of one warp around the move loop
             costs the SM's memory pipeline (sum over the body's memory instructions, all paths)
    K        entries an index may range over (an array's size in units of the access width)
    D(K)     expected distinct entries among 32 lanes' uniform random indices into K entries:
             D(K) = K * (1 - (1 - 1/K)^32); D(1) = 1, D(K) -> 32 as K grows
    h        latency-hiding factor of the resident warps (occupancy below)

Issue model. An SM issues 4 warp-instructions per clock (4 schedulers x 1). A warp going once
around the move loop makes E proposals for I warp-instructions, so the SM's issue-bound rate is
4 x E / I proposals per clock. One chain a thread: E = 32 (one proposal a lane). The
cooperative kernels (sudoku-coop-*, one chain a warp) go once around their round loop per warp
round: its 32 lanes evaluate 32 consecutive proposals of one chain and the first accepted one
ends the round, so at acceptance p (accepted / proposed, measured on the CPU runner:
gpu_anneal.kernels.sudoku_coop.ACCEPTANCE)

    E(p) = sum over j = 1..32 of (1 - p)^(j - 1) = (1 - (1 - p)^32) / p   (32 at p = 0)

proposals a round (proposals_per_round). The round loop's static count takes the accepted
path's work (the move made, the conflict set updated) every round: an upper bound where
rounds end without acceptance.

L1 model. The SM's L1/shared-memory pipeline serves one wavefront per clock; the L1-bound rate
is E / W proposals per clock per SM. Per warp-instruction, in units of the access width
(w = max(1, bytes / 4) 32-bit words per lane):

    local (LDL, STL)    local memory is interleaved by 32-bit word across lanes: word j of
                        every lane of a warp lies in one 128-byte line. An address the same in
                        every lane (a warp-uniform register plus an immediate, e.g. [R1+0x10])
                        costs w wavefronts. A per-lane index into an array of K entries touches
                        D(K) distinct lines per word, so costs D(K) x w wavefronts. The array
                        is not visible in SASS: K = stack frame bytes / max(4, bytes), the
                        largest array the index could range over (a conservative choice).
    shared (LDS, STS)   a [word][thread] layout puts the lanes on distinct banks: w wavefronts
                        (1 for 32-bit, 2 for 64-bit, 4 for 128-bit), whatever the index.
                        The cooperative kernels' lanes read words of one chain: an address the
                        same in every lane is one broadcast (w); a per-lane address hits random
                        banks, the fullest of 32 banks taking B = expected_max_load(32, 32)
                        (about 3.5) of the 32 words, so B x w wavefronts.
    global (LDG, STG,   assumption: the move loop's global accesses read small per-puzzle
    LD, ST, atomics)    tables (move lists, candidate lists) that stay in L1; a per-lane index
                        touches GLOBAL_LINES = 4 distinct 128-byte lines (the 9x9 move list is
                        162 B = 2 lines); a warp-uniform address costs 1.
    constant (LDC       the constant cache serves one address at a time: a per-lane index into
    with a per-lane     a bank of K entries (K = ptxas's cmem[3] bytes / access bytes; 32 when
    index)              unknown) serializes into D(K) requests, counted with the wavefronts
                        above (one memory pipeline per SM in this model); a uniform one costs 1.

Occupancy. Resident blocks per SM = the least of: the card's blocks per SM; its threads per SM
/ threads per block; registers per SM / (warps per block x the per-warp allocation, ptxas's
registers per thread x 32 rounded up to 256); shared memory per SM / (ptxas's static shared
bytes + dynamic shared bytes + 1 KiB reserved per block). Threads per block are the launch
bounds' (the Sudoku kernels: 128) or the grid-puzzle runner's default. Occupancy = resident warps
/ the card's maximum warps.

How occupancy scales the rate: h = min(1, resident warps / 32). 32 warps per SM (8 per
scheduler) are assumed to hide the latency of the move loop's dependent loads and arithmetic;
fewer warps scale both bounds down in proportion. A kernel that does not fit (0 blocks) models
to 0.

    modeled proposals/s = SMs x boost clock x min(4 x E / I, E / W) x h
    bound               = "issue" when 4 x E / I <= E / W, else "l1"

Per chain (cooperative kernels, one chain a warp): with the card full, each resident warp gets
its share, chain rate = modeled proposals/s / (SMs x resident warps an SM)
(chain_proposals_per_second); a chain alone on the card, if its warp issued one instruction
every lone_warp_cycles clocks (an assumption standing for the latency of dependent
instructions and shared loads that no other warp hides), makes boost clock x E / (I x
lone_warp_cycles) proposals a second (lone_chain_proposals_per_second).

What the model leaves out: L1 misses (the record gives the local bytes resident per SM beside
the card's L1 size, `local_fits_l1`), instruction-cache misses, branch divergence (all paths
are counted, which over-counts a divergent warp's work only when lanes take different paths),
dual-issue limits of particular pipes (e.g. POPC, 64-bit shifts and MUFU issue at a lower rate
than simple integer ops), and the time outside the move loop (plateau bookkeeping, restarts).
Counts read from an sm_90 build are applied to every card; build with --arch sm_80 for A100-
specific code.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

from cpu_reference.sudoku.moves import MOVE_NAMES, MOVES
from gpu_anneal.kernels import sass
from gpu_anneal.kernels.cards import CARDS, Card
from gpu_anneal.kernels.launch import GRID_THREADS_PER_BLOCK
from gpu_anneal.kernels.ptx import find_ptxas

LANES = 32
LINE_BYTES = 128
RESERVED_SHARED_PER_BLOCK = 1024


@dataclass(frozen=True)
class Assumptions:
    """The model's free parameters (see the module docstring)."""

    l1_wavefronts_per_clock: float = 1.0
    global_lines: float = 4.0
    warps_to_hide_latency: int = 32
    register_granularity: int = 256
    lone_warp_cycles: float = 8.0

    def as_dict(self) -> dict:
        """Plain dict for JSON."""
        return asdict(self)


DEFAULT = Assumptions()


def distinct(k: float, lanes: int = LANES) -> float:
    """D(K): expected distinct values among `lanes` uniform draws from k values."""
    if k <= 1:
        return 1.0
    return k * (1.0 - (1.0 - 1.0 / k) ** lanes)


@cache
def expected_max_load(balls: int = LANES, bins: int = LANES) -> float:
    """Expected count in the fullest of `bins` bins after `balls` uniform random throws (exact:
    sum over m of P(max >= m), each P(max < m) by counting the placements with every bin below
    m)."""
    total = bins**balls
    expected = 0.0
    for m in range(1, balls + 1):
        # placements of the balls with every bin holding fewer than m: a recurrence over bins
        ways = [1] + [0] * balls  # ways[t]: t balls placed in the bins so far
        for _ in range(bins):
            ways = [
                sum(ways[t - j] * math.comb(t, j) for j in range(min(m - 1, t) + 1))
                for t in range(balls + 1)
            ]
        expected += 1.0 - ways[balls] / total
    return expected


def proposals_per_round(p: float, lanes: int = LANES) -> float:
    """E(p): proposals one warp round of a cooperative chain makes at acceptance p."""
    if p <= 0:
        return float(lanes)
    return (1.0 - (1.0 - p) ** lanes) / p


def wavefronts(
    ins: sass.Instr,
    uniform: set[int],
    frame_bytes: int,
    constant_bytes: int,
    a: Assumptions = DEFAULT,
    shared_chain: bool = False,
) -> float:
    """Modeled L1 wavefronts (or constant-cache requests) of one warp-instruction;
    `shared_chain`: the warp's lanes share one chain's state (the cooperative kernels)."""
    cls = sass.classify(ins)
    nbytes = sass.access_bytes(ins)
    words = max(1, nbytes // 4)
    lane = sass.per_lane(ins, uniform)
    if "local_loads" in cls or "local_stores" in cls:
        if not lane:
            return float(words)
        return distinct(max(1, frame_bytes // max(4, nbytes))) * words
    if "shared_loads" in cls or "shared_stores" in cls:
        if shared_chain and lane:
            return expected_max_load() * words
        return float(words)
    if {"global_loads", "global_stores", "global_atomics"} & set(cls):
        return a.global_lines if lane else 1.0
    if "constant_loads_indexed" in cls:
        if not lane:
            return 1.0
        return distinct(constant_bytes // nbytes) if constant_bytes else float(LANES)
    return 0.0


def loop_wavefronts(
    instrs: list[sass.Instr],
    uniform: set[int],
    frame_bytes: int,
    constant_bytes: int,
    a: Assumptions = DEFAULT,
    shared_chain: bool = False,
) -> float:
    """W: modeled wavefronts of one warp's trip around a loop body (all paths)."""
    return sum(wavefronts(i, uniform, frame_bytes, constant_bytes, a, shared_chain) for i in instrs)


def occupancy(
    card: Card,
    registers: int,
    threads_per_block: int,
    shared_bytes: int = 0,
    dynamic_shared_bytes: int = 0,
    a: Assumptions = DEFAULT,
) -> dict:
    """Resident blocks and warps per SM, the occupancy and the resource that limits it."""
    warps_per_block = math.ceil(threads_per_block / LANES)
    per_warp = math.ceil(max(1, registers) * LANES / a.register_granularity)
    per_warp *= a.register_granularity
    per_block_shared = shared_bytes + dynamic_shared_bytes + RESERVED_SHARED_PER_BLOCK
    limits = {
        "blocks": card.max_blocks_per_sm,
        "threads": card.max_threads_per_sm // threads_per_block,
        "registers": (card.registers_per_sm // per_warp) // warps_per_block,
        "shared": (card.max_shared_kib_per_sm * 1024) // per_block_shared,
    }
    blocks = min(limits.values())
    limiter = min(limits, key=lambda k: (limits[k], list(limits).index(k)))
    warps = blocks * warps_per_block
    return {
        "blocks_per_sm": blocks,
        "warps_per_sm": warps,
        "occupancy": warps / card.max_warps_per_sm,
        "limited_by": limiter,
    }


def model_card(
    card: Card,
    instructions: int,
    l1_wavefronts: float,
    occ: dict,
    local_bytes_per_thread: int = 0,
    threads_per_block: int = 128,
    a: Assumptions = DEFAULT,
    per_trip: float = LANES,
    chain_per_warp: bool = False,
) -> dict:
    """Modeled proposals/s of a move loop on one card (formula in the module docstring):
    `per_trip` proposals a warp's trip around it (E); `chain_per_warp` adds the per-chain
    figures of a cooperative kernel."""
    clock = card.boost_mhz * 1e6
    issue = card.issue_per_clock_per_sm * per_trip / instructions
    l1 = a.l1_wavefronts_per_clock * per_trip / l1_wavefronts if l1_wavefronts > 0 else math.inf
    hide = min(1.0, occ["warps_per_sm"] / a.warps_to_hide_latency)
    rate = card.sms * clock * min(issue, l1) * hide
    resident_local = occ["blocks_per_sm"] * threads_per_block * local_bytes_per_thread
    chain = {}
    if chain_per_warp:
        chains = card.sms * occ["warps_per_sm"]
        chain = {
            "chain_proposals_per_second": rate / chains if chains else 0.0,
            "lone_chain_proposals_per_second": (
                clock * per_trip / (instructions * a.lone_warp_cycles)
            ),
        }
    return {
        "proposals_per_second": rate,
        "bound": "issue" if issue <= l1 else "l1",
        "occupancy": occ["occupancy"],
        "blocks_per_sm": occ["blocks_per_sm"],
        "warps_per_sm": occ["warps_per_sm"],
        "occupancy_limited_by": occ["limited_by"],
        "latency_hiding": hide,
        "issue_bound_proposals_per_second": card.sms * clock * issue * hide,
        "l1_bound_proposals_per_second": card.sms * clock * l1 * hide,
        "local_bytes_resident_per_sm": resident_local,
        "local_fits_l1": resident_local <= card.l1_shared_kib_per_sm * 1024,
        "proposals_per_warp_trip": per_trip,
        **chain,
    }


def default_threads_per_block(launch_bounds) -> int:
    """Threads per block: the launch bounds', else the grid-puzzle runner's default."""
    if launch_bounds:
        return int(launch_bounds[0])
    return GRID_THREADS_PER_BLOCK


def model_listing(
    listing: sass.Listing,
    registers: int,
    frame_bytes: int,
    shared_bytes: int,
    constant_bytes: int,
    threads_per_block: int,
    cards: dict[str, Card] = CARDS,
    a: Assumptions = DEFAULT,
    acceptance: float | None = None,
) -> dict:
    """The record's `model` object: {card name: modeled figures}; {} with no move loop.
    `acceptance` (cooperative kernels): the measured p a round's proposals follow from."""
    body = listing.move_instrs()
    if not body:
        return {}
    coop = acceptance is not None
    w = loop_wavefronts(body, listing.uniform, frame_bytes, constant_bytes, a, shared_chain=coop)
    per_trip = proposals_per_round(acceptance) if coop else float(LANES)
    out = {}
    for name, card in cards.items():
        occ = occupancy(card, registers, threads_per_block, shared_bytes, 0, a)
        out[name] = model_card(
            card, len(body), w, occ, frame_bytes, threads_per_block, a, per_trip, coop
        )
        out[name]["l1_wavefronts_per_warp_proposal"] = w
        if coop:
            out[name]["acceptance"] = acceptance
    return out


@dataclass
class Analysis:
    """One kernel's compiled code and what was read from it."""

    cubin: bytes
    sass_text: str
    sass: dict
    model: dict


def coop_acceptance(kernel: str, size) -> float | None:
    """The measured acceptance of a cooperative kernel's move at its order (None: another
    kernel, or no measurement)."""
    if not kernel.startswith("sudoku-coop"):
        return None
    from gpu_anneal.kernels.sudoku_coop import ACCEPTANCE  # late: numba.cuda, ~0.19 s

    move = kernel.removeprefix("sudoku-coop").removeprefix("-") or "sirdey"
    own = ACCEPTANCE.get((int(size), MOVE_NAMES[move]))
    rates = MOVES[move].rates  # a move with no measurement of its own: its declared stand-in
    if own is None and rates is not None and not any(MOVE_NAMES[move] == m for _, m in ACCEPTANCE):
        return ACCEPTANCE.get((int(size), MOVE_NAMES[rates]))
    return own


def analyse(
    ptx: str,
    kernel: str,
    arch: str,
    record: dict,
    ptxas: str,
    nvdisasm: str,
    a: Assumptions = DEFAULT,
) -> Analysis:
    """Assemble, disassemble and model one kernel; `record` holds ptxas's figures."""
    built = sass.assemble(ptx, arch, ptxas)
    text = sass.disassemble(built.cubin, nvdisasm)
    listing = sass.read_listing(text, kernel)
    model = model_listing(
        listing,
        registers=int(record.get("registers") or 0),
        frame_bytes=int(record.get("stack_frame") or 0),
        shared_bytes=int(record.get("shared_bytes") or 0),
        constant_bytes=built.constant_bank_bytes(3),
        threads_per_block=default_threads_per_block(record.get("launch_bounds")),
        a=a,
        acceptance=coop_acceptance(kernel, record.get("size")),
    )
    return Analysis(built.cubin, text, listing.summary(), model)


def keep_stem(row: dict) -> str:
    """File stem of a record's kept files: KERNEL-SIZE, as in the JSON record."""
    return f"{row['kernel']}-{row['size']}"


def record_reader(arch: str, keep: Path | None = None, a: Assumptions = DEFAULT) -> Callable:
    """The callback for ptx.kernel_table: adds `sass` and `model` to each compiled record.

    InputError at once when nvdisasm is missing. With `keep`, writes keep/KERNEL-SIZE.ptx,
    .cubin and .sass. A failure reading one kernel's SASS is recorded in its `sass` object.
    """
    nvdisasm = sass.require_nvdisasm()
    ptxas = find_ptxas()

    def read(row: dict, ptx: str) -> None:
        stem = keep_stem(row)
        if keep is not None:
            (keep / f"{stem}.ptx").write_text(ptx)
        if ptxas is None:
            row["sass"] = {"error": "no ptxas: pip install '.[ptx]' (nvidia-cuda-nvcc)"}
            return
        try:
            found = analyse(ptx, row["kernel"], arch, row, ptxas, nvdisasm, a)
        except Exception as exc:  # the record says what failed; the PTX check still stands
            row["sass"] = {"error": f"{type(exc).__name__}: {exc}".splitlines()[0][:300]}
            return
        row["sass"] = found.sass
        row["model"] = found.model
        if keep is not None:
            (keep / f"{stem}.cubin").write_bytes(found.cubin)
            (keep / f"{stem}.sass").write_text(found.sass_text)

    return read
