"""Playouts against GNU Go 3.8: statistics, draw distribution, debug checks, bad input.

The statistical tests compare fastplay's playouts with GNU Go's own
(``../shared/oracle/stats``: 1,000 GNU Go playouts per position and
database, komi 7.5).  Both are random, so they are compared as samples: a
two-proportion z-test on the Black win rate and a z-test on the mean score
per (position, database); over all of them the number of |z| > 4 must stay
within what chance allows and a chi-square of the z values must not reject
at p = 0.001.  Seeds are fixed, so the tests are deterministic.
"""

from __future__ import annotations

import gzip
import json
import signal
import subprocess
import sys
import textwrap
import time
from functools import cache

import numpy as np
import pytest
from scipy import stats as sps

import fastplay as fp
from fastplay import diagram
from fastplay.patterns import PatternDatabase

from conftest import shared_path

DBS = ("mc_uniform", "mc_mogo_classic", "mc_montegnu_classic")


@cache
def db(name: str) -> PatternDatabase:
    return PatternDatabase.builtin(name)


def board_from_record(r: dict) -> fp.Board:
    n = r["size"]
    b = diagram.parse("\n".join(r["board"]), to_move=r["to_move"], komi=r["komi"])
    if r["ko"]:
        b.set_ko_index(r["ko"][0] * n + r["ko"][1], b.to_move_code)
    return b


def oracle_stats(size: int) -> list[dict]:
    path = shared_path("oracle", "stats", f"playout_stats_{size}x{size}.jsonl.gz")
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f]


def compare(records: list[dict], n: int) -> tuple[np.ndarray, np.ndarray, float]:
    """z values of win rates and mean scores, and our/GNU Go mean length ratio."""
    z_win, z_score, ours_len, theirs_len = [], [], 0.0, 0.0
    for k, r in enumerate(records):
        b = board_from_record(r)
        s = fp.playouts(b, db(r["db"]), n=n, seed=1000 + k)
        p1, n1 = r["black_win_rate"], r["playouts"]
        p2 = s.black_win_rate
        pooled = (p1 * n1 + p2 * n) / (n1 + n)
        var = pooled * (1 - pooled) * (1 / n1 + 1 / n)
        z_win.append(0.0 if var == 0 else (p2 - p1) / np.sqrt(var))
        # Our mean score is Black - White - komi; GNU Go's is raw White - Black.
        ours = -(s.mean_score + r["komi"])
        var_s = r["sd_score"] ** 2 / n1 + s.sd_score ** 2 / n
        z_score.append(0.0 if var_s == 0 else (ours - r["mean_score_w_minus_b"]) / np.sqrt(var_s))
        ours_len += s.mean_length
        theirs_len += r["mean_length"]
        assert s.capped == 0
    return np.array(z_win), np.array(z_score), ours_len / theirs_len


def assert_draws_follow(counts: np.ndarray, weights: np.ndarray, n: int) -> None:
    """First-draw tallies ``counts`` of ``n`` playouts follow ``weights``:
    nothing drawn where the weight is 0, and a chi-square test not
    rejecting at p = 0.001."""
    expected = weights / weights.sum() * n
    mask = expected > 0
    assert counts[~mask].sum() == 0
    chi2 = float(((counts[mask] - expected[mask]) ** 2 / expected[mask]).sum())
    assert sps.chi2.sf(chi2, df=int(mask.sum()) - 1) > 0.001


@pytest.mark.parametrize("size", [9, 13, 19])
def test_playout_statistics_agree_with_gnugo(size: int) -> None:
    records = oracle_stats(size)
    assert len(records) == (600 if size == 9 else 60)
    z_win, z_score, length_ratio = compare(records, n=1000)
    z = np.concatenate([z_win, z_score])
    # |z| > 4 has probability 6.3e-5 per test: even one is unlikely by chance.
    assert int((np.abs(z) > 4).sum()) <= 1, np.round(z[np.abs(z) > 4], 2)
    p = sps.chi2.sf(float((z ** 2).sum()), df=z.size)
    assert p > 0.001, f"chi-square rejects agreement: p = {p:.2e}"
    assert abs(length_ratio - 1) < 0.02, f"mean length ratio {length_ratio:.4f}"


