"""The CPU reference's names that the command line uses, named through gpu_anneal: the command
line imports gpu_anneal only (pyproject's import contract), and what it takes from
cpu_reference passes here.

    errors     InputError (bad input), OptionError, OutputError; the warnings ResumeWarning,
               KernelWarning, LimitWarning (cpu_reference.errors)
    formats    Sudoku text: FORMATS, MAX_SYMBOL_ORDER, Puzzle, iter_puzzles,
               opens_as_lloyd_amos (cpu_reference.sudoku.formats), format_grid
               (cpu_reference.sudoku.format_writer);
               GRID_FORMATS, those of one puzzle over N lines, and passed_over, a line that
               holds no puzzle (cpu_reference.sudoku.puzzle_lines)
    presets    technique (a technique's schedule, move and deduction), move_of (a move preset
               at an order: cpu_reference.sudoku.presets), with_start (a schedule string with
               its starting temperature: cpu_reference.sudoku.schedules)
    pictures   render_sudoku (cpu_reference.render)
    layout     MAX_ORDER, the largest Sudoku order served (cpu_reference.sudoku.layout)
"""

from __future__ import annotations

from cpu_reference.errors import (
    InputError,
    KernelWarning,
    LimitWarning,
    OptionError,
    OutputError,
    ResumeWarning,
)
from cpu_reference.render import render_sudoku
from cpu_reference.sudoku.format_writer import format_grid
from cpu_reference.sudoku.formats import (
    FORMATS,
    MAX_SYMBOL_ORDER,
    Puzzle,
    iter_puzzles,
    opens_as_lloyd_amos,
    opens_as_numbers,
)
from cpu_reference.sudoku.layout import MAX_ORDER
from cpu_reference.sudoku.presets import move_of, technique
from cpu_reference.sudoku.puzzle_lines import GRID_FORMATS, passed_over
from cpu_reference.sudoku.schedules import with_start

__all__ = [
    "FORMATS",
    "GRID_FORMATS",
    "MAX_ORDER",
    "MAX_SYMBOL_ORDER",
    "InputError",
    "KernelWarning",
    "LimitWarning",
    "OptionError",
    "OutputError",
    "Puzzle",
    "ResumeWarning",
    "format_grid",
    "iter_puzzles",
    "move_of",
    "opens_as_lloyd_amos",
    "opens_as_numbers",
    "passed_over",
    "render_sudoku",
    "technique",
    "with_start",
]
