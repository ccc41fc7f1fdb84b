"""The impasse chains with one warp a chain (gpu_anneal.kernels.impasse_warp, --lanes 32): its
lane arithmetic, the option's checks and plan, and the real kernel under the CUDA simulator
taking the CPU runner's moves at orders 2 to 8 (tests/cuda_sim/impasse_equality.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from simulate import one_core, simulator_env
from test_impasse import HARDEST, RESULT_ARRAYS, cells_of, cpu_case, lewis, simulate
from typer.testing import CliRunner

from cli.main import app
from cpu_reference.anneal.rng import init_states, uniform_below
from cpu_reference.errors import InputError
from gpu_anneal import api, impasse_solver
from gpu_anneal.kernels import impasse_warp
from gpu_anneal.plan import card_named
from gpu_anneal.settings import Settings

HERE = Path(__file__).parent
ROOT = HERE.parent


def xoroshiro(s0: int, s1: int) -> tuple[int, int, int]:
    """One xoroshiro128+ step in Python integers: (output, s0, s1)."""
    mask = 2**64 - 1

    def rotl(x: int, k: int) -> int:
        return ((x << k) | (x >> (64 - k))) & mask

    out = (s0 + s1) & mask
    s1 ^= s0
    return out, rotl(s0, 55) ^ s1 ^ ((s1 << 14) & mask), rotl(s1, 36)


def warp_settings(chains, lanes: int = 32) -> Settings:
    """--method impasse --backend cuda settings with these --chains (None: not given) and
    --lanes."""
    return Settings("sudoku", "impasse", "cuda", chains, 0, None, None, None, None, None, True,
                    None, lanes=lanes)  # fmt: skip


def test_each_lane_keeps_its_own_draw_of_the_chunk():
    """lane_draw steps the state over the chunk's draws whatever the lane, and lane j keeps the
    top 32 bits of draw j (0 past the chunk)."""
    s0, s1 = (int(v) for v in init_states(1, 5)[0])
    outputs = []
    t0, t1 = s0, s1
    for _ in range(7):
        r, t0, t1 = xoroshiro(t0, t1)
        outputs.append(r >> 32)
    for lane in range(9):
        top, a, b = impasse_warp.lane_draw(np.uint64(s0), np.uint64(s1), 7, lane)
        assert (int(a) % 2**64, int(b) % 2**64) == (t0, t1)
        assert int(top) == (outputs[lane] if lane < 7 else 0)


def test_a_lane_scales_its_draw_as_the_sequential_choice_does():
    """draw_falls_under(top, bound, w) is uniform_below(bound) < w for the same output."""
    rng = np.random.default_rng(4)
    for s0, s1 in rng.integers(1, 2**63, size=(200, 2), dtype=np.uint64):
        bound = int(rng.integers(1, 65 * 2**24))
        weight = int(rng.integers(0, 2**24 + 1))
        below, _, _ = uniform_below(s0, s1, bound)
        top = xoroshiro(int(s0), int(s1))[0] >> 32
        assert top * bound >> 32 == int(below)  # the scaling the lanes repeat
        assert impasse_warp.draw_falls_under(top, bound, weight) == (int(below) < weight)


def test_the_last_voting_lane_wins():
    """highest_lane is the index of the ballot's highest set bit."""
    for votes in (1, 2, 3, 0b10110, 1 << 17, (1 << 31) | 5, 0xFFFFFFFF):
        assert impasse_warp.highest_lane(votes) == votes.bit_length() - 1


def test_lanes_are_refused_where_they_do_not_apply(tmp_path):
    """--lanes: 1 or 32, with --method impasse on --backend cuda alone; each refusal is one
    line naming the option, exit code 2."""
    with pytest.raises(InputError, match="lanes 7: must be 1 .* or 32"):
        api.solve(HARDEST, method="impasse", backend="cuda", lanes=7)
    with pytest.raises(InputError, match="give backend 'cuda'"):
        api.solve(HARDEST, method="impasse", backend="cpu", lanes=32)
    with pytest.raises(InputError, match="lanes does not apply to method 'auto'"):
        api.solve(HARDEST, lanes=32)
    with pytest.raises(InputError, match="lanes does not apply to method 'anneal'"):
        api.solve(HARDEST, method="anneal", lanes=32)
    puzzle = tmp_path / "p.txt"
    puzzle.write_text(HARDEST + "\n")
    bad = CliRunner().invoke(app, ["solve", str(puzzle), "--method", "impasse", "--lanes", "32"])
    assert bad.exit_code == 2
    assert bad.output.strip() == ("gpu-anneal: --lanes 32: lanes set the impasse kernel on a "
                                  "card; give --backend cuda")  # fmt: skip


