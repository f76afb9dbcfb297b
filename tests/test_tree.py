"""The compiled search tree (``fastplay._tree``): its arithmetic against
hand-computed values and slow Python references, and its boundary checks
(no input may crash the process)."""

from __future__ import annotations

import collections.abc
import sys
import time
from typing import Any

import numpy as np
import pytest

import fastplay as fp
from fastplay._core import (BLACK, DESCEND_END, DESCEND_EXPAND, DESCEND_LEAF, DESCEND_STOP,
                            TACTIC_SAVE, WHITE, ReplyTable, TreeNode, TreeParams,
                            expansion_moves, inherit_amaf, prior_node,
                            tree_backup, tree_descend, true_eyes)
from fastplay.mcts import LINE_PRIOR

from conftest import shared_path
from test_tactics import random_game

PARAMS = TreeParams(True, True, False, 1.0, 0.5, 0.1, 1000.0)


def reference_moves(board: fp.Board, color: int, values: np.ndarray
                    ) -> tuple[list[int], list[float]]:
    """expansion_moves written out point by point."""
    size = board.size
    grid = board.to_numpy()
    own = 1 if color == BLACK else -1

    def at(r: int, c: int) -> int | None:
        return int(grid[r, c]) if 0 <= r < size and 0 <= c < size else None

    points, weights = [], []
    for i in range(size * size):
        r, c = divmod(i, size)
        if grid[r, c] != 0:
            continue
        orth = [at(r + dr, c + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))]
        diag = [at(r + dr, c + dc) for dr, dc in ((-1, -1), (-1, 1), (1, -1), (1, 1))]
        enemy = sum(d == -own for d in diag)
        eye = all(o in (own, None) for o in orth) and (
            enemy == 0 or (enemy == 1 and None not in diag))
        if eye or (values[i] == 0 and board.legality_index(i, color) is not None):
            continue
        points.append(i)
    positive = [int(values[i]) for i in points if values[i] > 0]
    floor = min(positive) / 10 if positive else 1.0
    for i in points:
        r, c = divmod(i, size)
        weight = float(values[i]) if values[i] > 0 else floor
        line = 1 + min(r, c, size - 1 - r, size - 1 - c)
        near = any(at(r + dr, c + dc) not in (0, None)
                   for dr in range(-2, 3) for dc in range(-2, 3))
        if size >= 7 and line <= 2 and not near:
            weight *= LINE_PRIOR[line]
        weights.append(weight)
    return points, weights


def test_expansion_moves_equal_the_reference():
    db = fp.PatternDatabase.builtin("mc_montegnu_classic")
    rng = np.random.default_rng(11)
    boards = [fp.Board.from_sgf(shared_path("gnugo-regression", "games", "cgos", "42896.sgf"),
                                move_number=m) for m in (0, 3, 12, 24, 40, 60)]
    boards += [random_game(size, rng, suicide=bool(size % 2), most=1.1)
               for size in (3, 5, 7, 9, 13, 19) for _ in range(3)]
    for board in boards:
        for color in (BLACK, WHITE):
            values = db.move_values(board, "B" if color == BLACK else "W", near=False)
            # some zero values on legal points, to exercise the floor
            values = np.where(rng.random(values.shape) < 0.1, 0, values).astype(np.uint32)
            points, weights = expansion_moves(board, color, values, LINE_PRIOR[1], LINE_PRIOR[2])
            ref_points, ref_weights = reference_moves(board, color, values.ravel())
            assert points.tolist() == ref_points
            assert weights.tolist() == ref_weights   # exact: same operations
    with pytest.raises(ValueError):
        expansion_moves(fp.Board(9), BLACK, np.ones(80, dtype=np.uint32), 0.1, 0.5)
    with pytest.raises(ValueError):
        expansion_moves(fp.Board(9), 3, np.ones(81, dtype=np.uint32), 0.1, 0.5)


def test_true_eyes_rejects_bad_grids():
    for grid, sign in ((np.zeros((3, 4), np.int8), 1), (np.full((5, 5), 2, np.int8), 1),
                       (np.zeros((5, 5), np.int8), 0), (np.zeros((1, 1), np.int8), 1),
                       (np.zeros((26, 26), np.int8), -1), (np.zeros(9, np.int8), 1)):
        with pytest.raises(ValueError):
            true_eyes(grid, sign)
    corner = np.zeros((5, 5), np.int8)
    corner[0, 1] = corner[1, 0] = 1
    assert np.flatnonzero(true_eyes(corner, 1)).tolist() == [0]
    corner[1, 1] = -1          # an enemy diagonal spoils a corner eye
    assert not true_eyes(corner, 1).any()


def test_node_rejects_bad_moves():
    for color, moves, prior in ((3, [0, -1], [0.5, 0.5]), (BLACK, [0, 1], [0.5, 0.5]),
                                (BLACK, [0, 0, -1], [0.3, 0.3, 0.4]),
                                (BLACK, [-1, 0, -1], [0.3, 0.3, 0.4]),
                                (BLACK, [625, -1], [0.5, 0.5]), (BLACK, [0, -1], [1.0]),
                                (BLACK, [], [])):
        with pytest.raises(ValueError):
            TreeNode(color, moves, prior)
    node = TreeNode(WHITE, [4, 2, -1], [0.5, 0.4, 0.1])
    node.forbid(-1)
    assert node.open == 2 and not node.allowed[2] and node.values(PARAMS)[2] == -np.inf
    node.forbid(2)             # twice: counted once
    assert node.open == 2
    with pytest.raises(IndexError):
        node.forbid(3)
    with pytest.raises(ValueError):
        TreeParams(True, True, False, 1.0, 0.5, 0.1, 0.0)


def test_backup_by_hand():
    """One playout backed up through Black's root and White's child: counts,
    values, plain wins, AMAF with the tree moves joined in, the pass's mean
    tally, u and the values selection computes."""
    root = TreeNode(BLACK, [0, 1, 2, -1], [0.3, 0.3, 0.3, 0.1])
    child = TreeNode(WHITE, [1, 2, -1], [0.45, 0.45, 0.1])
    amaf = np.zeros((2, 3, 4), dtype=np.int32)
    amaf[0, BLACK, 2] = 1      # the playout: Black first at 2 and won
    amaf[1, BLACK, 2] = 1
    amaf[0, WHITE, 3] = 1      # White first at 3 (not a move of either node)
    tree_backup([root, child], [0, 0], 1.0, 1.0, 1.0, 1.0, amaf, 0.0, PARAMS)
    # root: Black played 0 (the tree move joins the tallies) and 2
    assert root.n.tolist() == [1, 0, 0, 0] and root.w.tolist() == [1, 0, 0, 0]
    assert root.wins.tolist() == [1, 0, 0, 0] and root.sum_n == 1 and root.sum_w == 1
    third = float(np.float32(2 / 3))          # the rows are float32 (issue 21)
    assert root.rn.tolist() == [1, 0, 1, third] and root.rw.tolist() == [1, 0, 1, third]
    # child: White played 1 in the tree and lost
    assert child.n.tolist() == [1, 0, 0] and child.w.tolist() == [0, 0, 0]
    assert child.rn.tolist() == [1, 0, 0.5] and child.rw.tolist() == [0, 0, 0]
    assert root.u.tolist() == pytest.approx([0.15, 0.3, 0.3, 0.1])
    t = 1 + root.rn / 1000
    qs = (t * root.w + root.rw + 1e-300 * (1.0 - 0.1)) / (t * root.n + root.rn + 1e-300)
    assert root.values(PARAMS).tolist() == pytest.approx(qs.tolist())
    assert amaf[1, WHITE, 3] == 0   # the caller's tallies are left alone
    # virtual loss comes off again
    root.vl[1] = root.sum_vl = 2.0
    tree_backup([root], [1], 2.0, 0.0, 0.0, 0.0, None, 2.0, PARAMS)
    assert root.vl[1] == 0 and root.sum_vl == 0 and root.n[1] == 2


