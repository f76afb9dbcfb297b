"""GNU Go 3.8-compatible Monte Carlo pattern databases (``.db`` files).

A pattern database gives every legal move of a playout a weight, read from a
compiled table ``uint32[1108, 256]`` indexed by the move's *geometry class*
(its 3x3 neighbourhood up to the 8 symmetries of the square, 1..1107) and its
*property byte* (near the previous move, capture counts, self-atari and
opponent suicide).  This module reads GNU Go's ``.db`` language, compiles it to
that table exactly as GNU Go 3.8 does, ships GNU Go's three built-in
databases and one tuned by fastplay (``mc_fastplay_9x9``, issue 19), and
evaluates the table on a :class:`fastplay.Board`.

Source of truth: ``shared/spec/mc-patterns.md`` (§2 the language, §3 symmetry,
§4 the local context, §5 the table, §9 the built-ins, §11 the defects).

Quick use::

    db = PatternDatabase.default()                 # mc_montegnu_classic
    db = PatternDatabase.builtin("mogo_classic")   # GNU Go spelling accepted
    db = PatternDatabase.from_file("my.db")        # strict (default)
    db = PatternDatabase.from_file("old.db", strict=False)   # GNU Go bit for bit
    weights = db.move_values(board)                # uint32[size, size]

The ``.db`` language in brief (§2)
----------------------------------
* The file is bytes (Latin-1 at most); only the first byte of a line decides
  what it is.  ``. x X o O | + - ? %`` start a *diagram row*; ``:`` starts a
  *colon line*; anything else (``#`` comments, blank lines, indented text) is
  ignored.
* A diagram is three rows of the 3x3 neighbourhood, the move in the centre.
  Symbols: ``.`` empty, ``O`` own, ``X`` opponent, ``o`` own or empty, ``x``
  opponent or empty, ``?`` any on-board state, ``%`` anything including
  off-board, ``| - +`` off-board.  The centre byte is never read.
* A colon line ``:VALUE,keyword,keyword`` follows the diagram; several may
  follow one diagram.  Keywords: ``near far osafe ounsafe xsafe xunsafe
  xsuicide xnosuicide`` and ``ocapN``/``xcapN`` (N = 0..3) with the forms
  ``1+ 1- 2+ 2-``.  Each (class, property byte) cell takes the value of the
  first colon line covering it; cells nothing covers hold 1.

Two loading modes
-----------------
``strict=True`` (the default) parses the same language but raises
:class:`PatternSyntaxError` (file, 1-based line and column) wherever GNU Go's
reading is accidental rather than meant.  Its guarantee: **a file accepted in
strict mode compiles to exactly the table GNU Go compiles from it** (the test
suite checks this property on random text).  A file that fails loads nothing.

``strict=False`` is the GNU Go compatibility mode: it never raises a syntax
error and reproduces GNU Go 3.8's loader bit for bit, quirks included
(79-byte ``fgets`` pieces, keyword substring search over the whole colon line,
cells persisting from one diagram to the next, value wrap-around, ...).  Use
it for legacy files such as the oracle's ``custom_quirks.db``.

Both modes warn (:class:`PatternWarning`) about values above 10,000,000, as
GNU Go does on stderr.  Strict mode also warns about a diagram that matches no
neighbourhood that can occur on a board.

Where fastplay deliberately differs from GNU Go
-----------------------------------------------
Only in strict mode; every item below is an error there and is read exactly as
GNU Go reads it with ``strict=False``.

1. **Keywords are tokens.**  The text after the value is split on commas and
   white space; ``#`` starts a comment.  Every token must be a keyword
   (case-sensitive); GNU Go ignores unknown words.  A comment that contains a
   keyword as a substring (``# nearly``, ``# far away``) is an error, because
   GNU Go's substring search would apply it (§2.5, §11.4).  A value glued to a
   word (``:20near``) is an error.
2. **Redundant capture forms.**  ``xcap1+,xcap1-`` (two forms of one group) is
   an error: GNU Go silently keeps only the first of ``+``, ``-``, plain.
3. **Contradictory keywords** (``near,far``, ``ocap0,ocap1``, ...), which admit
   no property byte and fill nothing in GNU Go, are an error at the token that
   empties the set.
4. **Values** must be decimal numbers in 0..4294967294.  A negative value, a
   value of 2^32 or more (GNU Go wraps or saturates them) and 4294967295
   (GNU Go's "unset" mark, which fills nothing) are errors.  A colon line
   without a number (GNU Go ignores it and then swallows the next diagram) is
   an error.
5. **Line length.**  A line longer than 79 bytes (not counting its CR/LF) is an
   error; GNU Go reads it as two lines.
6. **Diagram shape.**  A diagram must have exactly 3 rows before its colon
   line, every one of its 8 neighbour cells must hold a symbol (a short row or
   a space is an error at that column), a colon line needs a diagram before
   it, and a diagram needs a colon line after it.  GNU Go ignores extra rows,
   keeps cells of the previous diagram for missing rows (uninitialised memory
   for the first one, §11.5), and makes a diagram with a bad cell match
   nothing.
7. **NUL bytes** anywhere are an error (GNU Go treats them inconsistently).

Accepted in both modes with GNU Go's meaning: ``#`` comments and other lines
not starting with a row or colon character, blank lines anywhere (even inside
a diagram), bytes after the third on a row (trailing spaces, comments), any
centre byte, several colon lines per diagram, white space around the value, a
``+`` sign on the value, Latin-1 bytes, CRLF line ends, shadowed rules.

In compatibility mode, the cells a diagram leaves undefined (a colon line
before any diagram, a first diagram with fewer than 3 rows) match nothing,
which is what the GNU Go build behind the oracle did.
"""

from __future__ import annotations

import codecs
import functools
import hashlib
import importlib.resources
import os
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any, Final, Union

import numpy as np
import numpy.typing as npt

from fastplay._equality import fields_equal
from fastplay.color import Color
from fastplay.inputfile import read_input
from fastplay.shown import shown_value

__all__ = [
    "NUM_GEOMETRIES",
    "NUM_PROPERTIES",
    "KEYWORDS",
    "PatternDatabase",
    "property_mask",
    "PatternSyntaxError",
    "PatternWarning",
    "Rule",
    "MoveContext",
    "LocalContexts",
    "geometry_table",
    "compile_db",
    "local_contexts",
    "GNUGO_BUILTINS",
    "TUNED_BUILTINS",
]

NUM_GEOMETRIES: Final = 1107
NUM_PROPERTIES: Final = 256
TABLE_SHAPE: Final = (NUM_GEOMETRIES + 1, NUM_PROPERTIES)
DEFAULT_VALUE: Final = 1
#: GNU Go marks unfilled cells with this value, so a colon line carrying it
#: fills nothing (§2.7).
UNSET: Final = 0xFFFFFFFF
WARN_ABOVE: Final = 10_000_000
#: ``fgets`` into an 80-byte buffer yields at most 79 bytes per piece (§2.1).
PIECE_BYTES: Final = 79

