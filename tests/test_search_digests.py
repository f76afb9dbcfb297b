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
Every other digest is still the closed class's search.  Since the tree keeps
its priors as ``float32`` (issue 21; RESULTS.md, "Rows of float32"), the
digest hashes each child's prior rounded to ``float32``, so every line was
recomputed: the old build (``f40c025``) and the new one give the same new
digests for all of them, so the searches themselves did not change.  Every set but
``widened`` searches without progressive widening (``widen_base=0``), the default on 9x9 since
the screens of RESULTS.md, "Progressive widening", and on 13x13 since
"Progressive widening on 13x13": the pinned digests keep showing that
nothing else moved, and ``test_default_widening`` shows that the new
default is exactly ``widen_base=10`` on 9x9 and 13x13 and no widening on
19x19.  Since 9x9's default prior became ``gnugo9x9_shapes`` (the learned
prior with large patterns; RESULTS.md, "Large patterns in the 9x9 prior"),
every 9x9 search of a set that names no prior is given the old
``gnugo9x9`` (``_options``), and all its digests stayed: the new prior
changed nothing else.  The ``shapes`` set pins the new default's 9x9
searches, and ``test_default_prior_on_9x9`` shows that the default is
exactly that prior.
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
# The default widening of 9x9 and 13x13, pinned since a widened node's
# back-ups add first-play tallies to its width + 8 moves of highest prior
# only (issue 21; RESULTS.md, "AMAF rows for part of a widened node's
# moves"): the digests of the screened branch (7c9db5e) and of the search
# whose nodes keep only those tallies.
CONFIGS["widened"] = {"widen_base": 10}
# 9x9's default since the large patterns: the default search, widening and all.
CONFIGS["shapes"] = {"widen_base": 10, "prior_table": "gnugo9x9_shapes"}

PINNED = """
default empty9 8871135e87466e33 eae3f440d57df8d4
default cgos24 b8abe13541c02210 839429ee3feb8fb2
default cgosend a8d9862df3ebe87c 1a8b6ade8c3cb1ea
default opening9 f17d4cadd60e9548 ffcc99b4e192cac6
default open13 5146d926329c5041 d07051e1f7e41716
default open19 7570491a3900807e 4394c53f67adf19a
uct_norave empty9 cef05b8fa6c93402 3d9a9d9c61bbee0b
uct_norave cgos24 cf9e449f1af5ce01 731bbb806cef1502
uct_norave cgosend a8d9862df3ebe87c 1a8b6ade8c3cb1ea
uct_norave opening9 5520945f6744236d 8e0f4fa7d6edd2ef
uct_norave open13 f13a0b49eacedb11 e7c437619cc110f2
uct_norave open19 df98a8f5295d4dd7 b5ac5206db3ccd4f
default_x2 empty9 07a47454cfb8d5f4 f956d68d8b9aad0a
default_x2 cgos24 040055018294f271 e932921d1af3f306
default_x2 opening9 04396629fd001b8c e18d32af3a58e11d
uct_norave_x2 empty9 ce581f07d343c69b c14a0402b1db8dce
uct_norave_x2 cgos24 971f8d3c3699b64e de60950e38da5997
uct_norave_x2 opening9 91fb17097375bf8b c2eea8a4013a096e
extras empty9 a20b4d026cc95458 c250f3b3d92b63cd
extras cgos24 c5fc82fc69ced802 3cf1d583c81ffd7e
extras cgosend 430fc11ce4bce87f 4665b77e62062fc7
extras opening9 9d76ad9600470b4e d39309c42abbb5f2
extras open13 a474a6a203e8094a abc0c8ff6273d09f
default_c1 open13 1aa62d9f39cf1096 f65cf89351b23b52
extras_c1 open13 80ae165ecbcc6d7f 6441619a6df88a13
extras open19 a40300de1e8ef517 9fdb5378ac06078d
default_l50 cgos24 1ad6c88e0b05193f 870183fb01ca9708
default_l50 opening9 1b3f6bba865a5db3 d1ddb74b21a90852
uct_norave_l50 empty9 3de60cba568236c2 427cb2cc0b7d1bd6
uct_norave_l50 cgos24 093f803d5a78e37b 6d74c19d74ad41cd
uct_norave_l50 opening9 6e7ed73726988f6e e6860aef32814280
uct_norave_l50 open13 de22dd201ba4d951 250d89fbcca254fc
default_x2_l50 cgos24 c21b082bedac6725 0c1b00a7bcc543da
default_x2_l50 opening9 04396629fd001b8c a19d1199b073a2cf
uct_norave_x2_l50 empty9 6847f7898fbf500b 6af6e2105eda8cfa
uct_norave_x2_l50 cgos24 16cbdc5c40d8dced 9e08b5045066da33
uct_norave_x2_l50 opening9 b31d379d5a1a7202 acbd634c11334f42
extras_l50 cgos24 aaca6d16b23500d6 e6377a9913b464b3
extras_l50 opening9 f0cc3443fd58147a cda1fb16d0048fa9
widened empty9 ba6cbd1a03d0676f 7c609a9a2f83fe10
widened cgos24 9baaf37ab5155400 53bb13737b03f8a5
widened opening9 6683d7764b7dcab5 1d07030dfb4d8d53
widened open13 b7b86ab7d5de6acd a526d3d16deef6f8
shapes empty9 6a29fbf4fde8ba80 8b4743c7040838dc
shapes cgos24 7f34c6230c64f20b 0f4be980f9a6b757
shapes opening9 79b221bb41b8708f 91b5bd5cb7b8d71c
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


def _options(config: str, size: int) -> dict[str, Any]:
    """The options of a pinned set; on 9x9 the old default prior unless the set names one."""
    options = CONFIGS[config]
    if size == 9 and "prior_table" not in options:
        options = {**options, "prior_table": "gnugo9x9"}
    return options


def _digest(result: SearchResult) -> str:
    h = hashlib.sha256()
    h.update(repr((result.best_move, result.winrate, result.playouts, result.simulations,
                   result.root_visits, result.nodes)).encode())
    for c in result.children:
        h.update(repr((c.move, c.visits, c.winrate, float(np.float32(c.prior)), c.pv)).encode())
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
    search = MCTS(db, SearchConfig(**_options(config, board.size)), threads=1, seed=7)
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


def test_default_prior_on_9x9(db: fp.PatternDatabase) -> None:
    """The default prior on 9x9 is the bundled prior with large patterns
    (``AUTO_PRIORS``): the same search as ``gnugo9x9_shapes`` given, not the
    same as the old ``gnugo9x9``."""
    board = fp.Board(9, komi=7.5)
    board.play("C3")
    default = _default_digest(db, board, 1000)
    assert default == _default_digest(db, board, 1000, prior_table="gnugo9x9_shapes")
    assert default != _default_digest(db, board, 1000, prior_table="gnugo9x9")
