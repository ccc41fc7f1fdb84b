"""Writing a picture file (`render`'s pictures, `bench tts --plot` / `--trace`): a picture
that cannot be written is one OutputError line naming the file and why (exit code 2 through
cli.guard), never an internal error.
"""

from __future__ import annotations

from gpu_anneal.reference import OutputError


def why(exc: BaseException) -> str:
    """A failed picture write in a few words: the OS's reason (strerror), else the message's
    first line, else the exception's type."""
    lines = str(exc).splitlines()
    return getattr(exc, "strerror", None) or (lines[0] if lines else type(exc).__name__)


def draw(option: str, path: str, plot) -> None:
    """plot(path); OutputError '{option} {path}: cannot write the picture: {why}' when the
    picture cannot be written (an OSError or a ValueError of the writer: a full disk, a folder
    or a dangling link in its place, a folder that is gone)."""
    try:
        plot(path)
    except (OSError, ValueError) as exc:
        raise OutputError(f"{option} {path}: cannot write the picture: {why(exc)}") from None
