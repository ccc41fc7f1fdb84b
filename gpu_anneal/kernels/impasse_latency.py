"""The impasse kernels' move for the latency model: which SASS one move runs, and how often each
loop in it goes round. A model, not a measurement.

gpu_anneal.kernels.latency_model walks a round's instructions; its move loop is found by
markers no impasse kernel holds (no POPC, and the one-thread kernel no ballot), and its walk
repeats every inner loop alike. An impasse move differs: its inner loops run as many times as
the drawn cell has candidates, and the slice loop also holds a trial start (impasse.fresh_trial
inlined) that a move does not run. This module reads the one-thread kernel (sudoku-impasse)
and the warp kernels (sudoku-impasse-warp, -shared) alike.

Glossary:
    slice loop   the kernel's `for _ in range(slice_moves)`: one move a trip (a trip that
                 starts a trial runs that instead)
    draw loop    the loop directly inside the slice loop holding an RNG step and no store:
                 the one-thread kernel's candidate loop (a draw a candidate), the warp kernel's
                 chunk loop (a ballot a chunk of 32 candidates)
    lane loop    a loop inside the draw loop holding an RNG step and no memory access: the warp
                 kernel's lane_draw, every lane stepping the RNG over the chunk's draws
    step         one xoroshiro128+ step: two 64-bit rotations, each two wrap-mode funnel shifts
                 (STEP_SHIFTS of them)
    move path    the slice loop's blocks one move runs: those on a path from the slice loop's
                 header to the draw loop's header, the draw loop's, and those on a path from
                 the draw loop to a latch of the slice loop, no path passing the slice loop's
                 header again; a warp operation's divergent fallback (the jump of BRA.DIV, taken
                 only when the warp is diverged) is not followed. A trial start's blocks lead
                 back to the header without reaching the draw loop, so they are left out
    nc           the drawn cell's candidates; a move draws 1 + nc times (the cell, then a draw a
                 candidate)
    trips        times a loop body runs in a move. The draw loop's: nc (one-thread; real,
                 below) or ceil(nc / 32) chunks (warp); a lane loop's: real, chosen so that the
                 walked sequence makes 1 + nc RNG steps; a loop on the path that stores (a new
                 best's copy, rare): 0

A loop body unrolled by ptxas holds several steps and the remainder blocks beside it hold the
rest; the walk runs every path block once, so trips is solved from the step count, not from the
source's iterations: with S(t) = a + b t the steps of the sequence at t trips, t = (1 + nc - a) /
b, and the walk's figures are interpolated between floor(t) and ceil(t).

write_digit's three opens (a holder of the written digit leaves its cell) are the first three
path blocks after the draw loop that hold a store and are an if-then's body (`opens`); a later
such block records a new best (`rare`, never walked). The write (`write`) is the blocks between
the first guarded branch after the draw loop that jumps past the last open (taken by a move that
leaves its cell open) and its target. A move writes in some moves and opens fewer cells than
three, so three walks are mixed: no write, a write without opens, a write with all three, by the
shares the caller measures. Counted though a warp may not run it (an over-count): the other side
of a branch the latency model's uniform_alternatives does not recognise.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from gpu_anneal.kernels import latency_model as lm
from gpu_anneal.kernels import sass
from gpu_anneal.kernels.cards import Timing
from gpu_anneal.kernels.perf_model import DEFAULT, Assumptions

STEP_SHIFTS = 4  # wrap-mode funnel shifts of one xoroshiro128+ step


def steps_in(instrs: Iterable[sass.Instr]) -> float:
    """xoroshiro128+ steps a run of instructions makes (its wrap shifts / STEP_SHIFTS)."""
    return sum(1 for i in instrs if sass.is_rng_rotate(i)) / STEP_SHIFTS


def _stores(instrs: Iterable[sass.Instr]) -> bool:
    return any(i.base in sass.STORE_OPCODES for i in instrs)


def _memory(instrs: Iterable[sass.Instr]) -> bool:
    return any(i.base in sass.MEMORY_OPCODES for i in instrs)


@dataclass(frozen=True)
class MoveShape:
    """The loops and blocks of one impasse move in a listing (module docstring)."""

    slice_loop: int  # index in cfg.loops
    draw_loop: int
    lane_loop: int | None  # the warp kernel's lane_draw loop, None in the one-thread kernel
    path: frozenset[int]  # block ids of the move path
    idle_loops: tuple[int, ...]  # loops on the path walked 0 times (they store: a best's copy)
    skip: frozenset[int]  # path blocks a warp does not run (a uniform if/else's other side)
    opens: tuple[int, ...] = ()  # write_digit's three opens (conditional store blocks)
    rare: frozenset[int] = frozenset()  # later conditional store blocks (a new best's record)
    write: frozenset[int] = frozenset()  # the blocks a move that writes a digit runs (opens in)


def _draw_loops(cfg: sass.Cfg) -> list[tuple[int, int]]:
    """(parent, child) loop indexes where the child holds an RNG step and no store."""
    out = []
    for k, loop in enumerate(cfg.loops):
        if loop.parent is None:
            continue
        body = cfg.loop_instrs(loop)
        if steps_in(body) > 0 and not _stores(body):
            out.append((loop.parent, k))
    return out


def _reach(cfg: sass.Cfg, start: Iterable[int], inside: frozenset[int], stop: int) -> set[int]:
    """Blocks of `inside` reachable from `start` (included) without entering block `stop` and
    without a BRA.DIV's jump."""
    seen: set[int] = set()
    stack = [b for b in start if b in inside and b != stop]
    while stack:
        b = stack.pop()
        if b in seen:
            continue
        seen.add(b)
        last = cfg.instrs[cfg.blocks[b].end - 1]
        succs = cfg.blocks[b].succs
        if last.base == "BRA" and "DIV" in last.mods:  # follow the converged fall-through only
            target = cfg.labels.get(last.target or "")
            succs = [s for s in succs if cfg.blocks[s].start != target]
        stack.extend(s for s in succs if s in inside and s != stop and s not in seen)
    return seen


