"""Compiled CUDA kernels kept on disk: a process loads what an earlier one compiled.

Where (one place a machine and user; <root> as cpu_reference.cache says: GPU_ANNEAL_CACHE_DIR if
set, else $XDG_CACHE_HOME/gpu-anneal, else ~/.cache/gpu-anneal, the root of the generated Sudoku
rules too):

    <root>/kernels/gpu_anneal_kernel_<name>_<digest>.py
        a kernel's source, a module of its own (kernel_dir)
    <root>/numba/kernels_<hash of that folder's path>/<module>.<kernel>-<line>.py3X.nbi, .<k>.nbc
        numba-cuda's index of a kernel and its compiled code (PTX and cubin), one data file a
        signature and card (compiled_dir): numba's cache folder, NUMBA_CACHE_DIR, which
        cpu_reference.cache sets to <root>/numba unless the user set it; without it,
        <root>/kernels/__pycache__

cache_info() reports both folders and how many compiled kernels they hold. Deleting them is always
safe: the kernels are compiled again; so is a damaged file of numba-cuda's (cached_jit makes its
cache read one as absent; a save that fails leaves the kernel in memory only).

How. numba-cuda's disk cache (cuda.jit(cache=True)) keys a compiled kernel by its signature, the
card (compute capability, CUDA runtime version), numba-cuda's version and a hash of the kernel's
own bytecode and closure, and drops a file's entries when that file's size or time changes. It
does not see what the kernel calls or reads: a jitted function in another file, a constant
imported from elsewhere, the launch bounds it is built with; and a closure over jitted functions
pickles differently in every process, so it never hits. Hence every kernel here is compiled from a
module-level function of a generated module (generated_module) whose NAME carries a digest of all
it depends on:

    - the module's text: a kernel template's copy naming the generated rules modules it imports
      (cpu_reference.cache.rewrite_imports), or a copy of module-level functions (module_copy);
    - the launch bounds the kernel is built with (generated_module's key);
    - fingerprint() of what the text imports: the source of every project file holding a function
      reached through the globals the bytecode names (jitted functions, intrinsics, modules,
      recursively) and the value of every other global so reached;
    - the versions of numba and numba-cuda.

Any change to any of them gives a new module name, hence a new cache file that holds no entry yet:
an entry compiled from other sources can never be found. The same name always holds the same text,
so numba-cuda's stamp of the file never goes stale by itself. Old modules are left on disk.

Under the CUDA simulator (NUMBA_ENABLE_CUDASIM=1) the same generated modules run; the simulator
compiles nothing and has no cache. gpu_anneal.kernels.ptx compiles the same functions to PTX.
"""

from __future__ import annotations

import hashlib
import inspect
import sys
import types
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cache
from pathlib import Path

import numba
import numpy as np
from numba import config
from numba.core import types as numba_types

from cpu_reference.cache import import_generated, tolerate_faults, writable_folder

try:
    import numba_cuda
except ImportError:  # numba's built-in CUDA target
    numba_cuda = None

PREFIX = "gpu_anneal_kernel_"  # every generated kernel module's name starts with it
PROJECT_PACKAGES = ("cpu_reference", "gpu_anneal")  # whose files fingerprint() reads
GENERATED_PREFIX = "gpu_anneal_"  # generated modules: kernels here, rules in cpu_reference


@cache
def kernel_dir() -> Path:
    """The folder of generated kernel modules: <root>/kernels, created; a private temporary
    folder when that cannot be written (compiled kernels then last one process)."""
    return writable_folder("kernels")


def _is_project(module_name: str | None) -> bool:
    """Whether a module's source belongs to this project (packages or generated modules)."""
    if not module_name:
        return False
    return module_name.split(".")[0] in PROJECT_PACKAGES or module_name.startswith(GENERATED_PREFIX)


