"""SGF in and out for :class:`fastplay.Board`, through sgfmill.

fastplay does not parse SGF itself: `sgfmill <https://mjw.woodcraft.me.uk/sgfmill/>`_
tokenises the file, expands compressed point lists (``AB[dd:ef]``) and reads
point values; this module only decides what the properties *mean* for a board
and reports problems as :class:`SGFError`.

Reading (:func:`load_board`)
----------------------------
Only the main line (the first variation at every branch) is read.  Node ``0``
is the root; "move ``m``" counts the ``B``/``W`` properties of the main line
from 1, passes included (the same count as :attr:`Board.move_number` when the
record has no setup after its first move).

* ``GM``: absent or ``1`` (Go); anything else raises :class:`SGFError`.
* ``SZ``: ``N`` or the square ``N:N`` form; absent means 19.  Sizes outside
  ``2..25`` (fastplay's boards) and non-square boards raise :class:`SGFError`.
* ``KM``: a real number sets :attr:`Board.komi`.  Absent -> the board's
  default (7.5) silently; present but empty or unparseable -> an
  :class:`SGFWarning` and the default 7.5 as well.
* ``HA``: an integer is kept as metadata (``board.sgf_properties["HA"]``); it
  places no stones -- the stones come from ``AB``, as every record in GNU Go's
  regression set writes them.  Text that is not an integer -> :class:`SGFWarning`,
  ignored.
* ``AB``/``AW``/``AE`` (setup) in the root or any later node, compressed point
  lists included; a point may appear in only one of them per node (FF[4]).
  Setup places stones without captures; a setup that leaves a string without
  liberties raises :class:`SGFError`.  Setup before the first move builds the
  starting position.  Setup *after* moves (GNU Go's records use it to remove
  dead stones at the end of a game) goes through :meth:`Board.setup`, which
  starts a new history and clears the ko point and the prisoner counts:
  :attr:`Board.history`, :meth:`Board.undo` and :func:`board_to_sgf` then
  begin at that position, while ``move_number`` in :func:`load_board` still
  counts every move of the record.
* Properties of one node are applied in the order written (as GNU Go does),
  so ``B[tt]AE[..]`` passes first and then removes stones.
* ``PL``: ``B``/``W``; ``1``/``2`` are read as Black/White too, because a bad
  comment in the FF[3] definition made some programs (Cgoban 1) write colours
  that way.  Without ``PL`` the side to move is the colour of the first move;
  a record without moves starts with Black, or White when it has only black
  setup stones and ``HA`` >= 2.  Any colour may move in any node (GTP-style).
  A ``PL`` after the last move sets the side to move of the loaded board.
* ``B``/``W``: a point, or a pass written ``[]`` or (on boards up to 19x19)
  ``[tt]``.  A node holding both ``B`` and ``W`` (FF[4] forbids it, but
  real records end with ``B[tt]W[tt]``) plays both, in the order written.
* FF[3] long property names with lower-case letters (``GaMe``, ``SiZe``,
  ``Black``): sgfmill drops the lower-case letters, as FF[3] defines, so they
  read as ``GM``, ``SZ``, ``B``.
* An illegal move (occupied point, suicide, ko, superko under the board's
  rules) raises :class:`SGFError` naming the node, the move number, the vertex
  in GTP form and the rule, chained from the board's ``IllegalMoveError``.

Writing (:func:`board_to_sgf`)
------------------------------
FF[4], ``CA[UTF-8]``, ``SZ``, ``KM``, ``HA`` (see :func:`board_to_sgf`), the
other root properties that were loaded (players, result, date...), the
starting position as ``AB``/``AW``, ``PL`` when the starting position has
stones or White moves first, then one node per move of :attr:`Board.history`
(and a last ``PL`` node when the side to move is not the one the turn order
gives).  Passes are written ``[]`` (FF[4]) on every size; ``[tt]`` is only
read.  What is written loads the same in sgfmill and in KaTrain's reader
(``pysgf``); the tests check both.  Two deviations are pysgf's own: it cuts
a text value at an escaped ``]`` followed by ``[``, and its side to move
ignores a ``PL`` node after the moves.

Source and charset
------------------
``bytes`` are SGF data.  A ``str`` is SGF text when it contains ``(;`` (or
``(`` and ``;`` with blanks between) or starts with ``(``: text before the
game, such as the mail header of GNU Go's ``ego2.sgf``, is skipped.  Any
other ``str`` and any path-like is a file name, and so is a ``str`` that
starts with ``(`` without ``(;`` when a file of that name exists (``"(2023)
game.sgf"``; a directory is refused as one).  Bytes (from a file or
given) are decoded with the first game's root ``CA``; without ``CA``, UTF-8
when the data starts with a byte-order mark, else the ``encoding`` argument
of :func:`load_board`, else ISO-8859-1 (the FF[4] default).  A record in a
charset whose second bytes can be ``\\`` or ``]`` (Shift_JIS, Big5, GBK;
GB2312 labels are read as GBK), unless its bytes are valid UTF-8, or in
UTF-16/32 (by a byte-order mark or the NULs beside its first ``(``) is
decoded whole before it is parsed, as sgfmill parses bytes.  A ``str`` is
already text: ``CA`` and ``encoding`` do not apply to it.

Metadata lives in :attr:`Board.sgf_properties` (``dict[str, str]``, copied
by :meth:`Board.copy`): every root property that the board does not hold
itself -- ``HA`` (as a validated integer), ``PB``, ``PW``, ``RE``, ``RU``,
``C``, ``DT``... -- decoded to ``str``:

* Text and SimpleText properties (:data:`TEXT_PROPERTIES`: ``C``, ``GC``,
  ``PB``, ``PW``, ``RE``, ``GN``, ``DT``...) hold their *text*: escapes
  removed, as FF[4] reads them (``C[a\\]b]`` -> ``"a]b"``; a backslash before
  a line break is a soft break and disappears; line breaks become ``"\n"``,
  other white space a space; in SimpleText line breaks become spaces too).
  A record that repeats one (``ego2.sgf`` has two ``PB``; FF[4] forbids
  it) reads as one text with a line break between the values (so a space
  in SimpleText): ``"FSF (GNU Go 3.1.30) ego"``.
* Any other property (numbers, points, ``AP``'s composed value, unknown
  private properties) keeps its SGF value as written, several values joined
  by ``"]["``.

``GM``, ``FF``, ``CA``, ``SZ``, ``KM``, ``AB``, ``AW``, ``AE``, ``PL``, ``B``
and ``W`` are not kept there: the board itself says what they say.

Writing escapes the text of Text and SimpleText properties (``]`` and ``\\``,
nothing else), so any text round-trips: ``]``, backslashes, line breaks and
non-ASCII included.  What FF[4] cannot hold is normalised before it is
written, so that every reader sees the same text: line breaks to ``"\n"``
(SimpleText: to a space) and tabs, form feeds and vertical tabs to spaces.
Other values are written as they are; one that is not a valid SGF value (an
unescaped ``]``) is written escaped, as text.
"""

