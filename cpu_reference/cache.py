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

Faults never stop a run; each is one CacheWarning (the command prints it as one line) at most:

- a folder that cannot be written (the root or NUMBA_CACHE_DIR a file, under /proc, read-only,
  full), or no home folder (HOME empty or not a path, and neither variable set): the message
  names the variable and why; what would be kept there goes to one private temporary folder of
  the process (private_folder), removed when the process exits, so each run compiles again.
  numba itself would write next to the sources (inside the package) when NUMBA_CACHE_DIR cannot
  be written: use_for_numba sets it to the temporary folder instead;
- a damaged file of numba's cache (truncated, overwritten): its entries count as absent, are
  compiled again and rewritten; a compiled function numba cannot save (a full disk) is kept in
  memory for the run (tolerate_faults: numba's cache and numba-cuda's copy of it);
- a generated module that cannot be written (a full disk) is written to the temporary folder.
"""

from __future__ import annotations

import ast
import atexit
import contextlib
import importlib
import importlib.util
import os
import shutil
import sys
import tempfile
import threading
import warnings
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


class CacheWarning(UserWarning):
    """Compiled code cannot be kept, or read back, where it belongs; the message names the place
    and why. The run goes on: what cannot be loaded is compiled again."""


_SAID: set[str] = set()  # the warnings given, by key: each once a process
_PRIVATE: list[Path] = []  # the process's private temporary folder, once made
_PRIVATE_LOCK = threading.Lock()


def warn_once(key: str, message: str) -> None:
    """A CacheWarning with `message`, the first time a process gives `key`."""
    with _PRIVATE_LOCK:
        if key in _SAID:
            return
        _SAID.add(key)
    warnings.warn(message, CacheWarning, stacklevel=3)


def reason(exc: BaseException) -> str:
    """A short one-line reason for `exc`: an OSError's text ('No space left on device'), else
    its type and first line."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    text = f"{type(exc).__name__}: {exc}".splitlines()[0]
    text = "".join(c if c.isprintable() else "?" for c in text)  # a damaged file's bytes
    return text if len(text) <= 80 else text[:77] + "..."


def private_folder(name: str = "") -> Path:
    """The process's private temporary folder / name, created. The folder (one a process, made
    at the first call) and all in it are removed when the process exits (atexit; not after
    os._exit, nor in a forked child)."""
    with _PRIVATE_LOCK:
        if not _PRIVATE:
            _PRIVATE.append(Path(tempfile.mkdtemp(prefix="gpu-anneal-")))
            atexit.register(_remove_private, _PRIVATE[0], os.getpid())
    path = _PRIVATE[0] / name
    path.mkdir(exist_ok=True)
    return path


def _remove_private(folder: Path, pid: int) -> None:
    """Remove `folder` when this is the process that made it."""
    if os.getpid() == pid:
        shutil.rmtree(folder, ignore_errors=True)


def _named_root() -> tuple[Path | None, str]:
    """The cache root the environment names and how it is named (for messages); None when none
    is named: HOME empty or not an absolute path (then os.path.expanduser gives '/' or '~'),
    and neither GPU_ANNEAL_CACHE_DIR nor an absolute XDG_CACHE_HOME set."""
    base = os.environ.get(ROOT_VARIABLE)
    if base:
        return Path(base), f"{ROOT_VARIABLE}={base}"
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):  # a relative one is ignored (XDG Base Directory spec)
        return Path(xdg) / "gpu-anneal", f"XDG_CACHE_HOME={xdg}"
    home = os.path.expanduser("~")
    if os.environ.get("HOME") == "" or not os.path.isabs(home):
        return None, "HOME is empty" if "HOME" in os.environ else "HOME is not set"
    root = Path(home) / ".cache" / "gpu-anneal"
    return root, str(root)


def cache_root() -> Path:
    """The cache root: GPU_ANNEAL_CACHE_DIR, else $XDG_CACHE_HOME/gpu-anneal, else
    ~/.cache/gpu-anneal (an empty variable counts as unset, a relative XDG_CACHE_HOME too).
    Nothing is created, except without a home folder (HOME empty, or none known): then the
    private temporary folder (private_folder), with one CacheWarning."""
    root, named = _named_root()
    if root is not None:
        return root
    warn_once("no-home", f"{named}: no home folder for the cache (set {ROOT_VARIABLE}); "
              "compiled code is kept in a temporary folder, for this run only (each run "
              "compiles again)")  # fmt: skip
    return private_folder()


def unwritable(path: Path) -> str | None:
    """Why the folder `path` cannot be written (created when missing), or None when it can."""
    try:
        if path.exists() and not path.is_dir():
            return "not a folder"
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".probe-{os.getpid()}-{threading.get_ident()}"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        return reason(exc)
    return None


def writable_folder(name: str) -> Path:
    """cache_root() / name, created; when it cannot be written, the private temporary folder /
    name (what is kept there then lasts the process), with one CacheWarning naming the variable
    that chose the root and why."""
    path = cache_root() / name
    why = unwritable(path)
    if why is None:
        return path
    _, named = _named_root()
    warn_once(f"root:{path.parent}", f"{named}: cannot write {path} ({why}); compiled code is "
              "kept in a temporary folder, for this run only (each run compiles "
              "again)")  # fmt: skip
    return private_folder(name)


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
        try:
            _write_if_changed(path, text)
        except OSError as exc:  # a full disk: this run's copy in the temporary folder
            _not_kept(path.parent, exc)
            path = private_folder(path.parent.name) / path.name
            _write_if_changed(path, text)
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[module_name]
            raise
        return module


