"""The thread stress run (``fuzz/stress_threads.py``, issue 21 item 5), short:
searches on 1-8 threads with exact visit counts and consistent trees, GTP
sessions whose commands land while the engine ponders, no deadlock and no
thread left running.  The long run (``--rounds 2000``) is in RESULTS.md."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))

import stress_threads  # noqa: E402


def test_short_stress_run(capsys: pytest.CaptureFixture[str]) -> None:
    assert stress_threads.main(["--rounds", "40", "--seed", "3", "--deadline", "120"]) == 0
    assert "40 rounds passed" in capsys.readouterr().out


def test_the_watchdog_reports_a_deadlock() -> None:
    stop = threading.Event()
    with pytest.raises(AssertionError, match="deadlock"):
        stress_threads.watched(lambda: stop.wait(5), deadline=0.2)
    stop.set()


def test_the_watchdog_passes_an_exception_on() -> None:
    def fail() -> None:
        raise AssertionError("edge 3: 4 visits")

    with pytest.raises(AssertionError, match="edge 3"):
        stress_threads.watched(fail, deadline=5)


def test_leftover_threads_are_reported() -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, name="fastplay-test-leftover", daemon=True)
    thread.start()
    try:
        assert "fastplay-test-leftover" in stress_threads.leftover_threads(grace=0.1)
    finally:
        stop.set()
        thread.join()
