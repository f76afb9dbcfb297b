"""What GUIs, analysis clients and referees met (a fresh tester's findings,
2026-12-06, tester B of the sixteenth session): engines that outlived their
controller, KataGo's ``stop``, exact scores, clearer refusals, and the
opening book's time."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

import fastplay as fp
from fastplay.gtp import GTPEngine
from fastplay.search import MCTS
from fastplay.search.decide import BOOK_VISITS
from procstat import alive, processes

ENGINE = [sys.executable, "-m", "fastplay", "gtp"]


def answers(engine: GTPEngine, line: str) -> str:
    response = engine.respond(line.encode())
    assert isinstance(response, str)
    return response


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="poll on a pipe: Linux")
def test_an_engine_whose_controller_died_stops_thinking() -> None:
    """Its output's reader closed and its input at an end: the genmove of a
    39-hour budget is interrupted (an orphan ran 27 minutes)."""
    engine = subprocess.Popen(ENGINE, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    assert engine.stdin is not None and engine.stdout is not None
    engine.stdin.write(b"boardsize 9\ntime_settings 10000000 0 0\nplay B E5\ngenmove W\n")
    engine.stdin.flush()
    for _ in range(3):                       # the three set-up answers
        assert engine.stdout.readline().startswith(b"=")
        engine.stdout.readline()
    engine.stdin.close()
    engine.stdout.close()
    assert engine.wait(timeout=60) == 0            # as at the end of input
    assert engine.stderr is not None and b"controller is gone" in engine.stderr.read()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="poll on a pipe: Linux")
@pytest.mark.parametrize("sigint_ignored", [False, True])
def test_a_pondering_engine_whose_output_closed_stops(sigint_ignored: bool) -> None:
    """Its input still open (a descriptor another process holds): the ponder
    went on, its memory growing (tester C); and with SIGINT ignored, as in
    a shell's background job, it went on after the watch had seen it (tester D)."""
    engine = subprocess.Popen(
        ENGINE + ["--ponder", "--playouts", "300"], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if sigint_ignored
        else None)
    assert engine.stdin is not None and engine.stdout is not None
    engine.stdin.write(b"boardsize 9\ngenmove B\n")
    engine.stdin.flush()
    for _ in range(2):
        assert engine.stdout.readline().startswith(b"=")
        engine.stdout.readline()
    engine.stdout.close()                    # pondering now; the input stays open
    try:
        assert engine.wait(timeout=60) == 0
    finally:
        engine.stdin.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="poll on a pipe: Linux")
