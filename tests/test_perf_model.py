"""The performance model read from compiled code: SASS counting, loop finding, the model, the CLI,
and the latency model (registers read and written, the walk, the sharing of an SM, the
calibration on the committed card figures).

Hand-written SASS listings (in nvdisasm's format) check the counter, the loop finder and the walk
with figures fixed by construction; one real compile (the 4x4 Sudoku kernel) checks that a
record's counts are re-derived from the files `--keep` writes.
"""

from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path

import numpy as np
import pytest

from gpu_anneal.kernels import latency_model as lm
from gpu_anneal.kernels import perf_model as pm
from gpu_anneal.kernels import sass
from gpu_anneal.kernels.cards import CARDS, HOPPER_TIMING, card


def listing(body: str) -> str:
    """A one-function nvdisasm listing around `body`."""
    head = '        .section\t.text.kern,"ax",@progbits\nkern:\n'
    return head + textwrap.dedent(body)


# Loop .L_x_1 (0x040..0x240, 33 instructions) holds one or more of every class; the comment on
# each line says how it counts. Outside it: 4 instructions before, 3 after (EXIT, a self-loop).
COUNTED = listing("""\
    /*0000*/                   LDC R1, c[0x0][0x28] ;
    /*0010*/                   S2R R0, SR_TID.X ;
    /*0020*/                   HFMA2.MMA R3, -RZ, RZ, 0, 0 ;
    /*0030*/                   BSSY B0, `(.L_x_9) ;
.L_x_1:
    /*0040*/                   LDL.128 R4, [R0] ;
    /*0050*/                   LDL R8, [R1+0x10] ;
    /*0060*/                   STL.64 [R0+0x8], R4 ;
    /*0070*/                   LDG.E.64 R10, desc[UR4][R12.64] ;
    /*0080*/                   STG.E desc[UR4][R12.64], R8 ;
    /*0090*/                   LDS R9, [R0] ;
    /*00a0*/                   STS [R0], R9 ;
    /*00b0*/                   LDC.64 R14, c[0x3][R0] ;
    /*00c0*/                   LDC R15, c[0x0][0x160] ;
    /*00d0*/                   ULDC.64 UR4, c[0x0][0x208] ;
    /*00e0*/                   POPC R16, R4 ;
    /*00f0*/                   SHF.L.W.U32.HI R17, R4, 0x17, R5 ;
    /*0100*/                   IMAD.WIDE.U32 R18, R0, 0x4, R12 ;
    /*0110*/                   IADD3 R20, P0, R18, R4, RZ ;
    /*0120*/                   IADD3.X R21, R19, R5, RZ, P0, !PT ;
    /*0130*/                   IADD3 R22, R4, R5, RZ ;
    /*0140*/                   ISETP.GE.U32.AND P1, PT, R20, R4, PT ;
    /*0150*/                   ISETP.GE.AND.EX P1, PT, R21, R5, PT, P1 ;
    /*0160*/                   SHF.L.U64.HI R23, R4, 0xe, R5 ;
    /*0170*/                   SHF.L.U32 R24, R4, 0xe, RZ ;
    /*0180*/                   LEA R26, P2, R4, R12, 0x2 ;
    /*0190*/                   LEA.HI.X R27, R4, R13, R5, 0x2, P2 ;
    /*01a0*/                   FFMA R28, R4, R5, R6 ;
    /*01b0*/                   MUFU.EX2 R29, R28 ;
    /*01c0*/                   DADD R30, R10, R14 ;
    /*01d0*/                   I2F.F64.U64 R32, R20 ;
    /*01e0*/                   F2I.U32.TRUNC.NTZ R34, R28 ;
    /*01f0*/                   DSETP.GT.AND P3, PT, R30, R32, PT ;
    /*0200*/                   HFMA2 R35, R4.H0_H0, R5.H0_H0, R6 ;
    /*0210*/               @P1 BRA `(.L_x_2) ;
    /*0220*/                   CALL.REL.NOINC `($__internal_0) ;
.L_x_2:
    /*0230*/                   ISETP.NE.AND P4, PT, R22, RZ, PT ;
    /*0240*/               @P4 BRA `(.L_x_1) ;
.L_x_9:
    /*0250*/                   BSYNC B0 ;
    /*0260*/                   EXIT ;
.L_x_3:
    /*0270*/                   BRA `(.L_x_3);
""")

LOOP_COUNTS = {
    "instructions": 33,
    "local_loads": 2,  # LDL.128, LDL
    "local_stores": 1,  # STL.64
    "global_loads": 1,  # LDG
    "global_stores": 1,  # STG
    "global_atomics": 0,
    "shared_loads": 1,  # LDS
    "shared_stores": 1,  # STS
    "constant_loads_indexed": 1,  # LDC c[0x3][R0]; not LDC c[0x0][0x160], not ULDC
    "branches": 3,  # @P1 BRA, CALL, @P4 BRA
    "popc": 1,
    "rng_rotates": 1,  # SHF.L.W
    "philox_multiplies": 0,
    "votes": 0,
    "int64": 7,  # IMAD.WIDE, IADD3 P0, IADD3.X, ISETP.EX, SHF.U64, LEA P2, LEA.HI.X
    "fp": 7,  # FFMA, MUFU, DADD, I2F, F2I, DSETP, HFMA2 (not HFMA2.MMA -RZ, RZ)
}


def test_counts_of_a_hand_written_loop_by_class():
    """Every class counted in the loop body, with the exclusions of the module's rules."""
    cfg = sass.build_cfg(COUNTED)
    found = sass.move_loop(cfg, sass.markers_for("sudoku"))
    assert found.move is not None, found.reason
    assert cfg.loop_span(found.move) == (0x40, 0x240)
    assert found.plateau is None  # nothing encloses it
    assert sass.count_classes(cfg.loop_instrs(found.move)) == LOOP_COUNTS


def test_counts_of_the_whole_listing_add_the_lines_outside_the_loop():
    """Outside the loop: EXIT and BRA are branches; BSSY, BSYNC, LDC c[0x0], HFMA2.MMA not."""
    instrs, _ = sass.parse_sass(COUNTED)
    counts = sass.count_classes(instrs)
    assert counts["instructions"] == 40
    assert counts["branches"] == LOOP_COUNTS["branches"] + 2
    assert counts["fp"] == LOOP_COUNTS["fp"]
    assert counts["constant_loads_indexed"] == 1


