"""A value function plugged into fastplay's search: Bouzy's 5/21 area estimate.

This is the file to copy when you bring your own evaluator (a neural network,
say): it is a plain function from a list of boards to the probability that
the side to move wins each, and the search mixes it with its rollouts as
AlphaGo did (Silver et al., Nature 2016: leaf value ``(1 - mix) v + mix z``).

The estimate here is Bouzy's mathematical-morphology territory recogniser
(B. Bouzy, "Mathematical morphology applied to computer Go", IJPRAI 17(2),
2003): stones radiate influence by 5 dilations, then 21 erosions keep only
what is surrounded -- the "5/21" operator GNU Go's ancestors and Indigo used.
The points left positive are Black's area, negative White's; the margin
after komi goes through a logistic curve.  Everything is numpy on a batch.

Use it::

    python examples/value_function.py                  # one position, both searches
    fastplay gtp --evaluator examples/value_function.py:influence_value --mix 0.5

or from Python::

    from fastplay.search import MCTS, SearchConfig
    search = MCTS(db, SearchConfig(mix=0.5), evaluator=influence_value)
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

import fastplay as fp

#: Bouzy's operator: dilations, then erosions.
DILATIONS = 5
EROSIONS = 21
#: Influence of a stone before the dilations (Bouzy uses 128).
STONE = 128
#: Points of margin per unit of log-odds: a lead of SCALE points is a 73 % win.
SCALE = 4.0


def _neighbours(values: npt.NDArray[np.int32]) -> list[npt.NDArray[np.int32]]:
    """The on-board orthogonal neighbours of every point of a batch ``[n, s, s]``,
    as four views of a padded copy (``_inside`` tells which are on the board)."""
    padded = np.pad(values, ((0, 0), (1, 1), (1, 1)))
    return [padded[:, :-2, 1:-1], padded[:, 2:, 1:-1], padded[:, 1:-1, :-2], padded[:, 1:-1, 2:]]


def _on_board(size: int) -> npt.NDArray[np.int32]:
    """``int32[size, size]``: how many neighbours each point has (2 to 4)."""
    count = np.full((size, size), 4, dtype=np.int32)
    count[0, :] -= 1
    count[-1, :] -= 1
    count[:, 0] -= 1
    count[:, -1] -= 1
    return count


def dilate(values: npt.NDArray[np.int32]) -> npt.NDArray[np.int32]:
    """Bouzy's dilation: a point not touched by the other colour gains one
    per neighbour of its own colour."""
    pos = np.zeros_like(values)
    neg = np.zeros_like(values)
    for n in _neighbours(values):
        pos += n > 0
        neg += n < 0
    grow = np.where((values >= 0) & (neg == 0), pos, 0)
    shrink = np.where((values <= 0) & (pos == 0), neg, 0)
    return values + grow - shrink


def erode(values: npt.NDArray[np.int32], count: npt.NDArray[np.int32]) -> npt.NDArray[np.int32]:
    """Bouzy's erosion: a point loses one per on-board neighbour not of its
    colour (``count``: its on-board neighbours), never crossing zero."""
    pos = np.zeros_like(values)
    neg = np.zeros_like(values)
    for n in _neighbours(values):
        pos += n > 0
        neg += n < 0
    out = np.where(values > 0, np.maximum(values - (count - pos), 0), values)
    return np.where(values < 0, np.minimum(values + (count - neg), 0), out)


def area_estimate(grids: npt.NDArray[np.int8]) -> npt.NDArray[np.int32]:
    """Bouzy 5/21 on a batch of boards ``int8[n, s, s]`` (1 Black, -1 White):
    ``int32[n, s, s]``, positive where Black owns the point, negative White."""
    values = grids.astype(np.int32) * STONE
    count = _on_board(grids.shape[-1])
    for _ in range(DILATIONS):
        values = dilate(values)
    for _ in range(EROSIONS):
        values = erode(values, count)
    return values


def influence_value(boards: list[fp.Board]) -> npt.NDArray[np.float64]:
    """For each board, the probability that its side to move wins, from
    Bouzy's area estimate and the board's komi (``float64[len(boards)]``)."""
    if not boards:
        return np.zeros(0)
    grids = np.stack([b.to_numpy() for b in boards])
    area = area_estimate(grids)
    black = (area > 0).sum(axis=(1, 2))
    white = (area < 0).sum(axis=(1, 2))
    komi = np.array([b.komi for b in boards])
    margin = black - white - komi                                 # Black's lead in points
    black_to_move = np.array([b.to_move == "B" for b in boards])
    lead = np.where(black_to_move, margin, -margin)               # the side to move's lead
    return 1.0 / (1.0 + np.exp(-lead / SCALE))


def main() -> None:
    """Search one position with and without the evaluator and print both answers."""
    from importlib.resources import files

    from fastplay.search import MCTS, SearchConfig

    record = files("fastplay") / "data" / "cgos-390115-anchorman-montegnu.sgf"
    board = fp.Board.from_sgf(str(record), move_number=30)
    db = fp.PatternDatabase.builtin("mc_montegnu_classic")
    print(board)
    for name, search in (("rollouts only", MCTS(db, seed=1)),
                         ("Bouzy 5/21, mix 0.5", MCTS(db, SearchConfig(mix=0.5), seed=1,
                                                       evaluator=influence_value))):
        result = search.run(board, visits=3000)
        top = ", ".join(f"{c.move} {c.visits} ({c.winrate:.0%})" for c in result.children[:3])
        print(f"{name:>20}: {result.best_move}, win rate {result.winrate:.1%}; {top}")


if __name__ == "__main__":
    main()