_WHITE: Final = 1
_BLACK: Final = 2

StrPath = Union[str, "PathLike[str]"]

# ---------------------------------------------------------------------------
# Geometry classes (§4.1, §5.1)
# ---------------------------------------------------------------------------

# GNU Go's delta[] order: S W N E SW NW NE SE, as (row, col) offsets with row 0
# at the top of the printed board.
_OFFSETS: Final = ((1, 0), (0, -1), (-1, 0), (0, 1), (1, -1), (-1, -1), (-1, 1), (1, 1))

_OFF_BOARD_MASKS: Final = (0x0000, 0x1410, 0x5450)  # interior, N edge, NE corner


def _symmetry_permutations() -> np.ndarray:
    """``int64[8, 8]``: ``perm[t, k]`` is where neighbour ``k`` lands under symmetry ``t``."""
    # the 8 elements of the square's symmetry group as integer 2x2 matrices
    matrices = ((1, 0, 0, 1), (0, 1, -1, 0), (-1, 0, 0, -1), (0, -1, 1, 0),
                (1, 0, 0, -1), (-1, 0, 0, 1), (0, 1, 1, 0), (0, -1, -1, 0))
    perm = np.empty((8, 8), dtype=np.int64)
    for t, (a, b, c, d) in enumerate(matrices):
        for k, (r, col) in enumerate(_OFFSETS):
            perm[t, k] = _OFFSETS.index((a * r + b * col, c * r + d * col))
    return perm


@functools.cache
def geometry_table() -> npt.NDArray[np.uint16]:
    """The neighbourhood-code -> geometry-class map of spec §5.1.

    Returns:
        Read-only ``uint16[65536]``.  Index: the 16-bit code of §4.1 in the
        own/opponent form (neighbour ``k`` in bits ``2k, 2k+1``; 0 empty,
        1 own, 2 opponent, 3 off-board).  Value: the class 1..1107, or 0 for
        a code that cannot occur on a board.  Computed once per process.

    Classes are numbered in increasing order of the smallest code of the class
    whose off-board cells are exactly none, the north side, or the north and
    east sides; that is GNU Go's numbering, so tables compare cell by cell.
    """
    codes = np.arange(1 << 16, dtype=np.int64)
    states = np.stack([(codes >> (2 * k)) & 3 for k in range(8)])  # (8, 65536)
    images = np.zeros((8, codes.size), dtype=np.int64)
    for t, row in enumerate(_symmetry_permutations()):
        for k in range(8):
            images[t] |= states[k] << (2 * row[k])
    off = (images & (images >> 1)) & 0x5555
    canonical = np.isin(off, _OFF_BOARD_MASKS)
    sentinel = np.int64(1 << 16)
    representative = np.where(canonical, images, sentinel).min(axis=0)
    valid = representative < sentinel
    firsts = np.unique(representative[valid])
    if firsts.size != NUM_GEOMETRIES:  # pragma: no cover - guards the derivation
        raise AssertionError(f"derived {firsts.size} geometry classes, expected {NUM_GEOMETRIES}")
    table = np.zeros(codes.size, dtype=np.uint16)
    table[valid] = np.searchsorted(firsts, representative[valid]) + 1
    table.flags.writeable = False
    return table


def _swap_colours(codes: np.ndarray) -> np.ndarray:
    """Exchange states 1 and 2 in every 2-bit field (Black's view of White's code)."""
    return ((codes & 0x5555) << 1) | ((codes & 0xAAAA) >> 1)


# ---------------------------------------------------------------------------
# Symbols and keywords (§2.3, §2.5)
# ---------------------------------------------------------------------------

# Allowed neighbour states as a 4-bit set: bit s set <=> state s matches.
_SYMBOL_STATES: Final[dict[int, int]] = {
    ord("."): 0b0001,
    ord("O"): 0b0010,
    ord("X"): 0b0100,
    ord("o"): 0b0011,
    ord("x"): 0b0101,
    ord("?"): 0b0111,
    ord("%"): 0b1111,
    ord("|"): 0b1000,
    ord("-"): 0b1000,
    ord("+"): 0b1000,
}
# GNU Go's row test is a strchr() that also finds the string terminator.
_ROW_START: Final = frozenset(b".xXoO|+-?%\0")
# (byte position in the row, neighbour index k) for diagram rows 1, 2, 3.
_ROW_CELLS: Final = (((0, 5), (1, 2), (2, 6)), ((0, 1), (2, 3)), ((0, 4), (1, 0), (2, 7)))
_SYMBOLS_TEXT: Final = ". O X o x ? % | - +"

_PROPS = np.arange(NUM_PROPERTIES)
_NEAR = _PROPS & 1
_XCAP = (_PROPS >> 1) & 3
_OCAP = (_PROPS >> 3) & 3
_XUNSAFE = (_PROPS >> 5) & 1
_OUNSAFE = (_PROPS >> 6) & 1
_XSUICIDE = (_PROPS >> 7) & 1

_KEYWORD_MASKS: Final[dict[str, np.ndarray]] = {
    "near": _NEAR == 1,
    "far": _NEAR == 0,
    "osafe": _OUNSAFE == 0,
    "ounsafe": _OUNSAFE == 1,
    "xsafe": _XUNSAFE == 0,
    "xunsafe": _XUNSAFE == 1,
    "xsuicide": _XSUICIDE == 1,
    "xnosuicide": _XSUICIDE == 0,
}
for _prefix, _field in (("ocap", _OCAP), ("xcap", _XCAP)):
    _KEYWORD_MASKS[f"{_prefix}0"] = _field == 0
    _KEYWORD_MASKS[f"{_prefix}1"] = _field == 1
    _KEYWORD_MASKS[f"{_prefix}1-"] = _field <= 1
    _KEYWORD_MASKS[f"{_prefix}1+"] = _field >= 1
    _KEYWORD_MASKS[f"{_prefix}2"] = _field == 2
    _KEYWORD_MASKS[f"{_prefix}2-"] = _field <= 2
    _KEYWORD_MASKS[f"{_prefix}2+"] = _field >= 2
    _KEYWORD_MASKS[f"{_prefix}3"] = _field == 3
for _mask in _KEYWORD_MASKS.values():
    _mask.flags.writeable = False

#: Every property keyword of the language, in a fixed documentation order.
KEYWORDS: Final[tuple[str, ...]] = tuple(_KEYWORD_MASKS)
_KEYWORD_BYTES: Final = tuple(k.encode() for k in KEYWORDS)