def test_draw_frequencies_follow_weights_near_extension() -> None:
    """Spec 8.2: after Black F4, White's weights under montegnu are B4 6000,
    F5/F3 100, G5/G4/G3 3 and 1 elsewhere (total 6242)."""
    b = fp.Board(7)
    b.setup(black=["C5", "D5", "E5", "C3", "D3", "E3"], white=["C4", "D4", "E4"], to_move="B")
    b.play("F4")
    weights = db("mc_montegnu_classic").move_values(b).astype(np.float64)
    assert weights.sum() == 6242 and weights[3, 1] == 6000
    n = 62420
    s = fp.playouts(b, db("mc_montegnu_classic"), n=n, seed=7, max_moves=0, amaf=True,
                    near_first=True)
    counts = s.amaf.white_first.astype(np.float64)
    assert counts.sum() == n
    assert_draws_follow(counts, weights, n)


def _light_near_db() -> PatternDatabase:
    """Geometry-only values with a near bonus: a point away from the edge
    (any 8 on-board neighbours) is worth 7 near the previous move, every
    other move 1."""
    return PatternDatabase.from_string("???\n?*?\n???\n:7,near\n", name="light-near")


def test_engine_fast_paths_follow_the_table() -> None:
    """The core skips capture and self-atari analysis only for geometry-only
    tables, and shrinks the update set only when the near bit never matters."""
    from fastplay.montecarlo import _engine

    def flags(d: PatternDatabase) -> tuple[bool, bool, int]:
        e = _engine(d)
        return e.light, e.near_free, e.update_bound

    assert {name: flags(db(name)) for name in DBS} == {
        "mc_uniform": (True, True, 1), "mc_mogo_classic": (False, False, 2),
        "mc_montegnu_classic": (False, False, 2)}
    # Geometry only, but near matters: the near set must stay GNU Go's.
    assert flags(_light_near_db()) == (True, False, 2)


def test_light_table_with_near_bonus_draws_by_near_weights() -> None:
    """A geometry-only table that rewards nearness: the incremental state
    stays exact (debug mode), and a draw near the previous move follows the
    near weights, including a point that is near only through the clause for
    strings with two liberties.  (This first draw uses the board's near set;
    that playouts keep GNU Go's whole update set for such a table is pinned
    by test_engine_fast_paths_follow_the_table through ``update_bound``.)"""
    d = _light_near_db()
    for size in (5, 9, 13):
        fp.playouts(fp.Board(size), d, n=40, seed=size, debug_check=True)
    # White E6 leaves Black E7 two liberties: E8 is near only through GNU
    # Go's clause for strings with two liberties (spec 6.3), not the ring.
    b = fp.Board(9)
    b.setup(black=["E7", "C3"], white=["D7"], to_move="W")
    b.play("E6", "W")
    weights = d.move_values(b).astype(np.float64)
    assert weights[1, 4] == 7 and (weights == 7).sum() == 7
    n = 40000
    s = fp.playouts(b, d, n=n, seed=11, max_moves=0, amaf=True, near_first=True)
    counts = s.amaf.black_first.astype(np.float64)
    assert_draws_follow(counts, weights, n)


def test_forbidden_ko_point_is_never_drawn() -> None:
    """Spec 8.3: after Black C3 takes the ko at B3, White may not retake at once."""
    b = fp.Board(5)
    b.setup(black=["B4", "A3", "B2"], white=["C4", "B3", "D3", "C2"], to_move="B")
    b.play("C3")
    assert b.ko_point == "B3"
    for name in DBS:
        s = fp.playouts(b, db(name), n=5000, seed=1, max_moves=0, amaf=True, near_first=True)
        assert s.amaf.white_first[2, 1] == 0
        # Weight totals of spec 8.3: uniform 17, mogo 611, montegnu 29.
    assert db("mc_uniform").move_values(b).sum() == 17
    assert db("mc_mogo_classic").move_values(b).sum() == 611
    assert db("mc_montegnu_classic").move_values(b).sum() == 29


