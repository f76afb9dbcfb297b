"""SGF that every reader accepts: what fastplay writes loads the same in
sgfmill and in KaTrain's parser (``pysgf``), text values are unescaped when
read and escaped when written, passes are ``[]``, and the sources real files
come as (mail headers, no ``CA``, whitespace before variations) load.

The property tests draw random games (setup stones, moves, passes) on every
board size with random root comments and names, write them with
:meth:`Board.to_sgf` and read them back with fastplay, sgfmill and pysgf.
"""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import shared_path
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sgfmill import common, sgf

import fastplay
from fastplay.board import Board
from fastplay.sgf import SGFError, SGFWarning, TEXT_PROPERTIES, board_to_sgf, escape_text, load_board, \
    unescape_text

if sys.version_info < (3, 11):  # pragma: no cover - pysgf needs Python 3.11
    pytest.skip("pysgf (KaTrain's SGF parser) needs Python 3.11", allow_module_level=True)

from pysgf import GoGame, GoNode  # noqa: E402  (the `test` extra installs it)

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


# ---------------------------------------------------------------------------
# what each reader sees


def fastplay_view(text: str) -> tuple[list[tuple[str, str]], set[str], set[str], dict[str, str]]:
    board = load_board(text)
    start = board.copy()
    for _ in board.history:
        start.undo()
    grid = start.to_numpy()
    n = board.size
    black = {f"{COLUMNS[c]}{n - r}" for r, c in np.argwhere(grid == 1)}
    white = {f"{COLUMNS[c]}{n - r}" for r, c in np.argwhere(grid == -1)}
    return board.history, black, white, dict(board.sgf_properties)


def sgfmill_view(text: str) -> tuple[list[tuple[str, str]], set[str], set[str], dict[str, str]]:
    game = sgf.Sgf_game.from_bytes(text.encode("utf-8"))
    root = game.get_root()
    moves = []
    for node in game.get_main_sequence()[1:]:
        colour, point = node.get_move()
        if colour is not None:
            moves.append((colour.upper(), "pass" if point is None else common.format_vertex(point)))
    black, white, _ = root.get_setup_stones()
    texts = {ident: root.get(ident) for ident in root.properties() if ident in TEXT_PROPERTIES}
    return (moves, {common.format_vertex(p) for p in black},
            {common.format_vertex(p) for p in white}, texts)


def pysgf_view(text: str) -> tuple[list[tuple[str, str]], set[str], set[str], dict[str, str]]:
    root: GoNode = GoGame.parse_sgf(text)
    moves = []
    node = root
    while node.children:
        node = node.children[0]
        moves += [(m.player, m.gtp()) for m in node.moves]
    black = {m.gtp() for m in root.placements if m.player == "B"}
    white = {m.gtp() for m in root.placements if m.player == "W"}
    texts = {}
    for ident in TEXT_PROPERTIES:
        values = root.get_list_property(ident)
        if values is not None:
            assert len(values) == 1, (ident, values)
            texts[ident] = values[0]
    return moves, black, white, texts


def as_ff4_reads(ident: str, text: str) -> str:
    """The text FF[4] can hold: line breaks to LF (SimpleText: a space), tabs,
    form feeds and vertical tabs to spaces (written independently of fastplay)."""
    simple = ident not in ("C", "GC")
    text = re.sub(r"\r\n|\n\r|\r|\n", " " if simple else "\n", text)
    return text.replace("\t", " ").replace("\f", " ").replace("\v", " ")


# ---------------------------------------------------------------------------
# random games and texts

SPECIAL = "][\\\n\r\t :;()\u00e9\u00df\u6f22\u5b57\U0001f600"
TEXT = st.text(alphabet=st.one_of(st.sampled_from(SPECIAL), st.characters(
    blacklist_categories=("Cs",))), max_size=40)
# pysgf (KaTrain) splits a value at "]" + blanks + "[" even when the "]" is
# escaped, so no SGF spelling of such a text reads right there (see
# test_pysgf_splits_escaped_bracket_pairs); those texts are checked in
# sgfmill and fastplay only.
PYSGF_BREAKS = re.compile(r"\]\s*\[")


