"""Running a check in a forked child of the test process, with a time limit."""

from __future__ import annotations

import os
import select
import signal
from collections.abc import Callable


def in_forked_child(check: Callable[[], bool], seconds: float = 30.0) -> bool | None:
    """check() run in a fork of this process: its answer, or None when the child gave none
    within `seconds` (it is killed then), as when it waits forever on a dead thread."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.write(write, b"1" if check() else b"0")
        finally:
            os._exit(0)
    os.close(write)
    ready, _, _ = select.select([read], [], [], seconds)
    answer = os.read(read, 1) if ready else b""
    if not answer:
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    os.close(read)
    return {b"1": True, b"0": False}.get(answer)
