"""Named schedule presets: a measured schedule string for each Sudoku order.

Glossary:
    n        Sudoku order (box side); N = n * n digits
    T        temperature; beta = 1 / T
    K        plateaus per trial (max_plateaus); the chain then restarts from a fresh random grid
    L        moves per plateau (the number of cells, as in every schedule)

"band": every trial stays inside the low band of temperatures where annealing finds
solutions, instead of cooling from T0 = e_P (or 1) for most of the time limit, and a chain
restarts after K plateaus rather than after a stall of hundreds of thousands:

    9x9 (and 4x4)     Sirdey's linear law (course cooling rate) from T0 = 0.34 for K = 20,000
                      plateaus, no stall rule: T ends at 0.19 (4x4, e_P = 56: at 0.03)
    16x16 and above   geometric from T = 0.34 down to 0.2 over K = 30,000 plateaus, no stall rule

    T  0.34 |\\        |\\        |\\
            |  \\      |  \\      |  \\          one trial = K plateaus, then a restart
       0.2  |    \\    |    \\    |    \\
            +---------+---------+---------> plateaus

The values come from measured sweeps (benchmarks/results/anneal_peers_tune_*.md: 9x9 on
magictour_top1465, 25x25 on Lloyd & Amos instances at 35-50 % fill that the benchmark does not
use). On 25x25 the best held temperature moves with the fill (about 0.22-0.24 at 35 %, 0.3 at
50 %); the band covers them all at some cost on each. 4x4 and 16x16 take their neighbours'
values unmeasured; 36x36 takes the 25x25 band. Meant with `--move candidate --propagate`; the
published algorithm (`sirdey-course`, sirdey move) is no preset and stays as it is.

"auto": the best technique measured per order, which `gpu-anneal solve` runs when none of
--schedule, --move, --t0 and --propagate is given, always with propagation first
(DEFAULT_TECHNIQUE) and the move preset "auto" (MOVE_PRESETS): the focused move (the candidate
move on a cell drawn among those in conflict) from 16x16 up, and on 9x9 and 4x4 its two-choice
form "focused-two" (the new digit the better of two candidate draws):

    9x9 (and 4x4)     short held trials for focused-two: geometric from T = 0.5 down to 0.48
                      over about 2,000 plateaus, no stall rule. On training puzzles in the same run
                      (2 runs at once, 10 runs a puzzle) its median TTS99 of one core was
                      0.087 s on forum_hardest_1106 puzzles 101-200 and 0.081 s on the first 60
                      of magictour_top1465, against 0.149 s and 0.091 s for the focused move
                      with the former preset (Sirdey's linear law from T0 = 0.4 over 2,000
                      plateaus), and 0.100 s and 0.116 s for the focused move held at 0.44 to
                      0.42 (benchmarks/results/sweep_tts_9x9_forum_moves.md,
                      sweep_tts_9x9_moves.md; earlier sweeps: sweep_tts_9x9_focused*.md;
                      timed before bench tts ran each run alone on its core, so each
                      figure counts the seconds a core waited for the other run; timed
                      alone, the forum sweep keeps its order: 0.051-0.059 s for focused-two,
                      0.069 and 0.087 s for the focused move,
                      sweep_tts_9x9_forum_moves_alone.md)
    16x16 and above   a warmer band than the candidate move's: geometric from T = 0.36 down to
                      0.26 (about 16,000 plateaus), no stall rule; a trial that ends unsolved is
                      reheated (the chain keeps its grid and cools on from T = 0.3) three times
                      in a row, then starts a fresh grid. On 36x36 training instances at 50 %
                      filled it solved 2 of 2 (median 4.7 s, 2 chains) where the candidate
                      move's band (T 0.32 to 0.2) solved none in 60 s with either move; on 25x25
                      training instances (4 a level at 40 / 45 / 50 %) its medians were
                      0.14 / 0.033 / 0.021 s against 0.025 / 0.070 / 0.196 s for that band
                      (benchmarks/results/anneal_peers_tune_*focused*.md); focused-two is not
                      measured there

The candidate move's schedules stay available as the preset "candidate-auto" (its measured
best: 9x9 T0 = 0.34 over 2,000 plateaus; 16x16 and above geometric from 0.32 to 0.2 over
20,000 plateaus, reheated to 0.28 up to 3 times: benchmarks/results/sweep_tts_9x9*.md,
anneal_peers_tune_band_start.md, anneal_peers_tune_reheats.md).

A preset name takes the same key=value tail as the schedule it expands to; keys given there win
over the preset's ("band:t0=0.3").
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

# preset -> order -> the schedule string it stands for
PRESETS: dict[str, dict[int, str]] = {
    "band": {2: _HELD_9X9, 3: _HELD_9X9, 4: _BAND, 5: _BAND, 6: _BAND},
    "auto": {
        2: _FOCUSED_TWO_9X9,
        3: _FOCUSED_TWO_9X9,
        4: _FOCUSED_BAND,
        5: _FOCUSED_BAND,
        6: _FOCUSED_BAND,
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

# The technique of a Sudoku annealing run that names none of its parts.
DEFAULT_TECHNIQUE = {"schedule": "auto", "move": "auto", "propagate": True}
# The parts' defaults once any part is named: Sirdey's published algorithm.
PUBLISHED = {"schedule": "sirdey-course", "move": "sirdey", "propagate": False}


def technique(
    schedule: str | None, move: str | None, t0: float | None, propagate: bool
) -> tuple[str, str, bool]:
    """(schedule, move, propagate) of a Sudoku annealing run: DEFAULT_TECHNIQUE when none of the
    four is given, else the given ones with PUBLISHED's for the rest."""
    if schedule is None and move is None and t0 is None and not propagate:
        return (
            DEFAULT_TECHNIQUE["schedule"],
            DEFAULT_TECHNIQUE["move"],
            DEFAULT_TECHNIQUE["propagate"],
        )
    return schedule or PUBLISHED["schedule"], move or PUBLISHED["move"], bool(propagate)


def move_of(name: str, order: int) -> str:
    """The move a move preset name stands for at this order ("auto": focused-two on 9x9 and
    4x4, focused from 16x16 up); a name that is no preset comes back unchanged."""
    table = MOVE_PRESETS.get(name)
    if table is None:
        return name
    return table.get(order, table[max(table)])


def expand(name: str, order: int) -> str:
    """The schedule string a preset name (with an optional ':key=value,...' tail) stands for at
    this order; a name that is no preset comes back unchanged."""
    base, colon, tail = name.partition(":")
    table = PRESETS.get(base)
    if table is None or order not in table:
        return name
    return table[order] + ("," + tail if colon and tail.strip() else "")
