"""GTP engine unit tests with a deterministic stub search (no MCTS needed).

Covers the GTP 2 framing rules (section 3), every command of
``list_commands``, a complete scripted game against a stub opponent, and bad
input of every kind: the engine must answer ``? message`` and carry on.
"""

from __future__ import annotations

import io
import math
import os
import sys
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from fastplay.board import Board
from fastplay.gtp import GTPEngine, GTPError, parse_color, preprocess, run


@dataclass
class Child:
    move: str
    visits: int
    winrate: float
    prior: float
    pv: list[str]


@dataclass
class Result:
    best_move: str
    winrate: float
    children: list[Child]
    ownership: np.ndarray
    playouts: int = 1
    seconds: float = 0.0


@dataclass
class StubSearch:
    """Plays the first legal move in board order, or ``forced`` when set.

    ``ownership`` (a constant or an array) is what every search reports.
    """

    forced: str | None = None
    ownership: Any = 0.0
    calls: list[tuple[str, Any]] = field(default_factory=list)

    def run(self, board: Board, playouts: int | None = None, seconds: float | None = None, *,
            move: bool = True) -> Result:
        self.calls.append(("run" if move else "run-not-a-move", (board.to_move, playouts, seconds)))
        legal = board.legal_moves()
        move = self.forced or (legal[0] if legal else "pass")
        own = np.broadcast_to(np.asarray(self.ownership, dtype=np.float32),
                              (board.size, board.size)).copy()
        children = [Child(m, 10 - i, 0.5, 0.1, [m]) for i, m in enumerate(legal[:3])]
        return Result(move, 0.5, children, own)

    def new_game(self) -> None:
        self.calls.append(("new_game", None))

    def set_time(self, main_time: float, byo_yomi_time: float, byo_yomi_stones: int) -> None:
        self.calls.append(("set_time", (main_time, byo_yomi_time, byo_yomi_stones)))

    def time_left(self, color: str, seconds: float, stones: int) -> None:
        self.calls.append(("time_left", (color, seconds, stones)))

    def ponder_start(self, board: Board) -> None:
        self.calls.append(("ponder_start", board.move_number))

    def ponder_stop(self) -> None:
        self.calls.append(("ponder_stop", None))


@pytest.fixture
def stub() -> StubSearch:
    return StubSearch()


@pytest.fixture
def engine(stub: StubSearch) -> GTPEngine:
    return GTPEngine(stub)


def ask(engine: GTPEngine, line: str) -> str:
    """The response to one command, checked for GTP framing, without the final blank line."""
    response = engine.handle(line)
    assert response is not None, line
    assert response.endswith("\n\n") and "\n\n" not in response[:-2], repr(response)
    assert response[0] in "=?"
    return response[:-2]


def ok(engine: GTPEngine, line: str) -> str:
    """The result text of a command that must succeed."""
    response = ask(engine, line)
    assert response.startswith("="), f"{line!r} -> {response!r}"
    return response[1:].strip()


def fails(engine: GTPEngine, line: str) -> str:
    response = ask(engine, line)
    assert response.startswith("?"), f"{line!r} -> {response!r}"
    return response[1:].strip()


# -- framing --------------------------------------------------------------------


@pytest.mark.parametrize(("raw", "clean"), [
    ("play b d4", "play b d4"),
    ("play b d4\r", "play b d4"),
    (b"play b d4\r\n", "play b d4"),
    ("play\tb\td4", "play b d4"),
    ("na\x01me", "name"),
    ("name # a comment", "name"),
    ("# only a comment", ""),
    ("   \t ", ""),
    ("", ""),
    ("12 name\x7f", "12 name"),
])
def test_preprocess(raw: str | bytes, clean: str) -> None:
    assert preprocess(raw) == clean


def test_ids_are_echoed(engine: GTPEngine) -> None:
    assert engine.handle("1 protocol_version") == "=1 2\n\n"
    assert engine.handle("42 boardsize 9") == "=42\n\n"
    assert engine.handle("7 foo") == "?7 unknown command\n\n"
    assert engine.handle("protocol_version") == "= 2\n\n"
    assert engine.handle("foo") == "? unknown command\n\n"


def test_empty_and_comment_lines_get_no_response(engine: GTPEngine) -> None:
    for line in ("", "\n", "  \t \r", "# comment", "   # comment"):
        assert engine.handle(line) is None


def test_command_names_are_case_sensitive(engine: GTPEngine) -> None:
    # GTP 2 §2.6: command names are lower case; "NAME" is another, unknown, command.
    assert fails(engine, "NAME") == "unknown command"


