"""The registry of puzzle kinds: one object per kind, each offering the interface of
gpu_anneal.kinds.base.PuzzleKind (its methods and moves, reading, verification, cost, solution
text and rows, solving a stream of items).

    KINDS            name -> kind object, in the order choices are listed
    kind_of(name)    the kind object, InputError naming the valid kinds otherwise
    names()          the kinds' names (the results' and records' kind enums: gpu_anneal.schemas)
    parsed_kinds()   parsed puzzle type -> its kind's name (the readers refuse another kind's)
    trial_kernels()  kind name -> its CUDA trial kernel's factories, for the PTX checks
    register(kind)   add a kind (unregister(name) removes it)

The API, the readers, resume and the command line dispatch through this registry; a new kind is
one module here (a PuzzleKind subclass and its KIND) and one line below.
"""

from __future__ import annotations

from collections.abc import Callable

from cpu_reference.errors import InputError
from gpu_anneal.kinds import hashi, shikaku, sudoku
from gpu_anneal.kinds.base import PuzzleKind

KINDS: dict[str, PuzzleKind] = {}


def register(kind: PuzzleKind) -> None:
    """Add a kind to the registry, listed after those already there; ValueError when its name
    is taken."""
    if kind.name in KINDS:
        raise ValueError(f"kind {kind.name!r} is registered already")
    KINDS[kind.name] = kind


def unregister(name: str) -> None:
    """Remove a kind from the registry (KeyError when none has that name)."""
    del KINDS[name]


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


def parsed_kinds() -> dict[type, str]:
    """Each parsed puzzle type the API takes as a source -> its kind's name."""
    return {t: name for name, k in KINDS.items() for t in k.parsed_types}


def trial_kernels() -> dict[str, tuple[Callable, Callable]]:
    """Each kind with a CUDA trial kernel -> (the kernel's Python function factory, the factory
    of its argument types), as gpu_anneal.kernels.ptx.kernel_registry takes them."""
    return {
        getattr(k, "trial_name", name): (lambda k=k: k.trial_kernel().function(), k.trial_types)
        for name, k in KINDS.items()
        if getattr(k, "trial", None) is not None
    }


def methods() -> tuple[str, ...]:
    """Every registered kind's methods, in registration order, repeats dropped ("anneal",
    "exact", "ilp"): a result's `method` (never "auto", which runs one of the others)."""
    return tuple(dict.fromkeys(m for k in KINDS.values() for m in k.methods if m != "auto"))


def game_id_kinds() -> tuple[str, ...]:
    """The kinds whose puzzles are Tatham game IDs (Shikaku, Hashi)."""
    return tuple(name for name, k in KINDS.items() if k.game_ids)


register(sudoku.KIND)
register(shikaku.KIND)
register(hashi.KIND)
