"""A referee for games between two external GTP engines, with match statistics.

``fastplay match "CMD A" "CMD B" --games N --size 9 --komi 7.5`` starts both
engines as subprocesses and plays ``N`` games, A taking Black in the even
games (0, 2, ...) and B in the odd ones.

Rules, as the summary states them:

* the referee keeps its own :class:`fastplay.Board` with positional superko;
  a move it finds illegal loses the game for the engine that made it (``+F``
  in SGF), and so does refusing a legal move of the opponent;
* an engine that does not answer ``genmove`` within ``move_timeout`` seconds,
  or that dies, loses (``+T`` / ``+F``) and is restarted for the next game;
* a game ends on two consecutive passes or a resignation (``+R``); after
  that no engine is asked for another move;
* the score is area scoring with komi, after the stones that a referee
  engine's ``final_status_list dead`` names are removed when ``--referee`` is
  given, else Tromp-Taylor with every stone on the board counted alive.

Statistics: the score fraction of engine A with a 95 % Wilson interval, the
Elo difference with the interval mapped through the logistic Elo curve, and
an optional sequential probability ratio test (SPRT) that stops the match as
soon as the evidence decides between two Elo hypotheses, as chess engine
testing does before accepting a new version.

The :class:`GTPClient` talks to one engine; its errors follow python-chess's
``chess.engine``: :class:`EngineError` for a failed command and
:class:`EngineTerminatedError` when the process is gone.
"""

from __future__ import annotations

import collections
import contextlib
import errno
import math
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from fastplay._threads import block_signals
from fastplay.match_clock import GameClock, TimeControl
from fastplay.shown import escape_controls, escape_format, exact_number, quoted

__all__ = [
    "EngineError",
    "EngineTerminatedError",
    "EngineTimeoutError",
    "GTPClient",
    "GameRecord",
    "MatchResult",
    "SPRT",
    "elo_from_score",
    "play_game",
    "rules_text",
    "run_match",
    "score_from_elo",
    "wilson_interval",
]

Z95 = 1.959963984540054  # two-sided 95 % normal quantile

# SGF result reasons
RESIGN, TIME, FORFEIT = "R", "T", "F"


#: The longest answer a referee reads from an engine; beyond it the answer
#: is an engine failure (a tester's engine printing ``=`` for ever grew the
#: referee's memory without limit).
MAX_ANSWER_LINES = 10_000
MAX_ANSWER_BYTES = 1 << 20

#: Most characters of an engine's ``name`` shown in summaries and records.
NAME_CHARS = 60


class EngineError(RuntimeError):
    """An engine answered ``? message`` or broke the protocol."""


class EngineTerminatedError(EngineError):
    """The engine process exited or closed its output."""


class EngineTimeoutError(EngineError):
    """The engine did not answer in time."""


class EngineRefusedError(EngineError):
    """The engine answered a command with a failure (``? message``)."""


class MatchSetupError(EngineError):
    """An engine refused a game's set-up (``boardsize``, ``clear_board`` or
    ``komi``): no game of the match can be played, so none is scored."""


#: ``GTPClient(stderr=TAIL)`` (the default): the engine's standard error is
#: read and dropped but for its last :data:`TAIL_LINES` lines, which an error
#: about its exit quotes (an engine that refuses its command line says why).
TAIL = "tail"
TAIL_LINES = 3


