"""The decision benchmark's error paths: bad options, bad files, bad engines.

Each test is a regression test of a problem a tester found: the benchmark
file overwritten by ``--json``, a Python chooser's exception crashing the
score, completions of two scores lost, options checked after the engine
had answered, temporary files left behind, engines that never start,
unvalidated files, a broken pipe reported as an error, ``--python``
modules not found beside the user's files, the completion cache.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from conftest import subprocess_env
from fastplay.backend import LocalBackend
from fastplay.benchmark import (Benchmark, BenchmarkError, FilterSpec, PythonChooser,
                                ReferenceSpec, build, choose_all, complete, open_benchmark)
from fastplay.benchmark.cli import cache_path, main

RECORDS = str(resources.files("fastplay") / "data")


@pytest.fixture(scope="module")
def tiny_bytes() -> bytes:
    with LocalBackend(workers=1) as backend:
        bench = build([RECORDS], 9, 2, 7, backend, per_game=1,
                      filter_spec=FilterSpec(visits=64, top=3, margin=0.02),
                      reference=ReferenceSpec(visits=48, repeats=2))
    return bench.to_bytes()


@pytest.fixture()
def tiny(tiny_bytes: bytes, tmp_path: Path) -> Path:
    path = tmp_path / "tiny.jsonl.gz"
    path.write_bytes(tiny_bytes)
    return path


def _chooser_file(folder: Path, body: str, name: str = "engine") -> str:
    """A ``FILE.py:choose`` spec whose choose(board) runs ``body`` after
    appending a line to ``calls.log`` beside it."""
    path = folder / f"{name}.py"
    log = folder / "calls.log"
    path.write_text("import sys\n\n\ndef choose(board):\n"
                    f"    with open({str(log)!r}, 'a') as handle:\n"
                    "        handle.write('call\\n')\n"
                    + "".join(f"    {line}\n" for line in body.splitlines()))
    return f"{path}:choose"


def _calls(folder: Path) -> int:
    log = folder / "calls.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


RESIGN = "return 'resign'"

# A GTP engine in Python: logs its pid, then answers by its mode.
FAKE_GTP = '''\
import os, sys
log, mode = sys.argv[1], sys.argv[2]
with open(log, "a") as handle:
    handle.write(f"{os.getpid()}\\n")
if mode == "exit":
    sys.exit(0)
for line in sys.stdin:
    words = line.split()
    if not words or mode == "mute":
        continue
    if words[0] == "name":
        reply = "= fake"
    elif words[0] == "genmove":
        reply = "= resign" if mode == "resign" else "? cannot"
    else:
        reply = "="
    print(reply + "\\n", flush=True)
    if words[0] == "quit":
        break
'''


def _fake_gtp(folder: Path, mode: str) -> tuple[str, Path]:
    script = folder / "fake_gtp.py"
    script.write_text(FAKE_GTP)
    log = folder / f"gtp-{mode}.log"
    return f"{sys.executable} {script} {log} {mode}", log


def _error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("fastplay benchmark: error:")]


# -- 1. --json may not overwrite the benchmark, its cache or --out ---------------------


def test_json_naming_the_benchmark_or_out_is_refused(
        tiny: Path, tiny_bytes: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    spec = _chooser_file(tmp_path, RESIGN)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out.jsonl.gz"
    for json_path, extra in [(str(tiny), []), ("./tiny.jsonl.gz", []),
                             (str(out), ["--out", str(out)])]:
        assert main(["score", str(tiny), "--python", spec, "--no-progress", "--json",
                     json_path, *extra]) == 2
        assert len(_error_lines(capsys.readouterr().err)) == 1
    assert tiny.read_bytes() == tiny_bytes and not out.exists() and _calls(tmp_path) == 0


def test_json_naming_the_cache_of_a_bundled_benchmark_is_refused(
        tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import fastplay.benchmark.store as store

    monkeypatch.setattr(store, "bundled_names", lambda: ["tiny"])
    monkeypatch.setattr(store, "bundled_path", lambda name: str(tiny))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    spec = _chooser_file(tmp_path, RESIGN)
    assert main(["score", "tiny", "--python", spec, "--no-progress", "--json",
                 cache_path("tiny")]) == 2
    assert "--json" in capsys.readouterr().err and _calls(tmp_path) == 0
    assert not os.path.exists(cache_path("tiny"))


# -- 2. a Python chooser's exception is an unanswered decision -------------------------


@pytest.mark.parametrize("error", [RuntimeError("boom"), KeyError("k"), RecursionError("deep"),
                                   SystemExit(3), ZeroDivisionError("zero")])
def test_a_raising_chooser_leaves_its_decisions_unanswered(
        tiny: Path, error: BaseException) -> None:
    bench, _ = open_benchmark(str(tiny))

    def choose(board: Any) -> str:
        raise error

    for jobs in (1, 2):
        choices = choose_all(PythonChooser(choose), bench, jobs)
        assert [c.move for c in choices] == [None, None]
        assert all(c.failure is not None and type(error).__name__ in c.failure
                   for c in choices)


def test_a_keyboard_interrupt_in_a_chooser_goes_through(tiny: Path) -> None:
    bench, _ = open_benchmark(str(tiny))

    def choose(board: Any) -> str:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        choose_all(PythonChooser(choose), bench)


@pytest.mark.parametrize("body", ["raise RuntimeError('boom')", "sys.exit(3)"])
def test_a_chooser_that_always_fails_exits_1_with_its_report(
        tiny: Path, tmp_path: Path, body: str, capsys: pytest.CaptureFixture[str]) -> None:
    spec = _chooser_file(tmp_path, body)
    assert main(["score", str(tiny), "--python", spec, "--no-progress"]) == 1
    captured = capsys.readouterr()
    assert "unanswered 2" in captured.out and _calls(tmp_path) == 2
    assert "PR nan" not in captured.out    # nothing rated: said so, on the last line too
    assert captured.out.strip().splitlines()[-1].endswith("0 decisions  (none rated: no PR)")
    assert ("RuntimeError: boom" if "Runtime" in body else "SystemExit: 3") in \
        captured.out + captured.err


# -- 3. labels identify the references; completions of two scores are merged -----------


def test_the_label_identifies_the_candidates(tiny_bytes: bytes) -> None:
    first, second = Benchmark.from_bytes(tiny_bytes), Benchmark.from_bytes(tiny_bytes)
    assert first.label == second.label and ", refs " in first.label
    candidate = second.entries[0].candidates[0]
    second.entries[0].candidates[0] = dataclasses.replace(candidate, value=candidate.value / 2)
    assert first.label != second.label
    assert first.label.split(", refs ")[0] == second.label.split(", refs ")[0]


def _stale(bench_bytes: bytes, path: Path) -> Callable[[str], tuple[Benchmark, str]]:
    def open_stale(name: str) -> tuple[Benchmark, str]:
        return Benchmark.from_bytes(bench_bytes, str(path)), str(path)
    return open_stale


def test_completions_of_two_scores_of_one_file_are_merged(
        tiny: Path, tiny_bytes: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import fastplay.benchmark.store as store

    original = Benchmark.from_bytes(tiny_bytes)
    firsts = [e.decision.position.board().legal_moves()[0] for e in original.entries]
    lasts = [e.decision.position.board().legal_moves()[-1] for e in original.entries]
    assert all(original.entries[i].value_of(m) is None for i, m in enumerate(firsts + lasts)
               if i < 2) and firsts != lasts
    first = _chooser_file(tmp_path, "return board.legal_moves()[0]", "first")
    last = _chooser_file(tmp_path, "return board.legal_moves()[-1]", "last")
    common = ["--no-progress", "--workers", "1"]
    assert main(["score", str(tiny), "--python", first, *common]) == 0
    label_a = capsys.readouterr().out.splitlines()[-1]
    # The second score loaded the file before the first one saved its completions.
    monkeypatch.setattr(store, "open_benchmark", _stale(tiny_bytes, tiny))
    assert main(["score", str(tiny), "--python", last, *common]) == 0
    text = capsys.readouterr().out
    merged, _ = open_benchmark(str(tiny))  # this module's name: not the stale one
    assert merged.version == 3 and merged.base == original.base
    for entry, a, b in zip(merged.entries, firsts, lasts):
        assert entry.value_of(a) is not None and entry.value_of(b) is not None
        assert {c.version for c in entry.candidates if c.move in (a, b)} == {2, 3}
    assert f"v3 (base {merged.base}" in text and label_a not in text
    assert merged.label in text  # the second score used the merged references
    saved = tiny.read_bytes()
    assert main(["score", str(tiny), "--python", first, *common]) == 0  # stale again
    assert "already in" in capsys.readouterr().out and tiny.read_bytes() == saved


def test_completions_are_saved_under_an_exclusive_lock(tmp_path: Path) -> None:
    import fcntl
    import threading

    from fastplay.benchmark.cli import _locked

    target = str(tmp_path / "t.jsonl.gz")
    entered = threading.Event()

    def save() -> None:
        with _locked(target):
            entered.set()

    with open(f"{target}.lock", "a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        thread = threading.Thread(target=save)
        thread.start()
        assert not entered.wait(0.3)  # waits for the other score
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
    thread.join(10)
    assert entered.is_set()


def test_merge_adds_only_the_missing_candidates(tiny_bytes: bytes) -> None:
    ours, theirs = Benchmark.from_bytes(tiny_bytes), Benchmark.from_bytes(tiny_bytes)
    move = ours.entries[0].decision.position.board().legal_moves()[0]
    with LocalBackend(workers=1) as backend:
        assert complete(ours, [(0, move)], backend) == 1
    assert theirs.merge(ours) == 1 and theirs.version == 2
    assert theirs.entries[0].value_of(move) == ours.entries[0].value_of(move)
    assert theirs.merge(ours) == 0 and theirs.version == 2
    assert theirs.label == ours.label


# -- 4. options are checked before the engine runs -------------------------------------


@pytest.mark.parametrize("options", [
    ["--backend", "local", "--address", "x"],
    ["--backend", "ray", "--address", "127.0.0.1:1"],
    ["--json", "{tmp}/missing/rows.jsonl"],
    ["--json", "{tmp}"],
    ["--out", "{tmp}"],
    ["--out", "{tmp}/missing/out.jsonl.gz"],
])
def test_bad_score_options_are_refused_before_the_engine_runs(
        tiny: Path, tmp_path: Path, options: list[str],
        capsys: pytest.CaptureFixture[str]) -> None:
    spec = _chooser_file(tmp_path, RESIGN)
    options = [o.format(tmp=tmp_path) for o in options]
    assert main(["score", str(tiny), "--python", spec, "--no-progress", *options]) == 2
    assert len(_error_lines(capsys.readouterr().err)) == 1 and _calls(tmp_path) == 0


def _deny_writing(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    access = os.access

    def fake(path: Any, mode: int, *args: Any, **kwargs: Any) -> bool:
        if mode & os.W_OK and os.path.realpath(path) == os.path.realpath(folder):
            return False
        return access(path, mode, *args, **kwargs)

    monkeypatch.setattr(os, "access", fake)


def test_an_unwritable_completion_target_is_refused_before_the_engine_runs(
        tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    spec = _chooser_file(tmp_path, RESIGN)
    _deny_writing(monkeypatch, tmp_path)
    assert main(["score", str(tiny), "--python", spec, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert len(_error_lines(err)) == 1 and "--out FILE" in err and "--no-completion" in err
    assert _calls(tmp_path) == 0
    assert main(["score", str(tiny), "--python", spec, "--no-progress", "--no-completion"]) == 0
    assert _calls(tmp_path) == 2


def test_bad_build_outputs_are_refused_before_the_build(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import fastplay.benchmark.builder as builder

    def no_build(*args: Any, **kwargs: Any) -> Benchmark:
        raise AssertionError("the build ran")

    monkeypatch.setattr(builder, "build", no_build)
    args = ["build", RECORDS, "--size", "9", "--decisions", "2", "--seed", "1",
            "--workers", "1", "--no-progress", "--out"]
    assert main(args + [""]) == 2
    _deny_writing(monkeypatch, tmp_path)
    assert main(args + [str(tmp_path / "b.jsonl.gz")]) == 2
    assert len(_error_lines(capsys.readouterr().err)) == 2


# -- 5. save removes its temporary file and refuses NaN ---------------------------------


def test_save_leaves_no_temporary_file_behind(
        tiny_bytes: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bench = Benchmark.from_bytes(tiny_bytes)
    target = tmp_path / "saved.jsonl.gz"

    def fail(*args: Any) -> None:
        raise OSError("disk full")

    with monkeypatch.context() as patch:
        patch.setattr(os, "replace", fail)
        with pytest.raises(OSError, match="disk full"):
            bench.save(target)
    assert os.listdir(tmp_path) == []
    entry = bench.entries[1]
    entry.candidates[0] = dataclasses.replace(entry.candidates[0], se=math.nan)
    with pytest.raises(BenchmarkError, match=f"saved.jsonl.gz.*{entry.decision.id}"):
        bench.save(target)
    assert os.listdir(tmp_path) == []
    bench.filter["margin"] = math.inf
    entry.candidates[0] = dataclasses.replace(entry.candidates[0], se=0.0)
    with pytest.raises(BenchmarkError, match="saved.jsonl.gz"):
        bench.save(target)
    assert os.listdir(tmp_path) == []


# -- 6. engines that cannot start, exit or stay silent; one process per job -------------


@pytest.mark.parametrize("mode", ["exit", "mute"])
def test_an_engine_that_exits_or_stays_silent_is_an_error(
        tiny: Path, tmp_path: Path, mode: str, capsys: pytest.CaptureFixture[str]) -> None:
    command, _ = _fake_gtp(tmp_path, mode)
    assert main(["score", str(tiny), "--engine", command, "--timeout", "1",
                 "--no-progress", "--no-completion"]) == 2
    lines = _error_lines(capsys.readouterr().err)
    assert len(lines) == 1 and "fake_gtp.py" in lines[0]


def test_an_engine_that_answers_nothing_exits_1(
        tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    command, _ = _fake_gtp(tmp_path, "refuse")
    assert main(["score", str(tiny), "--engine", command, "--no-progress",
                 "--no-completion"]) == 1
    captured = capsys.readouterr()
    assert "unanswered 2" in captured.out and "cannot" in captured.out + captured.err


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_gtp_chooser_starts_one_process_per_job(
        tiny: Path, tmp_path: Path, jobs: int, capsys: pytest.CaptureFixture[str]) -> None:
    command, log = _fake_gtp(tmp_path, "resign")
    assert main(["score", str(tiny), "--engine", command, "--jobs", str(jobs),
                 "--no-progress", "--no-completion"]) == 0
    assert "fake" in capsys.readouterr().out
    started = len(log.read_text().splitlines())
    assert started == 1 if jobs == 1 else 1 <= started <= 2


def test_timeout_help_says_it_cannot_stop_a_python_function(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    timeout = text.split("--timeout S")[-1].split(" --out FILE")[0]
    assert "cannot interrupt a Python function" in timeout


def test_an_engine_that_cannot_start_names_itself(
        tiny: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(tiny), "--engine", "/nonexistent/engine", "--no-progress"]) == 2
    lines = _error_lines(capsys.readouterr().err)
    assert len(lines) == 1 and lines[0].startswith(
        "fastplay benchmark: error: /nonexistent/engine: ")


# -- 7. loading validates the file --------------------------------------------------------


def _lines(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in gzip.decompress(data).decode().splitlines()]


def _pack(lines: list[dict[str, Any]], tail: str = "") -> bytes:
    text = "".join(json.dumps(line) + "\n" for line in lines) + tail
    return gzip.compress(text.encode())


def _rebased(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``lines`` with the header's ``base`` made anew, as a build that wrote
    that header would have made it (Benchmark's digest)."""
    head = lines[0]
    text = json.dumps([head["name"], head["size"], head["seed"], head["filter"],
                       head["reference"], [line["id"] for line in lines[1:]]], sort_keys=True)
    head["base"] = hashlib.sha256(text.encode()).hexdigest()[:16]
    return lines


