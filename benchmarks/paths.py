"""Where the benchmarks read and write: the repository, the shared data beside it, and the
results folder of each topic (benchmarks/README.md says what each topic holds).

Glossary: topic, one folder of benchmarks/results (TOPICS), named by what its files measure.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
DATA = ROOT / "benchmarks" / "data"  # inputs made for the benchmarks (36x36 instances)
SHIPPED = ROOT / "gpu_anneal" / "data"  # the sets the package ships
SHARED = ROOT.parent / "shared"  # data sets and peer tools kept beside the repository
SUDOKU_DATA = SHARED / "data" / "sudoku"

TOPICS = (
    "anneal",  # annealing solves, beside its peers, the paper's table, success against fill
    "tuning",  # the sweeps that chose the presets (schedules, moves, focused cells, tempering)
    "tts",  # time to solution (`gpu-anneal bench tts`)
    "throughput",  # proposals per second on the CPU
    "exact",  # the exact solver, beside tdoku and with annealing
    "generation",  # full grids and minimal puzzles
    "kernels",  # compiled kernels: ptxas figures, the performance model (no GPU ran)
    "gpu",  # measured on a CUDA card, and Nsight Compute's reports
    "host",  # the host's side: reading and results, the pool's plan, the first call
    "scale",  # Dask workers against one process; million-cell grid puzzles
    "grid_puzzles",  # Shikaku and Hashiwokakero
    "frontier",  # large grids near the phase transition, beside CP-SAT and CaDiCaL
    "install",  # what an install costs: each extra's disk, the test suite's time
)


def results(topic: str) -> Path:
    """benchmarks/results/TOPIC (a KeyError for a topic not in TOPICS)."""
    if topic not in TOPICS:
        raise KeyError(f"results topic {topic!r}: expected one of {', '.join(TOPICS)}")
    return RESULTS / topic
