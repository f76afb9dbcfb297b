"""Play unchanged: seeded one-thread searches give the same results, to the
bit, as before the search became a package (issue 15).

The digests were computed with the closed ``fastplay.mcts.MCTS`` at commit
932ac9a, by the same procedure as below (``_digest``, seed 7): each
covers the best move, win rate, counts, every root child (move, visits,
win rate, prior, pv) and the ownership bytes of a search and of a second
search that reuses the tree after the answer is played.  Three option sets
(defaults; UCT without RAVE and with the playout values as prior; every
optional knowledge on) on five kinds of position (empty 9x9 and its book,
a real game at move 24 and at its end -- a settled position with the final
probe --, a 9x9 opening, 13x13, 19x19).

Two digests were changed since, deliberately: the second 19x19 search
(800 visits at 3 per leaf) ran 801 before the visit limit became exact (its
last leaf now gets 2 playouts); and the 13x13 and 19x19 digests of the
"default" and "extras" sets, when ``prior_table="auto"`` took the learned
``gnugo13x13`` and ``gnugo19x19`` priors (issue 16; with the playout values
as prior, ``AUTO_PRIORS`` cut to 9x9, they are the old c6ce71b7, fb04360c,
0141fe00, 26eb3df9); and the 9x9 digests of the "default" and
"uct_norave" sets when the default expansion threshold became
``EXPAND_FLOOR`` (4) playouts instead of two batches (2 with one playout a
leaf; RESULTS.md, "Where the search's constants come from").  The
``*_x2`` sets give that threshold back (``expand_threshold=2``) and still
give the closed class's 9x9 digests: the new default changed nothing else.
And the 13x13 digests of the "default" and "extras" sets when 13x13's
default exploration became 0.7 (``C_PUCT_BY_SIZE``; RESULTS.md,
"Exploration 0.7 on 13x13"; they were 5737baa0, cd9e5864, 6fdea858,
265604d9): the ``*_c1`` sets give ``c_puct=1.0`` back and still give them.
And the 9x9 and 13x13 digests whose searches meet a tactical code, when
the default ladder virtual playouts became 15 (``LADDER_VISITS``; RESULTS.md,
"The ladder reader's virtual playouts"; the 19x19 opening meets none): the
``*_l50`` sets give ``ladder_visits=50`` back and still give the old ones.
Every other digest is still the closed class's.  Every set searches
without progressive widening (``widen_base=0``), the default on 9x9 since
the screens of RESULTS.md, "Progressive widening", and on 13x13 since
"Progressive widening on 13x13": the pinned digests keep showing that
nothing else moved, and ``test_default_widening`` shows that the new
default is exactly ``widen_base=10`` on 9x9 and 13x13 and no widening on
19x19.
"""

from __future__ import annotations

import hashlib
from importlib.resources import files
from typing import Any

import numpy as np
import pytest

import fastplay as fp
from fastplay.search import MCTS, SearchConfig, SearchResult
from fastplay.search.config import EXPAND_FLOOR, LADDER_VISITS, WIDEN_BASE_BY_SIZE

CONFIGS: dict[str, dict[str, Any]] = {
    "default": {},
    "uct_norave": {"policy": "uct", "rave": False, "prior_table": None},
    "default_x2": {"expand_threshold": 2},
    "uct_norave_x2": {"policy": "uct", "rave": False, "prior_table": None, "expand_threshold": 2},
    "extras": {"race_reading": True, "stake_stones": 3, "score_weight": 0.02, "even_visits": 5.0,
               "pattern_visits": 5.0, "fight_prior": 2.0, "dynamic_komi": 1.0, "batch": 2},
}
CONFIGS["default_c1"] = {"c_puct": 1.0}
CONFIGS["extras_c1"] = {**CONFIGS["extras"], "c_puct": 1.0}
for _name in ("default", "uct_norave", "default_x2", "uct_norave_x2", "extras"):
    CONFIGS[f"{_name}_l50"] = {**CONFIGS[_name], "ladder_visits": 50.0}
