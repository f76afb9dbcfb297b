"""Batch analysis: ``fastplay analyze A.sgf B.sgf DIR/ --every N --json --jobs --write-sgf``.

Includes ../shared/cases/40-sgf-pv-coordinates-small-boards.txt: principal
variations written to SGF in the board's own coordinates, not 19 rows.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from sgfmill import common, sgf, sgf_properties

from fastplay import Board
from fastplay.analyze import main
from fastplay.batch import (SGF_SUFFIX, analysis_turns, gtp_to_sgf, record_paths, sgf_to_gtp,
                            write_analysis_sgf)
from fastplay.sgf import record_moves

GAME_9 = b"(;GM[1]FF[4]SZ[9]KM[7]C[a comment with \\] inside];B[ee];W[cf];B[gd];W[ce];B[dc])"
GAME_13 = b"(;GM[1]FF[4]SZ[13]KM[7];B[gg];W[dj];B[jd])"


@pytest.mark.parametrize("size,vertex,point", [
    (9, "D4", "df"), (9, "E5", "ee"), (9, "A9", "aa"), (9, "J1", "ii"), (9, "C7", "cc"),
    (9, "G3", "gg"), (13, "D4", "dj"), (13, "K10", "jd"), (13, "N13", "ma"), (13, "A1", "am"),
    (13, "G7", "gg"), (19, "D4", "dp"), (19, "Q16", "pd"), (19, "T19", "sa"), (19, "A1", "as"),
    (19, "K10", "jj"), (9, "pass", ""), (9, "d4", "df")])
def test_case_40_part_a_single_vertices(size: int, vertex: str, point: str) -> None:
    assert gtp_to_sgf(vertex, size) == point
    assert sgf_to_gtp(point, size) == ("pass" if point == "" else vertex.upper())


def answer_with_pv(to_move: str, pv: list[str]) -> dict[str, Any]:
    return {"rootInfo": {"currentPlayer": to_move, "winrate": 0.5, "scoreLead": 0.0,
                         "visits": 10},
            "moveInfos": [{"move": pv[0], "visits": 10, "winrate": 0.5, "pv": pv}]}


def compact(text: bytes) -> bytes:
    """``text`` without line breaks (sgfmill wraps long lines)."""
    return b"".join(text.splitlines())


def variation(text: bytes) -> tuple[Any, list[tuple[str | None, Any]]]:
    game = sgf.Sgf_game.from_bytes(text)
    node = game.get_root()
    while node and not node.get_move()[0]:
        node = node[0]
    line = []
    child = node[-1]
    while True:
        line.append(child.get_move())
        if not len(child):
            break
        child = child[0]
    return node, line


def test_case_40_part_b_a_variation_on_9x9() -> None:
    record = b"(;GM[1]FF[4]SZ[9]KM[7];B[ee])"
    text = write_analysis_sgf(record, {1: answer_with_pv("W", ["D4", "A9", "J1", "pass"])})
    assert b"W[df]C[" in compact(text) and b";B[aa];W[ii];B[])" in compact(text)
    assert b"tt" not in text
    node, line = variation(text)
    assert node.get_move() == ("b", (4, 4)) and len(node) == 1
    assert line == [("w", (3, 3)), ("b", (8, 0)), ("w", (0, 8)), ("b", None)]
    assert [common.format_vertex(m) for _, m in line] == ["D4", "A9", "J1", "pass"]


def test_case_40_part_c_a_variation_on_13x13() -> None:
    record = b"(;GM[1]FF[4]SZ[13]KM[7];B[gg])"
    text = write_analysis_sgf(record, {1: answer_with_pv("W", ["D4", "K10", "N13", "A1"])})
    assert b"W[dj]C[" in compact(text) and b";B[jd];W[ma];B[am])" in compact(text)
    _, line = variation(text)
    assert [(c, common.format_vertex(m)) for c, m in line] == [
        ("w", "D4"), ("b", "K10"), ("w", "N13"), ("b", "A1")]


def test_case_40_part_b_with_a_next_move_the_variation_is_a_second_child() -> None:
    record = b"(;GM[1]FF[4]SZ[9]KM[7];B[ee];W[cc])"
    text = write_analysis_sgf(record, {1: answer_with_pv("W", ["D4", "A9"])})
    game = sgf.Sgf_game.from_bytes(text)
    node = game.get_root()[0]
    assert [child.get_move() for child in node] == [("w", (6, 2)), ("w", (3, 3))]
    assert Board.from_sgf(text).history == [("B", "E5"), ("W", "C7")]  # main line kept


@pytest.mark.parametrize("record", [
    b"(;GM[1]FF[4]SZ[9]KM[7];B[ee];W[cc];B[];W[])",
    b"(;GM[1]FF[4]SZ[9]KM[7]RE[W+R];B[ee];W[cc])",
])
def test_a_finished_game_keeps_its_end(record: bytes) -> None:
    """Below the last node of a finished game (two passes, or a result) no
    variation is written: readers would take it for the game's main line (a
    tester's report); earlier nodes still get theirs, the last its comment."""
    answers = {1: answer_with_pv("W", ["D4", "A9"])}
    last = len(Board.from_sgf(record).history)
    answers[last] = answer_with_pv("W" if last % 2 == 0 else "B", ["D4", "A9"])
    text = write_analysis_sgf(record, answers)
    game = sgf.Sgf_game.from_bytes(text)
    main = game.get_main_sequence()
    assert Board.from_sgf(text).history == Board.from_sgf(record).history
    assert len(main) == last + 1 and not len(main[-1])
    assert "fastplay: " in main[-1].get("C") and len(main[1]) == 2


