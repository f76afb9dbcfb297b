"""``fastplay analysis``: KataGo's JSON analysis engine protocol on stdin/stdout.

Review tools such as KaTrain send one JSON query per line -- a game's moves,
rules, komi, board size, the turns to analyse, the visits -- and read one
JSON answer per analysed position: the candidate moves with visits, win
rates, score leads, priors and principal variations, the ownership map, the
policy.  The protocol is KataGo's (``docs/Analysis_Engine.md`` in KataGo's
repository); fastplay answers it with its Monte Carlo tree search, on any
machine, with no GPU and no network weights.

A tour:

* :mod:`.rules` -- KataGo's rules names and objects, and the nearest rules
  fastplay plays (area scoring; a warning when that differs);
* :mod:`.query` -- one query checked field by field (:func:`parse_query`),
  with one board per turn;
* :mod:`.worker` -- one position searched (:meth:`fastplay.search.MCTS.analyze`
  snapshots), ``avoidMoves``/``allowMoves`` through a prior;
* :mod:`.respond` -- the answers' fields from a snapshot;
* :mod:`.engine` -- the priority queue, the workers, ``terminate`` and the
  other actions (:class:`AnalysisEngine`).

Differences from KataGo: visits are playouts (leaf evaluations), far
cheaper and weaker than a network's; rectangular boards are refused;
territory scoring, taxes and the button are analysed as area scoring
(warned); ``pvEdgeVisits`` equals ``pvVisits`` (a tree, not a graph).  When stdin closes, the queued
positions are finished before the engine exits (``--quit-without-waiting``
stops them), as in KataGo.
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from fastplay._outputwatch import stop_now, watch_output
from fastplay.argtypes import (Parser, add_database_and_search_flags, non_negative_int,
                               positive_float, positive_int, prior_option, thread_count)
from fastplay.shown import escape_controls

if TYPE_CHECKING:  # pragma: no cover - typing only; imported when serving
    from fastplay.patterns import PatternDatabase
    from fastplay.search import SearchConfig

__all__ = ["main", "build_parser", "serve"]

EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``fastplay analysis``."""
    from fastplay.analysis.query import PERSPECTIVES

    parser = Parser(
        prog="fastplay analysis",
        description="KataGo's JSON analysis engine protocol: one query per line on stdin, "
                    "one answer per analysed position on stdout (KataGo's "
                    "docs/Analysis_Engine.md). For KaTrain: engine backend 'custom', "
                    "command 'fastplay analysis'.")
    parser.add_argument("--max-visits", type=positive_int, default=500, metavar="N",
                        help="visits (playouts) when a query gives no maxVisits (default 500, "
                             "as KataGo's example config)")
    parser.add_argument("--max-time", type=positive_float, metavar="S",
                        help="seconds per position when a query gives no maxTime in its "
                             "overrideSettings (KataGo's config key)")
    parser.add_argument("--threads", type=thread_count, default=1, metavar="T",
                        help="search threads per position (default 1)")
    parser.add_argument("--analysis-threads", type=thread_count, default=1, metavar="N",
                        help="positions searched at the same time (default 1)")
    parser.add_argument("--report-winrates-as", choices=PERSPECTIVES, default="BLACK",
                        type=str.upper, help="whose view the values take (default BLACK, "
                        "as KataGo's analysis_example.cfg; queries may override)")
    parser.add_argument("--seed", type=non_negative_int, metavar="SEED",
                        help="random seed: with one thread each answer is reproducible")
    parser.add_argument("--prior", default="auto", metavar="NAME|FILE|none",
                        help="the tree's move prior (as fastplay gtp --prior)")
    add_database_and_search_flags(
        parser, "a search option of fastplay.search.SearchConfig every query starts from, "
                "as in 'fastplay analyze --search' (repeatable)")
    parser.add_argument("--quit-without-waiting", action="store_true",
                        help="when stdin closes, stop the queued positions instead of "
                             "finishing them (by default, as KataGo, every query is "
                             "answered first, however many visits it asked for)")
    return parser


