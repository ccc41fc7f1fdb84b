"""The first milliseconds of the gpu-anneal command, before numpy, numba or typer is imported.

`begin()` runs from cli/__init__.py when this process is the command (`is_command`: the console
script `gpu-anneal`, `python -m gpu_anneal` or `python -m cli.main`), never when the package is
imported as a library. It:

- makes Ctrl-C before the command runs (while Python imports the rest, about a second) print
  one line and exit 130 at once: nothing is done yet, so nothing is lost. cli.main.run then
  installs the command's own handler (gpu_anneal.interrupts), which reports what was read;
- puts /dev/null on a standard stream the shell closed (`<&-`, `>&-`, `2>&-`), so that no file
  opened later (--out's, a picture) takes its number and receives what was meant for that
  stream; `closed` names those streams (cli.streams puts stand-ins in sys.stdin, sys.stdout,
  sys.stderr for them);
- refuses a NUMBA_NUM_THREADS that numba cannot run (not a whole number in 1..max_threads())
  with one line and exit 2, before numba reads it (numba raises at import on 0, and a huge
  count crashes the process at the first parallel loop);
- refuses, the same way, NUMBA_DISABLE_JIT other than 0 (gpu-anneal needs numba's compiler:
  pure Python cannot run its intrinsics), a NUMBA_THREADING_LAYER numba does not know or cannot
  load here, and a NUMBA_THREADING_LAYER_PRIORITY that is no order of tbb, omp and workqueue
  (numba raised at the first parallel loop). Only a layer that may be missing (tbb, omp, safe,
  threadsafe) imports numba to try it, as numba would;
- prints the project's own warnings (their categories defined in cpu_reference or gpu_anneal:
  a cache folder that cannot be written, at import) as one 'gpu-anneal:' line each, also those
  given outside the command's guard (cli.guard), and numba's of a NUMBA_* value it cannot
  parse (whose text holds a traceback) as one line too.

It imports nothing beyond the standard library's os, signal, sys and warnings (always loaded),
and numba only to try a threading layer that may be missing.
"""

from __future__ import annotations

import os
import signal
import sys
import warnings

COMMAND = "gpu-anneal"
MODULES = ("gpu_anneal", "cli.main")  # `python -m MODULE` runs the command
EXIT_BAD_INPUT = 2  # as cli.output's (not imported here: it would import the engine)
EXIT_INTERRUPTED = 130
THREADS_VARIABLE = "NUMBA_NUM_THREADS"
JIT_VARIABLE = "NUMBA_DISABLE_JIT"
LAYER_VARIABLE = "NUMBA_THREADING_LAYER"
PRIORITY_VARIABLE = "NUMBA_THREADING_LAYER_PRIORITY"
# numba's threading layers (numba.np.ufunc.parallel._launch_threads, case-insensitive); those
# that may be missing, with the libraries one of which they need
LAYERS = ("default", "safe", "threadsafe", "forksafe", "tbb", "omp", "workqueue")
LAYER_NEEDS = {"tbb": ("tbb",), "safe": ("tbb",), "omp": ("omp",), "threadsafe": ("tbb", "omp")}
LIBRARY_HINTS = {"tbb": "pip install tbb", "omp": "an OpenMP runtime, libgomp"}
PROJECT_PACKAGES = ("cpu_reference", "gpu_anneal")  # whose warnings print as one line
STREAMS = ("stdin", "stdout", "stderr")  # fds 0, 1, 2

closed: set[str] = set()  # the standard streams that were closed when the process started


def is_command() -> bool:
    """Whether this process is the gpu-anneal command (the console script, or `python -m` of
    one of MODULES), not a program that imports the package."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    stem = name.removesuffix(".exe").removesuffix("-script.py")
    return stem == COMMAND or module_run() in MODULES


def module_run() -> str | None:
    """The MODULE of `python [options] -m MODULE`, read from the interpreter's own arguments
    (sys.orig_argv), else None."""
    args = list(getattr(sys, "orig_argv", ()))[1:]
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-m":
            return args[i + 1] if i + 1 < len(args) else None
        if arg.startswith("-m"):
            return arg[2:]
        if arg in ("-", "-c") or not arg.startswith("-"):
            return None  # a script, a command or stdin: not -m
        i += 2 if arg in ("-W", "-X", "--check-hash-based-pycs") else 1
    return None


def begin() -> None:
    """Ctrl-C exits at once, closed standard streams get /dev/null, numba's variables are
    checked, the project's warnings are one line (see the module docstring). Call it once, from
    the main thread, first."""
    exit_on_early_ctrl_c()
    fill_closed_streams()
    check_threads_variable()
    check_jit_variable()
    check_threading_layer()
    print_project_warnings_as_one_line()


def _on_early_sigint(signum, frame) -> None:
    say("interrupted before the command started")
    os._exit(EXIT_INTERRUPTED)


def exit_on_early_ctrl_c() -> None:
    """SIGINT prints one line and ends the process with 130, until the command installs its
    own handler; only where Python's default handler is in place (main thread)."""
    try:
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _on_early_sigint)
    except ValueError:  # not the main thread
        pass


def fill_closed_streams() -> None:
    """Open /dev/null on each of fds 0, 1, 2 that is closed (the lowest free number is the
    closed one's), and note its stream in `closed`."""
    for fd, name in enumerate(STREAMS):
        try:
            os.fstat(fd)
            continue
        except OSError:
            pass
        try:
            opened = os.open(os.devnull, os.O_RDWR)
        except OSError:
            continue
        if opened != fd:  # a lower number was free after all: put it where it belongs
            os.dup2(opened, fd)
            os.close(opened)
        closed.add(name)


