"""Benchmarks for the pattern databases (pytest-benchmark).

Run with ``pytest benchmarks/bench_patterns.py --benchmark-only`` (the file
name does not match ``test_*``, so pass it explicitly).  Measured:

* compiling each built-in ``.db`` from its bytes with every cache cleared
  (what the first load in a process costs; later loads are cache hits);
* ``PatternDatabase.move_values`` calls per second on a real 9x9 and a real
  19x19 position from the oracle (board contexts included).
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from conftest import REPO, shared_path  # type: ignore[import-not-found]  # noqa: E402

from fastplay import Board  # noqa: E402
from fastplay import patterns  # noqa: E402
from fastplay.patterns import PatternDatabase, compile_db  # noqa: E402


def _clear_caches() -> None:
    patterns._compile_cached.cache_clear()
    patterns._classes_for.cache_clear()


@pytest.mark.parametrize("name", PatternDatabase.names())
def test_compile_builtin_uncached(benchmark: Any, name: str) -> None:
    data = (REPO / "patterns" / f"{name}.db").read_bytes()
    patterns.geometry_table()  # built once per process; not part of a compile
    table, _ = benchmark.pedantic(compile_db, args=(data,), kwargs={"cache": False},
                                  setup=_clear_caches, rounds=20, iterations=1)
    assert table.shape == (1108, 256)


def _real_position(size: int) -> Board:
    """A middle-game position from a real game in the oracle (latest before a move limit)."""
    path = shared_path("oracle", "positions", f"positions_{size}x{size}.jsonl.gz")
    limit = 60 if size == 9 else 150
    chosen: dict[str, Any] | None = None
    with gzip.open(path, "rt") as fh:
        for line in fh:
            r = json.loads(line)
            if (r["source"] == "sgf" and isinstance(r["last_move"], list)
                    and r["move_number"] <= limit
                    and (chosen is None or r["move_number"] > chosen["move_number"])):
                chosen = r
    assert chosen is not None
    rows = chosen["prev_board"]
    black = [(i, j) for i, row in enumerate(rows) for j, ch in enumerate(row) if ch == "X"]
    white = [(i, j) for i, row in enumerate(rows) for j, ch in enumerate(row) if ch == "O"]
    b = Board(size)
    b.setup(black=black, white=white, to_move="W" if chosen["to_move"] == "B" else "B")
    b.play(tuple(chosen["last_move"]))
    return b


@pytest.mark.parametrize("size", [9, 19])
def test_move_values_per_second(benchmark: Any, size: int) -> None:
    board = _real_position(size)
    db = PatternDatabase.default()
    values = benchmark(db.move_values, board)
    assert values.shape == (size, size)


@pytest.mark.parametrize("size", [9, 19])
def test_context_per_second(benchmark: Any, size: int) -> None:
    board = _real_position(size)
    db = PatternDatabase.default()
    point = next(i for i in range(size * size) if board.get_index(i) == 0)
    ctx = benchmark(db.context, board, point)
    assert ctx.vertex == point
