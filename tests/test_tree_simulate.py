"""The core's simulation loop (``fastplay._tree.tree_simulate``): a search
whose simulations run in it grows the same tree, to the bit, as the Python
loop of ``fastplay.search.loop``; its limits; its refusals."""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import fastplay as fp
import fastplay.search.loop as loop
from fastplay._core import (BLACK, DESCEND_LEAF, SIMULATE_DONE, SIMULATE_PYTHON, WHITE,
                            PlayoutTally, TreeNode, TreeParams, prior_node, tree_descend,
                            tree_simulate)
from fastplay.montecarlo import playout_engine
from fastplay.search import MCTS, SearchConfig

from conftest import shared_path

PARAMS = TreeParams(True, True, False, 1.0, 0.5, 0.1, 1000.0)


@pytest.fixture(scope="module")
def db() -> fp.PatternDatabase:
    return fp.PatternDatabase.builtin("mc_montegnu_classic")


def _nodes(root: TreeNode | None) -> Iterator[TreeNode]:
    """Every node of the tree, depth first, children in move order."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        yield node
        stack.extend(reversed(node.children))


def _tree_bytes(search: MCTS) -> list[bytes]:
    """The whole tree as bytes: each node's moves, statistics and cached rows,
    flags and sums, and which children it has."""
    out = []
    for node in _nodes(search.root):
        out.append(node.moves.tobytes() + node.data.tobytes() + node.allowed.tobytes()
                   + np.array([node.base, node.sum_n, node.sum_w, node.sum_vl]).tobytes()
                   + bytes(c is not None for c in node.children))
    return out


@contextlib.contextmanager
def _loop(monkeypatch: pytest.MonkeyPatch, compiled: bool = True) -> Iterator[list[int]]:
    """Count the simulations the core's loop runs (``calls[0]``); without
    ``compiled``, every search keeps the Python loop."""
    calls = [0]

    def counted(*args: Any, **kwargs: Any) -> tuple[int, int, int, int]:
        answer = tree_simulate(*args, **kwargs)
        calls[0] += answer[1]
        return answer

    with monkeypatch.context() as patch:
        patch.setattr(loop, "tree_simulate", counted)
        if not compiled:
            patch.setattr(loop.SearchLoop, "_compiled", lambda self, board: False)
        yield calls


def _search(db: fp.PatternDatabase, board: fp.Board, options: dict[str, Any],
            compiled: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[MCTS, Any, int]:
    """A seeded one-thread search and a reuse of its tree, with or without the
    core's loop; also how many simulations the core's loop ran."""
    with _loop(monkeypatch, compiled) as calls:
        search = MCTS(db, SearchConfig(**options), threads=1, seed=5)
        result = search.run(board, visits=700)
        board = board.copy()
        board.play(result.best_move if result.best_move != "resign" else "pass")
        again = search.run(board, visits=400)
    return search, (result, again), calls[0]


def _opening(size: int, moves: list[str]) -> fp.Board:
    board = fp.Board(size, komi=7.5)
    for move in moves:
        board.play(move)
    return board


POSITIONS = {
    "empty9": lambda: fp.Board(9, komi=7.5),
    "opening9": lambda: _opening(9, ["E5", "E3", "G7", "C6", "D4"]),
    "open13": lambda: _opening(13, ["D4", "K10", "D10", "K4", "G7"]),
    # Komi 0: drawn playouts (no win in the first-play tallies of either side).
    "draws6": lambda: fp.Board(6, komi=0.0),
    # Two passes end many descents inside the tree: Python's simulations.
    "settled5": lambda: _opening(5, ["C3", "B3", "C2", "B2", "C4", "B4", "D3", "pass", "C1",
                                     "B1", "C5", "B5"]),
}
OPTIONS = {
    "default": {},
    "uct_norave": {"policy": "uct", "rave": False, "prior_table": None},
    "batch3": {"batch": 3, "expand_threshold": 4, "race_reading": True, "even_visits": 5.0},
    "gnugo_scoring": {"scoring": "gnugo", "fpu_reduction": 0.0},
}


@pytest.mark.parametrize("options", sorted(OPTIONS))
@pytest.mark.parametrize("position", sorted(POSITIONS))
def test_the_core_loop_grows_the_python_loops_tree(db: fp.PatternDatabase, position: str,
                                                    options: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    board = POSITIONS[position]()
    fast, fast_results, ran = _search(db, board, OPTIONS[options], True, monkeypatch)
    slow, slow_results, none = _search(db, board, OPTIONS[options], False, monkeypatch)
    assert none == 0 and ran > 100        # each loop ran where it should
    assert _tree_bytes(fast) == _tree_bytes(slow)
    for a, b in zip(fast_results, slow_results):
        assert (a.best_move, a.winrate, a.playouts, a.simulations, a.nodes) \
            == (b.best_move, b.winrate, b.playouts, b.simulations, b.nodes)
        assert a.ownership.tobytes() == b.ownership.tobytes()


def _analysis(db: fp.PatternDatabase, board: fp.Board, compiled: bool,
              monkeypatch: pytest.MonkeyPatch) -> tuple[MCTS, list[tuple[Any, ...]], int]:
    """A seeded analysis (score tallies per root move), its last snapshot's
    moves, and the simulations of the core's loop."""
    with _loop(monkeypatch, compiled) as calls:
        search = MCTS(db, threads=1, seed=3)
        for info in search.analyze(board, visits=600, interval=10.0):
            pass
        for info in search.analyze(board, visits=900, interval=10.0):   # the same root again
            pass
    moves = [(c.move, c.visits, c.winrate, c.score_mean, c.score_stdev, c.pv)
             for c in info.children]
    return search, moves + [(info.score_mean, info.score_stdev)], calls[0]


