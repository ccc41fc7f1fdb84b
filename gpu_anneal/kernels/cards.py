"""Named CUDA cards for the performance model: per-SM limits, clocks and each figure's source.

Glossary:
    SM        streaming multiprocessor; every per-SM figure below is one SM's
    cc        compute capability, e.g. (9, 0); the per-SM limits are the cc's
    boost     the card's maximum boost clock (the model assumes the SMs run at it)
    issue     warp-instructions issued per clock per SM: 4 schedulers x 1 instruction each
    L1        the unified L1 data cache / shared memory of one SM (KiB), and the part of it
              that shared memory may take (max_shared_kib_per_sm)

The figures are vendor figures, not measurements made by this project; `source` names, per
field, the document each one is read from. The clock of L4 and A100 is derived from their
datasheets' FP32 peak (peak = SMs x 128 FP32 lanes x 2 x clock) where the datasheet gives no
clock, and the source says so.

Timing (the latency model's instruction figures, HOPPER_TIMING): published microbenchmark
ranges, not measurements made by this project, and a few stated assumptions where no source
was found; each figure's `source` says which.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

_GUIDE = (
    "CUDA C++ Programming Guide, 'Technical Specifications per Compute Capability' (cc {cc}): "
    "threads, warps, blocks, 32-bit registers and shared memory per SM"
)


@dataclass(frozen=True)
class Card:
    """One card's figures for the model (see the module glossary)."""

    name: str
    cc: tuple[int, int]
    sms: int
    boost_mhz: int
    l1_shared_kib_per_sm: int
    max_shared_kib_per_sm: int
    max_threads_per_sm: int
    max_warps_per_sm: int
    max_blocks_per_sm: int
    registers_per_sm: int
    issue_per_clock_per_sm: int = 4
    source: dict[str, str] = field(default_factory=dict, compare=False)

    def as_dict(self) -> dict:
        """Plain dict for JSON."""
        return asdict(self)


def _limits(cc: tuple[int, int]) -> str:
    return _GUIDE.format(cc=f"{cc[0]}.{cc[1]}")


_ISSUE = (
    "4 warp schedulers per SM, each issuing one warp-instruction per clock (the SM diagrams of "
    "the Ampere, Hopper and Ada architecture whitepapers)"
)

