"""gpu-anneal: thousands of simulated-annealing chains at once, on a CUDA card or every CPU core.

Public entry points: `solve_batch` and `solve_one` (Sudoku annealing), with `backend="auto" |
"cuda" | "cpu"`; importing this package never needs CUDA.
"""

__version__ = "0.1.0"

from gpu_anneal.sudoku_solver import SolveResult, solve_batch, solve_one  # noqa: E402

__all__ = ["SolveResult", "solve_batch", "solve_one", "__version__"]
