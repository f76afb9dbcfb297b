"""Replay every record of GNU Go's regression set against independent references.

Every ``.sgf`` under ``../shared/gnugo-regression/games`` (1,622 files, boards
from 2x2 to 19x19) is replayed move by move on :class:`fastplay.Board`.  After
every move the test compares:

* the whole board with **sgfmill's** ``boards.Board`` fed the same record
  (sgfmill's own capture logic; no fastplay code involved);
* every string's liberty count (``Board.liberty_array()``) with a recount
  from scratch -- ``scipy.ndimage.label`` for the strings and a numpy count of
  distinct empty neighbours, so it is vectorised, not a Python flood fill;
* the prisoners (``captures`` grows by exactly the stones that vanished),
  the simple-ko point (sgfmill reports it too), ``to_move`` and ``move_number``.

At the end of each record the moves are undone back to the starting position
(hash and stones must come back), :func:`fastplay.sgf.load_board` must give
the same final position and the same position after ``N`` moves, and the
record written by :func:`fastplay.sgf.board_to_sgf` must load back as the
same game (moves, position, komi, root properties).

Rules: GNU Go's -- simple ko, suicide illegal (``suicide=False``).  These are
GNU Go's own records, and the data agrees: no move in them is a suicide (a
suicide would make the replay raise, and no such file is in the table below).

Records that cannot be replayed are listed in :data:`UNREPLAYABLE` with the
error they must raise; a file that starts or stops failing fails the test.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from conftest import SHARED, shared_path
from scipy import ndimage
from sgfmill import boards, common, sgf, sgf_properties

import fastplay
from fastplay.sgf import SGFError, board_to_sgf, load_board

# reading10.sgf is a collection of two games: its first is replayed (as
# sgfmill's parse_sgf_game reads it), and load_board says so with a warning.
pytestmark = pytest.mark.filterwarnings(
    "ignore:the file holds a collection of 2 games:fastplay.sgf.SGFWarning")

GAMES = SHARED / "gnugo-regression" / "games"
EXPECTED_FILES = 1622
# Every B/W property on the main lines of the replayable records, passes
# included (204,288 nodes with a move; buzco1.sgf ends with B[tt]W[tt]).
EXPECTED_MOVES = 204_289

# relative path -> (exception, text the message must contain, rule or None)
UNREPLAYABLE: dict[str, tuple[type[Exception], str, str | None]] = {
    # truncated by GNU Go's own "load and print": the game tree never closes
    "owl42.sgf": (SGFError, "unexpected end of SGF data", None),
    # an empty file
    "pending/nightmare.sgf": (SGFError, "no SGF data found", None),
}

N_CHUNKS = 32


def _all_files() -> list[str]:
    # Collection must not fail on missing data; test_corpus_present does.
    if not GAMES.is_dir():
        return []
    return sorted(p.relative_to(GAMES).as_posix() for p in GAMES.rglob("*.sgf"))


ALL_FILES = _all_files()
CHUNK = max(1, math.ceil(len(ALL_FILES) / N_CHUNKS))


def _chunk(k: int) -> list[str]:
    return ALL_FILES[k * CHUNK:(k + 1) * CHUNK]


# ---------------------------------------------------------------------------
# independent references

_CODE = {None: 0, "b": 1, "w": -1}


def reference_grid(ref: boards.Board) -> np.ndarray:
    """sgfmill's board as int8[size, size], 1 black / -1 white, row 0 = top."""
    rows = [[_CODE[x] for x in row] for row in ref.board]
    return np.array(rows[::-1], dtype=np.int8)


