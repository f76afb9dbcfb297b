"""The suite's own set-up: Ctrl-C tests work when pytest starts with SIGINT ignored.

A run started in the background of a script (``python -m pytest tests &``)
or under nohup inherits SIGINT ignored; ``conftest.py`` turns the handler
back on.  Without that, the Ctrl-C tests timed out (a tester's run: 8
failures, one test blocked for ten minutes).
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from conftest import subprocess_env

TESTS = Path(__file__).resolve().parent


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def test_ctrl_c_tests_pass_when_the_run_starts_with_sigint_ignored() -> None:
    # One in-process Ctrl-C test and one that sends it to an engine it starts.
    chosen = ["test_backend.py::test_local_keyboard_interrupt_leaves_no_workers",
              "test_soak.py::test_ctrl_c_always_reaches_the_main_thread"]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         *(str(TESTS / name) for name in chosen)],
        cwd=TESTS.parent, env=subprocess_env(), preexec_fn=_ignore_sigint,
        capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "failed" not in run.stdout
