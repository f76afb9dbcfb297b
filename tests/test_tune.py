"""The playout tuner: the .db writer, move-prediction fitting, playout quality, the CLI."""

from __future__ import annotations

import functools
import os
import warnings
from pathlib import Path

import numpy as np
import pytest

import fastplay
from conftest import REPO
from fastplay.dbwrite import MAX_VALUE, DbLayout, class_diagram, property_keywords, write_db
from fastplay.patterns import PatternDatabase, compile_db, geometry_table
from fastplay.prior import collect_samples
from fastplay.tune import playout_quality, tune_mm
from fastplay.tune.cli import main as tune_main

MOVES = ["ee", "cc", "gc", "cg", "gg", "dd", "ec", "ce", "eg", "ge", "dc", "fg"]


def _compile_both(text: str) -> np.ndarray:
    """The strict table, checked equal to GNU Go mode's, and no warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        strict, _ = compile_db(text, strict=True, cache=False)
    gnugo, _ = compile_db(text, strict=False, cache=False)
    assert np.array_equal(strict, gnugo)
    return strict


def test_written_layout_compiles_to_its_table() -> None:
    rng = np.random.default_rng(3)
    values = rng.integers(0, MAX_VALUE + 1, (1108, 256)).astype(np.uint32)
    written = rng.random((1108, 256)) < 0.03
    written[0] = False
    written[7] = True              # a class written in full: no default line
    classes = np.zeros(1108, bool)
    classes[[2, 900]] = True       # classes drawn with their default only
    written[[2, 900]] = False
    defaults = rng.integers(0, 5000, 1108).astype(np.uint32)
    layout = DbLayout(values, written, defaults, 17, classes=classes)
    text = write_db(layout, "a header\n\n" + "a long line " * 20)
    assert max(len(line) + 1 for line in text.splitlines()) <= 79
    assert text.isascii()
    table = _compile_both(text)
    np.testing.assert_array_equal(table[1:], layout.table()[1:])
    assert (table[2] == defaults[2]).all() and table[7].tolist() == values[7].tolist()
    assert (table[~layout.used()][1:] == 17).all()


def test_every_property_byte_and_class_is_addressed_exactly() -> None:
    for p in range(256):
        text = "...\n.*.\n...\n" + f":5 {property_keywords(p)}\n"
        table = _compile_both(text)
        assert table[1, p] == 5 and int(np.count_nonzero(table[1] == 5)) == 1
    codes = geometry_table()
    for g in (1, 16, 94, 276, 645, 742, 752, 829, 1071, 1090, 1093, 1107):
        table = _compile_both(class_diagram(g) + "\n:9\n")
        assert np.flatnonzero(table[:, 0] == 9).tolist() == [g]
        rows = class_diagram(g).splitlines()
        assert len(rows) == 3 and rows[1][1] == "*" and np.count_nonzero(codes == g) >= 1


@pytest.mark.parametrize("bad, message", [
    (dict(values=np.full((1108, 256), MAX_VALUE + 1, np.uint32)), "values must be"),
    (dict(values=np.zeros((5, 256), np.uint32)), "a layout holds"),
    (dict(row0=True), "row 0"),
])
def test_write_db_refuses_bad_layouts(bad: dict[str, object], message: str) -> None:
    values = np.ones((1108, 256), np.uint32)
    written = np.zeros((1108, 256), bool)
    written[1, 0] = True
    if bad.get("row0"):
        written[0, 0] = True
    layout = DbLayout(bad.get("values", values), written,  # type: ignore[arg-type]
                      np.ones(1108, np.uint32), 1)
    with pytest.raises(ValueError, match=message):
        write_db(layout)
    with pytest.raises(ValueError):
        class_diagram(0)
    with pytest.raises(ValueError):
        property_keywords(256)


def _records(folder: Path, games: int = 8) -> Path:
    folder.mkdir()
    for n in range(games):
        seq = "".join(f";{'BW'[k % 2]}[{m}]" for k, m in enumerate(MOVES[n % 4:] + MOVES[:n % 4]))
        (folder / f"g{n}.sgf").write_text(f"(;GM[1]FF[4]SZ[9]PB[a]PW[b]{seq})")
    return folder


def test_tune_mm_keeps_the_base_zeros_and_prefers_the_moves_played(tmp_path: Path) -> None:
    samples = collect_samples(sorted(_records(tmp_path / "g").glob("*.sgf")), None, 9)
    base = PatternDatabase.builtin("mc_montegnu_classic").table
    policy = tune_mm(samples, base, iterations=10)
    table = policy.table()
    assert (table[base == 0] == 0).all() and (table[1:][base[1:] != 0] >= 1).all()
    chosen = samples.index[samples.offsets[:-1] + samples.chosen]
    others = np.setdiff1d(samples.index, chosen)
    assert np.median(table.ravel()[chosen]) > np.median(table.ravel()[others])
    np.testing.assert_array_equal(_compile_both(write_db(policy.layout))[1:], table[1:])
    assert policy.moves == len(samples) and policy.cells_seen == len(np.unique(samples.index))
    with pytest.raises(ValueError, match="shape"):
        tune_mm(samples, np.ones((3, 3)))
    with pytest.raises(ValueError, match="scale"):
        tune_mm(samples, base, scale=0.5)


def test_tune_cli_writes_a_database_fastplay_loads(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    records = _records(tmp_path / "g")
    out = tmp_path / "tuned.db"
    args = [str(records), "--iterations", "5", "--holdout", "4", "--out", str(out)]
    assert tune_main(["mm", *args]) == 0
    report = capsys.readouterr().out
    assert "base database" in report and "tuned" in report and "wrote" in report
    text = out.read_text()
    assert "fastplay tune mm" in text and text.startswith("# Monte Carlo playout patterns")
    db = PatternDatabase.from_file(out)
    stats = fastplay.playouts(fastplay.Board(9), db, n=20, seed=1)
    assert stats.n == 20 and stats.capped == 0
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask   # as any new file, not 0600
    first = out.read_bytes()
    assert tune_main(["mm", *args]) == 0
    assert out.read_bytes() == first          # a pure function of records and options


def test_tune_cli_says_which_records_it_cut_short_or_left_out(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]
                                                               ) -> None:
    records = _records(tmp_path / "g")
    (records / "big.sgf").write_text("(;GM[1]FF[4]SZ[13]PB[a]PW[b];B[gg])")
    (records / "cut.sgf").write_text("(;GM[1]FF[4]SZ[9]PB[a]PW[b];B[ee];W[ee];B[cc])")
    (records / "broken.sgf").write_text("(;GM[1]FF[4]SZ[9];B[ee]")
    out = tmp_path / "tuned.db"
    assert tune_main(["mm", str(records), "--iterations", "2", "--out", str(out)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert [line.split(":")[0] for line in err if ": " in line] == \
        ["skipped", "cut short", "left out", "left out"]
    assert f"cut short: {records / 'cut.sgf'}: move 2 and after left out: " in err[1]
    assert err[2:] == ["left out: 1 record: 1 on 13x13", f"left out: {records / 'big.sgf'}: on 13x13"]


@pytest.mark.parametrize("args, message", [
    (["mm", "RECORDS", "--out", ""], "must name a file"),
    (["mm", "RECORDS", "--out", "OUT", "--size", "13"], "no moves"),
    (["mm", "/no/such/dir", "--out", "OUT"], "no such file"),
    (["mm", "RECORDS", "--out", "OUT", "--base", "/no/such.db"], "No such file"),
    (["mm", "RECORDS", "--out", "OUT", "--holdout", "1"], "holdout"),
    (["quality", "mc_uniform", "--benchmark", "nonesuch"], "nonesuch"),
    (["quality", "BADDB"], "BADDB"),
    (["mm", "RECORDS", "--out", "OUT", "--scale", "0.5"], "--scale"),
    (["mm", "RECORDS", "--out", "OUT", "--scale", "1e9"], "--scale"),
    (["mm", "RECORDS", "--out", "/no/such/dir/o.db"], "no such directory"),
    (["balance", "--out", "/no/such/dir/o.db"], "no such directory"),
    (["mm", "RECORDS", "--out", "OUT", "--base", "nosuchdb"], "neither a built-in"),
    (["quality", "RECORDS"], "neither a built-in"),
    (["mm", "RECORDS", "--out", "OUT", "--player", "nobody"], "named like 'nobody'"),
    (["mm", "FAKETAR", "--out", "OUT"], "not a readable tar archive"),
    # --out naming an input (a tester's record replaced by a .db file):
    (["mm", "RECORDS", "--out", "RECORD"], "is one of the inputs"),
    (["mm", "RECORD", "--out", "RECORD"], "is one of the inputs"),
    (["mm", "RECORDS", "--out", "BADDB", "--base", "BADDB"], "is one of the inputs"),
    (["balance", "--references", "BADDB", "--out", "BADDB"], "is one of the inputs"),
    (["balance", "--references", "JUNK", "--out", "OUT"], "junk.bin: not a text file of "
     "decision lines: invalid start byte at byte 0"),
])
def test_tune_cli_usage_errors(tmp_path: Path, args: list[str], message: str,
                               capsys: pytest.CaptureFixture[str]) -> None:
    records = _records(tmp_path / "g", games=2)
    (tmp_path / "bad.db").write_text("..\n.*.\n...\n:1\n")
    (tmp_path / "fake.tar.gz").write_text("not an archive")
    names = {"RECORDS": str(records), "OUT": str(tmp_path / "o.db"),
             "BADDB": str(tmp_path / "bad.db"), "FAKETAR": str(tmp_path / "fake.tar.gz"),
             "RECORD": str(records / "g1.sgf"), "JUNK": str(tmp_path / "junk.bin")}
    (tmp_path / "junk.bin").write_bytes(b"\xa1\x00\xff" * 50)
    kept = {path: path.read_bytes() for path in (records / "g1.sgf", tmp_path / "bad.db")}
    with pytest.raises(SystemExit) as stop:
        tune_main([names.get(a, a) for a in args])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err or message.replace("BADDB", "bad.db") in err
    assert "Traceback" not in err and len(err.strip().splitlines()[-1]) < 300
    assert err.count("error:") == 1 and "\n- method" not in err
    assert not (tmp_path / "o.db").exists()
    assert {path: path.read_bytes() for path in kept} == kept


def test_tune_cli_writes_ascii_whatever_the_paths(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    records = _records(tmp_path / "récords")
    out = tmp_path / "tuné.db"
    assert tune_main(["mm", str(records), "--iterations", "2", "--out", str(out)]) == 0
    text = out.read_bytes().decode("ascii")
    assert "r\\xe9cords" in text and "tun\\xe9.db" in text
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    PatternDatabase.from_file(out)
    capsys.readouterr()


def test_old_auto_prior_size_name_warns() -> None:
    import fastplay.mcts

    with pytest.warns(DeprecationWarning, match="AUTO_PRIORS"):
        assert fastplay.mcts.AUTO_PRIOR_SIZE == 9
    with pytest.raises(AttributeError):
        fastplay.mcts.NO_SUCH_NAME  # noqa: B018


def test_playout_quality_is_a_pure_function_of_its_seed(capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    from fastplay.benchmark.store import open_benchmark

    entries = open_benchmark("9x9")[0].entries[:6]
    db = PatternDatabase.builtin("mc_montegnu_classic")
    a = playout_quality(db, entries, 30, seed=4)
    assert a.reference.tolist() == playout_quality(db, entries, 30, seed=4).reference.tolist()
    assert a.playout.tolist() == playout_quality(db, entries, 30, seed=4).playout.tolist()
    assert 0.0 <= a.mse <= 1.0 and a.mse == pytest.approx(np.mean((a.playout - a.reference) ** 2))
    assert all(0.0 <= v <= 1.0 for v in a.playout)
    with pytest.raises(ValueError, match="no positions"):
        playout_quality(db, [], 10)
    with pytest.raises(ValueError, match="at least 1"):
        playout_quality(db, entries, 0)
    assert tune_main(["quality", "mc_uniform", "mc_montegnu_classic", "--positions", "4",
                      "--playouts", "10"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("9x9") and "4 positions" in lines[0]
    assert [line.split(":")[0] for line in lines[1:]] == ["mc_uniform", "mc_montegnu_classic"]


def test_balanced_database_text_compiles_to_its_table() -> None:
    from fastplay.tune.balance import FEATURES, balanced_db_text, balanced_table, feature_matrix

    base = PatternDatabase.builtin("mc_montegnu_classic")
    f = feature_matrix()
    assert f.shape == (256, len(FEATURES)) and f[1, 0] == 1 and f[2, 1] == 1 and f[8, 2] == 1
    assert f[0].sum() == 0 and f[255].tolist() == [1, 1, 0, 0, 1, 1, 1, 1]
    np.testing.assert_array_equal(balanced_table(base, np.zeros(8))[1:],
                                  base.table[1:].astype(np.int64) * 100)
    rng = np.random.default_rng(5)
    for theta in (np.zeros(8), rng.uniform(-1.4, 1.4, 8)):
        text = balanced_db_text(base, theta, header="balanced")
        assert max(len(line) + 1 for line in text.splitlines()) <= 79
        table = _compile_both(text)
        np.testing.assert_array_equal(table[1:], balanced_table(base, theta)[1:])
        assert (table[1:][base.table[1:] == 0] == 0).all()
    with pytest.raises(ValueError, match="theta"):
        balanced_table(base, np.zeros(3))
    with pytest.raises(ValueError, match="theta"):
        balanced_table(base, np.full(8, np.nan))
    from fastplay.tune.balance import capped_cells
    assert capped_cells(base, np.zeros(8)) == 0
    big = PatternDatabase.from_string("%%%\n%*%\n%%%\n:200000\n", name="big")
    assert capped_cells(big, np.zeros(8)) == 1107 * 256
    # The scale of a base: 100 for GNU Go's built-ins (the shipped file's),
    # less for an already scaled base, so that nothing is capped where the
    # largest multiplier allows it (a tester saw a tuned base capped).
    from fastplay.tune.balance import THETA_LIMIT, balance_scale
    for name in ("mc_montegnu_classic", "mc_mogo_classic", "mc_uniform"):
        assert balance_scale(PatternDatabase.builtin(name)) == 100
    assert balance_scale(big) == 11      # 200,000 * e**1.5 * 11 <= 10**7 < ... * 12
    assert capped_cells(big, np.r_[THETA_LIMIT, np.zeros(7)], 11) == 0   # one multiplier
    tuned = PatternDatabase.builtin("mc_fastplay_9x9")
    assert balance_scale(tuned) == 1
    assert capped_cells(tuned, np.zeros(8), 1) == 0 < capped_cells(tuned, np.zeros(8))
    from fastplay.patterns import property_mask
    assert property_mask(("near", "ocap2")).sum() == 32
    with pytest.raises(ValueError, match="unknown"):
        property_mask(("nearly",))


def test_balance_is_a_pure_function_of_its_seed(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from fastplay.benchmark.store import open_benchmark
    from fastplay.tune.balance import THETA_LIMIT, balance_spsa

    entries = open_benchmark("9x9")[0].entries[:4]
    base = PatternDatabase.builtin("mc_montegnu_classic")
    a = balance_spsa(base, entries, iterations=3, playouts=6, seed=2)
    b = balance_spsa(base, entries, iterations=3, playouts=6, seed=2)
    assert a.theta.tolist() == b.theta.tolist() and a.history == b.history
    assert len(a.history) == 3 and np.abs(a.theta).max() <= THETA_LIMIT
    assert a.theta.tolist() != balance_spsa(base, entries, 3, 6, seed=3).theta.tolist()
    with pytest.raises(ValueError):
        balance_spsa(base, [], 3, 6)
    out = tmp_path / "b.db"
    assert tune_main(["balance", "--iterations", "1", "--playouts", "2", "--report-playouts",
                      "4", "--holdout", "250", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "held out, mc_montegnu_classic" in text and "held out, balanced" in text
    assert PatternDatabase.from_file(out).table.shape == (1108, 256)
    assert "fastplay tune balance" in out.read_text()


def test_policy_gradient_plays_the_playouts_moves_and_scores_them() -> None:
    from fastplay._playout import policy_gradient
    from fastplay.montecarlo import playout_engine

    db = PatternDatabase.builtin("mc_montegnu_classic")
    board = fastplay.Board(9, komi=7.5)
    for move in ("E5", "C3", "G7"):
        board.play(move)
    r = policy_gradient(playout_engine(db), board, 120, 5)
    stats = fastplay.playouts(board, db, n=120, seed=5)
    assert r["n"] == 120 and r["wins"] == stats.black_wins + stats.draws / 2
    # A score function sums to zero over the cells: the probabilities sum to 1.
    assert abs(r["h"].sum()) < 1e-9 and abs(r["zh"].sum()) < 1e-9
    touched = np.flatnonzero(r["h"])
    assert len(touched) > 100 and (db.table.ravel()[touched] > 0).all()
    assert r["h"].shape == r["zh"].shape == (1108 * 256,)
    again = policy_gradient(playout_engine(db), board, 120, 5)
    assert again["zh"].tolist() == r["zh"].tolist()
    with pytest.raises(ValueError, match="flat"):
        policy_gradient(playout_engine(PatternDatabase.builtin("mc_uniform")), board, 5, 1)
    with pytest.raises(ValueError):
        policy_gradient(playout_engine(db), board, -1, 1)


def test_balance_gradient_is_a_pure_function_of_its_seed(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    from fastplay.benchmark.store import open_benchmark
    from fastplay.tune.balance import THETA_LIMIT, balance_gradient, parameter_count

    entries = open_benchmark("9x9")[0].entries[:5]
    base = PatternDatabase.builtin("mc_montegnu_classic")
    a = balance_gradient(base, entries, iterations=2, value_playouts=8, gradient_playouts=8)
    b = balance_gradient(base, entries, iterations=2, value_playouts=8, gradient_playouts=8)
    assert a.theta.shape == (parameter_count(base),) and a.theta.tolist() == b.theta.tolist()
    assert len(a.history) == 2 and a.history == b.history
    # Each row: the sweep's squared error and mean error of V - V*, consistent.
    assert all(0.0 < mse <= 1.0 and bias ** 2 <= mse + 1e-12 for _, mse, bias in a.history)
    assert np.abs(a.theta).max() <= THETA_LIMIT and np.abs(a.theta).max() > 0
    with pytest.raises(ValueError):
        balance_gradient(base, entries, rate=0)
    out = tmp_path / "g.db"
    assert tune_main(["balance", "--iterations", "1", "--playouts", "2", "--report-playouts",
                      "4", "--holdout", "250", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "per line" in text and "sweep 0: squared error" in text
    assert "policy gradient" in out.read_text()


def _reference_lines(path: Path, values: list[float], gz: bool = False) -> list[str]:
    """Decision lines of the bundled 9x9 benchmark's first positions, each
    with one candidate: its best move at the given value (source "pachi"),
    plus a key decision lines lack."""
    import gzip
    import json

    from fastplay.benchmark.store import open_benchmark

    lines = []
    for entry, value in zip(open_benchmark("9x9")[0].entries, values):
        data = entry.to_json()
        data["candidates"] = [{"move": entry.best.move, "value": value, "se": 0.0,
                               "source": "pachi", "version": 1}]
        data["pachi"] = {"games": 100}
        lines.append(json.dumps(data))
    text = "\n".join(lines) + "\n\n"
    if gz:
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return lines


def test_references_replace_the_benchmarks_positions_and_values(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from fastplay.benchmark.store import open_benchmark, read_entries

    values = [0.0, 1.0, 0.25, 0.5, 0.75, 0.125]
    plain, packed = tmp_path / "refs.jsonl", tmp_path / "refs.jsonl.gz"
    _reference_lines(plain, values)
    _reference_lines(packed, values, gz=True)
    entries = read_entries(plain)
    assert [e.best.value for e in entries] == values
    assert [e.best.source for e in entries] == ["pachi"] * 6
    assert [e.decision.id for e in read_entries(packed)] == \
        [e.decision.id for e in open_benchmark("9x9")[0].entries[:6]]
    db = PatternDatabase.builtin("mc_montegnu_classic")
    assert playout_quality(db, entries, 4).reference.tolist() == values
    assert tune_main(["quality", "mc_montegnu_classic", "--references", str(packed),
                      "--playouts", "4"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{packed} (6 positions, refs ") and "6 positions, 4 playouts" in out
    db_out = tmp_path / "r.db"
    assert tune_main(["balance", "--references", str(plain), "--iterations", "1",
                      "--playouts", "2", "--report-playouts", "4", "--holdout", "3",
                      "--out", str(db_out)]) == 0
    assert "4 positions to balance on, 2 held out" in capsys.readouterr().out
    assert str(plain) in db_out.read_text()


@pytest.mark.parametrize("change, message", [
    (lambda lines: lines + [lines[0]], "appears twice"),
    (lambda lines: ['{"format": "fastplay-benchmark"}'] + lines, "line 1: a benchmark header"),
    (lambda lines: lines[:1] + ["[1, 2]"], "line 2: not a JSON object"),
    (lambda lines: lines[:1] + [lines[1].replace('"value": 1.0', '"value": 1.5')],
     "line 2: candidate"),
    (lambda lines: [lines[0].replace('"B F3"', '"B F33"')], "line 1"),
    (lambda lines: [], "no positions"),
])
def test_references_file_errors_name_the_file_and_line(tmp_path: Path, change: object,
                                                       message: str,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    from fastplay.benchmark.store import BenchmarkError, read_entries

    path = tmp_path / "refs.jsonl"
    lines = _reference_lines(path, [0.5, 1.0])
    path.write_text("\n".join(change(lines)) + "\n")  # type: ignore[operator]
    with pytest.raises(BenchmarkError, match=message) as error:
        read_entries(path)
    assert str(path) in str(error.value)
    with pytest.raises(SystemExit) as stop:
        tune_main(["quality", "mc_uniform", "--references", str(path)])
    assert stop.value.code == 2 and message in capsys.readouterr().err
    with pytest.raises(SystemExit):
        tune_main(["quality", "mc_uniform", "--references", str(tmp_path / "none")])
    assert f"{tmp_path / 'none'}: No such file" in capsys.readouterr().err
    with pytest.raises(SystemExit):   # the file and the reason, not "[Errno 21] ..."
        tune_main(["quality", "mc_uniform", "--references", str(tmp_path)])
    assert capsys.readouterr().err.endswith(f"error: {tmp_path}: Is a directory\n")


def test_the_shipped_tuned_database_is_made_again_byte_for_byte(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
        ) -> None:
    """``mc_fastplay_9x9`` is the output of the command in its header, run
    from the repository's root (issue 19: the tuner reproduces what is
    shipped); both of fastplay's loaders take it to the same table."""
    from fastplay.patterns import TUNED_BUILTINS, _builtin_source

    assert TUNED_BUILTINS == ("mc_fastplay_9x9",)
    shipped, _ = _builtin_source("mc_fastplay_9x9")
    command = " ".join(line[2:] for line in shipped.decode("ascii").splitlines()
                       if line.startswith("# ")).split("Made by: fastplay tune ")[1].split()
    assert command == ["balance", "--references", "benchmarks/data/pachi9_refs.jsonl.gz",
                       "--iterations", "4", "--playouts", "64", "--seed", "1",
                       "--out", "patterns/mc_fastplay_9x9.db"]
    (tmp_path / "benchmarks" / "data").mkdir(parents=True)
    (tmp_path / "patterns").mkdir()
    (tmp_path / "benchmarks" / "data" / "pachi9_refs.jsonl.gz").symlink_to(
        REPO / "benchmarks" / "data" / "pachi9_refs.jsonl.gz")
    monkeypatch.chdir(tmp_path)
    assert tune_main(command) == 0
    assert "held out, balanced" in capsys.readouterr().out
    made = (tmp_path / "patterns" / "mc_fastplay_9x9.db").read_bytes()
    assert made == shipped
    table = _compile_both(made.decode("ascii"))
    assert np.array_equal(table, PatternDatabase.builtin("fastplay_9x9").table)
    assert not np.array_equal(table, PatternDatabase.default().table)


