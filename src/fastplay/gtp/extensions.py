"""GNU Go's GTP extensions that users script with, and KGS's time settings.

``captures COLOR`` (stones captured *by* COLOR), ``is_legal COLOR VERTEX``
(1 or 0), ``list_stones COLOR``, ``printsgf [FILE]`` (the game as SGF, to
the answer or to FILE), ``cputime`` (seconds of CPU this process used),
``help`` (the command names, as ``list_commands``), ``gg-undo [N]`` (take
back the last N moves, 1 by default; GoGui uses it to go back several moves)
-- as GNU Go 3.8 answers them -- and
``kgs-time_settings none|absolute M|canadian M B S|byoyomi M B P``
(kgsGtp's documentation; byo-yomi periods are kept as Canadian periods of
one stone), and KataGo's ``stop`` (it halts pondering and a running
analysis; any command does both here, so it only answers).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from fastplay.board import InvalidVertexError
from fastplay.gtp.protocol import GTPError, check_clock, parse_color, parse_int, take_args

if TYPE_CHECKING:
    from fastplay.gtp.engine import GTPEngine

__all__ = ["COMMANDS"]


def captures(engine: GTPEngine, args: Sequence[str]) -> str:
    """``captures COLOR``: the number of stones COLOR has captured."""
    (color_text,) = take_args(args, 1)
    return str(engine.board.captures[parse_color(color_text)])


def is_legal(engine: GTPEngine, args: Sequence[str]) -> str:
    """``is_legal COLOR VERTEX``: ``1`` if COLOR may play there now, else ``0``."""
    color_text, vertex = take_args(args, 2)
    color = parse_color(color_text)
    try:
        return "1" if engine.board.is_legal(vertex.lower(), color) else "0"
    except InvalidVertexError:
        raise GTPError("invalid coordinate") from None


def list_stones(engine: GTPEngine, args: Sequence[str]) -> str:
    """``list_stones COLOR``: the stones of COLOR, top-left first."""
    (color_text,) = take_args(args, 1)
    code = 1 if parse_color(color_text) == "B" else -1
    return " ".join(engine.vertices(np.flatnonzero(engine.board.to_numpy().ravel() == code)))


def gg_undo(engine: GTPEngine, args: Sequence[str]) -> str:
    """``gg-undo [N]``: take back the last N moves (default 1; 0 does nothing).
    As GNU Go 3.8: more moves than were played is an error, and nothing is
    taken back then; a negative N is an error.  Unlike it, an N that is not
    an integer is a syntax error (GNU Go's ``sscanf`` reads ``abc`` as 1)."""
    count = parse_int(args[0], "move count") if args else 1
    if count < 0:
        raise GTPError("can't undo a negative number of moves")
    if count > len(engine.board.history):
        raise GTPError("cannot undo")
    for _ in range(count):
        engine.board.undo()
    return ""


def printsgf(engine: GTPEngine, args: Sequence[str]) -> str:
    """``printsgf [FILE]``: the game so far as SGF; written to FILE when named."""
    text = engine.board.to_sgf()
    if not args:
        return "\n" + text.strip()
    try:
        with open(args[0], "w", encoding="utf-8") as out:
            out.write(text)
    except OSError as exc:
        raise GTPError(f"cannot write file {args[0]}: {exc.strerror or exc}") from None
    return ""


def cputime(engine: GTPEngine, args: Sequence[str]) -> str:
    """``cputime``: CPU seconds used by this process, all threads."""
    return f"{time.process_time():.3f}"


def kgs_time_settings(engine: GTPEngine, args: Sequence[str]) -> str:
    """``kgs-time_settings KIND ...`` as GTP ``time_settings``."""
    (kind,) = take_args(args, 1)
    kind = kind.lower()
    counts = {"none": 0, "absolute": 1, "canadian": 3, "byoyomi": 3}
    if kind not in counts:
        raise GTPError("syntax error: kind must be none, absolute, canadian or byoyomi")
    values = [parse_int(v, "time") for v in take_args(args[1:], counts[kind])]
    if values:
        check_clock(values)           # as given: the byo-yomi periods too, though unused
    if kind == "none":
        values = [0, 1, 0]            # byo-yomi time without stones: no limit (GTP 2, 6.3.1)
    elif kind == "absolute":
        values = [values[0], 0, 0]
    elif kind == "byoyomi":
        values = [values[0], values[1], 1]   # each period: one stone in its time
    engine.search().set_time(*values)
    return ""


COMMANDS: dict[str, Callable[[GTPEngine, Sequence[str]], str]] = {
    "captures": captures,
    "is_legal": is_legal,
    "list_stones": list_stones,
    "printsgf": printsgf,
    "gg-undo": gg_undo,
    "cputime": cputime,
    "help": lambda engine, args: "\n".join(engine.commands),
    "kgs-time_settings": kgs_time_settings,
    "stop": lambda engine, args: "",
}
