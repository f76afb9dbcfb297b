"""Monte Carlo tree search in Python on top of :func:`fastplay.playouts`.

A top-down tour
---------------
:class:`MCTS` keeps one tree per game.  One *simulation* is

1. **select** -- from the root, repeatedly take the child maximising
   PUCT (default) or UCT, blended with RAVE, while holding a *virtual loss*
   on every edge taken so that other threads spread out;
2. **expand** -- an edge whose visit count has reached ``expand_threshold``
   playouts gets its own node (legal moves, priors from the pattern values);
3. **evaluate** -- a batch of ``batch`` playouts from the leaf runs in C with
   the GIL released (this is where the time goes, and where threads overlap),
   or, when two passes in a row end the game inside the tree, the exact
   Tromp-Taylor result;
4. **back up** -- wins, visits and the playouts' first-play (AMAF) tallies
   go up the path and the virtual loss is taken back.

Visits count *playouts*, not simulations, so ``run(board, playouts=5000)``
means what GNU Go's ``--mc-games-per-level`` style limits mean.

This module decides what the search does: which moves a node gets, their
priors, when an edge is expanded, what a playout is worth, the final
choice.  The arithmetic of steps 1 and 4 -- the argmax over a node's moves,
the legality and superko checks on the way down, the counts, first-play
tallies and cached values on the way up -- runs in the compiled core
(``TreeNode``, ``tree_descend`` and ``tree_backup`` in ``_core``'s section 5,
``_tree.pxi``).  Written with numpy it cost more than the playout itself
at one playout per leaf (a numpy call on a 40-move row costs about a
microsecond, and a simulation made some forty).

Formulas and their sources
--------------------------
PUCT (Rosin, "Multi-armed bandits with episode context", AMAI 2011, in the
form of Silver et al., "Mastering the game of Go without human knowledge",
Nature 2017)::

    a* = argmax_a  Q(s, a) + c_puct * P(s, a) * sqrt(N(s)) / (1 + N(s, a))

UCT (Kocsis and Szepesvari, "Bandit based Monte-Carlo planning", ECML 2006,
the UCB1 bound of Auer et al. 2002)::

    a* = argmax_a  Q(s, a) + c_uct * sqrt(ln N(s) / N(s, a))

(unvisited moves first, highest prior first).  ``Q`` is blended with the
RAVE value ``Q~`` from all-moves-as-first tallies (Gelly and Silver, "Combining
online and offline knowledge in UCT", ICML 2007) with the minimum-MSE
schedule of Gelly and Silver, "Monte-Carlo tree search and rapid action value
estimation in computer Go", AIJ 2011::

    Q* = (1 - beta) Q + beta Q~,   beta = n~ / (n + n~ + n n~ / rave_equiv)

``P`` is the move's weight raised to ``prior_power`` and normalised.  The
weight is, on 9x9 by default, the learned prior of :mod:`fastplay.prior`
(Coulom's 2007 model of GNU Go's moves from the same local context as the
playouts, the line and the distances to the last two moves), taken as it
is (power 1: it is a fitted probability).  Elsewhere, or with
``prior_table=None``, it is the pattern value of the move
(:meth:`PatternDatabase.move_values`, the weight GNU Go's playout policy
would give it), whose square root (power 0.5) keeps a capture worth 20000
from drowning every quiet move worth 1.  On a bare edge (no stone within two
lines) first- and second-line moves get a smaller prior (``LINE_PRIOR``):
patterns give every point of an empty board the same value.  The pass has no
first-play tally; it takes the mean tally of the other moves, since AMAF
values run below tree values in the opening and an unblended pass looked
better than every move (it won the empty board at 1000 playouts).  With a
playout limit smaller than a few playouts per root move the batch shrinks
(down to 1 on 9x9, 3 on 19x19), so a tiny budget still follows the priors.
An unvisited move without RAVE data starts at the parent's mean value minus
``fpu_reduction`` ("first play urgency", as in Leela Zero).

Ladder knowledge (on by default).  Playouts do not read ladders: a string
chased along a ladder keeps a good playout value for many moves; in 41
games lost to GNU Go level 10, fastplay played 201 moves that a ladder
reader calls bad (GNU Go 14).  On every new node a ladder reader in
the core (:meth:`Board.tactical_moves`, after GNU Go's simple ladder
reading) marks each move *bad* (it leaves the mover's string in atari or in
a working ladder), *save* (rescues a string in atari) or *capture* (ataris a
string that cannot escape).  ``ladder_prior`` divides the pattern value of a
bad move and multiplies the others before the prior is formed, and
``ladder_visits`` gives them virtual lost or won playouts in both ``Q`` and
the RAVE value (in ``Q`` alone they were swamped by thousands of first-play
tallies).  Against GNU Go level 10 (100-game matches, 5,000 playouts) it
won 71, 60, 59, 68 and 66 games, 64.8 % in all, against 59, 59 and 60
without (59.3 %): a gain within the noise of 800 games, but in its favour,
for 9 % of the search's speed on 9x9 (``benchmarks/RESULTS.md``).

Optional knowledge, off by default (matches against GNU Go level 10 showed
no gain: prior virtual playouts 8/20, score weighting 57/100, the fight
prior 56/100, against 59/100 without; race reading 59/100, race reading
with bonuses by stake 64/100, dynamic komi 24/56, against 64.8 % with the
ladder knowledge alone; ``benchmarks/RESULTS.md``):
``race_reading`` adds the verdicts of a capturing-race reader in the core
(:meth:`Board.race_moves`: strings of two to four liberties) to the ladder
reader's, with the same prior factor and virtual playouts;
``stake_stones`` scales that bonus by the stones at stake (in a lost game a
one-stone ladder capture took the same bonus as the move that decided an
eight-stone race, and was chosen); ``dynamic_komi`` raises the komi
against a side whose searches see mostly wins, so that it keeps its margin
(Baudis 2011; meant for handicap games: in even 9x9 games against GNU Go it
won by wider margins and lost far more often);
``fight_prior`` raises the prior of the liberties of strings with one or
two liberties (capturing races, where the lost games are decided);
``even_visits`` and ``pattern_visits`` add prior knowledge as virtual playouts to ``Q`` (Gelly
and Silver 2007, section 5: the "even game" prior at 0.5 plus a value that
rises with the move's relative pattern prior), and ``score_weight`` blends
the score margin into each playout's value as Fuego's score modification
does.  An opening book of one position: Black's first move on an empty 9x9
board is E5 (``MCTS._book_move``).

Rules inside the tree
---------------------
Positional superko is checked on every tree move against the game's
positions and the path.  A pass is an ordinary child; two passes in a row end
the game and are scored Tromp-Taylor (every stone on the board counts), so
the search never passes while a dead enemy stone would still count as alive
if the opponent passed too (shared case 29).  Moves into the mover's own
true eyes are never candidates, nor is the pass in the opening (fewer than a
quarter of the points occupied) unless the opponent has just passed.  As a
last safeguard the final choice does not pass while the playouts' ownership
says that points Tromp-Taylor gives the opponent are really ours (strings in
seki excepted: playouts always break a seki).

The final choice is the most visited move, ties broken by win rate, then
prior.  It becomes a pass in a *final position* (``MCTS._settled``): every
string lives by the ownership or is in seki, every empty point is
Tromp-Taylor territory of the colour the playouts give it or a shared
liberty of a seki, and the safeguard allows passing.  No move can then
change the area score, whatever the (seki-blind) win rates say; GNU Go
passes there too (shared case 28).
"""

from __future__ import annotations

import functools
import math
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from fastplay.board import Board, format_vertex, parse_color
from fastplay._core import BLACK as BLACK_CODE
from fastplay._core import TACTIC_NONE
from fastplay._core import PlayoutEngine, PlayoutTally
from fastplay._core import DESCEND_END, DESCEND_EXPAND, TreeNode, TreeParams, prior_node
from fastplay._core import expansion_moves, tree_backup, tree_descend, true_eyes
from fastplay.montecarlo import Scoring
from fastplay.montecarlo import _engine as playout_engine
from fastplay.patterns import geometry_table
from fastplay.prior import LearnedPrior, load_prior

__all__ = ["MCTS", "SearchResult", "ChildStats", "eye_mask", "in_seki"]

#: Exploration constants.  Visits are counted in playouts, so the PUCT term is
#: about ``1/sqrt(batch)`` of what it would be with visits counted in
#: simulations; the defaults were tuned on the tactical tests and the
#: 9x9 regression suite with that in mind.
C_PUCT = 1.0
C_UCT = 0.5

#: Playouts per simulation (one call of the playout engine) and search
#: thread; ``None`` in :class:`MCTS` picks this one (or the size's floor,
#: below, if larger).  Against GNU Go level 10 at 5,000 playouts per move
#: (``benchmarks/RESULTS.md``): 8 per leaf (625 simulations, a shallow tree)
#: won 40 % of 100 games, 4 won 64.8 % of 500, 2 won 68 of 100, and 1 won
#: 66.3 % of 900.  One simulation per playout became affordable when the
#: tree's inner loops moved into the core (``_tree.pxi``): before, the numpy
#: selection and back-up took 58 of the 72 us per playout on 9x9.
DEFAULT_BATCH = 1