def _gnugo_keywords(line: bytes) -> tuple[str, ...]:
    """Keywords GNU Go applies to a colon line: substring search, group precedence.

    The capture forms of one group are tried in the order ``+``, ``-``, plain
    and only the first present counts (§2.5).
    """
    line = line.split(b"\0", 1)[0]  # strstr() stops at a NUL
    found = [k for k in ("near", "far", "osafe", "ounsafe", "xsafe", "xunsafe",
                         "xsuicide", "xnosuicide") if k.encode() in line]
    for prefix in ("xcap", "ocap"):
        if f"{prefix}0".encode() in line:
            found.append(f"{prefix}0")
        for n in "12":
            for form in (f"{prefix}{n}+", f"{prefix}{n}-", f"{prefix}{n}"):
                if form.encode() in line:
                    found.append(form)
                    break
        if f"{prefix}3".encode() in line:
            found.append(f"{prefix}3")
    return tuple(found)


def _property_mask(keywords: tuple[str, ...]) -> np.ndarray:
    """``bool[256]``: property bytes admitted by all ``keywords`` together."""
    mask = np.ones(NUM_PROPERTIES, dtype=bool)
    for k in keywords:
        mask &= _KEYWORD_MASKS[k]
    return mask


def property_mask(keywords: tuple[str, ...]) -> npt.NDArray[np.bool_]:
    """``bool[256]``: the property bytes (§4.2) a colon line with ``keywords``
    admits (the canonical keywords of :attr:`Rule.keywords`, GNU Go's
    precedence among capture forms already applied).

    Raises:
        ValueError: an unknown keyword.
    """
    unknown = [k for k in keywords if k not in _KEYWORD_MASKS]
    if unknown:
        raise ValueError(f"unknown property keyword {unknown[0]!r}")
    mask: npt.NDArray[np.bool_] = _property_mask(tuple(keywords)).copy()
    return mask


@functools.lru_cache(maxsize=4096)
def _classes_for(cells: tuple[int, ...]) -> np.ndarray:
    """Sorted ``int64`` geometry classes matched by 8 cell bytes (indexed by ``k``)."""
    allowed = [_SYMBOL_STATES.get(b, 0) for b in cells]
    if 0 in allowed:
        return np.empty(0, dtype=np.int64)
    ok = np.ones(1 << 16, dtype=bool)
    codes = np.arange(1 << 16, dtype=np.int64)
    for k, bits in enumerate(allowed):
        if bits != 0b1111:
            ok &= ((bits >> ((codes >> (2 * k)) & 3)) & 1).astype(bool)
    classes: np.ndarray = np.unique(geometry_table()[ok]).astype(np.int64)
    classes = classes[classes != 0]
    classes.flags.writeable = False
    return classes


# ---------------------------------------------------------------------------
# Errors and results
# ---------------------------------------------------------------------------


class PatternSyntaxError(ValueError):
    """A ``.db`` file that strict mode rejects (see the module docstring).

    Attributes:
        file: the file name, or the ``name`` given to :meth:`PatternDatabase.from_string`.
        line: 1-based line number.
        column: 1-based byte column (bytes are Latin-1 characters).
        message: what is wrong, without the location.

    ``str(err)`` is ``"file:line:column: message"``.
    """

    def __init__(self, file: str, line: int, column: int, message: str) -> None:
        self.file = file
        self.line = line
        self.column = column
        self.message = message
        super().__init__(f"{file}:{line}:{column}: {message}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.file, self.line, self.column, self.message))


class PatternWarning(UserWarning):
    """Something legal but suspicious in a ``.db`` file (large value, empty diagram)."""


class _LocatedError(Exception):
    """Syntax error before the file name is known (compilation is cached by content)."""

    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(line, column, message)
        self.line = line
        self.column = column
        self.message = message


@dataclass(frozen=True)
class Rule:
    """One colon line of a compiled database, for inspection and debugging.

    Attributes:
        line: 1-based line of the colon line.
        value: its value (uint32).
        keywords: the keywords applied, in a fixed canonical order, after
            GNU Go's precedence among capture forms (so a
            compatibility-mode ``"# nearly"`` comment shows up as ``near``).
        diagram: the 8 neighbour symbols as ``"NW N NE/W * E/SW S SE"``
            without spaces, e.g. ``"oOo/O*O/oO?"``; non-symbol bytes appear as
            ``\\xNN`` escapes.
        classes: number of geometry classes the diagram matches.
        properties: number of property bytes the keywords admit.
        cells: table cells this line actually filled (first match wins).
    """

    line: int
    value: int
    keywords: tuple[str, ...]
    diagram: str
    classes: int
    properties: int
    cells: int


@dataclass(frozen=True)
class _Compiled:
    table: np.ndarray
    rules: tuple[Rule, ...]
    warnings: tuple[tuple[int, int, str], ...]


def _diagram_text(cells: list[int]) -> str:
    def sym(b: int) -> str:
        return chr(b) if b in _SYMBOL_STATES else f"\\x{b:02x}"

    rows = [[sym(cells[k]) for _, k in row] for row in _ROW_CELLS]
    rows[1].insert(1, "*")
    return "/".join("".join(r) for r in rows)


# ---------------------------------------------------------------------------
# The loader (§2.1-§2.7)
# ---------------------------------------------------------------------------

# sscanf(":%u"): C isspace() then an optional sign then decimal digits.
_GNUGO_VALUE = re.compile(rb":[ \t\n\v\f\r]*([+-]?)([0-9]+)")
_STRICT_VALUE = re.compile(rb":([ \t]*)([+-]?)([0-9]*)")
_TOKEN = re.compile(rb"[^,\s#]+")
_ULONG_MAX = (1 << 64) - 1


def _gnugo_value(sign: bytes, digits: bytes) -> int:
    """What glibc's ``%u`` stores: strtoul's result (saturating) reduced to 32 bits."""
    magnitude = int(digits)
    if magnitude > _ULONG_MAX:
        return UNSET
    return (-magnitude if sign == b"-" else magnitude) % (1 << 32)


def _pieces(data: bytes) -> Iterator[tuple[int, int, bytes]]:
    """Yield ``(line, column, piece)`` exactly as ``fgets(buf, 80, f)`` cuts ``data``."""
    line, column, pos, n = 1, 1, 0, len(data)
    while pos < n:
        newline = data.find(b"\n", pos, pos + PIECE_BYTES)
        end = newline + 1 if newline >= 0 else min(pos + PIECE_BYTES, n)
        piece = data[pos:end]
        yield line, column, piece
        if newline >= 0:
            line, column = line + 1, 1
        else:
            column += len(piece)
        pos = end


def _utf16_hint(data: bytes) -> str:
    """A hint for a file whose NUL bytes say UTF-16 or UTF-32 (a byte-order
    mark, or NULs at every other byte of its start), else ``""``."""
    head = data[:64]
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_BE)) or (
            len(head) >= 4 and (head[1::2].count(0) == len(head[1::2])
                                or head[0::2].count(0) == len(head[0::2]))):
        return " (is the file UTF-16 or UTF-32? GNU Go reads bytes: save it as ASCII or UTF-8)"
    return ""


