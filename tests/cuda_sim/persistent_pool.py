"""Run under NUMBA_ENABLE_CUDASIM=1: the persistent pool (gpu_anneal.persistent_pool) on the
simulator, against the CPU's replay of every reported chain.

Usage: persistent_pool.py CASE, CASE one of:
    replay   4x4 and 9x9 puzzles (a ring of two rows: several launches), 4 chains each:
             for each order, every puzzle reported once, and for each whether replay_chain of
             its reported chain gives its grid, trials and proposals
    spare    two 4x4 puzzles on four groups with spare chains: the spare chains that joined
             and whether each reported chain replays
    stop     the stop flag set before the kernel starts (five puzzles, chunks of two): every
             puzzle published is reported, none solved, each with error "interrupted"
    midstop  four 4x4 puzzles in chunks of two, the fourth one never solving: the first
             launch runs the first two to their end and the host hands them out; during the
             second launch, once the third puzzle's record is DONE, the host sets the stop flag
             (and records a Ctrl-C press) while the kernel runs: the chains of the fourth stop,
             the kernel ends, the pool stops. The puzzles handed out before, those the
             interruption reports (their errors), and whether each solved one replays
    coop     two mostly-given 16x16 puzzles (the focused move, plateaus of 16 moves, a round
             a plateau) on the persistent cooperative kernel (one warp a chain), two chains
             each: the kernel that ran, every puzzle reported once, the reported chains, and
             for each whether replay_chain of its reported chain gives its grid, trials and
             proposals
    held     five 4x4 puzzles through a ring of three rows, the first puzzle's record shown
             to the host as still running for its first HOLD drains (a slow puzzle): the
             rows each puzzle was published into (the host passes over the held row), every
             puzzle reported once, and whether each reported chain replays
Prints one JSON object.
"""

from __future__ import annotations

import json
import os
import sys
import threading

import numpy as np

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", "run with NUMBA_ENABLE_CUDASIM=1"

from cpu_reference.sudoku.exact import solve_exact  # noqa: E402
from gpu_anneal import persistent_pool as pp  # noqa: E402
from gpu_anneal import sudoku_solver as solver  # noqa: E402
from gpu_anneal.kernels import persistent_layout as L  # noqa: E402

SEED, CHAINS = 7, 4
SMALL = ["1...........4...", "..3.4.........2.", "4.....3..1....2.", "...2.3..........", "..1."]
BASE9 = "1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..41.....7..7...3.."


def cells(text: str, order: int) -> np.ndarray:
    n = order * order
    out = np.zeros(n * n, np.uint8)
    for k, ch in enumerate(text[: n * n]):
        out[k] = int(ch) if ch.isdigit() else 0
    return out


def nines(count: int) -> list[np.ndarray]:
    """9x9 puzzles with 69 givens, from one solved grid (easy for four chains)."""
    found, grid, _ = solve_exact(cells(BASE9, 3), 3, limit=1)
    assert found == 1
    rng = np.random.default_rng(SEED)
    out = []
    for _ in range(count):
        p = np.array(grid, np.uint8)
        p[rng.choice(81, 12, replace=False)] = 0
        out.append(p)
    return out


def replays(result, puzzle, order) -> bool:
    again = solver.replay_chain(puzzle, order, result.solving_chain, chains=CHAINS, seed=SEED,
                                move="sirdey")  # fmt: skip
    return (
        bool(again.solved) and np.array_equal(again.solution, result.solution)
        and again.extra["chain_trials"] == result.extra["chain_trials"]
        and again.extra["chain_proposals"] == result.extra["chain_proposals"]
    )  # fmt: skip


def run(puzzles, order, slots, **kw) -> list:
    return list(solver.solve_stream(
        puzzles, order, backend="cuda", chains=CHAINS, slots=slots, seed=SEED,
        time_limit=None, pool="persistent", move="sirdey", **kw,
    ))  # fmt: skip


