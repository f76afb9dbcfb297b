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

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from fastplay.backend import derive_seed
from fastplay.benchmark.store import Entry
from fastplay.dbwrite import MAX_VALUE, comment_lines, property_keywords
from fastplay.patterns import PatternDatabase, Rule, compile_db, property_mask
from fastplay.tune.quality import playout_quality

__all__ = ["FEATURES", "feature_matrix", "parameter_count", "balanced_table", "balanced_db_text",
           "capped_cells", "balance_scale", "DEFAULT_SCALE", "BalanceRun", "balance_spsa",
           "balance_gradient"]

#: The property features whose weights are balanced (spec §4.2).
FEATURES = ("near", "xcap1+", "ocap1", "ocap2", "ocap3+", "xunsafe", "ounsafe", "xsuicide")

#: Largest log-multiplier: with scale 100 and GNU Go's largest built-in value
#: (20,000) a value stays within :data:`MAX_VALUE`.
THETA_LIMIT = 1.5


#: The scale of a base whose values allow it (all of GNU Go's built-ins).
DEFAULT_SCALE = 100.0


def balance_scale(base: PatternDatabase) -> float:
    """The scale for ``base``: :data:`DEFAULT_SCALE`, or less for a base
    whose largest value times the scale and ``e**THETA_LIMIT`` (one
    multiplier at its limit; several add up) would pass :data:`MAX_VALUE`
    (a tuned base, ``mc_fastplay_9x9``, is already scaled), the largest
    integer that keeps it within; at least 1.  The
    playouts' policy does not depend on a common factor, but for rounding
    and the floor of 1."""
    top = float(base.table.max())
    if top <= 0:
        return DEFAULT_SCALE
    return max(1.0, min(DEFAULT_SCALE, math.floor(MAX_VALUE / (top * math.exp(THETA_LIMIT)))))


def feature_matrix() -> npt.NDArray[np.float64]:
    """``float64[256, 8]``: ``f[p, i]``, 1 where property byte ``p`` has feature ``i``."""
    p = np.arange(256)
    xcap, ocap = (p >> 1) & 3, (p >> 3) & 3
    cols = [p & 1, xcap >= 1, ocap == 1, ocap == 2, ocap == 3, (p >> 5) & 1, (p >> 6) & 1,
            (p >> 7) & 1]
    return np.stack([np.asarray(c, np.float64) for c in cols], axis=1)


def _kept_rules(base: PatternDatabase) -> list[Rule]:
    """``base``'s colon lines that fill a cell, in file order."""
    return [rule for rule in base.rules if rule.cells > 0]


def parameter_count(base: PatternDatabase) -> int:
    """Length of ``theta`` for ``base``: the :data:`FEATURES`, then one
    log-multiplier per colon line of ``base`` that fills a cell, then one for
    the cells no line fills (GNU Go's default value 1)."""
    return len(FEATURES) + len(_kept_rules(base)) + 1


def _groups(rules: Sequence[Rule], values: Sequence[Sequence[tuple[int, int]]]
            ) -> list[tuple[str, list[str]]]:
    """Per rule its diagram and colon lines ``(value, property byte)``; a last
    ``%%%`` group for the default cells."""
    groups = [("\n".join(rule.diagram.split("/")),
               [f":{v} {property_keywords(p)}" for v, p in lines])
              for rule, lines in zip(rules, values)]
    groups.append(("%%%\n%*%\n%%%", [f":{v} {property_keywords(p)}" for v, p in values[-1]]))
    return groups


@functools.cache
def _rule_map(base: PatternDatabase) -> npt.NDArray[np.int64]:
    """``int64[1108, 256]``: which kept colon line of ``base`` fills each cell
    (``len(rules)`` for the default cells), from compiling the base's lines
    with their index as the value."""
    rules = _kept_rules(base)
    text = _join([("\n".join(r.diagram.split("/")), [f":{i + 2} {','.join(r.keywords)}"])
                  for i, r in enumerate(rules)], "")
    table, _ = compile_db(text, strict=True, cache=False)
    out = table.astype(np.int64) - 2
    out[out < 0] = len(rules)
    out.setflags(write=False)
    return out


