"""What a leaf is worth: rollouts, an exact ending, a user's evaluator, the mix.

A leaf of the tree is evaluated by ``batch`` playouts of GNU Go's policy
(the core's :meth:`PlayoutEngine.run_into`, GIL released), by the exact
Tromp-Taylor score when two passes ended the game inside the tree, or --
with an evaluator -- by AlphaGo's mixed leaf value (Silver et al.,
"Mastering the game of Go with deep neural networks and tree search",
Nature 529, 2016, eq. in "Evaluating leaf nodes")::

    V(s_L) = (1 - lambda) v(s_L) + lambda z_L

``v`` the evaluator's value, ``z`` the rollouts' result, ``lambda`` the
config's ``mix`` (AlphaGo: 0.5).  All values here are Black's, summed over
the leaf's visits; the tree turns them into each mover's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fastplay._core import PlayoutTally
from fastplay.board import Board
from fastplay.search.errors import PASSES_THROUGH, EvaluatorError, raised

__all__ = ["Evaluator", "LeafValue", "ScoreTables", "rollout_value", "terminal_value",
           "call_evaluator", "mixed_value"]

# A plug-in's own error (from a nested call) and what passes through unchanged.
_RERAISE: tuple[type[BaseException], ...] = (EvaluatorError, *PASSES_THROUGH)

#: A user evaluator: positions -> for each, the probability in [0, 1] that
#: the side to move there wins.
Evaluator = Callable[[list[Board]], npt.ArrayLike]


@dataclass(slots=True)
class LeafValue:
    """One leaf's evaluation, as the back-up adds it to the path.

    Attributes:
        n: visits it counts for.
        black_value: Black's value summed over them (what selection follows).
        black_wins: Black's wins under the game's komi (reported win rates).
        search_wins: Black's wins under the search's komi (dynamic komi).
        amaf: the rollouts' first-play tallies ``int32[2, 3, points]`` or ``None``.
        playouts: playouts run for it.
    """

    n: float
    black_value: float
    black_wins: float
    search_wins: float
    amaf: npt.NDArray[np.int32] | None = None
    playouts: int = 0


class ScoreTables:
    """Per (size, komi): two rows over the bins of the core's score
    histogram (bin ``i`` is Black's area minus White's ``= i - points``,
    before komi): ``1/2 + margin / (2 points)`` and Black's win (1, 1/2 for
    a draw, 0), for the margin after komi."""

    def __init__(self) -> None:
        self._tables: dict[tuple[int, float], npt.NDArray[np.float64]] = {}

    def __call__(self, size: int, komi: float) -> npt.NDArray[np.float64]:
        table = self._tables.get((size, komi))
        if table is None:
            points = size * size
            margin = np.arange(2 * points + 1, dtype=np.float64) - points - komi
            table = np.stack([0.5 + 0.5 * np.clip(margin / points, -1.0, 1.0),
                              np.where(margin > 0, 1.0, np.where(margin < 0, 0.0, 0.5))])
            self._tables[(size, komi)] = table
        return table


def game_value(win: float, margin: float, points: int, score_weight: float) -> float:
    """Black's value of one finished game: ``win`` (1, 0.5 or 0) blended with
    the margin (Black's area minus White's, komi included) as ``(1 - s) win +
    s (1/2 + margin / (2 points))``, ``s = score_weight``: Fuego's score
    modification (``GoUctPlayoutPolicy``, Enzenberger et al., IEEE TCIAIG
    2010): wins stay above losses; a wider margin is worth a little more."""
    s = score_weight
    if s == 0:
        return win
    return (1 - s) * win + s * (0.5 + 0.5 * max(-1.0, min(1.0, margin / points)))


def terminal_value(score: float, n: int, shift: float, points: int,
                   score_weight: float) -> LeafValue:
    """A game ended in the tree with Black's exact margin ``score`` (game
    komi), counted as ``n`` visits; ``shift``: the search's komi minus the
    game's."""
    count = float(n)
    win = 1.0 if score > 0 else (0.0 if score < 0 else 0.5)
    black_wins = win * count
    margin = score - shift
    win = 1.0 if margin > 0 else (0.0 if margin < 0 else 0.5)
    return LeafValue(count, game_value(win, margin, points, score_weight) * count, black_wins,
                     win * count)


