"""Large patterns for the learned prior: the diamond-shaped neighbourhood of a move.

A move's *shape* of radius ``r`` is what lies on the points within Manhattan
distance ``r`` of it (centre excluded: 12 points at radius 2, 24 at 3, 40 at
4, 60 at 5), each empty, the mover's stone, the opponent's or off the board,
taken up to the 8 symmetries of the square.  The core hashes them
(:func:`fastplay._core.shape_hashes`: one 64-bit hash per pattern, the same
for its rotations and reflections).  These are the "large patterns" of
Coulom, "Computing Elo ratings of move patterns in the game of Go", ICGA
Journal 30(4), 2007, section 2.2 (after Stern, Herbrich and Graepel, ICML
2006): nested shapes, a move taking the largest of its shapes that the
training moves played often enough.

A :class:`ShapeTable` is one feature group of :mod:`fastplay.prior`'s model:
the kept patterns per radius and one strength per kept pattern, plus the
strength of a move none of whose shapes was kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from fastplay._core import SHAPE_RADIUS_MAX, ShapeIndex, shape_hashes
from fastplay._equality import fields_equal

__all__ = ["ShapeTable", "SHAPE_RADIUS_MAX", "shape_hashes"]

if TYPE_CHECKING:  # pragma: no cover - typing only
    from fastplay.board import Board


@dataclass(frozen=True)
class ShapeTable:
    """The kept large patterns and their strengths.

    Attributes:
        hashes: one sorted ``uint64[n_r]`` of distinct pattern hashes per
            radius, radius 2 first (so ``len(hashes)`` is the largest radius
            minus 1).
        gamma: ``float64[1 + sum(n_r)]``, the strength of every label: 0 for
            a move with no kept shape, then the radius-2 patterns in hash
            order, then radius 3's, and so on.
    """

    __eq__ = fields_equal

    hashes: tuple[npt.NDArray[np.uint64], ...]
    gamma: npt.NDArray[np.float64]

    def __post_init__(self) -> None:
        """Check the table (the core's :class:`ShapeIndex` does, and is kept
        for :meth:`row`) and keep read-only copies of its arrays, so that
        :meth:`labels` and :meth:`row` always read the same table.

        Raises:
            ValueError: not 1 to 4 radii of sorted, distinct non-negative
                integer hashes, or not one positive, finite strength per label.
        """
        index = ShapeIndex(self.hashes, self.gamma)
        hashes = tuple(np.array(h, dtype=np.uint64) for h in self.hashes)
        gamma = np.array(self.gamma, dtype=np.float64)
        for array in (*hashes, gamma):
            array.setflags(write=False)
        object.__setattr__(self, "hashes", hashes)
        object.__setattr__(self, "gamma", gamma)
        self.__dict__["_index"] = index

    @property
    def radius(self) -> int:
        """The largest radius read."""
        return len(self.hashes) + 1

    @classmethod
    def select(cls, shapes: npt.NDArray[np.uint64], chosen: npt.NDArray[np.bool_],
               min_count: int) -> ShapeTable:
        """The patterns played at least ``min_count`` times, every strength 1.

        Args:
            shapes: ``uint64[k, R - 1]``, the hashes of ``k`` candidate moves
                at radius 2..R (:attr:`fastplay.prior.MoveSamples.shapes`).
            chosen: ``bool[k]``, the candidates that were played.
            min_count: plays a pattern needs to be kept (at least 1).

        Raises:
            ValueError: ``min_count`` below 1, or mismatched shapes.
        """
        if min_count < 1:
            raise ValueError(f"min_count must be at least 1, not {min_count}")
        if shapes.ndim != 2 or chosen.shape != (shapes.shape[0],):
            raise ValueError("shapes must be uint64[k, R - 1] and chosen bool[k]")
        kept = []
        for column in shapes[chosen].T:
            values, counts = np.unique(column, return_counts=True)
            kept.append(values[counts >= min_count].astype(np.uint64))
        return cls(tuple(kept), np.ones(1 + sum(len(h) for h in kept)))

    def labels(self, shapes: npt.NDArray[np.uint64]) -> npt.NDArray[np.int64]:
        """``int64[k]``: the label of each of ``k`` moves' shapes
        (``uint64[k, R' - 1]``, ``R'`` at least :attr:`radius`): its largest
        kept pattern's, 0 for none (the core's rule, as the search reads it:
        :meth:`ShapeIndex.label_hashes`).

        Raises:
            ValueError: another shape, or not integers.
        """
        return self._index.label_hashes(shapes)

    @property
    def _index(self) -> ShapeIndex:
        """The core's labeller of these patterns (it keeps a cache of the
        shapes it has met), made by ``__post_init__``; pickles and copies
        carry it."""
        index: ShapeIndex = self.__dict__["_index"]
        return index

    def row(self, board: Board, base: npt.ArrayLike | None = None) -> npt.NDArray[np.float64]:
        """``float64[size*size]``: the strength of the shape of every empty
        point for ``board``'s side to move, ``gamma[labels(shape_hashes(board,
        to_move, radius).T)]``, times ``base`` (``float64[size*size]``,
        default 1; a stone's entry stays ``base``'s), clipped to [1e-6, 1e6]:
        from the core in one pass.

        Raises:
            ValueError: a ``base`` of another length, or with a value that is
                not positive and finite.
        """
        if base is None:
            base = np.ones(board.size * board.size)
        return self._index.factors(board, board.to_move_code, base)
