"""``fastplay analysis``: KataGo's analysis protocol, field by field.

The reference is KataGo's ``docs/Analysis_Engine.md``: queries (fields,
limits, defaults), answers (``moveInfos``, ``rootInfo``, ``ownership``,
``policy``, their orientation and point of view), actions (``terminate``,
``query_version``, ``clear_cache``), errors and warnings, priorities, and
an engine that keeps running whatever it is sent.
"""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fastplay.analysis.engine import AnalysisEngine
from fastplay.analysis.query import Defaults, QueryError, parse_query
from fastplay.analysis.rules import RulesError, parse_rules

TIMEOUT = 60.0


class Sink(io.StringIO):
    """The engine's stdout: complete lines, decoded, waited for."""

    def __init__(self) -> None:
        super().__init__()
        self.cond = threading.Condition()
        self.answers: list[dict[str, Any]] = []

    def write(self, text: str) -> int:
        with self.cond:
            for line in text.splitlines():
                self.answers.append(json.loads(line))
            self.cond.notify_all()
        return len(text)

    def wait(self, condition: Callable[[list[dict[str, Any]]], bool],
             timeout: float = TIMEOUT) -> list[dict[str, Any]]:
        with self.cond:
            if not self.cond.wait_for(lambda: condition(self.answers), timeout):
                raise AssertionError(f"no such answer in {self.answers!r:.2000}")
            return list(self.answers)


@pytest.fixture
def engine() -> Iterator[tuple[AnalysisEngine, Sink]]:
    sink = Sink()
    eng = AnalysisEngine(sink, defaults=Defaults(max_visits=200), seed=7)
    yield eng, sink
    eng.close(wait=False)


def query(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"id": "q", "moves": [["B", "E5"], ["W", "C3"]],
                            "rules": "tromp-taylor", "komi": 7, "boardXSize": 9,
                            "boardYSize": 9, "maxVisits": 200}
    base.update(fields)
    return {k: v for k, v in base.items() if v is not None}


def ask(eng: AnalysisEngine, sink: Sink, q: dict[str, Any], finals: int = 1
        ) -> list[dict[str, Any]]:
    """Send ``q``; the final answers (``isDuringSearch`` false) for its id."""
    eng.handle(json.dumps(q))

    def done(answers: list[dict[str, Any]]) -> bool:
        return len(final_answers(answers, q["id"])) >= finals

    return final_answers(sink.wait(done), q["id"])


def final_answers(answers: list[dict[str, Any]], qid: str) -> list[dict[str, Any]]:
    return [a for a in answers if a.get("id") == qid and ("error" in a or (
        "turnNumber" in a and not a.get("isDuringSearch")))]


# A position Black has clearly won: Black walls off the top seven rows, with
# stones inside; White keeps the bottom row.
BLACK_WALL = ([["B", f"{c}3"] for c in "ABCDEFGHJ"]
              + [["B", f"{c}{r}"] for c in "BDFH" for r in (5, 7, 9)]
              + [["W", f"{c}2"] for c in "ABCDEFGHJ"] + [["W", f"{c}1"] for c in "BDFH"])


def test_answer_has_every_field_of_the_docs(engine: Any) -> None:
    eng, sink = engine
    (answer,) = ask(eng, sink, query(includeOwnership=True, includeMovesOwnership=True,
                                     includePolicy=True))
    assert answer["id"] == "q" and answer["turnNumber"] == 2
    assert answer["isDuringSearch"] is False
    infos = answer["moveInfos"]
    assert infos and [m["order"] for m in infos] == list(range(len(infos)))
    for m in infos:
        assert isinstance(m["move"], str) and (m["move"] == "pass" or m["move"].isupper())
        assert isinstance(m["visits"], int) and m["visits"] >= 1
        assert 0 <= m["winrate"] <= 1 and 0 <= m["prior"] <= 1
        assert m["scoreLead"] == m["scoreMean"] and m["scoreStdev"] >= 0
        assert m["pv"][0] == m["move"] and len(m["pv"]) <= 16
        assert len(m["ownership"]) == 81 and all(-1 <= v <= 1 for v in m["ownership"])
        for key in ("lcb", "utility", "utilityLcb", "scoreSelfplay"):
            assert math.isfinite(m[key])
    assert infos[0]["visits"] == max(m["visits"] for m in infos)
    root = answer["rootInfo"]
    assert root["currentPlayer"] == "B" and 1 <= root["visits"] <= 200
    assert sum(m["visits"] for m in infos) <= root["visits"]
    assert 0 <= root["winrate"] <= 1 and math.isfinite(root["scoreLead"])
    assert len(root["thisHash"]) == 32 and len(root["symHash"]) == 32
    assert len(answer["ownership"]) == 81
    policy = answer["policy"]
    assert len(policy) == 82
    # -1 exactly on the occupied points: E5 (row 4 from the top) and C3 (row 6).
    assert [i for i, p in enumerate(policy) if p == -1] == [4 * 9 + 4, 6 * 9 + 2]
    assert sum(p for p in policy if p > 0) == pytest.approx(1, abs=1e-4)
    assert policy[81] > 0  # the pass, last