@pytest.mark.parametrize("record", [
    b"(;GM[1]SZ[9]RE[B+R];B[ee];W[cc];B[dd]AE[dd];W[gg])",      # setup after a move
    b"(;GM[1]SZ[9]RE[B+R];B[ee];W[cc]PL[W])",                   # the side to move set after
    b"(;GM[1]SZ[9]RE[B+R];B[ee]W[cc];B[gg])",                   # two moves in one node
    b"(;GM[1]SZ[9:9]RE[B+R];B[ee];W[cc])",                      # SZ in the N:N form
    b"(;GM[1]SZ[9]RE[B+R]C[x][y];B[ee]C[a][b];W[cc])",          # repeated texts
    "(;CA[Shift_JIS]SZ[9]RE[B+R]PB[表];B[ee];W[cc])".encode("shift_jis"),
    "(;CA[UTF-16]SZ[9]RE[B+R]PB[表];B[ee];W[cc])".encode("utf-16"),
])
def test_an_analysis_record_reads_back_as_the_game_it_analyses(record: bytes) -> None:
    """What a second tester's records did to ``--write-sgf``: sgfmill sorted a
    node's properties (``AE[dd]B[dd]`` put back a stone the record had
    removed; ``PL[W]W[cc]`` gave the turn to the other side), a node with B
    and W was counted as one turn (the PV then played White twice),
    ``SZ[9:9]`` and ``C[x][y]`` failed the write, and a Shift_JIS name
    whose second byte is a backslash swallowed the next move (so did the
    reading of the record itself).  Each record now reads back, move for
    move, position and side to move, as the record itself reads."""
    moves = record_moves(record)
    answers = {turn: answer_with_pv("B" if turn % 2 == 0 else "W", ["A1", "B1"])
               for turn in range(moves + 1)}
    text = write_analysis_sgf(record, answers)
    original, written = Board.from_sgf(record), Board.from_sgf(text)
    assert written.history == original.history and moves >= 2
    assert (written.to_numpy() == original.to_numpy()).all()
    assert written.to_move == original.to_move
    assert text.count(b"fastplay: ") >= 2
    if b"PB" in text:
        assert written.sgf_properties["PB"] == "表"


def test_case_40_part_d_every_point_of_every_size() -> None:
    for size in range(2, 26):
        for row in range(size):
            for col in range(size):
                vertex = common.format_vertex((row, col))
                point = gtp_to_sgf(vertex, size)
                assert sgf_to_gtp(point, size) == vertex
                assert point.encode() == sgf_properties.serialise_go_point((row, col), size)
    # sgfmill writes a pass as "tt" up to 19x19; the writer says [] itself.
    assert sgf_properties.serialise_go_point(None, 19) == b"tt"
    assert gtp_to_sgf("pass", 19) == ""
    for bad in ("J10", "Z1", "A0", "I3", "", "D"):
        with pytest.raises(ValueError):
            gtp_to_sgf(bad, 9)


def test_record_paths_and_turns(tmp_path: Path) -> None:
    (tmp_path / "d" / "e").mkdir(parents=True)
    for name in ("d/b.sgf", "d/a.SGF", "d/e/c.sgf", "d/a" + SGF_SUFFIX, "d/notes.txt"):
        (tmp_path / name).write_bytes(GAME_9)
    d = str(tmp_path / "d")
    found = record_paths([d, str(tmp_path / "d" / "b.sgf"), "missing.sgf"])
    assert [os.path.relpath(p, d) for p in found[:3]] == ["a.SGF", "b.sgf", "e/c.sgf"]
    assert found[3:] == ["missing.sgf"]
    # One file however spelt, the first spelling kept (a tester's record
    # given as b.sgf and ./b.sgf was analysed twice).
    here = os.getcwd()
    try:
        os.chdir(d)
        (tmp_path / "d" / "link.sgf").symlink_to(tmp_path / "d" / "b.sgf")
        assert record_paths(["b.sgf", "./b.sgf", str(tmp_path / "d" / "b.sgf"), "link.sgf",
                             "e/../b.sgf"]) == ["b.sgf"]
        # A hard link is the same record too (a leftover of the last note).
        os.link("b.sgf", "hard.sgf")
        assert record_paths(["hard.sgf", "b.sgf", "e/c.sgf"]) == ["hard.sgf", "e/c.sgf"]
    finally:
        os.chdir(here)
    assert analysis_turns(5, 1) == [0, 1, 2, 3, 4, 5]
    assert analysis_turns(5, 2) == [0, 2, 4]
    assert analysis_turns(0, 3) == [0]


