"""The ``fastplay`` command line: subcommand dispatch and clean user errors."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import pytest

import fastplay as fp
from fastplay.cli import main
from fastplay.patterns import PatternDatabase, PatternWarning


def test_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for command in ("analyze", "gtp", "match", "bench", "patterns"):
        assert command in out
    assert main(["--version"]) == 0
    assert "fastplay" in capsys.readouterr().out


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert main(["nonsense"]) == 2
    assert main(["gtp", "--playouts", "0"]) == 2
    # refused at start-up, not as "? internal error: OverflowError" at the first genmove
    assert main(["gtp", "--playouts", str(2 ** 63)]) == 2
    assert "2**53" in capsys.readouterr().err
    assert main(["gtp", "--seconds", "-1"]) == 2
    assert main(["match", "a"]) == 2
    assert main(["match", "a", "b", "--size", "30"]) == 2
    assert main(["match", "a", "b", "--sprt", "5", "5"]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_what_a_researcher_tester_found_in_the_options(capsys: pytest.CaptureFixture[str],
                                                       tmp_path: Path) -> None:
    """``--holdout 1`` passed the option's check and failed a second one with
    another minimum; a filter of 0 (keep everything) was refused by
    ``benchmark build``; several options' help gave no default."""
    out = str(tmp_path / "x.db")
    def status(argv: list[str]) -> object:
        try:
            return main(argv)
        except SystemExit as exc:       # argparse's own exit (usage errors, --help)
            return exc.code

    for method in (["mm", str(tmp_path)], ["balance"]):
        assert status(["tune", *method, "--holdout", "1", "--out", out]) == 2
        assert "--holdout: must be at least 2" in capsys.readouterr().err
        # read as every integer option is (int() took "٣" and "1_0")
        for text in ("٣", "1_0"):
            assert status(["tune", *method, "--holdout", text, "--out", out]) == 2
            assert "--holdout: not an integer" in capsys.readouterr().err
    from fastplay.benchmark.cli import _parser as benchmark_parser

    args = benchmark_parser().parse_args(["build", "records", "--size", "9", "--decisions",
                                          "3", "--seed", "1", "--margin", "0",
                                          "--significance", "0", "--out", out])
    assert args.margin == 0.0 and args.significance == 0.0
    for command in (["match", "--help"], ["tune", "games", "--help"]):
        assert status(command) == 0
        text = " ".join(capsys.readouterr().out.split())
        assert "(default 7.5)" in text and "(default 9)" in text