from __future__ import annotations

import codecs
import decimal
import math
import os
import re
import sys
import types
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

# sgfmill has no type hints: its results get their types where they enter
# fastplay (an annotated local), so no Any leaks out of this module.
from sgfmill import common, sgf, sgf_grammar, sgf_properties

from fastplay._board import MAX_KOMI as BOARD_MAX_KOMI
from fastplay.color import Color
from fastplay.inputfile import read_input
from fastplay.shown import quoted

if TYPE_CHECKING:  # pragma: no cover - typing only; board imports us lazily
    from fastplay.board import Board

__all__ = ["SGFError", "SGFWarning", "MoveNumberError", "board_to_sgf", "load_board",
           "record_moves", "opening_moves", "TEXT_PROPERTIES", "MAX_NODES",
           "check_nodes", "escape_text", "unescape_text"]

MIN_SIZE = 2
MAX_SIZE = 25
DEFAULT_SIZE = 19

# Root properties that load_board interprets itself and board_to_sgf rewrites
# from the board; everything else in the root is carried through as metadata.
_STRUCTURAL = frozenset({"GM", "FF", "CA", "SZ", "KM", "HA", "AB", "AW", "AE", "PL", "B", "W"})
# A value with several parts is stored as they are written: "a][b".
_VALUE_SEP = "]["
_SETUP = ("AB", "AW", "AE")

#: FF[4] properties of type Text (line breaks are part of the text).
_TEXT = frozenset({"C", "GC"})
#: FF[4] properties of type SimpleText (line breaks read as spaces).
_SIMPLE_TEXT = frozenset({"AN", "BR", "BT", "CP", "DT", "EV", "GN", "N", "ON", "OT", "PB",
                          "PC", "PW", "RE", "RO", "RU", "SO", "US", "WR", "WT"})
#: The properties whose :attr:`Board.sgf_properties` value is text, not SGF.
TEXT_PROPERTIES = _TEXT | _SIMPLE_TEXT

# A str holding SGF: the start of a game tree anywhere in it.
_GAME_START = re.compile(r"\(\s*;")
_GAME_START_BYTES = re.compile(rb"\(\s*;")
_LINE_BREAK = re.compile(r"\r\n|\n\r|\r|\n")
_OTHER_SPACE = str.maketrans("\t\f\v", "   ")


class SGFError(ValueError):
    """An SGF record that cannot be read or replayed.

    Attributes (``None`` when they do not apply):

    * ``node`` -- index of the offending node on the main line (0 = root);
    * ``move_number`` -- 1-based number of the offending move;
    * ``vertex`` -- the move's vertex in GTP form (``"D4"``);
    * ``rule`` -- the board rule an illegal move breaks (``IllegalMoveError.rule``).
    """

    def __init__(
        self,
        message: str,
        *,
        node: int | None = None,
        move_number: int | None = None,
        vertex: str | None = None,
        rule: str | None = None,
    ) -> None:
        where = []
        if node is not None:
            where.append(f"node {node}")
        if move_number is not None:
            where.append(f"move {move_number}")
        text = f"{', '.join(where)}: {message}" if where else message
        super().__init__(text)
        self.node = node
        self.move_number = move_number
        self.vertex = vertex
        self.rule = rule


class SGFWarning(UserWarning):
    """A property that carries no usable value and is ignored (e.g. ``KM[]``)."""


# ---------------------------------------------------------------------------
# reading


def escape_text(text: str) -> str:
    """The SGF value of ``text`` (Text or SimpleText), without the brackets.

    Only ``\\`` and ``]`` are escaped (FF[4] section 3.2), which every reader
    undoes; ``unescape_text(escape_text(t)) == t`` for any ``t`` without
    carriage returns, tabs, form feeds or vertical tabs (FF[4] turns those
    into ``"\\n"`` or spaces when it reads them).
    """
    return text.replace("\\", "\\\\").replace("]", "\\]")


def unescape_text(value: str, *, simple: bool = False) -> str:
    """The text an SGF Text value (``simple``: SimpleText) stands for, as FF[4]
    reads it: ``\\x`` -> ``x``, a backslash before a line break is a soft
    break and disappears, line breaks become ``"\\n"`` (``simple``: a space)
    and tabs, form feeds and vertical tabs a space.  Same as sgfmill."""
    raw = value.encode("utf-8")
    interpret = sgf_grammar.simpletext_value if simple else sgf_grammar.text_value
    text: bytes = interpret(raw)
    return text.decode("utf-8")


def _normalise_text(text: str, simple: bool) -> str:
    """``text`` as FF[4] can hold it, so every reader reads the same thing."""
    text = _LINE_BREAK.sub(" " if simple else "\n", text)
    return text.translate(_OTHER_SPACE)


