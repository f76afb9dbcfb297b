"""Simulation balancing: pattern values whose playouts judge positions right.

Silver and Tesauro (ICML 2009) and Huang, Coulom and Lin ("Monte-Carlo
Simulation Balancing in Practice", CG 2010) tune a playout policy so that
the playouts' mean outcome from a training position matches the position's
reference value, rather than so that its moves are strong.  Here the
objective is theirs, the mean squared error of :mod:`fastplay.tune.quality`
over training positions, and the parameters are a log-multiplier per
property feature of GNU Go's local context (:data:`FEATURES`, spec §4.2),
applied to a base database's values:

    value(class, p) = round(scale * base(class, p) * exp(sum_i theta_i f_i(p)))

(at least 1 where the base value is at least 1; zeros stay zero), so the
base's shapes and eyes are kept and only how much captures, ataris,
self-ataris and "near" weigh is balanced.  The gradient is estimated by
SPSA (Spall, IEEE Trans. Automatic Control 37(3), 1992: two evaluations per
step along a random +-1 direction, with common random numbers), not by the
policy-gradient estimator of Silver and Tesauro, which needs the playouts'
move traces.  A run is a pure function of its positions and seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from fastplay.backend import derive_seed
from fastplay.benchmark.store import Entry
from fastplay.dbwrite import MAX_VALUE, comment_lines, property_keywords
from fastplay.patterns import PatternDatabase, compile_db, property_mask
from fastplay.tune.quality import playout_quality

__all__ = ["FEATURES", "feature_matrix", "balanced_table", "balanced_db_text", "BalanceRun",
           "balance_spsa"]

#: The property features whose weights are balanced (spec §4.2).
FEATURES = ("near", "xcap1+", "ocap1", "ocap2", "ocap3+", "xunsafe", "ounsafe", "xsuicide")

#: Largest log-multiplier: with scale 100 and GNU Go's largest built-in value
#: (20,000) a value stays within :data:`MAX_VALUE`.
THETA_LIMIT = 1.5


def feature_matrix() -> npt.NDArray[np.float64]:
    """``float64[256, 8]``: ``f[p, i]``, 1 where property byte ``p`` has feature ``i``."""
    p = np.arange(256)
    xcap, ocap = (p >> 1) & 3, (p >> 3) & 3
    cols = [p & 1, xcap >= 1, ocap == 1, ocap == 2, ocap == 3, (p >> 5) & 1, (p >> 6) & 1,
            (p >> 7) & 1]
    return np.stack([np.asarray(c, np.float64) for c in cols], axis=1)


def _multipliers(theta: npt.ArrayLike) -> npt.NDArray[np.float64]:
    t = np.asarray(theta, np.float64)
    if t.shape != (len(FEATURES),) or not np.all(np.isfinite(t)):
        raise ValueError(f"theta must be {len(FEATURES)} finite numbers, not {t!r}")
    out: npt.NDArray[np.float64] = np.exp(feature_matrix() @ np.clip(t, -THETA_LIMIT,
                                                                     THETA_LIMIT))
    return out


def _scaled(value: npt.ArrayLike, scale: float) -> npt.NDArray[np.uint32]:
    v = np.asarray(value, np.float64)
    out = np.where(v > 0, np.clip(np.rint(v * scale), 1, MAX_VALUE), 0)
    return out.astype(np.uint32)


def balanced_table(base: PatternDatabase, theta: npt.ArrayLike, scale: float = 100.0
                   ) -> npt.NDArray[np.uint32]:
    """``uint32[1108, 256]``: ``base``'s values under ``theta`` (module docstring)."""
    table = _scaled(base.table.astype(np.float64) * _multipliers(theta)[None, :], scale)
    table[0] = 0
    return table


