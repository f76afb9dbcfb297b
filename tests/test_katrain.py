"""KaTrain, a real client of KataGo's analysis protocol, with ``fastplay analysis``.

KaTrain's own engine class (``katrain.core.engine.KataGoEngine``, backend
"custom": it runs ``engine/altcommand`` through the shell) and its own game
classes (``katrain.core.game.Game``, ``KaTrainSGF``) analyse a whole short
9x9 game, save it with the analysis (KaTrain's ``KT`` property) and load it
back; pondering is stopped with a ``terminate``; "find alternatives" sends
``avoidMoves``.  Only KaTrain's GUI is left out: its core runs without a
display (``KaTrainBase`` is "settings, logging, and players functionality
... without a GUI"; Kivy is imported for its config and event classes only,
with ``KIVY_NO_ARGS`` so that it leaves pytest's arguments alone).
"""

from __future__ import annotations

import os
import shlex
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
os.environ.setdefault("KIVY_NO_FILELOG", "1")
os.environ.setdefault("KIVY_LOG_MODE", "PYTHON")
os.environ.setdefault("KIVY_HOME", tempfile.mkdtemp(prefix="fastplay-kivy-"))  # not ~/.kivy

katrain_engine = pytest.importorskip("katrain.core.engine")
from katrain.core.base_katrain import KaTrainBase  # noqa: E402
from katrain.core.constants import OUTPUT_ERROR  # noqa: E402
from katrain.core.game import Game, KaTrainSGF  # noqa: E402

#: A short real-looking 9x9 game, Chinese rules, both players passing at the end.
GAME = ("(;GM[1]FF[4]SZ[9]KM[7]RU[Chinese]PB[b]PW[w];B[ee];W[cf];B[gd];W[ce];B[dc];W[gf]"
        ";B[ff];W[fg];B[ef];W[hd];B[hc];W[he];B[gc];W[eg];B[dg];W[dh];B[cg];W[bg];B[ch]"
        ";W[di];B[bh];W[ag];B[ci];W[eh];B[];W[])")

TIMEOUT = 60.0


class HeadlessKaTrain(KaTrainBase):
    """KaTrain's settings and logging without the GUI; what the GUI would
    show (errors, popups) is collected for the test to check."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.popups: list[tuple[Any, ...]] = []
        super().__init__(force_package_config=True, debug_level=0)

    def log(self, message: Any, level: int = 0) -> None:
        if level == OUTPUT_ERROR:
            self.errors.append(str(message))

    def __call__(self, message: str, *args: Any) -> None:  # the GUI's message loop
        self.popups.append((message, *args))


def wait_until(condition: Callable[[], bool], timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("KaTrain did not get its analysis in time")
        time.sleep(0.05)


@pytest.fixture(scope="module")
def katrain() -> Iterator[tuple[HeadlessKaTrain, Any]]:
    app = HeadlessKaTrain()
    # exec: KaTrain runs the command through the shell and terminates the
    # process it started, which must then be fastplay itself, not the shell.
    command = f"exec {shlex.quote(sys.executable)} -m fastplay analysis --seed 1"
    config = {**app.config("engine"), "backend": "custom", "altcommand": command,
              "max_visits": 200, "fast_visits": 25, "max_time": 10.0}
    engine = katrain_engine.KataGoEngine(app, config)
    yield app, engine
    engine.shutdown(finish=False)


def analysed(game: Game) -> list[Any]:
    return [node for node in game.root.nodes_in_tree if not node.analysis_complete]


def test_katrain_analyses_a_whole_game_saves_and_reloads_it(katrain: Any, tmp_path: Path
                                                          ) -> None:
    app, engine = katrain
    game = Game(app, engine, move_tree=KaTrainSGF.parse_sgf(GAME))
    nodes = game.root.nodes_in_tree
    assert len(nodes) == 27
    wait_until(lambda: not analysed(game) and engine.is_idle())
    assert app.errors == [] and app.popups == []
    for node in nodes:
        analysis = node.analysis
        root = analysis["root"]
        assert root["visits"] >= 1 and 0 <= root["winrate"] <= 1
        assert len(analysis["ownership"]) == 81 and len(analysis["policy"]) == 82
        moves = node.candidate_moves
        assert moves and moves[0]["order"] == 0 and moves[0]["pv"]
        assert all(-1 <= v <= 1 for v in analysis["ownership"])
    # KaTrain's own judgement of each move: points lost from the score leads.
    assert all(node.points_lost is not None for node in nodes[1:])
    # Black's view (KaTrain forces reportAnalysisWinratesAs=BLACK): after the
    # game's last moves the owner of most points matches the win rate.
    last = nodes[-1]
    black_share = sum(1 for v in last.analysis["ownership"] if v > 0)
    assert (black_share > 40) == (last.analysis["root"]["winrate"] > 0.5)

    path = tmp_path / "analysed.sgf"
    trainer = {**app.config("trainer"), "save_analysis": True}
    game.write_sgf(str(path), trainer_config=trainer)
    text = path.read_text(encoding="utf-8")
    assert "KT[" in text

    reloaded = Game(app, engine, move_tree=KaTrainSGF.parse_file(str(path)))
    again = reloaded.root.nodes_in_tree
    assert len(again) == len(nodes)
    wait_until(lambda: all(node.analysis_exists for node in again))
    time.sleep(0.2)
    assert engine.is_idle()  # loaded from the file: nothing asked of the engine
    for old, new in zip(nodes, again):
        assert new.analysis["root"]["winrate"] == pytest.approx(old.analysis["root"]["winrate"])
        assert set(new.analysis["moves"]) == set(old.analysis["moves"])
        assert new.analysis["ownership"] == pytest.approx(old.analysis["ownership"], abs=1e-3)
    assert app.errors == []


def test_katrain_ponders_and_stops(katrain: Any) -> None:
    """Pondering: ten million visits with reports every 0.25 s, ended by a
    terminate; KaTrain keeps the partial analysis."""
    app, engine = katrain
    game = Game(app, engine, move_tree=KaTrainSGF.parse_sgf(GAME))
    wait_until(lambda: not analysed(game) and engine.is_idle())
    node = game.root.nodes_in_tree[5]
    node.clear_analysis()
    node.analyze(engine, ponder=True)
    wait_until(lambda: node.analysis_exists and node.root_visits > 0)
    engine.stop_pondering()
    wait_until(engine.is_idle)
    visits = node.root_visits
    assert 0 < visits < 10_000_000
    assert app.errors == []


def test_katrain_finds_alternatives_with_avoid_moves(katrain: Any) -> None:
    app, engine = katrain
    game = Game(app, engine, move_tree=KaTrainSGF.parse_sgf(GAME))
    wait_until(lambda: not analysed(game) and engine.is_idle())
    node = game.root.nodes_in_tree[8]
    known = set(node.analysis["moves"])
    answers: list[dict[str, Any]] = []
    engine.request_analysis(node, lambda result, partial: answers.append(result),
                            find_alternatives=True, report_every=None)
    wait_until(lambda: bool(answers) and engine.is_idle())
    found = {info["move"] for info in answers[-1]["moveInfos"]}
    assert found and not found & known
    assert app.errors == []
