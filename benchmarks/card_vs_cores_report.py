"""The card-versus-cores results file as markdown: the issues' tables, their targets, every run.

render(result) reads only the JSON that benchmarks/card_vs_cores.py writes (its `rows` and
`runs`); nothing here holds a measured number. "card / cores" is how many times faster the card
finished: the cores' wall over the card's (for rates, the card's rate over the cores').
"""

from __future__ import annotations

from benchmarks.tables import secs, table_block

# Targets of issues 28 and 29 (requirements, not measurements): key -> text.
TARGETS = {
    "start_card": "second run <= 1.5 s",
    "start_cores": "second run <= 1.5 s",
    "iso6000": "card >= 15x the cores, start-up included",
    "iso60000": ">= 10,000 puzzles/s sustained",
    "busy": "kernel busy >= 90 % of the solve after start-up",
    "forum375": "card wall < cores wall",
    "grids25": "all solved, median <= 0.05 s, card wall <= 0.5x the cores'",
    "grids36": ">= 15 of 16 within 30 s, never fewer than the cores",
}


def pct(x) -> str:
    """A fraction as a percentage ('-' for None)."""
    return "-" if x is None else f"{100 * x:.0f} %"


def ratio(x) -> str:
    """A speed ratio ('-' for None)."""
    return "-" if x is None else (f"{x:.2g}x" if x < 10 else f"{x:.0f}x")


def find(rows: list[dict], workload: str, backend: str, role: str = "measure") -> dict | None:
    """The row of a workload, backend and role (None when absent)."""
    for r in rows:
        if (r["workload"], r["backend"], r["role"]) == (workload, backend, role):
            return r
    return None


def measured(row: dict | None) -> bool:
    """A row that holds a measurement (not skipped)."""
    return row is not None and not row.get("skipped") and "wall_seconds" in row


def solved_text(row: dict | None) -> str:
    """'checked/puzzles' (results checked here against the givens), or why there is none."""
    if row is None:
        return "not run"
    if row.get("skipped"):
        return "skipped"
    done = row.get("checked_here", row.get("solved", 0))
    text = f"{done:,}/{row.get('puzzles', row.get('results', 0)):,}"
    if row.get("exit_code") not in (0, 1, None):
        text += f" (exit {row['exit_code']})"
    if row.get("stopped"):
        text += " (stopped)"
    return text


def wall_text(row: dict | None) -> str:
    """A row's wall seconds, or why there is none."""
    if row is None:
        return "not run"
    if row.get("skipped"):
        return "skipped"
    return secs(row.get("wall_seconds"))


def busy_text(row: dict | None) -> str:
    """Kernel busy: nvidia-smi over the solve span / CUDA events over the solve span."""
    b = (row or {}).get("kernel_busy")
    if not b:
        return "-"
    smi = (b.get("smi_solve") or b.get("smi_active") or {}).get("fraction")
    return f"{pct(smi)} / {pct(b.get('events_solve'))}"


def speedup(card: dict | None, cores: dict | None, key: str = "wall_seconds") -> float | None:
    """Cores' figure over the card's (how many times faster the card was)."""
    if not (measured(card) and measured(cores)) or bad(card) or bad(cores):
        return None
    a, b = card.get(key), cores.get(key)
    return b / a if a and b else None


def bad(row: dict) -> bool:
    """A row whose run failed (exit code 1 only says that some puzzle was not solved) or was
    stopped."""
    return bool(row.get("exit_code") not in (0, 1, None) or row.get("stopped"))


def sustained(row: dict | None) -> float | None:
    """Results a second over the solve span (first slice to last status, CUDA events)."""
    span = ((row or {}).get("kernel_busy") or {}).get("solve_span_seconds")
    return row["results"] / span if span and row.get("results") else None