def _strict_line_problems(data: bytes) -> dict[int, tuple[int, str]]:
    """Over-long lines, NUL bytes and CRs inside lines, by line number:
    ``{line: (column, message)}``."""
    problems: dict[int, tuple[int, str]] = {}
    if data.startswith(b"\xef\xbb\xbf"):
        # GNU Go reads bytes: the mark makes line 1 start with 0xEF, so that
        # line is ignored whatever follows.
        problems[1] = (1, "the file starts with a UTF-8 byte-order mark, which makes GNU Go "
                          "ignore line 1; save the file without it")
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if number in problems:
            continue
        nul = raw.find(b"\0")
        content = raw[:-1] if raw.endswith(b"\r") else raw
        cr = content.find(b"\r")
        if nul >= 0:
            problems[number] = (nul + 1, "NUL byte in a pattern file" + _utf16_hint(data))
        elif len(content) > PIECE_BYTES:
            # Old Mac files end their lines in CR alone: one long line to GNU Go.
            why = (" (its lines end in CR alone; GNU Go ends lines at LF: save the file "
                   "with LF or CRLF line ends)" if content.count(b"\r") > 1 else "")
            problems[number] = (
                PIECE_BYTES + 1,
                f"line is {len(content)} bytes long; GNU Go reads at most {PIECE_BYTES} "
                f"bytes per line and would read the rest as a separate line{why}")
        elif cr >= 0:
            problems[number] = (
                cr + 1, "CR inside a line: GNU Go ends lines at LF only and reads what "
                        "follows as the same line (do the lines end in CR alone? save the "
                        "file with LF or CRLF line ends)")
    return problems


def _strict_colon_line(line: int, piece: bytes) -> tuple[int, tuple[str, ...]]:
    """Parse a colon line in strict mode: ``(value, keywords)`` or :class:`_LocatedError`."""
    text = piece.rstrip(b"\n")
    m = _STRICT_VALUE.match(text)
    assert m is not None  # the piece starts with ':'
    space, sign, digits = m.groups()
    value_col = 2 + len(space)
    if not digits:
        raise _LocatedError(line, value_col + len(sign),
                            "colon line without a value (GNU Go ignores the line and then "
                            "also the next diagram)")
    if sign == b"-":
        raise _LocatedError(line, value_col,
                            f"negative value -{int(digits)} (GNU Go would wrap it to "
                            f"{_gnugo_value(sign, digits)})")
    value = int(digits)
    if value >= 1 << 32:
        raise _LocatedError(line, value_col,
                            f"value {value} does not fit in 32 bits (GNU Go would store "
                            f"{_gnugo_value(sign, digits)})")
    if value == UNSET:
        raise _LocatedError(line, value_col,
                            f"value {UNSET} is GNU Go's 'unset' mark and would fill nothing; "
                            f"the largest value is {UNSET - 1}")
    rest_start = m.end()
    if rest_start < len(text) and text[rest_start] not in b", \t\r#":
        raise _LocatedError(line, rest_start + 1,
                            "expected ',' or white space between the value and the keywords")
    hash_at = text.find(b"#", rest_start)
    body_end = len(text) if hash_at < 0 else hash_at
    keywords: list[str] = []
    mask = np.ones(NUM_PROPERTIES, dtype=bool)
    for tok in _TOKEN.finditer(text, rest_start, body_end):
        word = tok.group().decode("latin-1")
        column = tok.start() + 1
        if word not in _KEYWORD_MASKS:
            hint = ""
            if word.lower() in _KEYWORD_MASKS:
                hint = f" (keywords are case-sensitive: {word.lower()!r})"
            raise _LocatedError(line, column, f"unknown keyword {word!r}{hint}; known: "
                                + " ".join(KEYWORDS))
        group = word.rstrip("+-")
        if group[:-1] in ("ocap", "xcap") and group[-1] in "12":
            for other in keywords:
                if other != word and other.rstrip("+-") == group:
                    raise _LocatedError(
                        line, column,
                        f"{word!r} and {other!r} on one line: GNU Go uses only one form "
                        f"of {group} (the first of '+', '-', plain) and ignores the other")
        keywords.append(word)
        mask &= _KEYWORD_MASKS[word]
        if not mask.any():
            raise _LocatedError(line, column,
                                f"{word!r} contradicts the earlier keywords "
                                f"{', '.join(keywords[:-1])}: no move can match this line")
    if hash_at >= 0:
        comment = text[hash_at:]
        for kw in _KEYWORD_BYTES:
            at = comment.find(kw)
            if at >= 0:
                raise _LocatedError(
                    line, hash_at + at + 1,
                    f"the comment contains {kw.decode()!r}, which GNU Go would apply as a "
                    "keyword (it searches the whole line); reword the comment or move it "
                    "to a line of its own")
    # Tokens are now exact keywords with one form per group, so GNU Go's
    # substring search over the line reads the same set.
    return value, _gnugo_keywords(text[:body_end])


def _fill(table: np.ndarray, classes: np.ndarray, props: np.ndarray, value: int) -> int:
    """First match wins: write ``value`` into the still-unset cells; return how many."""
    if classes.size == 0 or props.size == 0 or value == UNSET:
        return 0
    block = table[np.ix_(classes, props)]
    unset = block == UNSET
    count = int(unset.sum())
    if count:
        block[unset] = value
        table[np.ix_(classes, props)] = block
    return count


def _skip_hint(skipped: tuple[int, int]) -> str:
    """What a strict error adds when a line since the last colon line began
    with ``*`` (the centre's symbol, never a row's first byte) or a byte
    outside ASCII (a look-alike of a symbol): GNU Go skipped it as a
    comment, which is why a row is missing or the rows are shifted.
    ``skipped``: (line, first byte), line 0 for none."""
    line, b = skipped
    if not line:
        return ""
    shown = repr(chr(b)) if b < 128 else f"byte 0x{b:02x}"
    return (f" (line {line} starts with {shown}, so GNU Go skips it as a comment: a row "
            "starts with one of . x X o O | + - ? %)")


def _cell_error(line: int, column: int, b: int, skipped: tuple[int, int]) -> _LocatedError:
    """The strict error for byte ``b`` in a diagram cell that holds no symbol
    (``skipped``: as :func:`_skip_hint` takes it)."""
    if b in b"\r\n\0":
        what = "row ends before its third cell"
    else:
        # A byte: one of a UTF-8 character's, named as such.
        shown = repr(chr(b)) if 32 <= b < 127 else f"byte 0x{b:02x}"
        what = f"unknown symbol {shown} in a neighbour cell"
    return _LocatedError(line, column, f"{what} (symbols: {_SYMBOLS_TEXT})" + _skip_hint(skipped))