class GTPClient:
    """One GTP engine in a subprocess.

    ``command`` is a shell-like string (split with :func:`shlex.split`) or an
    argument list.  Responses are read by a background thread, so a stuck
    engine costs at most ``timeout`` seconds instead of hanging the referee.
    ``stderr``: where the engine's standard error goes (``Popen``'s values),
    or :data:`TAIL`.
    """

    def __init__(self, command: str | Sequence[str], *, name: str | None = None,
                 timeout: float = 30.0, stderr: IO[Any] | int | str | None = TAIL) -> None:
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise ValueError("empty engine command")
        self.label = name or Path(self.argv[0]).name
        self.timeout = timeout
        if isinstance(stderr, str) and stderr != TAIL:
            raise ValueError(f"stderr must be a file, a descriptor, None or {TAIL!r}, "
                             f"not {stderr!r}")
        self._stderr = stderr
        self._start()

    def _start(self) -> None:
        tail = isinstance(self._stderr, str)      # TAIL (checked in __init__)
        stream = subprocess.PIPE if isinstance(self._stderr, str) else self._stderr
        try:
            # A session of its own: the processes it starts are killed with
            # it (close), and a terminal's Ctrl-C is the referee's to handle.
            self.process = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stream,
                text=True, encoding="utf-8", errors="replace", bufsize=1,
                start_new_session=hasattr(os, "killpg"),
            )
        except OSError as exc:
            raise EngineTerminatedError(f"cannot start {self.argv[0]!r}: {exc.strerror or exc}") from None
        # Bounded: an engine that writes without end waits on its pipe
        # instead of filling this process's memory.
        self._lines: queue.Queue[str | None] = queue.Queue(maxsize=MAX_ANSWER_LINES)
        # Set once the engine's output has ended: the process may not be
        # reaped yet, so poll() alone would let a later send() wait forever.
        self._eof = False
        self._reader = threading.Thread(target=self._read,
                                        args=(self.process.stdout, self._lines), daemon=True)
        self._reader.start()
        self._tail: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)
        self._tail_reader: threading.Thread | None = None
        if tail:
            self._tail_reader = threading.Thread(
                target=self._keep_tail, args=(self.process.stderr, self._tail), daemon=True)
            self._tail_reader.start()

    @staticmethod
    def _keep_tail(stream: IO[str], tail: collections.deque[str]) -> None:
        """Drain ``stream`` in blocks (an engine writing without a line end
        costs no memory), keeping its last non-empty lines, 500 characters
        each at most."""
        block_signals()
        pending = ""
        while chunk := stream.read(8192):
            *lines, pending = (pending + chunk).split("\n")
            pending = pending[-500:]
            tail.extend(line.strip()[:500] for line in lines if line.strip())
        if pending.strip():
            tail.append(pending.strip())

    def _gone(self, what: str) -> EngineTerminatedError:
        """The error for an engine that is gone, with its last words on
        standard error when they are kept (:data:`TAIL`)."""
        if self._tail_reader is not None:
            self._tail_reader.join(timeout=0.5)     # what it wrote as it went
        words = " / ".join(self._tail)
        return EngineTerminatedError(f"{self.label} {what}" + (f" (it said: {words})"
                                                               if words else ""))

    @staticmethod
    def _read(stream: IO[str], lines: queue.Queue[str | None]) -> None:
        """Queue the engine's lines, each cut at ``MAX_ANSWER_BYTES + 1``
        characters: a longer one is refused by :meth:`send`, and the rest of
        the output is drained unkept (an engine writing without a line end
        grew this process by 2.5 GB in 3 s: a tester)."""
        block_signals()
        while line := stream.readline(MAX_ANSWER_BYTES + 1):
            lines.put(line)
            if len(line) > MAX_ANSWER_BYTES:
                while stream.read(1 << 16):
                    pass
                break
        lines.put(None)

    @property
    def alive(self) -> bool:
        """Whether the engine can still answer."""
        return not self._eof and self.process.poll() is None

    def restart(self) -> None:
        """Kill the process and start a fresh one (after a time-out or a crash)."""
        # A stuck engine would not read 'quit' anyway: don't wait for it.
        self.close(quit_first=False, timeout=0.1)
        self._start()

    def send(self, command: str, timeout: float | None = None) -> str:
        """Send one command; return the response text (after ``=``).

        Raises :class:`EngineError` on ``?`` and on an answer longer than
        ``MAX_ANSWER_LINES`` lines or ``MAX_ANSWER_BYTES`` characters,
        :class:`EngineTimeoutError` when the whole answer has not come
        within ``timeout`` seconds (default :attr:`timeout`; an engine
        writing line after line without ending its answer times out too),
        and :class:`EngineTerminatedError` when the engine is gone.
        """
        if not self.alive:
            raise self._gone("has exited")
        self._check_in_step(command)
        try:
            assert self.process.stdin is not None
            self.process.stdin.write(command + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._gone("closed its input") from None
        limit = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + limit
        response: list[str] = []
        size = 0
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise EngineTimeoutError(f"{self.label} did not answer {command!r} "
                                         f"within {limit:g} s") from None
            if line is None:
                self._eof = True
                raise self._gone(f"exited while answering {command!r}")
            size += len(line)
            if size > MAX_ANSWER_BYTES or len(response) >= MAX_ANSWER_LINES:
                raise EngineError(f"engine {self.label}: the answer to {command!r} is longer than "
                                  f"{MAX_ANSWER_LINES:,} lines or {MAX_ANSWER_BYTES:,} "
                                  f"characters")
            line = line.replace("\r", "").rstrip("\n")
            if not response:
                if not line.strip():
                    continue  # stray blank lines before a response are harmless
                response.append(line)
            elif line.strip():
                response.append(line)
            else:
                break
        head, body = response[0], "\n".join(response[1:])
        status, rest = head[0], head[1:]
        # Drop an echoed id, if any: "=12 D4" -> "D4".
        rest = rest.lstrip("0123456789")
        text = (rest.strip() + ("\n" + body if body else "")).strip()
        if status == "=":
            return text
        if status == "?":
            raise EngineRefusedError(f"engine {self.label}: {command!r} failed: {text}")
        raise EngineError(f"engine {self.label}: malformed response to {command!r}: {head!r}")

    def _check_in_step(self, command: str) -> None:
        """Raise :class:`EngineError` when the engine wrote more than the
        answers it was asked for (a second answer to one ``genmove``): every
        later answer would be read as the one before's, and the engine
        would lose for a move it never meant (a tester's engine lost as
        ``illegal move ''``).  Blank lines are harmless.  An extra answer
        still on its way when the next command goes out is not seen here
        (between moves the opponent's thinking leaves it the time)."""
        while True:
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                return
            if line is None:
                self._eof = True
                raise self._gone("has exited")
            if line.strip():
                raise EngineError(f"{self.label} wrote more than it was asked for, before "
                                  f"{command!r}: {quoted(line.rstrip())}")

    def close(self, *, quit_first: bool = True, timeout: float = 5.0) -> None:
        """Send ``quit`` (unless the engine is gone) and wait for the process to exit."""
        if quit_first and self.alive:
            try:
                self.send("quit", timeout=timeout)
            except EngineError:
                pass
        try:
            if self.process.stdin is not None:
                self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        _kill_group(self.process.pid)
        # Lines left unread: the reader thread may wait to queue one more
        # (the queue is bounded) and must reach the end of the output.
        for _ in range(100):
            try:
                while self._lines.get_nowait() is not None:
                    pass
                break                        # the end of the output: the reader is done
            except queue.Empty:
                if not self._reader.is_alive():
                    break
                self._reader.join(0.02)
        # The pipes' file objects, once their readers are done (an open one
        # left to the garbage collector is a ResourceWarning).
        if self._tail_reader is not None:
            self._tail_reader.join(0.5)
        for stream, reader in ((self.process.stdout, self._reader),
                               (self.process.stderr, self._tail_reader)):
            if stream is not None and reader is not None and not reader.is_alive():
                stream.close()

    def __enter__(self) -> GTPClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- one game -------------------------------------------------------------------


@dataclass
class GameRecord:
    """One finished game.  ``winner`` is ``"B"``, ``"W"`` or ``None`` for a draw."""

    black: str
    white: str
    size: int
    komi: float
    moves: list[tuple[str, str]] = field(default_factory=list)
    winner: str | None = None
    result: str = ""        # SGF RE value: "W+7.5", "B+R", "W+T", "B+F", "0"
    reason: str = ""        # why the game ended, for people
    dead: list[str] = field(default_factory=list)
    time_control: TimeControl | None = None
    #: Wall seconds each colour's ``genmove`` commands took (a clocked move's
    #: ``time_left`` included), clocked or not, and how many there were.
    time_used: dict[str, float] = field(default_factory=dict)
    genmoves: dict[str, int] = field(default_factory=dict)
    #: On a clock: the mover's ``(seconds, stones)`` left after each move of
    #: ``moves`` (``GameClock.time_left``), written as SGF ``BL``/``WL`` and,
    #: in byo-yomi, ``OB``/``OW``.
    clock_left: list[tuple[float, int]] = field(default_factory=list)

    def to_sgf(self) -> bytes:
        """The game as SGF (FF[4], passes ``[]``), written with sgfmill."""
        from sgfmill import common, sgf

        game = sgf.Sgf_game(size=self.size)
        root = game.get_root()
        root.set("KM", self.komi)
        root.set("RU", "Chinese")
        root.set("PB", self.black)
        root.set("PW", self.white)
        root.set("RE", self.result)
        root.set("AP", ("fastplay", _version()))
        if self.reason:
            root.set("C", self.reason)
        if self.time_control is not None:
            root.set("TM", self.time_control.main)
            if self.time_control.stones:
                root.set("OT", f"{self.time_control.stones}/{self.time_control.byo_yomi:g} "
                               "Canadian")
        for number, (color, vertex) in enumerate(self.moves):
            node = game.extend_main_sequence()
            point = common.move_from_vertex(vertex, self.size)
            if point is None:
                node.set_raw(color.upper(), b"")  # FF[4]'s pass (sgfmill writes [tt])
            else:
                node.set_move(color.lower(), point)
            if number < len(self.clock_left):
                seconds, stones = self.clock_left[number]
                node.set(f"{color.upper()}L", round(max(seconds, 0.0), 2))
                if stones:
                    node.set(f"O{color.upper()}", stones)
        data: bytes = game.serialise()  # sgfmill is untyped
        return data


def _version() -> str:
    import fastplay

    return fastplay.__version__


def _other(color: str) -> str:
    return "W" if color == "B" else "B"


def _loss(exc: EngineError) -> str:
    """Why an engine that raised ``exc`` lost: on time, or by forfeit."""
    return (TIME if isinstance(exc, EngineTimeoutError) else FORFEIT) + ":" + str(exc)


def _send_failure(engine: GTPClient, command: str, timeout: float | None = None) -> tuple[str | None, str | None]:
    """``(response, None)`` or ``(None, reason)``: why the engine lost, if it did."""
    try:
        return engine.send(command, timeout), None
    except EngineError as exc:
        return None, _loss(exc)


def play_game(black: GTPClient, white: GTPClient, *, size: int = 9, komi: float = 7.5,
              move_timeout: float = 60.0, max_moves: int | None = None,
              referee: GTPClient | None = None,
              time_control: TimeControl | None = None) -> GameRecord:
    """Play one game between two engines and return its record.

    Each engine is set up with ``boardsize``, ``clear_board`` and ``komi``
    (and ``time_settings`` under a ``time_control``, which the referee's
    clock enforces: see :mod:`fastplay.match_clock`).  The game ends on two
    consecutive passes, a resignation, an illegal move, a time-out or a
    fallen flag, an engine failure, or after ``max_moves`` moves (default
    ``3 * size * size``, scored as it stands).
    """
    from fastplay.board import Board, IllegalMoveError, InvalidVertexError

    record = GameRecord(black=black.label, white=white.label, size=size, komi=komi,
                        time_control=time_control)
    engines = {"B": black, "W": white}
    for color, engine in engines.items():
        failure = _set_up(engine, size, komi, time_control)
        if failure:
            return _lost(record, color, failure)
    clock = GameClock(time_control) if time_control is not None else None
    board = Board(size, komi=komi, superko=True)
    limit = max_moves if max_moves is not None else 3 * size * size
    color = "B"
    passes = 0
    record.time_used, record.genmoves = {"B": 0.0, "W": 0.0}, {"B": 0, "W": 0}
    while len(record.moves) < limit:
        started = time.monotonic()
        answer, failure = _genmove(engines[color], color, move_timeout, clock)
        record.time_used[color] += time.monotonic() - started
        record.genmoves[color] += 1
        if failure:
            return _lost(record, color, failure)
        assert answer is not None
        move = answer.split()[0].lower() if answer.split() else ""
        if move == "resign":
            record.winner = _other(color)
            record.result = f"{record.winner}+{RESIGN}"
            record.reason = f"{'Black' if color == 'B' else 'White'} resigned"
            return record
        try:
            board.play(move, color)
        except (IllegalMoveError, InvalidVertexError) as exc:
            return _lost(record, color, f"{FORFEIT}:illegal move {answer!r} ({exc.rule})")
        record.moves.append((color, "pass" if move == "pass" else move.upper()))
        if clock is not None:
            record.clock_left.append(clock.time_left(color))
        passes = passes + 1 if move == "pass" else 0
        if passes == 2:
            break
        _, failure = _send_failure(engines[_other(color)], f"play {color.lower()} {move}")
        if failure:
            return _lost(record, _other(color), failure)
        color = _other(color)
    record.reason = ("two consecutive passes" if passes == 2
                     else f"move limit {limit} reached")
    _score(record, board, referee)
    return record


def _check_playable(games: list[GameRecord]) -> None:
    """Raise :class:`MatchSetupError` when one engine has forfeited each of
    the first two games before a move of its own (it dies at set-up or at
    its first ``genmove`` every time): the games would all be forfeits, and
    a tester's 40 of them ended as "H0 accepted", status 0."""
    if len(games) != 2 or any(not g.result.endswith("+F") for g in games):
        return
    lost = [("W", g.white) if g.result.startswith("B") else ("B", g.black) for g in games]
    losers = {name for _, name in lost}
    if len(losers) == 1 and not any(c == color for g, (color, _) in zip(games, lost)
                                    for c, _ in g.moves):
        raise MatchSetupError(f"{losers.pop()} forfeited its first two games before any "
                              f"move ({games[-1].reason}); no game can be played")


def _kill_group(pid: int) -> None:
    """Kill what is left of the process group ``pid`` led (an engine's own
    child processes: a tester's wrapper left a ``sleep`` per engine start
    running after the match); nothing where there are no process groups."""
    if hasattr(os, "killpg"):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)


