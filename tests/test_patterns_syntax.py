"""The ``.db`` language: strict-mode errors (spec §2.8, issue 3 item 2) and GNU Go mode quirks.

Every malformed input of spec §2.8 is tested twice: strict mode names the line
and column, and GNU Go compatibility mode (``strict=False``) reads it exactly
as GNU Go 3.8 does.  A hypothesis test checks that any text either loads or
raises :class:`PatternSyntaxError`, and that whatever strict mode accepts
compiles to the same table as GNU Go mode.
"""

from __future__ import annotations

import codecs
import pickle
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import REPO
from fastplay.patterns import (
    KEYWORDS,
    PatternDatabase,
    PatternSyntaxError,
    PatternWarning,
    compile_db,
    geometry_table,
)

EMPTY = "...\n.*.\n...\n"  # interior, all 8 neighbours empty: class 1
ALL_X = "XXX\nX*X\nXXX\n"  # interior, all 8 opponent
ALL_X_CLASS = int(geometry_table()[0xAAAA])
NEAR = np.arange(256) & 1 == 1


def table(text: str | bytes, strict: bool = True) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PatternWarning)
        return compile_db(text, strict=strict, cache=False)[0]


def syntax_error(text: str | bytes, filename: str = "t.db") -> PatternSyntaxError:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PatternWarning)
        with pytest.raises(PatternSyntaxError) as info:
            compile_db(text, strict=True, filename=filename, cache=False)
    return info.value


def where(text: str | bytes) -> tuple[int, int]:
    err = syntax_error(text)
    return err.line, err.column


def only_default(t: np.ndarray) -> bool:
    return bool((t[1:] == 1).all())


# ---------------------------------------------------------------------------
# The error object
# ---------------------------------------------------------------------------


def test_error_object() -> None:
    err = syntax_error(EMPTY + ":5,bogus\n", filename="dir/my.db")
    assert isinstance(err, ValueError)
    assert (err.file, err.line, err.column) == ("dir/my.db", 4, 4)
    assert "bogus" in err.message
    assert str(err) == f"dir/my.db:4:4: {err.message}"
    again = pickle.loads(pickle.dumps(err))
    assert (again.file, again.line, again.column, again.message) == (
        err.file, err.line, err.column, err.message)


def test_failed_file_loads_nothing(tmp_path: Path) -> None:
    path = tmp_path / "bad.db"
    path.write_bytes((EMPTY + ":5\n" + ALL_X + ":-1\n").encode())
    with pytest.raises(PatternSyntaxError) as info:
        PatternDatabase.from_file(path)
    assert (info.value.file, info.value.line, info.value.column) == (str(path), 8, 2)
    with pytest.raises(FileNotFoundError):
        PatternDatabase.from_file(tmp_path / "missing.db")


# ---------------------------------------------------------------------------
# Spec §2.8, row by row
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ("...\nX*\n...\n:5\n", 2, 3),          # short row: third byte is the newline
        ("X.X\n.*.\n..\n:5\n", 3, 3),         # short last row
        (".\t.\n.*.\n...\n:5\n", 1, 2),        # tab
        (". .\n.*.\n...\n:5\n", 1, 2),         # space
        (".*.\n.*.\n...\n:5\n", 1, 2),         # '*' in a neighbour cell
        ("...\n.*.\n..q\n:5\n", 3, 3),         # unknown letter
        ("...\n.*q\n...\n:5\n", 2, 3),
        ("...\n.*.\r\n..\r\n:5\n", 3, 3),      # CR where a cell should be
    ],
)
def test_bad_neighbour_cell(text: str, line: int, column: int) -> None:
    err = syntax_error(text)
    assert (err.line, err.column) == (line, column)
    assert "symbol" in err.message or "row ends" in err.message
    # GNU Go: the diagram matches nothing, its colon line fills nothing
    assert only_default(table(text, strict=False))


def test_centre_byte_is_never_read() -> None:
    for centre in "*. X?q\t":
        t = table(f"...\n.{centre}.\n...\n:5\n")
        assert (t[1] == 5).all() and (t[2:] == 1).all()