def run(args: list[str], capsys: Any) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_batch_with_a_failing_record(tmp_path: Path, capsys: Any) -> None:
    (tmp_path / "games").mkdir()
    a = tmp_path / "a.sgf"
    a.write_bytes(GAME_9)
    (tmp_path / "games" / "b.sgf").write_bytes(GAME_13)
    (tmp_path / "games" / "broken.sgf").write_bytes(b"(;GM[1]SZ[9];B[ee];W[ee])")
    (tmp_path / "games" / "empty.sgf").write_bytes(b"")
    out = tmp_path / "out.jsonl"
    code, stdout, err = run([str(a), str(tmp_path / "games"), "--every", "2", "--json",
                             str(out), "--playouts", "100", "--write-sgf"], capsys)
    assert code == 1 and stdout == ""
    assert "broken.sgf: " in err and "illegal" in err and "empty.sgf: " in err
    assert "2 records analysed (5 positions), 2 failed" in err
    answers = lines_of(out)
    assert [(Path(x["id"]).name, x["turnNumber"]) for x in answers] == [
        ("a.sgf", 0), ("a.sgf", 2), ("a.sgf", 4), ("b.sgf", 0), ("b.sgf", 2)]
    for x in answers:
        assert x["isDuringSearch"] is False and x["moveInfos"] and x["rootInfo"]["visits"] == 100
        size = 9 if x["id"].endswith("a.sgf") else 13
        assert len(x["ownership"]) == size * size
    written = (tmp_path / ("a" + SGF_SUFFIX)).read_bytes()
    game = sgf.Sgf_game.from_bytes(written)
    assert game.get_root().get("C").startswith("a comment with ] inside\n\nfastplay: ")
    assert Board.from_sgf(written).history == Board.from_sgf(GAME_9).history
    # Turn 2 is the position after W C4 (cf): the variation hangs below it.
    after = game.get_main_sequence()[2]
    assert after.get_move() == ("w", (3, 2)) and len(after) == 2
    first = after[1]
    pv = answers[1]["moveInfos"][0]["pv"]
    assert first.get_move() == ("b", sgf_properties.interpret_go_point(
        gtp_to_sgf(pv[0], 9).encode(), 9))
    assert (tmp_path / "games" / ("b" + SGF_SUFFIX)).exists()
    assert not (tmp_path / "games" / ("broken" + SGF_SUFFIX)).exists()


def test_a_directory_without_records_is_an_error(tmp_path: Path, capsys: Any) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("no records here")
    a = tmp_path / "a.sgf"
    a.write_bytes(GAME_9)
    code, _, err = run([str(tmp_path / "empty"), "--playouts", "20"], capsys)
    assert code == 1
    assert f"error: {tmp_path / 'empty'}: no .sgf records in this directory" in err
    assert "0 records analysed (0 positions), 1 failed" in err
    code, _, err = run([str(a), str(tmp_path / "empty"), "--playouts", "20"], capsys)
    assert code == 1 and "1 record analysed (6 positions), 1 failed" in err


def test_records_may_follow_the_options(tmp_path: Path, capsys: Any) -> None:
    """``fastplay analyze A.sgf --every 2 B.sgf``: a record after the options
    is one more record, not an unrecognised argument."""
    (tmp_path / "a.sgf").write_bytes(GAME_9)
    (tmp_path / "b.sgf").write_bytes(GAME_13)
    code, _, err = run([str(tmp_path / "a.sgf"), "--every", "2", "--playouts", "20",
                        str(tmp_path / "b.sgf")], capsys)
    assert code == 0 and "2 records analysed (5 positions), 0 failed" in err
    # After "--" every word is a record, "--playouts" too (argparse's
    # intermixed parsing alone would take it for the option).
    code, _, err = run(["--playouts", "20", "--", str(tmp_path / "a.sgf"), "--every"], capsys)
    assert code == 1 and "--every: No such file" in err


def test_jobs_do_not_change_the_answers(tmp_path: Path, capsys: Any) -> None:
    paths = []
    for name, data in (("a.sgf", GAME_9), ("b.sgf", GAME_13)):
        (tmp_path / name).write_bytes(data)
        paths.append(str(tmp_path / name))
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    assert run(paths + ["--json", str(one), "--playouts", "60"], capsys)[0] == 0
    assert run(paths + ["--json", str(two), "--playouts", "60", "--jobs", "2"], capsys)[0] == 0
    assert lines_of(one) == lines_of(two) and len(lines_of(one)) == 10


def test_a_record_warning_names_the_record_once(tmp_path: Path, capsys: Any) -> None:
    record = tmp_path / "nokomi.sgf"
    record.write_bytes(b"(;GM[1]FF[4]SZ[9]KM[seven];B[ee];W[cc];B[dd])")
    code, stdout, err = run([str(record), "--every", "1", "--playouts", "20"], capsys)
    assert code == 0 and len(stdout.splitlines()) == 4
    warned = [line for line in err.splitlines() if "KM[seven]" in line]
    assert warned == [f"fastplay analyze: warning: {record}: KM[seven] holds no usable komi "
                      f"(a number within +-1000000 points); using the board's default"]


