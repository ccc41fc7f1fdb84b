"""The error guard every command body runs in: one line and an exit code, never a traceback."""

from __future__ import annotations

import warnings

import typer

from cli.output import EXIT_BAD_INPUT, EXIT_INTERNAL, error_line


def check_choice(name: str, value: str, allowed: tuple[str, ...]) -> None:
    """Exit 2 with one line unless value is one of allowed."""
    if value not in allowed:
        error_line(f"--{name} {value!r}: expected one of {', '.join(allowed)}")
        raise typer.Exit(EXIT_BAD_INPUT)


def guarded(fn, *args) -> int:
    """Run a command body; unusable input or backend gives one line and exit code 2."""
    from gpu_anneal.backends import BackendError
    from gpu_anneal.reference import InputError

    try:
        with warnings.catch_warnings():
            warnings.showwarning = _one_line_warnings(warnings.showwarning)
            for category in _project_warnings():
                warnings.simplefilter("always", category)
            return fn(*args)
    except (InputError, BackendError) as exc:
        error_line(str(exc))
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # (a stream outside cli.streams' guard)
        error_line("output: its reader has gone (broken pipe)")
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        raise
    except MemoryError as exc:  # the machine's limit (ulimit -v, a full memory), not ours
        error_line(f"not enough memory ({exc or 'an allocation failed'}); fewer --chains, a "
                   "smaller --batch or fewer --threads need less")  # fmt: skip
        return EXIT_BAD_INPUT
    except Exception as exc:  # a fault of ours: one line, never a traceback
        if isinstance(exc, OSError) and _folder_gone():
            error_line("the current folder no longer exists: name files by absolute paths, or "
                       "run from a folder that exists")  # fmt: skip
            return EXIT_BAD_INPUT
        if isinstance(exc, RuntimeError) and "can't start new thread" in str(exc):
            error_line("cannot start a thread (a memory or process limit: ulimit -v, -u); "
                       "fewer --threads need fewer")  # fmt: skip
            return EXIT_BAD_INPUT
        error_line(f"internal error: {type(exc).__name__}: {exc}".splitlines()[0])
        return EXIT_INTERNAL


def _folder_gone() -> bool:
    """Whether the current folder was deleted under the process (a relative path then fails)."""
    import os

    try:
        os.getcwd()
    except FileNotFoundError:
        return True
    return False


def _project_warnings() -> tuple[type[Warning], ...]:
    """The project's warnings, each shown every time as one line."""
    from gpu_anneal.reference import KernelWarning, LimitWarning, ResumeWarning

    return (ResumeWarning, KernelWarning, LimitWarning)


def _one_line_warnings(show):
    """A warnings.showwarning that prints the project's warnings (a resume record not
    trusted, a kernel fallback, a time limit one plateau passes...) as one 'gpu-anneal:' line
    and hands the others to `show`."""
    ours = _project_warnings()

    def showwarning(message, category, filename, lineno, file=None, line=None) -> None:
        if issubclass(category, ours):
            error_line(str(message))
        else:
            show(message, category, filename, lineno, file, line)

    return showwarning
