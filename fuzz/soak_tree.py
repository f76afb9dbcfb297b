"""How much memory a search tree takes per node (issue 21: a 10^6-node tree under 1 GiB).

    python fuzz/soak_tree.py [--nodes 1000000] [--size 9] [--chunk 50000]
                             [--sgf FILE [--move N]]

One search of the empty board (or of a record's position) grows its tree
(``max_nodes`` = ``--nodes``, ``max_memory`` out of the way) chunk after
chunk of visits, reusing the tree, until it holds ``--nodes`` nodes; after
each chunk it prints the nodes, the edges (counted exactly), the resident
memory gained since the start (``VmRSS``) and the bytes per node and per
edge, next to the search's own estimate per node (``search.config``'s
``NODE_BYTES`` a node and ``EDGE_BYTES`` an edge).  Exit status 0 when the
tree of ``--nodes`` nodes took less than 1 GiB; 1 when it did not, or when
the tree stopped growing before (no projection is made then).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import fastplay as fp
from fastplay.search import MCTS
from fastplay.search.config import EDGE_BYTES, NODE_BYTES

GIB = 1 << 30


def rss() -> int:
    """Resident memory of this process (bytes)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def _start(parser: argparse.ArgumentParser, args: argparse.Namespace) -> fp.Board:
    """The position to grow the tree from; usage errors through ``parser``."""
    from fastplay.argtypes import board_size

    if args.nodes < 1 or args.chunk < 1:
        parser.error("--nodes and --chunk must be >= 1")
    if args.sgf is None:
        if args.move is not None:
            parser.error("--move needs --sgf")
        try:
            return fp.Board(board_size(str(args.size if args.size is not None else 9)))
        except (ValueError, argparse.ArgumentTypeError) as exc:
            parser.error(f"--size: {exc}")
    if args.size is not None:
        parser.error("--size and --sgf: the record gives the size")
    try:
        return fp.Board.from_sgf(args.sgf, move_number=args.move)
    except (OSError, ValueError) as exc:
        parser.error(f"{args.sgf}: {exc}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=1_000_000)
    parser.add_argument("--size", type=int, default=None, help="the empty board's size "
                        "(default 9)")
    parser.add_argument("--chunk", type=int, default=50_000, help="visits per chunk")
    parser.add_argument("--sgf", type=Path, help="start from this record's position "
                        "(its board size) instead of the empty board")
    parser.add_argument("--move", type=int, default=None,
                        help="with --sgf: the position after this many moves (default: all)")
    args = parser.parse_args(argv)
    board = _start(parser, args)
    search = MCTS(fp.PatternDatabase.builtin("mc_montegnu_classic"), seed=1,
                  max_nodes=args.nodes, max_memory=1 << 50, resign_threshold=None)
    base = rss()
    start = time.perf_counter()
    grown = used = 0
    while True:
        search.run(board, playouts=args.chunk)
        tree = search.tree
        used = rss() - base
        print(f"{tree.nodes:9,} nodes {tree.edges:11,} edges  RSS +{used / 2**20:8.1f} MiB  "
              f"{used / max(tree.nodes, 1):7.0f} B/node {used / max(tree.edges, 1):5.1f} B/edge "
              f"(estimate {NODE_BYTES + EDGE_BYTES * tree.edges / max(tree.nodes, 1):7.0f} "
              f"B/node)  {time.perf_counter() - start:5.0f} s", flush=True)
        if tree.nodes >= args.nodes or tree.nodes == grown:
            break
        grown = tree.nodes
    if search.tree.nodes < args.nodes:
        # A small board's tree can hold every position: the process's own
        # memory then dominates, and no projection means anything.
        print(f"the tree stopped growing at {search.tree.nodes:,} nodes: no projection")
        return 1
    per_node = used / max(search.tree.nodes, 1)
    projected = per_node * 1_000_000
    print(f"{search.tree.nodes:,} nodes took {used / 2**20:.0f} MiB: {per_node:.0f} bytes per node, "
          f"{projected / GIB:.2f} GiB for 10^6 nodes (target < 1 GiB)")
    return 0 if used < GIB else 1


if __name__ == "__main__":
    sys.exit(main())