for _name in CONFIGS:
    CONFIGS[_name] = {**CONFIGS[_name], "widen_base": 0}

PINNED = """
default empty9 407888ac8c2fcabb f2bf91c2206c90f0
default cgos24 fb7f943b30d769d9 bbda4caeaa2c53ba
default cgosend a8d9862df3ebe87c 1a8b6ade8c3cb1ea
default opening9 e4024247c1ea9e1f 7d46e2ea46fb5d67
default open13 b032e2ea7846ce7d f80a50f0cd98849c
default open19 d20fd7c53532e4a1 329695a789ab1224
uct_norave empty9 ce174af94d8b980f 1579caf4277558a5
uct_norave cgos24 e262910a5e438585 119ed3e41080c7e0
uct_norave cgosend a8d9862df3ebe87c 1a8b6ade8c3cb1ea
uct_norave opening9 d3614c6636531e1a 342a05dd2693fbc5
uct_norave open13 6d8718e4a51a6af8 4bbabab624ed50f2
uct_norave open19 f8f7fcc9b4cc0980 5da6ca1389a59f48
default_x2 empty9 1f5e8995885e2445 208f8ff4973f81e1
default_x2 cgos24 05668939df77297d 71415a056398d5a0
default_x2 opening9 d08cd0c8b23050ce cc3c0418a7cb567d
uct_norave_x2 empty9 ccf8514f349413a7 41857b0a667ca15a
uct_norave_x2 cgos24 b7473c54d9fad1e8 f67b59e72933efad
uct_norave_x2 opening9 7a21f96b91668cad a1f885ef7a27c555
extras empty9 7d580349f5d57b04 313acb10cafea45e
extras cgos24 b126a9ff2103f83b fa104bf5763c7da5
extras cgosend 430fc11ce4bce87f 4665b77e62062fc7
extras opening9 7a4043f273a877fd db20056acec4806e
extras open13 048c6ccf4eca9977 d75ff8ffdef285b6
default_c1 open13 5737baa05ee9cc02 cd9e5864894c17d7
extras_c1 open13 6fdea8582c6bb0fd 265604d934b5ebdf
extras open19 d4c8d067fcc9d835 297e91f19e08a72d
default_l50 cgos24 f2e54d634e21a77f 025c6d484107d3e2
default_l50 opening9 8bd580e7aecf4d02 a0ad496131228640
uct_norave_l50 empty9 c2927bcdce07d271 be17c3cadaa94439
uct_norave_l50 cgos24 a5b2db45ad1dfa9e 60a2f12dfa46d171
uct_norave_l50 opening9 3031612d46753ae4 44fea2cb33a2f1ba
uct_norave_l50 open13 7b5832663cce3de3 a6fcd9cda8375414
default_x2_l50 cgos24 bfc319b054f258d3 28c53b08201e14e5
default_x2_l50 opening9 d08cd0c8b23050ce 6e6ad0ffeb03c5fc
uct_norave_x2_l50 empty9 0d4c62e92c0fd13b ed2e056df92d0e0a
uct_norave_x2_l50 cgos24 8e0d5ffb232619c2 5f1aaee7efffe197
uct_norave_x2_l50 opening9 0ce086d497a57eb4 5f068eba648396ad
extras_l50 cgos24 e72df03e145b82a0 cbf4b6a3a4abf254
extras_l50 opening9 d19c078cd309be2a bfe66ca412ceb12d
"""


def _position(name: str) -> fp.Board:
    if name.startswith("cgos"):
        game = fp.Board.from_sgf(str(files("fastplay") / "data"
                                     / "cgos-390115-anchorman-montegnu.sgf"))
        while name == "cgos24" and game.move_number > 24:
            game.undo()
        return game
    size, moves = {"empty9": (9, []), "opening9": (9, ["E5", "E3", "G7", "C6", "D4"]),
                   "open13": (13, ["D4", "K10", "D10", "K4", "G7"]),
                   "open19": (19, ["D4", "Q16", "Q4", "D16"])}[name]
    board = fp.Board(size, komi=7.5)
    for move in moves:
        board.play(move)
    return board