def test_impossible_off_board_arrangement_warns() -> None:
    text = "|.|\n|*|\n|.|\n:5\n"
    with pytest.warns(PatternWarning, match="matches no neighbourhood"):
        t, rules = compile_db(text, filename="w.db", cache=False)
    assert only_default(t) and rules[0].classes == 0 and rules[0].cells == 0
    assert only_default(table(text, strict=False))


def test_more_than_three_rows() -> None:
    text = EMPTY + "XXX\n:5\n"
    assert where(text) == (4, 1)
    t = table(text, strict=False)  # GNU Go ignores rows 4 onward
    assert (t[1] == 5).all() and (t[2:] == 1).all()


def test_diagram_without_colon_line_before_next_diagram() -> None:
    text = EMPTY + "\n" + ALL_X + ":5\n"
    assert where(text) == (5, 1)
    t = table(text, strict=False)  # the colon line applies to the FIRST diagram
    assert (t[1] == 5).all() and (t[ALL_X_CLASS] == 1).all()


def test_fewer_than_three_rows() -> None:
    text = ALL_X + ":7\n...\n.*.\n:5\n"
    assert where(text) == (7, 1)
    err = syntax_error(text)
    assert "2 rows" in err.message
    # GNU Go keeps the south row of the previous diagram
    code = (2 << 0) | (2 << 8) | (2 << 14)  # S, SW, SE opponent
    t = table(text, strict=False)
    assert (t[int(geometry_table()[code])] == 5).all()
    assert (t[ALL_X_CLASS] == 7).all()
    # first diagram of the file: the missing cells are undefined -> nothing
    assert only_default(table("...\n.*.\n:5\n", strict=False))
    assert where("...\n.*.\n:5\n") == (3, 1)


def test_a_row_starting_with_the_centre_symbol_is_named() -> None:
    """A row that begins with ``*`` is a comment to GNU Go, so the diagram
    is a row short; the error says which line was skipped and why (a
    tester's finding: it named only the colon line)."""
    err = syntax_error("oOo\n**O\noO?\n:10\n")
    assert (err.line, err.column) == (4, 1)
    assert "2 rows" in err.message
    assert "line 2 starts with '*', so GNU Go skips it as a comment" in err.message
    # A '*' line of an earlier pattern is not blamed for a later one.
    err = syntax_error("* a comment\n" + EMPTY + ":5\n...\n.*.\n:6\n")
    assert "2 rows" in err.message and "starts with '*'" not in err.message
    assert "starts with '*'" in syntax_error("* note\n:5\n").message


def test_a_row_starting_with_a_byte_outside_ascii_is_named() -> None:
    """A first row typed with a look-alike (``Ö``) is a comment to GNU Go:
    the next row becomes the first, and the centre's ``*`` then lands in a
    neighbour cell; the error says which line was skipped (a tester)."""
    err = syntax_error(b"\xc3\x96OO\nO*O\nOOO\n\n:5\n")   # UTF-8
    assert (err.line, err.column) == (2, 2) and "unknown symbol '*'" in err.message
    assert "line 1 starts with byte 0xc3, so GNU Go skips it as a comment" in err.message


def test_colon_line_before_any_diagram() -> None:
    text = ":5\n" + EMPTY + ":6\n"
    assert where(text) == (1, 1)
    assert where("# header\n\n  :5\n:5\n") == (4, 1)
    t = table(text, strict=False)
    assert (t[1] == 6).all() and (t[2:] == 1).all()


def test_colon_line_without_number() -> None:
    text = EMPTY + ":near\n" + ALL_X + ":5\n"
    assert where(text) == (4, 2)
    assert where(EMPTY + ":\n") == (4, 2)
    assert where(EMPTY + ":  ,5\n") == (4, 4)
    assert where(EMPTY + ":+\n") == (4, 3)
    # GNU Go ignores the line; the next diagram is swallowed
    t = table(text, strict=False)
    assert (t[1] == 5).all() and (t[ALL_X_CLASS] == 1).all()


