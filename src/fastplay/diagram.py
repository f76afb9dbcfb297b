"""Text diagrams of a board: :func:`render` writes what ``str(board)`` prints,
:func:`parse` reads it back into a :class:`~fastplay.Board`.

The format, for a 5x5 board with White to play and a ko at C3::

      A B C D E
    5 . . . . . 5
    4 . X O . . 4
    3 X O # O . 3
    2 . X O . . 2
    1 . . . . . 1
      A B C D E
    W to play; captures B 0 W 1; komi 7.5

``X`` Black, ``O`` White, ``.`` empty, ``#`` the point simple ko forbids to
the side to move.  Row numbers are GTP's (the top row is ``size``), right-
aligned to the width of the largest; columns skip the letter I.

:func:`parse` also reads the parts alone, as tests write positions: the
coordinate lines (both column headers, and the row numbers on both sides of
every row) may be left out together, and so may the status line; the cells
may be written without spaces (``XO.#``).  Blank lines before and after
the diagram are ignored.  Line and column numbers in errors count from 1 in
the text as given.

A :class:`~fastplay.Board` rebuilt from a diagram is a setup position: no
history, no captures (a board cannot be given captured stones; the status
line's counts are kept in :attr:`Diagram.captures`).  ``parse(str(b)) ==
b`` holds for every board ``b`` whose side to move was not set by hand
while a ko point stood (board equality compares the size, the stones, the
side to move and the ko point, which the diagram shows only when it binds
the side to move).
"""

from __future__ import annotations

import math

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fastplay.color import Color
from fastplay.shown import exact_number

if TYPE_CHECKING:
    from fastplay.board import Board

__all__ = ["Diagram", "DiagramError", "parse", "read", "render"]

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
MIN_SIZE, MAX_SIZE = 2, 25
CELLS = {"X": Color.BLACK, "O": Color.WHITE, ".": None, "#": None}

_STATUS = re.compile(r"(?P<to_move>[BW]) to play; captures B (?P<black>\d+) W (?P<white>\d+); "
                     r"komi (?P<komi>[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)")
_NUMBERED = re.compile(r"(?P<left>\d+) (?P<cells>.*?) ?(?P<right>\d+)")