def test_tune_takes_every_spelling_of_a_built_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A tester's finding: ``--base fastplay_9x9`` and ``tune quality
    montegnu_classic`` were refused, though ``--mc-patterns`` takes them;
    a file of such a name is still read as the file."""
    from fastplay.tune.cli import _database, _parser

    parser = _parser()
    for name in ("fastplay_9x9", "montegnu_classic", "mc_uniform.db", "mc_mogo_classic"):
        assert _database(parser, name, "--base") is PatternDatabase.builtin(name)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "uniform.db").write_text("# mine\n\n...\n.*.\n...\n\n:7\n")
    mine = _database(parser, "uniform.db", "--base")
    assert mine.source == Path("uniform.db") and 7 in mine.table
    with pytest.raises(SystemExit):
        _database(parser, "montegnu", "--base")
    assert "neither a built-in" in capsys.readouterr().err


def _near_weight(command: str) -> float:
    """The value of a near move over a far one of the same shape in the
    database a fake engine's command line names (its last word)."""
    import shlex

    return _near_weight_of(Path(shlex.split(command)[-1]).read_text())


@functools.cache
def _near_weight_of(text: str) -> float:
    db = PatternDatabase.from_string(text)
    row = int(np.argmax(db.table[:, 0]))
    return float(db.table[row, 1]) / float(db.table[row, 0])


