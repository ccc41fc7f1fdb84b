"""benchmarks/card_lent_report.py: the lent card's page is the committed results files' (it is
regenerated, not typed), the pool that ran is named where the session passed none, and the
frontier target compares the card and the cores over the grids both reached."""

from __future__ import annotations

import json
import subprocess

from benchmarks import card_lent_report as report
from benchmarks import card_session as cs

TAG = "h200_c83e05b"


def test_the_committed_page_is_its_results_files_output():
    assert report.main(["--tag", TAG, "--check"]) == 0


def test_a_missing_session_is_one_line_and_exit_two(capsys):
    assert report.main(["--tag", "nocard_0000000"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_a_run_without_pool_is_set_beside_the_default_pools_model():
    session = {"pool_option": False, "cores": 16, "pools_runs": [
        {"workload": "iso60000", "puzzles": 60000, "pool": "slices", "move": "focused-two",
         "chains_per_puzzle": 64, "wall_seconds": 10.0, "puzzles_per_second": 6000.0,
         "solved": 60000}]}  # fmt: skip
    assert report.default_pool("focused-two") == "persistent"
    row = report.pool_rows(session)[2]
    model = cs.pool_prediction(60000, "persistent", 64)["puzzles_per_second"]
    assert "| persistent (solve's default) |" in row
    assert f"{6000.0 / model:.2f}" in row


def _doc(rows):
    return {"rows": [{"instance": n, "limit": 20.0, "seconds": s, "solved": ok,
                      "status": "solved" if ok else "unsolved"} for n, s, ok in rows]}  # fmt: skip


def test_the_frontier_target_counts_only_grids_both_backends_reached(tmp_path, monkeypatch):
    folder = tmp_path / "frontier"
    folder.mkdir()
    card = _doc([("a", 3.0, True), ("b", 10.0, True), ("c", 20.0, False)])
    cores = _doc([("a", 1.0, True), ("b", 20.0, False)])
    for backend, doc in (("cuda", card), ("cpu", cores)):
        (folder / f"frontier_card_x1_36x36_50_anneal_{backend}.json").write_text(json.dumps(doc))
    monkeypatch.setattr(report, "results", lambda topic: tmp_path / topic)
    lines, targets = report.frontier_rows("x1", 16)
    assert targets == [
        "| 36x36 at 50 %, --method anneal: the card against 16 cores | faster, "
        "solving no fewer | card 2/2 in 13.0 s, cores 1/2 in 21.0 s | met |"
    ]
    assert "| c | unsolved | not reached |" in lines
    cores["rows"][1].update(seconds=5.0, solved=True, status="solved")
    (folder / "frontier_card_x1_36x36_50_anneal_cpu.json").write_text(json.dumps(cores))
    assert report.frontier_rows("x1", 16)[1][0].endswith("**not met** |")  # cores faster


def test_knows_pool_reads_the_exit_code(monkeypatch):
    for code, expected in ((0, True), (2, False)):
        monkeypatch.setattr(
            cs.subprocess, "run", lambda *a, code=code, **k: subprocess.CompletedProcess(a, code)
        )
        assert cs.knows_pool({}) is expected


def test_the_warp_pair_names_both_backends_methods(tmp_path, monkeypatch):
    """A `warp` pair reads as the warp kernel on the card against the default on the cores."""
    folder = tmp_path / "frontier"
    folder.mkdir()
    for backend in ("cuda", "cpu"):
        (folder / f"frontier_card_x1_49x49_45_warp_{backend}.json").write_text(
            json.dumps(_doc([("a", 2.0, True)]))
        )
    monkeypatch.setattr(report, "results", lambda topic: tmp_path / topic)
    lines, targets = report.frontier_rows("x1", 16)
    assert "### 49x49 at 45 % filled, the card by --method impasse --lanes 32 (a warp a chain), " \
           "the cores by the default, 20 s a grid" in lines  # fmt: skip
    assert targets[0].startswith("| 49x49 at 45 %, the card by --method impasse --lanes 32")


def test_a_card_rows_solving_chain_moves_show_with_their_rate(tmp_path, monkeypatch):
    """Where the card's rows record the solving chain's moves, the table shows them and the
    moves a second they imply; an unsolved row shows none, and a pair without them no column."""
    folder = tmp_path / "frontier"
    folder.mkdir()
    card = _doc([("a", 2.0, True), ("b", 20.0, False)])
    card["rows"][0]["chain_moves"] = 3_000_000
    card["rows"][1]["chain_moves"] = 9_000_000
    for backend, doc in (("cuda", card), ("cpu", _doc([("a", 1.0, True), ("b", 5.0, True)]))):
        (folder / f"frontier_card_x1_49x49_45_warp_{backend}.json").write_text(json.dumps(doc))
    monkeypatch.setattr(report, "results", lambda topic: tmp_path / topic)
    lines, _ = report.frontier_rows("x1", 16)
    assert "| instance | card | cores | card: the solving chain's moves |" in lines
    assert "| a | 2.00 s | 1.00 s | 3 M (1.5 M/s) |" in lines
    assert "| b | unsolved | 5.00 s | - |" in lines
    del card["rows"][0]["chain_moves"], card["rows"][1]["chain_moves"]
    (folder / "frontier_card_x1_49x49_45_warp_cuda.json").write_text(json.dumps(card))
    assert "| instance | card | cores |" in report.frontier_rows("x1", 16)[0]


def test_warp_chains_spread_one_block_an_sm_before_an_sm_takes_two():
    """Shared state: a chain a block, so 132 chains put one warp on each of 132 SMs and 1,452
    put 11; global state: 4 warps a block, so 132 chains make 33 blocks of 4 warps."""
    assert report.warps_an_sm(1, "shared", 132) == 1
    assert report.warps_an_sm(132, "shared", 132) == 1
    assert report.warps_an_sm(1452, "shared", 132) == 11
    assert report.warps_an_sm(132, "global", 132) == 4
    assert report.warps_an_sm(2, "global", 132) == 2


def test_a_warp_rows_model_is_the_latency_models_row_at_its_warps():
    """A shared-state warp row of 1,452 chains at 36x36 and 50 % reads the model's 11-warp row,
    with both factors; a one-thread row has none."""
    model = json.loads(report.LATENCY.read_text())
    cell = next(c for c in model["cells"] if (c["order"], c["fill"]) == (6, 50))
    row = next(r for r in cell["kernels"]["warp-shared"]["rows"] if r["warps"] == 11)
    low = row["chain_rate_bare"] / model["coop_scale"] / 1e6
    high = row["chain_rate_bare"] / model["impasse_scale"] / 1e6
    doc = {"backend": "cuda", "args": {"lanes": 32, "warp_state": "shared", "order": 6,
                                       "fill": 50}}  # fmt: skip
    assert report.modeled_rate(doc, 1452) == f"{low:.2f}-{high:.2f}"
    assert report.modeled_rate(doc | {"args": {"lanes": 1, "order": 6, "fill": 50}}, 1452) == "-"
    assert report.modeled_rate(doc | {"backend": "cpu"}, 16) == "-"