def _reverse(cfg: sass.Cfg, inside: frozenset[int]) -> dict[int, list[int]]:
    preds: dict[int, list[int]] = {b: [] for b in inside}
    for b in inside:
        for s in cfg.blocks[b].succs:
            if s in inside:
                preds[s].append(b)
    return preds


def _reaching(cfg: sass.Cfg, targets: Iterable[int], inside: frozenset[int], stop: int) -> set[int]:
    """Blocks of `inside` from which a block of `targets` is reachable without entering
    `stop` (targets included)."""
    preds = _reverse(cfg, inside)
    seen: set[int] = set()
    stack = [t for t in targets if t in inside]
    while stack:
        b = stack.pop()
        if b in seen:
            continue
        seen.add(b)
        stack.extend(p for p in preds[b] if p != stop and p not in seen)
    return seen


def move_shape(listing: sass.Listing) -> MoveShape:
    """The move's loops and path in an impasse kernel's listing; ValueError where the listing
    does not have the shape (module docstring), naming what is missing."""
    cfg = listing.cfg
    pairs = _draw_loops(cfg)
    if not pairs:
        raise ValueError(f"{listing.kernel}: no loop holds a loop with an RNG step and no store")
    # the slice loop: of the loops directly holding such a loop, the largest (it also holds a
    # trial start's inlined code; the trial start's own fill loop holds one too)
    slice_k = max({p for p, _ in pairs}, key=lambda k: len(cfg.loops[k].blocks))
    draws = [c for p, c in pairs if p == slice_k]
    if len(draws) != 1:
        raise ValueError(f"{listing.kernel}: {len(draws)} draw loops in the slice loop")
    draw_k = draws[0]
    slice_loop, draw = cfg.loops[slice_k], cfg.loops[draw_k]
    inside, header = slice_loop.blocks, slice_loop.header
    before = _reach(cfg, cfg.blocks[header].succs, inside, header) | {header}
    before &= _reaching(cfg, [draw.header], inside, header) | {header}
    within = _reach(cfg, [draw.header], draw.blocks, header)  # no divergent fallback
    after = _reach(cfg, within, inside, header)
    after &= _reaching(cfg, slice_loop.latches, inside, header)
    path = frozenset((before | after | within) & inside)
    lanes = [
        k
        for k, loop in enumerate(cfg.loops)
        if loop.blocks < draw.blocks
        and steps_in(cfg.loop_instrs(loop)) > 0
        and not _memory(cfg.loop_instrs(loop))
    ]
    if len(lanes) > 1:
        raise ValueError(f"{listing.kernel}: {len(lanes)} lane loops in the draw loop")
    idle, unknown = [], []
    for k, loop in enumerate(cfg.loops):
        if k in (draw_k, *lanes) or not loop.blocks < inside or not loop.blocks <= path:
            continue
        if loop.blocks < draw.blocks and any(loop.blocks < cfg.loops[j].blocks for j in lanes):
            continue
        (idle if _stores(cfg.loop_instrs(loop)) else unknown).append(k)
    if unknown:
        spans = ", ".join(f"{cfg.loop_span(cfg.loops[k])[0]:#x}" for k in unknown)
        raise ValueError(f"{listing.kernel}: loops on the move path of unknown trips at {spans}")
    skip = frozenset(lm.uniform_alternatives(cfg, path, lm.Uniformity(cfg)))
    stored = _conditional_stores(cfg, path, draw)
    if 0 < len(stored) < 3:
        raise ValueError(f"{listing.kernel}: {len(stored)} conditional stores after the draw "
                         "loop, not write_digit's three opens")  # fmt: skip
    opens = tuple(stored[:3])
    write = _write_region(cfg, path, draw, opens)
    return MoveShape(slice_k, draw_k, lanes[0] if lanes else None, path, tuple(idle), skip,
                     opens, frozenset(stored[3:]), write)  # fmt: skip