def test_pv_visits_and_ownership_stdev(engine: Any) -> None:
    """KataGo's ``includePVVisits`` (``pvVisits``, ``pvEdgeVisits``: one count
    per PV move, the move's visits first, never growing along the line) and
    ``includeOwnershipStdev`` (a deviation per point, in [0, 1], with
    ``mean^2 + stdev^2 <= 1`` since each evaluation's ownership is -1, 0 or
    +1), without a warning."""
    eng, sink = engine
    (answer,) = ask(eng, sink, query(includePVVisits=True, includeOwnershipStdev=True,
                                     includeOwnership=True, maxVisits=300))
    assert not [a for a in sink.answers if "warning" in a]
    for m in answer["moveInfos"]:
        assert len(m["pvVisits"]) == len(m["pv"]) and m["pvVisits"][0] == m["visits"]
        assert m["pvEdgeVisits"] == m["pvVisits"]
        assert all(a >= b >= 1 for a, b in zip(m["pvVisits"], m["pvVisits"][1:]))
    assert any(len(m["pv"]) > 1 for m in answer["moveInfos"])
    stdev, own = answer["ownershipStdev"], answer["ownership"]
    assert len(stdev) == 81 and all(0 <= v <= 1 for v in stdev)
    assert all(o * o + d * d <= 1 + 1e-5 for o, d in zip(own, stdev))
    assert max(stdev) > 0.5      # the open points of a 2-move position are in doubt
    (plain,) = ask(eng, sink, query(id="p"))
    assert "ownershipStdev" not in plain and "pvVisits" not in plain["moveInfos"][0]


def test_ownership_is_row_major_from_the_top_left_in_the_asked_view(engine: Any) -> None:
    eng, sink = engine
    base = dict(moves=[], initialStones=BLACK_WALL, includeOwnership=True, maxVisits=300)
    (black,) = ask(eng, sink, query(id="b", initialPlayer="W", **base))
    own = black["ownership"]
    assert own[0] > 0.8 and own[8] > 0.8          # A9, J9: Black's
    assert own[72] < -0.8 and own[80] < -0.8      # A1, J1: White's
    assert black["rootInfo"]["currentPlayer"] == "W"
    assert black["rootInfo"]["winrate"] > 0.9 and black["rootInfo"]["scoreLead"] > 20
    assert all(m["winrate"] > 0.8 and m["scoreLead"] > 0 for m in black["moveInfos"])
    (side,) = ask(eng, sink, query(id="s", initialPlayer="W", **base,
                                   overrideSettings={"reportAnalysisWinratesAs": "SIDETOMOVE"}))
    assert side["ownership"][0] < -0.8 and side["rootInfo"]["winrate"] < 0.1
    assert side["rootInfo"]["scoreLead"] < -20
    assert all(m["winrate"] < 0.2 and m["scoreLead"] < 0 for m in side["moveInfos"])
    (white,) = ask(eng, sink, query(id="w", initialPlayer="B", **base,
                                    overrideSettings={"reportAnalysisWinratesAs": "white"}))
    assert white["ownership"][0] < -0.8 and white["rootInfo"]["winrate"] < 0.1


def test_analyze_turns_each_answered_once(engine: Any) -> None:
    eng, sink = engine
    answers = ask(eng, sink, query(analyzeTurns=[2, 0, 1, 0], maxVisits=50), finals=3)
    assert sorted(a["turnNumber"] for a in answers) == [0, 1, 2]
    players = {a["turnNumber"]: a["rootInfo"]["currentPlayer"] for a in answers}
    assert players == {0: "B", 1: "W", 2: "B"}
    time.sleep(0.2)
    assert len(final_answers(sink.answers, "q")) == 3
    assert {"id": "q", "field": "analyzeTurns",
            "warning": "A turn given more than once is analysed once"} in sink.answers


def test_no_turn_to_analyse_is_said(engine: Any) -> None:
    """KataGo answers ``analyzeTurns: []`` with nothing; fastplay warns, so a
    client waiting for the id hears of it (a tester)."""
    eng, sink = engine
    eng.handle(json.dumps(query(id="none", analyzeTurns=[])))
    (warning,) = sink.wait(lambda a: any(x.get("id") == "none" for x in a))
    assert warning == {"id": "none", "field": "analyzeTurns",
                       "warning": "Empty: no turn is analysed, so no answer follows"}
    assert ask(eng, sink, query(id="after", maxVisits=20))[0]["turnNumber"] == 2


def test_priorities_order_the_queue(engine: Any) -> None:
    eng, sink = engine
    eng.handle(json.dumps(query(id="busy", maxVisits=10**9, reportDuringSearchEvery=0.05,
                                overrideSettings={"maxTime": 0.5})))
    sink.wait(lambda a: any(x.get("isDuringSearch") for x in a))  # the worker is busy
    for qid, priority in (("low", -5), ("high", 10), ("mid", 3)):
        eng.handle(json.dumps(query(id=qid, priority=priority, maxVisits=20)))
    def finals(answers: list[dict[str, Any]]) -> list[str]:
        return [x["id"] for x in answers if "moveInfos" in x and not x["isDuringSearch"]]

    assert finals(sink.wait(lambda a: len(finals(a)) == 4)) == ["busy", "high", "mid", "low"]


