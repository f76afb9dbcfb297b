"""Live analysis over GTP: Leela Zero's ``lz-analyze`` and KataGo's
``kata-analyze``, and their ``genmove`` forms (KataGo's
``docs/GTP_Extensions.md``).

``lz-analyze [color] [interval] [KEY VALUE ...]`` answers ``=`` and then a
line per ``interval`` centiseconds (default 100) until any new input line
arrives; the stream then ends with the usual empty line and the new command
is answered.  Keys: ``interval N``, ``minmoves N``, ``maxmoves N``,
``avoid PLAYER VERTICES UNTILDEPTH`` (any number) and ``allow PLAYER
VERTICES UNTILDEPTH`` (at most one), as KataGo and Leela Zero take them
(vertices comma-separated; Lizzie sends them): the search then runs with the
analysis protocol's restriction (:func:`fastplay.analysis.worker.filter_forbid`,
a tree of its own) and the prohibited root moves are not reported;
``kata-analyze`` also takes ``ownership``, ``ownershipStdev``,
``pvVisits``, ``pvEdgeVisits``, ``rootInfo`` and ``movesOwnership``
(``true|false``; the edge visits of a tree are its visits; a move's
ownership is that of playouts from the position after it, as the analysis
protocol's ``includeMovesOwnership``
(:func:`fastplay.analysis.worker.moves_ownership`), for the 24 most visited
moves, the root's for the others), and
``movesOwnershipStdev`` only as ``false``.  A line holds one ``info`` group
per root move, best first::

    info move E4 visits 1178 winrate 4802 prior 2211 lcb 4781 order 0 pv E4 E3 ...

(``lz-analyze``: win rate, prior and lcb times 10000, rounded, in [0,
10000]; ``kata-analyze``: floats, with ``utility`` = 2 winrate - 1,
``scoreMean``/``scoreLead``/``scoreSelfplay``/``scoreStdev`` from this
search's playouts through the move, ``utilityLcb``, ``weight`` (the visits),
then ``rootInfo`` and ``ownership``/``ownershipStdev`` of every point, row
major from the top-left, appended after the moves, in KataGo's order).  A
move without visits (``minmoves``) shows the root's values, as KataGo's
first-play values stand in for them.  Every value is from the point of view
of the side to move.  ``lz-genmove_analyze`` and
``kata-genmove_analyze`` search as ``genmove`` does, stream the same lines,
are not cut short by input, and end with ``play <vertex|pass|resign>``,
which is played.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from fastplay import _threads
from fastplay.analysis.query import MoveFilter
from fastplay.analysis.respond import gtp_name
from fastplay.asciinum import ascii_float
from fastplay.board import InvalidVertexError, parse_vertex
from fastplay.color import Color
from fastplay.gtp.protocol import GTPError, Stream, parse_color, parse_int

if TYPE_CHECKING:
    from fastplay.gtp.engine import GTPEngine

__all__ = ["COMMANDS", "AnalysisRequest", "parse_request", "lz_line", "kata_line"]

#: Centiseconds between reports when the command names no interval.
DEFAULT_INTERVAL = 100

#: ``movesOwnership``: playouts after each reported move, by its visits
#: within these bounds (the analysis protocol's are (16, 128)), for the
#: GTP_MOVE_OWNERSHIP_MOVES most visited moves; the others show the root's
#: ownership (19x19's 290 visited moves took seconds a report).
GTP_MOVE_OWNERSHIP_PLAYOUTS = (8, 32)
GTP_MOVE_OWNERSHIP_MOVES = 24


@dataclass
class AnalysisRequest:
    """An analysis command's arguments."""

    color: Color
    interval: int = DEFAULT_INTERVAL      # centiseconds
    min_moves: int = 0
    max_moves: int | None = None
    ownership: bool = False
    ownership_stdev: bool = False
    moves_ownership: bool = False
    pv_visits: bool = False
    pv_edge_visits: bool = False
    root_info: bool = False
    filters: list[MoveFilter] = field(default_factory=list)
    excluded: frozenset[str] = frozenset()   # GTP names the filters keep out of the reports


#: ``kata-analyze``'s true/false keys: KataGo's spelling -> the request's field.
KATA_FLAGS = {"ownership": "ownership", "ownershipStdev": "ownership_stdev",
              "pvVisits": "pv_visits", "pvEdgeVisits": "pv_edge_visits",
              "rootInfo": "root_info", "movesOwnership": "moves_ownership",
              "movesOwnershipStdev": ""}


def _boolean(text: str) -> bool:
    value = {"true": True, "false": False}.get(text.lower())
    if value is None:
        raise GTPError(f"syntax error: expected true or false, not '{text}'")
    return value