@pytest.mark.parametrize(
    ("line", "classes"),
    [
        ("LDL.U8 R9, [R19]", ["local_loads"]),
        ("STL.64 [R9+-0x10], R4", ["local_stores"]),
        ("LDG.E.S16 R16, desc[UR6][R16.64]", ["global_loads"]),
        ("STG.E.64 desc[UR6][R2.64], R4", ["global_stores"]),
        ("RED.E.ADD.STRONG.GPU desc[UR4][R2.64], R5", ["global_atomics"]),
        ("LDS.64 R4, [R3+0x10]", ["shared_loads"]),
        ("STS.128 [R3], R8", ["shared_stores"]),
        ("LDC.64 R2, c[0x3][R59+0x8]", ["constant_loads_indexed"]),
        ("LDC R2, c[0x0][0x168]", []),
        ("BRA `(.L_x_6)", ["branches"]),
        ("EXIT", ["branches"]),
        ("BREAK B3", []),
        ("POPC R5, R67", ["popc"]),
        ("SHF.L.W.U32.HI R59, R66, 0x4, R58", ["rng_rotates"]),
        ("SHF.R.U64 R4, R4, 0x14, R5", ["int64"]),
        ("SHF.R.S32.HI R57, RZ, 0x1f, R56", []),
        ("IMAD.WIDE R56, R3, UR4, R56", ["int64"]),
        ("IMAD.X R60, R60, 0x1, R29, P0", ["int64"]),
        ("IMAD.HI.U32 R18, R11, 0x8, R4", []),
        ("IADD3 R7, P1, P2, -R5, R3, R4", ["int64"]),
        ("UIADD3.64 UR4, UR4, 0x10, URZ", ["int64"]),
        ("LOP3.LUT R4, R4, R11, RZ, 0x3c, !PT", []),
        ("FSETP.GEU.AND P0, PT, R3, -126, PT", ["fp"]),
        ("DMUL R4, R4, R6", ["fp"]),
        ("I2FP.F32.U32 R3, R2", ["fp"]),
        ("HFMA2.MMA R5, -RZ, RZ, 1.875, 0", []),
        ("FLO.U32 R3, R2", []),
        ("IMAD.WIDE.U32 R4, R18, -0x2daee0ad, RZ", ["philox_multiplies", "int64"]),
        ("IMAD R30, R18, -0x326172a9, RZ", ["philox_multiplies"]),
        ("UIMAD.WIDE.U32 UR42, UR28, -0x2daee0ad, URZ", ["philox_multiplies", "int64"]),
        ("IMAD.WIDE.U32 R12, R11, -0x33333333, RZ", ["int64"]),
        ("VOTE.ANY R36, PT, P0", ["votes"]),
        ("VOTEU.ANY UR12, UPT, P0", ["votes"]),
        ("VOTEU.ANY UP0, P0", []),
    ],
)
def test_each_instruction_counts_in_its_classes(line, classes):
    """One instruction at a time: the classes it counts in (beside 'instructions')."""
    (ins,), _ = sass.parse_sass(listing(f"    /*0000*/                   {line} ;\n"))
    assert sass.classify(ins) == classes


# Outer loop .L_x_0 (0x10..0xb0 plus an out-of-line block at 0xd0..0xe0 placed after EXIT);
# inner loop .L_x_1 (0x20..0x70) holds the markers (a wrap funnel shift and a POPC).
NESTED = listing("""\
    /*0000*/                   LDC R1, c[0x0][0x28] ;
.L_x_0:
    /*0010*/                   IADD3 R2, R2, 0x1, RZ ;
.L_x_1:
    /*0020*/                   SHF.L.W.U32.HI R3, R4, 0x17, R5 ;
    /*0030*/                   POPC R6, R3 ;
    /*0040*/               @P0 BRA `(.L_x_2) ;
    /*0050*/                   STL [R1], R6 ;
.L_x_2:
    /*0060*/                   ISETP.NE.AND P1, PT, R6, RZ, PT ;
    /*0070*/               @P1 BRA `(.L_x_1) ;
    /*0080*/                   FADD R7, R7, R8 ;
    /*0090*/               @P2 BRA `(.L_x_4) ;
.L_x_3:
    /*00a0*/                   ISETP.NE.AND P3, PT, R2, 0x10, PT ;
    /*00b0*/               @P3 BRA `(.L_x_0) ;
    /*00c0*/                   EXIT ;
.L_x_4:
    /*00d0*/                   DADD R8, R8, R10 ;
    /*00e0*/                   BRA `(.L_x_3) ;
""")


def test_nested_loops_move_loop_inside_plateau_loop():
    """The inner loop is the move loop; the outer (with its out-of-line block) the plateau loop."""
    cfg = sass.build_cfg(NESTED)
    assert len(cfg.loops) == 2
    found = sass.move_loop(cfg, sass.markers_for("sudoku"))
    assert found.move is not None and found.plateau is not None, found.reason
    assert cfg.loop_span(found.move) == (0x20, 0x70)
    assert found.move.depth == 1 and found.plateau.depth == 0
    move, plateau = cfg.loop_instrs(found.move), cfg.loop_instrs(found.plateau)
    assert len(move) == 6
    assert len(plateau) == 13  # 0x10..0xb0 and the block at 0xd0 reached only from the loop
    assert sass.count_classes(move)["fp"] == 0
    assert sass.count_classes(plateau)["fp"] == 2  # FADD and the out-of-line DADD
    summary = sass.read_listing(NESTED, "sudoku").summary()
    assert summary["instructions_per_proposal"] == 6 and summary["plateau_fp"] == 2
    assert summary["instructions_per_proposal_is_upper_bound"] is True