def test_priorities_per_turn(engine: Any) -> None:
    eng, sink = engine
    eng.handle(json.dumps(query(id="busy", maxVisits=10**9, reportDuringSearchEvery=0.05,
                                overrideSettings={"maxTime": 0.3})))
    sink.wait(lambda a: any(x.get("isDuringSearch") for x in a))
    eng.handle(json.dumps(query(id="t", analyzeTurns=[0, 1, 2], priorities=[1, 9, 5],
                                maxVisits=20)))
    answers = sink.wait(lambda a: len(final_answers(a, "t")) == 3)
    assert [a["turnNumber"] for a in final_answers(answers, "t")] == [1, 2, 0]


def test_report_during_search_then_one_final_answer(engine: Any) -> None:
    eng, sink = engine
    eng.handle(json.dumps(query(id="r", maxVisits=10**9, reportDuringSearchEvery=0.1,
                                overrideSettings={"maxTime": 0.8})))
    answers = sink.wait(lambda a: len(final_answers(a, "r")) == 1)
    partial = [a for a in answers if a.get("id") == "r" and a.get("isDuringSearch")]
    assert len(partial) >= 3
    visits = [a["rootInfo"]["visits"] for a in partial]
    assert visits == sorted(visits)
    assert final_answers(answers, "r")[0]["rootInfo"]["visits"] >= visits[-1]


def test_terminate_running_and_queued(engine: Any) -> None:
    eng, sink = engine
    eng.handle(json.dumps(query(id="long", maxVisits=10**9, reportDuringSearchEvery=0.05)))
    eng.handle(json.dumps(query(id="queued", analyzeTurns=[0, 1])))
    sink.wait(lambda a: any(x.get("isDuringSearch") for x in a))
    eng.handle(json.dumps({"id": "stop", "action": "terminate", "terminateId": "queued",
                           "turnNumbers": [1]}))
    eng.handle(json.dumps({"id": "stop2", "action": "terminate", "terminateId": "long"}))
    answers = sink.wait(lambda a: len(final_answers(a, "long")) == 1
                        and len(final_answers(a, "queued")) == 2)
    echo = [a for a in answers if a.get("id") == "stop"]
    assert echo == [{"id": "stop", "action": "terminate", "terminateId": "queued",
                     "turnNumbers": [1]}]
    (long_final,) = final_answers(answers, "long")
    assert 0 < long_final["rootInfo"]["visits"] < 10**9
    queued = {a["turnNumber"]: a for a in final_answers(answers, "queued")}
    assert queued[1] == {"id": "queued", "isDuringSearch": False, "noResults": True,
                         "turnNumber": 1}
    assert queued[0]["moveInfos"]