def test_far_draws_without_near_follow_table_values() -> None:
    """GNU Go's playouts start with no near set: the first draw uses far values."""
    r = oracle_stats(9)[37]
    b = board_from_record(r)
    for name in DBS:
        weights = db(name).move_values(b, near=False).astype(np.float64)
        n = 40000
        s = fp.playouts(b, db(name), n=n, seed=3, max_moves=0, amaf=True)
        first = s.amaf.black_first if b.to_move == "B" else s.amaf.white_first
        assert_draws_follow(first, weights, n)


@pytest.mark.parametrize("size", [2, 3, 4, 5, 6, 7, 9, 13, 19])
def test_incremental_state_equals_recomputation(size: int) -> None:
    """Debug mode recomputes every context, candidate set and weight after each move."""
    n = {2: 600, 3: 600, 4: 500, 5: 400, 6: 300, 7: 200, 9: 150, 13: 20, 19: 6}[size]
    for name in DBS:
        fp.playouts(fp.Board(size), db(name), n=n, seed=size, debug_check=True)


def test_debug_check_on_real_positions() -> None:
    for k, r in enumerate(oracle_stats(9)[::20]):
        fp.playouts(board_from_record(r), db(r["db"]), n=20, seed=k, debug_check=True)


def test_threads_do_not_change_results() -> None:
    b = fp.Board(9)
    for move in ("E5", "D4", "F4", "E3"):
        b.play(move)
    a = fp.playouts(b, db("mc_montegnu_classic"), n=3000, seed=42, threads=1, amaf=True)
    c = fp.playouts(b, db("mc_montegnu_classic"), n=3000, seed=42, threads=2, amaf=True)
    for field in ("black_wins", "draws", "score_hist", "mean_length", "mean_score", "sd_score"):
        assert getattr(a, field) == getattr(c, field), field
    assert np.array_equal(a.ownership, c.ownership)
    assert np.array_equal(a.amaf.black_first, c.amaf.black_first)
    assert np.array_equal(a.amaf.white_first_black_wins, c.amaf.white_first_black_wins)
    d = fp.playouts(b, db("mc_montegnu_classic"), n=3000, seed=43)
    assert d.score_hist != a.score_hist


def test_single_playout_matches_batch_index_zero() -> None:
    b = fp.Board(9)
    one = fp.playout(b, db("mc_mogo_classic"), seed=5)
    batch = fp.playouts(b, db("mc_mogo_classic"), n=1, seed=5)
    assert batch.mean_score == one.score and batch.mean_length == one.length
    assert one.final.shape == (9, 9) and one.final.dtype == np.int8
    assert one.winner == ("B" if one.score > 0 else "W")


def test_database_by_builtin_name() -> None:
    b = fp.Board(9)
    by_name = fp.playouts(b, "mc_uniform", n=200, seed=4)
    by_object = fp.playouts(b, db("mc_uniform"), n=200, seed=4)
    assert by_name.score_hist == by_object.score_hist
    assert fp.playout(b, "mc_mogo_classic", seed=2).score == fp.playout(b, db("mc_mogo_classic"), seed=2).score
    with pytest.raises(ValueError, match="mc_nonesuch"):
        fp.playouts(b, "mc_nonesuch", n=1)


def test_board_is_not_changed() -> None:
    b = fp.Board(9)
    b.play("C3")
    before = (b.to_numpy().copy(), b.zobrist_hash, b.to_move, b.move_number)
    fp.playouts(b, db("mc_uniform"), n=200, seed=1, threads=2)
    assert np.array_equal(before[0], b.to_numpy())
    assert before[1:] == (b.zobrist_hash, b.to_move, b.move_number)


def _all_zero_db() -> PatternDatabase:
    return PatternDatabase.from_string("%%%\n%*%\n%%%\n:0\n", name="zero")


def test_gnugo_scoring_examples() -> None:
    """Spec 6.8: with every weight 0 the playout passes three times and scores the board."""
    b = fp.Board(3, komi=0)
    b.setup(black=["B2"], white=["A3", "C3"], to_move="B")
    s = fp.playouts(b, _all_zero_db(), n=3, seed=0)
    assert s.mean_length == 3 and s.score_hist == {3: 3}      # W - B = -3
    b = fp.Board(5, komi=5.5)
    b.setup(black=["A3", "B3", "C3", "D3", "E3"], white=["A2", "B2", "C2", "D2", "E2"])
    s = fp.playouts(b, _all_zero_db(), n=1, seed=0)
    assert s.score_hist == {5: 1} and s.black_wins == 0       # W - B = -5, +0.5 with komi
    assert s.ownership[4].tolist() == [-1.0] * 5 and s.ownership[0].tolist() == [1.0] * 5


