"""The search as a framework (issue 15): a user's evaluator and prior, the
mixed leaf value, live snapshots, the config object and its errors."""

from __future__ import annotations

import itertools
import threading
import time
from dataclasses import replace

import numpy as np
import pytest

import fastplay as fp
from fastplay.gtp import GTPEngine
from fastplay.search import MCTS, EvaluatorError, PluginError, PriorError, SearchConfig
from fastplay.search.driver import tree_params


@pytest.fixture(scope="module")
def db() -> fp.PatternDatabase:
    return fp.PatternDatabase.builtin("mc_montegnu_classic")


def opening() -> fp.Board:
    """9x9, Black E5, White E3; Black to move."""
    board = fp.Board(9, komi=7.5)
    board.play("E5")
    board.play("E3")
    return board


def constant(boards: list[fp.Board]) -> np.ndarray:
    return np.full(len(boards), 0.5)


def test_a_concentrated_prior_and_a_constant_evaluator_choose_the_prior_move(db):
    """mix=0: no playout at all; the prior alone steers the search."""
    target = fp.parse_vertex("C7", 9)

    def prior(board: fp.Board) -> np.ndarray:
        p = np.zeros(board.size * board.size + 1)
        if board.get("C7") is None and board.to_move == "B":
            p[target] = 1.0
        else:
            p[:-1] = 1.0
        return p

    search = MCTS(db, SearchConfig(mix=0.0), seed=1, evaluator=constant, prior=prior)
    result = search.run(opening(), visits=300)
    assert result.best_move == "C7"
    assert result.playouts == 0 and result.visits == 300
    assert result.children[0].prior > 0.98
    assert not result.ownership.any()      # no playouts: no ownership


def test_the_evaluator_speaks_for_the_side_to_move(db):
    """"The side to move loses after Black G7": Black chooses G7.  Were the
    values taken as Black's, G7 would look lost for Black and be avoided."""

    def evaluator(boards: list[fp.Board]) -> list[float]:
        values = []
        for board in boards:
            if board.get("G7") == "B":
                values.append(0.0 if board.to_move == "W" else 1.0)
            else:
                values.append(0.5)
        return values

    for mix in (0.0, 0.5):
        search = MCTS(db, SearchConfig(mix=mix, prior_table=None), seed=3, evaluator=evaluator)
        result = search.run(opening(), visits=2000)
        assert result.best_move == "G7", (mix, result.children[:3])
        assert result.winrate > 0.7
        assert (result.playouts == 0) == (mix == 0.0)


def test_the_mix_weighs_evaluator_and_rollouts(db):
    """mix=0.5: each visit's value is (v + z) / 2.  With the tree kept to the
    root (no expansion), every leaf has White to move; an evaluator sure that
    the side to move wins (v = 0 for Black) or loses (v = 1 for Black) puts
    each root move's win rate at z / 2 or 1/2 + z / 2, z its rollouts' share
    of Black wins: so twice the win rate times the visits is a whole number
    of playouts won."""
    board = opening()
    config = SearchConfig(mix=0.5, expand_threshold=10**6, batch=1)
    for v_white, low, high in ((1.0, 0.0, 0.5), (0.0, 0.5, 1.0)):
        def evaluator(boards: list[fp.Board]) -> np.ndarray:
            assert all(b.to_move == "W" for b in boards)
            return np.full(len(boards), v_white)

        result = MCTS(db, config, seed=5, evaluator=evaluator).run(board, visits=400)
        assert result.playouts == 400
        for child in result.children:
            if child.visits:
                assert low <= child.winrate <= high
                won = 2 * (child.winrate - low) * child.visits
                assert won == pytest.approx(round(won), abs=1e-9)


