"""One interface for running many independent pure tasks, here or on Ray.

The heavy parts of fastplay (building a benchmark's reference, completing its
candidates) are lists of independent tasks: a module-level function applied
to picklable task values.  A :class:`Backend` runs them and yields the results
in task order::

    with get_backend("local", workers=4) as backend:
        for result in backend.map(solve, tasks):
            ...

* :class:`LocalBackend` (``"local"``, the default) uses processes on this
  machine: a ``multiprocessing`` pool started with ``spawn``.
* :class:`RayBackend` (``"ray"``) starts a Ray instance on this machine, or
  joins a cluster (``address="auto"`` or ``"HOST:PORT"``).  Ray is an optional
  extra: ``pip install "fastplay[ray]"``.

Determinism: results come back in task order whatever the backend and the
number of workers, so a file written from them is the same everywhere as long
as each task is a pure function of its value.  Randomness belongs in the task
value: give every task the seed :func:`derive_seed` computes from the run's
seed and the task's key (never a shared generator, a counter, or the worker's
identity), and the same run seed gives the same file on either backend and
any worker count.
"""

from __future__ import annotations

import abc
import hashlib
import importlib
import logging
import operator
import os
import socket
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from multiprocessing.pool import Pool

__all__ = ["Backend", "BackendError", "LocalBackend", "RayBackend", "get_backend",
           "derive_seed", "BACKENDS", "RAY_INSTALL_HINT"]

T = TypeVar("T")
R = TypeVar("R")
_B = TypeVar("_B", bound="Backend")

#: The names :func:`get_backend` knows.
BACKENDS = ("local", "ray")

#: How to get Ray, quoted in the error when it is missing.
RAY_INSTALL_HINT = 'pip install "fastplay[ray]"'

#: Ray tasks in flight per worker: enough to keep every CPU busy while the
#: oldest result is awaited, few enough that a 100k-task map holds only a few
#: hundred object references at a time.
RAY_IN_FLIGHT_PER_WORKER = 4

#: Seconds allowed to open a TCP connection to a ``HOST:PORT`` Ray address
#: before ``ray.init`` is called (Ray itself retries an unreachable address for
#: minutes).
RAY_CONNECT_TIMEOUT = 5.0

#: The logger of Ray's "token authentication is enabled" notice.
_RAY_AUTH_LOGGER = "ray._private.authentication.authentication_token_setup"


class BackendError(RuntimeError):
    """A backend could not start (Ray missing, an unreachable address, ...),
    or a task raised: then the message names the task's index and its
    exception (``task 3 failed: ValueError: ...``), which is the ``__cause__``."""


def derive_seed(seed: int, *parts: str | int) -> int:
    """The seed of one task: a pure function of the run's seed and the task's key.

    This is the rule for task seeds.  The result (in ``[0, 2**63)``) is the
    first 8 bytes of the SHA-256 of ``seed`` and ``parts`` (ints written in
    decimal, strings as their ``repr``, joined by ``"\\x1f"``), shifted right
    by one bit.  It depends on nothing but its arguments -- not the worker
    count, the backend or the order in which tasks run -- and ``1`` and
    ``"1"`` are different parts.  Integer-like values (``numpy.int64``) count
    as ints; anything else is a ``TypeError``.
    """
    fields = [str(operator.index(seed))]
    for part in parts:
        if isinstance(part, str):
            fields.append(repr(part))
        else:
            try:
                fields.append(str(operator.index(part)))
            except TypeError:
                raise TypeError(f"derive_seed parts are str or int, not "
                                f"{type(part).__name__}: {part!r}") from None
    digest = hashlib.sha256("\x1f".join(fields).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _task_error(index: int, exc: BaseException) -> BackendError:
    """The error for task ``index`` that raised ``exc``."""
    text = str(exc)
    return BackendError(f"task {index} failed: {type(exc).__name__}" + (f": {text}" if text else ""))


def _check_workers(workers: int | None) -> int | None:
    if workers is not None and (isinstance(workers, bool) or operator.index(workers) < 1):
        raise ValueError(f"workers must be a positive integer, not {workers!r}")
    return workers


class Backend(abc.ABC):
    """Runs a module-level function over independent tasks; a context manager
    (``with`` closes it).

    ``name`` is ``"local"`` or ``"ray"``; ``workers`` is the number of worker
    processes (for Ray, the CPUs requested or found in the cluster).
    """

    name: str
    workers: int

    def __enter__(self: _B) -> _B:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} workers={self.workers}>"

    @abc.abstractmethod
    def map(self, fn: Callable[[T], R], tasks: Sequence[T]) -> Iterator[R]:
        """``fn(task)`` for every task, yielded in task order as each becomes
        available (a caller can show progress), whatever the number of workers.

        ``fn`` must be a picklable module-level function, and the tasks and
        results picklable.  A task that raises ends the iteration with a
        :class:`BackendError` naming its index, after the results of all the
        tasks before it were yielded.  Stopping early (``break`` out of the
        loop, so that the iterator is dropped) drops the work still queued.
        """

    @abc.abstractmethod
    def close(self) -> None:
        """Release the workers; idempotent.  The backend cannot map afterwards."""