def test_position_without_moves_ends_at_once() -> None:
    """Spec 8.8: total weight 0 for both sides under uniform; score +5 for White."""
    b = fp.Board(5, komi=0)
    b.setup(black=["B5", "A4", "B4", "B3", "A2", "B2", "B1"],
            white=["C5", "E5", "C4", "D4", "E4", "C3", "E3", "C2", "D2", "C1", "D1", "E1"],
            to_move="W")
    s = fp.playouts(b, db("mc_uniform"), n=10, seed=0)
    assert s.mean_length == 3 and s.score_hist == {-5: 10}
    tt = fp.playouts(b, db("mc_uniform"), n=1, seed=0, scoring="tromp-taylor")
    assert tt.score_hist == {b.area()[0] - b.area()[1]: 1}


def test_tiny_boards_and_cycles_terminate() -> None:
    """Simple ko lets cycles repeat (spec 6.1); the move cap still ends every playout."""
    for size in (2, 3):
        s = fp.playouts(fp.Board(size), db("mc_uniform"), n=2000, seed=1)
        assert s.n == 2000 and s.mean_length <= 604
    triple_ko = fp.Board.from_sgf(str(shared_path("cases", "18-board-triple-ko-cycle.sgf")))
    for name in DBS:
        s = fp.playouts(triple_ko, db(name), n=300, seed=2)
        assert s.n == 300 and s.mean_length <= 604


def test_move_cap_forces_passes() -> None:
    s = fp.playouts(fp.Board(9), db("mc_uniform"), n=50, seed=1, max_moves=10)
    assert s.mean_length == 14  # moves 0..10 drawn, then three forced passes


@pytest.mark.parametrize("kwargs, exc", [
    ({"n": -1}, ValueError),
    ({"threads": 0}, ValueError),
    ({"seed": 1.5}, TypeError),
    ({"seed": "1"}, TypeError),
    ({"seed": -3}, ValueError),
    ({"n": 2.0}, TypeError),
    ({"scoring": "japanese"}, ValueError),
    ({"max_moves": -1}, ValueError),
    ({"max_moves": 10**12}, ValueError),
    ({"n": 2**63}, ValueError),
    ({"threads": 2**70}, ValueError),
    ({"threads": 5000}, ValueError),
    ({"komi": float("nan")}, ValueError),
    ({"komi": float("inf")}, ValueError),
    ({"komi": "7.5"}, TypeError),
])
def test_bad_arguments(kwargs: dict, exc: type) -> None:
    args = {"n": 1, "seed": 0, **kwargs}
    with pytest.raises(exc):
        fp.playouts(fp.Board(9), db("mc_uniform"), **args)


def test_many_threads_for_few_playouts() -> None:
    """No more workers than there are chunks of work: 1000 threads for 100 playouts is cheap."""
    b = fp.Board(9)
    a = fp.playouts(b, db("mc_uniform"), n=100, seed=4, threads=1000)
    assert a.score_hist == fp.playouts(b, db("mc_uniform"), n=100, seed=4).score_hist


def test_bad_board_and_database() -> None:
    with pytest.raises(TypeError):
        fp.playouts("not a board", db("mc_uniform"), n=1)
    with pytest.raises(TypeError):
        fp.playouts(fp.Board(9), {"name": "mc_uniform"}, n=1)
    with pytest.raises(TypeError):
        fp.playouts(fp.Board(9), b"mc_uniform", n=1)
    with pytest.raises(TypeError):
        fp.playout(np.zeros((9, 9)), db("mc_uniform"))
    assert fp.playouts(fp.Board(9), db("mc_uniform"), n=0).n == 0


