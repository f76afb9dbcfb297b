"""Last good replies with forgetting in the tree (``fastplay._core.ReplyTable``,
the search option ``reply_visits``): the table's rule (LGRF-1, Baier and
Drake 2010), the core loop's updates from each simulation's tree and
playout moves, and a new node's virtual playouts for its reply."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fastplay as fp
from fastplay._core import (BLACK, EMPTY, WHITE, PlayoutTally, ReplyTable, TreeParams,
                            prior_node, reply_prior, tree_simulate)
from fastplay.montecarlo import playout_engine
from fastplay.search import MCTS, SearchConfig

PARAMS = TreeParams(True, True, True, 1.0, 0.5, 0.1, 1000.0)


def _entries(table: ReplyTable) -> list[int]:
    """Every reply of the table, by colour and previous move."""
    npts = table.size * table.size
    return [table.reply(c, p) for c in (WHITE, BLACK) for p in range(-1, npts)]


def test_the_winner_s_replies_are_kept_and_the_loser_s_forgotten() -> None:
    t = ReplyTable(9)
    assert set(_entries(t)) == {-1}
    t.update([40, 41, 30, 31], BLACK, WHITE)        # White won
    assert t.reply(WHITE, 40) == 41 and t.reply(WHITE, 30) == 31
    assert t.reply(BLACK, 41) == -1                 # the loser's moves store nothing
    t.update([40, 41, 30, 32], BLACK, BLACK)        # Black won
    assert t.reply(WHITE, 40) == -1                 # White's 41 after 40 lost: forgotten
    assert t.reply(BLACK, 41) == 30
    assert t.reply(WHITE, 30) == 31                 # 32 was not the stored reply: kept
    t.update([30, 33], BLACK, EMPTY)                # a draw changes nothing
    assert t.reply(WHITE, 30) == 31
    t.update([-1, 5, -1], WHITE, BLACK)             # a reply to a pass; a pass no reply
    assert t.reply(BLACK, -1) == 5 and t.reply(WHITE, 5) == -1
    t.clear()
    assert set(_entries(t)) == {-1}


def test_bad_arguments_are_refused() -> None:
    for size in (1, 26):
        with pytest.raises(ValueError, match="size"):
            ReplyTable(size)
    t = ReplyTable(9)
    with pytest.raises(ValueError, match="colour"):
        t.reply(3, 0)
    with pytest.raises(ValueError, match="9x9"):
        t.reply(WHITE, 81)
    with pytest.raises(ValueError, match="9x9"):
        t.update([0, -2], BLACK, WHITE)
    with pytest.raises(ValueError, match="colour"):
        t.update([0, 1], BLACK, 7)
    # Any magnitude is a ValueError, a float or a bool a TypeError (2**40
    # overflowed and 2.5 was truncated: a tester).
    with pytest.raises(ValueError, match="9x9"):
        t.reply(WHITE, 2**40)
    for bad in ((WHITE, 2.5), (True, 3), (2.0, 3)):
        with pytest.raises(TypeError, match="integer"):
            t.reply(*bad)
    with pytest.raises(TypeError, match="integer"):
        t.update([0, 1, 2.5], BLACK, BLACK)
    with pytest.raises(TypeError, match="winner"):
        t.update([0, 1], BLACK, 2.0)
    assert set(_entries(t)) == {-1}                 # nothing half done
    with pytest.raises(ValueError, match="reply_visits"):
        SearchConfig(reply_visits=5, score_weight=0.1)
    with pytest.raises(ValueError, match="reply_visits"):
        SearchConfig(reply_visits=-1)
    assert SearchConfig(reply_visits=5, ladder_visits=0).virtual


def test_the_core_loop_adds_each_simulation_s_moves() -> None:
    """One simulation at a time (one playout a leaf, no new node): the table
    is what ``update`` makes of the root's move and the playout's moves."""
    db = fp.PatternDatabase.builtin("mc_montegnu_classic")
    size = 7
    board = fp.Board(size, komi=7.5)
    root = prior_node(BLACK, np.arange(size * size), np.ones(size * size), None, None,
                      1.0, 0.0, 0.5, 0.01, 0.0)
    scratch, engine, tally = board.copy(history=False), playout_engine(db), PlayoutTally(size)
    table, mirror = ReplyTable(size), ReplyTable(size)
    for sim in range(40):
        edge = root.select(PARAMS)
        tree_simulate(root, board, scratch, {board.zobrist_hash}, engine, tally, PARAMS,
                      1e9, True, 1, -1, 1, 5, sim, True, True, math.inf, replies=table)
        moves = tally.last_moves
        assert len(moves) > 2 and moves[-1] == moves[-2] == -1
        winner = BLACK if tally.black_wins else (EMPTY if tally.draws else WHITE)
        mirror.update([int(root.moves[edge]), *moves.tolist()], BLACK, winner)
        assert _entries(table) == _entries(mirror), sim
    assert sum(r >= 0 for r in _entries(table)) > 20
    with pytest.raises(ValueError, match="7x7"):
        tree_simulate(root, board, scratch, set(), engine, tally, PARAMS, 1e9, True, 1, -1,
                      1, 5, 0, True, True, math.inf, replies=ReplyTable(9))


def test_a_new_node_gets_its_reply_as_won_virtual_playouts() -> None:
    points = np.arange(49)
    table = ReplyTable(7)
    table.update([10, 20], WHITE, BLACK)            # Black's 20 answered 10 and won
    node = prior_node(BLACK, points, np.ones(49), None, None, 1.0, 0.0, 0.5, 0.01, 0.0)
    stats, prior = node.stats.copy(), node.prior.copy()
    j = reply_prior(node, table, 10, 6.0)
    assert node.moves[j] == 20 and node.pn[j] == node.pw[j] == 6.0
    changed = np.argwhere(node.stats != stats)
    assert {(int(r), int(c)) for r, c in changed} == {(5, j), (6, j)}     # pn, pw
    assert np.array_equal(node.prior, prior)
    values = node.values(PARAMS)
    assert values[j] == max(values)                 # six wins of six: the best value
    assert reply_prior(node, table, 11, 6.0) == -1      # no reply to 11
    white = prior_node(WHITE, points, np.ones(49), None, None, 1.0, 0.0, 0.5, 0.01, 0.0)
    assert reply_prior(white, table, 10, 6.0) == -1     # Black's reply, not White's
    other = prior_node(BLACK, points, np.ones(49), None, None, 1.0, 0.0, 0.5, 0.01, 0.0)
    other.forbid(20)
    assert reply_prior(other, table, 10, 6.0) == -1     # not allowed any more
    assert reply_prior(other, table, 10, 0.0) == -1
    with pytest.raises(ValueError, match="visits"):
        reply_prior(node, table, 10, math.nan)
    big = prior_node(BLACK, np.arange(361), np.ones(361), None, None, 1.0, 0.0, 0.5, 0.01, 0.0)
    with pytest.raises(ValueError, match="7x7"):
        reply_prior(big, table, 10, 1.0)


def test_a_new_game_forgets_the_replies() -> None:
    """A tester's find: the table outlived ``new_game`` (GTP ``clear_board``),
    and the next game's nodes took the last game's replies."""
    db = fp.PatternDatabase.builtin("mc_montegnu_classic")
    search = MCTS(db, SearchConfig(reply_visits=10), seed=3)
    search.run(fp.Board(9, komi=7.5), visits=300)
    old = search._tree.replies
    assert old is not None and sum(r >= 0 for r in _entries(old)) > 0
    search.new_game()
    assert search._tree.replies is None
    search.run(fp.Board(9, komi=7.5), visits=50)
    assert search._tree.replies is not None and search._tree.replies is not old


def test_uninitialised_or_bad_params_are_refused() -> None:
    with pytest.raises(ValueError, match="widen_ties"):
        TreeParams(True, True, True, 1.0, 0.5, 0.1, 1000.0, 10, 40.0, 1.4, "no")  # type: ignore[arg-type]
    from fastplay._core import tree_backup, tree_descend
    bare = TreeParams.__new__(TreeParams)
    node = prior_node(BLACK, np.arange(25), np.ones(25), None, None, 1.0, 0.0, 0.5, 0.01, 0.0)
    with pytest.raises(RuntimeError, match="TreeParams"):
        tree_descend(node, fp.Board(5), set(), set(), [], [], bare, 0.0, 1e9, True)
    with pytest.raises(RuntimeError, match="TreeParams"):
        tree_backup([node], [0], 1.0, 1.0, 1.0, 1.0, None, 0.0, bare)
    assert node.count() == 1 and node.n.sum() == 0


def test_a_search_with_replies_is_a_function_of_its_seed() -> None:
    db = fp.PatternDatabase.builtin("mc_montegnu_classic")
    board = fp.Board(9, komi=7.5)
    board.play("E5")
    board.play("C3")
    runs = []
    for _ in range(2):
        search = MCTS(db, SearchConfig(reply_visits=10), seed=3)
        result = search.run(board, visits=1500)
        root = search.root
        assert root is not None and search._tree.replies is not None
        runs.append((result.best_move, root.data.tobytes(), _entries(search._tree.replies)))
    assert runs[0] == runs[1]
    assert sum(r >= 0 for r in runs[0][2]) > 50
    plain = MCTS(db, SearchConfig(), seed=3)
    plain.run(board, visits=200)
    assert plain._tree.replies is None
