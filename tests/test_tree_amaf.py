"""A node's first-play (AMAF) rows ``rn`` and ``rw`` (issue 21).

A widened node's back-ups add the playouts' first-play tallies to its first
``width`` + 8 moves by prior only, and to the pass their mean; a node not
widened adds them to every move, the pass the mean over the others
(RESULTS.md, "AMAF rows for part of a widened node's moves").  The node
keeps the rows in slots for the moves that have some, or dense once a
back-up reaches every move or Python asks for the rows.  Checked against
a Python reference of the rule, and against the same node made dense from
the start: the same rows, values and selections to the bit.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_widening import reference_width

from fastplay._core import (BLACK, WHITE, TreeNode, TreeParams, inherit_amaf, prior_node,
                            tree_backup)

NPTS = 81


def widened(base: int) -> TreeParams:
    """PUCT with RAVE, widened from ``base`` moves, one more at 2, 4, 8 ...
    playouts (``base`` 0: no widening)."""
    return TreeParams(True, True, False, 1.0, 0.5, 0.1, 300.0, base, 2.0, 2.0)


def random_node(rng: np.random.Generator, color: int = BLACK) -> TreeNode:
    """A node of 3 to 60 moves on 9x9 (ascending points, the pass last),
    priors with ties."""
    m = int(rng.integers(2, 60))
    points = np.sort(rng.choice(NPTS, size=m, replace=False))
    prior = np.round(rng.random(m + 1), 1) + 0.05
    return TreeNode(color, [*points, -1], prior)


def twins(rng: np.random.Generator, color: int = BLACK) -> tuple[TreeNode, TreeNode]:
    """Two equal nodes; the second's AMAF rows made dense (asked for)."""
    state = rng.bit_generator.state
    a = random_node(rng, color)
    rng.bit_generator.state = state
    b = random_node(rng, color)
    assert b.rn.sum() == 0
    return a, b


def tallies(rng: np.random.Generator) -> np.ndarray:
    """Random first-play tallies ``int32[2, 3, 81]`` (Black's wins at most
    the plays)."""
    amaf = rng.integers(0, 4, size=(2, 3, NPTS)).astype(np.int32)
    amaf[1] = np.minimum(amaf[1], amaf[0])
    return amaf


def reference_add(rows: np.ndarray, node: TreeNode, p: tuple[int, float, float],
                  total: float, i: int, n: float, wins: float, amaf: np.ndarray) -> None:
    """The rule, on ``rows`` (``float32[2, k]``, as the node's ``rn`` and
    ``rw``): move ``i`` of the back-up (``n`` playouts, ``wins`` Black's),
    the node at ``total`` playouts after it; ``p``: the widening constants."""
    k, color = node.k, node.color
    moves = node.moves
    plays = amaf[0, color].astype(np.float64)
    won = amaf[1, color] if color == BLACK else amaf[0, color] - amaf[1, color]
    won = won.astype(np.float64)
    if moves[i] >= 0:
        plays[moves[i]] = n
        won[moves[i]] = wins if color == BLACK else n - wins
    width = reference_width(p[0], total, p[1], p[2], int(node.allowed.sum()))
    if width >= node.open:
        order, mean = list(range(k - 1)), 1.0 / (k - 1) if k > 1 else 0.0
    else:
        prior = node.prior
        order = sorted(range(k), key=lambda j: (-prior[j], j))[:min(width + 8, k)]
        order = [j for j in order if j != k - 1]
        mean = None
    s0 = s1 = 0.0
    for j in order:
        g0, g1 = plays[moves[j]], won[moves[j]]
        rows[0, j] = np.float32(float(rows[0, j]) + g0)
        rows[1, j] = np.float32(float(rows[1, j]) + g1)
        if mean is None:
            s0, s1 = s0 + g0, s1 + g1
        else:
            s0, s1 = s0 + g0 * mean, s1 + g1 * mean
    if mean is None and order:
        s0, s1 = s0 / len(order), s1 / len(order)
    if mean is not None or order:
        rows[0, k - 1] = np.float32(float(rows[0, k - 1]) + s0)
        rows[1, k - 1] = np.float32(float(rows[1, k - 1]) + s1)


@pytest.mark.parametrize("base", [0, 2, 6])
@pytest.mark.parametrize("color", [BLACK, WHITE])
def test_back_ups_follow_the_rule_and_the_dense_twin(base: int, color: int) -> None:
    """Back-ups through a widened node (its width growing as they come)
    give the reference's rows; the node with slots and its dense twin
    select alike and value every move alike, and the slots take less
    memory while the node is widened."""
    rng = np.random.default_rng(base + 10 * color)
    p = widened(base)
    for _trial in range(12):
        node, twin = twins(rng, color)
        if rng.random() < 0.3:
            gone = int(rng.integers(node.k))
            node.forbid(gone)
            twin.forbid(gone)
        rows = np.zeros((2, node.k), dtype=np.float32)
        for step in range(int(rng.integers(1, 40))):
            i = int(rng.integers(node.k))
            value = float(rng.choice([0.0, 0.5, 1.0]))
            amaf = tallies(rng)
            for which in (node, twin):
                tree_backup([which], [i], 1.0, value, value, value, amaf.copy(), 0.0, p)
            reference_add(rows, node, (base, 2.0, 2.0), node.sum_n, i, 1.0, value, amaf)
            assert node.data[3:5].tobytes() == rows.astype(np.float64).tobytes()
            assert node.select(p) == twin.select(p)
            assert node.values(p).tobytes() == twin.values(p).tobytes()
        assert node.nbytes <= twin.nbytes
        # Asked for, the rows become dense for good, with the same numbers.
        assert node.rn.tobytes() == twin.rn.tobytes() and node.nbytes == twin.nbytes