def test_an_analysis_engine_whose_client_died_stops_its_queries() -> None:
    """A query of five million visits searched on after KaTrain had gone."""
    import json

    engine = subprocess.Popen([sys.executable, "-m", "fastplay", "analysis"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    assert engine.stdin is not None and engine.stdout is not None
    query = {"id": "deep", "moves": [], "rules": "tromp-taylor", "komi": 7.5,
             "boardXSize": 19, "boardYSize": 19, "maxVisits": 5_000_000}
    engine.stdin.write((json.dumps(query) + "\n").encode())
    engine.stdin.flush()
    time.sleep(2.0)                          # searching
    engine.stdin.close()
    engine.stdout.close()
    assert engine.wait(timeout=60) == 0


def test_a_script_that_closes_its_input_still_gets_the_answer() -> None:
    done = subprocess.run(ENGINE + ["--playouts", "300"],
                          input=b"boardsize 9\nplay B E5\ngenmove W\n",
                          capture_output=True, timeout=120)
    assert done.returncode == 0 and done.stdout.split(b"\n\n")[2].startswith(b"= ")


@pytest.mark.skipif(not hasattr(signal, "SIGTERM") or not sys.platform.startswith("linux"),
                    reason="SIGTERM and /proc: Linux")
def test_a_terminated_match_stops_its_engines() -> None:
    """A ``kill`` of the referee left its engines running."""
    engine = " ".join(ENGINE + ["--seconds", "30"])
    referee = subprocess.Popen([sys.executable, "-m", "fastplay", "match", engine, engine,
                                "--games", "2", "--size", "9", "--no-progress"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    children: list[int] = []
    deadline = time.monotonic() + 60
    while len(children) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
        children = processes(1, referee.pid)
    assert len(children) == 2
    time.sleep(1.0)                          # a genmove under way
    referee.send_signal(signal.SIGTERM)
    assert referee.wait(timeout=60) == 130
    deadline = time.monotonic() + 30
    while any(alive(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(alive(pid) for pid in children)


def test_katago_stop_is_answered() -> None:
    engine = GTPEngine(playouts=50)
    assert answers(engine, "stop") == "=\n\n"
    assert "stop" in answers(engine, "list_commands").split()


@pytest.mark.parametrize("komi, result", [(7.25, "W+7.25"), (0.05, "W+0.05"), (7.5, "W+7.5"),
                                          (7.0, "W+7.0"), (-3.5, "B+3.5"), (0.0, "0")])
def test_a_result_rounds_no_margin(komi: float, result: str) -> None:
    """``final_score`` said W+7.2 at komi 7.25, and W+0.0 for a win by 1e-20."""
    assert fp.Board(5, komi=komi).result() == result
    engine = GTPEngine(playouts=50)
    answers(engine, "boardsize 5")
    answers(engine, f"komi {komi}")
    assert answers(engine, "final_score") == f"= {result}\n\n"


@pytest.mark.parametrize("command", ["lz-analyze 10.5", "lz-analyze 1e3", "kata-analyze B 2.5"])
def test_an_interval_that_is_not_an_integer_is_told_so(command: str) -> None:
    """It was taken for an unknown key."""
    assert answers(GTPEngine(playouts=50), command) \
        == "? syntax error: interval (centiseconds) must be an integer\n\n"


def test_match_refuses_a_komi_no_board_holds(capsys: pytest.CaptureFixture[str]) -> None:
    """``--komi 1e9`` was refused only when the first game began."""
    from fastplay.cli import main

    assert main(["match", "a", "b", "--komi", "1e9"]) == 2
    assert "--komi: komi must be within +-1000000" in capsys.readouterr().err


def test_the_book_move_takes_little_of_the_clock() -> None:
    """Under a clock alone, E5 on the empty 9x9 board searched the whole
    budget for an answer the book gives (5 s of a 600 s clock); explicit
    limits stay as asked."""
    search = MCTS(fp.PatternDatabase.builtin("mc_montegnu_classic"), seed=1)
    search.set_time(600, 0, 0)
    result = search.run(fp.Board(9))
    assert result.best_move == "E5" and result.visits == BOOK_VISITS
    assert MCTS(fp.PatternDatabase.builtin("mc_montegnu_classic"), seed=1).run(
        fp.Board(9), visits=BOOK_VISITS + 500).visits == BOOK_VISITS + 500


def test_one_allow_per_player() -> None:
    """KataGo's current analysis engine takes an ``allowMoves`` entry per
    player (at most two); fastplay took one in all, in JSON and in GTP."""
    from fastplay.analysis.query import Defaults, QueryError, parse_query
    from fastplay.color import Color
    from fastplay.gtp.analysis import parse_request
    from fastplay.gtp.protocol import GTPError

    both = [{"player": "W", "moves": ["D5"], "untilDepth": 1},
            {"player": "B", "moves": ["C4"], "untilDepth": 2}]
    base = {"id": "q", "moves": [["B", "E5"]], "rules": "tromp-taylor", "komi": 7,
            "boardXSize": 9, "boardYSize": 9}
    parsed = parse_query({**base, "allowMoves": both}, Defaults())
    assert sorted((f.player, f.until_depth) for f in parsed.filters) == [("B", 2), ("W", 1)]
    with pytest.raises(QueryError, match="at most one dict per player"):
        parse_query({**base, "allowMoves": [both[0], both[0]]}, Defaults())
    request = parse_request("10 allow W D4 1 allow B C4 1".split(), Color.WHITE, False, 9)
    assert [f.player for f in request.filters] == ["W", "B"]
    with pytest.raises(GTPError, match="at most one allow per player"):
        parse_request("10 allow W D4 1 allow w C4 1".split(), Color.WHITE, False, 9)


def test_time_left_without_time_settings_times_that_side() -> None:
    """``time_left B 0 0`` with no ``time_settings`` was ignored: the move
    took the unclocked search's time."""
    from fastplay.search.clock import Clock

    clock = Clock()
    board = fp.Board(19)
    assert clock.budget(board) is None
    clock.time_left("W", 0, 0)
    assert clock.budget(board) is None                  # Black to move: not timed
    clock.time_left("B", 0, 0)
    assert clock.budget(board) == pytest.approx(1e-4)   # the floor: move at once
    clock.time_left("B", 60, 0)
    budget = clock.budget(board)
    assert budget is not None and 0 < budget < 60
