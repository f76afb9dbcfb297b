"""benchmarks/compare_peers.py: its argument errors and the Pachi input it writes (no timing)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
from conftest import benchmark_script

def _script() -> ModuleType:
    return benchmark_script("compare_peers")


def test_missing_peers_folder_is_a_usage_error(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        _script().main([str(tmp_path / "nowhere")])
    assert exc.value.code == 2
    assert "build-peers.sh" in capsys.readouterr().err


def test_unbuilt_peers_name_the_build_command(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exc:
        _script().main([str(tmp_path), "--rounds", "1"])
    assert "not built" in str(exc.value) and "build-peers.sh" in str(exc.value)


def test_rounds_must_be_positive(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exc:
        _script().main([str(tmp_path), "--rounds", "0"])
    assert exc.value.code == 2


@pytest.mark.parametrize("size", [9, 19])
def test_tunit_file_is_a_lone_stone_on_the_4_4_point(tmp_path: Path, size: int) -> None:
    script = _script()
    text = script.tunit_file(tmp_path, size).read_text()
    rows = [line for line in text.splitlines() if line.startswith(".")]
    assert len(rows) == size and text.endswith("moggy status")
    assert rows[3].replace(")", " ").split() == ["."] * 3 + ["X"] + ["."] * (size - 4)
    board = script.start_board(size, "stone")
    assert board.get(f"D{size - 3}") == "B" and board.to_move == "W"
