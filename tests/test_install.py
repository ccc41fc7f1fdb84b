"""Installing as README says, twice in one environment: `pip install .`, a run, then
`pip install -e .` over it and another run.

numba's compiled code must never be written into site-packages: the uninstall that precedes the
editable install removes only the files it installed, and a folder left behind with numba's cache
in it shadows the editable package (every import of it then fails).

The environment is a fresh venv whose site-packages reaches this environment's packages through
a .pth line (numpy, numba, pip... are not installed again), and the project is installed with
`--no-deps`: what is installed and uninstalled is the project alone, as in a user's venv.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ("cli", "gpu_anneal", "cpu_reference", "pyproject.toml", "README.md", "LICENSE")
NUMBA_FILES = ("*.nbi", "*.nbc")


def _copy_sources(dest: Path) -> Path:
    """The files a source checkout holds, without any cache or build output."""
    dest.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", *NUMBA_FILES, "*.egg-info", "build")
    for name in SHIPPED:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, dest / name, ignore=ignore)
        else:
            shutil.copy2(path, dest / name)
    return dest


def _venv(path: Path) -> tuple[Path, Path]:
    """A bare venv (no pip of its own) that sees this environment's packages after its own."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    python = path / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    outer = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (Path(purelib) / "_outer_packages.pth").write_text("\n".join(sorted(outer)) + "\n")
    return python, Path(purelib)


def _numba_files(folder: Path) -> list[Path]:
    return [p for pattern in NUMBA_FILES for p in folder.rglob(pattern)]


def test_install_then_editable_install_in_one_venv_keeps_the_command_working(tmp_path):
    """`pip install .`, solve (numba compiles), `pip install -e .`, run again: both runs work,
    and numba's cache is in the user cache folder, never in site-packages or the sources."""
    src = _copy_sources(tmp_path / "src")
    python, site = _venv(tmp_path / "venv")
    cache = tmp_path / "cache"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "PYTHON"))}
    env.update(GPU_ANNEAL_CACHE_DIR=str(cache), PIP_DISABLE_PIP_VERSION_CHECK="1")
    work = tmp_path / "empty"
    work.mkdir()
    command = str(python.parent / "gpu-anneal")

    def run(args, stdin=None) -> subprocess.CompletedProcess:
        return subprocess.run(args, cwd=work, env=env, input=stdin, capture_output=True,
                              text=True, timeout=300)  # fmt: skip

    pip = [str(python), "-m", "pip", "install", "-q", "--no-deps"]
    installed = run([*pip, str(src)])
    assert installed.returncode == 0, installed.stderr[-2000:]
    assert (site / "cpu_reference" / "__init__.py").is_file()

    solved = run([command, "solve", "-", "--kind", "hashi", "--backend", "cpu"], "3x1:1a1\n")
    assert solved.returncode == 0, solved.stderr[-2000:]
    assert solved.stdout.splitlines()[0].startswith("# puzzle 0 line 1: solved")
    assert _numba_files(cache / "numba"), "numba cached nothing in the user cache folder"
    assert _numba_files(site) == []

    editable = run([*pip, "-e", str(src)])
    assert editable.returncode == 0, editable.stderr[-2000:]
    assert not (site / "cpu_reference").exists()  # nothing left to shadow the editable package

    made = run([command, "generate", "--order", "2", "--method", "permute", "--seed", "3"])
    assert made.returncode == 0, made.stderr[-2000:]
    (grid,) = made.stdout.split()
    assert len(grid) == 16 and sorted(grid[:4]) == ["1", "2", "3", "4"]
    assert _numba_files(src) == [] and _numba_files(site) == []
    assert any("sudoku" in p.parent.name for p in _numba_files(cache / "numba"))


def _cache_dirs(env_update: dict, first: str = "") -> list[str]:
    """numba's and numba-cuda's cache folders after `import gpu_anneal` in a fresh process."""
    probe = f"""{first}import gpu_anneal, numba
try:
    from numba.cuda.core import config as cuda_config  # numba-cuda (the cuda and ptx extras)
except ImportError:
    cuda_config = numba.config
print(numba.config.CACHE_DIR)
print(cuda_config.CACHE_DIR)
"""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(env_update)
    proc = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True,
                          timeout=120, cwd=ROOT)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.split()


def test_numba_cache_goes_to_the_cache_root_unless_numba_cache_dir_is_set(tmp_path):
    """GPU_ANNEAL_CACHE_DIR/numba, also when numba was imported first; a user's own
    NUMBA_CACHE_DIR wins; an empty GPU_ANNEAL_CACHE_DIR falls back to XDG_CACHE_HOME."""
    root = tmp_path / "root"
    expected = [str(root / "numba")] * 2
    assert _cache_dirs({"GPU_ANNEAL_CACHE_DIR": str(root)}) == expected
    assert _cache_dirs({"GPU_ANNEAL_CACHE_DIR": str(root)}, first="import numba\n") == expected
    own = str(tmp_path / "own")
    assert _cache_dirs({"GPU_ANNEAL_CACHE_DIR": str(root), "NUMBA_CACHE_DIR": own}) == [own] * 2
    xdg = {"GPU_ANNEAL_CACHE_DIR": "", "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    assert _cache_dirs(xdg) == [str(tmp_path / "xdg" / "gpu-anneal" / "numba")] * 2
