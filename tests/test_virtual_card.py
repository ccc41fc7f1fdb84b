"""The virtual card (benchmarks/virtual_card.py, a model): the pool's own code on a modeled card
gives each puzzle the CPU runner's result, its clock is its slices and host gaps and nothing
else, the launched proposals split into live and useful shares, and the card's and the
persistent pool's models agree with hand-worked cases."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import gpu_anneal
from benchmarks import card_model, virtual_card
from benchmarks.persistent_model import SPARE_STRIDE, run_persistent
from benchmarks.solve_profiles import twin_profile
from cpu_reference.sudoku.exact import solve_exact

TOP95 = Path(gpu_anneal.__file__).parent / "data" / "top95.txt"
PICKED = (2, 10, 11, 16, 17, 18, 19, 24)  # top95 puzzles 8 chains solve in a few 1,000 proposals
CHAINS, SLOTS = 8, 3
HOST = card_model.Host(round_gap=2e-3, per_puzzle=4e-3, per_puzzle_commit="test",
                       start_and_exit=0.0)  # fmt: skip


def tiny() -> tuple[list[str], virtual_card.Workload]:
    """8 puzzles, 8 chains a puzzle in 3 slots, no spare chains."""
    lines = [t for t in TOP95.read_text().split("\n") if t and not t.startswith("#")]
    lines = [lines[k] for k in PICKED]
    puzzles = np.array([[0 if c == "." else int(c) for c in t] for t in lines], np.uint8)
    solutions = np.stack([solve_exact(p, 3, limit=1)[1] for p in puzzles])
    w = virtual_card.Workload("tiny", "8 top95", puzzles, solutions, CHAINS, SLOTS, spare=False)
    return lines, w


def twin_profiles(w: virtual_card.Workload) -> virtual_card.Profiles:
    """Profiles computed on the CPU for every slot asked (no file)."""
    return virtual_card.Profiles({}, 1, lambda q, m, c: twin_profile(w.puzzles[q], q, m, c))


@pytest.fixture(scope="module")
def runs():
    """The tiny workload on the modeled card, the refill overlapping the slice and not; and
    the CPU runner's results of the same puzzles."""
    lines, w = tiny()
    kernel = card_model.kernel()
    profiles = twin_profiles(w)
    overlapped = virtual_card.model_run(w, profiles, kernel, HOST, overlaps=True)
    serial = virtual_card.model_run(w, profiles, kernel, HOST, overlaps=False)
    persistent = virtual_card.model_persistent(w, profiles, kernel, HOST)
    cpu = gpu_anneal.solve(lines, backend="cpu", chains=CHAINS, batch=SLOTS, fixed_chains=True)
    return {"overlapped": overlapped, "serial": serial, "persistent": persistent, "cpu": cpu,
            "kernel": kernel}  # fmt: skip


def fields(r) -> tuple:
    return (r.solved, r.counts.solving_chain, r.counts.chain_proposals, r.counts.chain_trials,
            r.solution)  # fmt: skip


@pytest.mark.parametrize("mode", ["overlapped", "serial", "persistent"])
def test_each_puzzle_gets_the_cpu_runners_result(runs, mode):
    """The pool on the modeled card (slices with either loop, and the persistent pool's host
    loop on its modeled device) reports for every puzzle the CPU runner's solving chain, its
    proposals and trials and the solution (the kernels run the same chains)."""
    _, found = runs[mode]
    assert sorted(r.index for r in found) == list(range(len(PICKED)))
    by_index = {r.index: fields(r) for r in found}
    for r in runs["cpu"]:
        assert by_index[r.index] == fields(r), r.index
        assert r.solved and r.counts.chain_proposals > 0


