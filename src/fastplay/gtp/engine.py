"""A Go Text Protocol (GTP version 2) engine on top of :class:`fastplay.Board`.

``fastplay gtp`` reads commands on standard input and answers on standard
output, so GoGui, Sabaki, KGS bridges, ``gogui-twogtp`` and fastplay's own
match referee (:mod:`fastplay.match`) can drive it.

Framing follows section 3 of the GTP 2 specification exactly:

* every input line is preprocessed: control characters other than HT and LF
  are removed (so CR LF line ends work), text from ``#`` on is a comment, HT
  becomes a space, and lines left empty get no response at all;
* a command is ``[id] command_name [arguments]``; the answer is
  ``=id result`` or ``?id message`` followed by one empty line;
* a bad command never stops the engine: it answers ``? message``.

Move generation is delegated to a *search* object with the interface of
:class:`fastplay.search.MCTS` (see :class:`Search`).  It is injected, so tests
can drive the engine with a deterministic stub; by default the real MCTS is
imported on first use, which keeps ``fastplay gtp`` quick to start and lets
every non-search command work even where the search is unavailable.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import IO, Any, Protocol

import fastplay
import numpy as np

from fastplay.board import Board, IllegalMoveError, format_vertex, parse_vertex
from fastplay.life import dead_strings, string_status

__all__ = [
    "DEAD_THRESHOLD",
    "GTPEngine",
    "GTPError",
    "Search",
    "parse_color",
    "preprocess",
    "run",
]

#: A string whose mean ownership, seen from its own colour, is below
#: ``-DEAD_THRESHOLD`` is dead (unless it is in seki: :func:`fastplay.life.dead_strings`).
DEAD_THRESHOLD = 0.5

#: Playouts spent on settling dead stones for ``final_score`` and
#: ``final_status_list`` when no per-move limit was configured.
SCORING_PLAYOUTS = 2000

ENGINE_NAME = "fastplay"

#: Largest |komi| accepted.  Scores are printed with one decimal, which a
#: float holds exactly only for komi-sized numbers; real komi is below 100.
MAX_KOMI = 1000.0

# Every byte below 0x20, and DEL, except HT (0x09) and LF (0x0A): GTP 2 §3.1.
_CONTROL = {c: None for c in (*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F)}


#: Largest time (seconds) or stone count a clock command accepts: about 116
#: days.  Beyond it a search would plan to think for years on one move.
MAX_CLOCK = 10_000_000


class GTPError(Exception):
    """A command failed; the message is sent to the controller after ``?``."""


def _check_clock(values: Sequence[int]) -> None:
    if min(values) < 0:
        raise GTPError("syntax error: negative time")
    if max(values) > MAX_CLOCK:
        raise GTPError(f"time settings above {MAX_CLOCK} (seconds or stones) are not supported")


class Search(Protocol):
    """What the engine needs from a search (:class:`fastplay.search.MCTS` has it).

    ``run`` returns an object with ``best_move`` (a GTP vertex, ``"pass"`` or
    ``"resign"``), ``winrate`` (for the side to move), ``children`` (objects
    with ``move``, ``visits``, ``winrate``, ``prior``, ``pv``) and
    ``ownership`` (``float32[size, size]``, +1 Black, row 0 the top row).
    """

    def run(self, board: Board, playouts: int | None = None,
            seconds: float | None = None) -> Any: ...

    def new_game(self) -> None: ...

    def set_time(self, main_time: float, byo_yomi_time: float, byo_yomi_stones: int) -> None: ...

    def time_left(self, color: str, seconds: float, stones: int) -> None: ...

    def ponder_start(self, board: Board) -> None: ...

    def ponder_stop(self) -> None: ...


def preprocess(line: str | bytes) -> str:
    """Apply the GTP 2 §3.1 preprocessing to one input line.

    Returns the cleaned line, ``""`` when nothing is left (no response is due).
    Bytes are decoded as UTF-8 with replacement: a stray byte must cost one
    ``? unknown command``, not the engine.
    """
    if isinstance(line, bytes):
        line = line.decode("utf-8", errors="replace")
    line = line.translate(_CONTROL)
    line = line.split("#", 1)[0]
    return line.replace("\t", " ").strip()


def parse_color(text: str) -> str:
    """``"b"``, ``"black"``, ``"W"``, ... as ``"B"`` or ``"W"``; :class:`GTPError` otherwise."""
    color = {"b": "B", "black": "B", "w": "W", "white": "W"}.get(text.lower())
    if color is None:
        raise GTPError("invalid color")
    return color


def _parse_int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise GTPError(f"syntax error: {what} must be an integer") from None


def _parse_float(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise GTPError(f"syntax error: {what} must be a number") from None
    if not math.isfinite(value):
        raise GTPError(f"syntax error: {what} must be finite")
    return value


def _args(args: Sequence[str], count: int) -> Sequence[str]:
    """The first ``count`` arguments; extra ones are ignored, as GNU Go does."""
    if len(args) < count:
        raise GTPError("syntax error: missing argument")
    return args[:count]


class GTPEngine:
    """A GTP version 2 engine: :meth:`handle` turns one input line into one response.

    Parameters
    ----------
    search:
        The move generator (see :class:`Search`).  ``None`` builds a
        :class:`fastplay.search.MCTS` on first use with ``search_factory``.
    search_factory:
        Called with no argument to build the search lazily; the default
        imports :mod:`fastplay.search` and uses ``patterns``/``pattern_file``.
    playouts, seconds:
        Per-move limits passed to ``search.run`` (``None``: the search's own
        time management decides).
    threads, seed, batch:
        Passed to the default MCTS (``batch``: playouts per leaf, ``None``
        for the search's default).
    patterns, pattern_file:
        Built-in database name (GNU Go's ``--mc-patterns``) or a ``.db`` file
        (``--mc-load-patterns``, which wins, as in GNU Go).
    ponder:
        Think on the opponent's time after each ``genmove``.
    prior:
        The default MCTS's ``prior_table`` (``"auto"``, ``None``, a learned
        prior's name or ``.npz`` file; :mod:`fastplay.prior`).
    evaluator, mix, eval_batch:
        The default MCTS's evaluator (``evaluator(boards) -> float[n]``, the
        side to move's win probabilities), its share ``1 - mix`` of the leaf
        value and the leaves per call (:class:`fastplay.search.SearchConfig`;
        ``None``: the config's defaults).
    size, komi:
        The initial game settings.
    """

    def __init__(
        self,
        search: Search | None = None,
        *,
        search_factory: Callable[[], Search] | None = None,
        playouts: int | None = None,
        seconds: float | None = None,
        threads: int = 1,
        seed: int | None = None,
        patterns: str | None = None,
        pattern_file: str | None = None,
        ponder: bool = False,
        batch: int | None = None,
        prior: Any = "auto",
        evaluator: Callable[[list[Board]], Any] | None = None,
        mix: float | None = None,
        eval_batch: int | None = None,
        size: int = 19,
        komi: float = 7.5,
    ) -> None:
        self._search = search
        self._search_factory = search_factory
        self.playouts = playouts
        self.seconds = seconds
        self.threads = threads
        self.seed = seed
        self.patterns = patterns
        self.pattern_file = pattern_file
        self.ponder = ponder
        self.batch = batch
        self.prior = prior
        self.evaluator = evaluator
        self.search_options: dict[str, Any] = {name: value for name, value in (("mix", mix),
                                                                ("eval_batch", eval_batch))
                               if value is not None}
        self._db: Any = None
        self.komi = float(komi)
        self.board = Board(size, komi=self.komi)
        self.quit_requested = False
        self._pondering = False
        # (zobrist hash, move number, size) -> dead stone vertices, so that
        # final_score followed by final_status_list searches only once.
        self._dead_cache: tuple[tuple[int, int, int], list[str]] | None = None
        self._commands: dict[str, Callable[[Sequence[str]], str]] = {
            "protocol_version": lambda args: "2",
            "name": lambda args: ENGINE_NAME,
            "version": lambda args: fastplay.__version__,
            "known_command": self._cmd_known_command,
            "list_commands": lambda args: "\n".join(self._commands),
            "quit": self._cmd_quit,
            "boardsize": self._cmd_boardsize,
            "clear_board": self._cmd_clear_board,
            "komi": self._cmd_komi,
            "play": self._cmd_play,
            "genmove": self._cmd_genmove,
            "reg_genmove": self._cmd_reg_genmove,
            "kgs-genmove_cleanup": self._cmd_genmove,
            "undo": self._cmd_undo,
            "showboard": lambda args: "\n" + str(self.board),
            "final_score": self._cmd_final_score,
            "final_status_list": self._cmd_final_status_list,
            "time_settings": self._cmd_time_settings,
            "time_left": self._cmd_time_left,
            "loadsgf": self._cmd_loadsgf,
            "list_stones": self._cmd_list_stones,
            "gogui-analyze_commands": lambda args: (
                "gfx/Ownership/fastplay-ownership\ngfx/Best moves/fastplay-best_moves"
            ),
            "fastplay-ownership": self._cmd_ownership,
            "fastplay-best_moves": self._cmd_best_moves,
        }

    # -- framing -------------------------------------------------------------

    def handle(self, line: str | bytes) -> str | None:
        """Answer one raw input line.

        Returns the complete response, ending in the empty line GTP requires
        (``"=id result\\n\\n"``), or ``None`` for a line that preprocessing
        leaves empty, which gets no response.
        """
        text = preprocess(line)
        if not text:
            return None
        words = text.split()
        cmd_id = ""
        if words[0].isascii() and words[0].isdigit():
            cmd_id = words.pop(0)
        if not words:
            return self._format(False, cmd_id, "syntax error: no command")
        name, args = words[0], words[1:]
        self.stop_pondering()
        handler = self._commands.get(name)
        if handler is None:
            return self._format(False, cmd_id, "unknown command")
        try:
            return self._format(True, cmd_id, handler(args))
        except GTPError as exc:
            return self._format(False, cmd_id, str(exc))
        except Exception as exc:  # noqa: BLE001 - a controller must always get an answer
            return self._format(False, cmd_id, f"internal error: {type(exc).__name__}: {exc}")

    @staticmethod
    def _format(success: bool, cmd_id: str, result: str) -> str:
        # An empty line ends a response, so one inside the result would cut it
        # short: drop them.
        lines = [ln.rstrip() for ln in result.split("\n")]
        body = "\n".join(ln for i, ln in enumerate(lines) if ln or i == 0)
        head = ("=" if success else "?") + cmd_id
        if body:
            head += body if body.startswith("\n") else " " + body
        return head + "\n\n"

    # -- board and game settings ------------------------------------------

    def _new_board(self, size: int) -> None:
        self.board = Board(size, komi=self.komi)
        self._dead_cache = None
        if self._search is not None:
            self._search.new_game()

    def _cmd_known_command(self, args: Sequence[str]) -> str:
        (name,) = _args(args, 1)
        return "true" if name in self._commands else "false"

    def _cmd_quit(self, args: Sequence[str]) -> str:
        self.quit_requested = True
        return ""

    def _cmd_boardsize(self, args: Sequence[str]) -> str:
        (text,) = _args(args, 1)
        size = _parse_int(text, "board size")
        try:
            self._new_board(size)
        except (ValueError, TypeError):
            raise GTPError("unacceptable size") from None
        return ""

    def _cmd_clear_board(self, args: Sequence[str]) -> str:
        self._new_board(self.board.size)
        return ""

    def _cmd_komi(self, args: Sequence[str]) -> str:
        (text,) = _args(args, 1)
        komi = _parse_float(text, "komi")
        if abs(komi) > MAX_KOMI:
            raise GTPError(f"komi out of range (|komi| <= {MAX_KOMI:g})")
        self.komi = komi
        self.board.komi = self.komi
        return ""

    def _cmd_play(self, args: Sequence[str]) -> str:
        color_text, vertex = _args(args, 2)
        color = parse_color(color_text)
        try:
            self.board.play(vertex.lower(), color)
        except IllegalMoveError as exc:
            if exc.rule in ("bad vertex", "off-board"):
                raise GTPError("invalid coordinate") from None
            raise GTPError("illegal move") from None
        return ""

    def _cmd_undo(self, args: Sequence[str]) -> str:
        try:
            self.board.undo()
        except IndexError:
            raise GTPError("cannot undo") from None
        return ""

    def _cmd_list_stones(self, args: Sequence[str]) -> str:
        (color_text,) = _args(args, 1)
        return " ".join(self._stones(parse_color(color_text)))

    def _stones(self, color: str) -> list[str]:
        """Stones of ``color`` in board order (top-left first)."""
        code = 1 if color == "B" else -1
        points = np.flatnonzero(self.board.to_numpy().ravel() == code)
        return [format_vertex(int(i), self.board.size) for i in points]

    def _cmd_loadsgf(self, args: Sequence[str]) -> str:
        (path,) = _args(args, 1)
        # GTP's move_number N means "up to, not including, move N", while
        # Board.from_sgf counts the moves played: N - 1 of them.
        played = None
        if len(args) > 1:
            number = _parse_int(args[1], "move number")
            if number < 1:
                raise GTPError("syntax error: move number must be at least 1")
            played = number - 1
        from fastplay.sgf import SGFError  # lazily: only loadsgf needs the SGF reader

        try:
            try:
                board = Board.from_sgf(path, move_number=played)
            except ValueError:
                if played is None:
                    raise
                # A move number past the end loads the whole game, as in GNU Go.
                board = Board.from_sgf(path)
        except OSError as exc:
            raise GTPError(f"cannot load file: {exc.strerror or exc}") from None
        except (SGFError, ValueError) as exc:
            raise GTPError(f"cannot load file: {exc}") from None
        self.board = board
        self.komi = float(board.komi)
        self._dead_cache = None
        if self._search is not None:
            self._search.new_game()
        return ""

    # -- time ------------------------------------------------------------------

    def _cmd_time_settings(self, args: Sequence[str]) -> str:
        main, byo, stones = _args(args, 3)
        values = (_parse_int(main, "main time"), _parse_int(byo, "byo-yomi time"),
                  _parse_int(stones, "byo-yomi stones"))
        _check_clock(values)
        self._get_search().set_time(*values)
        return ""

    def _cmd_time_left(self, args: Sequence[str]) -> str:
        color_text, seconds, stones = _args(args, 3)
        color = parse_color(color_text)
        # A controller may report an overdrawn clock as negative time: none left.
        values = (max(0, _parse_int(seconds, "time")), _parse_int(stones, "stones"))
        _check_clock(values)
        self._get_search().time_left(color, *values)
        return ""

    # -- search ----------------------------------------------------------------

    def _get_search(self) -> Search:
        if self._search is None:
            factory = self._search_factory or self._default_search
            try:
                self._search = factory()
            except ImportError as exc:
                raise GTPError(f"search not available: {exc}") from None
        return self._search

    def _default_search(self) -> Search:
        from fastplay.search import MCTS  # lazily: the GTP front end must start fast

        return MCTS(self.load_patterns(), threads=self.threads, seed=self.seed, batch=self.batch,
                    prior_table=self.prior, evaluator=self.evaluator, **self.search_options)

    def prepare(self) -> None:
        """Load the pattern database and build the search now, not inside the
        first ``genmove``, whose time limit they would eat (60-80 ms).

        Raises what :meth:`load_patterns` raises, and :class:`GTPError` when
        the search module cannot be imported.
        """
        self.load_patterns()
        self._get_search()

    def load_patterns(self) -> Any:
        """The pattern database chosen by ``pattern_file`` or ``patterns``.

        Raises the database's own errors (``OSError``, ``PatternSyntaxError``,
        ``ValueError`` for an unknown name) so the command line can report
        them before the engine starts.
        """
        if self._db is None:
            from fastplay.patterns import PatternDatabase

            if self.pattern_file is not None:
                self._db = PatternDatabase.from_file(self.pattern_file)
            else:
                self._db = (PatternDatabase.builtin(self.patterns) if self.patterns
                            else PatternDatabase.default())
        return self._db

    def _search_position(self, color: str) -> Board:
        """A copy of the board with ``color`` to move: GTP may ask either side."""
        board = self.board.copy()
        if board.to_move != color:
            board.to_move = color
        return board

    def _run_search(self, board: Board, playouts: int | None = None) -> Any:
        return self._get_search().run(board, playouts=playouts or self.playouts,
                                      seconds=None if playouts else self.seconds)

    def _generate(self, color: str) -> str:
        result = self._run_search(self._search_position(color))
        move = str(result.best_move)
        return "resign" if move.lower() == "resign" else move.lower()

    def _cmd_genmove(self, args: Sequence[str]) -> str:
        # kgs-genmove_cleanup shares this: the playouts score Tromp-Taylor, so
        # the search already captures dead stones before it passes.
        (color_text,) = _args(args, 1)
        color = parse_color(color_text)
        move = self._generate(color)
        if move != "resign":
            try:
                self.board.play(move, color)
            except IllegalMoveError as exc:
                raise GTPError(f"search proposed an illegal move {move} ({exc.rule})") from None
        if self.ponder and move != "resign":
            self._get_search().ponder_start(self.board.copy())
            self._pondering = True
        return _gtp_move(move)

    def _cmd_reg_genmove(self, args: Sequence[str]) -> str:
        (color_text,) = _args(args, 1)
        return _gtp_move(self._generate(parse_color(color_text)))

    def stop_pondering(self) -> None:
        """End the thinking on the opponent's time, if any (the next command has come)."""
        if self._pondering:
            self._pondering = False
            if self._search is not None:
                self._search.ponder_stop()

    # -- scoring -----------------------------------------------------------------

    def dead_stones(self) -> list[str]:
        """Dead stones by the search's ownership; none (Tromp-Taylor) without a search."""
        key = (self.board.zobrist_hash, self.board.move_number, self.board.size)
        if self._dead_cache is not None and self._dead_cache[0] == key:
            return self._dead_cache[1]
        try:
            search = self._get_search()
        except GTPError:
            dead: list[str] = []
        else:
            position = self.board.copy()
            result = search.run(position, playouts=self.playouts or SCORING_PLAYOUTS)
            dead = self._dead_from_ownership(result.ownership)
        self._dead_cache = (key, dead)
        return dead

    def _dead_from_ownership(self, ownership: Any) -> list[str]:
        if ownership is None:
            return []
        return [format_vertex(i, self.board.size)
                for i in dead_strings(self.board, ownership, DEAD_THRESHOLD)]

    def _settled_board(self) -> Board:
        """The board with dead stones removed, ready for area counting."""
        board = self.board.copy()
        dead = self.dead_stones()
        if dead:
            board.setup(empty=dead)
        return board

    def _cmd_final_score(self, args: Sequence[str]) -> str:
        return self._settled_board().result(self.komi)

    def _cmd_final_status_list(self, args: Sequence[str]) -> str:
        (status,) = _args(args, 1)
        status = status.lower()
        if status not in ("alive", "dead", "seki"):
            raise GTPError("syntax error: status must be alive, dead or seki")
        size = self.board.size
        dead = {parse_vertex(v, size) for v in self.dead_stones()}
        groups = [[format_vertex(i, size) for i in stones]
                  for kind, stones in string_status(self.board, dead) if kind == status]
        # One string per line, as GNU Go answers.
        return "\n".join(" ".join(group) for group in groups)

    # -- GoGui analysis ----------------------------------------------------------

    def _analysis(self) -> Any:
        return self._run_search(self.board.copy())

    def _cmd_ownership(self, args: Sequence[str]) -> str:
        result = self._analysis()
        size = self.board.size
        values = " ".join(f"{format_vertex(i, size)} {float(value):.2f}"
                          for i, value in enumerate(np.asarray(result.ownership).ravel()))
        return (f"INFLUENCE {values}\n"
                f"TEXT {self.board.to_move} win rate {100 * float(result.winrate):.1f}%")

    def _cmd_best_moves(self, args: Sequence[str]) -> str:
        result = self._analysis()
        children = sorted(result.children, key=lambda child: -child.visits)[:9]
        lines = []
        for rank, child in enumerate(children, 1):
            if str(child.move).lower() != "pass":
                lines.append(f"LABEL {str(child.move).upper()} {rank}")
        if children and children[0].pv:
            colors = "BW" if self.board.to_move == "B" else "WB"
            var = " ".join(f"{colors[i % 2]} {str(m).upper()}"
                           for i, m in enumerate(children[0].pv))
            lines.append(f"VAR {var}")
        summary = ", ".join(
            f"{str(c.move).upper()} {c.visits} visits {100 * float(c.winrate):.1f}%"
            for c in children[:3]
        )
        lines.append(f"TEXT {summary}" if summary else "TEXT no moves")
        return "\n".join(lines)


def _gtp_move(move: str) -> str:
    """A vertex in upper case as GNU Go writes it; ``pass`` and ``resign`` as they are."""
    return move if move in ("pass", "resign") else move.upper()


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
    for raw in source:
        response = engine.handle(raw)
        if response is None:
            continue
        out.write(response)
        out.flush()
        if engine.quit_requested:
            break
    engine.stop_pondering()
    return 0
