"""Contracts of the Python API that a fresh tester found broken (2026-12-06,
tester A of the sixteenth session): equality and pickling of results,
refusals with the documented exception types, and clear messages."""

from __future__ import annotations

import copy
import pickle
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import fastplay as fp
from fastplay.search import MCTS, SearchConfig
from fastplay.search.errors import PriorError


@pytest.fixture(scope="module")
def db() -> fp.PatternDatabase:
    return fp.PatternDatabase.builtin("mc_montegnu_classic")


@pytest.fixture
def board() -> fp.Board:
    b = fp.Board(9, komi=6.5, superko=True)
    b.play("E5")
    b.play("C3")
    return b


def test_results_compare_equal_from_one_seed(db: fp.PatternDatabase, board: fp.Board) -> None:
    """``==`` raised ValueError (numpy arrays in the fields); wall time is not compared."""
    first = MCTS(db, seed=1).run(board, visits=300)
    second = MCTS(db, seed=1).run(board, visits=300)
    assert first == second and not first != second and first in [second]
    assert first == copy.deepcopy(first)            # NaN win rates of unvisited moves
    assert first != MCTS(db, seed=2).run(board, visits=300)
    assert fp.playouts(board, db, 100, seed=1) == fp.playouts(board, db, 100, seed=1)
    assert fp.playouts(board, db, 100, seed=1) != fp.playouts(board, db, 100, seed=2)
    table = np.ones((1108, 256))
    assert SearchConfig(prior_table=table) == SearchConfig(prior_table=table.copy())
    assert SearchConfig(prior_table=table) != SearchConfig(prior_table=2 * table)
    assert hash(SearchConfig(c_puct=1.0)) == hash(SearchConfig(c_puct=1.0))
    last = [list(MCTS(db, seed=1).analyze(board, visits=200, interval=0.01))[-1]
            for _ in range(2)]
    assert last[0] == last[1]


def test_results_pickle_with_their_position(db: fp.PatternDatabase, board: fp.Board) -> None:
    """A result holds its Board (a tester found that a process pool could
    not return one when Boards refused pickling); the position comes back
    exact, rules and history included."""
    result = MCTS(db, seed=1).run(board, visits=200)
    back = pickle.loads(pickle.dumps(result))
    assert back == result and type(back) is type(result)
    assert back.position == board and back.position.superko and back.position.komi == 6.5
    assert back.position.history == board.history
    info = list(MCTS(db, seed=1).analyze(board, visits=100, interval=0.01))[-1]
    assert pickle.loads(pickle.dumps(info)) == info
    stats = fp.playouts(board, db, 50, seed=1, amaf=True)
    assert pickle.loads(pickle.dumps(stats)) == stats
    deep = copy.deepcopy(result)
    assert deep.position == result.position and deep.position is not result.position


@pytest.mark.parametrize("answer, said", [
    (None, "returned NoneType, not an iterable"),
    ("D4", "returned str, not an iterable"),
    (["D4"], r"named 'D4' \(str\), not a flat move index"),
    ([1.5], r"named 1.5 \(float\), not a flat move index"),
])
def test_a_forbid_plugin_that_returns_the_wrong_thing_is_told_so(
        db: fp.PatternDatabase, board: fp.Board, answer: Any, said: str) -> None:
    """It was reported as having raised the TypeError of fastplay's own conversion."""
    with pytest.raises(PriorError, match=said):
        MCTS(db, forbid=lambda b, d: answer, seed=1).run(board, visits=30)


@pytest.mark.parametrize("options", [
    {"batch": "x"}, {"batch": 1.5}, {"rave": None}, {"book": 1}, {"race_reading": "x"},
    {"widen_ties": 1}, {"policy": None}, {"scoring": 1.5}, {"expand_threshold": "x"},
    {"prior_table": 5}, {"prior_table": True}, {"opponent_prior": 2.5},
])
def test_an_option_of_the_wrong_type_is_a_type_error(options: dict[str, Any]) -> None:
    """As SearchConfig's docstring says (several were ValueError)."""
    with pytest.raises(TypeError, match=next(iter(options))):
        SearchConfig(**options)


@pytest.mark.parametrize("table", [np.zeros(3), [], ["gnugo9x9"], -np.ones((1108, 256)),
                                   np.full((1108, 256), np.nan)])
