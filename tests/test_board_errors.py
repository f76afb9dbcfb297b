"""Bad input gets the documented exception (never a crash), and the small
documented outputs: the ASCII diagram, ``to_numpy``, Tromp-Taylor area.

Documented errors (``notes/board_api.md``, ``fastplay.board``):

* ``Board(size)``: ``TypeError`` for a non-integer size, ``ValueError`` outside 2..25;
* a vertex that cannot be read (bad text, wrong type or shape) ->
  ``InvalidVertexError(rule="bad vertex")``, a ``ValueError`` and not an
  ``IllegalMoveError``; a well-formed vertex outside the board ->
  ``rule="off-board"``;
* rules of Go: ``IllegalMoveError`` with ``"occupied"``, ``"suicide"``, ``"ko"``, ``"superko"``;
* a bad colour -> ``ValueError``; ``undo()`` with no move -> ``IndexError``.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import fastplay
from fastplay.board import Board, IllegalMoveError, InvalidVertexError


def snapshot(board: Board) -> tuple[Any, ...]:
    return (board.to_numpy().tobytes(), board.zobrist_hash, board.to_move, board.ko_point,
            tuple(board.history), tuple(board.captures.items()))


# ---------------------------------------------------------------------------
# sizes


@pytest.mark.parametrize("size", [0, 1, 26, -1, 100, 10**20])
def test_size_out_of_range(size: int) -> None:
    with pytest.raises(ValueError):
        Board(size)


@pytest.mark.parametrize("size", [2.5, "9", None, 9.0, True, [9], object()])
def test_size_not_an_integer(size: Any) -> None:
    with pytest.raises(TypeError):
        Board(size)


@pytest.mark.parametrize("flag", ["no", "yes", 1, 0, None, 1.0])
@pytest.mark.parametrize("name", ["superko", "suicide"])
def test_rule_flags_must_be_bools(name: str, flag: Any) -> None:
    """A tester's finding: ``Board(9, superko="no")`` turned superko on (any
    truthy value did)."""
    with pytest.raises(TypeError, match=f"{name} must be a bool"):
        Board(9, **{name: flag})


@pytest.mark.parametrize("name", ["superko", "suicide"])
def test_numpy_bools_are_rule_flags(name: str) -> None:
    assert getattr(Board(9, **{name: np.bool_(True)}), name) is True


@pytest.mark.parametrize("size", [2, 25, np.int64(9)])
def test_sizes_accepted(size: int) -> None:
    board = Board(size)
    assert board.size == int(size)
    assert board.to_numpy().shape == (int(size), int(size))


# ---------------------------------------------------------------------------
# vertices

BAD_VERTEX = ["", " ", "Z", "I5", "i5", "pass2", "D4x", "4D", "D 4", "D+4", "D-4", "D4.0",
              "D²", "D٤", "Ｄ4", "D" + "9" * 5000,
              3.5, np.float64(3.0), None, (1,), (1, 2, 3), (1.0, 2), (True, 1), [1, 2],
              b"D4", object(), True]
OFF_BOARD = ["Z99", "A0", "A26", "K1", "A10", (-1, 0), (0, 9), (9, 0), 81, -2, 10**30]


@pytest.mark.parametrize("vertex", BAD_VERTEX, ids=lambda v: ascii(v)[:20])
def test_bad_vertex(vertex: Any) -> None:
    board = Board(9)
    board.play("E5")
    before = snapshot(board)
    with pytest.raises(InvalidVertexError) as info:
        board.play(vertex)
    assert info.value.rule == "bad vertex" and info.value.vertex is vertex
    assert isinstance(info.value, ValueError) and not isinstance(info.value, IllegalMoveError)
    assert snapshot(board) == before
    with pytest.raises(InvalidVertexError) as info:
        board.is_legal(vertex)
    assert info.value.rule == "bad vertex"


@pytest.mark.parametrize("vertex", OFF_BOARD, ids=lambda v: ascii(v)[:20])
def test_off_board(vertex: Any) -> None:
    board = Board(9)
    before = snapshot(board)
    with pytest.raises(InvalidVertexError) as info:
        board.play(vertex)
    assert info.value.rule == "off-board"
    assert not isinstance(info.value, IllegalMoveError)
    assert snapshot(board) == before


@pytest.mark.parametrize("method", ["get", "liberties", "string"])
@pytest.mark.parametrize("vertex", ["", "I5", None, 3.5, "pass", -1, (9, 9), "A10"], ids=ascii)
def test_queries_reject_non_points(method: str, vertex: Any) -> None:
    board = Board(9)
    with pytest.raises(InvalidVertexError) as info:
        getattr(board, method)(vertex)
    assert info.value.rule in ("bad vertex", "off-board")


def test_equivalent_vertex_forms() -> None:
    """GTP text in any case, (row, col) with row 0 on top, flat index, numpy ints."""
    form: Any
    for form in ("c7", " C7 ", (2, 2), 20, np.int64(20), (np.int32(2), np.int8(2))):
        board = Board(9)
        board.play(form)
        assert board.history == [("B", "C7")] and board.to_numpy()[2, 2] == 1
    for form in ("pass", "PASS", -1, np.int32(-1)):
        board = Board(9)
        board.play(form)
        assert board.history == [("B", "pass")]


@pytest.mark.parametrize("colour", ["X", "", "none", 0, 1, 2, 3, 1.0, object()], ids=ascii)
def test_bad_colour(colour: Any) -> None:
    board = Board(9)
    with pytest.raises(ValueError):
        board.play("E5", colour)
    with pytest.raises(ValueError):
        board.legal_moves(colour)
    assert board.history == []


@pytest.mark.parametrize("colour", ["B", "b", "black", "Black", "BLACK", " b "])
def test_colour_names(colour: Any) -> None:
    board = Board(9)
    board.play("E5", colour)
    assert board.get("E5") == "B" and board.to_move == "W"


# ---------------------------------------------------------------------------
# rules


def test_occupied() -> None:
    board = Board(9)
    board.play("E5")
    before = snapshot(board)
    for colour in ("B", "W"):
        with pytest.raises(IllegalMoveError) as info:
            board.play("E5", colour)
        assert info.value.rule == "occupied"
        assert not board.is_legal("E5", colour)
    assert snapshot(board) == before


def test_single_stone_suicide() -> None:
    board = Board(9)
    board.setup(white=["A2", "B1"], to_move="B")
    before = snapshot(board)
    with pytest.raises(IllegalMoveError) as info:
        board.play("A1")
    assert info.value.rule == "suicide"
    assert isinstance(info.value, ValueError)
    assert snapshot(board) == before
    # it stays illegal with suicide allowed: it would change nothing but the turn
    lenient = Board(9, suicide=True)
    lenient.setup(white=["A2", "B1"], to_move="B")
    with pytest.raises(IllegalMoveError) as info:
        lenient.play("A1")
    assert info.value.rule == "suicide"


def test_capture_is_not_suicide() -> None:
    board = Board(9)
    board.setup(black=["A3", "B2"], white=["A2", "B1"], to_move="B")
    # black A1 has no empty neighbour but takes white A2's last liberty
    assert board.is_legal("A1")
    board.play("A1")
    assert board.get("A2") is None and board.captures["B"] == 1


def test_ko_retake() -> None:
    board = Board(9)
    # a ko at D5/E5: black D6 C5 D4, white E6 F5 E4; B takes at E5 after W D5
    board.setup(black=["D6", "C5", "D4"], white=["E6", "F5", "E4"], to_move="W")
    board.play("D5")                       # white stone in atari
    board.play("E5")                       # black captures D5
    assert board.ko_point == "D5"
    before = snapshot(board)
    with pytest.raises(IllegalMoveError) as info:
        board.play("D5")
    assert info.value.rule == "ko"
    # one pair of brackets in the message (a tester read "... (simple ko))")
    assert str(info.value).endswith("ko (retaking the ko at once is forbidden: simple ko)")
    assert snapshot(board) == before
    assert not board.is_legal("D5") and "D5" not in board.legal_moves()
    # after a ko threat elsewhere the retake is legal
    board.play("A9")
    board.play("J1")
    assert board.is_legal("D5")
    board.play("D5")
    assert board.get("E5") is None


def test_illegal_move_error_fields() -> None:
    board = Board(9)
    board.play("E5")
    with pytest.raises(IllegalMoveError) as info:
        board.play("E5")
    err = info.value
    assert isinstance(err, ValueError)
    assert err.rule == "occupied"
    assert err.rule in IllegalMoveError.RULES
    assert "E5" in str(err)
    assert fastplay.IllegalMoveError is IllegalMoveError
    # The move as given and the colour as a Color (a tester got the flat
    # index and the core's code 1 whatever was given).
    assert err.color is fastplay.Color.WHITE and err.color == 1
    for given in ("e5", (4, 4), 40):
        with pytest.raises(IllegalMoveError) as info:
            board.play(given, "B")
        assert info.value.vertex == given and info.value.color is fastplay.Color.BLACK
    with pytest.raises(IllegalMoveError) as info:
        board.play_index(40, 1)
    assert info.value.vertex == 40 and info.value.color is fastplay.Color.WHITE


def test_undo_with_no_move() -> None:
    board = Board(9)
    with pytest.raises(IndexError, match="no move to undo"):
        board.undo()
    board.play("E5")
    board.undo()
    with pytest.raises(IndexError):
        board.undo()


def test_setup_errors() -> None:
    board = Board(9)
    with pytest.raises(ValueError):
        board.setup(black=["A1"], white=["A2", "B1"])   # A1 without a liberty
    with pytest.raises(InvalidVertexError) as info:
        board.setup(black=["Z9"])
    assert info.value.rule == "off-board"
    with pytest.raises(InvalidVertexError):
        board.setup(black=["pass"])
    with pytest.raises(ValueError):
        board.setup(to_move="Q")


# ---------------------------------------------------------------------------
# non-Board arguments


@pytest.mark.parametrize("other", [5, None, "board", object(), 2.5], ids=lambda o: type(o).__name__)
def test_equality_with_non_boards(other: Any) -> None:
    board = Board(9)
    assert board.__eq__(other) is NotImplemented
    assert (board == other) is False
    assert (board != other) is True


def test_equality_of_boards() -> None:
    a, b = Board(9), Board(9)
    assert a == b
    a.play("E5")
    assert a != b
    b.play("E5")
    assert a == b
    assert Board(9) != Board(13)
    with pytest.raises(TypeError):
        hash(a)  # mutable, so unhashable


FOREIGN_SELF_PROBE = """
import sys
from fastplay.board import Board
for name in sys.argv[1:]:
    print("start", name, flush=True)
    fn = getattr(Board, name)
    outcome = "RETURNED"     # it read a foreign object as a board
    for args in ((), (0,), (0, 2), (0, 2, 3)):
        try:
            fn(object(), *args)
        except TypeError as exc:
            if "positional argument" in str(exc):
                continue     # wrong arity: try with more arguments
            outcome = "raised"
        except Exception:
            outcome = "raised"
        break
    print("done", name, outcome, flush=True)
