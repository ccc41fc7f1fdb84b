"""The pool's plan on a CUDA card: puzzles at once, chains each, what a slice moves.

Glossary:
    wave     chains the card runs at once: SMs x resident blocks an SM x threads a block
    slot     a puzzle's place in the pool (puzzles per launch = slots)
    cpp      chains per puzzle; chains per launch = slots x cpp
    slice    one kernel launch of `budget` plateaus on every chain, sized to `slice_seconds`
    finished a puzzle whose chains have all stopped, or whose time is up

By default the chains of one launch cover at least one full wave, spread over as many puzzles as
the input holds, each keeping at least MIN_CHAINS_PER_PUZZLE chains, chains per puzzle rounded up
to whole warps so that a warp's chains finish together: a long queue runs many puzzles with few
chains each, a short one gives each of its puzzles more. The pool must fit MEMORY_SHARE of the
card's memory. Why few chains pay: a puzzle's chains run until the one that solves first (the
deterministic winner), so k chains cost about k times the winner's proposals; measured on hard
9x9 puzzles (benchmarks/results/host/chains.md), that total stays flat from 1 to 64 chains while
the time to the first solve falls as 1/k, so up to 64 chains a puzzle cost the card no
throughput and cut each puzzle's latency, and more than 64 only while the card would otherwise
sit idle (fewer puzzles than slots). On a card, 6,000 hard 9x9 puzzles at 64 chains each ran
faster than at the former floor of 1,024 (benchmarks/results/gpu/card_vs_cores.md, the
iso6000c64 row against iso6000).

The cooperative kernel (orders 4-6, one-cell moves: gpu_anneal.kernels.sudoku_coop) runs one
chain a warp and a block: its wave is SMs x resident blocks chains, a puzzle keeps at least
MIN_COOP_CHAINS_PER_PUZZLE of them (each chain runs thousands of times faster than a one-thread
chain of the same order), and no rounding to warps is needed. A card whose shared memory cannot
hold a cooperative block is planned with the one-thread kernel, as the runner falls back.

Resident blocks come from the card's attributes (threads, blocks and shared memory per SM) and
from the kernel's launch bounds (the registers it is built for), as the occupancy calculator
counts them. A card is either the current device (its attributes, read through numba) or a
described one (SM figures from gpu_anneal.kernels.cards, memory and host link from HOST_SIDE),
so the plan can be printed and tested without a card.

Host share of a slice (a model): per slice the host moves the status rows of every slot, the
grid of each finished puzzle and the tables of each refilled one, and verifies and refills each
finished puzzle:

    host share = (bytes per slice / PCIe rate + finished per slice x host seconds a puzzle)
                 / kernel seconds per slice

kernel seconds per slice = the slice length (slice_seconds, at least one plateau of every chain
at the modeled rate); host seconds a puzzle = the verifier plus building the refill (tables and
first RNG state), measured on this CPU when the plan is made (the least of 30 runs: an idle
core's cost); finished per slice: "worst" counts every slot finishing in every slice;
"reference" counts the puzzles that a reference workload finishes (REFERENCE_PROPOSALS
proposals a puzzle) at the card's modeled rate (gpu_anneal.kernels.perf_model, read from the
kernel compiled for sm_90), when ptxas and nvdisasm are there to build it. The host's work runs
while the next slice does (CUDA runner), so it costs the card time only above 100 %.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from functools import cache

import numpy as np

from cpu_reference.anneal.stream_jump import JumpCursor
from cpu_reference.errors import InputError
from cpu_reference.sudoku import rules
from cpu_reference.sudoku.batch import make_batch, puzzle_tables
from cpu_reference.sudoku.formats import iter_puzzles
from cpu_reference.sudoku.layout import layout
from cpu_reference.sudoku.schedules import by_name
from cpu_reference.sudoku.verify import verify_solution
from gpu_anneal.kernels import cards, perf_model, ptx, sass
from gpu_anneal.pool_status import STATUS_BYTES

MIN_CHAINS_PER_PUZZLE = 64  # one-thread kernels: two warps (host/chains.md)
MIN_COOP_CHAINS_PER_PUZZLE = 64  # a choice, not measured on a card yet
WARP = 32
MEMORY_SHARE = 0.5  # of the card's memory (free memory on a live device)
SLICE_SECONDS = 0.2
GB = 1e9

# Mean proposals (all chains) per solved puzzle of top95, Sirdey's move, schedule sirdey-course:
# benchmarks/results/anneal_solve_default.json (95 of 95 solved, 2 chains a puzzle on 2 cores).
REFERENCE_PROPOSALS = {3: 6.02e8}


@dataclass(frozen=True)
class Card:
    """What the plan needs to know of a CUDA card."""

    name: str
    sms: int
    threads_per_sm: int
    blocks_per_sm: int
    shared_per_sm: int  # bytes of shared memory an SM gives its blocks
    shared_reserved: int  # bytes the runtime reserves per block
    registers_per_sm: int
    memory: int  # bytes
    pcie: float  # host <-> device bytes per second, one direction, nominal link rate
    described: bool = True
    source: str = ""


# Memory and host link of the cards whose SM figures gpu_anneal.kernels.cards holds (vendor
# figures; PCIe 4.0 x16 = 16 GT/s x 16 lanes x 128/130 / 8 = 31.5 GB/s a direction, 5.0: 63.0).
HOST_SIDE = {
    "H100 SXM": (80 * 10**9, 63.0e9, "H100 whitepaper: 80 GB HBM3; PCIe 5.0 x16"),
    "A100 SXM": (40 * 10**9, 31.5e9, "A100 whitepaper: 40 GB HBM2; PCIe 4.0 x16"),
    "L4": (24 * 10**9, 31.5e9, "L4 datasheet: 24 GB GDDR6; PCIe 4.0 x16"),
    "RTX 4090": (24 * 10**9, 31.5e9, "Ada whitepaper: 24 GB GDDR6X; PCIe 4.0 x16"),
}
RESERVED_SHARED_PER_BLOCK = 1024  # bytes, compute capability 8.0 and later

# What NUMBA_ENABLE_CUDASIM runs on when no card is described: one SM holding one block.
SIMULATOR = Card(
    "simulator", 1, 128, 1, 48 * 1024, 0, 65536, 16 * 10**9, 31.5e9,
    source="a stand-in for the CUDA simulator: one SM holding one block",
)  # fmt: skip


def _described() -> dict[str, Card]:
    """The described cards: SM figures from gpu_anneal.kernels.cards, memory and link here."""
    out = {}
    for name, (memory, pcie, where) in HOST_SIDE.items():
        c = cards.card(name)
        out[name] = Card(
            name, c.sms, c.max_threads_per_sm, c.max_blocks_per_sm,
            c.max_shared_kib_per_sm * 1024, RESERVED_SHARED_PER_BLOCK, c.registers_per_sm,
            memory, pcie, source=f"gpu_anneal.kernels.cards; {where}",
        )  # fmt: skip
    return out | {"simulator": SIMULATOR}


def card_named(name: str) -> Card:
    """The described card `name` (case and spaces ignored, a unique prefix will do)."""
    known = _described()
    key = name.replace(" ", "").lower()
    match = [c for c in known.values() if c.name.replace(" ", "").lower().startswith(key)]
    exact = [c for c in match if c.name.replace(" ", "").lower() == key]
    if len(exact) == 1 or len(match) == 1:
        return (exact or match)[0]
    raise InputError(f"--device {name!r}: no such card; described cards: {', '.join(known)}")


def current_card() -> Card:
    """The current CUDA device as a Card (its attributes); the 'simulator' card in the simulator."""
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return SIMULATOR
    from numba import cuda  # late: numba.cuda costs ~0.19 s

    dev = cuda.get_current_device()
    name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
    free, _total = cuda.current_context().get_memory_info()
    known = next((c for c in _described().values() if c.name.lower() in name.lower()), None)
    return Card(
        name=name,
        sms=dev.MULTIPROCESSOR_COUNT,
        threads_per_sm=dev.MAX_THREADS_PER_MULTIPROCESSOR,
        blocks_per_sm=dev.MAX_BLOCKS_PER_MULTIPROCESSOR,
        shared_per_sm=dev.MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
        shared_reserved=dev.RESERVED_SHARED_MEMORY_PER_BLOCK,
        registers_per_sm=dev.MAX_REGISTERS_PER_MULTIPROCESSOR,
        memory=int(free),
        pcie=known.pcie if known else 31.5e9,
        described=False,
        source="device attributes (memory: free now)",
    )


def resolve_card(device: Card | str | None) -> Card:
    """A Card from a Card, a described card's name, or None (the current device)."""
    if isinstance(device, Card):
        return device
    if device is not None:
        return card_named(device)
    return current_card()