@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_stops_a_long_batch(threads: int) -> None:
    # The child restores Python's Ctrl-C handler: started from a background
    # job of a non-interactive shell, pytest and its children inherit SIGINT
    # ignored, and this test failed for that reason alone.
    code = textwrap.dedent(f"""
        import signal, sys, fastplay as fp
        from fastplay.patterns import PatternDatabase
        signal.signal(signal.SIGINT, signal.default_int_handler)
        db = PatternDatabase.builtin("mc_uniform")
        print("ready", flush=True)
        fp.playouts(fp.Board(19), db, n=10**8, seed=1, threads={threads})
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("playouts did not stop within 10 s of Ctrl-C")
    assert proc.returncode != 0 and "KeyboardInterrupt" in err


def test_engine_is_sound_after_an_interrupted_threaded_call() -> None:
    """Ctrl-C in the middle of a 2-thread call: the call raises only once both
    threads have stopped, and the engine's next calls (which reuse idle
    workers) equal a fresh engine's.  Before, an interrupted Thread.join let a
    worker go back to the pool while its thread still played: wrong results,
    then a hang or a double free."""
    code = textwrap.dedent("""
        import signal, sys, numpy as np, fastplay as fp
        from fastplay.montecarlo import _engine
        from fastplay._core import PlayoutEngine
        from fastplay.patterns import geometry_table
        db = fp.PatternDatabase.builtin("mc_montegnu_classic")
        engine = _engine(db)
        board = fp.Board(19)
        board.play("D4")
        want = PlayoutEngine(db.table, geometry_table()).run(board, 100, 5, 1)
        def interrupt(*args):
            raise KeyboardInterrupt
        signal.signal(signal.SIGALRM, interrupt)
        bad = 0
        for i in range(8):
            signal.setitimer(signal.ITIMER_REAL, 0.05 + 0.013 * i)
            try:
                engine.run(board, 10**7, 5, 2)
            except KeyboardInterrupt:
                pass
            signal.setitimer(signal.ITIMER_REAL, 0)
            got = engine.run(board, 100, 5, 2)
            bad += not all(np.array_equal(np.asarray(got[k]), np.asarray(want[k])) for k in want)
        print("bad", bad)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["bad", "0"]


def test_engine_numbers_playouts_from_first() -> None:
    """Playouts are numbered: a batch split at any ``first`` sums to the whole
    batch, and the engine's reused workers start every call from zero."""
    from fastplay.montecarlo import _engine

    board = fp.Board.from_sgf(shared_path("gnugo-regression", "games", "cgos", "42896.sgf"),
                              move_number=24)
    engine = _engine(db("mc_montegnu_classic"))
    whole = engine.run(board, 40, 9, 1, amaf=True, tromp_taylor=True)
    again = engine.run(board, 40, 9, 1, amaf=True, tromp_taylor=True)
    head = engine.run(board, 13, 9, 1, amaf=True, tromp_taylor=True)
    tail = engine.run(board, 27, 9, 2, amaf=True, tromp_taylor=True, first=13)
    for key in ("black_wins", "draws", "sum_length", "hist", "own_black", "own_white", "amaf"):
        assert np.array_equal(np.asarray(whole[key]), np.asarray(again[key])), key
        assert np.array_equal(np.asarray(whole[key]),
                              np.asarray(head[key]) + np.asarray(tail[key])), key
    assert np.shares_memory(whole["amaf"], whole["amaf_count"])
    assert np.array_equal(whole["amaf"][1], whole["amaf_black_win"])
    # Another seed after a cached one gets its own streams.
    assert not np.array_equal(engine.run(board, 40, 10, 1)["hist"], whole["hist"])
    with pytest.raises(ValueError, match="first"):
        engine.run(board, 1, 9, 1, first=-1)
    with pytest.raises(TypeError, match="first"):
        engine.run(board, 1, 9, 1, first=1.5)


def test_engine_move_values_equal_the_database_decoding() -> None:
    """The engine's one-pass values equal the ones decoded from the contexts
    (``local_contexts``), for every database, on positions with ko, suicide
    points and near flags."""
    from fastplay.montecarlo import _engine
    from fastplay.patterns import local_contexts

    games = ["cgos/42896.sgf", "cgos/471085.sgf", "strategy38.sgf"]
    for name in DBS:
        d = db(name)
        for game in games:
            path = shared_path("gnugo-regression", "games", *game.split("/"))
            for move in (0, 1, 7, 24, 61):
                board = fp.Board.from_sgf(path, move_number=move)
                lc = local_contexts(board)
                want = np.where(lc.legal, d.table.reshape(-1)[np.where(lc.legal, lc.index, 0)], 0)
                got = _engine(d).move_values(board).reshape(want.shape)
                assert np.array_equal(got, want), (name, game, move)


