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

import select
import threading
from collections.abc import Callable
from typing import IO, Any

from fastplay._threads import block_signals

__all__ = ["watch_output"]

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