def kernel_shape(order: int, move: str = "sirdey", card: Card | None = None) -> dict:
    """The Sudoku kernel's block: which kernel ("coop" or "thread", as the runner picks it on
    `card`: gpu_anneal.kernels.sudoku_coop.choose), threads, chains, blocks its registers allow
    an SM, shared bytes."""
    # late: the kernels modules bring numba.cuda (~0.19 s), which a plan read from a card's name
    # does not need
    from gpu_anneal.kernels import sudoku as ks
    from gpu_anneal.kernels import sudoku_coop as coop

    code = rules.move_code(move, order)
    ks.check_order(order, code)
    shared_sm = card.shared_per_sm if card is not None else coop.STATIC_SHARED_LIMIT * 4
    kind, _ = coop.choose(order, code, "auto", shared_sm, shared_sm)
    if kind == "coop":
        threads, built = coop.launch_bounds(order, code)
        return {
            "kernel": "coop",
            "threads_per_block": int(threads),
            "chains_per_block": 1,
            "blocks_by_registers": int(built),
            "shared_per_block": int(coop.shared_bytes_per_block(order, code)),
            "bytes_per_chain": int(ks.bytes_per_chain(order)),
        }
    try:
        threads, built = ks.launch_bounds(order, code)
    except TypeError:  # launch bounds without a move
        threads, built = ks.launch_bounds(order)
    shared_of = getattr(ks, "shared_bytes_per_block", None)
    shared = int(shared_of(order, code)) if shared_of else 0
    return {
        "kernel": "thread",
        "threads_per_block": int(threads),
        "chains_per_block": int(threads),
        "blocks_by_registers": int(built),
        "shared_per_block": shared,
        "bytes_per_chain": int(ks.bytes_per_chain(order)),
    }


