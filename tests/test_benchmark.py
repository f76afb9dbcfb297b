"""The decision benchmark: ``fastplay benchmark build | score | list``.

A tiny benchmark is built from the two bundled 9x9 records at low visits;
the build must be a pure function of (records, options, seed): the same
bytes from 1 or 2 local workers and from a real local Ray instance.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import os
import shlex
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from fastplay import Board
from fastplay.backend import LocalBackend, get_backend
from fastplay.benchmark import (Benchmark, BenchmarkError, FilterSpec, PythonChooser,
                                ReferenceSpec, build, bundled_names, choose_all, complete,
                                open_benchmark, score_choices, summarize)
from fastplay.benchmark.builder import reuse_mismatch
from fastplay.benchmark.cli import main
from fastplay.benchmark.decisions import Position, phase_of, propose, read_records
from fastplay.benchmark.reference import OPTIONS_SINCE, CandidateTask, evaluate, recorded_search
from fastplay.benchmark.score import PR_SCALE
from conftest import shared_path

RECORDS = str(resources.files("fastplay") / "data")
# The search options that reference specs recorded when they began to
# (SearchConfig's options then, ``prior_table`` aside).
RECORDED_FIRST = {
    "batch", "book", "c_puct", "c_uct", "default_playouts", "dynamic_komi", "eval_batch",
    "even_visits", "expand_threshold", "fight_prior", "fpu_reduction", "ladder_prior",
    "ladder_visits", "max_memory", "max_nodes", "mix", "opponent_prior", "pass_prior",
    "pattern_visits", "policy", "prior_power", "race_reading", "rave", "rave_equiv",
    "resign_moves", "resign_threshold", "score_weight", "scoring", "stake_stones"}
FILTER = FilterSpec(visits=96, top=3, margin=0.02)
REFERENCE = ReferenceSpec(visits=64, repeats=2)
FASTPLAY_GTP = f"{shlex.quote(sys.executable)} -m fastplay gtp --playouts 32 --seed 3"


def tiny(backend: Any, seed: int = 5) -> Benchmark:
    return build([RECORDS], 9, 3, seed, backend, per_game=2, filter_spec=FILTER,
                 reference=REFERENCE)


@pytest.fixture(scope="module")
def bench_bytes() -> bytes:
    with LocalBackend(workers=1) as backend:
        return tiny(backend).to_bytes()


@pytest.fixture()
def bench(bench_bytes: bytes) -> Benchmark:
    return Benchmark.from_bytes(bench_bytes)


def test_tiny_build_has_its_decisions_and_references(bench: Benchmark) -> None:
    assert len(bench.entries) == 3 and bench.version == 1 and bench.size == 9
    assert {e.decision.record for e in bench.entries} <= {
        "cgos-390115-anchorman-montegnu.sgf", "cgos-471085-ayabot-montegnu.sgf"}
    for entry in bench.entries:
        values = [c.value for c in entry.candidates]
        assert len(values) >= 2 and values == sorted(values, reverse=True)
        assert all(0 <= v <= 1 for v in values) and all(c.se >= 0 for c in entry.candidates)
        assert entry.value_of(entry.decision.game_move) is not None  # the game move is rated
        board = entry.decision.position.board()
        assert all(board.is_legal(c.move) for c in entry.candidates)
        # The position is the record's, rebuilt from the file alone.
        path = os.path.join(RECORDS, entry.decision.record)
        assert board == Board.from_sgf(Path(path).read_bytes(),
                                       move_number=entry.decision.move_number)


def test_build_is_a_pure_function_of_the_seed(bench_bytes: bytes,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    with LocalBackend(workers=2) as backend:
        assert tiny(backend).to_bytes() == bench_bytes
    build_module = sys.modules["fastplay.benchmark.builder"]

    monkeypatch.setattr(build_module, "FILTER_CHUNK", 1)  # a chunk of 4 (2 workers)
    with LocalBackend(workers=2) as backend:
        assert tiny(backend).to_bytes() == bench_bytes
    with LocalBackend(workers=1) as backend:
        assert tiny(backend, seed=6).to_bytes() != bench_bytes


def test_build_on_a_local_ray_instance_gives_the_same_bytes(bench_bytes: bytes) -> None:
    # Ray is in the test extra wherever it has wheels (tests/test_backend.py):
    # there this must run, not skip.
    if sys.version_info >= (3, 15):  # pragma: no cover
        pytest.importorskip("ray")
    with get_backend("ray", workers=2) as backend:
        assert tiny(backend).to_bytes() == bench_bytes


def test_file_round_trip_and_located_errors(bench_bytes: bytes, tmp_path: Path) -> None:
    again = Benchmark.from_bytes(bench_bytes)
    assert again.to_bytes() == bench_bytes
    lines = gzip.decompress(bench_bytes).decode().splitlines()
    broken = "\n".join(lines[:2] + ['{"id": 1}'] + lines[3:]) + "\n"
    with pytest.raises(BenchmarkError, match="x.gz: line 3"):
        Benchmark.from_bytes(gzip.compress(broken.encode()), "x.gz")
    with pytest.raises(BenchmarkError, match="not a gzipped"):
        Benchmark.from_bytes(b"plain text", "y")
    with pytest.raises(BenchmarkError, match="line 1"):
        Benchmark.from_bytes(gzip.compress(b'{"format": "other"}\n'), "z")
    with pytest.raises(BenchmarkError, match="no such file or bundled benchmark"):
        open_benchmark(str(tmp_path / "missing.jsonl.gz"))


def test_phases_follow_the_documented_rule() -> None:
    assert phase_of(9, 10, 10) == "opening" and phase_of(9, 11, 11) == "middle"
    assert phase_of(9, 40, 37) == "endgame" and phase_of(9, 40, 36) == "middle"
    assert phase_of(19, 45, 45) == "opening" and phase_of(19, 46, 46) == "middle"
    assert phase_of(13, 21, 0) == "opening" and phase_of(13, 60, 77) == "endgame"


def test_proposals_are_seeded_and_round_robin() -> None:
    records = read_records([RECORDS], 9)
    assert len(records) == 2 and read_records([RECORDS], 13) == []
    first = [d.id for d in propose(records, 1, 3)]
    assert first == [d.id for d in propose(records, 1, 3)] != [d.id for d in propose(records, 2, 3)]
    assert len(first) == 6 and {first[0].split(":")[0], first[1].split(":")[0]} == {
        r.digest for r in records}


def test_a_pass_that_ends_the_game_is_scored_exactly() -> None:
    position = Position(5, 0.5, ("C3",), (), "W", (("W", "pass"), ("B", "pass"), ("W", "pass")))
    # Black to move after W pass: Black's pass ends the game; Black owns the board.
    found = evaluate(CandidateTask(position, "x", "pass", REFERENCE, 1))
    assert (found.value, found.se) == (1.0, 0.0)
    with pytest.raises(ValueError, match="not a legal move"):
        evaluate(CandidateTask(position, "x", "C3", REFERENCE, 1))


def test_score_of_a_python_chooser(bench: Benchmark) -> None:
    best = {e.decision.id: e.best.move for e in bench.entries}
    perfect = PythonChooser(lambda board: best[_id_of(bench, board)])
    scored = score_choices(bench, choose_all(perfect, bench))
    summary = summarize(scored)
    assert summary.pr == 0 and summary.best_share == 1
    resigner = PythonChooser(lambda board: "resign")
    scored = score_choices(bench, choose_all(resigner, bench))
    expected = PR_SCALE * sum(e.best.value for e in bench.entries) / len(bench.entries)
    assert summarize(scored).pr == pytest.approx(expected)
    assert {s.kind for s in scored} == {"resign"}
    assert "PR" in summarize(scored).line("all") and "nan" not in summarize(scored).line("all")
    empty = summarize([]).line("endgame")     # a phase without rated decisions
    assert empty.startswith("endgame") and "none rated" in empty and "nan" not in empty


def _id_of(bench: Benchmark, board: Board) -> str:
    for entry in bench.entries:
        if entry.decision.position.board() == board:
            return entry.decision.id
    raise AssertionError("position not in the benchmark")


def test_candidate_completion_rates_new_moves_at_the_same_quality(bench: Benchmark) -> None:
    entry = bench.entries[0]
    board = entry.decision.position.board()
    new = next(m for m in board.legal_moves() if entry.value_of(m) is None)
    with LocalBackend(workers=1) as backend:
        added = complete(bench, [(0, new.lower()), (0, new), (1, "resign"), (2, "Z99")],
                         backend)
    assert added == 1 and bench.version == 2
    candidate = next(c for c in bench.entries[0].candidates if c.move == new)
    assert (candidate.source, candidate.version) == ("completion", 2)
    spec = ReferenceSpec(**{k: v for k, v in bench.reference.items() if k != "method"})
    assert spec.search == recorded_search(9)     # the build recorded the search's options
    task = CandidateTask(entry.decision.position, entry.decision.id, new, spec, bench.seed)
    assert candidate.value == evaluate(task).value  # same settings, same seed: same value
    assert Benchmark.from_bytes(bench.to_bytes()).version == 2


def test_recorded_search_options_keep_the_references(bench: Benchmark,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A built benchmark records its reference searches' options: a later
    change of the engine's defaults (here the expansion floor) leaves its
    references alone, and the recorded options are the ones used."""
    import fastplay.search.config as search_config

    entry = bench.entries[0]
    spec = ReferenceSpec(**{k: v for k, v in bench.reference.items() if k != "method"})
    move = entry.candidates[0].move

    def value(search: dict[str, Any]) -> float:
        task = CandidateTask(entry.decision.position, entry.decision.id, move,
                             dataclasses.replace(spec, search=search), bench.seed)
        return evaluate(task).value

    assert spec.search is not None and value(spec.search) == entry.value_of(move)
    monkeypatch.setattr(search_config, "EXPAND_FLOOR", 16)    # a new default...
    assert search_config.default_expand_threshold(1) == 16
    assert value(spec.search) == entry.value_of(move)    # ...moves no reference
    assert value({**spec.search, "expand_threshold": 16}) != entry.value_of(move)
    assert value({**spec.search, "c_puct": 3.0}) != entry.value_of(move)
    # A record made before an option existed searches with its old value,
    # and loads: the benchmark's header without it is still valid.
    older = {k: v for k, v in spec.search.items() if k not in OPTIONS_SINCE}
    # A record without the options added since searches with their values
    # of before (today's defaults may differ: widening on 9x9).
    assert value(older) == value({**spec.search, **OPTIONS_SINCE})
    then = dataclasses.replace(spec, search={**spec.search, **OPTIONS_SINCE})
    # Every option added since records began is in OPTIONS_SINCE, or the
    # records of before would be refused as missing it.
    assert set(older) == RECORDED_FIRST
    # The size's exploration is recorded as a number, as the threshold is.
    assert (recorded_search(9)["c_puct"], recorded_search(13)["c_puct"]) == (1.0, 0.7)
    assert (recorded_search(9)["ladder_visits"], recorded_search(19)["ladder_visits"]) == \
        (15.0, 15.0)
    assert [recorded_search(n)["widen_base"] for n in (9, 13, 19)] == [10, 10, 0]
    assert value({**spec.search, "ancestor_amaf": 20.0}) != entry.value_of(move)
    # A file recorded then (its base the digest of its own header) loads,
    # and a build may reuse its references; one edited by hand is refused.
    made_then = Benchmark(bench.name, bench.size, bench.seed, bench.filter,
                          {**bench.reference, "search": older}, bench.entries, bench.version)
    again = Benchmark.from_bytes(made_then.to_bytes())
    assert again.reference["search"] == older
    assert reuse_mismatch(again, then, bench.seed) is None
    assert reuse_mismatch(again, then, bench.seed + 1) == \
        f"another seed ({bench.seed}, not {bench.seed + 1})"
    # searched without the 9x9 default's widening: not today's references
    assert "search.widen_base" in (reuse_mismatch(again, spec, bench.seed) or "")
    other = dataclasses.replace(spec, search={**spec.search, "c_puct": 3.0})
    why = reuse_mismatch(again, other, bench.seed)
    assert why is not None and "search.c_puct" in why
    lines = gzip.decompress(made_then.to_bytes()).decode().splitlines()
    header = json.loads(lines[0])
    header["reference"]["search"]["c_puct"] = 3.0        # the base left as it was
    edited = gzip.compress("\n".join([json.dumps(header)] + lines[1:]).encode())
    with pytest.raises(BenchmarkError, match="'base' .* does not match .*edited by hand"):
        Benchmark.from_bytes(edited)
    changed = Benchmark(bench.name, bench.size, bench.seed, bench.filter,
                        {**bench.reference, "search": {**older, "c_puct": 3.0}},
                        bench.entries, bench.version)
    with pytest.raises(ValueError, match="another build"):
        again.merge(changed)             # references of other settings stay out


