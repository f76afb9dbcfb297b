"""A Board pickles exactly: the position, rules, history, undo stack and the
positional-superko record, so that a process pool or Ray can carry it."""

from __future__ import annotations

import copy
import multiprocessing
import pickle
import random

import numpy as np
import pytest

import fastplay as fp
from conftest import shared_path
from fastplay.sgf import load_board
from fastplay._board import _unpickle_position
from fastplay.board import IllegalMoveError

DB = fp.PatternDatabase.builtin("mc_montegnu_classic")


def _random_game(size: int, moves: int, seed: int, **rules: bool) -> fp.Board:
    rng = random.Random(seed)
    board = fp.Board(size, komi=rng.choice([0.5, 6.5, 7.5]), **rules)
    for _ in range(moves):
        legal = board.legal_moves()
        board.play(rng.choice(legal) if legal and rng.random() > 0.03 else "pass")
    return board


def _state(board: fp.Board) -> tuple[object, ...]:
    return (board.size, board.komi, board.superko, board.suicide, board.to_move,
            board.ko_point, board.captures, board.history, board.move_number,
            board.consecutive_passes, board.zobrist_hash, board.to_numpy().tobytes())


@pytest.mark.parametrize("size, moves, seed", [(9, 80, 1), (13, 150, 2), (19, 250, 3),
                                               (5, 60, 4), (25, 40, 5)])
def test_round_trip_keeps_every_state_and_undo(size: int, moves: int, seed: int) -> None:
    board = _random_game(size, moves, seed, superko=seed % 2 == 1, suicide=seed % 3 == 0)
    back = pickle.loads(pickle.dumps(board))
    assert type(back) is fp.Board and back == board and _state(back) == _state(board)
    # The undo stack came along: every earlier position is reached again.
    while board.move_number:
        board.undo()
        back.undo()
        assert _state(back) == _state(board)
    with pytest.raises(IndexError):
        back.undo()


def test_superko_record_and_last_move_survive() -> None:
    """The positional-superko record (the triple-ko cycle of case 18: White
    may not complete it) and the near set of the last move (what the
    playouts' near values read) come along."""
    board = load_board(shared_path("cases", "18-board-triple-ko-cycle.sgf"), move_number=5,
                       superko=True)
    back = pickle.loads(pickle.dumps(board))
    b9 = fp.parse_vertex("B9", board.size)
    assert back.legality_index(b9, fp.WHITE) == board.legality_index(b9, fp.WHITE) == "superko"
    assert back.legal_moves("W") == board.legal_moves("W")
    assert np.array_equal(back.near_mask(), board.near_mask()) and board.near_mask().any()
    assert fp.playouts(back, DB, 300, seed=5) == fp.playouts(board, DB, 300, seed=5)
    # Without the record (the same stones set up) the move is legal: the record is what refuses it.
    fresh = fp.Board(board.size, superko=True)
    fresh.setup(black=[v for v in _points(board) if board.get(v) == "B"],
                white=[v for v in _points(board) if board.get(v) == "W"])
    assert fresh.is_legal("B9", "W")


def _points(board: fp.Board) -> list[str]:
    return [fp.format_vertex(i, board.size) for i in range(board.size ** 2)]


def test_attributes_and_scratch_boards() -> None:
    board = fp.Board.from_sgf("(;GM[1]SZ[9]KM[6.5]PB[Ann]PW[Bo];B[ee];W[cc])")
    board.note = "kept"  # type: ignore[attr-defined]
    back = pickle.loads(pickle.dumps(board))
    assert back.sgf_properties == board.sgf_properties and back.note == "kept"  # type: ignore[attr-defined]
    assert back.sgf_properties is not board.sgf_properties
    scratch = board.copy(history=False)
    again = pickle.loads(pickle.dumps(scratch))
    assert again == scratch and again.move_number == 0
    assert np.array_equal(again.near_mask(), scratch.near_mask())
    with pytest.raises(IndexError):
        again.undo()


class _Slotted(fp.Board):
    __slots__ = ("tag",)


