"""The exact Sudoku solver's rule sets, by name (light: no numba, for the API's checks).

fast   this project's solvers: the band solver on 9x9 (exact_bands9), the exact-cover
       solver with box-line, all-different on hard instances and restarts elsewhere
       (exact_large)
seed   seed 003's three deduction rules and its search (exact), as published
"""

from __future__ import annotations

RULES = ("fast", "seed")
