"""MCTS: tactics on small ASCII boards, tree bookkeeping, reproducibility, pass rules.

Positions are written as a Go player reads them: ``X`` Black, ``O`` White,
``.`` empty, row 1 at the bottom.  Komi is chosen so that exactly one plan
wins, which makes the expected move unambiguous.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import math
import time

import numpy as np
import pytest

import fastplay as fp
from fastplay import diagram
from fastplay.mcts import MCTS, Node, eye_mask
import fastplay.search.driver as driver_module
from fastplay.search import SearchConfig, decide
from fastplay.search.decide import book_move, is_final, settled
from fastplay.search.driver import tree_params
from fastplay.search.evaluation import ScoreTables, game_value
from fastplay.search.loop import SearchLoop
from fastplay.search.priors import NodeMaker

from conftest import shared_path
from test_widening import reference_width


@pytest.fixture(scope="module")
def db() -> fp.PatternDatabase:
    return fp.PatternDatabase.builtin("mc_montegnu_classic")


def board_from_ascii(text: str, to_move: str = "B", komi: float = 0.5) -> fp.Board:
    """The position of a bare diagram (:func:`fastplay.diagram.parse`), komi 0.5 by default."""
    return diagram.parse(text, to_move=to_move, komi=komi)


# Black's wall (row 4) is cut by White D4 in atari; Black's D3 is in atari
# too.  With komi 6.5 Black wins only by keeping the wall: capture at D5.
WALL = """
. . . . . . .
. . . . . . .
. . . . . . .
X X X O X X X
O O O X O O O
. . . . . . .
. . . . . . .
"""

# Top edge: White A6-B6-B7 (eye A7) and Black C6-F6-D7-F7 (eye E7) share
# the liberty C7: a seki.  Black's outer group has eyes A4 and A2, White's
# eyes D4, G4, E2, G1.  Black gets 17 points, White 31: with komi -14.5 Black
# wins by 0.5 only while the seki stands, so Black must pass, not play C7.
SEKI = """
. O . X . X O
O O X X X X O
X X O O O O O
. X O . O O .
X X O O O O O
. X O O . O O
X X O O O O .
"""

def test_capture_wins(db):
    board = board_from_ascii(WALL, "B", komi=6.5)
    result = MCTS(db, seed=1).run(board, playouts=2000)
    assert result.best_move == "D5"
    assert result.winrate > 0.6


def test_escape_from_atari(db):
    # White to move: D4 is in atari.  Extending (D5) or capturing the black
    # cutting stone (D2) both save it; anything else loses the cut.
    board = board_from_ascii(WALL, "W", komi=6.5)
    result = MCTS(db, seed=1).run(board, playouts=2000)
    assert result.best_move in ("D5", "D2")


def test_seki_is_kept(db):
    board = board_from_ascii(SEKI, "B", komi=-14.5)
    result = MCTS(db, seed=1).run(board, playouts=2000)
    assert result.best_move == "pass"
    assert result.winrate > 0.9
    moves = {c.move for c in result.children}
    # own eyes are never candidates
    assert not moves & {"E7", "A4", "A2"}


def test_forbidden_ko_recapture_is_never_searched(db):
    # . X O . .
    # X O . O .    White B3 has just captured at C3: a ko.
    # . X O . .
    board = fp.Board(5, komi=0.5)
    for move in ["B4", "C4", "A3", "D3", "B2", "C2", "C3", "B3"]:
        board.play(move)
    assert board.ko_point == "C3"  # White took at B3, Black may not retake at C3 now
    search = MCTS(db, seed=3)
    result = search.run(board, playouts=800)
    assert result.best_move != "C3"
    assert all(c.move != "C3" for c in result.children)
    board.play(result.best_move)  # legal


def test_positional_superko_in_tree(db):
    # Triple ko is impossible on 5x5 quickly; instead check the mechanism: a
    # position already seen in the game history is banned inside the tree.
    board = fp.Board(5, komi=0.5)
    for move in ["B4", "C4", "A3", "D3", "B2", "C2", "C3", "B3", "E5", "E1"]:
        board.play(move)
    # Black may now retake at C3 (simple ko no longer applies) -- a new position.
    search = MCTS(db, seed=2)
    result = search.run(board, playouts=600)
    board.play(result.best_move)
    root = search.root
    assert root is not None
    # every allowed root move leads to a position not seen before
    seen = search.tree.seen
    for i in np.flatnonzero(root.allowed):
        move = int(root.moves[i])
        if move < 0:
            continue
        b = board.copy()
        b.undo()
        b.play_index(move, b.to_move_code)
        assert b.zobrist_hash not in seen or root.n[i] == 0


def test_case_29_white_does_not_pass(db):
    board = fp.Board.from_sgf(shared_path("cases", "29-mcts-no-pass-with-dead-stone.sgf"))
    assert board.to_move == "W"
    result = MCTS(db, seed=1).run(board, playouts=1500)
    assert result.best_move != "pass"
    passing = [c for c in result.children if c.move == "pass"]
    if passing:  # passing ends the game B+14.5: a certain loss for White
        assert passing[0].winrate == 0.0


def _check_consistent(node: Node) -> None:
    assert np.all(node.vl == 0)
    for i, child in enumerate(node.children):
        if child is not None:
            assert node.n[i] == pytest.approx(child.base + child.n.sum())
            assert child.base >= 0
            _check_consistent(child)


@pytest.mark.parametrize("options", [{}, {"score_weight": 0.1}, {"threads": 2}])
def test_a_descent_stopped_in_a_node_without_moves_counts_there(db, options):
    """On 2x2 every move of some nodes is illegal or a superko repetition
    (and the pass forbidden): the descent stops inside such a node, and the
    playouts it evaluates there go into the node's base (they counted on
    the edge into it, so parent.n[i] != child.base + child.n.sum() before,
    in every 2x2 search).  The core's loop, the Python loop (a score in the
    value) and two threads."""
    for seed in range(3):
        board = fp.Board(2, komi=0.5)
        search = MCTS(db, seed=seed, resign_threshold=None, **options)
        for _ in range(2):
            result = search.run(board, playouts=1500)
            _check_consistent(search.root)
            if result.best_move in ("pass", "resign"):
                break
            board.play(result.best_move)


def test_virtual_loss_removed_and_counts_consistent(db):
    board = fp.Board(9, komi=7.5)
    for threads in (1, 2):
        search = MCTS(db, threads=threads, seed=5)
        result = search.run(board, playouts=1500)
        root = search.root
        assert root is not None
        _check_consistent(root)
        assert root.visits == pytest.approx(result.root_visits)
        assert result.playouts >= 1500
        assert sum(c.visits for c in result.children) == pytest.approx(root.n.sum())


def test_selection_follows_the_formulas(db):
    """The values selection computes (``TreeNode.values``, ``TreeNode.u``)
    equal the module docstring's formulas computed from the raw statistics:
    RAVE blend, first-play urgency for a move never tried, -inf for a move
    found illegal; and the fast selection picks the formula's argmax."""
    board = fp.Board.from_sgf(shared_path("gnugo-regression", "games", "cgos", "42896.sgf"),
                              move_number=24)
    for kwargs in ({}, {"rave": False}, {"pattern_visits": 10.0, "even_visits": 5.0}):
        search = MCTS(db, seed=3, **kwargs)
        search.run(board, playouts=3000)
        stack = [search.root]
        checked = 0
        while stack:
            node = stack.pop()
            stack.extend(c for c in node.children if c is not None)
            nq = node.n + node.pn
            parent = node.sum_w / node.sum_n if node.sum_n > 0 else 0.5
            with np.errstate(divide="ignore", invalid="ignore"):
                q = np.where(nq > 0, (node.w + node.pw) / nq, parent - search.fpu_reduction)
                if search.rave:
                    beta = np.where(node.rn > 0, node.rn / (node.rn + nq + node.rn * nq
                                                            / search.rave_equiv), 0.0)
                    q = q + beta * (np.where(node.rn > 0, node.rw / node.rn, 0.0) - q)
            q = np.where(node.allowed, q, -np.inf)
            values = node.values(tree_params(search.config, board.size, search.prior is not None))
            assert np.allclose(values, q, rtol=0, atol=1e-7)
            assert np.array_equal(np.isinf(values), ~node.allowed)
            assert np.allclose(node.u, node.prior / (1 + node.n))
            c_puct = search.config.puct_for(board.size)
            score = q + node.prior * c_puct * np.sqrt(node.sum_n + 1) / (1 + node.n)
            if node.open:
                params = tree_params(search.config, board.size, search.prior is not None)
                # Progressive widening (the 9x9 default): the argmax over the
                # moves of highest prior that the node's playouts open.
                config = search.config
                width = reference_width(config.widen_for(board.size), node.sum_n + node.sum_vl,
                                        config.widen_visits, config.widen_factor, node.open)
                ranked = sorted(np.flatnonzero(node.allowed), key=lambda j: (-node.prior[j], j))
                opened = np.full(len(score), -np.inf)
                opened[ranked[:width]] = 0.0
                assert score[node.select(params)] == pytest.approx((score + opened).max(),
                                                                   abs=1e-9)
                # A pending virtual loss too small to change any sum sends the
                # selection through the full formulas: same choice.
                fast = node.select(params)
                node.sum_vl = 1e-300
                assert node.select(params) == fast
                node.sum_vl = 0.0
            checked += 1
        assert checked > 20