@pytest.mark.parametrize("rules, told", [("Japanese", True), ("korean", True),
                                         ("Chinese", False), ("AGA", False), ("", False)])
def test_territory_rules_are_said_to_be_analysed_by_area(tmp_path: Path, capsys: Any,
                                                         rules: str, told: bool) -> None:
    """``fastplay analysis`` warned of territory rules; ``analyze`` said
    nothing (a tester): a batch and a single record now warn once."""
    record = tmp_path / "jp.sgf"
    record.write_text(f"(;GM[1]SZ[9]RU[{rules}]KM[6.5];B[ee];W[cc])")
    for extra in (["--every", "2"], []):
        code, _, err = run([str(record), "--playouts", "10", *extra], capsys)
        said = [line for line in err.splitlines() if "territory" in line]
        assert code == 0 and len(said) == told
        assert not told or said[0].endswith(f"RU[{rules}]: territory scoring; analysed by "
                                            "area scoring (Tromp-Taylor)")


def test_a_batch_analyses_the_positions_after_a_setup_node(tmp_path: Path,
                                                            capsys: Any) -> None:
    """A tester's record: the positions after a setup node inside the game
    were skipped ("4 positions" of 8), a board's own move count restarting there."""
    record = tmp_path / "mid.sgf"
    record.write_text("(;GM[1]FF[4]SZ[9];B[ee];W[cc];B[gg];W[dd];AB[aa];B[ef];W[fe];B[ah])",
                      encoding="utf-8")
    code, stdout, _ = run([str(record), "--playouts", "20", "--json", "-"], capsys)
    assert code == 0
    assert [json.loads(x)["turnNumber"] for x in stdout.splitlines()] == list(range(8))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_in_a_folder_is_reported_not_waited_for(tmp_path: Path,
                                                            capsys: Any) -> None:
    """A batch read a named pipe it found in a folder and waited for ever for
    a writer (a tester): a record found in a folder must be a regular file.
    (One named on the command line may be a pipe: process substitution.)"""
    games = tmp_path / "games"
    games.mkdir()
    (games / "a.sgf").write_bytes(GAME_9)
    os.mkfifo(games / "pipe.sgf")
    code, stdout, err = run([str(games), "--playouts", "20", "--json", "-"], capsys)
    assert code == 1
    assert "pipe.sgf: not a regular file" in err and "1 failed" in err
    assert {json.loads(x)["id"] for x in stdout.splitlines()} == {str(games / "a.sgf")}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_batch_reads_its_pattern_database_once(tmp_path: Path, jobs: str) -> None:
    """``--mc-load-patterns <(...)``: the batch read the pipe to check it, and
    each job read it again, finding it empty: one job analysed silently with
    an empty database, two failed every record (a tester).  The main process
    reads it once and the workers get its table."""
    import subprocess
    import sys
    import threading

    from fastplay.patterns import PatternDatabase

    games = tmp_path / "games"
    games.mkdir()
    (games / "a.sgf").write_bytes(GAME_9)
    (games / "b.sgf").write_bytes(GAME_13)
    source = PatternDatabase.builtin("mc_uniform").source
    assert source is not None
    pipe = tmp_path / "db.pipe"
    os.mkfifo(pipe)

    def feed() -> None:
        with open(pipe, "wb") as w:       # one writer, once: a second read finds no one
            w.write(Path(source).read_bytes())

    answers = []
    for db in (str(source), str(pipe)):
        writer = threading.Thread(target=feed, daemon=True)
        if db == str(pipe):
            writer.start()
        done = subprocess.run([sys.executable, "-m", "fastplay", "analyze", str(games),
                               "--every", "2", "--playouts", "30", "--jobs", jobs,
                               "--json", "-", "--mc-load-patterns", db],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        answers.append(done.stdout)
    assert answers[0] == answers[1] and len(answers[0].splitlines()) == 5


def test_batch_to_stdout_and_sgf_dir(tmp_path: Path, capsys: Any) -> None:
    record = tmp_path / "a.sgf"
    record.write_bytes(GAME_13)
    outdir = tmp_path / "out" / "new"          # created, as fastplay match does
    code, stdout, _ = run([str(record), "--every", "3", "--playouts", "50", "--json", "-",
                           "--write-sgf", "--sgf-dir", str(outdir)], capsys)
    assert code == 0
    assert [json.loads(x)["turnNumber"] for x in stdout.splitlines()] == [0, 3]
    assert (outdir / ("a" + SGF_SUFFIX)).exists()
    code, stdout, _ = run([str(record), "--every", "3", "--playouts", "50"], capsys)
    assert code == 0 and len(stdout.splitlines()) == 2  # no --json, no --write-sgf: stdout


@pytest.mark.parametrize("args, said", [
    (["a.sgf", "b.sgf", "--move", "3"], "neither --move nor --plot"),
    (["a.sgf", "--every", "2", "--plot", "x.png"], "neither --move nor --plot"),
    (["--every", "2"], "needs SGF files"),
    (["--sgf-dir", "out"], "needs SGF files"),      # a tester was told of --move and --plot
    (["a.sgf", "--write-sgf", "--sgf-dir", "/dev/null/dir"], "error"),
    (["a.sgf", "--every", "0"], "error"),
    (["a.sgf", "--sgf-dir", "out"], "--sgf-dir says where --write-sgf writes")])
def test_batch_usage_errors(args: list[str], said: str, capsys: Any) -> None:
    code, _, err = run(args, capsys)
    assert code == 2 and said in err


def test_an_sgf_dir_that_is_a_file_is_said_so(tmp_path: Path, capsys: Any) -> None:
    (tmp_path / "a.sgf").write_bytes(GAME_9)
    (tmp_path / "out").write_text("a file")
    code, _, err = run([str(tmp_path / "a.sgf"), "--write-sgf", "--sgf-dir",
                        str(tmp_path / "out")], capsys)
    assert code == 2 and "out: is a file, not a directory" in err


def test_a_json_target_that_cannot_be_written_is_a_usage_error(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]
                                                              ) -> None:
    """A missing folder, a folder, or one of the input records (it would have
    been overwritten with JSON): exit 2 before any search, records untouched."""
    record = tmp_path / "game.sgf"
    text = "(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[cc])"
    record.write_text(text)
    for target, problem in ((str(tmp_path / "no" / "x.jsonl"), "no such directory"),
                            (str(tmp_path), "is a directory"),
                            (str(record), "records to analyse"), ("", "an empty file name"),
                            (str(record / "x.jsonl"), "game.sgf is a file, not a directory"),
                            ("/proc/x.jsonl", "No such file")):     # found when opened: 2 too
        assert main([str(record), str(record), "--json", target]) == 2
        err = capsys.readouterr().err
        assert problem in err and "Traceback" not in err
    assert record.read_text() == text