def max_threads() -> int:
    """The most threads NUMBA_NUM_THREADS may ask for: 1,024, or 4 per core on a bigger machine
    (numba starts them all at the first parallel loop)."""
    return max(1024, 4 * (os.cpu_count() or 1))


def check_threads_variable() -> None:
    """SystemExit(2) after one line when NUMBA_NUM_THREADS is set to anything but a whole
    number in 1..max_threads()."""
    text = os.environ.get(THREADS_VARIABLE)
    if text is None:
        return
    most = max_threads()
    digits = text.strip()
    ok = digits.isascii() and digits.isdigit() and len(digits) <= 7 and 1 <= int(digits) <= most
    if not ok:
        say(f"{THREADS_VARIABLE}={_shown(text)}: must be a whole number of threads in 1..{most:,} "
            "(or unset: one per core)")  # fmt: skip
        raise SystemExit(EXIT_BAD_INPUT)


def _shown(text: str) -> str:
    """A variable's value for a message: at most 20 characters, quoted."""
    return repr(text if len(text) <= 20 else text[:17] + "...")


def check_jit_variable() -> None:
    """SystemExit(2) after one line when NUMBA_DISABLE_JIT is set to anything but 0."""
    text = os.environ.get(JIT_VARIABLE)
    if text is None:
        return
    try:
        off = int(text) != 0
    except ValueError:
        off = True
    if off:
        say(f"{JIT_VARIABLE}={_shown(text)}: gpu-anneal needs numba's compiler (its code cannot "
            "run as pure Python); unset it or set it to 0")  # fmt: skip
        raise SystemExit(EXIT_BAD_INPUT)


def check_threading_layer() -> None:
    """SystemExit(2) after one line when NUMBA_THREADING_LAYER_PRIORITY is no order of tbb, omp
    and workqueue, or NUMBA_THREADING_LAYER names no layer of numba's or one that cannot load
    here (tried only for those that may be missing: LAYER_NEEDS)."""
    order = os.environ.get(PRIORITY_VARIABLE)
    if order is not None and sorted(order.split()) != ["omp", "tbb", "workqueue"]:
        say(f"{PRIORITY_VARIABLE}={_shown(order)}: must name tbb, omp and workqueue once each, "
            "in the order to try (or unset)")  # fmt: skip
        raise SystemExit(EXIT_BAD_INPUT)
    text = os.environ.get(LAYER_VARIABLE)
    if text is None:
        return
    layer = text.lower()
    if layer not in LAYERS:
        say(f"{LAYER_VARIABLE}={_shown(text)}: not a threading layer of numba's (one of "
            f"{', '.join(LAYERS)}; or unset)")  # fmt: skip
        raise SystemExit(EXIT_BAD_INPUT)
    needs = LAYER_NEEDS.get(layer, ())
    if needs and not any(layer_loads(name) for name in needs):
        hints = "; ".join(f"{name}: {LIBRARY_HINTS[name]}" for name in needs)
        say(f"{LAYER_VARIABLE}={_shown(text)}: numba cannot load {' or '.join(needs)} here "
            f"({hints}); or unset it (numba then takes a layer that loads)")  # fmt: skip
        raise SystemExit(EXIT_BAD_INPUT)


def layer_loads(name: str) -> bool:
    """Whether numba's threading layer `name` ("tbb" or "omp") loads here, tried as numba
    tries it (imports numba; starts no thread)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numba's warning of an old TBB: the line says it
            from numba.np.ufunc import parallel

            if name == "tbb":
                parallel._check_tbb_version_compatible()
                from numba.np.ufunc import tbbpool  # noqa: F401
            else:
                from numba.np.ufunc import omppool  # noqa: F401
    except ImportError:
        return False
    return True


def print_project_warnings_as_one_line() -> None:
    """Warnings of the project's own categories (defined in PROJECT_PACKAGES) print as one
    'gpu-anneal:' line, and so does numba's of a NUMBA_* variable it cannot parse (its text
    holds a traceback: `numba_variable_fault`); any other warning as before."""
    show = warnings.showwarning

    def showwarning(message, category, filename, lineno, file=None, line=None) -> None:
        variable = numba_variable_fault(str(message), filename)
        if variable is not None:
            say(variable)
        elif category.__module__.split(".")[0] in PROJECT_PACKAGES:
            say(str(message).splitlines()[0] if str(message) else category.__name__)
        else:
            show(message, category, filename, lineno, file, line)

    warnings.showwarning = showwarning


def numba_variable_fault(message: str, filename: str) -> str | None:
    """One line for numba's warning (numba/core/config.py) that a NUMBA_* variable's value
    could not be parsed, whose text ends with the parse's traceback: the variable, its value,
    the parse's fault and that numba takes its default; None for any other warning."""
    config = os.path.join("numba", "core", "config.py")
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    if not filename.endswith(config) or not lines or "could not be parsed" not in lines[0]:
        return None
    parts = lines[0].split("'")  # Environment variable 'NAME' is defined but ... value 'V' ...
    if len(parts) < 5:
        return None
    name, value = parts[1], "'".join(parts[3:-1])
    return f"{name}={value!r}: numba cannot read it ({lines[-1]}); it takes its default"


def say(message: str) -> None:
    """One 'gpu-anneal:' line on fd 2, written directly (no Python stream is needed yet);
    nothing when stderr is closed or full."""
    try:
        os.write(2, f"{COMMAND}: {message}\n".encode("utf-8", "replace"))
    except OSError:
        pass
