"""Errors of fastplay that need nothing compiled (the core's :class:`IllegalMoveError`
lives in :mod:`fastplay._core`).

* :class:`InvalidVertexError` -- a vertex that names no point of the board:
  malformed text, the wrong type or shape, a point outside the board, or a
  pass where a point is needed.  That is syntax, not a rule of Go, so it is
  a ``ValueError`` and *not* an :class:`~fastplay.IllegalMoveError` (as
  python-chess keeps ``InvalidMoveError`` apart from ``IllegalMoveError``).
"""

from __future__ import annotations

__all__ = ["InvalidVertexError"]


class InvalidVertexError(ValueError):
    """A vertex that names no point of the board (a ``ValueError``).

    Attributes: ``vertex`` -- the vertex as given; ``rule`` -- ``"bad vertex"``
    when it cannot be read (text, type or shape; or ``"pass"`` where a
    point is needed), ``"off-board"`` when it is well formed but outside
    the board.  ``rule`` keeps the name of the attribute that
    :class:`~fastplay.IllegalMoveError` carried for these cases before.
    """

    REASONS = ("bad vertex", "off-board")

    def __init__(self, message: str, rule: str = "bad vertex", vertex: object = None) -> None:
        super().__init__(message)
        if rule not in self.REASONS:
            raise ValueError(f"InvalidVertexError rule must be one of {self.REASONS}, not {rule!r}")
        self.rule = rule
        self.vertex = vertex
