"""Equality of the result and option dataclasses that hold numpy arrays.

A dataclass's generated ``__eq__`` compares its fields as a tuple, and a
numpy array in it makes ``==`` raise (``The truth value of an array ... is
ambiguous``); a NaN (an unvisited move's win rate) makes a result differ
from its own copy.  :func:`fields_equal` is the ``__eq__`` of those classes
(they define ``__eq__ = fields_equal`` in their bodies, which
``dataclass`` keeps): the fields marked ``compare`` are equal, arrays by
shape, dtype and elements, NaN equal to NaN, so that two searches or two
batches of playouts from one seed compare equal.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, cast

import numpy as np

__all__ = ["fields_equal", "values_equal"]


def fields_equal(self: Any, other: object) -> Any:
    """``self == other`` for a dataclass instance: ``NotImplemented`` for
    another class, else whether every compared field is equal
    (:func:`values_equal`)."""
    if other.__class__ is not self.__class__:
        return NotImplemented
    return all(values_equal(getattr(self, f.name), getattr(other, f.name))
               for f in dataclasses.fields(cast(Any, self)) if f.compare)


def values_equal(a: object, b: object) -> bool:
    """Whether two field values are equal: arrays of one shape and dtype with
    equal elements (NaN equal to NaN), floats equal or both NaN, lists,
    tuples and dicts item by item; anything else by ``==``."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return False
        return a.shape == b.shape and a.dtype == b.dtype and bool(
            np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(values_equal, a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(values_equal(a[k], b[k]) for k in a)
    return bool(a == b)