def test_patterns_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["patterns", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == PatternDatabase.names()
    assert "(default)" in lines[0]


def test_patterns_check_ok(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = PatternDatabase.builtin(PatternDatabase.names()[0])
    assert db.source is not None
    assert main(["patterns", "check", str(db.source)]) == 0
    out = capsys.readouterr().out
    assert "OK" in out and db.sha256() in out


def test_patterns_check_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.db"
    bad.write_text("Pattern x\n\n?X?\nXQX\n?X?\n\n:8,1\n")
    assert main(["patterns", "check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fastplay: error: ") and f"{bad}:" in err and "Traceback" not in err
    assert main(["patterns", "check", str(tmp_path / "missing.db")]) == 2
    assert "missing.db" in capsys.readouterr().err


def test_a_warning_made_an_error_is_a_clean_error(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Under ``python -W error`` a warning of the input (here a .db file
    with no pattern) is an error like any other: one ``fastplay: error:``
    line and the usage status, no traceback (a tester's finding)."""
    import warnings

    empty = tmp_path / "empty.db"
    empty.write_text("")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert main(["patterns", "check", str(empty)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fastplay: error: ") and "no pattern" in err
    assert "Traceback" not in err and err.count("\n") == 1
    assert fp.PatternWarning is PatternWarning       # exported beside PatternSyntaxError


def test_patterns_check_warns_of_a_file_without_patterns(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """GNU Go's loader skips lines it does not know, so a game record loads
    as an empty database: accepted, with a warning (a tester's surprise)."""
    record = tmp_path / "game.sgf"
    record.write_text("(;GM[1]FF[4]SZ[9];B[ee])")
    assert main(["patterns", "check", str(record)]) == 0
    out, err = capsys.readouterr()
    assert "loads as an empty database, no pattern: 0 patterns" in out and "OK" not in out
    assert err.count("no pattern: every move gets the default value") == 1
    db = PatternDatabase.builtin("mc_montegnu_classic")
    assert db.source is not None
    assert main(["patterns", "check", str(db.source)]) == 0
    assert "warning" not in capsys.readouterr().err


def test_gtp_subcommand_serves_stdin(monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"1 name\n2 protocol_version\n")))
    assert main(["gtp", "--mc-patterns", "mogo_classic", "--playouts", "10"]) == 0
    assert capsys.readouterr().out == "=1 fastplay\n\n=2 2\n\n"


def test_gtp_unknown_patterns_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gtp", "--mc-patterns", "no_such_db"]) == 2
    assert "unknown pattern database" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["analyze", "bench"])
def test_delegated_subcommands_get_their_arguments(command: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    seen: list[list[str]] = []
    fake = types.ModuleType(f"fastplay.{command}")
    fake.main = lambda argv: seen.append(argv) or 7  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, f"fastplay.{command}", fake)
    assert main([command, "game.sgf", "--move", "30", "--help"]) == 7
    assert main([command, "--move", "3"]) == 7
    assert main([command]) == 7
    assert seen == [["game.sgf", "--move", "30", "--help"], ["--move", "3"], []]


@pytest.mark.parametrize("command", ["analyze", "bench"])
def test_missing_delegated_module_is_a_clean_error(command: str, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, f"fastplay.{command}", None)
    assert main([command]) == 2
    assert "not available" in capsys.readouterr().err


@pytest.mark.parametrize("seed", ["-1", "1.5", "x"])
def test_gtp_bad_seed_is_rejected_at_startup(seed: str, capsys: pytest.CaptureFixture[str]) -> None:
    """--seed -1 used to be accepted and then fail every genmove with '? internal error'."""
    assert main(["gtp", f"--seed={seed}"]) == 2
    err = capsys.readouterr().err
    assert "--seed" in err and "Traceback" not in err


def test_warnings_print_as_one_command_line_line(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """No source file:line and code line; the same warning shown once."""
    import types
    import warnings

    class SomeWarning(UserWarning):
        pass

    def fake_main(argv: list[str]) -> int:
        for _ in range(3):  # as analyze repeated an SGFWarning
            warnings.warn("KM[abc] holds no komi value", SomeWarning, stacklevel=1)
        warnings.warn("another one", SomeWarning)
        return 0

    fake = types.ModuleType("fastplay.analyze")
    fake.main = fake_main  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fastplay.analyze", fake)
    before = warnings.showwarning
    assert main(["analyze"]) == 0
    assert warnings.showwarning is before  # restored: library callers keep their own
    assert capsys.readouterr().err.splitlines() == [
        "fastplay: warning: KM[abc] holds no komi value",
        "fastplay: warning: another one",
    ]


def _spy_on_searches(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every MCTS built from now on (to read the options a command gave it)."""
    import fastplay.mcts

    built: list[Any] = []
    original = fastplay.mcts.MCTS.__init__

    def spy(self: fastplay.mcts.MCTS, *args: object, **kwargs: object) -> None:
        original(self, *args, **kwargs)  # type: ignore[arg-type]
        built.append(self)

    monkeypatch.setattr(fastplay.mcts.MCTS, "__init__", spy)
    return built


def test_gtp_batch_reaches_the_search(monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """--batch N: playouts per leaf of the default MCTS (here one genmove of
    40 playouts in 40 one-playout descents)."""
    built = _spy_on_searches(monkeypatch)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(
        b"boardsize 9\nclear_board\nplay b E5\ngenmove w\n")))
    assert main(["gtp", "--batch", "1", "--playouts", "40", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count("=") == 4 and "?" not in out
    assert len(built) == 1 and built[0].batch == 1 and built[0].leaf_batch(9, 40) == 1
    assert built[0].root is not None and built[0].root.n.sum() == 40
    for bad in ("0", "-2", "x", "4097", "99999999999999999999"):
        assert main(["gtp", f"--batch={bad}"]) == 2
        assert "--batch" in capsys.readouterr().err


def test_gtp_search_options_reach_the_search(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """--search NAME=VALUE (repeatable): any SearchConfig option, typed from
    its text; a bad name or value, or an option with a flag of its own, is a
    usage error naming it, before any GTP command."""
    built = _spy_on_searches(monkeypatch)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"boardsize 9\ngenmove b\n")))
    assert main(["gtp", "--playouts", "30", "--seed", "1", "--search", "c_puct=0.7",
                 "--search", "rave=FALSE", "--search", "resign_threshold=none",
                 "--search", "policy=UCT", "--search", "max_nodes=5"]) == 0
    assert capsys.readouterr().out.count("=") == 2
    config = built[0].config
    assert (config.c_puct, config.rave, config.resign_threshold, config.policy,
            config.max_nodes) == (0.7, False, None, "uct", 5)
    for bad, said in (("c_puct", "NAME=VALUE"), ("c_puct=", "NAME=VALUE"),
                      ("=1", "NAME=VALUE"), ("cpuct=1", "unknown search option 'cpuct'"),
                      ("c_puct=x", "c_puct must be a number"),
                      ("c_puct=-1", "c_puct must be a number in"),
                      ("c_puct=\u0661", "c_puct must be a number"),
                      ("max_nodes=2.5", "max_nodes must be an integer"),
                      ("rave=1", "rave must be True or False"),
                      ("policy=ucb", "policy must be 'puct' or 'uct'"),
                      ("c_puct=1e999", "c_puct=1e999: c_puct must be a number in"),
                      ("policy=" + "x" * 5000, "(5,000 characters)"),
                      ("batch=2", "use --batch"), ("prior_table=none", "use --prior"),
                      ("mix=2", "use --mix"), ("batch", "use --batch")):
        assert main(["gtp", "--search", bad]) == 2, bad
        err = capsys.readouterr().err
        assert "--search" in err and said in err and len(err) < 1500, (bad[:20], err)
    assert main(["gtp", "--search", "cpuct=1"]) == 2     # the list leaves out the flagged
    listed = capsys.readouterr().err.split("the options are ")[1]
    assert "c_puct" in listed and "batch" not in listed and "prior_table" not in listed
    # The value is shown as given, never as converted (1e13 as 1e+13 or
    # 10000000000000.0, true as True).
    for bad, converted in (("rave_equiv=1e13", "10000000000000.0"), ("max_nodes=true", "True"),
                           ("c_puct=1e999", "inf")):
        assert main(["gtp", "--search", bad]) == 2, bad
        err = capsys.readouterr().err
        assert bad in err and converted not in err, err
    assert len(built) == 1


def test_any_search_option_takes_the_flagged_ones_too() -> None:
    """The benchmark scripts, which have no --batch or --prior, take every
    option; fastplay gtp's --search refuses those with a flag of their own."""
    import argparse

    from fastplay.argtypes import any_search_option, search_option

    assert any_search_option("batch=2") == ("batch", 2)
    assert any_search_option("prior_table=none") == ("prior_table", None)
    with pytest.raises(argparse.ArgumentTypeError, match="use --batch"):
        search_option("batch=2")
    with pytest.raises(argparse.ArgumentTypeError, match="batch must be an integer"):
        any_search_option("batch=x")


def test_gtp_builds_its_search_at_start_up_or_says_why_not(monkeypatch, capsys):
    """`fastplay gtp` prepares the search before reading commands (the first
    genmove had spent 60-80 ms of its limit on it); a search that cannot be
    built is a usage error, not a traceback."""
    from fastplay.gtp import GTPEngine, GTPError

    prepared: list[GTPEngine] = []
    original = GTPEngine.prepare
    monkeypatch.setattr(GTPEngine, "prepare", lambda self: prepared.append(self) or original(self))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"name\n")))
    assert main(["gtp", "--playouts", "10"]) == 0
    assert len(prepared) == 1 and prepared[0]._search is not None
    capsys.readouterr()

    def broken(self: GTPEngine) -> None:
        raise GTPError("search not available: no module named fastplay.mcts")

    monkeypatch.setattr(GTPEngine, "prepare", broken)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"name\n")))
    assert main(["gtp"]) == 2
    assert "search not available" in capsys.readouterr().err


def test_gtp_and_analyze_take_a_prior(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """--prior: auto (default), none, a bundled name (any case), a file; a bad
    one is a usage error at start-up, before any GTP command."""
    from fastplay.argtypes import prior_option

    assert [prior_option(t) for t in ("none", " NONE ", "Auto", "GNUGO9x9 ", "./my.npz")] == \
        [None, None, "auto", "gnugo9x9", "./my.npz"]
    built = _spy_on_searches(monkeypatch)
    for flag, want in (([], "auto"), (["--prior", "none"], None),
                       (["--prior", "gnugo9x9"], "gnugo9x9")):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"genmove b\n")))
        assert main(["gtp", "--playouts", "20", *flag]) == 0
        assert built[-1].prior_table == want
        assert "?" not in capsys.readouterr().out
    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")
    for bad, message in (("bogus", "unknown prior"), (str(empty), "not a prior"),
                         (str(tmp_path / "missing.npz"), "No such file")):
        assert main(["gtp", "--prior", bad]) == 2
        assert message in capsys.readouterr().err
        assert main(["analyze", "--playouts", "10", "--prior", bad]) == 2
        assert message in capsys.readouterr().err