def serve(args: argparse.Namespace, stdin: TextIO, stdout: TextIO,
          made: tuple[PatternDatabase, SearchConfig] | None = None) -> int:
    """Run the engine described by parsed ``args`` until ``stdin`` ends; 0,
    or 2 when its answers could not be written (a reader that went away is
    no error).  ``made``: the database and search options of ``args``
    when the caller has made them already."""
    from fastplay.analysis.engine import AnalysisEngine
    from fastplay.analysis.query import Defaults

    db, config = made if made is not None else _database_and_config(args)
    defaults = Defaults(max_visits=args.max_visits, max_time=args.max_time,
                        perspective=args.report_winrates_as, threads=args.threads)
    engine = AnalysisEngine(stdout, db=db, config=config, defaults=defaults,
                            analysis_threads=args.analysis_threads, seed=args.seed)
    ended, done = False, threading.Event()
    # A client that has gone (its end of our output closed) reads no more
    # answers: the engine ends at once, status 0 (fastplay.gtp.server's rule).
    watch_output(stdout, done, lambda: stop_now(
        "fastplay analysis: the client is gone (its end of the output closed): stopping"))
    try:
        for line in stdin:
            engine.handle(line)
        ended = True
    finally:
        # The end of input finishes the queue (KataGo's behaviour) unless
        # told otherwise; a Ctrl-C, or any error, stops every position now.
        engine.close(wait=ended and not args.quit_without_waiting)
        done.set()
    error = engine.write_error
    if error is not None:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        print(f"fastplay analysis: error: cannot write the answers: {reason}", file=sys.stderr)
        return EXIT_USAGE
    return 0


def _database_and_config(args: argparse.Namespace) -> tuple[PatternDatabase, SearchConfig]:
    """The pattern database and the search options of parsed ``args``
    (``--mc-load-patterns`` or ``--mc-patterns``; ``--prior``, then the
    ``--search`` options).  Raises ``OSError``, ``ValueError`` or
    ``TypeError`` for a bad file or option."""
    from fastplay.batch import pattern_database
    from fastplay.search import SearchConfig

    from fastplay.prior import load_prior

    db = pattern_database(args.mc_patterns, args.mc_load_patterns, not args.gnugo_syntax)
    prior = prior_option(args.prior)
    # A file read now: a missing or bad one is an error at start-up, as in
    # fastplay gtp, not an answer to every query (a tester).
    table = prior if prior in (None, "auto") else load_prior(prior)
    return db, SearchConfig(prior_table=table, **dict(args.search))


def main(argv: Sequence[str] | None = None) -> int:
    """``fastplay analysis`` with ``argv`` (the arguments after ``analysis``);
    returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:  # --help or a usage error, already printed
        return int(exc.code) if isinstance(exc.code, int) else EXIT_USAGE
    try:
        made = _database_and_config(args)    # checked once, before any query
    except (OSError, ValueError, TypeError) as exc:
        from fastplay.cli import describe_error

        print(escape_controls(f"fastplay analysis: error: {describe_error(exc)}"),
              file=sys.stderr)
        return EXIT_USAGE
    # Bytes that are not UTF-8 become U+FFFD: a bad byte is a bad query, not a crash.
    # Lines end at LF alone, as KataGo splits them: a CR inside a query is JSON
    # whitespace (universal newlines split it in two), and CRLF leaves a CR
    # that the JSON parser skips.
    stdin = open(sys.stdin.fileno(), encoding="utf-8", errors="replace", newline="\n",
                 closefd=False)
    stdout = open(sys.stdout.fileno(), "w", encoding="utf-8", closefd=False)
    try:
        return serve(args, stdin, stdout, made)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    # Through the command line's entry, which checks the standard streams.
    from fastplay.cli import main as command_line

    sys.exit(command_line(["analysis", *sys.argv[1:]]))
