"""Whole numbers read from the fields of puzzle text, bounded before they are converted.

A field of any length is judged without converting more digits than its bound has: Python's
int() refuses strings of over 4300 digits with a ValueError, and a long one costs time; here a
number too large for what the field can name is simply no value (None), which the reader then
reports as a fault of its line.
"""

from __future__ import annotations

SHOWN = 24  # characters of a field a message quotes


def whole_number(text: str, hi: int, *, plus: bool = False) -> int | None:
    """The value of `text` when it is a whole number in 0..hi written in ASCII digits (a
    leading `+` allowed when `plus`), else None."""
    if plus and text[:1] == "+":
        text = text[1:]
    if not (text.isascii() and text.isdigit()):
        return None
    digits = text.lstrip("0") or "0"
    if len(digits) > len(str(hi)):
        return None
    value = int(digits)
    return value if value <= hi else None


def a_number(text: str) -> bool:
    """Whether text is one number as float() reads it (an integer, a decimal, nan, inf): where
    a field must be a number, one that is not a whole one is still named as that field."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def shown(text: str, *, quote: bool = True, width: int = SHOWN) -> str:
    """text for a message (quoted as repr writes it, unless not `quote`), a long one cut to its
    first `width` characters and followed by its length: '999999999999999999999999'... (5000
    characters)."""
    short = len(text) <= width
    head = text if short else text[:width]
    head = repr(head) if quote else head
    return head if short else f"{head}... ({len(text)} characters)"
