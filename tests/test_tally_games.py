"""benchmarks/tally_games.py: saved match records tallied from the engine's side."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
from conftest import benchmark_script

from fastplay.match import GameRecord
from fastplay.match_clock import TimeControl

def _script() -> ModuleType:
    return benchmark_script("tally_games")


def _save(folder: Path, name: str, black: str, white: str, result: str,
          left: list[tuple[float, int]] | None = None) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    record = GameRecord(black=black, white=white, size=9, komi=7.5, result=result,
                        moves=[("B", "E5"), ("W", "C3")], clock_left=left or [],
                        time_control=TimeControl.parse("30") if left else None)
    (folder / name).write_bytes(record.to_sgf())


def test_runs_of_several_sessions_add_up(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    _save(tmp_path / "run1" / "job-0", "game-0001.sgf", "fastplay gtp", "GNU Go", "B+3.5",
          [(28.5, 0), (29.0, 0)])
    _save(tmp_path / "run1" / "job-0", "game-0002.sgf", "GNU Go", "fastplay gtp", "B+R")
    _save(tmp_path / "run2", "game-0001.sgf", "fastplay gtp", "GNU Go", "W+T",
          [(0.75, 0), (12.0, 0)])
    _save(tmp_path / "run2", "game-0002.sgf", "GNU Go", "fastplay gtp", "0")
    assert _script().main([str(tmp_path / "run1"), str(tmp_path / "run2"), "--by-color"]) == 0
    out = capsys.readouterr().out
    assert "4 games, +1 -2 =1" in out and "score 37.5 %" in out
    assert "lost on time: 1" in out
    assert "least time fastplay had left after a move: 0.75 s" in out
    assert "as Black: +1 -1 =0" in out and "as White: +0 -1 =1" in out


def test_records_it_cannot_read_are_usage_errors(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert _script().main([str(tmp_path)]) == 2
    assert "no .sgf records" in capsys.readouterr().err
    _save(tmp_path, "a.sgf", "GNU Go", "Leela", "B+R")
    assert _script().main([str(tmp_path)]) == 2
    assert "a.sgf: needs RE and 'fastplay'" in capsys.readouterr().err


def test_the_sprt_of_games_pooled_from_several_runs(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """--sprt ELO0 ELO1: fastplay match's log-likelihood ratio over all the
    records, and where it stands against Wald's bounds."""
    from fastplay.match import SPRT

    for run, (wins, losses) in (("a", (30, 10)), ("b", (25, 15))):
        for k in range(wins + losses):
            _save(tmp_path / run, f"game-{k:04d}.sgf", "fastplay gtp", "GNU Go",
                  "B+R" if k < wins else "W+R")
    assert _script().main([str(tmp_path), "--sprt", "0", "50"]) == 0
    out = capsys.readouterr().out
    llr = SPRT(0, 50).llr(55, 25)
    assert f"LLR {llr:.2f} in [-2.94, 2.94], H1 accepted (elo >= 50)" in out
    with pytest.raises(SystemExit):
        _script().main([str(tmp_path), "--sprt", "50", "0"])
    assert "ELO0 < ELO1" in capsys.readouterr().err


def test_a_reader_that_goes_away_is_no_error(tmp_path: Path) -> None:
    """``tally_games.py DIR | head -1``: no BrokenPipeError traceback."""
    import subprocess
    import sys

    _save(tmp_path, "game-0001.sgf", "fastplay gtp", "GNU Go", "B+3.5")
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "tally_games.py"
    proc = subprocess.Popen([sys.executable, str(script), str(tmp_path), "--by-color"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()             # the reader is gone before the first line
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 0, err
    assert b"Traceback" not in err and b"BrokenPipe" not in err