def test_a_closed_output_stops_the_searches() -> None:
    class Gone(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    eng = AnalysisEngine(Gone(), seed=1)
    eng.handle(json.dumps(query(id="p", maxVisits=10**9, reportDuringSearchEvery=0.05,
                                analyzeTurns=[0, 1, 2])))
    start = time.monotonic()
    eng.close()  # waits for the queue: it must be empty soon
    assert eng.broken and time.monotonic() - start < 10 and eng.pending() == 0


def test_actions_query_version_and_clear_cache(engine: Any) -> None:
    eng, sink = engine
    eng.handle('{"id":"v","action":"query_version"}')
    eng.handle('{"id":"c","action":"clear_cache"}')
    eng.handle('{"id":"x","action":"explode"}')
    answers = sink.wait(lambda a: len(a) == 3)
    assert answers[0]["id"] == "v" and answers[0]["action"] == "query_version"
    assert isinstance(answers[0]["version"], str) and "git_hash" in answers[0]
    assert answers[1] == {"id": "c", "action": "clear_cache"}
    assert answers[2] == {"id": "x", "field": "action", "error": "Unknown action: explode"}


BAD_QUERIES: list[tuple[str, str | None]] = [
    ("not json", None),
    ('{"id": "q", ', None),
    ("[1, 2]", None),
    ('"text"', None),
    ('{"moves": []}', None),
    ('{"id": 5}', None),
    (json.dumps(query(id="\ud800")), "id"),    # a lone surrogate: no answer could name it
    ("[" * 100_000 + "]" * 100_000, None),
    (json.dumps(query(boardXSize=None)), "boardXSize"),
    (json.dumps(query(boardXSize=9, boardYSize=13)), "boardYSize"),
    (json.dumps(query(boardXSize=26, boardYSize=26)), "boardXSize"),
    (json.dumps(query(boardXSize=1, boardYSize=1)), "boardXSize"),
    (json.dumps(query(boardXSize=True, boardYSize=True)), "boardXSize"),
    (json.dumps(query(boardXSize=9.0, boardYSize=9.0)), "boardXSize"),
    (json.dumps(query(rules="ing-chang-ki-plus")), "rules"),
    (json.dumps(query(rules=7)), "rules"),
    (json.dumps(query(rules=None)), "rules"),
    (json.dumps(query(rules={"ko": "SIMPLE", "colour": "red"})), "rules"),
    (json.dumps(query(rules={"ko": "TRIPLE"})), "rules"),
    (json.dumps(query(komi=7.3)), "komi"),
    (json.dumps(query(komi=151)), "komi"),
    (json.dumps(query(komi="7.5")), "komi"),
    (json.dumps(query(id="q", komi=7)).replace('"komi": 7', '"komi": 1e999'), "komi"),
    (json.dumps(query(moves=None)), "moves"),
    (json.dumps(query(moves="E5")), "moves"),
    (json.dumps(query(moves=[["B", "Z99"]])), "moves"),
    (json.dumps(query(moves=[["B", "I5"]])), "moves"),
    (json.dumps(query(moves=[["X", "E5"]])), "moves"),
    (json.dumps(query(moves=[["B", "E5", "x"]])), "moves"),
    (json.dumps(query(moves=[["B", "E5"], ["W", "E5"]])), "moves"),
    (json.dumps(query(initialStones=[["B", "pass"]])), "initialStones"),
    (json.dumps(query(initialStones=[["B", "A1"], ["W", "A1"]])), "initialStones"),
    (json.dumps(query(initialPlayer="red")), "initialPlayer"),
    (json.dumps(query(analyzeTurns=[3])), "analyzeTurns"),
    (json.dumps(query(analyzeTurns=[-1])), "analyzeTurns"),
    (json.dumps(query(analyzeTurns="all")), "analyzeTurns"),
    (json.dumps(query(analyzeTurns=[0], priorities=[1, 2])), "priorities"),
    (json.dumps(query(maxVisits=0)), "maxVisits"),
    (json.dumps(query(maxVisits=True)), "maxVisits"),
    (json.dumps(query(maxVisits=2**60)), "maxVisits"),
    (json.dumps(query(maxVisits=10**400)), "maxVisits"),
    (json.dumps(query(priority=10**30)), "priority"),
    (json.dumps(query(includeOwnership="yes")), "includeOwnership"),
    (json.dumps(query(includePolicy=1)), "includePolicy"),
    (json.dumps(query(reportDuringSearchEvery=-1)), "reportDuringSearchEvery"),
    (json.dumps(query(avoidMoves={"moves": ["A1"]})), "avoidMoves"),
    (json.dumps(query(avoidMoves=[{"player": "B", "moves": ["A1"]}])), "avoidMoves"),
    (json.dumps(query(avoidMoves=[{"player": "B", "moves": ["Q99"], "untilDepth": 1}])),
     "avoidMoves"),
    (json.dumps(query(allowMoves=[{"player": "B", "moves": ["A1"], "untilDepth": 1}] * 2)),
     "allowMoves"),
    (json.dumps(query(overrideSettings=[1])), "overrideSettings"),
    (json.dumps(query(overrideSettings={"maxTime": -1})), "overrideSettings"),
    # Checked even where the query's own maxVisits wins (it was ignored).
    (json.dumps(query(maxVisits=10, overrideSettings={"maxVisits": -5})), "overrideSettings"),
    (json.dumps(query(overrideSettings={"numSearchThreads": 0})), "overrideSettings"),
    (json.dumps(query(overrideSettings={"reportAnalysisWinratesAs": "GREEN"})),
     "overrideSettings"),
    # Positions are copied per turn: a history longer than any game is refused.
    (json.dumps(query(moves=[["B", "pass"], ["W", "pass"]] * 2501)), "moves"),
    ('{"id": "t", "action": "terminate"}', "terminateId"),
    ('{"id": "t", "action": "terminate", "terminateId": "q", "turnNumbers": "x"}',
     "turnNumbers"),
]


@pytest.mark.parametrize("line,message", [
    (json.dumps(query(moves=[["B", "E5"], ["W", "E5"]])), "Illegal move 1: E5 (occupied)"),
    (json.dumps(query(overrideSettings={"maxTime": -5})),
     "maxTime: Must be a number from 0.001 to 1e+09"),
    (json.dumps(query(overrideSettings={"analysisPVLen": 0})), "analysisPVLen: Must be an integer"),
    ('{"id": "q", "maxVisits": ' + "9" * 5000 + "}",
     "Could not parse request as JSON: a number of 5000 digits (at most 4300)"),
    # Not JSON (RFC 8259), refused as KataGo's parser does; an action with one
    # was once acknowledged by an answer that could not be written.
    ('{"id": "t", "action": "query_version", "x": NaN}',
     "Could not parse request as JSON: NaN is not a JSON value"),
    ('{"id": "t", "action": "terminate", "terminateId": "q", "x": -Infinity}',
     "Could not parse request as JSON: -Infinity is not a JSON value"),
    (json.dumps(query(komi=7.5)).replace("7.5", "Infinity"),
     "Could not parse request as JSON: Infinity is not a JSON value"),
    # A coordinate of thousands of digits is no location (not int()'s error).
    (json.dumps(query(moves=[["B", "(" + "9" * 5000 + ",1)"]])),
     "Could not parse board location: '(99999"),
])
def test_error_messages_name_the_setting_and_the_rule(engine: Any, line: str,
                                                      message: str) -> None:
    """An illegal move names the rule broken; an ``overrideSettings`` error
    names its key; a JSON number too long for Python says so, without
    Python's advice to the programmer."""
    eng, sink = engine
    eng.handle(line)
    (answer,) = sink.wait(lambda a: len(a) >= 1)
    assert answer["error"].startswith(message), answer
    assert "sys.set_int_max_str_digits" not in answer["error"]


@pytest.mark.parametrize("line,field", BAD_QUERIES,
                         ids=[f"{i}-{f}" for i, (_, f) in enumerate(BAD_QUERIES)])
def test_malformed_queries_answer_an_error_and_the_engine_goes_on(
        engine: Any, line: str, field: str | None) -> None:
    eng, sink = engine
    eng.handle(line)
    (answer,) = sink.wait(lambda a: len(a) >= 1)
    assert "error" in answer and isinstance(answer["error"], str)
    assert answer.get("field") == field
    if field not in (None, "id"):
        assert answer["id"] in ("q", "t")
    assert ask(eng, sink, query(id="after", maxVisits=20))[0]["moveInfos"]


def test_warnings_and_the_query_still_answered(engine: Any) -> None:
    eng, sink = engine
    (answer,) = ask(eng, sink, query(rules="japanese", maxVisits=30, colour="blue",
                                     overrideSettings={"wideRootNoise": 0.04, "maxTime": 5},
                                     includeMovesOwnershipStdev=True))
    assert answer["moveInfos"]
    warnings = {a["field"]: a["warning"] for a in sink.answers if "warning" in a}
    assert set(warnings) == {"rules", "overrideSettings", "colour", "includeMovesOwnershipStdev"}
    assert "deviation" in warnings["includeMovesOwnershipStdev"]
    assert "scoreAREA" in warnings["rules"] and "wideRootNoise" in warnings["overrideSettings"]
    assert all(a["id"] == "q" for a in sink.answers)


def test_avoid_and_allow_moves(engine: Any) -> None:
    eng, sink = engine
    (free,) = ask(eng, sink, query(id="free", maxVisits=400))
    top = [m["move"] for m in free["moveInfos"][:3]]
    (avoided,) = ask(eng, sink, query(id="avoid", maxVisits=400, avoidMoves=[
        {"player": "B", "moves": top, "untilDepth": 1}]))
    moves = {m["move"] for m in avoided["moveInfos"]}
    assert moves and not moves & set(top)
    assert [m["order"] for m in avoided["moveInfos"]] == list(range(len(moves)))
    # Only White is restricted, at the root where Black moves: the same search.
    sink.answers.clear()
    (other,) = ask(eng, sink, query(id="free", maxVisits=400, avoidMoves=[
        {"player": "W", "moves": top, "untilDepth": 1}]))
    assert other["moveInfos"] == free["moveInfos"]
    allowed = ["A1", "J9", "E1", "pass"]
    (only,) = ask(eng, sink, query(id="allow", maxVisits=100, allowMoves=[
        {"player": "B", "moves": allowed, "untilDepth": 1}]))
    assert {m["move"] for m in only["moveInfos"]} <= set(allowed)
    (deep,) = ask(eng, sink, query(id="deep", maxVisits=200, avoidMoves=[
        {"player": "W", "moves": ["D5", "F5"], "untilDepth": 3}]))
    assert all(m["pv"][1:2] not in (["D5"], ["F5"]) for m in deep["moveInfos"])
    # Every visit goes to the allowed moves: none is lost on a hidden move.
    assert sum(m["visits"] for m in avoided["moveInfos"]) == avoided["rootInfo"]["visits"]


def test_until_depth_counts_plies_from_the_root(engine: Any) -> None:
    """A rule holds for the first ``untilDepth`` plies only (a tester's
    finding: ``untilDepth`` 2 held at every depth, and Black's PVs passed at
    ply 3).  Black limited to E5 and D5 for 2 plies: free again at ply 3."""
    from fastplay.analysis.query import MoveFilter
    import fastplay as fp
    from fastplay.analysis.worker import filter_forbid, prohibited_moves

    eng, sink = engine
    (answer,) = ask(eng, sink, query(moves=[], maxVisits=400, allowMoves=[
        {"player": "B", "moves": ["E5", "D5"], "untilDepth": 2}]))
    assert {m["move"] for m in answer["moveInfos"]} <= {"E5", "D5"}
    board = fp.Board(9)
    rule = [MoveFilter("B", frozenset({40}), 3, False)]
    assert [40 in prohibited_moves(board, rule, depth) for depth in range(5)] == \
        [True, True, True, False, False]
    forbid = filter_forbid([MoveFilter("B", frozenset({40, 39}), 2, True)])
    assert len(forbid(board, 0)) == 81 - 2 + 1       # all but E5 and D5, the pass too
    after = board.copy()
    after.play("E5")
    assert forbid(after, 1) == frozenset()           # White's ply
    after.play("C3")
    assert forbid(after, 2) == frozenset()           # Black again, ply 3: free
    # In a real analysis (the tree's boards carry no history), Black's third
    # ply is free: the PVs do not pass there (they did when every ply was
    # held to the rule).
    (deep,) = ask(eng, sink, query(id="deep2", moves=[], maxVisits=1500, allowMoves=[
        {"player": "B", "moves": ["E5", "D5"], "untilDepth": 1}]))
    third = [m["pv"][2] for m in deep["moveInfos"] if len(m["pv"]) > 2]
    assert third and "pass" not in third


def test_allowing_only_the_pass_reports_the_pass(engine: Any) -> None:
    """``allowMoves`` of the pass alone, in the opening where the search
    forbids the pass itself: the answer is the pass with every visit (a
    tester's finding: no move was reported and the visits went to
    prohibited moves)."""
    eng, sink = engine
    (answer,) = ask(eng, sink, query(moves=[["B", "E5"]], allowMoves=[
        {"player": "W", "moves": ["pass"], "untilDepth": 1}]))
    assert [(m["move"], m["visits"]) for m in answer["moveInfos"]] == [("pass", 200)]


def test_positions_initial_stones_player_and_xy_locations() -> None:
    q = parse_query(query(moves=[["B", "(4,4)"], ["B", "c3"], ["W", "pass"]],
                          initialStones=[["W", "A9"]], initialPlayer="W",
                          analyzeTurns=[0, 3]), Defaults())
    start, end = q.positions
    assert start.to_move == "W" and start.get("A9") == "W" and start.get("E5") is None
    assert end.get("E5") == "B" and end.get("C3") == "B" and end.to_move == "B"
    assert end.move_number == 3


def test_rules_komi_and_handicap_bonus() -> None:
    stones = [["B", "C3"], ["B", "G7"]]
    assert parse_query(query(rules="chinese", komi=0.5, moves=[], initialStones=stones),
                       Defaults()).positions[0].komi == 2.5
    assert parse_query(query(rules="aga", komi=0.5, moves=[], initialStones=stones),
                       Defaults()).positions[0].komi == 1.5
    japanese = parse_query(query(rules="Japanese", komi=None, moves=[]), Defaults())
    assert japanese.positions[0].komi == 6.5 and japanese.warnings[0][0] == "rules"
    nz = parse_query(query(rules="new zealand"), Defaults())
    assert nz.positions[0].suicide and nz.positions[0].superko
    chinese = parse_query(query(rules={"ko": "SIMPLE", "scoring": "AREA", "suicide": False}),
                          Defaults())
    assert not chinese.positions[0].superko and chinese.warnings == []
    assert parse_rules({"scoring": "TERRITORY"}).komi == 6.5
    assert parse_rules({"hasButton": True}).komi == 7.0
    with pytest.raises(RulesError):
        parse_rules("")
    with pytest.raises(QueryError) as err:
        parse_query(query(rules={"komi": 7.25}), Defaults())
    assert err.value.field == "rules"
    # KataGo's short form, which fastplay's own warnings print (a tester's
    # client copied one back and got "Could not parse rules").
    from fastplay.analysis.rules import NAMED, describe

    for rules in NAMED.values():
        assert parse_rules(describe(rules)) == rules
    assert parse_query(query(rules="koSIMPLEscoreAREAtaxNONEsui0whbN", komi=0.5, moves=[],
                             initialStones=stones), Defaults()).positions[0].komi == 2.5
    for bad in ("koSIMPLE", "koSIMPLEscoreAREAwhbX", "koSIMPLEscoreAREAkomi"):
        with pytest.raises(RulesError):
            parse_rules(bad)
    # A point placed twice is refused, as KataGo does; it counted as two
    # handicap stones (a tester).
    for twice in ([["B", "C7"], ["B", "C7"]], [["B", "C7"], ["b", "C7"], ["B", "G3"]]):
        with pytest.raises(QueryError, match="twice") as err:
            parse_query(query(rules="chinese", moves=[["W", "E5"]], initialStones=twice),
                        Defaults())
        assert err.value.field == "initialStones"


def test_a_seed_makes_answers_reproducible() -> None:
    def answer() -> dict[str, Any]:
        sink = Sink()
        eng = AnalysisEngine(sink, seed=3)
        try:
            return ask(eng, sink, query(maxVisits=150, includeOwnership=True))[0]
        finally:
            eng.close()

    assert answer() == answer()


def test_several_analysis_threads(engine: Any) -> None:
    sink = Sink()
    eng = AnalysisEngine(sink, defaults=Defaults(max_visits=100), analysis_threads=2, seed=1)
    try:
        answers = ask(eng, sink, query(analyzeTurns=[0, 1, 2]), finals=3)
        assert sorted(a["turnNumber"] for a in answers) == [0, 1, 2]
    finally:
        eng.close()


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=8)
FIELDS = ["moves", "initialStones", "initialPlayer", "rules", "komi", "boardXSize",
          "boardYSize", "analyzeTurns", "maxVisits", "includeOwnership", "includePolicy",
          "priority", "avoidMoves", "allowMoves", "overrideSettings", "action", "terminateId"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(FIELDS), JSON, max_size=6))