def test_id_without_command(engine: GTPEngine) -> None:
    assert ask(engine, "5").startswith("?5 ")


def test_multiline_response_has_no_empty_line(engine: GTPEngine) -> None:
    ok(engine, "boardsize 5")
    ok(engine, "play b c3")
    text = ask(engine, "3 showboard")
    assert text.startswith("=3\n")
    assert "X" in text and "\n\n" not in text


def test_run_loop_stops_at_quit_and_at_eof(stub: StubSearch) -> None:
    out = io.StringIO()
    script = b"1 name\r\n\n# c\n2 quit\n3 name\n"
    assert run(io.BytesIO(script), out, GTPEngine(stub)) == 0
    assert out.getvalue() == "=1 fastplay\n\n=2\n\n"
    out = io.StringIO()
    assert run(io.BytesIO(b"boardsize 9\nname"), out, GTPEngine(stub)) == 0
    assert out.getvalue() == "=\n\n= fastplay\n\n"


def test_run_loop_keeps_mid_line_carriage_return_in_one_command(stub: StubSearch) -> None:
    # CR is removed, not taken for a line end: "na\rme" is the command "name".
    out = io.StringIO()
    run(io.BytesIO(b"na\rme\n"), out, GTPEngine(stub))
    assert out.getvalue() == "= fastplay\n\n"


def test_loadsgf_opens_a_name_that_is_not_utf8(stub: StubSearch, tmp_path: Any) -> None:
    """The input's bytes were decoded with replacement, so ``loadsgf`` of a
    file named with a byte that is no UTF-8 looked for another name (a
    tester).  The byte now reaches the file system as it came, and an answer
    quoting it writes ``\\xNN``: the output stays UTF-8."""
    name = os.fsencode(tmp_path) + b"/g\xff.sgf"
    try:
        with open(name, "wb") as f:
            f.write(b"(;GM[1]SZ[9];B[ee])")
    except OSError:
        pytest.skip("this file system refuses names that are not UTF-8")
    out = io.StringIO()
    script = b"loadsgf " + name + b"\nlist_stones black\nloadsgf " + name + b"x\nplay b \xff\n"
    assert run(io.BytesIO(script), out, GTPEngine(stub)) == 0
    answers = out.getvalue().split("\n\n")
    assert answers[:2] == ["=", "= E5"]
    assert answers[2] == f"? cannot load file {tmp_path}/g\\xff.sgfx: No such file or directory"
    assert answers[3] == "? invalid coordinate"
    out.getvalue().encode("utf-8")      # no lone surrogate in the output


def test_analysis_errors_quote_a_byte_that_is_no_utf8_as_the_other_answers_do(
        stub: StubSearch) -> None:
    """The analysis commands' syntax errors quoted the word with ``repr``,
    which wrote a byte that was no UTF-8 as ``\\udcff``; they now quote it
    as every other answer does, ``\\xff`` (a leftover of the last note)."""
    out = io.StringIO()
    script = (b"kata-analyze 50 ownership \xff\nlz-analyze 50 k\xffey 1\nkata-analyze 50 \xff\n"
              b"kata-analyze 50 ownership\n")
    assert run(io.BytesIO(script), out, GTPEngine(stub)) == 0
    answers = out.getvalue().split("\n\n")
    assert answers[:4] == ["? syntax error: expected true or false, not '\\xff'",
                           "? syntax error: unknown key 'k\\xffey'",
                           "? syntax error: unknown key '\\xff'",
                           "? syntax error: 'ownership' has no value"]
    assert "udc" not in out.getvalue()


def test_long_line_is_one_command(engine: GTPEngine) -> None:
    assert ask(engine, "x" * 20000) == "? unknown command"
    ok(engine, "boardsize 9")
    ok(engine, "12 play b" + " " * 5000 + "c3")
    assert ok(engine, "list_stones black") == "C3"


# -- every command ---------------------------------------------------------------


