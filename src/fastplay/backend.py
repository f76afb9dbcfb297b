"""One interface for running many independent pure tasks, here or on Ray.

The heavy parts of fastplay (building a benchmark's reference, completing its
candidates) are lists of independent tasks: a module-level function applied
to picklable task values.  A :class:`Backend` runs them and yields the results
in task order::

    with get_backend("local", workers=4) as backend:
        for result in backend.map(solve, tasks):
            ...

* :class:`LocalBackend` (``"local"``, the default) uses processes on this
  machine: a ``concurrent.futures`` process pool started with ``spawn``.
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
import threading
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

__all__ = ["Backend", "BackendError", "LocalBackend", "RayBackend", "get_backend",
           "derive_seed", "BACKENDS", "RAY_INSTALL_HINT"]

T = TypeVar("T")
R = TypeVar("R")
_B = TypeVar("_B", bound="Backend")

#: The names :func:`get_backend` knows.
BACKENDS = ("local", "ray")

#: How to get Ray, quoted in the error when it is missing.
RAY_INSTALL_HINT = 'pip install "fastplay[ray]"'

#: Local tasks submitted and not yet yielded per worker (the same window as
#: Ray's): the workers never wait for work, and a map that ends early has at
#: most this many tasks to drop.
LOCAL_IN_FLIGHT_PER_WORKER = 4

#: Seconds a terminated local worker is given to exit before it is killed.
LOCAL_TERMINATE_TIMEOUT = 5.0

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


def _worker_died(index: int, exc: BaseException) -> BackendError:
    """The error for task ``index`` lost with a worker process that died."""
    return BackendError(f"task {index} failed: a worker process died (crashed, killed or exited) "
                        f"while this task or one in flight with it was unfinished "
                        f"({type(exc).__name__}: {exc})")


def _outcome(index: int, future: Future[R], closed: bool) -> R:
    """The result of task ``index`` once it is done, or its BackendError
    (``closed``: the backend was closed while the map was open).

    Only waiting can raise here (a KeyboardInterrupt goes through): whatever
    the task raised, even SystemExit, comes back as its BackendError.
    """
    try:
        error = future.exception()
    except CancelledError as exc:
        why = "the backend was closed" if closed else "its workers were stopped by another map"
        raise BackendError(f"task {index} was cancelled: {why}") from exc
    if error is None:
        return future.result()
    if isinstance(error, BrokenProcessPool):
        if closed:
            raise BackendError(f"task {index} was stopped: the backend was closed") from error
        raise _worker_died(index, error) from error
    raise _task_error(index, error) from error


def _submit(executor: ProcessPoolExecutor, fn: Callable[[T], R], task: T) -> Future[R]:
    """The future of ``fn(task)``; if it cannot be submitted (a broken pool),
    a future that holds the reason, the task's outcome in its turn."""
    try:
        return executor.submit(fn, task)
    except Exception as exc:  # noqa: BLE001 - reported as the task's error
        future: Future[R] = Future()
        future.set_exception(exc)
        return future


def _stop(executor: ProcessPoolExecutor) -> None:
    """Stop ``executor`` now: tasks not started cancelled, its processes
    terminated (killed if they do not exit) and joined, so no abandoned work
    goes on."""
    terminate = getattr(executor, "terminate_workers", None)  # Python >= 3.14
    processes = list((getattr(executor, "_processes", None) or {}).values())
    if terminate is not None:
        terminate()
    else:
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            try:
                process.terminate()
            except (ProcessLookupError, ValueError):  # gone already, or closed
                pass
    for process in processes:
        try:
            process.join(LOCAL_TERMINATE_TIMEOUT)
            if process.is_alive():
                process.kill()
                process.join(LOCAL_TERMINATE_TIMEOUT)
        except (ProcessLookupError, ValueError):
            pass


#: The local backends alive, stopped at exit when a map is still going (see
#: :func:`_stop_abandoned`).
_BACKENDS: weakref.WeakSet[LocalBackend] = weakref.WeakSet()
_exit_hook_lock = threading.Lock()
_exit_hook_registered = False


def _stop_abandoned() -> None:
    """At exit, stop the executors of maps that were never finished nor closed
    (a KeyboardInterrupt raised in the caller's loop, outside ``with``).

    It runs before ``concurrent.futures`` joins its executors' threads, which
    would otherwise wait for every task those maps had submitted.
    """
    for backend in list(_BACKENDS):
        if backend._maps:
            backend._discard(backend._executor)


