"""The impasse kernels' move for the latency model (gpu_anneal.kernels.impasse_latency): which
blocks one move runs, how often its loops go round, and the real kernels read alike.

A hand-written SASS listing (nvdisasm's format) fixes the shape by construction; the real
kernels (one thread a chain, one warp a chain with its state in global or shared memory) are
compiled for sm_90 where the ptx extra is installed.
"""

from __future__ import annotations

import textwrap

import pytest

from gpu_anneal.kernels import impasse_latency as il
from gpu_anneal.kernels import latency_model as lm
from gpu_anneal.kernels import sass
from gpu_anneal.kernels.cards import HOPPER_TIMING

STEP = """\
    /*{a:04x}*/                   SHF.L.W.U32.HI R3, R4, 0x18, R5 ;
    /*{b:04x}*/                   SHF.L.W.U32 R6, R5, 0x18, R4 ;
    /*{c:04x}*/                   SHF.L.W.U32.HI R7, R8, 0x25, R9 ;
    /*{d:04x}*/                   SHF.L.W.U32 R10, R9, 0x25, R8 ;
"""


def step(at: int) -> str:
    """One xoroshiro128+ step (four wrap shifts) at address `at`."""
    return STEP.format(a=at, b=at + 0x10, c=at + 0x20, d=at + 0x30)


# The slice loop .L_x_0 (header 0x010): a trial start (.L_x_5, a storing loop with an RNG step,
# back to the header) or a move: the cell's draw (one step), the draw loop .L_x_1 (a load and
# one step a trip; a BRA.DIV fallback .L_x_7 beside it), the write, a storing copy loop .L_x_2
# (a best's copy) and the latch. Blocks (start address): 0x010 header, 0x030 cell draw, 0x070
# and 0x0d0 draw loop, 0x100 write, 0x110 copy loop, 0x140 latch, 0x160 EXIT, 0x170 and 0x1b0
# trial start, 0x1c0 and 0x1d0 fallback.
LISTING = '        .section\t.text.kern,"ax",@progbits\nkern:\n' + textwrap.dedent(
    """\
    /*0000*/                   LDC R1, c[0x0][0x28] ;
.L_x_0:
    /*0010*/                   ISETP.NE.AND P0, PT, R2, RZ, PT ;
    /*0020*/               @P0 BRA `(.L_x_5) ;
"""
    + step(0x30)
    + """\
.L_x_1:
    /*0070*/                   LDG.E R11, desc[UR4][R12.64] ;
"""
    + step(0x80)
    + """\
    /*00c0*/                   BRA.DIV UR4, `(.L_x_7) ;
.L_x_6:
    /*00d0*/                   IADD3 R13, R13, R11, RZ ;
    /*00e0*/                   ISETP.NE.AND P1, PT, R13, RZ, PT ;
    /*00f0*/               @P1 BRA `(.L_x_1) ;
    /*0100*/                   STG.E desc[UR4][R12.64], R13 ;
.L_x_2:
    /*0110*/                   STG.E desc[UR4][R14.64], R13 ;
    /*0120*/                   ISETP.NE.AND P2, PT, R14, RZ, PT ;
    /*0130*/               @P2 BRA `(.L_x_2) ;
    /*0140*/                   ISETP.NE.AND P3, PT, R15, RZ, PT ;
    /*0150*/               @P3 BRA `(.L_x_0) ;
    /*0160*/                   EXIT ;
.L_x_5:
    /*0170*/                   SHF.L.W.U32.HI R3, R4, 0x18, R5 ;
    /*0180*/                   STG.E desc[UR4][R16.64], R3 ;
    /*0190*/                   ISETP.NE.AND P4, PT, R16, RZ, PT ;
    /*01a0*/               @P4 BRA `(.L_x_5) ;
    /*01b0*/                   BRA `(.L_x_0) ;
.L_x_7:
    /*01c0*/                   WARPSYNC.COLLECTIVE R17, `(.L_x_8) ;
.L_x_8:
    /*01d0*/                   BRA `(.L_x_6) ;
"""
)


def hand_written() -> sass.Listing:
    """LISTING read as the one-thread impasse kernel."""
    return sass.read_listing(LISTING, "sudoku-impasse")


