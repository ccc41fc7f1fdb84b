"""The error guard every command body runs in: one line and an exit code, never a traceback."""

from __future__ import annotations

import typer

from cli.output import EXIT_BAD_INPUT, EXIT_INTERNAL, error_line


def check_choice(name: str, value: str, allowed: tuple[str, ...]) -> None:
    """Exit 2 with one line unless value is one of allowed."""
    if value not in allowed:
        error_line(f"--{name} {value!r}: expected one of {', '.join(allowed)}")
        raise typer.Exit(EXIT_BAD_INPUT)


def guarded(fn, *args) -> int:
    """Run a command body; unusable input or backend gives one line and exit code 2."""
    from cpu_reference.errors import InputError
    from gpu_anneal.backends import BackendError

    try:
        return fn(*args)
    except (InputError, BackendError) as exc:
        error_line(str(exc))
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # a fault of ours: one line, never a traceback
        error_line(f"internal error: {type(exc).__name__}: {exc}".splitlines()[0])
        return EXIT_INTERNAL