def test_spsa_on_games_follows_the_results_and_its_seed(tmp_path: Path) -> None:
    """SPSA on games (:mod:`fastplay.tune.games`) with a fake game in which
    the engine whose database weighs near moves more always wins: every step
    raises the near multiplier and moves the others at random; a pure
    function of its seed."""
    from fastplay.tune.balance import THETA_LIMIT
    from fastplay.tune.games import engine_command, spsa_games

    def play(black: str, white: str) -> str | None:
        nb, nw = _near_weight(black), _near_weight(white)
        return None if nb == nw else ("B" if nb > nw else "W")

    base = PatternDatabase.builtin("mc_montegnu_classic")
    seen: list[float] = []
    run = spsa_games(base, "engine {db}", 4, seed=3, play=play, workdir=tmp_path,
                     log=lambda k, y, theta: seen.append(float(theta[0])))
    # The plus side wins both games exactly when its near multiplier is the
    # larger one: y = delta[0], so theta[0] grows at every step.
    assert all(abs(y) == 1.0 for _, y in run.history)
    assert seen == sorted(seen) and len(set(seen)) == 4 and seen[-1] == run.theta[0]
    assert run.theta[0] == max(abs(run.theta)) and 0 < run.theta[0] < THETA_LIMIT
    again = spsa_games(base, "engine {db}", 4, seed=3, play=play)
    np.testing.assert_array_equal(again.theta, run.theta)
    other = spsa_games(base, "engine {db}", 4, seed=4, play=play)
    assert other.theta[0] == pytest.approx(run.theta[0]) and not np.array_equal(other.theta,
                                                                               run.theta)
    assert engine_command("gnugo --seed {seed} -l {db}", tmp_path / "a b.db", 7) == \
        f"gnugo --seed 7 -l '{tmp_path / 'a b.db'}'"
    for bad in ("gnugo", "gnugo {db} {level}", "gnugo {db} {", "x {db} {db.name}", "x {db[0]}",
                "x {db:{seed}}", "x {{db}}", "x {seed.real} {db}"):
        with pytest.raises(ValueError, match="engine command"):
            spsa_games(base, bad, 1, play=play)


