"""The compiled code of a kernel: PTX -> cubin (ptxas) -> SASS (nvdisasm), its loops, its counts.

Glossary:
    instr     one SASS instruction line: [@pred] OPCODE.MODIFIERS operands ;
    base      the opcode without modifiers (LDL.128 -> LDL)
    block     a basic block: a run of instructions entered only at its first and left only at
              its last
    entry     a block control enters from outside: a function's first block or a CALL target
    dominate  block h dominates block b when every path from an entry to b passes through h
    BRA.DIV   (and BRA.CONV) sm_80's check around a warp operation: jumps only when the warp is
              diverged (converged), so control falls through as well, as after a guarded branch
    latch     a block whose last instruction branches backwards (to an earlier or the same
              instruction) to a block that dominates it: the back edge of a loop (a backward
              jump from an out-of-line block into the middle of a loop is no back edge)
    header    the block a back edge jumps to: the loop's entry
    loop      header + every block that reaches a latch of that header without passing through
              the header (the natural loop of its back edges; blocks ptxas placed out of line,
              after the loop's last address, belong to it when they lie on such a path)
    depth     how many other loops strictly contain a loop (0 = outermost)
    move loop the loop one proposal goes around once (rule below)

Finding the move loop (`move_loop`). Every kernel draws its proposal from xoroshiro128+, whose
64-bit rotations ptxas emits as wrap-mode funnel shifts (`SHF.L.W...`, `SHF.R.W...`), or (Sudoku
orders 4-6) from Philox4x32-10, whose rounds multiply by its constants 0xD2511F53 and 0xCD9E8D57
(`IMAD.WIDE.U32 R4, R18, -0x2daee0ad, RZ`): either is the "RNG step" marker. Sudoku kernels
also compute their delta as popcounts of bitboard words, so their marker is an RNG step *and* a
POPC. The cooperative Sudoku kernels (sudoku-coop-*) go around their round loop once a warp
round: its markers are a Philox multiply and the ballot (`VOTE.ANY R36, PT, P0`, or VOTEU
writing a uniform register), and "move
loop" below means that round loop. Candidates are the loops holding every marker; the
innermost candidates are those with no other candidate inside them; of these the most deeply
nested one is the move loop (under a static frequency estimate, every loop runs many times, so
the deepest runs most often). When the deepest depth is shared by two innermost candidates, or
no loop holds the markers, no move loop is identified and the result says why instead of
guessing. The plateau loop is the innermost loop that strictly contains the move loop.

Counting (`count_classes`) is static: every instruction of the loop body on every path, once.
A proposal runs one path through the body, so the instruction count is an upper bound on the
instructions one proposal issues (branches not taken on the common path are counted too).

Classes (by base opcode; U-prefixed uniform-datapath forms count as their vector twins for the
64-bit rule only):
    local_loads / local_stores      LDL / STL (thread-local memory: the stack frame and spills)
    global_loads / global_stores    LDG, LD (generic, counted as global) / STG, ST
    global_atomics                  ATOMG, ATOM, RED
    shared_loads / shared_stores    LDS, LDSM / STS
    constant_loads_indexed          LDC whose address holds a vector register (c[b][Rn...]):
                                    a per-lane index the constant cache serves one address at
                                    a time (LDC with an immediate address and ULDC excluded)
    branches                        BRA, BRX, JMP, JMX, CALL, RET, EXIT (BSSY, BSYNC, BREAK and
                                    WARPSYNC manage convergence and are not counted)
    popc                            POPC
    rng_rotates                     SHF with the .W (wrap) modifier
    philox_multiplies               IMAD or UIMAD by Philox4x32's multipliers (an immediate
                                    0xd2511f53 or 0xcd9e8d57, as printed: -0x2daee0ad,
                                    -0x326172a9)
    votes                           VOTE or VOTEU writing a register (a warp's ballot:
                                    `VOTE.ANY R36, PT, P0`, `VOTEU.ANY UR12, UPT, P0`; a vote
                                    that only sets a predicate, `VOTEU.ANY UP0, P0`, excluded)
    int64  (64-bit integer rule)    an instruction that exists because an integer is 64 bits:
                                    IMAD.WIDE* (32x32->64 multiply); any .X modifier (IADD3.X,
                                    IMAD.X, LEA.HI.X: the carry-in high half); ISETP with .EX
                                    (the high half of a 64-bit compare); IADD3 or LEA writing a
                                    carry predicate (IADD3 Rd, P0, ...: the carry-out low half);
                                    SHF with .U64 or .S64 (a half of a 64-bit shift); any other
                                    integer ALU opcode with a .64 modifier (UIADD3.64, ...).
                                    Moves, selects and LOP3s of 64-bit halves look like 32-bit
                                    code and are not counted, so this is a lower bound on the
                                    instructions spent on 64-bit values.
    fp     (floating-point rule)    FADD FMUL FFMA (and their 32I forms) FMNMX FSET FSETP FSEL
                                    FCHK FRND FSWZADD MUFU DADD DMUL DFMA DSETP DMNMX DSET
                                    HADD2 HMUL2 HFMA2 HSET2 HSETP2 HMNMX2 F2I F2IP I2F I2FP F2F
                                    F2FP; except HFMA2 with the multiplicands -RZ, RZ, which
                                    ptxas uses to load a constant into a register (a move).

Warp-uniform registers (`uniform_registers`): a flow-insensitive greatest fixpoint over the
function. A vector register is uniform when every instruction writing it is unpredicated, is an
integer ALU op or a constant load with an immediate address, and reads only RZ, immediates,
c[b][imm], uniform registers (URn) and registers already uniform. R1 (the stack pointer, loaded
from c[0x0][0x28]) comes out uniform this way. A memory access whose address register is
uniform makes every lane of a warp use the same offset; the performance model uses this.

Tools: ptxas from the nvidia-cuda-nvcc wheel (see gpu_anneal.kernels.ptx) and nvdisasm from the
nvidia-cuda-nvdisasm wheel (the `ptx` extra), else CUDA_HOME/bin, else PATH. The environment
variable GPU_ANNEAL_NVDISASM names an nvdisasm to use instead (and nothing else is tried).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from cpu_reference.errors import InputError

try:
    import nvidia  # the wheels of the ptx extra (nvidia-cuda-nvcc, nvidia-cuda-nvdisasm)
except ImportError:
    nvidia = None

NVDISASM_ENV = "GPU_ANNEAL_NVDISASM"
NVDISASM_HINT = "pip install nvidia-cuda-nvdisasm (the 'ptx' extra: pip install '.[ptx]')"

# ----------------------------------------------------------------------------- tools


def find_nvdisasm() -> str | None:
    """Path of nvdisasm: $GPU_ANNEAL_NVDISASM if set, else the wheel's, CUDA_HOME's or PATH's."""
    if NVDISASM_ENV in os.environ:
        path = Path(os.environ[NVDISASM_ENV])
        return str(path) if path.is_file() and os.access(path, os.X_OK) else None
    candidates = []
    if nvidia is not None:
        for root in nvidia.__path__:
            candidates.extend(sorted(Path(root).glob("*/bin/nvdisasm")))
    if os.environ.get("CUDA_HOME"):
        candidates.append(Path(os.environ["CUDA_HOME"]) / "bin" / "nvdisasm")
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    return shutil.which("nvdisasm")


