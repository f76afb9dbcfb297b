"""Fuzz harnesses: one per input fastplay reads (issue 21).

Each harness is ``check(data: bytes) -> None``.  It turns the bytes into one
use of one input -- a ``.db`` file, an SGF record, GTP lines, analysis
queries, ``Board`` calls, ``playouts()`` arguments, a learned-prior file --
and raises :class:`ContractError` (or lets an undocumented exception out)
only when fastplay breaks its contract:

* an exception that the input's documentation does not list;
* a round trip that does not come back (SGF written and read again; a
  ``.db`` that strict mode compiles must compile to the same table in GNU Go
  mode);
* a board whose incremental state disagrees with a recomputation
  (``check_integrity``) after any sequence of calls.

A crash of the interpreter and a hang (the driver's per-input time limit)
are the other two failures; the drivers (``fuzz/run.py`` with atheris, the
seeded smoke run of ``tests/test_fuzz.py``) report them.  Seeds come from
``seeds()``: the repository's ``.db`` files and ``../shared`` (SGF records,
GNU Go's regression GTP, the cases).
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

import fastplay as fp
from fastplay.board import Board
from provider import Provider, finite

ROOT = Path(__file__).resolve().parents[1]
#: The shared data (cases, GNU Go's records and regression suite): $FASTPLAY_SHARED,
#: as the tests read it, else ``../shared`` beside the checkout.
SHARED = Path(os.environ.get("FASTPLAY_SHARED") or ROOT.parent / "shared")

#: What fastplay answers when one of its own parts failed: a bug, whatever the input.
INTERNAL = ("internal error", "search failed")

#: Exceptions every harness's input may document: a bad value or type.
BAD_INPUT: tuple[type[BaseException], ...] = (ValueError, TypeError)


class ContractError(AssertionError):
    """fastplay broke a promise that no exception type covers."""


def _tempfile(data: bytes, suffix: str) -> str:
    handle, path = tempfile.mkstemp(suffix=suffix, prefix="fastplay-fuzz-")
    with os.fdopen(handle, "wb") as f:
        f.write(data)
    return path


# -- .db files ------------------------------------------------------------------

def check_db(data: bytes) -> None:
    """``compile_db`` in strict and GNU Go mode; ``PatternDatabase.from_file``."""
    from fastplay.patterns import PatternDatabase, PatternSyntaxError, compile_db

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lenient, _ = compile_db(data, strict=False, cache=False)   # GNU Go mode never refuses
        try:
            strict, _ = compile_db(data, strict=True, cache=False)
        except PatternSyntaxError as err:
            if not (err.line >= 1 and err.column >= 1 and err.file):
                raise ContractError(f"an error without a location: {err!r}") from err
            return
        if not np.array_equal(strict, lenient):
            raise ContractError("strict and GNU Go mode compiled one file to two tables")
        if len(data) % 7 == 0:   # the file path now and then (it costs a write)
            path = _tempfile(data, ".db")
            try:
                db = PatternDatabase.from_file(path)
            finally:
                os.unlink(path)
            if not np.array_equal(db.table, strict):
                raise ContractError("from_file compiled another table")


# -- SGF records -----------------------------------------------------------------

def _sgf_source(p: Provider) -> tuple[object, str | None]:
    kind = p.int_in(0, 3)
    data = p.rest()
    if kind == 0:
        return data, None
    if kind == 1:
        return data.decode("latin-1"), None
    if kind == 2:
        return data.decode("utf-8", errors="replace"), None
    path = _tempfile(data, ".sgf")
    return path, path


def check_sgf(data: bytes) -> None:
    """``Board.from_sgf`` on bytes, text or a file; a record that loads is
    written, read back (fastplay and sgfmill) and written again unchanged."""
    from sgfmill import sgf as sgfmill_sgf

    p = Provider(data)
    move_number = None if p.chance(160) else p.int_in(-2, 400)
    superko, suicide = p.chance(64), p.chance(64)
    source, path = _sgf_source(p)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            board = Board.from_sgf(source, move_number=move_number,  # type: ignore[arg-type]
                                   superko=superko, suicide=suicide)
    except LookupError as exc:          # documented only for an unknown codec
        if type(exc) is not LookupError:
            raise
        return
    except (ValueError, TypeError, OSError):   # documented; SGFError is a ValueError
        return
    finally:
        if path:
            os.unlink(path)
    text = board.to_sgf()
    sgfmill_sgf.Sgf_game.from_bytes(text.encode("utf-8"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again = Board.from_sgf(text, superko=superko, suicide=suicide)
    if again != board or again.komi != board.komi:
        raise ContractError("an SGF record written by fastplay reads back as another position")
    if again.to_sgf() != text:
        raise ContractError("writing a record read back from fastplay's own SGF changed it")


# -- GTP --------------------------------------------------------------------------

_GTP_WORDS = ("B", "W", "b", "white", "pass", "PASS", "A1", "T19", "Z25", "J9", "I5", "a0",
              "ownership", "true", "false", "minmoves", "maxmoves", "interval", "avoid",
              "ownershipStdev", "pvVisits", "pvEdgeVisits", "rootInfo", "movesOwnership",
              "allow", "0", "1", "-1", "5", "9", "19", "25", "26", "7.5", "nan", "inf",
              "1e400", "0x10", "seki", "dead", "alive", "\t", "#", "=", "?")


_COLS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"

#: Well-formed commands (GTP 2, the analysis and handicap extensions) that get a
#: session past the empty board: {c} a colour, {v} a vertex, {n} a small number.
_GTP_TEMPLATES = ("play {c} {v}", "play {c} {v}", "genmove {c}", "genmove {c}", "undo",
                  "boardsize {n}", "clear_board", "komi {x}", "fixed_handicap {n}",
                  "place_free_handicap {n}", "set_free_handicap {v} {v}", "loadsgf game.sgf {n}",
                  "time_settings {n} {n} {n}", "time_left {c} {n} {n}", "kata-analyze {n}",
                  "kata-analyze {c} {n} rootInfo true pvVisits true ownershipStdev true",
                  "lz-analyze {c} {n}", "kata-genmove_analyze {c} {n}", "final_score",
                  "final_status_list dead", "is_legal {c} {v}", "captures {c}", "printsgf",
                  "reg_genmove {c}", "kgs-genmove_cleanup {c}", "showboard", "list_stones {c}")


def _template_line(p: Provider) -> str:
    size = 9 if p.chance(200) else p.pick((2, 5, 13, 19, 25))
    return p.pick(_GTP_TEMPLATES).format(
        c=p.pick(("b", "w", "B", "white")), n=p.int_in(0, 12), x=p.pick(("7.5", "0", "-3.5", "6")),
        v=p.pick(("pass", f"{p.pick(_COLS[:size])}{p.int_in(1, size)}")))


def _gtp_line(p: Provider, commands: list[str]) -> str:
    if p.chance(24):
        return p.text(120)                        # raw bytes as a line
    if p.chance(140):
        return _template_line(p)
    words = [p.pick(commands)]
    if p.chance(48):
        words.insert(0, str(p.int_in(0, 99999)))  # a command id
    for _ in range(p.int_in(0, 5)):
        if p.chance(40):
            words.append(str(p.number()))
        elif p.chance(24):
            words.append(GTP_GAME)   # loadsgf reads it, printsgf may overwrite it
        else:
            words.append(p.pick(_GTP_WORDS))
    return " ".join(words)


_GTP_COMMANDS: list[str] = []
#: The GTP harness's working folder: printsgf and loadsgf name files, so a
#: session sees only this folder, with a fresh copy of one real record in it.
_GTP_DIR = Path(tempfile.mkdtemp(prefix="fastplay-fuzz-gtp-"))
GTP_GAME = "game.sgf"
_GTP_RECORD = (b"(;GM[1]FF[4]SZ[9]KM[7.5]AB[cc][gg]AW[cg];B[ee];W[ec];B[dd];W[])")


def check_gtp(data: bytes) -> None:
    """A GTP session served as Sabaki talks to it (``fastplay.gtp.run``: a
    streaming analysis runs until the next line): every response starts
    with ``=`` or ``?``, nothing raises, and the end of input ends it."""
    from fastplay.gtp import GTPEngine, run

    if not _GTP_COMMANDS:
        listing = GTPEngine(playouts=2, seed=1).handle("list_commands") or ""
        _GTP_COMMANDS.extend(listing.split()[1:])
    p = Provider(data)
    engine = GTPEngine(playouts=p.int_in(1, 6), seed=p.int_in(0, 3),
                       size=p.pick((9, 9, 13, 19, 2, 25)))
    lines = []
    for _ in range(p.int_in(1, 12)):
        if p.remaining() == 0:
            break
        lines.append(_gtp_line(p, _GTP_COMMANDS).encode("utf-8", errors="surrogateescape") + b"\n")
    out = io.StringIO()
    cwd = os.getcwd()
    (_GTP_DIR / GTP_GAME).write_bytes(_GTP_RECORD)
    os.chdir(_GTP_DIR)
    try:
        status = run(stdin=lines, stdout=out, engine=engine)
    finally:
        os.chdir(cwd)
        for leftover in _GTP_DIR.iterdir():
            leftover.unlink()
    if status != 0:
        raise ContractError("the GTP server returned a non-zero status")
    for block in out.getvalue().split("\n\n"):
        if block.strip() and not block.startswith(("=", "?")):
            raise ContractError(f"a GTP response that is neither = nor ?: {block[:200]!r}")
        if block.startswith("?") and any(word in block for word in INTERNAL):
            raise ContractError(f"fastplay failed inside: {block[:300]!r}")


# -- the analysis protocol --------------------------------------------------------

_QUERY_KEYS = ("id", "moves", "initialStones", "initialPlayer", "rules", "komi", "boardXSize",
               "boardYSize", "analyzeTurns", "maxVisits", "includeOwnership",
               "includeMovesOwnership", "includePolicy", "includePVVisits",
               "includeOwnershipStdev", "priority", "priorities", "avoidMoves", "allowMoves",
               "overrideSettings", "reportDuringSearchEvery", "whiteHandicapBonus", "action",
               "terminateId", "turnNumbers", "maxTime", "analysisPVLen")


def _json_value(p: Provider, depth: int = 0) -> object:
    kind = p.int_in(0, 7 if depth < 2 else 4)
    if kind == 0:
        number = p.number()
        return number if finite(number) or isinstance(number, bool) else str(number)
    if kind == 1:
        return p.pick(("B", "W", "b", "pass", "A1", "T19", "Z9", "tromp-taylor", "japanese",
                       "chinese", "terminate", "query_version", "clear_cache", "x", ""))
    if kind == 2:
        return p.text(20)
    if kind == 3:
        return None
    if kind == 4:
        return p.int_in(0, 3)
    if kind == 5:
        return [_json_value(p, depth + 1) for _ in range(p.int_in(0, 4))]
    if kind == 6:
        return [[p.pick(("B", "W", "x")), p.pick(("A1", "C3", "D4", "pass", "J9", ""))]
                for _ in range(p.int_in(0, 5))]
    return {p.pick(_QUERY_KEYS): _json_value(p, depth + 1) for _ in range(p.int_in(0, 3))}


def _query_line(p: Provider) -> str:
    if p.chance(24):
        return p.text(200)
    query: dict[str, object] = {"id": p.pick(("a", "b", "q1", ""))}
    if p.chance(200):
        size = p.pick((9, 9, 5, 13, 19))
        moves = [[p.pick(("B", "W")), f"{p.pick(_COLS[:size])}{p.int_in(1, size)}"]
                 for _ in range(p.int_in(0, 6))]
        query.update({"moves": moves, "rules": p.pick(("tromp-taylor", "chinese", "japanese")),
                      "komi": p.pick((7.5, 6.5, 0)), "boardXSize": size, "boardYSize": size,
                      "maxVisits": p.int_in(1, 8),
                      "analyzeTurns": sorted({p.int_in(0, len(moves)) for _ in range(2)})})
        if p.chance(128):
            return json.dumps(query)
    for _ in range(p.int_in(0, 6)):
        query[p.pick(_QUERY_KEYS)] = _json_value(p)
    visits = query.get("maxVisits")
    if isinstance(visits, (int, float)) and not visits <= 8:
        query["maxVisits"] = 8   # a long search is no bug
    return json.dumps(query)


def check_analysis(data: bytes) -> None:
    """KataGo analysis queries: every output line is one JSON object with an
    ``id`` or an ``error``; nothing raises; closing ends every position."""
    from fastplay.analysis.engine import AnalysisEngine
    from fastplay.analysis.query import Defaults

    p = Provider(data)
    out = io.StringIO()
    engine = AnalysisEngine(out, defaults=Defaults(max_visits=4), seed=1,
                            analysis_threads=p.int_in(1, 2))
    try:
        for _ in range(p.int_in(1, 6)):
            if p.remaining() == 0:
                break
            engine.handle(_query_line(p))
    finally:
        engine.close(wait=False)
    for line in out.getvalue().splitlines():
        answer = json.loads(line)
        if not isinstance(answer, dict) or not ("id" in answer or "error" in answer):
            raise ContractError(f"an answer without id or error: {line!r}")
        if any(word in str(answer.get("error", "")) for word in INTERNAL):
            raise ContractError(f"fastplay failed inside: {line[:300]!r}")


# -- Board API -------------------------------------------------------------------

def _hostile(p: Provider, board: Board, other: Board) -> object:
    kind = p.int_in(0, 11)
    if kind >= 10:                       # a real move now and then, so that play goes on
        moves = board.legal_moves()
        return p.pick(moves) if moves else "pass"
    if kind <= 2:
        return p.pick(("B", "W", "b", "black", "white", "pass", "A1", "J9", "T19", "Z25",
                       "I1", "a1", "A0", "A26", "", " ", "A1 ", "AA1"))
    if kind <= 4:
        return p.number()
    if kind == 5:
        return (p.int_in(-2, 26), p.int_in(-2, 26))
    if kind == 6:
        return p.pick((None, [], {}, object(), b"A1", other, board, np.int8(3),
                       np.array([1, 2]), np.zeros(board.size * board.size, np.int16)))
    if kind == 7:
        return fp.Color.BLACK if p.chance(128) else fp.Color.WHITE
    return p.int_in(-1, board.size * board.size)


#: Exceptions a method documents beyond ValueError and TypeError.
_BOARD_RAISES: dict[str, tuple[type[BaseException], ...]] = {"undo": (IndexError,)}

#: Board methods the harness leaves out: they read files or only print.
_BOARD_SKIP = frozenset({"from_sgf", "check_integrity", "_repr_svg_"})


def _board_methods() -> list[str]:
    # "play" twice over: the positions a session reaches matter more than its calls.
    return ["play", "play"] + sorted(name for name in dir(Board)
                  if not name.startswith("__") and name not in _BOARD_SKIP
                  and callable(getattr(Board, name, None)))


def check_board(data: bytes) -> None:
    """Random ``Board`` calls with hostile arguments: only ``ValueError`` and
    ``TypeError`` may come out, and the board stays consistent."""
    p = Provider(data)
    board = Board(p.pick((9, 2, 3, 5, 13, 19, 25)), komi=7.5, superko=p.chance(64),
                  suicide=p.chance(64))
    other = Board(p.pick((9, 5, 19)))
    methods = _board_methods()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(p.int_in(1, 24)):
            if p.remaining() == 0:
                break
            name = p.pick(methods)
            args = [_hostile(p, board, other) for _ in range(p.int_in(0, 3))]
            try:
                getattr(board, name)(*args)
            except BAD_INPUT + _BOARD_RAISES.get(name, ()):
                pass
            board.check_integrity()


# -- playouts ---------------------------------------------------------------------

def check_playouts(data: bytes) -> None:
    """``playouts()`` with hostile arguments; ``PlayoutEngine`` with odd tables."""
    from fastplay._core import PlayoutEngine
    from fastplay.patterns import geometry_table

    p = Provider(data)
    board = Board(p.pick((9, 2, 5, 19)))
    for _ in range(p.int_in(0, 6)):
        moves = board.legal_moves()
        if moves:
            board.play(p.pick(moves))
    args: dict[str, object] = {
        "n": p.pick((0, 1, 2, 3, 5, -1, 2**53 + 1, 1.5, True, "3", None)),
        "seed": p.pick((0, 1, 2**64, 2**200, -1, 1.5, "1")),
        "threads": p.pick((1, 2, 3, 0, -1, 2**40, 1.0)),
        "komi": p.pick((None, 7.5, -3, 0, float("nan"), float("inf"), 1e7, "7.5", True)),
        "scoring": p.pick(("gnugo", "tromp-taylor", "area", "")),
        "max_moves": p.pick((0, 1, 5, 600, -1, 10**6 + 1, 2.0)),
        "amaf": p.chance(128), "near_first": p.chance(128), "debug_check": p.chance(32)}
    db: object = p.pick(("mc_uniform", "mc_montegnu_classic", "nope", None, 3))
    if p.chance(64):
        raw = p.raw(64) + bytes(8)
        table = np.frombuffer(raw[:len(raw) // 4 * 4], dtype=np.uint32)
        base = np.zeros((1108, 256), dtype=np.uint32)
        base[1:, :] = table[np.arange(1107 * 256) % table.size].reshape(1107, 256)
        try:
            db = fp.PatternDatabase(base)
        except BAD_INPUT:
            return
    try:
        fp.playouts(board, db, **args)
    except BAD_INPUT:
        pass
    shape = p.pick(((1108, 256), (1108, 255), (0,), (2, 2)))
    try:
        PlayoutEngine(np.ones(shape, dtype=p.pick((np.uint32, np.float64, np.int8))),
                      geometry_table())
    except BAD_INPUT:
        pass


# -- learned priors -----------------------------------------------------------------

def _bundled_prior_bytes() -> bytes:
    from importlib.resources import files

    return (files("fastplay") / "data" / "prior_gnugo9x9.npz").read_bytes()


def check_prior(data: bytes) -> None:
    """``load_prior`` on a damaged ``.npz`` (the bundled prior with bytes
    changed, or raw bytes); one that loads must drive a search."""
    from fastplay.prior import load_prior
    from fastplay.search import MCTS

    p = Provider(data)
    if p.chance(200):
        blob = bytearray(_bundled_prior_bytes())
        for _ in range(p.int_in(1, 8)):
            blob[p.int_in(0, len(blob) - 1)] = p.byte()
        if p.chance(32):
            blob = blob[:p.int_in(0, len(blob))]
        content = bytes(blob)
    else:
        content = p.rest()
    path = _tempfile(content, ".npz")
    try:
        prior = load_prior(path)
    except ValueError:
        return
    finally:
        os.unlink(path)
    board = Board(9)
    MCTS(fp.PatternDatabase.builtin("mc_uniform"), prior_table=prior, seed=1).run(board, playouts=8)


HARNESSES: dict[str, Callable[[bytes], None]] = {
    "db": check_db, "sgf": check_sgf, "gtp": check_gtp, "analysis": check_analysis,
    "board": check_board, "playouts": check_playouts, "prior": check_prior}


def seeds(name: str) -> Iterator[bytes]:
    """The seed corpus of harness ``name`` (real files where there are some)."""
    if name == "db":
        for path in sorted((ROOT / "patterns").glob("*.db")):
            yield path.read_bytes()
    elif name == "sgf":
        # The first four bytes are what check_sgf reads first: the whole record
        # (move number None), no superko, no suicide, as bytes.
        for path in sorted((SHARED / "cases").glob("*.sgf")):
            yield b"\x00\xff\xff\x00" + path.read_bytes()
        for path in sorted((SHARED / "gnugo-regression" / "games").rglob("*.sgf"))[:40]:
            yield b"\x00\x00\xff\x00" + path.read_bytes()
    elif name == "gtp":
        for path in sorted((SHARED / "cases").glob("*.gtp")):
            yield path.read_bytes()
        yield (SHARED / "gnugo-regression" / "9x9.tst").read_bytes()[:4000]
    elif name == "prior":
        yield b"\xff" + bytes(range(64))
        yield b"\x00" + _bundled_prior_bytes()[:2000]
    for k in range(4):
        yield bytes((k * 37 + i * 11) % 256 for i in range(200))
