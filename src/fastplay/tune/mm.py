"""Move prediction: pattern values fitted to the moves of game records.

The playout policy of GNU Go (spec §6.6) plays a move with probability
``value / sum of values`` over the mover's candidates, the value read from
the cell ``(geometry class, property byte)`` of the move's local context.
That is Coulom's generalised Bradley-Terry model (ICGA Journal 30(4), 2007)
with one feature per cell, so its strengths can be fitted to the moves of
game records by minorization-maximization (:func:`fastplay.prior.fit` with
the three pattern groups: class, property byte, and the pair), and written
as integer values: the strength divided by the median strength of the
cells seen, times ``scale``, rounded, at least 1, at most
:data:`fastplay.dbwrite.MAX_VALUE`.

Two rules keep the playouts sound:

* a cell the base database values 0 stays 0 (GNU Go's databases give 0 to
  filling one's own single-point eye; a fitted strength is never 0, and
  playouts that fill their own eyes never end with a sensible score);
* the file names every cell seen among the candidates of the training
  positions and every zero cell of the base (a class the base values 0
  throughout, a single-point eye, gets one line: 0); a seen class's other
  cells take its geometric-mean value, and classes never seen the median
  value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fastplay._equality import fields_equal
from fastplay.dbwrite import MAX_VALUE, DbLayout
from fastplay.prior import NUM_CLASSES, NUM_PROPERTIES, MoveSamples, PriorModel, fit

__all__ = ["TunedPolicy", "tune_mm"]


@dataclass(frozen=True)
class TunedPolicy:
    """A fitted playout policy.

    Attributes:
        model: the fitted strengths (line and distance groups all 1).
        layout: the cells and values of the ``.db`` file
            (:func:`fastplay.dbwrite.write_db`); ``layout.table()`` is the
            compiled table.
        moves: training moves; ``cells_seen``: cells among their candidates.
    """

    __eq__ = fields_equal

    model: PriorModel
    layout: DbLayout
    moves: int
    cells_seen: int

    def table(self) -> npt.NDArray[np.uint32]:
        """``uint32[1108, 256]``: the table the written file compiles to."""
        return self.layout.table()


def _strengths(model: PriorModel) -> npt.NDArray[np.float64]:
    """``float64[1108, 256]``: every cell's fitted strength."""
    cells = model.cells.reshape(NUM_CLASSES, NUM_PROPERTIES)
    out: npt.NDArray[np.float64] = model.geometry[:, None] * model.properties[None, :] * cells
    return out


def _values(strength: npt.ArrayLike, unit: float, scale: float) -> npt.NDArray[np.uint32]:
    v = np.rint(np.asarray(strength, np.float64) / unit * scale)
    return np.clip(v, 1, MAX_VALUE).astype(np.uint32)


def tune_mm(samples: MoveSamples, base_table: npt.ArrayLike, iterations: int = 60,
            scale: float = 1000.0) -> TunedPolicy:
    """Fit pattern values to ``samples`` (:func:`fastplay.prior.collect_samples`).

    Args:
        samples: chosen moves and their candidates.
        base_table: ``uint32[1108, 256]``, the database whose zero cells stay
            zero (e.g. ``PatternDatabase.builtin("mc_montegnu_classic").table``).
        iterations: MM sweeps (:func:`fastplay.prior.fit`).
        scale: the value of a cell of median strength (among the cells seen).

    Returns:
        :class:`TunedPolicy`.

    Raises:
        ValueError: no samples, ``iterations`` below 1, ``scale`` not in
            ``[1, MAX_VALUE / 1000]``, or a base table of another shape.
    """
    base = np.asarray(base_table)
    if base.shape != (NUM_CLASSES, NUM_PROPERTIES):
        raise ValueError(f"the base table has shape (1108, 256), not {base.shape}")
    if not 1.0 <= scale <= MAX_VALUE / 1000:
        raise ValueError(f"scale must be in [1, {MAX_VALUE // 1000}], not {scale}")
    model = fit(samples, iterations, pattern_only=True)
    strength = _strengths(model)
    flat = np.zeros(NUM_CLASSES * NUM_PROPERTIES, bool)
    flat[samples.index] = True
    seen = flat.reshape(NUM_CLASSES, NUM_PROPERTIES)
    seen[0] = False
    unit = float(np.median(strength[seen]))
    zero = base == 0
    zero[0] = False
    all_zero = zero.all(axis=1)
    written = (seen | zero) & ~all_zero[:, None]
    values = np.where(zero, np.uint32(0), _values(strength, unit, scale)).astype(np.uint32)
    mean = np.exp(np.log(strength).mean(axis=1))
    defaults = np.where(all_zero, np.uint32(0), _values(mean, unit, scale)).astype(np.uint32)
    layout = DbLayout(values, written, defaults, int(round(scale)), classes=all_zero)
    return TunedPolicy(model, layout, len(samples), int(seen.sum()))