def test_evaluator_batches_with_two_threads(db):
    sizes: list[int] = []
    lock = threading.Lock()

    def evaluator(boards: list[fp.Board]) -> np.ndarray:
        with lock:
            sizes.append(len(boards))
        time.sleep(0.0005)   # as a model would: the other thread runs meanwhile
        return np.full(len(boards), 0.5)

    config = SearchConfig(mix=0.5, eval_batch=8)
    result = MCTS(db, config, threads=2, seed=1, evaluator=evaluator).run(opening(), visits=800)
    assert max(sizes) > 1 and max(sizes) <= 8
    assert result.visits == 800 and sum(sizes) <= 800
    root_visits = sum(c.visits for c in result.children)
    assert root_visits == 800


@pytest.mark.parametrize("bad, problem", [
    (lambda boards: [float("nan")] * len(boards), "NaN"),
    (lambda boards: [0.5] * (len(boards) + 1), "shape"),
    (lambda boards: [1.5] * len(boards), "outside"),
    (lambda boards: 1 / 0, "ZeroDivisionError"),
])
def test_a_broken_evaluator_stops_the_search_with_a_named_error(db, bad, problem):
    search = MCTS(db, SearchConfig(mix=0.0), seed=1, evaluator=bad)
    with pytest.raises(EvaluatorError, match=problem) as info:
        search.run(opening(), visits=100)
    assert isinstance(info.value, ValueError) and "evaluator" in str(info.value)
    assert search.root is None            # the half-backed-up tree is dropped
    search.evaluator = constant           # the object stays usable
    assert search.run(opening(), visits=50).visits == 50


@pytest.mark.parametrize("bad, problem", [
    (lambda board: np.zeros(10), "shape"),
    (lambda board: np.full(82, np.nan), "NaN"),
    (lambda board: np.full(82, -1.0), "negative"),
    (lambda board: np.zeros(82), "no weight"),
    (lambda board: {}["x"], "KeyError"),
    (lambda board: [1] * 81 + [10**400], "too large"),      # was a bare OverflowError
])
def test_a_broken_prior_stops_the_search_with_a_named_error(db, bad, problem):
    search = MCTS(db, seed=1, prior=bad)
    with pytest.raises(PriorError, match=problem) as info:
        search.run(opening(), visits=100)
    assert isinstance(info.value, PluginError) and "prior" in str(info.value)


def _visited(node) -> set[int]:
    """Flat indices of the moves visited anywhere below ``node`` (its own included)."""
    out: set[int] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        out |= {int(m) for m, n in zip(current.moves, current.n) if n > 0}
        stack.extend(c for c in current.children if c is not None)
    return out


def test_forbid_keeps_moves_out_of_every_node(db):
    """``forbid``: the named moves are never searched, at any depth, with
    RAVE on (a prior of 0 did not keep them out), and the rest of the search
    is a search as usual."""
    board = opening()
    banned = {board.size * r + c for r in range(2, 7) for c in range(2, 7)}   # C3-G7
    search = MCTS(db, seed=1, forbid=lambda b, depth: banned)
    result = search.run(board, visits=1500)
    assert result.visits == 1500 and search.root is not None
    assert not _visited(search.root) & banned
    assert fp.board.parse_vertex(result.best_move, 9) not in banned
    # Nor do the rules beyond the tree choose one: the opening book's E5 on
    # the empty board (a tester's finding).
    empty = MCTS(db, seed=1, forbid=lambda b, depth: [40]).run(fp.Board(9), visits=300)
    assert empty.best_move not in ("E5", "pass") and empty.best_move == empty.children[0].move
    assert empty.rule == "forbid"          # the book's move was replaced
    info = list(MCTS(db, seed=1, forbid=lambda b, depth: [40]).analyze(fp.Board(9), visits=300))
    assert info[-1].final and info[-1].best_move == empty.best_move
    assert info[-1].rule == "forbid" and all(i.rule == "visits" for i in info[:-1])


def _nodes_by_depth(root) -> dict[int, list]:
    out: dict[int, list] = {}
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        out.setdefault(depth, []).append(node)
        stack.extend((c, depth + 1) for c in node.children if c is not None)
    return out