@pytest.mark.parametrize("position", ["opening9", "settled5"])
def test_an_analysis_in_the_core_loop_has_the_python_loops_scores(
        db: fp.PatternDatabase, position: str, monkeypatch: pytest.MonkeyPatch) -> None:
    board = POSITIONS[position]()
    fast, fast_moves, ran = _analysis(db, board, True, monkeypatch)
    slow, slow_moves, none = _analysis(db, board, False, monkeypatch)
    assert none == 0 and ran > 100
    assert fast_moves == slow_moves
    assert _tree_bytes(fast) == _tree_bytes(slow)
    for a, b in zip(fast.tree.scores[1:], slow.tree.scores[1:]):     # type: ignore[index]
        got = a if isinstance(a, np.ndarray) else a.sums
        want = b if isinstance(b, np.ndarray) else b.sums
        assert got.tobytes() == want.tobytes()


def test_searches_the_core_loop_leaves_to_python(db: fp.PatternDatabase,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Scores in the value and dynamic komi keep the Python loop (the core's
    loop knows only wins under the board's komi)."""
    board = fp.Board(9, komi=7.5)
    _, _, ran = _search_threads(db, board, {"score_weight": 0.05}, 1, monkeypatch)
    assert ran == 0
    # Dynamic komi that has moved: the playouts' komi is not the board's.
    _, _, ran = _search_threads(db, board, {"dynamic_komi": 2.0}, 1, monkeypatch, extra=2.0)
    assert ran == 0
    _, _, ran = _search_threads(db, board, {"dynamic_komi": 2.0}, 1, monkeypatch)
    assert ran > 0                            # not moved yet: the game's komi


def _search_threads(db: fp.PatternDatabase, board: fp.Board, options: dict[str, Any],
                    threads: int, monkeypatch: pytest.MonkeyPatch,
                    extra: float = 0.0, visits: int = 300) -> tuple[MCTS, Any, int]:
    with _loop(monkeypatch) as calls:
        search = MCTS(db, SearchConfig(**options), threads=threads, seed=5,
                      resign_threshold=None)
        if extra:
            search.komi_control.extra[board.to_move_code] = extra
        result = search.run(board, visits=visits)
    return search, result, calls[0]


class Setup:
    """A root node of the empty 7x7 board and what tree_simulate needs."""

    def __init__(self, db: fp.PatternDatabase, size: int = 7) -> None:
        self.board = fp.Board(size, komi=7.5)
        points = np.arange(size * size)
        self.root = prior_node(BLACK, points, np.ones(size * size), None, None,
                               1.0, 0.0, 0.5, 0.01, 0.0)
        self.scratch = self.board.copy(history=False)
        self.engine = playout_engine(db)
        self.tally = PlayoutTally(size, True)

    def run(self, **kw: Any) -> tuple[int, int, int, int]:
        args: dict[str, Any] = dict(threshold=1e9, can_expand=True, batch=2, budget=-1,
                                    max_sims=10, seed=3, first=0, tromp_taylor=True,
                                    rave=True, deadline=math.inf)
        args.update(kw)
        return tree_simulate(self.root, self.board, self.scratch, {self.board.zobrist_hash},
                             self.engine, self.tally, PARAMS, args["threshold"],
                             args["can_expand"], args["batch"], args["budget"],
                             args["max_sims"], args["seed"], args["first"],
                             args["tromp_taylor"], args["rave"], args["deadline"],
                             grow=args.get("grow"))


def test_limits_of_one_call(db: fp.PatternDatabase) -> None:
    s = Setup(db)
    assert s.run() == (SIMULATE_DONE, 10, 20, 20)
    assert s.root.sum_n == 20 and s.root.rn.sum() > 0
    assert s.run(budget=5, max_sims=100) == (SIMULATE_DONE, 3, 5, 5)   # 2 + 2 + 1
    assert s.run(budget=0) == (SIMULATE_DONE, 0, 0, 0)
    # A deadline already passed: the first simulation runs, no other.
    assert s.run(deadline=time.perf_counter() - 1.0) == (SIMULATE_DONE, 1, 2, 2)
    assert s.root.sum_n == 27
    # An edge due for a node: Python's simulation, and nothing changed.
    before = s.root.data.copy()
    assert s.run(threshold=0.0) == (SIMULATE_PYTHON, 0, 0, 0)
    assert (s.root.data == before).all()
    # The tree full (no node may be made): playouts at the edge instead.
    assert s.run(threshold=0.0, can_expand=False, max_sims=1) == (SIMULATE_DONE, 1, 2, 2)


def test_grow_makes_nodes_and_the_descent_goes_on(db: fp.PatternDatabase) -> None:
    """With ``grow`` a descent due for a node asks it for one and descends on;
    once ``grow`` says the tree is full, no edge asks again in that call."""
    s = Setup(db)
    made: list[TreeNode] = []

    def grow(board: fp.Board, nodes: list[TreeNode], path: list[int]) -> tuple[TreeNode, bool]:
        parent, i = nodes[-1], path[-1]
        assert parent.children[i] is None and len(nodes) == len(made) + 1
        empty = np.flatnonzero(board.to_numpy().ravel() == 0)
        child = prior_node(board.to_move_code, empty, np.ones(len(empty)), None, None,
                           1.0, 0.0, 0.5, 0.01, float(parent.n[i]))
        parent.children[i] = child
        made.append(child)
        return child, len(made) < 3

    assert s.run(threshold=0.0, grow=grow) == (SIMULATE_DONE, 10, 20, 20)
    assert len(made) == 3                     # the first descent made three, in a line
    assert made[0] is next(c for c in s.root.children if c is not None)
    assert made[1] in made[0].children and made[2] in made[1].children
    edge = s.root.children.index(made[0])
    assert s.root.sum_n == 20 and made[0].sum_n + made[0].base == s.root.n[edge] >= 2
    s = Setup(db)
    with pytest.raises(TypeError):
        s.run(threshold=0.0, grow=lambda board, nodes, path: (None, True))
    with pytest.raises(ZeroDivisionError):    # the callback's own error, unchanged
        s.run(threshold=0.0, grow=lambda board, nodes, path: 1 / 0)


def test_a_simulation_is_its_selection_playouts_and_backup(db: fp.PatternDatabase) -> None:
    """One simulation: the move select() picks, ``batch`` playouts from
    ``first + visits asked before`` on the position after it, their wins
    (draws 1/2) added to that edge."""
    s = Setup(db)
    s.run(max_sims=3, first=100)             # visits 100..105
    edge = s.root.select(PARAMS)
    n_before, w_before = float(s.root.n[edge]), float(s.root.w[edge])
    assert s.run(max_sims=1, first=106) == (SIMULATE_DONE, 1, 2, 2)
    leaf = s.board.copy(history=False)
    leaf.play_index(int(s.root.moves[edge]), BLACK)
    t = PlayoutTally(7, True)
    s.engine.run_into(t, leaf, 2, 3, first=106, tromp_taylor=True)
    assert (int(t.black_wins), int(t.draws), t.hist.tobytes(), t.amaf.tobytes()) \
        == (int(s.tally.black_wins), int(s.tally.draws), s.tally.hist.tobytes(),
            s.tally.amaf.tobytes())
    assert s.root.n[edge] == n_before + 2
    assert s.root.w[edge] == w_before + int(t.black_wins) + 0.5 * int(t.draws)


def test_refusals(db: fp.PatternDatabase) -> None:
    s = Setup(db)
    with pytest.raises(ValueError, match="batch"):
        s.run(batch=0)
    with pytest.raises(TypeError, match="PlayoutTally"):
        tree_simulate(s.root, s.board, s.scratch, set(), s.engine, object(), PARAMS, 1e9,
                      True, 1, -1, 1, 1, 0, True, True, math.inf)
    with pytest.raises(ValueError, match="tally is for"):
        tree_simulate(s.root, s.board, s.scratch, set(), s.engine, PlayoutTally(9, True),
                      PARAMS, 1e9, True, 1, -1, 1, 1, 0, True, True, math.inf)
    with pytest.raises(ValueError, match="scratch board"):
        tree_simulate(s.root, s.board, s.board.copy(), set(), s.engine, s.tally, PARAMS,
                      1e9, True, 1, -1, 1, 1, 0, True, True, math.inf)
    with pytest.raises(ValueError, match="seed"):
        s.run(seed=-1)
    with pytest.raises(ValueError, match="does not fit"):
        tree_simulate(s.root, fp.Board(5), fp.Board(5).copy(history=False), set(), s.engine,
                      PlayoutTally(5, True), PARAMS, 1e9, True, 1, -1, 1, 1, 0, True, True,
                      math.inf)
    for hist, sums in ((np.zeros(99), None), (np.zeros(99), np.zeros((2, 50))),
                       (np.zeros(48), np.zeros((3, 50))), (np.zeros(99), np.zeros((3, 49)))):
        with pytest.raises(ValueError, match="hist"):
            tree_simulate(s.root, s.board, s.scratch, set(), s.engine, s.tally, PARAMS, 1e9,
                          True, 1, -1, 1, 1, 0, True, True, math.inf, hist, sums)
    assert s.root.sum_n == 0              # nothing was backed up


class _Clears:
    """A member of ``seen`` whose ``__eq__`` runs while a descent looks its
    move's position up (a tester's finding: the descent then read a child
    from the emptied list and crashed the interpreter)."""

    def __init__(self, h: int, action: Any) -> None:
        self.h, self.action = h, action

    def __hash__(self) -> int:
        return hash(self.h)

    def __eq__(self, other: object) -> bool:
        self.action()
        return False


def test_python_code_in_a_set_lookup_cannot_break_the_loop(db: fp.PatternDatabase) -> None:
    s = Setup(db)

    def positions(action: Any) -> set[Any]:
        seen: set[Any] = set()
        for i in range(49):
            after = s.board.copy()
            after.play_index(i, BLACK)
            seen.add(_Clears(after.zobrist_hash, action))
        return seen

    def give_children() -> None:
        for i in range(s.root.k):
            s.root.children[i] = prior_node(WHITE, np.arange(4), np.ones(4), None, None,
                                            1.0, 0.0, 0.5, 0.01, 0.0)

    def drop_children() -> None:
        for i in range(s.root.k):
            s.root.children[i] = None

    # Children dropped while the descent looks a position up: it reads the
    # child after the lookups, finds none, and evaluates the leaf (a list
    # emptied there once crashed the interpreter, then was refused).
    give_children()
    tree_simulate(s.root, s.board, s.scratch, positions(drop_children), s.engine,
                  s.tally, PARAMS, 1e9, True, 2, -1, 10, 3, 0, True, True, math.inf)
    assert s.root.extent() == (1, s.root.k) and s.root.sum_n == 20
    s = Setup(db)
    give_children()
    assert tree_descend(s.root, s.scratch, positions(drop_children), set(), [], [],
                        PARAMS, 0.0, 1e9, True) == DESCEND_LEAF
    # Score arrays resized under the loop: refused at the end, nothing
    # written into the freed buffer.
    s = Setup(db)
    hist, sums = np.zeros(99), np.zeros((3, 50))
    with pytest.raises(ValueError, match="hist must be"):
        tree_simulate(s.root, s.board, s.scratch,
                      positions(lambda: hist.resize(10 ** 6, refcheck=False)), s.engine,
                      s.tally, PARAMS, 1e9, True, 2, -1, 10, 3, 0, True, True, math.inf,
                      hist, sums)
    assert not sums.any()


def test_playout_indices_stay_within_max_first(db: fp.PatternDatabase) -> None:
    from fastplay._playout import MAX_FIRST
    s = Setup(db)
    with pytest.raises(ValueError, match="playout index"):
        s.run(first=MAX_FIRST - 3)
    assert s.root.sum_n == 4               # two simulations, then the refusal


@pytest.mark.parametrize("threads", [2, 3, 8])
def test_threads_share_the_core_loop_and_its_counters(db: fp.PatternDatabase,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      threads: int) -> None:
    """Several threads run the core's loop, each simulation reserving its
    visits and playout indices through the search (``reserve``): the visit
    limit is exact, no virtual loss is left, every edge's visits are its
    child's."""
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))
    from stress_threads import check_tree

    for board, visits in ((fp.Board(9, komi=7.5), 600),
                          (fp.Board.from_sgf(shared_path("gnugo-regression", "games", "cgos",
                                                         "42896.sgf"), move_number=24), 900),
                          (fp.Board(5, komi=0.5), 400)):
        search, result, ran = _search_threads(db, board, {}, threads, monkeypatch,
                                              visits=visits)
        assert ran > 0
        assert result.visits == visits
        check_tree(search, visits)