def test_a_call_to_a_local_label_is_a_jump_out_of_the_loop():
    """sm_80 code leaves a loop by `CALL.REL.NOINC` to a local label: a jump, not a function
    entry, so the loop around it is still found (as the plateau loop here)."""
    text = listing("""\
    /*0000*/                   LDC R1, c[0x0][0x28] ;
.L_x_0:
    /*0010*/                   IADD3 R2, R2, 0x1, RZ ;
.L_x_1:
    /*0020*/                   SHF.L.W.U32.HI R3, R4, 0x17, R5 ;
    /*0030*/                   POPC R6, R3 ;
    /*0040*/              @!P2 CALL.REL.NOINC `(.L_x_2) ;
    /*0050*/                   BRA `(.L_x_1) ;
.L_x_2:
    /*0060*/                   FADD R7, R7, R8 ;
    /*0070*/               @P3 BRA `(.L_x_0) ;
    /*0080*/                   EXIT ;
""")
    cfg = sass.build_cfg(text)
    found = sass.move_loop(cfg, sass.markers_for("sudoku"))
    assert found.move is not None and found.plateau is not None, found.reason
    assert cfg.loop_span(found.move) == (0x20, 0x50)
    assert cfg.loop_span(found.plateau) == (0x10, 0x70)
    assert sass.count_classes(cfg.loop_instrs(found.plateau))["fp"] == 1


def test_no_loop_with_the_markers_is_reported_not_guessed():
    """Without POPC a Sudoku kernel has no move loop; the record says why."""
    text = NESTED.replace("POPC R6, R3", "IADD3 R6, R3, 0x1, RZ")
    summary = sass.read_listing(text, "sudoku").summary()
    assert summary["move_loop_found"] is False
    assert "no loop holds" in summary["rule"]
    assert "instructions_per_proposal" not in summary
    # Shikaku and Hashiwokakero need only the RNG step: the same listing has one
    assert sass.read_listing(text, "shikaku").summary()["move_loop_found"] is True


def test_two_innermost_loops_at_the_same_depth_are_ambiguous():
    """Two sibling loops both holding the markers: no move loop is picked."""
    twin = listing("""\
    /*0000*/                   LDC R1, c[0x0][0x28] ;
.L_x_0:
    /*0010*/                   SHF.L.W.U32.HI R3, R4, 0x17, R5 ;
    /*0020*/               @P0 BRA `(.L_x_0) ;
.L_x_1:
    /*0030*/                   SHF.L.W.U32.HI R3, R4, 0x17, R5 ;
    /*0040*/               @P1 BRA `(.L_x_1) ;
    /*0050*/                   EXIT ;
""")
    found = sass.move_loop(sass.build_cfg(twin), sass.markers_for("hashi"))
    assert found.move is None and "ambiguous" in found.reason


def test_the_deeper_of_two_marked_loops_is_the_move_loop():
    """A marked loop at depth 0 (e.g. the initial fill) loses to one nested deeper."""
    init = NESTED.replace(
        "    /*0000*/                   LDC R1, c[0x0][0x28] ;\n",
        "    /*0000*/                   LDC R1, c[0x0][0x28] ;\n.L_x_8:\n"
        "    /*0004*/                   SHF.L.W.U32.HI R3, R4, 0x17, R5 ;\n"
        "    /*0006*/                   POPC R6, R3 ;\n"
        "    /*0008*/               @P5 BRA `(.L_x_8) ;\n",
    )
    cfg = sass.build_cfg(init)
    assert len(cfg.loops) == 3
    found = sass.move_loop(cfg, sass.markers_for("sudoku"))
    assert found.move is not None and cfg.loop_span(found.move) == (0x20, 0x70)


# ----------------------------------------------------------------------------- the model


def test_distinct_lines_formula_matches_a_simulation():
    """D(K) against 20,000 simulated warps of 32 uniform indices (seed 1), within 1 %."""
    rng = np.random.default_rng(1)
    for k in (1, 9, 21, 84, 1000):
        draws = rng.integers(0, k, size=(20_000, 32))
        simulated = np.mean([len(set(row)) for row in draws])
        assert pm.distinct(k) == pytest.approx(simulated, rel=0.01)
    assert pm.distinct(1) == 1.0 and pm.distinct(10**9) == pytest.approx(32, rel=1e-6)


def test_occupancy_of_72_registers_is_7_blocks_of_128_on_h100():
    """72 registers x 32 lanes = 2304 per warp (a multiple of 256): 65536 // 2304 = 28 warps."""
    occ = pm.occupancy(CARDS["H100 SXM"], registers=72, threads_per_block=128)
    assert occ["blocks_per_sm"] == 7 and occ["warps_per_sm"] == 28
    assert occ["limited_by"] == "registers"
    assert pm.occupancy(CARDS["H100 SXM"], 64, 128)["blocks_per_sm"] == 8
    small = pm.occupancy(CARDS["H100 SXM"], 32, 128)  # registers no longer limit
    assert small["blocks_per_sm"] == 16 and small["limited_by"] == "threads"
    big_smem = pm.occupancy(CARDS["H100 SXM"], 32, 128, shared_bytes=100 * 1024)
    assert big_smem["blocks_per_sm"] == 2 and big_smem["limited_by"] == "shared"


def test_kernels_without_launch_bounds_are_modeled_at_the_runners_block_size():
    """The grid-puzzle kernels carry no launch bounds: the model uses the block size their
    runner launches with, and a kernel's own bounds win where it has them."""
    from gpu_anneal.grid_runners import cuda_trials
    from gpu_anneal.kinds import kind_of

    runner = cuda_trials(kind_of("hashi").trial_kernel())
    assert pm.default_threads_per_block(None) == runner.threads_per_block
    assert pm.default_threads_per_block((32, 4)) == 32


def test_more_registers_never_give_more_warps():
    """Occupancy is monotone in registers per thread on every card."""
    for c in CARDS.values():
        warps = [pm.occupancy(c, r, 128)["warps_per_sm"] for r in range(16, 256, 8)]
        assert warps == sorted(warps, reverse=True)


def _loop_model(text: str, kernel: str = "sudoku") -> dict:
    found = sass.read_listing(text, kernel)
    return pm.model_listing(found, 64, 336, 0, 1296, 128)


