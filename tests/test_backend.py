"""fastplay.backend: the same ordered results from every backend and worker count.

The task functions are importable everywhere: ``fastplay.backend.derive_seed``
(a pure function of its argument) and ``math.factorial`` (which raises on a
negative number).  Functions defined here would do for the spawned local
workers (they get this process's ``sys.path``) but not for Ray's, which
import a function's module by name and do not see pytest's ``tests/`` entry.

The Ray tests run on a real Ray instance started here (2 CPUs, no dashboard,
usage statistics off), once for the module: it takes seconds to start.
"""

from __future__ import annotations

import hashlib
import math
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from conftest import subprocess_env
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
        pool = backend._pool
        assert list(backend.map(math.factorial, range(12))) == [math.factorial(n) for n in range(12)]
        assert backend._pool is pool  # one pool for every map (none with one worker)
        assert (pool is None) == (workers == 1)
    assert backend._pool is None


def test_local_single_task_runs_in_process() -> None:
    with LocalBackend(2) as backend:
        assert list(backend.map(derive_seed, [5])) == [derive_seed(5)]
        assert list(backend.map(derive_seed, [])) == []
        assert backend._pool is None


@pytest.mark.parametrize("workers", [1, 2])
def test_local_task_error_names_the_index(workers: int) -> None:
    with LocalBackend(workers) as backend:
        got, error = _consume(backend.map(math.factorial, [3, 2, -1, 4, 5]))
        assert got == [6, 2]
        assert error is not None
        assert str(error).startswith("task 2 failed: ValueError: ")
        assert "factorial() not defined for negative values" in str(error)
        assert isinstance(error.__cause__, ValueError)
        # The backend goes on working after a failed map.
        assert list(backend.map(derive_seed, TASKS)) == EXPECTED


def test_local_early_stop_and_close() -> None:
    backend = LocalBackend(2)
    for seed in backend.map(derive_seed, range(100_000)):
        assert seed == derive_seed(0)
        break  # the abandoned generator is closed, and the work queued dropped with its pool
    assert backend._pool is None
    assert list(backend.map(derive_seed, TASKS)) == EXPECTED
    backend.close()
    backend.close()
    with pytest.raises(BackendError, match="closed"):
        backend.map(derive_seed, TASKS)


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
        break  # the tasks in flight are cancelled
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