@st.composite
def games(draw: st.DrawFn) -> Board:
    size = draw(st.sampled_from([2, 3, 5, 7, 9, 13, 19, 20, 21, 25]))
    board = Board(size, komi=draw(st.sampled_from([0.0, 0.5, 5.5, 6.5, 7.5, -3.5])))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    for _ in range(draw(st.integers(0, 6))):
        vertex = f"{COLUMNS[int(rng.integers(size))]}{int(rng.integers(size)) + 1}"
        try:
            board.setup(**{str(rng.choice(["black", "white"])): [vertex]})
        except ValueError:
            pass  # no liberty left: skip that stone
    if draw(st.booleans()):
        board.to_move = "W"
    for _ in range(draw(st.integers(0, 3 * size))):
        moves = board.legal_moves()
        board.play(moves[int(rng.integers(len(moves)))] if moves and rng.random() > 0.1
                   else "pass")
    props = draw(st.dictionaries(st.sampled_from(["C", "GC", "PB", "PW", "GN", "RE", "EV"]),
                                 TEXT, max_size=4))
    board.sgf_properties.update(props)
    return board


def expected_texts(board: Board) -> dict[str, str]:
    return {k: as_ff4_reads(k, v) for k, v in board.sgf_properties.items()
            if k in TEXT_PROPERTIES}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_random_games_and_comments_read_the_same_in_sgfmill(board: Board) -> None:
    text = board.to_sgf()
    moves, black, white, texts = fastplay_view(text)
    assert moves == board.history
    assert {k: v for k, v in texts.items() if k in TEXT_PROPERTIES} == expected_texts(board)
    assert sgfmill_view(text) == (moves, black, white, expected_texts(board))
    # and fastplay writes what it read, byte for byte
    assert board_to_sgf(load_board(text)) == text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_random_games_and_comments_read_the_same_in_pysgf(board: Board) -> None:
    for ident, value in list(board.sgf_properties.items()):
        if PYSGF_BREAKS.search(as_ff4_reads(ident, value)):
            board.sgf_properties[ident] = value.replace("[", "(")
    text = board.to_sgf()
    moves, black, white, texts = fastplay_view(text)
    assert pysgf_view(text) == (moves, black, white, expected_texts(board))
    assert GoGame.parse_sgf(text).komi == board.komi


@given(TEXT)
@settings(max_examples=300, deadline=None)
def test_any_comment_round_trips(comment: str) -> None:
    board = Board(9)
    board.play("E5")
    board.sgf_properties["C"] = comment
    text = board.to_sgf()
    want = as_ff4_reads("C", comment)
    assert load_board(text).sgf_properties["C"] == want
    assert sgf.Sgf_game.from_string(text).get_root().get("C") == want
    if not PYSGF_BREAKS.search(want):
        assert GoGame.parse_sgf(text).get_property("C") == want
    assert unescape_text(escape_text(want)) == want


def test_comment_with_bracket_no_longer_raises() -> None:
    """Issue 17: a comment holding ``]`` made ``to_sgf()`` raise a bare ValueError."""
    board = Board(9)
    board.sgf_properties.update(C="see [a] and C:\\temp\\x]\nline 2, \u00e9\u6f22",
                                PB="Bob ]:-)", GN="a\\b")
    text = board.to_sgf()
    assert "C[see [a\\] and C:\\\\temp\\\\x\\]\nline 2, \u00e9\u6f22]" in text
    assert "PB[Bob \\]:-)]" in text and "GN[a\\\\b]" in text
    again = Board.from_sgf(text)
    assert again.sgf_properties == board.sgf_properties
    assert GoGame.parse_sgf(text).get_property("C") == board.sgf_properties["C"]


# ---------------------------------------------------------------------------
# reading: text, not raw SGF