#: Seconds a move costs beyond its search budget (GTP, tree set-up, the
#: final choice), kept in reserve under a sudden-death clock (``_budget``):
#: 4x the 0.4-0.9 ms measured for a search of 0.1 ms on 9x9-19x19.
MOVE_OVERHEAD = 0.002

#: Playouts per move when neither a limit nor a clock is given.
DEFAULT_PLAYOUTS = 5000

#: With a playout limit, the batch shrinks so that the root's moves get at
#: least this many simulations' worth of playouts on average: with fewer
#: playouts than moves, 4 playouts per leaf would only visit the first
#: moves PUCT tries, while 1 per leaf lets the priors steer the budget.
SIMS_PER_ROOT_MOVE = 4

#: ... but never below ``ceil(size * size / BATCH_FLOOR_POINTS)`` playouts per
#: leaf (1 on 9x9 and 13x13, 3 on 19x19, 5 on 25x25).  The floor dates from
#: the numpy tree, whose simulation cost two or three 19x19 playouts (one
#: playout per leaf ran at 29-40 % of the bare rate on 19x19).  With the
#: compiled tree one per leaf runs at 62 % (mid-game) and 76 % (empty) on
#: 19x19, and 3 per leaf at 89-96 % (``benchmarks/RESULTS.md``); it stays
#: until a 19x19 match says which plays better.
BATCH_FLOOR_POINTS = 128

#: Board size on which ``prior_table="auto"`` uses the bundled learned prior
#: (``fastplay.prior``, fitted to GNU Go's moves on 9x9); other sizes keep
#: the playout values, since no match has measured the learned prior there.
AUTO_PRIOR_SIZE = 9


@functools.cache
def _bundled_prior() -> tuple[LearnedPrior, PlayoutEngine, bool]:
    """The learned 9x9 prior, its table in a core engine, whether it has
    factors (built once per process)."""
    prior = load_prior("gnugo9x9")
    return prior, PlayoutEngine(prior.table, geometry_table()), prior.has_factors


def _recent(board: Board) -> tuple[int, int]:
    """Flat indices of the last move and of the one before it (-1: a pass or none)."""
    history = board.history_moves()
    moves = [v for _, v in history[-2:]]
    moves = [-1] * (2 - len(moves)) + moves
    return moves[1], moves[0]


#: Prior factors of first- and second-line moves with no stone within two
#: lines (a 5x5 window): patterns see nothing there, so every empty point has
#: the same value and the tie would go to the corner, first in scan order.
#: The same knowledge as Pachi's 1st/2nd-line malus (``prior.c``, "b19").
LINE_PRIOR = {1: 0.1, 2: 0.5}

#: Ladder knowledge (module docstring): the factor on the pattern value of a
#: save or a capture (its inverse on a bad move), and the virtual playouts
#: (lost for a bad move, won otherwise).  Picked once, not tuned: a factor
#: of about 3 on the prior after the square root, and virtual playouts worth
#: a tenth of a typical root move's share of 5,000 playouts.  Against GNU Go
#: level 10: 64.8 % over 500 games with them, 59.3 % over 300 without;
#: virtual losses alone (no virtual wins) 61 % over 100 (RESULTS.md).
#: Largest ``batch`` accepted: one batch is one engine call, which a stop
#: request or the clock cannot interrupt.
MAX_BATCH = 4096
LADDER_PRIOR = 10.0
LADDER_VISITS = 50.0
#: Dynamic komi (``dynamic_komi`` > 0): the extra komi against the searching
#: side grows by one step after a search whose best value is above
#: KOMI_RAISE and shrinks (never below 0) after one below KOMI_LOWER
#: (Baudis, "Balancing MCTS by dynamically adjusting the komi value", ICGA
#: Journal 34(3), 2011: value-based situational compensation).
KOMI_RAISE = 0.6
KOMI_LOWER = 0.45
#: Stones at stake from which a tactical code gets the whole ``ladder_prior``
#: and ``ladder_visits``; a smaller string gets the share stones / STAKE_STONES.
STAKE_STONES = 3

#: Seconds between two looks at the search threads' flags.
POLL_SECONDS = 0.0002

#: Ownership beyond which a point counts as settled (see ``MCTS._settled``).
SETTLED = 0.5

#: Playouts of the search after a pass that confirms a settled position is
#: final (``MCTS._final``); 10-40 ms on 9x9, only at the end of a game.
FINAL_PLAYOUTS = 500

#: Time kept for that probe out of a time limit S (``run(seconds=)`` or the
#: clock's budget): 5 % of S, at least 10 ms, at most S / 4.  The main search
#: stops that much earlier, a probe stops at the limit, and with less than
#: ``FINAL_MIN_SECONDS`` left there is no probe.
FINAL_RESERVE = 0.05
FINAL_RESERVE_MIN = 0.01
FINAL_MIN_SECONDS = 0.002


@dataclass(frozen=True)
class ChildStats:
    """One root move after a search.

    Attributes:
        move: GTP vertex or ``"pass"``.
        visits: playouts through this move.
        winrate: win rate of the side to move at the root after this move, in [0, 1]
            (NaN when unvisited).
        prior: the move's prior probability (pattern value, normalised).
        pv: principal variation starting with ``move`` (most-visited line).
    """

    move: str
    visits: int
    winrate: float
    prior: float
    pv: list[str]


@dataclass(frozen=True)
class SearchResult:
    """What :meth:`MCTS.run` found.

    Attributes:
        best_move: GTP vertex, ``"pass"`` or ``"resign"``.
        winrate: estimated win rate of the side to move (of the best move), in [0, 1].
        children: root moves with visits, most visited first.
        ownership: ``float32[size, size]`` in [-1, 1], +1 Black, row 0 the top
            row: mean over the playouts (and exact endings) of this search.
        playouts: playouts run by this search (reused visits excluded).
        seconds: wall time of the search, the final choice included.
        simulations: tree descents of this search.
        root_visits: evaluations through the root, reused ones included:
            playouts, plus ``batch`` for each descent that ended the game
            inside the tree (two passes), so it can exceed ``playouts``
            even without reuse.
        nodes: nodes in the tree after the search.
    """

    best_move: str
    winrate: float
    children: list[ChildStats]
    ownership: npt.NDArray[np.float32]
    playouts: int
    seconds: float
    simulations: int = 0
    root_visits: int = 0
    nodes: int = 0

    @property
    def pv(self) -> list[str]:
        """The principal variation from the root (that of the most visited move)."""
        return list(self.children[0].pv) if self.children else []

    @property
    def playouts_per_second(self) -> float:
        """Playouts of this search per second of wall time."""
        return self.playouts / self.seconds if self.seconds > 0 else float("inf")


def eye_mask(grid: npt.NDArray[np.int8], color: int) -> npt.NDArray[np.bool_]:
    """Empty points that are true one-point eyes of ``color`` (``bool[size, size]``).

    ``grid`` is :meth:`Board.to_numpy` (1 Black, -1 White); ``color`` is +1 for
    Black, -1 for White.  An eye has only own stones or the edge orthogonally,
    and at most one enemy stone diagonally (none on the edge or in the
    corner) -- the usual playout rule (e.g. Pachi's ``board_is_eyelike`` plus
    the false-eye test).  Filling such a point never helps under area scoring.
    """
    return true_eyes(grid, color)


@functools.cache
def _orth_table(size: int) -> npt.NDArray[np.intp]:
    """``intp[size*size, 4]``: the orthogonal neighbours of each point (flat),
    ``size * size`` standing for off the board."""
    off = size * size
    rows, cols = np.divmod(np.arange(off), size)
    steps = ((-1, 0), (1, 0), (0, -1), (0, 1))
    inside = [(0 <= rows + dr) & (rows + dr < size) & (0 <= cols + dc) & (cols + dc < size)
              for dr, dc in steps]
    return np.stack([np.where(ok, (rows + dr) * size + cols + dc, off)
                     for ok, (dr, dc) in zip(inside, steps)], axis=1)


# A position in the tree: moves, priors and edge statistics as numpy rows
# (fastplay._core.TreeNode; its selection and back-up are compiled).
Node = TreeNode


@dataclass
class _Clock:
    main_time: float = 0.0
    byo_yomi_time: float = 0.0
    byo_yomi_stones: int = 0
    left: dict[int, tuple[float, int]] = field(default_factory=dict)

    @property
    def active(self) -> bool:
        return self.main_time > 0 or self.byo_yomi_time > 0