class _RacingMaker:
    """A node maker that looks at the search's lock while it works and, when
    told to, plays another thread that gives the edge its node meanwhile."""

    def __init__(self, lock: Any, parent: TreeNode, i: int, rival: TreeNode | None) -> None:
        self.lock, self.parent, self.i, self.rival = lock, parent, i, rival
        self.saw_lock_held: bool | None = None
        self.release: bool | None = None

    def expand(self, board: fp.Board, base: float, params: TreeParams,
               recent: tuple[int, int] | None = None, release: bool = False,
               depth: int = 0) -> TreeNode:
        self.saw_lock_held = self.lock.locked()
        self.release = release
        if self.rival is not None:
            self.parent.children[self.i] = self.rival
        return prior_node(board.to_move_code, np.arange(4), np.ones(4), None, None,
                          1.0, 0.0, 0.5, 0.01, base)


@pytest.mark.parametrize("rival", [False, True])
def test_a_new_node_is_made_with_the_lock_let_go(rival: bool) -> None:
    """With several threads the search's lock is let go while a new node is
    made.  The node's base is then the edge's visits and the other descents'
    pending ones; if another thread gave the edge a node meanwhile, that node
    is kept and the descent's own pending visits move out of its base."""
    import threading

    from fastplay.search.tree import SearchTree

    board = fp.Board(5)
    parent = prior_node(BLACK, np.arange(25), np.ones(25), None, None, 1.0, 0.0, 0.5, 0.01, 0.0)
    i = 7
    parent.n[i] = 4.0
    parent.vl[i] = 3.0        # 1 of this descent's, 2 of others still on their way
    other = prior_node(WHITE, np.arange(4), np.ones(4), None, None, 1.0, 0.0, 0.5, 0.01, 6.0)
    lock = threading.Lock()
    maker = _RacingMaker(lock, parent, i, other if rival else None)
    tree = SearchTree(nodes=1, edges=26)
    leaf = board.copy()
    leaf.play_index(i, BLACK)
    with lock:
        node = tree.grow(board, leaf, [parent], [i], maker, PARAMS,  # type: ignore[arg-type]
                         1.0, lock)
        assert lock.locked()
    assert maker.saw_lock_held is False and maker.release is True
    assert parent.children[i] is node
    if rival:
        assert node is other and node.base == 5.0 and tree.nodes == 1
    else:
        assert node.base == 6.0 and tree.nodes == 2 and tree.edges == 26 + len(node.moves)
    # Without a lock, nothing changes: made in place, the lock never touched.
    parent.children[i] = None
    maker = _RacingMaker(lock, parent, i, None)
    node = tree.grow(board, leaf, [parent], [i], maker, PARAMS, 1.0)  # type: ignore[arg-type]
    assert maker.saw_lock_held is False and maker.release is False and node.base == 6.0


