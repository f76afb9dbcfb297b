"""The ladder reader behind the search's tactical priors.

Boards are ASCII as in ``test_mcts.py``: ``X`` Black, ``O`` White, ``.``
empty, the first row printed is the top one.  A slow reference reader in
Python (the same rules, on :class:`fastplay.Board` copies, no node budget)
checks the compiled one on positions from real games.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import fastplay as fp
from fastplay import diagram
from fastplay._core import BLACK, WHITE
from fastplay._core import TACTIC_BAD as BAD
from fastplay._core import TACTIC_CAPTURE as CAPTURE
from fastplay._core import TACTIC_NONE as NONE
from fastplay._core import TACTIC_SAVE as SAVE

from conftest import shared_path


def codes(board: fp.Board, color: int) -> dict[str, int]:
    """Vertex -> tactical code, for the points with a code."""
    found = board.tactics_flat(color)
    return {fp.format_vertex(int(i), board.size): int(found[i]) for i in np.flatnonzero(found)}


# -- a reference reader: the rules of Board.tactics_flat, spelled out slowly ------


def _neighbours(board: fp.Board, v: int) -> list[int]:
    n, r, c = board.size, divmod(v, board.size)[0], v % board.size
    return [(r + dr) * n + c + dc for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
            if 0 <= r + dr < n and 0 <= c + dc < n]


def _played(board: fp.Board, v: int, color: int) -> fp.Board:
    after = board.copy()
    after.play_index(v, color)
    return after


def _legal(board: fp.Board, v: int, color: int) -> bool:
    """Legal, and never a suicide: readings do not sacrifice whole strings,
    whatever the board's rules."""
    return board.legality_index(v, color) is None and _played(board, v, color).get_index(v) == color


class Unfinished(Exception):
    """The reference reading went deeper than any ladder on these boards: a
    cycle of ko captures, which the compiled reader cuts by its budget."""


def ref_attack(board: fp.Board, v: int, depth: int = 0) -> bool:
    """The string at ``v``'s opponent, to move, captures it by ataris alone."""
    if depth > 100:
        raise Unfinished
    libs = [int(x) for x in board.string_liberty_indices(v)]
    attacker = 3 - board.get_index(v)
    if len(libs) == 1:
        return _legal(board, libs[0], attacker)
    if len(libs) != 2:
        return False
    return any(_legal(board, lib, attacker)
               and (after := _played(board, lib, attacker)).liberties_index(v) == 1
               and not ref_defend(after, v, depth + 1) for lib in libs)


def ref_defend(board: fp.Board, v: int, depth: int = 0) -> bool:
    """The owner of the string at ``v`` (in atari), to move, saves it."""
    me = board.get_index(v)
    moves = [int(board.string_liberty_indices(v)[0])]
    for stone in board.string_indices(v):
        for n in _neighbours(board, int(stone)):
            if board.get_index(n) == 3 - me and board.liberties_index(n) == 1:
                moves.append(int(board.string_liberty_indices(n)[0]))
    for move in moves:
        if _legal(board, move, me):
            after = _played(board, move, me)
            libs = after.liberties_index(v)
            if libs >= 3 or (libs == 2 and not ref_attack(after, v, depth + 1)):
                return True
    return False


def ref_code(board: fp.Board, v: int, me: int) -> int:
    if board.legality_index(v, me) is not None:
        return NONE
    rescue = [n for n in _neighbours(board, v)
              if board.get_index(n) == me and board.liberties_index(n) == 1]
    after = _played(board, v, me)
    if after.get_index(v) != me:
        return BAD  # a suicide, where the rules allow it
    libs = after.liberties_index(v)
    if (libs == 1 and len(after.string_indices(v)) >= 2) or (libs == 2 and ref_attack(after, v)):
        return BAD
    for n in _neighbours(after, v):
        if after.get_index(n) == 3 - me and after.liberties_index(n) == 1 \
                and not ref_defend(after, n):
            return CAPTURE
    if rescue:
        return SAVE  # joined to the new string, which is not bad
    return NONE


# -- hand-made positions -----------------------------------------------------------

# White D5 has two liberties (D4, E5).  On an empty board either atari starts
# a ladder that runs to the edge.
LADDER = """
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . X . . . . .
. . X O . . . . .
. . . . X . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
"""