def _name(a: GTPClient, b: GTPClient) -> None:
    """Label the engines by their ``name`` answers (their commands' when
    they refuse it or are slow to start), told apart when equal.  Raises
    :class:`MatchSetupError` for an engine gone before its first game, or
    out of step from its first answer (too long, malformed): every game
    would be a forfeit (a tester's 20 forfeits ended as "H0 accepted",
    status 0; an endless ``name`` lost game 1 on time)."""
    for client in (a, b):
        try:
            # Shown on terminals and in records: no control or format
            # character, and no line's length of it (a tester's name held
            # ESC and LF; U+202E turned the rest of the line around).
            name = escape_format(escape_controls(" ".join(client.send("name").split())))
            name = name[:NAME_CHARS]
            client.label = name or client.label
        except (EngineRefusedError, EngineTimeoutError):
            pass
        except EngineError as exc:
            raise MatchSetupError(f"{exc}; no game can be played") from None
    if a.label == b.label:
        a.label, b.label = a.label + " (A)", b.label + " (B)"


def _set_up(engine: GTPClient, size: int, komi: float,
            time_control: TimeControl | None) -> str | None:
    """Board size, a cleared board, komi and the time settings; why the engine lost, if it did.

    An engine that refuses ``time_settings`` plays on (the referee's clock runs
    all the same); one that does not answer it in time, or dies, loses.  One
    that refuses the size, the clearing or the komi raises
    :class:`MatchSetupError`: every game would end so (a tester's match at
    komi 2000 scored forfeits as a 1-1 result)."""
    for command in (f"boardsize {size}", "clear_board", f"komi {exact_number(komi)}"):
        try:
            engine.send(command)
        except EngineRefusedError as exc:
            raise MatchSetupError(f"{exc}; no game can be played") from None
        except EngineError as exc:
            return _loss(exc)
    return _optional(engine, time_control.gtp()) if time_control is not None else None


