"""Everything that needs no GPU: puzzles, rules, verifiers, exact solvers, RNG, schedules."""