def test_boundaries_raise_instead_of_crashing():
    small = fp.Board(5)
    big_node = TreeNode(BLACK, [24, 100, -1], [0.4, 0.4, 0.2])
    with pytest.raises(ValueError, match="does not fit"):
        tree_descend(big_node, small, set(), set(), [], [], PARAMS, 0.0, 2.0, True)
    node = TreeNode(BLACK, [0, 1, -1], [0.4, 0.4, 0.2])
    amaf = np.zeros((2, 3, 25), dtype=np.int32)
    for nodes, path, tallies in (([node], [], None), ([node], [3], None), ([node], [-1], None),
                                 ([big_node], [0], amaf), (["node"], [0], None),
                                 ([node], [0], np.zeros((2, 3, 25))),
                                 ([node], [0], np.zeros((3, 2, 25), np.int32))):
        with pytest.raises((ValueError, TypeError)):
            tree_backup(nodes, path, 1.0, 1.0, 1.0, 1.0, tallies, 0.0, PARAMS)
    assert node.n.sum() == 0   # a refused back-up changes nothing
    node = TreeNode(BLACK, [0, -1], [0.9, 0.1])
    with pytest.raises(TypeError):
        node.children[0] = "not a node"     # refused where it is given
    assert node.children[0] is None


def test_descend_stops_and_checks_rules():
    board = fp.Board(5)
    board.play("C3")                       # White to move
    hashes: set[int] = set()
    # C3 is occupied: forbidden, then B2 (next best) is played
    node = TreeNode(WHITE, [12, 16, -1], [0.6, 0.3, 0.1])
    nodes: list[TreeNode] = []
    path: list[int] = []
    status = tree_descend(node, board, set(), hashes, nodes, path, PARAMS, 1.0, 0.0, True)
    assert status == DESCEND_EXPAND and path == [1] and not node.allowed[0]
    assert node.vl[1] == 1 and node.sum_vl == 1 and board.get_index(16) == WHITE
    assert board.zobrist_hash in hashes
    # below the threshold, or with the tree full: a leaf
    node2 = TreeNode(BLACK, [0, -1], [0.9, 0.1])
    assert tree_descend(node2, board, set(), set(), [], [], PARAMS, 0.0, 5.0, True) \
        == DESCEND_LEAF
    # superko: a move back to a seen position is forbidden for good
    board = fp.Board(5)
    seen = {board.zobrist_hash}
    board.play("C3")
    board.undo()
    after = board.copy()
    after.play("C3")
    node3 = TreeNode(BLACK, [12, -1], [0.9, 0.1])
    assert tree_descend(node3, board, {after.zobrist_hash} | seen, set(), [], [], PARAMS,
                        0.0, 0.0, False) == DESCEND_LEAF
    assert not node3.allowed[0] and board.get_index(12) == 0
    # no move left (every one forbidden): DESCEND_STOP, nothing played
    blocked = TreeNode(BLACK, [0, -1], [0.9, 0.1])
    blocked.forbid(0)
    blocked.forbid(1)
    board5 = fp.Board(5)
    path5: list[int] = []
    assert tree_descend(blocked, board5, set(), set(), [], path5, PARAMS, 0.0, 0.0, True) \
        == DESCEND_STOP
    assert path5 == [] and board5.move_number == 0
    # two passes end the game
    board = fp.Board(5)
    board.pass_move()
    node4 = TreeNode(WHITE, [-1], [1.0])
    assert tree_descend(node4, board, set(), set(), [], [], PARAMS, 0.0, 0.0, True) \
        == DESCEND_END


def test_what_a_fresh_tester_broke_is_refused():
    """Each of these crashed or hung the process (tester 15): a child that is
    not a node, moves made writable again, NaN values, a missing TreeParams,
    an index that changes between two reads (and the next test's)."""
    node = TreeNode(BLACK, [0, 1, -1], [0.4, 0.4, 0.2])
    with pytest.raises(TypeError):
        node.children[0] = "x"          # refused at once since children are sparse
    assert node.count() == 1
    with pytest.raises(ValueError):
        node.moves[0] = 10**8
    copy = node.moves            # a new array at each access: the node's own stay
    copy.flags.writeable = True
    copy[0] = 10**8
    assert node.moves.tolist() == [0, 1, -1]
    with pytest.raises(ValueError):
        TreeNode(BLACK, [0, -1], [float("nan"), 0.5])
    with pytest.raises(ValueError):
        TreeNode(BLACK, [0.7, -1], [0.5, 0.5])
    for raw, pass_prior in (([-1.0, 2.0], 0.01), ([0.0, 1.0], 0.01), ([1.0, 1.0], float("nan"))):
        with pytest.raises(ValueError):
            prior_node(BLACK, [0, 1], raw, None, None, 10.0, 50.0, 0.5, pass_prior, 0.0)
    with pytest.raises(TypeError):
        node.select(None)
    with pytest.raises(RuntimeError, match="once"):
        node.__init__(BLACK, [0, -1], [0.5, 0.5])
    with pytest.raises(ValueError):
        tree_backup([node], [0], float("nan"), 0.0, 0.0, 0.0, None, 0.0, PARAMS)
    with pytest.raises(TypeError):
        tree_backup([node], [0.5], 1.0, 1.0, 1.0, 1.0, None, 0.0, PARAMS)
    with pytest.raises(ValueError):
        expansion_moves(fp.Board(5), BLACK, np.full(25, -1), 0.1, 0.5)

    class Shifty:
        """0 at the first read, far out of range at the second."""
        reads = 0

        def __index__(self) -> int:
            Shifty.reads += 1
            return 0 if Shifty.reads == 1 else 50_000_000

    fresh = TreeNode(BLACK, [0, 1, -1], [0.4, 0.4, 0.2])
    tree_backup([fresh], [Shifty()], 1.0, 1.0, 1.0, 1.0, None, 0.0, PARAMS)
    assert fresh.n.tolist() == [1, 0, 0] and Shifty.reads == 1

    # NaN values: the descent still ends (it once forbade the same illegal
    # move for ever)
    board = fp.Board(5)
    board.play("A5")
    stuck = TreeNode(WHITE, [0, 1, -1], [0.4, 0.4, 0.2])   # A5 is occupied
    stuck.w[:] = np.nan
    stuck.n[:] = 1.0
    stuck.sum_n = 3.0
    assert np.isnan(stuck.values(PARAMS)).all()
    assert tree_descend(stuck, board, set(), set(), [], [], PARAMS, 0.0, 9.0, True) \
        == DESCEND_LEAF
    assert not stuck.allowed[0]


