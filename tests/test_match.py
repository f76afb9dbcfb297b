"""Match referee: case 32 with stub GTP engines, plus the match statistics.

Case 32 (``../shared/cases/32-match-runner-stop-after-pass-pass.txt``): a game
ends on two passes in a row or on a resignation, and after that no engine is
asked for another move; both engines get ``quit`` and exit, with no hang.
"""

from __future__ import annotations

import math
import os
import re
import shlex
import sys
import textwrap
import time
from typing import Any
from pathlib import Path

import pytest

from conftest import shared_path
from procstat import processes
from fastplay import cli
from fastplay.cli import UserError, main
from fastplay.match_clock import TimeControl
from fastplay.match import (
    SPRT,
    EngineError,
    EngineTerminatedError,
    EngineTimeoutError,
    GTPClient,
    MatchResult,
    elo_from_score,
    rules_text,
    run_match,
    score_from_elo,
    wilson_interval,
)

# Answers "=" to every command and logs each one.  P passes, R resigns, M plays
# the first empty point it knows of for 3 genmoves and then passes.  S sleeps
# before answering genmove (time-outs); X exits on genmove (crash); I plays an
# occupied point (illegal move).
STUB = textwrap.dedent('''
    import sys, time
    kind, log = sys.argv[1], sys.argv[2]
    cols = "ABCDEFGHJ"
    occupied, generated = set(), 0
    with open(log, "a") as out:
        for line in sys.stdin:
            command = line.split()
            out.write(line.strip() + "\\n")
            out.flush()
            answer = ""
            if not command:
                continue
            if command[0] == "final_status_list" and kind == "G":
                sys.stdout.write("garbage\\n\\n")   # a referee out of its mind
                sys.stdout.flush()
                continue
            if command[0] == "komi" and kind == "K":
                sys.stdout.write("? komi out of range\\n\\n")
                sys.stdout.flush()
                continue
            if command[0] == "clear_board":
                occupied.clear()
            elif command[0] == "play" and command[2].lower() != "pass":
                occupied.add(command[2].upper())
            elif command[0] == "genmove":
                generated += 1
                if kind == "P":
                    answer = "pass"
                elif kind == "R":
                    answer = "resign"
                elif kind == "S":
                    time.sleep(30)
                elif kind == "X":
                    sys.exit(3)
                elif kind == "I":
                    answer = "E5"
                elif kind == "2":   # answers twice: out of step from then on
                    sys.stdout.write("= A1\\n\\n")
                    answer = "B1"
                elif kind == "D":
                    time.sleep(0.4)
                    answer = next(c + str(r) for r in range(1, 10) for c in cols
                                  if c + str(r) not in occupied)
                    occupied.add(answer)
                elif kind == "M":
                    answer = "pass"
                    if generated <= 3:
                        answer = next(c + str(r) for r in range(1, 10) for c in cols
                                      if c + str(r) not in occupied)
                        occupied.add(answer)
            sys.stdout.write(("= " + answer).rstrip() + "\\n\\n")
            sys.stdout.flush()
            if command[0] == "quit":
                break
''')


@pytest.fixture
def stubs(tmp_path: Path):
    """``make(kind, name)`` -> (command line, log path) of a stub engine."""
    script = tmp_path / "stub_engine.py"
    script.write_text(STUB)

    def make(kind: str, name: str) -> tuple[str, Path]:
        log = tmp_path / f"{name}.log"
        return shlex.join([sys.executable, str(script), kind, str(log)]), log

    return make


def commands(log: Path) -> list[str]:
    return log.read_text().splitlines()


def genmoves(log: Path) -> list[str]:
    return [c for c in commands(log) if c.startswith("genmove")]


def test_case_32_file_is_present() -> None:
    text = shared_path("cases", "32-match-runner-stop-after-pass-pass.txt").read_text()
    assert "R1: Black = P, White = P." in text and "RE[W+R]" in text


