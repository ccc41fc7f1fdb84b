"""Named schedule presets: a measured schedule string for each Sudoku order.

Glossary:
    n        Sudoku order (box side); N = n * n digits
    T        temperature; beta = 1 / T
    K        plateaus per trial (max_plateaus); the chain then restarts from a fresh random grid
    L        moves per plateau (the number of cells, as in every schedule)

PRESETS maps a preset name and an order n to the schedule string it stands for; MOVE_PRESETS
does the same for moves. "band" holds every trial of K plateaus inside the low band of
temperatures where annealing finds solutions (meant with --move candidate --propagate); "auto"
is the best technique measured per order, run with propagation first and the move preset "auto"
(focused-two on 9x9 and 4x4, focused from 16x16 up): the default technique (DEFAULT_TECHNIQUE);
"candidate-auto" is the candidate move's own best. TECHNIQUES names the two sets a run starts
from: "default" and "published" (Sirdey's course schedule, his move, no deduction; no preset
changes it). Each of schedule, move and propagate given replaces that part of the set alone, and
t0 restarts whichever schedule runs. A preset name takes the same key=value tail as the schedule
it expands to; keys given there win over the preset's ("band:t0=0.3").

The values were chosen from measured sweeps: benchmarks/results/tuning/sweep_tts_9x9*.md (9x9,
by TTS99 on training puzzles), benchmarks/results/tuning/anneal_peers_tune_*.md (16x16 to 36x36,
by wall seconds on Lloyd & Amos training instances; 36x36 checked again by TTS99 on Lewis-style
training instances: sweep_tts_36x36_49*.md, and its cooling rate at 50 % filled:
sweep_tts_36x36_50_plateaus*.md) and sweep_tts_49x49_46*.md and
sweep_tts_49x49_50_plateaus.md (49x49, by TTS99 on Lewis-style training instances of another
seed than bench_frontier's; 64x64 keeps the values
49x49 had before, chosen by wall seconds: frontier_tune_49x49_*.md, and its cooling rate by
TTS99: sweep_tts_64x64_45_plateaus.md);
docs/algorithm.md says which file gave each value.
"""

from __future__ import annotations

_HELD_9X9 = "sirdey-course:t0=0.34,stall=0,max_plateaus=20000"
_BAND = "geometric:t0=0.34,t_final=0.2,ratio=0.9999823,stall=0"  # 0.34 -> 0.2 in 30,000
_SHORT_9X9 = "sirdey-course:t0=0.34,stall=0,max_plateaus=2000"
# 0.32 -> 0.2 in 20,000; an unsolved trial reheated to 0.28 up to 3 times in a row
_SHORT_BAND = "geometric:t0=0.32,t_final=0.2,ratio=0.9999765,stall=0,reheat=0.28,reheats=3"
_FOCUSED_TWO_9X9 = "geometric:t0=0.5,t_final=0.48,ratio=0.99997959,stall=0"  # 2,000 plateaus
# 0.36 -> 0.26 in about 16,000; an unsolved trial reheated to 0.3 up to 3 times in a row
_FOCUSED_BAND = "geometric:t0=0.36,t_final=0.26,ratio=0.99998,stall=0,reheat=0.3,reheats=3"
# 36x36 the same band cooled half as fast (about 32,500 plateaus: sweep_tts_36x36_50_plateaus*.md)
_FOCUSED_BAND_36 = "geometric:t0=0.36,t_final=0.26,ratio=0.99999,stall=0,reheat=0.3,reheats=3"
# 49x49 a cooler band: 0.31 -> 0.21, reheat 0.26 (by TTS99 at 46 %: sweep_tts_49x49_46*.md),
# cooled half as fast (at 50 %: sweep_tts_49x49_50_plateaus.md)
_FOCUSED_BAND_49 = "geometric:t0=0.31,t_final=0.21,ratio=0.99999,stall=0,reheat=0.26,reheats=3"
# 64x64 keeps the band 49x49 had before its TTS99 sweep: 0.3 -> 0.2, reheat 0.25 (cooled half
# as fast, slower by TTS99 at 45 %: sweep_tts_64x64_45_plateaus.md)
_FOCUSED_BAND_64 = "geometric:t0=0.30,t_final=0.20,ratio=0.99998,stall=0,reheat=0.25,reheats=3"

# preset -> order -> the schedule string it stands for (orders past a preset's last key take it)
PRESETS: dict[str, dict[int, str]] = {
    "band": {2: _HELD_9X9, 3: _HELD_9X9, 4: _BAND, 5: _BAND, 6: _BAND},
    "auto": {
        2: _FOCUSED_TWO_9X9,
        3: _FOCUSED_TWO_9X9,
        4: _FOCUSED_BAND,
        5: _FOCUSED_BAND,
        6: _FOCUSED_BAND_36,
        7: _FOCUSED_BAND_49,
        8: _FOCUSED_BAND_64,
    },
    "candidate-auto": {
        2: _SHORT_9X9,
        3: _SHORT_9X9,
        4: _SHORT_BAND,
        5: _SHORT_BAND,
        6: _SHORT_BAND,
    },
}

# move preset -> order -> the move it stands for (orders above 6 take the last one)
MOVE_PRESETS: dict[str, dict[int, str]] = {
    "auto": {2: "focused-two", 3: "focused-two", 4: "focused", 5: "focused", 6: "focused"},
}

# technique name -> the parts of a Sudoku annealing run that it sets
TECHNIQUES: dict[str, dict] = {
    # the best technique measured: what a run that names no part runs
    "default": {"schedule": "auto", "move": "auto", "propagate": True},
    # Sirdey's published algorithm: the course's schedule, his move, no deduction
    "published": {"schedule": "sirdey-course", "move": "sirdey", "propagate": False},
}
DEFAULT_TECHNIQUE = TECHNIQUES["default"]
PUBLISHED = TECHNIQUES["published"]


def technique(
    schedule: str | None = None,
    move: str | None = None,
    propagate: bool | None = None,
    name: str | None = None,
) -> tuple[str, str, bool]:
    """(schedule, move, propagate) of a Sudoku annealing run: the parts of the technique `name`
    (TECHNIQUES; None: "default"), each one given (not None) in place of that part alone."""
    base = TECHNIQUES["default" if name is None else name]
    return (
        base["schedule"] if schedule is None else schedule,
        base["move"] if move is None else move,
        base["propagate"] if propagate is None else bool(propagate),
    )


def move_of(name: str, order: int) -> str:
    """The move a move preset name stands for at this order ("auto": focused-two on 9x9 and
    4x4, focused from 16x16 up); a name that is no preset comes back unchanged."""
    table = MOVE_PRESETS.get(name)
    if table is None:
        return name
    return table.get(order, table[max(table)])


def expand(name: str, order: int) -> str:
    """The schedule string a preset name (with an optional ':key=value,...' tail) stands for at
    this order (orders above the table's take its largest order's); a name that is no preset
    comes back unchanged."""
    base, colon, tail = name.partition(":")
    table = PRESETS.get(base)
    if table is None:
        return name
    return table.get(order, table[max(table)]) + ("," + tail if colon and tail.strip() else "")
