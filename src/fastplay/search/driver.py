"""The search driver: :class:`MCTS` -- run, analyze, ponder, tree reuse, threads.

The driver owns what lives from move to move (the tree, the clock, the
dynamic komi, the resignation count, the random stream) and puts the parts
together for each search: :mod:`~fastplay.search.config` (options),
:mod:`~fastplay.search.priors` (new nodes), :mod:`~fastplay.search.tree`
(root and descent), :mod:`~fastplay.search.loop` (simulations),
:mod:`~fastplay.search.evaluation` (leaf values),
:mod:`~fastplay.search.decide` (the answer), :mod:`~fastplay.search.clock`
and :mod:`~fastplay.search.komi`.  Its shape follows OpenSpiel's
``MCTSBot`` (an injected evaluator) and python-chess's engine API (a
limit per search, ``InfoDict`` snapshots while it runs).
"""

from __future__ import annotations

import contextlib
import copy
import math
import os
import secrets
import sys
import threading
import warnings
import time
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from fastplay import _threads
from fastplay._checks import is_integer, is_real
from fastplay._core import BLACK as BLACK_CODE
from fastplay._core import WHITE as WHITE_CODE
from fastplay._core import PlayoutEngine, TreeNode, TreeParams
from fastplay._playout import MAX_PLAYOUTS, MAX_THREADS  # the core's own bounds
from fastplay._strictattrs import StrictAttributes
from fastplay.board import Board, ColorLike, parse_vertex
from fastplay.montecarlo import _engine as playout_engine
from fastplay.search.clock import Clock
from fastplay.search.config import (DEFAULT_BATCH, SearchConfig, default_expand_threshold,
                                    option_names)
from fastplay.search.decide import (BOOK_VISITS, FINAL_MIN_VISITS, FINAL_PLAYOUTS, Resigner,
                                    answer, book_move)
from fastplay.search.evaluation import Evaluator, ScoreTables
from fastplay.search.komi import DynamicKomi
from fastplay.search.loop import Limits, SearchLoop, SearchState
from fastplay.search.ponder import Ponderer
from fastplay.search.priors import (ForbidFunction, NodeMaker, PriorFunction, forbidden_set,
                                    keep_the_pass)
from fastplay.search.results import SearchInfo, SearchResult
from fastplay.search.tree import SearchTree
from fastplay.shown import shown_value

__all__ = ["MCTS"]

#: With a visit limit, the batch shrinks so that the root's moves get at
#: least this many simulations' worth of visits on average.
SIMS_PER_ROOT_MOVE = 4

#: ... but never below ``ceil(size * size / BATCH_FLOOR_POINTS)`` playouts
#: per leaf (1 on 9x9 and 11x11, 2 on 13x13, 3 on 19x19, 5 on 25x25): a speed choice,
#: RESULTS.md, "Where the search's constants come from".
BATCH_FLOOR_POINTS = 128

#: Time kept for the final probe out of a time limit S: 5 % of S, at least
#: 10 ms, at most S / 4; the tree search stops that much earlier.
FINAL_RESERVE = 0.05

#: What a second search on a busy object is told.
BUSY = ("this MCTS is already searching in another thread, or an analysis generator of it "
        "is still open (close() it: a loop left by break does not close a generator "
        "that a variable still holds)")
FINAL_RESERVE_MIN = 0.01


@contextlib.contextmanager
def _using(search: MCTS, busy: str = BUSY) -> Iterator[None]:
    """Hold ``search``'s use lock: one search, ponder start, new game or
    change of settings at a time; ``RuntimeError(busy)`` when it is taken.
    The holding thread is recorded for :func:`_after_fork_in_child`, and a
    release after a fork took the lock over (a new ``_epoch``) is skipped."""
    if not search._in_use.acquire(blocking=False):
        raise RuntimeError(busy)
    epoch = search._epoch
    search._holder = threading.get_ident()
    try:
        yield
    finally:
        if search._epoch == epoch:
            search._holder = None
            search._in_use.release()


@contextlib.contextmanager
def _between_searches(search: MCTS) -> Iterator[None]:
    """A change of a search's settings: ``RuntimeError`` (:data:`BUSY`) while
    a search or an analysis of it runs (a tester changed ``config`` and
    ``threads`` mid-search, and nothing said the change was half taken); a
    ponder is stopped first (which a plug-in the ponder calls cannot do).
    Nothing to wait for during ``__init__``."""
    if getattr(search, "_in_use", None) is None:
        yield
        return
    # (From a plug-in the ponder called, ponder_stop raises: Ponderer.stop.)
    with _using(search):
        search.ponder_stop()
        yield


