"""What a command started from a terminal has, for the child processes the tests interrupt."""

from __future__ import annotations

import signal


def sigint_as_from_a_terminal() -> None:
    """A subprocess preexec_fn: SIGINT's default action in the child before it runs. A test
    runner started in the background of a script inherits SIGINT ignored, a child inherits it
    too, and the command line then keeps it ignored (as Python does), so a press would be lost."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