def test_a_json_target_inside_a_folder_of_records_may_not_be_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A record the folder given stands for is an input too; another file
    in that folder is not."""
    (tmp_path / "games" / "deep").mkdir(parents=True)
    record = tmp_path / "games" / "deep" / "keep.SGF"
    record.write_bytes(GAME_9)
    games = str(tmp_path / "games")
    assert main([games, "--json", str(record)]) == 2
    assert "records to analyse" in capsys.readouterr().err
    assert record.read_bytes() == GAME_9
    notes = tmp_path / "games" / "notes.jsonl"
    assert main([games, "--json", str(notes), "--playouts", "10", "--every", "9"]) == 0
    assert len(lines_of(notes)) == 1


def test_a_batch_that_writes_nothing_leaves_the_json_file_as_it_was(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every record failing (missing, unreadable) keeps an existing --json
    file (a tester's finding: it was emptied); one answer replaces it."""
    keep = tmp_path / "keep.jsonl"
    keep.write_text("PRECIOUS\n")
    broken = tmp_path / "broken.sgf"
    broken.write_bytes(b"(;GM[1]SZ[9];B[ee]")
    for record in (str(tmp_path / "missing.sgf"), str(broken)):
        assert main([record, str(record), "--json", str(keep)]) == 1
        assert keep.read_text() == "PRECIOUS\n"
    capsys.readouterr()
    record = tmp_path / "game.sgf"
    record.write_bytes(GAME_9)
    assert main([str(record), str(broken), "--json", str(keep), "--playouts", "10",
                 "--every", "9"]) == 1
    assert [line["id"] for line in lines_of(keep)] == [str(record)]


def test_a_json_target_that_fails_while_written_ends_the_batch(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]
                                                               ) -> None:
    """A full disk (/dev/full) while the lines are written: one error line
    naming the target, exit status 1, no traceback (a tester's finding)."""
    record = tmp_path / "game.sgf"
    record.write_text("(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[cc])")
    assert main([str(record), "--every", "2", "--playouts", "20", "--json", "/dev/full"]) == 1
    err = capsys.readouterr().err
    assert "error: writing /dev/full: No space left on device" in err and "Traceback" not in err


