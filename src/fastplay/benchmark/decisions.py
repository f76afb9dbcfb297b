"""Decision positions: where they come from and how they are rebuilt.

A :class:`Decision` is one position of a real game record in which the side
to move has a choice that matters.  It carries everything needed to rebuild
the position without the record (board size, komi, setup stones, the moves
played from the setup) so that a benchmark file is self-contained, and a
GTP engine can be given the position with standard commands only
(``boardsize``, ``clear_board``, ``komi``, ``set_free_handicap``, ``play``).

The positions a build *considers* are proposed by :func:`propose`: for each
record a seeded sample of move numbers, taken round-robin over the records
in a seeded order so that the first ``K`` accepted decisions come from many
games.  Which of them are *kept* is the reference filter's business
(:mod:`fastplay.benchmark.reference`).
"""

from __future__ import annotations

import hashlib
import os
import random
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from fastplay.backend import derive_seed
from fastplay.board import Board, format_vertex

__all__ = ["Position", "Decision", "Record", "read_records", "propose", "phase_of",
           "OPENING_SHARE", "ENDGAME_SHARE"]

#: A position is in the *opening* while fewer than ``OPENING_SHARE * size**2``
#: moves have been played (9x9: moves 0-10; 13x13: 0-21; 19x19: 0-45).
OPENING_SHARE = 1 / 8

#: A position is in the *endgame* once stones cover at least
#: ``ENDGAME_SHARE * size**2`` points (9x9: 37 stones; 13x13: 77; 19x19: 163).
#: Between the two it is the *middle game*.
ENDGAME_SHARE = 0.45


def phase_of(size: int, move_number: int, stones: int) -> str:
    """``"opening"``, ``"middle"`` or ``"endgame"`` by the rules of
    :data:`OPENING_SHARE` and :data:`ENDGAME_SHARE`."""
    points = size * size
    if move_number < OPENING_SHARE * points:
        return "opening"
    if stones >= ENDGAME_SHARE * points:
        return "endgame"
    return "middle"


