"""Text from an input quoted back to a user: control characters made visible.

An error message or a GTP answer that quotes a record's value or a
command's argument must not carry that text's control characters as they
are: a carriage return would move a terminal's cursor, or, read by a GTP
controller in text mode, end an answer early (a tester's SGF value
``B[\\r\\r=2 D4\\r\\r]`` read as a false ``=2 D4``).
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["escape_controls", "escape_format", "escape_surrogates", "exact_number", "quoted",
           "shown_value", "SHOWN_LIMIT", "LONE_SURROGATE"]

#: C0, DEL and C1.
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]")


def escape_controls(text: str, keep: str = "") -> str:
    """``text`` with every control character (C0, DEL, C1) but those in
    ``keep`` written as ``\\xNN``; other characters, non-ASCII ones
    included, stay as they are (unlike ``unicode_escape``)."""
    return _CONTROLS.sub(lambda m: m.group() if m.group() in keep
                         else f"\\x{ord(m.group()):02x}", text)


def escape_format(text: str) -> str:
    """``text`` with each Unicode format character (category ``Cf``: the
    bidirectional overrides such as U+202E, zero-width spaces and joiners)
    written as ``\\uXXXX``: a label that must show what it is, where U+202E
    would turn the rest of a terminal's line around."""
    return "".join(f"\\u{ord(c):04x}" if unicodedata.category(c) == "Cf" else c for c in text)


#: Lone surrogates: a byte that was no UTF-8, read with ``surrogateescape``
#: (``os.fsdecode`` of a file name, GTP's input), or a Python caller's; no
#: encoder writes them.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _escaped_surrogate(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def escape_surrogates(text: str) -> str:
    """``text`` with each lone surrogate written as ``\\xNN`` (the byte
    ``surrogateescape`` read) or ``\\uXXXX``: text any encoder writes."""
    return LONE_SURROGATE.sub(_escaped_surrogate, text)


#: The longest piece of input an error or a warning quotes in full.
SHOWN_LIMIT = 60


def quoted(raw: bytes | str, encoding: str = "utf-8") -> str:
    """Input text (an SGF property value, a command-line option's value) as
    an error or a warning quotes it: decoded (bad bytes replaced), control
    characters written as ``\\xNN`` (a carriage return in a message must
    not move a terminal's cursor or end a GTP answer), and cut after
    SHOWN_LIMIT characters with the text's length, so that a 5,000-byte
    value gives a readable message."""
    text = raw.decode(encoding, "replace") if isinstance(raw, bytes) else raw
    shown = escape_controls(text[:SHOWN_LIMIT])
    if len(text) <= SHOWN_LIMIT:
        return shown
    size = f"{len(raw):,} bytes" if isinstance(raw, bytes) else f"{len(raw):,} characters"
    return f"{shown}... ({size})"


def shown_value(value: object) -> str:
    """A Python argument as an error message shows it: its ``repr``, quoted
    (:func:`quoted`: cut after ``SHOWN_LIMIT`` characters), and an integer
    too long for ``repr`` (over CPython's 4,300 digits, where ``repr``
    itself raises ``ValueError``) by its size, so that a message about
    ``10**400`` is one line and one about ``10**5000`` is a message at all."""
    try:
        text = repr(value)
    except ValueError:
        if not isinstance(value, int):
            return f"a {type(value).__name__}"
        sign = "a negative" if value < 0 else "an"
        return f"{sign} integer of about {int(value.bit_length() * 0.30103):,} digits"
    return quoted(text)


def exact_number(value: float) -> str:
    """A float as the shortest decimal that reads back as the same float
    (Python's ``repr``), without a trailing ``.0``: ``7.5``, ``7``,
    ``123456.5``, ``0.1234567``.  For a komi sent to an engine or printed
    under a board, where ``:g``'s six digits wrote ``123456.5`` as
    ``123456`` and scored with one komi while telling another (a tester)."""
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text