def _optional(engine: GTPClient, command: str, timeout: float | None = None) -> str | None:
    """Send a command the engine may refuse (``?``); why it lost, if it did:
    no answer in time, or it died."""
    try:
        engine.send(command, timeout)
    except (EngineTimeoutError, EngineTerminatedError) as exc:
        return _loss(exc)
    except EngineError:
        pass
    return None


#: Seconds a clocked engine may overrun before the referee stops waiting (it
#: has lost on time by then; this only bounds a hung engine).
CLOCK_GRACE = 2.0


def _genmove(engine: GTPClient, color: str, move_timeout: float,
             clock: GameClock | None) -> tuple[str | None, str | None]:
    """``genmove`` for ``color``, on the clock when there is one: ``time_left``
    first, then the move timed from sending it to its answer."""
    command = f"genmove {color.lower()}"
    if clock is None:
        return _send_failure(engine, command, move_timeout)
    failure = _optional(engine, clock.gtp_time_left(color), move_timeout)
    if failure:
        return None, failure
    clock.start()
    answer, failure = _send_failure(engine, command, clock.available(color) + CLOCK_GRACE)
    if failure and not failure.startswith(TIME + ":"):
        return None, failure
    if not clock.stop(color) or failure:   # a hung engine's move is timed too
        return None, (f"{TIME}:out of time after {clock.sides[color].used:.1f} s "
                      f"({clock.control})")
    return answer, None


