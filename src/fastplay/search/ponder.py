"""Pondering: thinking on the opponent's time in a background thread.

As AlphaGo and most engines do, the search goes on after its move, from the
position where the opponent is to move; the next search reuses the subtree
of the move actually played.  This module owns the thread, its stop event
and the error it may leave; the driver decides what to search.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from fastplay import _threads

__all__ = ["Ponderer"]


class Ponderer:
    """One background thread at a time, started and stopped from any thread."""

    def __init__(self) -> None:
        self._lock = threading.RLock()     # guards the hand-over of the thread
        self._thread: _threads.Worker | None = None
        self._stop = threading.Event()
        self._error: BaseException | None = None

    def start(self, work: Callable[[threading.Event], None]) -> None:
        """Stop any ponder (its error is dropped), then run ``work(stop)`` in a
        new daemon thread; ``stop`` is set by :meth:`stop`."""
        with self._lock:
            self.stop()
            self._stop.clear()
            self._error = None

            def run() -> None:
                try:
                    work(self._stop)
                except BaseException as exc:  # noqa: BLE001 - handed to stop()'s caller
                    self._error = exc

            thread = _threads.Worker(run, "fastplay-ponder", owner=self)
            self._thread = thread
            thread.start()

    def after_fork(self) -> bool:
        """In a child process forked while the ponder thread ran (it does not
        exist there): forget the thread and its locks, and return True (the
        owner's state may be half-way through a change); else False."""
        thread = self._thread
        if thread is None or not thread.lost_in_fork:
            return False
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread = None
        self._error = None
        return True

    def stop(self) -> BaseException | None:
        """Stop the ponder thread and wait for it (a no-op without one);
        return what it raised, if anything.  ``RuntimeError`` when called
        from the ponder's own threads (a plug-in it called: it would wait
        for itself, a tester's deadlock)."""
        if _threads.current_owner() is self:
            raise RuntimeError("the ponder's own threads (a plug-in it called) cannot stop it: "
                               "no search, new game or change of settings from there")
        with self._lock:
            thread = self._thread
            if thread is None:
                return None
            self._stop.set()
            thread.wait(finish=True)     # a Ctrl-C waits until it has let go of the tree
            self._thread = None
            error, self._error = self._error, None
            return error
