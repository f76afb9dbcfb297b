"""The SGF and board cases of ``../shared/cases``, plus the SGF reader's own rules.

Each case file holds its expected result in the root comment ``C[...]``
(case 11 has none: its point is that FF[3] long property names read as the
short ones); the tests below spell those expectations out.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import shared_path
from sgfmill import sgf

import fastplay
from fastplay.board import Board, IllegalMoveError
from fastplay.sgf import MoveNumberError, SGFError, SGFWarning, board_to_sgf, load_board


def case(number: str) -> Path:
    matches = sorted(shared_path("cases").glob(f"{number}-*.sgf"))
    assert len(matches) == 1, f"case {number}: {matches}"
    return matches[0]


def stones(board: Board, colour: str) -> set[str]:
    grid = board.to_numpy()
    code = 1 if colour == "B" else -1
    n = board.size
    cols = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
    return {f"{cols[c]}{n - r}" for r, c in np.argwhere(grid == code)}


def start_of(board: Board) -> Board:
    start = board.copy()
    for _ in range(board.move_number):
        start.undo()
    return start


def roundtrip(board: Board) -> Board:
    text = board_to_sgf(board)
    again = load_board(text)
    assert again.size == board.size
    assert again.komi == board.komi
    assert again.history == board.history
    assert again == board
    assert np.array_equal(start_of(again).to_numpy(), start_of(board).to_numpy())
    assert start_of(again).to_move == start_of(board).to_move
    return again


def test_case_is_readable_by_sgfmill() -> None:
    """The case files are valid SGF for the independent parser too."""
    for number in ("01", "03", "05", "07", "08", "11", "13", "14", "16", "17", "18"):
        sgf.Sgf_game.from_bytes(case(number).read_bytes())


# ---------------------------------------------------------------------------
# the cases


def test_case_01_pass_written_tt_and_empty() -> None:
    board = load_board(case("01"))
    assert board.history == [("B", "Q16"), ("W", "pass"), ("B", "D16"), ("W", "pass"), ("B", "Q4")]
    assert board.move_number == 5
    assert stones(board, "B") == {"Q16", "D16", "Q4"}
    assert stones(board, "W") == set()
    assert board.to_move == "W"
    roundtrip(board)


def test_case_03_compressed_point_list() -> None:
    board = load_board(case("03"))
    start = start_of(board)
    assert stones(start, "B") == {"D16", "E16", "D15", "E15", "D14", "E14"}
    assert stones(start, "W") == {"Q4"}
    assert board.history == [("B", "R17"), ("W", "C3")]
    assert board.komi == 6.5
    roundtrip(board)


def test_case_05_setup_then_black_first() -> None:
    board = load_board(case("05"))
    assert stones(start_of(board), "B") == {"D16"}
    assert board.history == [("B", "Q16"), ("W", "Q4")]
    assert board.get("D16") == "B" and board.get("Q16") == "B" and board.get("Q4") == "W"
    assert board.to_move == "B"
    roundtrip(board)


def test_case_07_handicap_setup_roundtrip() -> None:
    board = load_board(case("07"))
    start = start_of(board)
    assert stones(start, "B") == {"Q16", "D4"} and stones(start, "W") == set()
    assert start.to_move == "W"
    assert board.history[0] == ("W", "Q4")
    assert board.history == [("W", "Q4"), ("B", "D16"), ("W", "F3"), ("B", "C3")]
    assert board.komi == 0.5
    assert board.sgf_properties["HA"] == "2"

    text = board_to_sgf(board)
    root = sgf.Sgf_game.from_string(text).get_root()
    assert root.get("HA") == 2
    assert root.get("AB") == {(15, 15), (3, 3)}     # Q16 and D4 in sgfmill's (row, col)
    assert root.get("PB") == "Black" and root.get("PW") == "White"
    again = roundtrip(board)
    assert again.sgf_properties["HA"] == "2"
    assert stones(start_of(again), "B") == {"Q16", "D4"}
    # and the reload saves the same text again
    assert board_to_sgf(again) == text


def test_case_08_empty_komi_text_handicap() -> None:
    with pytest.warns(SGFWarning) as record:
        board = load_board(case("08"))
    messages = " ".join(str(w.message) for w in record)
    assert "KM" in messages and "HA" in messages
    assert board.history == [("B", "Q16"), ("W", "D16")]
    assert board.komi == 7.5                       # the board's default
    assert "HA" not in board.sgf_properties


def test_case_11_ff3_long_property_names() -> None:
    board = load_board(case("11"))
    assert board.size == 9
    assert board.komi == 5.5
    assert board.history == [("B", "D5"), ("W", "F5"), ("B", "E7")]
    props = board.sgf_properties
    assert props["PB"] == "Black player" and props["RE"] == "B+4" and props["DT"] == "1968"
    roundtrip(board)


def test_case_13_illegal_ko_recapture() -> None:
    with pytest.raises(SGFError, match="B1") as info:
        load_board(case("13"))
    err = info.value
    assert err.move_number == 8 and err.node == 8
    assert err.vertex == "B1" and err.rule == "ko"
    assert "ko" in str(err) and "move 8" in str(err)
    assert isinstance(err.__cause__, IllegalMoveError)
    assert err.__cause__.rule == "ko"
    # the record up to the bad move is fine
    board = load_board(case("13"), move_number=7)
    assert board.history[-1] == ("B", "C1") and board.get("B1") is None
    assert board.ko_point == "B1"


def test_case_14_multistone_suicide_forbidden() -> None:
    with pytest.raises(SGFError) as info:
        load_board(case("14"))
    err = info.value
    assert (err.move_number, err.vertex, err.rule) == (1, "A1", "suicide")
    assert isinstance(err.__cause__, IllegalMoveError)


def test_case_14_multistone_suicide_allowed() -> None:
    board = load_board(case("14"), suicide=True)
    assert board.suicide
    assert board.history == [("B", "A1"), ("W", "B2")]
    for v in ("A1", "A2", "B1"):
        assert board.get(v) is None
    assert board.get("B2") == "W"
    assert board.captures == {"B": 0, "W": 4}
    # and after move 1 alone: the four stones are gone, W B2 is legal
    one = load_board(case("14"), move_number=1, suicide=True)
    assert stones(one, "B") == set() and one.captures["W"] == 4
    assert one.is_legal("B2", "W")


def test_case_16_send_two_return_one_simple_ko() -> None:
    board = load_board(case("16"))
    assert board.move_number == 3
    assert np.array_equal(board.to_numpy(), start_of(board).to_numpy())
    assert board.captures == {"B": 1, "W": 2}


def test_case_16_send_two_return_one_superko() -> None:
    with pytest.raises(SGFError) as info:
        load_board(case("16"), superko=True)
    assert (info.value.move_number, info.value.vertex, info.value.rule) == (3, "A4", "superko")
    board = load_board(case("16"), move_number=2, superko=True)
    assert board.superko
    assert not board.is_legal("A4", "B")
    with pytest.raises(IllegalMoveError) as err:
        board.play("A4", "B")
    assert err.value.rule == "superko"


def test_case_17_snapback_not_ko() -> None:
    board = load_board(case("17"))
    assert board.history == [("B", "C1"), ("W", "B1")]
    assert stones(board, "B") == set()
    assert board.captures == {"B": 1, "W": 5}
    assert board.get("B1") == "W"


def test_case_18_triple_ko_cycle_simple_ko() -> None:
    board = load_board(case("18"))
    assert board.move_number == 6
    assert np.array_equal(board.to_numpy(), start_of(board).to_numpy())
    assert board.zobrist_hash == start_of(board).zobrist_hash


def test_case_18_triple_ko_cycle_superko() -> None:
    with pytest.raises(SGFError) as info:
        load_board(case("18"), superko=True)
    assert (info.value.move_number, info.value.vertex, info.value.rule) == (6, "B9", "superko")
    five = load_board(case("18"), move_number=5, superko=True)
    assert not five.is_legal("B9", "W")
    assert "B9" not in five.legal_moves("W")


# ---------------------------------------------------------------------------
# the reader's rules beyond the cases


def sgf_text(body: str, root: str = "GM[1]FF[4]SZ[9]") -> str:
    return f"(;{root}{body})"


@pytest.mark.parametrize("size", ["0", "1", "26", "52", "-3", "x", "9:13", ""])
def test_bad_sizes(size: str) -> None:
    with pytest.raises(SGFError, match="SZ|size|unreadable"):
        load_board(f"(;GM[1]FF[4]SZ[{size}];B[aa])")


@pytest.mark.parametrize("size", [2, 3, 19, 21, 25])
def test_sizes_in_range(size: int) -> None:
    board = load_board(f"(;GM[1]FF[4]SZ[{size}];B[aa])")
    assert board.size == size
    assert board.history == [("B", f"A{size}")]


def test_square_size_with_colon() -> None:
    assert load_board("(;GM[1]SZ[13:13];B[aa])").size == 13


def test_default_size_is_19() -> None:
    assert load_board("(;GM[1];B[ss])").history == [("B", "T1")]


def test_not_go() -> None:
    with pytest.raises(SGFError, match="not a Go record"):
        load_board("(;GM[2]SZ[8];B[aa])")


@pytest.mark.parametrize("text", ["", "   ", "hello", "(;GM[1]SZ[9];B[aa]", "(;GM[1]SZ[9]B[aa)"])
def test_unreadable(text: str) -> None:
    with pytest.raises(SGFError):
        load_board(text.encode())


def test_bad_move_value() -> None:
    with pytest.raises(SGFError, match="node 2") as info:
        load_board(sgf_text(";B[aa];W[zz]"))
    assert info.value.node == 2


@pytest.mark.parametrize("record, quoted", [
    ("(;GM[1]SZ[9];B[{v}])", "B["),
    ("(;GM[1]SZ[{d}])", "SZ["),
    ("(;GM[1]SZ[9]AB[{v}][aa][bb][cc])", "AB["),
    ("(;GM[{d}]SZ[9])", "GM["),
    ("(;GM[1]SZ[9]PL[{v}])", "PL["),
])
def test_an_error_quotes_a_long_value_cut(record: str, quoted: str) -> None:
    """A 5,000-byte value is quoted by its first characters and its length,
    not in full (a GTP front end shows the message on one line)."""
    with pytest.raises(SGFError) as info:
        load_board(record.format(v="q" * 5000, d="9" * 5000).encode())
    message = str(info.value)
    assert quoted in message and "(5,000 bytes)" in message and len(message) < 250


def test_an_error_escapes_control_characters_and_counts_many_values() -> None:
    with pytest.raises(SGFError) as info:
        load_board(b"(;GM[1]SZ[9];B[\r\x1b[2J])")
    assert "B[\\x0d\\x1b[2J]" in str(info.value)
    with pytest.raises(SGFError) as info:
        load_board(b"(;GM" + b"[2]" * 5000 + b"SZ[9])")
    assert "GM[2][2][2]... (5,000 values)" in str(info.value) and len(str(info.value)) < 100
    with pytest.warns(SGFWarning) as record:
        load_board(b"(;GM[1]CA[" + b"x" * 5000 + b"]SZ[9];B[aa])")
    assert len(str(record[0].message)) < 200


def test_an_overlapping_setup_names_ten_points_and_the_count() -> None:
    with pytest.raises(SGFError) as info:
        load_board(b"(;GM[1]SZ[19]AB[aa:ss]AE[aa:ss])")
    message = str(info.value)
    assert "A1 A10 A11" in message and "(361 points)" in message and len(message) < 150
    with pytest.raises(SGFError, match=r"setup names D4 in more than one"):
        load_board(b"(;GM[1]SZ[19]AB[dp]AW[dp])")


def test_a_warning_quotes_a_long_value_cut() -> None:
    for prop in ("KM", "HA"):
        with pytest.warns(SGFWarning) as record:
            load_board(f"(;GM[1]SZ[9]{prop}[{'x' * 5000}])".encode())
        message = str(record[0].message)
        assert f"{prop}[" in message and "(5,000 bytes)" in message and len(message) < 250


def test_tt_is_a_point_above_19() -> None:
    board = load_board("(;GM[1]SZ[21];B[tt];W[])")
    assert board.history == [("B", "U2"), ("W", "pass")]


def test_both_colours_in_one_node() -> None:
    """Real records (buzco1.sgf) end with ``B[tt]W[tt]``: both moves, in order."""
    assert load_board(sgf_text(";W[bb]B[aa]")).history == [("W", "B8"), ("B", "A9")]
    assert load_board(sgf_text(";B[aa]W[bb];B[cc]"), move_number=1).history == [("B", "A9")]
    board = load_board(sgf_text(";B[tt]W[tt]"))
    assert board.history == [("B", "pass"), ("W", "pass")] and board.to_move == "B"


def test_occupied_point() -> None:
    with pytest.raises(SGFError) as info:
        load_board(sgf_text(";B[ee];W[ee]"))
    assert (info.value.move_number, info.value.vertex, info.value.rule) == (2, "E5", "occupied")


def test_move_number_range() -> None:
    text = sgf_text(";B[aa];W[bb];B[cc]")
    assert load_board(text, move_number=0).move_number == 0
    assert load_board(text, move_number=3).history == load_board(text).history
    with pytest.raises(MoveNumberError, match="only 3 moves") as past:
        load_board(text, move_number=4)
    assert not isinstance(past.value, SGFError)     # readable: not "unreadable SGF"
    assert isinstance(past.value, ValueError) and (past.value.move_number,
                                                   past.value.moves) == (4, 3)
    with pytest.raises(ValueError):
        load_board(text, move_number=-1)
    with pytest.raises(TypeError):
        load_board(text, move_number=1.5)  # type: ignore[arg-type]


def test_move_number_gives_the_next_mover_the_turn() -> None:
    """Stopping before a move hands the turn to that move's colour, as GNU Go's loadsgf does."""
    text = sgf_text(";B[aa];B[bb];W[cc]")
    assert load_board(text, move_number=1).to_move == "B"
    assert load_board(text, move_number=2).to_move == "W"
    assert load_board(text).to_move == "B"
    # setup written before the next move still belongs to the position
    assert load_board(sgf_text(";B[aa];AE[aa]W[bb]"), move_number=1).get("A9") is None


def test_sources_path_str_bytes(tmp_path: Path) -> None:
    text = sgf_text(";B[ee]")
    file = tmp_path / "g.sgf"
    file.write_text(text)
    for source in (text, text.encode(), file, str(file)):
        assert load_board(source).history == [("B", "E5")]
    with pytest.raises(OSError):
        load_board(tmp_path / "missing.sgf")
    with pytest.raises(TypeError):
        load_board(12)  # type: ignore[arg-type]


def test_setup_in_later_nodes_and_ae() -> None:
    board = load_board(sgf_text(";AB[aa][bb]AW[cc];AE[aa];B[dd]"))
    assert stones(board, "B") == {"B8", "D6"} and stones(board, "W") == {"C7"}
    assert board.history == [("B", "D6")]


def test_setup_after_moves_starts_a_new_history() -> None:
    board = load_board(sgf_text(";B[aa];W[bb];B[cc]AE[aa];W[dd]"))
    assert stones(board, "B") == {"C7"}
    assert stones(board, "W") == {"B8", "D6"}
    assert board.history == [("W", "D6")]           # documented: Board.setup restarts history
    # move_number still counts the record's moves
    two = load_board(sgf_text(";B[aa];W[bb];B[cc]AE[aa];W[dd]"), move_number=2)
    assert stones(two, "B") == {"A9"} and two.move_number == 2


def test_setup_over_other_colour_replaces() -> None:
    board = load_board(sgf_text(";AB[aa];AW[aa]"))
    assert board.get("A9") == "W"


def test_setup_point_twice_in_a_node() -> None:
    with pytest.raises(SGFError, match="more than one"):
        load_board(sgf_text("AB[aa]AW[aa]"))


def test_setup_without_liberties() -> None:
    with pytest.raises(SGFError, match="node 0"):
        load_board(sgf_text("AB[aa]AW[ba][ab]"))


@pytest.mark.parametrize("pl, expected", [("B", "B"), ("W", "W"), ("b", "B"), ("1", "B"), ("2", "W")])
def test_player_to_move(pl: str, expected: str) -> None:
    board = load_board(sgf_text(f"AB[aa]PL[{pl}]"))
    assert board.to_move == expected


def test_bad_player() -> None:
    with pytest.raises(SGFError, match="PL"):
        load_board(sgf_text("PL[X]"))


def test_player_after_last_move() -> None:
    board = load_board(sgf_text(";B[aa];W[bb]PL[W]"))
    assert board.to_move == "W" and board.move_number == 2


def test_handicap_without_pl_white_moves() -> None:
    board = load_board(sgf_text("AB[cc][gg]", root="GM[1]SZ[9]HA[2]"))
    assert board.to_move == "W"
    assert load_board(sgf_text("AB[cc][gg]")).to_move == "B"


@pytest.mark.parametrize("ha, said", [("-3", "not a handicap count"),
                                      ("99999999999999999", "more stones than a board holds"),
                                      ("626", "more stones than a board holds")])
def test_unusable_handicap_warns(ha: str, said: str) -> None:
    with pytest.warns(SGFWarning, match=said):
        board = load_board(f"(;GM[1]SZ[9]HA[{ha}];B[ee])")
    assert "HA" not in board.sgf_properties and board.history == [("B", "E5")]


@pytest.mark.parametrize("km", ["", "abc", "nan", "inf"])
def test_unusable_komi_warns(km: str) -> None:
    with pytest.warns(SGFWarning, match="KM"):
        board = load_board(f"(;GM[1]SZ[9]KM[{km}])")
    assert board.komi == 7.5


def test_komi_values() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_board("(;GM[1]SZ[9]KM[-3.5])").komi == -3.5
        assert load_board("(;GM[1]SZ[9]KM[0])").komi == 0.0
        assert load_board("(;GM[1]SZ[9])").komi == 7.5


def test_only_main_line() -> None:
    board = load_board(sgf_text("(;B[aa];W[bb])(;B[cc])"))
    assert board.history == [("B", "A9"), ("W", "B8")]


def test_board_cls_and_rules_are_passed() -> None:
    class MyBoard(Board):
        pass

    board = load_board(sgf_text(";B[aa]"), board_cls=MyBoard, superko=True, suicide=True)
    assert type(board) is MyBoard and board.superko and board.suicide


def test_from_sgf_and_to_sgf_delegate() -> None:
    text = sgf_text(";B[aa];W[]")
    board = fastplay.Board.from_sgf(text)
    assert board.history == [("B", "A9"), ("W", "pass")]
    assert board.to_sgf() == board_to_sgf(board)


def test_sgf_error_is_value_error() -> None:
    assert issubclass(SGFError, ValueError)
    assert fastplay.SGFError is SGFError


# ---------------------------------------------------------------------------
# writing


def test_write_empty_board() -> None:
    text = board_to_sgf(Board(9, komi=6.5))
    root = sgf.Sgf_game.from_string(text).get_root()
    assert root.get("SZ") == 9 and root.get("KM") == 6.5
    assert not root.has_property("AB") and not root.has_property("HA")
    assert load_board(text) == Board(9)


def test_write_passes_empty_on_every_size() -> None:
    """FF[4] writes a pass ``B[]`` on every size (``[tt]`` is only read, up to 19x19)."""
    for size in (9, 19, 21):
        board = Board(size)
        board.play("pass")
        board.play("pass")
        text = board_to_sgf(board)
        assert ";B[];W[]" in text and "tt" not in text
        assert load_board(text).history == [("B", "pass"), ("W", "pass")]


def test_write_setup_and_inferred_handicap() -> None:
    board = Board(9)
    board.setup(black=["C3", "G7"], to_move="W")
    board.play("E5")
    text = board_to_sgf(board)
    root = sgf.Sgf_game.from_string(text).get_root()
    assert root.get("HA") == 2 and root.get("PL") == "w"
    assert root.get("AB") == {(2, 2), (6, 6)}
    again = roundtrip(board)
    assert again.history == [("W", "E5")]


def test_write_setup_both_colours_no_handicap() -> None:
    board = Board(9)
    board.setup(black=["C3"], white=["G7"], to_move="B")
    root = sgf.Sgf_game.from_string(board_to_sgf(board)).get_root()
    assert not root.has_property("HA")
    assert root.get("AW") == {(6, 6)}
    roundtrip(board)


def test_write_player_after_the_last_move() -> None:
    """A PL after the last move (handtalk7.sgf ends ``W[tt]...PL[W]``) survives a save."""
    board = load_board(sgf_text(";B[aa];W[]PL[W]"))
    assert board.to_move == "W"
    text = board_to_sgf(board)
    assert text.rstrip().endswith(";PL[W])")
    assert roundtrip(board).to_move == "W"


def test_loaded_record_keeps_its_missing_handicap() -> None:
    """A problem position with black stones only and White to play is not a
    handicap game: a loaded record writes HA only if it had one."""
    board = load_board(sgf_text("AB[cc][gg]PL[W]GN[problem]"))
    assert "HA" not in board.sgf_properties
    root = sgf.Sgf_game.from_string(board_to_sgf(board)).get_root()
    assert not root.has_property("HA") and root.get("GN") == "problem"


def test_write_needs_a_board() -> None:
    with pytest.raises(TypeError):
        board_to_sgf(42)  # type: ignore[arg-type]


def test_write_random_game_roundtrip() -> None:
    board = Board(13)
    rng = np.random.default_rng(7)
    for _ in range(150):
        moves = board.legal_moves()
        board.play(moves[int(rng.integers(len(moves)))] if moves and rng.random() > 0.03 else "pass")
    again = roundtrip(board)
    assert again.zobrist_hash == board.zobrist_hash
    assert again.captures == board.captures


@pytest.mark.parametrize("codec, name", [
    ("shift_jis", "表"), ("cp932", "ソ能予"), ("big5", "許功"), ("gbk", "乗"),
    ("utf-16", "表"), ("utf-32", "表"), ("euc_jp", "表"), ("latin-1", "Ça"),
])
def test_a_record_in_a_multibyte_charset_keeps_its_moves(codec: str, name: str) -> None:
    """sgfmill parses bytes before it applies ``CA``: a Shift_JIS or Big5
    character whose second byte is ``\\`` (0x5C) escaped the ``]`` after it
    and swallowed the next move, silently (a tester); UTF-16 was "no SGF data
    found".  Such a record is decoded whole first; by ``CA``, or by the
    ``encoding`` argument when it has none."""
    text = f"(;CA[{codec}]SZ[9]PB[{name}];B[ee];W[cc])"
    board = load_board(text.encode(codec))
    assert [v for _, v in board.history] == ["E5", "C7"] and board.sgf_properties["PB"] == name
    bare = f"(;SZ[9]PB[{name}];B[ee];W[cc])".encode(codec)
    board = load_board(bare, encoding=codec)
    assert [v for _, v in board.history] == ["E5", "C7"] and board.sgf_properties["PB"] == name


def test_a_record_warning_points_at_the_caller() -> None:
    """An SGFWarning names the line that read the record, whichever entry it
    came through (a tester: it named a line inside fastplay's sgf module)."""
    from fastplay.sgf import record_moves

    for read in (lambda: Board.from_sgf(b"(;SZ[9]KM[abc];B[ee])"),
                 lambda: load_board(b"(;SZ[9]HA[-1];B[ee])"),
                 lambda: record_moves(b"(;CA[klingon]SZ[9];B[ee])")):
        with pytest.warns(SGFWarning) as caught:
            read()
        assert {w.filename for w in caught} == {__file__}


def test_a_file_name_with_a_nul_is_an_sgf_error() -> None:
    """It was a bare ``ValueError: embedded null byte`` from the file system (a tester)."""
    with pytest.raises(SGFError, match="NUL"):
        Board.from_sgf("abc\x00.sgf")


@pytest.mark.parametrize("data, kwargs, expected", [
    # a CA inside a comment, before the root's own CA[UTF-8]
    ("(;GM[1]C[converted; original CA[GBK]CA[UTF-8]SZ[9]PB[Zoë Müller];B[ee];W[cc])".encode(),
     {}, ("Zoë Müller", 2)),
    # a CA in a later node does not override the caller's encoding
    ("(;GM[1]SZ[9]PB[Zoë Müller];B[ee]CA[Big5];W[cc])".encode(), {"encoding": "utf-8"},
     ("Zoë Müller", 2)),
    # nor a CA of a collection's second game
    ("(;GM[1]SZ[9]PB[Zoë];B[ee];W[cc])(;CA[GBK]SZ[9])".encode(), {"encoding": "utf-8"},
     ("Zoë", 2)),
    # a CA[UTF-16] label on ASCII bytes, of even and odd length
    (b"(;GM[1]FF[4]CA[UTF-16]SZ[9]PB[Alice]PW[Bob];B[ee];W[cc];B[gc])", {}, ("Alice", 3)),
    (b"(;GM[1]FF[4]CA[UTF-16]SZ[9]PB[Alice]PW[Bob];B[ee];W[cc];B[gc]) ", {}, ("Alice", 3)),
    # GBK text under a GB2312 label; cp932 under its IANA name, an alias, a tab
    ("(;GM[1]CA[GB2312]SZ[9]PB[李俓]PW[王];B[ee];W[cc];B[gc])".encode("gbk"), {}, ("李俓", 3)),
    ("(;GM[1]CA[Windows-31J]SZ[9]PB[表]PW[x];B[ee];W[cc])".encode("cp932"), {}, ("表", 2)),
    ("(;GM[1]CA[x-sjis]SZ[9]PB[表]PW[x];B[ee];W[cc])".encode("cp932"), {}, ("表", 2)),
    ("(;GM[1]CA[Shift_JIS\t]SZ[9]PB[表]PW[x];B[ee];W[cc])".encode("cp932"), {}, ("表", 2)),
    # a value ending in a 0x5C byte before the root's CA
    ("(;GM[1]PB[表]CA[Shift_JIS]SZ[9];B[ee];W[cc])".encode("shift_jis"), {}, ("表", 2)),
    # a fourth tester's: an escaped "\]CA[Shift_JIS\]" in a root comment
    # without a CA after it is no CA (a move was lost)
    ("(;GM[1]SZ[9]C[a record should say \\]CA[Shift_JIS\\] in its root]PB[x];B[ee];W[cc]"
     ";B[gg])".encode(), {}, ("x", 3)),
    (b"(;GM[1]SZ[9]C[x\\]CA[Shift_JIS][y]PB[x];B[ee];W[cc])", {}, ("x", 2)),
    # UTF-8 labelled GB2312: the bytes are valid UTF-8, read as before (the
    # moves kept, the names as the label makes them)
    ("(;GM[1]SZ[9]CA[GB2312]PB[x]PW[日本語];B[ee];W[cc];B[gg])".encode(), {}, ("x", 3)),
    # UTF-16/32 without a byte-order mark, labelled or not
    *[(f"(;GM[1]SZ[9]{label}PB[表];B[ee];W[cc])".encode(codec), {}, ("表", 2))
      for codec in ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")
      for label in ("CA[UTF-16]", "")],
])
def test_the_charset_is_the_first_root_s(data: bytes, kwargs: dict[str, str],
                                         expected: tuple[str, int]) -> None:
    """Only the first game's root CA (or a byte-order mark, or the caller's
    ``encoding``) chooses how a record is decoded: a third tester's CA in a
    comment, in a later node or in a second game decoded whole records
    wrongly, a CA[UTF-16] label on ASCII bytes read or not by the parity of
    the file's length, and GB2312/Windows-31J labels on GBK/cp932 text lost
    moves."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SGFWarning)
        board = load_board(data, **kwargs)    # type: ignore[arg-type]
    assert (board.sgf_properties["PB"], len(board.history)) == expected


def test_a_lower_case_property_name_is_warned_of() -> None:
    """``;b[ee]`` is no SGF (names are upper-case): sgfmill drops the name, so
    the move is not played; that is now said (a tester: silently lost)."""
    with pytest.warns(SGFWarning, match=r"node 1: a property named in lower-case letters only "
                                        r"\(\[ee\]\) is not SGF and is ignored"):
        board = Board.from_sgf(b"(;SZ[9];b[ee];W[cc])")
    assert [v for _, v in board.history] == ["C7"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Board.from_sgf(b"(;FF[3]SZ[9]AddBlack[dd];B[ee])")    # FF[3]'s long names: fine