def test_forbid_is_told_each_node_s_depth(db):
    """The plug-in gets each new node's depth in plies below the root (a
    node's board inside the tree carries no history, so its move number
    cannot tell: a tester found every rule held at every depth): E5
    forbidden at depth 2 only is searched at the root, never two plies down."""
    seen: set[int] = set()

    def forbid(board: fp.Board, depth: int) -> list[int]:
        seen.add(depth)
        return [40] if depth == 2 else []

    search = MCTS(db, seed=1, resign_threshold=None, forbid=forbid)
    board = fp.Board(9)
    board.play("C3")                                  # a root with a history
    search.run(board, visits=3000)
    levels = _nodes_by_depth(search.root)
    assert {0, 1, 2, 3} <= seen and len(levels[2]) > 3
    root = search.root
    assert root.n[list(root.moves).index(40)] > 0
    for node in levels[2]:
        assert 40 not in {int(m) for m, n in zip(node.moves, node.n) if n > 0}
    assert any(40 in {int(m) for m, n in zip(node.moves, node.n) if n > 0}
               for node in levels[1] + levels.get(3, []))


def test_forbid_cannot_change_under_a_running_search(db):
    """Assigning ``forbid`` while an analysis runs is refused (a tester's
    finding: the search lost its tree and failed an assertion); between
    searches it drops the tree."""
    search = MCTS(db, seed=1)
    analysis = search.analyze(fp.Board(9), visits=20000, interval=0.05)
    next(analysis)
    with pytest.raises(RuntimeError, match="already searching"):
        search.forbid = lambda b, d: [40]
    analysis.close()
    search.run(fp.Board(9), visits=100)
    assert search.root is not None
    search.forbid = lambda b, d: [40]
    assert search.root is None and search.forbid is not None


@pytest.mark.parametrize("ending", ["", "sys.exit(0)", "raise ValueError('boom')"])
def test_a_script_ending_with_an_open_analysis_exits(ending: str) -> None:
    """A script that ended with an analysis generator still open (held in a
    variable after ``next`` or a ``break``) never exited: the generator's
    clean-up ran as the interpreter finalised its modules and waited for a
    daemon thread that no longer ran (a tester).  The exit stops it first."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(f"""
        import sys
        import fastplay as fp
        from fastplay.search import MCTS
        search = MCTS(fp.PatternDatabase.builtin("mc_montegnu_classic"), seed=1)
        held = search.analyze(fp.Board(9), seconds=60, interval=0.02)
        for info in held:
            break
        try:
            search.run(fp.Board(9), visits=10)
        except RuntimeError as exc:
            print("busy:", exc)
        {ending}
    """)
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert time.monotonic() - started < 30
    assert "close() it" in done.stdout and "break" in done.stdout
    assert done.returncode == (1 if "raise" in ending else 0), done.stderr
    assert ("ValueError: boom" in done.stderr) == ("raise" in ending)


def test_an_analysis_in_a_daemon_thread_ends_quietly_at_exit() -> None:
    """An analysis iterated in a daemon thread when the script ends: the
    exit's stop made its generator fall through to an assertion (a
    traceback on stderr, a tester); it now ends quietly."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent("""
        import threading, time
        import fastplay as fp
        from fastplay.search import MCTS
        search = MCTS(fp.PatternDatabase.builtin("mc_montegnu_classic"), seed=1)
        def follow():
            for info in search.analyze(fp.Board(9), interval=0.05):
                pass
        threading.Thread(target=follow, daemon=True).start()
        time.sleep(0.5)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and done.stderr == "", done.stderr


def test_forbid_leaves_the_pass_when_it_names_every_move(db):
    """Every move named, or every move but the pass: the pass is searched,
    in the opening too (where the search forbids it itself otherwise)."""
    board = opening()
    everything = set(range(-1, 81))
    for banned in (everything, everything - {-1}):
        search = MCTS(db, seed=1, forbid=lambda b, depth, banned=banned: banned)
        result = search.run(board, visits=200)
        assert result.best_move == "pass" and [c.move for c in result.children] == ["pass"]
        assert result.children[0].visits == 200


