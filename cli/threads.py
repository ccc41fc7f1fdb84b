"""--threads: the threads numba's parallel loops use for the command (before any work)."""

from __future__ import annotations


def use_threads(threads: int | None) -> None:
    """Run the command's CPU work on `threads` threads (None: as they are, one per core or
    NUMBA_NUM_THREADS); an OptionError naming --threads for a value numba cannot run."""
    from gpu_anneal import validate

    count = validate.threads(threads, "--threads")
    if count is not None:
        import numba

        numba.set_num_threads(count)
