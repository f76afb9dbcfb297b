"""pytest-benchmark suite: MCTS playouts per second next to bare ``playouts()``.

Issue 5 asks that a search spend its time in the playouts: with one thread on
9x9, MCTS must reach at least 50 % of the rate of bare
:func:`fastplay.playouts` on the same position.  Each case is measured on a
real mid-game position (the same ones as ``bench_playouts.py``) and on the
empty board, with 1 and 2 threads; the bare rate uses the same scoring
(Tromp-Taylor) and AMAF tallies as the search.  The playouts per second go
into ``extra_info`` and a table printed at the end.  Measurements, not
pass/fail tests.

Run (about a minute)::

    pytest benchmarks/bench_mcts.py --benchmark-columns=median,rounds --benchmark-sort=name

or ``python benchmarks/bench_mcts.py [--batch N]`` for the table alone
(``--batch``: playouts per leaf instead of the search's default, to compare;
``--search NAME=VALUE``: a search option; ``--versus NAME=VALUE``: a second
search with these options in the same interleaved rounds, its rate in a
column of its own; ``--cpu``: playouts per CPU second of this process, the
one-thread cases only, which a loaded machine disturbs less than wall time).
"""

from __future__ import annotations

import os
import sys
import time
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from fastplay import Board, PatternDatabase, playouts
from fastplay.argtypes import search_option
from fastplay.mcts import MCTS

from _bench import median_seconds

# ../shared beside the checkout, or FASTPLAY_SHARED (as the tests find it).
SHARED = Path(os.environ.get("FASTPLAY_SHARED", Path(__file__).resolve().parents[2] / "shared"))
GAMES_DIR = SHARED / "gnugo-regression" / "games"
MIDGAME = {9: ("cgos/42896.sgf", 24), 19: ("strategy38.sgf", 120)}
# Playouts per round: ~0.3-1 s at 1 thread.
PLAYOUTS = {9: 5000, 19: 1000}

_RATES: dict[tuple[str, int, str, int], float] = {}


@cache
def _db() -> PatternDatabase:
    return PatternDatabase.builtin("mc_montegnu_classic")


def position(size: int, where: str) -> Board:
    """The empty board or the real mid-game position of ``size``."""
    if where == "empty":
        return Board(size, komi=7.5)
    name, move = MIDGAME[size]
    return Board.from_sgf(GAMES_DIR / name, move_number=move)


def bare_rate(board: Board, n: int, threads: int, seed: int = 1, cpu: bool = False) -> float:
    """Bare playouts per second (wall clock, or CPU time of this process)."""
    start = time.process_time()
    stats = playouts(board, _db(), n=n, seed=seed, threads=threads, scoring="tromp-taylor",
                     amaf=True)
    return float(stats.n / (time.process_time() - start if cpu else stats.seconds))


def mcts_rate(board: Board, n: int, threads: int, seed: int = 1,
              batch: int | None = None, options: dict[str, Any] | None = None,
              cpu: bool = False) -> float:
    """The default search's playouts per second (wall clock, or CPU time of
    this process); ``options``: more :class:`fastplay.search.SearchConfig` options."""
    search = MCTS(_db(), threads=threads, seed=seed,
                  **{"resign_threshold": None, "batch": batch, **(options or {})})
    start = time.process_time()
    result = search.run(board, playouts=n)
    return result.playouts / (time.process_time() - start if cpu else result.seconds)


CASES = [(size, where, threads) for size in (9, 19) for where in ("midgame", "empty")
         for threads in (1, 2)]


@pytest.mark.parametrize("kind", ["bare", "mcts"])
@pytest.mark.parametrize("size, where, threads", CASES)
def test_rate(benchmark: Any, kind: str, size: int, where: str, threads: int) -> None:
    board = position(size, where)
    n = PLAYOUTS[size]
    func = bare_rate if kind == "bare" else mcts_rate
    seconds = benchmark.pedantic(lambda: func(board, n, threads), rounds=3, iterations=1)
    del seconds
    median = median_seconds(benchmark)
    if median:
        rate = n / median
        benchmark.extra_info["playouts_per_second"] = rate
        _RATES[(kind, size, where, threads)] = rate


def table(rates: dict[tuple[str, int, str, int], float]) -> str:
    """The rates as a table; a ``versus`` search's columns when it was measured."""
    versus = any(key[0] == "versus" for key in rates)
    lines = [f"{'size':>4} {'position':>8} {'threads':>7} {'bare/s':>9} {'mcts/s':>9} {'ratio':>6}"
             + (f" {'versus/s':>9} {'ratio':>6}" if versus else "")]
    for size, where, threads in CASES:
        bare = rates.get(("bare", size, where, threads))
        mcts = rates.get(("mcts", size, where, threads))
        other = rates.get(("versus", size, where, threads))
        if bare and mcts:
            lines.append(f"{size:>4} {where:>8} {threads:>7} {bare:>9.0f} {mcts:>9.0f} "
                         f"{100 * mcts / bare:>5.0f}%"
                         + (f" {other:>9.0f} {100 * other / bare:>5.0f}%" if other else ""))
    return "\n".join(lines)


def teardown_module() -> None:
    if _RATES:
        print("\n" + table(_RATES))


def _batch(text: str) -> int:
    """``--batch``: playouts per leaf, checked as the search checks it."""
    import argparse

    from fastplay.search.config import MAX_BATCH

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not 1 <= value <= MAX_BATCH:
        raise argparse.ArgumentTypeError(f"must be in [1, {MAX_BATCH}], not {value}")
    return value


def main(argv: list[str] | None = None) -> int:
    """Interleave bare and MCTS runs (3 rounds each, median) and print the table."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--batch", type=_batch, default=None,
                        help="MCTS playouts per leaf (default: the search's own choice)")
    parser.add_argument("--search", action="append", default=[], metavar="NAME=VALUE",
                        type=search_option, help="a search option (repeatable), as "
                        "fastplay gtp --search takes it")
    parser.add_argument("--versus", action="append", default=[], metavar="NAME=VALUE",
                        type=search_option, help="measure a second search with this option "
                        "(repeatable) in the same rounds")
    parser.add_argument("--cpu", action="store_true",
                        help="playouts per CPU second; one-thread cases only")
    args = parser.parse_args(argv)
    searches = {"mcts": dict(args.search)}
    if args.versus:
        searches["versus"] = {**searches["mcts"], **dict(args.versus)}
    rates: dict[tuple[str, int, str, int], float] = {}
    for size, where, threads in CASES:
        if args.cpu and threads > 1:
            continue
        board = position(size, where)
        n = PLAYOUTS[size]
        samples: dict[str, list[float]] = {"bare": [], **{kind: [] for kind in searches}}
        for round_ in range(3):
            samples["bare"].append(bare_rate(board, n, threads, seed=round_ + 1, cpu=args.cpu))
            for kind, options in searches.items():
                samples[kind].append(mcts_rate(board, n, threads, seed=round_ + 1,
                                               batch=args.batch, options=options,
                                               cpu=args.cpu))
        for kind, values in samples.items():
            rates[(kind, size, where, threads)] = sorted(values)[1]
        print(table({k: v for k, v in rates.items() if k[1:] == (size, where, threads)})
              .splitlines()[-1], flush=True)
    print(table(rates))
    return 0


if __name__ == "__main__":
    start = time.perf_counter()
    status = main()
    print(f"({time.perf_counter() - start:.0f} s)", file=sys.stderr)
    sys.exit(status)