def test_text_values_are_unescaped_when_read() -> None:
    board = load_board("(;GM[1]SZ[9]C[a\\]b\\\\c \\:d\\\nsoft\r\nhard\ttab]PB[two\nlines]"
                       "GN[x\\]]AP[app\\:1:2]XX[raw\\]value];B[aa])")
    props = board.sgf_properties
    assert props["C"] == "a]b\\c :dsoft\nhard tab"   # Text: soft break gone, CRLF -> LF
    assert props["PB"] == "two lines"                 # SimpleText: a line break is a space
    assert props["GN"] == "x]"
    # not text: the SGF value as written
    assert props["AP"] == "app\\:1:2" and props["XX"] == "raw\\]value"
    text = board.to_sgf()
    assert "AP[app\\:1:2]" in text and "XX[raw\\]value]" in text
    assert load_board(text).sgf_properties == props


def test_repeated_text_property_reads_as_one_text() -> None:
    """``ego2.sgf`` repeats ``PB`` (FF[4] forbids it): one text, the values a
    line apart (a space in SimpleText), written back as one value."""
    board = load_board("(;GM[1]SZ[9]PB[FSF]PB[ego]C[one]C[two])")
    assert board.sgf_properties["PB"] == "FSF ego"
    assert board.sgf_properties["C"] == "one\ntwo"
    text = board.to_sgf()
    assert "PB[FSF ego]" in text and "C[one\ntwo]" in text
    assert pysgf_view(text)[3] == {"PB": "FSF ego", "C": "one\ntwo"}


def test_multivalued_non_text_property_keeps_its_values() -> None:
    board = load_board("(;GM[1]SZ[9]MA[aa][bb]LB[cc:x\\]y][dd:z];B[ee])")
    assert board.sgf_properties["MA"] == "aa][bb"
    assert board.sgf_properties["LB"] == "cc:x\\]y][dd:z"
    root = sgf.Sgf_game.from_string(board.to_sgf()).get_root()
    assert root.get_raw_list("MA") == [b"aa", b"bb"]
    assert root.get_raw_list("LB") == [b"cc:x\\]y", b"dd:z"]


def test_user_value_that_is_not_sgf_is_written_escaped() -> None:
    board = Board(9)
    board.sgf_properties["XX"] = "not ] sgf\\"
    root = sgf.Sgf_game.from_string(board.to_sgf()).get_root()
    assert root.get_raw("XX") == b"not \\] sgf\\\\"


@pytest.mark.parametrize("key", ["comment", "", "C1", "c"])
def test_bad_property_key_is_named(key: str) -> None:
    board = Board(9)
    board.sgf_properties[key] = "x"
    with pytest.raises(ValueError, match="not an SGF property identifier"):
        board.to_sgf()


def test_non_str_property_value_is_named() -> None:
    board = Board(9)
    board.sgf_properties["GN"] = 3  # type: ignore[assignment]
    with pytest.raises(TypeError, match="GN"):
        board.to_sgf()


# ---------------------------------------------------------------------------
# passes


def test_case_01_in_every_reader() -> None:
    """``[tt]`` and ``[]`` are both passes up to 19x19; fastplay writes ``[]``."""
    path = shared_path("cases", "01-sgf-pass-written-tt.sgf")
    board = Board.from_sgf(path)
    want = [("B", "Q16"), ("W", "pass"), ("B", "D16"), ("W", "pass"), ("B", "Q4")]
    assert board.history == want
    text = board.to_sgf()
    assert "[tt]" not in text and text.count("W[]") == 2
    for view in (fastplay_view, sgfmill_view, pysgf_view):
        assert view(text)[0] == want
    assert pysgf_view(path.read_text())[0] == want   # and pysgf agrees on the case itself