@pytest.mark.parametrize("bad, problem", [
    (lambda board, depth: [81], "outside -1..80"),
    (lambda board, depth: [1.5], "named 1.5 .float., not a flat move index"),
    (lambda board, depth: 7, "returned int, not an iterable"),
    (lambda board, depth: {}["x"], "KeyError"),
    (lambda board, depth: itertools.count(), "outside -1..80"),
    (lambda board, depth: [False] * 81, "bool"),
    (lambda board, depth: itertools.repeat(3), "more than 328 moves"),
    (lambda board: [3], "raised TypeError"),      # the plug-in takes the depth too
])
def test_a_broken_forbid_stops_the_search_with_a_named_error(db, bad, problem):
    with pytest.raises(PriorError, match=problem) as info:
        MCTS(db, seed=1, forbid=bad).run(opening(), visits=50)
    assert "forbid" in str(info.value)
    with pytest.raises(TypeError, match="forbid must be callable"):
        MCTS(db, forbid=3)   # type: ignore[arg-type]


def test_the_gtp_engine_answers_a_plugin_error_and_keeps_running(db):
    def nan(boards: list[fp.Board]) -> list[float]:
        return [float("nan")] * len(boards)

    engine = GTPEngine(MCTS(db, SearchConfig(mix=0.0), seed=1, evaluator=nan), playouts=50,
                       size=9)
    answer = engine.handle("genmove b")
    assert answer.startswith("?") and "NaN" in answer and "evaluator" in answer
    assert engine.handle("name").startswith("=")
    assert engine.handle("play b E5").startswith("=")


def test_analyze_streams_snapshots_and_ends_with_the_answer_of_run(db):
    board = opening()
    infos = list(MCTS(db, seed=2).analyze(board, seconds=0.8, interval=0.1))
    assert len(infos) >= 4 and infos[-1].final and not any(i.final for i in infos[:-1])
    visits = [i.visits for i in infos]
    assert visits == sorted(visits) and visits[0] > 0
    for info in infos:
        best = info.children[0]
        assert [c.order for c in info.children] == list(range(len(info.children)))
        assert 0 <= best.lcb <= best.winrate <= 1 and best.pv[0] == best.move
        assert info.ownership.shape == (9, 9) and info.ownership.dtype == np.float32
        assert info.score_stdev > 0 and info.to_move == "B"
    # The final snapshot is run's answer for the same seed and visits.
    final = list(MCTS(db, seed=4).analyze(board, visits=3000, interval=0.05))[-1]
    result = MCTS(db, seed=4).run(board, visits=3000)
    assert final.best_move == result.best_move and final.visits == result.visits == 3000
    assert [(c.move, c.visits, c.winrate) for c in final.children] == \
        [(c.move, c.visits, c.winrate) for c in result.children]
    assert np.array_equal(final.ownership, result.ownership)


def test_leaving_the_analysis_loop_stops_the_search_promptly(db):
    search = MCTS(db, seed=1)
    board = opening()
    for info in search.analyze(board, interval=0.05):   # no limit: runs until left
        if info.visits > 500:
            break
    start = time.perf_counter()
    generator = search.analyze(board, interval=0.05)
    next(generator)
    generator.close()
    assert time.perf_counter() - start < 0.05 + 0.05 + 0.2   # one interval, then the stop
    stop = time.perf_counter()
    generator = search.analyze(board, seconds=30, interval=0.02)
    next(generator)
    stop = time.perf_counter()
    generator.close()
    assert time.perf_counter() - stop < 0.05
    # The object is free again, and the tree is kept.
    assert search.run(board, visits=100).visits == 100


def test_analyze_checks_its_arguments_at_the_call(db):
    search = MCTS(db)
    with pytest.raises(ValueError, match="interval"):
        search.analyze(opening(), interval=0)
    with pytest.raises(TypeError, match="not both"):
        search.analyze(opening(), visits=10, playouts=10)
    with pytest.raises(ValueError, match="visits"):
        search.run(opening(), visits=0)
    # A tester's three: numpy's integers as everywhere else, a callback that
    # is not callable named, a prior that is neither name, path nor table.
    infos = list(search.analyze(opening(), visits=30, min_moves=np.int64(3)))
    assert len(infos[-1].children) >= 3
    with pytest.raises(TypeError, match="callback"):
        search.run(opening(), visits=10, callback=5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="bundled name"):   # at construction now
        SearchConfig(prior_table=5)


