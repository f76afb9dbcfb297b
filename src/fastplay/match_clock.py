"""Game clocks for the match referee: sudden death and Canadian byo-yomi.

A :class:`TimeControl` is what ``fastplay match --time`` names: ``"30"`` is
30 seconds of sudden death per side; ``"60+10/5"`` is 60 seconds of main time,
then Canadian byo-yomi periods of 10 seconds for every 5 stones.  The referee
tells both engines with GTP's ``time_settings main byo stones`` (GTP 2,
section 4.6; sudden death is ``byo = 0, stones = 0``) and, before every
``genmove``, tells the mover its clock with ``time_left color seconds
stones`` (``stones`` is 0 during main time), as gogui-twogtp and KGS do.

A :class:`GameClock` is the referee's clock of one game.  The time of a move
runs from sending ``genmove`` to its answer (wall clock, ``time.monotonic``).
Main time runs down first; when it runs out in the middle of a move, the
move goes on in the first byo-yomi period and counts as its first stone.  A
period must give its ``stones`` moves within its seconds; then a new period
starts.  A side whose time runs out loses on time (SGF ``B+T``/``W+T``).
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field

from fastplay.argtypes import MAX_SECONDS

__all__ = ["TimeControl", "GameClock"]

_SPEC = re.compile(r"^\s*(\d+)\s*(?:\+\s*(\d+)\s*/\s*(\d+)\s*)?$")


@dataclass(frozen=True)
class TimeControl:
    """Main time and Canadian byo-yomi (``byo_yomi`` seconds per ``stones`` stones).

    ``stones = 0`` (and ``byo_yomi = 0``) is sudden death.
    """

    main: float
    byo_yomi: float = 0.0
    stones: int = 0

    def __post_init__(self) -> None:
        if not (0 <= self.main <= MAX_SECONDS and 0 <= self.byo_yomi <= MAX_SECONDS
                and 0 <= self.stones <= MAX_SECONDS):
            raise ValueError(f"time control: times and stones must be in 0..{MAX_SECONDS:,} "
                             "(times finite)")
        if (self.byo_yomi > 0) != (self.stones > 0):
            raise ValueError("time control: byo-yomi needs both seconds and stones")
        if self.main == 0 and self.stones == 0:
            raise ValueError("time control: no time at all")

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """``"MAIN"`` (sudden death) or ``"MAIN+BYO/STONES"`` (Canadian), in whole
        seconds (GTP's ``time_settings`` takes integers: an engine told "3.5"
        refuses it and plays on without knowing its clock).

        Raises ``ValueError`` for anything else.
        """
        match = _SPEC.match(text)
        if match is None or len(text) > 40:
            raise ValueError(f"time control {text!r}: expected MAIN (sudden death) or "
                             "MAIN+BYO/STONES (Canadian byo-yomi), whole seconds, "
                             "e.g. 30 or 60+10/5")
        main, byo, stones = match.groups()
        return cls(float(main), float(byo or 0.0), int(stones or 0))

    def spec(self) -> str:
        """The text :meth:`parse` reads back: ``"MAIN"`` or ``"MAIN+BYO/STONES"``."""
        if self.stones:
            return f"{self.main:.0f}+{self.byo_yomi:.0f}/{self.stones}"
        return f"{self.main:.0f}"

    def gtp(self) -> str:
        """The ``time_settings`` command (integers, as GTP 2 section 4.6 wants)."""
        return f"time_settings {math.ceil(self.main)} {math.ceil(self.byo_yomi)} {self.stones}"

    def __str__(self) -> str:
        if self.stones:
            return f"{self.main:g} s + {self.byo_yomi:g} s / {self.stones} stones (Canadian)"
        return f"{self.main:g} s sudden death"


@dataclass
class _Side:
    main: float
    period: float = 0.0
    stones: int = 0          # stones still to play in the period; 0 during main time
    used: float = 0.0        # seconds used in all


@dataclass
class GameClock:
    """The clocks of one game under ``control`` (see the module docstring)."""

    control: TimeControl
    sides: dict[str, _Side] = field(default_factory=dict)
    _started: float | None = None

    def __post_init__(self) -> None:
        control = self.control
        self.sides = {c: _Side(control.main) for c in "BW"}
        if control.main == 0:                 # byo-yomi from the first move
            for side in self.sides.values():
                side.period, side.stones = control.byo_yomi, control.stones

    def time_left(self, color: str) -> tuple[float, int]:
        """``(seconds, stones)`` of ``color``'s clock, as ``time_left`` says them."""
        side = self.sides[color]
        if side.stones == 0:
            return side.main, 0
        return side.period, side.stones

    def gtp_time_left(self, color: str) -> str:
        seconds, stones = self.time_left(color)
        return f"time_left {color.lower()} {max(0, math.floor(seconds))} {stones}"

    def available(self, color: str) -> float:
        """Seconds ``color`` may still take for the coming move."""
        side = self.sides[color]
        if side.stones == 0:
            return side.main + (self.control.byo_yomi if self.control.stones else 0.0)
        return side.period

    def start(self) -> None:
        """The mover's clock starts (``genmove`` is sent)."""
        self._started = time.monotonic()

    def stop(self, color: str, elapsed: float | None = None) -> bool:
        """The move is in; ``False`` when ``color`` has run out of time.

        ``elapsed``: the move's seconds (default: since :meth:`start`).
        """
        if elapsed is None:
            if self._started is None:
                raise RuntimeError("GameClock.stop before start")
            elapsed = time.monotonic() - self._started
        self._started = None
        side = self.sides[color]
        side.used += elapsed
        control = self.control
        if side.stones == 0:
            side.main -= elapsed
            if side.main > 0 or (side.main == 0 and control.stones == 0):
                return True
            if control.stones == 0:
                return False                          # sudden death
            if side.main == 0:                        # used up exactly: a fresh period
                side.period, side.stones = control.byo_yomi, control.stones
                return True
            overflow, side.main = -side.main, 0.0
            side.period, side.stones = control.byo_yomi - overflow, control.stones
        else:
            side.period -= elapsed
        if side.period < 0:
            return False
        side.stones -= 1
        if side.stones == 0:                          # the period is done: a new one
            side.period, side.stones = control.byo_yomi, control.stones
        return True