def one_game(stubs, black: str, white: str, sgf_dir: Path):
    """Case 32's set-up: one 9x9 game, komi 7.5, between two stubs; no hang."""
    a, log_a = stubs(black, "black")
    b, log_b = stubs(white, "white")
    start = time.monotonic()
    result = run_match(a, b, games=1, size=9, komi=7.5, sgf_dir=sgf_dir, progress=False)
    assert time.monotonic() - start < 10
    # both engines got "quit" as their last command
    assert commands(log_a)[-1] == "quit" and commands(log_b)[-1] == "quit"
    (game,) = result.games
    return result, game, log_a, log_b


def test_r1_pass_pass_ends_the_game(stubs, tmp_path: Path) -> None:
    result, game, log_a, log_b = one_game(stubs, "P", "P", tmp_path / "sgf")
    assert genmoves(log_a) == ["genmove b"] and genmoves(log_b) == ["genmove w"]
    assert game.moves == [("B", "pass"), ("W", "pass")]
    assert game.result == "W+7.5" and game.winner == "W"
    assert (result.wins, result.losses, result.draws) == (0, 1, 0)
    assert "RE[W+7.5]" in (tmp_path / "sgf" / "game-0001.sgf").read_text()


def test_r2_game_goes_on_while_only_one_side_passes(stubs, tmp_path: Path) -> None:
    result, game, log_m, log_p = one_game(stubs, "M", "P", tmp_path)
    assert genmoves(log_m) == ["genmove b"] * 4
    assert genmoves(log_p) == ["genmove w"] * 3
    assert game.moves == [("B", "A1"), ("W", "pass"), ("B", "B1"), ("W", "pass"),
                          ("B", "C1"), ("W", "pass"), ("B", "pass")]
    # three black stones on an empty board: all 81 points are Black's
    assert game.result == "B+73.5"
    assert result.wins == 1
    # White was told Black's moves, and nothing after the final pass
    played = [c for c in commands(log_p) if c.startswith("play")]
    assert played == ["play b a1", "play b b1", "play b c1"]


def test_r3_resignation_ends_the_game(stubs, tmp_path: Path) -> None:
    result, game, log_r, log_p = one_game(stubs, "R", "P", tmp_path)
    assert genmoves(log_r) == ["genmove b"]
    assert genmoves(log_p) == []
    assert game.result == "W+R" and game.moves == []
    assert result.losses == 1
    assert "RE[W+R]" in (tmp_path / "game-0001.sgf").read_text()


def test_engines_exit_after_quit(stubs) -> None:
    p, _ = stubs("P", "x")
    client = GTPClient(p)
    client.close()
    assert client.process.returncode == 0


def test_colours_alternate_and_sprt_stops(stubs, tmp_path: Path) -> None:
    m, log_m = stubs("M", "m")
    r, log_r = stubs("R", "r")
    # M beats R in every game: as Black R resigns at once; as White... R
    # resigns at its first move.  SPRT(0, 200) accepts H1 after a few games.
    result = run_match(m, r, games=50, size=9, komi=7.5, sprt=SPRT(0, 200), progress=False)
    assert result.sprt_decision == "H1"
    assert result.n < 50 and result.wins == result.n
    blacks = [g.black for g in result.games]
    assert blacks[0] != blacks[1] and blacks[0] == blacks[2]
    assert "H1 accepted" in result.summary("M", "R")


def test_timeout_loses_and_engine_is_restarted(stubs) -> None:
    s, log_s = stubs("S", "s")
    p, _ = stubs("P", "p")
    start = time.monotonic()
    result = run_match(s, p, games=2, size=9, move_timeout=0.5, progress=False)
    assert time.monotonic() - start < 15
    assert [g.result for g in result.games] == ["W+T", "B+T"]
    assert result.losses == 2


