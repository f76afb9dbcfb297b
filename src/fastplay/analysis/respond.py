"""Answers in KataGo's analysis format, from the search's snapshots.

The fields are those of KataGo's ``docs/Analysis_Engine.md``
("Responses"); how fastplay fills each one:

* ``winrate``, ``lcb``: the search's win rate of the move and Wilson's
  lower bound of it (:func:`fastplay.search.results.lower_bound`);
  ``utility`` = 2 winrate - 1 (fastplay maximises wins only).
* ``scoreLead`` = ``scoreMean`` = ``scoreSelfplay``: the mean final area
  margin (komi included) over the playouts through the move when the search
  tallies it per move; else the root's mean, moved by the move's win-rate
  difference through a normal model of the score (:func:`model_score`).
  ``scoreStdev``: the standard deviation of the same playouts.
* ``ownership``: the mean over the search's playouts of +1 (Black's point)
  and -1 (White's), row-major from the top-left point (A19 on 19x19).
* ``policy``: the built-in prior of the root's moves (size² values, then the
  pass), -1 on illegal points, 0 on legal points fastplay never considers
  (the mover's own true eyes).

Every value is from the point of view ``reportAnalysisWinratesAs`` names:
``BLACK`` (the default of KataGo's ``analysis_example.cfg``, which KaTrain
also forces), ``WHITE`` or ``SIDETOMOVE``.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from statistics import NormalDist
from typing import Any

import numpy as np
import numpy.typing as npt

from fastplay.board import Board, parse_vertex
from fastplay.color import Color
from fastplay.search import ChildStats, SearchInfo

__all__ = ["build_response", "gtp_name", "no_results", "policy_values", "position_hashes", "flips",
           "model_score", "ownership_sign"]

#: Win rates are clamped into [EDGE, 1 - EDGE] before the normal quantile.
EDGE = 1e-3

#: Smallest score deviation the model uses (points).
MIN_STDEV = 1.0

#: Decimals kept in ownership and policy arrays.
DECIMALS = 6

_NORMAL = NormalDist()


def flips(perspective: str, to_move: str) -> bool:
    """Whether values of the side to move are turned into the other side's."""
    return (perspective == "BLACK" and to_move == "W") or \
        (perspective == "WHITE" and to_move == "B")


def ownership_sign(perspective: str, to_move: str) -> float:
    """+1 where fastplay's ownership (+1 Black) is already the asked view."""
    black_view = perspective == "BLACK" or (perspective == "SIDETOMOVE" and to_move == "B")
    return 1.0 if black_view else -1.0


def _finite(value: float, default: float = 0.0) -> float:
    return float(value) if math.isfinite(value) else default


def model_score(winrate: float, root_winrate: float, mean: float, stdev: float) -> float:
    """A move's score when only the root's is measured: if the final margin
    is normal with the root's ``mean`` and ``stdev``, a win rate ``w`` is
    ``Phi(m / stdev)``; the move's margin is the root's moved by ``stdev *
    (Phi^-1(winrate) - Phi^-1(root_winrate))`` (the root's best move keeps
    the root's mean)."""
    sigma = max(_finite(stdev), MIN_STDEV)

    def quantile(w: float) -> float:
        return _NORMAL.inv_cdf(min(max(_finite(w, 0.5), EDGE), 1 - EDGE))

    return _finite(mean) + sigma * (quantile(winrate) - quantile(root_winrate))


def _array(values: npt.NDArray[Any], sign: float) -> list[float]:
    flat = np.asarray(values, dtype=np.float64).ravel() * sign
    return [round(float(v), DECIMALS) + 0.0 for v in np.nan_to_num(flat)]


def _move_info(child: ChildStats, info: SearchInfo, flip: bool, pv_len: int,
               ownership: npt.NDArray[Any] | None, own_sign: float,
               pv_visits: bool = False) -> dict[str, Any]:
    winrate = _finite(child.winrate, 0.5)
    mean = float(getattr(child, "score_mean", math.nan))
    if not math.isfinite(mean):
        mean = model_score(winrate, info.winrate, info.score_mean, info.score_stdev)
    stdev = float(getattr(child, "score_stdev", math.nan))
    stdev = _finite(stdev, _finite(info.score_stdev))
    lcb = _finite(child.lcb)
    sign = -1.0 if flip else 1.0
    if flip:
        winrate, lcb = 1 - winrate, 1 - lcb
    out: dict[str, Any] = {
        "move": gtp_name(child.move), "visits": int(child.visits), "winrate": winrate,
        "scoreLead": sign * mean, "scoreMean": sign * mean, "scoreSelfplay": sign * mean,
        "scoreStdev": stdev, "prior": _finite(child.prior), "lcb": lcb,
        "utility": 2 * winrate - 1, "utilityLcb": 2 * lcb - 1, "order": int(child.order),
        "pv": [gtp_name(m) for m in child.pv[:pv_len + 1]],
    }
    if pv_visits:
        # A tree without transpositions: each edge's visits are its child's.
        out["pvVisits"] = [int(v) for v in child.pv_visits[:pv_len + 1]]
        out["pvEdgeVisits"] = list(out["pvVisits"])
    if ownership is not None:
        out["ownership"] = _array(ownership, own_sign)
    return out


