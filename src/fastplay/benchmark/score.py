"""``fastplay benchmark score``: an engine's Performance Rating on a benchmark.

For each decision the engine chooses a move; its **error** is the best
reference value of the decision minus the chosen move's reference value, in
win-probability units (the Go counterpart of a backgammon equity error).
The **Performance Rating** is the mean error times :data:`PR_SCALE` (500,
eXtreme Gammon's convention): PR 0 plays the reference's best move every
time, and an average loss of 0.01 win probability per decision is PR 5.

A resignation is valued 0 (the game is lost), as is a move that is not
legal; a decision the engine failed to answer (an error reply, a time-out)
is left out of the rating and counted.  A legal move without a reference is
first evaluated by a candidate-completion pass
(:func:`fastplay.benchmark.builder.complete`); without that pass it is
left out too (``"unrated"``).

Engines are GTP command lines (:class:`GTPChooser`: ``boardsize``,
``clear_board``, ``komi``, ``set_free_handicap`` for setup stones, ``play``
for each move, then ``genmove`` or ``reg_genmove``) or Python callables
``choose(board: fastplay.Board) -> str`` returning a GTP vertex, ``"pass"``
or ``"resign"`` for ``board.to_move`` (:class:`PythonChooser`).

A GTP engine that cannot start, exits at once or does not answer ``name``
within its time-out is an error of :class:`GTPChooser` itself (before any
decision is asked); one that fails later leaves that decision unanswered.
Whatever a chooser raises at a decision (any ``Exception``, or
``SystemExit``) leaves that decision unanswered with the exception's type
and text as its failure; a ``KeyboardInterrupt`` goes through.  The
time-out applies to GTP engines only: a Python callable runs in this
process and cannot be interrupted, so one that never returns stalls the score.
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fastplay.benchmark.decisions import Position
from fastplay.benchmark.store import Benchmark
from fastplay.shown import exact_number

if TYPE_CHECKING:
    from fastplay.match import GTPClient

__all__ = ["Chooser", "GTPChooser", "PythonChooser", "Choice", "Scored", "Summary",
           "choose_all", "score_choices", "summarize", "PR_SCALE", "BLUNDER", "Z95"]

#: PR = mean error x PR_SCALE (eXtreme Gammon's convention).
PR_SCALE = 500.0

#: An error above this (win probability) is a blunder.
BLUNDER = 0.10

#: Two-sided 95 % normal quantile, for the PR's confidence interval.
Z95 = 1.959964


class Chooser:
    """Something that picks a move in a position: the engine being scored."""

    name: str = "engine"

    def choose(self, position: Position) -> str:
        """A GTP vertex, ``"pass"`` or ``"resign"`` for ``position.to_play``."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the engine (default: nothing to do)."""


class PythonChooser(Chooser):
    """A Python callable ``choose(board) -> str`` (module docstring)."""

    def __init__(self, function: Callable[..., object], name: str | None = None) -> None:
        self.function = function
        self.name = name or str(getattr(function, "__name__", "python"))

    def choose(self, position: Position) -> str:
        move = self.function(position.board())
        if not isinstance(move, str):
            raise TypeError(f"{self.name} returned {type(move).__name__}, not a GTP vertex str")
        return move


