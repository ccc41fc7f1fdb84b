"""Opening a puzzle source and reading it line by line, the same way for every puzzle kind.

Glossary:
    source    a path, "-" (stdin) or a file object (bytes or text)
    shown     how messages name the source: the path as given, "<stdin>", a stream's name
    head      the first bytes of a source (up to HEAD_BYTES), looked at before any line is read
    L         1-based line number
    line end  "\\n", "\\r\\n" or a "\\r" alone (old Mac files); never part of a line's text, and
              nothing else ends a line (not the form feed, vertical tab, \\x1c-\\x1e, NEL U+0085 or
              U+2028 / U+2029 that str.splitlines takes for line ends)

What a source may be, and how each fault reads (one line naming the source):

    a path that does not exist           "FILE: no such file"
    a folder                             "FILE: is a folder"
    a FIFO, /dev/fd/N (`<(cmd)`), stdin  read as a stream, like a file
    /dev/null, an empty file             no lines (the reader then says "no puzzle found")
    gzip data (by its magic bytes)       decompressed on the fly, whatever the file is called
    UTF-16 / UTF-32 with a byte-order    decoded (the mark says which); without the mark: "FILE:
      mark                               UTF-16 text (little-endian, no byte-order mark): save
                                         it as UTF-8"
    binary data                          "FILE: binary data, not a puzzle file" (see is_binary)
    a closed file object                 "NAME: the file is closed"

A binary source is refused whole before its first line. A text source whose lines hold a stray
byte is read on: such a line is an Unreadable (a fault of that line only: a byte that is not
UTF-8, a NUL byte, or any other control or separator character, named with its code point and
column; the tab is text), and after MAX_BAD_RUN unreadable lines in a row (binary data after a
text head) reading stops with one error.
"""

from __future__ import annotations

import codecs
import gzip
import io
import os
import re
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

from cpu_reference.errors import InputError

