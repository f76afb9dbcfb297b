"""pytest-benchmark suite: fastplay playouts per second.

Grid: board size (9, 13, 19) x built-in database (``mc_montegnu_classic``,
``mc_mogo_classic``, ``mc_uniform``) x start position (empty board, or a real
mid-game position from GNU Go's regression games) x threads (1, 2).

Each round is one ``fastplay.playouts`` batch of a fixed size; the batch
sizes are chosen so that a round lasts roughly 0.1-0.2 s on a 2-core
machine, and the whole file finishes in well under three minutes.  The
playouts per second of the median round go into ``extra_info`` (visible
with ``--benchmark-json``) and are printed in a table at the
end of the run.  These are measurements, not pass/fail timing tests:
nothing here asserts a speed.

Run::

    pytest benchmarks/bench_playouts.py --benchmark-columns=median,rounds \
        --benchmark-sort=name

(the file name does not match ``test_*.py``, so it is never part of the normal
test run and has to be named explicitly).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
import os
from pathlib import Path
from typing import Any

import pytest

from fastplay import Board, PatternDatabase, PlayoutStats, playouts

from _bench import median_seconds

# The regression games live beside the repository in the shared folder.
# ../shared beside the checkout, or FASTPLAY_SHARED (as the tests find it).
SHARED = Path(os.environ.get("FASTPLAY_SHARED", Path(__file__).resolve().parents[2] / "shared"))
GAMES_DIR = SHARED / "gnugo-regression" / "games"

DATABASES = ("mc_montegnu_classic", "mc_mogo_classic", "mc_uniform")

# Real games without handicap stones, cut where the opening is over and much
# of the board is still open: the playouts are then shorter than from the
# empty board but still long enough to be representative of search use.
MIDGAME: dict[int, tuple[str, int]] = {
    9: ("cgos/42896.sgf", 24),
    13: ("kgs/tournament11/GNU-CrazyStone.sgf", 60),
    19: ("strategy38.sgf", 120),
}

# Playouts per round: about 0.1-0.2 s each at the rates measured on the
# development machine (9x9 ~25k/s, 13x13 ~10k/s, 19x19 ~4k/s from empty).
BATCH = {9: 4000, 13: 1200, 19: 500}
ROUNDS = 5


class _RateTable:
    """A pytest plugin printing playouts per second at the end of the run.

    Registered from a fixture rather than a ``conftest.py`` so that this
    directory has no ``conftest`` module to shadow ``tests/conftest.py``,
    which other benchmark files import by that name.
    """

    def __init__(self) -> None:
        # (cell name, playouts/s of the median round, mean playout length)
        self.rows: list[tuple[str, float, float]] = []

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.rows:
            return
        terminalreporter.section("fastplay playouts per second (median round)")
        for name, rate, length in self.rows:
            terminalreporter.write_line(f"{name:<48} {rate:>9.0f}/s   mean length {length:6.1f}")


@pytest.fixture(scope="session")
def rate_table(request: pytest.FixtureRequest) -> _RateTable:
    table = _RateTable()
    request.config.pluginmanager.register(table, "fastplay-rate-table")
    return table


@cache
def _database(name: str) -> PatternDatabase:
    return PatternDatabase.builtin(name)


@cache
def _position(size: int, start: str) -> Board:
    """The starting board; cached because SGF replay is not what is measured."""
    if start == "empty":
        return Board(size)
    rel, move = MIDGAME[size]
    path = GAMES_DIR / rel
    if not path.exists():
        pytest.skip(f"regression game {path} not available")
    board = Board.from_sgf(path, move_number=move)
    assert board.size == size
    return board


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("start", ["empty", "midgame"])
@pytest.mark.parametrize("db_name", DATABASES)
@pytest.mark.parametrize("size", [9, 13, 19])
def test_playouts_per_second(benchmark: Any, rate_table: _RateTable, size: int, db_name: str,
                             start: str, threads: int) -> None:
    """Playouts per second for one (size, database, start, threads) cell."""
    board = _position(size, start)
    db = _database(db_name)
    n = BATCH[size]
    # Build the engine for this database and fault the tables in before timing.
    playouts(board, db, 64, seed=1, threads=threads)
    seeds = iter(range(10_000))
    results: list[PlayoutStats] = []

    def run() -> None:
        # A fresh seed per round so that no round replays another's games.
        results.append(playouts(board, db, n, seed=next(seeds), threads=threads))

    run_fn: Callable[[], None] = run
    benchmark.group = f"{size}x{size} {start}"
    benchmark.pedantic(run_fn, rounds=ROUNDS, iterations=1, warmup_rounds=0)
    assert all(r.n == n for r in results)
    median_s = median_seconds(benchmark)
    if median_s is None:
        return
    benchmark.extra_info.update({
        "n_per_round": n,
        "playouts_per_second": n / median_s,
        "mean_length": sum(r.mean_length for r in results) / len(results),
        "position": "empty" if start == "empty" else "{}@{}".format(*MIDGAME[size]),
    })
    rate_table.rows.append((f"{size}x{size} {db_name} {start} threads={threads}",
                  benchmark.extra_info["playouts_per_second"], benchmark.extra_info["mean_length"]))