def test_an_empty_pattern_file_name_is_named_as_such(capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path) -> None:
    """``--mc-load-patterns=`` (an empty value) said ``.: Is a directory``:
    pathlib takes "" for the current folder.  A missing file is still named."""
    assert main(["gtp", "--mc-load-patterns="]) == 2
    assert capsys.readouterr().err.strip() == \
        "fastplay: error: no pattern database given (an empty file name)"
    missing = tmp_path / "missing.db"
    assert main(["gtp", "--mc-load-patterns", str(missing)]) == 2
    assert f"{missing}: No such file" in capsys.readouterr().err


def test_command_line_numbers_are_ascii_and_an_empty_database_name_is_refused(
        capsys: pytest.CaptureFixture[str]) -> None:
    """As GTP's: Python's ``int``/``float`` took "١٠٠" and "1_0" (a tester's
    finding); ``--mc-patterns=`` silently chose the default database."""
    for argv in (["gtp", "--playouts", "\u0661\u0660\u0660"], ["gtp", "--seconds", "1_0"],
                 ["analyze", "--seed", "\u0663"], ["gtp", "--threads", "9" * 5000],
                 ["bench", "--seconds", "nan"], ["bench", "--seed", "x"]):
        assert main(argv) == 2, argv
        assert "error" in capsys.readouterr().err
    assert main(["gtp", "--mc-patterns="]) == 2
    assert "unknown pattern database ''" in capsys.readouterr().err


