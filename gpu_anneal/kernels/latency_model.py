"""A latency-aware model of a kernel's round, read from its SASS: a model, not a measurement.

The throughput model (gpu_anneal.kernels.perf_model) counts what a round costs the SM's issue
slots and memory pipeline; it says nothing of how long one warp waits for its own results. This
model adds that wait: it walks the round's instructions in order, one warp alone on its SM,
each instruction issuing when its operands are ready (the latencies of
gpu_anneal.kernels.cards.Timing), and then shares the SM among the warps resident on it with a
closed queueing network. Nothing here runs on a GPU.

Glossary:
    round    one trip of a warp around the move loop (sass.move_loop): one proposal a lane for
             the one-thread kernels; for the cooperative kernels (one chain a warp) the lanes
             evaluate 32 proposals of one chain and the first accepted one is made
    eval     the part of a cooperative round up to its ballot (every round runs it); update:
             the rest (run when a lane accepted)
    p        a move's acceptance (accepted / proposed); P = 1 - (1 - p)^K the chance that a
             round of K lanes accepts; E = (1 - (1 - p)^K) / p the proposals a round makes
    L        cycles a lone warp takes for a round (the walk, below)
    D_s      cycles a round keeps the busiest unit of its sub-partition busy: the issue slot
             (one instruction a clock) or a pipe (Timing.busy: 2 cycles a 32-bit integer op,
             8 a POPC, ...)
    D_m      cycles a round keeps the SM's shared memory / L1 / shuffle pipeline (MIO) busy:
             wavefronts as perf_model counts them, plus one a warp shuffle
    N        warps resident on an SM (occupancy: perf_model.occupancy)
    T(N)     cycles a round takes each of N warps sharing an SM

The walk. The round's instructions in listing order (every block of the move loop once, each
inner loop's body `trips` times: a divergent branch runs both sides, as a warp does; a
warp-uniform branch's other side is counted too, which over-counts). An instruction issues at

    issue = max(previous issue + 1, ready(each register it reads), free(its unit))

its results are ready at issue + latency(class), its unit free at issue + busy(class). A global
load's latency is h x ldg_l1 + (1 - h) x ldg_l2, h the L1 hit fraction (l1_hit_fraction). The
round is walked `rounds` times in a row and L is the steady state: the cycles between the starts
of the last two (a result the next round reads, e.g. the conflict count a round ends with,
counts). The cycles before the ballot's issue are the round's eval part, the rest its update.

Sharing the SM. Each round a warp visits three stations: its sub-partition's units (4 alike,
demand D_s), the SM's MIO (demand D_m) and a delay Z = max(0, L - D_s - D_m), the latency no
unit is busy for. Exact Mean Value Analysis of this closed network (one class, N customers;
Lazowska, Zahorjan, Graham and Sevcik, "Quantitative System Performance", 1984, ch. 6), with
the 4 sub-partitions as one 4-server station by Seidmann's approximation (a queue of demand
D_s / 4 and a delay of 3 D_s / 4; Seidmann, Schweitzer and Shalev-Oren, 1987), gives the round
time T(N):

    R_s(n) = D_s / 4 (1 + Q_s(n - 1)) + 3 D_s / 4      R_m(n) = D_m (1 + Q_m(n - 1))
    X(n) = n / (R_s(n) + R_m(n) + Z)    Q_s(n) = X(n) D_s / 4 (1 + Q_s(n - 1))
    Q_m(n) = X(n) R_m(n)                T(N) = N / X(N)

T(1) = max(L, D_s + D_m); T(N) grows towards the throughput bound N max(D_s / 4, D_m) and
never falls below the bounds

    T(N) >= max(L, N D_s / 4, N D_m)       (round_bound: the asymptotic bounds)

A cooperative round's figures mix its parts: L = L_eval + P L_update, D = D_eval + P D_update
(a round with no acceptance skips the update). Rates, at the card's boost clock f:

    one chain a warp:    chain proposals/s = f E / T(N)       card = chains x that
    one chain a thread:  chain proposals/s = f / T(N)         card = 32 x warps x that

Left out: instruction-cache misses, the time outside the round (plateau bookkeeping, trial
starts, slice start and end), warps pinned to one sub-partition (the pooled 4-server station
lets a warp use any), bank conflicts beyond perf_model's expectation, clock changes under
load, and a drop loop's trips beyond `trips`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from gpu_anneal.kernels import sass
from gpu_anneal.kernels.cards import Card, Timing
from gpu_anneal.kernels.perf_model import DEFAULT, Assumptions, wavefronts

LANES = 32
SUB_PARTITIONS = 4

# shared-memory carve-outs an SM may take, KiB (CUDA C++ Programming Guide, 'Shared Memory'
# of compute capability 8.0 and 9.0): the driver takes the least one that holds the blocks
CARVEOUTS_KIB = {
    8: (0, 8, 16, 32, 64, 100, 132, 164),
    9: (0, 8, 16, 32, 64, 100, 132, 164, 196, 228),
}

_FMA = frozenset(
    "IMAD IMUL IDP IDP4A HFMA2 HMUL2 HADD2 FFMA FMUL FADD FFMA32I FMUL32I FADD32I".split()
)
_POPC = frozenset("POPC FLO BREV UPOPC UFLO UBREV".split())
_CONTROL = frozenset(
    "BRA BRX JMP JMX CALL RET EXIT BSSY BSYNC BREAK NOP WARPSYNC BAR YIELD MEMBAR DEPBAR".split()
)


def unit_of(ins: sass.Instr) -> str:
    """The Timing class of one instruction (alu, fma, fma_wide, popc, uniform, vote, s2r, ldc,
    lds, shfl, ldg (a global or local access: its level is the walk's), control)."""
    base = ins.base
    if base in _CONTROL:
        return "control"
    if base in ("LDS", "LDSM", "STS", "ATOMS"):
        return "lds"
    if base in ("LDG", "LD", "STG", "ST", "LDL", "STL", "ATOMG", "ATOM", "RED"):
        return "ldg"
    if base == "SHFL":
        return "shfl"
    if base in ("LDC", "ULDC"):
        return "ldc"
    if base in ("S2R", "S2UR"):
        return "s2r"
    if base in ("VOTE", "VOTEU"):
        return "vote"
    if base in _POPC:
        return "popc"
    if base == "IMAD" and "WIDE" in ins.mods:
        return "fma_wide"
    if base in _FMA:
        return "fma"
    if base.startswith("U"):
        return "uniform"
    return "alu"


def latency_of(unit: str, timing: Timing, l1_hit: float) -> float:
    """Cycles until a result of `unit` may be read (a global load: the L1 / L2 mix)."""
    if unit == "ldg":
        return l1_hit * timing.latency["ldg_l1"] + (1.0 - l1_hit) * timing.latency["ldg_l2"]
    return timing.latency[unit]


def busy_of(unit: str, timing: Timing) -> float:
    """Cycles one warp-instruction keeps its unit of a sub-partition busy."""
    return timing.busy["ldg_l1" if unit == "ldg" else unit]


# the pipe a class's instructions occupy: IMAD.WIDE shares IMAD's (the FP32 / IMAD lanes), a
# ballot the integer ALU's; memory, shuffles and constant loads go to the MIO (their own cost
# counted there), control to the issue slot alone
PIPE = {
    "fma_wide": "fma",
    "vote": "alu",
    "lds": "mio",
    "ldg": "mio",
    "shfl": "mio",
    "ldc": "mio",
    "s2r": "mio",
    "control": "issue",
}


def pipe_of(unit: str) -> str:
    """The pipe (sub-partition unit) a Timing class occupies."""
    return PIPE.get(unit, unit)


# ----------------------------------------------------------------------------- one round's code


_UNIFORM_SPECIAL = ("SR_CTAID", "SR_CgaCtaId", "SR_NCTAID", "SRZ")


class Uniformity:
    """Which values of a listing are warp-uniform (every lane holds the same), by reaching
    definitions over its control flow: a definition is uniform when it is a ballot, a
    broadcast shuffle (SHFL.IDX from a lane every lane names alike), a block-index read, or an
    ALU op or load whose operands (an address included) are uniform where it runs, unguarded
    or guarded by a uniform predicate; uniform-datapath names (UR, UP) always are. A value
    with no definition reaching it (a kernel argument in a vector register, as ptxas seldom
    leaves one) counts as not uniform. Loop-carried values are taken as uniform until shown
    otherwise (the greatest fixpoint)."""

    def __init__(self, cfg: sass.Cfg):
        self.cfg = cfg
        self.rw = [sass.reads_writes(i) for i in cfg.instrs]
        self.block = [0] * len(cfg.instrs)
        for b in cfg.blocks:
            self.block[b.start : b.end] = [b.id] * (b.end - b.start)
        self.block_in = self._reaching()
        self.memo: dict[int, bool] = {}

    def _reaching(self) -> list[dict[str, frozenset[int]]]:
        cfg, rw = self.cfg, self.rw
        preds: dict[int, list[int]] = {b.id: [] for b in cfg.blocks}
        for b in cfg.blocks:
            for t in b.succs:
                preds[t].append(b.id)
        ins: list[dict[str, frozenset[int]]] = [{} for _ in cfg.blocks]
        outs: list[dict[str, frozenset[int]]] = [{} for _ in cfg.blocks]
        work = [b.id for b in cfg.blocks]
        while work:
            b = work.pop()
            merged: dict[str, set[int]] = {}
            for p in preds[b]:
                for name, defs in outs[p].items():
                    merged.setdefault(name, set()).update(defs)
            now = {k: frozenset(v) for k, v in merged.items()}
            ins[b] = now
            out = dict(now)
            for k in range(cfg.blocks[b].start, cfg.blocks[b].end):
                for name in rw[k][1]:
                    guarded = cfg.instrs[k].guarded
                    out[name] = (out.get(name, frozenset()) | {k}) if guarded else frozenset({k})
            if out != outs[b]:
                outs[b] = out
                work.extend(t for t in cfg.blocks[b].succs if t not in work)
        return ins

    def defs_at(self, index: int, name: str) -> frozenset[int]:
        """Definitions of `name` reaching instruction `index`."""
        b = self.block[index]
        found = self.block_in[b].get(name, frozenset())
        for k in range(self.cfg.blocks[b].start, index):
            if name in self.rw[k][1]:
                found = (found | {k}) if self.cfg.instrs[k].guarded else frozenset({k})
        return found

    def name_at(self, index: int, name: str) -> bool:
        """Whether `name` read by instruction `index` is warp-uniform there."""
        if name[0] == "U":
            return True
        defs = self.defs_at(index, name)
        return bool(defs) and all(self.definition(d) for d in defs)

    def definition(self, index: int) -> bool:
        """Whether instruction `index` writes warp-uniform values."""
        if index in self.memo:
            return self.memo[index]
        self.memo[index] = True  # assumed while its operands are examined (the fixpoint)
        ins = self.cfg.instrs[index]
        reads = self.rw[index][0]
        if ins.base in ("VOTE", "VOTEU"):
            ok = True
        elif ins.base == "SHFL":
            ops = sass.operands_of(ins)
            lane = sass._names(ops[3]) if "IDX" in ins.mods and len(ops) > 3 else None  # noqa: SLF001
            guard = sass._names(ins.predicate.lstrip("@!")) if ins.guarded else []  # noqa: SLF001
            ok = lane is not None and all(self.name_at(index, n) for n in lane + guard)
        elif ins.base in ("S2R", "S2UR", "CS2R"):
            ok = any(tag in ins.operands for tag in _UNIFORM_SPECIAL)
        elif ins.base.startswith("U") or unit_of(ins) in (
            "alu",
            "fma",
            "fma_wide",
            "popc",
            "lds",
            "ldg",
            "ldc",
        ):
            ok = all(self.name_at(index, n) for n in reads)
        else:
            ok = False
        self.memo[index] = ok
        return ok


def uniform_alternatives(cfg: sass.Cfg, blocks: frozenset[int], uniform: Uniformity) -> set[int]:
    """Blocks a warp never runs beside their alternative: in an if/else whose condition is
    warp-uniform (block c ends `@P BRA` to block e, falls through to block t, t ends with an
    unconditional branch to block j and e falls through to j), the jumped-to side e (the
    fall-through side t is taken as the one the warp runs)."""
    out = set()
    for c in blocks:
        last = cfg.instrs[cfg.blocks[c].end - 1]
        if not last.predicated_branch:
            continue
        if not all(uniform.name_at(last.index, n) for n in sass.reads_writes(last)[0]):
            continue
        succs = cfg.blocks[c].succs
        if len(succs) != 2:
            continue
        e, t = succs
        t_last = cfg.instrs[cfg.blocks[t].end - 1]
        if t_last.base != "BRA" or t_last.guarded or len(cfg.blocks[t].succs) != 1:
            continue
        join = cfg.blocks[t].succs[0]
        if cfg.blocks[e].succs == [join] and e in blocks and join in blocks:
            out.add(e)
    return out


def round_sequence(listing: sass.Listing, trips: int = 1) -> list[sass.Instr]:
    """The instructions of one round in walk order: the move loop's blocks in listing order
    but a uniform if/else's other side (uniform_alternatives), each inner loop's blocks `trips`
    times in a row ([] when no move loop was found)."""
    move = listing.found.move
    if move is None:
        return []
    cfg = listing.cfg
    inner = [loop for loop in cfg.loops if loop.blocks < move.blocks]
    outermost = [lp for lp in inner if not any(lp.blocks < o.blocks for o in inner)]
    skip = uniform_alternatives(cfg, move.blocks, Uniformity(cfg))

    def seq(blocks, loops) -> list[sass.Instr]:
        out: list[sass.Instr] = []
        done: set[int] = set(skip)
        for b in sorted(blocks, key=lambda b: cfg.blocks[b].start):
            if b in done:
                continue
            loop = next((lp for lp in loops if b in lp.blocks), None)
            if loop is None:
                out.extend(cfg.instrs[cfg.blocks[b].start : cfg.blocks[b].end])
                continue
            nested = [lp for lp in inner if lp.blocks < loop.blocks]
            top = [lp for lp in nested if not any(lp.blocks < o.blocks for o in nested)]
            body = seq(loop.blocks, top)
            out.extend(body * max(1, trips))
            done |= loop.blocks
        return out

    return seq(move.blocks, outermost)


def ballot_index(instrs: list[sass.Instr]) -> int | None:
    """Index of the round's ballot (a vote writing a register) in the sequence, or None."""
    return next((k for k, i in enumerate(instrs) if sass.is_vote(i)), None)


@dataclass
class Walk:
    """A lone warp's round: its steady-state cycles and where they went."""

    cycles: float  # L
    eval_cycles: float  # from the round's start to its ballot's issue (L when no ballot)
    waits: dict[str, float]  # cycles the warp waited, by the unit whose result it waited on
    issue: list[float] = field(repr=False)  # each instruction's issue cycle in the last round


@dataclass(frozen=True)
class Edits:
    """What-if changes to a walk's latencies (a change to the kernel not yet made):
    `unit_latency` unit -> cycles; `opcode_latency` opcode prefix (e.g. "SHFL.UP") -> cycles;
    `ahead` the first `ahead` instructions made ahead, in the stalls of the round before: the
    walk skips them and their results are ready at the round's start (the upper end of what
    that gains; their issue slots and pipe cycles still count in the round's demand)."""

    unit_latency: dict[str, float] = field(default_factory=dict)
    opcode_latency: dict[str, float] = field(default_factory=dict)
    ahead: int = 0


def latencies(
    instrs: list[sass.Instr], timing: Timing, l1_hit: float, edits: Edits = Edits()
) -> list[float]:
    """Each instruction's result latency in a walk (module docstring; `edits` applied)."""
    out = []
    for ins in instrs:
        unit = unit_of(ins)
        cycles = edits.unit_latency.get(unit, latency_of(unit, timing, l1_hit))
        for prefix, value in edits.opcode_latency.items():
            if ins.opcode.startswith(prefix):
                cycles = value
        out.append(cycles)
    return out


def walk(
    instrs: list[sass.Instr],
    timing: Timing,
    l1_hit: float = 1.0,
    rounds: int = 4,
    edits: Edits = Edits(),
) -> Walk:
    """The walk of the module docstring over `rounds` rounds of `instrs`; L from the last two
    round starts; `edits`: what-if latencies."""
    if not instrs:
        raise ValueError("no instructions to walk")
    lat = latencies(instrs, timing, l1_hit, edits)
    rw = [sass.reads_writes(i) for i in instrs]
    units = [unit_of(i) for i in instrs]
    vote = ballot_index(instrs)
    ready: dict[str, float] = {}
    producer: dict[str, str] = {}
    free: dict[str, float] = {}
    t = 0.0
    starts: list[float] = []
    kept: tuple[dict[str, float], list[float], float] = ({}, [], 0.0)
    for r in range(rounds + 1):
        starts.append(t)
        if r == rounds:
            break
        waits, issue, vote_at = {}, [], 0.0
        for k in range(len(instrs)):
            reads, writes = rw[k]
            if k < edits.ahead:  # issued in an earlier round's stalls: its results are here
                for name in writes:
                    ready[name], producer[name] = t, "ahead"
                issue.append(t)
                continue
            unit, pipe = units[k], pipe_of(units[k])
            when, why = t, "issue"
            for name in reads:
                if ready.get(name, 0.0) > when:
                    when, why = ready[name], producer[name]
            if free.get(pipe, 0.0) > when:
                when, why = free[pipe], f"busy:{pipe}"
            if when > t:
                waits[why] = waits.get(why, 0.0) + (when - t)
            issue.append(when)
            if k == vote:
                vote_at = when
            t = when + 1.0
            if pipe not in ("mio", "issue"):
                free[pipe] = when + busy_of(unit, timing)
            for name in writes:
                ready[name] = when + lat[k]
                producer[name] = unit
        kept = (waits, issue, vote_at)
    # the round before the last start: its period is the steady state's
    waits, issue, vote_at = kept
    begin = starts[-2]
    cycles = starts[-1] - begin
    return Walk(
        cycles=cycles,
        eval_cycles=(vote_at - begin) if vote is not None else cycles,
        waits=waits,
        issue=[x - begin for x in issue],
    )


@dataclass
class Part:
    """What part of a round costs a warp's sub-partition and the SM's MIO."""

    instructions: int
    busy: dict[str, float]  # unit -> cycles busy a round ('issue': one a instruction)
    mio: float  # MIO cycles a round

    def sched(self, share: float = 1.0) -> dict[str, float]:
        """Busy cycles by unit, scaled by `share`."""
        return {u: share * c for u, c in self.busy.items()}


def demand(
    instrs: list[sass.Instr],
    timing: Timing,
    uniform: set[int],
    frame_bytes: int = 0,
    constant_bytes: int = 0,
    shared_chain: bool = False,
    a: Assumptions = DEFAULT,
) -> Part:
    """The sub-partition and MIO cycles of a run of instructions (perf_model's wavefronts for
    memory; one MIO cycle a warp shuffle)."""
    busy: dict[str, float] = {"issue": float(len(instrs))}
    mio = 0.0
    for ins in instrs:
        unit = unit_of(ins)
        pipe = pipe_of(unit)
        if pipe not in ("mio", "issue"):
            busy[pipe] = busy.get(pipe, 0.0) + busy_of(unit, timing)
        if unit == "shfl":
            mio += 1.0
        else:
            mio += wavefronts(ins, uniform, frame_bytes, constant_bytes, a, shared_chain)
    return Part(len(instrs), busy, mio / timing.mio_per_clock)


# ----------------------------------------------------------------------------- a round's profile


@dataclass
class Profile:
    """A round's figures the rates follow from (JSON: as_dict / from_dict)."""

    kernel: str
    chain_per_warp: bool  # the cooperative kernels: a chain's lanes share it, E(p) a round
    l1_hit: float
    latency_eval: float  # L of the eval part (the whole round for one-thread kernels)
    latency_update: float  # L of the update part (0 for one-thread kernels)
    eval: Part
    update: Part
    waits: dict[str, float] = field(default_factory=dict)
    lanes: int = LANES  # lanes a chain (the cooperative kernels; one-thread kernels: 1)

    def as_dict(self) -> dict:
        """Plain dict for JSON."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> Profile:
        """The profile of a JSON record (as_dict's)."""
        fields = dict(d)
        fields["eval"] = Part(**d["eval"])
        fields["update"] = Part(**d["update"])
        return cls(**fields)

    def mixed(self, accept: float) -> tuple[float, float, float]:
        """(L, D_s, D_m) of a round that accepts with probability `accept`."""
        share = accept if self.chain_per_warp else 1.0  # one-thread: every path every round
        latency = self.latency_eval + share * self.latency_update
        units = set(self.eval.busy) | set(self.update.busy)
        busy = {u: self.eval.busy.get(u, 0.0) + share * self.update.busy.get(u, 0.0) for u in units}
        return latency, max(busy.values()), self.eval.mio + share * self.update.mio


def profile(
    listing: sass.Listing,
    timing: Timing,
    l1_hit: float = 1.0,
    trips: int = 1,
    frame_bytes: int = 0,
    constant_bytes: int = 0,
    a: Assumptions = DEFAULT,
    edits: Edits = Edits(),
    instrs: list[sass.Instr] | None = None,
) -> Profile:
    """The profile of a kernel's round (ValueError when no move loop was found); `instrs`: the
    round's sequence when already read (round_sequence), `edits`: what-if latencies."""
    if instrs is None:
        instrs = round_sequence(listing, trips)
    if not instrs:
        raise ValueError(f"{listing.kernel}: no move loop ({listing.found.reason})")
    coop = listing.kernel.startswith("sudoku-coop")
    w = walk(instrs, timing, l1_hit, edits=edits)
    vote = ballot_index(instrs)
    cut = vote + 1 if coop and vote is not None else len(instrs)
    parts = [
        demand(run, timing, listing.uniform, frame_bytes, constant_bytes, coop, a)
        for run in (instrs[:cut], instrs[cut:])
    ]
    latency_eval = w.eval_cycles if coop else w.cycles
    return Profile(
        kernel=listing.kernel,
        chain_per_warp=coop,
        l1_hit=l1_hit,
        latency_eval=latency_eval,
        latency_update=w.cycles - latency_eval,
        eval=parts[0],
        update=parts[1],
        waits=w.waits,
        lanes=LANES if coop else 1,
    )


def last_rng_step(instrs: list[sass.Instr]) -> int:
    """Instructions up to and including a round's last Philox multiply (else its last
    xoroshiro rotation): the draw, which depends on no state a round changes (0: none). A
    cooperative round's wrap funnel shifts outside its draw (a box bit) are not counted."""
    for marker in (sass.is_philox_multiply, sass.is_rng_rotate):
        found = [k for k, i in enumerate(instrs) if marker(i)]
        if found:
            return found[-1] + 1
    return 0


def added(part: Part, timing: Timing, counts: dict[str, int], mio: float = 0.0) -> Part:
    """`part` with `counts` more instructions of each Timing class (their issue slots and pipe
    cycles) and `mio` more MIO cycles (negative: fewer)."""
    busy = dict(part.busy)
    total = 0
    for unit, n in counts.items():
        total += n
        busy["issue"] = busy.get("issue", 0.0) + n
        pipe = pipe_of(unit)
        if pipe not in ("mio", "issue"):
            busy[pipe] = busy.get(pipe, 0.0) + n * busy_of(unit, timing)
    return Part(part.instructions + total, busy, max(0.0, part.mio + mio))


def scaled(part: Part, factor: float) -> Part:
    """`part` run `factor` times (its instructions, pipe cycles and MIO cycles)."""
    return Part(
        round(part.instructions * factor),
        {u: c * factor for u, c in part.busy.items()},
        part.mio * factor,
    )


def difference(a: Part, b: Part) -> Part:
    """What `a` costs beyond `b` (never below zero)."""
    units = set(a.busy) | set(b.busy)
    return Part(
        max(0, a.instructions - b.instructions),
        {u: max(0.0, a.busy.get(u, 0.0) - b.busy.get(u, 0.0)) for u in units},
        max(0.0, a.mio - b.mio),
    )


def total(a: Part, b: Part) -> Part:
    """The costs of `a` and `b` together."""
    units = set(a.busy) | set(b.busy)
    return Part(
        a.instructions + b.instructions,
        {u: a.busy.get(u, 0.0) + b.busy.get(u, 0.0) for u in units},
        a.mio + b.mio,
    )


# ----------------------------------------------------------------------------- sharing the SM


def mva_round_cycles(warps: int, sched: float, mio: float, latency: float) -> float:
    """T(N): cycles a round takes each of `warps` warps on one SM (module docstring's MVA)."""
    if warps < 1:
        raise ValueError(f"warps: {warps} must be at least 1")
    q_s = q_m = 0.0
    d_q = sched / SUB_PARTITIONS
    d_delay = sched - d_q
    z = max(0.0, latency - sched - mio)
    x = 0.0
    for n in range(1, warps + 1):
        r_s = d_q * (1.0 + q_s) + d_delay
        r_m = mio * (1.0 + q_m)
        x = n / (r_s + r_m + z)
        q_s = x * d_q * (1.0 + q_s)
        q_m = x * r_m
    return warps / x


def round_bound(warps: int, sched: float, mio: float, latency: float) -> float:
    """The asymptotic bounds: T(N) >= max(L, N D_s / 4, N D_m)."""
    return max(latency, warps * sched / SUB_PARTITIONS, warps * mio)


def proposals_per_round(p: float, lanes: int = LANES) -> float:
    """E(p): proposals a round of `lanes` lanes on one chain makes at acceptance p."""
    if p <= 0:
        return float(lanes)
    return (1.0 - (1.0 - p) ** lanes) / p


def accept_chance(p: float, lanes: int = LANES) -> float:
    """P: the chance that a round of `lanes` lanes accepts one of its proposals."""
    return 1.0 - (1.0 - max(0.0, min(1.0, p))) ** lanes


def rates(prof: Profile, card: Card, warps: int, p: float = 1.0, scale: float = 1.0) -> dict:
    """Modeled round time and proposals/s with `warps` warps of the kernel on every SM of
    `card`, at acceptance p (one-thread kernels: unused); `scale`: card cycles a modeled cycle
    takes (the calibration; 1: the bare model)."""
    coop = prof.chain_per_warp
    accept = accept_chance(p, LANES) if coop else 1.0  # the update runs when any lane accepts
    latency, sched, mio = prof.mixed(accept)
    t = scale * mva_round_cycles(warps, sched, mio, latency)
    clock = card.boost_mhz * 1e6
    per_round = proposals_per_round(p, prof.lanes) if coop else 1.0
    chain = clock * per_round / t
    chains = warps * (LANES // prof.lanes)
    return {
        "warps_per_sm": warps,
        "chains_per_sm": chains,
        "acceptance": p if coop else None,
        "proposals_per_round": per_round,
        "round_cycles": t,
        "round_us": t / clock * 1e6,
        "bound_cycles": scale * round_bound(warps, sched, mio, latency),
        "latency_cycles": scale * latency,
        "sched_cycles": scale * sched,
        "mio_cycles": scale * mio,
        "bound": binding_term(warps, sched, mio, latency),
        "chain_proposals_per_second": chain,
        "card_proposals_per_second": chain * chains * card.sms,
    }


def binding_term(warps: int, sched: float, mio: float, latency: float) -> str:
    """Which term of round_bound is largest: latency, issue (the sub-partition) or mio."""
    terms = {"latency": latency, "issue": warps * sched / SUB_PARTITIONS, "mio": warps * mio}
    return max(terms, key=terms.get)


# ----------------------------------------------------------------------------- L1 and carve-out


def carveout_kib(shared_bytes_per_sm: int, cc: tuple[int, int]) -> int:
    """The shared-memory carve-out (KiB) the driver takes for this much shared memory an SM."""
    need = math.ceil(shared_bytes_per_sm / 1024)
    options = CARVEOUTS_KIB.get(cc[0], CARVEOUTS_KIB[9])
    return next((c for c in options if c >= need), options[-1])


def l1_hit_fraction(card: Card, shared_bytes_per_sm: int, table_bytes: int) -> float:
    """h: the fraction of a round's global loads the SM's L1 serves, for uniform random reads
    of `table_bytes` of tables (h = L1 bytes / table bytes, at most 1: a random-access working
    set larger than the cache; the L1 is what the carve-out leaves)."""
    l1 = (card.l1_shared_kib_per_sm - carveout_kib(shared_bytes_per_sm, card.cc)) * 1024
    if table_bytes <= 0:
        return 1.0
    return max(0.0, min(1.0, l1 / table_bytes))
