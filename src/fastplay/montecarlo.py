"""Monte Carlo playouts driven by a pattern database (GNU Go 3.8 semantics).

:func:`playouts` runs a batch in the compiled core with the GIL released and
returns :class:`PlayoutStats`; :func:`playout` runs one and returns its final
position.  The policy, move cap, termination and default scoring follow
``mc-patterns.md`` section 6: every legal non-suicide move is drawn with
probability proportional to its pattern value (near values right after the
opponent's move, 0 at the forbidden ko point), a side with total weight 0
passes, three consecutive passes end the playout, and from move
``max_moves + 1`` on every move is a forced pass.

Results are a pure function of ``(board, db, n, seed, options)``: playout
``i`` draws from its own random stream (xoshiro256** seeded from the
user's seed through numpy's ``SeedSequence`` and the index ``i``), and the
tallies are integer sums, so ``threads`` changes speed, not results.
numpy's bit generators are not used inside the playouts because a stream per
playout index would mean building one numpy generator per playout: 7-8
microseconds each with the GIL held (measured: ``PCG64(SeedSequence(seed,
spawn_key=(i,)))`` 8.2 us, ``Philox(key, counter)`` 6.6 us) against about 19
(``mc_montegnu_classic``) and 14 (``mc_uniform``) for a whole playout from
the empty 9x9 board.  ``tests/test_rng.py`` checks the compiled
generator against a Python transcription of the published algorithm.

Scores are from Black's point of view, in points: ``black - white - komi``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from fastplay._core import CoreBoard, PlayoutEngine, default_max_moves, seed_key
from fastplay._equality import fields_equal
from fastplay.color import Color

__all__ = ["playout", "playouts", "default_max_moves", "PlayoutResult", "PlayoutStats",
           "AmafStats", "PlayoutEngine", "playout_engine", "seed_key"]

Scoring = Literal["gnugo", "tromp-taylor"]

# Engines by database identity, newest last; a handful of databases per process
# is the normal case, so a small bounded dict beats weak references.
_ENGINES: dict[int, tuple[Any, PlayoutEngine]] = {}
_MAX_ENGINES = 16


@dataclass(frozen=True)
class AmafStats:
    """All-moves-as-first tallies for RAVE (Gelly and Silver, ICML 2007).

    ``black_first`` / ``white_first``: ``int64[size, size]``, playouts in which
    that colour played first on the point; ``black_first_black_wins`` /
    ``white_first_black_wins``: how many of those Black won.
    """

    __eq__ = fields_equal

    black_first: npt.NDArray[np.int64]
    white_first: npt.NDArray[np.int64]
    black_first_black_wins: npt.NDArray[np.int64]
    white_first_black_wins: npt.NDArray[np.int64]


@dataclass(frozen=True)
class PlayoutStats:
    """Statistics of a batch of playouts.

    Attributes:
        n: playouts played.
        black_wins: playouts with ``score > 0``; ``draws``: ``score == 0``.
        black_win_rate: ``(black_wins + draws / 2) / n`` (NaN for n = 0).
        mean_score, sd_score: mean and standard deviation of
            ``black - white - komi`` (points).
        score_hist: ``{black - white (no komi): playouts}``.
        mean_length: moves per playout, passes (and the closing passes) included.
        ownership: ``float32[size, size]`` in [-1, 1]: mean over playouts of
            +1 where the point counted for Black, -1 for White.
        capped: playouts that reached the move cap.
        amaf: first-play tallies when asked for, else ``None``.
        komi: komi used (points); scoring: ``"gnugo"`` or ``"tromp-taylor"``.
        seconds: wall time of the batch; playouts_per_second: ``n / seconds``;
            neither is compared (two batches from one seed compare equal).
    """

    __eq__ = fields_equal

    n: int
    black_wins: int
    draws: int
    black_win_rate: float
    mean_score: float
    sd_score: float
    score_hist: dict[int, int]
    mean_length: float
    ownership: npt.NDArray[np.float32]
    capped: int
    komi: float
    scoring: str
    seconds: float = field(compare=False)
    amaf: AmafStats | None = None
    playouts_per_second: float = field(init=False, compare=False)

    def __post_init__(self) -> None:
        rate = self.n / self.seconds if self.seconds > 0 else float("inf")
        object.__setattr__(self, "playouts_per_second", rate)


@dataclass(frozen=True)
class PlayoutResult:
    """One playout: ``score`` (``black - white - komi``, points), ``winner``
    (a :class:`~fastplay.Color`, equal to ``"B"``/``"W"``, or ``None`` for a draw), ``length`` (moves, passes
    included) and ``final`` (``int8[size, size]``, 1 Black, -1 White, 0 empty)."""

    __eq__ = fields_equal

    score: float
    winner: Color | None
    length: int
    final: npt.NDArray[np.int8]


def playout_engine(db: Any) -> PlayoutEngine:
    """The compiled :class:`PlayoutEngine` that :func:`playouts` runs for ``db`` (a
    :class:`fastplay.PatternDatabase`; cached per database), for extensions that
    play from C through ``fastplay.capi``; with ``seed_key(seed)`` as the stream
    key, playout ``i`` from C is playout ``i`` of ``playouts(board, db, n, seed)``
    (``examples/cython_embedding``).  Keep the engine alive while a state it
    prepared is in use.  Raises ``TypeError`` for anything but a database."""
    return _engine(db)


def _engine(db: Any) -> PlayoutEngine:
    from fastplay.patterns import PatternDatabase, geometry_table

    if not isinstance(db, PatternDatabase):
        raise TypeError(f"db must be a fastplay.PatternDatabase, not {type(db).__name__}")
    entry = _ENGINES.get(id(db))
    if entry is None or entry[0] is not db:
        entry = (db, PlayoutEngine(db.table, geometry_table()))
        _ENGINES[id(db)] = entry
        while len(_ENGINES) > _MAX_ENGINES:
            del _ENGINES[next(iter(_ENGINES))]
    return entry[1]


def _default_db(db: Any) -> Any:
    """The database to use: the default for ``None``, a built-in for its name."""
    from fastplay.patterns import PatternDatabase

    if db is None:
        return PatternDatabase.default()
    if isinstance(db, str):
        return PatternDatabase.builtin(db)
    return db


def _check_board(board: Any) -> CoreBoard:
    if not isinstance(board, CoreBoard):
        raise TypeError(f"board must be a fastplay.Board, not {type(board).__name__}")
    return board


def _check_scoring(scoring: str) -> bool:
    if scoring not in ("gnugo", "tromp-taylor"):
        raise ValueError(f"scoring must be 'gnugo' or 'tromp-taylor', not {scoring!r}")
    return scoring == "tromp-taylor"


def playouts(board: CoreBoard, db: Any = None, n: int = 1000, seed: int = 0, threads: int = 1,
             *, komi: float | None = None, scoring: Scoring = "gnugo",
             max_moves: int | None = None,
             amaf: bool = False, debug_check: bool = False, near_first: bool = False
             ) -> PlayoutStats:
    """Play ``n`` playouts from ``board`` (left unchanged) and summarise them.

    Args:
        board: the starting position; the side to move moves first, its ko
            point is honoured, and nothing is "near" for the first move
            (spec 6.9).
        db: a :class:`fastplay.PatternDatabase`, or the name of a built-in
            one such as ``"mc_uniform"`` (default ``mc_montegnu_classic``).
        n: number of playouts (>= 0).
        seed: any non-negative integer (all its bits feed numpy's
            ``SeedSequence``); the result is a pure function of it.
        threads: worker threads (>= 1); the GIL is released while they run.
        komi: points added to White (default ``board.komi``).
        scoring: ``"gnugo"`` -- GNU Go's playout rule (spec 6.8: an empty point
            belongs to the first stone among its S, W, N, E neighbours, Black
            if none) -- or ``"tromp-taylor"`` area scoring.
        max_moves: the move cap: once more than ``max_moves`` moves have
            been played, every move is a forced pass (GNU Go's rule, spec
            6.8; ``None``: :func:`default_max_moves`, GNU Go's 600 up to
            19x19, twice the points beyond).
        amaf: also collect first-play tallies for RAVE.
        near_first: let the first draw use the near set of the board's last
            move (GNU Go does not: its playouts start with no near points).
        debug_check: after every move compare the incremental contexts and
            values with a recomputation (slow; raises ``RuntimeError``).

    Raises:
        TypeError: a non-board, non-database or non-integer argument, a non-numeric komi.
        ValueError: an unknown built-in name, ``n`` outside 0..2**53, ``threads`` outside 1..1024,
            ``max_moves`` outside 0..10**6, ``seed < 0``, a komi that is not
            finite (or beyond 10**6 points), a bad ``scoring``.
        KeyboardInterrupt: promptly, when interrupted.
    """
    board = _check_board(board)
    db = _default_db(db)
    tt = _check_scoring(scoring)
    engine = _engine(db)
    start = time.perf_counter()
    # The core validates komi (a finite number) before anything runs.
    raw = engine.run(board, n, seed, threads, max_moves=max_moves, komi=komi, tromp_taylor=tt,
                     amaf=amaf, debug_check=debug_check, near_first=near_first)
    seconds = time.perf_counter() - start
    k = float(board.komi if komi is None else komi)
    size = board.size
    npts = size * size
    hist = raw["hist"]
    scores = np.nonzero(hist)[0]
    score_hist = {int(s - npts): int(hist[s]) for s in scores}
    if n:
        values = np.arange(-npts, npts + 1, dtype=np.float64) - k
        mean = float((hist * values).sum() / n)
        sd = float(np.sqrt(max(0.0, (hist * (values - mean) ** 2).sum() / n)))
        ownership = ((raw["own_black"] - raw["own_white"]) / n).astype(np.float32)
        win_rate = (raw["black_wins"] + 0.5 * raw["draws"]) / n
        mean_length = raw["sum_length"] / n
    else:
        mean = sd = win_rate = mean_length = float("nan")
        ownership = np.zeros(npts, dtype=np.float32)
    amaf_stats = None
    if amaf:
        counts, bwins = raw["amaf_count"], raw["amaf_black_win"]
        amaf_stats = AmafStats(counts[2].reshape(size, size), counts[1].reshape(size, size),
                               bwins[2].reshape(size, size), bwins[1].reshape(size, size))
    return PlayoutStats(n=int(n), black_wins=raw["black_wins"], draws=raw["draws"],
                        black_win_rate=float(win_rate), mean_score=mean, sd_score=sd,
                        score_hist=score_hist, mean_length=float(mean_length),
                        ownership=ownership.reshape(size, size), capped=raw["capped"], komi=k,
                        scoring=scoring, seconds=seconds, amaf=amaf_stats)


def playout(board: CoreBoard, db: Any = None, seed: int = 0, *, komi: float | None = None,
            scoring: Scoring = "gnugo", max_moves: int | None = None) -> PlayoutResult:
    """Play one playout from ``board`` (left unchanged) and return its final position.

    The same ``seed`` gives the same playout as index 0 of
    ``playouts(board, db, n, seed)``.  Arguments and errors as :func:`playouts`.
    """
    board = _check_board(board)
    db = _default_db(db)
    tt = _check_scoring(scoring)
    raw = _engine(db).run(board, 1, seed, 1, max_moves=max_moves, komi=komi, tromp_taylor=tt,
                          want_final=True)
    k = float(board.komi if komi is None else komi)
    npts = board.size * board.size
    score = float(int(np.nonzero(raw["hist"])[0][0]) - npts) - k
    winner = Color.BLACK if score > 0 else (Color.WHITE if score < 0 else None)
    return PlayoutResult(score=score, winner=winner, length=int(raw["sum_length"]),
                         final=raw["final"].reshape(board.size, board.size))