def test_every_listed_command_is_answered(engine: GTPEngine, tmp_path: Any) -> None:
    sgf = tmp_path / "g.sgf"
    sgf.write_text("(;GM[1]FF[4]SZ[9]KM[6.5];B[ee];W[cc])")
    arguments = {
        "known_command": "play", "boardsize": "9", "komi": "6.5", "play": "b e5",
        "genmove": "w", "reg_genmove": "b", "kgs-genmove_cleanup": "b",
        "final_status_list": "alive", "time_settings": "300 10 5",
        "time_left": "b 290 0", "loadsgf": str(sgf), "list_stones": "black",
        "fixed_handicap": "2", "place_free_handicap": "3", "set_free_handicap": "a1 b2",
        "captures": "b", "is_legal": "b e5", "kgs-time_settings": "canadian 300 30 5",
        "printsgf": str(tmp_path / "out.sgf"),
    }
    handicap = {"fixed_handicap", "place_free_handicap", "set_free_handicap"}
    # The stub search has no analyze(): these answer "?", the real search in
    # tests/test_gtp_analysis.py.
    analysis = {"lz-analyze", "kata-analyze", "lz-genmove_analyze", "kata-genmove_analyze"}
    commands = ok(engine, "list_commands").split("\n")
    required = {
        "protocol_version", "name", "version", "known_command", "list_commands", "quit",
        "boardsize", "clear_board", "komi", "play", "genmove", "undo", "showboard",
        "final_score", "final_status_list", "time_settings", "time_left", "loadsgf",
        "reg_genmove", "kgs-genmove_cleanup", "list_stones", "gogui-analyze_commands",
    }
    assert required <= set(commands)
    for name in commands:
        assert ok(engine, "known_command " + name) == "true"
        if name in ("undo", "gg-undo"):
            ok(engine, "clear_board")
            ok(engine, "play b a1")
        if name in handicap:
            ok(engine, "clear_board")
        if name in analysis:
            assert ask(engine, name).startswith("? this search cannot analyse")
            continue
        ok(engine, f"{name} {arguments.get(name, '')}")
    assert engine.quit_requested


def test_basic_answers(engine: GTPEngine) -> None:
    assert ok(engine, "protocol_version") == "2"
    assert ok(engine, "name") == "fastplay"
    import fastplay

    assert ok(engine, "version") == fastplay.__version__
    assert ok(engine, "known_command foo_bar") == "false"
    assert ok(engine, "known_command genmove") == "true"


def test_numbers_and_vertices_are_ascii(engine: GTPEngine) -> None:
    """GTP's numbers and vertices are ASCII (GTP 2, section 2.8): Python's
    ``int``/``float`` also read other scripts' digits and underscores, which
    were taken as numbers; a bad handicap vertex is named."""
    for line in ("komi \u0663", "komi 1_0", "boardsize \u0661\u0669", "time_left b \u0663 0",
                 "play b a\u0663", "komi 6.5x"):
        assert engine.handle(line).startswith("? "), line
    assert ok(engine, "komi 6.5") == "" and engine.komi == 6.5
    assert ok(engine, "komi -.5e1") == "" and engine.komi == -5.0
    assert "finite" in engine.handle("komi nan")
    # Beyond Python's 4,300 digits int() raises: a syntax error, not an internal one.
    assert engine.handle("boardsize " + "9" * 5000) == \
        "? syntax error: board size is too large\n\n"
    assert engine.handle("set_free_handicap Z99") == "? invalid coordinate: Z99 (on 19x19)\n\n"
    assert engine.handle("set_free_handicap A1") == "? invalid handicap: at least 2 vertices\n\n"


def test_play_undo_and_list_stones(engine: GTPEngine) -> None:
    ok(engine, "boardsize 9")
    ok(engine, "play b e5")
    ok(engine, "play W D4")
    ok(engine, "play black c3")
    ok(engine, "play white pass")
    assert sorted(ok(engine, "list_stones b").split()) == ["C3", "E5"]
    assert ok(engine, "list_stones white") == "D4"
    ok(engine, "undo")
    ok(engine, "undo")
    assert ok(engine, "list_stones black") == "E5"
    assert engine.board.to_move == "B"  # after B E5, W D4


def test_gg_undo_takes_back_several_moves_as_gnu_go(engine: GTPEngine) -> None:
    """GoGui's ``gg-undo N``, answered as GNU Go 3.8 answers it (checked
    against ``gnugo --mode gtp``): too many is an error that takes nothing
    back, 0 does nothing, no argument is 1."""
    ok(engine, "boardsize 9")
    for line in ("play b e5", "play w d4", "play b c3", "play w pass"):
        ok(engine, line)
    assert fails(engine, "gg-undo 5") == "cannot undo"
    assert fails(engine, "gg-undo -1") == "can't undo a negative number of moves"
    assert fails(engine, "gg-undo x").startswith("syntax error")
    assert len(engine.board.history) == 4
    ok(engine, "gg-undo 0")
    ok(engine, "gg-undo 2")
    assert ok(engine, "list_stones black") == "E5"
    assert ok(engine, "list_stones white") == "D4"
    ok(engine, "gg-undo")
    assert ok(engine, "list_stones white") == ""
    assert engine.board.to_move == "W"


