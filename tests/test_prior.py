"""The learned prior (fastplay.prior) and its use as the search's prior."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest

import fastplay
from fastplay.board import format_vertex
from fastplay.mcts import MCTS
from fastplay.patterns import local_contexts
from fastplay.prior import (MoveSamples, PriorModel, collect_samples, distance_buckets, fit,
                            load_prior)

ROOT = Path(__file__).resolve().parent.parent


def _synthetic(model: PriorModel, positions: int, rng: np.random.Generator) -> MoveSamples:
    """Positions of 30 candidates drawn from a few features, a move chosen by ``model``."""
    geos = np.array([3, 50, 700])
    props = np.array([0, 1, 16, 33])
    index, chosen, offsets = [], [], [0]
    for _ in range(positions):
        cand = rng.choice(geos, 30) * 256 + rng.choice(props, 30)
        p = model.geometry[cand >> 8] * model.properties[cand & 255] * model.cells[cand]
        chosen.append(int(rng.choice(30, p=p / p.sum())))
        index.append(cand)
        offsets.append(offsets[-1] + 30)
    idx = np.concatenate(index)
    zeros = np.zeros(len(idx), np.int64)
    return MoveSamples(idx, np.array(offsets), np.array(chosen), np.arange(positions),
                       np.ones(len(idx)), zeros, zeros, zeros)


def test_fit_recovers_known_strengths() -> None:
    rng = np.random.default_rng(5)
    truth = PriorModel.neutral()
    truth.geometry[[3, 50, 700]] = [1.0, 4.0, 0.5]
    truth.properties[[0, 1, 16, 33]] = [1.0, 3.0, 0.2, 8.0]
    samples = _synthetic(truth, 20000, rng)
    model = fit(samples)
    cells = np.array([g * 256 + p for g in (3, 50, 700) for p in (0, 1, 16, 33)])
    got = model.table().ravel()[cells].astype(float)
    want = truth.geometry[cells >> 8] * truth.properties[cells & 255]
    # Strengths are defined up to one factor: compare ratios to the first cell.
    np.testing.assert_allclose(got / got[0], want / want[0], rtol=0.3)
    # The fitted model predicts its own data better than uniform weights.
    assert samples.log_likelihood(got_all := model.strength(samples))[0] \
        > samples.log_likelihood(np.ones_like(got_all))[0] + 0.2
    # Unseen features keep strength 1.
    assert model.geometry[4] == 1.0 and model.cells[4 * 256] == 1.0


def test_log_likelihood_counts_ties_fairly() -> None:
    zeros = np.zeros(6, np.int64)
    samples = MoveSamples(np.arange(6), np.array([0, 4, 6]), np.array([1, 0]),
                          np.array([0, 0]), np.ones(6), zeros, zeros, zeros)
    loglik, top1 = samples.log_likelihood(np.array([1.0, 1.0, 1.0, 1.0, 3.0, 1.0]))
    assert loglik == pytest.approx((np.log(1 / 4) + np.log(3 / 4)) / 2)
    assert top1 == pytest.approx((1 / 4 + 1) / 2)


def test_fit_refuses_nothing_to_fit() -> None:
    none = np.zeros(0, np.int64)
    empty = MoveSamples(none, np.zeros(1, np.int64), none, none, np.zeros(0), none, none, none)
    with pytest.raises(ValueError, match="no moves"):
        fit(empty)
    with pytest.raises(ValueError, match="iterations"):
        fit(_synthetic(PriorModel.neutral(), 3, np.random.default_rng(1)), iterations=0)


def test_collect_samples_reads_one_players_moves(tmp_path: Path) -> None:
    game = tmp_path / "g.sgf"
    game.write_text("(;GM[1]FF[4]SZ[9]KM[7.5]PB[GNU Go 3.8]PW[someone]"
                    ";B[ee];W[cc];B[gc];W[tt];B[cg])")
    other = tmp_path / "h.sgf"
    other.write_text("(;GM[1]FF[4]SZ[13]PB[GNU Go]PW[x];B[ee])")
    samples = collect_samples([game, other], "GNU Go")
    assert len(samples) == 3 and list(samples.game) == [0, 0, 0]
    # Replay the game and check the third sample: Black's C3 after W pass.
    board = fastplay.Board(9)
    for move, colour in (("E5", "B"), ("C7", "W"), ("G7", "B")):
        board.play(move, colour)
    board.pass_move("W")
    contexts = local_contexts(board)
    legal = np.flatnonzero(contexts.legal.ravel())
    here = slice(samples.offsets[2], samples.offsets[3])
    np.testing.assert_array_equal(samples.index[here], contexts.index.ravel()[legal])
    assert legal[samples.chosen[2]] == 6 * 9 + 2  # C3: row 6 from the top, column C
    # The last move was a pass (bucket 0); the one before it Black's G7.
    assert not samples.last[here].any()
    g7 = 2 * 9 + 6
    c3 = np.flatnonzero(legal == 6 * 9 + 2)[0]
    assert samples.before[here][c3] == min(4 + 4 + 4, 17)   # dx 4, dy 4
    assert samples.line[here][c3] == 2
    assert samples.before[here][np.flatnonzero(legal == g7 + 1)[0]] == 2  # H7: next to G7
    # The second sample (Black's G7) follows White's C7, Black's E5 before it.
    second = slice(samples.offsets[1], samples.offsets[2])
    assert samples.last[second].max() == 17 and samples.before[second].min() >= 2
    assert collect_samples([game], "nobody").offsets.tolist() == [0]


def test_collect_samples_reads_both_players_and_skips_broken_records(tmp_path: Path) -> None:
    game = tmp_path / "g.sgf"
    # A name given twice (a real record of GNU Go's regression set does so).
    game.write_text("(;GM[1]FF[4]SZ[9]PB[GNU Go][3.8]PW[someone];B[ee];W[cc];B[gc];W[tt];B[cg])")
    broken = tmp_path / "broken.sgf"
    broken.write_text("(;GM[1]FF[4]SZ[9];B[ee]")
    assert len(collect_samples([game], "GNU Go")) == 3
    assert len(collect_samples([game], "someone")) == 1
    both = collect_samples([game], None)
    assert len(both) == 4 and list(both.game) == [0, 0, 0, 0]
    from fastplay.sgf import SGFError
    with pytest.raises(SGFError, match="broken.sgf"):
        collect_samples([broken, game], None)
    skipped: list[str] = []
    assert len(collect_samples([broken, game], None, skipped=skipped)) == 4
    assert len(skipped) == 1 and "broken.sgf" in skipped[0]


def test_a_record_cut_short_at_an_illegal_move_keeps_its_start_and_is_named(tmp_path: Path
                                                                          ) -> None:
    game = tmp_path / "cut.sgf"
    game.write_text("(;GM[1]FF[4]SZ[9];B[ee];W[cc];B[cc];W[gg])")
    skipped: list[str] = []
    cut: list[str] = []
    assert len(collect_samples([game], None, skipped=skipped, cut=cut)) == 2
    assert skipped == [] and cut == [f"{game}: move 3 and after left out: illegal move B C7: "
                                     "occupied (the point is already occupied)"]
    assert len(collect_samples([game], None)) == 2


def test_distance_buckets() -> None:
    line, last, before = distance_buckets(9, [0, 40, 41, 80, 30], 40, -1)
    assert line.tolist() == [0, 4, 3, 0, 3]
    assert last.tolist() == [12, 0, 2, 12, 3]  # A9, E5 itself (occupied in play), F5, J1, D6
    assert before.tolist() == [0] * 5          # no such move
    assert distance_buckets(19, [0], 360, -1)[1].tolist() == [17]  # far: capped


def _model(rng: np.random.Generator) -> PriorModel:
    neutral = PriorModel.neutral()
    return PriorModel(rng.uniform(0.5, 2, 1108), rng.uniform(0.5, 2, 256), neutral.cells,
                      rng.uniform(0.5, 2, 5), rng.uniform(0.5, 2, 18), rng.uniform(0.5, 2, 18))


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    model = _model(np.random.default_rng(2))
    model.cells[[5, 70_000]] = [3.0, 0.25]
    model.save(tmp_path / "p.npz")
    prior = load_prior(str(tmp_path / "p.npz"))
    assert prior.table.dtype == np.uint32 and prior.table.shape == (1108, 256)
    np.testing.assert_array_equal(prior.table, model.table())
    assert np.median(prior.table) == 1000
    np.testing.assert_array_equal(prior.last, model.last)
    factors = prior.factors(9, [10, 20], 40, 41)
    line, last, before = distance_buckets(9, [10, 20], 40, 41)
    np.testing.assert_allclose(factors, model.line[line] * model.last[last] * model.before[before])


def test_bundled_prior_loads() -> None:
    prior = load_prior("gnugo9x9")
    assert prior.table.shape == (1108, 256) and prior.table.dtype == np.uint32
    assert prior.table.min() >= 1 and prior.has_factors
    # Moves next to the last one are likelier than far ones (Coulom 2007, table 1).
    assert prior.last[2] > 1.2 * prior.last[17]
    assert prior.shapes is None
    shaped = load_prior("gnugo9x9_shapes")
    assert shaped.shapes is not None and shaped.shapes.radius == 4
    assert all(len(h) > 1000 for h in shaped.shapes.hashes[:2])


@pytest.mark.parametrize("source, message", [
    ("bogus", "unknown prior"),
    (np.ones((3, 3)), "shape"),
    (-np.ones((1108, 256)), "finite"),
    (np.full((1108, 256), np.nan), "finite"),
    (np.full((1108, 256), 2.0**40), "finite"),
    (np.full((1108, 256), "a"), "integer weights"),
    (np.full((1108, 256), True), "integer weights"),
    (np.full((1108, 256), 0.4), "integers"),
    (np.zeros((1108, 256), "m8"), "integer weights"),
])
def test_load_prior_refuses_bad_input(source: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_prior(source)


def _save(path: Path, **changes: object) -> str:
    arrays = dict(geometry=np.ones(1108), properties=np.ones(256), line=np.ones(5),
                  last=np.ones(18), before=np.ones(18), cell_index=np.zeros(0, np.int32),
                  cell_strength=np.zeros(0))
    arrays.update(changes)
    np.savez(path, **arrays)
    return str(path)


def test_load_prior_refuses_bad_files(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_prior(str(tmp_path / "missing.npz"))
    text = tmp_path / "text.npz"
    text.write_text("not a prior")
    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")
    bundled = Path(fastplay.__file__).parent / "data" / "prior_gnugo9x9.npz"
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(bundled.read_bytes()[:20_000])
    flipped = bytearray(bundled.read_bytes())
    flipped[30_000] ^= 0xFF
    (tmp_path / "flipped.npz").write_bytes(bytes(flipped))
    for bad in (text, empty, truncated, tmp_path / "flipped.npz", tmp_path):
        with pytest.raises(ValueError, match="not a prior"):
            load_prior(str(bad))
    # Not numpy's advice to load a pickle: the file is simply not a prior.
    for bad, said in ((text, "not a .npz archive"), (empty, "not a .npz archive"),
                      (_save(tmp_path / "objects.npz", geometry=np.array([{}], dtype=object)),
                       "holds Python objects")):
        with pytest.raises(ValueError, match=said) as caught:
            load_prior(str(bad))
        assert "allow_pickle" not in str(caught.value)
    # Only a zip's own signature makes an archive (numpy's test), not "PK".
    for name, head in (("pk.npz", b"PK"), ("pkg.npz", b"PKG-INFO\nName: x\n")):
        (tmp_path / name).write_bytes(head)
        with pytest.raises(ValueError, match="not a .npz archive"):
            load_prior(str(tmp_path / name))
    # A FIFO would block the reading, with Ctrl-C held: refused unopened.
    fifo = tmp_path / "fifo.npz"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="not a regular file"):
        load_prior(str(fifo))
    assert load_prior(_save(tmp_path / "fine.npz")).table.min() == 1000
    for name, change, message in (
            ("short", dict(geometry=np.ones(5)), "wrong shapes"),
            ("noline", dict(line=np.ones(4)), "wrong shapes"),
            ("ragged", dict(cell_index=np.zeros(2, np.int32)), "wrong shapes"),
            ("outside", dict(cell_index=np.array([-1], np.int32), cell_strength=np.ones(1)),
             "out of range"),
            ("zero", dict(geometry=np.zeros(1108)), "must be in"),
            ("nan", dict(last=np.full(18, np.nan)), "must be in"),
            ("huge", dict(line=np.full(5, 1e300)), "must be in"),
            ("tiny", dict(properties=np.full(256, 1e-300)), "must be in"),
            ("text", dict(line=np.array(["a"] * 5)), "not a prior"),
            ("ones", dict(line=np.array(["1"] * 5)), "not a prior"),
            ("complex", dict(line=np.ones(5, complex)), "not a prior"),
            ("fraction", dict(cell_index=np.array([3.5]), cell_strength=np.ones(1)), "not a prior"),
            ("twice", dict(cell_index=np.array([3, 3], np.int32), cell_strength=np.ones(2)),
             "given twice")):
        with pytest.raises(ValueError, match=message):
            load_prior(_save(tmp_path / f"{name}.npz", **change))


def test_save_writes_exactly_the_path_and_load_finds_it(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    model = _model(np.random.default_rng(3))
    model.save(tmp_path / "myprior")          # no suffix: numpy alone would add ".npz"
    assert (tmp_path / "myprior").exists() and not (tmp_path / "myprior.npz").exists()
    monkeypatch.chdir(tmp_path)
    np.testing.assert_array_equal(load_prior("myprior").table, model.table())
    prior = model.prior()
    assert load_prior(prior) is prior


def test_distance_buckets_refuse_points_off_the_board() -> None:
    for args in ((9, [81], -1, -1), (9, [-1], -1, -1), (9, [0], 81, -1), (9, [0], -1, -2),
                 (0, [0], -1, -1), (1, [0], -1, -1), (26, [0], -1, -1), (9, [0], True, -1)):
        with pytest.raises(ValueError):
            distance_buckets(*args)
    with pytest.raises(TypeError):
        distance_buckets(9, [1.5], -1, -1)
    prior = load_prior("gnugo9x9")
    for args in ((9, [0], 81, -1), (30, [0], -1, -1), (9, [-1], -1, -1), (9, [81], -1, -1),
                 (9.0, [0], -1, -1), (9, [[0, 1]], -1, -1)):
        with pytest.raises(ValueError):
            prior.factors(*args)
    for points in ([3.7], [True], np.array([2**64 - 1], np.uint64)):
        with pytest.raises((TypeError, ValueError)):
            prior.factors(9, points, -1, -1)
    with pytest.raises(ValueError):
        prior.factor_rows(9.0, -1, -1)
    assert prior.factors(9, [], -1, -1).shape == (0,)
    assert distance_buckets(9, [], -1, -1)[0].shape == (0,)


def test_collect_samples_refuses_malformed_moves_and_skips_setups(tmp_path: Path) -> None:
    from fastplay.sgf import SGFError

    for n, (text, said) in enumerate((
            ("(;GM[1]SZ[9]PB[GNU Go]PW[h];B[e];W[cc])", "node 1: a malformed move B[e]"),
            ("(;GM[1]SZ[9]PB[GNU Go]PW[h];B[ee];W[zz])", "node 2: a malformed move W[zz]"),
            ("(;GM[1]SZ[9]PB[GNU Go]PW[h];B[ee];W[ ])", "node 2: a malformed move W[ ]"),
            ("(;GM[1]SZ[9]HA[x]PB[GNU Go]PW[h];B[ee])", "HA[x] is not a number"))):
        bad = tmp_path / f"bad{n}.sgf"
        bad.write_text(text)
        # (the reasons once ended in Python's "not enough values to unpack")
        with pytest.raises(SGFError, match=f"bad{n}.sgf: {re.escape(said)}$"):
            collect_samples([bad], "GNU Go")
    # A move in the root node and two moves in one node are played, as
    # load_board plays them (a tester; no training record has one in a
    # game the bundled priors read: their samples' digests are unchanged).
    for n, text in enumerate(("(;GM[1]SZ[9]PB[GNU Go]PW[h]B[ee];W[cc];B[gg])",
                              "(;GM[1]SZ[9]PB[GNU Go]PW[h];B[ee]W[cc];B[gg])",
                              "(;GM[1]SZ[9]PB[GNU Go]PW[h];B[ee];W[cc];B[gg])")):
        (tmp_path / f"moves{n}.sgf").write_text(text)
    counts = [collect_samples([tmp_path / f"moves{n}.sgf"], None) for n in range(3)]
    assert len(counts[0]) == len(counts[1]) == len(counts[2]) == 3
    # Read as load_board reads them (tune mm skipped both: a tester).
    for n, text in enumerate((b"(;GM[1]SZ[9:9]PB[GNU Go]PW[h];B[ee];W[cc])",
                              b"(;GM[1]SZ[9]CA[klingon]PB[GNU Go]PW[h];B[ee];W[cc])")):
        (tmp_path / f"lenient{n}.sgf").write_bytes(text)
        assert len(collect_samples([tmp_path / f"lenient{n}.sgf"], "GNU Go")) == 1
    skipped = {"setup.sgf": "(;GM[1]SZ[9]PB[GNU Go]PW[h];B[ee];W[cc]AB[dd][de]AW[ff];B[dd])",
               "handicap.sgf": "(;GM[1]SZ[9]HA[2]AB[cc][gg]PB[h]PW[GNU Go];W[ee])",
               "handicap_no_stones.sgf": "(;GM[1]SZ[9]HA[2]PB[GNU Go]PW[h];B[ee])",
               "both.sgf": "(;GM[1]SZ[9]PB[GNU Go 1]PW[GNU Go 2];B[ee])"}
    skipped["13x13.sgf"] = "(;GM[1]SZ[13]PB[GNU Go]PW[h];B[gg])"
    skipped["nobody.sgf"] = "(;GM[1]SZ[9]PB[a]PW[b];B[ee])"
    for name, text in skipped.items():
        (tmp_path / name).write_text(text)
    left_out: list[str] = []
    assert len(collect_samples([tmp_path / n for n in skipped], "GNU Go",
                               left_out=left_out)) == 0
    assert left_out == [f"{tmp_path / name}: {why}" for name, why in (
        ("setup.sgf", "with setup stones"), ("handicap.sgf", "with handicap"),
        ("handicap_no_stones.sgf", "with handicap"),
        ("both.sgf", "both players named like 'GNU Go'"), ("13x13.sgf", "on 13x13"),
        ("nobody.sgf", "no player named like 'GNU Go'"))]


def test_search_takes_a_prior_object() -> None:
    db = fastplay.PatternDatabase.builtin("mc_montegnu_classic")
    board = fastplay.Board(9, komi=7.5)
    board.play("E5")
    by_name = MCTS(db, seed=1, prior_table="gnugo9x9").run(board, playouts=200)
    by_object = MCTS(db, seed=1, prior_table=load_prior("gnugo9x9")).run(board, playouts=200)
    assert [(c.move, c.visits, c.prior) for c in by_name.children] == \
        [(c.move, c.visits, c.prior) for c in by_object.children]


def _root_priors(search: MCTS, board: fastplay.Board) -> dict[str, float]:
    result = search.run(board, playouts=50)
    return {c.move: c.prior for c in result.children}


@pytest.mark.parametrize("size", [9, 11, 13, 19])
def test_search_priors_follow_the_table(size: int) -> None:
    db = fastplay.PatternDatabase.builtin("mc_montegnu_classic")
    board = fastplay.Board(size, komi=7.5)
    for move in ("E5", "C4", "G4", "C6"):
        board.play(move)
    contexts = local_contexts(board)
    # A table that favours one context a million times over the rest: the
    # one move with that context gets nearly all the prior.
    index = contexts.index.ravel()
    legal = np.flatnonzero(contexts.legal.ravel())
    unique = [i for i in legal if np.count_nonzero(index == index[i]) == 1]
    table = np.ones((1108, 256), np.uint32)
    table.flat[index[unique[0]]] = 10**6
    priors = _root_priors(MCTS(db, seed=1, prior_table=table, prior_power=1.0, ladder_prior=1.0,
                               ladder_visits=0), board)
    assert priors[format_vertex(int(unique[0]), size)] > 0.9
    # "auto" is the bundled prior of the size, the playout values on others.
    auto = _root_priors(MCTS(db, seed=1), board)
    values = _root_priors(MCTS(db, seed=1, prior_table=None), board)
    learned = {name: _root_priors(MCTS(db, seed=1, prior_table=name), board)
               for name in ("gnugo9x9", "gnugo9x9_shapes", "gnugo13x13", "gnugo19x19")}
    own = {9: "gnugo9x9_shapes", 13: "gnugo13x13", 19: "gnugo19x19"}.get(size)
    assert auto == (values if own is None else learned[own])
    assert all(auto != priors for name, priors in learned.items() if name != own)
    if own is not None:
        assert auto != values


def test_search_refuses_a_bad_prior_table() -> None:
    db = fastplay.PatternDatabase.builtin("mc_montegnu_classic")
    with pytest.raises(ValueError, match="unknown prior"):
        MCTS(db, prior_table="bogus")
    with pytest.raises(ValueError, match="shape"):
        MCTS(db, prior_table=np.ones(5))


def test_search_applies_distance_factors_down_the_tree(tmp_path: Path) -> None:
    """A prior that wants moves next to the last one: the root follows the
    game's last move, a child node the tree move that led to it."""
    last = np.ones(18)
    last[2] = 1e6
    path = _save(tmp_path / "near.npz", last=last)
    db = fastplay.PatternDatabase.builtin("mc_montegnu_classic")
    board = fastplay.Board(9, komi=7.5)
    board.play("E5")
    board.play("C3")
    search = MCTS(db, seed=1, prior_table=path, prior_power=1.0, ladder_prior=1.0,
                  ladder_visits=0)
    search.run(board, playouts=300)
    root = search.root

    def near_share(node: object, last_move: int) -> float:
        line, dist, _ = distance_buckets(9, node.points, last_move, -1)
        return float(node.prior[:-1][dist == 2].sum())

    assert near_share(root, 6 * 9 + 2) > 0.9           # next to C3
    expanded = [i for i, c in enumerate(root.children) if c is not None and i < len(root.points)]
    assert expanded
    for i in expanded:
        assert near_share(root.children[i], int(root.moves[i])) > 0.9


