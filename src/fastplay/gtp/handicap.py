"""GTP 2 handicap commands (section 4.1.1 of the GTP 2 specification, draft 2).

``fixed_handicap N`` places the specification's points: on odd sizes from
9x9 up 2 to 9 stones, on even sizes and on 7x7 at most 4, none below 7x7;
the corner points are on the 4th line from 13x13 up and on the 3rd line
below.  ``place_free_handicap N`` lets the engine choose (the fixed points
first, then points spread over the board away from the edge);
``set_free_handicap V...`` places the vertices given.  All three need an
empty board, change nothing when they fail, are not undoable (the stones
become the starting position) and leave White to move.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from fastplay.board import format_vertex, parse_vertex
from fastplay.gtp.protocol import GTPError, parse_int, take_args

if TYPE_CHECKING:
    from fastplay.gtp.engine import GTPEngine

__all__ = ["COMMANDS", "fixed_points", "max_fixed", "free_points"]


def max_fixed(size: int) -> int:
    """Most stones ``fixed_handicap`` places on ``size``: 9, 4 or 0."""
    if size < 7:
        return 0
    return 9 if size % 2 == 1 and size >= 9 else 4


def fixed_points(size: int, count: int) -> list[tuple[int, int]]:
    """The (row, col) points of ``count`` fixed handicap stones (row 0 the
    top), in the specification's order; ``ValueError`` for a count the size
    does not allow."""
    if not 2 <= count <= max_fixed(size):
        raise ValueError(f"{size}x{size} allows 2 to {max_fixed(size)} fixed handicap stones"
                         if max_fixed(size) else f"{size}x{size} has no fixed handicap")
    d = 3 if size >= 13 else 2
    low, high, mid = size - 1 - d, d, size // 2          # rows: low is near row 1
    left, right = d, size - 1 - d
    corners = [(low, left), (high, right), (high, left), (low, right)]   # D4 Q16 D16 Q4
    sides = [(mid, left), (mid, right)]                                  # D10 Q10
    tops = [(low, mid), (high, mid)]                                     # K4 K16
    centre = [(mid, mid)]
    order = {2: corners[:2], 3: corners[:3], 4: corners, 5: corners + centre,
             6: corners + sides, 7: corners + sides + centre, 8: corners + sides + tops,
             9: corners + sides + tops + centre}
    return order[count]


def free_points(size: int, count: int) -> list[tuple[int, int]]:
    """``count`` points the engine chooses: the fixed ones as far as they go,
    then, one by one, the point farthest from the stones already chosen
    (off the first line where possible; ties to the first in scan order)."""
    start = min(count, max_fixed(size))
    chosen = fixed_points(size, start) if start >= 2 else []
    inner = [(r, c) for r in range(size) for c in range(size)
             if 0 < r < size - 1 and 0 < c < size - 1] or \
        [(r, c) for r in range(size) for c in range(size)]
    while len(chosen) < count:
        pool = [p for p in inner if p not in chosen] or \
            [(r, c) for r in range(size) for c in range(size) if (r, c) not in chosen]
        best = max(pool, key=lambda p: min((abs(p[0] - q[0]) + abs(p[1] - q[1])
                                            for q in chosen), default=size))
        chosen.append(best)
    return chosen


def _place(engine: GTPEngine, points: list[tuple[int, int]]) -> str:
    """Put Black stones on ``points`` of the empty board, White to move."""
    board = engine.board
    if board.to_numpy().any():
        raise GTPError("board not empty")
    vertices = [format_vertex(r * board.size + c, board.size) for r, c in points]
    board.setup(black=vertices, to_move="W")
    board.sgf_properties["HA"] = str(len(points))
    engine.dead_cache = None
    return " ".join(v.upper() for v in vertices)


def _count(args: Sequence[str]) -> int:
    (text,) = take_args(args, 1)
    try:
        return parse_int(text, "handicap")
    except GTPError:
        raise GTPError("handicap not an integer") from None


def fixed_handicap(engine: GTPEngine, args: Sequence[str]) -> str:
    """``fixed_handicap N``: the standard points; ``?`` for a count the size does not allow."""
    count = _count(args)
    size = engine.board.size
    try:
        points = fixed_points(size, count)
    except ValueError as exc:
        raise GTPError(f"invalid handicap: {exc}") from None
    return _place(engine, points)


def place_free_handicap(engine: GTPEngine, args: Sequence[str]) -> str:
    """``place_free_handicap N``: 2 to size*size - 1 stones where the engine chooses."""
    count = _count(args)
    size = engine.board.size
    if not 2 <= count < size * size:
        raise GTPError(f"invalid handicap: 2 to {size * size - 1} stones on {size}x{size}")
    if engine.board.to_numpy().any():
        raise GTPError("board not empty")
    return _place(engine, free_points(size, count))


def set_free_handicap(engine: GTPEngine, args: Sequence[str]) -> str:
    """``set_free_handicap V1 V2 ...``: at least 2 distinct vertices, no pass."""
    size = engine.board.size
    points: list[tuple[int, int]] = []
    for text in args:
        if text.lower() == "pass":
            raise GTPError("invalid coordinate: pass is not a handicap point")
        try:
            index = parse_vertex(text.lower(), size)
        except ValueError:
            raise GTPError(f"invalid coordinate: {text[:20]} (on {size}x{size})") from None
        point = divmod(index, size)
        if point in points:
            raise GTPError("repeated vertex")
        points.append(point)
    if len(points) < 2:        # each vertex is checked first, so a bad one is named
        raise GTPError("invalid handicap: at least 2 vertices")
    if len(points) >= size * size:
        raise GTPError("invalid handicap: the board would be full")
    _place(engine, points)
    return ""


COMMANDS: dict[str, Callable[[GTPEngine, Sequence[str]], str]] = {
    "fixed_handicap": fixed_handicap,
    "place_free_handicap": place_free_handicap,
    "set_free_handicap": set_free_handicap,
}
