"""The capturing-race reader behind the search's race priors.

A slow reference reader in Python (the same rules and the same node
budgets, on :class:`fastplay.Board` copies) checks the compiled one on
positions from real games and random games; two races from real games are
checked by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

import fastplay as fp
from fastplay._core import BLACK, WHITE
from fastplay._core import TACTIC_CAPTURE as CAPTURE
from fastplay._core import TACTIC_NONE as NONE
from fastplay._core import TACTIC_SAVE as SAVE
from fastplay._tactics import RACE_BUDGET, RACE_LIBS, RACE_SAFE, RACE_TOTAL

from test_tactics import _legal, _neighbours, _played, _positions, random_game


class Budget:
    """Nodes left: ``total`` for the position, ``left`` for the reading."""

    def __init__(self) -> None:
        self.total = RACE_TOTAL
        self.left = 0


def _libs(board: fp.Board, v: int) -> list[int]:
    return sorted(int(x) for x in board.string_liberty_indices(v))


def ref_defences(board: fp.Board, v: int) -> list[int]:
    me = board.get_index(v)
    beside: dict[int, list[int]] = {}
    for stone in board.string_indices(v):
        for n in _neighbours(board, int(stone)):
            if board.get_index(n) == 3 - me:
                beside[int(min(board.string_indices(n)))] = _libs(board, n)
    moves: list[int] = []
    nl = board.liberties_index(v)
    for want in range(1, nl + 2 if nl >= 2 else 2):
        group = sorted({m for libs in beside.values() if len(libs) == want for m in libs})
        moves += [m for m in group if m not in moves]
    return moves + [m for m in _libs(board, v) if m not in moves]


def ref_attack(board: fp.Board, v: int, budget: Budget) -> bool:
    """The opponent of the string at ``v``, to move, captures it (filling a
    liberty, or saving one of its own strings beside it in atari)."""
    libs = _libs(board, v)
    attacker = 3 - board.get_index(v)
    if len(libs) == 1:
        return _legal(board, libs[0], attacker)
    if len(libs) >= RACE_SAFE or budget.left <= 0:
        return False
    budget.left -= 1
    rescues = {int(board.string_liberty_indices(n)[0])
               for stone in board.string_indices(v) for n in _neighbours(board, int(stone))
               if board.get_index(n) == attacker and board.liberties_index(n) == 1}
    for move in libs + sorted(rescues - set(libs)):
        if not _legal(board, move, attacker):
            continue
        after = _played(board, move, attacker)
        if after.liberties_index(move) == 1 and after.liberties_index(v) > 1:
            continue  # a stone left in atari, not a throw-in
        if not ref_defend(after, v, budget):
            return True
    return False


def ref_defend(board: fp.Board, v: int, budget: Budget) -> bool:
    """The owner of the string at ``v``, to move, keeps it alive."""
    if budget.left <= 0:
        return True
    budget.left -= 1
    me = board.get_index(v)
    for move in ref_defences(board, v):
        if not _legal(board, move, me):
            continue
        after = _played(board, move, me)
        libs = after.liberties_index(v)
        if libs >= RACE_SAFE:
            return True
        if libs >= 2 and not ref_attack(after, v, budget):
            return True
    return False


def ref_read(board: fp.Board, v: int, attacker: bool, budget: Budget) -> bool:
    budget.left = min(RACE_BUDGET, budget.total)
    start = budget.left
    found = ref_attack(board, v, budget) if attacker else ref_defend(board, v, budget)
    budget.total -= start - budget.left
    return found


def ref_codes(board: fp.Board, me: int) -> tuple[np.ndarray, int]:
    """The codes of ``races_flat(me)``, and the nodes the readings took."""
    out = np.zeros(board.size * board.size, dtype=np.int8)
    budget = Budget()
    for v in range(board.size * board.size):
        owner = board.get_index(v)
        if owner not in (BLACK, WHITE):
            continue
        stones = board.string_indices(v)
        if int(min(stones)) != v or len(stones) < 2 \
                or not 2 <= board.liberties_index(v) <= RACE_LIBS:
            continue
        if owner == me:
            if not ref_read(board, v, True, budget):
                continue
            for move in ref_defences(board, v):
                if _legal(board, move, me):
                    after = _played(board, move, me)
                    libs = after.liberties_index(v)
                    if libs >= RACE_SAFE or (libs >= 2 and not ref_read(after, v, True, budget)):
                        out[move] = max(out[move], SAVE)
        else:
            if not ref_read(board, v, False, budget) or not ref_read(board, v, True, budget):
                continue
            for move in _libs(board, v):
                if _legal(board, move, me):
                    after = _played(board, move, me)
                    if after.get_index(v) != owner or not ref_read(after, v, False, budget):
                        out[move] = CAPTURE
    return out, RACE_TOTAL - budget.total


def race_codes(board: fp.Board, color: int) -> dict[str, int]:
    """Vertex -> race code, for the points with a code."""
    found = board.races_flat(color)
    return {fp.format_vertex(int(i), board.size): int(found[i]) for i in np.flatnonzero(found)}


def _game(name: str, move_number: int) -> fp.Board:
    for game, number, board in _positions():
        if (game, number) == (name, move_number):
            return board
    raise LookupError((name, move_number))


# -- races from real games -----------------------------------------------------------


def test_two_liberty_race_is_won_by_the_atari_the_ladder_reader_does_not_see():
    # Black F8-G8 (liberties F9, G9) against White H8 (H9, J8): whoever moves
    # first wins.  Black extending at F9 or G9 keeps two liberties and still
    # dies; both ataris on H8 save.  The ladder reader sees only H9: after
    # J8, H8 escapes the ladder at H9, yet Black wins the race.
    board = _game("9x9-1.sgf", 30)
    assert board.to_numpy()[1, 5] == board.to_numpy()[1, 6] == 1  # F8, G8 Black
    assert race_codes(board, BLACK) == {"H9": SAVE, "J8": SAVE}
    assert board.tactics("B")[0, 7] == CAPTURE and board.tactics("B")[1, 8] == NONE
    # White, to move, wins the race on either of Black's liberties.
    assert race_codes(board, WHITE) == {"F9": CAPTURE, "G9": CAPTURE}


def test_surrounded_string_of_four_liberties_is_captured_by_any_of_them():
    # White B1-C1-B2 (liberties A1, A2, B3, D1) inside Black's wall C3-C2-
    # D2-E2-E1 (B3, C4, D1, F1): Black, moving first, kills it on any
    # liberty.  White's ways out: B3, which takes a liberty from the wall
    # and from the stones around it, or a move on the wall's outside
    # liberties C4 and F1.
    board = _game("9x9-2.sgf", 20)
    assert race_codes(board, BLACK) == {"A1": CAPTURE, "A2": CAPTURE, "B3": CAPTURE,
                                        "D1": CAPTURE}
    assert race_codes(board, WHITE) == {"B3": SAVE, "C4": SAVE, "F1": SAVE}


def test_an_eye_wins_the_race_against_a_string_with_more_liberties():
    # A fresh tester's case.  Black B19-A18-B18-B17 has an eye (A19), the
    # shared C19 and the outside A17; White D19-C18-D18-C17-D17 has C19, E19
    # and E18.  Black lives whoever moves first: White can fill neither A19
    # nor C19 while Black has E18 and E19 to fill.  So no move is urgent.
    board = fp.Board(19)
    board.setup(black="B19 A18 B18 B17 F19 F18 E17 F17 C16 D16 E16 F16 C15 D15 E15 F15".split(),
                white="D19 C18 D18 C17 D17 A16 B16 A15 B15 A14 B14 A13 B13".split())
    assert race_codes(board, BLACK) == {} and race_codes(board, WHITE) == {}
    # After White A17 Black must answer on White's outside liberties; each
    # answer also captures White, so it gets the larger code.
    board.play("A17", "W")
    assert race_codes(board, BLACK) == {"E18": CAPTURE, "E19": CAPTURE}


# -- the compiled reader equals the reference ---------------------------------------


def _equal_to_reference(board: fp.Board) -> int:
    """Compare both colours; 0 or 1 per colour compared (the reference keeps
    no order among strings, so a position whose readings use up the whole
    budget of the call is skipped)."""
    compared = 0
    for color in (BLACK, WHITE):
        expected, nodes = ref_codes(board, color)
        fast = board.races_flat(color)
        assert set(np.unique(fast)) <= {NONE, SAVE, CAPTURE}
        if nodes <= RACE_TOTAL - RACE_BUDGET:
            assert np.array_equal(fast, expected), (str(board), color)
            compared += 1
    return compared


def test_reader_equals_the_reference_on_real_games():
    compared = sum(_equal_to_reference(board) for _, _, board in _positions())
    assert compared >= 40


@pytest.mark.parametrize("size", [4, 5, 7, 9])
def test_reader_equals_the_reference_on_random_positions(size):
    """Random legal games, suicide allowed in every other one."""
    rng = np.random.default_rng(size)
    compared = found = 0
    for game in range(20):
        board = random_game(size, rng, suicide=bool(game % 2), most=1.0)
        compared += _equal_to_reference(board)
        found += int(np.count_nonzero(board.races_flat(BLACK)))
    assert compared >= 36 and found > 0


def test_big_board_full_of_short_strings_runs_out_of_the_call_budget_cleanly():
    # A 19x19 board of random stones with many strings of two to four
    # liberties: the reference, with the same rules, needs the call's whole
    # budget of 6,000 nodes, so the core stops reading before the last
    # strings and still answers with codes (a fresh tester's worst case on
    # such boards was 20 ms).
    rng = np.random.default_rng(7)
    board = fp.Board(19)
    for _ in range(250):
        legal = board.legal_indices(board.to_move_code)
        board.play_index(int(rng.choice(legal)), board.to_move_code)
    for color in (BLACK, WHITE):
        assert ref_codes(board, color)[1] == RACE_TOTAL
        fast = board.races_flat(color)
        assert set(np.unique(fast)) <= {NONE, SAVE, CAPTURE} and np.count_nonzero(fast) > 0


def test_bad_arguments_are_refused():
    board = fp.Board(9)
    for color in (0, 3, True, 2.0, "B"):
        with pytest.raises((ValueError, TypeError)):
            board.races_flat(color)
    with pytest.raises(ValueError):
        board.races("purple")
    assert board.races().shape == (9, 9) and not board.races("W").any()


def test_stakes_are_written_at_coded_points_only():
    board = _game("9x9-1.sgf", 30)
    stakes = np.full(81, 100, dtype=np.int16)
    codes = board.races_flat(BLACK, stakes)
    assert list(stakes[codes > 0]) == [2, 2]  # F8-G8, whatever the array held
    assert np.all(stakes[codes == 0] == 100)
    unaligned = np.zeros(163, dtype=np.uint8)[1:].view(np.int16)
    assert unaligned.shape == (81,) and not unaligned.flags.aligned
    for call in (board.races_flat, board.tactics_flat):
        with pytest.raises(ValueError, match="aligned"):
            call(BLACK, unaligned)
