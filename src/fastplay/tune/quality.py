"""How well a database's playouts judge positions of known value.

Simulation balancing (Silver and Tesauro, ICML 2009) asks of a playout
policy that its mean outcome from a position equal the position's value,
not that its moves be strong.  This module measures it: for each decision
of a benchmark (:mod:`fastplay.benchmark`), the reference value of the
position is its best candidate's reference value (the mover's win
probability after the best move, from two deep searches), and the
playouts' value is the mover's win rate over ``playouts`` playouts from
the position (GNU Go's playout scoring, spec §6.8).  The figure is their
mean squared error.  The references come from fastplay searches whose
playouts were ``mc_montegnu_classic``'s, a bias in that database's favour
that deeper searches shrink but do not remove.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fastplay._equality import fields_equal
from fastplay.backend import derive_seed
from fastplay.benchmark.store import Entry
from fastplay.montecarlo import playouts
from fastplay.patterns import PatternDatabase

__all__ = ["PlayoutQuality", "playout_quality"]


@dataclass(frozen=True)
class PlayoutQuality:
    """Playout values against reference values.

    Attributes:
        reference, playout: ``float64[n]``, the mover's value per position
            by the references and by the playouts.
        mse: mean squared error; ``bias``: mean of ``playout - reference``.
    """

    __eq__ = fields_equal

    reference: npt.NDArray[np.float64]
    playout: npt.NDArray[np.float64]

    @property
    def mse(self) -> float:
        return float(np.mean((self.playout - self.reference) ** 2))

    @property
    def bias(self) -> float:
        return float(np.mean(self.playout - self.reference))


def playout_quality(db: PatternDatabase, entries: Sequence[Entry], playouts_per_position: int,
                    seed: int = 0) -> PlayoutQuality:
    """Mean squared error of ``db``'s playouts on the positions of ``entries``.

    Args:
        db: the database.
        entries: benchmark entries (:class:`fastplay.benchmark.store.Entry`).
        playouts_per_position: playouts from each position (>= 1).
        seed: position ``j``'s playouts are seeded ``derive_seed(seed, j)``,
            so the figure is a pure function of the arguments.

    Raises:
        ValueError: no entries, or fewer than one playout per position.
    """
    if not entries:
        raise ValueError("no positions to measure")
    if playouts_per_position < 1:
        raise ValueError(f"playouts per position must be at least 1, not {playouts_per_position}")
    ref = np.empty(len(entries))
    out = np.empty(len(entries))
    for j, entry in enumerate(entries):
        board = entry.decision.position.board()
        stats = playouts(board, db, playouts_per_position, derive_seed(seed, j))
        black = stats.black_win_rate
        out[j] = black if entry.decision.position.to_play == "B" else 1.0 - black
        ref[j] = entry.best.value
    return PlayoutQuality(ref, out)
