"""Criticality: the root's prior leans towards the points whose owner wins.

Rémi Coulom, "Criticality: a Monte-Carlo heuristic for Go programs", invited
talk, University of Electro-Communications, Tokyo, January 2009
(http://www.remi-coulom.fr/Criticality/).  Over the playouts of a search,
for a point ``x``::

    crit(x) = v(x) - (mu_B * pi_B(x) + mu_W * pi_W(x))

``v(x)`` the share of playouts in which the owner of ``x`` (Tromp-Taylor, at
the playout's end) won, ``mu_C`` the share won by colour ``C`` and
``pi_C(x)`` the share in which ``C`` owned ``x``: the covariance of owning
``x`` and winning, summed over both colours.  It is near 0 for a point
whose owner is settled or does not matter, and large for the points of a
fight that decides the game (a capturing race's liberties, the vital point
of a group whose life the result hangs on), where playouts misjudge most.
Crazy Stone used it as a feature of its move-prediction prior.

Here (the search option ``criticality``, ``k``) it reshapes the root's
prior: every ``CRIT_EVERY`` simulations, once the search has
``CRIT_MIN_PLAYOUTS`` playouts, each root move's prior becomes ``p(x)
exp(k crit(x))``, ``p`` the prior the root was made with, renormalised to
``p``'s sum; the pass keeps ``p``.  The statistic is the root's alone: a
deeper node's playouts are too few for it, and tallies per node would cost
``size * size`` counters a node.  With ``criticality_depth`` ``d > 0``,
new nodes down to ``d`` plies below the root take the root's latest map in
the same way when they are made (the map is colour-blind: a point decides
the game for both sides).  Whether it pays is measured in
``benchmarks/RESULTS.md`` ("Criticality").
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from fastplay._core import PlayoutTally, TreeNode

__all__ = ["CRIT_EVERY", "CRIT_MIN_PLAYOUTS", "criticality", "RootCriticality"]

#: Simulations between two updates of the root's prior.
CRIT_EVERY = 64
#: Playouts the tallies need before the first update.
CRIT_MIN_PLAYOUTS = 256


def criticality(tallies: Sequence[PlayoutTally], min_playouts: int = 1
                ) -> npt.NDArray[np.float64] | None:
    """Coulom's criticality of every point over the tallies' playouts.

    Args:
        tallies: tallies made with ``criticality=True`` (their ownership
            counts since :meth:`PlayoutTally.clear_ownership` are summed).
        min_playouts: fewer playouts than this give ``None``.

    Returns:
        ``float64[size * size]`` in [-1, 1] (row-major, row 0 the top), or
        ``None`` with fewer than ``min_playouts`` playouts (or none).

    Raises:
        ValueError: a tally without ``own_won`` (made without
            ``criticality``), or tallies of different board sizes.
    """
    if not tallies:
        return None
    sizes = {t.size for t in tallies}
    if len(sizes) != 1:
        raise ValueError(f"tallies of several board sizes: {sorted(sizes)}")
    npts = tallies[0].size ** 2
    black = np.zeros(npts)
    white = np.zeros(npts)
    won = np.zeros(npts)
    n = black_wins = draws = 0
    for t in tallies:
        own_won = t.own_won
        if own_won is None:
            raise ValueError("a tally made without criticality=True has no own_won")
        black += t.own_black
        white += t.own_white
        won += own_won
        n += t.own_n
        black_wins += t.own_black_wins
        draws += t.own_draws
    if n < max(min_playouts, 1):
        return None
    mu_b = black_wins / n
    mu_w = (n - black_wins - draws) / n
    crit: npt.NDArray[np.float64] = won / n - (mu_b * black / n + mu_w * white / n)
    return crit


class RootCriticality:
    """The root prior's reshaping by criticality, for one search.

    Args:
        weight: ``k`` of the module docstring (> 0).
        base: the root's prior as it was made (``float64[k]``, the pass
            last); kept by the search tree across searches of the same root,
            so that a second search starts again from it.
    """

    def __init__(self, weight: float, base: npt.NDArray[np.float64]) -> None:
        self.weight = weight
        self.base = base
        self.next_update = CRIT_EVERY
        #: ``exp(weight * crit)`` of the last update, ``float64[size * size]``
        #: (``None`` before it); replaced, never changed in place, so that a
        #: thread making a node without the lock reads a whole one.
        self.factors: npt.NDArray[np.float64] | None = None

    def due(self, sims: int) -> bool:
        """Whether the search, at ``sims`` simulations, should update."""
        return sims >= self.next_update

    def update(self, root: TreeNode, tallies: Sequence[PlayoutTally], sims: int) -> bool:
        """Reshape ``root``'s prior (and its widening order) from the tallies;
        returns whether it did (enough playouts).  Call under the search's
        lock: selection reads the rows."""
        self.next_update = sims + CRIT_EVERY
        crit = criticality(tallies, CRIT_MIN_PLAYOUTS)
        if crit is None:
            return False
        self.factors = np.exp(self.weight * crit)
        _reshape(root, self.base, self.factors)
        return True

    def reshape(self, node: TreeNode) -> None:
        """Reshape a new node's prior by the last update's map (nothing
        before the first update)."""
        factors = self.factors
        if factors is not None:
            _reshape(node, np.array(node.prior, dtype=np.float64), factors)


def _reshape(node: TreeNode, base: npt.NDArray[np.float64],
             factors: npt.NDArray[np.float64]) -> None:
    """``node``'s prior: ``base`` (``float64[k]``, the pass last) times the
    factors of its points, renormalised to ``base``'s non-pass sum; the
    widening's order follows (the node keeps it as ``float32``)."""
    prior = np.array(base, dtype=np.float64)
    prior[:-1] = base[:-1] * factors[np.asarray(node.points)]
    total = prior[:-1].sum()
    if total > 0:
        prior[:-1] *= base[:-1].sum() / total
    node.prior[:] = prior
    node.reorder()
