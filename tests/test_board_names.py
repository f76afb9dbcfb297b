"""The Board's vocabulary (issue 20, item 4): vertex methods are the API, their
flat-index twins follow one naming rule (``m_index`` / ``m_indices`` / ``m_flat``),
the names of earlier releases still work and warn, and a vertex that names no
point raises ``InvalidVertexError`` from every method that takes one."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import fastplay
from fastplay import Board, Color, IllegalMoveError, InvalidVertexError, diagram
from fastplay.board import parse_vertex

POSITION = """
. . . . . . .
. . X O . . .
. X O . O . .
. . X O . . .
. . . X . . .
. . . . . . .
. . . . . . .
"""

# old name -> (new name, arguments on POSITION's board)
RENAMED: dict[str, tuple[str, tuple[Any, ...]]] = {
    "color_at": ("get_index", (9,)),
    "liberty_count": ("liberties_index", (16,)),
    "legality": ("legality_index", (17, Color.BLACK)),
    "ladder_captures": ("in_ladder_index", (16,)),
    "tactical_moves": ("tactics_flat", (Color.WHITE,)),
    "race_moves": ("races_flat", (Color.BLACK,)),
    "history_moves": ("history_indices", ()),
    "setup_stones": ("setup_indices", ([0, 8], [1])),
}


def board() -> Board:
    b = diagram.parse(POSITION, to_move="W")
    b.play("F2")
    return b


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray):
        return bool(np.array_equal(a, b))
    return bool(a == b)


@pytest.mark.parametrize("old", sorted(RENAMED))
def test_each_old_name_still_works_and_warns_at_its_call_site(old: str) -> None:
    new, args = RENAMED[old]
    a, b = board(), board()
    expected = getattr(a, new)(*args)
    # board() is a fastplay.Board: the warning names the class the caller used
    with pytest.warns(DeprecationWarning, match=rf"^Board\.{old} is deprecated.*use {new}") \
            as record:
        got = getattr(b, old)(*args)
    assert _same(got, expected) and a == b and str(a) == str(b)
    assert len(record) == 1 and record[0].filename == __file__      # the caller's line
    assert not hasattr(Board, old) or getattr(Board, old) is getattr(fastplay._core.CoreBoard, old)


def test_the_warning_comes_once_per_call_site() -> None:
    b = board()
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("default")
        for _ in range(5):
            b.color_at(9)
        b.color_at(9)
    assert [w.category for w in record] == [DeprecationWarning, DeprecationWarning]
    assert record[0].lineno != record[1].lineno


def test_new_names_do_not_warn() -> None:
    b = board()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for new, args in RENAMED.values():
            getattr(b.copy(), new)(*args)
        b.is_legal_index(17, Color.BLACK)


def test_the_fast_path_twins_answer_as_the_vertex_methods() -> None:
    b = board()
    size = b.size
    for vertex in ("A7", "C6", "C5", "D5", "E5", "D4", "D3", "G1"):
        i = parse_vertex(vertex, size)
        code = b.get_index(i)
        assert (b.get(vertex) or 0) == code
        assert b.liberties(vertex) == b.liberties_index(i)
        assert b.string(vertex) == [fastplay.format_vertex(int(j), size)
                                    for j in b.string_indices(i)] if code else True
        for color in Color:
            assert b.is_legal(vertex, color) == b.is_legal_index(i, color) \
                == (b.legality_index(i, color) is None)
        if code:
            assert b.in_ladder(vertex) == b.in_ladder_index(i)
    for color in Color:
        assert np.array_equal(b.tactics(color), b.tactics_flat(color).reshape(size, size))
        assert np.array_equal(b.races(color), b.races_flat(color).reshape(size, size))
        assert b.legal_moves(color) == [fastplay.format_vertex(int(j), size)
                                        for j in b.legal_indices(color)]
    assert b.history == [(Color(c), fastplay.format_vertex(v, size))
                         for c, v in b.history_indices()]
    assert b.is_legal_index(-1, Color.WHITE)                       # a pass always is
    fresh = Board(size)
    fresh.setup(black=["A7", "G7"], white=["B7"])
    flat = Board(size)
    flat.setup_indices([0, 6], [1])
    assert fresh == flat
    assert b.ko_index == -1 and b.ko_point is None


VERTEX_METHODS: dict[str, Callable[[Board, Any], object]] = {
    "play": lambda b, v: b.play(v),
    "is_legal": lambda b, v: b.is_legal(v),
    "get": lambda b, v: b.get(v),
    "liberties": lambda b, v: b.liberties(v),
    "string": lambda b, v: b.string(v),
    "in_ladder": lambda b, v: b.in_ladder(v),
    "setup black": lambda b, v: b.setup(black=[v]),
    "setup white": lambda b, v: b.setup(white=[v]),
    "setup empty": lambda b, v: b.setup(empty=[v]),
}
NOT_A_POINT = ["", "I5", "D4x", "Z99", "A8", None, 3.5, (7, 0), (1,), 49, -2, True, b"D4"]


@pytest.mark.parametrize("method", sorted(VERTEX_METHODS))
@pytest.mark.parametrize("vertex", NOT_A_POINT, ids=ascii)
def test_every_vertex_method_raises_invalid_vertex_error(method: str, vertex: Any) -> None:
    b = board()
    before = str(b), b.history
    with pytest.raises(InvalidVertexError) as info:
        VERTEX_METHODS[method](b, vertex)
    assert info.value.rule in ("bad vertex", "off-board") and info.value.vertex is vertex
    assert isinstance(info.value, ValueError) and not isinstance(info.value, IllegalMoveError)
    assert (str(b), b.history) == before


@pytest.mark.parametrize("method", ["get", "liberties", "string", "in_ladder", "setup black"])
def test_a_pass_is_not_a_point(method: str) -> None:
    with pytest.raises(InvalidVertexError, match="pass"):
        VERTEX_METHODS[method](board(), "pass")


INDEX_METHODS: dict[str, Callable[[Board, Any], object]] = {
    "play_index": lambda b, i: b.play_index(i, Color.BLACK),
    "legality_index": lambda b, i: b.legality_index(i, Color.BLACK),
    "is_legal_index": lambda b, i: b.is_legal_index(i, Color.BLACK),
    "get_index": lambda b, i: b.get_index(i),
    "liberties_index": lambda b, i: b.liberties_index(i),
    "string_indices": lambda b, i: b.string_indices(i),
    "string_liberty_indices": lambda b, i: b.string_liberty_indices(i),
    "in_ladder_index": lambda b, i: b.in_ladder_index(i),
    "set_ko_index": lambda b, i: b.set_ko_index(i, Color.BLACK),
    "setup_indices": lambda b, i: b.setup_indices([i], []),
}


@pytest.mark.parametrize("method", sorted(INDEX_METHODS))
@pytest.mark.parametrize("index", [49, -2, 10**20, 2.0, "3", None, True])
def test_the_fast_path_raises_invalid_vertex_error_too(method: str, index: Any) -> None:
    b = board()
    with pytest.raises(InvalidVertexError) as info:
        INDEX_METHODS[method](b, index)
    assert not isinstance(info.value, IllegalMoveError)


def test_rules_of_go_stay_illegal_move_errors() -> None:
    b = board()
    with pytest.raises(IllegalMoveError) as info:
        b.play("C6")
    assert info.value.rule == "occupied" and not isinstance(info.value, InvalidVertexError)
    with pytest.raises(IllegalMoveError):
        b.play_index(parse_vertex("C6", b.size), Color.WHITE)


def test_internal_paths_use_the_new_names() -> None:
    """A search, playouts, SGF, pictures, life and the GTP engine warn about nothing."""
    from fastplay.gtp import GTPEngine
    from fastplay.search import MCTS

    db = fastplay.PatternDatabase.builtin("mc_montegnu_classic")
    b = board()
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        MCTS(db, seed=1).run(b, visits=200)
        fastplay.playouts(b, db, n=20, seed=1)
        Board.from_sgf(b.to_sgf())
        fastplay.svg.board(b, last_move=True)
        b.setup(black=["A1"])
        str(b), b.history, b.tactics(), b.races(), b.in_ladder("C6")
        engine = GTPEngine(playouts=50, seed=1)
        for command in ("boardsize 7", "play b d4", "genmove w", "captures b", "is_legal w e5",
                        "list_stones b", "final_score", "showboard", "play w z9"):
            answer = engine.handle(command)
            assert answer is not None and answer.startswith("=" if command != "play w z9"
                                                            else "? invalid coordinate")