def test_options_must_be_numbers(db):
    for bad in ("big", "1.0", b"1", True):
        with pytest.raises(TypeError, match="c_puct"):
            MCTS(db, c_puct=bad)
    assert MCTS(db, c_puct=np.float32(1.5), prior_power=np.int64(1)).c_puct == 1.5


def test_threads_keep_parent_and_child_counts_equal(db):
    """With several threads an edge can get its node while other threads'
    playouts through it are in flight; they count on the edge, so the child's
    ``base`` must include them: parent.n[i] == child.base + child.n.sum()."""
    board = fp.Board.from_sgf(shared_path("gnugo-regression", "games", "cgos", "42896.sgf"),
                              move_number=24)
    for seed in range(3):
        search = MCTS(db, threads=3, seed=seed, batch=1)
        search.run(board, playouts=3000)
        _check_consistent(search.root)


def test_threads_on_the_python_loop_make_nodes_without_the_lock(db, monkeypatch):
    """A search whose leaves leave the core's loop (a score in the value:
    ``score_weight``) makes its nodes with the lock let go, as the core's
    loop does, and keeps the tree consistent and the visit limit exact."""
    from fastplay.search.priors import NodeMaker

    released: list[bool] = []
    expand = NodeMaker.expand

    def spy(self, *args, **kwargs):
        released.append(bool(kwargs.get("release", False)))
        return expand(self, *args, **kwargs)

    monkeypatch.setattr(NodeMaker, "expand", spy)
    board = fp.Board.from_sgf(shared_path("gnugo-regression", "games", "cgos", "42896.sgf"),
                              move_number=24)
    for seed in range(2):
        released.clear()
        search = MCTS(db, threads=2, seed=seed, batch=1, score_weight=0.1)
        result = search.run(board, playouts=1500)
        _check_consistent(search.root)
        assert search.root.n.sum() + search.root.base == 1500 == result.playouts
        assert released.count(True) > 20 and released[0] is False    # the root: no lock