def _after_fork_in_child() -> None:
    """``os.register_at_fork``'s hook for every live search: a child process
    has only the thread that forked.  A ponder thread, or a search or
    analysis of another thread, does not exist there (a tester's child of
    a pondering search hung in its first ``run``, and one forked during
    another thread's ``run`` was "already searching" for good); it may have
    held the tree's lock half-way through a change, so the child's search
    gets new locks and drops its tree."""
    me = threading.get_ident()
    for search in list(_SEARCHES):
        lost = search._ponderer.after_fork() | _threads.lost_in_fork(search)
        if search._in_use.locked() and search._holder != me:
            search._in_use = threading.Lock()
            search._epoch += 1
            search._holder = None
            search._live = None
            lost = True
        if lost:
            search._lock = threading.Lock()
            search._tree.drop()


def _check_limits(visits: Any, playouts: Any, seconds: Any) -> tuple[int | None, float | None]:
    """The visit and time limits of a search, checked (``playouts`` is the
    older name of ``visits``: every leaf evaluation without an evaluator is
    a playout); a count is 1..``MAX_PLAYOUTS``, the core's bound on one run
    (where float64 counts stay exact)."""
    if visits is not None and playouts is not None:
        raise TypeError("give visits= or playouts= (the same count), not both")
    count = visits if visits is not None else playouts
    name = "visits" if visits is not None else "playouts"
    if count is not None:
        if not is_integer(count):
            raise TypeError(f"{name} must be an integer, not {type(count).__name__}")
        if not 1 <= count <= MAX_PLAYOUTS:
            raise ValueError(f"{name} must be between 1 and {MAX_PLAYOUTS} (2**53), "
                             f"not {shown_value(count)}")
        count = int(count)
    if seconds is not None:
        if not is_real(seconds):
            raise TypeError(f"seconds must be a number, not {type(seconds).__name__}")
        if not (math.isfinite(seconds) and seconds > 0):
            raise ValueError(f"seconds must be finite and > 0, not {seconds}")
        seconds = float(seconds)
    return count, seconds


@dataclass
class _Outcome:
    """What an analysis thread leaves: the answer and its state, or an error."""

    result: SearchResult | None = None
    state: SearchState | None = None
    error: BaseException | None = None