def test_dry_run_names_a_warp_a_chain_on_a_card(tmp_path):
    """--dry-run of --lanes 32 on a card described: a full wave of warps a puzzle (at 9x9 on an
    H100, 11 blocks of one warp an SM by its 176 registers, 132 SMs), each chain's state in
    shared memory; without it, CUDA_CHAINS chains a thread each."""
    puzzle = tmp_path / "p.txt"
    puzzle.write_text(HARDEST + "\n")
    base = ["solve", str(puzzle), "--method", "impasse", "--dry-run", "--device", "H100 SXM",
            "--backend", "cuda"]  # fmt: skip
    warp = CliRunner().invoke(app, [*base, "--lanes", "32"])
    assert warp.exit_code == 0, warp.output
    assert "1,452 chains a puzzle on the card, one chain a warp" in warp.output
    assert "its state (948 bytes) in shared memory, a chain a block" in warp.output
    thread = CliRunner().invoke(app, base)
    assert "4,096 chains a puzzle on the card, one chain a thread" in thread.output


def test_a_chains_state_is_in_shared_memory_up_to_64x64():
    """A chain's state rows (uint8 grid, int16 where, oset and holder) fit a block's 48 KiB of
    static shared memory up to 64x64 (45,442 bytes; the grid's bytes padded to the int16
    arrays' alignment, as ptxas counts them); past it (order 9, 72,660) the kernel would keep
    them in global memory, and the plan says why."""
    assert impasse_warp.state_bytes(6) == 1296 + 2 * (1296 + 1297 + 3 * 36 * 37) == 14_474
    assert impasse_warp.state_bytes(7) == 2402 + 2 * (2401 + 2402 + 3 * 49 * 50) == 26_708
    assert impasse_warp.shared_fits(7)
    assert impasse_warp.state_bytes(8) == 45_442 and impasse_warp.shared_fits(8)
    assert impasse_warp.shared_orders() == (2, 3, 4, 5, 6, 7, 8)
    assert impasse_warp.state_bytes(9) == 72_660 and not impasse_warp.shared_fits(9)
    with pytest.raises(ValueError, match="order 9: a chain's state .72,660 bytes. is past"):
        impasse_warp.shared_kernel_function(9)
    assert "global memory: 72,660 bytes a chain pass" in impasse_solver.warp_state_text(9)
    assert "its state (45,442 bytes) in shared memory" in impasse_solver.warp_state_text(8)


def test_the_warp_chains_of_a_puzzle_are_one_full_wave():
    """Default chains at 32 lanes: an H100's 132 SMs times the blocks one holds. At 36x36 its
    registers allow 65,536 // (176 x 32) = 11 (shared memory 15); at 49x49 its shared memory
    allows 233,472 // (26,708 + 1,024 reserved) = 8; at 64x64 233,472 // (45,442 + 1,024) = 5."""
    card = card_named("H100 SXM")
    assert impasse_solver.warp_chains(card, 6) == 132 * 11
    assert impasse_solver.warp_chains(card, 7) == 132 * 8
    assert impasse_solver.warp_chains(card, 8) == 132 * 5

    assert impasse_solver.chains_of(warp_settings(None), "cuda", 7, card) == 1_056
    assert impasse_solver.chains_of(warp_settings(5), "cuda", 7, card) == 5


def test_the_card_is_read_only_where_a_wave_sizes_the_chains(monkeypatch):
    """wave_card reads the current card at 32 lanes on a card with --chains not given, and not
    at all with --chains given, at one lane a chain or on the cores."""
    from gpu_anneal import plan

    reads = []
    monkeypatch.setattr(plan, "resolve_card", lambda name: reads.append(name) or "card")

    assert impasse_solver.wave_card(warp_settings(None), "cuda", 32) == "card"
    assert reads == [None]
    assert impasse_solver.wave_card(warp_settings(5), "cuda", 32) is None
    assert impasse_solver.wave_card(warp_settings(None, 1), "cuda", 1) is None
    assert impasse_solver.wave_card(warp_settings(None), "cpu", 1) is None
    assert reads == [None]