def starts(listing: sass.Listing, blocks) -> set[int]:
    """The start addresses of blocks."""
    cfg = listing.cfg
    return {cfg.instrs[cfg.blocks[b].start].address for b in blocks}


def test_the_move_path_leaves_out_the_trial_start_and_the_divergent_fallback():
    """The path: header, cell draw, draw loop, write, copy loop, latch; not the trial start
    (it leads back to the header without reaching the draw loop), not the BRA.DIV fallback."""
    listing = hand_written()
    shape = il.move_shape(listing)
    cfg = listing.cfg
    assert cfg.loop_span(cfg.loops[shape.slice_loop]) == (0x10, 0x1D0)
    assert starts(listing, shape.path) == {0x10, 0x30, 0x70, 0xD0, 0x100, 0x110, 0x140}
    assert shape.lane_loop is None
    assert [cfg.loop_span(cfg.loops[k])[0] for k in shape.idle_loops] == [0x110]
    assert cfg.loop_span(cfg.loops[shape.draw_loop])[0] == 0x70


def test_the_sequence_repeats_the_draw_loop_and_skips_the_idle_loop():
    """At 3 trips the draw loop's 8 instructions (0x070..0x0c0 and 0x0d0..0x0f0) come 3 times;
    the copy loop (idle) not at all; the rest once."""
    listing = hand_written()
    shape = il.move_shape(listing)
    seq = il.sequence(listing, shape, {shape.draw_loop: 3})
    addresses = [i.address for i in seq]
    assert addresses.count(0x70) == 3 and addresses.count(0xF0) == 3
    assert 0x110 not in addresses and 0x170 not in addresses and 0x1C0 not in addresses
    assert len(seq) == 2 + 4 + 3 * 9 + 1 + 2


@pytest.mark.parametrize("nc", [1, 2, 5, 13])
def test_a_move_of_nc_candidates_walks_one_plus_nc_rng_steps(nc):
    """The cell's draw and a draw a candidate: the draw loop's trips are solved so that the
    walked sequence makes 1 + nc steps (one step a trip here)."""
    listing = hand_written()
    shape = il.move_shape(listing)
    move = il.move_at(listing, shape, nc, HOPPER_TIMING, 1.0, shared_chain=False)
    assert move.steps == 1 + nc
    assert move.trips[shape.draw_loop] == nc


def test_more_candidates_cost_a_lone_warp_more_cycles():
    listing = hand_written()
    shape = il.move_shape(listing)
    cycles = [
        il.move_at(listing, shape, nc, HOPPER_TIMING, 1.0, shared_chain=False).cycles
        for nc in (1, 4, 9)
    ]
    assert cycles[0] < cycles[1] < cycles[2]


def test_mixing_weighs_each_candidate_count_by_its_share():
    """mixed() of shares 1/4 and 3/4 is that blend of the two moves' cycles and demand."""
    listing = hand_written()
    shape = il.move_shape(listing)

    def one(nc: int) -> il.Move:
        return il.move_at(listing, shape, nc, HOPPER_TIMING, 1.0, shared_chain=False)

    model = il.mixed(listing, shape, {2: 1.0, 10: 3.0}, one)
    a, b = one(2), one(10)
    assert model.cycles == pytest.approx(0.25 * a.cycles + 0.75 * b.cycles)
    assert model.part.mio == pytest.approx(0.25 * a.part.mio + 0.75 * b.part.mio)
    assert model.round_cycles(1) >= model.cycles
    assert model.round_cycles(8) >= lm.round_bound(8, model.sched(), model.part.mio, 0.0)


def test_a_listing_without_a_draw_loop_is_refused_in_one_line():
    """The draw loop made to store: no loop holds an RNG step without a store."""
    text = LISTING.replace("LDG.E R11, desc[UR4][R12.64]", "STG.E desc[UR4][R12.64], R11")
    with pytest.raises(ValueError, match="no loop holds a loop with an RNG step and no store"):
        il.move_shape(sass.read_listing(text, "sudoku-impasse"))


# ----------------------------------------------------------------------------- the real kernels