CARDS: dict[str, Card] = {
    "H100 SXM": Card(
        name="H100 SXM",
        cc=(9, 0),
        sms=132,
        boost_mhz=1980,
        l1_shared_kib_per_sm=256,
        max_shared_kib_per_sm=228,
        max_threads_per_sm=2048,
        max_warps_per_sm=64,
        max_blocks_per_sm=32,
        registers_per_sm=65536,
        source={
            "sms": "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022): H100 SXM5, 132 SMs",
            "boost_mhz": "NVIDIA H100 datasheet: 67 TFLOPS FP32 (SXM) = 132 SMs x 128 x 2 x "
            "1.98 GHz; 1980 MHz is the SXM5 part's maximum SM clock",
            "l1_shared_kib_per_sm": "H100 architecture whitepaper: 256 KB combined L1 data "
            "cache and shared memory per SM",
            "max_shared_kib_per_sm": _limits((9, 0)) + " (228 KB per SM)",
            "limits": _limits((9, 0)),
            "issue": _ISSUE,
        },
    ),
    "H200 SXM": Card(
        name="H200 SXM",
        cc=(9, 0),
        sms=132,
        boost_mhz=1980,
        l1_shared_kib_per_sm=256,
        max_shared_kib_per_sm=228,
        max_threads_per_sm=2048,
        max_warps_per_sm=64,
        max_blocks_per_sm=32,
        registers_per_sm=65536,
        source={
            "sms": "NVIDIA H200 Tensor Core GPU datasheet (2024): the GH100 of the H100 SXM "
            "with 141 GB of HBM3e; 67 TFLOPS FP32 (SXM) = 132 SMs x 128 x 2 x 1.98 GHz",
            "boost_mhz": "derived from the H200 datasheet's 67 TFLOPS FP32 (SXM), as the H100 "
            "SXM's: 1980 MHz",
            "l1_shared_kib_per_sm": "Hopper (GH100) SM, H100 architecture whitepaper: 256 KB "
            "combined L1 data cache and shared memory per SM",
            "max_shared_kib_per_sm": _limits((9, 0)) + " (228 KB per SM)",
            "limits": _limits((9, 0)),
            "issue": _ISSUE,
        },
    ),
    "A100 SXM": Card(
        name="A100 SXM",
        cc=(8, 0),
        sms=108,
        boost_mhz=1410,
        l1_shared_kib_per_sm=192,
        max_shared_kib_per_sm=164,
        max_threads_per_sm=2048,
        max_warps_per_sm=64,
        max_blocks_per_sm=32,
        registers_per_sm=65536,
        source={
            "sms": "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): A100, 108 SMs",
            "boost_mhz": "A100 architecture whitepaper: GPU boost clock 1410 MHz (19.5 TFLOPS "
            "FP32 = 108 x 128 x 2 x 1.41 GHz)",
            "l1_shared_kib_per_sm": "A100 architecture whitepaper: 192 KB combined L1 data "
            "cache and shared memory per SM",
            "max_shared_kib_per_sm": _limits((8, 0)) + " (164 KB per SM)",
            "limits": _limits((8, 0)),
            "issue": _ISSUE,
        },
    ),
    "L4": Card(
        name="L4",
        cc=(8, 9),
        sms=58,
        boost_mhz=2040,
        l1_shared_kib_per_sm=128,
        max_shared_kib_per_sm=100,
        max_threads_per_sm=1536,
        max_warps_per_sm=48,
        max_blocks_per_sm=24,
        registers_per_sm=65536,
        source={
            "sms": "NVIDIA L4 datasheet: 7,424 CUDA cores = 58 SMs x 128 (AD104)",
            "boost_mhz": "derived from the NVIDIA L4 datasheet's 30.3 TFLOPS FP32 = 7,424 x 2 x "
            "2.04 GHz (2040 MHz boost)",
            "l1_shared_kib_per_sm": "NVIDIA Ada GPU Architecture whitepaper: 128 KB L1/shared "
            "memory per SM",
            "max_shared_kib_per_sm": _limits((8, 9)) + " (100 KB per SM)",
            "limits": _limits((8, 9)),
            "issue": _ISSUE,
        },
    ),
    "RTX 4090": Card(
        name="RTX 4090",
        cc=(8, 9),
        sms=128,
        boost_mhz=2520,
        l1_shared_kib_per_sm=128,
        max_shared_kib_per_sm=100,
        max_threads_per_sm=1536,
        max_warps_per_sm=48,
        max_blocks_per_sm=24,
        registers_per_sm=65536,
        source={
            "sms": "NVIDIA Ada GPU Architecture whitepaper, GeForce RTX 4090: 128 SMs, 16,384 "
            "CUDA cores",
            "boost_mhz": "Ada architecture whitepaper: RTX 4090 boost clock 2520 MHz (82.6 "
            "TFLOPS FP32 = 16,384 x 2 x 2.52 GHz)",
            "l1_shared_kib_per_sm": "Ada architecture whitepaper: 128 KB L1/shared memory per SM",
            "max_shared_kib_per_sm": _limits((8, 9)) + " (100 KB per SM)",
            "limits": _limits((8, 9)),
            "issue": _ISSUE,
        },
    ),
}


