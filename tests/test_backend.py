"""fastplay.backend: the same ordered results from every backend and worker count.

The task functions are importable everywhere: ``fastplay.backend.derive_seed``
(a pure function of its argument) and ``math.factorial`` (which raises on a
negative number); ``os._exit`` and ``ctypes.string_at`` (of address 0: a
segmentation fault) kill the worker that runs them, and ``sys.exit`` raises
SystemExit there.  Functions defined here would do for the
spawned local workers (they get this process's ``sys.path``; see
:func:`_exit_on_negative`) but not for Ray's, which import a function's module
by name and do not see pytest's ``tests/`` entry.

The Ray tests run on a real Ray instance started here (2 CPUs, no dashboard,
usage statistics off), once for the module: it takes seconds to start.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import math
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import subprocess_env
from procstat import alive
from fastplay.backend import (RAY_INSTALL_HINT, BackendError, LocalBackend, RayBackend,
                              derive_seed, get_backend)

TASKS = list(range(40))
EXPECTED = [derive_seed(task) for task in TASKS]


def _consume(results: Iterator[Any]) -> tuple[list[Any], BackendError | None]:
    """The results yielded, and the BackendError that ended them (or None)."""
    got: list[Any] = []
    try:
        for result in results:
            got.append(result)
    except BackendError as exc:
        return got, exc
    return got, None


@contextlib.contextmanager
def _deadline(seconds: int) -> Iterator[None]:
    """Fail (not hang) when the block takes longer than ``seconds``: SIGALRM
    interrupts the wait for a result that never comes."""
    if not hasattr(signal, "SIGALRM"):  # pragma: no cover - Windows
        pytest.skip("needs SIGALRM")

    def expired(signum: int, frame: Any) -> None:
        raise TimeoutError(f"no answer within {seconds} s: the map hangs")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _exit_on_negative(n: int) -> int:
    """A task that kills its worker process on a negative number."""
    if n < 0:
        os._exit(3)
    return 2 * n


def _worker_pids(backend: LocalBackend) -> list[int]:
    assert backend._executor is not None
    return list(backend._executor._processes)


# -- derive_seed -------------------------------------------------------------

def test_derive_seed_is_pinned() -> None:
    assert derive_seed(42, "ref", 3) == 5524239456641969132
    rule = int.from_bytes(hashlib.sha256(b"42\x1f'ref'\x1f3").digest()[:8], "big") >> 1
    assert derive_seed(42, "ref", 3) == rule


def test_derive_seed_differs_per_part() -> None:
    seeds = [derive_seed(1), derive_seed(2), derive_seed(-1), derive_seed(1, 0), derive_seed(1, 1),
             derive_seed(1, "1"), derive_seed(1, 0, 1), derive_seed(1, 1, 0), derive_seed(1, "a", "b"),
             derive_seed(1, "a\x1fb"), derive_seed(1, "a\x1f'b'"), derive_seed(1, "")]
    assert len(set(seeds)) == len(seeds)
    assert all(0 <= seed < 2**63 for seed in seeds)
    assert derive_seed(np.int64(7), np.int32(3)) == derive_seed(7, 3)
    with pytest.raises(TypeError, match="str or int"):
        derive_seed(1, 2.5)  # type: ignore[arg-type]


# -- local -------------------------------------------------------------------

@pytest.mark.parametrize("workers", [1, 2])
def test_local_results_in_order_whatever_the_workers(workers: int) -> None:
    with LocalBackend(workers) as backend:
        assert (backend.name, backend.workers) == ("local", workers)
        assert list(backend.map(derive_seed, TASKS)) == EXPECTED
        executor = backend._executor
        assert list(backend.map(math.factorial, range(12))) == [math.factorial(n) for n in range(12)]
        assert backend._executor is executor  # one executor for every map (none with one worker)
        assert (executor is None) == (workers == 1)
        assert list(backend.map(derive_seed, range(1000))) == [derive_seed(n) for n in range(1000)]
    assert backend._executor is None


def test_local_single_task_runs_in_process() -> None:
    with LocalBackend(2) as backend:
        assert list(backend.map(derive_seed, [5])) == [derive_seed(5)]
        assert list(backend.map(derive_seed, [])) == []
        assert backend._executor is None


@pytest.mark.parametrize("workers", [1, 2])
def test_local_task_error_names_the_index(workers: int) -> None:
    with LocalBackend(workers) as backend:
        got, error = _consume(backend.map(math.factorial, [3, 2, -1, 4, 5]))
        assert got == [6, 2]
        assert error is not None
        assert str(error).startswith("task 2 failed: ValueError: ")
        assert "factorial() not defined for negative values" in str(error)
        assert isinstance(error.__cause__, ValueError)
        assert backend._executor is None  # dropped with the work queued after task 2
        # The backend goes on working after a failed map.
        assert list(backend.map(derive_seed, TASKS)) == EXPECTED


def test_local_system_exit_in_a_task_is_its_error() -> None:
    with LocalBackend(2) as backend:
        got, error = _consume(backend.map(sys.exit, [3, 4, 5]))
        assert (got, str(error)) == ([], "task 0 failed: SystemExit: 3")
        assert list(backend.map(derive_seed, TASKS)) == EXPECTED


@pytest.mark.parametrize(("kill", "task"), [(os._exit, 3), (ctypes.string_at, 0)],
                         ids=["os._exit", "segfault"])
def test_local_worker_death_is_an_error(kill: Any, task: int) -> None:
    with LocalBackend(2) as backend:
        assert list(backend.map(derive_seed, TASKS)) == EXPECTED
        with _deadline(60):
            started = time.monotonic()
            got, error = _consume(backend.map(kill, [task] * 4))
            elapsed = time.monotonic() - started
        assert got == []
        assert error is not None, "a map whose worker died ended without an error"
        assert str(error).startswith("task 0 failed: a worker process died")
        assert "BrokenProcessPool" in str(error)
        assert isinstance(error.__cause__, BrokenProcessPool)
        assert elapsed < 30
        assert backend._executor is None  # the broken executor is dropped
        # The next map starts a new executor.
        with _deadline(60):
            assert list(backend.map(derive_seed, TASKS)) == EXPECTED
            assert list(backend.map(math.factorial, range(12))) == [math.factorial(n) for n in range(12)]


def test_local_worker_death_after_results() -> None:
    tasks = [1, 2, 3, 4, 5, 6, -1, 7, 8, 9]
    with LocalBackend(2) as backend, _deadline(60):
        got, error = _consume(backend.map(_exit_on_negative, tasks))
        assert error is not None
        # The first task not yet yielded is named: task 6 or one in flight with it.
        index = int(str(error).split()[1])
        assert index <= 6
        assert str(error).startswith(f"task {index} failed: a worker process died")
        assert got == [2 * n for n in tasks[:index]]
        assert list(backend.map(_exit_on_negative, range(20))) == [2 * n for n in range(20)]


def test_local_worker_killed_between_maps() -> None:
    with LocalBackend(2) as backend, _deadline(60):
        assert list(backend.map(derive_seed, TASKS)) == EXPECTED
        executor = backend._executor
        assert executor is not None
        os.kill(_worker_pids(backend)[0], signal.SIGKILL)
        while not executor._broken:  # the executor notices its dead worker
            time.sleep(0.01)
        # An executor that broke while idle is replaced: the map does not fail.
        assert list(backend.map(derive_seed, TASKS)) == EXPECTED
        assert backend._executor is not executor


def test_local_early_stop_and_close() -> None:
    backend = LocalBackend(2)
    for seed in backend.map(derive_seed, range(100_000)):
        assert seed == derive_seed(0)
        pids = _worker_pids(backend)
        break  # the abandoned generator is closed, and the work queued dropped with its executor
    assert backend._executor is None
    assert pids and all(not alive(pid) for pid in pids)  # terminated and joined
    with _deadline(60):
        for _ in backend.map(time.sleep, [0, 0, 30, 30, 30, 30, 30]):
            pids = _worker_pids(backend)
            break  # tasks running are terminated at once, not waited for
    assert all(not alive(pid) for pid in pids)
    assert list(backend.map(derive_seed, TASKS)) == EXPECTED
    backend.close()
    backend.close()
    with pytest.raises(BackendError, match="closed"):
        backend.map(derive_seed, TASKS)


def test_local_close_during_a_map() -> None:
    backend = LocalBackend(2)
    results = backend.map(time.sleep, [0, 0, 30, 30, 30, 30, 30])
    with _deadline(60):
        next(results)
        pids = _worker_pids(backend)
        backend.close()  # the map still open: its workers are terminated, not waited for
    assert all(not alive(pid) for pid in pids)
    got, error = _consume(results)
    assert got in ([], [None])  # task 1 (no sleep) may have been done
    assert str(error) in (f"task {len(got) + 1} was {what}: the backend was closed"
                          for what in ("stopped", "cancelled"))
    assert backend._executor is None


_INTERRUPTED = textwrap.dedent("""
    import sys, time
    from fastplay.backend import LocalBackend

    backend = LocalBackend(2)
    results = backend.map(time.sleep, [0, 0] + [60] * 10)
    for _ in results:
        print(*backend._executor._processes, flush=True)
        if sys.argv[1] == "body":  # the interrupt comes in the caller's loop
            time.sleep(60)