def test_interrupted_threaded_search_leaves_a_sound_tree():
    """Ctrl-C during a 2-thread search: it raises only after both workers have
    stopped, so no virtual loss is left and the next search reuses a
    consistent tree (Python 3.11's Thread.join gives up after an interrupted
    join, so the search waits on events)."""
    code = textwrap.dedent("""
        import signal, numpy as np, fastplay as fp
        from fastplay.mcts import MCTS
        db = fp.PatternDatabase.builtin("mc_montegnu_classic")
        def interrupt(*args):
            raise KeyboardInterrupt
        signal.signal(signal.SIGALRM, interrupt)
        search = MCTS(db, threads=2, seed=1)
        board = fp.Board(9, komi=7.5)
        # The tree exists before the first alarm: on a slow build (ASan) the
        # first search's set-up alone outlasted 50 ms, and an interrupt
        # before the root is made leaves no tree to check.
        search.run(board, playouts=200)
        bad = 0
        for i in range(6):
            signal.setitimer(signal.ITIMER_REAL, 0.05 + 0.011 * i)
            try:
                search.run(board, playouts=10**7)
            except KeyboardInterrupt:
                pass
            signal.setitimer(signal.ITIMER_REAL, 0)
            stack = [search.root]
            while stack:
                node = stack.pop()
                bad += int(node.sum_vl != 0 or np.any(node.vl != 0))
                for i, child in enumerate(node.children):
                    if child is not None:
                        bad += int(abs(node.n[i] - child.base - child.n.sum()) > 1e-6)
                        stack.append(child)
            search.run(board, playouts=200)
        print("bad", bad)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["bad", "0"]


def test_fight_prior_raises_the_liberties_of_short_strings(db):
    """``fight_prior`` multiplies the pattern value of every empty point next
    to a string with one or two liberties (either colour) before the prior is
    formed; other points keep theirs."""
    board = board_from_ascii("""
        . . . . . . .
        . . . . . . .
        . . X O . . .
        . . O X . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
    """, to_move="B")
    from fastplay.search.priors import fight_points
    marked = {fp.format_vertex(int(i), 7) for i in np.flatnonzero(fight_points(board))}
    # every stone has two liberties: their eight liberties are the fight points
    assert marked == {"C6", "B5", "D6", "E5", "B4", "C3", "E4", "D3"}
    plain = MCTS(db, seed=1).expand(board)
    fight = MCTS(db, seed=1, fight_prior=4.0).expand(board)
    assert np.array_equal(plain.moves, fight.moves)
    ratio = (fight.prior[:-1] / plain.prior[:-1])
    is_fight = np.isin(plain.moves[:-1], np.flatnonzero(fight_points(board)))
    # prior ~ value ** 0.5: the fight points gain a factor 4 ** 0.5 = 2 over the others
    assert np.allclose(ratio[is_fight] / ratio[~is_fight].mean(), 2.0)
    assert np.allclose(ratio[~is_fight], ratio[~is_fight][0])


def test_ladder_knowledge_scales_priors_and_adds_virtual_playouts(db):
    """``ladder_prior`` divides the pattern value of a move the ladder reader
    calls bad and multiplies a save or a capture; ``ladder_visits`` gives
    them virtual lost (bad) or won playouts in both Q and the RAVE value."""
    board = fp.Board(9)
    for move in "E5 C4 C5 D5 D4 D6 C3 E4 D3 F5 E6".split():
        board.play(move)  # White to move: E7 ladders two stones, B4 saves C4
    tactics = board.tactics(fp.WHITE).ravel()
    # prior_power pinned at 0.5: the factors below are ladder_prior ** 0.5
    plain = MCTS(db, seed=1, ladder_prior=1.0, ladder_visits=0.0,
                 prior_power=0.5).expand(board)
    ladder = MCTS(db, seed=1, ladder_prior=9.0, ladder_visits=30, race_reading=False,
                  stake_stones=0, prior_power=0.5).expand(board)
    assert np.array_equal(plain.moves, ladder.moves)
    code = tactics[plain.moves[:-1]]
    assert {fp.format_vertex(int(m), 9) for m in plain.moves[:-1][code == 3]} == {"E7"}
    ratio = ladder.prior[:-1] / plain.prior[:-1]
    none = ratio[code == 0][0]
    assert np.allclose(ratio[code == 0], none)
    # prior ~ value ** 0.5: factor 3 up for save and capture, 3 down for bad
    assert np.allclose(ratio[code >= 2] / none, 3.0)
    assert np.allclose(ratio[code == 1] / none, 1 / 3.0)
    for n_row, w_row in ((ladder.pn, ladder.pw), (ladder.rn, ladder.rw)):
        assert np.array_equal(n_row[:-1], np.where(code > 0, 30.0, 0.0))
        assert np.array_equal(w_row[:-1], np.where(code >= 2, 30.0, 0.0))
        assert n_row[-1] == w_row[-1] == 0
    result = MCTS(db, seed=1, ladder_prior=9.0, ladder_visits=30).run(board, playouts=400)
    assert sum(c.visits for c in result.children) == 400  # virtual playouts never count


def test_batch_is_an_integer_within_bounds_and_within_the_budget(db):
    """A fresh tester's cases: 1.5, True and 2**60 were accepted and failed
    inside run(); a batch above the playout limit overran it."""
    from fastplay.mcts import MAX_BATCH

    for bad in (0, -1, 2 ** 60, MAX_BATCH + 1):
        with pytest.raises(ValueError, match="batch"):
            MCTS(db, batch=bad)
    for bad in (1.5, True, "4"):                     # the wrong type (SearchConfig's Raises)
        with pytest.raises(TypeError, match="batch"):
            MCTS(db, batch=bad)  # type: ignore[arg-type]
    board = fp.Board(9, komi=7.5)
    board.play("E5")
    search = MCTS(db, seed=1, batch=MAX_BATCH)
    assert search.leaf_batch(9, 100) == 100 and search.leaf_batch(9) == MAX_BATCH
    result = search.run(board, playouts=100)
    assert result.playouts == 100 and search.root.n.sum() == 100


def test_race_reading_marks_the_race_moves_like_the_ladder_ones(db):
    """With ``race_reading`` the moves :meth:`Board.races_flat` finds where the
    ladder reader finds nothing get the same prior factor and virtual won
    playouts as a ladder save; without it they are plain moves."""
    board = fp.Board.from_sgf(shared_path("gnugo-regression", "games", "9x9-1.sgf"),
                              move_number=30)  # Black: J8 wins a two-liberty race
    assert board.to_move == "B"
    options = dict(seed=1, ladder_prior=9.0, ladder_visits=30, stake_stones=0, prior_power=0.5)
    off = MCTS(db, race_reading=False, **options).expand(board)
    on = MCTS(db, race_reading=True, **options).expand(board)
    assert np.array_equal(off.moves, on.moves)
    ladder = board.tactics_flat(board.to_move_code)[off.moves[:-1]]
    race = np.where(ladder == 0, board.races_flat(board.to_move_code)[off.moves[:-1]], 0)
    assert {fp.format_vertex(int(m), 9) for m in off.moves[:-1][race > 0]} == {"J8"}
    ratio = on.prior[:-1] / off.prior[:-1]
    assert np.allclose(ratio[race > 0] / ratio[race == 0][0], 3.0)  # 9 ** 0.5
    assert np.allclose(ratio[race == 0], ratio[race == 0][0])
    assert np.array_equal(on.pw[:-1] - off.pw[:-1], np.where(race > 0, 30.0, 0.0))
    assert np.array_equal(on.rn[:-1] - off.rn[:-1], np.where(race > 0, 30.0, 0.0))
    with pytest.raises(TypeError, match="race_reading"):
        MCTS(db, race_reading=1)  # type: ignore[arg-type]


def test_tactical_bonus_grows_with_the_stones_at_stake(db):
    """With ``stake_stones`` = 3 a code about one stone gets a third of the
    prior exponent and of the virtual playouts, one about three stones or
    more all of them."""
    board = fp.Board.from_sgf(shared_path("gnugo-regression", "games", "9x9-1.sgf"),
                              move_number=30)
    color = board.to_move_code
    stakes = np.zeros(81, dtype=np.int16)
    codes = board.tactics_flat(color, stakes)
    race_stakes = np.zeros(81, dtype=np.int16)
    race = board.races_flat(color, race_stakes)
    # F9 joins F8-G8 in a self-atari (three stones), H9 ataris the lone H8,
    # J8 saves F8-G8 in the race (two stones).
    assert (codes[5], stakes[5]) == (1, 3) and (codes[7], stakes[7]) == (3, 1)
    assert (race[17], race_stakes[17]) == (2, 2) and codes[17] == 0
    options = dict(seed=1, ladder_prior=8.0, ladder_visits=30.0, race_reading=True,
                   prior_power=0.5)
    flat = MCTS(db, stake_stones=0, **options).expand(board)
    staked = MCTS(db, stake_stones=3, **options).expand(board)
    plain = MCTS(db, ladder_prior=1.0, ladder_visits=0.0, prior_power=0.5).expand(board)
    where = {fp.format_vertex(int(m), 9): i for i, m in enumerate(plain.moves[:-1])}
    share = {"F9": 1.0, "H9": 1 / 3, "J8": 2 / 3}
    for vertex, part in share.items():
        i = where[vertex]
        assert np.isclose(staked.pn[i], 30.0 * part) and np.isclose(flat.pn[i], 30.0)
        assert np.isclose(staked.rw[i], 0.0 if vertex == "F9" else 30.0 * part)
    # prior ~ value ** 0.5: factor 8 ** (0.5 * share), up for H9 and J8, down for F9
    ratio = staked.prior[:-1] / plain.prior[:-1]
    none = ratio[where["E5"]] if "E5" in where else np.median(ratio)
    assert np.isclose(ratio[where["H9"]] / none, 8 ** (0.5 / 3))
    assert np.isclose(ratio[where["J8"]] / none, 8 ** (0.5 * 2 / 3))
    assert np.isclose(ratio[where["F9"]] / none, 8 ** -0.5)
    with pytest.raises(ValueError, match="stakes"):
        board.races_flat(color, np.zeros(80, dtype=np.int16))
    with pytest.raises(ValueError, match="stakes"):
        board.tactics_flat(color, np.zeros(81, dtype=np.int32))
    with pytest.raises(ValueError, match="stake_stones"):
        MCTS(db, stake_stones=-1)


def test_dynamic_komi_raises_the_komi_against_a_side_far_ahead(db, monkeypatch):
    """``dynamic_komi``: after a search whose best value is above KOMI_RAISE
    the playouts of the next one give the searching side that many points
    less; the reported win rates stay those of the game's komi."""
    from fastplay.mcts import KOMI_RAISE

    for color, komi, sign in (("B", -40.5, 1.0), ("W", 40.5, -1.0)):
        board = fp.Board(9, komi=komi)
        if color == "W":
            board.play("E5")
        # (the playout values as prior and every move open: with them this
        # seed's 300 playouts include one won only under the game's komi,
        # which the last check below needs)
        search = MCTS(db, seed=1, dynamic_komi=3.0, prior_table=None, widen_base=0)
        first = search.run(board, playouts=300)
        assert first.winrate > KOMI_RAISE
        assert search.extra_komi == {board.to_move_code: 3.0}
        # the komi the next search's playouts use
        assert search.komi_control.komi_for(board) == komi + sign * 3.0
        search.run(board, playouts=300)
        assert search.extra_komi == {board.to_move_code: 6.0}
        root = search.root
        # a playout won under the harder komi is won under the game's
        assert np.all(root.wins >= root.w - 1e-9) and np.any(root.wins > root.w)
        for _ in range(10):
            search.run(board, playouts=100)
        assert search.extra_komi[board.to_move_code] == 81 / 4  # capped
        search.new_game()
        assert search.extra_komi == {}
    assert MCTS(db).extra_komi == {} and MCTS(db).dynamic_komi == 0.0
    # The first-play tallies count wins under the search's komi, for the
    # playout moves (in the core) and for the tree moves (in the back-up).
    board = fp.Board(9, komi=7.5)
    search = MCTS(db, seed=1, dynamic_komi=5.0)
    search.komi_control.extra[board.to_move_code] = 15.0
    checked: list[bool] = []
    backup = SearchLoop._backup

    def spy(self, descent, value):
        node, i = descent.nodes[0], descent.path[0]
        before = node.r_moves[1, i] if i < len(node.points) else None
        backup(self, descent, value)
        if value.amaf is not None and before is not None:
            # Black to move at the root: the tree move's first-play tally grew
            # by the playouts' wins under the search's komi.
            checked.append(node.r_moves[1, i] - before == value.search_wins)

    monkeypatch.setattr(SearchLoop, "_backup", spy)
    search.run(board, playouts=1000)
    assert len(checked) > 100 and all(checked)
    with pytest.raises(ValueError, match="dynamic_komi"):
        MCTS(db, dynamic_komi=-1.0)


def test_search_cut_short_in_a_descent_drops_its_tree(db, monkeypatch):
    """Ctrl-C (or an error) in the middle of a simulation -- here in an
    expansion, with two threads, while the path holds virtual loss -- drops
    the tree instead of keeping counts that disagree; the next search starts
    afresh with consistent counts."""
    board = fp.Board(9, komi=7.5)
    board.play("E5")
    search = MCTS(db, seed=1, threads=2)
    search.run(board, playouts=2000)
    original = NodeMaker.expand
    calls = [0]

    def expand(self, position, base, params, recent=None,  # type: ignore[no-untyped-def]
               release=False, depth=0):
        calls[0] += 1
        if calls[0] == 20:
            raise KeyboardInterrupt   # with two threads, while the lock is let go
        return original(self, position, base, params, recent, release, depth)

    monkeypatch.setattr(NodeMaker, "expand", expand)
    with pytest.raises(KeyboardInterrupt):
        search.run(board, playouts=10**6)
    assert search.root is None and calls[0] == 20
    monkeypatch.setattr(NodeMaker, "expand", original)
    result = search.run(board, playouts=1000)
    assert search.root.visits == pytest.approx(result.playouts, abs=8)
    _check_consistent(search.root)


def test_tree_reuse_keeps_visits(db):
    board = fp.Board(9, komi=7.5)
    search = MCTS(db, seed=7)
    result = search.run(board, playouts=2000)
    best = result.best_move
    root = search.root
    i = int(np.flatnonzero(root.moves == fp.parse_vertex(best, 9))[0])
    child = root.children[i]
    assert child is not None
    reply_index = int(np.argmax(child.n))
    reply = fp.format_vertex(int(child.moves[reply_index]), 9)
    grandchild = child.children[reply_index]
    carried = child.n[reply_index]
    board.play(best)
    board.play(reply)
    result2 = search.run(board, playouts=500)
    assert search.root is grandchild or grandchild is None
    if grandchild is not None:
        assert result2.root_visits == pytest.approx(carried + result2.playouts, abs=16)
    _check_consistent(search.root)
    # a position that does not follow from the tree starts afresh
    search.run(fp.Board(9, komi=7.5), playouts=200)
    assert search.root.visits == pytest.approx(200, abs=16)


def test_a_tree_grown_under_other_rules_is_not_reused(db):
    """A tester's case: 5x5, Black to move where B1 is suicide; a search
    with suicide allowed (its prior all on B1) answered B1, and the same
    search object then answered B1 again under the rule that forbids it."""
    def board_with(suicide: bool) -> fp.Board:
        board = fp.Board(5, komi=0.5, suicide=suicide)
        for move in ("A1", "A2", "pass", "B2", "pass", "C1"):
            board.play(move)
        return board

    def prior(board: fp.Board) -> np.ndarray:
        weights = np.full(26, 1e-6)
        weights[fp.parse_vertex("B1", 5)] = 1.0
        return weights

    config = SearchConfig(widen_base=1, widen_visits=1e12, book=False, resign_threshold=None)
    search = MCTS(db, config, prior=prior, seed=1)
    assert search.run(board_with(True), visits=200).best_move == "B1"
    forbidding = board_with(False)
    result = search.run(forbidding, visits=200)
    assert result.best_move != "B1"
    forbidding.play(result.best_move)                                  # legal
    hits = np.flatnonzero(search.root.moves == fp.parse_vertex("B1", 5))
    assert not search.root.allowed[hits].any()
    assert search.run(board_with(True), visits=50).best_move == "B1"   # and back
    search.run(fp.Board(5, komi=0.5, superko=True), visits=50)
    assert search.root.visits == pytest.approx(50, abs=4)              # superko: afresh too


def test_reproducible_with_one_thread_and_seed(db):
    board = fp.Board.from_sgf(shared_path("gnugo-regression", "games", "cgos", "471085.sgf"), move_number=20)
    a = MCTS(db, seed=11).run(board, playouts=800)
    b = MCTS(db, seed=11).run(board, playouts=800)
    assert a.best_move == b.best_move
    assert [(c.move, c.visits, c.winrate) for c in a.children] == \
        [(c.move, c.visits, c.winrate) for c in b.children]
    assert np.array_equal(a.ownership, b.ownership)


def test_result_fields(db):
    board = fp.Board(9, komi=7.5)
    result = MCTS(db, seed=1).run(board, playouts=400)
    assert result.ownership.shape == (9, 9) and result.ownership.dtype == np.float32
    assert np.all(np.abs(result.ownership) <= 1)
    assert 0 <= result.winrate <= 1
    assert result.children[0].pv[0] == result.children[0].move
    assert abs(sum(c.prior for c in MCTS(db).run(board, playouts=50).children) - 1) < 1.01


def test_seconds_limit_and_clock(db):
    board = fp.Board(9, komi=7.5)
    search = MCTS(db, seed=1)
    start = time.perf_counter()
    search.run(board, seconds=0.3)
    assert time.perf_counter() - start < 1.0
    search.set_time(10, 0, 0)
    search.time_left("B", 2, 0)
    start = time.perf_counter()
    search.run(board)
    assert time.perf_counter() - start < 2.0  # never beyond the clock


def test_clock_values_are_checked(db):
    """A tester's infinite main time made ``run`` never return; NaN turned
    the clock off; strings raised a comparison's TypeError."""
    search = MCTS(db, seed=1)
    for bad in (math.inf, math.nan, -1.0):
        with pytest.raises(ValueError, match="main_time"):
            search.set_time(bad, 0, 0)
        with pytest.raises(ValueError, match="seconds"):
            search.time_left("B", bad, 0)
    for args in (("10", 0, 0), (10, 0, 2.5), (True, 0, 0)):
        with pytest.raises(TypeError):
            search.set_time(*args)
    with pytest.raises(TypeError, match="stones"):
        search.time_left("B", 5, 2.5)
    with pytest.raises(ValueError, match="main_time"):
        search.set_time(1e300, 0, 0)          # as good as infinite (a second tester)
    with pytest.raises(ValueError, match="main_time"):
        search.set_time(10**400, 0, 0)        # no OverflowError either
    with pytest.raises(ValueError, match="stones"):
        search.set_time(10, 5, -1)
    search.set_time(np.float64(1.0), 0, np.int64(0))
    search.time_left("W", np.int64(1), 0)
    start = time.perf_counter()
    search.run(fp.Board(9, komi=7.5))
    assert time.perf_counter() - start < 1.5


@pytest.mark.parametrize("size, main_time", [(9, 0.5), (9, 1.0), (13, 2.0), (19, 5.0),
                                             (19, 30.0)])
def test_sudden_death_budgets_never_overrun_the_clock(db, size, main_time):
    """Spend every budget plus 2 ms of overhead (``MOVE_OVERHEAD``; about
    four times the measured one) for a long game, 0.75 moves per point and
    colour, without time_left: the engine's own clock never runs out (a
    tester's 13x13 game of 183 plies at 2 s each used 2.3 s with the old
    20 ms floor)."""
    search = MCTS(db, seed=1)
    search.set_time(main_time, 0, 0)
    board = fp.Board(size)
    used = 0.0
    for _ in range(int(0.75 * size * size)):
        budget = search.time_budget(board)
        assert budget is not None and budget > 0
        used += budget + 0.002
        search.clock.spend(board.to_move_code, budget + 0.002)
        board.play("pass")   # Black's move and White's: the plies go by
        board.play("pass")
    assert used < main_time


@pytest.mark.parametrize("limit", [{"seconds": 3.0}, {"playouts": 10**7}])
def test_the_clock_caps_an_explicit_limit(db, limit):
    """With 1 s on the clock, run(seconds=3) or a huge playout limit answers
    within the clock (`fastplay gtp --seconds 3` took 2.85 s with 1 s left),
    and the clock is charged."""
    search = MCTS(db, seed=1)
    search.set_time(1, 0, 0)
    board = fp.Board(9, komi=7.5)
    start = time.perf_counter()
    search.run(board, **limit)
    assert time.perf_counter() - start < 1.0
    remaining, _ = search.clock.left[board.to_move_code]
    assert remaining < 1.0


def test_the_clock_is_charged_for_the_final_probe(db):
    """A settled-looking position costs a probe search after the main one
    (decide.is_final); without time_left from the controller, our own clock
    is charged for all of it."""
    board = board_from_ascii(MIDGAME_PASSES[0][0], "W", komi=7.5)
    search = MCTS(db, seed=1)
    search.set_time(30, 0, 0)
    start = time.perf_counter()
    result = search.run(board)
    elapsed = time.perf_counter() - start
    assert result.best_move == "A6"
    remaining, _ = search.clock.left[board.to_move_code]
    assert elapsed - 0.008 <= 30 - remaining <= elapsed   # the probe takes 20-40 ms


@pytest.mark.parametrize("seconds", [0.05, 0.3])
def test_a_time_limit_includes_the_final_probe(db, seconds, monkeypatch):
    """run(seconds=S) keeps a share of S for the probe of a settled-looking
    position, the probe stops at S, and SearchResult.seconds reports all of
    it (a tester saw 0.085 s of wall time and 0.021 s reported for S = 0.02
    on 25x25).  A probe of 200,000 playouts would take seconds if it did not
    stop at the limit; the margins allow for a loaded machine."""
    monkeypatch.setattr(driver_module, "FINAL_PLAYOUTS", 200_000)
    board = board_from_ascii(MIDGAME_PASSES[0][0], "W", komi=7.5)
    search = MCTS(db, seed=1)
    search.run(board, playouts=50)     # warm: the playout engine is built once
    start = time.perf_counter()
    result = search.run(board, seconds=seconds)
    elapsed = time.perf_counter() - start
    assert result.best_move == "A6"
    assert result.seconds <= elapsed <= seconds + 0.25
    assert result.seconds >= elapsed - 0.05


def test_no_time_for_the_probe_means_no_pass(db, monkeypatch):
    """A search left without time for the final probe plays on rather than
    pass on the search's ownership alone: CI on a loaded machine once saw
    the 0.3 s search above pass where A6 was needed."""
    board = board_from_ascii(MIDGAME_PASSES[0][0], "W", komi=7.5)
    own = np.ones((board.size, board.size), np.float32)
    assert not is_final(board, own, lambda after, limit: 1 / 0,
                        deadline=time.perf_counter() - 1.0)
    # Every deadline counts as "no time left" (the starved machine): no pass.
    monkeypatch.setattr(decide, "FINAL_MIN_SECONDS", 1e9)
    assert MCTS(db, seed=1).run(board, seconds=0.3).best_move == "A6"


def test_a_probe_cut_short_finds_nothing_settled(db):
    board = board_from_ascii(MIDGAME_PASSES[0][0], "W", komi=7.5)
    after = board.copy()
    after.play("pass")
    search = MCTS(db, seed=1)
    assert np.abs(search.final_probe(after, None)).max() > 0.5
    # Stopped by the clock after a visit or two: it owns nothing.
    assert not search.final_probe(after, 1e-9).any()


def test_a_failed_ponder_warns_and_drops_its_tree(db):
    """A plug-in that fails while the search ponders does not stop the game,
    but no longer silently (a tester): ``ponder_stop`` warns and the next
    search starts afresh."""
    calls = []

    def fails_later(board: fp.Board) -> np.ndarray:
        calls.append(1)
        if len(calls) > 1:
            raise KeyError("policy net offline")
        return np.ones(board.size * board.size + 1)

    board = fp.Board(9, komi=7.5)
    search = MCTS(db, seed=1, prior=fails_later)
    search.ponder_start(board)
    deadline = time.monotonic() + 30
    while len(calls) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    with pytest.warns(RuntimeWarning, match="pondering stopped early .*KeyError.*offline"):
        search.ponder_stop()
    assert search.root is None
    search.prior = None
    assert search.run(board, visits=50).visits == 50


def test_ponder_then_reuse(db):
    board = fp.Board(9, komi=7.5)
    search = MCTS(db, seed=1)
    search.ponder_start(board)
    time.sleep(0.3)
    search.ponder_stop()
    visits = search.root.visits
    assert visits > 0
    result = search.run(board, playouts=200)
    assert result.root_visits >= visits + 200 - 16
    _check_consistent(search.root)


def test_resigns_only_when_lost_and_not_in_opening(db):
    # One Black stone against White's wall on 5x5, komi 20.5: hopeless.
    board = board_from_ascii("""
O O O O .
O . O O O
O O O . O
. . . . .
. . . . X
""", "B", komi=20.5)
    search = MCTS(db, seed=1, resign_moves=1)
    assert search.run(board, playouts=500).best_move == "resign"
    empty = fp.Board(9, komi=80.5)  # lost from the start, but in the opening
    assert MCTS(db, seed=1, resign_moves=1).run(empty, playouts=300).best_move != "resign"


def test_eye_mask():
    grid = board_from_ascii(SEKI, "B").to_numpy()
    eyes_b = eye_mask(grid, 1)
    eyes_w = eye_mask(grid, -1)
    size = grid.shape[0]
    names_b = {fp.format_vertex(int(i), size) for i in np.flatnonzero(eyes_b)}
    names_w = {fp.format_vertex(int(i), size) for i in np.flatnonzero(eyes_w)}
    assert names_b == {"E7", "A4", "A2"}
    assert names_w == {"A7", "D4", "G4", "E2", "G1"}


def test_bad_arguments(db):  # see also test_run_rejects_bad_limits
    with pytest.raises(TypeError):
        MCTS("not a db")
    with pytest.raises(ValueError):
        MCTS(db, threads=0)
    with pytest.raises(ValueError, match="1..1024"):
        MCTS(db, threads=1025)
    with pytest.raises(ValueError):
        MCTS(db).run(fp.Board(9), playouts=0)
    with pytest.raises(ValueError, match="2\\*\\*53"):      # not an OverflowError inside
        MCTS(db).run(fp.Board(9), visits=2 ** 63)


@pytest.mark.parametrize("kwargs", [
    {"even_visits": -1.0}, {"even_visits": float("nan")}, {"pattern_visits": -0.5},
    {"pattern_visits": float("inf")}, {"score_weight": -0.1}, {"score_weight": 1.0},
    {"score_weight": float("nan")},
    # an infinite constant or an overflowing power would put NaN in the scores
    {"c_puct": float("inf")}, {"c_uct": -1.0}, {"fpu_reduction": 1e9},
    {"fpu_reduction": float("nan")}, {"prior_power": 200}, {"prior_power": float("nan")},
    {"rave_equiv": 0}, {"rave_equiv": float("inf")}, {"fight_prior": 0.0},
    {"fight_prior": float("nan")}, {"rave_equiv": 5e-324}, {"c_puct": 10**400},
    {"ladder_prior": 0.5}, {"ladder_prior": float("inf")}, {"ladder_visits": -1.0},
    {"ladder_visits": float("nan")},
])
def test_bad_knowledge_options(db, kwargs):
    with pytest.raises(ValueError):
        MCTS(db, **kwargs)


@pytest.mark.parametrize("kwargs, error", [
    ({"resign_moves": 0}, ValueError), ({"default_playouts": 0}, ValueError),
    ({"default_playouts": -5}, ValueError), ({"expand_threshold": 0}, ValueError),
    ({"max_nodes": 0}, ValueError), ({"resign_threshold": 1.5}, ValueError),
    ({"resign_threshold": float("nan")}, ValueError),
    ({"expand_threshold": "3"}, TypeError), ({"expand_threshold": 2.5}, TypeError),
    ({"resign_threshold": "0.1"}, TypeError), ({"resign_moves": True}, TypeError),
    ({"pass_prior": "0.01"}, TypeError),
])
def test_bad_search_options_are_refused_at_construction(db, kwargs, error):
    """A tester found these accepted: resigning on the empty board
    (resign_moves=0), a move without a search (default_playouts=0), a
    30x slower search (expand_threshold=0), errors only inside run()."""
    name = next(iter(kwargs))
    with pytest.raises(error, match=name):
        MCTS(db, **kwargs)


@pytest.mark.parametrize("kwargs, shown", [
    ({"ladder_visits": 10**400}, "... (401 characters)"),
    ({"max_nodes": 10**400}, "... (401 characters)"),
    ({"c_puct": 10**5000}, "an integer of about 5,000 digits"),
    ({"batch": 10**9000}, "an integer of about 9,000 digits"),
    ({"policy": "x" * 500}, "... (502 characters)"),
])
def test_a_huge_option_value_makes_a_short_message(db, kwargs, shown):
    """A tester saw the 400 digits of ``10**400`` in the message; past
    CPython's 4,300 digits ``repr`` itself raises, so no message was made."""
    name = next(iter(kwargs))
    with pytest.raises(ValueError, match=name) as info:
        MCTS(db, **kwargs)
    assert str(info.value).endswith(shown) and len(str(info.value)) < 160


@pytest.mark.parametrize("call", ["board", "komi", "playouts_n", "playouts_seed",
                                  "mcts_threads", "run_playouts"])
def test_a_huge_integer_argument_makes_a_short_message(db, call):
    """Past CPython's 4,300 digits ``repr`` and ``str`` of an int raise, so
    these checks' messages could not be made (the error said "Exceeds the
    limit ... for integer string conversion"); ``shown.shown_value`` is
    their one way of showing a value."""
    huge = 10**5000
    board = fp.Board(9)
    calls = {"board": lambda: fp.Board(huge),
             "komi": lambda: setattr(board, "komi", huge),
             "playouts_n": lambda: fp.playouts(board, db, n=huge, seed=1),
             "playouts_seed": lambda: fp.playouts(board, db, n=2, seed=-huge),
             "mcts_threads": lambda: MCTS(db, threads=huge),
             "run_playouts": lambda: MCTS(db, seed=1).run(board, playouts=huge)}
    with pytest.raises(ValueError, match="not (an|a negative) integer of about 5,000 digits$"):
        calls[call]()


def test_prior_knowledge_is_virtual_and_follows_the_patterns(db):
    """even_visits / pattern_visits seed the values, never the visit counts."""
    board = fp.Board(9, komi=7.5)
    board.play("E5")
    board.play("E6")  # White's hane-like contact: pattern values now differ
    search = MCTS(db, seed=1, even_visits=20, pattern_visits=40, ladder_prior=1.0, ladder_visits=0.0)
    node = search.expand(board)
    assert np.all(node.pn[:-1] == 60) and node.pn[-1] == 20 and node.pw[-1] == 10
    value = node.pw / node.pn
    # value rises with the prior: r / (1 + r) mixed with the even 0.5
    order = np.argsort(node.prior[:-1])
    assert np.all(np.diff(value[:-1][order]) >= -1e-12)
    assert value[:-1].min() < 0.5 < value[:-1].max()
    result = search.run(board, playouts=400)
    root = search.root
    assert root.base + root.n.sum() == 400 and result.playouts == 400
    assert sum(c.visits for c in result.children) == 400


def test_score_weight_keeps_wins_above_losses(db):
    search = MCTS(db, score_weight=0.1)
    points = 81
    values = [game_value(win, margin, points, search.score_weight)
              for win, margin in ((0.0, -81.0), (0.0, -0.5), (0.5, 0.0), (1.0, 0.5), (1.0, 81.0))]
    assert values == sorted(values) and len(set(values)) == 5
    assert values[1] < 0.1 and values[3] > 0.9  # wins above 1 - s, losses below s
    assert game_value(1.0, 0.5, points, MCTS(db).score_weight) == 1.0  # off by default
    # the histogram weights: bin i is Black's area minus White's = i - points, before komi
    board = fp.Board(9, komi=7.5)
    weights, wins = ScoreTables()(board.size, board.komi)
    assert weights.shape == wins.shape == (2 * points + 1,)
    assert wins[points + 7] == 0.0 and wins[points + 8] == 1.0 and wins.sum() == 81 - 7
    assert weights[points + 8] == pytest.approx(0.5 + 0.5 * 0.5 / points)
    assert weights[0] == 0.0 and weights[-1] == pytest.approx(0.5 + 0.5 * (81 - 7.5) / 81)
    # the search follows the blended values, the report gives plain win rates
    result = search.run(board, playouts=200)
    root = search.root
    assert np.all(root.wins <= root.n) and not np.array_equal(root.wins, root.w)
    names = [fp.format_vertex(int(m), 9) for m in root.moves]
    for child in result.children:
        if child.visits:
            i = names.index(child.move)
            assert child.winrate == root.wins[i] / root.n[i]


def test_passes_back_when_passing_wins(db):
    # A finished 5x5 game: Black's area 15, White's 10; White has just passed.
    board = board_from_ascii("""
. X O . O
X X O O O
X . X O .
X X X O O
. X . X O
""", "W", komi=0.5)
    board.to_move = "B"
    board.pass_move("W")
    assert board.to_move == "B" and board.consecutive_passes == 1
    result = MCTS(db, seed=1).run(board, playouts=500)
    assert result.best_move == "pass" and result.rule == "final"


def test_a_result_names_the_rule_of_its_move(db):
    """``SearchResult.rule`` says why the move was answered: the visits, the
    opening book, a pass rule (above) or resignation."""
    from fastplay.search.decide import RULES, book_move

    plain = MCTS(db, seed=1, book=False).run(fp.Board(9), playouts=300)
    assert plain.rule == "visits" and plain.best_move == plain.children[0].move
    booked = MCTS(db, seed=1).run(fp.Board(9), playouts=300)
    assert book_move(fp.Board(9)) == booked.best_move and booked.rule == "book"
    lost = board_from_ascii("""
. X O . O
X X O O O
X . X O .
X X X O O
. X . X O
""", "B", komi=20.5)                                  # Black to move, 15.5 behind
    resigned = MCTS(db, seed=1, resign_threshold=0.9, resign_moves=1).run(lost, playouts=300)
    assert resigned.best_move == "resign" and resigned.rule == "resign"
    assert set(RULES) >= {plain.rule, booked.rule, resigned.rule, "pass back", "not pass"}


# -- small budgets, the final choice and the pass -----------------------------------

FIRST_LINE = {f"{c}{r}" for c in "ABCDEFGHJ" for r in (1, 9)} | \
    {f"{c}{r}" for c in "AJ" for r in range(1, 10)}


@pytest.mark.parametrize("playouts", [1, 8, 64, 500, 1000])
def test_empty_board_never_first_line_or_pass(db, playouts):
    """A tester saw A9 (scan order) at 500 playouts and a pass at 1000."""
    for seed in (1, 2, 3, 4):
        result = MCTS(db, seed=seed).run(fp.Board(9, komi=7.5), playouts=playouts)
        assert result.best_move != "pass", (playouts, seed)
        assert result.best_move not in FIRST_LINE, (playouts, seed, result.best_move)


def test_a_search_out_of_time_answers_an_allowed_move(db):
    """seconds=1e-9 runs one simulation, the first visit (a tester's analysis
    at ``--max-time 1e-9`` once answered no move and no visits): the answer
    is an allowed move, not the opening's forbidden pass (whose prior, 0.01,
    is the largest on 19x19)."""
    result = MCTS(db, seed=1, book=False).run(fp.Board(19), seconds=1e-9)
    assert result.best_move != "pass"
    assert 1 <= result.visits <= 16 and result.children   # one leaf batch


def test_pass_is_no_candidate_in_the_opening_unless_the_opponent_passed(db):
    search = MCTS(db, seed=1)
    search.run(fp.Board(9, komi=7.5), playouts=200)
    assert search.root is not None and not search.root.allowed[-1]
    assert all(c.move != "pass" for c in search.run(fp.Board(9), playouts=200).children)
    board = fp.Board(9, komi=7.5)
    board.pass_move("B")  # White may now end the game and win by komi
    search.run(board, playouts=200)
    assert search.root.allowed[-1]


def test_white_plays_on_against_nine_handicap_stones_on_9x9(db):
    """A tester's game: nine stones on 9x9 at komi 0.5 counted as a final
    position (Black owns every point in the playouts), so White passed at
    move 0 and Black's pass ended the game.  No pass in the opening."""
    board = fp.Board(9, komi=0.5)
    board.setup(black=["C3", "G7", "C7", "G3", "C5", "G5", "E3", "E7", "E5"], to_move="W")
    result = MCTS(db, seed=1).run(board, playouts=1000)
    assert result.best_move not in ("pass", "resign")
    board.play(result.best_move)                   # a legal move


@pytest.mark.parametrize("size, playouts", [(25, 30), (25, 60), (25, 200), (9, 60)])
def test_no_pass_that_ends_the_game_lost(db, size, playouts):
    """A tester's 25x25 search of 30-60 playouts passed back and lost: the
    pass's exact 0 beat the unvisited moves' first-play urgency (parent value
    0 minus the reduction) and took 55 of 60 visits.  Such a pass is no
    candidate now; one that wins stays (test_passes_back_when_passing_wins)."""
    board = fp.Board(size, komi=7.5)
    for move in ("A1", "E5", "B2", "pass"):   # Black 2 stones, White 1: passing loses
        board.play(move)
    for seed in (1, 2, 3):
        search = MCTS(db, seed=seed)
        result = search.run(board, playouts=playouts)
        assert result.best_move != "pass", (seed, result.children[:3])
        assert search.root is not None and not search.root.allowed[-1]


def test_small_budget_follows_the_priors(db):
    """With fewer playouts than moves the batch shrinks and PUCT follows the priors."""
    search = MCTS(db, seed=1)
    search.run(fp.Board(9, komi=7.5), playouts=40)
    root = search.root
    visited = root.n > 0
    assert visited.sum() >= 5  # spread over several moves, not 8 playouts on few
    # RAVE may still try a move with a lucky first-play tally; on average the
    # playouts go where the priors point (off the bare edge)
    assert root.prior[visited].mean() > root.prior[:-1].mean()


def test_large_boards_keep_a_batch_floor(db):
    """On 19x19 a small budget still runs 3 playouts per leaf (the Python cost
    per simulation would otherwise dominate); 9x9 may shrink to 1."""
    result = MCTS(db, seed=1, resign_threshold=None).run(fp.Board(19, komi=7.5), playouts=300)
    assert result.playouts == 300
    assert result.simulations == 100  # 3 playouts each
    result = MCTS(db, seed=1, resign_threshold=None).run(fp.Board(9, komi=7.5), playouts=40)
    assert result.simulations == 40
    # 1 playout per leaf and thread; the floor wins on 19x19 and 25x25
    assert MCTS(db).leaf_batch(9) == 1 and MCTS(db, threads=2).leaf_batch(9) == 2
    assert MCTS(db).leaf_batch(19) == 3 and MCTS(db).leaf_batch(25) == 5 and MCTS(db, batch=6, threads=2).leaf_batch(9) == 6
    assert MCTS(db, threads=2).leaf_batch(19, visits=1000, moves=362) == 3


def test_opening_book_plays_tengen_on_the_empty_9x9_board_only(db):
    result = MCTS(db, seed=1).run(fp.Board(9, komi=7.5), playouts=200)
    assert result.best_move == "E5"
    assert result.children  # the search ran all the same
    # not once a stone is down, not for White, not on other sizes
    board = fp.Board(9, komi=7.5)
    board.play("C3")
    white_first = fp.Board(9, komi=7.5)
    white_first.pass_move("B")
    for position in (board, white_first, fp.Board(13, komi=7.5), fp.Board(7, komi=7.5)):
        assert book_move(position) is None
    assert book_move(fp.Board(9, komi=0.5)) == "E5"


def test_final_choice_ties_by_value_then_prior(db):
    for seed in (1, 2):
        # book=False: on the empty 9x9 board the opening book would answer E5
        result = MCTS(db, seed=seed, book=False).run(fp.Board(9, komi=7.5), playouts=300)
        keys = [(c.visits, c.winrate, c.prior) for c in result.children if c.visits]
        assert keys == sorted(keys, reverse=True)
        assert result.best_move == result.children[0].move


@pytest.mark.parametrize("kwargs, error", [
    ({"playouts": 1.5}, TypeError), ({"playouts": "100"}, TypeError),
    ({"playouts": True}, TypeError), ({"playouts": 0}, ValueError),
    ({"playouts": -3}, ValueError), ({"seconds": "1"}, TypeError),
    ({"seconds": 0}, ValueError), ({"seconds": -1.0}, ValueError),
    ({"seconds": float("nan")}, ValueError), ({"seconds": float("inf")}, ValueError),
])
def test_run_rejects_bad_limits(db, kwargs, error):
    with pytest.raises(error):
        MCTS(db, seed=1).run(fp.Board(9), **kwargs)


def test_run_accepts_numpy_integers(db):
    assert MCTS(db, seed=1).run(fp.Board(5), playouts=np.int64(20)).playouts >= 20


@pytest.mark.parametrize("color", ["B", "W"])
def test_case_28_seki_passes_for_either_colour(db, color):
    """The game is decided and no move changes the area score: GNU Go passes."""
    board = fp.Board.from_sgf(shared_path("cases", "28-scoring-seki.sgf"))
    board.to_move = color
    for seed in (1, 2, 3):
        assert MCTS(db, seed=seed).run(board, playouts=2000).best_move == "pass", seed


# Four positions from match games against GNU Go level 10 (9x9, komi 7.5,
# White to move) where fastplay passed in the middle game and lost: in each
# a White string in atari or a cut needs one move (the saving moves below,
# about 94-96 % for White by the search), while after a pass Black captures
# or cuts (the pass: 46-69 %).  The playouts, in which White moves first,
# settle every point, so the position looked final to a check that reads
# the ownership of the side to move only.
MIDGAME_PASSES = [
    ("""
. . . . . . . . .
. . . . . . . . .
. O O O . O . O O
. O X X O . O X X
O X . . X O O O X
X . X . X X O X X
. . . . . . X X .
. . . . . . . . .
. . . . . . . . .
""", {"A6"}),
    ("""
. . . . . . . . .
. . . . . . . O O
. O . . . . O O X
O . O O O O O X X
X O . O X X O X .
X X O X X . X X .
. X X . . . . . .
. . . . . . . . .
. . . . . . . . .
""", {"C5"}),
    ("""
. . . . . . . . .
X . X . . . . . .
X X O X . X . . .
O X O X . . . . .
. O O O X . . . .
. . . O X X X X X
. . . . O O O O X
. . . O . . . O O
. . . . . . . . .
""", {"A5"}),
    ("""
. . . . . . O O X
. . . . O . O X X
. O O O X O O O X
. O X X X O X O X
. . O O X X X X X
O O O X X . . . .
O X X . . . . . .
O O X . X . . . .
O X X . . . . . .
""", {"D9", "D8"}),
]


@pytest.mark.parametrize("index", range(len(MIDGAME_PASSES)))
def test_no_pass_when_passing_loses_a_string(db, index):
    """A position is final only if it stays settled when the opponent moves
    first: these four looked final from White's playouts alone."""
    text, saving = MIDGAME_PASSES[index]
    board = board_from_ascii(text, "W", komi=7.5)
    for seed in (1, 2):
        search = MCTS(db, seed=seed)
        result = search.run(board, playouts=3000)
        assert result.best_move in saving, (seed, result.best_move)
        assert result.winrate > 0.8
        # Settled for White to move, but not final.
        assert settled(board, result.ownership)
        assert not is_final(board, result.ownership, search.final_probe)


def test_the_final_probe_searches_with_the_current_settings(db, monkeypatch):
    """The probe is the same search: options changed after construction
    reach it too (a tester saw the constructor's values used)."""
    board = board_from_ascii(MIDGAME_PASSES[0][0], "W", komi=7.5)
    search = MCTS(db, seed=1)
    result = search.run(board, playouts=1000)
    search.c_puct = 2.5
    search.rave_equiv = 123.0
    made: list[MCTS] = []
    original = MCTS.__init__
    monkeypatch.setattr(MCTS, "__init__", lambda self, *a, **k:
                        made.append(self) or original(self, *a, **k))
    is_final(board, result.ownership, search.final_probe)
    assert [(m.c_puct, m.rave_equiv, m.threads) for m in made] == [(2.5, 123.0, 1)]


def test_settled_position_is_final(db, monkeypatch):
    search = MCTS(db, seed=1)
    seki = fp.Board.from_sgf(shared_path("cases", "28-scoring-seki.sgf"))
    result = search.run(seki, playouts=500)
    assert settled(seki, result.ownership)
    assert is_final(seki, result.ownership, search.final_probe)
    # After the opponent's pass, our pass would end the game: no probe.
    seki.play("pass")
    result = search.run(seki, playouts=500)
    probes: list[fp.Board] = []
    original = MCTS.run
    monkeypatch.setattr(MCTS, "run", lambda self, board, *a, **k:
                        probes.append(board) or original(self, board, *a, **k))
    assert is_final(seki, result.ownership, search.final_probe)
    assert probes == []
    dead = fp.Board.from_sgf(shared_path("cases", "29-mcts-no-pass-with-dead-stone.sgf"))
    own = search.run(dead, playouts=500).ownership
    assert not settled(dead, own)
    empty = fp.Board(9)
    assert not settled(empty, np.zeros((9, 9), dtype=np.float32))


def test_a_search_that_is_not_a_move_leaves_the_game_state() -> None:
    """``run(move=False)`` (GTP scoring): the clock is not charged, and the
    game's resignation count does not grow (a tester's ``final_score`` made
    the next ``genmove`` resign); game moves do both."""
    board = fp.Board(9, komi=7.5)
    search = MCTS(fp.PatternDatabase.builtin("mc_uniform"), seed=3, resign_threshold=0.99,
                  resign_moves=2)
    for move in ("E5", "C3", "G7", "C7", "G3", "E3", "E7", "C5", "G5", "D4", "F6",
                 "B4", "F4", "D6", "H5", "B6", "F2", "D8", "H3", "B8", "F8", "D2"):
        board.play(move)     # past the opening, where resignation is allowed
    search.set_time(30, 0, 0)
    before = dict(search.clock.left)
    for _ in range(2):
        assert search.run(board, playouts=200, move=False).best_move != "resign"
    assert search.clock.left == before
    assert search.run(board, playouts=200).best_move != "resign", "the first low search"
    assert search.clock.left != before
    assert search.run(board, playouts=200).best_move == "resign", "the second"


def test_opponent_prior_applies_to_the_opponent_s_nodes_only(db):
    """``opponent_prior``: the nodes where the searching side's opponent
    moves take that prior, the searching side's keep ``prior_table``; a root
    of the other colour drops the tree (its nodes were made the other way)."""
    board = fp.Board(9)
    board.play("E5")                        # White to search
    search = MCTS(db, seed=3, resign_threshold=None, prior_table=None,
                  opponent_prior="gnugo9x9")
    search.run(board, playouts=400)
    root = search.tree.root
    own = MCTS(db, prior_table=None).expand(board)
    assert np.array_equal(root.moves, own.moves) and np.array_equal(root.prior, own.prior)
    i = int(np.argmax([c is not None for c in root.children]))
    child = root.children[i]
    after = board.copy()
    after.play_index(int(root.moves[i]), after.to_move_code)  # Black to move: theirs
    theirs = MCTS(db, prior_table="gnugo9x9").expand(after)
    assert np.array_equal(child.moves, theirs.moves)
    assert np.allclose(child.prior, theirs.prior, rtol=0, atol=1e-15)
    assert not np.allclose(child.prior, MCTS(db, prior_table=None).expand(after).prior)
    search.run(after, playouts=50)          # Black searches now: a new tree, not child
    assert search.tree.root is not child and search.tree.nodes >= 1


def test_opponent_prior_when_pondering(db):
    """A ponder searches for the side that just moved: its tree keeps the
    engine's side as its own (the priors are not swapped), so the next
    search reuses it."""
    board = fp.Board(9)
    board.play("E5")
    search = MCTS(db, seed=2, resign_threshold=None, prior_table=None,
                  opponent_prior="gnugo9x9")
    search.run(board, playouts=300)                 # White searches
    after = board.copy()
    after.play("C3")                                # White's move: Black to move
    search.ponder_start(after)
    time.sleep(0.3)
    search.ponder_stop()
    root = search.root
    assert root is not None and root.visits > 0
    ours = MCTS(db, prior_table=None).expand(after)     # Black's node: the opponent's
    theirs = MCTS(db, prior_table="gnugo9x9").expand(after)
    assert np.allclose(root.prior, theirs.prior, rtol=0, atol=1e-15)
    assert not np.allclose(root.prior, ours.prior)
    best = int(np.argmax(root.n))
    assert root.children[best] is not None and root.children[best].visits > 10
    again = after.copy()
    again.play_index(int(root.moves[best]), again.to_move_code)
    result = search.run(again, playouts=100)        # White again: the subtree is reused
    assert result.root_visits > 110


def test_a_refused_prior_leaves_the_options_as_they_were(db):
    search = MCTS(db, seed=1)
    for bad, error in (("nosuch", ValueError), ("/nonexistent.npz", ValueError), (3, TypeError)):
        with pytest.raises(error, match="opponent_prior"):
            search.opponent_prior = bad
        assert search.opponent_prior is None and search.config.opponent_prior is None
    search.c_puct = 0.5                              # later changes still work
    assert search.config.c_puct == 0.5
    with pytest.raises(ValueError):
        search.prior_table = "nosuch"
    assert search.config.prior_table == "auto"


def test_lean_node_path_makes_the_same_nodes(db, monkeypatch):
    """NodeMaker.expand's one-call path (make_node with the opening rule and
    the refresh) gives the nodes of its step-by-step path to the bit: moves,
    priors, every statistics row, the allowed flags; on empty, sparse and
    full boards (the opening rule on and off), for both colours, and with
    the opponent's prior."""
    rng = np.random.default_rng(11)
    boards = []
    for size, moves in ((9, 0), (9, 6), (9, 19), (9, 21), (9, 60), (13, 30), (19, 20)):
        for _ in range(4):
            board = fp.Board(size)
            for _ in range(moves):
                legal = board.legal_indices(board.to_move_code)
                if len(legal):
                    board.play_index(int(rng.choice(legal)), board.to_move_code)
            boards.append(board)
    makers = [MCTS(db, seed=1, **options)._maker for options in
              ({}, {"prior_table": None}, {"opponent_prior": "gnugo9x9"})]
    params = tree_params(MCTS(db).config, 9, False)
    for maker in makers:
        maker.own_color = fp.BLACK if maker.config.opponent_prior else None
        for board in boards:
            lean = maker.expand(board, 3.0, params)
            with monkeypatch.context() as m:
                m.setattr(NodeMaker, "_lean", lambda self: False)
                slow = maker.expand(board, 3.0, params)
            assert np.array_equal(lean.moves, slow.moves)
            assert np.array_equal(lean.data, slow.data, equal_nan=True)
            assert np.array_equal(lean.allowed, slow.allowed) and lean.base == slow.base


def test_ancestor_amaf_seeds_each_new_node_from_two_plies_up(db, monkeypatch):
    """``ancestor_amaf``: every node made below the root's children starts
    with its grandparent's first-play tallies (at most the option's count a
    move); the root's children, which have no grandparent in the tree, and
    searches without the option or without RAVE are left alone."""
    seeded: list[tuple[object, object, np.ndarray]] = []
    inherit = NodeMaker.inherit_amaf

    def spy(self, node, ancestor, params):          # type: ignore[no-untyped-def]
        before = node.rn.copy()
        inherit(self, node, ancestor, params)
        seeded.append((node, ancestor, node.rn - before))

    monkeypatch.setattr(NodeMaker, "inherit_amaf", spy)
    board = fp.Board(9)
    search = MCTS(db, seed=4, resign_threshold=None, ancestor_amaf=7.0)
    search.run(board, playouts=1500)
    root = search.tree.root
    assert seeded, "nodes two plies down were made"
    grandchildren = {id(g) for c in root.children if c is not None
                     for g in c.children if g is not None}
    assert {id(node) for node, _, _ in seeded} >= grandchildren
    children = {id(c) for c in root.children if c is not None}
    assert not children & {id(node) for node, _, _ in seeded}
    for node, ancestor, added in seeded:
        assert node.color == ancestor.color
        assert added.max() <= 7.0 and added.sum() > 0
    for options in ({}, {"ancestor_amaf": 7.0, "rave": False}):
        seeded.clear()
        MCTS(db, seed=4, resign_threshold=None, **options).run(board, playouts=300)
        assert seeded and all(not added.any() for _, _, added in seeded), options


def test_lower_bound_is_wilson_s_and_takes_any_visit_count(db):
    """Wilson's bound (z = 1.96) of 60 wins in 100 is 0.502; an edited
    tree's root with 1e300 visits of one move made the reused search's
    answer raise ``OverflowError`` (an int too large for a float): the
    bound is then the win rate itself."""
    from fastplay.search.results import lower_bound

    assert lower_bound(0.6, 100) == pytest.approx(0.50201, abs=1e-5)
    assert lower_bound(0.6, 0) == 0.0 and lower_bound(math.nan, 10) == 0.0
    assert lower_bound(0.6, 10 ** 300) == pytest.approx(0.6)
    search = MCTS(db, seed=1)
    board = fp.Board(9)
    search.run(board, playouts=300)
    root = search.tree.root
    root.n[int(np.argmax(root.n))] = 1e300
    result = search.run(board, playouts=300)
    assert result.best_move is not None


def test_run_answers_for_the_position_it_searched(db):
    """The caller's board changed during the search (here by the callback,
    from another thread for a tester): the result's position, its moves and
    the clock's side are those of the position searched (the answer read
    the board as it was at the end: a candidate on an occupied point)."""
    search = MCTS(db, seed=1)
    board = fp.Board(9)
    board.play("E5")
    board.play("C3")
    played: list[int] = []

    def change(visits: int) -> None:
        if not played:
            for vertex in ("D4", "F6", "E4"):
                board.play(vertex)
            played.append(visits)

    result = search.run(board, visits=500, callback=change)
    assert played and board.move_number == 5
    assert result.position.move_number == 2 and result.position.to_move == "B"
    assert all(result.position.get(c.move) is None for c in result.children
               if c.move != "pass")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork: POSIX")
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("busy", ["ponder", "thread", "analysis"])
def test_a_child_forked_during_a_search_searches(db, threads, busy):
    """A process forked while its search pondered (a server forking workers):
    the child's first run waited for good for the ponder thread, which does
    not exist there; forked while another thread ran a search, the child was
    "already searching" for good (testers).  Now the child searches, on a
    dropped tree; an analysis it had open says its thread is gone; the
    parent's search goes on."""
    board = fp.Board(9)
    board.play("E5")
    board.play("C3")
    search = MCTS(db, seed=1, threads=threads)
    search.run(board, visits=200)
    searcher, snapshots = None, None
    if busy == "ponder":
        search.ponder_start(board.copy())
    elif busy == "thread":
        searcher = threading.Thread(target=lambda: search.run(board, seconds=1.0))
        searcher.start()
    else:
        snapshots = search.analyze(board, seconds=1.0, interval=0.05)
        next(snapshots)
    time.sleep(0.2)
    pid = os.fork()
    if pid == 0:                                   # the child: never back into pytest
        code = 1
        try:
            if snapshots is not None:
                with pytest.raises(RuntimeError, match="did not survive a fork"):
                    for _ in snapshots:
                        pass
            result = search.run(board, visits=300)
            search.ponder_stop()
            search.new_game()
            code = 0 if result.best_move is not None and result.root_visits >= 300 else 2
        finally:
            os._exit(code)
    deadline = time.monotonic() + 60
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            pytest.fail("the forked child hung")
        time.sleep(0.02)
    assert os.waitstatus_to_exitcode(status) == 0
    search.ponder_stop()
    if searcher is not None:
        searcher.join()
    if snapshots is not None:
        assert list(snapshots)[-1].final
    assert search.run(board, visits=100).best_move is not None


def test_settings_change_between_searches_only(db):
    """``config``, ``threads``, ``evaluator``, ``prior`` and ``forbid`` are
    assignable between searches: during one (here from its callback, for a
    tester from another thread) each raises ``RuntimeError`` and changes
    nothing (``config`` and ``threads`` were taken, half applied); assigned
    while pondering, they stop the ponder first."""
    from dataclasses import replace

    search = MCTS(db, seed=1)
    board = fp.Board(9)
    config = search.config
    tried: list[str] = []

    def change(visits: int) -> None:
        for name, value in (("config", replace(config, rave=False)), ("threads", 2),
                            ("evaluator", lambda boards: [0.5] * len(boards)),
                            ("prior", lambda b: None), ("forbid", lambda b: [])):
            with pytest.raises(RuntimeError, match="already searching"):
                setattr(search, name, value)
            tried.append(name)

    search.run(board, visits=200, callback=change)
    assert len(tried) >= 5 and search.config is config and search.threads == 1
    assert search.evaluator is None and search.prior is None and search.forbid is None
    search.ponder_start(board)
    search.threads = 2                          # stops the ponder
    assert search.threads == 2 and not search._ponderer._thread
    search.config = replace(config, rave=False)
    assert search.run(board, visits=100).best_move is not None


def test_a_search_says_it_cannot_be_pickled(db):
    """Pickling an MCTS failed with Cython's "self.G,self.T cannot be
    converted" (a tester); copies and pickles are refused plainly."""
    import copy
    import pickle

    search = MCTS(db, seed=1)
    for make in (pickle.dumps, copy.copy, copy.deepcopy):
        with pytest.raises(TypeError, match="an MCTS cannot be pickled or copied"):
            make(search)


PONDER_PLUGIN = """
import sys, time, numpy as np, fastplay as fp
from fastplay.search import MCTS
seen = []
actions = [lambda: setattr(search, "c_puct", 0.9), lambda: search.ponder_stop(),
           lambda: search.new_game(), lambda: search.run(fp.Board(9), visits=20),
           lambda: search.ponder_start(fp.Board(9))]
def prior(board):
    if actions:
        try:
            actions.pop(0)()
            seen.append("done")
        except RuntimeError:
            seen.append("refused")
    seen.append(1)
    return np.ones(board.size * board.size + 1)
search = MCTS(fp.PatternDatabase.builtin("mc_montegnu_classic"), prior=prior, seed=1,
              threads=int(sys.argv[1]))
search.ponder_start(fp.Board(9))
deadline = time.monotonic() + 30
while actions and time.monotonic() < deadline:
    time.sleep(0.01)
search.ponder_stop()
print(seen.count("refused"), "done" in seen, search.c_puct == 0.9)
"""


@pytest.mark.parametrize("threads", ["1", "2"])
def test_a_plug_in_in_the_ponder_cannot_change_the_search(threads):
    """A prior called by the ponder that set a search option, or called
    ``ponder_stop``, ``new_game``, ``run`` or ``ponder_start``, deadlocked:
    each stopped the ponder, whose thread then waited for itself (testers).
    Each is refused as during a run."""
    done = subprocess.run([sys.executable, "-c", PONDER_PLUGIN, threads],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["5", "False", "False"]
