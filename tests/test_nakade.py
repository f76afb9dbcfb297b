"""The vital points of small eye spaces (``fastplay.life.nakade_points``) and
the search option ``nakade_prior`` that raises their prior."""

from __future__ import annotations

import numpy as np
import pytest

import fastplay as fp
from fastplay.life import nakade_points
from fastplay.mcts import MCTS
from fastplay.search import SearchConfig
from test_mcts import board_from_ascii, db  # noqa: F401 - the fixture
from test_tactics import random_game

# Each eye space drawn as its empty points ('.') in a 5x5 board of Black
# stones, and the vital point expected ('*', an empty point too), if any.
SHAPES = {
    "straight three": ("XXXXX", "X.*.X", "XXXXX", "XXXXX", "XXXXX"),
    "bent three": ("XXXXX", "X.*XX", "XX.XX", "XXXXX", "XXXXX"),
    "pyramid four": ("XXXXX", "X.*.X", "XX.XX", "XXXXX", "XXXXX"),
    "bulky five": ("XXXXX", "X..XX", "X*.XX", "X.XXX", "XXXXX"),
    "crossed five": ("XX.XX", "X.*.X", "XX.XX", "XXXXX", "XXXXX"),
    "rabbity six": ("XXXXX", "XX.XX", "X.*.X", "XX..X", "XXXXX"),
    "corner three": (".*.XX", "XXXXX", "XXXXX", "XXXXX", "XXXXX"),
    "straight four": ("XXXXX", "X....", "XXXXX", "XXXXX", "XXXXX"),
    "bent four": ("XXXXX", "X...X", "XXX.X", "XXXXX", "XXXXX"),
    "square four": ("XXXXX", "X..XX", "X..XX", "XXXXX", "XXXXX"),
    "rectangular six": ("XXXXX", "X...X", "X...X", "XXXXX", "XXXXX"),
    "straight five": ("X....", ".XXXX", "XXXXX", "XXXXX", "XXXXX"),
    "two points": ("XXXXX", "X..XX", "XXXXX", "XXXXX", "XXXXX"),
}


def _board(rows: tuple[str, ...]) -> fp.Board:
    return board_from_ascii("\n".join(" ".join(row.replace("*", ".")) for row in rows))


def _vital(rows: tuple[str, ...]) -> set[int]:
    return {r * len(rows) + c for r, row in enumerate(rows) for c, ch in enumerate(row)
            if ch == "*"}


@pytest.mark.parametrize("name", SHAPES)
def test_the_vital_point_of_each_eye_shape(name: str) -> None:
    """Killable shapes have one vital point; living shapes (two points with
    the most neighbours inside) and spaces of fewer than three points none."""
    rows = SHAPES[name]
    found = set(np.flatnonzero(nakade_points(_board(rows))).tolist())
    assert found == _vital(rows)


def test_an_eye_space_bordered_by_both_colours_has_none() -> None:
    """A region that touches a White stone is no one's eye space; nor is a
    region of seven points or more (the open board)."""
    rows = ("XXXXX", "X.O.X", "XX.XX", "XXXXX", "XXXXX")
    assert not nakade_points(board_from_ascii("\n".join(" ".join(r) for r in rows))).any()
    assert not nakade_points(fp.Board(9)).any()
    with pytest.raises(TypeError, match="CoreBoard"):
        nakade_points(np.zeros((9, 9)))  # type: ignore[arg-type]
    seven = ("XXXXX", "X...X", "X....", "XXXXX", "XXXXX")
    assert not nakade_points(_board(seven)).any()


def test_nakade_points_on_a_real_position() -> None:
    """White's corner straight three and Black's open side on a 9x9 board:
    the middle of the three is the only vital point."""
    board = board_from_ascii("""
        . . . X O . . . .
        X X X X O . . . .
        O O O O O . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . O O O
        . . . . . . O . .
        . . . . . . O . .
        . . . . . . O . .
    """)
    assert [fp.format_vertex(int(i), 9) for i in np.flatnonzero(nakade_points(board))] \
        == ["B9"]


def _reference(board: fp.Board) -> set[int]:
    """The rule of nakade_points written plainly (flood fill of each empty
    region over the numpy grid), to check the core's reading against."""
    grid, size = board.to_numpy(), board.size
    seen: set[tuple[int, int]] = set()
    vital: set[int] = set()
    for start in zip(*np.nonzero(grid == 0)):
        if start in seen:
            continue
        region, border, todo = [], set(), [start]
        seen.add(start)
        while todo:
            r, c = todo.pop()
            region.append((r, c))
            for q in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if 0 <= q[0] < size and 0 <= q[1] < size:
                    if grid[q]:
                        border.add(int(grid[q]))
                    elif q not in seen:
                        seen.add(q)
                        todo.append(q)
        if 3 <= len(region) <= 6 and len(border) == 1:
            inside = set(region)
            counts = [sum((r + dr, c + dc) in inside
                          for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))) for r, c in region]
            if counts.count(max(counts)) == 1:
                r, c = region[counts.index(max(counts))]
                vital.add(int(r * size + c))
    return vital


def test_nakade_points_agree_with_the_rule_on_random_games() -> None:
    """On random games of every size the core's reading marks exactly the
    points the plainly written rule does (and some games have some)."""
    rng = np.random.default_rng(23)
    marked = 0
    for size in (2, 3, 5, 7, 9, 13, 19, 25):
        for _ in range(12):
            board = random_game(size, rng, suicide=False, most=1.2)
            found = set(np.flatnonzero(nakade_points(board)).tolist())
            assert found == _reference(board)
            marked += len(found)
    assert marked >= 10


def test_nakade_prior_multiplies_the_vital_points_weight(db: fp.PatternDatabase) -> None:
    """``nakade_prior`` multiplies the weight of the vital point before the
    prior is formed (power 1 with the learned prior); other moves keep
    their ratios."""
    board = board_from_ascii("""
        . . . X O . . . .
        X X X X O . . . .
        O O O O O . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, to_move="W")
    plain = MCTS(db, seed=1, nakade_prior=1.0).expand(board)
    raised = MCTS(db, seed=1, nakade_prior=3.0).expand(board)
    assert np.array_equal(plain.moves, raised.moves)
    vital = fp.parse_vertex("B9", 9)
    at = int(np.flatnonzero(plain.moves == vital)[0])
    ratio = raised.prior[:-1] / plain.prior[:-1]
    others = np.delete(ratio, at)
    assert np.allclose(ratio[at] / others.mean(), 3.0)
    assert np.allclose(others, others[0])


@pytest.mark.parametrize("size, default", [(9, 5.0), (13, 1.0), (19, 1.0), (7, 1.0)])
def test_the_default_nakade_prior_is_the_board_size_s(db: fp.PatternDatabase, size: int,
                                                       default: float) -> None:
    """``nakade_prior=None`` is ``NAKADE_PRIOR_BY_SIZE``'s factor (5 on 9x9,
    from the matches) and 1 elsewhere: the node of the factor given, and not
    that of the other one, on a board with Black's straight three in the
    corner."""
    board = fp.Board(size, komi=7.5)
    for move in "A{0} E2 B{0} E3 C{0} E4 D{0} E5 D{1} E6".format(size - 1, size).split():
        board.play(move)
    assert nakade_points(board)[1]                      # B<size>, the middle of A-C
    other = 1.0 if default != 1.0 else 5.0

    def priors(**options: float) -> bytes:
        return bytes(MCTS(db, seed=1, **options).expand(board).data.tobytes())

    assert priors() == priors(nakade_prior=default) != priors(nakade_prior=other)
    assert SearchConfig().nakade_for(size) == default
