"""Kernels compiled once per machine: a second process loads them from disk, without NVVM.

Each check runs child processes (this file run as a script) with no GPU: numba-cuda's device and
context lookups answer for an sm_90 card, binding to a context (linking a cubin) is skipped, and
every NVVM compilation is counted (nvvm.CompilationUnit.compile, which every path to PTX takes).
The child asks for the kernels a solve on the card uses (gpu_anneal.kernels.sudoku, sudoku_coop,
pool, grid) and reports NVVM calls, disk-cache hits and each kernel's PTX.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SUDOKU = ((2, "sirdey"),)  # the one-thread Sudoku kernel: every order and move is a copy
# of the same template module, cached the same way (tests/test_cuda_proof.py builds them all)
COOP = (4, "focused")  # the cooperative kernel (one warp a chain), its smallest order
KERNELS = [f"sudoku-o{order}-{move}" for order, move in SUDOKU]
KERNELS += ["coop-o4-focused", "coop-fresh"]
KERNELS += ["pool-status", "pool-gather", "pool-fresh", "shikaku", "hashi"]


def _normalised(ptx: str) -> str:
    """PTX without symbol names (they carry module names) and environment declarations."""
    text = re.sub(r"_ZN[0-9A-Za-z_$]+", "SYM", ptx)
    keep = [line for line in text.splitlines() if not line.startswith(".common .global")]
    return "\n".join(line for line in keep if not line.lstrip().startswith("//"))


def _child() -> None:
    """Ask for every kernel of KERNELS on a pretend sm_90 card; print one JSON line."""
    import numba.cuda
    from numba import types
    from numba.cuda import dispatcher
    from numba.cuda.cudadrv import devices, nvvm

    class Device:
        compute_capability = (9, 0)
        id = 0

    class Context:
        device = Device()

    numba.cuda.get_current_device = lambda: Device()
    dispatcher.get_current_device = lambda: Device()
    devices.get_context = lambda *args, **kwargs: Context()
    dispatcher._Kernel.bind = lambda self: None  # no driver: no cubin, the PTX is what is kept
    nvvm_calls = []
    compile_unit = nvvm.CompilationUnit.compile

    def counted(self, *args, **kwargs):
        nvvm_calls.append(1)
        return compile_unit(self, *args, **kwargs)

    nvvm.CompilationUnit.compile = counted

    import gpu_anneal
    from cpu_reference.sudoku.rules import MOVE_NAMES
    from gpu_anneal.kernels import kernel_cache, pool
    from gpu_anneal.kernels import sudoku as ks
    from gpu_anneal.kernels import sudoku_coop as coop
    from gpu_anneal.kinds import kind_of

    a = lambda dtype, ndim: types.Array(dtype, ndim, "C")  # noqa: E731
    i64, u8, u64 = types.int64, types.uint8, types.uint64
    wanted = {}
    for order, move in SUDOKU:
        code = MOVE_NAMES[move]
        wanted[f"sudoku-o{order}-{move}"] = (
            ks.compiled_kernel(order, code),
            ks.kernel_signature(order, code),
        )
    order, code = COOP[0], MOVE_NAMES[COOP[1]]
    wanted[f"coop-o{order}-{COOP[1]}"] = (
        coop.compiled_kernel(order, code),
        coop.kernel_signature(order, code),
    )
    refill = (a(i64, 2), a(u64, 2), a(u8, 2), a(types.int32, 1), a(u64, 2), i64, i64)
    wanted["coop-fresh"] = (coop.fresh_kernel(), refill)
    pk = pool.kernels()
    wanted["pool-status"] = (pk["status"], (a(i64, 2), i64, a(i64, 2)))
    gather = (a(u8, 2), a(i64, 2), a(types.int32, 1), i64, i64, a(u8, 2))
    wanted["pool-gather"] = (pk["gather"], gather)
    fresh = (a(i64, 2), a(u64, 2), a(u8, 2), a(types.int32, 1), a(u64, 2), i64, i64, a(u64, 3))
    wanted["pool-fresh"] = (pk["fresh"], fresh)
    for name in ("shikaku", "hashi"):
        kind = kind_of(name)
        wanted[name] = (kind.trial_kernel().get(), kind.trial_types())
    out = {"package": gpu_anneal.__file__, "ptx": {}, "hits": 0, "misses": 0}
    for name, (kernel, signature) in wanted.items():
        compiled = kernel.compile(signature)
        out["ptx"][name] = compiled._codelibrary.get_asm_str()  # the card's: sm_90a
    for kernel, _ in wanted.values():
        out["hits"] += sum(kernel._cache_hits.values())
        out["misses"] += sum(kernel._cache_misses.values())
    out["nvvm"] = len(nvvm_calls)
    out["info"] = kernel_cache.cache_info()
    print(json.dumps(out))


def _run(cache: Path, root: Path) -> dict:
    """One child process with the project at `root` and the cache under `cache`."""
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}
    env.update(GPU_ANNEAL_CACHE_DIR=str(cache), PYTHONPATH=str(root), NUMBA_ENABLE_CUDASIM="0")
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "child"],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
        cwd=root,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert Path(got["package"]).is_relative_to(root), got["package"]  # the project it was given
    return got


def _project_copy(where: Path, edits: dict[str, tuple[str, str]]) -> Path:
    """The project's packages copied under `where`, each file of `edits` with one text replaced."""
    for package in ("cpu_reference", "gpu_anneal"):
        ignore = shutil.ignore_patterns("__pycache__")
        shutil.copytree(ROOT / package, where / package, ignore=ignore)
    for name, (old, new) in edits.items():
        path = where / name
        text = path.read_text()
        assert text.count(old) == 1, f"{name}: {old!r} not found once"
        path.write_text(text.replace(old, new))
    return where