def resident_blocks(card: Card, shape: dict) -> int:
    """Blocks of the kernel one SM of `card` holds at once (0: not even one fits)."""
    threads = shape["threads_per_block"]
    limits = [card.threads_per_sm // threads, card.blocks_per_sm, shape["blocks_by_registers"]]
    if shape["shared_per_block"]:
        limits.append(card.shared_per_sm // (shape["shared_per_block"] + card.shared_reserved))
    return max(0, min(limits))


def wave_chains(card: Card, shape: dict) -> int:
    """Chains of one full wave of the kernel on `card`: SMs x resident blocks x chains a block
    (its threads, or 1 for the cooperative kernel; at least one block an SM)."""
    per_block = shape.get("chains_per_block", shape["threads_per_block"])
    return card.sms * max(1, resident_blocks(card, shape)) * per_block


def puzzle_bytes(order: int, move: str = "sirdey") -> int:
    """Bytes of one puzzle's tables and solved bound, as a refill uploads them (the schedule
    changes none of them; "auto" is one that every order takes)."""
    lay = layout(order)
    batch = make_batch(
        np.zeros((1, lay.cells), np.uint8), order, by_name("auto", order), 1, 0,
        move=rules.move_code(move, order),
    )  # fmt: skip
    return sum(getattr(batch, k)[0:1].nbytes for k in rules.PUZZLE_ARRAYS + ("solved",))


def measure_host_seconds(order: int, move: str = "sirdey", repeats: int = 30) -> dict:
    """Host seconds a finished puzzle costs on this CPU, the least of `repeats` (the cost on an
    idle core): {"verify": the verifier on a solution, "refill": the next puzzle's tables and
    first RNG state}."""
    lay = layout(order)
    n, N = order, lay.N
    r, k = np.divmod(np.arange(lay.cells), N)
    solution = ((r * n + r // n + k) % N + 1).astype(np.uint8)  # a valid grid
    puzzle = np.where(np.arange(lay.cells) % 2 == 0, solution, 0).astype(np.uint8)
    code = rules.move_code(move, order)
    cursor = JumpCursor(0)
    verify, refill = [], []
    for i in range(repeats + 1):  # the first round loads compiled code
        start = time.perf_counter()
        if verify_solution(solution, order, puzzle) is not None:
            raise AssertionError("the pattern grid must verify")
        middle = time.perf_counter()
        puzzle_tables(puzzle[None], order, code)
        cursor.state_of(1 + i * 1024)
        verify.append(middle - start)
        refill.append(time.perf_counter() - middle)
    return {"verify": min(verify[1:]), "refill": min(refill[1:])}


def modeled_rate(card: Card, order: int, move: str, kernel: str = "thread") -> float | None:
    """Modeled proposals per second of the kernel ("coop" or "thread") on a described card
    (None: no model)."""
    rate = _modeled_rates(order, move, kernel).get(card.name)
    return float(rate) if rate else None


@cache
def _modeled_rates(order: int, move: str, kernel: str = "thread") -> dict:
    """{card name: proposals/s} of the (order, move) kernel by gpu_anneal.kernels.perf_model:
    compiled to PTX for sm_90, assembled and read from its SASS (some seconds); {} where ptxas
    or nvdisasm is missing or the kernel does not build."""
    try:
        from gpu_anneal.kernels.sudoku_coop import kernel_name  # late: numba.cuda, ~0.19 s

        name = "sudoku" if move == "sirdey" else f"sudoku-{move}"
        if kernel == "coop":
            name = kernel_name(rules.MOVE_NAMES[move])
        factory, signature, _sizes, bounds = ptx.kernel_registry()[name]
        tool = ptx.find_ptxas()
        nvdisasm = sass.require_nvdisasm()
        if tool is None:
            return {}
        code = ptx.compile_ptx(factory(order), signature(order), "sm_90", bounds(order))
        report = ptx.ptxas_report(code, "sm_90", tool)
        row = {"kernel": name, "size": order, "launch_bounds": bounds(order)}
        row |= report.as_dict() if report else {}
        found = perf_model.analyse(code, name, "sm_90", row, tool, nvdisasm)
        return {card: m["proposals_per_second"] for card, m in found.model.items()}
    except Exception:  # no toolchain, or a kernel that does not build: no rate model
        return {}


def make_plan(
    run,
    puzzles: int | None = None,
    device: Card | str | None = None,
    slice_seconds: float = SLICE_SECONDS,
    host_seconds: float | None = None,
    rate: float | None = None,
    plateau: int | None = None,
) -> dict:
    """The pool's plan (a dict, see format_plan) of a settled run plan (gpu_anneal.run_plan:
    its order, move, chains and slots, taken as they are) for `puzzles` puzzles (None: a stream
    of unknown length) on a card. host_seconds: host seconds a finished puzzle costs (None:
    measured now); rate: the kernel's proposals per second (None: the card's rate model, if
    any). Nothing is checked or defaulted here: the run plan's builder did it."""
    return launch_plan(
        run.order, run.move, puzzles, run.chains, run.slots, device, slice_seconds,
        host_seconds, rate, plateau,
    )  # fmt: skip


def launch_plan(
    order: int,
    move: str,
    puzzles: int | None = None,
    chains: int | None = None,
    batch: int | None = None,
    device: Card | str | None = None,
    slice_seconds: float = SLICE_SECONDS,
    host_seconds: float | None = None,
    rate: float | None = None,
    plateau: int | None = None,
) -> dict:
    """make_plan of fields settled already (a run plan's, or the pool's: the move a name of
    rules.MOVE_NAMES, chains and batch None or at least 1): nothing is checked again."""
    card = resolve_card(device)
    shape = kernel_shape(order, move, card)
    coop = shape["kernel"] == "coop"
    threads = shape["threads_per_block"]
    resident = resident_blocks(card, shape)
    side = layout(order).N
    if resident < 1:
        raise InputError(
            f"{card.name}: one block of the {side}x{side} kernel ({threads} threads, "
            f"{shape['shared_per_block']} B of shared memory) does not fit one of its SMs"
        )
    wave = wave_chains(card, shape)
    slots, cpp = launch(wave, puzzles, chains, batch, coop)
    per_chain, per_puzzle = shape["bytes_per_chain"], puzzle_bytes(order, move)
    room = int(card.memory * MEMORY_SHARE)
    need = lambda s: s * (cpp * per_chain + per_puzzle)  # noqa: E731
    if need(slots) > room:
        fit = room // need(1)
        if batch is not None or fit < 1:
            what = f"--batch {slots} x " if batch is not None else ""
            raise InputError(
                f"{what}{cpp} chains a puzzle need {need(slots) / GB:.2f} GB; {card.name} "
                f"offers {room / GB:.2f} GB (half its memory): use fewer chains or puzzles"
            )
        slots = int(fit)
    total = slots * cpp
    cells = layout(order).cells
    plateau = cells if plateau is None else plateau
    host = measure_host_seconds(order, move) if host_seconds is None else None
    host_s = host["verify"] + host["refill"] if host else host_seconds
    rate = modeled_rate(card, order, move, shape["kernel"]) if rate is None else rate
    kernel_s = slice_seconds
    if rate:
        kernel_s = max(slice_seconds, total * plateau / rate)
    up_per_finished = per_puzzle + 4 + 4 + 16  # tables, slot to gather, slot and state to reseed
    down_per_finished = cells
    status_bytes = slots * STATUS_BYTES

    def share(finished: float) -> dict:
        moved = status_bytes + finished * (up_per_finished + down_per_finished)
        host = moved / card.pcie + finished * host_s
        return {"finished": finished, "bytes": moved, "host_share": host / kernel_s}

    reference = None
    if rate and order in REFERENCE_PROPOSALS:
        reference = share(min(slots, kernel_s * rate / REFERENCE_PROPOSALS[order]))
    return {
        "model": True,
        "card": asdict(card),
        "order": order,
        "move": move,
        "puzzles": puzzles,
        "kernel": shape["kernel"],
        "threads_per_block": threads,
        "chains_per_block": shape["chains_per_block"],
        "resident_blocks_per_sm": resident,
        "shared_per_block": shape["shared_per_block"],
        "wave": wave,
        "slots": slots,
        "chains_per_puzzle": cpp,
        "chains": total,
        "waves": total / wave,
        "device_bytes": need(slots),
        "memory_room": room,
        "slice_seconds": slice_seconds,
        "kernel_seconds_per_slice": kernel_s,
        "rate": rate,
        "host_seconds_per_puzzle": host_s,
        "host_seconds_parts": host,
        "bytes_status": status_bytes,
        "bytes_per_finished": up_per_finished + down_per_finished,
        "reference": reference,
        "worst": share(slots),
    }


def launch(
    wave: int, puzzles: int | None, chains: int | None, batch: int | None, coop: bool = False
) -> tuple[int, int]:
    """(slots, chains per puzzle) of a launch covering at least `wave` chains for `puzzles`
    puzzles (None: a stream of unknown length); chains and batch taken as given when set. Each
    puzzle keeps at least MIN_CHAINS_PER_PUZZLE (cooperative kernel: MIN_COOP_CHAINS_PER_PUZZLE)
    chains, rounded up to whole warps on the one-thread kernel. Memory is not checked here."""
    held = math.inf if puzzles is None else max(1, puzzles)
    least = MIN_COOP_CHAINS_PER_PUZZLE if coop else MIN_CHAINS_PER_PUZZLE
    if chains is None:
        slots = batch or int(min(held, max(1, wave // least)))
        cpp = math.ceil(wave / slots)
        if cpp > WARP and not coop:
            cpp = math.ceil(cpp / WARP) * WARP
    else:
        cpp = chains
        slots = batch or int(min(held, math.ceil(wave / cpp)))
    return slots, cpp


def max_slots(order: int, move: str, chains: int | None, device: Card | str | None) -> int:
    """The most puzzles a default plan takes at once (how far to read a stream ahead)."""
    card = resolve_card(device)
    shape = kernel_shape(order, move, card)
    wave = wave_chains(card, shape)
    if chains is None:
        least = MIN_COOP_CHAINS_PER_PUZZLE if shape["kernel"] == "coop" else MIN_CHAINS_PER_PUZZLE
        return max(1, wave // least)
    return max(1, math.ceil(wave / chains))


def with_card(card: Card, **changes) -> Card:
    """A copy of a card with some facts changed (a described variant, e.g. in tests)."""
    return replace(card, **changes)


def format_plan(plan: dict) -> str:
    """The plan as a few lines of text, every modeled figure labelled."""
    c = plan["card"]
    side = layout(plan["order"]).N
    where = "described" if c["described"] else "this device"
    held = "a stream" if plan["puzzles"] is None else f"{plan['puzzles']} puzzles"
    lines = [
        f"plan (model) for {held}, {side}x{side}, move {plan['move']}, on {c['name']} ({where})",
        *([f"  backend: {plan['backend_choice']}"] if plan.get("backend_choice") else []),
        f"  wave: {c['sms']} SMs x {plan['resident_blocks_per_sm']} blocks x "
        + (
            f"1 chain (one warp a chain: the cooperative kernel) = {plan['wave']:,} chains"
            if plan.get("kernel") == "coop"
            else f"{plan['threads_per_block']} threads = {plan['wave']:,} chains"
        ),
        f"  launch: {plan['slots']:,} puzzles x {plan['chains_per_puzzle']:,} chains = "
        f"{plan['chains']:,} chains ({plan['waves']:.2f} waves)",
        f"  device memory: {plan['device_bytes'] / GB:.3f} GB of {plan['memory_room'] / GB:.1f} "
        f"GB allowed",
        f"  per slice: status {plan['bytes_status']:,} B down; each finished puzzle "
        f"{plan['bytes_per_finished']:,} B (grid down, tables and seed up)",
        f"  host per finished puzzle: {_host_text(plan)}; slice "
        f"{plan['kernel_seconds_per_slice']:.3f} s of kernel time"
        + (f" at {plan['rate'] / 1e9:.0f} G proposals/s (model)" if plan["rate"] else ""),
    ]
    for key, label in (("reference", "reference workload"), ("worst", "every puzzle finishing")):
        row = plan[key]
        if row is None:
            lines.append(f"  host share, {label}: no rate model for this card")
            continue
        lines.append(
            f"  host share (model), {label}: {100 * row['host_share']:.2f} % of a slice "
            f"({row['finished']:.1f} finished, {row['bytes']:,.0f} B a slice)"
        )
    return "\n".join(lines)


def _host_text(plan: dict) -> str:
    parts = plan.get("host_seconds_parts")
    total = f"{plan['host_seconds_per_puzzle'] * 1e6:.0f} us"
    if not parts:
        return f"{total} (given)"
    us = {k: round(v * 1e6) for k, v in parts.items()}
    return f"{total} on this CPU (verify {us['verify']} + refill {us['refill']})"


def count_orders(
    sources: list[str], fmt: str | None = None, on_fault: Callable | None = None
) -> dict[int, int]:
    """Sudoku order -> puzzles of that order in the files ("-" or none: stdin), in order of
    the orders; malformed puzzles are left out, each handed to on_fault (an InputError) where
    one is given. InputError when none is left to plan for."""
    counts: dict[int, int] = {}
    for source in sources or ["-"]:
        name = "<stdin>" if source == "-" else source
        for item in iter_puzzles(source, fmt=fmt, name=name):
            if not isinstance(item, InputError):
                counts[item.order] = counts.get(item.order, 0) + 1
            elif on_fault is not None:
                on_fault(item)
    if not counts:
        raise InputError("--dry-run: the input holds no Sudoku puzzle to plan for")
    return dict(sorted(counts.items()))


def summary(runs: dict, device: Card | str | None = None) -> dict:
    """The card and, for every order the kernels take, its wave and the default launch for a
    stream of puzzles (what `info` prints for the current device): `runs` maps each order to
    its run plan on the card (run_plan.card_plans: a RunPlan, or the InputError that refused
    it)."""
    card = resolve_card(device)
    orders = {}
    for order, run in runs.items():
        try:
            if isinstance(run, InputError):
                raise run
            p = make_plan(run, None, card, host_seconds=0.0, rate=0.0)
        except InputError as exc:
            orders[str(order)] = {"error": str(exc)}
            continue
        keys = ("kernel", "threads_per_block", "resident_blocks_per_sm", "wave", "slots",
                "chains_per_puzzle", "chains")  # fmt: skip
        orders[str(order)] = {"move": run.move} | {k: p[k] for k in keys}
    return {"model": True, "card": asdict(card), "orders": orders}
