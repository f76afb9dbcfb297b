#!/usr/bin/env python3
"""Check that playouts neither leak memory nor allocate Python objects per playout.

Two checks, both on 9x9:

1. **Allocations per playout**: ``fastplay.playouts`` is called with a small
   and a large ``n``; with ``tracemalloc`` on, the peak of traced memory
   during the call and the number of live allocated blocks
   (``sys.getallocatedblocks``) after it must not depend on ``n``.  The call
   does allocate a fixed set of objects (result arrays, the statistics
   dataclass, per-thread workers), but a playout itself must allocate
   nothing that Python sees.  (Transient objects created and freed inside
   a playout would not show in either figure; they are excluded by
   construction: the playout loop runs in Cython ``nogil`` code, where
   creating a Python object does not compile.  What this check adds is that
   nothing retained grows with ``n``.)

2. **Resident memory stays flat**: ``--total`` playouts (default 10^6) are
   run in batches, printing the resident set size (``VmRSS`` from
   ``/proc/self/status``) after each batch.  After ``--warmup`` batches the
   RSS must stay within ``--tolerance-mib`` (default 2 MiB) of its
   post-warm-up value.

Exit status 0 if both checks pass, 1 otherwise.

Example::

    python benchmarks/memory_flat.py                      # 10^6 playouts
    python benchmarks/memory_flat.py --total 200000 --threads 2
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
import tracemalloc
from pathlib import Path

from fastplay import Board, PatternDatabase, playouts

MIB = 1024 * 1024
N_SMALL, N_LARGE = 2_000, 40_000
PEAK_SLACK = 4096  # bytes; see check_allocations


def rss_bytes() -> int:
    """Current resident set size of this process, from /proc (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS line in /proc/self/status")


def allocation_probe(board: Board, db: PatternDatabase, n: int, threads: int) -> tuple[int, int]:
    """(tracemalloc peak during one call, live blocks left afterwards) for ``n`` playouts."""
    gc.collect()
    blocks_before = sys.getallocatedblocks()
    tracemalloc.reset_peak()
    base, _ = tracemalloc.get_traced_memory()
    stats = playouts(board, db, n, seed=n, threads=threads)
    _, peak = tracemalloc.get_traced_memory()
    assert stats.n == n
    del stats
    gc.collect()
    return peak - base, sys.getallocatedblocks() - blocks_before


def check_allocations(board: Board, db: PatternDatabase, threads: int) -> bool:
    """True if the Python-visible allocation of a call does not grow with ``n``."""
    # Warm everything that is built once per process (engine, caches) first.
    playouts(board, db, 100, seed=0, threads=threads)
    tracemalloc.start()
    try:
        small = [allocation_probe(board, db, N_SMALL, threads) for _ in range(2)]
        large = [allocation_probe(board, db, N_LARGE, threads) for _ in range(2)]
    finally:
        tracemalloc.stop()
    peak_small = min(p for p, _ in small)
    peak_large = min(p for p, _ in large)
    left_small = max(b for _, b in small)
    left_large = max(b for _, b in large)
    print(f"allocations: n={N_SMALL} -> peak {peak_small} B traced, {left_small:+d} live blocks "
          f"after; n={N_LARGE} -> peak {peak_large} B traced, {left_large:+d} live blocks after")
    # 20x more playouts: one retained 16-byte object per playout would add
    # over 600 kB to the peak.  The slack covers the score histogram (a dict
    # and index arrays with one entry per distinct score, at most 2*81+1 on
    # 9x9), which grows with the spread of scores seen, not with n.
    ok = peak_large <= peak_small + PEAK_SLACK and left_large <= max(left_small, 0) + 8
    print("allocations per playout: " + ("none seen (OK)" if ok else "GROW WITH n (FAIL)"))
    return ok


def check_rss(board: Board, db: PatternDatabase, total: int, batch: int, warmup: int,
              tolerance: float, threads: int) -> bool:
    """True if resident memory stays within ``tolerance`` bytes after ``warmup`` batches."""
    batches = max(1, -(-total // batch))
    ref: int | None = None
    worst = 0
    done = 0
    start = time.perf_counter()
    for i in range(batches):
        n = min(batch, total - done)
        playouts(board, db, n, seed=i, threads=threads)
        done += n
        rss = rss_bytes()
        if i + 1 == warmup:
            ref = rss
        drift = rss - ref if ref is not None else 0
        if ref is not None:
            worst = max(worst, abs(drift))
        tag = "warm-up" if ref is None or i + 1 == warmup else f"{drift / MIB:+.2f} MiB"
        print(f"batch {i + 1:>3}/{batches}: {done:>8} playouts, RSS {rss / MIB:8.2f} MiB  ({tag})",
              flush=True)
    elapsed = time.perf_counter() - start
    print(f"{done} playouts in {elapsed:.1f} s ({done / elapsed:.0f}/s)")
    if ref is None:
        print("RSS: not enough batches after warm-up to judge (FAIL)")
        return False
    ok = worst <= tolerance
    print(f"RSS after warm-up: worst drift {worst / MIB:.2f} MiB, tolerance {tolerance / MIB:.2f} MiB "
          + ("(OK)" if ok else "(FAIL)"))
    return ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--total", type=int, default=1_000_000, help="playouts in all (default 10^6)")
    ap.add_argument("--batch", type=int, default=20_000, help="playouts per batch")
    ap.add_argument("--warmup", type=int, default=2, help="batches before the reference RSS")
    ap.add_argument("--tolerance-mib", type=float, default=2.0, help="allowed RSS drift (MiB)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--db", default="mc_montegnu_classic", help="built-in database name")
    args = ap.parse_args(argv)

    board = Board(9)
    db = PatternDatabase.builtin(args.db)
    print(f"9x9 empty board, {args.db}, threads={args.threads}")
    alloc_ok = check_allocations(board, db, args.threads)
    rss_ok = check_rss(board, db, args.total, args.batch, args.warmup,
                       args.tolerance_mib * MIB, args.threads)
    ok = alloc_ok and rss_ok
    print("memory: " + ("flat (OK)" if ok else "NOT flat (FAIL)"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