def _after_draw(cfg: sass.Cfg, path: frozenset[int], draw: sass.Loop) -> list[int]:
    """Path blocks after the draw loop's header and outside the loop, in listing order."""
    start = cfg.blocks[draw.header].start
    return sorted(
        (b for b in path if b not in draw.blocks and cfg.blocks[b].start > start),
        key=lambda b: cfg.blocks[b].start,
    )


def _write_region(
    cfg: sass.Cfg, path: frozenset[int], draw: sass.Loop, opens: tuple[int, ...]
) -> frozenset[int]:
    """The path blocks a move that writes runs: those between the first guarded branch after
    the draw loop that jumps past the last open (a move that leaves its cell open takes it)
    and its target (empty where there are no opens)."""
    if not opens:
        return frozenset()
    first = min(cfg.blocks[b].start for b in opens)
    last = max(cfg.blocks[b].start for b in opens)
    for b in _after_draw(cfg, path, draw):
        block = cfg.blocks[b]
        if block.start >= first:
            continue
        jump = cfg.instrs[block.end - 1]
        target = cfg.labels.get(jump.target or "")
        if jump.predicated_branch and target is not None and target > last:
            return frozenset(x for x in path if block.end <= cfg.blocks[x].start < target)
    raise ValueError("no branch after the draw loop skips write_digit's opens")


def _conditional_stores(cfg: sass.Cfg, path: frozenset[int], draw: sass.Loop) -> list[int]:
    """Path blocks after the draw loop, in listing order, that hold a store and are the body of
    an if-then: one predecessor, whose guarded branch jumps to the block's one successor."""
    preds = _reverse(cfg, path)
    out = []
    for b in _after_draw(cfg, path, draw):
        block = cfg.blocks[b]
        if len(block.succs) != 1 or len(preds[b]) != 1:
            continue
        if not _stores(cfg.instrs[block.start : block.end]):
            continue
        before = cfg.blocks[preds[b][0]]
        if cfg.instrs[before.end - 1].predicated_branch and block.succs[0] in before.succs:
            out.append(b)
    return out


