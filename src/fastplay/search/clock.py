"""Time control: GTP ``time_settings`` / ``time_left`` and the budget per move.

The clock knows main time and Canadian byo-yomi (GTP 2, section 6.3.1), the
time left per colour as the controller reports it or as the engine charges
itself, and how many seconds the next move may take.  The shape of the
budget follows the usual engine practice (Leela Zero's ``TimeControl``:
main time spread over the moves expected to remain, a byo-yomi period
shared by its stones); the constants are this project's, chosen against
games that ran long (RESULTS.md, "Where the search's constants come from").
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from fastplay._checks import is_integer, is_real
from fastplay.argtypes import MAX_SECONDS
from fastplay.board import Board, ColorLike, parse_color
from fastplay.shown import shown_value

__all__ = ["Clock", "MOVE_OVERHEAD", "MAX_SECONDS"]

# MAX_SECONDS (from the command lines' time options): the largest time
# setting (seconds) or stone count the clock takes, some 116 days (GTP's
# clock commands take the same: ``fastplay.gtp.protocol.MAX_CLOCK``).

#: Seconds a move costs beyond its search budget (GTP, tree set-up, the
#: final choice), kept in reserve under a sudden-death clock: 4x the
#: 0.4-0.9 ms measured for a search of 0.1 ms on 9x9-19x19.
MOVE_OVERHEAD = 0.002


@dataclass
class Clock:
    """Main time, byo-yomi and the time left per colour code.

    Attributes:
        main_time, byo_yomi_time: seconds; ``byo_yomi_stones``: stones per
            period (0: sudden death after main time).
        left: colour code -> (seconds left, stones left in the period; 0
            while in main time).
    """

    main_time: float = 0.0
    byo_yomi_time: float = 0.0
    byo_yomi_stones: int = 0
    left: dict[int, tuple[float, int]] = field(default_factory=dict)

    @property
    def active(self) -> bool:
        """Whether a time limit is set."""
        return self.main_time > 0 or self.byo_yomi_time > 0

    def set_time(self, main_time: float, byo_yomi_time: float, byo_yomi_stones: int) -> None:
        """GTP ``time_settings``.  ``byo_yomi_time > 0`` with ``byo_yomi_stones
        == 0`` means no limit (GTP 2, 6.3.1).  Raises ``TypeError`` for a
        time that is not a number or a stone count that is not an integer,
        ``ValueError`` for a value outside [0, ``MAX_SECONDS``]; forgets the
        time left."""
        main_time = _seconds("main_time", main_time)
        byo_yomi_time = _seconds("byo_yomi_time", byo_yomi_time)
        byo_yomi_stones = _stones("byo_yomi_stones", byo_yomi_stones)
        self.left.clear()
        if byo_yomi_time > 0 and byo_yomi_stones == 0:
            main_time, byo_yomi_time, byo_yomi_stones = 0.0, 0.0, 0
        self.main_time = float(main_time)
        self.byo_yomi_time = float(byo_yomi_time)
        self.byo_yomi_stones = int(byo_yomi_stones)

    def time_left(self, color: ColorLike, seconds: float, stones: int) -> None:
        """GTP ``time_left``: ``seconds`` left for ``color`` (a :class:`~fastplay.Color` or
        ``"B"``/``"white"``...; ``ValueError`` otherwise); ``stones`` > 0 in byo-yomi.
        Without ``time_settings`` the colour's moves are timed by it alone
        (its main time left, or its period; a tester's ``time_left B 0 0``
        was ignored).  Raises as :meth:`set_time` for the values."""
        code = parse_color(color)
        self.left[code] = (_seconds("seconds", seconds), _stones("stones", stones))

    def budget(self, board: Board) -> float | None:
        """Seconds to think on this move for ``board``'s side to move, or
        ``None`` without a clock (no ``time_settings``, and no ``time_left``
        for that side).

        Main time is spread over the moves expected to remain, more per move
        in the middle game (where 9x9 games are decided) than in the opening
        or the endgame; in byo-yomi the period is shared by the stones left.
        A safety margin keeps every answer inside the clock.
        """
        if not self.active and board.to_move_code not in self.left:
            return None
        npts = board.size * board.size
        remaining, stones = self.left.get(board.to_move_code, (self.main_time, 0))
        if stones == 0 and remaining <= 0 and self.byo_yomi_stones > 0:
            remaining, stones = self.byo_yomi_time, self.byo_yomi_stones
        margin = 0.3 + 0.05 * remaining
        if stones > 0:
            budget = remaining / stones
        else:
            # Plies: 99 on 9x9, 174 on 13x13, 337 on 19x19 (0.7 points + 30
            # was short: a tester's 13x13 game took 183 plies).
            game_length = 0.85 * npts + 30
            move = board.move_number
            # Never plan for fewer than a quarter of the points: games run
            # long (a 540-ply 19x19 game overran 5 s with a tenth).
            ours_left = max((game_length - move) / 2, 0.25 * npts)
            phase = move / game_length
            weight = 0.7 if phase < 0.1 else (1.5 if phase < 0.6 else 1.0)
            # Each move also costs time outside its budget: keep that for
            # the moves to come.
            margin += MOVE_OVERHEAD * ours_left
            budget = weight * max(remaining - MOVE_OVERHEAD * ours_left, 0.0) / ours_left
            if self.byo_yomi_stones > 0:
                budget += 0.5 * self.byo_yomi_time / self.byo_yomi_stones
        # The floor shrinks with the time left, so that a sudden-death clock
        # kept by the engine itself is never overrun.
        floor = max(1e-4, min(0.02, remaining / 100))
        return max(floor, min(budget, remaining - margin))

    def spend(self, color: int, seconds: float) -> None:
        """Charge ``color``'s clock ``seconds`` (for controllers that send no
        ``time_left``)."""
        remaining, stones = self.left.get(color, (self.main_time, 0))
        if stones > 0:
            stones -= 1
            remaining -= seconds
            if stones == 0:
                remaining, stones = self.byo_yomi_time, self.byo_yomi_stones
        else:
            remaining -= seconds
            if remaining <= 0 and self.byo_yomi_stones > 0:
                remaining, stones = self.byo_yomi_time, self.byo_yomi_stones
        self.left[color] = (remaining, stones)


def _seconds(name: str, value: object) -> float:
    """A clock's seconds: a real number in [0, ``MAX_SECONDS``] (an infinite
    main time made a search that never ended, and 1e300 one that would not
    end either)."""
    if not is_real(value):
        raise TypeError(f"{name} must be a number of seconds, not {type(value).__name__}")
    try:
        seconds = float(value)
    except OverflowError:
        seconds = math.inf
    if not 0.0 <= seconds <= MAX_SECONDS:
        raise ValueError(f"{name} must be in [0, {MAX_SECONDS:g}] seconds, not {seconds:g}")
    return seconds


def _stones(name: str, value: object) -> int:
    """A clock's stone count: an integer in [0, ``MAX_SECONDS``]."""
    if not is_integer(value):
        raise TypeError(f"{name} must be an integer, not {type(value).__name__}")
    if not 0 <= value <= MAX_SECONDS:
        raise ValueError(f"{name} must be in [0, {MAX_SECONDS:g}], not {shown_value(value)}")
    return int(value)
