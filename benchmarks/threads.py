#!/usr/bin/env python3
"""Playouts per second with 1 and with T threads, and how much CPU the T-thread run got.

For each board size and database, ``fastplay.playouts`` runs from the empty
board with ``threads=1`` and ``threads=T`` (default 2) alternately,
``--rounds`` times each; the best rate of each is kept (on a shared machine
the best round is the least disturbed one).  The table gives both rates,
their ratio (the speed-up) and the CPU use of the best T-thread round
(process CPU seconds / wall seconds): a speed-up well below T with a CPU use
near T would mean the threads contend; a CPU use well below T means another
process held a core, and the speed-up says nothing.

The results of the two runs are the same (same seed): playout ``i`` always
uses random stream ``i``, whatever thread plays it.

Example::

    python benchmarks/threads.py                       # 9x9 and 19x19, montegnu and uniform
    python benchmarks/threads.py --size 13 --db mc_mogo_classic --threads 2 --rounds 3
"""

from __future__ import annotations

import argparse
import os
import time

from fastplay import Board, PatternDatabase, playouts

#: Playouts per round by board size: about a second of work for one thread.
DEFAULT_N = {9: 40_000, 13: 12_000, 19: 4_000}


def one_round(board: Board, db: PatternDatabase, n: int, threads: int, seed: int
              ) -> tuple[float, float]:
    """(playouts per wall second, CPU seconds per wall second) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    playouts(board, db, n, seed=seed, threads=threads)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return n / wall, cpu / wall


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, action="append", help="board size (repeatable; default 9 and 19)")
    ap.add_argument("--db", action="append", help="built-in database (repeatable; default "
                    "mc_montegnu_classic and mc_uniform)")
    ap.add_argument("--threads", type=int, default=2, help="threads of the second run (default 2)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of each, alternated (default 3)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    sizes = args.size or [9, 19]
    names = args.db or ["mc_montegnu_classic", "mc_uniform"]
    print(f"{os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.2f} at start")
    print(f"{'database':21s} {'size':>4s} {'n':>7s} {'1 thread/s':>11s} "
          f"{f'{args.threads} threads/s':>12s} {'speed-up':>8s} {'CPU use':>7s}")
    for name in names:
        db = PatternDatabase.builtin(name)
        for size in sizes:
            board, n = Board(size), DEFAULT_N.get(size, 10_000)
            playouts(board, db, n // 20, seed=args.seed)  # warm-up
            one: list[float] = []
            many: list[tuple[float, float]] = []
            for r in range(args.rounds):
                order = (1, args.threads) if r % 2 == 0 else (args.threads, 1)
                for t in order:
                    rate, use = one_round(board, db, n, t, args.seed + r)
                    if t == 1:
                        one.append(rate)
                    else:
                        many.append((rate, use))
            best_many = max(many)
            print(f"{name:21s} {size:4d} {n:7d} {max(one):11,.0f} {best_many[0]:12,.0f} "
                  f"{best_many[0] / max(one):7.2f}x {best_many[1]:7.2f}")
    print(f"load average {os.getloadavg()[0]:.2f} at end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
