"""Thread stress: searches on 1-8 threads, pondering started and stopped at
random moments, ``clear_board`` during a ponder (issue 21, item 5).

    python fuzz/stress_threads.py [--rounds 200] [--seed 1] [--deadline 60]

Each round is one of

* a search (``MCTS.run``) of a random position of a random size with 1-8
  threads and a visit limit: it must stop with exactly that many visits at
  the root,
  every edge of the tree must satisfy ``parent.n[i] == child.base +
  child.n.sum()`` (visits through an edge are the child's), no virtual loss
  may be left, and the root's visits must equal the children's;
* a GTP session with pondering (``fastplay gtp --ponder``'s engine): random
  ``genmove``, ``play``, ``undo``, ``clear_board``, ``boardsize`` and
  analysis commands with random sleeps between them, so that commands land
  while the engine ponders; every response must be ``=`` or ``?``.

Every round runs under a watchdog: one that takes longer than ``--deadline``
seconds is a deadlock, and all thread stacks are printed
(``faulthandler``).  Afterwards no fastplay thread may be left running.
Exit status 0 when every round passed.
"""

from __future__ import annotations

import argparse
import faulthandler
import random
import sys
import threading
import time
from collections.abc import Callable

import numpy as np

import fastplay as fp
from fastplay.gtp import GTPEngine
from fastplay.search import MCTS

DB = fp.PatternDatabase.builtin("mc_montegnu_classic")


def random_position(rng: random.Random) -> fp.Board:
    """A board of size 5, 9, 13 or 19 after 0-40 random legal moves."""
    board = fp.Board(rng.choice((5, 9, 9, 13, 19)))
    for _ in range(rng.randint(0, 40)):
        moves = board.legal_moves()
        if not moves:
            break
        board.play(rng.choice(moves))
    return board


def check_tree(search: MCTS, visits: int) -> None:
    """The invariants of a finished search's tree (see the module docstring)."""
    root = search.root
    if root is None:
        raise AssertionError("no tree after a search")
    if abs(float(root.n.sum()) - visits) > 1e-6:
        raise AssertionError(f"root visits {root.n.sum()} != {visits}")
    stack = [root]
    while stack:
        node = stack.pop()
        if np.any(node.vl != 0):
            raise AssertionError("virtual loss left after the search")
        for i, child in enumerate(node.children):
            if child is None:
                continue
            if abs(node.n[i] - (child.base + child.n.sum())) > 1e-6:
                raise AssertionError(f"edge {i}: {node.n[i]} visits, child has "
                                     f"{child.base} + {child.n.sum()}")
            stack.append(child)


def search_round(rng: random.Random) -> None:
    board = random_position(rng)
    threads = rng.randint(1, 8)
    visits = rng.choice((50, 200, 800))
    # A score in the leaf value sends simulations through the Python loop
    # (fastplay.search.loop._simulate) instead of the core's.
    score_weight = rng.choice((0.0, 0.0, 0.0, 0.1))
    search = MCTS(DB, threads=threads, seed=rng.randint(0, 9), resign_threshold=None,
                  score_weight=score_weight)
    result = search.run(board, playouts=visits)   # a visit limit: games ended in the
    if result.visits != visits:                   # tree are visits without a playout
        raise AssertionError(f"{threads} threads: {result.visits} visits, asked {visits}")
    check_tree(search, visits)


_COMMANDS = ("genmove b", "genmove w", "play b {v}", "play w {v}", "undo", "clear_board",
             "boardsize 9", "boardsize 13", "lz-analyze 5", "kata-analyze 5 ownership true",
             "showboard", "final_score", "komi 6.5", "time_left b 5 0")


def gtp_round(rng: random.Random) -> None:
    engine = GTPEngine(playouts=rng.choice((30, 100)), threads=rng.randint(1, 4),
                       seed=rng.randint(0, 9), ponder=True, size=9)
    try:
        for _ in range(rng.randint(3, 12)):
            command = rng.choice(_COMMANDS)
            if "{v}" in command:
                legal = engine.board.legal_moves()
                command = command.format(v=rng.choice(legal) if legal else "pass")
            answer = engine.handle(command)
            if answer is not None and (not answer.startswith(("=", "?"))
                                       or "internal error" in answer):
                raise AssertionError(f"{command!r} -> {answer!r}")
            time.sleep(rng.choice((0.0, 0.001, 0.01, 0.05)))
    finally:
        engine.handle("quit")


def watched(task: Callable[[], None], deadline: float) -> None:
    """Run ``task`` in a thread; a deadlock (no end within ``deadline``) or an
    exception is raised here, with every thread's stack for a deadlock."""
    failure: list[BaseException] = []

    def body() -> None:
        try:
            task()
        except BaseException as exc:  # noqa: BLE001 - reported to the caller
            failure.append(exc)

    thread = threading.Thread(target=body, daemon=True)
    thread.start()
    thread.join(deadline)
    if thread.is_alive():
        faulthandler.dump_traceback(all_threads=True)
        raise AssertionError(f"no end within {deadline} s: a deadlock")
    if failure:
        raise failure[0]


def leftover_threads(grace: float = 5.0) -> list[str]:
    """fastplay threads still alive ``grace`` seconds after the last round."""
    end = time.monotonic() + grace
    while True:
        alive = [t.name for t in threading.enumerate() if t.name.startswith("fastplay")]
        if not alive or time.monotonic() > end:
            return alive
        time.sleep(0.05)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--deadline", type=float, default=60.0)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    start = time.perf_counter()
    for k in range(args.rounds):
        kind = gtp_round if k % 2 else search_round
        seed = rng.randrange(2**32)
        try:
            watched(lambda: kind(random.Random(seed)), args.deadline)
        except AssertionError as exc:
            print(f"round {k} ({kind.__name__}, seed {seed}): {exc}", file=sys.stderr)
            return 1
    alive = leftover_threads()
    if alive:
        print(f"threads left running: {alive}", file=sys.stderr)
        return 1
    print(f"{args.rounds} rounds passed in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