def test_config_is_frozen_validated_and_replaced(db):
    config = SearchConfig(c_puct=2.0)
    with pytest.raises(AttributeError):
        config.c_puct = 3.0  # type: ignore[misc]
    with pytest.raises(ValueError, match="mix"):
        replace(config, mix=1.5)
    with pytest.raises(ValueError, match="eval_batch"):
        SearchConfig(eval_batch=0)
    with pytest.raises(ValueError, match="needs an evaluator"):
        MCTS(db, SearchConfig(mix=0.5))
    with pytest.raises(TypeError, match="unknown search option"):
        MCTS(db, c_pcut=1.0)
    with pytest.raises(TypeError, match="callable"):
        MCTS(db, evaluator=0.5)  # type: ignore[arg-type]
    search = MCTS(db, config, rave_equiv=500.0)
    assert search.config == replace(config, rave_equiv=500.0)
    search.c_puct = 1.5                    # the old attribute style: validated
    assert search.config.c_puct == 1.5
    with pytest.raises(ValueError, match="c_puct"):
        search.c_puct = -1.0
    assert search.config.c_puct == 1.5
    zero = SearchConfig(ancestor_amaf=-0.0, fpu_reduction=-0.0).ancestor_amaf
    assert str(zero) == "0.0" and str(SearchConfig(fpu_reduction=-0.0).fpu_reduction) == "0.0"


def test_playouts_and_visits_are_one_limit(db):
    board = opening()
    a = MCTS(db, seed=9).run(board, playouts=500)
    b = MCTS(db, seed=9).run(board, visits=500)
    assert a.visits == b.visits == 500 and a.children == b.children


def test_mix_one_is_the_rollout_search_and_leaves_the_evaluator_alone(db):
    calls: list[int] = []

    def evaluator(boards: list[fp.Board]) -> np.ndarray:
        calls.append(len(boards))
        return np.full(len(boards), 0.5)

    board = opening()
    with_evaluator = MCTS(db, seed=6, evaluator=evaluator).run(board, visits=600)
    plain = MCTS(db, seed=6).run(board, visits=600)
    assert calls == [] and with_evaluator.children == plain.children


# -- a tester's findings ---------------------------------------------------------


def test_an_evaluator_gets_boards_of_its_own_with_the_games_moves(db):
    """Changing the boards it gets cannot flip the values; the boards carry
    the game's moves (a network may want the last ones)."""
    seen: list[int] = []

    def to_move_wins(boards: list[fp.Board]) -> np.ndarray:
        return np.array([1.0 if b.to_move == "B" else 0.0 for b in boards])

    def mutating(boards: list[fp.Board]) -> np.ndarray:
        values = to_move_wins(boards)
        for b in boards:
            seen.append(b.move_number)
            b.play("pass")
        return values

    board = opening()
    plain = MCTS(db, SearchConfig(mix=0.0), seed=1, evaluator=to_move_wins).run(board, visits=300)
    mutated = MCTS(db, SearchConfig(mix=0.0), seed=1, evaluator=mutating).run(board, visits=300)
    assert plain.winrate == mutated.winrate and plain.children == mutated.children
    assert min(seen) >= board.move_number + 1


def test_a_prior_without_the_pass_still_lets_the_pass_be_played(db):
    def no_pass(board: fp.Board) -> np.ndarray:
        return np.r_[np.ones(board.size ** 2), 0.0]

    result = MCTS(db, seed=1, prior=no_pass).run(fp.Board(2, komi=0.5), visits=200)
    assert result.visits == 200
    # Black everywhere but two eyes: only the pass is a candidate.
    board = fp.Board(5, komi=0.5)
    board.setup(black=[v for v in (f"{c}{r}" for c in "ABCDE" for r in range(1, 6))
                       if v not in ("B4", "D2")], to_move="B")
    assert MCTS(db, seed=1, prior=no_pass).run(board, visits=50).best_move == "pass"


