"""Learned move priors for the tree search: local pattern strengths fitted to game records.

The playouts must keep GNU Go's policy (spec §6), so every pattern value
stays GNU Go's; the tree's prior is free.  A learned prior predicts GNU Go's
moves far better than the playout values do (held-out figures:
``benchmarks/RESULTS.md``, "A learned prior" and "Large patterns in the 9x9
prior"; ``benchmarks/train_prior.py`` reproduces the bundled priors, fitted
on every position: ``"gnugo9x9_shapes"`` with ``--shape-radius 4``).

Model: the generalised Bradley-Terry model of Coulom, "Computing Elo ratings
of move patterns in the game of Go", ICGA Journal 30(4), 2007.  A legal move
is a team of six features, the first three read from GNU Go's local
context (:func:`fastplay.patterns.local_contexts`):

* its geometry class (spec §5.1, 1..1107),
* its property byte (§4.2: captures, self-atari, suicide, the near bit),
* the pair of both, i.e. its cell of a compiled ``uint32[1108, 256]`` table;
* its line (distance to the edge, 0..4, the fifth line and beyond as 4);
* its distance to the last move and to the move before it, in Coulom's
  measure ``dx + dy + max(dx, dy)`` (2..16, 17 for farther; 0 when there is
  no such move or it was a pass).

A seventh group is optional: the move's large pattern, the largest of its
diamond-shaped neighbourhoods of radius 2 to ``R`` that the training moves
played often enough (:mod:`fastplay.shapes`; Coulom 2007, section 2.2).

The probability that the player chooses move ``m`` is ``gamma(m) / sum of
gamma(m')`` over the legal moves, ``gamma(m)`` the product of its features'
strengths.  The strengths are fitted by minorization-maximization (Coulom
2007, section 3.2), with a prior of one virtual win and one virtual loss
against a strength of 1 for every feature, so unseen features keep
strength 1.  The first three groups make a table indexed like a compiled
pattern table, which the search reads through the core's ``move_values`` in
one pass; the distance groups are factors applied to a new node's moves
(:meth:`LearnedPrior.factors`).
"""

from __future__ import annotations

import functools
import importlib.resources
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from fastplay._checks import is_integer
from fastplay._equality import fields_equal
from fastplay._threads import signals_blocked
from fastplay.inputfile import read_input
from fastplay.shapes import SHAPE_RADIUS_MAX, ShapeTable, shape_hashes
from fastplay.shown import quoted, shown_value

if TYPE_CHECKING:  # pragma: no cover - typing only; imported lazily at run time
    from fastplay.board import Board
    from fastplay.patterns import PatternDatabase

__all__ = ["MoveSamples", "PriorModel", "LearnedPrior", "collect_samples", "record_files", "fit",
           "load_prior", "check_source", "distance_buckets", "BUNDLED", "records_report"]

NUM_CLASSES = 1108  # geometry classes 1..1107 of spec §5.1, row 0 unused
NUM_PROPERTIES = 256
TABLE_SHAPE = (NUM_CLASSES, NUM_PROPERTIES)

LINES = 5        # line buckets: 0..3, and 4 for the fifth line and beyond
DISTANCES = 18   # distance buckets: 0 (no such move), 2..16, 17 (farther)

#: Learned priors shipped with fastplay: name -> file in ``fastplay/data``.
BUNDLED = {"gnugo9x9": "prior_gnugo9x9.npz", "gnugo13x13": "prior_gnugo13x13.npz",
           "gnugo19x19": "prior_gnugo19x19.npz", "gnugo9x9_shapes": "prior_gnugo9x9_shapes.npz"}

# A table's median cell is scaled to this value: integers with three digits
# of resolution below the median and room above it (the largest learned
# strengths are a few hundred times the median).
_MEDIAN_VALUE = 1000.0