def require_nvdisasm() -> str:
    """nvdisasm's path, or InputError naming the wheel to install."""
    tool = find_nvdisasm()
    if tool is None:
        where = ""
        if NVDISASM_ENV in os.environ:
            where = f" (${NVDISASM_ENV} = {os.environ[NVDISASM_ENV]})"
        raise InputError(f"nvdisasm not found{where}: {NVDISASM_HINT}")
    return tool


@dataclass
class Assembled:
    """A cubin with ptxas's -v log."""

    cubin: bytes
    log: str

    def constant_bank_bytes(self, bank: int = 3) -> int:
        """Bytes of constant bank `bank` (3 holds a kernel's own constant arrays), 0 if none."""
        found = re.findall(rf"(\d+) bytes cmem\[{bank}\]", self.log)
        return max((int(x) for x in found), default=0)


def assemble(ptx: str, arch: str, ptxas: str) -> Assembled:
    """Assemble PTX text into a cubin with `ptxas -v -arch=arch`."""
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "kernel.ptx", Path(tmp) / "kernel.cubin"
        src.write_text(ptx)
        proc = subprocess.run(
            [ptxas, "-v", f"-arch={arch}", str(src), "-o", str(out)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["(no message)"])[-1]
            raise RuntimeError(f"ptxas failed: {last}")
        return Assembled(out.read_bytes(), proc.stderr + proc.stdout)


def disassemble(cubin: bytes, nvdisasm: str | None = None) -> str:
    """SASS text of a cubin (`nvdisasm -c -ndf`: code sections, no dataflow annotations)."""
    tool = nvdisasm or require_nvdisasm()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "kernel.cubin"
        path.write_bytes(cubin)
        proc = subprocess.run(
            [tool, "-c", "-ndf", str(path)], capture_output=True, text=True, timeout=300
        )
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise RuntimeError(f"nvdisasm failed: {last}")
    return proc.stdout


# ----------------------------------------------------------------------------- parsing

_INSTR = re.compile(
    r"^\s*/\*([0-9a-fA-F]+)\*/\s*(@!?U?P[T0-6]\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)\s*(.*?)\s*;"
)
_LABEL = re.compile(r"^([.$\w][\w.$]*):\s*$")
_TARGET = re.compile(r"`\(([^)]+)\)")
_SECTION = re.compile(r"^\s*\.section\s+\.text\.([^,\s]+)")


@dataclass(frozen=True)
class Instr:
    """One SASS instruction."""

    index: int  # position in the listing
    address: int  # offset inside its function's section
    function: str
    predicate: str  # '', '@P0', '@!P1', '@PT', ...
    opcode: str  # with modifiers, e.g. 'LDL.128'
    operands: str

    @property
    def base(self) -> str:
        """The opcode without modifiers."""
        return self.opcode.split(".", 1)[0]

    @property
    def mods(self) -> tuple[str, ...]:
        """The opcode's modifiers, e.g. ('WIDE', 'U32')."""
        return tuple(self.opcode.split(".")[1:])

    @property
    def guarded(self) -> bool:
        """True when a predicate other than PT guards the instruction, or (BRA.DIV, BRA.CONV:
        taken only when the warp is diverged, or converged) its condition is the warp's."""
        if self.base == "BRA" and ("DIV" in self.mods or "CONV" in self.mods):
            return True
        return bool(self.predicate) and self.predicate.strip() != "@PT"

    @property
    def predicated_branch(self) -> bool:
        """True for a BRA taken on a predicate: guarded, and not BRA.DIV or BRA.CONV (whose
        condition is the warp's state)."""
        return (
            self.base == "BRA"
            and self.guarded
            and "DIV" not in self.mods
            and "CONV" not in self.mods
        )

    @property
    def target(self) -> str | None:
        """The label a branch or call names, if any."""
        found = _TARGET.search(self.operands)
        return found.group(1).strip() if found else None


def parse_sass(text: str) -> tuple[list[Instr], dict[str, int]]:
    """Instructions in listing order and label -> index of the instruction it marks."""
    instrs: list[Instr] = []
    labels: dict[str, int] = {}
    pending: list[str] = []
    function = ""
    for line in text.splitlines():
        section = _SECTION.match(line)
        if section:
            function = section.group(1)
            continue
        found = _INSTR.match(line)
        if found:
            address, pred, opcode, operands = found.groups()
            for name in pending:
                labels[name] = len(instrs)
            pending = []
            pred = (pred or "").strip()
            instrs.append(Instr(len(instrs), int(address, 16), function, pred, opcode, operands))
            continue
        label = _LABEL.match(line.strip())
        if label:
            pending.append(label.group(1))
    return instrs, labels


# ----------------------------------------------------------------------------- control flow

_JUMPS = {"BRA", "JMP"}
_INDIRECT = {"BRX", "JMX"}
_ENDS = {"EXIT", "RET"}
BRANCH_OPCODES = _JUMPS | _INDIRECT | _ENDS | {"CALL"}


def is_jump(ins: Instr) -> bool:
    """A direct jump: BRA, JMP, or a CALL to a local label (.L_x_N), which ptxas emits for sm_80
    as `CALL.REL.NOINC` to leave a loop (it never returns); a CALL to a function is no jump."""
    if ins.base in _JUMPS:
        return True
    return ins.base == "CALL" and (ins.target or "").startswith(".L")


@dataclass
class Block:
    """A basic block: instructions start..end-1 and its successor blocks."""

    id: int
    start: int
    end: int
    succs: list[int] = field(default_factory=list)


@dataclass
class Loop:
    """A natural loop: its header block, latches, body blocks, depth and parent."""

    header: int
    latches: list[int]
    blocks: frozenset[int]
    depth: int = 0
    parent: int | None = None  # index of the innermost enclosing loop in the loop list


@dataclass
class Cfg:
    """Instructions, labels, basic blocks and loops of one SASS listing."""

    instrs: list[Instr]
    labels: dict[str, int]
    blocks: list[Block]
    loops: list[Loop]
    indirect: bool  # an indirect branch was seen: its targets are unknown

    def block_of(self, index: int) -> int:
        """The block holding instruction `index`."""
        for block in self.blocks:
            if block.start <= index < block.end:
                return block.id
        raise IndexError(index)

    def loop_instrs(self, loop: Loop) -> list[Instr]:
        """The loop body's instructions in listing order."""
        out = []
        for b in sorted(loop.blocks, key=lambda b: self.blocks[b].start):
            out.extend(self.instrs[self.blocks[b].start : self.blocks[b].end])
        return out

    def loop_span(self, loop: Loop) -> tuple[int, int]:
        """(first, last) addresses of the loop's instructions."""
        body = self.loop_instrs(loop)
        return min(i.address for i in body), max(i.address for i in body)


def build_cfg(text: str) -> Cfg:
    """Basic blocks and natural loops of a SASS listing."""
    instrs, labels = parse_sass(text)
    n = len(instrs)
    leaders = {0} if n else set()
    leaders.update(i for i in labels.values() if i < n)
    indirect = False
    for ins in instrs:
        if (is_jump(ins) or ins.base in _INDIRECT | _ENDS) and ins.index + 1 < n:
            leaders.add(ins.index + 1)
        if ins.index > 0 and instrs[ins.index - 1].function != ins.function:
            leaders.add(ins.index)
    starts = sorted(leaders)
    ends = starts[1:] + [n]
    blocks = [Block(k, s, e) for k, (s, e) in enumerate(zip(starts, ends, strict=True))]
    start_block = {b.start: b.id for b in blocks}
    for block in blocks:
        last = instrs[block.end - 1]
        nxt = block.id + 1 if block.id + 1 < len(blocks) else None
        if nxt is not None and instrs[blocks[nxt].start].function != last.function:
            nxt = None
        falls = nxt is not None
        if is_jump(last):
            target = labels.get(last.target or "")
            if target is not None and target in start_block:
                block.succs.append(start_block[target])
            falls = falls and last.guarded
        elif last.base in _INDIRECT:
            indirect = True
            falls = falls and last.guarded
        elif last.base in _ENDS:
            falls = falls and last.guarded
        if falls:
            block.succs.append(nxt)
    return Cfg(instrs, labels, blocks, _natural_loops(blocks, instrs, labels), indirect)


def _entries(blocks: list[Block], instrs: list[Instr], labels: dict[str, int]) -> list[int]:
    """Blocks control enters from outside: each function's first block and every CALL target."""
    called = {
        labels[i.target]
        for i in instrs
        if i.base == "CALL" and not is_jump(i) and i.target in labels
    }
    out = []
    for b in blocks:
        first = instrs[b.start]
        if b.id == 0 or instrs[b.start - 1].function != first.function or b.start in called:
            out.append(b.id)
    return out


def dominators(blocks: list[Block], entries: list[int]) -> dict[int, set[int]]:
    """dom[b]: the blocks on every path from an entry to b (b's own included)."""
    preds: dict[int, list[int]] = {b.id: [] for b in blocks}
    for b in blocks:
        for s in b.succs:
            preds[s].append(b.id)
    every = {b.id for b in blocks}
    dom = {b.id: ({b.id} if b.id in entries else set(every)) for b in blocks}
    changed = True
    while changed:
        changed = False
        for b in blocks:
            if b.id in entries:
                continue
            ps = [dom[p] for p in preds[b.id]]
            new = {b.id} | (set.intersection(*ps) if ps else set())
            if new != dom[b.id]:
                dom[b.id] = new
                changed = True
    return dom


def _natural_loops(blocks: list[Block], instrs: list[Instr], labels: dict[str, int]) -> list[Loop]:
    preds: dict[int, list[int]] = {b.id: [] for b in blocks}
    for b in blocks:
        for s in b.succs:
            preds[s].append(b.id)
    dom = dominators(blocks, _entries(blocks, instrs, labels))
    latches: dict[int, list[int]] = {}
    for b in blocks:
        last = instrs[b.end - 1]
        if not is_jump(last):
            continue
        for s in b.succs:
            # a back edge: a backward branch to a block that dominates the branch's block (a
            # backward jump into the middle of a loop from an out-of-line block is not one)
            if blocks[s].start <= last.index and s in dom[b.id]:
                latches.setdefault(s, []).append(b.id)
    loops = []
    for header, ls in sorted(latches.items()):
        body = {header}
        stack = [x for x in ls if x != header]
        while stack:
            x = stack.pop()
            if x in body:
                continue
            body.add(x)
            stack.extend(p for p in preds[x] if p != header)
        loops.append(Loop(header, sorted(set(ls)), frozenset(body)))
    for k, loop in enumerate(loops):
        outer = [j for j, o in enumerate(loops) if j != k and loop.blocks < o.blocks]
        loop.depth = len(outer)
        if outer:
            loop.parent = min(outer, key=lambda j: len(loops[j].blocks))
    return loops


# ----------------------------------------------------------------------------- markers, move loop


def is_rng_rotate(ins: Instr) -> bool:
    """A wrap-mode funnel shift: how ptxas writes a 64-bit rotation (xoroshiro128+'s rotl)."""
    return ins.base in ("SHF", "USHF") and "W" in ins.mods


PHILOX_IMMEDIATES = frozenset(("0xd2511f53", "-0x2daee0ad", "0xcd9e8d57", "-0x326172a9"))


def is_philox_multiply(ins: Instr) -> bool:
    """A multiply by one of Philox4x32's multipliers (a Philox round)."""
    if ins.base not in ("IMAD", "UIMAD"):
        return False
    return any(op.lower() in PHILOX_IMMEDIATES for op in operands_of(ins))


def is_rng_step(ins: Instr) -> bool:
    """Either generator's step: xoroshiro128+'s rotation or a Philox round's multiply."""
    return is_rng_rotate(ins) or is_philox_multiply(ins)


def is_popc(ins: Instr) -> bool:
    """A population count (the Sudoku kernels' delta)."""
    return ins.base in ("POPC", "UPOPC")


def is_vote(ins: Instr) -> bool:
    """A warp's ballot: VOTE or VOTEU writing the lanes' bits to a register (R or UR), not a
    vote that only sets a predicate."""
    ops = operands_of(ins)
    return ins.base in ("VOTE", "VOTEU") and bool(ops) and bool(re.fullmatch(r"U?R\d+", ops[0]))


def markers_for(kernel: str) -> tuple:
    """The marker predicates a kernel's move loop must hold (see the module docstring)."""
    if kernel.startswith("sudoku-coop"):
        return (is_philox_multiply, is_vote)
    return (is_rng_step, is_popc) if kernel.startswith("sudoku") else (is_rng_rotate,)


@dataclass
class MoveLoop:
    """The move loop and the plateau loop around it, or why none was identified."""

    move: Loop | None
    plateau: Loop | None
    reason: str


def move_loop(cfg: Cfg, markers: tuple) -> MoveLoop:
    """The move loop of a listing by the module docstring's rule."""
    held = [
        k
        for k, loop in enumerate(cfg.loops)
        if all(any(m(i) for i in cfg.loop_instrs(loop)) for m in markers)
    ]
    names = "+".join(m.__name__.removeprefix("is_") for m in markers)
    if not held:
        return MoveLoop(None, None, f"no loop holds the markers ({names})")
    inner = [k for k in held if not any(cfg.loops[j].blocks < cfg.loops[k].blocks for j in held)]
    deepest = max(cfg.loops[k].depth for k in inner)
    top = [k for k in inner if cfg.loops[k].depth == deepest]
    if len(top) > 1:
        spans = ", ".join(f"{cfg.loop_span(cfg.loops[k])[0]:#x}" for k in top)
        return MoveLoop(None, None, f"{len(top)} innermost loops at depth {deepest} hold the "
                        f"markers ({names}), at {spans}: ambiguous")  # fmt: skip
    loop = cfg.loops[top[0]]
    plateau = cfg.loops[loop.parent] if loop.parent is not None else None
    why = f"innermost loop holding {names}, depth {deepest}"
    if cfg.indirect:
        why += " (an indirect branch was seen: loops through it are unknown)"
    return MoveLoop(loop, plateau, why)


# ----------------------------------------------------------------------------- counting

FP_OPCODES = frozenset(
    "FADD FADD32I FMUL FMUL32I FFMA FFMA32I FMNMX FSET FSETP FSEL FCHK FRND FSWZADD MUFU "
    "DADD DMUL DFMA DSETP DMNMX DSET HADD2 HADD2_32I HMUL2 HMUL2_32I HFMA2 HFMA2_32I HSET2 "
    "HSETP2 HMNMX2 F2I F2IP I2F I2FP F2F F2FP".split()
)
_INT_ALU = frozenset(
    "IADD IADD3 IADD32I IMAD IMAD32I IMUL ISCADD LEA LOP LOP3 SHF SHL SHR ISETP IMNMX IABS "
    "VIADD VIMNMX SEL MOV".split()
)
_PRED_OPERAND = re.compile(r"^!?U?P[0-6]$")

_MEMORY = {
    "LDL": "local_loads",
    "STL": "local_stores",
    "LDG": "global_loads",
    "LD": "global_loads",
    "STG": "global_stores",
    "ST": "global_stores",
    "ATOMG": "global_atomics",
    "ATOM": "global_atomics",
    "RED": "global_atomics",
    "LDS": "shared_loads",
    "LDSM": "shared_loads",
    "STS": "shared_stores",
}
# Opcodes that write memory (stores, and atomics, which write too: ATOMS, a shared-memory
# atomic, has no class of its own above) and every opcode that touches memory.
STORE_OPCODES = frozenset(
    op for op, cls in _MEMORY.items() if cls.endswith(("_stores", "_atomics"))
) | {"ATOMS"}
MEMORY_OPCODES = frozenset(_MEMORY) | {"ATOMS"}
CLASSES = (
    "instructions",
    "local_loads",
    "local_stores",
    "global_loads",
    "global_stores",
    "global_atomics",
    "shared_loads",
    "shared_stores",
    "constant_loads_indexed",
    "branches",
    "popc",
    "rng_rotates",
    "philox_multiplies",
    "votes",
    "int64",
    "fp",
)


def operands_of(ins: Instr) -> list[str]:
    """The instruction's comma-separated operands (brackets kept whole)."""
    out, depth, cur = [], 0, ""
    for ch in ins.operands:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def is_fp(ins: Instr) -> bool:
    """The floating-point rule of the module docstring."""
    if ins.base not in FP_OPCODES:
        return False
    if ins.base.startswith("HFMA2"):
        ops = operands_of(ins)
        if len(ops) >= 3 and ops[1].lstrip("-|") == "RZ" and ops[2].lstrip("-|") == "RZ":
            return False  # constant load into a register
    return True


def is_int64(ins: Instr) -> bool:
    """The 64-bit integer rule of the module docstring."""
    base = ins.base[1:] if ins.base.startswith("U") and ins.base[1:] in _INT_ALU else ins.base
    if base not in _INT_ALU:
        return False
    mods = ins.mods
    if base == "IMAD" and "WIDE" in mods:
        return True
    if "X" in mods or (base == "ISETP" and "EX" in mods):
        return True
    if base == "SHF" and ("U64" in mods or "S64" in mods):
        return True
    if "64" in mods:
        return True
    if base in ("IADD3", "LEA"):
        ops = operands_of(ins)
        return len(ops) > 1 and bool(_PRED_OPERAND.match(ops[1]))
    return False


def is_indexed_ldc(ins: Instr) -> bool:
    """An LDC whose constant-bank address holds a vector register (a per-lane index)."""
    return ins.base == "LDC" and bool(re.search(r"c\[[^\]]*\]\s*\[[^\]]*\bR\d+", ins.operands))


def classify(ins: Instr) -> list[str]:
    """The classes (CLASSES) one instruction counts in, beside 'instructions'."""
    out = []
    if ins.base in _MEMORY:
        out.append(_MEMORY[ins.base])
    if is_indexed_ldc(ins):
        out.append("constant_loads_indexed")
    if ins.base in BRANCH_OPCODES:
        out.append("branches")
    if is_popc(ins):
        out.append("popc")
    if is_rng_rotate(ins):
        out.append("rng_rotates")
    if is_philox_multiply(ins):
        out.append("philox_multiplies")
    if is_vote(ins):
        out.append("votes")
    if is_int64(ins):
        out.append("int64")
    if is_fp(ins):
        out.append("fp")
    return out


def count_classes(instrs: list[Instr]) -> dict[str, int]:
    """Static count of every class over a list of instructions (see the module docstring)."""
    counts = Counter({name: 0 for name in CLASSES})
    for ins in instrs:
        counts["instructions"] += 1
        counts.update(classify(ins))
    return {name: counts[name] for name in CLASSES}


# ----------------------------------------------------------------------------- per-lane addresses

_REG = re.compile(r"\bR(\d+)\b")
_UNIFORM_SOURCE = re.compile(
    r"^-?(RZ|URZ|UR\d+|PT|!PT|0x[0-9a-fA-F]+|-?\d+(\.\d+)?|c\[0x[0-9a-f]+\]\[0x[0-9a-f]+\])$"
)
_SAFE = _INT_ALU | {"CS2R", "S2UR"}


def access_bytes(ins: Instr) -> int:
    """Bytes one lane moves in a load or store (U8/S8 1, U16/S16 2, default 4, .64 8, .128 16)."""
    for mod, size in (("128", 16), ("64", 8), ("U16", 2), ("S16", 2), ("U8", 1), ("S8", 1)):
        if mod in ins.mods:
            return size
    return 4


def _dest_regs(ins: Instr) -> list[int]:
    ops = operands_of(ins)
    if not ops:
        return []
    found = re.fullmatch(r"R(\d+)", ops[0])
    if not found:
        return []
    width = 1
    if "128" in ins.mods:
        width = 4
    elif "64" in ins.mods or (ins.base == "IMAD" and "WIDE" in ins.mods) or ins.base == "CS2R":
        width = 2
    return [int(found.group(1)) + k for k in range(width)]


def _uniform_def(ins: Instr, uniform: set[int]) -> bool:
    if ins.guarded:
        return False
    if ins.base == "LDC":
        return not is_indexed_ldc(ins)
    if ins.base not in _SAFE or "X" in ins.mods or "EX" in ins.mods:
        return False
    for op in operands_of(ins)[1:]:
        found = re.fullmatch(r"[-~]?R(\d+)(\.reuse|\.H1|\.B\d)?", op)
        if found:
            if int(found.group(1)) not in uniform:
                return False
        elif op.startswith("SR_") and ins.base == "CS2R":
            if op != "SRZ":
                return False
        elif not _UNIFORM_SOURCE.match(op):
            return False
    return True


def uniform_registers(instrs: list[Instr]) -> set[int]:
    """Vector registers holding the same value in every lane (rule in the module docstring)."""
    defs: dict[int, list[Instr]] = {}
    for ins in instrs:
        for r in _dest_regs(ins):
            defs.setdefault(r, []).append(ins)
    uniform = set(defs)
    changed = True
    while changed:
        changed = False
        for r in sorted(uniform):
            if not all(_uniform_def(d, uniform) for d in defs[r]):
                uniform.discard(r)
                changed = True
    return uniform


def address_register(ins: Instr) -> int | None:
    """The vector register in a memory instruction's address, None for RZ/immediate/UR only."""
    brackets = re.findall(r"\[([^\]]*)\]", ins.operands)
    if not brackets:
        return None
    found = _REG.search(brackets[-1])
    return int(found.group(1)) if found else None


def per_lane(ins: Instr, uniform: set[int]) -> bool:
    """True when a memory instruction's address may differ across a warp's lanes."""
    reg = address_register(ins)
    return reg is not None and reg not in uniform


# ----------------------------------------------------------------------------- registers used

_NO_DEST = frozenset(
    "STS STG ST STL RED BRA BRX JMP JMX CALL RET EXIT BSSY BSYNC BREAK NOP WARPSYNC BAR "
    "MEMBAR DEPBAR YIELD ERRBAR CCTL".split()
)
_TWO_DESTS = frozenset("ISETP FSETP DSETP HSETP2 PSETP PLOP3 SHFL UISETP UPLOP3".split())
_REG_OPERAND = re.compile(r"(?<![\w.])(U?R\d+|U?P[0-6])((?:\.\w+)*)")
_PRED_NAME = re.compile(r"^!?(U?P[0-6]|U?PT)$")


def _names(operand: str, wide: bool = False) -> list[str]:
    """Register names an operand reads: R5, UR4, P0, UP1 (R5.64 or `wide`: R5 and R6; RZ, PT
    and immediates: none)."""
    out = []
    for reg, mods in _REG_OPERAND.findall(operand):
        out.append(reg)
        if reg.startswith(("R", "UR")) and (".64" in mods or wide):
            prefix, num = ("UR", reg[2:]) if reg.startswith("UR") else ("R", reg[1:])
            out.append(f"{prefix}{int(num) + 1}")
    return out


def _width(ins: Instr) -> int:
    """32-bit registers a destination spans (.64 or .WIDE 2, .128 4, else 1)."""
    if "128" in ins.mods:
        return 4
    if "64" in ins.mods or "WIDE" in ins.mods or ins.base == "CS2R":
        return 2
    return 1


def reads_writes(ins: Instr) -> tuple[list[str], list[str]]:
    """(registers read, registers written) of one instruction, by name (R7, UR4, P0, UP1);
    RZ, URZ, PT and UPT are neither. The guard predicate is read. Destinations: none for
    stores, branches and barriers; the first two operands of compares and SHFL; every operand
    of VOTE but its last (the predicate voted); else the first operand and the predicates
    right after it (a carry out: IADD3 R2, P0, ...). A destination spans the registers of its
    width (.64, .WIDE: 2; .128: 4); a 64-bit addend of IMAD.WIDE and an address R.64 are read
    as pairs."""
    ops = operands_of(ins)
    reads: list[str] = []
    if ins.predicate and ins.predicate.strip() not in ("@PT", "@UPT"):
        reads.extend(_names(ins.predicate.lstrip("@!")))
    if ins.base in _NO_DEST or not ops:
        for op in ops:
            reads.extend(_names(op))
        return reads, []
    if ins.base in _TWO_DESTS:
        ndest = 2
    elif ins.base in ("VOTE", "VOTEU"):  # VOTE.ANY R0, PT, P1 and VOTEU.ANY UP0, P1
        ndest = len(ops) - 1
    else:
        ndest = 1
        while ndest < len(ops) and _PRED_NAME.match(ops[ndest]):
            ndest += 1
        if ndest == len(ops):  # every operand a predicate: the last ones are sources
            ndest = 1
    writes: list[str] = []
    for k, op in enumerate(ops[:ndest]):
        for name in _names(op):
            if name.startswith(("R", "UR")) and k == 0:
                prefix, num = ("UR", name[2:]) if name.startswith("UR") else ("R", name[1:])
                writes.extend(f"{prefix}{int(num) + j}" for j in range(_width(ins)))
            else:
                writes.append(name)
    sources = ops[ndest:]
    for k, op in enumerate(sources):
        wide = "WIDE" in ins.mods and k == len(sources) - 1
        reads.extend(_names(op, wide))
    return reads, writes


# ----------------------------------------------------------------------------- one listing

UPPER_BOUND_NOTE = (
    "static count of the move loop's body over all its paths: an upper bound on the "
    "instructions of one proposal's path"
)
NO_BOUND_NOTE = (
    "static count of the move loop's body with each inner loop's body counted once: inner "
    "loops may run several times per proposal, so this is not a bound"
)


@dataclass
class Listing:
    """One kernel's SASS read: its control flow, move loop and warp-uniform registers."""

    kernel: str
    cfg: Cfg
    found: MoveLoop
    uniform: set[int]

    def move_instrs(self) -> list[Instr]:
        """The move loop's instructions ([] when none was identified)."""
        return self.cfg.loop_instrs(self.found.move) if self.found.move else []

    def inner_loops(self) -> int:
        """Loops strictly inside the move loop."""
        move = self.found.move
        return sum(1 for loop in self.cfg.loops if move and loop.blocks < move.blocks)

    def summary(self) -> dict:
        """The record's `sass` object: counts of the move loop and FP of the plateau loop."""
        move, plateau = self.found.move, self.found.plateau
        out: dict = {"move_loop_found": move is not None, "rule": self.found.reason}
        if move is None:
            return out
        counts = count_classes(self.move_instrs())
        inner = self.inner_loops()
        out["move_loop_span"] = [f"{a:#x}" for a in self.cfg.loop_span(move)]
        out["inner_loops"] = inner
        out["instructions_per_proposal"] = counts.pop("instructions")
        out["instructions_per_proposal_is_upper_bound"] = inner == 0
        out["note"] = UPPER_BOUND_NOTE if inner == 0 else NO_BOUND_NOTE
        out.update(counts)
        if plateau is not None:
            around = count_classes(self.cfg.loop_instrs(plateau))
            out["plateau_loop_span"] = [f"{a:#x}" for a in self.cfg.loop_span(plateau)]
            out["plateau_instructions"] = around["instructions"]
            out["plateau_fp"] = around["fp"]
        else:
            out["plateau_loop_span"] = None
            out["plateau_instructions"] = None
            out["plateau_fp"] = None
        return out


def read_listing(text: str, kernel: str) -> Listing:
    """Read a kernel's SASS text: basic blocks, loops, move loop (by the kernel's markers)."""
    cfg = build_cfg(text)
    return Listing(kernel, cfg, move_loop(cfg, markers_for(kernel)), uniform_registers(cfg.instrs))