def _move_filter(words: Sequence[str], size: int, allow: bool) -> MoveFilter:
    """``PLAYER VERTICES UNTILDEPTH`` of an ``avoid`` or ``allow`` key."""
    player, vertices, depth = words
    moves = set()
    for vertex in vertices.split(","):
        try:
            moves.add(parse_vertex(vertex, size))
        except InvalidVertexError as exc:
            raise GTPError(f"syntax error: {exc}") from None
    until = parse_int(depth, "untildepth")
    if until < 1:
        raise GTPError("syntax error: untildepth must be at least 1")
    return MoveFilter(str(parse_color(player)), frozenset(moves), until, allow)


def _number_key(request: AnalysisRequest, key: str, value: str) -> None:
    number = parse_int(value, key)
    if number < 0:
        raise GTPError(f"syntax error: {key} must not be negative")
    if key == "interval":
        request.interval = number
    elif key == "minmoves":
        request.min_moves = number
    else:
        request.max_moves = number


def _is_number(word: str) -> bool:
    """Whether a word of an analysis command is a number (an interval where
    a key could stand: keys are words)."""
    try:
        ascii_float(word)
    except ValueError:
        return False
    return True


def parse_request(args: Sequence[str], to_move: Color, kata: bool,
                  size: int = 19) -> AnalysisRequest:
    """``[color] [interval] [KEY VALUE ...]``; :class:`GTPError` for anything
    else.  ``size``: the board's, for the vertices of ``avoid``/``allow``."""
    words = list(args)
    request = AnalysisRequest(to_move)
    if words and words[0].lower() in ("b", "w", "black", "white"):
        request.color = parse_color(words.pop(0))
    if words and _is_number(words[0]):
        # (an interval of 10.5 or 1e3 is told it must be an integer)
        request.interval = parse_int(words.pop(0), "interval (centiseconds)")
    keys = {"interval", "minmoves", "maxmoves"} | (set(KATA_FLAGS) if kata else set())
    while words:
        key = words.pop(0)
        wanted = 3 if key in ("avoid", "allow") else 1
        if key not in keys and wanted == 1:
            raise GTPError(f"syntax error: unknown key '{key}'")
        if len(words) < wanted:
            raise GTPError(f"syntax error: '{key}' has no value" if wanted == 1 else
                           f"syntax error: {key} takes a player, vertices and a depth")
        values, words = words[:wanted], words[wanted:]
        if key in KATA_FLAGS:
            _flag(request, key, _boolean(values[0]))
        elif wanted == 3:
            rule = _move_filter(values, size, key == "allow")
            if rule.allow and any(f.allow and f.player == rule.player for f in request.filters):
                raise GTPError("syntax error: at most one allow per player")
            request.filters.append(rule)
        else:
            _number_key(request, key, values[0])
    if request.interval < 1:
        raise GTPError("syntax error: interval must be at least 1 centisecond")
    return request


def _flag(request: AnalysisRequest, key: str, value: bool) -> None:
    """Set a ``kata-analyze`` true/false key (:data:`KATA_FLAGS`)."""
    if not KATA_FLAGS[key]:
        if value:
            raise GTPError(f"{key} true is not supported: fastplay keeps no ownership "
                           "deviation per move")
        return
    setattr(request, KATA_FLAGS[key], value)


def _per10000(value: float) -> int:
    return 0 if not math.isfinite(value) else min(10000, max(0, round(10000 * value)))


def _moves(info: Any, request: AnalysisRequest) -> list[Any]:
    children = [c for c in info.children if gtp_name(c.move) not in request.excluded]
    return children if request.max_moves is None else children[:request.max_moves]


def _search_for(engine: GTPEngine, request: AnalysisRequest, board: Any) -> Any:
    """The engine's search; for ``avoid``/``allow`` that prohibit something,
    a filtered search of its own (the analysis protocol's)."""
    search: Any = engine.search()
    if not hasattr(search, "analyze"):
        raise GTPError("this search cannot analyse")
    from fastplay.analysis.worker import analysis_config, excluded_moves, filter_forbid
    from fastplay.analysis.worker import filters_apply
    from fastplay.search import MCTS, SearchConfig

    if not filters_apply(request.filters, board):
        return search
    db = engine.load_patterns()
    config = analysis_config(getattr(search, "config", SearchConfig()))
    request.excluded = excluded_moves(board, request.filters)
    # The engine's evaluator and prior too: its config's mix (below 1 with
    # an evaluator) needs the evaluator.
    return MCTS(db, config=config, threads=engine.threads, seed=engine.seed,
                forbid=filter_forbid(request.filters),
                evaluator=getattr(search, "evaluator", None),
                prior=getattr(search, "prior", None))


def _winrate(child: Any, info: Any) -> float:
    """A move's win rate, or the root's for a move without visits (KataGo
    gives such a move its parent's first-play value)."""
    if child.visits > 0 and math.isfinite(child.winrate):
        return float(child.winrate)
    return float(info.root_winrate)