class GTPChooser(Chooser):
    """A GTP engine started from a command line: one process per thread asking
    at the same time, kept in a pool of idle engines (the first is the one
    that answered ``name``), so ``jobs`` threads run at most ``jobs`` processes.

    Raises :class:`~fastplay.match.EngineError` naming ``command`` when the
    engine cannot start, exits, or does not answer ``name`` within ``timeout``.
    """

    def __init__(self, command: str, *, timeout: float = 120.0, reg_genmove: bool = False
                 ) -> None:
        from fastplay.match import EngineError, GTPClient

        self.command, self.timeout, self.reg_genmove = command, timeout, reg_genmove
        self._idle: list[GTPClient] = []
        self._all: list[GTPClient] = []
        self._lock = threading.Lock()
        try:
            first = self._start()
            self.name = self._identify(first)
        except EngineError as exc:
            for engine in self._all:  # gone or stuck: no 'quit' to wait for
                engine.close(quit_first=False, timeout=1.0)
            raise type(exc)(f"{command}: {exc}") from exc
        self._idle.append(first)

    @staticmethod
    def _identify(engine: GTPClient) -> str:
        """``"NAME VERSION"`` from the engine's ``name`` and ``version``, else its
        program (when it refuses them); an engine that exits or times out raises."""
        from fastplay.match import EngineError, EngineTerminatedError, EngineTimeoutError

        fatal = (EngineTerminatedError, EngineTimeoutError)
        try:
            name = engine.send("name")
        except fatal:
            raise
        except EngineError:
            return engine.label
        try:
            version = engine.send("version")
        except fatal:
            raise
        except EngineError:
            version = ""
        return f"{name} {version}".strip() or engine.label

    def _start(self) -> GTPClient:
        from fastplay.match import GTPClient

        engine = GTPClient(self.command, timeout=self.timeout)
        with self._lock:
            self._all.append(engine)
        return engine

    def _take(self) -> GTPClient:
        """An idle engine, or a new one when every engine is busy."""
        with self._lock:
            engine = self._idle.pop() if self._idle else None
        return self._start() if engine is None else engine

    def choose(self, position: Position) -> str:
        """Set the position up and ask; an engine that timed out is restarted
        (its late answer would be taken for the next one) and the error raised."""
        from fastplay.match import EngineError, EngineTimeoutError

        engine = self._take()
        try:
            if not engine.alive:
                engine.restart()
            return self._ask(engine, position)
        except EngineTimeoutError:
            with contextlib.suppress(EngineError):  # the next decision tries again
                engine.restart()
            raise
        finally:
            with self._lock:
                self._idle.append(engine)

    def _ask(self, engine: GTPClient, position: Position) -> str:
        engine.send(f"boardsize {position.size}")
        engine.send("clear_board")
        engine.send(f"komi {exact_number(position.komi)}")
        if position.black:
            engine.send("set_free_handicap " + " ".join(position.black))
        for colour, move in position.moves:
            engine.send(f"play {colour} {move}")
        verb = "reg_genmove" if self.reg_genmove else "genmove"
        return str(engine.send(f"{verb} {position.to_play}"))

    def close(self) -> None:
        with self._lock:
            for engine in self._all:
                engine.close(timeout=2.0)
            self._all.clear()
            self._idle.clear()


@dataclass(frozen=True)
class Choice:
    """What the engine answered at one decision: a move, or why it did not."""

    index: int
    move: str | None
    failure: str | None = None


def _normal(move: str) -> str:
    text = move.strip()
    lower = text.lower()
    return lower if lower in ("pass", "resign") else text.upper()


