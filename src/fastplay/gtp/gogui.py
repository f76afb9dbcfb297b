"""GoGui's analysis commands and live graphics.

``gogui-analyze_commands`` lists the commands GoGui shows in its Analyze
menu (``gfx/Label/command``: the answer is drawn on the board); with
``GTPEngine(gfx=True)`` (``fastplay gtp --gogui-gfx``) the engine also writes
``gogui-gfx:`` lines on standard error while ``genmove`` and the analysis
commands search, which GoGui draws live (GoGui's documentation, "Live
graphics": the same gfx language, LABEL, INFLUENCE, VAR, TEXT, CLEAR).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from fastplay.color import Color

if TYPE_CHECKING:
    from fastplay.gtp.engine import GTPEngine

__all__ = ["COMMANDS", "ownership_gfx", "best_moves_gfx", "show_result", "ANALYZE_COMMANDS"]

#: GoGui's Analyze menu: type/label/command.
ANALYZE_COMMANDS = "gfx/Ownership/fastplay-ownership\ngfx/Best moves/fastplay-best_moves"


def _influence(engine: GTPEngine, ownership: Any) -> str:
    """``INFLUENCE`` of every point (+1 Black)."""
    values = np.asarray(ownership, dtype=np.float64).ravel()
    vertices = engine.vertices(range(len(values)))
    return "INFLUENCE " + " ".join(f"{v} {value:.2f}" for v, value in zip(vertices, values))


def ownership_gfx(engine: GTPEngine, ownership: Any, winrate: float) -> str:
    """``INFLUENCE`` of every point (+1 Black) and a win-rate ``TEXT``."""
    return (_influence(engine, ownership) + "\n"
            f"TEXT {engine.board.to_move} win rate {100 * float(winrate):.1f}%")


def best_moves_gfx(engine: GTPEngine, children: Sequence[Any], to_move: str | Color) -> str:
    """``LABEL`` the nine most visited moves 1..9, ``VAR`` the first one's
    principal variation, a ``TEXT`` summary."""
    children = sorted(children, key=lambda child: -child.visits)[:9]
    lines = [f"LABEL {str(c.move).upper()} {rank}" for rank, c in enumerate(children, 1)
             if str(c.move).lower() != "pass"]
    if children and children[0].pv:
        colors = "BW" if to_move == "B" else "WB"
        var = " ".join(f"{colors[i % 2]} {str(m).upper()}" for i, m in enumerate(children[0].pv))
        lines.append(f"VAR {var}")
    summary = ", ".join(f"{str(c.move).upper()} {c.visits} visits {100 * float(c.winrate):.1f}%"
                        for c in children[:3])
    lines.append(f"TEXT {summary}" if summary else "TEXT no moves")
    return "\n".join(lines)


def show(text: str) -> None:
    """Write gfx commands as ``gogui-gfx:`` live graphics on standard error."""
    try:
        sys.stderr.write("gogui-gfx:\n" + text + "\n\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass  # stderr closed: pictures are not worth a crash


def show_result(engine: GTPEngine, result: Any, to_move: str | Color | None = None) -> None:
    """Live graphics of a search result or snapshot for ``to_move`` (default:
    the board's side to move): the ownership as ``INFLUENCE``, the best moves
    as labels, the first one's variation."""
    show(_influence(engine, result.ownership) + "\n"
         + best_moves_gfx(engine, result.children, to_move or engine.board.to_move))


def _analysis(engine: GTPEngine) -> Any:
    """A search for GoGui's analysis commands: not the game's move, so no
    resignation count and no clock (as ``final_score``)."""
    return engine.run_search(engine.board.copy(), move=False)


def _ownership(engine: GTPEngine, args: Sequence[str]) -> str:
    result = _analysis(engine)
    return ownership_gfx(engine, result.ownership, result.winrate)


def _best_moves(engine: GTPEngine, args: Sequence[str]) -> str:
    result = _analysis(engine)
    return best_moves_gfx(engine, result.children, engine.board.to_move)


COMMANDS: dict[str, Callable[[GTPEngine, Sequence[str]], str]] = {
    "gogui-analyze_commands": lambda engine, args: ANALYZE_COMMANDS,
    "gogui_analyze_commands": lambda engine, args: ANALYZE_COMMANDS,
    "fastplay-ownership": _ownership,
    "fastplay-best_moves": _best_moves,
}