def test_random_fields_never_crash_the_engine(fields: dict[str, Any]) -> None:
    sink = Sink()
    eng = AnalysisEngine(sink, defaults=Defaults(max_visits=5), seed=1)
    try:
        eng.handle(json.dumps({**query(maxVisits=5), **fields}))
        eng.handle(json.dumps({"id": "fz", **fields}))
    finally:
        eng.close(wait=False)
    for answer in sink.answers:
        assert "error" in answer or "warning" in answer or "id" in answer


def test_the_command_reads_stdin_to_the_end(tmp_path: Any) -> None:
    lines = [b"\xff\xfe not utf-8", b"{}", json.dumps(query(id="a", maxVisits=30)).encode(),
             json.dumps(query(id="b", maxVisits=30, analyzeTurns=[0, 1])).encode()]
    proc = subprocess.run([sys.executable, "-m", "fastplay", "analysis", "--seed", "1",
                           "--analysis-threads", "2"], input=b"\n".join(lines) + b"\n",
                          capture_output=True, timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert sum("error" in a for a in answers) == 2
    assert sorted((a["id"], a["turnNumber"]) for a in answers if "moveInfos" in a) == [
        ("a", 2), ("b", 0), ("b", 1)]
    assert proc.stderr == b""


def test_a_line_ends_at_lf_alone() -> None:
    """A CR inside a query is JSON whitespace: one query, one answer (a
    tester's finding: universal newlines split it in two errors); a CRLF line
    is a query too, as KataGo reads them."""
    inner = json.dumps(query(id="cr", maxVisits=20)).replace(", ", ",\r", 1).encode()
    crlf = json.dumps(query(id="crlf", maxVisits=20)).encode() + b"\r\n"
    proc = subprocess.run([sys.executable, "-m", "fastplay", "analysis", "--seed", "1"],
                          input=inner + b"\n" + crlf, capture_output=True, timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert not [a for a in answers if "error" in a], answers
    assert sorted(a["id"] for a in answers) == ["cr", "crlf"]


def test_quit_without_waiting_stops_queued_positions() -> None:
    q = json.dumps(query(id="slow", maxVisits=10**9, analyzeTurns=[0, 1, 2]))
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "fastplay", "analysis",
                           "--quit-without-waiting"], input=(q + "\n").encode(),
                          capture_output=True, timeout=TIMEOUT)
    assert proc.returncode == 0 and time.monotonic() - start < TIMEOUT / 2
    answers = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert sorted(a["turnNumber"] for a in answers) == [0, 1, 2]
    assert all(not a["isDuringSearch"] for a in answers)


