"""The analysis engine: queries in, answers out, many positions in flight.

:class:`AnalysisEngine` takes one input line at a time (:meth:`handle`),
answers actions at once and puts each turn of a query on a priority queue
(highest ``priority`` first, ties in arrival order, as KataGo's
``docs/Analysis_Engine.md`` says); ``analysis_threads`` workers take
positions off it and search them (:func:`.worker.analyse_position`).
Answers are written whole, one JSON object per line, as each is ready.
Nothing a client sends stops the engine: bad JSON, a non-object, a field of
the wrong type or an internal failure of one position is answered with an
``error`` and the engine reads on.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import sys
import threading
from dataclasses import dataclass, field
from typing import Any, TextIO

from fastplay._threads import Worker
from fastplay.analysis.query import Defaults, Query, QueryError, parse_query
from fastplay.analysis.respond import no_results
from fastplay.analysis.worker import analyse_position
from fastplay.search import SearchConfig
from fastplay.shown import LONE_SURROGATE

__all__ = ["AnalysisEngine", "ENGINE_VERSION"]

#: What ``query_version`` reports as ``version`` (fastplay's own).
ENGINE_VERSION = "fastplay"

#: Most positions waiting or searched at once over all queries: each holds its
#: board and moves, so that queries queued faster than they are answered
#: filled memory without bound (a tester's three 25x25 queries of 5,001 turns
#: took 2.35 GB).
MAX_QUEUED_POSITIONS = 10_000

#: Most characters of an error message: one quoting a 1 MB ``rules`` value
#: came back whole (a tester).
MESSAGE_CHARS = 300


def _echoed(answer: dict[str, Any]) -> dict[str, Any]:
    """``answer``, which echoes the client's text, with each lone surrogate
    as U+FFFD (a tester's ``"rules": "\\ud800"`` came back as it was: a pair
    is one character once parsed, so any surrogate left is lone)."""
    text = json.dumps(answer, ensure_ascii=False, allow_nan=False)
    if LONE_SURROGATE.search(text) is None:
        return answer
    cleaned: dict[str, Any] = json.loads(LONE_SURROGATE.sub("\ufffd", text))
    return cleaned


@dataclass(order=True)
class _Task:
    """One turn of one query, ordered by (-priority, arrival)."""

    key: tuple[int, int]
    query: Query = field(compare=False)
    index: int = field(compare=False)
    stop: threading.Event = field(compare=False, default_factory=threading.Event)

    @property
    def turn(self) -> int:
        return self.query.turns[self.index]


def _no_constant(name: str) -> Any:
    """``ValueError`` for ``NaN``, ``Infinity`` and ``-Infinity``, which are not
    JSON (RFC 8259) and which KataGo's parser refuses too; Python's ``json``
    would take them as floats (and fail to echo them in an answer)."""
    raise ValueError(f"{name} is not a JSON value")


def _json_int(text: str) -> int:
    """A JSON integer, or ``ValueError`` for one longer than Python converts
    (``sys.get_int_max_str_digits()``; whose own message advises the
    programmer to raise the limit, not the client to send a shorter number)."""
    limit = sys.get_int_max_str_digits()
    digits = len(text) - text.startswith("-")
    if limit and digits > limit:
        raise ValueError(f"a number of {digits} digits (at most {limit})")
    return int(text)


class AnalysisEngine:
    """KataGo's analysis protocol over fastplay's search.

    Args:
        out: where answers go (a text stream; each line is flushed).
        db: the playout policy (``None``: the default database).
        config: search options every query starts from.
        defaults: what a query does not say (visits, time, view, PV length,
            threads per position).
        analysis_threads: positions searched at the same time.
        seed: with a seed, the search of a position is a pure function of
            (seed, query id, turn) when it runs on one thread with a visit
            limit; ``None``: fresh randomness.
    """

    def __init__(self, out: TextIO, *, db: Any = None, config: SearchConfig | None = None,
                 defaults: Defaults = Defaults(), analysis_threads: int = 1,
                 seed: int | None = None) -> None:
        from fastplay.patterns import PatternDatabase

        self.out = out
        self.db = db if db is not None else PatternDatabase.default()
        self.config = config or SearchConfig()
        self.defaults = defaults
        self.seed = seed
        self._queue: list[_Task] = []
        self._running: list[_Task] = []
        self._arrivals = 0
        self._closed = False
        #: The output failed: answers are dropped and positions stopped.
        self.broken = False
        #: Why, unless the reader went away (a closed pipe is no error).
        self.write_error: OSError | ValueError | None = None
        self._cond = threading.Condition()
        self._write_lock = threading.Lock()
        self._workers = [Worker(self._work, f"fastplay-analysis-{i}")
                         for i in range(analysis_threads)]
        for worker in self._workers:
            worker.start()

    # -- output ----------------------------------------------------------------

    def write(self, answer: dict[str, Any]) -> None:
        """Write one answer as one line (finite numbers only) and flush.

        When the output is gone (the client closed its end), nobody can read
        an answer any more: every position is stopped and later answers are
        dropped, so that an orphaned engine does not search on."""
        text = json.dumps(answer, separators=(",", ":"), allow_nan=False)
        with self._write_lock:
            if self.broken:
                return
            try:
                self.out.write(text + "\n")
                self.out.flush()
                return
            except BrokenPipeError:
                self.broken = True
            except (OSError, ValueError) as exc:
                self.broken = True
                self.write_error = exc
        self.terminate(None)

    def _error(self, query_id: Any, field_name: str | None, message: str) -> None:
        answer: dict[str, Any] = {}
        if isinstance(query_id, str):
            answer["id"] = query_id
        if field_name is not None:
            answer["field"] = field_name
        if len(message) > MESSAGE_CHARS:
            message = f"{message[:MESSAGE_CHARS]}... ({len(message):,} characters)"
        answer["error"] = message
        self.write(_echoed(answer))

    # -- input -----------------------------------------------------------------

    def handle(self, line: str) -> None:
        """Read one input line: a query, an action, or something to refuse.
        Never raises (but ``KeyboardInterrupt``)."""
        if self.broken:
            return               # nobody reads the answers any more
        line = line.strip()
        if not line:
            return
        try:
            request = json.loads(line, parse_int=_json_int, parse_constant=_no_constant)
        except (ValueError, RecursionError) as exc:
            self._error(None, None, f"Could not parse request as JSON: {exc}")
            return
        if not isinstance(request, dict):
            self._error(None, None, "Request line was valid json but was not an object, "
                                    "ignoring: " + line[:200])
            return
        query_id = request.get("id")
        if not isinstance(query_id, str):
            self._error(None, None, 'Request must have a string "id" field')
            return
        try:
            query_id.encode("utf-8")
        except UnicodeEncodeError:
            # A lone surrogate (JSON's "\ud800"): refused now, not after a
            # search that could not name its answer.
            self._error(None, "id", 'The "id" field must be Unicode text (no lone surrogate)')
            return
        try:
            if "action" in request:
                self._action(request)
            else:
                self._enqueue(parse_query(request, self.defaults))
        except QueryError as exc:
            self._error(query_id, exc.field, exc.message)
        except Exception as exc:  # noqa: BLE001 - one bad query must not stop the engine
            self._error(query_id, None, f"internal error: {type(exc).__name__}: {exc}")

    def _action(self, request: dict[str, Any]) -> None:
        action = request["action"]
        if action == "query_version":
            import fastplay

            self.write(_echoed({**request, "version": fastplay.__version__,
                                "git_hash": "<omitted>", "engine": ENGINE_VERSION}))
        elif action == "clear_cache":
            self.write(_echoed(request))  # fastplay keeps no cache between positions
        elif action in ("terminate", "terminate_all"):
            target = request.get("terminateId")
            if action == "terminate" and not isinstance(target, str):
                raise QueryError("terminateId", 'Must specify a string "terminateId" field')
            turns = request.get("turnNumbers")
            if turns is not None and (not isinstance(turns, list) or not all(
                    isinstance(t, int) and not isinstance(t, bool) for t in turns)):
                raise QueryError("turnNumbers", "Must be an array of integers")
            self.write(_echoed(request))
            self.terminate(target if action == "terminate" else None,
                           None if turns is None else set(turns))
        else:
            raise QueryError("action", f"Unknown action: {action}")

    def _enqueue(self, query: Query) -> None:
        with self._cond:
            waiting = len(self._queue) + len(self._running)
        if waiting + len(query.turns) > MAX_QUEUED_POSITIONS:
            raise QueryError("analyzeTurns", f"{len(query.turns):,} positions asked with "
                             f"{waiting:,} waiting: at most {MAX_QUEUED_POSITIONS:,} at once "
                             "(wait for answers, or terminate)")
        for field_name, message in query.warnings:
            self.write({"id": query.id, "field": field_name, "warning": message})
        with self._cond:
            for index, priority in enumerate(query.priorities):
                self._arrivals += 1
                heapq.heappush(self._queue, _Task((-priority, self._arrivals), query, index))
            self._cond.notify_all()

    def terminate(self, query_id: str | None, turns: set[int] | None = None) -> None:
        """Stop the positions of ``query_id`` (``None``: of every query),
        only ``turns`` when given: a queued one is answered ``noResults`` now,
        a running one stops and answers with what it has."""

        def chosen(task: _Task) -> bool:
            return (query_id is None or task.query.id == query_id) and \
                (turns is None or task.turn in turns)

        with self._cond:
            dropped = [t for t in self._queue if chosen(t)]
            if dropped:
                self._queue = [t for t in self._queue if not chosen(t)]
                heapq.heapify(self._queue)
            for task in self._running:
                if chosen(task):
                    task.stop.set()
            self._cond.notify_all()
        for task in sorted(dropped):
            self.write(no_results(task.query.id, task.turn))

    # -- workers ---------------------------------------------------------------

    def _work(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._closed:
                    self._cond.wait()
                if not self._queue:
                    return
                task = heapq.heappop(self._queue)
                self._running.append(task)
            try:
                analyse_position(task.query, task.index, self.db, self.config,
                                 self._seed_for(task), task.stop, self.write)
            except Exception as exc:  # noqa: BLE001 - reported; the engine goes on
                self.write({"id": task.query.id, "turnNumber": task.turn,
                            "error": f"search failed: {type(exc).__name__}: {exc}"})
            finally:
                with self._cond:
                    self._running.remove(task)
                    self._cond.notify_all()

    def _seed_for(self, task: _Task) -> int | None:
        if self.seed is None:
            return None
        text = f"{self.seed}\0{task.query.id}\0{task.turn}".encode()
        return int.from_bytes(hashlib.blake2b(text, digest_size=7).digest(), "big")

    def pending(self) -> int:
        """Positions queued or being searched."""
        with self._cond:
            return len(self._queue) + len(self._running)

    def close(self, wait: bool = True) -> None:
        """No more input: finish every queued position (``wait``), or stop
        them all at once (each still gets its final answer); then return."""
        if not wait:
            self.terminate(None)
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        for worker in self._workers:
            worker.wait()