def test_match_records_write_passes_empty() -> None:
    from fastplay.match import GameRecord

    record = GameRecord("fast]play", "gnu\\go", 9, 7.5, moves=[("B", "E5"), ("W", "pass"),
                                                            ("B", "pass")], result="B+81.5",
                        reason="two passes ] done")
    text = record.to_sgf().decode("utf-8")
    assert ";W[];B[]" in text and "[tt]" not in text
    moves, _, _, texts = pysgf_view(text)
    assert moves == [("B", "E5"), ("W", "pass"), ("B", "pass")]
    assert texts["PB"] == "fast]play" and texts["C"] == "two passes ] done"
    assert sgfmill_view(text)[0] == moves and load_board(text).history == moves


# ---------------------------------------------------------------------------
# sources


def test_str_with_mail_header_is_sgf_text() -> None:
    """``ego2.sgf`` starts with two lines of mail before ``(;``."""
    path = shared_path("gnugo-regression", "games", "ego2.sgf")
    text = path.read_text(encoding="latin-1")
    assert not text.startswith("(")
    from_text = Board.from_sgf(text)
    from_path = Board.from_sgf(path)
    assert from_text.history == from_path.history and len(from_text.history) == 220
    assert from_text.sgf_properties == from_path.sgf_properties
    assert from_text.sgf_properties["PB"] == "FSF (GNU Go 3.1.30) ego"
    assert Board.from_sgf("junk ( ;GM[1]SZ[9];B[aa])").history == [("B", "A9")]