def case_replay() -> dict:
    out = {}
    launches = []
    real = pp.PersistentRunner.launch

    def counted(self):
        launches.append(1)
        real(self)

    pp.PersistentRunner.launch = counted
    pp.RING_GROUPS = 2  # a ring of two rows: rows go round, a launch a round
    for order, puzzles in ((2, [cells(t, 2) for t in SMALL]), (3, nines(3))):
        launches.clear()
        results = run(puzzles, order, 1, spare_chains=False)
        out[order] = {
            "indices": sorted(r.index for r in results),
            "solved": sum(r.solved for r in results),
            "replayed": [replays(r, puzzles[r.index], order) for r in results],
            "launches": len(launches),
            "proposals": [int(r.proposals) for r in results],
        }
    return out


def case_spare() -> dict:
    puzzles = [cells(t, 2) for t in SMALL[:2]]
    results = run(puzzles, 2, 4)
    return {
        "indices": sorted(r.index for r in results),
        "spare": [int(r.extra.get("spare_chains", 0)) for r in results],
        "chains": [int(r.solving_chain) for r in results],
        "replayed": [replays(r, puzzles[r.index], 2) for r in results],
    }


def case_stop() -> dict:
    real = pp.PersistentRunner.launch

    def stopped(self):
        self.set_control(L.CTL_STOP, 1)
        real(self)
        raise KeyboardInterrupt

    pp.PersistentRunner.launch = stopped
    puzzles = [cells(t, 2) for t in SMALL]
    try:
        run(puzzles, 2, 2, spare_chains=False)
    except solver.InterruptedBatch as stop:
        return {
            "indices": sorted(r.index for r in stop.results),
            "solved": sum(r.solved for r in stop.results),
            "errors": sorted({str(r.error) for r in stop.results}),
            "proposals": sum(int(r.proposals) for r in stop.results),
        }
    return {"indices": None}


STUCK_SECONDS = 120  # a midstop run past this is stuck: the child exits with status 3


def case_midstop() -> dict:
    from cpu_reference.sudoku import rules
    from gpu_anneal import interrupts
    from gpu_anneal.kernels import persistent as kp
    from gpu_anneal.measure import never_solving_puzzle

    puzzles = [cells(t, 2) for t in SMALL[:3]] + [never_solving_puzzle(2)]
    kernel = kp.compiled_kernel(2, rules.MOVE_SIRDEY)
    names = kernel.fn.__globals__  # the generated module's: its device functions
    real_file, real_launch = names["file_chain"], pp.PersistentRunner.launch
    seen = {"runner": None, "launches": 0, "stopped_in": None}

    def filed(g, ctr, best_vals, rec, rec_grid, r, m, i):
        real_file(g, ctr, best_vals, rec, rec_grid, r, m, i)
        done = rec[r * L.N_REC + L.R_STATE] == L.DONE
        if done and seen["launches"] == 2 and seen["stopped_in"] is None:
            seen["stopped_in"] = seen["launches"]  # the host, while the kernel runs: Ctrl-C
            interrupts.press()
            seen["runner"].set_control(L.CTL_STOP, 1)

    def counted(self):
        seen["runner"] = self
        seen["launches"] += 1
        if seen["launches"] > 2:
            raise SystemExit("a third launch: the stop flag did not stop the pool")
        real_launch(self)

    names["file_chain"] = filed
    pp.PersistentRunner.launch = counted
    # a stop flag the kernel ignores leaves the fourth puzzle's chains running for ever
    watchdog = threading.Timer(STUCK_SECONDS, lambda: os._exit(3))
    watchdog.daemon = True
    watchdog.start()
    handed = []
    stream = solver.solve_stream(
        puzzles, 2, backend="cuda", chains=CHAINS, slots=2, seed=SEED, time_limit=None,
        pool="persistent", move="sirdey", spare_chains=False,
    )  # fmt: skip
    try:
        for result in stream:
            handed.append(result)
    except solver.InterruptedBatch as stop:
        reported = stop.results
    else:
        raise SystemExit("the run ended without the interruption")
    everything = handed + reported
    return {
        "stopped_in": seen["stopped_in"],
        "handed": sorted(r.index for r in handed),
        "reported": sorted(r.index for r in reported),
        "solved": sorted(r.index for r in everything if r.solved),
        "errors": {str(r.index): r.error for r in everything},
        "proposals": {str(r.index): int(r.proposals) for r in everything},
        "replayed": [replays(r, puzzles[r.index], 2) for r in everything if r.solved],
    }


