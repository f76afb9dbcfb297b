"""Warnings for renamed names (the compiled core's deprecated aliases call :func:`renamed`).

A Cython method runs without a Python frame of its own, so a warning it
raised itself with ``stacklevel=2`` would point past its caller.  The
aliases call this Python function instead: its frame is level 1, the
alias's caller level 2 -- the call site, which the warnings registry
shows once (``default`` action).
"""

from __future__ import annotations

import warnings

__all__ = ["renamed"]


def renamed(old: str, new: str, owner: str = "CoreBoard") -> None:
    """Warn (``DeprecationWarning``, at the caller's caller) that ``owner.old`` is now ``new``
    (``owner``: the class the caller used, e.g. ``Board``)."""
    warnings.warn(f"{owner}.{old} is deprecated and will be removed in the next release: use "
                  f"{new}, the same method under the board's naming rule", DeprecationWarning,
                  stacklevel=2)