def test_a_stopped_spsa_run_resumes_where_it_stopped(tmp_path: Path) -> None:
    """A run stopped by Ctrl-C in its fourth step and resumed from the state
    its log wrote (save_state, load_state) takes the steps of a run that was
    never stopped, bit for bit; two games at a time change nothing; a state
    of other settings, or no state at all, is refused."""
    from fastplay.tune.games import GamesRun, load_state, save_state, spsa_games

    def play(black: str, white: str) -> str | None:
        nb, nw = _near_weight(black), _near_weight(white)
        return None if nb == nw else ("B" if nb > nw else "W")

    base = PatternDatabase.builtin("mc_montegnu_classic")
    whole = spsa_games(base, "engine {db}", 6, seed=5, play=play)
    state = tmp_path / "state.json"
    settings: dict[str, object] = {"seed": 5, "iterations": 6}
    history: list[tuple[int, float]] = []
    calls = []

    def save(k: int, y: float, theta: np.ndarray) -> None:
        history.append((k, y))
        save_state(state, GamesRun(theta.copy(), history), settings)

    def stopping(black: str, white: str) -> str | None:
        calls.append(black)
        if len(calls) == 7:           # the fourth step's first game
            raise KeyboardInterrupt
        return play(black, white)

    with pytest.raises(KeyboardInterrupt):
        spsa_games(base, "engine {db}", 6, seed=5, play=stopping, log=save)
    stopped = load_state(state, settings)
    assert [k for k, _ in stopped.history] == [0, 1, 2]
    resumed = spsa_games(base, "engine {db}", 6, seed=5, play=play, resume=stopped, jobs=2)
    assert resumed.theta.tobytes() == whole.theta.tobytes()
    assert resumed.history == whole.history
    assert spsa_games(base, "engine {db}", 6, seed=5, play=play,
                      jobs=2).theta.tobytes() == whole.theta.tobytes()
    with pytest.raises(ValueError, match="other settings: seed 5, now 6$"):
        load_state(state, {"seed": 6, "iterations": 6})
    for text in ("", "[]", '{"fastplay tune games": 2}', '{"fastplay tune games": 1}',
                 '{"fastplay tune games": 1, "settings": {}, "theta": ["1"], "history": []}',
                 '{"fastplay tune games": 1, "settings": {}, "theta": [], "history": [[true, 1]]}',
                 '{"fastplay tune games": true, "settings": {}, "theta": [], "history": []}',
                 '{"fastplay tune games": 1, "settings": {}, "theta": [1' + "0" * 400 + '], '
                 '"history": []}',
                 "[" * 100_000 + "]" * 100_000):
        state.write_text(text)
        with pytest.raises(ValueError, match="not a state"):
            load_state(state, {})
    for theta, history in (([0.0] * 7, []), ([float("nan")] * 8, []), ([0.0] * 8, [(1, 0.0)]),
                           ([0.0] * 8, [(0, 2.0)]), ([0.0] * 8, [(k, 0.0) for k in range(7)])):
        with pytest.raises(ValueError, match="resumed run"):
            spsa_games(base, "engine {db}", 6, play=play,
                       resume=GamesRun(np.array(theta), list(history)))


