"""One analysis query read and checked: the positions to search and how.

The fields and their limits are those of KataGo's ``docs/Analysis_Engine.md``
("Queries") and of its reference implementation (``cpp/command/analysis.cpp``):
a field of the wrong type or out of range is a :class:`QueryError` naming
the field, answered ``{"id", "field", "error"}``; a field fastplay reads but
cannot honour fully gives a warning, ``{"id", "field", "warning"}``, and the
query goes on.  Nothing here searches: :func:`parse_query` returns a
:class:`Query` with one :class:`fastplay.Board` per turn to analyse.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from fastplay.analysis.rules import (Rules, RulesError, check_komi, describe, handicap_bonus,
                                     parse_rules, supported)
from fastplay.board import (PASS, Board, IllegalMoveError, InvalidVertexError, format_vertex,
                            parse_vertex)

T = TypeVar("T")

__all__ = ["Query", "QueryError", "MoveFilter", "Defaults", "parse_query", "parse_player",
           "handicap_stones",
           "PERSPECTIVES", "MAX_SIZE"]

#: Largest board (fastplay's; KataGo's default build stops at 19).
MAX_SIZE = 25

#: ``reportAnalysisWinratesAs`` values (KataGo's config).
PERSPECTIVES = ("BLACK", "WHITE", "SIDETOMOVE")

#: Bounds KataGo puts on integer fields: visits (2**50), PV length, threads.
MAX_VISITS = 1 << 50
MAX_PV_LEN = 100
#: Moves a query's history may hold.  Each analysed turn keeps a copy of its
#: position and history (on 19x19 about 39 kB and 16 bytes a move of
#: resident memory), so memory grows with turns times moves: a tester's
#: 20,000 passes with every turn analysed took 4.1 GB.  At this bound a
#: query's positions take at most some 400 MB; no real game comes near it.
MAX_QUERY_MOVES = 5000
MAX_THREADS = 64
MAX_PRIORITY = (1 << 63) - 1

_PLAYERS = {"b": "B", "black": "B", "w": "W", "white": "W"}
# At most 3 digits a coordinate (boards are at most 25 points wide): a longer
# number is no location, and int() of thousands of digits raises.
_XY = re.compile(r"\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)")

#: Top-level fields fastplay reads; others get an "unused field" warning.
KNOWN_FIELDS = frozenset({
    "id", "moves", "initialStones", "initialPlayer", "rules", "komi", "boardXSize",
    "boardYSize", "analyzeTurns", "maxVisits", "includeOwnership", "includeMovesOwnership",
    "includePolicy", "includePVVisits", "includeOwnershipStdev", "includeMovesOwnershipStdev",
    "reportDuringSearchEvery",
    "firstReportDuringSearchAfter", "priority", "priorities", "avoidMoves", "allowMoves",
    "overrideSettings", "analysisPVLen", "whiteHandicapBonus", "action",
})

#: ``overrideSettings`` keys fastplay honours.
OVERRIDES = ("maxTime", "reportAnalysisWinratesAs", "maxVisits", "maxPlayouts",
             "numSearchThreads", "numSearchThreadsPerAnalysisThread", "analysisPVLen")


class QueryError(ValueError):
    """A query that cannot be analysed; ``field`` names the culprit (or ``None``)."""

    def __init__(self, field: str | None, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.field, self.message))


@dataclass(frozen=True)
class MoveFilter:
    """One ``avoidMoves`` entry (``allow=False``) or an ``allowMoves`` entry.

    ``moves`` are flat indices (-1: pass); ``until_depth``: plies from the
    root (1 = the root's own moves).
    """

    player: str
    moves: frozenset[int]
    until_depth: int
    allow: bool


@dataclass(frozen=True)
class Defaults:
    """What a query does not say (``fastplay analysis``'s command line)."""

    max_visits: int = 500
    max_time: float | None = None
    perspective: str = "BLACK"
    pv_len: int = 15
    threads: int = 1


@dataclass
class Query:
    """A checked query: ``positions[i]`` is turn ``turns[i]``, searched with
    priority ``priorities[i]``; the rest applies to every turn."""

    id: str
    size: int
    rules: Rules
    turns: list[int]
    priorities: list[int]
    positions: list[Board]
    max_visits: int
    max_time: float | None
    include_ownership: bool = False
    include_moves_ownership: bool = False
    include_policy: bool = False
    include_pv_visits: bool = False
    include_ownership_stdev: bool = False
    report_every: float | None = None
    first_report_after: float | None = None
    pv_len: int = 15
    perspective: str = "BLACK"
    filters: list[MoveFilter] = field(default_factory=list)
    threads: int = 1
    warnings: list[tuple[str, str]] = field(default_factory=list)


def parse_player(value: Any, name: str) -> str:
    """``"B"`` or ``"W"`` for ``"b"``, ``"black"``, ``"W"``... (any case)."""
    player = _PLAYERS.get(value.strip().lower()) if isinstance(value, str) else None
    if player is None:
        raise QueryError(name, f"Could not parse player: {value!r}")
    return player


def _integer(query: dict[str, Any], name: str, low: int, high: int, default: int) -> int:
    value = query.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise QueryError(name, f"Must be an integer from {low} to {high}")
    return value


def _number(value: Any, name: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise QueryError(name, f"Must be a number from {low:g} to {high:g}")
    number = float(value)
    if not (math.isfinite(number) and low <= number <= high):
        raise QueryError(name, f"Must be a number from {low:g} to {high:g}")
    return number


def _boolean(query: dict[str, Any], name: str) -> bool:
    value = query.get(name, False)
    if not isinstance(value, bool):
        raise QueryError(name, "Must be a boolean")
    return value


def _location(text: Any, size: int, name: str, allow_pass: bool) -> int:
    """Flat index of a GTP vertex (``"D4"``, ``"pass"``) or of KataGo's
    ``"(x,y)"`` (x from the left, y from the top)."""
    if isinstance(text, str):
        xy = _XY.fullmatch(text.strip())
        if xy is not None:
            x, y = int(xy.group(1)), int(xy.group(2))
            if x < size and y < size:
                return y * size + x
        else:
            try:
                index = parse_vertex(text, size)
            except InvalidVertexError:
                pass
            else:
                if index >= 0 or allow_pass:
                    return index
    shown = repr(text)
    raise QueryError(name, "Could not parse board location: "
                     + (shown if len(shown) <= 60 else shown[:57] + "..."))


def _pairs(query: dict[str, Any], name: str, size: int, allow_pass: bool
           ) -> list[tuple[str, int]]:
    """``[[player, location], ...]`` as ``(player, flat index)`` pairs."""
    value = query.get(name, [])
    shape = f'Must be an array of pairs of the form: ["b" or "w", GTP board vertex]'
    if not isinstance(value, list):
        raise QueryError(name, shape)
    out = []
    for item in value:
        if not isinstance(item, list) or len(item) != 2:
            raise QueryError(name, shape)
        out.append((parse_player(item[0], name), _location(item[1], size, name, allow_pass)))
    return out


def _board_size(query: dict[str, Any]) -> int:
    message = f"Must provide an integer from 2 to {MAX_SIZE}"
    sizes = []
    for name in ("boardXSize", "boardYSize"):
        if name not in query:
            raise QueryError(name, message)
        sizes.append(_integer(query, name, 2, MAX_SIZE, 0))
    if sizes[0] != sizes[1]:
        raise QueryError("boardYSize", f"fastplay plays square boards only, not "
                                       f"{sizes[0]}x{sizes[1]}")
    return sizes[0]


def _turns(query: dict[str, Any], moves: int, default_priority: int
           ) -> tuple[list[int], list[int]]:
    """The turns to analyse (each once, ascending) and their priorities."""
    turns = query.get("analyzeTurns", [moves])
    if not isinstance(turns, list) or not all(
            isinstance(t, int) and not isinstance(t, bool) for t in turns):
        raise QueryError("analyzeTurns", "Must specify an array of integers indicating turns "
                                         "to analyze")
    for turn in turns:
        if not 0 <= turn <= moves:
            raise QueryError("analyzeTurns", f"Invalid turn number: {turn}")
    priorities = query.get("priorities")
    if priorities is None:
        priority_of = {t: default_priority for t in turns}
    else:
        if not isinstance(priorities, list) or len(priorities) != len(turns) or not all(
                isinstance(p, int) and not isinstance(p, bool) and abs(p) <= MAX_PRIORITY
                for p in priorities):
            raise QueryError("priorities", "Must be a list of integers of the same length as "
                                           "analyzeTurns")
        priority_of = dict(zip(turns, priorities))
    ordered = sorted(set(turns))
    return ordered, [priority_of[t] for t in ordered]


def _filters(query: dict[str, Any], size: int) -> list[MoveFilter]:
    """``avoidMoves`` and ``allowMoves`` (at most one ``allowMoves`` entry per
    player, as KataGo's current ``docs/Analysis_Engine.md`` says; older
    versions took one in all)."""
    out: list[MoveFilter] = []
    for name, allow in (("avoidMoves", False), ("allowMoves", True)):
        entries = query.get(name, [])
        if not isinstance(entries, list):
            raise QueryError(name, "Must be a list of dicts with player, moves and untilDepth")
        for entry in entries:
            if not isinstance(entry, dict) or not isinstance(entry.get("moves"), list):
                raise QueryError(name, "Must be a list of dicts with player, moves and "
                                       "untilDepth")
            player = parse_player(entry.get("player"), name)
            moves = frozenset(_location(m, size, name, True) for m in entry["moves"])
            depth = _integer(entry, "untilDepth", 1, 1 << 31, 0) \
                if "untilDepth" in entry else None
            if depth is None:
                raise QueryError(name, "untilDepth must be a positive integer")
            if allow and any(f.allow and f.player == player for f in out):
                raise QueryError(name, f"at most one dict per player ({player} twice)")
            out.append(MoveFilter(player, moves, depth, allow))
    return _merged(out)


def _merged(filters: list[MoveFilter]) -> list[MoveFilter]:
    """``filters`` with the ``avoidMoves`` entries of one player and depth
    made one (the moves they prohibit are the union of theirs): every new
    node of a search reads them, and 40,000 one-move entries made a search
    a thousand times slower (a tester)."""
    avoid: dict[tuple[str, int], frozenset[int]] = {}
    for rule in filters:
        if not rule.allow:
            key = (rule.player, rule.until_depth)
            avoid[key] = avoid.get(key, frozenset()) | rule.moves
    return [MoveFilter(player, moves, depth, False) for (player, depth), moves in avoid.items()] \
        + [rule for rule in filters if rule.allow]


def _setting(read: Callable[[], T]) -> T:
    """``read()`` of one ``overrideSettings`` key, its error reported under
    the field ``overrideSettings`` with the key's name in front."""
    try:
        return read()
    except QueryError as exc:
        raise QueryError("overrideSettings", f"{exc.field}: {exc}") from None


def _overrides(query: dict[str, Any], defaults: Defaults, out: Query) -> None:
    """Apply ``overrideSettings``; unknown keys are a warning, not an error."""
    settings = query.get("overrideSettings", {})
    if not isinstance(settings, dict):
        raise QueryError("overrideSettings", "Must be an object")
    if "maxTime" in settings:
        out.max_time = _setting(lambda: _number(settings["maxTime"], "maxTime", 1e-3, 1e9))
    if "reportAnalysisWinratesAs" in settings:
        value = settings["reportAnalysisWinratesAs"]
        if not isinstance(value, str) or value.strip().upper() not in PERSPECTIVES:
            raise QueryError("overrideSettings", "reportAnalysisWinratesAs must be BLACK, "
                                                 "WHITE or SIDETOMOVE")
        out.perspective = value.strip().upper()
    for key in ("maxVisits", "maxPlayouts"):
        if key in settings:
            visits = _setting(lambda: _integer(settings, key, 1, MAX_VISITS, 1))
            if "maxVisits" not in query:    # the query's own maxVisits wins
                out.max_visits = visits
    for key in ("numSearchThreads", "numSearchThreadsPerAnalysisThread"):
        if key in settings:
            out.threads = _setting(lambda: _integer(settings, key, 1, MAX_THREADS, 1))
    if "analysisPVLen" in settings:
        out.pv_len = _setting(lambda: _integer(settings, "analysisPVLen", 1, MAX_PV_LEN, 1))
    ignored = sorted(k for k in settings if k not in OVERRIDES)
    if ignored:
        out.warnings.append(("overrideSettings", "fastplay ignores these settings: "
                             + ", ".join(map(str, ignored))))


def _rules(query: dict[str, Any], warnings: list[tuple[str, str]]) -> Rules:
    if "rules" not in query:
        raise QueryError("rules", 'Must specify rules string, such as "chinese" or '
                                  '"tromp-taylor", or a JSON object with detailed rules '
                                  "parameters.")
    try:
        rules = parse_rules(query["rules"])
    except RulesError as exc:
        raise QueryError("rules", str(exc)) from None
    if "whiteHandicapBonus" in query:
        value = query["whiteHandicapBonus"]
        if not isinstance(value, str) or value.strip().upper() not in ("0", "N", "N-1"):
            raise QueryError("whiteHandicapBonus", "Must be 0, N or N-1")
        rules = replace(rules, white_handicap_bonus=value.strip().upper())
    if "komi" in query:
        try:
            rules = replace(rules, komi=check_komi(query["komi"]))
        except RulesError as exc:
            raise QueryError("komi", str(exc)) from None
    near, same = supported(rules)
    if not same:
        warnings.append(("rules", f"Rules {describe(rules)} not supported by fastplay, "
                                  f"using {describe(near)} instead"))
    return near


def handicap_stones(stones: list[tuple[str, int]], moves: list[tuple[str, int]]) -> int:
    """Handicap stones for the komi bonus, as KataGo counts them
    (``BoardHistory::computeNumHandicapStones`` with
    ``assumeMultipleStartingBlackMovesAreHandicap``): none when White has a
    setup stone; else Black's setup stones and Black's moves that are not
    passes at the start of ``moves`` (-1: a pass) -- a lone White pass
    between them is skipped, a White move or two White turns in a row end
    them -- counted when two or more."""
    if any(player != "B" for player, _ in stones):
        return 0
    points = len({where for _, where in stones})
    leading = 0
    for i, (player, where) in enumerate(moves):
        if player != "B":
            if i + 1 < len(moves) and moves[i + 1][0] != "B":
                leading = 0
                break
            if where == PASS:
                continue
            break
        leading += where != PASS
    total = points + leading
    return total if total > 1 else 0


def _positions(query: dict[str, Any], size: int, rules: Rules, turns: list[int]
               ) -> list[Board]:
    """Replay ``initialStones`` and ``moves``; copy the board at each turn."""
    stones = _pairs(query, "initialStones", size, False)
    if len({where for _, where in stones}) != len(stones):
        # KataGo refuses a point placed twice (Board::setStonesFailIfNoLibs).
        raise QueryError("initialStones", "a point is given a stone twice")
    if "moves" not in query:
        raise QueryError("moves", "Must specify an array of [player,location] pairs")
    moves = _pairs(query, "moves", size, True)
    if "initialPlayer" in query:
        first = parse_player(query["initialPlayer"], "initialPlayer")
    elif moves:
        first = moves[0][0]
    else:
        first = "W" if stones and all(p == "B" for p, _ in stones) else "B"
    board = Board(size, komi=rules.komi, superko=rules.ko == "POSITIONAL",
                  suicide=rules.suicide)
    try:
        board.setup(black=[v for p, v in stones if p == "B"],
                    white=[v for p, v in stones if p == "W"], to_move=first)
    except ValueError as exc:
        raise QueryError("initialStones", str(exc)) from None
    wanted, positions = set(turns), []
    for turn in range(len(moves) + 1):
        if turn in wanted:
            # The handicap of the moves so far (KataGo adds Black's first
            # moves' bonus as they are played).
            positions.append(board.copy())
            positions[-1].komi = rules.komi + handicap_bonus(
                rules, handicap_stones(stones, moves[:turn]))
        if turn == len(moves):
            break
        player, index = moves[turn]
        try:
            board.play(index, player)
        except IllegalMoveError as exc:
            # KataGo's words, and the rule broken.
            raise QueryError("moves", f"Illegal move {turn}: {format_vertex(index, size)} "
                                      f"({exc.rule})") from None
    return positions


def parse_query(query: dict[str, Any], defaults: Defaults) -> Query:
    """Check ``query`` (a decoded JSON object with a string ``id``) and build
    its positions.  Raises :class:`QueryError` for the first bad field."""
    warnings: list[tuple[str, str]] = []
    size = _board_size(query)
    rules = _rules(query, warnings)
    moves = query.get("moves")
    if isinstance(moves, list) and len(moves) > MAX_QUERY_MOVES:
        raise QueryError("moves", f"At most {MAX_QUERY_MOVES} moves, not {len(moves)}")
    turns, priorities = _turns(query, len(moves) if isinstance(moves, list) else 0,
                               _integer(query, "priority", -MAX_PRIORITY, MAX_PRIORITY, 0))
    given = query.get("analyzeTurns")
    if given == []:
        # KataGo answers such a query with nothing at all: a client waiting
        # for its id would wait for ever (a tester).
        warnings.append(("analyzeTurns", "Empty: no turn is analysed, so no answer follows"))
    elif isinstance(given, list) and len(given) > len(turns):
        warnings.append(("analyzeTurns", "A turn given more than once is analysed once"))
    positions = _positions(query, size, rules, turns)
    out = Query(id=query["id"], size=size, rules=rules, turns=turns, priorities=priorities,
                positions=positions,
                max_visits=_integer(query, "maxVisits", 1, MAX_VISITS, defaults.max_visits),
                max_time=defaults.max_time, perspective=defaults.perspective,
                pv_len=_integer(query, "analysisPVLen", 1, MAX_PV_LEN, defaults.pv_len),
                threads=defaults.threads, warnings=warnings)
    out.include_ownership = _boolean(query, "includeOwnership")
    out.include_moves_ownership = _boolean(query, "includeMovesOwnership")
    out.include_policy = _boolean(query, "includePolicy")
    out.include_pv_visits = _boolean(query, "includePVVisits")
    out.include_ownership_stdev = _boolean(query, "includeOwnershipStdev")
    if _boolean(query, "includeMovesOwnershipStdev"):
        warnings.append(("includeMovesOwnershipStdev",
                         "fastplay does not report each move's ownership deviation"))
    for name in ("reportDuringSearchEvery", "firstReportDuringSearchAfter"):
        if name in query:
            value = _number(query[name], name, 1e-3 if name[0] == "r" else 0.0, 1e9)
            setattr(out, "report_every" if name[0] == "r" else "first_report_after", value)
    out.filters = _filters(query, size)
    _overrides(query, defaults, out)
    unused = sorted(k for k in query if k not in KNOWN_FIELDS)
    for key in unused:
        warnings.append((str(key), "Unused field"))
    return out
