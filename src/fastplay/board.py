"""The Go board of fastplay: the compiled core plus friendly vertices and colours.

:class:`Board` subclasses :class:`fastplay._core.CoreBoard`, where the rules
live (strings with exact liberty counts kept incrementally, captures, simple
ko, optional positional superko, optional multi-stone suicide, Zobrist
hash, undo).  This module adds what a person types: GTP vertices such as
``"D4"``, ``(row, col)`` pairs and the colours ``"B"``/``"W"``.

Orientation: row 0 is the *top* row as printed, the highest GTP row number;
this is also row 0 of :meth:`Board.to_numpy`.  A flat index is
``row * size + col``.  GTP columns skip the letter I (GTP 2, section 2.11).
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Iterable
from typing import Any, Union

import numpy as np
import numpy.typing as npt

from fastplay._checks import is_integer
from fastplay._core import BLACK as BLACK_CODE
from fastplay._core import EMPTY as EMPTY_CODE
from fastplay._core import WHITE as WHITE_CODE
from fastplay._board import checked_komi
from fastplay._core import CoreBoard, IllegalMoveError
from fastplay.color import Color
from fastplay.errors import InvalidVertexError
from fastplay.shown import exact_number

__all__ = ["Board", "IllegalMoveError", "InvalidVertexError", "parse_vertex", "format_vertex",
           "parse_color", "Vertex", "Color", "ColorLike"]

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
PASS = -1

Vertex = Union[str, int, tuple[int, int], None]
#: What the vertex methods take for a colour: a :class:`Color`, its letter or
#: name as text (``"B"``, ``"white"``...), or ``None`` for the side to move.
ColorLike = Union[Color, str, None]

_GTP_VERTEX = re.compile(r"[A-Za-z][0-9]{1,3}", re.ASCII)


def parse_color(color: ColorLike) -> int:
    """The core's colour code (``BLACK`` 2, ``WHITE`` 1) of ``"B"``, ``"w"``, ``"black"``,
    ``"White"`` or a :class:`Color`: ``int(Color.parse(color))``, a plain ``int``.

    Bare integers are refused (see :meth:`Color.parse`), ``None`` too;
    raises ``ValueError``.  New code wants :meth:`Color.parse`, whose
    members are these codes; this plain-int form stays because code
    keys dicts by the codes (a :class:`Color` hashes as its letter).
    """
    return int(Color.parse(color))


def color_name(code: int) -> Color:
    """The :class:`Color` of a core colour code (it prints and compares as ``"B"``/``"W"``)."""
    return Color.BLACK if code == BLACK_CODE else Color.WHITE


def _size(size: int) -> int:
    """A board size for the vertex functions: an integer 2..25 (the boards
    there are; the column letters end at Z), else ``TypeError`` /
    ``ValueError`` (a tester's ``format_vertex(5, -3)`` was ``'Z-1'``)."""
    if not is_integer(size):
        raise TypeError(f"board size must be an integer, not {type(size).__name__}")
    if not 2 <= size <= len(COLUMNS):
        raise ValueError(f"board size must be 2..{len(COLUMNS)}, not {size}")
    return int(size)


def _parse_gtp(move: str, text: str, size: int) -> int:
    if not _GTP_VERTEX.fullmatch(text):
        raise InvalidVertexError(f"bad vertex {move!r}: expected a GTP vertex such as 'D4' or "
                                 "'pass'", "bad vertex", move)
    letter = text[0].upper()
    if letter == "I":
        raise InvalidVertexError(f"bad vertex {move!r}: GTP skips the column letter I",
                                 "bad vertex", move)
    col = COLUMNS.find(letter)
    number = int(text[1:])
    if col < 0 or col >= size or not 1 <= number <= size:
        raise InvalidVertexError(f"vertex {text.upper()} is off the {size}x{size} board",
                                 "off-board", move)
    return (size - number) * size + col


def parse_vertex(move: Vertex, size: int) -> int:
    """Flat index ``row * size + col`` of a move, or -1 for a pass.

    Accepts GTP vertices (``"D4"``, any case, no column I; ``"pass"``),
    ``(row, col)`` with row 0 at the top, and flat indices (``-1`` = pass).
    Raises :class:`InvalidVertexError` (a ``ValueError``, not an
    :class:`IllegalMoveError`) with ``rule`` ``"bad vertex"`` when the move
    cannot be read, ``"off-board"`` when it names a point outside the board;
    ``TypeError`` / ``ValueError`` for a ``size`` that is no board's (2..25).
    """
    if type(size) is not int or not 2 <= size <= 25:
        size = _size(size)
    if isinstance(move, str):
        text = move.strip()
        if text.lower() == "pass":
            return PASS
        return _parse_gtp(move, text, size)
    if isinstance(move, tuple):
        if len(move) != 2 or not all(is_integer(x) for x in move):
            raise InvalidVertexError(f"bad vertex {move!r}: expected (row, col)", "bad vertex",
                                     move)
        row, col = int(move[0]), int(move[1])
        if not (0 <= row < size and 0 <= col < size):
            raise InvalidVertexError(f"vertex {move!r} is off the {size}x{size} board",
                                     "off-board", move)
        return row * size + col
    if is_integer(move):
        if move == PASS:
            return PASS
        if not 0 <= move < size * size:
            raise InvalidVertexError(f"vertex index {move} is off the {size}x{size} board",
                                     "off-board", move)
        return int(move)
    raise InvalidVertexError(f"bad vertex {move!r}: expected a GTP string, (row, col) or an "
                             "index", "bad vertex", move)


def format_vertex(index: int, size: int) -> str:
    """GTP vertex (``"D4"``) of a flat index; ``"pass"`` for -1.  Raises
    :class:`InvalidVertexError` (``"off-board"``) for another index off the
    board, ``TypeError`` for one that is not an integer, and as
    :func:`parse_vertex` for a bad ``size``."""
    # Plain ints skip the general checks: this runs for every move listed.
    if type(size) is not int or not 2 <= size <= 25:
        size = _size(size)
    if type(index) is not int and not is_integer(index):
        raise TypeError(f"a flat index must be an integer, not {type(index).__name__}")
    if index == PASS:
        return "pass"
    if not 0 <= index < size * size:
        raise InvalidVertexError(f"vertex index {index} is off the {size}x{size} board",
                                 "off-board", index)
    return f"{COLUMNS[index % size]}{size - index // size}"


#: The core's read-only komi field, which ``Board.komi`` wraps with a checking setter.
_CORE_KOMI = CoreBoard.komi


def _slot_values(board: Board) -> list[tuple[str, object]]:
    """The set ``__slots__`` of a Board subclass's instance, as (name, value)."""
    out: list[tuple[str, object]] = []
    for cls in type(board).__mro__:
        slots = cls.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name.startswith("__") and not name.endswith("__"):
                name = f"_{cls.__name__.lstrip('_')}{name}"     # a private slot's mangled name
            if name not in ("__dict__", "__weakref__") and hasattr(board, name):
                out.append((name, getattr(board, name)))
    return out

class Board(CoreBoard):
    """A Go board of ``size x size`` points (2..25) with area scoring.

    Rules: simple ko always; positional superko when ``superko=True``;
    suicide illegal unless ``suicide=True``, which allows multi-stone suicide
    (New Zealand / Tromp-Taylor); a single-stone suicide stays illegal
    because it changes nothing but the turn.  Scores are Tromp-Taylor area
    (stones plus empty regions that reach only one colour) minus ``komi``
    (points), from Black's point of view.

    **Vertices and colours.**  The methods without a suffix are the API:
    they take vertices (GTP text ``"D4"`` or ``"pass"``, ``(row, col)`` with
    row 0 on top, or a flat index) and colours (:class:`Color`, or ``"B"``,
    ``"white"``... through :meth:`Color.parse`; ``None`` is the side to
    move), and return GTP vertices and :class:`Color` members.

    **The fast path.**  A method whose name ends in ``_index``, ``_indices``
    or ``_flat`` (inherited from the compiled :class:`CoreBoard`) takes and
    returns flat indices ``row * size + col`` (``-1`` = pass) and takes
    colours as :class:`Color` members or the core's codes (``Color`` *is*
    those codes), with no parsing: for loops over many points (a search, a
    playout policy).  The rule: the fast-path twin of vertex method ``m``
    is ``m_index`` when it takes or returns one point, ``m_indices`` when
    it returns several, ``m_flat`` when it returns a per-point array in
    flat order (``int8[size * size]`` for ``m``'s ``int8[size, size]``); a
    vertex noun at the end of ``m`` gives way to the suffix (``ko_point``
    -> ``ko_index``, ``legal_moves`` -> ``legal_indices``).  So ``get`` /
    ``get_index``, ``liberties`` / ``liberties_index``, ``is_legal`` /
    ``is_legal_index`` (and ``legality_index``, the rule a move breaks),
    ``in_ladder`` / ``in_ladder_index``, ``string`` / ``string_indices``,
    ``tactics`` / ``tactics_flat``, ``races`` / ``races_flat``, ``setup`` /
    ``setup_indices``, ``history`` / ``history_indices``.  The names of
    earlier releases (``color_at``, ``liberty_count``, ``legality``,
    ``ladder_captures``, ``tactical_moves``, ``race_moves``,
    ``setup_stones``, ``history_moves``) work for one more release and warn
    (``DeprecationWarning``).  The README's API section lists every pair.

    **Errors.**  Raises ``TypeError`` for a non-integer size or a
    ``superko`` / ``suicide`` that is not a bool (``"no"`` would have been
    taken as true), ``ValueError`` for a size outside 2..25.  A vertex
    that names no point of the board (malformed, of the wrong type, off
    the board, or ``"pass"`` where a point is needed) raises :class:`InvalidVertexError` (a ``ValueError``)
    from every vertex method; a move against the rules of Go raises
    :class:`IllegalMoveError` (a ``ValueError``) whose ``rule`` is
    ``"occupied"``, ``"suicide"``, ``"ko"`` or ``"superko"``; a bad colour
    raises ``ValueError``.
    """

    #: SGF root properties kept from a loaded record (``HA``, ``PB``, ``RU``, ``C``...):
    #: the text of Text/SimpleText properties (unescaped), other values as written
    #: (see :mod:`fastplay.sgf`); :meth:`to_sgf` writes them back.
    sgf_properties: dict[str, str]

    def __init__(self, size: int = 19, komi: float = 7.5, superko: bool = False,
                 suicide: bool = False) -> None:
        for name, flag in (("superko", superko), ("suicide", suicide)):
            if not isinstance(flag, (bool, np.bool_)):
                raise TypeError(f"{name} must be a bool, not {type(flag).__name__}")
        super().__init__(size, komi, superko, suicide)
        self.sgf_properties = {}

    @property
    def komi(self) -> float:
        """Komi in points, added to White's area score; set it to a finite
        number within +-``fastplay._board.MAX_KOMI`` (1e6, the playouts'
        bound): ``TypeError`` for a non-number, ``ValueError`` for NaN, an
        infinity or a larger komi, and the komi stays as it was."""
        return _CORE_KOMI.__get__(self, type(self))  # type: ignore[no-any-return]

    @komi.setter
    def komi(self, value: float) -> None:
        self._set_komi(value)

    def _copy_extra(self, source: Board) -> None:
        self.sgf_properties = dict(getattr(source, "sgf_properties", {}))

    # -- moves -------------------------------------------------------------
    def _color(self, color: ColorLike) -> int:
        return self.to_move_code if color is None else parse_color(color)

    def play(self, move: Vertex, color: ColorLike = None) -> None:
        """Play ``move`` for ``color`` (default: the side to move); the other colour moves next.

        Raises :class:`InvalidVertexError` for a vertex that names no point
        (the board is left unchanged), :class:`IllegalMoveError` for a move
        against the rules.
        """
        try:
            self.play_index(parse_vertex(move, self.size), self._color(color))
        except IllegalMoveError as exc:
            exc.vertex = move                # as given, not the flat index
            raise

    def is_legal(self, move: Vertex, color: ColorLike = None) -> bool:
        """Whether ``color`` (default: the side to move) may play ``move`` now; a pass always may.

        Never raises :class:`IllegalMoveError`; raises :class:`InvalidVertexError`
        when ``move`` is not a vertex of this board.
        """
        return self.legality_index(parse_vertex(move, self.size), self._color(color)) is None

    def legal_moves(self, color: ColorLike = None) -> list[str]:
        """GTP vertices of every legal non-pass move of ``color``, top-left first."""
        size = self.size
        return [format_vertex(int(i), size) for i in self.legal_indices(self._color(color))]

    def pass_move(self, color: ColorLike = None) -> None:
        """Pass (same as ``play("pass")``)."""
        self.play_index(PASS, self._color(color))

    def setup(self, black: Iterable[Vertex] = (), white: Iterable[Vertex] = (),
              empty: Iterable[Vertex] = (), to_move: ColorLike = None) -> None:
        """Add Black and White stones and clear points, as SGF ``AB``/``AW``/``AE`` do.

        Nothing is captured.  The result becomes a new starting position: the
        history, undo stack, ko point and capture counts are cleared.  Raises
        ``ValueError`` (and changes nothing) if a string would be left without
        a liberty or a point is named in two lists, :class:`InvalidVertexError`
        for a vertex that names no point (``"pass"`` included), ``TypeError``
        for a list given as one ``str`` or ``bytes`` (``black="D4"``:
        ``black=["D4"]``).
        """
        for kind, moves in (("black", black), ("white", white), ("empty", empty)):
            if isinstance(moves, (str, bytes, bytearray, memoryview)):
                raise TypeError(f"{kind} must be an iterable of vertices, not "
                                f"{type(moves).__name__} ({kind}=['D4'] for one point)")
            if not isinstance(moves, Iterable):
                raise TypeError(f"{kind} must be an iterable of vertices, not "
                                f"{type(moves).__name__} (leave it out for none)")
        size = self.size
        arr = self.to_numpy().reshape(-1)
        stones = {i: BLACK_CODE if arr[i] > 0 else (WHITE_CODE if arr[i] < 0 else EMPTY_CODE)
                  for i in range(size * size)}
        named: dict[int, str] = {}
        for kind, moves in (("empty", empty), ("black", black), ("white", white)):
            for move in moves:
                index = self._point(move)
                if named.get(index, kind) != kind:
                    raise ValueError(f"setup names {format_vertex(index, size)} as both "
                                     f"{named[index]} and {kind}")
                named[index] = kind
        new_to_move = None if to_move is None else parse_color(to_move)
        for index, kind in named.items():
            stones[index] = {"empty": EMPTY_CODE, "black": BLACK_CODE, "white": WHITE_CODE}[kind]
        # The core checks liberties and leaves the board as it was on failure.
        self.setup_indices([i for i, c in stones.items() if c == BLACK_CODE],
                           [i for i, c in stones.items() if c == WHITE_CODE])
        if new_to_move is not None:
            self.set_to_move(new_to_move)

    def _point(self, move: Vertex) -> int:
        index = parse_vertex(move, self.size)
        if index == PASS:
            raise InvalidVertexError("'pass' names no point of the board", "bad vertex", move)
        return index

    # -- queries -------------------------------------------------------------
    def get(self, vertex: Vertex) -> Color | None:
        """The :class:`Color` of the stone at ``vertex`` (it equals ``"B"``/``"W"``), or ``None``.

        Raises :class:`InvalidVertexError` for a vertex that names no point;
        so do :meth:`liberties` and :meth:`string`.
        """
        code = self.get_index(self._point(vertex))
        return None if code == EMPTY_CODE else color_name(code)

    def liberties(self, vertex: Vertex) -> int:
        """Liberties (distinct empty neighbours) of the string at ``vertex``; 0 if empty."""
        return int(self.liberties_index(self._point(vertex)))

    def in_ladder(self, vertex: Vertex, attacker_first: bool = True) -> bool:
        """Whether the string at ``vertex`` (at most two liberties) is captured
        by a ladder: ataris only, answered by extensions or by captures of a
        chasing string (GNU Go's simple ladder reading).  With
        ``attacker_first`` its opponent moves next, otherwise its owner does.
        Raises :class:`InvalidVertexError` for a vertex that names no point,
        or a point without a stone ("no string at ...").
        """
        index = self._point(vertex)
        if self.get_index(index) == EMPTY_CODE:
            raise InvalidVertexError(f"no string at {format_vertex(index, self.size)}",
                                     "bad vertex", vertex)
        return bool(self.in_ladder_index(index, attacker_first))

    def tactics(self, color: ColorLike = None) -> npt.NDArray[np.int8]:
        """The ladder reader's verdict on a move of ``color`` (default: the side
        to move) at every point: ``int8[size, size]``, 0 nothing found (or
        illegal), 1 bad (leaves the mover's string of two stones or more in
        atari, or the string in a working ladder), 2 rescues a string in
        atari, 3 ataris a string that cannot escape.  See
        :meth:`CoreBoard.tactics_flat` (its fast path, flat).
        """
        return self.tactics_flat(self._color(color)).reshape(self.size, self.size)

    def races(self, color: ColorLike = None) -> npt.NDArray[np.int8]:
        """The capturing-race reader's verdict on a move of ``color`` (default:
        the side to move) at every point: ``int8[size, size]``, 0 nothing
        found (or illegal), 2 keeps alive a string of two to four liberties
        that the opponent, moving first, would capture, 3 captures an enemy
        string that its owner, moving first, would keep alive.  See
        :meth:`CoreBoard.races_flat` (its fast path, flat).
        """
        return self.races_flat(self._color(color)).reshape(self.size, self.size)

    def string(self, vertex: Vertex) -> list[str]:
        """GTP vertices of the string at ``vertex`` (board order); ``[]`` if empty."""
        return [format_vertex(int(i), self.size) for i in self.string_indices(self._point(vertex))]

    @property
    def to_move(self) -> Color:
        """The side to move, a :class:`Color` (equal to ``"B"``/``"W"``); settable from
        anything :meth:`Color.parse` reads."""
        return color_name(self.to_move_code)

    @to_move.setter
    def to_move(self, color: ColorLike) -> None:
        self.set_to_move(parse_color(color))

    @property
    def ko_point(self) -> str | None:
        """The point that simple ko forbids to the side to move (GTP vertex), or ``None``."""
        ko = self.ko_index
        if ko < 0 or not self.ko_forbidden_for(self.to_move_code):
            return None
        return format_vertex(ko, self.size)

    @property
    def captures(self) -> dict[Color, int]:
        """Stones captured so far *by* each colour: ``{Color.BLACK: n, Color.WHITE: n}``
        (``captures["B"]`` works too: a :class:`Color` hashes as its letter)."""
        return {Color.BLACK: int(self.captures_of(BLACK_CODE)),
                Color.WHITE: int(self.captures_of(WHITE_CODE))}

    @property
    def history(self) -> list[tuple[Color, str]]:
        """``[(Color, GTP vertex or "pass"), ...]`` since the starting position."""
        return [(color_name(c), format_vertex(v, self.size)) for c, v in self.history_indices()]

    # -- scoring -------------------------------------------------------------
    def area(self) -> tuple[int, int]:
        """Tromp-Taylor area ``(black, white)`` in points: stones plus empty
        regions that reach only that colour (Tromp-Taylor rules, rule 9)."""
        black, white = self.area_counts()
        return int(black), int(white)

    def score(self, komi: float | None = None) -> float:
        """Area score ``black - white - komi`` in points; positive means Black wins.

        ``komi`` defaults to the board's komi.  Every stone on the board counts
        as alive (Tromp-Taylor): remove dead stones first if the players agree.
        A ``komi`` is checked as the board's own is: ``TypeError`` for a
        non-number, ``ValueError`` for NaN, an infinity or beyond
        +-``fastplay._board.MAX_KOMI``.
        """
        komi = self.komi if komi is None else checked_komi(komi)
        black, white = self.area()
        return black - white - komi

    def result(self, komi: float | None = None) -> str:
        """The SGF/GTP result string of :meth:`score`: ``"B+3.5"``, ``"W+0.5"`` or
        ``"0"``; one decimal, or the exact margin when one decimal would
        round it (``"W+7.25"``)."""
        s = self.score(komi)
        if s == 0:
            return "0"
        margin = abs(s)
        # One decimal (B+3.5, W+7.0) unless that rounds: then the exact margin
        # (komi 7.25 gave W+7.2, a komi of 1e-20 W+0.0, to a fresh tester).
        shown = f"{margin:.1f}" if float(f"{margin:.1f}") == margin else exact_number(margin)
        return f"{'B' if s > 0 else 'W'}+{shown}"

    # -- SGF -------------------------------------------------------------------
    @classmethod
    def from_sgf(cls, source: str | bytes | os.PathLike[str], move_number: int | None = None, *,
                 superko: bool = False, suicide: bool = False,
                 encoding: str | None = None) -> Board:
        """Load an SGF record up to ``move_number`` moves (all by default).

        ``source``: SGF ``bytes``; a ``str`` holding ``(;`` is SGF text (a
        mail header or other text before the game is skipped), any other
        ``str`` or path-like a file name.  ``encoding``: the charset of a file
        or ``bytes`` without ``CA`` (default ISO-8859-1, FF[4]'s).  Text
        properties arrive unescaped in :attr:`sgf_properties`.  See
        :func:`fastplay.sgf.load_board`; raises :class:`fastplay.SGFError`.
        """
        from fastplay.sgf import load_board

        return load_board(source, move_number, superko=superko, suicide=suicide, board_cls=cls,
                          encoding=encoding)

    def to_sgf(self) -> str:
        """The starting position and the moves played, as FF[4] SGF text
        (:func:`fastplay.sgf.board_to_sgf`): passes ``[]``, the text of
        :attr:`sgf_properties` escaped."""
        from fastplay.sgf import board_to_sgf

        return board_to_sgf(self)

    # -- dunder ----------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CoreBoard):
            return NotImplemented
        return (self.size == other.size and self.to_move_code == other.to_move_code
                and self.ko_index == other.ko_index
                and self.ko_forbidden_for(self.to_move_code)
                == other.ko_forbidden_for(other.to_move_code)
                and bool(np.array_equal(self.to_numpy(), other.to_numpy())))

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __copy__(self) -> Board:
        """:meth:`copy`, with the instance's other attributes (a subclass's,
        or ones set on the board; ``__slots__`` too) as they are."""
        new = self.copy()
        new.__dict__.update({name: value for name, value in self.__dict__.items()
                             if name not in new.__dict__})
        for name, value in _slot_values(self):
            setattr(new, name, value)
        return new

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle the board exactly (:meth:`CoreBoard.__reduce__`: its moves
        replayed through the rules when loaded) with the instance's attributes
        (:attr:`sgf_properties`, a subclass's, ``__slots__`` too)."""
        rebuild, args = super().__reduce__()
        return rebuild, args, (dict(self.__dict__), dict(_slot_values(self)))

    def __deepcopy__(self, memo: dict[int, object]) -> Board:
        """:meth:`copy`, with the instance's attributes deep-copied."""
        new = self.copy()
        memo[id(self)] = new
        new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        for name, value in _slot_values(self):
            setattr(new, name, copy.deepcopy(value, memo))
        return new

    def _repr_svg_(self) -> str:
        """The board as an SVG picture, for Jupyter: :func:`fastplay.svg.board` with its defaults."""
        from fastplay.svg import board as board_svg

        return board_svg(self)

    def __repr__(self) -> str:
        if not self.size:
            return "Board(<not initialised>)"   # (__init__ never ran: no history to count)
        return (f"Board(size={self.size}, komi={self.komi}, to_move={self.to_move.letter!r}, "
                f"move_number={self.move_number})")

    def __str__(self) -> str:
        """The text diagram of :func:`fastplay.diagram.render`, which :func:`fastplay.diagram.parse`
        reads back."""
        from fastplay.diagram import render

        return render(self)
