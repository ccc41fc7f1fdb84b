"""The persistent Sudoku kernel's shared words: the control row and the puzzle records.

Glossary: r ring row (a puzzle's place in the device's table and record ring: any row free when
it is published), R rows of the ring, p a puzzle's place in the order of publishing, q puzzle
position in the run, i chain index within its puzzle, m the puzzle's spare round (0: its own cpp
chains; m > 0: chains that joined it, streams m x SPARE_STRIDE + ...).

The order ring, int64[R] on the device: order[p mod R] = the row of the p-th puzzle published,
copied before PUBLISHED is raised past p. An entry is written again only for puzzle p + R, which
cannot be published while puzzle p's chains are untaken (tasks are taken in order: the R puzzles
p .. p + R - 1 would hold every row, none done), so a chain taking puzzle p reads its row.

The control row, int64[N_CTL] on the device; the host writes PUBLISHED, CLOSED, STOP and OPEN
by copies on its second stream while the kernel runs, the kernel reads them by atomic reads:

    CTL_NEXT       the next chain task: task t is chain i = t mod cpp of the p-th published
                   puzzle, p = t div cpp (its row: order[p mod R])
    CTL_PUBLISHED  puzzles whose tables are in the ring (p < PUBLISHED may be taken)
    CTL_CLOSED     1: the input is exhausted (no puzzle beyond PUBLISHED will come): a chain
                   with no task may join a running puzzle that no chain has solved yet
    CTL_STOP       1: stop (Ctrl-C); every chain stops at its next round
    CTL_JOINS      spare joins tried (the kernel's counter): the k-th try starts at entry
                   k mod OPEN of the open list
    CTL_OPEN       entries of the open list, int64[R] on the device: once the input is
                   closed, the rows the host has not drained (written before CLOSED, then at
                   each drain that finds puzzles done); a joining chain takes the first entry
                   from its start whose puzzle still runs unsolved, so that joins go round the
                   open puzzles in turn (a few reads a join, not a look at every row)

A record, int64[N_REC] a ring row, written by the chains of its puzzle:

    R_Q            the puzzle's position q (host)
    R_STATE        FREE, PUBLISHED (host), DONE (the last chain out)
    R_LEFT         chains of the puzzle not yet stopped, untaken tasks included (host: cpp;
                   a joining chain adds one while it is above 0)
    R_SPARES       spare chains taken: the k-th is chain k mod cpp of round 1 + k div cpp
    R_KEY          the reported chain's rank (rank_key; INT64_MAX: none yet)
    R_LOCK         0 / 1: a chain writing the reported fields and grid
    R_PICK         the reported chain: m x SPARE_STRIDE + i
    R_PICK_COST, R_PICK_TRIALS, R_PICK_PROPOSALS     its counters
    R_SOLVED, R_TRIALS, R_PROPOSALS, R_ACCEPTED      sums over the puzzle's chains
    R_CHAINS       chains that ran

rank_key orders chains as the slice pool reports them: a solved chain before any unsolved, fewer
proposals first (unsolved: lower best cost), then the lower round m, then the lower index i:

    bit 62      1: unsolved
    bits 28-61  proposals (solved) or best cost (unsolved), capped at 2**34 - 1
    bits 16-27  m (at most MAX_ROUNDS - 1)
    bits 0-15   i
"""

from __future__ import annotations

CTL_NEXT, CTL_PUBLISHED, CTL_CLOSED, CTL_STOP, CTL_JOINS, CTL_OPEN = 0, 1, 2, 3, 4, 5
N_CTL = 6

R_Q, R_STATE, R_LEFT, R_SPARES, R_KEY, R_LOCK = 0, 1, 2, 3, 4, 5
R_PICK, R_PICK_COST, R_PICK_TRIALS, R_PICK_PROPOSALS = 6, 7, 8, 9
R_SOLVED, R_TRIALS, R_PROPOSALS, R_ACCEPTED, R_CHAINS = 10, 11, 12, 13, 14
N_REC = 15

FREE, PUBLISHED, DONE = 0, 1, 2

SPARE_STRIDE = 1 << 40  # gpu_anneal.sudoku_solver.SPARE_STRIDE
MAX_ROUNDS = 4096  # spare rounds a puzzle may take (m < MAX_ROUNDS)
MAX_CHAINS = 1 << 16  # chains a puzzle (i < MAX_CHAINS)
VALUE_CAP = (1 << 34) - 1
UNSOLVED_BIT = 1 << 62
NO_KEY = (1 << 63) - 1
NOT_SOLVED = 1 << 62  # cpu_reference.sudoku.rules.NOT_SOLVED: no chain of the puzzle solved


def rank_key(solved: bool, value: int, m: int, i: int) -> int:
    """The rank of a chain (module docstring): lower is reported first."""
    v = min(max(int(value), 0), VALUE_CAP)
    return (0 if solved else UNSOLVED_BIT) | (v << 28) | (int(m) << 16) | int(i)