def test_a_prior_table_is_checked_whole_at_construction(table: Any) -> None:
    """A table of the wrong shape or weights was refused only at run()."""
    with pytest.raises(ValueError, match="prior_table: .*(shape|weights)"):
        SearchConfig(prior_table=table)
    with pytest.raises(ValueError, match="opponent_prior"):
        SearchConfig(opponent_prior=table)


@pytest.mark.parametrize("options", [{"batch": 0}, {"policy": "x"}, {"scoring": "area"},
                                     {"opponent_prior": "nope"}, {"prior_table": ""},
                                     {"prior_table": "x" * 5000}, {"prior_table": "a\0b"}])
def test_an_option_out_of_range_is_a_value_error(options: dict[str, Any]) -> None:
    """Validated at construction: a prior name was only refused by MCTS."""
    with pytest.raises(ValueError, match=next(iter(options))):
        SearchConfig(**options)


def test_analyze_checks_its_arguments_at_the_call(db: fp.PatternDatabase,
                                                  board: fp.Board) -> None:
    """``stop=5`` failed at the first ``next()`` with an AttributeError."""
    search = MCTS(db, seed=1)
    with pytest.raises(TypeError, match="stop"):
        search.analyze(board, visits=10, stop=5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="interval"):
        search.analyze(board, visits=10, interval="0.1")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="interval"):
        search.analyze(board, visits=10, interval=0.0)


def test_a_misspelled_option_attribute_is_refused(db: fp.PatternDatabase) -> None:
    """``search.c_pucct = 3`` made an attribute nothing read."""
    search = MCTS(db)
    search.c_puct = 1.25
    assert search.config.c_puct == 1.25
    search.threads = 2
    with pytest.raises(AttributeError, match="did you mean c_puct"):
        search.c_pucct = 3.0  # type: ignore[attr-defined]
    with pytest.raises(AttributeError, match="no option or attribute 'label'"):
        search.label = "mine"  # type: ignore[attr-defined]


def test_a_subclass_sets_attributes_of_its_own(db: fp.PatternDatabase) -> None:
    """Only MCTS itself refuses unknown names (a tester's subclass and mixin
    could not set theirs)."""
    class Counting(MCTS):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.games = 0

    class Logged:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self.log: list[str] = []
            super().__init__(*args, **kwargs)

    class Both(Logged, MCTS):
        pass

    assert Counting(db).games == 0 and Both(db).log == []


def test_threads_is_checked_and_seed_and_db_are_fixed(db: fp.PatternDatabase) -> None:
    """``threads = 0`` searched nothing and ``seed = 2`` or ``db = ...``
    changed nothing, silently."""
    search = MCTS(db, seed=1)
    for bad, error in ((0, ValueError), (-1, ValueError), ("2", TypeError), (2.5, TypeError)):
        with pytest.raises(error, match="threads"):
            search.threads = bad  # type: ignore[assignment]
    search.threads = 2
    assert search.threads == 2
    with pytest.raises(AttributeError):
        search.seed = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        search.db = fp.PatternDatabase.builtin("mc_uniform")  # type: ignore[misc]
    assert search.seed == 1 and search.db is db
    with pytest.raises(TypeError, match="threads"):
        MCTS(db, threads="2")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="seed"):
        MCTS(db, seed="1")  # type: ignore[arg-type]


def test_the_time_limit_counts_a_slow_root_prior(db: fp.PatternDatabase,
                                                 board: fp.Board) -> None:
    """``run(seconds=0.3)`` with a prior of 1 s took 2 s: the clock started
    after the root was made, and a second node's prior ran past it."""
    calls = []

    def slow(b: fp.Board) -> np.ndarray:
        calls.append(1)
        time.sleep(0.4)
        return np.ones(82)

    result = MCTS(db, prior=slow, seed=1).run(board, seconds=0.2)
    assert len(calls) == 1 and result.visits == 1     # the first visit, then the clock


def test_color_formats_as_an_int_with_an_integer_spec() -> None:
    black = fp.Color.BLACK
    assert f"{black:d}|{fp.Color.WHITE:x}|{black:.1f}" == "2|1|2.0"
    assert f"{black}|{black:>3}|{black:s}" == "B|  B|B"


def test_an_svg_label_with_a_lone_surrogate_is_refused() -> None:
    """It was drawn into text no encoding can write (Jupyter could not show it)."""
    with pytest.raises(ValueError, match="surrogate"):
        fp.svg.board(fp.Board(9), labels={"D4": "\ud800"})
    assert "\U0001f600" in fp.svg.board(fp.Board(9), labels={"D4": "\U0001f600"})


