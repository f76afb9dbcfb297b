"""``fastplay analyze`` end to end, as a user runs it (a subprocess)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from fastplay.analyze import BUNDLED_GAME, bundled_game, main


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fastplay", "analyze", *args],
                          capture_output=True, text=True, timeout=120)


def test_bundled_game_is_packaged():
    text = bundled_game()
    assert "SZ[9]" in text and "Computer Go Server" in text
    assert BUNDLED_GAME.endswith(".sgf")


def test_analyze_bundled_game_end_to_end():
    proc = run_cli("--playouts", "400", "--seed", "3")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "AyaBot vs MonteGNU" in out
    assert "A B C D E F G H J" in out          # the board
    assert "visits" in out and "PV" in out       # the move table
    assert "Ownership" in out
    assert "playouts/s" in out
    table = out.split("PV\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert len(table) >= 3
    move, visits = table[0].split()[:2]
    assert int(visits) > 0


def test_analyze_is_reproducible_and_takes_a_file(tmp_path: Path):
    record = tmp_path / "game.sgf"
    record.write_text(bundled_game(), encoding="utf-8")
    a = run_cli(str(record), "--move", "30", "--playouts", "300", "--seed", "5")
    b = run_cli(str(record), "--move", "30", "--playouts", "300", "--seed", "5")
    assert a.returncode == 0, a.stderr
    strip = [line for line in a.stdout.splitlines() if "playouts/s" not in line]
    assert strip == [line for line in b.stdout.splitlines() if "playouts/s" not in line]
    assert "after move 30" in a.stdout


@pytest.mark.parametrize("args, message", [
    (["no-such-file.sgf"], "No such file"),
    (["--move", "500"], "error: --move 500: the record has only 73 moves"),
    (["--playouts", "0"], "1..9007199254740992"),
    (["--playouts", str(2 ** 63)], "1..9007199254740992"),
    (["--plot", "/tmp"], "--plot"),
    (["--plot", ""], "--plot"),
    (["--plot", "/nonexistent/dir/x.png"], "/nonexistent/dir"),
    (["--plot", "x.txt"], ".png"),
    (["--mc-load-patterns", ""], "error: no pattern database given (an empty file name)\n"),
])
def test_analyze_user_errors(args, message):
    proc = run_cli(*args)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr and "[Errno" not in proc.stderr


@pytest.mark.parametrize("text, message", [
    ("(;GM[1]SZ[9];B[ee];W[ee])", "node 2, move 2: W E5 is illegal (occupied)"),
    ("(;GM[1]SZ[9];B[ee", "unreadable SGF"),
])
def test_a_bad_record_is_named_in_its_error(tmp_path: Path, capsys, text: str,
                                            message: str) -> None:
    record = tmp_path / "bad.sgf"
    record.write_text(text, encoding="utf-8")
    assert main([str(record), "--playouts", "50"]) == 2
    assert f"error: {record}: {message}" in capsys.readouterr().err


def test_a_move_past_the_end_names_the_record_and_the_flag(tmp_path: Path, capsys) -> None:
    record = tmp_path / "short.sgf"
    record.write_text("(;GM[1]SZ[9];B[ee];W[cc])", encoding="utf-8")
    assert main([str(record), "--move", "9", "--playouts", "50"]) == 2
    err = capsys.readouterr().err
    assert f"error: {record}: --move 9: the record has only 2 moves" in err
    assert "move_number" not in err and "unreadable" not in err


def test_a_collection_s_first_game_is_analysed_with_a_warning(tmp_path: Path) -> None:
    """A file of several games: the first, and a warning that says so (it
    was silent: a tester's finding); one game, no warning."""
    record = tmp_path / "two.sgf"
    record.write_text("(;GM[1]SZ[9];B[ee];W[cc])\n(;GM[1]SZ[9];B[dd])\n", encoding="utf-8")
    proc = run_cli(str(record), "--playouts", "50")
    assert proc.returncode == 0, proc.stderr
    assert "fastplay: warning: the file holds a collection of 2 games; the first is read" \
        in proc.stderr
    assert "after move 2" in proc.stdout
    record.write_text("(;GM[1]SZ[9];B[ee];W[cc])\n", encoding="utf-8")
    proc = run_cli(str(record), "--playouts", "50")
    assert proc.returncode == 0 and "warning" not in proc.stderr


def test_the_heading_names_the_record_s_move_past_a_setup_node(tmp_path: Path,
                                                                capsys) -> None:
    """A tester's record: a setup node inside the game restarts the board's
    own move count, so ``--move 2`` said "after move 1"."""
    record = tmp_path / "ae.sgf"
    record.write_text("(;GM[1]SZ[9]AB[ee];W[cc];AE[ee]B[ee])", encoding="utf-8")
    assert main([str(record), "--move", "2", "--playouts", "30"]) == 0
    assert "ae.sgf, after move 2" in capsys.readouterr().out
    assert main([str(record), "--playouts", "30"]) == 0              # the whole record
    assert "ae.sgf, after move 2" in capsys.readouterr().out


def test_plot(tmp_path: Path, capsys):
    target = tmp_path / "own.png"
    status = main(["--playouts", "200", "--plot", str(target)])
    captured = capsys.readouterr()
    if importlib.util.find_spec("matplotlib") is None:
        assert status == 2
        assert "pip install 'fastplay[plot]'" in captured.err
        assert not target.exists()
    else:
        assert status == 0
        assert target.stat().st_size > 1000


@pytest.mark.parametrize("plot", ["/tmp", "", "/nonexistent/dir/x.png", "x.txt", "x",
                                  "/proc/x.png"])
def test_bad_plot_path_fails_before_the_search(plot: str, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    from fastplay.mcts import MCTS

    def no_search(*args: object, **kwargs: object) -> None:
        raise AssertionError("searched before checking --plot")

    monkeypatch.setattr(MCTS, "run", no_search)
    assert main(["--playouts", "50", "--plot", plot]) == 2
    captured = capsys.readouterr()
    assert "fastplay analyze: error: --plot" in captured.err and captured.out == ""


def test_plot_reports_the_path_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    from fastplay import analyze

    written: list[str] = []
    monkeypatch.setattr(analyze, "_check_matplotlib", lambda: None)
    monkeypatch.setattr(analyze, "_plot", lambda path, *a: written.append(path))
    target = tmp_path / "own.SVG"
    assert main(["--playouts", "20", "--plot", str(target)]) == 0
    assert written == [str(target)]
    assert f"ownership heat map written to {target}" in capsys.readouterr().out


def test_ownership_legend_matches_the_rendering() -> None:
    from fastplay.analyze import OWNERSHIP_LEGEND, format_ownership

    own = np.array([[0.9, 0.5, 0.0], [-0.5, -0.9, 0.9], [-0.9, 0.5, 0.1]], dtype=np.float32)
    grid = np.array([[1, 0, 0], [-1, 0, -1], [1, 1, 0]], dtype=np.int8)
    rows = [line.split()[1:-1] for line in format_ownership(own, grid).splitlines()[1:-1]]
    # letters show the owner only, whatever stone stands there: a white stone
    # on Black's point (C2) prints X, a black stone on White's point (A1) O
    assert rows == [["X", "x", "."], ["o", "O", "X"], ["O", "x", "."]]
    assert "lower case" in OWNERSHIP_LEGEND and "leaning" in OWNERSHIP_LEGEND
    assert "dead" in OWNERSHIP_LEGEND and "lower case on a stone" not in OWNERSHIP_LEGEND


def test_a_reader_that_goes_away_is_no_error() -> None:
    """``fastplay analyze | head -1``: no broken-pipe message, exit 0."""
    import subprocess
    import sys

    from conftest import subprocess_env

    proc = subprocess.Popen([sys.executable, "-m", "fastplay", "analyze", "--playouts", "200"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=subprocess_env())
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline()
    proc.stdout.close()
    assert proc.wait(timeout=60) == 0
    assert proc.stderr.read().decode() == ""


def test_a_console_that_cannot_show_the_names_gets_escapes(tmp_path: Path) -> None:
    """Player names a console cannot encode (a cp1252 pipe, as Windows gives
    one) come out as ``\\u`` escapes and the analysis is printed (a tester's
    finding: the command failed); control characters in them never reach
    the terminal raw (ESC sequences cleared and recoloured it)."""
    from conftest import subprocess_env

    record = tmp_path / "names.sgf"
    record.write_text("(;GM[1]FF[4]CA[UTF-8]SZ[9]PB[\u67ef\u6d01]PW[\x1b[2J\x1b[31mEvil];B[ee])",
                      encoding="utf-8")
    env = dict(subprocess_env(), PYTHONIOENCODING="cp1252")
    proc = subprocess.run([sys.executable, "-m", "fastplay", "analyze", str(record),
                           "--playouts", "100"], capture_output=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    head = proc.stdout.decode("cp1252").splitlines()[0]
    assert "(\\u67ef\\u6d01 vs \\x1b[2J\\x1b[31mEvil), after move 1" in head
    assert b"\x1b" not in proc.stdout and "win rate" in proc.stdout.decode("cp1252")
    assert record.name in head


def test_the_best_move_is_the_search_s_not_the_opening_book(tmp_path: Path) -> None:
    """An analysis reports the search's most visited move: the opening book
    (E5 on the empty 9x9 board, which ``genmove`` plays) is a game rule, not
    an analysis (a tester: "best E5" above a more visited F5)."""
    record = tmp_path / "empty.sgf"
    record.write_text("(;GM[1]FF[4]SZ[9]KM[7.5])")
    proc = run_cli(str(record), "--playouts", "1000", "--seed", "1")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    best = next(line for line in lines if "to play: best" in line).split("best ")[1].split(",")[0]
    table = lines[lines.index(next(line for line in lines if line.strip().startswith("move"))) + 1]
    assert best == table.split()[0]


def test_error_messages_escape_control_characters_of_file_names(tmp_path: Path) -> None:
    """A file name's control characters never reach the terminal raw in an
    error (a tester's finding), for one record or a batch."""
    missing = str(tmp_path / "missing\x1b[31m.sgf")
    for args in ((missing,), (missing, str(tmp_path), "--json", "-")):
        proc = run_cli(*args)
        assert proc.returncode != 0 and "\x1b" not in proc.stderr
        assert "missing\\x1b[31m.sgf" in proc.stderr


def test_a_database_file_and_search_options(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """``--mc-load-patterns FILE`` and ``--search NAME=VALUE`` change the
    search as in ``fastplay gtp``; the same ones give the same output; a bad
    option is a usage error naming it."""
    from fastplay.patterns import PatternDatabase

    uniform = PatternDatabase.builtin("mc_uniform").source
    assert uniform is not None
    outputs = []
    for extra in ([], ["--mc-load-patterns", str(uniform), "--search", "c_puct=3"],
                  ["--mc-load-patterns", str(uniform), "--search", "c_puct=3"]):
        assert main(["--playouts", "300", *extra]) == 0
        text = capsys.readouterr().out
        outputs.append(text[:text.index("playouts in")])      # the timing line aside
    assert outputs[1] == outputs[2] and outputs[0] != outputs[1]
    assert main(["--search", "c_puct=-1"]) == 2
    assert "c_puct" in capsys.readouterr().err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_record_from_a_pipe_is_read_once(tmp_path: Path) -> None:
    """``fastplay analyze`` read its record three or four times: from a pipe
    (``cat rec.sgf | fastplay analyze /dev/stdin --move 1``) the later reads
    found nothing, and a named pipe hung (a tester)."""
    record = b"(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[cc];B[dd])"
    cmd = [sys.executable, "-m", "fastplay", "analyze", "/dev/stdin", "--move", "1",
           "--playouts", "50"]
    done = subprocess.run(cmd, input=record, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert b"after move 1" in done.stdout
    fifo = tmp_path / "rec.fifo"
    os.mkfifo(fifo)
    cmd[4] = str(fifo)
    engine = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while True:                  # the write end opens once the engine reads
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError:
            assert engine.poll() is None and time.monotonic() < deadline, \
                engine.communicate()[1]
            time.sleep(0.02)
    os.write(fd, record)
    os.close(fd)
    out, err = engine.communicate(timeout=120)
    assert engine.returncode == 0, err
    assert b"after move 1" in out


def test_a_move_not_picked_by_the_visits_is_explained(tmp_path: Path, capsys) -> None:
    """A finished 5x5 game after White's pass: the search passes (the
    position is final) while the table lists C1 first; the heading said
    only "best PASS" (a tester), and now names the rule."""
    record = tmp_path / "end.sgf"
    record.write_text("(;FF[4]GM[1]SZ[5]KM[0.5]AB[ab][ac][ad][ba][bb][bd][be][cc][cd][de]"
                      "AW[ca][cb][db][dc][dd][ea][eb][ed][ee]PL[B];W[])")
    assert main([str(record), "--playouts", "500"]) == 0
    out = capsys.readouterr().out
    assert "Black to play: best PASS (the pass: the position is final), win rate" in out
    table = out.split("PV\n", 1)[1].split("\n\n", 1)[0].split("\n")
    assert table[0].split()[0] != "PASS"          # the visits' first is another move
    # The picture's title names it too.
    import matplotlib
    matplotlib.use("Agg")
    import fastplay as fp
    from fastplay.analyze import plot_figure
    from fastplay.search import MCTS

    board = fp.Board.from_sgf(record)
    result = MCTS(fp.PatternDatabase.default(), seed=1).run(board, playouts=500)
    figure = plot_figure(board, result, str(record))
    title = figure.axes[0].get_title()
    import matplotlib.pyplot as plt
    plt.close(figure)
    assert result.rule == "final" and title.endswith("\n(the pass: the position is final)")
    # The visits' own choice carries no note.
    assert main(["--playouts", "100"]) == 0
    heading = next(line for line in capsys.readouterr().out.splitlines()
                   if " to play: best " in line)
    assert "(" not in heading.split(", win rate")[0]
