"""The ``fastplay`` command line: ``analyze | analysis | gtp | match | bench | benchmark | tune |
patterns``.

Each subcommand imports what it needs only when it runs, so ``fastplay gtp``
starts without loading the search and ``fastplay --help`` without numpy.
User errors (a missing file, a bad option, a pattern syntax error, an engine
that will not start) print one ``fastplay: error: ...`` line and exit with
status 2; tracebacks are kept for bugs.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, TextIO

from fastplay.argtypes import (Parser, add_pattern_file_flags, board_size, finite_float,
                               komi_value, non_negative_int, playout_count, positive_float,
                               positive_int, search_option, seconds_value, thread_count,
                               unit_float)
from fastplay.shown import escape_controls

if TYPE_CHECKING:  # pragma: no cover - typing only; imported when a command runs
    from fastplay.match import MatchResult
    from fastplay.match_clock import TimeControl

__all__ = ["main"]

EXIT_USAGE = 2

# Subcommands whose own modules parse their arguments: everything after the
# subcommand name is handed over untouched.
_DELEGATED = {
    "analyze": ("fastplay.analyze", "analyse a game record: top moves, win rates, ownership"),
    "analysis": ("fastplay.analysis", "KataGo's JSON analysis engine on stdin/stdout (KaTrain)"),
    "bench": ("fastplay.bench", "measure playout and search speed"),
    "benchmark": ("fastplay.benchmark.cli", "decision benchmarks: build them, score engines (PR)"),
    "tune": ("fastplay.tune.cli", "fit a playout pattern database (.db) to game records"),
}


class UserError(Exception):
    """A problem the user can fix; reported without a traceback."""


@contextlib.contextmanager
def command_line_warnings() -> Iterator[None]:
    """Show warnings as ``fastplay: warning: <message>`` lines, each message once.

    Python's default shows the source file, line and code line of the
    ``warnings.warn`` call, which means nothing to a user of the command
    line; and the same message raised from several places (one SGF read
    twice) would be printed each time.  The previous ``warnings.showwarning``
    is restored on exit, so library callers of :func:`main` keep their own.
    """
    shown: set[tuple[type[Warning], str]] = set()
    previous = warnings.showwarning

    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
             file: TextIO | None = None, line: str | None = None) -> None:
        key = (category, str(message))
        if key in shown:
            return
        shown.add(key)
        stream = file if file is not None else sys.stderr
        try:
            print(escape_controls(f"fastplay: warning: {message}"), file=stream)
        except OSError:
            pass  # stderr closed: a warning is not worth a crash

    # The filters are left alone: "python -W error -m fastplay ..." still works.
    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = previous








def batch_size(text: str) -> int:
    """Playouts per leaf for ``--batch``: an integer in [1, MAX_BATCH]."""
    from fastplay.search.config import MAX_BATCH  # only when the flag is given: startup stays fast

    value = positive_int(text)
    if value > MAX_BATCH:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_BATCH}: {text!r}")
    return value


def _add_search_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mc-patterns", metavar="NAME",
                        help="built-in Monte Carlo pattern database (GNU Go's flag): "
                             "montegnu_classic (default), mogo_classic, uniform, or "
                             "fastplay's tuned fastplay_9x9; 'fastplay patterns list'")
    add_pattern_file_flags(parser)
    parser.add_argument("--prior", default="auto", metavar="NAME|FILE|none",
                        help="the tree's move prior: 'auto' (default: the learned prior of "
                             "the size on 9x9, 13x13 and 19x19, the playout values elsewhere), "
                             "a learned prior's name (gnugo9x9_shapes, gnugo9x9, gnugo13x13, "
                             "gnugo19x19) or "
                             ".npz file (benchmarks/train_prior.py), used as given on any "
                             "size (its features are local), or 'none' (the playout values)")
    parser.add_argument("--playouts", type=playout_count, metavar="N",
                        help="playouts per move (default: the search's time management)")
    parser.add_argument("--seconds", type=seconds_value, metavar="S",
                        help="seconds per move")
    parser.add_argument("--threads", type=thread_count, default=1, metavar="T",
                        help="search threads (default 1)")
    parser.add_argument("--seed", type=non_negative_int, metavar="SEED",
                        help="random seed (an integer >= 0); with one thread the moves are "
                             "reproducible")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    import fastplay

    parser = Parser(
        prog="fastplay",
        description="Monte Carlo Go with GNU Go-compatible pattern databases.")
    parser.add_argument("--version", action="version", version=f"fastplay {fastplay.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    for name, (_, help_text) in _DELEGATED.items():
        # listed for --help only: main() hands their arguments over untouched
        sub.add_parser(name, help=help_text, add_help=False)

    gtp = sub.add_parser("gtp", help="play as a GTP version 2 engine on stdin/stdout",
                         description="Go Text Protocol version 2 engine on standard input/output.")
    _add_search_options(gtp)
    gtp.add_argument("--batch", type=batch_size, metavar="N",
                     help="playouts per leaf of the tree search (default: 1 per thread, "
                          "at least 2 on 13x13 and 3 on 19x19: benchmarks/RESULTS.md)")
    gtp.add_argument("--search", type=search_option, action="append", default=[],
                     metavar="NAME=VALUE",
                     help="a search option of fastplay.search.SearchConfig, e.g. "
                          "'--search c_puct=0.7 --search rave_equiv=300' (repeatable; VALUE: "
                          "a number, true, false, none or a word)")
    gtp.add_argument("--ponder", action="store_true",
                     help="think on the opponent's time after each genmove")
    gtp.add_argument("--superko", action="store_true",
                     help="positional superko: refuse a play that repeats a whole-board "
                          "position (the search always avoids them)")
    gtp.add_argument("--gogui-gfx", action="store_true",
                     help="write GoGui live graphics (gogui-gfx: lines) on stderr while "
                          "searching")
    gtp.add_argument("--evaluator", metavar="FILE.py:NAME|MODULE:NAME",
                     help="a value function evaluator(boards) -> win probabilities of the "
                          "side to move, mixed with the rollouts (examples/value_function.py)")
    gtp.add_argument("--mix", type=unit_float, metavar="L",
                     help="the rollouts' share of the leaf value with --evaluator "
                          "(default 0.5, AlphaGo's; 0: no playouts)")
    gtp.add_argument("--eval-batch", type=positive_int, metavar="N",
                     help="leaves per evaluator call (default 8)")

    match = sub.add_parser("match", help="referee games between two GTP engines",
                           description="Play games between two GTP engines (A is Black in "
                           "odd-numbered games, colours alternate) and report win rate and Elo.")
    match.add_argument("engine_a", metavar="CMD_A", help="command line of engine A")
    match.add_argument("engine_b", metavar="CMD_B", help="command line of engine B")
    match.add_argument("--games", type=positive_int, default=2, metavar="N",
                       help="games to play, colours alternating (default 2)")
    match.add_argument("--size", type=board_size, default=9, metavar="N",
                       help="board size (default 9)")
    match.add_argument("--komi", type=komi_value, default=7.5, help="komi (default 7.5)")
    match.add_argument("--sgf-dir", metavar="DIR", help="save every game as SGF here")
    match.add_argument("--sprt", type=finite_float, nargs=2, metavar=("ELO0", "ELO1"),
                       help="stop early when a sequential test decides between Elo ELO0 and ELO1")
    match.add_argument("--alpha", type=positive_float, default=0.05, help="SPRT type I error (default 0.05)")
    match.add_argument("--beta", type=positive_float, default=0.05, help="SPRT type II error (default 0.05; alpha + beta < 1)")
    match.add_argument("--referee", metavar="CMD",
                       help="GTP engine whose 'final_status_list dead' settles dead stones")
    match.add_argument("--move-timeout", type=seconds_value, default=60.0, metavar="S",
                       help="seconds an engine may take per move before it loses (default 60)")
    match.add_argument("--time", metavar="MAIN[+BYO/STONES]",
                       help="clocks: MAIN seconds of sudden death (e.g. 30) or MAIN then "
                            "Canadian byo-yomi of BYO seconds per STONES stones (e.g. 60+10/5); "
                            "sent as time_settings/time_left, a fallen flag loses")
    match.add_argument("--max-moves", type=positive_int, metavar="N",
                       help="end and score a game after N moves (default 3 x size^2)")
    match.add_argument("--no-progress", action="store_true", help="no progress bar")

    patterns = sub.add_parser("patterns", help="list or check Monte Carlo pattern databases")
    psub = patterns.add_subparsers(dest="patterns_command", metavar="ACTION")
    psub.required = True
    psub.add_parser("list", help="list the built-in databases")
    check = psub.add_parser("check", help="compile a .db file and report errors")
    check.add_argument("file", metavar="FILE.db")
    check.add_argument("--gnugo-syntax", action="store_true",
                       help="read the file as GNU Go 3.8 does (no syntax error)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not _standard_streams():
        return EXIT_USAGE
    if args_list and args_list[0] in _ENGINE_RUNNERS:
        _terminate_as_interrupt()
    try:
        with command_line_warnings():
            return _dispatch(args_list)
    except UserError as exc:
        print(escape_controls(f"fastplay: error: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    except Warning as exc:
        # A warning made an error by the user ("python -W error ..."): an
        # error of the input like any other, not a traceback.
        print(escape_controls(f"fastplay: error: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130


#: Subcommands that run engines as child processes (``match``; ``tune games``).
_ENGINE_RUNNERS = ("match", "tune")


def _terminate_as_interrupt() -> None:
    """SIGTERM ends the command as Ctrl-C does: its engines are told to
    quit, and stopped (a tester's ``kill`` of a match left them running).
    Only from the main thread (``main`` called from another cannot set a
    handler), and where SIGTERM exists."""
    import signal
    import threading

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    if hasattr(signal, "SIGTERM") and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, interrupt)


def _standard_streams() -> bool:
    """Whether the command can talk: a closed standard input (``<&-``, which
    Python gives as ``None``) reads as an empty one; a closed standard
    output is an error (said on standard error when it is open)."""
    if sys.stdout is None:
        if sys.stderr is not None:
            print("fastplay: error: standard output is closed", file=sys.stderr)
        return False
    if sys.stdin is None:
        sys.stdin = open(os.devnull, encoding="utf-8")   # noqa: SIM115 - for the process
    # A console that cannot show a record's names (a cp1252 pipe on Windows,
    # PYTHONIOENCODING=ascii) gets \uXXXX escapes, not a failed command, as
    # Python's standard error already does.
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(errors="backslashreplace")
        except (OSError, ValueError):
            pass   # a stream that cannot change its error handler keeps its own
    return True


def _dispatch(args_list: list[str]) -> int:
    """Parse ``args_list`` and run the subcommand; :class:`UserError` for user mistakes."""
    handlers: dict[str, Callable[[argparse.Namespace], int]] = {
        "gtp": _run_gtp, "match": _run_match, "patterns": _run_patterns,
    }
    if args_list and args_list[0] in _DELEGATED:
        # Not through argparse: it would take "--move 3" for an option of ours.
        return _run_delegated(args_list[0], args_list[1:])
    try:
        args = build_parser().parse_args(args_list)
    except SystemExit as exc:  # argparse exits on --help, --version and usage errors
        return int(exc.code or 0) if not isinstance(exc.code, str) else EXIT_USAGE
    return handlers[args.command](args)


def _run_delegated(command: str, rest: list[str]) -> int:
    module_name = _DELEGATED[command][0]
    import importlib

    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise UserError(f"'fastplay {command}' is not available in this build") from None
    return int(module.main(rest) or 0)


def _pattern_errors() -> tuple[type[BaseException], ...]:
    from fastplay.patterns import PatternSyntaxError

    return (OSError, PatternSyntaxError, ValueError)


def _run_gtp(args: argparse.Namespace) -> int:
    from fastplay.argtypes import prior_option
    from fastplay.gtp import GTPEngine, GTPError, run

    evaluator = None
    if args.evaluator is not None:
        from fastplay.plugins import load_callable

        try:
            evaluator = load_callable(args.evaluator, arguments=1)
        except ValueError as exc:
            raise UserError(f"--evaluator: {exc}") from None
    elif args.mix is not None or args.eval_batch is not None:
        raise UserError("--mix and --eval-batch need --evaluator")
    mix = args.mix if args.mix is not None or evaluator is None else 0.5
    engine = GTPEngine(playouts=args.playouts, seconds=args.seconds, threads=args.threads,
                       seed=args.seed, patterns=args.mc_patterns,
                       pattern_file=args.mc_load_patterns,
                       pattern_strict=not args.gnugo_syntax, ponder=args.ponder,
                       batch=args.batch, prior=prior_option(args.prior), evaluator=evaluator,
                       mix=mix, eval_batch=args.eval_batch, superko=args.superko,
                       gfx=args.gogui_gfx, options=dict(args.search))
    # A database the user named must fail now, not at the first genmove where
    # a controller would only see '? ...'; and loading it there would eat the
    # first genmove's time limit.
    try:
        engine.prepare()
    except _pattern_errors() as exc:
        raise UserError(describe_error(exc)) from None
    except GTPError as exc:
        raise UserError(str(exc)) from None
    return run(sys.stdin, sys.stdout, engine)


def _run_match(args: argparse.Namespace) -> int:
    from fastplay.match import SPRT, EngineError, GameRecord, MatchResult, run_match

    sprt = None
    if args.sprt is not None:
        try:
            sprt = SPRT(args.sprt[0], args.sprt[1], args.alpha, args.beta)
        except ValueError as exc:
            raise UserError(f"--sprt ELO0 ELO1 --alpha --beta: {exc}") from None
    time_control = None
    if args.time is not None:
        from fastplay.match_clock import TimeControl

        try:
            time_control = TimeControl.parse(args.time)
        except ValueError as exc:
            raise UserError(f"--time: {exc}") from None

    def told(index: int, game: GameRecord) -> None:
        print(f"game {index}: Black {game.black}, White {game.white}: {game.result}  "
              f"[{game.reason}]", flush=True)

    # Each game is told as it ends, and the summary of those played is
    # printed even when the match stops early (a tester's Ctrl-C lost six).
    result = MatchResult()
    try:
        run_match(args.engine_a, args.engine_b, games=args.games, size=args.size,
                  komi=args.komi, sgf_dir=args.sgf_dir, sprt=sprt, referee=args.referee,
                  move_timeout=args.move_timeout, max_moves=args.max_moves,
                  progress=not args.no_progress, time_control=time_control, on_game=told,
                  result=result)
    except (EngineError, ValueError, OSError) as exc:
        if result.games:
            _match_summary(args, result, time_control)
        raise UserError(describe_error(exc)) from None
    except KeyboardInterrupt:
        if result.games:
            _match_summary(args, result, time_control)
        raise
    _match_summary(args, result, time_control)
    return 0


def _match_summary(args: argparse.Namespace, result: MatchResult,
                   time_control: TimeControl | None) -> None:
    """The match's summary lines: score, Elo, SPRT, pace, time losses."""
    from fastplay.match import rules_text

    names = (result.games[0].black, result.games[0].white) if result.games else ("A", "B")
    print(result.summary(names[0], names[1], rules_text(args.size, args.komi,
                                                        args.referee is not None, time_control)))
    pace = result.seconds_per_move()
    if pace:
        print("Seconds per move: " + ", ".join(f"{name} {seconds:.2f}"
                                               for name, seconds in sorted(pace.items())))
    if time_control is not None:
        losses = result.time_losses()
        print("Lost on time: " + (", ".join(f"{name} {n}" for name, n in sorted(losses.items()))
                                  or "none"))


def _run_patterns(args: argparse.Namespace) -> int:
    from fastplay.patterns import PatternDatabase

    if args.patterns_command == "list":
        names = PatternDatabase.names()
        for name in names:
            print(name + ("  (default)" if name == names[0] else ""))
        return 0
    try:
        db = PatternDatabase.from_file(args.file, strict=not args.gnugo_syntax)
    except _pattern_errors() as exc:
        raise UserError(describe_error(exc)) from None
    # No pattern loads (GNU Go's loader skips what it does not know, and
    # from_file warns), but is not called OK (a tester's remark).
    verdict = "OK" if db.rules else "loads as an empty database, no pattern"
    print(escape_controls(f"{args.file}: {verdict}: {len(db.rules)} patterns compiled, "
                          f"table sha256 {db.sha256()}"))
    return 0


def describe_error(exc: BaseException) -> str:
    """An error's text for a user: an OS error as ``FILE: reason``, not
    ``[Errno N] ...``; another its message, or its type's name."""
    if isinstance(exc, OSError) and exc.filename:
        return f"{exc.filename}: {exc.strerror or exc}"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) if str(exc) else type(exc).__name__
