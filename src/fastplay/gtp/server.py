"""Serving GTP on a pair of streams: one command at a time, streams for analysis.

Input is read on a thread of its own, so that a streaming answer
(``lz-analyze``) learns at once that a new line has come and ends: the
reader sets the engine's ``input_event`` for every line, and the server
clears it when it takes the last queued line.

At the end of input the command being answered still gets its answer (a
script may close its end after ``genmove``), unless the controller is gone
(:mod:`fastplay._outputwatch`: a controller that died, or a referee
killed; watched from the start, so an output closed while the input stays
open counts too): then the engine exits at once with status 0, instead of
thinking on for the whole of a long time budget.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
from collections.abc import Iterable, Iterator
from typing import IO, Any

from fastplay import _threads
from fastplay._outputwatch import stop_now, watch_output
from fastplay._threads import block_signals
from fastplay.gtp.engine import GTPEngine
from fastplay.gtp.protocol import Stream, log

__all__ = ["run"]


def _raw_lines(fd: int) -> Iterator[bytes]:
    """Lines (LF kept) read from a file descriptor with ``os.read``: a thread
    blocked here holds no lock of Python's buffered stdin, so the process can
    exit after ``quit`` while the controller keeps its end open (a daemon
    thread inside ``sys.stdin.buffer`` aborts the interpreter's shutdown)."""
    # Each chunk is split once and the pieces of a line joined once: adding
    # to one buffer and splitting it all again made a 40 MB line take 10 s
    # to read (a tester's), quadratic in its length.
    parts: list[bytes] = []
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        *complete, rest = chunk.split(b"\n")
        for piece in complete:
            parts.append(piece)
            yield b"".join(parts) + b"\n"
            parts = []
        if rest:
            parts.append(rest)
    if parts:
        yield b"".join(parts)


def _source_lines(source: Any) -> Iterable[bytes]:
    """The input's lines: through its file descriptor when it has one."""
    try:
        fd = source.fileno()
    except (AttributeError, OSError, ValueError):
        return source  # type: ignore[no-any-return]
    if not isinstance(fd, int):
        return source  # type: ignore[no-any-return]
    return _raw_lines(fd)


def _reader(source: Iterable[bytes], lines: queue.Queue[bytes | None], engine: GTPEngine,
            lock: threading.Lock) -> None:
    block_signals()
    try:
        for raw in source:
            with lock:
                lines.put(raw)
                engine.input_event.set()
    except (OSError, ValueError):
        pass  # input closed under us: the end of input
    finally:
        with lock:
            lines.put(None)          # end of input
            engine.input_event.set()


def _write_stream(out: IO[str], head: str, stream: Stream) -> None:
    """``head``, the stream's lines as they come, the empty line.  An error
    inside the stream (after ``=`` went out) ends it, reported on stderr."""
    out.write(head + "\n")
    out.flush()
    try:
        for text in stream.lines:
            if text:                 # an empty line would end the response early
                out.write(text + "\n")
                out.flush()
    except Exception as exc:  # noqa: BLE001 - the controller already has its "="
        log(f"analysis stopped: {type(exc).__name__}: {exc}")
    finally:
        close = getattr(stream.lines, "close", None)
        if close is not None:
            close()
    out.write("\n")
    out.flush()


def run(stdin: IO[Any] | Iterable[bytes] | None = None, stdout: IO[str] | None = None,
        engine: GTPEngine | None = None) -> int:
    """Serve GTP until ``quit`` or the end of input; returns the exit status (0).

    Input is read as bytes and split on LF only, so a CR in mid-line is
    removed by preprocessing instead of being taken for a line end.
    """
    source = stdin if stdin is not None else sys.stdin
    source = getattr(source, "buffer", source)
    out = stdout if stdout is not None else sys.stdout
    engine = engine if engine is not None else GTPEngine()
    lines: queue.Queue[bytes | None] = queue.Queue()
    lock = threading.Lock()
    done = threading.Event()
    # Nobody reads the answers any more: the session ends at once with
    # status 0, as at the end of input.
    watch_output(out, done, lambda: stop_now(
        "fastplay: the controller is gone (its end of the output closed): stopping"))
    threading.Thread(target=_reader, args=(_source_lines(source), lines, engine, lock),
                     daemon=True, name="fastplay-gtp-input").start()
    status = 0
    try:
        _serve(engine, lines, lock, out)
    except BrokenPipeError:
        # The controller closed our output: nobody reads the answers any more,
        # so the session ends as at the end of input (Python's "Note on
        # SIGPIPE": point the output at devnull so the final flush is quiet).
        _silence(out)
    except OSError as exc:
        # Any other failing write (a full disk, a descriptor not open for
        # writing): the answers are lost, so the session ends with an error.
        _silence(out)
        if sys.stderr is not None:
            print(f"fastplay: error: cannot write the answers: {exc.strerror or exc}",
                  file=sys.stderr)
        status = 2
    finally:
        done.set()
    engine.stop_pondering()
    return status


def _serve(engine: GTPEngine, lines: queue.Queue[bytes | None], lock: threading.Lock,
           out: IO[str]) -> None:
    """Answer the lines until ``quit`` or the end of input."""
    while True:
        raw = _threads.get(lines)      # wakes for a Ctrl-C (fastplay._threads)
        with lock:
            if lines.empty() and raw is not None:
                engine.input_event.clear()
        if raw is None:
            return
        response = engine.respond(raw)
        if response is None:
            continue
        if isinstance(response, str):
            out.write(response)
            out.flush()
        else:
            _write_stream(out, *response)
        if engine.quit_requested:
            return


def _silence(out: IO[str]) -> None:
    """Send what is still buffered for ``out`` (a closed pipe) to devnull."""
    try:
        fd = out.fileno()
    except (OSError, ValueError, AttributeError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)
