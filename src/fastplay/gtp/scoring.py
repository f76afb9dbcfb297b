"""GTP scoring: ``final_score`` and ``final_status_list`` (GTP 2, 6.3.3).

Dead stones are those the search's playouts capture: a string whose mean
ownership, from its own colour, is below ``-DEAD_THRESHOLD`` and that is
not in seki (:func:`fastplay.life.dead_strings`).  Without a search the
board is scored as it stands (Tromp-Taylor).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from fastplay.board import Board, format_vertex, parse_vertex
from fastplay.gtp.protocol import GTPError, take_args
from fastplay.life import dead_strings, string_status

if TYPE_CHECKING:
    from fastplay.gtp.engine import GTPEngine

__all__ = ["COMMANDS", "DEAD_THRESHOLD", "SCORING_PLAYOUTS", "dead_stones"]

#: A string whose mean ownership, seen from its own colour, is below
#: ``-DEAD_THRESHOLD`` is dead (unless it is in seki).
DEAD_THRESHOLD = 0.5

#: Playouts spent on settling dead stones when no per-move limit was configured.
SCORING_PLAYOUTS = 2000


def dead_stones(engine: GTPEngine) -> list[str]:
    """Dead stones by the search's ownership; none (Tromp-Taylor) without a search."""
    board = engine.board
    key = (board.zobrist_hash, board.move_number, board.size)
    if engine.dead_cache is not None and engine.dead_cache[0] == key:
        return engine.dead_cache[1]
    try:
        engine.search()     # GTPError when the engine has no search
    except GTPError:
        dead: list[str] = []
    else:
        # Not a move: the resignation count and the clock stay as they were.
        result = engine.run_search(board.copy(), engine.playouts or SCORING_PLAYOUTS,
                                   move=False)
        dead = _dead_from_ownership(board, result.ownership)
    engine.dead_cache = (key, dead)
    return dead


def _dead_from_ownership(board: Board, ownership: Any) -> list[str]:
    if ownership is None:
        return []
    return [format_vertex(i, board.size) for i in dead_strings(board, ownership, DEAD_THRESHOLD)]


def settled_board(engine: GTPEngine) -> Board:
    """The board with dead stones removed, ready for area counting."""
    board = engine.board.copy()
    dead = dead_stones(engine)
    if dead:
        board.setup(empty=dead)
    return board


def final_score(engine: GTPEngine, args: Sequence[str]) -> str:
    """``final_score``: ``B+3.5``, ``W+0.5`` or ``0``, area scoring after the dead stones."""
    return settled_board(engine).result(engine.komi)


def final_status_list(engine: GTPEngine, args: Sequence[str]) -> str:
    """``final_status_list alive|dead|seki``: one string per line, as GNU Go answers."""
    (status,) = take_args(args, 1)
    status = status.lower()
    if status not in ("alive", "dead", "seki"):
        raise GTPError("syntax error: status must be alive, dead or seki")
    size = engine.board.size
    dead = {parse_vertex(v, size) for v in dead_stones(engine)}
    groups = [[format_vertex(i, size) for i in stones]
              for kind, stones in string_status(engine.board, dead) if kind == status]
    return "\n".join(" ".join(group) for group in groups)


COMMANDS: dict[str, Callable[[GTPEngine, Sequence[str]], str]] = {
    "final_score": final_score,
    "final_status_list": final_status_list,
}
