"""Search one position of a query and answer it (:func:`analyse_position`).

``avoidMoves``/``allowMoves``: a filtered query searches with the search's
``forbid`` plug-in (:func:`filter_forbid`): each new node never searches
its prohibited moves (a prior of 0 did not keep them out: RAVE's
all-moves-as-first value, or the first-play value when the allowed moves
look lost, still chose them; a pass-only ``allowMoves`` in the opening gave
every visit to prohibited moves).  When a rule prohibits every move, the
pass stays, as in KataGo.  A rule holds for the first ``untilDepth`` plies
from the root (1: the root's own moves, what KaTrain sends), the plies
counted by the search (a node's board inside the tree carries no history).
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
from fastplay.search.priors import keep_the_pass

__all__ = ["analyse_position", "filter_forbid", "prohibited_moves", "analysis_config",
           "moves_ownership", "excluded_moves", "filters_apply", "SNAPSHOT_INTERVAL",
           "MOVE_OWNERSHIP_PLAYOUTS"]

#: Seconds between two looks at a running search: how soon a terminate
#: takes effect and how finely ``reportDuringSearchEvery`` is kept.
SNAPSHOT_INTERVAL = 0.05

#: Playouts after each move for ``includeMovesOwnership``: the move's visits,
#: within these bounds.
MOVE_OWNERSHIP_PLAYOUTS = (16, 128)

Emit = Callable[[dict[str, Any]], None]


def analysis_config(base: SearchConfig) -> SearchConfig:
    """The search options of an analysis: no resignation and no opening
    book (the answer is the moves' statistics, not a move to play)."""
    return replace(base, resign_threshold=None, book=False)


def prohibited_moves(board: Board, filters: list[MoveFilter], depth: int) -> frozenset[int]:
    """The moves ``filters`` prohibit at ``board`` (flat indices, -1 the pass),
    ``depth`` plies below the root (0: the root; a rule holds while
    ``depth < untilDepth``); never the pass when they would prohibit every
    legal move."""
    everything = {-1, *(int(i) for i in board.legal_indices(board.to_move_code))}
    out: set[int] = set()
    for rule in filters:
        if rule.player != board.to_move or depth >= rule.until_depth:
            continue
        out |= (everything - rule.moves) if rule.allow else (set(rule.moves) & everything)
    return frozenset(keep_the_pass(out, everything))


def filter_forbid(filters: list[MoveFilter]) -> Callable[[Board, int], frozenset[int]]:
    """The ``forbid`` plug-in of :class:`fastplay.search.MCTS` for ``filters``:
    :func:`prohibited_moves` at every new node, at the depth the search gives."""

    def forbid(board: Board, depth: int) -> frozenset[int]:
        return prohibited_moves(board, filters, depth)

    return forbid


def excluded_moves(board: Board, filters: list[MoveFilter]) -> frozenset[str]:
    """GTP names of the moves ``filters`` prohibit at ``board`` (the root)."""
    return frozenset(gtp_name(format_vertex(m, board.size))
                     for m in prohibited_moves(board, filters, 0))


def moves_ownership(board: Board, info: SearchInfo, db: Any, config: SearchConfig,
                    seed: int, bounds: tuple[int, int] = MOVE_OWNERSHIP_PLAYOUTS
                    ) -> dict[str, npt.NDArray[np.float32]]:
    """``includeMovesOwnership``: for each visited move, the mean ownership
    (+1 Black, ``float32[size, size]``) of playouts from the position after
    it -- as many as the move's visits, within ``bounds``.
    The search keeps ownership for the root only."""
    import fastplay

    low, high = bounds
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
    config = analysis_config(config)
    forbid = filter_forbid(query.filters) if filtered else None
    search = MCTS(db, config=config, threads=query.threads, seed=seed, forbid=forbid)
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