def _in_process(fn: Callable[[T], R], tasks: Iterable[T]) -> Iterator[R]:
    """``map`` in this process, a task's exception turned into a BackendError."""
    for index, task in enumerate(tasks):
        try:
            result = fn(task)
        except Exception as exc:
            raise _task_error(index, exc) from exc
        yield result


class LocalBackend(Backend):
    """Processes on this machine.

    ``workers`` (default ``os.cpu_count()``) processes of a ``multiprocessing``
    pool with the ``spawn`` start method (the parent may run threads, such as
    tqdm's monitor, which ``fork`` would copy mid-state); each task is sent
    alone (``imap``, ``chunksize=1``).  The pool starts on the first map that
    needs it and serves the later ones until :meth:`close`.  With one worker,
    or a single task, tasks run in this process and no pool is started.  A map
    that ends early (a task's error, or the caller stops iterating) terminates
    the pool so no abandoned work goes on; the next map starts a new one.
    """

    name = "local"

    def __init__(self, workers: int | None = None) -> None:
        self.workers = _check_workers(workers) or os.cpu_count() or 1
        self._pool: Pool | None = None
        self._closed = False

    def map(self, fn: Callable[[T], R], tasks: Sequence[T]) -> Iterator[R]:
        if self._closed:
            raise BackendError("the local backend is closed")
        if self.workers == 1 or len(tasks) <= 1:
            return _in_process(fn, tasks)
        return self._pooled(fn, tasks)

    def _pooled(self, fn: Callable[[T], R], tasks: Sequence[T]) -> Iterator[R]:
        if self._pool is None:
            import multiprocessing

            self._pool = multiprocessing.get_context("spawn").Pool(self.workers)
        pool, index, finished = self._pool, 0, False
        try:
            results = pool.imap(fn, tasks, chunksize=1)
            while True:
                try:
                    result = next(results)
                except StopIteration:
                    break
                except Exception as exc:
                    raise _task_error(index, exc) from exc
                yield result
                index += 1
            finished = True
        finally:
            if not finished and self._pool is pool:
                self._pool = None
                pool.terminate()
                pool.join()

    def close(self) -> None:
        self._closed = True
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()
            pool.join()


def _import_ray() -> Any:
    """The ``ray`` module, or a BackendError saying how to install it."""
    try:
        return importlib.import_module("ray")
    except ImportError as exc:
        raise BackendError(f"the ray backend needs Ray, which is not installed "
                           f"({exc}): {RAY_INSTALL_HINT}") from exc


def _probe(address: str) -> None:
    """Fail fast (BackendError) when ``HOST:PORT`` does not accept connections."""
    host_port = address.removeprefix("ray://")
    host, sep, port = host_port.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise BackendError(f"bad Ray address {address!r}: use 'auto' or HOST:PORT")
    try:
        socket.create_connection((host.strip("[]"), int(port)), RAY_CONNECT_TIMEOUT).close()
    except OSError as exc:
        raise BackendError(f"cannot reach the Ray cluster at {address}: {exc}") from exc


def _apply(fn: Callable[[T], R]) -> Callable[[T], R]:
    """A plain Python function calling ``fn``: ``ray.remote`` takes only
    Python functions (not builtins such as ``math.factorial``)."""
    def apply(task: T) -> R:
        return fn(task)
    # Ray names the task after the function: fn's name, not "apply", in its logs.
    apply.__name__ = getattr(fn, "__name__", apply.__name__)
    apply.__qualname__ = getattr(fn, "__qualname__", apply.__name__)
    return apply


