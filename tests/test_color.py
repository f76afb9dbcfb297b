"""``fastplay.Color``: one colour type with the core's codes, readable from what users type,
compatible with the string colours ``"B"``/``"W"`` of earlier releases."""

from __future__ import annotations

import json
import pickle
from typing import Any

import numpy as np
import pytest

import fastplay
from fastplay import Board, Color
from fastplay._core import BLACK as BLACK_CODE
from fastplay._core import WHITE as WHITE_CODE


def test_values_are_the_core_codes() -> None:
    assert Color.BLACK == BLACK_CODE == 2 and Color.WHITE == WHITE_CODE == 1
    assert isinstance(Color.BLACK, int) and int(Color.WHITE) == 1
    assert fastplay.BLACK is Color.BLACK and fastplay.WHITE is Color.WHITE
    board = Board(9)
    board.play_index(40, Color.WHITE)          # straight into the core
    assert board.get_index(40) == Color.WHITE and board.get("E5") is Color.WHITE


def test_sign_opponent_letter() -> None:
    assert (Color.BLACK.sign, Color.WHITE.sign) == (1, -1)
    assert Color.BLACK.opponent is Color.WHITE and Color.WHITE.opponent is Color.BLACK
    assert (Color.BLACK.letter, Color.WHITE.letter) == ("B", "W")
    for color in Color:
        assert Color.from_sign(color.sign) is color
        assert Color.parse(color.letter) is color and Color.parse(color.name) is color
        assert Color(int(color)) is color and color.opponent.opponent is color
        assert pickle.loads(pickle.dumps(color)) is color
    board = Board(5)
    board.play("C3", Color.WHITE)
    assert board.to_numpy()[2, 2] == Color.WHITE.sign


@pytest.mark.parametrize("text, expected", [
    ("B", Color.BLACK), ("b", Color.BLACK), ("black", Color.BLACK), (" Black ", Color.BLACK),
    ("BLACK", Color.BLACK), ("W", Color.WHITE), ("w", Color.WHITE), ("white", Color.WHITE),
    ("White", Color.WHITE), (Color.WHITE, Color.WHITE)])
def test_parse_reads_what_users_write(text: Any, expected: Color) -> None:
    assert Color.parse(text) is expected


@pytest.mark.parametrize("value", ["", "X", "bl", "none", "1", 0, 1, 2, -1, True, 2.0, None,
                                   np.int64(2), b"B", object()], ids=ascii)
def test_parse_refuses_anything_else(value: Any) -> None:
    with pytest.raises(ValueError, match="bad colour"):
        Color.parse(value)


@pytest.mark.parametrize("sign", [0, 2, -2, True, 1.5])
def test_from_sign_refuses_non_signs(sign: Any) -> None:
    with pytest.raises(ValueError):
        Color.from_sign(sign)


def test_prints_equals_and_hashes_as_its_letter() -> None:
    black = Color.BLACK
    assert str(black) == "B" and f"{black}" == "B" and f"{black:>3}" == "  B"
    assert black == "B" and "B" == black and black != "W" and not black != "B"
    assert black != "b" and black != "black"          # only the letter the old API returned
    assert {"B": 1, "W": 2}[black] == 1 and black in {"B", "W"}
    assert {Color.WHITE: 5}["W"] == 5
    assert black == 2 and black != 1 and black != Color.WHITE
    assert json.dumps(black.letter) == '"B"'


def test_board_returns_colors_that_read_like_the_old_strings() -> None:
    board = Board(9)
    board.play("E5")
    board.play("D5", "white")
    assert board.to_move is Color.BLACK and board.to_move == "B"
    assert board.history == [("B", "E5"), ("W", "D5")]
    assert all(isinstance(c, Color) for c, _ in board.history)
    assert board.get("D5") is Color.WHITE and board.get("A1") is None
    assert board.captures == {"B": 0, "W": 0} and board.captures[Color.WHITE] == 0
    board.to_move = Color.WHITE
    assert board.to_move is Color.WHITE
    board.to_move = "b"
    assert board.to_move is Color.BLACK
    assert repr(board).startswith("Board(size=9, komi=7.5, to_move='B'")


def test_every_colour_argument_takes_color_and_text() -> None:
    for black in (Color.BLACK, "B", "black"):
        board = Board(9)
        board.play("C3", black)
        assert board.get("C3") is Color.BLACK
        assert board.is_legal("D4", black) and "D4" in board.legal_moves(black)
        assert board.tactics(black).shape == board.races(black).shape == (9, 9)
        board.setup(white=["G7"], to_move=black)
        assert board.to_move is Color.BLACK
        board.pass_move(black)
        assert board.history == [("B", "pass")]


def test_results_and_contexts_carry_colors() -> None:
    board = Board(9)
    board.play("E5")
    db = fastplay.PatternDatabase.builtin("mc_montegnu_classic")
    one = fastplay.playout(board, db, seed=3)
    assert one.winner is (Color.BLACK if one.score > 0 else Color.WHITE if one.score < 0 else None)
    context = db.context(board, "D4")
    assert context.color is Color.WHITE and context.color == "W"
    assert db.context(board, "D4", Color.BLACK).color is Color.BLACK
    from fastplay.patterns import local_contexts

    assert local_contexts(board, "black").color is Color.BLACK


def test_gtp_parse_color_answers_a_color() -> None:
    from fastplay.gtp import GTPError, parse_color

    assert parse_color("b") is Color.BLACK and parse_color("WHITE") is Color.WHITE
    with pytest.raises(GTPError, match="invalid color"):
        parse_color("x")


def test_str_methods_of_the_old_colours_still_answer_with_a_warning() -> None:
    board = Board(9)
    with pytest.warns(DeprecationWarning, match="letter") as record:
        assert board.to_move.lower() == "b" and Color.WHITE.upper() == "W"
    assert len(record) == 2 and all(w.filename == __file__ for w in record)
