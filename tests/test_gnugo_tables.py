"""benchmarks/gnugo_tables.py: its refusal of an unbuilt GNU Go tree and its
report of differing cells (the comparison itself needs a GNU Go 3.8 build:
figures in benchmarks/RESULTS.md)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from conftest import benchmark_script


def _script() -> ModuleType:
    return benchmark_script("gnugo_tables")


def test_an_unbuilt_tree_is_refused_with_the_build_steps(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exc:
        _script().main(["--gnugo-src", str(tmp_path), "--builtins"])
    assert "not a built GNU Go 3.8 tree" in str(exc.value)
    assert "engine/libengine.a" in str(exc.value)


def test_differences_name_the_cells_row_zero_aside() -> None:
    differences = _script().differences
    a = np.zeros((1108, 256), dtype=np.uint32)
    b = a.copy()
    b[0, 3] = 9                    # GNU Go never fills row 0
    assert differences(a, b) == []
    b[5, 7] = 3
    b[1107, 255] = 1
    assert differences(a, b) == ["[5, 7]: 0 vs 3", "[1107, 255]: 0 vs 1"]
    b[10:12] = 4
    assert differences(a, b)[-1] == "... 504 more"


def test_random_layouts_are_the_writers_own() -> None:
    script = _script()
    layout = script.random_layout(np.random.default_rng(1))
    assert layout.written[0].sum() == 0 and not layout.classes[0]
    assert layout.table().dtype == np.uint32


def test_a_missing_folder_is_named(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exc:
        _script().main(["--gnugo-src", str(tmp_path / "nowhere")])
    assert "does not exist" in str(exc.value)
