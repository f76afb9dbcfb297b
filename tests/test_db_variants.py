"""benchmarks/db_variants.py: screened variants of a playout database."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import benchmark_script

import fastplay as fp


def test_power_and_safe_transform_the_table_cell_by_cell(tmp_path: Path) -> None:
    script = benchmark_script("db_variants")
    base = fp.PatternDatabase.builtin("mc_montegnu_classic").table.astype(np.float64)
    assert script.main(["power", "1.5", "--out", str(tmp_path / "p.db")]) == 0
    powered = fp.PatternDatabase.from_file(tmp_path / "p.db").table
    want = np.where(base > 0, np.maximum(1, np.rint(3 * base ** 1.5)), 0)
    np.testing.assert_array_equal(powered, want)
    assert script.main(["safe", "10", "--out", str(tmp_path / "s.db")]) == 0
    safe = fp.PatternDatabase.from_file(tmp_path / "s.db").table.astype(np.float64)
    ratio = safe[1:] / np.maximum(base[1:], 1)
    self_atari = (np.arange(256) & 64) > 0           # ounsafe: property bit 6
    quiet = base[1:] == 1                            # the catch-all's cells
    assert np.all(ratio[base[1:] > 1] == 10)         # every pattern's value x10
    assert np.all(ratio[quiet & ~self_atari[None, :]] == 10)
    assert np.all(ratio[quiet & self_atari[None, :]] == 1)


def test_values_beyond_gnu_go_s_limit_are_refused(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    script = benchmark_script("db_variants")
    with pytest.raises(SystemExit):
        script.main(["power", "2", "--out", str(tmp_path / "p.db")])
    assert "above GNU Go's 10,000,000" in capsys.readouterr().err
    assert not (tmp_path / "p.db").exists()
    base = tmp_path / "b.db"
    base.write_text("?X%\n?*%\n%%%\n:10,ocap1\n")
    with pytest.raises(SystemExit):
        script.main(["safe", "2", "--base", str(base), "--out", str(tmp_path / "s.db")])
    assert "must be a bare value" in capsys.readouterr().err