def _split_values(joined: str) -> list[str] | None:
    """Split a raw ``a][b`` value list at its unescaped ``][``; None when a
    part is not a valid raw SGF value (an unescaped ``]`` elsewhere, or a
    trailing backslash)."""
    parts: list[str] = []
    start = 0
    i = 0
    n = len(joined)
    while i < n:
        ch = joined[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "]":
            if joined.startswith(_VALUE_SEP, i):
                parts.append(joined[start:i])
                i += len(_VALUE_SEP)
                start = i
                continue
            return None
        i += 1
    if i > n:  # ends with an unescaped backslash
        return None
    parts.append(joined[start:])
    return parts


def _is_sgf_text(text: str) -> bool:
    """Whether a ``str`` source is SGF text rather than a file name (the
    module docstring's rule)."""
    if _GAME_START.search(text):
        return True
    if not text.lstrip("\ufeff \t\r\n").startswith("("):
        return False
    try:
        return not Path(text).exists()   # a directory is told it is one
    except (OSError, ValueError):     # a name no file system takes (NUL, too long)
        return True


def _read_source(path_or_text: str | os.PathLike[str] | bytes) -> tuple[bytes, bool]:
    """Return the SGF bytes and whether they came from a ``str`` (UTF-8, and
    already text: its ``CA`` does not apply).

    ``bytes`` are SGF content; a ``str`` is SGF text or a file name (see the
    module docstring); any other path-like is a file name (its ``OSError``
    propagates; a directory or an empty string is an :class:`SGFError`).
    """
    if isinstance(path_or_text, (bytes, bytearray, memoryview)):
        return bytes(path_or_text), False
    if isinstance(path_or_text, str):
        if _is_sgf_text(path_or_text):
            try:
                return path_or_text.lstrip("\ufeff").encode("utf-8"), True
            except UnicodeEncodeError as exc:
                raise SGFError(f"the SGF text holds a character no encoding can write "
                               f"({path_or_text[exc.start]!r}, a lone surrogate, at "
                               f"character {exc.start})") from None
        if not path_or_text.strip("\ufeff \t\r\n"):
            raise SGFError("no SGF data: the text is empty")
    if isinstance(path_or_text, (str, os.PathLike)):
        path = Path(path_or_text)
        if "\0" in str(path):
            raise SGFError(f"no SGF file can be named {str(path)!r}: the name holds a NUL "
                           f"character")
        if path.is_dir():
            raise SGFError(f"{path} is a directory, not an SGF file")
        return read_input(path, "SGF file"), False
    raise TypeError(
        f"expected SGF text, bytes or a path, got {type(path_or_text).__name__}"
    )


def _check_encoding(encoding: str | None) -> None:
    if encoding is None:
        return
    if not isinstance(encoding, str):
        raise TypeError(f"encoding must be a str or None, not {type(encoding).__name__}")
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise LookupError(f"unknown encoding {encoding!r}") from None


#: Most nodes (``;``) a record may have.  sgfmill keeps about 900 bytes a
#: node while it parses (a record of 2 million passes, 8 MiB, took 1.8 GB),
#: so the byte bound of :func:`fastplay.inputfile.read_input` alone does not
#: bound memory; 250,000 nodes is about 230 MB, and far more than a game or
#: a commented collection of variations holds.
MAX_NODES = 250_000
# A property value, escapes included: a ";" inside one is text, not a node.
_PROPERTY_VALUE = re.compile(rb"\[(?:[^\]\\]|\\.)*\]", re.S)


def check_nodes(data: bytes, source: str = "SGF") -> None:
    """Raise :class:`SGFError` when ``data`` has more than :data:`MAX_NODES`
    nodes (``;`` outside property values), before any parser builds them;
    ``source`` names the record in the message."""
    if data.count(b";") <= MAX_NODES:
        return
    nodes = _PROPERTY_VALUE.sub(b"", data).count(b";")
    if nodes > MAX_NODES:
        raise SGFError(f"{source}: {nodes:,} nodes, more than the {MAX_NODES:,} a record "
                       f"may have (fastplay.sgf.MAX_NODES)")


def _shown_values(values: list[bytes], encoding: str = "utf-8") -> str:
    """``[a][b][c]`` of up to three values (each :func:`quoted`), then how many there are."""
    text = "".join(f"[{quoted(v, encoding)}]" for v in values[:3])
    return text if len(values) <= 3 else f"{text}... ({len(values):,} values)"


def _parse_size(coarse: sgf_grammar.Coarse_game_tree) -> int:
    root = coarse.sequence[0]
    raw = root.get("SZ")
    if raw is None:
        return DEFAULT_SIZE
    if len(raw) != 1:
        raise SGFError(f"SZ has {len(raw)} values", node=0)
    text = raw[0].decode("ascii", "replace").strip()
    shown = quoted(raw[0].strip(), "ascii")
    parts = [p.strip() for p in text.split(":")]
    try:
        dims = [int(p) for p in parts]
    except ValueError:
        raise SGFError(f"SZ[{shown}] is not a board size", node=0) from None
    if len(dims) == 2 and dims[0] != dims[1]:
        raise SGFError(f"SZ[{shown}]: only square boards are supported", node=0)
    if len(dims) not in (1, 2):
        raise SGFError(f"SZ[{shown}] is not a board size", node=0)
    size = dims[0]
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise SGFError(f"SZ[{shown}]: board size must be {MIN_SIZE}..{MAX_SIZE}", node=0)
    # sgfmill only understands the plain form; normalise "N:N" for it.
    root["SZ"] = [str(size).encode("ascii")]
    return size


#: The same start of a game tree in bytes (sgfmill's rule for a collection's games).
_GAME_START_BYTES = re.compile(_GAME_START.pattern.encode("ascii"))


def _warn_of_more_games(data: bytes) -> None:
    """An :class:`SGFWarning` when ``data`` is a collection of several games
    (only the first is read: it was silent, a tester's finding)."""
    if len(_GAME_START_BYTES.findall(data)) < 2:
        return       # the common case, without a second parse
    try:
        count = len(sgf_grammar.parse_sgf_collection(data))
    except ValueError:
        count = 0    # a later game is unreadable: more than one, at least
    if count != 1:   # one game whose text holds another "(;"
        games = f"{count} games" if count else "more than one game"
        _warn(f"the file holds a collection of {games}; the first is read")


#: Codecs (``codecs.lookup(...).name``) in which a byte below 0x80 is not
#: always that ASCII character: a trail byte 0x5C (``\\``) or 0x5D (``]``) of
#: Shift_JIS, Big5 or GBK, or any byte of UTF-16.  sgfmill parses bytes before
#: it applies ``CA``, so such a record is decoded whole first (a tester's
#: Shift_JIS ``PB[表]``, whose second byte is ``\\``, swallowed the next move).
_ASCII_UNSAFE = frozenset({
    "shift_jis", "cp932", "shift_jis_2004", "shift_jisx0213", "euc_jis_2004",
    "big5", "big5hkscs", "cp950", "gbk", "cp936", "gb18030", "johab", "hz",
    "iso2022_jp", "iso2022_jp_1", "iso2022_jp_2", "iso2022_jp_2004", "iso2022_jp_3",
    "iso2022_jp_ext", "iso2022_kr", "utf-16", "utf-16-le", "utf-16-be", "utf-32",
    "utf-32-le", "utf-32-be", "utf-7",
})

_UTF_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
             (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))