def test_python_code_in_a_set_lookup_cannot_break_the_descent():
    """Python code run from the superko set's lookup that re-initialises the
    node or resizes the board is refused (tester 15: it crashed the process)."""
    board = fp.Board(5)
    after = board.copy()
    after.play("C3")

    class Meddler:
        def __init__(self, action) -> None:
            self.action = action

        def __hash__(self) -> int:
            return hash(after.zobrist_hash)

        def __eq__(self, other: object) -> bool:
            self.action()
            return False

    target = TreeNode(BLACK, [12, -1], [0.9, 0.1])
    with pytest.raises(RuntimeError, match="once"):
        tree_descend(target, board, {Meddler(lambda: target.__init__(BLACK, [0, -1], [0.5, 0.5]))},
                     set(), [], [], PARAMS, 0.0, 9.0, True)
    target = TreeNode(BLACK, [12, -1], [0.9, 0.1])
    with pytest.raises(RuntimeError, match="changed"):
        tree_descend(target, board, {Meddler(lambda: board.__init__(3))}, set(), [], [],
                     PARAMS, 0.0, 9.0, True)


def test_one_search_at_a_time_per_mcts_object():
    import threading

    from fastplay.mcts import MCTS

    search = MCTS(fp.PatternDatabase.builtin("mc_montegnu_classic"), seed=1)
    board = fp.Board(9, komi=7.5)
    board.play("E5")
    errors: list[BaseException] = []
    started = threading.Event()

    def long_search() -> None:
        started.set()
        search.run(board, seconds=1.0)

    worker = threading.Thread(target=long_search)
    worker.start()
    started.wait()
    time.sleep(0.2)
    try:
        search.run(board, playouts=10)
    except RuntimeError as exc:
        errors.append(exc)
    worker.join()
    assert errors and "another thread" in str(errors[0])
    assert search.run(board, playouts=50).playouts == 50   # free again


def test_arrays_the_core_writes_cannot_be_resized_or_cycled():
    """A second fresh tester freed memory the core keeps pointers into by
    resizing arrays a node or a tally handed out, played on the board from
    a set lookup, and hung count() on a cycle."""
    from fastplay._core import PlayoutTally
    from fastplay.montecarlo import _engine

    node = TreeNode(BLACK, [0, 1, -1], [0.4, 0.4, 0.2])
    tally = PlayoutTally(5)
    for array in (node.n, node.w, node.vl, node.pn, node.pw, node.wins, node.r_moves,
                  node.r_moves.base, node.prior, tally.hist,
                  tally.own_black, tally.amaf, tally.amaf.base):
        with pytest.raises(ValueError):
            array.resize(0, refcheck=False)
    assert not node.allowed.flags.writeable    # a copy of the node's bits
    node.n[0] = 3.0                        # the views still write where the core reads
    assert node.stats[0, 0] == 3.0 and node.data[0, 0] == 3.0
    engine = _engine(fp.PatternDatabase.builtin("mc_montegnu_classic"))
    engine.run_into(tally, fp.Board(5), 40, 1)
    assert tally.hist.sum() == 40

    looped = TreeNode(BLACK, [0, -1], [0.9, 0.1])
    with pytest.raises(ValueError, match="colour"):
        looped.children[0] = looped            # its own child: the same colour
    other = TreeNode(WHITE, [0, -1], [0.9, 0.1])
    looped.children[0] = other
    other.children[0] = looped                 # a cycle of two
    with pytest.raises(ValueError, match="tree"):
        looped.count()

    # a set lookup that plays on the board: the checked move is not committed
    board = fp.Board(5)
    after = board.copy()
    after.play("C3")

    class Player:
        def __hash__(self) -> int:
            return hash(after.zobrist_hash)

        def __eq__(self, other: object) -> bool:
            board.play("C3", "W")
            return False

    target = TreeNode(BLACK, [12, -1], [0.9, 0.1])
    with pytest.raises(RuntimeError, match="changed"):
        tree_descend(target, board, {Player()}, set(), [], [], PARAMS, 0.0, 9.0, True)
    assert board.get_index(12) == WHITE

    for args in ((True, True, False, float("nan"), 0.5, 0.1, 1000.0),
                 (True, True, False, 1.0, 0.5, 0.1, 1e-320)):
        with pytest.raises(ValueError):
            TreeParams(*args)
    with pytest.raises(ValueError):
        TreeNode(BLACK, [0, -1], [0.5, 0.5], float("nan"))
    with pytest.raises(ValueError, match="virtual loss"):
        tree_backup([TreeNode(BLACK, [0, -1], [0.5, 0.5])], [0], 1.0, 1.0, 1.0, 1.0, None,
                    5.0, PARAMS)
    # An edge the path holds twice must hold the virtual loss twice.
    twice = TreeNode(BLACK, [0, -1], [0.5, 0.5])
    twice.vl[0] = 5.0
    with pytest.raises(ValueError, match="virtual loss"):
        tree_backup([twice, twice], [0, 0], 1.0, 1.0, 1.0, 1.0, None, 5.0, PARAMS)
    assert twice.vl[0] == 5.0 and twice.n[0] == 0.0
    twice.vl[0] = 10.0
    tree_backup([twice, twice], [0, 0], 1.0, 1.0, 1.0, 1.0, None, 5.0, PARAMS)
    assert twice.vl[0] == 0.0 and twice.n[0] == 2.0


