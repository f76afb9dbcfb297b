"""Structured values from a fuzzer's bytes (atheris or the seeded smoke run).

A small, dependency-free cousin of ``atheris.FuzzedDataProvider``: the same
bytes always give the same values, so a crash file replays exactly in any
driver, and CI's smoke run needs no atheris.  When the bytes run out every
reader returns its smallest value.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

#: Numbers that break careless code: limits, signs, NaN, infinities, huge ints.
HOSTILE_NUMBERS: tuple[object, ...] = (
    0, 1, -1, 2, 7, 8, 9, 19, 24, 25, 26, 361, 625, 2**31 - 1, 2**31, -2**31, 2**32, 2**53,
    2**63, 2**64, -2**63, 10**100, -10**100, 0.5, -0.0, 1e-300, 1e300, math.nan, math.inf,
    -math.inf, True, False)


class Provider:
    """Reads ints, floats, choices, bytes and text from ``data``, front to back."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def remaining(self) -> int:
        """Bytes not read yet."""
        return len(self.data) - self.pos

    def byte(self) -> int:
        """The next byte (0 when none are left)."""
        if self.pos >= len(self.data):
            return 0
        self.pos += 1
        return self.data[self.pos - 1]

    def int_in(self, low: int, high: int) -> int:
        """An integer in ``[low, high]`` (inclusive), from as few bytes as it needs."""
        span = high - low
        if span <= 0:
            return low
        value = 0
        for _ in range((span.bit_length() + 7) // 8):
            value = (value << 8) | self.byte()
        return low + value % (span + 1)

    def pick(self, options: Sequence[T]) -> T:
        """One of ``options`` (non-empty)."""
        return options[self.int_in(0, len(options) - 1)]

    def chance(self, numerator: int, denominator: int = 256) -> bool:
        """True with probability about ``numerator / denominator``."""
        return self.int_in(0, denominator - 1) < numerator

    def float(self) -> float:
        """Any double, NaN and infinities included."""
        raw = bytes(self.byte() for _ in range(8))
        return float(struct.unpack("<d", raw)[0])

    def number(self) -> object:
        """A hostile number (int, float, bool) or a small int."""
        if self.chance(128):
            return self.pick(HOSTILE_NUMBERS)
        if self.chance(64):
            return self.float()
        return self.int_in(-3, 30)

    def raw(self, limit: int) -> bytes:
        """Up to ``limit`` bytes (the count is read first)."""
        n = min(self.int_in(0, limit), self.remaining())
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def text(self, limit: int) -> str:
        """Up to ``limit`` bytes as text (UTF-8 where valid, else Latin-1)."""
        raw = self.raw(limit)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return raw.decode("latin-1")

    def rest(self) -> bytes:
        """Every byte not read yet."""
        out = self.data[self.pos:]
        self.pos = len(self.data)
        return out


def finite(value: object) -> bool:
    """Whether ``value`` is a real, finite number (not a bool)."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))