"""

# public methods, including the core's (the compiled ones are the risk)
METHODS = sorted(name for name in dir(Board)
                 if not name.startswith("_") and callable(getattr(Board, name))
                 and not isinstance(Board.__dict__.get(name), (classmethod, staticmethod))
                 and name != "from_sgf")


def _no_core_dump() -> None:
    # a crash is expected to be possible here; writing a core file is slow
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


@functools.cache
def foreign_self_outcomes() -> dict[str, str]:
    """Method name -> "raised", "RETURNED" or "CRASH (exit n)".

    The calls run in child processes, so that a segfault is a test failure
    rather than the end of the test run; after a crash the next child goes
    on with the following method.
    """
    src = Path(fastplay.__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")]))
    outcomes: dict[str, str] = {}
    todo = list(METHODS)
    while todo:
        done = subprocess.run([sys.executable, "-c", FOREIGN_SELF_PROBE, *todo], env=env,
                              capture_output=True, text=True, timeout=120, check=False,
                              preexec_fn=_no_core_dump if os.name == "posix" else None)
        started = None
        for line in done.stdout.splitlines():
            word, name, *rest = line.split()
            if word == "start":
                started = name
            else:
                outcomes[name] = rest[0]
                started = None
        if done.returncode != 0 and started is not None:
            outcomes[started] = f"CRASH (exit {done.returncode})"
        elif done.returncode != 0:
            raise AssertionError(f"probe failed: {done.stderr[-500:]}")
        todo = [name for name in todo if name not in outcomes]
    return outcomes


@pytest.mark.parametrize("name", METHODS)
def test_methods_on_non_boards(name: str) -> None:
    """``Board.<method>(object())`` raises; it neither crashes nor reads the
    foreign object as a board."""
    outcome = foreign_self_outcomes()[name]
    assert outcome == "raised", f"Board.{name}(object(), ...): {outcome}"


def test_sgf_functions_reject_non_boards() -> None:
    from fastplay.sgf import board_to_sgf

    with pytest.raises(TypeError):
        board_to_sgf("not a board")  # type: ignore[arg-type]


def test_core_entry_points_validate() -> None:
    board = Board(5)
    with pytest.raises(InvalidVertexError) as info:
        board.play_index(25, fastplay._core.BLACK)
    assert info.value.rule == "off-board" and not isinstance(info.value, IllegalMoveError)
    for bad_colour in (0, 3, -1):
        with pytest.raises(ValueError):
            board.play_index(0, bad_colour)
        with pytest.raises(ValueError):
            board.legal_indices(bad_colour)
    with pytest.raises(InvalidVertexError):
        board.legality_index(10**20, fastplay._core.BLACK)


# ---------------------------------------------------------------------------
# outputs


def test_ascii_diagram_uses_gtp_coordinates() -> None:
    board = Board(9)
    board.play("D4")
    board.play("E5")
    lines = str(board).splitlines()
    header = next(line for line in lines if "A B C" in line)
    assert header.split() == list("ABCDEFGHJ")      # no I
    row4 = next(line for line in lines if line.split() and line.split()[0] == "4")
    row5 = next(line for line in lines if line.split() and line.split()[0] == "5")
    assert row4[header.index("D")] == "X"
    assert row5[header.index("E")] == "O"
    numbers = [int(line.split()[0]) for line in lines if line.split() and line.split()[0].isdigit()]
    assert numbers == list(range(9, 0, -1))          # row 9 on top
    assert str(Board(25)).splitlines()[0].split() == list("ABCDEFGHJKLMNOPQRSTUVWXYZ")


def test_to_numpy_dtype_shape_orientation() -> None:
    board = Board(7)
    board.play("A7")        # top left
    board.play("G1")        # bottom right
    grid = board.to_numpy()
    assert grid.dtype == np.int8 and grid.shape == (7, 7)
    assert grid[0, 0] == 1 and grid[6, 6] == -1 and np.count_nonzero(grid) == 2
    grid[3, 3] = 1          # a copy: changing it leaves the board alone
    assert board.get("D4") is None
    libs = board.liberty_array()
    assert libs.dtype == np.int16 and libs.shape == (7, 7)
    assert libs[0, 0] == 2 and libs[6, 6] == 2 and libs.sum() == 4


def area_board(size: int, black: Sequence[str] = (), white: Sequence[str] = (),
               komi: float = 0.0) -> Board:
    board = Board(size, komi=komi)
    board.setup(black=list(black), white=list(white))
    return board


def test_area_empty_board() -> None:
    board = area_board(5, komi=2.5)
    assert board.area() == (0, 0)                     # the empty region touches no stone
    assert board.score() == -2.5 and board.result() == "W+2.5"
    assert board.score(komi=0) == 0 and board.result(komi=0) == "0"


def test_area_one_stone_owns_the_board() -> None:
    board = area_board(5, black=["C3"], komi=0.5)
    assert board.area() == (25, 0)
    assert board.score() == 24.5 and board.result() == "B+24.5"


def test_area_walls() -> None:
    col = lambda letter: [f"{letter}{r}" for r in range(1, 6)]
    board = area_board(5, black=col("C"), white=col("D"))
    assert board.area() == (15, 10)                   # A B C | D E
    assert board.score() == 5 and board.result() == "B+5.0"


def test_area_neutral_points() -> None:
    col = lambda letter: [f"{letter}{r}" for r in range(1, 6)]
    board = area_board(5, black=col("B"), white=col("D"))
    assert board.area() == (10, 10)                   # column C touches both: dame
    assert board.score() == 0 and board.result() == "0"


def test_area_dead_stones_count_as_alive() -> None:
    """Tromp-Taylor: no life-and-death judgement; a lone white stone in
    Black's area makes that region neutral."""
    col = [f"C{r}" for r in range(1, 6)]
    board = area_board(5, black=col, white=["A1"])
    assert board.area() == (5 + 10, 1)
    assert board.score() == 14