def test_the_wave_sizing_registers_cover_the_committed_ptxas_figures():
    """WARP_REGISTERS, by which the default chains fill one wave, are ptxas's highest figure of
    each placement over sm_80 and sm_90 rounded up to a multiple of 8: never below (a wave
    would not fit, and a second wave would run after the first)."""
    tables = [json.loads((ROOT / "benchmarks" / "results" / "kernels" / f"ptxas_{arch}.json")
                         .read_text()) for arch in ("sm_80", "sm_90")]  # fmt: skip
    for shared, name in ((True, impasse_warp.SHARED_NAME), (False, impasse_warp.NAME)):
        figures = [row["registers"] for table in tables for row in table if row["kernel"] == name]
        assert figures, name
        assert impasse_solver.WARP_REGISTERS[shared] == -(-max(figures) // 8) * 8, name


def test_the_wave_sizing_shared_bytes_are_ptxas_figures():
    """state_bytes, by which the wave is sized, is the static shared memory ptxas reports for
    the shared-state kernel at every order it is built for, on both architectures."""
    for arch in ("sm_80", "sm_90"):
        table = json.loads((ROOT / "benchmarks" / "results" / "kernels" / f"ptxas_{arch}.json")
                           .read_text())  # fmt: skip
        rows = [r for r in table if r["kernel"] == impasse_warp.SHARED_NAME]
        assert [r["size"] for r in rows] == list(impasse_warp.shared_orders()), arch
        for r in rows:
            assert r["shared_bytes"] == impasse_warp.state_bytes(r["size"]), (arch, r["size"])


# ---- the real kernel under the CUDA simulator ---------------------------------------------

WARP_CASES = [
    {"order": 2, "cells": [0] * 16, "chains": 2, "seed": 1, "temperature": 0.5,
     "slice_moves": 30, "slices": 2, "trial_moves": 0},
    {"order": 3, "cells": cells_of(HARDEST).tolist(), "chains": 3, "seed": 2,
     "temperature": 0.325, "slice_moves": 200, "slices": 3, "trial_moves": 150, "stay": 0.25},
    {"order": 4, "cells": lewis(4, 45).tolist(), "chains": 2, "seed": 3, "temperature": 0.325,
     "slice_moves": 200, "slices": 2, "trial_moves": 0, "stay": 0.0},
    *[{"order": n, "cells": [0] * n**4, "chains": 2, "seed": n, "temperature": 0.325,
       "slice_moves": 60, "slices": 2, "trial_moves": 0} for n in (5, 6, 7, 8)],
]  # fmt: skip
# the state rows in global memory where they fit shared memory too (the kernel past 64x64, and
# bench_impasse_rate --warp-state global)
WARP_CASES.append({**WARP_CASES[2], "seed": 4, "shared": False})
for _case in WARP_CASES:
    _case["lanes"] = 32


@pytest.fixture(scope="module")
def simulated() -> list[dict]:
    """Every WARP_CASES case through the warp kernel in one simulator run."""
    return simulate(WARP_CASES, timeout=900)


@pytest.mark.cudasim
def test_simulated_warp_kernel_takes_the_cpu_chains_moves_at_every_order(simulated):
    """At orders 2 to 8 (two chunks of candidates at 49x49 and 64x64, fresh trials at 9x9) the
    warp kernel ends every chain where the CPU runner does: RNG states, best grids, their open
    cells, solved flags and counts, and the same result; its state rows in shared memory up to
    64x64, in global memory where asked."""
    assert set(RESULT_ARRAYS) <= set(simulated[0])
    for case, got in zip(WARP_CASES, simulated, strict=True):
        # the warp kernel ran (its module's digest covers the simulator's warp operations)
        shared = case.get("shared", True)
        made = f"impasse_warp_shared{case['order']}_" if shared else "impasse_warp_"
        assert got["kernel"].startswith("gpu_anneal_kernel_" + made), got["kernel"]
        assert got["kernel"].endswith(".kernel")
        expected = cpu_case(case)
        for key, value in expected.items():
            assert got[key] == value, (case["order"], key)
        assert np.asarray(got["counts"])[:, 0].max() > 0
        if case["trial_moves"]:
            assert np.asarray(got["counts"])[:, 2].max() > 1  # a fresh trial ran


@pytest.mark.cudasim
def test_a_simulated_run_at_32_lanes_solves_records_and_replays(tmp_path):
    """solve --method impasse --backend cuda --lanes 32 under the simulator: solved and verified,
    params.lanes 32 and the warp's chains; the solving chain replays on the CPU to the same grid
    after as many moves."""
    puzzle = tmp_path / "p.txt"
    text = "1..2..3.........\n2..1............\n"  # two 4x4 puzzles: streams q * chains + i
    puzzle.write_text(text)
    proc = subprocess.run(
        [sys.executable, "-m", "gpu_anneal", "solve", str(puzzle), "--method", "impasse",
         "--backend", "cuda", "--lanes", "32", "--chains", "2", "--seed", "3", "--output",
         "jsonl", "-q"],
        preexec_fn=one_core(), env=simulator_env(), cwd=ROOT, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert [r["status"] for r in records] == ["solved", "solved"]
    assert max(r["counts"]["chain_proposals"] or 0 for r in records) > 0  # chains moved
    for q, record in enumerate(records):
        assert record["backend"] == "cuda" and record["verified"]
        assert record["params"]["lanes"] == 32 and record["params"]["chains"] == 2
        chain = record["counts"]["solving_chain"]
        if chain is None:  # deduction alone solved it: no chain ran
            continue
        assert chain // 2 == q
        again = api.replay(text, chain, chains=2, method="impasse", seed=3)
        assert again.solution == record["solution"]
        assert again.counts.chain_proposals == record["counts"]["chain_proposals"]