def test_a_refused_set_up_stops_the_match(stubs, capsys: Any) -> None:
    """An engine that refuses the komi (or the size) cannot play any game:
    the match stops with an error naming the engine and its answer, instead
    of scoring forfeits (a tester's match at komi 2000 reported 1-1, exit 0)."""
    from fastplay.cli import main
    from fastplay.match import MatchSetupError

    k, log_k = stubs("K", "k")
    p, _ = stubs("P", "p")
    with pytest.raises(MatchSetupError, match="'komi 7.5' failed: komi out of range"):
        run_match(p, k, games=4, progress=False)
    assert commands(log_k)[-1] == "quit" and not genmoves(log_k)
    assert main(["match", k, p, "--games", "2", "--no-progress"]) == 2   # as any engine error
    err = capsys.readouterr().err
    assert "komi out of range" in err and "no game can be played" in err


def test_crash_and_illegal_move_lose(stubs) -> None:
    x, _ = stubs("X", "x")
    i, _ = stubs("I", "i")
    p, _ = stubs("P", "p")
    assert run_match(x, p, games=1, progress=False).games[0].result == "W+F"
    game = run_match(p, i, games=1, progress=False).games[0]
    # B pass, W E5, B pass, W E5 again on its own stone: White forfeits
    assert game.result == "B+F" and game.moves == [("B", "pass"), ("W", "E5"), ("B", "pass")]
    game = run_match(i, i, games=1, progress=False).games[0]
    # Black E5, then White E5 on the occupied point: White forfeits
    assert game.result == "B+F" and game.moves == [("B", "E5")]


def test_referee_settles_dead_stones(stubs, tmp_path: Path) -> None:
    # The referee (a P stub) answers "=" to final_status_list: nothing is dead.
    m, _ = stubs("M", "m")
    p, _ = stubs("P", "p")
    ref, log_ref = stubs("P", "ref")
    result = run_match(m, p, games=1, referee=ref, progress=False)
    assert result.games[0].result == "B+73.5"
    assert "final_status_list dead" in commands(log_ref)
    assert commands(log_ref)[-1] == "quit"


def test_a_failing_referee_leaves_tromp_taylor_and_the_match_goes_on(stubs) -> None:
    """A referee that garbles ``final_status_list`` ended a tester's match
    with no result printed: now each game is scored by Tromp-Taylor, the
    failure in its reason, and the referee starts afresh."""
    m, _ = stubs("M", "m")
    p, _ = stubs("P", "p")
    ref, log_ref = stubs("G", "ref")
    result = run_match(m, p, games=2, referee=ref, progress=False)
    assert [g.result for g in result.games] == ["B+73.5", "W+7.5"]   # M moves in game 1 only
    assert all("Tromp-Taylor: the referee failed" in g.reason and "garbage" in g.reason
               for g in result.games)
    assert commands(log_ref).count("final_status_list dead") == 2
    assert commands(log_ref).count("boardsize 9") == 2