#: Charset names records use that Python's codecs do not know, and labels
#: whose text is usually a superset's (GB2312-labelled Chinese records hold
#: GBK characters, 232 of which end in 0x5C or 0x5D: a tester).
_CHARSET_ALIASES = {"windows-31j": "cp932", "x-sjis": "shift_jis", "x-gbk": "gbk",
                    "gb2312": "gbk", "euc-cn": "gbk", "euccn": "gbk", "x-euc-cn": "gbk"}


def _transcoded(data: bytes, encoding: str | None) -> tuple[bytes, bool]:
    """``data`` as UTF-8 and ``True`` when its charset (a UTF-16/32 byte-order
    mark or NUL pattern, else the first game's root ``CA``, else
    ``encoding``) is one of :data:`_ASCII_UNSAFE` and decodes it; else
    ``data`` unchanged and ``False``.  Bytes that are valid UTF-8 keep the
    old reading whatever their label says (a UTF-8 record labelled GB2312
    decoded as GBK lost moves: a tester; the trail bytes this is for are
    never valid UTF-8)."""
    name = _utf_layout(data)
    verify = False
    if name is None:
        found = _root_charset(data, True)
        if found is None:
            found, verify = _root_charset(data, False), True
        name = "".join(found.decode("ascii", "replace").split()) if found else encoding
        verify = verify and found is not None
    codec = _codec(name)
    if codec is None or codec not in _ASCII_UNSAFE:
        return data, False
    if codec.startswith("utf-"):
        if b"\0" not in data:
            # (UTF-16 and UTF-32 text of SGF's ASCII holds NULs: without any, a
            # CA[UTF-16] in ASCII bytes is a wrong label, read as before.)
            return data, False
    elif _is_utf8(data):
        return data, False
    try:
        utf8 = data.decode(codec).encode("utf-8")
    except UnicodeError:
        return data, False      # not that charset after all: read as before
    if verify:
        # A CA found only by ignoring escapes must be the decoded root's own
        # (a tester's comment "\\]CA[Shift_JIS\\]" is no CA).
        again = _root_charset(utf8, True)
        if again is None or _codec("".join(again.decode("utf-8", "replace").split())) != codec:
            return data, False
    return utf8, True


def _codec(name: str | None) -> str | None:
    """The Python codec a charset name means (:data:`_CHARSET_ALIASES`
    applied), or ``None``."""
    if not name:
        return None
    try:
        codec = codecs.lookup(_CHARSET_ALIASES.get(name.lower(), name)).name
    except (LookupError, ValueError):       # (ValueError: a name holding a NUL)
        return None
    return _CHARSET_ALIASES.get(codec, codec)


def _utf_layout(data: bytes) -> str | None:
    """UTF-16 or UTF-32 by a byte-order mark, or by the NULs beside the
    game's first ``(`` (such a record without a mark), else ``None``."""
    for bom, codec in _UTF_BOMS:
        if data.startswith(bom):
            return codec
    i = data.find(b"(")
    if i < 0 or b"\0" not in data[:i + 4]:
        return None
    # Each character takes 2 or 4 bytes from the start: ``(`` is at an even
    # offset in UTF-16-LE (its NUL after it), an odd one in UTF-16-BE.
    after, before = data[i + 1:i + 4], data[max(0, i - 3):i]
    if after == b"\0\0\0" and i % 4 == 0:
        return "utf-32-le"
    if before == b"\0\0\0" and i % 4 == 3:
        return "utf-32-be"
    if after[:1] == b"\0" and i % 2 == 0:
        return "utf-16-le"
    return "utf-16-be" if before[-1:] == b"\0" and i % 2 == 1 else None


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _root_charset(data: bytes, escapes: bool) -> bytes | None:
    """The raw ``CA`` value of the first game's root node, or ``None``: read
    from the bytes before any decoding, with ``\\]`` as an escape or (for a
    Shift_JIS value before ``CA`` that ends in a 0x5C byte, which an escape
    reading takes for an escape) without."""
    start = data.find(b";", max(data.find(b"("), 0))
    if start < 0:
        return None
    return _scan_root(data, start + 1, escapes)


def _scan_root(data: bytes, i: int, escapes: bool) -> bytes | None:
    """``CA``'s value among the properties from ``data[i]`` to the end of
    their node (``;``, ``(`` or ``)`` outside a value), or ``None``."""
    ident, after_value, n = b"", False, len(data)
    while i < n:
        c = data[i]
        if c == 0x5B:                               # [
            j = _value_end(data, i + 1, escapes)
            if ident == b"CA":
                return data[i + 1:j]
            i, after_value = j + 1, True
            continue
        if c in (0x3B, 0x28, 0x29):                 # ; ( )
            return None
        if 0x41 <= c <= 0x5A:                       # an upper-case letter of a name
            if after_value:
                ident, after_value = b"", False
            ident += bytes((c,))
        i += 1
    return None


def _value_end(data: bytes, j: int, escapes: bool) -> int:
    """Index of the ``]`` that ends the value starting at ``data[j]`` (an odd
    run of backslashes before one escapes it when ``escapes``), or
    ``len(data)``: by ``bytes.find``, as a root may hold megabytes of text."""
    while True:
        k = data.find(b"]", j)
        if k < 0:
            return len(data)
        b = k
        while escapes and b > j and data[b - 1] == 0x5C:
            b -= 1
        if (k - b) % 2 == 0:
            return k
        j = k + 1


def _warn(message: str) -> None:
    """An :class:`SGFWarning` at the caller's line outside fastplay's SGF and
    board modules (``Board.from_sgf``, ``load_board`` and ``record_moves``
    reach the warnings at different depths)."""
    import fastplay.board

    own = {__file__, fastplay.board.__file__}
    frame: types.FrameType | None = sys._getframe(1)
    level = 2
    while frame is not None and frame.f_code.co_filename in own:
        frame, level = frame.f_back, level + 1
    warnings.warn(message, SGFWarning, stacklevel=level)