def test_the_move_cap_grows_beyond_19x19():
    """GNU Go's 600 moves up to 19x19; beyond, where 600 cut most playouts (a
    tester: 73 % on 23x23, all on 25x25), twice the points.  Every entry
    (playouts, the engine's run and run_into, the search's) takes it."""
    from fastplay._core import PlayoutTally
    from fastplay.montecarlo import _engine, default_max_moves

    assert [default_max_moves(s) for s in (2, 9, 19, 20, 23, 25)] == [600] * 3 + [800, 1058,
                                                                               1250]
    for bad, error in ((1, ValueError), (26, ValueError), (-1, ValueError), (19.0, TypeError),
                       (True, TypeError), ("9", TypeError)):
        with pytest.raises(error, match="board size"):
            default_max_moves(bad)
    db = fp.PatternDatabase.builtin("mc_montegnu_classic")
    engine = _engine(db)
    for size, n in ((19, 40), (25, 12)):
        board = fp.Board(size)
        default = fp.playouts(board, db, n, seed=3)
        explicit = fp.playouts(board, db, n, seed=3, max_moves=default_max_moves(size))
        assert np.array_equal(default.score_hist, explicit.score_hist)
        assert default.capped == 0 and default.black_wins == explicit.black_wins
        tally = PlayoutTally(size)
        engine.run_into(tally, board, n, 3, tromp_taylor=True)
        ref = engine.run(board, n, 3, tromp_taylor=True)
        assert np.array_equal(tally.hist, ref["hist"]) and ref["capped"] == 0
    short = fp.playouts(fp.Board(25), db, 12, seed=3, max_moves=600)
    assert short.capped == 12
    assert fp.playouts(fp.Board(19), db, 40, seed=3).mean_score == \
        fp.playouts(fp.Board(19), db, 40, seed=3, max_moves=600).mean_score


def test_run_into_a_tally_equals_run():
    """PlayoutEngine.run_into (the tree search's call) plays the playouts of
    run(threads=1): the same wins, draws, score histogram and first-play
    tallies per call; ownership adds up over calls until cleared."""
    from fastplay._core import PlayoutTally
    from fastplay.montecarlo import _engine

    engine = _engine(fp.PatternDatabase.builtin("mc_montegnu_classic"))
    board = fp.Board.from_sgf(shared_path("gnugo-regression", "games", "cgos", "42896.sgf"),
                              move_number=24)
    tally = PlayoutTally(9)
    own = np.zeros(81, dtype=np.int64)
    for first, n, komi in ((0, 7, 7.5), (7, 33, 0.5), (40, 1, 7.5)):
        ref = engine.run(board, n, 5, 1, komi=komi, tromp_taylor=True, amaf=True, first=first)
        engine.run_into(tally, board, n, 5, first=first, komi=komi, tromp_taylor=True)
        assert (tally.n, tally.black_wins, tally.draws) == (n, ref["black_wins"], ref["draws"])
        assert np.array_equal(tally.hist, ref["hist"])
        assert np.array_equal(tally.amaf, ref["amaf"])
        own += ref["own_black"] - ref["own_white"]
        assert np.array_equal(tally.own_black.astype(np.int64) - tally.own_white, own)
    tally.clear_ownership()
    assert not tally.own_black.any() and not tally.own_white.any()
    no_amaf = PlayoutTally(9, amaf=False)
    engine.run_into(no_amaf, board, 5, 5)
    assert no_amaf.n == 5 and not no_amaf.amaf.any()
    with pytest.raises(ValueError, match="tally"):
        engine.run_into(tally, fp.Board(13), 1, 5)
    for bad in ({"n": -1}, {"n": 1.5}, {"seed": -2}):
        args = {"n": 1, "seed": 5} | bad
        with pytest.raises((ValueError, TypeError)):
            engine.run_into(tally, board, args["n"], args["seed"])
    # The board's own size check: ValueError out of range, TypeError for a non-integer.
    for size in (1, 26, 2**40):
        with pytest.raises(ValueError, match="board size must be between"):
            PlayoutTally(size)
    for size in (9.0, True, "9"):
        with pytest.raises(TypeError, match="board size must be an integer"):
            PlayoutTally(size)
    # Flags are bools: the string "no" would be true.
    for flags, name in (({"amaf": "no"}, "amaf"), ({"criticality": 1}, "criticality")):
        with pytest.raises(TypeError, match=f"{name} must be a bool, not "):
            PlayoutTally(9, **flags)
    assert PlayoutTally(9, amaf=np.bool_(False)).amaf_enabled is False
    # Its arrays are live but read-only: counts change only by its calls.
    crit = PlayoutTally(9, criticality=True)
    for name in ("hist", "amaf", "own_black", "own_white", "own_won"):
        with pytest.raises(ValueError, match="read-only"):
            getattr(crit, name)[0] = 99
    assert tally.own_black.dtype == np.int64   # summed over a whole search, or longer