@functools.cache
def _geometry(size: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Line buckets ``int64[n*n]`` and distance buckets ``int64[n*n + 1, n*n]``
    (row ``n*n``: no move, all 0) of a board of ``size``."""
    rows, cols = np.divmod(np.arange(size * size), size)
    line = np.minimum(np.minimum(rows, size - 1 - rows), np.minimum(cols, size - 1 - cols))
    dx = np.abs(cols[:, None] - cols[None, :])
    dy = np.abs(rows[:, None] - rows[None, :])
    dist = np.minimum(dx + dy + np.maximum(dx, dy), DISTANCES - 1)
    dist = np.vstack([dist, np.zeros((1, size * size), np.int64)])
    line = np.minimum(line, LINES - 1)
    line.setflags(write=False)
    dist.setflags(write=False)
    return line, dist


def distance_buckets(size: int, points: npt.ArrayLike, last: int, before: int
                     ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64],
                                npt.NDArray[np.int64]]:
    """Line, last-move and move-before-last distance buckets of ``points``.

    Args:
        size: board size.
        points: ``int[k]`` flat indices (row 0 the top row).
        last, before: flat index of the last move and of the one before it;
            -1 for a pass or no move.

    Returns:
        Three ``int64[k]``: line 0..4, distances 0..17 (see the module docstring).

    Raises:
        ValueError: a size outside 2..25, or a point or move off the board.
        TypeError: non-integer points.
    """
    _check_size(size)
    p = _points(size, points)
    _check_move(size, last, "last")
    _check_move(size, before, "before")
    line, dist = _geometry(size)
    none = size * size
    return (line[p], dist[last if last >= 0 else none][p],
            dist[before if before >= 0 else none][p])


def _points(size: int, points: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """``points`` as ``int64[k]`` flat indices of the board, or an error."""
    p = np.asarray(points)
    if p.size == 0:
        return np.zeros(0, np.int64)
    if p.dtype.kind not in "iu":
        raise TypeError(f"points must be integers, not {p.dtype}")
    if p.ndim != 1:
        raise ValueError(f"points must be one-dimensional, not of shape {p.shape}")
    if p.min() < 0 or p.max() >= size * size:
        raise ValueError(f"points must be flat indices of a {size}x{size} board")
    return p.astype(np.int64)


def _check_size(size: int) -> None:
    if type(size) is int and 2 <= size <= 25:
        return    # the common case, without the slower checks below
    if not is_integer(size) or not 2 <= size <= 25:
        raise ValueError(f"size must be an integer in 2..25 (fastplay's board sizes), "
                         f"not {size!r}")


def _check_move(size: int, move: int, name: str) -> None:
    if type(move) is int and -1 <= move < size * size:
        return    # the common case, without the slower checks below
    if not is_integer(move) or not -1 <= move < size * size:
        raise ValueError(f"{name} must be a flat index of a {size}x{size} board or -1, "
                         f"not {move!r}")


@dataclass(frozen=True)
class MoveSamples:
    """Chosen moves with their legal alternatives, for fitting and scoring a prior.

    Attributes:
        index: ``int64[k]``, table index ``geometry * 256 + properties`` of every
            candidate, position after position.
        offsets: ``int64[n + 1]``, position ``j``'s candidates are
            ``index[offsets[j]:offsets[j + 1]]``.
        chosen: ``int64[n]``, the chosen candidate's place within its position.
        game: ``int64[n]``, the game (0-based, in reading order) of each position.
        values: ``float64[k]``, the playout database's value of every candidate
            (the default prior's raw weight), for comparison.
        line, last, before: ``int64[k]``, the candidates' line and distance
            buckets (:func:`distance_buckets`).
        shapes: ``uint64[k, R - 1]``, the candidates' large-pattern hashes
            at radius 2..R (:func:`fastplay.shapes.shape_hashes`), or
            ``None`` when they were not collected.
    """

    __eq__ = fields_equal

    index: npt.NDArray[np.int64]
    offsets: npt.NDArray[np.int64]
    chosen: npt.NDArray[np.int64]
    game: npt.NDArray[np.int64]
    values: npt.NDArray[np.float64]
    line: npt.NDArray[np.int64]
    last: npt.NDArray[np.int64]
    before: npt.NDArray[np.int64]
    shapes: npt.NDArray[np.uint64] | None = None

    def __len__(self) -> int:
        return len(self.chosen)

    def subset(self, mask: npt.ArrayLike) -> MoveSamples:
        """The positions where ``mask`` (``bool[n]``) is true."""
        keep = np.asarray(mask, dtype=bool)
        per_candidate = np.repeat(keep, np.diff(self.offsets))
        sizes = np.diff(self.offsets)[keep]
        return MoveSamples(
            self.index[per_candidate], np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
            self.chosen[keep], self.game[keep], self.values[per_candidate],
            self.line[per_candidate], self.last[per_candidate], self.before[per_candidate],
            None if self.shapes is None else self.shapes[per_candidate])

    def concat(self, other: MoveSamples) -> MoveSamples:
        """These positions, then ``other``'s (its games numbered after these).

        Raises:
            ValueError: one has large-pattern hashes and the other none, or
                of another radius.
        """
        if (self.shapes is None) != (other.shapes is None) or (
                self.shapes is not None and other.shapes is not None
                and self.shapes.shape[1] != other.shapes.shape[1]):
            raise ValueError("samples with and without large-pattern hashes (or of two radii) "
                             "do not concatenate")
        first = int(self.game.max()) + 1 if len(self) else 0
        values, line, last, before = (np.concatenate([getattr(self, k), getattr(other, k)])
                                      for k in ("values", "line", "last", "before"))
        return MoveSamples(
            np.concatenate([self.index, other.index]),
            np.concatenate([self.offsets, other.offsets[1:] + self.offsets[-1]]),
            np.concatenate([self.chosen, other.chosen]),
            np.concatenate([self.game, other.game + first]), values, line, last, before,
            None if self.shapes is None or other.shapes is None
            else np.concatenate([self.shapes, other.shapes]))

    def log_likelihood(self, strength: npt.ArrayLike) -> tuple[float, float]:
        """Mean log-probability (nats) of the chosen moves and the top-1 rate.

        Args:
            strength: ``float[k]``, a positive weight per candidate; moves are
                predicted with probability proportional to it.

        Returns:
            ``(mean log-probability, top-1 rate)``; a tie for the largest
            weight counts as ``1 / (moves tied)`` of a hit.
        """
        s = np.asarray(strength, dtype=np.float64)
        pos = np.repeat(np.arange(len(self)), np.diff(self.offsets))
        total = np.bincount(pos, weights=s, minlength=len(self))
        picked = s[self.offsets[:-1] + self.chosen]
        best = np.maximum.reduceat(s, self.offsets[:-1])
        ties = np.add.reduceat((s >= best[pos]).astype(np.float64), self.offsets[:-1])
        return (float(np.mean(np.log(picked / total))),
                float(np.mean((picked >= best) / ties)))


def collect_samples(games: Iterable[str | os.PathLike[str]], player: str | None,
                    size: int = 9, db: PatternDatabase | None = None,
                    skipped: list[str] | None = None, cut: list[str] | None = None,
                    left_out: list[str] | None = None, shape_radius: int = 0) -> MoveSamples:
    """The moves of ``player`` in SGF game records, with their legal alternatives.

    Args:
        games: SGF files.  Games on another board size, with handicap or
            setup stones (``HA``, ``AB``/``AW``/``AE`` in any node), and games
            where ``player`` matches neither or both of PB/PW are skipped.
        player: a substring of the player's name (``PB``/``PW``), e.g. ``"GNU Go"``;
            ``None`` for the moves of both players.
        size: board size of the games to read.
        db: the playout database whose values go into ``values`` (default
            ``mc_montegnu_classic``).
        skipped: if given, a record that is not a readable SGF game is not an
            error: its :class:`~fastplay.sgf.SGFError` message (or, for a
            file the reader refuses, too large or unreadable, ``"PATH:
            REASON"``) is appended here and the record skipped (collections
            of real records hold a few broken files).
        cut: if given, gets ``"PATH: move N and after left out: WHY"`` for
            each record cut short at an illegal move (its moves before it are
            used).
        left_out: if given, gets ``"PATH: REASON"`` for each readable record
            the filters above leave out (``on 13x13``, ``with handicap``,
            ``with setup stones``, ``no player named like 'X'``, ``both
            players named like 'X'``).
        shape_radius: collect the candidates' large-pattern hashes up to
            this radius (2..``SHAPE_RADIUS_MAX``; 0: none).

    Returns:
        :class:`MoveSamples`; passes, and moves the record plays on a point
        that is not a legal non-suicide move, are skipped.

    Raises:
        fastplay.sgf.SGFError: a file that is not a readable SGF game, or a
            malformed move in one (the message names the file).
        OSError: a file that cannot be read (missing, a directory).
    """
    from fastplay.patterns import PatternDatabase
    from fastplay.sgf import SGFError

    if db is None:
        db = PatternDatabase.builtin("mc_montegnu_classic")
    if shape_radius != 0 and not 2 <= shape_radius <= SHAPE_RADIUS_MAX:
        raise ValueError(f"shape_radius must be 0 or in 2..{SHAPE_RADIUS_MAX}, not {shape_radius}")
    builder = _SampleBuilder(db, shape_radius)
    games_read = 0
    for path in games:
        try:
            game = _read_game(path, player, size)
        except SGFError as exc:
            if skipped is None:
                raise
            skipped.append(str(exc))
            continue
        except OSError as exc:
            # A record the reader refuses (over read_input's size limit, or
            # unreadable) is skipped like a broken one: one bad file in a
            # collection must not stop a fit (a tester's 70 MB record did).
            if skipped is None or isinstance(exc, FileNotFoundError):
                raise
            skipped.append(f"{path}: {exc.strerror or exc}")
            continue
        if isinstance(game, str):
            if left_out is not None:
                left_out.append(f"{path}: {game}")
            continue
        ours, moves = game
        stop = _replay_game(builder, size, ours, moves, games_read)
        if stop is not None and cut is not None:
            cut.append(f"{path}: {stop}")
        games_read += 1
    return builder.build()


#: :func:`records_report` names each record left out up to this many.
NAMED_LEFT_OUT = 10


def records_report(skipped: list[str], cut: list[str], left_out: list[str]) -> list[str]:
    """Lines for a user about :func:`collect_samples`' ``skipped``, ``cut`` and
    ``left_out`` lists: each unreadable record (``skipped: ...``), each record
    cut short (``cut short: ...``, its start used), and the records the
    filters left out, counted by reason (``left out: 652 records: 193 on
    13x13, 459 on 19x19``) and named when there are at most
    :data:`NAMED_LEFT_OUT`."""
    lines = [f"skipped: {m}" for m in skipped] + [f"cut short: {m}" for m in cut]
    if left_out:
        reasons: dict[str, int] = {}
        for entry in left_out:
            why = entry.rsplit(": ", 1)[-1]
            reasons[why] = reasons.get(why, 0) + 1
        plural = "s" if len(left_out) != 1 else ""
        lines.append(f"left out: {len(left_out)} record{plural}: "
                     + ", ".join(f"{n} {why}" for why, n in reasons.items()))
        if len(left_out) <= NAMED_LEFT_OUT:
            lines += [f"left out: {entry}" for entry in left_out]
    return lines


#: The names of the tar archives :func:`record_files` unpacks.
TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")


def record_files(sources: Iterable[str | os.PathLike[str]], scratch: str | os.PathLike[str]
                 ) -> list[Path]:
    """The SGF files of ``sources``: files as given, folders searched
    recursively for ``*.sgf``, tar archives (:data:`TAR_SUFFIXES`: plain,
    gzip, bzip2 or xz; an uncompressed ``.tar`` was read as one SGF file)
    unpacked into the folder ``scratch`` (numbered subfolders, each holding
    a folder named after its archive) and searched likewise.

    Raises:
        FileNotFoundError: a source that does not exist.
        tarfile.ReadError: an archive that cannot be unpacked (one line, naming it).
        OSError: a file that cannot be read.
    """
    import tarfile

    found: list[Path] = []
    for n, source in enumerate(sources):
        path = Path(source)
        if path.is_dir():
            found += sorted(path.rglob("*.sgf"))
        elif path.name.lower().endswith(TAR_SUFFIXES):
            # Named after the archive: a record's messages then read
            # ".../0/games.tar.gz/member.sgf", not a bare temporary path.
            target = Path(scratch) / str(n) / path.name
            try:
                with tarfile.open(path) as archive:
                    if hasattr(tarfile, "data_filter"):   # Python >= 3.10.12 / 3.11.4
                        archive.extractall(target, filter="data")
                    else:
                        archive.extractall(target)  # noqa: S202 - older Pythons lack it
            except (tarfile.TarError, EOFError) as exc:
                first = (str(exc).splitlines() or [type(exc).__name__])[0].rstrip(":")
                raise tarfile.ReadError(f"{source}: not a readable tar archive ({first})"
                                        ) from None
            found += sorted(target.rglob("*.sgf"))
        elif path.is_file():
            found.append(path)
        else:
            raise FileNotFoundError(f"no such file or directory: {source}")
    return found


# A record's move: sgfmill's (colour "b"/"w", (row, col) with row 0 at the
# bottom, None for a pass); (None, None) for a node without a move.
_RecordMove = tuple[str | None, tuple[int, int] | None]


def _read_game(path: str | os.PathLike[str], player: str | None, size: int
               ) -> tuple[str, list[_RecordMove]] | str:
    """``player``'s colour (``"b"``/``"w"``; ``"bw"`` for ``None``, both) in the
    game at ``path`` and the game's moves, or why :func:`collect_samples`
    leaves the game out."""
    from fastplay.sgf import SGFError, check_nodes, parse_record

    data = read_input(path, "SGF file")
    check_nodes(data, str(path))
    try:
        # As load_board reads it (SZ[9:9], a Shift_JIS or unknown CA).
        record = parse_record(data)
    except ValueError as exc:
        raise SGFError(f"{path}: {exc}") from exc
    root = record.get_root()
    # Raw values: a name given twice (PB[a][b]) is read as one, not refused.
    names = {c: b" ".join(root.get_raw_list(p)).decode("utf-8", "replace")
             if root.has_property(p) else "" for c, p in (("b", "PB"), ("w", "PW"))}
    ours = ["bw"] if player is None else [c for c, name in names.items() if player in name]
    sequence = record.get_main_sequence()
    moves: list[_RecordMove] = []
    for number, node in enumerate(sequence):
        moves += _node_moves(node, number, path)
    try:
        handicap = root.has_property("HA") and int(root.get("HA")) > 1
    except ValueError:
        raise SGFError(f"{path}: HA[{quoted(root.get_raw('HA'))}] is not a number") from None
    if record.get_size() != size:
        return f"on {record.get_size()}x{record.get_size()}"
    if handicap:
        return "with handicap"
    if any(node.has_setup_stones() for node in sequence):
        return "with setup stones"
    if len(ours) != 1:
        return f"{'no player' if not ours else 'both players'} named like {player!r}"
    return ours[0], moves


def _node_moves(node: Any, number: int, path: str | os.PathLike[str]) -> list[_RecordMove]:
    """The moves of main-line node ``number`` as :func:`fastplay.sgf.load_board`
    plays them: ``B`` and ``W`` both, in the node's order; ``[(None, None)]``
    for a node without one (but the root: nothing)."""
    named = [p for p in node.get_raw_property_map() if p in ("B", "W")]
    if not named:
        return [] if number == 0 else [(None, None)]
    try:
        return [(p.lower(), node.get(p)) for p in named]
    except ValueError:
        from fastplay.sgf import SGFError

        values = [f"{p}[{quoted(node.get_raw(p))}]" for p in named]
        raise SGFError(f"{path}: node {number}: a malformed move {' '.join(values)}") from None


def _replay_game(builder: _SampleBuilder, size: int, ours: str, moves: list[_RecordMove],
                 game: int) -> str | None:
    """Play ``moves`` out on an empty board, sampling each move of a colour
    in ``ours``; stop at the first illegal move of the record and say so
    (``None`` when the whole record was played)."""
    from fastplay.board import Board

    board = Board(size)
    recent = [-1, -1]  # the move before last and the last move; -1: pass or none
    for number, (colour, move) in enumerate(moves, 1):
        if colour is None:
            continue
        if move is None:
            board.pass_move(colour.upper())
            recent = [recent[1], -1]
            continue
        row, col = move
        point = (size - 1 - row) * size + col
        if colour in ours and board.to_move == colour.upper():
            builder.add(board, point, recent[1], recent[0], game)
        try:
            board.play(point, colour.upper())
        except ValueError as exc:   # an illegal move in the record: keep what came before
            return f"move {number} and after left out: {exc}"
        recent = [recent[1], point]
    return None


class _SampleBuilder:
    """The columns of a :class:`MoveSamples`, grown one position at a time."""

    def __init__(self, db: PatternDatabase, shape_radius: int = 0) -> None:
        self.db = db
        self.shape_radius = shape_radius
        self.columns: dict[str, list[np.ndarray]] = {
            k: [] for k in ("index", "values", "line", "last", "before", "shapes")}
        self.offsets = [0]
        self.chosen: list[int] = []
        self.game_of: list[int] = []

    def add(self, board: Board, point: int, last: int, before: int, game: int) -> None:
        """The position on ``board`` with ``point`` chosen, from game number
        ``game``; nothing if ``point`` is not a legal non-suicide move there."""
        from fastplay.patterns import local_contexts

        contexts = local_contexts(board)
        legal = np.flatnonzero(contexts.legal.ravel())
        place = np.flatnonzero(legal == point)
        if not len(place):
            return
        line, last_bucket, before_bucket = distance_buckets(board.size, legal, last, before)
        self.columns["index"].append(contexts.index.ravel()[legal])
        self.columns["values"].append(
            np.asarray(self.db.move_values(board), np.float64).ravel()[legal])
        self.columns["line"].append(line)
        self.columns["last"].append(last_bucket)
        self.columns["before"].append(before_bucket)
        if self.shape_radius:
            hashes = shape_hashes(board, board.to_move_code, self.shape_radius)
            self.columns["shapes"].append(hashes[:, legal].T)
        self.offsets.append(self.offsets[-1] + len(legal))
        self.chosen.append(int(place[0]))
        self.game_of.append(game)

    def build(self) -> MoveSamples:
        """The positions added so far."""
        joined = {k: np.concatenate(v) if v else np.zeros(0) for k, v in self.columns.items()}
        shapes = None
        if self.shape_radius:
            shapes = joined["shapes"].astype(np.uint64).reshape(-1, self.shape_radius - 1)
        return MoveSamples(
            joined["index"].astype(np.int64), np.asarray(self.offsets, np.int64),
            np.asarray(self.chosen, np.int64), np.asarray(self.game_of, np.int64),
            joined["values"].astype(np.float64), joined["line"].astype(np.int64),
            joined["last"].astype(np.int64), joined["before"].astype(np.int64), shapes)


@dataclass(frozen=True)
class LearnedPrior:
    """What the search needs of a learned prior.

    Attributes:
        table: ``uint32[1108, 256]``, the weight of each pattern-table cell
            (read with the core's ``move_values``).
        line, last, before: ``float64[5]``, ``float64[18]``, ``float64[18]``,
            factors by line and distance bucket (all 1 for a bare table).
        shapes: the large patterns' strengths (:mod:`fastplay.shapes`), or
            ``None``.
    """

    __eq__ = fields_equal

    table: npt.NDArray[np.uint32]
    line: npt.NDArray[np.float64]
    last: npt.NDArray[np.float64]
    before: npt.NDArray[np.float64]
    shapes: ShapeTable | None = None
    # Per board size: the factors of every point, by line and by the point
    # of the last move / the move before it (row n*n: none).  A search asks
    # at every new node; three lookups cost a third of the bucketing.
    _by_size: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(
        default_factory=dict, compare=False, repr=False)

    @property
    def has_factors(self) -> bool:
        """Whether any line or distance factor differs from 1, or there are large patterns."""
        return bool(np.any(self.line != 1) or np.any(self.last != 1) or np.any(self.before != 1)
                    or self.shapes is not None)

    def shape_row(self, board: Board, base: npt.ArrayLike | None = None
                  ) -> npt.NDArray[np.float64] | None:
        """``float64[size*size]``: the strength of the large pattern of every
        point for ``board``'s side to move, times ``base``, in
        [STRENGTH_MIN, STRENGTH_MAX] (:meth:`ShapeTable.row`; ``None``
        without large patterns)."""
        return None if self.shapes is None else self.shapes.row(board, base)

    def factor_rows(self, size: int, last: int, before: int
                    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64],
                               npt.NDArray[np.float64]]:
        """The line, last-move and move-before-last factors of every point:
        three ``float64[size*size]`` (read-only; arguments as for
        :func:`distance_buckets`).  The search hands them to the core."""
        _check_size(size)
        tables = self._by_size.get(size)
        if tables is None:
            line, dist = _geometry(size)
            tables = (self.line[line], self.last[dist], self.before[dist])
            for t in tables:
                t.setflags(write=False)
            self._by_size[size] = tables
        _check_move(size, last, "last")
        _check_move(size, before, "before")
        none = size * size
        return (tables[0], tables[1][last if last >= 0 else none],
                tables[2][before if before >= 0 else none])

    def factors(self, size: int, points: npt.ArrayLike, last: int, before: int
                ) -> npt.NDArray[np.float64]:
        """``float64[k]``: the line and distance factors of ``points`` (see
        :func:`distance_buckets` for the arguments and errors)."""
        rows = self.factor_rows(size, last, before)
        p = _points(size, points)
        return rows[0][p] * rows[1][p] * rows[2][p]


@dataclass(frozen=True)
class PriorModel:
    """Fitted feature strengths (Coulom 2007).

    Attributes:
        geometry: ``float64[1108]``, strength of each geometry class.
        properties: ``float64[256]``, strength of each property byte.
        cells: ``float64[1108 * 256]``, strength of each (class, byte) pair.
        line: ``float64[5]``, strength of each line bucket.
        last, before: ``float64[18]``, strength of each distance bucket to
            the last move and to the move before it.
        shapes: the kept large patterns and their strengths, or ``None``.
    """

    __eq__ = fields_equal

    geometry: npt.NDArray[np.float64]
    properties: npt.NDArray[np.float64]
    cells: npt.NDArray[np.float64]
    line: npt.NDArray[np.float64]
    last: npt.NDArray[np.float64]
    before: npt.NDArray[np.float64]
    shapes: ShapeTable | None = None

    @classmethod
    def neutral(cls) -> PriorModel:
        """Every strength 1."""
        return cls(np.ones(NUM_CLASSES), np.ones(NUM_PROPERTIES),
                   np.ones(NUM_CLASSES * NUM_PROPERTIES), np.ones(LINES), np.ones(DISTANCES),
                   np.ones(DISTANCES))

    def strength(self, samples: MoveSamples) -> npt.NDArray[np.float64]:
        """``gamma`` of every candidate of ``samples``: ``float64[k]``."""
        i = samples.index
        # Named and typed: numpy types ``i >> 8`` with an unsized integer dtype,
        # and indexing with that as Any.
        geometry: npt.NDArray[np.int64] = i >> 8
        properties: npt.NDArray[np.int64] = i & 255
        out = (self.geometry[geometry] * self.properties[properties] * self.cells[i]
               * self.line[samples.line] * self.last[samples.last]
               * self.before[samples.before])
        if self.shapes is not None:
            if samples.shapes is None:
                raise ValueError("the model has large patterns and the samples none "
                                 "(collect_samples(..., shape_radius=R))")
            out *= self.shapes.gamma[self.shapes.labels(samples.shapes)]
        return out

    def table(self) -> npt.NDArray[np.uint32]:
        """The pattern groups as a table: ``uint32[1108, 256]``, median cell 1000, at least 1."""
        t = (self.geometry[:, None] * self.properties[None, :]
             * self.cells.reshape(TABLE_SHAPE))
        t = t / np.median(t) * _MEDIAN_VALUE
        return np.clip(np.rint(t), 1, 2**31).astype(np.uint32)

    def prior(self) -> LearnedPrior:
        """The search's form of this model."""
        return LearnedPrior(self.table(), self.line.copy(), self.last.copy(), self.before.copy(),
                            self.shapes)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write an ``.npz`` file that :func:`load_prior` reads (cells other than 1
        only), at exactly ``path``.

        Raises:
            OSError: the file cannot be written.
        """
        seen = np.flatnonzero(self.cells != 1.0)
        # Through a file object: numpy would append ".npz" to a bare path.
        with open(path, "wb") as out:
            arrays: dict[str, Any] = dict(
                geometry=self.geometry, properties=self.properties,
                cell_index=seen.astype(np.int32), cell_strength=self.cells[seen],
                line=self.line, last=self.last, before=self.before)
            if self.shapes is not None:
                arrays.update(
                    shape_counts=np.array([len(h) for h in self.shapes.hashes], np.int64),
                    shape_hashes=np.concatenate(self.shapes.hashes).astype(np.uint64),
                    shape_strength=self.shapes.gamma)
            np.savez_compressed(out, **arrays)


def fit(samples: MoveSamples, iterations: int = 60, *, pattern_only: bool = False,
        shape_min_count: int = 3) -> PriorModel:
    """Fit the feature groups to ``samples`` by minorization-maximization: six,
    and a seventh, the large patterns, when the samples have their hashes.

    Args:
        samples: the chosen moves and their alternatives.
        iterations: sweeps over the groups (Coulom 2007 needed a few dozen;
            the held-out log-likelihood of the bundled prior changes by less
            than 0.001 nats from 40 to 60).
        pattern_only: fit the three pattern groups alone (line and distance
            strengths stay 1): a model a pattern table can hold, as GNU Go's
            playout policy is (:mod:`fastplay.tune`).
        shape_min_count: a large pattern is kept when the samples' chosen
            moves have it at least this often (:meth:`ShapeTable.select`;
            the held-out comparison in ``benchmarks/RESULTS.md``, "Large
            patterns in the 9x9 prior", chose 3).

    Returns:
        :class:`PriorModel`.

    Raises:
        ValueError: no samples, or ``iterations`` below 1.
    """
    if len(samples) == 0:
        raise ValueError("no moves to fit a prior to")
    if iterations < 1:
        raise ValueError(f"iterations must be at least 1, not {iterations}")
    idx = samples.index
    pos = np.repeat(np.arange(len(samples)), np.diff(samples.offsets))
    keys = [idx >> 8, idx & 255, idx, samples.line, samples.last, samples.before]
    neutral = PriorModel.neutral()
    gammas = [np.ones_like(g) for g in (neutral.geometry, neutral.properties, neutral.cells,
                                        neutral.line, neutral.last, neutral.before)]
    picked = samples.offsets[:-1] + samples.chosen
    shapes = None
    if samples.shapes is not None and not pattern_only:
        played = np.zeros(len(idx), dtype=bool)
        played[picked] = True
        shapes = ShapeTable.select(samples.shapes, played, shape_min_count)
        keys.append(shapes.labels(samples.shapes))
        gammas.append(shapes.gamma.copy())
    wins = [np.bincount(k[picked], minlength=len(g)) for k, g in zip(keys, gammas)]
    for _ in range(iterations):
        for group in range(3 if pattern_only else len(gammas)):
            team = np.ones(len(idx))
            for g, k in zip(gammas, keys):
                team *= g[k]
            total = np.bincount(pos, weights=team, minlength=len(samples))
            mates = team / gammas[group][keys[group]]
            denominator = np.bincount(keys[group], weights=mates / total[pos],
                                      minlength=len(gammas[group]))
            g = gammas[group]
            gammas[group] = (wins[group] + 1.0) / (denominator + 2.0 / (g + 1.0))
    if shapes is not None:
        shapes = ShapeTable(shapes.hashes, gammas.pop())
    geometry, properties, cells, line, last, before = gammas
    return PriorModel(geometry, properties, cells, line, last, before, shapes)


def _exists(name: str) -> bool:
    """Whether a file of that name exists; ``False`` for a name no file
    system takes (too long, a NUL)."""
    try:
        return Path(name).exists()
    except (OSError, ValueError):
        return False


def check_source(source: Any) -> None:
    """The checks of :func:`load_prior` that read no file, for options that
    name a prior (``SearchConfig.prior_table``) to refuse at once: a bundled
    name, a path (a ``str`` that is not a bundled name is a path only if it
    names a file, ends in ``.npz`` or holds a path separator), a
    :class:`LearnedPrior`, or a table (checked whole: shape and weights).

    Raises:
        ValueError: an unknown name, or a table of the wrong shape or weights.
        TypeError: anything else that is none of these (a number, a bool).
    """
    if isinstance(source, LearnedPrior) or isinstance(source, os.PathLike):
        return
    if isinstance(source, str):
        if source in BUNDLED:
            return
        if not source.strip() or (not _exists(source) and not source.endswith(".npz")
                                  and os.sep not in source):
            raise ValueError(f"unknown prior {source!r}; bundled: {', '.join(BUNDLED)} "
                             "(or the path of an .npz file written by PriorModel.save)")
        return
    if isinstance(source, (bytes, bool, np.bool_)) or np.ndim(source) == 0:
        raise TypeError(f"a prior is a bundled name ({', '.join(BUNDLED)}), an .npz path, "
                        f"a LearnedPrior or a table of shape {TABLE_SHAPE}, not "
                        f"{shown_value(source)}")
    _table_weights(source)


def load_prior(source: Any) -> LearnedPrior:
    """A prior for :class:`fastplay.search.MCTS` (its ``prior_table`` option).

    Args:
        source: a :class:`LearnedPrior` (returned as it is); a bundled name
            (:data:`BUNDLED`, e.g. ``"gnugo9x9"``); the path of an ``.npz``
            file written by :meth:`PriorModel.save`; or a table, an array of
            shape ``(1108, 256)`` of non-negative integer weights (no line or
            distance factors).

    A learned prior applies on every board size (its features are local:
    the 3x3 pattern, the line, the distances to the last two moves), so one
    named or loaded is used as given, whatever the size it was fitted on;
    ``prior_table="auto"`` picks the bundled prior of the size.

    Raises:
        ValueError: an unknown name, a file that is not a saved prior (or
            whose strengths are not in ``[STRENGTH_MIN, STRENGTH_MAX]``), or
            a table of the wrong shape or with negative, non-integer or too
            large weights (above 2**32 - 1).
        TypeError: none of these kinds (:func:`check_source`).
        FileNotFoundError: no such file.
    """
    check_source(source)
    if isinstance(source, LearnedPrior):
        return source
    if isinstance(source, (str, os.PathLike)):
        if isinstance(source, str) and source in BUNDLED:
            with importlib.resources.as_file(
                    importlib.resources.files("fastplay") / "data" / BUNDLED[source]) as path:
                return _read(path)
        return _read(Path(source))
    return LearnedPrior(_table_weights(source), np.ones(LINES), np.ones(DISTANCES),
                        np.ones(DISTANCES))


def _table_weights(source: Any) -> npt.NDArray[np.uint32]:
    """A table given as a prior (:func:`load_prior`), checked: ``uint32[1108, 256]``.
    Raises ``ValueError`` for the wrong shape, a non-numeric dtype, or
    weights that are not finite integers in [0, 2**32 - 1]."""
    table = np.asarray(source)
    if table.shape != TABLE_SHAPE:
        raise ValueError(f"a prior table has shape {TABLE_SHAPE}, not {table.shape}")
    if table.dtype.kind not in "iuf":
        raise ValueError(f"a prior table holds integer weights, not {table.dtype}")
    weights = table.astype(np.float64)
    if not np.all(np.isfinite(weights)) or weights.min() < 0 or weights.max() > 2**32 - 1:
        raise ValueError("prior weights must be finite and in [0, 2**32 - 1]")
    if np.any(weights != np.rint(weights)):
        raise ValueError("prior weights must be integers (scale a probability table first)")
    return np.ascontiguousarray(weights, dtype=np.uint32)


#: Bounds of a saved strength: a new node's weight is a table value (at most
#: 2**31) times three factors, which must stay finite and positive.
STRENGTH_MIN = 1e-6
STRENGTH_MAX = 1e6


def _read(path: Path) -> LearnedPrior:
    """:func:`_read_file` with Ctrl-C held until the file is read and closed:
    a KeyboardInterrupt raised inside ``NpzFile.__del__`` (the file's
    objects freed as the reading returns) is discarded by Python, and a
    Ctrl-C at a search's first node was lost so (a tester's finding).  So a
    FIFO or a device, whose opening or reading can wait for ever, is refused
    first: with the signals held, nothing but SIGKILL would end that wait."""
    if path.exists() and not path.is_file() and not path.is_dir():
        raise ValueError(f"{path}: not a regular file (a prior is a .npz file written by "
                         "PriorModel.save)")
    with signals_blocked():
        return _read_file(path)


class _NotArchive(Exception):
    """A prior file that does not start as a zip archive (a ``.npz``) does."""


def _read_file(path: Path) -> LearnedPrior:
    shapes = {"geometry": (NUM_CLASSES,), "properties": (NUM_PROPERTIES,), "line": (LINES,),
              "last": (DISTANCES,), "before": (DISTANCES,)}
    if path.is_dir():
        raise ValueError(f"{path}: a directory, not a prior saved by PriorModel.save")
    try:
        with open(path, "rb") as file:
            # np.load takes any file but a .npz or .npy for a pickle and,
            # refusing it, suggests allow_pickle: advice not to follow here.
            if file.read(4) not in (b"PK\x03\x04", b"PK\x05\x06"):   # numpy's own test
                raise _NotArchive()
        with np.load(path, allow_pickle=False) as data:
            raw = {k: np.asarray(data[k]) for k in (*shapes, "cell_index", "cell_strength")}
            if raw["cell_index"].dtype.kind not in "iu" or any(
                    raw[k].dtype.kind not in "iuf" for k in (*shapes, "cell_strength")):
                raise ValueError("cell indices must be integers and strengths real numbers")
            arrays = {k: raw[k].astype(np.float64) for k in shapes}
            cells = raw["cell_index"].astype(np.int64)
            strengths = raw["cell_strength"].astype(np.float64)
            large = {k: np.asarray(data[k]) for k in _SHAPE_KEYS if k in data.files}
    except FileNotFoundError:
        raise
    except _NotArchive:
        raise ValueError(f"{path}: not a prior saved by PriorModel.save (not a .npz archive)") \
            from None
    except Exception as exc:  # noqa: BLE001 - any unreadable file (zip, zlib, EOF, memory) is bad input
        detail = "it holds Python objects, which fastplay does not load" \
            if "pickle" in str(exc) else f"{type(exc).__name__}: {exc}"
        raise ValueError(f"{path}: not a prior saved by PriorModel.save ({detail})") from None
    if any(arrays[k].shape != shape for k, shape in shapes.items()) \
            or cells.shape != strengths.shape or cells.ndim != 1:
        raise ValueError(f"{path}: not a prior saved by PriorModel.save (wrong shapes)")
    if len(cells) and (cells.min() < 0 or cells.max() >= NUM_CLASSES * NUM_PROPERTIES):
        raise ValueError(f"{path}: not a prior saved by PriorModel.save (a cell index out of range)")
    if len(np.unique(cells)) != len(cells):
        raise ValueError(f"{path}: not a prior saved by PriorModel.save (a cell given twice)")
    every = np.concatenate([arrays[k] for k in shapes] + [strengths])
    if not np.all((every >= STRENGTH_MIN) & (every <= STRENGTH_MAX)):
        raise ValueError(f"{path}: prior strengths must be in [{STRENGTH_MIN:g}, "
                         f"{STRENGTH_MAX:g}]")
    model = PriorModel.neutral()
    model.cells[cells] = strengths
    model = PriorModel(arrays["geometry"], arrays["properties"], model.cells, arrays["line"],
                       arrays["last"], arrays["before"], _shape_table(path, large))
    return model.prior()


#: The arrays of a saved prior's large patterns (:meth:`PriorModel.save`).
_SHAPE_KEYS = ("shape_counts", "shape_hashes", "shape_strength")


def _shape_table(path: Path, large: dict[str, np.ndarray]) -> ShapeTable | None:
    """The large patterns of a prior file, checked (``None`` if it has none)."""
    if not large:
        return None
    bad = f"{path}: not a prior saved by PriorModel.save (its large patterns: "
    if set(large) != set(_SHAPE_KEYS):
        raise ValueError(bad + "an array is missing)")
    counts, hashes, gamma = (large[k] for k in _SHAPE_KEYS)
    # Each count checked before they are summed (a sum of int64s wraps round).
    if counts.dtype.kind not in "iu" or hashes.dtype != np.uint64 \
            or gamma.dtype.kind not in "iuf" or counts.ndim != 1 or hashes.ndim != 1 \
            or not 1 <= len(counts) <= SHAPE_RADIUS_MAX - 1 \
            or any(not 0 <= int(c) <= len(hashes) for c in counts) \
            or sum(int(c) for c in counts) != len(hashes) or gamma.shape != (1 + len(hashes),):
        raise ValueError(bad + "wrong types or shapes)")
    gamma = gamma.astype(np.float64)
    if not np.all((gamma >= STRENGTH_MIN) & (gamma <= STRENGTH_MAX)):
        raise ValueError(bad + f"strengths must be in [{STRENGTH_MIN:g}, {STRENGTH_MAX:g}])")
    parts = np.split(hashes, np.cumsum(counts)[:-1])
    try:
        return ShapeTable(tuple(parts), gamma)     # checks the hashes: sorted, distinct
    except ValueError as exc:
        raise ValueError(bad + f"{exc})") from None