def _header(key: str, value: Any) -> Callable[[list[dict[str, Any]]], None]:
    def change(lines: list[dict[str, Any]]) -> None:
        if value is KeyError:
            del lines[0][key]
        else:
            lines[0][key] = value
    return change


def _reference(key: str, value: Any) -> Callable[[list[dict[str, Any]]], None]:
    def change(lines: list[dict[str, Any]]) -> None:
        if value is KeyError:
            del lines[0]["reference"][key]
        else:
            lines[0]["reference"][key] = value
    return change


def _decision(key: str, value: Any, line: int = 2) -> Callable[[list[dict[str, Any]]], None]:
    def change(lines: list[dict[str, Any]]) -> None:
        lines[line - 1][key] = value
    return change


def _candidate(key: str, value: Any) -> Callable[[list[dict[str, Any]]], None]:
    def change(lines: list[dict[str, Any]]) -> None:
        lines[2]["candidates"][0][key] = value
    return change


def _search_without(key: str) -> Callable[[list[dict[str, Any]]], None]:
    def change(lines: list[dict[str, Any]]) -> None:
        del lines[0]["reference"]["search"][key]
    return change


def _search_with(key: str, value: Any) -> Callable[[list[dict[str, Any]]], None]:
    def change(lines: list[dict[str, Any]]) -> None:
        lines[0]["reference"]["search"][key] = value
    return change


