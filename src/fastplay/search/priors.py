"""The priors of a new node: which moves it gets and how likely each is.

A new node's candidate moves are the empty points with a pattern value, or
legal with a zero one, minus the mover's true eyes (and the pass).  Their
weights come from one of three sources:

* the playout values (:meth:`PatternDatabase.move_values`, the weight GNU
  Go's playout policy gives the move), with a malus on bare first and second
  lines (``LINE_PRIOR``), at power 0.5 by default;
* a learned prior (:mod:`fastplay.prior`, Coulom 2007: GNU Go's moves from
  the same local context, the line and the distances to the last two
  moves), at power 1 -- ``prior_table="auto"`` uses the bundled one of the
  board size (``AUTO_PRIORS``: 9x9, 13x13, 19x19);
* a user's ``prior(board) -> float[size*size + 1]`` (flat index ``row *
  size + col``, pass last), non-negative, normalised over the candidates.

Then the ladder reader (:meth:`Board.tactics_flat`, optionally the race
reader) multiplies or divides a move's weight by ``ladder_prior`` and gives
it ``ladder_visits`` virtual won or lost playouts (their matches:
RESULTS.md, "Where the search's constants come from" and "The ladder
reader's virtual playouts"); optional virtual
playouts (``even_visits``, ``pattern_visits``: Gelly and Silver 2007,
section 5) follow; the pass is forbidden in the opening.  The arithmetic is the core's ``prior_node``.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterable

import numpy as np
import numpy.typing as npt

from fastplay._core import TACTIC_NONE, PlayoutEngine, TreeNode, TreeParams
from fastplay._core import expansion_moves, inherit_amaf, make_node, prior_node
from fastplay.board import Board
from fastplay.life import nakade_points
from fastplay.patterns import geometry_table
from fastplay.prior import LearnedPrior, load_prior
from fastplay.search.config import SearchConfig
from fastplay.search.criticality import RootCriticality
from fastplay.search.decide import in_opening, wins_by_passing
from fastplay.search.errors import PASSES_THROUGH, PriorError, raised
from fastplay.shown import shown_value

__all__ = ["NodeMaker", "PriorFunction", "ForbidFunction", "forbid_moves", "ban_moves",
           "forbidden_set", "keep_the_pass",
           "LINE_PRIOR", "AUTO_PRIORS", "fight_points", "recent_moves"]

# A plug-in's own error (from a nested call) and what passes through unchanged.
_RERAISE: tuple[type[BaseException], ...] = (PriorError, *PASSES_THROUGH)

#: A user prior: the position -> ``float[size*size + 1]``, pass last.
PriorFunction = Callable[[Board], npt.ArrayLike]

#: A user's restriction: ``forbid(board, depth)`` -> the moves a new node for
#: ``board``, ``depth`` plies below the search's root (0: the root), never
#: searches (flat indices ``row * size + col``, -1 the pass).  The board of a
#: node inside the tree carries no history: its ``move_number`` is not a depth.
ForbidFunction = Callable[[Board, int], Iterable[int]]

#: Prior factors of first- and second-line moves with no stone within two
#: lines (a 5x5 window): patterns see nothing there, so every empty point has
#: the same value and the tie would go to the corner, first in scan order.
#: The same knowledge as Pachi's 1st/2nd-line malus (``prior.c``, "b19").
LINE_PRIOR = {1: 0.1, 2: 0.5}

#: The bundled learned prior ``prior_table="auto"`` uses on each board size
#: (:data:`fastplay.prior.BUNDLED`); other sizes keep the playout values.
#: 9x9's has large patterns (RESULTS.md, "Large patterns in the 9x9 prior").
AUTO_PRIORS = {9: "gnugo9x9_shapes", 13: "gnugo13x13", 19: "gnugo19x19"}

#: Smallest relative weight a candidate keeps under a user prior (the core
#: needs positive weights): a zero is ``max * MIN_USER_WEIGHT``.
MIN_USER_WEIGHT = 1e-9

Learned = tuple[LearnedPrior, PlayoutEngine, bool]


@functools.cache
def _bundled_prior(name: str) -> Learned:
    """A bundled learned prior, its table in a core engine, whether it has
    factors (built once per process)."""
    return _learned(load_prior(name))


def _learned(prior: LearnedPrior) -> Learned:
    return prior, PlayoutEngine(prior.table, geometry_table()), prior.has_factors


def auto_prior(size: int) -> Learned | None:
    """The learned prior ``prior_table="auto"`` uses on a board of ``size``
    (:data:`AUTO_PRIORS`), ``None`` where it keeps the playout values."""
    name = AUTO_PRIORS.get(size)
    return None if name is None else _bundled_prior(name)


def learned_prior(table: object) -> Learned | None:
    """The learned prior a ``prior_table`` option names (``None``: none, and
    for ``"auto"``, which :func:`auto_prior` resolves per board size)."""
    if table is None or (isinstance(table, str) and table == "auto"):
        return None
    return _learned(load_prior(table))


def recent_moves(board: Board) -> tuple[int, int]:
    """Flat indices of the last move and of the one before it (-1: a pass or none)."""
    history = board.history_indices()
    moves = [v for _, v in history[-2:]]
    moves = [-1] * (2 - len(moves)) + moves
    return moves[1], moves[0]


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


def fight_points(board: Board) -> npt.NDArray[np.bool_]:
    """``bool[size*size]``: empty points next to a string of either colour with
    one or two liberties -- the moves of capturing races, which playouts
    misjudge."""
    libs = board.liberty_array().ravel()
    short = np.append((libs > 0) & (libs <= 2), False)  # index size*size: off the board
    out: npt.NDArray[np.bool_] = short[_orth_table(board.size)].any(axis=1) & (libs == 0)
    return out


class NodeMaker:
    """Makes the search's new nodes: candidates, priors, virtual playouts.

    Args:
        engine: the playout engine (its ``move_values`` are the playout values).
        config: the search's options.
        prior: a user prior, replacing the built-in weights, or ``None``.
        forbid: the moves each new node never searches, or ``None``.
    """

    def __init__(self, engine: PlayoutEngine, config: SearchConfig,
                 prior: PriorFunction | None = None,
                 forbid: ForbidFunction | None = None) -> None:
        self.engine = engine
        self.user_prior = prior
        self.forbid = forbid
        #: The searching side's colour code (the engine's: the root's mover,
        #: or its opponent when pondering), which tells the opponent's nodes
        #: (``opponent_prior``); ``None``: every node is the searching side's.
        self.own_color: int | None = None
        #: The running search's criticality (the option ``criticality``),
        #: whose map reshapes new nodes down to ``criticality_depth``.
        self.criticality: RootCriticality | None = None
        self.learned: Learned | None = None
        self.opponent_learned: Learned | None = None
        self.configure(config)

    def configure(self, config: SearchConfig) -> None:
        """Take a new config (a learned prior is loaded again only if it
        changed); a prior that cannot be loaded raises and changes nothing."""
        old = getattr(self, "config", None)
        learned = self.learned if old is not None and old.prior_table is config.prior_table \
            else learned_prior(config.prior_table)
        if old is not None and old.opponent_prior is config.opponent_prior:
            opponent = self.opponent_learned
        else:
            try:
                opponent = learned_prior(config.opponent_prior)
            except (OSError, ValueError) as exc:
                reason = f"{exc.filename}: {exc.strerror}" if isinstance(exc, OSError) \
                    and exc.filename else str(exc)
                raise ValueError(f"opponent_prior: {reason}") from None
        self.learned, self.opponent_learned, self.config = learned, opponent, config
        self._source_cache: dict[tuple[int, bool], tuple[Learned | None, float]] = {}

    def expand(self, board: Board, base: float, params: TreeParams,
               recent: tuple[int, int] | None = None, release: bool = False,
               depth: int = 0) -> TreeNode:
        """A new node for ``board`` (whose side is to move); ``base``: visits
        already evaluated there; ``recent``: flat indices of the last two
        moves (-1 for a pass or none), ``None`` to read them from the board;
        ``release``: the tactical reading lets the GIL go (``board`` must not
        change meanwhile: a search thread's own board), so that a search's
        other threads go on; ``depth``: plies below the search's root (for
        the ``forbid`` plug-in).

        Raises :class:`PriorError` when a user prior fails or is malformed.
        """
        config = self.config
        if board.consecutive_passes == 0 and self._lean() and self.forbid is None:
            # The common case in one compiled call, the opening rule below
            # included: the same node (tests/test_mcts.py).
            engine, line1, line2, factors, power = self._sources(board, recent)
            made: TreeNode = make_node(board, engine, line1, line2, factors, self._tactical(),
                                       config.ladder_prior, config.ladder_visits, power,
                                       config.pass_prior, base, release, params, True,
                                       config.nakade_for(board.size))
            self._critical(made, depth)
            return made
        node = self._compiled(board, base, recent, release)
        if node is None:
            node = self._assembled(board, base, recent)
        if config.even_visits > 0 or config.pattern_visits > 0:
            self._virtual_playouts(node, node.k - 1)
        if self.forbid is not None:
            node = self._restricted(board, node, base, depth)
        # No pass in the opening: playouts hardly punish the lost tempo, so a
        # pass with a lucky start could win the final choice on an empty
        # board.  It stays a candidate after the opponent's pass and when
        # nothing else is legal (or allowed).
        others = node.open - int(node.allowed[-1]) > 0     # moves besides the pass
        if others and in_opening(board):
            node.forbid(-1)
        if others and board.consecutive_passes >= 1 and not wins_by_passing(board):
            # A pass that ends the game with a loss on the count: playing on
            # cannot be worse.  Allowed, its exact 0 beat the unvisited moves'
            # first-play urgency (the parent's value, 0, minus the reduction)
            # and took 55 of a 25x25 search's 60 visits (a tester's finding).
            node.forbid(-1)
        self._critical(node, depth)
        return node

    def _restricted(self, board: Board, node: TreeNode, base: float, depth: int) -> TreeNode:
        """``node`` with the moves the ``forbid`` plug-in names forbidden.
        When they leave it nothing but the pass while the plug-in allows
        legal moves that are no candidates (the mover's own true eyes), a
        node of those moves and the pass, equal priors, takes its place: a
        GUI's ``allow W A1 1`` on White's own eye got a silent analysis and
        a pass (a tester), where KataGo searches A1."""
        assert self.forbid is not None
        banned = forbidden_set(self.forbid, board, depth)     # one call of the plug-in
        known = {int(m) for m in node.moves}
        if banned & known and known - banned <= {-1}:
            # The plug-in took moves and left the pass at most.
            extra = [int(i) for i in board.legal_indices(node.color)
                     if int(i) not in known and int(i) not in banned]
            if extra:
                k = len(extra) + 1
                node = TreeNode(node.color, np.array([*extra, -1], dtype=np.int64),
                                np.full(k, 1.0 / k), base)
        ban_moves(node, banned)
        return node

    def _critical(self, node: TreeNode, depth: int) -> None:
        """The option ``criticality_depth``: a new node down to that depth
        takes the search's criticality map (:mod:`fastplay.search.criticality`)."""
        crit = self.criticality
        if crit is not None and 1 <= depth <= self.config.criticality_depth:
            crit.reshape(node)

    def _builtin_weights(self) -> bool:
        """Whether :func:`make_node` makes the node's priors: no user prior,
        fight factor, race reading or stakes."""
        config = self.config
        return self.user_prior is None and config.fight_prior == 1.0 \
            and not config.race_reading and config.stake_stones <= 0

    def _lean(self) -> bool:
        """Whether a node is :func:`make_node`'s alone: the built-in weights
        and no virtual playouts but the tactical ones."""
        return self._builtin_weights() and self.config.even_visits <= 0 \
            and self.config.pattern_visits <= 0

    def _tactical(self) -> bool:
        """Whether new nodes get the ladder reader's codes."""
        return self.config.ladder_prior != 1.0 or self.config.ladder_visits > 0

    def inherit_amaf(self, node: TreeNode, ancestor: TreeNode, params: TreeParams) -> None:
        """Seed ``node``'s first-play tallies from ``ancestor``'s, the node two
        plies up (the option ``ancestor_amaf``, :func:`fastplay._core.inherit_amaf`);
        nothing when the option is 0 or RAVE is off."""
        if self.config.ancestor_amaf > 0 and self.config.rave:
            inherit_amaf(node, ancestor, self.config.ancestor_amaf, params)

    def _compiled(self, board: Board, base: float, recent: tuple[int, int] | None,
                  release: bool = False) -> TreeNode | None:
        """The node from the core's :func:`make_node` in one call, where the
        options ask for nothing else (no user prior, fight factor, race
        reading or stakes); ``None`` otherwise."""
        if not self._builtin_weights():
            return None
        config = self.config
        points_engine, line1, line2, factors, power = self._sources(board, recent)
        return make_node(board, points_engine, line1, line2, factors, self._tactical(),
                         config.ladder_prior, config.ladder_visits, power, config.pass_prior,
                         base, release, nakade=config.nakade_for(board.size))

    def _assembled(self, board: Board, base: float, recent: tuple[int, int] | None
                   ) -> TreeNode:
        """The node from its parts: weights, fight and nakade factors, tactics, priors."""
        config = self.config
        color = board.to_move_code
        points, raw, power, pass_prior = self._weights(board, color, recent)
        if config.fight_prior != 1.0:
            raw *= np.where(fight_points(board)[points], config.fight_prior, 1.0)
        nakade = config.nakade_for(board.size)
        if nakade != 1.0:
            raw *= np.where(nakade_points(board)[points], nakade, 1.0)
        tactics = weight = None
        if self._tactical():
            tactics, weight = self._tactics(board, color, points)
        # The tactical codes' virtual playouts go in both Q and the RAVE
        # value: with RAVE alone carrying thousands of first plays, a prior
        # on Q alone was swamped.  Compiled: prior_node.
        return prior_node(color, points, raw, tactics, weight, config.ladder_prior,
                          config.ladder_visits, power, pass_prior, base)

    def _sources(self, board: Board, recent: tuple[int, int] | None
                 ) -> tuple[PlayoutEngine, float, float, tuple[npt.NDArray[np.float64], ...],
                            float]:
        """Where the built-in weights come from: the engine whose move values
        they are, the line factors, the learned prior's factor rows and the
        prior power."""
        config = self.config
        theirs = config.opponent_prior is not None and self.own_color is not None \
            and board.to_move_code != self.own_color
        key = (board.size, theirs)
        known = self._source_cache.get(key)
        if known is None:
            table, learned = (config.opponent_prior, self.opponent_learned) if theirs \
                else (config.prior_table, self.learned)
            if isinstance(table, str) and table == "auto":
                learned = auto_prior(board.size)
            known = self._source_cache[key] = (learned, config.prior_power
                                               if config.prior_power is not None else
                                               (0.5 if learned is None else 1.0))
        learned, power = known
        if learned is None:
            return self.engine, LINE_PRIOR[1], LINE_PRIOR[2], (), power
        # The learned prior has its own line factors: no bare-edge malus.
        if not learned[2]:
            return learned[1], 1.0, 1.0, (), power
        rows = learned[0].factor_rows(board.size, *(recent if recent is not None
                                                    else recent_moves(board)))
        # The large patterns join the line factors (at most three rows).
        shaped = learned[0].shape_row(board, rows[0])
        if shaped is not None:
            rows = (shaped, rows[1], rows[2])
        return learned[1], 1.0, 1.0, rows, power

    def _weights(self, board: Board, color: int, recent: tuple[int, int] | None
                 ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], float, float]:
        """Candidate moves, their weights, the prior power and the pass prior."""
        if self.user_prior is not None:
            return self._user_weights(board, color)
        # The values are the engine's move values (PatternDatabase.move_values
        # with its defaults, asked of the engine directly: the wrapper's
        # checks cost 4 us per node).
        engine, line1, line2, rows, power = self._sources(board, recent)
        points, raw = expansion_moves(board, color, engine.move_values(board), line1, line2,
                                      rows)
        return points, raw, power, self.config.pass_prior

    def _user_weights(self, board: Board, color: int
                      ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], float, float]:
        """The user prior's weights on the candidates, normalised with the pass.

        Weights are scaled by their largest value first (so any finite scale
        works at any ``prior_power``).  Mass on points that are not
        candidates (illegal, or the mover's own true eyes) is dropped; if
        nothing is left on the candidates and the pass, they share equally.
        """
        assert self.user_prior is not None
        npts = board.size * board.size
        values = call_prior(self.user_prior, board, npts + 1)
        points, _ = expansion_moves(board, color, np.ones(npts, dtype=np.uint32), 1.0, 1.0)
        power = self.config.prior_power if self.config.prior_power is not None else 1.0
        if not len(points):
            return points, np.zeros(0), power, 0.5   # the pass alone: prior_node gives it 1
        raw = values[points].astype(np.float64)
        pass_weight = float(values[npts])
        top = max(float(raw.max()), pass_weight)
        if not top > 0:
            raw, pass_weight, top = np.ones(len(points)), 0.0, 1.0
        raw = np.maximum(raw / top, MIN_USER_WEIGHT)
        pass_weight /= top
        # The pass's share after the power, as prior_node forms the others'.
        pass_power = pass_weight ** power
        total = float((raw ** power).sum()) + pass_power
        pass_share = min(max(pass_power / total, 1e-6), 1 - 1e-6)
        return points, raw, power, pass_share

    def _virtual_playouts(self, node: TreeNode, moves: int) -> None:
        """Prior knowledge as virtual playouts: ``even_visits`` at 0.5 for every
        move, ``pattern_visits`` at ``r / (1 + r)`` for the non-pass moves,
        ``r`` = prior / mean prior (0.5 for an average move)."""
        config = self.config
        node.pn[:] += config.even_visits
        node.pw[:] += 0.5 * config.even_visits
        if moves:
            rel = node.prior[:-1].astype(np.float64) * moves / (1 - config.pass_prior)
            node.pn[:-1] += config.pattern_visits
            node.pw[:-1] += config.pattern_visits * rel / (1 + rel)

    def _tactics(self, board: Board, color: int, points: npt.NDArray[np.int64]
                 ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float64]]:
        """Tactical code of each move in ``points`` (ladder first, then race)
        and the share in [0, 1] of the tactical prior and virtual playouts it
        gets: 0 without a code, else stones at stake / ``stake_stones``,
        capped at 1 (1 for every code when ``stake_stones`` is 0)."""
        config = self.config
        n = board.size * board.size
        staked = config.stake_stones > 0
        stakes = np.zeros(n, dtype=np.int16) if staked else None
        codes = board.tactics_flat(color, stakes)
        if config.race_reading:
            race_stakes = np.zeros(n, dtype=np.int16) if staked else None
            race = board.races_flat(color, race_stakes)
            unset = codes == TACTIC_NONE
            codes = np.where(unset, race, codes)
            if stakes is not None and race_stakes is not None:
                stakes[unset] = race_stakes[unset]
        tactics = codes[points]
        if stakes is None:
            weight = (tactics != TACTIC_NONE).astype(np.float64)
        else:
            weight = np.minimum(stakes[points], config.stake_stones) / config.stake_stones
            weight[tactics == TACTIC_NONE] = 0.0
        return tactics, weight