def test_cli_build_score_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t.jsonl.gz"
    args = ["build", RECORDS, "--size", "9", "--decisions", "2", "--seed", "7", "--out",
            str(out), "--visits", "48", "--filter-visits", "64", "--margin", "0.02",
            "--per-game", "1", "--workers", "1", "--no-progress"]
    assert main(args) == 0
    assert "2 decisions" in capsys.readouterr().out
    rows = tmp_path / "rows.jsonl"
    assert main(["score", str(out), "--engine", FASTPLAY_GTP, "--no-progress",
                 "--workers", "1", "--json", str(rows)]) == 0
    text = capsys.readouterr().out
    lines = [json.loads(line) for line in rows.read_text().splitlines()]
    assert len(lines) == 2 and all(0 <= row["error"] <= 1 for row in lines)
    last = text.strip().splitlines()[-1]
    assert "PR " in last and float(last.split("PR ")[1]) >= 0
    header = json.loads(gzip.decompress(out.read_bytes()).decode().splitlines()[0])
    assert header["version"] in (1, 2)  # 2 when fastplay chose a move without a reference
    assert main(["build", str(tmp_path / "none"), "--size", "9", "--decisions", "2",
                 "--seed", "1", "--out", str(out)]) == 2
    assert main(["build", RECORDS, "--size", "9", "--decisions", "2", "--seed", "1",
                 "--out", str(out), "--repeats", "1"]) == 2
    assert main(["score", "no-such-benchmark", "--engine", FASTPLAY_GTP]) == 2
    assert main(["score", str(out), "--engine", "/nonexistent/engine"]) == 2
    errors = capsys.readouterr().err
    assert errors.count("fastplay benchmark: error:") == 4