@pytest.mark.parametrize(
    ("value", "stored"),
    [("-1", None), ("-2", 4294967294), ("-4294967295", 1), ("4294967296", 0),
     ("4294967297", 1), ("18446744073709551621", None), ("4294967295", None)],
)
def test_values_outside_uint32(value: str, stored: int | None) -> None:
    text = EMPTY + f":{value}\n:7\n"
    err = syntax_error(text)
    assert (err.line, err.column) == (4, 2)
    t = table(text, strict=False)
    # None: GNU Go's "unset" mark, which fills nothing, so the next line wins
    assert (t[1] == (7 if stored is None else stored)).all()


def test_large_values_warn_but_load() -> None:
    for strict in (True, False):
        with pytest.warns(PatternWarning, match="t.db:4:1: value 12345678"):
            t, _ = compile_db(EMPTY + ":12345678\n", strict=strict, filename="t.db",
                              cache=False)
        assert (t[1] == 12345678).all()
    t = table(EMPTY + ":4294967294\n")
    assert (t[1] == 4294967294).all()


def test_value_forms_accepted() -> None:
    for line in (":5", ": 5", ":\t5 ", ":+5", ":005", ":5,", ":5 # five", ":5\r"):
        t = table(EMPTY + line + "\n")
        assert (t[1] == 5).all(), line
    assert where(EMPTY + ":5near\n") == (4, 3)
    assert where(EMPTY + ":0x10\n") == (4, 3)
    t = table(EMPTY + ":5near\n", strict=False)
    assert (t[1][NEAR] == 5).all() and (t[1][~NEAR] == 1).all()


@pytest.mark.parametrize(
    ("line", "column", "hint"),
    [(":5,bogus", 4, "bogus"), (":5,near,NEAR", 9, "case-sensitive"),
     (":5 nearly", 4, "nearly"), (":5,ocap3xsafe", 4, "ocap3xsafe"),
     (":5,near;far", 4, "near;far"), (":5,ocap4", 4, "ocap4")],
)
def test_unknown_keyword(line: str, column: int, hint: str) -> None:
    err = syntax_error(EMPTY + line + "\n")
    assert (err.line, err.column) == (4, column)
    assert hint in err.message


def test_unknown_keywords_ignored_and_substrings_counted_by_gnugo() -> None:
    t = table(EMPTY + ":5,NEAR,bogus\n", strict=False)
    assert (t[1] == 5).all()
    t = table(EMPTY + ":5,nearly\n", strict=False)
    assert (t[1][NEAR] == 5).all() and (t[1][~NEAR] == 1).all()
    t = table(EMPTY + ":5,ocap3xsafe\n", strict=False)
    props = np.arange(256)
    hit = (((props >> 3) & 3) == 3) & (((props >> 5) & 1) == 0)
    assert (t[1][hit] == 5).all() and (t[1][~hit] == 1).all()


@pytest.mark.parametrize(
    ("line", "column", "keyword"),
    [(":5,osafe # nearly always", 12, "near"), (":5 # far away", 6, "far"),
     (":5,near #xsafe", 10, "xsafe"), (":5 #ocap1+", 5, "ocap1")],
)
def test_keyword_inside_comment(line: str, column: int, keyword: str) -> None:
    err = syntax_error(EMPTY + line + "\n")
    assert (err.line, err.column) == (4, column)
    assert repr(keyword) in err.message


def test_comment_keyword_applies_in_gnugo_mode() -> None:
    t = table(EMPTY + ":5 # far away\n", strict=False)
    assert (t[1][~NEAR] == 5).all() and (t[1][NEAR] == 1).all()
    t = table(EMPTY + ":5 # plain words only\n")  # a harmless comment is fine
    assert (t[1] == 5).all()


@pytest.mark.parametrize(
    ("line", "column"),
    [(":5,near,far", 9), (":5,ocap0,ocap1", 10), (":5,xsafe,xunsafe", 10),
     (":5 xcap1+ xcap0", 11), (":5,xsuicide,xnosuicide", 13), (":5,ocap2-,ocap3", 11)],
)
def test_contradictory_keywords(line: str, column: int) -> None:
    err = syntax_error(EMPTY + line + "\n")
    assert (err.line, err.column) == (4, column)
    assert "contradicts" in err.message
    assert only_default(table(EMPTY + line + "\n", strict=False))  # fills nothing


