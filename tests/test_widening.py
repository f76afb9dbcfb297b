"""Progressive widening (Chaslot et al. 2008, "progressive unpruning"):
the compiled selection considers only the moves of highest prior, more
as a node's playouts grow; checked against a Python reference of the
schedule and of the selection it restricts."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fastplay as fp
from fastplay._core import BLACK, TreeNode, TreeParams
from fastplay.search import MCTS, SearchConfig
from fastplay.search.config import parse_option

K = 10


def make_node() -> TreeNode:
    """Ten moves (the pass last) whose priors rank them in reverse order of
    index, and whose values rank them the other way round: the move of
    lowest prior is the best one, so a selection shows how far it looked."""
    prior = np.array([0.02, 0.04, 0.06, 0.08, 0.10, 0.12, 0.14, 0.16, 0.18, 0.001])
    node = TreeNode(BLACK, [*range(K - 1), -1], prior)
    node.n[:] = 1.0
    node.w[:] = np.linspace(0.9, 0.1, K)
    return node


def params(policy_puct: bool, base: int, visits: float = 40.0, factor: float = 2.0) -> TreeParams:
    # No exploration term: the score is the move's value alone.
    return TreeParams(policy_puct, False, False, 0.0, 0.0, 0.1, 1000.0, base, visits, factor)


def reference_width(base: int, total: float, visits: float, factor: float, allowed: int) -> int:
    """The contract itself: one more move per threshold ``visits * factor **
    t`` (t = 0, 1, ...) that ``total`` has reached."""
    if base == 0:
        return allowed
    extra = 0
    while visits * factor ** extra <= total and base + extra < allowed:
        extra += 1
    return base + extra


def reference_select(node: TreeNode, width: int) -> int:
    """The best value among the ``width`` allowed moves of highest prior
    (ties in move order), first on ties."""
    allowed = [j for j in range(K) if node.allowed[j]]
    ranked = sorted(allowed, key=lambda j: (-node.prior[j], j))[:width]
    values = node.w / node.n
    return max(ranked, key=lambda j: (values[j], -ranked.index(j)))


@pytest.mark.parametrize("puct", [True, False])
@pytest.mark.parametrize("total", [1.0, 39.0, 40.0, 79.0, 80.0, 81.0, 160.0, 170.0, 320.0, 1e6])
def test_selection_widens_with_the_playouts(puct: bool, total: float) -> None:
    p = params(puct, 2)
    node = make_node()
    node.refresh(p)
    node.sum_n = total
    width = reference_width(2, total, 40.0, 2.0, K)
    assert node.select(p) == reference_select(node, width)
    # The schedule reaches every move: then the best value wins.
    assert reference_select(node, K) == 0


@pytest.mark.parametrize("visits, factor", [(1.0, 2.0), (1.0, 10.0), (3.0, 1.5), (40.0, 1.4)])
def test_a_threshold_reached_exactly_counts(visits: float, factor: float) -> None:
    """At ``N = visits * factor ** t`` exactly the width has grown t + 1
    times, though a logarithm may land a hair below t (8 with factor 2:
    ``log(8) * (1 / log(2))`` is 2.9999999999999996); just below, t times."""
    p = TreeParams(True, False, False, 0.0, 0.0, 0.1, 1000.0, 1, visits, factor)
    for t in range(4):
        exact = visits * factor ** t
        for total in (exact, math.nextafter(exact, 0.0)):
            node = make_node()
            node.refresh(p)
            node.sum_n = total
            assert node.select(p) == reference_select(
                node, reference_width(1, total, visits, factor, K))


def test_the_schedule_counts_pending_virtual_loss() -> None:
    p = params(True, 1)
    node = make_node()
    node.refresh(p)
    node.sum_n, node.sum_vl = 30.0, 20.0          # 50 playouts: width 2
    assert node.select(p) == reference_select(node, 2) == 7


def test_forbidden_moves_leave_the_width_to_the_next() -> None:
    p = params(True, 2)
    node = make_node()
    node.refresh(p)
    node.forbid(8)                                 # the highest prior
    assert node.select(p) == reference_select(node, 2) == 6
    for j in range(K - 1):
        node.forbid(j)
    assert node.select(p) == K - 1                 # the pass, the last move left
    node.forbid(K - 1)
    assert node.select(p) == -1


def test_no_widening_is_the_plain_selection() -> None:
    node = make_node()
    plain = TreeParams(True, False, False, 0.0, 0.0, 0.1, 1000.0)
    node.refresh(plain)
    assert plain.widen_base == 0
    assert node.select(plain) == node.select(params(True, 0)) == 0


def test_reorder_takes_a_prior_written_from_python() -> None:
    p = params(True, 1)
    node = make_node()
    node.refresh(p)
    assert node.select(p) == 8
    node.prior[:K - 1] = node.prior[:K - 1][::-1].copy()
    node.reorder()
    assert node.select(p) == reference_select(node, 1) == 0


def test_the_order_taken_further_reads_the_priors_then() -> None:
    """The order is taken as far as a selection reads it; a selection that
    reads further takes it anew from ``prior`` as it is then (a tester: a
    prior written without :meth:`TreeNode.reorder` takes effect there, not
    at once), and ``reorder`` retakes it at once."""
    p = TreeParams(True, False, False, 1.0, 1.0, 0.0, 10.0, 1, 1.0, 2.0)
    node = TreeNode(BLACK, [*range(20), -1], np.linspace(1.0, 0.5, 21))
    assert node.select(p) == 0             # width 1 of 21: moves 0-8 taken
    node.prior[19] = 10.0
    node.prior[0] = 0.0
    assert node.select(p) == 0             # the part taken, as taken
    node.sum_n = 2.0 ** 14                 # width 15: read past move 8, taken anew
    assert node.select(p) == 19
    node.reorder()
    node.sum_n = 0.0
    assert node.select(p) == 19


@pytest.mark.parametrize("args, name", [
    ((-1, 40.0, 1.4), "widen_base"), ((1_000_001, 40.0, 1.4), "widen_base"),
    ((2**31, 40.0, 1.4), "widen_base"), ((1.5, 40.0, 1.4), "widen_base"),
    ((np.float64(5.0), 40.0, 1.4), "widen_base"), ((float("nan"), 40.0, 1.4), "widen_base"),
    ((True, 40.0, 1.4), "widen_base"), (("5", 40.0, 1.4), "widen_base"),
    ((5, 0.5, 1.4), "widen_visits"), ((5, float("inf"), 1.4), "widen_visits"),
    ((5, True, 1.4), "widen_visits"), ((5, "x", 1.4), "widen_visits"),
    ((5, 40.0, 1.0), "widen_factor"), ((5, 40.0, float("nan")), "widen_factor"),
    ((5, 40.0, 100.5), "widen_factor")])
def test_bad_widening_constants_are_refused(args: tuple[object, object, object],
                                            name: str) -> None:
    with pytest.raises(ValueError, match=f"^{name} must be"):
        TreeParams(True, True, False, 1.0, 0.5, 0.1, 1000.0, *args)
    assert TreeParams(True, True, False, 1.0, 0.5, 0.1, 1000.0, np.int64(5)).widen_base == 5


def test_select_needs_initialised_params() -> None:
    with pytest.raises(RuntimeError, match="not initialised"):
        make_node().select(TreeParams.__new__(TreeParams))


def test_search_options() -> None:
    assert parse_option("widen_base=5") == ("widen_base", 5)
    for bad in ("widen_base=-1", "widen_base=2.5", "widen_factor=1", "widen_visits=0"):
        with pytest.raises(ValueError, match=bad.split("=")[0]):
            parse_option(bad)


def test_a_search_visits_only_the_widened_moves() -> None:
    """With the width never growing (``widen_visits`` beyond the search),
    the root's visits go to its ``widen_base`` moves of highest prior."""
    db = fp.PatternDatabase.builtin("mc_montegnu_classic")
    config = SearchConfig(widen_base=3, widen_visits=1e9, book=False)
    search = MCTS(db, config=config, seed=5)
    board = fp.Board(9)
    for move in ("E5", "D4", "F6"):
        board.play(move)
    result = search.run(board, visits=600)
    root = search.root
    assert root is not None
    visited = np.flatnonzero(root.n > 0)
    assert len(visited) == len(result.children) == 3
    ranked = sorted(np.flatnonzero(root.allowed), key=lambda j: (-root.prior[j], j))
    assert sorted(visited) == sorted(ranked[:3])
    assert root.n.sum() == 600