def _digest(result: SearchResult) -> str:
    h = hashlib.sha256()
    h.update(repr((result.best_move, result.winrate, result.playouts, result.simulations,
                   result.root_visits, result.nodes)).encode())
    for c in result.children:
        h.update(repr((c.move, c.visits, c.winrate, c.prior, c.pv)).encode())
    h.update(np.ascontiguousarray(result.ownership).tobytes())
    return h.hexdigest()[:16]


@pytest.fixture(scope="module")
def db() -> fp.PatternDatabase:
    return fp.PatternDatabase.builtin("mc_montegnu_classic")


@pytest.mark.parametrize("config, position, first, second",
                         [line.split() for line in PINNED.strip().splitlines()])
def test_seeded_search_is_unchanged(db: fp.PatternDatabase, config: str, position: str,
                                    first: str, second: str) -> None:
    board = _position(position)
    search = MCTS(db, SearchConfig(**CONFIGS[config]), threads=1, seed=7)
    result = search.run(board, playouts=1500)
    assert _digest(result) == first
    board.play(result.best_move if result.best_move != "resign" else "pass")
    assert _digest(search.run(board, visits=800)) == second   # tree reuse


def _default_digest(db: fp.PatternDatabase, board: fp.Board, playouts: int,
                    **options: Any) -> str:
    """The digest of a one-thread search (seed 3) of ``board`` with ``options``
    (none: the defaults), for the tests that a default equals a value given."""
    search = MCTS(db, SearchConfig(**options), threads=1, seed=3)
    return _digest(search.run(board, playouts=playouts))


@pytest.mark.parametrize("size, threshold, fewer", [(9, EXPAND_FLOOR, EXPAND_FLOOR - 1),
                                                     (13, 4, 2), (19, 6, 3)])
def test_default_expansion_threshold(db: fp.PatternDatabase, size: int, threshold: int,
                                     fewer: int) -> None:
    """The default threshold is ``max(EXPAND_FLOOR, 2 * batch)`` (batches of
    1, 2 and 3 playouts): the same search as that threshold given, and not
    the same as one batch less."""
    board = fp.Board(size, komi=7.5)
    board.play("C3")

    default = _default_digest(db, board, 600)
    assert default == _default_digest(db, board, 600, expand_threshold=threshold)
    assert default != _default_digest(db, board, 600, expand_threshold=fewer)


@pytest.mark.parametrize("size", [9, 19])
def test_default_ladder_visits(db: fp.PatternDatabase, size: int) -> None:
    """The default is ``LADDER_VISITS`` (15 since the screens on 9x9, 13x13
    and 19x19; 50 before): the same search as 15 given, not the same as 50.
    The position has a ladder, so that the reader's codes are used (19x19's
    pinned opening meets none)."""
    board = fp.Board(size, komi=7.5)
    for move in ("D4", "D5", "pass", "E4", "pass", "C4", "pass", "E5"):
        board.play(move)                  # Black's D4 in atari, to move

    assert LADDER_VISITS == 15.0
    default = _default_digest(db, board, 600)
    assert default == _default_digest(db, board, 600, ladder_visits=15.0)
    assert default != _default_digest(db, board, 600, ladder_visits=50.0)


@pytest.mark.parametrize("size", [9, 13, 19])
def test_default_widening(db: fp.PatternDatabase, size: int) -> None:
    """The default widens on 9x9 and 13x13 (``widen_base`` 10,
    ``WIDEN_BASE_BY_SIZE``) and not on 19x19: the same search as that given,
    not the same as the other."""
    board = fp.Board(size, komi=7.5)
    board.play("C3")

    assert WIDEN_BASE_BY_SIZE == {9: 10, 13: 10}
    default = _default_digest(db, board, 1500)
    base = WIDEN_BASE_BY_SIZE.get(size, 0)
    assert default == _default_digest(db, board, 1500, widen_base=base)
    assert default != _default_digest(db, board, 1500, widen_base=10 - base)