def test_two_forms_of_one_capture_group() -> None:
    err = syntax_error(EMPTY + ":5,xcap1+,xcap1-\n")
    assert (err.line, err.column) == (4, 11)
    assert where(EMPTY + ":5,ocap2,ocap2+\n") == (4, 10)
    # GNU Go: '+' beats '-' beats plain, whatever the order on the line
    a = table(EMPTY + ":5,xcap1-,xcap1+\n", strict=False)
    b = table(EMPTY + ":5,xcap1+\n")
    assert np.array_equal(a, b)
    a = table(EMPTY + ":5,ocap2,ocap2-\n", strict=False)
    assert np.array_equal(a, table(EMPTY + ":5,ocap2-\n"))


def test_keywords_combine_with_and() -> None:
    props = np.arange(256)
    xcap = (props >> 1) & 3
    t = table(EMPTY + ":5,xcap1+,xcap2-\n")
    assert np.array_equal(t[1] == 5, (xcap >= 1) & (xcap <= 2))
    t = table(EMPTY + ":5 xcap1 , near\n")
    assert np.array_equal(t[1] == 5, (xcap == 1) & NEAR)


def test_line_longer_than_79_bytes() -> None:
    long_comment = "#" + "a" * 78 + ":5\n"  # 81 bytes of content
    text = EMPTY + long_comment
    err = syntax_error(text)
    assert (err.line, err.column) == (4, 80) and "81 bytes" in err.message
    # GNU Go: the piece from byte 80 on is a line of its own, here a colon line
    t = table(text, strict=False)
    assert (t[1] == 5).all()
    # ... or a pattern row
    text = "#" + "a" * 78 + "XXX\nX*X\nXXX\n:5\n"
    assert where(text) == (1, 80)
    assert (table(text, strict=False)[ALL_X_CLASS] == 5).all()
    # a colon line loses what lies beyond byte 79
    line = ":5,osafe" + " " * 71 + ",near"
    assert where(EMPTY + line + "\n") == (4, 80)
    t = table(EMPTY + line + "\n", strict=False)
    osafe = (np.arange(256) >> 6) & 1 == 0
    assert np.array_equal(t[1] == 5, osafe)


def test_exactly_79_bytes_is_fine() -> None:
    line = ":5,near" + " " * 72
    assert len(line) == 79
    for ending in ("\n", "\r\n", ""):
        t = table(EMPTY + line + ending)
        assert np.array_equal(t[1] == 5, NEAR)


def test_nul_byte() -> None:
    assert where(EMPTY + ":5 \0near\n") == (4, 4)
    assert where(b"\0..\n.*.\n...\n:5\n") == (1, 1)
    # GNU Go: the search for keywords stops at the NUL; a NUL row is a row
    t = table(EMPTY + ":5,far\0near\n", strict=False)
    assert np.array_equal(t[1] == 5, ~NEAR)
    assert only_default(table(b"\0..\n.*.\n...\n:5\n", strict=False))


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le",
                                      "utf-32-be"])
def test_a_utf16_file_is_named_as_such(encoding: str) -> None:
    """A tester's UTF-16 file got a bare 'NUL byte' error: its NULs at every
    other byte (or its byte-order mark) now ask whether it is UTF-16."""
    data = (EMPTY + ":5\n").encode(encoding)
    with pytest.raises(PatternSyntaxError, match="NUL byte .*is the file UTF-16 or UTF-32"):
        PatternDatabase.from_string(codecs.BOM_UTF32_BE + EMPTY.encode("utf-32-be"))
    with pytest.raises(PatternSyntaxError, match="NUL byte .*is the file UTF-16 or UTF-32"):
        PatternDatabase.from_string(data)
    with pytest.raises(PatternSyntaxError, match="NUL byte in a pattern file$"):
        PatternDatabase.from_string(EMPTY + ":5 \0near\n")       # a stray NUL: no hint


def test_diagram_without_any_colon_line() -> None:
    assert where(EMPTY + ":5\n\n" + ALL_X) == (6, 1)
    assert where("# only a diagram\n" + EMPTY) == (2, 1)
    t = table(EMPTY + ":5\n" + ALL_X, strict=False)
    assert (t[1] == 5).all() and (t[ALL_X_CLASS] == 1).all()


def test_non_utf8_bytes_accepted() -> None:
    t = table(b"# R\xe9mi \xff\xfe\n" + EMPTY.encode() + b":5\n")
    assert (t[1] == 5).all()


