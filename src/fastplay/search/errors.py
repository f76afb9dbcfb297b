"""Errors of the search's plug-ins (a user's evaluator or prior)."""

from __future__ import annotations

__all__ = ["PluginError", "EvaluatorError", "PriorError"]


class PluginError(ValueError):
    """A user's evaluator or prior failed or answered something the search
    cannot use; the message names the callable and the problem.  The search
    that met it stops and drops its tree; the :class:`MCTS` object stays
    usable."""


class EvaluatorError(PluginError):
    """The evaluator raised, or returned the wrong shape, NaN, or a value
    outside [0, 1]."""


class PriorError(PluginError):
    """The prior raised, or returned the wrong shape, NaN or infinity, a
    negative value, or no weight on any legal move."""
