"""``fastplay analyze`` end to end, as a user runs it (a subprocess)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

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
    (["--move", "500"], "only 73 moves"),
    (["--playouts", "0"], "at least 1"),
])
def test_analyze_user_errors(args, message):
    proc = run_cli(*args)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


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
