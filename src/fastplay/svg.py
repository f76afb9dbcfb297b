"""Pictures of a board as SVG text, for notebooks and web pages.

Modelled on python-chess's ``chess.svg``: plain functions return a complete
SVG document (``str``) with no dependency beyond numpy, and
:meth:`fastplay.Board._repr_svg_` makes Jupyter show a board as a picture.

* :func:`board` -- the grid, star points, coordinates (GTP letters without
  I, row 1 at the bottom), stones, the last move (a ring on its stone), the
  ko point (a square), optional ownership shading and text labels.
* :func:`search_result` -- a board with the top moves of a search
  (:class:`fastplay.search.SearchResult` or a :class:`SearchInfo`
  snapshot): each candidate a disc holding its win rate in percent, the
  best one highlighted, the ownership of the search shaded, and a caption.

Elements carry classes (``grid``, ``star``, ``coord``, ``stone black``,
``stone white``, ``last-move``, ``ko``, ``ownership``, ``dead``, ``label``,
``candidate``, ``best``, ``caption``) so a page's CSS can restyle them.

Orientation is :meth:`Board.to_numpy`'s: ``ownership[0]`` is the top row
(the highest GTP row number), ``(row, col)`` vertices count rows from the top.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol
from xml.sax.saxutils import escape, quoteattr

import numpy as np
import numpy.typing as npt

from fastplay._checks import is_integer, is_real

if TYPE_CHECKING:  # pragma: no cover - typing only; board imports us lazily
    from fastplay.board import Board

__all__ = ["board", "search_result", "star_points", "COLORS"]

#: Default colours (CSS colour strings) of the picture's parts.
COLORS: dict[str, str] = {
    "background": "#dcb35c",   # kaya wood
    "line": "#000000",
    "coord": "#3b2a10",
    "black": "#111111",
    "white": "#f7f7f2",
    "stone_edge": "#000000",
    "last_on_black": "#ffffff",
    "last_on_white": "#000000",
    "candidate": "#a6d8f0",
    "best": "#3aa0e0",
    "label_on_black": "#ffffff",
    "label_on_white": "#000000",
    "label": "#000000",
}

SQUARE = 24.0                  # one grid step, in SVG user units
_FONT = "Helvetica, Arial, sans-serif"
# characters XML 1.0 cannot hold, even escaped (lone surrogates included: no
# encoding writes them)
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


class _Searchish(Protocol):
    """What :func:`search_result` reads: ``SearchResult`` and ``SearchInfo`` both have it."""

    @property
    def children(self) -> Sequence[Any]: ...

    @property
    def ownership(self) -> npt.NDArray[np.float32]: ...

    @property
    def winrate(self) -> float: ...

    @property
    def best_move(self) -> str: ...


def star_points(size: int) -> list[tuple[int, int]]:
    """The star points (hoshi) of a ``size x size`` board as ``(row, col)``, row 0 at the top.

    19x19: the nine points on the 4th lines and the middle lines; 13x13: the
    four 4-4 points and the centre; 9x9: the four 3-3 points and the centre.
    Other sizes follow the same rule: corner points on the 4th line from 13
    up, on the 3rd line from 7 to 12; the centre on odd sizes from 5 up;
    the points between the corner points on odd sizes from 15 up; none below 5.
    """
    if size < 5:
        return []
    middle = size // 2 if size % 2 else None
    points: set[tuple[int, int]] = set()
    if size >= 7:
        edge = 3 if size >= 13 else 2
        lines = [edge, size - 1 - edge]
        if middle is not None and size >= 15:
            lines.append(middle)
        points.update((r, c) for r in lines for c in lines)
    if middle is not None:
        points.add((middle, middle))
    return sorted(points)


# ---------------------------------------------------------------------------
# checking the arguments


def _check_board(obj: object) -> Board:
    from fastplay.board import Board

    if not isinstance(obj, Board):
        raise TypeError(f"expected a fastplay.Board, got {type(obj).__name__}")
    return obj


def _check_ownership(ownership: npt.ArrayLike | None,
                     size: int) -> npt.NDArray[np.float64] | None:
    if ownership is None:
        return None
    try:
        raw = np.asarray(ownership)
        if np.iscomplexobj(raw):
            # float64 would drop the imaginary part with only a NumPy warning.
            raise TypeError("complex values")
        own = raw.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"ownership must be numbers in [-1, 1]: {exc}") from None
    if own.shape != (size, size):
        raise ValueError(f"ownership must have shape ({size}, {size}) for this board, "
                         f"got {own.shape}")
    bad = np.argwhere(~np.isfinite(own))
    if bad.size:
        r, c = (int(x) for x in bad[0])
        raise ValueError(f"ownership holds {int(bad.shape[0])} NaN or infinite value(s), "
                         f"the first at row {r}, column {c} ({_vertex_name(r, c, size)})")
    out = np.argwhere(np.abs(own) > 1.0)
    if out.size:
        r, c = (int(x) for x in out[0])
        raise ValueError(f"ownership must lie in [-1, 1]: {own[r, c]:g} at row {r}, column {c} "
                         f"({_vertex_name(r, c, size)})")
    return own


def _vertex_name(row: int, col: int, size: int) -> str:
    from fastplay.board import format_vertex

    return format_vertex(row * size + col, size)


def _check_labels(labels: Mapping[Any, object] | None, size: int) -> dict[int, str]:
    from fastplay.board import PASS, InvalidVertexError, format_vertex, parse_vertex

    if labels is None:
        return {}
    if not isinstance(labels, Mapping):
        raise TypeError(f"labels must be a mapping vertex -> text, not {type(labels).__name__}")
    out: dict[int, str] = {}
    for vertex, text in labels.items():
        try:
            index = parse_vertex(vertex, size)
        except InvalidVertexError as exc:
            raise ValueError(f"labels: {exc}") from None
        if index == PASS:
            raise ValueError(f"labels: {vertex!r} names no point of the board")
        name = format_vertex(index, size)
        if index in out:
            raise ValueError(f"labels name {name} twice")
        if not isinstance(text, str) and not is_real(text):
            raise TypeError(f"labels[{vertex!r}] must be text or a number, "
                            f"not {type(text).__name__}")
        if not isinstance(text, str) and not math.isfinite(text):
            raise ValueError(f"labels[{vertex!r}] must be a finite number, not {text}")
        value = text if isinstance(text, str) else (
            f"{text:g}" if isinstance(text, (float, np.floating)) else str(text))
        if _XML_INVALID.search(value):
            raise ValueError(f"labels[{vertex!r}] holds a control character or a lone "
                             "surrogate, which SVG (XML) cannot hold")
        out[index] = value
    return out


def _check_size(size: int | None) -> None:
    if size is None:
        return
    if not is_integer(size):
        raise TypeError(f"size must be an int (pixels) or None, not {type(size).__name__}")
    if size <= 0:
        raise ValueError(f"size must be positive (pixels), got {size}")


# ---------------------------------------------------------------------------
# drawing


def _num(x: float) -> str:
    """A coordinate with at most two decimals, no trailing zeros."""
    text = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


class _Picture:
    """The geometry of one board picture and its SVG elements."""

    def __init__(self, n: int, coordinates: bool, caption: bool) -> None:
        self.n = n
        self.coordinates = coordinates
        self.margin = SQUARE * (1.35 if coordinates else 0.6)
        self.width = 2 * self.margin + (n - 1) * SQUARE
        self.height = self.width + (SQUARE * 1.1 if caption else 0.0)
        self.parts: list[str] = []

    def x(self, col: int) -> float:
        return self.margin + col * SQUARE

    def y(self, row: int) -> float:
        return self.margin + row * SQUARE

    def add(self, element: str) -> None:
        self.parts.append(element)

    def text(self, x: float, y: float, text: str, size: float, fill: str, cls: str,
             weight: str = "normal") -> None:
        # the baseline a third of the font size below the centre: centred
        # without dominant-baseline, which some renderers ignore
        bold = ' font-weight="bold"' if weight == "bold" else ""
        self.add(f'<text class="{cls}" x="{_num(x)}" y="{_num(y + 0.35 * size)}" '
                 f'font-size="{_num(size)}" fill="{fill}"{bold} '
                 f'text-anchor="middle">{escape(text)}</text>')

    def document(self, size: int | None) -> str:
        dims = "" if size is None else \
            f' width="{int(size)}" height="{_num(size * self.height / self.width)}"'
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1"{dims} '
                f'viewBox="0 0 {_num(self.width)} {_num(self.height)}" '
                f'font-family={quoteattr(_FONT)}>')
        return "\n".join([head, *self.parts, "</svg>"]) + "\n"


def _draw_board(pic: _Picture, n: int, ownership: npt.NDArray[np.float64] | None) -> None:
    pic.add(f'<rect class="board" x="0" y="0" width="{_num(pic.width)}" '
            f'height="{_num(pic.width)}" fill="{COLORS["background"]}"/>')
    if ownership is not None:
        _draw_ownership(pic, n, ownership)
    lo, hi = pic.x(0), pic.x(n - 1)
    path = "".join(f"M{_num(lo)} {_num(pic.y(i))}H{_num(hi)}" for i in range(n)) + \
        "".join(f"M{_num(pic.x(i))} {_num(lo)}V{_num(hi)}" for i in range(n))
    pic.add(f'<path class="grid" d="{path}" stroke="{COLORS["line"]}" '
            f'stroke-width="{_num(SQUARE * 0.04)}" stroke-linecap="square" fill="none"/>')
    pic.add(f'<rect class="grid edge" x="{_num(lo)}" y="{_num(lo)}" width="{_num(hi - lo)}" '
            f'height="{_num(hi - lo)}" stroke="{COLORS["line"]}" '
            f'stroke-width="{_num(SQUARE * 0.08)}" fill="none"/>')
    for r, c in star_points(n):
        pic.add(f'<circle class="star" cx="{_num(pic.x(c))}" cy="{_num(pic.y(r))}" '
                f'r="{_num(SQUARE * 0.11)}" fill="{COLORS["line"]}"/>')
    if pic.coordinates:
        from fastplay.board import COLUMNS

        font = SQUARE * 0.42
        near, far = pic.margin - SQUARE * 0.85, pic.x(n - 1) + SQUARE * 0.85
        for i in range(n):
            for y in (near, far):
                pic.text(pic.x(i), y, COLUMNS[i], font, COLORS["coord"], "coord")
            for x in (near, far):
                pic.text(x, pic.y(i), str(n - i), font, COLORS["coord"], "coord")


def _draw_ownership(pic: _Picture, n: int, ownership: npt.NDArray[np.float64]) -> None:
    half = SQUARE / 2
    for r in range(n):
        for c in range(n):
            v = float(ownership[r, c])
            if abs(v) < 0.05:
                continue
            colour = COLORS["black"] if v > 0 else COLORS["white"]
            pic.add(f'<rect class="ownership" x="{_num(pic.x(c) - half)}" '
                    f'y="{_num(pic.y(r) - half)}" width="{_num(SQUARE)}" height="{_num(SQUARE)}" '
                    f'fill="{colour}" fill-opacity="{_num(0.75 * abs(v))}"/>')


def _draw_stones(pic: _Picture, grid: npt.NDArray[np.int8],
                 ownership: npt.NDArray[np.float64] | None) -> None:
    n = pic.n
    for r in range(n):
        for c in range(n):
            v = int(grid[r, c])
            if not v:
                continue
            colour = "black" if v > 0 else "white"
            pic.add(f'<circle class="stone {colour}" cx="{_num(pic.x(c))}" '
                    f'cy="{_num(pic.y(r))}" r="{_num(SQUARE * 0.47)}" fill="{COLORS[colour]}" '
                    f'stroke="{COLORS["stone_edge"]}" stroke-width="{_num(SQUARE * 0.04)}"/>')
            if ownership is not None and ownership[r, c] * v < -0.3:
                # the other colour owns the point: a dead stone
                owner = COLORS["white"] if v > 0 else COLORS["black"]
                side = SQUARE * 0.36
                pic.add(f'<rect class="dead" x="{_num(pic.x(c) - side / 2)}" '
                        f'y="{_num(pic.y(r) - side / 2)}" width="{_num(side)}" '
                        f'height="{_num(side)}" fill="{owner}" '
                        f'fill-opacity="{_num(abs(float(ownership[r, c])))}"/>')


def _draw_marks(pic: _Picture, target: Board, grid: npt.NDArray[np.int8], last_move: bool,
                skip: set[int]) -> None:
    from fastplay.board import parse_vertex

    n = pic.n
    ko = target.ko_point
    if ko is not None:
        index = parse_vertex(ko, n)
        r, c = divmod(index, n)
        side = SQUARE * 0.42
        pic.add(f'<rect class="ko" x="{_num(pic.x(c) - side / 2)}" y="{_num(pic.y(r) - side / 2)}" '
                f'width="{_num(side)}" height="{_num(side)}" fill="none" '
                f'stroke="{COLORS["line"]}" stroke-width="{_num(SQUARE * 0.07)}"/>')
    if not last_move:
        return
    history = target.history
    if not history or history[-1][1] == "pass":
        return
    index = parse_vertex(history[-1][1], n)
    r, c = divmod(index, n)
    if index in skip or not grid[r, c]:
        return  # a label covers it, or the stone took itself off (suicide)
    colour = COLORS["last_on_black"] if grid[r, c] > 0 else COLORS["last_on_white"]
    pic.add(f'<circle class="last-move" cx="{_num(pic.x(c))}" cy="{_num(pic.y(r))}" '
            f'r="{_num(SQUARE * 0.24)}" fill="none" stroke="{colour}" '
            f'stroke-width="{_num(SQUARE * 0.08)}"/>')


def _draw_labels(pic: _Picture, grid: npt.NDArray[np.int8], labels: dict[int, str],
                 discs: dict[int, str]) -> None:
    n = pic.n
    for index, text in labels.items():
        r, c = divmod(index, n)
        x, y = pic.x(c), pic.y(r)
        stone = int(grid[r, c])
        cls = "label"
        if stone:
            fill = COLORS["label_on_black"] if stone > 0 else COLORS["label_on_white"]
        else:
            # a disc hides the grid lines under the text
            disc = discs.get(index, COLORS["background"])
            cls = "label candidate best" if disc == COLORS["best"] else \
                "label candidate" if index in discs else "label"
            pic.add(f'<circle class="{cls}" cx="{_num(x)}" cy="{_num(y)}" '
                    f'r="{_num(SQUARE * 0.46)}" fill="{disc}"/>')
            fill = COLORS["label"]
        size = SQUARE * min(0.55, 1.25 / max(1, len(text)))
        pic.text(x, y, text, size, fill, cls, weight="bold" if index in discs else "normal")


def _render(target: Board, *, ownership: npt.NDArray[np.float64] | None,
            labels: dict[int, str], discs: dict[int, str], last_move: bool, size: int | None,
            coordinates: bool, caption: str | None) -> str:
    n = int(target.size)
    grid = target.to_numpy()
    pic = _Picture(n, coordinates, caption is not None)
    _draw_board(pic, n, ownership)
    _draw_stones(pic, grid, ownership)
    _draw_marks(pic, target, grid, last_move, set(labels))
    _draw_labels(pic, grid, labels, discs)
    if caption is not None:
        pic.add(f'<rect class="caption" x="0" y="{_num(pic.width)}" width="{_num(pic.width)}" '
                f'height="{_num(pic.height - pic.width)}" fill="#ffffff"/>')
        # Helvetica's letters average about 0.55 em: the caption fits the width
        font = min(SQUARE * 0.5, 1.7 * pic.width / max(1, len(caption)))
        pic.text(pic.width / 2, pic.width + (pic.height - pic.width) / 2, caption, font,
                 "#000000", "caption")
    return pic.document(size)


# ---------------------------------------------------------------------------
# the public functions


def board(board: Board, *, ownership: npt.ArrayLike | None = None,
          labels: Mapping[Any, object] | None = None, last_move: bool = True,
          size: int | None = None, coordinates: bool = True) -> str:
    """An SVG picture of ``board``.

    Args:
        board: a :class:`fastplay.Board` (2x2 to 25x25).
        ownership: ``float[size, size]`` in [-1, 1], +1 Black, row 0 the top
            row (:meth:`Board.to_numpy`'s orientation, what
            ``SearchResult.ownership`` holds): each point is shaded black or
            white with an opacity growing with ``|ownership|``; a stone the
            other colour owns (by more than 0.3) gets a square of its owner's
            colour (a dead stone).
        labels: ``{vertex: text}``: a GTP vertex (``"D4"``), ``(row, col)``
            with row 0 at the top or a flat index; the text (``str`` or a
            number, shown with ``str``/``:g``) is XML-escaped and drawn on
            the point, on a disc of the board's colour that hides the grid on
            an empty point.  A label on the last move replaces its ring.
        last_move: ring the stone of the last move of :attr:`Board.history`
            (nothing for a pass, or with no history).
        size: width in pixels; ``None`` (default) gives no ``width``/``height``,
            so the picture fills its container (as ``chess.svg`` does).
        coordinates: GTP coordinates on the four sides (letters without I,
            row 1 at the bottom).

    Returns:
        A complete SVG document (``<svg xmlns=...>...</svg>`` and a newline).

    Raises:
        TypeError: ``board`` is not a Board, ``size`` not an int, ``labels``
            not a mapping or a label not text or a number.
        ValueError: ``ownership`` of the wrong shape, holding NaN or
            infinity, or outside [-1, 1]; a label on a vertex that is off
            the board, malformed, ``"pass"`` or named twice, or holding a
            control character; ``size`` not positive.  Each message names
            the problem (and the vertex).
    """
    target = _check_board(board)
    n = int(target.size)
    _check_size(size)
    return _render(target, ownership=_check_ownership(ownership, n),
                   labels=_check_labels(labels, n), discs={}, last_move=bool(last_move),
                   size=size, coordinates=bool(coordinates), caption=None)


def search_result(board: Board, result: _Searchish, top: int = 5, *,
                  ownership: bool = True, size: int | None = None,
                  coordinates: bool = True) -> str:
    """An SVG picture of the top moves of a search on ``board``.

    ``result`` is a :class:`fastplay.search.SearchResult` or a
    :class:`fastplay.search.SearchInfo` (anything with ``children``,
    ``ownership``, ``winrate`` and ``best_move``) of a search of ``board``,
    which must be the position searched (a result's own ``position``, when it
    has one, must equal it: a tester's caption named an occupied point).  The
    first ``top`` visited children are drawn as discs holding the move's win
    rate (per cent, for the side to move), the disc of ``best_move`` darker;
    a pass (counted among the ``top``) has no point to be drawn on.  With
    ``ownership`` the search's ownership is shaded (unless it is all zeros:
    the search ran no playouts).  A caption says who is to play, the best
    move, its win rate and the visits.

    Raises:
        TypeError: ``board`` is not a Board, ``top`` not an int.
        ValueError: ``top`` < 1, or the result does not fit the board
            (ownership of another size, a candidate off the board, a
            ``position`` other than ``board``).
    """
    from fastplay.board import PASS, parse_vertex

    target = _check_board(board)
    searched = getattr(result, "position", None)
    if searched is not None and (searched.size, searched.zobrist_hash, searched.to_move) != (
            target.size, target.zobrist_hash, target.to_move):
        raise ValueError("the result is of another position than board (result.position "
                         "is the one searched)")
    n = int(target.size)
    if not is_integer(top):
        raise TypeError(f"top must be an int, not {type(top).__name__}")
    top = int(top)
    if top < 1:
        raise ValueError(f"top must be >= 1, got {top}")
    _check_size(size)
    own = _check_ownership(result.ownership, n) if ownership else None
    if own is not None and not own.any():
        own = None
    grid = target.to_numpy().reshape(-1)
    labels: dict[int, str] = {}
    discs: dict[int, str] = {}
    shown = 0
    visits_total = 0
    for child in result.children:
        visits_total += int(child.visits)
        if shown >= top or child.visits <= 0 or not math.isfinite(child.winrate):
            continue
        shown += 1
        if child.move in ("pass", "resign"):
            continue
        try:
            index = parse_vertex(child.move, n)
        except ValueError as exc:
            raise ValueError(f"the result does not fit this {n}x{n} board: {exc}") from None
        if index == PASS or grid[index]:
            continue
        labels[index] = f"{100 * child.winrate:.0f}"
        discs[index] = COLORS["best"] if child.move == result.best_move else COLORS["candidate"]
    best = str(result.best_move)
    to_move = target.to_move.name.capitalize()
    caption = (f"{to_move} to play: best {best.upper() if best != 'pass' else 'pass'}, "
               f"{100 * float(result.winrate):.1f}% for {to_move}, {visits_total} visits")
    return _render(target, ownership=own, labels=labels, discs=discs, last_move=True,
                   size=size, coordinates=bool(coordinates), caption=caption)