def lz_line(info: Any, request: AnalysisRequest) -> str:
    """One ``lz-analyze`` report of a :class:`fastplay.search.SearchInfo`."""
    parts = []
    for child in _moves(info, request):
        winrate = _per10000(_winrate(child, info))
        lcb = min(_per10000(child.lcb), winrate)
        parts.append(f"info move {gtp_name(child.move)} "
                     f"visits {child.visits} winrate {winrate} prior {_per10000(child.prior)} "
                     f"lcb {lcb} order {child.order} pv "
                     + " ".join(gtp_name(m) for m in child.pv))
    return " ".join(parts)


def _float(value: float) -> str:
    return f"{value + 0.0:.6g}"   # + 0.0: no "-0"


def _scores(mean: float, stdev: float) -> list[str]:
    """KataGo's score fields (``scoreMean`` is the lead, as KataGo writes it)."""
    return [f"scoreMean {_float(mean)}", f"scoreStdev {_float(stdev)}",
            f"scoreLead {_float(mean)}", f"scoreSelfplay {_float(mean)}"]


def _kata_move(child: Any, info: Any, request: AnalysisRequest,
               owned: Mapping[str, Any] | None = None, sign: float = 1.0) -> str:
    """One move's ``info`` group of a ``kata-analyze`` line (``owned``: move
    -> its ownership, +1 Black, for ``movesOwnership``; ``sign``: +1 with
    Black to move)."""
    winrate = _winrate(child, info)
    fields = [f"info move {gtp_name(child.move)}",
              f"visits {child.visits}", f"utility {_float(2 * winrate - 1)}",
              f"winrate {_float(winrate)}"]
    mean, stdev = child.score_mean, child.score_stdev
    if child.visits <= 0:
        mean, stdev = info.score_mean, info.score_stdev
    if math.isfinite(mean):
        fields += _scores(mean, stdev)
    lcb = min(child.lcb, winrate)
    fields += [f"prior {_float(child.prior)}", f"lcb {_float(lcb)}",
               f"utilityLcb {_float(2 * lcb - 1)}", f"weight {child.visits}",
               f"order {child.order}", "pv " + " ".join(gtp_name(m) for m in child.pv)]
    visits = " ".join(str(v) for v in child.pv_visits)
    if request.pv_visits:
        fields.append(f"pvVisits {visits}")
    if request.pv_edge_visits:
        fields.append(f"pvEdgeVisits {visits}")
    if owned is not None:
        own = owned.get(gtp_name(child.move))
        fields.append(_kata_board("movesOwnership", info.ownership if own is None else own,
                                  sign))
    return " ".join(fields)


def _kata_root(info: Any) -> str:
    """``rootInfo``: the root's visits (reused ones included) and values."""
    visits = max(int(info.visits), sum(int(c.visits) for c in info.children))
    winrate = float(info.root_winrate)
    fields = [f"rootInfo visits {visits}", f"utility {_float(2 * winrate - 1)}",
              f"winrate {_float(winrate)}"]
    fields += _scores(info.score_mean, info.score_stdev) + [f"weight {visits}"]
    return " ".join(fields)


def _kata_board(name: str, values: Any, sign: float) -> str:
    """A per-point field (``ownership``, ``ownershipStdev``), row major from the top-left."""
    flat = np.asarray(values, dtype=np.float64).ravel() * sign
    return name + " " + " ".join(_float(v) for v in flat)


def kata_line(info: Any, request: AnalysisRequest, black_to_move: bool,
              owned: Mapping[str, Any] | None = None) -> str:
    """One ``kata-analyze`` report of a :class:`fastplay.search.SearchInfo`
    (``owned``: per-move ownership for ``movesOwnership``, move -> +1 Black;
    a move without one shows the root's)."""
    sign = 1.0 if black_to_move else -1.0
    parts = [_kata_move(child, info, request, owned if request.moves_ownership else None, sign)
             for child in _moves(info, request)]
    if request.root_info:
        parts.append(_kata_root(info))
    if request.ownership:
        parts.append(_kata_board("ownership", info.ownership, sign))
    if request.ownership_stdev:
        stdev = info.ownership_stdev
        if stdev is None:
            stdev = np.zeros_like(np.asarray(info.ownership, dtype=np.float64))
        parts.append(_kata_board("ownershipStdev", stdev, 1.0))
    return " ".join(parts)