class MCTS:
    """Tree search over pattern-driven playouts.

    Args:
        db: a :class:`fastplay.PatternDatabase` (playout policy and priors).
        threads: search threads (>= 1).  Each runs its batches of playouts in
            C without the GIL, so two threads use two cores; results are then
            no longer reproducible.
        seed: non-negative integer; with ``threads=1`` and a playout limit the
            search is a pure function of the seed and the calls made.
            ``None`` draws one from the operating system.
        policy: ``"puct"`` (default) or ``"uct"``.
        c_puct, c_uct: exploration constants of the two formulas.
        rave: use AMAF tallies (RAVE); ``rave_equiv`` is the visit count (in
            playouts) at which a move's own value and its RAVE value weigh
            the same.
        batch: playouts per simulation, at most ``MAX_BATCH`` = 4096 and
            never more than a search's playout limit (``None``:
            ``DEFAULT_BATCH`` = 1 per thread, at least 3 on 19x19 and 5 on
            25x25; see ``_batch``).
        expand_threshold: playouts an edge needs before it gets a node
            (``None``: ``2 * batch``, i.e. expand on the third visit; each
            expansion costs about as much as three 9x9 playouts).
        prior_power: exponent applied to the weights to form priors; ``None``
            (the default): 1 for a learned prior (a fitted probability model),
            0.5 for the playout values.
        pass_prior: prior probability of the pass.
        fpu_reduction: first-play urgency reduction (win-rate units).
        scoring: playout scoring, ``"tromp-taylor"`` (default, the rules the
            tree ends games with) or ``"gnugo"``.
        resign_threshold: resign when the best win rate stays below this for
            ``resign_moves`` searches in a row; ``None`` never resigns.  Never
            before move ``size * size // 4`` (the opening).
        default_playouts: playouts per move when ``run`` gets no limit and no
            clock was set.
        max_nodes: the tree stops growing (searches keep refining the
            existing nodes) beyond this many nodes, bounding memory.
        even_visits: virtual playouts at win rate 0.5 given to every move of
            a new node ("even game" prior; 0 = off).
        pattern_visits: virtual playouts given to every non-pass move at the
            value ``r / (1 + r)``, ``r`` = the move's prior over the mean
            prior (0 = off).  Neither counts as a visit anywhere.
        score_weight: ``s`` in a playout's value ``(1 - s) win + s (1/2 +
            margin / (2 points))`` (0 = plain wins; see ``_value``).  The search
            follows these values; reported win rates stay plain win rates.
        book: play the one-position opening book (E5 on an empty 9x9 board).
        fight_prior: factor on the pattern value, before the prior is formed,
            of every empty point next to a string (either colour) with one or
            two liberties: the moves of capturing races, which the playouts
            misjudge (1 = off; see ``_fight_points``).
        ladder_prior: factor on the pattern value of a move that saves a
            string in atari or captures one by a ladder, and its inverse on a
            move that leaves the mover's string in atari or in a working
            ladder (:meth:`Board.tactical_moves`; 1 = off; default
            ``LADDER_PRIOR`` = 10).
        ladder_visits: virtual playouts given to the same moves, lost for the
            bad ones and won for the others, in both ``Q`` and the RAVE value
            (0 = off; default ``LADDER_VISITS`` = 50): playouts do not read
            ladders, so a failed escape keeps a good playout value.
        race_reading: also mark, with the same prior factor and virtual
            playouts, the moves that decide a capturing race between strings
            of two to four liberties (:meth:`Board.race_moves`): saves of a
            string the opponent would capture by moving first, captures of
            one its owner would save by moving first.  Off by default.
        stake_stones: stones at stake (the string a tactical code is about)
            from which the code gets the whole ``ladder_prior`` and
            ``ladder_visits``; a smaller string gets the share stones /
            ``stake_stones`` of both (the prior factor ``ladder_prior **
            share``).  0 (the default): every code gets the whole of both.
        dynamic_komi: points by which the komi against the searching side
            rises after a search whose best value is above ``KOMI_RAISE``
            (0.6) and falls, never below the game's, after one below
            ``KOMI_LOWER`` (0.45); capped at a quarter of the board's points
            (Baudis 2011, value-based situational compensation).  The
            playouts and values use that komi; win rates, resignation and
            reports stay those of the game's komi.  0 = off (the default).
        prior_table: the weights that form the priors in place of the
            playout database's values: ``"auto"`` (the default) is the
            bundled learned prior ``"gnugo9x9"`` on 9x9 boards and the
            playout values on other sizes; ``None`` is the playout values
            everywhere; otherwise anything :func:`fastplay.prior.load_prior`
            takes (a bundled name, an ``.npz`` file, a ``uint32[1108, 256]``
            table indexed like a compiled pattern table).  The playouts
            always use ``db``.

    Raises:
        TypeError: ``db`` is not a :class:`fastplay.PatternDatabase`, or a
            numeric option is not a number.
        ValueError: an out-of-range option.
    """

    #: True for the probe searches of ``_final``, which do not probe again.
    _probing = False

    def __init__(self, db: Any, *, threads: int = 1, seed: int | None = None,
                 policy: str = "puct", c_puct: float = C_PUCT, c_uct: float = C_UCT,
                 rave: bool = True, rave_equiv: float = 1000.0, batch: int | None = None,
                 expand_threshold: int | None = None, prior_power: float | None = None,
                 pass_prior: float = 0.01, fpu_reduction: float = 0.1,
                 scoring: Scoring = "tromp-taylor", resign_threshold: float | None = 0.1,
                 resign_moves: int = 2, default_playouts: int = DEFAULT_PLAYOUTS,
                 max_nodes: int = 200_000, even_visits: float = 0.0,
                 pattern_visits: float = 0.0, score_weight: float = 0.0,
                 book: bool = True, fight_prior: float = 1.0,
                 ladder_prior: float = LADDER_PRIOR,
                 ladder_visits: float = LADDER_VISITS, race_reading: bool = False,
                 stake_stones: int = 0, dynamic_komi: float = 0.0,
                 prior_table: Any = "auto") -> None:
        # The option names, for the probe searches of _final: each is also an
        # attribute, read when a probe is built (the search's current values).
        self._settings = tuple(k for k in locals() if k not in ("self", "db"))
        from fastplay.patterns import PatternDatabase

        if not isinstance(db, PatternDatabase):
            raise TypeError(f"db must be a fastplay.PatternDatabase, not {type(db).__name__}")
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ValueError(f"threads must be a positive integer, not {threads!r}")
        if seed is not None and (not isinstance(seed, int) or seed < 0):
            raise ValueError(f"seed must be a non-negative integer or None, not {seed!r}")
        if policy not in ("puct", "uct"):
            raise ValueError(f"policy must be 'puct' or 'uct', not {policy!r}")
        if scoring not in ("tromp-taylor", "gnugo"):
            raise ValueError(f"scoring must be 'tromp-taylor' or 'gnugo', not {scoring!r}")
        if batch is not None and (isinstance(batch, (bool, np.bool_))
                                  or not isinstance(batch, (int, np.integer))
                                  or not 1 <= batch <= MAX_BATCH):
            # Bounded: one batch is one uninterruptible engine call, and a
            # huge one would overrun any clock.
            raise ValueError(f"batch must be an integer in [1, {MAX_BATCH}], not {batch!r}")
        for name, value, low, high in (("c_puct", c_puct, 0.0, 1e6), ("c_uct", c_uct, 0.0, 1e6),
                                       ("fpu_reduction", fpu_reduction, -1.0, 1.0),
                                       ("even_visits", even_visits, 0.0, 1e12),
                                       ("pattern_visits", pattern_visits, 0.0, 1e12),
                                       ("score_weight", score_weight, 0.0, 0.999),
                                       ("fight_prior", fight_prior, 1e-6, 1e6),
                                       ("ladder_prior", ladder_prior, 1.0, 1e6),
                                       ("ladder_visits", ladder_visits, 0.0, 1e12)):
            # Bounded: an infinite constant turns the cached scores into NaN,
            # a power above 4 overflows with values up to 2**32, and a score
            # weight of 1 would drop the wins.
            if not low <= _number(name, value) <= high:
                raise ValueError(f"{name} must be a number in [{low:g}, {high:g}], not {value!r}")
        if not 1e-3 <= _number("rave_equiv", rave_equiv) <= 1e12:
            raise ValueError(f"rave_equiv must be a number of playouts in [0.001, 1e12], "
                             f"not {rave_equiv!r}")
        if not 0 < _number("pass_prior", pass_prior) < 1:
            raise ValueError(f"pass_prior must be in (0, 1), not {pass_prior!r}")
        if resign_threshold is not None \
                and not 0 <= _number("resign_threshold", resign_threshold) <= 1:
            raise ValueError(f"resign_threshold must be a win rate in [0, 1] or None, "
                             f"not {resign_threshold!r}")
        if expand_threshold is not None:
            _integer("expand_threshold", expand_threshold, 1, 10**6)
        # One search below 1 playout, or resigning after 0 searches, means
        # nothing: a tester got a move without a search and resignations
        # on the empty board.
        _integer("resign_moves", resign_moves, 1, 10**6)
        _integer("default_playouts", default_playouts, 1, 2**53)
        _integer("max_nodes", max_nodes, 1, 10**9)
        self.db = db
        # The core's playout engine, called directly: fastplay.playouts() adds
        # argument checks and summary statistics (score histogram, mean, sd)
        # that the search does not use, about 15-20 us per call.  The engine
        # is the one fastplay.playouts() caches for this database (building
        # one costs about 30 ms).
        self._engine: PlayoutEngine = playout_engine(db)
        self.prior_table = prior_table
        # The engine whose move_values() weigh new nodes' moves (None: the
        # playout engine); "auto" takes the bundled one on AUTO_PRIOR_SIZE only.
        self._auto_prior = isinstance(prior_table, str) and prior_table == "auto"
        # (prior, its table's engine, whether it has line or distance factors)
        self._learned: tuple[LearnedPrior, PlayoutEngine, bool] | None = None
        if self._auto_prior:
            self._learned = _bundled_prior()
        elif prior_table is not None:
            learned = load_prior(prior_table)
            self._learned = (learned, PlayoutEngine(learned.table, geometry_table()),
                             learned.has_factors)
        self.threads = threads
        self.seed = seed
        self.policy = policy
        self.c_puct = float(c_puct)
        self.c_uct = float(c_uct)
        self.rave = bool(rave)
        self.rave_equiv = float(rave_equiv)
        self.batch = batch
        self.expand_threshold = expand_threshold
        if prior_power is not None and not 0.0 <= _number("prior_power", prior_power) <= 4.0:
            raise ValueError(f"prior_power must be in [0, 4], not {prior_power!r}")
        self.prior_power = None if prior_power is None else float(prior_power)
        self.pass_prior = float(pass_prior)
        self.fpu_reduction = float(fpu_reduction)
        self.scoring = scoring
        self.resign_threshold = resign_threshold
        self.resign_moves = int(resign_moves)
        self.default_playouts = int(default_playouts)
        self.max_nodes = int(max_nodes)
        self.score_weight = float(score_weight)
        self.fight_prior = float(fight_prior)
        self.ladder_prior = float(ladder_prior)
        self.ladder_visits = float(ladder_visits)
        if not isinstance(race_reading, (bool, np.bool_)):
            raise ValueError(f"race_reading must be True or False, not {race_reading!r}")
        self.race_reading = bool(race_reading)
        if isinstance(stake_stones, (bool, np.bool_)) \
                or not isinstance(stake_stones, (int, np.integer)) or not 0 <= stake_stones <= 361:
            raise ValueError(f"stake_stones must be an integer in [0, 361], not {stake_stones!r}")
        self.stake_stones = int(stake_stones)
        if not 0.0 <= _number("dynamic_komi", dynamic_komi) <= 10.0:
            raise ValueError(f"dynamic_komi must be a number of points in [0, 10], "
                             f"not {dynamic_komi!r}")
        self.dynamic_komi = float(dynamic_komi)
        self._extra_komi: dict[int, float] = {}   # by colour code of the searching side
        self._search_komi = 0.0                   # the komi the playouts of this search use
        self._virtual = even_visits > 0 or pattern_visits > 0 or ladder_visits > 0
        self._params = self._tree_params()
        self.book = bool(book)
        self._score_values: dict[tuple[int, float], npt.NDArray[np.float64]] = {}
        self.even_visits = float(even_visits)
        self.pattern_visits = float(pattern_visits)
        self._seed_base = seed if seed is not None else secrets.randbits(62)
        # Playouts run so far by this object: each simulation's playouts are
        # the next indices of the one random stream family of ``_seed_base``
        # (PlayoutEngine.run's ``first``), so the engine derives its key once.
        self._playout_index = 0
        self._lock = threading.Lock()
        self._in_use = threading.Lock()     # held by run(): one search at a time
        self._ponder_lock = threading.RLock()   # guards the ponder thread's hand-over
        self._root: Node | None = None
        self._root_board: Board | None = None
        self._root_history: list[tuple[int, int]] = []
        self._seen: set[int] = set()
        self._nodes = 0
        self._low_searches = 0
        self._clock = _Clock()
        self._ponder_thread: threading.Thread | None = None
        self._ponder_stop = threading.Event()
        self._ponder_error: BaseException | None = None

    # -- game and clock ----------------------------------------------------------

    def new_game(self) -> None:
        """Forget the tree, the resignation counter and the clock's time left."""
        self.ponder_stop()
        self._root = None
        self._root_board = None
        self._nodes = 0
        self._low_searches = 0
        self._clock.left.clear()
        self._extra_komi.clear()

    def set_time(self, main_time: float, byo_yomi_time: float, byo_yomi_stones: int) -> None:
        """GTP ``time_settings``: main time and Canadian byo-yomi, in seconds and stones.

        ``byo_yomi_time > 0`` with ``byo_yomi_stones == 0`` means no time
        limit, as GTP 2 (section 6.3.1) says.  Raises ``ValueError`` for a
        negative value.
        """
        if min(main_time, byo_yomi_time, byo_yomi_stones) < 0:
            raise ValueError("time settings must not be negative")
        if byo_yomi_time > 0 and byo_yomi_stones == 0:
            self._clock = _Clock()
            return
        self._clock = _Clock(float(main_time), float(byo_yomi_time), int(byo_yomi_stones))

    def time_left(self, color: str, seconds: float, stones: int) -> None:
        """GTP ``time_left``: ``seconds`` left for ``color``; ``stones`` > 0 in byo-yomi."""
        self._clock.left[parse_color(color)] = (float(seconds), int(stones))

    def _budget(self, board: Board) -> float | None:
        """Seconds to think on this move under the clock, or ``None`` without one.

        Main time is spread over the moves expected to remain, with more
        per move in the middle game (where 9x9 games are decided) than in the
        opening or the endgame; in byo-yomi the period is shared by the stones
        left.  A safety margin keeps every answer inside the clock.
        """
        clock = self._clock
        if not clock.active:
            return None
        color = board.to_move_code
        npts = board.size * board.size
        remaining, stones = clock.left.get(color, (clock.main_time, 0))
        if stones == 0 and remaining <= 0 and clock.byo_yomi_stones > 0:
            remaining, stones = clock.byo_yomi_time, clock.byo_yomi_stones
        margin = 0.3 + 0.05 * remaining
        if stones > 0:
            budget = remaining / stones
        else:
            # Plies: 99 on 9x9, 174 on 13x13, 337 on 19x19 (0.7 points + 30
            # was short: a tester's 13x13 game took 183 plies).
            game_length = 0.85 * npts + 30
            move = board.move_number
            # Never plan for fewer than a quarter of the points: games run
            # long (a 540-ply 19x19 game overran 5 s with a tenth).
            ours_left = max((game_length - move) / 2, 0.25 * npts)
            phase = move / game_length
            weight = 0.7 if phase < 0.1 else (1.5 if phase < 0.6 else 1.0)
            # Each move also costs time outside its budget (GTP, tree
            # set-up, the answer): keep that for the moves to come.
            margin += MOVE_OVERHEAD * ours_left
            budget = weight * max(remaining - MOVE_OVERHEAD * ours_left, 0.0) / ours_left
            if clock.byo_yomi_stones > 0:
                budget += 0.5 * clock.byo_yomi_time / clock.byo_yomi_stones
        # The floor shrinks with the time left, so that a sudden-death clock
        # kept by the engine itself is never overrun (a flat 20 ms floor
        # overran 2 s on 13x13 by 0.3 s once the margin was reached).
        floor = max(1e-4, min(0.02, remaining / 100))
        return max(floor, min(budget, remaining - margin))

    # -- pondering ---------------------------------------------------------------

    def ponder_start(self, board: Board) -> None:
        """Search ``board`` (the opponent to move) in a background thread until
        :meth:`ponder_stop`; the next :meth:`run` reuses the subtree of the
        move actually played.  Raises ``RuntimeError`` while :meth:`run`
        searches in another thread."""
        if not self._in_use.acquire(blocking=False):
            raise RuntimeError("this MCTS is already searching in another thread")
        try:
            # Held while the old ponder stops and the new one starts, so that
            # no run() and no other ponder_start can slip in between (a
            # ponder thread must never be lost: nothing would stop it).
            with self._ponder_lock:
                self.ponder_stop()
                self._ponder_stop.clear()
                self._ponder_error = None
                position = board.copy()

                def work() -> None:
                    try:
                        self._search(position, None, None, self._ponder_stop, None)
                    except BaseException as exc:  # noqa: BLE001 - reported by ponder_stop
                        self._ponder_error = exc

                thread = threading.Thread(target=work, name="fastplay-ponder", daemon=True)
                self._ponder_thread = thread
                thread.start()
        finally:
            self._in_use.release()

    def ponder_stop(self) -> None:
        """Stop pondering (no-op when not pondering); waits for the thread to finish."""
        with self._ponder_lock:
            thread = self._ponder_thread
            if thread is None:
                return
            self._ponder_stop.set()
            thread.join()
            self._ponder_thread = None
            if self._ponder_error is not None:
                error, self._ponder_error = self._ponder_error, None
                # A failed ponder must not kill the game: drop the tree it
                # may have left half-built.
                self._root = None
                if not isinstance(error, Exception):
                    raise error

    # -- search ------------------------------------------------------------------

    def run(self, board: Board, playouts: int | None = None, seconds: float | None = None, *,
            callback: Callable[[int], None] | None = None) -> SearchResult:
        """Search ``board`` (unchanged) for its side to move and return the result.

        Args:
            board: the position, with its history (for superko and tree reuse).
            playouts: stop after this many new playouts.
            seconds: stop after this much wall time (seconds), the final
                choice included (the tree search stops ``FINAL_RESERVE``
                earlier, for the check of a final position, ``_final``).
                With both limits the first reached stops.  A clock set by
                :meth:`set_time` caps either limit (its budget for this move,
                :meth:`_budget`), and decides alone without them; with no
                limit and no clock, ``default_playouts``.
            callback: called from the searching thread with the playouts done
                so far, about every 50 ms (for progress bars).

        Raises:
            TypeError: ``board`` is not a :class:`fastplay.Board`, ``playouts``
                is not an integer or ``seconds`` not a number.
            ValueError: ``playouts < 1``, or ``seconds`` not finite or ``<= 0``.
            RuntimeError: another thread is in ``run`` on this object (one
                search at a time; ``threads=`` makes one search use several).
        """
        if not isinstance(board, Board):
            raise TypeError(f"board must be a fastplay.Board, not {type(board).__name__}")
        if playouts is not None:
            if isinstance(playouts, bool) or not isinstance(playouts, (int, np.integer)):
                raise TypeError(f"playouts must be an integer, not {type(playouts).__name__}")
            if playouts < 1:
                raise ValueError(f"playouts must be >= 1, not {playouts}")
            playouts = int(playouts)
        if seconds is not None:
            if isinstance(seconds, bool) or not isinstance(seconds, (int, float, np.integer,
                                                                     np.floating)):
                raise TypeError(f"seconds must be a number, not {type(seconds).__name__}")
            if not (math.isfinite(seconds) and seconds > 0):
                raise ValueError(f"seconds must be finite and > 0, not {seconds}")
            seconds = float(seconds)
        if not self._in_use.acquire(blocking=False):
            # One tree: two searches at once would replace each other's root.
            raise RuntimeError("this MCTS is already searching in another thread; "
                               "use one MCTS object per thread")
        try:
            self.ponder_stop()
            start = time.perf_counter()
            explicit = playouts is not None or seconds is not None
            budget = self._budget(board)
            clocked = budget is not None
            if budget is not None and (seconds is None or budget < seconds):
                # The clock caps an explicit limit too: `fastplay gtp --seconds 3`
                # took 2.85 s with 1 s left on the controller's clock.
                seconds = budget
            if playouts is None and seconds is None:
                playouts = self.default_playouts
            deadline = None if seconds is None else start + seconds
            searching = None if seconds is None else seconds - min(
                seconds / 4, max(FINAL_RESERVE * seconds, FINAL_RESERVE_MIN))
            stats = self._search(board.copy(), playouts, searching, None, callback,
                                 early_stop=clocked and not explicit)
            result = self._result(board, stats, start, deadline)
            if self.dynamic_komi > 0:
                self._adjust_komi(board)
            if clocked:
                # All of it: _result may add a probe search (_final).
                self._spend(board.to_move_code, time.perf_counter() - start)
            return result
        finally:
            self._in_use.release()

    def _adjust_komi(self, board: Board) -> None:
        """After a search for the side to move of ``board``: raise the extra
        komi against it by ``dynamic_komi`` points when its best move's value
        (under the komi it searched with) is above KOMI_RAISE, lower it when
        below KOMI_LOWER.  A search ahead by a wide margin sees almost only
        wins and plays slack moves; the extra komi makes it keep the margin."""
        root = self._root
        if root is None or root.n.sum() == 0:
            return
        best = int(root.n.argmax())
        value = float(root.w[best] / root.n[best])
        color = board.to_move_code
        extra = self._extra_komi.get(color, 0.0)
        if value > KOMI_RAISE:
            extra += self.dynamic_komi
        elif value < KOMI_LOWER:
            extra = max(0.0, extra - self.dynamic_komi)
        self._extra_komi[color] = min(extra, board.size * board.size / 4)

    def _spend(self, color: int, seconds: float) -> None:
        """Charge our own clock when the controller sends no ``time_left``."""
        clock = self._clock
        remaining, stones = clock.left.get(color, (clock.main_time, 0))
        if stones > 0:
            stones -= 1
            remaining -= seconds
            if stones == 0:
                remaining, stones = clock.byo_yomi_time, clock.byo_yomi_stones
        else:
            remaining -= seconds
            if remaining <= 0 and clock.byo_yomi_stones > 0:
                remaining, stones = clock.byo_yomi_time, clock.byo_yomi_stones
        clock.left[color] = (remaining, stones)

    def _batch(self, size: int, playouts: int | None = None, moves: int = 1) -> int:
        """Playouts per simulation: ``batch`` if given, else by board size and budget.

        ``DEFAULT_BATCH`` per search thread (the selection and back-up run
        under the GIL, one thread at a time: a second thread needs playouts
        to overlap), or the floor ``ceil(points / BATCH_FLOOR_POINTS)`` where
        that is larger (19x19, 25x25).  With a playout limit of fewer than
        ``SIMS_PER_ROOT_MOVE`` simulations per root move the batch shrinks,
        down to the floor (1 on 9x9 and 13x13, 3 on 19x19).
        """
        if self.batch is not None:
            return min(int(self.batch), playouts) if playouts is not None else int(self.batch)
        floor = -(-size * size // BATCH_FLOOR_POINTS)
        batch = max(DEFAULT_BATCH * self.threads, floor)
        if playouts is not None:
            # A small budget: smaller batches, so that PUCT spends it where the
            # priors point instead of several playouts on each of the first
            # moves tried.
            batch = max(floor, min(batch, playouts // (SIMS_PER_ROOT_MOVE * moves)))
        return batch

    # ---- tree set-up and reuse --------------------------------------------------

    def _prepare(self, board: Board) -> Node:
        """Make ``board`` the root, reusing the old tree when ``board`` follows from it."""
        old, old_board = self._root, self._root_board
        root: Node | None = None
        history = board.history_moves()
        if old is not None and old_board is not None and old_board.size == board.size \
                and old_board.komi == board.komi:
            old_history = self._root_history
            extra = history[len(old_history):]
            if history[:len(old_history)] == old_history and len(extra) <= 8:
                back = board.copy()
                for _ in extra:
                    back.undo()
                if back == old_board and back.zobrist_hash == old_board.zobrist_hash:
                    root = old
                    for color, move in extra:
                        if root is None or root.color != color:
                            root = None
                            break
                        hits = np.flatnonzero(root.moves == move)
                        if not len(hits):
                            root = None
                            break
                        child = root.children[int(hits[0])]
                        if child is None:
                            root = None
                            break
                        # The new root's own evaluations are the parent edge's
                        # playouts that its children do not account for.
                        child.base = float(root.n[hits[0]] - child.n.sum())
                        root = child
                    if root is not None and root.color != board.to_move_code:
                        root = None
        if root is None:
            root = self._expand(board, 0.0)
            self._nodes = 1
        else:
            root.base = max(root.base, 0.0)
            self._nodes = root.count()
        self._root = root
        self._root_board = board.copy()
        self._root_history = history
        # Positions of the game so far, for positional superko in the tree.
        seen = {board.zobrist_hash}
        back = board.copy()
        for _ in history:
            back.undo()
            seen.add(back.zobrist_hash)
        self._seen = seen
        return root

    def _expand(self, board: Board, base: float, recent: tuple[int, int] | None = None) -> Node:
        """A new node for ``board``: its candidate moves and priors.

        ``recent``: flat indices of the last move and the one before it (-1
        for a pass or none), for a learned prior's distance factors; ``None``
        reads them from the board's history.
        """
        color = board.to_move_code
        # Empty points with a pattern value, or legal with a zero one, minus
        # our true eyes; weighted by pattern value and LINE_PRIOR on bare
        # edges, or by a learned prior's table and factors.  The values are
        # PatternDatabase.move_values(board) (or the learned table's), asked
        # of the engine directly (the wrapper's checks cost 4 us per node).
        learned = self._learned
        if learned is not None and self._auto_prior and board.size != AUTO_PRIOR_SIZE:
            learned = None
        power = self.prior_power if self.prior_power is not None else \
            (0.5 if learned is None else 1.0)
        if learned is None:
            points, raw = expansion_moves(board, color, self._engine.move_values(board),
                                          LINE_PRIOR[1], LINE_PRIOR[2])
        else:
            # The learned prior has its own line factors: no bare-edge malus.
            rows = learned[0].factor_rows(board.size, *(recent if recent is not None
                                                        else _recent(board))) \
                if learned[2] else ()
            points, raw = expansion_moves(board, color, learned[1].move_values(board), 1.0, 1.0,
                                          rows)
        if self.fight_prior != 1.0:
            raw *= np.where(_fight_points(board)[points], self.fight_prior, 1.0)
        tactics = weight = None
        if self.ladder_prior != 1.0 or self.ladder_visits > 0:
            tactics, weight = self._tactics(board, color, points)
        # Priors: the weights times the tactical factor, to `prior_power`,
        # normalised; the tactical codes' virtual playouts in both Q and
        # the RAVE value (with RAVE alone carrying thousands of first plays,
        # a prior on Q alone was swamped: a failed ladder escape stayed the
        # most visited move at 100 virtual losses).  Compiled: prior_node.
        node = prior_node(color, points, raw, tactics, weight, self.ladder_prior,
                          self.ladder_visits, power, self.pass_prior, base)
        if self.even_visits > 0 or self.pattern_visits > 0:
            # Prior knowledge as virtual playouts (Gelly and Silver 2007, section 5):
            # `even_visits` at 0.5 for every move, and `pattern_visits` at
            # r / (1 + r) for the non-pass moves, r = prior / mean prior (the
            # odds of a win rise with the move's pattern value relative to
            # the others: 0.5 for an average move).
            node.pn[:] += self.even_visits
            node.pw[:] += 0.5 * self.even_visits
            if len(points):
                rel = node.prior[:-1] * len(points) / (1 - self.pass_prior)
                node.pn[:-1] += self.pattern_visits
                node.pw[:-1] += self.pattern_visits * rel / (1 + rel)
        # No pass in the opening: playouts hardly punish the lost tempo, so a
        # pass with a lucky start could win the final choice on an empty
        # board.  It stays a candidate after the opponent's pass (passing
        # back may end the game in our favour) and when nothing else is legal.
        stones = int(np.count_nonzero(board.to_numpy()))
        if len(points) and stones < board.size * board.size // 4 \
                and board.consecutive_passes == 0:
            node.forbid(-1)
        node.refresh(self._params)
        return node

    def _tactics(self, board: Board, color: int, points: npt.NDArray[np.int64]
                 ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float64]]:
        """Tactical code of each move in ``points`` (ladder first, then race)
        and the share in [0, 1] of the tactical prior and virtual playouts it
        gets: 0 without a code, else stones at stake / ``stake_stones``,
        capped at 1.  In the lost games a one-stone ladder capture took the
        same bonus as the capture that decided an eight-stone race."""
        n = board.size * board.size
        staked = self.stake_stones > 0
        stakes = np.zeros(n, dtype=np.int16) if staked else None
        codes = board.tactical_moves(color, stakes)
        if self.race_reading:
            race_stakes = np.zeros(n, dtype=np.int16) if staked else None
            race = board.race_moves(color, race_stakes)
            unset = codes == TACTIC_NONE
            codes = np.where(unset, race, codes)
            if stakes is not None and race_stakes is not None:
                stakes[unset] = race_stakes[unset]
        tactics = codes[points]
        if stakes is None:
            weight = (tactics != TACTIC_NONE).astype(np.float64)
        else:
            weight = np.minimum(stakes[points], self.stake_stones) / self.stake_stones
            weight[tactics == TACTIC_NONE] = 0.0
        return tactics, weight

    # ---- the search loop ------------------------------------------------------------

    def _search(self, board: Board, playouts: int | None, seconds: float | None,
                stop: threading.Event | None, callback: Callable[[int], None] | None,
                early_stop: bool = False) -> dict[str, Any]:
        with self._lock:
            self._params = self._tree_params()   # the options as they are now
            root = self._prepare(board)
        npts = board.size * board.size
        batch = self._batch(board.size, playouts, len(root.moves))
        # Default: a node on the third visit of an edge (two batches of playouts).
        threshold = self.expand_threshold if self.expand_threshold is not None else 2 * batch
        deadline = None if seconds is None else time.perf_counter() + seconds
        state: dict[str, Any] = {
            "done": 0, "playouts": 0, "sims": 0, "own": np.zeros(npts), "error": None,
            "stop": False,
        }
        root_board = board
        tt = self.scoring == "tromp-taylor"
        # The playouts' komi: the game's, plus the extra komi against the
        # searching side (dynamic komi; 0 unless enabled).
        extra = self._extra_komi.get(board.to_move_code, 0.0)
        self._search_komi = board.komi + (extra if board.to_move_code == BLACK_CODE else -extra)
        last_report = [time.perf_counter()]

        def finished() -> bool:
            if state["stop"] or (stop is not None and stop.is_set()):
                return True
            if playouts is not None and state["done"] >= playouts:
                return True
            if deadline is not None:
                now = time.perf_counter()
                if now >= deadline:
                    return True
                if early_stop and state["sims"] % 16 == 0 and state["done"] > 0:
                    # Stop when the leader cannot be caught in the time left
                    # (estimated from the rate so far).
                    assert seconds is not None  # a deadline exists only with seconds
                    elapsed = max(now - (deadline - seconds), 1e-6)
                    left = state["done"] / elapsed * (deadline - now)
                    top = np.sort(root.n)[-2:] if len(root.n) > 1 else root.n
                    if len(top) == 2 and top[1] - top[0] > left:
                        return True
            if stop is not None and self._nodes >= self.max_nodes and playouts is None:
                return True  # pondering: the tree is full
            return False

        tallies: list[PlayoutTally] = []

        def worker() -> None:
            # This thread's playout tallies: each simulation's, and the
            # ownership summed over them (read once the search is over).
            tally = PlayoutTally(root_board.size, self.rave)
            tallies.append(tally)
            scratch = root_board.copy(history=False)  # this thread's descent board
            try:
                while True:
                    with self._lock:
                        if finished():
                            return
                        first = self._playout_index
                        self._playout_index += batch
                        nodes, path, leaf, terminal = self._descend(root, root_board, batch,
                                                                    threshold, scratch)
                    if terminal is None:
                        # As fastplay.playouts(leaf, db, n=batch, seed=..., threads=1,
                        # scoring=..., amaf=...) without a result to build.
                        self._engine.run_into(tally, leaf, batch, self._seed_base, first=first,
                                              komi=self._search_komi, tromp_taylor=tt)
                    with self._lock:
                        self._backup(nodes, path, leaf, None if terminal is not None else tally,
                                     terminal, batch, state)
                    if callback is not None:
                        now = time.perf_counter()
                        if now - last_report[0] > 0.05:
                            last_report[0] = now
                            callback(state["done"])
            except BaseException as exc:  # noqa: BLE001 - re-raised in the caller
                state["error"] = exc
                state["stop"] = True

        if self.threads == 1:
            worker()
        else:
            # Completion is read from plain flags by polling, not from
            # Thread.join or Event.wait: on Python 3.11 an interrupted join
            # gives up on a running thread (bpo-45274), and a Ctrl-C inside
            # Event.wait can leak the event's lock so that nobody returns.
            # The tree must not be used (or the next search started) while a
            # worker still changes it.  Threads start inside the try; one
            # that has not begun to run when the stop flag is set returns at
            # once (``finished``).
            flags = [[False, False] for _ in range(self.threads)]  # [running, done]

            def run_worker(flag: list[bool]) -> None:
                flag[0] = True
                try:
                    worker()
                finally:
                    flag[1] = True

            try:
                for flag in flags:
                    threading.Thread(target=run_worker, args=(flag,), daemon=True).start()
                while not all(flag[1] for flag in flags):
                    time.sleep(POLL_SECONDS)
            except BaseException:
                state["stop"] = True
                _wait_for_running(flags)
                raise
        if state["error"] is not None:
            # A simulation cut short (Ctrl-C in the calling thread, or an
            # error) may have backed up only part of its path: drop the tree
            # rather than keep one whose counts disagree.
            with self._lock:
                self._root = None
                self._root_board = None
                self._nodes = 0
            raise state["error"]
        for tally in tallies:
            state["own"] += tally.own_black - tally.own_white
        if callback is not None:
            callback(state["done"])
        return state

    def _tree_params(self) -> TreeParams:
        """The selection constants, as the compiled tree reads them."""
        return TreeParams(self.policy == "puct", self.rave, self._virtual, self.c_puct,
                          self.c_uct, self.fpu_reduction, self.rave_equiv)

    def _descend(self, root: Node, root_board: Board, batch: int, threshold: int,
                 scratch: Board | None = None
                 ) -> tuple[list[Node], list[int], Board, float | None]:
        """Select down the tree, playing the moves on a copy of the root board
        (``scratch``, reloaded, when given: one per thread).

        The compiled :func:`fastplay._core.tree_descend` runs the selection
        (the formulas of the module docstring), the legality and superko
        checks and the virtual loss; it stops where an edge is due for a node,
        which :meth:`_expand` makes here.  Returns the nodes and move indices
        of the path, the leaf position and, when the game ended inside the
        tree (two passes), Black's exact Tromp-Taylor margin (komi included)
        instead of ``None``.
        """
        # A scratch board (the tree checks superko itself): the thread's own,
        # reloaded, or a new one.
        if scratch is not None:
            root_board.copy_into(scratch)
            board = scratch
        else:
            board = root_board.copy(history=False)
        nodes: list[Node] = []
        path: list[int] = []
        hashes: set[int] = set()
        vl = float(batch) if self.threads > 1 else 0.0  # only other threads need it
        node = root
        while True:
            status = tree_descend(node, board, self._seen, hashes, nodes, path, self._params,
                                  vl, threshold, self._nodes < self.max_nodes)
            if status != DESCEND_EXPAND:
                break
            parent, i = nodes[-1], path[-1]
            # The edge's playouts so far, and those other threads still run
            # through it (their virtual loss, ours apart): they will count on
            # this edge, not in the child.
            pending = parent.vl[i] - vl
            before = int(nodes[-2].moves[path[-2]]) if len(nodes) > 1 else _recent(root_board)[0]
            node = self._expand(board, float(parent.n[i] + pending),
                                (int(parent.moves[i]), before))
            parent.children[i] = node
            self._nodes += 1
        terminal = float(board.score()) if status == DESCEND_END else None
        return nodes, path, board, terminal

    def _backup(self, nodes: list[Node], path: list[int], leaf: Board,
                stats: PlayoutTally | None, terminal: float | None, batch: int,
                state: dict[str, Any]) -> None:
        """Add the leaf's result to every edge of the path and remove the virtual loss.

        ``stats`` holds the leaf's playouts (:meth:`PlayoutEngine.run_into`:
        counts of wins and draws, score histogram, first plays), ``None``
        when the game ended in the tree with Black's margin ``terminal``.
        ``w`` gets the values (see ``_value``), ``wins`` the plain wins.
        """
        shift = self._search_komi - leaf.komi   # dynamic komi: values use the search's komi
        if stats is None:
            assert terminal is not None
            n = float(batch)
            win = 1.0 if terminal > 0 else (0.0 if terminal < 0 else 0.5)
            black_wins = win * n
            margin = terminal - shift
            win = 1.0 if margin > 0 else (0.0 if margin < 0 else 0.5)
            search_wins = win * n
            black_value = self._value(win, margin, leaf.size * leaf.size) * n
            state["own"] += leaf.area_owner().ravel() * n
        else:
            n = float(stats.n)
            # Wins under the search's komi: the core's first-play tallies
            # count them, so the tree moves' tallies must too.
            search_wins = black_wins = black_value = stats.black_wins + 0.5 * stats.draws
            if shift:   # plain wins under the game's komi, from the score histogram
                black_wins = float(stats.hist @ self._score_table(leaf.size, leaf.komi)[1])
            if self.score_weight > 0:
                black_value = ((1 - self.score_weight) * black_value + self.score_weight
                               * float(stats.hist
                                       @ self._score_table(leaf.size, self._search_komi)[0]))
            state["playouts"] += stats.n
        state["done"] += int(n)
        state["sims"] += 1
        # The compiled back-up (fastplay._core.tree_backup): edge counts,
        # first-play tallies with the tree moves joined in (a tree move
        # precedes every playout move), cached selection values.
        amaf = stats.amaf if stats is not None and self.rave else None
        tree_backup(nodes, path, n, black_value, black_wins, search_wins, amaf,
                    float(batch) if self.threads > 1 else 0.0, self._params)

    def _value(self, win: float, margin: float, points: int) -> float:
        """Black's value of one finished game: ``win`` (1, 0.5 or 0) blended
        with the score margin (Black's area minus White's, komi included) as
        ``(1 - s) win + s (1/2 + margin / (2 points))``, ``s = score_weight``.

        The score modification of Fuego (``GoUctPlayoutPolicy``'s
        ``ScoreModification``, default 0.02; Enzenberger et al., "Fuego", IEEE
        TCIAIG 2010): wins stay above losses, and among wins (losses) a larger
        (smaller) margin is worth a little more, which separates moves whose
        win rates are equal (typical of the opening, with few playouts).
        """
        s = self.score_weight
        if s == 0:
            return win
        return (1 - s) * win + s * (0.5 + 0.5 * max(-1.0, min(1.0, margin / points)))

    def _score_table(self, size: int, komi: float) -> npt.NDArray[np.float64]:
        """Two rows for the bins of the core's score histogram (bin ``i`` is
        Black's area minus White's ``= i - points``, before komi), to weight
        with its counts: ``1/2 + margin / (2 points)`` and Black's win (1,
        1/2 for a draw, 0), for a margin after ``komi``."""
        table = self._score_values.get((size, komi))
        if table is None:
            points = size * size
            margin = np.arange(2 * points + 1, dtype=np.float64) - points - komi
            table = np.stack([0.5 + 0.5 * np.clip(margin / points, -1.0, 1.0),
                              np.where(margin > 0, 1.0, np.where(margin < 0, 0.0, 0.5))])
            self._score_values[(size, komi)] = table
        return table

    # ---- the answer -----------------------------------------------------------------

    def _result(self, board: Board, state: dict[str, Any], start: float,
                deadline: float | None) -> SearchResult:
        """The search's answer; ``start`` and ``deadline``: ``time.perf_counter()``
        values (the deadline bounds a probe of ``_final``)."""
        root = self._root
        assert root is not None
        size = board.size
        # Most visited; ties (frequent with small budgets) by win rate, then prior.
        with np.errstate(divide="ignore", invalid="ignore"):
            value = np.where(root.n > 0, root.wins / root.n, -1.0)
        order = np.lexsort((-root.prior, -value, -root.n))
        children: list[ChildStats] = []
        for i in order:
            visits = int(root.n[i])
            if visits == 0 and (len(children) >= 1 or not root.allowed[i]):
                # Unvisited moves only as a fallback, and never a forbidden
                # one: a search of zero playouts answered the opening's pass.
                continue
            winrate = float(root.wins[i] / root.n[i]) if visits else float("nan")
            children.append(ChildStats(format_vertex(int(root.moves[i]), size), visits, winrate,
                                       float(root.prior[i]), self._pv(root, int(i), size)))
        done = state["done"]
        own = (state["own"] / done if done else np.zeros(size * size)).astype(np.float32)
        own = own.reshape(size, size)
        best = children[0] if children else ChildStats("pass", 0, 0.5, 1.0, ["pass"])
        best_move = best.move
        winrate = best.winrate if best.visits else 0.5
        if best_move == "pass":
            alt = self._instead_of_pass(board, own, children)
            if alt is not None:
                best_move, winrate = alt.move, alt.winrate
        elif self._final(board, own, deadline) and not self._dead_enemy(board, own):
            # A final position: the area score cannot change, so pass, as GNU
            # Go does (shared case 28).  The win rates of the moves do not
            # matter here: playouts break sekis and misjudge them.
            best_move = "pass"
            passing = next((c for c in children if c.move == "pass" and c.visits), None)
            score = board.score()
            won = score > 0 if board.to_move_code == BLACK_CODE else score < 0
            winrate = passing.winrate if passing is not None else (1.0 if won else 0.0)
        elif board.consecutive_passes >= 1 and self._pass_wins(board, own):
            # The opponent passed and passing now ends the game in our favour
            # under Tromp-Taylor with nothing left to capture: playing on would
            # only fill our own area (a pass has a small prior, so it is rarely
            # the most visited move even when it is as good as any other).
            best_move, winrate = "pass", 1.0
        book = self._book_move(board) if self.book else None
        if book is not None:
            best_move = book
            booked = next((c for c in children if c.move == book and c.visits), None)
            winrate = booked.winrate if booked is not None else winrate
        best_move = self._maybe_resign(board, best_move, winrate, int(root.n.sum()))
        return SearchResult(best_move=best_move, winrate=winrate, children=children,
                            ownership=own, playouts=int(state["playouts"]),
                            seconds=time.perf_counter() - start,
                            simulations=int(state["sims"]), root_visits=int(root.visits),
                            nodes=self._nodes)

    @staticmethod
    def _book_move(board: Board) -> str | None:
        """The opening book: ``"E5"`` (tengen) on an empty 9x9 board, else ``None``.

        With a few thousand playouts every first move on 9x9 has a win rate
        within noise of 50 %, so the search picks one nearly at random (C4,
        B5, G5 ... over seeds; ``benchmarks/RESULTS.md``).  The centre point is
        the standard first move of 9x9 play (GNU Go's own 9x9 fuseki starts
        there too).  Only this one position is in the book.
        """
        if board.size == 9 and board.to_move_code == BLACK_CODE \
                and not board.to_numpy().any() and board.legality(40, BLACK_CODE) is None:
            return "E5"
        return None

    @staticmethod
    def _pv(node: Node, i: int, size: int, limit: int = 12) -> list[str]:
        pv = [format_vertex(int(node.moves[i]), size)]
        child = node.children[i]
        while child is not None and len(pv) < limit and child.n.sum() > 0:
            j = int(np.argmax(child.n))
            pv.append(format_vertex(int(child.moves[j]), size))
            child = child.children[j]
        return pv

    def _pass_wins(self, board: Board, own: npt.NDArray[np.float32]) -> bool:
        """Whether passing now wins under Tromp-Taylor with no dead enemy stone left."""
        score = board.score()
        wins = score > 0 if board.to_move_code == BLACK_CODE else score < 0
        return wins and not self._dead_enemy(board, own)

    @staticmethod
    def _dead_enemy(board: Board, own: npt.NDArray[np.float32]) -> bool:
        """Whether Tromp-Taylor gives the opponent points that the playouts give us.

        Strings in seki (:func:`in_seki`) and their shared liberties are not
        ours to take, whatever the playouts (which always break a seki) say.
        """
        sign = 1 if board.to_move_code == BLACK_CODE else -1
        ours = (own * sign > 0.5) & (board.area_owner() == -sign)
        if not ours.any():
            return False
        return bool(np.any(ours & ~_seki_mask(board)))

    @staticmethod
    def _settled(board: Board, own: npt.NDArray[np.float32]) -> bool:
        """Whether ``board`` is a final position: no move can change the area score.

        Every point must be settled: a string lives (the playouts keep it,
        ownership of its colour above ``SETTLED``) or is in seki; an empty
        point is Tromp-Taylor territory of the colour the playouts give it,
        or a shared liberty of a seki.  Then a move fills one's own area,
        dies in the opponent's, or breaks a seki and loses the string: the
        result is decided and passing is right (the usual end of a game of
        Go: pass when every group is settled and no dame is left).
        """
        grid = board.to_numpy()
        if not grid.any():
            return False
        seki = _seki_mask(board)
        tt = board.area_owner()
        stones = grid != 0
        settled = np.where(stones, own * grid > SETTLED, (tt != 0) & (own * tt > SETTLED))
        return bool(np.all(settled | seki))

    def _final(self, board: Board, own: npt.NDArray[np.float32],
               deadline: float | None = None) -> bool:
        """Whether ``board`` is a final position whoever moves first.

        ``own`` comes from playouts in which the side to move moves first, so
        a string in atari or a cut that one move mends looks settled (the
        mover mends it in nearly every playout).  Passing there lost five of
        945 match games against GNU Go (four are ``MIDGAME_PASSES`` in
        ``tests/test_mcts.py``);
        the search's own pass had some ten visits, too few to tell a kill
        from noise, and plain playouts after a pass miss a kill that takes
        two precise moves (the fourth).  So a settled position is final only
        if a probe -- the same search, ``FINAL_PLAYOUTS`` playouts, after our
        pass -- finds it settled too, with the opponent moving first: then
        no move of either side changes the area score.  Only asked when the
        search's ownership is settled already (the end of a game); a probe
        does not probe again, and after the opponent's pass our pass ends
        the game, so there is no opponent move to probe.  Under a time limit
        (``deadline``, a ``time.perf_counter()`` value) the probe stops at
        the deadline, and with no time left the search's ownership decides.
        """
        if not self._settled(board, own):
            return False
        if self._probing or board.consecutive_passes >= 1:
            return True
        limit = None if deadline is None else deadline - time.perf_counter()
        if limit is not None and limit < FINAL_MIN_SECONDS:
            return True
        after = board.copy()
        after.play("pass")
        settings = {name: getattr(self, name) for name in self._settings}
        probe = MCTS(self.db, **{**settings, "threads": 1, "seed": self._seed_base,
                                 "resign_threshold": None, "book": False})
        probe._probing = True
        found = probe.run(after, playouts=FINAL_PLAYOUTS, seconds=limit)
        return self._settled(after, found.ownership)

    def _instead_of_pass(self, board: Board, own: npt.NDArray[np.float32],
                         children: list[ChildStats]) -> ChildStats | None:
        """A non-pass move when passing now would leave points miscounted.

        If Tromp-Taylor counting of the current board gives the opponent
        points that the playouts (which capture dead stones) give to us, the
        opponent could pass and collect them: play on with the most visited
        other move.  ``None`` when passing is safe or there is nothing else.
        """
        if not self._dead_enemy(board, own):
            return None
        pass_rate = next((c.winrate for c in children if c.move == "pass"), 0.0)
        for child in children:
            # Only a move that the search does not think clearly worse: the
            # safeguard must not turn a won game into a broken seki.
            if child.move != "pass" and child.visits > 0 and child.winrate >= pass_rate - 0.1:
                return child
        return None

    def _maybe_resign(self, board: Board, move: str, winrate: float, visits: int) -> str:
        """``"resign"`` once the best win rate has stayed below ``resign_threshold``
        for ``resign_moves`` searches of at least 100 playouts, outside the opening."""
        if self.resign_threshold is None:
            return move
        npts = board.size * board.size
        stones = int(np.count_nonzero(board.to_numpy()))
        in_opening = max(board.move_number, stones) < npts // 4
        if winrate < self.resign_threshold and visits >= 100 and not in_opening:
            self._low_searches += 1
        else:
            self._low_searches = 0
        if self._low_searches >= self.resign_moves:
            return "resign"
        return move

    # -- introspection (tests, debugging) -------------------------------------------

    @property
    def root(self) -> Node | None:
        """The current root node (``None`` before the first search)."""
        return self._root


def _wait_for_running(flags: list[list[bool]]) -> None:
    """Wait until every worker that began to run has finished, through any
    further Ctrl-C: a stopped worker finishes its simulation within
    milliseconds, and the tree must not be used while it runs."""
    while True:
        try:
            while not all(flag[1] for flag in flags if flag[0]):
                time.sleep(POLL_SECONDS)
            return
        except KeyboardInterrupt:
            continue


def _fight_points(board: Board) -> npt.NDArray[np.bool_]:
    """Empty points (flat) next to a string of either colour with one or two
    liberties: the moves of capturing races, which playouts misjudge."""
    libs = board.liberty_array().ravel()
    short = np.append((libs > 0) & (libs <= 2), False)  # index size*size: off the board
    orth_idx = _orth_table(board.size)
    out: npt.NDArray[np.bool_] = short[orth_idx].any(axis=1) & (libs == 0)
    return out


def _integer(name: str, value: Any, low: int, high: int) -> int:
    """``value`` (an integer, not a bool) in ``[low, high]``, or
    ``TypeError``/``ValueError`` naming the option."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, not {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be an integer in [{low}, {high}], not {value!r}")
    return int(value)


def _number(name: str, value: Any) -> float:
    """``value`` (a real number, not a string or a bool) as a float, or
    ``TypeError``/``ValueError`` naming the option."""
    if isinstance(value, (str, bytes, bool, np.bool_)):
        raise TypeError(f"{name} must be a number, not {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number, not {value!r}") from None
    except OverflowError:
        raise ValueError(f"{name} is out of range: {value!r}") from None


def _seki_mask(board: Board) -> npt.NDArray[np.bool_]:
    """``bool[size, size]``: stones of strings in seki and the liberties they share."""
    size = board.size
    grid = board.to_numpy().ravel()
    mask = np.zeros(size * size, dtype=bool)
    done = np.zeros(size * size, dtype=bool)
    for point in np.flatnonzero(grid):
        if done[point]:
            continue
        members = np.asarray(board.string_indices(int(point)))
        done[members] = True
        if in_seki(board, int(point)):
            mask[members] = True
            for lib in board.string_liberty_indices(int(point)):
                # only the shared ones: the others are the string's own eyes
                if any(grid[n] == -grid[point] for n in _neighbours(int(lib), size)):
                    mask[int(lib)] = True
    return mask.reshape(size, size)


def in_seki(board: Board, point: int) -> bool:
    """Whether the string at ``point`` lives in seki with an adjacent enemy string.

    The shape recognised is the one playouts get wrong: the two strings share
    liberties, every other liberty of each is an eye of its own colour, and a
    move on any shared liberty, by either side, is illegal or puts the mover's
    string in atari without capturing.  Neither side can then approach, so
    both live, even though random playouts, where someone always plays there
    first, report one of them as captured.
    """
    grid = board.to_numpy().ravel()
    size = board.size
    own = int(grid[point])
    libs = {int(i) for i in board.string_liberty_indices(point)}
    if not libs:
        return False
    enemies = {int(board.string_indices(n)[0]) for stone in board.string_indices(point)
               for n in _neighbours(int(stone), size) if grid[n] == -own}
    for enemy in enemies:
        enemy_libs = {int(i) for i in board.string_liberty_indices(enemy)}
        shared = libs & enemy_libs
        if (shared
                and all(not _region_touches(grid, size, lib, -own) for lib in libs - shared)
                and all(not _region_touches(grid, size, lib, own) for lib in enemy_libs - shared)
                and all(_self_atari(board, lib, own) and _self_atari(board, lib, -own)
                        for lib in shared)):
            return True
    return False


def _self_atari(board: Board, point: int, sign: int) -> bool:
    """Whether a move at ``point`` (``sign`` +1 Black, -1 White) is illegal or a
    self-atari that captures nothing."""
    code = 2 if sign > 0 else 1  # fastplay._core colour codes: BLACK 2, WHITE 1
    if board.legality(point, code) is not None:
        return True
    trial = board.copy()
    before = trial.captures_of(code)
    trial.play_index(point, code)
    return trial.captures_of(code) == before and trial.liberty_count(point) <= 1


def _neighbours(point: int, size: int) -> list[int]:
    row, col = divmod(point, size)
    return [r * size + c for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
            if 0 <= r < size and 0 <= c < size]


def _region_touches(grid: np.ndarray, size: int, start: int, color: int) -> bool:
    """Whether the empty region containing ``start`` borders a stone of ``color``."""
    stack, seen = [start], {start}
    while stack:
        for neighbour in _neighbours(stack.pop(), size):
            if neighbour in seen:
                continue
            if grid[neighbour] == color:
                return True
            if grid[neighbour] == 0:
                seen.add(neighbour)
                stack.append(neighbour)
    return False
