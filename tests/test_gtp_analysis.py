"""Live analysis, handicap, superko and GNU Go's extensions over GTP (issue 17).

The analysis commands are driven as Lizzie and Sabaki drive them: a real
``fastplay gtp`` process, ``lz-analyze``/``kata-analyze`` written to its
standard input, the streamed ``info`` lines read as they come, then a new
command that must end the stream with an empty line and be answered.  Formats
follow KataGo's ``docs/GTP_Extensions.md`` field by field.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
import threading
import time
from queue import Empty, Queue

import pytest

import fastplay as fp
from fastplay.gtp import GTPEngine
from fastplay.gtp.analysis import parse_request
from fastplay.gtp.protocol import GTPError
from fastplay.search import MCTS

from conftest import shared_path, subprocess_env
from test_gtp_cases import check, parse_case, run_engine

VERTEX = r"(?:[A-HJ-Z](?:[1-9]|1\d|2[0-5])|pass)"


class Engine:
    """A ``fastplay gtp`` process with a line reader on its output."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "fastplay", "gtp", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=subprocess_env(), text=True,
                                     bufsize=1)
        self.lines: Queue[str] = Queue()
        self.errors: list[str] = []     # its stderr, read as it comes (a full pipe would block it)
        threading.Thread(target=self._read, daemon=True).start()
        self._errors_read = threading.Thread(target=self._read_errors, daemon=True)
        self._errors_read.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def _read_errors(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.errors.append(line)

    def send(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def line(self, timeout: float = 60) -> str:
        return self.lines.get(timeout=timeout)

    def answer(self, command: str) -> str:
        """Send one ordinary command; its response without the empty line."""
        self.send(command)
        lines = [self.line()]
        while lines[-1] != "":
            lines.append(self.line())
        return "\n".join(lines[:-1])

    def close(self) -> None:
        self.send("quit")
        self.proc.wait(timeout=30)
        self._errors_read.join(timeout=30)      # all of stderr in ``errors``


@pytest.fixture
def engine():
    e = Engine("--playouts", "400", "--seed", "1")
    yield e
    e.close()


def _fields(group: str) -> dict[str, str]:
    """``info move X visits N ... pv A B`` as a dict without ``info`` (pv
    kept as one string)."""
    head, _, pv = group.partition(" pv")
    words = head.split()
    assert words[0] == "info" and len(words) % 2 == 1, group
    fields = dict(zip(words[1::2], words[2::2]))
    fields["pv"] = pv.strip()
    return fields


def _stream(engine: Engine, command: str, reports: int) -> list[str]:
    """Start an analysis, read ``reports`` info lines, end it with ``name``."""
    engine.send(command)
    assert engine.line() == "="
    lines = []
    while len(lines) < reports:
        lines.append(engine.line())
        assert lines[-1].startswith("info "), lines[-1]
    engine.send("name")
    rest = []
    while True:                       # lines already on their way, then the end
        rest.append(engine.line())
        if rest[-1] == "":
            break
        assert rest[-1].startswith("info "), rest[-1]
    assert engine.line() == "= fastplay" and engine.line() == ""
    return lines + rest[:-1]


def test_lz_analyze_streams_leela_zero_lines_until_new_input(engine):
    engine.answer("boardsize 9")
    engine.answer("clear_board")
    engine.answer("play b E5")
    start = time.perf_counter()
    lines = _stream(engine, "lz-analyze w 10", reports=3)
    assert time.perf_counter() - start < 10
    visits_seen = []
    for line in lines:
        groups = ["info " + g for g in line.split("info ") if g.strip()]
        orders = []
        for group in groups:
            f = _fields(group.strip())
            assert list(f) == ["move", "visits", "winrate", "prior", "lcb", "order", "pv"]
            assert re.fullmatch(VERTEX, f["move"]), group
            for key in ("winrate", "prior", "lcb"):
                assert f[key].isdigit() and 0 <= int(f[key]) <= 10000, group
            assert int(f["lcb"]) <= int(f["winrate"])
            assert f["pv"].split()[0] == f["move"]
            assert all(re.fullmatch(VERTEX, m) for m in f["pv"].split())
            orders.append(int(f["order"]))
        assert orders == list(range(len(orders)))
        visits_seen.append(sum(int(_fields(g.strip())["visits"]) for g in groups))
    assert visits_seen == sorted(visits_seen) and visits_seen[-1] > 0
    # The engine goes on as before: the stream did not change the game.
    assert engine.answer("list_stones black") == "= E5"


def test_kata_analyze_floats_scores_and_ownership(engine):
    engine.answer("boardsize 9")
    engine.answer("clear_board")
    engine.answer("play b E5")
    lines = _stream(engine, "kata-analyze 10 ownership true maxmoves 5", reports=2)
    for line in lines:
        moves, _, own = line.partition(" ownership ")
        values = [float(v) for v in own.split()]
        assert len(values) == 81 and all(-1 <= v <= 1 for v in values)
        # White to move: E5 (row 5 from the top is index 4, column E is 4)
        # is Black's stone, so negative from White's point of view.
        assert values[4 * 9 + 4] < 0
        groups = [g for g in moves.split("info ") if g.strip()]
        assert 1 <= len(groups) <= 5
        for group in groups:
            f = _fields("info " + group.strip())
            for key in ("winrate", "prior", "lcb"):
                assert 0 <= float(f[key]) <= 1
            assert float(f["lcb"]) <= float(f["winrate"])
            assert float(f["utility"]) == pytest.approx(2 * float(f["winrate"]) - 1, abs=1e-5)
            assert math.isfinite(float(f["scoreMean"])) and float(f["scoreStdev"]) >= 0
            assert f["scoreLead"] == f["scoreMean"]


def _kata_report(command: str) -> str:
    """One ``kata-analyze`` report of a 400-playout search after ``play b E5`` on 9x9."""
    db = fp.PatternDatabase.builtin("mc_montegnu_classic")
    gtp = GTPEngine(MCTS(db, seed=3), size=9)
    gtp.handle("play b E5")
    response = gtp.handle(command)
    assert response is not None and response.startswith("=\n"), response
    return response.split("\n")[1]


def _board_field(line: str, name: str) -> list[float]:
    """The 81 numbers after `` NAME `` in a report."""
    words = line.split(f" {name} ", 1)[1].split()[:81]
    return [float(v) for v in words]


def test_kata_analyze_pv_visits_root_info_and_ownership_stdev():
    """KataGo's ``pvVisits``, ``pvEdgeVisits``, ``rootInfo`` and
    ``ownershipStdev`` keys, in KataGo's order: the moves (each with its PV's
    visits, the move's own first, never growing along the line), then
    ``rootInfo``, ``ownership`` and ``ownershipStdev``."""
    line = _kata_report("kata-analyze w 5 pvVisits true pvEdgeVisits true rootInfo true "
                        "ownership true ownershipStdev true")
    moves, _, rest = line.partition(" rootInfo ")
    assert rest.index(" ownership ") < rest.index(" ownershipStdev ")
    root = dict(zip(rest.split()[0:18:2], rest.split()[1:18:2]))
    assert list(root) == ["visits", "utility", "winrate", "scoreMean", "scoreStdev",
                          "scoreLead", "scoreSelfplay", "weight", "ownership"][:len(root)]
    total = 0
    for group in ("info " + g.strip() for g in moves.split("info ") if g.strip()):
        head, _, tail = group.partition(" pv ")
        f = dict(zip(head.split()[1::2], head.split()[2::2]))
        pv, _, counts = tail.partition(" pvVisits ")
        visits, _, edges = counts.partition(" pvEdgeVisits ")
        seen = [int(v) for v in visits.split()]
        assert len(seen) == len(pv.split()) and seen[0] == int(f["visits"]) == int(f["weight"])
        assert all(a >= b for a, b in zip(seen, seen[1:])) and edges.split() == visits.split()
        assert f["scoreSelfplay"] == f["scoreLead"] == f["scoreMean"]
        total += int(f["visits"])
    assert int(root["visits"]) >= total > 0
    assert 0 <= float(root["winrate"]) <= 1
    own, stdev = _board_field(line, "ownership"), _board_field(line, "ownershipStdev")
    assert all(0 <= d <= 1 and o * o + d * d <= 1 + 1e-5 for o, d in zip(own, stdev))
    # Every point has an owner at a playout's end but for a rare dame, so the
    # surest point (Black's E5 stone) varies least.
    sure = max(range(81), key=lambda i: abs(own[i]))
    assert sure == 4 * 9 + 4 and stdev[sure] == min(stdev) < max(stdev)
    plain = _kata_report("kata-analyze w 5")
    assert not any(key in plain for key in ("pvVisits", "rootInfo", "ownership", "weight 0"))


def test_kata_analyze_moves_ownership():
    """``movesOwnership true``: after each move's PV, the ownership of the
    position after that move (playouts from it, as the analysis protocol's
    ``includeMovesOwnership``; 8 to 32 of them), from the side to move's
    view (White): Black's E5 stone leans Black's, and the points the moves
    take lean White's on average."""
    line = _kata_report("kata-analyze w 5 maxmoves 3 movesOwnership true")
    groups = [g for g in line.split("info ") if g.strip()]
    assert len(groups) == 3
    taken = []
    for group in groups:
        move = group.split()[1]
        values = [float(v) for v in group.split(" movesOwnership ")[1].split()]
        assert len(values) == 81 and all(-1 <= v <= 1 for v in values)
        row, col = 9 - int(move[1:]), "ABCDEFGHJ".index(move[0])
        taken.append(values[row * 9 + col])
        assert values[4 * 9 + 4] < -0.2, move
    assert sum(taken) / len(taken) > 0.1, taken


def test_moves_without_visits_show_the_root_value_not_a_loss():
    """``minmoves`` pads the report with unvisited moves: they show the
    root's win rate (KataGo gives them their parent's first-play value), not 0."""
    line = _kata_report("kata-analyze w 5 minmoves 80 rootInfo true")
    moves, _, rest = line.partition(" rootInfo ")
    root = float(rest.split()[5])
    groups = [dict(zip(g.split(" pv ")[0].split()[::2], g.split(" pv ")[0].split()[1::2]))
              for g in moves.split("info ") if g.strip()]
    unvisited = [g for g in groups if g["move"] and int(g["visits"]) == 0]
    assert len(groups) == 80 and unvisited
    assert all(float(g["winrate"]) == pytest.approx(root, abs=1e-5) for g in unvisited)
    assert all("scoreMean" in g for g in unvisited)


def test_genmove_analyze_reports_then_plays(engine):
    engine.answer("boardsize 9")
    engine.answer("clear_board")
    engine.send("lz-genmove_analyze b 5")
    assert engine.line() == "="
    lines = [engine.line()]
    while not lines[-1].startswith("play "):
        assert lines[-1].startswith("info "), (lines[-3:], "".join(engine.errors))
        lines.append(engine.line())
    assert engine.line() == ""
    move = lines[-1].split()[1]
    assert move == "E5"            # the opening book on the empty 9x9 board
    assert engine.answer("list_stones black") == "= E5"
    engine.send("kata-genmove_analyze w 5")
    assert engine.line() == "="
    line = engine.line()
    while not line.startswith("play "):
        line = engine.line()
    assert engine.line() == ""
    assert re.fullmatch(f"play {VERTEX}|play resign", line)


# Black to move and lost: White owns the bottom three rows and the rest is open
# to it (Black's win rate about 1 %); a tester's position.
LOST = ("(;GM[1]FF[4]SZ[9]KM[7.5]AW[ag][ah][ai][bg][bi][cg][ch][ci][dg][dh][di][eg][eh][ei]"
        "[fg][fh][fi][gg][gi][hg][hh][hi][ig][ih][ii]PL[B])")


def _lost_engine(tmp_path) -> GTPEngine:
    (tmp_path / "lost.sgf").write_text(LOST)
    db = fp.PatternDatabase.builtin("mc_montegnu_classic")
    gtp = GTPEngine(MCTS(db, seed=1), size=9)
    gtp.playouts = 500
    assert gtp.handle(f"loadsgf {tmp_path / 'lost.sgf'}") == "=\n\n"
    return gtp


def _played(response: str | None) -> str:
    assert response is not None
    return response.strip().split("\n")[-1]


@pytest.mark.parametrize("command", ["genmove b", "kata-genmove_analyze b 1000",
                                     "lz-genmove_analyze b 1000",
                                     "kata-genmove_analyze b 1000 avoid b a1 1"])
def test_genmove_analyze_resigns_as_genmove_does(tmp_path, command):
    """``genmove_analyze`` searches the game's move: the resignation count
    goes on from search to search (two searches below ``resign_threshold``
    resign), as with ``genmove`` (a tester found it never resigned, and,
    with ``avoid``, that a search of its own neither resigned nor kept the
    clock); the ``avoid`` restriction is gone afterwards."""
    gtp = _lost_engine(tmp_path)
    first = _played(gtp.handle(command))
    assert "resign" not in first and "A1" not in first
    gtp.handle("undo")
    assert _played(gtp.handle(command)) in ("= resign", "play resign")
    assert gtp.search().forbid is None
    assert gtp.handle("kata-genmove_analyze b 10 movesOwnership true").startswith(
        "? movesOwnership is for kata-analyze")


def test_analysis_commands_are_not_game_moves(tmp_path):
    """GoGui's analysis commands and ``kata-analyze`` leave the resignation
    count and the clock alone: after them the first ``genmove`` does not
    resign, and the clock's time left is the main time."""
    gtp = _lost_engine(tmp_path)
    gtp.handle("time_settings 600 0 0")
    gtp.playouts = None
    gtp.seconds = 0.05
    for command in ("fastplay-best_moves", "fastplay-ownership", "fastplay-best_moves",
                    "kata-analyze b 5"):
        assert gtp.handle(command).startswith("=")
    assert gtp.search().clock.left == {}
    assert _played(gtp.handle("genmove b")) != "= resign"
    assert list(gtp.search().clock.left) == [int(fp.Color.BLACK)]


def test_genmove_analyze_spends_the_clock(tmp_path):
    """With ``time_settings`` and no other limit ``kata-genmove_analyze``
    thinks for the clock's budget and charges it, as ``genmove``."""
    gtp = _lost_engine(tmp_path)
    gtp.playouts = None
    gtp.handle("time_settings 4 0 0")
    budget = gtp.search().time_budget(gtp.board)
    assert budget is not None and budget < 1
    start = time.perf_counter()
    gtp.handle("kata-genmove_analyze b 10")
    took = time.perf_counter() - start
    left, _ = gtp.search().clock.left[int(fp.Color.BLACK)]
    assert took >= 0.5 * budget and left < 4
    assert left == pytest.approx(4 - took, abs=0.2)     # the time it took, charged


def test_a_new_line_ends_the_stream_even_when_empty(engine):
    engine.answer("boardsize 9")
    engine.send("lz-analyze b 5")
    assert engine.line() == "="
    engine.line()
    engine.send("")                  # a raw newline ends it too
    while engine.line() != "":
        pass
    assert engine.answer("1 name") == "=1 fastplay"


def test_gogui_live_graphics_and_both_spellings():
    e = Engine("--playouts", "200", "--seed", "1", "--gogui-gfx")
    try:
        e.answer("boardsize 9")
        assert e.answer("gogui-analyze_commands") == e.answer("gogui_analyze_commands")
        e.answer("play b E5")
        e.answer("genmove w")
    finally:
        e.close()
    err = "".join(e.errors)
    assert "gogui-gfx:" in err and "LABEL" in err and "VAR W" in err and "INFLUENCE A9" in err


@pytest.mark.parametrize("args, message, kata", [
    ("x 1", "unknown key", True), ("10 ownership maybe", "true or false", True),
    ("10 minmoves", "no value", True), ("0", "at least 1", False),
    ("b 10 ownership true", "unknown key", False), ("w 10 maxmoves -1", "negative", True),
    ("10 avoid b d4", "player, vertices and a depth", True),
    ("10 avoid b z99 1", "off the 19x19 board", False), ("10 avoid b d4,,e5 1", "bad vertex", True),
    ("10 avoid x d4 1", "invalid color", True), ("10 avoid b d4 0", "at least 1", False),
    ("10 allow b d4 1 allow b e5 1", "at most one allow", True),
    ("10 movesOwnershipStdev true", "not supported", True),
    ("10 pvVisits true", "unknown key", False),
    ("10 rootInfo yes", "true or false", True),
])
def test_bad_analysis_arguments_answer_an_error(args, message, kata):
    with pytest.raises(GTPError, match=message):
        parse_request(args.split(), "B", kata=kata)


def test_handle_gives_one_report_of_a_stream():
    db = fp.PatternDatabase.builtin("mc_montegnu_classic")
    engine = GTPEngine(MCTS(db, seed=1), size=9)
    response = engine.handle("lz-analyze b 5")
    assert response is not None
    head, *lines = response.split("\n")
    assert head == "=" and response.endswith("\n\n") and lines[0].startswith("info move")
    assert engine.handle("kata-analyze b 5 ownership true").count("ownership") == 1
    assert engine.handle("name") == "= fastplay\n\n"


def test_case_35_handicap_commands():
    data = shared_path("cases", "35-gtp-handicap-commands.gtp").read_bytes()
    steps = parse_case(data)
    responses, status = run_engine(data, ["gtp", "--playouts", "100", "--seed", "1"])
    assert status == 0 and len(responses) == len(steps)
    stones: set[str] = set()
    for step, response in zip(steps, responses):
        words = step.command.split()
        expect = step.expect or ""
        if words[0] in ("fixed_handicap", "place_free_handicap") and response.startswith("="):
            placed = response[1:].split()
            assert len(placed) == len(set(placed)) == int(words[1])
            stones = set(placed)
            if "(any order" in expect:
                assert set(placed) == set(expect.split("(")[0][1:].split())
        elif words[0] == "list_stones" and "the same" in expect:
            assert set(response[1:].split()) == stones
        elif words[0] == "genmove":
            move = response[1:].strip()
            assert response.startswith("=") and (move == "pass" or move.upper() not in stones)
        elif expect.startswith("?"):
            assert response.startswith("?"), (step.command, response)
        elif "(any order)" in expect:
            assert set(response[1:].split()) == set(expect[1:].split("(")[0].split())
        else:
            check(expect, response)


@pytest.mark.parametrize("superko", [True, False])
def test_case_39_positional_superko(superko):
    data = shared_path("cases", "39-board-positional-superko-play.gtp").read_bytes()
    steps = parse_case(data)
    args = ["gtp", "--playouts", "100", "--seed", "1"] + (["--superko"] if superko else [])
    responses, status = run_engine(data, args)
    assert status == 0 and len(responses) == len(steps)
    for step, response in zip(steps, responses):
        expect = step.expect or ""
        if "superko on:" in expect:
            on, off = re.fullmatch(r"superko on: (.*)\. Simple ko: (.*)", expect).groups()
            expect = on if superko else off
        if step.command.startswith("genmove"):
            move = response[1:].strip().upper()
            assert response.startswith("=") and not (superko and move == "E1"), response
        elif "(any order)" in expect or step.command.startswith("list_stones"):
            want = re.sub(r"\(.*?\)", "", expect)[1:].split()
            assert set(response[1:].split()) == set(want), (step.command, response)
        elif expect.startswith("?"):
            assert response.startswith("?"), (step.command, response)
        else:
            check(re.sub(r"\s*\(.*\)$", "", expect), response)


def test_gnu_go_extensions(tmp_path):
    engine = GTPEngine(size=9)
    assert engine.handle("play b E5").startswith("=")
    assert engine.handle("is_legal w E5") == "= 0\n\n"
    assert engine.handle("is_legal w D5") == "= 1\n\n"
    assert engine.handle("is_legal w Z9").startswith("?")
    assert engine.handle("captures b") == "= 0\n\n"
    sgf = engine.handle("printsgf")
    assert sgf is not None and "B[ee]" in sgf
    path = tmp_path / "game.sgf"
    assert engine.handle(f"printsgf {path}") == "=\n\n"
    assert fp.Board.from_sgf(path).get("E5") == "B"
    missing = tmp_path / "no" / "game.sgf"
    assert engine.handle(f"printsgf {missing}") == (
        f"? cannot write file {missing}: No such file or directory\n\n")
    assert float(engine.handle("cputime")[2:]) >= 0
    assert "lz-analyze" in engine.handle("help")
    for line in ("kgs-time_settings none", "kgs-time_settings absolute 300",
                 "kgs-time_settings byoyomi 300 30 5", "kgs-time_settings canadian 300 30 5"):
        assert engine.handle(line) == "=\n\n", line
    assert engine.handle("kgs-time_settings fischer 1 2").startswith("?")
    assert engine.handle("kgs-time_settings absolute").startswith("?")
    # Every count is checked, the byo-yomi periods too (a tester's finding).
    assert engine.handle("kgs-time_settings byoyomi 10 10 -5").startswith(
        "? syntax error: negative")
    assert engine.handle("kgs-time_settings byoyomi 10 10 99999999999").startswith(
        "? time settings above")


def test_quit_exits_cleanly_while_the_controller_keeps_its_end_open():
    """A controller sends quit and waits for the process to end, its pipe
    still open (a daemon reader inside sys.stdin.buffer aborted the
    interpreter's shutdown: exit status -6)."""
    for commands in ("quit\n", "boardsize 9\nlz-analyze b 5\nquit\n"):
        proc = subprocess.Popen([sys.executable, "-m", "fastplay", "gtp", "--playouts", "50"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=subprocess_env())
        assert proc.stdin is not None
        proc.stdin.write(commands.encode())
        proc.stdin.flush()
        try:
            assert proc.wait(timeout=30) == 0
        finally:
            proc.stdin.close()
        err = proc.stderr.read().decode() if proc.stderr else ""
        assert "Fatal" not in err, err


def test_the_stream_answers_at_once_and_skips_empty_reports(engine):
    engine.answer("boardsize 9")
    start = time.perf_counter()
    engine.send("lz-analyze b 300 maxmoves 0")      # a report every 3 s, each empty
    assert engine.line() == "="
    assert time.perf_counter() - start < 2.5          # "=" before the first report
    time.sleep(3.5)
    engine.send("name")
    assert engine.line() == ""                        # no empty report ended it early
    assert engine.line() == "= fastplay" and engine.line() == ""


def _scored_groups(response: str) -> list[dict[str, str]]:
    line = response.split("\n")[1].partition(" ownership ")[0]
    return [_fields("info " + g.strip()) for g in line.split("info ") if g.strip()]


def test_kata_analyze_gives_every_move_a_score_after_genmove_and_again():
    """A tester's finding: moves whose visits came from an earlier search
    (genmove, or the same position analysed before) had no scoreMean."""
    db = fp.PatternDatabase.builtin("mc_montegnu_classic")
    engine = GTPEngine(MCTS(db, seed=3), size=9, playouts=300)
    engine.handle("play b E5")
    engine.handle("genmove w")          # untallied visits in the tree it leaves
    for _ in range(3):                  # then the same position analysed again and again
        groups = _scored_groups(engine.handle("kata-analyze b 5 maxmoves 50"))
        assert groups
        for f in groups:
            assert math.isfinite(float(f["scoreMean"])), f
            assert float(f["scoreStdev"]) >= 0 and f["scoreLead"] == f["scoreMean"]


def _reported(response: str) -> list[str]:
    return [f["move"] for f in _scored_groups(response)]


def test_avoid_and_allow_with_an_evaluator():
    """A filtered analysis of a search that mixes an evaluator into its leaf
    values keeps the evaluator (a tester's finding: every avoid/allow
    request failed with 'mix=0.5 needs an evaluator')."""
    db = fp.PatternDatabase.builtin("mc_montegnu_classic")
    calls: list[int] = []

    def evaluator(boards):
        calls.append(len(boards))
        return [0.5] * len(boards)

    engine = GTPEngine(MCTS(db, seed=5, evaluator=evaluator, mix=0.5), size=9, playouts=200)
    engine.handle("play b E5")
    seen = _reported(engine.handle("lz-analyze w 5 avoid w c3,c7,g3 1"))
    assert seen and not set(seen) & {"C3", "C7", "G3"}
    assert calls, "the filtered search did not call the evaluator"
    response = engine.handle("lz-genmove_analyze w 5 allow w g7 1")
    assert response.rstrip("\n").endswith("play G7")


def test_allow_of_the_movers_own_eye_is_searched():
    """A1 is White's own true eye, never a candidate of the search: ``allow
    w A1 1`` left only the pass, which the filter then hid (a silent
    analysis) and ``lz-genmove_analyze`` played (a prohibited move: a
    tester).  KataGo searches A1; so does fastplay now."""
    db = fp.PatternDatabase.builtin("mc_montegnu_classic")
    engine = GTPEngine(MCTS(db, seed=5), size=9, playouts=200)
    for move in ("b e5", "w a2", "b e4", "w b1"):
        engine.handle("play " + move)
    assert _reported(engine.handle("lz-analyze w 5 allow w a1 1")) == ["A1"]
    assert "A1" in _reported(engine.handle("kata-analyze w 5 allow w a1,pass 1"))
    assert engine.handle("lz-genmove_analyze w 5 allow w a1 1").rstrip("\n").endswith("play A1")
    # Without a restriction the own eye stays out of the search.
    engine.handle("undo")
    assert "A1" not in _reported(engine.handle("lz-analyze w 5"))


def test_a_filter_that_takes_nothing_adds_no_eye_fills():
    """Only White's two eyes are left: the search passes, and a filter for
    the other side leaves it so; allowing an eye searches it."""
    db = fp.PatternDatabase.builtin("mc_montegnu_classic")
    engine = GTPEngine(MCTS(db, seed=5), size=5, playouts=100)
    for vertex in ["b1", "d1", "e1"] + [f"{c}{r}" for r in (2, 3, 4, 5) for c in "abcde"]:
        engine.handle("play w " + vertex)
    assert _reported(engine.handle("lz-analyze w 5 avoid b a1 1")) == ["pass"]
    assert _reported(engine.handle("lz-analyze w 5 allow w a1 1")) == ["A1"]


def test_avoid_and_allow_as_lizzie_sends_them():
    """KataGo's and Leela Zero's ``avoid``/``allow`` keys (a tester's
    finding: they were refused as unknown keys)."""
    db = fp.PatternDatabase.builtin("mc_montegnu_classic")
    engine = GTPEngine(MCTS(db, seed=5), size=9, playouts=300)
    engine.handle("play b E5")
    free = _reported(engine.handle("kata-analyze w 5 maxmoves 80"))
    banned = free[:3]
    seen = _reported(engine.handle(f"kata-analyze w 5 maxmoves 80 avoid w {','.join(banned)} 1"))
    assert seen and not set(seen) & set(banned)
    seen = _reported(engine.handle("lz-analyze w 5 allow w c3,c7,g3 1"))
    assert seen and set(seen) <= {"C3", "C7", "G3"}
    # A rule for the other side at depth 1 prohibits nothing: the usual search.
    assert _reported(engine.handle("kata-analyze w 5 avoid b c3 1"))
    # The pass alone, in the opening (where the search forbids it itself).
    assert _reported(engine.handle("kata-analyze w 5 allow w pass 1")) == ["pass"]
    response = engine.handle("kata-genmove_analyze w 5 allow w g7 1")
    assert response.rstrip("\n").endswith("play G7")
    assert engine.handle("list_stones white") == "= G7\n\n"
    assert engine.handle("kata-analyze b 5 avoid b q9 1").startswith("? syntax error: vertex Q9 is off")
    assert engine.handle("name") == "= fastplay\n\n"
