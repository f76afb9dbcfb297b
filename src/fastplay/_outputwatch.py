"""Noticing that a controller has gone: the reading end of our output closed.

An engine that answers on a pipe learns that its controller died only when
it next writes; one deep in a long search (a 39-hour ``time_settings``
budget, a query of millions of visits) writes nothing for hours and thinks
on as an orphan (a tester's ran 27 minutes).  A front end (``fastplay gtp``,
``fastplay analysis``) watches its output from its start:
``poll`` reports ``POLLERR`` on a pipe whose reader has closed (``POLLHUP``
on a terminal that hung up; a regular file reports neither), and the front
end stops its work.  Nothing is watched where ``select.poll`` does not exist
(Windows).
"""

from __future__ import annotations

import os
import select
import sys
import threading
from collections.abc import Callable
from typing import IO, Any, NoReturn

from fastplay._threads import block_signals

__all__ = ["watch_output", "stop_now"]

#: Milliseconds between two looks at the output.
POLL_MS = 250


def watch_output(out: IO[Any], done: threading.Event, gone: Callable[[], None]) -> None:
    """Start a daemon thread that calls ``gone()`` once (from that thread)
    when ``out``'s reading end has closed, unless ``done`` is set first.
    Nothing for an output without a file descriptor."""
    try:
        fd = out.fileno()
    except (OSError, ValueError, AttributeError):
        return
    poll = getattr(select, "poll", None)
    if poll is None or not isinstance(fd, int):
        return
    poller = poll()
    poller.register(fd, select.POLLERR | select.POLLHUP)

    def watch() -> None:
        block_signals()           # a Ctrl-C is the main thread's (fastplay._threads)
        while not done.is_set():
            if any(mask & (select.POLLERR | select.POLLHUP)
                   for _, mask in poller.poll(POLL_MS)):
                if not done.is_set():
                    gone()
                return

    threading.Thread(target=watch, daemon=True, name="fastplay-output-watch").start()


def stop_now(message: str) -> NoReturn:
    """End the process at once with status 0 after writing ``message`` on
    standard error (a closed or missing stderr loses the line, never the
    stop): the front ends' ``gone`` when nobody reads their answers any more.
    ``os._exit``, so no ignored SIGINT (a shell's background job), no search
    in the core and no half-written answer can hold it up (a tester's engine
    thought on with SIGINT ignored)."""
    try:
        if sys.stderr is not None:
            sys.stderr.write(message + "\n")
            sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(0)