""")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("where", ["waiting", "body"])
def test_local_keyboard_interrupt_leaves_no_workers(where: str) -> None:
    """Ctrl-C in the parent (SIGINT to it alone) while it waits for a result
    or runs its loop: it exits at once, its workers terminated, not waited for."""
    with subprocess.Popen([sys.executable, "-c", _INTERRUPTED, where], env=subprocess_env(),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as child:
        try:
            assert child.stdout is not None
            pids = [int(pid) for pid in child.stdout.readline().split()]
            assert pids, child.stderr.read() if child.stderr else ""
            time.sleep(0.5)
            started = time.monotonic()
            child.send_signal(signal.SIGINT)
            _, stderr = child.communicate(timeout=30)
            assert time.monotonic() - started < 20
        finally:
            child.kill()
    assert "KeyboardInterrupt" in stderr
    assert child.returncode != 0
    assert all(not alive(pid) for pid in pids)


# -- get_backend -------------------------------------------------------------

def test_get_backend() -> None:
    with get_backend() as backend:
        assert isinstance(backend, LocalBackend)
        assert backend.workers == (os.cpu_count() or 1)
    with get_backend("local", workers=3) as backend:
        assert backend.workers == 3


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"name": "dask"}, "unknown backend 'dask': choose one of local, ray"),
    ({"name": "local", "workers": 0}, "workers must be a positive integer"),
    ({"name": "ray", "workers": -2}, "workers must be a positive integer"),
    ({"name": "local", "address": "auto"}, "is for the ray backend"),
])
def test_get_backend_bad_arguments(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        get_backend(**kwargs)


def test_ray_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(BackendError, match="needs Ray") as info:
        get_backend("ray", workers=2)
    assert RAY_INSTALL_HINT in str(info.value)
    assert RAY_INSTALL_HINT == 'pip install "fastplay[ray]"'


def test_fastplay_imports_without_ray() -> None:
    code = "import sys, fastplay.backend, fastplay.cli; assert 'ray' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, env=subprocess_env(), timeout=60)


# -- ray ---------------------------------------------------------------------

def _import_ray() -> Any:
    # Ray is in the test extra wherever it has wheels (Python 3.10-3.14):
    # there the tests must run, not skip.
    if sys.version_info >= (3, 15):  # pragma: no cover
        return pytest.importorskip("ray")
    import ray

    ray_module: Any = ray
    return ray_module


@pytest.fixture(scope="module")
def ray_backend() -> Iterator[RayBackend]:
    ray = _import_ray()
    assert not ray.is_initialized()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAY_USAGE_STATS_ENABLED", "0")
        backend = RayBackend(workers=2)  # ray.init(num_cpus=2, include_dashboard=False, ...)
        try:
            yield backend
        finally:
            backend.close()
            assert not ray.is_initialized()  # the instance it started is shut down
            backend.close()


def test_ray_same_results_as_local(ray_backend: RayBackend) -> None:
    ray = _import_ray()
    assert ray.cluster_resources()["CPU"] == 2
    assert (ray_backend.name, ray_backend.workers) == ("ray", 2)
    tasks = list(range(100))  # more than the 8 tasks kept in flight
    with LocalBackend(2) as local:
        expected = list(local.map(derive_seed, tasks))
    assert list(ray_backend.map(derive_seed, tasks)) == expected
    assert list(ray_backend.map(math.factorial, range(12))) == [math.factorial(n) for n in range(12)]
    assert list(ray_backend.map(derive_seed, tasks)) == expected  # a cached remote function
    assert list(ray_backend.map(derive_seed, [])) == []


def test_ray_task_error_names_the_index(ray_backend: RayBackend) -> None:
    got, error = _consume(ray_backend.map(math.factorial, [3, 2, -1, 4, 5]))
    assert got == [6, 2]
    assert error is not None
    assert str(error) == "task 2 failed: ValueError: factorial() not defined for negative values"
    for seed in ray_backend.map(derive_seed, range(10_000)):
        assert seed == derive_seed(0)
        break  # the tasks in flight finish unread
    assert list(ray_backend.map(derive_seed, TASKS)) == EXPECTED


def test_ray_map_stopped_early_cancels_nothing(ray_backend: RayBackend,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A map left early (the caller's break, a task's error) never calls
    ``ray.cancel``, whose race with a task's completion can abort the
    process (ray-project/ray#54846): its tasks in flight run to their end."""
    ray = _import_ray()
    cancels: list[object] = []
    monkeypatch.setattr(ray, "cancel", lambda ref, *a, **k: cancels.append(ref))
    for _ in ray_backend.map(derive_seed, range(1_000)):
        break
    got, error = _consume(ray_backend.map(math.factorial, [3, -1] + list(range(50))))
    assert got == [6] and error is not None
    assert cancels == []
    assert list(ray_backend.map(derive_seed, TASKS)) == EXPECTED


def test_ray_uses_an_instance_already_running(ray_backend: RayBackend) -> None:
    ray = _import_ray()

    with get_backend("ray") as backend:  # ray.init was called (by the fixture)
        assert backend.workers == 2
        assert list(backend.map(derive_seed, TASKS)) == EXPECTED
    assert ray.is_initialized()  # not shut down: it was not this backend's


def test_ray_bad_address(ray_backend: RayBackend, monkeypatch: pytest.MonkeyPatch) -> None:
    ray = _import_ray()

    monkeypatch.setattr(ray, "is_initialized", lambda: False)  # as if no ray.init yet
    with pytest.raises(BackendError, match="cannot reach the Ray cluster at 127.0.0.1:1"):
        get_backend("ray", address="127.0.0.1:1")
    with pytest.raises(BackendError, match="bad Ray address 'nowhere'"):
        get_backend("ray", address="nowhere")