def test_more_instructions_give_fewer_modeled_proposals():
    """Padding the move loop with integer instructions lowers an issue-bound rate."""
    base = NESTED.replace("    /*0050*/                   STL [R1], R6 ;\n", "")  # no memory
    pad = "".join(
        f"    /*00{k:02x}*/                   IADD3 R9, R9, 0x1, RZ ;\n" for k in range(10)
    )
    padded = base.replace(".L_x_2:\n", pad + ".L_x_2:\n")
    for name in CARDS:
        a, b = _loop_model(base)[name], _loop_model(padded)[name]
        assert a["bound"] == b["bound"] == "issue"
        assert b["proposals_per_second"] < a["proposals_per_second"]
        assert a["proposals_per_second"] / b["proposals_per_second"] == pytest.approx(15 / 5)


def test_more_local_loads_never_give_more_modeled_proposals():
    """Adding per-lane local loads to the move loop: the rate does not rise, and falls once L1
    binds."""
    extra = "    /*0055*/                   LDL.128 R12, [R6] ;\n"
    text = NESTED
    previous = _loop_model(text)
    for _ in range(6):
        text = text.replace(".L_x_2:\n", extra + ".L_x_2:\n")
        now = _loop_model(text)
        for name in CARDS:
            assert now[name]["proposals_per_second"] <= previous[name]["proposals_per_second"]
            if previous[name]["bound"] == "l1":
                assert now[name]["proposals_per_second"] < previous[name]["proposals_per_second"]
        previous = now
    assert all(v["bound"] == "l1" for v in previous.values())


def test_a_uniform_local_address_costs_one_wavefront_per_word():
    """[R1+imm] is the same in every lane: 4 wavefronts for 128 bits; a per-lane one costs more."""
    instrs, _ = sass.parse_sass(COUNTED)
    uniform = sass.uniform_registers(instrs)
    assert 1 in uniform and 0 not in uniform  # R1 from c[0x0][0x28]; R0 from SR_TID.X
    by_addr = {i.address: i for i in instrs}
    assert pm.wavefronts(by_addr[0x50], uniform, 336, 0) == 1.0  # LDL R8, [R1+0x10]
    per_lane = pm.wavefronts(by_addr[0x40], uniform, 336, 0)  # LDL.128 R4, [R0]
    assert per_lane == pytest.approx(4 * pm.distinct(336 // 16))
    assert pm.wavefronts(by_addr[0xA0], uniform, 336, 0) == 1.0  # STS: [word][thread] layout
    assert pm.wavefronts(by_addr[0xB0], uniform, 336, 1296) == pytest.approx(pm.distinct(162))


def test_every_card_names_a_source_for_its_figures():
    """The card table: positive figures and a source for SMs, clock and L1 of every card."""
    assert {"H100 SXM", "A100 SXM", "L4", "RTX 4090"} <= set(CARDS)
    for c in CARDS.values():
        assert c.sms > 0 and c.boost_mhz > 0 and c.issue_per_clock_per_sm == 4
        assert c.max_warps_per_sm * 32 == c.max_threads_per_sm
        for key in ("sms", "boost_mhz", "l1_shared_kib_per_sm", "limits"):
            assert c.source.get(key), (c.name, key)
    with pytest.raises(KeyError, match="expected one of"):
        card("H200")


# ------------------------------------------------------------------------ CLI and a real kernel


def test_missing_nvdisasm_is_one_line_naming_the_wheel_and_exit_2(monkeypatch, tmp_path):
    """GPU_ANNEAL_NVDISASM pointing nowhere: one line naming pip install ..., exit code 2."""
    pytest.importorskip("numba.cuda")
    from typer.testing import CliRunner

    from cli.main import app

    monkeypatch.setenv(sass.NVDISASM_ENV, str(tmp_path / "no-nvdisasm"))
    result = CliRunner().invoke(app, ["kernels", "--kind", "shikaku", "--json"])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install nvidia-cuda-nvdisasm" in lines[0]
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    "args, fault",
    [(["--kind", "foo"], "--kind 'foo': no such kernel; kernels are sudoku, "),
     (["--kind", ""], "--kind '': no such kernel;"),
     (["--keep", "", "--kind", "shikaku"], "--keep '': name a folder for the compiled files")],
)  # fmt: skip
def test_an_unknown_kernel_or_an_empty_folder_is_one_line_and_exit_2(args, fault):
    """kernels --kind foo printed an empty table with exit 0; --keep '' wrote into the current
    folder."""
    pytest.importorskip("numba.cuda")
    from typer.testing import CliRunner

    from cli.main import app

    result = CliRunner().invoke(app, ["kernels", *args])
    assert result.exit_code == 2 and result.stdout == "", result.output
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"gpu-anneal: {fault}")


