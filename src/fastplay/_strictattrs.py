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
    """Base of a class whose public attributes are fixed: its own (properties,
    methods) and, for a class that sets plain ones, those in
    ``_PUBLIC_FIELDS``; names starting with ``_`` are free.

    Only instances of the class that sets ``_STRICT_ATTRIBUTES = True`` in
    its own body are held to this: a subclass (or a mixin's ``__init__``)
    may add attributes of its own, as its author means them (a tester's
    subclass could not set one).
    """

    _PUBLIC_FIELDS: ClassVar[frozenset[str]] = frozenset()

    def __setattr__(self, name: str, value: Any) -> None:
        cls = type(self)
        if name.startswith("_") or not cls.__dict__.get("_STRICT_ATTRIBUTES", False) \
                or name in self._PUBLIC_FIELDS or hasattr(cls, name):
            super().__setattr__(name, value)
            return
        known = sorted(self._PUBLIC_FIELDS
                       | {n for n in dir(type(self)) if not n.startswith("_")})
        close = difflib.get_close_matches(name, known, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise AttributeError(f"{type(self).__name__} has no option or attribute "
                             f"{name!r} to set{hint}")