def test_ponder_start_and_run_never_overlap(monkeypatch):
    """run() from one thread while another starts pondering: at most one
    search at a time, and no ponder thread left running after ponder_stop."""
    import threading

    import fastplay.search.driver as driver
    from fastplay.mcts import MCTS

    search = MCTS(fp.PatternDatabase.builtin("mc_montegnu_classic"), seed=1)
    board = fp.Board(9, komi=7.5)
    board.play("E5")
    running, most = [0], [0]
    lock = threading.Lock()
    original = driver._search     # every search of every MCTS object runs through it

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        try:
            return original(*args, **kwargs)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(driver, "_search", counted)

    for _ in range(15):
        search.ponder_start(board)         # a ponder runs: the next start must stop it
        time.sleep(0.02)
        barrier = threading.Barrier(2)

        def ponder() -> None:
            barrier.wait()
            try:
                search.ponder_start(board)
            except RuntimeError:
                pass

        def run() -> None:
            barrier.wait()
            time.sleep(0.0005)             # while ponder_start joins the old ponder
            try:
                search.run(board, playouts=2000)
            except RuntimeError:
                pass

        threads = [threading.Thread(target=ponder), threading.Thread(target=run)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        search.ponder_stop()
        time.sleep(0.05)
        assert running[0] == 0             # no ponder thread left searching
    assert most[0] == 1
    assert not any(t.name == "fastplay-ponder" and t.is_alive() for t in threading.enumerate())


def test_expansion_moves_multiplies_factor_rows() -> None:
    """A learned prior's line and distance factors (``factors``): the weights
    are multiplied point by point; bad rows are refused."""
    board = fp.Board(9)
    for move in ("E5", "C3", "G7"):
        board.play(move)
    color = board.to_move_code
    values = fp.PatternDatabase.builtin("mc_montegnu_classic").move_values(board)
    points, plain = expansion_moves(board, color, values, 1.0, 1.0)
    rng = np.random.default_rng(1)
    rows = [rng.uniform(0.5, 2.0, 81) for _ in range(3)]
    for k in range(4):
        got_points, got = expansion_moves(board, color, values, 1.0, 1.0, tuple(rows[:k]))
        np.testing.assert_array_equal(got_points, points)
        want = plain.copy()
        for row in rows[:k]:
            want = want * row[points]
        np.testing.assert_allclose(got, want, rtol=1e-12)
    square = expansion_moves(board, color, values, 1.0, 1.0, (rows[0].reshape(9, 9),))[1]
    np.testing.assert_allclose(square, plain * rows[0][points], rtol=1e-12)
    for bad in ((np.ones(80),), (np.zeros(81),), (np.full(81, np.nan),), (np.full(81, np.inf),),
                (np.full(81, 1e300),) * 3, (np.full(81, 1e-200),) * 3, (np.ones((3, 27)),),
                (np.ones((81, 1)),), tuple(rows) + (np.ones(81),)):
        with pytest.raises(ValueError, match="factor rows"):
            expansion_moves(board, color, values, 1.0, 1.0, bad)
    for bad_type in ((np.ones(81, complex),), (np.ones(81, "m8"),), (np.full(81, "1"),),
                     (np.ones(81, object),)):
        with pytest.raises(TypeError, match="real numbers"):
            expansion_moves(board, color, values, 1.0, 1.0, bad_type)


def test_make_node_equals_its_parts() -> None:
    """make_node gives, to the bit, the node prior_node makes from
    expansion_moves, the engine's move values and tactics_flat's codes (the
    search's two built-in weight sources, with and without tactics), and with
    a ``nakade`` factor the node from those weights times it at nakade_flat's
    vital points (as the search's assembled path forms them)."""
    from fastplay._core import make_node, nakade_flat
    from fastplay.prior import load_prior
    from fastplay.search.priors import _learned

    from fastplay.montecarlo import playout_engine

    engine_db = playout_engine(fp.PatternDatabase.builtin("mc_montegnu_classic"))
    rng = np.random.default_rng(5)
    learned = _learned(load_prior("gnugo9x9"))
    boards = [fp.Board.from_sgf(shared_path("gnugo-regression", "games", "cgos", "42896.sgf"),
                                move_number=m) for m in (0, 5, 24, 60)]
    boards += [random_game(size, rng, suicide=bool(size % 2), most=1.1)
               for size in (2, 5, 9, 13, 19, 25) for _ in range(2)]
    three = fp.Board(9)       # Black's straight three A9-C9: vital point B9
    for move in "A8 E5 B8 E6 C8 E7 D8 E8 D9 E9".split():
        three.play(move)
    boards.append(three)
    checked = marked = 0
    for board in boards:
        color = board.to_move_code
        vital = nakade_flat(board)
        sources = [(engine_db, LINE_PRIOR[1], LINE_PRIOR[2], (), 0.5)]
        if board.size == 9:
            sources.append((learned[1], 1.0, 1.0, learned[0].factor_rows(9, 40, 30), 1.0))
        for engine, line1, line2, rows, power in sources:
            points, raw = expansion_moves(board, color, engine.move_values(board), line1, line2,
                                          rows)
            codes = board.tactics_flat(color)[points]
            marked += int(vital[points].any())
            for tactical, nakade in ((False, 1.0), (True, 1.0), (True, 5.0)):
                tactics = codes if tactical else None
                weight = (codes != 0).astype(np.float64) if tactical else None
                want = prior_node(color, points, raw * np.where(vital[points], nakade, 1.0),
                                  tactics, weight, 10.0, 50.0, power, 0.01, 3.0)
                for release in (False, True):   # the GIL let go: the same node
                    got = make_node(board, engine, line1, line2, rows, tactical, 10.0, 50.0,
                                    power, 0.01, 3.0, release, nakade=nakade)
                    assert got.color == want.color and got.base == want.base
                    assert got.moves.tolist() == want.moves.tolist()
                    assert got.data.tobytes() == want.data.tobytes()
                    assert not got.moves.flags.writeable
                    checked += 1
    assert checked >= 120 and marked >= 2
    for nakade in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="nakade"):
            make_node(fp.Board(9), engine_db, 1.0, 1.0, (), True, 10.0, 50.0, 1.0, 0.01, 0.0,
                      nakade=nakade)
    with pytest.raises(ValueError):
        make_node(fp.Board(9), engine_db, 0.0, 1.0, (), True, 10.0, 50.0, 1.0, 0.01, 0.0)
    with pytest.raises(ValueError):
        make_node(fp.Board(9), engine_db, 1.0, 1.0, (), True, 10.0, 50.0, 1.0, 1.5, 0.0)
    with pytest.raises(ValueError):
        make_node(fp.Board(9), engine_db, 1.0, 1.0, (np.zeros(81),), True, 10.0, 50.0, 1.0,
                  0.01, 0.0)


def test_what_the_fresh_tester_broke_in_make_node_is_refused() -> None:
    """Two crashes a fresh tester found (2026-12-04), as subprocesses: an
    engine that was never initialised (its table pointer NULL), and a factor
    row whose ``__array__`` re-initialises the board to another size (the
    buffers were sized before)."""
    import subprocess
    import sys

    uninitialised = """
import fastplay as fp
from fastplay._core import PlayoutEngine, make_node
class Sub(PlayoutEngine):
    def __init__(self):
        pass
for engine in (Sub(), PlayoutEngine.__new__(PlayoutEngine)):
    for call in (lambda: make_node(fp.Board(9), engine, 1.0, 1.0, (), False, 1.0, 0.0, 0.5,
                                   0.01, 0.0),
                 lambda: engine.move_values(fp.Board(9))):
        try:
            call()
        except TypeError:
            pass
        else:
            raise SystemExit("no TypeError")
print("ok")
"""
    resized = """
import numpy as np
import fastplay as fp
from fastplay._core import expansion_moves, make_node
from fastplay.montecarlo import playout_engine
engine = playout_engine(fp.PatternDatabase.builtin("mc_montegnu_classic"))
for make in ("expansion_moves", "make_node"):
    b = fp.Board(2)
    class Row:
        def __array__(self, dtype=None, copy=None):
            b.__init__(25)
            return np.ones(4)
    try:
        if make == "expansion_moves":
            expansion_moves(b, 2, np.full(4, 5, np.uint32), 1.0, 1.0, (Row(),))
        else:
            make_node(b, engine, 1.0, 1.0, (Row(),), True, 10.0, 50.0, 1.0, 0.01, 0.0)
    except RuntimeError:
        pass
    else:
        raise SystemExit("no RuntimeError from " + make)
print("ok")
"""
    for code in (uninitialised, resized):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_three_rows_are_float32_views() -> None:
    """``rn``, ``rw`` and ``prior`` (and ``r_moves``, ``r_pass``) are
    writable ``float32`` views of the node (issue 21: 12 bytes a move, not
    24); ``data`` and ``stats`` give them as ``float64``, and a prior given
    as ``float64`` is kept rounded to ``float32``."""
    prior = [0.1 + 1e-12, 0.2, 0.6, 0.1 - 1e-12]
    node = TreeNode(BLACK, [0, 1, 2, -1], prior)
    for row in (node.rn, node.rw, node.prior, node.r_moves, node.r_pass):
        assert row.dtype == np.float32
    assert node.prior.tolist() == np.array(prior, dtype=np.float32).tolist()
    node.rn[:] = [1, 2, 3, 4]
    node.rw[2] = 1.5
    node.r_moves[1, 0] = 0.25          # rw of the first move, through the 2-row view
    node.prior[1] = 0.3
    data = node.data
    assert data.dtype == np.float64
    assert data[3].tolist() == [1, 2, 3, 4] and data[4].tolist() == [0.25, 0, 1.5, 0]
    assert data[8, 1] == np.float32(0.3) and node.r_pass.tolist() == [4.0, 0.0]
    assert np.array_equal(node.stats[3:5], data[3:5])
    # A prior float32 cannot hold is refused, not kept as inf.
    for bad in (1e39, np.inf, np.nan, -1e-30):
        with pytest.raises(ValueError, match="priors must be >= 0 and finite as float32"):
            TreeNode(BLACK, [0, -1], [bad, 0.5])
    assert TreeNode(BLACK, [0, -1], [3e38, 0.5]).prior[0] == np.float32(3e38)
    # float32's largest, as numpy prints it, rounds to it: accepted (a tester).
    top = np.finfo(np.float32).max
    assert TreeNode(BLACK, [0, -1], [3.4028235e38, 0.5]).prior[0] == top
    with pytest.raises(ValueError, match="at most 3.4028235e\\+38"):
        TreeNode(BLACK, [0, -1], [3.4028235677973366e38, 0.5])


