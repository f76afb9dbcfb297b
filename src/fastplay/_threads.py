"""Signals and fastplay's own threads.

CPython runs signal handlers in the main thread only, but the kernel may
deliver a process's SIGINT (Ctrl-C) to any thread that does not block it.
On Python 3.11 for POSIX, a signal caught by another thread does not wake
the main thread's check for pending signals (``_PyEval_SignalReceived``
sets the flag but, outside Windows, not the "eval breaker" from a thread
that cannot handle signals), so a GTP engine idle in its main loop or
waiting for an analysis could ignore a Ctrl-C for good: py-spy dumps of
engines that did not exit (RESULTS.md, "Soak and endings") showed the main
thread waiting and the signal gone to a worker.  Every thread fastplay
starts therefore blocks the termination signals first, so that they always
reach the main thread (POSIX ``pthread_sigmask``; a no-op elsewhere).

That is not enough on its own: a signal that reaches the main thread just
before it blocks in a lock without a timeout (after the interpreter's last
check, before ``sem_wait``) is handled by C and then waited past for good.
The main thread's long waits therefore go through :func:`get` and
:func:`wait`, and for a thread's end :meth:`Worker.wait`, which wake every :data:`SIGNAL_POLL`
seconds so that the interpreter sees the pending signal (a guard from
reading CPython's lock code: the stalls traced so far had the causes
below, RESULTS.md "Soak and endings").  A thread that must have ended
before its caller goes on is a :class:`Worker`, not a ``Thread.join``.

Threads that libraries start while they load (OpenBLAS's pool, at numpy's
import) inherit the mask of the thread that loads them, and a Cython module
that uses memoryviews swallows a KeyboardInterrupt raised while it
initialises (its ``collections.abc.Sequence.register`` sits in a bare
``try/except``, cython/cython#4817; with numpy 2 the first ``np.random``
loads several such modules): the command line loads numpy and the compiled
core, numpy.random included, inside :func:`signals_blocked`, where a Ctrl-C
waits until they are loaded.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import queue
import signal
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

__all__ = ["block_signals", "signals_blocked", "get", "wait", "Worker", "run_all",
           "SIGNAL_POLL", "EXIT_WAIT", "stop_at_exit", "forget_at_exit"]

T = TypeVar("T")

#: Longest time (seconds) the main thread spends in one blocking call of
#: :func:`get` or :func:`wait` before it looks for signals.
SIGNAL_POLL = 0.2

#: The signals a worker thread leaves to the main thread.
MAIN_THREAD_SIGNALS = frozenset(
    s for s in (getattr(signal, "SIGINT", None), getattr(signal, "SIGTERM", None))
    if s is not None)


def block_signals() -> None:
    """Block :data:`MAIN_THREAD_SIGNALS` in the calling thread unless it is
    the main thread; call it first in a thread's target."""
    if threading.current_thread() is threading.main_thread() \
            or not hasattr(signal, "pthread_sigmask"):
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, MAIN_THREAD_SIGNALS)