def main_table(rows: list[dict]) -> list[tuple]:
    """Issue 28's table: one line a workload."""
    out = []
    card_tp, cpu_tp = find(rows, "throughput", "cuda"), find(rows, "throughput", "cpu")
    if card_tp or cpu_tp:
        rate = lambda r: (  # noqa: E731
            f"{r['proposals_per_second'] / 1e9:.3g} G/s"
            if measured(r) and r.get("proposals_per_second")
            else wall_text(r)
        )
        both = measured(card_tp) and measured(cpu_tp) and cpu_tp.get("proposals_per_second")
        r = card_tp["proposals_per_second"] / cpu_tp["proposals_per_second"] if both else None
        label = (card_tp or cpu_tp)["label"]
        out.append((label, rate(card_tp), rate(cpu_tp), ratio(r), "-", "-", "-"))
    # the 6,000 isomorphs' variants (card_vs_cores.ISO6000_VARIANTS) in the rows' order
    variants = [k for k in dict.fromkeys(r["workload"] for r in rows)
                if k.startswith("iso6000") and k not in ("iso6000", "iso60000")]  # fmt: skip
    for key in ("iso6000", *variants, "iso60000", "forum375"):
        card, cpu = find(rows, key, "cuda"), find(rows, key, "cpu")
        if card is None and cpu is None:
            continue
        label = (card or cpu)["label"]
        pps = card.get("puzzles_per_second") if measured(card) else None
        steady = sustained(card)
        pps_text = (
            "-"
            if pps is None
            else f"{pps:,.0f}/s" + (f" ({steady:,.0f}/s after start-up)" if steady else "")
        )
        out.append(
            (
                label,
                wall_text(card),
                wall_text(cpu) if cpu else "not run (card only)",
                ratio(speedup(card, cpu)),
                pps_text,
                f"{solved_text(card)} / {solved_text(cpu) if cpu else '-'}",
                busy_text(card),
            )
        )
    starts = {
        b: (find(rows, "start", b, "first"), find(rows, "start", b, "second"))
        for b in ("cuda", "cpu")
    }
    if any(any(v) for v in starts.values()):
        label = next(r for v in starts.values() for r in v if r)["label"]
        text = lambda p: (  # noqa: E731
            f"{wall_text(p[0])} first (empty cache), {wall_text(p[1])} second"
            if any(p)
            else "not run"
        )
        r = speedup(starts["cuda"][1], starts["cpu"][1])
        solved = f"{solved_text(starts['cuda'][1])} / {solved_text(starts['cpu'][1])}"
        out.append((label, text(starts["cuda"]), text(starts["cpu"]), ratio(r), "-", solved, "-"))
    card, cpu = find(rows, "single", "cuda"), find(rows, "single", "cpu")
    if card or cpu:
        med = lambda r: (  # noqa: E731
            secs(r.get("median_search_seconds")) + " median" if measured(r) else wall_text(r)
        )
        r = speedup(card, cpu, "median_search_seconds")
        out.append(
            (
                (card or cpu)["label"],
                med(card),
                med(cpu),
                ratio(r),
                "-",
                f"{solved_text(card)} / {solved_text(cpu)}",
                "-",
            )
        )
    return out


def large_text(row: dict | None) -> str:
    """'solved/puzzles, median, p90, wall' of a large-grid run."""
    if not measured(row):
        return wall_text(row)
    return (
        f"{solved_text(row)}, median {secs(row.get('median_search_seconds'))} a puzzle, "
        f"p90 {secs(row.get('p90_search_seconds'))}, wall {secs(row['wall_seconds'])}"
    )


def large_table(rows: list[dict]) -> list[tuple]:
    """Issue 29's table: the large grids on each backend."""
    out = []
    for key in ("grids25", "grids36"):
        card, cpu = find(rows, key, "cuda"), find(rows, key, "cpu")
        if card or cpu:
            out.append(((card or cpu)["label"], large_text(card), large_text(cpu), busy_text(card)))
    return out


def verdict(ok: bool | None) -> str:
    """met / not met / not measured."""
    return "not measured" if ok is None else ("met" if ok else "**not met**")


