"""Life on the board as playouts cannot see it: true eyes and seki.

Random playouts always break a seki (someone plays a shared liberty first)
and fill eyes only by accident, so the search and the GTP engine ask these
board-level readers before they trust the playouts' ownership.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from fastplay._core import BLACK, WHITE, nakade_flat, true_eyes
from fastplay.board import Board

__all__ = ["eye_mask", "in_seki", "seki_mask", "strings", "dead_strings", "string_status",
           "nakade_points"]


def eye_mask(grid: npt.NDArray[np.int8], color: int) -> npt.NDArray[np.bool_]:
    """Empty points that are true one-point eyes of ``color`` (``bool[size, size]``).

    ``grid`` is :meth:`Board.to_numpy` (1 Black, -1 White); ``color`` is +1 for
    Black, -1 for White.  An eye has only own stones or the edge orthogonally,
    and at most one enemy stone diagonally (none on the edge or in the
    corner) -- the usual playout rule (e.g. Pachi's ``board_is_eyelike`` plus
    the false-eye test).  Filling such a point never helps under area scoring.
    """
    return true_eyes(grid, color)


def strings(board: Board) -> list[npt.NDArray[np.int32]]:
    """Flat indices of every string on the board, each string once, in scan order."""
    stones = np.flatnonzero(board.to_numpy().ravel())
    seen = np.zeros(board.size * board.size, dtype=bool)
    found = []
    for point in stones:
        if not seen[point]:
            members = np.asarray(board.string_indices(int(point)))
            seen[members] = True
            found.append(members)
    return found


def dead_strings(board: Board, ownership: npt.ArrayLike, threshold: float) -> list[int]:
    """Flat indices, sorted, of the stones of strings whose mean ownership
    (``float[size, size]``, +1 Black) is below ``-threshold`` for their own
    colour.  Playouts lose seki strings (someone always fills a shared
    liberty first), so a string in seki stays alive whatever its ownership."""
    flat = np.asarray(ownership, dtype=np.float64).ravel()
    colors = board.to_numpy().ravel()
    dead: list[int] = []
    for members in strings(board):
        lost = float(flat[members].mean()) * colors[members[0]] < -threshold
        if lost and not in_seki(board, int(members[0])):
            dead.extend(int(i) for i in members)
    return sorted(dead)


def string_status(board: Board, dead: set[int]) -> list[tuple[str, list[int]]]:
    """GTP ``final_status_list``'s classes: each string (flat indices) as
    ``"dead"`` (its stones in ``dead``), ``"seki"`` (in seki once the dead
    stones are removed) or ``"alive"``."""
    settled = board.copy()
    if dead:
        settled.setup(empty=sorted(dead))
    out: list[tuple[str, list[int]]] = []
    for members in strings(board):
        stones = [int(i) for i in members]
        if stones[0] in dead:
            kind = "dead"
        elif in_seki(settled, stones[0]):
            kind = "seki"
        else:
            kind = "alive"
        out.append((kind, stones))
    return out


def seki_mask(board: Board) -> npt.NDArray[np.bool_]:
    """``bool[size, size]``: stones of strings in seki (:func:`in_seki`) and
    the liberties they share."""
    size = board.size
    grid = board.to_numpy().ravel()
    mask = np.zeros(size * size, dtype=bool)
    for members in strings(board):
        point = int(members[0])
        if in_seki(board, point):
            mask[members] = True
            for lib in board.string_liberty_indices(int(point)):
                # only the shared ones: the others are the string's own eyes
                if any(grid[n] == -grid[point] for n in _neighbours(int(lib), size)):
                    mask[int(lib)] = True
    return mask.reshape(size, size)


def in_seki(board: Board, point: int) -> bool:
    """Whether the string at flat index ``point`` lives in seki with an
    adjacent enemy string.

    The shape recognised is the one playouts get wrong: the two strings share
    liberties, every other liberty of each is an eye of its own colour, and a
    move on any shared liberty, by either side, is illegal or puts the mover's
    string in atari without capturing.  Neither side can then approach, so
    both live, even though random playouts, where someone always plays there
    first, report one of them as captured.

    Raises:
        InvalidVertexError: ``point`` is the pass, off the board or not an
            integer (as :meth:`Board.string_liberty_indices`, which reads it
            first).
    """
    libs = {int(i) for i in board.string_liberty_indices(point)}
    if not libs:
        return False
    grid = board.to_numpy().ravel()
    size = board.size
    own = int(grid[point])
    enemies = {int(board.string_indices(n)[0]) for stone in board.string_indices(point)
               for n in _neighbours(int(stone), size) if grid[n] == -own}
    # A liberty's empty region reaches its string; it is an eye of that
    # colour when it reaches no other (Tromp-Taylor's owner).
    owner = board.area_owner().ravel()
    for enemy in enemies:
        enemy_libs = {int(i) for i in board.string_liberty_indices(enemy)}
        shared = libs & enemy_libs
        if (shared
                and all(owner[lib] == own for lib in libs - shared)
                and all(owner[lib] == -own for lib in enemy_libs - shared)
                and all(_self_atari(board, lib, own) and _self_atari(board, lib, -own)
                        for lib in shared)):
            return True
    return False


def _self_atari(board: Board, point: int, sign: int) -> bool:
    """Whether a move at ``point`` (``sign`` +1 Black, -1 White) is illegal or a
    self-atari that captures nothing."""
    code = BLACK if sign > 0 else WHITE
    if board.legality_index(point, code) is not None:
        return True
    trial = board.copy()
    before = trial.captures_of(code)
    trial.play_index(point, code)
    return trial.captures_of(code) == before and trial.liberties_index(point) <= 1


def _neighbours(point: int, size: int) -> list[int]:
    row, col = divmod(point, size)
    return [r * size + c for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
            if 0 <= r < size and 0 <= c < size]


def nakade_points(board: Board) -> npt.NDArray[np.bool_]:
    """``bool[size*size]``: the vital point of each small enclosed eye space.

    An eye space is a region of empty points (orthogonally connected) of 3
    to 6 points whose neighbours outside it are stones of one colour only.
    Its vital point is the point with the most neighbours inside the region
    when exactly one point has that most: the middle of a straight or bent
    three, the centre of a pyramid four or crossed five, the inner corner of
    a bulky five, the centre of a rabbity six.  Shapes with two such points
    (straight and bent four, a square, a two-by-three rectangle, straight
    five) live whoever plays first, and get none.  The shape rule of nakade
    (e.g. Pachi's ``nakade_point`` and the "eye shape" chapter of GNU Go's
    documentation); the defender plays the point to make two eyes, the
    attacker to leave one, and random playouts miss both.  Read by the
    core (:func:`fastplay._core.nakade_flat`), as the search's node maker
    reads it for the option ``nakade_prior``.
    """
    return nakade_flat(board)
