"""Faults of the cache folder and of numba's settings: a run goes on, or stops in one line.

A damaged file of numba's cache, a full disk, a cache folder or NUMBA_CACHE_DIR that cannot be
written, an empty HOME (cpu_reference.cache), and numba variables that cannot run (cli.startup).
Command lines run `python -m cli.main` in a subprocess with their own GPU_ANNEAL_CACHE_DIR; the
one that needs compiled code shares a cache compiled once for the module (a 4x4 puzzle by the
exact method). A failed save is simulated in-process (no disk is filled).
"""

from __future__ import annotations

import errno
import importlib.util
import os
import random
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import cpu_reference.cache as cache
from cli.tally import is_summary

ROOT = Path(__file__).resolve().parent.parent
COMMAND = [sys.executable, "-m", "cli.main"]
FOUR = "1...........4...\n"  # a solvable 4x4 Sudoku
DAMAGE = random.Random(2026).randbytes(600)  # bytes that overwrite a file (fixed, not random)
TINY = "from numba import njit\n\n\n@njit(cache=True)\ndef add(a, b):\n    return a + b\n"


def _env(**update: str | None) -> dict[str, str]:
    """os.environ without numba's and the cache's variables, then `update` (None: unset)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.pop(cache.ROOT_VARIABLE, None)
    for key, value in update.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def _run(args: list, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    """`gpu-anneal ARGS` as a subprocess."""
    return subprocess.run([*COMMAND, *map(str, args)], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=180)  # fmt: skip


def _lines(stderr: str) -> list[str]:
    """stderr's lines but the run's summary, each checked to be no traceback."""
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr[-2000:]
    return [line for line in stderr.splitlines() if line.strip() and not is_summary(line)]


@pytest.fixture(scope="module")
def warm(tmp_path_factory) -> tuple[Path, list[str], list[str]]:
    """A cache root holding what a 4x4 exact solve compiles (compiled once: ~15 s), and the
    index and data files a second run loads (numba's NUMBA_DEBUG_CACHE lines), relative."""
    folder = tmp_path_factory.mktemp("warm")
    (folder / "p.txt").write_text(FOUR)
    root = folder / "root"
    for debug in ("0", "1"):
        env = _env(GPU_ANNEAL_CACHE_DIR=str(root), NUMBA_DEBUG_CACHE=debug)
        proc = _run(["solve", "p.txt", "--method", "exact"], env, folder)
        assert proc.returncode == 0, proc.stderr[-2000:]
    loaded = re.findall(r"^\[cache\] (index|data) loaded from '([^']+)'", proc.stdout, re.M)
    indexes = [str(Path(path).relative_to(root)) for kind, path in loaded if kind == "index"]
    data = [str(Path(path).relative_to(root)) for kind, path in loaded if kind == "data"]
    assert indexes and data, proc.stdout[-2000:]
    return root, indexes, data


def test_a_damaged_file_of_numbas_cache_is_compiled_again_and_rewritten(warm, tmp_path):
    """Before: one truncated .nbi (or random bytes in an .nbi or .nbc) gave 'internal error:
    UnpicklingError: pickle data was truncated', exit 3, on every later run."""
    warm_root, indexes, data = warm
    root = tmp_path / "root"
    shutil.copytree(warm_root, root)
    truncated = root / indexes[0]
    with open(truncated, "r+b") as f:
        f.truncate(20)
    (root / indexes[-1]).write_bytes(DAMAGE[:300])
    (root / data[len(data) // 2]).write_bytes(DAMAGE[300:])
    (tmp_path / "p.txt").write_text(FOUR)
    env = _env(GPU_ANNEAL_CACHE_DIR=str(root))
    proc = _run(["solve", "p.txt", "--method", "exact"], env, tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "1342243131244213" in proc.stdout
    (note,) = _lines(proc.stderr)
    assert note.startswith("gpu-anneal: numba's cache: ") and "damaged" in note, note
    assert truncated.stat().st_size > 20  # rewritten
    again = _run(["solve", "p.txt", "--method", "exact"], env, tmp_path)
    assert again.returncode == 0 and _lines(again.stderr) == [], again.stderr


def _tiny_module(folder: Path, name: str):
    """A module `name` in `folder` holding one cached njit function, add, imported."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.py"
    path.write_text(TINY)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_save_that_fails_leaves_the_compiled_code_in_memory(tmp_path, monkeypatch):
    """Before: a full disk under the cache folder aborted the run with 'internal error:
    OSError: [Errno 28] No space left on device' (numba's save raised from the compilation)."""
    import numba.core.caching as caching
    from numba.core import config

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path / "numba"))
    monkeypatch.setattr(cache, "_SAID", set())

    def full(self, name, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(caching.IndexDataCacheFile, "_save_data", full)
    module = _tiny_module(tmp_path / "src", f"tiny_full_{os.getpid()}")
    with pytest.warns(cache.CacheWarning, match="No space left on device") as said:
        assert module.add(1, 2) == 3
    (line,) = [str(w.message) for w in said if issubclass(w.category, cache.CacheWarning)]
    assert str(tmp_path / "numba") in line
    assert not list(tmp_path.glob("numba/*/*.nbc"))


def test_an_error_python_prints_while_unpickling_a_damaged_file_is_held_back(
    tmp_path, monkeypatch, capsys
):
    """Before: an index whose first bytes ask for a bytearray too large to allocate (random
    bytes can) could make CPython print 'SystemError: deallocated bytearray object has exported
    buffers' to stderr, a second line beside the one about the damaged file. CPython reads the
    stale export count from freed memory: blocks of the bytearray's size, filled with 0xFF and
    freed just before the load, make it print every time."""
    from numba.core import config

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path / "numba"))
    monkeypatch.setattr(cache, "_SAID", set())
    name = f"tiny_printed_{os.getpid()}"
    assert _tiny_module(tmp_path / "src", name).add(1, 2) == 3  # compiled and saved
    (index,) = tmp_path.glob("numba/**/*.nbi")
    index.write_bytes(b"\x96" + (2**59).to_bytes(8, "little"))  # BYTEARRAY8 of 2**59 bytes
    module = _tiny_module(tmp_path / "src", name)  # a new dispatcher: it reads the index
    with pytest.warns(cache.CacheWarning, match="damaged") as said:
        stale = [bytes([255]) * 20 for _ in range(5000)]
        del stale
        assert module.add(1, 2) == 3
    (line,) = [str(w.message) for w in said if issubclass(w.category, cache.CacheWarning)]
    assert str(index) in line and "MemoryError" in line, line
    assert "SystemError" not in capsys.readouterr().err


def test_numba_cudas_copy_of_the_cache_is_made_as_tolerant(tmp_path, monkeypatch):
    """numba-cuda keeps its own copy of numba's cache classes (cuda.jit(cache=True) kernels):
    before, a damaged index raised UnpicklingError and a failed save OSError there too."""
    pytest.importorskip("numba_cuda")
    from numba.cuda.core import caching

    from gpu_anneal.kernels import kernel_cache

    kernel_cache._tolerate_cuda_cache_faults()  # as cached_jit does before cuda.jit(cache=True)
    monkeypatch.setattr(cache, "_SAID", set())
    files = caching.IndexDataCacheFile(str(tmp_path), "kernel-1.py311", source_stamp="stamp")
    files.save("key", b"compiled")
    Path(files._index_path).write_bytes(DAMAGE[:100])
    with pytest.warns(cache.CacheWarning, match="damaged"):
        assert files.load("key") is None  # the damaged index counts as empty
    files.save("key", b"compiled")  # and is rewritten
    assert files.load("key") == b"compiled"

    class Full(caching.Cache):
        def __init__(self):  # no function: only the save path is exercised
            self._cache_path = str(tmp_path)

        def _save_overload(self, sig, data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with pytest.warns(cache.CacheWarning, match="No space left on device"):
        Full().save_overload("sig", "kernel")


def test_an_unwritable_numba_cache_dir_never_writes_into_the_sources(tmp_path):
    """Before: NUMBA_CACHE_DIR naming a file made numba write its compiled code into a
    `__pycache__` beside the sources (inside the installed package), silently."""
    (tmp_path / "f").write_text("x")
    (tmp_path / "tmp").mkdir()
    src = tmp_path / "src"
    src.mkdir()
    (src / "tiny_numba_dir.py").write_text(TINY)
    code = ("import os, cpu_reference, tiny_numba_dir\n"
            "assert tiny_numba_dir.add(1, 2) == 3\n"
            "print(os.environ['NUMBA_CACHE_DIR'])\n")  # fmt: skip
    env = _env(NUMBA_CACHE_DIR=str(tmp_path / "f"), TMPDIR=str(tmp_path / "tmp"),
               PYTHONPATH=os.pathsep.join([str(src), str(ROOT)]))  # fmt: skip
    proc = subprocess.run([sys.executable, "-W", "default", "-c", code], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().startswith(str(tmp_path / "tmp"))
    assert f"NUMBA_CACHE_DIR={tmp_path / 'f'}: cannot write there (not a folder)" in proc.stderr
    assert not list(src.rglob("*.nbi")) and not list(src.rglob("*.nbc"))
    assert list((tmp_path / "tmp").iterdir()) == []  # the temporary folder removed at exit


@pytest.mark.parametrize("where", ["file", "file/sub"])
def test_an_unwritable_cache_root_is_one_line_and_leaves_no_temporary_folder(tmp_path, where):
    """Before: GPU_ANNEAL_CACHE_DIR naming a file (or a folder under one) was replaced by a
    temporary folder with no word (every run compiled everything again), and each run left
    its temporary folder (~1.6 MB) behind."""
    (tmp_path / "file").write_text("x")
    (tmp_path / "tmp").mkdir()
    env = _env(GPU_ANNEAL_CACHE_DIR=str(tmp_path / where), TMPDIR=str(tmp_path / "tmp"))
    proc = _run(["examples", "seed002"], env, tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (line,) = _lines(proc.stderr)
    assert line.startswith(f"gpu-anneal: GPU_ANNEAL_CACHE_DIR={tmp_path / where}: cannot write ")
    assert "(Not a directory)" in line or "(not a folder)" in line, line
    assert list((tmp_path / "tmp").iterdir()) == []


def test_an_empty_home_is_no_home(tmp_path):
    """Before: HOME= (empty) put the cache at /.cache/gpu-anneal, the filesystem's root
    (os.path.expanduser('~') gives '/')."""
    (tmp_path / "tmp").mkdir()
    code = "from cpu_reference.cache import cache_root; print(cache_root())"
    env = _env(HOME="", XDG_CACHE_HOME=None, TMPDIR=str(tmp_path / "tmp"))
    proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().startswith(str(tmp_path / "tmp"))
    assert "HOME is empty: no home folder for the cache" in proc.stderr


def test_a_damaged_or_unwritable_generated_module_is_written_again(tmp_path, monkeypatch):
    """Before: a generated module's file holding bytes that are no UTF-8 raised
    UnicodeDecodeError at every import; one that could not be written (a full disk) OSError."""
    monkeypatch.setattr(cache, "_SAID", set())
    name = f"gpu_anneal_test_damaged_{os.getpid()}"
    (tmp_path / f"{name}.py").write_bytes(b"\xff\xfe" + DAMAGE[:50])
    try:
        module = cache.import_generated(name, "X = 1\n", lambda: tmp_path)
        assert module.X == 1 and (tmp_path / f"{name}.py").read_text() == "X = 1\n"
    finally:
        sys.modules.pop(name, None)
    (tmp_path / "file").write_text("x")  # a folder that cannot be written
    try:
        with pytest.warns(cache.CacheWarning, match="cannot write compiled code to"):
            module = cache.import_generated(name, "X = 2\n", lambda: tmp_path / "file")
        assert module.X == 2
    finally:
        sys.modules.pop(name, None)


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("NUMBA_THREADING_LAYER", "bogus", "not a threading layer of numba's"),
        ("NUMBA_THREADING_LAYER", "", "not a threading layer of numba's"),
        ("NUMBA_THREADING_LAYER_PRIORITY", "tbb omp", "must name tbb, omp and workqueue"),
        ("NUMBA_DISABLE_JIT", "1", "gpu-anneal needs numba's compiler"),
    ],
)
def test_numba_variables_that_cannot_run_are_one_line(tmp_path, variable, value, says):
    """Before: 'internal error: ValueError: The threading layer requested 'bogus' is unknown to
    Numba.' (exit 3) at the first parallel loop; NUMBA_DISABLE_JIT=1 gave numpy warnings, then
    'internal error: NotImplementedError: <intrinsic ctz> is not usable in pure-python'."""
    (tmp_path / "p.txt").write_text(FOUR)
    env = _env(GPU_ANNEAL_CACHE_DIR=str(tmp_path / "root"), **{variable: value})
    proc = _run(["solve", "p.txt", "--method", "exact"], env, tmp_path)
    assert proc.returncode == 2, proc.stderr[-2000:]
    (line,) = _lines(proc.stderr)
    assert line.startswith(f"gpu-anneal: {variable}={value!r}: {says}"), line


def _loads(layer: str) -> bool:
    """Whether numba's threading layer `layer` (tbb, omp) loads here, asked of numba in a
    subprocess as numba.np.ufunc.parallel loads it."""
    check = "parallel._check_tbb_version_compatible(); " if layer == "tbb" else ""
    code = (f"from numba.np.ufunc import parallel; {check}"
            f"from numba.np.ufunc import {layer}pool")  # fmt: skip
    return subprocess.run([sys.executable, "-c", code], capture_output=True,
                          timeout=120).returncode == 0  # fmt: skip


def test_a_threading_layer_that_cannot_load_is_one_line(tmp_path):
    """Before: NUMBA_THREADING_LAYER=tbb without TBB gave 'internal error: ValueError: No
    threading layer could be loaded.', naming no variable."""
    missing = next((layer for layer in ("tbb", "omp") if not _loads(layer)), None)
    if missing is None:
        pytest.skip("both tbb and omp load here")
    env = _env(GPU_ANNEAL_CACHE_DIR=str(tmp_path / "root"), NUMBA_THREADING_LAYER=missing)
    proc = _run(["examples", "seed002"], env, tmp_path)
    assert proc.returncode == 2, proc.stderr[-2000:]
    (line,) = _lines(proc.stderr)
    assert line.startswith(f"gpu-anneal: NUMBA_THREADING_LAYER='{missing}': numba cannot load")


def test_numba_variables_numba_can_run_are_taken(tmp_path):
    """A threading layer in any case, and NUMBA_DISABLE_JIT=0, run as before."""
    env = _env(GPU_ANNEAL_CACHE_DIR=str(tmp_path / "root"), NUMBA_THREADING_LAYER="WorkQueue",
               NUMBA_DISABLE_JIT="0")  # fmt: skip
    proc = _run(["examples", "seed002"], env, tmp_path)
    assert proc.returncode == 0 and _lines(proc.stderr) == [], proc.stderr


def test_the_commands_warnings_of_the_project_are_one_line(monkeypatch, capfd):
    """Before: a warning given at import, outside the command's guard (a cache folder that
    cannot be written), printed Python's two lines (file:line: CacheWarning: ..., then the
    source line). Other warnings keep Python's form."""
    from cli import startup

    others = []
    monkeypatch.setattr(warnings, "showwarning", lambda message, *args, **kw: others.append(
                        str(message)))  # fmt: skip
    startup.print_project_warnings_as_one_line()
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.warn("GPU_ANNEAL_CACHE_DIR=/x: cannot write", cache.CacheWarning, stacklevel=1)
        warnings.warn("not ours", UserWarning, stacklevel=1)
    assert capfd.readouterr().err == "gpu-anneal: GPU_ANNEAL_CACHE_DIR=/x: cannot write\n"
    assert others == ["not ours"]


def test_a_numba_variable_numba_cannot_parse_is_one_line_and_the_run_goes_on(tmp_path):
    """Before: NUMBA_ENABLE_CUDASIM=yes printed numba's warning with the parse's whole
    traceback (nine lines, 'Traceback (most recent call last):'). Now one line naming the
    variable, its value and the fault; numba takes its default and the puzzle is solved."""
    (tmp_path / "p.txt").write_text(FOUR)
    env = _env(GPU_ANNEAL_CACHE_DIR=str(tmp_path / "root"), NUMBA_ENABLE_CUDASIM="yes")
    proc = _run(["solve", "p.txt", "--method", "exact"], env, tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    assert _lines(proc.stderr) == [
        "gpu-anneal: NUMBA_ENABLE_CUDASIM='yes': numba cannot read it (ValueError: invalid "
        "literal for int() with base 10: 'yes'); it takes its default"
    ]