def test_failed_play_changes_nothing(engine: GTPEngine) -> None:
    ok(engine, "boardsize 9")
    ok(engine, "play b e5")
    before = engine.board.copy()
    assert fails(engine, "play w e5") == "illegal move"
    assert engine.board == before and engine.board.history == [("B", "E5")]
    assert fails(engine, "play b j10").startswith("invalid")
    assert engine.board == before


def test_illegal_move_names_its_rule_on_stderr(engine: GTPEngine,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The answer stays GTP's "illegal move"; the rule goes to stderr, where
    Sabaki's and GoGui's consoles show it."""
    ok(engine, "boardsize 9")
    ok(engine, "play b e5")
    capsys.readouterr()
    assert fails(engine, "play w e5") == "illegal move"
    err = capsys.readouterr().err
    assert err == "fastplay: illegal move W E5: occupied (the point is already occupied)\n"


def test_illegal_move_survives_a_closed_stderr(engine: GTPEngine,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stderr", None)
    ok(engine, "play b e5")
    assert fails(engine, "play w e5") == "illegal move"
    closed = io.StringIO()
    closed.close()
    monkeypatch.setattr(sys, "stderr", closed)
    assert fails(engine, "play b e5") == "illegal move"
    assert ok(engine, "list_stones black") == "E5"


def test_ko_recapture_is_illegal_move(engine: GTPEngine) -> None:
    ok(engine, "boardsize 5")
    for move in ("b b3", "w c3", "b c2", "w d2", "b c4", "w d4", "b d3", "w e3", "w c3"):
        if move == "w c3":
            continue
        ok(engine, "play " + move)
    ok(engine, "play w c3")  # captures D3: ko
    assert fails(engine, "play b d3") == "illegal move"


def test_komi_survives_boardsize_and_clear_board(engine: GTPEngine) -> None:
    ok(engine, "komi 0.5")
    ok(engine, "boardsize 7")
    ok(engine, "clear_board")
    assert engine.board.komi == 0.5
    assert ok(engine, "final_score") == "W+0.5"
    fails(engine, "komi abc")
    assert engine.komi == 0.5


def test_new_game_reaches_the_search(engine: GTPEngine, stub: StubSearch) -> None:
    ok(engine, "genmove b")  # creates nothing new: the stub is injected
    ok(engine, "clear_board")
    ok(engine, "boardsize 9")
    assert [c for c, _ in stub.calls].count("new_game") == 2


def test_genmove_plays_and_reg_genmove_does_not(engine: GTPEngine, stub: StubSearch) -> None:
    ok(engine, "boardsize 5")
    assert ok(engine, "reg_genmove b") == "A5"
    assert engine.board.move_number == 0
    assert ok(engine, "genmove b") == "A5"
    assert engine.board.get("A5") == "B"
    # GTP may ask either colour: the search sees the colour it was asked for.
    assert ok(engine, "genmove b") == "B5"
    # reg_genmove's search is not a game move (no resignation count, no clock).
    assert [(name, args[0]) for name, args in stub.calls if name.startswith("run")] == [
        ("run-not-a-move", "B"), ("run", "B"), ("run", "B")]


def test_genmove_resign_and_pass(stub: StubSearch) -> None:
    engine = GTPEngine(stub)
    stub.forced = "resign"
    assert ok(engine, "genmove w") == "resign"
    assert engine.board.move_number == 0
    stub.forced = "pass"
    assert ok(engine, "genmove w") == "pass"
    assert engine.board.history == [("W", "pass")]


def test_genmove_passes_limits_to_search(stub: StubSearch) -> None:
    engine = GTPEngine(stub, playouts=123, seconds=None)
    ok(engine, "genmove b")
    assert stub.calls[-1] == ("run", ("B", 123, None))
    engine = GTPEngine(stub, seconds=2.5)
    ok(engine, "genmove b")
    assert stub.calls[-1] == ("run", ("B", None, 2.5))


def test_illegal_search_move_is_an_error_not_a_move(stub: StubSearch) -> None:
    engine = GTPEngine(stub)
    ok(engine, "play b d4")
    stub.forced = "D4"
    assert "illegal" in fails(engine, "genmove w")
    assert engine.board.history == [("B", "D4")]


def test_prepare_builds_the_search_before_the_first_genmove() -> None:
    """`fastplay gtp` calls prepare() at start-up: loading the database and
    building the search inside the first genmove took 60-80 ms of its time."""
    engine = GTPEngine(playouts=10)
    engine.prepare()
    assert engine._db is not None and engine._search is not None


def test_time_commands_reach_the_search(engine: GTPEngine, stub: StubSearch) -> None:
    ok(engine, "time_settings 600 30 10")
    ok(engine, "time_left white 512 0")
    assert ("set_time", (600, 30, 10)) in stub.calls
    assert ("time_left", ("W", 512, 0)) in stub.calls
    fails(engine, "time_settings 600 x 10")
    fails(engine, "time_left green 5 0")
    # An overdrawn clock reported as negative time means none left (it was
    # refused, and the search went on planning with its old clock).
    ok(engine, "time_left b -5 0")
    assert stub.calls[-1] == ("time_left", ("B", 0, 0))
    # Beyond the clock's bound each command names its own arguments.
    assert fails(engine, "time_settings 10000001 0 0").startswith("time settings above")
    assert fails(engine, "time_left b 10000001 0").startswith("time_left values above")
    assert fails(engine, "time_left w 0 -1") == "syntax error: negative time or stone count"


def test_pondering_starts_after_genmove_and_stops_at_next_command(stub: StubSearch) -> None:
    engine = GTPEngine(stub, ponder=True)
    ok(engine, "genmove b")
    assert stub.calls[-1][0] == "ponder_start"
    ok(engine, "play w d4")
    assert ("ponder_stop", None) in stub.calls


def test_search_unavailable_is_reported() -> None:
    def factory() -> Any:
        raise ImportError("no mcts here")

    engine = GTPEngine(search_factory=factory)
    assert "search not available" in fails(engine, "genmove b")
    assert ok(engine, "name") == "fastplay"


def test_internal_error_keeps_engine_running(stub: StubSearch) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    stub.run = broken  # type: ignore[method-assign]
    engine = GTPEngine(stub)
    assert fails(engine, "genmove b").startswith("internal error")
    assert ok(engine, "protocol_version") == "2"


# -- scoring ---------------------------------------------------------------------


def _wall_position(engine: GTPEngine) -> None:
    ok(engine, "boardsize 5")
    for row in range(1, 6):
        ok(engine, f"play b b{row}")
        ok(engine, f"play w c{row}")


def test_final_score_tromp_taylor_without_search() -> None:
    def factory() -> Any:
        raise ImportError("no mcts")

    engine = GTPEngine(search_factory=factory, komi=6.5)
    _wall_position(engine)
    assert ok(engine, "final_score") == "W+11.5"
    ok(engine, "komi -3")
    assert ok(engine, "final_score") == "W+2.0"
    assert ok(engine, "final_status_list dead") == ""


def test_dead_stones_come_from_ownership(stub: StubSearch) -> None:
    engine = GTPEngine(stub, komi=0.5)
    ok(engine, "boardsize 5")
    ok(engine, "play w c3")
    ok(engine, "play b a1")
    stub.ownership = -1.0  # White owns everything: the black stone is dead
    assert ok(engine, "final_status_list dead") == "A1"
    assert ok(engine, "final_status_list alive") == "C3"
    assert ok(engine, "final_score") == "W+25.5"
    # the settlement's search is not a game move, and is reused for the same position
    runs = [c for c, _ in stub.calls]
    assert runs.count("run-not-a-move") == 1 and "run" not in runs
    ok(engine, "final_score")
    assert [c for c, _ in stub.calls] == runs


SEKI_BLACK = ["D6", "D5", "D4"]
SEKI_WHITE = ["D3", "E3", "E4", "F4", "F5", "F6"]


def test_seki_is_listed_as_seki(engine: GTPEngine, stub: StubSearch) -> None:
    """Case 28's position: two strings share their only liberties E5 and E6.

    The ownership says Black's seki string is lost, as real playouts do (the
    side to move fills a shared liberty and is captured): seki overrides it.
    """
    ok(engine, "boardsize 6")
    ok(engine, "komi 0")
    engine.board.setup(
        black=SEKI_BLACK + ["C3", "F3", "C2", "D2", "E2", "F2", "C1", "E1"],
        white=SEKI_WHITE + ["C6", "C5", "B4", "C4", "B3", "B2", "B1"])
    ownership = engine.board.to_numpy().astype(np.float32)
    for vertex in SEKI_BLACK:
        ownership[6 - int(vertex[1:]), 3] = -0.8
    stub.ownership = ownership
    assert ok(engine, "final_status_list dead") == ""
    seki = ok(engine, "final_status_list seki").split("\n")
    assert sorted(sorted(line.split()) for line in seki) == sorted([sorted(SEKI_BLACK),
                                                                    sorted(SEKI_WHITE)])
    alive = ok(engine, "final_status_list alive").split()
    assert sorted(alive) == sorted(["C3", "F3", "C2", "D2", "E2", "F2", "C1", "E1",
                                    "C6", "C5", "B4", "C4", "B3", "B2", "B1"])
    assert ok(engine, "final_score") == "W+8.0"


def test_parse_color() -> None:
    assert [parse_color(c) for c in ("b", "B", "black", "WHITE", "w")] == ["B", "B", "B", "W", "W"]
    with pytest.raises(GTPError):
        parse_color("x")


# -- loadsgf -------------------------------------------------------------------------


def test_loadsgf_sets_position_komi_and_move_number(engine: GTPEngine, tmp_path: Any) -> None:
    sgf = tmp_path / "g.sgf"
    sgf.write_text("(;GM[1]FF[4]SZ[9]KM[0.5];B[ee];W[cc];B[gg])")
    ok(engine, f"loadsgf {sgf}")
    assert sorted(ok(engine, "list_stones black").split()) == ["E5", "G3"]
    assert engine.komi == 0.5 and engine.board.to_move == "W"
    # "loadsgf FILE 3": up to, not including, move 3
    ok(engine, f"loadsgf {sgf} 3")
    assert ok(engine, "list_stones black") == "E5"
    assert ok(engine, "list_stones white") == "C7"
    assert engine.board.to_move == "B"
    ok(engine, "undo")
    ok(engine, "undo")
    assert fails(engine, "undo") == "cannot undo"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_loadsgf_refuses_what_is_not_a_regular_file(engine: GTPEngine, tmp_path: Any) -> None:
    """A named pipe with no writer blocked ``loadsgf`` for ever, and the engine
    answered nothing more (a tester); a folder and a device are refused too,
    and the position stays."""
    fifo = tmp_path / "pipe.sgf"
    os.mkfifo(fifo)
    ok(engine, "play b e5")
    for path in (fifo, tmp_path, "/dev/zero"):
        assert fails(engine, f"loadsgf {path}").startswith(f"cannot load file {path}: ")
    assert "regular file" in fails(engine, f"loadsgf {fifo}")
    assert ok(engine, "list_stones black") == "E5"


def test_control_characters_in_an_error_cannot_fake_an_answer(engine: GTPEngine,
                                                              tmp_path: Any) -> None:
    """A record's value quoted by an error, with carriage returns and escape
    codes in it, stays one line of the error: read in text mode (where a
    carriage return ends a line) no empty line ends the answer early and no
    false "=2 D4" follows (a tester's finding)."""
    sgf = tmp_path / "spoof.sgf"
    sgf.write_bytes(b"(;GM[1]SZ[9];B[\r\r=2 D4\r\r\x1b[2J])")
    response = engine.handle(f"loadsgf {sgf}")
    assert response is not None
    as_text = io.StringIO(response, newline=None).read()   # universal newlines
    assert as_text.startswith("?") and as_text.endswith("\n\n")
    assert as_text.count("\n") == 2 and "\x1b" not in as_text
    assert "\\x0d\\x0d=2 D4" in as_text


@pytest.mark.parametrize("result, success, answer", [
    ("a\r\nb", True, "= a\nb\n\n"),
    ("a\r\rb", True, "= a\nb\n\n"),
    ("bad\nthing\r\n\r\nhere", False, "? bad thing here\n\n"),
    ("bell\x07 nul\x00 c1\x85", False, "? bell\\x07 nul\\x00 c1\\x85\n\n"),
    ("tab\tkept", True, "= tab\tkept\n\n"),
])
def test_a_response_text_cannot_break_the_framing(result: str, success: bool,
                                                   answer: str) -> None:
    from fastplay.gtp.protocol import format_response
    assert format_response(success, "", result) == answer


def test_loadsgf_errors(engine: GTPEngine, tmp_path: Any) -> None:
    missing = tmp_path / "missing.sgf"
    assert fails(engine, f"loadsgf {missing}") == (
        f"cannot load file {missing}: No such file or directory")
    bad = tmp_path / "bad.sgf"
    bad.write_text("this is not sgf")
    # A file that is no SGF is named too, as a missing one is (a tester).
    assert fails(engine, f"loadsgf {bad}").startswith(f"cannot load file {bad}: ")
    fails(engine, "loadsgf")
    fails(engine, f"loadsgf {bad} x")
    good = tmp_path / "good.sgf"
    good.write_text("(;GM[1]FF[4]SZ[9];B[ee];W[cc])")
    for number in ("-3", "0"):
        assert "move number" in fails(engine, f"loadsgf {good} {number}")
    ok(engine, f"loadsgf {good} 1")  # before move 1: the empty board
    assert ok(engine, "list_stones black") == ""


def test_komi_bounds(engine: GTPEngine) -> None:
    """|komi| <= 1e6, the board's bound (fastplay._board.MAX_KOMI), as in SGF."""
    for text in ("1000000", "-1000000", "1234.5", "0.25", "7.5"):
        ok(engine, f"komi {text}")
        assert engine.komi == float(text) and engine.board.komi == float(text)
    assert "komi" in fails(engine, "komi 1e300")
    assert "komi" in fails(engine, "komi 1000000.5")
    assert engine.komi == 7.5  # a rejected komi leaves the old one
    ok(engine, "komi -0")      # a tester saw "komi -0" in showboard
    assert math.copysign(1.0, engine.komi) == math.copysign(1.0, engine.board.komi) == 1.0
    assert "komi 0\n" in ok(engine, "showboard") + "\n"


# -- GoGui ---------------------------------------------------------------------------


def test_gogui_analyze_commands(engine: GTPEngine, stub: StubSearch) -> None:
    listed = ok(engine, "gogui-analyze_commands").split("\n")
    assert all(entry.startswith("gfx/") for entry in listed)
    ok(engine, "boardsize 3")
    stub.ownership = np.array([[1, 0.5, 0], [0, 0, 0], [-1, 0, 0]], dtype=np.float32)
    for entry in listed:
        command = entry.split("/")[2]
        answer = ok(engine, command)
        assert answer
    influence = ok(engine, "fastplay-ownership").split("\n")[0].split()
    assert influence[0] == "INFLUENCE"
    values = dict(zip(influence[1::2], influence[2::2]))
    assert values["A3"] == "1.00" and values["A1"] == "-1.00" and len(values) == 9
    best = ok(engine, "fastplay-best_moves")
    assert "LABEL A3 1" in best and "VAR B A3" in best


# -- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize("line", [
    "boardsize", "boardsize abc", "boardsize 1", "boardsize 26", "boardsize 9.5",
    "komi", "komi abc", "komi nan", "komi inf",
    "play", "play b", "play x d4", "play b z99", "play b i5", "play b a0", "play b 44",
    "genmove", "genmove purple", "reg_genmove", "list_stones", "list_stones x",
    "known_command", "final_status_list", "final_status_list maybe",
    "time_settings 1 2", "time_settings -1 0 0", "time_left b x 0", "loadsgf",
    "komi 1e300", "komi -1000001", "komi 123456789.25", "time_left w 5 -1",
    "time_settings 99999999999999999999 0 0", "time_settings 0 10000001 1",
    "time_left b 10000001 0",
])
def test_bad_input_answers_error_and_keeps_running(engine: GTPEngine, line: str) -> None:
    ok(engine, "boardsize 9")
    ok(engine, "play b e5")
    before = engine.board.copy()
    message = fails(engine, line)
    assert message and message != "unknown command"
    assert engine.board == before and engine.board.history == [("B", "E5")]
    assert ok(engine, "name") == "fastplay"


