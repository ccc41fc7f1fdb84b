"""Resuming a run: which puzzles a JSON-lines results file already holds solved, and writing it.

Glossary:
    record     one JSON line of the results file (gpu_anneal.results.Result.to_dict())
    identity   what names a puzzle in a record: kind, order, line (1-based line in its source)
               and givens_hash (results.givens_hash over kind, size and the givens); see
               identity()
    trusted    a record marked solved whose identity equals the puzzle read at its index (or,
               where no record there is trusted, the puzzle's own identity and source at another
               index: the run read other files before it, or fewer) and whose solution, in both
               its forms (`solution_rows` and the `solution` text they make), passes the kind's
               verifier against that puzzle's givens
    torn line  a last line without its line end that is no JSON (a crash mid-write)
    puzzle key (index, givens_hash): the records of one puzzle in one results file

A puzzle is skipped only when a trusted record holds it. Every other record is ignored and its
puzzle solved again; the run says how many records it did not trust and why (one ResumeWarning
when the input is exhausted), and warns of a torn last line. A resume file must be a regular
file (or not exist yet): a folder, a device such as /dev/zero or a FIFO is refused before it is
read, and so is an input file of the run. A file whose first line is no JSON object is refused
(InputError), even when that line is its only one: it is not a results file, and appending to it
would spoil it. Lines are read one at a time, each at most MAX_RECORD bytes.

A results file is only ever appended to, so a puzzle may have several records: an
`interrupted` one from a run stopped by Ctrl-C, then the one of the run that resumed it. The
rule for readers: the last record of a puzzle (by puzzle key) wins. `read_results` applies it.

`open_results` opens the file that results are appended to: a folder, a missing folder or a
full disk is an OutputError (exit code 2), and a torn last line is ended before the first new
record so that the record stays readable.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import warnings
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from cpu_reference.errors import InputError, OutputError, ResumeWarning
from gpu_anneal.kinds import kind_of
from gpu_anneal.results import givens_hash
from gpu_anneal.validate import input_file, not_an_input, output_path

IDENTITY_KEYS = ("kind", "order", "line", "givens_hash")
MAX_RECORD = 1 << 26  # bytes on one line of a results file (a record of a 1000x1000 grid fits)

# Why a record is not trusted, as the summary words it.
ANOTHER_PUZZLE = "of another puzzle (kind, order, line or givens differ)"
NO_IDENTITY = "without the puzzle's identity (kind, order, line, givens_hash)"
FAILS_VERIFIER = "whose solution fails the verifier"
MALFORMED = "malformed (solved not true or false, or index not a whole number >= 0)"
NOT_JSON = "not JSON objects"
TOO_LONG = f"longer than {MAX_RECORD} bytes"
NO_PUZZLE = "of a puzzle the input does not hold"


def identity(kind: str, order: int | None, line: int | None, cells_or_text) -> dict:
    """The identity fields of a puzzle's record: {kind, order, line, givens_hash}.

    cells_or_text: a Sudoku's cells (uint8[cells], 0 blank), or a Shikaku / Hashiwokakero game
    ID as gpu_anneal.inputs.game_id writes it (or the parsed puzzle). Equal to the fields a
    Result of that puzzle carries.
    """
    size, givens = kind_of(kind).identity_size(order, cells_or_text)
    digest = givens_hash(kind, size, givens)
    order = int(order) if order is not None else None
    return {"kind": kind, "order": order, "line": line, "givens_hash": digest}


def item_identity(item) -> dict:
    """identity() of a gpu_anneal.inputs.Item."""
    return {"kind": item.kind, "order": item.order, "line": item.line,
            "givens_hash": item.givens_hash}  # fmt: skip


@dataclass
class ResumeFile:
    """The solved records of a results file by puzzle index, and what was not trusted."""

    path: str
    # index -> (L, the record's KEPT_KEYS as JSON: _kept)
    solved: dict[int, list[tuple[int, str]]] = field(default_factory=dict)
    skipped: int = 0  # puzzles skipped: a trusted record holds them
    untrusted: Counter = field(default_factory=Counter)  # reason -> records
    claimed: set[int] = field(default_factory=set)  # indices the input held
    # (source, line, givens_hash) -> (L, record): a puzzle's records wherever its index was
    placed: dict[tuple, list[tuple[int, str]]] = field(default_factory=dict)
    option: str = "--resume"  # how messages name the file: the flag, or the API's "resume"

    @classmethod
    def load(
        cls, path: str | os.PathLike | None, inputs=(), option: str = "--resume"
    ) -> ResumeFile:
        """Read a results file (a missing file is an empty one). Warns of a torn last line;
        InputError when the file is a folder, no regular file, one of `inputs` (the run's
        sources), or its first line is no JSON object. Messages name it as `option`."""
        resume = cls(os.fspath(path) if path is not None else "", option=option)
        if path is None:
            return resume
        resume.path = input_file(path, option)
        not_an_input(option, resume.path, inputs)
        if not os.path.exists(resume.path):
            return resume
        for number, record, why in _records(resume.path, option):
            if record is not None:
                resume._add(number, record)
            else:
                resume.untrusted[why] += 1
        return resume

    def _add(self, number: int, record: dict) -> None:
        solved = record.get("solved")
        if solved is False or solved is None:
            return  # an unsolved record: its puzzle is solved again, as anyone would expect
        index = record.get("index")
        ok_index = isinstance(index, int) and not isinstance(index, bool) and index >= 0
        if solved is not True or not ok_index:
            self.untrusted[MALFORMED] += 1
            return
        kept = _kept(record)
        self.solved.setdefault(index, []).append((number, kept))
        place = (record.get("source"), record.get("line"), record.get("givens_hash"))
        try:
            self.placed.setdefault(place, []).append((number, kept))
        except TypeError:  # an unhashable field: found by its index alone
            pass

    def holds(self, item) -> bool:
        """Whether a trusted record holds this puzzle (then it is skipped): one at its index,
        else one of its source, line and givens at another index (a run that read other files
        first); untrusted records of its index are counted by reason where none holds it."""
        self.claimed.add(item.index)
        reasons = []
        for _, kept in self.solved.get(item.index, ()):
            record = json.loads(kept)
            reason = self._distrust(item, record)
            if reason is None:
                self.skipped += 1
                return True
            reasons.append(reason)
        for _, kept in self.placed.get((item.source, item.line, item.givens_hash), ()):
            record = json.loads(kept)
            if record["index"] != item.index and self._distrust(item, record, moved=True) is None:
                self.skipped += 1
                self.claimed.add(record["index"])
                return True
        self.untrusted.update(reasons)
        return False

    def _distrust(self, item, record: dict, moved: bool = False) -> str | None:
        """Why a solved record does not hold the item, or None when it is trusted (`moved`: a
        record at another index, which must name the item's source too)."""
        if any(key not in record for key in IDENTITY_KEYS):
            return NO_IDENTITY
        if moved and record.get("source") != item.source:
            return ANOTHER_PUZZLE
        want = item_identity(item)
        if any(record[key] != want[key] for key in IDENTITY_KEYS):
            return ANOTHER_PUZZLE
        return None if solution_holds(item, record) else FAILS_VERIFIER

    def summary(self) -> str | None:
        """One line: puzzles skipped and records not trusted by reason (None if no record)."""
        unclaimed = sum(len(v) for k, v in self.solved.items() if k not in self.claimed)
        untrusted = Counter(self.untrusted)
        if unclaimed:
            untrusted[NO_PUZZLE] += unclaimed
        if not self.skipped and not untrusted:
            return None
        text = f"{self.option} {self.path}: {self.skipped} solved puzzle(s) skipped"
        if untrusted:
            reasons = "; ".join(f"{n} {why}" for why, n in untrusted.most_common())
            text += f"; records not trusted, their puzzles solved again: {reasons}"
        return text

    def report(self) -> None:
        """Warn (ResumeWarning) with the summary when there is one."""
        text = self.summary()
        if text is not None:
            _warn(text)


# what a solved record is trusted by (_distrust, solution_holds): all a ResumeFile keeps of it
KEPT_KEYS = ("index", "solved", "source", *IDENTITY_KEYS, "solution", "solution_rows")


def _kept(record: dict) -> str:
    """A solved record as a ResumeFile keeps it: its KEPT_KEYS alone, as compact JSON (a
    record's timing, parameters and counts, and Python's objects for it, took about ten times
    the file's bytes)."""
    return json.dumps({k: record[k] for k in KEPT_KEYS if k in record}, separators=(",", ":"))


def solution_holds(item, record: dict) -> bool:
    """Whether the record's solution passes the kind's verifier against the item's givens, in
    both of its forms: `solution_rows` must verify, and `solution` must be the text those rows
    make in the puzzle's notation (Item.text). A record with either missing, of the wrong shape
    or type, outside the grid, or the two disagreeing, fails.

    `solution_rows`: Sudoku N rows of N digits; Shikaku one [row, col, height, width] per clue;
    Hashi one [r1, c1, r2, c2, count] per bridge."""
    rows, text = record.get("solution_rows"), record.get("solution")
    if not isinstance(text, str):
        return False
    try:
        state = item.spec.state_from_rows(item, rows)
        ok = item.spec.verify(item, state) is None
        return ok and item.text(state) == text
    except (InputError, TypeError, ValueError, OverflowError, IndexError):
        return False


def read_results(path: str | os.PathLike) -> list[dict]:
    """The records of a results file, the last one of each puzzle (by index and givens_hash)
    in the place of its first: what the file says of each puzzle once earlier records (an
    `interrupted` line before the resumed run's) are superseded. Lines that are no JSON object
    are left out (a torn last line with a ResumeWarning); InputError when the file cannot be
    read or its first line is no JSON object."""
    path = input_file(path, "results file")
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file")
    latest: dict = {}
    for number, record, _ in _records(path, "results file"):
        if record is None:
            continue
        key = (record.get("index"), record.get("givens_hash"))
        try:
            latest[key] = record  # an existing key keeps its place
        except TypeError:  # an unhashable index or hash: a record of its own
            latest[("line", number)] = record
    return list(latest.values())


def _records(path: str, option: str = "--resume") -> Iterator[tuple[int, dict | None, str]]:
    """(line number, record or None, why it is None) per non-blank line of a results file, read
    a line at a time (at most MAX_RECORD bytes each). A torn last line is skipped with a
    ResumeWarning; a first line that is no JSON object is an InputError."""
    try:
        f = open(path, "rb")  # noqa: SIM115 (closed below)
    except OSError as exc:
        raise InputError(f"{option} {path}: cannot read: {exc.strerror}") from None
    with f:
        first = True
        number = 0
        while True:
            try:
                chunk = f.readline(MAX_RECORD + 1)
            except OSError as exc:
                raise InputError(f"{option} {path}: cannot read: {exc.strerror}") from None
            if not chunk:
                return
            number += 1
            ended = chunk.endswith(b"\n")
            why = NOT_JSON
            if not ended and len(chunk) > MAX_RECORD:
                while chunk and not chunk.endswith(b"\n"):  # skip the rest of the line
                    chunk = f.readline(1 << 20)
                record, why, ended = None, TOO_LONG, True
            elif not chunk.strip():
                continue
            else:
                record = _json_object(chunk)
            if record is None and first and chunk.startswith((b"\xff\xfe", b"\xfe\xff")):
                raise InputError(f"{option} {path}: UTF-16 text (a byte-order mark); a results "
                                 "file is UTF-8 JSON lines")  # fmt: skip
            if record is None and first:
                raise InputError(
                    f"{option} {path} line {number}: not a JSON object; this is no results file "
                    "(and would be appended to)"
                )
            first = False
            if record is None and not ended:
                _warn(f"{option} {path} line {number}: torn last line (a run stopped "
                      "mid-write?), ignored; its puzzle is solved again")  # fmt: skip
                return
            yield number, record, why


def _json_object(chunk: bytes) -> dict | None:
    try:
        record = json.loads(chunk.decode("utf-8-sig"))  # a byte-order mark an editor wrote
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) else None