def _write_if_changed(path: Path, text: str) -> None:
    """`text` in `path` (UTF-8), written when the file is missing, damaged or different:
    atomically (processes at once never read half a file), no partial file left on failure."""
    data = text.encode("utf-8")
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    partial = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        partial.write_bytes(data)
        os.replace(partial, path)
    except OSError:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
        raise


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
    """Point numba's on-disk cache at cache_root() / "numba", unless NUMBA_CACHE_DIR is set, and
    make it tolerate damaged files and failed saves (tolerate_faults).

    Must run before any cached function is decorated (this package's __init__ calls it). Sets
    NUMBA_CACHE_DIR in os.environ, so processes started from this one (Dask workers) use the
    same folder, and numba's own configuration when numba (or numba-cuda) is already imported.
    A NUMBA_CACHE_DIR (or numba's CACHE_DIR set in code) that cannot be written is replaced by
    the private temporary folder, with one CacheWarning naming it: numba would otherwise write
    into `__pycache__` folders beside the sources, inside the installed package.
    """
    numba_config = sys.modules.get("numba.core.config")
    own = os.environ.get(NUMBA_VARIABLE) or getattr(numba_config, "CACHE_DIR", "")
    folder = None
    if not own:
        folder = str(writable_folder("numba"))
    else:
        why = unwritable(Path(own))
        if why is not None:
            message = (f"{NUMBA_VARIABLE}={own}: cannot write there ({why}); numba's compiled "
                       "code is kept in a temporary folder, for this run only (each run compiles "
                       "again)")  # fmt: skip
            warn_once(f"numba:{own}", message)
            folder = str(private_folder("numba"))
    if folder is not None:
        os.environ[NUMBA_VARIABLE] = folder
        for name in CONFIG_MODULES:
            config = sys.modules.get(name)
            if config is not None:
                config.CACHE_DIR = folder
    tolerate_faults(importlib.import_module("numba.core.caching"))


_TOLERANT = "_gpu_anneal_tolerant"  # marks a caching module's classes once patched


def tolerate_faults(caching: ModuleType) -> None:
    """Make the on-disk cache of `caching` (numba.core.caching, or numba-cuda's copy of it,
    numba.cuda.core.caching: the same classes) treat a damaged file as absent and a failed save
    as no save. Once a module (later calls do nothing).

    Numba unpickles its index (.nbi) and data (.nbc) files as they are: one truncated or
    overwritten file raised UnpicklingError (EOFError, ...) on every later run; a save that
    failed (a full disk) raised from the compilation. Here, wrapped where they are read and
    written: an index that cannot be read counts as empty, an entry that cannot be loaded as
    missing (both are compiled again, and numba's save rewrites the files); a save that fails
    leaves the compiled code in memory only. Each gives one CacheWarning naming the file or
    folder; an error CPython prints, rather than raises, while unpickling a damaged file is
    held back (_printed_errors_held)."""
    index_file, cache = caching.IndexDataCacheFile, caching.Cache
    if getattr(cache, _TOLERANT, False):
        return
    load_index, load_overload, save_overload = (
        index_file._load_index, cache._load_overload, cache.save_overload)  # fmt: skip

    def _load_index(self):  # a damaged index counts as empty
        return _loaded_or(dict, f"{self._index_path} is", load_index, self)

    def _load_overload(self, sig, target_context):  # a damaged entry counts as missing
        what = f"an entry of {self._cache_file._index_path} is"
        return _loaded_or(lambda: None, what, load_overload, self, sig, target_context)

    def _save_overload(self, sig, data):
        try:
            save_overload(self, sig, data)
        except Exception as exc:  # noqa: BLE001 - not kept: compiled again next run
            _not_kept(self._cache_path, exc)

    index_file._load_index = _load_index
    cache._load_overload = _load_overload
    cache.save_overload = _save_overload
    setattr(cache, _TOLERANT, True)


def _loaded_or(absent: Callable, what: str, load: Callable, *args):
    """load(*args), or absent() with one _damaged warning (`what` is damaged) when it raises
    or CPython prints an error while it unpickles (_printed_errors_held)."""
    printed: list[BaseException] = []
    try:
        with _printed_errors_held(printed):
            loaded = load(*args)
        if printed:
            raise printed[0]
    except Exception as exc:  # noqa: BLE001 - any damage: what it held counts as absent
        _damaged(what, exc)
        return absent()
    return loaded


@contextlib.contextmanager
def _printed_errors_held(printed: list[BaseException]):
    """While unpickling a file of numba's cache: the SystemErrors CPython prints (through
    sys.excepthook) rather than raises are held in `printed` instead of reaching stderr. A
    damaged file can ask for a bytearray too large to allocate, and CPython (3.11 here) frees
    the half-made object with an export count never set, printing 'SystemError: deallocated
    bytearray object has exported buffers'. Any other exception goes to the hook there was."""
    previous = sys.excepthook

    def hold(kind, value, traceback):
        if issubclass(kind, SystemError):
            printed.append(value)
        else:
            previous(kind, value, traceback)

    sys.excepthook = hold
    try:
        yield
    finally:
        if sys.excepthook is hold:  # not replaced meanwhile
            sys.excepthook = previous


def _not_kept(folder: Path | str, exc: BaseException) -> None:
    """One CacheWarning a process, for the first folder where compiled code or a generated
    module cannot be written (a full disk): the run goes on without keeping it."""
    warn_once("not-kept", f"cannot write compiled code to {folder} ({reason(exc)}); the run "
              "goes on without keeping it, so the next run compiles it again")  # fmt: skip


def _damaged(what: str, exc: BaseException) -> None:
    """One CacheWarning a process, for its first damaged file of numba's cache (the others are
    handled alike, without a line each)."""
    warn_once("damaged", f"numba's cache: {what} damaged ({reason(exc)}); damaged entries are "
              "compiled again and rewritten")  # fmt: skip
