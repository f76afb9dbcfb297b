"""Board contract details found by breaking it from a clean install."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import fastplay as fp
import fastplay.sgf


def test_failed_setup_changes_nothing() -> None:
    b = fp.Board(5)
    b.play("C3")
    b.play("D4")
    before = (b.to_numpy().copy(), b.history, b.zobrist_hash, b.to_move)
    with pytest.raises(ValueError, match="without a liberty"):
        b.setup(black=["A1"], white=["A2", "B1"])
    assert np.array_equal(before[0], b.to_numpy())
    assert (b.history, b.zobrist_hash, b.to_move) == before[1:]
    b.undo()
    assert b.get("D4") is None and b.get("C3") == "B"


def test_setup_rejects_a_point_in_two_lists() -> None:
    b = fp.Board(9)
    with pytest.raises(ValueError, match="A1 as both black and white"):
        b.setup(black=["A1"], white=["A1"])
    with pytest.raises(ValueError, match="both empty and black"):
        b.setup(black=["C3"], empty=["C3"])
    b.setup(black=["C3", "C3"])  # the same colour twice is harmless
    assert b.string("C3") == ["C3"]


@pytest.mark.parametrize("color", [1, 2, -1, 0, True, 2.0])
def test_integer_colours_are_refused(color: object) -> None:
    """Core codes (White 1) and to_numpy (Black 1) disagree, so neither is guessed."""
    b = fp.Board(9)
    with pytest.raises(ValueError, match="bad colour"):
        b.play("E5", color=color)  # type: ignore[arg-type]
    assert b.move_number == 0


@pytest.mark.parametrize("komi", ["7.5", b"7", [7.5]])
def test_komi_must_be_a_number(komi: object) -> None:
    with pytest.raises(TypeError):
        fp.Board(9, komi=komi)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        fp.Board(9).score(komi)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        fp.Board(9, komi=None)  # type: ignore[arg-type]


@pytest.mark.parametrize("komi, error", [
    (float("nan"), ValueError), (float("-inf"), ValueError), (1e308, ValueError),
    (-10**400, ValueError), (1e6 + 1, ValueError),
    ("6.5", TypeError), (True, TypeError), (None, TypeError)])
def test_assigned_komi_is_checked_and_a_bad_one_changes_nothing(komi: object,
                                                               error: type[Exception]) -> None:
    b = fp.Board(9, komi=6.5)
    with pytest.raises(error, match="komi"):
        b.komi = komi  # type: ignore[assignment]
    assert b.komi == 6.5
    b.komi = np.int64(7)  # type: ignore[assignment]
    assert b.komi == 7.0 and type(b.komi) is float
    assert b.copy().komi == 7.0 and "KM[7" in b.to_sgf()


def test_a_board_holds_any_komi_the_playouts_take() -> None:
    """One bound for the board and the playouts (a tester's ``Board(komi=1e308)``
    was accepted, then refused by every playout)."""
    from fastplay._board import MAX_KOMI

    for komi in (MAX_KOMI, -MAX_KOMI):
        board = fp.Board(5, komi=komi)
        fp.playouts(board, fp.PatternDatabase.builtin("mc_montegnu_classic"), n=2, seed=1)
    with pytest.raises(ValueError, match="within"):
        fp.Board(5, komi=MAX_KOMI * 1.5)


def test_numpy_komi_and_colour_names() -> None:
    b = fp.Board(9, komi=np.float32(6.5))
    assert b.komi == 6.5
    b.play("E5", color="white")
    assert b.get("E5") == "W" and b.to_move == "B"


@pytest.mark.parametrize("source", [b"(;CA[UTF-16]SZ[9];B[aa])", b"(;CA[UTF-8]CA[latin1]SZ[9];B[aa])"])
def test_odd_charsets_still_load(source: bytes) -> None:
    """Text properties are not needed to replay a game: a charset sgfmill
    cannot use is read as Latin-1 instead of failing."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fp.sgf.SGFWarning)
        b = fp.Board.from_sgf(source)
    assert b.history == [("B", "A9")]


@pytest.mark.parametrize("source", ["", "   \n", "\ufeff", b"(;SZ[9];B[aa]", b"(;SZ[x])"])
def test_unusable_sgf_input_is_an_sgf_error(source: str | bytes) -> None:
    with pytest.raises(fp.SGFError):
        fp.Board.from_sgf(source)


def test_sgf_directory_and_byte_order_mark(tmp_path: "pytest.TempPathFactory") -> None:
    with pytest.raises(fp.SGFError, match="directory"):
        fp.Board.from_sgf(str(tmp_path))
    path = tmp_path / "bom.sgf"  # type: ignore[operator]
    path.write_bytes(b"\xef\xbb\xbf(;SZ[9]PB[\xc3\xa9];B[aa])")
    b = fp.Board.from_sgf(str(path))
    assert b.sgf_properties["PB"] == "\u00e9" and b.history == [("B", "A9")]
    assert fp.Board.from_sgf("\ufeff(;SZ[9];B[bb])").history == [("B", "B8")]