class _Private(fp.Board):
    __slots__ = ("__x",)

    def set_x(self, value: int) -> None:
        self.__x = value

    def x(self) -> int:
        return self.__x


def test_a_subclass_keeps_its_class_and_slots() -> None:
    board = _Slotted(9)
    board.tag = "t"
    board.play("D4")
    back = pickle.loads(pickle.dumps(board))
    assert type(back) is _Slotted and back.tag == "t" and back.history == board.history
    # A private slot (its name mangled: the tester's finding) too, in copies as well.
    private = _Private(9)
    private.set_x(1)
    for again in (pickle.loads(pickle.dumps(private)), copy.copy(private),
                  copy.deepcopy(private)):
        assert again.x() == 1


def _tampered(board: fp.Board, at: int, value: object) -> object:
    """``board``'s pickle with argument ``at`` of its rebuild replaced, loaded."""
    rebuild, args, state = board.__reduce__()
    args = (*args[:at], value, *args[at + 1:])

    class Tampered:
        def __reduce__(self) -> tuple[object, ...]:
            return rebuild, args, state

    return pickle.loads(pickle.dumps(Tampered()))


def test_a_corrupted_pickle_raises_and_never_loads_a_broken_board() -> None:
    """Loading replays the moves through the rules, so a tampered pickle
    (the tester's cases: wrong sizes, colours, points, moves, update sets)
    raises a clean error instead of loading a board that crashes later."""
    board = _random_game(9, 30, 7)
    scratch = board.copy(history=False)
    rebuild, args, _ = scratch.__reduce__()
    assert rebuild is _unpickle_position and args[1] == 1 and args[5] == []
    cases: list[tuple[fp.Board, int, object, type[Exception], str | None]] = [
        (board, 1, 2, ValueError, "pickled in format 2"),
        (board, 2, (1, 7.5, False, False), ValueError, "board size"),
        (board, 2, (9, float("nan"), False, False), ValueError, "komi"),
        (board, 3, ([0, 0], []), ValueError, "twice"),
        (board, 3, ([100], []), ValueError, "off the 9x9 board"),
        (board, 4, (0, -1, 0), ValueError, "colour|color"),
        (board, 4, (3, -1, 0), ValueError, "colour|color"),
        (board, 5, [(7, 3)] * 4, ValueError, "colour|color"),
        (board, 5, [(fp.BLACK, 100000)], ValueError, None),
        (board, 5, [(fp.BLACK, 40), (fp.WHITE, 40)], IllegalMoveError, "occupied"),
        (board, 6, (fp.BLACK, 200, fp.WHITE), ValueError, None),
        (scratch, 7, (7, 10000, [], 0, 0, 0), ValueError, "last move"),
        (scratch, 7, (0, -1, [-1] * 10, 0, 0, 0), ValueError, "update set"),
        (scratch, 7, (0, -1, list(range(81)) * 2, 0, 0, 0), ValueError, "update set"),
        (scratch, 7, (0, -1, [], -5, 0, 0), ValueError, "captures"),
        (scratch, 5, [(fp.BLACK, 0)], ValueError, "scratch board has no moves"),
    ]
    for source, at, value, error, message in cases:
        with pytest.raises(error, match=message):
            _tampered(source, at, value)
    for at, value in ((3, ()), (4, ()), (6, (1,)), (7, (1, 2))):
        with pytest.raises((TypeError, ValueError)):
            _tampered(scratch, at, value)


def test_an_uninitialised_board_is_refused() -> None:
    with pytest.raises(TypeError, match="__init__ did not run"):
        pickle.dumps(fp.Board.__new__(fp.Board))


def _replay_tail(board: fp.Board) -> tuple[object, ...]:
    board.undo()
    return _state(board)


def test_a_board_crosses_a_process_pool() -> None:
    """A spawned process (its own import of the core) reads the pickle."""
    boards = [_random_game(9, 40, seed, superko=True) for seed in range(3)]
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        remote = pool.map(_replay_tail, boards)
    for board, state in zip(boards, remote):
        board.undo()
        assert state == _state(board)