@dataclass(frozen=True)
class Timing:
    """Latencies and unit occupancies of one SM generation's instructions, for the latency
    model (gpu_anneal.kernels.latency_model); `source` names each figure's origin, and says
    where a figure is an assumption rather than a published measurement.

    latency[cls]  cycles from a warp-instruction's issue until an instruction that reads its
                  result may issue (ldg_l1 / ldg_l2 / ldg_dram: a global load served by the
                  SM's L1, by L2, by DRAM)
    busy[cls]     cycles one warp-instruction of the class keeps its unit of an SM
                  sub-partition (one of 4 schedulers) busy: 32 lanes / the unit's lanes
    mio_per_clock the SM's shared memory / L1 / shuffle pipeline: wavefronts (and warp
                  shuffles) served a clock, all 4 sub-partitions together
    """

    name: str
    latency: dict[str, float]
    busy: dict[str, float]
    mio_per_clock: float = 1.0
    source: dict[str, str] = field(default_factory=dict, compare=False)

    def as_dict(self) -> dict:
        """Plain dict for JSON."""
        return asdict(self)


_MICRO_AMPERE = (
    "Abdelkhalik, Arafa, Santhi, Badawy, 'Demystifying the Nvidia Ampere Architecture "
    "through Microbenchmarking and Instruction-level Analysis' (arXiv 2208.11174, 2022): a "
    "dependent 32-bit add takes 4 cycles (2 when independent); mad runs on the FP32 pipe"
)
_MEMORY_PAGES = (
    "H100-class memory latencies as summarised by https://the-dsvolk.github.io/ai-perf/"
    "ai-infra/memory_request_life.html (L1/shared ~20-30 cycles, L2 ~200, HBM ~400-800), "
    "https://fridayswithfaraday.com/posts/gpu-hw-memory-hierarchy-cache-behavior (shared "
    "~20-30, L1 ~30, L2 ~200-400, HBM3 ~400-800) and the table of Hopper features in "
    "https://pmc.ncbi.nlm.nih.gov/articles/PMC10448217/ (shared 20, L2 200, global 400, "
    "arithmetic 4); microbenchmarks of the Hopper memory hierarchy: Luo et al., "
    "'Benchmarking and Dissecting the Nvidia Hopper GPU Architecture' (arXiv 2402.13499, 2024)"
)
_THROUGHPUT = (
    "CUDA C++ Programming Guide, 'Arithmetic Instructions' throughput table (results per "
    "clock per SM, cc 8.0 and 9.0): 64 for 32-bit integer add, multiply-add, shift, compare "
    "and logic (16 lanes a sub-partition: a warp-instruction 2 cycles), 16 for population "
    "count (4 lanes a sub-partition: 8 cycles), 32 for warp shuffle (one warp a clock per "
    "SM); the 16 INT32 and 16 FP32/IMAD lanes of an Ampere sub-partition: "
    "https://lubits.ch/flash/Appendix-A---Ampere-Microarchitecture"
)