def test_a_result_shows_priors_as_short_decimals(db):
    """The tree keeps priors as float32; a result writes each as the
    shortest decimal that reads back as it (0.2, not 0.20000000298023224:
    a tester read the analysis protocol's ``prior`` fields so)."""
    result = MCTS(db, seed=1, prior=lambda b: np.ones(5)).run(fp.Board(2), visits=50)
    priors = [c.prior for c in result.children]
    assert priors and all(p == 0.2 for p in priors)
    assert all(np.float32(p) == np.float32(0.2) for p in priors)


def test_prior_weights_of_any_finite_scale_work(db):
    for scale in (1e-200, 1e200, 1e308):
        def prior(board: fp.Board, scale: float = scale) -> np.ndarray:
            return np.full(board.size ** 2 + 1, scale)

        for power in (1.0, 2.0):
            result = MCTS(db, SearchConfig(prior_power=power), seed=1, prior=prior).run(
                opening(), visits=100)
            priors = [c.prior for c in result.children]
            assert all(p > 0 for p in priors) and result.visits == 100


def test_plugins_can_be_replaced_between_searches(db):
    calls: list[int] = []

    def prior(board: fp.Board) -> np.ndarray:
        calls.append(1)
        return np.ones(board.size ** 2 + 1)

    search = MCTS(db, seed=1)
    search.prior = prior
    search.run(opening(), visits=100)
    assert calls
    calls.clear()
    search.prior = None
    search.new_game()
    search.run(opening(), visits=100)
    assert not calls
    mixed = MCTS(db, SearchConfig(mix=0.5), seed=1, evaluator=constant)
    with pytest.raises(ValueError, match="needs an evaluator"):
        mixed.evaluator = None
    with pytest.raises(TypeError, match="callable"):
        mixed.prior = "uniform"  # type: ignore[assignment]


@pytest.mark.parametrize("size, config, threads, visits", [
    (9, SearchConfig(batch=64), 2, 100), (9, SearchConfig(batch=500), 2, 7),
    (9, SearchConfig(), 2, 1000), (19, SearchConfig(), 1, 10),
])
def test_the_visit_limit_is_exact(db, size, config, threads, visits):
    board = fp.Board(size, komi=7.5)
    board.play("D4")
    result = MCTS(db, config, threads=threads, seed=1).run(board, visits=visits)
    assert result.visits == visits and sum(c.visits for c in result.children) == visits


def test_an_analysis_leaves_the_game_alone(db):
    """No resignation counted, no new game while it is open, and without a
    limit it refines a full tree instead of stopping."""
    board = opening()
    # Resign after two low searches in a row (every search is low at threshold 1).
    search = MCTS(db, SearchConfig(resign_threshold=1.0, resign_moves=2, max_nodes=50), seed=1)
    board_late = fp.Board(9, komi=7.5)
    for move in "E5 C3 G4 C6 F7 D4 C5 B5 D5 B4 E3 D3 E4 F3 G3 F2 C4 B3 G2 F4 F5 G5".split():
        board_late.play(move)
    for _ in range(2):
        assert list(search.analyze(board_late, visits=200))[-1].best_move != "resign"
    assert search.run(board_late, visits=200).best_move != "resign"   # the first low search
    assert search.run(board_late, visits=200).best_move == "resign"
    search.new_game()
    generator = search.analyze(board, interval=0.05)
    infos = [next(generator) for _ in range(6)]   # 0.3 s with a 50-node tree
    with pytest.raises(RuntimeError, match="new game"):
        search.new_game()
    generator.close()
    assert infos[-1].visits > infos[0].visits and not infos[-1].final
    search.new_game()
    assert len(list(search.analyze(board, visits=50, interval=1e300))) == 1