def _lost(record: GameRecord, loser: str, failure: str) -> GameRecord:
    kind, _, detail = failure.partition(":")
    record.winner = _other(loser)
    record.result = f"{record.winner}+{kind}"
    record.reason = f"{'Black' if loser == 'B' else 'White'} loses: {detail}"
    return record


def _stone_at(board: Any, vertex: str) -> bool:
    """Whether ``vertex`` is a well-formed point holding a stone (referees can be wrong)."""
    from fastplay.board import InvalidVertexError

    try:
        return board.get(vertex) is not None
    except InvalidVertexError:
        return False


def _score(record: GameRecord, board: Any, referee: GTPClient | None) -> None:
    """Area score after dead stones are settled (by the referee engine, if
    any).  A referee that fails (refuses, garbles, times out, exits) leaves
    the game scored by Tromp-Taylor, the failure said in its reason, and is
    started afresh for the next game: one referee's slip cost a tester's
    whole match."""
    settled = board
    how = "Tromp-Taylor"
    if referee is not None:
        try:
            named = _dead_stones(record, referee)
        except EngineError as exc:
            how = f"Tromp-Taylor: the referee failed: {exc}"
            with contextlib.suppress(EngineError, OSError):
                referee.restart()
        else:
            how = "referee's dead stones removed"
            record.dead = sorted(v for v in named if _stone_at(board, v))
            if record.dead:
                settled = board.copy()
                settled.setup(empty=record.dead)
    score = settled.score(record.komi)
    record.result = settled.result(record.komi)
    record.winner = None if score == 0 else ("B" if score > 0 else "W")
    record.reason += f"; area scoring ({how}): {record.result}"