def test_records_of_one_name_from_several_folders_keep_their_analyses(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--sgf-dir with two records called a.sgf: a.analysis.sgf and
    a-2.analysis.sgf, in the order given (the second overwrote the first)."""
    from fastplay.batch import sgf_targets

    for folder, move in (("c1", "ee"), ("c2", "cc")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "a.sgf").write_text(f"(;GM[1]FF[4]SZ[9]KM[7.5];B[{move}])")
    records = [str(tmp_path / "c1" / "a.sgf"), str(tmp_path / "c2" / "a.sgf")]
    out = tmp_path / "out"
    code, _, _ = run([*records, "--playouts", "20", "--write-sgf", "--sgf-dir", str(out)],
                     capsys)
    assert code == 0
    assert {p.name for p in out.iterdir()} == {"a" + SGF_SUFFIX, "a-2" + SGF_SUFFIX}
    assert b"B[cc]" in (out / ("a-2" + SGF_SUFFIX)).read_bytes()
    assert sgf_targets(records, None) == {r: r[:-4] + SGF_SUFFIX for r in records}


def test_write_sgf_never_overwrites_an_input_or_the_json(tmp_path: Path, capsys) -> None:
    """A record named like another's analysis (``g`` and ``g.analysis.sgf``)
    was overwritten by it, as was the ``--json`` file and a record reached
    through a symbolic link (a tester): such a target takes ``NAME-2``."""
    (tmp_path / "g").write_text("(;GM[1]FF[4]SZ[9];B[ee])")
    taken = tmp_path / ("g" + SGF_SUFFIX)
    taken.write_text("(;GM[1]FF[4]SZ[9];B[cc];W[gg])")
    json_target = tmp_path / ("h" + SGF_SUFFIX)
    (tmp_path / "h.sgf").write_text("(;GM[1]FF[4]SZ[9];B[dd])")
    code, _, _ = run([str(tmp_path / "g"), str(taken), str(tmp_path / "h.sgf"), "--playouts",
                      "20", "--write-sgf", "--json", str(json_target)], capsys)
    assert code == 0
    assert taken.read_text() == "(;GM[1]FF[4]SZ[9];B[cc];W[gg])"        # kept as it was
    assert b"B[ee]" in (tmp_path / ("g-2" + SGF_SUFFIX)).read_bytes()
    assert b"B[dd]" in (tmp_path / ("h-2" + SGF_SUFFIX)).read_bytes()
    lines = json_target.read_text().splitlines()                        # JSON only: 2 + 3 + 2 turns
    assert len(lines) == 7 and all(json.loads(line)["id"] for line in lines)
    from fastplay.batch import sgf_targets

    link = tmp_path / ("k" + SGF_SUFFIX)
    link.symlink_to(tmp_path / "h.sgf")
    assert sgf_targets([str(tmp_path / "k.sgf"), str(tmp_path / "h.sgf")], None,
                       [str(link)])[str(tmp_path / "k.sgf")] == str(tmp_path / ("k-2" + SGF_SUFFIX))


def test_no_more_worker_processes_than_positions(monkeypatch: pytest.MonkeyPatch) -> None:
    """--jobs 100 for a few positions started a process each (a tester's
    finding): the pool has no more workers than there are positions."""
    import multiprocessing
    import signal

    import fastplay.batch as batch

    sizes: list[int] = []

    class Pool:
        """In this process: the workers' initialiser (which ignores SIGINT)
        runs here, and the handler is given back at the end."""

        def __init__(self, processes: int, initializer: Any = None,
                     initargs: tuple[Any, ...] = ()) -> None:
            sizes.append(processes)
            self.sigint = signal.getsignal(signal.SIGINT)
            initializer(*initargs)

        def __enter__(self) -> Pool:
            return self

        def __exit__(self, *exc: object) -> None:
            signal.signal(signal.SIGINT, self.sigint)

        def imap(self, fn: Any, jobs: Any, chunksize: int) -> Any:
            return map(fn, jobs)

    context = type("Context", (), {"Pool": Pool})
    monkeypatch.setattr(multiprocessing, "get_context", lambda kind: context)
    monkeypatch.setattr(batch, "analyse_job", lambda job: {"id": job})
    db = object()
    got = batch._results([1, 2, 3], 100, db)  # type: ignore[arg-type, list-item]
    assert [a["id"] for a in got] == [1, 2, 3]
    assert sizes == [3] and batch._WORKER["db"] is db
    assert [a["id"] for a in batch._results([1], 100, db)] == [1]  # type: ignore[arg-type]
    assert sizes == [3]                                         # one job: no pool at all


def test_a_batch_takes_a_database_file_and_search_options(tmp_path: Path, capsys: Any) -> None:
    """``--mc-load-patterns`` and ``--search`` reach every worker: with
    ``--jobs 2`` the answers equal those of one process and of the single
    position's search with the same options, and differ from the defaults';
    a bad file or option is one usage error before any search, and the
    database's warning is shown once (a tester's finding: analyze had
    neither flag)."""
    import shutil
    import warnings

    from fastplay.patterns import PatternDatabase, PatternWarning

    record = tmp_path / "a.sgf"
    record.write_bytes(GAME_9)
    uniform = PatternDatabase.builtin("mc_uniform").source
    assert uniform is not None
    db = tmp_path / "u.db"
    shutil.copy(uniform, db)
    options = ["--mc-load-patterns", str(db), "--search", "c_puct=3", "--playouts", "60"]
    answers = []
    for extra in ([], ["--jobs", "2"]):
        out = tmp_path / f"o{len(extra)}.jsonl"
        assert run([str(record), "--json", str(out), *options, *extra], capsys)[0] == 0
        answers.append(lines_of(out))
    plain = tmp_path / "plain.jsonl"
    assert run([str(record), "--json", str(plain), "--playouts", "60"], capsys)[0] == 0
    assert answers[0] == answers[1] and answers[0] != lines_of(plain)
    empty = tmp_path / "empty.db"
    empty.write_text("")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        code, _, _ = run([str(record), "--every", "3", "--playouts", "20",
                          "--mc-load-patterns", str(empty)], capsys)
    assert code == 0
    assert [str(w.message) for w in seen if issubclass(w.category, PatternWarning)] \
        == [f"{empty}: no pattern: every move gets the default value (is it a .db file?)"]
    for bad, said in ((["--mc-load-patterns", str(tmp_path / "missing.db")], "missing.db"),
                      (["--search", "mix=0.5"], "needs an evaluator")):
        code, stdout, err = run([str(record), "--every", "3", *bad], capsys)
        assert code == 2 and said in err and stdout == ""
    code, _, err = run([str(record), "--search", "prior_table=none"], capsys)
    assert code == 2 and "use --prior" in err


@pytest.mark.parametrize("rules, bonus", [("Chinese", 2.0), ("AGA", 1.0), ("Japanese", 0.0),
                                          ("tromp-taylor", 0.0), ("", 0.0), ("house", 0.0)])
def test_a_handicap_record_gets_the_analysis_protocol_s_komi(tmp_path: Path, capsys: Any,
                                                             monkeypatch: Any, rules: str,
                                                             bonus: float) -> None:
    """``fastplay analysis`` adds KataGo's ``whiteHandicapBonus`` to a query's
    komi; ``analyze`` used the record's ``KM`` alone, N points apart (a
    tester).  The komi of every turn is now the protocol's for the query
    KaTrain would send (the record's ``RU`` as rules, ``KM``, its setup
    stones and moves), and the record's note says so."""
    from fastplay.analysis.query import Defaults, parse_query
    from fastplay.batch import handicap_komi
    from fastplay.sgf import opening_moves

    ru = f"RU[{rules}]" if rules else ""
    text = f"(;GM[1]FF[4]SZ[9]{ru}HA[2]KM[0.5]AB[cc][gg];W[ee];B[ce])"
    record = tmp_path / "handicap.sgf"
    record.write_text(text, encoding="utf-8")
    query = {"id": "h", "boardXSize": 9, "boardYSize": 9, "komi": 0.5,
             "rules": rules.lower() if rules in ("Chinese", "AGA", "Japanese") else "tromp-taylor",
             "initialStones": [["B", "C7"], ["B", "G3"]], "moves": [["W", "E5"], ["B", "C5"]],
             "analyzeTurns": [0, 1, 2]}
    protocol = [b.komi for b in parse_query(query, Defaults()).positions]
    start = Board.from_sgf(text, move_number=0)
    opening = opening_moves(text)
    ours = [0.5 + handicap_komi(Board.from_sgf(text, move_number=t), start, opening, t)
            for t in range(3)]
    assert ours == protocol == [0.5 + bonus] * 3
    import fastplay.batch as batch

    searched: list[float] = []
    real = batch.analyse_job

    def spy(job: Any) -> dict[str, Any]:
        searched.append(Board.from_sgf(job.data, move_number=job.turn).komi + job.komi_bonus)
        return real(job)

    monkeypatch.setattr(batch, "analyse_job", spy)
    code, _, err = run([str(record), "--every", "1", "--playouts", "10"], capsys)
    told = [line for line in err.splitlines() if "whiteHandicapBonus" in line]
    assert code == 0 and len(told) == (bonus > 0)
    assert searched == protocol                  # the komi each job searches with
    code, out, err = run([str(record), "--playouts", "10"], capsys)
    assert code == 0 and f"(komi {0.5 + bonus:g})" in out


