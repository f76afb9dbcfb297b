"""The GTP engine: game state, command dispatch and the core GTP 2 commands.

Move generation is delegated to a *search* object with the interface of
:class:`fastplay.search.MCTS` (:class:`~fastplay.gtp.protocol.Search`).  It
is injected, so tests can drive the engine with a deterministic stub; by
default the real MCTS is imported on first use, which keeps ``fastplay gtp``
quick to start and lets every non-search command work even where the search
is unavailable.  The other command groups live in their own modules
(scoring, handicap, analysis, GoGui, GNU Go's extensions) and are gathered
here into one table.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import fastplay
from fastplay.board import Board, ColorLike, IllegalMoveError, InvalidVertexError, format_vertex
from fastplay.gtp.protocol import GTPError, Search, Stream, check_clock, format_response
from fastplay.gtp.protocol import gtp_move, log, parse_color, parse_float, parse_int, preprocess
from fastplay.gtp.protocol import take_args
from fastplay.inputfile import check_regular
from fastplay.search.errors import PluginError
from fastplay.sgf import MAX_KOMI

__all__ = ["GTPEngine", "ENGINE_NAME", "MAX_KOMI"]

ENGINE_NAME = "fastplay"


Handler = Callable[[Sequence[str]], "str | Stream"]


class GTPEngine:
    """A GTP version 2 engine: :meth:`respond` turns one input line into one
    response (a string, or a :class:`Stream` for the analysis commands);
    :meth:`handle` always gives the string.

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
    patterns, pattern_file, pattern_strict:
        Built-in database name (GNU Go's ``--mc-patterns``) or a ``.db`` file
        (``--mc-load-patterns``, which wins, as in GNU Go), read in strict
        mode or, with ``pattern_strict=False``, as GNU Go reads it.
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
    superko:
        Positional superko on the board (the search always avoids repeating
        a position; this makes ``play`` refuse it too).
    gfx:
        Write GoGui live graphics (``gogui-gfx:`` lines) on standard error
        during ``genmove`` and the analysis commands.
    options:
        Further keyword options of the default MCTS
        (:class:`fastplay.search.SearchConfig`'s names, ``fastplay gtp
        --search``); ``mix`` and ``eval_batch`` there win over the
        arguments of the same names.  They are checked when the search is
        built (:meth:`prepare`, or the first ``genmove``).
    size, komi:
        The initial game settings.
    """

    def __init__(self, search: Search | None = None, *,
                 search_factory: Callable[[], Search] | None = None,
                 playouts: int | None = None, seconds: float | None = None,
                 threads: int = 1, seed: int | None = None, patterns: str | None = None,
                 pattern_file: str | None = None, ponder: bool = False,
                 batch: int | None = None, prior: Any = "auto", pattern_strict: bool = True,
                 evaluator: Callable[[list[Board]], Any] | None = None,
                 mix: float | None = None, eval_batch: int | None = None,
                 superko: bool = False, gfx: bool = False,
                 options: Mapping[str, Any] | None = None,
                 size: int = 19, komi: float = 7.5) -> None:
        self._search = search
        self._search_factory = search_factory
        self.playouts = playouts
        self.seconds = seconds
        self.threads = threads
        self.seed = seed
        self.patterns = patterns
        self.pattern_file = pattern_file
        self.pattern_strict = pattern_strict
        self.ponder = ponder
        self.batch = batch
        self.prior = prior
        self.evaluator = evaluator
        self.search_options: dict[str, Any] = {name: value for name, value in (
            ("mix", mix), ("eval_batch", eval_batch)) if value is not None}
        self.search_options.update(options or {})
        self.superko = superko
        self.gfx = gfx
        self._db: Any = None
        self.komi = float(komi)
        self.board = Board(size, komi=self.komi, superko=superko)
        self.quit_requested = False
        self._pondering = False
        #: Set when new input arrives (by :func:`fastplay.gtp.run`): ends an
        #: interruptible stream such as ``lz-analyze``.
        self.input_event = threading.Event()
        #: (zobrist hash, move number, size) -> dead stone vertices, so that
        #: final_score followed by final_status_list searches only once.
        self.dead_cache: tuple[tuple[int, int, int], list[str]] | None = None
        self._commands = self._command_table()

    def _command_table(self) -> dict[str, Handler]:
        from fastplay.gtp import analysis, extensions, gogui, handicap, scoring

        table: dict[str, Handler] = {
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
            "time_settings": self._cmd_time_settings,
            "time_left": self._cmd_time_left,
            "loadsgf": self._cmd_loadsgf,
        }
        for module in (scoring, handicap, extensions, gogui, analysis):
            for name, function in module.COMMANDS.items():
                table[name] = _bind(function, self)
        return table

    @property
    def commands(self) -> list[str]:
        """The names of every command this engine answers."""
        return list(self._commands)

    # -- framing -------------------------------------------------------------

    def respond(self, line: str | bytes) -> str | tuple[str, Stream] | None:
        """Answer one raw input line: the complete response (ending in the
        empty line GTP requires), ``(head, stream)`` for a streaming command
        (``head`` is ``"=id"``; the caller writes the stream's lines and the
        final empty line), or ``None`` for a line that preprocessing leaves
        empty, which gets no response.
        """
        text = preprocess(line)
        if not text:
            return None
        words = text.split()
        cmd_id = ""
        if words[0].isascii() and words[0].isdigit():
            cmd_id = words.pop(0)
        if not words:
            return format_response(False, cmd_id, "syntax error: no command")
        name, args = words[0], words[1:]
        self.stop_pondering()
        handler = self._commands.get(name)
        if handler is None:
            return format_response(False, cmd_id, "unknown command")
        try:
            answer = handler(args)
            if isinstance(answer, Stream):
                # "=" at once, as Leela Zero and KataGo answer: a controller
                # may wait for it before it reads the reports.
                return "=" + cmd_id, answer
            return format_response(True, cmd_id, answer)
        except GTPError as exc:
            return format_response(False, cmd_id, str(exc))
        except PluginError as exc:   # the user's evaluator or prior, not the engine
            return format_response(False, cmd_id, f"plug-in failed: {exc}")
        except Exception as exc:  # noqa: BLE001 - a controller must always get an answer
            return format_response(False, cmd_id, f"internal error: {type(exc).__name__}: {exc}")

    def handle(self, line: str | bytes) -> str | None:
        """:meth:`respond` as one string.  A streaming command is answered as
        if a new line arrived after its first report: ``lz-analyze`` gives
        one line of analysis."""
        response = self.respond(line)
        if response is None or isinstance(response, str):
            return response
        head, stream = response
        lines = [head]
        try:
            for text in stream.lines:
                if text:
                    lines.append(text)
                if stream.interruptible:
                    self.input_event.set()
        except Exception as exc:  # noqa: BLE001 - as the server: the "=" is out
            log(f"analysis stopped: {type(exc).__name__}: {exc}")
        self.input_event.clear()
        return "\n".join(lines) + "\n\n"

    # -- board and game settings ------------------------------------------

    def new_board(self, size: int) -> None:
        """An empty board of ``size`` (the komi kept) and a new game for the search."""
        self.board = Board(size, komi=self.komi, superko=self.superko)
        self.dead_cache = None
        if self._search is not None:
            self._search.new_game()

    def _cmd_known_command(self, args: Sequence[str]) -> str:
        (name,) = take_args(args, 1)
        return "true" if name in self._commands else "false"

    def _cmd_quit(self, args: Sequence[str]) -> str:
        self.quit_requested = True
        return ""

    def _cmd_boardsize(self, args: Sequence[str]) -> str:
        (text,) = take_args(args, 1)
        size = parse_int(text, "board size")
        try:
            self.new_board(size)
        except (ValueError, TypeError):
            raise GTPError("unacceptable size") from None
        return ""

    def _cmd_clear_board(self, args: Sequence[str]) -> str:
        self.new_board(self.board.size)
        return ""

    def _cmd_komi(self, args: Sequence[str]) -> str:
        (text,) = take_args(args, 1)
        komi = parse_float(text, "komi")
        if abs(komi) > MAX_KOMI:
            raise GTPError(f"komi out of range (|komi| <= {MAX_KOMI:.0f})")
        self.board.komi = komi
        self.komi = self.board.komi       # as the board holds it (-0 is 0)
        return ""

    def _cmd_play(self, args: Sequence[str]) -> str:
        color_text, vertex = take_args(args, 2)
        color = parse_color(color_text)
        try:
            self.board.play(vertex.lower(), color)
        except InvalidVertexError:
            raise GTPError("invalid coordinate") from None
        except IllegalMoveError as exc:
            # GTP's answer text is "illegal move" (GNU Go's, and case 22's);
            # the rule broken goes where the user reads it.
            log(str(exc))
            raise GTPError("illegal move") from None
        return ""

    def _cmd_undo(self, args: Sequence[str]) -> str:
        if args:
            # ``undo 2`` answered "=" and took back one move (a tester).
            raise GTPError("undo takes no arguments (gg-undo N takes back N moves)")
        try:
            self.board.undo()
        except IndexError:
            raise GTPError("cannot undo") from None
        return ""

    def _cmd_loadsgf(self, args: Sequence[str]) -> str:
        (path,) = take_args(args, 1)
        # GTP's move_number N means "up to, not including, move N", while
        # Board.from_sgf counts the moves played: N - 1 of them.
        played = None
        if len(args) > 1:
            number = parse_int(args[1], "move number")
            if number < 1:
                raise GTPError("syntax error: move number must be at least 1")
            played = number - 1
        from fastplay.sgf import SGFError  # lazily: only loadsgf needs the SGF reader

        try:
            # A controller names a file: a named pipe with no writer would
            # block the engine for ever (a tester).
            check_regular(path, "SGF file")
            try:
                board = Board.from_sgf(path, move_number=played, superko=self.superko)
            except ValueError:
                if played is None:
                    raise
                # A move number past the end loads the whole game, as in GNU Go.
                board = Board.from_sgf(path, superko=self.superko)
        except OSError as exc:
            raise GTPError(f"cannot load file {path}: {exc.strerror or exc}") from None
        except (SGFError, ValueError) as exc:
            raise GTPError(f"cannot load file {path}: {exc}") from None
        self.board = board
        self.komi = float(board.komi)
        self.dead_cache = None
        if self._search is not None:
            self._search.new_game()
        return ""

    # -- time ------------------------------------------------------------------

    def _cmd_time_settings(self, args: Sequence[str]) -> str:
        main, byo, stones = take_args(args, 3)
        values = (parse_int(main, "main time"), parse_int(byo, "byo-yomi time"),
                  parse_int(stones, "byo-yomi stones"))
        check_clock(values)
        self.search().set_time(*values)
        return ""

    def _cmd_time_left(self, args: Sequence[str]) -> str:
        color_text, seconds, stones = take_args(args, 3)
        color = parse_color(color_text)
        # A controller may report an overdrawn clock as negative time: none left.
        values = (max(0, parse_int(seconds, "time")), parse_int(stones, "stones"))
        check_clock(values, "time_left")
        self.search().time_left(color, *values)
        return ""

    # -- search ----------------------------------------------------------------

    def search(self) -> Search:
        """The search, built on first use; :class:`GTPError` if it cannot be."""
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
        self.search()

    def load_patterns(self) -> Any:
        """The pattern database chosen by ``pattern_file`` (read as
        ``pattern_strict`` says) or ``patterns``.

        Raises the database's own errors (``OSError``, ``PatternSyntaxError``,
        ``ValueError`` for an unknown name) so the command line can report
        them before the engine starts.
        """
        if self._db is None:
            from fastplay.patterns import PatternDatabase

            if self.pattern_file is not None:
                self._db = PatternDatabase.from_file(self.pattern_file,
                                                     strict=self.pattern_strict)
            else:
                self._db = (PatternDatabase.builtin(self.patterns) if self.patterns is not None
                            else PatternDatabase.default())
        return self._db

    def search_position(self, color: ColorLike) -> Board:
        """A copy of the board with ``color`` to move: GTP may ask either side."""
        board = self.board.copy()
        if board.to_move != color:
            board.to_move = color
        return board

    def run_search(self, board: Board, playouts: int | None = None, move: bool = True) -> Any:
        """One search of ``board`` with the engine's per-move limits (or
        ``playouts``); ``move=False``: not the game's move (``reg_genmove``,
        scoring), so no resignation count and no clock (:meth:`MCTS.run`)."""
        return self.search().run(board, playouts=playouts or self.playouts,
                                 seconds=None if playouts else self.seconds, move=move)

    def _generate(self, color: ColorLike, played: bool = True) -> str:
        from fastplay.gtp.gogui import show_result

        result = self.run_search(self.search_position(color), move=played)
        if self.gfx:
            show_result(self, result, color)
        move = str(result.best_move)
        return "resign" if move.lower() == "resign" else move.lower()

    def play_generated(self, move: str, color: ColorLike) -> str:
        """Play a move the search chose (not ``resign``), start pondering if
        asked; the move as GTP writes it."""
        if move != "resign":
            try:
                self.board.play(move, color)
            except (IllegalMoveError, InvalidVertexError) as exc:
                raise GTPError(f"search proposed an illegal move {move} ({exc.rule})") from None
        if self.ponder and move != "resign":
            self.search().ponder_start(self.board.copy())
            self._pondering = True
        return gtp_move(move)

    def _cmd_genmove(self, args: Sequence[str]) -> str:
        # kgs-genmove_cleanup shares this: the playouts score Tromp-Taylor, so
        # the search already captures dead stones before it passes.
        (color_text,) = take_args(args, 1)
        color = parse_color(color_text)
        return self.play_generated(self._generate(color), color)

    def _cmd_reg_genmove(self, args: Sequence[str]) -> str:
        (color_text,) = take_args(args, 1)
        # A move asked for and not played (GNU Go's regression suites, hints).
        return gtp_move(self._generate(parse_color(color_text), played=False))

    def stop_pondering(self) -> None:
        """End the thinking on the opponent's time, if any (the next command has come)."""
        if self._pondering:
            self._pondering = False
            if self._search is not None:
                self._search.ponder_stop()

    def vertices(self, points: Iterable[Any]) -> list[str]:
        """Flat indices as GTP vertices of this board, in upper case."""
        return [format_vertex(int(i), self.board.size).upper() for i in points]


def _bind(function: Callable[[GTPEngine, Sequence[str]], str | Stream],
          engine: GTPEngine) -> Handler:
    def handler(args: Sequence[str]) -> str | Stream:
        return function(engine, args)
    return handler
