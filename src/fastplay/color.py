"""The colours of Go: :class:`Color`, one enum for every part of fastplay.

``Color`` is an :class:`enum.IntEnum` whose values are the compiled core's
colour codes (GNU Go's numbering: ``WHITE`` 1, ``BLACK`` 2), so a member
passes straight into the core's flat-index methods.  Everything a person
types -- ``"B"``, ``"w"``, ``"black"``, ``"White"`` -- goes through
:meth:`Color.parse`.

Compatibility with the string colours of earlier releases: a member prints
(``str``, ``format``) as its letter ``"B"``/``"W"``, equals that letter
(``Color.BLACK == "B"``) and hashes like it, so ``{"B": 1}[board.to_move]``
and ``board.captures["W"]`` keep working.  It also equals its integer code
(``Color.BLACK == 2``, as an ``IntEnum``) but does not hash like it: do not
mix members and bare codes as keys of one dict.  JSON writes a member as its
code; write ``color.letter`` where a file wants the letter.  ``lower()`` and
``upper()`` still answer as the letter's, with a ``DeprecationWarning``, for
one release.
"""

from __future__ import annotations

import enum
import warnings

__all__ = ["Color", "BLACK", "WHITE"]

_NAMES = {"b": 2, "black": 2, "w": 1, "white": 1}


class Color(enum.IntEnum):
    """A player's colour: ``Color.BLACK`` (core code 2) or ``Color.WHITE`` (1)."""

    WHITE = 1
    BLACK = 2

    @property
    def letter(self) -> str:
        """``"B"`` or ``"W"``: the colour as GTP prints it and SGF names it (``B[]``, ``AB[]``)."""
        return "B" if self is Color.BLACK else "W"

    @property
    def sign(self) -> int:
        """``+1`` for Black, ``-1`` for White: the values of :meth:`Board.to_numpy`."""
        return 1 if self is Color.BLACK else -1

    @property
    def opponent(self) -> Color:
        """The other colour."""
        return Color.WHITE if self is Color.BLACK else Color.BLACK

    @classmethod
    def parse(cls, value: object) -> Color:
        """The colour ``value`` names: a :class:`Color`, or ``"B"``/``"W"``/``"black"``/``"white"``
        in any case, surrounding blanks ignored.

        Bare integers are refused on purpose: the core's codes (White 1,
        Black 2) and :meth:`Board.to_numpy`'s signs (Black 1, White -1) read
        the same number differently; write ``Color(code)`` or
        :meth:`Color.from_sign`.  Raises ``ValueError`` for anything else.
        """
        if isinstance(value, Color):
            return value
        if isinstance(value, str):
            code = _NAMES.get(value.strip().lower())
            if code is not None:
                return cls(code)
        raise ValueError(f"bad colour {value!r}: expected 'B' or 'W' (or 'black'/'white'), "
                         "or a fastplay.Color")

    @classmethod
    def from_sign(cls, sign: int) -> Color:
        """``Color.BLACK`` for ``+1``, ``Color.WHITE`` for ``-1``; ``ValueError`` otherwise."""
        if isinstance(sign, bool) or sign not in (1, -1):
            raise ValueError(f"bad colour sign {sign!r}: expected +1 (Black) or -1 (White)")
        return cls.BLACK if sign == 1 else cls.WHITE

    def lower(self) -> str:
        """Deprecated (``Color`` is no ``str``): ``color.letter.lower()``, for code written
        when colours were ``"B"``/``"W"``; warns ``DeprecationWarning`` at the caller."""
        warnings.warn("Color.lower() is deprecated: a Color is no str, use color.letter.lower()",
                      DeprecationWarning, stacklevel=2)
        return self.letter.lower()

    def upper(self) -> str:
        """Deprecated, as :meth:`lower`: ``color.letter`` (already upper case)."""
        warnings.warn("Color.upper() is deprecated: a Color is no str, use color.letter",
                      DeprecationWarning, stacklevel=2)
        return self.letter

    def __str__(self) -> str:
        return self.letter

    def __format__(self, spec: str) -> str:
        """The letter (``f"{c}"``, ``f"{c:>3}"``), or the code for an
        integer or real presentation type (``f"{c:d}"`` gives ``2``, as the
        ``int`` it is)."""
        if spec and spec[-1] in "bcdoxXneEfFgG%":
            return format(int(self), spec)
        return format(self.letter, spec)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str) and not isinstance(other, Color):
            return other == self.letter
        return int.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash(self.letter)


BLACK = Color.BLACK
WHITE = Color.WHITE
