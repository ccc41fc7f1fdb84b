"""Checks of every value an entry point takes, before any compiled code sees it.

Each check returns the value in its canonical type (int, float, None) or raises OptionError (an
InputError: exit code 2 in the CLI) whose one-line message names the option, the value and the
allowed range, e.g. "--chains 0: must be an integer in 1..41,943,040".

Glossary:
    option    a parameter as messages name it: the CLI's flag ("--time-limit", the default) or
              the API's name ("time_limit"), passed by gpu_anneal.resolve
    cells     cells of one puzzle (81 for 9x9); a chain's host memory grows with it
    puzzles   puzzles held at once (the pool's batch), each with `chains` chains
"""

from __future__ import annotations

import math
import numbers
import os
import stat
import sys

import numpy as np

from cpu_reference.errors import OptionError, OutputError
from cpu_reference.sudoku.layout import MAX_ORDER, MIN_ORDER
from cpu_reference.sudoku.schedules import MIN_TEMPERATURE, Range, parse_overrides

SEED_LIMIT = 2**64  # seeds are 0 <= seed < 2**64 (the RNG's 64-bit seed, never wrapped)
# the largest count an option takes (trials, tries, runs, branch values...): the counters and the
# compiled code's arguments are int64, and a larger number is a typo
MAX_INTEGER = 2**62
MAX_TRIALS = MAX_INTEGER  # trials per puzzle
MAX_TOTAL_CHAINS = 2**31 - 1  # chains held at once: int32 chain indices on the device
MAX_BATCH = 1_000_000  # puzzles annealed at once
MAX_WORKERS = 1024  # workers of a local Dask cluster
MAX_SECONDS = 1e9  # about 31 years: any longer time is a typo
MIN_SECONDS = 1e-3  # the shortest time limit: less than one plateau of anything
MAX_TEMPERATURE = 1e9
MAX_SLICE_SECONDS = 3600.0
MAX_COUNT = 10**9  # grids or puzzles one generation run makes
MEMORY_SHARE = 0.5  # chains may take at most this share of the memory available now
# What each key of a Shikaku / Hashi schedule string may be ("geometric:t0=2,plateau=50").
GRID_SCHEDULE_RANGES = {
    "t0": Range(MIN_TEMPERATURE, MAX_TEMPERATURE),
    "t_final": Range(MIN_TEMPERATURE, MAX_TEMPERATURE),
    "n_plateaus": Range(1, 10**9, integer=True),
    "plateau": Range(1, 10**7, integer=True),
}


def integer(option: str, value, lo: int, hi: int | None = None, why: str = "") -> int:
    """value as an int in lo..hi (hi None: MAX_INTEGER, and the fault then says 'lo or more');
    bools and floats are refused. `why`, where given, follows the range in the fault (what
    sets hi)."""
    bounded = hi is not None
    hi = hi if bounded else MAX_INTEGER
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if ok:
        value = int(value)
    if not ok or value < lo or value > hi:
        span = f"in {lo:,}..{hi:,}" if bounded or (ok and value > hi) else f"of {lo:,} or more"
        reason = f" ({why})" if why else ""
        raise OptionError(f"{option} {_show(value)}: must be an integer {span}{reason}")
    return value