def _compile_bytes(data: bytes, strict: bool) -> _Compiled:
    """Run GNU Go's loader state machine (§2.6), with strict-mode checks when asked."""
    problems = _strict_line_problems(data) if strict else {}
    table = np.full(TABLE_SHAPE, UNSET, dtype=np.uint32)
    table[0] = 0  # never written by GNU Go, never read: define it as zero (§5.2)
    cells = [0] * 8  # NUL bytes: undefined cells match nothing
    rows = 0  # rows seen since the last colon line
    first_row_line = 0
    seen_diagram = False
    rules: list[Rule] = []
    notes: list[tuple[int, int, str]] = []
    warned_diagram = False
    skipped = (0, 0)   # the last line since the colon line taken for a comment by mistake
    for line, column, piece in _pieces(data):
        if column == 1 and line in problems:
            raise _LocatedError(line, *problems[line])
        first = piece[0]
        if first == ord("*") or first >= 0x80:
            skipped = (line, first)
        if first in _ROW_START:
            if strict and rows >= 3:
                raise _LocatedError(
                    line, column,
                    f"diagram starting on line {first_row_line} already has 3 rows; a colon "
                    "line must follow them (GNU Go would ignore this row)")
            if rows < 3:
                padded = piece + b"\0\0"  # fgets' terminator; nothing follows it
                for pos, k in _ROW_CELLS[rows]:
                    cells[k] = padded[pos]
                    if strict and padded[pos] not in _SYMBOL_STATES:
                        raise _cell_error(line, column + pos, padded[pos], skipped)
                if rows == 0:
                    first_row_line = line
                    warned_diagram = False
            rows += 1
            continue
        if first != ord(":"):
            continue
        if strict:
            if rows not in (0, 3):
                raise _LocatedError(line, column,
                                    f"the diagram before this colon line has {rows} "
                                    f"row{'s' if rows != 1 else ''}; it needs exactly 3"
                                    + _skip_hint(skipped))
            if not seen_diagram and rows == 0:
                raise _LocatedError(line, column,
                                    "colon line before any diagram" + _skip_hint(skipped))
            value, keywords = _strict_colon_line(line, piece)
        else:
            m = _GNUGO_VALUE.match(piece)
            if m is None:
                continue  # GNU Go: not a colon line, so the row counter is not reset
            value = _gnugo_value(m.group(1), m.group(2))
            keywords = _gnugo_keywords(piece)
        if rows:
            seen_diagram = True
        classes = _classes_for(tuple(cells))
        if strict and classes.size == 0 and not warned_diagram:
            warned_diagram = True
            notes.append((first_row_line, 1, "diagram matches no neighbourhood that can "
                          "occur on a board; its colon lines fill nothing"))
        if value > WARN_ABOVE:
            notes.append((line, column, f"value {value} is above {WARN_ABOVE:,}"))
        props = np.flatnonzero(_property_mask(keywords))
        filled = _fill(table, classes, props, value)
        rules.append(Rule(line, value, keywords, _diagram_text(cells), int(classes.size),
                          int(props.size), filled))
        rows = 0
        skipped = (0, 0)
    if strict and rows:
        raise _LocatedError(first_row_line, 1, "diagram without a colon line")
    table[1:][table[1:] == UNSET] = DEFAULT_VALUE
    table.flags.writeable = False
    return _Compiled(table, tuple(rules), tuple(notes))


@functools.lru_cache(maxsize=64)
def _compile_cached(data: bytes, strict: bool) -> _Compiled:
    return _compile_bytes(data, strict)


def _as_bytes(text: str | bytes, filename: str, strict: bool) -> bytes:
    """``text``'s bytes: Latin-1, else UTF-8 (lone surrogates from bytes
    decoded with ``surrogateescape`` back to those bytes).  Raises
    :class:`PatternSyntaxError` at another surrogate, which no encoding
    writes, or (``strict``) at an earlier problem of the text."""
    if isinstance(text, (bytes, bytearray, memoryview)):
        return bytes(text)
    if not isinstance(text, str):
        raise TypeError(f"pattern text must be str or bytes, not {type(text).__name__}")
    try:
        return text.encode("latin-1")
    except UnicodeEncodeError:
        pass
    try:
        # Characters beyond Latin-1 can only sit in comments of a valid file;
        # UTF-8 is what a text editor would have written for them.
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:
        at = exc.start
    # The characters before ``at`` encode: the first failure is at ``at``.
    start = text.rfind("\n", 0, at) + 1
    where = (text.count("\n", 0, at) + 1,
             len(text[start:at].encode("utf-8", "surrogateescape")) + 1)
    if strict:
        # The first problem of the text: one before the surrogate wins.
        try:
            _compile_bytes(text.encode("utf-8", "surrogatepass"), True)
        except _LocatedError as err:
            if (err.line, err.column) < where:
                raise PatternSyntaxError(filename, err.line, err.column, err.message) from None
    raise PatternSyntaxError(filename, *where, f"surrogate code point U+{ord(text[at]):04X} "
                             "(half of a UTF-16 pair, no character): the text cannot be "
                             "encoded, so no file holds it")


def compile_db(data: str | bytes, *, strict: bool = True, filename: str = "<string>",
               cache: bool = True) -> tuple[npt.NDArray[np.uint32], tuple[Rule, ...]]:
    """Compile ``.db`` text to its value table.

    Args:
        data: the file content; ``bytes`` as read from disk, or ``str`` (encoded
            as Latin-1, or UTF-8 if it has characters beyond Latin-1; lone
            surrogates of ``surrogateescape`` back to their bytes).
        strict: strict mode (default) or GNU Go compatibility mode (``False``);
            see the module docstring.
        filename: name used in error and warning messages.
        cache: reuse the result of an earlier compilation of the same bytes
            (the table is read-only, so sharing it is safe).

    Returns:
        ``(table, rules)``: a read-only, C-contiguous ``uint32[1108, 256]``
        (row 0 all zero) and one :class:`Rule` per colon line in file order.

    Raises:
        PatternSyntaxError: strict mode only, at the first problem in the
            file; in both modes, ``str`` text with another lone surrogate
            (no file can hold it).
        TypeError: ``data`` is neither ``str`` nor ``bytes``, or ``strict``
            is not a bool (``strict="no"`` would have been taken as true).

    Warns:
        PatternWarning: values above 10,000,000; in strict mode also diagrams
        that match no neighbourhood that can occur on a board.
    """
    if not isinstance(strict, (bool, np.bool_)):
        raise TypeError(f"strict must be True or False, not {strict!r}")
    strict = bool(strict)
    raw = _as_bytes(data, filename, strict)
    try:
        compiled = _compile_cached(raw, strict) if cache else _compile_bytes(raw, strict)
    except _LocatedError as err:
        raise PatternSyntaxError(filename, err.line, err.column, err.message) from None
    for line, column, message in compiled.warnings:
        warnings.warn(f"{filename}:{line}:{column}: {message}", PatternWarning, stacklevel=3)
    return compiled.table, compiled.rules