def gtp_name(move: str) -> str:
    """A move as KataGo writes it: upper-case vertex, or ``pass``."""
    return "pass" if move.lower() == "pass" else move.upper()


def build_response(query_id: str, turn: int, info: SearchInfo, board: Board, *,
                   perspective: str, pv_len: int, during: bool,
                   ownership: bool = False,
                   moves_ownership: Mapping[str, npt.NDArray[Any]] | None = None,
                   policy: list[float] | None = None,
                   excluded: frozenset[str] = frozenset(), ownership_stdev: bool = False,
                   pv_visits: bool = False) -> dict[str, Any]:
    """The answer for ``board`` (turn ``turn`` of query ``query_id``) from a
    snapshot ``info``: the visited moves (none of ``excluded``, upper-case
    GTP vertices) best first, the root's values, and the ownership (when
    ``ownership``), its standard deviation (``ownership_stdev``), each
    move's ``pvVisits``/``pvEdgeVisits`` (``pv_visits``), per-move ownership
    (``moves_ownership``: vertex -> ``float[size, size]``, +1 Black) and
    ``policy`` when given; ``order`` numbers the reported moves from 0.
    Values are from ``perspective``'s point of view; no NaN or infinity is
    written."""
    to_move = Color.parse(info.to_move).letter
    flip = flips(perspective, to_move)
    own_sign = ownership_sign(perspective, to_move)
    infos = []
    for child in info.children:
        if child.visits <= 0 or gtp_name(child.move) in excluded:
            continue
        own = moves_ownership.get(gtp_name(child.move)) if moves_ownership is not None else None
        infos.append(_move_info(child, info, flip, pv_len, own, own_sign, pv_visits))
        infos[-1]["order"] = len(infos) - 1  # 0, 1, 2... over the moves reported
    # The root's value, as KataGo reports it: over every visit through the
    # root's moves (the search's final choice may be another move).
    winrate = info.root_winrate
    score = _finite(info.score_mean)
    sign = -1.0 if flip else 1.0
    this_hash, sym_hash = position_hashes(board)
    root = {
        "currentPlayer": to_move, "visits": int(info.visits),
        "winrate": 1 - winrate if flip else winrate, "scoreLead": sign * score,
        "scoreMean": sign * score, "scoreSelfplay": sign * score,
        "scoreStdev": _finite(info.score_stdev), "utility": sign * (2 * winrate - 1),
        "thisHash": this_hash, "symHash": sym_hash,
    }
    out: dict[str, Any] = {"id": query_id, "isDuringSearch": during, "turnNumber": turn,
                           "moveInfos": infos, "rootInfo": root}
    if ownership:
        out["ownership"] = _array(info.ownership, own_sign)
    if ownership_stdev:
        stdev = info.ownership_stdev
        out["ownershipStdev"] = _array(np.zeros_like(info.ownership) if stdev is None
                                       else stdev, 1.0)
    if policy is not None:
        out["policy"] = policy
    return out


def no_results(query_id: str, turn: int) -> dict[str, Any]:
    """The answer of a position terminated before any search (KataGo's ``noResults``)."""
    return {"id": query_id, "isDuringSearch": False, "noResults": True, "turnNumber": turn}


def policy_values(board: Board, moves: npt.NDArray[np.int64],
                  prior: npt.NDArray[np.floating[Any]]) -> list[float]:
    """``policy``: ``prior`` of the node's ``moves`` (flat, -1 the pass) on a
    ``size*size + 1`` array, pass last; -1 on illegal points, 0 on legal
    points without a prior."""
    points = board.size * board.size
    out = np.full(points + 1, -1.0)
    out[board.legal_indices(board.to_move_code)] = 0.0
    out[points] = 0.0
    index = np.where(moves < 0, points, moves)
    out[index] = prior
    return [round(float(v), DECIMALS) + 0.0 for v in out]


def position_hashes(board: Board) -> tuple[str, str]:
    """``thisHash`` and ``symHash``: 128-bit hex digests of the stones, the
    side to move and the simple-ko point, and the least of those digests
    over the board's eight symmetries."""
    grid = board.to_numpy()
    ko = np.zeros_like(grid)
    if board.ko_point is not None:
        ko.flat[parse_vertex(board.ko_point, board.size)] = 1
    tag = board.to_move.letter.encode()

    def digest(g: npt.NDArray[Any], k: npt.NDArray[Any]) -> str:
        data = np.ascontiguousarray(g).tobytes() + np.ascontiguousarray(k).tobytes() + tag
        return hashlib.blake2b(data, digest_size=16).hexdigest().upper()

    variants = []
    for g, k in ((grid, ko), (grid.T, ko.T)):
        for turn in range(4):
            variants.append(digest(np.rot90(g, turn), np.rot90(k, turn)))
    return digest(grid, ko), min(variants)