def _split(base: PatternDatabase, theta: npt.ArrayLike
           ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Property multipliers ``float64[256]`` and line multipliers ``float64[R + 1]``."""
    t = np.asarray(theta, np.float64)
    n = parameter_count(base)
    if t.ndim != 1 or t.shape[0] not in (len(FEATURES), n) or not np.all(np.isfinite(t)):
        raise ValueError(f"theta must be {len(FEATURES)} or {n} finite numbers, not {t!r}")
    t = np.clip(t, -THETA_LIMIT, THETA_LIMIT)
    lines = np.exp(t[len(FEATURES):]) if len(t) == n else np.ones(n - len(FEATURES))
    return np.exp(feature_matrix() @ t[:len(FEATURES)]), lines


def _scaled(value: npt.ArrayLike, scale: float) -> npt.NDArray[np.uint32]:
    v = np.asarray(value, np.float64)
    out = np.where(v > 0, np.clip(np.rint(v * scale), 1, MAX_VALUE), 0)
    return out.astype(np.uint32)


def _unscaled(base: PatternDatabase, theta: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """``float64[1108, 256]``: ``base``'s values times the multipliers of ``theta``."""
    props, lines = _split(base, theta)
    out: npt.NDArray[np.float64] = (base.table.astype(np.float64) * props[None, :]
                                    * lines[_rule_map(base)])
    return out


def balanced_table(base: PatternDatabase, theta: npt.ArrayLike, scale: float = 100.0
                   ) -> npt.NDArray[np.uint32]:
    """``uint32[1108, 256]``: ``base``'s values under ``theta`` (module docstring)."""
    table = _scaled(_unscaled(base, theta), scale)
    table[0] = 0
    return table


def capped_cells(base: PatternDatabase, theta: npt.ArrayLike, scale: float = 100.0) -> int:
    """How many cells :func:`balanced_table` cut down to :data:`MAX_VALUE` (a
    base with values above ``MAX_VALUE / scale / e**THETA_LIMIT`` loses its
    top resolution)."""
    return int(np.count_nonzero(np.rint(_unscaled(base, theta)[1:] * scale) > MAX_VALUE))


def balanced_db_text(base: PatternDatabase, theta: npt.ArrayLike, scale: float = 100.0,
                     header: str = "") -> str:
    """A ``.db`` file (GNU Go's language) that compiles to :func:`balanced_table`.

    Each colon line of ``base`` becomes one line per property byte it admits
    under the same diagram, in the same order, so first-match-wins fills the
    same cells; lines (and diagrams) that would fill nothing are left out.

    Raises:
        ValueError: ``theta`` is malformed.
    """
    props, factors = _split(base, theta)
    rules = _kept_rules(base)
    values = [[(int(_scaled(r.value * f * props[p], scale)), int(p))
               for p in np.flatnonzero(property_mask(r.keywords))]
              for r, f in zip(rules, factors)]
    values.append([(int(_scaled(factors[-1] * props[p], scale)), p) for p in range(256)])
    groups = _groups(rules, values)
    _, compiled = compile_db(_join(groups, header), strict=True, cache=False)
    filled = iter(r.cells for r in compiled)
    kept = [(rows, [ln for ln in lines if next(filled) > 0]) for rows, lines in groups]
    return _join([(rows, lines) for rows, lines in kept if lines], header)


def _join(groups: Sequence[tuple[str, list[str]]], header: str) -> str:
    out = comment_lines(header)
    for rows, lines in groups:
        out += [rows, "", *lines, ""]
    return "\n".join(out) + "\n"


@dataclass
class BalanceRun:
    """A balancing run: ``theta`` at the end (:func:`parameter_count` numbers,
    or the 8 :data:`FEATURES` for SPSA) and one ``history`` row per step:
    SPSA's ``(step, objective at theta + c delta, at theta - c delta)``; the
    gradient's ``(sweep, mean squared error, mean error)`` of that sweep's
    value estimates against the references (``V - V*``, before each update)."""

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


def _parameter_gradient(base: PatternDatabase, cell_grad: npt.NDArray[np.float64]
                        ) -> npt.NDArray[np.float64]:
    """The gradient by ``theta`` from the gradient by each cell's log value
    (``float64[1108 * 256]``): chain rule through the module docstring's model."""
    g = cell_grad.reshape(1108, 256)
    props = g.sum(axis=0) @ feature_matrix()
    lines = np.bincount(_rule_map(base).ravel(), weights=g.ravel(),
                        minlength=parameter_count(base) - len(FEATURES))
    return np.concatenate([props, lines])


def balance_gradient(base: PatternDatabase, entries: Sequence[Entry], iterations: int = 4,
                     value_playouts: int = 64, gradient_playouts: int = 64, seed: int = 1,
                     scale: float = 100.0, rate: float = 1.0) -> BalanceRun:
    """Simulation balancing with the policy gradient (Silver and Tesauro 2009,
    Huang, Coulom and Lin 2010): for each training position ``s`` in turn,

        theta += rate * (V*(s) - V(s)) * g(s),

    ``V*`` the reference value for Black, ``V`` Black's mean outcome over
    ``value_playouts`` playouts, ``g`` the gradient of Black's expected
    outcome by ``theta`` from ``gradient_playouts`` other playouts (the core's
    ``policy_gradient``, ``V`` as the baseline).  ``iterations`` sweeps over
    the positions; a pure function of the arguments.

    Raises:
        ValueError: no entries, a non-positive count or rate, or a flat base.
    """
    from fastplay._playout import policy_gradient
    from fastplay.montecarlo import playout_engine, playouts

    if not entries or iterations < 1 or value_playouts < 1 or gradient_playouts < 1 \
            or rate <= 0:
        raise ValueError("balance_gradient needs positions and positive counts and rate")
    theta = np.zeros(parameter_count(base))
    run = BalanceRun(theta.copy())
    boards = [e.decision.position.board() for e in entries]
    for sweep in range(iterations):
        errors = np.empty(len(entries))
        for j, (entry, board) in enumerate(zip(entries, boards)):
            db = PatternDatabase(balanced_table(base, theta, scale), name="balancing")
            black = entry.decision.position.to_play == "B"
            target = entry.best.value if black else 1.0 - entry.best.value
            value = playouts(board, db, value_playouts, derive_seed(seed, sweep, j, "v"))
            v = value.black_win_rate
            errors[j] = v - target
            r = policy_gradient(playout_engine(db), board, gradient_playouts,
                                derive_seed(seed, sweep, j, "g"))
            g = _parameter_gradient(base, (r["zh"] - v * r["h"]) / gradient_playouts)
            theta = np.clip(theta + rate * (target - v) * g, -THETA_LIMIT, THETA_LIMIT)
        run.theta = theta.copy()
        run.history.append((sweep, float(np.mean(errors ** 2)), float(np.mean(errors))))
    return run