def test_a_user_prior_is_called_one_node_at_a_time_on_several_threads(
        db: fp.PatternDatabase) -> None:
    """New nodes are made with the lock let go, but not through a user prior:
    a prior that is not thread-safe keeps working with ``threads`` > 1."""
    import threading

    lock, state = threading.Lock(), {"now": 0, "most": 0, "calls": 0}

    def prior(board: fp.Board) -> np.ndarray:
        with lock:
            state["now"] += 1
            state["calls"] += 1
            state["most"] = max(state["most"], state["now"])
        time.sleep(0.001)
        with lock:
            state["now"] -= 1
        return np.ones(board.size * board.size + 1)

    search = MCTS(db, threads=4, seed=1, prior=prior, resign_threshold=None)
    assert search.run(fp.Board(9), visits=1500).visits == 1500
    assert state["calls"] > 20 and state["most"] == 1


_HOSTILE_PREAMBLE = """
import math
import numpy as np
import fastplay as fp
from fastplay._core import BLACK, PlayoutTally, TreeParams, prior_node, tree_simulate
from fastplay._playout import MAX_FIRST
from fastplay.montecarlo import playout_engine
b = fp.Board(7)
root = prior_node(BLACK, np.arange(49), np.ones(49), None, None, 1.0, 0.0, 0.5, 0.01, 0.0)
engine = playout_engine(fp.PatternDatabase.builtin("mc_montegnu_classic"))
params = TreeParams(True, True, False, 1.0, 0.5, 0.1, 1000.0)
leak = []
def make(board, base):
    e = np.flatnonzero(board.to_numpy().ravel() == 0)
    return prior_node(board.to_move_code, e, np.ones(len(e)), None, None, 1.0, 0.0, 0.5, 0.01,
                      base)
def grow(board, nodes, path, n=0):
    leak.append((nodes, path))
    _, visits, vl = nodes[-1].edge(path[-1])
    c = make(board, visits + vl - n)     # as SearchTree.grow: the edge's visits and others'
                                         # virtual loss go to the new node's base
    nodes[-1].children[path[-1]] = c
    path[0] = (path[0] + 1) % 49      # still a path, but not the descent's
    nodes.append("junk")
    return c, True
def run(lock=None, reserve=None):
    return tree_simulate(root, b, b.copy(history=False), set(), engine, PlayoutTally(7, True),
                         params, 1, True, 2, -1, 20, 3, 0, True, True, math.inf, None, None,
                         grow, lock, reserve)
def consistent():
    stack = [root]
    while stack:
        node = stack.pop()
        assert not np.any(node.vl != 0) and node.sum_vl == 0
        for i, c in enumerate(node.children):
            if c is not None:
                assert node.n[i] == c.base + c.n.sum(), (node.n[i], c.base, c.n.sum())
                stack.append(c)
"""