@dataclass(frozen=True)
class Position:
    """A Go position as setup stones plus the moves played from them.

    Attributes:
        size: board size (2..25).
        komi: komi in points (area scoring).
        black, white: setup stones (GTP vertices); ``white`` is always empty
            in a benchmark (GTP has no command for White setup stones).
        first: the colour to move after the setup, ``"B"`` or ``"W"``.
        moves: ``((colour, GTP vertex or "pass"), ...)`` from the setup on.
    """

    size: int
    komi: float
    black: tuple[str, ...]
    white: tuple[str, ...]
    first: str
    moves: tuple[tuple[str, str], ...]

    def board(self) -> Board:
        """The position as a :class:`Board` (simple ko, no suicide), history included."""
        board = Board(self.size, self.komi)
        if self.black or self.white:
            board.setup(black=self.black, white=self.white)
        board.to_move = self.first
        for colour, move in self.moves:
            board.play(move, colour)
        return board

    @property
    def to_play(self) -> str:
        """The colour to move in this position."""
        if not self.moves:
            return self.first
        return "W" if self.moves[-1][0] == "B" else "B"

    def to_json(self) -> dict[str, Any]:
        """The JSON object of a benchmark line's position fields."""
        return {"size": self.size, "komi": self.komi, "setup": list(self.black),
                "first": self.first, "moves": [f"{c} {m}" for c, m in self.moves]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Position:
        """Inverse of :meth:`to_json`; ``ValueError`` on a malformed object."""
        try:
            moves = tuple((m.split()[0], m.split()[1]) for m in data["moves"])
            return cls(int(data["size"]), float(data["komi"]), tuple(data["setup"]), (),
                       str(data["first"]), moves)
        except (KeyError, IndexError, TypeError, AttributeError) as exc:
            raise ValueError(f"malformed position: {exc!r}") from None


@dataclass(frozen=True)
class Decision:
    """One decision: a position, who moves, what was played, and tags.

    Attributes:
        id: ``"<sha256 of the record, 12 hex digits>:<move number>"``, stable
            whatever the record's path.
        record: the record's path relative to the folder it was found in.
        move_number: moves played in the record before this decision.
        position: the position (:class:`Position`).
        game_move: the move the record's player chose here.
        phase: ``"opening"``, ``"middle"`` or ``"endgame"`` (:func:`phase_of`).
        stones: stones on the board.
    """

    id: str
    record: str
    move_number: int
    position: Position
    game_move: str
    phase: str
    stones: int


@dataclass(frozen=True)
class Record:
    """A readable game record reduced to its main line."""

    name: str
    digest: str
    start: Position
    played: tuple[tuple[str, str], ...]


def _record(path: str, name: str, size: int, komi: float | None,
            unreadable: list[str]) -> Record | None:
    """The record at ``path`` if it is a ``size`` game without White setup
    stones that fastplay replays exactly; ``None`` otherwise (and the reason
    appended to ``unreadable`` when the file cannot be read)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        start = Board.from_sgf(data, move_number=0)
        if start.size != size:
            return None
        end = Board.from_sgf(data)
    except (OSError, ValueError) as exc:
        unreadable.append(f"{path}: {exc}")
        return None
    grid = start.to_numpy().reshape(-1)
    black = [format_vertex(int(i), size) for i in (grid > 0).nonzero()[0]]
    if (grid < 0).any():
        return None  # GTP cannot set White stones up
    game_komi = start.komi if komi is None else komi
    first = Position(size, game_komi, tuple(black), (), start.to_move.letter, ())
    played = tuple((colour.letter, move) for colour, move in end.history)
    if Position(size, game_komi, first.black, (), first.first, played).board() != end:
        return None  # setup in the middle of the record: not replayable from its start
    digest = hashlib.sha256(data).hexdigest()[:12]
    return Record(name, digest, first, played)


def read_records(inputs: Iterable[str], size: int, komi: float | None = None) -> list[Record]:
    """The ``size`` records among ``inputs`` (files, or folders searched
    recursively for ``.sgf`` files), sorted by name, duplicates (same
    contents) dropped; one warning counts the files that cannot be read.  A record's name is its path relative to the folder
    it was found in (its base name for a file named directly).  ``komi``
    replaces each record's komi when given."""
    from fastplay.batch import record_paths

    found: dict[str, Record] = {}
    unreadable: list[str] = []
    for source in inputs:
        root = source if os.path.isdir(source) else os.path.dirname(source)
        for path in record_paths([source]):
            name = os.path.relpath(path, root) if root else path
            record = _record(path, name.replace(os.sep, "/"), size, komi, unreadable)
            if record is not None and record.digest not in found:
                found[record.digest] = record
    if unreadable:
        warnings.warn(f"{len(unreadable)} record{'s' if len(unreadable) > 1 else ''} "
                      f"skipped as unreadable (first: {unreadable[0]})", stacklevel=2)
    return sorted(found.values(), key=lambda r: (r.name, r.digest))


def _decision(record: Record, move_number: int) -> Decision:
    moves = record.played[:move_number]
    position = Position(record.start.size, record.start.komi, record.start.black, (),
                        record.start.first, moves)
    stones = int((position.board().to_numpy() != 0).sum())
    return Decision(f"{record.digest}:{move_number}", record.name, move_number, position,
                    record.played[move_number][1], phase_of(position.size, move_number, stones),
                    stones)


def propose(records: Sequence[Record], seed: int, per_record: int) -> list[Decision]:
    """Candidate decisions in the order a build considers them.

    For each record, ``per_record`` move numbers are drawn without
    replacement (``random.Random(derive_seed(seed, digest))``) among those
    where the record's player put a stone on the board (passes
    excluded); records are visited in a seeded order, round-robin:
    every record's first sample, then every record's second, and so on.
    """
    order = list(records)
    random.Random(derive_seed(seed, "records")).shuffle(order)
    samples: list[list[int]] = []
    for record in order:
        playable = [i for i, (_, move) in enumerate(record.played) if move != "pass"]
        rng = random.Random(derive_seed(seed, record.digest))
        samples.append(rng.sample(playable, min(per_record, len(playable))))
    out: list[Decision] = []
    for round_ in range(per_record):
        for record, picks in zip(order, samples):
            if round_ < len(picks):
                out.append(_decision(record, picks[round_]))
    return out
