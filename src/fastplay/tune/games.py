"""SPSA on game results: a database's feature weights tuned by playing games.

The other methods of :mod:`fastplay.tune` fit proxies (GNU Go's moves, the
playouts' error against reference values), and neither proxy predicted
strength inside GNU Go (RESULTS.md, "A playout tuner").  This one optimises
the thing itself, as chess engines' test frameworks tune their constants:
simultaneous perturbation stochastic approximation (Spall, "Multivariate
stochastic approximation using a simultaneous perturbation gradient
approximation", IEEE TAC 37(3), 1992) on the outcome of games.

Step ``k`` draws a direction ``delta`` in {-1, +1}^d, writes the database
at ``theta + c_k delta`` and at ``theta - c_k delta`` (the log-multipliers
of :data:`fastplay.tune.balance.FEATURES`, as ``tune balance`` writes
them), and has an engine loading each play the other ``pairs`` times with
each colour.  With ``y`` the plus side's mean score in [-1, 1] (a win +1, a
loss -1), ``theta += a_k y / (2 c_k) delta``; ``a_k = a / (k + 1 +
A)^0.602`` and ``c_k = c / (k + 1)^0.101`` (Spall's exponents; ``A`` a
tenth of the steps), and ``theta`` stays within ``THETA_LIMIT``.

The engines are any GTP program given as a command line with ``{db}`` (the
database file) and optionally ``{seed}`` (a seed derived from the run's
seed, the step and the game), for example GNU Go 3.8 itself::

    gnugo --mode gtp --monte-carlo --mc-games-per-level 400 --nofusekidb \\
        --mc-load-patterns {db} --seed {seed}

The directions and seeds are a pure function of the run's seed; the run as
a whole is one when the engine's games are a pure function of ``{seed}``.
A run stopped after any step and resumed from its state (``resume``) takes
the same steps as one that was not stopped, and the games of a step may be
played at the same time (``jobs``): their order does not enter the result.
"""

from __future__ import annotations

import json
import math
import shlex
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from fastplay.backend import derive_seed
from fastplay.outputfile import write_whole
from fastplay.patterns import PatternDatabase
from fastplay.tune.balance import FEATURES, THETA_LIMIT, balance_scale, balanced_db_text

__all__ = ["GamesRun", "Play", "spsa_games", "play_gtp_game", "engine_command", "save_state",
           "load_state"]

#: ``play(black, white)``: the winner of a game between two engine command
#: lines, ``"B"``, ``"W"``, or ``None`` for a draw.
Play = Callable[[str, str], "str | None"]


@dataclass
class GamesRun:
    """A run of :func:`spsa_games`: the last ``theta`` and, per step, ``(k,
    y)`` (the plus side's mean score in [-1, 1])."""

    theta: npt.NDArray[np.float64]
    history: list[tuple[int, float]] = field(default_factory=list)


def engine_command(template: str, db: Path, seed: int) -> str:
    """``template`` with ``{db}`` (quoted for a shell-like split) and
    ``{seed}`` filled in.  Raises ``ValueError`` without ``{db}``, or with
    any other brace (no format fields, attributes, indices or specs)."""
    if "{db}" not in template:
        raise ValueError(f"the engine command must name the database as {{db}}: {template!r}")
    rest = template.replace("{db}", "").replace("{seed}", "")
    if "{" in rest or "}" in rest:
        raise ValueError(f"the engine command may hold only {{db}} and {{seed}} in braces: "
                         f"{template!r}")
    return template.replace("{db}", shlex.quote(str(db))).replace("{seed}", str(seed))