@pytest.mark.parametrize("puct", [True, False])
def test_with_widen_ties_moves_tied_at_the_cut_are_selectable(puct: bool) -> None:
    """Priors 0.3, then four tied at 0.15, then less: with a width of 2 the
    plain schedule considers moves 0 and 1 (ties in move order), with
    ``widen_ties`` moves 0 to 4; the best value among them is the last tied
    one."""
    prior = np.array([0.3, 0.15, 0.15, 0.15, 0.15, 0.05, 0.04, 0.005, 0.004, 0.001])
    node = TreeNode(BLACK, [*range(K - 1), -1], prior)
    node.n[:] = 1.0
    node.w[:] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.9, 0.9, 0.9, 0.9]
    node.sum_n = 10.0       # below the first threshold: the width stays 2
    plain = params(puct, 2, visits=1e9)
    tied = TreeParams(puct, False, False, 0.0, 0.0, 0.1, 1000.0, 2, 1e9, 2.0, True)
    assert tied.widen_ties and not plain.widen_ties
    for p, want in ((plain, 1), (tied, 4)):
        node.refresh(p)
        assert node.select(p) == want
    node.forbid(4)
    assert node.select(tied) == 3
    flat = TreeNode(BLACK, [*range(K - 1), -1], np.full(K, 0.1))
    flat.n[:] = 1.0
    flat.w[:] = np.linspace(0.1, 0.9, K)
    flat.sum_n = 10.0
    flat.refresh(tied)
    assert flat.select(tied) == K - 1 and flat.select(plain) == 1


