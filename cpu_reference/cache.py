"""Where gpu-anneal keeps what it writes for itself: generated rules and numba's compiled code.

One root for both, in the user's cache folder and never inside the installed package:

    GPU_ANNEAL_CACHE_DIR             if set
    $XDG_CACHE_HOME/gpu-anneal       else
    ~/.cache/gpu-anneal              else

    ROOT/rules    generated Sudoku rule modules (cpu_reference.sudoku.rules)
    ROOT/kernels  generated CUDA kernel modules (gpu_anneal.kernels.kernel_cache)
    ROOT/numba    numba's on-disk cache of every @njit(cache=True) and cuda.jit(cache=True)
                  function, unless NUMBA_CACHE_DIR is set (the user's choice wins)

Compiled code written next to the sources (numba's default, `__pycache__` beside each module)
would land in site-packages after `pip install .`; an uninstall leaves those files behind, and the
folder that holds them shadows a later editable install of the same packages.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType

ROOT_VARIABLE = "GPU_ANNEAL_CACHE_DIR"
NUMBA_VARIABLE = "NUMBA_CACHE_DIR"
# numba's configuration and numba-cuda's (imported as numba.cuda, or under its own name)
CONFIG_MODULES = (
    "numba.core.config",
    "numba.cuda.core.config",
    "numba_cuda.numba.cuda.core.config",
)


def cache_root() -> Path:
    """The cache root: GPU_ANNEAL_CACHE_DIR, else $XDG_CACHE_HOME/gpu-anneal, else
    ~/.cache/gpu-anneal (an empty variable counts as unset). Nothing is created."""
    base = os.environ.get(ROOT_VARIABLE)
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(xdg) / "gpu-anneal"


def writable_folder(name: str) -> Path:
    """cache_root() / name, created; a private temporary folder when it cannot be written
    (what is kept there then lasts as long as the temporary folder)."""
    path = cache_root() / name
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".probe-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError:
        path = Path(tempfile.mkdtemp(prefix=f"gpu-anneal-{name}-"))
    return path


_LOADING = threading.Lock()  # threads of one process load a module once, never half of it
# ast.parse from threads at once can fail in CPython 3.11 ("AST constructor recursion depth
# mismatch"): one parse at a time
_PARSING = threading.Lock()


def _parse(text: str) -> ast.Module:
    """ast.parse(text), one thread at a time."""
    with _PARSING:
        return ast.parse(text)


def import_generated(module_name: str, text: str, folder: Callable[[], Path]) -> ModuleType:
    """The module `module_name` whose source is `text`, kept as folder() / <module_name>.py
    (folder is asked only when the module is not imported yet): the file written when missing
    or different (atomically: processes at once never read half a file), the module imported
    once a process (threads at once never see half of it); one that fails to import is not
    kept."""
    with _LOADING:
        if module_name in sys.modules:
            return sys.modules[module_name]
        path = folder() / f"{module_name}.py"
        if not path.exists() or path.read_text() != text:
            partial = path.with_suffix(f".{os.getpid()}.tmp")
            partial.write_text(text)
            os.replace(partial, path)
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[module_name]
            raise
        return module


def rewrite_imports(template: Path, heads: Mapping[str, str]) -> str:
    """The text of `template` with each line that begins with a key of `heads` (the head of an
    import statement: "from package.module import", "from package import module as name")
    beginning with its value instead, every other line unchanged: code compiled from the copy
    keeps the template's line numbers. A head may begin no line (a template imports what it
    needs); ValueError when one begins two lines, when a value holds a line break, or when the
    copy still imports a module some head names (an import written another way)."""
    lines = template.read_text().splitlines(keepends=True)
    for head, new in heads.items():
        if "\n" in new:
            raise ValueError(f"{new!r}: one line only")
        found = [i for i, line in enumerate(lines) if _begins(line, head)]
        if len(found) > 1:
            raise ValueError(f"{template.name}: lines {[i + 1 for i in found]} begin {head!r}")
        for i in found:
            lines[i] = new + lines[i][len(head) :]
    text = "".join(lines)
    left = _imported(text) & {_module_of(head) for head in heads}
    if left:
        raise ValueError(f"{template.name}: the copy still imports {', '.join(sorted(left))}")
    return text


def _begins(line: str, head: str) -> bool:
    """Whether `line` begins with the import head `head` (a whole name, not a longer one)."""
    return line.startswith(head) and line[len(head) : len(head) + 1] in (" ", "\n", "")


def _module_of(head: str) -> str:
    """The module an import head names: "from a.b import" -> a.b, "from a import b as c" -> a.b."""
    node = _parse(head if " as " in head else f"{head} _").body[0]
    if not isinstance(node, ast.ImportFrom) or node.module is None:
        raise ValueError(f"{head!r}: not the head of a `from ... import` statement")
    names = [alias.name for alias in node.names if alias.name != "_"]
    return ".".join([node.module, *names])


def _imported(text: str) -> set[str]:
    """Every module an import statement of `text` may bring in (for `from a import b`: a and
    a.b)."""
    found: set[str] = set()
    for node in ast.walk(_parse(text)):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def use_for_numba() -> None:
    """Point numba's on-disk cache at cache_root() / "numba", unless NUMBA_CACHE_DIR is set.

    Must run before any cached function is decorated (this package's __init__ calls it). Sets
    NUMBA_CACHE_DIR in os.environ, so processes started from this one (Dask workers) use the
    same folder, and numba's own configuration when numba (or numba-cuda) is already imported.
    """
    if os.environ.get(NUMBA_VARIABLE):
        return
    numba_config = sys.modules.get("numba.core.config")
    if numba_config is not None and getattr(numba_config, "CACHE_DIR", ""):
        return  # set in code before this package was imported: left as it is
    folder = str(writable_folder("numba"))
    os.environ[NUMBA_VARIABLE] = folder
    for name in CONFIG_MODULES:
        config = sys.modules.get(name)
        if config is not None:
            config.CACHE_DIR = folder
