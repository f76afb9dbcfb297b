"""Large patterns (fastplay.shapes): the core's diamond hashes, the kept
patterns of a fit, and their use in the learned prior and the search."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import fastplay
from fastplay._core import BLACK, WHITE
from fastplay.mcts import MCTS
from fastplay.prior import MoveSamples, PriorModel, collect_samples, fit, load_prior
from fastplay.shapes import SHAPE_RADIUS_MAX, ShapeTable, shape_hashes

TRANSFORMS = (np.rot90, np.fliplr, np.flipud, np.transpose, lambda a: np.rot90(a, 2),
              lambda a: np.rot90(a, 3), lambda a: np.rot90(a.T))


def _board(grid: np.ndarray) -> fastplay.Board:
    board = fastplay.Board(grid.shape[0])
    board.setup_indices([int(i) for i in np.flatnonzero(grid.ravel() == 1)],
                        [int(i) for i in np.flatnonzero(grid.ravel() == -1)])
    return board


def _random_grid(size: int, rng: np.random.Generator) -> np.ndarray:
    board = fastplay.Board(size)
    for _ in range(size * size // 2):
        legal = [p for p in range(size * size) if board.legality_index(p, board.to_move_code) is None]
        board.play_index(int(rng.choice(legal)), board.to_move_code)
    return board.to_numpy()


@pytest.mark.parametrize("size", [5, 9, 13, 19])
def test_a_pattern_hashes_the_same_under_the_eight_symmetries_and_a_colour_swap(size: int
                                                                                ) -> None:
    rng = np.random.default_rng(size)
    grid = _random_grid(size, rng)
    index = np.arange(size * size).reshape(size, size)
    for radius in range(2, SHAPE_RADIUS_MAX + 1):
        hashes = shape_hashes(_board(grid), BLACK, radius)
        assert hashes.shape == (radius - 1, size * size) and hashes.dtype == np.uint64
        for transform in TRANSFORMS:
            moved = shape_hashes(_board(np.ascontiguousarray(transform(grid))), BLACK, radius)
            # The point at the transformed board's place q was index[...] before.
            np.testing.assert_array_equal(moved, hashes[:, transform(index).ravel()])
        # White to move on the colour-swapped board sees the same shapes.
        np.testing.assert_array_equal(shape_hashes(_board(-grid), WHITE, radius), hashes)
    # Occupied points get 0; empty ones a hash.
    empty = grid.ravel() == 0
    assert not hashes[:, ~empty].any() and hashes[:, empty].all()


def test_a_stone_changes_the_shapes_that_reach_it_and_no_smaller_ones() -> None:
    board = fastplay.Board(19)
    before = shape_hashes(board, BLACK, 5)
    center = 9 * 19 + 9
    for distance in range(1, 6):
        board = fastplay.Board(19)
        board.play_index(center + distance, BLACK)        # `distance` points east
        after = shape_hashes(board, BLACK, 5)
        for radius in range(2, 6):
            assert (after[radius - 2, center] == before[radius - 2, center]) == (radius < distance)
        # The opponent's stone there is another shape; so is the mover's seen by the other side.
        other = fastplay.Board(19)
        other.play_index(center + distance, WHITE)
        top = max(distance, 2) - 2
        assert shape_hashes(other, BLACK, 5)[top:, center].tolist() != after[top:, center].tolist()
        assert np.array_equal(shape_hashes(other, WHITE, 5), after)
    # The edge is part of a shape: the empty board's points differ by their distance to it.
    empty = shape_hashes(fastplay.Board(19), BLACK, 3)[1]
    assert len(set(empty.tolist())) == len({(min(r, 18 - r, 3), min(c, 18 - c, 3))
                                             if min(r, 18 - r) <= min(c, 18 - c)
                                             else (min(c, 18 - c, 3), min(r, 18 - r, 3))
                                             for r in range(19) for c in range(19)})


def test_shape_hashes_refuses_bad_arguments() -> None:
    board = fastplay.Board(9)
    for radius in (0, 1, SHAPE_RADIUS_MAX + 1):
        with pytest.raises(ValueError, match="radius"):
            shape_hashes(board, BLACK, radius)
    with pytest.raises(ValueError):
        shape_hashes(board, 0, 3)
    for colour, radius in ((BLACK, 3.9), (2.7, 3)):
        with pytest.raises(TypeError):
            shape_hashes(board, colour, radius)  # type: ignore[arg-type]


@pytest.mark.parametrize("hashes, gamma", [
    ((np.array([1.5, 2.7]),), np.ones(3)),                    # float hashes
    ((np.array([-1, 2]),), np.ones(3)),                       # negative
    ((np.array([1, 2], np.uint64),), np.array(["1"] * 3)),    # strings
    ((np.array([1, 2], np.uint64),), np.ones((1, 3))),        # 2-d
    ((np.array([1, 2], np.uint64),), np.array([1.0, np.nan, 1.0])),
    ((np.array([2, 1], np.uint64),), np.ones(3)),             # unsorted
    ((np.array([1, 2], np.uint64),), np.ones(2)),             # a strength short
    (tuple(np.array([1], np.uint64) for _ in range(5)), np.ones(6)),
])
def test_a_table_is_checked_when_made(hashes: tuple[np.ndarray, ...], gamma: np.ndarray) -> None:
    with pytest.raises(ValueError):
        ShapeTable(hashes, gamma)


def test_a_table_keeps_read_only_copies_and_refuses_a_bad_base_row() -> None:
    hashes, gamma = np.array([3, 9], np.uint64), np.array([1.0, 2.0, 4.0])
    table = ShapeTable((hashes,), gamma)
    gamma[:] = 7.0
    hashes[0] = 10
    assert table.gamma.tolist() == [1.0, 2.0, 4.0] and table.hashes[0].tolist() == [3, 9]
    with pytest.raises(ValueError):
        table.gamma[0] = 5.0
    board = fastplay.Board(9)
    for bad in (np.full(81, np.nan), np.zeros(81), -np.ones(81), np.ones(80)):
        with pytest.raises(ValueError, match="row"):
            table.row(board, bad)


def test_the_table_keeps_played_patterns_and_labels_the_largest() -> None:
    shapes = np.array([[1, 10], [1, 11], [2, 10], [3, 12], [1, 10]], dtype=np.uint64)
    chosen = np.array([True, True, True, False, True])
    table = ShapeTable.select(shapes, chosen, 2)
    assert [h.tolist() for h in table.hashes] == [[1], [10]] and table.radius == 3
    assert table.labels(shapes).tolist() == [2, 1, 2, 0, 2]
    assert ShapeTable.select(shapes, chosen, 1).labels(shapes).tolist() == [3, 4, 3, 0, 3]
    with pytest.raises(ValueError, match="min_count"):
        ShapeTable.select(shapes, chosen, 0)
    with pytest.raises(ValueError):
        table.labels(shapes[:, :1])


def _game(tmp_path: Path) -> Path:
    game = tmp_path / "g.sgf"
    moves = "ee cc gc gg cg ge ec eg dd fd df ff".split()
    colours = "BW" * 6
    game.write_text("(;GM[1]FF[4]SZ[9]KM[7.5]PB[a]PW[b]"
                    + "".join(f";{c}[{m}]" for c, m in zip(colours, moves)) + ")")
    return game


def test_samples_carry_the_hashes_and_a_fit_keeps_their_strengths(tmp_path: Path) -> None:
    game = _game(tmp_path)
    samples = collect_samples([game] * 3, None, shape_radius=3)
    plain = collect_samples([game], None)
    assert plain.shapes is None and samples.shapes is not None
    assert samples.shapes.shape == (len(samples.index), 2)
    # The hashes are those of the position before each move, for its mover.
    board = fastplay.Board(9)
    board.play("E5")
    legal = np.flatnonzero(fastplay.patterns.local_contexts(board).legal.ravel())
    here = slice(samples.offsets[1], samples.offsets[2])
    np.testing.assert_array_equal(samples.shapes[here], shape_hashes(board, WHITE, 3)[:, legal].T)
    assert samples.subset(samples.game == 1).shapes.shape == (samples.offsets[-1] // 3, 2)
    model = fit(samples, 20, shape_min_count=3)
    assert model.shapes is not None and model.shapes.radius == 3
    # Every move of the game was played three times: each has a kept shape,
    # and the fit predicts the training moves better than without them.
    assert samples.log_likelihood(model.strength(samples))[0] \
        > samples.log_likelihood(fit(plain.concat(plain).concat(plain), 20).strength(samples))[0]
    with pytest.raises(ValueError, match="large patterns"):
        model.strength(plain)
    with pytest.raises(ValueError, match="shape_radius"):
        collect_samples([game], None, shape_radius=1)
    for other in (plain, collect_samples([game], None, shape_radius=4)):
        with pytest.raises(ValueError, match="concatenate"):
            samples.concat(other)


def test_a_prior_with_large_patterns_saves_loads_and_steers_the_search(tmp_path: Path) -> None:
    game = _game(tmp_path)
    model = fit(collect_samples([game] * 3, None, shape_radius=4), 20, shape_min_count=3)
    path = tmp_path / "shaped.npz"
    model.save(path)
    prior = load_prior(path)
    assert prior.shapes == model.shapes and prior.has_factors
    # The search's prior is the table's times the shape strength of each move.
    board = fastplay.Board(9, komi=7.5)
    board.play("E5")
    db = fastplay.PatternDatabase.builtin("mc_montegnu_classic")
    bare = PriorModel(model.geometry, model.properties, model.cells, model.line, model.last,
                      model.before)
    bare_path = tmp_path / "bare.npz"
    bare.save(bare_path)
    kwargs = dict(seed=1, prior_power=1.0, ladder_prior=1.0, ladder_visits=0, nakade_prior=1.0)
    shaped = MCTS(db, prior_table=str(path), **kwargs).expand(board)
    plain = MCTS(db, prior_table=str(bare_path), **kwargs).expand(board)
    row = prior.shape_row(board)
    assert row is not None
    ratio = shaped.prior[:-1] / plain.prior[:-1]
    want = row[shaped.moves[:-1]]
    np.testing.assert_allclose(ratio / ratio[0], want / want[0], rtol=1e-5)
    assert not np.allclose(ratio, ratio[0])


@pytest.mark.parametrize("change, message", [
    (lambda a: a.pop("shape_counts"), "missing"),
    (lambda a: a.update(shape_hashes=a["shape_hashes"][::-1].copy()), "sorted"),
    (lambda a: a.update(shape_strength=a["shape_strength"] * 0), "strengths"),
    (lambda a: a.update(shape_counts=a["shape_counts"] + 1), "shapes"),
    (lambda a: a.update(shape_hashes=a["shape_hashes"].astype(np.int64)), "shapes"),
    # Counts whose int64 sum wraps round to the number of hashes (a tester's file).
    (lambda a: a.update(shape_counts=np.array([2**63 - 1, 2**63 - 1, len(a["shape_hashes"]) + 2],
                                              np.int64)), "shapes"),
    (lambda a: a.update(shape_counts=np.array([2**64 - 1, 1], np.uint64),
                        shape_hashes=np.zeros(0, np.uint64), shape_strength=np.ones(1)), "shapes"),
])
def test_a_tampered_large_pattern_table_is_refused(tmp_path: Path, change: object,
                                                    message: str) -> None:
    model = fit(collect_samples([_game(tmp_path)] * 3, None, shape_radius=3), 5)
    good = tmp_path / "good.npz"
    model.save(good)
    with np.load(good) as data:
        arrays = {k: data[k] for k in data.files}
    change(arrays)  # type: ignore[operator]
    bad = tmp_path / "bad.npz"
    with open(bad, "wb") as out:
        np.savez(out, **arrays)
    with pytest.raises(ValueError, match=message):
        load_prior(bad)


def test_samples_without_hashes_fit_as_before(tmp_path: Path) -> None:
    samples = collect_samples([_game(tmp_path)], None)
    zeros = np.zeros(0, np.int64)
    assert fit(samples, 5).shapes is None
    assert MoveSamples(zeros, np.zeros(1, np.int64), zeros, zeros, np.zeros(0), zeros, zeros,
                       zeros).shapes is None


def test_the_cores_cached_labels_equal_the_tables_on_every_point() -> None:
    """ShapeIndex (through ShapeTable.row) reads a cache keyed by each point's
    unrotated hash: its labels must be the table's, on boards it has met
    (cache hits, the rotated boards' shapes too) and not."""
    rng = np.random.default_rng(3)
    grids = [_random_grid(size, rng) for size in (7, 9, 9, 13)]
    boards = [_board(g) for g in grids] + [_board(np.ascontiguousarray(np.rot90(g)))
                                          for g in grids]
    rows = [shape_hashes(b, c, 4) for b in boards for c in (BLACK, WHITE)]
    every = np.concatenate([r.T for r in rows])
    # Keep about half the shapes seen, of every radius.
    table = ShapeTable.select(every, rng.random(len(every)) < 0.5, 1)
    table = ShapeTable(table.hashes, rng.uniform(0.5, 2.0, len(table.gamma)))
    for _ in range(2):
        for board, colour in [(b, c) for b in boards for c in (BLACK, WHITE)]:
            board.set_to_move(colour)
            empty = board.to_numpy().ravel() == 0
            want = table.labels(shape_hashes(board, colour, 4).T)
            got = table._index.labels(board, colour)
            np.testing.assert_array_equal(got[empty], want[empty])
            assert (got[~empty] == -1).all()
            np.testing.assert_array_equal(table.row(board)[empty], table.gamma[want[empty]])
    assert {int(x) for x in table._index.labels(boards[1], BLACK)} - {-1, 0}
    # The table pickles with its index, and labels the same afterwards.
    import pickle
    again = pickle.loads(pickle.dumps(table))
    assert again == table
    np.testing.assert_array_equal(again._index.labels(boards[2], WHITE),
                                  table._index.labels(boards[2], WHITE))
    with pytest.raises(ValueError, match="sorted"):
        ShapeTable((np.array([5, 3], np.uint64),), np.ones(3))._index