def test_modeled_time_is_slices_and_host_gaps(runs):
    """From a launch to the status after it: the host's gap, then the longer of the slice and
    the host's loads meanwhile (the refill overlapping the slice), or the gap and the slice (the
    refill first: its loads come between a status and the next launch, on the host alone). The
    solve span is the sum of those steps, the slices' seconds included once each."""
    g, h = HOST.round_gap, HOST.per_puzzle
    for mode in ("overlapped", "serial"):
        runners, _ = runs[mode]
        events = [e for r in runners for e in r.events]
        steps, kinds, i = [], set(), 0
        while i < len(events):
            kind, at, seconds = events[i]
            j = i + 1
            while j < len(events) and events[j][0] == "load":
                j += 1
            loads = sum(e[2] for e in events[i + 1 : j])
            end = events[j][1] if j < len(events) else at + h * loads
            if kind == "run":  # a launch, loads while its slice runs, the status after it
                assert events[j][0] == "status"
                expected = g + max(seconds, h * loads)
                kinds.add("host longer" if h * loads > seconds else "slice longer")
            else:  # a status, loads on the host alone, the next launch (or the end)
                expected = h * loads
                kinds.add("host alone" if loads else "none")
            assert end - at == pytest.approx(expected, abs=1e-12), (mode, i)
            steps.append(end - at)
            i = j
        span = runners[-1].last_status_at - runners[0].first_run_at
        assert sum(steps[:-1]) == pytest.approx(span, rel=1e-12)  # the last step: after the span
        assert {"host alone", "slice longer"} <= kinds
        if mode == "serial":
            assert "host longer" not in kinds
        kernel_s = sum(s.seconds for r in runners for s in r.slices)
        loaded = sum(e[2] for e in events if e[0] == "load")
        assert loaded == len(PICKED)
        if mode == "serial":
            launches = sum(len(r.slices) for r in runners)
            assert span == pytest.approx(launches * g + kernel_s + h * loaded, rel=1e-12)


def test_slices_take_the_kernel_models_seconds(runs):
    """On one wave at a flat pace a slice lasts its longest chain's plateaus at the full card's
    pace, times its slowest warps' factor; no chain runs past the budget."""
    kernel = runs["kernel"]
    per_plateau = kernel.plateau / kernel.resident_chain_rate
    slices = [s for r in runs["overlapped"][0] for s in r.slices]
    assert any(s.longest for s in slices)
    for s in slices:
        assert s.longest <= s.budget
        slowest = 1 + kernel.dispersion / math.sqrt(s.longest) if s.longest else 1
        assert s.seconds == pytest.approx(s.longest * per_plateau * slowest, rel=1e-12)
        assert s.chain_plateaus <= s.live_chains * s.longest