def test_learned_prior_is_taken_at_power_one_with_the_ladder_factor() -> None:
    """``prior_power=None``: a learned prior is used as it is (power 1), so the
    ladder factor multiplies it whole; the playout values keep power 0.5."""
    db = fastplay.PatternDatabase.builtin("mc_montegnu_classic")
    board = fastplay.Board(9)
    for move in "E5 C4 C5 D5 D4 D6 C3 E4 D3 F5 E6".split():
        board.play(move)  # White to move: E7 ladders two stones
    code = board.tactics("W").ravel()
    for table, factor in (("auto", 9.0), (None, 3.0)):
        plain = MCTS(db, seed=1, prior_table=table, ladder_prior=1.0, ladder_visits=0.0,
                     race_reading=False).expand(board)
        ladder = MCTS(db, seed=1, prior_table=table, ladder_prior=9.0, ladder_visits=0.0,
                      race_reading=False).expand(board)
        ratio = ladder.prior[:-1] / plain.prior[:-1]
        moves = plain.moves[:-1]
        none = ratio[code[moves] == 0][0]
        assert np.allclose(ratio[code[moves] == 3] / none, factor)
    assert MCTS(db).prior_power is None
    with pytest.raises(ValueError, match="prior_power"):
        MCTS(db, prior_power=5.0)


