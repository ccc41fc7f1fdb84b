"""README.md runs as written: every command of its ```bash blocks and every ```python block, and
every command of docs/commands.md, from a wheel of the package installed outside the checkout, in
an empty directory.

Lines left out, each covered otherwise: `pip install ...` (the wheel install below is what it
does), `python -m pytest ...` (the suite itself) and `docker ...` (needs a Docker daemon).
README stays at most MAX_CHARS characters, and every `docs/NAME.md` it or a docs page names
exists. docs/architecture.md's layout block (picture and tree) must equal what
`python docs/generate.py` prints.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
COMMANDS_PAGE = DOCS / "commands.md"  # its bash blocks run after README's, in the same folder
MAX_CHARS = 12_000
SKIPPED = ("pip install", "python -m pytest", "docker ")
SHIPPED = ("cli", "gpu_anneal", "cpu_reference", "pyproject.toml", "README.md", "LICENSE")


def blocks(language: str, page: Path = README) -> list[str]:
    """The bodies of a markdown page's fenced blocks in `language` (README's by default)."""
    return re.findall(rf"^```{language}\n(.*?)^```", page.read_text(), re.S | re.M)


def commands(page: Path = README) -> list[str]:
    """Every command line of a page's bash blocks (continuations joined), minus the skipped
    ones."""
    found = []
    for body in blocks("bash", page):
        for line in body.replace("\\\n", " ").splitlines():
            line = line.strip()
            if line and not line.startswith("#") and not line.startswith(SKIPPED):
                found.append(line)
    return found


def all_commands() -> list[str]:
    """README's commands, then docs/commands.md's not already among them, in order."""
    return list(dict.fromkeys([*commands(), *commands(COMMANDS_PAGE)]))


def test_readme_is_short():
    """README is the front page: its detail lives in docs/."""
    size = len(README.read_text(encoding="utf-8"))
    assert size <= MAX_CHARS, f"README.md has {size} characters, at most {MAX_CHARS}"


def test_every_docs_page_named_exists():
    """Each `docs/NAME.md` that README or a docs page names is a file of the checkout."""
    pages = [README, *sorted(DOCS.glob("*.md"))]
    named = {
        (page.name, name)
        for page in pages
        for name in re.findall(r"docs/[\w./-]*?\.md\b", page.read_text(encoding="utf-8"))
    }
    assert any(page == "README.md" for page, _ in named)
    missing = sorted((page, name) for page, name in named if not (ROOT / name).is_file())
    assert not missing, missing


def test_readme_starts_with_install_and_a_shipped_example():
    """The first two commands a newcomer meets: install, then solve an example in the package."""
    first = [line for body in blocks("bash") for line in body.splitlines() if line.strip()][:2]
    assert first[0].startswith("pip install .")
    assert first[1].startswith("gpu-anneal solve --example ")


def test_install_figures_are_the_results_files():
    """The suite time and the install sizes README quotes are those of
    benchmarks/results/install/install.json (python -m benchmarks.bench_install --suite)."""
    import json

    measured = json.loads((ROOT / "benchmarks/results/install/install.json").read_text())
    text = " ".join(README.read_text(encoding="utf-8").split())
    minutes = f"{measured['suite']['seconds'] / 60:.1f}"
    assert f"With every extra it took {minutes} min on 2 cores" in text
    mb = {part: f"{row['mb']:.0f} MB" for part, row in measured["sizes"].items()}
    quotes = (f"({mb['base']} installed", f"{mb['cuda']} more", f"needed; {mb['ptx']},",
              f"ADDRESS`; {mb['dask']})", f"linters; {mb['dev']})")  # fmt: skip
    for quoted in quotes:
        assert quoted in text, quoted


def test_layout_block_is_current():
    """docs/architecture.md's layers picture and module tree equal docs/generate.py's output."""
    spec = importlib.util.spec_from_file_location("docs_generate", DOCS / "generate.py")
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    text = generate.ARCHITECTURE.read_text()
    assert generate.with_layout(text) == text, "run: python docs/generate.py"


@pytest.fixture(scope="session")
def installed(tmp_path_factory) -> dict:
    """A wheel built from a copy of the sources (pip's isolated build, as `pip install .`),
    installed into a folder of its own; its dependencies are the running environment's."""
    base = tmp_path_factory.mktemp("wheel")
    src = base / "src"
    src.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc", "*.egg-info")
    for name in SHIPPED:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=ignore)
        else:
            shutil.copy2(path, src / name)
    pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, "wheel", "--no-deps", "-w", str(base), str(src.resolve())],
                   check=True, capture_output=True, timeout=300)  # fmt: skip
    (wheel,) = base.glob("gpu_anneal-*.whl")
    target = base / "site"
    subprocess.run([*pip, "install", "--no-deps", "--target", str(target), str(wheel)],
                   check=True, capture_output=True, timeout=300)  # fmt: skip
    env = dict(os.environ)
    env["PATH"] = f"{target / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(target)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    work = base / "empty"
    work.mkdir()
    return {"env": env, "cwd": work, "target": target, "wheel": wheel}


def _run(args, installed, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run(
        args, cwd=installed["cwd"], env=installed["env"], capture_output=True, text=True,
        timeout=timeout,
    )  # fmt: skip


def test_wheel_ships_data_and_runs_from_outside_the_checkout(installed):
    """The installed copy (not the checkout) is imported, and it holds the sample sets."""
    probe = "import gpu_anneal as g; print(g.__file__); print(g.datasets.path('top95'))"
    proc = _run([sys.executable, "-c", probe], installed)
    assert proc.returncode == 0, proc.stderr
    module, data = proc.stdout.split()
    assert Path(module).is_relative_to(installed["target"])
    assert Path(data).is_file() and Path(data).is_relative_to(installed["target"])
    assert (installed["target"] / "gpu_anneal" / "py.typed").is_file()


# Cheap lines (no fresh compilation) that the default run executes beside the quick start; the
# whole of README and docs/commands.md runs in the slow test (about 12 minutes on 2 busy cores,
# most of it numba compiling each solver once in the fresh install).
QUICK = ("gpu-anneal --version", "gpu-anneal examples", "gpu-anneal info", "grep ")


def test_quick_start_and_cheap_commands_run_as_written(installed):
    """README's first block (install, then solve a shipped example) and the cheap lines."""
    quick = [line for line in commands() if line.startswith(QUICK)]
    first = [line for line in blocks("bash")[0].splitlines() if line.strip()]
    assert len(quick) >= 4 and first[1] in commands()
    outputs = []
    for line in [first[1], *quick]:
        proc = _run(["bash", "-c", f"set -o pipefail; {line}"], installed)
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, (line, proc.stderr[-2000:])
        outputs.append(proc.stdout)
    assert outputs[0].count(": solved") == 3  # the three shipped puzzles


@pytest.mark.slow
def test_every_readme_command_runs_as_written(installed):
    """Each bash line of README and docs/commands.md exits 0 without a traceback; then each
    python block of README does."""
    timings = []
    for line in all_commands():
        start = time.perf_counter()
        proc = _run(["bash", "-c", f"set -o pipefail; {line}"], installed)
        timings.append((round(time.perf_counter() - start, 1), line))
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, (line, proc.stderr[-2000:])
    for body in blocks("python"):
        proc = _run([sys.executable, "-c", body], installed)
        assert proc.returncode == 0, (body, proc.stderr[-2000:])
    print("\n".join(f"{seconds:6.1f} s  {line}" for seconds, line in timings))