# ---------------------------------------------------------------------------
# Local contexts from a Board (§4)
# ---------------------------------------------------------------------------


def _color_code(board: Any, color: Any) -> int:
    """GNU Go colour code (WHITE 1, BLACK 2) for ``color``; ``None`` = side to move."""
    if color is None:
        return int(board.to_move_code)
    from fastplay.board import parse_color  # needs the compiled core: import late

    return parse_color(color)


def _flat_vertex(size: int, vertex: Any) -> int:
    """Flat index ``row * size + col`` (row 0 = top) of a GTP string, tuple or int.

    Raises:
        ValueError: a pass; ``InvalidVertexError`` (a ValueError) for a bad or
            off-board vertex.
    """
    from fastplay.board import parse_vertex

    index = parse_vertex(vertex, size)
    if index < 0:
        raise ValueError("a pass has no local context")
    return index


@dataclass(frozen=True)
class LocalContexts:
    """Every point's local context for one colour, as ``(size, size)`` arrays.

    Row 0 is the top row as printed.  Fields with ``-1`` on stones are
    ``int64``; flags are ``bool`` and ``False`` on stones.

    Attributes:
        color: the side valued, a :class:`~fastplay.Color` (GNU Go code: 1 White, 2 Black).
        empty: ``bool``, the point is empty.
        code: ``int64``, the 16-bit neighbourhood code in the mover's view
            (§4.1: 1 own, 2 opponent, 3 off-board), ``-1`` on stones.
        geometry: ``int64``, geometry class 1..1107, ``-1`` on stones.
        near: ``bool``, the near bit used in the property byte.
        ocap, xcap: ``int64`` capture counts 0..3 (mover captures / opponent
            would capture the mover's stones), ``-1`` on stones.
        o_self_atari, x_self_atari, o_suicide, x_suicide: ``bool``, §4.3.
        properties: ``int64`` property byte 0..255 (§4.2), ``-1`` on stones.
        index: ``int64`` table index ``geometry * 256 + properties``, ``-1`` on stones.
        legal: ``bool``, empty, not the mover's suicide, not the ko point
            forbidden to the mover.
    """

    __eq__ = fields_equal

    color: Color
    empty: np.ndarray
    code: np.ndarray
    geometry: np.ndarray
    near: np.ndarray
    ocap: np.ndarray
    xcap: np.ndarray
    o_self_atari: np.ndarray
    x_self_atari: np.ndarray
    o_suicide: np.ndarray
    x_suicide: np.ndarray
    properties: np.ndarray
    index: np.ndarray
    legal: np.ndarray


def _near_bits(board: Any, code: int, near: bool | npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """:func:`local_contexts`'s near flags, flat ``bool[size*size]``, for
    the colour ``code``."""
    size = int(board.size)
    if isinstance(near, np.bool_):
        near = bool(near)
    elif np.ndim(near) == 0 and not isinstance(near, bool):
        raise ValueError(f"near must be True, False or an array, not {shown_value(near)}")
    if near is True:
        if code == int(board.to_move_code):
            return np.asarray(board.near_mask()).reshape(-1).astype(bool)
        return np.zeros(size * size, dtype=bool)
    if near is False:
        return np.zeros(size * size, dtype=bool)
    given = np.asarray(near)
    if given.dtype != bool and (given.dtype.kind not in "iuf"
                                or not np.isin(given, (0, 1)).all()):
        raise ValueError("near must be True, False or an array of booleans (or of 0 and 1)")
    bits = given.astype(bool).reshape(-1)
    if bits.size != size * size:
        raise ValueError(f"near mask has {bits.size} entries, expected {size * size}")
    return bits


def local_contexts(board: Any, color: Any = None, near: bool | npt.ArrayLike = True
                   ) -> LocalContexts:
    """Decode the board's GNU Go contexts into per-point arrays (§4, oracle README).

    Args:
        board: a :class:`fastplay.Board` (anything with the core methods
            ``contexts()``, ``near_mask()``, ``ko_index``, ``ko_forbidden_for()``,
            ``to_move_code`` and ``size``).
        color: the side to value, a :class:`~fastplay.Color` or ``"B"``/``"W"``; ``None``
            is the side to move.
        near: ``True`` takes the near flags from the board (the points GNU Go
            updated after the last move, §6.3); they describe the side to move,
            so another ``color`` gets none.  ``False`` clears them.  A
            ``bool[size, size]`` (or flat ``bool[size*size]``) array gives them
            explicitly.

    Returns:
        :class:`LocalContexts`, arrays of shape ``(size, size)``.

    Raises:
        TypeError: ``board`` is not a fastplay board, ``near`` is neither a
            bool nor an array.
        ValueError: a bad colour, or a ``near`` array of the wrong size or
            with values other than booleans, 0 and 1 (a NaN, a 2).
    """
    from fastplay._core import CoreBoard  # needs the compiled core: import late

    if not isinstance(board, CoreBoard):
        raise TypeError(f"board must be a fastplay.Board, not {type(board).__name__}")
    if isinstance(near, (str, bytes)) or near is None:
        raise TypeError(f"near must be True, False or a bool array, not {near!r}")
    size = int(board.size)
    code = _color_code(board, color)
    ctx = np.asarray(board.contexts(), dtype=np.int64).reshape(-1)
    empty = ctx >= 0
    c = np.where(empty, ctx, 0)
    g = c & 0xFFFF
    if code == _BLACK:
        g = _swap_colours(g)
        ocap, xcap = (c >> 18) & 3, (c >> 16) & 3
        osa, xsa = (c >> 21) & 1, (c >> 20) & 1
        osu, xsu = (c >> 23) & 1, (c >> 22) & 1
    else:
        ocap, xcap = (c >> 16) & 3, (c >> 18) & 3
        osa, xsa = (c >> 20) & 1, (c >> 21) & 1
        osu, xsu = (c >> 22) & 1, (c >> 23) & 1
    legal = empty & (osu == 0)
    ko = int(board.ko_index)
    if ko >= 0 and board.ko_forbidden_for(code):
        legal[ko] = False
    near_bits = _near_bits(board, code, near) & empty
    geometry = geometry_table()[g].astype(np.int64)
    props = (near_bits.astype(np.int64) | (xcap << 1) | (ocap << 3) | (xsa << 5)
             | (osa << 6) | (xsu << 7))
    index = (geometry << 8) | props
    neg = ~empty

    def fld(a: np.ndarray) -> np.ndarray:
        out: np.ndarray = np.where(neg, -1, a).reshape(size, size)
        return out

    def flag(a: np.ndarray) -> np.ndarray:
        out: np.ndarray = ((a != 0) & empty).reshape(size, size)
        return out

    return LocalContexts(
        color=Color(code), empty=empty.reshape(size, size), code=fld(g), geometry=fld(geometry),
        near=flag(near_bits), ocap=fld(ocap), xcap=fld(xcap), o_self_atari=flag(osa),
        x_self_atari=flag(xsa), o_suicide=flag(osu), x_suicide=flag(xsu),
        properties=fld(props), index=fld(index), legal=legal.reshape(size, size))


@dataclass(frozen=True)
class MoveContext:
    """The local context and value of one move (see :meth:`PatternDatabase.context`).

    Attributes:
        vertex: flat index ``row * size + col`` (row 0 = top).
        color: the side valued, a :class:`~fastplay.Color` (equal to ``"B"``/``"W"``).
        code: 16-bit neighbourhood code in the mover's view (§4.1).
        geometry: class 1..1107 (§5.1).
        near, ocap, xcap, o_self_atari, x_self_atari, o_suicide, x_suicide:
            the properties of §4.2-§4.3 (counts capped at 3).
        properties: the property byte 0..255.
        index: ``geometry * 256 + properties``, the flat table index.
        value: the table entry at ``index`` (what the move weighs if legal).
        legal: not the mover's suicide and not a forbidden ko recapture.
    """

    vertex: int
    color: Color
    code: int
    geometry: int
    near: bool
    ocap: int
    xcap: int
    o_self_atari: bool
    x_self_atari: bool
    o_suicide: bool
    x_suicide: bool
    properties: int
    index: int
    value: int
    legal: bool


# ---------------------------------------------------------------------------
# PatternDatabase
# ---------------------------------------------------------------------------

#: GNU Go 3.8's own databases (spec section 9), bit for bit.
GNUGO_BUILTINS: Final = ("mc_montegnu_classic", "mc_mogo_classic", "mc_uniform")
#: Databases made by ``fastplay tune`` and shipped (``patterns/``, where each
#: file's header names the command that makes it again, byte for byte).
#: ``mc_fastplay_9x9``: montegnu reweighted by simulation balancing against
#: Pachi 12.90's values of 1,360 9x9 positions; +51 Elo over montegnu in
#: fastplay's search, no measured gain inside GNU Go or against other
#: engines (benchmarks/RESULTS.md, "Balanced against Pachi's values").
TUNED_BUILTINS: Final = ("mc_fastplay_9x9",)
_BUILTINS: Final = GNUGO_BUILTINS + TUNED_BUILTINS


def _builtin_source(name: str) -> tuple[bytes, Path | None]:
    """Bytes and path of a built-in ``.db``: package data, else the repository's ``patterns/``."""
    filename = f"{name}.db"
    try:
        resource = importlib.resources.files("fastplay") / "patterns" / filename
        if resource.is_file():
            path = Path(str(resource)) if isinstance(resource, Path) else None
            return resource.read_bytes(), path
    except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError):
        pass
    # Editable installs and source checkouts: setup.py only copies the files
    # into the package when it builds a wheel.
    path = Path(__file__).resolve().parents[2] / "patterns" / filename
    if not path.is_file():
        raise FileNotFoundError(f"built-in pattern database {filename} is missing "
                                f"(looked in the fastplay package and in {path.parent})")
    return path.read_bytes(), path