def _train_prior() -> object:
    import importlib.util

    spec = importlib.util.spec_from_file_location("train_prior",
                                                  ROOT / "benchmarks" / "train_prior.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_train_prior_script_fits_and_saves(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    games = tmp_path / "games"
    games.mkdir()
    moves = ["ee", "cc", "gc", "cg", "gg", "dd", "ec", "ce", "eg", "ge"]
    for n in range(6):
        seq = "".join(f";{'BW'[k % 2]}[{m}]" for k, m in enumerate(moves[n % 3:] + moves[:n % 3]))
        (games / f"g{n}.sgf").write_text(f"(;GM[1]FF[4]SZ[9]PB[GNU Go]PW[x]{seq})")
    out = tmp_path / "p.npz"
    assert _train_prior().main([str(games), "--player", "GNU Go", "--holdout", "3",
                                "--iterations", "5", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "6 games" in text and "learned" in text and "playout values" in text
    assert load_prior(str(out)).table.shape == (1108, 256)
    assert load_prior(str(out)).shapes is None
    assert _train_prior().main([str(games), "--player", "GNU Go", "--holdout", "3",
                                "--iterations", "5", "--shape-radius", "3",
                                "--shape-min-count", "2", "--out", str(out)]) == 0
    shapes = load_prior(str(out)).shapes
    assert shapes is not None and shapes.radius == 3 and len(shapes.hashes[0])


@pytest.mark.parametrize("args, message", [
    (["/no/such/dir", "--player", "x"], "no such file"),
    (["GAMES", "--player", "x", "--out", "GAMES"], "must name a file"),
    (["GAMES", "--player", "x", "--out", ""], "must name a file"),
    (["GAMES", "--player", "nobody"], "no moves"),
    (["GAMES", "--player", "x", "--holdout", "1"], "holdout"),
    (["GAMES", "--player", "x", "--iterations", "0"], "iterations"),
    (["GAMES", "--player", "x", "--shape-radius", "1"], "--shape-radius"),
    (["GAMES", "--player", "x", "--shape-radius", "6"], "--shape-radius"),
    (["GAMES", "--player", "x", "--shape-radius", "3", "--shape-min-count", "0"],
     "--shape-min-count"),
    (["GAMES", "--player", "x", "--shape-min-count", "5"], "needs --shape-radius"),
])
def test_train_prior_script_usage_errors(tmp_path: Path, args: list[str], message: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "g.sgf").write_text("(;GM[1]FF[4]SZ[9]PB[x]PW[y];B[ee])")
    args = [str(tmp_path) if a == "GAMES" else a for a in args]
    with pytest.raises(SystemExit) as stop:
        _train_prior().main(args)
    assert stop.value.code == 2
    assert message in capsys.readouterr().err


def test_train_prior_script_reports_unreadable_input(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.sgf"
    bad.write_text("this is not SGF")
    fake = tmp_path / "games.tar.gz"
    fake.write_text("nor is this an archive")
    truncated = tmp_path / "truncated.tar.gz"
    truncated.write_bytes((ROOT / "benchmarks" / "data" / "gnugo9x9_games.tar.gz")
                          .read_bytes()[:200_000])
    folder = tmp_path / "folder"
    (folder / "looks.sgf").mkdir(parents=True)
    for source in (bad, fake, truncated, folder):
        with pytest.raises(SystemExit) as stop:
            _train_prior().main([str(source), "--player", "x"])
        assert stop.value.code == 2
        assert str(source.name) in capsys.readouterr().err or source in (fake, truncated)


@pytest.mark.skipif(not hasattr(__import__("signal"), "pthread_kill"), reason="POSIX signals")
def test_a_ctrl_c_while_a_prior_file_is_read_comes_out_after_the_reading(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A KeyboardInterrupt raised inside ``NpzFile.__del__`` (as the reading's
    objects are freed) is discarded by Python: a tester's Ctrl-C at a
    search's first node was lost so, 1 time in 40.  The reading holds
    Ctrl-C until it has returned; here the signal arrives inside it."""
    import signal
    import threading

    import fastplay.prior as prior_module

    real = prior_module._read_file
    inside = []

    def interrupted(path):  # type: ignore[no-untyped-def]
        main = threading.main_thread().ident
        assert main is not None
        signal.pthread_kill(main, signal.SIGINT)
        inside.append(True)          # reached: the interrupt did not fire in here
        return real(path)

    monkeypatch.setattr(prior_module, "_read_file", interrupted)
    with pytest.raises(KeyboardInterrupt):
        prior_module.load_prior("gnugo9x9")
    assert inside == [True]


@pytest.mark.parametrize("suffix, mode", [(".tar", "w"), (".tar.bz2", "w:bz2"),
                                          (".tar.xz", "w:xz"), (".tgz", "w:gz")])
def test_record_files_unpacks_every_kind_of_tar_archive(tmp_path: Path, suffix: str,
                                                        mode: str) -> None:
    """An uncompressed .tar was read as one SGF (one game of six, a tester's
    finding); .tar.bz2 and .tar.xz were skipped as unreadable records."""
    import tarfile

    from fastplay.prior import record_files

    games = tmp_path / "games"
    games.mkdir()
    for k in range(6):
        (games / f"g{k}.sgf").write_text(f"(;GM[1]FF[4]SZ[9];B[{'abcdef'[k]}a])")
    archive = tmp_path / f"all{suffix}"
    with tarfile.open(archive, mode) as out:
        out.add(games, arcname="games")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    found = record_files([archive], scratch)
    assert sorted(p.name for p in found) == [f"g{k}.sgf" for k in range(6)]


def test_a_record_over_the_size_limit_is_skipped_not_fatal(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """One oversized file in a collection stopped a whole fit (a tester's
    70 MB record): it is skipped and named, as broken records are."""
    import fastplay.prior
    from fastplay.inputfile import read_input
    from fastplay.prior import collect_samples

    good = tmp_path / "good.sgf"
    good.write_text("(;GM[1]FF[4]SZ[9];B[ee];W[cc])")
    big = tmp_path / "big.sgf"
    big.write_text("(;GM[1]FF[4]SZ[9]C[" + "x" * 5000 + "];B[ee])")
    monkeypatch.setattr(fastplay.prior, "read_input",
                        lambda path, what: read_input(path, what, limit=1000))
    skipped: list[str] = []
    samples = collect_samples([good, big], None, skipped=skipped)
    assert len(samples.offsets) == 3                    # two moves of the good record
    assert len(skipped) == 1 and skipped[0].startswith(f"{big}: SGF file is larger than")
    with pytest.raises(OSError):
        collect_samples([good, big], None)              # not asked to skip: the error