def test_rows_made_when_first_needed() -> None:
    """A node makes its rows ``vl`` and ``wins`` only when they are first
    written, and keeps ``n`` and ``w``, ``pn`` and ``pw`` in slots (pairs)
    for the moves that have some until one of them is asked for (issue 21):
    until then they read as zeros (``wins`` as ``w``), and the back-ups give
    the same numbers either way."""
    moves, prior = [0, 1, 2, -1], [0.3, 0.3, 0.3, 0.1]
    lean = TreeNode(BLACK, moves, prior)
    core = lean.nbytes
    assert core == 4 * 4 + 8 + 8         # prior (float32); allowed and points' bits
    tree_backup([lean], [0], 1.0, 1.0, 1.0, 1.0, None, 0.0, PARAMS)
    tree_backup([lean], [1], 2.0, 0.5, 0.5, 0.5, None, 0.0, PARAMS)
    slots = 2 * (2 * 8 + 2)                          # n and w of the two moves reached
    assert lean.nbytes == core + slots               # plain wins equal the value
    assert lean.data[7].tolist() == [1, 0.5, 0, 0]   # wins read as w
    assert not lean.data[[2, 5, 6]].any()            # vl, pn, pw read as zeros
    # The back-up whose plain wins differ from its value (an evaluator's
    # mix) keeps wins apart from then on.
    tree_backup([lean], [0], 1.0, 0.25, 1.0, 1.0, None, 0.0, PARAMS)
    assert lean.nbytes == core + slots + 4 * 8
    assert lean.stats[1].tolist() == [1.25, 0.5, 0, 0]
    assert lean.stats[7].tolist() == [2, 0.5, 0, 0]
    assert lean.nbytes == core + slots + 4 * 8       # copies make no row
    # Asked for as views, n, w, pn and pw become four dense rows for good.
    assert lean.n.tolist() == [2, 2, 0, 0] and lean.nbytes == core + 4 * 8 + 4 * 4 * 8
    tree_backup([lean], [3], 1.0, 1.0, 1.0, 1.0, None, 0.0, PARAMS)
    assert lean.stats[:2].tolist() == [[2, 2, 0, 1], [1.25, 0.5, 0, 1]]
    # Where more slots would take more than the four dense rows, the rows
    # are made dense instead: five points with prior playouts (their slots
    # grown one at a time), then reached one by one, are 5 + 6 slots of 18
    # bytes at the sixth, more than 6 moves' 4 rows of 8 bytes.  Their
    # first-play tallies passed the two dense float32 rows at the fifth
    # move: a bitset word and 5 pairs of 8 bytes, more than 6 moves' 2 rows
    # of 4 bytes.
    small = prior_node(BLACK, np.arange(5), np.ones(5), np.full(5, TACTIC_SAVE, np.int8),
                       np.ones(5), 2.0, 3.0, 1.0, 0.1, 0.0)
    bare = small.nbytes - 5 * 18
    assert TreeNode(BLACK, [0, 1, 2, 3, 4, -1], np.ones(6)).nbytes == bare - 2 * 6 * 4
    for reached in range(1, 6):
        tree_backup([small], [reached - 1], 1.0, 1.0, 1.0, 1.0, None, 0.0, PARAMS)
        assert small.nbytes == bare + (5 + reached) * 18
    tree_backup([small], [5], 1.0, 1.0, 1.0, 1.0, None, 0.0, PARAMS)
    assert small.nbytes == bare + 4 * 6 * 8
    assert small.stats[0].tolist() == [1] * 6 and small.stats[5, :5].tolist() == [3] * 5
    # Asked for from Python, a row is made and written through.
    made = TreeNode(BLACK, moves, prior)
    made.pn[2] = 4.0
    made.pw[2] = 3.0
    made.vl[1] = 1.0
    made.sum_vl = 1.0
    assert made.nbytes == core + 5 * 4 * 8
    assert made.data[5, 2] == 4.0 and made.data[6, 2] == 3.0 and made.data[2, 1] == 1.0
    # Writes to w from Python do not reach wins.
    apart = TreeNode(BLACK, moves, prior)
    apart.w[0] = 0.75
    assert apart.wins[0] == 0.0 and apart.stats[7, 0] == 0.0
    # Selection reads the rows not made as zeros: the same choice as with
    # zero rows made.
    for params in (PARAMS, TreeParams(False, True, True, 1.0, 0.5, 0.1, 1000.0)):
        a, b = TreeNode(WHITE, moves, prior), TreeNode(WHITE, moves, prior)
        b.pn[:] = 0.0
        b.pw[:] = 0.0
        b.vl[:] = 0.0
        for node in (a, b):
            node.n[:] = [3, 1, 2, 0]
            node.w[:] = [1, 1, 1, 0]
            node.sum_n, node.sum_w = 6.0, 3.0
        assert a.select(params) == b.select(params)
        assert a.values(params).tobytes() == b.values(params).tobytes()