class PatternDatabase:
    """A compiled Monte Carlo pattern database: a ``uint32[1108, 256]`` value table.

    Build one with :meth:`builtin`, :meth:`default`, :meth:`from_file`,
    :meth:`from_string`, or directly from a table.  Instances are immutable.

    Args:
        table: array-like of shape ``(1108, 256)`` with values in 0..2^32-1,
            indexed ``[geometry class, property byte]``.  Row 0 is never read.
        name: a label.
        source: the ``.db`` file it came from, if any.
        rules: the colon lines it was compiled from, if any.

    Raises:
        ValueError: wrong shape or values outside uint32.
    """

    __slots__ = ("_name", "_table", "_source", "_rules", "_flat")

    def __init__(self, table: npt.ArrayLike, *, name: str = "custom",
                 source: StrPath | None = None, rules: tuple[Rule, ...] = ()) -> None:
        if isinstance(table, (str, bytes, PathLike)):
            raise TypeError(f"PatternDatabase takes a value table, not a file name "
                            f"({shown_value(table)}): PatternDatabase.from_file(path) loads "
                            "a .db file, PatternDatabase.builtin(name) a built-in one")
        arr = np.asarray(table)
        if arr.shape != TABLE_SHAPE:
            raise ValueError(f"table must have shape {TABLE_SHAPE}, not {arr.shape}")
        if arr.dtype != np.uint32:
            if arr.size and (np.any(arr < 0) or np.any(arr > UNSET)
                             or not np.all(np.equal(np.mod(arr, 1), 0))):
                raise ValueError("table values must be integers in 0..4294967295")
            arr = arr.astype(np.uint32)
        if arr.flags.writeable or not arr.flags.c_contiguous:
            arr = np.ascontiguousarray(arr).copy()
            arr.flags.writeable = False
        self._table = arr
        self._flat = arr.reshape(-1)
        self._name = str(name)
        self._source = None if source is None else Path(source)
        self._rules = tuple(rules)

    # -- construction -------------------------------------------------------

    @staticmethod
    def names() -> list[str]:
        """Names of the built-in databases: the default (``mc_montegnu_classic``)
        first, GNU Go's three (:data:`GNUGO_BUILTINS`), then fastplay's tuned
        ones (:data:`TUNED_BUILTINS`)."""
        return list(_BUILTINS)

    @classmethod
    def builtin(cls, name: str = "mc_montegnu_classic") -> PatternDatabase:
        """One of the built-in databases of spec §9.

        Args:
            name: ``mc_montegnu_classic``, ``mc_mogo_classic``, ``mc_uniform``
                (GNU Go's) or ``mc_fastplay_9x9`` (tuned by fastplay); the
                names without ``mc_`` (GNU Go's command-line spelling) are
                accepted too.

        Returns:
            The database (the same object on every call: it is immutable and
            compiled once per process).

        Raises:
            ValueError: an unknown name (the message lists the names).
            TypeError: ``name`` is not a ``str``.
            FileNotFoundError: the installation lacks the ``.db`` file.
        """
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, not {type(name).__name__}")
        key = name.strip()
        if key.endswith(".db"):
            key = key[:-3]
        if not key.startswith("mc_"):
            key = "mc_" + key
        if key not in _BUILTINS:
            raise ValueError(f"unknown pattern database {name!r}; built-ins: "
                             + ", ".join(_BUILTINS)
                             + " (GNU Go spellings without 'mc_' work too)")
        return cls._builtin(key)

    @classmethod
    @functools.cache
    def _builtin(cls, key: str) -> PatternDatabase:
        data, path = _builtin_source(key)
        table, rules = compile_db(data, strict=True, filename=f"{key}.db")
        return cls(table, name=key, source=path, rules=rules)

    @classmethod
    def default(cls) -> PatternDatabase:
        """GNU Go's default database, ``mc_montegnu_classic``."""
        return cls.builtin(_BUILTINS[0])

    @classmethod
    def from_file(cls, path: StrPath | bytes, *, strict: bool = True, name: str | None = None
                  ) -> PatternDatabase:
        """Load and compile a ``.db`` file (read as bytes: any encoding works).

        Args:
            path: the file (``bytes`` as ``open`` takes them).
            strict: ``True`` (default) raises on accidental syntax; ``False``
                is GNU Go compatibility mode (see the module docstring).
            name: label; defaults to the file name without ``.db``.

        Raises:
            OSError: the file cannot be read (GNU Go fails the same way).
            PatternSyntaxError: strict mode, malformed file.
            TypeError: ``path`` is no path (``os.fsdecode`` refuses it).

        Warns:
            PatternWarning: as :func:`compile_db`; also a file with no pattern
                at all (every move then gets the default value, as under
                ``mc_uniform``).  GNU Go's loader skips lines it does not
                know, so an SGF file, prose or an empty file loads in both
                modes; one with no pattern is more likely the wrong file.
        """
        data = read_input(path, "pattern database")    # an empty path is no folder
        p = Path(os.fsdecode(path))
        table, rules = compile_db(data, strict=strict, filename=str(p))
        if not rules:
            warnings.warn(f"{p}: no pattern: every move gets the default value "
                          "(is it a .db file?)", PatternWarning, stacklevel=2)
        return cls(table, name=p.stem if name is None else name, source=p, rules=rules)

    @classmethod
    def from_string(cls, text: str | bytes, *, name: str = "<string>", strict: bool = True
                    ) -> PatternDatabase:
        """Compile ``.db`` text given in memory.

        Args:
            text: ``str`` (encoded as Latin-1, or UTF-8 beyond Latin-1) or ``bytes``.
            name: label, also used as the file name in error messages.
            strict: as in :meth:`from_file`.

        Raises:
            PatternSyntaxError: strict mode, malformed text.
            TypeError: ``text`` is neither ``str`` nor ``bytes``, or ``name`` is no ``str``.
        """
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, not {type(name).__name__}")
        table, rules = compile_db(text, strict=strict, filename=name)
        return cls(table, name=name, rules=rules)

    # -- properties ---------------------------------------------------------

    @property
    def name(self) -> str:
        """The database's label, e.g. ``"mc_montegnu_classic"``."""
        return self._name

    @property
    def table(self) -> npt.NDArray[np.uint32]:
        """Read-only, C-contiguous ``uint32[1108, 256]`` indexed ``[class, property byte]``."""
        return self._table

    @property
    def source(self) -> Path | None:
        """The ``.db`` file the table came from (``None`` for text or tables)."""
        return self._source

    @property
    def rules(self) -> tuple[Rule, ...]:
        """The colon lines the table was compiled from, in file order."""
        return self._rules

    def sha256(self, *, skip_row0: bool = False) -> str:
        """SHA-256 hex digest of the little-endian table bytes (spec §5.4 checkpoints)."""
        t = self._table[1:] if skip_row0 else self._table
        return hashlib.sha256(t.astype("<u4", copy=False).tobytes()).hexdigest()

    def __repr__(self) -> str:
        src = f", source={str(self._source)!r}" if self._source is not None else ""
        return f"PatternDatabase(name={self._name!r}{src}, rules={len(self._rules)})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PatternDatabase):
            return NotImplemented
        return bool(np.array_equal(self._table, other._table))

    def __hash__(self) -> int:
        return hash(self.sha256())

    # -- evaluation ---------------------------------------------------------

    def move_values(self, board: Any, color: Any = None, near: bool | npt.ArrayLike = True
                    ) -> npt.NDArray[np.uint32]:
        """The weight of every point for ``color``, as GNU Go's playout sampler sees it.

        Args:
            board: a :class:`fastplay.Board`.
            color: a :class:`~fastplay.Color` or ``"B"``/``"W"``; ``None`` (default) is
                the side to move.
            near: as in :func:`local_contexts` (``True``: the board's near
                flags, which exist for the side to move after a non-pass move).

        Returns:
            ``uint32[size, size]`` (row 0 = top): the table value, and 0 on
            stones, on the mover's suicide points and on a ko point forbidden
            to the mover.
        """
        from fastplay._core import CoreBoard
        from fastplay.montecarlo import _engine

        if color is None and near is True and isinstance(board, CoreBoard):
            # The defaults, which a tree search asks for at every new node:
            # the playout engine computes them in one pass (the same values;
            # tests/test_patterns_oracle.py checks both ways against GNU Go).
            size = int(board.size)
            return _engine(self).move_values(board).reshape(size, size)
        lc = local_contexts(board, color, near)
        idx = np.where(lc.legal, lc.index, 0)
        return np.where(lc.legal, self._flat[idx], np.uint32(0)).astype(np.uint32, copy=False)

    def context(self, board: Any, vertex: Any, color: Any = None,
                near: bool | npt.ArrayLike = True) -> MoveContext:
        """The local context and value of one move, for research and debugging.

        Args:
            board: a :class:`fastplay.Board`.
            vertex: GTP string (``"D4"``), ``(row, col)`` with row 0 at the top,
                or flat index.
            color: a :class:`~fastplay.Color` or ``"B"``/``"W"``; ``None`` is the side to
                move.
            near: as in :meth:`move_values`.

        Returns:
            :class:`MoveContext`; ``value`` is the table entry even when the
            move is illegal (check ``legal``).

        Raises:
            ValueError: a pass, a bad or off-board vertex, an occupied point,
                or a bad colour.
        """
        lc = local_contexts(board, color, near)
        v = _flat_vertex(int(board.size), vertex)
        r, c = divmod(v, int(board.size))
        if not lc.empty[r, c]:
            raise ValueError(f"vertex {vertex!r} is occupied: only empty points have a context")
        index = int(lc.index[r, c])
        return MoveContext(
            vertex=v, color=Color(lc.color), code=int(lc.code[r, c]),
            geometry=int(lc.geometry[r, c]), near=bool(lc.near[r, c]),
            ocap=int(lc.ocap[r, c]), xcap=int(lc.xcap[r, c]),
            o_self_atari=bool(lc.o_self_atari[r, c]), x_self_atari=bool(lc.x_self_atari[r, c]),
            o_suicide=bool(lc.o_suicide[r, c]), x_suicide=bool(lc.x_suicide[r, c]),
            properties=int(lc.properties[r, c]), index=index, value=int(self._flat[index]),
            legal=bool(lc.legal[r, c]))