def test_ladder_works_on_an_open_board_and_breakers_stop_it():
    board = diagram.parse(LADDER)
    d5 = board._point("D5")
    assert board.in_ladder_index(d5)
    # The owner to move with two liberties counts as safe.
    assert not board.in_ladder_index(d5, attacker_first=False)
    # Atari from D4 drives White up and to the right, from E5 down and to the
    # left: a white stone on one path leaves the other atari working.
    for breakers, captured in ((["G8"], True), (["B2"], True), (["G8", "B2"], False)):
        b = board.copy()
        b.setup(black=["C5", "D6", "E4"], white=["D5", *breakers], to_move="B")
        assert b.in_ladder_index(d5) is captured, breakers
        assert (codes(b, BLACK).get("D4") == CAPTURE or codes(b, BLACK).get("E5") == CAPTURE) \
            is captured
    b = board.copy()
    b.setup(black=["C5", "D6", "E4"], white=["D5", "G8"], to_move="B")
    # Only the atari from E5 works.  A lone corner stone is ladder food too,
    # and so is G9, on the edge beside White's breaker.
    assert codes(b, BLACK) == {"E5": CAPTURE, "G9": BAD,
                               "A9": BAD, "J9": BAD, "A1": BAD, "J1": BAD}


def test_only_strings_in_atari_are_saved():
    board = diagram.parse(LADDER, to_move="W")
    # D5 has two liberties and a working ladder, but saves are for strings
    # in atari only (RESULTS.md: counting these won 55 of 100 games, 59-71
    # without); extending gives three liberties, so nothing is bad either.
    assert board.in_ladder("D5")
    assert codes(board, WHITE) == {"A9": BAD, "J9": BAD, "A1": BAD, "J1": BAD}


def test_failed_escape_is_bad_and_the_capture_is_found():
    # Game 5 of the 387e119 match (benchmarks/RESULTS.md), move 10: Black E5
    # is in atari and E6 runs into a ladder; Black went on to lose 7 stones.
    board = fp.Board(9)
    for move in "E5 C4 C5 D5 D4 D6 C3 E4 D3 F5".split():
        board.play(move)
    assert codes(board, BLACK)["E6"] == BAD
    # After E6, White's atari at E7 captures the two stones in a ladder, and
    # B4 rescues White C4 (in atari).  Capturing E5 outright at E6 had no
    # code: a capture is valued by the patterns.
    board.play("E6")
    assert codes(board, WHITE) == {"E7": CAPTURE, "B4": SAVE,
                                   "A9": BAD, "J9": BAD, "A1": BAD, "J1": BAD}


def test_rescue_and_self_atari():
    board = diagram.parse("""
        . . . . . . .
        . . . . . . .
        . . . O . . .
        . . O X O . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
    """)
    # D3 gives D4 three liberties; the corners are ladder food.
    assert codes(board, BLACK) == {"D3": SAVE, "A7": BAD, "G7": BAD, "A1": BAD, "G1": BAD}
    board = diagram.parse("""
        . . . . . . .
        . . . . . . .
        . . O O . . .
        . O X . . . .
        . . O O . . .
        . . . . . . .
        . . . . . . .
    """)
    # D4 "rescues" C4 into two stones with one liberty: bad, not a save.
    found = codes(board, BLACK)
    assert found["D4"] == BAD
    assert all(code == BAD for code in found.values())
    # A single stone thrown in (one liberty) is left to the patterns.
    board = diagram.parse("""
        . . . . .
        . O O O .
        . O . . .
        . O O O .
        . . . . .
    """)
    assert board.liberties_index(board._point("D3")) == 0
    assert board.tactics_flat(BLACK)[board._point("C3")] == NONE


def test_board_wrappers_take_vertices_and_colours():
    board = diagram.parse(LADDER)
    assert board.in_ladder("D5") and not board.in_ladder("D5", attacker_first=False)
    assert np.array_equal(board.tactics("W"), board.tactics_flat(WHITE).reshape(9, 9))
    assert np.array_equal(board.tactics(), board.tactics_flat(BLACK).reshape(9, 9))
    assert board.tactics("B")[4, 4] == board.tactics("B")[5, 3] == CAPTURE  # E5 and D4
    with pytest.raises(fp.InvalidVertexError):
        board.in_ladder("pass")


def test_bad_arguments_are_refused():
    board = fp.Board(9)
    for color in (0, 3, True, 2.0, "B", None, 2**70):
        with pytest.raises(ValueError):
            board.tactics_flat(color)
    with pytest.raises(fp.InvalidVertexError, match="A1"):
        board.in_ladder("A1")
    with pytest.raises(fp.InvalidVertexError):
        board.in_ladder_index(board._point("E5"))  # no string there
    with pytest.raises(fp.InvalidVertexError):
        board.in_ladder_index(81)
    board.play("E5")
    assert not board.in_ladder_index(board._point("E5"))  # four liberties


def test_first_line_ladder_with_a_ko_capture_at_each_step_is_read_to_the_end():
    # About 200 nodes (a fresh tester's case): with a budget of 150 the
    # unfinished reading counted as an escape and F9 came out a save.
    board = fp.Board(9)
    board.setup(black=["J9", "G8", "H8", "G7", "J7"], white=["G9", "H9", "D3"], to_move="W")
    assert board.tactics("W")[0, 5] == BAD == ref_code(board, board._point("F9"), WHITE)


