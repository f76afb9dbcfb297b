"""Short versions of the soak and ending checks (``fuzz/soak_gtp.py``,
``fuzz/memcheck.py``; issue 21 item 4).  The full runs (2,000 moves, the
memcheck workload) are in RESULTS.md."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))

import memcheck  # noqa: E402
import soak_gtp  # noqa: E402
import soak_tree  # noqa: E402


def test_ctrl_c_and_end_of_input_end_the_engine_cleanly(capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    assert soak_gtp.main(["endings", "--trials", "6", "--seed", "5"]) == 0
    assert "6 endings, 0 problems" in capsys.readouterr().out


@pytest.mark.resident_memory
def test_a_short_gtp_session_keeps_its_memory(capsys: pytest.CaptureFixture[str]) -> None:
    assert soak_gtp.main(["soak", "--moves", "300", "--warmup", "100", "--playouts", "20",
                          "--ponder-seconds", "0.02"]) == 0
    assert "flat" in capsys.readouterr().out


def test_the_tree_soak_runs_and_refuses_bad_arguments(
        capsys: pytest.CaptureFixture[str]) -> None:
    """``fuzz/soak_tree.py`` on a small tree of a record's position, and its
    usage errors as one line each (a tester met tracebacks)."""
    from conftest import shared_path

    record = str(shared_path("gnugo-regression", "games", "cgos", "42896.sgf"))
    assert soak_tree.main(["--sgf", record, "--move", "24", "--nodes", "300",
                           "--chunk", "1000"]) == 0
    assert "bytes per node" in capsys.readouterr().out
    for bad, said in ((["--sgf", "/nonexistent.sgf"], "/nonexistent.sgf"),
                      (["--chunk", "0"], "must be >= 1"), (["--move", "3"], "needs --sgf"),
                      (["--sgf", record, "--size", "13"], "gives the size"),
                      (["--sgf", record, "--move", "999"], "only 89 moves"),
                      (["--size", "30"], "2..25")):
        with pytest.raises(SystemExit):
            soak_tree.main(bad)
        err = capsys.readouterr().err
        assert said in err and "Traceback" not in err, err


LOG = """==7== Memcheck, a memory error detector
==7== 
==7== Invalid read of size 4
==7==    at 0x1: __pyx_f_8fastplay_6_rules_board_play (_rules.c:120)
==7==    by 0x2: PyObject_Call (call.c:1)
==7== 
==7== Conditional jump or move depends on uninitialised value(s)
==7==    at 0x3: maybe_small_long (longobject.c:71)
==7== 
==7== ERROR SUMMARY: 2 errors from 2 contexts
"""


def test_memcheck_tells_the_core_s_errors_from_cpython_s() -> None:
    total, ours = memcheck.errors(LOG)
    assert total == 2 and len(ours) == 1 and "board_play" in ours[0]


def test_a_controller_that_closes_our_output_ends_the_session_cleanly() -> None:
    """A fresh tester: closing the engine's stdout gave a BrokenPipeError
    traceback and status 1; now the session ends as at the end of input."""
    import subprocess
    import time

    proc = subprocess.Popen([sys.executable, "-m", "fastplay", "gtp", "--playouts", "20"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write(b"boardsize 9\n")
    proc.stdin.flush()
    assert proc.stdout.readline().startswith(b"=")
    proc.stdout.close()
    try:
        proc.stdin.write(b"genmove b\nshowboard\nlist_commands\n")
        proc.stdin.flush()
        time.sleep(0.5)
        proc.stdin.close()
    except BrokenPipeError:
        pass
    assert proc.wait(timeout=30) == 0
    assert b"Traceback" not in proc.stderr.read()


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads Linux's /proc")
def test_ctrl_c_always_reaches_the_main_thread() -> None:
    """The kernel may deliver a Ctrl-C to any thread that does not block it,
    and CPython 3.11 then need not wake its main thread (an engine idle in
    its main loop ignored it: py-spy dumps, RESULTS.md "Soak and endings").
    Every thread fastplay starts blocks SIGINT and SIGTERM
    (``fastplay._threads``), and so do the threads numpy starts as it loads
    (OpenBLAS's: this test failed in CI when only fastplay's own threads
    did): checked in /proc while an analysis streams and the input reader
    waits, then the engine ends at one Ctrl-C."""
    import signal
    import subprocess
    import time

    proc = subprocess.Popen([sys.executable, "-m", "fastplay", "gtp", "--threads", "2",
                             "--playouts", "200"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("protocol_version\n")
        proc.stdin.flush()
        assert proc.stdout.readline().startswith("=")
        proc.stdin.write("kata-analyze 10\n")
        proc.stdin.flush()
        proc.stdout.readline()                      # "=" then info lines
        time.sleep(0.5)
        tasks = Path(f"/proc/{proc.pid}/task")
        masks = {}
        for task in tasks.iterdir():
            status = (task / "status").read_text()
            masks[int(task.name)] = int(status.split("SigBlk:")[1].split()[0], 16)
        workers = {tid: mask for tid, mask in masks.items() if tid != proc.pid}
        assert len(workers) >= 2                    # the input reader, the analysis
        wanted = (1 << (signal.SIGINT - 1)) | (1 << (signal.SIGTERM - 1))
        assert all(mask & wanted == wanted for mask in workers.values()), masks
        assert masks[proc.pid] & wanted == 0
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_no_compiled_module_loads_after_start_up() -> None:
    """A Ctrl-C that arrives while a Cython module with memoryviews
    initialises is lost (a bare ``except`` around its collections.abc
    registration, cython/cython#4817): an engine whose first genmove loaded
    numpy.random (numpy 2 loads it on first use) went on as if never
    interrupted (RESULTS.md, "Soak and endings").  ``fastplay.__main__.preload``
    loads every compiled module the engines use, Ctrl-C blocked; a GTP
    session and an analysis query load none afterwards."""
    import subprocess

    script = """
import io, json, sys
from fastplay.__main__ import preload
preload()
def compiled():
    files = {n: str(getattr(m, "__file__", "")) for n, m in list(sys.modules.items())}
    # the standard library's C modules are no Cython modules
    return {n for n, f in files.items() if f.endswith(".so") and "lib-dynload" not in f}
before = compiled()
from fastplay.cli import main
sys.stdin = io.TextIOWrapper(io.BytesIO(b"boardsize 9\\ngenmove b\\nkata-analyze 10\\n\\nfinal_score\\n"))
main(["gtp", "--playouts", "50", "--seed", "1"])
query = {"id": "q", "moves": [["B", "E5"]], "rules": "chinese", "komi": 7.5,
         "boardXSize": 9, "boardYSize": 9, "maxVisits": 20}
import tempfile
with tempfile.TemporaryFile("w+") as f:
    f.write(json.dumps(query) + "\\n")
    f.seek(0)
    sys.stdin = f
    main(["analysis", "--seed", "1"])
sys.stderr.write("NEW " + " ".join(sorted(compiled() - before)) + "\\n")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert '"id": "q"' in done.stdout or '"id":"q"' in done.stdout
    new = done.stderr.rsplit("NEW ", 1)[1].split()
    assert new == [], new


def test_a_worker_wait_returns_as_its_thread_ends_not_at_the_next_look() -> None:
    """``Worker.wait`` sleeps on a lock that the thread releases as it ends:
    with looks at its flag 5 s apart, a thread that ends after 0.1 s is
    waited for in well under a second, as often as one asks."""
    import time

    from fastplay import _threads

    for _ in range(3):
        worker = _threads.Worker(lambda: time.sleep(0.1), "test-wake", poll=5.0)
        start = time.perf_counter()
        worker.start()
        assert worker.wait() and not worker.running
        assert worker.wait(finish=True) and worker.wait(0.0)
        assert time.perf_counter() - start < 2.0


@pytest.mark.skipif(not hasattr(__import__("signal"), "pthread_kill"), reason="POSIX signals")
def test_a_worker_that_must_finish_holds_a_ctrl_c_until_it_has_ended() -> None:
    """On CPython 3.11 a Ctrl-C that cuts ``Thread.join`` short marks the
    still running thread as ended (python/cpython#90882): an analysis
    stopped that way let go of its search while the search thread still
    ran.  ``fastplay._threads.Worker`` keeps its own end flag:
    ``wait(finish=True)`` waits through a Ctrl-C and raises it once the
    thread has ended; ``finish=False`` raises it at once; the polling waits
    wake for it."""
    import signal
    import threading
    import time

    from fastplay import _threads

    def interrupt_main_after(seconds: float) -> None:
        main = threading.main_thread().ident
        assert main is not None
        threading.Timer(seconds, signal.pthread_kill, (main, signal.SIGINT)).start()

    for finish in (True, False):
        worker = _threads.Worker(lambda: time.sleep(0.8), "test-worker")
        worker.start()
        assert worker.running
        interrupt_main_after(0.1)
        start = time.perf_counter()
        with pytest.raises(KeyboardInterrupt):
            worker.wait(finish=finish)
        waited = time.perf_counter() - start
        assert worker.running is (not finish)
        assert waited >= 0.7 if finish else waited < 0.6
        assert worker.wait(5.0) and not worker.running
    never = _threads.Worker(lambda: None, "never-started")
    assert never.wait(finish=True) and not never.running
    slow = _threads.Worker(lambda: time.sleep(0.5), "slow")
    slow.start()
    assert slow.wait(0.05) is False and slow.running
    assert slow.wait() is True

    ready = threading.Event()
    interrupt_main_after(0.1)
    with pytest.raises(KeyboardInterrupt):
        _threads.wait(ready)


def test_ctrl_c_stops_the_analysis_engine_s_queue_at_once() -> None:
    """A Ctrl-C ends ``fastplay analysis`` promptly with status 130: the
    positions still queued or searching stop (each running one answers with
    what it has) instead of being finished, as the end of input finishes
    them.  (A fresh tester's query of three turns at 100,000 visits took
    12 s to end after its Ctrl-C.)"""
    import json
    import signal
    import subprocess
    import time

    query = {"id": "q", "moves": [["B", "E5"], ["W", "C3"]], "rules": "chinese", "komi": 7.5,
             "boardXSize": 9, "boardYSize": 9, "maxVisits": 1_000_000,
             "analyzeTurns": [0, 1, 2]}
    proc = subprocess.Popen([sys.executable, "-m", "fastplay", "analysis", "--seed", "1"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(query) + "\n")
        proc.stdin.flush()
        time.sleep(1.5)                       # well into the first position's search
        proc.send_signal(signal.SIGINT)
        start = time.perf_counter()
        out, err = proc.communicate(timeout=30)
        assert time.perf_counter() - start < 5.0
        assert proc.returncode == 130, err
        assert "Traceback" not in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
