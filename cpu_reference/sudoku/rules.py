"""Sirdey's annealing for Sudoku of order n: the rules, written once for the CPU and CUDA.

Glossary (see also layout.py and packing.py):
    g        chain index over the whole batch, g = p * cpp + i
    p        puzzle index in the batch
    cpp      chains per puzzle
    i        chain index inside its puzzle
    f        index into a puzzle's list of free cells, 0 <= f < nfree
    k        plateau index inside the current trial (-1: a new trial starts next)
    L        moves per plateau
    P        peers per cell; also the largest possible delta of a one-cell move
    lane     the chain's column in its state arrays: threadIdx.x when the state sits in a
             block's shared memory (LANES = threads per block), else 0 (LANES = 1)
    thr[d]   acceptance threshold of a move of delta d: accept iff u32 < thr[d] (fixed_point.py)

Per-chain state (rows of the batch on the CPU; shared or local memory in the kernel):

    vals[ix(w, lane)]    uint32  packed cell values, 0-based (packing.py)
    board[ix(w, lane)]   uint32  row-packed bitboards, NW words (uint64 for N > 32); the CPU
                                 runner's slices hold them cell-linear in uint64 words
                                 (model(): linear; packing.py) and hand them back row-packed
                                 focused move: two more bitboards after them (FOFF, MOFF),
                                 rebuilt at the start of each slice and of each trial:

        board[FOFF + w]   conflict set: bit of cell c set iff c is movable and a peer holds
                          its digit (kept exact after every accepted move: focus_update)
        board[MOFF + w]   movable cells: the puzzle's move list as a bitboard

                                 a focused move draws its cell as the k-th set bit of the
                                 conflict set, k = (20 draw bits x size) >> 20, cells counted
                                 in ascending order in every layout (so the CPU's cell-linear
                                 words and the kernels' row-packed ones pick the same cell)
    thr[ix(d, lane)]     uint32  thresholds of the current plateau, d = 1..TMAX (CPU); the
                                 shared-memory kernels keep d = 1..16 at ix(d - 1) after the
                                 values and bitboards of one array (model(): thr_cap, VOFF,
                                 BOFF, TOFF) and decide a larger delta outside the move loop

Per-chain arrays in global memory (row g belongs to chain g):

    rng[g, 0:2]      uint64  xoroshiro128+ state (see anneal/rng.py); COUNTER chains: the
                             Philox key and the proposals made (anneal/philox.py)
    ctr[g, :]        int64   counters, columns named by the C_* constants below
    best_vals[g, c]  uint8   the lowest-cost grid this chain has ended a plateau with (1-based)

Per-puzzle arrays:

    given_vals[p, c]      uint8   the givens, 0 on free cells
    given_board[p, w]     word    row-packed bitboards of the givens
    init_cells, ninit, move_cells, nmove, cand, ncand, box_cells, nbox, box_missing: batch.py
    solved[p]             int64   fewest proposals after which a chain of p reached cost 0
                                  (NOT_SOLVED while none has); the host writes 0 to stop p

One move (Sirdey): draw one 64-bit word r (layout in anneal/rng.py); the cell is
move_cells[site], the new digit is drawn among the N - 1 others, delta = conflicts(new) -
conflicts(old) by popcount of the two digits' bitboard words against the cell's computed peer
masks; Metropolis by integer threshold. Every value in the move loop is a 32-bit integer but the
RNG state; no floating point anywhere in a chain (the schedule arrives as fixed-point integers).
The focused-two move (TWO_CHOICE) draws a second candidate digit from 12 bits of r's high word
and keeps whichever of the two fewer peers hold (second_choice); the acceptance word is the
high word's other 20 bits.

Deterministic winner: a chain that solves lowers solved[p] to its proposal count; every chain of
the puzzle runs on until its own count reaches solved[p] (checked at each plateau), so the chain
with the fewest proposals is always found, whatever the threads' timing; ties go to the lowest
index (the host's pick). A lost concurrent update only lets chains run longer.

`model(n, move)` returns jitted functions specialised for order n (every size a compile-time
constant). The rules are rules_template.py and the chain logic (trials, plateaus, stops) is
chain_template.py's `drive_chain`, both modules that import their constants by name: model()
writes the specialisation's constants module (constants_text) and copies of both whose imports
name it (cpu_reference.cache.rewrite_imports). The CPU runner (chain_template.run_chains_cpu) calls
drive_chain for a range of chains and the CUDA kernels in gpu_anneal.kernels call the same function.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType, SimpleNamespace

import numpy as np

from cpu_reference.anneal.fixed_point import beta_fixed, growth_fixed
from cpu_reference.cache import import_generated, rewrite_imports, writable_folder
from cpu_reference.errors import OptionError
from cpu_reference.sudoku.layout import layout
from cpu_reference.sudoku.moves import (
    BOX_SWAP,
    CANDIDATE,
    FOCUSED,
    FOCUSED_TWO,
    MOVE_NAMES,
    MOVES,
    SIRDEY,
    Proposal,
    move_by_code,
)
from cpu_reference.sudoku.packing import count_units, linear_words, packing
from cpu_reference.sudoku.presets import move_of
from cpu_reference.sudoku.schedules import KIND_GEOMETRIC, Schedule

# counter columns of ctr[g, :]
C_COST = 0  # current cost
C_BEST = 1  # best cost of the current trial
C_PLATEAU = 2  # k, plateau index in the trial; -1 before a trial starts
C_LAST_IMPROVE = 3  # plateau of the trial's last new best
C_TRIALS = 4  # trials started
C_PROPOSALS = 5  # moves proposed, all trials
C_STATUS = 6  # RUNNING, SOLVED, EXHAUSTED, STOPPED
C_BEST_VALS_COST = 7  # cost of best_vals
C_ACCEPTED = 8  # moves accepted, all trials
C_BETA = 9  # beta of the current plateau, Q23.40 (fixed_point.py)
C_REHEATED = 10  # trials reheated in a row since the chain's last fresh grid
N_COUNTERS = 11

RUNNING = 0
SOLVED = 1
EXHAUSTED = 2
STOPPED = 3  # another chain of the puzzle solved within fewer proposals, or the host stopped it

NOT_SOLVED = 2**62  # solved[p] while no chain of p has solved

# The moves are declared in cpu_reference/sudoku/moves.py (name, code, proposal, rates); the
# codes of the built-in ones, by name:
MOVE_SIRDEY = SIRDEY.code  # Sirdey: one free cell gets one of the N - 1 other digits
MOVE_CANDIDATE = CANDIDATE.code  # Sirdey's move, the new digit drawn among the cell's candidates
MOVE_BOX_SWAP = BOX_SWAP.code  # Lewis: boxes hold permutations; two free cells of one box swap
MOVE_FOCUSED = FOCUSED.code  # the candidate move on a cell drawn among the free cells in conflict
MOVE_FOCUSED_TWO = FOCUSED_TWO.code  # the focused move, the better of two candidate draws


def move_code(name: str, order: int) -> int:
    """The code of a move by name, a move preset ("auto") taken at this order; OptionError
    naming the moves for a name that is none."""
    named = move_of(name, order) if isinstance(name, str) else None
    if named not in MOVE_NAMES:
        raise OptionError(f"move {name!r}: expected one of {', '.join(MOVE_NAMES)}")
    return MOVE_NAMES[named]


def move_name(code: int) -> str:
    """The name of a move by code (move_code's inverse)."""
    return move_by_code(code).name


def proposal(code: int) -> Proposal:
    """How the move of this code proposes (its declaration's Proposal)."""
    return move_by_code(code).proposal


def proposal_code(code: int) -> int:
    """The code whose specialisation the move of this code runs: the first declared move that
    proposes as it does (itself, unless it proposes as an earlier one)."""
    same = proposal(code)
    return next(m.code for m in MOVES.values() if m.proposal == same)


PUZZLE_ARRAYS = (
    "given_vals", "given_board", "init_cells", "ninit", "move_cells", "nmove", "cand", "ncand",
    "box_cells", "nbox", "box_missing",
)  # fmt: skip


def max_delta(n: int, move: int) -> int:
    """Largest cost increase of one move: P for one-cell moves, 2(P - 1) for a box swap."""
    peers = layout(n).peer_count
    return 2 * (peers - 1) if proposal(move).swap else peers


@cache
def model(
    n: int,
    move: int = MOVE_SIRDEY,
    lanes: int = 1,
    table: bool = True,
    packed: bool = False,
    thr_cap: int = 0,
    linear: bool = False,
    counts: bool = False,
    counter: bool = False,
    steps_path: str | None = None,
) -> SimpleNamespace:
    """Jitted rules of order n and a move: thresholds, trial start, plateau, chain driver.

    The move and `lanes` (chains sharing each state array: the block's threads when the state
    is in shared memory, else 1) are compile-time constants: word i of a chain's state is
    element i * lanes + lane of its flat array, which on the CPU (lanes = 1) is element i.
    `table`: peer masks read from a per-order table (cheap on a CPU, whose L1 holds it) or
    computed from the cell's row and column (kernels: no bank-conflicted table reads). Both
    give the same masks (tests/test_sudoku_packing.py), so chains follow the same trajectory.
    `packed`: cell values as 4-bit fields of uint32 words (shared-memory kernels, where space
    sets the occupancy), else one byte a cell, 1-based: the plain grid (CPU, global memory).
    `thr_cap`: 0 (CPU) keeps thr[d] for every d = 0..TMAX at element d (entry 0 unused); a cap
    1..TMAX keeps thresholds 1..cap only, threshold d at element d - 1 (shared-memory kernels,
    where the table's size sets the occupancy), and a move of delta > cap is decided outside the
    move loop with exact_threshold(): the same decision, bit for bit.
    `linear` (CPU runner, with table): the chains' bitboards cell-linear in uint64 words
    (packing.py: fewer words a digit), converted from the batch's row-packed boards and back by
    run_slice_cpu at each slice; every count, and so every move, is the same.
    `counts` (CPU runner, one-cell moves): conflicts from per-unit digit counts, five bytes a
    digit (packing.py, COUNTS), built from each chain's grid at each slice; the same counts
    again, so the same moves.
    `counter` (COUNTER): the chain's draws come from Philox4x32-10 addressed by its proposal
    index (anneal/philox.py) instead of xoroshiro128+'s sequence; one-cell moves only.
    `steps_path`: the path of a module of the chain's steps (start_trial, fill_thresholds,
    plateau, focus_init) that replaces rules_template.py's in drive_chain (gpu_anneal.kernels'
    cooperative rules, a warp's): it imports the specialisation's constants and rules as
    chain_template.py does, and is written out beside them.

    The namespace holds the functions (the steps from the steps module) and the generated
    modules: `constants`, `rules` (rules_template.py's copy), `steps` (the steps module: `rules`
    unless given), `chain` (chain_template.py's copy), and `imports`, the heads of the import
    statements by which a template names these modules (rewrite_imports; every one but the
    steps module's).
    """
    move = proposal_code(move)  # moves that propose alike run one specialisation
    prop = proposal(move)
    tmax = max_delta(n, move)
    if linear and not table:
        raise ValueError("linear bitboards read their peer masks from tables (table=True)")
    if counts and (linear or not table or packed or lanes != 1 or prop.swap):
        raise ValueError("counts: the CPU runner's one-cell moves only (no linear, lanes 1)")
    if counts and prop.focused:
        raise ValueError("counts: the focused move keeps its conflict set as bitboards")
    if not 0 <= thr_cap <= tmax:
        raise ValueError(f"thr_cap {thr_cap}: must lie in 0..{tmax} (0: the whole table)")
    if counter and prop.swap:
        raise ValueError("counter: one-cell moves only (the box swap keeps xoroshiro128+)")
    spec = Specialisation(n, move, lanes, table, packed, thr_cap, linear, counts, counter)
    key = spec.key()
    steps_file = Path(steps_path) if steps_path else None
    if steps_file:
        key += f"_{hashlib.sha256(steps_file.read_bytes()).hexdigest()[:12]}"
    modules = _load_generated(key, constants_text(spec), steps_file)
    exported = {name: getattr(modules.rules, name) for name in _EXPORTED}
    exported.update({name: getattr(modules.steps, name) for name in STEPS})
    exported.update({name: getattr(modules.chain, name) for name in _CHAIN_EXPORTED})
    return SimpleNamespace(
        n=n,
        N=packing(n).N,
        cells=packing(n).cells,
        packing=packing(n),
        tmax=tmax,
        thr_rows=thr_cap if thr_cap else tmax + 1,
        focus_words=focus_words(n, move, linear),
        counter=bool(counter),
        **vars(modules),
        **exported,
    )


def focus_words(n: int, move: int, linear: bool = False) -> int:
    """Words a chain's board holds after its bitboards: the focused move's conflict set and
    movable cells (one bitboard each), 0 for the other moves."""
    if not proposal(move).focused:
        return 0
    return 2 * (linear_words(n) if linear else packing(n).WR)


COUNTS_FROM_ORDER = 5  # the CPU runner counts (COUNTS) from this order up: fewer loads a move

# Which generator a chain draws from (results' params.generator): Philox4x32-10 addressed by the
# proposal index where the cooperative kernels serve the chain (orders 4 to 8, one-cell moves),
# so that the lanes of a warp can evaluate consecutive proposals of one chain at once;
# xoroshiro128+ elsewhere (orders 2 and 3, and the box swap at every order). A 49x49 or 64x64
# chain's block does not fit the shared memory a block may declare (sudoku_coop.fallback_reason):
# it runs one chain a thread, with the same draws.
COUNTER_ORDERS = (4, 5, 6, 7, 8)
XOROSHIRO = "xoroshiro128+"
PHILOX = "philox4x32-10"


def counter_based(n: int, move: int) -> bool:
    """Whether chains of order n and this move draw from Philox by proposal index."""
    return n in COUNTER_ORDERS and not proposal(move).swap


def generator_name(n: int, move: int) -> str:
    """The generator chains of order n and this move draw from: PHILOX or XOROSHIRO."""
    return PHILOX if counter_based(n, move) else XOROSHIRO


def cpu_model(n: int, move: int = MOVE_SIRDEY) -> SimpleNamespace:
    """The CPU runner's rules: unit counts for one-cell moves from COUNTS_FROM_ORDER up, else
    cell-linear bitboards (benchmarks/results/throughput.md gives both rates); the focused move
    keeps bitboards at every order (its conflict set is one). Draws as counter_based() says."""
    counter = counter_based(n, move)
    prop = proposal(move)
    if n >= COUNTS_FROM_ORDER and not (prop.swap or prop.focused):
        return model(n, move, counts=True, counter=counter)
    return model(n, move, linear=True, counter=counter)


_EXPORTED = (
    "get_value", "set_value", "conflicts_at", "peer_words", "full_cost", "exact_threshold",
    "rows_to_linear", "linear_to_rows", "unit_count", "counts_from_values", "rows_from_values",
    "focus_count", "second_choice",
)  # fmt: skip
STEPS = ("start_trial", "fill_thresholds", "plateau", "focus_init")  # drive_chain's `steps.`
_CHAIN_EXPORTED = ("drive_chain", "run_chains_cpu")


@dataclass(frozen=True)
class Specialisation:
    """One specialisation of the rules: model()'s arguments but the steps module."""

    n: int
    move: int
    lanes: int
    table: bool
    packed: bool
    thr_cap: int = 0
    linear: bool = False
    counts: bool = False
    counter: bool = False

    def key(self) -> str:
        """The specialisation in a module name: o3_m0_l1_t1_p0_c0_x1 (order, move, lanes,
        table, packed, thr_cap, linear), then _u with counts, _k with counter."""
        key = f"o{self.n}_m{self.move}_l{self.lanes}_t{int(self.table)}_p{int(self.packed)}"
        key += f"_c{self.thr_cap}_x{int(self.linear)}"
        return key + ("_u" if self.counts else "") + ("_k" if self.counter else "")


# The specialisation rules_constants.py holds: the CPU runner's 9x9 rules (cpu_model(3)), what
# rules_template.py and chain_template.py read when imported as themselves.
DEFAULT = Specialisation(3, MOVE_SIRDEY, 1, True, False, linear=True)

_CONSTANTS_IMPORTS = """import numpy as np
from numba import uint32, uint64

from cpu_reference.anneal.bits import host_has_deposit
from cpu_reference.sudoku.packing import (
    cell_count_units,
    linear_peer_tables,
    peer_tables,
    row_bit_cells,
    table_parts,
)
"""


def constants_text(spec: Specialisation) -> str:
    """The source of the constants module of a specialisation: one `NAME = value` line for each
    compile-time constant the templates read (rules_constants.py is this text for DEFAULT)."""
    doc = (
        f'"""Compile-time constants of the Sudoku rules {spec.key()} (order {spec.n}, move '
        f"{move_name(spec.move)}).\n\n"
        "Written by cpu_reference.sudoku.rules.constants_text for every specialisation model()\n"
        "builds; rules_constants.py, which the templates import when imported as themselves, is\n"
        'this text for rules.DEFAULT (tests/test_rules_template.py checks it).\n"""'
    )
    lines = [f"{name} = {value}" for name, value in _constants(spec).items()]
    return "\n".join([doc, "", _CONSTANTS_IMPORTS, *lines]) + "\n"


def _constants(spec: Specialisation) -> dict[str, str]:
    """name -> Python expression of every compile-time constant of one specialisation."""
    n, move, lanes, table, packed = spec.n, spec.move, spec.lanes, spec.table, spec.packed
    thr_cap, linear, counts = spec.thr_cap, spec.linear, spec.counts
    pk = packing(n)
    tmax = max_delta(n, move)
    cap = thr_cap or tmax
    row_wt = "uint64" if pk.word_bits == 64 else "uint32"
    wt = "uint64" if linear else row_wt
    wr = linear_words(n) if linear else pk.WR
    tables = f"linear_peer_tables({n})" if linear else f"peer_tables({n})"
    prop = proposal(move)
    focus = prop.focused
    extra = 2 * wr if focus else 0  # conflict set and movable cells after the bitboards
    return {
        "n": str(n), "move": str(move), "N": str(pk.N), "CELLS": str(pk.cells),
        "R": str(pk.R), "WR": str(wr), "NM1": f"uint32({pk.N - 1})",
        "TMAX": str(tmax), "THR_CAP": str(cap), "CAPPED": str(cap < tmax),
        "THR_OFF": str(1 if thr_cap else 0), "WIDE": str(wt == "uint64"), "WT": wt,
        "COLPAT": f"{wt}({pk.colpat})",
        "BANDPAT": f"{wt}({pk.bandpat if pk.R >= n else 0})",  # only when a band fits a word
        "ROWMASK": f"{wt}({(1 << pk.N) - 1})", "BOXROW": f"{wt}({(1 << n) - 1})",
        "BOX_IN_WORD": str(pk.R >= n), "BAND_WORDS": str(max(1, n // pk.R)),
        "VBITS": f"uint32({pk.value_bits})", "VMASK": f"uint32({(1 << pk.value_bits) - 1})",
        "CPW_SHIFT": f"uint32({3 if pk.CPW == 8 else 2})", "CPW_MASK": f"uint32({pk.CPW - 1})",
        "ONE": "uint32(1)", "UN": f"uint32({pk.N})", "Un": f"uint32({n})",
        "UR": f"uint32({pk.R})", "UWR": f"uint32({wr})", "LANES": str(lanes),
        "ULANES": f"uint32({lanes})", "ULANES64": f"uint64({lanes})", "PACKED": str(bool(packed)),
        "TABLE": str(bool(table)), "BRANCH_FREE": str(bool(packed)),
        "FLAT_LISTS": str(not table),
        "VOFF": "0", "BOFF": str(pk.VW if packed else 0),
        "TOFF": str(pk.VW + pk.NW + extra if packed else 0), "UNR": f"uint32({pk.N * pk.R})",
        "FOCUS": str(focus), "TWO_CHOICE": str(prop.two_choice),
        "FOFF": str(pk.N * wr), "MOFF": str(pk.N * wr + wr),
        "NWFOCUS": str(pk.N * wr + extra), "CANDS": str(prop.candidates),
        "UCELLS": f"uint32({pk.cells})",
        "DIV_WORD": str(_small_div(pk.N * pk.R, pk.cells)),
        "DIV_ROW": str(_small_div(pk.N, pk.N * pk.R)), "DIV_BOX": str(_small_div(n, pk.N)),
        "VWROW": str(pk.VW), "NWROW": str(pk.N * wr),
        "PEER_TABLE, CELL_WORD, CELL_BIT": tables,
        "PEER_PARTS, PART_CELLS": f"table_parts(PEER_TABLE, {wr})",  # what the rules read
        "LINEAR": str(bool(linear)), "DEPOSIT": f"{bool(linear)} and host_has_deposit()",
        "ROW_WR": str(pk.WR), "ROW_NW": str(pk.NW),
        "COUNTS": str(bool(counts)), "CELL_UNITS": f"cell_count_units({n})",
        "NCOUNT": str(count_units(n) * pk.N),
        "ROW_BITS": str(pk.word_bits), "ROW_WT": row_wt,
        "_ROW_PEERS, ROW_CELL_WORD, ROW_CELL_BIT": f"peer_tables({n})",
        "ROW_BIT_CELL": f"row_bit_cells({n})",
        "LINEAR_BIT_CELL": f"np.arange({wr * 64}, dtype=np.int32)",  # cell of each linear bit
        "SWAP": str(prop.swap),
        "RUNNING": str(RUNNING), "SOLVED": str(SOLVED), "EXHAUSTED": str(EXHAUSTED),
        "STOPPED": str(STOPPED), "THR_ROWS": str(thr_cap if thr_cap else tmax + 1),
        "COUNTER": str(bool(spec.counter)),
        **{name: str(value) for name, value in globals().items() if name.startswith("C_")},
    }  # fmt: skip


def _small_div(d: int, limit: int) -> tuple[int, int]:
    """(m, sh) with (x * m) >> sh == x // d for every 0 <= x < limit, x * m < 2**32."""
    for sh in range(32):
        m = -(-(1 << sh) // d)
        if (limit - 1) * m < 2**32 and all((x * m) >> sh == x // d for x in range(limit)):
            return m, sh
    raise AssertionError(f"no multiply-shift division by {d} below {limit}")


_SOURCES = (
    "sudoku/rules.py", "sudoku/moves.py", "sudoku/rules_template.py", "sudoku/chain_template.py",
    "sudoku/packing.py", "sudoku/layout.py", "sudoku/schedules.py", "anneal/bits.py",
    "anneal/fixed_point.py", "anneal/rng.py", "anneal/philox.py",
)  # fmt: skip


def cache_dir() -> Path:
    """Where generated rule modules and numba's compiled code for them are kept:
    cpu_reference.cache's root / "rules" (a private temporary folder when it cannot be written;
    compiled code then lasts one process)."""
    return writable_folder("rules")


@cache
def _source_digest() -> str:
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for name in _SOURCES:
        digest.update((root / name).read_bytes())
    return digest.hexdigest()[:16]


# The heads of the import statements by which the templates name a specialisation's modules
# (cpu_reference.cache.rewrite_imports): a copy names the generated modules there instead.
CONSTANTS_IMPORT = "from cpu_reference.sudoku.rules_constants import"
RULES_IMPORT = "from cpu_reference.sudoku.rules_template import"
CHAIN_IMPORT = "from cpu_reference.sudoku.chain_template import"
STEPS_IMPORT = "from cpu_reference.sudoku import rules_template as steps"  # chain_template's


def _load_generated(key: str, constants: str, steps_file: Path | None = None) -> SimpleNamespace:
    """Write (once) and import the modules of one specialisation, each a module of its own:
    its constants (the text `constants`), rules_template.py's copy, the steps module's copy
    (`steps_file`; else the rules are the steps) and chain_template.py's copy, each copy's
    imports naming the modules before it (rewrite_imports)."""
    base = f"gpu_anneal_sudoku_rules_{key}_{_source_digest()}"
    here = Path(__file__).parent

    def write(suffix: str, text: str) -> ModuleType:
        return import_generated(f"{base}{suffix}", text, cache_dir)

    const = write("_constants", constants)
    imports = {CONSTANTS_IMPORT: f"from {const.__name__} import"}
    rules = write("", rewrite_imports(here / "rules_template.py", imports))
    imports[RULES_IMPORT] = f"from {rules.__name__} import"
    steps = write("_steps", rewrite_imports(steps_file, imports)) if steps_file else rules
    heads = {**imports, STEPS_IMPORT: f"import {steps.__name__} as steps"}
    chain = write("_chain", rewrite_imports(here / "chain_template.py", heads))
    imports[CHAIN_IMPORT] = f"from {chain.__name__} import"
    return SimpleNamespace(constants=const, rules=rules, steps=steps, chain=chain, imports=imports)


def schedule_args(sched: Schedule) -> tuple:
    """The schedule as drive_chain's integer arguments: kind, beta0, step, L, K, stall,
    reheat_k, reheat_beta, reheats.

    beta0 in Q23.40; step in Q23.40 (linear) or exp(step) in Q2.62 (geometric); reheat_beta
    (Q23.40, 0 when reheating is off) is the inverse temperature of plateau reheat_k.
    """
    step = growth_fixed(sched.step) if sched.kind == KIND_GEOMETRIC else beta_fixed(sched.step)
    reheat_k = sched.reheat_plateau()
    reheat_beta = beta_fixed(sched.beta(reheat_k)) if sched.reheat > 0.0 else 0
    return (
        int(sched.kind),
        np.uint64(beta_fixed(sched.beta0)),
        np.uint64(step),
        int(sched.plateau),
        int(sched.max_plateaus),
        int(sched.stall),
        int(reheat_k),
        np.uint64(reheat_beta),
        int(sched.reheats),
    )
