"""pytest-benchmark suite: how fast the Board plays random legal moves, and copies.

Run::

    pytest benchmarks/bench_board.py --benchmark-columns=median,rounds --benchmark-sort=name

(the file name does not match ``test_*.py``, so it is never part of the normal
test run and has to be named explicitly).

Each round of the move benchmarks plays one whole random game from the empty
board with a fixed seed: at every turn a uniformly random legal move of the
side to move (a pass when there is none), until two passes in a row or
``3 * size * size`` moves.  Since the seed is fixed, every round plays the
same game, and the moves per second of the median round go into
``extra_info`` (see ``--benchmark-json``).  The move choice is part of what is
timed -- that is the work a random player does.  Three levels:

* ``gtp``: the Python API with GTP strings, ``legal_moves()`` + ``play("D4")``;
* ``index``: the Python API with flat indices, ``legal_indices()`` + ``play(int)``;
* ``core``: the compiled entry points, ``legal_indices()`` + ``play_index(v, colour)``.

``test_play_only_moves_per_second`` replays the same game with its moves
chosen beforehand, so it times ``play`` / ``play_index`` alone.

``copy()`` is timed on a 9x9 and a 19x19 position part-way into such a game.  These are
measurements, not pass/fail timing tests: nothing here asserts a speed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from fastplay import Board
from fastplay._core import BLACK, WHITE

from _bench import median_seconds

SEED = 20240611


def game_gtp(size: int) -> int:
    """A random game through ``legal_moves()`` and ``play(str)``; returns the moves played."""
    board = Board(size)
    rng = np.random.default_rng(SEED)
    limit = 3 * size * size
    while board.move_number < limit and board.consecutive_passes < 2:
        moves = board.legal_moves()
        board.play(moves[rng.integers(len(moves))] if moves else "pass")
    return int(board.move_number)


def game_index(size: int) -> int:
    """A random game through ``legal_indices()`` and ``play(int)``."""
    board = Board(size)
    rng = np.random.default_rng(SEED)
    limit = 3 * size * size
    while board.move_number < limit and board.consecutive_passes < 2:
        moves = board.legal_indices(board.to_move_code)
        board.play(int(moves[rng.integers(len(moves))]) if len(moves) else -1)
    return int(board.move_number)


def game_core(size: int) -> int:
    """A random game through the compiled ``legal_indices()`` and ``play_index()``."""
    board = Board(size)
    rng = np.random.default_rng(SEED)
    limit = 3 * size * size
    colour = BLACK
    moves_played = 0
    passes = 0
    while moves_played < limit and passes < 2:
        moves = board.legal_indices(colour)
        if len(moves):
            board.play_index(int(moves[rng.integers(len(moves))]), colour)
            passes = 0
        else:
            board.play_index(-1, colour)
            passes += 1
        colour = WHITE if colour == BLACK else BLACK
        moves_played += 1
    return moves_played


GAMES: dict[str, Callable[[int], int]] = {"gtp": game_gtp, "index": game_index, "core": game_core}


@pytest.mark.parametrize("size", [9, 19])
@pytest.mark.parametrize("level", list(GAMES))
def test_random_game_moves_per_second(benchmark: Any, level: str, size: int) -> None:
    play_game = GAMES[level]
    rounds = 20 if size == 9 else 5
    moves = benchmark.pedantic(play_game, args=(size,), rounds=rounds, iterations=1,
                               warmup_rounds=1)
    assert moves > size * size // 2
    median = median_seconds(benchmark)
    benchmark.extra_info["moves_per_game"] = moves
    benchmark.extra_info["moves_per_second"] = round(moves / median) if median else None


def test_all_levels_play_the_same_game() -> None:
    """The three levels differ only in the API they go through."""
    for size in (9, 19):
        assert game_gtp(size) == game_index(size) == game_core(size)


def _recorded_game(size: int) -> list[tuple[str, int, int]]:
    """The fixed-seed random game as (GTP vertex, flat index, colour code) per move."""
    board = Board(size)
    rng = np.random.default_rng(SEED)
    limit = 3 * size * size
    record = []
    while board.move_number < limit and board.consecutive_passes < 2:
        colour = board.to_move_code
        legal = board.legal_indices(colour)
        index = int(legal[rng.integers(len(legal))]) if len(legal) else -1
        board.play(index)
        record.append((board.history[-1][1], index, colour))
    return record


def _replay(size: int, record: list[tuple[str, int, int]], level: str) -> int:
    board = Board(size)
    if level == "gtp":
        for vertex, _, _ in record:
            board.play(vertex)
    elif level == "index":
        for _, index, _ in record:
            board.play(index)
    else:
        play_index = board.play_index
        for _, index, colour in record:
            play_index(index, colour)
    return board.move_number if level != "core" else len(record)


@pytest.mark.parametrize("size", [9, 19])
@pytest.mark.parametrize("level", list(GAMES))
def test_play_only_moves_per_second(benchmark: Any, level: str, size: int) -> None:
    """The same game with its moves chosen beforehand: ``play`` alone, no move generation."""
    record = _recorded_game(size)
    rounds = 50 if size == 9 else 20
    moves = benchmark.pedantic(_replay, args=(size, record, level), rounds=rounds,
                               iterations=1, warmup_rounds=1)
    assert moves == len(record)
    median = median_seconds(benchmark)
    benchmark.extra_info["moves_per_game"] = moves
    benchmark.extra_info["moves_per_second"] = round(moves / median) if median else None


def _midgame(size: int, moves: int) -> Board:
    board = Board(size)
    rng = np.random.default_rng(SEED)
    while board.move_number < moves:
        legal = board.legal_indices(board.to_move_code)
        board.play(int(legal[rng.integers(len(legal))]) if len(legal) else -1)
    return board


@pytest.mark.parametrize("size, moves", [(9, 40), (19, 150)])
def test_copy_per_second(benchmark: Any, size: int, moves: int) -> None:
    board = _midgame(size, moves)
    copy = benchmark(board.copy)
    assert copy == board and copy.history == board.history
    mean = median_seconds(benchmark, "mean")
    benchmark.extra_info["copies_per_second"] = round(1 / mean) if mean else None