def targets(rows: list[dict]) -> list[tuple]:
    """Each target of the issues beside what this file measured."""
    out = []
    for key, backend in (("start_card", "cuda"), ("start_cores", "cpu")):
        r = find(rows, "start", backend, "second")
        wall = r.get("wall_seconds") if measured(r) and not bad(r) else None
        out.append(
            (
                f"`solve --example seed002 --backend {backend}`",
                TARGETS[key],
                secs(wall),
                verdict(None if wall is None else wall <= 1.5),
            )
        )
    card, cpu = find(rows, "iso6000", "cuda"), find(rows, "iso6000", "cpu")
    s = speedup(card, cpu)
    out.append(
        ("6,000 isomorphs", TARGETS["iso6000"], ratio(s), verdict(None if s is None else s >= 15))
    )
    big = find(rows, "iso60000", "cuda")
    steady = sustained(big) if measured(big) else None
    whole = big.get("puzzles_per_second") if measured(big) and not bad(big) else None
    figure = (
        "-"
        if whole is None
        else f"{whole:,.0f}/s with start-up" + (f", {steady:,.0f}/s after it" if steady else "")
    )
    best = steady if steady is not None else whole
    out.append(
        (
            "60,000 isomorphs on the card",
            TARGETS["iso60000"],
            figure,
            verdict(None if best is None else best >= 10_000),
        )
    )
    for key in ("iso6000", "iso60000"):
        b = (find(rows, key, "cuda") or {}).get("kernel_busy") or {}
        events, smi = b.get("events_solve"), (b.get("smi_solve") or {}).get("fraction")
        shown = f"{pct(events)} (events), {pct(smi)} (nvidia-smi)"
        best = events if events is not None else smi
        out.append(
            (
                f"{key}: kernel busy",
                TARGETS["busy"],
                shown,
                verdict(None if best is None else best >= 0.9),
            )
        )
    card, cpu = find(rows, "forum375", "cuda"), find(rows, "forum375", "cpu")
    s = speedup(card, cpu)
    out.append(
        (
            "forum_hardest's 375",
            TARGETS["forum375"],
            ratio(s),
            verdict(None if s is None else s > 1),
        )
    )
    card, cpu = find(rows, "grids25", "cuda"), find(rows, "grids25", "cpu")
    ok = None
    if measured(card) and measured(cpu) and not bad(card):
        med = card.get("median_search_seconds")
        ok = (
            card.get("checked_here") == card.get("puzzles")
            and med is not None
            and med <= 0.05
            and card["wall_seconds"] <= 0.5 * cpu["wall_seconds"]
        )
    out.append(("25x25 grids", TARGETS["grids25"], large_text(card), verdict(ok)))
    card, cpu = find(rows, "grids36", "cuda"), find(rows, "grids36", "cpu")
    ok = None
    if measured(card) and measured(cpu):
        c, p = card.get("checked_here", 0), cpu.get("checked_here", 0)
        ok = c >= 15 * card.get("puzzles", 16) / 16 and c >= p
    out.append(("36x36 grids", TARGETS["grids36"], large_text(card), verdict(ok)))
    return out


def detail_rows(rows: list[dict]) -> list[tuple]:
    """Every run: counts, quantiles, cache, start-up and busy figures, the command."""
    out = []
    for r in rows:
        if r.get("skipped"):
            out.append(
                (
                    r["workload"],
                    r["backend"],
                    r["role"],
                    "skipped",
                    "",
                    "",
                    "",
                    "",
                    "",
                    "",
                    "",
                    r["skipped"],
                )
            )
            continue
        b = r.get("kernel_busy") or {}
        smi = "/".join(
            pct((b.get(k) or {}).get("fraction")) for k in ("smi_wall", "smi_solve", "smi_active")
        )
        out.append(
            (
                r["workload"],
                r["backend"],
                r["role"],
                secs(r.get("wall_seconds")),
                str(r.get("exit_code")),
                f"{r.get('results', '-')}",
                f"{r.get('solved', '-')}",
                f"{r.get('checked_here', '-')}",
                secs(r.get("median_search_seconds")),
                str(r.get("cache_entries_added", "-")),
                f"{secs(r.get('startup_seconds'))}; {smi}; {pct(b.get('events_solve'))}",
                f"`{r.get('command', '')}`",
            )
        )
    return out