def _drop_last(lines: list[dict[str, Any]]) -> None:
    del lines[-1]


def _occupied(lines: list[dict[str, Any]]) -> None:
    played = [m.split()[1] for m in lines[2]["moves"] if m.split()[1] != "pass"]
    lines[2]["candidates"][0]["move"] = played[-1]


def _replayed_twice(lines: list[dict[str, Any]]) -> None:
    moves = lines[1]["moves"]
    lines[1]["moves"] = moves + [moves[-2]]  # the same colour plays on an occupied point


@pytest.mark.parametrize("change, where", [
    (_header("seed", KeyError), "line 1: missing 'seed'"),
    (_header("reference", KeyError), "line 1: missing 'reference'"),
    (_header("decisions", 3), "line 1"),
    (_drop_last, "line 1"),
    (_reference("visits", KeyError), "line 1"),
    (_reference("extra", 1), "line 1"),
    (_reference("visits", 0), "line 1"),
    (_reference("visits", "many"), "line 1"),
    (_reference("repeats", 1), "line 1"),
    (_reference("patterns", "no_such_database"), "line 1"),
    (_reference("prior", 3), "line 1"),
    (_reference("search", "fast"), "line 1: 'reference' 'search' is not a JSON object"),
    (_search_with("c_puct", -1), "line 1: 'reference' 'search': c_puct must"),
    (_reference("search", {"prior_table": "none"}), "line 1: 'reference' 'search': unknown"),
    (_search_without("c_puct"), "line 1: 'reference' 'search': missing search options 'c_puct'"),
    (_reference("search", {}), "line 1: 'reference' 'search': missing"),
    (_search_with("mix", 0.5), "line 1: 'reference' 'search': 'mix' must be 1"),
    (_search_with("opponent_prior", "nosuch"), "line 1: 'reference' 'search' 'opponent_prior'"),
    (_search_with("opponent_prior", 3), "line 1: 'reference' 'search': 'opponent_prior' is not"),
    (_search_with("opponent_prior", "none"), "line 1: 'reference' 'search' 'opponent_prior'"),
    (_reference("prior", "nosuch"), "line 1: 'reference' 'prior': unknown prior 'nosuch'"),
    (_reference("prior", "/nonexistent.npz"), "line 1: 'reference' 'prior'"),
    (_reference("method", "magic"), "line 1: 'reference' 'method' is not \"search\""),
    (_candidate("value", float("nan")), "line 3"),
    (_candidate("value", float("inf")), "line 3"),
    (_candidate("se", float("nan")), "line 3"),
    (_candidate("value", 1.5), "line 3"),
    (_candidate("value", -0.1), "line 3"),
    (_candidate("move", "Z99"), "line 3"),
    (_occupied, "line 3"),
    (_decision("first", "X"), "line 2"),
    (_replayed_twice, "line 2"),
])
def test_a_malformed_file_is_refused_with_its_line(
        tiny_bytes: bytes, change: Callable[[list[dict[str, Any]]], None], where: str) -> None:
    lines = _lines(tiny_bytes)
    change(lines)
    with pytest.raises(BenchmarkError, match=f"^x.gz: {where}"):
        Benchmark.from_bytes(_pack(lines), "x.gz")