def _warn(text: str) -> None:
    warnings.warn(text, ResumeWarning, stacklevel=3)


class ResultsFile:
    """A results file opened for appending JSON lines: write() and flush() turn a failed write
    (a full disk, a file-size limit) into OutputError, and a write that fails part way is taken
    back (the file cut to its size before it), so the file never ends in a torn record; the
    first write ends a torn last line first. A file there already must start as a results file
    does (a JSON object), else InputError."""

    def __init__(self, path: str, option: str = "--out"):
        if option == "--resume":
            input_file(path, option)  # a regular file (or none yet): never /dev/zero or a FIFO
        elif os.path.isfile(path):  # appended to: a results file, never a puzzle file or notes
            next(_records(path, option), None)
        self.path = output_path(path, option)
        self.option = option
        self.failed = False
        self.written = 0  # records this run wrote whole
        self._first = True
        self._fd: int | None = _open_for_appending(self.path, option)

    def write(self, text: str) -> None:
        """Append text (a JSON line with its line end), whole or not at all."""
        if self._first:
            self._first = False
            if _ends_torn(self.path):
                text = "\n" + text
        data = text.encode("utf-8")
        try:
            before = os.fstat(self._fd).st_size
        except OSError as exc:
            self._fail(exc)
        try:
            while data:
                data = data[os.write(self._fd, data) :]
        except OSError as exc:
            try:
                os.ftruncate(self._fd, before)  # no torn record left behind
            except OSError:
                pass
            self._fail(exc)
        self.written += 1

    def flush(self) -> None:
        """Every write reached the file already (nothing is buffered)."""

    def close(self) -> None:
        """Close the file."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                os.close(fd)
            except OSError as exc:
                if not self.failed:
                    self._fail(exc)

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _fail(self, exc: OSError):
        self.failed = True
        raise OutputError(
            f"{self.option} {self.path}: cannot write: {exc.strerror or exc}; the "
            f"{self.written} record(s) this run wrote before are whole"
        ) from None


def open_results(path: str, option: str = "--out") -> ResultsFile:
    """The results file `path`, checked and opened for appending (see ResultsFile)."""
    return ResultsFile(path, option)


def _open_for_appending(path: str, option: str) -> int:
    """A descriptor appending to path (made when missing); OutputError naming the option when it
    cannot be opened, or when it is a FIFO no reader has open (opening it would wait for one
    without a word: it is opened without waiting, then made blocking again for the writes)."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
    try:
        fd = os.open(path, flags | getattr(os, "O_NONBLOCK", 0), 0o666)
    except OSError as exc:
        if exc.errno == errno.ENXIO and _is_fifo(path):
            raise OutputError(f"{option} {path}: a FIFO that no reader has open; start its "
                              "reader first") from None  # fmt: skip
        raise OutputError(f"{option} {path}: cannot open: {exc.strerror}") from None
    os.set_blocking(fd, True)
    return fd


def _is_fifo(path: str) -> bool:
    """Whether path names a FIFO."""
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        return False


def _ends_torn(path: str) -> bool:
    """Whether a regular file is non-empty and does not end with a line end."""
    try:
        if not os.path.isfile(path) or os.path.getsize(path) == 0:
            return False
        with open(path, "rb") as f:
            f.seek(-1, os.SEEK_END)
            return f.read(1) != b"\n"
    except OSError:
        return False