def test_str_without_game_is_a_file_name(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        Board.from_sgf(str(tmp_path / "no (such) file; really.sgf"))


def test_a_collection_of_games_warns_that_its_first_is_read() -> None:
    import warnings

    with pytest.warns(SGFWarning, match="collection of 2 games; the first is read"):
        board = Board.from_sgf(b"(;GM[1]SZ[9];B[ee]) (;GM[1]SZ[9];B[aa];W[bb])")
    assert board.history == [("B", "E5")]
    with pytest.warns(SGFWarning, match="collection of more than one game"):
        Board.from_sgf(b"(;GM[1]SZ[9];B[ee]) (;GM[1]SZ[9];B[a")
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # one game, a "(;" in its comment: no warning
        Board.from_sgf(b"(;GM[1]SZ[9]C[a variation (;B[aa]) in words];B[ee])")


def test_a_lone_surrogate_is_an_sgf_error_or_no_such_file() -> None:
    """JSON and Python strings can hold a lone surrogate, which no encoding
    writes: in SGF text it is an :class:`SGFError`, in a file name no file
    (it raised a bare ``UnicodeEncodeError``; a tester's finding)."""
    with pytest.raises(SGFError, match="lone surrogate"):
        Board.from_sgf("(;SZ[9]PB[\ud800];B[ee])")
    with pytest.raises(FileNotFoundError, match="cannot be encoded"):
        Board.from_sgf("game\ud800.sgf")


@pytest.mark.parametrize("text", [
    "(;GM[1]SZ[9];B[aa] (;W[bb]) (;W[cc]))",
    "(;GM[1]SZ[9];B[aa]\n  (;W[bb])\n  (;W[cc])\n)",
    "(;GM[1]SZ[9];B[aa]\r\n\t( ;W[bb])\r\n\t(\n;W[cc]))",
    "  \n( ;GM[1]SZ[9] ;B[aa] ;\tW[bb])",
])
def test_whitespace_before_variations(text: str) -> None:
    for source in (text, text.encode()):
        assert Board.from_sgf(source).history == [("B", "A9"), ("W", "B8")]


@pytest.mark.parametrize("codec, name", [
    ("cp932", "\u5742\u7530\u6804\u7537"),     # Sakata Eio
    ("gb2312", "\u8042\u536b\u5e73"),          # Nie Weiping
    ("euc-kr", "\uc870\ud6c8\ud604"),          # Cho Hunhyun
    ("latin-1", "D\u00e9j\u00e0 vu"),
])
def test_encoding_for_files_without_ca(tmp_path: Path, codec: str, name: str) -> None:
    data = f"(;GM[1]SZ[9]PB[{name}]C[{name} \\]];B[aa])".encode(codec)
    path = tmp_path / f"{codec}.sgf"
    path.write_bytes(data)
    for source in (path, str(path), data):
        board = Board.from_sgf(source, encoding=codec)
        assert board.sgf_properties["PB"] == name
        assert board.sgf_properties["C"] == f"{name} ]"
        assert board.history == [("B", "A9")]
        # written as UTF-8, read back the same in every reader
        assert pysgf_view(board.to_sgf())[3] == {"PB": name, "C": f"{name} ]"}
    # without encoding: FF[4]'s default, ISO-8859-1
    latin = "(;GM[1]SZ[9]PB[D\u00e9j\u00e0];B[aa])".encode("latin-1")
    assert Board.from_sgf(latin).sgf_properties["PB"] == "D\u00e9j\u00e0"


def test_encoding_does_not_override_ca() -> None:
    data = "(;GM[1]CA[UTF-8]SZ[9]PB[\u00e9];B[aa])".encode()
    assert Board.from_sgf(data, encoding="cp932").sgf_properties["PB"] == "\u00e9"


def test_str_is_already_text_whatever_ca_says() -> None:
    text = "(;GM[1]CA[ISO-8859-1]SZ[9]PB[\u00e9\u6f22];B[aa])"
    assert Board.from_sgf(text).sgf_properties["PB"] == "\u00e9\u6f22"
    assert Board.from_sgf(text, encoding="cp932").sgf_properties["PB"] == "\u00e9\u6f22"


def test_bad_encoding_argument() -> None:
    with pytest.raises(LookupError, match="no-such-codec"):
        Board.from_sgf(b"(;SZ[9])", encoding="no-such-codec")
    with pytest.raises(TypeError, match="encoding"):
        Board.from_sgf(b"(;SZ[9])", encoding=8)  # type: ignore[arg-type]


def test_written_file_loads_in_pysgf_from_disk(tmp_path: Path) -> None:
    board = Board(13)
    board.sgf_properties.update(PB="\u5742\u7530", C="\u00e9 ]\\")
    board.play("D4")
    board.play("pass")
    path = tmp_path / "out.sgf"
    path.write_text(board.to_sgf(), encoding="utf-8")
    root = GoGame.parse_file(str(path))
    assert root.get_property("PB") == "\u5742\u7530" and root.get_property("C") == "\u00e9 ]\\"
    assert [m.gtp() for m in root.children[0].moves] == ["D4"]


# ---------------------------------------------------------------------------
# real records


def test_regression_games_written_read_the_same_in_pysgf() -> None:
    """Every GNU Go regression record, loaded and written by fastplay, reads
    in pysgf with the same moves, setup and text properties."""
    files = sorted(shared_path("gnugo-regression", "games").rglob("*.sgf"))
    assert len(files) > 1000
    checked = 0
    for path in files:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                board = load_board(path)
            except SGFError:
                continue
        text = board.to_sgf()
        ours = fastplay_view(text)
        theirs = pysgf_view(text)
        want = {k: v for k, v in board.sgf_properties.items() if k in TEXT_PROPERTIES}
        assert theirs == ours[:3] + (want,), path
        checked += 1
    assert checked >= 1620


def test_pysgf_splits_escaped_bracket_pairs() -> None:
    """The one text pysgf cannot read: ``]`` then ``[`` (blanks between or
    not).  FF[4] and sgfmill read fastplay's ``C[a\\][b]`` as ``a][b``; pysgf
    splits the value at ``][`` although the ``]`` is escaped.  If this starts
    failing, pysgf was fixed: drop PYSGF_BREAKS from the tests above."""
    board = Board(9)
    board.sgf_properties["C"] = "a][b"
    text = board.to_sgf()
    assert "C[a\\][b]" in text
    assert sgf.Sgf_game.from_string(text).get_root().get("C") == "a][b"
    assert GoGame.parse_sgf(text).get_list_property("C") != ["a][b"]


def test_module_exports() -> None:
    assert fastplay.sgf.TEXT_PROPERTIES >= {"C", "GC", "PB", "PW", "RE", "GN"}
    assert escape_text("a]b\\") == "a\\]b\\\\"