def test_undo_empty_history(engine: GTPEngine) -> None:
    assert fails(engine, "undo") == "cannot undo"
    ok(engine, "play b d4")
    ok(engine, "undo")
    assert fails(engine, "undo") == "cannot undo"


def test_undo_with_a_count_is_refused_and_takes_nothing_back(engine: GTPEngine) -> None:
    """GTP's ``undo`` has no argument: ``undo 2`` answered "=" and took back
    one move (a tester); the count is ``gg-undo``'s."""
    ok(engine, "play b d4")
    ok(engine, "play w e5")
    assert fails(engine, "undo 2") == "undo takes no arguments (gg-undo N takes back N moves)"
    assert len(engine.board.history) == 2


# -- a whole game --------------------------------------------------------------------


def test_scripted_game_against_stub_opponent(stub: StubSearch) -> None:
    """fastplay (stub search, White) against a scripted Black until two passes in a row."""
    engine = GTPEngine(stub)
    for command in ("protocol_version", "name", "version", "boardsize 5", "clear_board",
                    "komi 0.5", "time_settings 60 0 0"):
        ok(engine, command)
    script = iter(["c3", "b3", "d3", "c2", "c4"])
    for _ in range(200):
        ok(engine, f"play b {next(script, 'pass')}")
        if engine.board.consecutive_passes >= 2:
            break
        ok(engine, "time_left w 50 0")
        move = ok(engine, "genmove w")
        assert move == "pass" or engine.board.get(move) == "W"
        if engine.board.consecutive_passes >= 2:
            break
    else:
        pytest.fail("the game did not end")
    assert engine.board.history[:2] == [("B", "C3"), ("W", "A5")]
    white_stones = ok(engine, "list_stones white").split()
    assert len(white_stones) == int((engine.board.to_numpy() == -1).sum())
    assert all(engine.board.get(v) == "W" for v in white_stones)
    score = ok(engine, "final_score")
    black, white = engine.board.area()
    assert score == engine.board.result(0.5)
    assert ok(engine, "showboard")
    assert ask(engine, "final_status_list alive").startswith("=")
    assert ok(engine, "quit") == ""
    assert engine.quit_requested


