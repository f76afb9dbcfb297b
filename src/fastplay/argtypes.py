"""Argument types shared by the ``fastplay`` subcommands (argparse ``type=``),
and their parser class.

Each raises ``argparse.ArgumentTypeError`` with the offending text, which
argparse turns into a usage error (exit status 2) without a traceback.
"""

from __future__ import annotations

import argparse
import math
from typing import NoReturn

from fastplay.asciinum import ascii_float, ascii_int
from fastplay.shown import escape_controls

__all__ = ["Parser", "thread_count", "playout_count", "positive_int", "non_negative_int",
           "finite_float", "komi_value", "positive_float", "non_negative_float", "unit_float", "board_size",
           "search_option", "any_search_option", "MAX_SECONDS", "seconds_value"]

#: Largest time (seconds) an option, a clock or a clock command takes: some
#: 116 days (Python's waits refuse more than ``threading.TIMEOUT_MAX``,
#: about 292 years, with ``OverflowError``; a tester's ``--move-timeout 1e10``).
MAX_SECONDS = 10_000_000


class Parser(argparse.ArgumentParser):
    """The subcommands' ``ArgumentParser``: a usage error shows control
    characters of its message (a file name, a value) as ``\\xNN`` escapes,
    so that a name with a newline or a terminal escape cannot forge or
    garble the message (a tester's ``--mc-load-patterns $'x\\x1b[2J'``
    cleared the terminal)."""

    def error(self, message: str) -> NoReturn:
        super().error(escape_controls(message))


def _int(text: str) -> int:
    try:
        return ascii_int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def positive_int(text: str) -> int:
    """An integer >= 1."""
    value = _int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value


def thread_count(text: str) -> int:
    """``--threads``: an integer 1..``MAX_THREADS`` (the core's bound, 1024)."""
    from fastplay._playout import MAX_THREADS

    value = _int(text)
    if not 1 <= value <= MAX_THREADS:
        raise argparse.ArgumentTypeError(f"threads are 1..{MAX_THREADS}, not {value}")
    return value


def playout_count(text: str) -> int:
    """``--playouts``/``--visits``: an integer 1..``MAX_PLAYOUTS`` (2**53, the
    bound the search itself checks), refused at start-up rather than at the
    first move."""
    from fastplay._playout import MAX_PLAYOUTS

    value = _int(text)
    if not 1 <= value <= MAX_PLAYOUTS:
        raise argparse.ArgumentTypeError(f"must be 1..{MAX_PLAYOUTS} (2**53), not {text!r}")
    return value


def non_negative_int(text: str) -> int:
    """An integer >= 0."""
    value = _int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative: {text!r}")
    return value


def finite_float(text: str) -> float:
    """A finite number (no NaN or infinity)."""
    try:
        value = ascii_float(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be finite: {text!r}")
    return value


def komi_value(text: str) -> float:
    """A komi: a finite number within the board's bound (``fastplay._board.MAX_KOMI``)."""
    from fastplay._board import MAX_KOMI

    value = finite_float(text)
    if abs(value) > MAX_KOMI:
        raise argparse.ArgumentTypeError(f"komi must be within +-{MAX_KOMI:.0f}: {text!r}")
    return value


def positive_float(text: str) -> float:
    """A finite number > 0."""
    value = finite_float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number: {text!r}")
    return value


def seconds_value(text: str) -> float:
    """A time in seconds: a finite number > 0 and at most ``MAX_SECONDS``."""
    value = positive_float(text)
    if value > MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_SECONDS:,} seconds: {text!r}")
    return value


def non_negative_float(text: str) -> float:
    """A finite number >= 0 (``-0`` is 0: a value that names a result, as a
    benchmark's filter does, must not differ by its sign)."""
    value = finite_float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative: {text!r}")
    return value + 0.0