def test_useful_fraction_splits_into_live_and_useful_shares(runs):
    """0 < useful fraction <= 1, equal to the live-slot share times the useful share of a live
    slot's slice; the useful proposals are no more than the chains ran."""
    runners, results = runs["overlapped"]
    found = [(r.index, r.solved, r.timing.search, r.counts.chain_proposals, r.params.chains)
             for r in results]  # fmt: skip
    s = virtual_card.summarize(runners, found, runs["kernel"].plateau, HOST)
    assert 0 < s["useful_fraction"] <= 1
    assert 0 < s["live_slot_share"] <= 1 and 0 < s["useful_share_of_live"] <= 1
    assert s["useful_fraction"] == pytest.approx(s["live_slot_share"] * s["useful_share_of_live"])
    ran = sum(x.chain_plateaus for x in runners[-1].slices) * runs["kernel"].plateau
    useful = sum(CHAINS * -(-r.counts.chain_proposals // 81) * 81 for r in results)
    assert useful <= ran
    assert s["slices"] == sum(len(r.slices) for r in runners)
    assert s["span_seconds"] == pytest.approx(len(PICKED) / s["puzzles_per_second"])


def test_persistent_pool_as_built_runs_groups_back_to_back(runs):
    """The persistent pool's host loop on its modeled device: three groups of eight chains take
    the eight puzzles as theirs are solved (no slice), the device busy for the sum of the
    solving groups' plateaus over the groups at most, and the useful share of the resident
    chains' work within (0, 1]."""
    runners, _ = runs["persistent"]
    main, kernel = runners[-1], runs["kernel"]
    assert main.groups == SLOTS and main.launches >= 1
    plateaus = main.useful / (CHAINS * kernel.plateau)  # the solving groups' plateaus, summed
    slowest = kernel.pace(SLOTS * main.warps)  # a warp's plateaus a second, all groups running
    assert main.busy >= plateaus / SLOTS / float(kernel.pace(main.warps)) * 0.999
    assert main.busy <= plateaus / float(slowest) + 1e-9
    launched = main.groups * CHAINS * main.busy * kernel.resident_chain_rate
    assert 0 < main.useful / launched <= 1


def test_a_second_partial_wave_waits_for_a_free_place():
    """Blocks beyond the card's places start when a place frees: in block order, each on the
    SM whose place frees first (a flat pace: a plateau a second)."""
    k = card_model.Kernel("card", "gpu", wave=4, threads_per_block=2, sms=2, blocks_per_sm=1,
                          launch_rate=4 * 81, resident_rate=4 * 81)  # fmt: skip
    assert k.chain_rate == 81 and k.places == 2
    assert k.slice_seconds(np.array([3, 1]), 2) == 3  # one wave: the longest block
    assert k.slice_seconds(np.array([3, 1, 2]), 2) == 3  # the third block where the second was
    assert k.slice_seconds(np.array([1, 1, 5]), 2) == 6
    assert k.slice_seconds(np.array([2, 0, 0, 0, 2]), 2) == 2  # later blocks in empty places
    assert k.slice_seconds(np.array([4, 3, 0, 1]), 1) == 4  # a block holds two slots of 1 chain


def test_warps_share_their_sm_and_speed_up_as_others_stop():
    """With n_half finite a warp runs faster when fewer warps of its SM are active: two warps
    share an SM for a plateau, then the one left runs (2 + 1) / (1 + 1) times as fast."""
    k = card_model.Kernel("card", "gpu", wave=64, threads_per_block=64, sms=1, blocks_per_sm=1,
                          launch_rate=64 * 81, resident_rate=64 * 81, half_warps=1.0)  # fmt: skip
    assert k.full_warps == 2 and k.pace(2) == pytest.approx(1.0) and k.pace(1) == 1.5
    assert k.slice_seconds(np.array([1, 3]), 32) == pytest.approx(1 + 2 / 1.5)
    assert k.slice_seconds(np.array([3, 3]), 32) == pytest.approx(3)  # full: the measured rate
    flat = card_model.Kernel("card", "gpu", wave=64, threads_per_block=64, sms=1,
                             blocks_per_sm=1, launch_rate=5184, resident_rate=5184)  # fmt: skip
    assert flat.slice_seconds(np.array([1, 3]), 32) == 3


def test_the_committed_kernel_model_is_read_from_the_card_files():
    """The modeled card's wave and rates are the measured ones: the plan's wave that of the
    throughput run, whose one wave of B plateaus the model runs at its measured rate."""
    k = card_model.kernel()
    assert k.wave == 118_272 and k.places * k.threads_per_block == k.wave and k.full_warps == 28
    assert k.launch_rate < k.resident_rate and k.dispersion > 0
    assert 5 < card_model.ncu_half_warps()["half_warps"] < 15
    B = k.launch_plateaus
    assert B == 9152 and k.slice_seconds(np.full(1848, int(B)), 64) == pytest.approx(
        B * 81 / k.chain_rate, rel=1e-9
    )
    h = card_model.host(card_model.RUNS_COMMIT, 0.5)
    assert 1e-3 < h.round_gap < 3e-3 and h.per_puzzle_commit == "39f97f8"
    assert h.per_puzzle == pytest.approx(0.5 * 178.63e-6)


def fixed_profile(plateaus: dict[int, int], cpp: int, spare: int = 1):
    """A profile function: puzzle q's own chains solve after plateaus[q] plateaus (81 each), a
    spare slot's after `spare`."""

    def profile(first: int):
        m, q = first // SPARE_STRIDE, (first % SPARE_STRIDE) // cpp
        return (0, (spare if m else plateaus[q]) * 81, 1)

    return profile


def card(wave: int, sms: int = 1, threads: int = 32, half: float = math.inf):
    """A kernel model where a chain makes one plateau (81 proposals) a second on a full card."""
    return card_model.Kernel("card", "gpu", wave=wave, threads_per_block=threads, sms=sms,
                             blocks_per_sm=1, launch_rate=wave * 81, resident_rate=wave * 81,
                             half_warps=half)  # fmt: skip


def test_persistent_groups_take_the_next_puzzle_when_theirs_is_solved():
    """One group runs the puzzles one after another; two groups take them as each frees; in the
    tail a free group joins the open puzzle and a spare that solves first ends it; a group
    waits for the host to bring its puzzle, and runs faster while the other waits."""
    one = run_persistent(fixed_profile({0: 3, 1: 2, 2: 4}, 4), 3, 4, card(4), 0.0)
    assert one.device_span == 9 and one.finish == [3, 5, 9] and one.spare_groups == 0
    assert one.useful == 4 * 9 * 81 and one.useful / one.launched == 1
    two = run_persistent(fixed_profile({0: 3, 1: 2, 2: 4}, 4, spare=10), 3, 4, card(8), 0.0)
    assert two.finish == [3, 2, 6]  # puzzle 2 on the group freed at 2; then a spare joins it
    assert two.spare_groups == 1 and two.device_span == 6
    fast = run_persistent(fixed_profile({0: 1, 1: 8}, 4, spare=2), 2, 4, card(8), 0.0)
    assert fast.finish == [1, 3]  # puzzle 1's spare, from 1, solves after 2 plateaus
    fed = run_persistent(fixed_profile({0: 3, 1: 3}, 64, spare=100), 2, 64,
                         card(128, sms=2, threads=64, half=1.0), 5.0)  # fmt: skip
    # puzzle 0 there at 5, alone on the card (1.5 plateaus a second): over at 7; puzzle 1 at 10
    assert fed.finish == [7, 13] and fed.span == 13 and fed.spare_groups == 1


def test_profiles_substitute_an_isomorph_of_the_same_base():
    """Past the file's positions (and for spare slots) a slot takes the profile of another
    isomorph of the same base puzzle; a puzzle's own chains in the file are exact."""
    table = {8: {q: (q, 100 + q, 1) for q in range(12)}}
    p = virtual_card.Profiles(table, base=4)
    assert p(5 * 8, 8) == (5, 105, 1) and p.exact == 1
    assert p(13 * 8, 8) == (1, 101, 1)  # 13 mod 12 keeps base 13 mod 4 = 1
    assert p(SPARE_STRIDE + 5 * 8, 8) == (9, 109, 1)  # spare 1 of puzzle 5: 5 + 4
    assert p.substituted == 2
    with pytest.raises(SystemExit, match="no solve profiles at 64"):
        p(0, 64)


def test_committed_calibration_is_within_its_tolerance_and_renders():
    """The committed results: every calibration run's modeled wall within 25 % of the measured
    one, the prediction quoted, the report generated from the file, the --json line's shape."""
    path = virtual_card.OUT.with_suffix(".json")
    result = json.loads(path.read_text())
    assert [r["name"] for r in result["runs"]] == list(virtual_card.CALIBRATION)
    for r in result["runs"]:
        ratio = r["modeled"]["wall_seconds"] / r["measured"]["wall_seconds"]
        assert abs(ratio - 1) <= virtual_card.TOLERANCE, r["name"]
    assert result["within"] and result["predicted"] is not None
    assert virtual_card.render(result) == virtual_card.OUT.with_suffix(".md").read_text()
    line = virtual_card.last_line(result)
    assert set(line) == {"runs", "predicted"}
    assert set(line["predicted"]) == {"iso60000_puzzles_per_second", "useful_fraction"}
    assert all(set(r) == {"name", "measured_s", "modeled_s"} for r in line["runs"])
    assert 0 < line["predicted"]["useful_fraction"] <= 1


def test_the_persistent_devices_publish_charges_the_host_each_copy():
    """The persistent pool's modeled device charges a publish the host's seconds a puzzle and a
    copy's seconds for each copy the real publish makes: one a table and four more arrays for
    each run of consecutive rows, one for each run of order places, one for PUBLISHED."""
    from types import SimpleNamespace

    from gpu_anneal import standin_persistent as sp
    from gpu_anneal.standin import VirtualClock

    batch = SimpleNamespace(cpp=4, chains=8, given_vals=np.zeros((2, 16), np.uint8))
    clock = VirtualClock()
    runner = sp.ModeledPersistentRunner(batch, 6, 0, False, None, None, clock,
                                        SimpleNamespace(sms=1), per_puzzle=1.0)  # fmt: skip
    tables = {"a": None, "b": None}
    runner.publish(np.array([0, 1, 2]), tables, np.zeros(3), np.arange(3), 3)
    assert clock.now == pytest.approx(3 + sp.COPY_SECONDS * (6 + 1 + 1))
    before = clock.now
    runner.publish(np.array([5, 0]), tables, np.zeros(2), np.arange(3, 5), 5)  # rows: 2 runs
    assert clock.now - before == pytest.approx(2 + sp.COPY_SECONDS * (2 * 6 + 1 + 1))
    before = clock.now
    runner.publish(np.array([1, 2]), tables, np.zeros(2), np.arange(5, 7), 7)  # places 5, 0
    assert clock.now - before == pytest.approx(2 + sp.COPY_SECONDS * (6 + 2 + 1))