def _failure(exc: BaseException) -> str:
    """``"TYPE: TEXT"`` (or ``"TYPE"``) of what a chooser raised."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def choose_all(chooser: Chooser, benchmark: Benchmark, jobs: int = 1,
               progress: bool = False) -> list[Choice]:
    """The engine's answer at every decision, in order (``jobs`` threads; with
    one, the decisions are asked in this thread).

    Whatever the chooser raises at a decision (an ``Exception`` or a
    ``SystemExit``) leaves it unanswered, its failure the exception's type and
    text; a ``KeyboardInterrupt`` goes through, and the decisions not yet
    started are dropped.
    """
    def one(index: int) -> Choice:
        position = benchmark.entries[index].decision.position
        try:
            return Choice(index, _normal(chooser.choose(position)))
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - the decision's failure
            return Choice(index, None, _failure(exc))

    indices = range(len(benchmark.entries))
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=len(indices), desc=chooser.name, unit="decision", leave=False,
                   disable=None)
    out: list[Choice] = []
    pool = ThreadPoolExecutor(max_workers=jobs) if jobs > 1 else None
    answers: Iterator[Choice] = map(one, indices) if pool is None else pool.map(one, indices)
    try:
        for choice in answers:
            out.append(choice)
            if bar is not None:
                bar.update(1)
    finally:
        if pool is not None:  # after an interrupt, the decisions not started are dropped
            pool.shutdown(wait=len(out) == len(indices), cancel_futures=True)
        if bar is not None:
            bar.close()
    return out


@dataclass(frozen=True)
class Scored:
    """One scored decision."""

    index: int
    move: str
    value: float
    error: float
    best: bool
    kind: str  # "move", "resign", "illegal" or "unrated" (legal, no reference)


def _legal(position: Position, move: str) -> bool:
    try:
        return position.board().is_legal(move)
    except ValueError:  # not a vertex of this board
        return False


def score_choices(benchmark: Benchmark, choices: Sequence[Choice]) -> list[Scored]:
    """Errors of the answered decisions.

    Run candidate completion first: a legal move without a reference is
    kept as kind ``"unrated"`` (error 0), which :func:`summarize` leaves out.
    """
    out = []
    for choice in choices:
        if choice.move is None:
            continue
        entry = benchmark.entries[choice.index]
        best = entry.best
        value = entry.value_of(choice.move)
        kind = "move"
        if choice.move == "resign":
            kind, value = "resign", 0.0
        elif value is None and _legal(entry.decision.position, choice.move):
            kind, value = "unrated", best.value
        elif value is None:
            kind, value = "illegal", 0.0
        error = max(0.0, best.value - value)
        # A move tied with the best (equal reference values) is a best move.
        out.append(Scored(choice.index, choice.move, value, error,
                          kind == "move" and value >= best.value, kind))
    return out


@dataclass(frozen=True)
class Summary:
    """PR, its 95 % interval and the shares of best moves and blunders."""

    decisions: int
    pr: float
    low: float
    high: float
    best_share: float
    blunder_share: float

    def line(self, label: str) -> str:
        """One report line; a summary of no rated decision says so, not ``nan``."""
        if self.decisions == 0:
            return f"{label:<12}     0 decisions  (none rated: no PR)"
        return (f"{label:<12} {self.decisions:5d} decisions  PR {self.pr:6.2f} "
                f"[{self.low:.2f}, {self.high:.2f}]  best {100 * self.best_share:5.1f} %  "
                f"blunders {100 * self.blunder_share:5.1f} %")


def summarize(scored: Sequence[Scored]) -> Summary:
    """PR = mean error x 500 with a normal 95 % interval (module docstring);
    ``"unrated"`` decisions are left out."""
    scored = [s for s in scored if s.kind != "unrated"]
    n = len(scored)
    if n == 0:
        return Summary(0, math.nan, math.nan, math.nan, math.nan, math.nan)
    errors = [s.error for s in scored]
    mean = math.fsum(errors) / n
    sd = math.sqrt(math.fsum((e - mean) ** 2 for e in errors) / (n - 1)) if n > 1 else 0.0
    half = Z95 * sd / math.sqrt(n)
    return Summary(n, PR_SCALE * mean, PR_SCALE * max(0.0, mean - half),
                   PR_SCALE * (mean + half), sum(s.best for s in scored) / n,
                   sum(s.error > BLUNDER for s in scored) / n)


def breakdown(benchmark: Benchmark, scored: Sequence[Scored]) -> dict[str, Summary]:
    """The summary per phase (``opening``, ``middle``, ``endgame``)."""
    groups: dict[str, list[Scored]] = defaultdict(list)
    for s in scored:
        groups[benchmark.entries[s.index].decision.phase].append(s)
    order = ["opening", "middle", "endgame"]
    return {phase: summarize(groups[phase]) for phase in order if groups[phase]}
