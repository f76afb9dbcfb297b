"""The example a researcher copies (``examples/value_function.py``) and the
command-line route for a user's evaluator (``fastplay gtp --evaluator``)."""

from __future__ import annotations

import importlib.util
import io
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import fastplay as fp
from fastplay.cli import main
from fastplay.plugins import load_callable
from fastplay.search import MCTS, SearchConfig

from conftest import REPO

EXAMPLE = REPO / "examples" / "value_function.py"


@pytest.fixture(scope="module")
def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("value_function", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bouzy_area_estimate_counts_a_finished_game_as_tromp_taylor(example):
    """On the final position of a real game the 5/21 operator gives every
    point to the side Tromp-Taylor gives it."""
    record = REPO / "src" / "fastplay" / "data" / "cgos-390115-anchorman-montegnu.sgf"
    board = fp.Board.from_sgf(record)
    area = example.area_estimate(board.to_numpy()[None])[0]
    assert np.array_equal(np.sign(area), board.area_owner())
    value = example.influence_value([board])
    assert value.shape == (1,) and 0.5 < value[0] < 1   # Black, to move, leads by 5.5


def test_influence_value_speaks_for_the_side_to_move(example):
    board = fp.Board(9, komi=7.5)
    board.setup(black=["C3", "C7", "G3", "G7", "E5"], to_move="B")
    black_view = example.influence_value([board])[0]
    board.to_move = "W"
    white_view = example.influence_value([board])[0]
    assert black_view == pytest.approx(1 - white_view) and black_view > 0.5
    assert example.influence_value([]).shape == (0,)


def test_the_example_plugs_into_the_search(example):
    db = fp.PatternDatabase.builtin("mc_montegnu_classic")
    board = fp.Board(9, komi=7.5)
    board.play("E5")
    search = MCTS(db, SearchConfig(mix=0.5), seed=1, evaluator=example.influence_value)
    result = search.run(board, visits=300)
    assert result.visits == 300 and result.playouts == 300 and result.best_move != "resign"


def test_the_example_runs_as_a_script():
    done = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "rollouts only" in done.stdout and "Bouzy 5/21" in done.stdout


def test_gtp_takes_an_evaluator_from_the_command_line(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(
        b"boardsize 9\nclear_board\nplay b E5\ngenmove w\n")))
    spec = f"{EXAMPLE}:influence_value"
    assert main(["gtp", "--evaluator", spec, "--mix", "0.5", "--playouts", "100",
                 "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count("=") == 4 and "?" not in out


@pytest.mark.parametrize("args, message", [
    (["--evaluator", "nofile.py:f"], "no such file"),
    (["--evaluator", "examples/value_function.py"], "FILE.py:NAME"),
    (["--evaluator", f"{EXAMPLE}:missing"], "has no 'missing'"),
    (["--evaluator", f"{EXAMPLE}:SCALE"], "not callable"),
    (["--evaluator", "no_such_module_x:f"], "cannot import"),
    (["--evaluator", "os:getcwd"], "must take 1 positional argument"),
    (["--evaluator", f"{EXAMPLE}:main"], "must take 1 positional argument"),
    (["--mix", "0.5"], "need --evaluator"),
    (["--evaluator", f"{EXAMPLE}:influence_value", "--mix", "2"], "--mix"),
])
def test_bad_evaluator_options_are_usage_errors(args, message, capsys):
    assert main(["gtp", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_load_callable_reports_a_file_that_raises(tmp_path: Path):
    bad = tmp_path / "broken.py"
    bad.write_text("raise RuntimeError('boom')\n")
    with pytest.raises(ValueError, match="RuntimeError: boom"):
        load_callable(f"{bad}:f")
    assert load_callable("math:sqrt")(4.0) == 2.0
