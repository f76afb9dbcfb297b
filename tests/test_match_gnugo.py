"""benchmarks/match_gnugo.py: the fastplay engine's command line of a screen."""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import benchmark_script


def test_screened_options_become_the_engine_s_flags() -> None:
    """--mcts NAME=VALUE: checked as SearchConfig checks it, and given to
    `fastplay gtp` by --search (or --batch and --prior, the options with a
    flag of their own); the engine command then really takes them."""
    script = benchmark_script("match_gnugo")
    options = [script._option(text) for text in (
        "batch=2", "rave=false", "c_puct=0.7", "resign_threshold=none", "prior_table=none")]
    args = argparse.Namespace(threads=1, playouts=20, mc_patterns=None, mc_load_patterns=None,
                              mcts=options)
    command = shlex.split(script._engine_command(args, 3))
    assert command[:3] == [sys.executable, "-m", "fastplay"]
    assert "--batch=2" in command and "--prior=none" in command
    searched = [command[i + 1] for i, word in enumerate(command) if word == "--search"]
    assert searched == ["rave=false", "c_puct=0.7", "resign_threshold=none"]
    done = subprocess.run(command, input="boardsize 9\ngenmove b\nquit\n", capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("=\n\n= "), done.stderr
    assert script._engine_fails(script._engine_command(args, 3)) is None
    # batch=none: the engine's default, no flag at all.
    args.mcts = [script._option("batch=none")]
    assert "--batch" not in script._engine_command(args, 3)
    # --mc-load-patterns FILE: the engine's playouts from a .db file.
    args.mc_load_patterns = str(Path(__file__).resolve().parents[1] / "patterns" / "mc_uniform.db")
    command = shlex.split(script._engine_command(args, 3))
    assert command[command.index("--mc-load-patterns") + 1] == args.mc_load_patterns
    assert script._engine_fails(script._engine_command(args, 3)) is None


@pytest.mark.parametrize("bad, said", [
    ("c_puct=-1", "c_puct"), ("nonsense=1", "unknown search option"), ("c_puct", "NAME=VALUE"),
    ("mix=0.3", "needs an evaluator"), ("eval_batch=2", "needs an evaluator"),
    ("prior_table=true", "prior_table: a prior is"), ("prior_table=1", "prior_table: a prior is"),
    ("prior_table=nosuch.npz", "No such file"), ("prior_table=--help", "unknown prior"),
])
def test_options_the_engine_would_refuse_are_refused_first(bad: str, said: str) -> None:
    """A tester's finding: such options made every engine exit at start-up,
    and the match scored forfeits with exit status 0."""
    with pytest.raises(argparse.ArgumentTypeError, match=said):
        benchmark_script("match_gnugo")._option(bad)


def test_an_engine_that_does_not_start_is_a_usage_error(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        benchmark_script("match_gnugo").main(["--games", "1", "--playouts", "10",
                                              "--threads", "0"])
    assert stopped.value.code == 2
    assert "the fastplay engine does not start" in capsys.readouterr().err