def _dead_stones(record: GameRecord, referee: GTPClient) -> set[str]:
    """The referee's ``final_status_list dead`` after the game is replayed to
    it (upper case; not checked).  Raises :class:`EngineError`."""
    commands = [f"boardsize {record.size}", "clear_board", f"komi {exact_number(record.komi)}"]
    commands += [f"play {c.lower()} {v}" for c, v in record.moves]
    for command in commands:
        referee.send(command)
    return set(referee.send("final_status_list dead").upper().split())


# -- statistics -------------------------------------------------------------------


def wilson_interval(score: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``score`` observed over ``n`` games.

    Better than the normal interval near 0 and 1 and for small ``n``
    (E. B. Wilson, JASA 22, 1927).  ``n == 0`` gives ``(0, 1)``.
    """
    if n <= 0:
        return 0.0, 1.0
    denom = 1 + z * z / n
    centre = (score + z * z / (2 * n)) / denom
    half = z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def elo_from_score(score: float) -> float:
    """Logistic Elo difference for an expected score: ``400 log10(score / (1 - score))``."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return 400.0 * math.log10(score / (1.0 - score))


def score_from_elo(elo: float) -> float:
    """Expected score of a player ``elo`` points stronger (0.0 where the odds
    pass a float's range, some 123,000 points weaker)."""
    exponent = -elo / 400.0
    if exponent > 308.0:
        return 0.0
    odds: float = 10.0 ** exponent  # float ** float is typed Any (it may be complex)
    return 1.0 / (1.0 + odds)


@dataclass(frozen=True)
class SPRT:
    """Wald's sequential probability ratio test between two Elo hypotheses.

    H0: A is ``elo0`` stronger than B; H1: A is ``elo1`` stronger.  Each game
    is a Bernoulli trial with success probability ``score_from_elo(elo)``; a
    draw counts as half a win and half a loss.  The log-likelihood ratio

        LLR = W log(p1/p0) + L log((1-p1)/(1-p0))

    is compared with Wald's bounds ``log(beta/(1-alpha))`` (accept H0) and
    ``log((1-beta)/alpha)`` (accept H1) (A. Wald, Sequential Analysis, 1947).

    Raises:
        ValueError: unless ``elo0 < elo1`` (finite, with expected scores
            strictly between 0 and 1 as floats: within some +-6,000) and
            ``alpha``, ``beta`` > 0 with ``alpha + beta < 1`` (else the
            bounds cross, and the first game would decide).
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not -math.inf < self.elo0 < self.elo1 < math.inf:
            raise ValueError(f"an SPRT needs finite ELO0 < ELO1, not {self.elo0} and {self.elo1}")
        if not 0 < score_from_elo(self.elo0) < score_from_elo(self.elo1) < 1:
            # Beyond some 6,000 Elo a score rounds to 0 or 1 and its log fails.
            raise ValueError(f"an SPRT needs ELO0 and ELO1 whose expected scores are "
                             f"between 0 and 1 in floating point, not {self.elo0} and "
                             f"{self.elo1}")
        if not (0 < self.alpha and 0 < self.beta and self.alpha + self.beta < 1):
            raise ValueError(f"an SPRT needs alpha, beta > 0 and alpha + beta < 1, not "
                             f"{self.alpha} and {self.beta}")

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper) LLR bounds."""
        return (math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha))

    def llr(self, wins: float, losses: float, draws: float = 0) -> float:
        """Log-likelihood ratio of H1 against H0 for A's results."""
        p0, p1 = score_from_elo(self.elo0), score_from_elo(self.elo1)
        w, l = wins + draws / 2, losses + draws / 2
        return w * math.log(p1 / p0) + l * math.log((1 - p1) / (1 - p0))

    def decision(self, wins: float, losses: float, draws: float = 0) -> str | None:
        """``"H1"``, ``"H0"`` or ``None`` while undecided."""
        llr = self.llr(wins, losses, draws)
        lower, upper = self.bounds
        if llr >= upper:
            return "H1"
        if llr <= lower:
            return "H0"
        return None