def test_a_file_without_recorded_search_options_is_read(tiny_bytes: bytes) -> None:
    """Files made before the options were recorded (the bundled ones) have no
    ``search``: they are read, and their spec says so (``None``)."""
    lines = _lines(tiny_bytes)
    assert lines[0]["reference"]["search"]["expand_threshold"] == 4    # 9x9: recorded
    del lines[0]["reference"]["search"]
    with pytest.raises(BenchmarkError, match="old.gz: line 1: 'base' .*edited by hand"):
        Benchmark.from_bytes(_pack(lines), "old.gz")   # the base digests the header
    bench = Benchmark.from_bytes(_pack(_rebased(lines)), "old.gz")
    assert "search" not in bench.reference
    assert ReferenceSpec(**{k: v for k, v in bench.reference.items()
                            if k != "method"}).to_json() == bench.reference


def test_a_trailing_empty_line_is_tolerated(tiny_bytes: bytes) -> None:
    bench = Benchmark.from_bytes(_pack(_lines(tiny_bytes), "\n"), "x.gz")
    assert bench.to_bytes() == tiny_bytes


def test_validating_1000_decisions_is_fast() -> None:
    with open(resources.files("fastplay") / "data" / "benchmarks" / "9x9.jsonl.gz", "rb") as f:
        data = f.read()
    start = time.process_time()
    bench = Benchmark.from_bytes(data, "9x9")
    assert len(bench.entries) == 1000 and time.process_time() - start < 1.0