def render(result: dict) -> str:
    """The markdown report of a card_vs_cores results file."""
    rows, runs = result.get("rows", []), result.get("runs", [])
    last = runs[-1] if runs else {}
    m = last.get("machine", {})
    cores = f"{m.get('cores', '?')} cores"
    lines = ["# The card against the same machine's cores", ""]
    if result.get("smoke"):
        lines += [
            "**Smoke run: tiny inputs to try the code path; no figure here is a "
            "measurement of the engine.**",
            "",
        ]
    lines += [
        f"Card: {m.get('gpu', '?')}; CPU: {m.get('cpu_model', m.get('cpu', '?'))}, {cores}. "
        "Every figure was measured on that machine, the card's and the cores' in the same run; "
        "each runs `gpu-anneal` in a fresh process as a user runs it (wall seconds, start-up "
        "included), default technique, every result checked against its givens.",
        "",
    ]
    lines += table_block(
        "Issue 28's workloads:",
        (
            "workload",
            "card (wall)",
            f"{cores} (wall)",
            "card / cores",
            "card puzzles/s",
            "checked solved (card / cores)",
            "kernel busy (nvidia-smi / events)",
        ),
        main_table(rows),
        "card / cores: the cores' wall over the card's (for proposals/s and the one-at-a-time "
        "search seconds, the same ratio of those figures). Kernel busy: during the solve span "
        "(first slice started to last status read); nvidia-smi's utilization.gpu mean / the "
        "CUDA events' slice seconds over the span.",
    )
    large = large_table(rows)
    if large:
        lines += table_block(
            "Issue 29's large grids (search seconds a puzzle; an unsolved one counts as "
            "infinitely slow):",
            ("workload", "card", cores, "kernel busy (nvidia-smi / events)"),
            large,
            "Same runs as above; time limit per puzzle as labelled.",
        )
    lines += table_block(
        "Targets (issues 28 and 29; a target is a requirement, the figure is this file's):",
        ("what", "target", "measured", "verdict"),
        targets(rows),
        "",
    )
    lines += table_block(
        "Every run:",
        (
            "workload",
            "backend",
            "run",
            "wall",
            "exit",
            "results",
            "solved",
            "checked here",
            "median search",
            "cache entries added",
            "start-up; smi wall/solve/active; events",
            "command",
        ),
        detail_rows(rows),
        "run: first / second (start: an empty cache root, then the same root again) or measure "
        "(after a warm-up process of the same backend and grid size; a measure that added "
        "compiled entries to the cache was run again and the second kept). start-up: process "
        "start to first slice (CUDA events).",
    )
    lines += ["Runs:", ""]
    for r in runs:
        mm = r.get("machine", {})
        lines.append(
            f"- {r.get('id')}: commit {r.get('commit') or 'unknown'}, {mm.get('gpu', '?')}, "
            f"{mm.get('cpu_model', mm.get('cpu', '?'))} x {mm.get('cores', '?')}; workloads "
            f"{', '.join(r.get('workloads', []))}; {r.get('seconds', '?')} s of a "
            f"{r.get('budget_seconds', '?')} s budget (estimate {r.get('estimate_seconds', 0):.0f}"
            f" s); `{r.get('command', '')}`"
        )
    if last.get("kernel_busy_method"):
        lines += ["", f"Kernel busy, how: {last['kernel_busy_method']}."]
    if last.get("cache"):
        lines += ["", f"Cache: {last['cache']}."]
    return "\n".join(lines) + "\n"
