"""benchmarks/judge_losses.py: the judge of lost games and its decisive moves."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import ModuleType

import pytest
from conftest import REPO, benchmark_script


@pytest.fixture(scope="module")
def judge() -> ModuleType:
    return benchmark_script("judge_losses")


def test_the_decisive_move_is_the_largest_fall_from_a_position_still_open(
        judge: ModuleType) -> None:
    """Falls from positions under 0.40 do not count; the class comes from
    the judge's best minus its value of the move played."""
    j = judge.Judged
    game = [j(0, "E5", 0.55, "E5", 0.55), j(2, "C3", 0.52, "D4", 0.50),
            j(4, "G7", 0.30, "G7", 0.30), j(6, "A1", 0.38, "B2", 0.10), j(8, "B1", 0.02, "B1", 0)]
    found = judge.decisive(game)
    assert found is not None
    position, verdict = found
    assert position.k == 2 and verdict == "agrees"          # 0.52 -> 0.30, not 0.38 -> 0.02
    assert judge.decisive([j(0, "E5", 0.6, "D4", 0.45), j(2, "C3", 0.1, "C3", 0.1)]) \
        == (j(0, "E5", 0.6, "D4", 0.45), "avoids")
    assert judge.decisive([j(0, "E5", 0.6, "D4", 0.53), j(2, "C3", 0.1, "C3", 0.1)])[1] == "mild"
    assert judge.decisive([j(0, "E5", 0.35, "E5", 0.35), j(2, "C3", 0.1, "C3", 0.1)]) is None
    assert judge.decisive([j(0, "E5", 0.6, "E5", 0.6)]) is None


def test_a_run_with_decisive_counts_each_lost_game_once(
        judge: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two lost records at a tiny budget: a trajectory, a decisive line when
    a position was still open, and the totals by colour."""
    games = REPO / "benchmarks" / "games" / "9x9-5k-gnugo10-ladv15" / "job-0"
    lost = judge.lost_games(games)[:2]
    assert len(lost) == 2
    for path, _ in lost:
        shutil.copy(path, tmp_path / path.name)
    assert judge.main([str(tmp_path), "--playouts", "60", "--stop-below", "0.15",
                       "--decisive"]) == 0
    out = capsys.readouterr().out
    assert sum(line.startswith(str(tmp_path)) for line in out.splitlines()) == 2
    totals = [line for line in out.splitlines() if line.startswith("decisive moves the judge")]
    assert len(totals) == 3
    counted = sum(int(word) for line in totals for word in line.split() if word.isdigit())
    assert counted == out.count("    decisive: move ") <= 2
    with pytest.raises(SystemExit):
        judge.main([str(tmp_path), "--stop-below", "2"])
