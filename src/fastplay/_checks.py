"""Type tests that the public API's argument checks share.

Python's numbers as numpy extends them, with ``bool`` refused although it is
an ``int`` (``True`` for a count of threads or playouts is a mistake, not 1).
Each caller keeps its own message and exception: these only answer the
question.
"""

from __future__ import annotations

from typing import TypeGuard

import numpy as np

__all__ = ["is_integer", "is_real"]


def is_integer(value: object) -> TypeGuard[int | np.integer]:
    """Whether ``value`` is an ``int`` or a numpy integer, and not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def is_real(value: object) -> TypeGuard[int | float | np.integer | np.floating]:
    """Whether ``value`` is an ``int``, a ``float`` or a numpy integer or
    floating-point scalar, and not a bool."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