def number(
    option: str, value, lo: float, hi: float, *, lo_open: bool = False, hi_open: bool = False
) -> float:
    """value as a finite float in [lo, hi] (or open at either end); nan, inf and bools refused."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
    try:
        x = float(value) if ok else math.nan
    except OverflowError:  # an int past a float's range (10**400)
        x = math.inf
    if ok and math.isfinite(x):
        ok = (x > lo if lo_open else x >= lo) and (x < hi if hi_open else x <= hi)
    else:
        ok = False
    if not ok:
        left = "(" if lo_open else "["
        right = ")" if hi_open else "]"
        shown = _show(value) if isinstance(value, (numbers.Real, str)) else _typed(value)
        raise OptionError(f"{option} {shown}: must be a finite number in {left}{lo:g}, "
                          f"{hi:g}{right}")  # fmt: skip
    return x


def flag(option: str, value) -> bool:
    """value as a bool: True or False (NumPy's too); a string, a number or None is refused."""
    if not isinstance(value, (bool, np.bool_)):
        raise OptionError(f"{option} {_show(value)}: must be True or False")
    return bool(value)


def seed(value, option: str = "--seed") -> int | None:
    """A seed in 0 <= seed < 2**64 (None stays None: the default)."""
    if value is None:
        return None
    return integer(option, value, 0, SEED_LIMIT - 1)


def time_limit(value, option: str = "--time-limit") -> float | None:
    """Seconds: 0 (no limit where the API says so) or a finite number in [MIN_SECONDS, 1e9];
    None stays None."""
    if value is None:
        return None
    seconds = number(option, value, 0.0, MAX_SECONDS)
    if 0.0 < seconds < MIN_SECONDS:
        raise OptionError(f"{option} {_show(value)}: must be 0 (no limit) or a number of seconds "
                          f"in [{MIN_SECONDS:g}, {MAX_SECONDS:g}]")  # fmt: skip
    return seconds


def seconds(option: str, value) -> float:
    """A duration that must pass: finite and > 0."""
    return number(option, value, 0.0, MAX_SECONDS, lo_open=True)


def max_trials(value, option: str = "--max-trials") -> int | None:
    """Trials per puzzle over all its chains, 1..2**62; None stays None (no cap)."""
    if value is None:
        return None
    return integer(option, value, 1, MAX_TRIALS)


def batch(value, option: str = "--batch") -> int | None:
    """Puzzles annealed at once, 1..1,000,000; None stays None."""
    if value is None:
        return None
    return integer(option, value, 1, MAX_BATCH)


def workers(value, option: str = "--workers") -> int | None:
    """Workers of a local Dask cluster, 1..1024; None stays None."""
    if value is None:
        return None
    return integer(option, value, 1, MAX_WORKERS)


def threads(value, option: str = "--threads") -> int | None:
    """Threads for numba's parallel loops: 1..the threads numba starts (NUMBA_NUM_THREADS, one
    per core unless set); None stays None (as they are)."""
    if value is None:
        return None
    import numba

    most = int(numba.config.NUMBA_NUM_THREADS)
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if not ok or not 1 <= int(value) <= most:
        raise OptionError(f"{option} {_show(value)}: must be an integer in 1..{most} (the threads "
                          "numba starts: one per core, or NUMBA_NUM_THREADS)")  # fmt: skip
    return int(value)


def total_time(value, option: str = "--total-time") -> float | None:
    """Seconds for a whole run: a finite number in [MIN_SECONDS, MAX_SECONDS]; None stays
    None (no budget)."""
    if value is None:
        return None
    return number(option, value, MIN_SECONDS, MAX_SECONDS)


def slice_seconds(value) -> float:
    """Seconds one slice of the pool should last: finite, > 0, at most an hour."""
    return number("--slice", value, 0.0, MAX_SLICE_SECONDS, lo_open=True)


def t0(value, option: str = "--t0") -> float | None:
    """A start temperature in [1e-6, 1e9] (MIN_TEMPERATURE: its inverse must fit the chains'
    fixed-point beta); None stays None."""
    if value is None:
        return None
    return number(option, value, MIN_TEMPERATURE, MAX_TEMPERATURE)


def order(value, lo: int = MIN_ORDER, hi: int = MAX_ORDER, option: str = "--order") -> int | None:
    """A Sudoku order n (the grid is n^2 x n^2) in lo..hi; None stays None."""
    if value is None:
        return None
    return integer(option, value, lo, hi)


def schedule_text(text, option: str = "--schedule") -> str | None:
    """A schedule string as given: None stays None (the default); an empty or blank string, or
    anything but a string, is an OptionError (an empty --schedule is no schedule name)."""
    if text is None:
        return None
    if not isinstance(text, str):
        raise OptionError(f"{option} {_show(text)}: expected a string such as 'geometric:t0=2'")
    if not text.strip():
        raise OptionError(f"{option} {text!r}: empty; name a schedule such as 'geometric' or "
                          "leave the option out")  # fmt: skip
    return text


def grid_schedule(text: str | None, t0: float | None = None) -> dict:
    """Keyword settings of the Shikaku and Hashi annealers from 'geometric[:key=value,...]' and
    t0, every value inside its GRID_SCHEDULE_RANGES entry and t_final below t0 when both are
    set (OptionError otherwise; the kind's defaults are checked when a run merges them)."""
    out: dict = {}
    if schedule_text(text) is not None:
        name, _, rest = text.partition(":")
        if name != "geometric":
            raise OptionError(f"schedule {text!r}: shikaku and hashi anneal with 'geometric'")
        out = parse_overrides(text, rest, GRID_SCHEDULE_RANGES)
    if t0 is not None:
        out["t0"] = t0
    if "t0" in out and "t_final" in out and out["t_final"] >= out["t0"]:
        raise OptionError(f"schedule {text!r}: t_final = {out['t_final']:g} must be below t0 = "
                          f"{out['t0']:g} (the temperature falls from t0 to t_final)")  # fmt: skip
    return out


def grid_bytes(cells: int) -> int:
    """Host bytes one generated grid needs: its givens, the grid, and copies made on the way
    (verification, output), with per-grid counters."""
    return 4 * cells + 64


def max_grids(cells: int, memory: int | None = None) -> int:
    """Most grids of `cells` cells one generation run may make: all held at once in half of
    the available memory, and at most MAX_COUNT."""
    memory = available_memory() if memory is None else memory
    return max(1, min(MAX_COUNT, int(memory * MEMORY_SHARE) // grid_bytes(cells)))


def count(value, cells: int | None = None, option: str = "--count") -> int:
    """How many grids or puzzles a run makes: 1..max_grids(cells), or 1..MAX_COUNT when they
    are made one at a time (cells None)."""
    if cells is None:
        return integer(option, value, 1, MAX_COUNT)
    most = max_grids(cells)  # the memory is read once: the bound checked is the one named
    return integer(option, value, 1, most, _fits(most, MAX_COUNT))


def chain_bytes(cells: int) -> int:
    """Host bytes one chain needs, rounded up (grids, best grid, bitboards, thresholds,
    counters and RNG state: about 1.3 KB for 9x9)."""
    return 8 * cells + 1024


def available_memory() -> int:
    """Bytes of memory available now (MemAvailable on Linux, else the physical memory)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 8 * 2**30


def max_chains(cells: int = 81, puzzles: int = 1, memory: int | None = None) -> int:
    """Most chains per puzzle that fit: `puzzles` puzzles of `cells` cells held at once in half
    of the available memory, and at most 2**31 - 1 chains in all."""
    memory = available_memory() if memory is None else memory
    fit = int(memory * MEMORY_SHARE) // (chain_bytes(cells) * max(1, puzzles))
    return max(1, min(fit, MAX_TOTAL_CHAINS // max(1, puzzles)))


def chains(value, cells: int = 81, puzzles: int = 1, option: str = "--chains") -> int | None:
    """Chains per puzzle, 1..max_chains(cells, puzzles); None stays None (the default)."""
    if value is None:
        return None
    most = max_chains(cells, puzzles)
    return integer(option, value, 1, most, _fits(most, MAX_TOTAL_CHAINS // max(1, puzzles)))


def _fits(most: int, cap: int) -> str:
    """Why a memory-bound range ends at `most`: the fixed cap, or what fits now."""
    return "" if most >= cap else "what half of the memory free now holds"


LANES = (1, 32)  # threads a chain of the impasse kernels on a card: a thread, or a warp


def lanes(value, option: str = "--lanes") -> int | None:
    """Threads a chain of the impasse chains on a card: 1 or 32; None stays None."""
    if value is None:
        return None
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if not ok or int(value) not in LANES:
        raise OptionError(f"{option} {_show(value)}: must be 1 (a thread a chain) or 32 (a warp "
                          "a chain)")  # fmt: skip
    return int(value)


def replay_chain(value, option: str = "--replay-chain") -> int:
    """A chain's RNG stream index (--replay-chain), 0..2**63 - 1."""
    return integer(option, value, 0, 2**63 - 1)


def replay_request(spec, method: str, **given) -> None:
    """--replay-chain re-runs one chain of a Sudoku annealing run: OptionError for another kind
    (spec: its gpu_anneal.kinds object, whose `replays` says whether it can) or method (they have
    no chains to replay) and for options it would not honour (given: option name -> value, None
    when not given)."""
    if not spec.replays or method not in spec.replay_methods:
        what = f"--kind {spec.name}" if not spec.replays else f"--method {method}"
        raise OptionError(f"--replay-chain replays a Sudoku annealing run; {what} has no chains")
    for name, value in given.items():
        if value is not None:
            raise OptionError(f"--{name.replace('_', '-')} does not apply to --replay-chain "
                              "(the replayed chain's record goes to stdout)")  # fmt: skip


def file_name(value, option: str) -> str | None:
    """A file name given as a str or an os.PathLike (None stays None), as a str; OptionError
    naming the option for anything else (a number, a list, a bytes path)."""
    if value is None:
        return None
    text = os.fspath(value) if isinstance(value, (str, os.PathLike)) else None
    if not isinstance(text, str):
        raise OptionError(f"{option} {_show(value)}: expected a file name (a str or a path)")
    return text


def output_path(path, option: str = "--out") -> str:
    """A file that results (or a picture) can be appended to: not a folder, its folder exists and
    is writable; OutputError otherwise. The file itself need not exist."""
    text = os.fspath(path) if isinstance(path, (str, os.PathLike)) else path
    if not isinstance(text, str) or not text:
        raise OutputError(f"{option} {text!r}: expected a file name")
    if os.path.isdir(text):
        raise OutputError(f"{option} {text}: is a folder; name a file in it")
    folder = os.path.dirname(os.path.abspath(text))
    if not os.path.isdir(folder):
        raise OutputError(f"{option} {text}: folder {folder} does not exist")
    if os.path.exists(text) and not os.access(text, os.W_OK):
        raise OutputError(f"{option} {text}: not writable")
    if not os.path.exists(text) and not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"{option} {text}: folder {folder} is not writable")
    return text


def input_file(path, option: str) -> str:
    """A results file to read and append to (--resume): a regular file, or a name that does not
    exist yet (check that with exists). A folder, an empty name or anything else (a device such
    as /dev/zero, a FIFO) is an OutputError, before anything is read from it."""
    text = file_name(path, option)
    if not isinstance(text, str) or not text:
        raise OutputError(f"{option} {text!r}: expected a file name")
    if os.path.isdir(text):
        raise OutputError(f"{option} {text}: is a folder; name a file in it")
    if os.path.exists(text) and not os.path.isfile(text):
        raise OutputError(f"{option} {text}: not a regular file; name a results file")
    return text


def not_an_input(
    option: str, path, sources, effect: str = "results would be appended to the puzzles"
) -> None:
    """OptionError when `path` (an --out or --resume file, a picture) is one of the input
    files, by any name (./x, a link, a hard link: os.path.samefile), or is the file stdin reads
    when "-" is among the sources: writing it would spoil the puzzles (`effect` says how).
    None checks nothing."""
    if path is None or not isinstance(path, (str, os.PathLike)):
        return
    try:
        target = os.stat(path)
    except (OSError, ValueError):
        return  # not there yet: no input file
    if not stat.S_ISREG(target.st_mode):
        return  # /dev/null, a terminal: writing there spoils no input
    for source in sources:
        if not isinstance(source, (str, os.PathLike)):
            continue
        name = os.fspath(source)
        try:
            if name == "-":
                same = os.path.samestat(os.fstat(sys.stdin.fileno()), target)
            else:
                same = "\n" not in name and os.path.samefile(name, path)
        except (OSError, ValueError, AttributeError):
            continue
        if same:
            shown = "stdin" if name == "-" else name
            raise OptionError(f"{option} {os.fspath(path)}: is the input file {shown}; "
                              f"{effect}; name another file")  # fmt: skip


SIDES = tuple(n * n for n in range(MIN_ORDER, MAX_ORDER + 1))  # 4, 9, 16, 25, 36
ARRAY_SHAPES = (
    "a Sudoku array is (cells,) or (N, N) for one grid, (P, cells) or (P, N, N) for P grids, "
    f"with N = {', '.join(str(N) for N in SIDES[:-1])} or {SIDES[-1]} and cells = N * N"
)


def sudoku_grids(array, order: int | None = None, what: str = "puzzles") -> tuple[np.ndarray, int]:
    """(integer array [P, cells], n) of the Sudoku grids an API argument holds, as given (no
    value checked): a NumPy array or nested lists of integers of shape (cells,) or (N, N) (one
    grid), (P, cells) or (P, N, N) (P grids), a flat list of ints being one grid. A (16, 16)
    array is one 16x16 grid with order=4, sixteen 4x4 puzzles with order=2, and refused without
    an order. OptionError naming the argument (`what`), the shape it got and the shapes it
    takes (or the dtype) otherwise."""
    try:
        a = np.asarray(array)
    except (ValueError, TypeError, OverflowError):
        raise OptionError(f"{what}: lists of unequal lengths; {ARRAY_SHAPES}") from None
    if a.size == 0 and a.ndim < 2:  # (0, cells) or (0, N, N): a batch of no grid, kept
        raise OptionError(f"{what}: an empty array, no cell; {ARRAY_SHAPES}")
    if a.dtype.kind not in "iu":
        raise OptionError(f"{what}: array of dtype {a.dtype}; expected integers (0 = blank)")
    n = integer("order", order, MIN_ORDER, MAX_ORDER) if order is not None else None
    shape = tuple(a.shape)
    grid = len(shape) in (2, 3) and shape[-1] == shape[-2] and shape[-1] in SIDES
    flat = len(shape) in (1, 2) and shape[-1] in (N * N for N in SIDES)
    if len(shape) == 2 and grid and flat:  # (16, 16): one 16x16, or sixteen 4x4
        if n not in (2, 4):
            raise OptionError(f"{what}: an array of shape {shape} is one 16x16 grid or sixteen "
                              "4x4 puzzles; pass order=4 (one grid) or order=2")  # fmt: skip
        grid = n == 4
    if grid:
        a = a.reshape(-1, shape[-1] * shape[-1])
    elif flat:
        a = a.reshape(-1, shape[-1])
    else:
        raise OptionError(f"{what}: an array of shape {shape}; {ARRAY_SHAPES}")
    side = math.isqrt(math.isqrt(a.shape[1]))
    if n is not None and side != n:
        raise OptionError(f"{what}: {a.shape[1]} cells per puzzle; order {n} has {n**4}")
    return a, side


def sudoku_array(array, order: int | None = None, what: str = "puzzles") -> tuple[np.ndarray, int]:
    """(uint8[P, cells], n) from an API array of puzzles: integer dtype, a shape sudoku_grids
    takes, every cell in 0..n*n.

    Nothing is wrapped: a value outside 0..N (a 262 in a 9x9 grid) is refused, never taken
    modulo 256."""
    a, n = sudoku_grids(array, order, what)
    N = n * n
    if a.size:
        bad = np.flatnonzero(((a < 0) | (a > N)).any(axis=1))
        if bad.size:
            q = int(bad[0])
            c = int(np.flatnonzero((a[q] < 0) | (a[q] > N))[0])
            raise OptionError(f"{what}: puzzle {q} cell r{c // N + 1}c{c % N + 1} holds "
                              f"{int(a[q, c])}; cells must be in 0..{N} (0 blank)")  # fmt: skip
    return a.astype(np.uint8), n


def _show(value) -> str:
    return _cut(repr(value) if isinstance(value, str) else str(value))


def _typed(value) -> str:
    """A value of a type a number option does not take, by its repr (Decimal('2'), [1]), so
    that the message does not read as if its number were out of range."""
    return _cut(repr(value))


def _cut(text: str) -> str:
    """A value's text as messages show it: at most 40 characters."""
    return text if len(text) <= 40 else text[:37] + "..."