class DiagramError(ValueError):
    """Text that is not a board diagram; ``line`` and ``column`` (from 1) say where."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"line {line}, column {column}: {message}")
        self.message = message
        self.line = line
        self.column = column

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.message, self.line, self.column))


@dataclass(frozen=True)
class Diagram:
    """What a diagram says.

    Attributes:
        size: points per side.
        black, white: the stones, as GTP vertices in board order (top row first).
        ko: the ``#`` point (GTP vertex), or ``None``.
        to_move: the side to move, ``None`` without a status line.
        captures: stones captured by each colour, ``None`` without a status line.
        komi: ``None`` without a status line.
    """

    size: int
    black: tuple[str, ...]
    white: tuple[str, ...]
    ko: str | None = None
    to_move: Color | None = None
    captures: dict[Color, int] | None = field(default=None, compare=True)
    komi: float | None = None

    def board(self, to_move: Color | str | None = None, komi: float | None = None) -> Board:
        """A new :class:`~fastplay.Board` with these stones (a setup position).

        ``to_move`` and ``komi`` supply what the diagram does not say
        (defaults: Black, 7.5); giving one the diagram also says raises
        ``ValueError``.
        """
        from fastplay.board import Board

        side = None if to_move is None else Color.parse(to_move)
        _agree("to_move", self.to_move, side)
        _agree("komi", self.komi, komi)
        side = self.to_move or side or Color.BLACK
        board = Board(self.size, komi=next((k for k in (self.komi, komi) if k is not None), 7.5))
        board.setup(black=self.black, white=self.white, to_move=side)
        if self.ko is not None:
            board.set_ko_index(_flat(self.ko, self.size), board.to_move_code)
        return board


def _agree(what: str, said: object, given: object) -> None:
    if said is not None and given is not None and said != given:
        raise ValueError(f"the diagram says {what} {said}; {given!r} contradicts it")


def _flat(vertex: str, size: int) -> int:
    return (size - int(vertex[1:])) * size + COLUMNS.index(vertex[0])


def render(board: Board) -> str:
    """The diagram of ``board`` (module docstring): what ``str(board)`` prints."""
    size = board.size
    width = len(str(size))
    header = " " * (width + 1) + " ".join(COLUMNS[:size])
    ko = board.ko_index if board.ko_point else -1
    grid = board.to_numpy()
    lines = [header]
    for i in range(size):
        cells = ["X" if v > 0 else "O" if v < 0 else "#" if i * size + j == ko else "."
                 for j, v in enumerate(grid[i].tolist())]
        number = str(size - i).rjust(width)
        lines.append(f"{number} {' '.join(cells)} {number}")
    lines.append(header)
    captures = board.captures
    lines.append(f"{board.to_move} to play; captures B {captures[Color.BLACK]} "
                 f"W {captures[Color.WHITE]}; komi {exact_number(board.komi)}")
    return "\n".join(lines)


def parse(text: str, *, to_move: Color | str | None = None, komi: float | None = None) -> Board:
    """The :class:`~fastplay.Board` a diagram shows: ``read(text).board(to_move, komi)``.

    Raises :class:`DiagramError` (a ``ValueError`` naming line and column)
    for text that is not a diagram or a position no board can hold (a
    string without liberties), ``ValueError`` when ``to_move`` or ``komi``
    contradicts the status line.
    """
    diagram = read(text)
    try:
        return diagram.board(to_move, komi)
    except ValueError as exc:
        found = re.search(r"at ([A-Z]\d+)", str(exc))
        if found is None or "liberty" not in str(exc):
            raise
        line, column = _where(text, found.group(1), diagram.size)
        raise DiagramError(f"the string at {found.group(1)} has no liberty", line,
                           column) from None


def read(text: str) -> Diagram:
    """What the diagram ``text`` says, without building a board; raises :class:`DiagramError`."""
    lines = text.splitlines()
    numbered = [(n, line) for n, line in enumerate(lines, 1) if line.strip()]
    if not numbered:
        raise DiagramError("no diagram: the text is blank", 1, 1)
    status = None
    if "to play" in numbered[-1][1]:
        status = _status(*numbered.pop())
    rows = _grid_lines(numbered)
    size = len(rows)
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise DiagramError(f"{size} rows: a board has {MIN_SIZE} to {MAX_SIZE}", rows[0][0], 1)
    black: list[str] = []
    white: list[str] = []
    kos: list[tuple[str, int, int]] = []
    for i, (n, cells) in enumerate(rows):
        if len(cells) != size:
            column = cells[size][0] if len(cells) > size else len(lines[n - 1]) + 1
            raise DiagramError(f"{len(cells)} points in this row, {size} rows: a board is square",
                               n, column)
        for j, (column, char) in enumerate(cells):
            vertex = f"{COLUMNS[j]}{size - i}"
            if char == "X":
                black.append(vertex)
            elif char == "O":
                white.append(vertex)
            elif char == "#":
                kos.append((vertex, n, column))
    if len(kos) > 1:
        raise DiagramError("a second ko point '#' (one at most)", kos[1][1], kos[1][2])
    if kos:
        _check_ko(kos[0], size, set(black), set(white))
    to_move, captures, komi = status if status is not None else (None, None, None)
    return Diagram(size, tuple(black), tuple(white), kos[0][0] if kos else None, to_move,
                   captures, komi)


def _check_ko(ko: tuple[str, int, int], size: int, black: set[str], white: set[str]) -> None:
    """A ``#`` is a point simple ko forbids: every neighbour on the board is a
    stone of one colour (the capture just made left the point surrounded)."""
    vertex, n, column = ko
    j, row = COLUMNS.index(vertex[0]), int(vertex[1:])
    neighbours = [f"{COLUMNS[c]}{r}" for c, r in ((j - 1, row), (j + 1, row), (j, row - 1),
                                                   (j, row + 1)) if 0 <= c < size and 1 <= r <= size]
    if not (all(v in black for v in neighbours) or all(v in white for v in neighbours)):
        raise DiagramError(f"a ko point '#' at {vertex} that stones of one colour do not "
                           "surround (no capture can have made it)", n, column)


def _status(n: int, line: str) -> tuple[Color, dict[Color, int], float]:
    text = line.strip()
    found = _STATUS.fullmatch(text)
    if found is None:
        raise DiagramError("expected the status line 'B to play; captures B 0 W 0; komi 7.5', "
                           f"not {text!r}", n, len(line) - len(line.lstrip()) + 1)
    captures = {Color.BLACK: int(found["black"]), Color.WHITE: int(found["white"])}
    komi = float(found["komi"])
    if not math.isfinite(komi) or abs(komi) > 1e6:
        raise DiagramError(f"komi {found['komi']} is not a komi (finite, at most 10**6 points)",
                           n, len(line) - len(line.lstrip()) + found.start("komi") + 1)
    return Color.parse(found["to_move"]), captures, komi


def _grid_lines(lines: list[tuple[int, str]]) -> list[tuple[int, list[tuple[int, str]]]]:
    """``[(line number, [(column, cell)...])...]`` of the grid, coordinates checked."""
    if lines[0][1].split()[0] == "A":
        if len(lines) < 2:
            raise DiagramError("a column header without rows", lines[0][0], 1)
        header, footer, body = lines[0], lines[-1], lines[1:-1]
        rows = [_numbered_row(n, line, len(body) - i) for i, (n, line) in enumerate(body)]
        for n, line in (header, footer):
            _check_header(n, line, len(rows))
        return rows
    for n, line in lines:
        if line.strip()[0].isdigit():
            raise DiagramError("row numbers without column letters: give both or neither", n,
                               len(line) - len(line.lstrip()) + 1)
    return [(n, _cells(n, line, 0, len(line))) for n, line in lines]


def _numbered_row(n: int, line: str, number: int) -> tuple[int, list[tuple[int, str]]]:
    start = len(line) - len(line.lstrip())
    found = _NUMBERED.fullmatch(line.strip())
    if found is None:
        raise DiagramError(f"expected row {number}: its number, its points, its number again",
                           n, start + 1)
    for side in ("left", "right"):
        if int(found[side]) != number:
            raise DiagramError(f"row number {found[side]} where row {number} belongs", n,
                               start + found.start(side) + 1)
    return n, _cells(n, line, start + found.start("cells"), start + found.end("cells"))


def _cells(n: int, line: str, begin: int, end: int) -> list[tuple[int, str]]:
    """The cells of ``line[begin:end]`` with their columns (from 1): spaced or compact."""
    tokens = [(m.start() + 1, m.group()) for m in re.finditer(r"\S+", line[begin:end])]
    if len(tokens) == 1 and len(tokens[0][1]) > 1:
        tokens = [(tokens[0][0] + k, ch) for k, ch in enumerate(tokens[0][1])]
    cells = []
    for column, token in tokens:
        column += begin
        if len(token) != 1:
            raise DiagramError(f"{token!r} is not a point: points are one character apart",
                               n, column)
        if token not in CELLS:
            raise DiagramError(f"{token!r} is not a point: expected X (Black), O (White), "
                               ". (empty) or # (ko)", n, column)
        cells.append((column, token))
    return cells


def _check_header(n: int, line: str, size: int) -> None:
    letters = line.split()
    if letters != list(COLUMNS[:size]):
        wrong = next((k for k, (a, b) in enumerate(zip(letters, COLUMNS[:size])) if a != b),
                     min(len(letters), size))
        column = [m.start() + 1 for m in re.finditer(r"\S", line)]
        where = column[wrong] if wrong < len(column) else len(line) + 1
        raise DiagramError(f"expected the column letters {' '.join(COLUMNS[:size])}", n, where)


def _where(text: str, vertex: str, size: int) -> tuple[int, int]:
    """Line and column of ``vertex``'s cell in ``text`` (the first grid line if not found)."""
    rows = _grid_lines([(n, line) for n, line in enumerate(text.splitlines(), 1)
                        if line.strip() and "to play" not in line])
    i, j = size - int(vertex[1:]), COLUMNS.index(vertex[0])
    n, cells = rows[i]
    return n, cells[j][0]