def test_a_file_named_with_a_parenthesis_is_read(tmp_path: Path, monkeypatch: Any) -> None:
    """``"(2023) game.sgf"`` was read as SGF text ("no SGF data found")."""
    monkeypatch.chdir(tmp_path)
    Path("(2023) game.sgf").write_text("(;GM[1]SZ[9];B[ee])")
    assert fp.Board.from_sgf("(2023) game.sgf").history == [("B", "E5")]
    with pytest.raises(fp.SGFError, match="read as SGF text, as it starts with"):
        fp.Board.from_sgf("(2024) missing.sgf")
    assert fp.Board.from_sgf("(;SZ[9];B[aa])").history == [("B", "A9")]
    Path("(dir)").mkdir()
    with pytest.raises(fp.SGFError, match="is a directory"):
        fp.Board.from_sgf("(dir)")


def test_setup_refuses_a_str_for_a_list() -> None:
    """``setup(black="D4")`` said "bad vertex 'D'"."""
    board = fp.Board(9)
    with pytest.raises(TypeError, match=r"black=\['D4'\]"):
        board.setup(black="D4")
    with pytest.raises(TypeError, match="bytearray"):
        board.setup(white=bytearray(b"D4"))  # type: ignore[arg-type]
    assert not board.to_numpy().any()


def test_near_takes_booleans_or_zeros_and_ones(db: fp.PatternDatabase, board: fp.Board) -> None:
    """A NaN or a 2 in ``near`` was taken as True."""
    for bad in (np.full(81, np.nan), np.full(81, 2), np.array(["a"] * 81)):
        with pytest.raises(ValueError, match="near"):
            db.move_values(board, near=bad)
    ones = db.move_values(board, near=np.ones(81))
    assert np.array_equal(ones, db.move_values(board, near=np.ones(81, dtype=bool)))
    # a numpy bool is a bool; another scalar is refused by name (tester C)
    assert np.array_equal(db.move_values(board, near=np.True_),
                          db.move_values(board, near=True))
    for scalar in (1, 0, 1.0):
        with pytest.raises(ValueError, match="True, False or an array"):
            db.move_values(board, near=scalar)


def test_deepcopy_keeps_a_subclass_attributes() -> None:
    class Tagged(fp.Board):
        pass

    board = Tagged(9)
    board.play("E5")
    board.tag = ["x"]  # type: ignore[attr-defined]
    deep, shallow = copy.deepcopy(board), copy.copy(board)
    assert type(deep) is Tagged and deep.tag == ["x"] and deep.tag is not board.tag
    assert shallow.tag is board.tag and deep.history == board.history


def _illegal_move(vertex: str) -> None:
    board = fp.Board(9)
    board.play("E5")
    board.play(vertex)


def test_the_library_errors_pickle_and_cross_a_process_pool() -> None:
    """``multiprocessing.Pool`` hung when a worker raised IllegalMoveError:
    the parent could not unpickle it (tester C)."""
    import concurrent.futures

    from fastplay import diagram
    from fastplay.analysis.query import QueryError

    raised: list[BaseException] = []
    for action in (lambda: _illegal_move("E5"),
                   lambda: fp.Board.from_sgf("(;SZ[9];B[ee])", 5),
                   lambda: diagram.parse("garbage"),
                   lambda: fp.Board(9).play("Z99")):
        with pytest.raises(ValueError) as caught:
            action()
        raised.append(caught.value)
    raised.append(QueryError("komi", "bad komi"))
    for error in raised:
        back = pickle.loads(pickle.dumps(error))
        assert type(back) is type(error) and str(back) == str(error)
        assert back.__dict__ == error.__dict__
    with concurrent.futures.ProcessPoolExecutor(1) as pool:
        with pytest.raises(fp.IllegalMoveError, match="occupied") as crossed:
            pool.submit(_illegal_move, "E5").result(timeout=120)
    assert crossed.value.rule == "occupied"


def test_deepcopy_keeps_a_subclass_slots() -> None:
    class Slotted(fp.Board):
        __slots__ = ("tag",)

    board = Slotted(9)
    board.tag = ["x"]
    deep, shallow = copy.deepcopy(board), copy.copy(board)
    assert deep.tag == ["x"] and deep.tag is not board.tag and shallow.tag is board.tag