# -- 8. a closed stdout is no error ------------------------------------------------------


@pytest.mark.parametrize("unbuffered", ["", "1"])
def test_list_into_a_closed_pipe_is_quiet(unbuffered: str) -> None:
    read, write = os.pipe()
    os.close(read)
    env = subprocess_env()
    env.pop("PYTHONUNBUFFERED", None)
    if unbuffered:
        env["PYTHONUNBUFFERED"] = unbuffered
    try:
        done = subprocess.run([sys.executable, "-m", "fastplay", "benchmark", "list"],
                              stdout=write, stderr=subprocess.PIPE, env=env, timeout=60)
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (0, b"")


# -- 9. --python finds the modules beside the user's files -------------------------------


def test_python_module_in_the_current_folder_and_a_file_beside_its_module(
        tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from fastplay.plugins import load_callable

    (tmp_path / "bench_here_mod.py").write_text("def choose(board):\n    return 'resign'\n")
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "bench_sibling_helper.py").write_text("MOVE = 'resign'\n")
    (sub / "player.py").write_text("from bench_sibling_helper import MOVE\n\n\n"
                                   "def choose(board):\n    return MOVE\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".", str(tmp_path))])
    before = list(sys.path)
    assert main(["score", str(tiny), "--python", "bench_here_mod:choose", "--no-progress"]) == 0
    assert main(["score", str(tiny), "--python", f"{sub / 'player.py'}:choose",
                 "--no-progress"]) == 0
    assert load_callable("sub/player.py:choose")(None) == "resign"
    assert sys.path == before  # the folders were on the path while importing only
    assert capsys.readouterr().out.count("resigned 2") == 2


# -- 10. the completion cache ---------------------------------------------------------------


def _bundle(tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    import fastplay.benchmark.store as store

    monkeypatch.setattr(store, "bundled_names", lambda: ["tiny"])
    monkeypatch.setattr(store, "bundled_path", lambda name: str(tiny))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    cached = cache_path("tiny")
    os.makedirs(os.path.dirname(cached))
    return cached


def test_list_shows_the_cached_version(
        tiny: Path, tiny_bytes: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    cached = _bundle(tiny, tmp_path, monkeypatch)
    bench = Benchmark.from_bytes(tiny_bytes)
    bench.version = 3
    bench.save(cached)
    assert main(["list"]) == 0
    assert f"v1 (cached v3 in {cached})" in capsys.readouterr().out


def test_a_corrupt_cache_is_named_in_a_warning_and_ignored(
        tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    cached = _bundle(tiny, tmp_path, monkeypatch)
    Path(cached).write_bytes(b"not gzip")
    with pytest.warns(UserWarning, match=cached):
        assert main(["list"]) == 0
    assert "v1" in capsys.readouterr().out
    spec = _chooser_file(tmp_path, RESIGN)
    with pytest.warns(UserWarning, match=cached):
        assert main(["score", "tiny", "--python", spec, "--no-progress"]) == 0
    assert " v1 (base " in capsys.readouterr().out


# -- 11. the Python API ---------------------------------------------------------------------


def test_choice_and_scored_are_exported() -> None:
    import fastplay.benchmark as benchmark
    from fastplay.benchmark.score import Choice, Scored

    assert benchmark.Choice is Choice and benchmark.Scored is Scored
    assert {"Choice", "Scored"} <= set(benchmark.__all__)