def _warn_of_lower_case(coarse: sgf_grammar.Coarse_game_tree) -> None:
    """Warn of the first main-line node with a property named in lower-case
    letters only (``b[ee]``): sgfmill drops such a name (FF[3] allowed
    lower-case letters beside upper-case ones only), so its move or setup
    is not played (a tester's ``;b[ee]`` lost a move without a word)."""
    tree: sgf_grammar.Coarse_game_tree | None = coarse
    number = 0
    while tree is not None:
        for node in tree.sequence:
            if "" in node:
                _warn(f"node {number}: a property named in lower-case letters only "
                      f"([{quoted(node[''][0])}]) is not SGF and is ignored")
                return
            number += 1
        tree = tree.children[0] if tree.children else None


def _parse_game(data: bytes, from_str: bool = False,
                encoding: str | None = None) -> tuple[sgf.Sgf_game, int]:
    """Parse ``data``; ``from_str``: UTF-8 from a ``str``, whatever ``CA``
    says; ``encoding``: the charset when the record has no ``CA``."""
    data, transcoded = (data, False) if from_str else _transcoded(data, encoding)
    bom = data.startswith(b"\xef\xbb\xbf")
    if bom:
        data = data[3:]
    check_nodes(data)
    try:
        coarse = sgf_grammar.parse_sgf_game(data)
    except ValueError as exc:
        # A str that starts with "(" and holds no game: a file name, most likely.
        hint = "" if not from_str or _GAME_START_BYTES.search(data) else (
            " (the str was read as SGF text, as it starts with '('; no file of that name "
            "exists)")
        raise SGFError(f"unreadable SGF: {exc}{hint}") from exc
    if not coarse.sequence:
        raise SGFError("unreadable SGF: empty game tree")
    _warn_of_more_games(data)
    _warn_of_lower_case(coarse)
    override: str | None = None
    if from_str or transcoded:
        override = "UTF-8"
    elif "CA" not in coarse.sequence[0]:
        # A UTF-8 byte-order mark says how the file is encoded.
        override = "UTF-8" if bom else encoding
    gm = coarse.sequence[0].get("GM")
    if gm is not None and any(v.strip() != b"1" for v in gm):
        raise SGFError(f"GM{_shown_values(gm, 'ascii')}: not a Go record", node=0)
    size = _parse_size(coarse)
    try:
        game = sgf.Sgf_game.from_coarse_game_tree(coarse, override_encoding=override)
    except (ValueError, LookupError) as exc:
        # An unknown CA charset: read the bytes as Latin-1 rather than fail,
        # since nothing fastplay uses depends on text properties.
        try:
            game = sgf.Sgf_game.from_coarse_game_tree(coarse, override_encoding="ISO-8859-1")
        except (ValueError, LookupError):
            raise SGFError(f"unreadable SGF: {quoted(str(exc))}", node=0) from exc
        _warn(f"SGF charset not understood ({quoted(str(exc))}); read as ISO-8859-1")
    return game, size


