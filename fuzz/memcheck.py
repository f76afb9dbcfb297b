"""A short playout and search workload under ``valgrind --tool=memcheck`` (issue 21).

    python fuzz/memcheck.py [--log memcheck.txt]

The workload (``--workload``, run inside valgrind): playouts with all three
built-in databases on 9x9 and 19x19 (1 and 2 threads, AMAF, debug checks),
a 1,000-visit search on 9x9 and a 300-visit one on 19x19 with 2 threads,
a 9x9 search with last good replies and ties at the widening's cut,
tactics and races on a real position, undo and copies.  CPython runs with
``PYTHONMALLOC=malloc`` so that memcheck sees every allocation.  Each error
memcheck reports is kept if its stack passes through one of fastplay's
compiled modules (CPython's own reports, e.g. about its garbage collector
reading uninitialised padding, are counted apart).  Exit status 0 when no
error touches fastplay.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

# A frame of the core: a Cython symbol (__pyx_..._8fastplay_6_rules_...) or its file.
_CORE = re.compile(r"8fastplay_\d+_(rules|tactics|board|playout|tree|core)_"
                   r"|fastplay/_(rules|tactics|board|playout|tree|core)[.]")


def workload() -> None:
    import fastplay as fp
    from fastplay._core import PlayoutTally
    from fastplay.montecarlo import playout_engine
    from fastplay.search import MCTS, SearchConfig
    from fastplay.search.driver import tree_params

    for size in (9, 19):
        board = fp.Board(size)
        for db in ("mc_montegnu_classic", "mc_mogo_classic", "mc_uniform"):
            fp.playouts(board, db, 40, seed=1, threads=1, amaf=True, debug_check=size == 9)
            fp.playouts(board, db, 40, seed=2, threads=2, scoring="tromp-taylor")
    games = Path(os.environ.get("FASTPLAY_SHARED")
                 or Path(__file__).resolve().parents[2] / "shared") / "gnugo-regression" / "games"
    record = sorted(games.rglob("*.sgf"))[0]
    board = fp.Board.from_sgf(record, move_number=30)
    board.tactics("B"), board.races("W"), board.copy().undo()
    db = fp.PatternDatabase.builtin("mc_montegnu_classic")
    MCTS(db, seed=1).run(fp.Board(9), playouts=1000)
    MCTS(db, seed=1, threads=2).run(fp.Board(19), playouts=300)
    # The last-good-reply table, ties at the widening's cut, the values
    # selection computes, a playout's recorded moves.
    board = fp.Board(9)
    board.play("E5")
    search = MCTS(db, SearchConfig(reply_visits=10, widen_ties=True), seed=1)
    search.run(board, playouts=500)
    assert search.root is not None
    search.root.values(tree_params(search.config, 9, search.prior is not None))
    tally = PlayoutTally(9)
    playout_engine(db).run_into(tally, board, 1, 1)
    tally.last_moves


def errors(log: str) -> tuple[int, list[str]]:
    """(all error reports, those whose stack passes through fastplay's core)."""
    blocks = re.split(r"\n==\d+== \n", log)
    reports = [b for b in blocks if re.search(r"==\d+== (Invalid|Conditional|Use of|Syscall "
                                              r"param|Mismatched|Source and destination)", b)]
    return len(reports), [b for b in reports if _CORE.search(b)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--log", type=Path, default=Path("memcheck.txt"))
    parser.add_argument("--workload", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.workload:
        workload()
        return 0
    env = dict(os.environ, PYTHONMALLOC="malloc")
    command = ["valgrind", "--tool=memcheck", "--leak-check=no", "--num-callers=30",
               sys.executable, __file__, "--workload"]
    proc = subprocess.run(command, env=env, capture_output=True, text=True, errors="replace")
    args.log.write_text(proc.stderr)
    total, ours = errors(proc.stderr)
    summary = re.findall(r"ERROR SUMMARY: (\d+) errors", proc.stderr)
    print(f"memcheck: workload exit {proc.returncode}; {summary[-1] if summary else '?'} errors "
          f"in all, {len(ours)} of {total} reports through fastplay's core (log {args.log})")
    for block in ours[:5]:
        print(block[:2000])
    return 0 if proc.returncode == 0 and not ours else 1


if __name__ == "__main__":
    sys.exit(main())