def rollout_value(stats: PlayoutTally, leaf: Board, search_komi: float, score_weight: float,
                  tables: ScoreTables, rave: bool) -> LeafValue:
    """The leaf's playouts (``stats``, one :meth:`PlayoutEngine.run_into`
    call, played under ``search_komi``) as a :class:`LeafValue`."""
    shift = search_komi - leaf.komi
    # Wins under the search's komi: the core's first-play tallies count
    # them, so the tree moves' tallies must too.
    search_wins = black_wins = black_value = stats.black_wins + 0.5 * stats.draws
    if shift:   # plain wins under the game's komi, from the score histogram
        black_wins = float(stats.hist @ tables(leaf.size, leaf.komi)[1])
    if score_weight > 0:
        black_value = ((1 - score_weight) * black_value + score_weight
                       * float(stats.hist @ tables(leaf.size, search_komi)[0]))
    return LeafValue(float(stats.n), black_value, black_wins, search_wins,
                     stats.amaf if rave else None, int(stats.n))


def mixed_value(rollouts: LeafValue | None, value: float, black_to_move: bool, n: int,
                mix: float) -> LeafValue:
    """AlphaGo's leaf value ``(1 - mix) v + mix z`` over the leaf's visits.

    ``value``: the evaluator's probability that the leaf's side to move
    (Black if ``black_to_move``) wins; ``rollouts``: the leaf's playouts
    (``None`` when ``mix`` is 0: ``n`` visits of ``v`` alone).
    """
    black = value if black_to_move else 1.0 - value
    if rollouts is None:
        count = float(n)
        return LeafValue(count, black * count, black * count, black * count)
    count = rollouts.n
    part = (1.0 - mix) * black * count
    return LeafValue(count, part + mix * rollouts.black_value, part + mix * rollouts.black_wins,
                     part + mix * rollouts.search_wins, rollouts.amaf, rollouts.playouts)


def _name(function: object) -> str:
    return getattr(function, "__qualname__", None) or repr(function)


def call_evaluator(evaluator: Evaluator, boards: Sequence[Board]) -> npt.NDArray[np.float64]:
    """``evaluator(boards)`` as ``float64[len(boards)]``, checked.

    Raises :class:`EvaluatorError` naming the evaluator and the problem: it
    raised anything (``MemoryError`` and ``KeyboardInterrupt`` pass through:
    :data:`~fastplay.search.errors.PASSES_THROUGH`), it returned something that is not an
    array of real numbers (strings, booleans, complex numbers, a dict, a
    generator), the shape is not ``(len(boards),)``, a value is NaN or
    outside [0, 1].
    """
    name = _name(evaluator)
    try:
        answer = evaluator(list(boards))
    except _RERAISE:
        raise
    except BaseException as exc:  # noqa: BLE001 - reported as the evaluator's failure
        raise EvaluatorError(raised(f"evaluator {name}", exc)) from exc
    values = real_array(answer, f"evaluator {name}", EvaluatorError)
    if values.shape != (len(boards),):
        raise EvaluatorError(f"evaluator {name} returned shape {values.shape} "
                             f"for {len(boards)} positions, expected ({len(boards)},)")
    if np.any(np.isnan(values)):
        raise EvaluatorError(f"evaluator {name} returned NaN")
    if np.any((values < 0) | (values > 1)):
        raise EvaluatorError(f"evaluator {name} returned a value outside [0, 1] "
                             f"(a win probability of the side to move): "
                             f"{float(values[(values < 0) | (values > 1)][0])!r}")
    return values


def real_array(answer: object, who: str, error: type[ValueError]) -> npt.NDArray[np.float64]:
    """``answer`` as a ``float64`` array if it holds real numbers (integers or
    floats, or Python objects that are), else ``error`` naming ``who``."""
    if isinstance(answer, (str, bytes, dict)) or not hasattr(answer, "__len__") \
            and not isinstance(answer, (int, float, np.ndarray, np.generic)):
        raise error(f"{who} returned a {type(answer).__name__}, expected an array of numbers")
    try:
        raw = np.asarray(answer)
    except Exception as exc:  # noqa: BLE001 - a ragged or odd answer
        raise error(f"{who} returned something that is not an array: {exc}") from None
    if raw.dtype.kind == "O":
        if not all(isinstance(x, (int, float, np.integer, np.floating))
                   and not isinstance(x, (bool, np.bool_)) for x in raw.ravel()):
            bad = next(x for x in raw.ravel() if not isinstance(x, (int, float, np.integer,
                                                                    np.floating))
                       or isinstance(x, (bool, np.bool_)))
            raise error(f"{who} returned a {type(bad).__name__} among its values, "
                        f"expected real numbers")
    elif raw.dtype.kind not in "iuf":
        raise error(f"{who} returned {raw.dtype} values, expected real numbers")
    try:
        return raw.astype(np.float64)
    except OverflowError:       # a Python int beyond float64 (10**400)
        raise error(f"{who} returned an integer too large for a float64") from None
