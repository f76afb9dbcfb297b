"""Objects that refuse a misspelled option: no new public attributes.

``search.c_pucct = 3.0`` on a plain object makes a new attribute that nothing
reads, and a notebook user believes the setting took effect (a tester's
finding).  :class:`StrictAttributes` lets a class's own attributes, its
properties and its private names be set, and refuses any other public name
with ``AttributeError``, naming the closest known ones.
"""

from __future__ import annotations

import difflib
from typing import Any, ClassVar

__all__ = ["StrictAttributes"]


class StrictAttributes:
    """Base of a class whose public attributes are fixed: those in
    ``_PUBLIC_FIELDS`` (set in ``__init__``) and the class's own (properties,
    methods); names starting with ``_`` are free."""

    _PUBLIC_FIELDS: ClassVar[frozenset[str]] = frozenset()

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_") or name in self._PUBLIC_FIELDS or hasattr(type(self), name):
            super().__setattr__(name, value)
            return
        known = sorted(self._PUBLIC_FIELDS
                       | {n for n in dir(type(self)) if not n.startswith("_")})
        close = difflib.get_close_matches(name, known, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise AttributeError(f"{type(self).__name__} has no option or attribute "
                             f"{name!r} to set{hint}")
