"""Dynamic komi: value-based situational compensation.

Baudis, "Balancing MCTS by dynamically adjusting the komi value", ICGA
Journal 34(3), 2011: a search ahead by a wide margin sees almost only wins
and plays slack moves; raising the komi against the searching side after a
search whose best value is high (lowering it after a low one) makes it keep
its margin.  Meant for handicap games; in even 9x9 games against GNU Go it
lost more often, so it is off by default (RESULTS.md, "Where the search's
constants come from").
"""

from __future__ import annotations

from fastplay._core import BLACK as BLACK_CODE
from fastplay._core import TreeNode
from fastplay.board import Board

__all__ = ["DynamicKomi", "KOMI_RAISE", "KOMI_LOWER"]

#: The extra komi grows by one step after a search whose best value is above
#: KOMI_RAISE and shrinks (never below 0) after one below KOMI_LOWER.
KOMI_RAISE = 0.6
KOMI_LOWER = 0.45


class DynamicKomi:
    """The extra komi against each searching side (colour code -> points).

    Args:
        step: points per adjustment (0: off; the komi is then the game's).
    """

    def __init__(self, step: float) -> None:
        self.step = step
        self.extra: dict[int, float] = {}

    def clear(self) -> None:
        """A new game: no extra komi."""
        self.extra.clear()

    def komi_for(self, board: Board) -> float:
        """The komi the playouts of a search for ``board``'s side to move use:
        the game's, moved against that side by its extra komi."""
        extra = self.extra.get(board.to_move_code, 0.0)
        return board.komi + (extra if board.to_move_code == BLACK_CODE else -extra)

    def adjust(self, board: Board, root: TreeNode | None) -> None:
        """After a search of ``board`` with tree ``root``: raise or lower the
        extra komi against its side to move by ``step`` from the best move's
        value, capped at a quarter of the board's points."""
        if root is None or root.n.sum() == 0:
            return
        best = int(root.n.argmax())
        value = float(root.w[best] / root.n[best])
        color = board.to_move_code
        extra = self.extra.get(color, 0.0)
        if value > KOMI_RAISE:
            extra += self.step
        elif value < KOMI_LOWER:
            extra = max(0.0, extra - self.step)
        self.extra[color] = min(extra, board.size * board.size / 4)
