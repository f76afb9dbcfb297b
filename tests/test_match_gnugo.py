"""benchmarks/match_gnugo.py: the fastplay engine's command line of a screen."""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys

import pytest
from conftest import benchmark_script


def test_screened_options_become_the_engine_s_flags() -> None:
    """--mcts NAME=VALUE: checked as SearchConfig checks it, and given to
    `fastplay gtp` by --search (or --batch and --prior, the options with a
    flag of their own); the engine command then really takes them."""
    script = benchmark_script("match_gnugo")
    options = [script._option(text) for text in (
        "batch=2", "rave=false", "c_puct=0.7", "resign_threshold=none", "prior_table=none")]
    args = argparse.Namespace(threads=1, playouts=20, mc_patterns=None, mcts=options)
    command = shlex.split(script._engine_command(args, 3))
    assert command[:3] == [sys.executable, "-m", "fastplay"]
    assert command[command.index("--batch") + 1] == "2"
    assert command[command.index("--prior") + 1] == "none"
    searched = [command[i + 1] for i, word in enumerate(command) if word == "--search"]
    assert searched == ["rave=false", "c_puct=0.7", "resign_threshold=none"]
    done = subprocess.run(command, input="boardsize 9\ngenmove b\nquit\n", capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("=\n\n= "), done.stderr
    for bad in ("c_puct=-1", "nonsense=1", "c_puct"):
        with pytest.raises(argparse.ArgumentTypeError):
            script._option(bad)
