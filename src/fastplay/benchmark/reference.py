"""Reference values: the reference filter and the evaluation of one candidate.

Both run in worker processes (local or Ray, :mod:`fastplay.backend`) as
pure functions of their task: a task carries the position, the move, the
settings and the seed, so its answer does not depend on which worker runs
it, in which order, or how many workers there are.

**The filter** (:func:`filter_decision`) searches the decision position
(``FilterSpec.visits`` visits) and proposes its ``top`` most visited moves
(those with at least ``min_share`` of the visits) plus the game move.  The
decision is *kept* when at least two of them are legal and their filter
values differ by at least ``margin`` (win probability): a choice that
matters, the rule of a backgammon benchmark.

**The reference value** of a candidate (:func:`evaluate`) is the win
probability of the side that plays it, measured after the move by
``repeats`` independent fastplay searches of ``visits`` visits each (each
search's value is one minus the opponent's best-move win rate); the value
is their mean and the standard error their sample standard deviation over
``sqrt(repeats)``.  Every candidate of every decision, including those a
candidate-completion pass adds later, is evaluated the same way, so
candidates are compared at equal quality.  A pass that ends the game is
scored exactly (area score, :meth:`Board.score`): 1, 0 or 0.5, error 0.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from fastplay.backend import derive_seed
from fastplay.benchmark.decisions import Decision, Position

__all__ = ["FilterSpec", "ReferenceSpec", "CandidateTask", "FilterTask", "Evaluation",
           "evaluate", "filter_decision", "REFERENCE_AUTO", "recorded_search",
           "OPTIONS_SINCE", "completed_search"]


#: What ``ReferenceSpec.prior == "auto"`` means, per board size (absent: the
#: playout values): fixed with the format, not the search's ``AUTO_PRIORS``.
REFERENCE_AUTO: dict[int, str] = {9: "gnugo9x9"}


@dataclass(frozen=True)
class FilterSpec:
    """Which positions become decisions and which moves get references.

    Attributes:
        visits: visits of the filter search of the decision position.
        top: most visited moves proposed as candidates (plus the game move).
        min_share: a proposed move needs at least this share of the visits.
        margin: the filter values of the candidates must span at least this
            much (win probability) for the position to be kept.
        significance: after rating, the worst candidate must be below the
            best by more than this many combined standard errors
            (:func:`fastplay.benchmark.builder.significant`).
    """

    visits: int = 2000
    top: int = 4
    min_share: float = 0.02
    margin: float = 0.05
    significance: float = 2.0


@dataclass(frozen=True)
class ReferenceSpec:
    """How a candidate's reference value is measured.

    Attributes:
        visits: visits of each search after the candidate move.
        repeats: independent searches (seeds) per candidate; at least 2, so
            that each value has a measured standard error.
        patterns: the built-in pattern database of the playouts.
        prior: the search's prior: ``"none"`` (the playout values), a name
            :func:`fastplay.prior.load_prior` takes, or ``"auto"``, which in
            a benchmark file means what it meant when the format was made:
            the learned ``gnugo9x9`` on 9x9 and the playout values on every
            other size (``REFERENCE_AUTO``), whatever the search's own
            ``prior_table="auto"`` picks today (it took learned 13x13 and
            19x19 priors later), so that old files keep their references.
        search: every other :class:`fastplay.search.SearchConfig` option of
            the reference searches, as :func:`recorded_search` records them
            when a benchmark is built, so that its references do not move
            with the engine's defaults; ``None`` (files made before the
            options were recorded): the defaults of that time
            (:func:`_search`).
    """

    visits: int = 4000
    repeats: int = 2
    patterns: str = "mc_montegnu_classic"
    prior: str = "auto"
    search: dict[str, Any] | None = field(default=None, hash=False)

    def to_json(self) -> dict[str, Any]:
        """The spec as a JSON object (``method`` first for readers; no
        ``search`` key when none is recorded, as in the older files)."""
        out = {"method": "search", **asdict(self)}
        if self.search is None:
            del out["search"]
        return out

    def recorded(self, size: int) -> ReferenceSpec:
        """This spec with today's search options recorded for ``size`` (as it
        is when they already are)."""
        return self if self.search is not None else replace(self, search=recorded_search(size))


#: Search options added after reference specs began to record theirs, with
#: the value that gives the searches of before: a record without one of
#: them (or a bundled benchmark, which records none) searches with that.
OPTIONS_SINCE: dict[str, Any] = {"ancestor_amaf": 0.0, "criticality": 0.0,
                                 "criticality_depth": 0, "widen_base": 0, "widen_visits": 40.0,
                                 "widen_factor": 1.4, "reply_visits": 0.0, "widen_ties": None,
                                 "nakade_prior": 1.0}


def completed_search(search: dict[str, Any]) -> dict[str, Any]:
    """Recorded search options completed with :data:`OPTIONS_SINCE` (those
    newer than the record, at the value that gives its searches)."""
    return {**OPTIONS_SINCE, **search}


def recorded_search(size: int) -> dict[str, Any]:
    """The options of a reference search on a board of ``size``, as today's
    defaults set them: every :class:`fastplay.search.SearchConfig` option but
    ``prior_table`` (the spec's ``prior``), no resignation, no book, and the
    expansion threshold, exploration constant, widening and nakade factor
    resolved for the size (``max(EXPAND_FLOOR, 2 leaf batches)``,
    ``SearchConfig.puct_for``, ``widen_for``, ``nakade_for``), so
    that a later change of the default rule leaves the references alone.
    Plain JSON values."""
    from fastplay.search import SearchConfig
    from fastplay.search.config import default_expand_threshold
    from fastplay.search.driver import leaf_batch

    config = SearchConfig(resign_threshold=None, book=False)
    options = {f.name: getattr(config, f.name) for f in fields(SearchConfig)
               if f.name != "prior_table"}
    options["expand_threshold"] = default_expand_threshold(leaf_batch(None, 1, size))
    options["c_puct"] = config.puct_for(size)      # the size's, resolved as the threshold
    options["widen_base"] = config.widen_for(size)
    options["nakade_prior"] = config.nakade_for(size)
    return options


@dataclass(frozen=True)
class Evaluation:
    """A candidate's reference: value (win probability of the mover) and its standard error."""

    move: str
    value: float
    se: float


@dataclass(frozen=True)
class CandidateTask:
    """Everything :func:`evaluate` needs (picklable)."""

    position: Position
    decision_id: str
    move: str
    spec: ReferenceSpec
    seed: int


@dataclass(frozen=True)
class FilterTask:
    """Everything :func:`filter_decision` needs (picklable)."""

    decision: Decision
    spec: FilterSpec
    reference: ReferenceSpec
    seed: int


_WORKER: dict[str, Any] = {}


def _search(spec: ReferenceSpec, seed: int, size: int) -> Any:
    """A fastplay search with the spec's database and prior (``"auto"``:
    ``REFERENCE_AUTO``), no resignation, no book, for a board of ``size``.

    The spec's recorded ``search`` options, or for a spec without them (the
    bundled benchmarks) the defaults of their time: ``c_puct`` 1.0, the
    expansion threshold pinned to two leaf batches (the default became
    ``EXPAND_FLOOR`` playouts on 9x9 later), 50 virtual playouts for a
    tactical code (``LADDER_VISITS`` became 15 later).  A benchmark's references must
    not move with the engine's defaults."""
    from fastplay.patterns import PatternDatabase
    from fastplay.search import MCTS, SearchConfig
    from fastplay.search.driver import leaf_batch

    if _WORKER.get("patterns") != spec.patterns:
        _WORKER["db"] = PatternDatabase.builtin(spec.patterns)
        _WORKER["patterns"] = spec.patterns
    prior = REFERENCE_AUTO.get(size) if spec.prior == "auto" else \
        None if spec.prior == "none" else spec.prior
    if spec.search is not None:
        config = SearchConfig(**completed_search(spec.search), prior_table=prior)
    else:
        # c_puct: 1.0 on every size then (13x13's became 0.7 later).
        config = SearchConfig(prior_table=prior, resign_threshold=None, book=False,
                              expand_threshold=2 * leaf_batch(None, 1, size), c_puct=1.0,
                              ladder_visits=50.0, **OPTIONS_SINCE)
    return MCTS(_WORKER["db"], config=config, seed=seed)


def _ends_game(position: Position, move: str) -> bool:
    return move == "pass" and bool(position.moves) and position.moves[-1][1] == "pass"


def evaluate(task: CandidateTask) -> Evaluation:
    """The reference value of ``task.move`` in ``task.position`` (module docstring).

    Raises ``ValueError`` if the move is not legal there.
    """
    board = task.position.board()
    mover = board.to_move
    if _ends_game(task.position, task.move):
        score = board.score() * (1 if mover == "B" else -1)
        return Evaluation(task.move, 1.0 if score > 0 else 0.0 if score < 0 else 0.5, 0.0)
    if not board.is_legal(task.move):
        raise ValueError(f"{task.move} is not a legal move for {mover} here")
    board.play(task.move)
    values = []
    for repeat in range(task.spec.repeats):
        seed = derive_seed(task.seed, task.decision_id, task.move, repeat)
        result = _search(task.spec, seed, board.size).run(board, visits=task.spec.visits)
        values.append(1.0 - float(result.winrate))
    mean = math.fsum(values) / len(values)
    var = math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return Evaluation(task.move, round(mean, 5), round(math.sqrt(var / len(values)), 5))


def filter_decision(task: FilterTask) -> list[tuple[str, float]]:
    """The decision's candidates with their filter values, best first, or
    ``[]`` when the decision is not kept (module docstring)."""
    decision, spec = task.decision, task.spec
    board = decision.position.board()
    result = _search(task.reference, derive_seed(task.seed, "filter", decision.id),
                     board.size).run(board, visits=spec.visits)
    total = max(1, sum(c.visits for c in result.children))
    values: dict[str, float] = {}
    for child in result.children[:spec.top]:
        if child.visits >= spec.min_share * total and child.move != "resign":
            values[child.move] = round(float(child.winrate), 5)
    if decision.game_move not in values and board.is_legal(decision.game_move):
        child_of = {c.move: c for c in result.children}
        game = child_of.get(decision.game_move)
        # An unvisited game move gets the root's value: it still needs its reference.
        values[decision.game_move] = round(float(game.winrate if game is not None and
                                                 game.visits else result.winrate), 5)
    if len(values) < 2 or max(values.values()) - min(values.values()) < spec.margin:
        return []
    return sorted(values.items(), key=lambda item: (-item[1], item[0]))