_DIRS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def recount_liberties(grid: np.ndarray) -> np.ndarray:
    """int16[size, size]: liberties of the string on each point, 0 on empty.

    Strings come from ``ndimage.label`` (4-connectivity) per colour; a
    string's liberties are the distinct empty points next to any of its
    stones, counted by ``np.unique`` on (label, point) keys.
    """
    n = grid.shape[0]
    out = np.zeros((n, n), dtype=np.int16)
    empty = grid == 0
    flat = np.arange(n * n, dtype=np.int64).reshape(n, n)
    for colour in (1, -1):
        mask = grid == colour
        if not mask.any():
            continue
        labels, count = ndimage.label(mask)
        padded = np.pad(labels, 1)
        keys = []
        for dr, dc in _DIRS:
            neighbour = padded[1 + dr:n + 1 + dr, 1 + dc:n + 1 + dc]
            hit = empty & (neighbour > 0)
            keys.append(neighbour[hit].astype(np.int64) * (n * n) + flat[hit])
        pairs = np.unique(np.concatenate(keys))
        libs = np.bincount(pairs // (n * n), minlength=count + 1)
        out[mask] = libs[labels[mask]]
    return out


# ---------------------------------------------------------------------------
# replay of one record


@dataclass
class Replay:
    moves: int = 0
    checks: int = 0
    problems: list[str] = field(default_factory=list)


def _gtp(point: tuple[int, int] | None) -> str:
    return "pass" if point is None else common.format_vertex(point)


def _pl_colour(raw: bytes) -> str:
    return "B" if raw.strip().upper() in (b"B", b"1") else "W"


def replay_record(rel: str) -> Replay:
    """Replay one record; mismatches are collected, not raised.

    The properties of a node act in the order written (``B[tt]W[tt]`` is two
    passes; ``B[..]AE[..]`` moves, then removes dead stones), as GNU Go reads
    them; sgfmill supplies the point values and expands point lists.
    """
    out = Replay()
    path = GAMES / rel
    game = sgf.Sgf_game.from_bytes(path.read_bytes())
    size = game.get_size()
    board = fastplay.Board(size, superko=False, suicide=False)
    ref = boards.Board(size)
    grid = np.zeros((size, size), dtype=np.int8)

    def problem(text: str) -> None:
        out.problems.append(f"{rel}: {text}")

    start_grid, start_hash = board.to_numpy(), board.zobrist_hash
    moves_since_setup = 0
    probe = None  # (move number, grid, hash) for the load_board(move_number=) check
    seq = game.get_main_sequence()
    total = sum(("B" in n.get_raw_property_map()) + ("W" in n.get_raw_property_map()) for n in seq)
    last_pl: str | None = None
    last_colour: str | None = None
    for index, node in enumerate(seq):
        setup_done = False
        for ident, values in node.get_raw_property_map().items():
            if ident == "PL":
                last_pl = _pl_colour(values[0])
                continue
            if ident in ("AB", "AW", "AE"):
                if setup_done:
                    continue
                setup_done = True
                black, white, empty = node.get_setup_stones()
                ref.apply_setup(black, white, empty)
                board.setup(black=[_gtp(p) for p in black], white=[_gtp(p) for p in white],
                            empty=[_gtp(p) for p in empty])
                grid = reference_grid(ref)
                if not np.array_equal(board.to_numpy(), grid):
                    problem(f"node {index}: position after setup differs")
                start_grid, start_hash, moves_since_setup = board.to_numpy(), board.zobrist_hash, 0
                continue
            if ident not in ("B", "W"):
                continue
            point = sgf_properties.interpret_go_point(values[0], size)
            last_pl = None
            mover = ident
            before_caps = board.captures[mover]
            vertex = _gtp(point)
            board.play(vertex, mover)
            out.moves += 1
            moves_since_setup += 1
            last_colour = mover
            if point is None:
                ko_expected = None
            else:
                ko = ref.play(point[0], point[1], mover.lower())
                ko_expected = None if ko is None else _gtp(ko)
            new_grid = reference_grid(ref)
            where = f"node {index} move {out.moves} {mover} {vertex}"
            for text in _move_problems(board, grid, new_grid, mover, before_caps, ko_expected,
                                       moves_since_setup):
                problem(f"{where}: {text}")
            out.checks += 6
            grid = new_grid
            if out.moves == total // 2:
                probe = (out.moves, new_grid, board.zobrist_hash)

    to_move = last_pl or (None if last_colour is None else ("W" if last_colour == "B" else "B"))
    _check_record_end(out, problem, path, board, (start_grid, start_hash), moves_since_setup,
                      to_move, probe)
    return out


def _move_problems(board: fastplay.Board, grid: np.ndarray, new_grid: np.ndarray, mover: str,
                   before_caps: int, ko_expected: str | None, moves_since_setup: int
                   ) -> list[str]:
    """What is wrong with ``board`` after ``mover``'s move, against
    sgfmill's position ``new_grid`` (``grid``: the one before), the ko
    point sgfmill reports and the moves since the setup: the six checks of
    a move."""
    size = board.size
    found = []
    got = board.to_numpy()
    if not np.array_equal(got, new_grid):
        diff = [common.format_vertex((size - 1 - r, c)) for r, c in np.argwhere(got != new_grid)]
        found.append(f"board differs from sgfmill at {' '.join(diff[:10])}")
    libs = board.liberty_array()
    expect_libs = recount_liberties(new_grid)
    if libs.shape != (size, size) or not np.array_equal(libs, expect_libs):
        bad = [common.format_vertex((size - 1 - r, c)) for r, c in np.argwhere(libs != expect_libs)]
        found.append(f"liberties differ from the recount at {' '.join(bad[:10])}")
    removed = int(np.count_nonzero((grid == (-1 if mover == "B" else 1)) & (new_grid == 0)))
    if board.captures[mover] - before_caps != removed:
        found.append(f"captures grew by {board.captures[mover] - before_caps}, "
                     f"{removed} stones were taken")
    if board.ko_point != ko_expected:
        found.append(f"ko point {board.ko_point!r}, sgfmill says {ko_expected!r}")
    if board.to_move != ("W" if mover == "B" else "B"):
        found.append(f"to_move {board.to_move!r} after a {mover} move")
    if board.move_number != moves_since_setup:
        found.append(f"move_number {board.move_number}, expected {moves_since_setup}")
    return found


def _check_record_end(out: Replay, problem: Callable[[str], None], path: Path,
                      board: fastplay.Board, start: tuple[np.ndarray, int],
                      moves_since_setup: int, expect_to_move: str | None,
                      probe: tuple[int, np.ndarray, int] | None) -> None:
    """The checks at a record's end: undo back to the starting position
    ``start`` (grid, hash), the loader against the replay (and at the
    ``probe``'s move number), and ``board_to_sgf``'s round trip."""
    start_grid, start_hash = start
    final_grid, final_hash, final_caps = board.to_numpy(), board.zobrist_hash, board.captures

    # undo walks back to the last starting position exactly
    for _ in range(moves_since_setup):
        board.undo()
    if not (np.array_equal(board.to_numpy(), start_grid) and board.zobrist_hash == start_hash):
        problem(f"undo of {moves_since_setup} moves does not restore the starting position")
    out.checks += 1

    # the loader agrees with the move-by-move replay
    loaded = load_board(path)
    if not np.array_equal(loaded.to_numpy(), final_grid) or loaded.zobrist_hash != final_hash:
        problem("load_board's final position differs from the replay")
    if loaded.move_number != moves_since_setup:
        problem(f"load_board's move_number {loaded.move_number}, expected {moves_since_setup}")
    if expect_to_move is not None and loaded.to_move != expect_to_move:
        problem(f"load_board's to_move {loaded.to_move!r}, expected {expect_to_move!r}")
    if moves_since_setup == out.moves and loaded.captures != final_caps:
        problem(f"load_board's captures {loaded.captures}, replay {final_caps}")
    out.checks += 4

    # and what board_to_sgf writes loads back as the same game
    again = load_board(board_to_sgf(loaded))
    props = dict(again.sgf_properties)
    if not loaded.sgf_properties:
        props.pop("HA", None)  # documented: HA is inferred for a record without metadata
    if (again.history != loaded.history or again != loaded or again.komi != loaded.komi
            or again.zobrist_hash != loaded.zobrist_hash or props != loaded.sgf_properties):
        problem("board_to_sgf -> load_board does not give the loaded game back")
    out.checks += 1
    if probe is not None:
        n, probe_grid, probe_hash = probe
        part = load_board(path, move_number=n)
        if not np.array_equal(part.to_numpy(), probe_grid) or part.zobrist_hash != probe_hash:
            problem(f"load_board(move_number={n}) differs from the replay after {n} moves")
        out.checks += 1


@functools.cache
def replay_chunk(k: int) -> Replay:
    total = Replay()
    for rel in _chunk(k):
        if rel in UNREPLAYABLE:
            continue
        try:
            one = replay_record(rel)
        except Exception as exc:  # noqa: BLE001 - every failure is reported with its file
            total.problems.append(f"{rel}: {type(exc).__name__}: {exc}")
            continue
        total.moves += one.moves
        total.checks += one.checks
        total.problems.extend(one.problems)
    return total


# ---------------------------------------------------------------------------
# tests


def test_corpus_present() -> None:
    games = shared_path("gnugo-regression", "games")
    assert len(sorted(games.rglob("*.sgf"))) == EXPECTED_FILES
    assert len(ALL_FILES) == EXPECTED_FILES


@pytest.mark.parametrize("k", range(N_CHUNKS), ids=lambda k: f"chunk{k:02d}")
def test_replay_chunk(k: int) -> None:
    shared_path("gnugo-regression", "games")
    result = replay_chunk(k)
    assert not result.problems, "\n".join(result.problems[:40])


@pytest.mark.parametrize("rel", sorted(UNREPLAYABLE))
def test_unreplayable_record(rel: str) -> None:
    exc_type, text, rule = UNREPLAYABLE[rel]
    path = shared_path("gnugo-regression", "games", rel)
    with pytest.raises(exc_type, match=text) as info:
        load_board(path)
    assert getattr(info.value, "rule", None) == rule


def test_unreplayable_table_is_exact() -> None:
    """Exactly the listed files fail to load; every other file loads."""
    shared_path("gnugo-regression", "games")
    failing = {}
    for rel in ALL_FILES:
        try:
            load_board(GAMES / rel)
        except Exception as exc:  # noqa: BLE001 - the table says which may fail
            failing[rel] = f"{type(exc).__name__}: {exc}"
    assert set(failing) == set(UNREPLAYABLE), failing


def test_replay_totals(capsys: pytest.CaptureFixture[str]) -> None:
    """All chunks together: 0 mismatches over every replayable record."""
    shared_path("gnugo-regression", "games")
    moves = checks = 0
    problems: list[str] = []
    for k in range(N_CHUNKS):
        result = replay_chunk(k)
        moves += result.moves
        checks += result.checks
        problems += result.problems
    files = len(ALL_FILES) - len(UNREPLAYABLE)
    with capsys.disabled():
        print(f"\nreplay: {files} records, {moves} moves, {checks} checks, "
              f"{len(problems)} mismatches; {len(UNREPLAYABLE)} unreplayable "
              f"({', '.join(sorted(UNREPLAYABLE))})")
    assert not problems, "\n".join(problems[:40])
    assert moves == EXPECTED_MOVES


def test_recount_on_a_known_position() -> None:
    """The reference recount itself, on a position counted by hand."""
    grid = np.zeros((5, 5), dtype=np.int8)
    grid[0, 0] = grid[0, 1] = 1          # black A5 B5: B4 C5 (A4 is white)
    grid[1, 0] = -1                      # white A4: A3 B4
    grid[4, 4] = -1                      # white E1: D1 (E2 is black)
    grid[3, 4] = 1                       # black E2: D2 E3
    libs = recount_liberties(grid)
    assert libs[0, 0] == libs[0, 1] == 2
    assert libs[1, 0] == 2
    assert libs[4, 4] == 1
    assert libs[3, 4] == 2
    assert libs.sum() == 2 + 2 + 2 + 1 + 2


def test_reference_grid_orientation() -> None:
    ref = boards.Board(5)
    ref.play(0, 0, "b")                  # sgfmill (0, 0) is A1, bottom left
    grid = reference_grid(ref)
    assert grid[4, 0] == 1 and grid.sum() == 1
    assert common.format_vertex((0, 0)) == "A1"