@contextlib.contextmanager
def signals_blocked() -> Iterator[None]:
    """Block :data:`MAIN_THREAD_SIGNALS` in the calling thread for the
    ``with`` body and restore its mask after; threads started meanwhile keep
    the block.  A signal that arrives meanwhile stays pending and is taken
    when the body ends.  A no-op without ``pthread_sigmask``."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, MAIN_THREAD_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def get(lines: queue.Queue[T]) -> T:
    """``lines.get()``, waking every :data:`SIGNAL_POLL` seconds."""
    while True:
        try:
            return lines.get(timeout=SIGNAL_POLL)
        except queue.Empty:
            continue


def wait(event: threading.Event) -> None:
    """``event.wait()``, waking every :data:`SIGNAL_POLL` seconds."""
    while not event.wait(SIGNAL_POLL):
        pass


class Worker:
    """A daemon thread that runs ``target()`` with the termination signals
    blocked (:func:`block_signals`) and keeps its end in a flag of its own.

    ``Thread.join`` cannot tell when such a thread has ended once a Ctrl-C
    interrupted a join: CPython 3.11's ``Thread._wait_for_tstate_lock``
    then releases the running thread's lock and marks it ended
    (python/cpython#90882), so that a caller would clean up under a search
    that still runs.  :meth:`wait` reads the flag instead, and sleeps
    between two looks on a bare lock that the thread releases as it ends
    (``lock.acquire(timeout=...)``, which a Ctrl-C interrupts without harm:
    no ``Condition``, whose lock an interrupt at the wrong moment can leave
    held, bpo-29988), so that it returns as soon as the thread has ended
    rather than at the next look."""

    def __init__(self, target: Callable[[], object], name: str, poll: float = 0.005,
                 owner: object = None) -> None:
        """``poll``: longest time (seconds) between two looks at the flag in
        :meth:`wait` (the end wakes it at once; the looks catch a Ctrl-C and
        a wake-up lost to one).  ``owner``: what the thread works for, as
        :func:`current_owner` tells code running in it; by default the
        owner of the thread that makes the worker (a search's threads are
        its ponder's)."""
        self.owner = owner if owner is not None else current_owner()
        self._target = target
        self._poll = poll
        self._done = False
        self._ended = threading.Lock()
        self._ended.acquire()         # released by the thread as it ends
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        #: True in a child process forked while the thread ran: it does not
        #: exist there, so it counts as ended (:func:`_after_fork_in_child`).
        self.lost_in_fork = False
        _WORKERS.add(self)

    def _run(self) -> None:
        block_signals()
        _LOCAL.owner = self.owner
        try:
            self._target()
        finally:
            self._done = True
            self._ended.release()

    def start(self) -> None:
        """Start the thread (once)."""
        self._thread.start()

    @property
    def running(self) -> bool:
        """Started and not yet returned from ``target``."""
        return self._thread.ident is not None and not self._done

    def wait(self, timeout: float | None = None, *, finish: bool = False) -> bool:
        """Wait until ``target`` has returned (True; at once for a thread never
        started) or ``timeout`` seconds have passed (False).

        ``finish``: for a thread already told to stop, which ends within
        milliseconds and must not outlive its caller's clean-up: a
        ``KeyboardInterrupt`` meanwhile is held and raised once it has ended
        (and ``timeout`` is ignored)."""
        due = None if timeout is None or finish else time.monotonic() + timeout
        interrupted: KeyboardInterrupt | None = None
        while self.running:
            left = self._poll if due is None else min(self._poll, due - time.monotonic())
            if left <= 0:
                break
            try:
                if self._ended.acquire(timeout=left):
                    # Free again for any later wait; an interrupt between the
                    # two only makes later waits look at the flag each poll.
                    self._ended.release()
            except KeyboardInterrupt as exc:
                if not finish:
                    raise
                interrupted = interrupted or exc
        if interrupted is not None:
            raise interrupted
        return not self.running


_WORKERS: weakref.WeakSet[Worker] = weakref.WeakSet()
_LOCAL = threading.local()
_LOST: list[object] = []      # the owners of the workers the last fork lost


def current_owner() -> object:
    """The ``owner`` of the worker running this code (``None`` outside
    workers): a plug-in called in a ponder's threads must not wait for that
    ponder to stop (a tester's prior changed a setting there: a deadlock)."""
    return getattr(_LOCAL, "owner", None)


def _after_fork_in_child() -> None:
    """``os.register_at_fork``'s hook: a forked child has only the thread
    that forked, so every other running worker has ended there; without
    this its :meth:`Worker.wait` looked at a flag nobody would set (a
    tester's child of a pondering search hung in its first ``run``)."""
    me = threading.get_ident()
    _LOST.clear()
    for worker in list(_WORKERS):
        if worker.running and worker._thread.ident != me:
            worker.lost_in_fork = True
            worker._done = True
            worker._ended = threading.Lock()
            if worker.owner is not None:
                _LOST.append(worker.owner)


def lost_in_fork(owner: object) -> bool:
    """In a child process: whether a worker of ``owner`` was running when
    this process was forked (the fork's hooks of the owners ask)."""
    return any(lost is owner for lost in _LOST)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def run_all(targets: Sequence[Callable[[], object]], name: str, stop: Callable[[], None]) -> None:
    """Run each target on a :class:`Worker` of its own and wait for all.

    On an exception (a Ctrl-C) ``stop()`` is called and every started
    worker is waited for, through any further Ctrl-C, before the exception
    goes on: the callers' shared state (a search tree, a playout batch) must
    not be used while a worker still changes it, and a stopped worker ends
    within milliseconds.  Threads start inside the ``try``, so that a Ctrl-C
    between two starts still stops and waits for the first."""
    workers: list[Worker] = []
    try:
        for i, target in enumerate(targets):
            workers.append(Worker(target, f"{name}-{i}"))
            workers[-1].start()
        for worker in workers:
            worker.wait()
    except BaseException:
        stop()
        for worker in workers:
            with contextlib.suppress(KeyboardInterrupt):   # raised once it has ended
                worker.wait(finish=True)
        raise


#: Longest time (seconds) the interpreter's exit waits for a stopped worker
#: that :func:`stop_at_exit` holds.
EXIT_WAIT = 5.0

_AT_EXIT: dict[int, tuple[threading.Event, Worker]] = {}
_AT_EXIT_LOCK = threading.Lock()


def stop_at_exit(stop: threading.Event, worker: Worker) -> None:
    """Have the interpreter's exit set ``stop`` and wait (up to
    :data:`EXIT_WAIT` seconds) for ``worker``, until :func:`forget_at_exit`.

    A worker is a daemon thread, and once the interpreter finalises its
    modules a daemon thread no longer runs: the clean-up of an analysis
    generator left open at the end of a script (collected only then) waited
    for its search for ever (a tester).  ``atexit`` runs before that, while
    the worker still runs, so it can stop and end it there."""
    with _AT_EXIT_LOCK:
        if not _AT_EXIT:
            atexit.unregister(_stop_all)
            atexit.register(_stop_all)
        _AT_EXIT[id(worker)] = (stop, worker)


def forget_at_exit(worker: Worker) -> None:
    """Undo :func:`stop_at_exit` for ``worker`` (no error if it was not held)."""
    with _AT_EXIT_LOCK:
        _AT_EXIT.pop(id(worker), None)


def _stop_all() -> None:
    with _AT_EXIT_LOCK:
        held = list(_AT_EXIT.values())
    for stop, _ in held:
        stop.set()
    due = time.monotonic() + EXIT_WAIT
    for _, worker in held:
        worker.wait(max(0.0, due - time.monotonic()))