def test_area_types() -> None:
    black, white = Board(9).area()
    assert type(black) is int and type(white) is int
    assert isinstance(Board(9).score(), float)


def test_vertex_functions_take_board_sizes_only() -> None:
    """``format_vertex(5, -3)`` was ``'Z-1'``, ``format_vertex(899, 30)`` an
    ``IndexError`` and ``parse_vertex("Z30", 30)`` 24 (a tester): a size
    must be a board's, 2..25, and an index off the board is an
    ``InvalidVertexError``, as ``parse_vertex`` raises."""
    from fastplay.board import format_vertex, parse_vertex

    for size, error in ((-3, ValueError), (1, ValueError), (26, ValueError), (30, ValueError),
                        (9.0, TypeError), ("9", TypeError)):
        with pytest.raises(error, match="board size"):
            format_vertex(5, size)  # type: ignore[arg-type]
        with pytest.raises(error, match="board size"):
            parse_vertex("A1", size)  # type: ignore[arg-type]
    with pytest.raises(InvalidVertexError, match="off the 9x9") as info:
        format_vertex(81, 9)
    assert info.value.rule == "off-board"
    with pytest.raises(TypeError):
        format_vertex(True, 9)
    assert format_vertex(40, 9) == "E5" and format_vertex(-1, 9) == "pass"
    assert format_vertex(624, 25) == "Z1" and parse_vertex("Z25", 25) == 24


def test_setup_says_a_list_must_be_iterable() -> None:
    board = Board(9)
    with pytest.raises(TypeError, match="empty must be an iterable of vertices, not NoneType"):
        board.setup(black=["E5"], empty=None)  # type: ignore[arg-type]
    assert board.get("E5") is None


def test_a_board_whose_init_never_ran_says_so() -> None:
    """``Board.__new__(Board)`` (or a subclass's ``__init__`` without
    ``super()``) searched raised a bare ``MemoryError``, and its ``repr``
    a ``TypeError`` (a tester)."""
    from fastplay.search import MCTS

    board = Board.__new__(Board)
    assert repr(board) == "Board(<not initialised>)"
    with pytest.raises(RuntimeError, match="not initialised"):
        board.copy()
    with pytest.raises(RuntimeError, match="not initialised"):
        MCTS(fastplay.PatternDatabase.default(), seed=1).run(board, visits=20)