def test_a_flat_user_prior_with_widen_ties_spreads_over_the_board() -> None:
    """A tester's case: a uniform user prior, widened with ties in move
    order, kept the search to the top three rows of the board."""
    db = fp.PatternDatabase.builtin("mc_montegnu_classic")
    board = fp.Board(9, komi=7.5)
    board.play("E5")
    board.play("C3")
    rows = {}
    for ties in (False, True, None):
        search = MCTS(db, SearchConfig(widen_ties=ties), prior=lambda b: np.ones(82), seed=1)
        result = search.run(board, visits=2000)
        rows[ties] = {int(c.move[1:]) for c in result.children if c.visits > 0}
    assert rows[False] <= {7, 8, 9}
    assert rows[True] == rows[None] == set(range(1, 10))     # the default, with a user prior
    assert parse_option("widen_ties=true") == ("widen_ties", True)
    assert parse_option("widen_ties=none") == ("widen_ties", None)
    with pytest.raises(TypeError, match="widen_ties"):
        SearchConfig(widen_ties="yes")  # type: ignore[arg-type]
    # The learned priors keep move order (the default the matches chose).
    assert not SearchConfig().ties_for(False) and SearchConfig().ties_for(True)


@pytest.mark.parametrize("seed", range(6))
def test_the_order_is_taken_as_far_as_a_selection_reads(seed: int) -> None:
    """A node keeps the widening's order only as far as its selections read
    it (issue 21: ``width`` and 8 more moves, taken further on demand);
    with many moves forbidden at its head, or many tied at the cut under
    ``widen_ties``, the selection still sees the full order's moves, with
    ``n`` and ``w`` in slots (back-ups) as in dense rows (views)."""
    from fastplay._core import tree_backup

    rng = np.random.default_rng(seed)
    k = 121
    prior = rng.choice([0.5, 0.25, 0.125, 0.0625], size=k)    # ties everywhere
    moves = [*range(k - 1), -1]
    sparse, dense = TreeNode(BLACK, moves, prior), TreeNode(BLACK, moves, prior)
    plain = TreeParams(True, False, False, 0.0, 0.0, 0.1, 1000.0, 1, 1e9, 2.0)
    for j in rng.choice(k, size=30, replace=False):
        value = float(rng.random())
        tree_backup([sparse], [int(j)], 1.0, value, value, value, None, 0.0, plain)
    dense.n[:], dense.w[:] = sparse.stats[0], sparse.stats[1]
    dense.sum_n, dense.sum_w = sparse.sum_n, sparse.sum_w
    ranked = sorted(range(k), key=lambda j: (-prior[j], j))
    for forbidden in (0, 15, 40, 80):
        for j in ranked[:forbidden]:
            sparse.forbid(j)
            dense.forbid(j)
        for base in (1, 5, 20):
            for ties in (False, True):
                p = TreeParams(True, False, False, 0.0, 0.0, 0.1, 1000.0, base, 1e9, 2.0, ties)
                allowed = [j for j in ranked if sparse.allowed[j]]
                seen = allowed[:base]
                if ties:
                    seen += [j for j in allowed[base:] if prior[j] == prior[seen[-1]]]
                values = sparse.values(p)
                want = max(seen, key=lambda j: (values[j], -seen.index(j)))
                assert sparse.select(p) == dense.select(p) == want