def test_list_shows_the_bundled_benchmarks(capsys: pytest.CaptureFixture[str]) -> None:
    from fastplay.cli import main as fastplay_main

    assert fastplay_main(["benchmark", "list"]) == 0
    text = capsys.readouterr().out
    names = bundled_names()
    assert {"9x9", "13x13"} <= set(names)
    for name in names:
        assert text.count(f"{name} ") >= 1
        bench, _ = open_benchmark(name)
        assert bench.name == name and all(len(e.candidates) >= 2 for e in bench.entries)


def test_completion_of_a_bundled_benchmark_goes_to_the_cache(
        bench_bytes: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import fastplay.benchmark.store as store

    shipped = tmp_path / "tiny.jsonl.gz"
    shipped.write_bytes(bench_bytes)
    monkeypatch.setattr(store, "bundled_names", lambda: ["tiny"])
    monkeypatch.setattr(store, "bundled_path", lambda name: str(shipped))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    engine = tmp_path / "last_point.py"
    engine.write_text("def choose(board):\n    return board.legal_moves()[-1]\n")
    args = ["score", "tiny", "--python", f"{engine}:choose", "--workers", "1", "--no-progress"]
    assert main(args) == 0
    first = capsys.readouterr().out
    cached = tmp_path / "cache" / "fastplay" / "benchmarks" / "tiny.jsonl.gz"
    assert "candidate completion" in first and cached.exists()
    assert shipped.read_bytes() == bench_bytes  # the installed file is never written
    assert main(args) == 0  # the second score reads the cache: nothing left to rate
    second = capsys.readouterr().out
    assert "candidate completion" not in second and " v2 (base " in second
    assert first.splitlines()[-1] == second.splitlines()[-1]


def test_rerate_keeps_decisions_and_moves_with_another_reference(bench: Benchmark) -> None:
    from fastplay.benchmark import rerate

    other = ReferenceSpec(visits=48, repeats=2, patterns="mc_uniform", prior="none")
    with LocalBackend(workers=1) as backend:
        second = rerate(bench, other, backend, limit=2)
        again = rerate(bench, other, backend, limit=2)
    assert second.to_bytes() == again.to_bytes() and len(second.entries) == 2
    for old, new in zip(bench.entries, second.entries):
        assert old.decision == new.decision
        assert {c.move for c in old.candidates} == {c.move for c in new.candidates}
    assert second.reference["patterns"] == "mc_uniform" and second.base != bench.base
    assert [c.value for e in second.entries for c in e.candidates] != \
        [c.value for e in bench.entries[:2] for c in e.candidates]


def test_an_unrated_legal_move_is_left_out_and_an_illegal_one_counts_zero(
        bench: Benchmark) -> None:
    from fastplay.benchmark.score import Choice

    entry = bench.entries[0]
    board = entry.decision.position.board()
    unrated = next(m for m in board.legal_moves() if entry.value_of(m) is None)
    occupied = next(m for _, m in reversed(bench.entries[1].decision.position.moves)
                    if m != "pass")  # a stone of decision 1
    scored = score_choices(bench, [Choice(0, unrated), Choice(1, occupied),
                                   Choice(2, None, "timed out")])
    assert [s.kind for s in scored] == ["unrated", "illegal"]
    assert scored[1].error == bench.entries[1].best.value
    summary = summarize(scored)
    assert summary.decisions == 1 and summary.pr == pytest.approx(PR_SCALE * scored[1].error)


def test_decisions_are_unique_positions_whose_choice_matters(bench: Benchmark) -> None:
    from fastplay.benchmark.builder import position_key, significant

    keys = [position_key(e.decision) for e in bench.entries]
    assert len(set(keys)) == len(keys)
    assert all(significant(e, FILTER.significance) for e in bench.entries)
    # The same stones reached in another order are the same decision.
    a = Position(9, 7.5, (), (), "B", (("B", "C3"), ("W", "G7"), ("B", "C7"), ("W", "G3")))
    b = Position(9, 7.5, (), (), "B", (("B", "C7"), ("W", "G3"), ("B", "C3"), ("W", "G7")))
    c = Position(9, 6.5, (), (), "B", a.moves)
    ids = [Decision_(p) for p in (a, b, c)]
    assert position_key(ids[0]) == position_key(ids[1]) != position_key(ids[2])


def Decision_(position: Position) -> Any:
    from fastplay.benchmark.decisions import Decision

    return Decision("x:0", "x", len(position.moves), position, "E5", "opening", 4)


def test_significance_rule() -> None:
    from fastplay.benchmark.builder import significant
    from fastplay.benchmark.decisions import Decision
    from fastplay.benchmark.store import Candidate, Entry

    position = Position(9, 7.5, (), (), "B", ())
    entry = Entry(Decision("x:0", "x", 0, position, "E5", "opening", 0))
    entry.add(Candidate("E5", 0.60, 0.01, "filter", 1))
    entry.add(Candidate("C3", 0.57, 0.01, "filter", 1))
    assert significant(entry, 2.0)  # 0.03 > 2 * 0.0141
    assert not significant(entry, 2.2)
    tie = Entry(entry.decision, [Candidate("E5", 1.0, 0.0, "filter", 1),
                                 Candidate("C3", 1.0, 0.0, "filter", 1)])
    assert not significant(tie, 2.0)  # all equal: nothing to choose


def test_reuse_takes_known_values_and_gives_the_same_bytes(
        bench_bytes: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    builder = sys.modules["fastplay.benchmark.builder"]
    calls = []
    real = builder.evaluate

    def counting(task: Any) -> Any:
        calls.append((task.decision_id, task.move))
        return real(task)

    monkeypatch.setattr(builder, "evaluate", counting)
    with LocalBackend(workers=1) as backend:
        again = build([RECORDS], 9, 3, 5, backend, per_game=2, filter_spec=FILTER,
                      reference=REFERENCE, reuse=Benchmark.from_bytes(bench_bytes))
        assert again.to_bytes() == bench_bytes
        rated = len(calls)
        other = ReferenceSpec(visits=65, repeats=2)  # other settings: nothing is reused
        build([RECORDS], 9, 1, 5, backend, per_game=2, filter_spec=FILTER, reference=other,
              reuse=Benchmark.from_bytes(bench_bytes))
    kept = {(e.decision.id, c.move) for e in Benchmark.from_bytes(bench_bytes).entries
            for c in e.candidates}
    assert not kept & set(calls[:rated])  # only proposals the file does not hold were rated
    assert kept & set(calls[rated:])  # with other settings the values are computed


def test_cli_build_with_reuse_gives_the_same_file(tmp_path: Path) -> None:
    first, second = tmp_path / "a.jsonl.gz", tmp_path / "b.jsonl.gz"
    args = ["build", RECORDS, "--size", "9", "--decisions", "2", "--seed", "7", "--visits",
            "48", "--filter-visits", "64", "--margin", "0.02", "--per-game", "1",
            "--workers", "1", "--no-progress", "--out"]
    assert main(args + [str(first)]) == 0
    assert main(args + [str(second), "--reuse", str(first)]) == 0
    assert first.read_bytes() == second.read_bytes()


def test_build_says_when_the_records_hold_fewer_decisions(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--decisions 100000 from a few records built what they held without a
    word (a tester's finding): the count is still what they hold, with a
    warning."""
    records = tmp_path / "records"
    records.mkdir()
    (records / "one.sgf").write_bytes(
        shared_path("gnugo-regression", "games", "cgos", "42896.sgf").read_bytes())
    out = tmp_path / "t.jsonl.gz"
    assert main(["build", str(records), "--size", "9", "--decisions", "100", "--seed", "5",
                 "--out", str(out), "--visits", "48", "--filter-visits", "64", "--margin",
                 "0.02", "--per-game", "1", "--workers", "1", "--no-progress"]) == 0
    captured = capsys.readouterr()
    built = int(captured.out.split(": ")[1].split(" decisions")[0])
    assert built <= 1
    assert f"warning: {built} of the 100 decisions asked for" in captured.err
    # (and says the filter may have dropped some: a tester's --margin 1.5
    # built none, "the records hold no more")
    assert "pass the filter" in captured.err and "--margin 0.02" in captured.err


@pytest.mark.parametrize("name", ["9x9", "13x13"])
def test_bundled_references_are_reproduced(name: str) -> None:
    """The reference function still gives the bundled benchmarks' stored
    values, to the digit: a change of the search's defaults must not move
    them (the reference searches pin what they depend on)."""
    bench, _ = open_benchmark(name)
    spec = ReferenceSpec(**{k: v for k, v in bench.reference.items() if k != "method"})
    entry = bench.entries[0]
    for candidate in entry.candidates[:2]:
        assert candidate.version == 1
        task = CandidateTask(entry.decision.position, entry.decision.id, candidate.move, spec,
                             bench.seed)
        value = evaluate(task)
        assert (value.value, value.se) == (candidate.value, candidate.se), candidate