def leaf_batch(batch_option: int | None, threads: int, size: int, visits: int | None = None,
               moves: int = 1) -> int:
    """Visits per leaf: ``batch_option`` (the ``batch`` setting) if set, else
    ``DEFAULT_BATCH`` per thread (a second thread needs playouts to overlap)
    or the size's floor ``ceil(points / BATCH_FLOOR_POINTS)`` where larger;
    with a visit limit of fewer than ``SIMS_PER_ROOT_MOVE`` simulations per
    root move (of ``moves``) it shrinks to the floor, so that PUCT spends a
    small budget where the priors point."""
    if batch_option is not None:
        return min(batch_option, visits) if visits is not None else batch_option
    floor = -(-size * size // BATCH_FLOOR_POINTS)
    batch = max(DEFAULT_BATCH * threads, floor)
    if visits is not None:
        batch = max(floor, min(batch, visits // (SIMS_PER_ROOT_MOVE * moves)))
    return batch


class MCTS(StrictAttributes):
    """Tree search over pattern-driven playouts (see :mod:`fastplay.search`).

    Args:
        db: a :class:`fastplay.PatternDatabase`: the playout policy (and the
            built-in prior's weights, unless a learned prior is chosen).
        config: a :class:`SearchConfig` (``None``: the defaults).
        threads: search threads (1..``MAX_THREADS``).  The playouts run in C without the
            GIL, so two threads use two cores; results are then no longer
            reproducible.
        seed: non-negative integer; with ``threads=1`` and a visit limit a
            search is a pure function of the seed and the calls made.
            ``None`` draws one from the operating system.
        evaluator: ``evaluator(boards: list[Board]) -> float[n]``, for each
            position the probability in [0, 1] that its side to move wins;
            mixed with the rollouts by ``config.mix``.  With ``threads`` > 1
            it may be called from several threads at once.
        prior: ``prior(board) -> float[size*size + 1]`` (flat ``row * size
            + col``, pass last), non-negative: the prior of new nodes,
            normalised over their legal moves.  Called one node at a time,
            whatever ``threads``.
        forbid: ``forbid(board, depth) -> iterable of int``: the moves a
            new node for ``board``, ``depth`` plies below the search's root
            (0: the root), never searches (flat indices, -1 the pass; the
            pass stays when every move is named), as KataGo's
            ``avoidMoves``.  Called as ``prior`` is.
        **options: :class:`SearchConfig` fields, applied to ``config`` (the
            older way to pass them).

    Each option is also an attribute (``search.c_puct``); assigning one
    replaces :attr:`config` by a validated copy.  Other public names cannot
    be set (``AttributeError``: a misspelled option would be an attribute
    nothing reads); a subclass may add its own.  ``db`` and ``seed`` are
    read-only.  An MCTS cannot be pickled or copied; its results can.

    Raises:
        TypeError: ``db`` is not a PatternDatabase, an unknown option, an
            evaluator or prior that is not callable, an option of the wrong type.
        ValueError: an out-of-range option, or ``mix < 1`` without an evaluator.
    """

    _STRICT_ATTRIBUTES = True

    def __init__(self, db: Any, config: SearchConfig | None = None, *, threads: int = 1,
                 seed: int | None = None, evaluator: Evaluator | None = None,
                 prior: PriorFunction | None = None, forbid: ForbidFunction | None = None,
                 **options: Any) -> None:
        from fastplay.patterns import PatternDatabase

        if not isinstance(db, PatternDatabase):
            raise TypeError(f"db must be a fastplay.PatternDatabase, not {type(db).__name__}")
        if seed is not None and not is_integer(seed):
            raise TypeError(f"seed must be an integer or None, not {shown_value(seed)}")
        if seed is not None and seed < 0:
            raise ValueError(f"seed must be a non-negative integer or None, not {seed!r}")
        seed = None if seed is None else int(seed)
        for name, plug in (("evaluator", evaluator), ("prior", prior), ("forbid", forbid)):
            if plug is not None and not callable(plug):
                raise TypeError(f"{name} must be callable, not {type(plug).__name__}")
        if config is not None and not isinstance(config, SearchConfig):
            raise TypeError(f"config must be a SearchConfig, not {type(config).__name__}")
        unknown = sorted(set(options) - set(option_names()))
        if unknown:
            raise TypeError(f"unknown search option(s): {', '.join(unknown)}")
        self._db = db
        self.threads = threads          # checked by its setter
        self._seed = seed
        self._evaluator = evaluator
        self._prior = prior
        self._forbid = forbid
        # The core's playout engine, called directly (fastplay.playouts()
        # adds checks and summaries the search does not use); the one
        # fastplay.playouts() caches for this database.
        self._engine: PlayoutEngine = playout_engine(db)
        self._maker: NodeMaker | None = None
        self.config = replace(config or SearchConfig(), **options)
        self._seed_base = seed if seed is not None else secrets.randbits(62)
        # The next playout index: each simulation's playouts are the next
        # indices of the one random stream family of ``_seed_base``.
        self._counter = [0]
        self._tables = ScoreTables()
        self._lock = threading.Lock()
        self._in_use = threading.Lock()        # one search at a time: _using()
        self._holder: int | None = None        # the thread holding it, and the fork
        self._epoch = 0                        # generation of the lock (_after_fork_in_child)
        self._tree = SearchTree()
        self._clock = Clock()
        self._komi = DynamicKomi(self.config.dynamic_komi)
        self._resigner = Resigner()
        self._live: SearchLoop | None = None
        self._probing = False                  # a final probe does not probe again
        self._ponderer = Ponderer()
        _SEARCHES.add(self)

    def __reduce__(self) -> Any:
        raise TypeError("an MCTS cannot be pickled or copied (its tree, threads and compiled "
                        "state are this process's); its results and snapshots can")

    # -- options ---------------------------------------------------------------

    @property
    def db(self) -> Any:
        """The pattern database (fixed: a search of another needs an MCTS of its own)."""
        return self._db

    @property
    def seed(self) -> int | None:
        """The seed given (fixed; ``None``: a random one was drawn)."""
        return self._seed

    @property
    def threads(self) -> int:
        """Search threads, 1..``MAX_THREADS``; assignable between searches (as
        every setting: ``RuntimeError`` during one, a ponder is stopped)."""
        return self._threads

    @threads.setter
    def threads(self, threads: int) -> None:
        if not is_integer(threads):
            raise TypeError(f"threads must be an integer, not {shown_value(threads)}")
        if not 1 <= threads <= MAX_THREADS:
            raise ValueError(f"threads must be an integer 1..{MAX_THREADS}, "
                             f"not {shown_value(threads)}")
        with _between_searches(self):
            self._threads = int(threads)

    @property
    def config(self) -> SearchConfig:
        """The search's options; assign a new :class:`SearchConfig` (or use
        ``dataclasses.replace``) to change them between searches."""
        return self._config

    @config.setter
    def config(self, config: SearchConfig) -> None:
        if not isinstance(config, SearchConfig):
            raise TypeError(f"config must be a SearchConfig, not {type(config).__name__}")
        if config.mix < 1 and self.evaluator is None:
            raise ValueError(f"mix={config.mix:g} needs an evaluator (mix is the rollouts' "
                             f"share of the leaf value)")
        with _between_searches(self):
            # The node maker first: a prior it cannot load leaves the config as it was.
            if self._maker is None:
                self._maker = NodeMaker(self._engine, config, self.prior, self._forbid)
            else:
                self._maker.configure(config)
            self._config = config
            if hasattr(self, "_komi"):
                self._komi.step = config.dynamic_komi

    @property
    def evaluator(self) -> Evaluator | None:
        """The user evaluator (``None``: rollouts alone); assignable between
        searches, ``None`` only with ``mix=1``."""
        return self._evaluator

    @evaluator.setter
    def evaluator(self, evaluator: Evaluator | None) -> None:
        if evaluator is not None and not callable(evaluator):
            raise TypeError(f"evaluator must be callable, not {type(evaluator).__name__}")
        if evaluator is None and self.config.mix < 1:
            raise ValueError(f"mix={self.config.mix:g} needs an evaluator; set config.mix = 1 "
                             f"first to search without one")
        with _between_searches(self):
            self._evaluator = evaluator

    @property
    def prior(self) -> PriorFunction | None:
        """The user prior of new nodes (``None``: the built-in one); assignable
        between searches (nodes already made keep their priors)."""
        return self._prior

    @prior.setter
    def prior(self, prior: PriorFunction | None) -> None:
        if prior is not None and not callable(prior):
            raise TypeError(f"prior must be callable, not {type(prior).__name__}")
        assert self._maker is not None
        with _between_searches(self):
            self._prior = prior
            self._maker.user_prior = prior

    @property
    def forbid(self) -> ForbidFunction | None:
        """The ``forbid`` plug-in (``None``: none); assignable between
        searches, which drops the tree (its nodes were made under the old
        restriction); ``RuntimeError`` while a search runs."""
        return self._forbid

    @forbid.setter
    def forbid(self, forbid: ForbidFunction | None) -> None:
        if forbid is not None and not callable(forbid):
            raise TypeError(f"forbid must be callable, not {type(forbid).__name__}")
        if forbid is self._forbid:
            return
        # A running search's tree must not go (a tester's AssertionError).
        with _between_searches(self), self._lock:
            self._forbid = forbid
            self._tree.drop()
            assert self._maker is not None
            self._maker.forbid = forbid

    @property
    def root(self) -> TreeNode | None:
        """The current root node (``None`` before the first search)."""
        return self._tree.root

    @property
    def extra_komi(self) -> dict[int, float]:
        """Dynamic komi: the extra komi against each side (colour code -> points)."""
        return dict(self._komi.extra)

    @property
    def komi_control(self) -> DynamicKomi:
        """The dynamic komi kept from search to search."""
        return self._komi

    @property
    def clock(self) -> Clock:
        """The clock (``time_settings``, ``time_left``, the budget per move)."""
        return self._clock

    @property
    def tree(self) -> SearchTree:
        """The game's tree: root, root position, the game's positions, node count."""
        return self._tree

    def expand(self, board: Board) -> TreeNode:
        """A new node for ``board`` as this search makes it (candidate moves,
        priors, virtual playouts), outside the tree: for inspecting priors."""
        assert self._maker is not None
        return self._maker.expand(board, 0.0, tree_params(self.config, board.size,
                                                              self.prior is not None))

    # -- game and clock ----------------------------------------------------------

    def new_game(self) -> None:
        """Forget the tree (and its last-good-reply table), the resignation
        count, the clock's time left and the dynamic komi.  Raises ``RuntimeError`` while another thread
        searches (or an analysis is open) with this object."""
        self.ponder_stop()
        with _using(self, "this MCTS is searching; a new game must wait for the search "
                          "(or the analysis) to end"):
            self._tree.drop()
            self._resigner = Resigner()
            self._clock.left.clear()
            self._komi.clear()

    def set_time(self, main_time: float, byo_yomi_time: float, byo_yomi_stones: int) -> None:
        """GTP ``time_settings`` (see :meth:`Clock.set_time`)."""
        self._clock.set_time(main_time, byo_yomi_time, byo_yomi_stones)

    def time_left(self, color: ColorLike, seconds: float, stones: int) -> None:
        """GTP ``time_left``: ``seconds`` left for ``color``; ``stones`` > 0 in byo-yomi."""
        self._clock.time_left(color, seconds, stones)

    def time_budget(self, board: Board) -> float | None:
        """Seconds the clock allows for ``board``'s move (``None``: no clock)."""
        return self._clock.budget(board)

    # -- search ------------------------------------------------------------------

    def run(self, board: Board, playouts: int | None = None, seconds: float | None = None, *,
            visits: int | None = None, callback: Callable[[int], None] | None = None,
            move: bool = True) -> SearchResult:
        """Search ``board`` (unchanged) for its side to move and return the result.

        Args:
            board: the position, with its history (for superko and tree reuse).
            playouts, visits: stop after this many leaf evaluations (the same
                count under two names: without an evaluator each is a playout).
            seconds: stop after this much wall time, the final choice
                included.  With both limits the first reached stops.  A clock
                set by :meth:`set_time` caps either limit and decides alone
                without them; with no limit and no clock, ``default_playouts``.
            callback: called from the searching thread with the visits so
                far, about every 50 ms (for progress bars).
            move: ``False`` for a search that is not the game's next move
                (scoring, a hint): the resignation count, dynamic komi and
                the clock stay as they were, and the clock sets no limit (a
                GTP ``final_score`` made the next ``genmove`` resign).  The
                tree is kept for reuse.

        Raises:
            TypeError: ``board`` is not a Board, a limit of the wrong type,
                a ``callback`` that is not callable.
            ValueError: a limit below 1 or not finite; a :class:`PluginError`
                when the evaluator or the prior fails.
            RuntimeError: another thread is searching with this object.
        """
        if not isinstance(board, Board):
            raise TypeError(f"board must be a fastplay.Board, not {type(board).__name__}")
        count, seconds = _check_limits(visits, playouts, seconds)
        if callback is not None and not callable(callback):
            raise TypeError(f"callback must be callable, not {type(callback).__name__}")
        # One tree: two searches at once would replace each other's root.
        with _using(self, BUSY + "; use one MCTS object per thread"):
            self.ponder_stop()
            return self._run_move(board, count, seconds, callback, move)

    def _run_move(self, board: Board, visits: int | None, seconds: float | None,
                  callback: Callable[[int], None] | None, move: bool = True) -> SearchResult:
        """:meth:`run` once the lock is held: limits, clock, search, answer;
        ``move=False``: the game's state (resignation count, dynamic komi,
        clock) is not changed, and the clock sets no limit."""
        start = time.perf_counter()
        # The answer, the dynamic komi and the clock read the position as it
        # was searched: the caller may change ``board`` meanwhile (another
        # thread; a tester's result described a later position).
        board = board.copy()
        explicit = visits is not None or seconds is not None
        visits, seconds, searching, clocked = _move_limits(
            self._clock.budget(board) if move else None, self.config, board, visits, seconds)
        deadline = None if seconds is None else start + seconds
        state = _search(self, board.copy(), Limits(visits, searching, clocked and not explicit,
                                                  None, callback, started=start))
        result = self._result(board, state, start, deadline,
                              None if move else copy.copy(self._resigner))
        self._moved(board, start, move, clocked)
        return result

    def _moved(self, board: Board, start: float, move: bool, clocked: bool) -> None:
        """After a search of the game's move (``move``): dynamic komi, and the
        clock's time spent since ``start`` (all of it: the answer may add a
        probe search) when the clock set the limit (``clocked``)."""
        if move and self.config.dynamic_komi > 0:
            self._komi.adjust(board, self._tree.root)
        if clocked:
            self._clock.spend(board.to_move_code, time.perf_counter() - start)

    def analyze(self, board: Board, visits: int | None = None, seconds: float | None = None, *,
                playouts: int | None = None, interval: float = 0.1,
                stop: threading.Event | None = None, min_moves: int = 0, move: bool = False
                ) -> Iterator[SearchInfo]:
        """Search ``board`` and yield a :class:`SearchInfo` every ``interval``
        seconds, then a final one (``final=True``, the answer of :meth:`run`).
        A snapshot holds the search's lock, so the next waits at least
        ``SNAPSHOT_GAP`` (4) times as long as the last took
        (:func:`fastplay.search.snapshot.next_due`): a tiny interval cannot
        starve the search.

        Limits as :meth:`run` (no clock and no default: without a limit the
        search runs until the loop is left, as ``lz-analyze`` does).  Leaving
        ``for info in search.analyze(...)`` (``break``) closes the generator
        and stops the search within milliseconds, as ``close()`` does (with
        an evaluator, once its call in progress returns: a slow evaluator
        delays the stop, and any limit, by up to one call); a
        generator kept in a variable stays open after a ``break`` until it is
        closed (``close()``, ``contextlib.closing``) or collected.  The tree
        is kept for reuse.  Dynamic komi, the resignation count and the clock
        are not changed by an analysis, unless ``move`` says that it searches
        the game's next move (GTP's ``genmove_analyze``): then they are as
        in :meth:`run` (the clock caps the limits; with neither limit nor
        clock, ``default_playouts``).  ``stop``: an event that, once set
        (from any thread), stops the search at its next look at its
        limits (every 16 simulations) and ends the analysis without a
        final snapshot (GTP's ``lz-analyze`` ends so on new input).
        ``min_moves``: report at least that many root moves, unvisited ones
        in prior order.  Raises as :meth:`run` (the checks at the call, the
        search's errors from the iteration), ``TypeError`` for an interval
        that is not a number, a ``min_moves`` that is not an integer or a
        ``stop`` without ``is_set()``, and ``ValueError`` for an interval
        that is not positive and finite or a negative ``min_moves``.
        """
        if not isinstance(board, Board):
            raise TypeError(f"board must be a fastplay.Board, not {type(board).__name__}")
        count, seconds = _check_limits(visits, playouts, seconds)
        if not is_real(interval):
            raise TypeError(f"interval must be a number of seconds, not {shown_value(interval)}")
        if not (math.isfinite(interval) and interval > 0):
            raise ValueError(f"interval must be a positive number of seconds, not {interval!r}")
        if not is_integer(min_moves):
            raise TypeError(f"min_moves must be an integer, not {shown_value(min_moves)}")
        if min_moves < 0:
            raise ValueError(f"min_moves must be a non-negative integer, not {min_moves!r}")
        if stop is not None and not callable(getattr(stop, "is_set", None)):
            raise TypeError(f"stop must be a threading.Event (or have is_set()), not "
                            f"{type(stop).__name__}")
        return _analysis(self, board.copy(), count, seconds, float(interval), stop, int(min_moves),
                         move)

    def leaf_batch(self, size: int, visits: int | None = None, moves: int = 1) -> int:
        """Visits per leaf on a board of ``size`` (:func:`leaf_batch`)."""
        return leaf_batch(self.config.batch, self.threads, size, visits, moves)

    def final_probe(self, after: Board, seconds: float | None) -> npt.NDArray[np.float32]:
        """The final-position probe (:func:`fastplay.search.decide.is_final`):
        the same search (current options, one thread, this seed, the same
        plug-ins) of ``after``, the position after our pass, for
        ``FINAL_PLAYOUTS`` visits or ``seconds``; its ownership, or zeros
        (nothing settled) when the time ran out before ``FINAL_MIN_VISITS``
        visits: a few playouts own every point and would make any position
        look final."""
        config = replace(self.config, resign_threshold=None, book=False)
        probe = MCTS(self.db, config, threads=1, seed=self._seed_base,
                     evaluator=self.evaluator, prior=self.prior)
        probe._probing = True
        result = probe.run(after, visits=FINAL_PLAYOUTS, seconds=seconds)
        if result.root_visits < min(FINAL_MIN_VISITS, FINAL_PLAYOUTS):
            return np.zeros_like(result.ownership)
        return result.ownership

    def _result(self, board: Board, state: SearchState, start: float,
                deadline: float | None, resigner: Resigner | None = None) -> SearchResult:
        """The search's answer (:func:`fastplay.search.decide.answer`), never a
        move the ``forbid`` plug-in names; ``resigner``: the resignation
        count to use (the game's by default)."""
        result = answer(board, self._tree, state, self.config,
                        None if self._probing else self.final_probe, resigner or self._resigner,
                        start, deadline)
        return result if self._forbid is None else _allowed_answer(result, board, self._forbid)

    # -- pondering ---------------------------------------------------------------

    def ponder_start(self, board: Board) -> None:
        """Search ``board`` (the opponent to move) in a background thread until
        :meth:`ponder_stop`; the next :meth:`run` reuses the subtree of the
        move actually played.  Raises ``RuntimeError`` while :meth:`run`
        searches in another thread."""
        with _using(self):
            position = board.copy()

            def work(stop: threading.Event) -> None:
                # For the side that just moved: the engine's (opponent_prior).
                mover = position.to_move_code
                _search(self, position, Limits(stop=stop),
                             own=WHITE_CODE if mover == BLACK_CODE else BLACK_CODE)

            self._ponderer.start(work)

    def ponder_stop(self) -> None:
        """Stop pondering (no-op when not pondering); waits for the thread to
        finish.  A ponder that failed (a plug-in's error, say) does not stop
        the game: its tree is dropped and a ``RuntimeWarning`` says why; a
        ``KeyboardInterrupt`` or ``SystemExit`` in it is raised here."""
        error = self._ponderer.stop()
        if error is not None:
            self._tree.drop()
            if not isinstance(error, Exception):
                raise error
            warnings.warn(f"pondering stopped early ({type(error).__name__}: {error}); "
                          f"its tree is dropped", RuntimeWarning, stacklevel=2)


def _allowed_answer(result: SearchResult, board: Board, forbid: ForbidFunction
                    ) -> SearchResult:
    """``result``, or, when its move is one ``forbid`` names at ``board`` (the
    opening book and the pass rules choose beyond the tree's moves), the
    most visited allowed move, else the pass (kept when every move is named)."""
    move = result.best_move
    if move == "resign":
        return result
    banned = keep_the_pass(forbidden_set(forbid, board, 0),
                           [-1, *(int(i) for i in board.legal_indices(board.to_move_code))])

    def index(vertex: str) -> int:
        return -1 if vertex.lower() == "pass" else parse_vertex(vertex, board.size)

    if index(move) not in banned:
        return result
    for child in result.children:
        if index(child.move) not in banned:
            return replace(result, best_move=child.move, winrate=child.winrate, rule="forbid")
    return replace(result, best_move="pass", rule="forbid")


def tree_params(config: SearchConfig, size: int, user_prior: bool) -> TreeParams:
    """The selection constants of ``config`` on a board of ``size``, as the
    compiled tree reads them (``user_prior``: the search has a prior plug-in)."""
    c = config
    return TreeParams(c.policy == "puct", c.rave, c.virtual, c.puct_for(size), c.c_uct,
                      c.fpu_reduction, c.rave_equiv, c.widen_for(size), c.widen_visits,
                      c.widen_factor, c.ties_for(user_prior))


def _search(search: MCTS, board: Board, limits: Limits, track_scores: bool = False,
            own: int | None = None) -> SearchState:
    """Prepare ``search``'s root for ``board`` and run simulations until ``limits``;
    ``own``: the searching side's colour code (``None``: the mover's; a
    ponder searches for the side that is not to move)."""
    assert search._maker is not None
    config = search.config
    own = board.to_move_code if own is None else own
    with search._lock:
        # The options as they are now.
        params = tree_params(config, board.size, search.prior is not None)
        search._tree.claim(own, config.opponent_prior is not None)
        search._maker.own_color = own    # whose nodes are whose
        root = search._tree.prepare(board, search._maker, params, track_scores)
        search._tree.use_replies(board.size, config.reply_visits)
        batch = search.leaf_batch(board.size, limits.visits, root.k)
        loop = SearchLoop(config, params, search._tree, search._maker, search._engine,
                          search._lock, search.threads, search._seed_base, search._counter,
                          search._komi.komi_for(board), search._tables, search.evaluator)
        loop.state = SearchState(board.size * board.size)
        search._live = loop
    # Default: EXPAND_FLOOR playouts, and at least two batches.
    threshold = config.expand_threshold if config.expand_threshold is not None \
        else default_expand_threshold(batch)
    return loop.run(board, limits, batch, threshold, track_scores)


def _move_limits(budget: float | None, config: SearchConfig, board: Board, visits: int | None,
                 seconds: float | None) -> tuple[int | None, float | None, float | None, bool]:
    """A game move's limits: ``(visits, seconds, searching, clocked)`` from
    the asked ones and the clock's ``budget`` (``None``: no clock), which caps
    an explicit limit too; ``config.default_playouts`` without either, and
    :data:`BOOK_VISITS` under the clock alone where the opening book answers
    (``board``: :func:`book_move`; the game's time is not spent on a move
    the search does not choose); ``searching`` the seconds left to the
    search after the final choice's reserve; ``clocked``: the clock set the
    limit."""
    clocked = budget is not None
    if clocked and visits is None and seconds is None and config.book \
            and book_move(board) is not None:
        visits = BOOK_VISITS
    if budget is not None and (seconds is None or budget < seconds):
        seconds = budget
    if visits is None and seconds is None:
        visits = config.default_playouts
    searching = None if seconds is None else seconds - min(
        seconds / 4, max(FINAL_RESERVE * seconds, FINAL_RESERVE_MIN))
    return visits, seconds, searching, clocked


def _analysis(search: MCTS, board: Board, visits: int | None, seconds: float | None,
              interval: float, until: threading.Event | None, min_moves: int,
              move: bool) -> Iterator[SearchInfo]:
    """:meth:`MCTS.analyze`'s generator (its arguments checked; ``board`` a copy)."""
    from fastplay.search.snapshot import final_info, next_due, snapshot

    stop = threading.Event()
    outcome = _Outcome()
    start = time.perf_counter()
    searching, clocked, explicit = seconds, False, visits is not None or seconds is not None
    if move:
        visits, seconds, searching, clocked = _move_limits(
            search._clock.budget(board), search.config, board, visits, seconds)

    def work() -> None:
        try:
            limits = Limits(visits, searching, clocked and not explicit, stop, None,
                            until_full=False, until=until)
            state = _search(search, board.copy(), limits, track_scores=True)
            if not (stop.is_set() or (until is not None and until.is_set())):
                # An analysis leaves the game's resignation count alone.
                outcome.result = search._result(
                    board, state, start, None if seconds is None else start + seconds,
                    None if move else copy.copy(search._resigner))
                outcome.state = state
                search._moved(board, start, move, clocked)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the generator
            outcome.error = exc

    with _using(search):
        worker = _threads.Worker(work, "fastplay-analyze", owner=search)
        try:
            search.ponder_stop()
            worker.start()
            _threads.stop_at_exit(stop, worker)
            due = time.perf_counter() + interval
            while True:
                # New input (``until``) stops the search itself: its end wakes
                # this wait at once.
                worker.wait(max(0.0, due - time.perf_counter()))
                if until is not None and until.is_set():
                    return
                if not worker.running:
                    break
                if time.perf_counter() < due:
                    continue
                taken = time.perf_counter()
                with search._lock:
                    info = snapshot(search._live, search._tree, board, start, min_moves)
                now = time.perf_counter()
                due = next_due(due, interval, now, now - taken)
                if info is not None:
                    yield info
            if outcome.error is not None:
                raise outcome.error
            if stop.is_set():
                return      # the interpreter's exit stopped the search (stop_at_exit)
            if worker.lost_in_fork:
                raise RuntimeError("this analysis's search thread did not survive a fork")
            assert outcome.result is not None and outcome.state is not None
            yield final_info(outcome.result, outcome.state, board, search._tree, min_moves)
        finally:
            stop.set()
            _threads.forget_at_exit(worker)
            # A Ctrl-C waits until the search has let go; at the interpreter's
            # end (a generator collected with the modules) the daemon worker no
            # longer runs, and the exit already stopped it (stop_at_exit).
            if not sys.is_finalizing():
                worker.wait(finish=True)
            search._live = None


def _option_property(name: str) -> property:
    """``search.NAME``: reads ``config.NAME``; assigning replaces the config
    by a validated copy."""

    def get(self: MCTS) -> Any:
        return getattr(self.config, name)

    def set_(self: MCTS, value: Any) -> None:
        self.config = replace(self.config, **{name: value})

    return property(get, set_, doc=f"The ``{name}`` option of :attr:`MCTS.config`.")


for _name in option_names():
    setattr(MCTS, _name, _option_property(_name))
del _name


_SEARCHES: weakref.WeakSet[MCTS] = weakref.WeakSet()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
