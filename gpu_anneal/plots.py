"""PNG pictures of measurements (matplotlib, Agg backend, imported only when drawing)."""

from __future__ import annotations


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_tts(rows: list[dict], path: str, title: str = "") -> None:
    """Success probability per trial and TTS99 against the number of givens, one dot a puzzle."""
    plt = _pyplot()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    givens = [r["givens"] for r in rows]
    ax1.scatter(givens, [r["p"] for r in rows], s=14)
    ax1.set_xlabel("givens")
    ax1.set_ylabel("success probability per trial")
    ax1.set_yscale("symlog", linthresh=1e-3)
    finite = [(g, r["tts99"]) for g, r in zip(givens, rows, strict=True) if r["tts99"] is not None]
    if finite:
        ax2.scatter(*zip(*finite, strict=True), s=14)
    ax2.set_yscale("log")
    ax2.set_xlabel("givens")
    ax2.set_ylabel("TTS99, seconds of one core")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_trace(trace: dict, path: str, title: str = "") -> None:
    """Cost and acceptance rate against temperature along one trial."""
    plt = _pyplot()
    fig, ax1 = plt.subplots(figsize=(7, 4))
    ax1.plot(trace["temperature"], trace["cost"], color="tab:blue", label="cost")
    ax1.set_xscale("log")
    ax1.invert_xaxis()
    ax1.set_xlabel("temperature")
    ax1.set_ylabel("cost (conflicting pairs)", color="tab:blue")
    ax2 = ax1.twinx()
    ax2.plot(trace["temperature"], trace["acceptance"], color="tab:red", label="acceptance")
    ax2.set_ylabel("acceptance rate", color="tab:red")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_rates(table: list[dict], path: str) -> None:
    """Success rate against fill ratio, one line per grid size."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    for size in sorted({row["size"] for row in table}):
        rows = sorted((r for r in table if r["size"] == size), key=lambda r: r["fill"])
        ax.plot([r["fill"] for r in rows], [r["rate"] for r in rows], marker="o", label=size)
    ax.set_xlabel("fill ratio (% of cells given)")
    ax.set_ylabel("solved within the limit")
    ax.set_ylim(-0.02, 1.02)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