@pytest.mark.ptx
def test_kept_files_of_the_4x4_kernel_rederive_its_counts(monkeypatch, tmp_path):
    """`kernels --keep DIR` on the order-2 Sudoku kernel: DIR/sudoku-2.ptx, .cubin, .sass; the
    record's counts equal the counter's on the kept .sass, which nvdisasm gives again from the
    kept .cubin."""
    pytest.importorskip("numba.cuda")
    from typer.testing import CliRunner

    from cli.main import app
    from gpu_anneal.kernels import ptx

    if ptx.find_ptxas() is None or sass.find_nvdisasm() is None:
        pytest.skip("no ptxas or nvdisasm here")
    registry = ptx.kernel_registry

    def order_2_only(trials=None):
        entry = list(registry()["sudoku"])
        entry[2] = (2,)
        return {"sudoku": tuple(entry)}

    monkeypatch.setattr(ptx, "kernel_registry", order_2_only)
    result = CliRunner().invoke(
        app, ["kernels", "--arch", "sm_90", "--json", "--keep", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    (record,) = json.loads(result.stdout)
    assert record["kernel"] == "sudoku" and record["size"] == 2
    for ext in ("ptx", "cubin", "sass"):
        assert (tmp_path / f"sudoku-2.{ext}").stat().st_size > 0
    text = (tmp_path / "sudoku-2.sass").read_text()
    assert sass.disassemble((tmp_path / "sudoku-2.cubin").read_bytes()) == text
    assert record["sass"] == sass.read_listing(text, "sudoku").summary()
    counts = record["sass"]
    assert counts["move_loop_found"], counts["rule"]
    assert counts["instructions_per_proposal"] > 10 and counts["popc"] >= 1
    assert counts["rng_rotates"] >= 2  # xoroshiro128+'s two rotations
    assert set(record["model"]) == set(CARDS)
    for figures in record["model"].values():
        assert figures["proposals_per_second"] > 0 and figures["bound"] in ("issue", "l1")


# A cooperative kernel's round loop (.L_x_1: a Philox multiply and a ballot) inside its plateau
# loop (.L_x_0); the one-thread markers (rotation, POPC) sit in the plateau loop only.
COOP = listing("""\
    /*0000*/                   LDC R1, c[0x0][0x28] ;
.L_x_0:
    /*0010*/                   SHF.L.W.U32.HI R3, R4, 0x17, R5 ;
    /*0020*/                   POPC R6, R3 ;
.L_x_1:
    /*0030*/                   IMAD.WIDE.U32 R8, R2, -0x2daee0ad, RZ ;
    /*0040*/                   LDS R9, [R8] ;
    /*0050*/                   LDS R10, [R1+0x10] ;
    /*0060*/                   VOTE.ANY R11, PT, P0 ;
    /*0070*/                   ISETP.NE.AND P1, PT, R11, RZ, PT ;
    /*0080*/               @P1 BRA `(.L_x_1) ;
    /*0090*/                   ISETP.NE.AND P2, PT, R2, 0x10, PT ;
    /*00a0*/               @P2 BRA `(.L_x_0) ;
    /*00b0*/                   EXIT ;
""")


def test_the_cooperative_kernels_round_loop_is_their_move_loop():
    """sudoku-coop-* markers (a Philox multiply and a ballot) find the inner loop; the
    one-thread Sudoku markers would take the plateau loop, which holds no ballot."""
    cfg = sass.build_cfg(COOP)
    found = sass.move_loop(cfg, sass.markers_for("sudoku-coop-focused"))
    assert found.move is not None, found.reason
    assert cfg.loop_span(found.move) == (0x30, 0x80)
    assert cfg.loop_span(found.plateau) == (0x10, 0xA0)
    one_thread = sass.move_loop(cfg, sass.markers_for("sudoku-focused"))
    assert cfg.loop_span(one_thread.move) == (0x10, 0xA0)


def test_a_round_makes_the_expected_proposals_of_its_acceptance():
    """E(p) = (1 - (1 - p)^32) / p: 32 at p = 0, 1 at p = 1, and the mean of the first
    accepted lane's position + 1 (32 if none) over the 2^32 outcomes' probabilities."""
    assert pm.proposals_per_round(0.0) == 32
    assert pm.proposals_per_round(1.0) == pytest.approx(1.0)
    for p in (0.01, 0.1, 0.176, 0.5):
        direct = sum(j * p * (1 - p) ** (j - 1) for j in range(1, 33)) + 32 * (1 - p) ** 32
        assert pm.proposals_per_round(p) == pytest.approx(direct)
    assert pm.proposals_per_round(0.01) == pytest.approx(27.5, abs=0.05)


def test_expected_fullest_bank_of_random_addresses():
    """Two balls in two bins: 1.5; three in three: 17/9; 32 lanes over 32 banks: about 3.53
    (a seeded simulation of 20,000 warps agrees within 0.02)."""
    assert pm.expected_max_load(2, 2) == pytest.approx(1.5)
    assert pm.expected_max_load(3, 3) == pytest.approx(17 / 9)
    rng = np.random.default_rng(0)
    banks = rng.integers(0, 32, size=(20_000, 32))
    simulated = np.mean([np.bincount(row, minlength=32).max() for row in banks])
    assert pm.expected_max_load() == pytest.approx(simulated, abs=0.02)


def test_the_cooperative_model_takes_a_rounds_proposals_and_bank_conflicts():
    """The round loop above: a per-lane LDS costs expected_max_load() wavefronts where lanes
    share a chain, 1 otherwise (the uniform one costs 1 either way); the modeled rate scales
    with E(p), and the per-chain figures divide it by the resident warps."""
    listing_ = sass.read_listing(COOP, "sudoku-coop-focused")
    body = listing_.move_instrs()
    alone = pm.loop_wavefronts(body, listing_.uniform, 0, 0)
    shared = pm.loop_wavefronts(body, listing_.uniform, 0, 0, shared_chain=True)
    assert alone == 2 and shared == pytest.approx(1 + pm.expected_max_load())
    slow = pm.model_listing(listing_, 64, 0, 8192, 0, 32, acceptance=0.5)["H100 SXM"]
    fast = pm.model_listing(listing_, 64, 0, 8192, 0, 32, acceptance=0.05)["H100 SXM"]
    ratio = pm.proposals_per_round(0.05) / pm.proposals_per_round(0.5)
    assert fast["proposals_per_second"] == pytest.approx(slow["proposals_per_second"] * ratio)
    chains = CARDS["H100 SXM"].sms * fast["warps_per_sm"]
    assert fast["chain_proposals_per_second"] == pytest.approx(
        fast["proposals_per_second"] / chains
    )
    assert fast["acceptance"] == 0.05
    assert (
        "chain_proposals_per_second" not in pm.model_listing(listing_, 64, 0, 0, 0, 32)["H100 SXM"]
    )


def test_a_divergence_check_before_the_ballot_falls_through():
    """sm_80 guards a warp operation with `BRA.DIV ~URZ, ...` (taken only when the warp is
    diverged): the code after it stays in the loop, so the round loop holds the ballot."""
    text = COOP.replace(
        "    /*0060*/                   VOTE.ANY R11, PT, P0 ;\n",
        "    /*0058*/                   BRA.DIV ~URZ, `(.L_x_9) ;\n"
        "    /*0060*/                   VOTE.ANY R11, PT, P0 ;\n",
    )
    text += "    /*00c0*/                   EXIT ;\n.L_x_9:\n"
    text += "    /*00d0*/                   BRA `(.L_x_1) ;\n"
    cfg = sass.build_cfg(text)
    found = sass.move_loop(cfg, sass.markers_for("sudoku-coop"))
    assert found.move is not None, found.reason
    assert sass.count_classes(cfg.loop_instrs(found.move))["votes"] == 1


# ----------------------------------------------------------------------------- the latency model


@pytest.mark.parametrize(
    "line, reads, writes",
    [
        ("IADD3 R42, P3, R45, R30, RZ", ["R45", "R30"], ["R42", "P3"]),
        ("IADD3.X R43, R25, UR13, RZ, P3, P4", ["R25", "UR13", "P3", "P4"], ["R43"]),
        ("ISETP.NE.U32.AND.EX P3, PT, RZ, RZ, PT, P3", ["P3"], ["P3"]),
        ("IMAD.WIDE.U32 R24, R36, UR12, R24", ["R36", "UR12", "R24", "R25"], ["R24", "R25"]),
        ("SHFL.IDX PT, R44, R27, 0x1f, 0x1f", ["R27"], ["R44"]),
        ("VOTE.ANY R24, PT, P3", ["P3"], ["R24"]),
        ("VOTEU.ANY UP0, P3", ["P3"], ["UP0"]),
        ("LDG.E.U8 R49, desc[UR14][R42.64]", ["UR14", "R42", "R43"], ["R49"]),
        ("LDS.64 R86, [R86+0x5100]", ["R86"], ["R86", "R87"]),
        ("STS [R25+UR12], R24", ["R25", "UR12", "R24"], []),
        ("PLOP3.LUT P0, PT, P1, P2, PT, 0x80, 0x0", ["P1", "P2"], ["P0"]),
        ("SEL R25, RZ, 0x10, P3", ["P3"], ["R25"]),
    ],
)
def test_registers_an_instruction_reads_and_writes(line, reads, writes):
    """Destinations and sources by the operand rule of sass.reads_writes."""
    (ins,) = sass.parse_sass(listing(f"    /*0000*/                   {line} ;\n"))[0]
    assert sass.reads_writes(ins) == (reads, writes)


def test_a_guard_predicate_is_read():
    """`@!P3 LDS R27, [R27]` reads P3 as well as its address."""
    (ins,) = sass.parse_sass(listing("    /*0000*/               @!P3 LDS R27, [R27] ;\n"))[0]
    assert sass.reads_writes(ins) == (["P3", "R27"], ["R27"])


def _seq(*lines: str) -> list[sass.Instr]:
    body = "".join(f"    /*{16 * k:04x}*/                   {x} ;\n" for k, x in enumerate(lines))
    return sass.parse_sass(listing(body))[0]


def test_a_dependent_chain_waits_for_each_latency():
    """LDS -> IADD3 -> IADD3 -> BRA: the round is the shared load's latency, the first add's,
    and one issue slot each for the second add and the branch."""
    t = HOPPER_TIMING
    chain = _seq("LDS R2, [R1]", "IADD3 R3, R2, 0x1, RZ", "IADD3 R4, R3, 0x1, RZ", "BRA `(.L_x_0)")
    w = lm.walk(chain, t)
    assert w.cycles == t.latency["lds"] + t.latency["alu"] + 2
    assert w.waits == {"lds": t.latency["lds"] - 1, "alu": t.latency["alu"] - 1}


def test_independent_integer_ops_wait_for_their_pipe():
    """Four independent IADD3s share the 16-lane integer pipe (busy 2 cycles each): they issue
    every other clock, then the branch."""
    ops = _seq(*(f"IADD3 R{k}, R10, 0x1, RZ" for k in range(4)), "BRA `(.L_x_0)")
    w = lm.walk(ops, HOPPER_TIMING)
    assert w.issue == [0.0, 2.0, 4.0, 6.0, 7.0] and w.cycles == 8.0


def test_a_global_load_costs_the_l1_l2_mix_of_its_hit_fraction():
    """LDG then its use: the latency is h x L1 + (1 - h) x L2."""
    t = HOPPER_TIMING
    code = _seq("LDG.E R2, desc[UR4][R6.64]", "IADD3 R3, R2, 0x1, RZ", "BRA `(.L_x_0)")
    for h in (1.0, 0.5, 0.0):
        ldg = h * t.latency["ldg_l1"] + (1 - h) * t.latency["ldg_l2"]
        assert lm.walk(code, t, l1_hit=h).cycles == pytest.approx(ldg + 2)


def test_round_time_lies_within_its_bounds_and_tends_to_the_throughput_bound():
    """T(1) = max(L, D_s + D_m); T(N) never below max(L, N D_s / 4, N D_m), never decreasing
    in N; per warp, T(N) / N tends to the busier of D_s / 4 and D_m."""
    for latency, sched, mio in ((2000.0, 300.0, 40.0), (300.0, 500.0, 20.0), (900, 100, 120)):
        assert lm.mva_round_cycles(1, sched, mio, latency) == pytest.approx(
            max(latency, sched + mio)
        )
        previous = 0.0
        for n in range(1, 65):
            t = lm.mva_round_cycles(n, sched, mio, latency)
            assert t >= lm.round_bound(n, sched, mio, latency) - 1e-9
            assert t >= previous
            previous = t
        per_warp = lm.mva_round_cycles(4096, sched, mio, latency) / 4096
        assert per_warp == pytest.approx(max(sched / 4, mio), rel=0.01)


def _profile(latency: float, sched: float, mio: float = 10.0) -> lm.Profile:
    """A cooperative round of given latency and sub-partition cycles (no update part)."""
    part = lm.Part(int(sched), {"issue": sched}, mio)
    empty = lm.Part(0, {"issue": 0.0}, 0.0)
    return lm.Profile("sudoku-coop-focused", True, 1.0, latency, 0.0, part, empty)


def test_the_latency_bound_dominates_when_warps_are_few():
    """A round of 2,000 cycles' latency and 300 issue cycles: with few warps an SM each chain
    runs at the lone warp's pace (the bound says latency), with 64 the issue bound (64 x 300
    / 4 = 4,800 cycles a round) takes over and a chain runs at most 2,000 / 4,800 of it."""
    card = CARDS["H100 SXM"]
    prof = _profile(2000.0, 300.0)
    few = lm.rates(prof, card, 2, p=1.0)
    assert few["bound"] == "latency"
    lone = card.boost_mhz * 1e6 / 2000.0
    assert few["chain_proposals_per_second"] == pytest.approx(lone, rel=0.02)
    many = lm.rates(prof, card, 64, p=1.0)
    assert many["bound"] == "issue"
    assert many["chain_proposals_per_second"] <= lone * 2000.0 / 4800.0


def test_card_rate_grows_with_occupancy_until_the_throughput_bound():
    """The card's proposals/s never fall as warps an SM grow, and never pass the throughput
    bound SMs x clock x 4 / D_s (one proposal a round)."""
    card = CARDS["H100 SXM"]
    prof = _profile(1500.0, 400.0)
    ceiling = card.sms * card.boost_mhz * 1e6 * 4 / 400.0
    rates = [lm.rates(prof, card, n, p=1.0)["card_proposals_per_second"] for n in range(1, 65)]
    assert all(b >= a for a, b in zip(rates, rates[1:], strict=False))
    assert rates[-1] <= ceiling and rates[-1] > 0.9 * ceiling
    assert rates[0] < 0.2 * ceiling  # one warp an SM: far from the bound, latency-bound


def test_a_round_with_no_acceptance_skips_the_update():
    """Latency and cycles mix as eval + P x update, P = 1 - (1 - p)^32."""
    ev = lm.Part(100, {"issue": 100.0, "alu": 120.0}, 10.0)
    up = lm.Part(80, {"issue": 80.0, "alu": 40.0}, 6.0)
    prof = lm.Profile("sudoku-coop", True, 1.0, 700.0, 500.0, ev, up)
    for p in (0.0, 0.01, 0.2, 1.0):
        share = lm.accept_chance(p)
        latency, sched, mio = prof.mixed(share)
        assert latency == pytest.approx(700 + share * 500)
        assert sched == pytest.approx(max(100 + share * 80, 120 + share * 40))
        assert mio == pytest.approx(10 + share * 6)
    assert lm.Profile.from_dict(prof.as_dict()) == prof


def test_l1_hit_fraction_from_the_carveout():
    """23 chains of 8,828 B (+1 KiB each) take the 228 KiB carve-out: 28 KiB of L1 hold a
    25x25 puzzle's 18,125 B of tables, not a 36x36 one's 51,840 B."""
    card = CARDS["H100 SXM"]
    used = 23 * (8828 + 1024)
    assert lm.carveout_kib(used, card.cc) == 228
    assert lm.l1_hit_fraction(card, used, 18125) == 1.0
    assert lm.l1_hit_fraction(card, used, 51840) == pytest.approx(28 * 1024 / 51840)
    assert lm.carveout_kib(0, card.cc) == 0
    assert lm.l1_hit_fraction(card, 0, 10**6) == pytest.approx(256 * 1024 / 10**6)


# A cooperative round: a broadcast count decides (warp-uniformly) between a conflict-set draw
# (fall-through, .L_x_3 joins) and a move-list draw (.L_x_2); a lane-dependent test guards a
# store both sides of which a warp runs.
UNIFORM_DIAMOND = listing("""\
    /*0000*/                   S2R R0, SR_TID.X ;
    /*0010*/                   MOV R44, RZ ;
.L_x_1:
    /*0020*/                   IMAD.WIDE.U32 R8, R2, -0x2daee0ad, RZ ;
    /*0030*/                   ISETP.NE.AND P4, PT, R44, RZ, PT ;
    /*0040*/               @!P4 BRA `(.L_x_2) ;
    /*0050*/                   LDS R9, [R8] ;
    /*0060*/                   BRA `(.L_x_3) ;
.L_x_2:
    /*0070*/                   LDG.E.U16 R9, desc[UR4][R6.64] ;
.L_x_3:
    /*0080*/                   ISETP.GT.U32.AND P0, PT, R9, R0, PT ;
    /*0090*/                   VOTE.ANY R11, PT, P0 ;
    /*00a0*/                   ISETP.GE.U32.AND P5, PT, R0, 0x6, PT ;
    /*00b0*/               @P5 BRA `(.L_x_4) ;
    /*00c0*/                   STS [R8], R11 ;
    /*00d0*/                   BRA `(.L_x_5) ;
.L_x_4:
    /*00e0*/                   STS [R8+0x4], R11 ;
.L_x_5:
    /*00f0*/                   SHFL.IDX PT, R44, R11, 0x1f, 0x1f ;
    /*0100*/                   ISETP.NE.AND P1, PT, R11, RZ, PT ;
    /*0110*/               @P1 BRA `(.L_x_1) ;
    /*0120*/                   EXIT ;
""")


def test_a_uniform_if_else_is_walked_on_one_side_a_divergent_one_on_both():
    """The count R44 is a broadcast (SHFL.IDX of lane 31) or zero: the draw's if/else is
    warp-uniform, so the round walks its fall-through side only; the lane test (R0 from
    SR_TID.X) diverges, so both stores are walked."""
    found = sass.read_listing(UNIFORM_DIAMOND, "sudoku-coop-focused")
    assert found.found.move is not None, found.found.reason
    seq = lm.round_sequence(found)
    addresses = [i.address for i in seq]
    assert 0x70 not in addresses  # the move-list draw's LDG
    assert 0xC0 in addresses and 0xE0 in addresses  # both sides of the lane test
    divergent = UNIFORM_DIAMOND.replace("SHFL.IDX PT, R44, R11, 0x1f, 0x1f", "MOV R44, R0")
    both = [i.address for i in lm.round_sequence(sass.read_listing(divergent, "sudoku-coop"))]
    assert 0x70 in both


def test_a_cooperative_profile_splits_at_the_ballot():
    """The round above: eval holds the instructions up to the ballot, update the rest; the
    walked latency of the two parts adds up to the round's."""
    found = sass.read_listing(UNIFORM_DIAMOND, "sudoku-coop-focused")
    seq = lm.round_sequence(found)
    prof = lm.profile(found, HOPPER_TIMING)
    vote = lm.ballot_index(seq)
    assert prof.eval.instructions == vote + 1
    assert prof.update.instructions == len(seq) - vote - 1
    w = lm.walk(seq, HOPPER_TIMING)
    assert prof.latency_eval + prof.latency_update == pytest.approx(w.cycles)
    assert lm.last_rng_step(seq) == 1  # the Philox multiply opens the round


def test_edits_change_the_walk_as_named():
    """Instructions made ahead cost the walk nothing; an opcode's latency can be replaced."""
    t = HOPPER_TIMING
    code = _seq("SHFL.UP PT, R2, R1, 0x1, RZ", "IADD3 R3, R2, 0x1, RZ", "BRA `(.L_x_0)")
    base = lm.walk(code, t).cycles
    assert base == t.latency["shfl"] + 2
    assert lm.walk(code, t, edits=lm.Edits(opcode_latency={"SHFL.UP": 10.0})).cycles == 12
    assert lm.walk(code, t, edits=lm.Edits(ahead=1)).cycles == 2


def test_every_timing_figure_names_its_source_or_says_it_is_assumed():
    """Each latency and busy class of the Hopper figures has a source line, and every
    latency is positive but the control class's."""
    t = HOPPER_TIMING
    for cls in t.latency:
        key = cls if cls in t.source else cls.split("_")[0]
        assert t.source.get(key) or t.source.get(cls), cls
        assert (t.latency[cls] > 0) == (cls != "control")
    assert set(t.busy) == set(t.latency)
    assert any("assumption" in text for text in t.source.values())
    assert card("H200 SXM").sms == card("H100 SXM").sms


RESULTS = Path(__file__).resolve().parent.parent / "benchmarks" / "results"
COOP_LATENCY = RESULTS / "kernels" / "coop_latency.json"


def test_the_calibration_reproduces_the_committed_card_figures():
    """From the committed profiles and factor: every committed card figure within 25 % of the
    model, the cooperative 25x25 ones within 10 %; the factor is the fit of the figures; each
    figure equals its card results file's (nothing typed in)."""
    doc = json.loads(COOP_LATENCY.read_text())
    cal = doc["calibration"]
    card_ = CARDS[doc["card"]]
    bare = []
    for row in cal["rows"]:
        prof = lm.Profile.from_dict(row["profile"])
        modeled = lm.rates(prof, card_, row["warps_per_sm"], row["acceptance"], cal["scale"])
        ratio = row["chain_proposals_per_second"] / modeled["chain_proposals_per_second"]
        bound = 0.10 if (row["kind"], row["order"]) == ("coop", 5) else 0.25
        assert abs(math.log(ratio)) <= math.log(1 + bound), (row["order"], row["move"], ratio)
        source = json.loads((RESULTS / row["file"]).read_text())["cuda"]
        (measured,) = [r for r in source if r["order"] == row["order"] and r["move"] == row["move"]
                       and r["waves"] == 1 and r.get("schedule", "") in ("native regime", "")
                       and r["chains"] == row["chains"]]  # fmt: skip
        assert row["chain_proposals_per_second"] == measured["proposals_per_second"] / row["chains"]
        bare.append((row["chain_proposals_per_second"],
                     lm.rates(prof, card_, row["warps_per_sm"], row["acceptance"])
                     ["chain_proposals_per_second"]))  # fmt: skip
    fitted = math.exp(sum(math.log(b / m) for m, b in bare) / len(bare))
    assert fitted == pytest.approx(cal["scale"], rel=1e-9)
    coop_rows = [r for r in cal["rows"] if r["kind"] == "coop"]
    assert coop_rows and all(r["acceptance"] > 0.99 for r in coop_rows)  # the native regime


def test_lanes_a_chain_scales_the_row_work_by_the_passes():
    """16 and 8 lanes a chain at 25 rows: 2 and 4 passes of the focused move's row work on top
    of Sirdey's update; the eval part gains the ballot's segment."""
    from benchmarks.bench_coop_latency import BALLOT_SEGMENT, lanes_profile

    ev = lm.Part(200, {"issue": 200.0, "alu": 240.0}, 20.0)
    sir = lm.Profile("sudoku-coop", True, 1.0, 500.0, 200.0, ev, lm.Part(60, {"issue": 60.0}, 4.0))
    foc = lm.Profile("sudoku-coop-focused", True, 1.0, 900.0, 700.0, ev,
                     lm.Part(160, {"issue": 160.0}, 24.0))  # fmt: skip
    for lanes, passes in ((32, 1), (16, 2), (8, 4)):
        prof = lanes_profile(foc, sir, lanes, 25)
        assert prof.lanes == lanes
        assert prof.update.instructions == 60 + passes * 100
        assert prof.update.mio == pytest.approx(4 + passes * 20)
        assert prof.latency_update == pytest.approx(200 + passes * 500)
        assert prof.eval.instructions == 200 + sum(BALLOT_SEGMENT.values())


@pytest.mark.ptx
def test_the_walk_of_a_compiled_cooperative_round():
    """The 16x16 focused cooperative kernel built for sm_90: the round skips one side of its
    warp-uniform draw (the conflict set's or the move list's), splits at its ballot, and a
    warp alone waits longer than it issues (latency-bound with one warp an SM)."""
    pytest.importorskip("numba.cuda")
    from gpu_anneal.kernels import ptx

    if ptx.find_ptxas() is None or sass.find_nvdisasm() is None:
        pytest.skip("no ptxas or nvdisasm here")
    from benchmarks.bench_coop_model import compile_kernel

    found, record, _ = compile_kernel("coop", 4, "focused")
    seq = lm.round_sequence(found)
    assert 0 < len(seq) < len(found.move_instrs())  # one side of the draw left out
    assert any(i.base == "LDG" for i in found.move_instrs())
    prof = lm.profile(found, HOPPER_TIMING, instrs=seq)
    assert prof.eval.instructions > 0 and prof.update.instructions > 0
    latency, sched, _ = prof.mixed(1.0)
    assert latency > sched
    alone = lm.rates(prof, CARDS["H100 SXM"], 1, p=0.2)
    assert alone["bound"] == "latency" and record["registers"] > 0


def test_an_architecture_is_its_compute_capability_or_refused():
    """sm_XY is compute capability X.Y with the last digit the minor (sm_100 is 10.0, not 1.0);
    a number ptxas has no architecture for is refused naming the known ones."""
    from gpu_anneal.kernels.cards import parse_arch

    assert parse_arch("sm_80") == (8, 0) and parse_arch("sm_90a") == (9, 0)
    assert parse_arch("sm_100") == (10, 0) and parse_arch("sm_121") == (12, 1)
    for bad in ("sm_99", "sm_1000", "sm_9", "sm_999999999999999999", "80", "sm_80b"):
        with pytest.raises(ValueError, match="expected one of sm_50.*sm_90"):
            parse_arch(bad)
