"""python -m benchmarks.bench_anneal_peers --merge: a re-run part replaces the rows it measured
again."""

from __future__ import annotations

from benchmarks.bench_anneal_peers import in_order, latest, with_ratios


def row(method: str, level: int, median: float, puzzle: str = "a") -> dict:
    """A table row of the 25x25 set."""
    return {"set": "25x25", "level": level, "method": method, "median": median, "puzzle": puzzle}


def test_a_later_part_replaces_the_same_method_and_level_in_place():
    old = [row("sirdey", 40, 9.0), row("auto", 40, 0.6), row("cpsat", 40, 0.2)]
    new = [row("auto", 40, 0.3), row("cpsat", 40, 0.25), row("auto", 45, 0.4)]
    merged = latest(old + new)
    assert [(r["method"], r["level"], r["median"]) for r in merged] == [
        ("sirdey", 40, 9.0), ("auto", 40, 0.3), ("cpsat", 40, 0.25), ("auto", 45, 0.4),
    ]  # fmt: skip
    ratios = {r["method"]: r["ratio_to_cpsat"] for r in with_ratios(merged) if r["level"] == 40}
    assert ratios["auto"] == 0.3 / 0.25  # the re-run's own CP-SAT median


def test_per_puzzle_rows_are_kept_apart_by_puzzle():
    rows = [row("auto", 40, 1.0, "p1"), row("auto", 40, 2.0, "p2"), row("auto", 40, 3.0, "p1")]
    assert [r["median"] for r in latest(rows, per_puzzle=True)] == [3.0, 2.0]
    assert [r["median"] for r in latest(rows)] == [3.0]


def test_merged_rows_come_by_set_level_and_method():
    rows = [row("cpsat", 40, 0.2), row("auto", 30, 0.3), row("sirdey", 40, 9.0),
            {**row("auto", None, 0.01), "set": "top95"}, row("auto", 40, 0.5)]  # fmt: skip
    assert [(r["set"], r["level"], r["method"]) for r in in_order(rows)] == [
        ("25x25", 30, "auto"), ("25x25", 40, "sirdey"), ("25x25", 40, "auto"),
        ("25x25", 40, "cpsat"), ("top95", None, "auto"),
    ]  # fmt: skip
