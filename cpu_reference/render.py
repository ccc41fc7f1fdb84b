"""Pictures of Sudoku, Shikaku and Hashiwokakero puzzles and solutions (matplotlib, Agg backend).

Glossary:
    r, c     row and column of a cell; a cell is the unit square [c, c+1] x [r, r+1], row 0 on top
    n, N     Sudoku order (box side) and side, N = n * n
    rects    Shikaku solution: (top, left, height, width) per clue
    bridges  Hashiwokakero solution: [r1, c1, r2, c2, count] per bridge

The format follows the file name: .png or .svg.
"""

from __future__ import annotations

from pathlib import Path

from cpu_reference.errors import InputError


def _figure(height: int, width: int):
    import matplotlib  # late: matplotlib.pyplot costs ~0.25 s of every CPU run's start

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scale = 0.45 if max(height, width) <= 20 else 9.0 / max(height, width)
    fig, ax = plt.subplots(figsize=(max(2.0, width * scale), max(2.0, height * scale)))
    ax.set_xlim(-0.05, width + 0.05)
    ax.set_ylim(height + 0.05, -0.05)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig, ax, plt


def _save(fig, plt, path):
    path = Path(path)
    if path.suffix.lower() not in (".png", ".svg"):
        plt.close(fig)
        raise InputError(f"output: {path.name} must end in .png or .svg")
    try:
        fig.savefig(path, bbox_inches="tight", dpi=120)
    finally:  # a picture that cannot be written closes its figure too (no figures pile up)
        plt.close(fig)


def render_shikaku(p, path, rects=None) -> None:
    """Draw the clue grid and, when given, the solution's rectangles."""
    from matplotlib.patches import Rectangle  # late: matplotlib (_figure)

    fig, ax, plt = _figure(p.height, p.width)
    fs = max(4, min(12, 200 // max(p.height, p.width)))
    for r in range(p.height + 1):
        ax.plot([0, p.width], [r, r], color="0.85", lw=0.5)
    for c in range(p.width + 1):
        ax.plot([c, c], [0, p.height], color="0.85", lw=0.5)
    if rects is not None:
        cmap = plt.get_cmap("tab20")
        for k, (t, left, hh, ww) in enumerate(rects):
            ax.add_patch(Rectangle((left, t), ww, hh, facecolor=cmap(k % 20), alpha=0.35,
                                   edgecolor="black", lw=1.5))  # fmt: skip
    ax.add_patch(Rectangle((0, 0), p.width, p.height, fill=False, edgecolor="black", lw=2))
    for r, c, v in p.clues:
        ax.text(c + 0.5, r + 0.5, str(int(v)), ha="center", va="center", fontsize=fs)
    _save(fig, plt, path)


def render_hashi(p, path, bridges=None) -> None:
    """Draw the islands and, when given, the bridges (double bridges as two parallel lines)."""
    from matplotlib.patches import Circle  # late: matplotlib (_figure)

    fig, ax, plt = _figure(p.height, p.width)
    fs = max(4, min(11, 180 // max(p.height, p.width)))
    for r1, c1, r2, c2, m in bridges or []:
        offsets = [0.0] if m == 1 else [-0.08, 0.08]
        for o in offsets:
            if r1 == r2:
                ax.plot([c1 + 0.5, c2 + 0.5], [r1 + 0.5 + o] * 2, color="black", lw=1.2)
            else:
                ax.plot([c1 + 0.5 + o] * 2, [r1 + 0.5, r2 + 0.5], color="black", lw=1.2)
    for r, c, v in p.islands:
        ax.add_patch(Circle((c + 0.5, r + 0.5), 0.38, facecolor="white", edgecolor="black",
                            lw=1.2, zorder=3))  # fmt: skip
        ax.text(c + 0.5, r + 0.5, str(int(v)), ha="center", va="center", fontsize=fs, zorder=4)
    _save(fig, plt, path)


def render_sudoku(cells, order: int, path, solution=None) -> None:
    """Draw a Sudoku of any order: thin cell lines, thick box lines, the givens (cells, 0 blank)
    in black and, when `solution` (N rows of N digits) is given, the digits it adds in blue."""
    import numpy as np

    n, N = int(order), int(order) ** 2
    givens = np.asarray(cells).reshape(N, N)
    fig, ax, plt = _figure(N, N)
    fs = max(4, min(14, 190 // N))
    for k in range(N + 1):
        lw = 2.0 if k % n == 0 else 0.5
        colour = "black" if k % n == 0 else "0.6"
        ax.plot([0, N], [k, k], color=colour, lw=lw)
        ax.plot([k, k], [0, N], color=colour, lw=lw)
    full = None if solution is None else np.asarray(solution).reshape(N, N)
    for r in range(N):
        for c in range(N):
            given = int(givens[r, c])
            digit = given or (0 if full is None else int(full[r, c]))
            if digit:
                ax.text(c + 0.5, r + 0.5, str(digit), ha="center", va="center", fontsize=fs,
                        color="black" if given else "tab:blue",
                        fontweight="bold" if given else "normal")  # fmt: skip
    _save(fig, plt, path)