def parse_record(data: bytes) -> sgf.Sgf_game:
    """A record's bytes as an sgfmill game, read as :func:`load_board` reads
    them (a charset that sgfmill would misparse decoded first, ``SZ[N:N]``,
    an unknown ``CA`` as Latin-1), without warnings: for writers that keep a
    record and add to it.  Raises :class:`SGFError` (a ``ValueError``) for a
    record :func:`load_board` would refuse as unreadable."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SGFWarning)
        return _parse_game(data)[0]


def serialise_in_order(game: sgf.Sgf_game, wrap: int = 79) -> bytes:
    """``game.serialise()`` with each node's properties in the order they were
    read or set (sgfmill sorts them, ``FF`` first): a node that mixes setup or
    ``PL`` with a move, or holds two moves, reads back as written (fastplay
    applies them in order).  ``FF`` still leads, as sgfmill puts it."""
    pieces = []
    stack: list[sgf_grammar.Coarse_game_tree | None] = [sgf_grammar.make_coarse_game_tree(
        game.get_root(), lambda node: node, sgf.Tree_node.get_raw_property_map)]
    while stack:
        tree = stack.pop()
        if tree is None:
            pieces.append(b")")
            continue
        pieces.append(b"(")
        for properties in tree.sequence:
            pieces.append(b";")
            for ident, values in sorted(properties.items(), key=lambda kv: kv[0] != "FF"):
                pieces.append(ident.encode("ascii") + b"".join(b"[" + v + b"]" for v in values))
        stack.append(None)
        stack.extend(reversed(tree.children))
    pieces.append(b"\n")
    out: bytes = sgf_grammar.block_format(pieces, wrap)
    return out


#: Largest |komi| a record (``KM``) or a GTP controller (``komi``) may set:
#: the board's own bound (:data:`fastplay._board.MAX_KOMI`, 1e6), so that
#: every board's record reads back with its komi (a tester's 1234.5 did not
#: under an SGF bound of 1000).  Real komi is below 100.
MAX_KOMI = BOARD_MAX_KOMI


def _komi(root: sgf.Tree_node) -> float | None:
    if not root.has_property("KM"):
        return None
    raw = root.get_raw("KM")
    try:
        komi = sgf_properties.interpret_real(raw)
    except ValueError:
        komi = None
    if komi is None or not math.isfinite(komi) or abs(komi) > MAX_KOMI:
        text = quoted(raw)
        _warn(f"KM[{text}] holds no usable komi (a number within +-{MAX_KOMI:.0f} "
                      "points); using the board's default")
        return None
    return float(komi)


def _handicap(root: sgf.Tree_node) -> int | None:
    if not root.has_property("HA"):
        return None
    raw = root.get_raw("HA")
    try:
        value = sgf_properties.interpret_number(raw)
    except ValueError:
        value = None
    if value is None or not 0 <= value <= MAX_SIZE * MAX_SIZE:
        text = quoted(raw)
        why = "more stones than a board holds" if value is not None and value > 0 \
            else "not a handicap count"
        _warn(f"HA[{text}] is {why}; ignored")
        return None
    return int(value)


def _colour_of_pl(raw: bytes, node: int) -> str:
    text = raw.strip().upper()
    if text in (b"B", b"1"):
        return "B"
    if text in (b"W", b"2"):
        return "W"
    raise SGFError(f"PL[{quoted(raw)}] is not a colour", node=node)


def _gtp(point: tuple[int, int]) -> str:
    # sgfmill's (row, col) has row 0 at the bottom, which is GTP's row 1.
    vertex: str = common.format_vertex(point)
    return vertex


def _points(node: sgf.Tree_node, ident: str, index: int) -> set[tuple[int, int]]:
    try:
        return set(node.get(ident))
    except ValueError as exc:
        raw = _shown_values(node.get_raw_list(ident))
        raise SGFError(f"{ident}{raw}: bad point list (a point is off the board or "
                       "malformed)", node=index) from exc


def _move(node: sgf.Tree_node, ident: str, index: int, size: int) -> tuple[int, int] | None:
    values = node.get_raw_list(ident)
    if len(values) != 1:
        raise SGFError(f"{ident} has {len(values)} values", node=index)
    try:
        point: tuple[int, int] | None = sgf_properties.interpret_go_point(values[0], size)
    except ValueError as exc:
        raise SGFError(
            f"{ident}[{quoted(values[0])}] is not a point on a "
            f"{size}x{size} board", node=index) from exc
    return point


def _start_to_move(seq: Sequence[sgf.Tree_node], handicap: int | None) -> str:
    """The side to move at the starting position (see the module docstring)."""
    any_black = any_white = False
    player: str | None = None
    for index, node in enumerate(seq):
        props = node.get_raw_property_map()
        moves = [ident for ident in props if ident in ("B", "W")]
        if moves:
            # a PL in the first move's own node speaks about the move after it
            return player or moves[0]
        if "PL" in props:
            player = _colour_of_pl(props["PL"][0], index)
        any_black = any_black or "AB" in props
        any_white = any_white or "AW" in props
    if player is not None:
        return player
    return "W" if any_black and not any_white and handicap is not None and handicap >= 2 else "B"


def _set_attr(board: Any, name: str, value: Any) -> None:
    # Metadata is optional: a board class with __slots__ just loses it.
    try:
        setattr(board, name, value)
    except AttributeError:
        pass


def load_board(
    path_or_text: str | os.PathLike[str] | bytes,
    move_number: int | None = None,
    *,
    superko: bool = False,
    suicide: bool = False,
    board_cls: type[Board] | None = None,
    encoding: str | None = None,
) -> Board:
    """Read an SGF record and return the board it describes.

    Args:
        path_or_text: SGF content as ``bytes`` or as a ``str`` holding ``(;``
            (text before it, e.g. a mail header, is skipped), or a file path
            (``str`` / ``os.PathLike``).
        move_number: ``N`` = the position after the first ``N`` moves of the
            main line (passes count; setup that follows move ``N`` but comes
            before move ``N+1`` is applied), with the colour of move ``N+1`` to
            play.  ``None`` = the whole main line.
        superko: positional superko for the replay and the returned board.
        suicide: allow multi-stone suicide (Tromp-Taylor / New Zealand).  The
            default (forbidden) is GNU Go's rule, which GNU Go's own records obey.
            The rules are these arguments, never the record's ``RU`` (kept in
            ``sgf_properties``): a record of a board with ``suicide=True``
            says ``RU[NZ]`` and reads back the same only with ``suicide=True``.
        board_cls: the class to build (default :class:`fastplay.board.Board`).
        encoding: the charset (a Python codec name) of a file or ``bytes``
            without ``CA``; default ISO-8859-1, FF[4]'s (UTF-8 after a
            byte-order mark).  A record's own ``CA`` wins; a ``str`` is already
            text and ignores it.

    Returns:
        A ``board_cls(size, komi, superko=superko, suicide=suicide)`` holding the
        starting position (setup stones) with the moves played on it, so that
        :meth:`Board.undo` walks back to the setup.  ``board.sgf_properties``
        holds the root metadata (see the module docs).

    Raises:
        SGFError: unreadable SGF, not Go, bad ``SZ``, bad point values, a setup
            leaving a string without liberties, or an illegal move (with
            ``node``, ``move_number``, ``vertex`` and ``rule`` set, chained from
            the board's ``IllegalMoveError``).
        ValueError: ``move_number`` negative or beyond the record's moves.
        TypeError: ``move_number`` not an int, ``encoding`` not a str, or a
            source of the wrong type.
        LookupError: ``encoding`` names no Python codec.
        OSError: the file cannot be read.

    Warns:
        SGFWarning: ``KM`` or ``HA`` present without a usable value.
    """
    if move_number is not None and (not isinstance(move_number, int) or isinstance(move_number, bool)):
        raise TypeError(f"move_number must be an int or None, not {type(move_number).__name__}")
    if move_number is not None and move_number < 0:
        raise ValueError(f"move_number must be >= 0, got {move_number}")
    _check_encoding(encoding)
    # lazy: fastplay.board imports this module
    from fastplay.board import Board as DefaultBoard
    from fastplay.board import IllegalMoveError

    cls: type[Board] = DefaultBoard if board_cls is None else board_cls

    data, from_str = _read_source(path_or_text)
    try:
        return _load(data, from_str, encoding, move_number, superko, suicide, cls)
    except SGFError:
        raise
    except (ValueError, LookupError) as exc:
        if isinstance(exc, (IllegalMoveError, MoveNumberError)):
            raise
        # sgfmill's own complaints about property values (e.g. "multiple
        # values") surface as SGFError like every other unreadable record.
        raise SGFError(f"unreadable SGF: {exc}") from exc


class MoveNumberError(ValueError):
    """A move number past the record's end (:func:`load_board`'s
    ``move_number``): the record is readable, so this is a ``ValueError``,
    not an :class:`SGFError`.  ``move_number`` is the number asked for,
    ``moves`` the record's count."""

    def __init__(self, move_number: int, moves: int) -> None:
        super().__init__(f"move_number={move_number} but the record has only {moves} moves")
        self.move_number = move_number
        self.moves = moves

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.move_number, self.moves))


def _moves_in(seq: Sequence[sgf.Tree_node]) -> int:
    """Moves (``B``/``W`` properties) in the nodes of a main line."""
    return sum(("B" in n.get_raw_property_map()) + ("W" in n.get_raw_property_map())
               for n in seq)


