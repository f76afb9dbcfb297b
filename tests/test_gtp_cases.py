"""The GTP cases of ``../shared/cases`` through a real ``fastplay gtp`` subprocess.

Each ``.gtp`` file is sent unchanged, as bytes (case 24 has CR LF line ends
and 20,000-character lines), to ``python -m fastplay gtp`` on standard input.
Every command line gets exactly one response; each ``# expect:`` line is
checked against the response to the command above it, as written: where the
line allows alternatives, exactly those are accepted.

Cases 28 (seki) and 29 (no pass while a dead stone is on the board) are SGF
positions, driven through GTP ``loadsgf``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import shared_path, subprocess_env
from fastplay.gtp import preprocess

GTP_CASES = ["19-gtp-undo-after-capture.gtp", "21-gtp-play-bad-arguments.gtp",
             "22-gtp-illegal-move-keeps-state.gtp", "24-gtp-framing.gtp",
             "26-gtp-komi-persists.gtp"]

# Few playouts: genmove only has to answer a legal move quickly here.
ENGINE_ARGS = ["gtp", "--playouts", "64", "--seed", "1"]

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


def run_engine(stdin: bytes, args: list[str] = ENGINE_ARGS, timeout: float = 300) -> tuple[list[str], int]:
    """Responses (without their final blank line) and the exit status of ``fastplay gtp``."""
    env = subprocess_env()
    proc = subprocess.run([sys.executable, "-m", "fastplay", *args], input=stdin,
                          capture_output=True, timeout=timeout, env=env)
    out = proc.stdout.decode()
    assert out.endswith("\n\n") or out == "", f"unterminated response: {out[-200:]!r}"
    responses = out.split("\n\n")[:-1]
    return responses, proc.returncode


@dataclass
class Step:
    command: str           # the command line after GTP preprocessing
    expect: str | None     # the text after "# expect:", or None


def parse_case(data: bytes) -> list[Step]:
    """Commands of a case file in order, each with its ``# expect:`` line."""
    steps: list[Step] = []
    for raw in data.split(b"\n"):
        text = raw.decode("utf-8", errors="replace").rstrip("\r")
        if text.startswith("# expect:"):
            assert steps and steps[-1].expect is None, f"expect line without command: {text!r}"
            steps[-1].expect = text[len("# expect:"):].strip()
            continue
        command = preprocess(raw)
        if command:
            steps.append(Step(command, None))
    return steps


def _vertex_on_board(text: str, size: int) -> bool:
    if text.lower() == "pass":
        return True
    match = re.fullmatch(r"([A-HJ-Z])(\d+)", text.upper())
    return bool(match) and COLUMNS.index(match[1]) < size and 1 <= int(match[2]) <= size


def check(expect: str, response: str) -> None:
    """Assert that ``response`` is what the expect line allows.

    Forms found in the cases:
    ``=`` / ``=ID`` (empty success), ``= TEXT`` (exact), ``? TEXT`` (exact
    message), ``? (comment)`` (any message), ``=ID <engine name>`` (any
    non-empty name), ``= <a vertex on the NxN board, or pass>``,
    ``=ID A B (... order may differ)`` (same set), ``= or ? (comment)``
    (either), ``= (nothing, or X if ...)`` (empty or X).  A form not listed
    fails the test, so that no expectation is silently skipped.
    """
    match = re.fullmatch(r"([=?])(\d*)(?:\s+(.*))?", expect)
    assert match, f"unreadable expect line {expect!r}"
    status, cmd_id, rest = match[1], match[2], (match[3] or "").strip()
    if rest.startswith("or ?") or rest.startswith("or ="):
        assert response[:1] in "=?", response
        return
    assert response[:1] == status, f"expected {expect!r}, got {response!r}"
    head = response[1:].split(" ", 1)[0].split("\n", 1)[0]
    assert head == cmd_id, f"expected id {cmd_id!r} in {response!r}"
    body = response[1 + len(cmd_id):].strip()
    comment = ""
    paren = re.search(r"\s*\((.*)\)\s*$", rest)
    if paren:
        comment, rest = paren[1], rest[:paren.start()].strip()
    if rest == "<engine name>":
        assert body, response
    elif m := re.fullmatch(r"<a vertex on the (\d+)x\1 board, or pass>", rest):
        assert _vertex_on_board(body, int(m[1])), response
    elif status == "?" and not rest:
        assert body, "an error needs a message"
    elif not rest and (m := re.fullmatch(r"nothing, or (\S+) if .*", comment)):
        assert body in ("", m[1]), response
    elif "order may differ" in comment:
        assert sorted(body.split()) == sorted(rest.split()), response
    else:
        assert body == rest, f"expected {expect!r}, got {response!r}"


@pytest.mark.parametrize("name", GTP_CASES)
def test_gtp_case(name: str) -> None:
    data = shared_path("cases", name).read_bytes()
    steps = parse_case(data)
    assert steps and all(step.expect is not None for step in steps), name
    responses, status = run_engine(data)
    assert status == 0, "end of input without quit must exit with status 0"
    assert len(responses) == len(steps), (
        f"{len(steps)} commands but {len(responses)} responses: {responses}")
    for step, response in zip(steps, responses):
        assert step.expect is not None
        check(step.expect, response)


