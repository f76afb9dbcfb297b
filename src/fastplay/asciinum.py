"""Numbers as GTP and the command line write them: ASCII only.

Python's ``int`` and ``float`` also read other scripts' digits ("٣") and
underscores ("1_0"); GTP's numbers are ASCII (GTP 2, section 2.8), and so
are fastplay's command-line options.
"""

from __future__ import annotations

import re

__all__ = ["ascii_int", "ascii_float"]

_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?(inf|infinity|nan)",
                    re.IGNORECASE)


def ascii_int(text: str) -> int:
    """An integer written with ASCII digits and an optional sign (surrounding
    blanks allowed).  Raises ``ValueError`` for anything else, and for more
    digits than Python converts (4,300)."""
    if not _INT.fullmatch(text.strip()):
        raise ValueError(f"not an integer: {text[:40]!r}")
    try:
        return int(text)
    except ValueError:     # Python's limit for a decimal string
        raise ValueError(f"too many digits ({len(text.strip())}): {text[:20]!r}...") from None


def ascii_float(text: str) -> float:
    """A number in decimal or exponent form, or inf/nan, ASCII only (surrounding
    blanks allowed).  Raises ``ValueError`` for anything else."""
    if not _FLOAT.fullmatch(text.strip()):
        raise ValueError(f"not a number: {text[:40]!r}")
    return float(text)
