"""The registry of puzzle kinds: one object per kind, each offering the interface of
gpu_anneal.kinds.base.PuzzleKind (its methods and moves, reading, verification, cost, solution
text and rows, solving a stream of items).

    KINDS          name -> kind object, in the order choices are listed
    kind_of(name)  the kind object, InputError naming the valid kinds otherwise
    names()        the kinds' names

The API, the readers, resume and the command line dispatch through this registry; a new kind is
one module here (a PuzzleKind subclass and its KIND) and one line below.
"""

from __future__ import annotations

from cpu_reference.errors import InputError
from gpu_anneal.kinds import hashi, shikaku, sudoku
from gpu_anneal.kinds.base import PuzzleKind

KINDS: dict[str, PuzzleKind] = {k.name: k for k in (sudoku.KIND, shikaku.KIND, hashi.KIND)}


def names() -> tuple[str, ...]:
    """The kinds' names ("sudoku", "shikaku", "hashi")."""
    return tuple(KINDS)


def kind_of(name) -> PuzzleKind:
    """The kind object of a name (a kind object comes back as it is); InputError otherwise."""
    if isinstance(name, PuzzleKind):
        return name
    try:
        return KINDS[name]
    except (KeyError, TypeError):
        raise InputError(f"kind {name!r}: expected one of {', '.join(KINDS)}") from None


def game_id_kinds() -> tuple[str, ...]:
    """The kinds whose puzzles are Tatham game IDs (Shikaku, Hashi)."""
    return tuple(name for name, k in KINDS.items() if k.game_ids)
