"""The tree search's original home, kept so that ``from fastplay.mcts import
MCTS`` goes on working; the search now lives in :mod:`fastplay.search` (one
concept per module) and seki and eye analysis in :mod:`fastplay.life`."""

from __future__ import annotations

from fastplay._core import TreeNode
from fastplay.life import eye_mask, in_seki
from fastplay.search import MCTS, ChildStats, SearchConfig, SearchInfo, SearchResult
from fastplay.search.config import C_PUCT, C_UCT, DEFAULT_BATCH, DEFAULT_PLAYOUTS, MAX_BATCH
from fastplay.search.config import LADDER_PRIOR, LADDER_VISITS
from fastplay.search.komi import KOMI_LOWER, KOMI_RAISE
from fastplay.search.priors import AUTO_PRIORS, LINE_PRIOR

#: A position in the tree (the core's compiled node).
Node = TreeNode

__all__ = ["MCTS", "SearchConfig", "SearchResult", "SearchInfo", "ChildStats", "Node",
           "eye_mask", "in_seki", "C_PUCT", "C_UCT", "DEFAULT_BATCH", "DEFAULT_PLAYOUTS",
           "MAX_BATCH", "LADDER_PRIOR", "LADDER_VISITS", "KOMI_RAISE", "KOMI_LOWER",
           "AUTO_PRIORS", "LINE_PRIOR"]


def __getattr__(name: str) -> object:
    """``AUTO_PRIOR_SIZE``, deprecated: ``prior_table="auto"`` now has a prior
    for several sizes (:data:`AUTO_PRIORS`)."""
    if name == "AUTO_PRIOR_SIZE":
        import warnings

        warnings.warn("fastplay.mcts.AUTO_PRIOR_SIZE is deprecated: prior_table='auto' now "
                      "covers the sizes of AUTO_PRIORS", DeprecationWarning, stacklevel=2)
        return 9
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
