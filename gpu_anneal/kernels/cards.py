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


def parse_arch(arch: str) -> tuple[int, int]:
    """'sm_90' -> (9, 0)."""
    match = re.fullmatch(r"sm_(\d)(\d+)a?", arch)
    if not match:
        raise ValueError(f"architecture {arch!r}: expected a form like sm_80 or sm_90")
    return int(match.group(1)), int(match.group(2))