def play_gtp_game(black: str, white: str, *, size: int = 9, komi: float = 7.5,
                  referee: str | None = None, move_timeout: float = 60.0) -> str | None:
    """One game between two GTP engine command lines (:func:`fastplay.match.play_game`,
    dead stones by ``referee`` if given); the winner, ``"B"``/``"W"``, or ``None``."""
    from fastplay.match import FORFEIT, EngineError, GTPClient, play_game

    engines = [GTPClient(black, name="black"), GTPClient(white, name="white")]
    judge = GTPClient(referee, name="referee") if referee else None
    try:
        record = play_game(engines[0], engines[1], size=size, komi=komi,
                           move_timeout=move_timeout, referee=judge)
    finally:
        for engine in engines + ([judge] if judge else []):
            engine.close()
    if not record.moves and record.result.endswith(f"+{FORFEIT}"):
        # Lost before a move: the engine refused its setup (a bad option, a
        # board size or komi it does not take) or died.  Every game would.
        raise EngineError(f"a game ended before its first move: {record.reason}")
    return record.winner


def _pair_score(play: Play, plus: str, minus: str, pairs: int, jobs: int = 1) -> float:
    """The plus engine's mean score over ``pairs`` games with each colour
    (+1 a win, -1 a loss, 0 a draw), ``jobs`` games at a time."""
    games = [(plus, minus, "B"), (minus, plus, "W")] * pairs
    if jobs > 1:
        with ThreadPoolExecutor(max_workers=min(jobs, len(games))) as pool:
            winners = list(pool.map(lambda game: play(game[0], game[1]), games))
    else:
        winners = [play(black, white) for black, white, _ in games]
    total = 0.0
    for (_, _, plus_colour), winner in zip(games, winners):
        total += 0.0 if winner is None else (1.0 if winner == plus_colour else -1.0)
    return total / (2 * pairs)


def spsa_games(base: PatternDatabase, command: str, iterations: int, seed: int = 1, *,
               play: Play, pairs: int = 1, step: float = 0.05, perturbation: float = 0.2,
               workdir: Path | None = None,
               log: Callable[[int, float, npt.NDArray[np.float64]], None] | None = None,
               resume: GamesRun | None = None, jobs: int = 1) -> GamesRun:
    """Tune ``base``'s feature log-multipliers by SPSA on games (module docstring).

    Args:
        base: the database whose values are reweighted (:func:`balance_scale`).
        command: an engine command line with ``{db}`` and optionally ``{seed}``.
        iterations: SPSA steps (``2 * pairs`` games each).
        seed: the run's seed (directions and the engines' ``{seed}``).
        play: plays a game between two command lines (:func:`play_gtp_game`).
        step, perturbation: ``a`` and ``c`` (a game's result is a noisy
            +-1, so ``a`` is small: a step moves ``theta`` by about
            ``a_k / (2 c_k)`` when the pair splits one way).
        workdir: where the two databases of a step are written (a temporary
            folder when ``None``).
        log: called after each step with ``(k, y, theta)``.
        resume: the state of a run of the same arguments stopped after
            ``len(resume.history)`` steps (steps ``0, 1, ...``); the run goes
            on from there, its history included.
        jobs: games played at the same time (each with engines of its own).

    Raises:
        ValueError: a non-positive count or gain, a bad ``command``, or a
        ``resume`` state that is not a run of at most ``iterations`` steps.
    """
    if iterations < 1 or pairs < 1 or jobs < 1 or not step > 0 or not perturbation > 0:
        raise ValueError("spsa_games needs positive counts and gains")
    engine_command(command, Path("check.db"), 0)
    rng = np.random.default_rng(derive_seed(seed, "game directions"))
    scale = balance_scale(base)
    stability = max(1.0, iterations / 10)
    run = _start(resume, iterations)
    theta = run.theta.copy()
    with tempfile.TemporaryDirectory(prefix="fastplay-spsa-") as scratch:
        folder = Path(workdir) if workdir is not None else Path(scratch)
        for k in range(iterations):
            c = perturbation / (k + 1) ** 0.101
            delta = rng.choice([-1.0, 1.0], size=len(FEATURES))
            if k < len(run.history):
                continue        # a resumed run's step: its direction drawn, nothing played
            sides = []
            for sign, name in ((1.0, "plus"), (-1.0, "minus")):
                path = folder / f"spsa-{name}.db"
                path.write_text(balanced_db_text(base, theta + sign * c * delta, scale),
                                encoding="ascii")
                # GNU Go's --seed is a C int: 31 bits.
                sides.append(engine_command(command, path,
                                            derive_seed(seed, "game", k) % (2**31 - 1)))
            y = _pair_score(play, sides[0], sides[1], pairs, jobs)
            gain = step / (k + 1 + stability) ** 0.602
            theta = np.clip(theta + gain * y / (2 * c) * delta, -THETA_LIMIT, THETA_LIMIT)
            run.theta = theta.copy()
            run.history.append((k, y))
            if log is not None:
                log(k, y, theta)
    return run


