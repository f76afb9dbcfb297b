#!/usr/bin/env python3
"""A fixed playout workload for valgrind, and a per-move summary of its profile.

Speed work on the core starts from a profile.  valgrind counts the same on a
busy machine, so two builds can be compared exactly:

    PY=$(python -c 'import sys; print(sys.executable)')   # not a wrapper script
    valgrind --tool=cachegrind --cache-sim=no --branch-sim=yes \\
        --cachegrind-out-file=/tmp/cg.out "$PY" benchmarks/profile_playouts.py
    python benchmarks/profile_playouts.py --summarize /tmp/cg.out

The first command plays ``--n`` playouts (default 4,000) from the empty
board with one thread; the second runs the same playouts natively to learn
their mean length, then prints instructions, conditional branches and
mispredicted conditional branches per playout move, counted over the lines
of the compiled core (``_rules.c``, ``_playout.c`` and the other core modules)
only, and the functions that mispredict
most.  Mispredictions are what set the time per move here: whether a
neighbour is empty or in atari is as good as random in a playout.  With
``--tool=callgrind`` instead, ``callgrind_annotate`` gives the instruction
profile of the same workload.
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict

from fastplay import Board, PatternDatabase, playouts

# The compiled core's C files (setup.py's CORE_MODULES) and their functions' name prefix.
_MODULES = "rules|tactics|board|playout|tree|core"
CORE_FILE = re.compile(rf"fastplay/_({_MODULES})\.c$")
CORE_PREFIX = re.compile(rf"^__pyx_[fp][fn]?_8fastplay_\d+_({_MODULES})_")


def workload(db: str, size: int, n: int, seed: int) -> float:
    """Play the profiled playouts; returns their mean length in moves."""
    stats = playouts(Board(size), PatternDatabase.builtin(db), n, seed=seed)
    return float(stats.mean_length)


def summarize(path: str, moves: float, top: int) -> None:
    """Print per-move counts of the core modules' C lines in a cachegrind output file."""
    events: list[str] = []
    in_core = False
    fn = ""
    total: dict[str, int] = defaultdict(int)
    by_fn: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    with open(path) as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("fl="):
                in_core = CORE_FILE.search(line.strip()) is not None
            elif line.startswith("fn="):
                fn = CORE_PREFIX.sub("", line[3:].strip())
            elif in_core and line[:1].isdigit():
                for name, value in zip(events, map(int, line.split()[1:])):
                    total[name] += value
                    by_fn[fn][name] += value
    if "Bcm" not in events:
        raise SystemExit("no branch events in the file: run cachegrind with --branch-sim=yes")
    print(f"per playout move ({moves:,.0f} moves), the core modules only:")
    print(f"  instructions {total['Ir'] / moves:8.1f}")
    print(f"  conditional branches {total['Bc'] / moves:8.1f}")
    print(f"  mispredicted {total['Bcm'] / moves:8.2f}")
    print("functions by mispredictions per move:")
    ranked = sorted(by_fn.items(), key=lambda kv: -kv[1]["Bcm"])[:top]
    for name, counts in ranked:
        print(f"  {counts['Bcm'] / moves:6.2f} mispredicted {counts['Ir'] / moves:8.1f} instructions  {name}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", default="mc_montegnu_classic")
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--n", type=int, default=4000, help="playouts (default 4000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--summarize", metavar="CACHEGRIND_OUT",
                    help="summarise this cachegrind file of the same workload instead")
    ap.add_argument("--top", type=int, default=6)
    args = ap.parse_args(argv)
    length = workload(args.db, args.size, args.n, args.seed)
    if args.summarize:
        summarize(args.summarize, length * args.n, args.top)
    else:
        print(f"{args.n} playouts, {args.db}, {args.size}x{args.size}: mean length {length:.2f} moves")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
