"""``fastplay.life``'s seki reader: two strings sharing liberties, every other
liberty of each an eye of its own colour (its empty region reaches no
enemy stone), and no safe move on a shared one."""

from __future__ import annotations

import numpy as np
import pytest

from fastplay import InvalidVertexError, diagram, format_vertex, parse_vertex
from fastplay.life import in_seki, seki_mask
from test_mcts import SEKI

# SEKI (tests/test_mcts.py): top edge, White A6-B6-B7 (eye A7) and Black
# C6-F6-D7-F7 (eye E7) share the liberty C7.  NOT_SEKI: the same with White at F7: Black's other liberty E7 now touches a White
# stone, so it is no eye, though a move at C7 is still self-atari for both.
# Asked from either string, the eye test alone says no.
NOT_SEKI = SEKI.replace(". O . X . X O", ". O . X . O O", 1)


def _index(board_size: int, vertex: str) -> int:
    return parse_vertex(vertex, board_size)


def test_the_seki_strings_and_their_shared_liberty() -> None:
    board = diagram.parse(SEKI, to_move="B")
    assert in_seki(board, _index(7, "A6")) and in_seki(board, _index(7, "C6"))
    assert not in_seki(board, _index(7, "A5"))      # Black's outer group, own eyes only
    mask = seki_mask(board).ravel()
    marked = {format_vertex(int(i), 7) for i in np.flatnonzero(mask)}
    assert "C7" in marked and not marked & {"A7", "E7"}
    assert {"A6", "B6", "B7", "C6", "D6", "F6", "D7", "F7"} <= marked


def test_a_liberty_region_that_reaches_the_enemy_is_no_eye() -> None:
    board = diagram.parse(NOT_SEKI, to_move="B")
    assert not in_seki(board, _index(7, "C6")) and not in_seki(board, _index(7, "A6"))
    assert not seki_mask(board).any()


def test_a_point_off_the_board_or_the_pass_is_a_bad_vertex() -> None:
    board = diagram.parse(SEKI, to_move="B")
    for point in (49, 200, -5, -1, 1.5):
        with pytest.raises(InvalidVertexError):
            in_seki(board, point)  # type: ignore[arg-type]
    assert not in_seki(board, _index(7, "D4"))      # an empty point has no string
