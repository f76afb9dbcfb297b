"""One search: simulations until a limit, on one or several threads.

A *simulation* selects down the tree (holding a virtual loss on its path
when other descents run at the same time), expands an edge that is due for
a node, evaluates the leaf (:mod:`fastplay.search.evaluation`) and backs the
value up.  The playouts run in C without the GIL, so threads overlap there;
selection and back-up run under the search's lock.  With an evaluator, a
thread gathers up to ``eval_batch`` leaves before one evaluator call, as
AlphaGo's GPU batches do (Silver et al. 2016, "Search algorithm").

A one-thread search whose leaves are worth their playouts' wins (no score
in the value, no dynamic komi) runs its simulations, analysis tallies
included, in the core's loop (:func:`fastplay._core.tree_simulate`), up to
16 at a time, calling back here for each new node; only a simulation that
ends the game inside the tree runs here.  The same tree to the bit, without
a Python round trip per simulation (``benchmarks/RESULTS.md``, "A compiled
simulation loop").
"""

from __future__ import annotations

import functools
import math
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from fastplay._threads import run_all
from fastplay._core import BLACK as BLACK_CODE
from fastplay._core import SIMULATE_PYTHON, PlayoutEngine, PlayoutTally, TreeParams
from fastplay._core import SearchCounts, TreeNode, tree_backup, tree_simulate
from fastplay.board import Board
from fastplay.search.config import SearchConfig
from fastplay.search.criticality import RootCriticality
from fastplay.search.decide import ChildScores
from fastplay.search.evaluation import Evaluator, LeafValue, ScoreTables, call_evaluator
from fastplay.search.evaluation import mixed_value, rollout_value, terminal_value
from fastplay.search.priors import NodeMaker
from fastplay.search.tree import Descent, SearchTree

__all__ = ["SearchLoop", "SearchState", "Limits"]

#: Most simulations of one call of the core's loop: the stop flags, the
#: deadline's early stop and the progress callback are looked at between calls.
COMPILED_CHUNK = 16


@dataclass
class Limits:
    """When a search stops.

    Attributes:
        visits: leaf evaluations (``None``: no limit).
        seconds: wall time of the tree search (``None``: no limit).
        early_stop: stop when the leader cannot be caught in the time left.
        stop: an event that stops the search when set (pondering, analysis).
        callback: called with the visits so far about every 50 ms.
        until_full: with ``stop`` and no visit limit, also stop once the
            tree is full (``max_nodes``, ``max_memory``: pondering); an analysis goes on
            refining the tree it has.
        until: a second event that stops the search when set (an analysis's
            "new input arrived", so that the search ends as the input comes).
        started: the ``time.perf_counter()`` from which ``seconds`` counts
            (``None``: the loop's start): :meth:`MCTS.run`'s call, so that
            the root's making (a slow prior plug-in) counts in its time.
    """

    visits: int | None = None
    seconds: float | None = None
    early_stop: bool = False
    stop: threading.Event | None = None
    callback: Callable[[int], None] | None = None
    until_full: bool = True
    until: threading.Event | None = None
    started: float | None = None


