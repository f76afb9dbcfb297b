"""Search one position of a query and answer it (:func:`analyse_position`).

``avoidMoves``/``allowMoves``: fastplay's search has no such option, so a
filtered query searches with a user prior (:func:`filter_prior`): the
built-in prior of each new node with the prohibited moves set to 0.  A
zero prior alone does not keep a move out: RAVE's all-moves-as-first value
of an unvisited move can still win the selection (a move with prior 0 took
a third of 3000 visits in a test position), so a filtered search runs
without RAVE, and the root's prohibited moves are also left out of the
answer.  The prior callable sees positions, not depths: ``untilDepth`` 1
(what KaTrain sends) prohibits the moves at the root exactly; a larger
``untilDepth`` prohibits them for that player at every depth.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt

from fastplay.analysis.query import MoveFilter, Query
from fastplay.analysis.respond import gtp_name, build_response, no_results, policy_values
from fastplay.board import Board, format_vertex
from fastplay.search import MCTS, SearchConfig, SearchInfo

__all__ = ["analyse_position", "filter_prior", "analysis_config", "moves_ownership",
           "excluded_moves", "filters_apply", "SNAPSHOT_INTERVAL", "MOVE_OWNERSHIP_PLAYOUTS"]

#: Seconds between two looks at a running search: how soon a terminate
#: takes effect and how finely ``reportDuringSearchEvery`` is kept.
SNAPSHOT_INTERVAL = 0.05

#: Playouts after each move for ``includeMovesOwnership``: the move's visits,
#: within these bounds.
MOVE_OWNERSHIP_PLAYOUTS = (16, 128)

Emit = Callable[[dict[str, Any]], None]


def analysis_config(base: SearchConfig, filtered: bool) -> SearchConfig:
    """The search options of an analysis: no resignation and no opening
    book (the answer is the moves' statistics, not a move to play); no RAVE
    when moves are filtered (see the module's docstring)."""
    config = replace(base, resign_threshold=None, book=False)
    return replace(config, rave=False) if filtered else config


def _key(board: Board) -> tuple[int, int, int]:
    return board.zobrist_hash, board.to_move_code, board.ko_index


def filter_prior(db: Any, config: SearchConfig, root: Board, filters: list[MoveFilter]
                 ) -> Callable[[Board], npt.NDArray[np.float64]]:
    """A prior for ``MCTS(prior=...)``: the built-in prior of ``config``
    (without the tactical factors, which the search applies again to a
    user prior) with ``filters``' prohibited moves at 0.  Filters with
    ``until_depth`` 1 apply at ``root`` only.  When nothing is left, the
    pass gets everything."""
    # The helper only makes nodes (no leaf is evaluated): rollouts alone
    # (mix=1), whatever evaluator the search itself mixes in.
    helper = MCTS(db, config=replace(config, ladder_prior=1.0, ladder_visits=0.0,
                                     fight_prior=1.0, mix=1.0), seed=0)
    points = root.size * root.size
    root_key = _key(root)

    def prior(board: Board) -> npt.NDArray[np.float64]:
        node = helper.expand(board)
        values = np.zeros(points + 1)
        values[np.where(node.moves < 0, points, node.moves)] = node.prior
        at_root = _key(board) == root_key
        for rule in filters:
            if rule.player != board.to_move or (rule.until_depth <= 1 and not at_root):
                continue
            named = np.array([points if m < 0 else m for m in rule.moves], dtype=np.int64)
            if rule.allow:
                keep = np.zeros(points + 1, dtype=bool)
                keep[named] = True
                values[~keep] = 0.0
            else:
                values[named] = 0.0
        if not values.sum() > 0:
            values[points] = 1.0
        return values

    return prior


def excluded_moves(board: Board, filters: list[MoveFilter]) -> frozenset[str]:
    """GTP names of the moves ``filters`` prohibit at ``board`` (the root)."""
    size = board.size
    everything = {-1, *(int(i) for i in board.legal_indices(board.to_move_code))}
    out: set[int] = set()
    for rule in filters:
        if rule.player == board.to_move:
            out |= (everything - rule.moves) if rule.allow else set(rule.moves)
    return frozenset(gtp_name(format_vertex(m, size)) for m in out)


def moves_ownership(board: Board, info: SearchInfo, db: Any, config: SearchConfig,
                    seed: int) -> dict[str, npt.NDArray[np.float32]]:
    """``includeMovesOwnership``: for each visited move, the mean ownership
    (+1 Black, ``float32[size, size]``) of playouts from the position after
    it -- as many as the move's visits, within :data:`MOVE_OWNERSHIP_PLAYOUTS`.
    The search keeps ownership for the root only."""
    import fastplay

    low, high = MOVE_OWNERSHIP_PLAYOUTS
    out = {}
    for i, child in enumerate(info.children):
        if child.visits <= 0:
            continue
        after = board.copy()
        try:
            after.play(child.move)
        except ValueError:
            continue
        stats = fastplay.playouts(after, db, n=min(max(child.visits, low), high),
                                  seed=seed + i, scoring=config.scoring)
        out[gtp_name(child.move)] = stats.ownership
    return out


def filters_apply(filters: list[MoveFilter], board: Board) -> bool:
    """Whether ``filters`` prohibit anything in a search of ``board``: a rule
    for the side to move, or one deeper than the root."""
    return any(rule.until_depth > 1 or rule.player == board.to_move for rule in filters)


def analyse_position(query: Query, index: int, db: Any, config: SearchConfig,
                     seed: int | None, stop: threading.Event, emit: Emit) -> None:
    """Search turn ``query.turns[index]`` and ``emit`` its answers: reports
    every ``query.report_every`` seconds while it runs, then exactly one
    final answer (``isDuringSearch`` false) -- the last snapshot's when
    ``stop`` is set first, ``noResults`` when there was none.  Errors of
    the search propagate."""
    board, turn = query.positions[index], query.turns[index]
    filtered = filters_apply(query.filters, board)
    config = analysis_config(config, filtered)
    prior = filter_prior(db, config, board, query.filters) if filtered else None
    search = MCTS(db, config=config, threads=query.threads, seed=seed, prior=prior)
    policy = None
    if query.include_policy:
        node = MCTS(db, config=config, seed=0).expand(board)
        policy = policy_values(board, node.moves, node.prior)
    excluded = excluded_moves(board, query.filters) if filtered else frozenset()
    own_seed = (seed or 0) + 1

    def answer(info: SearchInfo, during: bool) -> dict[str, Any]:
        per_move = moves_ownership(board, info, db, config, own_seed) \
            if query.include_moves_ownership else None
        return build_response(query.id, turn, info, board, perspective=query.perspective,
                              pv_len=query.pv_len, during=during,
                              ownership=query.include_ownership, moves_ownership=per_move,
                              policy=policy, excluded=excluded,
                              ownership_stdev=query.include_ownership_stdev,
                              pv_visits=query.include_pv_visits)

    every = query.report_every
    first = query.first_report_after if query.first_report_after is not None else every
    next_report = time.monotonic() + first if every is not None and first is not None \
        else None
    last: SearchInfo | None = None
    infos = search.analyze(board, visits=query.max_visits, seconds=query.max_time,
                           interval=SNAPSHOT_INTERVAL)
    try:
        for info in infos:
            last = info
            if info.final or stop.is_set():
                break
            if next_report is not None and every is not None \
                    and time.monotonic() >= next_report:
                emit(answer(info, True))
                next_report = time.monotonic() + every
    finally:
        close = getattr(infos, "close", None)
        if close is not None:
            close()  # stops the search when it was cut short
    emit(no_results(query.id, turn) if last is None else answer(last, False))
