"""Property tests (hypothesis) for :class:`fastplay.Board` on random legal games.

Games are drawn move by move from ``board.legal_moves()`` plus passes, on
sizes 2..19.  The references are brute force: a move's legality is found by
playing it on a copy; liberties are recounted with ``scipy.ndimage`` (the
same recount as the replay test); superko is checked against the set of
positions seen, and suicide against the string that would be left without
liberties.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from test_replay_games import recount_liberties

from fastplay.board import Board, IllegalMoveError

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

COLS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


def all_points(size: int) -> list[str]:
    """Every GTP vertex in board order (top-left first)."""
    return [f"{COLS[c]}{size - r}" for r in range(size) for c in range(size)]


@dataclass(frozen=True)
class State:
    """Everything undo must restore."""

    grid: bytes
    hash: int
    ko: str | None
    to_move: str
    captures: tuple[int, int]
    move_number: int
    passes: int
    history: tuple[tuple[str, str], ...]
    libs: bytes


def state(board: Board) -> State:
    caps = board.captures
    return State(board.to_numpy().tobytes(), board.zobrist_hash, board.ko_point, board.to_move,
                 (caps["B"], caps["W"]), board.move_number, board.consecutive_passes,
                 tuple(board.history), board.liberty_array().tobytes())


def random_move(data: st.DataObject, board: Board, pass_percent: int = 5) -> str:
    legal = board.legal_moves()
    # high draws pass, so that hypothesis' simplest draw (0) is a stone
    if not legal or data.draw(st.integers(0, 99), label="pass?") >= 100 - pass_percent:
        return "pass"
    return legal[data.draw(st.integers(0, len(legal) - 1), label="move")]


def brute_force_legal(board: Board, colour: str) -> list[str]:
    """Vertices where ``play`` on a copy succeeds."""
    legal = []
    for v in all_points(board.size):
        trial = board.copy()
        try:
            trial.play(v, colour)
        except IllegalMoveError:
            continue
        legal.append(v)
    return legal


sizes = st.integers(2, 19)


@SETTINGS
@given(size=sizes, length=st.integers(0, 80), data=st.data())
def test_undo_restores_every_depth(size: int, length: int, data: st.DataObject) -> None:
    board = Board(size)
    states = [state(board)]
    for _ in range(length):
        board.play(random_move(data, board))
        states.append(state(board))
    for expected in reversed(states[:-1]):
        board.undo()
        assert state(board) == expected
    assert board.move_number == 0 and board.history == []


@SETTINGS
@given(size=st.integers(2, 4), length=st.integers(0, 60), data=st.data())
def test_undo_restores_superko_memory(size: int, length: int, data: st.DataObject) -> None:
    """Undo forgets the undone positions: legality (superko included) comes back too."""
    board = Board(size, superko=True)
    legal = [(board.legal_moves("B"), board.legal_moves("W"))]
    for _ in range(length):
        board.play(random_move(data, board, pass_percent=10))
        legal.append((board.legal_moves("B"), board.legal_moves("W")))
    for expected in reversed(legal[:-1]):
        board.undo()
        assert (board.legal_moves("B"), board.legal_moves("W")) == expected


@SETTINGS
@given(size=sizes, length=st.integers(0, 60), more=st.integers(1, 30), data=st.data())
def test_copy_is_independent(size: int, length: int, more: int, data: st.DataObject) -> None:
    board = Board(size, komi=3.5)
    for _ in range(length):
        board.play(random_move(data, board))
    copy = board.copy()
    before = state(board)
    assert state(copy) == before and copy == board
    assert (copy.komi, copy.superko, copy.suicide, copy.size) == (3.5, False, False, size)
    for _ in range(more):
        copy.play(random_move(data, copy))
    assert state(board) == before
    snapshot = state(copy)
    for _ in range(more):
        board.play(random_move(data, board))
    board.undo()
    assert state(copy) == snapshot
    # the copy's undo stack is its own too
    for _ in range(more):
        copy.undo()
    assert state(copy) == before


@SETTINGS
@given(size=st.integers(2, 9), length=st.integers(0, 60), data=st.data())
def test_legal_moves_equal_brute_force(size: int, length: int, data: st.DataObject) -> None:
    board = Board(size)
    for _ in range(length):
        board.play(random_move(data, board))
    for colour in ("B", "W"):
        expected = brute_force_legal(board, colour)
        assert board.legal_moves(colour) == expected
        assert [v for v in all_points(size) if board.is_legal(v, colour)] == expected
    assert board.legal_moves() == board.legal_moves(board.to_move)
    assert board.is_legal("pass")


@SETTINGS
@given(size=sizes, length=st.integers(1, 120), data=st.data())
def test_liberties_equal_recount(size: int, length: int, data: st.DataObject) -> None:
    board = Board(size)
    for _ in range(length):
        board.play(random_move(data, board))
        libs = board.liberty_array()
        assert libs.dtype == np.int16
        assert np.array_equal(libs, recount_liberties(board.to_numpy()))
    grid = board.to_numpy()
    for v, (r, c) in zip(all_points(size), np.ndindex(size, size)):
        assert board.liberties(v) == libs[r, c]
        string = board.string(v)
        if grid[r, c] == 0:
            assert string == []
        else:
            assert v in string
            assert all(board.get(s) == board.get(v) for s in string)
            assert all(board.liberties(s) == board.liberties(v) for s in string)


@SETTINGS
@given(size=st.integers(2, 5), length=st.integers(0, 80), data=st.data())
def test_superko_forbids_exactly_repeated_positions(size: int, length: int,
                                                    data: st.DataObject) -> None:
    """Positional superko: a move may not recreate any earlier position.

    The reference plays each candidate on a simple-ko board and looks the
    result up in the positions seen since the start.
    """
    board = Board(size, superko=True)
    simple = Board(size)
    seen = {board.to_numpy().tobytes()}
    forbidden = 0
    for _ in range(length):
        colour = board.to_move
        for v in all_points(size):
            trial = simple.copy()
            try:
                trial.play(v, colour)
            except IllegalMoveError as exc:
                expected_rule: str | None = exc.rule
            else:
                expected_rule = "superko" if trial.to_numpy().tobytes() in seen else None
            assert board.legality_index(board_index(v, size), board.to_move_code) == expected_rule
            if expected_rule == "superko":
                forbidden += 1
                try:
                    board.play(v, colour)
                except IllegalMoveError as exc:
                    assert exc.rule == "superko"
                else:
                    raise AssertionError(f"{colour} {v} repeats a position but was played")
                assert not board.is_legal(v, colour) and v not in board.legal_moves(colour)
        move = random_move(data, board, pass_percent=10)
        board.play(move)
        simple.play(move, colour)
        seen.add(board.to_numpy().tobytes())
    event(f"superko-forbidden candidates: {min(forbidden, 5)}{'+' if forbidden >= 5 else ''}")
    # the hashes of the simple board follow the same positions
    assert board.zobrist_hash == simple.zobrist_hash


def board_index(vertex: str, size: int) -> int:
    col = COLS.index(vertex[0])
    row = size - int(vertex[1:])
    return row * size + col


@SETTINGS
@given(size=st.integers(2, 6), length=st.integers(0, 80), data=st.data())
def test_suicide_option(size: int, length: int, data: st.DataObject) -> None:
    """With ``suicide=True`` a multi-stone suicide removes the mover's string
    and credits its stones to the opponent; a single-stone suicide stays
    illegal (it would change nothing but the turn).  Everything else is as
    with suicide forbidden."""
    board = Board(size, suicide=True)
    multi = 0
    for _ in range(length):
        colour = board.to_move
        other = "W" if colour == "B" else "B"
        strict = Board(size)
        strict.setup(black=[p for p in all_points(size) if board.get(p) == "B"],
                     white=[p for p in all_points(size) if board.get(p) == "W"],
                     to_move=colour)
        for v in all_points(size):
            if v == board.ko_point:
                continue  # setup drops the ko point, so strict cannot judge it
            rule = strict.legality_index(board_index(v, size), strict.to_move_code)
            if rule != "suicide":
                assert board.legality_index(board_index(v, size), board.to_move_code) == rule
                continue
            # the string that dies: the new stone and its friendly neighbours' strings
            r, c = divmod(board_index(v, size), size)
            dying = {v}
            for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if 0 <= rr < size and 0 <= cc < size:
                    n = f"{COLS[cc]}{size - rr}"
                    if board.get(n) == colour:
                        dying.update(board.string(n))
            trial = board.copy()
            if len(dying) == 1:
                try:
                    trial.play(v, colour)
                except IllegalMoveError as exc:
                    assert exc.rule == "suicide"
                else:
                    raise AssertionError(f"single-stone suicide {colour} {v} was played")
                continue
            multi += 1
            before = board.to_numpy()
            caps = board.captures
            trial.play(v, colour)
            after = trial.to_numpy()
            expected = before.copy()
            for p in dying:
                expected.flat[board_index(p, size)] = 0
            assert np.array_equal(after, expected)
            assert trial.captures[other] == caps[other] + len(dying)
            assert trial.captures[colour] == caps[colour]
            assert trial.to_move == other
            assert np.array_equal(trial.liberty_array(), recount_liberties(after))
            trial.undo()
            assert np.array_equal(trial.to_numpy(), before) and trial.captures == caps
        board.play(random_move(data, board))
    event(f"multi-stone suicides checked: {min(multi, 5)}{'+' if multi >= 5 else ''}")


def test_multistone_suicide_by_hand() -> None:
    """Case 14's shape: B A1 kills its own four stones."""
    for suicide in (False, True):
        board = Board(5, suicide=suicide)
        board.setup(black=["A2", "B2", "B1"], white=["A3", "B3", "C3", "C2", "C1"], to_move="B")
        if not suicide:
            try:
                board.play("A1")
            except IllegalMoveError as exc:
                assert exc.rule == "suicide"
            else:
                raise AssertionError("suicide played with suicide=False")
            continue
        board.play("A1")
        assert [board.get(v) for v in ("A1", "A2", "B1", "B2")] == [None] * 4
        assert board.captures == {"B": 0, "W": 4}
        assert board.to_move == "W"
        board.undo()
        assert board.get("A2") == "B" and board.captures == {"B": 0, "W": 0}