def _code_names(code: types.CodeType) -> Iterator[str]:
    """Global and attribute names a code object and every code object nested in it use."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_names(const)


def _value_bytes(value) -> bytes | None:
    """A deterministic encoding of a constant a kernel may read, or None for other objects."""
    if isinstance(value, np.ndarray):
        return f"{value.dtype.str}{value.shape}".encode() + np.ascontiguousarray(value).tobytes()
    if isinstance(value, (bool, int, float, complex, str, bytes, type(None), np.generic)):
        return f"{type(value).__name__}:{value!r}".encode()
    if isinstance(value, numba_types.Type):  # uint32, a numba type used as a function
        return f"numba:{value}".encode()
    return None


def fingerprint(*objects) -> str:
    """Digest of everything compiled code built from `objects` can depend on in this project.

    Walks from each object: a jitted function (CPU or CUDA) to its Python function, an intrinsic
    to its definition, a function to the globals its bytecode names (and its closure), a module
    to the attributes of it those names select, a tuple to its items. Hashes the source file of
    every project function or module reached and the value of every constant reached (numbers,
    strings, arrays, numba types). Objects outside the project (numpy, numba) are not followed:
    their versions are part of the kernel's key.
    """
    files: set[str] = set()
    values: set[bytes] = set()
    seen: set = set()  # functions and tuples by id, module attributes by (id, name)

    def walk(obj, names: frozenset[str], label: str) -> None:
        py_func = getattr(obj, "py_func", None)  # numba CPU and CUDA dispatchers
        if callable(py_func):
            return walk(py_func, names, label)
        definition = getattr(obj, "_defn", None)  # @intrinsic
        if callable(definition):
            return walk(definition, names, label)
        if isinstance(obj, (types.FunctionType, tuple)):
            if id(obj) in seen:
                return None
            seen.add(id(obj))
            if isinstance(obj, tuple):
                for i, item in enumerate(obj):
                    walk(item, names, f"{label}[{i}]")
                return None
            return walk_function(obj)
        if isinstance(obj, types.ModuleType):
            if _is_project(obj.__name__) and getattr(obj, "__file__", None):
                files.add(obj.__file__)
                for name in sorted(names):
                    if name in vars(obj) and (id(obj), name) not in seen:
                        seen.add((id(obj), name))
                        walk(vars(obj)[name], names, f"{obj.__name__}.{name}")
            return None
        if inspect.isclass(obj):
            if _is_project(obj.__module__):
                files.add(inspect.getfile(obj))
            return None
        encoded = _value_bytes(obj)
        if encoded is not None:
            values.add(label.encode() + b"=" + encoded)
        return None

    def walk_function(fn: types.FunctionType) -> None:
        if not _is_project(fn.__module__):
            return
        files.add(inspect.getfile(fn))
        names = frozenset(_code_names(fn.__code__))
        for name in sorted(names):
            if name in fn.__globals__:
                walk(fn.__globals__[name], names, f"{fn.__module__}.{name}")
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=True):
            walk(cell.cell_contents, names, f"{fn.__qualname__}:{name}")

    for i, obj in enumerate(objects):
        walk(obj, frozenset(), f"root{i}")
    digest = hashlib.sha256()
    for entry in sorted(f"{Path(p).name}:{hashlib.sha256(Path(p).read_bytes()).hexdigest()}"
                        for p in files):  # fmt: skip
        digest.update(entry.encode())  # file names and contents, not paths: a copy hashes alike
    for value in sorted(values):
        digest.update(value)
    return digest.hexdigest()


def compiler_versions() -> str:
    """The versions of numba and numba-cuda (both shape the compiled code)."""
    cuda_version = "builtin" if numba_cuda is None else numba_cuda.__version__
    return f"numba {numba.__version__}, numba-cuda {cuda_version}"


def generated_module(
    name: str, text: str, depends: Iterable = (), key: str = ""
) -> types.ModuleType:
    """Import `text` as module gpu_anneal_kernel_<name>_<digest>, written once to kernel_dir().

    The digest covers the text, fingerprint(*depends) (what the text imports),
    compiler_versions() and `key` (what else the compiled kernel is built with and numba-cuda's
    cache does not key: its launch bounds): the module's name changes whenever anything its
    kernels compile from changes.
    """
    digest = hashlib.sha256()
    for part in (text, fingerprint(*depends), compiler_versions(), key):
        digest.update(part.encode())
        digest.update(b"\0")
    return import_generated(f"{PREFIX}{name}_{digest.hexdigest()[:16]}", text, kernel_dir)


def module_copy(
    name: str, functions: Iterable[Callable], constants: Mapping[str, int] | None = None
) -> types.ModuleType:
    """A generated module holding copies of module-level `functions` of one module.

    The copy imports every global the functions name from their module, so each copy sees the
    objects its original sees, except the names of `constants`, which the copy sets to their
    values (compile-time constants of its kernels: shared arrays' shapes); it depends on them
    (fingerprint), so the copy's name changes with any of them. The functions must not be
    closures.
    """
    constants = dict(constants or {})
    functions = list(functions)
    home = sys.modules[functions[0].__module__]
    own = {fn.__name__ for fn in functions}
    names: set[str] = set()
    sources = []
    for fn in functions:
        if fn.__module__ != home.__name__ or fn.__qualname__ != fn.__name__:
            raise ValueError(f"{fn.__qualname__}: copy module-level functions of one module")
        if fn.__closure__:
            raise ValueError(f"{fn.__qualname__}: a closure's cells cannot be copied")
        names |= {n for n in _code_names(fn.__code__) if n in vars(home) and n not in own}
        sources.append(inspect.getsource(fn))
    names -= set(constants)
    header = [f'"""Copy of {", ".join(sorted(own))} from {home.__name__} (kernel_cache)."""']
    if names:
        header.append(f"from {home.__name__} import {', '.join(sorted(names))}")
    header += [f"{key} = {int(value)!r}" for key, value in sorted(constants.items())]
    text = "\n".join(header) + "\n\n\n" + "\n\n".join(sources)
    return generated_module(name, text, depends=functions)


def cached_jit(fn: Callable, **options):
    """`fn` compiled with cuda.jit(**options), its compiled code kept on disk (cache=True).

    `fn` must be a module-level function of a generated module (generated_module, module_copy)
    so that its cache entries are keyed by everything it depends on. Under the simulator: plain
    cuda.jit(fn) (no options, no cache).
    """
    from numba import cuda  # late: numba.cuda costs ~0.19 s that cache_info does not need

    if config.ENABLE_CUDASIM:
        return cuda.jit(fn)
    if not fn.__module__.startswith(PREFIX):
        raise ValueError(f"{fn.__qualname__}: only generated kernel modules are cached")
    _tolerate_cuda_cache_faults()
    try:
        return cuda.jit(cache=True, **options)(fn)
    except RuntimeError:  # numba-cuda found no writable place for its cache: compile each time
        return cuda.jit(**options)(fn)


def _tolerate_cuda_cache_faults() -> None:
    """numba-cuda's disk cache (its own copy of numba's, numba.cuda.core.caching) treats a
    damaged file as absent and a failed save as no save, as numba's does
    (cpu_reference.cache.tolerate_faults); numba's built-in CUDA target shares numba's."""
    try:
        from numba.cuda.core import caching
    except ImportError:  # pragma: no cover - numba's built-in CUDA target: numba.core.caching
        return
    tolerate_faults(caching)


def compiled_dir(folder: Path | None = None) -> Path:
    """Where numba-cuda keeps the compiled kernels of the modules in `folder` (kernel_dir())."""
    folder = kernel_dir() if folder is None else folder
    try:  # late: numba.cuda costs ~0.19 s; numba-cuda is optional
        from numba.cuda.core import config as cuda_config
        from numba.cuda.core.caching import _CacheLocator
    except ImportError:  # pragma: no cover - numba-cuda absent: nothing is compiled
        return folder / "__pycache__"
    if cuda_config.CACHE_DIR:
        subpath = _CacheLocator.get_suitable_cache_subpath(str(folder / "module.py"))
        return Path(cuda_config.CACHE_DIR) / subpath
    return folder / "__pycache__"


def cache_info() -> dict:
    """Where compiled kernels live and how many there are.

    {"folder": generated modules, "compiled_folder": numba-cuda's files for them, "modules":
    generated kernel modules, "entries": compiled kernels (one a kernel, signature and card),
    "bytes": their size}.
    """
    folder = kernel_dir()
    compiled = compiled_dir(folder)
    entries = sorted(compiled.glob(f"{PREFIX}*.nbc")) if compiled.is_dir() else []
    return {
        "folder": str(folder),
        "compiled_folder": str(compiled),
        "modules": len(list(folder.glob(f"{PREFIX}*.py"))),
        "entries": len(entries),
        "bytes": sum(path.stat().st_size for path in entries),
    }
