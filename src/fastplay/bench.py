"""``fastplay bench``: playouts per second on this machine, one line per setting.

A quick, installed-package counterpart of the pytest-benchmark suites and the
GNU Go comparison in the repository's ``benchmarks/`` folder.  For each board
size and built-in database it times :func:`fastplay.playouts` from the empty
board with 1 thread and with ``--threads`` threads, alternately for
``--rounds`` rounds, and prints the best round's playouts per second (wall
clock), moves per second, the thread speed-up and the CPU use of the best
threaded round (process CPU seconds / wall seconds: near the thread count
when the threads really ran at once; well below it when another process
held a core, and then the speed-up says nothing).  Every batch is seeded, so
two runs play the same playouts; only the timings differ.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence

from fastplay.argtypes import (Parser, board_size, non_negative_int, positive_int,
                                seconds_value, thread_count)

__all__ = ["main", "build_parser"]

EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``fastplay bench``."""
    parser = Parser(
        prog="fastplay bench",
        description="Measure playouts per second from the empty board for each size and "
                    "built-in pattern database.")
    parser.add_argument("--size", type=board_size, action="append", metavar="N",
                        help="board size (repeatable; default 9, 13 and 19)")
    parser.add_argument("--db", action="append", metavar="NAME",
                        help="built-in database (repeatable; default every built-in)")
    parser.add_argument("--seconds", type=seconds_value, default=1.0, metavar="S",
                        help="approximate time per measurement (default 1)")
    parser.add_argument("--threads", type=thread_count, default=2, metavar="T",
                        help="threads for the second measurement (default 2)")
    parser.add_argument("--rounds", type=positive_int, default=1, metavar="R",
                        help="rounds of each measurement, alternated; the best counts (default 1)")
    parser.add_argument("--seed", type=non_negative_int, default=1, metavar="S",
                        help="random seed (an integer >= 0)")
    return parser


def _rate(board: object, db: object, n: int, seed: int, threads: int
          ) -> tuple[float, float, float]:
    """(playouts per second, mean length in moves, CPU use) of one timed batch."""
    from fastplay.montecarlo import playouts

    wall, cpu = time.perf_counter(), time.process_time()
    stats = playouts(board, db, n=n, seed=seed, threads=threads)  # type: ignore[arg-type]
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return n / wall, stats.mean_length, cpu / wall


def main(argv: Sequence[str] | None = None) -> int:
    """``fastplay bench`` with ``argv`` (the arguments after ``bench``); returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:
        return int(exc.code) if isinstance(exc.code, int) else EXIT_USAGE
    if not 0 < args.seconds < 3600:
        print("fastplay bench: error: --seconds must be between 0 and 3600", file=sys.stderr)
        return EXIT_USAGE
    from fastplay.board import Board
    from fastplay.patterns import PatternDatabase

    try:
        dbs = [PatternDatabase.builtin(name) for name in (args.db or PatternDatabase.names())]
    except ValueError as exc:
        print(f"fastplay bench: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    load_before = _load()
    print(f"{'size':>4}  {'database':<20} {'playouts/s':>11} {'moves/s':>11} "
          f"{f'{args.threads} threads/s':>12} {'speed-up':>8} {'CPU use':>7}")
    for size in args.size or [9, 13, 19]:
        board = Board(size)
        for db in dbs:
            # An untimed batch builds the engine for this table; a short one
            # then sizes the timed ones to about --seconds each.
            _rate(board, db, 10, args.seed, 1)
            probe = _rate(board, db, 200, args.seed, 1)[0]
            n = max(50, int(probe * args.seconds))
            best = {"one": (0.0, 0.0, 0.0), "many": (0.0, 0.0, 0.0)}
            for r in range(args.rounds):
                # By role, not by thread count: --threads 1 measures 1 against 1.
                order = (("one", 1), ("many", args.threads))
                for role, t in order if r % 2 == 0 else order[::-1]:
                    best[role] = max(best[role], _rate(board, db, n, args.seed + r, t))
            one, many = best["one"], best["many"]
            print(f"{size:>4}  {db.name:<20} {one[0]:>11,.0f} {one[0] * one[1]:>11,.0f} "
                  f"{many[0]:>12,.0f} {many[0] / one[0]:>7.2f}x {many[2]:>7.2f}", flush=True)
    # A speed-up is only a speed-up on an idle machine: say how busy it was.
    print(f"load average {load_before} before, {_load()} after; {os.cpu_count()} CPUs")
    return 0


def _load() -> str:
    """The 1-minute load average (``os.getloadavg``), or ``?`` where there is none."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except (AttributeError, OSError):
        return "?"


if __name__ == "__main__":
    # Through the command line's entry, which checks the standard streams.
    from fastplay.cli import main as command_line

    sys.exit(command_line(["bench", *sys.argv[1:]]))