@pytest.mark.parametrize("case", ["lock", "reserve", "grow"])
def test_what_the_second_fresh_tester_broke_is_refused(case: str) -> None:
    """A second fresh tester's findings (2026-12-04), in subprocesses: a lock
    whose acquire() changed lists a grow callback had kept (the back-up read
    them after the playouts: a segfault), a grow that edited the lists it got
    (a tree left inconsistent), and reserve() answers that passed the checks
    (an int subclass lying in comparisons) or left a virtual loss behind."""
    import subprocess
    import sys

    body = {
        "lock": """
class Lock:
    def release(self):
        pass
    def acquire(self):
        for nodes, path in leak:
            path[:] = [10**6] * 3
            nodes.clear()
run(lock=Lock())
consistent()
""",
        "grow": """
counter = [0]
def reserve():
    counter[0] += 2
    return counter[0] - 2, 2
run(reserve=reserve)
run()
consistent()
""",
        "reserve": """
class Evil(int):
    def __le__(self, other): return True
    def __ge__(self, other): return True
    def __lt__(self, other): return True
    def __gt__(self, other): return True
for answer in ((0, Evil(10**6)), (0, Evil(-5)), (Evil(-7), 1), (2**70, 1), (MAX_FIRST + 1, 1),
               (0, 3), (-1, 1), [0, 1], (0,), "x"):
    try:
        run(reserve=lambda answer=answer: answer)
    except ValueError:
        pass
    else:
        raise SystemExit(f"accepted {answer!r}")
    consistent()
""",
    }[case]
    done = subprocess.run([sys.executable, "-c", _HOSTILE_PREAMBLE + body + "\nprint('ok')"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-2000:]


def test_edge_and_forbid_take_only_integer_indices() -> None:
    node = TreeNode(BLACK, [3, 7, -1], [0.5, 0.4, 0.1], 0.0)
    for bad in (2**31, -2**40, 3, -4):
        with pytest.raises(IndexError):
            node.edge(bad)
        with pytest.raises(IndexError):
            node.forbid(bad)
    with pytest.raises(TypeError):
        node.edge(1.5)
    with pytest.raises(TypeError):
        node.forbid(1.5)
    assert node.edge(np.int64(1))[0] == 7