HOPPER_TIMING = Timing(
    name="sm_90 (Hopper)",
    latency={
        "alu": 4.0,
        "fma": 4.0,
        "fma_wide": 4.0,
        "popc": 6.0,
        "uniform": 4.0,
        "vote": 4.0,
        "s2r": 20.0,
        "ldc": 30.0,
        "lds": 30.0,
        "shfl": 30.0,
        "ldg_l1": 35.0,
        "ldg_l2": 250.0,
        "ldg_dram": 550.0,
        "control": 0.0,
    },
    busy={
        "alu": 2.0,
        "fma": 2.0,
        "fma_wide": 4.0,
        "popc": 8.0,
        "uniform": 1.0,
        "vote": 2.0,
        "s2r": 1.0,
        "ldc": 1.0,
        "lds": 1.0,
        "shfl": 1.0,
        "ldg_l1": 1.0,
        "ldg_l2": 1.0,
        "ldg_dram": 1.0,
        "control": 1.0,
    },
    mio_per_clock=1.0,
    source={
        "alu": _MICRO_AMPERE + "; busy: " + _THROUGHPUT,
        "fma": _MICRO_AMPERE + " (IMAD on the FP32 pipe: 16 lanes a sub-partition)",
        "fma_wide": "assumption: IMAD.WIDE's latency as IMAD's (no separate figure in the "
        "sources), its two 32-bit halves two passes of the 16-lane unit (busy 4)",
        "popc": "assumption for the latency (not in the sources found): 6 cycles, above the "
        "fixed-latency 4; busy 8 from " + _THROUGHPUT,
        "uniform": "assumption: the uniform datapath's ALU latency as the vector ALU's",
        "vote": "assumption: a ballot's latency as a fixed-latency ALU op's",
        "s2r": "assumption: a special-register read ~20 cycles (variable latency)",
        "ldc": "assumption: a constant load with an immediate address served as a shared load",
        "lds": _MEMORY_PAGES + ": 30 cycles taken (the upper end of 20-30)",
        "shfl": "a warp shuffle costs about a shared load (N. Wilt, The CUDA Handbook, sec. "
        "'Warp shuffle', as translated at https://cnblogs.com/wujianming-110117/p/"
        "14238940.html); one warp a clock per SM (" + _THROUGHPUT + ")",
        "ldg_l1": _MEMORY_PAGES + ": an L1 hit ~30-40 cycles, 35 taken",
        "ldg_l2": _MEMORY_PAGES + ": an L2 hit ~200-400 cycles, 250 taken",
        "ldg_dram": _MEMORY_PAGES + ": HBM ~400-800 cycles, 550 taken",
        "control": "branches, convergence barriers and NOP: issue only, no result to wait for",
        "mio_per_clock": "one 128-byte wavefront a clock per SM (the performance model's L1 "
        "rate, gpu_anneal.kernels.perf_model) and one warp shuffle a clock per SM",
    },
)

# the latency model's figures by compute capability major (Ampere's taken as Hopper's: the
# sources above give the same figures for both within their ranges)
TIMINGS: dict[int, Timing] = {9: HOPPER_TIMING, 8: HOPPER_TIMING}


def timing(cc: tuple[int, int]) -> Timing:
    """The latency model's figures of a compute capability (KeyError: none for it)."""
    try:
        return TIMINGS[cc[0]]
    except KeyError:
        known = ", ".join(f"{k}.x" for k in TIMINGS)
        raise KeyError(
            f"compute capability {cc}: no instruction timing for the latency model (known: {known})"
        ) from None


def card(name: str) -> Card:
    """The card of a name in CARDS; KeyError lists the names known."""
    try:
        return CARDS[name]
    except KeyError:
        raise KeyError(f"card {name!r}: expected one of {', '.join(CARDS)}") from None


def shared_kib_per_sm(arch: str) -> int:
    """Shared memory an SM of architecture `arch` (e.g. "sm_80") holds, in KiB, from CARDS; an
    architecture of no named card gets the smallest of them (a kernel built for it fits)."""
    cc = parse_arch(arch)
    found = [c.max_shared_kib_per_sm for c in CARDS.values() if c.cc == cc]
    return max(found) if found else min(c.max_shared_kib_per_sm for c in CARDS.values())


# The architectures ptxas (CUDA 12.9) compiles for, as sm_XY numbers: compute capability X.Y,
# the last digit the minor (sm_100 is 10.0)
ARCHITECTURES = (50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90, 100, 101, 103, 120, 121)


def parse_arch(arch: str) -> tuple[int, int]:
    """'sm_90' -> (9, 0), 'sm_100a' -> (10, 0); ValueError naming the known architectures for
    any other text or number."""
    match = re.fullmatch(r"sm_(\d{1,3})a?", arch)
    if not match or int(match.group(1)) not in ARCHITECTURES:
        known = ", ".join(f"sm_{n}" for n in ARCHITECTURES)
        raise ValueError(f"architecture {arch!r}: expected one of {known} (an 'a' after one "
                         "allowed)")  # fmt: skip
    number = int(match.group(1))
    return number // 10, number % 10