def sequence(
    listing: sass.Listing,
    shape: MoveShape,
    trips: dict[int, int],
    omit: frozenset[int] = frozenset(),
) -> list[sass.Instr]:
    """The move's instructions in walk order: the path's blocks in listing order but
    shape.skip and `omit`, each loop's body `trips[loop]` times in a row (a loop missing from
    trips: 0)."""
    cfg = listing.cfg
    skip = shape.skip | omit
    loops = {k: cfg.loops[k] for k in (shape.draw_loop, shape.lane_loop, *shape.idle_loops)
             if k is not None}  # fmt: skip

    def seq(blocks: frozenset[int], within: int | None) -> list[sass.Instr]:
        out: list[sass.Instr] = []
        done: set[int] = set(skip)
        inner = [k for k, lp in loops.items() if k != within and lp.blocks < blocks]
        top = [k for k in inner if not any(loops[k].blocks < loops[j].blocks for j in inner)]
        for b in sorted(blocks & shape.path, key=lambda b: cfg.blocks[b].start):
            if b in done:
                continue
            owner = next((k for k in top if b in loops[k].blocks), None)
            if owner is None:
                out.extend(cfg.instrs[cfg.blocks[b].start : cfg.blocks[b].end])
                continue
            body = seq(loops[owner].blocks, owner)
            out.extend(body * trips.get(owner, 0))
            done |= loops[owner].blocks
        return out

    return seq(cfg.loops[shape.slice_loop].blocks, shape.slice_loop)


@dataclass
class Move:
    """A move's walk and demand for one candidate count (before any calibration)."""

    nc: int
    trips: dict[int, float]  # loop index -> trips (the lane or draw loop's real)
    steps: float  # RNG steps of the walked sequence (1 + nc by construction)
    cycles: float  # L: a lone warp's cycles a move
    part: lm.Part  # the sub-partition and MIO demand of a move
    waits: dict[str, float]


def _weighted_part(parts: list[tuple[lm.Part, float]]) -> lm.Part:
    """The demand of parts run with these weights (summing to 1)."""
    units = {u for p, _ in parts for u in p.busy}
    return lm.Part(
        round(sum(p.instructions * x for p, x in parts)),
        {u: sum(p.busy.get(u, 0.0) * x for p, x in parts) for u in units},
        sum(p.mio * x for p, x in parts),
    )


def _weighted_waits(waits: list[tuple[dict[str, float], float]]) -> dict[str, float]:
    """Waits by unit of walks taken with these weights (summing to 1)."""
    names = {k for w, _ in waits for k in w}
    return {k: sum(w.get(k, 0.0) * x for w, x in waits) for k in names}