def test_a_match_stopped_by_ctrl_c_tells_the_games_it_played(
        stubs, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Each game's line is printed as it ends, and the summary of the games
    played when Ctrl-C stops the match (a tester's interrupted match printed
    nothing)."""
    import fastplay.match as match_module
    from fastplay.cli import main

    m, _ = stubs("M", "m")
    p, _ = stubs("P", "p")
    real = match_module.play_game
    played: list[int] = []

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        if played:
            raise KeyboardInterrupt
        played.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(match_module, "play_game", interrupted)
    assert main(["match", m, p, "--games", "4", "--size", "9", "--no-progress"]) == 130
    out = capsys.readouterr().out
    assert out.startswith("game 1: ") and "game 2" not in out
    assert "1 games, +1 -0 =0" in out


def test_an_engine_that_answers_twice_loses_for_it(stubs) -> None:
    """Two answers to one genmove put every later answer one behind; the
    engine lost as "illegal move ''" for a move it never meant (a tester).
    Now the extra answer is seen before the next command, once it has
    arrived: the opponent here thinks 0.4 s, as real ones do, which leaves
    it the time (an instant opponent lost this race in a loaded run)."""
    two, _ = stubs("2", "two")
    d, _ = stubs("D", "d")
    game = run_match(two, d, games=1, progress=False).games[0]
    assert game.result == "W+F" and "wrote more than it was asked for" in game.reason
    assert game.reason.endswith(": = B1")


def test_client_errors(stubs) -> None:
    with pytest.raises(EngineTerminatedError):
        GTPClient(["/nonexistent/engine"])
    x, _ = stubs("X", "x")
    with GTPClient(x) as client:
        assert client.send("name") == ""
        with pytest.raises(EngineTerminatedError):
            client.send("genmove b")
        with pytest.raises(EngineTerminatedError):
            client.send("name")
    s, _ = stubs("S", "s")
    client = GTPClient(s)
    with pytest.raises(EngineTimeoutError):
        client.send("genmove b", timeout=0.2)
    client.close(quit_first=False, timeout=0.5)
    assert issubclass(EngineTimeoutError, EngineError)


def test_gtp_error_response(tmp_path: Path) -> None:
    script = tmp_path / "e.py"
    script.write_text("import sys\nfor l in sys.stdin:\n"
                      "    sys.stdout.write('?7 nope\\n\\n' if 'x' in l else '=7 a\\n  b\\n\\n')\n"
                      "    sys.stdout.flush()\n")
    with GTPClient([sys.executable, str(script)]) as client:
        assert client.send("7 y") == "a\n  b"  # lines after the first keep their layout
        with pytest.raises(EngineError, match="nope"):
            client.send("x")


def test_cli_match(stubs, tmp_path: Path, capsys) -> None:
    r, _ = stubs("R", "r")
    p, _ = stubs("P", "p")
    status = main(["match", r, p, "--games", "2", "--sgf-dir", str(tmp_path), "--no-progress",
                   "--sprt", "0", "50"])
    assert status == 0
    out = capsys.readouterr().out
    assert "W+R" in out and "B+R" in out and "95 % CI" in out and "SPRT" in out
    name = re.escape(Path(sys.executable).name)  # the stubs run under this interpreter's name
    assert re.search(rf"Seconds per move: {name} \(A\) \d+\.\d\d, {name} \(B\) \d+\.\d\d", out)
    assert len(list(tmp_path.glob("*.sgf"))) == 2


def test_cli_match_bad_engine(capsys) -> None:
    assert main(["match", "/nonexistent/a", "/nonexistent/b", "--no-progress"]) == 2
    assert "error" in capsys.readouterr().err


def test_an_engine_gone_before_its_first_game_stops_the_match(stubs, tmp_path: Path,
                                                             capsys) -> None:
    """An engine that exits at start (a bad option) played 20 forfeits, and the
    SPRT accepted H0 with status 0 (a tester): it is a set-up error now."""
    dies = f"{shlex.quote(sys.executable)} -c " + shlex.quote(
        "import sys; sys.stderr.write('unknown option\\n'); sys.exit(2)")
    engine, _ = stubs("pass", "b")
    games = tmp_path / "games"
    assert main(["match", dies, engine, "--games", "100", "--sprt", "0", "50",
                 "--sgf-dir", str(games), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "(it said: unknown option); no game can be played" in err
    assert not games.exists() or not list(games.iterdir())


def test_an_engine_that_forfeits_both_first_games_unplayed_stops_the_match(stubs,
                                                                          capsys) -> None:
    """An engine that died at ``boardsize`` in every game played 40 forfeits,
    and the SPRT accepted H0 with status 0 (a tester): two forfeits before a
    move of its own, in the first two games, are a set-up error."""
    dies = f"{shlex.quote(sys.executable)} -c " + shlex.quote(
        "import sys\nfor line in sys.stdin:\n"
        "    if line.startswith('boardsize'): sys.exit(1)\n"
        "    print('= dier\\n' if line.startswith('name') else '=\\n', flush=True)")
    engine, _ = stubs("pass", "b")
    assert main(["match", dies, engine, "--games", "40", "--sprt", "0", "50",
                 "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert "dier forfeited its first two games before any move" in captured.err
    assert captured.out.count("game ") == 2                   # told as they ended


def test_an_endless_name_answer_stops_the_match(stubs, capsys) -> None:
    """An engine whose ``name`` answer never ended lost game 1 on time, after
    the whole move time-out (a tester): out of step from its first answer,
    it is a set-up error."""
    endless = f"{shlex.quote(sys.executable)} -c " + shlex.quote(
        "import sys\nsys.stdin.readline()\nsys.stdout.write('= ')\n"
        "while True: sys.stdout.write('x' * 65536); sys.stdout.flush()")
    engine, _ = stubs("pass", "b")
    started = time.monotonic()
    assert main(["match", endless, engine, "--games", "3", "--no-progress"]) == 2
    assert "longer than" in capsys.readouterr().err and time.monotonic() - started < 30


def _labels(answer: str) -> tuple[str, str]:
    """The labels ``_name`` gives two engines that answer every command
    with ``answer`` (Python source of a ``str``)."""
    from fastplay.match import GTPClient, _name

    script = f"import sys\nfor line in sys.stdin:\n    print({answer}, flush=True)"
    a = GTPClient([sys.executable, "-c", script])
    b = GTPClient([sys.executable, "-c", script])
    try:
        _name(a, b)
    finally:
        a.close(quit_first=False, timeout=1)
        b.close(quit_first=False, timeout=1)
    return a.label, b.label


def test_an_engine_name_shows_no_control_character(stubs) -> None:
    """A ``name`` answer with ESC and a line break reached the terminal and
    the records raw (a tester)."""
    a, _ = _labels("'= a\\x1b[2Jb\\n  c' + 'x' * 200 + '\\n'")
    assert a.startswith("a\\x1b[2Jb c") and a.endswith(" (A)")
    assert len(a) == 60 + 4 and "\x1b" not in a and "\n" not in a


def test_an_engine_name_shows_no_format_character(stubs) -> None:
    """A ``name`` answer with U+202E (right-to-left override) and a zero-width
    space was shown as it came, turning the terminal's line around (a
    leftover of the last note): such characters are written as ``\\uXXXX``."""
    a, b = _labels("'= evil\u202eog\u200bnu\\n'")
    assert a == "evil\\u202eog\\u200bnu (A)" and b.endswith(" (B)")


# -- statistics ----------------------------------------------------------------------


def test_wilson_interval_known_values() -> None:
    lo, hi = wilson_interval(0.5, 100)
    assert lo == pytest.approx(0.40383, abs=1e-5) and hi == pytest.approx(0.59617, abs=1e-5)
    lo, hi = wilson_interval(0.0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.27753, abs=1e-5)
    lo, hi = wilson_interval(0.7, 100)
    assert lo == pytest.approx(0.60415, abs=1e-5) and hi == pytest.approx(0.78105, abs=1e-5)
    assert wilson_interval(0.5, 0) == (0.0, 1.0)


def test_elo_known_values() -> None:
    assert elo_from_score(0.5) == 0 and math.copysign(1, elo_from_score(0.5)) == 1
    assert elo_from_score(0.75) == pytest.approx(190.849, abs=1e-3)
    assert elo_from_score(0.25) == pytest.approx(-190.849, abs=1e-3)
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf
    assert score_from_elo(400) == pytest.approx(10 / 11)
    assert score_from_elo(elo_from_score(0.64)) == pytest.approx(0.64)


def test_sprt_refuses_crossed_bounds_and_reversed_hypotheses() -> None:
    """alpha + beta >= 1 crossed Wald's bounds, so the first game accepted
    H1 whatever its result, and ELO0 > ELO1 printed "H1 accepted (elo >=
    0)" after 40 losses in 40 games (a tester): both are refused, by the
    class and by ``fastplay match``."""
    for args in ((0, 50, 0.7, 0.7), (0, 50, 0.5, 0.5), (50, 0), (5, 5), (0, math.inf),
                 (math.nan, 5), (0, 50, 0.0, 0.05), (0, 50, 0.05, -0.1), (0, 10000),
                 (-1e6, 0)):   # (a score of 1.0 or 0.0: log failed, a third tester)
        with pytest.raises(ValueError, match="SPRT needs"):
            SPRT(*args)
    assert SPRT(0, 50, 0.45, 0.5).bounds[0] < SPRT(0, 50, 0.45, 0.5).bounds[1]
    for flags in (["--sprt", "0", "50", "--alpha", "0.7", "--beta", "0.7"],
                  ["--sprt", "50", "0"]):
        with pytest.raises(UserError, match="SPRT needs"):
            cli._run_match(cli.build_parser().parse_args(["match", "a", "b", *flags]))


def test_sprt_known_values() -> None:
    sprt = SPRT(0, 10, alpha=0.05, beta=0.05)
    lower, upper = sprt.bounds
    assert lower == pytest.approx(-math.log(19)) and upper == pytest.approx(math.log(19))
    # p0 = 0.5, p1 = 1 / (1 + 10**(-10/400)) = 0.5143871841
    assert sprt.llr(60, 40) == pytest.approx(60 * math.log(0.5143871841 / 0.5)
                                             + 40 * math.log(0.4856128159 / 0.5), abs=1e-8)
    assert sprt.llr(60, 40) == pytest.approx(0.53423, abs=1e-4)
    assert sprt.llr(50, 50) < 0  # equal results favour H0 (elo 0)
    assert sprt.llr(55, 45, draws=10) == pytest.approx(sprt.llr(60, 50))
    assert sprt.decision(60, 40) is None
    assert SPRT(0, 200).decision(7, 0) is None
    assert SPRT(0, 200).decision(8, 0) == "H1"
    assert SPRT(0, 200).decision(0, 5) == "H0"
    asym = SPRT(-5, 5, alpha=0.05, beta=0.10)
    assert asym.bounds == (pytest.approx(math.log(0.10 / 0.95)), pytest.approx(math.log(0.90 / 0.05)))


def test_match_summary_text() -> None:
    result = MatchResult(wins=75, losses=25)
    text = result.summary("fastplay", "gnugo", rules_text(9, 7.5, False))
    assert "fastplay score 75.0 %" in text
    assert "Elo difference +191" in text
    assert "Tromp-Taylor" in text and "komi 7.5" in text


def test_a_clock_enforces_sudden_death_and_tells_the_engines(stubs, tmp_path: Path) -> None:
    """--time 1: a 0.4 s-a-move engine has lost on time by its third move; both
    engines got time_settings, and the mover time_left before each genmove."""
    d, log_d = stubs("D", "slow")
    p, log_p = stubs("P", "quick")
    result = run_match(d, p, games=1, size=9, progress=False,
                       time_control=TimeControl.parse("1"), sgf_dir=tmp_path)
    game = result.games[0]
    assert game.result == "W+T" and "out of time" in game.reason
    assert len(genmoves(log_d)) == 3
    slow, quick = commands(log_d), commands(log_p)
    assert "time_settings 1 0 0" in slow and "time_settings 1 0 0" in quick
    assert slow[slow.index("genmove b") - 1].startswith("time_left b 1 0")
    assert result.time_losses() == {game.black: 1}
    # Every genmove is timed, the one that lost on time too.
    assert game.genmoves == {"B": 3, "W": 2}
    pace = result.seconds_per_move()
    assert 0.3 < pace[game.black] < 1.0 and pace[game.white] < 0.3
    sgf = (tmp_path / "game-0001.sgf").read_bytes()
    assert b"TM[1]" in sgf and b"RE[W+T]" in sgf
    # The time each side had left after each of its moves (FF[4] BL/WL).
    left = [float(v) for v in re.findall(rb"BL\[([0-9.]+)\]", sgf)]
    assert len(left) == 2 and 0.0 < left[1] < left[0] < 1.0
    assert len(re.findall(rb"WL\[", sgf)) == 2 and b"OB[" not in sgf


def test_canadian_byo_yomi_saves_a_slow_engine(stubs) -> None:
    """--time 1+1/2: sudden death would lose on the third 0.4 s move, but main
    time runs out in it and it becomes the first of two stones in a 1 s
    period; the fourth fits the period too."""
    d, log_d = stubs("D", "slow")
    p, _ = stubs("P", "quick")
    result = run_match(d, p, games=1, size=9, progress=False, max_moves=8,
                       time_control=TimeControl.parse("1+1/2"))
    game = result.games[0]
    assert not game.result.endswith("+T"), game.reason
    assert game.reason.startswith("move limit 8 reached")
    lefts = [c for c in commands(log_d) if c.startswith("time_left")]
    assert lefts == ["time_left b 1 0", "time_left b 0 0", "time_left b 0 0", "time_left b 0 1"]
    # In byo-yomi the record gives the stones left in the period too (OB):
    # one after the third move, then a fresh period of two after the fourth.
    assert [stones for _, stones in game.clock_left[0::2]] == [0, 0, 1, 2]
    assert game.clock_left[6][0] == 1.0 and game.to_sgf().count(b"OB[") == 2


@pytest.mark.resident_memory
def test_an_engine_that_never_ends_its_answer_fails_in_bounded_time_and_memory() -> None:
    """A tester's engine printing '=' for ever (or one line a second) kept a
    referee waiting for good, its memory growing: the time limit is for the
    whole answer, and an answer has a size limit."""
    from fastplay.match import EngineError, EngineTimeoutError, GTPClient

    # It floods once asked (output before any command is an error of its own).
    flood = GTPClient(["sh", "-c", "read line; exec yes ="], timeout=20)
    started = time.monotonic()
    with pytest.raises(EngineError, match="longer than"):
        flood.send("name")
    assert time.monotonic() - started < 15
    flood.close(quit_first=False, timeout=1)
    # (It waits for the command: lines written before it are an error of
    # their own, which a loaded machine let the referee see first.)
    slow = [sys.executable, "-c", "import sys, time\nsys.stdin.readline()\nwhile True:\n"
            " print('= x', flush=True)\n time.sleep(0.3)"]
    trickle = GTPClient(slow, timeout=1.0)
    started = time.monotonic()
    with pytest.raises(EngineTimeoutError, match="within 1 s"):
        trickle.send("name")
    assert time.monotonic() - started < 5
    trickle.close(quit_first=False, timeout=1)
    # One endless line (no line end) is cut at the answer's limit, and the
    # rest is drained unkept: it grew the referee by 2.5 GB in 3 s (a tester).
    endless = GTPClient([sys.executable, "-c", "import sys\nsys.stdin.readline()\n"
                         "while True: sys.stdout.write('y' * 65536); sys.stdout.flush()"],
                        timeout=20)
    before = _rss()
    with pytest.raises(EngineError, match="longer than"):
        endless.send("name")
    time.sleep(1.0)                                  # the engine still writes, read unkept
    assert _rss() - before < 64 << 20
    endless.close(quit_first=False, timeout=1)


def _rss() -> int:
    """This process's resident memory in bytes (``VmRSS``; 0 where there is no /proc)."""
    status = Path("/proc/self/status")
    if not status.exists():
        return 0
    for line in status.read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def test_a_time_past_python_s_waits_is_a_usage_error(capsys: Any) -> None:
    """``--move-timeout 1e10`` and ``--time 10000000000`` ended in a traceback
    (``OverflowError`` from a wait; a tester): times are at most MAX_SECONDS."""
    from fastplay.cli import main
    from fastplay.match_clock import TimeControl

    for args in (["--move-timeout", "1e10"], ["--time", "10000000000"]):
        assert main(["match", "true", "true", "--games", "1", *args]) == 2
        assert "10,000,000" in capsys.readouterr().err
    with pytest.raises(ValueError, match="0..10,000,000"):
        TimeControl(1e12)