def test_a_board_changed_by_another_thread_is_never_read_half_way():
    """The reader keeps the GIL: another thread's ``setup`` (which replaces
    the board's memory) waits for it instead of freeing what it reads."""
    import threading

    board = fp.Board.from_sgf(shared_path("gnugo-regression", "games", "9x9-1.sgf"),
                              move_number=30)
    black = list(np.flatnonzero(board.to_numpy().ravel() > 0))
    white = list(np.flatnonzero(board.to_numpy().ravel() < 0))
    board.setup_indices(black, white)  # as the loop below does: no ko point
    expected = board.tactics_flat(BLACK)
    stop = threading.Event()
    seen: list[bool] = []

    def read() -> None:
        while not stop.is_set():
            seen.append(bool(np.array_equal(board.tactics_flat(BLACK), expected)))

    reader = threading.Thread(target=read)
    reader.start()
    # Until the reader has overlapped many writes (a released GIL showed up
    # as a wrong verdict or a crash within a few hundred reads), at most 10 s.
    deadline = time.monotonic() + 10.0
    try:
        while len(seen) < 2000 and time.monotonic() < deadline:
            board.setup_indices(black, white)
            board.set_to_move(BLACK)
    finally:
        stop.set()
        reader.join()
    assert len(seen) >= 100 and all(seen)


def test_long_ladder_across_a_25x25_board_is_read_to_the_end():
    # The LADDER shape near the lower left corner of a 25x25 board, with a
    # white stone at B2 spoiling the short ladder towards the corner: the
    # atari from D4 chases White up and to the right for about 40 moves.
    board = fp.Board(25)
    d5 = board._point("D5")
    for breakers, captured in (([], True), (["S19"], False), (["N14"], False)):
        board.setup(black=["C5", "D6", "E4"], white=["D5", "B2", *breakers], to_move="B")
        assert board.in_ladder_index(d5) is captured, breakers
        assert ref_attack(board, d5) is captured, breakers


# -- the compiled reader equals the reference on real games ------------------------


def _positions():
    games = sorted(shared_path("gnugo-regression", "games").glob("9x9-*.sgf"))
    assert games
    for path in games:
        for move_number in (20, 30, 40, 50):
            try:
                yield path.name, move_number, fp.Board.from_sgf(path, move_number=move_number)
            except (ValueError, IndexError):
                break


def test_reader_equals_the_reference_on_real_games():
    strings = points = 0
    for name, number, board in _positions():
        n = board.size * board.size
        grid = board.to_numpy().ravel()
        for v in range(n):
            if grid[v] and board.liberties_index(v) <= 2:
                strings += 1
                assert board.in_ladder_index(v) == ref_attack(board, v), (name, number, v)
                if board.liberties_index(v) == 1:
                    assert board.in_ladder_index(v, attacker_first=False) == \
                        (not ref_defend(board, v)), (name, number, v)
        for color in (BLACK, WHITE):
            fast = board.tactics_flat(color)
            for v in range(n):
                points += 1
                assert fast[v] == ref_code(board, v, color), (name, number, v, color)
    assert strings > 20 and points > 1000


def random_game(size: int, rng: np.random.Generator, suicide: bool, most: float) -> fp.Board:
    """A board after 0.3 to ``most`` times ``size ** 2`` random legal moves
    (a pass when there is none)."""
    board = fp.Board(size, suicide=suicide)
    for _ in range(int(size * size * rng.uniform(0.3, most))):
        legal = board.legal_indices(board.to_move_code)
        if len(legal) == 0:
            board.pass_move()
            continue
        board.play_index(int(rng.choice(legal)), board.to_move_code)
    return board


@pytest.mark.parametrize("size", [2, 3, 5, 7, 13, 25])
def test_reader_equals_the_reference_on_random_positions(size):
    """Random legal games (captures, kos, crowded small boards).  The
    reference has no node budget: on these seeds no reading of sizes 2-7
    runs out of it (about 0.1 % of random positions do, a fresh tester
    found), and sizes 13 and 25 only check that every verdict is a code."""
    rng = np.random.default_rng(size)
    checked = 0
    for game in range(6):
        board = random_game(size, rng, suicide=bool(game % 2), most=1.2)
        for color in (BLACK, WHITE):
            fast = board.tactics_flat(color)
            assert set(np.unique(fast)) <= {NONE, BAD, SAVE, CAPTURE}
            if size <= 7:
                for v in range(size * size):
                    try:
                        expected = ref_code(board, v, color)
                    except Unfinished:
                        continue
                    assert fast[v] == expected, (game, v, color)
                    checked += 1
    assert size > 7 or checked > size * size * 6