@pytest.mark.parametrize("text, komi", [
    # Black's first moves in a row are handicap stones, from the turn they are down.
    ("(;FF[4]GM[1]SZ[9]KM[0.5]RU[Chinese];B[gc];B[cg];B[gg];W[ee];B[cc])",
     [0.5, 0.5, 2.5, 3.5, 3.5, 3.5]),
    # An even game with a setup node, then two Black moves: no handicap (a
    # tester: the board's history restarts at the setup node, so they counted).
    ("(;FF[4]GM[1]SZ[9]KM[0.5]RU[Chinese];B[ee];W[ce];AB[gg]AE[ce];B[cc];B[dd];W[gc])",
     [0.5] * 6),
    # KataGo's own RU: its short form.
    ("(;FF[4]GM[1]SZ[9]KM[0.5]RU[koSIMPLEscoreAREAtaxNONEsui0whbN]AB[cc][gg];W[ee])",
     [2.5, 2.5]),
    # KataGo's count (a tester's table): a White setup stone, no handicap...
    ("(;FF[4]GM[1]SZ[9]KM[7.5]RU[Chinese]AW[cc];B[gg];B[cg];W[ee])", [7.5] * 4),
    # ... a setup stone and a move make two ...
    ("(;FF[4]GM[1]SZ[9]KM[0.5]RU[Chinese]AB[cc];B[gg];W[ee])", [0.5, 2.5, 2.5]),
    # ... a Black pass is no stone, a lone White pass between Black's moves is skipped.
    ("(;FF[4]GM[1]SZ[9]KM[0.5]RU[Chinese];B[ee];B[];W[cc])", [0.5] * 4),
    ("(;FF[4]GM[1]SZ[9]KM[0.5]RU[Chinese];B[ee];W[];B[cc];W[dd])", [0.5, 0.5, 0.5, 2.5, 2.5]),
])
def test_handicap_komi_follows_the_record_s_moves(text: str, komi: list[float]) -> None:
    """Per turn, as KataGo counts handicap stones (``computeNumHandicapStones``)
    and as ``fastplay analysis`` gives each turn of a query of the record."""
    from fastplay.analysis.query import Defaults, parse_query
    from fastplay.batch import handicap_komi
    from fastplay.sgf import opening_moves

    start = Board.from_sgf(text, move_number=0)
    opening = opening_moves(text)
    assert [0.5 + handicap_komi(Board.from_sgf(text, move_number=t), start, opening, t)
            if "KM[0.5]" in text else
            7.5 + handicap_komi(Board.from_sgf(text, move_number=t), start, opening, t)
            for t in range(len(komi))] == komi
    if "AE" not in text and "koSIMPLE" not in text:
        board = Board.from_sgf(text)
        size = board.size
        stones = [["B" if v > 0 else "W", f"{'ABCDEFGHJ'[i % size]}{size - i // size}"]
                  for i, v in enumerate(start.to_numpy().ravel().tolist()) if v]
        moves = [[c.letter, v.upper()] for c, v in board.history]
        query = {"id": "q", "boardXSize": 9, "boardYSize": 9, "rules": "chinese",
                 "komi": 0.5 if "KM[0.5]" in text else 7.5, "initialStones": stones,
                 "moves": moves, "analyzeTurns": list(range(len(komi)))}
        assert [b.komi for b in parse_query(query, Defaults()).positions] == komi


