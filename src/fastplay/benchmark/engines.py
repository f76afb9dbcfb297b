"""Engines to score with ``--python``: the bare playout policies.

``fastplay benchmark score 9x9 --python fastplay.benchmark.engines:policy_mc_uniform``
scores the move a playout would play first: a point drawn with probability
proportional to its pattern value, as GNU Go's playout sampler draws it
(:meth:`PatternDatabase.move_values`), a pass when every value is 0.  The
draw is seeded by the position's Zobrist hash, so a position always gets
the same move and a score is reproducible.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["policy_move", "policy_mc_montegnu_classic", "policy_mc_mogo_classic",
           "policy_mc_uniform"]

_DATABASES: dict[str, Any] = {}


def policy_move(board: Any, patterns: str) -> str:
    """The playout policy's move for ``board.to_move`` with the built-in ``patterns``."""
    from fastplay.board import format_vertex
    from fastplay.patterns import PatternDatabase

    db = _DATABASES.get(patterns)
    if db is None:
        db = _DATABASES[patterns] = PatternDatabase.builtin(patterns)
    weights = db.move_values(board).reshape(-1).astype(np.float64)
    total = weights.sum()
    if total <= 0:
        return "pass"
    rng = np.random.default_rng(int(board.zobrist_hash) & (2**63 - 1))
    return format_vertex(int(rng.choice(weights.size, p=weights / total)), board.size)


def policy_mc_montegnu_classic(board: Any) -> str:
    """The playout move of GNU Go's default database (:func:`policy_move`)."""
    return policy_move(board, "mc_montegnu_classic")


def policy_mc_mogo_classic(board: Any) -> str:
    """The playout move of MoGo's patterns as GNU Go ships them (:func:`policy_move`)."""
    return policy_move(board, "mc_mogo_classic")


def policy_mc_uniform(board: Any) -> str:
    """A uniformly drawn legal non-suicide point (:func:`policy_move`)."""
    return policy_move(board, "mc_uniform")