def test_the_command_takes_a_pattern_file_and_search_options(tmp_path: Any, capsys: Any
                                                            ) -> None:
    """``--mc-load-patterns FILE`` and ``--search NAME=VALUE``, as ``fastplay
    analyze`` and ``gtp`` take them (a tester's finding: the analysis engine
    had neither); bad ones end the command before any query, status 2."""
    from pathlib import Path

    from fastplay.analysis import _database_and_config, build_parser
    from fastplay.cli import main
    from fastplay.patterns import PatternDatabase

    folder = Path(__file__).resolve().parents[1] / "patterns"
    montegnu, uniform = folder / "mc_montegnu_classic.db", folder / "mc_uniform.db"
    args = build_parser().parse_args(["--mc-load-patterns", str(uniform), "--search",
                                      "c_puct=0.5", "--search", "rave_equiv=300"])
    db, config = _database_and_config(args)
    assert (config.c_puct, config.rave_equiv, config.prior_table) == (0.5, 300.0, "auto")
    assert (db.table == PatternDatabase.builtin("mc_uniform").table).all()
    assert not (db.table == PatternDatabase.default().table).all()
    # A file of the default database plays as the default, seed for seed; another
    # file's playouts give another answer (the file is not ignored).
    line = (json.dumps(query(id="p", maxVisits=60)) + "\n").encode()
    answers = [subprocess.run([sys.executable, "-m", "fastplay", "analysis", "--seed", "3",
                               *extra], input=line, capture_output=True, timeout=TIMEOUT)
               for extra in ([], ["--mc-load-patterns", str(montegnu)],
                             ["--mc-load-patterns", str(uniform)])]
    assert [a.returncode for a in answers] == [0, 0, 0], answers[1].stderr + answers[2].stderr
    assert answers[0].stdout == answers[1].stdout and b"moveInfos" in answers[0].stdout
    assert answers[2].stdout != answers[0].stdout and b"moveInfos" in answers[2].stdout
    bad = tmp_path / "short.db"
    bad.write_text("oOo\n**O\noO?\n:10\n")
    assert main(["analysis", "--mc-load-patterns", str(bad)]) == 2
    assert f"{bad}:4:1: the diagram" in capsys.readouterr().err
    assert main(["analysis", "--mc-load-patterns", str(tmp_path / "none.db")]) == 2
    assert "none.db: No such file or directory" in capsys.readouterr().err
    assert main(["analysis", "--search", "c_puct=x"]) == 2
    assert "c_puct must be a number" in capsys.readouterr().err
    assert main(["analysis", "--search", "prior_table=none"]) == 2
    assert "use --prior" in capsys.readouterr().err
    # A prior file that is missing or is no prior: at start-up, as in fastplay
    # gtp (a tester's engine answered every query with the error instead).
    assert main(["analysis", "--prior", str(tmp_path / "none.npz")]) == 2
    assert "none.npz: No such file or directory" in capsys.readouterr().err
    assert main(["analysis", "--prior", str(tmp_path)]) == 2
    assert "not a prior" in capsys.readouterr().err


