"""GTP version 2 framing and argument parsing (the GTP 2 specification, draft 2).

* every input line is preprocessed (section 3.1): control characters other
  than HT and LF are removed (so CR LF line ends work), text from ``#`` on
  is a comment, HT becomes a space, and lines left empty get no response;
* a command is ``[id] command_name [arguments]``; the answer is ``=id
  result`` or ``?id message`` followed by one empty line;
* a *streaming* answer (Leela Zero's ``lz-analyze``, KataGo's extensions)
  is ``=id``, then lines as they come, then the empty line.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from fastplay.asciinum import ascii_float, ascii_int
from fastplay.board import Board, ColorLike
from fastplay.color import Color
from fastplay.search.clock import MAX_SECONDS
from fastplay.shown import escape_controls, escape_surrogates

__all__ = ["GTPError", "Search", "Stream", "preprocess", "parse_color", "parse_int",
           "parse_float", "take_args", "check_clock", "gtp_move", "format_response",
           "MAX_CLOCK"]

# Every byte below 0x20, and DEL, except HT (0x09) and LF (0x0A): GTP 2 §3.1.
_CONTROL = {c: None for c in (*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F)}

#: Largest time (seconds) or stone count a clock command accepts: about 116
#: days, the search clock's own bound.  Beyond it a search would plan to
#: think for years on one move.
MAX_CLOCK = MAX_SECONDS


class GTPError(Exception):
    """A command failed; the message is sent to the controller after ``?``."""


class Search(Protocol):
    """What the engine needs from a search (:class:`fastplay.search.MCTS` has it).

    ``run`` returns an object with ``best_move`` (a GTP vertex, ``"pass"`` or
    ``"resign"``), ``winrate`` (for the side to move), ``children`` (objects
    with ``move``, ``visits``, ``winrate``, ``prior``, ``pv``) and
    ``ownership`` (``float32[size, size]``, +1 Black, row 0 the top row).
    The analysis commands also need ``analyze`` (:meth:`MCTS.analyze`;
    ``genmove_analyze`` passes it ``move=True``).  ``move=False`` asks for a
    search that is not the game's next move (``reg_genmove``,
    ``final_score``, ``final_status_list``, the analysis commands): it must
    not count towards resignation nor spend the clock.
    """

    def run(self, board: Board, playouts: int | None = None,
            seconds: float | None = None, *, move: bool = True) -> Any: ...

    def new_game(self) -> None: ...

    def set_time(self, main_time: float, byo_yomi_time: float, byo_yomi_stones: int) -> None: ...

    def time_left(self, color: ColorLike, seconds: float, stones: int) -> None: ...

    def ponder_start(self, board: Board) -> None: ...

    def ponder_stop(self) -> None: ...


@dataclass
class Stream:
    """A streaming response: ``lines`` yields output lines (no newline) as they
    come.  An ``interruptible`` stream (``lz-analyze``) ends when any new
    input line arrives -- its generator is then closed -- or when the
    generator ends; the others run to their end whatever comes in."""

    lines: Iterator[str]
    interruptible: bool


def preprocess(line: str | bytes) -> str:
    """Apply the GTP 2 §3.1 preprocessing to one input line.

    Returns the cleaned line, ``""`` when nothing is left (no response is due).
    Bytes are decoded as UTF-8, a stray byte as the lone surrogate of
    ``surrogateescape``: it costs one ``? unknown command``, not the engine,
    and a file name that is not UTF-8 (``loadsgf``) still names its file;
    :func:`format_response` writes such a byte as ``\\xNN``.
    """
    if isinstance(line, bytes):
        line = line.decode("utf-8", errors="surrogateescape")
    line = line.translate(_CONTROL)
    line = line.split("#", 1)[0]
    return line.replace("\t", " ").strip()


def parse_color(text: str) -> Color:
    """``"b"``, ``"black"``, ``"W"``, ... (GTP 2, section 2.8, any case) as a :class:`Color`
    (it equals ``"B"``/``"W"``); :class:`GTPError` ``invalid color`` otherwise."""
    try:
        return Color.parse(text)
    except ValueError:
        raise GTPError("invalid color") from None


def parse_int(text: str, what: str) -> int:
    """An integer argument (ASCII digits, an optional sign:
    :func:`fastplay.asciinum.ascii_int`), or :class:`GTPError` naming ``what``."""
    try:
        return ascii_int(text)
    except ValueError as exc:
        problem = "is too large" if "digits" in str(exc) else "must be an integer"
        raise GTPError(f"syntax error: {what} {problem}") from None


def parse_float(text: str, what: str) -> float:
    """A finite number argument (ASCII, decimal or exponent form:
    :func:`fastplay.asciinum.ascii_float`), or :class:`GTPError` naming ``what``."""
    try:
        value = ascii_float(text)
    except ValueError:
        raise GTPError(f"syntax error: {what} must be a number") from None
    if not math.isfinite(value):
        raise GTPError(f"syntax error: {what} must be finite")
    return value


def take_args(args: Sequence[str], count: int) -> Sequence[str]:
    """The first ``count`` arguments; extra ones are ignored, as GNU Go does."""
    if len(args) < count:
        raise GTPError("syntax error: missing argument")
    return args[:count]


def check_clock(values: Sequence[int], command: str = "time_settings") -> None:
    """Clock arguments must be non-negative and at most ``MAX_CLOCK``; the
    error names ``command``'s arguments (``time_settings`` or ``time_left``)."""
    if min(values) < 0:
        raise GTPError("syntax error: negative time or stone count")
    if max(values) > MAX_CLOCK:
        what = "time settings" if command == "time_settings" else "time_left values"
        raise GTPError(f"{what} above {MAX_CLOCK} (seconds or stones) are not supported")


def log(text: str) -> None:
    """Write one line for the user on standard error, where controllers show
    an engine's messages (Sabaki's and GoGui's GTP consoles) and never read
    answers.  A closed or missing stderr loses the line, never the session."""
    try:
        if sys.stderr is not None:
            sys.stderr.write(f"fastplay: {text}\n")
            sys.stderr.flush()
    except (OSError, ValueError):
        pass


def gtp_move(move: str) -> str:
    """A vertex in upper case as GNU Go writes it; ``pass`` and ``resign`` as they are."""
    return move if move in ("pass", "resign") else move.upper()


def format_response(success: bool, cmd_id: str, result: str) -> str:
    """``=id result`` or ``?id message`` and the empty line that ends it.

    The text cannot break the framing: carriage returns count as line ends
    (a controller reading in text mode sees them so), empty lines are
    dropped, other control characters are written as ``\\xNN``, and an
    error message is one line.  (A tester's SGF value ``B[\\r\\r=2 D4\\r\\r]``,
    quoted by a ``loadsgf`` error, otherwise read as the end of the answer
    and a false ``=2 D4``.)
    """
    result = escape_controls(result.replace("\r\n", "\n").replace("\r", "\n"), keep="\n\t")
    result = escape_surrogates(result)      # (a byte of the input that was no UTF-8)
    if not success:
        result = " ".join(part for part in result.split("\n") if part.strip())
    # An empty line ends a response, so one inside the result would cut it
    # short: drop them.
    lines = [ln.rstrip() for ln in result.split("\n")]
    body = "\n".join(ln for i, ln in enumerate(lines) if ln or i == 0)
    head = ("=" if success else "?") + cmd_id
    if body:
        head += body if body.startswith("\n") else " " + body
    return head + "\n\n"
