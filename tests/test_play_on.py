"""benchmarks/play_on.py: the records it plays on from."""

from __future__ import annotations

from pathlib import Path

from conftest import benchmark_script

from fastplay.match import GameRecord


def test_a_record_s_moves_size_komi_and_result(tmp_path: Path) -> None:
    record = GameRecord(black="fastplay", white="GNU Go", size=9, komi=7.5, result="W+R",
                        moves=[("B", "E5"), ("W", "C3"), ("B", "pass"), ("W", "J9")])
    path = tmp_path / "game.sgf"
    path.write_bytes(record.to_sgf())
    moves, black, result, size, komi = benchmark_script("play_on").record_moves(path)
    assert moves == [("B", "E5"), ("W", "C3"), ("B", "pass"), ("W", "J9")]
    assert (black, result, size, komi) == ("fastplay", "W+R", 9, 7.5)
