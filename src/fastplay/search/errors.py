"""Errors of the search's plug-ins (a user's evaluator or prior)."""

from __future__ import annotations

__all__ = ["PluginError", "EvaluatorError", "PriorError", "PLUGIN_FAILURES"]

#: What a plug-in may raise that becomes its :class:`PluginError`: any
#: ``Exception``, and ``SystemExit`` (a model loader's ``sys.exit()`` ended
#: the GTP engine in the middle of a command, silently: a tester).
#: ``KeyboardInterrupt`` (the user's Ctrl-C) and ``MemoryError`` pass through.
PLUGIN_FAILURES: tuple[type[BaseException], ...] = (Exception, SystemExit)


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
