"""Errors of the search's plug-ins (a user's evaluator or prior)."""

from __future__ import annotations

__all__ = ["PluginError", "EvaluatorError", "PriorError", "PASSES_THROUGH", "raised"]

#: What a plug-in may raise that is not made its :class:`PluginError`: the
#: user's Ctrl-C and running out of memory.  Anything else it raises
#: (``SystemExit`` from a model loader's ``sys.exit()``, ``GeneratorExit``,
#: its own ``BaseException`` subclasses) is its failure: these ended the GTP
#: engine in the middle of a command (testers).
PASSES_THROUGH: tuple[type[BaseException], ...] = (KeyboardInterrupt, MemoryError)


def raised(who: str, exc: BaseException) -> str:
    """``"{who} raised TYPE: message"`` (no colon for an empty message, as a
    bare ``sys.exit()`` gives)."""
    text = str(exc)
    return f"{who} raised {type(exc).__name__}" + (f": {text}" if text else "")


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
    negative value, a number too large for a float64, or all zeros.  (Weight
    only on points a descent cannot take -- occupied, illegal, the mover's
    own true eyes -- is not an error: it is dropped, and the candidates
    share the prior equally: ``NodeMaker._user_weights``.)"""
