"""The Sudoku moves, each declared once: its name and code, how it proposes, whether the
cooperative kernels run it, and the measured move whose rates price it where it has none.

Glossary:
    move       a Move: one declaration, registered in MOVES by name (register_move)
    code       the move's integer code: the rules' `move` argument, SudokuBatch.move, RunPlan's
               move_code, the kernels' cache names (sudoku_o3_m4)
    proposal   a Proposal: the compile-time flags the rules template and the cooperative steps
               read (rules.model writes them into a specialisation's constants module: SWAP,
               CANDS, FOCUS, TWO_CHOICE), so the templates draw the move's proposal from its
               declaration and never compare a move's code
    rates      the name of the measured move whose CPU and card figures stand for this one in
               gpu_anneal.backend_choice (`auto`), the cooperative acceptance of the performance
               model; None: the move has figures of its own

A move whose proposal these flags express is this one declaration, registered (register_move);
one they cannot express adds its flag here and its branch to the rules template
(cpu_reference/sudoku/rules_template.py) and, when cooperative, to gpu_anneal/kernels/
coop_rules.py. Moves that propose alike share one compiled specialisation of the rules
(rules.proposal_code): their chains are the same chains.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Proposal:
    """How a move proposes: the flags the rules read at compile time.

    swap         two free cells of one box swap digits (Lewis); else one free cell gets a
                 new digit
    candidates   the new digit drawn among the cell's candidates (else among the N - 1
                 others)
    focused      the cell drawn among the free cells now in conflict (the conflict set)
    two_choice   the new digit the better of two candidate draws (with focused)
    """

    swap: bool = False
    candidates: bool = False
    focused: bool = False
    two_choice: bool = False

    def __post_init__(self):
        if self.swap and (self.candidates or self.focused or self.two_choice):
            raise ValueError("a box swap draws no cell and no digit: its other flags stay off")
        if self.two_choice and not (self.focused and self.candidates):
            raise ValueError("two_choice draws its second digit for a focused candidate move")


@dataclass(frozen=True)
class Move:
    """One Sudoku move: the `--move` name, its code, its proposal, its help, whether the
    cooperative kernels (one warp a chain) run it, and the move whose figures price it."""

    name: str
    code: int
    proposal: Proposal
    summary: str
    cooperative: bool = True
    rates: str | None = None

    def __post_init__(self):
        if self.cooperative and self.proposal.swap:
            raise ValueError(f"move {self.name}: the cooperative kernels run one-cell moves only")


MOVES: dict[str, Move] = {}
MOVE_NAMES: dict[str, int] = {}  # name -> code of every registered move, in declaration order


def register_move(move: Move) -> Move:
    """Add a move: its name becomes a `--move` choice and its code a rules specialisation.
    ValueError when the name or the code is taken."""
    if move.name in MOVES:
        raise ValueError(f"move {move.name!r} is already registered")
    if move.code in MOVE_NAMES.values():
        raise ValueError(f"move code {move.code} is already {move_by_code(move.code).name!r}'s")
    MOVES[move.name] = move
    MOVE_NAMES[move.name] = move.code
    return move


def unregister_move(name: str) -> None:
    """Remove a registered move (KeyError when there is none by that name)."""
    del MOVES[name]
    del MOVE_NAMES[name]


def move_by_code(code: int) -> Move:
    """The registered move of a code; KeyError naming the code when none has it."""
    for move in MOVES.values():
        if move.code == code:
            return move
    raise KeyError(f"no move has code {code}")


SIRDEY = register_move(
    Move("sirdey", 0, Proposal(), "one free cell gets one of the N - 1 other digits")
)
CANDIDATE = register_move(
    Move(
        "candidate",
        1,
        Proposal(candidates=True),
        "Sirdey's move, the new digit drawn among the cell's candidates",
        rates="sirdey",
    )
)
BOX_SWAP = register_move(
    Move(
        "box-swap",
        2,
        Proposal(swap=True),
        "Lewis: boxes hold permutations; two free cells of one box swap digits",
        cooperative=False,
        rates="sirdey",
    )
)
FOCUSED = register_move(
    Move(
        "focused",
        3,
        Proposal(candidates=True, focused=True),
        "the candidate move on a cell drawn among the free cells now in conflict",
        rates="focused-two",
    )
)
FOCUSED_TWO = register_move(
    Move(
        "focused-two",
        4,
        Proposal(candidates=True, focused=True, two_choice=True),
        "the focused move, its new digit the better of two candidate draws",
        rates="focused",
    )
)