def opening_moves(path_or_text: str | os.PathLike[str] | bytes,
                  encoding: str | None = None) -> list[tuple[str, int]]:
    """A record's main-line moves from its start, ``("B" or "W", 0)`` and
    ``(colour, -1)`` for a pass, up to the first setup node after a move (the
    game no longer follows from its start there): what KataGo's handicap
    count reads (:func:`fastplay.analysis.query.handicap_stones`).  Takes
    and raises what :func:`record_moves` does."""
    _check_encoding(encoding)
    data, from_str = _read_source(path_or_text)
    game, _ = _parse_game(data, from_str, encoding)
    moves: list[tuple[str, int]] = []
    for node in game.get_main_sequence():
        props = node.get_raw_property_map()
        if moves and any(p in props for p in ("AB", "AW", "AE")):
            break
        for colour in ("B", "W"):
            if colour in props:
                try:
                    point = node.get(colour)
                except ValueError:
                    point = ()
                moves.append((colour, -1 if point is None else 0))
    return moves


def record_moves(path_or_text: str | os.PathLike[str] | bytes,
                 encoding: str | None = None) -> int:
    """The moves of a record's main line, as :func:`load_board`'s
    ``move_number`` counts them (a board's own ``move_number`` restarts at a
    setup node inside the record).  Takes what :func:`load_board` takes;
    raises :class:`SGFError` for a record it cannot read, ``OSError`` for a
    file it cannot open."""
    _check_encoding(encoding)
    data, from_str = _read_source(path_or_text)
    game, _ = _parse_game(data, from_str, encoding)
    return _moves_in(game.get_main_sequence())


def _load(data: bytes, from_str: bool, encoding: str | None, move_number: int | None,
          superko: bool, suicide: bool, cls: type[Board]) -> Board:
    """The body of :func:`load_board` once the input is bytes."""
    from fastplay.board import IllegalMoveError
    game, size = _parse_game(data, from_str, encoding)
    root = game.get_root()
    komi = _komi(root)
    handicap = _handicap(root)
    seq = game.get_main_sequence()

    kwargs: dict[str, Any] = {"superko": superko, "suicide": suicide}
    if komi is not None:
        kwargs["komi"] = komi
    board = cls(size, **kwargs)

    to_move = _start_to_move(seq, handicap)
    board.setup(to_move=to_move)
    moves_played = 0
    pending_pl: str | None = None
    total_moves = _moves_in(seq)
    if move_number is not None and move_number > total_moves:
        raise MoveNumberError(move_number, total_moves)
    limit = total_moves if move_number is None else move_number

    next_colour: str | None = None  # the record's move after the limit
    for index, node in enumerate(seq):
        props = node.get_raw_property_map()
        setup = _setup_of_node(node, index)
        # dicts keep the parser's order, i.e. the order written in the file
        for ident in list(props):
            if ident in ("B", "W"):
                if moves_played == limit:
                    next_colour = ident
                    break
                vertex_point = _move(node, ident, index, size)
                vertex = "pass" if vertex_point is None else _gtp(vertex_point)
                number = moves_played + 1
                try:
                    board.play(vertex, ident)
                except IllegalMoveError as exc:
                    raise SGFError(
                        f"{ident} {vertex} is illegal ({exc.rule})",
                        node=index, move_number=number, vertex=vertex, rule=exc.rule,
                    ) from exc
                moves_played = number
                pending_pl = None
            elif ident == "PL":
                pending_pl = _colour_of_pl(props["PL"][0], index)
            elif ident in _SETUP and setup is not None:
                # the node's AB/AW/AE act together, at the first of them
                _apply_setup(board, setup, index, pending_pl)
                setup = None
        if index == 0 or moves_played == 0:
            # PL before the first move is part of the starting position.
            pending_pl = None
        if next_colour is not None:
            break

    # Stopped early, the side to move is whoever moves next in the record
    # (GNU Go's loadsgf does the same); otherwise a trailing PL decides.
    wanted = next_colour or pending_pl
    if wanted is not None and wanted != board.to_move:
        _set_to_move(board, wanted)

    metadata = _metadata(root, game)
    if handicap is not None:
        metadata["HA"] = str(handicap)
    _set_attr(board, "sgf_properties", metadata)
    return board


def _setup_of_node(node: sgf.Tree_node, index: int) -> tuple[list[str], list[str], list[str]] | None:
    """The node's (AB, AW, AE) as sorted GTP vertices, or None without setup."""
    if not node.has_setup_stones():
        return None
    black = _points(node, "AB", index) if node.has_property("AB") else set()
    white = _points(node, "AW", index) if node.has_property("AW") else set()
    empty = _points(node, "AE", index) if node.has_property("AE") else set()
    twice = (black & white) | (black & empty) | (white & empty)
    if twice:
        named = sorted(_gtp(p) for p in twice)
        where = " ".join(named[:10]) + (f" ... ({len(named)} points)" if len(named) > 10 else "")
        raise SGFError(f"setup names {where} in more than one of AB/AW/AE", node=index)
    return (sorted(map(_gtp, black)), sorted(map(_gtp, white)), sorted(map(_gtp, empty)))


def _apply_setup(board: Any, setup: tuple[list[str], list[str], list[str]], index: int,
                 pending_pl: str | None) -> None:
    black, white, empty = setup
    try:
        # one call for the whole node: only the final position must be legal
        board.setup(black=black, white=white, empty=empty, to_move=pending_pl or board.to_move)
    except ValueError as exc:
        raise SGFError(f"setup: {exc}", node=index) from exc


def _set_to_move(board: Any, colour: str) -> None:
    # not Board.setup, which would start a new history
    board.to_move = colour


def _metadata(root: sgf.Tree_node, game: sgf.Sgf_game) -> dict[str, str]:
    try:
        encoding = game.get_charset()
    except (ValueError, LookupError):
        encoding = "iso-8859-1"  # the game itself was read that way (see _parse_game)
    out: dict[str, str] = {}
    for ident, values in root.get_raw_property_map().items():
        # An FF[3] name of lower-case letters only ("a[...]") is "" once sgfmill
        # drops them: no property a record can hold, so it is not kept.
        if ident in _STRUCTURAL or not sgf_grammar.is_valid_property_identifier(ident):
            continue
        if ident in TEXT_PROPERTIES:
            # repeated (invalid FF[4]): one text, a line break between the values
            out[ident] = unescape_text("\n".join(v.decode(encoding, "replace") for v in values),
                                       simple=ident in _SIMPLE_TEXT)
        else:
            out[ident] = _VALUE_SEP.join(v.decode(encoding, "replace") for v in values)
    return out


