"""Batch analysis: ``fastplay analyze A.sgf B.sgf DIR/ --every N --json out.jsonl``.

Every record named (a directory stands for the ``.sgf`` files below it,
sorted, the ``.analysis.sgf`` files this module writes left out) is read,
and the position before every ``N``-th move is searched -- turns 0, N, 2N,
... up to the end of the record, KataGo's turn numbers (turn ``k`` is the
position after ``k`` moves).  Each position gives one JSON line in the
answer format of ``fastplay analysis`` (:mod:`fastplay.analysis.respond`;
values from Black's view, ownership included, ``id`` the record's path), in
the order of the records and their turns whatever ``--jobs``, to the
``--json`` file (to stdout with ``--json -``, or when neither ``--json`` nor
``--write-sgf`` is given).  ``--jobs N``
searches in N processes; a seed makes each position's search a pure
function of (seed, turn), so the lines do not depend on N.

A record that cannot be read or whose search fails is reported on stderr
(``fastplay analyze: error: PATH: ...``) and skipped; the others go on, and
the exit status is 1 when any failed.  ``--write-sgf`` writes each analysed
record again as ``NAME.analysis.sgf`` (beside it, or in ``--sgf-dir``): a
comment on every analysed node, and the best move's principal variation as
a variation below it, its moves in the record's own coordinates
(:func:`gtp_to_sgf`; a pass written ``[]``, as FF[4] says).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import stat
import sys
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from fastplay.inputfile import read_input
from fastplay.sgf import SGFWarning, opening_moves, record_moves
from fastplay.shown import escape_controls, escape_surrogates

if TYPE_CHECKING:  # pragma: no cover - typing only; the core is imported late
    from fastplay.patterns import PatternDatabase

__all__ = ["run_batch", "gtp_to_sgf", "sgf_to_gtp", "record_paths", "analysis_turns",
           "write_analysis_sgf", "analyse_job", "Job", "SGF_SUFFIX", "BATCH_PLAYOUTS",
           "sgf_targets", "OutputError", "pattern_database", "search_options"]

#: Suffix of the records ``--write-sgf`` writes.
SGF_SUFFIX = ".analysis.sgf"

#: Playouts per position when neither --playouts nor --seconds is given.
BATCH_PLAYOUTS = 1000

#: Moves of each principal variation written to SGF (KataGo's analysisPVLen + 1).
PV_MOVES = 16

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


def gtp_to_sgf(vertex: str, size: int) -> str:
    """The SGF point of a GTP vertex on a ``size`` board: column letter, then
    the row counted from the top (``D4`` is ``df`` on 9x9, ``dp`` on 19x19);
    ``""`` for a pass.  Raises ``ValueError`` for a vertex off the board."""
    if vertex.strip().lower() == "pass":
        return ""
    text = vertex.strip().upper()
    col = _COLUMNS.find(text[:1]) if text[:1] else -1
    if col < 0 or col >= size or not (text[1:].isascii() and text[1:].isdigit()) \
            or not 1 <= int(text[1:]) <= size:
        raise ValueError(f"{vertex!r} is not a vertex of the {size}x{size} board")
    return _LETTERS[col] + _LETTERS[size - int(text[1:])]


def sgf_to_gtp(point: str, size: int) -> str:
    """The inverse of :func:`gtp_to_sgf` (``""`` is a pass)."""
    if point == "":
        return "pass"
    col, row = _LETTERS.find(point[0]), _LETTERS.find(point[1])
    if len(point) != 2 or not (0 <= col < size and 0 <= row < size):
        raise ValueError(f"{point!r} is not a point of the {size}x{size} board")
    return f"{_COLUMNS[col]}{size - row}"


def record_paths(inputs: Iterable[str]) -> list[str]:
    """The records ``inputs`` name: files as given, directories as their
    ``.sgf`` files (any case, recursively, sorted, without
    :data:`SGF_SUFFIX` files); each file once, in order, however it is
    spelt (``g.sgf`` and ``./g.sgf``, a symbolic or a hard link: the same
    file; a tester's record was analysed twice).  A missing path is kept,
    to be reported when it is read."""
    out: list[str] = []
    for path in inputs:
        if os.path.isdir(path):
            found = []
            for folder, _, files in os.walk(path):
                found += [os.path.join(folder, f) for f in files
                          if f.lower().endswith(".sgf") and not f.lower().endswith(SGF_SUFFIX)]
            out += sorted(found)
        else:
            out.append(path)
    first: dict[object, str] = {}
    for path in out:
        first.setdefault(_file_identity(path), path)
    return list(first.values())


def _file_identity(path: str) -> object:
    """What makes two names one file: its device and inode (hard links
    too), or for a name that cannot be read its real path."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return os.path.normcase(os.path.realpath(path))
    return (info.st_dev, info.st_ino)


def pattern_database(name: str | None, path: str | None, strict: bool = True
                     ) -> PatternDatabase:
    """``--mc-load-patterns`` (``path``, read in strict mode or, with
    ``strict=False``, as GNU Go reads it) if given, else ``--mc-patterns``
    (``name``), else the default database.  Raises as
    :meth:`PatternDatabase.from_file` and :meth:`PatternDatabase.builtin`."""
    from fastplay.patterns import PatternDatabase

    if path is not None:
        return PatternDatabase.from_file(path, strict=strict)
    return PatternDatabase.builtin(name) if name is not None else PatternDatabase.default()


def search_options(prior: Any, given: Sequence[tuple[str, Any]]) -> dict[str, Any]:
    """The search options of an analysis: the position's analysis, not a game
    move, so no resignation and no opening book (the book's E5 on an empty
    9x9 board was reported as the best move above more visited ones), as the
    analysis protocol searches; ``prior`` from ``--prior``; then the user's
    ``--search`` options (``given``), which win."""
    return {"resign_threshold": None, "book": False, "prior_table": prior, **dict(given)}


def analysis_turns(moves: int, every: int) -> list[int]:
    """Turns 0, ``every``, 2 ``every``... up to ``moves``."""
    return list(range(0, moves + 1, every))


@dataclass(frozen=True)
class Job:
    """One position to search (everything a worker process needs)."""

    path: str
    data: bytes
    turn: int
    playouts: int | None
    seconds: float | None
    threads: int
    seed: int
    prior: str | None
    options: tuple[tuple[str, Any], ...] = ()
    komi_bonus: float = 0.0     # the handicap's, after ``turn`` moves (handicap_komi)


_WORKER: dict[str, Any] = {}


def analyse_job(job: Job) -> dict[str, Any]:
    """Search one position; its answer in the analysis protocol's format, or
    ``{"id", "turnNumber", "error"}`` when it cannot be searched."""
    try:
        from fastplay.analysis.respond import build_response
        from fastplay.board import Board
        from fastplay.search import MCTS, SearchConfig

        with warnings.catch_warnings():   # _jobs reported them, naming the record
            warnings.simplefilter("ignore", SGFWarning)
            board = Board.from_sgf(job.data, move_number=job.turn)
        board.komi = board.komi + job.komi_bonus
        config = SearchConfig(**search_options(job.prior, job.options))
        search = MCTS(_WORKER["db"], config=config, threads=job.threads, seed=job.seed)
        info = None
        for info in search.analyze(board, visits=job.playouts, seconds=job.seconds,
                                   interval=3600.0):
            pass
        assert info is not None
        return build_response(job.path, job.turn, info, board, perspective="BLACK",
                              pv_len=PV_MOVES - 1, during=False, ownership=True)
    except Exception as exc:  # noqa: BLE001 - the record is reported and skipped
        return {"id": job.path, "turnNumber": job.turn,
                "error": f"{type(exc).__name__}: {exc}" if not str(exc) else str(exc)}


def handicap_komi(board: Any, start: Any, opening: list[tuple[str, int]], turn: int) -> float:
    """The komi points White gets for a handicap under the record's ``RU``,
    as ``fastplay analysis`` adds them to a query's komi (KataGo's
    ``whiteHandicapBonus``: ``N`` for Chinese rules, ``N-1`` for AGA, none
    for Japanese or Tromp-Taylor; none without ``RU`` or for rules it does
    not know), so that a record and KaTrain's query of it are analysed
    alike.  ``board``: the record's position after ``turn`` of its moves;
    ``start``: its position before the first move; ``opening``:
    :func:`fastplay.sgf.opening_moves` (the handicap counted as KataGo
    counts it, :func:`fastplay.analysis.query.handicap_stones`, from the
    setup stones and the moves played by ``turn``)."""
    from fastplay.analysis.query import handicap_stones
    from fastplay.analysis.rules import RulesError, handicap_bonus, parse_rules

    given = board.sgf_properties.get("RU", "").strip()
    try:
        rules = parse_rules(given) if given else None
    except RulesError:
        rules = None
    if rules is None:
        return 0.0
    stones = [("B" if sign > 0 else "W", i)
              for i, sign in enumerate(start.to_numpy().ravel().tolist()) if sign]
    return handicap_bonus(rules, handicap_stones(stones, opening[:turn]))


def handicap_note(board: Any, start: Any, opening: list[tuple[str, int]],
                  turn: int) -> str | None:
    """What to tell of a record whose komi :func:`handicap_komi` raises
    after ``turn`` moves (for a batch, its last)."""
    bonus = handicap_komi(board, start, opening, turn)
    if not bonus:
        return None
    return (f"RU[{board.sgf_properties['RU']}]: White gets up to {bonus:g} points of komi for "
            f"the handicap (KataGo's whiteHandicapBonus), added to the komi {board.komi:g}")


def rules_note(properties: Mapping[str, str]) -> str | None:
    """What to tell of a record whose ``RU`` names territory scoring
    (Japanese, Korean, ancient territory: the analysis protocol's names):
    fastplay analyses it by area scoring, as ``fastplay analysis`` warns."""
    from fastplay.analysis.rules import RulesError, parse_rules

    given = properties.get("RU", "")
    try:
        rules = parse_rules(given) if given.strip() else None
    except RulesError:
        return None
    if rules is None or rules.scoring != "TERRITORY":
        return None
    return f"RU[{given}]: territory scoring; analysed by area scoring (Tromp-Taylor)"


def _main_line_nodes(game: Any) -> dict[int, Any]:
    """Turn -> the main line's node at which that many moves have been played
    (the last such node: setup nodes after a move belong to it).  A node with
    both ``B`` and ``W`` plays two moves (as :func:`fastplay.sgf.load_board`
    reads it): the position between them has no node."""
    out: dict[int, Any] = {}
    turn = 0
    for node in game.get_main_sequence():
        turn += node.has_property("B") + node.has_property("W")
        out[turn] = node
    return out


def _finished(game: Any) -> bool:
    """Whether the record's game is over: it has a result (``RE``) or its
    main line ends with two passes."""
    if game.get_root().has_property("RE"):
        return True
    moves = [node.get_move() for node in game.get_main_sequence()]
    played = [move for colour, move in moves if colour is not None]
    return len(played) >= 2 and played[-1] is None and played[-2] is None


def _percent(winrate: float) -> str:
    return f"{100 * winrate:.1f}%"


def _comment(answer: Mapping[str, Any]) -> str:
    """The comment of an analysed node (values from Black's view)."""
    root = answer["rootInfo"]
    side = {"B": "Black", "W": "White"}[root["currentPlayer"]]
    lead = root["scoreLead"]
    lines = [f"fastplay: {side} to play; Black's win rate {_percent(root['winrate'])}, "
             f"score {'B' if lead >= 0 else 'W'}+{abs(lead):.1f} ({root['visits']} visits)"]
    for info in answer["moveInfos"][:5]:
        lines.append(f"  {info['move']}: {info['visits']} visits, Black's win rate "
                     f"{_percent(info['winrate'])}, PV {' '.join(info['pv'][:8])}")
    return "\n".join(lines)


def write_analysis_sgf(data: bytes, answers: Mapping[int, Mapping[str, Any]]) -> bytes:
    """The record ``data`` with ``answers`` (turn -> answer) added: a comment
    on each analysed node (after any comment it had) and the best move's
    principal variation as a new last child of that node, one node per
    move, the colours alternating from the side to move (case 40 of
    ``../shared/cases``).  Below the last node of a finished game (a result
    ``RE``, or two passes at its end) the variation is left out, as every
    reader would take it for the game's continuation; the comment still
    gives it.  The record is read as :func:`fastplay.sgf.load_board` reads it
    and written with each node's properties in their order.  Raises
    :class:`fastplay.sgf.SGFError` (a ``ValueError``) for a record it cannot
    read."""
    from fastplay.sgf import parse_record, serialise_in_order

    game = parse_record(data)
    size = game.get_size()
    nodes = _main_line_nodes(game)
    ended = _finished(game)
    for turn, answer in sorted(answers.items()):
        node = nodes.get(turn)
        if node is None or not answer.get("moveInfos"):
            continue
        if node.has_property("C") and len(node.get_raw_list("C")) > 1:
            node.set_raw("C", b"\n".join(node.get_raw_list("C")))   # C[x][y]: one text
        old = node.get("C") if node.has_property("C") else ""
        node.set("C", (old + "\n\n" if old else "") + _comment(answer))
        if ended and not len(node):
            continue
        best = answer["moveInfos"][0]
        colour = answer["rootInfo"]["currentPlayer"]
        parent = node
        for i, move in enumerate(best["pv"][:PV_MOVES]):
            parent = parent.new_child()
            parent.set_raw(colour, gtp_to_sgf(move, size).encode("ascii"))
            if i == 0:
                parent.set("C", f"fastplay's principal variation: Black's win rate "
                                f"{_percent(best['winrate'])}")
            colour = "W" if colour == "B" else "B"
    return serialise_in_order(game)


def _jobs(paths: Sequence[str], args: argparse.Namespace
          ) -> tuple[list[tuple[str, bytes, list[tuple[int, float]]]], list[tuple[str, str]]]:
    """The readable records with their turns, each with its handicap's komi
    bonus, and the unreadable ones with why."""
    from fastplay.board import Board

    records, failed = [], []
    given = set(args.sgf)
    for path in paths:
        try:
            # A record found in a folder must be a regular file (a named pipe
            # there would hang the batch: a tester); one named on the command
            # line may be a pipe (process substitution).
            data = read_input(path, "SGF file", regular=path not in given)
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always", SGFWarning)
                read = Board.from_sgf(data)    # readable, and its warnings
                # The record's moves: a board's own count restarts at a
                # setup node (a tester's batch lost the positions after one).
                moves = record_moves(data)
            with warnings.catch_warnings():      # told once, above
                warnings.simplefilter("ignore", SGFWarning)
                start = Board.from_sgf(data, move_number=0)
                opening = opening_moves(data)
            # Each warning once (a collection's came three times: a tester).
            notes = list(dict.fromkeys(str(w.message) for w in seen)) + [
                note for note in [rules_note(read.sgf_properties),
                                  handicap_note(read, start, opening, moves)]
                if note is not None]
            for note in notes:   # once per record, naming it (the workers stay quiet)
                print(escape_controls(f"fastplay analyze: warning: {path}: {note}"),
                      file=sys.stderr)
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            failed.append((path, reason))
            continue
        records.append((path, data, [(turn, handicap_komi(read, start, opening, turn))
                                     for turn in analysis_turns(moves, args.every or 1)]))
    return records, failed


def use_database(db: PatternDatabase) -> None:
    """Make ``db`` the pattern database of :func:`analyse_job` in this
    process (a worker process's initialiser: the database is read once, by
    the main process, and its table shipped once per worker)."""
    _WORKER["db"] = db


def _worker_start(db: PatternDatabase) -> None:
    """A worker process's initialiser: :func:`use_database`, and SIGINT
    ignored -- a terminal's Ctrl-C reaches the whole process group, and the
    main process ends the pool (a worker's ``KeyboardInterrupt`` traceback
    was printed, a tester)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    use_database(db)


def _results(jobs: list[Job], processes: int, db: PatternDatabase
             ) -> Iterator[dict[str, Any]]:
    """The jobs' answers in order, from ``processes`` worker processes (no
    more than there are jobs: a tester's ``--jobs 100`` started 77 processes
    for 30 records on 2 CPUs, twenty times slower than one), each searching
    with ``db``."""
    processes = min(processes, len(jobs))
    if processes <= 1:
        use_database(db)
        yield from map(analyse_job, jobs)
        return
    import multiprocessing

    # spawn: the parent may run threads (tqdm's monitor), which fork would copy mid-state.
    with multiprocessing.get_context("spawn").Pool(processes, initializer=_worker_start,
                                                   initargs=(db,)) as pool:
        yield from pool.imap(analyse_job, jobs, chunksize=1)


class _Lines(Protocol):
    """Where a batch writes its analysis lines."""

    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...


class _JsonFile:
    """``--json FILE``, opened at once (a name that cannot be written is
    reported before any search) but emptied only when the first line is
    written: a batch whose every record fails leaves an existing file as it
    was (a tester's ``--json keep.jsonl`` on a missing record emptied it).
    Raises ``OSError`` as ``open`` does."""

    def __init__(self, path: str) -> None:
        self.handle = open(path, "a", encoding="utf-8")
        self.emptied = False

    def write(self, text: str, /) -> int:
        if not self.emptied:
            if stat.S_ISREG(os.fstat(self.handle.fileno()).st_mode):
                self.handle.truncate(0)
            self.emptied = True
        return self.handle.write(text)

    def flush(self) -> None:
        self.handle.flush()

    def close(self) -> None:
        self.handle.close()


class OutputError(Exception):
    """The analysis lines cannot be written (a full disk, a closed pipe):
    the batch stops, since every later record would fail the same way."""


def sgf_targets(paths: Sequence[str], sgf_dir: str | None,
                keep: Sequence[str] = ()) -> dict[str, str]:
    """Where ``--write-sgf`` writes each record's analysis: ``NAME`` +
    :data:`SGF_SUFFIX` beside the record, or in ``sgf_dir``; records of the
    same name (from several folders) into one ``sgf_dir`` get ``NAME-2``,
    ``NAME-3`` ... in the order given, so that none overwrites another (a
    tester's two ``a.sgf`` left one file), and so does a name that is one
    of the records or of ``keep`` (the ``--json`` file), symbolic links
    followed (a tester's input ``g.analysis.sgf`` was overwritten)."""
    targets: dict[str, str] = {}

    def real(name: str) -> str:
        return os.path.normcase(os.path.realpath(name))

    taken = {real(name) for name in [*paths, *keep]}
    for path in paths:
        stem = os.path.basename(path)
        stem = stem[:-4] if stem.lower().endswith(".sgf") else stem
        folder = sgf_dir if sgf_dir is not None else os.path.dirname(path)
        target, n = os.path.join(folder, stem + SGF_SUFFIX), 1
        while real(target) in taken:
            n += 1
            target = os.path.join(folder, f"{stem}-{n}{SGF_SUFFIX}")
        taken.add(real(target))
        targets[path] = target
    return targets


def _finish_record(path: str, answers: list[dict[str, Any]], args: argparse.Namespace,
                   data: bytes, out: _Lines | None, target: str | None) -> str | None:
    """Write a record's lines, and its SGF to ``target`` (``None``: none);
    the reason it failed, or ``None``."""
    errors = [a for a in answers if "error" in a]
    if errors:
        return f"move {errors[0]['turnNumber']}: {errors[0]['error']}"
    if out is not None:
        try:
            for answer in answers:
                # The id is the record's name: a byte of it that is no
                # UTF-8 as \xNN, not a lone surrogate (a tester).
                answer = {**answer, "id": escape_surrogates(answer["id"])}
                out.write(json.dumps(answer, separators=(",", ":"), allow_nan=False) + "\n")
            out.flush()
        except OSError as exc:
            where = "standard output" if args.json in (None, "-") else args.json
            raise OutputError(f"writing {where}: {exc.strerror or exc}") from None
    if target is not None:
        try:
            text = write_analysis_sgf(data, {a["turnNumber"]: a for a in answers})
            with open(target, "wb") as handle:
                handle.write(text)
        except (OSError, ValueError) as exc:
            return f"writing {target}: {exc}"
    return None


def run_batch(args: argparse.Namespace, stdout: TextIO, db: PatternDatabase) -> int:
    """``fastplay analyze`` on many records (parsed ``args``: ``sgf`` a list,
    ``every``, ``json``, ``jobs``, ``write_sgf``, ``sgf_dir`` and the search
    options) with the pattern database ``db``; 0 when every record was
    analysed, 1 when some failed."""
    from tqdm import tqdm

    records, failed = _jobs(record_paths(args.sgf), args)
    # A directory without records is a mistake to report, not a quiet success.
    failed += [(path, "no .sgf records in this directory") for path in args.sgf
               if os.path.isdir(path) and not record_paths([path])]
    for path, reason in failed:
        print(escape_controls(f"fastplay analyze: error: {path}: {reason}"), file=sys.stderr)
    playouts = args.playouts if args.playouts is not None or args.seconds is not None \
        else BATCH_PLAYOUTS
    jobs = [Job(path, data, turn, playouts, args.seconds, args.threads, args.seed + turn,
                args.prior, tuple(args.search), bonus)
            for path, data, turns in records for turn, bonus in turns]
    cpus = os.cpu_count() or 1
    if (args.jobs or 1) > cpus:
        print(f"fastplay analyze: warning: --jobs {args.jobs} on {cpus} CPUs: more worker "
              f"processes than CPUs only slow each other down", file=sys.stderr)
    out: TextIO | _JsonFile | None = None
    if args.json == "-" or (args.json is None and not args.write_sgf):
        out = stdout
    elif args.json is not None:
        try:
            out = _JsonFile(args.json)
        except OSError as exc:
            from fastplay.analyze import EXIT_USAGE

            print(f"fastplay analyze: error: --json {args.json}: {exc.strerror or exc}",
                  file=sys.stderr)
            return EXIT_USAGE
    done = bad = 0
    try:
        pending: list[dict[str, Any]] = []
        expected = {path: len(turns) for path, _, turns in records}
        data_of = {path: data for path, data, _ in records}
        keep = [args.json] if args.json not in (None, "-") else []
        targets = sgf_targets([path for path, _, _ in records], args.sgf_dir, keep) \
            if args.write_sgf else {}
        with tqdm(total=len(jobs), unit="position", file=sys.stderr, disable=None,
                  desc="analysing") as bar:
            for answer in _results(jobs, args.jobs or 1, db):
                bar.update(1)
                pending.append(answer)
                path = answer["id"]
                if len(pending) < expected[path]:
                    continue
                try:
                    why = _finish_record(path, pending, args, data_of[path], out,
                                         targets.get(path))
                except OutputError as exc:
                    print(escape_controls(f"fastplay analyze: error: {exc}"), file=sys.stderr)
                    if out is stdout:
                        _quiet_stdout()
                    return 1
                pending = []
                if why is None:
                    done += 1
                else:
                    bad += 1
                    tqdm.write(escape_controls(f"fastplay analyze: error: {path}: {why}"),
                               file=sys.stderr)
    finally:
        if out is not None and out is not stdout:
            with contextlib.suppress(OSError):    # its error was told above
                out.close()
    print(f"{done} record{'s' if done != 1 else ''} analysed ({len(jobs)} positions), "
          f"{bad + len(failed)} failed", file=sys.stderr)
    return 1 if bad or failed else 0


def _quiet_stdout() -> None:
    """Point standard output at the null device, so that the interpreter's
    last flush of a stream that failed does not print a second error."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
