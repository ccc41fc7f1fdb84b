"""PNG pictures of measurements (matplotlib, Agg backend, imported only when drawing)."""

from __future__ import annotations


def _pyplot():
    import matplotlib  # late: matplotlib.pyplot costs ~0.25 s

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def interval_bars(rows: list[dict], key: str) -> dict:
    """Error bars of `key` (p or tts99) from rows of TtsResult.as_dict(): for each drawable row
    (a finite value, above 0 for tts99's log axis) x (givens), y, the extent below and above,
    and `open` where the interval has no upper end (infinite, written null)."""
    bars: dict[str, list] = {"x": [], "y": [], "below": [], "above": [], "open": []}
    for row in rows:
        y, low, high = row[key], row[f"{key}_low"], row[f"{key}_high"]
        if y is None or (key == "tts99" and y <= 0):
            continue
        bars["x"].append(row["givens"])
        bars["y"].append(y)
        bars["below"].append(max(0.0, y - (low if low is not None else y)))
        bars["above"].append(0.0 if high is None else max(0.0, high - y))
        bars["open"].append(high is None)
    return bars


def draw_tts(rows: list[dict], title: str = ""):
    """The figure of plot_tts: p and TTS99 per puzzle against its givens, each with its 95 %
    interval as an error bar (p: Clopper-Pearson; TTS99: tts.tts99_interval); an interval open
    above is drawn as an upward arrow one decade long."""
    plt = _pyplot()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    p = interval_bars(rows, "p")
    ax1.errorbar(p["x"], p["y"], yerr=[p["below"], p["above"]], fmt="o", ms=4, capsize=2)
    ax1.set_xlabel("givens")
    ax1.set_ylabel("success probability per trial (95 % interval)")
    ax1.set_yscale("symlog", linthresh=1e-3)
    t = interval_bars(rows, "tts99")
    closed = [i for i, is_open in enumerate(t["open"]) if not is_open]
    shut = {k: [t[k][i] for i in closed] for k in ("x", "y", "below", "above")}
    ax2.errorbar(shut["x"], shut["y"], yerr=[shut["below"], shut["above"]], fmt="o", ms=4,
                 capsize=2, label="TTS99, 95 % interval")  # fmt: skip
    ajar = [i for i, is_open in enumerate(t["open"]) if is_open]
    if ajar:  # the bar below, then an arrow above (lolims draws only the upper part)
        xs, ys = [t["x"][i] for i in ajar], [t["y"][i] for i in ajar]
        below = [t["below"][i] for i in ajar]
        ax2.errorbar(xs, ys, yerr=[below, [0.0] * len(ys)], fmt="none", capsize=2,
                     color="tab:red")  # fmt: skip
        ax2.errorbar(xs, ys, yerr=[[0.0] * len(ys), [9 * y for y in ys]], lolims=True, fmt="o",
                     ms=4, capsize=2, color="tab:red", label="interval open above")  # fmt: skip
    if t["y"]:
        ax2.set_yscale("log")
        ax2.legend(fontsize="small")
    ax2.set_xlabel("givens")
    ax2.set_ylabel("TTS99, seconds of one core")
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_tts(rows: list[dict], path: str, title: str = "") -> None:
    """Success probability per trial and TTS99 against the number of givens, one dot a puzzle
    with its 95 % interval as an error bar (draw_tts), written to `path`."""
    plt = _pyplot()
    fig = draw_tts(rows, title)
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