@pytest.mark.parametrize("calls", [(1,), (1, 1), (3, 1), (1, 3), (1, 1, 2, 1, 1), (2, 1, 1, 1)])
def test_a_tally_holds_its_last_call_whatever_came_before(calls: tuple[int, ...]) -> None:
    """A one-playout call (the tree search's) keeps its first plays in the
    playout state and clears only the histogram bin it added to; read after
    any sequence of calls, a tally holds the last call's tallies as run()
    gives them, and so do the calls after it has been read.  Komi 0 on 6x6
    gives draws (a draw is no win for Black's first plays)."""
    from fastplay._core import PlayoutTally
    from fastplay.montecarlo import _engine

    engine = _engine(fp.PatternDatabase.builtin("mc_montegnu_classic"))
    for board in (fp.Board.from_sgf(shared_path("gnugo-regression", "games", "cgos",
                                                "42896.sgf"), move_number=24),
                  fp.Board(6, komi=0.0)):
        tally = PlayoutTally(board.size)
        first = 0
        for seed in (5, 6):
            for n in calls:
                engine.run_into(tally, board, n, seed, first=first, tromp_taylor=True)
                first += n
            ref = engine.run(board, calls[-1], seed, 1, tromp_taylor=True, amaf=True,
                             first=first - calls[-1])
            assert (tally.n, tally.black_wins, tally.draws) \
                == (calls[-1], ref["black_wins"], ref["draws"])
            assert np.array_equal(tally.hist, ref["hist"])
            assert np.array_equal(tally.amaf, ref["amaf"])
    draws = [engine.run(fp.Board(6, komi=0.0), 1, 5, 1, tromp_taylor=True, first=i)["draws"]
             for i in range(40)]
    assert any(draws)      # the 6x6 case does reach a draw