# ---------------------------------------------------------------------------
# Accepted layouts
# ---------------------------------------------------------------------------


def test_latin1_crlf_trailing_spaces_accepted() -> None:
    base = (REPO / "patterns" / "mc_montegnu_classic.db").read_bytes()
    lines = base.split(b"\n")
    mangled = b"\r\n".join(
        (line + b"  \t" if line[:1] in b".xXoO|+-?%" else line) for line in lines)
    mangled = b"# caf\xe9 \xa7 Latin-1 comment\r\n" + mangled
    t = table(mangled)
    assert np.array_equal(t, PatternDatabase.default().table)


def test_blank_lines_and_comments_inside_a_diagram() -> None:
    text = "...\n\n   \n.*.\n# between rows\n\t\n...\n\n# between value lines\n:5,near\n\n:6\n"
    t = table(text)
    assert np.array_equal(t[1], np.where(NEAR, 5, 6))


def test_first_match_wins_and_default_one() -> None:
    text = "???\n?*?\n???\n:3,near\n" + EMPTY + ":9\n"
    t = table(text)
    assert np.array_equal(t[1], np.where(NEAR, 3, 9))
    codes = np.arange(65536)
    on_board = ((codes & (codes >> 1)) & 0x5555) == 0
    interior = np.zeros(1108, dtype=bool)
    interior[geometry_table()[on_board]] = True
    interior[1] = False
    assert interior.sum() == 953
    assert (t[interior][:, NEAR] == 3).all() and (t[interior][:, ~NEAR] == 1).all()
    edge_or_corner = ~interior
    edge_or_corner[:2] = False
    assert (t[edge_or_corner] == 1).all()  # '?' never matches off board


def test_text_input_beyond_latin1() -> None:
    t = table("# \u2603 snowman\n" + EMPTY + ":5\n")
    assert (t[1] == 5).all()
    with pytest.raises(TypeError):
        compile_db(12)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# Random text (hypothesis)
# ---------------------------------------------------------------------------

ROW_CHARS = ".xXoO|+-?%*q \t"
ODD = 40  # one odd choice in ODD + 1
GOOD_VALUES = st.integers(0, 30).map(str)
ODD_VALUES = st.sampled_from(["-1", "4294967295", "4294967296", "12345678", "", "+3", " 7",
                              "0x1"])
GOOD_WORDS = st.sampled_from(KEYWORDS)
ODD_WORDS = st.sampled_from(["NEAR", "nearly", "bogus", "xcap1+xsafe", ""])
KEYWORD_FIELDS = [("near", "far"), ("osafe", "ounsafe"), ("xsafe", "xunsafe"),
                  ("xsuicide", "xnosuicide")] + [
                      tuple(k for k in KEYWORDS if k.startswith(p)) for p in ("ocap", "xcap")]