def test_an_engine_that_exits_is_quoted_and_its_stderr_never_blocks() -> None:
    """An engine that refuses its command line says why on standard error:
    the error about its exit quotes its last lines; an engine that writes
    a lot there is drained and still answers."""
    from fastplay.match import EngineTerminatedError, GTPClient

    refuses = GTPClient([sys.executable, "-c", "import sys; sys.stderr.write('noise\\n"
                         "fastplay: error: unknown prior x\\n'); sys.exit(2)"], name="engine")
    with pytest.raises(EngineTerminatedError,
                       match=r"engine exited while answering 'name' \(it said: noise / "
                             r"fastplay: error: unknown prior x\)"):
        refuses.send("name")
    refuses.close()
    chatty = GTPClient([sys.executable, "-c", "import sys\n"
                        "for _ in range(20000): sys.stderr.write('chatter ' * 20 + '\\n')\n"
                        "sys.stderr.flush()\n"
                        "for line in sys.stdin:\n"
                        "    print('= chatty\\n', flush=True)\n"
                        "    if line.strip() == 'quit': break\n"], name="chatty", timeout=30)
    assert chatty.send("name") == "chatty"
    chatty.close()
    endless = GTPClient([sys.executable, "-c", "import sys; sys.stderr.write('x' * 2_000_000)"],
                        name="endless")
    with pytest.raises(EngineTerminatedError) as gone:   # one 2 MB line: 500 characters kept
        endless.send("name")
    assert "(it said: xxx" in str(gone.value) and len(str(gone.value)) < 1000
    endless.close()
    with pytest.raises(ValueError, match="stderr must be"):
        GTPClient(["true"], stderr="everything")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads Linux's /proc")
