#!/usr/bin/env python3
"""A fixed search workload for valgrind: the search's cost per playout, exactly.

The wall-clock benchmark (``bench_mcts.py``) is at the mercy of a shared
machine; an instruction count is not.  Run the workload at two playout
counts and divide the difference by the difference of playouts::

    PY=$(python -c 'import sys; print(sys.executable)')
    for n in 500 3500; do
        OPENBLAS_NUM_THREADS=1 valgrind --tool=cachegrind --cache-sim=no \\
            --cachegrind-out-file=/dev/null \\
            "$PY" benchmarks/profile_search.py $n 2>&1 | grep 'I *refs'
    done

``OPENBLAS_NUM_THREADS=1``: cachegrind counts every thread, and OpenBLAS's
idle threads spin for a while after numpy starts (tens of millions of
instructions, a different number each run); the difference of two runs then
moved by several thousand instructions per simulation.

Instructions are not cycles: the search's own work misses the L1 cache and
mispredicts branches far more often per instruction than a playout does
(RESULTS.md, "cycles are not instructions").  Add ``--cache-sim=yes
--branch-sim=yes`` (and the bare workload of RESULTS.md next to it) to
count L1 misses and mispredictions per simulation the same way.

The position is the 9x9 middle game of ``bench_mcts.py`` (``cgos/42896.sgf``
at move 24), the search the default one with one thread and seed 1;
``NAME=VALUE`` arguments after the count set search options as ``fastplay
gtp --search`` does (``profile_search.py 3500 expand_threshold=4``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import fastplay as fp
from fastplay.search import MCTS

# ../shared beside the checkout, or FASTPLAY_SHARED (as the tests find it).
SHARED = Path(os.environ.get("FASTPLAY_SHARED", Path(__file__).resolve().parents[2] / "shared"))
GAMES = SHARED / "gnugo-regression" / "games"


def main(argv: list[str]) -> int:
    import argparse

    from fastplay.argtypes import any_search_option

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("n", type=int, nargs="?", default=3500, help="playouts (>= 0)")
    parser.add_argument("options", nargs="*", type=any_search_option, metavar="NAME=VALUE",
                        help="search options (any SearchConfig option, batch and "
                        "prior_table included)")
    args = parser.parse_args(argv)
    if args.n < 0:
        parser.error(f"playouts must be >= 0, not {args.n}")
    options = {"resign_threshold": None, **dict(args.options)}
    record = GAMES / "cgos" / "42896.sgf"
    if not record.is_file():
        parser.error(f"{record}: no such file (the shared data: ../shared beside the "
                     f"checkout, or FASTPLAY_SHARED)")
    board = fp.Board.from_sgf(record, move_number=24)
    db = fp.PatternDatabase.builtin("mc_montegnu_classic")
    try:
        search = MCTS(db, seed=1, **options)
    except (OSError, ValueError) as exc:    # a prior that cannot be read, mix without evaluator
        parser.error(str(exc))
    if args.n > 0:
        search.run(board, playouts=args.n)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