def test_a_path_that_holds_a_node_twice() -> None:
    """A path made in Python may hold a node twice: each back-up takes the
    rule at the playouts it finds (the node's rows made dense)."""
    rng = np.random.default_rng(3)
    p = widened(2)
    for _trial in range(10):
        node, twin = twins(rng)
        other, other_twin = twins(rng, WHITE)
        for _step in range(10):
            i, j = (int(x) for x in rng.integers(node.k, size=2))
            o = int(rng.integers(other.k))
            amaf = tallies(rng)
            tree_backup([node, other, node], [i, o, j], 1.0, 1.0, 1.0, 1.0, amaf.copy(), 0.0,
                        p)
            tree_backup([twin, other_twin, twin], [i, o, j], 1.0, 1.0, 1.0, 1.0, amaf.copy(),
                        0.0, p)
            assert node.data.tobytes() == twin.data.tobytes()
            assert other.data.tobytes() == other_twin.data.tobytes()


def ladder_twins(rng: np.random.Generator) -> tuple[TreeNode, TreeNode]:
    """Two equal nodes with tactical virtual playouts (in the first-play
    tallies too: prior_node's); the second's AMAF rows made dense."""
    m = int(rng.integers(2, 60))
    points = np.sort(rng.choice(NPTS, size=m, replace=False))
    codes = rng.choice([0, 1, 2, 3], size=m, p=[0.7, 0.1, 0.1, 0.1]).astype(np.int8)
    args = (BLACK, points, rng.random(m) + 0.01, codes, rng.random(m) * (codes != 0), 4.0,
            15.0, 0.5, 0.01, 0.0)
    a, b = prior_node(*args), prior_node(*args)
    assert b.rn.tobytes() == a.data[3].astype(np.float32).tobytes()
    return a, b


def test_inherited_and_ladder_tallies_in_slots() -> None:
    """Nodes with tactical virtual playouts keep them in their slots; and
    inherit_amaf from a node with slots gives what it gives from the same
    node's dense rows.  Back-ups after either give the dense twin's rows;
    the tallies a Python write puts in the dense rows are kept."""
    rng = np.random.default_rng(4)
    p = widened(3)
    for _trial in range(20):
        anc, anc_twin = ladder_twins(rng)
        for _step in range(int(rng.integers(1, 30))):
            i = int(rng.integers(anc.k))
            amaf = tallies(rng)
            for which in (anc, anc_twin):
                tree_backup([which], [i], 1.0, 1.0, 1.0, 1.0, amaf.copy(), 0.0, p)
        heir, heir_twin = twins(rng)
        cap = float(rng.choice([0.5, 3.0, 1e6]))
        inherit_amaf(heir, anc, cap, p)
        inherit_amaf(heir_twin, anc_twin, cap, p)
        assert heir.data.tobytes() == heir_twin.data.tobytes()
        for _step in range(5):
            i = int(rng.integers(heir.k))
            amaf = tallies(rng)
            for which in (heir, heir_twin):
                tree_backup([which], [i], 1.0, 0.0, 0.0, 0.0, amaf.copy(), 0.0, p)
            assert heir.select(p) == heir_twin.select(p)
        assert heir.data.tobytes() == heir_twin.data.tobytes()
        assert anc.data.tobytes() == anc_twin.data.tobytes()
    # Written from Python through the view: dense from then on, and read.
    node = random_node(rng)
    node.rn[0], node.rw[0] = 5.0, 4.0
    tree_backup([node], [1], 1.0, 1.0, 1.0, 1.0, tallies(rng), 0.0, p)
    assert node.data[3, 0] >= 5.0 and node.r_moves[0, 0] == node.rn[0]


def test_a_widened_search_keeps_few_amaf_slots() -> None:
    """A default 9x9 search (widened from 10 moves): its nodes of more
    than 30 moves keep AMAF slots for far fewer moves than they have."""
    import fastplay as fp
    from fastplay.search import MCTS

    search = MCTS(fp.PatternDatabase.builtin("mc_montegnu_classic"), seed=2)
    search.run(fp.Board(9), playouts=3000)
    root = search.tree.root
    assert root is not None
    stack, kept, moves = [root], 0, 0
    while stack:
        node = stack.pop()
        stack.extend(c for c in node.children if c is not None)
        if node.k > 30 and node is not root:
            before = node.nbytes
            node.rn
            # The pairs (8 bytes a move, after a bitset) from what the
            # dense rows add.
            kept += (before - (node.nbytes - 8 * node.k) - 8 * ((node.k + 63) // 64)) // 8
            moves += node.k
    assert 0 < kept < 0.4 * moves