def save_state(path: Path, run: GamesRun, settings: dict[str, object]) -> None:
    """Write ``run`` (weights and step scores, exactly: JSON keeps every
    bit of a float) and the ``settings`` it was made with to ``path``,
    through a temporary file and a rename, so that a run stopped at any
    moment leaves the last complete state."""
    state = {"fastplay tune games": 1, "settings": settings,
             "theta": [float(t) for t in run.theta],
             "history": [[k, y] for k, y in run.history]}
    write_whole(path, (json.dumps(state, indent=1) + "\n").encode("utf-8"))


def load_state(path: Path, settings: dict[str, object]) -> GamesRun:
    """The run :func:`save_state` wrote to ``path``.  Raises ``ValueError``
    for a file that is not such a state, or one made with other
    ``settings`` (a resumed run must repeat the stopped one's arguments,
    ``iterations`` included: a finished run is not extended), and
    ``OSError`` when it cannot be read."""
    try:
        state = json.loads(Path(path).read_text(encoding="utf-8"),
                           parse_constant=lambda name: math.nan)
        if not isinstance(state, dict) or type(state.get("fastplay tune games")) is not int \
                or state["fastplay tune games"] != 1:
            raise ValueError("no format mark")
        theta, history = state["theta"], state["history"]
        if not all(type(t) in (int, float) for t in theta) or not all(
                type(item) is list and len(item) == 2 and type(item[0]) is int
                and type(item[1]) in (int, float) for item in history):
            raise ValueError("weights and steps must be numbers")
        run = GamesRun(np.array([float(t) for t in theta], dtype=np.float64),
                       [(k, float(y)) for k, y in history])
    except (KeyError, TypeError, ValueError, UnicodeDecodeError, OverflowError,
            RecursionError) as exc:
        raise ValueError(f"{path}: not a state of fastplay tune games "
                         f"({type(exc).__name__}: {str(exc)[:80]})") from None
    made = state.get("settings")
    if made != settings:
        changed = sorted(settings) if not isinstance(made, dict) else \
            sorted(name for name in set(settings) | set(made)
                   if made.get(name) != settings.get(name))
        shown = "; ".join(f"{name} {made.get(name) if isinstance(made, dict) else None!r}, "
                          f"now {settings.get(name)!r}" for name in changed)
        raise ValueError(f"{path} was made with other settings: {shown[:300]}")
    return run


def _start(resume: GamesRun | None, iterations: int) -> GamesRun:
    """A copy of ``resume`` checked (steps ``0 .. n-1``, ``n <= iterations``,
    finite weights within ``THETA_LIMIT``), or a run at ``theta = 0``."""
    if resume is None:
        return GamesRun(np.zeros(len(FEATURES)))
    theta = np.array(resume.theta, dtype=np.float64)
    steps = [k for k, _ in resume.history]
    if theta.shape != (len(FEATURES),) or not np.all(np.abs(theta) <= THETA_LIMIT):
        shown = ", ".join(f"{t:.6g}" for t in theta.ravel()[:10])
        raise ValueError(f"a resumed run needs {len(FEATURES)} weights within "
                         f"+-{THETA_LIMIT:g}, not {theta.size}: [{shown}]")
    if steps != list(range(len(steps))) or len(steps) > iterations:
        raise ValueError(f"a resumed run's steps must be 0, 1, ... and at most {iterations}")
    if not all(-1.0 <= y <= 1.0 for _, y in resume.history):
        raise ValueError("a resumed run's step scores must lie in [-1, 1]")
    return GamesRun(theta, [(int(k), float(y)) for k, y in resume.history])