def test_the_handicap_note_names_the_default_komi(tmp_path: Path, capsys: Any) -> None:
    """Without ``KM`` the note said "added to KM[7.5]" (a tester)."""
    record = tmp_path / "nokm.sgf"
    record.write_text("(;FF[4]GM[1]SZ[9]HA[2]RU[Chinese]AB[cc][gg];W[ee])", encoding="utf-8")
    code, out, err = run([str(record), "--playouts", "10"], capsys)
    assert code == 0 and "added to the komi 7.5" in err and "(komi 9.5)" in out
    record.write_text("(;FF[4]GM[1]SZ[9]HA[2]RU[Chinese]KM[0.5]AB[cc][gg];W[ee])",
                      encoding="utf-8")
    code, out, err = run([str(record), "--playouts", "10"], capsys)
    assert code == 0 and "added to the komi 0.5" in err and "(komi 2.5)" in out


def test_worker_processes_leave_ctrl_c_to_the_main_process() -> None:
    """A terminal's Ctrl-C reaches every process of the group: a worker's
    ``KeyboardInterrupt`` traceback was printed beside the main process's
    clean exit (a tester).  Workers ignore SIGINT; the main process ends
    the pool."""
    import signal

    from fastplay.batch import _WORKER, _worker_start
    from fastplay.patterns import PatternDatabase

    db = PatternDatabase.default()
    before = signal.getsignal(signal.SIGINT)
    try:
        _worker_start(db)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN and _WORKER["db"] is db
    finally:
        signal.signal(signal.SIGINT, before)
        _WORKER.pop("db", None)


def test_a_record_name_that_is_no_utf8_is_an_id_any_reader_takes(tmp_path: Path,
                                                                  capsys) -> None:
    """A record named with a byte that is no UTF-8 gave the JSON id a lone
    surrogate (``"b/n\\udce9.sgf"``), which strict JSON readers refuse (a
    tester): the byte is written ``\\xNN``."""
    name = os.fsencode(tmp_path) + b"/n\xe9.sgf"
    try:
        with open(name, "wb") as f:
            f.write(GAME_9)
    except OSError:
        pytest.skip("this file system refuses names that are not UTF-8")
    out = tmp_path / "out.jsonl"
    code, _, _ = run([os.fsdecode(name), "--playouts", "20", "--json", str(out)], capsys)
    assert code == 0
    ids = {json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()}
    assert ids == {f"{tmp_path}/n\\xe9.sgf"}
    out.read_text(encoding="utf-8").encode("utf-8")


def test_an_sgf_dir_that_cannot_be_written_is_refused_first(tmp_path: Path, capsys,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    """``--write-sgf --sgf-dir /sys`` ran every search, then failed each
    record (a tester): the folder is tried before any search."""
    import tempfile

    record = tmp_path / "g.sgf"
    record.write_bytes(GAME_9)

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "TemporaryFile", refused)
    code, out, err = run([str(record), "--playouts", "20", "--write-sgf", "--sgf-dir",
                          str(tmp_path / "out")], capsys)
    assert code == 2 and "cannot write in this folder: Permission denied" in err and not out


def test_a_collection_is_told_once(tmp_path: Path, capsys) -> None:
    """A collection's warning came three times, once without the file's name
    (a tester): once now, naming the record."""
    record = tmp_path / "coll.sgf"
    record.write_text("(;GM[1]SZ[9];B[ee])(;GM[1]SZ[9];B[cc])")
    code, _, err = run([str(record), "--every", "2", "--playouts", "20", "--json",
                        str(tmp_path / "out.jsonl")], capsys)
    warned = [line for line in err.splitlines() if "collection" in line]
    assert code == 0 and warned == [
        f"fastplay analyze: warning: {record}: the file holds a collection of 2 games; "
        "the first is read"]