def _failing_evaluator(boards: list[Board]) -> Any:
    raise ZeroDivisionError("user code")


def _exiting_evaluator(boards: list[Board]) -> Any:
    raise SystemExit(3)


class _OwnBase(BaseException):
    pass


def _odd_evaluator(boards: list[Board]) -> Any:
    raise _OwnBase("its own")


def _closing_evaluator(boards: list[Board]) -> Any:
    raise GeneratorExit


def _bare_exit_evaluator(boards: list[Board]) -> Any:
    raise SystemExit


def _exiting_prior(board: Board) -> Any:
    raise SystemExit("no model")


def test_a_failing_plug_in_is_named_not_an_internal_error() -> None:
    """A user's evaluator that raises: the answer says which plug-in failed
    (not "internal error"), and the engine goes on.  A plug-in's
    ``sys.exit()`` too: it ended the engine in the middle of a command,
    silently (a tester)."""
    engine = GTPEngine(playouts=20, seed=1, evaluator=_failing_evaluator, mix=0.5, size=9)
    answer = engine.handle("1 genmove b")
    assert answer is not None and answer.startswith("?1 plug-in failed: evaluator ")
    assert "internal error" not in answer and "ZeroDivisionError: user code" in answer
    assert engine.handle("2 play b E5") == "=2\n\n"
    # Any BaseException but Ctrl-C's and MemoryError: GeneratorExit and a
    # plug-in's own subclass killed the engine with a traceback (a tester).
    for kind, plug, said in (
            ("evaluator", {"evaluator": _exiting_evaluator, "mix": 0.5}, "SystemExit: 3\n"),
            ("prior", {"options": {"prior": _exiting_prior}}, "SystemExit: no model\n"),
            ("evaluator", {"evaluator": _odd_evaluator, "mix": 0.5}, "_OwnBase: its own\n"),
            ("evaluator", {"evaluator": _closing_evaluator, "mix": 0.5}, "GeneratorExit\n"),
            ("evaluator", {"evaluator": _bare_exit_evaluator, "mix": 0.5}, "SystemExit\n")):
        engine = GTPEngine(playouts=20, seed=1, size=9, **plug)   # type: ignore[arg-type]
        answer = engine.handle("1 genmove b")
        assert answer is not None and answer.startswith(f"?1 plug-in failed: {kind} ")
        assert answer.endswith(f" raised {said}\n"), answer
        assert engine.handle("2 play b E5") == "=2\n\n"


def test_escape_controls_keeps_other_text_as_it_is() -> None:
    from fastplay.shown import escape_controls
    assert escape_controls("é\x1b[2J\n\t\x85", keep="\n") == "é\\x1b[2J\n\\x09\\x85"


def test_input_lines_are_split_across_reads_in_one_pass(tmp_path: Any) -> None:
    """The GTP reader's lines through ``os.read``: a line longer than a
    read, several lines in one read, a last line without LF.  (Each read
    is split once: the old reader split its whole buffer again at every
    read, and a 40 MB line took 10 s; a tester's.)"""
    import os

    from fastplay.gtp.server import _raw_lines

    long = b"1 " + b"x" * 200_000
    data = long + b"\n2 name\n3 version\n\n" + b"y" * 70_000 + b"\nquit"
    path = tmp_path / "input.gtp"
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        lines = list(_raw_lines(fd))
    finally:
        os.close(fd)
    assert lines == [long + b"\n", b"2 name\n", b"3 version\n", b"\n", b"y" * 70_000 + b"\n",
                     b"quit"]
    assert b"".join(lines) == data