def test_an_engine_s_own_processes_end_with_it(stubs, tmp_path: Path) -> None:
    """A wrapper that starts a helper process left one running per engine
    start after the match (a tester): each engine runs in a session of its
    own, and its group is killed when it is closed."""
    from fastplay.match import GTPClient

    engine, _ = stubs("pass", "w")
    marker = tmp_path / "helper-alive"
    helper = f"{shlex.quote(sys.executable)} -c " + shlex.quote(
        f"import time, pathlib; p = pathlib.Path({str(marker)!r}); p.touch(); "
        "time.sleep(60); p.unlink()")
    client = GTPClient(["sh", "-c", f"{helper} & exec {engine}"])
    assert client.send("name") is not None
    for _ in range(100):                    # the helper has started
        if marker.exists():
            break
        time.sleep(0.05)
    group = client.process.pid
    assert len(processes(2, group)) == 2           # the engine and its helper
    client.close()
    time.sleep(0.2)
    assert processes(2, group) == []


def test_the_records_folder_is_checked_before_any_game(stubs, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """``--sgf-dir /sys`` failed after the first game, whose line was never
    printed, and an earlier match's records were replaced one by one (a
    tester): a folder that cannot be written, or that holds game-0001.sgf,
    is refused before any engine starts."""
    import tempfile

    from fastplay.match import run_match

    a, a_log = stubs("pass", "a")
    b, _ = stubs("pass", "b")
    kept = tmp_path / "earlier"
    kept.mkdir()
    (kept / "game-0002.sgf").write_text("(;GM[1]SZ[9])")   # any game-*.sgf
    with pytest.raises(FileExistsError, match="earlier match's records"):
        run_match(a, b, games=2, sgf_dir=kept, progress=False)
    assert (kept / "game-0002.sgf").read_text() == "(;GM[1]SZ[9])" and not a_log.exists()
    linked = tmp_path / "linked"                            # a dangling link too
    linked.mkdir()
    (linked / "game-0001.sgf").symlink_to(tmp_path / "outside.sgf")
    with pytest.raises(FileExistsError, match="earlier match's records"):
        run_match(a, b, games=1, sgf_dir=linked, progress=False)
    assert not (tmp_path / "outside.sgf").exists()

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "TemporaryFile", refused)
    with pytest.raises(PermissionError, match="cannot write in this folder") as caught:
        run_match(a, b, games=1, sgf_dir=tmp_path / "new", progress=False)
    assert caught.value.filename == str(tmp_path / "new") and not a_log.exists()