def _name(function: object) -> str:
    """How an error names a user's callable."""
    return getattr(function, "__qualname__", None) or repr(function)


def forbid_moves(forbid: ForbidFunction, board: Board, node: TreeNode, depth: int) -> None:
    """Forbid in ``node`` (new, for ``board``, ``depth`` plies below the root)
    the moves ``forbid`` names; the pass stays when they name every move.
    Raises :class:`PriorError` as :func:`forbidden_set`."""
    ban_moves(node, forbidden_set(forbid, board, depth))


def ban_moves(node: TreeNode, banned: set[int]) -> None:
    """Forbid in ``node`` the moves of ``banned`` (flat indices, -1 the
    pass), the pass excepted when they name every move (:func:`keep_the_pass`)."""
    moves = [int(m) for m in node.moves]
    banned = keep_the_pass(banned, moves)
    for j, move in enumerate(moves):
        if move in banned:
            node.forbid(j)


def keep_the_pass(banned: set[int], moves: Iterable[int]) -> set[int]:
    """``banned`` without the pass (-1) when it names every one of ``moves``:
    a position always keeps a move, as KataGo's ``avoidMoves`` keeps the
    pass (the one rule for the tree, the final answer and the reports)."""
    return banned - {-1} if banned >= set(moves) else banned


