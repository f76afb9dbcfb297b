"""Criticality (Coulom 2009) and the search option that reshapes the root's prior by it."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import fastplay as fp
from fastplay._core import PlayoutTally
from fastplay.montecarlo import _engine
from fastplay.search import MCTS, SearchConfig
from fastplay.search.criticality import CRIT_MIN_PLAYOUTS, RootCriticality, criticality

from conftest import shared_path


@pytest.fixture(scope="module")
def db() -> fp.PatternDatabase:
    return fp.PatternDatabase.builtin("mc_montegnu_classic")


@pytest.fixture(scope="module")
def middle_game() -> fp.Board:
    return fp.Board.from_sgf(shared_path("gnugo-regression", "games", "cgos", "42896.sgf"),
                             move_number=24)


def _tally(**counts: Any) -> Any:
    """A stand-in for a PlayoutTally: the attributes criticality() reads."""
    return SimpleNamespace(size=1, **{k: np.asarray(v) if k.startswith("own_") and
                                      isinstance(v, list) else v for k, v in counts.items()})


def test_criticality_is_the_covariance_of_owning_and_winning() -> None:
    """Four playouts of a one-point board: Black owns and wins twice, White
    owns and wins once, White owns and Black wins once.  v = 3/4, mu_B =
    3/4, pi_B = pi_W = 1/2: crit = 3/4 - (3/8 + 1/8) = 1/4.  Split over two
    tallies, the sums are what counts."""
    a = _tally(own_black=[2], own_white=[0], own_won=[2], own_n=2, own_black_wins=2,
               own_draws=0)
    b = _tally(own_black=[0], own_white=[2], own_won=[1], own_n=2, own_black_wins=1,
               own_draws=0)
    assert criticality([a, b]) == pytest.approx([0.25])
    # A point Black always owns decides nothing: crit 0 whoever wins.
    always = _tally(own_black=[4], own_white=[0], own_won=[3], own_n=4, own_black_wins=3,
                    own_draws=0)
    assert criticality([always]) == pytest.approx([0.0])
    # Draws count for neither colour (mu_W = (n - black wins - draws) / n).
    drawn = _tally(own_black=[1], own_white=[1], own_won=[0], own_n=2, own_black_wins=0,
                   own_draws=2)
    assert criticality([drawn]) == pytest.approx([0.0])
    assert criticality([]) is None
    assert criticality([a, b], min_playouts=5) is None          # 4 playouts
    assert criticality([a, b], min_playouts=4) == pytest.approx([0.25])
    assert criticality([_tally(own_black=[0], own_white=[0], own_won=[0], own_n=0,
                               own_black_wins=0, own_draws=0)]) is None


def test_criticality_needs_tallies_that_keep_it() -> None:
    with pytest.raises(ValueError, match="criticality=True"):
        criticality([PlayoutTally(9)])
    with pytest.raises(ValueError, match="several board sizes"):
        criticality([PlayoutTally(9, criticality=True), PlayoutTally(7, criticality=True)])


def test_the_root_prior_becomes_the_made_prior_times_exp_k_crit(
        db: fp.PatternDatabase, middle_game: fp.Board) -> None:
    """RootCriticality.update: p(x) exp(k crit(x)) over the non-pass moves,
    renormalised to their sum; the pass keeps its prior; ``u`` is the new
    prior over 1 + n; nothing before CRIT_MIN_PLAYOUTS playouts."""
    search = MCTS(db, seed=3, resign_threshold=None)
    search.run(middle_game, playouts=300)
    root = search.tree.root
    assert root is not None
    base = np.array(root.prior)
    tally = PlayoutTally(9, criticality=True)
    engine = _engine(db)
    engine.run_into(tally, middle_game, CRIT_MIN_PLAYOUTS - 1, 5, tromp_taylor=True)
    crit = RootCriticality(8.0, base)
    assert not crit.update(root, [tally], 64) and np.array_equal(root.prior, base)
    engine.run_into(tally, middle_game, 200, 5, first=CRIT_MIN_PLAYOUTS - 1, tromp_taylor=True)
    assert crit.update(root, [tally], 128)
    c = criticality([tally])
    assert c is not None
    expected = base[:-1] * np.exp(8.0 * c[np.asarray(root.points)])
    expected *= base[:-1].sum() / expected.sum()
    assert np.allclose(root.prior[:-1], expected, rtol=2.0 ** -24, atol=0.0)   # float32 rows
    assert root.prior[-1] == base[-1]
    assert np.array_equal(root.u, root.prior / (1.0 + root.n))
    assert not crit.due(128 + 63) and crit.due(128 + 64)


def test_a_search_with_criticality_is_seeded_and_starts_from_the_made_prior(
        db: fp.PatternDatabase, middle_game: fp.Board) -> None:
    """The option changes the search (and its root's prior), the same way for
    the same seed; a second search of the same root starts again from the
    prior the root was made with, not from the reshaped one."""
    plain = MCTS(db, seed=2, resign_threshold=None)
    plain.run(middle_game, playouts=1500)
    assert plain.tree.root is not None
    made = np.array(plain.tree.root.prior)
    runs = []
    for _ in range(2):
        search = MCTS(db, seed=2, resign_threshold=None, criticality=10.0)
        search.run(middle_game, playouts=1500)
        root = search.tree.root
        assert root is not None
        runs.append((np.array(root.n), np.array(root.prior)))
        kept = search.tree.root_prior
        assert kept is not None and kept[0] is root and np.array_equal(kept[1], made)
        assert not np.array_equal(root.prior, made)
        search.run(middle_game, playouts=1500)     # the same root again
        assert search.tree.root is root and np.array_equal(search.tree.root_prior[1], made)
    assert np.array_equal(runs[0][0], runs[1][0]) and np.array_equal(runs[0][1], runs[1][1])
    assert not np.array_equal(runs[0][0], np.array(plain.tree.root.n))


def test_the_option_is_checked() -> None:
    assert SearchConfig().criticality == 0.0
    for bad in (-1.0, float("nan"), float("inf"), 1e4):
        with pytest.raises(ValueError, match="criticality"):
            SearchConfig(criticality=bad)
    with pytest.raises(TypeError, match="criticality"):
        SearchConfig(criticality="high")  # type: ignore[arg-type]


def test_new_nodes_down_to_criticality_depth_take_the_map(
        db: fp.PatternDatabase, middle_game: fp.Board, monkeypatch: pytest.MonkeyPatch) -> None:
    """``criticality_depth``: a node made d plies below the root (1 <= d <=
    depth) has its made prior times the map's factors, renormalised; the
    root's own reshaping is unchanged; depth 0 leaves new nodes alone."""
    from fastplay.search import criticality as module

    reshaped: list[tuple[int, np.ndarray, np.ndarray]] = []
    real = module._reshape

    def spy(node: Any, base: np.ndarray, factors: np.ndarray) -> None:
        real(node, base, factors)
        reshaped.append((id(node), base.copy(), np.array(node.prior)))

    monkeypatch.setattr(module, "_reshape", spy)
    for depth in (0, 2):
        reshaped.clear()
        search = MCTS(db, seed=6, resign_threshold=None, criticality=10.0,
                      criticality_depth=depth)
        search.run(middle_game, playouts=1500)
        root = search.tree.root
        assert root is not None
        made_below = [r for r in reshaped if r[0] != id(root)]
        if depth == 0:
            assert not made_below and reshaped
            continue
        assert made_below
        depths = {}
        stack = [(root, 0)]
        while stack:
            node, d = stack.pop()
            depths[id(node)] = d
            stack.extend((c, d + 1) for c in node.children if c is not None)
        assert {depths[i] for i, _, _ in made_below if i in depths} <= {1, 2}
        for _, base, prior in made_below:
            assert prior[-1] == base[-1]
            assert prior[:-1].sum() == pytest.approx(base[:-1].sum(), rel=1e-6)   # float32
        maker = search._maker
        assert maker is not None and maker.criticality is None     # not the next search's