@pytest.mark.parametrize("answer, problem", [
    (["0.5"], "<U3"), ([True], "bool"), ([0.5 + 0j], "complex"), ({"a": 0.5}, "dict"),
    ((x for x in [0.5]), "generator"), ([10**400], "too large"),
])
def test_an_evaluator_must_return_real_numbers(db, answer, problem):
    search = MCTS(db, SearchConfig(mix=0.0, eval_batch=1), seed=1,
                  evaluator=lambda boards: answer)
    with pytest.raises(EvaluatorError, match=problem) as info:
        search.run(opening(), visits=10)
    assert "returned" in str(info.value)


def test_memory_errors_are_not_taken_for_bad_values(db):
    def hungry(boards: list[fp.Board]) -> np.ndarray:
        raise MemoryError("out of memory")

    with pytest.raises(MemoryError):
        MCTS(db, SearchConfig(mix=0.0), seed=1, evaluator=hungry).run(opening(), visits=10)


def test_results_and_snapshots_draw_themselves_in_a_notebook(db):
    board = opening()
    result = MCTS(db, seed=1).run(board, visits=200)
    info = list(MCTS(db, seed=1).analyze(board, visits=200))[-1]
    for shown in (result, info):
        svg = shown._repr_svg_()
        assert svg is not None and svg.startswith("<svg") and result.children[0].move in svg
        assert shown.position == board and shown.position is not board
    board.play("C3")                       # the picture keeps the position searched
    assert result.position is not None and result.position.get("C3") is None


def test_the_tree_stops_growing_at_its_memory_budget(db):
    """A long analysis of 19x19 must not eat the machine: the tree stops
    growing at ``max_memory`` (NODE_BYTES a node, EDGE_BYTES per move) and the
    search goes on refining it."""
    from fastplay.search.config import EDGE_BYTES, NODE_BYTES

    board = fp.Board(19, komi=7.5)
    board.play("D4")
    budget = 1 << 20
    search = MCTS(db, SearchConfig(max_memory=budget), seed=1)
    result = search.run(board, visits=3000)
    assert result.visits == 3000
    low, high = (NODE_BYTES + k * EDGE_BYTES for k in (300, 361))   # moves a node here
    assert (result.nodes - 1) * low < budget <= (result.nodes + 1) * high
    with pytest.raises(ValueError, match="max_memory"):
        SearchConfig(max_memory=1000)


@pytest.mark.skipif(not hasattr(__import__("signal"), "pthread_kill"), reason="POSIX signals")
def test_an_analysis_cut_by_ctrl_c_lets_go_only_after_its_search_stopped(db):
    """A Ctrl-C while the caller waits for an analysis's next report: the
    KeyboardInterrupt comes out only once the search thread is out of the
    tree (here: inside a slow evaluator).  With ``Thread.join`` the
    interrupted join marked the running thread ended (python/cpython#90882)
    and the analysis let go at once, with its search still running."""
    import signal

    inside = [0]

    def slow(boards: list[fp.Board]) -> list[float]:
        inside[0] += 1
        try:
            time.sleep(0.4)
            return [0.5] * len(boards)
        finally:
            inside[0] -= 1

    search = MCTS(db, SearchConfig(mix=0.5, prior_table=None), seed=1, evaluator=slow)
    main = threading.main_thread().ident
    assert main is not None
    threading.Timer(0.6, signal.pthread_kill, (main, signal.SIGINT)).start()
    with pytest.raises(KeyboardInterrupt):
        # The clock ends it if the Ctrl-C never comes (it then fails in 30 s,
        # not after the 500 s that 10,000 visits of this evaluator take).
        for _ in search.analyze(fp.Board(9), visits=10_000, seconds=30.0, interval=5.0):
            pass
    assert inside[0] == 0
    assert search.run(fp.Board(9), visits=20).playouts > 0     # not busy, tree usable