@pytest.fixture(scope="module")
def compiled():
    """The three impasse kernels for sm_90 at 36x36: kind -> (listing, its move shape)."""
    from gpu_anneal.kernels import ptx

    if ptx.find_ptxas() is None or sass.find_nvdisasm() is None:
        pytest.skip("ptxas or nvdisasm missing (the ptx extra)")
    from benchmarks.bench_impasse_latency import KERNELS, compile_listing

    out = {}
    for kind in KERNELS:
        listing = compile_listing(kind, 6)[0]
        out[kind] = (listing, il.move_shape(listing))
    return out


@pytest.mark.ptx
def test_every_impasse_kernel_has_one_move_path(compiled):
    """Each kernel: a draw loop inside the slice loop, a lane loop in the warp kernels alone, a
    path holding the slice loop's header, no trial start's storing loops on it but idle ones."""
    for kind, (listing, shape) in compiled.items():
        cfg = listing.cfg
        assert cfg.loops[shape.slice_loop].header in shape.path, kind
        assert (shape.lane_loop is None) == (kind == "thread"), kind
        for k in shape.idle_loops:
            assert any(i.base in ("STG", "STS") for i in cfg.loop_instrs(cfg.loops[k])), kind


@pytest.mark.ptx
@pytest.mark.parametrize("nc", [4, 20, 33])
def test_the_real_kernels_walk_one_plus_nc_steps_and_a_ballot_a_chunk(compiled, nc):
    """A move of nc candidates walks 1 + nc RNG steps in every kernel; the warp kernels' one
    ballot a chunk of 32 candidates, the one-thread kernel's none."""
    for kind, (listing, shape) in compiled.items():
        move = il.move_at(listing, shape, nc, HOPPER_TIMING, 1.0, kind != "thread")
        assert move.steps == pytest.approx(1 + nc), kind
        trips = {k: round(v) for k, v in move.trips.items()}
        votes = sum(1 for i in il.sequence(listing, shape, trips) if sass.is_vote(i))
        assert votes == (0 if kind == "thread" else -(-nc // 32)), kind


@pytest.mark.ptx
def test_shared_state_shortens_a_lone_warps_move(compiled):
    """The warp kernel with its state rows in shared memory walks a move in fewer cycles than
    with them in global memory (every load an L1 hit in both)."""
    cycles = {}
    for kind in ("warp-global", "warp-shared"):
        listing, shape = compiled[kind]
        cycles[kind] = il.move_at(listing, shape, 10, HOPPER_TIMING, 1.0, True).cycles
    assert cycles["warp-shared"] < cycles["warp-global"]


@pytest.mark.ptx
def test_write_digits_three_opens_are_found_and_weighed(compiled):
    """Every kernel: three opens (blocks holding stores, each an if-then's body) after the draw
    loop and one rarer record of a new best; a move walked with none of the opens is shorter
    than with all three, and open_share mixes the two."""
    for kind, (listing, shape) in compiled.items():
        assert len(shape.opens) == 3 and len(shape.rare) == 1, kind
        assert not set(shape.opens) & shape.rare, kind
        coop = kind != "thread"
        at = [
            il.move_at(listing, shape, 9, HOPPER_TIMING, 1.0, coop, open_share=share).cycles
            for share in (0.0, 0.5, 1.0)
        ]
        assert at[0] < at[2], kind
        assert at[1] == pytest.approx((at[0] + at[2]) / 2), kind


@pytest.mark.ptx
def test_a_moves_write_is_walked_as_often_as_moves_write(compiled):
    """Every kernel: the write region holds the three opens and not the draw loop; a move
    walked as never writing is shorter than one always writing, and write_share mixes the
    two (no opens in either: open_share 0)."""
    for kind, (listing, shape) in compiled.items():
        assert set(shape.opens) <= shape.write, kind
        assert not shape.write & listing.cfg.loops[shape.draw_loop].blocks, kind
        coop = kind != "thread"
        at = [
            il.move_at(
                listing, shape, 9, HOPPER_TIMING, 1.0, coop, open_share=0.0, write_share=share
            ).cycles
            for share in (0.0, 0.5, 1.0)
        ]
        assert at[0] < at[2], kind
        assert at[1] == pytest.approx((at[0] + at[2]) / 2), kind