@dataclass
class SearchState(SearchCounts):
    """A running search's counts (read under the search's lock).

    The first four are the fields of :class:`fastplay._core.SearchCounts`,
    so that the compiled loop counts each simulation at its back-up
    (:func:`tree_simulate`'s ``progress`` is the state itself).

    Attributes:
        done: visits backed up; ``pending``: visits gathered but not yet
            backed up (an evaluator batch).
        playouts: playouts run; ``sims``: descents backed up.
        own: ``float64[points]``, ownership (Black +) summed over the exact
            endings; the playouts' sit in ``tallies`` until the end.
            ``owned``: the same sums of its absolute value (how often each
            point had an owner), for the ownership's deviation.
        hist: ``float64[2 points + 1]`` Black-minus-White areas of the
            evaluations, when scores are tracked (analysis), else ``None``;
            ``child_scores``: the same per root move.
        error: what stopped a worker; ``stop``: every worker should stop.
    """

    points: int
    own: npt.NDArray[np.float64] = field(init=False)
    owned: npt.NDArray[np.float64] = field(init=False)
    hist: npt.NDArray[np.float64] | None = None
    child_scores: ChildScores | None = None
    error: BaseException | None = None
    stop: bool = False
    tallies: list[PlayoutTally] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)

    def __post_init__(self) -> None:
        self.own = np.zeros(self.points)
        self.owned = np.zeros(self.points)

    def ownership_sums(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """``own`` and ``owned`` summed so far, exact endings and the running
        tallies' playouts."""
        own: npt.NDArray[np.float64] = self.own.copy()
        owned: npt.NDArray[np.float64] = self.owned.copy()
        for tally in self.tallies:
            own += tally.own_black - tally.own_white
            owned += tally.own_black + tally.own_white
        return own, owned


@dataclass
class SearchLoop:
    """The parts one search works with (the driver builds one per search)."""

    config: SearchConfig
    params: TreeParams
    tree: SearchTree
    maker: NodeMaker
    engine: PlayoutEngine
    lock: threading.Lock
    threads: int
    seed_base: int
    counter: list[int]          # [next playout index]: the seed's one stream family
    search_komi: float
    tables: ScoreTables
    evaluator: Evaluator | None = None
    state: SearchState = field(init=False)
    _margins: npt.NDArray[np.float64] = field(init=False, repr=False)
    _crit: RootCriticality | None = field(init=False, default=None, repr=False)

    def run(self, board: Board, limits: Limits, batch: int, threshold: int,
            track_scores: bool = False) -> SearchState:
        """Search from ``board`` (the tree's root) until ``limits``; returns the
        state, with the playouts' ownership added to ``own``."""
        npts = board.size * board.size
        self.state = state = SearchState(npts)
        root = self.tree.root
        assert root is not None
        if track_scores:
            kept = self.tree.scores
            if kept is not None and kept[0] is root:     # the same root analysed again
                state.hist, state.child_scores = kept[1], kept[2]
            else:
                state.hist = np.zeros(2 * npts + 1)
                state.child_scores = ChildScores(root.k, board.komi,
                                                 board.to_move_code == BLACK_CODE)
                self.tree.scores = (root, state.hist, state.child_scores)
            self._margins = np.arange(2 * npts + 1, dtype=np.float64) - npts
        else:
            self.tree.scores = None    # visits without scores from here on
        self._crit = self.maker.criticality = self._root_criticality(root)
        started = time.perf_counter() if limits.started is None else limits.started
        deadline = None if limits.seconds is None else started + limits.seconds
        # mix = 1 is the rollouts alone: an evaluator would only be called in vain.
        evaluated = self.evaluator is not None and self.config.mix < 1
        work = self._evaluated_worker if evaluated else self._worker

        def worker() -> None:
            try:
                work(board, limits, deadline, batch, threshold)
            except BaseException as exc:  # noqa: BLE001 - re-raised in the caller
                state.error = exc
                state.stop = True

        if self.threads == 1:
            worker()
        else:
            _run_threads(worker, self.threads, state)
        self.maker.criticality = None      # this search's map: not the next one's nodes
        if state.error is not None:
            # A simulation cut short (Ctrl-C, an error) may have backed up
            # only part of its path: drop the tree rather than keep one
            # whose counts disagree.
            with self.lock:
                self.tree.drop()
            raise state.error
        for tally in state.tallies:
            state.own += tally.own_black - tally.own_white
            state.owned += tally.own_black + tally.own_white
        state.tallies = []
        if limits.callback is not None:
            limits.callback(state.done)
        return state

    def _finished(self, limits: Limits, deadline: float | None) -> bool:
        state = self.state
        if state.stop or (limits.stop is not None and limits.stop.is_set()) \
                or (limits.until is not None and limits.until.is_set()):
            return True
        if limits.visits is not None and state.done + state.pending >= limits.visits:
            return True
        if deadline is not None and state.done > 0:
            # The clock stops a search after its first visit: an answer of
            # no visits (no move, no win rate) is no analysis at all.
            now = time.perf_counter()
            if now >= deadline:
                return True
            if limits.early_stop and state.sims % 16 == 0 and state.done > 0:
                # Stop when the leader cannot be caught in the time left
                # (estimated from the rate so far).
                assert limits.seconds is not None
                elapsed = max(now - (deadline - limits.seconds), 1e-6)
                left = state.done / elapsed * (deadline - now)
                root = self.tree.root
                assert root is not None
                top = np.sort(root.n)[-2:] if len(root.n) > 1 else root.n
                if len(top) == 2 and top[1] - top[0] > left:
                    return True
        if limits.stop is not None and limits.visits is None and limits.until_full \
                and self.tree.full(self.config.max_nodes, self.config.max_memory):
            return True  # pondering: the tree is full
        return False

    def _root_criticality(self, root: TreeNode) -> RootCriticality | None:
        """The option ``criticality``'s state for a search of ``root``, from
        the prior the root was made with (``None`` when the option is off)."""
        if self.config.criticality <= 0:
            return None
        kept = self.tree.root_prior
        if kept is None or kept[0] is not root:
            kept = self.tree.root_prior = (root, np.array(root.prior, dtype=np.float64))
        return RootCriticality(self.config.criticality, kept[1])

    def _update_criticality(self) -> None:
        """Reshape the root's prior when due (under the lock)."""
        crit, state, root = self._crit, self.state, self.tree.root
        if crit is not None and root is not None and crit.due(state.sims):
            crit.update(root, state.tallies, state.sims)

    def _new_tally(self, board: Board) -> PlayoutTally:
        tally = PlayoutTally(board.size, self.config.rave,
                             criticality=self.config.criticality > 0)
        with self.lock:   # a snapshot may be reading the list
            self.state.tallies.append(tally)
        return tally

    def _leaf_visits(self, limits: Limits, batch: int) -> int:
        """Visits of the next leaf: ``batch``, or what is left of the visit
        limit once the visits backed up and in flight are counted."""
        if limits.visits is None:
            return batch
        state = self.state
        return max(1, min(batch, limits.visits - state.done - state.pending))

    def _compiled(self, root_board: Board) -> bool:
        """Whether this search's simulations may run in the core's loop
        (:func:`tree_simulate`): leaves worth their playouts' wins alone (no
        score in the value, no dynamic komi)."""
        return self.config.score_weight == 0 and self.search_komi == root_board.komi

    def _simulate_compiled(self, root_board: Board, scratch: Board, tally: PlayoutTally,
                           limits: Limits, deadline: float | None, batch: int,
                           threshold: int,
                           grow: Callable[..., tuple[TreeNode, bool]]) -> bool:
        """Simulations in the core's loop, up to the next multiple of 16 (where
        :meth:`_finished` looks at ``early_stop``), the visit limit or the
        deadline, new nodes made through ``grow`` (:meth:`_grow`); under the
        lock, which is let go while playouts run (as in :meth:`_simulate`),
        with one thread too: a lock kept through a chunk starved an analysis's
        reports, as the worker took it back at once (RESULTS.md, "Small cuts
        in the one-thread loop").  True when the next simulation needs Python
        (a game end in the tree)."""
        state, config, root = self.state, self.config, self.tree.root
        assert root is not None
        budget = -1 if limits.visits is None else limits.visits - state.done - state.pending
        # Threads share the visit and playout counters: each simulation
        # reserves its visits (and holds their virtual loss) as _simulate does.
        reserve = functools.partial(self._reserve, limits, deadline, batch) \
            if self.threads > 1 else None
        status, _, asked, _ = tree_simulate(
            root, root_board, scratch, self.tree.seen, self.engine, tally,
            self.params, threshold, not self.tree.full(config.max_nodes, config.max_memory),
            batch, budget, COMPILED_CHUNK - state.sims % COMPILED_CHUNK, self.seed_base,
            self.counter[0], config.scoring == "tromp-taylor", config.rave,
            math.inf if deadline is None else deadline, state.hist,
            None if state.child_scores is None else state.child_scores.sums, grow, self.lock,
            reserve, state, self.tree.replies)
        # The counts (done, playouts, sims, pending) were kept at each back-up.
        if reserve is None:
            self.counter[0] += asked
        return bool(status == SIMULATE_PYTHON)

    def _grow(self, root_board: Board, board: Board, nodes: list[TreeNode],
              path: list[int], virtual_loss: float = 0.0) -> tuple[TreeNode, bool]:
        """:func:`tree_simulate`'s ``grow``: the node of the descent's last edge
        (:meth:`SearchTree.grow`) and whether the tree may still grow."""
        # The lock let go while the node is made (its tactical reading, most
        # of the cost, without the GIL too) where _concurrent allows it.
        node = self.tree.grow(root_board, board, nodes, path, self.maker, self.params,
                              virtual_loss, self.lock if self._concurrent() else None)
        return node, not self.tree.full(self.config.max_nodes, self.config.max_memory)

    def _concurrent(self) -> bool:
        """Whether new nodes are made with the lock let go: several threads,
        and no user prior (which is called one node at a time, as with one
        thread; a tester saw up to 8 calls at once otherwise)."""
        return self.threads > 1 and self.maker.user_prior is None

    def _reserve(self, limits: Limits, deadline: float | None, batch: int
                 ) -> tuple[int, int] | None:
        """:func:`tree_simulate`'s ``reserve`` (called under the lock): the next
        simulation's first playout index and visits, counted as pending, or
        ``None`` when the limits are reached (as :meth:`_simulate` begins)."""
        if self._finished(limits, deadline):
            return None
        n = self._leaf_visits(limits, batch)
        first = int(self.counter[0])
        self.counter[0] += n
        self.state.pending += n
        return first, n

    def _worker(self, root_board: Board, limits: Limits, deadline: float | None, batch: int,
                threshold: int) -> None:
        """Simulations, one leaf at a time, until the limits: in the core's
        loop while :meth:`_compiled`, else (and for a simulation that ends
        the game in the tree) here."""
        tally = self._new_tally(root_board)
        scratch = root_board.copy(history=False)  # this thread's descent board
        compiled = self._compiled(root_board)
        grow = functools.partial(self._grow, root_board)
        python_next = False
        last_report = time.perf_counter()
        while True:
            if compiled and not python_next:
                with self.lock:
                    if self._finished(limits, deadline):
                        return
                    python_next = self._simulate_compiled(root_board, scratch, tally, limits,
                                                          deadline, batch, threshold, grow)
                    self._update_criticality()
            else:
                python_next = False
                if not self._simulate(root_board, scratch, tally, limits, deadline, batch,
                                      threshold):
                    return
                with self.lock:
                    self._update_criticality()
            if limits.callback is not None and time.perf_counter() - last_report > 0.05:
                last_report = time.perf_counter()
                limits.callback(self.state.done)

    def _simulate(self, root_board: Board, scratch: Board, tally: PlayoutTally, limits: Limits,
                  deadline: float | None, batch: int, threshold: int) -> bool:
        """One simulation in Python; False (and none) when the limits are reached."""
        with self.lock:
            if self._finished(limits, deadline):
                return False
            n = self._leaf_visits(limits, batch)
            first = self.counter[0]
            self.counter[0] += n
            # Virtual loss only for the other threads' descents.
            vl = float(n) if self.threads > 1 else 0.0
            # Pending before the descent: a new node is made with the lock
            # let go (as in the core's loop), and the other threads' limits
            # must count these visits meanwhile.
            self.state.pending += n
            try:
                descent = self.tree.descend(root_board, self.maker, self.params, vl,
                                            threshold, self.config.max_nodes,
                                            self.config.max_memory, scratch,
                                            lock=self.lock if self._concurrent() else None)
            except BaseException:
                self.state.pending -= n
                raise
        if descent.terminal is None:
            # As fastplay.playouts(leaf, db, n=n, seed=..., threads=1,
            # scoring=..., amaf=...) without a result to build.
            self.engine.run_into(tally, descent.leaf, n, self.seed_base, first=first,
                                 komi=self.search_komi,
                                 tromp_taylor=self.config.scoring == "tromp-taylor")
        with self.lock:
            self.state.pending -= n
            if descent.terminal is not None:
                value = self._terminal(descent, n)
            else:
                value = rollout_value(tally, descent.leaf, self.search_komi,
                                      self.config.score_weight, self.tables,
                                      self.config.rave)
                self._track(tally, descent)
            self._backup(descent, value)
        return True

    def _gather(self, root_board: Board, limits: Limits, deadline: float | None, batch: int,
                threshold: int) -> list[tuple[Descent, int, int]]:
        """Up to ``eval_batch`` descents (under the lock), each on a board of
        its own with the game's history, holding a virtual loss of its
        visits: (descent, first playout index, visits)."""
        gathered: list[tuple[Descent, int, int]] = []
        with self.lock:
            while len(gathered) < self.config.eval_batch \
                    and not self._finished(limits, deadline):
                n = self._leaf_visits(limits, batch)
                first = self.counter[0]
                self.counter[0] += n
                descent = self.tree.descend(root_board, self.maker, self.params, float(n),
                                            threshold, self.config.max_nodes,
                                            self.config.max_memory, history=True)
                gathered.append((descent, first, n))
                self.state.pending += n
        return gathered

    def _evaluated_worker(self, root_board: Board, limits: Limits, deadline: float | None,
                          batch: int, threshold: int) -> None:
        """Simulations with a user evaluator: gather leaves, roll out (if
        ``mix`` > 0), evaluate them in one call, back each up."""
        assert self.evaluator is not None
        tally = self._new_tally(root_board)
        tt = self.config.scoring == "tromp-taylor"
        mix = self.config.mix
        while True:
            gathered = self._gather(root_board, limits, deadline, batch, threshold)
            if not gathered:
                return
            rollouts: list[LeafValue | None] = []
            for descent, first, n in gathered:
                value = None
                if descent.terminal is None and mix > 0:
                    self.engine.run_into(tally, descent.leaf, n, self.seed_base, first=first,
                                         komi=self.search_komi, tromp_taylor=tt)
                    value = rollout_value(tally, descent.leaf, self.search_komi,
                                          self.config.score_weight, self.tables,
                                          self.config.rave)
                    if value.amaf is not None:
                        value.amaf = value.amaf.copy()   # the tally's next call overwrites it
                    with self.lock:
                        self._track(tally, descent)
                rollouts.append(value)
            leaves = [d.leaf for d, _, _ in gathered if d.terminal is None]
            # Read before the call: the evaluator may change the boards it gets.
            black = iter([leaf.to_move_code == BLACK_CODE for leaf in leaves])
            values: Iterator[float] = iter(call_evaluator(self.evaluator, leaves).tolist()
                                           if leaves else [])
            with self.lock:
                for (descent, _, n), rollout in zip(gathered, rollouts):
                    self.state.pending -= n
                    if descent.terminal is not None:
                        self._backup(descent, self._terminal(descent, n))
                    else:
                        self._backup(descent, mixed_value(rollout, float(next(values)),
                                                          next(black), n, mix))
                self._update_criticality()

    def _terminal(self, descent: Descent, batch: int) -> LeafValue:
        """The exact ending's value; its ownership and score join the state's."""
        assert descent.terminal is not None
        leaf = descent.leaf
        npts = leaf.size * leaf.size
        value = terminal_value(descent.terminal, batch, self.search_komi - leaf.komi, npts,
                               self.config.score_weight)
        owner = leaf.area_owner().ravel()
        self.state.own += owner * value.n
        self.state.owned += np.abs(owner) * value.n
        if self.state.hist is not None:
            margin = round(descent.terminal + leaf.komi)
            self.state.hist[int(margin) + npts] += value.n
            if self.state.child_scores is not None and descent.path:
                self.state.child_scores.add(descent.path[0], value.n, margin * value.n,
                                            margin * margin * value.n)
        return value

    def _track(self, tally: PlayoutTally, descent: Descent) -> None:
        """Add a rollout's scores to the tracked histograms (analysis only)."""
        state = self.state
        if state.hist is None:
            return
        hist = tally.hist
        state.hist += hist
        if state.child_scores is not None and descent.path:
            margins = self._margins
            state.child_scores.add(descent.path[0], float(hist.sum()), float(hist @ margins),
                                   float(hist @ (margins * margins)))

    def _backup(self, descent: Descent, value: LeafValue) -> None:
        """Add ``value`` to every edge of the path and take its virtual loss back
        (the compiled ``tree_backup``: counts, first-play tallies with the
        tree moves joined in, the sums)."""
        state = self.state
        state.playouts += value.playouts
        state.done += int(value.n)
        state.sims += 1
        tree_backup(descent.nodes, descent.path, value.n, value.black_value, value.black_wins,
                    value.search_wins, value.amaf, descent.virtual_loss, self.params)
        if descent.stopped is not None:
            descent.stopped.base += value.n     # counted on the edge into it: DESCEND_STOP


def _run_threads(worker: Callable[[], None], threads: int, state: SearchState) -> None:
    """Run ``worker`` on ``threads`` threads and wait for all of them
    (:func:`fastplay._threads.run_all`: on a Ctrl-C the search stops and
    every started worker is waited for before the tree is used again)."""

    def stop() -> None:
        state.stop = True

    run_all([worker] * threads, "fastplay-search", stop)