@dataclass
class MatchResult:
    """Games and totals from engine A's point of view."""

    games: list[GameRecord] = field(default_factory=list)
    wins: int = 0
    losses: int = 0
    draws: int = 0
    sprt: SPRT | None = None
    sprt_decision: str | None = None

    @property
    def n(self) -> int:
        return self.wins + self.losses + self.draws

    def time_losses(self) -> dict[str, int]:
        """Games each engine (by label) lost on time or by a move time-out (``+T``)."""
        out: dict[str, int] = {}
        for game in self.games:
            if game.result.endswith("+T") and game.winner is not None:
                loser = game.white if game.winner == "B" else game.black
                out[loser] = out.get(loser, 0) + 1
        return out

    def seconds_per_move(self) -> dict[str, float]:
        """Each engine's (by label) mean wall seconds per ``genmove`` over the games
        (the ``time_left`` before a clocked move included)."""
        spent: dict[str, list[float]] = {}
        for game in self.games:
            for color, label in (("B", game.black), ("W", game.white)):
                total = spent.setdefault(label, [0.0, 0.0])
                total[0] += game.time_used.get(color, 0.0)
                total[1] += game.genmoves.get(color, 0)
        return {label: seconds / moves for label, (seconds, moves) in spent.items() if moves}

    @property
    def score(self) -> float:
        """A's score fraction, a draw counting half."""
        return (self.wins + 0.5 * self.draws) / self.n if self.n else 0.5

    def summary(self, name_a: str = "A", name_b: str = "B", rules: str = "") -> str:
        """A few lines for people: record, win rate with CI, Elo with CI, SPRT."""
        lo, hi = wilson_interval(self.score, self.n)
        lines = [
            f"{name_a} vs {name_b}: {self.n} games, +{self.wins} -{self.losses} ={self.draws}",
            f"{name_a} score {100 * self.score:.1f} % (95 % CI {100 * lo:.1f} .. {100 * hi:.1f} %, Wilson)",
            f"Elo difference {_elo_text(elo_from_score(self.score))} "
            f"(95 % CI {_elo_text(elo_from_score(lo))} .. {_elo_text(elo_from_score(hi))})",
        ]
        if self.sprt is not None:
            lower, upper = self.sprt.bounds
            llr = self.sprt.llr(self.wins, self.losses, self.draws)
            verdict = {"H1": f"H1 accepted (elo >= {self.sprt.elo1:g})",
                       "H0": f"H0 accepted (elo <= {self.sprt.elo0:g})"}.get(
                self.sprt_decision or "", "undecided")
            lines.append(f"SPRT elo0={self.sprt.elo0:g} elo1={self.sprt.elo1:g} "
                         f"alpha={self.sprt.alpha:g} beta={self.sprt.beta:g}: "
                         f"LLR {llr:.2f} in [{lower:.2f}, {upper:.2f}], {verdict}")
        if rules:
            lines.append(rules)
        return "\n".join(lines)


