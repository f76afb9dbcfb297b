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
"""

from __future__ import annotations

import math
import threading
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fastplay.benchmark.decisions import Position
from fastplay.benchmark.store import Benchmark

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
    """A GTP engine started from a command line; one process per thread."""

    def __init__(self, command: str, *, timeout: float = 120.0, reg_genmove: bool = False
                 ) -> None:
        from fastplay.match import GTPClient

        self.command, self.timeout, self.reg_genmove = command, timeout, reg_genmove
        self._local = threading.local()
        self._all: list[GTPClient] = []
        self._lock = threading.Lock()
        self.name = self._identify(self._engine())

    @staticmethod
    def _identify(engine: GTPClient) -> str:
        """``"NAME VERSION"`` from the engine's ``name`` and ``version``, else its program."""
        from fastplay.match import EngineError

        try:
            name = engine.send("name")
            try:
                version = engine.send("version")
            except EngineError:
                version = ""
        except EngineError:
            return engine.label
        return f"{name} {version}".strip() or engine.label

    def _engine(self) -> GTPClient:
        from fastplay.match import GTPClient

        engine: GTPClient | None = getattr(self._local, "engine", None)
        if engine is None or not engine.alive:
            engine = GTPClient(self.command, timeout=self.timeout)
            self._local.engine = engine
            with self._lock:
                self._all.append(engine)
        return engine

    def choose(self, position: Position) -> str:
        """Set the position up and ask; an engine that timed out is restarted
        (its late answer would be taken for the next one) and the error raised."""
        from fastplay.match import EngineTimeoutError

        engine = self._engine()
        try:
            return self._ask(engine, position)
        except EngineTimeoutError:
            engine.restart()
            raise

    def _ask(self, engine: GTPClient, position: Position) -> str:
        engine.send(f"boardsize {position.size}")
        engine.send("clear_board")
        engine.send(f"komi {position.komi:g}")
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


def choose_all(chooser: Chooser, benchmark: Benchmark, jobs: int = 1,
               progress: bool = False) -> list[Choice]:
    """The engine's answer at every decision, in order (``jobs`` threads)."""
    from fastplay.match import EngineError

    def one(index: int) -> Choice:
        try:
            answer = chooser.choose(benchmark.entries[index].decision.position)
        except (EngineError, TypeError, ValueError) as exc:
            return Choice(index, None, str(exc) or type(exc).__name__)
        return Choice(index, _normal(answer))

    indices = range(len(benchmark.entries))
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=len(indices), desc=chooser.name, unit="decision", leave=False,
                   disable=None)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        out = []
        for choice in pool.map(one, indices):
            out.append(choice)
            if progress:
                bar.update(1)
    if progress:
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
        out.append(Scored(choice.index, choice.move, value, error,
                          choice.move.upper() == best.move.upper(), kind))
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
