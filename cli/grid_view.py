"""Solutions as aligned grids for people to read (`solve --output grid`).

Glossary (as in cpu_reference.sudoku.layout): n order (box side), N = n * n digits and the side
of the grid, w the width of a cell (the digits of N).

A Sudoku solution is written as its numbers, right-aligned in cells of width w, one space
between cells, ` | ` between boxes of a row and a rule between bands of boxes; a 9x9:

    4 8 3 | 9 2 1 | 6 5 7
    9 6 7 | 3 4 5 | 8 2 1
    2 5 1 | 8 7 6 | 4 9 3
    ------+-------+------
    ...

16x16 and larger write two-digit numbers in cells of width 2. Shikaku and Hashiwokakero
solutions are text grids already (gpu_anneal.items): they are written as they are.
"""

from __future__ import annotations


def sudoku_grid(rows: list[list[int]], order: int) -> str:
    """The Sudoku of `rows` (N rows of N numbers, 0 for a blank: '.') as aligned lines with box
    separators, without a final newline."""
    n, N = order, order * order
    width = len(str(N))
    lines = []
    for r, row in enumerate(rows):
        if r and r % n == 0:
            lines.append(_rule(n, width))
        cells = [f"{v:>{width}}" if v else "." * width for v in row]
        boxes = [" ".join(cells[b * n : (b + 1) * n]) for b in range(N // n)]
        lines.append(" | ".join(boxes))
    return "\n".join(lines)


def _rule(n: int, width: int) -> str:
    """The line between two bands of boxes: dashes under each box, `+` under each ` | `."""
    box = "-" * (n * width + n - 1)
    return "-+-".join([box] * n)


def result_grid(result) -> str | None:
    """A solved result's solution as a grid (Sudoku: sudoku_grid; other kinds: their text
    grid); None when it holds no solution."""
    if not result.solved:
        return None
    if result.order is not None and result.solution_rows is not None:  # a Sudoku grid
        return sudoku_grid(result.solution_rows, result.order)
    return result.solution