def _rule_lines(base: PatternDatabase, theta: npt.ArrayLike, scale: float
                ) -> list[tuple[str, list[str]]]:
    """Per colon line of ``base`` (first match order): its diagram and one
    colon line per admitted property byte, with its balanced value."""
    m = _multipliers(theta)
    groups: list[tuple[str, list[str]]] = []
    for rule in base.rules:
        if rule.cells == 0:
            continue
        rows = "\n".join(rule.diagram.split("/"))
        mask = property_mask(rule.keywords)
        lines = [f":{int(_scaled(rule.value * m[p], scale))} {property_keywords(int(p))}"
                 for p in np.flatnonzero(mask)]
        groups.append((rows, lines))
    groups.append(("%%%\n%*%\n%%%", [f":{int(_scaled(m[p], scale))} {property_keywords(p)}"
                                     for p in range(256)]))   # GNU Go's default, 1
    return groups


def balanced_db_text(base: PatternDatabase, theta: npt.ArrayLike, scale: float = 100.0,
                     header: str = "") -> str:
    """A ``.db`` file (GNU Go's language) that compiles to :func:`balanced_table`.

    Each colon line of ``base`` becomes one line per property byte it admits
    under the same diagram, in the same order, so first-match-wins fills the
    same cells; lines (and diagrams) that would fill nothing are left out.

    Raises:
        ValueError: ``base`` has a diagram that is not in the symbol table,
            or ``theta`` is malformed.
    """
    groups = _rule_lines(base, theta, scale)
    text = _join(groups, header)
    _, rules = compile_db(text, strict=True, cache=False)
    filled = iter(r.cells for r in rules)
    kept = [(rows, [ln for ln in lines if next(filled) > 0]) for rows, lines in groups]
    return _join([(rows, lines) for rows, lines in kept if lines], header)


def _join(groups: Sequence[tuple[str, list[str]]], header: str) -> str:
    out = comment_lines(header)
    for rows, lines in groups:
        out += [rows, "", *lines, ""]
    return "\n".join(out) + "\n"


@dataclass
class BalanceRun:
    """An SPSA run: ``theta`` (``float64[8]``, :data:`FEATURES`) after each step,
    and the two objective values of each step."""

    theta: npt.NDArray[np.float64]
    history: list[tuple[int, float, float]] = field(default_factory=list)


def balance_spsa(base: PatternDatabase, entries: Sequence[Entry], iterations: int = 40,
                 playouts: int = 64, seed: int = 1, scale: float = 100.0,
                 step: float = 0.1, perturbation: float = 0.2) -> BalanceRun:
    """Minimise the playouts' squared error on ``entries`` over ``theta``.

    Args:
        base: the database whose values are reweighted.
        entries: training positions with reference values.
        iterations: SPSA steps (two objective evaluations each).
        playouts: playouts per position per evaluation.
        seed: the run's seed (directions and playouts derive from it).
        scale: see the module docstring.
        step, perturbation: SPSA's ``a`` (the first step's size in theta,
            after a pilot estimate of the gradient's size) and ``c``; the
            gains decay as Spall's 0.602 and 0.101 powers.

    Raises:
        ValueError: no entries, or a non-positive count or gain.
    """
    if not entries or iterations < 1 or playouts < 1 or step <= 0 or perturbation <= 0:
        raise ValueError("balance_spsa needs positions and positive counts and gains")
    rng = np.random.default_rng(derive_seed(seed, "directions"))
    theta = np.zeros(len(FEATURES))
    run = BalanceRun(theta.copy())

    def objective(t: npt.NDArray[np.float64], k: int) -> float:
        db = PatternDatabase(balanced_table(base, t, scale), name="balancing")
        return playout_quality(db, entries, playouts, derive_seed(seed, "step", k)).mse

    stability = max(1.0, iterations / 10)
    gain = None
    for k in range(iterations):
        c = perturbation / (k + 1) ** 0.101
        delta = rng.choice([-1.0, 1.0], size=len(FEATURES))
        plus, minus = objective(theta + c * delta, k), objective(theta - c * delta, k)
        g = (plus - minus) / (2 * c * delta)
        if gain is None:   # Spall's rule: the first step moves theta by about `step`
            gain = step * (1 + stability) ** 0.602 / max(float(np.abs(g).mean()), 1e-12)
        theta = np.clip(theta - gain / (k + 1 + stability) ** 0.602 * g,
                        -THETA_LIMIT, THETA_LIMIT)
        run.theta = theta.copy()
        run.history.append((k, plus, minus))
    return run