def _elo_text(elo: float) -> str:
    return f"{elo:+.0f}" if math.isfinite(elo) else ("+inf" if elo > 0 else "-inf")


def rules_text(size: int, komi: float, referee: bool,
               time_control: TimeControl | None = None) -> str:
    """The rules a match is played under, stated in its summary."""
    dead = ("dead stones from the referee engine's final_status_list (Tromp-Taylor in a "
            "game where the referee failed, as that game's line says)"
            if referee else "no dead-stone removal (Tromp-Taylor)")
    clock = f"; clocks {time_control}, a fallen flag loses" if time_control else ""
    return (f"Rules: {size}x{size}, komi {exact_number(komi)}, area scoring, {dead}, "
            f"positional superko{clock}; illegal moves, time-outs and engine failures lose.")


def run_match(engine_a: str | Sequence[str], engine_b: str | Sequence[str], *, games: int = 2,
              size: int = 9, komi: float = 7.5, sgf_dir: str | Path | None = None,
              sprt: SPRT | None = None, referee: str | Sequence[str] | None = None,
              move_timeout: float = 60.0, max_moves: int | None = None,
              progress: bool = True, time_control: TimeControl | None = None,
              on_game: Callable[[int, GameRecord], None] | None = None,
              result: MatchResult | None = None) -> MatchResult:
    """Play up to ``games`` games between two engine commands; A is Black first.

    Stops early when ``sprt`` reaches a decision.  Every engine gets ``quit``
    at the end, whatever happened.  Under a ``time_control`` the referee's
    clock decides time losses (:mod:`fastplay.match_clock`).  ``on_game``
    is called with each game's number (from 1) and record as it ends;
    ``result``, if given, is the one filled and returned, so that a caller
    keeps the games played when the match stops by an error or Ctrl-C.
    """
    from tqdm import tqdm

    if sgf_dir is not None:
        from fastplay.outputfile import writable_folder

        writable_folder(sgf_dir)
        if next(Path(sgf_dir).glob("game-*.sgf"), None) is not None:
            # Games are written game-0001.sgf, game-0002.sgf ...: an earlier
            # match's records (or links named so) would be replaced or
            # written through, one by one (a tester).
            raise FileExistsError(errno.EEXIST, "holds an earlier match's records (game-*.sgf): "
                                  "give another --sgf-dir", str(sgf_dir))
    clients: list[GTPClient] = []
    result = MatchResult(sprt=sprt) if result is None else result
    result.sprt = sprt
    try:
        a = GTPClient(engine_a, timeout=move_timeout)
        clients.append(a)
        b = GTPClient(engine_b, timeout=move_timeout)
        clients.append(b)
        ref = GTPClient(referee, timeout=move_timeout) if referee is not None else None
        if ref is not None:
            clients.append(ref)
        _name(a, b)
        bar = tqdm(total=games, disable=not progress, unit="game", leave=False)
        try:
            for index in range(games):
                black, white = (a, b) if index % 2 == 0 else (b, a)
                record = play_game(black, white, size=size, komi=komi,
                                   move_timeout=move_timeout, max_moves=max_moves, referee=ref,
                                   time_control=time_control)
                result.games.append(record)
                a_color = "B" if black is a else "W"
                if record.winner is None:
                    result.draws += 1
                elif record.winner == a_color:
                    result.wins += 1
                else:
                    result.losses += 1
                if sgf_dir is not None:
                    path = Path(sgf_dir) / f"game-{index + 1:04d}.sgf"
                    path.write_bytes(record.to_sgf())
                if on_game is not None:
                    on_game(index + 1, record)
                _check_playable(result.games)
                loser = {"B": white, "W": black}.get(record.winner or "")
                for client in (a, b):
                    # A timed-out engine may still answer later and a dead one
                    # cannot play: start afresh so the next game is in step.
                    failed = client is loser and record.result.endswith(("+T", "+F"))
                    if failed or not client.alive:
                        client.restart()
                bar.update(1)
                bar.set_postfix_str(f"+{result.wins} -{result.losses} ={result.draws}")
                if sprt is not None:
                    result.sprt_decision = sprt.decision(result.wins, result.losses, result.draws)
                    if result.sprt_decision is not None:
                        break
        finally:
            bar.close()
    finally:
        for client in clients:
            client.close()
    return result