def forbidden_set(forbid: ForbidFunction, board: Board, depth: int) -> set[int]:
    """The moves ``forbid(board.copy(), depth)`` names, checked one at a time as they
    come (an endless iterable stops at the first bad or surplus one).
    Raises :class:`PriorError` when ``forbid`` raises, names something
    that is not a move index (an integer, not a bool, from -1 to ``size *
    size - 1``) or names more than four times as many moves as there are."""
    name = _name(forbid)
    top = board.size * board.size
    out: set[int] = set()
    try:
        answer = forbid(board.copy(), depth)
        if isinstance(answer, (str, bytes)) or not isinstance(answer, Iterable):
            raise PriorError(f"forbid {name} returned {type(answer).__name__}, not an "
                             f"iterable of flat move indices (-1 for the pass)")
        for count, move in enumerate(answer):
            if isinstance(move, (bool, np.bool_)):
                raise PriorError(f"forbid {name} named a bool, not a move index")
            try:
                index = operator.index(move)
            except TypeError:
                raise PriorError(f"forbid {name} named {shown_value(move)} "
                                 f"({type(move).__name__}), not a flat move index (an integer; "
                                 f"-1 for the pass)") from None
            if not -1 <= index < top:
                raise PriorError(f"forbid {name} named a move outside -1..{top - 1}")
            if count >= 4 * (top + 1):
                raise PriorError(f"forbid {name} named more than {4 * (top + 1)} moves")
            out.add(index)
    except _RERAISE:
        raise
    except BaseException as exc:  # noqa: BLE001 - reported as the plug-in's failure
        raise PriorError(raised(f"forbid {name}", exc)) from exc
    return out


def call_prior(prior: PriorFunction, board: Board, length: int) -> npt.NDArray[np.float64]:
    """``prior(board.copy())`` as ``float64[length]``, checked: real numbers,
    finite, non-negative, not all zero.

    Raises :class:`PriorError` naming the prior and the problem (it raised --
    ``MemoryError`` passes through --, what it returned, the shape, a NaN or
    infinity, a negative value, all zeros).
    """
    from fastplay.search.evaluation import real_array

    name = _name(prior)
    try:
        answer = prior(board.copy())
    except _RERAISE:
        raise
    except BaseException as exc:  # noqa: BLE001 - reported as the prior's failure
        raise PriorError(raised(f"prior {name}", exc)) from exc
    values = real_array(answer, f"prior {name}", PriorError)
    if values.shape != (length,):
        raise PriorError(f"prior {name} returned shape {values.shape}, expected "
                         f"({length},) (size*size points, then the pass)")
    if not np.all(np.isfinite(values)):
        raise PriorError(f"prior {name} returned NaN or infinity")
    if np.any(values < 0):
        raise PriorError(f"prior {name} returned a negative value")
    if not np.any(values > 0):
        raise PriorError(f"prior {name} returned all zeros: no weight to normalise")
    return values