def test_tune_games_plays_real_engines_and_writes_a_database(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]
                                                            ) -> None:
    """``fastplay tune games`` end to end, with ``fastplay gtp`` at a few
    playouts a move as the engine that loads each database: one step, two
    games, a database fastplay's strict loader reads and whose header says
    how it was made."""
    import shlex
    import sys

    out = tmp_path / "games.db"
    engine = (f"{shlex.quote(sys.executable)} -m fastplay gtp --playouts 20 "
              "--mc-load-patterns {db} --seed {seed}")
    args = ["games", "--engine", engine, "--iterations", "1", "--seed", "2", "--out", str(out)]
    assert tune_main(args) == 0
    printed = capsys.readouterr().out
    assert "step 0: plus side scored" in printed and f"wrote {out}" in printed
    db = PatternDatabase.from_file(out)
    assert len(db.rules) > 0
    text = out.read_text()
    assert "by SPSA on 1 steps of 2 games" in text and "--iterations 1" in text
    with pytest.raises(SystemExit):
        tune_main(["games", "--engine", "gnugo --mode gtp", "--out", str(out)])
    assert "{db}" in capsys.readouterr().err
    assert tune_main(["games", "--engine", "no-such-engine {db}", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "cannot start 'no-such-engine'" in err and "Traceback" not in err
    # An engine that refuses its setup loses every game before a move: an
    # error, not a run of 0 scores and a database (a tester's finding).
    bogus = engine.replace("gtp ", "gtp --bogus ")
    assert tune_main(["games", "--engine", bogus, "--iterations", "3", "--out",
                      str(tmp_path / "none.db")]) == 1
    assert "before its first move" in capsys.readouterr().err
    assert not (tmp_path / "none.db").exists()


def test_tune_games_resumes_from_its_checkpoint(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """``--checkpoint`` writes the run's state after every step; ``--resume``
    goes on from it (from a finished run: no game, the same database), and
    only with the state of the same options; a checkpoint is never
    overwritten without ``--resume``.  (That a resumed run takes the steps
    of one never stopped: test_a_stopped_spsa_run_resumes_where_it_stopped.)"""
    import json
    import shlex
    import sys

    engine = (f"{shlex.quote(sys.executable)} -m fastplay gtp --playouts 20 "
              "--mc-load-patterns {db} --seed {seed}")
    state = tmp_path / "state.json"
    args = ["games", "--engine", engine, "--iterations", "2", "--seed", "4", "--jobs", "2",
            "--checkpoint", str(state)]
    assert tune_main(args + ["--out", str(tmp_path / "whole.db")]) == 0
    assert capsys.readouterr().out.count("step ") == 2
    assert [k for k, _ in json.loads(state.read_text())["history"]] == [0, 1]
    with pytest.raises(SystemExit):
        tune_main(args + ["--out", str(tmp_path / "x.db")])
    assert "--resume goes on from it" in capsys.readouterr().err
    assert tune_main(args + ["--resume", "--out", str(tmp_path / "again.db")]) == 0
    assert "step " not in capsys.readouterr().out

    def body(name: str) -> list[str]:
        """The patterns and the weights, not the command line in the header."""
        return [line for line in (tmp_path / name).read_text().splitlines()
                if not line.startswith("#") or "Log-multipliers" in line]

    assert body("again.db") == body("whole.db")
    other = [a if a != "4" else "5" for a in args]
    for bad, message in ((other + ["--resume"], "other settings"),
                         (args[:-2] + ["--resume"], "--resume needs --checkpoint"),
                         (args[:-1] + [str(tmp_path / "none.json"), "--resume"], "--resume:")):
        with pytest.raises(SystemExit):
            tune_main(bad + ["--out", str(tmp_path / "x.db")])
        assert message in capsys.readouterr().err
    assert not (tmp_path / "x.db").exists()
    # A checkpoint that cannot be written is refused before any game (the
    # engine here would fail at its first game): a fresh tester's finding.
    dead = ["games", "--engine", "no-such-engine {db}", "--out", str(tmp_path / "x.db")]
    (tmp_path / "folder").mkdir()
    for where, message in ((tmp_path / "missing" / "c.json", "no such directory"),
                           (tmp_path / "folder", "must name a file"),
                           (tmp_path / "x.db" / "c.json", "no such directory")):
        with pytest.raises(SystemExit):
            tune_main(dead + ["--checkpoint", str(where)])
        assert message in capsys.readouterr().err
    with pytest.raises(SystemExit):
        tune_main(dead + ["--checkpoint", " "])
    assert "must name a file" in capsys.readouterr().err
