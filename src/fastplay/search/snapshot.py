"""Snapshots of a running search for :meth:`MCTS.analyze` (and the GTP and
analysis-protocol front ends that stream them)."""

from __future__ import annotations

import math
import time

import numpy as np
import numpy.typing as npt

from fastplay._core import BLACK as BLACK_CODE
from fastplay.board import Board
from fastplay.color import Color
from fastplay.search.decide import ranked_children
from fastplay.search.loop import SearchLoop, SearchState
from fastplay.search.results import SearchInfo, SearchResult
from fastplay.search.tree import SearchTree

__all__ = ["snapshot", "final_info", "score_moments", "ownership_moments", "next_due",
           "SNAPSHOT_GAP"]

#: A snapshot holds the search's lock (1-6 ms on 9x9 to 19x19 trees); the
#: next one waits at least this many times as long as the last took, so that
#: reports hold the lock at most 1 / (1 + SNAPSHOT_GAP) of the time whatever
#: interval is asked (a tester's interval of 0.1 ms made a 200-visit search
#: 3,000 times slower; ``kata-analyze`` at 1 cs halved a 19x19 search).
SNAPSHOT_GAP = 4.0


def next_due(due: float, interval: float, now: float, cost: float) -> float:
    """When the next snapshot is due (``time.perf_counter()`` seconds), after
    one that was due at ``due``, ended at ``now`` and took ``cost`` seconds:
    ``interval`` after ``due``, never before ``now``, and at least
    ``SNAPSHOT_GAP * cost`` after ``now``."""
    return max(due + interval, now + SNAPSHOT_GAP * max(cost, 0.0))


def score_moments(hist: npt.NDArray[np.float64] | None, board: Board) -> tuple[float, float]:
    """Mean and standard deviation of the final margin of ``board``'s side to
    move (area points, komi included) from a histogram over Black-minus-White
    areas (bin ``i``: ``i - points``); (0, 0) without data."""
    if hist is None:
        return 0.0, 0.0
    total = float(hist.sum())
    if total <= 0:
        return 0.0, 0.0
    points = board.size * board.size
    margin = np.arange(len(hist), dtype=np.float64) - points - board.komi
    if board.to_move_code != BLACK_CODE:
        margin = -margin
    mean = float(hist @ margin) / total
    var = max(float(hist @ (margin * margin)) / total - mean * mean, 0.0)
    return mean, math.sqrt(var)


def ownership_moments(own: npt.NDArray[np.float64], owned: npt.NDArray[np.float64],
                      count: float, size: int
                      ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Mean and standard deviation of each point's ownership (+1 Black, -1
    White, 0 neither in each evaluation), ``float32[size, size]`` each, from
    the sums ``own`` of the ownership and ``owned`` of its absolute value
    over ``count`` evaluations (``float64[size * size]``); zeros when
    ``count`` is 0.  The deviation is ``sqrt(E[o^2] - E[o]^2)`` with
    ``E[o^2] = owned / count``.  A thread's playouts add to its tally while
    they run, before their back-up counts them, so a live mean may pass 1 by
    up to a leaf's playouts over ``count``: both means are clipped (to [-1,
    1] and [0, 1])."""
    if count <= 0:
        zeros = np.zeros((size, size), dtype=np.float32)
        return zeros, zeros.copy()
    mean = np.clip(own / count, -1.0, 1.0)
    square = np.clip(owned / count, 0.0, 1.0)
    stdev = np.sqrt(np.maximum(square - mean * mean, 0.0))
    return (mean.astype(np.float32).reshape(size, size),
            stdev.astype(np.float32).reshape(size, size))


def snapshot(loop: SearchLoop | None, tree: SearchTree, board: Board,
             start: float, min_moves: int = 0) -> SearchInfo | None:
    """The running search's state (call under the search's lock); ``None``
    before its root exists.  ``min_moves``: report at least that many moves,
    unvisited ones in prior order.  ``None`` too while no root move has a
    visit and ``min_moves`` asks for none: such a report would show one
    unvisited move (the fallback of :func:`ranked_children`) with no win rate
    or score, where KataGo's and Leela Zero's reports show only moves with
    visits (a loaded machine's first report of a fresh tree came too soon)."""
    root = tree.root
    if loop is None or root is None or not hasattr(loop, "state"):
        return None
    state = loop.state
    children = ranked_children(root, board.size, state.child_scores, min_moves)
    if not min_moves and not any(child.visits for child in children):
        return None
    best = children[0] if children else None
    mean, stdev = score_moments(state.hist, board)
    winrate = best.winrate if best is not None and best.visits else 0.5
    own, own_stdev = ownership_moments(*state.ownership_sums(), state.done, board.size)
    return SearchInfo(children=children, ownership=own,
                      score_mean=mean, score_stdev=stdev, winrate=winrate, visits=state.done,
                      playouts=state.playouts, seconds=time.perf_counter() - start,
                      final=False, best_move=best.move if best is not None else "pass",
                      to_move=Color(board.to_move_code), position=board,
                      ownership_stdev=own_stdev)


def final_info(result: SearchResult, state: SearchState, board: Board,
               tree: SearchTree, min_moves: int = 0) -> SearchInfo:
    """The last snapshot: the search's answer as :meth:`MCTS.run` gives it,
    its moves with their scores."""
    mean, stdev = score_moments(state.hist, board)
    children = result.children
    if tree.root is not None and (state.child_scores is not None or min_moves):
        children = ranked_children(tree.root, board.size, state.child_scores, min_moves)
    _, own_stdev = ownership_moments(state.own, state.owned, state.done, board.size)
    return SearchInfo(children=children, ownership=result.ownership, score_mean=mean,
                      score_stdev=stdev, winrate=result.winrate, visits=state.done,
                      playouts=result.playouts, seconds=result.seconds, final=True,
                      best_move=result.best_move, rule=result.rule,
                      to_move=Color(board.to_move_code), position=board,
                      ownership_stdev=own_stdev)
