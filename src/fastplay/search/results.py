"""What a search reports: per root move (:class:`ChildStats`), the final
answer (:class:`SearchResult`) and live snapshots (:class:`SearchInfo`).

The fields follow what analysis front ends read (Leela Zero's ``lz-analyze``
and KataGo's ``kata-analyze``: move, visits, winrate, prior, lcb, order,
pv; ownership; score mean and deviation), as python-chess's ``InfoDict``
carries a UCI engine's ``info`` lines.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from fastplay._equality import fields_equal
from fastplay.color import Color

if TYPE_CHECKING:
    from fastplay.board import Board

__all__ = ["ChildStats", "SearchResult", "SearchInfo", "LCB_Z", "lower_bound"]

#: Normal quantile of :func:`lower_bound`: 1.96, a 95 % two-sided interval.
LCB_Z = 1.96


def lower_bound(winrate: float, visits: int) -> float:
    """Wilson's lower confidence bound of a win rate (E. B. Wilson, "Probable
    inference, the law of succession, and statistical inference", JASA 22,
    1927) at ``z = LCB_Z``, treating the ``visits`` as independent games: in
    [0, ``winrate``]; 0 for an unvisited move."""
    if visits <= 0 or not math.isfinite(winrate):
        return 0.0
    n = float(visits)             # an int beyond a float's range (an edited tree) is inf
    z2 = LCB_Z * LCB_Z
    p = min(max(winrate, 0.0), 1.0)
    centre = p + z2 / (2 * n)
    spread = LCB_Z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, min(p, (centre - spread) / (1 + z2 / n)))


@dataclass(frozen=True)
class ChildStats:
    """One root move.

    Attributes:
        move: GTP vertex or ``"pass"``.
        visits: leaf evaluations through this move (playouts without an
            evaluator).
        winrate: win rate of the side to move at the root after this move,
            in [0, 1] (NaN when unvisited).
        prior: the move's prior probability, as the tree keeps it
            (``float32``), written as the shortest decimal that reads back
            as that ``float32`` (0.2475, not 0.2475000023841858).
        pv: principal variation starting with ``move`` (most-visited line).
        lcb: :func:`lower_bound` of ``winrate`` over ``visits``.
        order: rank by the search's statistics (0 = most visited; ties by
            win rate, then prior).  The answer is ``best_move``, which rules
            beyond the statistics (the opening book, the pass rules of
            :mod:`fastplay.search.decide`) may make another move.
        score_mean, score_stdev: the final margin of the side to move at the
            root after this move (area points, komi included), mean and
            standard deviation over the analyses' evaluations through it
            (an analysis of the root the last one analysed adds to its
            tallies; any other search starts them again); NaN where not
            tracked (:meth:`MCTS.run` does not; analysis does).
        pv_visits: the visits of each move of ``pv`` (KataGo's ``pvVisits``:
            ``visits`` first, then each following move's), as long as ``pv``;
            empty where not given.
    """

    __eq__ = fields_equal

    move: str
    visits: int
    winrate: float
    prior: float
    pv: list[str]
    lcb: float = 0.0
    order: int = 0
    score_mean: float = float("nan")
    score_stdev: float = float("nan")
    pv_visits: list[int] = field(default_factory=list)


class _TopMoves:
    """What a result and a snapshot share: the first child's line, a
    picture of the position with the top moves, and pickling.

    A result pickles (to return it from a process pool, or to save it) and
    deep-copies with its ``position`` exact (:meth:`Board.__reduce__`,
    :meth:`Board.__deepcopy__`).
    """

    best_move: str
    winrate: float
    children: list[ChildStats]
    ownership: npt.NDArray[np.float32]
    position: Board | None

    @property
    def pv(self) -> list[str]:
        """The principal variation of the first child (the most visited move)."""
        return list(self.children[0].pv) if self.children else []

    def _repr_svg_(self) -> str | None:
        """The position with the top moves (:func:`fastplay.svg.search_result`),
        for notebooks; ``None`` without a position."""
        if self.position is None:
            return None
        from fastplay.svg import search_result

        return search_result(self.position, self)


@dataclass(frozen=True)
class SearchResult(_TopMoves):
    """What :meth:`MCTS.run` found.

    Attributes:
        best_move: GTP vertex, ``"pass"`` or ``"resign"``.
        winrate: estimated win rate of the side to move (of the best move), in [0, 1].
        children: root moves with visits, most visited first (``order`` 0, 1, ...).
        ownership: ``float32[size, size]`` in [-1, 1], +1 Black, row 0 the top
            row: mean over the playouts (and exact endings) of this search;
            zeros when it ran none (an evaluator with ``mix=0``).
        playouts: playouts run by this search (reused visits excluded).
        seconds: wall time of the search, the final choice included; not
            compared (two searches from one seed compare equal).
        simulations: tree descents of this search.
        root_visits: evaluations through the root, reused ones included:
            playouts, plus ``batch`` for each descent that ended the game
            inside the tree (two passes), so it can exceed ``playouts``
            even without reuse.
        nodes: nodes in the tree after the search.
        visits: leaf evaluations of this search (the count ``visits=`` and
            ``playouts=`` limit).
        position: the position searched (a copy), for pictures; not compared.
        rule: why ``best_move`` was answered, a key of
            :data:`fastplay.search.decide.RULES` (``"visits"``: the most
            visited move; else a pass rule, the opening book or
            resignation, which can answer a move the children do not list
            first, or at all).
    """

    __eq__ = fields_equal

    best_move: str
    winrate: float
    children: list[ChildStats]
    ownership: npt.NDArray[np.float32]
    playouts: int
    seconds: float = field(compare=False)
    simulations: int = 0
    root_visits: int = 0
    nodes: int = 0
    visits: int = 0
    position: Board | None = field(default=None, compare=False, repr=False)
    rule: str = "visits"

    @property
    def playouts_per_second(self) -> float:
        """Playouts of this search per second of wall time."""
        return self.playouts / self.seconds if self.seconds > 0 else float("inf")


@dataclass(frozen=True)
class SearchInfo(_TopMoves):
    """A snapshot of a running search (:meth:`MCTS.analyze`).

    Attributes:
        children: root moves as in :class:`SearchResult`, best first.
        ownership: ``float32[size, size]`` in [-1, 1], +1 Black, row 0 the top.
        score_mean, score_stdev: the final margin of the side to move at the
            root (area points, komi included), mean and standard deviation
            over the playouts and exact endings of the analyses of this root
            (as :attr:`ChildStats.score_mean`; 0 before any).
        winrate: win rate of the side to move (of the first child; 0.5
            before any visit).
        visits: leaf evaluations of this search so far; ``playouts``: the
            playouts among them.
        seconds: wall time since the search began; not compared.
        final: ``True`` for the last snapshot, taken after the final choice.
        best_move: the final choice (``"resign"`` possible; it may differ
            from ``children[0]``, see :attr:`ChildStats.order`) in the last
            snapshot, the first child's move before.
        rule: why ``best_move``, as :attr:`SearchResult.rule` (``"visits"``
            before the last snapshot).
        to_move: the :class:`~fastplay.Color` whose view the values take (it
            equals ``"B"``/``"W"``).
        position: the position searched, for pictures; not compared.
        ownership_stdev: ``float32[size, size]``, the standard deviation of
            each point's ownership over the same playouts and endings (a
            point's ownership is +1, -1 or 0 in each), or ``None``; not
            compared.
    """

    __eq__ = fields_equal

    children: list[ChildStats]
    ownership: npt.NDArray[np.float32]
    score_mean: float
    score_stdev: float
    winrate: float
    visits: int
    playouts: int
    seconds: float = field(compare=False)
    final: bool = False
    best_move: str = "pass"
    to_move: Color = Color.BLACK
    position: Board | None = field(default=None, compare=False, repr=False)
    rule: str = "visits"
    ownership_stdev: npt.NDArray[np.float32] | None = field(default=None, compare=False,
                                                             repr=False)

    @property
    def root_winrate(self) -> float:
        """The root's win rate for the side to move, as KataGo's ``rootInfo``
        reports it: over every visit through the root's moves (the mean of
        the visited moves' win rates weighted by their visits); 0.5 before
        any visit."""
        visited = [c for c in self.children if c.visits > 0 and math.isfinite(c.winrate)]
        total = sum(c.visits for c in visited)
        return sum(c.visits * c.winrate for c in visited) / total if total else 0.5
