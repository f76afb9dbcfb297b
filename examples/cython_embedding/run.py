"""Run playouts from C through fastplay's Cython API and check them against Python's.

Plays a few opening moves through the board's C interface, then 20,000
playouts of seed 7 from C without the GIL (``embed.playouts``), and checks
that they are exactly ``fastplay.playouts(board, db, 20000, seed=7)``: same
wins, same score histogram, same total length; playout 0 is
``fastplay.playout(board, db, seed=7)``.  Prints the rate.  Exits 1 on a
mismatch.
"""

from __future__ import annotations

import sys
import time

import numpy as np

import embed
import fastplay as fp
from fastplay.montecarlo import playout_engine, seed_key

N, SEED = 20_000, 7


def main() -> int:
    db = fp.PatternDatabase.builtin("mc_montegnu_classic")
    engine = playout_engine(db)
    board = fp.Board(9, komi=7.5)
    black, white = fp.Color.BLACK, fp.Color.WHITE        # their values are the core's codes
    embed.play(board, [(black, 40), (white, 30), (black, 32), (white, -1)])
    start = time.perf_counter()
    scores, winners, lengths = embed.playouts(board, engine, seed_key(SEED), N, board.komi)
    seconds = time.perf_counter() - start
    ref = fp.playouts(board, db, N, seed=SEED)
    one = fp.playout(board, db, seed=SEED)
    hist: dict[int, int] = {}
    for s in np.rint(scores + board.komi).astype(int):
        hist[int(s)] = hist.get(int(s), 0) + 1
    checks = {
        "black wins": (int((winners == 2).sum()), ref.black_wins),
        "draws": (int((winners == 0).sum()), ref.draws),
        "score histogram": (hist, ref.score_hist),
        "mean length": (float(lengths.mean()), ref.mean_length),
        "playout 0": ((float(scores[0]), int(lengths[0])), (one.score, one.length)),
    }
    bad = [name for name, (got, want) in checks.items() if got != want]
    print(f"{N} playouts from C in {seconds:.2f} s: {N / seconds:,.0f} playouts/s "
          f"(fastplay.playouts: {ref.playouts_per_second:,.0f}/s)")
    for name in bad:
        print(f"MISMATCH {name}: {checks[name][0]!r} != {checks[name][1]!r}")
    print("identical to fastplay.playouts" if not bad else "results differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
