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
"""

from __future__ import annotations

import signal
import threading

__all__ = ["block_signals"]

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