def test_cli_lists_and_helps_the_analysis_command(capsys: Any) -> None:
    from fastplay.cli import main

    assert main(["analysis", "--help"]) == 0
    assert "reportAnalysisWinratesAs" not in capsys.readouterr().err
    assert main(["analysis", "--threads", "0"]) == 2
    assert main(["analysis", "--threads", "100000"]) == 2
    assert "threads are 1..1024" in capsys.readouterr().err
    assert main(["analysis", "--analysis-threads", "1025"]) == 2
    assert "threads are 1..1024" in capsys.readouterr().err
    assert main(["--help"]) == 0
    assert "analysis" in capsys.readouterr().out


def test_answers_echo_no_lone_surrogate_and_quote_bounded_text(engine) -> None:
    """An answer echoed a lone surrogate (``"rules": "\\ud800"``, an unknown
    field, ``query_version``), which strict JSON readers refuse, and quoted
    a 1 MB ``rules`` value whole (a tester): a surrogate comes back as
    U+FFFD, a message is cut at MESSAGE_CHARS characters."""
    from fastplay.analysis.engine import MESSAGE_CHARS

    eng, sink = engine
    eng.handle('{"id":"v","action":"query_version","x":"\\ud800","y":[{"\\udcff":1}]}')
    eng.handle(json.dumps(query(id="r", rules="\ud800")))
    eng.handle(json.dumps(query(id="long", rules="x" * 1_000_000)))
    answers = sink.wait(lambda a: {"v", "r", "long"} <= {x.get("id") for x in a})
    by_id = {a["id"]: a for a in answers}
    assert by_id["v"]["x"] == "\ufffd" and by_id["v"]["y"] == [{"\ufffd": 1}]
    assert by_id["r"]["field"] == "rules" and "\ufffd" in by_id["r"]["error"]
    long = by_id["long"]["error"]
    assert len(long) < MESSAGE_CHARS + 40 and long.endswith(" characters)")
    for answer in answers:      # every answer is text a strict reader takes
        json.dumps(answer, ensure_ascii=False).encode("utf-8")