def unit_float(text: str) -> float:
    """A number in [0, 1]."""
    value = finite_float(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be in [0, 1]: {text!r}")
    return value


def board_size(text: str) -> int:
    """A board size 2..25 (the sizes :class:`fastplay.Board` supports)."""
    value = _int(text)
    if not 2 <= value <= 25:
        raise argparse.ArgumentTypeError(f"board sizes are 2..25, not {value}")
    return value


def prior_option(text: str) -> str | None:
    """``--prior``: ``none`` is ``None`` (the playout values), ``auto`` the
    search's default, a bundled name itself (all three in any case, spaces
    around ignored); anything else the path of a file for
    :func:`fastplay.prior.load_prior`."""
    from fastplay.prior import BUNDLED

    word = text.strip().lower()
    if word == "none":
        return None
    if word == "auto" or word in BUNDLED:
        return word
    return text


#: Search options with a flag of their own in ``fastplay gtp``.
FLAGGED_OPTIONS = {"batch": "--batch", "mix": "--mix", "eval_batch": "--eval-batch",
                   "prior_table": "--prior"}


def any_search_option(text: str) -> tuple[str, object]:
    """``NAME=VALUE``: any :class:`fastplay.search.SearchConfig` option,
    checked now (:func:`fastplay.search.config.parse_option`), for a program
    without flags of its own for some of them (the benchmark scripts)."""
    from fastplay.search.config import parse_option  # only when the flag is given

    try:
        return parse_option(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def search_option(text: str) -> tuple[str, object]:
    """``fastplay gtp --search NAME=VALUE``: :func:`any_search_option`, but
    the options with a flag of their own in ``fastplay gtp``
    (:data:`FLAGGED_OPTIONS`) are refused with the flag's name, whatever
    their value, and left out of the list of known options."""
    return _flagged_option(text, FLAGGED_OPTIONS)


#: The search options with a flag of their own in ``fastplay analyze``.
ANALYZE_FLAGGED = {"prior_table": "--prior"}


def analysis_option(text: str) -> tuple[str, object]:
    """``fastplay analyze --search NAME=VALUE``: as :func:`search_option`,
    with ``fastplay analyze``'s flags (:data:`ANALYZE_FLAGGED`)."""
    return _flagged_option(text, ANALYZE_FLAGGED)


def _flagged_option(text: str, flagged: dict[str, str]) -> tuple[str, object]:
    from fastplay.search.config import parse_option  # only when the flag is given

    name = text.partition("=")[0].strip()
    if name in flagged:
        raise argparse.ArgumentTypeError(f"{name} has a flag of its own: use {flagged[name]}")
    try:
        return parse_option(text, hidden=flagged)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_pattern_file_flags(parser: argparse.ArgumentParser) -> None:
    """``--mc-load-patterns FILE`` and ``--gnugo-syntax`` (read it as GNU Go
    does: :meth:`fastplay.patterns.PatternDatabase.from_file` with
    ``strict=False``)."""
    parser.add_argument("--mc-load-patterns", metavar="FILE",
                        help="load a pattern database file; wins over --mc-patterns, as in GNU Go")
    parser.add_argument("--gnugo-syntax", action="store_true",
                        help="read --mc-load-patterns (or 'patterns check FILE') as GNU Go 3.8 "
                             "does: no syntax error, its loader's quirks bit for bit (by "
                             "default a malformed line is an error naming file, line and column)")


def add_database_and_search_flags(parser: argparse.ArgumentParser, search_help: str) -> None:
    """``--mc-patterns NAME``, the pattern file's flags (:func:`add_pattern_file_flags`)
    and the repeatable ``--search NAME=VALUE`` (:func:`analysis_option`) of
    ``fastplay analyze`` and ``fastplay analysis``; ``search_help``: what
    ``--search`` sets there."""
    parser.add_argument("--mc-patterns", metavar="NAME",
                        help="built-in pattern database (default mc_montegnu_classic)")
    add_pattern_file_flags(parser)
    parser.add_argument("--search", type=analysis_option, action="append", default=[],
                        metavar="NAME=VALUE", help=search_help)