@pytest.mark.parametrize("args", [["gtp"], ["analysis"]])
def test_a_closed_standard_input_is_an_empty_one(args: list[str]) -> None:
    """``fastplay gtp <&-``: Python gives a closed descriptor 0 as
    ``sys.stdin = None``; the engine reads no command and ends, no traceback."""
    import os
    import subprocess

    proc = subprocess.run([sys.executable, "-m", "fastplay", *args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, preexec_fn=lambda: os.close(0), timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert b"Traceback" not in proc.stderr and b"Exception" not in proc.stderr


@pytest.mark.parametrize("args", [["gtp"], ["analysis"], ["analyze", "--playouts", "10"]])
def test_a_closed_standard_output_is_an_error(args: list[str]) -> None:
    """``fastplay gtp >&-``: an error on standard error and status 2."""
    import os
    import subprocess

    proc = subprocess.run([sys.executable, "-m", "fastplay", *args], input=b"boardsize 9\n",
                          stderr=subprocess.PIPE, preexec_fn=lambda: os.close(1), timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip() == b"fastplay: error: standard output is closed"


@pytest.mark.parametrize("args, line", [
    (["gtp"], b"name\n"),
    (["analysis"], b'{"id":"a","moves":[],"rules":"chinese","komi":7.5,"boardXSize":9,'
                   b'"boardYSize":9,"maxVisits":20}\n')])
def test_answers_that_cannot_be_written_are_an_error(args: list[str], line: bytes) -> None:
    """``fastplay gtp 1</dev/null`` (an output open for reading only, as a
    full disk would fail too): the failing write is said on standard error
    and the status is 2, no traceback (a reader that went away, a closed
    pipe, stays no error)."""
    import os
    import subprocess

    with open(os.devnull, "rb") as read_only:
        proc = subprocess.run([sys.executable, "-m", "fastplay", *args], input=line,
                              stdout=read_only, stderr=subprocess.PIPE, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert b"cannot write the answers: Bad file descriptor" in proc.stderr
    assert b"Traceback" not in proc.stderr


@pytest.mark.parametrize("module, args", [("fastplay.analysis", []),
                                          ("fastplay.analyze", ["--playouts", "10"])])
def test_the_modules_run_directly_check_the_streams_too(module: str, args: list[str]) -> None:
    """``python -m fastplay.analysis >&-``: the same check as ``fastplay analysis``."""
    import os
    import subprocess

    proc = subprocess.run([sys.executable, "-m", module, *args], input=b"",
                          stderr=subprocess.PIPE, preexec_fn=lambda: os.close(1), timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip() == b"fastplay: error: standard output is closed"


@pytest.mark.parametrize("size", ["0", "1", "26"])
def test_board_sizes_are_checked_alike(size: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``match``, ``tune`` and ``benchmark build`` check ``--size`` as one
    argument type (a tester saw two messages and two prefixes for 0 and 1)."""
    from fastplay.tune.cli import main as tune_main

    for args in (["match", "a", "b", "--size", size],
                 ["benchmark", "build", "--size", size, "--decisions", "1", "x.sgf"]):
        assert main(args) == 2
        assert f"argument --size: board sizes are 2..25, not {size}" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        tune_main(["mm", "records.tar.gz", "--size", size])
    assert f"argument --size: board sizes are 2..25, not {size}" in capsys.readouterr().err


def test_gnugo_syntax_reads_a_pattern_file_as_gnu_go_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``.db`` file GNU Go reads but strict mode refuses (here a two-row
    diagram, which GNU Go's loader takes without a word) is an error naming
    file, line and column by default; ``--gnugo-syntax`` loads it as
    ``PatternDatabase.from_file(strict=False)`` does, in every command that
    takes ``--mc-load-patterns``."""
    import json
    import subprocess

    from fastplay.analyze import main as analyze_main

    lax = tmp_path / "lax.db"
    lax.write_text("Pattern x\n\n?.?\n.X.\n:8\n")
    assert main(["patterns", "check", str(lax)]) == 2
    assert f"{lax}:5:1:" in capsys.readouterr().err
    assert main(["patterns", "check", "--gnugo-syntax", str(lax)]) == 0
    sha = PatternDatabase.from_file(lax, strict=False).sha256()
    assert sha in capsys.readouterr().out

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"1 genmove b\n")))
    assert main(["gtp", "--mc-load-patterns", str(lax), "--playouts", "20"]) == 2
    assert f"{lax}:5:1:" in capsys.readouterr().err
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"1 genmove b\n")))
    assert main(["gtp", "--mc-load-patterns", str(lax), "--gnugo-syntax",
                 "--playouts", "20"]) == 0
    assert capsys.readouterr().out.startswith("=1 ")

    record = tmp_path / "a.sgf"
    record.write_text("(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[cc])")
    for extra in (["--move", "1"], ["--every", "1", "--json", "-"]):   # one record; a batch
        args = [str(record), "--playouts", "20", "--mc-load-patterns", str(lax), *extra]
        assert analyze_main(args) == 2
        assert f"{lax}:5:1:" in capsys.readouterr().err
        assert analyze_main([*args, "--gnugo-syntax"]) == 0
        capsys.readouterr()

    query = json.dumps({"id": "q", "moves": [["B", "E5"]], "rules": "chinese", "komi": 7.5,
                        "boardXSize": 9, "boardYSize": 9, "maxVisits": 20})
    for flags, status in (([], 2), (["--gnugo-syntax"], 0)):
        # It reads and writes the descriptors: a process of its own.
        done = subprocess.run([sys.executable, "-m", "fastplay", "analysis",
                               "--mc-load-patterns", str(lax), *flags], input=query + "\n",
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == status, done.stderr
        assert (f"{lax}:5:1:" in done.stderr) == (status == 2)
        assert json.loads(done.stdout)["id"] == "q" if status == 0 else not done.stdout

    # fastplay tune: its DB arguments and --base.
    from fastplay.tune.cli import main as tune_main

    for method in (["quality", str(lax), "--positions", "2", "--playouts", "4"],
                   ["balance", "--base", str(lax), "--iterations", "1", "--playouts", "2",
                    "--report-playouts", "2", "--out", str(tmp_path / "out.db")]):
        with pytest.raises(SystemExit) as refused:
            tune_main(method)
        assert refused.value.code == 2 and f"{lax}:5:1:" in capsys.readouterr().err
        assert tune_main([*method, "--gnugo-syntax"]) == 0
        capsys.readouterr()


@pytest.mark.parametrize("command", [
    ["patterns", "check", "NAME"],
    ["gtp", "--mc-load-patterns", "NAME"],
    ["gtp", "--prior", "NAME"],
    ["analysis", "--mc-load-patterns", "NAME"],
    ["analyze", "NAME"],
    ["tune", "quality", "NAME"],
    ["tune", "mm", "NAME", "--out", "o.db"],
])
def test_a_file_name_with_control_characters_is_shown_escaped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        command: list[str]) -> None:
    """A newline or a terminal escape in a file name cannot forge a second
    message line or clear the terminal (a tester's finding): errors show them
    as ``\\xNN``, in every command that names a file."""
    monkeypatch.chdir(tmp_path)
    name = "evil\n\x1b[31mname.db"
    (tmp_path / name).write_text("OOO\nO*O\nOOZ\n\n:5\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    try:
        status = main([name if a == "NAME" else a for a in command])
    except SystemExit as exc:
        status = exc.code
    assert status == 2 or (command[0] == "analyze" and status == 1)
    err = capsys.readouterr().err
    assert "evil\\x0a\\x1b[31mname.db" in err and "\x1b" not in err, err
    assert all(line.startswith(("usage:", "fastplay", "skipped: evil")) for line in
               err.splitlines()), err


def test_the_submodules_the_readme_names_are_attributes_of_a_fresh_import() -> None:
    """``fastplay.montecarlo.playout_engine`` (the README) failed after a bare
    ``import fastplay`` and worked once another name had imported the module
    (a tester)."""
    import subprocess

    code = ("import fastplay; print(fastplay.montecarlo.playout_engine.__name__, "
            "fastplay.search.MCTS.__name__, fastplay.patterns.PatternDatabase.__name__, "
            "fastplay.sgf.__name__, fastplay.svg.__name__)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["playout_engine", "MCTS", "PatternDatabase", "fastplay.sgf",
                                   "fastplay.svg"]
    assert {"montecarlo", "search", "sgf", "svg"} <= set(dir(fp))


def test_a_file_name_given_for_a_table_is_told_where_to_go() -> None:
    """``PatternDatabase("my.db")``, a new user's guess, said ``table must have
    shape (1108, 256), not ()`` (a tester)."""
    for name in ("my.db", Path("my.db"), b"my.db"):
        with pytest.raises(TypeError, match="from_file"):
            PatternDatabase(name)  # type: ignore[arg-type]
