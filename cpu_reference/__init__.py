"""Everything that needs no GPU: puzzles, rules, verifiers, exact solvers, RNG, schedules."""

from cpu_reference.cache import use_for_numba

use_for_numba()  # before any module of this package decorates a cached function