def test_an_analysis_stop_event_stops_its_search_without_the_caller(db):
    """``analyze(stop=event)`` (GTP's ``lz-analyze`` ends on new input): once
    the event is set the search itself stops at its next look at its
    limits, while the caller is not iterating (before, the search ran on
    until the caller's next wake-up, up to 20 ms later, and on for as long
    as the caller did not come back); the analysis then ends without a
    final report."""
    search = MCTS(db, seed=1)
    stop = threading.Event()
    infos = search.analyze(fp.Board(9), stop=stop, interval=0.05)
    first = next(infos)
    assert not first.final
    stop.set()
    time.sleep(0.3)            # the caller is away: nothing looks at the event but the search
    root = search.tree.root
    assert root is not None
    visits = root.visits
    time.sleep(0.3)
    assert root.visits == visits
    assert list(infos) == []
    assert search.run(fp.Board(9), visits=20).playouts > 0     # not busy, tree usable


def test_a_snapshot_before_any_root_visit_is_no_report() -> None:
    """A CI failure (the full suite on a loaded machine): a ``kata-analyze``
    report came before the fresh tree's first playout and showed one
    unvisited move with no score.  Until a root move has a visit there is
    nothing to report, unless ``min_moves`` asks for unvisited moves."""
    from types import SimpleNamespace

    from fastplay.search.loop import SearchState
    from fastplay.search.snapshot import snapshot

    search = MCTS(fp.PatternDatabase.default(), seed=1)
    board = fp.Board(9)
    tree = search._tree
    tree.prepare(board, search._maker, tree_params(search.config, board.size, search.prior is not None))
    loop = SimpleNamespace(state=SearchState(81))
    assert snapshot(loop, tree, board, time.perf_counter()) is None  # type: ignore[arg-type]
    shown = snapshot(loop, tree, board, time.perf_counter(), min_moves=3)  # type: ignore[arg-type]
    assert shown is not None and [c.visits for c in shown.children] == [0, 0, 0]
    search.run(board, visits=50)
    shown = snapshot(search._live, tree, board, time.perf_counter())
    assert shown is not None and shown.children[0].visits > 0


@pytest.mark.parametrize("threads", [1, 2])
def test_live_snapshots_agree_with_the_tree_mid_chunk(threads: int) -> None:
    """A tester's finding: the compiled loop backed each simulation up at
    once but added its scores and counts only after its chunk of 16, so a
    snapshot showed moves with visits and no score (197 on an empty 19x19
    board), a visit count below the moves' visits, and (dividing by that
    count) ownership beyond 1."""
    search = MCTS(fp.PatternDatabase.default(), threads=threads, seed=1)
    shown = 0
    for info in search.analyze(fp.Board(19), visits=1200, interval=0.002):
        visited = [c for c in info.children if c.visits]
        assert all(np.isfinite(c.score_mean) and c.score_stdev >= 0 for c in visited), \
            [c.move for c in visited if not np.isfinite(c.score_mean)]
        assert sum(c.visits for c in visited) <= info.visits
        assert np.abs(info.ownership).max() <= 1.0
        shown += 1
    assert shown > 3


def test_snapshots_leave_the_search_most_of_the_time() -> None:
    """A tester's finding: with ``interval=0.0001`` snapshots ran back to
    back, each holding the lock for 1-6 ms, and a 200-visit search took
    10-22 s (38,000 snapshots).  The next snapshot now waits at least
    SNAPSHOT_GAP times as long as the last took."""
    from fastplay.search.snapshot import SNAPSHOT_GAP, next_due

    assert SNAPSHOT_GAP >= 1
    assert next_due(10.0, 0.5, 10.1, 0.001) == 10.5                  # the interval rules
    assert next_due(10.0, 0.0001, 10.1, 0.002) == pytest.approx(10.1 + SNAPSHOT_GAP * 0.002)
    assert next_due(10.0, 0.0001, 12.0, 0.0) == 12.0                 # never in the past
    search = MCTS(fp.PatternDatabase.default(), seed=1)
    infos = list(search.analyze(fp.Board(9), visits=400, interval=0.0001))
    assert infos[-1].final and infos[-1].visits == 400
    # Each snapshot costs at least ~1 ms here, so snapshots come at most
    # one per (1 + SNAPSHOT_GAP) ms of search: far fewer than the old
    # tens of thousands however slow the machine.
    assert len(infos) < 2000, len(infos)