def move_at(
    listing: sass.Listing,
    shape: MoveShape,
    nc: int,
    timing: Timing,
    l1_hit: float,
    shared_chain: bool,
    a: Assumptions = DEFAULT,
    open_share: float = 1.0,
    solved_trips: float | None = None,
    write_share: float = 1.0,
) -> Move:
    """The walk of a move whose cell has nc candidates (module docstring's trips);
    `shared_chain`: the warp's lanes work on one chain (perf_model's wavefront rule);
    `open_share`: the opens a move makes over three (the walks with all three of write_digit's
    opens and with none, mixed; a new best's record is never walked); `solved_trips`: the RNG
    loop's trips given, not solved from the steps (0: a move without its RNG loop);
    `write_share`: the share of moves that write a digit (the walk without the write region
    mixed in; open_share then counts over the moves that write, at most three opens each)."""
    if shape.lane_loop is None:  # one-thread: the draw loop steps once a candidate
        fixed: dict[int, int] = {}
        solved_loop = shape.draw_loop
    else:
        fixed = {shape.draw_loop: math.ceil(nc / lm.LANES)}
        solved_loop = shape.lane_loop
    rounds: dict[tuple[int, str], tuple[list[sass.Instr], float]] = {}
    omits = {
        "all": shape.rare,  # the write with its three opens
        "write": shape.rare | frozenset(shape.opens),  # the write, no open
        "none": shape.rare | shape.write,  # no write
    }

    def at(t: int, part: str = "all") -> tuple[list[sass.Instr], float]:
        if (t, part) not in rounds:
            instrs = sequence(listing, shape, {**fixed, solved_loop: t}, omits[part])
            rounds[(t, part)] = (instrs, steps_in(instrs))
        return rounds[(t, part)]

    s0, s1 = at(0)[1], at(1)[1]
    per_trip = s1 - s0
    if per_trip <= 0:
        raise ValueError(f"{listing.kernel}: the solved loop makes no RNG step")
    t = max(0.0, (1 + nc - s0) / per_trip) if solved_trips is None else float(solved_trips)
    lo, hi = math.floor(t), math.ceil(t)
    f = t - lo
    if shape.opens:  # weights of: no write, a write without opens, a write with all three
        writes = max(0.0, min(1.0, write_share))
        per_write = min(1.0, open_share / writes) if writes > 0 else 0.0
        weights = {"none": 1.0 - writes, "write": writes * (1.0 - per_write),
                   "all": writes * per_write}  # fmt: skip
    else:
        weights = {"all": 1.0}
    # every walk of both whole trips, weighted by its share and by the trips' interpolation
    walked = []
    for trips, near in ((lo, 1.0 - f), (hi, f)):
        for part, weight in weights.items():
            if near * weight == 0:  # a walk that counts for nothing (f 0, or a share 0)
                continue
            instrs, _ = at(trips, part)
            walk = lm.walk(instrs, timing, l1_hit)
            demand = lm.demand(instrs, timing, listing.uniform, shared_chain=shared_chain, a=a)
            walked.append((walk, demand, near * weight))
    return Move(
        nc=nc,
        trips={**{k: float(v) for k, v in fixed.items()}, solved_loop: t},
        steps=(1.0 - f) * at(lo)[1] + f * at(hi)[1],
        cycles=sum(w.cycles * x for w, _, x in walked),
        part=_weighted_part([(d, x) for _, d, x in walked]),
        waits=_weighted_waits([(w.waits, x) for w, _, x in walked]),
    )


@dataclass
class MoveModel:
    """A kernel's move mixed over the drawn cells' candidate counts."""

    kernel: str
    cycles: float  # E[L]
    part: lm.Part  # E[demand]
    waits: dict[str, float]
    moves: list[Move]

    def sched(self) -> float:
        """D_s: the busiest sub-partition unit's cycles a move."""
        return max(self.part.busy.values())

    def round_cycles(self, warps: int) -> float:
        """T(N): cycles a move takes each of `warps` warps on one SM (latency_model's MVA)."""
        return lm.mva_round_cycles(warps, self.sched(), self.part.mio, self.cycles)

    def bound(self, warps: int) -> str:
        """Which of latency, issue and MIO bounds the round at `warps` warps an SM."""
        return lm.binding_term(warps, self.sched(), self.part.mio, self.cycles)


def mixed(
    listing: sass.Listing,
    shape: MoveShape,
    share: dict[int, float],
    move: Callable[[int], Move],
) -> MoveModel:
    """The model of `share` (nc -> the fraction of moves drawing a cell of nc candidates),
    `move(nc)` each candidate count's walk."""
    total = sum(share.values())
    if total <= 0:
        raise ValueError("no candidate counts to mix")
    moves = [(move(nc), share[nc] / total) for nc in sorted(share)]
    return MoveModel(
        kernel=listing.kernel,
        cycles=sum(m.cycles * x for m, x in moves),
        part=_weighted_part([(m.part, x) for m, x in moves]),
        waits=_weighted_waits([(m.waits, x) for m, x in moves]),
        moves=[m for m, _ in moves],
    )
