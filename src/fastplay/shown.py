"""Text from an input quoted back to a user: control characters made visible.

An error message or a GTP answer that quotes a record's value or a
command's argument must not carry that text's control characters as they
are: a carriage return would move a terminal's cursor, or, read by a GTP
controller in text mode, end an answer early (a tester's SGF value
``B[\\r\\r=2 D4\\r\\r]`` read as a false ``=2 D4``).
"""

from __future__ import annotations

import re

__all__ = ["escape_controls"]

#: C0, DEL and C1.
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]")


def escape_controls(text: str, keep: str = "") -> str:
    """``text`` with every control character (C0, DEL, C1) but those in
    ``keep`` written as ``\\xNN``; other characters, non-ASCII ones
    included, stay as they are (unlike ``unicode_escape``)."""
    return _CONTROLS.sub(lambda m: m.group() if m.group() in keep
                         else f"\\x{ord(m.group()):02x}", text)