class RayBackend(Backend):
    """Ray tasks, on a Ray instance started here or on a cluster.

    * ``address=None``: start a Ray instance on this machine with ``workers``
      CPUs (default ``os.cpu_count()``), no dashboard, workers' output not
      forwarded; :meth:`close` shuts it down.
    * ``address="auto"`` or ``"HOST:PORT"``: connect to that running cluster
      (a ``HOST:PORT`` that refuses connections fails at once); ``workers``
      defaults to the cluster's CPUs and bounds the tasks in flight;
      :meth:`close` disconnects and leaves the cluster running.
    * Ray already initialised in this process (the caller ran ``ray.init``):
      use it, whatever ``address`` says, and leave it initialised on close.

    Ray is imported here, not when fastplay is: without it the constructor
    raises :class:`BackendError` with the install hint.  Each distinct ``fn``
    becomes a remote function once; at most ``RAY_IN_FLIGHT_PER_WORKER *
    workers`` tasks are submitted and not yet yielded at any time.  Ray's
    workers import ``fn``'s module by name, without this process's additions
    to ``sys.path``: it must be in an installed package (fastplay's own task
    functions are) or the working directory.
    """

    name = "ray"

    def __init__(self, workers: int | None = None, address: str | None = None) -> None:
        _check_workers(workers)
        ray = _import_ray()
        self._ray = ray
        self._owned = False  # this backend called ray.init, and close() calls ray.shutdown
        if not ray.is_initialized():
            if address is None:
                self._start_local(workers or os.cpu_count() or 1)
            else:
                self._connect(address)
            self._owned = True
        self.workers = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        self._remotes: dict[Callable[..., Any], Any] = {}
        self._closed = False

    def _start_local(self, cpus: int) -> None:
        # A new local instance turns on token authentication and logs a warning
        # saying so (Ray >= 2.5x); the instance is private to this process, so
        # the notice is dropped.  (RAY_AUTH_MODE=token, the same mode, would
        # also silence it but must be set before ray is imported.)
        notice = logging.getLogger(_RAY_AUTH_LOGGER)
        level = notice.level
        notice.setLevel(logging.ERROR)
        try:
            self._ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False,
                           logging_level=logging.WARNING)
        except Exception as exc:
            raise BackendError(f"cannot start a local Ray instance: {exc}") from exc
        finally:
            notice.setLevel(level)

    def _connect(self, address: str) -> None:
        if address != "auto":
            _probe(address)
        try:
            self._ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
        except Exception as exc:
            raise BackendError(f"cannot connect to the Ray cluster at {address}: {exc}") from exc

    def _remote(self, fn: Callable[[T], R]) -> Any:
        remote = self._remotes.get(fn)
        if remote is None:
            remote = self._remotes[fn] = self._ray.remote(_apply(fn))
        return remote

    def map(self, fn: Callable[[T], R], tasks: Sequence[T]) -> Iterator[R]:
        if self._closed:
            raise BackendError("the ray backend is closed")
        return self._results(self._remote(fn), tasks)

    def _results(self, remote: Any, tasks: Sequence[T]) -> Iterator[Any]:
        limit = RAY_IN_FLIGHT_PER_WORKER * self.workers
        pending: deque[Any] = deque()  # the refs of tasks first, first+1, ...
        first = 0
        try:
            for task in tasks:
                pending.append(remote.remote(task))
                if len(pending) >= limit:
                    yield self._get(first, pending.popleft())
                    first += 1
            while pending:
                yield self._get(first, pending.popleft())
                first += 1
        finally:
            for ref in pending:  # abandoned: an error, or the caller stopped early
                try:
                    self._ray.cancel(ref)
                except Exception:  # noqa: BLE001 - best effort; the task may be done
                    pass

    def _get(self, index: int, ref: Any) -> Any:
        try:
            return self._ray.get(ref)
        except self._ray.exceptions.RayError as exc:
            cause = getattr(exc, "cause", None)
            error = cause if isinstance(cause, BaseException) else exc
            raise _task_error(index, error) from exc

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._remotes.clear()
        if self._owned:
            self._ray.shutdown()

    def __repr__(self) -> str:
        return f"<RayBackend workers={self.workers} owned={self._owned}>"


def get_backend(name: str = "local", *, workers: int | None = None,
                address: str | None = None) -> Backend:
    """The backend called ``name`` (``"local"`` or ``"ray"``).

    ``workers`` is the number of worker processes (default: this machine's
    CPUs; for a Ray cluster, its CPUs); ``address`` is a Ray cluster's
    (``"auto"`` or ``"HOST:PORT"``), for ``"ray"`` only.  A bad argument is a
    ``ValueError``; a backend that cannot start is a :class:`BackendError`.
    """
    if name not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}: choose one of {', '.join(BACKENDS)}")
    _check_workers(workers)
    if name == "local":
        if address is not None:
            raise ValueError(f"an address ({address!r}) is for the ray backend, not local")
        return LocalBackend(workers)
    return RayBackend(workers, address)