def test_slotted_prior_playouts_select_as_dense_rows() -> None:
    """Tactical virtual playouts (``pn``, ``pw``) live in a node's slots
    beside the back-ups' ``n`` and ``w`` (issue 21): every selection path
    (PUCT and UCT, with and without RAVE and the prior's playouts,
    widened or not, with virtual loss) picks the same move with the same
    values as on the node's dense rows, and the rows read the same."""
    rng = np.random.default_rng(5)
    for trial in range(40):
        m = int(rng.integers(3, 80))
        codes = rng.choice([0, 1, 2, 3], size=m, p=[0.85, 0.05, 0.05, 0.05]).astype(np.int8)
        shares = rng.random(m) * (codes != 0)       # no share without a code
        args = (BLACK, rng.permutation(81)[:m], rng.random(m) + 0.01, codes, shares, 4.0,
                30.0, 0.5, 0.01, 0.0)
        sparse, dense = prior_node(*args), prior_node(*args)
        for _ in range(int(rng.integers(0, 12))):
            i = int(rng.integers(0, m + 1))
            for node in (sparse, dense):
                tree_backup([node], [i], 1.0, 0.5, 0.5, 0.5, None, 0.0, PARAMS)
        before = sparse.nbytes
        _ = dense.n                      # the four rows dense
        assert dense.nbytes > before or m < 8
        assert sparse.data.tobytes() == dense.data.tobytes()
        assert sparse.nbytes == before   # reading data makes nothing
        for puct in (True, False):
            for rave in (True, False):
                for virtual in (True, False):
                    for widen in (0, 2):
                        p = TreeParams(puct, rave, virtual, 1.3, 0.7, 0.1, 300.0,
                                       widen_base=widen, widen_visits=2.0, widen_factor=1.3)
                        assert sparse.select(p) == dense.select(p)
                        assert sparse.values(p).tobytes() == dense.values(p).tobytes()
        assert sparse.nbytes <= before + 2 * sparse.k   # (the widening order)
        for node in (sparse, dense):     # virtual loss: the formulas in full
            node.vl[0] = 1.0
            node.sum_vl = 1.0
        assert sparse.select(PARAMS) == dense.select(PARAMS)


def _child_bytes(node: TreeNode) -> int:
    """What ``nbytes`` counts for a node's record of its children, made one
    by one: a tuple of them, and an ``int16`` index each (nothing for a
    node with none)."""
    made = sum(child is not None for child in node.children)
    return sys.getsizeof((None,) * made) + 2 * made if made else 0


def test_children_take_memory_only_when_made() -> None:
    """A node records only the children made (issue 21: a list of ``k``
    slots was 15 % of a 9x9 node): ``children`` is a view of ``k`` slots
    that reads, assigns and drops them, refuses anything but a node of the
    other colour, and cannot grow or shrink."""
    moves = list(range(9)) + [-1]
    node = TreeNode(BLACK, moves, [0.1] * 10)
    bare = node.nbytes
    kids = [TreeNode(WHITE, [0, -1], [0.5, 0.5]) for _ in range(3)]
    node.children[4] = kids[0]
    node.set_child(-1, kids[1])
    node.children[0] = kids[2]
    assert node.nbytes == bare + _child_bytes(node) < bare + sys.getsizeof([None] * 10)
    slots = node.children
    assert len(slots) == 10 and slots[4] is kids[0] and node.child(9) is kids[1]
    assert list(slots) == [kids[2], None, None, None, kids[0], None, None, None, None, kids[1]]
    assert slots[3:5] == [None, kids[0]] and slots == list(slots) and kids[1] in slots
    assert node.extent() == (4, 10 + 3 * 2)
    node.children[4] = kids[1]                 # replaced
    node.children[0] = None                    # dropped: the others stay
    assert [i for i, c in enumerate(node.children) if c is not None] == [4, 9]
    assert node.child(4) is kids[1] and node.child(-1) is kids[1]
    node.set_child(4, None)
    node.set_child(9, None)
    node.set_child(2, None)                    # nothing there: nothing happens
    assert node.nbytes == bare and list(node.children) == [None] * 10
    for bad, error in (("node", TypeError), (1.5, TypeError),
                       (TreeNode(BLACK, [0, -1], [0.5, 0.5]), ValueError)):
        with pytest.raises(error):
            node.children[1] = bad
        with pytest.raises(error):
            node.set_child(1, bad)
    assert node.child(1) is None                # a refused child is not kept
    for index, error in ((10, IndexError), (-11, IndexError), (1.0, TypeError)):
        with pytest.raises(error):
            node.children[index] = kids[0]
        with pytest.raises(error):
            node.child(index)
    with pytest.raises(TypeError):
        node.children[0:2] = [None, None]
    with pytest.raises(AttributeError):
        node.children.append(None)             # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        del node.children[0]                   # type: ignore[attr-defined]
    assert isinstance(node.children, collections.abc.Sequence)
    # A node does not copy or pickle, and says so plainly (a tester got
    # Cython's list of its pointer fields).
    import copy
    import pickle
    for make in (copy.copy, copy.deepcopy, pickle.dumps):
        with pytest.raises(TypeError, match="cannot be pickled or copied"):
            make(node)
        with pytest.raises(TypeError, match="cannot be pickled or copied"):
            make(node.children)


def test_a_child_s_finaliser_sees_a_whole_record() -> None:
    """Dropping a child can run its ``__del__``; Python code there that sets
    the node's children found the record half changed (a tester: a child
    twice, another lost, ``count()`` "not a tree")."""
    class Hooked(TreeNode):
        hook: Any = None

        def __del__(self) -> None:
            if self.hook is not None:
                self.hook()

    moves = list(range(6)) + [-1]
    parent = TreeNode(BLACK, moves, [0.1] * 7)
    first = Hooked(WHITE, [0, -1], [0.5, 0.5])
    b, c, d, e = (TreeNode(WHITE, [0, -1], [0.5, 0.5]) for _ in range(4))
    for i, child in enumerate((first, b, c, d)):
        parent.set_child(i, child)
    first.hook = lambda: (parent.set_child(1, None), parent.set_child(4, e))
    del first
    parent.set_child(0, None)
    assert list(parent.children) == [None, None, c, d, e, None, None]
    assert parent.count() == 4


