"""The final choice of a search: the move it answers.

The most visited root move, ties broken by win rate, then prior.  Around
it, the rules a Go engine needs beyond the win rates:

* a pass is replaced by another move while Tromp-Taylor counting would give
  the opponent points that the playouts give us (a dead enemy stone still
  on the board; shared case 29), strings in seki excepted;
* a move becomes a pass in a *final position*: every string lives by the
  ownership or is in seki, every empty point is Tromp-Taylor territory of
  the colour the playouts give it or a shared liberty of a seki -- no move
  can change the area score (shared case 28, where GNU Go passes too) --
  once a probe after our pass finds it settled with the opponent to move;
* after the opponent's pass, passing back wins when it ends the game in our
  favour with nothing left to capture;
* the one-position opening book (E5 on the empty 9x9 board);
* resignation after ``resign_moves`` low searches outside the opening.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from fastplay._core import BLACK as BLACK_CODE
from fastplay._core import TreeNode
from fastplay.board import Board, format_vertex
from fastplay.life import seki_mask
from fastplay.search.config import SearchConfig
from fastplay.search.results import ChildStats, SearchResult, lower_bound

if TYPE_CHECKING:  # pragma: no cover - typing only: the loop imports this module
    from fastplay.search.loop import SearchState
    from fastplay.search.tree import SearchTree

__all__ = ["ranked_children", "ChildScores", "settled", "dead_enemy", "is_final", "book_move",
           "BOOK_VISITS", "Resigner", "wins_by_passing", "in_opening",
           "choose", "SETTLED", "FINAL_PLAYOUTS", "FINAL_MIN_SECONDS", "FINAL_MIN_VISITS",
           "Probe", "answer", "RULES"]

#: Why a search answered the move it did (``SearchResult.rule``): the
#: rule of :func:`choose` or the resignation that picked it.
RULES = {
    "visits": "the most visited move",
    "no move": "no move was searched",
    "not pass": "not the pass: dead stones would be counted alive",
    "final": "the pass: the position is final",
    "pass back": "the pass: the opponent passed and the count wins",
    "book": "the opening book's move",
    "resign": "resignation: the win rate stayed below the threshold",
    "forbid": "the most visited move the forbid plug-in allows: it refused the rules' choice",
}

#: Ownership beyond which a point counts as settled (:func:`settled`).
SETTLED = 0.5

#: Visits of the probe after a pass that confirms a settled position is
#: final (:func:`is_final`); 10-40 ms on 9x9, only at the end of a game.
FINAL_PLAYOUTS = 500

#: With less time than this left, no probe, and so no pass (a move in a
#: final position costs nothing under area scoring; a pass in one that only
#: looks final lost games).
FINAL_MIN_SECONDS = 0.002

#: A probe cut short by the clock before this many visits finds nothing settled.
FINAL_MIN_VISITS = 100

#: A probe: (the position after our pass, seconds or ``None``) -> its
#: ownership ``float32[size, size]``.
Probe = Callable[[Board, "float | None"], npt.NDArray[np.float32]]


def pv_with_visits(node: TreeNode, i: int, size: int, limit: int = 12
                   ) -> tuple[list[str], list[int]]:
    """The most-visited line from ``node``'s move ``i``, at most ``limit``
    moves, and the visits of each of its moves (the playouts through the
    edge that plays it: KataGo's ``pvVisits``)."""
    pv = [format_vertex(int(node.moves[i]), size)]
    visits = [int(node.edge(i)[1])]
    child = node.child(i)
    while child is not None and len(pv) < limit:
        counts = child.stats[0]      # a copy: the node's own rows stay compact
        if counts.sum() <= 0:
            break
        j = int(np.argmax(counts))
        pv.append(format_vertex(int(child.moves[j]), size))
        visits.append(int(counts[j]))
        child = child.child(j)
    return pv, visits


def ranked_children(root: TreeNode, size: int, scores: ChildScores | None = None,
                    at_least: int = 0) -> list[ChildStats]:
    """The root's moves, best first: most visited, then win rate, then prior.

    Unvisited moves only as a fallback when none was visited, or to make up
    ``at_least`` moves (in prior order), and never a forbidden one (a search
    of zero playouts answered the opening's pass).  ``scores``: per-move
    score tallies of this search (analysis), else the score fields are NaN.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.where(root.n > 0, root.wins / root.n, -1.0)
    order = np.lexsort((-root.prior, -value, -root.n))
    allowed, moves = root.allowed, root.moves      # new arrays at each access: once
    children: list[ChildStats] = []
    for i in order:
        visits = int(root.n[i])
        if visits == 0 and (len(children) >= max(1, at_least) or not allowed[i]):
            continue
        winrate = float(root.wins[i] / root.n[i]) if visits else float("nan")
        mean, stdev = scores.moments(int(i)) if scores is not None else (math.nan, math.nan)
        pv, pv_visits = pv_with_visits(root, int(i), size)
        children.append(ChildStats(format_vertex(int(moves[i]), size), visits, winrate,
                                   float(str(root.prior[i])), pv, lower_bound(winrate, visits),
                                   len(children), mean, stdev, pv_visits))
    return children


class ChildScores:
    """Per root move: evaluations, and the sums of the final margin and its
    square (Black's area minus White's, before komi), for the score of the
    side to move after each move."""

    def __init__(self, moves: int, komi: float, black_to_move: bool) -> None:
        self.sums = np.zeros((3, moves))
        self.komi = komi
        self.sign = 1.0 if black_to_move else -1.0

    def add(self, i: int, count: float, total: float, squares: float) -> None:
        """Add ``count`` evaluations of margins summing to ``total`` (squares: ``squares``)."""
        self.sums[0, i] += count
        self.sums[1, i] += total
        self.sums[2, i] += squares

    def moments(self, i: int) -> tuple[float, float]:
        """Mean and standard deviation of move ``i``'s margin for the side to
        move (komi included); NaN without data."""
        count = float(self.sums[0, i])
        if count <= 0:
            return math.nan, math.nan
        mean = float(self.sums[1, i]) / count
        var = max(float(self.sums[2, i]) / count - mean * mean, 0.0)
        return self.sign * (mean - self.komi), math.sqrt(var)


def dead_enemy(board: Board, own: npt.NDArray[np.float32]) -> bool:
    """Whether Tromp-Taylor gives the opponent points that the playouts give
    the side to move (strings in seki and their shared liberties excepted)."""
    sign = 1 if board.to_move_code == BLACK_CODE else -1
    ours = (own * sign > 0.5) & (board.area_owner() == -sign)
    if not ours.any():
        return False
    return bool(np.any(ours & ~seki_mask(board)))


def settled(board: Board, own: npt.NDArray[np.float32]) -> bool:
    """Whether every point of ``board`` is settled by the ownership ``own``:
    each string lives (ownership of its colour above ``SETTLED``) or is in
    seki; each empty point is Tromp-Taylor territory of the colour the
    playouts give it, or a shared liberty of a seki.  Never on an empty board."""
    grid = board.to_numpy()
    if not grid.any():
        return False
    seki = seki_mask(board)
    tt = board.area_owner()
    stones = grid != 0
    done = np.where(stones, own * grid > SETTLED, (tt != 0) & (own * tt > SETTLED))
    return bool(np.all(done | seki))


def is_final(board: Board, own: npt.NDArray[np.float32], probe: Probe | None,
             deadline: float | None = None) -> bool:
    """Whether ``board`` is a final position whoever moves first.

    ``own`` comes from playouts in which the side to move moves first, so a
    string in atari or a cut that one move mends looks settled (passing
    there lost games: RESULTS.md, "Where the search's constants come
    from").  So it
    is final only if ``probe`` -- the same search after our pass, the
    opponent moving first -- finds it settled too.  No probe is made when
    ``probe`` is ``None`` (a probe does not probe again) or after the
    opponent's pass (our pass ends the game); with less than
    ``FINAL_MIN_SECONDS`` before ``deadline`` (a ``time.perf_counter()``
    value; the probe itself stops there) there is no time for a probe, and
    the position is not taken as final (a loaded machine once starved a
    0.3 s search into passing where a move was needed).
    """
    if not settled(board, own):
        return False
    if probe is None or board.consecutive_passes >= 1:
        return True
    limit = None if deadline is None else deadline - time.perf_counter()
    if limit is not None and limit < FINAL_MIN_SECONDS:
        return False
    after = board.copy()
    after.play("pass")
    return settled(after, probe(after, limit))


#: Visits of a game move that the opening book answers when only the clock
#: limits the search: enough for the answer's win rate, and none of the
#: game's time beyond (a tester's E5 took 5 s of a 600 s clock).
BOOK_VISITS = 1000


def book_move(board: Board) -> str | None:
    """The opening book: ``"E5"`` (tengen) on an empty 9x9 board, else ``None``.

    With a few thousand playouts every first 9x9 move is within noise of
    50 %, so the search would pick one nearly at random (RESULTS.md,
    "Where the search's constants come from"); the
    centre is the standard first move of 9x9 play.
    """
    if board.size == 9 and board.to_move_code == BLACK_CODE \
            and not board.to_numpy().any() and board.legality_index(40, BLACK_CODE) is None:
        return "E5"
    return None


class Resigner:
    """Counts searches in a row whose best win rate is below the threshold."""

    def __init__(self) -> None:
        self.low_searches = 0

    def __call__(self, board: Board, move: str, winrate: float, visits: int,
                 config: SearchConfig) -> str:
        """``"resign"`` once the best win rate has stayed below
        ``resign_threshold`` for ``resign_moves`` searches of at least 100
        visits, outside the opening; else ``move``."""
        if config.resign_threshold is None:
            return move
        npts = board.size * board.size
        stones = int(np.count_nonzero(board.to_numpy()))
        in_opening = max(board.move_number, stones) < npts // 4
        if winrate < config.resign_threshold and visits >= 100 and not in_opening:
            self.low_searches += 1
        else:
            self.low_searches = 0
        return "resign" if self.low_searches >= config.resign_moves else move


def _instead_of_pass(board: Board, own: npt.NDArray[np.float32],
                     children: list[ChildStats]) -> ChildStats | None:
    """A non-pass move when passing now would leave points miscounted (the
    most visited other move not clearly worse than the pass), or ``None``."""
    if not dead_enemy(board, own):
        return None
    pass_rate = next((c.winrate for c in children if c.move == "pass"), 0.0)
    for child in children:
        # The safeguard must not turn a won game into a broken seki.
        if child.move != "pass" and child.visits > 0 and child.winrate >= pass_rate - 0.1:
            return child
    return None


def in_opening(board: Board) -> bool:
    """Whether ``board`` is in the opening, where the search does not pass
    (:class:`fastplay.search.priors.NodeMaker`'s rule): no pass just played
    and stones on fewer than a quarter of the points.  A 9x9 game of nine
    handicap stones counted as final there, and White passed at move 0 (a
    tester's finding)."""
    stones = int(np.count_nonzero(board.to_numpy()))
    return board.consecutive_passes == 0 and stones < board.size * board.size // 4


def wins_by_passing(board: Board) -> bool:
    """Whether the side to move wins if the game ends now (Tromp-Taylor count, komi)."""
    score = board.score()
    return score > 0 if board.to_move_code == BLACK_CODE else score < 0


def choose(board: Board, children: list[ChildStats], own: npt.NDArray[np.float32],
           config: SearchConfig, probe: Probe | None, deadline: float | None
           ) -> tuple[str, float, str]:
    """The move to answer, its win rate (before resignation) and the rule
    that picked it (a key of :data:`RULES`), from the ranked ``children``
    and the search's ownership ``own``."""
    best = children[0] if children else ChildStats("pass", 0, 0.5, 1.0, ["pass"])
    move, rule = best.move, "visits" if children else "no move"
    winrate = best.winrate if best.visits else 0.5
    if move == "pass":
        alt = _instead_of_pass(board, own, children)
        if alt is not None:
            move, winrate, rule = alt.move, alt.winrate, "not pass"
    elif not in_opening(board) and is_final(board, own, probe, deadline) \
            and not dead_enemy(board, own):
        # The win rates do not matter here: playouts break sekis.
        move, rule = "pass", "final"
        passing = next((c for c in children if c.move == "pass" and c.visits), None)
        winrate = passing.winrate if passing is not None else \
            (1.0 if wins_by_passing(board) else 0.0)
    elif board.consecutive_passes >= 1 and wins_by_passing(board) \
            and not dead_enemy(board, own):
        # Playing on would only fill our own area.
        move, winrate, rule = "pass", 1.0, "pass back"
    book = book_move(board) if config.book else None
    if book is not None:
        move, rule = book, "book"
        booked = next((c for c in children if c.move == book and c.visits), None)
        winrate = booked.winrate if booked is not None else winrate
    return move, winrate, rule


def answer(board: Board, tree: SearchTree, state: SearchState, config: SearchConfig,
           probe: Probe | None, resigner: Resigner, start: float, deadline: float | None
           ) -> SearchResult:
    """A finished search's answer: its root's moves ranked, the ownership of
    its playouts, the move :func:`choose` picks (``probe``: the final-position
    probe, or ``None``) unless ``resigner`` resigns, and the counts.
    ``start`` and ``deadline``: ``time.perf_counter()`` values (the deadline
    bounds the final probe)."""
    root = tree.root
    assert root is not None
    size = board.size
    children = ranked_children(root, size)
    done = state.done
    own = (state.own / done if done else np.zeros(size * size)).astype(np.float32)
    own = own.reshape(size, size)
    move, winrate, rule = choose(board, children, own, config, probe, deadline)
    if resigner(board, move, winrate, int(root.n.sum()), config) == "resign":
        move, rule = "resign", "resign"
    return SearchResult(best_move=move, winrate=winrate, rule=rule, children=children,
                        ownership=own, playouts=state.playouts,
                        seconds=time.perf_counter() - start, simulations=state.sims,
                        root_visits=int(root.visits), nodes=tree.nodes,
                        visits=state.done, position=board.copy())