def odd(draw: st.DrawFn) -> bool:
    """True about once in ``ODD + 1`` draws (hypothesis favours 0, so avoid it)."""
    return bool(draw(st.integers(0, ODD)) == ODD // 2)


def rarely(draw: st.DrawFn, bad: st.SearchStrategy[str], good: st.SearchStrategy[str]) -> str:
    """Mostly well-formed pieces, so that both outcomes are common."""
    return draw(bad) if odd(draw) else draw(good)


@st.composite
def colon_lines(draw: st.DrawFn) -> str:
    sep = draw(st.sampled_from([",", " ", ", ", "\t"]))
    if odd(draw):
        sep = ""
    # at most one keyword per property field keeps most lines consistent
    words = [draw(st.sampled_from(group)) for group in KEYWORD_FIELDS
             if draw(st.integers(0, 3)) == 0]
    if odd(draw):
        words.insert(draw(st.integers(0, len(words))), draw(st.one_of(ODD_WORDS, GOOD_WORDS)))
    words = draw(st.permutations(words))
    line = ":" + rarely(draw, ODD_VALUES, GOOD_VALUES) + "".join(sep + w for w in words)
    if draw(st.integers(0, 3)) == 0:
        line += draw(st.sampled_from([" # note", "#", "  "]))
    if odd(draw):
        line += draw(st.sampled_from([" # far", "  # nearly"]))
    return line


@st.composite
def db_texts(draw: st.DrawFn) -> bytes:
    out: list[str] = []
    for _ in range(draw(st.integers(0, 5))):
        rows = draw(st.integers(1, 4)) if odd(draw) else 3
        for _ in range(rows):
            if odd(draw):
                out.append(draw(st.text(alphabet=ROW_CHARS, min_size=1, max_size=5)))
            else:
                out.append("".join(draw(st.sampled_from(".xXoO?%|-+")) for _ in range(3)))
        n_colon = draw(st.integers(0, 3)) if odd(draw) else \
            draw(st.integers(1, 3))
        for _ in range(n_colon):
            out.append(draw(colon_lines()))
            if draw(st.integers(0, 4)) == 0:
                out.append(draw(st.sampled_from(["", "# comment", " ", "\t"])))
            if odd(draw):
                out.append("#" + "y" * 85)
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    text = ending.join(out) + draw(st.sampled_from(["", ending]))
    return text.encode("latin-1")


def _check(data: bytes) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PatternWarning)
        gnugo, _ = compile_db(data, strict=False, cache=False)
        assert gnugo.shape == (1108, 256) and gnugo.dtype == np.uint32
        try:
            strict, _ = compile_db(data, strict=True, cache=False)
        except PatternSyntaxError as err:
            n_lines = data.count(b"\n") + 1
            assert 1 <= err.line <= n_lines and err.column >= 1
            return
    # strict mode's promise: what it accepts, it reads exactly as GNU Go does
    assert np.array_equal(strict, gnugo)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(db_texts())
def test_random_db_text_loads_or_raises(data: bytes) -> None:
    _check(data)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_load_or_raise(data: bytes) -> None:
    _check(data)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=".xXoO|+-?%*:#, \n\r\t0123456789nearfcpsux+-", max_size=200))
def test_random_characters_load_or_raise(text: str) -> None:
    _check(text.encode("latin-1"))


def test_byte_order_mark_is_reported_at_line_one() -> None:
    """GNU Go would silently skip line 1 of such a file; strict mode says so at 1:1."""
    with pytest.raises(PatternSyntaxError) as info:
        PatternDatabase.from_string(b"\xef\xbb\xbf.X.\n.*.\n...\n:5\n", name="bom.db")
    assert (info.value.line, info.value.column) == (1, 1)
    assert "byte-order mark" in str(info.value)


def test_move_values_argument_types() -> None:
    import fastplay as fp

    db = PatternDatabase.builtin("uniform")
    for call in (lambda: db.move_values(None), lambda: db.move_values("E5"),
                 lambda: db.move_values(fp.Board(9), None, "no"),
                 lambda: db.context(None, "A1")):
        with pytest.raises(TypeError):
            call()


@pytest.mark.parametrize("cell, shown", [("q", "unknown symbol 'q'"),
                                         ("中", "unknown symbol byte 0xe4"),
                                         ("\x07", "unknown symbol byte 0x07")])
def test_an_unknown_symbol_is_named_as_the_file_has_it(cell: str, shown: str) -> None:
    """A non-ASCII symbol is a byte of its UTF-8 form, not a Latin-1 letter
    ('ä' for the first byte of '中' before: a tester's finding)."""
    err = syntax_error(("." + cell + ".\n.*.\n...\n:5\n").encode())
    assert shown in err.message and (err.line, err.column) == (1, 2)


@pytest.mark.parametrize("strict", ["yes", "no", 0, 1, None, 1.0])
def test_strict_must_be_a_bool(strict: object, tmp_path: Path) -> None:
    """``strict="no"`` used to be taken as true (a non-empty string): every
    loader refuses anything but a bool, and names the argument."""
    path = tmp_path / "one.db"
    path.write_text("Pattern a\n\n???\n?O?\n???\n\n:8,-,value(5)\n")
    for load in (lambda: PatternDatabase.from_file(path, strict=strict),  # type: ignore[arg-type]
                 lambda: PatternDatabase.from_string(path.read_text(),
                                                     strict=strict),  # type: ignore[arg-type]
                 lambda: compile_db(path.read_text(), strict=strict)):  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="strict must be True or False"):
            load()
    assert PatternDatabase.from_file(path, strict=np.bool_(False)).name == "one"