def test_a_default_search_makes_few_rows() -> None:
    """A one-thread default search on 9x9 makes no ``vl`` and no ``wins`` row
    (no virtual loss; its plain wins are its values) but the root's, which
    its result reads, so its nodes hold the ``float32`` row ``prior``, the
    first-play tallies in slots (10 bytes a move) or two dense ``float32``
    rows, and ``n`` and ``w`` in slots only for the moves reached, ``pn``
    and ``pw`` for the moves given tactical virtual playouts (a ladder or
    atari move), but the root's."""
    from fastplay.search import MCTS, SearchConfig

    search = MCTS(fp.PatternDatabase.builtin("mc_montegnu_classic"),
                  SearchConfig(book=False), seed=3)
    board = fp.Board.from_sgf(shared_path("gnugo-regression", "games", "cgos", "42896.sgf"),
                              move_number=24)
    search.run(board, visits=1500)
    stack, nodes, given = [search.root], 0, 0
    while stack:
        node = stack.pop()
        kids = node.children
        k, nodes = node.k, nodes + 1
        # The row prior, allowed bits and the points' bits; the first-play
        # tallies (a bitset and pairs, or dense); the order (2 bytes a
        # move, as far as it was taken) once widened; then 8 bytes a move
        # for each row made (n, w, pn and pw dense: four); the slots (18
        # bytes each, in two sets, n and w, pn and pw, each grown a slot at
        # a time).
        before, stats = node.nbytes, node.stats
        node.rn     # dense from now: what the slots took is the difference
        amaf = before - (node.nbytes - 8 * k)
        words = (k + 63) // 64       # the pairs' bitset, then 8 bytes a pair
        assert amaf == 8 * k or (amaf % 8 == 0 and 8 * words <= amaf < 8 * k), amaf
        room = before - amaf - _child_bytes(node) - k * 4 - 8 * ((k + 63) // 64) \
            - 8 * ((int(node.moves.max()) + 64) // 64)     # the points, ascending: bits
        slots = sum(int(np.count_nonzero(stats[row])) for row in (0, 5))
        rest = room - (18 * slots if node is not search.root else 0)
        lazy, order = divmod(rest, 8 * k)
        # (The root's n, w and wins were read from Python for the result:
        # made, the four slotted rows dense.)
        assert order % 2 == 0 and order <= 2 * k, order
        assert lazy == (0 if node is not search.root else 5), lazy
        given += node is not search.root and bool(stats[5].any())
        stack.extend(c for c in kids if c is not None)
    assert nodes > 50 and 0 < given < nodes


def test_a_reused_tree_counts_its_edges_exactly() -> None:
    """``TreeNode.extent`` counts a subtree's nodes and moves without making
    any leaf's list of child slots; the search's tree counts its edges with
    it after a reuse (it took nodes times the root's moves, 14 % high on
    5x5 after three searches: a tester)."""
    from fastplay.search import MCTS, SearchConfig

    search = MCTS(fp.PatternDatabase.builtin("mc_montegnu_classic"),
                  SearchConfig(book=False), seed=2)
    board = fp.Board(5)
    for _ in range(3):
        search.run(board, visits=3000)
    root = search.root
    leaves_before = root.nbytes
    nodes, edges = root.extent()
    assert root.nbytes == leaves_before and nodes == root.count() == search.tree.nodes
    walked, stack = 0, [root]
    while stack:
        node = stack.pop()
        walked += node.k
        stack.extend(c for c in node.children if c is not None)
    assert edges == walked == search.tree.edges
    loop = TreeNode(BLACK, [0, -1], [0.9, 0.1])
    loop.children[0] = TreeNode(WHITE, [0, -1], [0.9, 0.1])
    loop.child(0).children[0] = loop
    with pytest.raises(ValueError, match="tree"):
        loop.extent()


def test_what_a_tester_found_at_the_tree_s_edges() -> None:
    """A NaN ``base`` set from Python (refused at construction), an empty move
    list (its message was about float64), values whose sum overflows, and
    ``select`` on a node never initialised (-1 instead of the error every
    other accessor raises)."""
    node = TreeNode(BLACK, [0, -1], [0.5, 0.5])
    for bad in (float("nan"), float("inf")):
        with pytest.raises(ValueError, match="finite"):
            node.base = bad
    node.base = 2.0
    assert node.base == 2.0 and node.visits == 2.0
    with pytest.raises(ValueError, match="pass"):
        TreeNode(BLACK, [], [])
    tree_backup([node], [0], 1.0, 1e308, 1e308, 0.0, None, 0.0, PARAMS)   # each finite
    with pytest.raises(ValueError, match="finite"):
        tree_backup([node], [0], 1.0, float("inf"), -float("inf"), 0.0, None, 0.0, PARAMS)
    with pytest.raises(RuntimeError, match="initialised"):
        TreeNode.__new__(TreeNode).select(PARAMS)
    with pytest.raises(RuntimeError, match="initialised"):    # a tester: IndexError
        TreeNode.__new__(TreeNode).forbid(0)
    assert TreeNode.__new__(TreeNode).nbytes == 0      # nothing held (a tester: 8)
    with pytest.raises(ValueError, match="flat indices"):    # not the pass, wrapped
        TreeNode(BLACK, np.array([3, 4, 2**64 - 1], np.uint64), [0.3, 0.3, 0.4])
    # A second tester: constructors' numbers of any magnitude or type.
    for color, error in ((2**40, ValueError), (1.5, TypeError), (True, TypeError)):
        with pytest.raises(error, match="colour"):
            TreeNode(color, [0, -1], [0.5, 0.5])
    for size, error in ((2**40, ValueError), (9.5, TypeError), (True, TypeError)):
        with pytest.raises(error, match="size"):
            ReplyTable(size)
    with pytest.raises(TypeError, match="bool"):
        node.base = True
    with pytest.raises(AttributeError, match="deleted"):
        del node.base


def test_edge_reads_the_rows() -> None:
    node = TreeNode(BLACK, [3, 7, -1], [0.5, 0.4, 0.1], 2.0)
    node.n[1] = 6.0
    node.vl[1] = 2.0
    assert node.edge(1) == (7, 6.0, 2.0)
    assert node.edge(-1) == (-1, 0.0, 0.0)
    assert all(type(x) is t for x, t in zip(node.edge(0), (int, float, float)))
    with pytest.raises(IndexError):
        node.edge(3)
    with pytest.raises(RuntimeError):
        TreeNode.__new__(TreeNode).edge(0)


@pytest.mark.parametrize("rave, virtual", [(True, True), (True, False), (False, True),
                                           (False, False)])
def test_values_are_the_formula_to_the_bit(rave: bool, virtual: bool) -> None:
    """``values`` equals ``(t (w + pw) + rw) / (t (n + pn) + rn) + block``
    (t = 1 + rn / rave_equiv; the prior and RAVE terms only where switched
    on; the first-play weights), operation for operation, exactly: the core
    passes zeros for the terms it leaves out.  The ``float32`` rows ``rn``
    and ``rw`` enter the arithmetic as ``float64``."""
    rng = np.random.default_rng(7)
    k = 82
    moves = np.append(rng.permutation(81)[:k - 1], -1)
    node = TreeNode(BLACK, moves, np.full(k, 1.0 / k))
    counts = rng.integers(0, 50, size=(4, k)).astype(np.float64)
    node.n[:], node.rn[:] = counts[0], counts[1]
    node.w[:] = np.floor(counts[0] * rng.random(k) * 2) / 2
    node.rw[:] = np.floor(counts[1] * rng.random(k))
    node.pn[:], node.pw[:] = counts[2], np.floor(counts[2] * rng.random(k))
    node.n[3] = node.w[3] = node.rn[3] = node.rw[3] = node.pn[3] = node.pw[3] = 0.0
    node.forbid(5)
    node.sum_n, node.sum_w = float(node.n.sum()), float(node.w.sum())
    params = TreeParams(True, rave, virtual, 1.0, 0.5, 0.1, 300.0)
    dn, dw = node.n.copy(), node.w.copy()
    if virtual:
        dn, dw = dn + node.pn, dw + node.pw
    if rave:
        rn, rw = node.rn.astype(np.float64), node.rw.astype(np.float64)
        t = rn * (1.0 / 300.0) + 1.0
        dn, dw = dn * t + rn, dw * t + rw
    eps = 1e-300
    dn, dw = dn + eps, dw + eps * (node.sum_w / node.sum_n - 0.1)
    values = node.values(params)
    assert np.array_equal(values, dw / dn + node.block)
    assert values[5] == -np.inf and values[3] == pytest.approx(node.sum_w / node.sum_n - 0.1)


def _amaf_node(rng: np.random.Generator, color: int, npts: int) -> TreeNode:
    """A node with a random subset of the points (board order, the pass last)
    and random first-play tallies (some moves never played first)."""
    points = np.flatnonzero(rng.random(npts) < 0.6)
    if rng.random() < 0.5:
        points = rng.permutation(points)     # a node's moves may come in any order
    moves = np.append(points, -1)
    node = TreeNode(color, moves, np.full(len(moves), 1.0 / len(moves)))
    node.rn[:] = rng.integers(0, 60, len(moves)) * (rng.random(len(moves)) < 0.8)
    node.rw[:] = np.floor(node.rn * rng.random(len(moves)) * 2) / 2
    return node


def test_inherit_amaf_against_a_python_reference():
    """inherit_amaf: each move the two nodes share (the pass too) gets
    min(rn, cap) first plays at the ancestor's rate; the others keep theirs
    (the sums in ``float64``, stored in the ``float32`` rows)."""
    from fastplay._core import inherit_amaf
    rng = np.random.default_rng(5)
    for trial in range(200):
        npts = int(rng.integers(1, 82))
        cap = float(rng.choice([0.0, 0.5, 3.0, 20.0, 1e12]))
        node, ancestor = _amaf_node(rng, BLACK, npts), _amaf_node(rng, BLACK, npts)
        node.n[:] = rng.integers(0, 5, len(node.moves))
        node.w[:] = node.n / 2
        rn, rw = node.rn.copy(), node.rw.copy()
        where = {int(m): j for j, m in enumerate(ancestor.moves)}
        for i, m in enumerate(node.moves):
            j = where.get(int(m))
            arn, arw = float(ancestor.rn[j]) if j is not None else 0.0, 0.0
            if j is not None and arn > 0:
                take, arw = min(arn, cap), float(ancestor.rw[j])
                rn[i] = float(rn[i]) + take
                rw[i] = float(rw[i]) + take * (arw / arn)
        inherit_amaf(node, ancestor, cap, PARAMS)
        assert np.array_equal(node.rn, rn) and np.array_equal(node.rw, rw), trial


def test_inherit_amaf_refuses_bad_arguments():
    from fastplay._core import inherit_amaf
    rng = np.random.default_rng(6)
    node, ancestor = _amaf_node(rng, BLACK, 25), _amaf_node(rng, WHITE, 25)
    with pytest.raises(ValueError, match="same side to move"):
        inherit_amaf(node, ancestor, 5.0, PARAMS)
    for cap in (-1.0, float("nan"), float("inf"), 1e13):
        with pytest.raises(ValueError, match="cap must be in"):
            inherit_amaf(node, node, cap, PARAMS)
    with pytest.raises(RuntimeError, match="not initialised"):
        inherit_amaf(TreeNode.__new__(TreeNode), node, 5.0, PARAMS)
    with pytest.raises(RuntimeError, match="TreeParams was not initialised"):
        inherit_amaf(node, node, 5.0, TreeParams.__new__(TreeParams))
    with pytest.raises(TypeError):
        inherit_amaf(node, None, 5.0, PARAMS)   # type: ignore[arg-type]


def test_make_node_refuses_what_was_not_initialised():
    """make_node: a board or TreeParams made without __init__ is an error, not
    a node of colour 0 (a tester's finding)."""
    from fastplay._core import CoreBoard, make_node, nakade_flat
    from fastplay.montecarlo import playout_engine
    engine = playout_engine(fp.PatternDatabase.builtin("mc_montegnu_classic"))
    for board in (CoreBoard.__new__(CoreBoard), fp.Board.__new__(fp.Board)):
        with pytest.raises(RuntimeError, match="board was not initialised"):
            make_node(board, engine, 1.0, 1.0, (), True, 10.0, 50.0, 1.0, 0.01, 0.0)
        with pytest.raises(RuntimeError, match="board was not initialised"):
            nakade_flat(board)
    with pytest.raises(RuntimeError, match="TreeParams was not initialised"):
        make_node(fp.Board(9), engine, 1.0, 1.0, (), True, 10.0, 50.0, 1.0, 0.01, 0.0,
                  params=TreeParams.__new__(TreeParams), opening_pass=True)
    node = make_node(fp.Board(9), engine, 1.0, 1.0, (), True, 10.0, 50.0, 1.0, 0.01, 0.0,
                     params=PARAMS, opening_pass=True)
    assert not node.allowed[-1] and node.allowed[:-1].all()   # the empty board: no pass


def test_moves_in_any_order_make_the_same_node() -> None:
    """A node keeps its points as a bitset of the board when they come in
    ascending order (the search's nodes: issue 21) and as ``int16`` in any
    other: both give the same moves, back-ups (first-play tallies
    included), values, selections and inherited tallies, move for move."""
    rng = np.random.default_rng(11)
    for size in (3, 9, 19):
        npts = size * size
        for _ in range(8):
            m = int(rng.integers(1, npts + 1))
            points = np.sort(rng.choice(npts, m, replace=False))
            perm = rng.permutation(m)
            prior = rng.random(m + 1) + 0.01
            asc = TreeNode(BLACK, [*points, -1], prior)
            mixed = TreeNode(BLACK, [*points[perm], -1], np.r_[prior[perm], prior[m]])
            same = np.r_[perm, m]                  # mixed's move t is asc's move same[t]
            assert asc.moves.tolist() == [*points.tolist(), -1]
            assert mixed.moves.tolist() == [*points[perm].tolist(), -1]
            assert asc.nbytes == mixed.nbytes - 2 * m + 8 * ((int(points.max()) + 64) // 64)
            at = np.argsort(perm)                  # asc's move i is mixed's move at[i]
            for _ in range(12):
                i = int(rng.integers(0, m + 1))
                amaf = rng.integers(0, 3, size=(2, 3, npts)).astype(np.int32)
                amaf[1] = np.minimum(amaf[1], amaf[0])
                value = float(rng.random())
                tree_backup([asc], [i], 1.0, value, value, value, amaf, 0.0, PARAMS)
                tree_backup([mixed], [int(at[i]) if i < m else m], 1.0, value, value, value,
                            amaf, 0.0, PARAMS)
            assert asc.data[:, same].tobytes() == mixed.data.tobytes()
            for t in (0, m - 1, m):
                assert asc.edge(int(same[t])) == mixed.edge(t)
            for widen in (0, 3):
                p = TreeParams(True, True, True, 1.3, 0.7, 0.1, 300.0, widen_base=widen)
                assert asc.values(p)[same].tobytes() == mixed.values(p).tobytes()
                assert asc.select(p) == same[mixed.select(p)]
            later = np.sort(rng.choice(npts, int(rng.integers(1, npts + 1)), replace=False))
            heirs = [TreeNode(BLACK, [*later, -1], np.ones(len(later) + 1)) for _ in range(2)]
            inherit_amaf(heirs[0], asc, 5.0, PARAMS)
            inherit_amaf(heirs[1], mixed, 5.0, PARAMS)
            assert heirs[0].data.tobytes() == heirs[1].data.tobytes()