# ---------------------------------------------------------------------------
# writing


def _to_point(vertex: str, size: int) -> tuple[int, int] | None:
    point: tuple[int, int] | None = common.move_from_vertex(vertex, size)
    return point


def _looks_like_handicap(black: Iterable[Any], white: Iterable[Any],
                         to_move: str | Color) -> int | None:
    nblack = len(list(black))
    if nblack >= 2 and not list(white) and to_move == "W":
        return nblack
    return None


def _property_values(ident: object, value: object) -> list[bytes]:
    """The raw SGF values (UTF-8) of one ``sgf_properties`` entry."""
    if not isinstance(ident, str) or not sgf_grammar.is_valid_property_identifier(ident):
        raise ValueError(f"sgf_properties key {ident!r} is not an SGF property identifier "
                         "(1 to 64 upper-case letters)")
    if not isinstance(value, str):
        raise TypeError(f"sgf_properties[{ident!r}] must be a str, not {type(value).__name__}")
    if ident in TEXT_PROPERTIES:
        parts = [escape_text(_normalise_text(value, ident in _SIMPLE_TEXT))]
    else:
        # not SGF as it stands (None): the user's text, escaped
        parts = _split_values(value) or [escape_text(value)]
    try:
        return [part.encode("utf-8") for part in parts]
    except UnicodeEncodeError as exc:
        raise ValueError(f"sgf_properties[{ident!r}] cannot be written as UTF-8: {exc}") from None


def _setup_points(grid: Any) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Black and White stones of ``grid`` (``Board.to_numpy``) as sgfmill points."""
    size = len(grid)
    black = []
    white = []
    for r in range(size):
        for c in range(size):
            # numpy row 0 is the top; sgfmill's row 0 is the bottom.
            if grid[r, c] == 1:
                black.append((size - 1 - r, c))
            elif grid[r, c] == -1:
                white.append((size - 1 - r, c))
    return black, white


def _write_root(root: Any, board: Board, black: list[tuple[int, int]],
                white: list[tuple[int, int]], start_to_move: str | Color,
                first_mover: str | Color | None = None) -> None:
    """The root node: FF, GM, KM, HA, the other ``sgf_properties``, setup, PL
    (also when the first move is not the starting side's: a record said so)."""
    root.set_raw("FF", b"4")
    root.set_raw("GM", b"1")
    # A Real in positional notation, every digit the float needs (7, 7.5,
    # 0.00001): sgfmill writes a float whose repr has an exponent as 0.
    komi = format(decimal.Decimal(repr(float(board.komi))), "f")
    root.set_raw("KM", (komi[:-2] if komi.endswith(".0") else komi).encode())
    metadata: dict[str, str] = dict(getattr(board, "sgf_properties", None) or {})
    handicap: int | None = None
    if "HA" in metadata:
        try:
            handicap = int(metadata["HA"])
        except ValueError:
            handicap = None
    elif not metadata:
        handicap = _looks_like_handicap(black, white, start_to_move)
    if handicap is not None:
        root.set("HA", handicap)
    for ident, value in metadata.items():
        if ident in _STRUCTURAL:
            continue
        root.set_raw_list(ident, _property_values(ident, value))
    if black or white:
        root.set_setup_stones(black, white)
    if black or white or start_to_move == "W" or (
            first_mover is not None and str(first_mover).upper() != str(start_to_move).upper()):
        root.set("PL", str(start_to_move).lower())


def board_to_sgf(board: Board) -> str:
    """Write ``board`` as an FF[4] SGF record (text, UTF-8 charset).

    The record holds the starting position of ``board.history`` (the board
    with every move undone) as ``AB``/``AW`` setup and ``PL``, then the moves.
    When the side to move after the last move is not the other colour (a
    loaded ``PL`` said so), a last node holds only ``PL``: sgfmill writes the
    properties of a node in alphabetical order, so a ``PL`` beside a ``W``
    move would come first and read as if it preceded the move.

    ``HA``: a board that came from a record (non-empty ``sgf_properties``)
    keeps exactly what the record said, ``HA`` or none.  Otherwise ``HA`` is
    written when the start looks like a handicap: at least two black setup
    stones, no white one, White to play.  ``KM`` is ``board.komi``.  The other
    ``sgf_properties`` (players, result, comment...) go to the root: the
    text of Text and SimpleText properties escaped, other values as they are
    (see the module docstring).  Passes are ``B[]``/``W[]``.

    Args:
        board: a :class:`fastplay.Board` (anything with its API).

    Returns:
        The SGF text, ending with a newline.

    Raises:
        TypeError: ``board`` is not a board, or an ``sgf_properties`` value
            is not a ``str``.
        ValueError: an ``sgf_properties`` key is not an SGF property
            identifier (1 to 64 upper-case letters).
    """
    for attr in ("size", "komi", "history", "copy", "undo", "to_numpy", "to_move"):
        if not hasattr(board, attr):
            raise TypeError(f"board_to_sgf needs a Board, got {type(board).__name__}")
    size = int(board.size)
    history = list(board.history)
    start = board.copy()
    for _ in history:
        start.undo()
    black, white = _setup_points(start.to_numpy())
    start_to_move = start.to_move
    game = sgf.Sgf_game(size)
    _write_root(game.get_root(), board, black, white, start_to_move,
                history[0][0] if history else None)
    # One node after the other (sgfmill's extend_main_sequence walks the
    # whole main line each time: quadratic in the moves).
    node = game.get_root()
    for colour, vertex in history:
        node = node.new_child()
        if vertex.lower() == "pass":
            # FF[4]'s pass; sgfmill itself would write [tt] up to 19x19
            node.set_raw(str(colour).upper(), b"")
        else:
            node.set_move(str(colour).lower(), _to_point(vertex, size))
    if history:
        next_by_turn = "W" if str(history[-1][0]).upper() == "B" else "B"
        if board.to_move != next_by_turn:
            node.new_child().set("PL", str(board.to_move).lower())
    data: bytes = game.serialise()
    return data.decode("utf-8")