def test_a_file_with_cr_line_ends_is_told_so(tmp_path: Path) -> None:
    """Old Mac line ends (CR alone) make one long line, as GNU Go reads it: the
    error said only "line is N bytes long" (a tester)."""
    path = tmp_path / "cr.db"
    path.write_bytes((REPO / "patterns" / "mc_montegnu_classic.db").read_bytes()
                     .replace(b"\n", b"\r"))
    with pytest.raises(PatternSyntaxError, match=r"cr.db:1:80: .*CR alone"):
        PatternDatabase.from_file(path)


def test_a_cr_inside_a_short_line_is_told_so() -> None:
    """A short file with CR line ends is one short line to GNU Go: strict mode
    loaded it as a file of no pattern; it now names the first CR inside a
    line (a tester).  GNU Go's mode reads it as GNU Go does."""
    text = "Pattern x\r\r" + EMPTY.replace("\n", "\r") + ":5\r"
    err = syntax_error(text)
    assert (err.line, err.column) == (1, 10) and "CR inside a line" in err.message
    assert where(EMPTY + ":5,\rnear\n") == (4, 4)
    assert only_default(table(text, strict=False))
    # A CR before the LF (CRLF) is a line end, as before.
    assert (table(EMPTY.replace("\n", "\r\n") + ":5\r\n")[1] == 5).all()


def test_a_lone_surrogate_in_text_is_located() -> None:
    """``str`` text with a lone surrogate raised a bare UnicodeEncodeError (a
    tester); one from bytes decoded with ``surrogateescape`` is those bytes
    again, any other is a located error in both modes."""
    for strict in (True, False):
        with pytest.raises(PatternSyntaxError) as info:
            compile_db(EMPTY + ":5\n# ab\ud800\n", strict=strict, filename="s.db", cache=False)
        assert (info.value.file, info.value.line, info.value.column) == ("s.db", 5, 5)
        assert "U+D800" in info.value.message
    raw = b"# caf\xe9 \xff\n" + EMPTY.encode() + b":5\n"
    text = raw.decode("utf-8", "surrogateescape")
    assert np.array_equal(table(text), table(raw))
    # Byte columns: an escaped byte is one byte (a tester saw column 6).
    assert where("# \udcff\ud800 x\n") == (1, 4)
    # Two halves of a UTF-16 pair are no character either.
    assert "U+D83D (half of a UTF-16 pair" in syntax_error("# \ud83d\ude00\n").message
    # Strict mode names the first problem of the text, before the surrogate.
    assert where(EMPTY + ":5,nearx\n# \ud800\n") == (4, 4)
    assert where(EMPTY + ":5,near\n# \ud800\n:5,nearx\n") == (5, 3)


def test_a_bytes_path_loads_as_its_str(tmp_path: Path) -> None:
    """``from_file`` takes a ``bytes`` path as ``open`` does (the loader's
    empty-name check took them, then ``Path`` refused them: a tester)."""
    path = tmp_path / "u.db"
    path.write_bytes((REPO / "patterns" / "mc_uniform.db").read_bytes())
    by_bytes = PatternDatabase.from_file(bytes(path))
    assert by_bytes.name == "u" and by_bytes.source == path
    assert by_bytes.sha256() == PatternDatabase.from_file(path).sha256()
    with pytest.raises(FileNotFoundError, match="empty file name"):
        PatternDatabase.from_file(b"")
    with pytest.raises(TypeError, match="not int"):
        PatternDatabase.from_file(3)  # type: ignore[arg-type]
    # A NUL byte names the file's kind, as other impossible names do.
    with pytest.raises(FileNotFoundError, match="pattern database .*NUL"):
        PatternDatabase.from_file("a\0b.db")
    from fastplay.inputfile import read_input

    with pytest.raises(FileNotFoundError, match="SGF file .*NUL"):      # before the stat
        read_input("a\0b.sgf", "SGF file", regular=True)
    with pytest.raises(TypeError, match="name must be a str"):
        PatternDatabase.from_string(EMPTY + ":5\n", name=5)  # type: ignore[arg-type]