HEAD_BYTES = 8192  # bytes looked at to tell text from binary data
BINARY_SHARE = 0.3  # a head with more than this share of non-text bytes is binary data
MAX_BAD_RUN = 100  # unreadable lines in a row after which the rest is taken for binary data
GZIP_MAGIC = b"\x1f\x8b\x08"  # gzip's magic number and its one compression method, deflate
WIDE_SHARE = 0.9  # share of a head's code units that must look like ASCII in UTF-16 / UTF-32
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]")
_LINE_END = {bytes: re.compile(rb"[\r\n]"), str: re.compile(r"[\r\n]")}
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# What no line of puzzle text holds: control characters but the tab (C0, DEL, C1: NEL among
# them) and the line and paragraph separators.
_NOT_TEXT = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")
# Byte-order marks, UTF-32's first: its little-endian mark starts with UTF-16's.
_MARKS = (
    (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"),
)  # fmt: skip
_READ_FAULTS = (OSError, EOFError, zlib.error)  # gzip's corrupt or truncated data among them


@dataclass
class Source:
    """An opened source: its stream (bytes or text), how messages name it, what to close."""

    stream: IO
    shown: str
    owned: tuple = ()  # streams this module opened, closed by close()
    wrapper: io.TextIOWrapper | None = None  # the decoder put over a UTF-16 / UTF-32 stream

    def close(self) -> None:
        """Close what this module opened (never stdin or a caller's file object: a decoder put
        over one is detached from it, not closed)."""
        if self.wrapper is not None:
            try:
                self.wrapper.detach()
            except (ValueError, OSError):
                pass
        for stream in self.owned:
            try:
                stream.close()
            except _READ_FAULTS:
                pass

    def __enter__(self) -> Source:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Unreadable:
    """A line that is no puzzle text (too long, not UTF-8, a NUL byte): a fault of that line
    only; `msg` says why."""

    def __init__(self, msg: str):
        self.msg = msg


def open_source(source, name: str = "<input>") -> Source:
    """The source opened for reading (see the module docstring); InputError for a missing path,
    a folder, an unreadable file, corrupt gzip data or binary data. `name` (unless "<input>")
    is how messages name it."""
    if isinstance(source, (str, os.PathLike)) and os.fspath(source) == "-":
        shown = "<stdin>" if name == "<input>" else name
        return _sniffed(getattr(sys.stdin, "buffer", sys.stdin), shown, ())
    if isinstance(source, (str, os.PathLike)):
        shown = os.fspath(source) if name == "<input>" else name
        try:
            stream = open(source, "rb")  # noqa: SIM115 (closed by Source.close)
        except FileNotFoundError:
            raise InputError(f"{shown}: no such file") from None
        except IsADirectoryError:
            raise InputError(f"{shown}: is a folder; name a puzzle file") from None
        except OSError as e:
            raise InputError(f"{shown}: cannot read: {_why(e)}") from None
        return _sniffed(stream, shown, (stream,))
    if hasattr(source, "readline"):
        if name == "<input>" and isinstance(getattr(source, "name", None), str):
            name = source.name
        if getattr(source, "closed", False) is True:
            raise InputError(f"{name}: the file is closed; pass an open file")
        return _sniffed(source, name, ())
    raise InputError(f"{name}: cannot read puzzles from a {type(source).__name__}")


def _sniffed(stream: IO, shown: str, owned: tuple) -> Source:
    """The source, gzip data unpacked and UTF-16 / UTF-32 text with a byte-order mark decoded;
    InputError (after closing what it opened) when the head is binary data or UTF-16 / UTF-32
    text without a mark."""
    opened = Source(stream, shown, owned)
    try:
        head = _head(stream)
        if head is not None and head.startswith(GZIP_MAGIC):
            unpacked = gzip.GzipFile(fileobj=stream, mode="rb")
            opened = Source(unpacked, shown, (unpacked, *owned))
            head = _head(unpacked)
        marked = next((m for m in _MARKS if head is not None and head.startswith(m[0])), None)
        if marked is not None and _reads_as(head[len(marked[0]) :], marked[1]):
            decoded = io.TextIOWrapper(opened.stream, encoding=marked[1], newline="")
            return Source(decoded, shown, opened.owned, decoded)
        if head is not None and is_binary(head):
            wide = wide_text(head)
            if wide is not None:
                raise InputError(f"{shown}: {wide} text (no byte-order mark): save it as UTF-8")
            raise InputError(f"{shown}: binary data, not a puzzle file")
    except InputError:
        opened.close()
        raise
    except (*_READ_FAULTS, ValueError) as e:  # ValueError: a stream closed under us
        opened.close()
        raise InputError(f"{shown}: cannot read: {_why(e)}") from None
    return opened


def _reads_as(body: bytes, encoding: str) -> bool:
    """Whether the bytes after a byte-order mark read as puzzle text in that encoding (mostly
    ASCII characters, as wide_text judges): a Latin-1 file that happens to open with "ÿþ" is
    no UTF-16."""
    wide = wide_text(body) if len(body) >= 4 else None
    return wide is not None and wide.lower().startswith(encoding) or not body.strip(b"\0")


def wide_text(head: bytes) -> str | None:
    """The encoding and byte order ("UTF-16 (little-endian)", or big-endian, or UTF-32) the
    head reads as text in, without a byte-order mark: at least WIDE_SHARE of its code units
    hold an ASCII character (the zero bytes where that encoding puts them); None otherwise."""
    for width, name in ((4, "UTF-32"), (2, "UTF-16")):
        units = len(head) // width
        if units < 2:
            continue
        body = head[: units * width]
        for order, low in (("little-endian", 0), ("big-endian", width - 1)):
            ascii_units = sum(
                1
                for k in range(0, len(body), width)
                if 0 < body[k + low] < 0x80
                and not any(body[k + j] for j in range(width) if j != low)
            )
            if ascii_units >= WIDE_SHARE * units:
                return f"{name} ({order})"
    return None


def _why(e: BaseException) -> str:
    """A read fault in a few words (gzip's included)."""
    if isinstance(e, EOFError):
        return "gzip data cut short"
    if isinstance(e, (gzip.BadGzipFile, zlib.error)):
        return f"corrupt gzip data ({e})"
    return getattr(e, "strerror", None) or str(e) or type(e).__name__


def _head(stream: IO) -> bytes | None:
    """The first bytes of a binary stream, left unread; None for a text stream or one that can
    neither peek nor seek."""
    if isinstance(stream, io.TextIOBase):
        return None
    peek = getattr(stream, "peek", None)
    if peek is not None:
        head = peek(HEAD_BYTES)
        return head[:HEAD_BYTES] if isinstance(head, bytes) else None
    try:
        if not stream.seekable():
            return None
        at = stream.tell()
        head = stream.read(HEAD_BYTES)
        stream.seek(at)
    except (OSError, ValueError, AttributeError):
        return None
    return head if isinstance(head, bytes) else None


def is_binary(head: bytes) -> bool:
    """Whether the first bytes of a source are binary data rather than text: more than
    BINARY_SHARE of them are control characters (NUL included; tab, line ends and form feed are
    text) or bytes that are not UTF-8, and its lines holding such bytes outnumber its lines of
    text. A text file with a stray byte is far below the share; a stretch of binary data between
    lines of text (a line of NUL bytes among puzzles) is outnumbered by them, and faults its own
    lines only; a program, a picture, compressed data or random bytes are neither."""
    if not head:
        return False
    text = head.decode("utf-8", errors="surrogateescape")
    if len(head) == HEAD_BYTES:  # a character cut at the end of the head is no fault
        text = text[:-3]
    if not text:
        return False
    odd = sum(1 for ch in text if "\udc80" <= ch <= "\udcff") + len(_CONTROL.findall(text))
    if odd <= BINARY_SHARE * len(text):
        return False
    good = bad = 0
    for line in text.split("\n"):
        if _CONTROL.search(line) or any("\udc80" <= ch <= "\udcff" for ch in line):
            bad += 1
        elif line.strip():
            good += 1
    return bad > good


def split_lines(text: str) -> list[str]:
    """The lines of puzzle text held in memory, without their line ends: as `lines` splits a
    stream ("\\n", "\\r\\n" or "\\r"; never where str.splitlines would at \\f, \\v, \\x1c-\\x1e,
    \\x85, U+2028 or U+2029). A line end closing the text ends its last line."""
    parts = _LINE_BREAK.split(text)
    if parts[-1] == "":
        parts.pop()
    return parts


def line_fault(text: str) -> str | None:
    """Why one line's text is no puzzle text, or None: a NUL byte, or another control or
    separator character (the tab is text), named with its code point and 1-based column."""
    m = _NOT_TEXT.search(text)
    if m is None:
        return None
    ch, column = m.group(), m.start() + 1
    if ch == "\x00":
        return f"NUL byte at column {column}; not puzzle text"
    what = "separator" if ch in "\u2028\u2029" else "control"
    return f"{what} character U+{ord(ch):04X} at column {column}; not puzzle text"


def lines(
    stream: IO, shown: str, max_line: int, max_bad_run: int = MAX_BAD_RUN
) -> Iterator[tuple[int, str | Unreadable]]:
    """(L, text without its line end) per line; an Unreadable in place of the text of a line
    over max_line characters, not UTF-8, or holding a NUL byte or another control or separator
    character (line_fault; each costs only its own line).

    A byte-order mark opening line 1 is dropped. A text stream (decoded by its owner) that fails
    to decode is refused whole: where its next line starts is unknown. After max_bad_run
    unreadable lines in a row the rest is taken for binary data and reading stops (InputError).
    """
    L = 0
    run = 0
    for raw in _split(stream, shown, max_line):
        L += 1
        text = Unreadable(f"longer than {max_line} characters") if raw is None else _decode(raw)
        if isinstance(text, str):
            run = 0
            if L == 1 and text.startswith("\ufeff"):
                text = text[1:]
        else:
            run += 1
            if run > max_bad_run:
                raise InputError(
                    f"{shown} line {L}: {max_bad_run} lines in a row are not puzzle text; is "
                    "this a binary file? (reading stopped)"
                )
        yield L, text


def _split(stream: IO, shown: str, limit: int) -> Iterator[bytes | str | None]:
    """The lines of a stream without their line ends ("\\n", "\\r\\n" or "\\r"), None for a line
    over `limit` characters (its rest is skipped). Memory stays within a few lines."""
    buf = None  # the start of a line whose end is not read yet (None: nothing held)
    skipping = False  # inside an over-long line: drop up to its end
    L = 0
    while True:
        try:
            chunk = stream.readline(limit + 1)
        except UnicodeDecodeError as e:
            encoding = getattr(stream, "encoding", None) or "UTF-8"
            raise InputError(
                f"{shown}: not {encoding} text ({e.reason}), near line {L + 1}; reading stopped"
            ) from None
        except (*_READ_FAULTS, ValueError) as e:  # ValueError: a stream closed under us
            raise InputError(f"{shown} line {L + 1}: cannot read: {_why(e)}") from None
        nl, cr = ("\n", "\r") if isinstance(chunk, str) else (b"\n", b"\r")
        if buf is None and not skipping and chunk.endswith(nl):  # one whole line: most lines
            body = chunk[:-2] if chunk.endswith(cr + nl) else chunk[:-1]
            if cr not in body:
                L += 1
                yield body
                continue
        buf = chunk[:0] if buf is None else buf
        if not chunk:  # the end of the stream
            if buf or skipping:
                buf = buf[:-1] if buf.endswith(cr) else buf
                yield None if skipping or len(buf) > limit else buf
            return
        buf += chunk
        start = 0
        for m in _LINE_END[type(buf)].finditer(buf):
            i = m.start()
            if i < start:
                continue  # the "\n" of a "\r\n" already taken
            if i + 1 == len(buf) and buf[i:] == cr:
                break  # a "\r" last: a "\n" may follow in the next chunk
            L += 1
            yield None if skipping or i - start > limit else buf[start:i]
            skipping = False
            start = i + 2 if buf[i : i + 2] == cr + nl else i + 1
        buf = buf[start:]
        if len(buf) - buf.endswith(cr) > limit:  # no line end within limit characters
            skipping = True
            buf = buf[-1:] if buf.endswith(cr) else buf[:0]
        if not buf and not skipping:
            buf = None


def _decode(raw: bytes | str) -> str | Unreadable:
    """One line's text, or why it is unreadable (the first bad byte or character, its column)."""
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            return Unreadable(f"not UTF-8 text: byte 0x{raw[e.start]:02x} at column {e.start + 1}")
    else:
        text = raw
    if text.isprintable():  # most lines; a control or separator character is not printable
        return text
    fault = line_fault(text)
    return text if fault is None else Unreadable(fault)