@pytest.mark.ptx
def test_a_second_process_loads_kernels_and_a_source_change_compiles_them_again(tmp_path):
    """First process: every kernel compiled (NVVM runs) and written to the cache. Second: every
    kernel loaded from disk, NVVM never called, the same PTX; the same for a copy of the project
    elsewhere (the key is what the sources say, not where they lie). Last, a copy with a constant
    of the RNG (called by the Sudoku, Shikaku and Hashi kernels), two status columns (read by
    the pool kernels through another module), two counter columns (read by every Sudoku kernel
    and, copied into sudoku_coop, by the cooperative refill) and the cooperative rules'
    acceptance test (the cooperative steps module) changed: every kernel compiled again, none
    of the stale ones loaded, and the changed kernels' code differs."""
    pytest.importorskip("numba.cuda")
    cache = tmp_path / "cache"
    first = _run(cache, ROOT)
    assert sorted(first["ptx"]) == sorted(KERNELS)
    assert first["nvvm"] >= len(KERNELS) and first["hits"] == 0
    assert first["misses"] == len(KERNELS)
    assert first["info"]["entries"] == len(KERNELS), first["info"]
    assert Path(first["info"]["folder"]).is_relative_to(cache)

    second = _run(cache, ROOT)
    assert second["nvvm"] == 0, "the second process ran NVVM"
    assert (second["hits"], second["misses"]) == (len(KERNELS), 0)
    assert second["ptx"] == first["ptx"]
    assert second["info"] == first["info"]

    moved = _run(cache, _project_copy(tmp_path / "same", {}))  # the same sources elsewhere
    assert (moved["nvvm"], moved["hits"], moved["misses"]) == (0, len(KERNELS), 0)

    changed = _project_copy(
        tmp_path / "changed",
        {
            "cpu_reference/anneal/rng.py": ("n1 = rotl(s1, 36)", "n1 = rotl(s1, 37)"),
            "gpu_anneal/pool_status.py": (
                "S_TRIALS = 6\nS_PROPOSALS = 7",
                "S_TRIALS = 7\nS_PROPOSALS = 6",
            ),
            "cpu_reference/sudoku/rules.py": (
                "C_PLATEAU = 2  # k, plateau index in the trial; -1 before a trial starts\n"
                "C_LAST_IMPROVE = 3",
                "C_PLATEAU = 3  # k, plateau index in the trial; -1 before a trial starts\n"
                "C_LAST_IMPROVE = 2",
            ),
            "gpu_anneal/kernels/coop_rules.py": (
                "take = (gain <= loss) or",
                "take = (gain < loss) or",
            ),
        },
    )
    third = _run(cache, changed)
    assert (third["hits"], third["misses"]) == (0, len(KERNELS)), "stale kernels were loaded"
    assert third["nvvm"] >= len(KERNELS)
    for name in set(KERNELS) - {"pool-gather"}:  # gather_grids reads neither
        assert _normalised(third["ptx"][name]) != _normalised(first["ptx"][name]), name
    assert third["info"]["entries"] == 2 * len(KERNELS)


def test_fingerprint_follows_constants_read_through_another_module():
    """The digest a kernel module is named by is stable, and changes with the value of a
    constant a kernel reads as an attribute of another module (its file unchanged)."""
    from gpu_anneal.kernels import kernel_cache, pool
    from gpu_anneal.kinds import kind_of

    shikaku = kind_of("shikaku").trial_kernel()
    trial = kernel_cache.fingerprint(shikaku.function())
    assert trial == kernel_cache.fingerprint(shikaku.function())
    status = kernel_cache.fingerprint(pool.puzzle_status)
    saved = pool.pool_status.S_PROPOSALS
    try:
        pool.pool_status.S_PROPOSALS = saved + 1  # read by puzzle_status as pool_status.S_PROPOSALS
        assert kernel_cache.fingerprint(pool.puzzle_status) != status
    finally:
        pool.pool_status.S_PROPOSALS = saved
    assert kernel_cache.fingerprint(pool.puzzle_status) == status
    digest = hashlib.sha256(b"").hexdigest()
    assert trial != digest and status != digest


def test_a_module_copy_sets_its_constants_and_is_named_by_them():
    """module_copy's constants replace the home module's values of those names in the copy
    (the rest still imported from home), and copies differing in a constant get different
    modules."""
    from gpu_anneal.kernels import impasse_warp, kernel_cache

    sized = {"SHARED_STATE": 1, **impasse_warp.state_shape(6)}
    copy = kernel_cache.module_copy("test_constants", [impasse_warp.kernel], sized)
    assert (copy.SHARED_STATE, copy.SHARED_CELLS, copy.SHARED_HOLDERS) == (1, 1296, 3996)
    assert copy.keep_best is impasse_warp.keep_best  # imported, not copied
    assert impasse_warp.SHARED_STATE is False and impasse_warp.SHARED_CELLS == 1
    other = kernel_cache.module_copy("test_constants", [impasse_warp.kernel], {**sized,
                                     "SHARED_CELLS": 1297})  # fmt: skip
    assert other.__name__ != copy.__name__ and other.SHARED_CELLS == 1297
    plain = kernel_cache.module_copy("test_constants", [impasse_warp.kernel])
    assert plain.SHARED_STATE is False


if __name__ == "__main__" and sys.argv[1:] == ["child"]:
    _child()