def _register_exit_hook() -> None:
    global _exit_hook_registered
    with _exit_hook_lock:
        if _exit_hook_registered:
            return
        # The hook concurrent.futures itself uses: it runs at interpreter exit
        # before the threads are joined, last registered first -- so before
        # concurrent.futures' own (registered when it was imported, above).
        register = getattr(threading, "_register_atexit", None)
        if register is not None:
            try:
                register(_stop_abandoned)
            except RuntimeError:  # the interpreter is already shutting down
                return
        _exit_hook_registered = True


class LocalBackend(Backend):
    """Processes on this machine.

    ``workers`` (default ``os.cpu_count()``) processes of a
    ``concurrent.futures.ProcessPoolExecutor`` with the ``spawn`` start method
    (the parent may run threads, such as tqdm's monitor, which ``fork`` would
    copy mid-state).  Each task is submitted alone; at most
    ``LOCAL_IN_FLIGHT_PER_WORKER * workers`` tasks are submitted and not yet
    yielded at any time, and results are yielded in task order as they become
    available.  The executor starts on the first map that needs it and serves
    the later ones until :meth:`close`.  With one worker, or a single task,
    tasks run in this process and no executor is started.

    A worker process that dies (a crash, a kill such as the OOM killer's,
    ``os._exit``) ends the map with a :class:`BackendError` naming the first
    task not yet yielded and saying a worker died (``BrokenProcessPool``): the
    process pool cannot say which of the tasks in flight killed it.  A map
    that ends early (a task's error, a worker's death, the caller stops
    iterating, a KeyboardInterrupt) cancels the tasks not started and
    terminates the executor's processes so no abandoned work goes on; the next
    map starts a new executor.  :meth:`close` shuts idle workers down, and
    terminates them if a map is still going.
    """

    name = "local"

    def __init__(self, workers: int | None = None) -> None:
        self.workers = _check_workers(workers) or os.cpu_count() or 1
        self._executor: ProcessPoolExecutor | None = None
        self._maps = 0  # maps started and not finished (their generators are open)
        self._closed = False
        _BACKENDS.add(self)

    def map(self, fn: Callable[[T], R], tasks: Sequence[T]) -> Iterator[R]:
        if self._closed:
            raise BackendError("the local backend is closed")
        if self.workers == 1 or len(tasks) <= 1:
            return _in_process(fn, tasks)
        return self._pooled(fn, tasks)

    def _start(self) -> ProcessPoolExecutor:
        if self._executor is None:
            import multiprocessing

            _register_exit_hook()
            self._executor = ProcessPoolExecutor(
                max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"))
        return self._executor

    def _discard(self, executor: ProcessPoolExecutor | None) -> None:
        """Stop ``executor``; the next map starts a new one."""
        if executor is None:
            return
        if self._executor is executor:
            self._executor = None
        _stop(executor)

    def _submit_first(self, fn: Callable[[T], R], task: T) -> tuple[ProcessPoolExecutor, Future[R]]:
        """The executor for a map and the future of its first task.  An
        executor that broke while idle (a worker killed between maps) is
        replaced by a new one."""
        executor = self._start()
        try:
            return executor, executor.submit(fn, task)
        except BrokenProcessPool:
            self._discard(executor)
        executor = self._start()
        return executor, _submit(executor, fn, task)

    def _pooled(self, fn: Callable[[T], R], tasks: Sequence[T]) -> Iterator[R]:
        limit = LOCAL_IN_FLIGHT_PER_WORKER * self.workers
        pending: deque[Future[R]] = deque()  # the futures of tasks first, first+1, ...
        executor: ProcessPoolExecutor | None = None
        first, finished = 0, False
        self._maps += 1
        try:
            remaining = iter(tasks)
            executor, future = self._submit_first(fn, next(remaining))
            pending.append(future)
            for task in remaining:
                if len(pending) >= limit:
                    yield _outcome(first, pending.popleft(), self._closed)
                    first += 1
                pending.append(_submit(executor, fn, task))
            while pending:
                yield _outcome(first, pending.popleft(), self._closed)
                first += 1
            finished = True
        finally:
            self._maps -= 1
            if not finished:  # abandoned: an error, or the caller stopped early
                for future in pending:
                    future.cancel()
                self._discard(executor)

    def close(self) -> None:
        self._closed = True
        executor, self._executor = self._executor, None
        if executor is None:
            return
        if self._maps:  # a map still open would leave its tasks running
            _stop(executor)
        else:
            executor.shutdown(wait=True)


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
            # Abandoned (an error, or the caller stopped early): the tasks in
            # flight, at most ``limit``, run to their end unread, and Ray frees
            # their results with the last reference.  Not ``ray.cancel``: a
            # cancel that races with the task's completion aborts the whole
            # driver process (a failed RAY_CHECK, "Tried to complete task that
            # was not pending"; ray-project/ray#54846, open for Ray 2.x; a
            # tester saw it end the test suite without a word).
            pending.clear()

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