def test_case_21_extra_argument_is_consistent() -> None:
    """Case 21 allows '=' or '?' for 'play b d4 extra', but list_stones must agree."""
    data = shared_path("cases", "21-gtp-play-bad-arguments.gtp").read_bytes()
    steps = parse_case(data)
    responses, _ = run_engine(data)
    answers = {step.command: response for step, response in zip(steps, responses)}
    played = answers["play b d4 extra"].startswith("=")
    assert answers["list_stones black"] == ("= D4" if played else "=")


def test_case_24_framing_exact() -> None:
    """Case 24's responses byte for byte: ids, error lines, no empty results."""
    data = shared_path("cases", "24-gtp-framing.gtp").read_bytes()
    responses, status = run_engine(data)
    assert status == 0
    assert responses[:4] == ["=1 2", "=2 fastplay", "?3 unknown command", "=4 false"]
    assert responses[4] == "=5 true"
    assert responses[8] == "?11 illegal move"
    assert responses[9] == "? unknown command"
    assert responses[10] == "=12"


# -- SGF positions through loadsgf ------------------------------------------------

SEKI_STRINGS = [["D4", "D5", "D6"], ["D3", "E3", "E4", "F4", "F5", "F6"]]


def test_case_28_seki_score_and_status() -> None:
    sgf = shared_path("cases", "28-scoring-seki.sgf")
    script = (f"loadsgf {sgf}\nfinal_score\nfinal_status_list dead\n"
              "final_status_list seki\nfinal_status_list alive\nlist_stones black\n"
              "list_stones white\n").encode()
    responses, status = run_engine(script, ["gtp", "--playouts", "400", "--seed", "1"])
    assert status == 0
    loaded, score, dead, seki, alive, black, white = responses
    assert loaded == "="
    assert score == "= W+8.0", "area: Black 13, White 21, E5 E6 neutral, komi 0"
    assert dead == "=", "no stone is dead in seki"
    seki_strings = sorted(sorted(line.split()) for line in seki[1:].strip().split("\n"))
    assert seki_strings == sorted(SEKI_STRINGS)
    stones = sorted(black[1:].split() + white[1:].split())
    assert sorted(seki[1:].split() + alive[1:].split()) == stones


@pytest.mark.parametrize("seed", ["1", "2", "3"])
def test_case_28_seki_genmove_passes_for_both_colours(seed: str) -> None:
    """The case: GNU Go answers PASS for either colour; no move changes the area score."""
    sgf = shared_path("cases", "28-scoring-seki.sgf")
    script = f"loadsgf {sgf}\ngenmove b\nloadsgf {sgf}\ngenmove w\n".encode()
    responses, status = run_engine(script, ["gtp", "--playouts", "2000", "--seed", seed])
    assert status == 0
    assert responses == ["=", "= pass", "=", "= pass"]


@pytest.mark.parametrize("seed", ["1", "9"])
def test_case_28_a_scoring_query_does_not_make_the_next_genmove_resign(seed: str) -> None:
    """A tester's finding: ``final_score`` (or ``final_status_list``, as GUIs
    send during play) ran its search as a game move, counted it towards
    resignation, and the next ``genmove b`` resigned (seeds 1 and 9 at 1,000
    playouts) where it passes without the query."""
    sgf = shared_path("cases", "28-scoring-seki.sgf")
    script = (f"loadsgf {sgf}\nfinal_score\ngenmove b\nloadsgf {sgf}\n"
              "final_status_list dead\ngenmove b\n").encode()
    responses, status = run_engine(script, ["gtp", "--playouts", "1000", "--seed", seed])
    assert status == 0
    assert responses == ["=", "= W+8.0", "= pass", "=", "=", "= pass"]


def test_case_29_white_must_not_pass_with_dead_stone() -> None:
    """Passing loses under Tromp-Taylor (B+14.5); capturing G5 wins (W+0.5).

    Needs the MCTS search (``fastplay.mcts``); without it genmove answers '?'.
    """
    sgf = shared_path("cases", "29-mcts-no-pass-with-dead-stone.sgf")
    script = f"loadsgf {sgf}\nfinal_score\ngenmove w\n".encode()
    responses, status = run_engine(script, ["gtp", "--playouts", "2000", "--seed", "1"])
    assert status == 0
    loaded, _score, move = responses
    assert loaded == "="
    assert move.startswith("= "), f"genmove failed: {move!r}"
    vertex = move[2:].strip()
    assert vertex.lower() not in ("pass", "resign"), "White must not pass (or resign) here"
    assert _vertex_on_board(vertex, 7)


def test_end_of_input_without_quit_exits_zero() -> None:
    responses, status = run_engine(b"name\nboardsize 9")
    assert responses == ["= fastplay", "="] and status == 0


def test_quit_stops_reading() -> None:
    responses, status = run_engine(b"1 quit\n2 name\n")
    assert responses == ["=1"] and status == 0


def test_bad_pattern_option_is_a_clean_error(tmp_path: Path) -> None:
    env = subprocess_env()
    for args in (["--mc-patterns", "no_such_db"],
                 ["--mc-load-patterns", str(tmp_path / "missing.db")]):
        proc = subprocess.run([sys.executable, "-m", "fastplay", "gtp", *args], input=b"name\n",
                              capture_output=True, env=env, timeout=120)
        assert proc.returncode == 2
        assert b"Traceback" not in proc.stderr and b"fastplay: error:" in proc.stderr