def test_the_criticality_tally_counts_the_points_of_each_playouts_winner() -> None:
    """``PlayoutTally(criticality=True)``'s ``own_won`` is, summed over
    playouts, the winner's ``own_black`` or ``own_white`` of each one-playout
    call (a draw adds to neither); ``own_n``, ``own_black_wins`` and
    ``own_draws`` count the same playouts; all add up over calls until
    ``clear_ownership``.  Komi 0 on 6x6 gives draws."""
    from fastplay._core import PlayoutTally
    from fastplay.montecarlo import _engine

    engine = _engine(fp.PatternDatabase.builtin("mc_montegnu_classic"))
    for board, n in ((fp.Board.from_sgf(shared_path("gnugo-regression", "games", "cgos",
                                                    "42896.sgf"), move_number=24), 30),
                     (fp.Board(6, komi=0.0), 40)):
        whole = PlayoutTally(board.size, criticality=True)
        engine.run_into(whole, board, n // 2, 7, tromp_taylor=True)
        engine.run_into(whole, board, n - n // 2, 7, first=n // 2, tromp_taylor=True)
        won = np.zeros(board.size ** 2, dtype=np.int64)
        black_wins = draws = 0
        for i in range(n):
            one = PlayoutTally(board.size, amaf=False)
            engine.run_into(one, board, 1, 7, first=i, tromp_taylor=True)
            assert one.own_won is None and one.own_n == 1
            black_wins += one.black_wins
            draws += one.draws
            if one.black_wins:
                won += one.own_black
            elif not one.draws:
                won += one.own_white
        assert whole.own_won is not None
        assert np.array_equal(whole.own_won, won)
        assert (whole.own_n, whole.own_black_wins, whole.own_draws) == (n, black_wins, draws)
        assert (whole.own_won <= whole.own_black + whole.own_white).all()
        whole.clear_ownership()
        assert not whole.own_won.any() and (whole.own_n, whole.own_black_wins) == (0, 0)
    assert draws > 0       # the 6x6 case reaches a draw


@pytest.mark.parametrize("amaf", [False, True])
def test_a_tally_s_kept_views_hold_each_call_s_tallies(amaf: bool) -> None:
    """A kept view of a tally's histogram or AMAF tallies holds the next
    call's tallies (zeros for AMAF without ``amaf``): a view handed out ends
    the shortcuts that skip the clearing.  The views are read-only, and stay
    so (a fresh tester's finding: a write into one stayed, and a later one's:
    a write changed the tally)."""
    from fastplay._core import PlayoutTally
    from fastplay.montecarlo import _engine

    engine = _engine(fp.PatternDatabase.builtin("mc_montegnu_classic"))
    board = fp.Board(9, komi=7.5)
    tally = PlayoutTally(9, amaf=amaf)
    kept_amaf, kept_hist = tally.amaf, tally.hist
    for view in (kept_amaf, kept_hist):
        with pytest.raises(ValueError, match="read-only"):
            view.flat[0] = 5
        with pytest.raises(ValueError):
            view.flags.writeable = True
    for n, seed in ((4, 1), (1, 2), (1, 3), (3, 4)):
        engine.run_into(tally, board, n, seed)
        ref = engine.run(board, n, seed, 1, amaf=amaf, tromp_taylor=True)
        assert np.array_equal(kept_hist, ref["hist"])
        assert np.array_equal(kept_amaf, ref["amaf"] if amaf else np.zeros_like(kept_amaf))


def test_an_interrupted_run_into_counts_what_it_played():
    """Ctrl-C in run_into: the tally's n is the playouts that completed,
    and its other tallies are theirs."""
    from fastplay._core import PlayoutTally
    from fastplay.montecarlo import _engine

    engine = _engine(fp.PatternDatabase.builtin("mc_montegnu_classic"))
    board = fp.Board(9, komi=7.5)
    tally = PlayoutTally(9)

    def interrupt(*args: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        # Later each time: a sanitizer build on a loaded machine had played
        # no chunk of 32 in the first 50 ms.
        for delay in (0.05, 0.2, 1.0, 5.0):
            signal.setitimer(signal.ITIMER_REAL, delay)
            with pytest.raises(KeyboardInterrupt):
                engine.run_into(tally, board, 10**7, 1)
            if tally.n:
                break
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert 0 < tally.n < 10**7 and tally.n % 32 == 0
    assert tally.hist.sum() == tally.n and not tally.busy


def test_a_tally_is_filled_by_one_thread_at_a_time():
    """A second thread's run_into on a tally in use raises instead of
    playing on the same state; the first call completes."""
    import threading

    from fastplay._core import PlayoutTally
    from fastplay.montecarlo import _engine

    engine = _engine(fp.PatternDatabase.builtin("mc_montegnu_classic"))
    board = fp.Board(9, komi=7.5)
    tally = PlayoutTally(9)
    worker = threading.Thread(target=engine.run_into, args=(tally, board, 60_000, 1))
    worker.start()
    deadline = time.monotonic() + 10
    while not tally.busy and worker.is_alive() and time.monotonic() < deadline:
        time.sleep(0.001)
    assert tally.busy
    with pytest.raises(RuntimeError, match="in use"):
        engine.run_into(tally, board, 1, 1)
    with pytest.raises(RuntimeError, match="in use"):
        tally.clear_ownership()
    worker.join()
    assert not tally.busy and tally.n == 60_000
    assert tally.own_black.sum() + tally.own_white.sum() > 0