@pytest.mark.parametrize("km", ["1e300", "-1000000.5", "inf"])
def test_sgf_komi_out_of_range_is_ignored_with_a_warning(km: str) -> None:
    with pytest.warns(fp.sgf.SGFWarning, match="no usable komi"):
        b = fp.Board.from_sgf(f"(;SZ[9]KM[{km}];B[aa])")
    assert b.komi == 7.5


def test_every_komi_a_board_holds_reads_back_from_its_record() -> None:
    """One bound for the board, SGF and GTP (a tester's ``Board(komi=1234.5)``
    wrote ``KM[1234.5]``, which the reader refused for 7.5)."""
    from fastplay._board import MAX_KOMI

    for komi in (1234.5, -5000.0, MAX_KOMI, -MAX_KOMI, 0.25):
        board = fp.Board(9, komi=komi)
        board.play("E5")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert fp.Board.from_sgf(board.to_sgf()).komi == komi


def test_copy_without_history_is_a_scratch_board() -> None:
    """``copy(history=False)``: the same position, side to move, komi and
    last move (near flags, pattern values), no history, no undo, no
    positional superko; a copy of it is one too."""
    board = fp.Board(9, komi=6.5, superko=True)
    for move in ("E5", "D5", "E4", "D4", "C3"):
        board.play(move)
    scratch = board.copy(history=False)
    assert scratch == board and scratch.zobrist_hash == board.zobrist_hash
    assert scratch.to_move_code == board.to_move_code and scratch.komi == 6.5
    assert np.array_equal(scratch.near_mask(), board.near_mask())
    assert scratch.near_mask().any()
    assert scratch.history_indices() == [] and scratch.move_number == 0
    with pytest.raises(IndexError):
        scratch.undo()
    scratch.play("D6")
    board.play("D6")
    assert scratch == board and np.array_equal(scratch.near_mask(), board.near_mask())
    again = scratch.copy()
    assert again.history_indices() == [] and np.array_equal(again.near_mask(), board.near_mask())
    # The full copy keeps everything.
    full = board.copy()
    assert full.history_indices() == board.history_indices() and full.superko
    full.undo()
    assert full != board


def test_copy_into_reloads_a_scratch_board() -> None:
    """``copy_into``: a scratch board reused for another descent is the same
    as a fresh ``copy(history=False)``, whatever was played on it before;
    only a scratch board of the same size can be the target."""
    board = fp.Board(9, komi=6.5, superko=True)
    for move in ("E5", "D5", "E4", "D4", "C3"):
        board.play(move)
    scratch = board.copy(history=False)
    for move in ("D6", "F5", "pass", "C4"):
        scratch.play(move)
    board.copy_into(scratch)
    fresh = board.copy(history=False)
    assert scratch == fresh == board and scratch.zobrist_hash == board.zobrist_hash
    assert scratch.to_move_code == board.to_move_code and scratch.komi == 6.5
    assert np.array_equal(scratch.near_mask(), board.near_mask()) and scratch.near_mask().any()
    assert scratch.consecutive_passes == board.consecutive_passes
    assert scratch.captures == board.captures and scratch.ko_point == board.ko_point
    assert scratch.history_indices() == [] and scratch.move_number == 0
    scratch.play("D6")
    fresh.play("D6")
    assert scratch == fresh and np.array_equal(scratch.near_mask(), fresh.near_mask())
    scratch.check_integrity()
    with pytest.raises(ValueError, match="scratch"):
        scratch.copy_into(board.copy())           # would lose that board's history
    with pytest.raises(ValueError, match="9x9"):
        board.copy_into(fp.Board(13).copy(history=False))
    with pytest.raises(ValueError, match="another board"):
        scratch.copy_into(scratch)
    with pytest.raises(TypeError):
        board.copy_into(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("komi, error", [(float("nan"), ValueError), (float("inf"), ValueError),
                                         (10**400, ValueError), (2e6, ValueError),
                                         ("6.5", TypeError), (True, TypeError)])
def test_score_checks_its_komi_as_the_board_does(komi: object, error: type) -> None:
    """``score``/``result`` with a komi of their own refuse what ``Board(komi=)``
    refuses (a tester got ``W+nan`` and ``W+inf``), and name the value given."""
    board = fp.Board(9)
    with pytest.raises(error):
        board.score(komi)  # type: ignore[arg-type]
    with pytest.raises(error):
        board.result(komi)  # type: ignore[arg-type]
    assert board.result(6.5) == "W+6.5" and board.score(7) == -7.0
    with pytest.raises(ValueError, match=r"not 1000000000000000000"):
        fp.Board(9, komi=10**400)


def test_a_tiny_komi_is_written_in_full() -> None:
    """sgfmill wrote 1e-05 as KM[0] (tester C)."""
    for komi, text in ((1e-5, "KM[0.00001]"), (1e-20, "KM[0.00000000000000000001]"),
                       (7.0, "KM[7]"), (7.5, "KM[7.5]"), (1e6, "KM[1000000]")):
        record = fp.Board(9, komi=komi).to_sgf()
        assert text in record and fp.Board.from_sgf(record).komi == komi