def _formatter(engine: GTPEngine, kata: bool, request: AnalysisRequest,
               board: Any, search: Any) -> Callable[[Any], str]:
    """The report line of a snapshot: ``lz_line`` or ``kata_line``, with the
    per-move ownership of ``movesOwnership`` computed for each report."""
    black = request.color == "B"
    if not kata:
        return lambda info: lz_line(info, request)
    if not request.moves_ownership:
        return lambda info: kata_line(info, request, black)
    from fastplay.analysis.worker import moves_ownership
    from fastplay.search import SearchConfig, SearchInfo

    db = engine.load_patterns()
    config = getattr(search, "config", SearchConfig())

    def line(info: Any) -> str:
        # Playouts after each reported move, fewer than the analysis
        # protocol's (a report waits for them: 19x19's took a second).
        shown: Any = info
        if isinstance(info, SearchInfo):
            shown = dataclasses.replace(
                info, children=_moves(info, request)[:GTP_MOVE_OWNERSHIP_MOVES])
        owned = moves_ownership(board, shown, db, config, (engine.seed or 0) + 1,
                                bounds=GTP_MOVE_OWNERSHIP_PLAYOUTS)
        return kata_line(info, request, black, owned)

    return line


def _analyze(engine: GTPEngine, args: Sequence[str], kata: bool) -> Stream:
    """``lz-analyze`` / ``kata-analyze``: reports until new input arrives."""
    from fastplay.gtp.gogui import show_result

    request = parse_request(args, engine.board.to_move, kata, engine.board.size)
    board = engine.search_position(request.color)
    search = _search_for(engine, request, board)
    line = _formatter(engine, kata, request, board, search)
    infos = search.analyze(board, interval=request.interval / 100, stop=engine.input_event,
                           min_moves=request.min_moves)

    def lines() -> Iterator[str]:
        try:
            for info in infos:
                if engine.gfx:
                    show_result(engine, info, request.color)
                yield line(info)
            # The search ended on its own (a full tree): the stream still ends
            # only when new input arrives.
            _threads.wait(engine.input_event)
        finally:
            infos.close()

    return Stream(lines(), interruptible=True)


def _move_search(engine: GTPEngine, request: AnalysisRequest, board: Any
                 ) -> tuple[Any, Callable[[], None]]:
    """The search for ``genmove_analyze``, and what undoes its set-up: the
    engine's own (its resignation count, clock and opening book, as
    ``genmove``), restricted by ``avoid``/``allow`` through its ``forbid``
    plug-in for this move; a search without one gets :func:`_search_for`'s."""
    from fastplay.analysis.worker import excluded_moves, filter_forbid, filters_apply

    search: Any = engine.search()
    if not hasattr(search, "analyze"):
        raise GTPError("this search cannot analyse")
    if not filters_apply(request.filters, board):
        return search, lambda: None
    if not hasattr(search, "forbid"):
        return _search_for(engine, request, board), lambda: None
    request.excluded = excluded_moves(board, request.filters)
    before = search.forbid
    search.forbid = filter_forbid(request.filters)

    def undo() -> None:
        search.forbid = before

    return search, undo


def _genmove_analyze(engine: GTPEngine, args: Sequence[str], kata: bool) -> Stream:
    """``lz-genmove_analyze`` / ``kata-genmove_analyze``: ``genmove`` with reports."""
    from fastplay.gtp.gogui import show_result

    request = parse_request(args, engine.board.to_move, kata, engine.board.size)
    if request.moves_ownership:
        # Its playouts after each move would come on top of the move's time.
        raise GTPError("movesOwnership is for kata-analyze: genmove_analyze keeps the "
                       "move's time for the search")
    color = request.color
    board = engine.search_position(color)
    search, undo = _move_search(engine, request, board)
    line = _formatter(engine, kata, request, board, search)
    # The game's move, as genmove searches it: its clock, resignation count
    # and dynamic komi.
    try:
        infos = search.analyze(board, visits=engine.playouts, seconds=engine.seconds,
                               interval=request.interval / 100, min_moves=request.min_moves,
                               move=True)
    except BaseException:
        undo()
        raise

    def lines() -> Iterator[str]:
        final = None
        try:
            for info in infos:
                if engine.gfx:
                    show_result(engine, info, color)
                yield line(info)
                final = info
        finally:
            infos.close()
            undo()
        move = "pass" if final is None else str(final.best_move).lower()
        if gtp_name(move) in request.excluded:     # never a move the command prohibits
            allowed = _moves(final, request) if final is not None else []
            move = allowed[0].move if allowed else "pass"
        yield "play " + engine.play_generated(move, color)

    return Stream(lines(), interruptible=False)


COMMANDS: dict[str, Callable[[GTPEngine, Sequence[str]], Stream]] = {
    "lz-analyze": lambda engine, args: _analyze(engine, args, kata=False),
    "kata-analyze": lambda engine, args: _analyze(engine, args, kata=True),
    "lz-genmove_analyze": lambda engine, args: _genmove_analyze(engine, args, kata=False),
    "kata-genmove_analyze": lambda engine, args: _genmove_analyze(engine, args, kata=True),
}