HOLD = 8  # drains for which the first puzzle's record reads as still running
DRAINS_AT_MOST = 200  # a host loop that drains more often than this is stuck: fail, not hang


def case_held() -> dict:
    drains, rows = [], {}
    real_records, real_publish = pp.PersistentRunner.records, pp.PersistentRunner.publish

    def held(self):
        rec, grids = real_records(self)
        drains.append(1)
        if len(drains) > DRAINS_AT_MOST:
            raise SystemExit(f"the host drained {len(drains)} times: stuck")
        if len(drains) <= HOLD:
            first = (rec[:, L.R_Q] == 0) & (rec[:, L.R_STATE] == L.DONE)
            rec[first, L.R_STATE] = L.PUBLISHED
        return rec, grids

    def published(self, at, tables, firsts, qs, count):
        rows.update(zip(np.asarray(qs).tolist(), np.asarray(at).tolist(), strict=True))
        real_publish(self, at, tables, firsts, qs, count)

    pp.PersistentRunner.records = held
    pp.PersistentRunner.publish = published
    pp.RING_GROUPS = 3  # a ring of three rows, one puzzle a chunk
    puzzles = [cells(t, 2) for t in SMALL]
    results = run(puzzles, 2, 1, spare_chains=False)
    return {
        "indices": sorted(r.index for r in results),
        "order": [r.index for r in results],
        "solved": sum(r.solved for r in results),
        "rows": [rows[q] for q in range(len(puzzles))],
        "replayed": [replays(r, puzzles[r.index], 2) for r in results],
    }


COOP_SCHEDULE = "geometric:t0=0.36,ratio=0.9,stall=0,reheat=0.3,reheats=2,max_plateaus=4,plateau=16"


def mostly_given(order: int, seed: int, keep: float) -> np.ndarray:
    """A valid pattern grid, each cell kept with probability `keep` (few cells to fill)."""
    n = order * order
    r, k = np.divmod(np.arange(n * n), n)
    grid = ((r * order + r // order + k) % n + 1).astype(np.uint8)
    kept = np.random.default_rng(seed).random(n * n) < keep
    return np.where(kept, grid, 0).astype(np.uint8)


def case_coop() -> dict:
    kernels = []
    real = pp.PersistentRunner.launch

    def named(self):
        kernels.append(self.kernel_name)
        real(self)

    pp.PersistentRunner.launch = named
    chains, settings = 2, dict(seed=SEED, move="focused", schedule=COOP_SCHEDULE)
    pp.ROUND_PLATEAUS = 1  # a round a plateau: the warp agrees on its stop often
    puzzles = [mostly_given(4, 6, 0.75), mostly_given(4, 3, 0.8)]
    results = list(solver.solve_stream(
        puzzles, 4, backend="cuda", chains=chains, slots=1, time_limit=None,
        pool="persistent", spare_chains=False, **settings,
    ))  # fmt: skip
    replayed = []
    for r in results:
        again = solver.replay_chain(puzzles[r.index], 4, r.solving_chain, chains=chains,
                                    **settings)  # fmt: skip
        replayed.append(
            bool(again.solved) and np.array_equal(again.solution, r.solution)
            and again.extra["chain_trials"] == r.extra["chain_trials"]
            and again.extra["chain_proposals"] == r.extra["chain_proposals"]
        )  # fmt: skip
    return {
        "kernels": sorted(set(kernels)),
        "indices": sorted(r.index for r in results),
        "solved": sum(r.solved for r in results),
        "chains": [int(r.solving_chain) for r in results],
        "proposals": [int(r.extra["chain_proposals"]) for r in results],
        "replayed": replayed,
    }


if __name__ == "__main__":
    case = sys.argv[1]
    cases = {
        "replay": case_replay,
        "spare": case_spare,
        "stop": case_stop,
        "held": case_held,
        "midstop": case_midstop,
        "coop": case_coop,
    }
    print(json.dumps(cases[case]()))