def test_positions_waiting_over_all_queries_are_bounded(engine, monkeypatch) -> None:
    """Queries queued faster than answered filled memory without bound (a
    tester's three 25x25 queries of 5,001 turns took 2.35 GB): a query that
    would pass MAX_QUEUED_POSITIONS waiting positions is refused, and the
    engine answers the next one."""
    import fastplay.analysis.engine as module

    eng, sink = engine
    monkeypatch.setattr(module, "MAX_QUEUED_POSITIONS", 2)
    eng.handle(json.dumps(query(id="big", analyzeTurns=[0, 1, 2])))
    refused = sink.wait(lambda a: any(x.get("id") == "big" for x in a))
    assert [a for a in refused if a.get("id") == "big"] == [
        {"id": "big", "field": "analyzeTurns",
         "error": "3 positions asked with 0 waiting: at most 2 at once (wait for answers, "
                  "or terminate)"}]
    assert len(ask(eng, sink, query(id="ok", analyzeTurns=[1, 2]), finals=2)) == 2


def test_many_avoid_entries_are_merged() -> None:
    """40,000 one-move ``avoidMoves`` entries made a search a thousand times
    slower, each read at every new node (a tester): the entries of one
    player and depth are one filter, prohibiting the same moves."""
    import fastplay as fp
    from fastplay.analysis.worker import prohibited_moves

    entries = [{"player": "B", "moves": [m], "untilDepth": 3} for m in ["A1", "B2", "C3"] * 1000]
    entries += [{"player": "W", "moves": ["D4"], "untilDepth": 1},
                {"player": "B", "moves": ["E5"], "untilDepth": 1}]
    parsed = parse_query(query(avoidMoves=entries, allowMoves=[
        {"player": "W", "moves": ["D4", "F6", "G7"], "untilDepth": 2}]), Defaults())
    assert len(parsed.filters) == 4
    board = fp.Board(9)
    names = {fp.board.format_vertex(m, 9) for m in prohibited_moves(board, parsed.filters, 0)}
    assert names == {"A1", "B2", "C3", "E5"}
    assert {fp.board.format_vertex(m, 9) for m in prohibited_moves(board, parsed.filters, 1)} \
        == {"A1", "B2", "C3"}
