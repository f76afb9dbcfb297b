"""``fastplay.diagram``: ``parse`` reads what ``str(board)`` prints (and its grid alone),
``render`` is ``str``; bad text gets a ``DiagramError`` naming line and column."""

from __future__ import annotations

import random

import pytest

from fastplay import Board, Color, diagram
from fastplay.diagram import DiagramError

KO = """
  A B C D E
5 . . . . . 5
4 . X O . . 4
3 X O # O . 3
2 . X O . . 2
1 . . . . . 1
  A B C D E
B to play; captures B 0 W 1; komi 6.5
"""


def _ko_board() -> Board:
    board = Board(5, komi=6.5)
    for move in ["B4", "C4", "A3", "D3", "B2", "C2", "C3", "B3"]:   # White B3 takes C3
        board.play(move)
    return board


def test_str_is_render_and_the_format_is_as_documented() -> None:
    board = _ko_board()
    assert str(board) == diagram.render(board) == KO.strip("\n")
    assert board.ko_point == "C3"


def test_parse_rebuilds_the_board() -> None:
    board = _ko_board()
    again = diagram.parse(str(board))
    assert again == board and again.ko_point == "C3" and again.komi == 6.5
    assert again.to_move is Color.BLACK and again.size == 5
    assert again.captures == {"B": 0, "W": 0}          # a setup position has no captures
    shown = diagram.read(str(board))
    assert shown.captures == {Color.BLACK: 0, Color.WHITE: 1} and shown.ko == "C3"
    assert shown.black == ("B4", "A3", "B2") and shown.white == ("C4", "B3", "D3", "C2")
    assert again != Board(5)


@pytest.mark.parametrize("seed", range(40))
def test_round_trip_of_random_games(seed: int) -> None:
    rng = random.Random(seed)
    size = rng.choice([2, 3, 5, 7, 9, 10, 13, 19, 25])
    board = Board(size, komi=rng.choice([7.5, 0.0, -3.5, 6.0, 0.5]))
    for _ in range(rng.randrange(size * size * 2)):
        legal = board.legal_moves()
        board.play(rng.choice(legal) if legal else "pass")
        if rng.random() < 0.2:
            again = diagram.parse(str(board))
            assert again == board and again.komi == board.komi
            assert str(again).splitlines()[:-1] == str(board).splitlines()[:-1]


@pytest.mark.parametrize("komi", [7.5, 7.0, -0.5, 123456.5, -999999.5, 0.1234567, 1e-05])
def test_the_komi_survives_the_round_trip(komi: float) -> None:
    """The status line writes the komi exactly (six digits wrote 123456.5 as
    123456 and -999999.5 as -1e+06: a tester)."""
    board = Board(9, komi=komi)
    assert diagram.parse(str(board)).komi == komi


def test_the_grid_alone_and_compact_rows() -> None:
    grid = """
    . X .
    X O .
    . . .
    """
    board = diagram.parse(grid, to_move="W", komi=0.5)
    assert board.get("B3") == board.get("A2") == Color.BLACK and board.get("B2") == "W"
    assert board.to_move is Color.WHITE and board.komi == 0.5
    assert diagram.parse(".X.\nXO.\n...", to_move="white", komi=0.5) == board
    default = diagram.parse(grid)
    assert default.to_move is Color.BLACK and default.komi == 7.5
    assert diagram.parse("\n".join(str(board).splitlines()[:-1])) == diagram.parse(
        grid, to_move="B")


def test_keywords_may_not_contradict_the_status_line() -> None:
    text = str(_ko_board())
    assert diagram.parse(text, to_move="B", komi=6.5) == _ko_board()
    with pytest.raises(ValueError, match="to_move"):
        diagram.parse(text, to_move="W")
    with pytest.raises(ValueError, match="komi"):
        diagram.parse(text, komi=7.5)


@pytest.mark.parametrize("text, line, column, words", [
    ("", 1, 1, "blank"),
    ("X O Q\n. . .\n. . .", 1, 5, "'Q' is not a point"),
    ("\n\nX O\n. . .", 4, 5, "a board is square"),
    ("X O\n. .\n. .", 1, 4, "a board is square"),
    (". . . .\n. . . .\n. . . .\n", 1, 7, "a board is square"),
    ("X\n", 1, 1, "1 rows"),
    ("XX.\n...\n..", 3, 3, "a board is square"),
    ("XO .\n. . .\n. . .", 1, 1, "one character apart"),
    ("  A B C\n3 . . . 3\n2 . . . 2\n1 . . . 2\n  A B C", 4, 9, "row number 2"),
    ("  A B C\n3 . . . 3\n1 . . . 1\n2 . . . 2\n  A B C", 3, 1, "row number 1"),
    ("  A B\n2 . . 2\n1 . . 1\n  A C", 4, 5, "column letters A B"),
    ("  A B C\n2 . . 2\n1 . . 1\n  A B C", 1, 7, "column letters A B"),
    ("  A B\n2 . . 2\n1 . .\n  A B", 3, 1, "expected row 1"),
    ("2 . . 2\n1 . . 1", 1, 1, "row numbers without column letters"),
    (". X\nX O", 2, 3, "B1 has no liberty"),
    (". . #\n# . .\n. . .", 2, 1, "second ko point"),
    ("X . .\n. . .\n. . .\nB to play; captures B 0 W 0; komi x", 4, 1, "status line"),
    ("X . .\n. . .\n. . .\n  W to play", 4, 3, "status line"),
])
def test_errors_name_line_and_column(text: str, line: int, column: int, words: str) -> None:
    with pytest.raises(DiagramError, match=words) as info:
        diagram.parse(text)
    assert (info.value.line, info.value.column) == (line, column)
    assert str(info.value).startswith(f"line {line}, column {column}: ")
    assert isinstance(info.value, ValueError)


def test_a_komi_that_is_no_komi_is_a_located_diagram_error() -> None:
    """A fresh tester: 'komi 1e400' gave a plain ValueError without a place."""
    from fastplay.diagram import DiagramError, parse

    with pytest.raises(DiagramError) as err:
        parse(". . .\n. . .\n. . .\nB to play; captures B 0 W 0; komi 1e400")
    assert (err.value.line, err.value.column) == (4, 35)


def test_a_ko_point_no_capture_can_have_made_is_refused() -> None:
    """A fresh tester: a '#' on an empty board was accepted, and the point then
    became illegal on an empty board."""
    from fastplay.diagram import DiagramError, parse

    with pytest.raises(DiagramError, match="ko point") as err:
        parse(". # .\n. . .\n. . .\nB to play; captures B 0 W 0; komi 7.5")
    assert (err.value.line, err.value.column) == (1, 3)
    board = parse("X # X\n. X .\n. . .\nW to play; captures B 1 W 0; komi 7.5")
    assert board.ko_point == "B3"
